// Byte ranges of one memory, each [start, end) with a payload: the simulator's race check
// (simulator_checks.cpp) and the barriers pass's dependency tracking (passes/barriers.cpp) keep, per
// range, who wrote it last and who read it since; the lower bound's data dependencies
// (sim_bound.cpp) who wrote it last.
#pragma once
#include <algorithm>
#include <cstdint>
#include <iterator>
#include <map>
#include <utility>

namespace nnef::vpu {

template <class Payload>
class ByteRanges {
public:
    // Calls visit(Payload&) for each range of [lo, hi), in address order, after splitting the
    // ranges at lo and hi; the gaps become ranges with a default payload.
    template <class Visit>
    void visit(std::int64_t lo, std::int64_t hi, Visit&& visit) {
        visit_ranges(lo, hi, [&](Payload& p, std::int64_t, std::int64_t) { visit(p); });
    }
    // The same, calling visit(Payload&, start, end) with each range's bounds.
    template <class Visit>
    void visit_ranges(std::int64_t lo, std::int64_t hi, Visit&& visit) {
        split(lo);
        split(hi);
        std::int64_t at = lo;
        auto it = segs_.lower_bound(lo);
        while (at < hi) {
            if (it == segs_.end() || it->first > at) {
                const std::int64_t end = it == segs_.end() ? hi : std::min(hi, it->first);
                it = segs_.emplace_hint(it, at, Seg{end, Payload{}});
            }
            visit(it->second.payload, it->first, it->second.end);
            at = it->second.end;
            ++it;
        }
    }
    // Makes [lo, hi) one range with payload `p` (the ranges inside are dropped).
    void assign(std::int64_t lo, std::int64_t hi, Payload p) {
        split(lo);
        split(hi);
        segs_.erase(segs_.lower_bound(lo), segs_.lower_bound(hi));
        segs_.emplace(lo, Seg{hi, std::move(p)});
    }

private:
    struct Seg {
        std::int64_t end;
        Payload payload;
    };
    void split(std::int64_t x) {
        auto it = segs_.upper_bound(x);
        if (it == segs_.begin()) return;
        --it;
        if (it->first < x && x < it->second.end) {
            Seg right = it->second;
            it->second.end = x;
            segs_.emplace(x, std::move(right));
        }
    }
    std::map<std::int64_t, Seg> segs_;
};

}  // namespace nnef::vpu
