// A strided-box iterator shared by the lowerings: the TOSA interpreter's kernels and the NNAPI
// export's filter layouts.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace nnef::lowering {

using Shape = std::vector<std::int64_t>;

// Calls row(output offset, input offsets, input steps, count) over the rows (last dimension) of
// `out` in order, input k read through its element strides st[k] from offset start[k]: along a
// row it advances by step[k] = st[k][last]. The one strided-box iterator of the kernels
// (broadcasting, SLICE, TRANSPOSE, REVERSE: lowering/tosa/ops/kernel.hpp) and of the NNAPI export's
// filter layouts (lowering/nnapi/from_nnef_context.cpp).
template <std::size_t N, class F>
void for_each_strided_row(const Shape& out, const std::array<Shape, N>& st, const std::array<std::int64_t, N>& start, F&& row) {
    const std::size_t r = out.size();
    std::array<std::int64_t, N> base = start, step{};
    if (r == 0) {
        row(std::int64_t{0}, base, step, std::int64_t{1});
        return;
    }
    for (std::int64_t e : out)
        if (e == 0) return;
    for (std::size_t k = 0; k < N; ++k) step[k] = st[k][r - 1];
    const std::int64_t inner = out[r - 1];
    Shape idx(r, 0);
    for (std::int64_t o = 0;; o += inner) {
        for (std::size_t k = 0; k < N; ++k) {
            std::int64_t b = start[k];
            for (std::size_t d = 0; d + 1 < r; ++d) b += idx[d] * st[k][d];
            base[k] = b;
        }
        row(o, base, step, inner);
        // the next position of the outer dimensions
        std::size_t d = r - 1;
        bool done = true;
        while (d-- > 0) {
            if (++idx[d] < out[d]) {
                done = false;
                break;
            }
            idx[d] = 0;
        }
        if (done) return;
    }
}

}  // namespace nnef::lowering
