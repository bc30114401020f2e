// Quantization arithmetic: the typed parameters of a graph.quant entry and the spec's formulas to
// quantize (real -> integer code), dequantize (code -> real) and fake-quantize (real -> the nearest
// real of the grid, the quantization fragment's own result). std-only.
//
// The four algorithms are the quantization fragments (spec 4.9.5, SPEC_NOTES section 2). With
// r, p, lo, hi as below, for one channel's parameters:
//   linear_quantize(min, max, bits)                      (= min_max_linear_quantize, unsigned, asymmetric)
//   min_max_linear_quantize(min, max, bits, signed, symmetric)
//       r = 2^bits - 1 - (signed && symmetric ? 1 : 0)
//       p = signed ? 2^(bits-1) - (symmetric ? 1 : 0) : 0
//       code  q = round((clamp(x, min, max) - min) / (max - min) * r) - p      in [-p, r - p]
//       real  y = (q + p) / r * (max - min) + min
//   zero_point_linear_quantize(zero_point, scale, bits, signed, symmetric)
//       r = signed ? 2^(bits-1) - 1 : 2^bits - 1
//       code  q = clamp(round(x / scale) + zero_point, lo, hi), lo = !signed ? 0 : symmetric ? -r : -r - 1, hi = r
//       real  y = (q - zero_point) * scale
//   logarithmic_quantize(max, bits)
//       m = ceil(log2(max)), r = 2^bits - 1
//       e = round(clamp(log2(|x|), m - r, m))                                  (the fragment's q)
//       code  q = e - (m - r)                                                  in [0, r] (spec 5.2)
//       real  y = sign(x) * 2^e          (fake-quantize; the code holds |x| only, dequantize(q) = 2^(q + m - r))
// round(v) is the spec's floor(v + 0.5) (4.2.1): ties go up (toward +infinity), computed exactly
// (no rounding error in v + 0.5). docs/exec.md says why this reading.
//
// Per tensor or per channel: each tensor parameter (min, max, zero_point, scale) has a shape, [] for
// one value. The parameters broadcast to the quantized tensor as NNEF binary operations do: from
// dimension 0, missing trailing extents are 1, each extent is 1 or the tensor's. So a conv filter
// [64, 3, 7, 7] takes a per-output-channel scale of shape [64]; an activation [1, 64, 56, 56] a
// per-channel one of shape [1, 64]. In graph.quant a tensor parameter is a number or an array
// (nested arrays give the shape: [[a, b]] is [1, 2]).
//
// Use (e.g. the TOSA PRO-INT lowering): `quant_params(quantization, tensor_name)` gives the typed
// parameters of a graph.quant entry (checked: a stage `data` diagnostic at the entry otherwise);
// `params.affine(c)` gives the scale and zero point of channel c of a linear algorithm,
// `params.channel_axis()` the axis along which they vary; `ChannelMap` maps a tensor's items to
// their channel.
#pragma once
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nnef/diagnostics.hpp>
#include <nnef/graph.hpp>

namespace nnef::storage {

enum class QuantAlgorithm : std::uint8_t {
    linear,             // linear_quantize
    min_max_linear,     // min_max_linear_quantize
    zero_point_linear,  // zero_point_linear_quantize
    logarithmic,        // logarithmic_quantize
};

// The fragment name ("linear_quantize", ...).
const char* to_string(QuantAlgorithm a);
// The algorithm of a fragment name; nullopt for any other name (e.g. a document's own fragment).
std::optional<QuantAlgorithm> quant_algorithm(std::string_view fragment);

// round(v) of spec 4.2.1, floor(v + 0.5), exactly (v = 0.49999999999999994 gives 0).
double round_half_up(double v);

// Scale and zero point of a linear algorithm's channel: real = (code - zero_point) * scale. For
// zero_point_linear_quantize the zero point is the integer given; for (min_max_)linear_quantize
// it is -p - min / scale with scale = (max - min) / r, in general not an integer.
struct Affine {
    double scale = 1.0;
    double zero_point = 0.0;
};

// The typed parameters of one quantization. Build it with quant_params() (from a graph.quant
// entry, checked) or fill it and call check() (e.g. in tests and lowerings).
struct QuantParams {
    QuantAlgorithm algorithm = QuantAlgorithm::zero_point_linear;
    unsigned bits = 8;        // 1 to 62
    bool is_signed = false;   // linear_quantize and logarithmic_quantize: false
    bool symmetric = false;   // linear_quantize and logarithmic_quantize: false
    // The common shape of the tensor parameters ([] per tensor); each vector below that the
    // algorithm uses has volume(shape) items, row-major, already broadcast to it.
    Shape shape;
    std::vector<double> scale;             // zero_point_linear
    std::vector<std::int64_t> zero_point;  // zero_point_linear
    std::vector<double> min;               // linear, min_max_linear
    std::vector<double> max;               // linear, min_max_linear, logarithmic

    // Number of channels: volume(shape) (1 per tensor).
    std::size_t channels() const;
    // The one dimension along which parameters vary (its extent > 1), -1 per tensor (every
    // extent 1), -2 when they vary along several dimensions.
    int channel_axis() const;

