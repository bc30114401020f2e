#include "storage/random_data.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>

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
    std::set<std::string> out;
    for (const Operation& op : graph.operations)
        for (const auto& [param, v] : op.inputs)
            if ((param == "variance" || param == "scale") && v.is_identifier()) out.insert(v.as_identifier());
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

void random_weights(float* out, const Shape& shape, std::uint64_t seed, bool positive) {
    std::int64_t n = 1;
    for (std::int64_t e : shape) n *= e;
    const std::int64_t fan_in = shape.size() >= 2 && shape[0] > 0 ? n / shape[0] : 1;
    const double a = std::sqrt(3.0 / double(std::max<std::int64_t>(fan_in, 1)));
    SplitMix64 rng{seed};
    for (std::int64_t i = 0; i < n; ++i)
        out[i] = static_cast<float>(positive ? 0.5 + rng.uniform() : (2.0 * rng.uniform() - 1.0) * a);
}

}  // namespace nnef::storage
