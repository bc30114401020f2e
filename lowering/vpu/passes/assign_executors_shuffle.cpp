// assign-executors (assign_executors.hpp): channel shuffles. The ONNX form of a channel shuffle on
// NCHW data (ShuffleNet: RESHAPE [N,C,H,W] -> [N,g,C/g,H,W], TRANSPOSE [0,2,1,3,4], RESHAPE back
// to [N,C,H,W]) is a permutation of channels: channel i*g + j of the result is channel
// j*(C/g) + i of the operand. Taken operator by operator it is two copies through NCHW tensors
// (the reshapes of strided views), which are not boxes of an NHWC result, so the scheduler could
// not keep them in CMX. Here the chain (with the CONCAT that feeds it, when the CONCAT has no other
// reader) becomes copies straight into one NHWC tensor: each operand's channels of group j go to
// channels j, j + g, j + 2g, ... of the result (a box whose channel stride is g elements), one
// copy per (operand, group). A concat followed by a shuffle costs the concat's copies alone, and
// the readers of the result (the channel split's slices) read boxes of an NHWC tensor; the
// scheduler keeps it in CMX (schedule_permuted.cpp). The bytes moved are the same values: copies
// do not convert, so results are bit for bit those of the operator-by-operator form.
#include "lowering/vpu/passes/assign_executors.hpp"

namespace nnef::vpu::ir::assign_executors_impl {

// The one operator of the main block reading `v` (nothing else reading it, not a graph output).
const tosa::Op* Builder::only_user(ValueId v, std::size_t& index) const {
    if (uses[v] != 1 || users[v].size() != 1) return nullptr;
    index = users[v][0];
    return &g.main().ops[index];
}

bool Builder::channel_shuffle(const tosa::Op& op) {
    // the start: a CONCAT of channels (NCHW axis 1; or NHWC axis 3, then its TRANSPOSE to NCHW),
    // or the shuffle's first RESHAPE itself
    std::vector<std::size_t> chain;  // the operators this replaces, after `op`
    ValueId x = op.outputs[0];       // the NCHW value the shuffle permutes
    bool nhwc_concat = false;
    std::size_t k = 0;
    if (op.kind == OpKind::CONCAT) {
        const auto axis = op.get<std::int64_t>(AttrName::axis);
        if (g.type(x).shape.size() != 4) return false;
        if (axis == 3) {
            const tosa::Op* tr = only_user(x, k);
            if (!tr || tr->kind != OpKind::TRANSPOSE || tr->get<std::vector<std::int64_t>>(AttrName::perms) != std::vector<std::int64_t>{0, 3, 1, 2})
                return false;
            chain.push_back(k);
            x = tr->outputs[0];
            nhwc_concat = true;
        } else if (axis != 1) {
            return false;
        }
    } else if (op.kind == OpKind::RESHAPE) {
        x = op.inputs[0];
    } else {
        return false;
    }
    const auto& xs = g.type(x).shape;  // [N, C, H, W]
    if (xs.size() != 4) return false;
    const tosa::Op* r1 = &op;
    if (op.kind == OpKind::CONCAT) {
        r1 = only_user(x, k);
        if (!r1) return false;
        chain.push_back(k);
    }
    if (r1->kind != OpKind::RESHAPE) return false;
    const auto& s5 = g.type(r1->outputs[0]).shape;
    if (s5.size() != 5 || s5[0] != xs[0] || s5[3] != xs[2] || s5[4] != xs[3] || s5[1] < 2 || s5[1] * s5[2] != xs[1]) return false;
    const tosa::Op* tr = only_user(r1->outputs[0], k);
    if (!tr || tr->kind != OpKind::TRANSPOSE || tr->get<std::vector<std::int64_t>>(AttrName::perms) != std::vector<std::int64_t>{0, 2, 1, 3, 4})
        return false;
    chain.push_back(k);
    const tosa::Op* r2 = only_user(tr->outputs[0], k);
    if (!r2 || r2->kind != OpKind::RESHAPE || g.type(r2->outputs[0]).shape != xs) return false;
    chain.push_back(k);
    const std::int64_t N = xs[0], C = xs[1], H = xs[2], W = xs[3], G = s5[1], per = s5[2];
    // the operands as NCHW views of their channels [at, at + n) of x
    struct Part {
        View v;  // [N, n, H, W]
        std::int64_t at;
    };
    std::vector<Part> parts;
    if (op.kind == OpKind::CONCAT) {
        std::int64_t at = 0;
        for (ValueId v : op.inputs) {
            auto iv = view_of(v);
            if (!iv || iv->shape.size() != 4) return false;
            View nchw = *iv;
            if (nhwc_concat) {  // [N,H,W,c] -> [N,c,H,W]
                nchw.shape = {iv->shape[0], iv->shape[3], iv->shape[1], iv->shape[2]};
                nchw.strides = {iv->strides[0], iv->strides[3], iv->strides[1], iv->strides[2]};
            }
            parts.push_back({nchw, at});
            at += nchw.shape[1];
        }
    } else {
        auto iv = view_of(op.inputs[0]);
        if (!iv || iv->shape.size() != 4) return false;
        parts.push_back({*iv, 0});
    }
    // the result: NHWC storage, seen as NCHW
    const ValueId y = r2->outputs[0];
    const DataType dt = value_type(y);
    const std::int64_t e = element_size(dt);
    const int t = add_tensor(g.value(y).name, N * C * H * W, Role::activation, dt);
    const std::vector<std::int64_t> nhwc = dense_strides({N, H, W, C}, e);
    for (const Part& p : parts) {
        // the operand's channels in runs within one group j: channel c = j * per + i goes to i * G + j
        for (std::int64_t c = p.at; c < p.at + p.v.shape[1];) {
            const std::int64_t j = c / per, i = c % per;
            const std::int64_t n = std::min(p.at + p.v.shape[1], (j + 1) * per) - c;
            Layer l;
            l.exec = Exec::copy;
            View in = p.v;
            in.offset += (c - p.at) * p.v.strides[1];
            in.shape = {N, H, W, n};
            in.strides = {p.v.strides[0], p.v.strides[2], p.v.strides[3], p.v.strides[1]};
            l.inputs = {in};
            l.output.tensor = t;
            l.output.offset = (i * G + j) * e;
            l.output.shape = {N, H, W, n};
            l.output.strides = {nhwc[0], nhwc[1], nhwc[2], G * e};
            l.source = source_of(op);
            l.origin = op.origin;
            m.layers.push_back(std::move(l));
            c += n;
        }
    }
    View out;
    out.tensor = t;
    out.shape = xs;
    out.strides = {nhwc[0], nhwc[3], nhwc[1], nhwc[2]};
    views[y] = out;
    for (std::size_t c : chain) done[c] = true;
    return true;
}

}  // namespace nnef::vpu::ir::assign_executors_impl
