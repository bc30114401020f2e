// Expressions of the compositional grammar: precedence and associativity (SPEC_NOTES 5), if-else,
// comprehensions, subscripts and ranges, tuples, built-ins, invocations, source ranges.
#include <string>
#include <vector>

#include "grammar_test_support.hpp"

namespace grammar_expression_test {

struct Row {
    std::string text;
    std::string tree;
};

inline void check_table(const std::vector<Row>& rows) {
    for (const Row& r : rows) {
        CAPTURE(r.text);
        auto p = grammar_test::parse(grammar_test::compositional(r.text));
        REQUIRE_MESSAGE(p->ok(), p->rendered());
        CHECK(grammar_test::sexpr(grammar_test::rhs(*p)) == r.tree);
        CHECK(p->text(grammar_test::rhs(*p).range) == r.text);
    }
}

}  // namespace grammar_expression_test

TEST_SUITE("grammar") {

TEST_CASE("operator precedence and associativity") {
    using grammar_expression_test::check_table;
    SUBCASE("arithmetic") {
        check_table({{"-1 + 4", "(+ (- 1) 4)"},
                     {"-2 ^ 2", "(- (^ 2 2))"},
                     {"2 ^ 3 ^ 2", "(^ 2 (^ 3 2))"},
                     {"2 ^ -1", "(^ 2 (- 1))"},
                     {"1 + 2 * 3", "(+ 1 (* 2 3))"},
                     {"(1 + 2) * 3", "(* (paren (+ 1 2)) 3)"},
                     {"2 * 3 ^ 2", "(* 2 (^ 3 2))"},
                     {"10 - 4 - 3", "(- (- 10 4) 3)"},
                     {"40 / 2 / 5", "(/ (/ 40 2) 5)"},
                     {"2 + 12 / 4 * 2 - 1", "(- (+ 2 (* (/ 12 4) 2)) 1)"},
                     {"- - x", "(- (- x))"},
                     {"+x * -y", "(* (+ x) (- y))"},
                     {"a[0] ^ 2", "(^ (at a 0) 2)"}});
    }
    SUBCASE("comparison, logical and in") {
        check_table({{"a in b && c", "(in a (&& b c))"},
                     {"1 + 1 in [2, 5]", "(in (+ 1 1) [2 5])"},
                     {"a < b + 1", "(< a (+ b 1))"},
                     {"k * 2 > k + 1", "(> (* k 2) (+ k 1))"},
                     {"a <= b == c", "(== (<= a b) c)"},
                     {"a >= b != c", "(!= (>= a b) c)"},
                     {"!a && b || c", "(|| (&& (! a) b) c)"},
                     {"a || b && c", "(&& (|| a b) c)"},
                     {"a < b && c > d", "(&& (< a b) (> c d))"}});
    }
    SUBCASE("if-else is lowest and right-nested") {
        check_table({{"a if c else b", "(if-else a c b)"},
                     {"a + 1 if c && d else b", "(if-else (+ a 1) (&& c d) b)"},
                     {"a if c else b if d else e", "(if-else a c (if-else b d e))"},
                     {"(a if c else b) + 1", "(+ (paren (if-else a c b)) 1)"}});
    }
}

TEST_CASE("primaries") {
    using grammar_expression_test::check_table;
    SUBCASE("arrays, tuples and parentheses") {
        check_table({{"[]", "[]"},
                     {"[1, 2.5, 'a', true]", "[1 2.5 'a' true]"},
                     {"[[1], []]", "[[1] []]"},
                     {"(1, 2)", "(tuple 1 2)"},
                     {"(1, (2, 3))", "(tuple 1 (tuple 2 3))"},
                     {"(x)", "(paren x)"}});
    }
    SUBCASE("subscripts and ranges") {
        check_table({{"a[i]", "(at a i)"},
                     {"a[i:j]", "(range a i j)"},
                     {"a[:j]", "(range a _ j)"},
                     {"a[i:]", "(range a i _)"},
                     {"a[:]", "(range a _ _)"},
                     {"a[1][2]", "(at (at a 1) 2)"},
                     {"a[i + 1 : length_of(a) - 1]", "(range a (+ i 1) (- (length_of a) 1))"},
                     {"[1, 2][0]", "(at [1 2] 0)"}});
    }
    SUBCASE("comprehensions") {
        check_table({{"[for i in xs yield i]", "(for (i xs) yield i)"},
                     {"[for i in xs, j in ys if i < j yield i * j]", "(for (i xs) (j ys) if (< i j) yield (* i j))"},
                     {"[for i in range_of(a) yield a[i] if i > 0 else 0]",
                      "(for (i (range_of a)) yield (if-else (at a i) (> i 0) 0))"},
                     {"[for i in [1, 2] if i in [2] yield [i]]", "(for (i [1 2]) if (in i [2]) yield [i])"}});
        auto p = grammar_test::parse(grammar_test::compositional("[for i in xs, j in ys if c yield i]"));
        REQUIRE(p->ok());
        const auto& e = grammar_test::rhs(*p);
        REQUIRE(e.names().size() == 2);
        CHECK(e.names()[0].text == "i");
        CHECK(e.names()[1].text == "j");
        CHECK(p->text(e.names()[1].range) == "j");
        CHECK(e.has_filter);
        REQUIRE(e.children.size() == 4);  // xs, ys, filter, yield
        CHECK(e.children[2].text == "c");
    }
    SUBCASE("built-in functions") {
        check_table({{"shape_of(x)", "(shape_of x)"},
                     {"length_of([1, 2])", "(length_of [1 2])"},
                     {"range_of(a)", "(range_of a)"},
                     {"integer(1.5)", "(integer 1.5)"},
                     {"scalar(1)", "(scalar 1)"},
                     {"logical(1)", "(logical 1)"},
                     {"string(true)", "(string true)"}});
        for (std::string bad : {"length_of([1], [2])", "shape_of()"}) {
            CAPTURE(bad);
            auto p = grammar_test::parse(grammar_test::compositional(bad));
            REQUIRE(p->error());
            CHECK(p->error()->stage == nnef::Stage::syntax);
            CHECK(p->at(*p->error()).line == 4);
        }
    }
    SUBCASE("invocations") {
        check_table({{"f(x)", "(call f x)"},
                     {"f(x, y, a = 1, b = [1, 2])", "(call f x y a=1 b=[1 2])"},
                     {"f<scalar>(x)", "(call f<scalar> x)"},
                     {"f<?>(x)", "(call f<?> x)"},
                     {"f(a = b == c)", "(call f a=(== b c))"},
                     {"f(g(x), h(a = 1))", "(call f (call g x) (call h a=1))"},
                     {"and(a, b)", "(call and a b)"},
                     {"or(a, b)", "(call or a b)"},
                     {"a < b", "(< a b)"},
                     {"a < b > c", "(> (< a b) c)"},
                     {"a < integer(b)", "(< a (integer b))"}});
        auto p = grammar_test::parse(grammar_test::compositional("f<integer>(x, k = 2)"));
        REQUIRE(p->ok());
        const auto& e = grammar_test::rhs(*p);
        CHECK(e.kind == nnef::ast::ExprKind::invocation);
        CHECK(e.text == "f");
        REQUIRE(e.generic());
        CHECK(*e.generic() == nnef::Type::primitive(nnef::PrimType::integer));
        CHECK(p->text(e.generic_range()) == "integer");
        REQUIRE(e.children.size() == 2);
        CHECK(e.arg_name(0).empty());
        CHECK(e.arg_name(1) == "k");
        CHECK(p->text(e.arg_name_range(1)) == "k");
        CHECK_FALSE(e.arg_name_range(0).valid());
    }
    SUBCASE("and / or are not operators") {
        auto p = grammar_test::parse(grammar_test::compositional("f(true and false)"));
        REQUIRE(p->error());
        CHECK(p->error()->code == "expected-token");
        CHECK(p->at(*p->error()).line == 4);
        CHECK(p->at(*p->error()).col == 15);  // right after 'true', where ')' or an operator belongs
        CHECK(p->error()->message.find("found identifier 'and' ('and' is not an operator: use '&&')") != std::string::npos);
    }
}

TEST_CASE("expression errors") {
    struct Bad {
        std::string text;
        unsigned col;
    };
    // `    y = ` is 8 characters: the expression starts at column 9. A missing token is placed right
    // after the token before it.
    for (const Bad& b : std::vector<Bad>{{"f(x,)", 13},
                                         {"f()", 11},
                                         {"[1, 2", 14},
                                         {"(1, 2", 14},
                                         {"a if c", 15},
                                         {"[for i in xs i]", 21},
                                         {"[for (a, b) in xs yield a]", 14},
                                         {"1 +", 12},
                                         {"a[]", 11},
                                         {"f<float>(x)", 11},
                                         {"x ! y", 10}}) {
        CAPTURE(b.text);
        auto p = grammar_test::parse(grammar_test::compositional(b.text));
        REQUIRE(p->error());
        CHECK(p->error()->stage == nnef::Stage::syntax);
        CHECK(p->at(*p->error()).line == 4);
        CHECK(p->at(*p->error()).col == b.col);
    }
}

}  // TEST_SUITE

