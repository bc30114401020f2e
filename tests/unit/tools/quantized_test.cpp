// End-to-end tests of quantized models (graph.quant): nnef-run simulates the entries and
// dequantizes stored int8 codes (matching NNEF-Tools' output on the corpus model), --no-quant runs
// in float, --quant-like nnef-tools reproduces NNEF-Tools' interpreter (inputs kept, ties to even),
// a graph.quant whose parameters cannot apply is a data-stage error at its line before anything
// runs, and nnef-info reports the quantized parameters as stored and as float32.
#include <doctest/doctest.h>

#include <filesystem>
#include <string>

#include "exec/executor.hpp"
#include "storage/tensor_file.hpp"
#include "tool_runner.hpp"

namespace quantized_tools_test {

namespace fs = std::filesystem;
using nnef_test::quoted;
using nnef_test::contains;
using nnef_test::run_tool;
using nnef_test::shell_quote;


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
    auto r = run_tool("nnef-run", quoted(model) + " --input " + quoted(ref / "input.dat") + " --compare " + quoted(ref) +
                                      " --rtol 1e-3 --dump variable1");
    CHECK_MESSAGE(r.code == 0, r.err);
    CHECK(contains(r.out, ": match"));
    // the first filter dequantized: |w| <= 127 * scale (0.03125 here), not raw codes up to 127
    CHECK_MESSAGE(contains(r.out, "tensor variable1: scalar[1000,1024] min -0.03124998 max 0.03124998"), r.out);
    // --no-quant: float computation; differs from the quantized reference by more than 1e-3
    auto f = run_tool("nnef-run", quoted(model) + " --no-quant --input " + quoted(ref / "input.dat") + " --compare " + quoted(ref) +
                                      " --rtol 1e-3");
    CHECK(f.code == 1);
    CHECK(contains(f.out, "MISMATCH"));
    auto i = run_tool("nnef-info", quoted(model));
    CHECK(i.code == 0);
    CHECK_MESSAGE(contains(i.out, "quantized parameters (stored / as float32):\n  qint8, zero_point_linear_quantize: "), i.out);
    CHECK(contains(i.out, "bytes as float32"));
}

TEST_CASE("nnef-run --quant-like nnef-tools reproduces NNEF-Tools' output of squeezenet1_0_int8") {
    NNEF_REQUIRE_CORPUS();
    const fs::path model = nnef_test::corpus_dir() / "quantized" / "squeezenet1_0_int8";
    const fs::path ref = model / "reference";
    auto r = run_tool("nnef-run", quoted(model) + " --quant-like nnef-tools --input " + quoted(ref / "input.dat") + " --compare " + quoted(ref));
    CHECK_MESSAGE(r.code == 0, r.err);
    CHECK_MESSAGE(contains(r.out, "relative L2 error 0: match"), r.out);
    // the spec's reading (the input rounded to its grid too) differs by rounding flips: one or two
    // quanta on some items, which the comparison on the output's grid accepts by default (at most 2
    // quanta off, at most 2% of the items more than one), and not when told to allow only 1%
    auto s = run_tool("nnef-run", quoted(model) + " --input " + quoted(ref / "input.dat") + " --compare " + quoted(ref));
    CHECK_MESSAGE(s.code == 0, s.err);
    CHECK_MESSAGE(contains(s.out, "max 2 quanta off (quantum 0.003467553), 11 of 1000 items (1.1%) more than one quantum off, "), s.out);
    CHECK(contains(s.out, ": match"));
    auto strict = run_tool("nnef-run", quoted(model) + " --input " + quoted(ref / "input.dat") + " --compare " + quoted(ref) + " --max-share-off 0.01");
    CHECK(strict.code == 1);
    CHECK(contains(strict.out, "MISMATCH"));
    CHECK(contains(strict.err, "nnef-run: error[compare]: output 'reshape1' differs from the reference (tolerance: at most 2 quanta off, "
                          "at most 0.01 of the items more than one quantum off)"));
}