    // The code range: every code quantize() gives is in [code_min(), code_max()].
    // linear: [0, 2^bits - 1]; min_max_linear: [-p, r - p]; zero_point_linear: [lo, hi];
    // logarithmic: [0, 2^bits - 1].
    std::int64_t code_min() const;
    std::int64_t code_max() const;

    // Channel c (< channels()). x may be any double (NaN gives NaN from fake_quantize and dequantize
    // of nothing; quantize(NaN) is code_min()).
    std::int64_t quantize(double x, std::size_t c = 0) const;
    double dequantize(std::int64_t code, std::size_t c = 0) const;
    double fake_quantize(double x, std::size_t c = 0) const;
    // The same real value computed as PyTorch computes the quantization fragments (NNEF-Tools'
    // interpreter, nnef-run --quant-like nnef-tools): each step of the formula in float32 with the
    // parameters rounded to float32 (x / scale, then + zero_point, ...), and round() with ties to
    // even (1.5 -> 2, 2.5 -> 2) instead of the spec's floor(x + 0.5). Not the spec's arithmetic:
    // it differs from fake_quantize() where a float32 step rounds across a grid boundary or hits a tie.
    float fake_quantize_float32(float x, std::size_t c = 0) const;
    // Linear algorithms only (not logarithmic).
    Affine affine(std::size_t c = 0) const;

    // The parameters are usable: bits in 1..62; vectors of volume(shape) items; finite values;
    // zero_point_linear: scale > 0 and zero_point in [code_min, code_max]; (min_max_)linear: min < max;
    // logarithmic: max > 0. Otherwise a message saying what is wrong ("scale of channel 3 is 0").
    std::optional<std::string> check() const;
};

// Maps the row-major items of a tensor of shape `tensor` to the channel of parameters of shape
// `params` that applies to each (NNEF broadcasting, see above).
class ChannelMap {
public:
    // nullopt when `params` does not broadcast to `tensor` (a rank above the tensor's with an
    // extent other than 1, or an extent other than 1 and the tensor's).
    static std::optional<ChannelMap> make(const Shape& params, const Shape& tensor);
    // The channel of item i, and of every item in order (for loops: cheaper than channel(i)).
    std::size_t channel(std::uint64_t i) const;
    bool per_tensor() const { return per_tensor_; }
    template <class F>  // f(item index, channel)
    void for_each(std::uint64_t count, F&& f) const {
        if (per_tensor_) {
            for (std::uint64_t i = 0; i < count; ++i) f(i, std::size_t(0));
            return;
        }
        for (std::uint64_t i = 0; i < count; ++i) f(i, channel(i));
    }

private:
    bool per_tensor_ = true;
    std::vector<std::uint64_t> tensor_strides_;  // row-major strides of the tensor
    std::vector<std::uint64_t> extents_;         // the tensor's extents (the parameters' rank padded)
    std::vector<std::uint64_t> param_strides_;   // 0 where the parameter extent is 1
};

// The ChannelMap of the parameters of `p` on a tensor of shape `shape`; throws std::invalid_argument
// when they do not broadcast to it (quantize, dequantize and fake_quantize below check so).
ChannelMap channel_map(const QuantParams& p, const Shape& shape);

// The typed parameters of a graph.quant entry (nnef::Quantization) of tensor `tensor`: the
// algorithm must be one of the four; each tensor parameter a number or a (nested, rectangular)
// array of numbers, the parameters' shapes broadcasting to a common one; then check(). Problems
// are stage `data` errors (code `bad-quantization`) located at the entry (q.range) naming the
// tensor and the algorithm.
Result<QuantParams> quant_params(const Quantization& q, std::string_view tensor);

// Tensor-level forms, items row-major in `shape`; the parameters must broadcast to it (else
// std::invalid_argument). T is float or double.
template <class T>
void fake_quantize(const QuantParams& p, const Shape& shape, const T* in, T* out);
std::vector<std::int64_t> quantize(const QuantParams& p, const Shape& shape, const std::vector<double>& x);
std::vector<double> dequantize(const QuantParams& p, const Shape& shape, const std::vector<std::int64_t>& codes);

// Checks every graph.quant entry of `graph` (tensors with Tensor::quantization) before anything
// runs, as stage `data` errors at the entry (file and line of graph.quant) naming the tensor:
// - the parameters (quant_params): a scale of 0, a zero point outside the code range, min >= max,
//   max <= 0 for logarithmic, bits outside 1..62, parameter shapes that do not broadcast to the
//   tensor's shape;
// - with tensor data attached (variables): the stored data must be numbers a quantization can
//   apply to (float, integer or quantized codes, linear or logarithmic encodings; not logical or
//   vendor data: code `quantized-dtype`), and stored integer codes must lie in the entry's code
//   range (code `code-range`: bits or signedness that do not fit the stored codes; logarithmic
//   codes are unsigned).
// Entries whose algorithm is a document's own fragment are left alone. Returns false on an error.
bool check_quantization(const Graph& graph, Diagnostics& diags);

// A stored tensor whose items are integer codes (int/uint/qint/quint) that a graph.quant entry
// dequantizes, as opposed to reals (float, linear/logarithmic encodings) that it rounds to the grid.
bool holds_codes(const TensorData& data);

}  // namespace nnef::storage
