// barriers (lowering/vpu/ir.hpp).
//
// barriers, in four steps (and segments when ids run short) over the tasks in program order (a
// topological order of everything below: every dependency goes from an earlier task to a later
// one, and each queue runs its tasks in program order):
//  1. Dependencies. Each access covers the span of its box (first to last byte, as the simulator
//     and a checker take it). A shadow map per memory (a CMX cluster, a DDR tensor) keeps, per
//     byte range, the last writer and the readers since; a read depends on the last writer (RAW),
//     a write on the last writer and the readers since (WAW, WAR).
//  2. Transitive reduction with vector clocks: clock[t][q] is the position of the last task of
//     queue q that happens before t (or is t). A task's clock starts from its queue predecessor's;
//     its dependencies, latest first, are dropped when the clock already covers them (implied by
//     queue order or by a later kept dependency, which carries its own clock), else kept and their
//     clocks merged in. Linear in tasks x (dependencies + queues).
//  3. Virtual barriers: one per distinct set of kept dependencies (the producers); the tasks with
//     that set are its consumers. A set larger than barrier_max_producers is split into several
//     barriers the task waits on; consumers beyond barrier_max_consumers open another barrier.
//  4. Physical ids, barriers by their first producer: a barrier takes the id whose previous
//     barrier is provably finished, i.e. each of its consumers happens before each producer of the
//     new one (checked on the clocks, per queue: the last consumer position <= the producers'
//     smallest clock), the one freed earliest. When some barrier finds no free id (few ids):
//  Segments: steps 2-4 again in one pass over the tasks, which cuts program order into segments.
//     Ids 0 and 1 are kept for syncs, 2.. are the segment's dependency barriers, reused inside it
//     as in step 4 (a barrier whose id is taken again takes no more consumers). When a task's new
//     barrier finds no free id, a segment starts at that task: a sync barrier (ids 0 and 1 in
//     turn) whose producers are the last task of each queue in the segment that ends, whose
//     consumers are the first task of each queue in the new one. Everything before the sync then
//     happens before everything after it, so dependencies across it are implied (dropped by the
//     reduction) and every dependency id is free again; sync k and sync k+2 are ordered through
//     sync k+1. Linear in tasks x (dependencies + queues x ids). With exactly 2 ids there are no
//     dependency ids: every task with a dependency not implied by the last sync starts a segment
//     (syncs only; still a valid assignment, and it keeps program order). Needs limits of at least
//     one producer and consumer per queue; otherwise the barriers fall back to phases (a chain:
//     phase k updates barrier k, phase k+1 waits on it, physical id k mod `barriers`, safe for any
//     count >= 2; the verifier then checks CMX reuse on the barriers' happens-before).
#include <algorithm>
#include <map>
#include <numeric>
#include <optional>

#include "lowering/vpu/byte_ranges.hpp"
#include "lowering/vpu/ir.hpp"
#include "lowering/vpu/simulator.hpp"

