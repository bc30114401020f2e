// The data layout operators (spec 2.10): CONCAT, PAD, RESHAPE, REVERSE, SLICE, TILE, TRANSPOSE.
#include "lowering/tosa/ops/check.hpp"
#include "lowering/tosa/ops/kernel.hpp"
#include "lowering/tosa/ops/registry.hpp"

namespace nnef::tosa {

// ---- validation ----------------------------------------------------------------------------

namespace checks {

// The Supported Data Types and Compile Time Constant tables of the family.
void add_data_layout_tables(Tables& t) {
    constexpr std::uint32_t both = atom_pro_int | atom_pro_fp;
    t.types.insert(t.types.end(), {
        {OpKind::CONCAT, "in_out_t=input1=output",
         {{"PRO-FP", "fp16"}, {"PRO-FP", "fp32"}, {"PRO-INT or PRO-FP", "bool"}, {"PRO-INT", "i32"},
          {"PRO-INT", "i8"}, {"EXT-BF16", "bf16"}, {"EXT-FP8E4M3", "fp8e4m3"}, {"EXT-FP8E5M2", "fp8e5m2"},
          {"EXT-INT16", "i16"}}},
        {OpKind::PAD, "in_out_t=input1=pad_const=output shape_t=padding", layout_rows},
        {OpKind::RESHAPE, "in_out_t=input1=output shape_t=shape", layout_rows},
        {OpKind::REVERSE, "in_out_t=input1=output", layout_rows},
        {OpKind::SLICE, "in_out_t=input1=output shape_t=start=size", layout_rows},
        {OpKind::TILE, "in_out_t=input1=output shape_t=multiples", layout_rows},
        {OpKind::TRANSPOSE, "in_out_t=input1=output", layout_rows},
    });
    t.ctc.insert(t.ctc.end(), {
        {OpKind::PAD, "padding pad_const", both},
        {OpKind::RESHAPE, "shape", both},
        {OpKind::SLICE, "start size", both},
        {OpKind::TILE, "multiples", both},
    });
}

void check_concat(OpCheck& c) {
    if (c.error_if(c.n_in() == 0, "input1 == []", "no inputs")) return;
    if (c.validating() && c.level(static_cast<I64>(c.n_in()), c.lv().max_tensor_list_size,
                                  "tensor_list_shape(input1) <= MAX_TENSOR_LIST_SIZE"))
        return;
    const Shape& first = c.ish(0);
    if (c.input_rank_min(0, 1)) return;
    const I64 axis = c.i32(AttrName::axis);
    if (c.axis_in_range(axis, std::max<std::size_t>(1, first.size()), "axis < 0 || axis >= max(1,rank(shapes1[0]))")) return;
    I64 sum = 0;
    for (std::size_t i = 0; i < c.n_in(); ++i) {
        const Shape& s = c.ish(i);
        if (c.error_if(s.size() != first.size(), "rank(shapes1[shape_index]) != rank(shapes1[0])",
                       "input " + std::to_string(i) + " is " + to_string(c.in(i)) + ", input 0 " + to_string(c.in(0))))
            return;
        for (std::size_t d = 0; d < s.size(); ++d) {
            if (static_cast<I64>(d) == axis) {
                sum += s[d];
            } else if (c.error_if(s[d] != first[d], "shapes1[shape_index][axis_index] != shapes1[0][axis_index]",
                                  "input " + std::to_string(i) + " is " + to_string(c.in(i)) + ", input 0 " +
                                      to_string(c.in(0)))) {
                return;
            }
        }
    }
    Shape o = first;
    o[axis] = sum;
    if (c.expect_rank(0, c.idt(0), o.size(), "rank(output) != rank(input1)")) return;
    for (std::size_t d = 0; d < o.size(); ++d)
        if (c.expect_dim(0, d, o[d], static_cast<I64>(d) == axis ? "axis_sum != shape[axis]" : "shape[i] != shapes1[0][i]"))
            return;
}

void check_pad(OpCheck& c) {
    if (c.input_rank_min(0, 1) || c.input_shape(2, {1}, "[1]")) return;
    const Shape& x = c.ish(0);
    bool bad = false;
    const auto* pad = shape_operand(c, 1, 2 * x.size(), "2*rank(shape1)", bad);
    if (bad) return;
    if (c.expect_rank(0, c.idt(0), x.size(), "rank(shape) != rank(shape1)") || !pad) return;
    for (std::size_t i = 0; i < x.size(); ++i) {
        if (c.error_if((*pad)[2 * i] < 0 || (*pad)[2 * i + 1] < 0, "padding[i * 2] < 0 || padding[(i * 2) + 1] < 0",
                       "padding " + ints_text(*pad)) ||
            c.expect_dim(0, i, (*pad)[2 * i] + x[i] + (*pad)[2 * i + 1],
                         "shape[i] != padding[i * 2] + shape1[i] + padding[(i * 2) + 1]"))
            return;
    }
}

void check_reshape(OpCheck& c) {
    const TensorType& st = c.in(1);
    if (c.argument(st.shape.size() == 1, "shape is shape_t<[rank(shape)]> (argument table)", "shape is " + to_string(st)))
        return;
    const std::size_t rank = static_cast<std::size_t>(std::max<I64>(0, st.shape[0]));
    bool bad = false;
    const auto* s = shape_operand(c, 1, rank, "rank(shape)", bad);
    if (bad) return;
    if (c.validating() && c.level(static_cast<I64>(rank), c.lv().max_rank, "rank(shape) <= MAX_RANK")) return;
    if (c.expect_rank(0, c.idt(0), rank, "rank(output) != length(shape)") || !s) return;
    I64 size = 1;
    for (I64 e : *s) {
        if (c.require(e >= 1, "1 <= shape[i] (tensor_size)", "shape " + ints_text(*s))) return;
        size *= e;
    }
    if (c.error_if(size != c.in(0).volume(), "tensor_size(shape1) != tensor_size(shape)",
                   to_string(c.in(0)) + " to " + ints_text(*s)))
        return;
    for (std::size_t d = 0; d < rank; ++d)
        if (c.expect_dim(0, d, (*s)[d], "shape(output) != shape")) return;
}

void check_reverse(OpCheck& c) {
    if (c.input_rank_min(0, 1)) return;
    if (c.axis_in_range(c.i32(AttrName::axis), c.ish(0).size(), "axis < 0 || axis >= rank(shape)")) return;
    c.expect_shape(0, c.idt(0), c.ish(0), "shape(output) != shape(input1)");
}

void check_slice(OpCheck& c) {
    if (c.input_rank_min(0, 1)) return;
    const Shape& x = c.ish(0);
    bool bad = false;
    const auto* start = shape_operand(c, 1, x.size(), "rank(shape1)", bad);
    if (bad) return;
    const auto* size = shape_operand(c, 2, x.size(), "rank(shape1)", bad);
    if (bad) return;
    if (c.expect_rank(0, c.idt(0), x.size(), "rank(shape1) != rank(shape)")) return;
    for (std::size_t i = 0; i < x.size(); ++i) {
        if (start && c.error_if((*start)[i] < 0, "start[index] < 0", "start " + ints_text(*start))) return;
        if (size && c.error_if((*size)[i] <= 0, "size[index] <= 0", "size " + ints_text(*size))) return;
    }
    for (std::size_t i = 0; i < x.size(); ++i) {
        if (start && size &&
            c.error_if((*start)[i] + (*size)[i] > x[i], "start[index] + size[index] > shape1[index]",
                       "start " + ints_text(*start) + ", size " + ints_text(*size) + ", input " + to_string(c.in(0))))
            return;
        if (size && c.expect_dim(0, i, (*size)[i], "shape[index] != size[index]")) return;
    }
}

void check_tile(OpCheck& c) {
    if (c.input_rank_min(0, 1)) return;
    const Shape& x = c.ish(0);
    bool bad = false;
    const auto* m = shape_operand(c, 1, x.size(), "rank(shape1)", bad);
    if (bad) return;
    if (c.expect_rank(0, c.idt(0), x.size(), "rank(shape1) != rank(shape)") || !m) return;
    for (std::size_t i = 0; i < x.size(); ++i) {
        if (c.require((*m)[i] >= 1, "1 <= shape[i] (tensor_size of shape1[i] * multiples[i])",
                      "multiples " + ints_text(*m)) ||
            c.expect_dim(0, i, x[i] * (*m)[i], "shape1[i] * multiples[i] != shape[i]"))
            return;
    }
}

void check_transpose(OpCheck& c) {
    if (c.input_rank_min(0, 1)) return;
    const Shape& x = c.ish(0);
    const auto& perms = c.ints(AttrName::perms);
    if (c.argument(perms.size() == x.size(), "length(perms) == rank(shape1) (argument table)",
                   "perms " + ints_text(perms) + " for " + to_string(c.in(0))))
        return;
    std::vector<bool> used(x.size());
    for (I64 p : perms) {
        if (c.error_if(p >= static_cast<I64>(x.size()), "index >= rank(shape1)", "perms " + ints_text(perms)) ||
            c.error_if(p < 0, "index < 0", "perms " + ints_text(perms)) ||
            c.error_if(used[p], "indexes_used[index] == true", "perms " + ints_text(perms)))
            return;
        used[p] = true;
    }
    if (c.expect_rank(0, c.idt(0), x.size(), "rank(shape1) != rank(shape)")) return;
    for (std::size_t i = 0; i < x.size(); ++i)
        if (c.expect_dim(0, i, x[perms[i]], "shape1[perms[i]] != shape[i]")) return;
}

}  // namespace checks

// ---- interpreter kernels ---------------------------------------------------------------------

namespace kernels {

void op_concat(Ctx& c) {
    const TensorType& out = c.out_type(0);
    const I64 axis = c.attr<I64>(AttrName::axis);
    for (std::size_t t = 0; t < c.inputs(); ++t) error_if(c.in_type(t).dtype != out.dtype, "input and output element types differ");
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
    error_if(pad_const.type.dtype != x.type.dtype || out.dtype != x.type.dtype, "pad_const, input1 and output types differ");
    for (std::size_t i = 0; i < r; ++i) {  // padding that is no constant
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
    // a shape operand that is no constant (the check stops before these rules then)
    error_if(Shape(shape.begin(), shape.end()) != out.shape, "shape(output) != shape");
    error_if(x->type.volume() != out.volume(), "tensor_size(shape1) != tensor_size(shape)");
    error_if(x->type.dtype != out.dtype, "input1 and output types differ");
    c.set(0, ConstData::view(out, x->owner, x->data));  // same items, row-major: no copy
}

// Output position -> input offset through per-dimension input strides (any sign) and a base.
template <class Item>
void gather_strided(const Shape& out, const Shape& in_strides, I64 base, const Item* src, Item* dst) {
    for_each_strided_row<1>(out, {in_strides}, {base}, [&](I64 o, const std::array<I64, 1>& b, const std::array<I64, 1>& step, I64 count) {
        for (I64 j = 0; j < count; ++j) dst[o + j] = src[b[0] + j * step[0]];
    });
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
    error_if(out.dtype != x.type.dtype, "input1 and output types differ");
    const Shape st = row_strides(x.type.shape);
    I64 base = 0;
    for (std::size_t i = 0; i < r; ++i) {  // start and size that are no constants
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
    error_if(out.dtype != x.type.dtype, "input1 and output types differ");
    for (std::size_t i = 0; i < r; ++i)  // multiples that are no constant
        error_if(x.type.shape[i] * multiples[i] != out.shape[i], "shape1[i] * multiples[i] != shape[i]");
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
    error_if(out.dtype != x.type.dtype, "input1 and output types differ");
    const Shape ist = row_strides(x.type.shape);
    Shape st(r);
    for (std::size_t i = 0; i < r; ++i) st[i] = ist[perms[i]];
    auto y = c.alloc(0);
    gather_strided_bytes(storage_bytes(out.dtype), out.shape, st, 0, x.data, const_cast<void*>(y->data));
    c.set(0, y);
}

}  // namespace kernels

}  // namespace nnef::tosa
