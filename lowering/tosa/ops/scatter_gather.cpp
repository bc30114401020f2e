// The scatter / gather operators (spec 2.11): GATHER, SCATTER.
#include "lowering/tosa/ops/check.hpp"
#include "lowering/tosa/ops/kernel.hpp"
#include "lowering/tosa/ops/registry.hpp"

namespace nnef::tosa {

// ---- validation ----------------------------------------------------------------------------

namespace checks {

// The Supported Data Types and Compile Time Constant tables of the family.
void add_scatter_gather_tables(Tables& t) {
    t.types.insert(t.types.end(), {
        {OpKind::GATHER, "index_t=indices in_out_t=values=output", gather_rows},
        {OpKind::SCATTER, "index_t=indices in_out_t=values_in=input=values_out", gather_rows},
    });
}

// Constant indices: REQUIRE(0 <= k && k < K) (and for SCATTER each position written once).
bool check_indices(OpCheck& c, std::size_t i, I64 k_extent, bool unique) {
    const ConstData* k = c.constant(i);
    if (!k || k->type.dtype != DType::i32 || k->type.rank() != 2) return false;
    const I64 n = k->type.shape[0], w = k->type.shape[1];
    const std::int32_t* items = k->items<std::int32_t>();
    std::vector<bool> seen;
    for (I64 a = 0; a < n; ++a) {
        if (unique) seen.assign(static_cast<std::size_t>(std::max<I64>(k_extent, 0)), false);
        for (I64 b = 0; b < w; ++b) {
            const I64 v = items[a * w + b];
            if (c.require(v >= 0 && v < k_extent, "0 <= k && k < K",
                          "indices hold " + std::to_string(v) + ", K is " + std::to_string(k_extent)))
                return true;
            if (unique) {
                if (c.require(!seen[v], "output_modified[n,k,c] == false",
                              "index " + std::to_string(v) + " is written twice in batch " + std::to_string(a)))
                    return true;
                seen[v] = true;
            }
        }
    }
    return false;
}

void check_gather(OpCheck& c) {
    if (c.input_rank(0, 3) || c.input_rank(1, 2)) return;
    const Shape& v = c.ish(0);
    const Shape& idx = c.ish(1);
    if (c.argument(v[0] == idx[0], "values [N,K,C] and indices [N,W] share N (argument table)",
                   "values " + to_string(c.in(0)) + ", indices " + to_string(c.in(1))))
        return;
    if (check_indices(c, 1, v[1], false)) return;
    c.expect_shape(0, c.idt(0), {v[0], idx[1], v[2]}, "shape(output) != [N,W,C]");
}

void check_scatter(OpCheck& c) {
    if (c.input_rank(0, 3) || c.input_rank(1, 2) || c.input_rank(2, 3)) return;
    const Shape& v = c.ish(0);
    const Shape& idx = c.ish(1);
    const Shape& x = c.ish(2);
    if (c.argument(v[0] == idx[0] && x[0] == v[0] && x[1] == idx[1] && x[2] == v[2],
                   "values_in [N,K,C], indices [N,W], input [N,W,C] (argument table)",
                   "values_in " + to_string(c.in(0)) + ", indices " + to_string(c.in(1)) + ", input " + to_string(c.in(2))))
        return;
    if (check_indices(c, 1, v[1], true)) return;
    c.expect_shape(0, c.idt(0), v, "shape(values_out) != [N,K,C]");
}

}  // namespace checks

// ---- interpreter kernels ---------------------------------------------------------------------

namespace kernels {

void op_gather(Ctx& c) {
    const ConstData& values = c.in(0);
    const ConstData& indices = c.in(1);
    const TensorType& out = c.out_type(0);
    const I64 N = values.type.shape[0], K = values.type.shape[1], C = values.type.shape[2], W = indices.type.shape[1];
    error_if(out.dtype != values.type.dtype, "values and output types differ");
    auto y = c.alloc(0);
    const std::size_t bytes = storage_bytes(out.dtype);
    const auto* src = static_cast<const std::uint8_t*>(values.data);
    auto* dst = static_cast<std::uint8_t*>(const_cast<void*>(y->data));
    for (I64 n = 0; n < N; ++n)
        for (I64 w = 0; w < W; ++w) {
            const I64 k = load_int(indices, n * W + w);
            require(0 <= k && k < K, "0 <= k && k < K");
            copy_items(dst + (n * W + w) * C * bytes, src + (n * K + k) * C * bytes, C, bytes);
        }
    c.set(0, y);
}

void op_scatter(Ctx& c) {
    const ConstData& values_in = c.in(0);
    const ConstData& indices = c.in(1);
    const ConstData& input = c.in(2);
    const TensorType& out = c.out_type(0);
    const I64 N = values_in.type.shape[0], K = values_in.type.shape[1], C = values_in.type.shape[2], W = indices.type.shape[1];
    error_if(input.type.dtype != out.dtype, "input and values_out types differ");
    auto y = c.alloc(0);
    const std::size_t bytes = storage_bytes(out.dtype);
    auto* dst = static_cast<std::uint8_t*>(const_cast<void*>(y->data));
    copy_items(dst, static_cast<const std::uint8_t*>(values_in.data), out.volume(), bytes);
    std::vector<bool> modified(static_cast<std::size_t>(N * K), false);  // per row: every c alike
    const auto* src = static_cast<const std::uint8_t*>(input.data);
    for (I64 n = 0; n < N; ++n)
        for (I64 w = 0; w < W; ++w) {
            const I64 k = load_int(indices, n * W + w);
            require(0 <= k && k < K, "0 <= k && k < K");
            require(!modified[n * K + k], "output_modified[n,k,c] == false");
            modified[n * K + k] = true;
            copy_items(dst + (n * K + k) * C * bytes, src + (n * W + w) * C * bytes, C, bytes);
        }
    c.set(0, y);
}

}  // namespace kernels

}  // namespace nnef::tosa