TEST_CASE("nodes are views into the source, escaped strings and children are in the document's arena") {
    auto p = grammar_test::parse(grammar_test::compositional("f(abc, 'plain', 'it\\'s', [1, 2])"));
    REQUIRE_MESSAGE(p->ok(), p->rendered());
    const std::string_view source = p->sm.text(p->file);
    auto in_source = [&](std::string_view v) { return v.data() >= source.data() && v.data() + v.size() <= source.data() + source.size(); };
    const auto& e = grammar_test::rhs(*p);
    REQUIRE(e.children.size() == 4);
    CHECK(in_source(e.text));
    CHECK(e.children[0].text == "abc");
    CHECK(in_source(e.children[0].text));
    CHECK(e.children[1].text == "plain");
    CHECK(in_source(e.children[1].text));  // no escape: the text between the quotes
    CHECK(e.children[2].text == "it's");
    CHECK_FALSE(in_source(e.children[2].text));  // unescaped copy
    CHECK(p->doc->arena->bytes() > 0);
    // Children of a node are one run; a copied node still refers to them.
    const nnef::ast::Expr copy = e.children[3];
    REQUIRE(copy.children.size() == 2);
    CHECK(&copy.children[1] == &copy.children[0] + 1);
    CHECK(copy.children[1].ival == 2);
}

TEST_CASE("arena: runs, text, reset") {
    nnef::ast::Arena arena;
    const int items[] = {1, 2, 3};
    int* run = arena.copy(items, 3);
    CHECK(run[2] == 3);
    CHECK(arena.copy(items, 0) == nullptr);
    std::string_view t = arena.copy(std::string_view("text"));
    CHECK(t == "text");
    for (int i = 0; i < 10000; ++i) arena.copy(std::string_view("0123456789"));  // several chunks
    CHECK(arena.bytes() >= 100000);
    void* big = arena.allocate(std::size_t(8) << 20, 64);  // larger than any chunk
    CHECK(reinterpret_cast<std::uintptr_t>(big) % 64 == 0);
    arena.reset();
    CHECK(arena.bytes() == 0);
    CHECK(arena.copy(std::string_view("again")) == "again");
}
