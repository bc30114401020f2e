// "Did you mean ...?": the name closest to a misspelt one, by edit distance. std-only.
#pragma once
#include <algorithm>
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace nnef::detail {

// The optimal string alignment distance between `a` and `b` (insertions, deletions, substitutions
// and transpositions of adjacent characters, each 1), or `limit + 1` when it exceeds `limit`.
inline std::size_t edit_distance(std::string_view a, std::string_view b, std::size_t limit) {
    const std::size_t n = a.size(), m = b.size();
    if ((n > m ? n - m : m - n) > limit) return limit + 1;
    std::vector<std::size_t> before(m + 1), previous(m + 1), current(m + 1);
    for (std::size_t j = 0; j <= m; ++j) previous[j] = j;
    for (std::size_t i = 1; i <= n; ++i) {
        current[0] = i;
        std::size_t row_min = current[0];
        for (std::size_t j = 1; j <= m; ++j) {
            const std::size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
            std::size_t d = std::min({previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost});
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) d = std::min(d, before[j - 2] + 1);
            current[j] = d;
            row_min = std::min(row_min, d);
        }
        if (row_min > limit) return limit + 1;
        std::swap(before, previous);
        std::swap(previous, current);
    }
    return std::min(previous[m], limit + 1);
}

// Collects candidate names and keeps the one closest to `name`: within a third of its length
// (at least 1, at most 3 edits; names shorter than 3 characters get no suggestion), the smallest distance, then the alphabetically first (so that the
// suggestion does not depend on the order of the candidates). A candidate equal to `name` is skipped.
class ClosestName {
public:
    explicit ClosestName(std::string_view name)
        : name_(name), limit_(name.size() < 3 ? 0 : std::min<std::size_t>(3, std::max<std::size_t>(1, name.size() / 3))) {}

    void consider(std::string_view candidate) {
        if (limit_ == 0 || candidate == name_ || candidate.empty()) return;
        const std::size_t d = edit_distance(name_, candidate, limit_);
        if (d > limit_) return;
        if (best_.empty() || d < distance_ || (d == distance_ && candidate < best_)) {
            best_ = std::string(candidate);
            distance_ = d;
        }
    }

    const std::string& best() const { return best_; }  // empty: none close enough
    // "; did you mean 'x'?" or nothing, to append to a diagnostic's message.
    std::string suffix() const { return best_.empty() ? std::string() : "; did you mean '" + best_ + "'?"; }

private:
    std::string_view name_;
    std::size_t limit_;
    std::string best_;
    std::size_t distance_ = 0;
};

}  // namespace nnef::detail
