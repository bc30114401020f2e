// End-to-end tests of nnef-run: the real binary on the samples and the real models of the corpus
// (reference outputs, --random-weights on graph-only models), --output-dir / --dump / --compare
// and their exit codes, --cycles with variables and one input value per cycle, --float64,
// integer and logical tensor files, and bad inputs with their diagnostics.
#include <doctest/doctest.h>

#include <cmath>
#include <filesystem>
#include <string>
#include <vector>

#include "storage/tensor_file.hpp"
#include "tool_runner.hpp"
#include <nlohmann/json.hpp>

namespace run_test {

namespace fs = std::filesystem;
using nnef_test::quoted;
using nnef_test::contains;
using nnef_test::run_tool;
using nnef_test::shell_quote;

fs::path sample(const char* name) { return nnef_test::source_dir() / "samples" / name / "graph.nnef"; }
fs::path fresh(const std::string& name) {
    fs::path p = nnef_test::scratch_dir() / name;
    fs::remove_all(p);
    return p;
}

void write_tensor(const fs::path& p, const std::vector<std::int64_t>& shape, const std::vector<float>& v) {
    auto t = nnef::storage::make_float_tensor(shape, v);
    REQUIRE(t.value);
    fs::create_directories(p.parent_path());
    REQUIRE(nnef::storage::write_tensor_file(p.string(), **t.value).value);
}

void write_integers(const fs::path& p, const std::vector<std::int64_t>& shape, const std::vector<std::int64_t>& v,
                    unsigned bits, bool is_signed) {
    auto t = nnef::storage::make_integer_tensor(shape, v, bits, is_signed);
    REQUIRE(t.value);
    fs::create_directories(p.parent_path());
    REQUIRE(nnef::storage::write_tensor_file(p.string(), **t.value).value);
}

std::vector<double> read_tensor(const fs::path& p, std::vector<std::int64_t>& shape) {
    auto t = nnef::storage::read_tensor_file(p.string());
    REQUIRE(t);
    shape = (*t.value)->shape;
    return (*t.value)->to_doubles();
}
std::vector<double> read_tensor(const fs::path& p) {
    std::vector<std::int64_t> shape;
    return read_tensor(p, shape);
}
// "int 16", "uint 8", "float 32", "logical 1", ...
std::string encoding(const fs::path& p) {
    auto t = nnef::storage::read_tensor_file(p.string());
    REQUIRE(t);
    return std::string(nnef::to_string((*t.value)->kind)) + " " + std::to_string((*t.value)->bits);
}

TEST_SUITE("tools") {

TEST_CASE("nnef-run on the samples with random weights") {
    SUBCASE("classifier: softmax probabilities") {
        auto r = run_tool("nnef-run", quoted(sample("classifier")) + " --random-weights 1 --input image=random:7");
        INFO(r.err);
        CHECK(r.code == 0);
        CHECK(contains(r.out, "output probabilities: scalar[1,10] min "));
        auto j = run_tool("nnef-run", quoted(sample("classifier")) + " --random-weights 1 --input image=random:7 --format json");
        nlohmann::json v;
        REQUIRE_NOTHROW(v = nlohmann::json::parse(j.out));
        const nlohmann::json& t = v.at("tensors").at(0);
        CHECK(t.at("name") == "probabilities");
        CHECK(t.at("output").get<bool>());
        CHECK(t.at("dtype") == "scalar");
        CHECK(t.at("mean").get<double>() == doctest::Approx(0.1).epsilon(1e-6));  // ten probabilities sum to 1
        CHECK(t.at("min").get<double>() > 0.0);
    }
    SUBCASE("composite (fragments expanded), quantized (quantization compounds)") {
        auto c = run_tool("nnef-run", quoted(sample("composite")) + " --random-weights 2 --input random:1");
        INFO(c.err);
        CHECK(c.code == 0);
        CHECK(contains(c.out, "output scores: scalar[1,10] min "));
        auto z = run_tool("nnef-run", quoted(sample("quantized").parent_path()) + " --random-weights 3 --input input=random:2");
        INFO(z.err);
        CHECK(z.code == 0);
        CHECK(contains(z.out, "output output: scalar[1,4] min "));
    }
    SUBCASE("the same seeds give the same output, other seeds another") {
        const std::string base = quoted(sample("classifier")) + " --input image=random:7 --format json --random-weights ";
        auto a = run_tool("nnef-run", base + "1"), b = run_tool("nnef-run", base + "1"), c = run_tool("nnef-run", base + "2");
        CHECK(a.code == 0);
        CHECK(a.out == b.out);
        CHECK(a.out != c.out);
    }
    SUBCASE("recurrent: --cycles carries the variable") {
        const std::string base = quoted(sample("recurrent")) + " --random-weights 4 --input x=random:3 --dump h_next --cycles ";
        auto one = run_tool("nnef-run", base + "1"), three = run_tool("nnef-run", base + "3");
        CHECK(one.code == 0);
        CHECK(three.code == 0);
        CHECK(contains(one.out, "output y: scalar[1,3] min "));
        CHECK(contains(one.out, "tensor h_next: scalar[1,8] min "));
        CHECK(one.out != three.out);  // the state differs after three cycles
    }
}

TEST_CASE("nnef-run --output-dir, --dump and --compare") {
    const fs::path out = fresh("run-out"), other = fresh("run-other");
    const std::string base = quoted(sample("classifier")) + " --input image=random:7 --random-weights ";
    auto r = run_tool("nnef-run", base + "1 --output-dir " + quoted(out) + " --dump relu1,pooled");
    INFO(r.err);
    REQUIRE(r.code == 0);
    std::vector<std::int64_t> shape;
    const auto probabilities = read_tensor(out / "probabilities.dat", shape);
    CHECK(shape == std::vector<std::int64_t>{1, 10});
    double sum = 0.0;
    for (double p : probabilities) sum += p;
    CHECK(sum == doctest::Approx(1.0).epsilon(1e-5));
    read_tensor(out / "relu1.dat", shape);
    CHECK(shape == std::vector<std::int64_t>{1, 16, 32, 32});
    read_tensor(out / "pooled.dat", shape);
    CHECK(shape == std::vector<std::int64_t>{1, 32, 1, 1});
    CHECK(contains(r.out, "tensor relu1: scalar[1,16,32,32] min 0 max "));

    SUBCASE("same run: match, exit 0") {
        auto c = run_tool("nnef-run", base + "1 --compare " + quoted(out));
        INFO(c.err);
        CHECK(c.code == 0);
        CHECK(contains(c.out, "compare probabilities with "));
        CHECK(contains(c.out, "max abs error 0, max relative error 0"));
        CHECK(contains(c.out, ": match\n"));
    }
    SUBCASE("other weights: mismatch, exit 1; a loose tolerance accepts it") {
        auto c = run_tool("nnef-run", base + "2 --compare " + quoted(out));
        CHECK(c.code == 1);
        CHECK(contains(c.out, ": MISMATCH\n"));
        CHECK(contains(c.err, "nnef-run: error[compare]: output 'probabilities' differs from the reference (tolerance: max|out - ref| <= 0 + 0.0001 * max|ref|)"));
        auto loose = run_tool("nnef-run", base + "2 --compare " + quoted(out) + " --rtol 10");
        CHECK(loose.code == 0);
        CHECK(contains(loose.out, ": match\n"));
        auto json = run_tool("nnef-run", base + "2 --compare " + quoted(out) + " --format json");
        CHECK(json.code == 1);
        nlohmann::json v;
        REQUIRE_NOTHROW(v = nlohmann::json::parse(json.out));
        CHECK(v.at("graph") == "classifier");
        CHECK_FALSE(v.at("compare").at("match").get<bool>());
        CHECK(v.at("compare").at("outputs").at(0).at("max_rel_error").get<double>() > 1e-4);
        CHECK(v.at("tensors").at(0).at("shape").size() == 2);
    }
    SUBCASE("reference missing or of another shape") {
        fs::create_directories(other);
        auto missing = run_tool("nnef-run", base + "1 --compare " + quoted(other));
        CHECK(missing.code == 2);
        CHECK(contains(missing.err, "probabilities.dat"));
        write_tensor(other / "probabilities.dat", {1, 5}, {0, 0, 0, 0, 0});
        auto wrong = run_tool("nnef-run", base + "1 --compare " + quoted(other));
        CHECK(wrong.code == 1);
        CHECK(contains(wrong.err, "reference shape [1,5] does not match output 'probabilities' [1,10]"));
    }
}

TEST_CASE("nnef-run bad inputs") {
    const std::string model = quoted(sample("classifier"));
    SUBCASE("usage errors: exit 2") {
        struct Case {
            const char* args;
            const char* message;
        };
        for (const Case& c : {
                 Case{"--random-weights 1",
                      "no value for graph input 'image' scalar[1,3,32,32] (use --input image=FILE.dat or --input "
                      "image=random:SEED)"},
                 Case{"--random-weights 1 --input foo=random:1", "graph 'classifier' has no input 'foo' (inputs: image)"},
                 Case{"--random-weights 1 --input image=random:1 --input image=random:2", "input 'image' is given twice"},
                 Case{"--random-weights 1 --input image=random:x",
                      "bad --input 'image=random:x' (random:SEED and random:SEED+ need a non-negative integer)"},
                 Case{"--random-weights 1 --input image=random:1,",
                      "--input 'image=random:1,' is not NAME=FILE.dat, NAME=random:SEED or NAME=A,B,... with "
                      "one value per cycle"},
                 Case{"--random-weights 1 --input image=random:1,random:2 --cycles 3",
                      "input 'image' has 2 values (one per cycle) but --cycles is 3 (give one value for every cycle, "
                      "or as many as there are cycles)"},
                 Case{"--random-weights 1 --input image=random:1 --dump nothing",
                      "--dump: graph 'classifier' has no tensor 'nothing'"},
                 Case{"--input", "option '--input' needs a value"},
                 Case{"--input image=random:1 --cycles 0", "--cycles needs a positive integer, not '0'"},
                 Case{"--input image=random:1 --rtol x", "--rtol needs a non-negative number, not 'x'"},
                 Case{"--input image=random:1 --atol -1", "--atol needs a non-negative number, not '-1'"},
                 Case{"--input image=random:1 --threads 0", "--threads needs an integer in [1, 256], not '0'"},
                 Case{"--input image=random:1 --random-weights -3",
                      "--random-weights needs a non-negative integer seed, not '-3'"},
             }) {
            const std::string args = c.args;
            CAPTURE(args);
            auto r = run_tool("nnef-run", model + " " + args);
            CAPTURE(r.err);
            CHECK(r.code == 2);
            CHECK(contains(r.err, std::string("nnef-run: error[usage]: ") + c.message));
        }
    }
    SUBCASE("input files") {
        auto missing = run_tool("nnef-run", model + " --random-weights 1 --input image=" + quoted(fresh("none.dat")));
        CHECK(missing.code == 2);
        CHECK(contains(missing.err, "none.dat"));
        const fs::path small = fresh("small.dat");
        write_tensor(small, {1, 3}, {1, 2, 3});
        auto shape = run_tool("nnef-run", model + " --random-weights 1 --input image=" + quoted(small));
        CHECK(shape.code == 1);
        CHECK(contains(shape.err, "the value given for input 'image' has shape [1,3]; the graph declares [1,3,32,32]"));
        const fs::path corrupt = nnef_test::write_scratch("corrupt.dat", std::string(200, 'x'));
        auto bad = run_tool("nnef-run", model + " --random-weights 1 --input image=" + quoted(corrupt));
        CHECK(bad.code == 1);
        CHECK(contains(bad.err, "error[data]"));
    }
    SUBCASE("weights") {
        // a bare graph.nnef has no tensor files: its variables need --random-weights
        auto r = run_tool("nnef-run", model + " --input image=random:1");
        CHECK(r.code == 1);
        CHECK(contains(r.err, "error[data]: variable 'conv1_filter' (label 'conv1/filter') has no tensor data (load the model "
                         "with its weights, or use random weights)"));
        auto j = run_tool("nnef-run", model + " --input image=random:1 --format json");
        CHECK(j.code == 1);
        nlohmann::json v;
        REQUIRE_NOTHROW(v = nlohmann::json::parse(j.out));  // one document on stdout, the diagnostics in it
        CHECK(j.err.empty());
        v = v.at("diagnostics");
        REQUIRE(v.size() == 6);  // one per variable
        CHECK(v.at(0).at("code") == "missing-weights");
        CHECK(v.at(0).at("stage") == "data");
        CHECK(v.at(0).at("line") == 9);
    }
    SUBCASE("help") {
        auto h = run_tool("nnef-run", "--help");
        CHECK(h.code == 0);
        CHECK(contains(h.out, "--input NAME=VALUE       the value of graph input NAME: FILE.dat (a tensor file) or random:SEED"));
        CHECK(contains(h.out, "--compare DIR"));
        CHECK(contains(h.out, "--random-weights SEED"));
        CHECK(contains(h.out, "NAME=A,B,... gives one value per"));
        CHECK(contains(h.out, "random:SEED+ uses seed SEED + K - 1 in cycle K"));
        CHECK(contains(h.out, "--float64"));
        CHECK(contains(h.out, "--save-variables DIR"));
        CHECK(contains(h.out, "DIR/NAME.cycleK.dat"));
    }
}

TEST_CASE("nnef-run --cycles with one input value per cycle (the recurrent sample)") {
    // h_next = tanh(x W^T + b + h U^T), y = h_next V^T; h carries over the cycles
    const fs::path dir = fresh("run-cycles"), out = dir / "out", state = dir / "state";
    const std::vector<std::vector<float>> xs = {{1.0f, -2.0f, 0.5f, 0.0f}, {0.25f, 0.75f, -1.0f, 2.0f}, {-0.5f, 0.0f, 1.5f, -1.25f}};
    std::string list;
    for (std::size_t c = 0; c < xs.size(); ++c) {
        const fs::path f = dir / ("x" + std::to_string(c) + ".dat");
        write_tensor(f, {1, 4}, xs[c]);
        list += (c ? "," : "") + f.string();
    }
    // --cycles defaults to the number of values
    auto r = run_tool("nnef-run", quoted(sample("recurrent")) + " --random-weights 4 --input " + shell_quote("x=" + list) +
                                      " --dump h,x --output-dir " + quoted(out) + " --save-variables " + quoted(state) +
                                      " --format json");
    INFO(r.err);
    REQUIRE(r.code == 0);
    nlohmann::json v;
    REQUIRE_NOTHROW(v = nlohmann::json::parse(r.out));
    CHECK(v.at("cycles").get<double>() == 3);
    // the weights (not updated) and the initial state (h as read in cycle 1)
    const std::vector<double> W = read_tensor(state / "cell" / "W.dat"), U = read_tensor(state / "cell" / "U.dat"),
                              b = read_tensor(state / "cell" / "b.dat"), V = read_tensor(state / "out" / "V.dat");
    std::vector<double> h = read_tensor(out / "h.cycle1.dat");
    REQUIRE(W.size() == 32);
    REQUIRE(h.size() == 8);
    for (std::size_t c = 0; c < xs.size(); ++c) {
        CAPTURE(c);
        CHECK(read_tensor(out / ("x.cycle" + std::to_string(c + 1) + ".dat")) == std::vector<double>(xs[c].begin(), xs[c].end()));
        const std::vector<double> read = read_tensor(out / ("h.cycle" + std::to_string(c + 1) + ".dat"));
        REQUIRE(read.size() == 8);
        for (std::size_t j = 0; j < 8; ++j) CHECK(read[j] == doctest::Approx(h[j]).epsilon(1e-5));
        std::vector<double> next(8), y(3, 0.0);
        for (std::size_t j = 0; j < 8; ++j) {
            double s = b[j];
            for (std::size_t k = 0; k < 4; ++k) s += xs[c][k] * W[j * 4 + k];
            for (std::size_t k = 0; k < 8; ++k) s += h[k] * U[j * 8 + k];
            next[j] = std::tanh(s);
        }
        for (std::size_t i = 0; i < 3; ++i)
            for (std::size_t j = 0; j < 8; ++j) y[i] += next[j] * V[i * 8 + j];
        const std::vector<double> got = read_tensor(out / ("y.cycle" + std::to_string(c + 1) + ".dat"));
        REQUIRE(got.size() == 3);
        for (std::size_t i = 0; i < 3; ++i) CHECK(got[i] == doctest::Approx(y[i]).epsilon(1e-5));
        h = next;
    }
    // the state after the last cycle, and the last cycle's outputs as NAME.dat
    const std::vector<double> saved = read_tensor(state / "state" / "h.dat");
    REQUIRE(saved.size() == 8);
    for (std::size_t j = 0; j < 8; ++j) CHECK(saved[j] == doctest::Approx(h[j]).epsilon(1e-5));
    CHECK(read_tensor(out / "y.dat") == read_tensor(out / "y.cycle3.dat"));
    CHECK_FALSE(fs::exists(out / "y.cycle4.dat"));

    SUBCASE("random:SEED is the same in every cycle, random:SEED+ changes") {
        const fs::path same = fresh("run-random-same"), next = fresh("run-random-next");
        const std::string base = quoted(sample("recurrent")) + " --random-weights 4 --cycles 2 --dump x --output-dir ";
        REQUIRE(run_tool("nnef-run", base + quoted(same) + " --input x=random:5").code == 0);
        REQUIRE(run_tool("nnef-run", base + quoted(next) + " --input x=random:5+").code == 0);
        CHECK(read_tensor(same / "x.cycle1.dat") == read_tensor(same / "x.cycle2.dat"));
        CHECK(read_tensor(next / "x.cycle1.dat") == read_tensor(same / "x.cycle1.dat"));  // seed 5, then 6
        CHECK(read_tensor(next / "x.cycle1.dat") != read_tensor(next / "x.cycle2.dat"));
        const fs::path six = fresh("run-random-six");
        REQUIRE(run_tool("nnef-run", base + quoted(six) + " --input x=random:6").code == 0);
        CHECK(read_tensor(next / "x.cycle2.dat") == read_tensor(six / "x.cycle1.dat"));
    }
    SUBCASE("one cycle writes no per-cycle files") {
        const fs::path one = fresh("run-one-cycle");
        REQUIRE(run_tool("nnef-run", quoted(sample("recurrent")) + " --random-weights 4 --input x=random:1 --output-dir " + quoted(one)).code == 0);
        CHECK(fs::exists(one / "y.dat"));
        CHECK_FALSE(fs::exists(one / "y.cycle1.dat"));
    }
}

TEST_CASE("nnef-run --float64") {
    // (x + 1) - x and a sum of products where float32 rounding is visible: its spacing at 1e8 is 8
    const fs::path dir = fresh("run-float64");
    nnef_test::write_scratch("run-float64/graph.nnef",
                             "version 1.0;\nextension KHR_enable_operator_expressions;\n\ngraph G( x ) -> ( y, z )\n{\n"
                             "    x = external(shape = [1, 3]);\n"
                             "    w = constant(shape = [3, 1], value = [1.0]);\n"
                             "    y = sub(add(x, 1.0), x);\n"
                             "    z = matmul(x, w);\n}\n");
    write_tensor(dir / "x.dat", {1, 3}, {1e8f, 1.0f, -1e8f});
    const std::string base = quoted(dir / "graph.nnef") + " --input " + quoted(dir / "x.dat") + " --output-dir ";
    auto single = run_tool("nnef-run", base + quoted(dir / "out32"));
    INFO(single.err);
    REQUIRE(single.code == 0);
    auto dbl = run_tool("nnef-run", base + quoted(dir / "out64") + " --float64");
    INFO(dbl.err);
    REQUIRE(dbl.code == 0);
    // float32: 1e8 + 1 == 1e8; float64: the exact results, as computed here in double
    volatile double big = 1e8;
    CHECK(read_tensor(dir / "out32" / "y.dat") == std::vector<double>{0.0, 1.0, 0.0});
    CHECK(read_tensor(dir / "out64" / "y.dat") == std::vector<double>{(big + 1.0) - big, 1.0, (-big + 1.0) + big});
    CHECK(read_tensor(dir / "out32" / "z.dat") == std::vector<double>{0.0});
    CHECK(read_tensor(dir / "out64" / "z.dat") == std::vector<double>{(big + 1.0) - big});
    CHECK(encoding(dir / "out32" / "y.dat") == "float32 32");
    CHECK(encoding(dir / "out64" / "y.dat") == "float64 64");
    // the float32 results differ from the float64 ones beyond any tolerance
    auto c = run_tool("nnef-run", base + quoted(dir / "again") + " --compare " + quoted(dir / "out64"));
    CHECK(c.code == 1);
    CHECK(contains(c.out, "compare y with "));
    CHECK(contains(c.out, ": MISMATCH\n"));
}

TEST_CASE("nnef-run integer tensors at the width of their files, logical tensors as logical") {
    // i: 8-bit unsigned input file, w: 32-bit signed input file, counter: 16-bit signed variable file
    const fs::path model = fresh("run-int-model"), dir = fresh("run-int");
    nnef_test::write_scratch("run-int-model/graph.nnef",
                             "version 1.0;\n\ngraph G( i, w, p ) -> ( j, k, m, l )\n{\n"
                             "    i = external<integer>(shape = [3]);\n"
                             "    w = external<integer>(shape = [3]);\n"
                             "    p = external<logical>(shape = [3]);\n"
                             "    v = variable<integer>(shape = [3], label = 'counter');\n"
                             "    j = concat([i, v], axis = 0);\n"
                             "    n = select(p, w, v);\n"
                             "    u = update(v, n);\n"
                             "    k = copy(i);\n"
                             "    c = constant<integer>(shape = [3], value = [5]);\n"
                             "    m = copy(c);\n"
                             "    l = not(p);\n}\n");
    write_integers(model / "counter.dat", {3}, {-300, 0, 1000}, 16, true);
    write_integers(dir / "i.dat", {3}, {1, 100, 255}, 8, false);
    write_integers(dir / "w.dat", {3}, {-7, 8, 9}, 32, true);
    write_integers(dir / "big.dat", {3}, {40000, 8, 9}, 32, true);
    auto p = nnef::storage::make_logical_tensor({3}, {true, false, true}, 8);
    REQUIRE(p.value);
    REQUIRE(nnef::storage::write_tensor_file((dir / "p.dat").string(), **p.value).value);
    const std::string base = quoted(model) + " --input i=" + quoted(dir / "i.dat") + " --input p=" + quoted(dir / "p.dat") + " --input w=";
    auto r = run_tool("nnef-run", base + quoted(dir / "w.dat") + " --cycles 2 --output-dir " + quoted(dir / "out") +
                                      " --save-variables " + quoted(dir / "state"));
    INFO(r.err);
    REQUIRE(r.code == 0);
    // cycle 2 reads the state after cycle 1: select(p, w, counter)
    CHECK(read_tensor(dir / "out" / "j.dat") == std::vector<double>{1, 100, 255, -7, 0, 9});
    CHECK(encoding(dir / "out" / "j.dat") == "int 16");  // 8-bit unsigned with 16-bit signed: 16-bit signed
    CHECK(read_tensor(dir / "out" / "k.dat") == std::vector<double>{1, 100, 255});
    CHECK(encoding(dir / "out" / "k.dat") == "uint 8");
    CHECK(read_tensor(dir / "out" / "m.dat") == std::vector<double>{5, 5, 5});
    CHECK(encoding(dir / "out" / "m.dat") == "int 64");  // derives from no file
    CHECK(read_tensor(dir / "out" / "l.dat") == std::vector<double>{0, 1, 0});
    CHECK(encoding(dir / "out" / "l.dat") == "logical 1");
    CHECK(encoding(dir / "out" / "j.cycle1.dat") == "int 16");
    CHECK(read_tensor(dir / "out" / "j.cycle1.dat") == std::vector<double>{1, 100, 255, -300, 0, 1000});
    // the variable is written back at its file's width
    CHECK(read_tensor(dir / "state" / "counter.dat") == std::vector<double>{-7, 0, 9});
    CHECK(encoding(dir / "state" / "counter.dat") == "int 16");
    CHECK(contains(r.out, "output l: logical[3] min 0 max 1 "));

    SUBCASE("a value that does not fit the width is an error naming the tensor") {
        // the variable takes 40000 from the 32-bit input: it does not fit its 16 bits
        auto s = run_tool("nnef-run", base + quoted(dir / "big.dat") + " --save-variables " + quoted(dir / "over-state"));
        CHECK(s.code == 1);
        CHECK(contains(s.err, "nnef-run: error[data]: integer tensor 'v' has the value 40000 (item 0), which does not fit the "
                         "16-bit signed items of the integer tensor files it derives from"));
        // in cycle 2, j holds it too
        auto o = run_tool("nnef-run", base + quoted(dir / "big.dat") + " --cycles 2 --output-dir " + quoted(dir / "over"));
        CHECK(o.code == 1);
        CHECK(contains(o.err, "nnef-run: error[data]: integer tensor 'j' has the value 40000 (item 3), which does not fit the "
                         "16-bit signed items"));
    }
}

TEST_CASE("nnef-run on real models") {
    NNEF_REQUIRE_CORPUS();
    const fs::path real = nnef_test::corpus_dir() / "real";
    SUBCASE("reference outputs, in float32 and with --float64") {
        for (const char* precision : {"", " --float64"})
            for (const char* name : {"squeezenet1_0", "mobilenet_v2", "shufflenet_v2_x1_0"}) {
                const std::string label = std::string(name) + precision;
                CAPTURE(label);
                const fs::path m = real / name;
                auto r = run_tool("nnef-run", quoted(m) + precision + " --input " + quoted(m / "reference" / "input.dat") +
                                                  " --compare " + quoted(m / "reference") + " --format json");
                INFO(r.err);
                CHECK(r.code == 0);
                nlohmann::json v;
                REQUIRE_NOTHROW(v = nlohmann::json::parse(r.out));
                CHECK(v.at("compare").at("match").get<bool>());
                const double rel = v.at("compare").at("outputs").at(0).at("max_rel_error").get<double>();
                MESSAGE(label << ": max relative error " << rel);
                CHECK(rel <= 1e-4);
            }
    }
    SUBCASE("graph-only models with random weights") {
        auto r = run_tool("nnef-run", quoted(real / "resnet18") + " --random-weights 1 --input random:1");
        INFO(r.err);
        CHECK(r.code == 0);
        CHECK(contains(r.out, "output linear1: scalar[1,1000] min "));
        // without them the model does not load (its tensor files are missing)
        auto w = run_tool("nnef-run", quoted(real / "resnet18") + " --input random:1");
        CHECK(w.code == 1);
    }
    SUBCASE("a custom operation has no kernel") {
        auto r = run_tool("nnef-run", quoted(real / "gru_small_mirror") + " --input random:1");
        CHECK(r.code == 1);
        CHECK(contains(r.err, "error[data]: no kernel for operation 'GRU_v1' (a custom operation)"));
    }
}

}  // TEST_SUITE

}  // namespace run_test
