// How SHAVE kernels and copies split into tiles (shave_parts.hpp): plain splits, and window splits
// with halos and per-tile padding for PAD and the TOSA convolution and pooling kernels.
#include "lowering/vpu/passes/shave_parts.hpp"

#include <algorithm>
#include <string>
#include <utility>

#include "lowering/vpu/simulator.hpp"

namespace nnef::vpu::ir {

namespace shave_parts_impl {

const std::vector<std::int64_t>* shape_constant(const ShaveKernel& k, const char* name) {
    for (const auto& [n, v] : k.shape_constants)
        if (n == name) return &v;
    return nullptr;
}

const std::vector<std::int64_t>* int_list(const ShaveKernel& k, tosa::AttrName name) {
    for (const auto& [n, v] : k.attributes)
        if (n == name) return std::get_if<std::vector<std::int64_t>>(&v);
    return nullptr;
}

// The reduced or permuted axis of a kernel: the native kernels' `axis`, or the TOSA kernel's
// attribute of that name.
std::optional<std::int64_t> axis_of(const ShaveKernel& k) {
    if (k.axis) return k.axis;
    for (const auto& [n, v] : k.attributes)
        if (n == tosa::AttrName::axis)
            if (const auto* a = std::get_if<std::int64_t>(&v)) return *a;
    return std::nullopt;
}

bool is_window_kernel(const std::string& name) {
    return name == "conv2d" || name == "depthwise_conv2d" || name == "avg_pool2d" || name == "max_pool2d";
}

View slice(View v, std::size_t dim, std::int64_t from, std::int64_t n) {
    v.offset += from * v.strides[dim];
    v.shape[dim] = n;
    return v;
}

// The input range [a, b) that output indices [o0, o1) of a window (stride s, dilation dil,
// kernel k, padding before `lo`) read within an input of extent `h`, and the padding the part
// needs before and after it.
struct Window {
    std::int64_t a, b, before, after;
};
Window window(std::int64_t o0, std::int64_t o1, std::int64_t s, std::int64_t dil, std::int64_t k, std::int64_t lo, std::int64_t h) {
    const std::int64_t start = o0 * s - lo, end = (o1 - 1) * s - lo + (k - 1) * dil + 1;
    const std::int64_t a = std::clamp<std::int64_t>(start, 0, h), b = std::clamp<std::int64_t>(end, 0, h);
    return {a, b, a - start, end - b};
}

}  // namespace shave_parts_impl

std::vector<SplitUse> split_uses(const Layer& l, int dim) {
    using namespace shave_parts_impl;
    const auto& os = l.output.shape;
    if (dim < 0 || std::size_t(dim) >= os.size()) return {};
    const std::size_t d = std::size_t(dim);
    std::vector<SplitUse> uses(l.inputs.size(), SplitUse::sliced);
    if (l.exec == Exec::shave) {
        const ShaveKernel& k = l.shave;
        if (axis_of(k) == std::optional<std::int64_t>(dim)) return {};
        if (k.name == "matmul" && dim != 0) {
            // TOSA MATMUL: A [N, H, C] x B [N, C, W] -> [N, H, W]; rows (H) slice A and read B whole,
            // columns (W) slice B and read A whole; operands of one element (zero points) whole
            if (os.size() != 3 || l.inputs.size() < 2 || l.inputs[0].shape.size() != 3 || l.inputs[1].shape.size() != 3) return {};
            const std::size_t own = d == 1 ? 0 : 1;  // the operand that has this output dimension
            if (l.inputs[own].shape[d] != os[d]) return {};
            uses.assign(l.inputs.size(), SplitUse::whole);
            uses[own] = SplitUse::sliced;
            for (std::size_t i = 2; i < l.inputs.size(); ++i)
                if (l.inputs[i].elements() != 1) return {};
            return uses;
        }
        // permuting, gathering or repeating kernels: their output indices are not their input's
        if (k.name == "gather") {
            // TOSA GATHER: values [N, K, C], indices [N, W] -> [N, W, C]; the batch splits both,
            // W the indices (every value row may be read), C the values (every index is needed)
            if (os.size() != 3 || l.inputs.size() != 2) return {};
            if (d == 0) return {SplitUse::sliced, SplitUse::sliced};
            return d == 1 ? std::vector<SplitUse>{SplitUse::whole, SplitUse::sliced} : std::vector<SplitUse>{SplitUse::sliced, SplitUse::whole};
        }
        if (k.name == "table") {
            // TABLE: element-wise through a lookup table that every part reads whole
            if (l.inputs.size() != 2 || l.inputs[0].shape != os) return {};
            return {SplitUse::sliced, SplitUse::whole};
        }
        if (k.name == "transpose" || k.name == "tile" || k.name == "scatter" || k.name == "fft2d" ||
            k.name == "rfft2d" || k.name == "argmax" || k.name == "slice" || k.name == "reshape")
            return {};
        if (k.name == "resize" && dim != 0 && dim != 3) return {};
        // a per-channel rescale indexes its multipliers by the last dimension
        if (k.rescale && k.rescale->multiplier.size() > 1 && d + 1 == os.size()) return {};
        if (k.name == "pad") {
            const auto* pad = shape_constant(k, "padding");
            if (!pad || pad->size() != 2 * os.size() || l.inputs.empty() || l.inputs[0].shape.size() != os.size()) return {};
            uses[0] = (*pad)[2 * d] != 0 || (*pad)[2 * d + 1] != 0 ? SplitUse::window : SplitUse::sliced;
            for (std::size_t i = 1; i < l.inputs.size(); ++i) {
                if (l.inputs[i].elements() != 1) return {};
                uses[i] = SplitUse::whole;
            }
            return uses;
        }
        if (is_window_kernel(k.name)) {
            if (os.size() != 4 || l.inputs.empty() || l.inputs[0].shape.size() != 4) return {};
            const bool pool = k.name == "avg_pool2d" || k.name == "max_pool2d";
            if (d == 3 && !pool) return {};  // output channels of a convolution: the weights would split too
            uses[0] = d == 1 || d == 2 ? SplitUse::window : SplitUse::sliced;
            for (std::size_t i = 1; i < l.inputs.size(); ++i) uses[i] = SplitUse::whole;  // weights, bias, zero points
            return uses;
        }
    }
    for (std::size_t i = 0; i < l.inputs.size(); ++i) {
        const View& v = l.inputs[i];
        if (v.shape.size() == os.size() && v.shape[d] == os[d]) uses[i] = SplitUse::sliced;
        else if ((v.shape.size() == os.size() && v.shape[d] == 1) || v.elements() == 1) uses[i] = SplitUse::whole;
        else return {};
    }
    return uses;
}

ShavePart shave_part(const Module& m, const Layer& l, const Tile& tl) {
    using namespace shave_parts_impl;
    (void)m;
    ShavePart p{l.inputs, l.output, l.shave};
    if (tl.split_dim < 0) return p;
    const std::size_t d = std::size_t(tl.split_dim);
    const std::vector<SplitUse> uses = split_uses(l, tl.split_dim);
    p.output = slice(l.output, d, tl.row0, tl.rows);
    for (std::size_t i = 0; i < l.inputs.size() && i < uses.size(); ++i) {
        const View& in = l.inputs[i];
        if (uses[i] == SplitUse::sliced) {
            p.inputs[i] = slice(in, d, tl.row0, tl.rows);
        } else if (uses[i] == SplitUse::window) {
            const std::int64_t h = in.shape[d];
            if (l.shave.name == "pad") {
                const std::int64_t lo = (*shape_constant(l.shave, "padding"))[2 * d];
                const Window w = window(tl.row0, tl.row0 + tl.rows, 1, 1, 1, lo, h);
                p.inputs[i] = slice(in, d, w.a, w.b - w.a);
                for (auto& [n, v] : p.kernel.shape_constants)
                    if (n == "padding") {
                        v[2 * d] = w.before;
                        v[2 * d + 1] = w.after;
                    }
                continue;
            }
            // conv2d, depthwise_conv2d, avg_pool2d, max_pool2d: NHWC, window over H (d = 1) or W (d = 2)
            const std::size_t j = d - 1;
            const auto* pad = int_list(l.shave, tosa::AttrName::pad);
            const auto* stride = int_list(l.shave, tosa::AttrName::stride);
            const auto* dilation = int_list(l.shave, tosa::AttrName::dilation);
            std::int64_t k = 1;
            if (const auto* kernel = int_list(l.shave, tosa::AttrName::kernel)) k = (*kernel)[j];
            else if (l.shave.name == "conv2d") k = l.inputs[1].shape[d];        // weights [O, KH, KW, I]
            else k = l.inputs[1].shape[j];                                      // depthwise weights [KH, KW, C, M]
            const Window w = window(tl.row0, tl.row0 + tl.rows, stride ? (*stride)[j] : 1, dilation ? (*dilation)[j] : 1, k,
                                    pad ? (*pad)[2 * j] : 0, h);
            p.inputs[i] = slice(in, d, w.a, w.b - w.a);
            for (auto& [n, v] : p.kernel.attributes)
                if (n == tosa::AttrName::pad)
                    if (auto* pv = std::get_if<std::vector<std::int64_t>>(&v)) {
                        (*pv)[2 * j] = w.before;
                        (*pv)[2 * j + 1] = w.after;
                    }
        }
    }
    return p;
}

std::int64_t shave_parts_wanted(const Module& m, const Layer& l) {
    const Target& t = m.target;
    if (l.exec != Exec::shave) return 1;
    const std::int64_t work = shave_cycles(t, l.shave.name, l.output.elements()) - t.shave_overhead_cycles;
    const std::int64_t engines = t.clusters * t.shave_per_cluster;
    return std::clamp<std::int64_t>(work / std::max<std::int64_t>(1, 4 * t.shave_overhead_cycles), 1, engines);
}

std::optional<std::int64_t> whole_on_cluster(const Module& m, std::size_t li) {
    const Layer& l = m.layers[li];
    for (const View& in : l.inputs)
        for (std::size_t j = li; j-- > 0;) {
            if (m.layers[j].output.tensor != in.tensor) continue;
            std::optional<std::int64_t> c;
            for (const Tile& tl : m.tiles) {
                if (tl.layer != std::int64_t(j)) continue;
                if (c && *c != tl.cluster) return std::nullopt;
                c = tl.cluster;
            }
            return c;
        }
    return std::nullopt;
}

bool tile_shave(Module& m, std::size_t li, std::int64_t budget, Diagnostics& diags, std::int64_t& rows_io) {
    const Layer& l = m.layers[li];
    const Target& t = m.target;
    const std::int64_t prev_rows = rows_io;
    rows_io = 0;
    auto es = [&](const View& v) { return element_size(m.tensors[std::size_t(v.tensor)].dtype); };
    auto bytes_of = [&](const std::vector<View>& inputs, const View& output) {
        std::int64_t b = output.elements() * es(output);
        for (const View& v : inputs) b += v.elements() * es(v);
        return b;
    };
    const std::int64_t bytes = bytes_of(l.inputs, l.output);
    const std::int64_t want = shave_parts_wanted(m, l);
    Tile tl;
    tl.layer = std::int64_t(li);
    tl.cluster = std::int64_t(li) % t.clusters;
    // (a short kernel reading the result of a layer split over rows across the clusters takes that
    // split below, so that each part reads its rows where they were computed: ConvNeXt's layer
    // norms summed the 7x7 dwconv's rows of both clusters on one, gathered by copies, and their
    // NCE layers after it copied the sums back: 11543349 -> 11434033 cycles, docs/schedule.md step 33)
    const bool follow = prev_rows > 0 && l.output.shape.size() == 4 && prev_rows < l.output.shape[1];
    if (bytes <= budget && want < 2 && !follow) {
        // int8: whole on one engine, on the cluster that holds its first input whole, if one does
        // (the classifier's fine-bias chain: no copy between the clusters). Not on the float path:
        // lstm_small's gates, small kernels side by side, ran 13.7% longer on one cluster.
        if (m.int8)
            if (const auto c = whole_on_cluster(m, li)) tl.cluster = *c;
        m.tiles.push_back(tl);
        return true;
    }
    auto emit = [&](int dim, const std::vector<std::pair<std::int64_t, std::int64_t>>& ranges) {
        std::int64_t k = 0;
        for (const auto& [r0, n] : ranges) {
            tl.split_dim = dim;
            tl.row0 = r0;
            tl.rows = n;
            tl.cluster = k++ % t.clusters;
            m.tiles.push_back(tl);
        }
        if (dim == 1 && l.output.shape.size() == 4 && std::int64_t(ranges.size()) >= t.clusters) rows_io = ranges.front().second;
    };
    auto ceil_div = [](std::int64_t a, std::int64_t b) { return (a + b - 1) / b; };
    std::int64_t smallest = bytes;
    for (std::size_t d = 0; d < l.output.shape.size(); ++d) {
        const std::int64_t extent = l.output.shape[d];
        if (extent == 1) continue;
        const std::vector<SplitUse> uses = split_uses(l, int(d));
        if (uses.empty()) continue;
        if (std::find(uses.begin(), uses.end(), SplitUse::window) == uses.end()) {
            // plain: a fixed part (operands read whole) and a part per index of the dimension
            std::int64_t fixed = 0, per = l.output.elements() * es(l.output) / extent;
            for (std::size_t i = 0; i < l.inputs.size(); ++i) {
                const View& v = l.inputs[i];
                if (uses[i] == SplitUse::sliced) per += v.elements() * es(v) / extent;
                else fixed += v.elements() * es(v);
            }
            if (fixed + per > budget) {
                smallest = std::min(smallest, fixed + per);
                continue;
            }
            std::int64_t rows = std::min(extent, std::max<std::int64_t>(1, (budget - fixed) / per));
            rows = std::min(rows, ceil_div(extent, want));  // a part per engine
            if (d == 1 && prev_rows > 0 && prev_rows <= rows && ceil_div(extent, prev_rows) <= 2 * t.clusters * t.shave_per_cluster)
                rows = prev_rows;
            std::vector<std::pair<std::int64_t, std::int64_t>> ranges;
            for (std::int64_t r = 0; r < extent; r += rows) ranges.push_back({r, std::min(rows, extent - r)});
            emit(int(d), ranges);
            return true;
        }
        // window: the most output indices per tile whose parts (with their halos) fit; a part
        // that would read no input index (all padding) joins its neighbour
        const std::size_t wi = std::size_t(std::find(uses.begin(), uses.end(), SplitUse::window) - uses.begin());
        for (std::int64_t rows = ceil_div(extent, want);;) {
            std::vector<std::pair<std::int64_t, std::int64_t>> ranges;
            for (std::int64_t r = 0; r < extent; r += rows) ranges.push_back({r, std::min(rows, extent - r)});
            std::int64_t worst = 0;
            for (std::size_t i = 0; i < ranges.size();) {
                Tile x = tl;
                x.split_dim = int(d);
                x.row0 = ranges[i].first;
                x.rows = ranges[i].second;
                const ShavePart p = shave_part(m, l, x);
                if (p.inputs[wi].shape[d] <= 0 && ranges.size() > 1) {
                    const std::size_t into = i + 1 < ranges.size() ? i + 1 : i - 1;
                    ranges[into] = {std::min(ranges[into].first, ranges[i].first), ranges[into].second + ranges[i].second};
                    ranges.erase(ranges.begin() + std::ptrdiff_t(i));
                    if (into < i) --i;  // look at the merged part again
                    continue;
                }
                worst = std::max(worst, bytes_of(p.inputs, p.output));
                ++i;
            }
            if (worst <= budget) {
                emit(int(d), ranges);
                return true;
            }
            if (rows == 1) {
                smallest = std::min(smallest, worst);
                break;
            }
            rows = std::max<std::int64_t>(1, std::min(rows - 1, rows * 7 / 8));
        }
    }
    diags.error(Stage::vpu, "does-not-fit",
                "layer '" + l.source + "' (" + (l.exec == Exec::shave ? "SHAVE " : "") + l.op_name() + ") needs " + std::to_string(smallest) +
                    " bytes of CMX for its smallest part, more than the " + std::to_string(budget) + " a tile may take");
    return false;
}

}  // namespace nnef::vpu::ir
