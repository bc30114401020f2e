// Document structure: version, extensions, fragments, types, graph, lvalues; extension rules;
// dialect deviations (SPEC_NOTES 3); the stdlib mode.
#include <string>
#include <vector>

#include "grammar_test_support.hpp"

namespace grammar_document_test {

inline const char* fragments_header =
    "version 1.0;\nextension KHR_enable_fragment_definitions;\n";  // a fragment starts on line 3
inline const char* tail_graph = "graph G( x ) -> ( y ) {\n    y = f(x);\n}\n";

}  // namespace grammar_document_test

TEST_SUITE("grammar") {

TEST_CASE("document structure") {
    using grammar_test::parse;
    SUBCASE("minimal flat document") {
        auto p = parse("version 1.0;\ngraph G( a, b ) -> ( c, d ) {\n    c = f(a);\n    d = g(b);\n}\n");
        REQUIRE_MESSAGE(p->ok(), p->rendered());
        const auto& d = *p->doc;
        CHECK(d.version_major == 1);
        CHECK(d.version_minor == 0);
        CHECK(p->text(d.version_range) == "1.0");
        REQUIRE(d.graph);
        CHECK(d.graph->name == "G");
        CHECK(p->text(d.graph->name_range) == "G");
        REQUIRE(d.graph->params.size() == 2);
        CHECK(d.graph->params[1].name == "b");
        CHECK(d.graph->results[0].name == "c");
        REQUIRE(d.graph->body.size() == 2);
        CHECK(p->text(d.graph->body[1].range) == "d = g(b);");
        CHECK(p->text(d.graph->range).rfind("graph G", 0) == 0);
        CHECK(p->text(d.graph->range).back() == '}');
        CHECK(d.file == p->file);
    }
    SUBCASE("lvalues") {
        struct Row {
            std::string lhs;
            std::string tree;
        };
        for (const Row& r : std::vector<Row>{{"a", "a"},
                                             {"a, b", "(tuple a b)"},
                                             {"(a, b)", "(tuple a b)"},
                                             {"[a, b]", "[a b]"},
                                             {"[]", "[]"},
                                             {"(a, [b, c]), d", "(tuple (tuple a [b c]) d)"}}) {
            CAPTURE(r.lhs);
            auto p = parse("version 1.0;\ngraph G( x ) -> ( a ) {\n    " + r.lhs + " = f(x);\n}\n");
            REQUIRE_MESSAGE(p->ok(), p->rendered());
            const auto& lhs = p->doc->graph->body[0].lhs;
            CHECK(grammar_test::sexpr(lhs) == r.tree);
            CHECK(p->text(lhs.range) == r.lhs);
        }
        for (std::string bad : {"f(a)", "a[0]", "(a)", "1", "a + b"}) {
            CAPTURE(bad);
            auto p = parse("version 1.0;\ngraph G( x ) -> ( a ) {\n    " + bad + " = f(x);\n}\n");
            REQUIRE(p->error());
            CHECK(p->at(*p->error()).line == 3);
        }
    }
    SUBCASE("a missing token is reported right after the token before it") {
        // As C compilers do: the caret where the token belongs; the token found instead is a note
        // when it is on a later line, part of the message when it is on the same line.
        struct Missing {
            std::string text;
            unsigned line, col;
            std::string message;
            unsigned note_line, note_col;  // 0: no note
            std::string note;
        };
        const std::string g = "graph G( x ) -> ( y ) {\n    y = f(x);\n}\n";
        for (const Missing& m : std::vector<Missing>{
                 {"version 1.0\n\n" + g, 1, 12, "expected ';' after 'version 1.0'", 3, 1, "found keyword 'graph' here"},
                 {"version 1.0 " + g, 1, 12, "expected ';' after 'version 1.0', found keyword 'graph'", 0, 0, ""},
                 {"version 1.0;\ngraph G( x ) -> ( y ) {\n    y = f(x)  # no semicolon\n    # a comment line\n\n    z = g(y);\n}\n",
                  3, 13, "expected ';' after ')'", 6, 5, "found identifier 'z' here"},
                 {"version 1.0;\ngraph G( x ) -> ( y ) {\n    y = f(x, s = 'a # b'\n    ;\n}\n", 3, 25,
                  "expected ')' after string literal", 4, 5, "found ';' here"},
                 {"version 1.0;\ngraph G( x ) -> ( y ) {\n    y = f(x;\n}\n", 3, 12, "expected ')' after 'x', found ';'", 0, 0, ""},
                 {"version 1.0;\ngraph G( x ) -> ( y ) {\n    y = f(x);\n", 3, 14, "expected '}' after ';'", 4, 1,
                  "found end of file here"},
                 {"version 1.0;\ngraph G( x ) -> ( y ) {\n    y = f(x, n = 1.5e-3\n}\n", 3, 24,
                  "expected ')' after '1.5e-3'", 4, 1, "found '}' here"},
                 {"version 1.0;\ngraph G( x ) -> ( y )\n    y = f(x);\n}\n", 2, 22, "expected '{' after ')'", 3, 5,
                  "found identifier 'y' here"},
                 {"version 1.0;\ngraph G( x ) -> ( y ) {\n    y = x if b\n        1;\n}\n", 3, 15, "expected 'else' after 'b'", 4,
                  9, "found number '1' here"}}) {
            CAPTURE(m.text);
            auto p = parse(m.text);
            REQUIRE(p->error());
            const nnef::Diagnostic& d = *p->error();
            CHECK(d.code == "expected-token");
            CHECK(d.message == m.message);
            CHECK(p->at(d).line == m.line);
            CHECK(p->at(d).col == m.col);
            CHECK(d.range.begin == d.range.end);  // the caret between two tokens
            if (m.note_line == 0) {
                CHECK(d.notes.empty());
            } else {
                REQUIRE(d.notes.size() == 1);
                CHECK(d.notes[0].message == m.note);
                CHECK(p->sm.begin(d.notes[0].range).line == m.note_line);
                CHECK(p->sm.begin(d.notes[0].range).col == m.note_col);
            }
        }
        // An expected construct (not a token) is reported where it should start.
        for (const std::string text : {"version 1.0;\ngraph G( x ) -> ( y ) {\n    y =\n}\n",
                                        "version 1.0;\ngraph G( x ) -> ( y ) {\n}\n"}) {
            CAPTURE(text);
            auto p = parse(text);
            REQUIRE(p->error());
            CHECK(p->at(*p->error()).line == 4 - (text.find("y =") == std::string::npos));
            CHECK(p->at(*p->error()).col == 1);
            CHECK(p->error()->message.find(", found '}'") != std::string::npos);
            CHECK(p->error()->notes.empty());
        }
    }
    SUBCASE("statement-level errors with positions") {
        struct Bad {
            std::string text;
            std::string code;
            unsigned line, col;
        };
        for (const Bad& b : std::vector<Bad>{
                 {"graph G( x ) -> ( y ) {\n    y = f(x);\n}\n", "missing-version", 1, 1},
                 {"", "missing-version", 1, 1},
                 {"version 1;\ngraph G( x ) -> ( y ) {\n    y = f(x);\n}\n", "invalid-version", 1, 9},
                 {"version 1.0e0;\ngraph G( x ) -> ( y ) {\n    y = f(x);\n}\n", "invalid-version", 1, 9},
                 {"version '1.0';\ngraph G( x ) -> ( y ) {\n    y = f(x);\n}\n", "expected-token", 1, 9},
                 {"version 1.0;\nversion 1.0;\ngraph G( x ) -> ( y ) {\n    y = f(x);\n}\n", "expected-token", 2, 1},
                 {"version 1.0;\n", "missing-graph", 2, 1},
                 {"version 1.0;\ngraph G( x ) -> ( y ) {\n    y = f(x)\n    z = g(y);\n}\n", "expected-token", 3, 13},
                 {"version 1.0;\ngraph G( x ) -> ( y ) {\n}\n", "expected-token", 3, 1},
                 {"version 1.0;\ngraph G( x ) -> ( y ) {\n    y = f(x);\n", "expected-token", 3, 14},
                 {"version 1.0;\ngraph G( x ) ( y ) {\n    y = f(x);\n}\n", "expected-token", 2, 13},
                 {"version 1.0;\ngraph G( x: tensor ) -> ( y ) {\n    y = f(x);\n}\n", "expected-token", 2, 11},
                 {"version 1.0;\ngraph G( ) -> ( y ) {\n    y = f(x);\n}\n", "expected-token", 2, 10},
                 {"version 1.0;\ngraph G( x ) -> ( y ) {\n    y f(x);\n}\n", "expected-token", 3, 6},
                 {"version 1.0;\ngraph G( x ) -> ( y ) {\n    y = f(x);\n}\ngraph H( x ) -> ( y ) {\n    y = f(x);\n}\n",
                  "unexpected-content", 5, 1},
                 {"version 1.0;\nextension 'KHR_enable_operator_expressions';\n" + std::string(grammar_document_test::tail_graph),
                  "expected-token", 2, 11}}) {
            CAPTURE(b.text);
            auto p = parse(b.text);
            REQUIRE(p->error());
            CHECK_FALSE(p->doc);
            CHECK(p->error()->stage == nnef::Stage::syntax);
            CHECK(p->error()->code == b.code);
            CHECK(p->at(*p->error()).line == b.line);
            CHECK(p->at(*p->error()).col == b.col);
        }
    }
}

TEST_CASE("fragments and types") {
    using grammar_test::parse;
    using nnef::PrimType;
    using nnef::Type;
    std::string header = grammar_document_test::fragments_header;
    std::string tail = grammar_document_test::tail_graph;
    SUBCASE("declaration parts") {
        auto p = parse(header +
                       "fragment f<? = scalar>( a: tensor<?>, b: integer[] = [1, 2], c: (integer, scalar)[] = [], "
                       "d: tensor, e: tensor<>, g: ?, h: logical = true, s: string = 'x' ) -> ( y: tensor<?>, "
                       "z: scalar[][] )\n{\n    y = copy(a);\n    z = g(a);\n}\n" + tail);
        REQUIRE_MESSAGE(p->ok(), p->rendered());
        REQUIRE(p->doc->fragments.size() == 1);
        const auto& f = p->doc->fragments[0];
        CHECK(f.name == "f");
        CHECK(f.generic);
        REQUIRE(f.generic_default);
        CHECK(*f.generic_default == PrimType::scalar);
        REQUIRE(f.params.size() == 8);
        CHECK(f.params[0].type == Type::tensor(PrimType::generic));
        CHECK(p->text(f.params[0].type_range) == "tensor<?>");
        CHECK(f.params[1].type == Type::array(Type::primitive(PrimType::integer)));
        REQUIRE(f.params[1].default_value);
        CHECK(grammar_test::sexpr(*f.params[1].default_value) == "[1 2]");
        CHECK(f.params[2].type ==
              Type::array(Type::tuple({Type::primitive(PrimType::integer), Type::primitive(PrimType::scalar)})));
        CHECK(p->text(f.params[2].type_range) == "(integer, scalar)[]");
        CHECK(f.params[3].type == Type::tensor(PrimType::none));
        CHECK(f.params[4].type == Type::tensor(PrimType::none));
        CHECK(f.params[5].type == Type::primitive(PrimType::generic));
        CHECK_FALSE(f.params[5].default_value);
        REQUIRE(f.results.size() == 2);
        CHECK(f.results[1].type == Type::array(Type::array(Type::primitive(PrimType::scalar))));
        REQUIRE(f.body);
        CHECK(f.body->size() == 2);
        CHECK(p->text(f.range).rfind("fragment f", 0) == 0);
    }
    SUBCASE("plain generic") {
        auto p = parse(header + "fragment f<?>( a: tensor<?> ) -> ( y: tensor<?> )\n{\n    y = copy(a);\n}\n" + tail);
        REQUIRE_MESSAGE(p->ok(), p->rendered());
        CHECK(p->doc->fragments[0].generic);
        CHECK_FALSE(p->doc->fragments[0].generic_default);
    }
    SUBCASE("declaration errors") {
        struct Bad {
            std::string decl;
            unsigned col;
        };
        for (const Bad& b : std::vector<Bad>{{"fragment f( x ) -> ( y: tensor<scalar> );", 14},
                                             {"fragment f( x: (integer) ) -> ( y: tensor<scalar> );", 24},
                                             {"fragment integer( x: tensor ) -> ( y: tensor );", 10},
                                             {"fragment f( in: tensor ) -> ( y: tensor );", 13},
                                             {"fragment f( x: float ) -> ( y: tensor );", 16},
                                             {"fragment f( x: tensor<tensor> ) -> ( y: tensor );", 23},
                                             {"fragment f( x: integer = 1 + 1 ) -> ( y: tensor );", 26},
                                             {"fragment f( x: integer = - 1 ) -> ( y: tensor );", 26},
                                             {"fragment f( x: tensor ) -> ( y: tensor ) { }", 44},
                                             {"fragment f( ) -> ( y: tensor );", 13}}) {
            CAPTURE(b.decl);
            auto p = parse(header + b.decl + "\n" + tail);
            REQUIRE(p->error());
            CHECK(p->error()->stage == nnef::Stage::syntax);
            CHECK(p->at(*p->error()).line == 3);
            CHECK(p->at(*p->error()).col == b.col);
        }
    }
    SUBCASE("fragment after graph, extension after fragment") {
        auto p = parse(header + tail + "fragment f( x: tensor ) -> ( y: tensor );\n");
        REQUIRE(p->error());
        CHECK(p->at(*p->error()).line == 6);
        p = parse(header + "fragment f( x: tensor ) -> ( y: tensor ) {\n y = g(x);\n}\nextension KHR_x;\n" + tail);
        REQUIRE(p->error());
        CHECK(p->at(*p->error()).line == 6);
    }
}

TEST_CASE("extension rules") {
    using grammar_test::parse;
    SUBCASE("fragments need KHR_enable_fragment_definitions") {
        for (std::string ext : {"", "extension KHR_enable_operator_expressions;\n"}) {
            CAPTURE(ext);
            auto p = parse("version 1.0;\n" + ext + "fragment f( x: tensor ) -> ( y: tensor )\n{\n    y = g(x);\n}\n" +
                           grammar_document_test::tail_graph);
            REQUIRE(p->error());
            CHECK(p->error()->code == "extension-required");
            CHECK(p->error()->message.find("KHR_enable_fragment_definitions") != std::string::npos);
            CHECK(p->at(*p->error()).line == (ext.empty() ? 2u : 3u));
            CHECK(p->at(*p->error()).col == 1);
        }
    }
    SUBCASE("flat syntax without KHR_enable_operator_expressions") {
        struct Row {
            std::string rhs;
            unsigned col;  // of the offending construct; rhs starts at column 9
        };
        for (const Row& r : std::vector<Row>{{"f(-x)", 11},
                                             {"f(!x)", 11},
                                             {"f(- 1)", 11},
                                             {"f(x + 1)", 11},
                                             {"f(g(x))", 11},
                                             {"f(a = [x[0]])", 16},
                                             {"f(shape_of(x))", 11},
                                             {"f((x))", 11},
                                             {"f([for i in x yield i])", 11},
                                             {"f(x if c else y)", 11},
                                             {"x", 9},
                                             {"[x, x]", 9},
                                             {"f(x) if c else g(x)", 9},
                                             {"-1", 9}}) {
            CAPTURE(r.rhs);
            auto p = parse(grammar_test::flat(r.rhs));
            REQUIRE(p->error());
            CHECK(p->error()->stage == nnef::Stage::syntax);
            CHECK(p->error()->code == "extension-required");
            CHECK(p->error()->message.find("KHR_enable_operator_expressions") != std::string::npos);
            CHECK(p->at(*p->error()).line == 3);
            CHECK(p->at(*p->error()).col == r.col);
            // ... and each of them is fine with the extension
            auto q = parse(grammar_test::compositional(r.rhs));
            CHECK_MESSAGE(q->ok(), q->rendered());
        }
    }
    SUBCASE("flat fragment bodies with only the fragment extension") {
        auto p = parse(std::string(grammar_document_test::fragments_header) +
                       "fragment f( x: tensor ) -> ( y: tensor )\n{\n    y = g(x, a = -1);\n}\n" +
                       grammar_document_test::tail_graph);
        REQUIRE_MESSAGE(p->ok(), p->rendered());
        CHECK(p->doc->fragments[0].body->at(0).rhs.children[1].negative_literal);
        p = parse(std::string(grammar_document_test::fragments_header) +
                  "fragment f( x: tensor ) -> ( y: tensor )\n{\n    y = x * 2.0;\n}\n" + grammar_document_test::tail_graph);
        REQUIRE(p->error());
        CHECK(p->error()->code == "extension-required");
        CHECK(p->at(*p->error()).line == 5);
    }
    SUBCASE("compositional minus stays an operator") {
        auto p = parse(grammar_test::compositional("f(-1, a = [-2])"));
        REQUIRE(p->ok());
        CHECK(grammar_test::sexpr(grammar_test::rhs(*p)) == "(call f (- 1) a=[(- 2)])");
    }
}

TEST_CASE("dialects") {
    using grammar_test::parse;
    struct Row {
        std::string name;
        std::string text;
        std::string code;
        unsigned line, col;
    };
    std::string tail = grammar_document_test::tail_graph;
    std::vector<Row> rows{
        {"comma separated extensions",
         "version 1.0;\nextension KHR_enable_fragment_definitions, KHR_enable_operator_expressions;\n" + tail,
         "comma-separated-extensions", 2, 42},
        {"body-less fragment", std::string(grammar_document_test::fragments_header) +
                                   "fragment f( x: tensor<scalar> ) -> ( y: tensor<scalar> );\n" + tail,
         "fragment-declaration", 3, 1},
        {"negative default", std::string(grammar_document_test::fragments_header) +
                                 "fragment f( x: tensor, k: scalar = -1.0 ) -> ( y: tensor )\n{\n    y = g(x);\n}\n" + tail,
         "negative-default-value", 3, 36},
        {"minor version", "version 1.1;\n" + tail, "newer-minor-version", 1, 9},
        {"unknown extension", "version 1.0;\nextension VENDOR_magic;\n" + tail, "unknown-extension", 2, 11},
    };
    for (const Row& r : rows) {
        CAPTURE(r.name);
        auto dflt = parse(r.text);
        REQUIRE_MESSAGE(dflt->ok(), dflt->rendered());
        REQUIRE(dflt->warning());
        CHECK(dflt->warning()->stage == nnef::Stage::syntax);
        CHECK(dflt->warning()->code == r.code);
        CHECK(dflt->at(*dflt->warning()).line == r.line);
        CHECK(dflt->at(*dflt->warning()).col == r.col);

        auto strict = parse(r.text, grammar_test::Mode{true});
        CHECK_FALSE(strict->doc);
        REQUIRE(strict->error());
        CHECK(strict->error()->stage == nnef::Stage::syntax);
        CHECK(strict->error()->code == r.code);
        CHECK(strict->at(*strict->error()).line == r.line);
        CHECK(strict->at(*strict->error()).col == r.col);
    }
    SUBCASE("negative default folds into a literal") {
        auto p = parse(rows[2].text);
        REQUIRE(p->ok());
        const auto& k = *p->doc->fragments[0].params[1].default_value;
        CHECK(k.kind == nnef::ast::ExprKind::scalar);
        CHECK(k.negative_literal);
        CHECK(k.sval == -1.0);
        CHECK(k.text == "-1.0");
    }
    SUBCASE("body-less fragment has no body") {
        auto p = parse(rows[1].text);
        REQUIRE(p->ok());
        CHECK_FALSE(p->doc->fragments[0].body);
    }
    SUBCASE("version 2.0 is an error in both dialects") {
        for (bool strict : {false, true}) {
            auto p = parse("version 2.0;\n" + tail, grammar_test::Mode{strict});
            REQUIRE(p->error());
            CHECK(p->error()->code == "unsupported-version");
            CHECK(p->at(*p->error()).col == 9);
        }
    }
    SUBCASE("the revision 3 forms give no warning") {
        auto p = parse("version 1.0;\nextension KHR_enable_fragment_definitions KHR_enable_operator_expressions;\n" + tail,
                       grammar_test::Mode{true});
        CHECK(p->ok());
        CHECK(p->diags.empty());
    }
}

TEST_CASE("standard library mode") {
    grammar_test::Mode mode;
    mode.stdlib = true;
    auto p = grammar_test::parse(
        "fragment relu( x: tensor<scalar> ) -> ( y: tensor<scalar> );\n"
        "fragment reshape<?>( input: tensor<?>, shape: integer[], axis_start: integer = 0, axis_count: integer = -1 )"
        " -> ( output: tensor<?> );\n"
        "fragment sqr( x: tensor<scalar> ) -> ( y: tensor<scalar> )\n{\n    y = x ^ 2.0;\n}\n",
        mode);
    REQUIRE_MESSAGE(p->ok(), p->rendered());
    CHECK(p->diags.empty());
    CHECK_FALSE(p->doc->graph);
    REQUIRE(p->doc->fragments.size() == 3);
    const auto& count = *p->doc->fragments[1].params[3].default_value;
    CHECK(count.negative_literal);
    CHECK(count.ival == -1);
    CHECK_FALSE(p->doc->version_range.valid());
}

}  // TEST_SUITE
