// The VPU IR's verifier (lowering/vpu/ir.hpp, verify): after each pass (with verify_each), every
// promise the module carries is checked, so a pass that breaks what an earlier one promised is
// caught where it does. The promises and the passes that make them: lowering/vpu/pipeline.cpp.
#include <algorithm>
#include <cstring>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include "lowering/vpu/ir.hpp"
#include "lowering/vpu/simulator.hpp"

namespace nnef::vpu::ir {

namespace vpu_verify_cpp {

// The byte range a box covers lies within [0, size) of its buffer.
bool box_in(const Box& b, std::int64_t es, std::int64_t size) {
    std::int64_t lo = b.offset, hi = b.offset;
    if (b.shape.size() != b.strides.size()) return false;
    for (std::size_t i = 0; i < b.shape.size(); ++i) {
        if (b.shape[i] <= 0) return false;
        const std::int64_t d = (b.shape[i] - 1) * b.strides[i];
        (d < 0 ? lo : hi) += d;
    }
    return lo >= 0 && hi + es <= size;
}

bool view_in(const Module& m, const View& v) {
    if (v.tensor < 0 || std::size_t(v.tensor) >= m.tensors.size()) return false;
    Box b;
    b.offset = v.offset;
    b.shape = v.shape;
    b.strides = v.strides;
    const Tensor& t = m.tensors[std::size_t(v.tensor)];
    return box_in(b, element_size(t.dtype), t.bytes);
}

// After the phase fallback of `barriers` (program order moved to phase order), CMX buffers that
// share bytes are checked on happens-before instead of lifetimes in program order: every task of
// one must happen before every task of the other (per queue, the last position of the earlier
// buffer's tasks within the smallest vector clock over the later one's). Vector clocks from the
// tasks' waits and updates in program order, which the barriers promise makes topological (every
// producer of a barrier before its consumers). Returns the first pair that is not ordered.
std::string unordered_reuse(const Module& m) {
    std::map<std::string, std::size_t> queue_of;
    for (const Task& task : m.tasks) queue_of.emplace(task.queue, queue_of.size());
    const std::size_t Q = queue_of.size(), n = m.tasks.size(), nb = m.barrier_physical.size();
    std::vector<std::int64_t> clock(n * Q, -1), joined(nb * Q, -1), last_on(Q, -1), pos(n, 0);
    for (std::size_t i = 0; i < n; ++i) {
        const Task& task = m.tasks[i];
        const std::size_t q = queue_of.at(task.queue);
        std::int64_t* c = clock.data() + i * Q;
        if (last_on[q] >= 0) std::copy_n(clock.data() + std::size_t(last_on[q]) * Q, Q, c);
        for (std::int64_t b : task.wait)
            if (b >= 0 && std::size_t(b) < nb)
                for (std::size_t r = 0; r < Q; ++r) c[r] = std::max(c[r], joined[std::size_t(b) * Q + r]);
        pos[i] = last_on[q] >= 0 ? pos[std::size_t(last_on[q])] + 1 : 0;
        c[q] = pos[i];
        last_on[q] = std::int64_t(i);
        for (std::int64_t b : task.update)
            if (b >= 0 && std::size_t(b) < nb)
                for (std::size_t r = 0; r < Q; ++r) joined[std::size_t(b) * Q + r] = std::max(joined[std::size_t(b) * Q + r], c[r]);
    }
    // per buffer: the last position of its tasks per queue, the smallest clock over its tasks
    const std::size_t nc = m.cmx.size();
    std::vector<std::int64_t> last(nc * Q, -1), low(nc * Q, std::numeric_limits<std::int64_t>::max()), first(nc, -1);
    for (std::size_t i = 0; i < n; ++i) {
        const std::size_t q = queue_of.at(m.tasks[i].queue);
        for (const auto* list : {&m.tasks[i].reads, &m.tasks[i].writes})
            for (const Box& x : *list) {
                if (!x.ref.cmx || x.ref.index < 0 || std::size_t(x.ref.index) >= nc) continue;
                const std::size_t k = std::size_t(x.ref.index);
                if (first[k] < 0) first[k] = std::int64_t(i);
                last[k * Q + q] = std::max(last[k * Q + q], pos[i]);
                for (std::size_t r = 0; r < Q; ++r) low[k * Q + r] = std::min(low[k * Q + r], r == q ? pos[i] - 1 : clock[i * Q + r]);
            }
    }
    auto before = [&](std::size_t a, std::size_t b) {
        for (std::size_t r = 0; r < Q; ++r)
            if (last[a * Q + r] > low[b * Q + r]) return false;
        return true;
    };
    // pairs sharing bytes in one cluster: a sweep over offsets
    std::vector<std::size_t> order;
    for (std::size_t k = 0; k < nc; ++k)
        if (first[k] >= 0 && m.cmx[k].offset >= 0) order.push_back(k);
    std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
        return std::make_pair(m.cmx[a].cluster, m.cmx[a].offset) < std::make_pair(m.cmx[b].cluster, m.cmx[b].offset);
    });
    for (std::size_t i = 0; i < order.size(); ++i) {
        const CmxBuffer& a = m.cmx[order[i]];
        for (std::size_t j = i + 1; j < order.size(); ++j) {
            const CmxBuffer& b = m.cmx[order[j]];
            if (b.cluster != a.cluster || b.offset >= a.offset + a.size) break;
            const std::size_t x = first[order[i]] < first[order[j]] ? order[i] : order[j], y = x == order[i] ? order[j] : order[i];
            if (!before(x, y))
                return "CMX buffers of '" + m.cmx[x].tensor + "' and '" + m.cmx[y].tensor + "' share bytes in cluster " +
                       std::to_string(a.cluster) + " and the barriers do not order their tasks";
        }
    }
    return {};
}

}  // namespace vpu_verify_cpp

