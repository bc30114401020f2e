#include "compare.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <limits>

namespace nnef::cli {

namespace compare_cpp {

std::string number(double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.7g", v);
    return buf;
}

std::string shown(double v) {  // a default in --help: 1e-04 -> "0.0001", 2 -> "2"
    char buf[32];
    std::snprintf(buf, sizeof buf, "%g", v);
    return buf;
}

}  // namespace compare_cpp

void add_compare_options(Options& options, CompareOptions& c, const std::string& rtol_note) {
    options.shared("--compare", set_text(c.dir));
    options.shared("--rtol", set_number(c.rtol), compare_cpp::shown(c.rtol), rtol_note);
    options.shared("--atol", set_number(c.atol), compare_cpp::shown(c.atol));
    options.shared("--max-quanta-off", set_number(c.max_quanta_off), compare_cpp::shown(c.max_quanta_off));
    options.shared("--max-share-off", [&c](const std::string& v) -> std::optional<std::string> {
        double p = 0.0;
        if (auto e = set_number(p)(v)) return e;
        if (p > 1.0) return "needs a share in [0, 1], not '" + v + "'";
        c.max_share_off = p;
        return std::nullopt;
    }, compare_cpp::shown(c.max_share_off));
}

std::string reference_path(const std::string& dir, const std::string& name, bool only_output) {
    namespace fs = std::filesystem;
    fs::path ref = fs::path(dir) / (name + ".dat");
    if (!fs::exists(ref) && only_output && fs::exists(fs::path(dir) / "output.dat")) ref = fs::path(dir) / "output.dat";
    return ref.string();
}

Comparison compare(const std::string& name, const std::string& reference, const std::vector<double>& out,
                   const std::vector<double>& ref, const Shape& shape, const storage::QuantParams* grid,
                   const CompareOptions& options) {
    Comparison c;
    c.name = name;
    c.reference = reference;
    c.items = out.size();
    std::optional<storage::ChannelMap> channels;
    if (grid) channels = storage::ChannelMap::make(grid->shape, shape);
    c.quantized = grid && channels && grid->algorithm != storage::QuantAlgorithm::logarithmic;
    if (c.quantized) {
        c.scale = std::numeric_limits<double>::infinity();
        for (std::size_t k = 0; k < grid->channels(); ++k) c.scale = std::min(c.scale, grid->affine(k).scale);
    }
    double diff2 = 0.0, ref2 = 0.0;
    for (std::size_t i = 0; i < out.size() && i < ref.size(); ++i) {
        const double a = out[i], b = ref[i];
        if (!std::isfinite(a) || !std::isfinite(b)) {
            // NaN on both sides, or the same infinity, agree; anything else does not.
            const bool same = (std::isnan(a) && std::isnan(b)) || (std::isinf(a) && a == b);
            if (!same) ++c.one_sided;
            continue;
        }
        const double d = std::fabs(a - b);
        c.max_abs = std::max(c.max_abs, d);
        c.max_ref = std::max(c.max_ref, std::fabs(b));
        diff2 += d * d;
        ref2 += b * b;
        if (c.quantized) {
            // Both on the grid, the difference is a whole number of quanta up to float rounding.
            double q = d / grid->affine(channels->channel(i)).scale;
            if (std::fabs(q - std::round(q)) < 1e-3) q = std::round(q);
            c.max_quanta = std::max(c.max_quanta, q);
            if (q > 1.5) ++c.items_off;  // values on the grid: 2 or more quanta apart
        }
    }
    c.rel_l2 = ref2 > 0.0 ? std::sqrt(diff2 / ref2) : std::sqrt(diff2);
    c.share_off = c.items ? double(c.items_off) / double(c.items) : 0.0;
    if (out.size() != ref.size()) c.one_sided += std::max(out.size(), ref.size()) - std::min(out.size(), ref.size());
    if (c.quantized)
        c.match = c.one_sided == 0 && c.max_quanta <= options.max_quanta_off && c.share_off <= options.max_share_off;
    else
        c.match = c.one_sided == 0 && c.max_abs <= options.atol + options.rtol * c.max_ref;
    return c;
}

std::string comparison_text(const Comparison& c) {
    using compare_cpp::number;
    std::string s = "compare " + c.name + " with " + c.reference + ": ";
    if (c.quantized)
        s += "max " + number(c.max_quanta) + " quanta off (quantum " + number(c.scale) + "), " + std::to_string(c.items_off) +
             " of " + std::to_string(c.items) + " items (" + number(100.0 * c.share_off) +
             "%) more than one quantum off, ";
    s += "max abs error " + number(c.max_abs) + ", max relative error " +
         number(c.max_ref > 0.0 ? c.max_abs / c.max_ref : c.max_abs) + " (of max|ref| " + number(c.max_ref) +
         "), relative L2 error " + number(c.rel_l2);
    if (c.one_sided) s += ", " + std::to_string(c.one_sided) + " items NaN or infinite on one side";
    return s + ": " + (c.match ? "match" : "MISMATCH") + "\n";
}

Json comparison_json(const Comparison& c) {
    Json j = {{"name", c.name},
              {"reference", c.reference},
              {"items", c.items},
              {"max_abs_error", json_number(c.max_abs)},
              {"max_abs_reference", json_number(c.max_ref)},
              {"max_rel_error", json_number(c.max_ref > 0.0 ? c.max_abs / c.max_ref : c.max_abs)},
              {"rel_l2_error", json_number(c.rel_l2)},
              {"one_sided_nonfinite", c.one_sided},
              {"quantized", c.quantized}};
    if (c.quantized) {
        j["quantum"] = json_number(c.scale);
        j["max_quanta_off"] = json_number(c.max_quanta);
        j["items_more_than_one_quantum_off"] = c.items_off;
        j["share_more_than_one_quantum_off"] = json_number(c.share_off);
    }
    j["match"] = c.match;
    return j;
}

Json compare_json(const std::vector<Comparison>& list, const CompareOptions& options) {
    Json outputs = Json::array();
    bool all = true;
    for (const Comparison& c : list) {
        outputs.push_back(comparison_json(c));
        all = all && c.match;
    }
    return {{"rtol", options.rtol},
            {"atol", options.atol},
            {"max_quanta_off", options.max_quanta_off},
            {"max_share_off", options.max_share_off},
            {"match", all},
            {"outputs", std::move(outputs)}};
}

std::string mismatch_message(const std::vector<Comparison>& list, const CompareOptions& options) {
    using compare_cpp::number;
    std::string names;
    bool real = false, quantized = false;
    for (const Comparison& c : list)
        if (!c.match) {
            names += (names.empty() ? "'" : ", '") + c.name + "'";
            (c.quantized ? quantized : real) = true;
        }
    std::string s = "output " + names + " differs from the reference (tolerance: ";
    if (real) s += "max|out - ref| <= " + number(options.atol) + " + " + number(options.rtol) + " * max|ref|";
    if (real && quantized) s += "; ";
    if (quantized)
        s += "at most " + number(options.max_quanta_off) + " quanta off, at most " + number(options.max_share_off) +
             " of the items more than one quantum off";
    return s + ")";
}

std::optional<storage::QuantParams> linear_grid(const Graph& g, const std::string& name) {
    const Tensor* t = g.tensor(name);
    if (!t || !t->quantization) return std::nullopt;
    auto p = storage::quant_params(*t->quantization, name);
    if (!p || p.value->algorithm == storage::QuantAlgorithm::logarithmic) return std::nullopt;
    return *p.value;
}

Result<storage::TensorDataPtr> codes_tensor(const storage::QuantParams& grid, const Shape& shape,
                                            const std::vector<double>& reals) {
    const std::vector<std::int64_t> codes = storage::quantize(grid, shape, reals);
    unsigned bits = 8;
    const bool is_signed = grid.code_min() < 0;
    while (bits < 64 && (grid.code_max() > (std::int64_t(1) << (is_signed ? bits - 1 : bits)) - 1 ||
                         (is_signed && grid.code_min() < -(std::int64_t(1) << (bits - 1)))))
        bits *= 2;
    return storage::make_integer_tensor(shape, codes, bits, is_signed);
}

}  // namespace nnef::cli
