// What the interpreter (interpreter.cpp) gives the kernels of lowering/tosa/ops/*.cpp: its state,
// the context of one operator (Ctx), element access (load / store of every element type),
// broadcasting, and the spec's helpers that more than one family uses. Internal to lowering/tosa.
#pragma once
#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <limits>
#include <map>
#include <stdexcept>
#include <type_traits>

#include "exec/common.hpp"
#include "exec/gemm.hpp"
#include "lowering/strided_rows.hpp"
#include "lowering/tosa/interpreter.hpp"

namespace nnef::tosa {

namespace kernels {

using exec::MatrixView;
using exec::parallel_for;
using I64 = std::int64_t;

// An ERROR_IF that holds, a REQUIRE that fails, or an operator the interpreter cannot run.
struct Failure {
    std::string code;
    std::string message;
};

// An ERROR_IF that depends on the data (an index, a divisor, an extent the kernel derives): the
// rules its attributes, shapes and constant operands decide are the family's check, which the
// interpreter runs before the graph (operator_rules, validator.hpp); one code for both.
inline void error_if(bool condition, const std::string& rule) {
    if (condition) throw Failure{"tosa-error-if", "ERROR_IF(" + rule + ")"};
}
// A REQUIRE that fails on the data: the validator's code and rule, the result is unpredictable.
inline void require(bool condition, const std::string& rule) {
    if (!condition) throw Failure{"tosa-require", "REQUIRE(" + rule + "): fails on the data, the result is unpredictable"};
}
[[noreturn]] inline void unsupported(const std::string& what) { throw Failure{"unsupported", what}; }

inline std::string shape_str(const Shape& s) {
    std::string r = "[";
    for (std::size_t i = 0; i < s.size(); ++i) r += (i ? "," : "") + std::to_string(s[i]);
    return r + "]";
}

// ---- element access ----------------------------------------------------------------------------

inline I64 min_s(DType t) {
    switch (t) {
        case DType::bool_: return 0;
        case DType::i8: return -128;
        case DType::i16: return -32768;
        case DType::i32: return std::numeric_limits<std::int32_t>::min();
        case DType::i48: return -(I64{1} << 47);
        default: return std::numeric_limits<I64>::min();
    }
}
inline I64 max_s(DType t) {
    switch (t) {
        case DType::bool_: return 1;
        case DType::i8: return 127;
        case DType::i16: return 32767;
        case DType::i32: return std::numeric_limits<std::int32_t>::max();
        case DType::i48: return (I64{1} << 47) - 1;
        default: return std::numeric_limits<I64>::max();
    }
}

// Integer items (bool as 0 / 1, i48 and shape as int64).
inline I64 load_int(const ConstData& c, I64 i) {
    if (auto v = int_item(c, i)) return *v;
    unsupported(std::string("integer access to a ") + to_string(c.type.dtype) + " tensor");
}

// Truncates to the width of the type (truncate<out_t>; i48 keeps the low 48 bits, sign-extended).
inline I64 truncate_to(DType t, I64 v) {
    switch (t) {
        case DType::bool_: return v != 0;
        case DType::i8: return static_cast<std::int8_t>(static_cast<std::uint8_t>(v));
        case DType::i16: return static_cast<std::int16_t>(static_cast<std::uint16_t>(v));
        case DType::i32: return static_cast<std::int32_t>(static_cast<std::uint32_t>(v));
        case DType::i48: {
            const std::uint64_t u = static_cast<std::uint64_t>(v) << 16;
            return static_cast<I64>(u) >> 16;
        }
        default: return v;
    }
}

inline void store_int(ConstData& c, I64 i, I64 v) {
    v = truncate_to(c.type.dtype, v);
    switch (c.type.dtype) {
        case DType::bool_: c.mutable_items<std::uint8_t>()[i] = v ? 1 : 0; break;
        case DType::i8: c.mutable_items<std::int8_t>()[i] = static_cast<std::int8_t>(v); break;
        case DType::i16: c.mutable_items<std::int16_t>()[i] = static_cast<std::int16_t>(v); break;
        case DType::i32: c.mutable_items<std::int32_t>()[i] = static_cast<std::int32_t>(v); break;
        case DType::i48:
        case DType::shape: c.mutable_items<std::int64_t>()[i] = v; break;
        default: unsupported(std::string("integer store to a ") + to_string(c.type.dtype) + " tensor");
    }
}

inline double load_float(const ConstData& c, I64 i) {
    if (auto v = float_item(c, i)) return *v;
    unsupported(std::string("floating-point access to a ") + to_string(c.type.dtype) + " tensor");
}

// round_to_nearest_float to the item type.
inline void store_float(ConstData& c, I64 i, double v) {
    switch (c.type.dtype) {
        case DType::fp32: c.mutable_items<float>()[i] = static_cast<float>(v); break;
        case DType::fp16: c.mutable_items<std::uint16_t>()[i] = fp64_to_fp16(v); break;
        case DType::bf16: c.mutable_items<std::uint16_t>()[i] = fp64_to_bf16(v); break;
        default: unsupported(std::string("floating-point store to a ") + to_string(c.type.dtype) + " tensor");
    }
}

// The items of a floating-point tensor as T (float or double): fp32 as float in place, others
// converted.
template <class T>
struct Floats {
    const T* p = nullptr;
    std::vector<T> own;
    T operator[](I64 i) const { return p[i]; }
};
template <class T>
Floats<T> floats(const ConstData& c) {
    Floats<T> f;
    if constexpr (std::is_same_v<T, float>) {
        if (c.type.dtype == DType::fp32) {
            f.p = c.items<float>();
            return f;
        }
    }
    const I64 n = c.type.volume();
    f.own.resize(static_cast<std::size_t>(n));
    for (I64 i = 0; i < n; ++i) f.own[static_cast<std::size_t>(i)] = static_cast<T>(load_float(c, i));
    f.p = f.own.data();
    return f;
}

// Output items as T, written into the tensor (fp32 in place) by finish().
template <class T>
struct OutFloats {
    std::shared_ptr<ConstData> data;
    T* p = nullptr;
    std::vector<T> own;
    explicit OutFloats(std::shared_ptr<ConstData> d) : data(std::move(d)) {
        if constexpr (std::is_same_v<T, float>) {
            if (data->type.dtype == DType::fp32) {
                p = data->mutable_items<float>();
                return;
            }
        }
        own.resize(static_cast<std::size_t>(data->type.volume()));
        p = own.data();
    }
    ConstPtr finish() {
        if (!own.empty())
            for (std::size_t i = 0; i < own.size(); ++i) store_float(*data, static_cast<I64>(i), own[i]);
        return data;
    }
};

// Calls f(T{}) with the computation type of a float tensor type: float for fp32, double for the
// 16-bit formats (so that one rounding to the format gives a correctly rounded result).
template <class F>
decltype(auto) with_float(DType t, F&& f) {
    if (t == DType::fp32) return f(float{});
    return f(double{});
}

// ---- shapes and broadcasting (spec 4.4) --------------------------------------------------------

inline Shape row_strides(const Shape& s) {
    Shape st(s.size(), 1);
    for (std::size_t i = s.size(); i-- > 1;) st[i - 1] = st[i] * s[i];
    return st;
}

// Calls row(output offset, input offsets, input steps, count) over the rows of `out` in order:
// lowering/strided_rows.hpp (the one strided-box iterator of the kernels: broadcasting, SLICE,
// TRANSPOSE, REVERSE; the NNAPI export's filter layouts use it too).
using lowering::for_each_strided_row;

// for_each_strided_row over `out` with the N inputs broadcast to it (apply_broadcast): along a
// row, input k advances by step[k] (0 where it is broadcast).
template <std::size_t N, class F>
void for_each_row(const Shape& out, const std::array<const Shape*, N>& ins, F&& row) {
    std::array<Shape, N> st;
    for (std::size_t k = 0; k < N; ++k) {
        const Shape s = row_strides(*ins[k]);
        st[k].assign(out.size(), 0);
        for (std::size_t d = 0; d < out.size(); ++d) st[k][d] = (*ins[k])[d] == out[d] ? s[d] : 0;
    }
    for_each_strided_row<N>(out, st, std::array<I64, N>{}, std::forward<F>(row));
}

// Calls f(output offset, offsets of the N inputs) over every position of `out`, the inputs
// broadcast to it.
template <std::size_t N, class F>
void for_each_broadcast(const Shape& out, const std::array<const Shape*, N>& ins, F&& f) {
    for_each_row<N>(out, ins, [&](I64 o, const std::array<I64, N>& base, const std::array<I64, N>& step, I64 count) {
        std::array<I64, N> off = base;
        for (I64 j = 0; j < count; ++j) {
            f(o + j, off);
            for (std::size_t k = 0; k < N; ++k) off[k] += step[k];
        }
    });
}

// ---- the float helpers of 4.5.1 ------------------------------------------------------------------

template <class T>
T apply_max_f(T a, T b, NanMode m) {
    if (std::isnan(a) || std::isnan(b)) {
        if (m == NanMode::PROPAGATE) return std::numeric_limits<T>::quiet_NaN();
        return std::isnan(a) ? b : a;
    }
    return a >= b ? a : b;
}
template <class T>
T apply_min_f(T a, T b, NanMode m) {
    if (std::isnan(a) || std::isnan(b)) {
        if (m == NanMode::PROPAGATE) return std::numeric_limits<T>::quiet_NaN();
        return std::isnan(a) ? b : a;
    }
    return a < b ? a : b;
}

// apply_add_s / apply_sub_s for integer types: REQUIRE the exact result to fit.
inline I64 add_s(DType t, I64 a, I64 b) {
    const I64 c = a + b;
    require(c >= min_s(t) && c <= max_s(t), std::string("apply_add_s<") + to_string(t) + "> in range");
    return c;
}
inline I64 sub_s(DType t, I64 a, I64 b) {
    const I64 c = a - b;
    require(c >= min_s(t) && c <= max_s(t), std::string("apply_sub_s<") + to_string(t) + "> in range");
    return c;
}

// Like ConstData::allocate, without zeroing the items (results are written in full).
inline std::shared_ptr<ConstData> uninitialized(const TensorType& type) {
    auto c = std::make_shared<ConstData>();
    c->type = type;
    const std::size_t n = c->byte_size();
    std::shared_ptr<std::uint64_t[]> bytes(new std::uint64_t[(n + 7) / 8 + 1]);
    c->data = bytes.get();
    c->owner = std::shared_ptr<const void>(bytes, bytes.get());
    return c;
}

}  // namespace kernels

// ---- the interpreter state -----------------------------------------------------------------------

struct Interpreter::Impl {
    const Graph& graph;
    InterpretOptions options;
    std::vector<ConstPtr> values;  // by ValueId, while computed and needed
    struct Variable {
        TensorType type;
        ConstPtr data;
        bool written = false;
        bool seen = false;
    };
    std::map<std::string, Variable> variables;
    // release[block][i]: the values of the block that no operator after operator i reads
    std::vector<std::vector<std::vector<ValueId>>> release;
    std::int64_t depth = 0;

