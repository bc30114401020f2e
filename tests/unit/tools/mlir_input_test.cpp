// End-to-end tests of TOSA MLIR files as the tools' input (docs/tosa.md, "Reading TOSA MLIR"):
// `nnef-run FILE.mlir` runs it on the TOSA interpreter, `nnef-to-vpu FILE.mlir` compiles and
// simulates it, `nnef-to-tosa FILE.mlir` reads and writes it back. The files are our MLIR of a
// sample and of a corpus model, and what mlir-opt-22 prints from them; the outputs must be those of
// the NNEF model run the same way, bit for bit. A malformed file ends with exit 1 and a
// FILE:LINE:COL message; a missing one with exit 2.
#include <doctest/doctest.h>

#include <filesystem>
#include <string>

#include "tool_runner.hpp"
#include "unit/mlir/mlir_support.hpp"

namespace mlir_input_test {

namespace fs = std::filesystem;
using nnef_test::contains;
using nnef_test::run_tool;

const auto q = nnef_test::quoted;
const auto fresh = nnef_test::fresh_scratch;
const auto sample = nnef_test::sample_dir;
std::string bytes(const fs::path& p) { return nnef_test::read_text(p); }

// Our MLIR of the classifier sample (pseudo-random weights, seed 1).
fs::path classifier_mlir() {
    const fs::path out = nnef_test::scratch_dir() / "classifier.mlir";
    const auto r = run_tool("nnef-to-tosa", q(sample("classifier")) + " --random-weights 1 --quiet -o " + q(out));
    REQUIRE_MESSAGE(r.code == 0, r.err);
    return out;
}

TEST_CASE("nnef-to-tosa FILE.mlir: our own MLIR reads and writes back to the same text (without the NNEF locations)") {
    const fs::path in = classifier_mlir();
    const auto r = run_tool("nnef-to-tosa", q(in));
    REQUIRE_MESSAGE(r.code == 0, r.err);
    std::string expected = bytes(in);
    for (std::size_t at; (at = expected.find(" loc(")) != std::string::npos;) expected.erase(at, expected.find('\n', at) - at);
    CHECK(r.out == expected);
    CHECK(contains(r.out, "func.func @classifier(%image: tensor<1x3x32x32xf32>)"));
}

TEST_CASE("nnef-run FILE.mlir runs it on the TOSA interpreter: the outputs of nnef-run --via tosa on the model") {
    const fs::path in = classifier_mlir();
    const fs::path model_out = fresh("mlir-run-model"), file_out = fresh("mlir-run-file");
    const auto m = run_tool("nnef-run", q(sample("classifier")) + " --random-weights 1 --via tosa --input random:3 --output-dir " + q(model_out));
    REQUIRE_MESSAGE(m.code == 0, m.err);
    const auto f = run_tool("nnef-run", q(in) + " --input image=random:3 --output-dir " + q(file_out));
    REQUIRE_MESSAGE(f.code == 0, f.err);
    CHECK(f.out == m.out);  // "output probabilities: scalar[1,10] min ... max ... mean ..."
    CHECK(bytes(file_out / "probabilities.dat") == bytes(model_out / "probabilities.dat"));
    // --compare against the model's outputs, --dump of an input, and --via tosa said explicitly.
    const auto c = run_tool("nnef-run", q(in) + " --via tosa --input random:3 --dump image --compare " + q(model_out));
    CHECK_MESSAGE(c.code == 0, c.err);
    CHECK(contains(c.out, "compare probabilities with"));
    CHECK(contains(c.out, "max abs error 0"));
    CHECK(contains(c.out, "tensor image: scalar[1,3,32,32]"));
}

TEST_CASE("nnef-run FILE.mlir on a corpus model matches its PyTorch reference") {
    NNEF_REQUIRE_CORPUS();
    const fs::path model = nnef_test::corpus_dir() / "real" / "squeezenet1_0";
    const fs::path in = nnef_test::scratch_dir() / "squeezenet.mlir";
    const auto t = run_tool("nnef-to-tosa", q(model) + " --quiet -o " + q(in));
    REQUIRE_MESSAGE(t.code == 0, t.err);
    const auto r = run_tool("nnef-run", q(in) + " --input " + q(model / "reference" / "input.dat") + " --compare " + q(model / "reference"));
    CHECK_MESSAGE(r.code == 0, r.err);
    CHECK(contains(r.out, ": match"));
}

TEST_CASE("nnef-to-vpu FILE.mlir compiles it as it compiles the model: the same constants, schedule and simulated outputs") {
    const fs::path in = classifier_mlir();
    const fs::path dir = fresh("mlir-vpu");
    fs::create_directories(dir);
    const auto m = run_tool("nnef-to-vpu", q(sample("classifier")) + " --random-weights 1 --quiet -o " + q(dir / "model.json"));
    REQUIRE_MESSAGE(m.code == 0, m.err);
    const auto f = run_tool("nnef-to-vpu", q(in) + " -o " + q(dir / "file.json"));
    REQUIRE_MESSAGE(f.code == 0, f.err);
    CHECK(bytes(dir / "file.bin") == bytes(dir / "model.bin"));
    const auto ms = run_tool("nnef-to-vpu", q(sample("classifier")) + " --random-weights 1 --simulate --input random:3 --output-dir " + q(dir / "m"));
    const auto fs_ = run_tool("nnef-to-vpu", q(in) + " --simulate --input random:3 --output-dir " + q(dir / "f"));
    REQUIRE_MESSAGE(ms.code == 0, ms.err);
    REQUIRE_MESSAGE(fs_.code == 0, fs_.err);
    CHECK(fs_.out == ms.out);  // the report: makespan, bound, queues, traffic
    CHECK(contains(fs_.out, "makespan:"));
    CHECK(bytes(dir / "f" / "probabilities.dat") == bytes(dir / "m" / "probabilities.dat"));
}

TEST_CASE("the tools read what mlir-opt-22 prints from our MLIR (pretty and generic form)") {
    NNEF_REQUIRE_MLIR_OPT();
    const fs::path in = classifier_mlir();
    const fs::path dir = fresh("mlir-opt-forms");
    fs::create_directories(dir);
    const auto ref = run_tool("nnef-run", q(in) + " --input random:3 --output-dir " + q(dir / "ref"));
    REQUIRE_MESSAGE(ref.code == 0, ref.err);
    fs::copy_file(dir / "ref" / "probabilities.dat", dir / "ref" / "output.dat");  // mlir-opt renames the result
    for (const char* form : {"", "--mlir-print-op-generic"}) {
        CAPTURE(form);
        const fs::path printed = dir / (std::string(*form ? "generic" : "pretty") + ".mlir");
        const auto p = nnef_test::run_command(nnef_test::mlir_quote(nnef_test::mlir_opt().string()) + " " + form + " " +
                                              nnef_test::mlir_quote(in.string()) + " -o " + nnef_test::mlir_quote(printed.string()));
        REQUIRE_MESSAGE(p.code == 0, p.err);
        CHECK(contains(bytes(printed), *form ? "\"tosa.conv2d\"(" : "tosa.conv2d %"));
        const auto r = run_tool("nnef-run", q(printed) + " --input random:3 --compare " + q(dir / "ref"));
        CHECK_MESSAGE(r.code == 0, r.err);
        CHECK(contains(r.out, "output output0: scalar[1,10]"));  // mlir-opt numbers the values: the output is named for its place
        CHECK(contains(r.out, "max abs error 0"));
        const auto v = run_tool("nnef-to-vpu", q(printed) + " --simulate --input random:3 --output-dir " + q(dir / (std::string("vpu") + (*form ? "g" : "p"))));
        CHECK_MESSAGE(v.code == 0, v.err);
    }
}

TEST_CASE("a malformed MLIR file: exit 1 and FILE:LINE:COL: error in every tool, a missing one: exit 2") {
    const fs::path bad = nnef_test::write_scratch("bad.mlir",
                                                  "func.func @f(%a: tensor<2xf32>) -> tensor<2xf32> {\n"
                                                  "  %0 = tosa.conv9d %a : (tensor<2xf32>) -> tensor<2xf32>\n"
                                                  "  return %0 : tensor<2xf32>\n}\n");
    const std::string where = bad.string() + ":2:8: error[tosa]: unknown operation 'tosa.conv9d'";
    for (const std::string tool : {"nnef-run", "nnef-to-vpu", "nnef-to-tosa"}) {
        CAPTURE(tool);
        const auto r = run_tool(tool, q(bad) + (tool == "nnef-run" ? " --input random:1" : ""));
        CHECK(r.code == 1);
        CHECK(r.err.rfind(where, 0) == 0);
        CHECK(r.out.empty());
    }
    const fs::path truncated = nnef_test::write_scratch("truncated.mlir", "module {\n  func.func @f(%a: tensor<2x");
    const auto t = run_tool("nnef-to-vpu", q(truncated));
    CHECK(t.code == 1);
    CHECK(t.err.rfind(truncated.string() + ":2:", 0) == 0);
    const auto missing = run_tool("nnef-run", q(nnef_test::scratch_dir() / "absent.mlir") + " --input random:1");
    CHECK(missing.code == 2);
    CHECK(contains(missing.err, "cannot read the MLIR file"));
    // Options of NNEF models are refused with a reason.
    const auto u = run_tool("nnef-run", q(classifier_mlir()) + " --random-weights 1 --input random:1");
    CHECK(u.code == 2);
    CHECK(contains(u.err, "FILE.mlir is a TOSA graph"));
    CHECK(contains(run_tool("nnef-to-vpu", "--help").out, "FILE.mlir"));
    CHECK(contains(run_tool("nnef-run", "--help").out, "FILE.mlir"));
}

}  // namespace mlir_input_test
