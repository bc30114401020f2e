// Per-operation dtype and shape inference (internal to semantics).
#pragma once
#include <algorithm>
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include <nnef/graph.hpp>
#include <nnef/op_def.hpp>
#include <nnef/options.hpp>
#include "grammar/ast.hpp"

namespace nnef::sema {

// Tensor (by position in the graph) -> the name of the operation that produced it. The names
// point into the declarations, which outlive the map; renaming a tensor keeps its entry.
class ProducerMap {
public:
    void set(std::size_t tensor, const std::string* op_name) {
        if (names_.size() <= tensor) names_.resize(std::max(tensor + 1, names_.size() * 2), nullptr);
        names_[tensor] = op_name;
    }
    // Room for tensors 0 to n - 1.
    void reserve(std::size_t n) {
        if (names_.size() < n) names_.resize(n, nullptr);
    }
    // "" when unknown.
    std::string_view find(std::size_t tensor) const {
        return tensor < names_.size() && names_[tensor] ? std::string_view(*names_[tensor]) : std::string_view();
    }

private:
    std::vector<const std::string*> names_;
};

// Variables whose labels are equal up to case share data (spec 5.1): the key they share.
std::string label_key(std::string_view label);
// dtype of an argument value: a tensor's dtype, or the literal's primitive type.
PrimType value_dtype(const Graph& g, const Value& v);
// Every identifier inside a value, in order.
std::vector<std::string> tensor_names(const Value& v);
// Calls f(const std::string&) for every identifier inside a value, in order (no copies).
template <class F>
void for_each_identifier(const Value& v, F&& f) {
    if (v.is_identifier()) {
        f(v.as_identifier());
    } else if (v.is_list()) {
        for (const Value& i : v.items()) for_each_identifier(i, f);
    }
}
// Sets the dtype of every output tensor of `op` from the declared result types (generic bound to
// op.dtype).
void set_output_dtypes(Graph& g, const Operation& op, const ast::Fragment& decl);
// What a shape function reported.
struct InferReport {
    bool strict = false;  // in: the dialect
    // in: every output tensor's rank and volume (items) must stay within these (Limits::max_rank,
    // max_volume); one that does not is an error naming the limit, and `limit_exceeded` is set.
    std::size_t max_rank = SIZE_MAX;
    std::uint64_t max_volume = UINT64_MAX;
    bool limit_exceeded = false;  // out
    // out: the shape function asked for the producer of an argument (its outcome depends on more
    // than the argument values, shapes and dtypes).
    bool asked_producer = false;
    std::vector<std::string> errors;
    std::vector<std::string> warnings;
};
// A report with the dialect and limits of `options`.
InferReport infer_report(const Options& options);

// An identifier the caller has already resolved: the name object of an identifier Value (copies
// of a Value share it) and the tensor's position in the graph. Lookups of that name object then
// skip the graph's name index.
struct KnownTensor {
    const std::string* name = nullptr;
    std::uint32_t index = 0;
};

// Runs the op's shape function (when every input shape is known; otherwise marks the outputs
// unknown). Messages of failed checks go to report.errors. Returns false on failure. `known`
// (`known_count` entries) may list identifiers of op already resolved.
bool infer_operation(Graph& g, const ProducerMap& producers, Operation& op, const OpDef* def, InferReport& report,
                     const KnownTensor* known = nullptr, std::size_t known_count = 0);

}  // namespace nnef::sema