namespace nnef::vpu::ir {

namespace vpu_barriers_cpp {

std::pair<std::int64_t, std::int64_t> span(const Box& b, std::int64_t es) {
    std::int64_t lo = b.offset, hi = b.offset;
    for (std::size_t i = 0; i < b.shape.size(); ++i) {
        if (b.shape[i] <= 0) return {b.offset, b.offset};
        const std::int64_t d = (b.shape[i] - 1) * b.strides[i];
        if (d < 0) lo += d;
        else hi += d;
    }
    return {lo, hi + es};
}

// Per byte range of one memory: the last writer and the readers since (task indices).
struct Users {
    std::int64_t writer = -1;
    std::vector<std::int64_t> readers;
};

// Adds to `deps` the tasks an access of [lo, hi) by `task` depends on, and records it.
void access(ByteRanges<Users>& memory, std::int64_t lo, std::int64_t hi, bool write, std::int64_t task, std::vector<std::int64_t>& deps) {
    if (hi <= lo) return;
    memory.visit(lo, hi, [&](Users& u) {
        if (u.writer >= 0 && u.writer != task) deps.push_back(u.writer);
        if (write) {
            for (std::int64_t r : u.readers)
                if (r != task) deps.push_back(r);
        } else if (u.readers.empty() || u.readers.back() != task) {
            u.readers.push_back(task);
        }
    });
    if (write) memory.assign(lo, hi, Users{task, {}});
}

struct Graph {
    std::size_t queues = 0;
    std::vector<std::int64_t> queue, pos;      // per task
    std::vector<std::vector<std::int64_t>> deps;  // per task: the data dependencies (earlier tasks)
    std::vector<std::int64_t> prev;            // per task: its queue predecessor (-1: none)
    std::vector<std::vector<std::int64_t>> queue_tasks;  // per queue: its tasks in order
};

Graph dependencies(const Module& m) {
    Graph g;
    const std::size_t n = m.tasks.size();
    std::map<std::string, std::int64_t> qid;
    std::vector<std::int64_t> last;
    g.queue.resize(n);
    g.pos.resize(n);
    g.prev.assign(n, -1);
    g.deps.resize(n);
    std::vector<ByteRanges<Users>> ddr(m.tensors.size()), cmx(std::size_t(m.target.clusters));
    for (std::size_t i = 0; i < n; ++i) {
        const Task& task = m.tasks[i];
        auto [it, fresh] = qid.emplace(task.queue, std::int64_t(last.size()));
        if (fresh) last.push_back(-1);
        const std::int64_t q = it->second;
        g.queue[i] = q;
        if (fresh) g.queue_tasks.emplace_back();
        g.queue_tasks[std::size_t(q)].push_back(std::int64_t(i));
        g.prev[i] = last[std::size_t(q)];
        g.pos[i] = g.prev[i] < 0 ? 0 : g.pos[std::size_t(g.prev[i])] + 1;
        last[std::size_t(q)] = std::int64_t(i);
        auto& d = g.deps[i];
        for (int w = 0; w < 2; ++w)
            for (const Box& b : w ? task.writes : task.reads) {
                ByteRanges<Users>* sh = nullptr;
                std::int64_t base = 0, es = 1;
                if (b.ref.cmx) {
                    const CmxBuffer& c = m.cmx[std::size_t(b.ref.index)];
                    sh = &cmx[std::size_t(c.cluster)];
                    base = c.offset;
                    es = element_size(c.dtype);
                } else {
                    sh = &ddr[std::size_t(b.ref.index)];
                    es = element_size(m.tensors[std::size_t(b.ref.index)].dtype);
                }
                const auto s = span(b, es);
                access(*sh, base + s.first, base + s.second, w == 1, std::int64_t(i), d);
            }
        std::sort(d.begin(), d.end());
        d.erase(std::unique(d.begin(), d.end()), d.end());
    }
    g.queues = last.size();
    return g;
}

struct Barriers {
    std::vector<std::vector<std::int64_t>> producers, consumers;
    std::vector<std::int64_t> physical;
};

// Step 2 for task t, whose clock already holds what happens before it (its queue predecessor's,
// a sync's): its dependencies, latest first (g.deps is sorted), are dropped when the clock covers
// them, else kept (ascending in `kept`) and their clocks merged in.
void reduce_task(const Graph& g, std::vector<std::int64_t>& clock, std::size_t t, std::vector<std::int64_t>& kept) {
    const std::size_t Q = g.queues;
    std::int64_t* c = clock.data() + t * Q;
    kept.clear();
    for (auto it = g.deps[t].rbegin(); it != g.deps[t].rend(); ++it) {
        const std::int64_t d = *it;
        if (g.pos[std::size_t(d)] <= c[g.queue[std::size_t(d)]]) continue;  // implied
        kept.push_back(d);
        const std::int64_t* cd = clock.data() + std::size_t(d) * Q;
        for (std::size_t q = 0; q < Q; ++q) c[q] = std::max(c[q], cd[q]);
    }
    c[g.queue[t]] = g.pos[t];
    std::reverse(kept.begin(), kept.end());
}

// Steps 2 and 3: the reduced dependencies as barriers, and every task's clock.
Barriers reduce_and_group(const Module& m, const Graph& g, std::vector<std::int64_t>& clock) {
    const std::size_t n = m.tasks.size(), Q = g.queues;
    const std::size_t maxp = std::size_t(m.target.barrier_max_producers), maxc = std::size_t(m.target.barrier_max_consumers);
    clock.assign(n * Q, -1);
    Barriers b;
    std::map<std::vector<std::int64_t>, std::int64_t> open;  // producer set -> the barrier taking consumers
    std::vector<std::int64_t> kept;
    for (std::size_t t = 0; t < n; ++t) {
        if (g.prev[t] >= 0) std::copy_n(clock.data() + std::size_t(g.prev[t]) * Q, Q, clock.data() + t * Q);
        reduce_task(g, clock, t, kept);
        for (std::size_t from = 0; from < kept.size(); from += maxp) {
            std::vector<std::int64_t> set(kept.begin() + std::ptrdiff_t(from),
                                          kept.begin() + std::ptrdiff_t(std::min(kept.size(), from + maxp)));
            auto it = open.find(set);
            if (it == open.end() || b.consumers[std::size_t(it->second)].size() >= maxc) {
                b.producers.push_back(set);
                b.consumers.emplace_back();
                it = open.insert_or_assign(std::move(set), std::int64_t(b.producers.size()) - 1).first;
            }
            b.consumers[std::size_t(it->second)].push_back(std::int64_t(t));
        }
    }
    return b;
}

// Step 4 with every dependency kept: false when some barrier finds no free id (the caller then
// uses segments).
bool assign_physical(const Module& m, const Graph& g, const std::vector<std::int64_t>& clock, Barriers& b) {
    const std::size_t Q = g.queues, nb = b.producers.size();
    const std::size_t ids = std::size_t(m.target.barriers);
    std::vector<std::int64_t> first(nb), order(nb);
    for (std::size_t i = 0; i < nb; ++i) first[i] = b.producers[i].front();
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](std::int64_t x, std::int64_t y) { return first[std::size_t(x)] < first[std::size_t(y)]; });
    // Per id: its latest barrier's last consumer (program index) and last consumer position per queue.
    std::vector<std::int64_t> holder(ids, -1), last_cons(ids, -1), cons_pos(ids * Q, -1);
    std::vector<std::int64_t> low(Q);
    b.physical.assign(nb, -1);
    for (std::int64_t y : order) {
        const auto& P = b.producers[std::size_t(y)];
        // The smallest clock over the producers: a consumer at position <= low[q] happens before all.
        std::fill(low.begin(), low.end(), std::numeric_limits<std::int64_t>::max());
        for (std::int64_t p : P)
            for (std::size_t q = 0; q < Q; ++q) low[q] = std::min(low[q], clock[std::size_t(p) * Q + q]);
        std::int64_t best = -1;
        for (std::size_t k = 0; k < ids; ++k) {
            if (holder[k] < 0) {
                best = std::int64_t(k);
                break;
            }
            if (last_cons[k] >= first[std::size_t(y)]) continue;  // may not precede the producers
            bool safe = true;
            for (std::size_t q = 0; q < Q && safe; ++q) safe = cons_pos[k * Q + q] <= low[q];
            if (safe && (best < 0 || last_cons[k] < last_cons[std::size_t(best)])) best = std::int64_t(k);
        }
        if (best < 0) return false;
        const std::size_t k = std::size_t(best);
        b.physical[std::size_t(y)] = best;
        holder[k] = y;
        last_cons[k] = b.consumers[std::size_t(y)].back();
        std::fill_n(cons_pos.begin() + std::ptrdiff_t(k * Q), Q, -1);
        for (std::int64_t c : b.consumers[std::size_t(y)]) {
            auto& slot = cons_pos[k * Q + std::size_t(g.queue[std::size_t(c)])];
            slot = std::max(slot, g.pos[std::size_t(c)]);
        }
    }
    return true;
}

