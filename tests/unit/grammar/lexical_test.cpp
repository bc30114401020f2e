// Lexical elements of spec 3.1: identifiers, keywords, numbers, strings, logicals, comments,
// white space.
#include <string>
#include <vector>

#include "grammar_test_support.hpp"

TEST_SUITE("grammar") {

TEST_CASE("identifiers and keywords") {
    using grammar_test::parse;
    SUBCASE("valid identifier forms") {
        for (std::string id : {"_x", "X1_y", "__", "versions", "graphs", "in_", "iff", "tensor2", "fragment_1", "and", "or"}) {
            CAPTURE(id);
            auto p = parse(grammar_test::flat("copy(" + id + ")"));
            REQUIRE_MESSAGE(p->ok(), p->rendered());
            CHECK(grammar_test::rhs(*p).children.at(0).kind == nnef::ast::ExprKind::identifier);
            CHECK(grammar_test::rhs(*p).children.at(0).text == id);
        }
    }
    SUBCASE("keywords cannot be identifiers") {
        for (std::string kw : {"version", "extension", "graph", "fragment", "tensor", "integer", "scalar", "logical",
                               "string", "shape_of", "length_of", "range_of", "for", "in", "yield", "if", "else"}) {
            CAPTURE(kw);
            auto p = parse("version 1.0;\ngraph G( x ) -> ( y ) {\n    " + kw + " = relu(x);\n}\n");
            REQUIRE(p->error());
            CHECK(p->error()->stage == nnef::Stage::syntax);
            CHECK(p->error()->code == "keyword-as-identifier");
            CHECK(p->at(*p->error()).line == 3);
            CHECK(p->at(*p->error()).col == 5);
        }
    }
    SUBCASE("identifier starting with a digit") {
        auto p = parse("version 1.0;\ngraph G( x ) -> ( y ) {\n    1st = relu(x);\n}\n");
        REQUIRE(p->error());
        CHECK(p->error()->code == "invalid-identifier");
        CHECK(p->at(*p->error()).line == 3);
        CHECK(p->at(*p->error()).col == 5);
    }
    SUBCASE("illegal characters") {
        struct Row {
            std::string text;
            std::string message;
        };
        for (const Row& r : std::vector<Row>{{"a$b", "unexpected character '$'"},
                                             {"a@b", "unexpected character '@'"},
                                             {"r\xC3\xA9sultat", "unexpected non-ASCII byte 0xC3"},
                                             {std::string("a\0b", 3), "unexpected NUL character (0x00)"}}) {
            CAPTURE(r.message);
            auto p = parse("version 1.0;\ngraph G( x ) -> ( y ) {\n    " + r.text + " = relu(x);\n}\n");
            REQUIRE(p->error());
            CHECK(p->error()->code == "unexpected-character");
            CHECK(p->error()->message == r.message);
            CHECK(p->at(*p->error()).line == 3);
            CHECK(p->at(*p->error()).col == 6);
        }
    }
}

TEST_CASE("numeric literals") {
    using K = nnef::ast::ExprKind;
    SUBCASE("integers and scalars") {
        struct Row {
            std::string text;
            K kind;
            double value;
        };
        for (const Row& r : std::vector<Row>{{"0", K::integer, 0},
                                             {"42", K::integer, 42},
                                             {"9223372036854775807", K::integer, 9223372036854775807.0},
                                             {"1.", K::scalar, 1.0},
                                             {"0.", K::scalar, 0.0},
                                             {"1.5", K::scalar, 1.5},
                                             {"1e1", K::scalar, 10.0},
                                             {"2.0E+2", K::scalar, 200.0},
                                             {"1.5e-3", K::scalar, 0.0015},
                                             {"10.0e0", K::scalar, 10.0}}) {
            CAPTURE(r.text);
            auto p = grammar_test::parse(grammar_test::flat("f(" + r.text + ")"));
            REQUIRE_MESSAGE(p->ok(), p->rendered());
            const auto& e = grammar_test::rhs(*p).children.at(0);
            CHECK(e.kind == r.kind);
            CHECK(e.text == r.text);
            CHECK_FALSE(e.negative_literal);
            if (r.kind == K::integer) CHECK(static_cast<double>(e.ival) == r.value);
            else CHECK(e.sval == doctest::Approx(r.value));
            CHECK(p->text(e.range) == r.text);
        }
    }
    SUBCASE("malformed numbers") {
        struct Row {
            std::string text;
            std::string code;
        };
        for (const Row& r : std::vector<Row>{{"1.5e", "invalid-number"},
                                             {"1e+", "invalid-number"},
                                             {"1.2.3", "invalid-number"},
                                             {"0x10", "invalid-number"},
                                             {"12abc", "invalid-number"},
                                             {"99999999999999999999", "invalid-number"},
                                             {"1e999", "invalid-number"}}) {
            CAPTURE(r.text);
            auto p = grammar_test::parse(grammar_test::flat("f(a = " + r.text + ")"));
            REQUIRE(p->error());
            CHECK(p->error()->stage == nnef::Stage::syntax);
            CHECK(p->error()->code == r.code);
            CHECK(p->at(*p->error()).line == 3);
            CHECK(p->at(*p->error()).col == 15);
        }
    }
    SUBCASE("flat negative literals") {
        auto p = grammar_test::parse(grammar_test::flat("f(-1, -2.5e1, [-3], (-4, 5))"));
        REQUIRE_MESSAGE(p->ok(), p->rendered());
        const auto& call = grammar_test::rhs(*p);
        CHECK(grammar_test::sexpr(call) == "(call f -1 -2.5e1 [-3] (tuple -4 5))");
        const auto& a = call.children[0];
        CHECK(a.kind == K::integer);
        CHECK(a.ival == -1);
        CHECK(a.negative_literal);
        CHECK(p->text(a.range) == "-1");
        CHECK(call.children[1].sval == -25.0);
        CHECK(call.children[1].negative_literal);
    }
}

TEST_CASE("string literals") {
    SUBCASE("quotes and escapes") {
        struct Row {
            std::string literal;
            std::string value;
        };
        for (const Row& r : std::vector<Row>{{"'abc'", "abc"},
                                             {"\"abc\"", "abc"},
                                             {"''", ""},
                                             {"'it\\'s'", "it's"},
                                             {"\"say \\\"hi\\\"\"", "say \"hi\""},
                                             {"'a\\\\b'", "a\\b"},
                                             {"\"it's\"", "it's"},
                                             {"'dir/x y~!'", "dir/x y~!"}}) {
            CAPTURE(r.literal);
            auto p = grammar_test::parse(grammar_test::flat("f(label = " + r.literal + ")"));
            REQUIRE_MESSAGE(p->ok(), p->rendered());
            const auto& e = grammar_test::rhs(*p).children.at(0);
            CHECK(e.kind == nnef::ast::ExprKind::string);
            CHECK(e.text == r.value);
            CHECK(p->text(e.range) == r.literal);
        }
    }
    SUBCASE("malformed strings") {
        struct Row {
            std::string literal;
            std::string code;
            unsigned col;
        };
        // the literal starts at column 19: `    y = f(label = '...`
        for (const Row& r : std::vector<Row>{{"'weights", "unterminated-string", 19},
                                             {"'dir\\weights'", "invalid-escape", 23},
                                             {"'a\tb'", "invalid-string-character", 21},
                                             {"'caf\xC3\xA9'", "invalid-string-character", 23},
                                             {"'a\x01'", "invalid-string-character", 21}}) {
            CAPTURE(r.literal);
            auto p = grammar_test::parse(grammar_test::flat("f(label = " + r.literal + ")"));
            REQUIRE(p->error());
            CHECK(p->error()->stage == nnef::Stage::syntax);
            CHECK(p->error()->code == r.code);
            CHECK(p->at(*p->error()).line == 3);
            CHECK(p->at(*p->error()).col == r.col);
        }
    }
    SUBCASE("an unescaped start quote ends the string") {
        auto p = grammar_test::parse(grammar_test::flat("f(label = 'it's')"));
        REQUIRE(p->error());
        CHECK(p->error()->code == "expected-token");
        CHECK(p->at(*p->error()).col == 23);
    }
}

TEST_CASE("logical literals, comments and white space") {
    SUBCASE("true and false") {
        auto p = grammar_test::parse(grammar_test::flat("f(true, b = false)"));
        REQUIRE(p->ok());
        CHECK(grammar_test::sexpr(grammar_test::rhs(*p)) == "(call f true b=false)");
    }
    SUBCASE("comments anywhere") {
        auto p = grammar_test::parse("# leading\nversion 1.0; # after version\ngraph G( # in list\n x ) -> ( y ) # decl\n"
                                     "{ # brace\n y = f( # call\n x, # arg\n a = [1, # array\n 2]); #no space\n}\n# end");
        REQUIRE_MESSAGE(p->ok(), p->rendered());
        CHECK(grammar_test::sexpr(grammar_test::rhs(*p)) == "(call f x a=[1 2])");
    }
    SUBCASE("a form feed ends a comment") {
        auto p = grammar_test::parse("version 1.0;\ngraph G( x ) -> ( y ) {\n x = f(x); # c\f y = g(x);\n}\n");
        REQUIRE_MESSAGE(p->ok(), p->rendered());
        CHECK(p->doc->graph->body.size() == 2);
    }
    SUBCASE("all white space characters") {
        auto p = grammar_test::parse("version\t1.0;\r\n\vgraph\fG( x ) -> ( y )\r\n{\r\n\ty = f(x);\r\n}\r\n");
        REQUIRE_MESSAGE(p->ok(), p->rendered());
    }
    SUBCASE("C comments are not comments") {
        auto p = grammar_test::parse("version 1.0;\ngraph G( x ) -> ( y ) {\n  /* c */ y = f(x);\n}\n");
        REQUIRE(p->error());
        CHECK(p->at(*p->error()).line == 3);
        CHECK(p->at(*p->error()).col == 3);
    }
}

}  // TEST_SUITE
