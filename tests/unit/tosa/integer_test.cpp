// PRO-INT: quantized graphs lowered to i8/i32 TOSA (lowering/tosa/from_nnef/integer.hpp, each
// operation's integer form in its family file), run by the TOSA interpreter on the input's codes,
// and compared with nnef-run's simulated quantization (docs/exec.md) on the same input: per element
// in steps of the output's grid on small graphs, in relative L2 of the dequantized outputs on the
// corpus's int8 models.
#include "legalize_support.hpp"
#include "integer_support.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "common/compare.hpp"
#include "storage/tensor_file.hpp"

namespace integer_test {

using integer_support::cnn_graph;
using integer_support::cnn_quant;
using integer_support::write_model;

namespace fs = std::filesystem;
using nnef::tosa::DType;
using nnef::tosa::OpKind;

struct Run {
    std::string why;                      // empty when both ran
    std::optional<nnef::tosa::Graph> graph;
    std::vector<std::vector<std::int64_t>> got, want;  // output codes: TOSA, nnef-run's (quantized)
    std::vector<std::vector<double>> got_real, want_real;
    std::string errors;                   // the lowering's diagnostics
};

// Loads `path` (a folder with graph.nnef and graph.quant), runs nnef-run (quantization simulated)
// and the PRO-INT lowering through the interpreter on `inputs` (random ones when empty).
Run run(const std::string& path, std::optional<std::uint64_t> random_weights,
        std::vector<nnef::exec::TensorValue> inputs = {}) {
    Run r;
    nnef::FlattenOptions fo;
    fo.expand = nnef::exec::compounds_without_kernel();
    fo.load_weights = !random_weights;
    nnef::Session session(fo);
    if (!session.load_path(path)) {
        r.why = "load: " + legalize_support::render_all(session.diagnostics(), session.sources());
        return r;
    }
    nnef::FlattenOptions keep;  // the standard compounds kept (relu)
    keep.load_weights = !random_weights;
    nnef::Session kept(keep);
    if (!kept.load_path(path)) {
        r.why = "load: " + legalize_support::render_all(kept.diagnostics(), kept.sources());
        return r;
    }
    const nnef::Graph& g = *session.graph();
    nnef::exec::ExecOptions eo;
    eo.random_weights = random_weights;
    auto ex = nnef::exec::Executor::create(g, eo);
    if (!ex) {
        r.why = "nnef-run: " + legalize_support::render_all(ex.diagnostics, session.sources());
        return r;
    }
    nnef::tosa::LowerOptions lo;
    lo.profile = nnef::tosa::Profile::pro_int;
    lo.random_weights = random_weights;
    nnef::Diagnostics d;
    r.graph = nnef::tosa::lower_to_tosa(*kept.graph(), lo, d);
    if (!r.graph) {
        r.errors = legalize_support::render_all(d, kept.sources());
        r.why = "lowering: " + r.errors;
        return r;
    }
    std::vector<nnef::tosa::ConstPtr> ins;
    for (std::size_t i = 0; i < g.inputs.size(); ++i) {
        const nnef::Tensor& t = *g.tensor(g.inputs[i]);
        if (inputs.size() <= i) inputs.push_back(nnef::exec::random_tensor(t.dtype, *t.shape, 11 + i));
        if (!(*ex.value)->set_input(g.inputs[i], inputs[i], d)) {
            r.why = "nnef-run input: " + legalize_support::render_all(d, session.sources());
            return r;
        }
        const auto codes = nnef::tosa::integer_codes(*kept.graph(), g.inputs[i]);
        if (!codes) {
            r.why = "no codes for input " + g.inputs[i];
            return r;
        }
        ins.push_back(integer_support::input_codes(*codes, inputs[i]));
    }
    auto interp = nnef::tosa::Interpreter::create(*r.graph, nnef::tosa::InterpretOptions{}, d);
    if (!interp || !(*ex.value)->run(d)) {
        r.why = "run: " + legalize_support::render_all(d, kept.sources());
        return r;
    }
    auto outs = interp->run(ins, d);
    if (!outs) {
        r.why = "interpreter: " + legalize_support::render_all(d, kept.sources());
        return r;
    }
    for (std::size_t i = 0; i < g.outputs.size(); ++i) {
        const auto codes = nnef::tosa::integer_codes(*kept.graph(), g.outputs[i]);
        const nnef::exec::TensorValue& e = *(*ex.value)->tensor(g.outputs[i]);
        const nnef::tosa::ConstData& o = *(*outs)[i];
        if (!codes || (o.type.dtype != DType::i8 && o.type.dtype != DType::i16) || o.type.shape != e.shape()) {
            r.why = "output '" + g.outputs[i] + "' is not i8 or i16 codes of nnef-run's shape";
            return r;
        }
        const std::vector<double> want = e.to_doubles();
        std::vector<std::int64_t> got(want.size());
        for (std::size_t k = 0; k < got.size(); ++k) got[k] = integer_support::code_at(o, std::int64_t(k)) - codes->offset;
        r.want_real.push_back(want);
        r.got_real.push_back(nnef::storage::dequantize(codes->params, e.shape(), got));
        r.want.push_back(nnef::storage::quantize(codes->params, e.shape(), want));
        r.got.push_back(std::move(got));
    }
    return r;
}

// The output codes, TOSA's against nnef-run's quantized ones (max_abs(): the most steps of the
// output grid any item is off), and the dequantized outputs against nnef-run's (rel_l2()).
nnef_test::Comparison codes(const Run& r) {
    nnef_test::Comparison c;
    for (std::size_t i = 0; i < r.got.size(); ++i) c.add(r.got[i], r.want[i]);
    return c;
}
nnef_test::Comparison reals(const Run& r) {
    nnef_test::Comparison c;
    for (std::size_t i = 0; i < r.got_real.size(); ++i) c.add(r.got_real[i], r.want_real[i]);
    return c;
}

double off_fraction(const Run& r) {
    std::size_t off = 0, n = 0;
    for (std::size_t i = 0; i < r.got.size(); ++i)
        for (std::size_t k = 0; k < r.got[i].size(); ++k) {
            off += r.got[i][k] != r.want[i][k];
            ++n;
        }
    return n ? double(off) / double(n) : 0.0;
}

std::size_t count(const nnef::tosa::Graph& g, OpKind k) {
    std::size_t n = 0;
    for (const nnef::tosa::Op& op : g.main().ops) n += op.kind == k;
    return n;
}

bool only_integers(const nnef::tosa::Graph& g) {
    for (const nnef::tosa::Value& v : g.values)
        if (nnef::tosa::is_float(v.type.dtype)) return false;
    return true;
}

// run() of `path`, which must lower (in integers only) and run.
Run integer_run(const std::string& path, std::optional<std::uint64_t> random_weights, std::vector<nnef::exec::TensorValue> inputs = {}) {
    Run r = run(path, random_weights, std::move(inputs));
    REQUIRE_MESSAGE(r.why.empty(), r.why);
    CHECK(only_integers(*r.graph));
    return r;
}

// The PRO-INT lowering of `path` refuses it, naming each of `parts` in its diagnostics.
void check_refused(const std::string& path, std::optional<std::uint64_t> random_weights, const std::vector<std::string>& parts) {
    const Run r = run(path, random_weights);
    REQUIRE(!r.graph);
    for (const std::string& part : parts) CHECK_MESSAGE(r.errors.find(part) != std::string::npos, part << " is not in: " << r.errors);
}

TEST_SUITE("tosa") {

TEST_CASE("integer: a small quantized CNN lowers to i8/i32 and matches nnef-run within one step") {
    const fs::path dir = write_model("cnn", cnn_graph, cnn_quant);
    const Run r = run(dir.string(), 5);
    REQUIRE_MESSAGE(r.why.empty(), r.why);
    const nnef::tosa::Graph& g = *r.graph;
    CHECK(only_integers(g));
    CHECK(g.type(g.main().inputs[0]).dtype == DType::i8);
    CHECK(g.type(g.main().outputs[0]).dtype == DType::i8);
    CHECK(count(g, OpKind::CONV2D) == 2);  // conv and linear
    CHECK(count(g, OpKind::DEPTHWISE_CONV2D) == 2);  // conv with groups, avg_pool's window sums
    CHECK(count(g, OpKind::RESCALE) >= 6);
    CHECK(count(g, OpKind::MAX_POOL2D) == 1);
    // w1's scales per output channel; the float biases b1 and b3 lie between their accumulators'
    // steps, so each is added at a finer grid, the accumulator times 2^j (a MUL) and the result's
    // RESCALE per channel (fine_bias, convolution.cpp): c1's and the output's
    std::size_t per_channel = 0;
    for (const nnef::tosa::Op& op : g.main().ops)
        per_channel += op.kind == OpKind::RESCALE && op.get<bool>(nnef::tosa::AttrName::per_channel);
    CHECK(per_channel == 2);
    // every conv's bias is i32
    for (const nnef::tosa::Op& op : g.main().ops)
        if (op.kind == OpKind::CONV2D || op.kind == OpKind::DEPTHWISE_CONV2D) {
            CHECK(g.type(op.inputs[2]).dtype == DType::i32);
            CHECK(g.type(op.outputs[0]).dtype == DType::i32);
        }
    MESSAGE("max difference " << codes(r).max_abs() << " steps, " << off_fraction(r) * 100 << "% of items off, relative L2 "
                              << reals(r).rel_l2());
    CHECK_MESSAGE(codes(r).max_abs_within(1), codes(r).summary());
    // one step or none: the output moves with the input
    const Run other = run(dir.string(), 6);
    REQUIRE(other.why.empty());
    CHECK(other.got != r.got);
    CHECK_MESSAGE(codes(other).max_abs_within(1), codes(other).summary());
}

TEST_CASE("integer: relu, max_pool and layout operations keep the codes exactly") {
    const fs::path dir = write_model("exact", R"(version 1.0;
graph G( input ) -> ( output )
{
    input = external(shape = [1, 4, 6, 6]);
    r = relu(input);
    p = max_pool(r, size = [1, 1, 2, 2], stride = [1, 1, 2, 2], border = 'ignore');
    t = transpose(p, axes = [0, 2, 3, 1]);
    output = reshape(t, shape = [1, 36]);
}
)",
                                       R"("input": zero_point_linear_quantize(zero_point = 10, scale = 0.05, bits = 8, signed = true, symmetric = false);
"output": zero_point_linear_quantize(zero_point = 10, scale = 0.05, bits = 8, signed = true, symmetric = false);
)");
    const Run r = run(dir.string(), std::nullopt);
    REQUIRE_MESSAGE(r.why.empty(), r.why);
    CHECK(count(*r.graph, OpKind::RESCALE) == 0);
    CHECK(count(*r.graph, OpKind::CLAMP) == 1);
    CHECK_MESSAGE(codes(r).max_abs_within(0), codes(r).summary());
    CHECK_MESSAGE(reals(r).rel_l2_within(1e-6), reals(r).summary());  // nnef-run's float32 items
}

TEST_CASE("integer: split and pad (constant and reflect) keep the codes exactly") {
    const fs::path dir = write_model("split_pad", R"(version 1.0;
graph G( input ) -> ( a, b )
{
    input = external(shape = [1, 6, 4, 4]);
    [p, q] = split(input, axis = 1, ratios = [1, 2]);
    a = pad(p, padding = [(0, 0), (0, 0), (1, 2), (2, 1)], border = 'constant');
    b = pad(q, padding = [(0, 0), (0, 0), (2, 1), (1, 1)], border = 'reflect');
}
)",
                                         R"("input": zero_point_linear_quantize(zero_point = 7, scale = 0.05, bits = 8, signed = true, symmetric = false);
"a": zero_point_linear_quantize(zero_point = 7, scale = 0.05, bits = 8, signed = true, symmetric = false);
"b": zero_point_linear_quantize(zero_point = 7, scale = 0.05, bits = 8, signed = true, symmetric = false);
)");
    const Run r = run(dir.string(), std::nullopt);
    REQUIRE_MESSAGE(r.why.empty(), r.why);
    CHECK(count(*r.graph, OpKind::RESCALE) == 0);
    CHECK_MESSAGE(codes(r).max_abs_within(0), codes(r).summary());
    CHECK_MESSAGE(reals(r).rel_l2_within(1e-6), reals(r).summary());
}

