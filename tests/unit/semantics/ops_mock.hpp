// A mock ShapeContext for testing the shape functions of semantics/ops in isolation. An `OpCall`
// builds one Operation from the standard library declaration (so parameter names, the split into
// attributes and tensor inputs, and the defaults are those the expander would use), gives its
// tensor arguments known shapes, runs the registered OpDef and records what it reported.
#pragma once
#include "test_support.hpp"

#include <nnef/diagnostics.hpp>
#include <nnef/graph.hpp>
#include <nnef/op_def.hpp>
#include <nnef/source.hpp>
#include <nnef/value.hpp>

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "grammar/ast.hpp"
#include "semantics/stdlib.hpp"

namespace ops_test {

using nnef::Shape;
using nnef::Value;

inline Value I(std::int64_t v) { return Value::integer(v); }
inline Value S(double v) { return Value::scalar(v); }
inline Value B(bool v) { return Value::logical(v); }
inline Value Str(std::string v) { return Value::string(std::move(v)); }
inline Value Ints(std::vector<std::int64_t> v) {
    Value::Items items;
    for (std::int64_t x : v) items.push_back(Value::integer(x));
    return Value::array(std::move(items));
}
inline Value Scalars(std::vector<double> v) {
    Value::Items items;
    for (double x : v) items.push_back(Value::scalar(x));
    return Value::array(std::move(items));
}
inline Value Pads(std::vector<std::pair<std::int64_t, std::int64_t>> v) {
    Value::Items items;
    for (auto [p, q] : v) items.push_back(Value::tuple({Value::integer(p), Value::integer(q)}));
    return Value::array(std::move(items));
}

// The standard library of a dialect, loaded once.
inline const nnef::sema::Stdlib& stdlib(bool strict) {
    struct Loaded {
        nnef::SourceManager sm;
        nnef::Diagnostics diags;
        std::shared_ptr<const nnef::sema::Stdlib> lib;
    };
    static Loaded loaded[2];
    Loaded& l = loaded[strict ? 1 : 0];
    if (!l.lib) l.lib = nnef::sema::load_stdlib(l.sm, strict, l.diags);
    return *l.lib;
}

// A literal default of a declaration as a Value.
inline Value literal(const nnef::ast::Expr& e) {
    using K = nnef::ast::ExprKind;
    switch (e.kind) {
        case K::integer: return Value::integer(e.ival);
        case K::scalar: return Value::scalar(e.sval);
        case K::logical: return Value::logical(e.bval);
        case K::string: return Value::string(e.text);
        case K::array:
        case K::tuple: {
            Value::Items items;
            for (const auto& c : e.children) items.push_back(literal(c));
            return e.kind == K::array ? Value::array(std::move(items)) : Value::tuple(std::move(items));
        }
        case K::unary: {
            Value v = literal(e.children.at(0));
            if (e.op != "-") return v;
            return v.is_integer() ? Value::integer(-v.as_integer()) : Value::scalar(-v.as_scalar());
        }
        case K::paren: return literal(e.children.at(0));
        default: FAIL("default value is not a literal"); return Value();
    }
}

class MockContext : public nnef::ShapeContext {
public:
    nnef::Operation operation;
    std::map<std::string, Shape> shapes;               // tensor name -> shape
    std::map<std::string, nnef::Operation> producers;  // tensor name -> producing operation
    std::map<std::string, std::size_t> counts;         // array result -> bound items
    bool strict_dialect = false;

    std::vector<std::string> errors, warnings;
    std::map<std::string, Shape> result_shapes;
    std::map<std::string, std::vector<Shape>> result_arrays;

    const nnef::Operation& op() const override { return operation; }
    Shape shape_of(const Value& v) const override {
        if (!v.is_identifier()) return {};
        auto it = shapes.find(v.as_identifier());
        REQUIRE_MESSAGE(it != shapes.end(), "no shape for tensor " << v.as_identifier());
        return it->second;
    }
    nnef::PrimType dtype_of(const Value& v) const override {
        if (v.is_integer()) return nnef::PrimType::integer;
        if (v.is_logical()) return nnef::PrimType::logical;
        return nnef::PrimType::scalar;
    }
    std::string_view producer(const Value& v) const override {
        if (!v.is_identifier()) return {};
        auto it = producers.find(v.as_identifier());
        return it == producers.end() ? std::string_view() : std::string_view(it->second.name);
    }
    bool error(std::string message) override {
        errors.push_back(std::move(message));
        return false;
    }
    void set_shape(std::string_view result, Shape shape) override {
        CHECK_MESSAGE(operation.output(result) != nullptr, "set_shape of unknown result " << std::string(result));
        result_shapes[std::string(result)] = std::move(shape);
    }
    void set_shapes(std::string_view result, std::vector<Shape> s) override {
        CHECK_MESSAGE(operation.output(result) != nullptr, "set_shapes of unknown result " << std::string(result));
        result_arrays[std::string(result)] = std::move(s);
    }
    std::size_t result_count(std::string_view result) const override {
        auto it = counts.find(std::string(result));
        return it == counts.end() ? 0 : it->second;
    }
    bool strict() const override { return strict_dialect; }
    void warning(std::string message) override { warnings.push_back(std::move(message)); }
};

// What a shape function did.
struct Outcome {
    bool ok = false;
    std::vector<std::string> errors, warnings;
    std::map<std::string, Shape> shapes;
    std::map<std::string, std::vector<Shape>> arrays;

