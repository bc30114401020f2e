#include "via_tosa.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "lowering/tosa/from_nnef.hpp"
#include "lowering/tosa/interpreter.hpp"

namespace nnef::run_engine {

namespace run_via_tosa_cpp {

using exec::TensorValue;
using tosa::IntegerCodes;

// The permutation from channels-last to channels-first ([0, r-1, 1, ..., r-2]).
std::vector<std::size_t> channels_first(std::size_t r) {
    std::vector<std::size_t> p{0, r - 1};
    for (std::size_t i = 1; i + 1 < r; ++i) p.push_back(i);
    return p;
}

// The item `i` of a TOSA tensor as the NNEF item type T.
template <class T>
T item(const tosa::ConstData& c, std::int64_t i) {
    switch (c.type.dtype) {
        case tosa::DType::fp32: return static_cast<T>(c.items<float>()[i]);
        case tosa::DType::fp16: return static_cast<T>(tosa::fp16_to_fp32(c.items<std::uint16_t>()[i]));
        case tosa::DType::bf16: return static_cast<T>(tosa::bf16_to_fp32(c.items<std::uint16_t>()[i]));
        case tosa::DType::bool_: return static_cast<T>(c.items<std::uint8_t>()[i] != 0);
        case tosa::DType::i8: return static_cast<T>(c.items<std::int8_t>()[i]);
        case tosa::DType::i16: return static_cast<T>(c.items<std::int16_t>()[i]);
        case tosa::DType::i32: return static_cast<T>(c.items<std::int32_t>()[i]);
        default: return static_cast<T>(c.items<std::int64_t>()[i]);
    }
}

// A TOSA value as the NNEF tensor `t` (its dtype and shape): the same shape, channels-last
// (transposed back; tried first when `channels_last`), or the same volume (reshaped); nullopt
// when none fits.
std::optional<TensorValue> to_nnef(const tosa::ConstData& c, const Tensor& t, bool channels_last = false) {
    if (!t.shape || t.dtype == PrimType::none) return std::nullopt;
    const Shape& s = *t.shape;
    const Shape& cs = c.type.shape;
    std::int64_t volume = 1;
    for (std::int64_t e : s) volume *= e;
    std::vector<std::int64_t> map;  // NNEF item -> TOSA item, when transposed
    const std::size_t r = s.size();
    bool transposed = r >= 3 && cs.size() == r;
    const std::vector<std::size_t> perm = r >= 3 ? channels_first(r) : std::vector<std::size_t>{};
    for (std::size_t i = 0; transposed && i < r; ++i) transposed = cs[perm[i]] == s[i];
    if (cs != s || (channels_last && transposed)) {
        if (transposed) {
            // NNEF index (d0, ..., d_{r-1}) reads TOSA index with cs[perm[i]] = d_i
            std::vector<std::int64_t> cstride(r, 1);
            for (std::size_t i = r - 1; i > 0; --i) cstride[i - 1] = cstride[i] * cs[i];
            map.resize(static_cast<std::size_t>(volume));
            std::vector<std::int64_t> idx(r, 0);
            for (std::int64_t o = 0; o < volume; ++o) {
                std::int64_t off = 0;
                for (std::size_t i = 0; i < r; ++i) off += idx[i] * cstride[perm[i]];
                map[static_cast<std::size_t>(o)] = off;
                for (std::size_t i = r; i-- > 0;) {
                    if (++idx[i] < s[i]) break;
                    idx[i] = 0;
                }
            }
        } else if (c.type.volume() != volume) {
            return std::nullopt;
        }
    }
    TensorValue v(t.dtype, s);
    exec::dispatch(t.dtype, [&](auto tag) {
        using T = decltype(tag);
        T* out = v.data<T>();
        for (std::int64_t i = 0; i < volume; ++i) out[i] = item<T>(c, map.empty() ? i : map[static_cast<std::size_t>(i)]);
    });
    return v;
}

// An NNEF value as the TOSA type `type` (the shapes are equal).
tosa::ConstPtr to_tosa(const TensorValue& v, const tosa::TensorType& type, const std::string& name, Diagnostics& diags) {
    auto c = tosa::ConstData::allocate(type);
    const std::int64_t n = type.volume();
    for (std::int64_t i = 0; i < n; ++i) {
        const double x = v.as_double(i);
        switch (type.dtype) {
            case tosa::DType::fp32: c->mutable_items<float>()[i] = static_cast<float>(x); break;
            case tosa::DType::fp16: c->mutable_items<std::uint16_t>()[i] = tosa::fp64_to_fp16(x); break;
            case tosa::DType::bf16: c->mutable_items<std::uint16_t>()[i] = tosa::fp64_to_bf16(x); break;
            case tosa::DType::bool_: c->mutable_items<std::uint8_t>()[i] = x != 0.0; break;
            default: {
                const int bits = tosa::integer_bits(type.dtype);
                const double hi = std::ldexp(1.0, bits - 1) - 1, lo = -std::ldexp(1.0, bits - 1);
                if (!(x >= lo && x <= hi)) {
                    diags.error(Stage::data, "input-out-of-range",
                                "input '" + name + "' item " + std::to_string(i) + " (" + std::to_string(x) + ") does not fit the " +
                                    tosa::to_string(type.dtype) + " items of the TOSA graph's input");
                    return nullptr;
                }
                const auto iv = static_cast<std::int64_t>(x);
                if (type.dtype == tosa::DType::i8) c->mutable_items<std::int8_t>()[i] = static_cast<std::int8_t>(iv);
                else if (type.dtype == tosa::DType::i16) c->mutable_items<std::int16_t>()[i] = static_cast<std::int16_t>(iv);
                else if (type.dtype == tosa::DType::i32) c->mutable_items<std::int32_t>()[i] = static_cast<std::int32_t>(iv);
                else c->mutable_items<std::int64_t>()[i] = iv;
            }
        }
    }
    return c;
}

class TosaEngine final : public Engine<TensorValue> {
public:
    const Graph& model;
    tosa::Graph graph;
    std::unique_ptr<tosa::Interpreter> interpreter;
    std::vector<tosa::ConstPtr> feeds;
    std::set<std::string> keep;
    bool keep_all = false;
    std::map<std::string, TensorValue> tensors;             // outputs and kept tensors of the last cycle
    // PRO-INT: the codes of the inputs and outputs (and kept tensors) with an i8 form of their
    // graph.quant entry; the engine takes and gives reals, as the reference executor does
    std::map<std::string, IntegerCodes> codes;
    mutable std::map<std::string, TensorValue> variables;  // converted on request