TEST_CASE("integer: a RESCALE to a coarser grid rounds as nnef-run (half up)") {
    // the codes of input / 3 on a grid 3 times coarser: exact ties at every third code
    const fs::path dir = write_model("coarse", R"(version 1.0;
graph G( input ) -> ( output )
{
    input = external(shape = [1, 256]);
    output = copy(input);
}
)",
                                     R"("input": zero_point_linear_quantize(zero_point = 0, scale = 0.5, bits = 8, signed = true, symmetric = false);
"output": zero_point_linear_quantize(zero_point = 2, scale = 1.0, bits = 8, signed = true, symmetric = false);
)");
    std::vector<float> x(256);
    for (int i = 0; i < 256; ++i) x[std::size_t(i)] = float(i - 128) * 0.5f;
    nnef::exec::TensorValue in(nnef::PrimType::scalar, {1, 256});
    std::copy(x.begin(), x.end(), in.data<float>());
    const Run r = run(dir.string(), std::nullopt, {in});
    REQUIRE_MESSAGE(r.why.empty(), r.why);
    CHECK(count(*r.graph, OpKind::RESCALE) == 1);
    CHECK_MESSAGE(codes(r).max_abs_within(0), codes(r).summary());  // -1.5 -> -1, 0.5 -> 1: ties up, as floor(x + 0.5)
}

