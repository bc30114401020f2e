// PRO-INT: a quantized graph (graph.quant entries, the quantize fragments) in integers. Every
// activation is a tensor of codes on the grid of its tensor's entry (i8; i16 for 9 to 16 bits; real =
// (code - zp - frac) * scale, frac the part of a min/max zero point between codes); weights are i8
// constants of their entry's codes, biases i32 at scale in_scale * w_scale; convolutions and matmuls
// accumulate in i32 and RESCALE to the result's grid; non-linear functions of one tensor are TABLEs;
// a result whose entry differs from the grid its operator gives is RESCALEd to it. This follows
// nnef-run's simulation (docs/exec.md): every tensor with an entry is rounded to its grid right after
// it is computed. Compile-time tensors (variables, constants and the layout operations on them) are
// computed in double with their entries applied, as nnef-run does, and only then become integer
// constants. docs/tosa-lowering.md describes each operation's form.
//
// This header is the state one integer legalization shares (integer::Lowering: the grids and the
// compile-time values of the tensors lowered so far, RESCALE and TABLE builders); the driver is
// legalize_integer (integer.cpp). Each NNEF operation's integer form is the `lower_integer` of its
// entry in the legalization registry, in its family file next to the floating-point form.
// Operations without an integer form are errors naming the operation and its line.
#pragma once
#include <algorithm>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "lowering/tosa/from_nnef/context.hpp"
#include "storage/quantization.hpp"

namespace nnef::tosa::from_nnef::integer {

// The grid of an i8 activation: real = (code - zp - frac) * scale, codes in [lo, hi]. frac (in [0, 1))
// is the part of a min/max grid's zero point between two codes (0.5 for min = -max).
// Grids of 9 to 16 bits are i16 with zero point 0 (TOSA's i16 zero points are 0): their whole zero
// point is then `frac`.
struct Grid {
    double scale = 1.0;
    std::int64_t zp = 0, lo = -128, hi = 127;
    double frac = 0.0;
    DType dtype = DType::i8;
    double real(std::int64_t code) const { return (double(code) - double(zp) - frac) * scale; }
    // The code of real value v (NNEF's round half up, saturated).
    std::int64_t code(double v) const {
        double c = storage::round_half_up(v / scale + frac);
        if (!(c > -1e15)) c = -1e15;  // saturated before the conversion (infinities, NaN: the lowest)
        if (c > 1e15) c = 1e15;
        return std::clamp<std::int64_t>(std::int64_t(c) + zp, lo, hi);
    }
};

bool same_grid(const Grid& a, const Grid& b);
std::int64_t items_of(const Shape& s);

// An i8 grid for linear per-tensor parameters of at most 8 bits (unsigned codes move down by 128);
// nullopt with why otherwise.
std::optional<Grid> grid_of(const storage::QuantParams& p, std::int64_t& offset, std::string& why);

// The parameters of a quantize fragment (literal arguments) as a graph.quant entry would give them.
std::optional<storage::QuantParams> fragment_params_of(const Operation& op);

// A tensor known at compile time, in double (its entry applied).
struct Real {
    Shape shape;
    std::vector<double> items;
    std::optional<storage::QuantParams> params;  // its entry
};

// An integer activation.
struct Act {
    ValueId v = no_value;
    Grid grid;
};

// The state of one integer legalization and the builders its operations share.
class Lowering {
public:
    Lowering(const nnef::Graph& model, Context& c, Diagnostics& diags) : model(model), c(c), diags(diags) {}

    const nnef::Graph& model;
    Context& c;
    Diagnostics& diags;
    std::map<std::string, Real> reals;    // compile-time tensors
    std::map<std::string, Act> acts;      // activations
    std::set<std::string> logarithmic;    // results of logarithmic_quantize (codes offset by -128)
    // Element-wise results without an entry: functions of the real of one activation `base`, folded
    // into one TABLE at the first result with an entry (elementwise_chain.cpp).
    struct Chain {
        std::string base;
        std::function<double(double)> f;
    };
    std::map<std::string, Chain> chains;

    // A graph input (its codes) and output; false / no_value after reporting an error.
    bool input(const std::string& name);
    ValueId output(const std::string& name);