    explicit TosaEngine(const Graph& g) : model(g) {}

    bool set_input(const std::string& name, const TensorValue& value, Diagnostics& diags) override {
        const auto at = std::find(model.inputs.begin(), model.inputs.end(), name);
        if (at == model.inputs.end()) {
            diags.error(Stage::data, "unknown-input", "graph '" + model.name + "' has no input '" + name + "'");
            return false;
        }
        const std::size_t i = static_cast<std::size_t>(at - model.inputs.begin());
        const tosa::TensorType& type = graph.type(graph.main().inputs.at(i));
        if (value.shape() != type.shape) {
            diags.error(Stage::data, "input-shape", "input '" + name + "' has shape " + to_string(value.shape()) + ", the graph takes " +
                                                        to_string(type.shape));
            return false;
        }
        tosa::ConstPtr c;
        const auto grid = codes.find(name);
        if (grid != codes.end() && value.dtype() == PrimType::scalar) {
            std::vector<double> reals(static_cast<std::size_t>(value.volume()));
            for (std::int64_t k = 0; k < value.volume(); ++k) reals[std::size_t(k)] = value.as_double(k);
            const auto items = codes_of(grid->second, value.shape(), reals);
            if (!items) {
                diags.error(Stage::data, "input-grid", "input '" + name + "': its graph.quant entry does not apply to shape " + to_string(value.shape()));
                return false;
            }
            TensorValue q(PrimType::integer, value.shape());
            std::copy(items->begin(), items->end(), q.data<std::int64_t>());
            c = to_tosa(q, type, name, diags);
        } else {
            c = to_tosa(value, type, name, diags);
        }
        if (!c) return false;
        feeds[i] = std::move(c);
        return true;
    }

