// End-to-end tests of quantized models (graph.quant): nnef-run simulates the entries and
// dequantizes stored int8 codes (matching NNEF-Tools' output on the corpus model), --no-quant runs
// in float, --quant-like nnef-tools reproduces NNEF-Tools' interpreter (inputs kept, ties to even),
// a graph.quant whose parameters cannot apply is a data-stage error at its line before anything
// runs, and nnef-info reports the quantized parameters as stored and as float32.
#include <doctest/doctest.h>

#include <filesystem>
#include <string>

#include "storage/tensor_file.hpp"
#include "tool_runner.hpp"

namespace quantized_tools_test {

namespace fs = std::filesystem;
using nnef_test::run_tool;
using nnef_test::shell_quote;

std::string q(const fs::path& p) { return shell_quote(p.string()); }
bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// A scratch model `name`: y = x + w with x [1, 2] an input and w [1, 2] the int8 codes (3, -4),
// and graph.quant `quant`; the folder.
fs::path add_model(const std::string& name, const std::string& quant) {
    const fs::path dir = nnef_test::scratch_dir() / name;
    fs::remove_all(dir);
    fs::create_directories(dir);
    nnef_test::write_scratch(name + "/graph.nnef",
                             "version 1.0;\ngraph g(x) -> (y)\n{\n    x = external<scalar>(shape = [1, 2]);\n"
                             "    w = variable<scalar>(shape = [1, 2], label = 'w');\n    y = add(x, w);\n}\n");
    nnef_test::write_scratch(name + "/graph.quant", quant);
    auto w = nnef::storage::make_integer_tensor({1, 2}, {3, -4}, 8, true, nnef::item_code::quantized_signed);
    REQUIRE(w);
    REQUIRE(nnef::storage::write_tensor_file((dir / "w.dat").string(), **w.value));
    return dir;
}

TEST_SUITE("tools") {

TEST_CASE("nnef-run and nnef-info on a quantized corpus model") {
    NNEF_REQUIRE_CORPUS();
    const fs::path model = nnef_test::corpus_dir() / "quantized" / "shufflenet_v2_x1_0_int8";
    const fs::path ref = model / "reference";
    auto r = run_tool("nnef-run", q(model) + " --input " + q(ref / "input.dat") + " --compare " + q(ref) +
                                      " --rtol 1e-3 --dump variable1");
    CHECK_MESSAGE(r.code == 0, r.err);
    CHECK(has(r.out, ": match"));
    // the first filter dequantized: |w| <= 127 * scale (0.03125 here), not raw codes up to 127
    CHECK_MESSAGE(has(r.out, "tensor variable1: scalar[1000,1024] min -0.03124998 max 0.03124998"), r.out);
    // --no-quant: float computation; differs from the quantized reference by more than 1e-3
    auto f = run_tool("nnef-run", q(model) + " --no-quant --input " + q(ref / "input.dat") + " --compare " + q(ref) +
                                      " --rtol 1e-3");
    CHECK(f.code == 1);
    CHECK(has(f.out, "MISMATCH"));
    auto i = run_tool("nnef-info", q(model));
    CHECK(i.code == 0);
    CHECK_MESSAGE(has(i.out, "quantized parameters (stored / as float32):\n  qint8, zero_point_linear_quantize: "), i.out);
    CHECK(has(i.out, "bytes as float32"));
}

TEST_CASE("nnef-run --quant-like nnef-tools reproduces NNEF-Tools' output of squeezenet1_0_int8") {
    NNEF_REQUIRE_CORPUS();
    const fs::path model = nnef_test::corpus_dir() / "quantized" / "squeezenet1_0_int8";
    const fs::path ref = model / "reference";
    auto r = run_tool("nnef-run", q(model) + " --quant-like nnef-tools --input " + q(ref / "input.dat") + " --compare " + q(ref));
    CHECK_MESSAGE(r.code == 0, r.err);
    CHECK_MESSAGE(has(r.out, "relative L2 error 0: match"), r.out);
    // the spec's reading (the input rounded to its grid too) differs by about one quantum in places
    auto s = run_tool("nnef-run", q(model) + " --input " + q(ref / "input.dat") + " --compare " + q(ref));
    CHECK(s.code == 1);
    CHECK(has(s.out, "MISMATCH"));
}

TEST_CASE("nnef-run: a graph.quant that cannot apply is a data error at its line") {
    const fs::path dir = add_model(
        "quant-scale-zero",
        "\"y\": zero_point_linear_quantize(zero_point = 0, scale = 0.5, bits = 8, signed = true, symmetric = false);\n"
        "\"w\": zero_point_linear_quantize(zero_point = 0, scale = 0.0, bits = 8, signed = true, symmetric = false);\n");
    auto r = run_tool("nnef-run", q(dir) + " --input x=random:1");
    CHECK(r.code == 1);
    CHECK_MESSAGE(has(r.err, "graph.quant:2:1: error[data]: quantization of 'w' (zero_point_linear_quantize): scale is 0"), r.err);
    CHECK(r.out.empty());  // nothing ran
    // with a usable scale: w dequantized ((3, -4) * 0.25), y rounded to its grid of 0.5
    nnef_test::write_scratch("quant-scale-zero/graph.quant",
                             "\"y\": zero_point_linear_quantize(zero_point = 0, scale = 0.5, bits = 8, signed = true, symmetric = false);\n"
                             "\"w\": zero_point_linear_quantize(zero_point = 0, scale = 0.25, bits = 8, signed = true, symmetric = false);\n");
    auto x = nnef::storage::make_float_tensor({1, 2}, std::vector<float>{0.5f, 0.25f});
    REQUIRE(x);
    REQUIRE(nnef::storage::write_tensor_file((dir / "x.dat").string(), **x.value));
    auto ok = run_tool("nnef-run", q(dir) + " --input x=" + q(dir / "x.dat") + " --dump w");
    CHECK_MESSAGE(ok.code == 0, ok.err);
    // y = (0.5 + 0.75, 0.25 - 1) = (1.25, -0.75) -> round(2.5) = 3, round(-1.5) = -1 -> (1.5, -0.5)
    CHECK_MESSAGE(has(ok.out, "output y: scalar[1,2] min -0.5 max 1.5 mean 0.5"), ok.out);
    CHECK(has(ok.out, "tensor w: scalar[1,2] min -1 max 0.75"));
    auto nq = run_tool("nnef-run", q(dir) + " --no-quant --input x=" + q(dir / "x.dat"));
    CHECK_MESSAGE(has(nq.out, "output y: scalar[1,2] min -0.75 max 1.25 mean 0.25"), nq.out);
}

TEST_CASE("nnef-run --quant-like nnef-tools: graph inputs kept, ties to even") {
    const fs::path dir = add_model(
        "quant-like",
        "\"x\": zero_point_linear_quantize(zero_point = 0, scale = 0.5, bits = 8, signed = true, symmetric = false);\n"
        "\"y\": zero_point_linear_quantize(zero_point = 0, scale = 0.5, bits = 8, signed = true, symmetric = false);\n"
        "\"w\": zero_point_linear_quantize(zero_point = 0, scale = 0.25, bits = 8, signed = true, symmetric = false);\n");
    auto x = nnef::storage::make_float_tensor({1, 2}, std::vector<float>{0.5f, 0.25f});
    REQUIRE(x);
    REQUIRE(nnef::storage::write_tensor_file((dir / "x.dat").string(), **x.value));
    // the spec's reading: x rounded to its grid first ((0.5, 0.25) -> round(1, 0.5) = (1, 1) -> (0.5, 0.5)),
    // y = (1.25, -0.5) -> round(2.5, -1) = (3, -1) -> (1.5, -0.5)
    auto spec = run_tool("nnef-run", q(dir) + " --input x=" + q(dir / "x.dat"));
    CHECK_MESSAGE(spec.code == 0, spec.err);
    CHECK_MESSAGE(has(spec.out, "output y: scalar[1,2] min -0.5 max 1.5 mean 0.5"), spec.out);
    // as NNEF-Tools: x kept, y = (1.25, -0.75) -> round(2.5, -1.5) to even = (2, -2) -> (1, -1)
    auto like = run_tool("nnef-run", q(dir) + " --quant-like nnef-tools --input x=" + q(dir / "x.dat"));
    CHECK_MESSAGE(like.code == 0, like.err);
    CHECK_MESSAGE(has(like.out, "output y: scalar[1,2] min -1 max 1 mean 0"), like.out);
    auto bad = run_tool("nnef-run", q(dir) + " --quant-like pytorch --input x=" + q(dir / "x.dat"));
    CHECK(bad.code == 2);
    CHECK_MESSAGE(has(bad.err, "--quant-like takes 'nnef-tools', not 'pytorch'"), bad.err);
    auto both = run_tool("nnef-run", q(dir) + " --quant-like nnef-tools --no-quant --input x=" + q(dir / "x.dat"));
    CHECK(both.code == 2);
}

}  // TEST_SUITE

}  // namespace quantized_tools_test
