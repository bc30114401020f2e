// The assign-executors pass (lowering/vpu/ir.hpp) in pieces: its Builder walks the TOSA graph's
// main block in order and turns each operator into NCE layers, SHAVE kernels, copies or views.
//   assign_executors.cpp         the walk, views and constants, graph inputs, outputs and variables
//   assign_executors_nce.cpp     convolutions, pools, matmul and eltwise on the NCE
//   assign_executors_int8.cpp    the int8 path: convs (int32 accumulator + SHAVE rescale), the NCE eltwise with
//                                its RESCALEs, requantizations between grids, integer SHAVE kernels
//   assign_executors_shave.cpp   SHAVE kernels, gathers and concats
//   assign_executors_shuffle.cpp channel shuffles (and the concat before one) as copies into an NHWC tensor
//   assign_executors_decompose.cpp  convolutions as partial convolutions summed (many input
//                                channels, kernels and strides beyond the NCE's)
// Private to those files.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <type_traits>
#include <string>
#include <vector>

#include "lowering/vpu/ir.hpp"

namespace nnef::vpu::ir::assign_executors_impl {

using tosa::AttrName;
using tosa::OpKind;
using tosa::ValueId;


using tosa::AttrName;
using tosa::OpKind;
using tosa::ValueId;

// A constant folded at compile time (CONST, then RESHAPE / TRANSPOSE / IDENTITY of it): as floats
// (FConst), or exactly as integers on the int8 path (IConst: biases, multipliers, zero points).
template <class T>
struct Const {
    std::vector<std::int64_t> shape;
    std::vector<T> items;
};
using FConst = Const<float>;
using IConst = Const<std::int64_t>;

// The items of a constant as floats (FConst) or, for integer types, exactly (IConst); nothing
// for a type without that form.
std::optional<FConst> to_const(const tosa::ConstData& c, float);
std::optional<IConst> to_const(const tosa::ConstData& c, std::int64_t);

template <class T>
Const<T> transpose(const Const<T>& x, const std::vector<std::int64_t>& perms) {
    Const<T> y;
    const std::size_t r = x.shape.size();
    for (std::size_t i = 0; i < r; ++i) y.shape.push_back(x.shape[std::size_t(perms[i])]);
    std::vector<std::int64_t> xs(r, 1);
    for (std::size_t i = r; i-- > 1;) xs[i - 1] = xs[i] * x.shape[i];
    y.items.resize(x.items.size());
    std::vector<std::int64_t> idx(r, 0);
    for (std::size_t o = 0; o < y.items.size(); ++o) {
        std::int64_t src = 0;
        for (std::size_t i = 0; i < r; ++i) src += idx[i] * xs[std::size_t(perms[i])];
        y.items[o] = x.items[std::size_t(src)];
        for (std::size_t i = r; i-- > 0;) {
            if (++idx[i] < y.shape[i]) break;
            idx[i] = 0;
        }
    }
    return y;
}

struct Builder {
    Module& m;
    const tosa::Graph& g;
    Diagnostics& diags;
    std::vector<std::optional<View>> views;
    std::vector<int> producer_layer;  // value -> layer producing its view (-1: none)
    std::vector<int> uses;
    std::vector<std::vector<std::size_t>> users;  // value -> indices of the main ops reading it
    std::vector<bool> done;                      // main ops already compiled as part of another
    // int8 NCE eltwise: ADD/SUB op index -> the RESCALEs of its two operands and of its result
    struct EltwisePlan {
        const tosa::Op *a = nullptr, *b = nullptr, *out = nullptr;
        const tosa::Op *ta = nullptr, *tb = nullptr;  // a TRANSPOSE of an operand's RESCALE (layouts)
        const IConst* constant = nullptr;  // instead of b: a per-tensor or per-channel constant (the table's bias)
        bool negate = false;               // SUB of the constant
        std::vector<std::size_t> chain;  // the result's RESHAPEs and RESCALE
    };
    std::map<std::size_t, EltwisePlan> eltwise_plans;
    std::map<ValueId, FConst> consts;
    std::map<ValueId, IConst> iconsts;  // int8 path
    std::vector<tosa::Graph::Producer> producers;
    std::map<std::string, View> state;  // variable name -> its graph input's view