TEST_CASE("integer: an operation without an integer form is an error naming it and its line") {
    const fs::path dir = write_model("tiled", R"(version 1.0;
graph G( input ) -> ( output )
{
    input = external(shape = [1, 4]);
    output = tile(input, repeats = [1, 2]);
}
)",
                                      R"("input": zero_point_linear_quantize(zero_point = 0, scale = 0.05, bits = 8, signed = true, symmetric = false);
"output": zero_point_linear_quantize(zero_point = 0, scale = 0.05, bits = 8, signed = true, symmetric = false);
)");
    check_refused(dir.string(), std::nullopt, {"'tile'", "graph.nnef:5", "PRO-INT"});
}

TEST_CASE("integer: an input without a graph.quant entry is an error") {
    const fs::path dir = write_model("noentry", R"(version 1.0;
graph G( input ) -> ( output )
{
    input = external(shape = [1, 4]);
    output = relu(input);
}
)",
                                      R"("output": zero_point_linear_quantize(zero_point = -128, scale = 0.004, bits = 8, signed = true, symmetric = false);
)");
    check_refused(dir.string(), std::nullopt, {"'input'", "graph.quant entry"});
}

TEST_CASE("integer: the quantized sample and the quant conformance cases match nnef-run within one step") {
    struct Case {
        fs::path path;
        std::optional<std::uint64_t> seed;
    };
    std::vector<Case> cases{{nnef_test::source_dir() / "samples" / "quantized", 7}};
    if (nnef_test::have_corpus())
        cases.push_back({nnef_test::corpus_file("conformance/quant/01_linear_all_tensors"), std::nullopt});
    else
        NNEF_SKIP_PART("corpus not found at " << nnef_test::corpus_dir().string() << ": the sample only, not conformance quant/01");
    for (const Case& k : cases) {
        CAPTURE(k.path.string());
        for (std::uint64_t input_seed = 0; input_seed < 3; ++input_seed) {
            std::vector<nnef::exec::TensorValue> inputs;
            {
                nnef::Session s;
                REQUIRE(s.load_path((k.path / "graph.nnef").string()));
                const nnef::Tensor& t = *s.graph()->tensor(s.graph()->inputs.at(0));
                inputs.push_back(nnef::exec::random_tensor(t.dtype, *t.shape, 100 + input_seed));
            }
            const Run r = integer_run(k.path.string(), k.seed, inputs);
            MESSAGE(k.path.filename().string() << ": max difference " << codes(r).max_abs() << " steps, " << off_fraction(r) * 100
                                               << "% of items off, relative L2 " << reals(r).rel_l2());
            CHECK_MESSAGE(codes(r).max_abs_within(1), codes(r).summary());
            std::set<std::int64_t> distinct(r.got[0].begin(), r.got[0].end());
            CHECK(distinct.size() >= 2);
        }
    }
}

