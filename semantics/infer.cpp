// Shape and dtype inference of single operations (the ShapeContext the OpDefs see), shared by
// the expander (incremental inference) and infer_shapes (a re-run over a flat graph).
#include "semantics/infer.hpp"

#include <algorithm>
#include <cctype>

#include "semantics/ops/common.hpp"

namespace nnef::sema {

namespace infer_cpp {

class Context final : public ShapeContext {
public:
    Context(Graph& g, const ProducerMap& producers, Operation& op, InferReport& report, const KnownTensor* known,
            std::size_t known_count)
        : graph_(g), producers_(producers), op_(op), report_(report) {
        for (std::size_t i = 0; i < known_count && count_ < memo_size; ++i) memo_[count_++] = known[i];
    }

    const Operation& op() const override { return op_; }

    Shape shape_of(const Value& v) const override {
        if (v.is_identifier()) {
            const Tensor* t = find(v.as_identifier());
            if (t && t->shape) return *t->shape;
        }
        return {};
    }
    PrimType dtype_of(const Value& v) const override {
        if (v.is_identifier()) {
            const Tensor* t = find(v.as_identifier());
            return t ? t->dtype : PrimType::none;
        }
        return value_dtype(graph_, v);
    }
    std::string_view producer(const Value& v) const override {
        report_.asked_producer = true;
        if (!v.is_identifier()) return {};
        const Tensor* t = find(v.as_identifier());
        return t ? producers_.find(static_cast<std::size_t>(t - graph_.tensors.data())) : std::string_view();
    }
    bool error(std::string message) override {
        report_.errors.push_back(std::move(message));
        return false;
    }
    bool strict() const override { return report_.strict; }
    void warning(std::string message) override { report_.warnings.push_back(std::move(message)); }
    void set_shape(std::string_view result, Shape shape) override {
        const Value* out = op_.output(result);
        if (out && out->is_identifier()) set(out->as_identifier(), std::move(shape));
    }
    void set_shapes(std::string_view result, std::vector<Shape> shapes) override {
        const Value* out = op_.output(result);
        if (!out || !out->is_list()) return;
        for (std::size_t i = 0; i < out->size() && i < shapes.size(); ++i)
            if ((*out)[i].is_identifier()) set((*out)[i].as_identifier(), std::move(shapes[i]));
    }
    std::size_t result_count(std::string_view result) const override {
        const Value* out = op_.output(result);
        if (!out) return 0;
        return out->is_list() ? out->size() : 1;
    }

