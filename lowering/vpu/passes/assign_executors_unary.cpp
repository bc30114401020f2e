// Element-wise operators of one value on the NCE (fp16 path, NHWC of one image or [1, N, C] tokens
// as a plane; part of assign-executors, docs/vpu-compiler.md
// "Unary operators on the NCE"). The DPU's post-processing computes `acc * scale + bias` in fp32 on
// every output and then its post-op (specs/vpu-target.md sections 3-4), and a 1x1 maxpool's
// accumulator is its input value exactly; so an operator that is such a formula of one fp16 value
// runs on the NCE at 64 outputs per cycle against a SHAVE engine's 2, giving the same fp16 values:
//   NEGATE x            scale -1                            (x * -1 is exact)
//   ABS x               scale 1, post-op leaky_relu(-1)     (x < 0: x * -1; exact)
//   sign x              scale 2^24, post-op clamp [-1, 1]
//   POW(x, 2)           the eltwise product x * x (exact in fp32, rounded once: the SHAVE kernel's
//                       fp32 x^2 rounded to fp16; ConvNeXt's and Swin's layer norms)
// where `sign x` is the TOSA form the NNEF lowering gives NNEF's sign (lowering/tosa/from_nnef/
// elementwise.cpp): SELECT(GREATER(x, 0), 1, SELECT(GREATER(0, x), -1, x)), its four SHAVE kernels
// (2 cycles per element together, as much as `exp`) one NCE layer. Why 2^24 is exact: fp16's
// smallest magnitude is 2^-24, so every nonzero fp16 x gives |x| * 2^24 >= 1 in fp32 (at most
// 65504 * 2^24 < 2^40, no overflow) and the clamp makes it +-1; 0 and -0 stay themselves (the
// SELECT's x), and NaN stays NaN as in the SELECT (the device's clamp propagates NaN; docs/vpu.md).
// The pattern's inner operators must have no other reader; they are then done (Builder::done).
#include "lowering/vpu/passes/assign_executors.hpp"

namespace nnef::vpu::ir::assign_executors_impl {

namespace {

// Every item of a float constant equal to v.
bool all_equal(const FConst* c, float v) {
    if (!c || c->items.empty()) return false;
    for (float x : c->items)
        if (x != v) return false;
    return true;
}

}  // namespace

bool Builder::unary_nce_shape(ValueId x, ValueId y) const {
    const auto& ys = g.type(y).shape;
    return !m.int8 && tosa::is_float(g.type(y).dtype) && (ys.size() == 4 || ys.size() == 3) && ys[0] == 1 && g.type(x).shape == ys;
}

bool Builder::unary_on_nce(const tosa::Op& op, ValueId xv, float scale, PostOp post_op, double a, double b) {
    const auto x = view_of(xv);
    if (!x) return fail(op, "the operand has no memory form");
    const auto& ys = g.type(op.outputs[0]).shape;
    Layer l;
    l.exec = Exec::nce;
    l.nce_op = NceOp::maxpool;
    l.inputs = {nce_operand(*x, ys)};
    l.scale.assign(std::size_t(ys.back()), scale);
    l.bias.assign(std::size_t(ys.back()), 0.0f);
    l.nce.post_op = post_op;
    if (post_op == PostOp::leaky_relu) l.nce.leaky_alpha = a;
    if (post_op == PostOp::clamp) {
        l.nce.clamp_min = a;
        l.nce.clamp_max = b;
    }
    return add_op_layer(op, std::move(l));
}

std::optional<bool> Builder::unary(const tosa::Op& op) {
    if (op.kind == OpKind::SELECT) {
        const auto it = sign_plans.find(std::size_t(&op - g.main().ops.data()));
        if (it == sign_plans.end()) return std::nullopt;
        return unary_on_nce(op, it->second, 16777216.0f, PostOp::clamp, -1.0, 1.0);
    }
    if (op.kind == OpKind::POW && op.inputs.size() == 2 && op.outputs.size() == 1 && all_equal(fconst(op.inputs[1]), 2.0f)) {
        // x^2 as the eltwise product x * x
        const ValueId x = op.inputs[0];
        if (!unary_nce_shape(x, op.outputs[0]) || fconst(x)) return std::nullopt;
        const auto xv = view_of(x);
        if (!xv) return fail(op, "the operand has no memory form");
        Layer l;
        l.exec = Exec::nce;
        l.nce_op = NceOp::eltwise;
        l.nce.eltwise = "mul";
        l.inputs = {nce_operand(*xv, g.type(x).shape), nce_operand(*xv, g.type(x).shape)};
        return add_op_layer(op, std::move(l));
    }
    if ((op.kind != OpKind::NEGATE && op.kind != OpKind::ABS) || op.inputs.empty() || op.outputs.size() != 1) return std::nullopt;
    const ValueId x = op.inputs[0], y = op.outputs[0];
    if (!unary_nce_shape(x, y) || fconst(x)) return std::nullopt;
    if (op.kind == OpKind::NEGATE) return unary_on_nce(op, x, -1.0f, PostOp::none, 0.0, 0.0);
    return unary_on_nce(op, x, 1.0f, PostOp::leaky_relu, -1.0, 0.0);
}

void Builder::plan_sign(std::size_t k) {
    const auto& ops = g.main().ops;
    const tosa::Op& outer = ops[k];
    if (m.int8 || outer.kind != OpKind::SELECT || outer.inputs.size() != 3 || outer.outputs.size() != 1) return;
    // the op producing v, when it is of `kind` and `v` has one reader (the pattern's)
    const auto inner = [&](ValueId v, OpKind kind) -> const tosa::Op* {
        const tosa::Op* p = producer(v);
        return p && p->kind == kind && uses[v] == 1 && p->outputs.size() == 1 ? p : nullptr;
    };
    const tosa::Op* pos = inner(outer.inputs[0], OpKind::GREATER);
    const tosa::Op* sel = inner(outer.inputs[2], OpKind::SELECT);
    if (!pos || !sel || sel->inputs.size() != 3 || !all_equal(fconst(outer.inputs[1]), 1.0f)) return;
    const tosa::Op* neg = inner(sel->inputs[0], OpKind::GREATER);
    if (!neg || !all_equal(fconst(sel->inputs[1]), -1.0f)) return;
    const ValueId x = sel->inputs[2];
    if (pos->inputs.size() != 2 || neg->inputs.size() != 2 || pos->inputs[0] != x || neg->inputs[1] != x) return;
    if (!all_equal(fconst(pos->inputs[1]), 0.0f) || !all_equal(fconst(neg->inputs[0]), 0.0f)) return;
    if (!unary_nce_shape(x, outer.outputs[0]) || fconst(x)) return;
    for (const tosa::Op* p : {pos, sel, neg}) done[std::size_t(p - ops.data())] = true;
    sign_plans[k] = x;
}

}  // namespace nnef::vpu::ir::assign_executors_impl
