// Every resource limit (nnef::Limits, FlattenOptions::max_archive_*) through nnef::Session: a
// document that loads with the defaults is refused, with an error that names the limit, once the
// limit is set just below what it needs.
#include <doctest/doctest.h>
#include <unistd.h>

#include <nnef/nnef.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>

#include "common/scratch.hpp"
#include "test_support.hpp"

namespace limits_test {

namespace fs = std::filesystem;

const std::string kOps =
    "version 1.0;\nextension KHR_enable_fragment_definitions, KHR_enable_operator_expressions;\n";

// A graph with input x = external(shape = X_SHAPE) and the given body lines, then output y.
std::string graph(const std::string& fragments, const std::string& body, const std::string& x_shape = "[2, 3]") {
    return kOps + fragments + "graph G( x ) -> ( y )\n{\n    x = external(shape = " + x_shape + ");\n" + body + "}\n";
}

struct Outcome {
    bool ok = false;
    std::string errors;  // every error, rendered without source lines
    std::size_t error_count = 0;
    bool limit_reached = false;
};

Outcome load(const std::string& text, const std::function<void(nnef::FlattenOptions&)>& lower = {}) {
    nnef::FlattenOptions fo;
    if (lower) lower(fo);
    nnef::Session s(fo);
    Outcome o;
    o.ok = s.load_text("limits.nnef", text);
    for (const nnef::Diagnostic& d : s.diagnostics())
        if (d.severity == nnef::Severity::error) o.errors += nnef::render(d, s.sources(), false);
    o.error_count = s.diagnostics().error_count();
    o.limit_reached = s.diagnostics().limit_reached();
    return o;
}

// Loads with the defaults (must succeed), then with one limit lowered (must fail naming it).
void check_limit(const std::string& text, const std::string& limit, const std::function<void(nnef::Limits&)>& lower) {
    CAPTURE(limit);
    const Outcome fine = load(text);
    CHECK_MESSAGE(fine.ok, fine.errors);
    const Outcome refused = load(text, [&](nnef::FlattenOptions& fo) { lower(fo.options.limits); });
    CHECK_FALSE(refused.ok);
    CHECK_MESSAGE(refused.errors.find(limit) != std::string::npos, refused.errors);
}

fs::path scratch() {
    return nnef_test::process_scratch("nnef-limits-test");
}

}  // namespace limits_test

