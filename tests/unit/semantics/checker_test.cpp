// The type checker: one test per static rule of spec 3.3.1 / 3.3.2 / 3.3.3 (code, stage, line and
// column of the diagnostic), plus the conformance corpus.
#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "grammar/parse.hpp"
#include "semantics/checker.hpp"
#include "semantics/stdlib.hpp"
#include "semantics/types.hpp"
#include "test_support.hpp"

namespace checker_test {

struct Found {
    nnef::Severity severity;
    nnef::Stage stage;
    std::string code;
    std::string message;
    unsigned line = 0;
    unsigned col = 0;
};

struct Outcome {
    bool parsed = false;
    std::vector<Found> diags;  // syntax and semantic diagnostics of the document (not the stdlib)

    std::vector<Found> errors(nnef::Stage stage) const {
        std::vector<Found> out;
        for (const Found& f : diags)
            if (f.severity == nnef::Severity::error && f.stage == stage) out.push_back(f);
        return out;
    }
    std::string dump() const {
        std::ostringstream s;
        for (const Found& f : diags)
            s << f.line << ":" << f.col << ": " << nnef::to_string(f.severity) << "[" << nnef::to_string(f.stage)
              << "] " << f.code << ": " << f.message << "\n";
        return s.str();
    }
};

// Parses `text` and checks it against the standard library of the dialect.
inline Outcome run(const std::string& text, bool strict = true) {
    nnef::SourceManager sm;
    nnef::Diagnostics lib_diags;
    auto stdlib = nnef::sema::load_stdlib(sm, strict, lib_diags);
    REQUIRE_MESSAGE(!lib_diags.has_errors(), "the stdlib does not load");
    const std::uint32_t file = sm.add("test.nnef", text);
    nnef::grammar::ParseOptions popts;
    popts.options.strict = strict;
    nnef::Diagnostics diags(50);
    Outcome out;
    std::optional<nnef::ast::Document> doc = nnef::grammar::parse(sm, file, popts, diags);
    if (doc) {
        out.parsed = true;
        nnef::Options opts;
        opts.strict = strict;
        nnef::sema::check(*doc, stdlib, opts, diags);
    }
    for (const nnef::Diagnostic& d : diags) {
        Found f{d.severity, d.stage, d.code, d.message, 0, 0};
        if (d.range.valid()) {
            nnef::LineCol lc = sm.begin(d.range);
            f.line = lc.line;
            f.col = lc.col;
        }
        out.diags.push_back(f);
    }
    return out;
}

// The header every test document starts with: the body begins on line 4.
const std::string H =
    "version 1.0;\n"
    "extension KHR_enable_fragment_definitions;\n"
    "extension KHR_enable_operator_expressions;\n";

// The column of `marker` in line `line` of `text` (1-based): the position of `^` in the marker,
// or of the marker's start if it has none.
inline unsigned column_of(const std::string& text, unsigned line, const std::string& marker) {
    std::size_t start = 0;
    for (unsigned l = 1; l < line; ++l) start = text.find('\n', start) + 1;
    const std::string the_line = text.substr(start, text.find('\n', start) - start);
    std::string plain = marker;
    std::size_t caret = plain.find('^');
    if (caret != std::string::npos) plain.erase(caret, 1);
    else caret = 0;
    const std::size_t at = the_line.find(plain);
    REQUIRE_MESSAGE(at != std::string::npos, "marker '" << marker << "' not in line " << line << ": " << the_line);
    return static_cast<unsigned>(at + caret + 1);
}

// The document must parse and give exactly one semantic error, with this code, on this line, at
// the column of `marker` (see column_of).
inline void expect_error(const std::string& body, const std::string& code, unsigned line, const std::string& marker) {
    const std::string text = H + body;
    Outcome o = run(text);
    INFO(o.dump());
    REQUIRE(o.parsed);
    auto errs = o.errors(nnef::Stage::semantic);
    REQUIRE(errs.size() == 1);
    CHECK(errs[0].code == code);
    CHECK(errs[0].stage == nnef::Stage::semantic);
    CHECK(errs[0].line == line);
    CHECK(errs[0].col == column_of(text, line, marker));
}

inline void expect_clean(const std::string& body, bool strict = true) {
    Outcome o = run(H + body, strict);
    INFO(o.dump());
    REQUIRE(o.parsed);
    CHECK(o.errors(nnef::Stage::semantic).empty());
}

// A graph whose body line 6 is `line` (the graph header is line 4).
inline std::string graph_with(const std::string& line, const std::string& header = "graph G( input ) -> ( output )") {
    return header +
           "\n"
           "{\n"
           "    input = external(shape = [2]);\n" +
           line + "\n}\n";
}

}  // namespace checker_test

using checker_test::expect_clean;
using checker_test::expect_error;
using checker_test::graph_with;

