// Run-time tensors of the reference executor: a dtype, a shape and row-major items. std-only.
//
// Data types: scalar items are Real (float, IEEE binary32; double in the NNEF_EXEC_FLOAT64 build,
// see exec/precision.hpp), integer items std::int64_t, logical items
// bool. The items live in shared storage: copies of a TensorValue, and the results of operations
// that only re-index (reshape, squeeze, copy, ...), share it. Storage is written only by the kernel
// that allocated it, before the tensor is handed on; after that it is immutable.
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <nnef/graph.hpp>

#include "exec/precision.hpp"

namespace nnef::NNEF_EXEC_NS {

// The C++ item type of a data type.
template <PrimType P> struct ItemOf;
template <> struct ItemOf<PrimType::scalar> { using type = Real; };
template <> struct ItemOf<PrimType::integer> { using type = std::int64_t; };
template <> struct ItemOf<PrimType::logical> { using type = bool; };

template <class T> constexpr PrimType dtype_of();
template <> constexpr PrimType dtype_of<Real>() { return PrimType::scalar; }
template <> constexpr PrimType dtype_of<std::int64_t>() { return PrimType::integer; }
template <> constexpr PrimType dtype_of<bool>() { return PrimType::logical; }

// Calls f(T{}) with T the item type of `dtype` (scalar, integer or logical).
template <class F>
decltype(auto) dispatch(PrimType dtype, F&& f) {
    switch (dtype) {
        case PrimType::integer: return f(std::int64_t{});
        case PrimType::logical: return f(bool{});
        default: return f(Real{});
    }
}

inline std::size_t item_size(PrimType dtype) {
    return dtype == PrimType::integer ? sizeof(std::int64_t) : dtype == PrimType::logical ? sizeof(bool) : sizeof(Real);
}

// Product of the extents (1 for rank 0).
inline std::int64_t volume_of(const Shape& shape) {
    std::int64_t v = 1;
    for (std::int64_t e : shape) v *= e;
    return v;
}

class TensorValue {
public:
    TensorValue() = default;

    // A new tensor with zero items (false for logical).
    TensorValue(PrimType dtype, Shape shape) : dtype_(dtype), shape_(std::move(shape)) {
        volume_ = volume_of(shape_);
        const std::size_t n = static_cast<std::size_t>(volume_ > 0 ? volume_ : 1);
        dispatch(dtype_, [&](auto tag) {
            using T = decltype(tag);
            std::shared_ptr<T[]> items(new T[n]());
            data_ = items.get();
            owner_ = std::shared_ptr<const void>(items, items.get());
        });
    }

    // Items that stay owned by `owner` (e.g. the float32 data of a tensor file); never written.
    static TensorValue view(PrimType dtype, Shape shape, std::shared_ptr<const void> owner, const void* data) {
        TensorValue t;
        t.dtype_ = dtype;
        t.shape_ = std::move(shape);
        t.volume_ = volume_of(t.shape_);
        t.owner_ = std::move(owner);
        t.data_ = const_cast<void*>(data);
        return t;
    }

    // Rank-0 tensors of one item.
    template <class T>
    static TensorValue single(T value) {
        TensorValue t(dtype_of<T>(), Shape{});
        t.data<T>()[0] = value;
        return t;
    }

    // A tensor of the given items (items.size() must equal the volume of `shape`).
    template <class T>
    static TensorValue from(Shape shape, const std::vector<T>& items) {
        TensorValue t(dtype_of<T>(), std::move(shape));
        if (static_cast<std::int64_t>(items.size()) != t.volume_)
            throw std::invalid_argument("TensorValue::from: " + std::to_string(items.size()) + " items for shape " +
                                        to_string(t.shape_));
        T* d = t.data<T>();
        for (std::size_t i = 0; i < items.size(); ++i) d[i] = items[i];
        return t;
    }

    bool empty() const { return data_ == nullptr; }
    PrimType dtype() const { return dtype_; }
    const Shape& shape() const { return shape_; }
    std::size_t rank() const { return shape_.size(); }
    std::int64_t volume() const { return volume_; }
    // Extent of dimension k; 1 beyond the rank (trailing singleton dimensions are implicit).
    std::int64_t extent(std::size_t k) const { return k < shape_.size() ? shape_[k] : 1; }

    // The items as T, which must be the item type of the dtype.
    template <class T>
    const T* data() const {
        check<T>();
        return static_cast<const T*>(data_);
    }
    // Writable items: only for a tensor the caller allocated and has not handed on.
    template <class T>
    T* data() {
        check<T>();
        return static_cast<T*>(data_);
    }
    const void* raw() const { return data_; }
    void* raw() { return data_; }  // as data<T>() (writable)

    // The same items under another shape of equal volume (shares the storage).
    TensorValue reshaped(Shape shape) const {
        TensorValue t = *this;
        t.shape_ = std::move(shape);
        if (volume_of(t.shape_) != volume_)
            throw std::invalid_argument("TensorValue::reshaped: volume of " + to_string(t.shape_) + " differs from " +
                                        to_string(shape_));
        return t;
    }

    // Item i converted to double / int64 / bool (any dtype).
    double as_double(std::int64_t i) const {
        return dispatch(dtype_, [&](auto tag) { return static_cast<double>(data<decltype(tag)>()[i]); });
    }
    std::vector<double> to_doubles() const {
        std::vector<double> out(static_cast<std::size_t>(volume_));
        for (std::int64_t i = 0; i < volume_; ++i) out[static_cast<std::size_t>(i)] = as_double(i);
        return out;
    }

private:
    template <class T>
    void check() const {
        if (dtype_of<T>() != dtype_)
            throw std::logic_error(std::string("TensorValue: items of a ") + nnef::to_string(dtype_) +
                                   " tensor accessed as " + nnef::to_string(dtype_of<T>()));
    }

    PrimType dtype_ = PrimType::none;
    Shape shape_;
    std::int64_t volume_ = 0;
    std::shared_ptr<const void> owner_;
    void* data_ = nullptr;
};

}  // namespace nnef::NNEF_EXEC_NS