    Shape shape(const std::string& result) const {
        auto it = shapes.find(result);
        REQUIRE_MESSAGE(it != shapes.end(), "result " << result << " has no shape; errors: " << joined());
        return it->second;
    }
    std::string joined() const {
        std::string s;
        for (const auto& e : errors) s += (s.empty() ? "" : " | ") + e;
        return s;
    }
    // Failed with exactly one error that contains every fragment.
    bool rejected_with(std::initializer_list<const char*> fragments) const {
        if (ok || errors.size() != 1) return false;
        for (const char* f : fragments)
            if (errors[0].find(f) == std::string::npos) return false;
        return true;
    }
};

// One invocation of a standard operation.
class OpCall {
public:
    explicit OpCall(std::string name) { ctx_.operation.name = std::move(name); }

    // A tensor argument bound to a tensor of the given shape (named after the parameter unless
    // `tensor_name` is given), produced by `producer` (an operation name).
    OpCall& tensor(const std::string& param, Shape shape, const std::string& producer = "external",
                   std::string tensor_name = {}) {
        if (tensor_name.empty()) tensor_name = param;
        ctx_.shapes[tensor_name] = std::move(shape);
        nnef::Operation p;
        p.name = producer;
        ctx_.producers[tensor_name] = p;
        args_[param] = Value::identifier(tensor_name);
        return *this;
    }
    // A tensor-array argument: tensors `<param>0`, `<param>1`, ... of the given shapes.
    OpCall& tensors(const std::string& param, std::vector<Shape> shapes) {
        Value::Items items;
        for (std::size_t i = 0; i < shapes.size(); ++i) {
            const std::string name = param + std::to_string(i);
            ctx_.shapes[name] = shapes[i];
            nnef::Operation p;
            p.name = "external";
            ctx_.producers[name] = p;
            items.push_back(Value::identifier(name));
        }
        args_[param] = Value::array(std::move(items));
        return *this;
    }
    // An attribute, or a literal substituted for a tensor.
    OpCall& arg(const std::string& param, Value v) {
        args_[param] = std::move(v);
        return *this;
    }
    // The number of tensors bound to an array result.
    OpCall& count(const std::string& result, std::size_t n) {
        ctx_.counts[result] = n;
        return *this;
    }
    OpCall& strict(bool s = true) {
        ctx_.strict_dialect = s;
        return *this;
    }

    Outcome run() {
        MockContext ctx = ctx_;
        const nnef::ast::Fragment* decl = stdlib(ctx.strict_dialect).find(ctx.operation.name);
        REQUIRE_MESSAGE(decl != nullptr, "no standard fragment " << ctx.operation.name);
        for (const auto& arg : args_) {
            const std::string& name = arg.first;  // (REQUIRE_MESSAGE's lambda captures it: no structured binding, for clang 14)
            bool known = false;
            for (const auto& p : decl->params) known = known || p.name == name;
            REQUIRE_MESSAGE(known, ctx.operation.name << " has no parameter " << name);
        }
        for (const auto& p : decl->params) {
            auto it = args_.find(p.name);
            Value v;
            if (it != args_.end()) {
                v = it->second;
            } else {
                REQUIRE_MESSAGE(p.default_value.has_value(), ctx.operation.name << ": argument " << p.name << " missing");
                v = literal(*p.default_value);
            }
            (p.type.contains_tensor() ? ctx.operation.inputs : ctx.operation.attribs).emplace_back(p.name, std::move(v));
        }
        for (const auto& r : decl->results) {
            if (r.type.is_array()) {
                Value::Items items;
                for (std::size_t i = 0; i < ctx.result_count(r.name); ++i)
                    items.push_back(Value::identifier(r.name + std::to_string(i)));
                ctx.operation.outputs.emplace_back(r.name, Value::array(std::move(items)));
            } else {
                ctx.operation.outputs.emplace_back(r.name, Value::identifier(r.name));
            }
        }
        const nnef::OpDef* def = nnef::OpRegistry::standard().find(ctx.operation.name);
        REQUIRE_MESSAGE(def != nullptr, "no OpDef for " << ctx.operation.name);
        Outcome out;
        out.ok = def->infer(ctx);
        out.errors = ctx.errors;
        out.warnings = ctx.warnings;
        out.shapes = ctx.result_shapes;
        out.arrays = ctx.result_arrays;
        CHECK_MESSAGE(out.ok == out.errors.empty(), "return value and errors disagree: " << out.joined());
        if (out.ok) {
            // Every result got a shape.
            for (const auto& r : decl->results) {
                const bool set = r.type.is_array() ? out.arrays.count(r.name) > 0 : out.shapes.count(r.name) > 0;
                CHECK_MESSAGE(set, ctx.operation.name << " did not set result " << r.name);
            }
        }
        return out;
    }

private:
    MockContext ctx_;
    std::map<std::string, Value> args_;
};

}  // namespace ops_test
