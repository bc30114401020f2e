// The quantization-file grammar (spec 5.3): entries, quotes, comments, argument expressions, and
// syntax errors with their positions.
#include <doctest/doctest.h>

#include <memory>
#include <string>

#include "grammar/parse.hpp"
#include "test_support.hpp"

namespace quant_grammar_test {

struct ParsedQuant {
    nnef::SourceManager sm;
    std::uint32_t file = 0;
    nnef::Diagnostics diags;
    std::optional<nnef::ast::QuantDocument> doc;

    const nnef::Diagnostic* error() const {
        for (const auto& d : diags)
            if (d.severity == nnef::Severity::error) return &d;
        return nullptr;
    }
    // "line:col code: message" of the first error, or "" if there is none.
    std::string first_error() const {
        const nnef::Diagnostic* d = error();
        if (!d) return {};
        nnef::LineCol lc = sm.begin(d->range);
        return std::to_string(lc.line) + ":" + std::to_string(lc.col) + " " + nnef::to_string(d->stage) + " " + d->code +
               ": " + d->message;
    }
    std::string text(nnef::SourceRange r) const { return std::string(sm.text(file).substr(r.begin, r.end - r.begin)); }
};

std::unique_ptr<ParsedQuant> parse(const std::string& text, std::size_t max_nesting = 512) {
    auto p = std::make_unique<ParsedQuant>();
    p->file = p->sm.add("graph.quant", text);
    nnef::grammar::ParseOptions opts;
    opts.options.limits.max_nesting = max_nesting;
    p->doc = nnef::grammar::parse_quant(p->sm, p->file, opts, p->diags);
    return p;
}

}  // namespace quant_grammar_test

