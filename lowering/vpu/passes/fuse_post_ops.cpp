// The fuse-post-ops pass (lowering/vpu/ir.hpp, docs/vpu-compiler.md): SHAVE layers that the NCE
// layer producing their operand can compute itself are folded into it and removed.
//   add / sub / mul by a per-tensor or per-channel constant (fp16 path) after a conv / dwconv
//     without post-op: the constant's exact float32 items (ShaveKernel::constant) added to its bias,
//     or multiplied into its bias and weights (float32, before layout-and-types rounds them); c - y
//     as y * -1 + c; after an fp16 eltwise, or a layer with a table scale, into the table's scale
//     and bias (the erf polynomial's Horner steps `* t + c` one NCE layer each);
//   clamp after any NCE layer without post-op: its post-op (relu when the bounds are [0, inf) or
//     wider than fp16's), float bounds as the TOSA attribute gives them, integer bounds (in output
//     codes) only after an int8 (quantized) layer;
//   minimum / maximum by a scalar constant (fp16 path) after an NCE layer whose post-op is none,
//     relu or clamp: the post-op narrowed to a clamp when the bounds stay ordered;
//   rescale to int8 (int8 path) after an NCE layer writing its int32 accumulator (the PPE's scale
//     bypassed): the requantization into its table words (multiplier, shift per channel), its
//     output zero point and rounding, and the NCE writes the int8 result's tensor itself.
// An add / sub / mul by a constant that no NCE producer takes becomes an NCE 1x1 maxpool with the
// constant in its table's fp32 scale or bias (passes/scale_shift_nce.cpp), into which the rest of
// its chain then folds: a layer carrying a table scale takes a mul into it, not into its weights.
// The operand must be the whole NCE result (dense, the result's shape), read by nothing else and no
// graph output; the fused result keeps the NCE layer's tensor under the SHAVE result's name (and
// role: a graph output stays one; a requantization instead keeps the SHAVE result's tensor). Layers
// are visited in program order, so bias, scale and clamp chain (a requantization, then its
// integer clamp). The tensors left unread (the SHAVE results or int32 accumulators, constants read
// only by fused layers) are dropped and the rest renumbered in order, so the numbering is the one
// a fusion while the layers were built gave. The int8 eltwise (RESCALEs of its operands and result
// around an ADD/SUB) stays in assign-executors: without them the ADD is no NCE operation.
#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "lowering/vpu/ir.hpp"

