// End-to-end tests of nnef-validate and nnef-flatten: the real binaries on real files.
#include <doctest/doctest.h>

#include "tool_runner.hpp"

namespace {
using nnef_test::run_tool;
using nnef_test::shell_quote;

// The samples are graph-only models: loaded by their graph.nnef file (a folder would need the
// variables' tensor files).
std::string sample(const char* name) {
    return shell_quote((nnef_test::source_dir() / "samples" / name / "graph.nnef").string());
}
}  // namespace

TEST_SUITE("tools") {
    TEST_CASE("nnef-validate") {
        SUBCASE("valid sample: summary on stdout, exit 0") {
            auto r = run_tool("nnef-validate", sample("classifier"));
            CHECK(r.code == 0);
            CHECK(r.out.find("valid: graph 'classifier', 16 operations") != std::string::npos);
            CHECK(r.out.find("inputs: image scalar[1,3,32,32]; outputs: probabilities scalar[1,10]") != std::string::npos);
            CHECK(r.err.empty());
        }
        SUBCASE("several paths, --quiet") {
            auto r = run_tool("nnef-validate", "--quiet " + sample("classifier") + " " + sample("composite") + " " +
                                                   sample("recurrent") + " " + sample("quantized"));
            CHECK(r.code == 0);
            CHECK(r.out.empty());
        }
        SUBCASE("--no-fast-path: the same output and exit code through the full front end") {
            std::string text = "version 1.0;\ngraph G( x ) -> ( y )\n{\n    x = external(shape = [1, 4, 8, 8]);\n";
            std::string prev = "x";
            for (int i = 0; i < 40; ++i) {
                const std::string n = "r" + std::to_string(i);
                text += "    " + n + " = " + (i % 2 ? "relu(" : "sigmoid(") + prev + ");\n";
                prev = n;
            }
            text += "    y = max_pool(" + prev + ", size = [1, 1, 2, 2], stride = [1, 1, 2, 2]);\n}\n";
            auto good = nnef_test::write_scratch("plain/graph.nnef", text);
            auto bad = nnef_test::write_scratch("plain_bad/graph.nnef", text.substr(0, text.size() - 4) + "z);\n}\n");
            for (const auto& p : {good, bad}) {
                auto fast = run_tool("nnef-validate", shell_quote(p.string()));
                auto full = run_tool("nnef-validate", "--no-fast-path " + shell_quote(p.string()));
                CHECK(fast.code == full.code);
                CHECK(fast.out == full.out);
                CHECK(fast.err == full.err);
            }
            auto r = run_tool("nnef-validate", shell_quote(good.string()));
            CHECK(r.code == 0);
            CHECK(r.out.find("42 operations, 42 tensors; inputs: x scalar[1,4,8,8]; outputs: y scalar[1,4,4,4]") !=
                  std::string::npos);
            CHECK(run_tool("nnef-validate", shell_quote(bad.string())).code == 1);
        }
        SUBCASE("syntax error: file:line:col, caret, exit 1") {
            auto p = nnef_test::write_scratch("bad/graph.nnef",
                                              "version 1.0;\ngraph G( x ) -> ( y )\n{\n    x = external(shape = [2])\n    y = relu(x);\n}\n");
            auto r = run_tool("nnef-validate", shell_quote(p.string()));
            CHECK(r.code == 1);
            // The missing ';' belongs right after line 4's ')'; what was found instead is a note.
            CHECK(r.err.find("graph.nnef:4:30: error[syntax]: expected ';' after ')'\n") != std::string::npos);
            CHECK(r.err.find("      x = external(shape = [2])\n                               ^\n") != std::string::npos);
            CHECK(r.err.find("graph.nnef:5:5: note: found identifier 'y' here") != std::string::npos);
        }
        SUBCASE("shape error located at the invocation") {
            auto p = nnef_test::write_scratch("shape/graph.nnef",
                                              "version 1.0;\ngraph G( a, b ) -> ( c )\n{\n    a = external(shape = [4, 3]);\n"
                                              "    b = external(shape = [3]);\n    c = add(a, b);\n}\n");
            auto r = run_tool("nnef-validate", shell_quote(p.string()));
            CHECK(r.code == 1);
            CHECK(r.err.find("graph.nnef:6:9: error[shape]:") != std::string::npos);
        }
        SUBCASE("--format json") {
            auto r = run_tool("nnef-validate", "--format json " + sample("recurrent"));
            CHECK(r.code == 0);
            CHECK(r.out.find("\"valid\":true") != std::string::npos);
            CHECK(r.out.find("\"outputs\":[{\"name\":\"y\",\"dtype\":\"scalar\",\"shape\":[1,3]}]") != std::string::npos);
            auto p = nnef_test::write_scratch("json/graph.nnef", "version 1.0;\ngraph G( x ) -> ( y )\n{\n    y = relu(x);\n}\n");
            auto bad = run_tool("nnef-validate", "--format json " + shell_quote(p.string()));
            CHECK(bad.code == 1);
            CHECK(bad.out.find("\"valid\":false") != std::string::npos);
            CHECK(bad.out.find("\"stage\":\"semantic\"") != std::string::npos);
        }
        SUBCASE("--input-shape re-propagates shapes") {
            auto r = run_tool("nnef-validate", "--input-shape x=2,4 " + sample("recurrent"));
            // h_next becomes [2,8] and no longer matches the state variable [1,8].
            CHECK(r.code == 1);
            CHECK(r.err.find("error[shape]") != std::string::npos);
            auto ok = run_tool("nnef-validate", "--input-shape image=1,3,64,64 " + sample("classifier"));
            CHECK(ok.code == 0);
            CHECK(ok.out.find("image scalar[1,3,64,64]") != std::string::npos);
        }
        SUBCASE("--max-* limits end runaway compile-time evaluation with a diagnostic") {
            auto p = nnef_test::write_scratch(
                "limits/graph.nnef",
                "version 1.0;\nextension KHR_enable_fragment_definitions, KHR_enable_operator_expressions;\n"
                "fragment grow( n: integer ) -> ( a: integer[] )\n{\n    a = [1] if n == 0 else grow(n = n - 1) + grow(n = n - 1);\n}\n"
                "graph G( x ) -> ( y )\n{\n    x = external(shape = [1]);\n"
                "    y = mul(x, scalar(length_of(grow(n = 10))));\n}\n");
            CHECK(run_tool("nnef-validate", "--quiet " + shell_quote(p.string())).code == 0);
            auto items = run_tool("nnef-validate", "--max-value-items 1000 " + shell_quote(p.string()));
            CHECK(items.code == 1);
            CHECK(items.err.find("graph.nnef:5:") != std::string::npos);
            CHECK(items.err.find("max_value_items (1000)") != std::string::npos);
            auto depth = run_tool("nnef-validate", "--max-recursion 5 " + shell_quote(p.string()));
            CHECK(depth.code == 1);
            CHECK(depth.err.find("max_recursion") != std::string::npos);
            CHECK(run_tool("nnef-validate", "--max-value-items lots " + shell_quote(p.string())).code == 2);
        }
        SUBCASE("usage and I/O errors exit 2") {
            CHECK(run_tool("nnef-validate", "").code == 2);
            CHECK(run_tool("nnef-validate", "--no-such-option x").code == 2);
            auto missing = run_tool("nnef-validate", "/nonexistent/graph.nnef");
            CHECK(missing.code == 2);
            CHECK(missing.err.find("cannot open") != std::string::npos);
            CHECK(run_tool("nnef-validate", "--input-shape x=a,b y").code == 2);
        }
        SUBCASE("--help and --version") {
            auto h = run_tool("nnef-validate", "--help");
            CHECK(h.code == 0);
            CHECK(h.out.find("usage: nnef-validate") != std::string::npos);
            auto v = run_tool("nnef-validate", "--version");
            CHECK(v.code == 0);
            CHECK(v.out.find("nnef-validate") != std::string::npos);
        }
        SUBCASE("strict dialect rejects later additions that the default accepts") {
            auto p = nnef_test::write_scratch("later/graph.nnef",
                                              "version 1.0;\ngraph G( x ) -> ( y )\n{\n    x = external(shape = [2, 3]);\n"
                                              "    y = tile(x, repeats = [2, 1]);\n}\n");
            CHECK(run_tool("nnef-validate", shell_quote(p.string())).code == 0);
            auto strict = run_tool("nnef-validate", "--strict " + shell_quote(p.string()));
            CHECK(strict.code == 1);
            CHECK(strict.err.find("graph.nnef:5:9: error[semantic]") != std::string::npos);
        }
    }

    TEST_CASE("de facto forms: warning by default, error with --strict") {
        auto p = nnef_test::write_scratch("rank1bias/graph.nnef",
                                          "version 1.0;\ngraph G( x ) -> ( y )\n{\n    x = external(shape = [1, 3, 8, 8]);\n"
                                          "    w = variable(shape = [4, 3, 3, 3], label = 'w');\n"
                                          "    b = variable(shape = [4], label = 'b');\n"
                                          "    y = conv(x, w, b);\n}\n");
        auto r = run_tool("nnef-validate", shell_quote(p.string()));
        CHECK(r.code == 0);
        CHECK(r.err.find("graph.nnef:7:9: warning[shape]: conv: rank-1 'bias' [4] is read as [1,4]") != std::string::npos);
        auto strict = run_tool("nnef-validate", "--strict " + shell_quote(p.string()));
        CHECK(strict.code == 1);
        CHECK(strict.err.find("graph.nnef:7:9: error[shape]") != std::string::npos);
    }

    TEST_CASE("nnef-flatten") {
        SUBCASE("flat output re-validates and is a fixed point") {
            auto r = run_tool("nnef-flatten", sample("composite"));
            REQUIRE(r.code == 0);
            CHECK(r.out.rfind("version 1.0;\n", 0) == 0);
            CHECK(r.out.find("extension") == std::string::npos);
            CHECK(r.out.find("fragment") == std::string::npos);
            auto flat = nnef_test::write_scratch("flat/graph.nnef", r.out);
            auto v = run_tool("nnef-validate", "--strict " + shell_quote(flat.string()));
            CHECK(v.code == 0);
            CHECK(v.out.find("outputs: scores scalar[1,10]") != std::string::npos);
            auto again = run_tool("nnef-flatten", shell_quote(flat.string()));
            CHECK(again.code == 0);
            CHECK(again.out == r.out);
        }
        SUBCASE("--shapes, -o and --expand-all") {
            auto out = nnef_test::scratch_dir() / "shapes.nnef";
            auto r = run_tool("nnef-flatten", "--shapes -o " + shell_quote(out.string()) + " " + sample("classifier"));
            CHECK(r.code == 0);
            CHECK(r.out.empty());
            std::string text = nnef_test::read_text(out);
            CHECK(text.find("probabilities = softmax(logits);  # probabilities: scalar[1,10]") != std::string::npos);
            auto all = run_tool("nnef-flatten", "--expand-all " + sample("classifier"));
            CHECK(all.code == 0);
            CHECK(all.out.find("softmax(") == std::string::npos);
            CHECK(all.out.find("relu(") == std::string::npos);
            auto p = nnef_test::write_scratch("expanded/graph.nnef", all.out);
            auto v = run_tool("nnef-validate", shell_quote(p.string()));
            CHECK(v.code == 0);
            CHECK(v.out.find("outputs: probabilities scalar[1,10]") != std::string::npos);
            auto some = run_tool("nnef-flatten", "--expand softmax " + sample("classifier"));
            CHECK(some.code == 0);
            CHECK(some.out.find("softmax(") == std::string::npos);
            CHECK(some.out.find("relu(") != std::string::npos);
        }
        SUBCASE("invalid input: diagnostics, no output, exit 1") {
            auto p = nnef_test::write_scratch("inv/graph.nnef", "version 1.0;\ngraph G( x ) -> ( y )\n{\n    y = relu(x);\n}\n");
            auto r = run_tool("nnef-flatten", shell_quote(p.string()));
            CHECK(r.code == 1);
            CHECK(r.out.empty());
            CHECK(r.err.find("error[semantic]") != std::string::npos);
        }
    }

    TEST_CASE("tools on real exported models") {
        NNEF_REQUIRE_CORPUS();
        auto real = [](const char* m) { return shell_quote((nnef_test::corpus_dir() / "real" / m).string()); };
        // Graph-only models are loaded by their graph.nnef file (no tensor data to check).
        auto r = run_tool("nnef-validate", real("resnet18/graph.nnef"));
        CHECK(r.code == 0);
        CHECK(r.out.find("inputs: external1 scalar[1,3,224,224]; outputs: linear1 scalar[1,1000]") != std::string::npos);
        // A folder with weights: every variable's data is loaded and checked.
        auto weights = run_tool("nnef-validate", real("mobilenet_v2"));
        CHECK(weights.code == 0);
        CHECK(weights.out.find("; weights checked\n") != std::string::npos);
        // A folder stored graph-only: its structure is checked, and the summary says the weights were not.
        auto no_graph_data = run_tool("nnef-validate", real("resnet18"));
        CHECK(no_graph_data.code == 0);
        CHECK(no_graph_data.out.find("; weights not checked\n") != std::string::npos);
        CHECK(run_tool("nnef-validate", "--no-weights " + real("resnet18")).code == 0);
        auto custom = run_tool("nnef-validate", real("gru_small_mirror"));
        CHECK(custom.code == 0);
        auto first = custom.err.find("custom operation 'GRU_v1'");
        CHECK(first != std::string::npos);
        // Located at the first invocation: `graph.nnef:LINE:COL: warning[shape]:`.
        auto line_start = custom.err.rfind('\n', first);
        std::size_t start = line_start == std::string::npos ? 0 : line_start + 1;
        std::string head = custom.err.substr(start, first - start);
        CHECK(head.find("graph.nnef:") != std::string::npos);
        CHECK(head.find(": warning[shape]:") != std::string::npos);
        CHECK(custom.err.find("custom operation 'GRU_v1'", first + 1) == std::string::npos);
    }
}