TEST_SUITE("grammar") {
    TEST_CASE("quantization file") {
        namespace qt = quant_grammar_test;
        using nnef::ast::ExprKind;

        SUBCASE("entries with both quote styles, comments and blank lines") {
            auto p = qt::parse(
                "# activations\n"
                "\n"
                "\"input\": linear_quantize(min = 0.0, max = 1.0, bits = 8);   # trailing comment\n"
                "'conv/1': logarithmic_quantize(max = 4.0, bits = 5);\r\n"
                "\n");
            REQUIRE(p->doc);
            CHECK(p->diags.empty());
            REQUIRE(p->doc->entries.size() == 2);
            const auto& a = p->doc->entries[0];
            CHECK(a.tensor == "input");
            CHECK(p->text(a.tensor_range) == "\"input\"");
            CHECK(p->text(a.range) == "\"input\": linear_quantize(min = 0.0, max = 1.0, bits = 8);");
            CHECK(a.invocation.kind == ExprKind::invocation);
            CHECK(a.invocation.text == "linear_quantize");
            CHECK(p->text(a.invocation.range) == "linear_quantize(min = 0.0, max = 1.0, bits = 8)");
            REQUIRE(a.invocation.children.size() == 3);
            CHECK(a.invocation.arg_name(0) == "min");
            CHECK(a.invocation.arg_name(2) == "bits");
            CHECK(a.invocation.children[2].ival == 8);
            const auto& b = p->doc->entries[1];
            CHECK(b.tensor == "conv/1");
            CHECK(p->text(b.tensor_range) == "'conv/1'");
            CHECK(b.invocation.text == "logarithmic_quantize");
            CHECK(p->sm.begin(b.range).line == 4);
        }

        SUBCASE("empty file and comments only") {
            for (const char* text : {"", "   \n\n", "# nothing quantized\n# at all"}) {
                CAPTURE(text);
                auto p = qt::parse(text);
                REQUIRE(p->doc);
                CHECK(p->doc->entries.empty());
                CHECK(p->diags.empty());
            }
        }

        SUBCASE("argument values are expressions; positional arguments and <type> parse") {
            auto p = qt::parse(
                "\"x\": linear_quantize(min = -1.0, max = 2.0 * 0.5, bits = 2 ^ 8 - 1 if true else 4);\n"
                "\"y\": q<scalar>(x, [1, 2], (3, 'a'));\n"
                "\"z\": q();\n"
                "\"a\\'b\": q(k = x);\n");
            REQUIRE(p->doc);
            REQUIRE(p->doc->entries.size() == 4);
            const auto& x = p->doc->entries[0].invocation;
            CHECK(x.children[0].kind == ExprKind::unary);
            CHECK(x.children[1].kind == ExprKind::binary);
            CHECK(x.children[2].kind == ExprKind::if_else);
            const auto& y = p->doc->entries[1].invocation;
            REQUIRE(y.generic());
            CHECK(y.generic()->prim() == nnef::PrimType::scalar);
            CHECK(y.arg_name(0).empty());
            CHECK(y.children[0].kind == ExprKind::identifier);
            CHECK(y.children[1].kind == ExprKind::array);
            CHECK(y.children[2].kind == ExprKind::tuple);
            const auto& z = p->doc->entries[2];
            CHECK(z.invocation.kind == ExprKind::invocation);
            CHECK(z.invocation.text == "q");
            CHECK(z.invocation.children.empty());
            CHECK(p->text(z.invocation.range) == "q()");
            CHECK(p->doc->entries[3].tensor == "a'b");
        }

        SUBCASE("syntax errors with positions") {
            struct Case {
                const char* text;
                const char* error;
            };
            const Case cases[] = {
                {"input: linear_quantize(bits = 8);",
                 "1:1 syntax expected-token: expected tensor identifier (a string in quotes), found identifier 'input'"},
                {"\"input': linear_quantize(bits = 8);\n",
                 "1:1 syntax mismatched-quotes: string literal opened with \" is not closed (quotes must match: \"...\")"},
                {"'input\": linear_quantize(bits = 8);",
                 "1:1 syntax mismatched-quotes: string literal opened with ' is not closed (quotes must match: '...')"},
                {"\"input: q(bits = 8);",
                 "1:1 syntax unterminated-string: unterminated string literal"},
                {"\"a\": q(bits = 8);\n\"b\" q(bits = 8);",
                 "2:4 syntax expected-token: expected ':' after string literal, found identifier 'q'"},
                {"\"a\": q(bits = 8)\n\"b\": q(bits = 8);",
                 "1:17 syntax expected-token: expected ';' after ')'"},
                {"\"a\": q(bits = 8) + 1;", "1:17 syntax expected-token: expected ';' after ')', found '+'"},
                {"\"a\": linear_quantize;",
                 "1:6 syntax expected-invocation: expected an argument list after quantization algorithm 'linear_quantize'"},
                {"\"a\": 1.0;",
                 "1:6 syntax expected-token: expected quantization algorithm 'name(arguments)', found number '1.0'"},
                {"\"a\": 1e-3;", "1:6 syntax expected-token: expected quantization algorithm 'name(arguments)', found number '1e-3'"},
                {"\"a\": ;", "1:6 syntax expected-token: expected quantization algorithm 'name(arguments)', found ';'"},
                {"\"a\": q(bits = );", "1:15 syntax expected-token: expected expression, found ')'"},
                {"\"a\": q(bits = 8;", "1:16 syntax expected-token: expected ')' after '8', found ';'"},
                {"version 1.0;", "1:1 syntax expected-token: expected tensor identifier (a string in quotes), found keyword 'version'"},
                {"\"a\": q(s = 'x\\y');", "1:14 syntax invalid-escape: invalid escape sequence '\\y' in string literal (a backslash must be escaped as '\\\\')"},
                {"\"a\": q(b = 1 $ 2);", "1:14 syntax unexpected-character: unexpected character '$'"},
                {"\"a\": q<float>(b = 1);",
                 "1:8 syntax unknown-type-name: unknown type name 'float' in generic argument (expected integer, scalar, logical, string or ?)"},
                {"\"a\": q(b = 1);;", "1:15 syntax expected-token: expected tensor identifier (a string in quotes), found ';'"},
            };
            for (const Case& c : cases) {
                CAPTURE(c.text);
                auto p = qt::parse(c.text);
                CHECK_FALSE(p->doc);
                CHECK(p->first_error() == c.error);
            }
        }

        SUBCASE("nesting limit") {
            std::string deep = "\"a\": q(b = " + std::string(40, '(') + "1" + std::string(40, ')') + ");";
            auto p = qt::parse(deep, 16);
            CHECK_FALSE(p->doc);
            REQUIRE(p->error());
            CHECK(p->error()->code == "max-nesting");
            CHECK(qt::parse(deep)->doc);
        }
    }
}
