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
//
// `timed` (docs/schedule.md step 38): the schedule kept is placed once more with the scheduler's
// estimated times (each task at its cost, in queue order, after the tasks whose buffers it reads:
// `CmxBuffer::start_est`, `end_est`) deciding which freed bytes a new buffer would wait for,
// instead of a count of tasks: a freed buffer counts while its estimated last end is later than
// the new buffer's estimated first start, held results too keep off such bytes where they can, and
// where every place takes some, the place whose buffers end earliest by estimate is taken. Counted
// in tasks, a SHAVE kernel of 76 K cycles (ConvNeXt's `exp` over a channel part) is freed as soon
// as the 32 tasks after it are issued, and the next wave's first NCE layer written over its input
// waited for it to end. The timed placement may find no room where the first one did (it is then
// not used): the schedule's feasibility stays that of the placement by tasks. A buffer whose last
// reader is a transfer may count as freed `transfer_margin` cycles later than estimated: the
// estimate takes a transfer at its cost, but it shares DDR and waits in an in-order queue behind
// weights loads (ConvNeXt's stage-1 runs, whose first `reciprocal` on a cluster waited 40-53 K
// cycles for the store of the layer-norm part its result was placed over: docs/schedule.md step 47).
#include <algorithm>
#include <limits>
#include <utility>
#include <vector>

#include "lowering/vpu/ir.hpp"

namespace nnef::vpu::ir {

namespace {

// Program indices [from, to] in which ring buffers are placed without the recent-bytes rule.
using Zones = std::vector<std::pair<std::int64_t, std::int64_t>>;

// One placement of every buffer; `recent_tasks` > 0 keeps new ring buffers off the bytes of
// buffers that died within that many tasks where it can, else on those that died earliest (see
// allocate_cmx), but for buffers whose first task lies in one of `plain`; `timed` (with
// `recent_tasks` > 0): off the bytes of freed buffers whose estimated end is later than the new
// buffer's estimated start, held results too. On failure `failed_first` is the first task of the
// buffer that found no room.
bool place_all(Module& m, std::int64_t recent_tasks, const Zones& plain, Diagnostics& diags, std::int64_t& failed_first,
               bool timed = false, double transfer_margin = 0.0) {
    const Target& t = m.target;
    const std::int64_t a = t.cmx_alignment;
    std::vector<std::size_t> order(m.cmx.size());
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(), [&](std::size_t x, std::size_t y) { return m.cmx[x].first < m.cmx[y].first; });
    // timed: horizon[k], the earliest estimated start of the buffers from order[k] on; a freed
    // buffer whose estimated end is no later can make none of them wait
    std::vector<double> horizon(order.size() + 1, std::numeric_limits<double>::infinity());
    for (std::size_t k = order.size(); k-- > 0;) horizon[k] = std::min(horizon[k + 1], m.cmx[order[k]].start_est);
    struct Live {
        std::int64_t offset, end, last;
        double end_est;
    };
    std::vector<std::vector<Live>> live(std::size_t(t.clusters)), recent(std::size_t(t.clusters));
    std::vector<std::int64_t> ring(std::size_t(t.clusters), 0);
    for (std::size_t k = 0; k < order.size(); ++k) {
        CmxBuffer& b = m.cmx[order[k]];
        auto& L = live[std::size_t(b.cluster)];
        auto& R = recent[std::size_t(b.cluster)];
        for (const Live& x : L)
            if (x.last < b.first) R.push_back(x);
        L.erase(std::remove_if(L.begin(), L.end(), [&](const Live& x) { return x.last < b.first; }), L.end());
        const bool by_time = timed && recent_tasks > 0;
        R.erase(std::remove_if(R.begin(), R.end(),
                               [&](const Live& x) { return by_time ? x.end_est <= horizon[k] : x.last < b.first - recent_tasks; }),
                R.end());
        // whether writing over freed buffer x would wait for its last readers
        auto waits = [&](const Live& x) { return !by_time || x.end_est > b.start_est; };
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
                        if (waits(x) && x.offset < at + size && at < x.end) return false;
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
            // smallest; timed: the latest estimated end), so the writer waits for the readers most
            // likely done, not for the last ones (ConvNeXt's erf polynomial: `neg` on the bytes of
            // `t`, which the Horner chain's last NCE product reads: docs/schedule.md step 18)
            for (const Live& x : R) cands.push_back(x.offset);
            std::int64_t best = -1;
            double best_end = 0.0;
            for (std::int64_t c : cands) {
                if (c + size > t.cmx_bytes) continue;
                bool free = true;
                for (const Live& x : L)
                    if (x.offset < c + size && c < x.end) free = false;
                if (!free) continue;
                std::int64_t latest = -1;
                double latest_end = 0.0;
                for (const Live& x : R)
                    if (waits(x) && x.offset < c + size && c < x.end) {
                        latest = std::max(latest, x.last);
                        latest_end = std::max(latest_end, x.end_est);
                    }
                if (latest < 0) return c;
                if (by_time ? at < 0 || latest_end < best_end : at < 0 || latest < best) at = c, best = latest, best_end = latest_end;
            }
            return at;
        };
        bool soft = recent_tasks > 0 && (!b.held || timed);
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
        // (timed: a transfer's estimated end misses the DDR it shares and the queue it waits in)
        const bool transfer = b.last >= 0 && std::size_t(b.last) < m.tasks.size() && m.tasks[std::size_t(b.last)].kind == TaskKind::DMA;
        L.push_back({at, at + size, b.last, b.end_est + (transfer ? transfer_margin : 0.0)});
    }
    return true;
}

}  // namespace

bool allocate_cmx(Module& m, Diagnostics& diags, bool timed, double transfer_margin) {
    constexpr std::int64_t recent_tasks = 32;  // ResNet-50 1.214x max(engine, DDR) without the rule, 1.192 with
    Diagnostics trial;
    std::int64_t failed = -1;
    if (place_all(m, recent_tasks, {}, trial, failed, timed, transfer_margin)) return true;
    if (timed) {
        // where the timed rule leaves no room for a later buffer, it is dropped there as below;
        // no placement without the rule (the caller keeps the one it has)
        Zones zones;
        for (int round = 0; round < 6; ++round) {
            zones.push_back({failed - (std::int64_t(64) << round), failed});
            for (CmxBuffer& b : m.cmx) b.offset = -1;
            Diagnostics again;
            if (place_all(m, recent_tasks, zones, again, failed, true, transfer_margin)) return true;
        }
        return false;
    }
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