namespace nnef::vpu::ir {

namespace vpu_fuse_post_ops_cpp {

enum class Kind { none, affine, min_max, clamp_float, clamp_int, requant };

Kind kind_of(const Module& m, const Layer& s) {
    if (s.exec != Exec::shave) return Kind::none;
    const ShaveKernel& k = s.shave;
    if (k.name == "clamp" && s.inputs.size() == 1) return k.clamp_float ? Kind::clamp_float : k.clamp_int ? Kind::clamp_int : Kind::none;
    if (k.name == "rescale" && s.inputs.size() == 1 && k.rescale) return Kind::requant;
    if (m.int8 || !k.constant || s.inputs.size() != 2 || k.constant->input < 0 || k.constant->input > 1) return Kind::none;
    if (k.name == "add" || k.name == "mul" || k.name == "sub") return Kind::affine;
    if (k.name == "minimum" || k.name == "maximum") return Kind::min_max;
    return Kind::none;
}

// The post-op bounds of an NCE layer (no bound: fp16's range).
std::pair<double, double> bounds(const NceParams& p) {
    if (p.post_op == PostOp::relu) return {0.0, 65504.0};
    if (p.post_op == PostOp::clamp) return {p.clamp_min, p.clamp_max};
    return {-65504.0, 65504.0};
}

// A float clamp [lo, hi] as an NCE post-op (relu when it is one).
void float_post_op(NceParams& p, double lo, double hi) {
    if (lo == 0.0 && hi >= 65504.0) {
        p.post_op = PostOp::relu;
        return;
    }
    p.post_op = PostOp::clamp;
    p.clamp_min = lo;
    p.clamp_max = hi;
}

// Item c of a per-tensor (one item) or per-channel vector.
std::int64_t at(const std::vector<std::int64_t>& v, std::size_t c) { return v.size() == 1 ? v[0] : v[c]; }

// An int8 NCE layer writing its int32 accumulator: the PPE's requantization bypassed (multiplier 1,
// shift 0, output zero point 0), no post-op.
bool accumulates(const Layer& p) {
    if (!p.nce.quantized || p.nce.post_op != PostOp::none || p.nce.output_zp != 0 || p.q_mult.empty() || p.q_mult.size() != p.q_shift.size())
        return false;
    for (std::size_t c = 0; c < p.q_mult.size(); ++c)
        if (p.q_mult[c] != 1 || p.q_shift[c] != 0) return false;
    return true;
}

// A SHAVE rescale the NCE's table can hold: input zero point 0, multiplier and shift per tensor or
// per channel (of C), shift in [2, 62], multiplier not negative.
bool table_rescale(const ShaveKernel::Rescale& r, std::size_t C) {
    if (r.input_zp != 0) return false;
    for (const auto* v : {&r.multiplier, &r.shift})
        if (v->size() != 1 && v->size() != C) return false;
    for (std::int64_t s : r.shift)
        if (s < 2 || s > 62) return false;
    for (std::int64_t m : r.multiplier)
        if (m < 0) return false;
    return true;
}

// Folds SHAVE layer `s` into NCE layer `p` (fusible_post_op said it can).
void fold(const Module& m, const Layer& s, Layer& p) {
    const ShaveKernel& k = s.shave;
    switch (kind_of(m, s)) {
        case Kind::clamp_float: float_post_op(p.nce, (*k.clamp_float)[0], (*k.clamp_float)[1]); return;
        case Kind::clamp_int:
            p.nce.post_op = PostOp::clamp;
            p.nce.clamp_min = double((*k.clamp_int)[0]);
            p.nce.clamp_max = double((*k.clamp_int)[1]);
            return;
        case Kind::min_max: {
            auto [lo, hi] = bounds(p.nce);
            const double c = double(k.constant->items[0]);
            if (k.name == "minimum") hi = std::min(hi, c);
            else lo = std::max(lo, c);
            float_post_op(p.nce, lo, hi);
            return;
        }
        case Kind::affine: {
            const std::int64_t C = s.output.shape.back();
            if (p.bias.empty()) p.bias.assign(std::size_t(C), 0.0f);
            // an eltwise has no weights: its table's scale takes the product
            if (p.nce_op == NceOp::eltwise && p.scale.empty()) p.scale.assign(std::size_t(C), 1.0f);
            const std::int64_t per = std::int64_t(p.weights_f32.size()) / C;
            const std::vector<float>& items = k.constant->items;
            const auto times = [&](std::int64_t ch, float x) {
                p.bias[std::size_t(ch)] *= x;
                if (!p.scale.empty()) p.scale[std::size_t(ch)] *= x;
                else
                    for (std::int64_t i = 0; i < per; ++i) p.weights_f32[std::size_t(ch * per + i)] *= x;
            };
            for (std::int64_t ch = 0; ch < C; ++ch) {
                const float x = items.size() == 1 ? items[0] : items[std::size_t(ch)];
                if (k.name == "add") {
                    p.bias[std::size_t(ch)] += x;
                } else if (k.name == "sub" && k.constant->input == 1) {
                    p.bias[std::size_t(ch)] -= x;
                } else if (k.name == "sub") {  // c - y = -y + c (negation is exact)
                    times(ch, -1.0f);
                    p.bias[std::size_t(ch)] += x;
                } else {
                    times(ch, x);
                }
            }
            return;
        }
        case Kind::requant: {
            // the requantization into the table, the int8 result written by the NCE itself
            const ShaveKernel::Rescale& r = *k.rescale;
            for (std::size_t c = 0; c < p.q_mult.size(); ++c) {
                p.q_mult[c] = at(r.multiplier, c);
                p.q_shift[c] = at(r.shift, c);
            }
            p.nce.output_zp = r.output_zp;
            p.nce.double_round = r.double_round;
            p.output = s.output;
            return;
        }
        case Kind::none: return;
    }
}

}  // namespace vpu_fuse_post_ops_cpp

TensorUses tensor_uses(const Module& m) {
    TensorUses u;
    const std::size_t n = m.tensors.size();
    u.readers.assign(n, 0);
    u.writers.assign(n, 0);
    u.writer.assign(n, -1);
    const auto in = [n](int t) { return t >= 0 && std::size_t(t) < n; };
    for (std::size_t i = 0; i < m.layers.size(); ++i) {
        const Layer& l = m.layers[i];
        for (const View& v : l.inputs)
            if (in(v.tensor)) ++u.readers[std::size_t(v.tensor)];
        for (int t : {l.weights, l.table})
            if (in(t)) ++u.readers[std::size_t(t)];
        if (in(l.output.tensor)) {
            ++u.writers[std::size_t(l.output.tensor)];
            u.writer[std::size_t(l.output.tensor)] = int(i);
        }
    }
    for (int t : m.output_tensors)
        if (in(t)) ++u.readers[std::size_t(t)];
    return u;
}

int fusible_post_op(const Module& m, std::size_t i, const TensorUses& uses) {
    using namespace vpu_fuse_post_ops_cpp;
    const Layer& s = m.layers[i];
    const Kind kind = kind_of(m, s);
    if (kind == Kind::none || s.output.shape.empty()) return -1;
    const std::size_t xi = kind == Kind::affine || kind == Kind::min_max ? std::size_t(1 - s.shave.constant->input) : 0;
    const View& x = s.inputs[xi];
    const std::size_t n = m.tensors.size();
    if (x.tensor < 0 || std::size_t(x.tensor) >= n || s.output.tensor < 0 || std::size_t(s.output.tensor) >= n || x.tensor == s.output.tensor)
        return -1;
    const std::size_t tx = std::size_t(x.tensor), ty = std::size_t(s.output.tensor);
    if (uses.readers[tx] != 1 || uses.writers[tx] != 1 || uses.writers[ty] != 1) return -1;
    const int p = uses.writer[tx];
    if (p < 0 || std::size_t(p) >= i) return -1;
    const Layer& P = m.layers[std::size_t(p)];
    if (P.exec != Exec::nce) return -1;
    // the operand is the NCE layer's whole result, the SHAVE result a tensor of its own alike
    const Tensor &X = m.tensors[tx], &Y = m.tensors[ty];
    const std::int64_t es = element_size(X.dtype), es_y = element_size(Y.dtype);
    if (X.role != Role::activation || x.offset != 0 || !x.dense(es) || x.elements() * es != X.bytes || x.shape != s.output.shape) return -1;
    if (s.output.offset != 0 || !s.output.dense(es_y) || s.output.elements() * es_y != Y.bytes) return -1;
    // a post-op keeps the type; a requantization takes the int32 accumulator to int8
    if (kind == Kind::requant ? X.dtype != DataType::int32 || Y.dtype != DataType::int8 : Y.dtype != X.dtype) return -1;
    switch (kind) {
        case Kind::clamp_float: return P.nce.post_op == PostOp::none ? p : -1;
        case Kind::clamp_int: return P.nce.post_op == PostOp::none && P.nce.quantized ? p : -1;
        case Kind::min_max: {
            const auto& items = s.shave.constant->items;
            if (items.size() != 1) return -1;
            if (P.nce.post_op != PostOp::none && P.nce.post_op != PostOp::relu && P.nce.post_op != PostOp::clamp) return -1;
            auto [lo, hi] = bounds(P.nce);
            if (s.shave.name == "minimum") hi = std::min(hi, double(items[0]));
            else lo = std::max(lo, double(items[0]));
            return lo <= hi ? p : -1;
        }
        case Kind::affine: {
            // weights to scale, or a table scale of its own (scale_shift_nce.cpp), or an fp16
            // eltwise (its table's scale, 1.0 until then: the post-processing is the same)
            const bool table_scale = !P.scale.empty() || (P.nce_op == NceOp::eltwise && !P.nce.quantized && !m.int8);
            if (!(table_scale || (has_weights(P.nce_op) && !P.weights_f32.empty())) || P.nce.post_op != PostOp::none) return -1;
            const std::int64_t C = s.output.shape.back();
            if (!per_channel_constant(s, C) || C <= 0 || P.output.shape.empty() || P.output.shape.back() != C) return -1;
            if (std::int64_t(P.weights_f32.size()) % C != 0 || (!P.bias.empty() && std::int64_t(P.bias.size()) != C)) return -1;
            if (!P.scale.empty() && std::int64_t(P.scale.size()) != C) return -1;
            return p;
        }
        case Kind::requant:
            if (!accumulates(P) || P.output.tensor != int(tx) || P.output.shape != s.output.shape ||
                P.q_mult.size() != std::size_t(s.output.shape.back()) || !table_rescale(*s.shave.rescale, P.q_mult.size()))
                return -1;
            return p;
        case Kind::none: break;
    }
    return -1;
}

bool fuse_post_ops(Module& m, Diagnostics&) {
    using namespace vpu_fuse_post_ops_cpp;
    TensorUses uses = tensor_uses(m);
    // per tensor: the layers' inputs reading it (layer, input), to move them to the NCE's tensor
    std::vector<std::vector<std::pair<std::size_t, std::size_t>>> reads(m.tensors.size());
    for (std::size_t i = 0; i < m.layers.size(); ++i)
        for (std::size_t k = 0; k < m.layers[i].inputs.size(); ++k) {
            const int t = m.layers[i].inputs[k].tensor;
            if (t >= 0 && std::size_t(t) < m.tensors.size()) reads[std::size_t(t)].emplace_back(i, k);
        }
    std::vector<bool> dead_layer(m.layers.size(), false), dead_tensor(m.tensors.size(), false);
    for (std::size_t i = 0; i < m.layers.size(); ++i) {
        const int p = fusible_post_op(m, i, uses);
        if (p < 0) {
            if (!scale_shift_to_nce(m, i, uses)) continue;
            // an NCE layer of its own: its constant into the table, the rest of its chain folded into it
            const Layer& s = m.layers[i];
            const std::size_t tc = std::size_t(s.inputs[std::size_t(s.shave.constant->input)].tensor);
            make_scale_shift_nce(m, i);
            // its one input, the activation, is input 0 now
            const std::size_t tx = std::size_t(m.layers[i].inputs[0].tensor);
            for (auto& [j, k] : reads[tx])
                if (j == i) k = 0;
            if (tc >= m.tensors.size()) continue;
            reads[tc].erase(std::remove_if(reads[tc].begin(), reads[tc].end(), [i](const auto& r) { return r.first == i; }), reads[tc].end());
            if (--uses.readers[tc] == 0 && uses.writers[tc] == 0 && m.tensors[tc].role == Role::constant) dead_tensor[tc] = true;
            continue;
        }
        const Layer& s = m.layers[i];
        Layer& P = m.layers[std::size_t(p)];
        const std::size_t tx = std::size_t(P.output.tensor), ty = std::size_t(s.output.tensor);
        if (kind_of(m, s) == Kind::requant) {
            // the NCE writes the SHAVE result's tensor; its accumulator is no more
            fold(m, s, P);
            uses.writer[ty] = p;
            uses.readers[tx] = uses.writers[tx] = 0;
            dead_tensor[tx] = true;
            dead_layer[i] = true;
            continue;
        }
        fold(m, s, P);
        // the NCE's tensor is the fused result: the SHAVE result's name, role and readers
        m.tensors[tx].name = m.tensors[ty].name;
        m.tensors[tx].role = m.tensors[ty].role;
        for (const auto& [j, k] : reads[ty]) m.layers[j].inputs[k].tensor = int(tx);
        reads[tx] = std::move(reads[ty]);
        reads[ty].clear();
        for (int& t : m.output_tensors)
            if (t == int(ty)) t = int(tx);
        for (IoEntry& e : m.outputs)
            if (e.buffer == std::to_string(ty)) e.buffer = std::to_string(tx);
        uses.readers[tx] = uses.readers[ty];
        uses.readers[ty] = uses.writers[ty] = 0;
        dead_tensor[ty] = true;
        // the constant, when only fused layers read it
        for (const View& v : s.inputs) {
            const std::size_t t = std::size_t(v.tensor);
            if (t == tx || t >= m.tensors.size()) continue;
            --uses.readers[t];
            if (uses.readers[t] == 0 && uses.writers[t] == 0 && m.tensors[t].role == Role::constant) dead_tensor[t] = true;
        }
        dead_layer[i] = true;
        uses.writers[tx] = 1;
    }
    // drop what is dead, renumbering the tensors in order
    std::vector<Layer> layers;
    for (std::size_t i = 0; i < m.layers.size(); ++i)
        if (!dead_layer[i]) layers.push_back(std::move(m.layers[i]));
    m.layers = std::move(layers);
    std::vector<int> index(m.tensors.size(), -1);
    std::vector<Tensor> tensors;
    for (std::size_t t = 0; t < m.tensors.size(); ++t)
        if (!dead_tensor[t]) {
            index[t] = int(tensors.size());
            tensors.push_back(std::move(m.tensors[t]));
        }
    m.tensors = std::move(tensors);
    const auto renumber = [&](int& t) {
        if (t >= 0 && std::size_t(t) < index.size()) t = index[std::size_t(t)];
    };
    for (Layer& l : m.layers) {
        for (View& v : l.inputs) renumber(v.tensor);
        renumber(l.output.tensor);
        renumber(l.weights);
        renumber(l.table);
    }
    for (auto* list : {&m.inputs, &m.outputs})
        for (IoEntry& e : *list)
            for (std::size_t t = 0; t < index.size(); ++t)
                if (index[t] >= 0 && e.buffer == std::to_string(t)) {
                    e.buffer = std::to_string(index[t]);
                    break;
                }
    for (auto* list : {&m.input_tensors, &m.output_tensors})
        for (int& t : *list) renumber(t);
    return true;
}

}  // namespace nnef::vpu::ir
