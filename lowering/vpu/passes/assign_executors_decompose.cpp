// assign-executors (assign_executors.hpp): convolutions the NCE cannot take in one layer, as partial
// convolutions that it can, summed by NCE eltwise adds: many input channels (split_k) and kernels
// or strides beyond the NCE's (large_conv).
#include "lowering/vpu/passes/assign_executors.hpp"

namespace nnef::vpu::ir::assign_executors_impl {

std::int64_t Builder::chunk_channels(std::int64_t kh, std::int64_t kw) const {
    const std::int64_t align = m.target.nce_channel_alignment;
    return std::max<std::int64_t>(align, tile_budget(m.target) / 4 / (align * kh * kw * 2) / align * align);
}

void Builder::channel_chunks(Layer l, std::int64_t ki, std::vector<Layer>& parts) {
    const std::int64_t O = l.weights_shape[0], KH = l.weights_shape[1], KW = l.weights_shape[2], I = l.weights_shape[3];
    if (I <= ki) {
        parts.push_back(std::move(l));
        return;
    }
    const std::vector<float> all = std::move(l.weights_f32);
    l.weights_f32.clear();
    for (std::int64_t k0 = 0; k0 < I; k0 += ki) {
        const std::int64_t kn = std::min(ki, I - k0);
        Layer part = l;
        part.inputs[0].offset += k0 * part.inputs[0].strides[3];
        part.inputs[0].shape[3] = kn;
        part.weights_shape = {O, KH, KW, kn};
        part.weights_f32.reserve(std::size_t(O * KH * KW * kn));
        for (std::int64_t o = 0; o < O * KH * KW; ++o) {
            const float* row = all.data() + o * I + k0;
            part.weights_f32.insert(part.weights_f32.end(), row, row + kn);
        }
        parts.push_back(std::move(part));
    }
}

bool Builder::sum_parts(std::vector<Layer> parts, ValueId y, const std::vector<std::int64_t>& ys, std::size_t lanes) {
    const std::string name = g.value(y).name;
    const std::int64_t volume = g.type(y).volume();
    if (parts.size() == 1) {
        Layer l = std::move(parts[0]);
        l.output = dense_view(add_tensor(name, volume, Role::activation), ys);
        const View yv = dense_view(l.output.tensor, g.type(y).shape);
        add_layer(std::move(l), y, yv);
        return true;
    }
    const std::string source = parts[0].source;
    const std::uint32_t origin = parts[0].origin;
    const std::size_t O = std::size_t(parts[0].weights_shape[0]);
    lanes = std::max<std::size_t>(1, std::min(lanes, parts.size()));
    std::size_t sums = 0;  // the adds made so far (the last one writes y)
    auto add = [&](const View& a, const View& b) {
        Layer l;
        l.exec = Exec::nce;
        l.nce_op = NceOp::eltwise;
        l.nce.eltwise = "add";
        l.inputs = {a, b};
        l.source = source;
        l.origin = origin;
        const bool last = ++sums + 1 == parts.size();
        l.output = dense_view(add_tensor(last ? name : name + ".sum" + std::to_string(sums), volume, Role::activation), ys);
        const View out = l.output;
        m.layers.push_back(std::move(l));
        return out;
    };
    // part j is added into lane j % lanes (each lane a chain of adds), then the lanes are added up
    std::vector<View> acc(lanes);
    for (std::size_t j = 0; j < parts.size(); ++j) {
        Layer part = std::move(parts[j]);
        if (j > 0) part.bias.assign(O, 0.0f);
        part.source = source + ".k" + std::to_string(j);
        part.output = dense_view(add_tensor(name + ".k" + std::to_string(j), volume, Role::activation), ys);
        const View pv = part.output;
        m.layers.push_back(std::move(part));
        acc[j % lanes] = j < lanes ? pv : add(acc[j % lanes], pv);
    }
    View total = acc[0];
    for (std::size_t k = 1; k < lanes; ++k) total = add(total, acc[k]);
    views[y] = dense_view(total.tensor, g.type(y).shape);
    producer_layer[y] = int(m.layers.size()) - 1;
    return true;
}

bool Builder::beyond_nce_limits(const tosa::Op& op, std::int64_t kh, std::int64_t kw) const {
    const auto& stride = op.get<std::vector<std::int64_t>>(AttrName::stride);
    const Target& t = m.target;
    return kh > t.nce_max_kernel || kw > t.nce_max_kernel || stride[0] > t.nce_max_stride || stride[1] > t.nce_max_stride;
}

bool Builder::large_conv(const tosa::Op& op, const FConst& w, const FConst& b, const View& x) {
    Layer base;
    base.bias.assign(std::size_t(w.shape[0]), 0.0f);
    for (std::int64_t c = 0; c < w.shape[0]; ++c) base.bias[std::size_t(c)] = b.items.size() == 1 ? b.items[0] : b.items[std::size_t(c)];
    std::vector<Layer> parts;
    if (!large_conv_parts(op, w, x, std::move(base), parts)) return false;
    return sum_parts(std::move(parts), op.outputs[0], g.type(op.outputs[0]).shape);
}

bool Builder::large_conv_parts(const tosa::Op& op, const FConst& w, const View& x, Layer base, std::vector<Layer>& parts) {
    const auto& pad = op.get<std::vector<std::int64_t>>(AttrName::pad);
    const auto& stride = op.get<std::vector<std::int64_t>>(AttrName::stride);
    const auto& dil = op.get<std::vector<std::int64_t>>(AttrName::dilation);
    const Target& t = m.target;
    const std::int64_t O = w.shape[0], KH = w.shape[1], KW = w.shape[2], I = w.shape[3], SH = stride[0], SW = stride[1];
    const std::string what = "kernel " + std::to_string(KH) + "x" + std::to_string(KW) + " stride " + std::to_string(SH) + "x" +
                             std::to_string(SW) + " exceeds the NCE's (kernel " + std::to_string(t.nce_max_kernel) + ", stride " +
                             std::to_string(t.nce_max_stride) + ")";
    if (dil[0] != 1 || dil[1] != 1) return fail(op, what + " and is dilated: only undilated, unpadded convolutions decompose");
    for (std::int64_t p : pad)
        if (p != 0) return fail(op, what + " and is padded: only undilated, unpadded convolutions decompose");
    const ValueId y = op.outputs[0];
    const std::vector<std::int64_t> ys = g.type(y).shape;
    if (ys[0] != 1 || x.shape[0] != 1) return fail(op, what + " on a batch of " + std::to_string(ys[0]) + " (the NCE takes one image)");
    const std::int64_t OH = ys[1], OW = ys[2];
    // the row's patches side by side without overlap or gap: their KW x I items are the channels
    // of a 1x1 convolution when they lie at one stride (a copy makes them so: the NCHW input of a
    // transformer, seen through the legalization's TRANSPOSE, has its channels H x W apart)
    const bool patches = SW == KW;
    if (!patches && (KW > t.nce_max_kernel || SW > t.nce_max_stride))
        return fail(op, what + ": its columns do not decompose (only a stride over columns equal to the kernel's width, or "
                               "both within the NCE's, does)");
    const View xv = patches && x.strides[2] != I * x.strides[3]
                        ? materialize(x, g.value(op.inputs[0]).name + ".nhwc", Role::activation, source_of(op))
                        : x;
    base.exec = Exec::nce;
    base.nce_op = NceOp::conv;
    base.nce.dilation = {1, 1};
    base.nce.pad = {0, 0, 0, 0};
    base.source = source_of(op);
    base.origin = op.origin;
    for (std::int64_t kh = 0; kh < KH; ++kh) {
        Layer p = base;
        View v = xv;
        v.offset += kh * xv.strides[1];
        v.strides[1] = SH * xv.strides[1];
        // the part's weights w[o, kh, kw, i], as [O, 1, KW, I] or (patches) [O, 1, 1, KW * I]
        std::vector<float> wk(std::size_t(O * KW * I));
        for (std::int64_t o = 0; o < O; ++o)
            for (std::int64_t j = 0; j < KW * I; ++j) wk[std::size_t(o * KW * I + j)] = w.items[std::size_t((o * KH + kh) * KW * I + j)];
        p.weights_f32 = std::move(wk);
        if (patches) {
            v.shape = {1, OH, OW, KW * I};
            v.strides[2] = KW * xv.strides[2];
            p.weights_shape = {O, 1, 1, KW * I};
            p.nce.kernel = {1, 1};
            p.nce.stride = {1, 1};
        } else {
            v.shape = {1, OH, x.shape[2], I};
            p.weights_shape = {O, 1, KW, I};
            p.nce.kernel = {1, KW};
            p.nce.stride = {1, SW};
        }
        p.inputs = {v};
        const std::int64_t ki = chunk_channels(1, p.weights_shape[2]);
        channel_chunks(std::move(p), ki, parts);
    }
    return true;
}

}  // namespace nnef::vpu::ir::assign_executors_impl
