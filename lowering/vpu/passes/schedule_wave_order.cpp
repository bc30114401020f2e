// schedule (scheduler.hpp): the order in which a streamed run's layers emit a wave's parts
// (`wave_order`, used by `emit_stream`). The engines run their tasks in queue order, so where a
// layer of a wave stands in the list decides what its engine does while it waits.
#include "lowering/vpu/passes/scheduler.hpp"
#include "lowering/vpu/simulator.hpp"

namespace nnef::vpu::ir::schedule_impl {

namespace {

bool reads_result(const Layer& l, const Layer& producer) {
    for (const View& v : l.inputs)
        if (v.tensor == producer.output.tensor) return true;
    return false;
}

}  // namespace

std::vector<std::size_t> Scheduler::wave_order(std::size_t a, std::size_t b, std::size_t lead, std::size_t ahead_after) const {
    const std::size_t parts = run_parts(a);
    // a layer of the run that stays where it is: the leading layers and the one after which the
    // next wave's leading parts go (see `emit_stream`)
    auto pinned = [&](std::size_t q) { return q < lead || q == ahead_after; };
    // each SHAVE kernel ahead of the NCE layers (past the leading ones and the next wave's) before
    // it that it does not read: ConvNeXt's `neg` of the erf polynomial, which reads `x` only, came
    // after the Horner chain's NCE products, so its buffer took bytes that chain had just read (a
    // WAR barrier: its engine waited for the chain; docs/schedule.md step 18)
    auto shave_ahead = [&](const std::vector<std::size_t>& in) {
        std::vector<std::size_t> order;
        for (std::size_t li : in) {
            std::size_t p = order.size();
            order.push_back(li);
            if (m.layers[li].exec == Exec::nce) continue;
            for (; p > 0; --p) {
                const std::size_t q = order[p - 1];
                if (pinned(q) || m.layers[q].exec != Exec::nce || reads_result(m.layers[li], m.layers[q])) break;
                std::swap(order[p - 1], order[p]);
            }
        }
        return order;
    };
    std::vector<std::size_t> order;
    for (std::size_t li = a; li <= b; ++li) order.push_back(li);
    order = shave_ahead(order);
    // The cycles one engine spends on a wave of layer q: a SHAVE engine one part, an NCE its
    // cluster's parts (one per SHAVE engine of the cluster).
    auto wave_cycles = [&](std::size_t q) {
        const Tile& tl = m.tiles[tiles_of.at(std::int64_t(q))[0]];
        if (m.layers[q].exec == Exec::nce) return nce_tile_cycles(tl) * double(t.shave_per_cluster) * double(part_group[q]);
        return double(shave_cycles(t, m.layers[q].shave.name, m.layers[q].output.elements() / std::int64_t(parts)));
    };
    // each NCE layer that reads a SHAVE kernel's result earlier among the NCE layers after that
    // kernel that it does not read, as far as the NCE work left between the kernel and it still
    // takes the kernel's time: ConvNeXt's `neg * x` (the erf polynomial's `-x^2`, read by `exp`)
    // came after the whole Horner chain on the NCE, which starts with `neg` (both read
    // `reciprocal`'s result or `x`), so `exp` waited for the chain (about 10 K cycles a wave);
    // right after `neg` it would hold the NCE while `neg` runs, with the chain's products ready
    for (std::size_t p = 0; p < order.size(); ++p) {
        const std::size_t li = order[p];
        if (m.layers[li].exec != Exec::nce || pinned(li)) continue;
        // the last SHAVE kernel before it that it reads, and the NCE work between the two
        std::size_t s = p;
        double between = 0.0;
        bool blocked = false;
        for (std::size_t r = p; r-- > 0;) {
            const std::size_t q = order[r];
            if (m.layers[q].exec != Exec::nce) {
                if (reads_result(m.layers[li], m.layers[q])) s = r;
                break;
            }
            if (pinned(q) || reads_result(m.layers[li], m.layers[q])) {
                blocked = true;
                break;
            }
            between += wave_cycles(q);
        }
        if (s == p || blocked) continue;
        const double kernel = wave_cycles(order[s]);
        std::size_t to = p;
        while (to > s + 1 && between - wave_cycles(order[to - 1]) >= kernel) between -= wave_cycles(order[--to]);
        if (to == p) continue;
        const std::size_t moved = order[p];
        order.erase(order.begin() + std::ptrdiff_t(p));
        order.insert(order.begin() + std::ptrdiff_t(to), moved);
    }
    // (the SHAVE kernels that read such a layer now go ahead of the NCE layers it passed)
    return shave_ahead(order);
}

}  // namespace nnef::vpu::ir::schedule_impl
