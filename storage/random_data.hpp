// Pseudo-random tensor data for models stored without weights (`--random-weights SEED`) and for
// test inputs: the same items for a seed on every platform (splitmix64, FNV-1a, Box-Muller in
// double precision rounded to float32). `nnef-run` and the TOSA lowering both draw a variable's
// weights from here, so they compute with identical weights for the same seed. std-only.
#pragma once
#include <cstdint>
#include <set>
#include <string>
#include <string_view>

#include <nnef/graph.hpp>

namespace nnef::storage {

// splitmix64: the same sequence on every platform.
struct SplitMix64 {
    std::uint64_t state;
    std::uint64_t next();
    double uniform();  // in [0, 1)
    double normal();   // N(0, 1) by Box-Muller
};

// The seed of the variable with this label: FNV-1a of the label in lower case (labels are compared
// case-insensitively, spec 4.1.3), started from `seed`.
std::uint64_t variable_seed(std::string_view label, std::uint64_t seed);

// The variables of `graph` read as a `variance` or a `scale` argument (of any operation), directly
// or through `copy`, `unsqueeze`, `squeeze`, `reshape` or `transpose`: their random weights are
// positive.
std::set<std::string> positive_variables(const Graph& graph);

// n items: float32 values of N(0, 1); integers in [0, 10); logicals true or false with equal chance.
void random_normal(float* out, std::int64_t n, std::uint64_t seed);
void random_integers(std::int64_t* out, std::int64_t n, std::uint64_t seed);
void random_logicals(bool* out, std::int64_t n, std::uint64_t seed);

// Weights for a scalar variable of this shape: items uniform in [-a, a] with a = sqrt(3 / fan_in)
// (fan_in: the volume divided by the first extent for rank 2 or more, else 1), so that activations
// keep their scale through deep networks; `positive` (variances, scales) gives items in [0.5, 1.5).
// (Integer and logical variables get zeros and false.)
void random_weights(float* out, const Shape& shape, std::uint64_t seed, bool positive);

}  // namespace nnef::storage