TEST_SUITE("frontend") {
    TEST_CASE("every limit, when exceeded, is an error that names it") {
        namespace lt = limits_test;
        SUBCASE("max_nesting: parenthesized expressions") {
            lt::check_limit(lt::graph("", "    y = ((((((((((x))))))))));\n"), "max_nesting",
                            [](nnef::Limits& l) { l.max_nesting = 8; });
        }
        SUBCASE("max_recursion: fragment call depth") {
            lt::check_limit(lt::graph("fragment f( x: tensor<scalar>, n: integer ) -> ( y: tensor<scalar> )\n"
                                      "{\n    y = x if n == 0 else f(x, n = n - 1);\n}\n",
                                      "    y = f(x, n = 10);\n"),
                            "max_recursion", [](nnef::Limits& l) { l.max_recursion = 5; });
        }
        SUBCASE("max_operations: operations of the flat graph") {
            std::string body = "    a0 = relu(x);\n";
            for (int i = 1; i < 12; ++i) body += "    a" + std::to_string(i) + " = relu(a" + std::to_string(i - 1) + ");\n";
            body += "    y = copy(a11);\n";
            lt::check_limit(lt::graph("", body), "max_operations", [](nnef::Limits& l) { l.max_operations = 10; });
            // So do the `copy` operations that graph identifiers bound to an existing tensor become:
            // external, copy, then the second copy is over the limit.
            lt::check_limit(lt::graph("fragment f( x: tensor<scalar> ) -> ( a: tensor<scalar>, b: tensor<scalar> )\n"
                                      "{\n    a = x;\n    b = x;\n}\n",
                                      "    (a, b) = f(x);\n    y = add(a, b);\n"),
                            "max_operations", [](nnef::Limits& l) { l.max_operations = 2; });
        }
        SUBCASE("max_expansions: fragment bodies expanded") {
            lt::check_limit(lt::graph("fragment f( n: integer ) -> ( a: integer )\n"
                                      "{\n    a = 1 if n == 0 else f(n = n - 1) + f(n = n - 1);\n}\n",
                                      "    y = mul(x, scalar(f(n = 4)));\n"),
                            "max_expansions", [](nnef::Limits& l) { l.max_expansions = 20; });
        }
        SUBCASE("max_work: work of expansion beyond the text") {
            // Each graph statement adds 1024 units to the budget (2 here). 511 expansions of a
            // small body: some 511 x (32 + 4) units.
            const std::string tree = lt::graph("fragment f( n: integer ) -> ( a: integer )\n"
                                               "{\n    a = 1 if n == 0 else f(n = n - 1) + f(n = n - 1);\n}\n",
                                               "    y = mul(x, scalar(f(n = 8)));\n");
            lt::check_limit(tree, "max_work", [](nnef::Limits& l) { l.max_work = 500; });
            // Operations made in a fragment: 128 each (and 2 per call level), 100 of them.
            lt::check_limit(lt::graph("fragment f( x: tensor<scalar>, n: integer ) -> ( y: tensor<scalar> )\n"
                                      "{\n    y = f(relu(x), n = n - 1) if n > 0 else x;\n}\n",
                                      "    y = f(x, n = 100);\n"),
                            "max_work", [](nnef::Limits& l) { l.max_work = 50 * 128; });
            // Items of arrays built, even when discarded: 64k items built, one kept.
            lt::check_limit(lt::graph("fragment f( n: integer ) -> ( a: integer )\n"
                                      "{\n    a = length_of([0] * 65536) - 65535;\n}\n",
                                      "    y = mul(x, scalar(f(n = 1)));\n"),
                            "max_work", [](nnef::Limits& l) { l.max_work = 60000; });
            // The graph statements' own text is free.
            nnef::Limits few;
            CHECK(few.max_work == 16'000'000);
            const auto zero = lt::load(lt::graph("", "    y = relu(x);\n"), [](nnef::FlattenOptions& fo) { fo.options.limits.max_work = 0; });
            CHECK_MESSAGE(zero.ok, zero.errors);
        }
        SUBCASE("max_value_items: compile-time values") {
            lt::check_limit(lt::graph("fragment grow( n: integer ) -> ( a: integer[] )\n"
                                      "{\n    a = [1] if n == 0 else grow(n = n - 1) + grow(n = n - 1);\n}\n",
                                      "    y = mul(x, scalar(length_of(grow(n = 8))));\n"),
                            "max_value_items", [](nnef::Limits& l) { l.max_value_items = 100; });
        }
        SUBCASE("max_string_length: literals, identifiers and computed strings") {
            const std::string long_label = std::string(40, 'w');
            lt::check_limit(lt::graph("", "    w = variable(shape = [2, 3], label = '" + long_label + "');\n    y = add(x, w);\n"),
                            "max_string_length", [](nnef::Limits& l) { l.max_string_length = 16; });
            const std::string long_name = std::string(40, 'a');
            lt::check_limit(lt::graph("", "    " + long_name + " = relu(x);\n    y = copy(" + long_name + ");\n"),
                            "max_string_length", [](nnef::Limits& l) { l.max_string_length = 16; });
            lt::check_limit(lt::graph("fragment twice( s: string ) -> ( t: string )\n{\n    t = s + s + s + s;\n}\n",
                                      "    w = variable(shape = [2, 3], label = twice(s = 'abcdefgh'));\n    y = add(x, w);\n"),
                            "max_string_length", [](nnef::Limits& l) { l.max_string_length = 16; });
        }
        SUBCASE("max_rank: tensors of the graph") {
            lt::check_limit(lt::graph("", "    y = relu(x);\n", "[1, 1, 1, 1, 2, 3]"), "max_rank",
                            [](nnef::Limits& l) { l.max_rank = 4; });
            // Also a rank that an operation produces from smaller inputs.
            lt::check_limit(lt::graph("", "    y = unsqueeze(x, axes = [0, 1, 2]);\n"), "max_rank",
                            [](nnef::Limits& l) { l.max_rank = 4; });
        }
        SUBCASE("max_rank: the default accepts ranks beyond a tensor file's 8") {
            // The spec limits rank only in tensor files (chapter 5); a rank-9 or rank-20 constant
            // is valid NNEF and loads with the default limits.
            const auto nine = lt::load(lt::graph("", "    c = constant(shape = [1, 1, 1, 1, 1, 1, 1, 2, 3], value = [1.0]);\n"
                                                     "    y = add(x, c);\n"));
            CHECK_MESSAGE(nine.ok, nine.errors);
            const auto twenty = lt::load(lt::graph("", "    y = unsqueeze(x, axes = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, "
                                                       "13, 14, 15, 16, 17]);\n"));
            CHECK_MESSAGE(twenty.ok, twenty.errors);
            CHECK(nnef::Limits{}.max_rank == 64);
            // A rank beyond the default is refused, naming the limit.
            std::string axes;
            for (int i = 0; i < 63; ++i) axes += (i ? ", " : "") + std::to_string(i);
            const auto beyond = lt::load(lt::graph("", "    y = unsqueeze(x, axes = [" + axes + "]);\n"));
            CHECK_FALSE(beyond.ok);
            CHECK_MESSAGE(beyond.errors.find("rank 65, more than the limit max_rank = 64") != std::string::npos, beyond.errors);
        }
        SUBCASE("max_volume: tensors of the graph") {
            lt::check_limit(lt::graph("", "    y = relu(x);\n", "[100, 100]"), "max_volume",
                            [](nnef::Limits& l) { l.max_volume = 1000; });
            lt::check_limit(lt::graph("", "    y = tile(x, repeats = [100, 10]);\n"), "max_volume",
                            [](nnef::Limits& l) { l.max_volume = 1000; });
            // A volume beyond 64 bits is an error too (not an overflow).
            const auto huge = lt::load(lt::graph("", "    y = relu(x);\n", "[4294967296, 4294967296, 4]"));
            CHECK_FALSE(huge.ok);
            CHECK_MESSAGE(huge.errors.find("overflows") != std::string::npos, huge.errors);
        }
        SUBCASE("max_errors: independent errors reported") {
            std::string body;
            for (int i = 0; i < 10; ++i) body += "    a" + std::to_string(i) + " = relu(undefined" + std::to_string(i) + ");\n";
            body += "    y = copy(x);\n";
            const auto all = lt::load(lt::graph("", body));
            CHECK(all.error_count == 10);
            CHECK_FALSE(all.limit_reached);
            const auto capped = lt::load(lt::graph("", body), [](nnef::FlattenOptions& fo) { fo.options.limits.max_errors = 3; });
            CHECK(capped.error_count == 3);
            CHECK(capped.limit_reached);
        }
    }

    TEST_CASE("archive limits through Session::load_path name the limit") {
        namespace lt = limits_test;
        const lt::fs::path model = lt::scratch() / "model";
        lt::fs::create_directories(model);
        {
            std::ofstream(model / "graph.nnef") << "version 1.0;\ngraph G( x ) -> ( y )\n{\n    x = external(shape = [2, 3]);\n"
                                                   "    y = relu(x);\n}\n";
            std::ofstream(model / "notes.txt") << std::string(4096, 'n');
            std::ofstream(model / "more.txt") << "m";
        }
        const lt::fs::path tgz = lt::scratch() / "model.tgz";
        REQUIRE(std::system(("tar -C '" + model.string() + "' -czf '" + tgz.string() + "' graph.nnef notes.txt more.txt").c_str()) == 0);
        auto load = [&](const std::function<void(nnef::FlattenOptions&)>& lower) {
            nnef::FlattenOptions fo;
            if (lower) lower(fo);
            nnef::Session s(fo);
            std::string errors;
            const bool ok = s.load_path(tgz.string());
            for (const nnef::Diagnostic& d : s.diagnostics())
                if (d.severity == nnef::Severity::error) errors += nnef::render(d, s.sources(), false);
            return std::make_pair(ok, errors);
        };
        CHECK(load({}).first);
        const auto members = load([](nnef::FlattenOptions& fo) { fo.max_archive_members = 2; });
        CHECK_FALSE(members.first);
        CHECK_MESSAGE(members.second.find("max_members (2)") != std::string::npos, members.second);
        const auto bytes = load([](nnef::FlattenOptions& fo) { fo.max_archive_bytes = 1024; });
        CHECK_FALSE(bytes.first);
        CHECK_MESSAGE(bytes.second.find("max_total_bytes (1024") != std::string::npos, bytes.second);
    }
}
