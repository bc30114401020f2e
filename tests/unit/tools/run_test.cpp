// End-to-end tests of nnef-run: the real binary on the samples and the real models of the corpus
// (reference outputs, --random-weights on graph-only models), --output-dir / --dump / --compare
// and their exit codes, --cycles with variables, and bad inputs with their diagnostics.
#include <doctest/doctest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "storage/tensor_file.hpp"
#include "tool_runner.hpp"
#include "unit/storage/mini_json.hpp"

namespace run_test {

namespace fs = std::filesystem;
using nnef_test::run_tool;
using nnef_test::shell_quote;

std::string q(const fs::path& p) { return shell_quote(p.string()); }
bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }
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

std::vector<double> read_tensor(const fs::path& p, std::vector<std::int64_t>& shape) {
    auto t = nnef::storage::read_tensor_file(p.string());
    REQUIRE(t);
    shape = (*t.value)->shape;
    return (*t.value)->to_doubles();
}

TEST_SUITE("tools") {

TEST_CASE("nnef-run on the samples with random weights") {
    SUBCASE("classifier: softmax probabilities") {
        auto r = run_tool("nnef-run", q(sample("classifier")) + " --random-weights 1 --input image=random:7");
        INFO(r.err);
        CHECK(r.code == 0);
        CHECK(has(r.out, "output probabilities: scalar[1,10] min "));
        auto j = run_tool("nnef-run", q(sample("classifier")) + " --random-weights 1 --input image=random:7 --format json");
        mini_json::Value v;
        REQUIRE_NOTHROW(v = mini_json::Parser(j.out).parse());
        const mini_json::Value& t = v["tensors"].items.at(0);
        CHECK(t["name"].text == "probabilities");
        CHECK(t["output"].boolean);
        CHECK(t["dtype"].text == "scalar");
        CHECK(t["mean"].number() == doctest::Approx(0.1).epsilon(1e-6));  // ten probabilities sum to 1
        CHECK(t["min"].number() > 0.0);
    }
    SUBCASE("composite (fragments expanded), quantized (quantization compounds)") {
        auto c = run_tool("nnef-run", q(sample("composite")) + " --random-weights 2 --input random:1");
        INFO(c.err);
        CHECK(c.code == 0);
        CHECK(has(c.out, "output scores: scalar[1,10] min "));
        auto z = run_tool("nnef-run", q(sample("quantized").parent_path()) + " --random-weights 3 --input input=random:2");
        INFO(z.err);
        CHECK(z.code == 0);
        CHECK(has(z.out, "output output: scalar[1,4] min "));
    }
    SUBCASE("the same seeds give the same output, other seeds another") {
        const std::string base = q(sample("classifier")) + " --input image=random:7 --format json --random-weights ";
        auto a = run_tool("nnef-run", base + "1"), b = run_tool("nnef-run", base + "1"), c = run_tool("nnef-run", base + "2");
        CHECK(a.code == 0);
        CHECK(a.out == b.out);
        CHECK(a.out != c.out);
    }
    SUBCASE("recurrent: --cycles carries the variable") {
        const std::string base = q(sample("recurrent")) + " --random-weights 4 --input x=random:3 --dump h_next --cycles ";
        auto one = run_tool("nnef-run", base + "1"), three = run_tool("nnef-run", base + "3");
        CHECK(one.code == 0);
        CHECK(three.code == 0);
        CHECK(has(one.out, "output y: scalar[1,3] min "));
        CHECK(has(one.out, "tensor h_next: scalar[1,8] min "));
        CHECK(one.out != three.out);  // the state differs after three cycles
    }
}

TEST_CASE("nnef-run --output-dir, --dump and --compare") {
    const fs::path out = fresh("run-out"), other = fresh("run-other");
    const std::string base = q(sample("classifier")) + " --input image=random:7 --random-weights ";
    auto r = run_tool("nnef-run", base + "1 --output-dir " + q(out) + " --dump relu1,pooled");
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
    CHECK(has(r.out, "tensor relu1: scalar[1,16,32,32] min 0 max "));

    SUBCASE("same run: match, exit 0") {
        auto c = run_tool("nnef-run", base + "1 --compare " + q(out));
        INFO(c.err);
        CHECK(c.code == 0);
        CHECK(has(c.out, "compare probabilities with "));
        CHECK(has(c.out, "max abs error 0, max relative error 0"));
        CHECK(has(c.out, ": match\n"));
    }
    SUBCASE("other weights: mismatch, exit 1; a loose tolerance accepts it") {
        auto c = run_tool("nnef-run", base + "2 --compare " + q(out));
        CHECK(c.code == 1);
        CHECK(has(c.out, ": MISMATCH\n"));
        CHECK(has(c.err, "nnef-run: error: output differs from the reference (tolerance: max|out - ref| <= 0 + 0.0001 * max|ref|)"));
        auto loose = run_tool("nnef-run", base + "2 --compare " + q(out) + " --rtol 10");
        CHECK(loose.code == 0);
        CHECK(has(loose.out, ": match\n"));
        auto json = run_tool("nnef-run", base + "2 --compare " + q(out) + " --format json");
        CHECK(json.code == 1);
        mini_json::Value v;
        REQUIRE_NOTHROW(v = mini_json::Parser(json.out).parse());
        CHECK(v["graph"].text == "classifier");
        CHECK_FALSE(v["compare"]["match"].boolean);
        CHECK(v["compare"]["outputs"].items.at(0)["max_rel_error"].number() > 1e-4);
        CHECK(v["tensors"].items.at(0)["shape"].items.size() == 2);
    }
    SUBCASE("reference missing or of another shape") {
        fs::create_directories(other);
        auto missing = run_tool("nnef-run", base + "1 --compare " + q(other));
        CHECK(missing.code == 2);
        CHECK(has(missing.err, "probabilities.dat"));
        write_tensor(other / "probabilities.dat", {1, 5}, {0, 0, 0, 0, 0});
        auto wrong = run_tool("nnef-run", base + "1 --compare " + q(other));
        CHECK(wrong.code == 1);
        CHECK(has(wrong.err, "reference shape [1,5] does not match output 'probabilities' [1,10]"));
    }
}

TEST_CASE("nnef-run bad inputs") {
    const std::string model = q(sample("classifier"));
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
                      "bad --input 'image=random:x' (random:SEED needs a non-negative integer)"},
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
            CHECK(has(r.err, std::string("nnef-run: error: ") + c.message));
        }
    }
    SUBCASE("input files") {
        auto missing = run_tool("nnef-run", model + " --random-weights 1 --input image=" + q(fresh("none.dat")));
        CHECK(missing.code == 2);
        CHECK(has(missing.err, "none.dat"));
        const fs::path small = fresh("small.dat");
        write_tensor(small, {1, 3}, {1, 2, 3});
        auto shape = run_tool("nnef-run", model + " --random-weights 1 --input image=" + q(small));
        CHECK(shape.code == 1);
        CHECK(has(shape.err, "the value given for input 'image' has shape [1,3]; the graph declares [1,3,32,32]"));
        const fs::path corrupt = nnef_test::write_scratch("corrupt.dat", std::string(200, 'x'));
        auto bad = run_tool("nnef-run", model + " --random-weights 1 --input image=" + q(corrupt));
        CHECK(bad.code == 1);
        CHECK(has(bad.err, "error[data]"));
    }
    SUBCASE("weights") {
        // a bare graph.nnef has no tensor files: its variables need --random-weights
        auto r = run_tool("nnef-run", model + " --input image=random:1");
        CHECK(r.code == 1);
        CHECK(has(r.err, "error[data]: variable 'conv1_filter' (label 'conv1/filter') has no tensor data (load the model "
                         "with its weights, or use random weights)"));
        auto j = run_tool("nnef-run", model + " --input image=random:1 --format json");
        CHECK(j.code == 1);
        mini_json::Value v;
        REQUIRE_NOTHROW(v = mini_json::Parser(j.err).parse());
        REQUIRE(v.items.size() == 6);  // one per variable
        CHECK(v.items[0]["code"].text == "missing-weights");
        CHECK(v.items[0]["stage"].text == "data");
        CHECK(v.items[0]["line"].text == "9");
    }
    SUBCASE("help") {
        auto h = run_tool("nnef-run", "--help");
        CHECK(h.code == 0);
        CHECK(has(h.out, "--input NAME=FILE.dat"));
        CHECK(has(h.out, "--compare DIR"));
        CHECK(has(h.out, "--random-weights SEED"));
    }
}

