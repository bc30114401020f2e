// Golden tests of the TOSA layout passes (lowering/tosa/passes/), one pass at a time: a graph in
// JSON (the form nnef-to-tosa --format json writes and graph_from_json reads), the pass by its
// pipeline name, and the expected graph after it as the text dump (tosa::to_text). Each result is
// also validated (the verifier that runs after every pass) and written as JSON and read back, to
// the same text: what a pass prints can be the input of the next one.
#include <doctest/doctest.h>

#include <string>

#include <nlohmann/json.hpp>
#include <nnef/diagnostics.hpp>

#include "lowering/tosa/interpreter.hpp"
#include "lowering/tosa/json.hpp"
#include "lowering/tosa/passes/passes.hpp"
#include "lowering/tosa/validator.hpp"

using namespace nnef::tosa;

namespace passes_golden_test {

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

    TEST_CASE("pass golden: fold-constant-layouts copies a SLICE of a CONST once, and a RESHAPE of it views it") {
        // CONST [[1, 2, 3], [4, 8, 5]], the box at [0, 1] of [2, 2]: [[2, 3], [8, 5]], reshaped to [4].
        const std::string in = R"({"format": "nnef-tosa-graph", "version": 1, "name": "g", "profile": "PRO-FP",
 "values": [{"type": "fp32", "shape": [4], "name": "x"}, {"type": "fp32", "shape": [2, 3]},
            {"type": "shape", "shape": [2]}, {"type": "shape", "shape": [2]}, {"type": "fp32", "shape": [2, 2]},
            {"type": "shape", "shape": [1]}, {"type": "fp32", "shape": [4]}, {"type": "fp32", "shape": [4], "name": "y"}],
 "blocks": [{"name": "main", "inputs": [0], "outputs": [7],
   "ops": [{"op": "CONST", "inputs": [], "outputs": [1], "attributes": {"values": {"type": "fp32", "shape": [2, 3],
             "data": "0000803f000000400000404000008040000000410000a040"}}},
           {"op": "CONST_SHAPE", "inputs": [], "outputs": [2], "attributes": {"values": [0, 1]}},
           {"op": "CONST_SHAPE", "inputs": [], "outputs": [3], "attributes": {"values": [2, 2]}},
           {"op": "SLICE", "inputs": [1, 2, 3], "outputs": [4]},
           {"op": "CONST_SHAPE", "inputs": [], "outputs": [5], "attributes": {"values": [4]}},
           {"op": "RESHAPE", "inputs": [4, 5], "outputs": [6]},
           {"op": "ADD", "inputs": [0, 6], "outputs": [7]}]}]})";
        // the CONST and the CONST_SHAPEs are dead now (eliminate-dead-code removes them)
        CHECK(after_pass("fold-constant-layouts", in) == R"(tosa.graph "g" profile PRO-FP
block ^0 "main"(%0:fp32[4]) %0='x' {
  %1:fp32[2,3] = CONST() {values=fp32[2,3] [1, 2, 3, 4, 8, 5]}
  %2:shape[2] = CONST_SHAPE() {values=[0,1]}
  %3:shape[2] = CONST_SHAPE() {values=[2,2]}
  %4:fp32[2,2] = CONST() {values=fp32[2,2] [2, 3, 8, 5]}
  %5:shape[1] = CONST_SHAPE() {values=[4]}
  %6:fp32[4] = CONST() {values=fp32[4] [2, 3, 8, 5]}
  %7:fp32[4] = ADD(%0, %6)
  return %7
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

    TEST_CASE("pass golden: fold-pads folds zero PADs into a CONV2D's padding, not into AVG_POOL2D or MAX_POOL2D, values unchanged") {
        // x -> PAD (rows 1, 1) -> PAD (columns 1, 1) -> CONV2D 3x3 (pad 0): y. x -> PAD (both) -> AVG_POOL2D 3x3: z,
        // and the same PAD -> MAX_POOL2D 3x3: m. Zero pads: the convolution's zero point is 0, so
        // both fold (the second one after the first); an average pool would divide by fewer
        // elements, and a max pool's own padding never wins while a padded zero can.
        const std::string in = R"({"format": "nnef-tosa-graph", "version": 1, "name": "g", "profile": "PRO-FP", "values": [{"type": "fp32", "shape": [1, 4, 4, 2], "name": "x"}, {"type": "shape", "shape": [8]}, {"type": "fp32", "shape": [1]}, {"type": "fp32", "shape": [1, 6, 4, 2]}, {"type": "shape", "shape": [8]}, {"type": "fp32", "shape": [1, 6, 6, 2]}, {"type": "fp32", "shape": [1, 3, 3, 2]}, {"type": "fp32", "shape": [1]}, {"type": "fp32", "shape": [1, 4, 4, 1], "name": "y"}, {"type": "shape", "shape": [8]}, {"type": "fp32", "shape": [1, 6, 6, 2]}, {"type": "fp32", "shape": [1, 4, 4, 2], "name": "z"}, {"type": "fp32", "shape": [1, 4, 4, 2], "name": "m"}], "blocks": [{"name": "main", "inputs": [0], "outputs": [8, 11, 12], "ops": [{"op": "CONST_SHAPE", "inputs": [], "outputs": [1], "attributes": {"values": [0, 0, 1, 1, 0, 0, 0, 0]}}, {"op": "CONST", "inputs": [], "outputs": [2], "attributes": {"values": {"type": "fp32", "shape": [1], "data": "00000000"}}}, {"op": "PAD", "inputs": [0, 1, 2], "outputs": [3]}, {"op": "CONST_SHAPE", "inputs": [], "outputs": [4], "attributes": {"values": [0, 0, 0, 0, 1, 1, 0, 0]}}, {"op": "PAD", "inputs": [3, 4, 2], "outputs": [5]}, {"op": "CONST", "inputs": [], "outputs": [6], "attributes": {"values": {"type": "fp32", "shape": [1, 3, 3, 2], "data": "000080bf000000000000803f000000bf0000003f000080bf000000000000803f000000bf0000003f000080bf000000000000803f000000bf0000003f000080bf000000000000803f"}}}, {"op": "CONST", "inputs": [], "outputs": [7], "attributes": {"values": {"type": "fp32", "shape": [1], "data": "0000803e"}}}, {"op": "CONV2D", "inputs": [5, 6, 7, 2, 2], "outputs": [8], "attributes": {"acc_type": "FP32", "dilation": [1, 1], "pad": [0, 0, 0, 0], "stride": [1, 1]}}, {"op": "CONST_SHAPE", "inputs": [], "outputs": [9], "attributes": {"values": [0, 0, 1, 1, 1, 1, 0, 0]}}, {"op": "PAD", "inputs": [0, 9, 2], "outputs": [10]}, {"op": "AVG_POOL2D", "inputs": [10, 2, 2], "outputs": [11], "attributes": {"acc_type": "FP32", "kernel": [3, 3], "pad": [0, 0, 0, 0], "stride": [1, 1]}}, {"op": "MAX_POOL2D", "inputs": [10], "outputs": [12], "attributes": {"kernel": [3, 3], "pad": [0, 0, 0, 0], "stride": [1, 1], "nan_mode": "PROPAGATE"}}]}]})";
        const std::string out = after_pass("fold-pads", in);
        // CONV2D reads x with pad [1,1,1,1]; the two PADs before it are dead (eliminate-dead-code)
        CHECK(out == R"(tosa.graph "g" profile PRO-FP
block ^0 "main"(%0:fp32[1,4,4,2]) %0='x' {
  %1:shape[8] = CONST_SHAPE() {values=[0,0,1,1,0,0,0,0]}
  %2:fp32[1] = CONST() {values=fp32[1] [0]}
  %3:fp32[1,6,4,2] = PAD(%0, %1, %2)
  %4:shape[8] = CONST_SHAPE() {values=[0,0,0,0,1,1,0,0]}
  %5:fp32[1,6,6,2] = PAD(%3, %4, %2)
  %6:fp32[1,3,3,2] = CONST() {values=fp32[1,3,3,2]}
  %7:fp32[1] = CONST() {values=fp32[1] [0.25]}
  %8:fp32[1,4,4,1] = CONV2D(%0, %6, %7, %2, %2) {pad=[1,1,1,1], stride=[1,1], dilation=[1,1], acc_type=FP32}
  %9:shape[8] = CONST_SHAPE() {values=[0,0,1,1,1,1,0,0]}
  %10:fp32[1,6,6,2] = PAD(%0, %9, %2)
  %11:fp32[1,4,4,2] = AVG_POOL2D(%10, %2, %2) {kernel=[3,3], stride=[1,1], pad=[0,0,0,0], acc_type=FP32}
  %12:fp32[1,4,4,2] = MAX_POOL2D(%10) {kernel=[3,3], stride=[1,1], pad=[0,0,0,0], nan_mode=PROPAGATE}
  return %8, %11, %12
}
)");
        // the same values as before the fold (interpreter on both graphs)
        nnef::Diagnostics d;
        auto before = graph_from_json(nlohmann::json::parse(in), d, "input.json");
        auto after = graph_from_json(nlohmann::json::parse(in), d, "input.json");
        REQUIRE(before);
        REQUIRE(after);
        REQUIRE(passes::fold_pads(*after, d));
        auto x = ConstData::allocate({DType::fp32, {1, 4, 4, 2}});
        for (std::int64_t i = 0; i < 32; ++i) x->mutable_items<float>()[i] = float((i * 5) % 11) - 6.5f;
        const auto want = interpret(*before, {x}, {}, d), got = interpret(*after, {x}, {}, d);
        REQUIRE(want);
        REQUIRE(got);
        for (std::size_t k = 0; k < want->size(); ++k) {
            REQUIRE((*got)[k]->type.volume() == (*want)[k]->type.volume());
            for (std::int64_t i = 0; i < (*want)[k]->type.volume(); ++i) CHECK((*got)[k]->items<float>()[i] == (*want)[k]->items<float>()[i]);
        }
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

}  // namespace passes_golden_test
