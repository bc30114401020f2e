// graph.quant: every check of storage::apply_quantization with the exact stage, code and position
// of its diagnostic, and the quantization attached to the graph's tensors.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "grammar/parse.hpp"
#include "semantics/checker.hpp"
#include "semantics/expander.hpp"
#include "semantics/stdlib.hpp"
#include "storage/quant_file.hpp"
#include "test_support.hpp"

namespace quant_file_test {

// The conformance corpus's quantization graph: an external, a variable labelled 'conv/w', a
// constant, an activation and the output.
const char* const conv_graph =
    "version 1.0;\n"
    "graph Q( input ) -> ( output )\n"
    "{\n"
    "    input = external(shape = [1, 3, 8, 8]);\n"
    "    w = variable(shape = [4, 3, 3, 3], label = 'conv/w');\n"
    "    b = constant(shape = [1, 4], value = [0.0]);\n"
    "    c = conv(input, w, b);\n"
    "    output = relu(c);\n"
    "}\n";

// A graph with document fragments usable (or not) as quantization algorithms, a logical tensor and
// a compound that is expanded (its internal tensors are not exported).
const char* const fragment_graph =
    "version 1.0;\n"
    "extension KHR_enable_fragment_definitions;\n"
    "fragment my_quant( x: tensor<scalar>, bits: integer, scale: scalar = 0.5, mode: string = 'near' )\n"
    "-> ( y: tensor<scalar> ) { y = copy(x); }\n"
    "fragment not_quant( x: tensor<scalar>[], n: integer ) -> ( y: tensor<scalar> ) { y = add_n(x); }\n"
    "fragment gen_quant<?>( x: tensor<?>, bits: integer ) -> ( y: tensor<?> ) { y = copy(x); }\n"
    "fragment wrap( x: tensor<scalar> ) -> ( y: tensor<scalar> ) { t = copy(x); y = copy(t); }\n"
    "graph G( input ) -> ( output, mask )\n"
    "{\n"
    "    input = external(shape = [2]);\n"
    "    mask = gt(input, input);\n"
    "    output = wrap(input);\n"
    "}\n";

struct Loaded {
    nnef::SourceManager sm;
    nnef::Diagnostics diags;
    nnef::Options options;
    std::shared_ptr<const nnef::sema::Stdlib> stdlib;
    std::optional<nnef::ast::Document> doc;
    nnef::sema::Program program;
    nnef::Graph graph;
    std::uint32_t quant_file = 0;

    Loaded(const std::string& graph_text, bool strict) {
        options.strict = strict;
        stdlib = nnef::sema::load_stdlib(sm, strict, diags);
        nnef::grammar::ParseOptions po;
        po.options = options;
        doc = nnef::grammar::parse(sm, sm.add("graph.nnef", graph_text), po, diags);
        REQUIRE(doc);
        program = nnef::sema::check(*doc, stdlib, options, diags);
        nnef::sema::ExpandOptions xo;
        xo.options = options;
        graph = nnef::sema::expand(program, xo, diags).graph;
        std::string rendered;
        for (const auto& d : diags) rendered += nnef::render(d, sm, false) + "\n";
        INFO(rendered);
        REQUIRE_FALSE(diags.has_errors());
    }

    bool apply(const std::string& quant_text) {
        quant_file = sm.add("graph.quant", quant_text);
        return nnef::storage::apply_quantization(graph, program, nullptr, sm, quant_file, options, diags);
    }

    const nnef::Diagnostic* error() const {
        for (const auto& d : diags)
            if (d.severity == nnef::Severity::error) return &d;
        return nullptr;
    }
    // "line:col stage code: message" of the first error (which must be in graph.quant).
    std::string first_error() const {
        const nnef::Diagnostic* d = error();
        if (!d) return {};
        if (d->range.file != quant_file) return "not in graph.quant: " + d->message;
        nnef::LineCol lc = sm.begin(d->range);
        return std::to_string(lc.line) + ":" + std::to_string(lc.col) + " " + nnef::to_string(d->stage) + " " + d->code +
               ": " + d->message;
    }
    std::string quantization(const std::string& tensor) const {
        const nnef::Tensor* t = graph.tensor(tensor);
        if (!t) return "<no tensor>";
        if (!t->quantization) return "<none>";
        std::string out = t->quantization->algorithm + "(";
        for (std::size_t i = 0; i < t->quantization->arguments.size(); ++i) {
            if (i) out += ", ";
            out += t->quantization->arguments[i].first + " = " + nnef::to_string(t->quantization->arguments[i].second);
        }
        return out + ")";
    }
};

std::unique_ptr<Loaded> load(const char* graph_text = conv_graph, bool strict = false) {
    return std::make_unique<Loaded>(graph_text, strict);
}

}  // namespace quant_file_test