TEST_CASE("nnef-run on real models") {
    NNEF_REQUIRE_CORPUS();
    const fs::path real = nnef_test::corpus_dir() / "real";
    SUBCASE("reference outputs") {
        for (const char* name : {"squeezenet1_0", "mobilenet_v2", "shufflenet_v2_x1_0"}) {
            CAPTURE(name);
            const fs::path m = real / name;
            auto r = run_tool("nnef-run", q(m) + " --input " + q(m / "reference" / "input.dat") + " --compare " +
                                              q(m / "reference") + " --format json");
            INFO(r.err);
            CHECK(r.code == 0);
            mini_json::Value v;
            REQUIRE_NOTHROW(v = mini_json::Parser(r.out).parse());
            CHECK(v["compare"]["match"].boolean);
            CHECK(v["compare"]["outputs"].items.at(0)["max_rel_error"].number() <= 1e-4);
        }
    }
    SUBCASE("graph-only models with random weights") {
        auto r = run_tool("nnef-run", q(real / "resnet18") + " --random-weights 1 --input random:1");
        INFO(r.err);
        CHECK(r.code == 0);
        CHECK(has(r.out, "output linear1: scalar[1,1000] min "));
        // without them the model does not load (its tensor files are missing)
        auto w = run_tool("nnef-run", q(real / "resnet18") + " --input random:1");
        CHECK(w.code == 1);
    }
    SUBCASE("a custom operation has no kernel") {
        auto r = run_tool("nnef-run", q(real / "gru_small_mirror") + " --input random:1");
        CHECK(r.code == 1);
        CHECK(has(r.err, "error[data]: no kernel for operation 'GRU_v1' (a custom operation)"));
    }
}

}  // TEST_SUITE

}  // namespace run_test
