// Golden tests of the TOSA layout passes (lowering/tosa/passes/), one pass at a time: a graph in
// JSON (the form nnef-to-tosa --format json writes and graph_from_json reads), the pass by its
// pipeline name, and the expected graph after it as the text dump (tosa::to_text). Each result is
// also validated (the verifier that runs after every pass) and written as JSON and read back, to
// the same text: what a pass prints can be the input of the next one.
#include <doctest/doctest.h>

#include <string>

#include <nlohmann/json.hpp>
#include <nnef/diagnostics.hpp>

#include "lowering/tosa/json.hpp"
#include "lowering/tosa/passes/passes.hpp"
#include "lowering/tosa/validator.hpp"

using namespace nnef::tosa;

namespace {

// Runs pass `name` of the layout pipeline on the graph `input` (JSON) and returns its text dump.
std::string after_pass(const std::string& name, const std::string& input) {
    nnef::Diagnostics d;
    auto g = graph_from_json(nlohmann::json::parse(input), d, "input.json");
    REQUIRE_MESSAGE(g, (d.list().empty() ? std::string("no diagnostic") : d.list().front().message));
    const nnef::lowering::Pass<Graph>* pass = nullptr;
    const auto passes = passes::layout_passes(LowerOptions{});
    for (const auto& p : passes)
        if (p.name == name) pass = &p;
    REQUIRE_MESSAGE(pass, "no layout pass named " << name);
    REQUIRE(pass->run(*g, d));
    CHECK(!d.has_errors());
    CHECK_MESSAGE(validate(*g, ValidateOptions{}, d), (d.list().empty() ? std::string() : d.list().front().message));
    const std::string text = to_text(*g);
    // The result reads back from its JSON, to the same graph.
    nnef::Diagnostics d2;
    auto back = graph_from_json(nlohmann::json::parse(to_json(*g).dump()), d2, "after.json");
    REQUIRE(back);
    CHECK(to_text(*back) == text);
    return text;
}

}  // namespace

TEST_SUITE("tosa") {
    TEST_CASE("pass golden: fold-constant-layouts permutes a transposed CONST once") {
        // CONST [[1, 2, 3], [4, 8, 5]] transposed: [[1, 4], [2, 8], [3, 5]].
        const std::string in = R"({"format": "nnef-tosa-graph", "version": 1, "name": "g", "profile": "PRO-FP",
 "values": [{"type": "fp32", "shape": [3, 2], "name": "x"}, {"type": "fp32", "shape": [2, 3]},
            {"type": "fp32", "shape": [3, 2]}, {"type": "fp32", "shape": [3, 2], "name": "y"}],
 "blocks": [{"name": "main", "inputs": [0], "outputs": [3],
   "ops": [{"op": "CONST", "inputs": [], "outputs": [1], "attributes": {"values": {"type": "fp32", "shape": [2, 3],
             "data": "0000803f000000400000404000008040000000410000a040"}}},
           {"op": "TRANSPOSE", "inputs": [1], "outputs": [2], "attributes": {"perms": [1, 0]}},
           {"op": "ADD", "inputs": [0, 2], "outputs": [3]}]}]})";
        CHECK(after_pass("fold-constant-layouts", in) == R"(tosa.graph "g" profile PRO-FP
block ^0 "main"(%0:fp32[3,2]) %0='x' {
  %1:fp32[2,3] = CONST() {values=fp32[2,3] [1, 2, 3, 4, 8, 5]}
  %2:fp32[3,2] = CONST() {values=fp32[3,2] [1, 4, 2, 8, 3, 5]}
  %3:fp32[3,2] = ADD(%0, %2)
  return %3
}
)");
    }

    TEST_CASE("pass golden: push-transposes moves a TRANSPOSE below an element-wise operator") {
        const std::string in = R"({"format": "nnef-tosa-graph", "version": 1, "name": "g", "profile": "PRO-FP",
 "values": [{"type": "fp32", "shape": [1, 2, 3, 4], "name": "x"}, {"type": "fp32", "shape": [1, 3, 4, 2]},
            {"type": "fp32", "shape": [1, 3, 4, 2], "name": "y"}],
 "blocks": [{"name": "main", "inputs": [0], "outputs": [2],
   "ops": [{"op": "TRANSPOSE", "inputs": [0], "outputs": [1], "attributes": {"perms": [0, 2, 3, 1]}},
           {"op": "ABS", "inputs": [1], "outputs": [2]}]}]})";
        // ABS now reads x; the old TRANSPOSE is dead (eliminate-dead-code removes it).
        CHECK(after_pass("push-transposes", in) == R"(tosa.graph "g" profile PRO-FP
block ^0 "main"(%0:fp32[1,2,3,4]) %0='x' {
  %1:fp32[1,3,4,2] = TRANSPOSE(%0) {perms=[0,2,3,1]}
  %3:fp32[1,2,3,4] = ABS(%0)
  %2:fp32[1,3,4,2] = TRANSPOSE(%3) {perms=[0,2,3,1]}
  return %2
}
)");
    }

    TEST_CASE("pass golden: cancel-transposes composes inverse TRANSPOSEs") {
        const std::string in = R"({"format": "nnef-tosa-graph", "version": 1, "name": "g", "profile": "PRO-FP",
 "values": [{"type": "fp32", "shape": [1, 2, 3, 4], "name": "x"}, {"type": "fp32", "shape": [1, 3, 4, 2]},
            {"type": "fp32", "shape": [1, 2, 3, 4], "name": "y"}],
 "blocks": [{"name": "main", "inputs": [0], "outputs": [2],
   "ops": [{"op": "TRANSPOSE", "inputs": [0], "outputs": [1], "attributes": {"perms": [0, 2, 3, 1]}},
           {"op": "TRANSPOSE", "inputs": [1], "outputs": [2], "attributes": {"perms": [0, 3, 1, 2]}}]}]})";
        // The identity composition: the graph output (a value of its own, not the input) comes
        // from a RESHAPE of x to its own shape; the first TRANSPOSE is dead.
        CHECK(after_pass("cancel-transposes", in) == R"(tosa.graph "g" profile PRO-FP
block ^0 "main"(%0:fp32[1,2,3,4]) %0='x' {
  %1:fp32[1,3,4,2] = TRANSPOSE(%0) {perms=[0,2,3,1]}
  %3:shape[4] = CONST_SHAPE() {values=[1,2,3,4]}
  %2:fp32[1,2,3,4] = RESHAPE(%0, %3)
  return %2
}
)");
    }

    TEST_CASE("pass golden: eliminate-dead-code removes operators whose results are unused") {
        const std::string in = R"({"format": "nnef-tosa-graph", "version": 1, "name": "g", "profile": "PRO-FP",
 "values": [{"type": "fp32", "shape": [2], "name": "x"}, {"type": "fp32", "shape": [2]},
            {"type": "fp32", "shape": [2], "name": "y"}],
 "blocks": [{"name": "main", "inputs": [0], "outputs": [2],
   "ops": [{"op": "ABS", "inputs": [0], "outputs": [1]},
           {"op": "FLOOR", "inputs": [0], "outputs": [2]}]}]})";
        CHECK(after_pass("eliminate-dead-code", in) == R"(tosa.graph "g" profile PRO-FP
block ^0 "main"(%0:fp32[2]) %0='x' {
  %2:fp32[2] = FLOOR(%0)
  return %2
}
)");
    }
}