TEST_SUITE("storage") {
    TEST_CASE("graph.quant: accepted files attach their quantization") {
        namespace qt = quant_file_test;

        SUBCASE("every exported tensor, arguments in declaration order") {
            auto m = qt::load();
            REQUIRE(m->apply(
                "# activations and parameters\n"
                "\"input\": linear_quantize(min = 0.0, max = 1.0, bits = 8);\n"
                "\"w\": linear_quantize(bits = 8, max = 1.0, min = -1.0);\n"
                "\n"
                "'b': logarithmic_quantize(max = 2.0, bits = 4);\n"
                "'c': linear_quantize(min = -4.0, max = 4.0, bits = 16);  # comment\n"));
            CHECK(m->diags.empty());
            CHECK(m->quantization("input") == "linear_quantize(min = 0.0, max = 1.0, bits = 8)");
            CHECK(m->quantization("w") == "linear_quantize(min = -1.0, max = 1.0, bits = 8)");
            CHECK(m->quantization("b") == "logarithmic_quantize(max = 2.0, bits = 4)");
            CHECK(m->quantization("c") == "linear_quantize(min = -4.0, max = 4.0, bits = 16)");
            CHECK(m->quantization("output") == "<none>");
        }

        SUBCASE("an empty file changes nothing") {
            auto m = qt::load();
            CHECK(m->apply("# nothing\n"));
            CHECK(m->quantization("input") == "<none>");
        }

        SUBCASE("compile-time expressions as values") {
            auto m = qt::load();
            REQUIRE(m->apply(
                "\"input\": linear_quantize(min = -(1.0), max = 2.0 * 0.5 + 0.25, bits = 2 ^ 3 ^ 1);\n"
                "\"c\": linear_quantize(min = 0.0 if 1 < 2 && !false else -1.0, max = scalar(3), "
                "bits = length_of([for i in range_of('abcd') if i != 2 yield i * 2]));\n"
                "\"output\": linear_quantize(min = [0.5, 1.0][1] - 1.0, max = 1.0, bits = integer(7.9) + ([3, 4, 5][1:])[0] - 4);\n"));
            CHECK(m->quantization("input") == "linear_quantize(min = -1.0, max = 1.25, bits = 8)");
            CHECK(m->quantization("c") == "linear_quantize(min = 0.0, max = 3.0, bits = 3)");
            CHECK(m->quantization("output") == "linear_quantize(min = 0.0, max = 1.0, bits = 7)");
        }

        SUBCASE("later-revision algorithms in the default dialect") {
            auto m = qt::load();
            REQUIRE(m->apply(
                "\"input\": min_max_linear_quantize(min = 0.0, max = 1.0, bits = 8, signed = false, symmetric = false);\n"
                "\"c\": zero_point_linear_quantize(zero_point = 3, scale = 0.25, bits = 8, signed = true, symmetric = true);\n"));
            CHECK(m->quantization("input") ==
                  "min_max_linear_quantize(min = 0.0, max = 1.0, bits = 8, signed = false, symmetric = false)");
            CHECK(m->quantization("c") ==
                  "zero_point_linear_quantize(zero_point = 3, scale = 0.25, bits = 8, signed = true, symmetric = true)");
        }

        SUBCASE("document fragments: defaults fill the rest, generic bound by the tensor") {
            auto m = qt::load(qt::fragment_graph);
            REQUIRE(m->apply(
                "\"input\": my_quant(bits = 4);\n"
                "\"output\": my_quant(mode = 'far', bits = 2, scale = 0.125);\n"
                "\"mask\": gen_quant(bits = 1);\n"));
            CHECK(m->quantization("input") == "my_quant(bits = 4, scale = 0.5, mode = 'near')");
            CHECK(m->quantization("output") == "my_quant(bits = 2, scale = 0.125, mode = 'far')");
            CHECK(m->quantization("mask") == "gen_quant(bits = 1)");
        }
    }

    TEST_CASE("graph.quant: rejected files, with stage and position") {
        namespace qt = quant_file_test;
        struct Case {
            const char* quant;
            const char* error;
        };

        SUBCASE("tensor ids") {
            const Case cases[] = {
                {"\"conv/w\": linear_quantize(min = -1.0, max = 1.0, bits = 8);",
                 "1:1 semantic variable-label: 'conv/w' is the label of variable 'w': the quantization file names "
                 "tensors by their identifier in the graph (spec 5.3)"},
                {"\"input\": linear_quantize(min = 0.0, max = 1.0, bits = 8);\n"
                 "\"hidden\": linear_quantize(min = 0.0, max = 1.0, bits = 8);",
                 "2:1 semantic unknown-tensor: 'hidden' does not name a tensor of graph 'Q'"},
                {"\"c\": linear_quantize(min = 0.0, max = 1.0, bits = 8);\n"
                 "  'c': linear_quantize(min = 0.0, max = 2.0, bits = 8);",
                 "2:3 semantic duplicate-tensor: tensor 'c' is listed twice in the quantization file"},
            };
            for (const Case& c : cases) {
                CAPTURE(c.quant);
                auto m = qt::load();
                CHECK_FALSE(m->apply(c.quant));
                CHECK(m->first_error() == c.error);
                CHECK(m->quantization("input") == "<none>");  // nothing is attached
                CHECK(m->quantization("c") == "<none>");
            }
        }

        SUBCASE("tensors made by expanding a compound are not exported") {
            auto m = qt::load(qt::fragment_graph);
            std::string internal;
            for (const nnef::Tensor& t : m->graph.tensors)
                if (t.name != "input" && t.name != "mask" && t.name != "output") internal = t.name;
            REQUIRE_FALSE(internal.empty());
            CHECK_FALSE(m->apply("'" + internal + "': my_quant(bits = 8);"));
            CHECK(m->first_error() == "1:1 semantic unknown-tensor: '" + internal +
                                          "' is not an exported tensor of graph 'G' (only identifiers assigned in the "
                                          "graph body can be quantized)");
        }

        SUBCASE("the duplicate points at the first listing") {
            auto m = qt::load();
            CHECK_FALSE(m->apply("'c': linear_quantize(min = 0.0, max = 1.0, bits = 8);\n'c': linear_quantize(min = 0.0, max = 1.0, bits = 8);\n"));
            REQUIRE(m->error());
            REQUIRE(m->error()->notes.size() == 1);
            CHECK(m->sm.begin(m->error()->notes[0].range).line == 1);
        }

        SUBCASE("algorithms") {
            const Case cases[] = {
                {"\"input\": fancy_quantize(bits = 8);",
                 "1:10 semantic unknown-algorithm: quantization algorithm 'fancy_quantize' is not a declared operation"},
                {"\"input\": relu(x = 1.0);",
                 "1:10 semantic not-a-quantization: 'relu' is not a quantization algorithm (expected linear_quantize or "
                 "logarithmic_quantize, min_max_linear_quantize, zero_point_linear_quantize, or a fragment of the document)"},
                {"\"input\": linear_quantize<scalar>(min = 0.0, max = 1.0, bits = 8);",
                 "1:26 semantic not-generic: 'linear_quantize' is not generic: it takes no <scalar>"},
            };
            for (const Case& c : cases) {
                CAPTURE(c.quant);
                auto m = qt::load();
                CHECK_FALSE(m->apply(c.quant));
                CHECK(m->first_error() == c.error);
            }
        }

        SUBCASE("later-revision algorithms with --strict") {
            auto m = qt::load(qt::conv_graph, true);
            CHECK_FALSE(m->apply("\n\"input\": min_max_linear_quantize(min = 0.0, max = 1.0, bits = 8, signed = false, symmetric = false);"));
            CHECK(m->first_error() ==
                  "2:10 semantic unknown-algorithm: quantization algorithm 'min_max_linear_quantize' is a later-revision "
                  "operation (not allowed with --strict)");
            auto ok = qt::load(qt::conv_graph, true);
            CHECK(ok->apply("\"input\": linear_quantize(min = 0.0, max = 1.0, bits = 8);"));
        }

        SUBCASE("document fragments") {
            const Case cases[] = {
                {"\"input\": not_quant(n = 1);",
                 "1:10 semantic not-a-quantization: fragment 'not_quant' is not a quantization algorithm: its first "
                 "parameter must be a tensor"},
                {"\"mask\": my_quant(bits = 8);",
                 "1:1 semantic tensor-type: tensor 'mask' is tensor<logical>, but 'my_quant' quantizes tensor<scalar>"},
                {"\"t\": my_quant(bits = 8);",
                 "1:1 semantic unknown-tensor: 't' does not name a tensor of graph 'G'"},
                {"\"input\": my_quant(bits = 8, scale = 1);",
                 "1:29 semantic argument-type: argument 'scale' of 'my_quant' must be scalar, got integer (there is no "
                 "implicit integer to scalar conversion: write a decimal point)"},
            };
            for (const Case& c : cases) {
                CAPTURE(c.quant);
                auto m = qt::load(qt::fragment_graph);
                CHECK_FALSE(m->apply(c.quant));
                CHECK(m->first_error() == c.error);
            }
        }

        SUBCASE("arguments") {
            const Case cases[] = {
                {"\"input\": linear_quantize(min = 0.0, max = 1.0);",
                 "1:10 semantic missing-argument: missing argument 'bits' of 'linear_quantize': every parameter but the "
                 "quantized tensor must be given (spec 5.3)"},
                {"\"input\": linear_quantize(x = 1.0, min = 0.0, max = 1.0, bits = 8);",
                 "1:26 semantic tensor-argument: 'x' is the quantized tensor of 'linear_quantize' and must not be given: "
                 "it is the tensor named before the ':' (spec 5.3)"},
                {"\"input\": linear_quantize(0.0, max = 1.0, bits = 8);",
                 "1:26 semantic positional-argument: positional argument to 'linear_quantize': quantization parameters "
                 "must be given by name (spec 5.3)"},
                {"\"input\": linear_quantize(min = 0.0, max = 1.0, bits = 8, bias = 1);",
                 "1:58 semantic unknown-parameter: 'linear_quantize' has no parameter 'bias'"},
                {"\"input\": linear_quantize(min = 0.0, max = 1.0, bits = 8, min = 0.5);",
                 "1:58 semantic duplicate-argument: argument 'min' is given twice"},
                {"\"input\": linear_quantize(min = 0.0, max = 1.0, bits = 8.0);",
                 "1:48 semantic argument-type: argument 'bits' of 'linear_quantize' must be integer, got scalar"},
                {"\"input\": linear_quantize(min = 0, max = 1.0, bits = 8);",
                 "1:26 semantic argument-type: argument 'min' of 'linear_quantize' must be tensor<scalar>, got integer "
                 "(there is no implicit integer to scalar conversion: write a decimal point)"},
                // per-channel arrays are of the tensor's item type (storage/quantization.hpp)
                {"\"input\": linear_quantize(min = [0], max = 1.0, bits = 8);",
                 "1:26 semantic argument-type: argument 'min' of 'linear_quantize' must be tensor<scalar>, got integer[]"},
                {"\"input\": linear_quantize(min = 'a', max = 1.0, bits = 8);",
                 "1:26 semantic argument-type: argument 'min' of 'linear_quantize' must be tensor<scalar>, got string"},
            };
            for (const Case& c : cases) {
                CAPTURE(c.quant);
                auto m = qt::load();
                CHECK_FALSE(m->apply(c.quant));
                CHECK(m->first_error() == c.error);
            }
        }

        SUBCASE("values are compile-time expressions") {
            const Case cases[] = {
                {"\"c\": linear_quantize(min = input, max = 4.0, bits = 8);",
                 "1:28 semantic tensor-id-argument: identifier 'input' in a quantization argument: arguments are "
                 "compile-time expressions, no tensor ids (spec 5.3)"},
                {"\"c\": linear_quantize(min = 0.0, max = max_reduce(input, axes = [0]), bits = 8);",
                 "1:39 semantic invocation-argument: invocation of 'max_reduce' is not a compile-time value (quantization "
                 "arguments are compile-time expressions, spec 5.3)"},
                {"\"c\": linear_quantize(min = 0.0, max = 1.0, bits = 1 + 1.0);",
                 "1:51 semantic operand-type: operator '+' cannot be applied to integer and scalar"},
                {"\"c\": linear_quantize(min = 0.0, max = 1.0, bits = [1, 2.0][0]);",
                 "1:51 semantic array-item-types: array items have no common type (integer and scalar)"},
                {"\"c\": linear_quantize(min = 0.0, max = 1.0, bits = 8 if true else 8.0);",
                 "1:51 semantic branch-types: if-else branches have no common type (integer and scalar)"},
                {"\"c\": linear_quantize(min = 0.0, max = 1.0, bits = 8 if 1 else 4);",
                 "1:56 semantic condition-not-logical: if-else condition is integer, not logical"},
                {"\"c\": linear_quantize(min = 0.0, max = 1.0, bits = 8 / 0);",
                 "1:51 shape division-by-zero: integer division by zero"},
                {"\"c\": linear_quantize(min = 0.0, max = 1.0, bits = [8][1]);",
                 "1:51 shape index-out-of-range: index 1 is out of range for length 1"},
                {"\"c\": linear_quantize(min = 0.0, max = 1.0, bits = 2 ^ 64);",
                 "1:51 shape integer-overflow: integer overflow in '^'"},
                {"\"c\": linear_quantize(min = 0.0, max = 1.0, bits = 2 ^ -1);",
                 "1:51 shape negative-exponent: integer power with the negative exponent -1"},
            };
            for (const Case& c : cases) {
                CAPTURE(c.quant);
                auto m = qt::load();
                CHECK_FALSE(m->apply(c.quant));
                CHECK(m->first_error() == c.error);
            }
        }

        SUBCASE("an unused branch's value errors do not count, its type errors do") {
            auto m = qt::load();
            CHECK(m->apply("\"c\": linear_quantize(min = 0.0, max = 1.0, bits = 8 if true else 1 / 0);"));
            CHECK(m->quantization("c") == "linear_quantize(min = 0.0, max = 1.0, bits = 8)");
            auto n = qt::load();
            CHECK_FALSE(n->apply("\"c\": linear_quantize(min = 0.0, max = 1.0, bits = 8 if true else w);"));
            CHECK(n->error()->code == "tensor-id-argument");
        }

        SUBCASE("independent errors are all reported") {
            auto m = qt::load();
            CHECK_FALSE(m->apply(
                "\"hidden\": linear_quantize(min = 0.0, max = 1.0, bits = 8);\n"
                "\"input\": linear_quantize(min = 0, max = 1.0);\n"
                "\"c\": fancy(bits = 8);\n"));
            std::vector<std::string> codes;
            for (const auto& d : m->diags) codes.push_back(d.code);
            CHECK(codes == std::vector<std::string>{"unknown-tensor", "missing-argument", "argument-type", "unknown-algorithm"});
        }

        SUBCASE("syntax errors come from the grammar") {
            auto m = qt::load();
            CHECK_FALSE(m->apply("\"input\": linear_quantize(min = 0.0, max = 1.0, bits = 8);\ninput: linear_quantize(bits = 8);"));
            CHECK(m->first_error() ==
                  "2:1 syntax expected-token: expected tensor identifier (a string in quotes), found identifier 'input'");
            CHECK(m->quantization("input") == "<none>");
        }
    }
}

