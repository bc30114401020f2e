// Static CMX offsets for the schedule's buffers (lowering/vpu/ir.hpp, allocate_cmx): buffers in
// order of first use, each placed first-fit from a ring pointer among the buffers still alive
// (lifetimes in program order), so that freed space is reused as late as possible and a new
// tile's load does not wait for the previous tile's buffer; held results at the highest place that
// fits (they live long: away from the ring's churn). A ring buffer also keeps off the bytes of
// buffers that died within the last 32 tasks where it can: their last readers may still run
// while it is written (parts of one layer on different engines), and sharing their bytes would
// make its writer wait for them (a WAR barrier that serializes the parts). When that placement
// finds no room for some buffer, the plain one is made instead, so the soft rule never costs a
// spill. Not a pass of its own: the schedule pass calls it after each attempt and schedules again
// with fewer held results when it finds no room.
#include <algorithm>
#include <vector>

#include "lowering/vpu/ir.hpp"

namespace nnef::vpu::ir {

namespace {

// One placement of every buffer; `recent_tasks` > 0 keeps new buffers off the bytes of buffers
// that died within that many tasks where it can (see allocate_cmx).
bool place_all(Module& m, std::int64_t recent_tasks, Diagnostics& diags) {
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
            for (std::int64_t c : cands)
                if (fits(c)) return c;
            return at;
        };
        std::int64_t at = recent_tasks > 0 && !b.held ? place(true) : -1;
        if (at < 0) at = place(false);
        if (at < 0) {
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
    if (place_all(m, recent_tasks, trial)) return true;
    for (CmxBuffer& b : m.cmx) b.offset = -1;
    return place_all(m, 0, diags);
}

}  // namespace nnef::vpu::ir