    bool run(Diagnostics& diags) override {
        tensors.clear();
        variables.clear();
        for (std::size_t i = 0; i < feeds.size(); ++i)
            if (!feeds[i]) {
                diags.error(Stage::data, "missing-input", "no value for graph input '" + model.inputs[i] + "'");
                return false;
            }
        std::optional<std::vector<tosa::ConstPtr>> outs = interpreter->run(feeds, diags);
        if (!outs) return false;
        for (std::size_t i = 0; i < outs->size() && i < model.outputs.size(); ++i) {
            const std::string& name = model.outputs[i];
            const Tensor* t = model.tensor(name);
            std::optional<TensorValue> v = t ? to_nnef(*(*outs)[i], *t) : std::nullopt;
            if (!v) {
                diags.error(Stage::tosa, "output-shape", "output '" + name + "' of the TOSA graph is " + tosa::to_string((*outs)[i]->type) +
                                                             ", which does not hold the NNEF tensor");
                return false;
            }
            if (!to_reals(name, *v, diags)) return false;
            tensors[name] = std::move(*v);
        }
        // A kept graph input is the value fed.
        for (std::size_t i = 0; i < model.inputs.size(); ++i)
            if (keep.count(model.inputs[i]) && !tensors.count(model.inputs[i]))
                if (const Tensor* t = model.tensor(model.inputs[i]))
                    if (std::optional<TensorValue> v = to_nnef(*feeds[i], *t); v && to_reals(model.inputs[i], *v, diags))
                        tensors[model.inputs[i]] = std::move(*v);
        bool all_kept = true;  // every such tensor is named, so that one run lists them all
        for (const std::string& name : keep)
            if (!tensors.count(name)) {
                diags.error(Stage::tosa, "dump-not-lowered",
                            "tensor '" + name + "' has no value in the TOSA graph (the lowering folded it into other operators); "
                            "dump it without --via tosa, or dump a tensor that the TOSA graph keeps");
                all_kept = false;
            }
        return all_kept;
    }

    // The TOSA values that hold the NNEF tensors to keep: the last value named after the tensor
    // (in NNEF's layout), else the result of the last operator lowered from the NNEF operation
    // that computes the tensor (channels-last unless that operator transposes to NNEF's layout).
    struct Watch {
        std::string name;
        bool channels_last = false;
    };
    std::map<tosa::ValueId, Watch> watch;

    void plan_watch() {
        std::map<std::string, tosa::ValueId> named, computed;
        std::map<std::string, bool> computed_cl;
        for (tosa::ValueId v : graph.main().inputs)
            if (!graph.value(v).name.empty()) named[graph.value(v).name] = v;
        for (const tosa::Op& op : graph.main().ops) {
            for (tosa::ValueId v : op.outputs)
                if (!graph.value(v).name.empty()) named[graph.value(v).name] = v;
            if (op.outputs.empty() || op.origin >= graph.origins.size()) continue;
            const std::string& tensor = graph.origins[op.origin].tensor;
            if (tensor.empty()) continue;
            const tosa::ValueId v = op.outputs[0];
            bool to_nnef_layout = false;
            if (op.kind == tosa::OpKind::TRANSPOSE) {
                const auto perm = channels_first(graph.type(v).rank());
                const tosa::Attr* a = op.attr(tosa::AttrName::perms);
                if (a && std::holds_alternative<std::vector<std::int64_t>>(*a)) {
                    const auto& p = std::get<std::vector<std::int64_t>>(*a);
                    to_nnef_layout = p.size() == perm.size() && std::equal(p.begin(), p.end(), perm.begin(),
                                                                          [](std::int64_t x, std::size_t y) { return x == static_cast<std::int64_t>(y); });
                }
            }
            computed[tensor] = v;
            computed_cl[tensor] = !to_nnef_layout;
        }
        auto add = [&](const std::string& name) {
            auto n = named.find(name);
            if (n != named.end()) {
                watch[n->second] = Watch{name, false};
                return;
            }
            auto c = computed.find(name);
            if (c != computed.end()) watch[c->second] = Watch{name, computed_cl[name]};
        };
        if (keep_all)
            for (const Tensor& t : model.tensors) add(t.name);
        for (const std::string& name : keep) add(name);
    }

    // A scalar tensor of the graph with codes: its codes (in `v`, as numbers) replaced by their reals.
    // A scalar tensor without them holds what the TOSA value holds.
    bool to_reals(const std::string& name, TensorValue& v, Diagnostics& diags) const {
        const auto grid = codes.find(name);
        if (grid == codes.end() || v.dtype() != PrimType::scalar) return true;
        std::vector<std::int64_t> items(static_cast<std::size_t>(v.volume()));
        for (std::int64_t k = 0; k < v.volume(); ++k) items[std::size_t(k)] = static_cast<std::int64_t>(v.as_double(k));
        const auto reals = reals_of(grid->second, v.shape(), items);
        if (!reals) {
            diags.error(Stage::data, "output-grid", "tensor '" + name + "': its graph.quant entry does not apply to shape " + to_string(v.shape()));
            return false;
        }
        for (std::int64_t k = 0; k < v.volume(); ++k) v.data<exec::Real>()[k] = static_cast<exec::Real>((*reals)[std::size_t(k)]);
        return true;
    }

