// The embedded standard library: the embedded texts are current, they parse cleanly, the dialects
// see the right fragments, and representative signatures match the spec.
#include "test_support.hpp"

#include <nnef/diagnostics.hpp>
#include <nnef/source.hpp>
#include <nnef/value.hpp>

#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include "grammar/ast.hpp"
#include "semantics/stdlib.hpp"

namespace stdlib_test {

// A literal default value as NNEF text: `0.0`, `'constant'`, `[]`, `[(0,0)]`, `-1`.
inline std::string literal(const nnef::ast::Expr& e) {
    using K = nnef::ast::ExprKind;
    auto list = [&](const char* open, const char* close) {
        std::string s = open;
        for (std::size_t i = 0; i < e.children.size(); ++i) s += (i ? "," : "") + literal(e.children[i]);
        return s + close;
    };
    switch (e.kind) {
        case K::integer: return std::to_string(e.ival);
        case K::scalar: return nnef::format_scalar(e.sval);
        case K::logical: return e.bval ? "true" : "false";
        case K::string: return nnef::quote(e.text);
        case K::array: return list("[", "]");
        case K::tuple: return list("(", ")");
        case K::unary: return e.op + literal(e.children.at(0));
        case K::paren: return literal(e.children.at(0));
        default: return "<not a literal>";
    }
}

// A declaration in one line: `name<? = scalar>(p: type = default, ...) -> (r: type, ...)`.
inline std::string signature(const nnef::ast::Fragment& f) {
    std::string s = f.name;
    if (f.generic)
        s += f.generic_default ? std::string("<? = ") + nnef::to_string(*f.generic_default) + ">" : "<?>";
    s += "(";
    for (std::size_t i = 0; i < f.params.size(); ++i) {
        const nnef::ast::Param& p = f.params[i];
        s += (i ? ", " : "") + p.name + ": " + nnef::to_string(p.type);
        if (p.default_value) s += " = " + literal(*p.default_value);
    }
    s += ") -> (";
    for (std::size_t i = 0; i < f.results.size(); ++i)
        s += (i ? ", " : "") + f.results[i].name + ": " + nnef::to_string(f.results[i].type);
    return s + ")";
}

// A loaded standard library with the source manager its positions point into.
struct Loaded {
    nnef::SourceManager sm;
    nnef::Diagnostics diags;
    std::shared_ptr<const nnef::sema::Stdlib> lib;
    explicit Loaded(bool strict) : lib(nnef::sema::load_stdlib(sm, strict, diags)) {}
};

inline std::string render_all(const nnef::Diagnostics& diags, const nnef::SourceManager& sm) {
    std::string s;
    for (const nnef::Diagnostic& d : diags) s += nnef::render(d, sm);
    return s;
}

inline std::string sig(const nnef::sema::Stdlib& lib, const std::string& name) {
    const nnef::ast::Fragment* f = lib.find(name);
    return f ? signature(*f) : "<missing " + name + ">";
}

// Every operation of revision 3, chapter 4 (plus the helper `_unsqueeze_shape`).
inline const std::vector<std::string>& rev3_names() {
    static const std::vector<std::string> names = {
        "external", "constant", "variable",
        "copy", "neg", "rcp", "exp", "log", "abs", "sign", "not", "floor", "ceil", "round", "tanh",
        "add", "sub", "mul", "div", "pow", "lt", "gt", "le", "ge", "eq", "ne", "and", "or",
        "select", "sqr", "sqrt", "rsqr", "rsqrt", "log2", "min", "max", "clamp",
        "conv", "deconv", "box", "debox", "argmax_pool", "sample", "desample",
        "nearest_downsample", "area_downsample", "nearest_upsample", "multilinear_upsample",
        "sum_reduce", "max_reduce", "min_reduce", "argmax_reduce", "argmin_reduce", "mean_reduce",
        "reshape", "squeeze", "unsqueeze", "_unsqueeze_shape", "transpose", "split", "concat", "stack",
        "unstack", "slice",
        "avg_roi_pool", "max_roi_pool", "roi_resample", "avg_roi_align", "max_roi_align",
        "matmul", "update",
        "sigmoid", "relu", "prelu", "leaky_relu", "elu", "softmax", "softplus",
        "linear", "separable_conv", "separable_deconv",
        "max_pool_with_index", "max_pool", "avg_pool", "rms_pool",
        "local_response_normalization", "local_mean_normalization", "local_variance_normalization",
        "local_contrast_normalization", "l1_normalization", "l2_normalization", "batch_normalization",
        "linear_quantize", "logarithmic_quantize",
        "copy_n", "add_n", "moments",
    };
    return names;
}

inline const std::vector<std::string>& later_only_names() {
    static const std::vector<std::string> names = {
        "tile", "pad", "gather", "cast", "sin", "cos", "tan", "sinh", "cosh", "asin", "acos", "atan",
        "asinh", "acosh", "atanh", "any_reduce", "all_reduce",
        "softabs", "selu", "gelu", "silu", "min_max_linear_quantize", "zero_point_linear_quantize",
    };
    return names;
}

}  // namespace stdlib_test

