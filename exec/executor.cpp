#include "exec/executor.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <exception>
#include <unordered_map>

#include <nnef/op_def.hpp>
#include <nnef/tensor_data.hpp>

#include "exec/kernel.hpp"
#include "semantics/stdlib.hpp"
#include "storage/random_data.hpp"
#include "storage/quantization.hpp"

namespace nnef::NNEF_EXEC_NS {

namespace exec_executor_cpp {

// Float32 items from `fill` (storage/random_data.hpp) as run-time scalars: in place in the float32
// build, widened in the float64 build (the same values in both).
template <class F>
void random_items(float* out, std::int64_t, F&& fill) {
    fill(out);
}
template <class F>
void random_items(double* out, std::int64_t n, F&& fill) {
    std::vector<float> items(static_cast<std::size_t>(n));
    fill(items.data());
    std::copy(items.begin(), items.end(), out);
}

std::string lower(std::string s) {
    for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return s;
}

// Identifiers named by an argument (a single tensor or nested arrays of them).
void collect_identifiers(const Value& v, std::vector<std::string>& out) {
    if (v.is_identifier()) out.push_back(v.as_identifier());
    else if (v.is_list())
        for (const Value& item : v.items()) collect_identifiers(item, out);
}

// A literal tensor argument as a rank-0 tensor.
TensorValue literal(const Value& v) {
    if (v.is_integer()) return TensorValue::single<std::int64_t>(v.as_integer());
    if (v.is_logical()) return TensorValue::single<bool>(v.as_logical());
    if (v.is_scalar()) return TensorValue::single<Real>(static_cast<Real>(v.as_scalar()));
    throw std::logic_error("argument " + to_string(v) + " is not a tensor or a numeric literal");
}

}  // namespace exec_executor_cpp

// ---- tensor data -------------------------------------------------------------------------------

std::optional<TensorValue> from_tensor_data(const TensorData& data, PrimType dtype) {
    if (!data.has_values()) return std::nullopt;
    const Shape shape = data.shape;
    if (dtype == PrimType::scalar) {
        if (std::is_same_v<Real, float> && data.float32_data()) {
            auto owner = std::make_shared<TensorData>(data);  // shares the bytes
            return TensorValue::view(PrimType::scalar, shape, owner, owner->float32_data());
        }
        TensorValue out(PrimType::scalar, shape);
        Real* y = out.data<Real>();
        for (std::uint64_t i = 0; i < data.count; ++i) y[i] = static_cast<Real>(data.as_double(i));
        return out;
    }
    TensorValue out(dtype, shape);
    if (dtype == PrimType::integer) {
        std::int64_t* y = out.data<std::int64_t>();
        for (std::uint64_t i = 0; i < data.count; ++i) y[i] = data.as_int64(i);
    } else {
        bool* y = out.data<bool>();
        for (std::uint64_t i = 0; i < data.count; ++i) y[i] = data.as_bool(i);
    }
    return out;
}

// ---- random data -------------------------------------------------------------------------------

TensorValue random_tensor(PrimType dtype, const Shape& shape, std::uint64_t seed) {
    TensorValue t(dtype, shape);
    const std::int64_t n = t.volume();
    if (dtype == PrimType::integer) storage::random_integers(t.data<std::int64_t>(), n, seed);
    else if (dtype == PrimType::logical) storage::random_logicals(t.data<bool>(), n, seed);
    else exec_executor_cpp::random_items(t.data<Real>(), n, [&](float* out) { storage::random_normal(out, n, seed); });
    return t;
}

TensorValue random_weights(PrimType dtype, const Shape& shape, std::uint64_t seed, bool positive) {
    TensorValue t(dtype, shape);
    if (dtype != PrimType::scalar) return t;
    exec_executor_cpp::random_items(t.data<Real>(), t.volume(),
                                    [&](float* out) { storage::random_weights(out, shape, seed, positive); });
    return t;
}

std::vector<std::string> compounds_without_kernel() {
    SourceManager sm;
    Diagnostics diags;
    auto lib = sema::load_stdlib(sm, false, diags);
    std::vector<std::string> out;
    const KernelRegistry& kernels = KernelRegistry::standard();
    for (const std::string& name : OpRegistry::standard().names()) {
        if (kernels.find(name)) continue;
        if (lib && lib->is_primitive(name)) continue;
        out.push_back(name);
    }
    return out;
}

// ---- the executor ------------------------------------------------------------------------------

struct Executor::Impl {
    const Graph& graph;
    ExecOptions options;