    Impl(const Graph& g, InterpretOptions o) : graph(g), options(std::move(o)) {}
    void plan();
    // Runs block `b` on `inputs`; throws kernels::Reported after reporting an error.
    std::vector<ConstPtr> run_block(std::uint32_t b, const std::vector<ConstPtr>& inputs, Diagnostics& diags);
    void report(const Op& op, const std::string& code, const std::string& message, Diagnostics& diags) const;
};

namespace kernels {

// Unwinds the nested blocks after the error has been reported.
struct Reported {};

using Impl = Interpreter::Impl;

struct Ctx {
    Impl& it;
    const Op& op;
    Diagnostics& diags;

    std::size_t inputs() const { return op.inputs.size(); }
    std::size_t outputs() const { return op.outputs.size(); }
    const ConstPtr& in_ptr(std::size_t i) const {
        if (i >= op.inputs.size()) unsupported("operand " + std::to_string(i) + " is missing");
        const ConstPtr& p = it.values.at(op.inputs[i]);
        if (!p) unsupported("operand %" + std::to_string(op.inputs[i]) + " is used before it is computed");
        return p;
    }
    const ConstData& in(std::size_t i) const { return *in_ptr(i); }
    const TensorType& in_type(std::size_t i) const { return in(i).type; }
    const TensorType& out_type(std::size_t i) const {
        if (i >= op.outputs.size()) unsupported("result " + std::to_string(i) + " is missing");
        return it.graph.type(op.outputs[i]);
    }
    // Storage for result i; its items are uninitialized (every kernel writes all of them).
    std::shared_ptr<ConstData> alloc(std::size_t i) const { return uninitialized(out_type(i)); }
    void set(std::size_t i, ConstPtr v) const {
        if (v->type != out_type(i))
            unsupported("result %" + std::to_string(op.outputs[i]) + " is declared " + to_string(out_type(i)) +
                        " but computed as " + to_string(v->type));
        it.values[op.outputs[i]] = v;
        if (it.options.observe) it.options.observe(op.outputs[i], v);
    }
    template <class T>
    const T& attr(AttrName n) const { return op.get<T>(n); }
    bool flag(AttrName n, bool otherwise) const {
        const Attr* a = op.attr(n);
        return a && std::holds_alternative<bool>(*a) ? std::get<bool>(*a) : otherwise;
    }
    NanMode nan_mode() const {
        const Attr* a = op.attr(AttrName::nan_mode);
        return a && std::holds_alternative<NanMode>(*a) ? std::get<NanMode>(*a) : NanMode::PROPAGATE;
    }
    const std::vector<I64>& ints(AttrName n, std::size_t count) const {
        const std::vector<I64>& v = op.get<std::vector<I64>>(n);
        error_if(v.size() != count, std::string("length(") + to_string(n) + ") != " + std::to_string(count));
        return v;
    }
};

// The one item of a [1] operand (zero points, MUL's shift, PAD's pad_const) as an integer.
inline I64 single_int(const ConstData& c, const char* name) {
    error_if(c.type.volume() != 1, std::string("tensor_size(") + name + ") != 1");
    return load_int(c, 0);
}
inline double single_float(const ConstData& c, const char* name) {
    error_if(c.type.volume() != 1, std::string("tensor_size(") + name + ") != 1");
    return load_float(c, 0);
}
// A zero point: an integer for integer types; for floating-point types it must be zero.
inline I64 zero_point(const ConstData& c, const char* name) {
    if (is_float(c.type.dtype)) {
        error_if(single_float(c, name) != 0.0, std::string("!is_same<in_t,i8_t>() && ") + name + " != 0");
        return 0;
    }
    return single_int(c, name);
}
// The items of a shape_t operand.
inline std::vector<I64> shape_operand(const ConstData& c, const char* name) {
    if (c.type.dtype != DType::shape && !is_integer(c.type.dtype))
        unsupported(std::string("'") + name + "' must be a shape value, not " + to_string(c.type));
    std::vector<I64> v(static_cast<std::size_t>(c.type.volume()));
    for (std::size_t i = 0; i < v.size(); ++i) v[i] = load_int(c, static_cast<I64>(i));
    return v;
}

// The checks every broadcasting binary operator makes; returns the output type.
inline const TensorType& binary_shapes(Ctx& c) {
    const TensorType& out = c.out_type(0);
    error_if(c.in_type(0).dtype != c.in_type(1).dtype, "input1 and input2 types differ");
    return out;
}

template <class F>
void float_unary(Ctx& c, F f) {
    const ConstData& x = c.in(0);
    const TensorType& out = c.out_type(0);
    error_if(out != x.type, "the output type differs from the input's");
    with_float(out.dtype, [&](auto tag) {
        using T = decltype(tag);
        const Floats<T> a = floats<T>(x);
        OutFloats<T> y(c.alloc(0));
        const I64 n = out.volume();
        for (I64 i = 0; i < n; ++i) y.p[i] = f(a.p[i]);
        c.set(0, y.finish());
    });
}

template <class F>
void int_unary(Ctx& c, F f) {
    const ConstData& x = c.in(0);
    const TensorType& out = c.out_type(0);
    error_if(out != x.type, "the output type differs from the input's");
    auto y = c.alloc(0);
    const I64 n = out.volume();
    for (I64 i = 0; i < n; ++i) store_int(*y, i, f(load_int(x, i)));
    c.set(0, y);
}

struct AxisSplit {
    I64 outer = 1, len = 1, inner = 1;
};
inline AxisSplit split_at(const Shape& s, I64 axis) {
    AxisSplit a;
    for (I64 d = 0; d < axis; ++d) a.outer *= s[d];
    a.len = s[axis];
    for (std::size_t d = axis + 1; d < s.size(); ++d) a.inner *= s[d];
    return a;
}

// ---- tensor operators (2.3) ----------------------------------------------------------------------

// ERROR_IF(out != idiv_check(num, den) + 1), the `rule` so written (idiv_check fails when the
// division is not exact).
inline void check_extent(I64 out, I64 num, I64 den, const std::string& rule) {
    error_if(den == 0 || num % den != 0 || out != num / den + 1, rule);
}

// Integer items minus a zero point, as int32 (the operands of the integer convolutions).
inline std::vector<std::int32_t> minus_zp(const ConstData& c, I64 zp) {
    const I64 n = c.type.volume();
    std::vector<std::int32_t> v(static_cast<std::size_t>(n));
    for (I64 i = 0; i < n; ++i) v[i] = static_cast<std::int32_t>(load_int(c, i) - zp);
    return v;
}

// The accumulator type of an integer convolution / matmul (acc_t): i48 for i16 inputs.
inline DType int_acc(DType in) { return in == DType::i16 ? DType::i48 : DType::i32; }

inline void check_acc(DType acc, I64 v) {
    require(v >= min_s(acc) && v <= max_s(acc), std::string("apply_add_s<") + to_string(acc) + "> in range (accumulator overflow)");
}

// Adds the bias and stores out[pos * OC + oc] for the float convolutions.
inline void add_bias_float(float* out, I64 positions, I64 OC, const Floats<float>& bias, I64 BC) {
    for (I64 p = 0; p < positions; ++p)
        for (I64 oc = 0; oc < OC; ++oc) out[p * OC + oc] += bias[BC == 1 ? 0 : oc];
}

// Copies `count` items of `bytes` bytes.
inline void copy_items(std::uint8_t* dst, const std::uint8_t* src, I64 count, std::size_t bytes) {
    std::memcpy(dst, src, static_cast<std::size_t>(count) * bytes);
}

// The unsigned value of the low `bits` bits.
inline std::uint64_t unsigned_of(I64 v, I64 bits) {
    return static_cast<std::uint64_t>(v) & (bits >= 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << bits) - 1);
}

}  // namespace kernels
}  // namespace nnef::tosa