namespace quant_file_test {

// The `# expect:` verdict and stage and the `# where: graph.quant:LINE` line of a corpus case.
struct Expectation {
    bool accept = true;
    std::string stage;
    int line = 0;
};

Expectation read_header(const std::string& graph_text) {
    Expectation x;
    std::istringstream in(graph_text);
    std::string line;
    while (std::getline(in, line) && line.rfind('#', 0) == 0) {
        std::istringstream ss(line.substr(1));
        std::string key;
        ss >> key;
        if (key == "expect:") {
            std::string verdict;
            ss >> verdict >> x.stage;
            x.accept = verdict == "accept";
        } else if (key == "where:") {
            std::string where;
            ss >> where;
            auto colon = where.find(':');
            if (colon != std::string::npos) x.line = std::atoi(where.c_str() + colon + 1);
        }
    }
    return x;
}

}  // namespace quant_file_test

TEST_SUITE("storage") {
    TEST_CASE("graph.quant: conformance corpus through apply_quantization") {
        NNEF_REQUIRE_CORPUS();
        namespace qt = quant_file_test;
        namespace fs = std::filesystem;
        std::vector<fs::path> cases;
        for (const auto& e : fs::directory_iterator(nnef_test::corpus_dir() / "conformance" / "quant"))
            if (e.is_directory()) cases.push_back(e.path());
        std::sort(cases.begin(), cases.end());
        REQUIRE_FALSE(cases.empty());
        int passed = 0, failed = 0;
        for (const fs::path& dir : cases) {
            CAPTURE(dir.filename().string());
            std::string graph_text = nnef_test::read_text(dir / "graph.nnef");
            qt::Expectation x = qt::read_header(graph_text);
            auto m = std::make_unique<qt::Loaded>(graph_text, true);
            bool ok = m->apply(nnef_test::read_text(dir / "graph.quant"));
            std::string problem;
            const nnef::Diagnostic* d = m->error();
            if (x.accept && !ok) {
                problem = "rejected: " + m->first_error();
            } else if (!x.accept && ok) {
                problem = "accepted, expected reject " + x.stage;
            } else if (!x.accept) {
                int line = d && d->range.file == m->quant_file ? static_cast<int>(m->sm.begin(d->range).line) : 0;
                if (!d || nnef::to_string(d->stage) != x.stage || line != x.line)
                    problem = "expected " + x.stage + " at graph.quant:" + std::to_string(x.line) + ", got " + m->first_error();
            }
            CHECK_MESSAGE(problem.empty(), problem);
            if (problem.empty())
                ++passed;
            else
                ++failed;
        }
        MESSAGE("graph.quant corpus: " << passed << " passed, " << failed << " failed");
        CHECK(failed == 0);
    }
}