TEST_CASE("integer: conformance cases whose float input is not quantized once are refused, naming the input") {
    NNEF_REQUIRE_CORPUS();
    // quant/02: no entry for the input, read by conv; valid/073: read by three different quantize fragments
    check_refused(nnef_test::corpus_file("conformance/quant/02_single_quotes_log").string(), 3, {"graph input 'input'"});
    const fs::path q073 = write_model("q073", nnef_test::read_text(nnef_test::corpus_file("conformance/valid/073_quantization_ops.nnef")), "");
    check_refused(q073.string(), 3, {"graph input 'x'", "exactly one linear quantize fragment"});
}

TEST_CASE("integer: element-wise functions become TABLEs to the result's grid") {
    const fs::path dir = write_model("table", R"(version 1.0;
graph G( input ) -> ( output )
{
    input = external(shape = [1, 64]);
    s = sigmoid(input);
    t = tanh(s);
    output = elu(t, alpha = 0.5);
}
)",
                                     R"("input": zero_point_linear_quantize(zero_point = 3, scale = 0.05, bits = 8, signed = true, symmetric = false);
"s": zero_point_linear_quantize(zero_point = -128, scale = 0.0039, bits = 8, signed = true, symmetric = false);
"t": linear_quantize(min = 0.0, max = 0.8, bits = 8);
"output": zero_point_linear_quantize(zero_point = 0, scale = 0.004, bits = 8, signed = true, symmetric = false);
)");
    const Run r = run(dir.string(), std::nullopt);
    REQUIRE_MESSAGE(r.why.empty(), r.why);
    CHECK(count(*r.graph, OpKind::TABLE) == 3);
    CHECK_MESSAGE(codes(r).max_abs_within(0), codes(r).summary());  // each table entry is nnef-run's value rounded to the grid
}

