// The fuse-post-ops pass (lowering/vpu/passes/fuse_post_ops.cpp): assign-executors leaves bias,
// scale, clamp and minimum / maximum on SHAVE with their exact constants; fuse-post-ops folds them
// into the NCE layer producing their operand, from those float32 constants (not the fp16 tensors),
// and the verifier refuses a module that claims the pass's promise with a fusible layer left.
// The model: tests/data/vpu_post_ops (its comment says what folds). A scale or shift with no NCE
// producer to take it becomes an NCE 1x1 maxpool with the constant in its table
// (passes/scale_shift_nce.cpp): tests/data/vpu_bn_chain, DenseNet's batch norm after a concat.
#include <doctest/doctest.h>

#include <array>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "common/skip.hpp"
#include "lowering/vpu/compiler.hpp"
#include "lowering/vpu/ir_text.hpp"
#include "unit/mlir/lowered_model.hpp"
#include "unit/vpu/compile_support.hpp"

namespace fuse_post_ops_test {

namespace fs = std::filesystem;
namespace vpu = nnef::vpu;
namespace ir = nnef::vpu::ir;
using nnef::Diagnostics;

std::string text(const Diagnostics& d) {
    std::string s;
    for (const auto& x : d) s += x.code + ": " + x.message + "\n";
    return s;
}

std::uint32_t bits(float f) {
    std::uint32_t u;
    std::memcpy(&u, &f, 4);
    return u;
}

// The module of `model` after assign-executors; `lowered` keeps its TOSA graph.
ir::Module assigned(std::unique_ptr<nnef_test::LoweredModel>& lowered, const fs::path& model,
                    nnef::tosa::Profile profile = nnef::tosa::Profile::pro_fp, bool bias_on_accumulator_grid = false) {
    lowered = nnef_test::lower_model(model, 1, profile, bias_on_accumulator_grid);
    REQUIRE(lowered->graph);
    ir::Module m;
    m.graph = &*lowered->graph;
    m.name = lowered->graph->name;
    Diagnostics d{0};
    REQUIRE_MESSAGE(vpu::run_pass(m, "assign-executors", d), text(d));
    return m;
}

const ir::Layer* layer(const ir::Module& m, const std::string& source, ir::Exec exec) {
    for (const ir::Layer& l : m.layers)
        if (l.source == source && l.exec == exec) return &l;
    return nullptr;
}

// The verifier's errors for `m` claiming fuse-post-ops' promise before the pass ran ("" if it accepts).
std::string claimed_fused(const ir::Module& m) {
    ir::Module bad = m;
    bad.promise(ir::Promise::post_ops_fused);
    Diagnostics dv{0};
    return ir::verify(bad, "fuse-post-ops", dv) ? std::string() : text(dv);
}

TEST_CASE("fuse-post-ops: scale, bias, clamp and minimum fold into the conv from their float32 constants, and the verifier checks the promise") {
    std::unique_ptr<nnef_test::LoweredModel> lowered;
    ir::Module m = assigned(lowered, fs::path(NNEF_SOURCE_DIR) / "tests" / "data" / "vpu_post_ops");
    Diagnostics d{0};
    // before: conv1, then SHAVE mul (per-channel scale), add, minimum, maximum, minimum
    const ir::Layer* conv = layer(m, "conv1", ir::Exec::nce);
    const ir::Layer* scale = layer(m, "scaled", ir::Exec::shave);
    REQUIRE(conv);
    REQUIRE(scale);
    REQUIRE(scale->shave.constant);
    CHECK(scale->shave.constant->input == 1);
    const std::vector<float> w = conv->weights_f32, s = scale->shave.constant->items;
    REQUIRE(s.size() == 16);
    REQUIRE(w.size() == 16 * 3 * 3 * 8);
    CHECK(layer(m, "output", ir::Exec::shave));  // the pool's relu
    const std::size_t layers = m.layers.size(), tensors = m.tensors.size();
    CHECK(layers == 11);

    // claiming the promise with the SHAVE layers still there is refused, naming the layer
    {
        ir::Module bad = m;
        bad.promise(ir::Promise::post_ops_fused);
        Diagnostics dv{0};
        CHECK_FALSE(ir::verify(bad, "fuse-post-ops", dv));
        CHECK(text(dv).find("layer 1 (mul, 'scaled') is left on SHAVE though NCE layer 0 (conv) producing its operand can compute it") !=
              std::string::npos);
        // and so is the IR text of such a module given to the next pass
        Diagnostics dr{0};
        auto read = ir::read_text(ir::write_text(bad), "bad.txt", dr);
        REQUIRE(read);
        Diagnostics dn{0};
        CHECK_FALSE(vpu::run_pass(read->module, "layout-and-types", dn));
        CHECK(text(dn).find("invalid-vpu-ir") != std::string::npos);
    }

    REQUIRE_MESSAGE(vpu::run_pass(m, "fuse-post-ops", d), text(d));
    CHECK(m.has(ir::Promise::post_ops_fused));
    conv = layer(m, "conv1", ir::Exec::nce);
    REQUIRE(conv);
    // the weights scaled per output channel in float32, exactly; the bias 0 * s + 0.5
    const std::size_t per = w.size() / 16;
    bool exact = true;
    for (std::size_t c = 0; c < 16; ++c)
        for (std::size_t i = 0; i < per; ++i) exact = exact && bits(conv->weights_f32[c * per + i]) == bits(w[c * per + i] * s[c]);
    CHECK(exact);
    REQUIRE(conv->bias.size() == 16);
    for (float b : conv->bias) CHECK(bits(b) == bits(0.5f));
    // relu6 (minimum 6, maximum 0) and minimum 4: one clamp [0, 4]
    CHECK(conv->nce.post_op == vpu::PostOp::clamp);
    CHECK(conv->nce.clamp_min == 0.0);
    CHECK(conv->nce.clamp_max == 4.0);
    const ir::Layer* pool = layer(m, "pooled", ir::Exec::nce);
    REQUIRE(pool);
    CHECK(pool->nce.post_op == vpu::PostOp::relu);
    // the pool writes the graph output itself
    REQUIRE(m.output_tensors.size() == 2);
    CHECK(pool->output.tensor == m.output_tensors[0]);
    CHECK(m.tensors[std::size_t(pool->output.tensor)].name == "output");
    CHECK(m.tensors[std::size_t(pool->output.tensor)].role == vpu::Role::output);
    CHECK(m.outputs[0].buffer == std::to_string(pool->output.tensor));
    // conv2's add cannot fold into conv2 (it has two readers): an NCE 1x1 maxpool of its own, its
    // constant the table's bias (scale 1), no SHAVE layer left
    CHECK_FALSE(layer(m, "shifted", ir::Exec::shave));
    const ir::Layer* shifted = layer(m, "shifted", ir::Exec::nce);
    REQUIRE(shifted);
    CHECK(shifted->nce_op == ir::NceOp::maxpool);
    CHECK(shifted->inputs.size() == 1);
    CHECK_FALSE(shifted->shave.constant);
    CHECK(shifted->bias == std::vector<float>(16, 1.0f));
    CHECK(shifted->scale == std::vector<float>(16, 1.0f));
    CHECK(shifted->nce.post_op == vpu::PostOp::none);
    CHECK(m.layers.size() == layers - 6);
    CHECK(m.tensors.size() == tensors - 12);  // six results and six constants
    Diagnostics dv{0};
    CHECK_MESSAGE(ir::verify(m, "fuse-post-ops", dv), text(dv));
    // the rest of the pipeline compiles the fused module
    for (const char* pass : {"layout-and-types", "tile", "build-tables", "schedule", "barriers", "emit"})
        REQUIRE_MESSAGE(vpu::run_pass(m, pass, d), pass << ": " << text(d));
}

TEST_CASE("fuse-post-ops: an exact constant that is no SHAVE input, or of another size than its input, or a table scale off an fp16 NCE layer's channels, breaks the layers promise") {
    std::unique_ptr<nnef_test::LoweredModel> lowered;
    ir::Module m = assigned(lowered, fs::path(NNEF_SOURCE_DIR) / "tests" / "data" / "vpu_post_ops");
    ir::Layer* scale = nullptr;
    for (ir::Layer& l : m.layers)
        if (l.source == "scaled") scale = &l;
    REQUIRE(scale);
    REQUIRE(scale->shave.constant);
    scale->shave.constant->items.pop_back();
    Diagnostics d1{0};
    CHECK_FALSE(ir::verify(m, "assign-executors", d1));
    CHECK(text(d1).find("the exact constant has 15 items, its input 16") != std::string::npos);
    scale->shave.constant->input = 2;
    Diagnostics d2{0};
    CHECK_FALSE(ir::verify(m, "assign-executors", d2));
    CHECK(text(d2).find("an exact constant of no SHAVE input") != std::string::npos);
    // a table scale (scale_shift_nce.cpp) belongs to an fp16 NCE layer, one item per channel
    scale->shave.constant.reset();
    scale->scale.assign(16, 1.0f);
    Diagnostics d3{0};
    CHECK_FALSE(ir::verify(m, "assign-executors", d3));
    CHECK(text(d3).find("(mul, 'scaled'): a table scale of 16 items on no fp16 NCE layer of as many channels") != std::string::npos);
    ir::Layer* conv = nullptr;
    for (ir::Layer& l : m.layers)
        if (l.source == "conv1" && l.exec == ir::Exec::nce) conv = &l;
    REQUIRE(conv);
    scale->scale.clear();
    conv->scale.assign(15, 1.0f);
    Diagnostics d4{0};
    CHECK_FALSE(ir::verify(m, "assign-executors", d4));
    CHECK(text(d4).find("(conv, 'conv1'): a table scale of 15 items") != std::string::npos);
    conv->scale.assign(16, 1.0f);
    Diagnostics d5{0};
    CHECK_MESSAGE(ir::verify(m, "assign-executors", d5), text(d5));
}

TEST_CASE("fuse-post-ops: on the int8 path the RESCALE after a conv's int32 accumulator is packed into its table") {
    std::unique_ptr<nnef_test::LoweredModel> lowered;
    // its fc's float bias lies between the accumulator's steps: lowered at the accumulator's grid
    // (LowerOptions::bias_on_accumulator_grid), the RESCALE reads the conv's result itself (the
    // default adds such a bias later, at a finer grid, on SHAVE: docs/tosa-lowering.md)
    ir::Module m = assigned(lowered, fs::path(NNEF_SOURCE_DIR) / "samples" / "quantized", nnef::tosa::Profile::pro_int, true);
    Diagnostics d{0};
    // assign-executors: fc an NCE conv writing its int32 accumulator (the PPE's scale bypassed:
    // multiplier 1, shift 0), then the SHAVE rescale to int8
    REQUIRE(m.layers.size() >= 2);
    const ir::Layer acc = m.layers[0];
    const ir::Layer& rescale = m.layers[1];
    REQUIRE(acc.exec == ir::Exec::nce);
    CHECK(m.tensors[std::size_t(acc.output.tensor)].dtype == vpu::DataType::int32);
    CHECK(acc.q_mult == std::vector<std::int64_t>(acc.q_mult.size(), 1));
    REQUIRE(rescale.exec == ir::Exec::shave);
    REQUIRE(rescale.shave.rescale);
    CHECK(rescale.inputs[0].tensor == acc.output.tensor);
    const ir::ShaveKernel::Rescale r = *rescale.shave.rescale;
    const int result = rescale.output.tensor;
    const std::string result_name = m.tensors[std::size_t(result)].name;
    CHECK(claimed_fused(m).find("layer 1 (rescale, 'fc') is left on SHAVE though NCE layer 0 (conv)") != std::string::npos);
    REQUIRE_MESSAGE(vpu::run_pass(m, "fuse-post-ops", d), text(d));
    const ir::Layer& fc = m.layers[0];
    REQUIRE(fc.exec == ir::Exec::nce);
    for (std::size_t c = 0; c < fc.q_mult.size(); ++c) {
        CHECK(fc.q_mult[c] == (r.multiplier.size() == 1 ? r.multiplier[0] : r.multiplier[c]));
        CHECK(fc.q_shift[c] == (r.shift.size() == 1 ? r.shift[0] : r.shift[c]));
    }
    CHECK(fc.q_bias == acc.q_bias);
    CHECK(fc.nce.output_zp == r.output_zp);
    CHECK(fc.nce.double_round == r.double_round);
    // the conv writes the int8 result itself (the accumulator's tensor is gone)
    CHECK(m.tensors[std::size_t(fc.output.tensor)].dtype == vpu::DataType::int8);
    CHECK(m.tensors[std::size_t(fc.output.tensor)].name == result_name);
    CHECK(fc.output.tensor == result - 1);
    CHECK(m.layers[1].exec == ir::Exec::nce);
    CHECK(m.layers[1].inputs[0].tensor == fc.output.tensor);
    Diagnostics dv{0};
    CHECK_MESSAGE(ir::verify(m, "fuse-post-ops", dv), text(dv));
}

// The distance from v to the nearest other fp16 value (fp16's step at v's magnitude).
double fp16_step(double v) {
    const double a = std::fabs(v);
    if (a < std::ldexp(1.0, -14)) return std::ldexp(1.0, -24);  // subnormal
    return std::ldexp(1.0, std::ilogb(a) - 10);
}

TEST_CASE("fuse-post-ops: a batch norm and relu after a concat become one NCE 1x1 maxpool, the constants exact in its table") {
    std::unique_ptr<nnef_test::LoweredModel> lowered;
    ir::Module m = assigned(lowered, fs::path(NNEF_SOURCE_DIR) / "tests" / "data" / "vpu_bn_chain");
    Diagnostics d{0};
    // assign-executors: the concat's copies, then SHAVE mul (the scale), add (the shift), clamp (relu)
    const ir::Layer *mul = nullptr, *add = nullptr;
    for (const ir::Layer& l : m.layers)
        if (l.exec == ir::Exec::shave && l.source == "normed") (l.shave.name == "mul" ? mul : add) = &l;
    REQUIRE(mul);
    REQUIRE(add);
    REQUIRE(mul->shave.constant);
    REQUIRE(add->shave.constant);
    const std::vector<float> scale = mul->shave.constant->items, shift = add->shave.constant->items;
    REQUIRE(scale.size() == 20);
    REQUIRE(shift.size() == 20);
    const int features = mul->inputs[std::size_t(1 - mul->shave.constant->input)].tensor;
    const ir::TensorUses uses = ir::tensor_uses(m);
    REQUIRE(uses.writer[std::size_t(features)] >= 0);
    CHECK(m.layers[std::size_t(uses.writer[std::size_t(features)])].exec == ir::Exec::copy);  // no NCE producer
    CHECK(layer(m, "z", ir::Exec::shave));
    CHECK(claimed_fused(m).find("(mul, 'normed') is left on SHAVE though it is a scale or shift the NCE computes") != std::string::npos);

    REQUIRE_MESSAGE(vpu::run_pass(m, "fuse-post-ops", d), text(d));
    for (const ir::Layer& l : m.layers) CHECK_MESSAGE(l.exec != ir::Exec::shave, l.source);
    const ir::Layer* bn = layer(m, "normed", ir::Exec::nce);
    REQUIRE(bn);
    CHECK(bn->nce_op == ir::NceOp::maxpool);
    CHECK(bn->nce.kernel == std::array<std::int64_t, 2>{1, 1});
    CHECK(bn->inputs.size() == 1);
    CHECK(bn->inputs[0].tensor == features);
    CHECK(bn->weights_f32.empty());
    CHECK(bn->nce.post_op == vpu::PostOp::relu);  // z's relu folded
    REQUIRE(bn->scale.size() == 20);
    REQUIRE(bn->bias.size() == 20);
    bool exact = true;
    for (std::size_t c = 0; c < 20; ++c) exact = exact && bits(bn->scale[c]) == bits(scale[c]) && bits(bn->bias[c]) == bits(shift[c]);
    CHECK(exact);
    Diagnostics dv{0};
    CHECK_MESSAGE(ir::verify(m, "fuse-post-ops", dv), text(dv));

    for (const char* pass : {"layout-and-types", "tile", "build-tables"}) REQUIRE_MESSAGE(vpu::run_pass(m, pass, d), pass << ": " << text(d));
    // the table: word 2 the scale, word 3 the bias, as fp32 bits
    bn = layer(m, "normed", ir::Exec::nce);
    REQUIRE(bn);
    CHECK(bn->weights < 0);
    const ir::Tensor& table = m.tensors[std::size_t(bn->table)];
    REQUIRE(table.data);
    REQUIRE(table.data->size() >= std::size_t(bn->table_offset) + 20 * 16);
    bool words = true;
    for (std::size_t c = 0; c < 20; ++c) {
        std::uint32_t w2, w3;
        // the layer's rows in the packed table tensor start at its table_offset (bytes)
        std::memcpy(&w2, table.data->data() + bn->table_offset + c * 16 + 8, 4);
        std::memcpy(&w3, table.data->data() + bn->table_offset + c * 16 + 12, 4);
        words = words && w2 == bits(scale[c]) && w3 == bits(shift[c]);
    }
    CHECK(words);
    for (const char* pass : {"schedule", "barriers", "emit"}) REQUIRE_MESSAGE(vpu::run_pass(m, pass, d), pass << ": " << text(d));

    // Values: an input exact in fp16 (k / 64), so the max pool's channels of the concat (0..7) are
    // exact and each of their batch-norm values is the float32 x * scale + shift rounded to fp16
    // once: p (a 2x2 max pool of z) within half an fp16 step of the interpreter's, element by element.
    const nnef::tosa::Graph& g = *lowered->graph;
    auto x = nnef::tosa::ConstData::allocate({nnef::tosa::DType::fp32, {1, 8, 8, 8}});
    for (std::int64_t i = 0; i < x->type.volume(); ++i) x->mutable_items<float>()[i] = float((i * 37) % 257 - 128) / 64.0f;
    nnef::tosa::InterpretOptions io;
    const auto want = nnef::tosa::interpret(g, {x}, io, d);
    REQUIRE(want);
    vpu::SimulateOptions so;
    so.values = true;
    so.inputs["x"] = x;
    const auto r = vpu::simulate(m.list, m.target, so, d);
    INFO(text(d));
    REQUIRE(r.valid);
    REQUIRE(g.main().outputs.size() == 2);
    REQUIRE(g.value(g.main().outputs[1]).name == "p");
    REQUIRE(r.outputs.count("p"));
    const std::vector<float> p = vpu_compile_support::floats(*r.outputs.at("p")), p_ref = vpu_compile_support::floats(*(*want)[1]);
    REQUIRE(p.size() == 20 * 16);
    REQUIRE(p_ref.size() == p.size());
    int within = 0, nonzero = 0;
    for (std::size_t i = 0; i < 8 * 16; ++i) {  // channels 0..7 of NCHW [1, 20, 4, 4]
        const double err = std::fabs(double(p[i]) - double(p_ref[i]));
        within += err <= 0.5 * fp16_step(p_ref[i]) * (1 + 1e-6);
        nonzero += p_ref[i] != 0.0f;
    }
    CHECK(within == 8 * 16);
    CHECK(nonzero > 32);  // the relu leaves enough values to tell
    // every output within fp16 of the interpreter's (y: the 1x1 conv of z; the conv's channels too)
    for (std::size_t k = 0; k < 2; ++k) {
        const std::string name = g.value(g.main().outputs[k]).name;
        REQUIRE(r.outputs.count(name));
        const nnef_test::Comparison c =
            nnef_test::compare(vpu_compile_support::floats(*r.outputs.at(name)), vpu_compile_support::floats(*(*want)[k]));
        INFO(name << ": " << c.summary());
        CHECK(c.rel_l2_within(2e-3));
    }
}

}  // namespace fuse_post_ops_test
