#include "lowering/tosa/interpreter.hpp"

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

namespace nnef::tosa {

// ---- public helpers (spec 4.5.5) ---------------------------------------------------------------

std::optional<std::int32_t> apply_scale_32(std::int64_t value, std::int32_t multiplier, std::int32_t shift,
                                           bool double_round) {
    if (multiplier < 0 || shift < 2 || shift > 62) return std::nullopt;
    const std::int64_t half = std::int64_t{1} << (shift - 1);
    if (value < -half || value >= half) return std::nullopt;
    if (value < std::numeric_limits<std::int32_t>::min() || value > std::numeric_limits<std::int32_t>::max())
        return std::nullopt;  // the argument is an int32_t
    std::int64_t round = half;
    if (double_round && shift > 31) round += value >= 0 ? (std::int64_t{1} << 30) : -(std::int64_t{1} << 30);
    std::int64_t result = value * multiplier + round;
    result >>= shift;  // arithmetic shift
    return static_cast<std::int32_t>(result);
}

std::optional<std::int32_t> apply_scale_16(std::int64_t value, std::int32_t multiplier, std::int32_t shift) {
    if (multiplier < 0 || multiplier > std::numeric_limits<std::int16_t>::max() || shift < 2 || shift > 62)
        return std::nullopt;
    const std::int64_t round = std::int64_t{1} << (shift - 1);
    std::int64_t result = value * multiplier + round;
    result >>= shift;
    if (result < std::numeric_limits<std::int32_t>::min() || result > std::numeric_limits<std::int32_t>::max())
        return std::nullopt;
    return static_cast<std::int32_t>(result);
}

std::pair<std::int32_t, std::int32_t> reciprocal_scale(std::uint32_t value) {
    // k = 32 - count_leading_zeros(value - 1): (1 << k) / 2 < value <= (1 << k)
    std::int32_t k = 0;
    while (k < 32 && (std::uint64_t{1} << k) < value) ++k;
    const std::int64_t numerator = ((std::int64_t{1} << 30) + 1) << k;
    return {static_cast<std::int32_t>(numerator / value), 30 + k};
}

std::optional<std::int32_t> apply_lookup_s(const std::int16_t* table, std::int32_t value) {
    const std::int32_t clipped = std::min(32767, std::max(-32768, value));
    const std::int32_t index = (clipped + 32768) >> 7;
    const std::int32_t fraction = clipped & 0x7f;
    const std::int32_t base = table[index];
    const std::int32_t next = table[index + 1];
    const std::int32_t slope = next - base;
    if (slope < -32768 || slope > 32767) return std::nullopt;
    return base * 128 + slope * fraction;  // (base << 7) + slope * fraction
}

namespace tosa_interpreter_cpp {

// Rounds |d| to the grid of a binary format with `mant` fraction bits and minimum normal exponent
// `emin`, ties to even; the result is exactly representable in float (or is infinite).
double round_to_format(double d, int mant, int emin, double max_finite) {
    double a = std::fabs(d);
    if (a == 0.0 || std::isinf(a)) return d;
    int e = 0;
    std::frexp(a, &e);                          // a = m * 2^e, m in [0.5, 1)
    const int q = std::max(e - 1, emin) - mant;  // exponent of one unit in the last place
    double r = std::ldexp(std::nearbyint(std::ldexp(a, -q)), q);
    if (r > max_finite) r = std::numeric_limits<double>::infinity();
    return std::copysign(r, d);
}

}  // namespace tosa_interpreter_cpp

std::uint16_t fp64_to_fp16(double d) {
    if (std::isnan(d)) return 0x7e00;
    return fp32_to_fp16(static_cast<float>(tosa_interpreter_cpp::round_to_format(d, 10, -14, 65504.0)));
}

std::uint16_t fp64_to_bf16(double d) {
    if (std::isnan(d)) return 0x7fc0;
    const double max_bf16 = std::ldexp(255.0, 120);  // (2 - 2^-7) * 2^127
    return fp32_to_bf16(static_cast<float>(tosa_interpreter_cpp::round_to_format(d, 7, -126, max_bf16)));
}

namespace tosa_interpreter_cpp {

using exec::MatrixView;
using exec::parallel_for;
using I64 = std::int64_t;

// An ERROR_IF that holds, a REQUIRE that fails, or an operator the interpreter cannot run.
struct Failure {
    std::string code;
    std::string message;
};

void error_if(bool condition, const std::string& rule) {
    if (condition) throw Failure{"error-if", "ERROR_IF(" + rule + ")"};
}
void require(bool condition, const std::string& rule) {
    if (!condition) throw Failure{"unpredictable", "REQUIRE(" + rule + ") fails: the result is unpredictable"};
}
[[noreturn]] void unsupported(const std::string& what) { throw Failure{"unsupported", what}; }

std::string shape_str(const Shape& s) {
    std::string r = "[";
    for (std::size_t i = 0; i < s.size(); ++i) r += (i ? "," : "") + std::to_string(s[i]);
    return r + "]";
}

// ---- element access ----------------------------------------------------------------------------

I64 min_s(DType t) {
    switch (t) {
        case DType::bool_: return 0;
        case DType::i8: return -128;
        case DType::i16: return -32768;
        case DType::i32: return std::numeric_limits<std::int32_t>::min();
        case DType::i48: return -(I64{1} << 47);
        default: return std::numeric_limits<I64>::min();
    }
}
I64 max_s(DType t) {
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
I64 load_int(const ConstData& c, I64 i) {
    switch (c.type.dtype) {
        case DType::bool_: return c.items<std::uint8_t>()[i] ? 1 : 0;
        case DType::i8: return c.items<std::int8_t>()[i];
        case DType::i16: return c.items<std::int16_t>()[i];
        case DType::i32: return c.items<std::int32_t>()[i];
        case DType::i48:
        case DType::shape: return c.items<std::int64_t>()[i];
        default: unsupported(std::string("integer access to a ") + to_string(c.type.dtype) + " tensor");
    }
}

// Truncates to the width of the type (truncate<out_t>; i48 keeps the low 48 bits, sign-extended).
I64 truncate_to(DType t, I64 v) {
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

void store_int(ConstData& c, I64 i, I64 v) {
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

double load_float(const ConstData& c, I64 i) {
    switch (c.type.dtype) {
        case DType::fp32: return c.items<float>()[i];
        case DType::fp16: return fp16_to_fp32(c.items<std::uint16_t>()[i]);
        case DType::bf16: return bf16_to_fp32(c.items<std::uint16_t>()[i]);
        default: unsupported(std::string("floating-point access to a ") + to_string(c.type.dtype) + " tensor");
    }
}

// round_to_nearest_float to the item type.
void store_float(ConstData& c, I64 i, double v) {
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

Shape row_strides(const Shape& s) {
    Shape st(s.size(), 1);
    for (std::size_t i = s.size(); i-- > 1;) st[i - 1] = st[i] * s[i];
    return st;
}

Shape broadcast_shape(const Shape& a, const Shape& b) {
    error_if(a.size() != b.size(), "rank(shape1) != rank(shape2)");
    Shape r = a;
    for (std::size_t i = 0; i < r.size(); ++i) {
        if (r[i] == 1) r[i] = b[i];
        else error_if(b[i] != 1 && b[i] != r[i], "shape2[" + std::to_string(i) + "] != 1 && shape2[i] != shape[i]");
    }
    return r;
}

// Calls row(output offset, input offsets, input steps, count) over the rows (last dimension) of
// `out`, the N inputs broadcast to it (apply_broadcast): along a row, input k advances by step[k]
// (0 where it is broadcast).
template <std::size_t N, class F>
void for_each_row(const Shape& out, const std::array<const Shape*, N>& ins, F&& row) {
    const std::size_t r = out.size();
    std::array<I64, N> base{}, step{};
    if (r == 0) {
        row(I64{0}, base, step, I64{1});
        return;
    }
    for (I64 e : out)
        if (e == 0) return;
    std::array<Shape, N> st;
    for (std::size_t k = 0; k < N; ++k) {
        const Shape s = row_strides(*ins[k]);
        st[k].assign(r, 0);
        for (std::size_t d = 0; d < r; ++d) st[k][d] = (*ins[k])[d] == out[d] ? s[d] : 0;
        step[k] = st[k][r - 1];
    }
    const I64 inner = out[r - 1];
    Shape idx(r, 0);
    for (I64 o = 0;; o += inner) {
        for (std::size_t k = 0; k < N; ++k) {
            I64 b = 0;
            for (std::size_t d = 0; d + 1 < r; ++d) b += idx[d] * st[k][d];
            base[k] = b;
        }
        row(o, base, step, inner);
        // the next position of the outer dimensions
        std::size_t d = r - 1;
        bool done = true;
        while (d-- > 0) {
            if (++idx[d] < out[d]) {
                done = false;
                break;
            }
            idx[d] = 0;
        }
        if (done) return;
    }
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
I64 add_s(DType t, I64 a, I64 b) {
    const I64 c = a + b;
    require(c >= min_s(t) && c <= max_s(t), std::string("apply_add_s<") + to_string(t) + "> in range");
    return c;
}
I64 sub_s(DType t, I64 a, I64 b) {
    const I64 c = a - b;
    require(c >= min_s(t) && c <= max_s(t), std::string("apply_sub_s<") + to_string(t) + "> in range");
    return c;
}

// Like ConstData::allocate, without zeroing the items (results are written in full).
std::shared_ptr<ConstData> uninitialized(const TensorType& type) {
    auto c = std::make_shared<ConstData>();
    c->type = type;
    const std::size_t n = c->byte_size();
    std::shared_ptr<std::uint64_t[]> bytes(new std::uint64_t[(n + 7) / 8 + 1]);
    c->data = bytes.get();
    c->owner = std::shared_ptr<const void>(bytes, bytes.get());
    return c;
}

}  // namespace tosa_interpreter_cpp

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
    // Runs block `b` on `inputs`; throws tosa_interpreter_cpp::Reported after reporting an error.
    std::vector<ConstPtr> run_block(std::uint32_t b, const std::vector<ConstPtr>& inputs, Diagnostics& diags);
    void report(const Op& op, const std::string& code, const std::string& message, Diagnostics& diags) const;
};

namespace tosa_interpreter_cpp {

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
I64 single_int(const ConstData& c, const char* name) {
    error_if(c.type.volume() != 1, std::string("tensor_size(") + name + ") != 1");
    return load_int(c, 0);
}
double single_float(const ConstData& c, const char* name) {
    error_if(c.type.volume() != 1, std::string("tensor_size(") + name + ") != 1");
    return load_float(c, 0);
}
// A zero point: an integer for integer types; for floating-point types it must be zero.
I64 zero_point(const ConstData& c, const char* name) {
    if (is_float(c.type.dtype)) {
        error_if(single_float(c, name) != 0.0, std::string("!is_same<in_t,i8_t>() && ") + name + " != 0");
        return 0;
    }
    return single_int(c, name);
}
// The items of a shape_t operand.
std::vector<I64> shape_operand(const ConstData& c, const char* name) {
    if (c.type.dtype != DType::shape && !is_integer(c.type.dtype))
        unsupported(std::string("'") + name + "' must be a shape value, not " + to_string(c.type));
    std::vector<I64> v(static_cast<std::size_t>(c.type.volume()));
    for (std::size_t i = 0; i < v.size(); ++i) v[i] = load_int(c, static_cast<I64>(i));
    return v;
}

void check_same_shape(const Shape& a, const Shape& b, const char* rule) { error_if(a != b, rule); }

// ---- data layout (2.10), scatter / gather (2.11) -------------------------------------------------

// Copies `count` items of `bytes` bytes.
inline void copy_items(std::uint8_t* dst, const std::uint8_t* src, I64 count, std::size_t bytes) {
    std::memcpy(dst, src, static_cast<std::size_t>(count) * bytes);
}

void op_concat(Ctx& c) {
    error_if(c.inputs() == 0, "input1 == []");
    const TensorType& out = c.out_type(0);
    const I64 axis = c.attr<I64>(AttrName::axis);
    const Shape& s0 = c.in_type(0).shape;
    error_if(axis < 0 || axis >= std::max<I64>(1, static_cast<I64>(s0.size())), "axis < 0 || axis >= max(1, rank(shapes1[0]))");
    error_if(s0.empty(), "rank(shapes1[0]) == 0: nothing to concatenate along");
    I64 axis_sum = 0;
    for (std::size_t t = 0; t < c.inputs(); ++t) {
        const Shape& s = c.in_type(t).shape;
        error_if(s.size() != s0.size(), "rank(shapes1[shape_index]) != rank(shapes1[0])");
        error_if(c.in_type(t).dtype != out.dtype, "input and output element types differ");
        for (std::size_t d = 0; d < s.size(); ++d) {
            if (static_cast<I64>(d) == axis) axis_sum += s[d];
            else error_if(s[d] != s0[d], "shapes1[shape_index][axis_index] != shapes1[0][axis_index]");
        }
    }
    error_if(out.shape.size() != s0.size(), "rank(shape) != rank(shapes1[0])");
    error_if(axis_sum != out.shape[axis], "axis_sum != shape[axis]");
    for (std::size_t d = 0; d < s0.size(); ++d)
        if (static_cast<I64>(d) != axis) error_if(out.shape[d] != s0[d], "shape[d] != shapes1[0][d]");
    auto y = c.alloc(0);
    const std::size_t bytes = storage_bytes(out.dtype);
    I64 outer = 1, inner = 1;
    for (I64 d = 0; d < axis; ++d) outer *= out.shape[d];
    for (std::size_t d = axis + 1; d < out.shape.size(); ++d) inner *= out.shape[d];
    auto* dst = static_cast<std::uint8_t*>(const_cast<void*>(y->data));
    const I64 out_row = out.shape[axis] * inner;
    I64 at = 0;
    for (std::size_t t = 0; t < c.inputs(); ++t) {
        const ConstData& x = c.in(t);
        const I64 row = x.type.shape[axis] * inner;
        const auto* src = static_cast<const std::uint8_t*>(x.data);
        for (I64 o = 0; o < outer; ++o)
            copy_items(dst + (o * out_row + at) * bytes, src + o * row * bytes, row, bytes);
        at += row;
    }
    c.set(0, y);
}

void op_pad(Ctx& c) {
    const ConstData& x = c.in(0);
    const std::vector<I64> padding = shape_operand(c.in(1), "padding");
    const ConstData& pad_const = c.in(2);
    const TensorType& out = c.out_type(0);
    const std::size_t r = x.type.rank();
    error_if(out.rank() != r, "rank(shape) != rank(shape1)");
    error_if(padding.size() != 2 * r, "length(padding) != 2 * rank(shape1)");
    error_if(pad_const.type.dtype != x.type.dtype || out.dtype != x.type.dtype, "pad_const, input1 and output types differ");
    error_if(pad_const.type.volume() != 1, "tensor_size(pad_const) != 1");
    for (std::size_t i = 0; i < r; ++i) {
        error_if(padding[2 * i] < 0 || padding[2 * i + 1] < 0, "padding[i * 2] < 0 || padding[(i * 2) + 1] < 0");
        error_if(out.shape[i] != padding[2 * i] + x.type.shape[i] + padding[2 * i + 1],
                 "shape[i] != padding[i * 2] + shape1[i] + padding[(i * 2) + 1]");
    }
    auto y = c.alloc(0);
    const std::size_t bytes = storage_bytes(out.dtype);
    auto* dst = static_cast<std::uint8_t*>(const_cast<void*>(y->data));
    const auto* pc = static_cast<const std::uint8_t*>(pad_const.data);
    const I64 n = out.volume();
    for (I64 i = 0; i < n; ++i) std::memcpy(dst + i * bytes, pc, bytes);
    if (x.type.volume() == 0) return c.set(0, y);
    const Shape ost = row_strides(out.shape);
    const auto* src = static_cast<const std::uint8_t*>(x.data);
    if (r == 0) {
        std::memcpy(dst, src, bytes);
        return c.set(0, y);
    }
    const I64 inner = x.type.shape[r - 1];
    const I64 rows = x.type.volume() / inner;
    Shape idx(r, 0);
    for (I64 row = 0; row < rows; ++row) {
        I64 o = padding[2 * (r - 1)] * ost[r - 1];
        for (std::size_t d = 0; d + 1 < r; ++d) o += (idx[d] + padding[2 * d]) * ost[d];
        copy_items(dst + o * bytes, src + row * inner * bytes, inner, bytes);
        for (std::size_t d = r - 1; d-- > 0;) {
            if (++idx[d] < x.type.shape[d]) break;
            idx[d] = 0;
        }
    }
    c.set(0, y);
}

void op_reshape(Ctx& c) {
    const ConstPtr& x = c.in_ptr(0);
    const std::vector<I64> shape = shape_operand(c.in(1), "shape");
    const TensorType& out = c.out_type(0);
    error_if(Shape(shape.begin(), shape.end()) != out.shape, "shape operand != the output shape");
    error_if(x->type.volume() != out.volume(), "tensor_size(shape1) != tensor_size(shape)");
    error_if(x->type.dtype != out.dtype, "input1 and output types differ");
    c.set(0, ConstData::view(out, x->owner, x->data));  // same items, row-major: no copy
}

// Output position -> input offset through per-dimension input strides (any sign) and a base.
template <class Item>
void gather_strided(const Shape& out, const Shape& in_strides, I64 base, const Item* src, Item* dst) {
    const std::size_t r = out.size();
    if (r == 0) {
        dst[0] = src[base];
        return;
    }
    for (I64 e : out)
        if (e == 0) return;
    Shape idx(r, 0);
    const I64 inner = out[r - 1], is = in_strides[r - 1];
    I64 o = 0;
    while (true) {
        I64 b = base;
        for (std::size_t d = 0; d + 1 < r; ++d) b += idx[d] * in_strides[d];
        for (I64 j = 0; j < inner; ++j) dst[o++] = src[b + j * is];
        std::size_t d = r - 1;
        bool done = true;
        while (d-- > 0) {
            if (++idx[d] < out[d]) {
                done = false;
                break;
            }
            idx[d] = 0;
        }
        if (done) return;
    }
}

void gather_strided_bytes(std::size_t bytes, const Shape& out, const Shape& in_strides, I64 base, const void* src, void* dst) {
    switch (bytes) {
        case 1: return gather_strided(out, in_strides, base, static_cast<const std::uint8_t*>(src), static_cast<std::uint8_t*>(dst));
        case 2: return gather_strided(out, in_strides, base, static_cast<const std::uint16_t*>(src), static_cast<std::uint16_t*>(dst));
        case 4: return gather_strided(out, in_strides, base, static_cast<const std::uint32_t*>(src), static_cast<std::uint32_t*>(dst));
        default: return gather_strided(out, in_strides, base, static_cast<const std::uint64_t*>(src), static_cast<std::uint64_t*>(dst));
    }
}

void op_reverse(Ctx& c) {
    const ConstData& x = c.in(0);
    const TensorType& out = c.out_type(0);
    const I64 axis = c.attr<I64>(AttrName::axis);
    error_if(axis < 0 || axis >= static_cast<I64>(out.rank()), "axis < 0 || axis >= rank(shape)");
    error_if(out != x.type, "the output type differs from the input's");
    Shape st = row_strides(x.type.shape);
    const I64 base = (x.type.shape[axis] - 1) * st[axis];
    st[axis] = -st[axis];
    auto y = c.alloc(0);
    gather_strided_bytes(storage_bytes(out.dtype), out.shape, st, base, x.data, const_cast<void*>(y->data));
    c.set(0, y);
}

void op_slice(Ctx& c) {
    const ConstData& x = c.in(0);
    const std::vector<I64> start = shape_operand(c.in(1), "start");
    const std::vector<I64> size = shape_operand(c.in(2), "size");
    const TensorType& out = c.out_type(0);
    const std::size_t r = x.type.rank();
    error_if(r != start.size() || r != size.size(), "rank(shape1) != length(start) || rank(shape1) != length(size)");
    error_if(r != out.rank(), "rank(shape1) != rank(shape)");
    error_if(out.dtype != x.type.dtype, "input1 and output types differ");
    const Shape st = row_strides(x.type.shape);
    I64 base = 0;
    for (std::size_t i = 0; i < r; ++i) {
        error_if(start[i] < 0, "start[index] < 0");
        error_if(size[i] <= 0, "size[index] <= 0");
        error_if(start[i] + size[i] > x.type.shape[i], "start[index] + size[index] > shape1[index]");
        error_if(out.shape[i] != size[i], "shape[index] != size[index]");
        base += start[i] * st[i];
    }
    auto y = c.alloc(0);
    gather_strided_bytes(storage_bytes(out.dtype), out.shape, st, base, x.data, const_cast<void*>(y->data));
    c.set(0, y);
}

void op_tile(Ctx& c) {
    const ConstData& x = c.in(0);
    const std::vector<I64> multiples = shape_operand(c.in(1), "multiples");
    const TensorType& out = c.out_type(0);
    const std::size_t r = x.type.rank();
    error_if(r != out.rank(), "rank(shape1) != rank(shape)");
    error_if(multiples.size() != r, "length(multiples) != rank(shape1)");
    error_if(out.dtype != x.type.dtype, "input1 and output types differ");
    for (std::size_t i = 0; i < r; ++i) error_if(x.type.shape[i] * multiples[i] != out.shape[i], "shape1[i] * multiples[i] != shape[i]");
    auto y = c.alloc(0);
    const std::size_t bytes = storage_bytes(out.dtype);
    const Shape ist = row_strides(x.type.shape);
    const auto* src = static_cast<const std::uint8_t*>(x.data);
    auto* dst = static_cast<std::uint8_t*>(const_cast<void*>(y->data));
    const I64 n = out.volume();
    Shape idx(r, 0);
    for (I64 o = 0; o < n; ++o) {
        I64 off = 0;
        for (std::size_t d = 0; d < r; ++d) off += (idx[d] % x.type.shape[d]) * ist[d];
        std::memcpy(dst + o * bytes, src + off * bytes, bytes);
        for (std::size_t d = r; d-- > 0;) {
            if (++idx[d] < out.shape[d]) break;
            idx[d] = 0;
        }
    }
    c.set(0, y);
}

void op_transpose(Ctx& c) {
    const ConstData& x = c.in(0);
    const TensorType& out = c.out_type(0);
    const std::vector<I64>& perms = c.attr<std::vector<I64>>(AttrName::perms);
    const std::size_t r = x.type.rank();
    error_if(r != out.rank(), "rank(shape1) != rank(shape)");
    error_if(x.type.volume() != out.volume(), "tensor_size(shape1) != tensor_size(shape)");
    error_if(perms.size() != r, "length(perms) != rank(shape1)");
    error_if(out.dtype != x.type.dtype, "input1 and output types differ");
    std::vector<bool> used(r, false);
    for (I64 p : perms) {
        error_if(p >= static_cast<I64>(r), "index >= rank(shape1)");
        error_if(p < 0, "index < 0");
        error_if(used[p], "indexes_used[index] == true");
        used[p] = true;
    }
    const Shape ist = row_strides(x.type.shape);
    Shape st(r);
    for (std::size_t i = 0; i < r; ++i) {
        error_if(x.type.shape[perms[i]] != out.shape[i], "shape1[perms[i]] != shape[i]");
        st[i] = ist[perms[i]];
    }
    auto y = c.alloc(0);
    gather_strided_bytes(storage_bytes(out.dtype), out.shape, st, 0, x.data, const_cast<void*>(y->data));
    c.set(0, y);
}

void op_gather(Ctx& c) {
    const ConstData& values = c.in(0);
    const ConstData& indices = c.in(1);
    const TensorType& out = c.out_type(0);
    error_if(values.type.rank() != 3 || indices.type.rank() != 2 || out.rank() != 3, "values, indices and output must be [N,K,C], [N,W], [N,W,C]");
    const I64 N = values.type.shape[0], K = values.type.shape[1], C = values.type.shape[2], W = indices.type.shape[1];
    error_if(indices.type.shape[0] != N || out.shape != Shape{N, W, C}, "shapes of values [N,K,C], indices [N,W] and output [N,W,C] do not match");
    error_if(out.dtype != values.type.dtype, "values and output types differ");
    auto y = c.alloc(0);
    const std::size_t bytes = storage_bytes(out.dtype);
    const auto* src = static_cast<const std::uint8_t*>(values.data);
    auto* dst = static_cast<std::uint8_t*>(const_cast<void*>(y->data));
    for (I64 n = 0; n < N; ++n)
        for (I64 w = 0; w < W; ++w) {
            const I64 k = load_int(indices, n * W + w);
            require(0 <= k && k < K, "0 <= k && k < K");
            copy_items(dst + (n * W + w) * C * bytes, src + (n * K + k) * C * bytes, C, bytes);
        }
    c.set(0, y);
}

void op_scatter(Ctx& c) {
    const ConstData& values_in = c.in(0);
    const ConstData& indices = c.in(1);
    const ConstData& input = c.in(2);
    const TensorType& out = c.out_type(0);
    error_if(values_in.type.rank() != 3 || indices.type.rank() != 2 || input.type.rank() != 3, "values_in, indices and input must be [N,K,C], [N,W], [N,W,C]");
    const I64 N = values_in.type.shape[0], K = values_in.type.shape[1], C = values_in.type.shape[2], W = indices.type.shape[1];
    error_if(indices.type.shape[0] != N || input.type.shape != Shape{N, W, C} || out != values_in.type || input.type.dtype != out.dtype,
             "shapes of values_in [N,K,C], indices [N,W], input [N,W,C] and values_out [N,K,C] do not match");
    auto y = c.alloc(0);
    const std::size_t bytes = storage_bytes(out.dtype);
    auto* dst = static_cast<std::uint8_t*>(const_cast<void*>(y->data));
    copy_items(dst, static_cast<const std::uint8_t*>(values_in.data), out.volume(), bytes);
    std::vector<bool> modified(static_cast<std::size_t>(N * K), false);  // per row: every c alike
    const auto* src = static_cast<const std::uint8_t*>(input.data);
    for (I64 n = 0; n < N; ++n)
        for (I64 w = 0; w < W; ++w) {
            const I64 k = load_int(indices, n * W + w);
            require(0 <= k && k < K, "0 <= k && k < K");
            require(!modified[n * K + k], "output_modified[n,k,c] == false");
            modified[n * K + k] = true;
            copy_items(dst + (n * K + k) * C * bytes, src + (n * W + w) * C * bytes, C, bytes);
        }
    c.set(0, y);
}

void op_select(Ctx& c) {
    const ConstData& cond = c.in(0);
    const ConstData& a = c.in(1);
    const ConstData& b = c.in(2);
    const TensorType& out = c.out_type(0);
    error_if(cond.type.dtype != DType::bool_, "input1 is not bool_t");
    error_if(a.type.dtype != out.dtype || b.type.dtype != out.dtype, "input2, input3 and output types differ");
    error_if(out.shape != broadcast_shape(broadcast_shape(cond.type.shape, a.type.shape), b.type.shape),
             "shape != broadcast_shape(broadcast_shape(shape1, shape2), shape3)");
    auto y = c.alloc(0);
    const std::size_t bytes = storage_bytes(out.dtype);
    const auto* pc = cond.items<std::uint8_t>();
    const auto* pa = static_cast<const std::uint8_t*>(a.data);
    const auto* pb = static_cast<const std::uint8_t*>(b.data);
    auto* dst = static_cast<std::uint8_t*>(const_cast<void*>(y->data));
    for_each_broadcast<3>(out.shape, {&cond.type.shape, &a.type.shape, &b.type.shape}, [&](I64 o, const std::array<I64, 3>& i) {
        std::memcpy(dst + o * bytes, pc[i[0]] ? pa + i[1] * bytes : pb + i[2] * bytes, bytes);
    });
    c.set(0, y);
}

}  // namespace tosa_interpreter_cpp

namespace tosa_interpreter_cpp {

// ---- elementwise binary (2.5) and comparison (2.8) operators -----------------------------------

// The checks every broadcasting binary operator makes; returns the output type.
const TensorType& binary_shapes(Ctx& c) {
    const TensorType& out = c.out_type(0);
    error_if(out.shape != broadcast_shape(c.in_type(0).shape, c.in_type(1).shape), "shape != broadcast_shape(shape1, shape2)");
    error_if(c.in_type(0).dtype != c.in_type(1).dtype, "input1 and input2 types differ");
    return out;
}

template <class F>
void float_binary(Ctx& c, F f) {
    const ConstData& x1 = c.in(0);
    const ConstData& x2 = c.in(1);
    const TensorType& out = binary_shapes(c);
    error_if(out.dtype != x1.type.dtype, "input and output types differ");
    with_float(out.dtype, [&](auto tag) {
        using T = decltype(tag);
        const Floats<T> a = floats<T>(x1), b = floats<T>(x2);
        OutFloats<T> y(c.alloc(0));
        T* o = y.p;
        const T* pa = a.p;
        const T* pb = b.p;
        const I64 n = out.volume();
        if (x1.type.shape == out.shape && x2.type.shape == out.shape) {
            for (I64 i = 0; i < n; ++i) o[i] = f(pa[i], pb[i]);
        } else if (x1.type.shape == out.shape && x2.type.volume() == 1) {
            const T bv = pb[0];
            for (I64 i = 0; i < n; ++i) o[i] = f(pa[i], bv);
        } else if (x2.type.shape == out.shape && x1.type.volume() == 1) {
            const T av = pa[0];
            for (I64 i = 0; i < n; ++i) o[i] = f(av, pb[i]);
        } else {
            for_each_row<2>(out.shape, {&x1.type.shape, &x2.type.shape},
                            [&](I64 o0, const std::array<I64, 2>& base, const std::array<I64, 2>& step, I64 count) {
                                const T* ra = pa + base[0];
                                const T* rb = pb + base[1];
                                const I64 sa = step[0], sb = step[1];
                                T* ro = o + o0;
                                if (sa == 1 && sb == 1) {
                                    for (I64 j = 0; j < count; ++j) ro[j] = f(ra[j], rb[j]);
                                } else {
                                    for (I64 j = 0; j < count; ++j) ro[j] = f(ra[j * sa], rb[j * sb]);
                                }
                            });
        }
        c.set(0, y.finish());
    });
}

// f(a, b) returns the exact result; it is stored truncated to the output type.
template <class F>
void int_binary(Ctx& c, F f) {
    const ConstData& x1 = c.in(0);
    const ConstData& x2 = c.in(1);
    const TensorType& out = binary_shapes(c);
    auto y = c.alloc(0);
    for_each_broadcast<2>(out.shape, {&x1.type.shape, &x2.type.shape},
                          [&](I64 i, const std::array<I64, 2>& k) { store_int(*y, i, f(load_int(x1, k[0]), load_int(x2, k[1]))); });
    c.set(0, y);
}

void check_shift(DType t, I64 s) {
    const I64 bits = t == DType::i8 ? 8 : t == DType::i16 ? 16 : 32;
    require(0 <= s && s <= bits - 1, std::string("0 <= value2 && value2 <= ") + std::to_string(bits - 1) + " for " + to_string(t));
}

// The unsigned value of the low `bits` bits.
std::uint64_t unsigned_of(I64 v, I64 bits) {
    return static_cast<std::uint64_t>(v) & (bits >= 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << bits) - 1);
}

void op_binary(Ctx& c) {
    const DType t = c.in_type(0).dtype;
    const OpKind k = c.op.kind;
    const DType out = c.out_type(0).dtype;
    if (is_float(t)) {
        const NanMode nm = c.nan_mode();
        switch (k) {
            case OpKind::ADD: return float_binary(c, [](auto a, auto b) { return a + b; });
            case OpKind::SUB: return float_binary(c, [](auto a, auto b) { return a - b; });
            case OpKind::MUL:
                require(single_int(c.in(2), "shift") == 0, "is_same<in_t,int32_t>() || shift == 0");
                return float_binary(c, [](auto a, auto b) { return a * b; });
            case OpKind::POW: return float_binary(c, [](auto a, auto b) { return std::pow(a, b); });
            case OpKind::MAXIMUM: return float_binary(c, [nm](auto a, auto b) { return apply_max_f(a, b, nm); });
            case OpKind::MINIMUM: return float_binary(c, [nm](auto a, auto b) { return apply_min_f(a, b, nm); });
            default: break;
        }
        unsupported(std::string(to_string(k)) + " has no " + to_string(t) + " form");
    }
    if (t == DType::bool_) {
        switch (k) {
            case OpKind::LOGICAL_AND: return int_binary(c, [](I64 a, I64 b) -> I64 { return a && b; });
            case OpKind::LOGICAL_OR: return int_binary(c, [](I64 a, I64 b) -> I64 { return a || b; });
            case OpKind::LOGICAL_XOR: return int_binary(c, [](I64 a, I64 b) -> I64 { return a != b; });
            default: break;
        }
        unsupported(std::string(to_string(k)) + " has no bool form");
    }
    if (!is_integer(t)) unsupported(std::string(to_string(k)) + " has no " + to_string(t) + " form");
    const I64 bits = integer_bits(t);
    switch (k) {
        case OpKind::ADD: return int_binary(c, [t](I64 a, I64 b) { return add_s(t, a, b); });
        case OpKind::SUB: return int_binary(c, [t](I64 a, I64 b) { return sub_s(t, a, b); });
        case OpKind::MAXIMUM: return int_binary(c, [](I64 a, I64 b) { return a >= b ? a : b; });
        case OpKind::MINIMUM: return int_binary(c, [](I64 a, I64 b) { return a < b ? a : b; });
        case OpKind::MUL: {
            const I64 shift = single_int(c.in(2), "shift");
            require(0 <= shift && shift <= 63, "0 <= shift && shift <= 63");
            require(t == DType::i32 || shift == 0, "is_same<in_t,int32_t>() || shift == 0");
            if (t == DType::i32 && shift > 0)
                return int_binary(c, [shift](I64 a, I64 b) {
                    I64 product = a * b;
                    const I64 round = I64{1} << (shift - 1);
                    product = (product + round) >> shift;
                    require(product >= min_s(DType::i32) && product <= max_s(DType::i32),
                            "product >= minimum_s<i32_t>() && product <= maximum_s<i32_t>()");
                    return product;
                });
            // apply_mul_s<out_t>: the low bits of the product
            return int_binary(c, [out](I64 a, I64 b) { return truncate_to(out, a * b); });
        }
        case OpKind::INTDIV:
            return int_binary(c, [t](I64 a, I64 b) {
                require(b != 0, "value2 != 0");
                const I64 q = a / b;  // truncates towards zero
                require(q >= min_s(t) && q <= max_s(t), "apply_intdiv_s result in range");
                return q;
            });
        case OpKind::BITWISE_AND: return int_binary(c, [](I64 a, I64 b) { return a & b; });
        case OpKind::BITWISE_OR: return int_binary(c, [](I64 a, I64 b) { return a | b; });
        case OpKind::BITWISE_XOR: return int_binary(c, [](I64 a, I64 b) { return a ^ b; });
        case OpKind::LOGICAL_LEFT_SHIFT:
            return int_binary(c, [t, bits](I64 a, I64 b) {
                check_shift(t, b);
                return static_cast<I64>(unsigned_of(a, bits) << b);  // truncated on store
            });
        case OpKind::LOGICAL_RIGHT_SHIFT:
            return int_binary(c, [t, bits](I64 a, I64 b) {
                check_shift(t, b);
                return static_cast<I64>(unsigned_of(a, bits) >> b);
            });
        case OpKind::ARITHMETIC_RIGHT_SHIFT: {
            const bool round = c.attr<bool>(AttrName::round);
            return int_binary(c, [t, round](I64 a, I64 b) {
                check_shift(t, b);
                I64 result = a >> b;
                if (round && b > 0 && ((a >> (b - 1)) & 1) != 0) result = result + 1;
                return result;
            });
        }
        default: break;
    }
    unsupported(std::string(to_string(k)) + " has no " + to_string(t) + " form");
}

void op_compare(Ctx& c) {
    const ConstData& x1 = c.in(0);
    const ConstData& x2 = c.in(1);
    const TensorType& out = binary_shapes(c);
    error_if(out.dtype != DType::bool_, "output is not bool_t");
    const OpKind k = c.op.kind;
    auto y = c.alloc(0);
    auto* o = y->mutable_items<std::uint8_t>();
    auto cmp = [k](auto a, auto b) -> bool {
        return k == OpKind::EQUAL ? a == b : k == OpKind::GREATER ? a > b : a >= b;  // false for a NaN
    };
    if (is_float(x1.type.dtype)) {
        const Floats<double> a = floats<double>(x1), b = floats<double>(x2);
        for_each_broadcast<2>(out.shape, {&x1.type.shape, &x2.type.shape},
                              [&](I64 i, const std::array<I64, 2>& j) { o[i] = cmp(a.p[j[0]], b.p[j[1]]); });
    } else {
        for_each_broadcast<2>(out.shape, {&x1.type.shape, &x2.type.shape},
                              [&](I64 i, const std::array<I64, 2>& j) { o[i] = cmp(load_int(x1, j[0]), load_int(x2, j[1])); });
    }
    c.set(0, y);
}

// ---- elementwise unary operators (2.4, 2.6) ------------------------------------------------------

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

template <class T>
T sigmoid_of(T x) { return T(1) / (T(1) + std::exp(-x)); }

void op_unary(Ctx& c) {
    const DType t = c.in_type(0).dtype;
    const OpKind k = c.op.kind;
    if (is_float(t)) {
        switch (k) {
            case OpKind::ABS: return float_unary(c, [](auto v) { return std::fabs(v); });
            case OpKind::CEIL: return float_unary(c, [](auto v) { return std::ceil(v); });
            case OpKind::FLOOR: return float_unary(c, [](auto v) { return std::floor(v); });
            case OpKind::COS: return float_unary(c, [](auto v) { return std::cos(v); });
            case OpKind::SIN: return float_unary(c, [](auto v) { return std::sin(v); });
            case OpKind::EXP: return float_unary(c, [](auto v) { return std::exp(v); });
            case OpKind::LOG: return float_unary(c, [](auto v) { return std::log(v); });  // -inf at 0, NaN below
            case OpKind::RECIPROCAL: return float_unary(c, [](auto v) { return decltype(v)(1) / v; });
            case OpKind::RSQRT:
                return float_unary(c, [](auto v) {
                    using T = decltype(v);
                    return v < 0 ? std::numeric_limits<T>::quiet_NaN() : T(1) / std::sqrt(v);
                });
            case OpKind::ERF: return float_unary(c, [](auto v) { return std::erf(v); });
            case OpKind::SIGMOID: return float_unary(c, [](auto v) { return sigmoid_of(v); });
            case OpKind::TANH: return float_unary(c, [](auto v) { return std::tanh(v); });
            default: break;
        }
        unsupported(std::string(to_string(k)) + " has no " + to_string(t) + " form");
    }
    if (t == DType::bool_ && k == OpKind::LOGICAL_NOT) return int_unary(c, [](I64 v) -> I64 { return !v; });
    if (!is_integer(t)) unsupported(std::string(to_string(k)) + " has no " + to_string(t) + " form");
    switch (k) {
        case OpKind::ABS:
            return int_unary(c, [t](I64 v) { return v < 0 ? sub_s(t, 0, v) : v; });
        case OpKind::BITWISE_NOT: return int_unary(c, [](I64 v) { return ~v; });
        case OpKind::CLZ:
            return int_unary(c, [](I64 v) -> I64 {
                const std::uint32_t u = static_cast<std::uint32_t>(v);
                I64 n = 0;
                for (std::uint32_t mask = 0x80000000u; mask && !(u & mask); mask >>= 1) ++n;
                return n;
            });
        default: break;
    }
    unsupported(std::string(to_string(k)) + " has no " + to_string(t) + " form");
}

void op_negate(Ctx& c) {
    const DType t = c.in_type(0).dtype;
    const I64 in_zp = zero_point(c.in(1), "input1_zp");
    const I64 out_zp = zero_point(c.in(2), "output_zp");
    if (t != DType::i8) error_if(in_zp != 0 || out_zp != 0, "!is_same<in_out_t,i8_t>() && (input1_zp != 0 || output_zp != 0)");
    if (is_float(t)) return float_unary(c, [](auto v) { return -v; });
    if (!is_integer(t)) unsupported(std::string("NEGATE has no ") + to_string(t) + " form");
    const DType acc = t == DType::i48 ? DType::i48 : DType::i32;
    int_unary(c, [&](I64 v) {
        I64 value = sub_s(acc, v, in_zp);
        value = sub_s(acc, 0, value);
        value = add_s(acc, value, out_zp);
        return std::min(max_s(t), std::max(min_s(t), value));
    });
}

// A CLAMP bound: a double for floating-point types, an integer for integer types (either is read).
double num_attr(const Ctx& c, AttrName n) {
    const Attr* a = c.op.attr(n);
    if (a && std::holds_alternative<double>(*a)) return std::get<double>(*a);
    if (a && std::holds_alternative<I64>(*a)) return static_cast<double>(std::get<I64>(*a));
    unsupported(std::string("attribute '") + to_string(n) + "' is missing");
}

// A double bound as T, beyond the range of float as an infinity (not an undefined conversion).
template <class T>
T bound_as(double v) {
    if constexpr (std::is_same_v<T, float>) {
        if (v > std::numeric_limits<float>::max()) return std::numeric_limits<float>::infinity();
        if (v < -std::numeric_limits<float>::max()) return -std::numeric_limits<float>::infinity();
    }
    return static_cast<T>(v);
}

void op_clamp(Ctx& c) {
    const DType t = c.in_type(0).dtype;
    const NanMode nm = c.nan_mode();
    if (is_float(t)) {
        const double lo = num_attr(c, AttrName::min_val), hi = num_attr(c, AttrName::max_val);
        error_if(hi < lo, "max_val < min_val");
        error_if(std::isnan(lo) || std::isnan(hi), "isNaN(min_val) || isNaN(max_val)");
        return float_unary(c, [&](auto v) {
            using T = decltype(v);
            return apply_min_f(apply_max_f(v, bound_as<T>(lo), nm), bound_as<T>(hi), nm);
        });
    }
    if (!is_integer(t)) unsupported(std::string("CLAMP has no ") + to_string(t) + " form");
    const Attr* a = c.op.attr(AttrName::min_val);
    const Attr* b = c.op.attr(AttrName::max_val);
    if (!a || !b || !std::holds_alternative<I64>(*a) || !std::holds_alternative<I64>(*b))
        unsupported("integer CLAMP needs integer min_val and max_val");
    const I64 lo = std::get<I64>(*a), hi = std::get<I64>(*b);
    error_if(hi < lo, "max_val < min_val");
    int_unary(c, [lo, hi](I64 v) { return std::min(hi, std::max(lo, v)); });
}

void op_table(Ctx& c) {
    const ConstData& x = c.in(0);
    const ConstData& table = c.in(1);
    const TensorType& out = c.out_type(0);
    error_if(out.shape != x.type.shape, "the output shape differs from the input's");
    const I64 n = out.volume();
    auto y = c.alloc(0);
    if (x.type.dtype == DType::i8) {
        require(table.type.volume() == 256, "length(table) == TABLE_SIZE (256)");
        error_if(table.type.dtype != DType::i8 || out.dtype != DType::i8, "an i8 TABLE has an i8 table and output");
        for (I64 i = 0; i < n; ++i) store_int(*y, i, load_int(table, load_int(x, i) + 128));
    } else if (x.type.dtype == DType::i16) {
        require(table.type.volume() == 513, "length(table) == TABLE_SIZE (513)");
        error_if(table.type.dtype != DType::i16 || out.dtype != DType::i32, "an i16 TABLE has an i16 table and an i32 output");
        const std::int16_t* tab = table.items<std::int16_t>();
        for (I64 i = 0; i < n; ++i) {
            const std::optional<std::int32_t> v = apply_lookup_s(tab, static_cast<std::int32_t>(load_int(x, i)));
            require(v.has_value(), "slope >= minimum<int16_t> && slope <= maximum<int16_t>");
            store_int(*y, i, *v);
        }
    } else {
        unsupported(std::string("TABLE has no ") + to_string(x.type.dtype) + " form");
    }
    c.set(0, y);
}

// ---- type conversion (2.13) ----------------------------------------------------------------------

void op_cast(Ctx& c) {
    const ConstData& x = c.in(0);
    const TensorType& out = c.out_type(0);
    error_if(out.shape != x.type.shape, "the output shape differs from the input's");
    const DType it = x.type.dtype, ot = out.dtype;
    const I64 n = out.volume();
    auto y = c.alloc(0);
    if (ot == DType::bool_) {
        for (I64 i = 0; i < n; ++i) store_int(*y, i, is_float(it) ? load_float(x, i) != 0.0 : load_int(x, i) != 0);
    } else if (is_float(ot)) {
        if (it == DType::fp32 && ot == DType::fp16) {
            for (I64 i = 0; i < n; ++i) y->mutable_items<std::uint16_t>()[i] = fp32_to_fp16(x.items<float>()[i]);
        } else if (it == DType::fp32 && ot == DType::bf16) {
            for (I64 i = 0; i < n; ++i) y->mutable_items<std::uint16_t>()[i] = fp32_to_bf16(x.items<float>()[i]);
        } else {
            // exact in double for every input type, then one rounding
            for (I64 i = 0; i < n; ++i)
                store_float(*y, i, is_float(it) ? load_float(x, i) : static_cast<double>(load_int(x, i)));
        }
    } else if (is_integer(ot)) {
        const double lo = static_cast<double>(min_s(ot)), hi = static_cast<double>(max_s(ot));
        for (I64 i = 0; i < n; ++i) {
            if (is_float(it)) {
                const double v = load_float(x, i);
                require(!std::isnan(v), "a NaN input is not cast to an integer (unpredictable)");
                // round to nearest, ties to even; saturate
                store_int(*y, i, static_cast<I64>(std::min(hi, std::max(lo, std::nearbyint(v)))));
            } else {
                store_int(*y, i, load_int(x, i));  // sign_extend, or truncate to the smaller type
            }
        }
    } else {
        unsupported(std::string("CAST to ") + to_string(ot));
    }
    c.set(0, y);
}

void op_rescale(Ctx& c) {
    const ConstData& x = c.in(0);
    const ConstData& multiplier = c.in(1);
    const ConstData& shift = c.in(2);
    const TensorType& out = c.out_type(0);
    const DType in_t = x.type.dtype, out_t = out.dtype;
    const bool scale32 = c.attr<bool>(AttrName::scale32);
    const RoundingMode rounding = c.attr<RoundingMode>(AttrName::rounding_mode);
    const bool per_channel = c.attr<bool>(AttrName::per_channel);
    const bool input_unsigned = c.attr<bool>(AttrName::input_unsigned);
    const bool output_unsigned = c.attr<bool>(AttrName::output_unsigned);
    if (!is_integer(in_t) || !(out_t == DType::i8 || out_t == DType::i16 || out_t == DType::i32))
        unsupported(std::string("RESCALE from ") + to_string(in_t) + " to " + to_string(out_t));
    error_if(out.shape != x.type.shape, "the output shape differs from the input's");
    // zero points: read as the signless bits of their type
    const I64 in_zp_raw = single_int(c.in(3), "input_zp");
    const I64 out_zp_raw = single_int(c.in(4), "output_zp");
    const I64 in_zp = input_unsigned ? static_cast<I64>(unsigned_of(in_zp_raw, integer_bits(in_t))) : in_zp_raw;
    const I64 out_zp = output_unsigned ? static_cast<I64>(unsigned_of(out_zp_raw, integer_bits(out_t))) : out_zp_raw;
    error_if(in_t != DType::i8 && (in_t != DType::i16 || !input_unsigned) && in_zp != 0,
             "!is_same<in_t,i8_t>() && (!is_same<in_t,i16_t>() || input_unsigned == false) && input_zp != 0");
    error_if(out_t != DType::i8 && (out_t != DType::i16 || !output_unsigned) && out_zp != 0,
             "!is_same<out_t,i8_t>() && (!is_same<out_t,i16_t>() || output_unsigned == false) && output_zp != 0");
    error_if(in_t == DType::i16 && input_unsigned && in_zp != 0 && in_zp != 32768,
             "is_same<in_t,i16_t>() && input_unsigned == true && input_zp != 0 && input_zp != 32768");
    error_if(out_t == DType::i16 && output_unsigned && out_zp != 0 && out_zp != 32768,
             "is_same<out_t,i16_t>() && output_unsigned == true && output_zp != 0 && output_zp != 32768");
    error_if(scale32 && in_t == DType::i48, "scale32 && is_same<in_t,i48_t>()");
    error_if(!scale32 && rounding == RoundingMode::DOUBLE_ROUND, "!scale32 && (rounding_mode == DOUBLE_ROUND)");
    error_if(input_unsigned && output_unsigned, "input_unsigned && output_unsigned");
    error_if(out_t == DType::i32 && input_unsigned, "is_same<out_t,i32_t>() && input_unsigned");
    error_if(in_t == DType::i32 && output_unsigned, "is_same<in_t,i32_t>() && output_unsigned");
    error_if(in_t == DType::i48 && output_unsigned, "is_same<in_t,i48_t>() && output_unsigned");
    error_if(in_t == DType::i48 && input_unsigned, "is_same<in_t, i48_t> && input_unsigned");
    error_if(in_t == DType::i32 && input_unsigned, "is_same<in_t, i32_t> && input_unsigned");
    error_if(out_t == DType::i32 && output_unsigned, "is_same<out_t, i32_t> && output_unsigned");
    error_if(per_channel && x.type.rank() < 1, "per_channel && rank(input) < 1");
    const I64 nc = per_channel ? x.type.shape.back() : 1;
    error_if(multiplier.type.volume() != nc || shift.type.volume() != nc,
             "multiplier and shift do not have NC = " + std::to_string(nc) + " items");
    error_if(multiplier.type.dtype != (scale32 ? DType::i32 : DType::i16), scale32 ? "scale32 and multiplier is not i32_t" : "!scale32 and multiplier is not i16_t");
    std::vector<std::int32_t> m(static_cast<std::size_t>(nc)), s(m.size());
    for (I64 i = 0; i < nc; ++i) {
        m[i] = static_cast<std::int32_t>(load_int(multiplier, i));
        s[i] = static_cast<std::int32_t>(load_int(shift, i));
    }
    const bool double_round = rounding == RoundingMode::DOUBLE_ROUND;
    const I64 in_bits = integer_bits(in_t), out_bits = integer_bits(out_t);
    const I64 lo = output_unsigned ? 0 : min_s(out_t);
    const I64 hi = output_unsigned ? (I64{1} << out_bits) - 1 : max_s(out_t);
    const I64 n = out.volume();
    auto y = c.alloc(0);
    for (I64 i = 0; i < n; ++i) {
        const I64 raw = load_int(x, i);
        const I64 value = (input_unsigned ? static_cast<I64>(unsigned_of(raw, in_bits)) : raw) - in_zp;
        const I64 ch = per_channel ? i % nc : 0;
        std::optional<std::int32_t> r = scale32 ? apply_scale_32(value, m[ch], s[ch], double_round)
                                                : apply_scale_16(value, m[ch], s[ch]);
        require(r.has_value(), scale32 ? "apply_scale_32: multiplier >= 0, 2 <= shift <= 62, value in range"
                                       : "apply_scale_16: 0 <= multiplier, 2 <= shift <= 62, result in int32 range");
        const I64 result = add_s(DType::i32, *r, out_zp);
        store_int(*y, i, std::min(hi, std::max(lo, result)));  // then the bits as out_t
    }
    c.set(0, y);
}

// ---- reductions (2.9) and ARGMAX (2.3.1) ---------------------------------------------------------

struct AxisSplit {
    I64 outer = 1, len = 1, inner = 1;
};
AxisSplit split_at(const Shape& s, I64 axis) {
    AxisSplit a;
    for (I64 d = 0; d < axis; ++d) a.outer *= s[d];
    a.len = s[axis];
    for (std::size_t d = axis + 1; d < s.size(); ++d) a.inner *= s[d];
    return a;
}

void op_reduce(Ctx& c) {
    const ConstData& x = c.in(0);
    const TensorType& out = c.out_type(0);
    const I64 axis = c.attr<I64>(AttrName::axis);
    const Shape& s1 = x.type.shape;
    error_if(axis < 0 || axis >= static_cast<I64>(s1.size()), "axis < 0 || axis >= rank(shape1)");
    error_if(out.rank() != s1.size() || out.shape[axis] != 1, "shape[axis] != 1");
    for (std::size_t d = 0; d < s1.size(); ++d)
        if (static_cast<I64>(d) != axis) error_if(out.shape[d] != s1[d], "shape[d] != shape1[d] off the axis");
    error_if(out.dtype != x.type.dtype, "input and output types differ");
    const AxisSplit a = split_at(s1, axis);
    const OpKind k = c.op.kind;
    const NanMode nm = c.nan_mode();
    auto y = c.alloc(0);
    const DType t = x.type.dtype;
    if (is_float(t)) {
        const Floats<double> v = floats<double>(x);
        for (I64 o = 0; o < a.outer; ++o)
            for (I64 j = 0; j < a.inner; ++j) {
                const double* p = v.p + o * a.len * a.inner + j;
                double acc = 0.0;
                switch (k) {
                    case OpKind::REDUCE_MAX:
                        acc = nm == NanMode::IGNORE ? std::numeric_limits<double>::quiet_NaN() : -std::numeric_limits<double>::infinity();
                        for (I64 i = 0; i < a.len; ++i) acc = apply_max_f(acc, p[i * a.inner], nm);
                        break;
                    case OpKind::REDUCE_MIN:
                        acc = nm == NanMode::IGNORE ? std::numeric_limits<double>::quiet_NaN() : std::numeric_limits<double>::infinity();
                        for (I64 i = 0; i < a.len; ++i) acc = apply_min_f(acc, p[i * a.inner], nm);
                        break;
                    case OpKind::REDUCE_PRODUCT:
                        acc = 1.0;
                        for (I64 i = 0; i < a.len; ++i) acc *= p[i * a.inner];
                        break;
                    case OpKind::REDUCE_SUM:
                        for (I64 i = 0; i < a.len; ++i) acc += p[i * a.inner];
                        break;
                    default: unsupported(std::string(to_string(k)) + " has no " + to_string(t) + " form");
                }
                store_float(*y, o * a.inner + j, acc);
            }
        return c.set(0, y);
    }
    if (t != DType::bool_ && !is_integer(t)) unsupported(std::string(to_string(k)) + " has no " + to_string(t) + " form");
    for (I64 o = 0; o < a.outer; ++o)
        for (I64 j = 0; j < a.inner; ++j) {
            const I64 base = o * a.len * a.inner + j;
            I64 acc = 0;
            switch (k) {
                case OpKind::REDUCE_ALL:
                    acc = 1;
                    for (I64 i = 0; i < a.len; ++i) acc = acc && load_int(x, base + i * a.inner);
                    break;
                case OpKind::REDUCE_ANY:
                    for (I64 i = 0; i < a.len; ++i) acc = acc || load_int(x, base + i * a.inner);
                    break;
                case OpKind::REDUCE_MAX:
                    acc = min_s(t);
                    for (I64 i = 0; i < a.len; ++i) acc = std::max(acc, load_int(x, base + i * a.inner));
                    break;
                case OpKind::REDUCE_MIN:
                    acc = max_s(t);
                    for (I64 i = 0; i < a.len; ++i) acc = std::min(acc, load_int(x, base + i * a.inner));
                    break;
                case OpKind::REDUCE_SUM:
                    for (I64 i = 0; i < a.len; ++i) acc = add_s(t, acc, load_int(x, base + i * a.inner));
                    break;
                default: unsupported(std::string(to_string(k)) + " has no " + to_string(t) + " form");
            }
            store_int(*y, o * a.inner + j, acc);
        }
    c.set(0, y);
}

void op_argmax(Ctx& c) {
    const ConstData& x = c.in(0);
    const TensorType& out = c.out_type(0);
    const I64 axis = c.attr<I64>(AttrName::axis);
    const Shape& s1 = x.type.shape;
    error_if(axis < 0 || axis >= static_cast<I64>(s1.size()), "axis < 0 || axis >= rank(shape1)");
    Shape expect;
    for (std::size_t d = 0; d < s1.size(); ++d)
        if (static_cast<I64>(d) != axis) expect.push_back(s1[d]);
    error_if(expect != out.shape, "flatten(left_shape, right_shape) != shape");
    error_if(out.dtype != DType::i32, "output is not i32_t");
    const AxisSplit a = split_at(s1, axis);
    const NanMode nm = c.nan_mode();
    const bool fl = is_float(x.type.dtype);
    const Floats<double> v = fl ? floats<double>(x) : Floats<double>{};
    auto y = c.alloc(0);
    for (I64 o = 0; o < a.outer; ++o)
        for (I64 j = 0; j < a.inner; ++j) {
            const I64 base = o * a.len * a.inner + j;
            I64 max_index = 0;
            if (fl) {
                double max_value = nm == NanMode::IGNORE ? std::numeric_limits<double>::quiet_NaN() : -std::numeric_limits<double>::infinity();
                for (I64 i = 0; i < a.len; ++i) {
                    const double result = apply_max_f(v.p[base + i * a.inner], max_value, nm);
                    if (result != max_value && !(std::isnan(result) && std::isnan(max_value))) {
                        max_value = result;
                        max_index = i;
                    }
                }
            } else {
                I64 max_value = min_s(x.type.dtype);
                for (I64 i = 0; i < a.len; ++i) {
                    const I64 value = load_int(x, base + i * a.inner);
                    if (value > max_value) {  // apply_max_s(value, max_value) != max_value
                        max_value = value;
                        max_index = i;
                    }
                }
            }
            store_int(*y, o * a.inner + j, max_index);
        }
    c.set(0, y);
}

}  // namespace tosa_interpreter_cpp

namespace tosa_interpreter_cpp {

// ---- tensor operators (2.3) ----------------------------------------------------------------------

// ERROR_IF(out != idiv_check(num, den) + 1), the `rule` so written (idiv_check fails when the
// division is not exact).
void check_extent(I64 out, I64 num, I64 den, const std::string& rule) {
    error_if(den == 0 || num % den != 0 || out != num / den + 1, rule);
}

void check_rank(const TensorType& t, std::size_t r, const char* name) {
    error_if(t.rank() != r, std::string("rank(") + name + ") != " + std::to_string(r));
}

// Integer items minus a zero point, as int32 (the operands of the integer convolutions).
std::vector<std::int32_t> minus_zp(const ConstData& c, I64 zp) {
    const I64 n = c.type.volume();
    std::vector<std::int32_t> v(static_cast<std::size_t>(n));
    for (I64 i = 0; i < n; ++i) v[i] = static_cast<std::int32_t>(load_int(c, i) - zp);
    return v;
}

// The accumulator type of an integer convolution / matmul (acc_t): i48 for i16 inputs.
DType int_acc(DType in) { return in == DType::i16 ? DType::i48 : DType::i32; }

void check_acc(DType acc, I64 v) {
    require(v >= min_s(acc) && v <= max_s(acc), std::string("apply_add_s<") + to_string(acc) + "> in range (accumulator overflow)");
}

// Adds the bias and stores out[pos * OC + oc] for the float convolutions.
void add_bias_float(float* out, I64 positions, I64 OC, const Floats<float>& bias, I64 BC) {
    for (I64 p = 0; p < positions; ++p)
        for (I64 oc = 0; oc < OC; ++oc) out[p * OC + oc] += bias[BC == 1 ? 0 : oc];
}

struct Conv2dGeom {
    I64 N, IH, IW, IC, OC, KH, KW, OH, OW, sy, sx, dy, dx, pt, pb, pl, pr, BC;
};

void op_conv2d(Ctx& c) {
    const ConstData& x = c.in(0);
    const ConstData& w = c.in(1);
    const ConstData& bias = c.in(2);
    const TensorType& out = c.out_type(0);
    check_rank(x.type, 4, "input");
    check_rank(w.type, 4, "weight");
    check_rank(bias.type, 1, "bias");
    check_rank(out, 4, "output");
    const I64 izp = zero_point(c.in(3), "input_zp"), wzp = zero_point(c.in(4), "weight_zp");
    error_if(x.type.dtype != DType::i8 && izp != 0, "!is_same<in_t,i8_t>() && input_zp != 0");
    error_if(w.type.dtype != DType::i8 && wzp != 0, "!is_same<weight_t,i8_t>() && weight_zp != 0");
    const std::vector<I64>& pad = c.ints(AttrName::pad, 4);
    const std::vector<I64>& stride = c.ints(AttrName::stride, 2);
    const std::vector<I64>& dil = c.ints(AttrName::dilation, 2);
    Conv2dGeom g{x.type.shape[0], x.type.shape[1], x.type.shape[2], x.type.shape[3], w.type.shape[0], w.type.shape[1], w.type.shape[2],
                 out.shape[1], out.shape[2], stride[0], stride[1], dil[0], dil[1], pad[0], pad[1], pad[2], pad[3], bias.type.shape[0]};
    error_if(g.pt < 0 || g.pb < 0 || g.pl < 0 || g.pr < 0, "pad_top < 0 || pad_bottom < 0 || pad_left < 0 || pad_right < 0");
    error_if(g.sy < 1 || g.sx < 1, "stride_y < 1 || stride_x < 1");
    error_if(g.dy < 1 || g.dx < 1, "dilation_y < 1 || dilation_x < 1");
    error_if(w.type.shape[3] != g.IC, "weight shape [OC,KH,KW,IC] does not match the input's IC");
    error_if(out.shape[0] != g.N || out.shape[3] != g.OC, "output shape [N,OH,OW,OC] does not match");
    check_extent(g.OH, g.IH - 1 + g.pt + g.pb - (g.KH - 1) * g.dy, g.sy,
             "OH != idiv_check(IH - 1 + pad_top + pad_bottom - (KH - 1) * dilation_y, stride_y) + 1");
    check_extent(g.OW, g.IW - 1 + g.pl + g.pr - (g.KW - 1) * g.dx, g.sx,
             "OW != idiv_check(IW - 1 + pad_left + pad_right - (KW - 1) * dilation_x, stride_x) + 1");
    error_if(g.BC != g.OC && g.BC != 1, "BC != OC && BC != 1");
    error_if(bias.type.dtype != out.dtype, "bias and output types differ");
    const unsigned threads = c.it.options.threads;
    if (is_float(x.type.dtype)) {
        const Floats<float> in = floats<float>(x), wt = floats<float>(w), b = floats<float>(bias);
        OutFloats<float> y(c.alloc(0));
        const I64 K = g.KH * g.KW * g.IC, M = g.OH * g.OW;
        const MatrixView B{wt.p, 1, K};  // (k, oc) = weight[oc][k]
        const bool direct = g.KH == 1 && g.KW == 1 && g.sy == 1 && g.sx == 1 && g.pt == 0 && g.pl == 0 && g.OH == g.IH && g.OW == g.IW;
        if (direct) {
            for (I64 n = 0; n < g.N; ++n)
                exec::gemm(M, g.OC, K, MatrixView{in.p + n * M * g.IC, g.IC, 1}, B, y.p + n * M * g.OC, g.OC, false, threads);
        } else {
            // im2col: one row of K items per output position, in chunks of about 16 MiB
            const I64 chunk = std::max<I64>(16, std::min<I64>(M, (4 << 20) / std::max<I64>(K, 1)));
            std::vector<float> col(static_cast<std::size_t>(chunk * K));
            for (I64 n = 0; n < g.N; ++n)
                for (I64 m0 = 0; m0 < M; m0 += chunk) {
                    const I64 rows = std::min(chunk, M - m0);
                    parallel_for(rows, threads, 16, [&](I64 r0, I64 r1) {
                        for (I64 r = r0; r < r1; ++r) {
                            const I64 m = m0 + r, oy = m / g.OW, ox = m % g.OW;
                            float* dst = col.data() + r * K;
                            for (I64 ky = 0; ky < g.KH; ++ky) {
                                const I64 iy = oy * g.sy - g.pt + ky * g.dy;
                                for (I64 kx = 0; kx < g.KW; ++kx) {
                                    const I64 ix = ox * g.sx - g.pl + kx * g.dx;
                                    float* d = dst + (ky * g.KW + kx) * g.IC;
                                    if (iy >= 0 && iy < g.IH && ix >= 0 && ix < g.IW)
                                        std::memcpy(d, in.p + ((n * g.IH + iy) * g.IW + ix) * g.IC, sizeof(float) * g.IC);
                                    else
                                        std::fill(d, d + g.IC, 0.0f);
                                }
                            }
                        }
                    });
                    exec::gemm(rows, g.OC, K, MatrixView{col.data(), K, 1}, B, y.p + (n * M + m0) * g.OC, g.OC, false, threads);
                }
        }
        add_bias_float(y.p, g.N * M, g.OC, b, g.BC);
        return c.set(0, y.finish());
    }
    if (!is_integer(x.type.dtype)) unsupported(std::string("CONV2D has no ") + to_string(x.type.dtype) + " form");
    const DType acc_t = int_acc(x.type.dtype);
    const std::vector<std::int32_t> X = minus_zp(x, izp), W = minus_zp(w, wzp);
    auto y = c.alloc(0);
    const DType out_t = out.dtype;
    parallel_for(g.N * g.OH, threads, 1, [&](I64 r0, I64 r1) {
        for (I64 r = r0; r < r1; ++r) {
            const I64 n = r / g.OH, oy = r % g.OH;
            for (I64 ox = 0; ox < g.OW; ++ox)
                for (I64 oc = 0; oc < g.OC; ++oc) {
                    I64 acc = 0;
                    for (I64 ky = 0; ky < g.KH; ++ky) {
                        const I64 iy = oy * g.sy - g.pt + ky * g.dy;
                        if (iy < 0 || iy >= g.IH) continue;
                        for (I64 kx = 0; kx < g.KW; ++kx) {
                            const I64 ix = ox * g.sx - g.pl + kx * g.dx;
                            if (ix < 0 || ix >= g.IW) continue;
                            const std::int32_t* xi = X.data() + ((n * g.IH + iy) * g.IW + ix) * g.IC;
                            const std::int32_t* wi = W.data() + ((oc * g.KH + ky) * g.KW + kx) * g.IC;
                            for (I64 ic = 0; ic < g.IC; ++ic) acc += static_cast<I64>(xi[ic]) * wi[ic];
                        }
                    }
                    check_acc(acc_t, acc);
                    store_int(*y, ((n * g.OH + oy) * g.OW + ox) * g.OC + oc, add_s(out_t, acc, load_int(bias, g.BC == 1 ? 0 : oc)));
                }
        }
    });
    c.set(0, y);
}

void op_depthwise_conv2d(Ctx& c) {
    const ConstData& x = c.in(0);
    const ConstData& w = c.in(1);
    const ConstData& bias = c.in(2);
    const TensorType& out = c.out_type(0);
    check_rank(x.type, 4, "input");
    check_rank(w.type, 4, "weight");
    check_rank(bias.type, 1, "bias");
    check_rank(out, 4, "output");
    const I64 izp = zero_point(c.in(3), "input_zp"), wzp = zero_point(c.in(4), "weight_zp");
    error_if(x.type.dtype != DType::i8 && izp != 0, "!is_same<in_t,i8_t>() && input_zp != 0");
    error_if(w.type.dtype != DType::i8 && wzp != 0, "!is_same<weight_t,i8_t>() && weight_zp != 0");
    const std::vector<I64>& pad = c.ints(AttrName::pad, 4);
    const std::vector<I64>& stride = c.ints(AttrName::stride, 2);
    const std::vector<I64>& dil = c.ints(AttrName::dilation, 2);
    const I64 N = x.type.shape[0], IH = x.type.shape[1], IW = x.type.shape[2], C = x.type.shape[3];
    const I64 KH = w.type.shape[0], KW = w.type.shape[1], M = w.type.shape[3], CM = C * M;
    const I64 OH = out.shape[1], OW = out.shape[2], sy = stride[0], sx = stride[1], dy = dil[0], dx = dil[1];
    const I64 pt = pad[0], pb = pad[1], pl = pad[2], pr = pad[3], BC = bias.type.shape[0];
    error_if(pt < 0 || pb < 0 || pl < 0 || pr < 0, "pad_top < 0 || pad_bottom < 0 || pad_left < 0 || pad_right < 0");
    error_if(sy < 1 || sx < 1, "stride_y < 1 || stride_x < 1");
    error_if(dy < 1 || dx < 1, "dilation_y < 1 || dilation_x < 1");
    error_if(w.type.shape[2] != C, "weight shape [KH,KW,C,M] does not match the input's C");
    error_if(out.shape[0] != N || out.shape[3] != CM, "output shape [N,OH,OW,C*M] does not match");
    check_extent(OH, IH - 1 + pt + pb - (KH - 1) * dy, sy,
             "OH != idiv_check(IH - 1 + pad_top + pad_bottom - (KH - 1) * dilation_y, stride_y) + 1");
    check_extent(OW, IW - 1 + pl + pr - (KW - 1) * dx, sx,
             "OW != idiv_check(IW - 1 + pad_left + pad_right - (KW - 1) * dilation_x, stride_x) + 1");
    error_if(BC != CM && BC != 1, "BC != C*M && BC != 1");
    error_if(bias.type.dtype != out.dtype, "bias and output types differ");
    const unsigned threads = c.it.options.threads;
    if (is_float(x.type.dtype)) {
        const Floats<float> in = floats<float>(x), wt = floats<float>(w), b = floats<float>(bias);
        OutFloats<float> y(c.alloc(0));
        parallel_for(N * OH, threads, 1, [&](I64 r0, I64 r1) {
            for (I64 r = r0; r < r1; ++r) {
                const I64 n = r / OH, oy = r % OH;
                for (I64 ox = 0; ox < OW; ++ox) {
                    float* o = y.p + ((n * OH + oy) * OW + ox) * CM;
                    std::fill(o, o + CM, 0.0f);
                    for (I64 ky = 0; ky < KH; ++ky) {
                        const I64 iy = oy * sy - pt + ky * dy;
                        if (iy < 0 || iy >= IH) continue;
                        for (I64 kx = 0; kx < KW; ++kx) {
                            const I64 ix = ox * sx - pl + kx * dx;
                            if (ix < 0 || ix >= IW) continue;
                            const float* src = in.p + ((n * IH + iy) * IW + ix) * C;
                            const float* wk = wt.p + (ky * KW + kx) * CM;
                            if (M == 1) {
                                for (I64 ch = 0; ch < C; ++ch) o[ch] += src[ch] * wk[ch];
                            } else {
                                for (I64 ch = 0; ch < C; ++ch)
                                    for (I64 m = 0; m < M; ++m) o[ch * M + m] += src[ch] * wk[ch * M + m];
                            }
                        }
                    }
                    for (I64 j = 0; j < CM; ++j) o[j] += b[BC == 1 ? 0 : j];
                }
            }
        });
        return c.set(0, y.finish());
    }
    if (!is_integer(x.type.dtype)) unsupported(std::string("DEPTHWISE_CONV2D has no ") + to_string(x.type.dtype) + " form");
    const DType acc_t = int_acc(x.type.dtype);
    const std::vector<std::int32_t> X = minus_zp(x, izp), W = minus_zp(w, wzp);
    auto y = c.alloc(0);
    const DType out_t = out.dtype;
    parallel_for(N * OH, threads, 1, [&](I64 r0, I64 r1) {
        std::vector<I64> acc(static_cast<std::size_t>(CM));
        for (I64 r = r0; r < r1; ++r) {
            const I64 n = r / OH, oy = r % OH;
            for (I64 ox = 0; ox < OW; ++ox) {
                std::fill(acc.begin(), acc.end(), 0);
                for (I64 ky = 0; ky < KH; ++ky) {
                    const I64 iy = oy * sy - pt + ky * dy;
                    if (iy < 0 || iy >= IH) continue;
                    for (I64 kx = 0; kx < KW; ++kx) {
                        const I64 ix = ox * sx - pl + kx * dx;
                        if (ix < 0 || ix >= IW) continue;
                        const std::int32_t* src = X.data() + ((n * IH + iy) * IW + ix) * C;
                        const std::int32_t* wk = W.data() + (ky * KW + kx) * CM;
                        for (I64 ch = 0; ch < C; ++ch)
                            for (I64 m = 0; m < M; ++m) acc[ch * M + m] += static_cast<I64>(src[ch]) * wk[ch * M + m];
                    }
                }
                const I64 base = ((n * OH + oy) * OW + ox) * CM;
                for (I64 j = 0; j < CM; ++j) {
                    check_acc(acc_t, acc[j]);
                    store_int(*y, base + j, add_s(out_t, acc[j], load_int(bias, BC == 1 ? 0 : j)));
                }
            }
        }
    });
    c.set(0, y);
}

void op_transpose_conv2d(Ctx& c) {
    const ConstData& x = c.in(0);
    const ConstData& w = c.in(1);
    const ConstData& bias = c.in(2);
    const TensorType& out = c.out_type(0);
    check_rank(x.type, 4, "input");
    check_rank(w.type, 4, "weight");
    check_rank(bias.type, 1, "bias");
    check_rank(out, 4, "output");
    const I64 izp = zero_point(c.in(3), "input_zp"), wzp = zero_point(c.in(4), "weight_zp");
    error_if(x.type.dtype != DType::i8 && izp != 0, "!is_same<in_t,i8_t>() && input_zp != 0");
    error_if(w.type.dtype != DType::i8 && wzp != 0, "!is_same<weight_t,i8_t>() && weight_zp != 0");
    const std::vector<I64>& op = c.ints(AttrName::out_pad, 4);
    const std::vector<I64>& stride = c.ints(AttrName::stride, 2);
    const I64 N = x.type.shape[0], IH = x.type.shape[1], IW = x.type.shape[2], IC = x.type.shape[3];
    const I64 OC = w.type.shape[0], KH = w.type.shape[1], KW = w.type.shape[2];
    const I64 OH = out.shape[1], OW = out.shape[2], sy = stride[0], sx = stride[1], BC = bias.type.shape[0];
    const I64 pt = op[0], pb = op[1], pl = op[2], pr = op[3];
    error_if(pt <= -KH || pb <= -KH, "out_pad_top <= -KH || out_pad_bottom <= -KH");
    error_if(pl <= -KW || pr <= -KW, "out_pad_left <= -KW || out_pad_right <= -KW");
    error_if(sy < 1 || sx < 1, "stride_y < 1 || stride_x < 1");
    error_if(w.type.shape[3] != IC, "weight shape [OC,KH,KW,IC] does not match the input's IC");
    error_if(out.shape[0] != N || out.shape[3] != OC, "output shape [N,OH,OW,OC] does not match");
    error_if(OH != (IH - 1) * sy + pt + pb + KH, "OH != (IH - 1) * stride_y + out_pad_top + out_pad_bottom + KH");
    error_if(OW != (IW - 1) * sx + pl + pr + KW, "OW != (IW - 1) * stride_x + out_pad_left + out_pad_right + KW");
    error_if(BC != OC && BC != 1, "BC != OC && BC != 1");
    error_if(bias.type.dtype != out.dtype, "bias and output types differ");
    const unsigned threads = c.it.options.threads;
    if (is_float(x.type.dtype)) {
        const Floats<float> in = floats<float>(x), wt = floats<float>(w), b = floats<float>(bias);
        OutFloats<float> y(c.alloc(0));
        std::fill(y.p, y.p + out.volume(), 0.0f);
        // every input position contributes in[n,iy,ix,:] x weight[oc,ky,kx,:] to output position
        // (iy * stride_y + out_pad_top + ky, ix * stride_x + out_pad_left + kx): one GEMM per chunk
        // of input positions, then a scatter-add
        const I64 J = KH * KW * OC, P = IH * IW;
        std::vector<float> wr(static_cast<std::size_t>(J * IC));  // [ky][kx][oc][ic]
        for (I64 oc = 0; oc < OC; ++oc)
            for (I64 k = 0; k < KH * KW; ++k)
                std::memcpy(wr.data() + (k * OC + oc) * IC, wt.p + (oc * KH * KW + k) * IC, sizeof(float) * IC);
        const I64 chunk = std::max<I64>(1, std::min<I64>(P, (4 << 20) / std::max<I64>(J, 1)));
        std::vector<float> part(static_cast<std::size_t>(chunk * J));
        for (I64 n = 0; n < N; ++n)
            for (I64 p0 = 0; p0 < P; p0 += chunk) {
                const I64 rows = std::min(chunk, P - p0);
                exec::gemm(rows, J, IC, MatrixView{in.p + (n * P + p0) * IC, IC, 1}, MatrixView{wr.data(), 1, IC}, part.data(), J, false, threads);
                for (I64 r = 0; r < rows; ++r) {
                    const I64 iy = (p0 + r) / IW, ix = (p0 + r) % IW;
                    for (I64 ky = 0; ky < KH; ++ky) {
                        const I64 oy = iy * sy + pt + ky;
                        if (oy < 0 || oy >= OH) continue;
                        for (I64 kx = 0; kx < KW; ++kx) {
                            const I64 ox = ix * sx + pl + kx;
                            if (ox < 0 || ox >= OW) continue;
                            float* o = y.p + ((n * OH + oy) * OW + ox) * OC;
                            const float* s = part.data() + r * J + (ky * KW + kx) * OC;
                            for (I64 oc = 0; oc < OC; ++oc) o[oc] += s[oc];
                        }
                    }
                }
            }
        add_bias_float(y.p, N * OH * OW, OC, b, BC);
        return c.set(0, y.finish());
    }
    if (!is_integer(x.type.dtype)) unsupported(std::string("TRANSPOSE_CONV2D has no ") + to_string(x.type.dtype) + " form");
    const DType acc_t = int_acc(x.type.dtype);
    const std::vector<std::int32_t> X = minus_zp(x, izp), W = minus_zp(w, wzp);
    auto y = c.alloc(0);
    const DType out_t = out.dtype;
    parallel_for(N * OH, threads, 1, [&](I64 r0, I64 r1) {
        for (I64 r = r0; r < r1; ++r) {
            const I64 n = r / OH, oy = r % OH;
            for (I64 ox = 0; ox < OW; ++ox)
                for (I64 oc = 0; oc < OC; ++oc) {
                    I64 acc = 0;
                    for (I64 ky = 0; ky < KH; ++ky) {
                        const I64 yy = oy - pt - ky;
                        if (yy < 0 || yy >= IH * sy || yy % sy != 0) continue;
                        for (I64 kx = 0; kx < KW; ++kx) {
                            const I64 xx = ox - pl - kx;
                            if (xx < 0 || xx >= IW * sx || xx % sx != 0) continue;
                            const std::int32_t* xi = X.data() + ((n * IH + yy / sy) * IW + xx / sx) * IC;
                            const std::int32_t* wi = W.data() + ((oc * KH + ky) * KW + kx) * IC;
                            for (I64 ic = 0; ic < IC; ++ic) acc += static_cast<I64>(xi[ic]) * wi[ic];
                        }
                    }
                    check_acc(acc_t, acc);
                    store_int(*y, ((n * OH + oy) * OW + ox) * OC + oc, add_s(out_t, acc, load_int(bias, BC == 1 ? 0 : oc)));
                }
        }
    });
    c.set(0, y);
}

void op_conv3d(Ctx& c) {
    const ConstData& x = c.in(0);
    const ConstData& w = c.in(1);
    const ConstData& bias = c.in(2);
    const TensorType& out = c.out_type(0);
    check_rank(x.type, 5, "input");
    check_rank(w.type, 5, "weight");
    check_rank(bias.type, 1, "bias");
    check_rank(out, 5, "output");
    const I64 izp = zero_point(c.in(3), "input_zp"), wzp = zero_point(c.in(4), "weight_zp");
    error_if(x.type.dtype != DType::i8 && izp != 0, "!is_same<in_t,i8_t>() && input_zp != 0");
    error_if(w.type.dtype != DType::i8 && wzp != 0, "!is_same<weight_t,i8_t>() && weight_zp != 0");
    const std::vector<I64>& pad = c.ints(AttrName::pad, 6);
    const std::vector<I64>& st = c.ints(AttrName::stride, 3);
    const std::vector<I64>& dl = c.ints(AttrName::dilation, 3);
    const I64 N = x.type.shape[0], IC = x.type.shape[4], OC = w.type.shape[0], BC = bias.type.shape[0];
    const std::array<I64, 3> I{x.type.shape[1], x.type.shape[2], x.type.shape[3]};
    const std::array<I64, 3> K{w.type.shape[1], w.type.shape[2], w.type.shape[3]};
    const std::array<I64, 3> O{out.shape[1], out.shape[2], out.shape[3]};
    for (int d = 0; d < 3; ++d) {
        error_if(pad[2 * d] < 0 || pad[2 * d + 1] < 0, "pad < 0");
        error_if(st[d] < 1, "stride < 1");
        error_if(dl[d] < 1, "dilation < 1");
        check_extent(O[d], I[d] - 1 + pad[2 * d] + pad[2 * d + 1] - (K[d] - 1) * dl[d], st[d],
                 "OD/OH/OW != idiv_check(I - 1 + pad_before + pad_after - (K - 1) * dilation, stride) + 1");
    }
    error_if(w.type.shape[4] != IC, "weight shape [OC,KD,KH,KW,IC] does not match the input's IC");
    error_if(out.shape[0] != N || out.shape[4] != OC, "output shape [N,OD,OH,OW,OC] does not match");
    error_if(BC != OC && BC != 1, "BC != OC && BC != 1");
    error_if(bias.type.dtype != out.dtype, "bias and output types differ");
    const bool fl = is_float(x.type.dtype);
    if (!fl && !is_integer(x.type.dtype)) unsupported(std::string("CONV3D has no ") + to_string(x.type.dtype) + " form");
    const Floats<double> fin = fl ? floats<double>(x) : Floats<double>{}, fw = fl ? floats<double>(w) : Floats<double>{};
    const std::vector<std::int32_t> X = fl ? std::vector<std::int32_t>{} : minus_zp(x, izp);
    const std::vector<std::int32_t> W = fl ? std::vector<std::int32_t>{} : minus_zp(w, wzp);
    const DType acc_t = int_acc(x.type.dtype);
    auto y = c.alloc(0);
    I64 o = 0;
    for (I64 n = 0; n < N; ++n)
        for (I64 od = 0; od < O[0]; ++od)
            for (I64 oy = 0; oy < O[1]; ++oy)
                for (I64 ox = 0; ox < O[2]; ++ox)
                    for (I64 oc = 0; oc < OC; ++oc, ++o) {
                        double facc = 0.0;
                        I64 iacc = 0;
                        for (I64 kd = 0; kd < K[0]; ++kd) {
                            const I64 id = od * st[0] - pad[0] + kd * dl[0];
                            if (id < 0 || id >= I[0]) continue;
                            for (I64 ky = 0; ky < K[1]; ++ky) {
                                const I64 iy = oy * st[1] - pad[2] + ky * dl[1];
                                if (iy < 0 || iy >= I[1]) continue;
                                for (I64 kx = 0; kx < K[2]; ++kx) {
                                    const I64 ix = ox * st[2] - pad[4] + kx * dl[2];
                                    if (ix < 0 || ix >= I[2]) continue;
                                    const I64 xi = (((n * I[0] + id) * I[1] + iy) * I[2] + ix) * IC;
                                    const I64 wi = (((oc * K[0] + kd) * K[1] + ky) * K[2] + kx) * IC;
                                    for (I64 ic = 0; ic < IC; ++ic) {
                                        if (fl) facc += fin.p[xi + ic] * fw.p[wi + ic];
                                        else iacc += static_cast<I64>(X[xi + ic]) * W[wi + ic];
                                    }
                                }
                            }
                        }
                        if (fl) {
                            store_float(*y, o, static_cast<double>(static_cast<float>(facc)) + load_float(bias, BC == 1 ? 0 : oc));
                        } else {
                            check_acc(acc_t, iacc);
                            store_int(*y, o, add_s(out.dtype, iacc, load_int(bias, BC == 1 ? 0 : oc)));
                        }
                    }
    c.set(0, y);
}

void op_matmul(Ctx& c) {
    const ConstData& a = c.in(0);
    const ConstData& b = c.in(1);
    const TensorType& out = c.out_type(0);
    check_rank(a.type, 3, "A");
    check_rank(b.type, 3, "B");
    check_rank(out, 3, "output");
    const I64 N = a.type.shape[0], H = a.type.shape[1], C = a.type.shape[2], W = b.type.shape[2];
    error_if(b.type.shape[0] != N || b.type.shape[1] != C || out.shape != Shape{N, H, W}, "shapes of A [N,H,C], B [N,C,W] and output [N,H,W] do not match");
    error_if(a.type.dtype != b.type.dtype, "A and B types differ");
    const I64 azp = zero_point(c.in(2), "A_zp"), bzp = zero_point(c.in(3), "B_zp");
    error_if(a.type.dtype != DType::i8 && (azp != 0 || bzp != 0), "!is_same<in_t,i8_t> && (A_zp != 0 || B_zp != 0)");
    if (is_float(a.type.dtype)) {
        const Floats<float> fa = floats<float>(a), fb = floats<float>(b);
        OutFloats<float> y(c.alloc(0));
        for (I64 n = 0; n < N; ++n)
            exec::gemm(H, W, C, MatrixView{fa.p + n * H * C, C, 1}, MatrixView{fb.p + n * C * W, W, 1}, y.p + n * H * W, W, false,
                       c.it.options.threads);
        return c.set(0, y.finish());
    }
    if (!is_integer(a.type.dtype)) unsupported(std::string("MATMUL has no ") + to_string(a.type.dtype) + " form");
    const std::vector<std::int32_t> A = minus_zp(a, azp), B = minus_zp(b, bzp);
    auto y = c.alloc(0);
    std::vector<I64> row(static_cast<std::size_t>(W));
    for (I64 n = 0; n < N; ++n)
        for (I64 h = 0; h < H; ++h) {
            std::fill(row.begin(), row.end(), 0);
            for (I64 k = 0; k < C; ++k) {
                const I64 av = A[(n * H + h) * C + k];
                const std::int32_t* bp = B.data() + (n * C + k) * W;
                for (I64 w = 0; w < W; ++w) row[w] += av * bp[w];
            }
            for (I64 w = 0; w < W; ++w) {
                check_acc(out.dtype, row[w]);
                store_int(*y, (n * H + h) * W + w, row[w]);
            }
        }
    c.set(0, y);
}

struct PoolGeom {
    I64 N, IH, IW, C, OH, OW, ky, kx, sy, sx, pt, pb, pl, pr;
};

PoolGeom pool_geometry(Ctx& c) {
    const ConstData& x = c.in(0);
    const TensorType& out = c.out_type(0);
    check_rank(x.type, 4, "input");
    check_rank(out, 4, "output");
    const std::vector<I64>& k = c.ints(AttrName::kernel, 2);
    const std::vector<I64>& s = c.ints(AttrName::stride, 2);
    const std::vector<I64>& p = c.ints(AttrName::pad, 4);
    PoolGeom g{x.type.shape[0], x.type.shape[1], x.type.shape[2], x.type.shape[3], out.shape[1], out.shape[2],
               k[0], k[1], s[0], s[1], p[0], p[1], p[2], p[3]};
    error_if(g.ky < 1 || g.kx < 1, "kernel_y < 1 || kernel_x < 1");
    error_if(g.sy < 1 || g.sx < 1, "stride_y < 1 || stride_x < 1");
    error_if(g.pt < 0 || g.pb < 0 || g.pl < 0 || g.pr < 0, "pad_top < 0 || pad_bottom < 0 || pad_left < 0 || pad_right < 0");
    error_if(g.pr >= g.kx || g.pl >= g.kx, "pad_right >= kernel_x || pad_left >= kernel_x");
    error_if(g.pt >= g.ky || g.pb >= g.ky, "pad_top >= kernel_y || pad_bottom >= kernel_y");
    check_extent(g.OH, g.IH + g.pt + g.pb - g.ky, g.sy,
             "OH != idiv_check(IH + pad_top + pad_bottom - kernel_y, stride_y) + 1");
    check_extent(g.OW, g.IW + g.pl + g.pr - g.kx, g.sx,
             "OW != idiv_check(IW + pad_left + pad_right - kernel_x, stride_x) + 1");
    error_if(out.shape[0] != g.N || out.shape[3] != g.C, "output shape [N,OH,OW,C] does not match");
    error_if(out.dtype != x.type.dtype, "input and output types differ");
    return g;
}

// Calls f(output offset, n, window rows [y0, y1), columns [x0, x1)) for every output position
// (the window clipped to the input).
template <class F>
void for_each_window(const PoolGeom& g, unsigned threads, F f) {
    parallel_for(g.N * g.OH, threads, 1, [&](I64 r0, I64 r1) {
        for (I64 r = r0; r < r1; ++r) {
            const I64 n = r / g.OH, oy = r % g.OH;
            const I64 iy = oy * g.sy - g.pt, y0 = std::max<I64>(0, iy), y1 = std::min(g.IH, iy + g.ky);
            for (I64 ox = 0; ox < g.OW; ++ox) {
                const I64 ix = ox * g.sx - g.pl, x0 = std::max<I64>(0, ix), x1 = std::min(g.IW, ix + g.kx);
                f((r * g.OW + ox) * g.C, n, y0, y1, x0, x1);
            }
        }
    });
}

void op_max_pool2d(Ctx& c) {
    const PoolGeom g = pool_geometry(c);
    const ConstData& x = c.in(0);
    const NanMode nm = c.nan_mode();
    if (is_float(x.type.dtype)) {
        const Floats<float> in = floats<float>(x);
        OutFloats<float> y(c.alloc(0));
        const float init = nm == NanMode::IGNORE ? std::numeric_limits<float>::quiet_NaN() : -std::numeric_limits<float>::infinity();
        for_each_window(g, c.it.options.threads, [&](I64 o, I64 n, I64 y0, I64 y1, I64 x0, I64 x1) {
            float* acc = y.p + o;
            std::fill(acc, acc + g.C, init);
            for (I64 iy = y0; iy < y1; ++iy)
                for (I64 ix = x0; ix < x1; ++ix) {
                    const float* v = in.p + ((n * g.IH + iy) * g.IW + ix) * g.C;
                    for (I64 ch = 0; ch < g.C; ++ch) acc[ch] = apply_max_f(acc[ch], v[ch], nm);
                }
        });
        return c.set(0, y.finish());
    }
    if (!is_integer(x.type.dtype)) unsupported(std::string("MAX_POOL2D has no ") + to_string(x.type.dtype) + " form");
    auto y = c.alloc(0);
    for_each_window(g, c.it.options.threads, [&](I64 o, I64 n, I64 y0, I64 y1, I64 x0, I64 x1) {
        for (I64 ch = 0; ch < g.C; ++ch) {
            I64 acc = min_s(x.type.dtype);
            for (I64 iy = y0; iy < y1; ++iy)
                for (I64 ix = x0; ix < x1; ++ix) acc = std::max(acc, load_int(x, ((n * g.IH + iy) * g.IW + ix) * g.C + ch));
            store_int(*y, o + ch, acc);
        }
    });
    c.set(0, y);
}

void op_avg_pool2d(Ctx& c) {
    const PoolGeom g = pool_geometry(c);
    const ConstData& x = c.in(0);
    const I64 izp = zero_point(c.in(1), "input_zp"), ozp = zero_point(c.in(2), "output_zp");
    error_if(x.type.dtype != DType::i8 && izp != 0, "!is_same<in_out_t,i8_t>() && input_zp != 0");
    error_if(x.type.dtype != DType::i8 && ozp != 0, "!is_same<in_out_t,i8_t>() && output_zp != 0");
    if (is_float(x.type.dtype)) {
        const Floats<float> in = floats<float>(x);
        OutFloats<float> y(c.alloc(0));
        for_each_window(g, c.it.options.threads, [&](I64 o, I64 n, I64 y0, I64 y1, I64 x0, I64 x1) {
            float* acc = y.p + o;
            std::fill(acc, acc + g.C, 0.0f);
            for (I64 iy = y0; iy < y1; ++iy)
                for (I64 ix = x0; ix < x1; ++ix) {
                    const float* v = in.p + ((n * g.IH + iy) * g.IW + ix) * g.C;
                    for (I64 ch = 0; ch < g.C; ++ch) acc[ch] += v[ch];
                }
            const float count = static_cast<float>((y1 - y0) * (x1 - x0));
            for (I64 ch = 0; ch < g.C; ++ch) acc[ch] /= count;
        });
        return c.set(0, y.finish());
    }
    if (!is_integer(x.type.dtype)) unsupported(std::string("AVG_POOL2D has no ") + to_string(x.type.dtype) + " form");
    const DType t = x.type.dtype;
    auto y = c.alloc(0);
    for_each_window(g, c.it.options.threads, [&](I64 o, I64 n, I64 y0, I64 y1, I64 x0, I64 x1) {
        const auto scale = reciprocal_scale(static_cast<std::uint32_t>((y1 - y0) * (x1 - x0)));
        for (I64 ch = 0; ch < g.C; ++ch) {
            I64 acc = 0;
            for (I64 iy = y0; iy < y1; ++iy)
                for (I64 ix = x0; ix < x1; ++ix)
                    acc = add_s(DType::i32, acc, sub_s(DType::i32, load_int(x, ((n * g.IH + iy) * g.IW + ix) * g.C + ch), izp));
            const std::optional<std::int32_t> scaled = apply_scale_32(acc, scale.first, scale.second, false);
            require(scaled.has_value(), "apply_scale_32 arguments in range");
            const I64 v = add_s(DType::i32, *scaled, ozp);
            store_int(*y, o + ch, std::min(max_s(t), std::max(min_s(t), v)));
        }
    });
    c.set(0, y);
}

bool power_of_two(I64 v) { return v > 0 && (v & (v - 1)) == 0; }

void op_fft2d(Ctx& c, bool real) {
    const ConstData& re = c.in(0);
    check_rank(re.type, 3, "input_real");
    const I64 N = re.type.shape[0], H = re.type.shape[1], W = re.type.shape[2];
    error_if(!power_of_two(H), "!power_of_two(H)");
    error_if(!power_of_two(W), "!power_of_two(W)");
    const I64 OW = real ? W / 2 + 1 : W;
    const Shape oshape{N, H, OW};
    error_if(c.out_type(0).shape != oshape || c.out_type(1).shape != oshape, "output shapes are not " + shape_str(oshape));
    if (!is_float(re.type.dtype)) unsupported(std::string("FFT2D has no ") + to_string(re.type.dtype) + " form");
    const Floats<double> xr = floats<double>(re);
    Floats<double> xi;
    if (!real) {
        error_if(c.in_type(1).shape != re.type.shape, "input_imag shape differs from input_real's");
        xi = floats<double>(c.in(1));
    }
    const double sign = !real && c.attr<bool>(AttrName::inverse) ? -1.0 : 1.0;
    const double pi = 3.14159265358979323846;
    auto yr = c.alloc(0);
    auto yi = c.alloc(1);
    for (I64 n = 0; n < N; ++n)
        for (I64 oy = 0; oy < H; ++oy)
            for (I64 ox = 0; ox < OW; ++ox) {
                double sr = 0.0, si = 0.0;
                for (I64 iy = 0; iy < H; ++iy)
                    for (I64 ix = 0; ix < W; ++ix) {
                        const I64 ay = (iy * oy) % H, ax = (ix * ox) % W;
                        const double a = sign * 2.0 * pi * (static_cast<double>(ay) / H + static_cast<double>(ax) / W);
                        const double vr = xr.p[(n * H + iy) * W + ix];
                        const double vi = real ? 0.0 : xi.p[(n * H + iy) * W + ix];
                        sr += vr * std::cos(a) + vi * std::sin(a);
                        si += -vr * std::sin(a) + vi * std::cos(a);
                    }
                store_float(*yr, (n * H + oy) * OW + ox, sr);
                store_float(*yi, (n * H + oy) * OW + ox, si);
            }
    c.set(0, yr);
    c.set(1, yi);
}

void op_resize(Ctx& c) {
    const ConstData& x = c.in(0);
    const std::vector<I64> scale = shape_operand(c.in(1), "scale");
    const std::vector<I64> offset = shape_operand(c.in(2), "offset");
    const std::vector<I64> border = shape_operand(c.in(3), "border");
    const TensorType& out = c.out_type(0);
    const ResizeMode mode = c.attr<ResizeMode>(AttrName::mode);
    check_rank(x.type, 4, "input");
    check_rank(out, 4, "output");
    error_if(scale.size() != 4 || offset.size() != 2 || border.size() != 2, "scale [4], offset [2], border [2]");
    const I64 N = x.type.shape[0], IH = x.type.shape[1], IW = x.type.shape[2], C = x.type.shape[3], OH = out.shape[1], OW = out.shape[2];
    const I64 syn = scale[0], syd = scale[1], sxn = scale[2], sxd = scale[3], oy_ = offset[0], ox_ = offset[1], by = border[0], bx = border[1];
    error_if(out.shape[0] != N || out.shape[3] != C, "output shape [N,OH,OW,C] does not match");
    error_if(std::max({OH, OW, IH, IW}) >= 16384, "max(OH,OW,IH,IW) >= 16384");
    error_if(syn <= 0 || syd <= 0 || sxn <= 0 || sxd <= 0, "scale_y_n <= 0 || scale_y_d <= 0 || scale_x_n <= 0 || scale_x_d <= 0");
    error_if(syn > (1 << 11) || sxn > (1 << 11), "scale_y_n > (1 << 11) || scale_x_n > (1 << 11)");
    error_if(syd >= 16 * syn || sxd >= 16 * sxn, "scale_y_d >= 16 * scale_y_n || scale_x_d >= 16 * scale_x_n");
    error_if(oy_ < -syn || oy_ >= 16 * syn, "offset_y < -scale_y_n || offset_y >= 16 * scale_y_n");
    error_if(ox_ < -sxn || ox_ >= 16 * sxn, "offset_x < -scale_x_n || offset_x >= 16 * scale_x_n");
    error_if(by < -16 * syn || by >= syn, "border_y < -16 * scale_y_n || border_y >= scale_y_n");
    error_if(bx < -16 * sxn || bx >= sxn, "border_x < -16 * scale_x_n || border_x >= scale_x_n");
    check_extent(OH, (IH - 1) * syn - oy_ + by, syd,
             "OH != idiv_check((IH - 1) * scale_y_n - offset_y + border_y, scale_y_d) + 1");
    check_extent(OW, (IW - 1) * sxn - ox_ + bx, sxd,
             "OW != idiv_check((IW - 1) * scale_x_n - offset_x + border_x, scale_x_d) + 1");
    auto idiv_floor = [](I64 a, I64 b) {
        I64 r = a / b;
        if (r * b > a) --r;
        return r;
    };
    const bool fl = is_float(x.type.dtype);
    if (!fl && !is_integer(x.type.dtype)) unsupported(std::string("RESIZE has no ") + to_string(x.type.dtype) + " form");
    const Floats<double> in = fl ? floats<double>(x) : Floats<double>{};
    auto y = c.alloc(0);
    I64 o = 0;
    for (I64 n = 0; n < N; ++n)
        for (I64 oy = 0; oy < OH; ++oy) {
            const I64 yy = oy * syd + oy_;
            const I64 iy = idiv_floor(yy, syn), ry = yy - iy * syn;
            const I64 iy0 = std::max<I64>(iy, 0), iy1 = std::min(iy + 1, IH - 1);
            for (I64 ox = 0; ox < OW; ++ox) {
                const I64 xx = ox * sxd + ox_;
                const I64 ix = idiv_floor(xx, sxn), rx = xx - ix * sxn;
                const I64 ix0 = std::max<I64>(ix, 0), ix1 = std::min(ix + 1, IW - 1);
                auto at = [&](I64 yi, I64 xi, I64 ch) { return ((n * IH + yi) * IW + xi) * C + ch; };
                for (I64 ch = 0; ch < C; ++ch, ++o) {
                    if (fl) {
                        const double dy = static_cast<double>(ry) / syn, dx = static_cast<double>(rx) / sxn;
                        if (mode == ResizeMode::BILINEAR) {
                            double acc = in.p[at(iy0, ix0, ch)] * (1.0 - dy) * (1.0 - dx);
                            acc += in.p[at(iy0, ix1, ch)] * (1.0 - dy) * dx;
                            acc += in.p[at(iy1, ix0, ch)] * dy * (1.0 - dx);
                            acc += in.p[at(iy1, ix1, ch)] * dy * dx;
                            store_float(*y, o, acc);
                        } else {
                            store_float(*y, o, in.p[at(dy >= 0.5 ? iy1 : iy0, dx >= 0.5 ? ix1 : ix0, ch)]);
                        }
                    } else if (mode == ResizeMode::BILINEAR) {
                        I64 acc = load_int(x, at(iy0, ix0, ch)) * (syn - ry) * (sxn - rx);
                        acc += load_int(x, at(iy0, ix1, ch)) * (syn - ry) * rx;
                        acc += load_int(x, at(iy1, ix0, ch)) * ry * (sxn - rx);
                        acc += load_int(x, at(iy1, ix1, ch)) * ry * rx;
                        store_int(*y, o, acc);
                    } else {
                        store_int(*y, o, load_int(x, at(2 * ry >= syn ? iy1 : iy0, 2 * rx >= sxn ? ix1 : ix0, ch)));
                    }
                }
            }
        }
    c.set(0, y);
}

}  // namespace tosa_interpreter_cpp

namespace tosa_interpreter_cpp {

// ---- data nodes, control flow (2.16) and variables (2.17) ----------------------------------------

void op_const(Ctx& c) {
    const ConstPtr& v = c.attr<ConstPtr>(AttrName::values);
    if (!v) unsupported("CONST has no values");
    c.set(0, v);
}

void op_const_shape(Ctx& c) {
    const std::vector<I64>& v = c.attr<std::vector<I64>>(AttrName::values);
    auto y = c.alloc(0);
    error_if(y->type.dtype != DType::shape || y->type.rank() != 1, "the output is not a shape_t value");
    error_if(static_cast<I64>(v.size()) != y->type.volume(), "length(values) != the rank of the shape value");
    for (std::size_t i = 0; i < v.size(); ++i) y->mutable_items<I64>()[i] = v[i];
    c.set(0, y);
}

void op_identity(Ctx& c) {
    const ConstPtr& x = c.in_ptr(0);
    error_if(x->type != c.out_type(0), "the output type differs from the input's");
    c.set(0, x);
}

const Block& block_of(Ctx& c, AttrName n) {
    const BlockRef b = c.attr<BlockRef>(n);
    if (b.block == 0 || b.block >= c.it.graph.blocks.size())
        unsupported(std::string(to_string(n)) + " refers to block " + std::to_string(b.block) + ", which does not exist");
    return c.it.graph.blocks[b.block];
}

std::vector<TensorType> types_of(const Graph& g, const std::vector<ValueId>& vs) {
    std::vector<TensorType> t;
    for (ValueId v : vs) t.push_back(g.type(v));
    return t;
}

// Nesting depth bookkeeping that survives an unwinding error.
struct Nest {
    Impl& it;
    explicit Nest(Impl& i) : it(i) {
        error_if(it.depth >= it.options.level.max_nesting, "tosa_nesting_depth >= MAX_NESTING (" + std::to_string(it.options.level.max_nesting) + ")");
        ++it.depth;
    }
    ~Nest() { --it.depth; }
};

void op_cond_if(Ctx& c) {
    const Graph& g = c.it.graph;
    const Block& then_b = block_of(c, AttrName::then_graph);
    const Block& else_b = block_of(c, AttrName::else_graph);
    const ConstData& cond = c.in(0);
    error_if(cond.type.volume() != 1, "tensor_size(shape) != 1");
    error_if(cond.type.dtype != DType::bool_, "condition is not bool_t");
    std::vector<ConstPtr> ins(c.op.inputs.size() - 1);
    std::vector<TensorType> in_types;
    for (std::size_t i = 1; i < c.op.inputs.size(); ++i) {
        ins[i - 1] = c.in_ptr(i);
        in_types.push_back(ins[i - 1]->type);
    }
    const std::vector<TensorType> out_types = types_of(g, c.op.outputs);
    error_if(in_types != types_of(g, then_b.inputs), "tensor_list_shape(input_list) != tosa_input_shape(then_graph)");
    error_if(in_types != types_of(g, else_b.inputs), "tensor_list_shape(input_list) != tosa_input_shape(else_graph)");
    error_if(out_types != types_of(g, then_b.outputs), "tensor_list_shape(output_list) != tosa_output_shape(then_graph)");
    error_if(out_types != types_of(g, else_b.outputs), "tensor_list_shape(output_list) != tosa_output_shape(else_graph)");
    Nest nest(c.it);
    const std::uint32_t b = c.attr<BlockRef>(load_int(cond, 0) ? AttrName::then_graph : AttrName::else_graph).block;
    const std::vector<ConstPtr> outs = c.it.run_block(b, ins, c.diags);
    for (std::size_t i = 0; i < outs.size(); ++i) c.set(i, outs[i]);
}

void op_while_loop(Ctx& c) {
    const Graph& g = c.it.graph;
    const Block& cond_b = block_of(c, AttrName::cond_graph);
    const Block& body_b = block_of(c, AttrName::body_graph);
    const std::uint32_t cond_i = c.attr<BlockRef>(AttrName::cond_graph).block, body_i = c.attr<BlockRef>(AttrName::body_graph).block;
    std::vector<ConstPtr> list(c.op.inputs.size());
    std::vector<TensorType> in_types;
    for (std::size_t i = 0; i < c.op.inputs.size(); ++i) {
        list[i] = c.in_ptr(i);
        in_types.push_back(list[i]->type);
    }
    error_if(in_types != types_of(g, c.op.outputs), "tensor_list_shape(input_list) != tensor_list_shape(output_list)");
    error_if(in_types != types_of(g, cond_b.inputs), "tensor_list_shape(input_list) != tosa_input_shape(cond_graph)");
    error_if(in_types != types_of(g, body_b.inputs), "tensor_list_shape(input_list) != tosa_input_shape(body_graph)");
    error_if(in_types != types_of(g, body_b.outputs), "tensor_list_shape(input_list) != tosa_output_shape(body_graph)");
    error_if(cond_b.outputs.size() != 1 || g.type(cond_b.outputs[0]).volume() != 1, "tensor_size(tosa_output_shape(cond_graph)) != 1");
    error_if(g.type(cond_b.outputs[0]).dtype != DType::bool_, "tosa_output_type(cond_graph) != bool_t");
    Nest nest(c.it);
    std::uint64_t iterations = 0;
    std::vector<ConstPtr> condition = c.it.run_block(cond_i, list, c.diags);
    while (load_int(*condition[0], 0)) {
        if (c.it.options.max_loop_iterations && ++iterations > c.it.options.max_loop_iterations)
            throw Failure{"loop-limit", "the loop has not ended after " + std::to_string(c.it.options.max_loop_iterations) + " iterations"};
        list = c.it.run_block(body_i, list, c.diags);
        condition = c.it.run_block(cond_i, list, c.diags);
    }
    for (std::size_t i = 0; i < list.size(); ++i) c.set(i, list[i]);
}

void op_variable(Ctx& c) {
    const std::string& name = c.attr<std::string>(AttrName::name);
    const std::vector<I64>& var_shape = c.attr<std::vector<I64>>(AttrName::var_shape);
    const DType type = c.attr<DType>(AttrName::type);
    const TensorType declared{type, Shape(var_shape.begin(), var_shape.end())};
    auto found = c.it.variables.find(name);
    if (found == c.it.variables.end()) {
        Impl::Variable v;
        v.type = declared;
        const Attr* init = c.op.attr(AttrName::initial_value);
        if (init && std::holds_alternative<ConstPtr>(*init) && std::get<ConstPtr>(*init)) {
            const ConstPtr& value = std::get<ConstPtr>(*init);
            require(value->type.dtype == type, "var_t == in_t");
            require(value->type.shape == declared.shape, "var_shape == shape");
            v.data = value;
            v.written = true;
        }
        found = c.it.variables.emplace(name, std::move(v)).first;
    } else {
        require(!found->second.seen, "!var_tensor.seen (variable '" + name + "' is declared twice in one graph execution)");
        require(found->second.type == declared, "variable '" + name + "' is declared as " + to_string(declared) + " but exists as " +
                                                    to_string(found->second.type));
    }
    found->second.seen = true;
}

Impl::Variable& lookup_variable(Ctx& c) {
    const std::string& name = c.attr<std::string>(AttrName::name);
    auto found = c.it.variables.find(name);
    require(found != c.it.variables.end(), "variable_tensor != NULL (variable '" + name + "' is not declared)");
    return found->second;
}

void op_variable_write(Ctx& c) {
    Impl::Variable& v = lookup_variable(c);
    const ConstPtr& x = c.in_ptr(0);
    require(v.seen, "variable_tensor.seen (declared in this graph execution)");
    require(v.type.shape == x->type.shape, "variable_tensor.shape == shape");
    require(v.type.dtype == x->type.dtype, "is_same<variable_tensor.type,in_t>()");
    v.data = x;  // values are immutable: the variable shares them
    v.written = true;
}

void op_variable_read(Ctx& c) {
    Impl::Variable& v = lookup_variable(c);
    require(v.written && v.data, "variable_tensor.is_written");
    require(v.type.shape == c.out_type(0).shape, "variable_tensor.shape == shape");
    require(v.type.dtype == c.out_type(0).dtype, "is_same<variable_tensor.type,out_t>()");
    c.set(0, v.data);
}

void execute(Ctx& c) {
    switch (c.op.kind) {
        case OpKind::ARGMAX: return op_argmax(c);
        case OpKind::AVG_POOL2D: return op_avg_pool2d(c);
        case OpKind::CONV2D: return op_conv2d(c);
        case OpKind::CONV3D: return op_conv3d(c);
        case OpKind::DEPTHWISE_CONV2D: return op_depthwise_conv2d(c);
        case OpKind::FFT2D: return op_fft2d(c, false);
        case OpKind::MATMUL: return op_matmul(c);
        case OpKind::MAX_POOL2D: return op_max_pool2d(c);
        case OpKind::RFFT2D: return op_fft2d(c, true);
        case OpKind::TRANSPOSE_CONV2D: return op_transpose_conv2d(c);
        case OpKind::CLAMP: return op_clamp(c);
        case OpKind::ERF:
        case OpKind::SIGMOID:
        case OpKind::TANH:
        case OpKind::ABS:
        case OpKind::BITWISE_NOT:
        case OpKind::CEIL:
        case OpKind::CLZ:
        case OpKind::COS:
        case OpKind::EXP:
        case OpKind::FLOOR:
        case OpKind::LOG:
        case OpKind::LOGICAL_NOT:
        case OpKind::RECIPROCAL:
        case OpKind::RSQRT:
        case OpKind::SIN: return op_unary(c);
        case OpKind::NEGATE: return op_negate(c);
        case OpKind::ADD:
        case OpKind::ARITHMETIC_RIGHT_SHIFT:
        case OpKind::BITWISE_AND:
        case OpKind::BITWISE_OR:
        case OpKind::BITWISE_XOR:
        case OpKind::INTDIV:
        case OpKind::LOGICAL_AND:
        case OpKind::LOGICAL_LEFT_SHIFT:
        case OpKind::LOGICAL_RIGHT_SHIFT:
        case OpKind::LOGICAL_OR:
        case OpKind::LOGICAL_XOR:
        case OpKind::MAXIMUM:
        case OpKind::MINIMUM:
        case OpKind::MUL:
        case OpKind::POW:
        case OpKind::SUB: return op_binary(c);
        case OpKind::TABLE: return op_table(c);
        case OpKind::SELECT: return op_select(c);
        case OpKind::EQUAL:
        case OpKind::GREATER:
        case OpKind::GREATER_EQUAL: return op_compare(c);
        case OpKind::REDUCE_ALL:
        case OpKind::REDUCE_ANY:
        case OpKind::REDUCE_MAX:
        case OpKind::REDUCE_MIN:
        case OpKind::REDUCE_PRODUCT:
        case OpKind::REDUCE_SUM: return op_reduce(c);
        case OpKind::CONCAT: return op_concat(c);
        case OpKind::PAD: return op_pad(c);
        case OpKind::RESHAPE: return op_reshape(c);
        case OpKind::REVERSE: return op_reverse(c);
        case OpKind::SLICE: return op_slice(c);
        case OpKind::TILE: return op_tile(c);
        case OpKind::TRANSPOSE: return op_transpose(c);
        case OpKind::GATHER: return op_gather(c);
        case OpKind::SCATTER: return op_scatter(c);
        case OpKind::RESIZE: return op_resize(c);
        case OpKind::CAST: return op_cast(c);
        case OpKind::RESCALE: return op_rescale(c);
        case OpKind::CONST: return op_const(c);
        case OpKind::IDENTITY: return op_identity(c);
        case OpKind::CUSTOM:
            throw Failure{"custom-op", "CUSTOM operator '" + c.attr<std::string>(AttrName::operator_name) + "' (domain '" +
                                           c.attr<std::string>(AttrName::domain_name) + "') has no implementation in the interpreter"};
        case OpKind::COND_IF: return op_cond_if(c);
        case OpKind::WHILE_LOOP: return op_while_loop(c);
        case OpKind::VARIABLE: return op_variable(c);
        case OpKind::VARIABLE_WRITE: return op_variable_write(c);
        case OpKind::VARIABLE_READ: return op_variable_read(c);
        case OpKind::CONST_SHAPE: return op_const_shape(c);
    }
    unsupported("unknown operator");
}

}  // namespace tosa_interpreter_cpp

// ---- the interpreter -----------------------------------------------------------------------------

void Interpreter::Impl::report(const Op& op, const std::string& code, const std::string& message, Diagnostics& diags) const {
    std::string what = to_string(op.kind);
    if (!op.outputs.empty()) what += " %" + std::to_string(op.outputs[0]);
    const Origin* origin = op.origin < graph.origins.size() ? &graph.origins[op.origin] : nullptr;
    Diagnostic& d = diags.error(Stage::tosa, code, what + ": " + message, origin ? origin->provenance.range : SourceRange{});
    if (origin && !origin->operation.empty())
        d.notes.push_back(Note{"lowered from NNEF operation '" + origin->operation + "'" +
                                   (origin->tensor.empty() ? std::string() : " ('" + origin->tensor + "')"),
                               origin->provenance.range});
}

void Interpreter::Impl::plan() {
    // Values read by an operator of another block than the one defining them stay until the end.
    std::vector<std::uint32_t> defined(graph.values.size(), no_origin);
    for (std::uint32_t b = 0; b < graph.blocks.size(); ++b) {
        for (ValueId v : graph.blocks[b].inputs)
            if (v < defined.size()) defined[v] = b;
        for (const Op& op : graph.blocks[b].ops)
            for (ValueId v : op.outputs)
                if (v < defined.size()) defined[v] = b;
    }
    std::vector<bool> pinned(graph.values.size(), false);
    release.assign(graph.blocks.size(), {});
    for (std::uint32_t b = 0; b < graph.blocks.size(); ++b) {
        const Block& blk = graph.blocks[b];
        std::vector<std::size_t> last(graph.values.size(), no_origin);
        for (std::size_t i = 0; i < blk.ops.size(); ++i) {
            for (ValueId v : blk.ops[i].inputs)
                if (v < last.size()) {
                    last[v] = i;
                    if (defined[v] != b) pinned[v] = true;
                }
            for (ValueId v : blk.ops[i].outputs)
                if (v < last.size() && last[v] == no_origin) last[v] = i;  // never read: free at once
        }
        for (ValueId v : blk.outputs)
            if (v < last.size()) {
                last[v] = no_origin;
                if (defined[v] != b) pinned[v] = true;
            }
        release[b].assign(blk.ops.size(), {});
        for (ValueId v = 0; v < last.size(); ++v)
            if (last[v] != no_origin && defined[v] == b) release[b][last[v]].push_back(v);
    }
    for (auto& per_block : release)
        for (auto& list : per_block)
            list.erase(std::remove_if(list.begin(), list.end(), [&](ValueId v) { return pinned[v]; }), list.end());
}

std::vector<ConstPtr> Interpreter::Impl::run_block(std::uint32_t b, const std::vector<ConstPtr>& inputs, Diagnostics& diags) {
    using namespace tosa_interpreter_cpp;
    const Block& blk = graph.blocks.at(b);
    for (std::size_t i = 0; i < blk.inputs.size() && i < inputs.size(); ++i) values[blk.inputs[i]] = inputs[i];
    for (std::size_t i = 0; i < blk.ops.size(); ++i) {
        const Op& op = blk.ops[i];
        Ctx c{*this, op, diags};
        try {
            execute(c);
        } catch (const Failure& f) {
            report(op, f.code, f.message, diags);
            throw Reported{};
        } catch (const Reported&) {
            throw;
        } catch (const std::logic_error& e) {
            report(op, "malformed-op", e.what(), diags);
            throw Reported{};
        } catch (const std::exception& e) {
            report(op, "internal", e.what(), diags);
            throw Reported{};
        }
        for (ValueId v : release[b][i]) values[v].reset();
    }
    std::vector<ConstPtr> outs;
    for (ValueId v : blk.outputs) {
        if (!values.at(v)) {
            diags.error(Stage::tosa, "unset-output", "output %" + std::to_string(v) + " of block '" + blk.name + "' is not computed by any operator");
            throw Reported{};
        }
        outs.push_back(values[v]);
    }
    return outs;
}

Interpreter::Interpreter(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Interpreter::~Interpreter() = default;

const Graph& Interpreter::graph() const { return impl_->graph; }

ConstPtr Interpreter::variable(const std::string& name) const {
    auto found = impl_->variables.find(name);
    return found == impl_->variables.end() || !found->second.written ? nullptr : found->second.data;
}

std::unique_ptr<Interpreter> Interpreter::create(const Graph& graph, InterpretOptions options, Diagnostics& diags) {
    const std::size_t before = diags.error_count();
    auto impl = std::make_unique<Impl>(graph, std::move(options));
    if (graph.blocks.empty()) {
        diags.error(Stage::tosa, "malformed-graph", "the graph has no main block");
        return nullptr;
    }
    for (const Block& blk : graph.blocks) {
        for (ValueId v : blk.inputs)
            if (v >= graph.values.size()) diags.error(Stage::tosa, "malformed-graph", "block '" + blk.name + "' has an unknown input value");
        for (ValueId v : blk.outputs)
            if (v >= graph.values.size()) diags.error(Stage::tosa, "malformed-graph", "block '" + blk.name + "' has an unknown output value");
        for (const Op& op : blk.ops) {
            const OpInfo& info = op.info();
            auto bad = [&](const std::string& code, const std::string& why) { impl->report(op, code, why, diags); };
            for (ValueId v : op.inputs)
                if (v >= graph.values.size()) bad("malformed-op", "operand %" + std::to_string(v) + " does not exist");
            for (ValueId v : op.outputs)
                if (v >= graph.values.size()) bad("malformed-op", "result %" + std::to_string(v) + " does not exist");
            if (!info.variadic_inputs && op.inputs.size() != info.inputs.size())
                bad("malformed-op", std::to_string(op.inputs.size()) + " operands, the operator takes " + std::to_string(info.inputs.size()));
            if (info.variadic_inputs && op.inputs.size() + 1 < info.inputs.size())
                bad("malformed-op", std::to_string(op.inputs.size()) + " operands, the operator takes at least " + std::to_string(info.inputs.size() - 1));
            if (!info.variadic_outputs && op.outputs.size() != info.outputs.size())
                bad("malformed-op", std::to_string(op.outputs.size()) + " results, the operator has " + std::to_string(info.outputs.size()));
            for (const AttrSpec& a : info.attributes) {
                if (!a.optional && !op.attr(a.name)) bad("malformed-op", std::string("attribute '") + to_string(a.name) + "' is missing");
                if (a.kind == AttrKind::graph && op.attr(a.name)) {
                    const Attr& v = *op.attr(a.name);
                    if (!std::holds_alternative<BlockRef>(v) || std::get<BlockRef>(v).block == 0 || std::get<BlockRef>(v).block >= graph.blocks.size())
                        bad("malformed-op", std::string("attribute '") + to_string(a.name) + "' does not refer to a block of the graph");
                }
            }
            if (op.kind == OpKind::CUSTOM) {
                const Attr* n = op.attr(AttrName::operator_name);
                const std::string name = n && std::holds_alternative<std::string>(*n) ? std::get<std::string>(*n) : std::string("?");
                bad("custom-op", "CUSTOM operator '" + name + "' has no implementation in the interpreter (its behavior is implementation defined)");
            }
        }
    }
    if (diags.error_count() > before) return nullptr;
    impl->plan();
    return std::unique_ptr<Interpreter>(new Interpreter(std::move(impl)));
}

std::optional<std::vector<ConstPtr>> Interpreter::run(const std::vector<ConstPtr>& inputs, Diagnostics& diags) {
    Impl& m = *impl_;
    const Graph& g = m.graph;
    const Block& main = g.main();
    if (inputs.size() != main.inputs.size()) {
        diags.error(Stage::tosa, "bad-input", "the graph takes " + std::to_string(main.inputs.size()) + " inputs, " +
                                                  std::to_string(inputs.size()) + " given");
        return std::nullopt;
    }
    bool ok = true;
    for (std::size_t i = 0; i < inputs.size(); ++i) {
        const Value& v = g.value(main.inputs[i]);
        const std::string name = v.name.empty() ? "%" + std::to_string(main.inputs[i]) : "'" + v.name + "'";
        if (!inputs[i] || !inputs[i]->data) {
            diags.error(Stage::tosa, "bad-input", "input " + std::to_string(i) + " (" + name + ") is missing");
            ok = false;
        } else if (inputs[i]->type != v.type) {
            diags.error(Stage::tosa, "bad-input", "input " + std::to_string(i) + " (" + name + ") is " + to_string(inputs[i]->type) +
                                                      ", the graph takes " + to_string(v.type));
            ok = false;
        }
    }
    if (!ok) return std::nullopt;
    m.values.assign(g.values.size(), nullptr);
    m.depth = 0;
    for (auto& v : m.variables) v.second.seen = false;
    std::optional<std::vector<ConstPtr>> result;
    try {
        result = m.run_block(0, inputs, diags);
    } catch (const tosa_interpreter_cpp::Reported&) {
        result.reset();
    }
    m.values.clear();
    return result;
}

std::optional<std::vector<ConstPtr>> interpret(const Graph& graph, const std::vector<ConstPtr>& inputs,
                                               const InterpretOptions& options, Diagnostics& diags) {
    std::unique_ptr<Interpreter> it = Interpreter::create(graph, options, diags);
    if (!it) return std::nullopt;
    return it->run(inputs, diags);
}

}  // namespace nnef::tosa