TEST_CASE("integer: add, sub, mul and clamp of activations match nnef-run within one step") {
    const fs::path dir = write_model("binary", integer_support::binary_graph, integer_support::binary_quant);
    for (std::uint64_t seed : {3, 4}) {
        const Run r = integer_run(dir.string(), seed);
        CHECK(count(*r.graph, OpKind::ADD) >= 2);
        CHECK(count(*r.graph, OpKind::SUB) == 1);
        CHECK(count(*r.graph, OpKind::MUL) == 1);
        CHECK(count(*r.graph, OpKind::CLAMP) >= 1);
        MESSAGE("max difference " << codes(r).max_abs() << " steps, " << off_fraction(r) * 100 << "% of items off");
        CHECK_MESSAGE(codes(r).max_abs_within(1), codes(r).summary());
        CHECK(off_fraction(r) < 0.2);
    }
}

std::vector<nnef::exec::TensorValue> spread_inputs(const std::string& path, double lo, double hi, double phase) {
    nnef::Session s;
    REQUIRE(s.load_path(path));
    return integer_support::spread_inputs<nnef::exec::TensorValue, float>(*s.graph(), lo, hi, phase);
}

TEST_CASE("integer: constant operands (mul, div, add, sub, min, max, clamp) match nnef-run within one step") {
    // tests/data/pro_int: MobileNet-v3's hard-sigmoid and hard-swish, a squeeze-excitation block,
    // and every form of constant operand (literal, per-channel tensor, negative, divisor, minuend,
    // min / max / clamp bounds)
    struct Case {
        std::string name;
        double lo, hi;
    };
    // (transformer_forms is compared with nnef-run --float64 only, integer64_test.cpp: float32's own
    // rounding in its softmax and erf chain moves codes of nnef-run by up to 3 steps, 12 of 64)
    for (const Case& k : {Case{"hard_swish", -5.5, 5.5}, Case{"squeeze_excite", -3.5, 3.5}, Case{"constants", -1.3, 1.3},
                          Case{"zoo_forms", -2.6, 2.6}}) {
        CAPTURE(k.name);
        const std::string path = (nnef_test::source_dir() / "tests" / "data" / "pro_int" / k.name).string();
        for (double phase : {0.0, 0.25, 0.5}) {
            const Run r = integer_run(path, std::nullopt, spread_inputs(path, k.lo, k.hi, phase));
            MESSAGE(k.name << ": max difference " << codes(r).max_abs() << " steps, " << off_fraction(r) * 100
                           << "% of items off");
            // a tie that float32 rounds down in one tensor of hard_swish's chain (a = m + 0.5 at
            // exactly 102.5 steps) moves the next, finer grid (hsig) by 2 steps; against nnef-run
            // --float64 every code is within one step (integer64_test.cpp)
            CHECK_MESSAGE(codes(r).max_abs_within(2), codes(r).summary());
            CHECK(off_fraction(r) < 0.05);
        }
    }
}

