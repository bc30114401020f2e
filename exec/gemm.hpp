// Matrix multiplication of scalar items (Real) for the convolution and matmul kernels: cache-blocked,
// with packed panels and a register-blocked micro-kernel (AVX2/FMA for float where the CPU has
// it, chosen at run time; portable C++ otherwise and for double). std-only.
#pragma once
#include <cstdint>

#include "exec/precision.hpp"

namespace nnef::NNEF_EXEC_NS {

// A strided matrix view: item (i, k) is data[i * row + k * col].
struct MatrixView {
    const Real* data = nullptr;
    std::int64_t row = 0;
    std::int64_t col = 1;
};

// C (M x N, row-major with leading dimension ldc) = A (M x K) * B (K x N), plus the previous
// contents of C when `accumulate`. Work is split over `threads` along the larger of M and N.
void gemm(std::int64_t M, std::int64_t N, std::int64_t K, MatrixView A, MatrixView B, Real* C, std::int64_t ldc,
          bool accumulate, unsigned threads);

// Which micro-kernel gemm() uses: "avx2" or "generic".
const char* gemm_kernel_name();

}  // namespace nnef::NNEF_EXEC_NS
