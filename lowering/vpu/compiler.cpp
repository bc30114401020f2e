// The VPU compiler's pipeline, its verifier and the IR dump (lowering/vpu/compiler.hpp, ir.hpp).
#include "lowering/vpu/compiler.hpp"

#include <algorithm>
#include <map>
#include <sstream>

#include "lowering/vpu/simulator.hpp"

namespace nnef::vpu {

namespace ir {

std::int64_t element_size(DataType t) { return element_bytes(t); }

std::vector<std::int64_t> dense_strides(const std::vector<std::int64_t>& shape, std::int64_t es) {
    std::vector<std::int64_t> s(shape.size(), es);
    for (std::size_t i = shape.size(); i-- > 1;) s[i - 1] = s[i] * shape[i];
    return s;
}

std::int64_t View::elements() const {
    std::int64_t n = 1;
    for (auto d : shape) n *= d;
    return n;
}

bool View::dense(std::int64_t es) const {
    std::int64_t expect = es;
    for (std::size_t i = shape.size(); i-- > 0;) {
        if (shape[i] != 1 && strides[i] != expect) return false;
        expect *= shape[i];
    }
    return true;
}

const char* to_string(Exec e) {
    switch (e) {
        case Exec::nce: return "NCE";
        case Exec::shave: return "SHAVE";
        case Exec::copy: return "copy";
    }
    return "?";
}

namespace vpu_compiler_cpp {

std::string dims(const std::vector<std::int64_t>& v) {
    std::string s = "[";
    for (std::size_t i = 0; i < v.size(); ++i) s += (i ? "," : "") + std::to_string(v[i]);
    return s + "]";
}

std::string view_text(const Module& m, const View& v) {
    return "t" + std::to_string(v.tensor) + "(" + m.tensors[std::size_t(v.tensor)].name + ")+" + std::to_string(v.offset) + dims(v.shape) +
           "/" + dims(v.strides);
}

// The byte range a box covers within [0, size) of its buffer.
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
    Box b;
    b.offset = v.offset;
    b.shape = v.shape;
    b.strides = v.strides;
    const Tensor& t = m.tensors[std::size_t(v.tensor)];
    return v.tensor >= 0 && std::size_t(v.tensor) < m.tensors.size() && box_in(b, element_size(t.dtype), t.bytes);
}

}  // namespace vpu_compiler_cpp

std::string to_text(const Module& m) {
    using namespace vpu_compiler_cpp;
    std::ostringstream os;
    os << "vpu module '" << m.name << "' (stage " << m.stage << "): " << m.tensors.size() << " DDR tensors, " << m.layers.size()
       << " layers, " << m.tiles.size() << " tiles, " << m.cmx.size() << " CMX buffers, " << m.tasks.size() << " tasks, "
       << m.barrier_physical.size() << " barriers";
    if (m.stage >= 6) os << " (physical ids in " << m.barrier_segments << " segment(s)" << (m.barrier_fallback ? ", phase fallback" : "") << ")";
    os << "\n";
    for (std::size_t i = 0; i < m.layers.size(); ++i) {
        const Layer& l = m.layers[i];
        os << "  layer " << i << ": " << to_string(l.exec) << " " << l.op;
        if (l.exec == Exec::nce) {
            os << " kernel=" << dims({l.nce.kernel[0], l.nce.kernel[1]}) << " stride=" << dims({l.nce.stride[0], l.nce.stride[1]})
               << " pad=" << dims({l.nce.pad[0], l.nce.pad[1], l.nce.pad[2], l.nce.pad[3]}) << " post_op=" << to_string(l.nce.post_op);
            if (!l.nce.eltwise.empty()) os << " eltwise=" << l.nce.eltwise;
            if (l.nce.quantized) {
                os << " zp=" << dims({l.nce.input_zp, l.nce.weights_zp, l.nce.output_zp}) << (l.nce.double_round ? " double_round" : "");
                if (!l.nce.eltwise.empty())
                    for (const InputRescale& r : l.nce.eltwise_inputs) os << " in_rescale=" << dims({r.multiplier, r.shift, r.zp});
            }
            if (l.weights >= 0) os << " weights=t" << l.weights;
            if (l.table >= 0) os << " table=t" << l.table;
        } else if (!l.attrs.empty()) {
            os << " " << l.attrs.dump();
        }
        os << "\n    in:";
        for (const View& v : l.inputs) os << " " << view_text(m, v);
        os << "\n    out: " << view_text(m, l.output) << "  # " << l.source << "\n";
    }
    for (const Tile& t : m.tiles)
        os << "  tile layer " << t.layer << " cluster " << t.cluster << " rows " << t.row0 << "+" << t.rows << " channels " << t.ch0 << "+"
           << t.chans << "\n";
    for (std::size_t i = 0; i < m.cmx.size(); ++i) {
        const CmxBuffer& c = m.cmx[i];
        os << "  cmx " << i << ": cluster " << c.cluster << " offset " << c.offset << " size " << c.size << " life [" << c.first << ","
           << c.last << "] " << c.tensor << "\n";
    }
    for (std::size_t i = 0; i < m.tasks.size(); ++i) {
        const Task& t = m.tasks[i];
        os << "  task " << i << ": " << t.queue << " " << t.op << " wait " << dims(t.wait) << " update " << dims(t.update) << "  # "
           << t.source << "\n";
    }
    return os.str();
}

bool verify(const Module& m, const std::string& after, Diagnostics& diags) {
    using namespace vpu_compiler_cpp;
    const Target& t = m.target;
    std::size_t before = diags.error_count();
    auto bad = [&](const std::string& what) {
        diags.error(Stage::vpu, "invalid-vpu-ir", (after.empty() ? std::string("before the passes") : "after pass '" + after + "'") + ": " + what);
    };
    if (m.stage >= 1) {
        for (std::size_t i = 0; i < m.layers.size(); ++i) {
            const Layer& l = m.layers[i];
            const std::string name = "layer " + std::to_string(i) + " (" + l.op + ", '" + l.source + "')";
            for (const View& v : l.inputs)
                if (!view_in(m, v)) bad(name + ": an input view lies outside its tensor");
            if (!view_in(m, l.output)) bad(name + ": the output view lies outside its tensor");
            if (l.exec == Exec::nce) {
                if (l.output.shape.size() != 4) bad(name + ": NCE output is not rank 4 (NHWC)");
                for (const View& v : l.inputs)
                    if (v.shape.size() != 4) bad(name + ": NCE input is not rank 4 (NHWC)");
                if (l.nce.kernel[0] > t.nce_max_kernel || l.nce.kernel[1] > t.nce_max_kernel || l.nce.stride[0] > t.nce_max_stride ||
                    l.nce.stride[1] > t.nce_max_stride)
                    bad(name + ": kernel or stride beyond the NCE's limits");
                if (m.stage >= 2 && (l.table < 0 || ((l.op == "conv" || l.op == "dwconv") && l.weights < 0)))
                    bad(name + ": no weights or table after layout-and-types");
            }
            if (m.tensors[std::size_t(l.output.tensor)].role == Role::input || is_constant(m.tensors[std::size_t(l.output.tensor)].role))
                bad(name + ": writes a graph input or a constant");
        }
    }
    if (m.stage >= 2) {
        for (const Layer& l : m.layers) {
            if (l.exec != Exec::nce) continue;
            const std::int64_t C = l.output.shape[3];
            const std::int64_t a = t.nce_channel_alignment;
            if (m.tensors[std::size_t(l.table)].bytes != (C + a - 1) / a * a * 16) bad("table of '" + l.source + "' is not 16 bytes per aligned channel");
            const DataType wt = l.nce.quantized ? DataType::int8 : DataType::fp16;
            if (l.weights >= 0 && m.tensors[std::size_t(l.weights)].dtype != wt)
                bad("weights of '" + l.source + "' are not " + to_string(wt) + " (as the layer's data path)");
        }
    }
    if (m.stage >= 3) {
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
    if (m.stage >= 4) {
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
    }
    if (m.stage >= 5) {
        std::vector<std::vector<const CmxBuffer*>> by(std::size_t(t.clusters));
        for (const CmxBuffer& c : m.cmx) {
            if (c.offset < 0 || c.offset % t.cmx_alignment || c.offset + c.size > t.cmx_bytes)
                bad("CMX buffer of '" + c.tensor + "' at " + std::to_string(c.offset) + " (size " + std::to_string(c.size) +
                    ") is unaligned or past the capacity");
            by[std::size_t(c.cluster)].push_back(&c);
        }
        for (auto& v : by) {
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
    if (m.stage >= 6) {
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
    if (m.stage >= 7) {
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

}  // namespace ir

lowering::Pipeline<ir::Module> compile_pipeline() {
    lowering::Pipeline<ir::Module> p;
    p.passes = {
        {"assign-executors", "TOSA operators to NCE layers, SHAVE kernels, copies and views", ir::assign_executors},
        {"layout-and-types", "fp16 (or int8) constants, OHWI weights, weights tables", ir::layout_and_types},
        {"tile", "split layers over output rows / channels and clusters to fit CMX", ir::tile},
        {"schedule", "program order of DMA / NCE / SHAVE tasks with prefetch", ir::schedule},
        {"allocate-cmx", "static aligned CMX offsets", ir::allocate_cmx},
        {"barriers", "dependencies, transitive reduction, virtual barriers, physical ids", ir::assign_barriers},
        {"emit", "the task list with the cost model's cycles", ir::emit},
    };
    p.verify = ir::verify;
    p.printer = [](const ir::Module& m) { return m.stage >= 7 ? vpu::to_text(m.list) : ir::to_text(m); };
    return p;
}

std::optional<TaskList> compile(const tosa::Graph& graph, const Target& target, const CompileOptions& options, Diagnostics& diags) {
    ir::Module m;
    m.graph = &graph;
    m.target = target;
    m.name = graph.name;
    lowering::PassOptions po;
    po.verify_each = options.verify_each;
    po.print_after = options.print_after;
    po.print = options.print;
    if (!compile_pipeline().run(m, po, diags)) return std::nullopt;
    return std::move(m.list);
}

}  // namespace nnef::vpu
