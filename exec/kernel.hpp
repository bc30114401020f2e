// Kernels of the reference executor: one per operation, keyed by name, written from the formulas
// of spec chapter 4 against parameter *names* (never positions). std-only.
//
// A kernel reads its operation's evaluated attributes and its input tensors through a
// KernelContext, and sets every result. Output dtypes and shapes are those shape inference put on
// the graph (kernels allocate results with make_output). A kernel reports a problem with the data
// (an index out of range, ...) through error() and returns false.
#pragma once
#include <cstdint>
#include <deque>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nnef/graph.hpp>

#include "exec/tensor.hpp"

namespace nnef::NNEF_EXEC_NS {

using Ints = std::vector<std::int64_t>;
using Pairs = std::vector<std::pair<std::int64_t, std::int64_t>>;

class KernelContext {
public:
    virtual ~KernelContext() = default;
    virtual const Operation& op() const = 0;

    // ---- attributes (evaluated, defaults filled in); a missing attribute reads as the fallback
    const Value& attr(std::string_view name) const;
    std::int64_t int_attr(std::string_view name, std::int64_t fallback = 0) const;
    double scalar_attr(std::string_view name, double fallback = 0.0) const;  // integers convert
    bool logical_attr(std::string_view name, bool fallback = false) const;
    std::string string_attr(std::string_view name, std::string fallback = {}) const;
    Ints ints_attr(std::string_view name) const;    // integer[]
    Pairs pairs_attr(std::string_view name) const;  // (integer,integer)[]

    // ---- inputs
    // A single tensor argument: an identifier's current value, or a literal as a rank-0 tensor.
    virtual const TensorValue& input(std::string_view name) = 0;
    // The same converted to `dtype` when it has another one (e.g. an integer literal).
    const TensorValue& input(std::string_view name, PrimType dtype);
    // The items of a tensor-array argument (concat, stack).
    virtual std::vector<const TensorValue*> inputs(std::string_view name) = 0;

    // ---- outputs
    // Dtype and shape of a result (item `item` of an array result), from the graph.
    virtual PrimType output_dtype(std::string_view name, std::size_t item = 0) const = 0;
    virtual Shape output_shape(std::string_view name, std::size_t item = 0) const = 0;
    // Number of tensors an array result is bound to (split, unstack); 1 for a single result.
    virtual std::size_t output_count(std::string_view name) const = 0;
    // A zero-filled tensor of the result's dtype and shape.
    TensorValue make_output(std::string_view name, std::size_t item = 0) const {
        return TensorValue(output_dtype(name, item), output_shape(name, item));
    }
    // Sets a result; the dtype and shape must be the graph's (checked by the executor).
    virtual void set_output(std::string_view name, TensorValue value, std::size_t item = 0) = 0;

    // ---- state of the graph (tensor-introducing operations and variable updates)
    // external: the value fed for this graph input; variable: the variable's current value (its
    // label's state). Null when there is none.
    virtual const TensorValue* introduced_value() = 0;
    // update: after the cycle, the variable `variable` (a tensor name) takes `value`.
    virtual bool schedule_update(const std::string& variable, TensorValue value) = 0;

    // ---- environment
    virtual unsigned threads() const = 0;
    // Sums of products (convolutions) accumulated in double and rounded once (ExecOptions::exact_sums).
    virtual bool exact_sums() const { return false; }
    // Reports "<operation>: <message>" at the operation; always returns false.
    virtual bool error(std::string message) = 0;

    // Temporary tensors that must live as long as the context (conversions of inputs).
    TensorValue& keep(TensorValue t) {
        temporaries_.push_back(std::move(t));
        return temporaries_.back();
    }

private:
    std::deque<TensorValue> temporaries_;  // references stay valid as items are added
};

using Kernel = bool (*)(KernelContext&);

class KernelRegistry {
public:
    void add(std::string name, Kernel k) { kernels_[std::move(name)] = k; }
    Kernel find(std::string_view name) const {
        auto it = kernels_.find(std::string(name));
        return it == kernels_.end() ? nullptr : it->second;
    }
    std::vector<std::string> names() const {
        std::vector<std::string> out;
        for (const auto& [name, k] : kernels_) out.push_back(name);
        return out;
    }
    // The kernels of the standard operations: every primitive, and the compounds that have a
    // dedicated kernel (the others run through their expansion, see compounds_without_kernel()).
    static const KernelRegistry& standard();

private:
    std::map<std::string, Kernel> kernels_;
};

// Converts a tensor to another dtype: scalar -> integer is floor (as the compile-time
// `integer(x)`; NaN gives 0, out-of-range values saturate), to logical is `!= 0`, logical to
// numbers is 0 / 1.
TensorValue convert(const TensorValue& t, PrimType dtype);

// Registration, one function per kernel family (exec/kernels/*.cpp).
void add_elementwise_kernels(KernelRegistry& r);
void add_sliding_window_kernels(KernelRegistry& r);
void add_sampling_kernels(KernelRegistry& r);
void add_reduce_kernels(KernelRegistry& r);
void add_shape_kernels(KernelRegistry& r);
void add_roi_kernels(KernelRegistry& r);
void add_matmul_kernels(KernelRegistry& r);
void add_tensor_intro_kernels(KernelRegistry& r);
void add_normalization_kernels(KernelRegistry& r);

}  // namespace nnef::NNEF_EXEC_NS
