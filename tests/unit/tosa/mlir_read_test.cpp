// The MLIR reader (lowering/tosa/mlir_read.hpp): the hand-written files of tests/mlir-in/ (the
// forms MLIR 22's printer produces) give the graph they spell (operators, attributes, constant
// items); what the writer makes reads back to the same text; malformed, hostile and foreign input
// gives one clear error at the right line and column, never a crash.
#include <doctest/doctest.h>

#include <cmath>
#include <cstring>
#include <string>

#include <nnef/source.hpp>

#include "fuzz/mlir_checks.hpp"
#include "fuzz_replay.hpp"
#include "lowering/tosa/interpreter.hpp"
#include "lowering/tosa/mlir.hpp"
#include "lowering/tosa/mlir_read.hpp"
#include "test_support.hpp"

namespace mlir_read_test {

using namespace nnef::tosa;

struct Read {
    nnef::SourceManager sources;
    nnef::Diagnostics diags;
    std::optional<MlirModule> module;
    std::string errors;  // rendered
};

std::unique_ptr<Read> read(const std::string& text, MlirReadOptions o = {}, const std::string& name = "test.mlir") {
    auto r = std::make_unique<Read>();
    const std::uint32_t file = r->sources.add(name, text);
    r->module = read_mlir(r->sources, file, o, r->diags);
    for (const auto& d : r->diags) r->errors += nnef::render(d, r->sources, false) + "\n";
    return r;
}

std::unique_ptr<Read> read_file(const std::string& name, MlirReadOptions o = {}) {
    const auto path = nnef_test::source_dir() / "tests" / "mlir-in" / name;
    return read(nnef_test::read_text(path), o, name);
}

const Op& op_at(const Graph& g, std::size_t i, std::uint32_t block = 0) { return g.blocks.at(block).ops.at(i); }

std::vector<double> items(const ConstData& c) {
    std::vector<double> v;
    for (std::int64_t i = 0; i < c.type.volume(); ++i) v.push_back(number_item(c, i));
    return v;
}
const ConstData& values_of(const Op& op) { return *op.get<ConstPtr>(AttrName::values); }

TEST_CASE("mlir-read: the pretty form mlir-opt prints") {
    auto r = read_file("pretty_forms.mlir");
    INFO(r->errors);
    REQUIRE(r->module);
    const Graph& g = r->module->graph;
    CHECK(g.name == "forms");
    CHECK(g.profile == Profile::pro_fp);
    CHECK(r->module->profile_from_target);
    REQUIRE(g.blocks.size() == 5);
    REQUIRE(g.main().inputs.size() == 2);
    CHECK(g.value(g.main().inputs[0]).name == "arg0");
    CHECK(to_string(g.type(g.main().inputs[0])) == "fp32[1,3,4,4]");
    // The module's variable leads the main block with its initial value.
    const Op& var = op_at(g, 0);
    REQUIRE(var.kind == OpKind::VARIABLE);
    CHECK(var.get<std::string>(AttrName::name) == "state");
    CHECK(var.get<std::vector<std::int64_t>>(AttrName::var_shape) == std::vector<std::int64_t>{2});
    CHECK(var.get<DType>(AttrName::type) == DType::fp32);
    CHECK(items(*var.get<ConstPtr>(AttrName::initial_value)) == std::vector<double>{1.0, 2.0});
    // A hexadecimal splat fills every item; a literal list is read item by item.
    const ConstData& w = values_of(op_at(g, 1));
    CHECK(w.type.volume() == 24);
    for (double x : items(w)) CHECK(x == 1.0);
    CHECK(items(values_of(op_at(g, 2))) == std::vector<double>{1, 2, 3, 4, 5, 6, 7, 8.5});
    const Op& conv = op_at(g, 5);
    REQUIRE(conv.kind == OpKind::CONV2D);
    CHECK(conv.get<AccType>(AttrName::acc_type) == AccType::FP32);
    CHECK(conv.get<std::vector<std::int64_t>>(AttrName::stride) == std::vector<std::int64_t>{1, 1});
    // nan_mode elided: MLIR's default; max_val as a bit pattern: +inf.
    const Op& clamp = op_at(g, 6);
    CHECK(clamp.get<NanMode>(AttrName::nan_mode) == NanMode::PROPAGATE);
    CHECK(std::isinf(clamp.get<double>(AttrName::max_val)));
    CHECK(op_at(g, 7).get<NanMode>(AttrName::nan_mode) == NanMode::IGNORE);  // a bare keyword
    CHECK(op_at(g, 9).get<std::vector<std::int64_t>>(AttrName::values) == std::vector<std::int64_t>{1, 8, 16});
    CHECK(op_at(g, 11).get<std::string>(AttrName::name) == "state");
    // cond_if: the regions' arguments come from `(%arg2 = %10)`; while_loop's condition has no
    // block header, so its argument is the loop's.
    const Op& cond = op_at(g, 12);
    REQUIRE(cond.kind == OpKind::COND_IF);
    CHECK(cond.inputs.size() == 2);
    const Block& then_block = g.blocks.at(cond.get<BlockRef>(AttrName::then_graph).block);
    CHECK(then_block.inputs.size() == 1);
    CHECK(then_block.ops.at(1).kind == OpKind::NEGATE);
    const Op& loop = op_at(g, 15);
    REQUIRE(loop.kind == OpKind::WHILE_LOOP);
    const Block& cond_block = g.blocks.at(loop.get<BlockRef>(AttrName::cond_graph).block);
    REQUIRE(cond_block.inputs.size() == 1);
    CHECK(cond_block.ops.at(1).inputs.at(0) == cond_block.inputs[0]);
    CHECK(g.main().outputs.size() == 3);
    // Each operator points at its line in the file.
    const auto lc = r->sources.begin(g.origins.at(conv.origin).provenance.range);
    CHECK(lc.line == 8);
    CHECK(lc.col == 5);
}

TEST_CASE("mlir-read: the generic form, dense_resource blobs, packed i1 data, locations, the profile guessed") {
    auto r = read_file("generic_forms.mlir");
    INFO(r->errors);
    REQUIRE(r->module);
    const Graph& g = r->module->graph;
    CHECK(g.name == "generic");
    CHECK(!r->module->profile_from_target);
    CHECK(g.profile == Profile::pro_int);  // RESCALE
    const Op& rescale = op_at(g, 4);
    REQUIRE(rescale.kind == OpKind::RESCALE);
    CHECK(rescale.get<RoundingMode>(AttrName::rounding_mode) == RoundingMode::SINGLE_ROUND);
    CHECK(rescale.get<bool>(AttrName::scale32));
    CHECK(items(values_of(op_at(g, 0))) == std::vector<double>{1073741824});
    CHECK(items(values_of(op_at(g, 2))) == std::vector<double>{-3});
    CHECK(items(values_of(op_at(g, 5))) == std::vector<double>{-1, 127, 2, -128});  // the blob after its alignment
    CHECK(items(values_of(op_at(g, 6))) == std::vector<double>{1, 0, 1, 0});        // 0x05: bits from the lowest
    CHECK(items(values_of(op_at(g, 8))) == std::vector<double>{1, 0, 1, 1, 0, 1});  // 0x2D
    CHECK(op_at(g, 7).kind == OpKind::SELECT);
    CHECK(g.main().outputs.size() == 2);
}

TEST_CASE("mlir-read: every TOSA 1.0 element type, literal and hexadecimal") {
    MlirReadOptions o;
    o.validate = false;  // bf16 and the integer types together: no one profile takes them all
    auto r = read_file("element_types.mlir", o);
    INFO(r->errors);
    REQUIRE(r->module);
    const Graph& g = r->module->graph;
    CHECK(items(values_of(op_at(g, 0))) == std::vector<double>{1, 0, 0, 1});
    CHECK(items(values_of(op_at(g, 1))) == std::vector<double>{-128, 0, 127});
    CHECK(items(values_of(op_at(g, 2))) == std::vector<double>{1, -1});
    CHECK(items(values_of(op_at(g, 3))) == std::vector<double>{-2147483648.0, 2147483647.0});
    CHECK(items(values_of(op_at(g, 4))) == std::vector<double>{1, -2, 140737488355327.0});
    const auto f16 = items(values_of(op_at(g, 5)));
    CHECK(f16[0] == 1.5);
    CHECK(std::isinf(f16[1]));
    CHECK(f16[2] == -std::ldexp(1.0, -14));
    CHECK(items(values_of(op_at(g, 6))) == std::vector<double>{1.5, -2.25});
    const ConstData& f32 = values_of(op_at(g, 7));
    CHECK(std::isnan(number_item(f32, 0)));
    CHECK(std::signbit(number_item(f32, 1)));
    CHECK(number_item(f32, 2) == static_cast<double>(9.999940e-41f));  // a subnormal, rounded once
    CHECK(number_item(f32, 3) == static_cast<double>(0.1f));
    CHECK(items(values_of(op_at(g, 8))) == std::vector<double>{7, 7});
}

TEST_CASE("mlir-read: values a region captures become operands and block arguments (TOSA's graphs are isolated)") {
    auto r = read_file("captures.mlir");
    INFO(r->errors);
    REQUIRE(r->module);
    const Graph& g = r->module->graph;
    const Op& cond = op_at(g, 3);
    REQUIRE(cond.kind == OpKind::COND_IF);
    REQUIRE(cond.inputs.size() == 3);  // the condition, then %arg1 and %0 as first captured
    CHECK(cond.inputs[1] == g.main().inputs[1]);
    CHECK(cond.inputs[2] == op_at(g, 0).outputs[0]);
    for (AttrName branch : {AttrName::then_graph, AttrName::else_graph})
        CHECK(g.blocks.at(cond.get<BlockRef>(branch).block).inputs.size() == 2);
    const Op& loop = op_at(g, 5);
    REQUIRE(loop.kind == OpKind::WHILE_LOOP);
    CHECK(loop.inputs.size() == 3);   // %4, then %2 (the condition's capture) and %1 (the body's)
    CHECK(loop.outputs.size() == 3);  // the captured values are carried through, unnamed
    const Block& body = g.blocks.at(loop.get<BlockRef>(AttrName::body_graph).block);
    CHECK(body.outputs.size() == 3);
    CHECK(body.outputs[1] == body.inputs[1]);
    for (const bool take : {true, false}) {
        auto c = ConstData::allocate({DType::bool_, {}});
        c->mutable_items<std::uint8_t>()[0] = take;
        auto x = ConstData::allocate({DType::fp32, {2}});
        x->mutable_items<float>()[0] = 10;
        x->mutable_items<float>()[1] = 20;
        nnef::Diagnostics d;
        const auto out = interpret(g, {c, x}, {}, d);
        REQUIRE(out);
        CHECK(items(*(*out)[0]) == (take ? std::vector<double>{11, 22} : std::vector<double>{-9, -18}));
        CHECK(items(*(*out)[1]) == std::vector<double>{5});
    }
}

TEST_CASE("mlir-read: what the writer makes reads back to the same text") {
    for (const std::string name : {"pretty_forms.mlir", "generic_forms.mlir", "captures.mlir"}) {
        CAPTURE(name);
        auto r = read_file(name);
        INFO(r->errors);
        REQUIRE(r->module);
        MlirOptions mo;
        mo.level = r->module->level;
        const std::string once = to_mlir(r->module->graph, mo);
        auto again = read(once);
        INFO(again->errors);
        REQUIRE(again->module);
        CHECK(to_mlir(again->module->graph, mo) == once);
        MlirOptions blobs = mo;
        blobs.resource_blobs = true;
        blobs.resource_above = 1;
        const std::string with_blobs = to_mlir(r->module->graph, blobs);
        auto b = read(with_blobs);
        INFO(b->errors);
        REQUIRE(b->module);
        CHECK(to_mlir(b->module->graph, blobs) == with_blobs);
        CHECK(to_mlir(b->module->graph, mo) == once);
    }
}

// Each case: the text, the line and column of the error, and a part of its message.
struct Bad {
    const char* what;
    std::string text;
    std::uint32_t line, col;
    const char* message;
};

TEST_CASE("mlir-read: malformed, foreign and hostile input: one clear error at its place") {
    const std::string head = "func.func @f(%a: tensor<2xf32>) -> tensor<2xf32> {\n";
    const std::string ret = "  return %a : tensor<2xf32>\n}\n";
    const std::string deep(5000, '[');
    const std::vector<Bad> cases = {
        {"empty", "", 1, 1, "no func.func"},
        {"truncated", head + "  %0 = tosa.add %a, %a : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>\n", 3, 1, "the function does not end"},
        {"truncated in a type", "func.func @f(%a: tensor<2x", 1, 27, "expected an element type"},
        {"unknown tosa operator", head + "  %0 = tosa.conv9d %a : (tensor<2xf32>) -> tensor<2xf32>\n" + ret, 2, 8, "unknown operation 'tosa.conv9d'"},
        {"another dialect", head + "  %0 = arith.addf %a, %a : tensor<2xf32>\n" + ret, 2, 8, "is not of the tosa dialect"},
        {"f64", "func.func @f(%a: tensor<2xf64>) -> tensor<2xf32> {\n" + ret, 1, 27, "element type 'f64' is not one of TOSA 1.0's"},
        {"dynamic shape", "func.func @f(%a: tensor<?x2xf32>) -> tensor<2xf32> {\n" + ret, 1, 25, "dynamic"},
        {"wrong operand type", head + "  %0 = tosa.exp %a : (tensor<3xf32>) -> tensor<3xf32>\n" + ret, 2, 17, "the signature says tensor<3xf32>"},
        {"undefined value", head + "  %0 = tosa.exp %b : (tensor<2xf32>) -> tensor<2xf32>\n" + ret, 2, 17, "%b is not defined here"},
        {"defined twice", head + "  %a = tosa.exp %a : (tensor<2xf32>) -> tensor<2xf32>\n" + ret, 2, 3, "defined twice"},
        {"missing attribute", head + "  %0 = tosa.clamp %a {min_val = 0.0 : f32} : (tensor<2xf32>) -> tensor<2xf32>\n" + ret, 2, 3,
         "lacks attribute 'max_val'"},
        {"unknown attribute", head + "  %0 = tosa.exp %a {bogus = 1 : i32} : (tensor<2xf32>) -> tensor<2xf32>\n" + ret, 2, 29,
         "has no attribute 'bogus'"},
        {"operand count", head + "  %0 = tosa.add %a : (tensor<2xf32>) -> tensor<2xf32>\n" + ret, 2, 3, "takes 2 operands, not 1"},
        {"hex length", head + "  %0 = \"tosa.const\"() <{values = dense<\"0x0000\"> : tensor<2xf32>}> : () -> tensor<2xf32>\n" + ret, 2, 41,
         "hexadecimal data of 2 bytes"},
        {"list length", head + "  %0 = \"tosa.const\"() <{values = dense<[1.0, 2.0, 3.0]> : tensor<2xf32>}> : () -> tensor<2xf32>\n" + ret, 2,
         49, "more items than the dimension's 2"},
        {"item range", head + "  %0 = \"tosa.const\"() <{values = dense<[1, 300]> : tensor<2xi8>}> : () -> tensor<2xi8>\n" + ret, 2, 44,
         "300 does not fit i8"},
        {"constant type", head + "  %0 = \"tosa.const\"() <{values = dense<1.0> : tensor<3xf32>}> : () -> tensor<2xf32>\n" + ret, 2, 34,
         "holds values of type tensor<3xf32>"},
        {"elided data", head + "  %0 = \"tosa.const\"() <{values = dense_resource<__elided__> : tensor<2xf32>}> : () -> tensor<2xf32>\n" + ret,
         2, 34, "written without its constants' data"},
        {"missing blob", head + "  %0 = \"tosa.const\"() <{values = dense_resource<w> : tensor<2xf32>}> : () -> tensor<2xf32>\n" + ret, 2, 34,
         "dense_resource<w> has no blob"},
        {"blob size", head + "  %0 = \"tosa.const\"() <{values = dense_resource<w> : tensor<2xf32>}> : () -> tensor<2xf32>\n" + ret +
                          "{-#\n  dialect_resources: {\n    builtin: {\n      w: \"0x040000000000803F\"\n    }\n  }\n#-}\n",
         8, 11, "resource blob of 4 bytes"},
        {"huge shape", "func.func @f(%a: tensor<99999999999x99999999999xf32>) -> tensor<2xf32> {\n" + ret, 1, 18, "max_volume"},
        {"huge rank", "func.func @f(%a: tensor<" + [] {
             std::string s;
             for (int i = 0; i < 100; ++i) s += "1x";
             return s;
         }() + "f32>) -> tensor<2xf32> {\n" + ret,
         1, 18, "max_rank"},
        {"huge splat", head + "  %0 = \"tosa.const\"() <{values = dense<1.0> : tensor<100000x100000xf32>}> : () -> tensor<100000x100000xf32>\n" + ret,
         2, 40, "max_splat_bytes"},
        {"deep nesting", head + "  %0 = tosa.exp %a {x.deep = " + deep + "]} : (tensor<2xf32>) -> tensor<2xf32>\n" + ret, 2, 540,
         "max_nesting"},
        {"string does not end", "func.func @\"f(%a: tensor<2xf32>)", 1, 12, "the string does not end"},
        {"result count", head + "  %0, %1 = tosa.exp %a : (tensor<2xf32>) -> tensor<2xf32>\n" + ret, 2, 3, "1 results, 2 are named"},
        {"return type", head + "  return %a : tensor<3xf32>\n}\n", 2, 3, "its type is written as tensor<3xf32>"},
        {"two functions", head + ret + head + ret, 4, 1, "a second function"},
        {"validator", head + "  %0 = tosa.transpose %a {perms = array<i32: 1>} : (tensor<2xf32>) -> tensor<2xf32>\n" + ret, 2, 3, "TRANSPOSE"},
    };
    for (const Bad& b : cases) {
        const std::string what = b.what;
        CAPTURE(what);
        auto r = read(b.text);
        CHECK(!r->module);
        REQUIRE(r->diags.has_errors());
        const nnef::Diagnostic& d = r->diags.list().front();
        INFO(r->errors);
        CHECK(d.message.find(b.message) != std::string::npos);
        REQUIRE(d.range.valid());
        const nnef::LineCol lc = r->sources.begin(d.range);
        CHECK(lc.line == b.line);
        CHECK(lc.col == b.col);
        CHECK(r->errors.rfind("test.mlir:" + std::to_string(b.line) + ":" + std::to_string(b.col) + ": error", 0) == 0);
    }
}

TEST_CASE("mlir-read: every prefix of a valid file is an error, never a crash") {
    const std::string text = nnef_test::read_text(nnef_test::source_dir() / "tests" / "mlir-in" / "pretty_forms.mlir");
    for (std::size_t n = 0; n + 3 < text.size(); n += 7) {  // up to before the module's last brace
        auto r = read(text.substr(0, n));
        CHECK(!r->module);
        CHECK(r->diags.has_errors());
    }
}

TEST_CASE("mlir-read: fuzz_mlir's properties hold on its seed files and on every one-byte change of one") {
    const auto dir = nnef_test::source_dir() / "tests" / "mlir-in";
    CHECK(nnef_test::replay_fuzz_inputs(dir, {{"", nnef_fuzz::check_mlir_text}}) >= 4);
    const std::string text = nnef_test::read_text(dir / "generic_forms.mlir");
    std::size_t accepted = 0;
    for (std::size_t i = 0; i < text.size(); i += 3) {
        for (const char ch : {'\0', '}', '"', '9', '%', 'x', '<'}) {
            std::string changed = text;
            changed[i] = ch;
            CAPTURE(i);
            CAPTURE(ch);
            CHECK(nnef_fuzz::check_mlir_text(reinterpret_cast<const std::uint8_t*>(changed.data()), changed.size()) == "");
            nnef_fuzz::MlirRead r;
            nnef_fuzz::read_checked(r, changed);
            accepted += r.module.has_value();
        }
    }
    CHECK(accepted > 0);  // some changes keep a valid file (a digit in a number, ...)
}

}  // namespace mlir_read_test