    // Called by the interpreter with every computed value.
    void observe(tosa::ValueId id, const tosa::ConstPtr& c) {
        auto w = watch.find(id);
        if (w == watch.end()) return;
        const Tensor* t = model.tensor(w->second.name);
        if (!t) return;
        std::optional<TensorValue> v = to_nnef(*c, *t, w->second.channels_last);
        Diagnostics unused;
        if (v && (tosa::is_float(c->type.dtype) || to_reals(w->second.name, *v, unused))) tensors[w->second.name] = std::move(*v);
    }

    const TensorValue* tensor(const std::string& name) const override {
        auto it = tensors.find(name);
        return it == tensors.end() ? nullptr : &it->second;
    }

    // A TOSA variable of that name (an updated NNEF variable), else the constant that holds it.
    const TensorValue* variable(const std::string& name) const override {
        auto cached = variables.find(name);
        if (cached != variables.end()) return &cached->second;
        const Tensor* t = model.tensor(name);
        if (!t) return nullptr;
        tosa::ConstPtr c = interpreter->variable(name);
        if (!c)
            for (tosa::ValueId v = 0; v < graph.values.size() && !c; ++v)
                if (graph.values[v].name == name && graph.constant(v)) {
                    const tosa::ConstData* data = graph.constant(v);
                    c = tosa::ConstPtr(std::shared_ptr<const void>(), data);  // a view: the graph owns it
                }
        if (!c) return nullptr;
        std::optional<TensorValue> v = to_nnef(*c, *t);
        if (!v) return nullptr;
        return &variables.emplace(name, std::move(*v)).first->second;
    }
};

}  // namespace run_via_tosa_cpp

std::unique_ptr<Engine<exec::TensorValue>> make_tosa_engine(tosa::Graph graph, const Graph& g, const exec::ExecOptions& options,
                                                            Diagnostics& diags) {
    using run_via_tosa_cpp::TosaEngine;
    auto engine = std::make_unique<TosaEngine>(g);
    engine->graph = std::move(graph);
    if (engine->graph.main().inputs.size() != g.inputs.size() || engine->graph.main().outputs.size() != g.outputs.size()) {
        diags.error(Stage::tosa, "lowered-interface", "the TOSA graph has " + std::to_string(engine->graph.main().inputs.size()) + " inputs and " +
                                                          std::to_string(engine->graph.main().outputs.size()) + " outputs, the NNEF graph " +
                                                          std::to_string(g.inputs.size()) + " and " + std::to_string(g.outputs.size()));
        return nullptr;
    }
    engine->keep = options.keep;
    engine->keep_all = options.keep_all;
    engine->plan_watch();
    engine->feeds.resize(g.inputs.size());
    tosa::InterpretOptions io;
    io.threads = options.threads;
    TosaEngine* self = engine.get();
    if (!engine->watch.empty())
        io.observe = [self](tosa::ValueId id, const tosa::ConstPtr& c) { self->observe(id, c); };
    engine->interpreter = tosa::Interpreter::create(engine->graph, io, diags);
    if (!engine->interpreter) return nullptr;
    return engine;
}

std::unique_ptr<Engine<exec::TensorValue>> make_tosa_engine(const Graph& g, const exec::ExecOptions& options, Diagnostics& diags,
                                                            tosa::LowerOptions lowering) {
    lowering.random_weights = options.random_weights;
    std::optional<tosa::Graph> lowered = tosa::lower_to_tosa(g, lowering, diags);
    if (!lowered) return nullptr;
    std::map<std::string, tosa::IntegerCodes> codes;
    if (lowering.profile == tosa::Profile::pro_int && tosa::from_nnef::is_quantized(g))
        for (const Tensor& t : g.tensors)
            if (t.dtype == PrimType::scalar)
                if (auto c = tosa::integer_codes(g, t.name)) codes.emplace(t.name, std::move(*c));
    auto engine = make_tosa_engine(std::move(*lowered), g, options, diags);
    if (engine) static_cast<run_via_tosa_cpp::TosaEngine&>(*engine).codes = std::move(codes);
    return engine;
}

Graph interface_of(const tosa::Graph& tg) {
    Graph g;
    g.name = tg.name;
    auto add = [&](tosa::ValueId v, std::vector<std::string>& list) {
        const tosa::TensorType& t = tg.type(v);
        const PrimType dtype = t.dtype == tosa::DType::bool_ ? PrimType::logical
                               : tosa::is_float(t.dtype)     ? PrimType::scalar
                                                             : PrimType::integer;
        const std::string& name = tg.value(v).name;
        list.push_back(name);
        if (!g.tensor(name)) g.add_tensor(name, dtype, t.shape);
    };
    for (tosa::ValueId v : tg.main().inputs) add(v, g.inputs);
    for (tosa::ValueId v : tg.main().outputs) add(v, g.outputs);
    return g;
}

}  // namespace nnef::run_engine
