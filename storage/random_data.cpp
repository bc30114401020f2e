#include "storage/random_data.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define NNEF_RANDOM_X86 1
#endif

namespace nnef::storage {

std::uint64_t SplitMix64::next() {
    std::uint64_t z = (state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

double SplitMix64::uniform() { return double(next() >> 11) * (1.0 / 9007199254740992.0); }

double SplitMix64::normal() {
    // Box-Muller; 1 - u is in (0, 1]
    const double u = 1.0 - uniform(), v = uniform();
    return std::sqrt(-2.0 * std::log(u)) * std::cos(6.283185307179586 * v);
}

std::uint64_t variable_seed(std::string_view label, std::uint64_t seed) {
    std::uint64_t h = 1469598103934665603ull ^ seed;
    for (unsigned char c : label) h = (h ^ static_cast<unsigned char>(std::tolower(c))) * 1099511628211ull;
    return h;
}

std::set<std::string> positive_variables(const Graph& graph) {
    // what each tensor of a copy or a layout change is made from (exported models pass a batch
    // norm's 1-D variables through `copy` and `unsqueeze`: DenseNet-121, ResNet-18-BN of the corpus)
    static const std::set<std::string> same_items{"copy", "unsqueeze", "squeeze", "reshape", "transpose"};
    std::map<std::string, std::string> source;
    for (const Operation& op : graph.operations) {
        if (!same_items.count(op.name)) continue;
        if (op.inputs.empty() || op.outputs.empty()) continue;
        const Value& in = op.inputs.front().second;  // copy's x, the others' input
        const Value& out = op.outputs.front().second;
        if (in.is_identifier() && out.is_identifier()) source[out.as_identifier()] = in.as_identifier();
    }
    std::set<std::string> out;
    for (const Operation& op : graph.operations)
        for (const auto& [param, v] : op.inputs)
            if ((param == "variance" || param == "scale") && v.is_identifier()) {
                std::string name = v.as_identifier();
                for (std::size_t hops = 0; hops < source.size(); ++hops) {  // bounded: SSA has no cycles
                    auto it = source.find(name);
                    if (it == source.end()) break;
                    name = it->second;
                }
                out.insert(name);
            }
    return out;
}

void random_normal(float* out, std::int64_t n, std::uint64_t seed) {
    SplitMix64 rng{seed};
    for (std::int64_t i = 0; i < n; ++i) out[i] = static_cast<float>(rng.normal());
}

void random_integers(std::int64_t* out, std::int64_t n, std::uint64_t seed) {
    SplitMix64 rng{seed};
    for (std::int64_t i = 0; i < n; ++i) out[i] = static_cast<std::int64_t>(rng.next() % 10);
}

void random_logicals(bool* out, std::int64_t n, std::uint64_t seed) {
    SplitMix64 rng{seed};
    for (std::int64_t i = 0; i < n; ++i) out[i] = (rng.next() >> 63) != 0;
}

namespace {

constexpr std::uint64_t golden = 0x9e3779b97f4a7c15ull;  // splitmix64's increment

// n items from splitmix64 state `state`: 0.5 + u when `positive`, else (2 u - 1) a (u uniform in
// [0, 1)). Every step is exact but the last multiplication and the rounding to float32, so the
// vector form below gives the same items.
void uniform_items(float* out, std::int64_t n, std::uint64_t state, bool positive, double a) {
    SplitMix64 rng{state};
    if (positive)
        for (std::int64_t i = 0; i < n; ++i) out[i] = static_cast<float>(0.5 + rng.uniform());
    else
        for (std::int64_t i = 0; i < n; ++i) out[i] = static_cast<float>((2.0 * rng.uniform() - 1.0) * a);
}

#ifdef NNEF_RANDOM_X86
#if defined(__GNUC__) && !defined(__clang__)
// GCC 12 takes the intrinsics' deliberately undefined pass-through operands for uninitialized reads.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
// The same, 8 items a step (AVX-512 has the 64-bit multiplication and conversion splitmix64 needs).
__attribute__((target("avx512f,avx512dq"))) void uniform_items_avx512(float* out, std::int64_t n, std::uint64_t state,
                                                                       bool positive, double a) {
    // Lane k holds the state of item k: `state` advanced k + 1 times.
    __m512i s = _mm512_set_epi64(static_cast<long long>(state + 8 * golden), static_cast<long long>(state + 7 * golden),
                                 static_cast<long long>(state + 6 * golden), static_cast<long long>(state + 5 * golden),
                                 static_cast<long long>(state + 4 * golden), static_cast<long long>(state + 3 * golden),
                                 static_cast<long long>(state + 2 * golden), static_cast<long long>(state + golden));
    const __m512i step = _mm512_set1_epi64(static_cast<long long>(8 * golden));
    const __m512i m1 = _mm512_set1_epi64(static_cast<long long>(0xbf58476d1ce4e5b9ull));
    const __m512i m2 = _mm512_set1_epi64(static_cast<long long>(0x94d049bb133111ebull));
    const __m512d unit = _mm512_set1_pd(1.0 / 9007199254740992.0), two = _mm512_set1_pd(2.0), one = _mm512_set1_pd(1.0),
                  half = _mm512_set1_pd(0.5), scale = _mm512_set1_pd(a);
    std::int64_t i = 0;
    for (; i + 8 <= n; i += 8) {
        __m512i z = s;
        s = _mm512_add_epi64(s, step);
        z = _mm512_mullo_epi64(_mm512_xor_si512(z, _mm512_srli_epi64(z, 30)), m1);
        z = _mm512_mullo_epi64(_mm512_xor_si512(z, _mm512_srli_epi64(z, 27)), m2);
        z = _mm512_xor_si512(z, _mm512_srli_epi64(z, 31));
        const __m512d u = _mm512_mul_pd(_mm512_cvtepi64_pd(_mm512_srli_epi64(z, 11)), unit);
        const __m512d v = positive ? _mm512_add_pd(half, u) : _mm512_mul_pd(_mm512_sub_pd(_mm512_mul_pd(two, u), one), scale);
        _mm256_storeu_ps(out + i, _mm512_cvtpd_ps(v));
    }
    uniform_items(out + i, n - i, state + static_cast<std::uint64_t>(i) * golden, positive, a);
}
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif

bool has_avx512() {
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq");
}
#endif

}  // namespace

void random_weights(float* out, const Shape& shape, std::uint64_t seed, bool positive) {
    std::int64_t n = 1;
    for (std::int64_t e : shape) n *= e;
    const std::int64_t fan_in = shape.size() >= 2 && shape[0] > 0 ? n / shape[0] : 1;
    const double a = std::sqrt(3.0 / double(std::max<std::int64_t>(fan_in, 1)));
#ifdef NNEF_RANDOM_X86
    static const bool vector = has_avx512();
    if (vector) return uniform_items_avx512(out, n, seed, positive, a);
#endif
    uniform_items(out, n, seed, positive, a);
}

}  // namespace nnef::storage