TEST_SUITE("semantics") {
    TEST_CASE("stdlib: the embedded texts are the .nnef files") {
        const auto dir = nnef_test::source_dir() / "semantics" / "stdlib";
        INFO("the embedded stdlib is out of date: run `cmake --build <build dir> --target update-stdlib`");
        CHECK(std::string(nnef::sema::stdlib_rev3_text()) == nnef_test::read_text(dir / "stdlib.nnef"));
        CHECK(std::string(nnef::sema::stdlib_later_text()) == nnef_test::read_text(dir / "stdlib_later.nnef"));
    }

    TEST_CASE("stdlib: both texts parse without any diagnostic") {
        for (bool strict : {true, false}) {
            CAPTURE(strict);
            stdlib_test::Loaded loaded(strict);
            const auto& lib = loaded.lib;
            REQUIRE(lib);
            INFO(stdlib_test::render_all(loaded.diags, loaded.sm));
            CHECK(loaded.diags.empty());
            CHECK(lib->strict == strict);
            REQUIRE(lib->documents.size() == (strict ? 1u : 2u));
            CHECK(loaded.sm.name(lib->documents[0].file) == "<stdlib>");
            if (!strict) CHECK(loaded.sm.name(lib->documents[1].file) == "<stdlib-later>");
            for (const auto& doc : lib->documents) CHECK_FALSE(doc.graph);
        }
    }

    TEST_CASE("stdlib: every revision 3 operation is declared, nothing else in strict mode") {
        stdlib_test::Loaded strict_lib(true), later_lib(false);
        const auto& strict = strict_lib.lib;
        const auto& later = later_lib.lib;
        std::set<std::string> expected(stdlib_test::rev3_names().begin(), stdlib_test::rev3_names().end());
        std::set<std::string> declared;
        for (const auto& [name, f] : strict->fragments) {
            declared.insert(name);
            CHECK(f->name == name);
        }
        CHECK(declared == expected);
        CHECK(strict->fragments.size() == strict->documents[0].fragments.size());  // no name twice
        for (const std::string& name : stdlib_test::later_only_names()) {
            CAPTURE(name);
            CHECK(strict->find(name) == nullptr);
            CHECK(later->find(name) != nullptr);
        }
        for (const std::string& name : stdlib_test::rev3_names()) {
            CAPTURE(name);
            CHECK(later->find(name) != nullptr);
        }
        CHECK(later->fragments.size() == expected.size() + stdlib_test::later_only_names().size());
        CHECK(strict->find("debbox") == nullptr);
    }

    TEST_CASE("stdlib: primitives and compounds") {
        stdlib_test::Loaded strict_lib(true), later_lib(false);
        const auto& strict = strict_lib.lib;
        const auto& later = later_lib.lib;
        for (const char* name : {"conv", "box", "debox", "reshape", "slice", "matmul", "tanh", "select",
                                 "multilinear_upsample", "roi_resample", "update"}) {
            CAPTURE(name);
            CHECK(strict->is_primitive(name));
            CHECK(later->is_primitive(name));
        }
        for (const char* name : {"sigmoid", "relu", "linear", "max_pool", "avg_pool", "softmax", "add_n",
                                 "batch_normalization", "linear_quantize", "elu", "clamp", "avg_roi_align"}) {
            CAPTURE(name);
            CHECK_FALSE(strict->is_primitive(name));
            CHECK_FALSE(later->is_primitive(name));
            REQUIRE(strict->find(name));
            CHECK_FALSE(strict->find(name)->body->empty());
        }
        // Compounds of revision 3 that later revisions make primitives.
        for (const char* name : {"squeeze", "unsqueeze", "stack", "unstack"}) {
            CAPTURE(name);
            CHECK_FALSE(strict->is_primitive(name));
            CHECK(later->is_primitive(name));
        }
        for (const std::string& name : stdlib_test::later_only_names()) {
            CAPTURE(name);
            const bool compound = name == "softabs" || name == "selu" || name == "gelu" || name == "silu" ||
                                  name.find("linear_quantize") != std::string::npos;
            CHECK(later->is_primitive(name) == !compound);
        }
        CHECK_FALSE(strict->is_primitive("no_such_op"));
    }

    TEST_CASE("stdlib: revision 3 signatures follow the spec") {
        stdlib_test::Loaded loaded(true);
        const auto& lib = loaded.lib;
        const std::vector<std::pair<const char*, const char*>> table = {
            {"external", "external<? = scalar>(shape: integer[]) -> (output: tensor<?>)"},
            {"constant", "constant<? = scalar>(shape: integer[], value: ?[]) -> (output: tensor<?>)"},
            {"variable", "variable<? = scalar>(shape: integer[], label: string) -> (output: tensor<?>)"},
            {"conv",
             "conv(input: tensor<scalar>, filter: tensor<scalar>, bias: tensor<scalar> = 0.0, "
             "border: string = 'constant', padding: (integer,integer)[] = [], stride: integer[] = [], "
             "dilation: integer[] = [], groups: integer = 1) -> (output: tensor<scalar>)"},
            {"deconv",
             "deconv(input: tensor<scalar>, filter: tensor<scalar>, bias: tensor<scalar> = 0.0, "
             "border: string = 'constant', padding: (integer,integer)[] = [], stride: integer[] = [], "
             "dilation: integer[] = [], output_shape: integer[] = [], groups: integer = 1) "
             "-> (output: tensor<scalar>)"},
            {"box",
             "box(input: tensor<scalar>, size: integer[], border: string = 'constant', "
             "padding: (integer,integer)[] = [], stride: integer[] = [], dilation: integer[] = [], "
             "normalize: logical = false) -> (output: tensor<scalar>)"},
            {"debox",
             "debox(input: tensor<scalar>, size: integer[], border: string = 'constant', "
             "padding: (integer,integer)[] = [], stride: integer[] = [], dilation: integer[] = [], "
             "output_shape: integer[] = [], normalize: logical = false) -> (output: tensor<scalar>)"},
            {"argmax_pool",
             "argmax_pool(input: tensor<scalar>, size: integer[], border: string = 'constant', "
             "padding: (integer,integer)[] = [], stride: integer[] = [], dilation: integer[] = []) "
             "-> (index: tensor<integer>)"},
            {"max_pool_with_index",
             "max_pool_with_index(input: tensor<scalar>, size: integer[], border: string = 'constant', "
             "padding: (integer,integer)[] = [], stride: integer[] = [], dilation: integer[] = []) "
             "-> (output: tensor<scalar>, index: tensor<integer>)"},
            {"reshape", "reshape<?>(input: tensor<?>, shape: integer[]) -> (output: tensor<?>)"},
            {"slice",
             "slice<?>(input: tensor<?>, axes: integer[], begin: integer[], end: integer[]) "
             "-> (output: tensor<?>)"},
            {"split", "split<?>(value: tensor<?>, axis: integer, ratios: integer[]) -> (values: tensor<?>[])"},
            {"concat", "concat<?>(values: tensor<?>[], axis: integer) -> (value: tensor<?>)"},
            {"matmul",
             "matmul(A: tensor<scalar>, B: tensor<scalar>, transposeA: logical = false, "
             "transposeB: logical = false) -> (C: tensor<scalar>)"},
            {"batch_normalization",
             "batch_normalization(input: tensor<scalar>, mean: tensor<scalar>, variance: tensor<scalar>, "
             "offset: tensor<scalar>, scale: tensor<scalar>, epsilon: scalar) -> (output: tensor<scalar>)"},
            {"softmax", "softmax(x: tensor<scalar>, axes: integer[] = [1]) -> (y: tensor<scalar>)"},
            {"linear_quantize",
             "linear_quantize(x: tensor<scalar>, min: tensor<scalar>, max: tensor<scalar>, bits: integer) "
             "-> (y: tensor<scalar>)"},
            {"linear",
             "linear(input: tensor<scalar>, filter: tensor<scalar>, bias: tensor<scalar> = 0.0) "
             "-> (output: tensor<scalar>)"},
            {"local_response_normalization",
             "local_response_normalization(input: tensor<scalar>, size: integer[], alpha: scalar = 1.0, "
             "beta: scalar = 0.5, bias: scalar = 1.0) -> (output: tensor<scalar>)"},
            {"multilinear_upsample",
             "multilinear_upsample(input: tensor<scalar>, factor: integer[], method: string = 'symmetric', "
             "border: string = 'replicate') -> (output: tensor<scalar>)"},
            {"select",
             "select<?>(condition: tensor<logical>, true_value: tensor<?>, false_value: tensor<?>) "
             "-> (output: tensor<?>)"},
            {"sum_reduce",
             "sum_reduce(input: tensor<scalar>, axes: integer[], normalize: logical = false) "
             "-> (output: tensor<scalar>)"},
            {"argmax_reduce", "argmax_reduce(input: tensor<scalar>, axes: integer[]) -> (output: tensor<integer>)"},
            {"update", "update<?>(variable: tensor<?>, value: tensor<?>) -> (result: tensor<?>)"},
            {"copy_n", "copy_n<?>(x: tensor<?>, times: integer) -> (y: tensor<?>[])"},
            {"moments",
             "moments(input: tensor<scalar>, axes: integer[]) -> (mean: tensor<scalar>, variance: tensor<scalar>)"},
            {"elu", "elu(x: tensor<scalar>) -> (y: tensor<scalar>)"},
            {"lt", "lt(x: tensor<scalar>, y: tensor<scalar>) -> (z: tensor<logical>)"},
            {"unsqueeze", "unsqueeze<?>(input: tensor<?>, axes: integer[]) -> (output: tensor<?>)"},
        };
        for (const auto& [name, expected] : table) CHECK(stdlib_test::sig(*lib, name) == expected);
    }

    TEST_CASE("stdlib: later revisions change and add signatures") {
        stdlib_test::Loaded loaded(false);
        const auto& lib = loaded.lib;
        const std::vector<std::pair<const char*, const char*>> table = {
            {"reshape",
             "reshape<?>(input: tensor<?>, shape: integer[], axis_start: integer = 0, "
             "axis_count: integer = -1) -> (output: tensor<?>)"},
            {"slice",
             "slice<?>(input: tensor<?>, axes: integer[], begin: integer[], end: integer[], "
             "stride: integer[] = []) -> (output: tensor<?>)"},
            {"elu", "elu(x: tensor<scalar>, alpha: scalar = 1.0) -> (y: tensor<scalar>)"},
            {"tile", "tile<?>(input: tensor<?>, repeats: integer[]) -> (output: tensor<?>)"},
            {"pad",
             "pad(input: tensor<scalar>, padding: (integer,integer)[], border: string = 'constant', "
             "value: scalar = 0.0) -> (output: tensor<scalar>)"},
            {"gather",
             "gather<?>(input: tensor<?>, indices: tensor<integer>, axis: integer = 0) -> (output: tensor<?>)"},
            {"cast", "cast<?>(input: tensor<>) -> (output: tensor<?>)"},
            {"sin", "sin(x: tensor<scalar>) -> (y: tensor<scalar>)"},
            {"any_reduce", "any_reduce(input: tensor<logical>, axes: integer[]) -> (output: tensor<logical>)"},
            {"softabs", "softabs(x: tensor<scalar>, epsilon: scalar) -> (y: tensor<scalar>)"},
            {"selu",
             "selu(x: tensor<scalar>, alpha: scalar = 1.67326319, lambda: scalar = 1.05070102) "
             "-> (y: tensor<scalar>)"},
            {"min_max_linear_quantize",
             "min_max_linear_quantize(x: tensor<scalar>, min: tensor<scalar>, max: tensor<scalar>, "
             "bits: integer, signed: logical, symmetric: logical) -> (y: tensor<scalar>)"},
            {"zero_point_linear_quantize",
             "zero_point_linear_quantize(x: tensor<scalar>, zero_point: tensor<integer>, scale: tensor<scalar>, "
             "bits: integer, signed: logical, symmetric: logical) -> (y: tensor<scalar>)"},
            {"squeeze", "squeeze<?>(input: tensor<?>, axes: integer[]) -> (output: tensor<?>)"},
            {"stack", "stack<?>(values: tensor<?>[], axis: integer) -> (value: tensor<?>)"},
            {"unstack", "unstack<?>(value: tensor<?>, axis: integer) -> (values: tensor<?>[])"},
            // Unchanged revision 3 declarations stay visible.
            {"matmul",
             "matmul(A: tensor<scalar>, B: tensor<scalar>, transposeA: logical = false, "
             "transposeB: logical = false) -> (C: tensor<scalar>)"},
        };
        for (const auto& [name, expected] : table) CHECK(stdlib_test::sig(*lib, name) == expected);

        // The replacing declaration comes from the later text.
        REQUIRE(lib->find("reshape"));
        CHECK(loaded.sm.name(lib->find("reshape")->range.file) == "<stdlib-later>");
        CHECK(loaded.sm.name(lib->find("conv")->range.file) == "<stdlib>");
    }

    TEST_CASE("stdlib: strict mode has no later additions") {
        stdlib_test::Loaded loaded(true);
        const auto& lib = loaded.lib;
        for (const char* name : {"tile", "pad", "gather", "cast", "sin", "any_reduce", "selu", "gelu"}) {
            CAPTURE(name);
            CHECK(lib->find(name) == nullptr);
        }
        REQUIRE(lib->find("reshape"));
        for (const auto& p : lib->find("reshape")->params) CHECK(p.name != "axis_start");
        REQUIRE(lib->find("slice"));
        CHECK(lib->find("slice")->params.size() == 4);
        CHECK(lib->find("elu")->params.size() == 1);
    }

    TEST_CASE("stdlib: every invocation in a body names a standard fragment and its parameters") {
        for (bool strict : {true, false}) {
            CAPTURE(strict);
            stdlib_test::Loaded loaded(strict);
            const auto& lib = loaded.lib;
            std::size_t invocations = 0;
            for (const auto& entry : lib->fragments) {
                const auto& name = entry.first;  // (CAPTURE's lambda captures it: no structured binding, for clang 14)
                const auto& f = entry.second;
                if (!f->body) continue;
                CAPTURE(name);
                std::vector<const nnef::ast::Expr*> todo;
                for (const auto& a : *f->body) todo.push_back(&a.rhs);
                while (!todo.empty()) {
                    const nnef::ast::Expr* e = todo.back();
                    todo.pop_back();
                    for (const auto& c : e->children) todo.push_back(&c);
                    if (e->kind != nnef::ast::ExprKind::invocation) continue;
                    ++invocations;
                    CAPTURE(e->text);
                    const nnef::ast::Fragment* callee = lib->find(e->text);
                    REQUIRE(callee);
                    CHECK(e->children.size() <= callee->params.size());
                    for (std::size_t i = 0; i < e->children.size(); ++i) {
                        if (e->arg_name(i).empty()) {
                            CHECK(i < callee->params.size());
                            continue;
                        }
                        const std::string name = e->arg_name(i).str();
                        CAPTURE(name);
                        CHECK(std::any_of(callee->params.begin(), callee->params.end(),
                                          [&](const nnef::ast::Param& p) { return p.name == name; }));
                    }
                }
            }
            CHECK(invocations > 50);
        }
    }

    TEST_CASE("stdlib: corrected bodies") {
        stdlib_test::Loaded loaded(true);
        const auto& lib = loaded.lib;
        auto body_text = [&](const char* name) {
            const nnef::ast::Fragment* f = lib->find(name);
            REQUIRE(f);
            REQUIRE(f->body);
            const nnef::SourceRange& r = f->range;
            return loaded.sm.text(r.file).substr(r.begin, r.end - r.begin);
        };
        CHECK(body_text("linear").find("transposeB = true") != std::string::npos);
        CHECK(body_text("linear").find("trB") == std::string::npos);
        CHECK(body_text("max_pool_with_index").find("'constant' if border == 'ignore' else border") !=
              std::string::npos);
        CHECK(body_text("avg_roi_align").find("size = [1,1] + sampling_rate") != std::string::npos);
        CHECK(body_text("max_roi_align").find("stride = [1,1] + sampling_rate") != std::string::npos);
        CHECK(body_text("unsqueeze").find("_unsqueeze_shape(shape = shape_of(input)") != std::string::npos);
        // add_n: the top-level expression is an if-else whose last branch copies one item.
        const nnef::ast::Fragment* add_n = lib->find("add_n");
        REQUIRE(add_n->body->size() == 1);
        const nnef::ast::Expr& rhs = add_n->body->front().rhs;
        REQUIRE(rhs.kind == nnef::ast::ExprKind::if_else);
        CHECK(body_text("add_n").find("copy(x[0])") != std::string::npos);
    }

    TEST_CASE("stdlib: positions point into the registered texts") {
        stdlib_test::Loaded loaded(false);
        const auto& lib = loaded.lib;
        const nnef::ast::Fragment* conv = lib->find("conv");
        REQUIRE(conv);
        const std::string_view text = loaded.sm.text(conv->name_range.file);
        CHECK(text.substr(conv->name_range.begin, conv->name_range.end - conv->name_range.begin) == "conv");
        CHECK(text == nnef::sema::stdlib_rev3_text());
    }

    TEST_CASE("stdlib: docs/stdlib.md lists every standard operation") {
        const std::string doc = nnef_test::read_text(nnef_test::source_dir() / "docs" / "stdlib.md");
        stdlib_test::Loaded loaded(false);
        const auto& lib = loaded.lib;
        for (const auto& entry : lib->fragments) {
            const auto& name = entry.first;  // (CAPTURE's lambda captures it: no structured binding, for clang 14)
            CAPTURE(name);
            CHECK(doc.find("| `" + name + "` |") != std::string::npos);
        }
    }

    TEST_CASE("stdlib: parsed once per dialect and position, its files registered every time") {
        // The texts land at the ids that follow the files already in the manager; the library
        // refers to them by those ids, so a shared library must match them.
        auto load = [](std::size_t files_before, bool strict) {
            nnef::SourceManager sm;
            for (std::size_t i = 0; i < files_before; ++i) sm.add("doc" + std::to_string(i), "x");
            nnef::Diagnostics diags;
            auto lib = nnef::sema::load_stdlib(sm, strict, diags);
            CHECK(diags.empty());
            CHECK(sm.size() == files_before + (strict ? 1 : 2));
            CHECK(sm.name(std::uint32_t(files_before + 1)) == "<stdlib>");
            REQUIRE(lib);
            for (const nnef::ast::Document& doc : lib->documents)
                CHECK(sm.text(doc.file).size() > 1000);
            CHECK(lib->documents.front().file == files_before + 1);
            return lib;
        };
        for (bool strict : {false, true})
            for (std::size_t before : {0u, 1u, 3u, 7u}) {
                CAPTURE(strict);
                CAPTURE(before);
                auto first = load(before, strict), second = load(before, strict);
                CHECK(first->strict == strict);
                if (before < 4) CHECK(first == second);  // shared
                else CHECK(first != second);              // parsed for each manager
            }
        CHECK(load(1, false) != load(1, true));
        CHECK(load(1, false) != load(2, false));
    }
}
