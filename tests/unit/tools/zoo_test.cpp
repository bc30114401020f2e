// End-to-end tests on the model zoo of issue 21 (scripts/zoo/generate.py; docs/zoo.md): the smallest
// model, SqueezeNet 1.1, float and int8, through the real tools on its reference input, against
// NNEF-Tools' interpreter's output (reference/output.dat). The zoo's weights are not in git: the
// folder is $NNEF_ZOO_DIR, which CTest sets from CMake's NNEF_ZOO_DIR (empty by default); without
// it, or without the model, the test skips and says why. The whole zoo is scripts/zoo/check.py's,
// not a test's: it takes hours on this machine (docs/zoo.md has the seconds per stage).
#include <doctest/doctest.h>

#include <cstdlib>
#include <filesystem>
#include <string>

#include "tool_runner.hpp"

namespace zoo_tools_test {

namespace fs = std::filesystem;
using nnef_test::quoted;
using nnef_test::contains;
using nnef_test::run_tool;
using nnef_test::shell_quote;


// The zoo model `name`: its folder, or "" after setting `why` to the reason it is not there.
fs::path zoo_model(const std::string& name, std::string& why) {
    const char* dir = std::getenv("NNEF_ZOO_DIR");
    if (!dir || !*dir) {
        why = "NNEF_ZOO_DIR is not set (cmake -DNNEF_ZOO_DIR=DIR, with models made by scripts/zoo/generate.py)";
        return {};
    }
    const fs::path model = fs::path(dir) / name;
    if (!fs::exists(model / "reference" / "output.dat")) {
        why = "the zoo at " + std::string(dir) + " lacks " + name + "/reference/output.dat (scripts/zoo/generate.py --models " +
              name.substr(0, name.find("_int8")) + ")";
        return {};
    }
    return model;
}

TEST_SUITE("tools") {
    TEST_CASE("zoo squeezenet1_1: nnef-run, --via tosa and the fp16 VPU match NNEF-Tools' interpreter") {
        std::string why;
        const fs::path model = zoo_model("squeezenet1_1", why);
        if (model.empty()) NNEF_SKIP(why);
        const fs::path ref = model / "reference";
        const std::string input = " --input " + quoted(ref / "input.dat") + " --compare " + quoted(ref);
        auto r = run_tool("nnef-validate", quoted(model));
        CHECK_MESSAGE(r.code == 0, r.err);
        CHECK(contains(r.out, "weights checked"));
        r = run_tool("nnef-run", quoted(model) + input);
        CHECK_MESSAGE(r.code == 0, r.out << r.err);
        CHECK_MESSAGE(contains(r.out, ": match"), r.out);
        r = run_tool("nnef-run", quoted(model) + " --via tosa" + input);
        CHECK_MESSAGE(r.code == 0, r.out << r.err);
        CHECK_MESSAGE(contains(r.out, ": match"), r.out);
        // fp16 on the device: nnef-to-vpu's default tolerance (rtol 0.02 of max|ref|)
        r = run_tool("nnef-to-vpu", quoted(model) + " --simulate" + input);
        CHECK_MESSAGE(r.code == 0, r.out << r.err);
        CHECK_MESSAGE(contains(r.out, "makespan:"), r.out);
        CHECK_MESSAGE(contains(r.out, ": match"), r.out);
    }

    TEST_CASE("zoo squeezenet1_1_int8: nnef-run --quant-like nnef-tools and the int8 VPU match NNEF-Tools' interpreter") {
        std::string why;
        const fs::path model = zoo_model("squeezenet1_1_int8", why);
        if (model.empty()) NNEF_SKIP(why);
        const fs::path ref = model / "reference";
        const std::string input = " --input " + quoted(ref / "input.dat") + " --compare " + quoted(ref);
        auto r = run_tool("nnef-run", quoted(model) + " --quant-like nnef-tools" + input);
        CHECK_MESSAGE(r.code == 0, r.out << r.err);
        CHECK_MESSAGE(contains(r.out, "0 of 1000 items (0%) more than one quantum off"), r.out);
        r = run_tool("nnef-to-tosa", quoted(model) + " --profile pro-int -o " + quoted(nnef_test::scratch_dir() / "zoo-int8.mlir"));
        CHECK_MESSAGE(r.code == 0, r.err);
        // the int8 path's codes, dequantized, within nnef-to-vpu's default quanta of the reference
        r = run_tool("nnef-to-vpu", quoted(model) + " --profile pro-int --simulate" + input);
        CHECK_MESSAGE(r.code == 0, r.out << r.err);
        CHECK_MESSAGE(contains(r.out, "makespan:"), r.out);
        CHECK_MESSAGE(contains(r.out, ": match"), r.out);
    }
}

}  // namespace zoo_tools_test
