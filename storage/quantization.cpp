// Quantization arithmetic (storage/quantization.hpp): the fragments' formulas, parameters from
// graph.quant entries, and the data-stage checks of graph.quant against the graph and its data.
#include "storage/quantization.hpp"

#include <cmath>
#include <limits>
#include <stdexcept>

#include <nnef/tensor_data.hpp>

namespace nnef::storage {

namespace quantization_cpp {

std::int64_t pow2(unsigned e) { return std::int64_t(1) << e; }

std::uint64_t volume(const Shape& s) {
    std::uint64_t v = 1;
    for (std::int64_t e : s) v *= std::uint64_t(e);
    return v;
}

// The broadcast of two parameter shapes (NNEF binary rule), or nullopt.
std::optional<Shape> broadcast(const Shape& a, const Shape& b) {
    Shape out(std::max(a.size(), b.size()), 1);
    for (std::size_t k = 0; k < out.size(); ++k) {
        const std::int64_t x = k < a.size() ? a[k] : 1, y = k < b.size() ? b[k] : 1;
        if (x != y && x != 1 && y != 1) return std::nullopt;
        out[k] = x == 1 ? y : x;
    }
    return out;
}

// A graph.quant tensor argument: a number or a nested rectangular array of numbers.
struct ParamValue {
    Shape shape;
    std::vector<double> values;   // as reals
    std::vector<std::int64_t> ints;  // integer items (when integer)
    bool integer = true;
};

bool flatten(const Value& v, std::size_t depth, ParamValue& out, std::string& why) {
    if (v.is_integer()) {
        if (depth != out.shape.size()) {
            why = "array is not rectangular";
            return false;
        }
        out.ints.push_back(v.as_integer());
        out.values.push_back(double(v.as_integer()));
        return true;
    }
    if (v.is_scalar()) {
        if (depth != out.shape.size()) {
            why = "array is not rectangular";
            return false;
        }
        out.integer = false;
        out.values.push_back(v.as_scalar());
        return true;
    }
    if (v.is_array()) {
        const std::int64_t n = std::int64_t(v.size());
        if (depth == out.shape.size() && out.values.empty()) out.shape.push_back(n);
        else if (depth >= out.shape.size() || out.shape[depth] != n) {
            why = "array is not rectangular";
            return false;
        }
        if (n == 0) {
            why = "array is empty";
            return false;
        }
        for (const Value& item : v.items())
            if (!flatten(item, depth + 1, out, why)) return false;
        return true;
    }
    why = "value " + to_string(v) + " is not a number or an array of numbers";
    return false;
}

// Repeats `values` of shape `from` to shape `to` (from broadcasts to to).
template <class T>
std::vector<T> expand(const std::vector<T>& values, const Shape& from, const Shape& to) {
    std::vector<T> out(volume(to));
    const std::optional<ChannelMap> map = ChannelMap::make(from, to);
    map->for_each(out.size(), [&](std::uint64_t i, std::size_t c) { out[i] = values[c]; });
    return out;
}

std::string number(double v) {
    char buf[40];
    std::snprintf(buf, sizeof buf, "%.9g", v);
    return buf;
}

}  // namespace quantization_cpp

const char* to_string(QuantAlgorithm a) {
    switch (a) {
        case QuantAlgorithm::linear: return "linear_quantize";
        case QuantAlgorithm::min_max_linear: return "min_max_linear_quantize";
        case QuantAlgorithm::zero_point_linear: return "zero_point_linear_quantize";
        case QuantAlgorithm::logarithmic: return "logarithmic_quantize";
    }
    return "linear_quantize";
}

std::optional<QuantAlgorithm> quant_algorithm(std::string_view f) {
    if (f == "linear_quantize") return QuantAlgorithm::linear;
    if (f == "min_max_linear_quantize") return QuantAlgorithm::min_max_linear;
    if (f == "zero_point_linear_quantize") return QuantAlgorithm::zero_point_linear;
    if (f == "logarithmic_quantize") return QuantAlgorithm::logarithmic;
    return std::nullopt;
}

double round_half_up(double v) {
    const double f = std::floor(v);
    return v - f >= 0.5 ? f + 1.0 : f;  // v - f is exact for every finite double
}

// ---- QuantParams ---------------------------------------------------------------------------

std::size_t QuantParams::channels() const { return std::size_t(quantization_cpp::volume(shape)); }

int QuantParams::channel_axis() const {
    int axis = -1;
    for (std::size_t k = 0; k < shape.size(); ++k) {
        if (shape[k] == 1) continue;
        if (axis != -1) return -2;
        axis = int(k);
    }
    return axis;
}

std::int64_t QuantParams::code_min() const {
    using quantization_cpp::pow2;
    switch (algorithm) {
        case QuantAlgorithm::linear:
        case QuantAlgorithm::logarithmic: return 0;
        case QuantAlgorithm::min_max_linear: return is_signed ? -(pow2(bits - 1) - (symmetric ? 1 : 0)) : 0;
        case QuantAlgorithm::zero_point_linear: {
            const std::int64_t r = is_signed ? pow2(bits - 1) - 1 : pow2(bits) - 1;
            return !is_signed ? 0 : symmetric ? -r : -r - 1;
        }
    }
    return 0;
}

std::int64_t QuantParams::code_max() const {
    using quantization_cpp::pow2;
    switch (algorithm) {
        case QuantAlgorithm::linear:
        case QuantAlgorithm::logarithmic: return pow2(bits) - 1;
        case QuantAlgorithm::min_max_linear: {
            const std::int64_t r = pow2(bits) - 1 - (is_signed && symmetric ? 1 : 0);
            return r + code_min();  // r - p
        }
        case QuantAlgorithm::zero_point_linear: return is_signed ? pow2(bits - 1) - 1 : pow2(bits) - 1;
    }
    return 0;
}

std::int64_t QuantParams::quantize(double x, std::size_t c) const {
    const std::int64_t lo = code_min(), hi = code_max();
    if (std::isnan(x)) return lo;
    switch (algorithm) {
        case QuantAlgorithm::linear:
        case QuantAlgorithm::min_max_linear: {
            const double r = double(hi - lo);  // r of the fragment
            const double z = std::min(std::max(x, min[c]), max[c]);
            return std::int64_t(round_half_up((z - min[c]) / (max[c] - min[c]) * r)) + lo;  // - p
        }
        case QuantAlgorithm::zero_point_linear: {
            const double s = round_half_up(x / scale[c]) + double(zero_point[c]);
            if (s <= double(lo)) return lo;
            if (s >= double(hi)) return hi;
            return std::int64_t(s);
        }
        case QuantAlgorithm::logarithmic: {
            const int m = tensor_data_detail::ceil_log2(max[c]);
            const double r = double(hi);
            const double e = round_half_up(std::min(std::max(std::log2(std::fabs(x)), double(m) - r), double(m)));
            return std::int64_t(e - (double(m) - r));
        }
    }
    return lo;
}

double QuantParams::dequantize(std::int64_t q, std::size_t c) const {
    switch (algorithm) {
        case QuantAlgorithm::linear:
        case QuantAlgorithm::min_max_linear: {
            const double r = double(code_max() - code_min());
            return double(q - code_min()) / r * (max[c] - min[c]) + min[c];  // (q + p) / r * (max - min) + min
        }
        case QuantAlgorithm::zero_point_linear: return double(q - zero_point[c]) * scale[c];
        case QuantAlgorithm::logarithmic: {
            const int m = tensor_data_detail::ceil_log2(max[c]);
            const double e = double(q) + double(m) - double(code_max());
            return e < -4000.0 ? 0.0 : std::ldexp(1.0, int(e));
        }
    }
    return 0.0;
}

double QuantParams::fake_quantize(double x, std::size_t c) const {
    if (std::isnan(x)) return x;
    if (algorithm != QuantAlgorithm::logarithmic) return dequantize(quantize(x, c), c);
    if (x == 0.0) return 0.0;  // sign(0) * 2^q
    const double v = dequantize(quantize(x, c), c);
    return x < 0.0 ? -v : v;
}

float QuantParams::fake_quantize_float32(float x, std::size_t c) const {
    if (std::isnan(x)) return x;
    const float lo = float(code_min()), hi = float(code_max());
    switch (algorithm) {
        case QuantAlgorithm::linear:
        case QuantAlgorithm::min_max_linear: {
            // q = round((clamp(x, min, max) - min) / (max - min) * r); q * ((max - min) / r) + min,
            // where (max - min) and (max - min) / r are computed in double as parameters are.
            const float a = float(min[c]), b = float(max[c]), r = hi - lo;
            const float z = std::min(std::max(x, a), b);
            const float q = std::nearbyint((z - a) / float(max[c] - min[c]) * r);
            return q * float((max[c] - min[c]) / double(r)) + a;
        }
        case QuantAlgorithm::zero_point_linear: {
            const float s = float(scale[c]), zp = float(zero_point[c]);
            const float z = std::min(std::max(std::nearbyint(x / s) + zp, lo), hi);
            return (z - zp) * s;
        }
        case QuantAlgorithm::logarithmic: {
            if (x == 0.0f) return 0.0f;  // sign(0) * 2^q
            const float m = float(tensor_data_detail::ceil_log2(max[c]));
            const float e = std::nearbyint(std::min(std::max(std::log2(std::fabs(x)), m - hi), m));
            const float v = std::exp2(e);
            return x < 0.0f ? -v : v;
        }
    }
    return x;
}

Affine QuantParams::affine(std::size_t c) const {
    Affine a;
    switch (algorithm) {
        case QuantAlgorithm::zero_point_linear:
            a.scale = scale[c];
            a.zero_point = double(zero_point[c]);
            break;
        case QuantAlgorithm::linear:
        case QuantAlgorithm::min_max_linear:
            a.scale = (max[c] - min[c]) / double(code_max() - code_min());
            a.zero_point = double(code_min()) - min[c] / a.scale;
            break;
        case QuantAlgorithm::logarithmic: throw std::logic_error("logarithmic quantization has no scale and zero point");
    }
    return a;
}

std::optional<std::string> QuantParams::check() const {
    using quantization_cpp::number;
    if (bits < 1 || bits > 62) return "bits is " + std::to_string(bits) + "; it must be in 1..62";
    if (algorithm == QuantAlgorithm::zero_point_linear && is_signed && bits < 2)
        return "signed zero_point_linear_quantize needs at least 2 bits";
    if ((algorithm == QuantAlgorithm::min_max_linear && is_signed && symmetric && bits < 2))
        return "signed symmetric min_max_linear_quantize needs at least 2 bits";
    for (std::int64_t e : shape)
        if (e < 1) return "parameter shape " + nnef::to_string(shape) + " has an empty extent";
    const std::size_t n = channels();
    const bool per = shape.empty() ? false : n > 1;
    auto which = [&](std::size_t c) { return per ? " of channel " + std::to_string(c) : std::string(); };
    switch (algorithm) {
        case QuantAlgorithm::zero_point_linear:
            if (scale.size() != n || zero_point.size() != n) return std::string("scale and zero_point need one value per channel");
            for (std::size_t c = 0; c < n; ++c) {
                if (!std::isfinite(scale[c]) || scale[c] <= 0.0)
                    return "scale" + which(c) + " is " + number(scale[c]) + "; it must be positive and finite";
                if (zero_point[c] < code_min() || zero_point[c] > code_max())
                    return "zero_point" + which(c) + " is " + std::to_string(zero_point[c]) + ", outside the code range [" +
                           std::to_string(code_min()) + ", " + std::to_string(code_max()) + "] of " + std::to_string(bits) +
                           (is_signed ? (symmetric ? "-bit signed symmetric" : "-bit signed") : "-bit unsigned") + " codes";
            }
            break;
        case QuantAlgorithm::linear:
        case QuantAlgorithm::min_max_linear:
            if (min.size() != n || max.size() != n) return std::string("min and max need one value per channel");
            for (std::size_t c = 0; c < n; ++c) {
                if (!std::isfinite(min[c]) || !std::isfinite(max[c]))
                    return "min and max" + which(c) + " must be finite";
                if (!(min[c] < max[c]))
                    return "min" + which(c) + " (" + number(min[c]) + ") is not less than max (" + number(max[c]) + ")";
            }
            break;
        case QuantAlgorithm::logarithmic:
            if (max.size() != n) return std::string("max needs one value per channel");
            for (std::size_t c = 0; c < n; ++c)
                if (!std::isfinite(max[c]) || max[c] <= 0.0)
                    return "max" + which(c) + " is " + number(max[c]) + "; it must be positive and finite";
            break;
    }
    return std::nullopt;
}

// ---- ChannelMap ----------------------------------------------------------------------------

std::optional<ChannelMap> ChannelMap::make(const Shape& params, const Shape& tensor) {
    ChannelMap m;
    for (std::size_t k = tensor.size(); k < params.size(); ++k)
        if (params[k] != 1) return std::nullopt;
    std::uint64_t param_stride = 1, tensor_stride = 1;
    std::vector<std::uint64_t> pstrides(params.size()), tstrides(tensor.size());
    for (std::size_t k = params.size(); k-- > 0;) {
        pstrides[k] = param_stride;
        param_stride *= std::uint64_t(params[k]);
    }
    for (std::size_t k = tensor.size(); k-- > 0;) {
        tstrides[k] = tensor_stride;
        tensor_stride *= std::uint64_t(tensor[k]);
    }
    for (std::size_t k = 0; k < params.size() && k < tensor.size(); ++k) {
        if (params[k] == 1) continue;
        if (params[k] != tensor[k]) return std::nullopt;
        m.per_tensor_ = false;
        m.tensor_strides_.push_back(tstrides[k]);
        m.extents_.push_back(std::uint64_t(tensor[k]));
        m.param_strides_.push_back(pstrides[k]);
    }
    return m;
}

std::size_t ChannelMap::channel(std::uint64_t i) const {
    std::uint64_t c = 0;
    for (std::size_t k = 0; k < extents_.size(); ++k) c += (i / tensor_strides_[k]) % extents_[k] * param_strides_[k];
    return std::size_t(c);
}

// ---- from graph.quant ----------------------------------------------------------------------

Result<QuantParams> quant_params(const Quantization& q, std::string_view tensor) {
    using namespace quantization_cpp;
    Result<QuantParams> out;
    const std::string where = "quantization of '" + std::string(tensor) + "' (" + q.algorithm + ")";
    auto error = [&](const std::string& message) {
        out.diagnostics.error(Stage::data, "bad-quantization", where + ": " + message, q.range);
    };
    auto fail = [&](const std::string& message) {
        error(message);
        return out;
    };
    const std::optional<QuantAlgorithm> algorithm = quant_algorithm(q.algorithm);
    if (!algorithm) return fail("not a standard quantization algorithm");
    QuantParams p;
    p.algorithm = *algorithm;
    std::int64_t bits = 0;
    if (const Value* b = find(q.arguments, "bits"); b && b->is_integer()) bits = b->as_integer();
    else return fail("'bits' is missing or not an integer");
    if (bits < 1 || bits > 62) return fail("bits is " + std::to_string(bits) + "; it must be in 1..62");
    p.bits = unsigned(bits);
    for (const char* flag : {"signed", "symmetric"}) {
        const Value* v = find(q.arguments, flag);
        const bool is_flag_algorithm = p.algorithm == QuantAlgorithm::min_max_linear || p.algorithm == QuantAlgorithm::zero_point_linear;
        if (!is_flag_algorithm) continue;
        if (!v || !v->is_logical()) return fail(std::string("'") + flag + "' is missing or not a logical");
        (flag[1] == 'i' ? p.is_signed : p.symmetric) = v->as_logical();
    }

    std::vector<std::pair<const char*, ParamValue>> tensors;
    auto take = [&](const char* name, bool integer) -> bool {
        const Value* v = find(q.arguments, name);
        if (!v) {
            error(std::string("'") + name + "' is missing");
            return false;
        }
        ParamValue pv;
        std::string why;
        if (!flatten(*v, 0, pv, why)) {
            error(std::string("'") + name + "': " + why);
            return false;
        }
        if (integer && !pv.integer) {
            error(std::string("'") + name + "' must be integer");
            return false;
        }
        tensors.emplace_back(name, std::move(pv));
        return true;
    };
    switch (p.algorithm) {
        case QuantAlgorithm::zero_point_linear:
            if (!take("zero_point", true) || !take("scale", false)) return out;
            break;
        case QuantAlgorithm::linear:
        case QuantAlgorithm::min_max_linear:
            if (!take("min", false) || !take("max", false)) return out;
            break;
        case QuantAlgorithm::logarithmic:
            if (!take("max", false)) return out;
            break;
    }
    Shape common;
    for (const auto& [name, pv] : tensors) {
        std::optional<Shape> b = broadcast(common, pv.shape);
        if (!b) return fail("the shapes of the parameters (" + nnef::to_string(common) + " and '" + name + "' " +
                            nnef::to_string(pv.shape) + ") do not broadcast");
        common = *b;
    }
    // Trailing extents of 1 carry no information: [] and [1, 1] are both per tensor.
    while (!common.empty() && common.back() == 1) common.pop_back();
    p.shape = common;
    for (const auto& [name, pv] : tensors) {
        const std::string n = name;
        if (n == "zero_point") p.zero_point = expand(pv.ints, pv.shape, common);
        else if (n == "scale") p.scale = expand(pv.values, pv.shape, common);
        else if (n == "min") p.min = expand(pv.values, pv.shape, common);
        else p.max = expand(pv.values, pv.shape, common);
    }
    if (std::optional<std::string> problem = p.check()) return fail(*problem);
    out.value = std::move(p);
    return out;
}

// ---- tensor-level --------------------------------------------------------------------------

ChannelMap channel_map(const QuantParams& p, const Shape& shape) {
    std::optional<ChannelMap> m = ChannelMap::make(p.shape, shape);
    if (!m)
        throw std::invalid_argument("quantization parameters of shape " + nnef::to_string(p.shape) +
                                    " do not broadcast to shape " + nnef::to_string(shape));
    return *m;
}

template <class T>
void fake_quantize(const QuantParams& p, const Shape& shape, const T* in, T* out) {
    const ChannelMap m = channel_map(p, shape);
    m.for_each(quantization_cpp::volume(shape),
               [&](std::uint64_t i, std::size_t c) { out[i] = static_cast<T>(p.fake_quantize(double(in[i]), c)); });
}
template void fake_quantize<float>(const QuantParams&, const Shape&, const float*, float*);
template void fake_quantize<double>(const QuantParams&, const Shape&, const double*, double*);

std::vector<std::int64_t> quantize(const QuantParams& p, const Shape& shape, const std::vector<double>& x) {
    const ChannelMap m = channel_map(p, shape);
    std::vector<std::int64_t> out(x.size());
    m.for_each(x.size(), [&](std::uint64_t i, std::size_t c) { out[i] = p.quantize(x[i], c); });
    return out;
}

std::vector<double> dequantize(const QuantParams& p, const Shape& shape, const std::vector<std::int64_t>& codes) {
    const ChannelMap m = channel_map(p, shape);
    std::vector<double> out(codes.size());
    m.for_each(codes.size(), [&](std::uint64_t i, std::size_t c) { out[i] = p.dequantize(codes[i], c); });
    return out;
}

// ---- checks of a graph's entries -----------------------------------------------------------

bool holds_codes(const TensorData& d) {
    return d.kind == ElementKind::signed_int || d.kind == ElementKind::unsigned_int ||
           d.kind == ElementKind::quantized_signed || d.kind == ElementKind::quantized_unsigned;
}

bool check_quantization(const Graph& graph, Diagnostics& diags) {
    bool ok = true;
    for (const Tensor& t : graph.tensors) {
        if (diags.limit_reached()) return false;
        if (!t.quantization || !quant_algorithm(t.quantization->algorithm)) continue;
        const Quantization& q = *t.quantization;
        Result<QuantParams> r = quant_params(q, t.name);
        diags.append(r.diagnostics);
        if (!r) {
            ok = false;
            continue;
        }
        const QuantParams& p = *r;
        const std::string what = "quantization of '" + t.name + "' (" + q.algorithm + ")";
        if (t.shape && !ChannelMap::make(p.shape, *t.shape)) {
            diags.error(Stage::data, "bad-quantization",
                        what + ": parameters of shape " + nnef::to_string(p.shape) + " do not apply to the tensor's shape " +
                            nnef::to_string(*t.shape) + " (they broadcast from dimension 0, as binary operations do)",
                        q.range);
            ok = false;
            continue;
        }
        if (!t.data) continue;
        const TensorData& d = *t.data;
        if (d.kind == ElementKind::logical || d.kind == ElementKind::opaque) {
            diags.error(Stage::data, "quantized-dtype",
                        what + ": the tensor's data is stored as " +
                            (d.kind == ElementKind::logical ? std::string("logical values") : std::string("vendor-specific data")) +
                            ", which a quantization cannot apply to (expected real numbers or integer codes)",
                        q.range);
            ok = false;
            continue;
        }
        if (!holds_codes(d)) continue;
        if (p.algorithm == QuantAlgorithm::logarithmic && d.is_signed) {
            diags.error(Stage::data, "code-range",
                        what + ": the tensor's data holds " + std::to_string(d.bits) +
                            "-bit signed codes; logarithmic codes are unsigned (spec 5.2)",
                        q.range);
            ok = false;
            continue;
        }
        const std::int64_t lo = p.code_min(), hi = p.code_max();
        for (std::uint64_t i = 0; i < d.count; ++i) {
            // Unsigned codes above INT64_MAX are out of every range.
            const bool huge = !d.is_signed && d.raw(i) > std::uint64_t(std::numeric_limits<std::int64_t>::max());
            const std::int64_t c = d.as_int64(i);
            if (huge || c < lo || c > hi) {
                diags.error(Stage::data, "code-range",
                            what + ": item " + std::to_string(i) + " of the stored " + std::to_string(d.bits) + "-bit " +
                                (d.is_signed ? "signed" : "unsigned") + " codes is " +
                                (huge ? std::to_string(d.raw(i)) : std::to_string(c)) + ", outside the code range [" +
                                std::to_string(lo) + ", " + std::to_string(hi) + "] of the entry (bits = " +
                                std::to_string(p.bits) + (p.is_signed ? ", signed" : ", unsigned") + ")",
                            q.range);
                ok = false;
                break;
            }
        }
    }
    return ok;
}

}  // namespace nnef::storage
