// Issue 22, acceptance 3: the driver's `vpu` device runs the EXPORTED NNAPI models of SqueezeNet and
// ShuffleNet v2 (the corpus's float models and their int8 versions) with the results of
// `nnef-to-vpu --simulate` on the NNEF model (lower_to_tosa -> vpu::compile -> vpu::simulate, what
// that tool runs). The two paths build different TOSA graphs (NNAPI's NHWC operations, the export's
// requantizing convolutions, against the NNEF lowering's graph), so "the same" is:
//  - int8: every output code within one of nnef-to-vpu's, and with graph.quant's scales rounded to
//    float32 every code equal. NNAPI's Operand.scale is a float (HAL 1.0) and the corpus's scales are
//    doubles, so the exported model's RESCALE multipliers differ in their low bits from the NNEF
//    lowering's and a product within about 1e-7 of a rounding tie rounds the other way (1 in about
//    10^5 convolution outputs of SqueezeNet int8), a flip that later layers carry on;
//  - float (fp16 on the VPU): relative L2 <= 1e-5 (both compute the same fp16 operations but in
//    different orders of a few sums).
// docs/nnapi.md ("The vpu device") has the figures.
#include <doctest/doctest.h>

#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

#include "lowering/nnapi/driver.hpp"
#include "lowering/nnapi/from_nnef.hpp"
#include "lowering/vpu/compiler.hpp"
#include "lowering/vpu/simulator.hpp"
#include "storage/quantization.hpp"
#include "test_support.hpp"
#include "unit/mlir/lowered_model.hpp"