    bool fail(const std::string& why) { return c.refuse(why); }
    // The entry of a tensor, checked; nullopt without one (bad set after an error).
    std::optional<storage::QuantParams> params_of(const std::string& tensor, bool& bad);
    std::optional<Grid> entry_grid(const std::string& tensor, bool& bad);
    // The grid of the entry of the current operation's result `tensor`, which it needs; nullopt after
    // reporting an error (an entry without an i8 form, or none).
    std::optional<Grid> result_grid(const std::string& tensor);
    // The activation the current operation's argument `arg` names; null after reporting an error
    // (a literal, a compile-time tensor, a tensor without codes).
    const Act* input_act(std::string_view arg);
    const Act* act(const std::string& tensor) const {
        auto it = acts.find(tensor);
        return it == acts.end() ? nullptr : &it->second;
    }
    const Real* real(const std::string& tensor) const {
        auto it = reals.find(tensor);
        return it == reals.end() ? nullptr : &it->second;
    }
    // The tensor an argument of the current operation names; empty for a literal.
    std::string arg_id(std::string_view name) const {
        const nnef::Value* v = c.op().input(name);
        return v && v->is_identifier() ? v->as_identifier() : std::string();
    }
    // A real result: the entry of the result applied.
    bool bind_real(const std::string& name, Real r);
    // An activation result: RESCALEd to the result's entry if it has one.
    bool bind_act(const std::string& name, Act a);
    // An activation result as it is (already on the grid it should have).
    bool set(const std::string& name, const Act& a) {
        acts[name] = a;
        c.bind_tensor(name, a.v);
        return true;
    }
    // RESCALE with scale32, SINGLE_ROUND: multiplier = round(m * 2^30), shift = 30 + n for scale =
    // m * 2^-n, 1 <= m < 2 (the specification's normalized form); apply_scale_32 rounds half up, as
    // NNEF's round. With several scales, per channel (the last dimension).
    ValueId rescale(ValueId x, std::int64_t in_zp, double scale, std::int64_t out_zp, DType out);
    ValueId rescale(ValueId x, std::int64_t in_zp, const std::vector<double>& scales, std::int64_t out_zp, DType out);
    // The codes of `a` on the grid `to`.
    Act requantize(const Act& a, const Grid& to);
    // A per-channel affine map onto the grid `to`: real = (v - in_zp) * factor[c] + offset[c] for the
    // integer value v (i8 or i32, channels last: c along the last dimension; one factor and offset:
    // per tensor), |v - in_zp| <= v_max, then its codes. Per-channel RESCALE of |factor| to i32 on a
    // grid 2^k times finer than to's (k as large as the values allow, at most 24), a MUL by the signs
    // where a factor is negative or 0, an ADD of the offsets (and to's zero point fraction) there,
    // one RESCALE down: within 2^-k of a step of the exact real, so the codes are exact but for
    // reals that close to a tie. No ValueId (no_value) with `why` when k would be below 12.
    ValueId affine(ValueId v, std::int64_t in_zp, double v_max, const std::vector<double>& factor, const std::vector<double>& offset,
                   const Grid& to, std::string& why);
    // CLAMP to the grid's codes where they do not fill the dtype.
    ValueId clamp_to(ValueId v, const Grid& g);
    // TABLE: code -> code_of(real(code)) as an i8 code.
    ValueId table(const Act& a, const std::function<double(double)>& code_of);
    // An element-wise function of the current operation's activation `x`: a TABLE to the grid of its
    // result `y` (its entry needed).
    bool unary(const std::function<double(double)>& f, const char* result = "y");
    // A compile-time tensor as i8 codes: on its entry's grid when that is per tensor with an integer
    // zero point, else on a symmetric grid over its range.
    Act codes_of(const Real& r);
};

// The integer forms shared between families: conv / linear (convolution.cpp), the layout operations
// copy, reshape, squeeze, unsqueeze, transpose and slice (shape_ops.cpp).
bool conv_integer(Lowering& q, bool linear);
bool layout_integer(Lowering& q);
// An element-wise operation on a chain (Lowering::chains), or starting one, or of compile-time
// operands only (evaluated in double); nullopt when the operation is none of these (its registry
// entry lowers it), else whether it lowered (elementwise_chain.cpp).
std::optional<bool> chain_step(Lowering& q);
// The division x / y of two activations (division.cpp): INTDIV of an i32 quotient, one RESCALE.
bool divide_activations(Lowering& q, const Act& x, const Act& y, const Tensor& out);

}  // namespace nnef::tosa::from_nnef::integer

namespace nnef::tosa::from_nnef {
// A registry entry's integer form (Legalization::lower_integer).
using IntegerForm = std::function<bool(integer::Lowering&)>;
}  // namespace nnef::tosa::from_nnef