TEST_CASE("integer: a constant factor or bound is exact where its grid allows") {
    // x * 0.5 onto a grid twice as fine: every code maps exactly (RESCALE by 1); min with 0.3 and
    // clamp with literals are CLAMPs at the codes of the bounds
    const fs::path dir = write_model("exact_constants", R"(version 1.0;
graph G( input ) -> ( half, lo, band )
{
    input = external(shape = [1, 256]);
    half = mul(input, 0.5);
    lo = min(input, 0.3);
    band = clamp(input, -0.4, 0.9);
}
)",
                                     R"("input": zero_point_linear_quantize(zero_point = 0, scale = 0.01, bits = 8, signed = true, symmetric = false);
"half": zero_point_linear_quantize(zero_point = 0, scale = 0.005, bits = 8, signed = true, symmetric = false);
"lo": zero_point_linear_quantize(zero_point = 0, scale = 0.01, bits = 8, signed = true, symmetric = false);
"band": zero_point_linear_quantize(zero_point = 0, scale = 0.01, bits = 8, signed = true, symmetric = false);
)");
    nnef::exec::TensorValue in(nnef::PrimType::scalar, {1, 256});
    for (int i = 0; i < 256; ++i) in.data<float>()[i] = float(i - 128) * 0.01f;
    const Run r = run(dir.string(), std::nullopt, {in});
    REQUIRE_MESSAGE(r.why.empty(), r.why);
    CHECK(count(*r.graph, OpKind::MUL) == 0);
    CHECK_MESSAGE(codes(r).max_abs_within(0), codes(r).summary());
}

TEST_CASE("integer: division by an activation is INTDIV with the codes of nnef-run, and an error without a result entry") {
    // every pair of codes of two grids (one with a zero point between codes), 0 in the divisor
    // included: x / 0 saturates, 0 / 0 (NaN) is the lowest code
    const char* graph = R"(version 1.0;
graph G( input, other ) -> ( output )
{
    input = external(shape = [256, 1]);
    other = external(shape = [1, 256]);
    output = div(input, other);
}
)";
    const fs::path dir = write_model("divact", graph,
                                     R"("input": zero_point_linear_quantize(zero_point = 3, scale = 0.05, bits = 8, signed = true, symmetric = false);
"other": linear_quantize(min = -0.8, max = 0.8, bits = 8);
"output": zero_point_linear_quantize(zero_point = -5, scale = 0.09, bits = 8, signed = true, symmetric = false);
)");
    nnef::exec::TensorValue x(nnef::PrimType::scalar, {256, 1}), y(nnef::PrimType::scalar, {1, 256});
    for (int i = 0; i < 256; ++i) {
        x.data<float>()[i] = float(i - 128 - 3) * 0.05f;
        y.data<float>()[i] = float(-0.8 + 1.6 * i / 255.0);
    }
    const Run r = integer_run(dir.string(), std::nullopt, {x, y});
    MESSAGE("div of activations: " << codes(r).summary() << ", " << off_fraction(r) * 100 << "% of items off");
    CHECK_MESSAGE(codes(r).max_abs_within(1), codes(r).summary());
    CHECK(off_fraction(r) < 0.001);
    const fs::path bad = write_model("divact_noentry", graph,
                                     R"("input": zero_point_linear_quantize(zero_point = 0, scale = 0.05, bits = 8, signed = true, symmetric = false);
"other": zero_point_linear_quantize(zero_point = 0, scale = 0.05, bits = 8, signed = true, symmetric = false);
)");
    check_refused(bad.string(), std::nullopt, {"'div'", "graph.nnef:6", "no graph.quant entry"});
}

