// Hostile input: deep nesting, huge tokens, random and truncated bytes. Each must give a
// diagnostic, never a crash or a stack overflow.
#include <random>
#include <string>
#include <vector>

#include "grammar_test_support.hpp"

namespace grammar_hostile_test {

inline std::string repeat(const std::string& s, std::size_t n) {
    std::string out;
    out.reserve(s.size() * n);
    for (std::size_t i = 0; i < n; ++i) out += s;
    return out;
}

}  // namespace grammar_hostile_test

TEST_SUITE("grammar") {

TEST_CASE("nesting limit") {
    using grammar_hostile_test::repeat;
    const std::size_t n = 100000;
    struct Row {
        std::string name;
        std::string text;
    };
    std::string tail = "graph G( x ) -> ( y ) {\n    y = f(x);\n}\n";
    std::string frag = "version 1.0;\nextension KHR_enable_fragment_definitions;\nfragment f( a: ";
    std::vector<Row> rows{
        {"parentheses", grammar_test::compositional(repeat("(", n) + "1" + repeat(")", n))},
        {"brackets", grammar_test::compositional(repeat("[", n) + repeat("]", n))},
        {"invocations", grammar_test::compositional(repeat("f(", n) + "x" + repeat(")", n))},
        {"unary minus", grammar_test::compositional(repeat("-", n) + "1")},
        {"logical not", grammar_test::compositional(repeat("!", n) + "x")},
        {"power chain", grammar_test::compositional(repeat("2 ^ ", n) + "2")},
        {"sum chain", grammar_test::compositional(repeat("1 + ", n) + "1")},
        {"subscripts", grammar_test::compositional("x" + repeat("[0]", n))},
        {"if-else chain", grammar_test::compositional(repeat("1 if c else ", n) + "1")},
        {"comprehensions", grammar_test::compositional(repeat("[for i in ", n) + "x" + repeat(" yield i]", n))},
        {"lvalue arrays",
         "version 1.0;\ngraph G( x ) -> ( y ) {\n    " + repeat("[", n) + "y" + repeat("]", n) + " = f(x);\n}\n"},
        {"tuple types", frag + repeat("(", n) + "integer" + repeat(", integer)", n) + " ) -> ( b: integer );\n" +
                            tail},
        {"array types", frag + "integer" + repeat("[]", n) + " ) -> ( b: integer );\n" + tail},
    };
    for (const Row& r : rows) {
        CAPTURE(r.name);
        auto p = grammar_test::parse(r.text);
        REQUIRE(p->error());
        CHECK_FALSE(p->doc);
        CHECK(p->error()->stage == nnef::Stage::syntax);
        CHECK(p->error()->code == "max-nesting");
        CHECK(p->error()->message.find("max_nesting = 512") != std::string::npos);
    }
    SUBCASE("a custom limit") {
        grammar_test::Mode mode;
        mode.max_nesting = 10;
        auto ok = grammar_test::parse(grammar_test::compositional(repeat("(", 8) + "1" + repeat(")", 8)), mode);
        CHECK_MESSAGE(ok->ok(), ok->rendered());
        auto deep = grammar_test::parse(grammar_test::compositional(repeat("(", 12) + "1" + repeat(")", 12)), mode);
        REQUIRE(deep->error());
        CHECK(deep->error()->code == "max-nesting");
        CHECK(deep->error()->message.find("max_nesting = 10") != std::string::npos);
        CHECK(deep->at(*deep->error()).line == 4);
    }
}

TEST_CASE("huge tokens") {
    using grammar_hostile_test::repeat;
    SUBCASE("a 100k-character identifier") {
        std::string id = repeat("a", 100000);
        auto p = grammar_test::parse(grammar_test::flat(id));  // a flat rhs must be an invocation
        REQUIRE(p->error());
        CHECK(p->error()->code == "extension-required");
        CHECK(p->at(*p->error()).col == 9);
        grammar_test::Mode mode;
        mode.max_string_length = 1000;
        auto q = grammar_test::parse(grammar_test::flat("f(" + id + ")"), mode);
        REQUIRE(q->error());
        CHECK(q->error()->code == "identifier-too-long");
        CHECK(q->error()->message.find("max_string_length") != std::string::npos);
        CHECK(q->at(*q->error()).col == 11);
    }
    SUBCASE("a long string") {
        grammar_test::Mode mode;
        mode.max_string_length = 1000;
        auto q = grammar_test::parse(grammar_test::flat("f('" + repeat("x", 5000) + "')"), mode);
        REQUIRE(q->error());
        CHECK(q->error()->code == "string-too-long");
    }
}

TEST_CASE("garbage input") {
    SUBCASE("empty") {
        auto p = grammar_test::parse("");
        REQUIRE(p->error());
        CHECK(p->error()->code == "missing-version");
        CHECK(p->at(*p->error()).line == 1);
        CHECK(p->at(*p->error()).col == 1);
    }
    SUBCASE("only comments and white space") {
        auto p = grammar_test::parse("# nothing\n\n   \t\n");
        REQUIRE(p->error());
        CHECK(p->error()->code == "missing-version");
        CHECK(p->at(*p->error()).line == 4);
    }
    SUBCASE("NUL bytes") {
        static const char text[] = "version 1.0;\ngraph G( x ) -> ( y ) {\n    y = f(\0\0);\n}\n";
        auto p = grammar_test::parse(std::string(text, sizeof(text) - 1));
        REQUIRE(p->error());
        CHECK(p->error()->code == "unexpected-character");
        CHECK(p->at(*p->error()).line == 3);
        CHECK(p->at(*p->error()).col == 11);
    }
    SUBCASE("every truncation of a valid document") {
        std::string text = grammar_test::compositional("[for i in range_of(a) if i > 0 yield f<scalar>(a[i:], k = 'x\\'y')]");
        REQUIRE(grammar_test::parse(text)->ok());
        for (std::size_t n = 0; n + 2 < text.size(); ++n) {
            CAPTURE(n);
            auto p = grammar_test::parse(text.substr(0, n));
            CHECK(p->error());
            CHECK_FALSE(p->doc);
        }
    }
    SUBCASE("random bytes") {
        std::mt19937 rng(12345);
        for (int i = 0; i < 200; ++i) {
            std::string text(static_cast<std::size_t>(rng() % 2000), '\0');
            for (char& c : text) c = static_cast<char>(rng() & 0xFF);
            if (i % 2) text = "version 1.0;\ngraph G( x ) -> ( y ) {\n" + text;  // get past the header
            CAPTURE(i);
            auto p = grammar_test::parse(text);
            CHECK(p->error());
        }
    }
    SUBCASE("random token soup") {
        const char* tokens[] = {"(", ")", "[", "]", "{", "}", ",", ";", ":", "=", "->", "<", ">", "+", "-", "^", "!",
                                "&&", "if", "else", "for", "in", "yield", "x", "f", "1", "2.5", "'s'", "true",
                                "tensor", "fragment", "graph", "#c\n", " "};
        std::mt19937 rng(7);
        for (int i = 0; i < 300; ++i) {
            std::string text = "version 1.0;\nextension KHR_enable_fragment_definitions KHR_enable_operator_expressions;\n";
            int count = static_cast<int>(rng() % 200);
            for (int k = 0; k < count; ++k) text += std::string(tokens[rng() % (sizeof(tokens) / sizeof(*tokens))]) + " ";
            CAPTURE(text);
            auto p = grammar_test::parse(text);
            CHECK((p->error() || p->ok()));
        }
    }
}

}  // TEST_SUITE