TEST_SUITE("semantics") {

// ---- type utilities ------------------------------------------------------------------------
TEST_CASE("types: castability follows spec 3.3.1") {
    using nnef::PrimType;
    using nnef::Type;
    using namespace nnef::sema;
    const Type i = Type::primitive(PrimType::integer), s = Type::primitive(PrimType::scalar);
    const Type ts = Type::tensor(PrimType::scalar), ti = Type::tensor(PrimType::integer);
    const Type tu = Type::tensor(PrimType::none);
    CHECK(castable(i, i));
    CHECK_FALSE(castable(i, s));  // no implicit integer -> scalar
    CHECK(castable(s, ts));       // primitive -> tensor of the same data-type for inputs
    CHECK_FALSE(castable(s, ts, false));  // ... but not for results
    CHECK_FALSE(castable(i, ts));
    CHECK(castable(ts, tu));
    CHECK(castable(ti, tu));
    CHECK_FALSE(castable(tu, ts));
    CHECK_FALSE(castable(ts, s));
    CHECK(castable(empty_array_type(), Type::array(i)));
    CHECK(castable(Type::array(Type::array(i)), Type::array(Type::array(i))));
    CHECK_FALSE(castable(Type::array(i), Type::array(s)));
    CHECK(castable(Type::tuple({i, s}), Type::tuple({i, s})));
    CHECK_FALSE(castable(Type::tuple({i, s, s}), Type::tuple({i, s})));
    CHECK_FALSE(castable(i, Type::array(i)));

    CHECK(common_type(empty_array_type(), Type::array(i)) == Type::array(i));
    CHECK(common_type(Type::array(i), empty_array_type()) == Type::array(i));
    CHECK_FALSE(common_type(i, s));
    CHECK(common_type(ts, tu) == tu);
    CHECK_FALSE(common_type(s, ts));

    Deduction d = deduce_generic({{ti, Type::tensor(PrimType::generic)}, {i, Type::primitive(PrimType::generic)}});
    CHECK(d.status == Deduction::Status::unique);
    CHECK(d.binding == PrimType::integer);
    d = deduce_generic({{ti, Type::tensor(PrimType::generic)}, {ts, Type::tensor(PrimType::generic)}});
    CHECK(d.status == Deduction::Status::ambiguous);
    d = deduce_generic({{empty_array_type(), Type::array(Type::primitive(PrimType::generic))}});
    CHECK(d.status == Deduction::Status::none);

    CHECK(type_of(nnef::Value::array({nnef::Value::integer(1), nnef::Value::integer(2)})) == Type::array(i));
    CHECK(type_of(nnef::Value::tuple({nnef::Value::integer(1), nnef::Value::scalar(2)})) == Type::tuple({i, s}));
    CHECK(type_of(nnef::Value::identifier("x")) == tu);
    CHECK(tuple_mixes_tensor_and_attribute(Type::array(Type::tuple({ts, i}))));
    CHECK_FALSE(tuple_mixes_tensor_and_attribute(Type::tuple({ts, Type::array(ts)})));
}

// ---- declarations --------------------------------------------------------------------------
TEST_CASE("checker: duplicate fragment") {
    expect_error("fragment f( x: tensor<scalar> ) -> ( y: tensor<scalar> ) { y = x; }\n"
                 "fragment f( x: tensor<scalar> ) -> ( y: tensor<scalar> ) { y = x; }\n" +
                     graph_with("    output = f(input);"),
                 "duplicate-fragment", 5, "f( x");
}

TEST_CASE("checker: fragment named like a standard operation") {
    expect_error("fragment relu( x: tensor<scalar> ) -> ( y: tensor<scalar> ) { y = x; }\n" +
                     graph_with("    output = relu(input);"),
                 "redefined-standard-fragment", 4, "relu(");
}

TEST_CASE("checker: later-revision names are free in strict mode only") {
    const std::string doc = "fragment gelu( x: tensor<scalar> ) -> ( y: tensor<scalar> ) { y = x; }\n" +
                            graph_with("    output = gelu(input);");
    expect_clean(doc, true);
    auto o = checker_test::run(checker_test::H + doc, false);
    auto errs = o.errors(nnef::Stage::semantic);
    REQUIRE(errs.size() == 1);
    CHECK(errs[0].code == "redefined-standard-fragment");
}

TEST_CASE("checker: duplicate parameter") {
    expect_error("fragment f( x: tensor<scalar>, n: integer, n: integer ) -> ( y: tensor<scalar> ) { y = x; }\n" +
                     graph_with("    output = f(input, n = 1);"),
                 "duplicate-parameter", 4, "integer, ^n: integer )");
}

TEST_CASE("checker: duplicate result") {
    expect_error("fragment f( x: tensor<scalar> ) -> ( y: tensor<scalar>, y: tensor<scalar> ) { y = x; }\n" +
                     graph_with("    output = relu(input);"),
                 "duplicate-result", 4, "scalar>, ^y: tensor");
}

TEST_CASE("checker: parameter and result with the same name") {
    auto o = checker_test::run(checker_test::H + "fragment f( x: tensor<scalar> ) -> ( x: tensor<scalar> ) { y = x; }\n" +
                               graph_with("    output = relu(input);"));
    INFO(o.dump());
    auto errs = o.errors(nnef::Stage::semantic);
    REQUIRE(!errs.empty());
    CHECK(errs[0].code == "parameter-result-clash");
    CHECK(errs[0].line == 4);
    CHECK(errs[0].col == 38);
}

TEST_CASE("checker: tensor parameter after an attribute") {
    expect_error("fragment f( x: tensor<scalar>, k: scalar, b: tensor<scalar> ) -> ( y: tensor<scalar> ) { y = x; }\n" +
                     graph_with("    output = f(input, k = 2.0, b = input);"),
                 "tensor-after-attribute", 4, "^b: tensor");
}

TEST_CASE("checker: default values must match the parameter type exactly") {
    // string for scalar
    expect_error("fragment f( x: tensor<scalar>, k: scalar = 'one' ) -> ( y: tensor<scalar> ) { y = x; }\n" +
                     graph_with("    output = f(input);"),
                 "default-type-mismatch", 4, "'one'");
    // integer for scalar: no implicit cast
    expect_error("fragment f( x: tensor<scalar>, k: scalar = 1 ) -> ( y: tensor<scalar> ) { y = x; }\n" +
                     graph_with("    output = f(input);"),
                 "default-type-mismatch", 4, "= ^1 )");
    // integer for tensor<scalar>
    expect_error("fragment f( x: tensor<scalar>, b: tensor<scalar> = 0 ) -> ( y: tensor<scalar> ) { y = x; }\n" +
                     graph_with("    output = f(input);"),
                 "default-type-mismatch", 4, "= ^0 )");
    // tuple arity
    expect_error("fragment f( x: tensor<scalar>, p: (integer, integer) = (1, 2, 3) ) -> ( y: tensor<scalar> ) { y = x; }\n" +
                     graph_with("    output = f(input);"),
                 "default-type-mismatch", 4, "(1, 2, 3)");
    // scalar default for a tensor<scalar> parameter, empty arrays, generic default: fine
    expect_clean("fragment f( x: tensor<scalar>, b: tensor<scalar> = 0.0, e: integer[] = [], "
                 "p: (integer, integer)[] = [(0, 0)] ) -> ( y: tensor<scalar> ) { y = x; }\n"
                 "fragment g<? = scalar>( s: integer[], v: ? = 0.0 ) -> ( y: tensor<?> ) "
                 "{ y = constant<?>(shape = s, value = [v]); }\n" +
                 graph_with("    output = f(input);"));
}

TEST_CASE("checker: generic types need a generic declaration and vice versa") {
    expect_error("fragment f( x: tensor<?> ) -> ( y: tensor<?> ) { y = x; }\n" +
                     graph_with("    output = relu(input);"),
                 "undeclared-generic", 4, "tensor<?>");
    expect_error("fragment f<?>( x: tensor<scalar> ) -> ( y: tensor<scalar> ) { y = x; }\n" +
                     graph_with("    output = relu(input);"),
                 "unused-generic", 4, "f<?>");
    expect_error("fragment f( x: tensor<scalar> ) -> ( y: tensor<scalar> ) { y = copy<?>(x); }\n" +
                     graph_with("    output = f(input);"),
                 "undeclared-generic", 4, "copy<^?>");
}

TEST_CASE("checker: tuple types may not mix tensors and attributes") {
    expect_error("fragment f( x: tensor<scalar>, p: (tensor<scalar>, integer) ) -> ( y: tensor<scalar> ) { y = x; }\n" +
                     graph_with("    output = relu(input);"),
                 "mixed-tuple-type", 4, "(tensor<scalar>, integer)");
}

TEST_CASE("checker: unbound tensor result") {
    expect_error("fragment f( x: tensor<scalar> ) -> ( y: tensor<> ) { y = x; }\n" +
                     graph_with("    output = relu(input);"),
                 "unbound-tensor-result", 4, "tensor<>");
}

TEST_CASE("checker: results all tensors or all attributes") {
    expect_error("fragment f( x: tensor<scalar> ) -> ( y: tensor<scalar>, n: integer ) { y = x; n = 1; }\n" +
                     graph_with("    output = relu(input);"),
                 "mixed-results", 4, "n: ^integer");
}

// ---- invocations ---------------------------------------------------------------------------
TEST_CASE("checker: unknown operation") {
    expect_error(graph_with("    output = frobnicate(input);"), "unknown-operation", 7, "frobnicate");
}

TEST_CASE("checker: later-revision operations are unknown in strict mode only") {
    const std::string doc = graph_with("    output = tile(input, repeats = [2]);");
    auto o = checker_test::run(checker_test::H + doc, true);
    auto errs = o.errors(nnef::Stage::semantic);
    REQUIRE(errs.size() == 1);
    CHECK(errs[0].code == "unknown-operation");
    expect_clean(doc, false);
}

TEST_CASE("checker: too many arguments") {
    expect_error(graph_with("    output = relu(input, input);"), "too-many-arguments", 7, "input, ^input)");
}

TEST_CASE("checker: missing argument") {
    expect_error(graph_with("    output = reshape(input);"), "missing-argument", 7, "reshape");
}

TEST_CASE("checker: unknown named argument") {
    expect_error(graph_with("    output = softmax(input, size = [1]);"), "unknown-argument", 7, "size");
}

TEST_CASE("checker: duplicate named argument") {
    expect_error(graph_with("    output = reshape(input, shape = [2], shape = [1, 2]);"), "duplicate-argument", 7, "[2], ^shape");
}

TEST_CASE("checker: named argument for a parameter given positionally") {
    expect_error(graph_with("    output = add(input, input, x = input);"), "duplicate-argument", 7, "x = input");
}

TEST_CASE("checker: positional arguments precede named ones") {
    // The grammar may already reject this form (a syntax error); if it parses, the checker must.
    auto o = checker_test::run(checker_test::H + graph_with("    output = add(x = input, input);"));
    INFO(o.dump());
    if (o.parsed) {
        auto errs = o.errors(nnef::Stage::semantic);
        REQUIRE(errs.size() == 1);
        CHECK(errs[0].code == "positional-after-named");
        CHECK(errs[0].line == 7);
    } else {
        CHECK(!o.errors(nnef::Stage::syntax).empty());
    }
}

TEST_CASE("checker: attributes must be named, tensors may be named") {
    expect_error(graph_with("    output = leaky_relu(input, 0.1);"), "positional-attribute", 7, "0.1");
    expect_clean(graph_with("    output = add(x = input, y = input);"));
}

TEST_CASE("checker: argument types") {
    // integer for a scalar attribute
    expect_error(graph_with("    output = leaky_relu(input, alpha = 1);"), "argument-type-mismatch", 7, "= ^1)");
    // scalar items for integer[]
    expect_error(graph_with("    output = softmax(input, axes = [1.0]);"), "argument-type-mismatch", 7, "[1.0]");
    // tensor for an attribute
    expect_error(graph_with("    output = reshape(input, shape = input);"), "argument-type-mismatch", 7, "shape = ^input");
    // scalar literal for tensor<logical>
    expect_error(graph_with("    output = select(1.0, input, input);"), "argument-type-mismatch", 7, "1.0");
    // tensor<integer> for tensor<scalar>
    expect_error("graph G( input ) -> ( output )\n{\n    input = external<integer>(shape = [2]);\n"
                 "    output = exp(input);\n}\n",
                 "argument-type-mismatch", 7, "exp(^input");
    // tensor array items
    expect_error("graph G( input ) -> ( output )\n{\n    input = external<integer>(shape = [2]);\n"
                 "    output = add_n([input, input]);\n}\n",
                 "argument-type-mismatch", 7, "[input, input]");
    // tuples: arity and primitive-for-tuple
    expect_error(graph_with("    output = box(input, size = [1], padding = [(0, 0, 0)]);"), "argument-type-mismatch", 7, "[(0, 0, 0)]");
    expect_error(graph_with("    output = box(input, size = [1], padding = [0, 0]);"), "argument-type-mismatch", 7, "[0, 0]");
    // primitive for an array
    expect_error(graph_with("    output = box(input, size = 1);"), "argument-type-mismatch", 7, "size = ^1");
    // a literal for a tensor input is a rank-0 constant
    expect_clean(graph_with("    output = add(input, 1.0);"));
}

TEST_CASE("checker: explicit generic argument on a non-generic operation") {
    expect_error(graph_with("    output = relu<scalar>(input);"), "generic-on-non-generic", 7, "scalar");
}

TEST_CASE("checker: generic deduction") {
    expect_error("graph G( c, a, b ) -> ( output )\n{\n    c = external<logical>(shape = [2]);\n"
                 "    a = external<integer>(shape = [2]);\n    b = external(shape = [2]);\n"
                 "    output = select(c, a, b);\n}\n",
                 "ambiguous-generic", 9, "select");
    expect_error("fragment g<?>( shape: integer[] ) -> ( y: tensor<?> ) { y = constant<?>(shape = shape, value = []); }\n" +
                     graph_with("    output = g(shape = [2]);"),
                 "undeducible-generic", 8, "g(shape");
    expect_clean("fragment g<?>( shape: integer[] ) -> ( y: tensor<?> ) { y = constant<?>(shape = shape, value = []); }\n" +
                 graph_with("    output = g<integer>(shape = [2]);"));
    // an empty array gives no candidate
    expect_error("fragment g<?>( v: ?[] ) -> ( n: integer ) { n = length_of(v); }\n" +
                     graph_with("    output = constant(shape = [g(v = [])], value = [0.0]);"),
                 "undeducible-generic", 8, "g(v");
    // `?` propagated with <?> and by deduction inside a generic fragment
    expect_clean("fragment f<?>( c: tensor<logical>, x: tensor<?>, v: ? ) -> ( y: tensor<?>, z: tensor<?> )\n"
                 "{ y = select(c, x, v); z = copy<?>(constant<?>(shape = [1], value = [v])); }\n" +
                 graph_with("    output = relu(input);"));
    // deduced from a literal against tensor<?>
    expect_clean("graph G( c, a ) -> ( output )\n{\n    c = external<logical>(shape = [2]);\n"
                 "    a = external<integer>(shape = [2]);\n"
                 "    output = select(c, a, 0);\n}\n");
}

TEST_CASE("checker: the generic default is substituted without deduction") {
    // constant<? = scalar>: integer values need <integer>
    expect_error(graph_with("    output = constant(shape = [2], value = [1, 2]);"), "argument-type-mismatch", 7, "[1, 2]");
    expect_clean(graph_with("    output = constant<integer>(shape = [2], value = [1, 2]);", "graph G( input ) -> ( output )"));
}

TEST_CASE("checker: defaults of generic parameters against the binding") {
    expect_error("fragment fill<? = scalar>( shape: integer[], v: ? = 0.0 ) -> ( y: tensor<?> )\n"
                 "{ y = constant<?>(shape = shape, value = [v]); }\n" +
                     graph_with("    output = fill<integer>(shape = [3]);"),
                 "default-type-mismatch", 9, "fill");
}

// ---- expressions ---------------------------------------------------------------------------
TEST_CASE("checker: operator typing") {
    const auto shaped = [](const std::string& e) {
        return graph_with("    output = constant(shape = [" + e + "], value = [0.0]);");
    };
    expect_error(shaped("2 if 1 == 1.0 else 3"), "operator-type-mismatch", 7, "1 == 1.0");
    expect_error(shaped("2 if 'a' < 'b' else 3"), "operator-type-mismatch", 7, "'a' < 'b'");
    expect_error(shaped("2 if 1 && 1 else 3"), "operator-type-mismatch", 7, "1 && 1");
    expect_error(shaped("2 if !0 else 3"), "operator-type-mismatch", 7, "!0");
    expect_error(shaped("length_of('ab' ^ 'c')"), "operator-type-mismatch", 7, "^'ab' ^ 'c'");
    expect_error(shaped("length_of([1] + [2.0])"), "operator-type-mismatch", 7, "[1] + [2.0]");
    expect_error(shaped("2 if 1 in 2 else 3"), "operator-type-mismatch", 7, "1 in 2");
    expect_error(shaped("2 + 1.0"), "operator-type-mismatch", 7, "2 + 1.0");
    expect_error(shaped("length_of([1] * 2.0)"), "operator-type-mismatch", 7, "[1] * 2.0");
    expect_clean(shaped("2 if (1 in [1, 2]) && ('a' + 'b' == 'ab') && !false else 3, length_of([1] * 2 + []), 2 ^ 3"));
}

TEST_CASE("checker: tensor operators are typed as their fragments") {
    // `input * (2 + 0.5)`: the inner mixed arithmetic is the error
    expect_error(graph_with("    output = input * (2 + 0.5);"), "operator-type-mismatch", 7, "2 + 0.5");
    // integer literal for mul's tensor<scalar>
    expect_error(graph_with("    output = input * 2;"), "argument-type-mismatch", 7, "* ^2");
    expect_error(graph_with("    output = -(input < input);"), "argument-type-mismatch", 7, "(input < input)");
    expect_clean(graph_with("    output = -input * 2.0 + (input ^ 2.0) / input;"));
    expect_clean("graph G( a, m ) -> ( output )\n{\n    a = external(shape = [2]);\n"
                 "    m = external<logical>(shape = [2]);\n    output = !m || a < a && m;\n}\n");
}

TEST_CASE("checker: array items need a common type") {
    expect_error(graph_with("    output = constant(shape = [2], value = [1.0, 2]);"), "array-item-type-mismatch", 7, "[1.0, 2]");
}

TEST_CASE("checker: tuple expressions may not mix tensors and attributes") {
    expect_error("fragment f( x: tensor<scalar> ) -> ( y: tensor<scalar> ) { t = (x, 1); y = t[0]; }\n" +
                     graph_with("    output = f(input);"),
                 "mixed-tuple", 4, "(x, 1)");
}

TEST_CASE("checker: if-else") {
    expect_error(graph_with("    output = relu(input) if 1 else exp(input);"), "condition-not-logical", 7, "if ^1");
    expect_error(graph_with("    output = relu(input) if true else 1.0;"), "branch-type-mismatch", 7, "relu");
}

TEST_CASE("checker: comprehensions") {
    const auto shaped = [](const std::string& e) {
        return graph_with("    output = constant(shape = " + e + ", value = [0.0]);");
    };
    expect_error(shaped("[for i in [1, 2] if i yield i]"), "condition-not-logical", 7, "if ^i yield");
    expect_error(shaped("[for i in 3 yield i]"), "comprehension-not-array", 7, "in ^3");
    expect_clean(shaped("[for i in [1, 2], j in range_of('ab') if i != j yield i * j]"));
}

TEST_CASE("checker: subscripts") {
    expect_error("fragment f( x: tensor<scalar>, n: integer ) -> ( y: tensor<scalar> ) { k = n[0]; y = x; }\n" +
                     graph_with("    output = f(input, n = 1);"),
                 "subscript-type-mismatch", 4, "n[0]");
    expect_error(graph_with("    output = relu(input[0]);"), "subscript-type-mismatch", 7, "input[0]");
    expect_error("fragment f( t: (integer, integer, integer) ) -> ( v: (integer, integer) ) { v = t[0:2]; }\n" +
                     graph_with("    output = relu(input);"),
                 "tuple-subscript-range", 4, "t[0:2]");
    expect_error("fragment f( t: (integer, integer), i: integer ) -> ( v: integer ) { v = t[i]; }\n" +
                     graph_with("    output = relu(input);"),
                 "tuple-index-not-literal", 4, "t[^i]");
    expect_error("fragment f( t: (integer, integer) ) -> ( v: integer ) { v = t[2]; }\n" +
                     graph_with("    output = relu(input);"),
                 "tuple-index-out-of-range", 4, "t[^2]");
    expect_error("fragment f( a: integer[] ) -> ( v: integer ) { v = a[1.0]; }\n" +
                     graph_with("    output = relu(input);"),
                 "index-not-integer", 4, "a[^1.0]");
    expect_clean("fragment f( t: (integer, scalar), a: integer[], s: string ) -> ( v: scalar, w: integer[], c: string )\n"
                 "{ v = t[1]; w = a[1:] + a[:1] + [a[0]]; c = s[0] + s[1:2]; }\n" +
                 graph_with("    output = relu(input);"));
}

TEST_CASE("checker: built-in functions") {
    const auto shaped = [](const std::string& e) {
        return graph_with("    output = constant(shape = [" + e + "], value = [0.0]);");
    };
    expect_error(shaped("length_of(5)"), "builtin-type-mismatch", 7, "length_of(^5)");
    expect_error(shaped("integer(input)"), "builtin-type-mismatch", 7, "integer(^input)");
    expect_error(shaped("length_of(string([1, 2]))"), "builtin-type-mismatch", 7, "string(^[1, 2])");
    expect_error(shaped("length_of(shape_of([1, 2]))"), "builtin-type-mismatch", 7, "shape_of(^[1, 2])");
    expect_clean(shaped("length_of(shape_of(input)) + length_of(shape_of(1.0)) + integer(scalar(1) * 2.5) + "
                        "length_of(range_of([1])) + integer(logical('x')) + length_of(string(true))"));
}

// ---- assignments and identifiers -----------------------------------------------------------
TEST_CASE("checker: lvalues must match the value") {
    expect_error("graph G( input ) -> ( a, b )\n{\n    input = external(shape = [4, 2]);\n"
                 "    [a, b] = moments(input, axes = [1]);\n}\n",
                 "lvalue-type-mismatch", 7, "[a, b]");
    expect_error("graph G( input ) -> ( a, b, c )\n{\n    input = external(shape = [4, 2]);\n"
                 "    a, b, c = moments(input, axes = [1]);\n}\n",
                 "unpack-count-mismatch", 7, "a, b, c =");
    expect_clean("graph G( input ) -> ( a, b, c )\n{\n    input = external(shape = [4, 2]);\n"
                 "    [a, b] = split(input, axis = 0, ratios = [1, 1]);\n    c = a;\n}\n");
}

TEST_CASE("checker: array lvalues, on an AST edited after parsing (independent of the grammar)") {
    // `a, b = ...` parses as a tuple lvalue; turning it into `[a, b]` checks the array rules alone.
    const std::string text = checker_test::H +
                             "graph G( input ) -> ( a, b, c, d )\n{\n    input = external(shape = [4, 2]);\n"
                             "    a, b = moments(input, axes = [1]);\n"
                             "    c, d = split(input, axis = 0, ratios = [1, 1]);\n}\n";
    nnef::SourceManager sm;
    nnef::Diagnostics diags;
    auto stdlib = nnef::sema::load_stdlib(sm, true, diags);
    const std::uint32_t file = sm.add("t.nnef", text);
    auto doc = nnef::grammar::parse(sm, file, {}, diags);
    REQUIRE(doc);
    REQUIRE(doc->graph->body.size() == 3);
    REQUIRE(doc->graph->body[1].lhs.kind == nnef::ast::ExprKind::tuple);
    doc->graph->body[1].lhs.kind = nnef::ast::ExprKind::array;  // [a, b] = moments(...): a tuple result
    doc->graph->body[2].lhs.kind = nnef::ast::ExprKind::array;  // [c, d] = split(...): an array result
    nnef::Options opts;
    opts.strict = true;
    nnef::sema::check(*doc, stdlib, opts, diags);
    std::vector<const nnef::Diagnostic*> errs;
    for (const nnef::Diagnostic& d : diags)
        if (d.severity == nnef::Severity::error) errs.push_back(&d);
    REQUIRE(errs.size() == 1);
    CHECK(errs[0]->code == "lvalue-type-mismatch");
    CHECK(sm.begin(errs[0]->range).line == 7);
}

TEST_CASE("checker: fragment parameters cannot be assigned") {
    expect_error("fragment f( x: tensor<scalar> ) -> ( y: tensor<scalar> ) { x = relu(x); y = x; }\n" +
                     graph_with("    output = f(input);"),
                 "assign-to-parameter", 4, "x = relu");
}

TEST_CASE("checker: result types") {
    expect_error("fragment half( n: integer ) -> ( h: integer ) { h = scalar(n) / 2.0; }\n" +
                     graph_with("    output = relu(input);"),
                 "result-type-mismatch", 4, "scalar(n) / 2.0");
    // a primitive is not cast to a tensor result
    expect_error("fragment f( x: tensor<scalar> ) -> ( y: tensor<scalar> ) { y = 1.0; }\n" +
                     graph_with("    output = f(input);"),
                 "result-type-mismatch", 4, "1.0");
}

TEST_CASE("checker: every fragment result is assigned") {
    expect_error("fragment f( x: tensor<scalar> ) -> ( y: tensor<scalar>, z: tensor<scalar> ) { y = x; }\n" +
                     graph_with("    output = relu(input);"),
                 "result-not-assigned", 4, "^z: tensor");
}

TEST_CASE("checker: identifiers are defined before use and once") {
    expect_error(graph_with("    output = add(input, bias);"), "undefined-identifier", 7, "bias");
    expect_error(graph_with("    output = relu(output);"), "undefined-identifier", 7, "relu(^output");
    expect_error(graph_with("    h = relu(input);\n    h = exp(input);\n    output = h;"), "redefinition", 8, "h =");
    expect_error("graph G( input ) -> ( a )\n{\n    input = external(shape = [4, 2]);\n"
                 "    a, a = moments(input, axes = [1]);\n}\n",
                 "redefinition", 7, "a, ^a =");
    expect_error("fragment f( x: tensor<scalar> ) -> ( y: tensor<scalar> ) { t = x; t = x; y = t; }\n" +
                     graph_with("    output = f(input);"),
                 "redefinition", 4, "x; ^t = x");
}

TEST_CASE("checker: graph parameters come from external, and external only defines them") {
    expect_error("graph G( input ) -> ( output )\n{\n    input = variable(shape = [2], label = 'in');\n"
                 "    output = relu(input);\n}\n",
                 "graph-parameter-not-external", 6, "input =");
    expect_error("graph G( input, extra ) -> ( output )\n{\n    input = external(shape = [2]);\n"
                 "    output = relu(input);\n}\n",
                 "graph-parameter-not-defined", 4, "extra");
    expect_error(graph_with("    e = external(shape = [2]);\n    output = add(input, e);"), "external-not-parameter", 7, "e =");
    expect_error(graph_with("    output = relu(external(shape = [2]));"), "external-not-parameter", 7, "external");
    expect_error("fragment f( x: tensor<scalar> ) -> ( y: tensor<scalar> ) { e = external(shape = [2]); y = x; }\n" +
                     graph_with("    output = f(input);"),
                 "external-in-fragment", 4, "external");
}

TEST_CASE("checker: graph declaration") {
    expect_error("graph G( input ) -> ( output )\n{\n    input = external(shape = [2]);\n"
                 "    logits = relu(input);\n}\n",
                 "graph-result-not-assigned", 4, "output )");
    expect_error("graph G( a, a ) -> ( b )\n{\n    a = external(shape = [2]);\n    b = relu(a);\n}\n",
                 "duplicate-graph-parameter", 4, "a, ^a )");
    expect_error("graph G( a ) -> ( b, b )\n{\n    a = external(shape = [2]);\n    b = relu(a);\n}\n",
                 "duplicate-graph-result", 4, "b, ^b )");
    // a parameter may also be a result
    expect_clean("graph G( a ) -> ( a, b )\n{\n    a = external(shape = [2]);\n    b = relu(a);\n}\n");
}

TEST_CASE("checker: graph identifiers are single tensors") {
    expect_error(graph_with("    s = [2];\n    output = reshape(input, shape = s);"), "graph-identifier-not-tensor", 7, "s =");
    expect_error(graph_with("    flag = true;\n    output = relu(input) if flag else exp(input);"),
                 "graph-identifier-not-tensor", 7, "flag =");
    expect_error(graph_with("    parts = split(input, axis = 0, ratios = [1, 1]);\n    output = concat(parts, axis = 0);"),
                 "graph-identifier-not-tensor", 7, "parts =");
}

// ---- error handling ------------------------------------------------------------------------
TEST_CASE("checker: independent errors are all reported, cascades are not") {
    auto o = checker_test::run(checker_test::H + graph_with("    a = relu(undefined1);\n"
                                                            "    b = exp(a * 2);\n"
                                                            "    c = frob(b);\n"
                                                            "    output = leaky_relu(c, alpha = 1);"));
    INFO(o.dump());
    auto errs = o.errors(nnef::Stage::semantic);
    REQUIRE(errs.size() == 4);
    CHECK(errs[0].code == "undefined-identifier");
    CHECK(errs[1].code == "argument-type-mismatch");
    CHECK(errs[2].code == "unknown-operation");
    CHECK(errs[3].code == "argument-type-mismatch");
}

TEST_CASE("checker: an undefined name is reported once per body") {
    expect_error(graph_with("    a = add(input, bias);\n    output = add(a, bias);"), "undefined-identifier", 7, "bias");
}

TEST_CASE("checker: stops at the error limit") {
    std::string body;
    for (int i = 0; i < 100; ++i) body += "    x" + std::to_string(i) + " = relu(nothing" + std::to_string(i) + ");\n";
    nnef::SourceManager sm;
    nnef::Diagnostics lib_diags;
    auto stdlib = nnef::sema::load_stdlib(sm, true, lib_diags);
    const std::uint32_t file = sm.add("t.nnef", checker_test::H + graph_with(body + "    output = relu(input);"));
    nnef::Diagnostics diags(5);
    auto doc = nnef::grammar::parse(sm, file, {}, diags);
    REQUIRE(doc);
    nnef::Options opts;
    opts.strict = true;
    nnef::sema::check(*doc, stdlib, opts, diags);
    CHECK(diags.error_count() == 5);
    CHECK(diags.limit_reached());
}

TEST_CASE("checker: a large flat graph is checked quickly") {
    std::string body = "graph G( x0 ) -> ( y )\n{\n    x0 = external(shape = [1, 8]);\n";
    const int n = 20000;
    for (int i = 1; i <= n; ++i)
        body += "    x" + std::to_string(i) + " = " + (i % 2 ? "relu(" : "add(x" + std::to_string(i / 2) + ", ") + "x" +
                std::to_string(i - 1) + ");\n";
    body += "    y = copy(x" + std::to_string(n) + ");\n}\n";
    auto o = checker_test::run("version 1.0;\n" + body);
    INFO(o.dump());
    REQUIRE(o.parsed);
    CHECK(o.errors(nnef::Stage::semantic).empty());
}

TEST_CASE("checker: the standard library itself type-checks") {
    for (bool strict : {true, false}) {
        nnef::SourceManager sm;
        nnef::Diagnostics diags;
        auto stdlib = nnef::sema::load_stdlib(sm, strict, diags);
        REQUIRE(!diags.has_errors());
        nnef::Options opts;
        opts.strict = strict;
        for (const nnef::ast::Document& doc : stdlib->documents) nnef::sema::check(doc, stdlib, opts, diags);
        std::string all;
        for (const nnef::Diagnostic& d : diags) all += nnef::render(d, sm) + "\n";
        INFO("strict=" << strict << "\n" << all);
        CHECK(!diags.has_errors());
    }
}

}  // TEST_SUITE