// Segments (see the file comment): steps 2-4 in one pass, ids 0 and 1 kept for the syncs that
// separate segments, the others reused inside a segment (with 2 ids: none, syncs only). Returns
// nothing when the limits cannot hold a sync (fewer producers or consumers allowed than queues).
std::optional<std::pair<Barriers, int>> segments(const Module& m, const Graph& g) {
    const std::size_t n = m.tasks.size(), Q = g.queues;
    const std::size_t maxp = std::size_t(m.target.barrier_max_producers), maxc = std::size_t(m.target.barrier_max_consumers);
    const std::size_t ids = std::size_t(m.target.barriers);
    if (ids < 2 || maxp < Q || maxc < Q) return std::nullopt;
    std::vector<std::int64_t> clock(n * Q, -1);
    Barriers b;
    std::map<std::vector<std::int64_t>, std::int64_t> open;  // producer set -> the barrier taking consumers
    // Per intra-segment id (2..ids-1): its barrier (-1: free) and its consumers' last position per queue.
    std::vector<std::int64_t> holder(ids, -1), cons_pos(ids * Q, -1);
    std::vector<std::int64_t> seg_last(Q, -1);   // per queue: its last task in the current segment
    std::vector<std::int64_t> sync_from;         // the current segment's sync producers
    std::int64_t sync = -1, syncs = 0;           // the current segment's sync barrier
    std::vector<char> seen(Q, 0);                // per queue: has a task in the current segment
    std::vector<std::int64_t> kept, low(Q), pending_ids;
    std::vector<std::pair<std::vector<std::int64_t>, std::int64_t>> chunks;  // set, barrier (-1: new)
    auto take = [&](std::int64_t x, std::int64_t t) {
        b.consumers[std::size_t(x)].push_back(t);
        const std::int64_t k = b.physical[std::size_t(x)];
        if (k >= 2 && holder[std::size_t(k)] == x) {
            auto& slot = cons_pos[std::size_t(k) * Q + std::size_t(g.queue[std::size_t(t)])];
            slot = std::max(slot, g.pos[std::size_t(t)]);
        }
    };
    for (std::size_t t = 0; t < n; ++t) {
        const std::size_t q = std::size_t(g.queue[t]);
        for (;;) {  // at most twice: the second time in a new segment
            std::int64_t* c = clock.data() + t * Q;
            if (g.prev[t] >= 0) std::copy_n(clock.data() + std::size_t(g.prev[t]) * Q, Q, c);
            else std::fill_n(c, Q, -1);
            if (!seen[q] && sync >= 0)
                for (std::int64_t e : sync_from)
                    for (std::size_t r = 0; r < Q; ++r) c[r] = std::max(c[r], clock[std::size_t(e) * Q + r]);
            reduce_task(g, clock, t, kept);
            // Each chunk's barrier: an open one, or a new one on a free id.
            chunks.clear();
            pending_ids.clear();
            bool ok = true;
            for (std::size_t from = 0; from < kept.size() && ok; from += maxp) {
                std::vector<std::int64_t> set(kept.begin() + std::ptrdiff_t(from),
                                              kept.begin() + std::ptrdiff_t(std::min(kept.size(), from + maxp)));
                const auto it = open.find(set);
                if (it != open.end() && b.consumers[std::size_t(it->second)].size() < maxc) {
                    chunks.emplace_back(std::move(set), it->second);
                    continue;
                }
                // A free id: unused in this segment, or its barrier's consumers so far all happen
                // before every producer of the new one (the smallest clock over the producers).
                std::fill(low.begin(), low.end(), std::numeric_limits<std::int64_t>::max());
                for (std::int64_t p : set) {  // strictly before p in its own queue
                    for (std::size_t r = 0; r < Q; ++r) low[r] = std::min(low[r], clock[std::size_t(p) * Q + r]);
                    auto& own = low[std::size_t(g.queue[std::size_t(p)])];
                    own = std::min(own, g.pos[std::size_t(p)] - 1);
                }
                std::int64_t best = -1;
                for (std::size_t k = 2; k < ids; ++k) {
                    if (std::find(pending_ids.begin(), pending_ids.end(), std::int64_t(k)) != pending_ids.end()) continue;
                    bool safe = true;
                    if (holder[k] >= 0)
                        for (std::size_t r = 0; r < Q && safe; ++r) safe = cons_pos[k * Q + r] <= low[r];
                    if (safe) {
                        best = std::int64_t(k);
                        if (holder[k] < 0) break;
                    }
                }
                if (best < 0) ok = false;
                else pending_ids.push_back(best);
                chunks.emplace_back(std::move(set), -1 - best);
            }
            if (ok) break;
            // No id is free: a new segment starts at t. Its sync: the last task of each queue in
            // the segment that ends, before the first task of each queue in the new one; ids 0 and
            // 1 in turn. Every intra-segment id is free again.
            sync_from.clear();
            for (std::size_t r = 0; r < Q; ++r)
                if (seg_last[r] >= 0) sync_from.push_back(seg_last[r]);
            std::sort(sync_from.begin(), sync_from.end());
            sync = std::int64_t(b.producers.size());
            b.producers.push_back(sync_from);
            b.consumers.emplace_back();
            b.physical.push_back(syncs++ % 2);
            std::fill(seen.begin(), seen.end(), 0);
            std::fill(seg_last.begin(), seg_last.end(), -1);
            std::fill(holder.begin(), holder.end(), -1);
            open.clear();
        }
        if (!seen[q] && sync >= 0) b.consumers[std::size_t(sync)].push_back(std::int64_t(t));
        seen[q] = 1;
        seg_last[q] = std::int64_t(t);
        for (auto& [set, x] : chunks) {
            if (x < 0) {
                const std::int64_t k = -1 - x;
                const std::int64_t old = holder[std::size_t(k)];
                if (old >= 0) {  // its barrier takes no more consumers
                    const auto it = open.find(b.producers[std::size_t(old)]);
                    if (it != open.end() && it->second == old) open.erase(it);
                }
                x = std::int64_t(b.producers.size());
                b.producers.push_back(set);
                b.consumers.emplace_back();
                b.physical.push_back(k);
                holder[std::size_t(k)] = x;
                std::fill_n(cons_pos.begin() + std::ptrdiff_t(std::size_t(k) * Q), Q, -1);
                open.insert_or_assign(std::move(set), x);
            }
            take(x, std::int64_t(t));
        }
    }
    return std::make_pair(std::move(b), int(syncs + 1));
}