    // The tensor named by an identifier of op: a name object seen before is not looked up again.
    Tensor* find(const std::string& name) const {
        for (std::size_t i = 0; i < count_; ++i)
            if (memo_[i].name == &name) return &graph_.tensors[memo_[i].index];
        Tensor* t = graph_.tensor(name);
        if (t && count_ < memo_size)
            memo_[count_++] = KnownTensor{&name, static_cast<std::uint32_t>(t - graph_.tensors.data())};
        return t;
    }

private:
    void set(const std::string& name, Shape shape) {
        if (Tensor* t = find(name)) t->shape = std::move(shape);
    }
    static constexpr std::size_t memo_size = 16;
    Graph& graph_;
    const ProducerMap& producers_;
    Operation& op_;
    InferReport& report_;
    mutable KnownTensor memo_[memo_size];
    mutable std::size_t count_ = 0;
};

void collect_identifiers(const Value& v, std::vector<std::string>& out) {
    if (v.is_identifier()) {
        out.push_back(v.as_identifier());
    } else if (v.is_list()) {
        for (const Value& i : v.items()) collect_identifiers(i, out);
    }
}

// Limits::max_rank and max_volume on an inferred shape (a volume that overflows is beyond any).
bool within_limits(const Tensor& t, InferReport& report) {
    const Shape& shape = *t.shape;
    std::string what;
    if (shape.size() > report.max_rank) {
        what = "tensor '" + t.name + "' has rank " + std::to_string(shape.size()) + ", more than the limit max_rank = " +
               std::to_string(report.max_rank);
    } else {
        const std::optional<std::int64_t> volume = ops::checked_volume(shape);
        if (!volume || std::uint64_t(*volume) > report.max_volume)
            what = "tensor '" + t.name + "' has " + (volume ? std::to_string(*volume) : "more than 2^63") +
                   " items, more than the limit max_volume = " + std::to_string(report.max_volume);
    }
    if (what.empty()) return true;
    report.errors.push_back(std::move(what));
    report.limit_exceeded = true;
    return false;
}

}  // namespace infer_cpp

std::string label_key(std::string_view label) {
    std::string key(label);
    for (char& c : key) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return key;
}

PrimType value_dtype(const Graph& g, const Value& v) {
    switch (v.kind()) {
        case Value::Kind::integer: return PrimType::integer;
        case Value::Kind::scalar: return PrimType::scalar;
        case Value::Kind::logical: return PrimType::logical;
        case Value::Kind::string: return PrimType::string;
        case Value::Kind::identifier: {
            const Tensor* t = g.tensor(v.as_identifier());
            return t ? t->dtype : PrimType::none;
        }
        default: return PrimType::none;
    }
}

std::vector<std::string> tensor_names(const Value& v) {
    std::vector<std::string> out;
    infer_cpp::collect_identifiers(v, out);
    return out;
}

void set_output_dtypes(Graph& g, const Operation& op, const ast::Fragment& decl) {
    for (const ast::Result& r : decl.results) {
        const Value* out = op.output(r.name);
        if (!out) continue;
        // tensor<T> or tensor<T>[] (or tuples of them): every identifier gets T (`?` bound to
        // op.dtype).
        const Type* item = &r.type;
        while (item->is_array()) item = &item->item();
        PrimType p = item->is_tensor() ? item->prim() : PrimType::none;
        if (p == PrimType::generic) p = op.dtype;
        if (p == PrimType::generic) p = PrimType::none;
        for_each_identifier(*out, [&](const std::string& n) {
            if (Tensor* tensor = g.tensor(n)) tensor->dtype = p;
        });
    }
}

InferReport infer_report(const Options& options) {
    InferReport report;
    report.strict = options.strict;
    report.max_rank = options.limits.max_rank;
    report.max_volume = options.limits.max_volume;
    return report;
}

bool infer_operation(Graph& g, const ProducerMap& producers, Operation& op, const OpDef* def, InferReport& report,
                     const KnownTensor* known, std::size_t known_count) {
    std::vector<std::string>& errors = report.errors;
    infer_cpp::Context ctx(g, producers, op, report, known, known_count);
    // Unknown input shape (downstream of a custom operation): all outputs unknown, checks skipped.
    bool is_known = def != nullptr;
    for (const auto& [name, v] : op.inputs) {
        if (!is_known) break;
        for_each_identifier(v, [&](const std::string& n) {
            const Tensor* t = ctx.find(n);
            if (!t || !t->shape) is_known = false;
        });
    }
    if (!is_known) {
        for (const auto& [name, v] : op.outputs)
            for_each_identifier(v, [&](const std::string& n) {
                if (Tensor* t = ctx.find(n)) t->shape.reset();
            });
        return true;
    }
    bool ok = def->infer(ctx);
    if (ok) {
        for (const auto& [name, v] : op.outputs) {
            bool failed = false;
            for_each_identifier(v, [&](const std::string& n) {
                if (failed) return;
                const Tensor* t = ctx.find(n);
                if (t && !t->shape) {
                    errors.push_back("internal: shape function of '" + op.name + "' did not set the shape of '" + n + "'");
                    failed = true;
                } else if (t && !infer_cpp::within_limits(*t, report)) {
                    failed = true;
                }
            });
            if (failed) return false;
        }
    }
    return ok && errors.empty();
}

}  // namespace nnef::sema
