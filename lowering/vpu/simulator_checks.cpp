// The simulator's checks (lowering/vpu/simulator.hpp): NCE task shapes and params, happens-before
// (a topological order, vector clocks), physical barrier reuse, races, outputs written.
#include <algorithm>
#include <map>
#include <optional>
#include <set>

#include "lowering/vpu/byte_ranges.hpp"
#include "lowering/vpu/simulator_model.hpp"

namespace nnef::vpu::simulator_cpp {

// ---- NCE task shapes --------------------------------------------------------------------------

// What is wrong with an NCE task's reads/writes/params, or empty. Also used for its cost.
std::string nce_problem(const Model& m, std::size_t ti) {
    const Task& t = m.list.tasks[ti];
    const NceParams& p = t.nce;
    const bool pool = t.op == "maxpool" || t.op == "avgpool";
    const std::size_t want_reads = t.op == "conv" || t.op == "dwconv" || t.op == "eltwise" ? 3 : 2;
    if (t.reads.size() != want_reads || t.writes.size() != 1)
        return t.op + " reads " + std::to_string(want_reads) + " boxes (" +
               (t.op == "eltwise" ? "a, b, table" : pool ? "input, table" : "input, weights, table") +
               ") and writes 1, not " + std::to_string(t.reads.size()) + " and " + std::to_string(t.writes.size());
    for (long b : m.read_buffer[ti])
        if (b < 0) return "unknown buffer";
    if (m.write_buffer[ti][0] < 0) return "unknown buffer";
    const Access& in = t.reads[0];
    const Access& out = t.writes[0];
    const Access& table = t.reads.back();
    if (in.shape.size() != 4 || out.shape.size() != 4)
        return "input and output boxes must be 4-d NHWC, not " + dims(in.shape) + " and " + dims(out.shape);
    const DataType in_t = m.buf(m.read_buffer[ti][0])->dtype, out_t = m.buf(m.write_buffer[ti][0])->dtype;
    // int32 out: a conv's partial sum on the int8 path (the accumulator plus the bias, not requantized)
    const bool wide = out_t == DataType::int32 && is_int8(in_t) && t.op == "conv";
    const bool q = is_int8(out_t) || wide;
    if (in_t != DataType::fp16 && !is_int8(in_t)) return std::string("input dtype ") + to_string(in_t) + " (fp16, int8 or uint8)";
    if (is_int8(in_t) != q)
        return std::string("input ") + to_string(in_t) + " and output " + to_string(out_t) +
               " are not both fp16, both 8-bit, or an 8-bit conv's int32 partial sum";
    if (q != p.quantized)
        return q ? "an 8-bit input needs params.quantization" : "params.quantization is only for 8-bit inputs";
    if (wide && (p.post_op != PostOp::none || p.output_zp != 0))
        return "an int32 partial sum takes no post-op and output zero point 0 (it is not requantized)";
    const Buffer* tb = m.buf(m.read_buffer[ti].back());
    if (tb->dtype != DataType::int32 || table.shape.size() != 2 || table.shape[1] != 4 || table.shape[0] != out.shape[3])
        return "the weights table must be an int32 box [" + std::to_string(out.shape[3]) + ",4] (one row of 4 words per output channel), not " +
               std::string(to_string(tb->dtype)) + dims(table.shape);
    if (in.shape[0] != out.shape[0]) return "input and output batch differ";
    if (t.op == "eltwise") {
        const Access& b = t.reads[1];
        if (in.shape != out.shape || b.shape != out.shape)
            return "eltwise boxes must have one shape: " + dims(in.shape) + ", " + dims(b.shape) + " -> " + dims(out.shape);
        if (m.buf(m.read_buffer[ti][1])->dtype != in_t) return "eltwise inputs of different dtypes";
        return {};
    }
    std::array<std::int64_t, 2> kernel = p.kernel;
    if (t.op == "conv" || t.op == "dwconv") {
        const Access& w = t.reads[1];
        const DataType w_t = m.buf(m.read_buffer[ti][1])->dtype;
        if (is_int8(w_t) != q) return std::string("weights dtype ") + to_string(w_t) + " does not match the input's";
        if (w.shape.size() != 4) return "weights must be a 4-d OHWI box, not " + dims(w.shape);
        if (t.op == "conv" && (w.shape[0] != out.shape[3] || w.shape[3] != in.shape[3]))
            return "conv weights " + dims(w.shape) + " do not fit input " + dims(in.shape) + " and output " + dims(out.shape) +
                   " (OHWI: O = output channels, I = input channels)";
        if (t.op == "dwconv" && (w.shape[0] != out.shape[3] || w.shape[3] != 1 || in.shape[3] != out.shape[3]))
            return "dwconv weights " + dims(w.shape) + " must be [C,KH,KW,1] with C = input channels = output channels";
        if (w.shape[1] != kernel[0] || w.shape[2] != kernel[1])
            return "params.kernel [" + std::to_string(kernel[0]) + "," + std::to_string(kernel[1]) + "] differs from the weights' " +
                   dims(w.shape);
    } else if (in.shape[3] != out.shape[3]) {
        return "pooling keeps the channels: input " + dims(in.shape) + ", output " + dims(out.shape);
    }
    if (kernel[0] > m.target.nce_max_kernel || kernel[1] > m.target.nce_max_kernel)
        return "kernel larger than nce_max_kernel " + std::to_string(m.target.nce_max_kernel);
    if (p.stride[0] > m.target.nce_max_stride || p.stride[1] > m.target.nce_max_stride)
        return "stride larger than nce_max_stride " + std::to_string(m.target.nce_max_stride);
    for (int d = 0; d < 2; ++d) {
        const std::int64_t extent = in.shape[1 + d] + p.pad[2 * d] + p.pad[2 * d + 1] - p.dilation[d] * (kernel[d] - 1) - 1;
        const std::int64_t want = extent < 0 ? 0 : extent / p.stride[d] + 1;
        if (extent < 0 || want != out.shape[1 + d])
            return std::string("output ") + (d ? "width " : "height ") + std::to_string(out.shape[1 + d]) + " does not follow from input " +
                   dims(in.shape) + ", kernel, stride, dilation and pad (expected " + std::to_string(want) + ")";
    }
    if (q && p.post_op == PostOp::leaky_relu) return "leaky_relu post-op on an 8-bit output";
    return {};
}

// ---- happens-before -----------------------------------------------------------------------------

// Predecessors of a task: the previous task in its queue and the producers of the barriers it
// waits on. Returns a topological order, or reports a cycle and returns nothing.
std::optional<std::vector<std::size_t>> topological_order(const Model& m, Reporter& report) {
    const std::size_t n = m.list.tasks.size();
    std::vector<std::size_t> indegree(n, 0);
    std::vector<std::vector<std::size_t>> succ(n);
    auto edge = [&](std::size_t a, std::size_t b) {
        succ[a].push_back(b);
        ++indegree[b];
    };
    for (const auto& q : m.queue_tasks)
        for (std::size_t i = 1; i < q.size(); ++i) edge(q[i - 1], q[i]);
    for (std::size_t ti = 0; ti < n; ++ti)
        for (std::size_t b : m.waits[ti])
            for (std::size_t p : m.producers[b]) edge(p, ti);
    std::vector<std::size_t> order, ready;
    for (std::size_t i = n; i-- > 0;)
        if (indegree[i] == 0) ready.push_back(i);
    while (!ready.empty()) {
        const std::size_t t = ready.back();
        ready.pop_back();
        order.push_back(t);
        for (std::size_t s : succ[t])
            if (--indegree[s] == 0) ready.push_back(s);
    }
    if (order.size() == n) return order;
    // A cycle: walk predecessors among the unsorted tasks until one repeats.
    std::vector<std::vector<std::pair<std::size_t, std::string>>> pred(n);  // (task, why)
    for (const auto& q : m.queue_tasks)
        for (std::size_t i = 1; i < q.size(); ++i) pred[q[i]].push_back({q[i - 1], "queue order"});
    for (std::size_t ti = 0; ti < n; ++ti)
        for (std::size_t b : m.waits[ti])
            for (std::size_t p : m.producers[b]) pred[ti].push_back({p, "barrier " + std::to_string(m.list.barriers[b].id)});
    std::size_t start = 0;
    while (indegree[start] == 0) ++start;
    std::vector<long> seen(n, -1);
    std::vector<std::pair<std::size_t, std::string>> path;
    std::size_t at = start;
    while (seen[at] < 0) {
        seen[at] = long(path.size());
        for (const auto& [p, why] : pred[at])
            if (indegree[p] != 0) {
                path.push_back({at, why});
                at = p;
                break;
            }
    }
    std::string text;
    for (std::size_t i = path.size(); i-- > std::size_t(seen[at]);)
        text += m.task_name(path[i].first) + " <-(" + path[i].second + ")- ";
    text += m.task_name(at);
    report("deadlock", "happens-before has a cycle (the task list deadlocks): " + text);
    return std::nullopt;
}

Clocks vector_clocks(const Model& m, const std::vector<std::size_t>& order) {
    Clocks c;
    c.queues = m.queues.size();
    const std::size_t n = m.list.tasks.size();
    c.vc.assign(n * c.queues, -1);
    std::vector<std::int64_t> barrier_vc(m.list.barriers.size() * c.queues, -1);
    std::vector<std::size_t> remaining(m.list.barriers.size());
    for (std::size_t b = 0; b < remaining.size(); ++b) remaining[b] = m.producers[b].size();
    for (std::size_t t : order) {
        std::int64_t* v = c.vc.data() + t * c.queues;
        const long q = m.queue_of[t];
        if (q >= 0 && m.pos[t] > 0) {
            const std::int64_t* prev = c.vc.data() + m.queue_tasks[std::size_t(q)][std::size_t(m.pos[t] - 1)] * c.queues;
            for (std::size_t i = 0; i < c.queues; ++i) v[i] = std::max(v[i], prev[i]);
        }
        for (std::size_t b : m.waits[t])
            for (std::size_t i = 0; i < c.queues; ++i) v[i] = std::max(v[i], barrier_vc[b * c.queues + i]);
        if (q >= 0) v[std::size_t(q)] = m.pos[t];
        for (std::size_t b : m.updates[t])
            for (std::size_t i = 0; i < c.queues; ++i) barrier_vc[b * c.queues + i] = std::max(barrier_vc[b * c.queues + i], v[i]);
    }
    return c;
}

bool happens_before(const Model& m, const Clocks& c, std::size_t a, std::size_t b) {
    if (a == b || m.queue_of[a] < 0) return false;
    return m.pos[a] <= c.of(b)[std::size_t(m.queue_of[a])];
}

// Virtual barriers sharing a physical id: every consumer of the earlier one happens before every
// producer of the later one.
void check_physical_reuse(const Model& m, const Clocks& c, const std::vector<std::size_t>& order, Reporter& report) {
    std::vector<std::size_t> rank(order.size());
    for (std::size_t i = 0; i < order.size(); ++i) rank[order[i]] = i;
    std::map<std::int64_t, std::vector<std::size_t>> groups;
    for (std::size_t b = 0; b < m.list.barriers.size(); ++b)
        if (!m.producers[b].empty()) groups[m.list.barriers[b].physical].push_back(b);
    for (auto& [physical, group] : groups) {
        auto first = [&](std::size_t b) {
            std::size_t r = std::numeric_limits<std::size_t>::max();
            for (std::size_t p : m.producers[b]) r = std::min(r, rank[p]);
            return r;
        };
        std::sort(group.begin(), group.end(), [&](std::size_t a, std::size_t b) { return first(a) < first(b); });
        for (std::size_t i = 1; i < group.size(); ++i) {
            const std::size_t x = group[i - 1], y = group[i];
            bool reported = false;
            for (std::size_t cons : m.consumers[x]) {
                for (std::size_t prod : m.producers[y])
                    if (!happens_before(m, c, cons, prod)) {
                        report("barrier-reuse",
                               "physical barrier " + std::to_string(physical) + " is used by virtual barriers " +
                                   std::to_string(m.list.barriers[x].id) + " and " + std::to_string(m.list.barriers[y].id) +
                                   " without ordering: consumer " + m.task_name(cons) + " of barrier " +
                                   std::to_string(m.list.barriers[x].id) + " does not happen before producer " + m.task_name(prod) +
                                   " of barrier " + std::to_string(m.list.barriers[y].id));
                        reported = true;
                        break;
                    }
                if (reported) break;
            }
        }
    }
}

// ---- races ------------------------------------------------------------------------------------

struct AccessRecord {
    std::size_t task;
    long buffer;
    std::int64_t lo, hi;  // absolute span
};

// Per byte range of one memory: the last write and the reads since, processed in a topological
// order: a new access that conflicts with a recorded one not happening before it is a race.
struct Segment {
    std::optional<AccessRecord> writer;
    std::vector<AccessRecord> readers;
};
using ShadowMemory = ByteRanges<Segment>;

void check_races(const Model& m, const Clocks& c, const std::vector<std::size_t>& order, Reporter& report) {
    std::map<std::int64_t, ShadowMemory> memories;
    std::set<std::pair<std::size_t, std::size_t>> reported;
    auto race = [&](const AccessRecord& earlier, bool earlier_writes, const AccessRecord& now, bool now_writes) {
        if (earlier.task == now.task || happens_before(m, c, earlier.task, now.task)) return;
        if (!reported.insert({std::min(earlier.task, now.task), std::max(earlier.task, now.task)}).second) return;
        // Named in task-list order.
        const bool swap = now.task < earlier.task;
        const AccessRecord& a = swap ? now : earlier;
        const AccessRecord& b = swap ? earlier : now;
        const bool a_writes = swap ? now_writes : earlier_writes, b_writes = swap ? earlier_writes : now_writes;
        const Buffer& ab = m.list.buffers[std::size_t(a.buffer)];
        const Buffer& bb = m.list.buffers[std::size_t(b.buffer)];
        const std::int64_t lo = std::max(a.lo, b.lo), hi = std::min(a.hi, b.hi);
        report("race", "race on " + Model::memory_name(Model::memory_key(bb)) + " bytes " + range_text(lo, hi) + ": " +
                           m.task_name(a.task) + " " + (a_writes ? "writes" : "reads") + " buffer " + ab.id + " and " +
                           m.task_name(b.task) + " " + (b_writes ? "writes" : "reads") + " buffer " + bb.id +
                           ", and no chain of queue order and barriers orders them");
    };
    for (std::size_t t : order) {
        const Task& task = m.list.tasks[t];
        for (int side = 0; side < 2; ++side) {
            const auto& accesses = side ? task.writes : task.reads;
            const auto& indices = side ? m.write_buffer[t] : m.read_buffer[t];
            for (std::size_t ai = 0; ai < accesses.size(); ++ai) {
                if (indices[ai] < 0) continue;
                const Buffer& b = m.list.buffers[std::size_t(indices[ai])];
                const auto [lo, hi] = accesses[ai].span(element_bytes(b.dtype));
                const AccessRecord rec{t, indices[ai], b.offset + lo, b.offset + hi};
                if (rec.hi <= rec.lo) continue;
                memories[Model::memory_key(b)].visit(rec.lo, rec.hi, [&](Segment& s) {
                    if (s.writer) race(*s.writer, true, rec, side == 1);
                    if (side == 1) {
                        for (const AccessRecord& r : s.readers) race(r, false, rec, true);
                        s.readers.clear();
                        s.writer = rec;
                    } else if (s.readers.empty() || s.readers.back().task != t) {
                        s.readers.push_back(rec);
                    }
                });
            }
        }
    }
}

void check_outputs(const Model& m, Reporter& report) {
    for (const IoEntry& e : m.list.outputs) {
        auto it = m.buffer_index.find(e.buffer);
        if (it == m.buffer_index.end()) continue;
        const Buffer& ob = m.list.buffers[it->second];
        std::int64_t bytes = element_bytes(e.dtype);
        for (std::int64_t d : e.shape) bytes *= d;
        bytes = std::min(bytes, ob.size);
        const std::int64_t base = ob.offset;
        std::vector<bool> written(std::size_t(bytes), false);
        for (std::size_t t = 0; t < m.list.tasks.size(); ++t) {
            const Task& task = m.list.tasks[t];
            for (std::size_t ai = 0; ai < task.writes.size(); ++ai) {
                if (m.write_buffer[t][ai] < 0) continue;
                const Buffer& b = m.list.buffers[std::size_t(m.write_buffer[t][ai])];
                if (b.memory != Memory::DDR) continue;
                const std::int64_t eb = element_bytes(b.dtype);
                const auto [lo, hi] = task.writes[ai].span(eb);
                if (b.offset + hi <= base || b.offset + lo >= base + bytes) continue;
                for_each_element(task.writes[ai], [&](std::int64_t off) {
                    for (std::int64_t k = 0; k < eb; ++k) {
                        const std::int64_t a = b.offset + off + k - base;
                        if (a >= 0 && a < bytes) written[std::size_t(a)] = true;
                    }
                });
            }
        }
        std::int64_t first = -1, count = 0;
        for (std::int64_t i = 0; i < bytes; ++i)
            if (!written[std::size_t(i)]) {
                if (first < 0) first = i;
                ++count;
            }
        if (first >= 0) {
            std::int64_t last = first;
            while (last < bytes && !written[std::size_t(last)]) ++last;
            report("output-not-written", "output '" + e.name + "' (buffer " + ob.id + "): " + std::to_string(count) + " of its " +
                                             std::to_string(bytes) + " bytes are never written, the first at buffer bytes " +
                                             range_text(first, last));
        }
    }
}

}  // namespace nnef::vpu::simulator_cpp
