// Reductions (4.4), shape operations (4.5 and SPEC_NOTES 2), matrix multiplication (4.7),
// up-sampling (4.3.4), RoI operations (4.6), tensor introduction and variable updates (4.1, 4.8),
// normalization and quantization compounds (4.9.4, 4.9.5), computed by hand.
#include "exec_support.hpp"

namespace tensor_ops_test {

using namespace exec_test;

TEST_SUITE("exec") {

// [[1, 2, 3], [4, 5, 6]]
TensorValue m23() { return scalars({2, 3}, {1, 2, 3, 4, 5, 6}); }

TEST_CASE("reductions") {
    CHECK_TENSOR(run1(m23(), "y = sum_reduce(x, axes = [1]);"), "y", ({2, 1}), {6, 15});
    CHECK_TENSOR(run1(m23(), "y = sum_reduce(x, axes = [0]);"), "y", ({1, 3}), {5, 7, 9});
    CHECK_TENSOR(run1(m23(), "y = sum_reduce(x, axes = [0, 1], normalize = true);"), "y", ({1, 1}), {3.5});
    CHECK_TENSOR(run1(m23(), "y = mean_reduce(x, axes = [1]);"), "y", ({2, 1}), {2, 5});
    CHECK_TENSOR(run1(m23(), "y = sum_reduce(x, axes = []);"), "y", ({2, 3}), {1, 2, 3, 4, 5, 6});
    const TensorValue x = scalars({2, 3}, {3, 1, 3, -2, 7, 7});
    CHECK_TENSOR(run1(x, "y = max_reduce(x, axes = [1]);"), "y", ({2, 1}), {3, 7});
    CHECK_TENSOR(run1(x, "y = min_reduce(x, axes = [1]);"), "y", ({2, 1}), {1, -2});
    // first extreme position; over several axes the row-major position within them
    CHECK_TENSOR(run1(x, "y = argmax_reduce(x, axes = [1]);"), "y", ({2, 1}), {0, 1});
    CHECK_TENSOR(run1(x, "y = argmin_reduce(x, axes = [1]);"), "y", ({2, 1}), {1, 0});
    CHECK_TENSOR(run1(x, "y = argmax_reduce(x, axes = [0, 1]);"), "y", ({1, 1}), {4});
    CHECK_TENSOR(run1(x, "y = argmin_reduce(x, axes = [0]);"), "y", ({1, 3}), {1, 0, 0});
    const TensorValue b = logicals({2, 2}, {true, false, true, true});
    CHECK_TENSOR(run({{"x", b}}, "y = any_reduce(x, axes = [0]);", {"y"}), "y", ({1, 2}), {1, 1});
    CHECK_TENSOR(run({{"x", b}}, "y = all_reduce(x, axes = [1]);", {"y"}), "y", ({2, 1}), {0, 1});
    // softmax over the channels: exp(x - max) / sum
    const double e1 = std::exp(-1.0), e2 = std::exp(-2.0);
    CHECK_TENSOR(run1(m23(), "y = softmax(x, axes = [1]);"), "y", ({2, 3}),
                 {e2 / (1 + e1 + e2), e1 / (1 + e1 + e2), 1 / (1 + e1 + e2), e2 / (1 + e1 + e2), e1 / (1 + e1 + e2),
                  1 / (1 + e1 + e2)});
    // moments (expanded): mean and variance
    const Outcome mo = run({{"x", m23()}}, "m, v = moments(x, axes = [1]);", {"m", "v"});
    CHECK_TENSOR(mo, "m", ({2, 1}), {2, 5});
    CHECK_TENSOR(mo, "v", ({2, 1}), {2.0 / 3, 2.0 / 3});
}

TEST_CASE("reshape, squeeze, unsqueeze, transpose") {
    CHECK_TENSOR(run1(m23(), "y = reshape(x, shape = [3, -1]);"), "y", ({3, 2}), {1, 2, 3, 4, 5, 6});
    CHECK_TENSOR(run1(scalars({1, 2, 3}, {1, 2, 3, 4, 5, 6}), "y = reshape(x, shape = [6], axis_start = 1);"), "y", ({1, 6}),
                 {1, 2, 3, 4, 5, 6});
    CHECK_TENSOR(run1(scalars({1, 3, 1}, {1, 2, 3}), "y = squeeze(x, axes = [0, 2]);"), "y", ({3}), {1, 2, 3});
    CHECK_TENSOR(run1(scalars({3}, {1, 2, 3}), "y = unsqueeze(x, axes = [0, 2]);"), "y", ({1, 3, 1}), {1, 2, 3});
    CHECK_TENSOR(run1(m23(), "y = transpose(x, axes = [1, 0]);"), "y", ({3, 2}), {1, 4, 2, 5, 3, 6});
    // [2, 3, 2] with axes [2, 0, 1]: output[i, j, k] = input[j, k, i]
    const TensorValue t = scalars({2, 3, 2}, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11});
    CHECK_TENSOR(run1(t, "y = transpose(x, axes = [2, 0, 1]);"), "y", ({2, 2, 3}), {0, 2, 4, 6, 8, 10, 1, 3, 5, 7, 9, 11});
    // fewer axes than the rank: the trailing dimensions stay
    CHECK_TENSOR(run1(t, "y = transpose(x, axes = [1, 0]);"), "y", ({3, 2, 2}), {0, 1, 6, 7, 2, 3, 8, 9, 4, 5, 10, 11});
    CHECK_TENSOR(run({{"x", integers({2, 2}, {1, 2, 3, 4})}}, "y = transpose(x, axes = [1, 0]);", {"y"}), "y", ({2, 2}),
                 {1, 3, 2, 4});
}

TEST_CASE("split, concat, stack, unstack") {
    const Outcome s = run({{"x", m23()}}, "[a, b] = split(x, axis = 1, ratios = [1, 2]);", {"a", "b"});
    CHECK_TENSOR(s, "a", ({2, 1}), {1, 4});
    CHECK_TENSOR(s, "b", ({2, 2}), {2, 3, 5, 6});
    CHECK_TENSOR(run({{"a", scalars({2, 1}, {1, 4})}, {"b", scalars({2, 2}, {2, 3, 5, 6})}}, "y = concat([a, b], axis = 1);",
                     {"y"}),
                 "y", ({2, 3}), {1, 2, 3, 4, 5, 6});
    CHECK_TENSOR(run({{"a", scalars({1, 2}, {1, 2})}, {"b", scalars({2, 2}, {3, 4, 5, 6})}}, "y = concat([a, b], axis = 0);",
                     {"y"}),
                 "y", ({3, 2}), {1, 2, 3, 4, 5, 6});
    CHECK_TENSOR(run({{"a", scalars({2}, {1, 2})}, {"b", scalars({2}, {3, 4})}}, "y = stack([a, b], axis = 1);", {"y"}), "y",
                 ({2, 2}), {1, 3, 2, 4});
    const Outcome u = run({{"x", m23()}}, "[a, b, c] = unstack(x, axis = 1);", {"a", "b", "c"});
    CHECK_TENSOR(u, "a", ({2}), {1, 4});
    CHECK_TENSOR(u, "c", ({2}), {3, 6});
    CHECK_TENSOR(run({{"a", logicals({1}, {true})}, {"b", logicals({2}, {false, true})}}, "y = concat([a, b], axis = 0);",
                     {"y"}),
                 "y", ({3}), {1, 0, 1});
}

TEST_CASE("slice, tile, pad, gather") {
    const TensorValue r = scalars({1, 6}, {0, 1, 2, 3, 4, 5});
    CHECK_TENSOR(run1(r, "y = slice(x, axes = [1], begin = [1], end = [4]);"), "y", ({1, 3}), {1, 2, 3});
    // negative items count from the end; end 0 means the end
    CHECK_TENSOR(run1(r, "y = slice(x, axes = [1], begin = [-2], end = [0]);"), "y", ({1, 2}), {4, 5});
    CHECK_TENSOR(run1(r, "y = slice(x, axes = [1], begin = [0], end = [6], stride = [2]);"), "y", ({1, 3}), {0, 2, 4});
    // negative stride walks backwards from begin to end (exclusive)
    CHECK_TENSOR(run1(r, "y = slice(x, axes = [1], begin = [4], end = [0], stride = [-2]);"), "y", ({1, 2}), {4, 2});
    CHECK_TENSOR(run1(r, "y = slice(x, axes = [1], begin = [-1], end = [-7], stride = [-1]);"), "y", ({1, 6}),
                 {5, 4, 3, 2, 1, 0});
    CHECK_TENSOR(run1(m23(), "y = slice(x, axes = [0, 1], begin = [1, 1], end = [2, 3]);"), "y", ({1, 2}), {5, 6});
    CHECK_TENSOR(run1(scalars({1, 2}, {1, 2}), "y = tile(x, repeats = [2, 2]);"), "y", ({2, 4}), {1, 2, 1, 2, 1, 2, 1, 2});
    const TensorValue p = scalars({1, 3}, {1, 2, 3});
    CHECK_TENSOR(run1(p, "y = pad(x, padding = [(0, 0), (2, 1)]);"), "y", ({1, 6}), {0, 0, 1, 2, 3, 0});
    CHECK_TENSOR(run1(p, "y = pad(x, padding = [(0, 0), (2, 1)], value = 9.0);"), "y", ({1, 6}), {9, 9, 1, 2, 3, 9});
    CHECK_TENSOR(run1(p, "y = pad(x, padding = [(0, 0), (2, 1)], border = 'replicate');"), "y", ({1, 6}), {1, 1, 1, 2, 3, 3});
    CHECK_TENSOR(run1(p, "y = pad(x, padding = [(0, 0), (2, 1)], border = 'reflect');"), "y", ({1, 6}), {3, 2, 1, 2, 3, 2});
    CHECK_TENSOR(run1(p, "y = pad(x, padding = [(0, 0), (2, 1)], border = 'reflect-even');"), "y", ({1, 6}),
                 {2, 1, 1, 2, 3, 3});
    // gather: negative indices count from the end; the output takes the shape of the indices
    CHECK_TENSOR(run({{"x", m23()}, {"i", integers({2, 2}, {2, 0, -1, 1})}}, "y = gather(x, i, axis = 1);", {"y"}), "y",
                 ({2, 2, 2}), {3, 1, 3, 2, 6, 4, 6, 5});
    CHECK_TENSOR(run({{"x", m23()}}, "y = gather(x, -1, axis = 0);", {"y"}), "y", ({3}), {4, 5, 6});
    const Outcome bad = run({{"x", m23()}, {"i", integers({1}, {3})}}, "y = gather(x, i, axis = 1);", {"y"});
    CHECK_FALSE(bad.ok);
    CHECK(bad.messages.find("'indices' item 0 is 3; indices along axis 1 must be in [-3, 3)") != std::string::npos);
}

TEST_CASE("matmul and linear") {
    const TensorValue a = m23(), b = scalars({3, 2}, {1, 0, 0, 1, 1, 1});
    CHECK_TENSOR(run({{"a", a}, {"b", b}}, "y = matmul(a, b);", {"y"}), "y", ({2, 2}), {4, 5, 10, 11});
    CHECK_TENSOR(run({{"a", a}, {"b", a}}, "y = matmul(a, b, transposeB = true);", {"y"}), "y", ({2, 2}), {14, 32, 32, 77});
    CHECK_TENSOR(run({{"a", a}, {"b", a}}, "y = matmul(a, b, transposeA = true);", {"y"}), "y", ({3, 3}),
                 {17, 22, 27, 22, 29, 36, 27, 36, 45});
    CHECK_TENSOR(run({{"a", b}, {"b", a}}, "y = matmul(a, b, transposeA = true, transposeB = true);", {"y"}), "y", ({2, 2}),
                 {4, 10, 5, 11});
    // batch dimensions broadcast: [2, 1, 2] x [1, 2, 1]
    CHECK_TENSOR(run({{"a", scalars({2, 1, 2}, {1, 2, 3, 4})}, {"b", scalars({1, 2, 1}, {10, 1})}}, "y = matmul(a, b);", {"y"}),
                 "y", ({2, 1, 1}), {12, 34});
    // linear: input x filter^T + bias; a rank-1 bias [2] is the de facto [1, 2]
    CHECK_TENSOR(run({{"x", scalars({1, 3}, {1, 2, 3})}, {"w", m23()}, {"b", scalars({1, 2}, {0.5, -0.5})}},
                     "y = linear(x, w, b);", {"y"}),
                 "y", ({1, 2}), {14.5, 31.5});
    CHECK_TENSOR(run({{"x", scalars({1, 3}, {1, 2, 3})}, {"w", m23()}, {"b", scalars({2}, {0.5, -0.5})}}, "y = linear(x, w, b);",
                     {"y"}),
                 "y", ({1, 2}), {14.5, 31.5});
}

TEST_CASE("multilinear_upsample methods and borders") {
    const TensorValue x = scalars({1, 1, 2}, {1, 3});
    auto up = [&](const std::string& method, const std::string& border) {
        return run1(x, "y = multilinear_upsample(x, factor = [2], method = '" + method + "', border = '" + border + "');");
    };
    // asymmetric: v = i / 2
    CHECK_TENSOR(up("asymmetric", "replicate"), "y", ({1, 1, 4}), {1, 2, 3, 3});
    CHECK_TENSOR(up("asymmetric", "constant"), "y", ({1, 1, 4}), {1, 2, 3, 1.5});
    // symmetric: v = (i - 0.5) / 2 (the spec's deconvolution with weights 0.25 0.75 0.75 0.25)
    CHECK_TENSOR(up("symmetric", "replicate"), "y", ({1, 1, 4}), {1, 1.5, 2.5, 3});
    CHECK_TENSOR(up("symmetric", "constant"), "y", ({1, 1, 4}), {0.75, 1.5, 2.5, 2.25});
    // aligned: v = i * (x - 1) / (x f - 1) = i / 3
    CHECK_TENSOR(up("aligned", "replicate"), "y", ({1, 1, 4}), {1, 1 + 2.0 / 3, 1 + 4.0 / 3, 3});
    // bilinear = linear in each dimension
    CHECK_TENSOR(run1(scalars({1, 1, 2, 2}, {0, 2, 4, 6}),
                      "y = multilinear_upsample(x, factor = [2, 2], method = 'asymmetric', border = 'replicate');"),
                 "y", ({1, 1, 4, 4}), {0, 1, 2, 2, 2, 3, 4, 4, 4, 5, 6, 6, 4, 5, 6, 6});
    // nearest and area down-sampling (expanded to box)
    CHECK_TENSOR(run1(scalars({1, 1, 4}, {1, 2, 3, 4}), "y = nearest_downsample(x, factor = [2]);"), "y", ({1, 1, 2}), {1, 3});
    CHECK_TENSOR(run1(scalars({1, 1, 4}, {1, 2, 3, 4}), "y = area_downsample(x, factor = [2]);"), "y", ({1, 1, 2}), {1.5, 3.5});
}

TEST_CASE("RoI pooling and resampling") {
    std::vector<float> v(16);
    for (int i = 0; i < 16; ++i) v[static_cast<std::size_t>(i)] = float(i);
    const TensorValue x = scalars({1, 1, 4, 4}, v);
    const TensorValue rois = scalars({1, 4}, {0, 0, 4, 4});
    const TensorValue index = integers({1, 1}, {0});
    const std::vector<Input> in{{"x", x}, {"r", rois}, {"b", index}};
    // 2x2 cells of 2x2 items
    CHECK_TENSOR(run(in, "y = avg_roi_pool(x, r, b, output_size = [2, 2]);", {"y"}), "y", ({1, 1, 2, 2}), {2.5, 4.5, 10.5, 12.5});
    CHECK_TENSOR(run(in, "y = max_roi_pool(x, r, b, output_size = [2, 2]);", {"y"}), "y", ({1, 1, 2, 2}), {5, 7, 13, 15});
    // coordinates are rounded: (0.4, 1.6, 2.2, 3.5) -> rows [0, 2), columns [2, 4)
    CHECK_TENSOR(run({{"x", x}, {"r", scalars({1, 4}, {0.4f, 1.6f, 2.2f, 3.5f})}, {"b", index}},
                     "y = max_roi_pool(x, r, b, output_size = [1, 1]);", {"y"}),
                 "y", ({1, 1, 1, 1}), {7});
    // asymmetric resampling of the whole map to 2x2: v = i * 4 / 2
    CHECK_TENSOR(run(in, "y = roi_resample(x, r, b, output_size = [2, 2], method = 'asymmetric');", {"y"}), "y",
                 ({1, 1, 2, 2}), {0, 2, 8, 10});
    // the whole map as region reproduces multilinear_upsample (replicate border)
    const Outcome roi = run(in, "y = roi_resample(x, r, b, output_size = [8, 8], method = 'symmetric');", {"y"});
    const Outcome ups = run1(x, "y = multilinear_upsample(x, factor = [2, 2], method = 'symmetric', border = 'replicate');");
    REQUIRE(roi.ok);
    REQUIRE(ups.ok);
    CHECK(roi["y"].to_doubles() == ups["y"].to_doubles());
    // avg_roi_align (expanded: resample to output_size * sampling_rate, then average)
    CHECK_TENSOR(run(in, "y = avg_roi_align(x, r, b, output_size = [1, 1], sampling_rate = [2, 2], resize_method = 'asymmetric');",
                     {"y"}),
                 "y", ({1, 1, 1, 1}), {5});
    const Outcome bad = run({{"x", x}, {"r", rois}, {"b", integers({1, 1}, {1})}}, "y = max_roi_pool(x, r, b, output_size = [1, 1]);",
                            {"y"});
    CHECK_FALSE(bad.ok);
    CHECK(bad.messages.find("'batch_index' item 0 is 1") != std::string::npos);
}

TEST_CASE("constant, and a variable without data") {
    CHECK_TENSOR(run1(scalars({1, 3}, {1, 2, 3}), "c = constant(shape = [1, 3], value = [10.0]); y = add(x, c);"), "y", ({1, 3}),
                 {11, 12, 13});
    CHECK_TENSOR(run1(scalars({1, 3}, {1, 2, 3}), "c = constant(shape = [1, 3], value = [1.0, 2.0, 3.0]); y = mul(x, c);"), "y",
                 ({1, 3}), {1, 4, 9});
    CHECK_TENSOR(run1(scalars({1}, {1}), "c = constant<integer>(shape = [2], value = [4, 5]); y = cast<scalar>(c);"), "y",
                 ({2}), {4, 5});
    // a counter: the variable holds its value for the cycle; update replaces it after the cycle
    const std::string body = "v = variable(shape = [1], label = 'state'); n = add(v, x); u = update(v, n); y = copy(v);";
    // variables start from stored data, so the test gives one through a constant-free graph: the
    // executor refuses a variable without data
    const Outcome o = run1(scalars({1}, {1}), body);
    CHECK_FALSE(o.ok);
    CHECK(o.messages.find("variable 'v' (label 'state') has no tensor data") != std::string::npos);
}

TEST_CASE("normalization and quantization compounds") {
    // batch_normalization: offset + scale * (input - mean) / sqrt(variance + epsilon), per channel
    const TensorValue x = scalars({1, 2, 2}, {1, 3, 10, 20});
    const std::vector<Input> bn{{"x", x},
                                {"m", scalars({1, 2}, {2, 15})},
                                {"v", scalars({1, 2}, {3, 24})},
                                {"o", scalars({1, 2}, {0.5, -1})},
                                {"s", scalars({1, 2}, {2, 1})}};
    CHECK_TENSOR(run(bn, "y = batch_normalization(x, m, v, o, s, epsilon = 1.0);", {"y"}), "y", ({1, 2, 2}),
                 {0.5 - 1, 0.5 + 1, -1 - 1, -1 + 1});
    CHECK_TENSOR(run1(scalars({1, 2}, {3, 4}), "y = l2_normalization(x, axes = [1]);"), "y", ({1, 2}), {0.6, 0.8});
    CHECK_TENSOR(run1(scalars({1, 2}, {3, -1}), "y = l1_normalization(x, axes = [1]);"), "y", ({1, 2}), {0.75, -0.25});
    CHECK_TENSOR(run1(scalars({1, 3}, {1, 2, 6}), "y = local_mean_normalization(x, size = [1, 3]);"), "y", ({1, 3}),
                 {1 - 1.0, 2 - 3.0, 6 - 8.0 / 3});
    // linear_quantize: r = 3, q = round(clamp(x, 0, 1) * 3), y = q / 3
    CHECK_TENSOR(run1(scalars({4}, {-1, 0.2f, 0.5f, 2}), "y = linear_quantize(x, 0.0, 1.0, bits = 2);"), "y", ({4}),
                 {0, 1.0 / 3, 2.0 / 3, 1});
    // logarithmic_quantize: m = ceil(log2 4) = 2, r = 7, q = round(clamp(log2|x|, -5, 2)), y = sign(x) 2^q
    CHECK_TENSOR(run1(scalars({4}, {1, -3, 0.1f, 100}), "y = logarithmic_quantize(x, 4.0, bits = 3);"), "y", ({4}),
                 {1, -4, 0.125, 4});
    // min_max_linear_quantize, signed symmetric 3 bits: r = 6, p = 3, q = round((z + 1) / 2 * 6) - 3,
    // y = (q + 3) / 6 * 2 - 1
    CHECK_TENSOR(run1(scalars({5}, {-2, -0.5f, 0.1f, 0.4f, 1}),
                      "y = min_max_linear_quantize(x, -1.0, 1.0, bits = 3, signed = true, symmetric = true);"),
                 "y", ({5}), {-1, -1.0 / 3, 0, 1.0 / 3, 1});
    // zero_point_linear_quantize, unsigned 4 bits: s = round(x / 0.5) + 2, q = clamp(s, 0, 15),
    // y = (q - 2) * 0.5
    CHECK_TENSOR(run1(scalars({4}, {-3, -0.2f, 0.3f, 10}),
                      "y = zero_point_linear_quantize(x, 2, 0.5, bits = 4, signed = false, symmetric = false);"),
                 "y", ({4}), {-1, 0, 0.5, 6.5});
    // signed, not symmetric: q = clamp(s, -8, 7)
    CHECK_TENSOR(run1(scalars({4}, {-10, -0.2f, 0.3f, 10}),
                      "y = zero_point_linear_quantize(x, 2, 0.5, bits = 4, signed = true, symmetric = false);"),
                 "y", ({4}), {-5, 0, 0.5, 2.5});
    // add_n and copy_n (expanded)
    CHECK_TENSOR(run({{"a", scalars({2}, {1, 2})}, {"b", scalars({2}, {3, 4})}, {"c", scalars({2}, {5, 6})}},
                     "y = add_n([a, b, c]);", {"y"}),
                 "y", ({2}), {9, 12});
    const Outcome copies = run({{"x", scalars({2}, {1, 2})}}, "[a, b] = copy_n(x, times = 2);", {"a", "b"});
    CHECK_TENSOR(copies, "a", ({2}), {1, 2});
    CHECK_TENSOR(copies, "b", ({2}), {1, 2});
}

}  // TEST_SUITE

}  // namespace tensor_ops_test
