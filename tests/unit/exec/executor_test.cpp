// The executor as a whole: kernel coverage of the standard library, the matrix multiplication and
// convolution against plain loops, compound kernels against their expansion, variables across
// cycles, and the errors of feeding and running.
#include "common/scratch.hpp"
#include "exec_support.hpp"

#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <random>
#include <set>

#include "exec/gemm.hpp"
#include "exec/kernel.hpp"
#include "semantics/stdlib.hpp"
#include "storage/tensor_file.hpp"

namespace executor_test {

using namespace exec_test;
namespace fs = std::filesystem;

TEST_SUITE("exec") {

TEST_CASE("every primitive of the standard library has a kernel") {
    // Primitives without a kernel yet, printed below; the test fails when a kernel appears or
    // disappears without this list being updated.
    const std::set<std::string> expected_missing = {};
    // Compounds with a dedicated kernel (the others run through their expansion).
    const std::set<std::string> compounds_with_kernel = {
        "sqr", "sqrt", "rsqr", "rsqrt", "log2", "min", "max", "clamp", "relu", "sigmoid", "prelu", "leaky_relu", "elu",
        "softplus", "selu", "gelu", "silu", "softabs", "softmax", "mean_reduce", "linear", "max_pool_with_index",
        "max_pool", "avg_pool", "rms_pool", "batch_normalization",
        // primitives of the later revisions that are compounds in revision 3 (strict dialect)
        "squeeze", "unsqueeze", "stack", "unstack",
    };
    const nnef::exec::KernelRegistry& kernels = nnef::exec::KernelRegistry::standard();
    std::set<std::string> primitives, compounds, missing;
    for (bool strict : {false, true}) {
        nnef::SourceManager sm;
        nnef::Diagnostics diags;
        auto lib = nnef::sema::load_stdlib(sm, strict, diags);
        REQUIRE(lib);
        for (const auto& [name, fragment] : lib->fragments) {
            bool tensors = false;
            for (const auto& r : fragment->results) tensors = tensors || r.type.contains_tensor();
            if (!tensors) continue;
            (lib->is_primitive(name) ? primitives : compounds).insert(name);
        }
    }
    REQUIRE(primitives.size() > 60);
    for (const std::string& p : primitives)
        if (!kernels.find(p)) missing.insert(p);
    std::string list;
    for (const std::string& m : missing) list += " " + m;
    MESSAGE("primitives: " << primitives.size() << ", kernels: " << kernels.names().size()
                           << ", primitives without a kernel:" << (list.empty() ? " none" : list));
    CHECK(missing == expected_missing);
    // every kernel is for a standard operation; compounds with one are the listed ones
    for (const std::string& k : kernels.names()) {
        CAPTURE(k);
        CHECK((primitives.count(k) == 1 || compounds.count(k) == 1));
        if (!primitives.count(k)) CHECK(compounds_with_kernel.count(k) == 1);
    }
    for (const std::string& c : compounds_with_kernel) {
        CAPTURE(c);
        CHECK(compounds.count(c) == 1);
        CHECK(static_cast<bool>(kernels.find(c)));
    }
    // the others are expanded: exactly the standard compounds without a kernel
    std::set<std::string> expanded;
    for (const std::string& c : nnef::exec::compounds_without_kernel()) expanded.insert(c);
    for (const std::string& c : compounds) {
        CAPTURE(c);
        CHECK((kernels.find(c) != nullptr) != (expanded.count(c) == 1));
    }
}

// Plain loops: C = A' B'.
std::vector<float> naive_matmul(int M, int N, int K, const std::vector<float>& a, bool ta, const std::vector<float>& b, bool tb) {
    std::vector<float> c(static_cast<std::size_t>(M * N));
    for (int i = 0; i < M; ++i)
        for (int j = 0; j < N; ++j) {
            double s = 0.0;
            for (int k = 0; k < K; ++k)
                s += double(ta ? a[k * M + i] : a[i * K + k]) * double(tb ? b[j * K + k] : b[k * N + j]);
            c[static_cast<std::size_t>(i * N + j)] = static_cast<float>(s);
        }
    return c;
}

std::vector<float> noise(std::size_t n, unsigned seed) {
    std::mt19937 g(seed);
    std::uniform_real_distribution<float> d(-1.0f, 1.0f);
    std::vector<float> v(n);
    for (float& x : v) x = d(g);
    return v;
}

TEST_CASE("gemm against plain loops (edges of every block size, transposed views, threads)") {
    MESSAGE("gemm micro-kernel: " << std::string(nnef::exec::gemm_kernel_name()));
    struct Size {
        int M, N, K;
    };
    for (Size s : {Size{1, 1, 1}, Size{7, 17, 5}, Size{6, 16, 256}, Size{13, 33, 300}, Size{130, 40, 70},
                   Size{5, 600, 20}, Size{121, 515, 257}}) {
        for (bool ta : {false, true})
            for (bool tb : {false, true})
                for (unsigned threads : {1u, 2u}) {
                    CAPTURE(s.M);
                    CAPTURE(s.N);
                    CAPTURE(s.K);
                    CAPTURE(ta);
                    CAPTURE(tb);
                    CAPTURE(threads);
                    const auto a = noise(std::size_t(s.M * s.K), 1), b = noise(std::size_t(s.K * s.N), 2);
                    const auto want = naive_matmul(s.M, s.N, s.K, a, ta, b, tb);
                    std::vector<float> c(want.size(), 7.0f);
                    nnef::exec::MatrixView A{a.data(), ta ? 1 : s.K, ta ? s.M : 1};
                    nnef::exec::MatrixView B{b.data(), tb ? 1 : s.N, tb ? s.K : 1};
                    nnef::exec::gemm(s.M, s.N, s.K, A, B, c.data(), s.N, false, threads);
                    const nnef_test::Comparison once = nnef_test::compare(c, want);
                    CHECK_MESSAGE(once.max_abs_within(1e-4), once.summary());
                    // accumulate adds to C
                    nnef::exec::gemm(s.M, s.N, s.K, A, B, c.data(), s.N, true, threads);
                    std::vector<float> twice(want);
                    for (float& v : twice) v *= 2;
                    const nnef_test::Comparison acc = nnef_test::compare(c, twice);
                    CHECK_MESSAGE(acc.max_abs_within(2e-4), acc.summary());
                }
    }
}

// conv by the formula of 4.3.1, constant border, 2 spatial dimensions.
std::vector<float> naive_conv(const Shape& in, const std::vector<float>& x, const Shape& fs_, const std::vector<float>& f,
                              int groups, int stride, int dilation, int pad, Shape& out) {
    const std::int64_t B = in[0], C = in[1], H = in[2], W = in[3], O = fs_[0], Cg = fs_[1], KH = fs_[2], KW = fs_[3];
    const std::int64_t OH = (H + 2 * pad - ((KH - 1) * dilation + 1)) / stride + 1;
    const std::int64_t OW = (W + 2 * pad - ((KW - 1) * dilation + 1)) / stride + 1;
    out = {B, O, OH, OW};
    std::vector<float> y(static_cast<std::size_t>(B * O * OH * OW));
    const std::int64_t Og = O / groups;
    (void)C;
    for (std::int64_t b = 0; b < B; ++b)
        for (std::int64_t o = 0; o < O; ++o)
            for (std::int64_t i = 0; i < OH; ++i)
                for (std::int64_t j = 0; j < OW; ++j) {
                    double s = 0.0;
                    const std::int64_t g = o / Og;
                    for (std::int64_t c = 0; c < Cg; ++c)
                        for (std::int64_t u = 0; u < KH; ++u)
                            for (std::int64_t v = 0; v < KW; ++v) {
                                const std::int64_t r = i * stride + u * dilation - pad, q = j * stride + v * dilation - pad;
                                if (r < 0 || r >= H || q < 0 || q >= W) continue;
                                s += double(x[static_cast<std::size_t>(((b * in[1] + g * Cg + c) * H + r) * W + q)]) *
                                     double(f[static_cast<std::size_t>(((o * Cg + c) * KH + u) * KW + v)]);
                            }
                    y[static_cast<std::size_t>(((b * O + o) * OH + i) * OW + j)] = static_cast<float>(s);
                }
    return y;
}

TEST_CASE("conv against plain loops") {
    struct Case {
        Shape in, filter;
        int groups, stride, dilation, pad;
    };
    for (const Case& c : {Case{{1, 3, 9, 11}, {8, 3, 3, 3}, 1, 1, 1, 1}, Case{{2, 4, 10, 7}, {6, 2, 3, 2}, 2, 2, 1, 1},
                          Case{{1, 13, 12, 12}, {10, 13, 1, 1}, 1, 2, 1, 0}, Case{{1, 8, 15, 15}, {8, 1, 3, 3}, 8, 2, 1, 1},
                          Case{{1, 6, 14, 14}, {12, 1, 3, 3}, 6, 1, 2, 2}, Case{{1, 40, 20, 20}, {70, 40, 3, 3}, 1, 1, 1, 1}}) {
        CAPTURE(nnef::to_string(c.in));
        CAPTURE(nnef::to_string(c.filter));
        const auto x = noise(std::size_t(nnef::exec::volume_of(c.in)), 3);
        const auto f = noise(std::size_t(nnef::exec::volume_of(c.filter)), 4);
        Shape out;
        const auto want = naive_conv(c.in, x, c.filter, f, c.groups, c.stride, c.dilation, c.pad, out);
        const std::string p = std::to_string(c.pad), s = std::to_string(c.stride), d = std::to_string(c.dilation);
        const Outcome o = run({{"x", scalars(c.in, x)}, {"f", scalars(c.filter, f)}},
                              "y = conv(x, f, padding = [(" + p + ", " + p + "), (" + p + ", " + p + ")], stride = [" + s +
                                  ", " + s + "], dilation = [" + d + ", " + d + "], groups = " + std::to_string(c.groups) + ");",
                              {"y"});
        INFO(o.messages);
        REQUIRE(o.ok);
        REQUIRE(o["y"].shape() == out);
        const nnef_test::Comparison cmp = nnef_test::compare(o["y"].to_doubles(), want);
        CHECK_MESSAGE(cmp.max_abs_within(1e-4), cmp.summary());
    }
}

TEST_CASE("depth-wise conv agrees with the same conv as one group (every border, stride, dilation)") {
    // groups = 0 takes the depth-wise path; the block-diagonal filter with groups = 1 the gemm path
    const std::int64_t C = 3;
    const TensorValue x = scalars({1, C, 7, 9}, noise(std::size_t(C * 63), 11));
    const std::vector<float> dw = noise(std::size_t(C * 9), 12);
    std::vector<float> full(std::size_t(C * C * 9), 0.0f);
    for (std::int64_t c = 0; c < C; ++c)
        for (std::int64_t j = 0; j < 9; ++j) full[std::size_t((c * C + c) * 9 + j)] = dw[std::size_t(c * 9 + j)];
    const std::vector<Input> inputs{{"x", x}, {"d", scalars({C, 1, 3, 3}, dw)}, {"f", scalars({C, C, 3, 3}, full)}};
    for (const char* border : {"constant", "replicate", "reflect", "reflect-even"})
        for (const char* window : {"padding = [(1, 1), (1, 1)]", "padding = [(2, 0), (1, 2)], stride = [2, 2]",
                                   "padding = [(2, 2), (3, 1)], dilation = [2, 2]", "stride = [1, 2]"}) {
            CAPTURE(border);
            CAPTURE(window);
            const std::string attrs = std::string(", border = '") + border + "', " + window;
            const Outcome a = run(inputs, "y = conv(x, d" + attrs + ", groups = 0);", {"y"});
            const Outcome b = run(inputs, "y = conv(x, f" + attrs + ");", {"y"});
            INFO(a.messages << b.messages);
            REQUIRE(a.ok);
            REQUIRE(b.ok);
            const auto u = a["y"].to_doubles(), v = b["y"].to_doubles();
            const nnef_test::Comparison c = nnef_test::compare(u, v);
            CHECK_MESSAGE(c.max_abs_within(1e-5), c.summary());
        }
}

TEST_CASE("compound kernels agree with their expansion") {
    const auto x = noise(2 * 3 * 6 * 5, 5);
    const TensorValue in = scalars({2, 3, 6, 5}, x);
    const TensorValue f = scalars({4, 90}, noise(4 * 90, 6));
    const TensorValue m = scalars({1, 3}, {0.1f, -0.2f, 0.3f}), v = scalars({1, 3}, {1.0f, 0.5f, 2.0f});
    const std::vector<std::string> bodies = {
        "y = max_pool(x, size = [1, 1, 3, 3], stride = [1, 1, 2, 2], padding = [(0, 0), (0, 0), (0, 1), (1, 1)], border = 'ignore');",
        "y = max_pool(x, size = [1, 1, 3, 3], stride = [1, 1, 2, 2], border = 'constant');",
        "y = max_pool(x, size = [1, 1, 2, 3], border = 'reflect');",
        "y = avg_pool(x, size = [1, 1, 3, 3], padding = [(0, 0), (0, 0), (1, 1), (1, 1)], border = 'ignore');",
        "y = avg_pool(x, size = [1, 1, 3, 2], stride = [1, 1, 2, 1], border = 'replicate');",
        "y = rms_pool(x, size = [1, 1, 2, 2], border = 'constant');",
        "y = softmax(x, axes = [1]);",
        "y = softmax(x, axes = [2, 3]);",
        "y = mean_reduce(x, axes = [2, 3]);",
        "y = clamp(x, -0.5, 0.25);",
        "y = relu(x);",
        "y = sigmoid(x);",
        "y = elu(x, alpha = 0.5);",
        "y = leaky_relu(x, alpha = 0.2);",
        "y = selu(x);",
        "y = gelu(x);",
        "y = silu(x);",
        "y = softplus(x);",
        "y = softabs(x, epsilon = 0.1);",
        "y = rsqrt(abs(x));",
        "y = rsqr(x);",
        "y = log2(abs(x));",
        "y = min(x, 0.1);",
        "y = max(x, 0.1);",
        "y = batch_normalization(x, m, v, m, v, epsilon = 0.01);",
        "y = prelu(x, m);",
        "y = linear(reshape(x, shape = [2, -1]), f, 0.5);",
        "y = squeeze(unsqueeze(x, axes = [1, 3]), axes = [3, 1]);",
        "y = stack([x, x], axis = 2);",
    };
    for (const std::string& body : bodies) {
        CAPTURE(body);
        const std::vector<Input> inputs{{"x", in}, {"f", f}, {"m", m}, {"v", v}};
        const Outcome kernel = run(inputs, body, {"y"});
        Options all;
        all.expand_all = true;
        const Outcome expanded = run(inputs, body, {"y"}, all);
        INFO(kernel.messages << expanded.messages);
        REQUIRE(kernel.ok);
        REQUIRE(expanded.ok);
        REQUIRE(kernel["y"].shape() == expanded["y"].shape());
        const nnef_test::Comparison c = nnef_test::compare(kernel["y"].to_doubles(), expanded["y"].to_doubles());
        CHECK_MESSAGE(c.scaled_within(1e-5), c.summary());
    }
}

TEST_CASE("one thread and two threads give the same results") {
    const TensorValue in = scalars({1, 16, 20, 20}, noise(16 * 400, 7));
    const TensorValue w = scalars({32, 16, 3, 3}, noise(32 * 16 * 9, 8));
    const std::string body = "c = conv(x, w, padding = [(1, 1), (1, 1)]); d = conv(c, w2, groups = 0); "
                             "y = max_pool(d, size = [1, 1, 3, 3], stride = [1, 1, 2, 2], border = 'ignore');";
    const std::vector<Input> inputs{{"x", in}, {"w", w}, {"w2", scalars({32, 1, 3, 3}, noise(32 * 9, 9))}};
    Options one;
    one.threads = 1;
    const Outcome a = run(inputs, body, {"y"}, one), b = run(inputs, body, {"y"});
    REQUIRE(a.ok);
    REQUIRE(b.ok);
    CHECK(a["y"].to_doubles() == b["y"].to_doubles());
}

TEST_CASE("variables keep their value through a cycle and take the update after it") {
    const fs::path dir = nnef_test::process_scratch("nnef-exec-test");
    fs::create_directories(dir);
    {
        std::ofstream g(dir / "graph.nnef");
        g << "version 1.0;\ngraph G( x ) -> ( y, n )\n{\n"
             "    x = external(shape = [1, 2]);\n"
             "    h = variable(shape = [1, 2], label = 'state/h');\n"
             "    d = mul(h, 2.0);\n"
             "    n = add(d, x);\n"
             "    u = update(h, n);\n"
             "    y = copy(h);\n}\n";
    }
    auto t = nnef::storage::make_float_tensor({1, 2}, std::vector<float>{1.0f, -1.0f});
    REQUIRE(t.value);
    fs::create_directories(dir / "state");
    REQUIRE(nnef::storage::write_tensor_file((dir / "state" / "h.dat").string(), **t.value).value);
    nnef::Session session;
    const bool loaded = session.load_path(dir.string());
    for (const nnef::Diagnostic& e : session.diagnostics()) MESSAGE(nnef::render(e, session.sources(), false));
    REQUIRE(loaded);
    auto created = nnef::exec::Executor::create(*session.graph());
    REQUIRE(created);
    nnef::exec::Executor& ex = **created;
    CHECK(ex.variable("h")->to_doubles() == std::vector<double>{1, -1});
    nnef::Diagnostics d;
    REQUIRE(ex.set_input("x", scalars({1, 2}, {1.0f, 0.0f}), d));
    // h: [1, -1] -> [3, -2] -> [7, -4]; y is the value of the cycle, n the next one
    const std::vector<std::vector<double>> h{{1, -1}, {3, -2}, {7, -4}, {15, -8}};
    for (std::size_t c = 0; c < 3; ++c) {
        CAPTURE(c);
        REQUIRE(ex.run(d));
        CHECK(ex.tensor("y")->to_doubles() == h[c]);
        CHECK(ex.tensor("n")->to_doubles() == h[c + 1]);
        CHECK(ex.variable("h")->to_doubles() == h[c + 1]);  // the variable after the cycle
        CHECK(ex.tensor("h") == nullptr);                    // not kept
    }
    CHECK(ex.variable("n") == nullptr);
    CHECK(ex.cycles() == 3);
    fs::remove_all(dir);
}

TEST_CASE("a different input in each cycle: the state follows them (float32 arithmetic)") {
    nnef::Session session;
    REQUIRE(session.load_text("graph.nnef", "version 1.0;\ngraph G( x ) -> ( y )\n{\n"
                                            "    x = external(shape = [1, 2]);\n"
                                            "    h = variable(shape = [1, 2], label = 'h');\n"
                                            "    d = mul(h, 2.0);\n"
                                            "    y = add(d, x);\n"
                                            "    u = update(h, y);\n}\n"));
    nnef::exec::ExecOptions eo;
    eo.random_weights = 3;  // some initial state, read back below
    auto created = nnef::exec::Executor::create(*session.graph(), eo);
    REQUIRE(created);
    nnef::exec::Executor& ex = **created;
    std::vector<float> h;
    for (double v : ex.variable("h")->to_doubles()) h.push_back(static_cast<float>(v));
    const std::vector<std::vector<float>> xs = {{1.0f, 0.0f}, {0.5f, -2.0f}, {-3.0f, 0.25f}, {1e8f, 1.0f}};
    nnef::Diagnostics d;
    for (std::size_t c = 0; c < xs.size(); ++c) {
        CAPTURE(c);
        REQUIRE(ex.set_input("x", scalars({1, 2}, xs[c]), d));
        REQUIRE(ex.run(d));
        for (std::size_t j = 0; j < 2; ++j) h[j] = h[j] * 2.0f + xs[c][j];  // float32, as the kernels
        const std::vector<double> expected(h.begin(), h.end());
        CHECK(ex.tensor("y")->to_doubles() == expected);
        CHECK(ex.variable("h")->to_doubles() == expected);
    }
    CHECK(ex.cycles() == 4);
}

TEST_CASE("variables whose labels differ only in case share their value") {
    nnef::Session s;
    REQUIRE(s.load_text("graph.nnef", "version 1.0;\ngraph G( x ) -> ( y ) {\n"
                                       "    x = external(shape = [2, 2]);\n"
                                       "    w1 = variable(shape = [2, 2], label = 'Shared/W');\n"
                                       "    w2 = variable(shape = [2, 2], label = 'shared/w');\n"
                                       "    a = matmul(x, w1);\n"
                                       "    y = matmul(a, w2);\n}\n"));
    nnef::exec::ExecOptions o;
    o.random_weights = 5;
    o.keep = {"w1", "w2"};
    auto r = nnef::exec::Executor::create(*s.graph(), o);
    REQUIRE(r);
    nnef::Diagnostics d;
    REQUIRE((*r)->set_input("x", scalars({2, 2}, {1, 0, 0, 1}), d));
    REQUIRE((*r)->run(d));
    const auto w = (*r)->tensor("w1")->to_doubles();
    CHECK(w == (*r)->tensor("w2")->to_doubles());
    CHECK(w == (*r)->variable("w2")->to_doubles());
    const auto y = (*r)->tensor("y")->to_doubles();
    for (std::size_t i = 0; i < 2; ++i)
        for (std::size_t j = 0; j < 2; ++j) CHECK(y[i * 2 + j] == doctest::Approx(w[i * 2] * w[j] + w[i * 2 + 1] * w[2 + j]));
}

TEST_CASE("random weights: a batch norm's variance reached through copy and unsqueeze is positive") {
    // (storage::positive_variables follows them: tests/unit/storage/random_data_test.cpp) 64
    // variances from (-a, a) would give some NaN from sqrt(variance + epsilon)
    nnef::Session s;
    REQUIRE(s.load_text("graph.nnef", "version 1.0;\ngraph G( x ) -> ( y ) {\n"
                                       "    x = external(shape = [1, 64, 2, 2]);\n"
                                       "    v = variable(shape = [64], label = 'v');\n"
                                       "    vc = copy(v);\n"
                                       "    vu = unsqueeze(vc, axes = [0]);\n"
                                       "    y = batch_normalization(x, 0.0, vu, 0.0, 1.0, epsilon = 1e-5);\n}\n"));
    nnef::exec::ExecOptions o;
    o.random_weights = 1;
    auto r = nnef::exec::Executor::create(*s.graph(), o);
    REQUIRE(r);
    nnef::Diagnostics d;
    REQUIRE((*r)->set_input("x", nnef::exec::random_tensor(nnef::PrimType::scalar, {1, 64, 2, 2}, 3), d));
    REQUIRE((*r)->run(d));
    std::size_t bad = 0;
    for (const double y : (*r)->tensor("y")->to_doubles()) bad += !std::isfinite(y);
    CHECK(bad == 0);
}

TEST_CASE("executor errors: no kernel, unexpanded compound, inputs") {
    SUBCASE("custom operation without a kernel") {
        nnef::Session s;
        REQUIRE(s.load_text("graph.nnef", "version 1.0;\nextension KHR_enable_fragment_definitions;\n"
                                           "fragment mystery( x: tensor<scalar> ) -> ( y: tensor<scalar> );\n"
                                           "graph G( x ) -> ( z ) { x = external(shape = [1]); y = mystery(x); z = relu(y); }\n"));
        auto r = nnef::exec::Executor::create(*s.graph());
        CHECK_FALSE(r);
        REQUIRE(r.diagnostics.size() == 1);  // the downstream unknown shapes are not reported again
        const nnef::Diagnostic& e = *r.diagnostics.begin();
        CHECK(e.code == "no-kernel");
        CHECK(e.stage == nnef::Stage::data);
        CHECK(e.message == "no kernel for operation 'mystery' (a custom operation)");
        CHECK(s.sources().begin(e.range).line == 4);
    }
    SUBCASE("standard compound not expanded") {
        nnef::Session s;
        REQUIRE(s.load_text("graph.nnef", "version 1.0;\ngraph G( x ) -> ( y ) { x = external(shape = [1, 2]); "
                                           "y = l2_normalization(x, axes = [1]); }\n"));
        auto r = nnef::exec::Executor::create(*s.graph());
        CHECK_FALSE(r);
        REQUIRE(!r.diagnostics.empty());
        CHECK(r.diagnostics.begin()->message ==
              "no kernel for operation 'l2_normalization' (a standard compound without a dedicated kernel; load the model "
              "with it expanded)");
    }
    SUBCASE("inputs") {
        nnef::Session s;
        REQUIRE(s.load_text("graph.nnef", "version 1.0;\ngraph G( x ) -> ( y ) { x = external(shape = [1, 2]); y = neg(x); }\n"));
        auto r = nnef::exec::Executor::create(*s.graph());
        REQUIRE(r);
        nnef::Diagnostics d;
        CHECK_FALSE((*r)->run(d));
        REQUIRE(d.size() == 1);
        CHECK(d.begin()->message == "no value was given for the graph input 'x'");
        nnef::Diagnostics d2;
        CHECK_FALSE((*r)->set_input("x", scalars({2}, {1, 2}), d2));
        CHECK(d2.begin()->message == "the value given for input 'x' has shape [2]; the graph declares [1,2]");
        nnef::Diagnostics d3;
        CHECK_FALSE((*r)->set_input("y", scalars({1, 2}, {1, 2}), d3));
        CHECK(d3.begin()->message == "'y' is not an input of graph 'G'");
        // integers convert to the declared scalar type
        nnef::Diagnostics d4;
        CHECK((*r)->set_input("x", integers({1, 2}, {3, 4}), d4));
        CHECK((*r)->run(d4));
        CHECK((*r)->tensor("y")->to_doubles() == std::vector<double>{-3, -4});
    }
}

}  // TEST_SUITE

}  // namespace executor_test
