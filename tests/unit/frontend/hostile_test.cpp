// Acceptance: hostile text never crashes or hangs; each case gets a diagnostic through the whole
// front end (parse, check, expand).
#include <doctest/doctest.h>

#include <nnef/nnef.hpp>

#include <random>
#include <string>

#include "test_support.hpp"

namespace hostile_test {

struct Outcome {
    bool ok;
    std::string first_error;
    nnef::Stage stage = nnef::Stage::io;
};

// `limits` lets the exponential cases end sooner than with the defaults (which bound them too,
// in seconds, but minutes under the sanitizers).
Outcome run(const std::string& text, const nnef::Limits& limits = {}) {
    nnef::FlattenOptions options;
    options.options.limits = limits;
    nnef::Session s(options);
    Outcome o{s.load_text("hostile.nnef", text), {}};
    for (const auto& d : s.diagnostics())
        if (d.severity == nnef::Severity::error) {
            o.first_error = nnef::render(d, s.sources(), false);
            o.stage = d.stage;
            break;
        }
    return o;
}

const char* kOps = "version 1.0;\nextension KHR_enable_fragment_definitions;\nextension KHR_enable_operator_expressions;\n";

}  // namespace hostile_test

TEST_SUITE("frontend") {
    TEST_CASE("hostile text gets diagnostics, never a crash") {
        namespace ht = hostile_test;
        SUBCASE("100k nested parentheses") {
            std::string e = std::string(100000, '(') + "x" + std::string(100000, ')');
            auto o = ht::run(std::string(ht::kOps) + "graph G( x ) -> ( y )\n{\n    x = external(shape = [1]);\n    y = " + e + ";\n}\n");
            CHECK_FALSE(o.ok);
            CHECK(o.stage == nnef::Stage::syntax);
            CHECK(o.first_error.find("max_nesting") != std::string::npos);
        }
        SUBCASE("100k nested brackets in flat syntax") {
            std::string e = std::string(100000, '[') + "1" + std::string(100000, ']');
            auto o = ht::run("version 1.0;\ngraph G( x ) -> ( y )\n{\n    x = external(shape = " + e + ");\n    y = copy(x);\n}\n");
            CHECK_FALSE(o.ok);
            CHECK(o.first_error.find("max_nesting") != std::string::npos);
        }
        SUBCASE("100k-character identifiers") {
            std::string id(100000, 'a');
            // Valid: long names are legal and must work.
            auto ok = ht::run("version 1.0;\ngraph G( " + id + " ) -> ( y )\n{\n    " + id + " = external(shape = [1]);\n    y = relu(" +
                              id + ");\n}\n");
            CHECK(ok.ok);
            // Undefined: a semantic error that names it without echoing a huge line.
            auto bad = ht::run("version 1.0;\ngraph G( x ) -> ( y )\n{\n    x = external(shape = [1]);\n    y = relu(" + id + ");\n}\n");
            CHECK_FALSE(bad.ok);
            CHECK(bad.stage == nnef::Stage::semantic);
        }
        SUBCASE("infinitely recursive fragment") {
            auto o = ht::run(std::string(ht::kOps) +
                             "fragment f( x: tensor<scalar> ) -> ( y: tensor<scalar> )\n{\n    y = f(x);\n}\n"
                             "graph G( x ) -> ( y )\n{\n    x = external(shape = [1]);\n    y = f(x);\n}\n");
            CHECK_FALSE(o.ok);
            CHECK(o.stage == nnef::Stage::shape);
            CHECK(o.first_error.find("max_recursion") != std::string::npos);
        }
        SUBCASE("exponential compile-time values hit a limit") {
            auto o = ht::run(std::string(ht::kOps) +
                             "fragment big( n: integer ) -> ( a: integer[] )\n{\n    a = [1, 2] * 2 if n == 0 else big(n = n - 1) * 2;\n}\n"
                             "graph G( x ) -> ( y )\n{\n    x = external(shape = [1]);\n    y = constant(shape = [1], value = "
                             "[scalar(length_of(big(n = 60)))]);\n}\n");
            CHECK_FALSE(o.ok);
            CHECK(o.first_error.find("max_value_items") != std::string::npos);
        }
        SUBCASE("doubling concatenations hit a limit") {
            nnef::Limits small;
            small.max_value_items = 1 << 16;
            small.max_string_length = 1 << 16;
            auto arrays = ht::run(std::string(ht::kOps) +
                                  "fragment big( n: integer ) -> ( a: integer[] )\n{\n    a = [1] if n == 0 else big(n = n - 1) + big(n = n - 1);\n}\n"
                                  "graph G( x ) -> ( y )\n{\n    x = external(shape = [1]);\n    y = constant(shape = [1], value = "
                                  "[scalar(length_of(big(n = 40)))]);\n}\n",
                                  small);
            CHECK_FALSE(arrays.ok);
            CHECK(arrays.first_error.find("max_value_items") != std::string::npos);
            auto strings = ht::run(std::string(ht::kOps) +
                                   "fragment big( n: integer ) -> ( s: string )\n{\n    s = 'ab' if n == 0 else big(n = n - 1) + big(n = n - 1);\n}\n"
                                   "graph G( x ) -> ( y )\n{\n    x = external(shape = [1]);\n    y = constant(shape = [1], value = "
                                   "[scalar(length_of(big(n = 40)))]);\n}\n",
                                   small);
            CHECK_FALSE(strings.ok);
            CHECK(strings.first_error.find("max_string_length") != std::string::npos);
        }
        SUBCASE("branching recursion without growth hits max_expansions") {
            // 3^60 calls whose values stay small: only a bound on expansions stops it.
            nnef::Limits few;
            few.max_expansions = 100000;
            auto o = ht::run(std::string(ht::kOps) +
                             "fragment f( n: integer ) -> ( a: integer )\n{\n    a = 1 if n == 0 else f(n = n - 1) + f(n = n - 1) - f(n = n - 1);\n}\n"
                             "graph G( x ) -> ( y )\n{\n    x = external(shape = [1]);\n    y = mul(x, scalar(f(n = 60)));\n}\n",
                             few);
            CHECK_FALSE(o.ok);
            CHECK(o.stage == nnef::Stage::shape);
            CHECK(o.first_error.find("max_expansions") != std::string::npos);
        }
        SUBCASE("random bytes") {
            std::mt19937 rng(7);
            for (int i = 0; i < 50; ++i) {
                std::string bytes(1 + rng() % 2000, '\0');
                for (char& c : bytes) c = static_cast<char>(rng());
                auto o = ht::run(bytes);
                CHECK_FALSE(o.ok);
                CHECK(o.stage == nnef::Stage::syntax);
            }
        }
        SUBCASE("every truncation of a sample") {
            std::string text = nnef_test::read_text(nnef_test::source_dir() / "samples/composite/graph.nnef");
            int diagnosed = 0;
            for (std::size_t n = 0; n < text.size(); n += 7) {
                auto o = ht::run(text.substr(0, n));
                if (!o.ok) {
                    CHECK_FALSE(o.first_error.empty());
                    ++diagnosed;
                }
            }
            CHECK(diagnosed > 0);
        }
        SUBCASE("empty file and white space only") {
            for (const char* t : {"", " \n\t\v\f\r", "# only a comment\n"}) {
                auto o = ht::run(t);
                CHECK_FALSE(o.ok);
                CHECK(o.stage == nnef::Stage::syntax);
            }
        }
        SUBCASE("NUL bytes inside a document") {
            auto o = ht::run(std::string("version 1.0;\ngraph G( x ) -> ( y )\n{\n    x = ext\0ernal(shape = [1]);\n}\n", 60));
            CHECK_FALSE(o.ok);
        }
    }
}