TEST_CASE("quantized outputs: compared in quanta (a wrong result fails), written as reals or as codes on request") {
    NNEF_REQUIRE_CORPUS();
    const fs::path squeeze = nnef_test::corpus_dir() / "quantized" / "squeezenet1_0_int8";
    const fs::path shuffle = nnef_test::corpus_dir() / "quantized" / "shufflenet_v2_x1_0_int8";
    // another model's reference of the same shape: far off the grid's tolerance
    auto wrong = run_tool("nnef-run", quoted(squeeze) + " --input " + quoted(squeeze / "reference" / "input.dat") + " --compare " +
                                          quoted(shuffle / "reference"));
    CHECK(wrong.code == 1);
    CHECK_MESSAGE(contains(wrong.out, "909 of 1000 items (90.9%) more than one quantum off"), wrong.out);
    // --no-quant: the output is not on a grid; compared as reals
    auto nq = run_tool("nnef-run", quoted(shuffle) + " --no-quant --input " + quoted(shuffle / "reference" / "input.dat") + " --compare " +
                                       quoted(shuffle / "reference") + " --rtol 0.5");
    CHECK_FALSE(contains(nq.out, "quanta"));
    // outputs written: reals by default, the entry's int8 codes with --output-codes
    const fs::path out = nnef_test::scratch_dir() / "quant-out", codes = nnef_test::scratch_dir() / "quant-codes";
    auto reals = run_tool("nnef-run", quoted(shuffle) + " --input " + quoted(shuffle / "reference" / "input.dat") + " --output-dir " + quoted(out));
    REQUIRE(reals.code == 0);
    auto c = run_tool("nnef-run", quoted(shuffle) + " --input " + quoted(shuffle / "reference" / "input.dat") + " --output-dir " + quoted(codes) +
                                      " --output-codes");
    REQUIRE(c.code == 0);
    auto r = nnef::storage::read_tensor_file((out / "linear1.dat").string());
    auto k = nnef::storage::read_tensor_file((codes / "linear1.dat").string());
    REQUIRE(r);
    REQUIRE(k);
    CHECK((*r.value)->kind == nnef::ElementKind::float32);
    CHECK((*k.value)->kind == nnef::ElementKind::signed_int);
    CHECK((*k.value)->bits == 8);
    // the codes dequantize to the reals: (code - zero_point) * scale, the entry of linear1
    const auto rv = nnef::exec::from_tensor_data(**r.value, nnef::PrimType::scalar);
    const auto kv = nnef::exec::from_tensor_data(**k.value, nnef::PrimType::integer);
    REQUIRE(rv);
    REQUIRE(kv);
    REQUIRE(rv->volume() == kv->volume());
    double scale = 0;  // from any nonzero item
    for (std::int64_t i = 0; i < kv->volume() && scale == 0; ++i)
        if (kv->as_double(i) != 0) scale = rv->as_double(i) / kv->as_double(i);
    REQUIRE(scale > 0);
    CHECK(scale == doctest::Approx(0.0002442847).epsilon(1e-6));
    for (std::int64_t i = 0; i < kv->volume(); ++i) CHECK(rv->as_double(i) == doctest::Approx(kv->as_double(i) * scale).epsilon(1e-5));
}

TEST_CASE("nnef-to-vpu --profile pro-int --compare: dequantized outputs against the float reference, in quanta") {
    NNEF_REQUIRE_CORPUS();
    const fs::path model = nnef_test::corpus_dir() / "quantized" / "shufflenet_v2_x1_0_int8";
    const fs::path ref = model / "reference";
    // the input file holds reals: the int8 path takes their codes on the input's grid; the output's
    // codes are dequantized by its graph.quant entry before the comparison
    auto r = run_tool("nnef-to-vpu", quoted(model) + " --profile pro-int --simulate --input " + quoted(ref / "input.dat") + " --compare " + quoted(ref));
    CHECK_MESSAGE(r.code == 0, r.err);
    CHECK_MESSAGE(contains(r.out, "compare linear1 with "), r.out);
    CHECK_MESSAGE(contains(r.out, "quanta off (quantum 0.0002442847), 0 of 1000 items (0%) more than one quantum off"), r.out);
    CHECK(contains(r.out, ": match"));
}