TEST_CASE("integer: element-wise chains without entries are one TABLE, constants fold, and a chain of two activations is an error") {
    // y = sign(x) * (1 - exp(-x * x)) with no entry between x and y: one TABLE of x's codes; k =
    // pow(32.0, c) of constants only (Swin's attention scale) is evaluated in double
    const fs::path dir = write_model("chain", R"(version 1.0;
extension KHR_enable_operator_expressions;
graph G( x ) -> ( y, z )
{
    x = external(shape = [1, 256]);
    e = exp(-x * x);
    y = sign(x) * (1.0 - e);
    c = constant(shape = [], value = [-0.5]);
    k = pow(32.0, c);
    z = mul(x, k);
}
)",
                                      R"("x": zero_point_linear_quantize(zero_point = 0, scale = 0.02, bits = 8, signed = true, symmetric = false);
"y": zero_point_linear_quantize(zero_point = 0, scale = 0.0079, bits = 8, signed = true, symmetric = false);
"z": zero_point_linear_quantize(zero_point = 0, scale = 0.004, bits = 8, signed = true, symmetric = false);
)");
    nnef::exec::TensorValue in(nnef::PrimType::scalar, {1, 256});
    for (int i = 0; i < 256; ++i) in.data<float>()[i] = float(i - 128) * 0.02f;
    const Run r = integer_run(dir.string(), std::nullopt, {in});
    std::size_t tables = 0;
    for (const auto& op : r.graph->main().ops) tables += op.kind == nnef::tosa::OpKind::TABLE;
    CHECK(tables == 1);
    CHECK_MESSAGE(codes(r).max_abs_within(0), codes(r).summary());
    const fs::path two = write_model("chain_two", R"(version 1.0;
graph G( a, b ) -> ( y )
{
    a = external(shape = [1, 4]);
    b = external(shape = [1, 4]);
    t = abs(a);
    y = mul(t, b);
}
)",
                                      R"("a": zero_point_linear_quantize(zero_point = 0, scale = 0.05, bits = 8, signed = true, symmetric = false);
"b": zero_point_linear_quantize(zero_point = 0, scale = 0.05, bits = 8, signed = true, symmetric = false);
"y": zero_point_linear_quantize(zero_point = 0, scale = 0.05, bits = 8, signed = true, symmetric = false);
)");
    check_refused(two.string(), std::nullopt, {"'mul'", "graph.nnef:7", "functions of different activations ('a', 'b')"});
}

TEST_CASE("integer: a padded conv of an input whose zero point falls between codes is corrected at the borders") {
    // linear_quantize(min = -1, max = 1): zero point 127.5; padded windows read fewer input items
    const fs::path dir = write_model("halfzp", R"(version 1.0;
graph G( input ) -> ( output )
{
    input = external(shape = [1, 2, 6, 6]);
    w = variable(shape = [3, 2, 3, 3], label = 'w');
    output = conv(input, w, 0.0, padding = [(2, 1), (1, 1)], stride = [2, 1]);
}
)",
                                     R"("input": linear_quantize(min = -1.0, max = 1.0, bits = 8);
"w": zero_point_linear_quantize(zero_point = 0, scale = 0.02, bits = 8, signed = true, symmetric = true);
"output": zero_point_linear_quantize(zero_point = 0, scale = 0.01, bits = 8, signed = true, symmetric = false);
)");
    for (std::uint64_t seed : {1, 2, 3}) {
        const Run r = run(dir.string(), seed);
        REQUIRE_MESSAGE(r.why.empty(), r.why);
        MESSAGE("max difference " << codes(r).max_abs() << " steps, " << off_fraction(r) * 100 << "% of items off");
        CHECK_MESSAGE(codes(r).max_abs_within(1), codes(r).summary());
        CHECK(off_fraction(r) < 0.05);
    }
}

