// Static CMX offsets for the schedule's buffers (lowering/vpu/ir.hpp, allocate_cmx): buffers in
// order of first use, each placed first-fit from a ring pointer among the buffers still alive
// (lifetimes in program order), so that freed space is reused as late as possible and a new
// tile's load does not wait for the previous tile's buffer; held results at the highest place that
// fits (they live long: away from the ring's churn). Not a pass of its own: the schedule pass calls
// it after each attempt and schedules again with fewer held results when it finds no room.
#include <algorithm>
#include <vector>

#include "lowering/vpu/ir.hpp"

namespace nnef::vpu::ir {

bool allocate_cmx(Module& m, Diagnostics& diags) {
    const Target& t = m.target;
    const std::int64_t a = t.cmx_alignment;
    std::vector<std::size_t> order(m.cmx.size());
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(), [&](std::size_t x, std::size_t y) { return m.cmx[x].first < m.cmx[y].first; });
    struct Live {
        std::int64_t offset, end, last;
    };
    std::vector<std::vector<Live>> live(std::size_t(t.clusters));
    std::vector<std::int64_t> ring(std::size_t(t.clusters), 0);
    for (std::size_t i : order) {
        CmxBuffer& b = m.cmx[i];
        auto& L = live[std::size_t(b.cluster)];
        L.erase(std::remove_if(L.begin(), L.end(), [&](const Live& x) { return x.last < b.first; }), L.end());
        std::sort(L.begin(), L.end(), [](const Live& x, const Live& y) { return x.offset < y.offset; });
        const std::int64_t size = (b.size + a - 1) / a * a;
        auto fits = [&](std::int64_t at) {
            if (at + size > t.cmx_bytes) return false;
            for (const Live& x : L)
                if (x.offset < at + size && at < x.end) return false;
            return true;
        };
        std::int64_t at = -1;
        if (b.held) {
            // the highest place (held results gather at the top, away from the ring's churn)
            std::vector<std::int64_t> cands = {t.cmx_bytes / a * a - size};
            for (const Live& x : L) cands.push_back(x.offset - size);
            for (std::int64_t c : cands)
                if (c >= 0 && c > at && fits(c)) at = c;
        } else {
            // candidates: the ring pointer, then the end of each live buffer, then 0
            std::vector<std::int64_t> cands = {ring[std::size_t(b.cluster)]};
            for (const Live& x : L)
                if (x.end >= ring[std::size_t(b.cluster)]) cands.push_back(x.end);
            cands.push_back(0);
            for (const Live& x : L) cands.push_back(x.end);
            for (std::int64_t c : cands)
                if (fits(c)) {
                    at = c;
                    break;
                }
        }
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

}  // namespace nnef::vpu::ir