TEST_CASE("nnef-run: a graph.quant that cannot apply is a data error at its line") {
    const fs::path dir = add_model(
        "quant-scale-zero",
        "\"y\": zero_point_linear_quantize(zero_point = 0, scale = 0.5, bits = 8, signed = true, symmetric = false);\n"
        "\"w\": zero_point_linear_quantize(zero_point = 0, scale = 0.0, bits = 8, signed = true, symmetric = false);\n");
    auto r = run_tool("nnef-run", quoted(dir) + " --input x=random:1");
    CHECK(r.code == 1);
    CHECK_MESSAGE(contains(r.err, "graph.quant:2:1: error[data]: quantization of 'w' (zero_point_linear_quantize): scale is 0"), r.err);
    CHECK(r.out.empty());  // nothing ran
    // with a usable scale: w dequantized ((3, -4) * 0.25), y rounded to its grid of 0.5
    nnef_test::write_scratch("quant-scale-zero/graph.quant",
                             "\"y\": zero_point_linear_quantize(zero_point = 0, scale = 0.5, bits = 8, signed = true, symmetric = false);\n"
                             "\"w\": zero_point_linear_quantize(zero_point = 0, scale = 0.25, bits = 8, signed = true, symmetric = false);\n");
    auto x = nnef::storage::make_float_tensor({1, 2}, std::vector<float>{0.5f, 0.25f});
    REQUIRE(x);
    REQUIRE(nnef::storage::write_tensor_file((dir / "x.dat").string(), **x.value));
    auto ok = run_tool("nnef-run", quoted(dir) + " --input x=" + quoted(dir / "x.dat") + " --dump w");
    CHECK_MESSAGE(ok.code == 0, ok.err);
    // y = (0.5 + 0.75, 0.25 - 1) = (1.25, -0.75) -> round(2.5) = 3, round(-1.5) = -1 -> (1.5, -0.5)
    CHECK_MESSAGE(contains(ok.out, "output y: scalar[1,2] min -0.5 max 1.5 mean 0.5"), ok.out);
    CHECK(contains(ok.out, "tensor w: scalar[1,2] min -1 max 0.75"));
    auto nq = run_tool("nnef-run", quoted(dir) + " --no-quant --input x=" + quoted(dir / "x.dat"));
    CHECK_MESSAGE(contains(nq.out, "output y: scalar[1,2] min -0.75 max 1.25 mean 0.25"), nq.out);
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
    auto spec = run_tool("nnef-run", quoted(dir) + " --input x=" + quoted(dir / "x.dat"));
    CHECK_MESSAGE(spec.code == 0, spec.err);
    CHECK_MESSAGE(contains(spec.out, "output y: scalar[1,2] min -0.5 max 1.5 mean 0.5"), spec.out);
    // as NNEF-Tools: x kept, y = (1.25, -0.75) -> round(2.5, -1.5) to even = (2, -2) -> (1, -1)
    auto like = run_tool("nnef-run", quoted(dir) + " --quant-like nnef-tools --input x=" + quoted(dir / "x.dat"));
    CHECK_MESSAGE(like.code == 0, like.err);
    CHECK_MESSAGE(contains(like.out, "output y: scalar[1,2] min -1 max 1 mean 0"), like.out);
    auto bad = run_tool("nnef-run", quoted(dir) + " --quant-like pytorch --input x=" + quoted(dir / "x.dat"));
    CHECK(bad.code == 2);
    CHECK_MESSAGE(contains(bad.err, "--quant-like takes 'nnef-tools', not 'pytorch'"), bad.err);
    auto both = run_tool("nnef-run", quoted(dir) + " --quant-like nnef-tools --no-quant --input x=" + quoted(dir / "x.dat"));
    CHECK(both.code == 2);
}

}  // TEST_SUITE

}  // namespace quantized_tools_test
