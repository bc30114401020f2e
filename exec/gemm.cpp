#include "exec/gemm.hpp"

#include <algorithm>
#include <cstring>
#include <vector>

#include "exec/common.hpp"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__)) && !defined(NNEF_EXEC_FLOAT64)
#include <immintrin.h>
#define NNEF_EXEC_X86 1
#endif

namespace nnef::NNEF_EXEC_NS {

namespace exec_gemm_cpp {

// Register block of the micro-kernel (rows of A x columns of B) and cache blocks.
constexpr std::int64_t MR = 6;
constexpr std::int64_t NR = 16;
constexpr std::int64_t KC = 256;
constexpr std::int64_t MC = 120;  // multiple of MR
constexpr std::int64_t NC = 512;  // multiple of NR

// Packs rows [0, mc) x columns [0, kc) of A into strips of MR rows: strip s, column k holds
// A(s * MR + r, k) for r in [0, MR), zero beyond mc.
void pack_a(std::int64_t mc, std::int64_t kc, const Real* a, std::int64_t row, std::int64_t col, Real* out) {
    for (std::int64_t s = 0; s < mc; s += MR) {
        const std::int64_t rows = std::min(MR, mc - s);
        for (std::int64_t k = 0; k < kc; ++k) {
            for (std::int64_t r = 0; r < rows; ++r) out[r] = a[(s + r) * row + k * col];
            for (std::int64_t r = rows; r < MR; ++r) out[r] = 0.0f;
            out += MR;
        }
    }
}

// Packs rows [0, kc) x columns [0, nc) of B into strips of NR columns.
void pack_b(std::int64_t kc, std::int64_t nc, const Real* b, std::int64_t row, std::int64_t col, Real* out) {
    for (std::int64_t s = 0; s < nc; s += NR) {
        const std::int64_t cols = std::min(NR, nc - s);
        if (row == 1) {
            // contiguous along k (a transposed operand): read each column in order
            for (std::int64_t c = 0; c < NR; ++c) {
                if (c >= cols) {
                    for (std::int64_t k = 0; k < kc; ++k) out[k * NR + c] = 0.0f;
                    continue;
                }
                const Real* src = b + (s + c) * col;
                for (std::int64_t k = 0; k < kc; ++k) out[k * NR + c] = src[k];
            }
            out += kc * NR;
            continue;
        }
        for (std::int64_t k = 0; k < kc; ++k) {
            const Real* src = b + k * row + s * col;
            if (col == 1 && cols == NR) {
                std::memcpy(out, src, sizeof(Real) * NR);
            } else {
                for (std::int64_t c = 0; c < cols; ++c) out[c] = src[c * col];
                for (std::int64_t c = cols; c < NR; ++c) out[c] = 0.0f;
            }
            out += NR;
        }
    }
}

// Writes an MR x NR block of results to C (mr x nr of it valid), adding to C when `add`.
inline void store_block(const Real* block, Real* c, std::int64_t ldc, std::int64_t mr, std::int64_t nr, bool add) {
    for (std::int64_t r = 0; r < mr; ++r)
        for (std::int64_t j = 0; j < nr; ++j) c[r * ldc + j] = add ? c[r * ldc + j] + block[r * NR + j] : block[r * NR + j];
}

using MicroKernel = void (*)(std::int64_t kc, const Real* a, const Real* b, Real* c, std::int64_t ldc,
                             std::int64_t mr, std::int64_t nr, bool add);

void micro_generic(std::int64_t kc, const Real* a, const Real* b, Real* c, std::int64_t ldc, std::int64_t mr,
                   std::int64_t nr, bool add) {
    Real acc[MR * NR] = {};
    for (std::int64_t k = 0; k < kc; ++k) {
        const Real* bk = b + k * NR;
        const Real* ak = a + k * MR;
        for (std::int64_t r = 0; r < MR; ++r) {
            const Real av = ak[r];
            Real* row = acc + r * NR;
            for (std::int64_t j = 0; j < NR; ++j) row[j] += av * bk[j];
        }
    }
    store_block(acc, c, ldc, mr, nr, add);
}

#ifdef NNEF_EXEC_X86
__attribute__((target("avx2,fma"))) void micro_avx2(std::int64_t kc, const Real* a, const Real* b, Real* c,
                                                    std::int64_t ldc, std::int64_t mr, std::int64_t nr, bool add) {
    __m256 acc[MR][2];
#pragma GCC unroll 6
    for (int r = 0; r < MR; ++r) acc[r][0] = acc[r][1] = _mm256_setzero_ps();
    for (std::int64_t k = 0; k < kc; ++k) {
        const __m256 b0 = _mm256_loadu_ps(b);
        const __m256 b1 = _mm256_loadu_ps(b + 8);
#pragma GCC unroll 6
        for (int r = 0; r < MR; ++r) {
            const __m256 av = _mm256_broadcast_ss(a + r);
            acc[r][0] = _mm256_fmadd_ps(av, b0, acc[r][0]);
            acc[r][1] = _mm256_fmadd_ps(av, b1, acc[r][1]);
        }
        a += MR;
        b += NR;
    }
    alignas(32) Real block[MR * NR];
#pragma GCC unroll 6
    for (int r = 0; r < MR; ++r) {
        _mm256_store_ps(block + r * NR, acc[r][0]);
        _mm256_store_ps(block + r * NR + 8, acc[r][1]);
    }
    store_block(block, c, ldc, mr, nr, add);
}
#endif

MicroKernel select_kernel() {
#ifdef NNEF_EXEC_X86
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return micro_avx2;
#endif
    return micro_generic;
}

MicroKernel kernel() {
    static const MicroKernel k = select_kernel();
    return k;
}

// One thread's share: rows [m0, m1) x columns [n0, n1) of C.
void gemm_block(std::int64_t m0, std::int64_t m1, std::int64_t n0, std::int64_t n1, std::int64_t K, MatrixView A,
                MatrixView B, Real* C, std::int64_t ldc, bool accumulate) {
    const MicroKernel micro = kernel();
    std::vector<Real> pa(static_cast<std::size_t>(MC * KC)), pb(static_cast<std::size_t>(KC * NC));
    for (std::int64_t jc = n0; jc < n1; jc += NC) {
        const std::int64_t nc = std::min(NC, n1 - jc);
        for (std::int64_t pc = 0; pc < K; pc += KC) {
            const std::int64_t kc = std::min(KC, K - pc);
            const bool add = accumulate || pc > 0;
            pack_b(kc, nc, B.data + pc * B.row + jc * B.col, B.row, B.col, pb.data());
            for (std::int64_t ic = m0; ic < m1; ic += MC) {
                const std::int64_t mc = std::min(MC, m1 - ic);
                pack_a(mc, kc, A.data + ic * A.row + pc * A.col, A.row, A.col, pa.data());
                for (std::int64_t jr = 0; jr < nc; jr += NR) {
                    const std::int64_t nr = std::min(NR, nc - jr);
                    for (std::int64_t ir = 0; ir < mc; ir += MR) {
                        const std::int64_t mr = std::min(MR, mc - ir);
                        micro(kc, pa.data() + ir * kc, pb.data() + jr * kc, C + (ic + ir) * ldc + jc + jr, ldc, mr, nr,
                              add);
                    }
                }
            }
        }
    }
}

}  // namespace exec_gemm_cpp

void gemm(std::int64_t M, std::int64_t N, std::int64_t K, MatrixView A, MatrixView B, Real* C, std::int64_t ldc,
          bool accumulate, unsigned threads) {
    using namespace exec_gemm_cpp;
    if (M <= 0 || N <= 0) return;
    if (K <= 0) {
        if (!accumulate)
            for (std::int64_t i = 0; i < M; ++i) std::fill(C + i * ldc, C + i * ldc + N, 0.0f);
        return;
    }
    // Too little work to share: one thread.
    if (M * N * K < 200000) threads = 1;
    if (N / NR >= M / MR) {
        const std::int64_t strips = (N + NR - 1) / NR;
        parallel_for(strips, threads, 1, [&](std::int64_t s0, std::int64_t s1) {
            gemm_block(0, M, s0 * NR, std::min(N, s1 * NR), K, A, B, C, ldc, accumulate);
        });
    } else {
        const std::int64_t strips = (M + MR - 1) / MR;
        parallel_for(strips, threads, 1, [&](std::int64_t s0, std::int64_t s1) {
            gemm_block(s0 * MR, std::min(M, s1 * MR), 0, N, K, A, B, C, ldc, accumulate);
        });
    }
}

const char* gemm_kernel_name() {
#ifdef NNEF_EXEC_X86
    if (exec_gemm_cpp::kernel() == exec_gemm_cpp::micro_avx2) return "avx2";
#endif
    return "generic";
}

}  // namespace nnef::NNEF_EXEC_NS
