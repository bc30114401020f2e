// Per-operation knowledge used by shape inference, and the registry through which users add shape
// functions for custom operations. std-only.
#pragma once
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nnef/graph.hpp>

namespace nnef {

// What a shape function sees: the operation with its attributes evaluated, the shapes of its
// input tensors, and a way to report errors (stage `shape`, located at the invocation).
// Output dtypes are set by the caller from the declaration (with the generic type bound); a shape
// function sets output shapes only. Shape functions are never called when an input shape is
// unknown: then all outputs get unknown shapes.
class ShapeContext {
public:
    virtual ~ShapeContext() = default;
    virtual const Operation& op() const = 0;
    // Attribute by parameter name; a none Value when the operation has no such attribute.
    const Value& attr(std::string_view name) const;
    // Tensor argument by parameter name (an identifier, a literal, or an array of them).
    const Value& input(std::string_view name) const;
    // Shape of one tensor argument: an identifier's tensor shape; [] for a literal.
    virtual Shape shape_of(const Value& tensor) const = 0;
    virtual PrimType dtype_of(const Value& tensor) const = 0;
    // The name of the operation that produced a tensor argument ("" for a literal). Operations
    // of a graph checked without keeping them (Session, FlattenOptions::keep_operations) are gone
    // by the time later ones are inferred: a shape function sees their names only.
    virtual std::string_view producer(const Value& tensor) const = 0;
    // Reports an error; always returns false so that `return ctx.error(...)` reads well.
    virtual bool error(std::string message) = 0;
    // Sets the shape of a tensor result; for tensor-array results (split, unstack) set each item.
    virtual void set_shape(std::string_view result, Shape shape) = 0;
    virtual void set_shapes(std::string_view result, std::vector<Shape> shapes) = 0;
    // Number of items the caller bound to an array result (e.g. lvalue length for split).
    virtual std::size_t result_count(std::string_view result) const = 0;
    // The dialect: strict is revision 3 exactly; the default accepts the de facto forms of
    // exported models (e.g. rank-1 biases) and reports each with warning().
    virtual bool strict() const { return false; }
    virtual void warning(std::string message) { (void)message; }
};

// Returns false after reporting an error through the context.
using ShapeFunction = std::function<bool(ShapeContext&)>;

struct OpDef {
    std::string name;
    ShapeFunction infer;
};

// Operations with an OpDef stay atomic when flattening (registration is the expansion policy);
// every other fragment is expanded from its body.
class OpRegistry {
public:
    void add(OpDef def) { defs_[def.name] = std::move(def); }
    const OpDef* find(std::string_view name) const {
        auto it = defs_.find(name);
        return it == defs_.end() ? nullptr : &it->second;
    }
    std::vector<std::string> names() const;
    // The standard operations: every primitive, plus the compounds kept atomic by default.
    static const OpRegistry& standard();

private:
    std::map<std::string, OpDef, std::less<>> defs_;
};

}  // namespace nnef