    struct Step {
        const Operation* op = nullptr;
        Kernel kernel = nullptr;
        std::vector<std::size_t> release;  // slots whose last use is this step
    };
    std::unordered_map<std::string, std::size_t> slots;  // tensor name -> slot
    std::vector<const Tensor*> tensors;                   // by slot
    std::vector<TensorValue> values;                      // by slot, during and after a cycle
    std::vector<bool> pinned;                             // kept after the cycle
    std::vector<Step> steps;
    std::map<std::string, TensorValue> fed;    // graph input name -> value
    std::map<std::string, TensorValue> state;  // lower-case variable label -> value
    std::map<std::string, std::string> label_of;  // variable tensor name -> state key
    std::vector<std::pair<std::string, TensorValue>> updates;  // during a cycle
    std::uint64_t cycles = 0;
    // graph.quant entries to simulate, by slot (ExecOptions::simulate_quantization).
    struct Simulated {
        storage::QuantParams params;
        storage::ChannelMap channels;
    };
    std::vector<std::optional<Simulated>> simulated;

    Impl(const Graph& g, ExecOptions o) : graph(g), options(std::move(o)) {}

    std::size_t slot(const std::string& name) {
        auto it = slots.find(name);
        if (it != slots.end()) return it->second;
        const std::size_t s = tensors.size();
        slots.emplace(name, s);
        tensors.push_back(graph.tensor(name));
        return s;
    }

    Diagnostic& error(Diagnostics& diags, const Operation* op, std::string code, std::string message) {
        return diags.error(Stage::data, std::move(code), std::move(message), op ? op->provenance.range : SourceRange{});
    }

    bool prepare(Diagnostics& diags);
    // The state of the variable `op` introduces: its label's stored data (or random weights),
    // once per label (labels are compared case-insensitively).
    void init_variable(const Operation& op, bool positive, Diagnostics& diags);
    // The typed parameters of tensor t's graph.quant entry, checked against its shape; else an
    // error at the entry (`purpose` says what they were needed for).
    std::optional<Simulated> quantization_of(const Tensor& t, const char* purpose, Diagnostics& diags);
    // Rounds the value of slot s to its entry's grid (a new tensor: values are immutable).
    void simulate(std::size_t s);
    bool run(Diagnostics& diags);
};

namespace exec_executor_cpp {

class StepContext final : public KernelContext {
public:
    StepContext(Executor::Impl& impl, const Operation& op, Diagnostics& diags) : impl_(impl), op_(op), diags_(diags) {}

    const Operation& op() const override { return op_; }

    const TensorValue& input(std::string_view name) override { return value_of(argument(name)); }

    std::vector<const TensorValue*> inputs(std::string_view name) override {
        const Value& v = argument(name);
        std::vector<const TensorValue*> out;
        if (!v.is_list()) {
            out.push_back(&value_of(v));
            return out;
        }
        for (const Value& item : v.items()) out.push_back(&value_of(item));
        return out;
    }

    PrimType output_dtype(std::string_view name, std::size_t item) const override { return result(name, item).dtype; }
    Shape output_shape(std::string_view name, std::size_t item) const override { return *result(name, item).shape; }
    std::size_t output_count(std::string_view name) const override {
        const Value* v = op_.output(name);
        if (!v) throw std::logic_error("no result '" + std::string(name) + "'");
        return v->is_list() ? v->size() : 1;
    }

    void set_output(std::string_view name, TensorValue value, std::size_t item) override {
        const Tensor& t = result(name, item);
        if (value.dtype() != t.dtype || value.shape() != *t.shape)
            throw std::logic_error("result '" + std::string(name) + "' computed as " + nnef::to_string(value.dtype()) +
                                   to_string(value.shape()) + ", declared " + nnef::to_string(t.dtype) +
                                   to_string(*t.shape));
        impl_.values[impl_.slots.at(t.name)] = std::move(value);
    }

    const TensorValue* introduced_value() override {
        const Value* out = op_.outputs.empty() ? nullptr : &op_.outputs.front().second;
        if (!out || !out->is_identifier()) return nullptr;
        const std::string& name = out->as_identifier();
        if (op_.name == "external") {
            auto it = impl_.fed.find(name);
            return it == impl_.fed.end() ? nullptr : &it->second;
        }
        auto key = impl_.label_of.find(name);
        if (key == impl_.label_of.end()) return nullptr;
        auto it = impl_.state.find(key->second);
        return it == impl_.state.end() ? nullptr : &it->second;
    }