    Builder(Module& m_, Diagnostics& d) : m(m_), g(*m_.graph), diags(d) {}

    const tosa::Op* producer(ValueId v) const;

    // Folded constant `c` of value `u`, for a derived constant or a layer's weights: moved out of
    // the cache (its entry erased) where `u` has no other reader, else copied. A model's weights
    // are read once, through a RESHAPE or TRANSPOSE: held once, not per step (VGG-11's classifier,
    // 103 M weights). A value asked for again after that is folded again.
    template <class T>
    Const<T> take(ValueId u, const Const<T>& c, std::map<ValueId, Const<T>>& cache) {
        const auto it = cache.find(u);
        if (uses[u] != 1 || it == cache.end() || &it->second != &c) return c;
        Const<T> out = std::move(it->second);
        cache.erase(it);
        return out;
    }

    const FConst* fconst(ValueId v) { return folded(v, consts); }
    const IConst* iconst(ValueId v) { return folded(v, iconsts); }

    template <class T>
    const Const<T>* folded(ValueId v, std::map<ValueId, Const<T>>& cache) {
        auto it = cache.find(v);
        if (it != cache.end()) return &it->second;
        const tosa::Op* op = producer(v);
        if (!op) return nullptr;
        std::optional<Const<T>> f;
        if (op->kind == OpKind::CONST) {
            const tosa::Attr* a = op->attr(AttrName::values);
            if (a && std::holds_alternative<tosa::ConstPtr>(*a)) f = to_const(*std::get<tosa::ConstPtr>(*a), T{});
        } else if (op->kind == OpKind::RESHAPE || op->kind == OpKind::IDENTITY || op->kind == OpKind::CAST) {
            if (const Const<T>* x = folded(op->inputs[0], cache)) {
                f = take(op->inputs[0], *x, cache);
                f->shape = g.type(v).shape;
            }
        } else if (op->kind == OpKind::TRANSPOSE) {
            if (const Const<T>* x = folded(op->inputs[0], cache)) {
                f = transpose(*x, op->get<std::vector<std::int64_t>>(AttrName::perms));
                take(op->inputs[0], *x, cache);  // (dropped where this is its one reader)
            }
        } else if constexpr (std::is_same_v<T, float>) {
            if (!unfoldable.count(v)) f = evaluate(*op);
        }
        if (!f) {
            if constexpr (std::is_same_v<T, float>) unfoldable.insert(v);
            return nullptr;
        }
        return &(cache[v] = std::move(*f));
    }

    // Any other operator whose operands are all constants (Swin-T's `pow(32.0, -0.5)`, a rank-0
    // value the task list has no access form for) is a constant: its value from the TOSA
    // interpreter's kernel, at the graph's type, at compile time (up to 1 << 20 items; not
    // variables, control flow or CUSTOM). Nothing when an operand is not a constant.
    std::optional<FConst> evaluate(const tosa::Op& op);
    std::set<ValueId> unfoldable;  // values `evaluate` found not constant (the walk asks again)

    // The values of a CONST_SHAPE operand.
    std::optional<std::vector<std::int64_t>> const_shape(ValueId v) const;

    std::string source_of(const tosa::Op& op) const;

    bool fail(const tosa::Op& op, const std::string& why);

    int add_tensor(std::string name, std::int64_t elements, Role role, DataType dt = DataType::fp16);

    // The buffer type of a TOSA value: fp16 for floats; on the int8 path int8 and int32 as they are.
    std::optional<DataType> data_type(tosa::DType t) const;
    DataType value_type(ValueId v) const { return data_type(g.type(v).dtype).value_or(DataType::fp16); }
    std::int64_t es(const View& v) const { return element_size(m.tensors[std::size_t(v.tensor)].dtype); }

    View dense_view(int tensor, const std::vector<std::int64_t>& shape) const;

    // The view of an operand, materializing constants as DDR tensors.
    std::optional<View> view_of(ValueId v);

    int add_layer(Layer l, ValueId out, const View& out_view);

    // A layer that copies `from` into a new dense tensor (reshape of a strided view, outputs).
    View materialize(const View& from, const std::string& name, Role role, const std::string& source);