// The fallback: phases over the dependencies (see the file comment).
Barriers phases(const Module& m, const Graph& g, std::vector<std::int64_t>& phase) {
    const std::size_t n = m.tasks.size();
    const std::int64_t cap = std::min(m.target.barrier_max_producers, m.target.barrier_max_consumers);
    std::vector<std::int64_t> count;
    phase.assign(n, 0);
    for (std::size_t t = 0; t < n; ++t) {
        std::int64_t p = g.prev[t] >= 0 ? phase[std::size_t(g.prev[t])] : 0;
        for (std::int64_t d : g.deps[t]) p = std::max(p, phase[std::size_t(d)] + 1);
        while (p < std::int64_t(count.size()) && count[std::size_t(p)] >= cap) ++p;
        if (p >= std::int64_t(count.size())) count.resize(std::size_t(p + 1), 0);
        ++count[std::size_t(p)];
        phase[t] = p;
    }
    Barriers b;
    const std::size_t nb = count.empty() ? 0 : count.size() - 1;
    b.producers.resize(nb);
    b.consumers.resize(nb);
    for (std::size_t t = 0; t < n; ++t) {
        const std::size_t p = std::size_t(phase[t]);
        if (p < nb) b.producers[p].push_back(std::int64_t(t));
        if (p > 0) b.consumers[p - 1].push_back(std::int64_t(t));
    }
    for (std::size_t k = 0; k < nb; ++k) b.physical.push_back(std::int64_t(k) % m.target.barriers);
    return b;
}

}  // namespace vpu_barriers_cpp