namespace driver_vpu_corpus_test {

namespace fs = std::filesystem;
namespace nnapi = nnef::nnapi;
namespace tosa = nnef::tosa;
namespace vpu = nnef::vpu;

std::string text(const nnef::Diagnostics& d) {
    std::ostringstream os;
    for (const auto& x : d) os << x.message << "\n";
    return os.str();
}

// The model's input (NNEF order) as reals: for a quantized input, the reals of codes spread over the
// whole int8 range of its grid (so both paths quantize them to the same codes); else values in
// [-2, 2].
std::vector<double> input_reals(const nnef::Shape& shape, const tosa::IntegerCodes* codes) {
    std::int64_t n = 1;
    for (auto e : shape) n *= e;
    std::vector<double> x(static_cast<std::size_t>(n));
    std::uint32_t s = 12345;
    for (auto& v : x) {
        s = s * 1664525u + 1013904223u;
        if (codes) v = codes->params.dequantize(std::int64_t((s >> 8) % 256) - 128 - codes->offset);
        else v = 4.0 * double((s >> 8) & 0xffff) / 65535.0 - 2.0;
    }
    return x;
}

struct Outputs {
    std::vector<double> reals;  // NNEF order, dequantized on the output's grid for a quantized model
    double seconds = 0;
};

// `nnef-to-vpu MODEL --simulate --input x`: the NNEF graph lowered to TOSA at `profile`, compiled for
// the default target and simulated with values.
Outputs through_nnef(const fs::path& model, tosa::Profile profile, const std::vector<double>& x) {
    const auto start = std::chrono::steady_clock::now();
    auto lowered = nnef_test::lower_model(model, std::nullopt, profile);
    INFO(nnef_test::rendered(*lowered));
    REQUIRE(lowered->graph);
    const nnef::Graph& g = *lowered->session.graph();
    const tosa::Graph& tg = *lowered->graph;
    nnef::Diagnostics d{0};
    const auto list = vpu::compile(tg, vpu::Target{}, {}, d);
    INFO(text(d));
    REQUIRE(list);
    const std::string in = tg.value(tg.main().inputs[0]).name, out = tg.value(tg.main().outputs[0]).name;
    const auto in_codes = tosa::integer_codes(g, in), out_codes = tosa::integer_codes(g, out);
    const bool quant = profile == tosa::Profile::pro_int;
    REQUIRE(quant == bool(in_codes));
    REQUIRE(quant == bool(out_codes));
    auto value = tosa::ConstData::allocate(tg.type(tg.main().inputs[0]));
    REQUIRE(std::size_t(value->type.volume()) == x.size());
    for (std::size_t k = 0; k < x.size(); ++k) {
        if (quant) value->mutable_items<std::int8_t>()[k] = std::int8_t(in_codes->params.quantize(x[k]) + in_codes->offset);
        else value->mutable_items<float>()[k] = float(x[k]);
    }
    vpu::SimulateOptions so;
    so.values = true;
    so.inputs[in] = value;
    const auto r = vpu::simulate(*list, list->target, so, d);
    INFO(text(d));
    REQUIRE(r.valid);
    REQUIRE(r.outputs.count(out));
    const tosa::ConstData& y = *r.outputs.at(out);
    Outputs o;
    for (std::int64_t k = 0; k < y.type.volume(); ++k) {
        if (!quant) o.reals.push_back(y.items<float>()[k]);
        else if (y.type.dtype == tosa::DType::i32) o.reals.push_back(out_codes->params.dequantize(y.items<std::int32_t>()[k] - out_codes->offset));
        else o.reals.push_back(out_codes->params.dequantize(y.items<std::int8_t>()[k] - out_codes->offset));
    }
    o.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return o;
}

// The export (`nnef-to-nnapi MODEL`) prepared on the vpu device and executed on one Request.
Outputs through_nnapi(const fs::path& model, const std::vector<double>& x) {
    const auto start = std::chrono::steady_clock::now();
    nnef::Session session{nnef::FlattenOptions{}};
    REQUIRE(session.load_path(model.string()));
    const nnef::Graph& g = *session.graph();
    nnef::Diagnostics d{0};
    const auto exported = nnapi::export_model(g, {}, d);
    INFO(text(d));
    REQUIRE(exported);
    const nnapi::Model& m = exported->model;
    REQUIRE(m.inputIndexes.size() == 1);
    REQUIRE(m.outputIndexes.size() == 1);
    const auto device = nnapi::make_device("vpu");
    auto [status, prepared] = device->prepareModel(m, d);
    INFO(text(d));
    REQUIRE(status == nnapi::ErrorStatus::NONE);

    // the boundary tensors' graph.quant grids (none for a float model)
    std::optional<nnef::storage::QuantParams> in_grid, out_grid;
    auto grid = [&](const std::string& tensor, std::optional<nnef::storage::QuantParams>& p) {
        const nnef::Tensor* t = g.tensor(tensor);
        REQUIRE(t);
        REQUIRE(t->shape);
        if (!t->quantization) return;
        auto q = nnef::storage::quant_params(*t->quantization, tensor);
        REQUIRE(q);
        p = *q.value;
    };
    const nnapi::TensorBinding &ib = exported->inputs[0], &ob = exported->outputs[0];
    grid(ib.name, in_grid);
    grid(ob.name, out_grid);
    const nnapi::Tensor in = nnapi::to_operand_value(m, ib, *g.tensor(ib.name)->shape, x, in_grid ? &*in_grid : nullptr);
    nnapi::Request r;
    r.pools.push_back(nnapi::Memory{in.data});
    r.inputs.push_back(nnapi::RequestArgument{false, {0, 0, std::uint32_t(in.data.size())}, {}});
    const nnapi::Operand& out = m.operands[m.outputIndexes[0]];
    const std::uint32_t bytes = std::uint32_t(*nnapi::byte_size(out));
    r.pools.push_back(nnapi::Memory{std::vector<std::uint8_t>(bytes)});
    r.outputs.push_back(nnapi::RequestArgument{false, {1, 0, bytes}, {}});
    REQUIRE(prepared->execute(r, d) == nnapi::ErrorStatus::NONE);
    nnapi::Tensor y{out.type, out.dimensions, out.scale, out.zeroPoint, r.pools[1].data};
    Outputs o;
    o.reals = nnapi::from_operand_value(ob, *g.tensor(ob.name)->shape, y, out_grid ? &*out_grid : nullptr);
    o.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return o;
}

// A copy of an int8 model (in the system's temporary folder; about 1 MB for SqueezeNet) whose graph.quant scales are rounded to float32, the
// type of NNAPI's Operand.scale, so that both paths start from the same scales.
fs::path with_float32_scales(const fs::path& model, const std::string& name) {
    const fs::path copy = fs::temp_directory_path() / ("nnef-nnapi-f32-scales-" + std::to_string(::getpid())) / name;
    fs::remove_all(copy);
    fs::create_directories(copy);
    for (const auto& e : fs::directory_iterator(model))
        if (e.is_regular_file() && e.path().filename() != "graph.quant") fs::copy_file(e.path(), copy / e.path().filename());
    std::ifstream in(model / "graph.quant");
    std::stringstream text;
    text << in.rdbuf();
    const std::string quant = text.str();
    const std::regex scale("scale = ([-+0-9.eE]+)");
    std::string rounded;
    std::size_t last = 0, changed = 0;
    for (auto it = std::sregex_iterator(quant.begin(), quant.end(), scale); it != std::sregex_iterator(); ++it) {
        char buf[64];
        std::snprintf(buf, sizeof buf, "scale = %.17g", double(float(std::stod((*it)[1].str()))));
        rounded += quant.substr(last, std::size_t(it->position()) - last) + buf;
        last = std::size_t(it->position() + it->length());
        changed += std::string(buf) != it->str();
    }
    rounded += quant.substr(last);
    REQUIRE(changed > 0);  // the corpus's scales are not float32 values: the copy differs
    std::ofstream(copy / "graph.quant") << rounded;
    return copy;
}

struct Compared {
    std::size_t outputs = 0, differ = 0;
    double rel_l2 = 0, max_steps = 0;  // max_steps: the largest difference in output grid steps (int8)
};

// Both paths on one model and one input; MESSAGE the figures.
Compared compare(const std::string& name, const fs::path& model, bool quant) {
    nnef::Session session{nnef::FlattenOptions{}};
    REQUIRE(session.load_path(model.string()));
    const nnef::Graph& g = *session.graph();
    REQUIRE(g.inputs.size() == 1);
    REQUIRE(g.outputs.size() == 1);
    const auto in_codes = tosa::integer_codes(g, g.inputs[0]), out_codes = tosa::integer_codes(g, g.outputs[0]);
    REQUIRE(quant == bool(in_codes));
    REQUIRE(quant == bool(out_codes));
    const std::vector<double> x = input_reals(*g.tensor(g.inputs[0])->shape, in_codes ? &*in_codes : nullptr);
    const Outputs want = through_nnef(model, quant ? tosa::Profile::pro_int : tosa::Profile::pro_fp, x);
    const Outputs got = through_nnapi(model, x);
    REQUIRE(got.reals.size() == want.reals.size());
    REQUIRE(!want.reals.empty());
    Compared c;
    c.outputs = want.reals.size();
    double num = 0, den = 0, lo = want.reals[0], hi = want.reals[0];
    for (std::size_t k = 0; k < want.reals.size(); ++k) {
        REQUIRE(std::isfinite(got.reals[k]));
        c.differ += got.reals[k] != want.reals[k];
        num += (got.reals[k] - want.reals[k]) * (got.reals[k] - want.reals[k]);
        den += want.reals[k] * want.reals[k];
        lo = std::min(lo, want.reals[k]);
        hi = std::max(hi, want.reals[k]);
        if (quant) c.max_steps = std::max(c.max_steps, std::fabs(got.reals[k] - want.reals[k]) / out_codes->params.scale[0]);
    }
    c.rel_l2 = std::sqrt(num / den);
    MESSAGE(name << ": " << c.outputs << " outputs in [" << lo << ", " << hi << "], " << c.differ << " differ (at most "
                 << c.max_steps << " grid steps), relative L2 " << c.rel_l2 << "; nnef-to-vpu path " << want.seconds
                 << " s, vpu device " << got.seconds << " s");
    CHECK(hi > lo);  // not a constant output
    return c;
}


// Three test cases, so that ctest runs them side by side (each takes a few seconds: the two paths
// compile and simulate the whole model).
TEST_CASE("driver vpu: the exported float SqueezeNet and ShuffleNet v2 give nnef-to-vpu --simulate's results (relative L2 <= 1e-5)") {
    NNEF_REQUIRE_CORPUS();
    NNEF_RELEASE_PASS_ONLY("the vpu device runs float models under the sanitizers in \"driver: the vpu device runs float models as the cpu "
                           "device does\", and the exported int8 ShuffleNet v2 through the driver and nnef-to-vpu in the next test case");
    for (const std::string name : {"real/squeezenet1_0", "real/shufflenet_v2_x1_0"}) {
        CAPTURE(name);
        const Compared c = compare(name, nnef_test::corpus_file(name), false);
        CHECK(c.rel_l2 <= 1e-5);  // NaN fails
    }
}

TEST_CASE("driver vpu: the exported int8 SqueezeNet and ShuffleNet v2 give nnef-to-vpu --simulate's codes within one") {
    NNEF_REQUIRE_CORPUS();
    for (const std::string name : {"quantized/squeezenet1_0_int8", "quantized/shufflenet_v2_x1_0_int8"}) {
        if (NNEF_TEST_SANITIZED && name != "quantized/shufflenet_v2_x1_0_int8") {
            NNEF_RELEASE_PASS_PART(name, "the int8 ShuffleNet v2 takes the same path here");
            continue;
        }
        CAPTURE(name);
        const Compared c = compare(name, nnef_test::corpus_file(name), true);
        CHECK(c.max_steps <= 1.0 + 1e-6);
        CHECK(c.differ * 20 <= c.outputs);  // at least 95% equal
    }
}

TEST_CASE("driver vpu: with graph.quant's scales rounded to float32 (NNAPI's), the exported int8 SqueezeNet gives nnef-to-vpu --simulate's codes exactly") {
    NNEF_REQUIRE_CORPUS();
    NNEF_RELEASE_PASS_ONLY("the driver and nnef-to-vpu take the same path on the int8 ShuffleNet v2 under the sanitizers in the test case before");
    // SqueezeNet int8: the model whose codes differ with the corpus's double scales
    const std::string name = "quantized/squeezenet1_0_int8";
    const fs::path copy = with_float32_scales(nnef_test::corpus_file(name), "squeezenet1_0_int8");
    const Compared c = compare(name + " (float32 scales)", copy, true);
    CHECK(c.differ == 0);
    fs::remove_all(copy.parent_path());
}

}  // namespace driver_vpu_corpus_test