    // Channel c's value of a per-tensor (one value) or per-channel constant.
    static std::int64_t at(const IConst& k, std::int64_t c) { return k.items.size() == 1 ? k.items[0] : k.items[std::size_t(c)]; }

    // TRANSPOSE as a view: the dimensions and their strides permuted.
    static View transposed(const View& v, const tosa::Op& transpose);

    static View as_nhwc4(const View& v);
    // The plane width W' of H rows as H' x W' (H = H' W') whose NCE cost is least (see as_plane).
    static std::int64_t plane_width(std::int64_t H);
    // A [1, H, C] view as the plane [1, H', W', C] of as_plane, or a [1, 1, C] view as [1, 1, 1, C].
    static View plane_of(const View& v, std::int64_t H);
    // [1,H,C] -> [1,H',W',C] with H = H' W' (row h = i W' + j: the same bytes through any row
    // stride), the plane whose NCE cost (rows and columns padded to 4) is least
    static View as_plane(const View& v);

    bool nce_limits(const tosa::Op& op, std::int64_t kh, std::int64_t kw, std::int64_t sh, std::int64_t sw);

    bool conv(const tosa::Op& op, bool depthwise);

    // The NCE layer of a CONV2D (weights [O,KH,KW,I] as they are) or DEPTHWISE_CONV2D (TOSA
    // [KH,KW,C,M] -> [C,KH,KW,1]; only M = 1 runs as dwconv) reading `x`: weights, kernel, stride,
    // dilation, padding, within the NCE's kernel and stride.
    // (`w` is the folded weights operand, op.inputs[1]: a dense conv's are taken, `take`)
    bool nce_conv(const tosa::Op& op, Layer& l, const FConst& w, const View& x, bool depthwise);

    // The NCE works on one image: a 1x1 stride-1 conv (NNEF linear on a batch) takes the batch as
    // rows (the input view and the output shape `ys` folded); other convolutions of a batch are
    // refused.
    bool batch_as_rows(const tosa::Op& op, Layer& l, std::vector<std::int64_t>& ys);

    // The int8 path (TOSA PRO-INT): CONV2D / DEPTHWISE_CONV2D i8 -> i32, then (through RESHAPEs of
    // the i32 result) the RESCALE i32 -> i8 that alone reads it, become the NCE conv writing its
    // int32 accumulator (the bias in its table, the input and weights zero points in its params)
    // and the SHAVE rescale, which fuse-post-ops packs into the conv's table. The RESHAPEs and the
    // RESCALE are then done (`done`).
    bool conv_int8(const tosa::Op& op, bool depthwise, const std::optional<View>& x, const FConst* w);
    bool shave_conv_fits(const tosa::Op& op, const FConst& w) const;

    // The int8 eltwise form (docs/vpu.md): ADD/SUB of two i32 values, each the RESCALE i8 -> i32 of
    // an int8 activation that nothing else reads (one multiplier and shift, output zero point 0),
    // whose result only a RESCALE to int8 reads (requant_of), all with the same rounding, on one
    // image in NHWC: one NCE eltwise with a rescale per input and the table's requantization. The
    // operand RESCALEs are done here, the rest when the ADD/SUB comes.
    void plan_eltwise(std::size_t k);

    // assign_executors_int8_sum.cpp: a RESCALE i8 -> i32 of scale 1 whose result only REDUCE_SUMs
    // over H and/or W and then a RESCALE to int8 read (TOSA's mean over H and W): one NCE dwconv
    // of weights 1 over the reduced extent (input zero point the RESCALE's) writing its int32
    // accumulator, requantized by the last RESCALE (the reductions and the RESCALE done). False,
    // with nothing reported, when the pattern does not hold.
    bool spatial_sum_on_nce(const tosa::Op& op);
    // assign_executors_int8_vector.cpp: an element-wise SHAVE layer `l` of `op` on a [1, C] vector
    // (every operand dense of that shape) made [1, 1, 1, C], so that the schedule may hold its
    // result in CMX; otherwise `l` as it is.
    void vector_as_nhwc(const tosa::Op& op, Layer& l) const;
    // assign_executors_plane.cpp (fp16 path): an element-wise SHAVE layer `l` of `op` on [1, N, C]
    // values (a transformer's tokens; operands [1, N, C'] or [1, 1, C'], a reduction over C) made
    // the plane [1, N', W', C] of as_plane, so that the NCE may take it (fuse-post-ops, streams);
    // otherwise `l` as it is.
    void tokens_as_plane(const tosa::Op& op, Layer& l) const;