    bool schedule_update(const std::string& variable, TensorValue value) override {
        auto key = impl_.label_of.find(variable);
        if (key == impl_.label_of.end()) return error("'" + variable + "' is not a variable");
        impl_.updates.emplace_back(key->second, std::move(value));
        return true;
    }

    unsigned threads() const override { return impl_.options.threads ? impl_.options.threads : 1; }
    bool exact_sums() const override { return impl_.options.exact_sums; }

    bool error(std::string message) override {
        impl_.error(diags_, &op_, "execution-error", op_.name + ": " + message);
        return false;
    }

private:
    const Value& argument(std::string_view name) const {
        const Value* v = op_.input(name);
        if (!v) throw std::logic_error("no tensor argument '" + std::string(name) + "'");
        return *v;
    }

    const TensorValue& value_of(const Value& v) {
        if (!v.is_identifier()) return keep(literal(v));
        const TensorValue& t = impl_.values[impl_.slots.at(v.as_identifier())];
        if (t.empty()) throw std::logic_error("tensor '" + v.as_identifier() + "' has no value");
        return t;
    }

    const Tensor& result(std::string_view name, std::size_t item) const {
        const Value* v = op_.output(name);
        if (!v) throw std::logic_error("no result '" + std::string(name) + "'");
        const Value& id = v->is_list() ? (*v)[item] : *v;
        const Tensor* t = id.is_identifier() ? impl_.graph.tensor(id.as_identifier()) : nullptr;
        if (!t || !t->shape) throw std::logic_error("result '" + std::string(name) + "' is not a tensor of known shape");
        return *t;
    }

