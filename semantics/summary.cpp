// Graph summary behind nnef-info: histogram, parameters, MACs, element-wise operations and
// quantization of a flat graph (definitions in nnef/summary.hpp and docs/info.md).
#include <algorithm>
#include <cctype>
#include <map>
#include <optional>
#include <set>
#include <unordered_set>

#include <nnef/op_def.hpp>
#include <nnef/summary.hpp>
#include <nnef/tensor_data.hpp>

namespace nnef {

namespace summary_cpp {

using Count = std::optional<std::uint64_t>;  // nullopt: unknown (or too large for 64 bits)

Count times(Count a, Count b) {
    if (!a || !b) return std::nullopt;
    if (*a != 0 && *b > UINT64_MAX / *a) return std::nullopt;
    return *a * *b;
}

Count plus(Count a, Count b) {
    if (!a || !b || *b > UINT64_MAX - *a) return std::nullopt;
    return *a + *b;
}

// Product of the extents [from, size); unknown if any is negative.
Count volume(const Shape& s, std::size_t from = 0) {
    Count v = 1;
    for (std::size_t i = from; i < s.size(); ++i) v = s[i] < 0 ? std::nullopt : times(v, std::uint64_t(s[i]));
    return v;
}

// Extent i, unknown if absent.
Count extent(const std::optional<Shape>& s, std::size_t i) {
    if (!s || i >= s->size() || (*s)[i] < 0) return std::nullopt;
    return std::uint64_t((*s)[i]);
}

const char* const elementwise_names[] = {
    // spec 4.2.1 unary, 4.9.1 activations and the later unary additions (not copy)
    "neg", "rcp", "exp", "log", "abs", "sign", "not", "floor", "ceil", "round", "tanh", "sin", "cos", "tan", "sinh",
    "cosh", "asin", "acos", "atan", "asinh", "acosh", "atanh", "sqr", "sqrt", "rsqr", "rsqrt", "log2", "sigmoid",
    "relu", "leaky_relu", "elu", "softplus", "selu", "gelu", "silu", "softabs",
    // 4.2.2 binary, 4.2.3 select, 4.2.4 simplifiers
    "add", "sub", "mul", "div", "pow", "lt", "gt", "le", "ge", "eq", "ne", "and", "or", "min", "max", "select", "clamp",
    // broadcasting compounds
    "prelu", "batch_normalization", "linear_quantize", "logarithmic_quantize", "min_max_linear_quantize",
    "zero_point_linear_quantize"};

bool is_quantization(const std::string& name) {
    return name == "linear_quantize" || name == "logarithmic_quantize" || name == "min_max_linear_quantize" ||
           name == "zero_point_linear_quantize";
}

std::string lower(std::string s) {
    for (char& c : s) c = char(std::tolower(static_cast<unsigned char>(c)));
    return s;
}

class Summarizer {
public:
    explicit Summarizer(const Graph& g) : g_(g) {
        for (const char* n : elementwise_names) elementwise_.insert(n);
    }

    GraphSummary run() {
        std::map<std::string, std::uint64_t> histogram, custom;
        std::map<std::string, CostGroup> macs, elementwise;
        for (const Operation& op : g_.operations) {
            ++histogram[op.name];
            if (!OpRegistry::standard().find(op.name)) ++custom[op.name];
            if (op.name == "variable") parameter(op);
            if (op.name == "constant") constant(op);
            if (is_mac(op.name)) add_cost(macs, op, mac_count(op));
            else if (elementwise_.count(op.name) || op.name == "add_n") add_cost(elementwise, op, elementwise_count(op));
            quantization_op(op);
        }
        quantized_.insert(group_outputs_.begin(), group_outputs_.end());
        out_.operations = sorted(histogram);
        out_.operation_total = g_.operations.size();
        out_.custom_operations = sorted(custom);
        for (const Tensor& t : g_.tensors)
            if (t.quantization) {
                ++quant_[t.quantization->algorithm].attached;
                quantized_.insert(t.name);
            }
        for (auto& [name, q] : quant_) {
            q.algorithm = name;
            out_.quantization.push_back(q);
        }
        out_.quantized_tensors = quantized_.size();
        for (auto& [key, q] : quantized_params_) out_.quantized_parameters.push_back(q);
        finish(out_.macs, macs);
        finish(out_.elementwise, elementwise);
        finish_parameters();
        return std::move(out_);
    }

private:
    static bool is_mac(const std::string& n) {
        return n == "conv" || n == "deconv" || n == "separable_conv" || n == "separable_deconv" || n == "matmul" ||
               n == "linear";
    }