    bool eltwise_int8(const tosa::Op& op, const EltwisePlan& plan);
    // assign_executors_nce.cpp (fp16): ADD, SUB or MUL of a [1, H, W, C] value (or [1, N, C]
    // tokens) and one of its channels' shape [1, H, W, 1] (a layer norm's mean, its 1 / sqrt(var +
    // eps)): the narrow operand broadcast over the C channels by a 1x1 NCE conv of weights 1, then
    // the NCE eltwise; the same fp16 values as the SHAVE kernel (docs/schedule.md step 32). False,
    // with nothing added, when the operands are not so.
    bool channel_broadcast(const tosa::Op& op, const View& av, const View& bv);

    // The RESCALE i32 -> i8 that alone reads `v`, through RESHAPEs (their op indices and its own go
    // to `chain`), when the NCE's requantization computes it: constant multiplier and shift (one,
    // or one per channel of the last dimension), input zero point 0, signed, single or double
    // rounding.
    const tosa::Op* requant_of(ValueId v, std::vector<std::size_t>& chain, std::string& why) const;

    // A conv whose weights for even `align` output channels exceed what a tile may hold: split
    // over input channels into chunks of `ki`, each a conv into a partial sum (the bias in the
    // first), added up by NCE eltwise adds.
    bool split_k(Layer l, ValueId y, std::int64_t ki, const std::vector<std::int64_t>& ys);
    // The input channels per partial sum of a float MATMUL `op` (the second conv of an MLP) whose
    // input is an element-wise chain with an EXP (a GELU through the exporter's erf polynomial)
    // on the result of a MATMUL (or CONV2D) of the same size whose weights outweigh its input (its
    // output channels at least four times its rows: ConvNeXt's and Swin-T's stages 3-4, ViT's blocks),
    // or 0. Such a first conv is tiled over output channels and the chain after it is streamed in
    // eight channel parts (tile_stream_channels.cpp); the second conv, summed over those parts'
    // channels, runs beside the run part by part (docs/schedule.md step 34).
    std::int64_t mlp_partial_channels(const tosa::Op& op) const;

    // assign_executors_decompose.cpp: convolutions as partial convolutions summed.
    // `l` (a conv, fp16 or int8) over input-channel chunks of `ki`, appended to `parts` (its input
    // view narrowed to each chunk's channels, its weights sliced; the weights are moved out once,
    // not copied per chunk: VGG-11's first linear holds 25088 x 4096; biases as in `l`, the caller
    // keeps them in the first part of the whole sum).
    static void channel_chunks(Layer l, std::int64_t ki, std::vector<Layer>& parts);
    // The input channels per part that keep the weights of `align` output channels within a
    // quarter of a tile.
    std::int64_t chunk_channels(std::int64_t kh, std::int64_t kw) const;
    // The parts (each an NCE conv writing a partial sum `y.kJ`, source `SOURCE.kJ`) added up by
    // NCE eltwise adds into `y` (`y.sumJ` in between); one part writes `y` itself. With `lanes`
    // above one, part j is added into lane j % lanes (a chain of adds each) and the lanes' sums
    // are added last: the second MLP conv's parts, computed on alternate clusters, are summed on
    // the cluster that computed them (tile_stream_channels.cpp).
    bool sum_parts(std::vector<Layer> parts, ValueId y, const std::vector<std::int64_t>& ys, std::size_t lanes = 1);
    // True when a CONV2D's kernel or stride exceeds the NCE's.
    bool beyond_nce_limits(const tosa::Op& op, std::int64_t kh, std::int64_t kw) const;
    // A float CONV2D whose kernel or stride exceeds the NCE's (ViT's patch embedding, 32x32 stride
    // 32): one partial convolution per kernel row, reading the input through a view whose rows
    // step by the stride (so the part's stride over rows is 1), summed. When the stride over
    // columns equals the kernel's width the row's patches do not overlap, and a part is a 1x1
    // convolution with the row's KW x I items as channels (a patchify convolution is a matrix
    // multiply); otherwise a 1 x KW convolution within the NCE's limits. Padding and dilation
    // are refused (their rows are not in the input).
    bool large_conv(const tosa::Op& op, const FConst& w, const FConst& b, const View& x);
    // Its parts, each `base` (its bias, or the int8 path's quantization) with the part's input view,
    // weights and kernel; false after reporting why it does not decompose.
    bool large_conv_parts(const tosa::Op& op, const FConst& w, const View& x, Layer base, std::vector<Layer>& parts);
    // The int8 form (assign_executors_int8_split.cpp): the parts write int32 accumulators (the bias
    // in the first), summed by SHAVE `add`s, requantized once by the SHAVE `rescale` of `rs` (or the
    // int32 sum as the CONV2D's result without one).
    bool large_conv_int8(const tosa::Op& op, const FConst& w, const View& x, const tosa::Op* rs, const std::vector<std::size_t>& chain);
    // The SHAVE `rescale` of RESCALE `rs` on an int32 accumulator: `rs`'s result (the chain done).
    bool requantize_accumulator(const View& acc, const tosa::Op& rs, const std::vector<std::size_t>& chain, const std::vector<std::int64_t>& ys);