bool assign_barriers(Module& m, Diagnostics& diags) {
    using namespace vpu_barriers_cpp;
    const Target& t = m.target;
    if (t.barriers < 2) {
        diags.error(Stage::vpu, "too-few-barriers", "the target has " + std::to_string(t.barriers) +
                                                        " physical barrier(s); this compiler needs at least 2");
        return false;
    }
    const Graph g = dependencies(m);
    std::vector<std::int64_t> clock;
    Barriers b = reduce_and_group(m, g, clock);
    m.barrier_segments = 1;
    m.barrier_fallback = false;
    if (!assign_physical(m, g, clock, b)) {
        if (auto s = segments(m, g)) {
            b = std::move(s->first);
            m.barrier_segments = s->second;
        } else {
            std::vector<std::int64_t> phase;
            b = phases(m, g, phase);
            m.barrier_fallback = true;
            // Program order becomes phase order (queue order kept), so that every barrier's
            // producers come before its consumers.
            std::vector<std::int64_t> order(m.tasks.size()), at(m.tasks.size());
            std::iota(order.begin(), order.end(), 0);
            std::stable_sort(order.begin(), order.end(), [&](std::int64_t x, std::int64_t y) { return phase[std::size_t(x)] < phase[std::size_t(y)]; });
            std::vector<Task> tasks;
            for (std::size_t i = 0; i < order.size(); ++i) {
                at[std::size_t(order[i])] = std::int64_t(i);
                tasks.push_back(std::move(m.tasks[std::size_t(order[i])]));
            }
            m.tasks = std::move(tasks);
            for (auto* sets : {&b.producers, &b.consumers})
                for (auto& set : *sets) {
                    for (auto& t : set) t = at[std::size_t(t)];
                    std::sort(set.begin(), set.end());
                }
            // a buffer's lifetime: from the first to the last of its tasks in the new order (not
            // the new places of its old first and last task: those need not be the extremes now)
            for (CmxBuffer& c : m.cmx) c.first = c.last = -1;
            for (std::size_t i = 0; i < m.tasks.size(); ++i)
                for (const auto* boxes : {&m.tasks[i].reads, &m.tasks[i].writes})
                    for (const Box& x : *boxes) {
                        if (!x.ref.cmx) continue;
                        CmxBuffer& c = m.cmx[std::size_t(x.ref.index)];
                        if (c.first < 0) c.first = std::int64_t(i);
                        c.last = std::int64_t(i);
                    }
        }
    }
    // Barriers numbered by their first producer; tasks list them in that order.
    std::vector<std::size_t> order(b.producers.size());
    std::iota(order.begin(), order.end(), std::size_t(0));
    std::stable_sort(order.begin(), order.end(), [&](std::size_t x, std::size_t y) { return b.producers[x].front() < b.producers[y].front(); });
    m.barrier_physical.clear();
    for (Task& task : m.tasks) {
        task.wait.clear();
        task.update.clear();
    }
    for (std::size_t v = 0; v < order.size(); ++v) {
        const std::size_t i = order[v];
        m.barrier_physical.push_back(b.physical[i]);
        for (std::int64_t p : b.producers[i]) m.tasks[std::size_t(p)].update.push_back(std::int64_t(v));
        for (std::int64_t c : b.consumers[i]) m.tasks[std::size_t(c)].wait.push_back(std::int64_t(v));
    }
    for (Task& task : m.tasks) {
        std::sort(task.wait.begin(), task.wait.end());
        std::sort(task.update.begin(), task.update.end());
    }
    return true;
}

}  // namespace nnef::vpu::ir
