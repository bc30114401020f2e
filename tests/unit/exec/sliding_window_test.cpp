// Sliding-window kernels (spec 4.3): every border mode, padding (explicit, automatic, negative
// automatic), stride, dilation, reverse operations and index-based sampling, on one-dimensional
// cases computed by hand from the formulas; conv/deconv with groups and channel multipliers.
#include "exec_support.hpp"

namespace sliding_window_test {

using namespace exec_test;

TEST_SUITE("exec") {

// x = [1, 2, 3, 4, 5] in a [1, 1, 5] tensor (batch and channel singular)
TensorValue ramp() { return scalars({1, 1, 5}, {1, 2, 3, 4, 5}); }

TEST_CASE("box border modes") {
    // size 5, padding (2, 2): output[0] sums the extended input at -2..2, output[4] at 2..6.
    const std::string w = "size = [1, 1, 5], padding = [(0, 0), (0, 0), (2, 2)]";
    // constant: zeros outside
    CHECK_TENSOR(run1(ramp(), "y = box(x, " + w + ", border = 'constant');"), "y", ({1, 1, 5}), {6, 10, 15, 14, 12});
    // replicate: input[0] = 1 before, input[4] = 5 after
    CHECK_TENSOR(run1(ramp(), "y = box(x, " + w + ", border = 'replicate');"), "y", ({1, 1, 5}), {8, 11, 15, 19, 22});
    // reflect: input[-i] before (-1 -> 2, -2 -> 3), input[z - 1 - (i - z + 1)] after (5 -> 4, 6 -> 3)
    CHECK_TENSOR(run1(ramp(), "y = box(x, " + w + ", border = 'reflect');"), "y", ({1, 1, 5}), {11, 12, 15, 18, 19});
    // reflect-even: input[-i - 1] before (-1 -> 1, -2 -> 2), input[z - 1 - (i - z)] after (5 -> 5, 6 -> 4)
    CHECK_TENSOR(run1(ramp(), "y = box(x, " + w + ", border = 'reflect-even');"), "y", ({1, 1, 5}), {9, 11, 15, 19, 21});
    // ignore: outside values are not part of the sum
    CHECK_TENSOR(run1(ramp(), "y = box(x, " + w + ", border = 'ignore');"), "y", ({1, 1, 5}), {6, 10, 15, 14, 12});
    // normalize: by the kernel volume, or (ignore) by the number of input items in the window
    CHECK_TENSOR(run1(ramp(), "y = box(x, " + w + ", border = 'constant', normalize = true);"), "y", ({1, 1, 5}),
                 {1.2, 2.0, 3.0, 2.8, 2.4});
    CHECK_TENSOR(run1(ramp(), "y = box(x, " + w + ", border = 'ignore', normalize = true);"), "y", ({1, 1, 5}),
                 {2.0, 2.5, 3.0, 3.5, 4.0});
    CHECK_TENSOR(run1(ramp(), "y = avg_pool(x, " + w + ", border = 'ignore');"), "y", ({1, 1, 5}), {2.0, 2.5, 3.0, 3.5, 4.0});
    CHECK_TENSOR(run1(ramp(), "y = avg_pool(x, " + w + ", border = 'constant');"), "y", ({1, 1, 5}), {1.2, 2.0, 3.0, 2.8, 2.4});
    // rms_pool: sqrt of the mean of squares
    CHECK_TENSOR(run1(ramp(), "y = rms_pool(x, " + w + ", border = 'ignore');"), "y", ({1, 1, 5}),
                 {std::sqrt(14.0 / 3), std::sqrt(30.0 / 4), std::sqrt(55.0 / 5), std::sqrt(54.0 / 4), std::sqrt(50.0 / 3)});
}

TEST_CASE("box stride, dilation and padding") {
    // size 3, padding (1, 1), stride 2: x = floor((1 + 5 + 1 - 3) / 2) + 1 = 3 outputs at -1..1, 1..3, 3..5
    CHECK_TENSOR(run1(ramp(), "y = box(x, size = [1, 1, 3], stride = [1, 1, 2], padding = [(0, 0), (0, 0), (1, 1)]);"),
                 "y", ({1, 1, 3}), {3, 9, 9});
    // automatic padding: x = ceil(5 / 2) = 3, t = (3 - 1) * 2 + 3 - 5 = 2, p = q = 1: the same
    CHECK_TENSOR(run1(ramp(), "y = box(x, size = [1, 1, 3], stride = [1, 1, 2]);"), "y", ({1, 1, 3}), {3, 9, 9});
    // automatic padding, asymmetric: size 2: t = (5 - 1) * 1 + 2 - 5 = 1, p = 0, q = 1
    CHECK_TENSOR(run1(ramp(), "y = box(x, size = [1, 1, 2]);"), "y", ({1, 1, 5}), {3, 5, 7, 9, 5});
    // automatic padding with t < 0: size 1, stride 2, X = 4: x = 2, t = (2 - 1) * 2 + 1 - 4 = -1, so
    // p = floor(-1 / 2) = -1 and output[i] = input[2 i + 1] (the formula as written)
    CHECK_TENSOR(run1(scalars({1, 1, 4}, {1, 2, 3, 4}), "y = box(x, size = [1, 1, 1], stride = [1, 1, 2]);"), "y",
                 ({1, 1, 2}), {2, 4});
    // dilation 2, size 2, no padding: fd = 3, x = 3, output[i] = input[i] + input[i + 2]
    CHECK_TENSOR(run1(ramp(), "y = box(x, size = [1, 1, 2], dilation = [1, 1, 2], padding = [(0, 0), (0, 0), (0, 0)]);"),
                 "y", ({1, 1, 3}), {4, 6, 8});
    // negative padding crops: size 1, padding (-1, -1): output[i] = input[i + 1]
    CHECK_TENSOR(run1(ramp(), "y = box(x, size = [1, 1, 1], padding = [(0, 0), (0, 0), (-1, -1)]);"), "y", ({1, 1, 3}),
                 {2, 3, 4});
    // two dimensions: 2x2 sums with stride 2 over [[1, 2], [3, 4]] tiles
    const TensorValue m = scalars({1, 1, 2, 4}, {1, 2, 3, 4, 5, 6, 7, 8});
    CHECK_TENSOR(run1(m, "y = box(x, size = [1, 1, 2, 2], stride = [1, 1, 2, 2], padding = [(0, 0), (0, 0), (0, 0), (0, 0)]);"),
                 "y", ({1, 1, 1, 2}), {14, 22});
    // the window may cover the channel dimension as well
    const TensorValue c = scalars({1, 2, 2}, {1, 2, 3, 4});
    CHECK_TENSOR(run1(c, "y = box(x, size = [1, 2, 1], padding = [(0, 0), (0, 0), (0, 0)]);"), "y", ({1, 1, 2}), {4, 6});
    // shorter arrays get trailing neutral items: size [1, 1] is [1, 1, 1]
    CHECK_TENSOR(run1(ramp(), "y = box(x, size = [1, 1], stride = [1, 1]);"), "y", ({1, 1, 5}), {1, 2, 3, 4, 5});
}

TEST_CASE("debox (reverse box)") {
    const TensorValue x = scalars({1, 1, 3}, {1, 2, 3});
    // size 2, stride 2: output[i] = sum over j of input[(i - j) / 2] where divisible (nearest up-sampling)
    CHECK_TENSOR(run1(x, "y = debox(x, size = [1, 1, 2], stride = [1, 1, 2], padding = [(0, 0), (0, 0), (0, 0)]);"),
                 "y", ({1, 1, 6}), {1, 1, 2, 2, 3, 3});
    CHECK_TENSOR(run1(x, "y = nearest_upsample(x, factor = [2]);"), "y", ({1, 1, 6}), {1, 1, 2, 2, 3, 3});
    // size 3, stride 2, padding (1, 1): X = (3 - 1) * 2 + 3 - 2 = 5, terms (i + 1 - j) / 2
    CHECK_TENSOR(run1(x, "y = debox(x, size = [1, 1, 3], stride = [1, 1, 2], padding = [(0, 0), (0, 0), (1, 1)]);"),
                 "y", ({1, 1, 5}), {1, 3, 2, 5, 3});
    // normalize divides by the kernel volume
    CHECK_TENSOR(run1(x, "y = debox(x, size = [1, 1, 3], stride = [1, 1, 2], padding = [(0, 0), (0, 0), (1, 1)], "
                         "normalize = true);"),
                 "y", ({1, 1, 5}), {1.0 / 3, 1, 2.0 / 3, 5.0 / 3, 1});
    // replicate border on the input: out-of-range terms read the edge items
    CHECK_TENSOR(run1(x, "y = debox(x, size = [1, 1, 3], stride = [1, 1, 1], padding = [(0, 0), (0, 0), (1, 1)], "
                         "border = 'replicate');"),
                 "y", ({1, 1, 3}), {4, 6, 8});
    // output_shape selects the up-scaled extent
    CHECK_TENSOR(run1(x, "y = debox(x, size = [1, 1, 2], stride = [1, 1, 2], padding = [(0, 0), (0, 0), (0, 0)], "
                         "output_shape = [1, 1, 7]);"),
                 "y", ({1, 1, 7}), {1, 1, 2, 2, 3, 3, 0});
}

TEST_CASE("argmax_pool, sample, desample, max_pool") {
    const TensorValue x = scalars({1, 1, 5}, {1, 3, 2, 5, 4});
    const std::string w = "size = [1, 1, 3], padding = [(0, 0), (0, 0), (1, 1)]";
    // windows [0 1 3] [1 3 2] [3 2 5] [2 5 4] [5 4 0]: first maximum
    CHECK_TENSOR(run1(x, "y = argmax_pool(x, " + w + ");"), "y", ({1, 1, 5}), {2, 1, 2, 1, 0});
    CHECK_TENSOR(run1(x, "i = argmax_pool(x, " + w + "); y = sample(x, i, " + w + ");"), "y", ({1, 1, 5}), {3, 3, 5, 5, 5});
    CHECK_TENSOR(run1(x, "y = max_pool(x, " + w + ");"), "y", ({1, 1, 5}), {3, 3, 5, 5, 5});
    // desample scatters back where the index matches: sums to the sampled total
    CHECK_TENSOR(run1(x, "i = argmax_pool(x, " + w + "); v = sample(x, i, " + w + "); y = desample(v, i, " + w + ");"),
                 "y", ({1, 1, 5}), {0, 6, 0, 15, 0});
    // negative values: with 'constant' the padding zeros win, with 'ignore' they do not exist
    const TensorValue n = scalars({1, 1, 5}, {-1, -3, -2, -5, -4});
    CHECK_TENSOR(run1(n, "y = argmax_pool(x, " + w + ", border = 'constant');"), "y", ({1, 1, 5}), {0, 0, 1, 0, 2});
    CHECK_TENSOR(run1(n, "y = argmax_pool(x, " + w + ", border = 'ignore');"), "y", ({1, 1, 5}), {1, 0, 1, 0, 1});
    CHECK_TENSOR(run1(n, "y = max_pool(x, " + w + ", border = 'constant');"), "y", ({1, 1, 5}), {0, -1, -2, -2, 0});
    CHECK_TENSOR(run1(n, "y = max_pool(x, " + w + ", border = 'ignore');"), "y", ({1, 1, 5}), {-1, -1, -2, -2, -4});
    CHECK_TENSOR(run1(n, "y = max_pool(x, " + w + ", border = 'replicate');"), "y", ({1, 1, 5}), {-1, -1, -2, -2, -4});
    // max_pool_with_index: both results
    const Outcome both = run({{"x", n}}, "y, i = max_pool_with_index(x, " + w + ", border = 'ignore');", {"y", "i"});
    CHECK_TENSOR(both, "y", ({1, 1, 5}), {-1, -1, -2, -2, -4});
    CHECK_TENSOR(both, "i", ({1, 1, 5}), {1, 0, 1, 0, 1});
    // sample with the reflect border: index 0 of the first window reads input[1]
    CHECK_TENSOR(run({{"x", x}, {"i", integers({1, 1, 5}, {0, 0, 0, 0, 2})}}, "y = sample(x, i, " + w + ", border = 'reflect');",
                     {"y"}),
                 "y", ({1, 1, 5}), {3, 1, 3, 2, 5});
    // stride 2 max pooling over two dimensions
    const TensorValue m = scalars({1, 1, 2, 4}, {1, 8, 3, 4, 5, 6, 9, 2});
    CHECK_TENSOR(run1(m, "y = max_pool(x, size = [1, 1, 2, 2], stride = [1, 1, 2, 2], padding = [(0, 0), (0, 0), (0, 0), (0, 0)]);"),
                 "y", ({1, 1, 1, 2}), {8, 9});
    CHECK_TENSOR(run1(m, "y = argmax_pool(x, size = [1, 1, 2, 2], stride = [1, 1, 2, 2], padding = [(0, 0), (0, 0), (0, 0), (0, 0)]);"),
                 "y", ({1, 1, 1, 2}), {1, 2});
}

TEST_CASE("index out of the window is an execution error") {
    const Outcome o = run({{"x", ramp()}, {"i", integers({1, 1, 5}, {0, 0, 3, 0, 0})}},
                          "y = sample(x, i, size = [1, 1, 3], padding = [(0, 0), (0, 0), (1, 1)]);", {"y"});
    CHECK_FALSE(o.ok);
    CHECK(o.messages.find("'index' item 2 is 3; window positions are in [0, 3)") != std::string::npos);
}

TEST_CASE("conv with exact sums (ExecOptions::exact_sums)") {
    // Two channels and a bias whose terms 1, 2^-24, 2^-24 sum to 1 + 2^-23 exactly: float32 steps
    // lose each 2^-24 (a tie, rounded to the even 1), the double sum keeps them.
    const float e = std::ldexp(1.0f, -24);
    const TensorValue x = scalars({1, 2, 2}, {1, 3, e, 0});
    const TensorValue f = scalars({1, 2, 1}, {1, 1});
    const TensorValue b = scalars({1, 1}, {e});
    const std::string body = "y = conv(x, f, b);";
    Options exact;
    exact.exact_sums = true;
    const Outcome o = run({{"x", x}, {"f", f}, {"b", b}}, body, {"y"}, exact);
    REQUIRE_MESSAGE(o.ok, o.messages);
    CHECK(o["y"].data<Real>()[0] == 1.0f + 2 * e);
    CHECK(o["y"].data<Real>()[1] == 3.0f);  // 3 + 2^-24: below half an ulp of 3
    const Outcome blocked = run({{"x", x}, {"f", f}, {"b", b}}, body, {"y"});
    REQUIRE_MESSAGE(blocked.ok, blocked.messages);
    CHECK(blocked["y"].data<Real>()[0] == 1.0f);
    // the exact path gives the plain path's results where there is nothing to round: border modes,
    // padding, stride, groups (depth-wise, 2-d), per-channel bias
    const TensorValue in = scalars({1, 2, 3, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9, -1, -2, -3, -4, -5, -6, -7, -8, -9});
    const TensorValue k = scalars({2, 1, 2, 2}, {1, 2, 3, 4, -1, 0, 2, 1});
    const TensorValue kb = scalars({1, 2}, {0.5, -0.25});
    const TensorValue full = scalars({2, 2, 1, 2}, {1, 2, 3, 4, -1, 0, 2, 1});
    auto same = [&](const TensorValue& filter, const std::string& body) {
        CAPTURE(body);
        const Outcome a = run({{"x", in}, {"f", filter}, {"b", kb}}, body, {"y"}, exact);
        const Outcome c = run({{"x", in}, {"f", filter}, {"b", kb}}, body, {"y"});
        REQUIRE_MESSAGE(a.ok, a.messages);
        REQUIRE_MESSAGE(c.ok, c.messages);
        CHECK(a["y"].shape() == c["y"].shape());
        CHECK(a["y"].to_doubles() == c["y"].to_doubles());
    };
    for (const std::string attrs : {"", ", border = 'replicate', stride = [2, 2]", ", padding = [(1, 0), (0, 1)], dilation = [2, 1]"}) {
        same(k, "y = conv(x, f, b, groups = 0" + attrs + ");");  // depth-wise
        same(full, "y = conv(x, f, b" + attrs + ");");
    }
}

TEST_CASE("conv border modes, stride, dilation, bias") {
    // filter [1, 0, -1]: output[i] = ext[i - 1] - ext[i + 1]
    const TensorValue f = scalars({1, 1, 3}, {1, 0, -1});
    auto conv = [&](const std::string& attrs) {
        return run({{"x", ramp()}, {"f", f}}, "y = conv(x, f" + attrs + ");", {"y"});
    };
    const std::string p = ", padding = [(1, 1)]";
    CHECK_TENSOR(conv(p), "y", ({1, 1, 5}), {-2, -2, -2, -2, 4});
    CHECK_TENSOR(conv(p + ", border = 'replicate'"), "y", ({1, 1, 5}), {-1, -2, -2, -2, -1});
    CHECK_TENSOR(conv(p + ", border = 'reflect'"), "y", ({1, 1, 5}), {0, -2, -2, -2, 0});
    CHECK_TENSOR(conv(p + ", border = 'reflect-even'"), "y", ({1, 1, 5}), {-1, -2, -2, -2, -1});
    // automatic padding (size 3, stride 1): p = q = 1
    CHECK_TENSOR(conv(""), "y", ({1, 1, 5}), {-2, -2, -2, -2, 4});
    CHECK_TENSOR(conv(p + ", stride = [2]"), "y", ({1, 1, 3}), {-2, -2, 4});
    // dilation 2: fd = 5, padding (2, 2): output[i] = ext[i - 2] - ext[i + 2]
    CHECK_TENSOR(conv(", padding = [(2, 2)], dilation = [2]"), "y", ({1, 1, 5}), {-3, -4, -4, 2, 3});
    // bias: a literal, and per channel
    CHECK_TENSOR(conv(p + ", bias = 0.5"), "y", ({1, 1, 5}), {-1.5, -1.5, -1.5, -1.5, 4.5});
    CHECK_TENSOR(run({{"x", ramp()}, {"f", f}, {"b", scalars({1, 1}, {10})}}, "y = conv(x, f, b, padding = [(1, 1)]);", {"y"}),
                 "y", ({1, 1, 5}), {8, 8, 8, 8, 14});
}

TEST_CASE("conv channels and groups") {
    // two channels [[1, 2], [3, 4]] and [[5, 6], [7, 8]]
    const TensorValue x = scalars({1, 2, 2, 2}, {1, 2, 3, 4, 5, 6, 7, 8});
    SUBCASE("all channels into one output") {
        CHECK_TENSOR(run({{"x", x}, {"f", scalars({1, 2, 2, 2}, {1, 1, 1, 1, 1, 1, 1, 1})}},
                         "y = conv(x, f, padding = [(0, 0), (0, 0)]);", {"y"}),
                     "y", ({1, 1, 1, 1}), {36});
        // 1x1 filter mixing the channels: output o = sum over c of w[o][c] * x[c]
        CHECK_TENSOR(run({{"x", x}, {"f", scalars({2, 2, 1, 1}, {1, 1, 1, -1})}}, "y = conv(x, f);", {"y"}), "y",
                     ({1, 2, 2, 2}), {6, 8, 10, 12, -4, -4, -4, -4});
    }
    SUBCASE("groups = 2 and groups = 0 (depth-wise)") {
        const TensorValue f = scalars({2, 1, 1, 1}, {2, 3});
        const std::vector<double> expected{2, 4, 6, 8, 15, 18, 21, 24};
        CHECK_TENSOR(run({{"x", x}, {"f", f}}, "y = conv(x, f, groups = 2);", {"y"}), "y", ({1, 2, 2, 2}), expected);
        CHECK_TENSOR(run({{"x", x}, {"f", f}}, "y = conv(x, f, groups = 0);", {"y"}), "y", ({1, 2, 2, 2}), expected);
    }
    SUBCASE("channel multiplier 2") {
        // output channels 0, 1 from input channel 0, 2, 3 from channel 1
        CHECK_TENSOR(run({{"x", x}, {"f", scalars({4, 1, 1, 1}, {1, -1, 2, 10})}}, "y = conv(x, f, groups = 2);", {"y"}), "y",
                     ({1, 4, 2, 2}), {1, 2, 3, 4, -1, -2, -3, -4, 10, 12, 14, 16, 50, 60, 70, 80});
    }
    SUBCASE("depth-wise 3x3 with padding, per-channel bias") {
        // each channel convolved with a 3x3 box of ones, zero padding: every output is the channel sum
        CHECK_TENSOR(run({{"x", x}, {"f", scalars({2, 1, 3, 3}, std::vector<float>(18, 1.0f))}, {"b", scalars({1, 2}, {100, 200})}},
                         "y = conv(x, f, b, groups = 0, padding = [(1, 1), (1, 1)]);", {"y"}),
                     "y", ({1, 2, 2, 2}), {110, 110, 110, 110, 226, 226, 226, 226});
    }
}

TEST_CASE("deconv") {
    const TensorValue x = scalars({1, 1, 3}, {1, 2, 3});
    // filter [1, 1], stride 2: nearest up-sampling
    CHECK_TENSOR(run({{"x", x}, {"f", scalars({1, 1, 2}, {1, 1})}}, "y = deconv(x, f, stride = [2], padding = [(0, 0)]);", {"y"}),
                 "y", ({1, 1, 6}), {1, 1, 2, 2, 3, 3});
    // filter [1, 2, 3], stride 2, padding (1, 1): output[i] = sum over j of input[(i + 1 - j) / 2] * w[j]
    CHECK_TENSOR(run({{"x", x}, {"f", scalars({1, 1, 3}, {1, 2, 3})}}, "y = deconv(x, f, stride = [2], padding = [(1, 1)]);",
                     {"y"}),
                 "y", ({1, 1, 5}), {2, 5, 4, 9, 6});
    // automatic padding without output_shape: X = x * s = 6, t = (3 - 1) * 2 + 3 - 6 = 1, p = 0, q = 1
    CHECK_TENSOR(run({{"x", x}, {"f", scalars({1, 1, 3}, {1, 2, 3})}}, "y = deconv(x, f, stride = [2]);", {"y"}), "y",
                 ({1, 1, 6}), {1, 2, 5, 4, 9, 6});
    // groups: filter (C_in, C_out / G, f): two input channels, each to two output channels
    const TensorValue x2 = scalars({1, 2, 2}, {1, 2, 3, 4});
    CHECK_TENSOR(run({{"x", x2}, {"f", scalars({2, 2, 1}, {1, 10, 100, 1000})}}, "y = deconv(x, f, groups = 2);", {"y"}), "y",
                 ({1, 4, 2}), {1, 2, 10, 20, 300, 400, 3000, 4000});
    // one group: every input channel contributes to every output channel
    CHECK_TENSOR(run({{"x", x2}, {"f", scalars({2, 1, 1}, {1, 10})}}, "y = deconv(x, f, bias = 0.5);", {"y"}), "y",
                 ({1, 1, 2}), {31.5, 42.5});
}

}  // TEST_SUITE

}  // namespace sliding_window_test
