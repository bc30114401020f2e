// The VPU compiler's int8 path (TOSA PRO-INT graphs): the task list passes every check of the
// simulator, and the simulated output codes are exactly the TOSA interpreter's on the same lowered
// graph and input (two independent computations: the NCE's requantization from the weights table
// and the SHAVE kernels, against the interpreter's CONV2D, RESCALE, ADD, TABLE ...).
#include <doctest/doctest.h>

#include <array>
#include <cmath>
#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "common/compare.hpp"
#include "exec/executor.hpp"
#include "lowering/tosa/interpreter.hpp"
#include "lowering/vpu/compiler.hpp"
#include "lowering/vpu/simulator.hpp"
#include "unit/vpu/dma_count.hpp"
#include "unit/mlir/lowered_model.hpp"
#include "storage/tensor_file.hpp"
#include "test_support.hpp"
#include "unit/tosa/integer_support.hpp"

namespace vpu = nnef::vpu;
using namespace nnef::tosa;

namespace int8_test {

namespace fs = std::filesystem;

// int8 codes over the whole range [-128, 127], from `seed`.
ConstPtr codes(const TensorType& type, unsigned seed) {
    auto c = ConstData::allocate(type);
    std::uint32_t s = seed * 2654435761u + 7;
    for (std::int64_t i = 0; i < c->type.volume(); ++i) {
        s = s * 1664525u + 1013904223u;
        const std::int64_t v = std::int64_t((s >> 8) % 256) - 128;
        if (type.dtype == DType::i8) c->mutable_items<std::int8_t>()[i] = std::int8_t(v);
        else c->mutable_items<std::int32_t>()[i] = std::int32_t(v);
    }
    return c;
}

std::int64_t code(const ConstData& c, std::int64_t i) {
    switch (c.type.dtype) {
        case DType::i8: return c.items<std::int8_t>()[i];
        case DType::i32: return c.items<std::int32_t>()[i];
        default: return 1 << 20;  // not an integer result: never equal to a code
    }
}

std::string text(const nnef::Diagnostics& d) {
    std::ostringstream os;
    for (const auto& x : d) os << x.message << "\n";
    return os.str();
}

struct Compared {
    std::int64_t elements = 0, mismatches = 0;
    std::set<std::int64_t> distinct;  // the codes seen (a test of constant outputs would show little)
    vpu::SimulationResult result;
};

// Simulates `list` on `inputs` and compares every output, code by code, with the interpreter's
// run of `g` on the same inputs.
Compared compare(const Graph& g, const vpu::TaskList& list, const std::vector<ConstPtr>& inputs) {
    Compared c;
    nnef::Diagnostics d{0};
    const auto want = interpret(g, inputs, {}, d);
    INFO(text(d));
    REQUIRE(want);
    vpu::SimulateOptions so;
    so.values = true;
    for (std::size_t i = 0; i < inputs.size(); ++i) so.inputs[g.value(g.main().inputs[i]).name] = inputs[i];
    c.result = vpu::simulate(list, list.target, so, d);
    INFO(text(d));
    REQUIRE(c.result.valid);
    for (std::size_t k = 0; k < g.main().outputs.size(); ++k) {
        const std::string name = g.value(g.main().outputs[k]).name;
        REQUIRE(c.result.outputs.count(name));
        const ConstData& got = *c.result.outputs.at(name);
        const ConstData& ref = *(*want)[k];
        REQUIRE(got.type.volume() == ref.type.volume());
        for (std::int64_t i = 0; i < ref.type.volume(); ++i) {
            ++c.elements;
            c.distinct.insert(code(ref, i));
            if (code(got, i) != code(ref, i)) {
                if (c.mismatches < 5) MESSAGE(name << "[" << i << "]: VPU " << code(got, i) << ", TOSA " << code(ref, i));
                ++c.mismatches;
            }
        }
    }
    return c;
}

// Lowers `model` at PRO-INT with random weights and compiles it on the default target. Random
// biases lie between their accumulators' steps: `grid_bias` rounds them to those steps (one
// CONV2D + RESCALE, the NCE layer with its table) instead of adding them finer (the default).
struct Compiled {
    std::unique_ptr<nnef_test::LoweredModel> lowered;
    std::optional<vpu::TaskList> list;
};

Compiled compile_int8(const fs::path& model, std::uint64_t seed, const vpu::Target& target = vpu::Target{}, bool grid_bias = false) {
    Compiled c;
    c.lowered = nnef_test::lower_model(model, seed, Profile::pro_int, grid_bias);
    INFO(nnef_test::rendered(*c.lowered));
    REQUIRE(c.lowered->graph);
    REQUIRE(c.lowered->graph->profile == Profile::pro_int);
    nnef::Diagnostics d{0};
    vpu::CompileOptions co;
    co.verify_each = true;
    c.list = vpu::compile(*c.lowered->graph, target, co, d);
    INFO(text(d));
    REQUIRE(c.list);
    return c;
}

std::vector<ConstPtr> random_inputs(const Graph& g, unsigned seed) {
    std::vector<ConstPtr> in;
    for (std::size_t i = 0; i < g.main().inputs.size(); ++i) in.push_back(codes(g.type(g.main().inputs[i]), seed + unsigned(i)));
    return in;
}

ValueId scalar(Graph& g, DType t, std::int64_t v) {
    auto c = ConstData::allocate({t, {1}});
    if (t == DType::i8) c->mutable_items<std::int8_t>()[0] = std::int8_t(v);
    else c->mutable_items<std::int32_t>()[0] = std::int32_t(v);
    return g.add_const(0, c);
}

ValueId rescale(Graph& g, ValueId x, DType out, std::int64_t mult, std::int64_t shift, std::int64_t izp, std::int64_t ozp, RoundingMode rm) {
    const TensorType xt = g.type(x);  // a copy: adding the constants grows g.values
    return g.add_op(0, OpKind::RESCALE,
                    {x, scalar(g, DType::i32, mult), scalar(g, DType::i8, shift), scalar(g, xt.dtype, izp), scalar(g, out, ozp)},
                    {{out, xt.shape}},
                    {{AttrName::scale32, true},
                     {AttrName::rounding_mode, rm},
                     {AttrName::per_channel, false},
                     {AttrName::input_unsigned, false},
                     {AttrName::output_unsigned, false}})
        .outputs[0];
}

// The quantized ADD as PRO-INT lowers it: each int8 operand RESCALEd to a common int32 grid, ADD
// (or SUB), RESCALE of the sum to int8 (`rounding` throughout; `other` for the second operand).
Graph eltwise_graph(OpKind kind, RoundingMode rounding, RoundingMode other) {
    Graph g;
    g.name = "qadd";
    g.profile = Profile::pro_int;
    const std::vector<std::int64_t> shape{1, 12, 10, 24};
    const ValueId x1 = g.add_value({DType::i8, shape}, "x1"), x2 = g.add_value({DType::i8, shape}, "x2");
    g.main().inputs = {x1, x2};
    const ValueId a = rescale(g, x1, DType::i32, 1518500250, 12, -3, 0, rounding);
    const ValueId b = rescale(g, x2, DType::i32, 1073741824, 11, 5, 0, other);
    const ValueId s = g.add_op(0, kind, {a, b}, {{DType::i32, shape}}).outputs[0];
    const ValueId y = rescale(g, s, DType::i8, 1431655765, 50, 0, 7, rounding);
    g.values[y].name = "y";
    g.main().outputs = {y};
    return g;
}

// `layers` times: CONV2D i8 -> i32 (3x3, pad 1) requantized to int8 (fused into the NCE conv),
// then a RESCALE i8 -> i8 to another grid (an NCE 1x1 maxpool): PRO-INT's conv and relu with its
// own grid.
Graph conv_requant_graph(int layers) {
    Graph g;
    g.name = "conv_requant";
    g.profile = Profile::pro_int;
    const std::int64_t H = 24, W = 20, IC = 16, C = 32;
    const ValueId x = g.add_value({DType::i8, {1, H, W, IC}}, "x");
    g.main().inputs = {x};
    ValueId y = x;
    for (int k = 0; k < layers; ++k) {
        const std::int64_t ic = k == 0 ? IC : C;
        const ValueId w = g.add_const(0, codes({DType::i8, {C, 3, 3, ic}}, 5 + 2 * unsigned(k)));
        const ValueId b = g.add_const(0, codes({DType::i32, {C}}, 6 + 2 * unsigned(k)));
        const ValueId acc = g.add_op(0, OpKind::CONV2D, {y, w, b, scalar(g, DType::i8, 0), scalar(g, DType::i8, 0)}, {{DType::i32, {1, H, W, C}}},
                                     {{AttrName::pad, std::vector<std::int64_t>{1, 1, 1, 1}},
                                      {AttrName::stride, std::vector<std::int64_t>{1, 1}},
                                      {AttrName::dilation, std::vector<std::int64_t>{1, 1}},
                                      {AttrName::acc_type, AccType::INT32}})
                                .outputs[0];
        const ValueId q = rescale(g, acc, DType::i8, 1518500250, k == 0 ? 41 : 42, 0, -2, RoundingMode::DOUBLE_ROUND);
        y = rescale(g, q, DType::i8, 1431655765, 31, -3, 7, RoundingMode::DOUBLE_ROUND);
    }
    g.values[y].name = "y";
    g.main().outputs = {y};
    return g;
}

// `g` compiled on the default target, every pass verified.
std::optional<vpu::TaskList> compile_checked(const Graph& g) {
    nnef::Diagnostics d{0};
    vpu::CompileOptions co;
    co.verify_each = true;
    auto list = vpu::compile(g, vpu::Target{}, co, d);
    INFO(text(d));
    REQUIRE(list);
    return list;
}

TEST_SUITE("vpu") {
    TEST_CASE("int8: RESCALE i8->i32 of two activations, ADD/SUB i32, RESCALE to i8 is one NCE eltwise with the interpreter's codes") {
        for (const OpKind kind : {OpKind::ADD, OpKind::SUB})
            for (const RoundingMode rm : {RoundingMode::SINGLE_ROUND, RoundingMode::DOUBLE_ROUND}) {
                const std::string kind_name = to_string(kind), rounding = to_string(rm);
                CAPTURE(kind_name);
                CAPTURE(rounding);
                const Graph g = eltwise_graph(kind, rm, rm);
                nnef::Diagnostics d{0};
                vpu::CompileOptions co;
                co.verify_each = true;
                const auto list = vpu::compile(g, vpu::Target{}, co, d);
                INFO(text(d));
                REQUIRE(list);
                std::map<std::string, int> ops;
                for (const auto& t : list->tasks) ++ops[t.op];
                CHECK(ops["eltwise"] >= 2);  // one per tile, at least one per cluster
                CHECK(ops["rescale"] == 0);
                CHECK(ops[kind == OpKind::ADD ? "add" : "sub"] == 0);
                for (unsigned seed : {1u, 2u}) {
                    const Compared r = compare(g, *list, random_inputs(g, seed));
                    CHECK(r.elements == 12 * 10 * 24);
                    CHECK(r.distinct.size() > 50);
                    CHECK(r.mismatches == 0);
                }
            }
        // a per-channel constant operand (SUB of it, ADD with it first): the table's bias
        for (const bool sub : {true, false}) {
            CAPTURE(sub);
            Graph g;
            g.name = "qbias";
            g.profile = Profile::pro_int;
            const std::vector<std::int64_t> shape{1, 6, 5, 24};
            const ValueId x = g.add_value({DType::i8, shape}, "x");
            g.main().inputs = {x};
            const ValueId a = rescale(g, x, DType::i32, 1518500250, 12, -3, 0, RoundingMode::SINGLE_ROUND);
            auto k = ConstData::allocate({DType::i32, {1, 1, 1, 24}});
            for (std::int64_t i = 0; i < 24; ++i) k->mutable_items<std::int32_t>()[i] = std::int32_t((i * 37 % 24 - 12) * 409930);  // up to ~6 output steps
            const ValueId kc = g.add_const(0, k);
            const ValueId s2 = sub ? g.add_op(0, OpKind::SUB, {a, kc}, {{DType::i32, shape}}).outputs[0]
                                   : g.add_op(0, OpKind::ADD, {kc, a}, {{DType::i32, shape}}).outputs[0];
            const ValueId y = rescale(g, s2, DType::i8, 1431655765, 50, 0, 7, RoundingMode::SINGLE_ROUND);
            g.values[y].name = "y";
            g.main().outputs = {y};
            nnef::Diagnostics d{0};
            const auto list = vpu::compile(g, vpu::Target{}, {}, d);
            INFO(text(d));
            REQUIRE(list);
            std::map<std::string, int> ops;
            for (const auto& t : list->tasks) ++ops[t.op];
            CHECK(ops["eltwise"] >= 1);
            CHECK(ops["rescale"] == 0);
            const Compared r = compare(g, *list, random_inputs(g, 4));
            CHECK(r.distinct.size() > 50);
            CHECK(r.mismatches == 0);
        }
        // operand rescales with another rounding than the result's: SHAVE kernels, the same codes
        const Graph g = eltwise_graph(OpKind::ADD, RoundingMode::SINGLE_ROUND, RoundingMode::DOUBLE_ROUND);
        nnef::Diagnostics d{0};
        const auto list = vpu::compile(g, vpu::Target{}, {}, d);
        REQUIRE(list);
        std::map<std::string, int> ops;
        for (const auto& t : list->tasks) ++ops[t.op];
        CHECK(ops["eltwise"] == 0);
        CHECK(ops["rescale"] >= 3);
        CHECK(compare(g, *list, random_inputs(g, 3)).mismatches == 0);
    }

    TEST_CASE("int8: a conv's result stays in CMX for its requantization (the 1x1 maxpool), with the interpreter's codes") {
        const Graph g = conv_requant_graph(1);
        const auto list = compile_checked(g);
        const vpu_test::DmaCount n = vpu_test::count_dma(*list);
        std::map<std::string, int> nce;
        std::set<std::string> conv_writes;
        for (const auto& t : list->tasks) {
            if (t.kind == vpu::TaskKind::NCE) ++nce[t.op];
            if (t.op == "conv")
                for (const auto& w : t.writes) conv_writes.insert(w.buffer);
        }
        CHECK(nce["conv"] >= 2);
        CHECK(nce["maxpool"] >= 2);
        CHECK(n.spills == 0);
        // every requantization reads, in CMX, the buffer a conv task wrote
        for (const auto& t : list->tasks)
            if (t.op == "maxpool") {
                REQUIRE(!t.reads.empty());
                CHECK(conv_writes.count(t.reads[0].buffer) == 1);
            }
        const Compared r = compare(g, *list, random_inputs(g, 7));
        CHECK(r.result.ddr.spills == 0);  // DDR: the input, weights and tables, the output
        CHECK(r.elements == 24 * 20 * 32);
        CHECK(r.distinct.size() > 50);
        CHECK(r.mismatches == 0);
    }

    TEST_CASE("int8: a requantized result a 3x3 conv reads is held in CMX (halo rows by CMX-to-CMX DMA) with the interpreter's codes") {
        // two conv + requantization pairs: the first requantization's int8 result is read by the
        // second 3x3 conv, on both clusters (rows split), each needing its neighbour's halo rows
        const Graph g = conv_requant_graph(2);
        const auto list = compile_checked(g);
        const vpu_test::DmaCount n = vpu_test::count_dma(*list);
        CHECK(n.spills == 0);
        CHECK(n.cross > 0);
        CHECK(n.cross_types == std::set<vpu::DataType>{vpu::DataType::int8});
        const Compared r = compare(g, *list, random_inputs(g, 8));
        CHECK(r.result.ddr.spills == 0);
        CHECK(r.elements == 24 * 20 * 32);
        CHECK(r.distinct.size() > 50);
        CHECK(r.mismatches == 0);
    }

    TEST_CASE("int8: samples/quantized at PRO-INT gives the TOSA interpreter's output codes exactly") {
        const Compiled c = compile_int8(fs::path(NNEF_SOURCE_DIR) / "samples" / "quantized", 1, vpu::Target{}, true);
        const Graph& g = *c.lowered->graph;
        // the int8 path: int8 input and output; the linear an NCE conv with requantization and int8
        // weights; relu (RESCALE i8 -> i32, ADD of a constant, RESCALE i32 -> i8) an NCE eltwise
        // whose second operand is scaled to 0 and whose table holds the constant as bias; the
        // logarithmic quantization (TABLE) the SHAVE TOSA kernel
        REQUIRE(c.list->inputs.size() == 1);
        CHECK(c.list->inputs[0].dtype == vpu::DataType::int8);
        CHECK(c.list->outputs[0].dtype == vpu::DataType::int8);
        std::map<std::string, int> ops;
        bool int8_weights = false;
        for (const auto& b : c.list->buffers) int8_weights = int8_weights || (b.role == vpu::Role::weights && b.dtype == vpu::DataType::int8);
        for (const auto& t : c.list->tasks) {
            ++ops[t.op];
            if (t.kind == vpu::TaskKind::NCE) CHECK(t.nce.quantized);
            if (t.op == "eltwise") {
                CHECK(t.source == "act");
                CHECK(t.nce.eltwise_inputs[1].multiplier == 0);
            }
        }
        CHECK(int8_weights);
        CHECK(ops["conv"] == 1);
        CHECK(ops["eltwise"] == 1);
        CHECK(ops["rescale"] == 0);
        CHECK(ops["table"] == 1);
        for (unsigned seed : {1u, 2u, 3u, 4u, 5u, 6u, 7u, 8u}) {
            CAPTURE(seed);
            const Compared r = compare(g, *c.list, random_inputs(g, seed));
            CHECK(r.elements == 4);
            CHECK(r.mismatches == 0);
        }
    }

    TEST_CASE("int8: a PRO-INT graph the int8 path cannot compile is a vpu error naming the operator and its NNEF source") {
        // CONV2D i8 -> i32 with a 13x13 kernel (the NCE's largest is 11), requantized to int8 by a
        // RESCALE: as on the fp16 path, a kernel beyond the target is refused, naming the operator.
        Graph g;
        g.name = "big_kernel";
        g.profile = Profile::pro_int;
        nnef::SourceRange range;
        range.file = 3;
        range.begin = 120;
        range.end = 140;
        const std::uint32_t origin = g.add_origin({"conv", "y", {range, {}}});
        const ValueId x = g.add_value({DType::i8, {1, 16, 16, 8}}, "x");
        g.main().inputs = {x};
        auto scalar = [&](DType t, std::int64_t v) {
            auto c = ConstData::allocate({t, {1}});
            if (t == DType::i8) c->mutable_items<std::int8_t>()[0] = std::int8_t(v);
            else c->mutable_items<std::int32_t>()[0] = std::int32_t(v);
            return g.add_const(0, c);
        };
        const ValueId w = g.add_const(0, codes({DType::i8, {16, 13, 13, 8}}, 1));
        const ValueId b = g.add_const(0, codes({DType::i32, {16}}, 2));
        const ValueId acc = g.add_op(0, OpKind::CONV2D, {x, w, b, scalar(DType::i8, 0), scalar(DType::i8, 0)}, {{DType::i32, {1, 4, 4, 16}}},
                                     {{AttrName::pad, std::vector<std::int64_t>{0, 0, 0, 0}},
                                      {AttrName::stride, std::vector<std::int64_t>{1, 1}},
                                      {AttrName::dilation, std::vector<std::int64_t>{1, 1}},
                                      {AttrName::acc_type, AccType::INT32}},
                                     origin)
                                .outputs[0];
        const ValueId y = g.add_op(0, OpKind::RESCALE,
                                   {acc, scalar(DType::i32, 1 << 30), scalar(DType::i8, 40), scalar(DType::i32, 0), scalar(DType::i8, 0)},
                                   {{DType::i8, {1, 4, 4, 16}}},
                                   {{AttrName::scale32, true},
                                    {AttrName::rounding_mode, RoundingMode::SINGLE_ROUND},
                                    {AttrName::per_channel, false},
                                    {AttrName::input_unsigned, false},
                                    {AttrName::output_unsigned, false}},
                                   origin)
                              .outputs[0];
        g.values[y].name = "y";
        g.main().outputs = {y};
        nnef::Diagnostics d{0};
        CHECK_FALSE(vpu::compile(g, vpu::Target{}, {}, d));
        REQUIRE(d.has_errors());
        const auto& e = *d.begin();
        CHECK(e.stage == nnef::Stage::vpu);
        CHECK(e.code == "unsupported-operation");
        CHECK(e.message.find("CONV2D") != std::string::npos);
        CHECK(e.message.find("'conv'") != std::string::npos);
        CHECK(e.message.find("kernel 13x13") != std::string::npos);
        CHECK(e.range.file == 3);  // the NNEF operation's source range (a line once rendered)
        CHECK(e.range.begin == 120);
    }
}

// x i8 [1,24,20,16] -> CONV2D 3x3 to 32 channels, stride 2, padding top and left only -> y1 (i32), and
// x -> DEPTHWISE_CONV2D 3x3, dilation 2, padding 2 -> y2 (i32): no RESCALE to int8 follows, so both
// are SHAVE TOSA kernels, too large for a tile of a 96 KiB CMX.
Graph windowed_graph() {
    Graph g;
    g.name = "windowed";
    g.profile = Profile::pro_int;
    const ValueId x = g.add_value({DType::i8, {1, 24, 20, 16}}, "x");
    g.main().inputs = {x};
    using I = std::vector<std::int64_t>;
    const ValueId w = g.add_const(0, codes({DType::i8, {32, 3, 3, 16}}, 11));
    const ValueId b = g.add_const(0, codes({DType::i32, {32}}, 12));
    const ValueId y1 = g.add_op(0, OpKind::CONV2D, {x, w, b, scalar(g, DType::i8, -3), scalar(g, DType::i8, 0)}, {{DType::i32, {1, 12, 10, 32}}},
                                {{AttrName::pad, I{1, 0, 1, 0}}, {AttrName::stride, I{2, 2}}, {AttrName::dilation, I{1, 1}},
                                 {AttrName::acc_type, AccType::INT32}})
                          .outputs[0];
    g.values[y1].name = "y1";
    const ValueId dw = g.add_const(0, codes({DType::i8, {3, 3, 16, 1}}, 13));
    const ValueId db = g.add_const(0, codes({DType::i32, {16}}, 14));
    const ValueId y2 = g.add_op(0, OpKind::DEPTHWISE_CONV2D, {x, dw, db, scalar(g, DType::i8, 5), scalar(g, DType::i8, 0)},
                                {{DType::i32, {1, 24, 20, 16}}},
                                {{AttrName::pad, I{2, 2, 2, 2}}, {AttrName::stride, I{1, 1}}, {AttrName::dilation, I{2, 2}},
                                 {AttrName::acc_type, AccType::INT32}})
                          .outputs[0];
    g.values[y2].name = "y2";
    g.main().outputs = {y1, y2};
    return g;
}

TEST_SUITE("vpu") {
    TEST_CASE("int8: SHAVE conv2d and depthwise_conv2d too large for a tile split over rows with halo rows, with the interpreter's codes") {
        const Graph g = windowed_graph();
        vpu::Target t;
        t.cmx_bytes = 98304;  // a tile takes 24 KiB; the depthwise reads 7680 and writes 30720 bytes, the conv 15360 (and its weights)
        nnef::Diagnostics d{0};
        vpu::CompileOptions co;
        co.verify_each = true;
        const auto list = vpu::compile(g, t, co, d);
        INFO(text(d));
        REQUIRE(list);
        // each kernel in several parts, each reading the input rows its window needs
        std::map<std::string, int> parts;
        for (const auto& task : list->tasks) {
            if (task.kind != vpu::TaskKind::SHAVE) continue;
            ++parts[task.op];
            REQUIRE(task.reads.size() >= 2);
            const std::int64_t rows = task.writes[0].shape[1], in_rows = task.reads[0].shape[1];
            if (task.op == "conv2d") CHECK((in_rows == 2 * rows || in_rows == 2 * rows + 1));  // stride 2, 3 rows: halo of one row
            if (task.op == "depthwise_conv2d") CHECK(in_rows <= rows + 4);
            CHECK(task.reads[0].shape[2] == 20);  // whole rows
        }
        CHECK(parts["conv2d"] > 1);
        CHECK(parts["depthwise_conv2d"] > 1);
        for (unsigned seed : {1u, 2u}) {
            CAPTURE(seed);
            const Compared r = compare(g, *list, random_inputs(g, seed));
            CHECK(r.elements == 12 * 10 * 32 + 24 * 20 * 16);
            CHECK(r.distinct.size() > 100);
            CHECK(r.mismatches == 0);
        }
    }
}

TEST_SUITE("vpu") {
    TEST_CASE("int8: conformance quant/01: a SHAVE conv2d (its result requantized to i16, held in int32) gives the interpreter's codes") {
        NNEF_REQUIRE_CORPUS();
        const fs::path model = nnef_test::corpus_file("conformance/quant/01_linear_all_tensors");
        const Compiled c = compile_int8(model, 1);
        const Graph& g = *c.lowered->graph;
        std::map<std::string, int> ops;
        for (const auto& t : c.list->tasks) ++ops[t.op];
        CHECK(ops["conv2d"] == 1);  // the TOSA kernel: no RESCALE to int8 follows the convolution
        CHECK(ops["clamp"] == 1);   // the saturation of the RESCALE to i16
        CHECK(ops["rescale"] == 3);
        CHECK(c.list->outputs[0].dtype == vpu::DataType::int8);
        for (unsigned seed : {1u, 2u, 3u}) {
            CAPTURE(seed);
            const Compared r = compare(g, *c.list, random_inputs(g, seed));
            CHECK(r.elements == 256);
            CHECK(r.distinct.size() > 1);
            CHECK(r.mismatches == 0);
        }
    }

    TEST_CASE("int8: a float bias added finer than the accumulator's steps gives the TOSA interpreter's codes exactly") {
        // samples/quantized with its random biases between the accumulator's steps (the default
        // lowering): the linear's accumulator clamped (MAXIMUM, MINIMUM), times 2^j (MUL), plus the
        // bias (ADD), one RESCALE; the VPU runs that chain in int32 and gives the same codes
        const Compiled c = compile_int8(fs::path(NNEF_SOURCE_DIR) / "samples" / "quantized", 1);
        const Graph& g = *c.lowered->graph;
        std::map<std::string, int> ops;
        for (const auto& t : c.list->tasks) ++ops[t.op];
        CHECK(ops["mul"] >= 1);
        CHECK(ops["rescale"] >= 1);
        for (unsigned seed : {1u, 2u, 3u, 4u, 5u, 6u, 7u, 8u}) {
            CAPTURE(seed);
            const Compared r = compare(g, *c.list, random_inputs(g, seed));
            CHECK(r.elements == 4);
            CHECK(r.distinct.size() > 1);
            CHECK(r.mismatches == 0);
        }
    }

    // docs/schedule.md step 20: PRO-INT's mean over H and W (ShuffleNet v2's global pool) is one NCE
    // dwconv of weights 1 writing its int32 accumulator, requantized in its table; a first RESCALE
    // whose scale is not 1 keeps the SHAVE kernels. The codes are the interpreter's either way.
    TEST_CASE("int8: a mean over H and W (RESCALE of scale 1, REDUCE_SUMs, RESCALE) is one NCE dwconv with the interpreter's codes") {
        struct Case {
            const char* what;
            std::int64_t shift;  // the first RESCALE's: multiplier 2^30 with shift 30 is scale 1
            bool both;           // reduced over H and W (else over H only)
            bool nce;            // expected on the NCE
        };
        for (const Case& k : {Case{"H and W, scale 1", 30, true, true}, Case{"H only, scale 1", 30, false, true},
                              Case{"H and W, scale 2", 29, true, false}}) {
            const std::string what = k.what;
            CAPTURE(what);
            Graph g;
            g.name = "qmean";
            g.profile = Profile::pro_int;
            const std::int64_t H = 7, W = 5, C = 48;
            const ValueId x = g.add_value({DType::i8, {1, H, W, C}}, "x");
            g.main().inputs = {x};
            const ValueId wide = rescale(g, x, DType::i32, std::int64_t(1) << 30, k.shift, -128, 0, RoundingMode::SINGLE_ROUND);
            ValueId v = g.add_op(0, OpKind::REDUCE_SUM, {wide}, {{DType::i32, {1, 1, W, C}}}, {{AttrName::axis, std::int64_t(1)}}).outputs[0];
            if (k.both) v = g.add_op(0, OpKind::REDUCE_SUM, {v}, {{DType::i32, {1, 1, 1, C}}}, {{AttrName::axis, std::int64_t(2)}}).outputs[0];
            const ValueId y = rescale(g, v, DType::i8, 1079009757, (k.both ? 34 : 32) + (30 - k.shift), 0, -128, RoundingMode::SINGLE_ROUND);
            g.values[y].name = "y";
            g.main().outputs = {y};
            const auto list = compile_checked(g);
            std::map<std::string, int> ops;
            for (const auto& t : list->tasks) ++ops[t.op];
            CHECK((ops["dwconv"] >= 1) == k.nce);
            CHECK((ops["reduce_sum"] == 0) == k.nce);
            CHECK((ops["rescale"] == 0) == k.nce);  // the last RESCALE in the dwconv's table
            for (unsigned seed : {1u, 2u, 3u}) {
                CAPTURE(seed);
                const Compared r = compare(g, *list, random_inputs(g, seed));
                CHECK(r.elements == (k.both ? C : W * C));
                CHECK(r.distinct.size() > 3);
                CHECK(r.mismatches == 0);
            }
        }
    }

    // docs/schedule.md step 20: the fine bias's element-wise chain on a [1, C] vector (the
    // classifier's accumulator) runs on [1, 1, 1, C], its results held in CMX, on one cluster
    TEST_CASE("int8: an element-wise SHAVE chain on a [1, C] vector stays in CMX on one cluster, with the interpreter's codes") {
        Graph g;
        g.name = "qvector";
        g.profile = Profile::pro_int;
        const std::int64_t C = 1000;
        const ValueId x = g.add_value({DType::i8, {1, C}}, "x");
        g.main().inputs = {x};
        const ValueId a = rescale(g, x, DType::i32, 1518500250, 20, -3, 0, RoundingMode::SINGLE_ROUND);  // x' = (x + 3) 1448 (approx.)
        auto per_channel = [&](unsigned seed, std::int64_t scale) {
            auto c = ConstData::allocate({DType::i32, {1, C}});
            const auto base = codes({DType::i32, {1, C}}, seed);
            for (std::int64_t i = 0; i < C; ++i) c->mutable_items<std::int32_t>()[i] = std::int32_t(base->items<std::int32_t>()[i] * scale);
            return g.add_const(0, c);
        };
        const ValueId mul_k = per_channel(11, 1);
        const ValueId m = g.add_op(0, OpKind::MUL, {a, mul_k, scalar(g, DType::i8, 0)}, {{DType::i32, {1, C}}}).outputs[0];
        const ValueId b = g.add_op(0, OpKind::ADD, {m, per_channel(12, 4096)}, {{DType::i32, {1, C}}}).outputs[0];
        const ValueId y = rescale(g, b, DType::i8, 1431655765, 48, 0, 5, RoundingMode::SINGLE_ROUND);
        g.values[y].name = "y";
        g.main().outputs = {y};
        const auto list = compile_checked(g);
        std::set<std::string> clusters;
        int shave = 0;
        for (const auto& t : list->tasks)
            if (t.kind == vpu::TaskKind::SHAVE) {
                ++shave;
                clusters.insert(t.queue.substr(0, 6));  // "SHAVEc"
            }
        CHECK(shave == 4);  // rescale, mul, add, rescale
        CHECK(clusters.size() == 1);
        const vpu_test::DmaCount n = vpu_test::count_dma(*list);
        CHECK(n.spills == 0);  // as [1, C] each result went to DDR and back
        CHECK(n.cross == 0);
        for (unsigned seed : {1u, 2u}) {
            CAPTURE(seed);
            const Compared r = compare(g, *list, random_inputs(g, seed));
            CHECK(r.elements == C);
            CHECK(r.distinct.size() > 20);
            CHECK(r.mismatches == 0);
        }
    }

    TEST_CASE("int8: the corpus's int8 models at PRO-INT give the TOSA interpreter's output codes exactly") {
        NNEF_RELEASE_PASS_ONLY("the same two models are compiled and simulated at PRO-INT under the sanitizers in int8: the corpus's int8 models with stored weights on reference/input.dat");
        NNEF_REQUIRE_CORPUS();
        for (const std::string name : {"quantized/squeezenet1_0_int8", "quantized/shufflenet_v2_x1_0_int8"}) {
            CAPTURE(name);
            const fs::path model = nnef_test::corpus_file(name);
            const Compiled c = compile_int8(model, 1, vpu::Target{}, true);  // random biases on the accumulators' grids
            const Graph& g = *c.lowered->graph;
            std::map<std::string, int> nce;
            std::map<std::string, std::set<std::string>> shave;  // op -> the layers (sources) of its tasks (a long kernel runs in parts)
            for (const auto& t : c.list->tasks) {
                if (t.kind == vpu::TaskKind::NCE) ++nce[t.op];
                if (t.kind == vpu::TaskKind::SHAVE) shave[t.op].insert(t.source);
            }
            CHECK(nce["conv"] > 0);
            // NCE tasks cost the int8 rates: the same conv at fp16 would take more cycles
            for (const auto& t : c.list->tasks)
                if (t.op == "conv") {
                    const std::array<std::int64_t, 2> k{t.nce.kernel[0], t.nce.kernel[1]};
                    const auto at_int8 = vpu::nce_cycles(c.list->target, "conv", true, t.writes[0].shape, t.reads[1].shape, k);
                    const auto at_fp16 = vpu::nce_cycles(c.list->target, "conv", false, t.writes[0].shape, t.reads[1].shape, k);
                    CHECK(t.cycles == at_int8);
                    CHECK(at_int8 < at_fp16);
                    break;
                }
            // the requantizations between int8 grids (relu's, concat's) run as NCE 1x1 maxpools; on
            // SHAVE stay only those of int32 values (after REDUCE_SUM)
            CHECK(nce["maxpool"] > 80);
            CHECK(shave["rescale"].size() <= 3);
            const Compared r = compare(g, *c.list, random_inputs(g, 3));
            MESSAGE(name << ": " << r.elements << " output codes (" << r.distinct.size() << " distinct), " << r.mismatches << " differ; makespan " << r.result.makespan
                         << " cycles, bound " << r.result.bound.value() << ", NCE tasks: conv " << nce["conv"] << ", dwconv "
                         << nce["dwconv"] << ", maxpool " << nce["maxpool"]);
            CHECK(r.elements == 1000);
            CHECK(r.distinct.size() > 1);
            CHECK(r.mismatches == 0);
        }
    }
}

TEST_SUITE("vpu") {
    TEST_CASE("int8: the PRO-INT tests' small graphs (CNN, binary operators, matmul, avg_pool) give the interpreter's codes") {
        struct Case {
            const char *name, *graph, *quant;
        };
        for (const Case& k : {Case{"vpu_cnn", integer_support::cnn_graph, integer_support::cnn_quant},
                              Case{"vpu_binary", integer_support::binary_graph, integer_support::binary_quant},
                              Case{"vpu_matmul", integer_support::matmul_graph, integer_support::matmul_quant},
                              Case{"vpu_avg", integer_support::avg_graph, integer_support::avg_quant}}) {
            const std::string name = k.name;
            CAPTURE(name);
            const Compiled c = compile_int8(integer_support::write_model(name, k.graph, k.quant), 1);
            const Graph& g = *c.lowered->graph;
            std::set<std::string> eltwise, clamped;  // NNEF operations computed by NCE eltwise tasks, with a clamp post-op
            for (const auto& t : c.list->tasks) {
                if (t.op == "eltwise") eltwise.insert(t.source);
                if (t.kind == vpu::TaskKind::NCE && t.nce.post_op == vpu::PostOp::clamp) clamped.insert(t.source);
            }
            // clamp(s, 0.0, 0.75): RESCALE to its grid (an NCE requantization) and CLAMP, its post-op
            if (name == "vpu_binary") CHECK(clamped == std::set<std::string>{"k"});
            // add(c, other), its operand RESCALE behind the NCHW -> NHWC TRANSPOSE, and sub(k, input)
            if (name == "vpu_binary") CHECK(eltwise == std::set<std::string>{"s", "d"});
            for (unsigned seed : {1u, 2u}) {
                const Compared r = compare(g, *c.list, random_inputs(g, seed));
                CHECK(r.elements > 0);
                CHECK(r.mismatches == 0);
            }
        }
    }

    TEST_CASE("int8: constant operands (tests/data/pro_int: hard-swish, squeeze-excitation, every form) give the interpreter's codes") {
        for (const std::string name : {"hard_swish", "squeeze_excite", "constants", "zoo_forms", "transformer_forms", "patch_embed"}) {
            CAPTURE(name);
            const Compiled c = compile_int8(nnef_test::source_dir() / "tests" / "data" / "pro_int" / name, 1);
            const Graph& g = *c.lowered->graph;
            for (unsigned seed : {1u, 2u, 3u}) {
                const Compared r = compare(g, *c.list, random_inputs(g, seed));
                MESSAGE(name << ": " << r.mismatches << " of " << r.elements << " output codes differ from the interpreter's ("
                             << r.distinct.size() << " distinct codes)");
                CHECK(r.elements > 0);
                CHECK(r.distinct.size() > 16);
                CHECK(r.mismatches == 0);
            }
        }
    }
}

TEST_SUITE("vpu") {
    TEST_CASE("int8: the corpus's int8 models with stored weights on reference/input.dat, dequantized, against reference/output.dat") {
        NNEF_REQUIRE_CORPUS();
        for (const std::string name : {"squeezenet1_0_int8", "shufflenet_v2_x1_0_int8"}) {
            CAPTURE(name);
            const fs::path model = nnef_test::corpus_file(fs::path("quantized") / name);
            nnef_test::corpus_file(fs::path("quantized") / name / "reference" / "input.dat");
            nnef_test::corpus_file(fs::path("quantized") / name / "reference" / "output.dat");
            Compiled c;
            c.lowered = nnef_test::lower_model(model, std::nullopt, Profile::pro_int);
            REQUIRE(c.lowered->graph);
            nnef::Diagnostics d{0};
            c.list = vpu::compile(*c.lowered->graph, vpu::Target{}, {}, d);
            INFO(text(d));
            REQUIRE(c.list);
            const nnef::Graph& model_graph = *c.lowered->session.graph();
            const Graph& g = *c.lowered->graph;
            auto read = [](const fs::path& p) {
                auto t = nnef::storage::read_tensor_file(p.string());
                REQUIRE(t.value);
                auto v = nnef::exec::from_tensor_data(**t.value, nnef::PrimType::scalar);
                REQUIRE(v);
                return *v;
            };
            const auto x = read(model / "reference" / "input.dat");
            const auto want = read(model / "reference" / "output.dat");
            const std::string in_name = g.value(g.main().inputs[0]).name, out_name = g.value(g.main().outputs[0]).name;
            const auto in_codes = integer_codes(model_graph, in_name), out_codes = integer_codes(model_graph, out_name);
            REQUIRE(in_codes);
            REQUIRE(out_codes);
            vpu::SimulateOptions so;
            so.values = true;
            so.inputs[in_name] = integer_support::input_codes(*in_codes, x);
            const auto r = vpu::simulate(*c.list, c.list->target, so, d);
            INFO(text(d));
            REQUIRE(r.valid);
            const ConstData& got = *r.outputs.at(out_name);
            REQUIRE(got.type.volume() == want.volume());
            std::vector<double> y(std::size_t(want.volume()));
            for (std::int64_t i = 0; i < want.volume(); ++i) y[std::size_t(i)] = out_codes->params.dequantize(code(got, i) - out_codes->offset);
            const nnef_test::Comparison cmp = nnef_test::compare(y, want.to_doubles());
            MESSAGE(name << ": relative L2 of the dequantized int8 outputs vs the float reference " << cmp.rel_l2());
            // integer_test holds the TOSA lowering to 1e-2 of nnef-run's simulated quantization
            CHECK_MESSAGE(cmp.rel_l2_within(2e-2), cmp.summary());
        }
    }
}

TEST_SUITE("vpu") {
    // issue 21: AlexNet's and VGG-11's classifiers (9216 and 25088 input channels) and Wide-ResNet-50's
    // 1024-channel 3x3 convolutions, in small: on a 64 KiB CMX a chunk takes 16 input channels of a 3x3
    // conv and 256 of a linear, so 40 and 864 channels split in 3 and 4.
    TEST_CASE("int8: convolutions split over input channels add exact int32 partial sums and requantize once") {
        const char* graph = R"(version 1.0;
graph G( input ) -> ( output )
{
    input = external(shape = [1, 40, 6, 6]);
    w1 = variable(shape = [24, 40, 3, 3], label = 'w1');
    b1 = variable(shape = [1, 24], label = 'b1');
    c1 = conv(input, w1, b1, padding = [(1, 1), (1, 1)]);
    r1 = relu(c1);
    f = reshape(r1, shape = [1, 864]);
    w2 = variable(shape = [10, 864], label = 'w2');
    b2 = variable(shape = [1, 10], label = 'b2');
    output = linear(f, w2, b2);
}
)";
        const char* quant = R"(
"input": zero_point_linear_quantize(zero_point = -3, scale = 0.02, bits = 8, signed = true, symmetric = false);
"w1": zero_point_linear_quantize(zero_point = 0, scale = 0.004, bits = 8, signed = true, symmetric = true);
"c1": zero_point_linear_quantize(zero_point = 2, scale = 0.05, bits = 8, signed = true, symmetric = false);
"r1": zero_point_linear_quantize(zero_point = -128, scale = 0.03, bits = 8, signed = true, symmetric = false);
"w2": zero_point_linear_quantize(zero_point = 0, scale = [0.003, 0.002, 0.004, 0.0025, 0.003, 0.0035, 0.002, 0.003, 0.004, 0.001], bits = 8, signed = true, symmetric = true);
"output": zero_point_linear_quantize(zero_point = 4, scale = 0.04, bits = 8, signed = true, symmetric = false);
)";
        vpu::Target t;
        t.cmx_bytes = 65536;
        const Compiled c = compile_int8(integer_support::write_model("vpu_split_k", graph, quant), 1, t, true);
        const Graph& g = *c.lowered->graph;
        std::map<std::string, int> wide;  // NCE conv tasks writing int32 partial sums, by source (the chunk)
        std::set<std::string> shave;
        for (const auto& task : c.list->tasks) {
            if (task.kind == vpu::TaskKind::SHAVE) shave.insert(task.op);
            if (task.kind != vpu::TaskKind::NCE || task.op != "conv") continue;
            for (const auto& buf : c.list->buffers)
                if (buf.id == task.writes[0].buffer && buf.dtype == vpu::DataType::int32) ++wide[task.source];
        }
        // every chunk of both layers (3 and 4 of them, in one tile or more each) writes int32
        MESSAGE("NCE conv tasks writing int32 partial sums: " << wide.size() << " chunks");
        CHECK(wide.size() == 7);
        CHECK(shave.count("add"));
        CHECK(shave.count("rescale"));
        for (unsigned seed : {1u, 2u, 3u}) {
            CAPTURE(seed);
            const Compared r = compare(g, *c.list, random_inputs(g, seed));
            MESSAGE("split convolutions: " << r.mismatches << " of " << r.elements << " output codes differ from the interpreter's ("
                                           << r.distinct.size() << " distinct codes)");
            CHECK(r.elements == 10);
            CHECK(r.distinct.size() > 3);
            CHECK(r.mismatches == 0);
        }
    }
}

}  // namespace int8_test