    // Shape of a tensor argument: a tensor's shape, [] for a literal, unknown otherwise.
    std::optional<Shape> shape(const Value* v) const {
        if (!v) return std::nullopt;
        if (v->is_identifier()) {
            const Tensor* t = g_.tensor(v->as_identifier());
            return t ? t->shape : std::nullopt;
        }
        if (v->is_primitive()) return Shape{};
        return std::nullopt;
    }
    std::optional<Shape> input(const Operation& op, const char* name) const { return shape(op.input(name)); }
    std::optional<Shape> output(const Operation& op) const {
        return op.outputs.empty() ? std::nullopt : shape(&op.outputs.front().second);
    }
    static Count vol(const std::optional<Shape>& s, std::size_t from = 0) {
        return s ? volume(*s, from) : std::nullopt;
    }

    Count mac_count(const Operation& op) const {
        const std::optional<Shape> out = output(op);
        if (op.name == "conv") return times(vol(out), vol(input(op, "filter"), 1));
        if (op.name == "deconv") return times(vol(input(op, "input")), vol(input(op, "filter"), 1));
        if (op.name == "separable_conv") {
            // depth-wise conv to plane_filter's batch extent channels at the output's spatial size, then
            // the point-wise conv to the output.
            const auto plane = input(op, "plane_filter");
            Count filtered = times(times(extent(out, 0), extent(plane, 0)), vol(out, 2));
            return plus(times(filtered, vol(plane, 1)), times(vol(out), vol(input(op, "point_filter"), 1)));
        }
        if (op.name == "separable_deconv") {
            // point-wise deconv of the input, then the depth-wise deconv of that (plane_filter's batch
            // extent channels at the input's spatial size).
            const auto in = input(op, "input");
            const auto plane = input(op, "plane_filter");
            Count filtered = times(times(extent(in, 0), extent(plane, 0)), vol(in, 2));
            return plus(times(vol(in), vol(input(op, "point_filter"), 1)), times(filtered, vol(plane, 1)));
        }
        if (op.name == "matmul") {
            const auto a = input(op, "A");
            if (!a || a->size() < 2) return std::nullopt;
            const Value* ta = op.attrib("transposeA");
            const bool transposed = ta && ta->is_logical() && ta->as_logical();
            return times(vol(out), extent(a, a->size() - (transposed ? 2 : 1)));
        }
        // linear: matmul(input, filter, transposeB = true) + bias
        const auto filter = input(op, "filter");
        if (!filter || filter->empty()) return std::nullopt;
        return times(vol(out), extent(filter, filter->size() - 1));
    }

    Count elementwise_count(const Operation& op) const {
        if (op.name != "add_n") return vol(output(op));
        const Value* x = op.input("x");
        if (!x || !x->is_list() || x->size() == 0) return std::nullopt;
        return times(vol(output(op)), std::uint64_t(x->size() - 1));
    }

    static void add_cost(std::map<std::string, CostGroup>& groups, const Operation& op, Count c) {
        CostGroup& g = groups[op.name];
        g.name = op.name;
        ++g.operations;
        Count sum = c ? plus(g.cost, c) : std::nullopt;
        if (sum) g.cost = *sum;
        else ++g.unknown;
    }

    void finish(CostTotal& total, std::map<std::string, CostGroup>& groups) const {
        Count known = 0;
        for (auto& [name, g] : groups) {
            known = plus(known, g.cost);
            total.unknown_operations += g.unknown;
            total.by_type.push_back(g);
        }
        std::sort(total.by_type.begin(), total.by_type.end(), [](const CostGroup& a, const CostGroup& b) {
            return a.cost != b.cost ? a.cost > b.cost : a.name < b.name;
        });
        // A sum beyond 64 bits is not representable: reported as incomplete with the largest value.
        total.known = known.value_or(UINT64_MAX);
        total.complete = known && total.unknown_operations == 0 && out_.custom_operations.empty();
    }

