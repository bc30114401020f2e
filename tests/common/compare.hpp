// The one comparison of numbers for every numeric test: the items a test got against the items it
// wants, as figures (max-abs, max relative, relative L2 and per-item scaled error) and criteria on
// them. A NaN or an infinity on either side fails every criterion, whichever item it is (first,
// middle or last), and the summary names the first such item; a test that expects a NaN or an
// infinity (a kernel's special values) says so with `allow_equal_nonfinite`, and then only the same
// non-finite value on both sides passes (NaN with NaN, +inf with +inf).
//
//   const nnef_test::Comparison c = nnef_test::compare(got, want);
//   CHECK_MESSAGE(c.max_rel_within(1e-4), c.summary());
//
// Several outputs compared as one (maxima and sums over all of them): `Comparison c; c.add(g0, w0);
// c.add(g1, w1);`. Sizes that differ fail every criterion too.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <sstream>
#include <string>

namespace nnef_test {

struct CompareOptions {
    // NaN == NaN and an infinity == the same infinity (every other non-finite pair still fails).
    bool allow_equal_nonfinite = false;
};

class Comparison {
public:
    explicit Comparison(CompareOptions options = {}) : options_(options) {}

    // Adds the items of `got` against those of `want` (any two indexable sequences of numbers with
    // size()): the next part of the comparison.
    template <class Got, class Want>
    Comparison& add(const Got& got, const Want& want) {
        const std::size_t n = std::min<std::size_t>(got.size(), want.size());
        if (got.size() != want.size() && !size_mismatch_) {
            size_mismatch_ = true;
            mismatch_part_ = parts_;
            got_size_ = got.size();
            want_size_ = want.size();
        }
        for (std::size_t i = 0; i < n; ++i) item(static_cast<double>(got[i]), static_cast<double>(want[i]), i);
        ++parts_;
        return *this;
    }

    // --- figures (over the finite pairs; 0 when nothing was compared) ---
    std::size_t items() const { return items_; }
    std::size_t parts() const { return parts_; }
    double max_abs() const { return max_abs_; }  // max |got - want|
    double max_ref() const { return max_ref_; }  // max |want|
    // max |got - want| / max |want| (max |got - want| when every wanted item is 0)
    double max_rel() const { return max_ref_ > 0.0 ? max_abs_ / max_ref_ : max_abs_; }
    // ||got - want|| / ||want|| (||got - want|| when every wanted item is 0)
    double rel_l2() const { return sum_ref2_ > 0.0 ? std::sqrt(sum_diff2_ / sum_ref2_) : std::sqrt(sum_diff2_); }
    // max over items of |got - want| / max(1, |want|)
    double max_scaled() const { return max_scaled_; }
    // pairs where a NaN or an infinity fails (not allowed, or not the same on both sides)
    std::size_t nonfinite() const { return nonfinite_; }
    bool sizes_match() const { return !size_mismatch_; }

    // Whether the figures can be trusted at all: something was compared, sizes match and no
    // non-finite item failed.
    bool comparable() const { return items_ > 0 && !size_mismatch_ && nonfinite_ == 0; }

    // --- criteria: each false unless comparable() ---
    bool max_abs_within(double tol) const { return comparable() && max_abs_ <= tol; }
    bool max_rel_within(double tol) const { return comparable() && max_rel() <= tol; }
    bool rel_l2_within(double tol) const { return comparable() && rel_l2() <= tol; }
    // every item: |got - want| <= tol * max(1, |want|)
    bool scaled_within(double tol) const { return comparable() && max_scaled_ <= tol; }
    // max |got - want| <= atol + rtol * max |want|
    bool within(double atol, double rtol) const { return comparable() && max_abs_ <= atol + rtol * max_ref_; }
    // every item equal (integer codes, exact kernels)
    bool exact() const { return comparable() && max_abs_ == 0.0; }

    // "N items: max abs error A at item I (got G, want W), max |want| R, max relative error M,
    // relative L2 L", preceded by what failed outright: the first non-finite item, sizes.
    std::string summary() const {
        std::ostringstream s;
        s.precision(9);
        if (items_ == 0) s << "nothing compared; ";
        if (size_mismatch_)
            s << "sizes differ" << part_name(mismatch_part_) << ": got " << got_size_ << " items, want " << want_size_ << "; ";
        if (nonfinite_ > 0)
            s << nonfinite_ << " non-finite item" << (nonfinite_ == 1 ? "" : "s") << ", the first at item " << first_bad_.index
              << part_name(first_bad_.part) << " (got " << first_bad_.got << ", want " << first_bad_.want << "); ";
        s << items_ << " items: max abs error " << max_abs_;
        if (items_ > 0)
            s << " at item " << worst_.index << part_name(worst_.part) << " (got " << worst_.got << ", want " << worst_.want << ")";
        s << ", max |want| " << max_ref_ << ", max relative error " << max_rel() << ", relative L2 " << rel_l2();
        return s.str();
    }

private:
    struct Item {
        std::size_t part = 0, index = 0;
        double got = 0.0, want = 0.0;
    };

    std::string part_name(std::size_t part) const {
        return parts_ > 1 || part > 0 ? " of part " + std::to_string(part) : std::string();
    }

    void item(double got, double want, std::size_t index) {
        ++items_;
        if (!std::isfinite(got) || !std::isfinite(want)) {
            const bool same = (std::isnan(got) && std::isnan(want)) || got == want;
            if (!(options_.allow_equal_nonfinite && same)) {
                if (nonfinite_++ == 0) first_bad_ = {parts_, index, got, want};
            }
            return;
        }
        const double diff = std::fabs(got - want), ref = std::fabs(want);
        if (!finite_items_++ || diff > max_abs_) {
            max_abs_ = diff;
            worst_ = {parts_, index, got, want};
        }
        max_ref_ = std::max(max_ref_, ref);
        max_scaled_ = std::max(max_scaled_, diff / std::max(1.0, ref));
        sum_diff2_ += diff * diff;
        sum_ref2_ += ref * ref;
    }

    CompareOptions options_;
    std::size_t items_ = 0, finite_items_ = 0, parts_ = 0, nonfinite_ = 0;
    double max_abs_ = 0.0, max_ref_ = 0.0, max_scaled_ = 0.0, sum_diff2_ = 0.0, sum_ref2_ = 0.0;
    Item worst_, first_bad_;
    bool size_mismatch_ = false;
    std::size_t mismatch_part_ = 0, got_size_ = 0, want_size_ = 0;
};

// `got` against `want` in one part.
template <class Got, class Want>
Comparison compare(const Got& got, const Want& want, CompareOptions options = {}) {
    Comparison c(options);
    c.add(got, want);
    return c;
}

}  // namespace nnef_test
