#include "lowering/vpu/simulator.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <map>
#include <set>
#include <sstream>
#include <unordered_map>

#include "lowering/vpu/sim_values.hpp"
#include "lowering/vpu/simulator_model.hpp"

namespace nnef::vpu {

// ---- cost model ------------------------------------------------------------------------------

namespace simulator_cpp {

std::int64_t ceil_div_double(double work, double rate) { return static_cast<std::int64_t>(std::ceil(work / rate - 1e-9)); }

}  // namespace simulator_cpp

std::int64_t dma_cycles(const Target& t, std::int64_t bytes, bool touches_ddr) {
    const double rate = touches_ddr ? std::min(t.dma_bytes_per_cycle, t.ddr_bytes_per_cycle) : t.dma_bytes_per_cycle;
    return t.dma_latency_cycles + simulator_cpp::ceil_div_double(double(bytes), rate);
}

std::int64_t nce_cycles(const Target& t, const std::string& op, bool int8, const std::vector<std::int64_t>& output,
                        const std::vector<std::int64_t>& weights, std::array<std::int64_t, 2> kernel) {
    using simulator_cpp::align_up;
    const std::int64_t n = output.size() == 4 ? output[0] : 1;
    const std::int64_t oh = output.size() == 4 ? output[1] : 1, ow = output.size() == 4 ? output[2] : 1;
    const std::int64_t c = output.empty() ? 1 : output.back();
    const double plane = double(n) * double(align_up(oh, 4)) * double(align_up(ow, 4));
    const std::int64_t a = t.nce_channel_alignment;
    double work = 0.0, rate = 1.0;
    if (op == "conv") {
        const std::int64_t kh = weights.size() == 4 ? weights[1] : 1, kw = weights.size() == 4 ? weights[2] : 1;
        const std::int64_t ci = weights.size() == 4 ? weights[3] : 1;
        work = plane * double(align_up(c, a)) * double(kh * kw) * double(align_up(ci, a));
        rate = int8 ? t.nce_macs_per_cycle.int8 : t.nce_macs_per_cycle.fp16;
    } else if (op == "dwconv" || op == "maxpool" || op == "avgpool") {
        work = plane * double(align_up(c, a)) * double(kernel[0] * kernel[1]);
        rate = int8 ? t.nce_dw_macs_per_cycle.int8 : t.nce_dw_macs_per_cycle.fp16;
    } else {
        work = plane * double(align_up(c, a));
        rate = int8 ? t.nce_eltwise_per_cycle.int8 : t.nce_eltwise_per_cycle.fp16;
    }
    return t.nce_overhead_cycles + simulator_cpp::ceil_div_double(work, rate);
}

std::int64_t shave_cycles(const Target& t, const std::string& kernel, std::int64_t output_elements) {
    return t.shave_overhead_cycles + simulator_cpp::ceil_div_double(double(output_elements) * t.shave_rate(kernel), 1.0);
}

std::optional<std::int64_t> task_cycles(const TaskList& list, const Task& task, const Target& t, std::string* why) {
    return task_cycles(task, [&](const std::string& id) { return list.buffer(id); }, t, why);
}

std::optional<std::int64_t> task_cycles(const Task& task, const std::function<const Buffer*(const std::string&)>& find,
                                        const Target& t, std::string* why) {
    auto fail = [&](const std::string& w) -> std::optional<std::int64_t> {
        if (why) *why = w;
        return std::nullopt;
    };
    auto buffer = [&](const Access& a) { return find(a.buffer); };
    for (const auto* v : {&task.reads, &task.writes})
        for (const Access& a : *v)
            if (!buffer(a)) return fail("unknown buffer '" + a.buffer + "'");
    switch (task.kind) {
        case TaskKind::DMA: {
            if (task.reads.size() != 1 || task.writes.size() != 1) return fail("a DMA copy reads 1 box and writes 1");
            const Buffer* r = buffer(task.reads[0]);
            const Buffer* w = buffer(task.writes[0]);
            return dma_cycles(t, task.reads[0].elements() * element_bytes(r->dtype),
                              r->memory == Memory::DDR || w->memory == Memory::DDR);
        }
        case TaskKind::NCE: {
            if (task.writes.size() != 1 || task.reads.size() < 2) return fail("an NCE task reads 2 or 3 boxes and writes 1");
            const bool int8 = simulator_cpp::is_int8(buffer(task.reads[0])->dtype);
            const std::vector<std::int64_t> none;
            return nce_cycles(t, task.op, int8, task.writes[0].shape, task.op == "conv" ? task.reads[1].shape : none,
                              task.nce.kernel);
        }
        case TaskKind::SHAVE: {
            std::int64_t n = 0;
            for (const Access& a : task.writes) n += a.elements();
            return shave_cycles(t, task.shave.kernel, n);
        }
    }
    return fail("unknown task kind");
}

namespace simulator_cpp {

// ---- structure ----------------------------------------------------------------------------------

// Buffers, entries, barriers, tasks: references, placement, shapes, cycles. Fills the model.
void check_structure(Model& m, Reporter& report, std::vector<std::int64_t>& cycles) {
    const TaskList& l = m.list;
    const Target& t = m.target;
    for (std::size_t i = 0; i < l.buffers.size(); ++i) {
        const Buffer& b = l.buffers[i];
        if (!m.buffer_index.emplace(b.id, i).second) report("duplicate-buffer", "buffer id '" + b.id + "' is used twice");
        if (b.memory == Memory::CMX) {
            if (b.cluster >= t.clusters)
                report("cmx-capacity", "buffer " + b.id + " is in CMX of cluster " + std::to_string(b.cluster) + ", but the target has " +
                                           std::to_string(t.clusters) + " clusters");
            if (b.offset % t.cmx_alignment != 0)
                report("cmx-alignment", "buffer " + b.id + " (CMX" + std::to_string(b.cluster) + " offset " + std::to_string(b.offset) +
                                            ") is not aligned to cmx_alignment " + std::to_string(t.cmx_alignment) + " (offset mod " +
                                            std::to_string(t.cmx_alignment) + " = " + std::to_string(b.offset % t.cmx_alignment) + ")");
            if (b.offset + b.size > t.cmx_bytes)
                report("cmx-capacity", "buffer " + b.id + " (CMX" + std::to_string(b.cluster) + " bytes " +
                                           range_text(b.offset, b.offset + b.size) + ") lies past the cluster's CMX of " +
                                           std::to_string(t.cmx_bytes) + " bytes, by " +
                                           std::to_string(b.offset + b.size - t.cmx_bytes) + " bytes");
            if (b.role == Role::input || b.role == Role::output)
                report("bad-buffer", "buffer " + b.id + " has role " + to_string(b.role) + " but lies in CMX (graph inputs and outputs are in DDR)");
        } else if (b.offset + b.size > t.ddr_bytes) {
            report("ddr-capacity", "buffer " + b.id + " (DDR bytes " + range_text(b.offset, b.offset + b.size) +
                                       ") lies past the DDR of " + std::to_string(t.ddr_bytes) + " bytes");
        }
        if (b.size % element_bytes(b.dtype) != 0)
            report("bad-buffer", "buffer " + b.id + " has " + std::to_string(b.size) + " bytes, not a multiple of its " +
                                     to_string(b.dtype) + " elements");
    }
    for (const auto* group : {&l.inputs, &l.outputs}) {
        const char* what = group == &l.inputs ? "input" : "output";
        std::set<std::string> names;
        for (const IoEntry& e : *group) {
            if (!names.insert(e.name).second) report("bad-entry", std::string(what) + " '" + e.name + "' is listed twice");
            auto it = m.buffer_index.find(e.buffer);
            if (it == m.buffer_index.end()) {
                report("unknown-buffer", std::string(what) + " '" + e.name + "' names unknown buffer '" + e.buffer + "'");
                continue;
            }
            const Buffer& b = l.buffers[it->second];
            std::int64_t bytes = element_bytes(e.dtype);
            for (std::int64_t d : e.shape) bytes *= d;
            if (b.memory != Memory::DDR || b.dtype != e.dtype || bytes > b.size)
                report("bad-entry", std::string(what) + " '" + e.name + "' (" + to_string(e.dtype) + dims(e.shape) + ", " +
                                        std::to_string(bytes) + " bytes) does not fit buffer " + b.id + " (" + to_string(b.memory) + ", " +
                                        to_string(b.dtype) + ", " + std::to_string(b.size) + " bytes)");
        }
    }
    for (std::size_t i = 0; i < l.barriers.size(); ++i) {
        const Barrier& b = l.barriers[i];
        if (!m.barrier_index.emplace(b.id, i).second) report("duplicate-barrier", "barrier id " + std::to_string(b.id) + " is used twice");
        if (b.physical >= t.barriers)
            report("barrier-physical", "barrier " + std::to_string(b.id) + " has physical id " + std::to_string(b.physical) +
                                           "; the target has " + std::to_string(t.barriers) + " physical barriers");
    }
    m.producers.assign(l.barriers.size(), {});
    m.consumers.assign(l.barriers.size(), {});
    m.queues = t.queue_names();
    std::unordered_map<std::string, std::size_t> queue_index;
    for (std::size_t i = 0; i < m.queues.size(); ++i) queue_index[m.queues[i]] = i;
    m.queue_tasks.assign(m.queues.size(), {});
    const std::size_t n = l.tasks.size();
    m.queue_of.assign(n, -1);
    m.pos.assign(n, 0);
    m.read_buffer.assign(n, {});
    m.write_buffer.assign(n, {});
    m.waits.assign(n, {});
    m.updates.assign(n, {});
    cycles.assign(n, 0);
    std::set<std::int64_t> task_ids;
    for (std::size_t ti = 0; ti < n; ++ti) {
        const Task& task = l.tasks[ti];
        const std::string name = m.task_name(ti);
        if (!task_ids.insert(task.id).second) report("duplicate-task", "task id " + std::to_string(task.id) + " is used twice");
        auto q = queue_index.find(task.queue);
        if (q == queue_index.end()) {
            report("unknown-queue", name + ": the target '" + t.name + "' has no queue " + task.queue);
        } else {
            m.queue_of[ti] = long(q->second);
            m.pos[ti] = std::int64_t(m.queue_tasks[q->second].size());
            m.queue_tasks[q->second].push_back(ti);
        }
        const QueueRef qr = parse_queue(task.queue).value_or(QueueRef{});
        for (int side = 0; side < 2; ++side) {
            const auto& accesses = side ? task.writes : task.reads;
            auto& indices = side ? m.write_buffer[ti] : m.read_buffer[ti];
            for (std::size_t ai = 0; ai < accesses.size(); ++ai) {
                const Access& a = accesses[ai];
                auto it = m.buffer_index.find(a.buffer);
                if (it == m.buffer_index.end()) {
                    report("unknown-buffer", name + " " + (side ? "writes" : "reads") + " unknown buffer '" + a.buffer + "'");
                    indices.push_back(-1);
                    continue;
                }
                indices.push_back(long(it->second));
                const Buffer& b = l.buffers[it->second];
                const auto [lo, hi] = a.span(element_bytes(b.dtype));
                bool ok = a.shape.size() == a.strides.size() && !a.shape.empty();
                if (ok && (lo < 0 || hi > b.size))
                    report("access-bounds", name + " " + (side ? "writes" : "reads") + " bytes " + range_text(lo, hi) + " of buffer " + b.id +
                                                ", which has " + std::to_string(b.size) + " bytes (box " + dims(a.shape) + " strides " +
                                                dims(a.strides) + " at offset " + std::to_string(a.offset) + ")");
                if (!ok) report("bad-access", name + ": an access of buffer " + b.id + " needs a shape and one stride per dimension");
                if (task.kind != TaskKind::DMA && (b.memory != Memory::CMX || b.cluster != qr.cluster))
                    report("wrong-memory", name + " " + (side ? "writes" : "reads") + " buffer " + b.id + " in " +
                                               (b.memory == Memory::DDR ? std::string("DDR") : "CMX" + std::to_string(b.cluster)) +
                                               "; " + to_string(task.kind) + " tasks of cluster " + std::to_string(qr.cluster) +
                                               " reach only CMX" + std::to_string(qr.cluster));
                if (side == 1 && is_constant(b.role) && b.memory == Memory::DDR)
                    report("write-constant", name + " writes constant buffer " + b.id + " (" + to_string(b.role) + ")");
                if (side == 1 && b.role == Role::input)
                    report("write-input", name + " writes graph input buffer " + b.id);
            }
        }
        for (int side = 0; side < 2; ++side) {
            const auto& ids = side ? task.update : task.wait;
            for (std::int64_t id : ids) {
                auto it = m.barrier_index.find(id);
                if (it == m.barrier_index.end()) {
                    report("unknown-barrier", name + (side ? " updates" : " waits on") + " unknown barrier " + std::to_string(id));
                    continue;
                }
                (side ? m.updates[ti] : m.waits[ti]).push_back(it->second);
                (side ? m.producers : m.consumers)[it->second].push_back(ti);
            }
        }
        // Kind-specific structure.
        bool complete = std::find(m.read_buffer[ti].begin(), m.read_buffer[ti].end(), -1) == m.read_buffer[ti].end() &&
                        std::find(m.write_buffer[ti].begin(), m.write_buffer[ti].end(), -1) == m.write_buffer[ti].end();
        if (task.kind == TaskKind::DMA) {
            if (task.reads.size() != 1 || task.writes.size() != 1) {
                report("bad-task", name + ": a DMA copy reads 1 box and writes 1, not " + std::to_string(task.reads.size()) + " and " +
                                       std::to_string(task.writes.size()));
                complete = false;
            } else if (complete) {
                const Buffer* r = m.buf(m.read_buffer[ti][0]);
                const Buffer* w = m.buf(m.write_buffer[ti][0]);
                if (element_bytes(r->dtype) != element_bytes(w->dtype) || task.reads[0].elements() != task.writes[0].elements()) {
                    report("bad-task", name + ": copies " + std::to_string(task.reads[0].elements()) + " " + to_string(r->dtype) +
                                           " elements into " + std::to_string(task.writes[0].elements()) + " " + to_string(w->dtype) +
                                           " elements (a copy keeps count and element size)");
                    complete = false;
                }
            }
        } else if (task.kind == TaskKind::NCE && complete) {
            const std::string problem = nce_problem(m, ti);
            if (!problem.empty()) {
                report("bad-task", name + ": " + problem);
                complete = false;
            }
        } else if (task.kind == TaskKind::SHAVE && task.writes.empty()) {
            report("bad-task", name + ": a SHAVE kernel writes at least one box");
            complete = false;
        }
        if (complete) {
            std::string why;
            auto c = task_cycles(
                task,
                [&](const std::string& id) {
                    auto it = m.buffer_index.find(id);
                    return it == m.buffer_index.end() ? nullptr : &l.buffers[it->second];
                },
                t, &why);
            if (c) {
                cycles[ti] = *c;
                if (task.cycles != *c)
                    report("bad-cycles", name + ": cycles is " + std::to_string(task.cycles) + ", the cost model gives " + std::to_string(*c));
            }
        }
    }
    for (std::size_t bi = 0; bi < l.barriers.size(); ++bi) {
        const std::string b = "barrier " + std::to_string(l.barriers[bi].id);
        const std::size_t p = m.producers[bi].size(), c = m.consumers[bi].size();
        if (p == 0) report("barrier-producers", b + " has no producer (no task updates it)");
        if (c == 0) report("barrier-consumers", b + " has no consumer (no task waits on it)");
        if (std::int64_t(p) > t.barrier_max_producers)
            report("barrier-producers", b + " has " + std::to_string(p) + " producers; barrier_max_producers is " +
                                            std::to_string(t.barrier_max_producers));
        if (std::int64_t(c) > t.barrier_max_consumers)
            report("barrier-consumers", b + " has " + std::to_string(c) + " consumers; barrier_max_consumers is " +
                                            std::to_string(t.barrier_max_consumers));
    }
}

// ---- timing -------------------------------------------------------------------------------------

// Event-driven run of the queues: a task starts when it heads its queue and every barrier it waits
// on has had all its producers finish. NCE and SHAVE tasks take their cycles; a DMA takes its
// latency, then moves its bytes at dma_bytes_per_cycle, or, when it touches DDR, at
// min(dma_bytes_per_cycle, ddr_bytes_per_cycle / the number of DDR-touching DMAs moving bytes then).
bool run_timing(const Model& m, const std::vector<std::int64_t>& cycles, std::vector<TaskTime>& times, Reporter& report) {
    const TaskList& l = m.list;
    const Target& t = m.target;
    const std::size_t n = l.tasks.size();
    times.assign(n, {});
    std::vector<std::size_t> head(m.queues.size(), 0);
    std::vector<bool> busy(m.queues.size(), false);
    std::vector<std::size_t> remaining(l.barriers.size());
    for (std::size_t b = 0; b < remaining.size(); ++b) remaining[b] = m.producers[b].size();
    struct Running {
        std::size_t task;
        double latency_end;  // DMA: end of the fixed latency
        double bytes;        // DMA: bytes left to move
        bool ddr;            // DMA touches DDR
        double end;          // NCE/SHAVE: end time
    };
    std::vector<Running> running;
    std::size_t done = 0;
    double now = 0.0;
    const double eps = 1e-9;
    while (done < n) {
        // Start every task that can start now.
        for (std::size_t q = 0; q < m.queues.size(); ++q) {
            if (busy[q] || head[q] >= m.queue_tasks[q].size()) continue;
            const std::size_t ti = m.queue_tasks[q][head[q]];
            bool ready = true;
            for (std::size_t b : m.waits[ti])
                if (remaining[b] != 0) ready = false;
            if (!ready) continue;
            busy[q] = true;
            times[ti].start = now;
            const Task& task = l.tasks[ti];
            Running r{ti, 0.0, 0.0, false, now + double(cycles[ti])};
            if (task.kind == TaskKind::DMA) {
                const Buffer* rb = m.buf(m.read_buffer[ti][0]);
                const Buffer* wb = m.buf(m.write_buffer[ti][0]);
                r.latency_end = now + double(t.dma_latency_cycles);
                r.bytes = double(task.reads[0].elements() * element_bytes(rb->dtype));
                r.ddr = rb->memory == Memory::DDR || wb->memory == Memory::DDR;
                r.end = std::numeric_limits<double>::infinity();
            }
            running.push_back(r);
        }
        if (running.empty()) {
            std::string waiting;
            for (std::size_t q = 0; q < m.queues.size(); ++q)
                if (head[q] < m.queue_tasks[q].size()) waiting += (waiting.empty() ? "" : ", ") + m.task_name(m.queue_tasks[q][head[q]]);
            report("deadlock", "the queues stop with tasks left: " + waiting + " wait on barriers that never complete");
            return false;
        }
        // Rates of the DMAs moving bytes now.
        std::size_t ddr_movers = 0;
        for (const Running& r : running)
            if (l.tasks[r.task].kind == TaskKind::DMA && r.latency_end <= now + eps && r.ddr) ++ddr_movers;
        auto rate = [&](const Running& r) {
            return r.ddr ? std::min(t.dma_bytes_per_cycle, t.ddr_bytes_per_cycle / double(ddr_movers)) : t.dma_bytes_per_cycle;
        };
        double next = std::numeric_limits<double>::infinity();
        for (const Running& r : running) {
            if (l.tasks[r.task].kind != TaskKind::DMA) next = std::min(next, r.end);
            else if (r.latency_end > now + eps) next = std::min(next, r.latency_end);
            else next = std::min(next, now + r.bytes / rate(r));
        }
        for (Running& r : running)
            if (l.tasks[r.task].kind == TaskKind::DMA && r.latency_end <= now + eps) r.bytes -= rate(r) * (next - now);
        now = next;
        // Finish what ends now.
        for (std::size_t i = 0; i < running.size();) {
            Running& r = running[i];
            const bool dma = l.tasks[r.task].kind == TaskKind::DMA;
            const bool finished = dma ? (r.latency_end <= now + eps && r.bytes <= 1e-6) : r.end <= now + eps;
            if (!finished) {
                ++i;
                continue;
            }
            times[r.task].end = now;
            const std::size_t q = std::size_t(m.queue_of[r.task]);
            busy[q] = false;
            ++head[q];
            for (std::size_t b : m.updates[r.task]) --remaining[b];
            ++done;
            running[i] = running.back();
            running.pop_back();
        }
    }
    return true;
}

// CMX in use over time per cluster (see CmxProfile).
std::vector<CmxProfile> cmx_profiles(const Model& m, const std::vector<TaskTime>& times) {
    const TaskList& l = m.list;
    std::vector<CmxProfile> out(std::size_t(m.target.clusters));
    std::vector<double> first(l.buffers.size(), std::numeric_limits<double>::infinity()), last(l.buffers.size(), -1.0);
    for (std::size_t t = 0; t < l.tasks.size(); ++t)
        for (const auto* v : {&m.read_buffer[t], &m.write_buffer[t]})
            for (long b : *v) {
                if (b < 0) continue;
                first[std::size_t(b)] = std::min(first[std::size_t(b)], times[t].start);
                last[std::size_t(b)] = std::max(last[std::size_t(b)], times[t].end);
            }
    for (std::int64_t k = 0; k < m.target.clusters; ++k) {
        CmxProfile& p = out[std::size_t(k)];
        std::vector<std::pair<double, std::pair<int, std::size_t>>> events;  // (time, (+1 / -1, buffer)); ends first
        for (std::size_t b = 0; b < l.buffers.size(); ++b) {
            const Buffer& buf = l.buffers[b];
            if (buf.memory != Memory::CMX || buf.cluster != k) continue;
            p.high_water = std::max(p.high_water, buf.offset + buf.size);
            if (last[b] < 0) continue;
            events.push_back({first[b], {1, b}});
            events.push_back({last[b], {0, b}});
        }
        std::sort(events.begin(), events.end());
        std::multiset<std::pair<std::int64_t, std::int64_t>> live;
        for (std::size_t i = 0; i < events.size();) {
            const double time = events[i].first;
            for (; i < events.size() && events[i].first == time; ++i) {
                const Buffer& buf = l.buffers[events[i].second.second];
                const std::pair<std::int64_t, std::int64_t> iv{buf.offset, buf.offset + buf.size};
                if (events[i].second.first == 1) live.insert(iv);
                else live.erase(live.find(iv));
            }
            std::int64_t bytes = 0, reach = std::numeric_limits<std::int64_t>::min();
            for (const auto& [lo, hi] : live) {
                if (hi <= reach) continue;
                bytes += hi - std::max(lo, reach);
                reach = hi;
            }
            if (p.steps.empty() || p.steps.back().second != bytes) p.steps.push_back({time, bytes});
            p.peak = std::max(p.peak, bytes);
        }
    }
    return out;
}

}  // namespace simulator_cpp

SimulationResult simulate(const TaskList& list, const Target& target, const SimulateOptions& options, Diagnostics& diags) {
    using namespace simulator_cpp;
    SimulationResult r;
    Model m(list, target);
    Reporter report{diags, options.max_per_kind, {}, 0};
    check_structure(m, report, r.cycles);
    auto order = topological_order(m, report);
    if (order) {
        const Clocks clocks = vector_clocks(m, *order);
        check_physical_reuse(m, clocks, *order, report);
        check_races(m, clocks, *order, report);
    }
    check_outputs(m, report);
    r.violations = report.total;
    r.valid = report.total == 0;
    if (!r.valid) return r;

    // The lower bound (sim_bound.cpp) and the DDR traffic by role, from the static figures.
    const TaskCosts costs = task_costs(m, r.cycles);
    if (!options.makespan_only) r.bound = lower_bound(m, costs, *order, std::max<std::size_t>(2, options.cut_pair_tasks), options.cut_early_tasks);
    r.queues.resize(m.queues.size());
    for (std::size_t q = 0; q < m.queues.size(); ++q) {
        r.queues[q].name = m.queues[q];
        r.queues[q].tasks = m.queue_tasks[q].size();
        for (std::size_t t : m.queue_tasks[q]) r.queues[q].work += r.cycles[t];
    }
    for (std::size_t t = 0; t < list.tasks.size(); ++t) {
        if (costs.ddr_bytes[t] == 0) continue;
        for (long bi : {m.read_buffer[t][0], m.write_buffer[t][0]}) {
            const Buffer& b = list.buffers[std::size_t(bi)];
            if (b.memory != Memory::DDR) continue;
            const std::int64_t bytes = costs.ddr_bytes[t];
            switch (b.role) {
                case Role::input: r.ddr.inputs += bytes; break;
                case Role::output: r.ddr.outputs += bytes; break;
                case Role::weights:
                case Role::table:
                case Role::constant: r.ddr.weights += bytes; break;
                case Role::spill:
                case Role::activation: r.ddr.spills += bytes; break;
            }
        }
    }
    if (options.timing) {
        if (!run_timing(m, r.cycles, r.times, report)) {
            r.violations = report.total;
            r.valid = false;
            return r;
        }
        for (const TaskTime& tt : r.times) r.makespan = std::max(r.makespan, tt.end);
        r.makespan_us = target.microseconds(r.makespan);
        for (std::size_t q = 0; q < m.queues.size(); ++q) {
            for (std::size_t t : m.queue_tasks[q]) r.queues[q].busy += r.times[t].end - r.times[t].start;
            r.queues[q].share = r.makespan > 0 ? r.queues[q].busy / r.makespan : 0.0;
        }
        if (!options.makespan_only) r.cmx = cmx_profiles(m, r.times);
    }
    if (options.values) {
        if (!compute_values(list, target, *order, options.inputs, r.outputs, diags)) {
            r.valid = false;
            r.violations = report.total;
        }
    }
    return r;
}

bool check_task_list(const TaskList& list, const Target& target, Diagnostics& diags) {
    SimulateOptions o;
    o.timing = false;
    return simulate(list, target, o, diags).valid;
}

std::string report_text(const TaskList& list, const Target& target, const SimulationResult& r) {
    std::ostringstream os;
    char buf[256];
    auto pct = [&](double num, double den) { return den > 0 ? 100.0 * num / den : 0.0; };
    std::snprintf(buf, sizeof buf, "makespan: %.0f cycles, %.2f us at %g MHz (%zu task%s, %zu barrier%s)\n", std::ceil(r.makespan),
                  r.makespan_us, target.clock_mhz, list.tasks.size(), list.tasks.size() == 1 ? "" : "s", list.barriers.size(),
                  list.barriers.size() == 1 ? "" : "s");
    os << buf;
    const double lb = r.bound.value();
    std::snprintf(buf, sizeof buf,
                  "lower bound: %.0f cycles, %s binds (busiest engine %s %.0f, DDR bandwidth %.0f, dataflow chain %.0f, cut %.0f); "
                  "makespan / bound = %.3f\n",
                  std::ceil(lb), r.bound.binding(), r.bound.engine_queue.empty() ? "-" : r.bound.engine_queue.c_str(), std::ceil(r.bound.engine),
                  std::ceil(r.bound.ddr), std::ceil(r.bound.dataflow), std::ceil(r.bound.cut), lb > 0 ? r.makespan / lb : 0.0);
    os << buf;
    if (r.bound.cut_task >= 0) {
        os << "  cut at " << r.bound.cut_task_name << ": ";
        std::string before = r.bound.cut_before_term;
        if (r.bound.cut_segments.size() > 1) {
            // the segments' cycles by term, the largest first
            std::vector<std::pair<std::string, std::pair<double, int>>> by;
            for (const LowerBound::Segment& g : r.bound.cut_segments) {
                auto it = std::find_if(by.begin(), by.end(), [&](const auto& e) { return e.first == g.term; });
                if (it == by.end()) it = by.insert(by.end(), {g.term, {0.0, 0}});
                it->second.first += g.cycles;
                ++it->second.second;
            }
            std::stable_sort(by.begin(), by.end(), [](const auto& a, const auto& b) { return a.second.first > b.second.first; });
            before += ":";
            for (std::size_t k = 0; k < by.size(); ++k) {
                std::snprintf(buf, sizeof buf, "%s %s %.0f (%d)", k ? "," : "", by[k].first.c_str(), std::ceil(by[k].second.first), by[k].second.second);
                before += buf;
            }
        }
        std::snprintf(buf, sizeof buf, "%.0f cycles up to its end (%s) + %.0f after (%s", std::ceil(r.bound.cut_before),
                      before.c_str(), std::ceil(r.bound.cut_after), r.bound.cut_after_term.c_str());
        os << buf;
        if (r.bound.cut_after_term == "DDR" && r.bound.cut_cmx_excess > 0)
            os << ", with " << r.bound.cut_cmx_excess << " bytes of loads into CMX that cannot wait in CMX";
        os << ")\n";
    }
    std::snprintf(buf, sizeof buf, "list chain: %.0f cycles (this list's queue order and barriers; not a bound of other orders)\n",
                  std::ceil(r.bound.list_chain));
    os << buf;
    os << "queues:\n";
    for (const QueueStats& q : r.queues) {
        std::snprintf(buf, sizeof buf, "  %-10s %6zu %-5s  busy %12.0f cycles  %5.1f%%\n", q.name.c_str(), q.tasks, q.tasks == 1 ? "task" : "tasks", q.busy, pct(q.busy, r.makespan));
        os << buf;
    }
    std::snprintf(buf, sizeof buf, "DDR traffic: %lld bytes (inputs %lld, weights %lld, spills %lld, outputs %lld)\n",
                  (long long)r.ddr.total(), (long long)r.ddr.inputs, (long long)r.ddr.weights, (long long)r.ddr.spills,
                  (long long)r.ddr.outputs);
    os << buf;
    for (std::size_t k = 0; k < r.cmx.size(); ++k) {
        std::snprintf(buf, sizeof buf, "CMX%zu: peak %lld bytes in use (%.1f%% of %lld), highest address %lld\n", k, (long long)r.cmx[k].peak,
                      pct(double(r.cmx[k].peak), double(target.cmx_bytes)), (long long)target.cmx_bytes, (long long)r.cmx[k].high_water);
        os << buf;
    }
    return os.str();
}

}  // namespace nnef::vpu
