// Static CMX offsets for the schedule's buffers (lowering/vpu/ir.hpp, allocate_cmx): buffers in
// order of first use, each placed first-fit from a ring pointer among the buffers still alive
// (lifetimes in program order), so that freed space is reused as late as possible and a new
// tile's load does not wait for the previous tile's buffer; held results at the highest place that
// fits (they live long: away from the ring's churn). A ring buffer also keeps off the bytes of
// buffers that died within the last 32 tasks where it can: their last readers may still run
// while it is written (parts of one layer on different engines), and sharing their bytes would
// make its writer wait for them (a WAR barrier that serializes the parts); where every place
// takes such bytes, it takes those of the buffers that died earliest. When the rule leaves no room
// for some later buffer, it is dropped for the buffers placed just before that one, then for
// more, and at last everywhere, so the soft rule never costs a spill. Not a pass of its own: the
// schedule pass calls it after each attempt and schedules again with fewer held results when it
// finds no room.
#include <algorithm>
#include <utility>
#include <vector>

#include "lowering/vpu/ir.hpp"

namespace nnef::vpu::ir {

namespace {

// Program indices [from, to] in which ring buffers are placed without the recent-bytes rule.
using Zones = std::vector<std::pair<std::int64_t, std::int64_t>>;

// One placement of every buffer; `recent_tasks` > 0 keeps new ring buffers off the bytes of
// buffers that died within that many tasks where it can, else on those that died earliest (see
// allocate_cmx), but for buffers whose first task lies in one of `plain`. On failure
// `failed_first` is the first task of the buffer that found no room.
bool place_all(Module& m, std::int64_t recent_tasks, const Zones& plain, Diagnostics& diags, std::int64_t& failed_first) {
    const Target& t = m.target;
    const std::int64_t a = t.cmx_alignment;
    std::vector<std::size_t> order(m.cmx.size());
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(), [&](std::size_t x, std::size_t y) { return m.cmx[x].first < m.cmx[y].first; });
    struct Live {
        std::int64_t offset, end, last;
    };
    std::vector<std::vector<Live>> live(std::size_t(t.clusters)), recent(std::size_t(t.clusters));
    std::vector<std::int64_t> ring(std::size_t(t.clusters), 0);
    for (std::size_t i : order) {
        CmxBuffer& b = m.cmx[i];
        auto& L = live[std::size_t(b.cluster)];
        auto& R = recent[std::size_t(b.cluster)];
        for (const Live& x : L)
            if (x.last < b.first) R.push_back(x);
        L.erase(std::remove_if(L.begin(), L.end(), [&](const Live& x) { return x.last < b.first; }), L.end());
        R.erase(std::remove_if(R.begin(), R.end(), [&](const Live& x) { return x.last < b.first - recent_tasks; }), R.end());
        std::sort(L.begin(), L.end(), [](const Live& x, const Live& y) { return x.offset < y.offset; });
        const std::int64_t size = (b.size + a - 1) / a * a;
        // a ring buffer first without the bytes of buffers that died within the last `recent_tasks`
        // tasks (their last readers may still run beside this buffer's first writer: reusing their
        // bytes would make it wait for them, WAR), then without that wish
        auto place = [&](bool soft) {
            auto fits = [&](std::int64_t at) {
                if (at + size > t.cmx_bytes) return false;
                for (const Live& x : L)
                    if (x.offset < at + size && at < x.end) return false;
                if (soft)
                    for (const Live& x : R)
                        if (x.offset < at + size && at < x.end) return false;
                return true;
            };
            std::int64_t at = -1;
            if (b.held) {
                // the highest place (held results gather at the top, away from the ring's churn)
                std::vector<std::int64_t> cands = {t.cmx_bytes / a * a - size};
                for (const auto* list : {&L, &R})
                    for (const Live& x : *list) cands.push_back(x.offset - size);
                for (std::int64_t c : cands)
                    if (c >= 0 && c > at && fits(c)) at = c;
                return at;
            }
            // candidates: the ring pointer, then the end of each live buffer, then 0
            std::vector<std::int64_t> cands = {ring[std::size_t(b.cluster)]};
            for (const Live& x : L)
                if (x.end >= ring[std::size_t(b.cluster)]) cands.push_back(x.end);
            cands.push_back(0);
            for (const auto* list : {&L, &R})
                for (const Live& x : *list) cands.push_back(x.end);
            if (!soft) {
                for (std::int64_t c : cands)
                    if (fits(c)) return c;
                return at;
            }
            // soft: the first candidate off every recently freed byte; where none is, the one whose
            // overlapped recent buffers died earliest (the latest last task among them the
            // smallest), so the writer waits for the readers most likely done, not for the last
            // ones (ConvNeXt's erf polynomial: `neg` on the bytes of `t`, which the Horner chain's
            // last NCE product reads: docs/schedule.md step 18)
            for (const Live& x : R) cands.push_back(x.offset);
            std::int64_t best = -1;
            for (std::int64_t c : cands) {
                if (c + size > t.cmx_bytes) continue;
                bool free = true;
                for (const Live& x : L)
                    if (x.offset < c + size && c < x.end) free = false;
                if (!free) continue;
                std::int64_t latest = -1;
                for (const Live& x : R)
                    if (x.offset < c + size && c < x.end) latest = std::max(latest, x.last);
                if (latest < 0) return c;
                if (at < 0 || latest < best) at = c, best = latest;
            }
            return at;
        };
        bool soft = recent_tasks > 0 && !b.held;
        for (const auto& z : plain)
            if (z.first <= b.first && b.first <= z.second) soft = false;
        std::int64_t at = soft ? place(true) : -1;
        if (at < 0) at = place(false);
        if (at < 0) {
            failed_first = b.first;
            std::int64_t used = 0;
            for (const Live& x : L) used += x.end - x.offset;
            diags.error(Stage::vpu, "cmx-exhausted",
                        "no room in CMX of cluster " + std::to_string(b.cluster) + " for " + std::to_string(size) + " bytes of '" +
                            b.tensor + "' (" + std::to_string(used) + " of " + std::to_string(t.cmx_bytes) + " bytes in use by " +
                            std::to_string(L.size()) + " live buffers)");
            return false;
        }
        b.offset = at;
        if (!b.held) ring[std::size_t(b.cluster)] = at + size;
        L.push_back({at, at + size, b.last});
    }
    return true;
}

}  // namespace