    void parameter(const Operation& op) {
        ++out_.variables;
        const Value* label = op.attrib("label");
        const Value* shape = op.attrib("shape");
        const Value* result = op.output("output");
        if (label && label->is_string() && !labels_.insert(lower(label->as_string())).second) return;
        Shape declared;
        if (shape && shape->is_array())
            for (const Value& e : shape->items()) declared.push_back(e.is_integer() ? e.as_integer() : -1);
        const Tensor* t = result && result->is_identifier() ? g_.tensor(result->as_identifier()) : nullptr;
        const Count elements = volume(declared);
        std::string dtype;
        Count bytes;
        bool stored = t && t->data;
        if (stored) {
            const TensorData& d = *t->data;
            dtype = to_string(d.kind);
            if (!d.is_float()) dtype += std::to_string(d.bits);
            bytes = d.bytes.size();
        } else {
            const PrimType p = t ? t->dtype : op.dtype;
            dtype = p == PrimType::none || p == PrimType::generic ? "scalar" : to_string(p);
            bytes = times(elements, p == PrimType::logical ? 1 : 4);
        }
        if (t && t->quantization) {
            QuantizedParameterGroup& q = quantized_params_[{dtype, t->quantization->algorithm}];
            q.stored = dtype;
            q.loaded = stored;
            q.algorithm = t->quantization->algorithm;
            ++q.tensors;
            q.elements = plus(q.elements, elements).value_or(UINT64_MAX);
            q.bytes = plus(q.bytes, bytes).value_or(UINT64_MAX);
            q.float_bytes = plus(q.float_bytes, times(elements, 4)).value_or(UINT64_MAX);
        }
        ParameterGroup& g = params_[{dtype, stored}];
        g.dtype = dtype;
        g.stored = stored;
        ++g.tensors;
        g.elements = plus(g.elements, elements).value_or(UINT64_MAX);
        g.bytes = plus(g.bytes, bytes).value_or(UINT64_MAX);
    }

    void constant(const Operation& op) {
        ++out_.constant_tensors;
        const Value* shape = op.attrib("shape");
        Count v = 1;
        if (shape && shape->is_array())
            for (const Value& e : shape->items()) v = e.is_integer() && e.as_integer() >= 0 ? times(v, std::uint64_t(e.as_integer())) : std::nullopt;
        out_.constant_elements = plus(out_.constant_elements, v).value_or(UINT64_MAX);
    }

    void finish_parameters() {
        out_.bytes_stored = !params_.empty();
        for (auto& [key, g] : params_) {
            out_.parameter_tensors += g.tensors;
            out_.parameter_elements = plus(out_.parameter_elements, g.elements).value_or(UINT64_MAX);
            out_.parameter_bytes = plus(out_.parameter_bytes, g.bytes).value_or(UINT64_MAX);
            out_.bytes_stored = out_.bytes_stored && g.stored;
            out_.parameters.push_back(g);
        }
        std::sort(out_.parameters.begin(), out_.parameters.end(), [](const ParameterGroup& a, const ParameterGroup& b) {
            return a.bytes != b.bytes ? a.bytes > b.bytes : a.dtype < b.dtype;
        });
    }

    // A quantization operation, atomic or expanded: an expanded one is the run of consecutive
    // operations whose provenance passes through the same invocation of a quantization fragment
    // (the same chain from that invocation outwards); the last of them computes its result.
    void quantization_op(const Operation& op) {
        std::string algorithm = is_quantization(op.name) ? op.name : std::string();
        std::string key;
        if (algorithm.empty()) {
            const CallChain& chain = op.provenance.chain;  // innermost first
            auto it = chain.begin();
            while (it != chain.end() && !is_quantization(it->fragment)) ++it;
            if (it != chain.end()) {
                algorithm = it->fragment;
                for (; it != chain.end(); ++it)
                    key += it->fragment + '@' + std::to_string(it->range.file) + ':' + std::to_string(it->range.begin) + ';';
            }
        }
        const bool same_group = !key.empty() && key == group_key_;
        if (!same_group) {
            quantized_.insert(group_outputs_.begin(), group_outputs_.end());
            if (!algorithm.empty()) ++quant_[algorithm].operations;
        }
        group_key_ = key;
        group_outputs_.clear();
        if (!algorithm.empty())
            for (const auto& [n, v] : op.outputs) collect(v, group_outputs_);
    }

    static void collect(const Value& v, std::vector<std::string>& out) {
        if (v.is_identifier()) out.push_back(v.as_identifier());
        else if (v.is_list())
            for (const Value& item : v.items()) collect(item, out);
    }

    static std::vector<OperationCount> sorted(const std::map<std::string, std::uint64_t>& counts) {
        std::vector<OperationCount> out;
        for (const auto& [name, n] : counts) out.push_back({name, n});
        std::stable_sort(out.begin(), out.end(),
                         [](const OperationCount& a, const OperationCount& b) { return a.count > b.count; });
        return out;
    }

    const Graph& g_;
    GraphSummary out_;
    std::unordered_set<std::string> elementwise_;
    std::set<std::string> labels_;
    std::map<std::pair<std::string, bool>, ParameterGroup> params_;
    std::map<std::string, QuantizationGroup> quant_;
    std::map<std::pair<std::string, std::string>, QuantizedParameterGroup> quantized_params_;
    std::set<std::string> quantized_;
    std::string group_key_;                   // the expanded quantization operation being read
    std::vector<std::string> group_outputs_;  // outputs of its last operation so far
};

}  // namespace summary_cpp

GraphSummary summarize(const Graph& graph) {
    GraphSummary s = summary_cpp::Summarizer(graph).run();
    return s;
}

}  // namespace nnef