bool verify(const Module& m, const std::string& after, Diagnostics& diags) {
    using namespace vpu_verify_cpp;
    const Target& t = m.target;
    std::size_t before = diags.error_count();
    auto bad = [&](const std::string& what) {
        diags.error(Stage::vpu, "invalid-vpu-ir", (after.empty() ? std::string("before the passes") : "after pass '" + after + "'") + ": " + what);
    };
    if (m.has(Promise::layers)) {
        for (std::size_t i = 0; i < m.layers.size(); ++i) {
            const Layer& l = m.layers[i];
            const std::string name = "layer " + std::to_string(i) + " (" + l.op_name() + ", '" + l.source + "')";
            for (const View& v : l.inputs)
                if (!view_in(m, v)) bad(name + ": an input view lies outside its tensor");
            if (!view_in(m, l.output)) bad(name + ": the output view lies outside its tensor");
            if (!l.scale.empty() && (l.exec != Exec::nce || l.nce.quantized || l.output.shape.size() != 4 ||
                                     std::int64_t(l.scale.size()) != l.output.shape[3]))
                bad(name + ": a table scale of " + std::to_string(l.scale.size()) + " items on no fp16 NCE layer of as many channels");
            if (l.exec == Exec::nce) {
                if (l.output.shape.size() != 4) bad(name + ": NCE output is not rank 4 (NHWC)");
                for (const View& v : l.inputs)
                    if (v.shape.size() != 4) bad(name + ": NCE input is not rank 4 (NHWC)");
                if (l.nce.kernel[0] > t.nce_max_kernel || l.nce.kernel[1] > t.nce_max_kernel || l.nce.stride[0] > t.nce_max_stride ||
                    l.nce.stride[1] > t.nce_max_stride)
                    bad(name + ": kernel or stride beyond the NCE's limits");
            }
            if (const auto& c = l.shave.constant) {
                if (l.exec != Exec::shave || c->input < 0 || std::size_t(c->input) >= l.inputs.size())
                    bad(name + ": an exact constant of no SHAVE input");
                else if (std::int64_t(c->items.size()) != l.inputs[std::size_t(c->input)].elements())
                    bad(name + ": the exact constant has " + std::to_string(c->items.size()) + " items, its input " +
                        std::to_string(l.inputs[std::size_t(c->input)].elements()));
            }
            if (m.tensors[std::size_t(l.output.tensor)].role == Role::input || is_constant(m.tensors[std::size_t(l.output.tensor)].role))
                bad(name + ": writes a graph input or a constant");
        }
    }
    if (m.has(Promise::post_ops_fused)) {
        const TensorUses uses = tensor_uses(m);
        for (std::size_t i = 0; i < m.layers.size(); ++i) {
            const int p = fusible_post_op(m, i, uses);
            if (p >= 0)
                bad("layer " + std::to_string(i) + " (" + m.layers[i].op_name() + ", '" + m.layers[i].source + "') is left on SHAVE though NCE layer " +
                    std::to_string(p) + " (" + m.layers[std::size_t(p)].op_name() + ") producing its operand can compute it");
            else if (scale_shift_to_nce(m, i, uses))
                bad("layer " + std::to_string(i) + " (" + m.layers[i].op_name() + ", '" + m.layers[i].source +
                    "') is left on SHAVE though it is a scale or shift the NCE computes (a 1x1 maxpool with its constant in the table)");
        }
    }
    if (m.has(Promise::weights_laid_out)) {
        for (const Layer& l : m.layers) {
            if (l.exec != Exec::nce) continue;
            if (l.table < 0 || std::size_t(l.table) >= m.tensors.size() || (has_weights(l.nce_op) && l.weights < 0)) {
                bad("layer '" + l.source + "' (" + l.op_name() + ") has no weights or table");
                continue;
            }
            if (m.tensors[std::size_t(l.table)].role != Role::table) bad("the table of '" + l.source + "' is not a table tensor");
            const std::int64_t a = t.nce_channel_alignment;
            if (l.table_offset < 0 || l.table_offset % 16 != 0 || l.table_offset + l.table_bytes(a) > m.tensors[std::size_t(l.table)].bytes)
                bad("table of '" + l.source + "' (16 bytes per aligned channel from byte " + std::to_string(l.table_offset) +
                    ") does not lie in its table tensor");
            if (l.weights >= 0 && (l.weights_offset < 0 || l.weights_offset + l.weights_bytes() > m.tensors[std::size_t(l.weights)].bytes))
                bad("weights of '" + l.source + "' (" + std::to_string(l.weights_bytes()) + " bytes from byte " + std::to_string(l.weights_offset) +
                    ") do not lie in their weights tensor");
            const DataType wt = l.nce.quantized ? DataType::int8 : DataType::fp16;
            if (l.weights >= 0 && m.tensors[std::size_t(l.weights)].dtype != wt)
                bad("weights of '" + l.source + "' are not " + to_string(wt) + " (as the layer's data path)");
        }
    }
    if (m.has(Promise::tiled)) {
        // tiles cover each layer's output exactly: the counted output elements add up
        std::vector<std::int64_t> covered(m.layers.size(), 0);
        for (const Tile& tl : m.tiles) {
            const Layer& l = m.layers[std::size_t(tl.layer)];
            if (tl.cluster < 0 || tl.cluster >= t.clusters) bad("a tile on a cluster the target lacks");
            if (l.exec == Exec::nce) covered[std::size_t(tl.layer)] += tl.rows * tl.chans * l.output.shape[2];
            else if (tl.split_dim < 0) covered[std::size_t(tl.layer)] += l.output.elements();
            else covered[std::size_t(tl.layer)] += l.output.elements() / l.output.shape[std::size_t(tl.split_dim)] * tl.rows;
        }
        for (std::size_t i = 0; i < m.layers.size(); ++i)
            if (covered[i] != m.layers[i].output.elements())
                bad("the tiles of layer " + std::to_string(i) + " ('" + m.layers[i].source + "') cover " + std::to_string(covered[i]) + " of " +
                    std::to_string(m.layers[i].output.elements()) + " output elements");
    }
    if (m.has(Promise::tables_built)) {
        // every table written; each channel's weights offset (word 0) leaves a channel's weights
        // inside the weights tensor
        for (const Layer& l : m.layers) {
            if (l.exec != Exec::nce || l.table < 0) continue;
            const Tensor& tb = m.tensors[std::size_t(l.table)];
            if (!tb.data || std::int64_t(tb.data->size()) != tb.bytes) {
                bad("the table of '" + l.source + "' is not written");
                continue;
            }
            if (l.weights < 0) continue;
            const std::int64_t w_bytes = l.weights_bytes(), per = w_bytes / std::max<std::int64_t>(1, l.output.shape[3]);
            if (l.table_offset < 0 || l.table_offset + l.output.shape[3] * 16 > tb.bytes) continue;  // reported above
            for (std::int64_t c = 0; c < l.output.shape[3]; ++c) {
                std::int32_t w0 = 0;
                std::memcpy(&w0, tb.data->data() + l.table_offset + c * 16, 4);
                if (w0 < 0 || w0 + per > w_bytes) {
                    bad("table of '" + l.source + "': channel " + std::to_string(c) + "'s weights offset " + std::to_string(w0) +
                        " lies outside the weights");
                    break;
                }
            }
        }
    }
    if (m.has(Promise::scheduled)) {
        for (std::size_t i = 0; i < m.tasks.size(); ++i) {
            const Task& task = m.tasks[i];
            for (const auto* list : {&task.reads, &task.writes})
                for (const Box& b : *list) {
                    const bool ok = b.ref.cmx ? box_in(b, element_size(m.cmx[std::size_t(b.ref.index)].dtype), m.cmx[std::size_t(b.ref.index)].size)
                                              : box_in(b, element_size(m.tensors[std::size_t(b.ref.index)].dtype),
                                                       m.tensors[std::size_t(b.ref.index)].bytes);
                    if (!ok) bad("task " + std::to_string(i) + " (" + task.op + ", '" + task.source + "') has a box outside its buffer");
                    if (task.kind != TaskKind::DMA && !b.ref.cmx) bad("task " + std::to_string(i) + " (" + task.op + ") touches DDR");
                }
        }
        for (const CmxBuffer& c : m.cmx)
            if (c.first < 0) bad("a CMX buffer of '" + c.tensor + "' that no task touches");
        // (after schedule the offsets are there too: the pass promises cmx-allocated, checked below)
    }
    if (m.has(Promise::cmx_allocated)) {
        std::vector<std::vector<const CmxBuffer*>> by(std::size_t(t.clusters));
        for (const CmxBuffer& c : m.cmx) {
            if (c.offset < 0 || c.offset % t.cmx_alignment || c.offset + c.size > t.cmx_bytes)
                bad("CMX buffer of '" + c.tensor + "' at " + std::to_string(c.offset) + " (size " + std::to_string(c.size) +
                    ") is unaligned or past the capacity");
            by[std::size_t(c.cluster)].push_back(&c);
        }
        // Buffers alive together (in program order) must not share bytes. After the phase fallback
        // of `barriers` the program order is the phases' (tasks moved), no longer the order the
        // allocator placed the buffers in: reuse of bytes is then safe by the barriers'
        // dependencies (every access that conflicts in bytes is ordered), checked on the barriers'
        // happens-before (`unordered_reuse`), not by disjoint lifetimes.
        if (m.barrier_fallback && m.has(Promise::barriers)) {
            const std::string why = unordered_reuse(m);
            if (!why.empty()) bad(why);
        }
        for (auto& v : by) {
            if (m.barrier_fallback) break;
            std::sort(v.begin(), v.end(), [](const CmxBuffer* a, const CmxBuffer* b) { return a->first < b->first; });
            // buffers alive together must not share bytes (a sweep over first-use order)
            std::vector<const CmxBuffer*> live;
            for (const CmxBuffer* c : v) {
                live.erase(std::remove_if(live.begin(), live.end(), [&](const CmxBuffer* x) { return x->last < c->first; }), live.end());
                for (const CmxBuffer* x : live)
                    if (x->offset < c->offset + c->size && c->offset < x->offset + x->size)
                        bad("CMX buffers of '" + x->tensor + "' and '" + c->tensor + "' share bytes while both alive");
                live.push_back(c);
            }
        }
    }
    if (m.has(Promise::barriers)) {
        // every barrier: producers and consumers within the limits, all producers before all
        // consumers in program order (program order is then a topological order: no deadlock),
        // a physical id within the target's count
        const std::size_t nb = m.barrier_physical.size();
        std::vector<std::int64_t> producers(nb, 0), consumers(nb, 0), last_producer(nb, -1), first_consumer(nb, -1);
        for (std::size_t i = 0; i < m.tasks.size(); ++i) {
            for (std::int64_t b : m.tasks[i].update) {
                if (b < 0 || std::size_t(b) >= nb) {
                    bad("task " + std::to_string(i) + " updates an unknown barrier");
                    continue;
                }
                ++producers[std::size_t(b)];
                last_producer[std::size_t(b)] = std::int64_t(i);
            }
            for (std::int64_t b : m.tasks[i].wait) {
                if (b < 0 || std::size_t(b) >= nb) {
                    bad("task " + std::to_string(i) + " waits on an unknown barrier");
                    continue;
                }
                ++consumers[std::size_t(b)];
                if (first_consumer[std::size_t(b)] < 0) first_consumer[std::size_t(b)] = std::int64_t(i);
            }
        }
        for (std::size_t b = 0; b < nb; ++b) {
            const std::string name = "barrier " + std::to_string(b);
            if (producers[b] < 1 || producers[b] > t.barrier_max_producers) bad(name + " has " + std::to_string(producers[b]) + " producers");
            if (consumers[b] < 1 || consumers[b] > t.barrier_max_consumers) bad(name + " has " + std::to_string(consumers[b]) + " consumers");
            if (first_consumer[b] >= 0 && first_consumer[b] <= last_producer[b])
                bad(name + ": consumer task " + std::to_string(first_consumer[b]) + " comes before producer task " + std::to_string(last_producer[b]));
            if (m.barrier_physical[b] < 0 || m.barrier_physical[b] >= t.barriers) bad(name + " has no physical id within the target's count");
        }
    }
    if (m.has(Promise::emitted)) {
        // the task list itself: the simulator's checks (section 5, capacity, parameters, cycles)
        SimulateOptions o;
        o.timing = false;
        Diagnostics d;
        const SimulationResult r = simulate(m.list, t, o, d);
        if (!r.valid) {
            for (const Diagnostic& x : d.list()) bad("task list: " + x.message);
        }
    }
    return diags.error_count() == before;
}

}  // namespace nnef::vpu::ir