    Executor::Impl& impl_;
    const Operation& op_;
    Diagnostics& diags_;
};

}  // namespace exec_executor_cpp

void Executor::Impl::init_variable(const Operation& op, bool positive, Diagnostics& diags) {
    using namespace exec_executor_cpp;
    const Value* label = op.attrib("label");
    const Value* out = op.output("output");
    if (!label || !label->is_string() || !out || !out->is_identifier()) return;
    const std::string key = lower(label->as_string());
    const std::string& name = out->as_identifier();
    label_of[name] = key;
    const Tensor* t = graph.tensor(name);
    if (!t || !t->shape || state.count(key)) return;
    if (options.random_weights) {
        state[key] = random_weights(t->dtype, *t->shape, storage::variable_seed(key, *options.random_weights), positive);
    } else if (!t->data) {
        error(diags, &op, "missing-weights",
              "variable '" + name + "' (label '" + label->as_string() +
                  "') has no tensor data (load the model with its weights, or use random weights)");
    } else if (t->quantization && t->dtype == PrimType::scalar && storage::holds_codes(*t->data)) {
        // Integer codes mean what the graph.quant entry says: (code - zero_point) * scale, ...
        std::optional<Simulated> q = quantization_of(*t, "to dequantize the stored codes", diags);
        if (!q) return;
        const TensorData& d = *t->data;
        TensorValue v(PrimType::scalar, *t->shape);
        Real* y = v.data<Real>();
        q->channels.for_each(d.count, [&](std::uint64_t i, std::size_t c) {
            y[i] = static_cast<Real>(q->params.dequantize(d.as_int64(i), c));
        });
        state[key] = std::move(v);
    } else {
        std::optional<TensorValue> v = from_tensor_data(*t->data, t->dtype);
        if (!v || v->shape() != *t->shape)
            error(diags, &op, "missing-weights",
                  "the tensor data of variable '" + name + "' (label '" + label->as_string() +
                      "') has no values of a known encoding");
        else
            state[key] = std::move(*v);
    }
}

std::optional<Executor::Impl::Simulated> Executor::Impl::quantization_of(const Tensor& t, const char* purpose,
                                                                         Diagnostics& diags) {
    const Quantization& q = *t.quantization;
    if (!storage::quant_algorithm(q.algorithm)) {
        diags.error(Stage::data, "bad-quantization",
                    "quantization of '" + t.name + "': '" + q.algorithm +
                        "' is not a standard quantization algorithm; the executor cannot apply it " + purpose +
                        (options.simulate_quantization ? " (run without simulating graph.quant: nnef-run --no-quant)" : ""),
                    q.range);
        return std::nullopt;
    }
    Result<storage::QuantParams> p = storage::quant_params(q, t.name);
    diags.append(p.diagnostics);
    if (!p) return std::nullopt;
    std::optional<storage::ChannelMap> m = storage::ChannelMap::make(p->shape, *t.shape);
    if (!m) {
        diags.error(Stage::data, "bad-quantization",
                    "quantization of '" + t.name + "': parameters of shape " + to_string(p->shape) +
                        " do not apply to the tensor's shape " + to_string(*t.shape),
                    q.range);
        return std::nullopt;
    }
    return Simulated{std::move(*p), std::move(*m)};
}

void Executor::Impl::simulate(std::size_t s) {
    const Simulated& q = *simulated[s];
    const TensorValue& in = values[s];
    TensorValue out(PrimType::scalar, in.shape());
    const Real* x = in.data<Real>();
    Real* y = out.data<Real>();
    if (options.quant_mode == ExecOptions::QuantMode::nnef_tools)
        q.channels.for_each(std::uint64_t(in.volume()), [&](std::uint64_t i, std::size_t c) {
            y[i] = static_cast<Real>(q.params.fake_quantize_float32(float(x[i]), c));
        });
    else
        q.channels.for_each(std::uint64_t(in.volume()), [&](std::uint64_t i, std::size_t c) {
            y[i] = static_cast<Real>(q.params.fake_quantize(double(x[i]), c));
        });
    values[s] = std::move(out);
}

bool Executor::Impl::prepare(Diagnostics& diags) {
    using namespace exec_executor_cpp;
    const KernelRegistry& kernels = KernelRegistry::standard();
    const std::vector<std::string> compounds = compounds_without_kernel();
    const std::set<std::string> positive = storage::positive_variables(graph);  // variances, scales

    std::vector<std::size_t> last_use;
    std::set<std::string> unknown;  // tensors without dtype and shape, reported at their first cause
    for (std::size_t i = 0; i < graph.operations.size(); ++i) {
        const Operation& op = graph.operations[i];
        Step step;
        step.op = &op;
        step.kernel = kernels.find(op.name);
        if (!step.kernel) {
            const bool compound = std::binary_search(compounds.begin(), compounds.end(), op.name);
            error(diags, &op, "no-kernel",
                  "no kernel for operation '" + op.name + "'" +
                      (compound ? " (a standard compound without a dedicated kernel; load the model with it expanded)"
                       : OpRegistry::standard().find(op.name) ? ""
                                                               : " (a custom operation)"));
            if (diags.limit_reached()) return false;
        }
        // Results downstream of an unknown shape, or of an operation without a kernel, are not
        // reported again.
        bool consequence = !step.kernel;
        for (const auto& [param, v] : op.inputs) {
            std::vector<std::string> ids;
            collect_identifiers(v, ids);
            for (const std::string& id : ids) consequence = consequence || unknown.count(id) > 0;
        }
        for (const auto& [param, v] : op.outputs) {
            std::vector<std::string> ids;
            collect_identifiers(v, ids);
            for (const std::string& id : ids) {
                const std::size_t s = slot(id);
                const Tensor* t = tensors[s];
                if (!t || !t->shape || t->dtype == PrimType::none ||
                    (t->dtype != PrimType::scalar && t->dtype != PrimType::integer && t->dtype != PrimType::logical)) {
                    unknown.insert(id);
                    if (consequence) continue;
                    error(diags, &op, "unknown-shape",
                          "tensor '" + id + "' (result of '" + op.name + "') has no known data type and shape");
                    if (diags.limit_reached()) return false;
                    continue;
                }
                if (last_use.size() <= s) last_use.resize(s + 1, i);
                last_use[s] = i;
            }
        }
        for (const auto& [param, v] : op.inputs) {
            std::vector<std::string> ids;
            collect_identifiers(v, ids);
            for (const std::string& id : ids) {
                const std::size_t s = slot(id);
                if (last_use.size() <= s) last_use.resize(s + 1, i);
                last_use[s] = i;
            }
        }
        if (op.name == "variable") {
            const Value* out = op.output("output");
            init_variable(op, out && out->is_identifier() && positive.count(out->as_identifier()) > 0, diags);
        }
        steps.push_back(std::move(step));
    }
    if (diags.has_errors()) return false;

    for (const std::string& n : graph.outputs) slot(n);
    // Tensors that external, variable and constant introduce (not rounded in QuantMode::nnef_tools).
    std::set<std::string> introduced;
    for (const Operation& op : graph.operations)
        if (op.name == "external" || op.name == "variable" || op.name == "constant")
            for (const auto& [param, v] : op.outputs) {
                std::vector<std::string> ids;
                collect_identifiers(v, ids);
                introduced.insert(ids.begin(), ids.end());
            }
    simulated.assign(tensors.size(), std::nullopt);
    if (options.simulate_quantization)
        for (std::size_t s = 0; s < tensors.size(); ++s) {
            const Tensor* t = tensors[s];
            if (!t || !t->quantization || !t->shape || t->dtype != PrimType::scalar) continue;
            if (options.quant_mode == ExecOptions::QuantMode::nnef_tools && introduced.count(t->name)) continue;
            simulated[s] = quantization_of(*t, "to simulate it", diags);
            if (diags.limit_reached()) return false;
        }
    if (diags.has_errors()) return false;
    values.assign(tensors.size(), TensorValue());
    pinned.assign(tensors.size(), options.keep_all);
    for (const std::string& n : graph.outputs) pinned[slots.at(n)] = true;
    for (const std::string& n : options.keep)
        if (slots.count(n)) pinned[slots.at(n)] = true;
    last_use.resize(tensors.size(), 0);
    for (std::size_t s = 0; s < tensors.size(); ++s)
        if (!pinned[s] && last_use[s] < steps.size()) steps[last_use[s]].release.push_back(s);
    return true;
}

bool Executor::Impl::run(Diagnostics& diags) {
    using namespace exec_executor_cpp;
    for (const std::string& n : graph.inputs)
        if (!fed.count(n)) {
            diags.error(Stage::data, "missing-input", "no value was given for the graph input '" + n + "'");
            return false;
        }
    std::fill(values.begin(), values.end(), TensorValue());
    updates.clear();
    for (const Step& step : steps) {
        const Operation& op = *step.op;
        StepContext ctx(*this, op, diags);
        bool ok = false;
        try {
            ok = step.kernel(ctx);
        } catch (const std::exception& e) {
            error(diags, &op, "internal-error", op.name + ": internal error: " + e.what());
            ok = false;
        }
        if (!ok) return false;
        for (const auto& [param, v] : op.outputs) {
            std::vector<std::string> ids;
            collect_identifiers(v, ids);
            for (const std::string& id : ids) {
                const std::size_t s = slots.at(id);
                if (values[s].empty()) {
                    error(diags, &op, "internal-error", op.name + ": internal error: result '" + id + "' was not computed");
                    return false;
                }
                if (simulated[s]) simulate(s);
            }
        }
        for (std::size_t s : step.release) values[s] = TensorValue();
    }
    for (auto& [key, value] : updates) state[key] = std::move(value);
    updates.clear();
    ++cycles;
    return true;
}

Executor::Executor(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Executor::~Executor() = default;

Result<std::unique_ptr<Executor>> Executor::create(const Graph& graph, ExecOptions options) {
    Result<std::unique_ptr<Executor>> r;
    auto impl = std::make_unique<Impl>(graph, std::move(options));
    if (!impl->prepare(r.diagnostics)) return r;
    r.value = std::unique_ptr<Executor>(new Executor(std::move(impl)));
    return r;
}

const Graph& Executor::graph() const { return impl_->graph; }

bool Executor::set_input(const std::string& name, const TensorValue& value, Diagnostics& diags) {
    const Graph& g = impl_->graph;
    const Tensor* t = g.tensor(name);
    if (std::find(g.inputs.begin(), g.inputs.end(), name) == g.inputs.end() || !t || !t->shape) {
        diags.error(Stage::data, "unknown-input", "'" + name + "' is not an input of graph '" + g.name + "'");
        return false;
    }
    if (value.shape() != *t->shape) {
        diags.error(Stage::data, "input-shape",
                    "the value given for input '" + name + "' has shape " + to_string(value.shape()) +
                        "; the graph declares " + to_string(*t->shape));
        return false;
    }
    impl_->fed[name] = value.dtype() == t->dtype ? value : convert(value, t->dtype);
    return true;
}

bool Executor::run(Diagnostics& diags) { return impl_->run(diags); }

const TensorValue* Executor::variable(const std::string& name) const {
    auto label = impl_->label_of.find(name);
    if (label == impl_->label_of.end()) return nullptr;
    auto it = impl_->state.find(label->second);
    return it == impl_->state.end() ? nullptr : &it->second;
}

const TensorValue* Executor::tensor(const std::string& name) const {
    auto it = impl_->slots.find(name);
    if (it == impl_->slots.end() || impl_->values[it->second].empty()) return nullptr;
    return &impl_->values[it->second];
}

std::uint64_t Executor::cycles() const { return impl_->cycles; }

}  // namespace nnef::NNEF_EXEC_NS