bool allocate_cmx(Module& m, Diagnostics& diags) {
    constexpr std::int64_t recent_tasks = 32;  // ResNet-50 1.214x max(engine, DDR) without the rule, 1.192 with
    Diagnostics trial;
    std::int64_t failed = -1;
    if (place_all(m, recent_tasks, {}, trial, failed)) return true;
    auto reset = [&] {
        for (CmxBuffer& b : m.cmx) b.offset = -1;
    };
    reset();
    std::int64_t none = -1;
    if (!place_all(m, 0, {}, diags, none)) return false;  // no room even without the rule
    // Where the rule left CMX too fragmented for a later buffer, it is dropped only for the ring
    // buffers that begin in the tasks before that buffer (64 tasks, twice as many at each further
    // failure), so that it still holds in the rest of the list (DenseNet-121: docs/schedule.md
    // step 18); after 6 such tries, the placement without the rule
    std::vector<std::int64_t> plain_offsets;
    for (const CmxBuffer& b : m.cmx) plain_offsets.push_back(b.offset);
    Zones zones;
    for (int round = 0; round < 6; ++round) {
        zones.push_back({failed - (std::int64_t(64) << round), failed});
        reset();
        Diagnostics again;
        if (place_all(m, recent_tasks, zones, again, failed)) return true;
    }
    for (std::size_t i = 0; i < m.cmx.size(); ++i) m.cmx[i].offset = plain_offsets[i];
    return true;
}

}  // namespace nnef::vpu::ir