    // The int8 path's int32 accumulator of a convolution (assign_executors_int8_split.cpp): NCE convs
    // that write their int32 accumulator plus the bias, the PPE's requantization bypassed; split over
    // input channels in chunks of `ki` when the weights of `align` output channels exceed a tile
    // (the int8 form of split_k), the chunks' partial sums added exactly by SHAVE `add`s in int32.
    // Returns the accumulator's dense int32 view of shape `ys`.
    View int32_accumulator(Layer l, const tosa::Op& op, std::int64_t ki, const std::vector<std::int64_t>& ys, const std::string& name);

    bool pool(const tosa::Op& op);

    // A SHAVE layer on views; returns its output (a new dense tensor, or the one given).
    View shave_layer(ShaveKernel kernel, std::vector<View> inputs, const std::vector<std::int64_t>& shape, const tosa::Op& op,
                     const std::string& name, DataType dt = DataType::fp16);

    // A global pool whose window exceeds the NCE's kernel: reductions over H and W on SHAVE (and
    // the division for the average).
    bool global_pool(const tosa::Op& op, const View& x);

    // A 1x1 CONV2D (NNEF linear) with computed weights or bias: the NCE takes constant weights
    // only, so, as VPUX does with what the DPU cannot run, it becomes SHAVE kernels: MATMUL
    // x[1, N*H*W, C] x w^T[1, C, O] (the weights box read transposed through its strides), then
    // ADD of the bias broadcast over the rows.
    bool conv_on_shave(const tosa::Op& op, View x);

    // Integer MATMUL on SHAVE: an operand whose zero point is not 0 first has it subtracted (SHAVE
    // `sub` into int32, exact), then the SHAVE `matmul` (exact on integers).
    bool matmul_int8(const tosa::Op& op);

    bool matmul(const tosa::Op& op);

    // Layer `l` (an fp16 NCE layer: its op and inputs set) writing op's one result, a new dense
    // tensor (a [1, N, C] result through its plane, as_plane), with op's source and origin.
    bool add_op_layer(const tosa::Op& op, Layer l);
    // The NCE view of operand v of an element-wise layer with result shape `ys` (rank 4, or a
    // [1, N, C] value as its plane).
    View nce_operand(const View& v, const std::vector<std::int64_t>& ys) const;
    bool eltwise(const tosa::Op& op);

