// End-to-end tests of `nnef-run --via tosa --profile pro-int`: the quantized model lowered in
// integers (PRO-INT) and run by the TOSA interpreter from the command line. On the corpus's int8
// models its output codes are nnef-run --float64's (as tests/unit/tosa/integer64_test.cpp finds in
// the library), written as codes with --output-codes or as their reals; a PRO-INT FILE.mlir takes
// and gives codes; --profile means what it means in nnef-to-tosa and nnef-to-vpu, and says so
// when it does not apply.
#include <doctest/doctest.h>

#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include <nnef/nnef.hpp>

#include "lowering/tosa/from_nnef.hpp"
#include "storage/tensor_file.hpp"
#include "tool_runner.hpp"

namespace run_pro_int_test {

namespace fs = std::filesystem;
using nnef_test::contains;
using nnef_test::fresh_scratch;
using nnef_test::quoted;
using nnef_test::run_tool;


// The items of the one tensor file in `dir`, its element kind and bits.
struct File {
    std::vector<double> items;
    nnef::ElementKind kind = nnef::ElementKind::float32;
    unsigned bits = 0;
};
File only_file(const fs::path& dir) {
    std::vector<fs::path> files;
    for (const auto& e : fs::directory_iterator(dir)) files.push_back(e.path());
    REQUIRE(files.size() == 1);
    auto t = nnef::storage::read_tensor_file(files[0].string());
    REQUIRE(t);
    return File{(*t.value)->to_doubles(), (*t.value)->kind, (*t.value)->bits};
}

std::size_t differing(const std::vector<double>& a, const std::vector<double>& b) {
    REQUIRE(a.size() == b.size());
    std::size_t n = 0;
    for (std::size_t i = 0; i < a.size(); ++i) n += a[i] != b[i];
    return n;
}

TEST_SUITE("tools") {

TEST_CASE("nnef-run --via tosa --profile pro-int: the corpus's int8 models give nnef-run --float64's codes and values") {
    NNEF_RELEASE_PASS_ONLY("the same lowering and interpreter run on these models under the sanitizers in nnef-run FILE.mlir at PRO-INT (the CLI path) and in the tosa integer tests");
    NNEF_REQUIRE_CORPUS();
    for (const std::string name : {"squeezenet1_0_int8", "shufflenet_v2_x1_0_int8"}) {
        CAPTURE(name);
        const fs::path m = nnef_test::corpus_file("quantized/" + name);
        const std::string in = " --input " + quoted(m / "reference" / "input.dat");
        const fs::path int_codes = fresh_scratch("pro-int-codes-" + name), f64_codes = fresh_scratch("pro-int-f64codes-" + name);
        auto a = run_tool("nnef-run", quoted(m) + in + " --via tosa --profile pro-int --output-codes --output-dir " + quoted(int_codes));
        INFO(a.err);
        REQUIRE(a.code == 0);
        auto b = run_tool("nnef-run", quoted(m) + in + " --float64 --output-codes --output-dir " + quoted(f64_codes));
        INFO(b.err);
        REQUIRE(b.code == 0);
        const File got = only_file(int_codes), want = only_file(f64_codes);
        CHECK(got.kind == nnef::ElementKind::signed_int);
        CHECK(got.bits == 8);
        CHECK(want.kind == nnef::ElementKind::signed_int);
        const std::size_t off = differing(got.items, want.items);
        MESSAGE(name << ": " << off << " of " << got.items.size() << " output codes differ from nnef-run --float64's");
        CHECK(off == 0);
        CHECK(std::set<double>(got.items.begin(), got.items.end()).size() > 10);  // the output is not one code
    }
    // values (ShuffleNet, the quicker): the reals of those codes, compared with nnef-run --float64's
    // reals in quanta, none off
    const fs::path m = nnef_test::corpus_file("quantized/shufflenet_v2_x1_0_int8");
    const std::string in = " --input " + quoted(m / "reference" / "input.dat");
    const fs::path int_reals = fresh_scratch("pro-int-reals"), f64_reals = fresh_scratch("pro-int-f64reals");
    auto r = run_tool("nnef-run", quoted(m) + in + " --float64 --output-dir " + quoted(f64_reals));
    REQUIRE(r.code == 0);
    auto v = run_tool("nnef-run", quoted(m) + in + " --via tosa --profile pro-int --max-quanta-off 0 --max-share-off 0 --output-dir " +
                                      quoted(int_reals) + " --compare " + quoted(f64_reals));
    INFO(v.err);
    CHECK(v.code == 0);
    CHECK(contains(v.out, "max 0 quanta off"));
    CHECK(only_file(int_reals).kind == nnef::ElementKind::float32);
    // another input: the same comparison fails (ShuffleNet's output hardly moves with its input: at
    // most one quantum here, so the bound of none off is what tells them apart)
    auto w = run_tool("nnef-run", quoted(m) + " --input random:3 --via tosa --profile pro-int --max-quanta-off 0 --max-share-off 0 --compare " +
                                      quoted(f64_reals));
    CHECK(w.code == 1);
    CHECK(contains(w.err, "error[compare]"));
}

TEST_CASE("nnef-run FILE.mlir at PRO-INT: integer codes in, codes out, as the model's run gives them") {
    NNEF_REQUIRE_CORPUS();
    const fs::path m = nnef_test::corpus_file("quantized/shufflenet_v2_x1_0_int8");
    const fs::path mlir = nnef_test::scratch_dir() / "pro-int-shufflenet.mlir";
    auto t = run_tool("nnef-to-tosa", quoted(m) + " --profile pro-int -o " + quoted(mlir));
    INFO(t.err);
    REQUIRE(t.code == 0);
    // the input's i8 codes on its graph.quant grid
    nnef::Session session;
    REQUIRE(session.load_path(m.string()));
    const nnef::Graph& g = *session.graph();
    const auto codes = nnef::tosa::integer_codes(g, g.inputs.at(0));
    REQUIRE(codes.has_value());
    auto x = nnef::storage::read_tensor_file((m / "reference" / "input.dat").string());
    REQUIRE(x);
    const auto items = nnef::tosa::codes_of(*codes, (*x.value)->shape, (*x.value)->to_doubles());
    REQUIRE(items.has_value());
    auto file = nnef::storage::make_integer_tensor((*x.value)->shape, *items, 8, true);
    REQUIRE(file);
    const fs::path input = nnef_test::scratch_dir() / "pro-int-input-codes.dat";
    REQUIRE(nnef::storage::write_tensor_file(input.string(), **file.value));
    const fs::path from_mlir = fresh_scratch("pro-int-mlir-out"), from_model = fresh_scratch("pro-int-model-out");
    auto r = run_tool("nnef-run", quoted(mlir) + " --input " + quoted(input) + " --output-codes --output-dir " + quoted(from_mlir));
    INFO(r.err);
    REQUIRE(r.code == 0);
    CHECK(contains(r.err, "--output-codes: FILE.mlir has no graph.quant; its outputs are written as the TOSA graph computes them"));
    auto s = run_tool("nnef-run", quoted(m) + " --input " + quoted(m / "reference" / "input.dat") +
                                      " --via tosa --profile pro-int --output-codes --output-dir " + quoted(from_model));
    REQUIRE(s.code == 0);
    const File a = only_file(from_mlir), b = only_file(from_model);
    CHECK(a.kind == nnef::ElementKind::signed_int);
    CHECK(differing(a.items, b.items) == 0);
    // --profile overrides the file's: PRO-FP has no i8 tensors
    auto fp = run_tool("nnef-run", quoted(mlir) + " --input " + quoted(input) + " --profile pro-fp");
    CHECK(fp.code != 0);
}

TEST_CASE("nnef-run --profile: applies with --via tosa or FILE.mlir, pro-int to a quantized model on its grids") {
    NNEF_REQUIRE_CORPUS();
    const fs::path m = nnef_test::corpus_file("quantized/shufflenet_v2_x1_0_int8");
    const std::string in = " --input " + quoted(m / "reference" / "input.dat");
    auto no_via = run_tool("nnef-run", quoted(m) + in + " --profile pro-int");
    CHECK(no_via.code == 2);
    CHECK(contains(no_via.err, "--profile pro-int says how --via tosa lowers the model; it applies with --via tosa or FILE.mlir"));
    auto nq = run_tool("nnef-run", quoted(m) + in + " --via tosa --profile pro-int --no-quant");
    CHECK(nq.code == 2);
    CHECK(contains(nq.err, "--profile pro-int computes on the graph.quant grids; it does not combine with --no-quant"));
    auto bad = run_tool("nnef-run", quoted(m) + in + " --via tosa --profile int8");
    CHECK(bad.code == 2);
    CHECK(contains(bad.err, "--profile takes 'pro-fp' or 'pro-int', not 'int8'"));
    auto fp = run_tool("nnef-run", quoted(nnef_test::sample_dir("classifier")) + " --random-weights 1 --input image=random:7 --via tosa --profile pro-int");
    CHECK(fp.code == 1);
    CHECK(contains(fp.err, "has no quantization (no graph.quant entry, no quantize fragment): PRO-INT has no floating-point operators"));
}

}  // TEST_SUITE

}  // namespace run_pro_int_test
