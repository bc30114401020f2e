// The simulator's lower bound (simulator.hpp, LowerBound; docs/vpu.md, Lower bound): each task's
// shortest duration, the data dependencies of the list (who writes the bytes a task reads), and
// the engine, DDR, dataflow and cut terms; the list's own chain of queue order and barriers as
// information.
#include <algorithm>
#include <limits>
#include <map>
#include <utility>

#include "lowering/vpu/byte_ranges.hpp"
#include "lowering/vpu/simulator_model.hpp"

namespace nnef::vpu::simulator_cpp {

namespace {

std::int64_t floor_div(std::int64_t a, std::int64_t b) { return a / b - ((a % b != 0) && ((a < 0) != (b < 0))); }

// The bytes of an access in absolute addresses of its memory: element i at base + sum i[d] *
// stride[d], `size` bytes each. Dimensions of extent 1 or stride 0 are dropped (they add no
// byte) and negative strides turned (the same bytes); sorted by stride, the largest first. The
// innermost dimensions that are dense make runs of `run` contiguous bytes, one per index of the
// `outer` dimensions before them.
struct Box {
    std::int64_t base = 0, size = 1, run = 1;
    std::vector<std::pair<std::int64_t, std::int64_t>> dims;  // (extent, stride > 0)
    std::vector<std::int64_t> reach;                          // reach[d]: span of dims d.. from an element's start
    std::size_t outer = 0;
    double runs = 1;  // the number of runs

    std::int64_t lo() const { return base; }
    std::int64_t hi() const { return base + reach[0]; }
    bool dense() const { return outer == 0; }  // every byte of [lo, hi) is an element's

    // Calls f(lo, hi) for each run that meets [a, e), in address order, until f returns true
    // (then true), or until `budget` runs were visited (then false, as when none returned true).
    template <class F>
    bool runs_in(std::int64_t a, std::int64_t e, std::int64_t& budget, F&& f) const {
        return runs_in(0, base, a, e, budget, f);
    }
    bool touches(std::int64_t a, std::int64_t e) const {
        std::int64_t budget = std::int64_t(1) << 16;
        return runs_in(a, e, budget, [](std::int64_t, std::int64_t) { return true; });
    }