TEST_CASE("integer: matmul of activations and of an activation by constants matches nnef-run within one step") {
    const fs::path dir = write_model("matmul", integer_support::matmul_graph, integer_support::matmul_quant);
    for (std::uint64_t seed : {1, 2}) {
        const Run r = run(dir.string(), seed);
        REQUIRE_MESSAGE(r.why.empty(), r.why);
        CHECK(count(*r.graph, OpKind::MATMUL) == 2);
        CHECK(only_integers(*r.graph));
        MESSAGE("max difference " << codes(r).max_abs() << " steps, " << off_fraction(r) * 100 << "% of items off");
        CHECK_MESSAGE(codes(r).max_abs_within(1), codes(r).summary());
    }
}

TEST_CASE("integer: mean_reduce from and to grids whose zero points fall between codes") {
    const fs::path dir = write_model("mean_frac", R"(version 1.0;
graph G( input ) -> ( output )
{
    input = external(shape = [1, 3, 4, 5]);
    output = mean_reduce(input, axes = [2, 3]);
}
)",
                                     R"("input": linear_quantize(min = -1.0, max = 1.0, bits = 8);
"output": linear_quantize(min = -0.25, max = 0.3, bits = 8);
)");
    for (std::uint64_t seed : {1, 2, 3}) {
        const Run r = run(dir.string(), seed);
        REQUIRE_MESSAGE(r.why.empty(), r.why);
        CHECK_MESSAGE(codes(r).max_abs_within(0), codes(r).summary());
    }
}

TEST_CASE("integer: avg_pool sums in i32 and rounds once, with and without padding counted") {
    const fs::path dir = write_model("avg", integer_support::avg_graph, integer_support::avg_quant);
    for (std::uint64_t seed : {1, 2, 3}) {
        const Run r = run(dir.string(), seed);
        REQUIRE_MESSAGE(r.why.empty(), r.why);
        CHECK(count(*r.graph, OpKind::AVG_POOL2D) == 0);
        CHECK(count(*r.graph, OpKind::DEPTHWISE_CONV2D) == 3);
        MESSAGE("max difference " << codes(r).max_abs() << " steps, " << off_fraction(r) * 100 << "% of items off");
        CHECK_MESSAGE(codes(r).max_abs_within(0), codes(r).summary());
    }
}

TEST_CASE("integer: the corpus's int8 models match nnef-run's simulated quantization") {
    NNEF_REQUIRE_CORPUS();
    int passed = 0, failed = 0;
    for (const std::string name : {"shufflenet_v2_x1_0_int8", "squeezenet1_0_int8"}) {
        CAPTURE(name);
        const fs::path model = nnef_test::corpus_file(fs::path("quantized") / name);
        auto in = nnef::storage::read_tensor_file(nnef_test::corpus_file(fs::path("quantized") / name / "reference" / "input.dat").string());
        REQUIRE(in);
        const Run r = run(model.string(), std::nullopt, {*nnef::exec::from_tensor_data(**in.value, nnef::PrimType::scalar)});
        const bool ok = r.why.empty() && only_integers(*r.graph) && reals(r).rel_l2_within(1e-2);
        if (r.why.empty())
            MESSAGE(name << ": " << (ok ? "passed" : "FAILED") << ", " << r.graph->op_count() << " TOSA operators ("
                         << count(*r.graph, OpKind::RESCALE) << " RESCALE), relative L2 vs nnef-run " << reals(r).rel_l2()
                         << ", " << off_fraction(r) * 100 << "% of output codes differ, at most by " << codes(r).max_abs());
        else
            MESSAGE(name << ": FAILED, " << r.why);
        CHECK(ok);
        (ok ? passed : failed) += 1;
    }
    MESSAGE(passed << " passed, " << failed << " failed");
}

}  // TEST_SUITE

}  // namespace integer_test
