// Every real model of the corpus that has reference/ data (input.dat -> output.dat, computed by
// PyTorch with the same weights): the executor's output must match with a maximum relative error
// max|out - ref| / max|ref| <= 1e-4 (the corpus README expects about 1e-6 relative L2), with the
// compound kernels and with every compound expanded to primitives.
#include "common/scratch.hpp"
#include "exec_support.hpp"

#include <chrono>
#include <cstdlib>
#include <unistd.h>
#include <filesystem>

#include "common/compare.hpp"
#include "storage/tensor_file.hpp"

namespace real_models_exec_test {

namespace fs = std::filesystem;

// Runs a quantized model (simulating graph.quant or not; like_nnef_tools: as nnef-run
// --quant-like nnef-tools) on `input`; its one output compared with `expected` (a failure to load
// or run fails the test).
nnef_test::Comparison quantized_run(const std::string& path, const fs::path& input, const fs::path& expected, bool simulate,
                     bool like_nnef_tools = false) {
    nnef::FlattenOptions fo;
    fo.expand = nnef::exec::compounds_without_kernel();
    nnef::Session session(fo);
    REQUIRE(session.load_path(path));
    nnef::exec::ExecOptions eo;
    eo.simulate_quantization = simulate;
    if (like_nnef_tools) {
        eo.quant_mode = nnef::exec::ExecOptions::QuantMode::nnef_tools;
        eo.exact_sums = true;
    }
    auto created = nnef::exec::Executor::create(*session.graph(), eo);
    REQUIRE(created);
    auto in = nnef::storage::read_tensor_file(input.string());
    auto ref = nnef::storage::read_tensor_file(expected.string());
    REQUIRE(in);
    REQUIRE(ref);
    const nnef::Graph& g = *session.graph();
    nnef::Diagnostics d;
    auto value = nnef::exec::from_tensor_data(**in.value, nnef::PrimType::scalar);
    REQUIRE(value);
    REQUIRE((*created.value)->set_input(g.inputs.front(), *value, d));
    REQUIRE((*created.value)->run(d));
    const std::vector<double> got = (*created.value)->tensor(g.outputs.front())->to_doubles();
    const std::vector<double> want = (*ref.value)->to_doubles();
    REQUIRE(got.size() == want.size());
    return nnef_test::compare(got, want);
}

TEST_SUITE("exec") {

TEST_CASE("real models match their reference outputs") {
    NNEF_REQUIRE_CORPUS();
    const fs::path real = nnef_test::corpus_dir() / "real";
    std::vector<fs::path> models;
    for (const auto& e : fs::directory_iterator(real))
        if (fs::exists(e.path() / "reference" / "input.dat") && fs::exists(e.path() / "reference" / "output.dat"))
            models.push_back(e.path());
    std::sort(models.begin(), models.end());
    int passed = 0, failed = 0;
    // each model twice: standard compounds with a kernel kept atomic, and everything expanded to
    // primitives (under the sanitizers the expanded run of SqueezeNet only: the same kernels again)
    std::vector<std::pair<fs::path, bool>> runs;
    for (bool expand_all : {false, true})
        for (const fs::path& model : models) {
            if (expand_all && NNEF_TEST_SANITIZED && model.filename() != "squeezenet1_0") {
                NNEF_RELEASE_PASS_PART(model.filename().string() << " expanded to primitives",
                                       "the same kernels run on it unexpanded and on SqueezeNet expanded");
                continue;
            }
            runs.emplace_back(model, expand_all);
        }
    for (const auto& [model, expand_all] : runs) {
        const std::string name = model.filename().string() + (expand_all ? " (expanded to primitives)" : "");
        CAPTURE(name);
        nnef::FlattenOptions fo;
        fo.expand = nnef::exec::compounds_without_kernel();
        fo.expand_all = expand_all;
        nnef::Session session(fo);
        bool ok = session.load_path(model.string());
        std::string why;
        double max_rel = -1.0, rel_l2 = -1.0, ms = 0.0;
        if (!ok) why = "does not load";
        std::unique_ptr<nnef::exec::Executor> ex;
        if (ok) {
            auto created = nnef::exec::Executor::create(*session.graph());
            ok = static_cast<bool>(created);
            if (ok) ex = std::move(*created.value);
            else why = created.diagnostics.begin()->message;
        }
        auto input = nnef::storage::read_tensor_file((model / "reference" / "input.dat").string());
        auto expected = nnef::storage::read_tensor_file((model / "reference" / "output.dat").string());
        ok = ok && input && expected && session.graph()->inputs.size() == 1 && session.graph()->outputs.size() == 1;
        if (ok) {
            const nnef::Graph& g = *session.graph();
            nnef::Diagnostics d;
            auto value = nnef::exec::from_tensor_data(**input.value, nnef::PrimType::scalar);
            const auto start = std::chrono::steady_clock::now();
            ok = value && ex->set_input(g.inputs.front(), *value, d) && ex->run(d);
            ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
            if (!ok) why = d.empty() ? "no input" : d.begin()->message;
        }
        if (ok) {
            const nnef::exec::TensorValue& out = *ex->tensor(session.graph()->outputs.front());
            const std::vector<double> ref = (*expected.value)->to_doubles(), got = out.to_doubles();
            ok = out.shape() == (*expected.value)->shape;
            if (!ok) why = "output shape " + nnef::to_string(out.shape()) + " differs from the reference";
            const nnef_test::Comparison c = nnef_test::compare(got, ref);
            max_rel = c.max_rel();
            rel_l2 = c.rel_l2();
            ok = ok && c.max_rel_within(1e-4);
            if (!ok && why.empty()) why = "max relative error above 1e-4: " + c.summary();
        }
        MESSAGE(name << ": " << (ok ? "passed" : "FAILED (" + why + ")") << ", max relative error " << max_rel
                     << ", relative L2 error " << rel_l2 << ", " << ms << " ms");
        CHECK_MESSAGE(ok, name << ": " << why);
        (ok ? passed : failed) += 1;
    }
    MESSAGE(passed << " passed, " << failed << " failed");
    CHECK(passed >= (NNEF_TEST_SANITIZED ? 4 : 6));  // squeezenet1_0, mobilenet_v2, shufflenet_v2_x1_0, twice (once)

    // The int8 models of quantized/ (graph.quant simulated, stored codes dequantized) against what
    // NNEF-Tools' interpreter computes, from a folder, a .tar and a .tgz. The reference is matched
    // as NNEF-Tools computes (--quant-like nnef-tools: the graph input is not rounded, float32 steps
    // with ties to even, exact convolution sums; docs/exec.md, "Quantization"); the spec's reading
    // (the input rounded too) is printed beside it and must stay within the quantization error.
    const fs::path tmp = nnef_test::process_scratch("nnef-exec-quantized");
    fs::create_directories(tmp);
    for (const char* model : {"shufflenet_v2_x1_0_int8", "squeezenet1_0_int8"}) {
        const fs::path folder = nnef_test::corpus_dir() / "quantized" / model;
        const fs::path input = folder / "reference" / "input.dat", output = folder / "reference" / "output.dat";
        const std::string tar = (tmp / (std::string(model) + ".tar")).string(), tgz = (tmp / (std::string(model) + ".tgz")).string();
        REQUIRE(std::system(("tar -cf '" + tar + "' -C '" + folder.string() + "' --exclude reference .").c_str()) == 0);
        REQUIRE(std::system(("tar -czf '" + tgz + "' -C '" + folder.string() + "' --exclude reference .").c_str()) == 0);
        for (const std::string& path : {folder.string(), tar, tgz}) {
            if (NNEF_TEST_SANITIZED && path != folder.string() && std::string(model) != "shufflenet_v2_x1_0_int8") {
                NNEF_RELEASE_PASS_PART(model << " from " << path, "the int8 ShuffleNet v2 is read from a .tar and a .tgz there");
                continue;
            }
            CAPTURE(path);
            const nnef_test::Comparison c = quantized_run(path, input, output, true, true);
            MESSAGE(std::string(model) << " from " << path << " (--quant-like nnef-tools): relative L2 error " << c.rel_l2()
                                       << " against NNEF-Tools' output (limit 1e-3)");
            CHECK_MESSAGE(c.rel_l2_within(1e-3), c.summary());
        }
        const nnef_test::Comparison spec = quantized_run(folder.string(), input, output, true);
        MESSAGE(std::string(model) << " (the spec's reading, inputs rounded): relative L2 error " << spec.rel_l2()
                                   << " against NNEF-Tools' output (limit 1e-2)");
        CHECK_MESSAGE(spec.rel_l2_within(1e-2), spec.summary());
    }
    fs::remove_all(tmp);
}

TEST_CASE("quantized models without simulation (--no-quant) against the float models") {
    NNEF_REQUIRE_CORPUS();
    // The dequantized int8 weights run in float: the difference from the float model's output is
    // the error of quantizing the weights (the corpus README gives 1.6% and 0.4% for the fully
    // quantized models).
    for (const char* model : {"squeezenet1_0_int8", "shufflenet_v2_x1_0_int8"}) {
        const fs::path folder = nnef_test::corpus_dir() / "quantized" / model;
        std::string float_model = model;
        float_model.resize(float_model.size() - 5);  // without "_int8"
        const fs::path reference = nnef_test::corpus_dir() / "real" / float_model / "reference" / "output.dat";
        const nnef_test::Comparison no_quant = quantized_run(folder.string(), folder / "reference" / "input.dat", reference, false);
        const nnef_test::Comparison quant = quantized_run(folder.string(), folder / "reference" / "input.dat", reference, true);
        MESSAGE(std::string(model) << ": relative L2 error against " << float_model << "'s output: " << no_quant.rel_l2()
                      << " with --no-quant, " << quant.rel_l2() << " simulating graph.quant");
        CHECK_MESSAGE(no_quant.rel_l2_within(0.03), no_quant.summary());
        CHECK_MESSAGE(quant.rel_l2_within(0.03), quant.summary());
        CHECK(no_quant.rel_l2() > 0.0);  // the weights are int8 codes, not the float weights
    }
}

TEST_CASE("every valid conformance document runs (random weights and inputs)") {
    NNEF_REQUIRE_CORPUS();
    // Inputs: scalars from N(0, 1), integers 0 (valid as indices of every extent), logicals random.
    int ran = 0, custom = 0;
    for (const auto& e : fs::directory_iterator(nnef_test::corpus_dir() / "conformance" / "valid")) {
        if (e.path().extension() != ".nnef") continue;
        const std::string name = e.path().filename().string();
        CAPTURE(name);
        nnef::FlattenOptions fo;
        fo.expand = nnef::exec::compounds_without_kernel();
        nnef::Session session(fo);
        REQUIRE(session.load_path(e.path().string()));
        if (!session.custom_operations().empty()) {
            ++custom;
            continue;
        }
        const nnef::Graph& g = *session.graph();
        nnef::exec::ExecOptions o;
        o.random_weights = 1;
        auto created = nnef::exec::Executor::create(g, o);
        std::string messages;
        for (const nnef::Diagnostic& d : created.diagnostics) messages += nnef::render(d, session.sources(), false);
        INFO(messages);
        REQUIRE(created);
        nnef::Diagnostics d;
        bool ok = true;
        for (const std::string& in : g.inputs) {
            const nnef::Tensor& t = *g.tensor(in);
            ok = ok && (*created.value)->set_input(in,
                                                   t.dtype == nnef::PrimType::integer
                                                       ? nnef::exec::TensorValue(t.dtype, *t.shape)
                                                       : nnef::exec::random_tensor(t.dtype, *t.shape, 3),
                                                   d);
        }
        ok = ok && (*created.value)->run(d) && (*created.value)->run(d);  // two cycles (variables updated)
        for (const nnef::Diagnostic& x : d) messages += nnef::render(x, session.sources(), false);
        CHECK_MESSAGE(ok, messages);
        ++ran;
    }
    MESSAGE(ran << " documents ran, " << custom << " skipped (custom operations)");
    CHECK(ran >= 90);
}

}  // TEST_SUITE

}  // namespace real_models_exec_test