// ---- did you mean ----------------------------------------------------------------------------
TEST_SUITE("semantics") {
    TEST_CASE("checker: did you mean, for unknown operations, parameters and identifiers") {
        auto message = [](const std::string& body) {
            auto o = checker_test::run(checker_test::H + body);
            INFO(o.dump());
            auto errs = o.errors(nnef::Stage::semantic);
            REQUIRE(errs.size() == 1);
            return errs[0].message;
        };
        CHECK(message(graph_with("    output = rleu(input);")) == "unknown operation 'rleu'; did you mean 'relu'?");
        CHECK(message(graph_with("    output = sigmoidd(input);")) ==
              "unknown operation 'sigmoidd'; did you mean 'sigmoid'?");
        // a fragment of the document is a candidate too
        CHECK(message("fragment my_block( x: tensor<scalar> ) -> ( y: tensor<scalar> ) { y = relu(x); }\n" +
                      graph_with("    output = my_blok(input);")) ==
              "unknown operation 'my_blok'; did you mean 'my_block'?");
        CHECK(message(graph_with("    output = frobnicate(input);")) == "unknown operation 'frobnicate'");
        CHECK(message(graph_with("    output = max_pool(input, size = [2], strid = [2]);")) ==
              "'max_pool' has no parameter named 'strid'; did you mean 'stride'?");
        CHECK(message(graph_with("    output = max_pool(input, size = [2], colour = [2]);")) ==
              "'max_pool' has no parameter named 'colour'");
        CHECK(message(graph_with("    output = relu(inptu);")) ==
              "identifier 'inptu' is used before it is defined; did you mean 'input'?");
        // inside a fragment: its parameters and the loop variables of a comprehension are candidates
        CHECK(message("fragment f( values: tensor<scalar>[] ) -> ( y: tensor<scalar> )\n"
                      "{ y = concat([for value in values yield relu(valeu)], axis = 0); }\n" +
                      graph_with("    output = f([input]);")) ==
              "identifier 'valeu' is used before it is defined; did you mean 'value'?");
        CHECK(message(graph_with("    output = relu(unrelated_name);")) ==
              "identifier 'unrelated_name' is used before it is defined");
    }
}