    // assign_executors_unary.cpp (fp16 path): NEGATE, ABS and NNEF's sign (a SELECT that
    // plan_sign recognised) of an NHWC value of one image as an NCE 1x1 maxpool whose table scale
    // and post-op compute them exactly, POW(x, 2) as the eltwise x * x; nothing when the operator
    // is not one of them.
    std::optional<bool> unary(const tosa::Op& op);
    // SELECT(GREATER(x, 0), 1, SELECT(GREATER(0, x), -1, x)) at op index k, its inner operators
    // read by nothing else: the outer SELECT to sign_plans (its x), the inner ones done.
    void plan_sign(std::size_t k);
    std::map<std::size_t, ValueId> sign_plans;
    bool unary_nce_shape(ValueId x, ValueId y) const;
    bool unary_on_nce(const tosa::Op& op, ValueId x, float scale, PostOp post_op, double a, double b);

    // CLAMP: the SHAVE clamp with the operator's bounds (fuse-post-ops may make it its producer's
    // post-op); float bounds as they are, infinities included.
    bool clamp(const tosa::Op& op);

    // Integer CLAMP: the SHAVE clamp with integer bounds (the output's codes).
    bool clamp_int(const tosa::Op& op);

    // The int8 path's SHAVE kernels: RESCALE as the native `rescale`, the element-wise and reduction
    // operators the simulator computes exactly on integers by their names, MUL without shift, and
    // any other operator as the TOSA kernel of its mnemonic (computed by the TOSA interpreter),
    // with its attributes and its shape operands as constants.
    bool int_shave(const tosa::Op& op);

    // The TOSA kernel of the operator's mnemonic (computed by the TOSA interpreter): its attributes,
    // its shape operands as constants, its other operands as reads (both paths).
    bool tosa_kernel(const tosa::Op& op);

    // RESCALE i8 -> i8 (a requantization between two grids: relu's, concat's) on the NCE, as VPUX
    // runs its requantizations: a 1x1 `maxpool` with the input zero point computes in - input_zp,
    // and the table's requantization with the RESCALE's multiplier and shift (per tensor or per
    // channel), bias 0, plus the output zero point and saturation is exactly TOSA's RESCALE. The
    // operand: rank 4 with one image, or dense (then [1, rows, 1, C]).
    bool rescale_on_nce(const tosa::Op& op, const IConst& mult, const IConst& shift, std::int64_t izp, std::int64_t ozp, bool double_round);

    // Operators whose bool result a SHAVE kernel computes as fp16 1.0 / 0.0.
    static bool bool_result(OpKind k);

    static ShaveKernel kernel(std::string name, std::optional<std::int64_t> axis = std::nullopt);

    bool shave(const tosa::Op& op, ShaveKernel k);

    // A SHAVE kernel reading `reads` and writing the operator's one result.
    bool shave_on(const tosa::Op& op, ShaveKernel k, const std::vector<ValueId>& reads);

    // GATHER with constant indices (VPUX turns such a Gather into slices): values [N,K,C],
    // indices [N,W] -> [N,W,C]; one row is a view of the values (no task), more rows are copies.
    bool gather(const tosa::Op& op);

    bool concat(const tosa::Op& op);

    // assign_executors_shuffle.cpp: a channel shuffle (RESHAPE [N,C,H,W] -> [N,g,C/g,H,W],
    // TRANSPOSE [0,2,1,3,4], RESHAPE back; `op` its first RESHAPE, or the CONCAT of channels
    // feeding it alone) as copies into one NHWC tensor, each operand's channels of group j to
    // channels j, j + g, ... (a box with channel stride g). False (nothing done) for anything else.
    bool channel_shuffle(const tosa::Op& op);
    // The one operator reading `v` (no other reader, not a graph output) and its index, or null.
    const tosa::Op* only_user(ValueId v, std::size_t& index) const;

    bool run();

    // A variable (NNEF `variable` that the graph `update`s) is state the host keeps between runs,
    // as VPUX's NPU plugin keeps ReadValue/Assign states: a graph input of the task list named after
    // the variable (its value before this run), and VARIABLE_WRITE a graph output of the same name
    // (its value after). Variables that are only read are constants and never get here.
    bool variable(const tosa::Op& op);

    static std::string identity_layout(std::size_t rank);

    // A graph output (or a variable's new value, named after the variable) from the view of `v`.
    void output(ValueId v, View ov, const std::string& output_name = {});

    bool one(const tosa::Op& op);
};

}  // namespace nnef::vpu::ir::assign_executors_impl
