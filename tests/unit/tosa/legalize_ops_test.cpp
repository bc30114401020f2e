// Each legalization on small graphs, against nnef-run (the executor computes the NNEF formulas; the
// TOSA interpreter runs the lowered graph on the same random inputs and weights): every border mode
// and the sliding-window parameters (padding, automatic padding, stride, dilation, groups), and the
// coverage of the standard library by the registry.
#include "legalize_support.hpp"

#include <set>

#include "semantics/stdlib.hpp"

namespace legalize_ops_test {

// A graph with inputs x (and y, z when named in `body`'s first line) and weights w*, random.
std::string document(const std::string& inputs, const std::string& body) {
    return "version 1.0;\nextension KHR_enable_operator_expressions;\ngraph G( " + inputs + " ) -> ( out )\n{\n" + body + "}\n";
}

void check(const std::string& text, const std::string& what) {
    CAPTURE(what);
    nnef::FlattenOptions fo;
    fo.expand = nnef::exec::compounds_without_kernel();
    nnef::Session session(fo);
    const bool loaded = session.load_text("ops.nnef", text);
    REQUIRE_MESSAGE(loaded, legalize_support::render_all(session.diagnostics(), session.sources()));
    nnef::Session kept;
    const bool kept_loaded = kept.load_text("ops.nnef", text);
    REQUIRE_MESSAGE(kept_loaded, legalize_support::render_all(kept.diagnostics(), kept.sources()));
    const legalize_support::Comparison c = legalize_support::compare(session, kept, 3);
    CHECK_MESSAGE(c.ok, what << ": " << c.why);
}

const char* x4 = "    x = external<scalar>(shape = [1,3,7,8]);\n";

TEST_SUITE("tosa") {

TEST_CASE("legalize ops: conv with every border mode and window parameter") {
    const std::string w = "    w = variable<scalar>(shape = [4,3,3,3], label = 'w');\n    b = variable<scalar>(shape = [1,4], label = 'b');\n";
    for (const char* border : {"constant", "replicate", "reflect", "reflect-even"})
        for (const char* args : {"", ", stride = [2,2]", ", padding = [(1,1),(0,2)]", ", padding = [(2,1),(1,1)], stride = [2,3]",
                                 ", dilation = [2,2]", ", dilation = [2,1], stride = [1,2], padding = [(0,0),(1,1)]",
                                 ", padding = [(0,0),(0,0)], stride = [3,3]"})
            check(document("x", std::string(x4) + w + "    out = conv(x, w, b, border = '" + border + "'" + args + ");\n"),
                  std::string("conv ") + border + args);
    check(document("x", std::string(x4) + "    w = variable<scalar>(shape = [6,1,3,3], label = 'w');\n    out = conv(x, w, groups = 0, stride = [2,2]);\n"),
          "depthwise, multiplier 2");
    check(document("x", "    x = external<scalar>(shape = [1,4,6,6]);\n    w = variable<scalar>(shape = [6,2,3,3], label = 'w');\n    out = conv(x, w, 0.5, groups = 2, padding = [(1,1),(1,1)]);\n"),
          "two groups, scalar bias");
    check(document("x", "    x = external<scalar>(shape = [1,3,9]);\n    w = variable<scalar>(shape = [2,3,3], label = 'w');\n    out = conv(x, w, stride = [2]);\n"),
          "1-D conv");
    for (const char* args : {"", ", stride = [2,2], border = 'reflect'", ", padding = [(1,0),(2,2)], dilation = [2,1]", ", groups = 2"})
        check(document("x", "    x = external<scalar>(shape = [1,2,7,8]);\n    p = variable<scalar>(shape = [4,1,3,3], label = 'p');\n"
                            "    q = variable<scalar>(shape = [6," + std::string(std::string(args) == ", groups = 2" ? "2" : "4") + ",1,1], label = 'q');\n    b = variable<scalar>(shape = [1,6], label = 'b');\n"
                            "    out = separable_conv(x, p, q, b" + std::string(args) + ");\n"),
              std::string("separable_conv") + args);
}

TEST_CASE("legalize ops: deconv with output_shape, padding, stride, dilation, groups") {
    const std::string x = "    x = external<scalar>(shape = [1,4,5,6]);\n";
    for (const char* args : {"", ", stride = [2,2]", ", stride = [2,3], padding = [(1,1),(2,0)]", ", stride = [2,2], output_shape = [1,3,10,12]",
                             ", stride = [2,2], padding = [(0,0),(0,0)], output_shape = [1,3,12,13]", ", dilation = [2,2]", ", padding = [(3,3),(0,4)]",
                             ", stride = [3,2], dilation = [1,2], padding = [(0,0),(1,1)]"})
        check(document("x", x + "    w = variable<scalar>(shape = [4,3,3,3], label = 'w');\n    b = variable<scalar>(shape = [1,3], label = 'b');\n"
                                 "    out = deconv(x, w, b" + args + ");\n"),
              std::string("deconv") + args);
    check(document("x", x + "    w = variable<scalar>(shape = [4,2,3,3], label = 'w');\n    out = deconv(x, w, groups = 2, stride = [2,2]);\n"),
          "deconv, two groups");
}

TEST_CASE("legalize ops: pooling and box filters with every border mode") {
    for (const char* op : {"max_pool", "avg_pool", "rms_pool"})
        for (const char* border : {"ignore", "constant", "replicate", "reflect", "reflect-even"})
            for (const char* args : {", size = [1,1,3,3]", ", size = [1,1,3,3], stride = [1,1,2,2]",
                                     ", size = [1,1,2,3], padding = [(0,0),(0,0),(1,1),(0,2)]",
                                     ", size = [1,1,3,2], stride = [1,1,2,2], padding = [(0,0),(0,0),(1,0),(1,1)]"}) {
                if (std::string(op) == "rms_pool" && std::string(border) == "ignore") continue;
                check(document("x", std::string(x4) + "    out = " + op + "(x, border = '" + border + "'" + args + ");\n"),
                      std::string(op) + " " + border + args);
            }
    for (const char* border : {"ignore", "constant", "reflect"})
        for (const char* normalize : {"true", "false"})
            check(document("x", std::string(x4) + "    out = box(x, size = [1,1,3,3], stride = [1,1,2,2], border = '" + border +
                                    "', normalize = " + normalize + ");\n"),
                  std::string("box ") + border + " " + normalize);
    check(document("x", std::string(x4) + "    out = local_response_normalization(x, size = [1,1,3,3], alpha = 0.5, beta = 0.75, bias = 2.0);\n"), "lrn");
    check(document("x", std::string(x4) + "    out = local_contrast_normalization(x, size = [1,1,3,3], bias = 1.0, epsilon = 1e-3);\n"), "lcn");
}

TEST_CASE("legalize ops: element-wise, activations, quantization") {
    const std::string xy = "    x = external<scalar>(shape = [2,3,4]);\n    y = external<scalar>(shape = [2,3]);\n";
    for (const char* e : {"add(x, y)", "sub(y, x)", "mul(x, 2.0)", "div(x, y)", "min(x, y)", "max(x, 0.5)", "pow(abs(x), y)",
                          "select(x < y, x, y)", "select(x >= 0.0, exp(x), neg(x))", "clamp(x, -0.5, y)", "sign(x) * round(x) + floor(x) - ceil(y)",
                          "sqrt(abs(x)) + rsqrt(abs(y) + 1.0) + rcp(abs(x) + 1.0) + sqr(x) + log2(abs(x) + 1.0)",
                          "log(abs(x) + 1.0) + tanh(x) + sigmoid(y) + sin(x) + cos(x) + tan(y)",
                          "sinh(x) + cosh(x) + asinh(x) + atanh(0.5 * tanh(y)) + acosh(abs(x) + 1.0)",
                          "relu(x) + leaky_relu(x, alpha = 0.2) + elu(x) + prelu(x, y) + softplus(x)",
                          "selu(x) + gelu(x) + silu(x) + softabs(x, epsilon = 0.1)",
                          "select(and(x > 0.0, ne(x, y)) || !(x <= y), 1.0, 0.0)",
                          "linear_quantize(x, min = -1.0, max = 1.0, bits = 4)",
                          "min_max_linear_quantize(x, min = -1.0, max = 0.5, bits = 8, signed = true, symmetric = true)",
                          "logarithmic_quantize(x, max = 4.0, bits = 3)"})
        check(document("x, y", xy + "    out = " + e + ";\n"), e);
}

TEST_CASE("legalize ops: reductions, softmax, normalization, matmul") {
    const std::string x = "    x = external<scalar>(shape = [2,3,4,5]);\n";
    for (const char* e : {"sum_reduce(x, axes = [1,3])", "sum_reduce(x, axes = [2], normalize = true)", "mean_reduce(x, axes = [0,2])",
                          "max_reduce(x, axes = [3])", "min_reduce(x, axes = [1,2])", "softmax(x, axes = [1])", "softmax(x, axes = [2,3])",
                          "l1_normalization(x, axes = [1], epsilon = 1e-3)", "l2_normalization(x, axes = [2,3], bias = 0.5)",
                          "batch_normalization(x, m, abs(v) + 1.0, 0.5, s, epsilon = 1e-3)"})
        check(document("x", x + "    m = variable<scalar>(shape = [1,3], label = 'm');\n    v = variable<scalar>(shape = [1,3], label = 'v');\n"
                                "    s = variable<scalar>(shape = [1,3], label = 's');\n    out = " + e + ";\n"), e);
    check(document("x", x + "    out = cast<scalar>(argmax_reduce(x, axes = [1,3]));\n"), "argmax");
    check(document("x", x + "    m, v = moments(x, axes = [2,3]);\n    out = m + v;\n"), "moments");
    check(document("x, y", "    x = external<scalar>(shape = [2,3,4,5]);\n    y = external<scalar>(shape = [1,3,6,5]);\n"
                           "    out = matmul(x, y, transposeB = true);\n"), "matmul broadcast, transposed");
    check(document("x, y", "    x = external<scalar>(shape = [4,3]);\n    y = external<scalar>(shape = [4,5]);\n"
                           "    out = matmul(x, y, transposeA = true);\n"), "matmul 2-D");
    check(document("x", "    x = external<scalar>(shape = [2,6]);\n    w = variable<scalar>(shape = [4,6], label = 'w');\n"
                        "    b = variable<scalar>(shape = [1,4], label = 'b');\n    out = linear(x, w, b);\n"), "linear");
}

TEST_CASE("legalize ops: shape operations, pad with every border, sampling") {
    const std::string x = "    x = external<scalar>(shape = [1,3,4,6]);\n";
    for (const char* e : {"reshape(x, shape = [3,24])", "squeeze(unsqueeze(x, axes = [0,3]), axes = [0])", "transpose(x, axes = [0,2,3,1])",
                          "concat([x, x, neg(x)], axis = 3)", "stack([x, x], axis = 1)", "tile(x, repeats = [2,1,1,2])",
                          "slice(x, axes = [1,3], begin = [1,-4], end = [3,0])",
                          "slice(x, axes = [2,3], begin = [0,1], end = [4,5], stride = [3,2])",
                          "slice(x, axes = [3], begin = [-1], end = [-6], stride = [-2])",
                          "pad(x, padding = [(0,0),(1,0),(2,3),(1,1)], value = 1.5)",
                          "pad(x, padding = [(0,0),(0,0),(2,3),(1,7)], border = 'replicate')",
                          "pad(x, padding = [(0,0),(2,1),(3,3),(4,3)], border = 'reflect')",
                          "pad(x, padding = [(0,0),(0,0),(4,3),(1,2)], border = 'reflect-even')",
                          "gather(x, i, axis = 3)", "nearest_upsample(x, factor = [2,3])",
                          "nearest_downsample(x, factor = [2,2])", "area_downsample(x, factor = [2,2])"})
        check(document("x", x + "    i = constant<integer>(shape = [2,2], value = [2,0,1,-1]);\n    out = " + e + ";\n"), e);
    check(document("x", x + "    [a, b, c] = split(x, axis = 3, ratios = [1,4,1]);\n    out = concat([c, a, b], axis = 3);\n"), "split");
    check(document("x", x + "    [a, b, c] = unstack(x, axis = 1);\n    out = add_n([a, b, c]);\n"), "unstack, add_n");
}

TEST_CASE("legalize ops: variables updated across runs") {
    nnef::FlattenOptions fo;
    nnef::Session session(fo);
    REQUIRE(session.load_text("v.nnef", document("x", "    x = external<scalar>(shape = [1,4]);\n"
                                                      "    h = variable<scalar>(shape = [1,4], label = 'h');\n"
                                                      "    n = tanh(h + x);\n    s = update(h, n);\n    out = n * 2.0;\n")));
    const legalize_support::Comparison c = legalize_support::compare(session, session, 3, {}, 3);  // three cycles
    CHECK_MESSAGE(c.ok, c.why);
}

TEST_CASE("legalize: every standard operation has a legalization or a documented refusal") {
    nnef::SourceManager sm;
    nnef::Diagnostics d;
    auto lib = nnef::sema::load_stdlib(sm, false, d);
    REQUIRE(lib);
    std::set<std::string> names;
    for (const auto& [name, fragment] : lib->fragments) names.insert(name);
    int lowered = 0, refused = 0;
    for (const std::string& name : names) {
        CAPTURE(name);
        const nnef::tosa::Legalization* l = nnef::tosa::find_legalization(name);
        REQUIRE_MESSAGE(l, "no legalization and no refusal for '" << name << "'");
        CHECK((l->lower != nullptr) != !l->refusal.empty());
        CHECK(!l->family.empty());
        (l->lower ? lowered : refused) += 1;
    }
    // and every entry is a standard operation
    for (const nnef::tosa::Legalization& l : nnef::tosa::legalizations()) CHECK_MESSAGE(names.count(l.op), l.op);
    MESSAGE(names.size() << " standard operations: " << lowered << " lowered, " << refused << " refused");
}

}  // TEST_SUITE

}  // namespace legalize_ops_test