    static Box of(const Access& a, const Buffer& buf) {
        Box x;
        x.size = element_bytes(buf.dtype);
        x.base = buf.offset + a.offset;
        for (std::size_t d = 0; d < a.shape.size(); ++d) {
            std::int64_t e = a.shape[d], s = a.strides[d];
            if (e <= 1 || s == 0) continue;
            if (s < 0) {
                x.base += (e - 1) * s;
                s = -s;
            }
            x.dims.push_back({e, s});
        }
        std::sort(x.dims.begin(), x.dims.end(), [](const auto& p, const auto& q) { return p.second > q.second; });
        x.reach.assign(x.dims.size() + 1, x.size);
        for (std::size_t d = x.dims.size(); d-- > 0;) x.reach[d] = x.reach[d + 1] + (x.dims[d].first - 1) * x.dims[d].second;
        x.run = x.size;
        x.outer = x.dims.size();
        while (x.outer > 0 && x.dims[x.outer - 1].second == x.run) x.run *= x.dims[--x.outer].first;
        for (std::size_t d = 0; d < x.outer; ++d) x.runs *= double(x.dims[d].first);
        return x;
    }

private:
    template <class F>
    bool runs_in(std::size_t d, std::int64_t at, std::int64_t a, std::int64_t e, std::int64_t& budget, F& f) const {
        if (d == outer) return --budget >= 0 && f(at, at + run);
        const auto [extent, stride] = dims[d];
        const std::int64_t sub = reach[d + 1];
        // k with at + k stride < e and at + k stride + sub > a
        const std::int64_t k_lo = std::max<std::int64_t>(0, floor_div(a - sub - at, stride) + 1);
        const std::int64_t k_hi = std::min(extent - 1, floor_div(e - 1 - at, stride));
        for (std::int64_t k = k_lo; k <= k_hi && budget > 0; ++k)
            if (runs_in(d + 1, at + k * stride, a, e, budget, f)) return true;
        return false;
    }
};

// Whether a byte of [a, e) is held by both boxes (false also when too many runs are in the way to
// tell: the dependency is then left out).
bool share_a_byte(const Box& x, const Box& y, std::int64_t a, std::int64_t e) {
    const Box& few = x.runs <= y.runs ? x : y;
    const Box& other = &few == &x ? y : x;
    std::int64_t budget = std::int64_t(1) << 16;
    return few.runs_in(a, e, budget, [&](std::int64_t lo, std::int64_t hi) { return other.touches(std::max(lo, a), std::min(hi, e)); });
}

using Intervals = std::vector<std::pair<std::int64_t, std::int64_t>>;

// Adds [a, b) to sorted disjoint intervals, merging where they meet.
void add_interval(Intervals& v, std::int64_t a, std::int64_t b) {
    if (v.empty() || v.back().second < a) {
        v.push_back({a, b});
        return;
    }
    if (v.back().first <= b && (v.size() == 1 || v[v.size() - 2].second < a)) {
        v.back().first = std::min(v.back().first, a);
        v.back().second = std::max(v.back().second, b);
        return;
    }
    v.push_back({a, b});
    std::sort(v.begin(), v.end());
    Intervals merged;
    for (const auto& iv : v)
        if (!merged.empty() && iv.first <= merged.back().second) merged.back().second = std::max(merged.back().second, iv.second);
        else merged.push_back(iv);
    v = std::move(merged);
}

std::int64_t length(const Intervals& v) {
    std::int64_t n = 0;
    for (const auto& [a, b] : v) n += b - a;
    return n;
}

bool loads_into_cmx(const Model& m, std::size_t t) {
    return m.list.tasks[t].kind == TaskKind::DMA && m.buf(m.read_buffer[t][0])->memory == Memory::DDR &&
           m.buf(m.write_buffer[t][0])->memory == Memory::CMX;
}

// The cut term at each task X of `path`, a dataflow chain (each task a dependency of the next),
// where it exceeds lb.cut. With p the chain's tasks in order:
//   F(p_i), a bound on p_i's end: d(p_i) + the largest of F(p_{i-1}), head of p_i's other
//     dependencies, each queue's work of A(p_i) - p_i (p_i's ancestors, all done before it starts)
//     and their DDR bytes / bandwidth;
//   G(p_i), a bound on the time from p_i's end to the makespan: the largest of d(p_{i+1}) +
//     G(p_{i+1}), tail of p_i's other dependents, each queue's work of D(p_i) (its descendants,
//     all started after its end) and (their DDR bytes + the bytes of loads into CMX that they read
//     and CMX cannot hold at p_i's end) / bandwidth;
// and the cut is the largest B(p_i) + G(p_i), B(p_i) >= F(p_i) a bound on p_i's end made of
// segments between tasks of the chain (below). Along a chain the ancestors grow and the descendants
// shrink, so each of the two sweeps visits every task once.
void cut_along(const Model& m, const TaskCosts& c, const DataFlow& df, const std::vector<double>& head, const std::vector<double>& tail,
               const std::vector<std::size_t>& path, const std::vector<std::size_t>& order, std::size_t most, std::size_t early, LowerBound& lb) {
    const std::size_t n = m.list.tasks.size(), queues = m.queues.size(), len = path.size();
    const double ddr_rate = m.target.ddr_bytes_per_cycle;
    struct Part {
        double cycles = 0.0;
        std::string term;           // "chain", "DDR" or a queue
        std::size_t at = 0;         // the index in path of the task whose ancestors or descendants give the term
        std::int64_t excess = 0;    // the CMX bytes in a DDR term
    };
    // The largest of `p` and the busiest queue's work and DDR bytes / bandwidth at path[i].
    auto largest = [&](Part p, const std::vector<double>& per_queue, std::int64_t ddr_bytes, std::int64_t excess, std::size_t i) {
        for (std::size_t q = 0; q < queues; ++q)
            if (per_queue[q] > p.cycles) p = {per_queue[q], m.queues[q], i, 0};
        if (double(ddr_bytes + excess) / ddr_rate > p.cycles) p = {double(ddr_bytes + excess) / ddr_rate, "DDR", i, excess};
        return p;
    };
    // The chain tasks tried as X_a and X_b: all of them, or as many spread along the chain (any
    // of them gives a bound; the pairs' work is quadratic in their number).
    std::vector<std::size_t> cand;
    if (len <= most) {
        for (std::size_t i = 0; i < len; ++i) cand.push_back(i);
    } else {
        for (std::size_t k = 0; k < most; ++k) cand.push_back(k * (len - 1) / (most - 1));
    }
    const std::size_t K = cand.size();
    std::vector<long> cand_of(len, -1);
    for (std::size_t b = 0; b < K; ++b) cand_of[cand[b]] = long(b);
    // Per candidate and queue, the `early` tasks of the least figures among a set of them (below),
    // in ascending order: each is kept with (figure, task).
    using Least = std::vector<std::pair<double, std::size_t>>;
    auto see = [early](Least& v, double f, std::size_t t) {
        if (early == 0 || (v.size() == early && !(f < v.back().first))) return;
        v.insert(std::upper_bound(v.begin(), v.end(), f, [](double x, const std::pair<double, std::size_t>& p) { return x < p.first; }), {f, t});
        if (v.size() > early) v.pop_back();
    };
    // start_least: the ancestors of X (and X) by their least start (head - d), for F.
    std::vector<Least> start_least(K * queues);
    // F: up to each p_i's end. Per queue, also the work of p_i with its ancestors (busy_a) and
    // the least time before one of them can start (first_a: head - d).
    std::vector<Part> before(len);
    const double none = std::numeric_limits<double>::infinity();
    std::vector<double> busy_a(len * queues, 0.0), first_a(len * queues, none);
    {
        std::vector<bool> in(n, false);
        std::vector<double> busy(queues, 0.0), first(queues, none);
        std::vector<Least> starts(queues);
        std::int64_t bytes = 0;
        std::vector<std::size_t> stack;
        auto add = [&](std::size_t t) {
            in[t] = true;
            const std::size_t q = std::size_t(m.queue_of[t]);
            busy[q] += c.shortest[t];
            first[q] = std::min(first[q], head[t] - c.shortest[t]);
            see(starts[q], head[t] - c.shortest[t], t);
            bytes += c.ddr_bytes[t];
        };
        for (std::size_t i = 0; i < len; ++i) {
            const std::size_t x = path[i];
            Part p = i > 0 ? before[i - 1] : Part{0.0, "chain", i, 0};
            for (std::size_t d : df.preds[x]) {
                if (head[d] > p.cycles) p = {head[d], "chain", i, 0};
                if (!in[d]) stack.push_back(d);
            }
            while (!stack.empty()) {
                const std::size_t t = stack.back();
                stack.pop_back();
                if (in[t]) continue;
                add(t);
                for (std::size_t d : df.preds[t])
                    if (!in[d]) stack.push_back(d);
            }
            before[i] = largest(p, busy, bytes, 0, i);
            before[i].cycles += c.shortest[x];
            add(x);
            std::copy(busy.begin(), busy.end(), busy_a.begin() + std::ptrdiff_t(i * queues));
            std::copy(first.begin(), first.end(), first_a.begin() + std::ptrdiff_t(i * queues));
            if (cand_of[i] >= 0) std::copy(starts.begin(), starts.end(), start_least.begin() + std::ptrdiff_t(std::size_t(cand_of[i]) * queues));
        }
    }
    // G: from each p_i's end.
    std::vector<bool> in(n, false);
    std::vector<double> busy(queues, 0.0);
    std::int64_t bytes = 0;
    std::vector<std::vector<std::pair<std::size_t, const Intervals*>>> loads_read(n);  // per reader: (load, bytes read from it)
    for (std::size_t w = 0; w < n; ++w)
        for (const auto& [r, iv] : df.delivered[w]) loads_read[r].push_back({w, &iv});
    std::vector<Intervals> needed(n);                                    // per load: the bytes descendants read from it
    std::vector<std::int64_t> held(std::size_t(m.target.clusters), 0);  // per cluster: needed bytes of loads not descendants
    auto cluster = [&](std::size_t load) { return std::size_t(m.buf(m.write_buffer[load][0])->cluster); };
    std::vector<std::size_t> stack;
    std::vector<Part> after(len);
    std::vector<double> busy_d(len * queues, 0.0);  // per queue, the work of p_i's descendants
    Part next;  // G(p_{i+1})
    for (std::size_t i = len; i-- > 0;) {
        const std::size_t x = path[i];
        Part p = i + 1 < len ? Part{next.cycles + c.shortest[path[i + 1]], next.term, next.at, next.excess} : Part{0.0, "chain", i, 0};
        for (std::size_t s : df.succs[x]) {
            if (tail[s] > p.cycles) p = {tail[s], "chain", i, 0};
            stack.push_back(s);
        }
        while (!stack.empty()) {
            const std::size_t t = stack.back();
            stack.pop_back();
            if (in[t]) continue;
            in[t] = true;
            busy[std::size_t(m.queue_of[t])] += c.shortest[t];
            bytes += c.ddr_bytes[t];
            if (!df.delivered[t].empty()) held[cluster(t)] -= length(needed[t]);  // all of it after X now
            for (const auto& [w, iv] : loads_read[t]) {
                if (in[w]) continue;
                const std::int64_t was = length(needed[w]);
                for (const auto& [a, b] : *iv) add_interval(needed[w], a, b);
                held[cluster(w)] += length(needed[w]) - was;
            }
            for (std::size_t s : df.succs[t])
                if (!in[s]) stack.push_back(s);
        }
        std::int64_t excess = 0;
        for (std::int64_t h : held) excess += std::max<std::int64_t>(0, h - m.target.cmx_bytes);
        next = largest(p, busy, bytes, excess, i);
        after[i] = next;
        std::copy(busy.begin(), busy.end(), busy_d.begin() + std::ptrdiff_t(i * queues));
    }
    // Segments: for chain tasks X_a before X_b, the tasks that are descendants of X_a and ancestors
    // of X_b (or X_b) all run between e(X_a) and e(X_b), so e(X_b) - e(X_a) is at least each
    // queue's work among them, their DDR bytes / bandwidth and the chain's tasks after X_a up to
    // X_b. best[b] = the largest of F(X_b) and best[a] + seg(a, b) over a < b bounds e(X_b).
    // A task is a descendant of X_i for every i up to lo (descendants shrink along the chain) and
    // an ancestor of X_j for every j from hi (ancestors grow).
    std::vector<long> pos(n, -1), lo(n, -1), hi(n, long(len));
    for (std::size_t i = 0; i < len; ++i) pos[path[i]] = long(i);
    for (std::size_t t : order)
        for (std::size_t d : df.preds[t]) lo[t] = std::max(lo[t], std::max(lo[d], pos[d]));
    for (std::size_t k = order.size(); k-- > 0;) {
        const std::size_t t = order[k];
        if (pos[t] >= 0) hi[t] = pos[t];
        for (std::size_t s : df.succs[t]) hi[t] = std::min(hi[t], hi[s]);
    }
    // per task: the last candidate it descends from and the first it is an ancestor of (or is)
    std::vector<std::vector<std::size_t>> by_hi(K);
    std::vector<long> lo_c(n, -1), hi_c(n, long(K));
    for (std::size_t t = 0; t < n; ++t) {
        if (lo[t] < 0 || hi[t] >= long(len)) continue;
        const auto l = std::upper_bound(cand.begin(), cand.end(), std::size_t(lo[t]));
        const auto h = std::lower_bound(cand.begin(), cand.end(), std::size_t(hi[t]));
        if (l == cand.begin() || h == cand.end()) continue;
        lo_c[t] = long(l - cand.begin()) - 1;
        hi_c[t] = long(h - cand.begin());
        by_hi[std::size_t(hi_c[t])].push_back(t);
    }
    // whether task t is among those of the segment from candidate a to b
    auto in_segment = [&](std::size_t t, std::size_t a, std::size_t b) { return lo_c[t] >= long(a) && lo_c[t] < long(b) && hi_c[t] <= long(b); };
    // A queue's tasks of a segment all start after the first of them can, and end before the last
    // must: e(X_b) - e(X_a) is at least (the least time from e(X_a) to the start of one of them) +
    // their work + (the least time from the end of one of them to e(X_b)). The first is at least
    // `lead`, the least over the queue's descendants of X_a of their longest dependency path from
    // e(X_a); the last `trail`, the least over the queue's ancestors of X_b and X_b itself of their
    // longest path to e(X_b) (0 for X_b): a least over more tasks than the segment's. So with F
    // (first_a, the queue's work up to X's end, trail) and G (lead, the work of X's descendants,
    // `last`: the least tail - d over them, each a path from a task's end to the makespan's).
    std::vector<double> lead(K * queues, none), trail(K * queues, none), last(K * queues, none);
    // The same per task, the `early` least of each: head_least (lead) and last_least (last) among
    // the descendants of X, trail_least among its ancestors and X.
    std::vector<Least> head_least(K * queues), last_least(K * queues), trail_least(K * queues);
    {
        std::vector<std::size_t> at(n);
        for (std::size_t k = 0; k < order.size(); ++k) at[order[k]] = k;
        std::vector<double> dist(n, 0.0);
        for (std::size_t b = 0; b < K; ++b) {
            const long i = long(cand[b]);
            const std::size_t x = path[cand[b]];
            for (std::size_t k = at[x] + 1; k < order.size(); ++k) {
                const std::size_t t = order[k];
                if (lo[t] < i) continue;
                double d = 0.0;
                for (std::size_t p : df.preds[t])
                    if (p != x && lo[p] >= i) d = std::max(d, dist[p] + c.shortest[p]);
                dist[t] = d;
                const std::size_t q = b * queues + std::size_t(m.queue_of[t]);
                lead[q] = std::min(lead[q], d);
                last[q] = std::min(last[q], tail[t] - c.shortest[t]);
                see(head_least[q], d, t);
                see(last_least[q], tail[t] - c.shortest[t], t);
            }
            dist[x] = 0.0;
            trail[b * queues + std::size_t(m.queue_of[x])] = 0.0;
            see(trail_least[b * queues + std::size_t(m.queue_of[x])], 0.0, x);
            for (std::size_t k = at[x]; k-- > 0;) {
                const std::size_t t = order[k];
                if (hi[t] > i) continue;
                double d = 0.0;
                for (std::size_t s : df.succs[t])
                    if (s == x) d = std::max(d, c.shortest[x]);
                    else if (hi[s] <= i) d = std::max(d, dist[s] + c.shortest[s]);
                dist[t] = d;
                double& l = trail[b * queues + std::size_t(m.queue_of[t])];
                l = std::min(l, d);
                see(trail_least[b * queues + std::size_t(m.queue_of[t])], d, t);
            }
        }
    }
    // One queue's figure for a set of its tasks (work > 0): lead + work + trail. It holds for every
    // subset as well: the set less some tasks of least lead ends no earlier than the least lead
    // among the rest + their work + trail (and alike at the other side). `firsts` (`lasts`) are the
    // tasks of least lead (trail) of a superset, ascending; each of them in the set (`in_set`)
    // gives its figure + the set's work less that of the ones before it in the set + the other
    // side's least figure (a one-machine bound by heads and tails).
    auto span_of = [&](double before_first, double work, double after_last, const Least& firsts, const Least& lasts, double floor, auto&& in_set) {
        double v = before_first + work + after_last;
        auto refine = [&](const Least& least, double other) {
            if (least.empty() || least.back().first + work + other <= std::max(v, floor)) return;
            double gone = 0.0;
            for (const auto& [f, t] : least) {
                if (!in_set(t)) continue;
                v = std::max(v, f + (work - gone) + other);
                gone += c.shortest[t];
            }
        };
        refine(firsts, after_last);
        refine(lasts, before_first);
        return v;
    };
    // The largest over the queues with work of their figures (rows of `queues` each) for a set
    // that holds every task `firsts` and `lasts` list, and that queue (-1: none above `floor`).
    auto queue_span = [&](const double* before_first, const double* work, const double* after_last, const Least* firsts, const Least* lasts, double floor) {
        std::pair<double, long> top{floor, -1};
        for (std::size_t q = 0; q < queues; ++q) {
            if (work[q] <= 0) continue;
            const double v = span_of(before_first[q], work[q], after_last[q], firsts[q], lasts[q], top.first, [](std::size_t) { return true; });
            if (v > top.first) top = {v, long(q)};
        }
        return top;
    };
    const std::size_t Q = queues + 1;  // the queues and DDR
    std::vector<double> acc(K * Q, 0.0), sum(Q, 0.0);
    std::vector<double> best(K, 0.0);
    std::vector<long> from(K, -1);
    std::vector<double> init(K, 0.0);  // best[b] as one segment
    std::vector<std::string> seg_term(K), first_term(K);
    for (std::size_t b = 0; b < K; ++b) {
        for (std::size_t t : by_hi[b]) {
            acc[std::size_t(lo_c[t]) * Q + std::size_t(m.queue_of[t])] += c.shortest[t];
            acc[std::size_t(lo_c[t]) * Q + queues] += double(c.ddr_bytes[t]) / ddr_rate;
        }
        const auto from_start = queue_span(&first_a[cand[b] * queues], &busy_a[cand[b] * queues], &trail[b * queues], &start_least[b * queues],
                                           &trail_least[b * queues], before[cand[b]].cycles);
        best[b] = from_start.first;
        if (from_start.second >= 0) first_term[b] = m.queues[std::size_t(from_start.second)];
        init[b] = best[b];
        std::fill(sum.begin(), sum.end(), 0.0);
        for (std::size_t a = b; a-- > 0;) {
            double seg = head[path[cand[b]]] - head[path[cand[a]]];
            std::size_t at = Q;  // the chain
            for (std::size_t q = 0; q < Q; ++q) {
                sum[q] += acc[a * Q + q];
                const double v = q < queues && sum[q] > 0 ? span_of(lead[a * queues + q], sum[q], trail[b * queues + q], head_least[a * queues + q],
                                                                    trail_least[b * queues + q], seg, [&](std::size_t t) { return in_segment(t, a, b); })
                                                            : sum[q];
                if (v > seg) {
                    seg = v;
                    at = q;
                }
            }
            if (best[a] + seg > best[b]) {
                best[b] = best[a] + seg;
                from[b] = long(a);
                seg_term[b] = at == Q ? "chain" : at == queues ? "DDR" : m.queues[at];
            }
        }
    }
    auto term = [&](const Part& part, std::size_t i, const char* side) {
        return part.at == i || part.term == "chain" ? part.term : part.term + " " + side + " task " + std::to_string(m.list.tasks[path[part.at]].id);
    };
    // the largest B(p_i) + G(p_i), the last along the chain on a tie (B = F and G as they are off
    // the candidates)
    for (std::size_t i = len; i-- > 0;) {
        const long b = cand_of[i];
        const double up_to = b >= 0 ? best[std::size_t(b)] : before[i].cycles;
        double then = after[i].cycles;
        std::string then_term = term(after[i], i, "after");
        std::int64_t excess = after[i].excess;
        if (b >= 0) {
            const auto to_end = queue_span(&lead[std::size_t(b) * queues], &busy_d[i * queues], &last[std::size_t(b) * queues],
                                           &head_least[std::size_t(b) * queues], &last_least[std::size_t(b) * queues], then);
            if (to_end.second >= 0) {
                then = to_end.first;
                then_term = m.queues[std::size_t(to_end.second)];
                excess = 0;
            }
        }
        if (up_to + then <= lb.cut) continue;
        const std::size_t x = path[i];
        lb.cut = up_to + then;
        lb.cut_task = long(x);
        lb.cut_task_name = m.task_name(x);
        lb.cut_before = up_to;
        lb.cut_after = then;
        lb.cut_after_term = then_term;
        lb.cut_cmx_excess = excess;
        lb.cut_segments.clear();
        if (b < 0) {
            lb.cut_segments.push_back({long(x), before[i].cycles, term(before[i], i, "before")});
        } else {
            std::size_t k = std::size_t(b);
            for (; from[k] >= 0; k = std::size_t(from[k]))
                lb.cut_segments.push_back({long(path[cand[k]]), best[k] - best[std::size_t(from[k])], seg_term[k]});
            const std::size_t f = cand[k];
            lb.cut_segments.push_back({long(path[f]), init[k], first_term[k].empty() ? term(before[f], f, "before") : first_term[k]});
            std::reverse(lb.cut_segments.begin(), lb.cut_segments.end());
        }
        lb.cut_before_term = lb.cut_segments.size() == 1 ? lb.cut_segments[0].term : std::to_string(lb.cut_segments.size()) + " segments";
    }
}

}  // namespace

TaskCosts task_costs(const Model& m, const std::vector<std::int64_t>& cycles) {
    const TaskList& list = m.list;
    const Target& target = m.target;
    TaskCosts c;
    c.shortest.assign(list.tasks.size(), 0.0);
    c.ddr_bytes.assign(list.tasks.size(), 0);
    for (std::size_t t = 0; t < list.tasks.size(); ++t) {
        const Task& task = list.tasks[t];
        c.shortest[t] = double(cycles[t]);
        if (task.kind != TaskKind::DMA) continue;
        const Buffer& rb = *m.buf(m.read_buffer[t][0]);
        const Buffer& wb = *m.buf(m.write_buffer[t][0]);
        const bool ddr = rb.memory == Memory::DDR || wb.memory == Memory::DDR;
        const std::int64_t bytes = task.reads[0].elements() * element_bytes(rb.dtype);
        const double rate = ddr ? std::min(target.dma_bytes_per_cycle, target.ddr_bytes_per_cycle) : target.dma_bytes_per_cycle;
        c.shortest[t] = double(target.dma_latency_cycles) + double(bytes) / rate;
        if (ddr) c.ddr_bytes[t] = bytes;
    }
    return c;
}

DataFlow data_flow(const Model& m, const std::vector<std::size_t>& order) {
    const TaskList& l = m.list;
    const std::size_t n = l.tasks.size();
    DataFlow df;
    df.preds.assign(n, {});
    df.succs.assign(n, {});
    df.delivered.assign(n, {});
    // The boxes of every write, and whether the task is a DMA from DDR into CMX.
    std::vector<std::vector<Box>> writes(n);
    std::vector<bool> load(n, false);
    for (std::size_t t = 0; t < n; ++t) {
        for (std::size_t ai = 0; ai < l.tasks[t].writes.size(); ++ai)
            writes[t].push_back(Box::of(l.tasks[t].writes[ai], *m.buf(m.write_buffer[t][ai])));
        load[t] = loads_into_cmx(m, t);
    }
    struct LastWrite {
        long task = -1;
        std::size_t access = 0;
    };
    std::map<std::int64_t, ByteRanges<LastWrite>> memories;
    for (std::size_t t : order) {
        const Task& task = l.tasks[t];
        std::map<std::size_t, Intervals> from_loads;  // CMX bytes t reads from each load, by the load
        for (std::size_t ai = 0; ai < task.reads.size(); ++ai) {
            const Buffer& b = *m.buf(m.read_buffer[t][ai]);
            const Box r = Box::of(task.reads[ai], b);
            memories[Model::memory_key(b)].visit_ranges(r.lo(), r.hi(), [&](LastWrite& lw, std::int64_t a, std::int64_t e) {
                if (lw.task < 0) return;  // an input, a constant, or bytes never written
                const std::size_t w = std::size_t(lw.task);
                const Box& wb = writes[w][lw.access];
                // [a, e) lies within both spans and no later write's span meets it: a byte of it
                // that both boxes hold is one t reads from w.
                if (!share_a_byte(wb, r, a, e)) return;
                if (std::find(df.preds[t].begin(), df.preds[t].end(), w) == df.preds[t].end()) {
                    df.preds[t].push_back(w);
                    df.succs[w].push_back(t);
                }
                if (!load[w] || !wb.dense()) return;
                // A dense load holds every byte of [a, e): t reads from it the bytes of its own runs there.
                Intervals& got = from_loads[w];
                std::int64_t budget = std::int64_t(1) << 16;
                r.runs_in(a, e, budget, [&](std::int64_t lo, std::int64_t hi) {
                    add_interval(got, std::max(lo, a), std::min(hi, e));
                    return false;
                });
                // (with too many runs to list, those listed: fewer bytes is still a bound)
            });
        }
        for (auto& [w, bytes] : from_loads) df.delivered[w].push_back({t, std::move(bytes)});
        for (std::size_t ai = 0; ai < task.writes.size(); ++ai) {
            const Box& w = writes[t][ai];
            memories[Model::memory_key(*m.buf(m.write_buffer[t][ai]))].assign(w.lo(), w.hi(), LastWrite{long(t), ai});
        }
    }
    return df;
}

LowerBound lower_bound(const Model& m, const TaskCosts& c, const std::vector<std::size_t>& order, std::size_t pair_tasks, std::size_t early_tasks) {
    const TaskList& list = m.list;
    const Target& target = m.target;
    const std::size_t n = list.tasks.size();
    const std::size_t queues = m.queues.size();
    const double ddr_rate = target.ddr_bytes_per_cycle;
    LowerBound lb;
    // engine: the busiest queue.
    for (std::size_t q = 0; q < queues; ++q) {
        double least = 0.0;
        for (std::size_t t : m.queue_tasks[q]) least += c.shortest[t];
        if (least > lb.engine) {
            lb.engine = least;
            lb.engine_queue = m.queues[q];
        }
    }
    // ddr: every byte DMA moves from or to DDR.
    std::int64_t ddr_bytes = 0;
    for (std::int64_t b : c.ddr_bytes) ddr_bytes += b;
    lb.ddr = double(ddr_bytes) / ddr_rate;
    // The list's chain (information): queue order and barrier waits.
    {
        std::vector<double> finish(n, 0.0);
        for (std::size_t t : order) {
            double start = 0.0;
            const long q = m.queue_of[t];
            if (m.pos[t] > 0) start = finish[m.queue_tasks[std::size_t(q)][std::size_t(m.pos[t] - 1)]];
            for (std::size_t b : m.waits[t])
                for (std::size_t p : m.producers[b]) start = std::max(start, finish[p]);
            finish[t] = start + c.shortest[t];
            lb.list_chain = std::max(lb.list_chain, finish[t]);
        }
    }
    if (n == 0) return lb;
    // dataflow: the longest chain of data dependencies; head[t] ends with t, tail[t] starts with t.
    const DataFlow df = data_flow(m, order);
    std::vector<double> head(n, 0.0), tail(n, 0.0);
    for (std::size_t t : order) {
        double start = 0.0;
        for (std::size_t p : df.preds[t]) start = std::max(start, head[p]);
        head[t] = start + c.shortest[t];
    }
    for (std::size_t i = n; i-- > 0;) {
        const std::size_t t = order[i];
        double after = 0.0;
        for (std::size_t s : df.succs[t]) after = std::max(after, tail[s]);
        tail[t] = c.shortest[t] + after;
    }
    std::size_t end = order[0];
    for (std::size_t t = 0; t < n; ++t)
        if (head[t] > head[end]) end = t;
    lb.dataflow = head[end];
    // cut: the tasks X tried are those of one longest dataflow chain.
    std::vector<std::size_t> path{end};
    while (!df.preds[path.back()].empty()) {
        std::size_t best = df.preds[path.back()][0];
        for (std::size_t p : df.preds[path.back()])
            if (head[p] > head[best]) best = p;
        path.push_back(best);
    }
    std::reverse(path.begin(), path.end());
    cut_along(m, c, df, head, tail, path, order, pair_tasks, early_tasks, lb);
    return lb;
}

}  // namespace nnef::vpu::simulator_cpp
