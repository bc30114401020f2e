// The properties the NNAPI JSON fuzz target checks (fuzz_nnapi_json), shared with the test that runs
// them on seeds in every build (tests/unit/nnapi/fuzz_check_test.cpp). The check returns an empty
// string when the properties hold, otherwise what was violated.
//
// Input: the text of an NNAPI model's JSON form (docs/nnapi.md). Any pool file it names reads as
// the same 1 KiB of bytes 1, 38, 75, ...
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include <nnef/diagnostics.hpp>

#include "lowering/nnapi/interpreter.hpp"
#include "lowering/nnapi/model.hpp"

namespace nnef_fuzz {

inline std::vector<std::uint8_t> nnapi_pool_bytes() {
    std::vector<std::uint8_t> bytes(1024);
    for (std::size_t i = 0; i < bytes.size(); ++i) bytes[i] = std::uint8_t(i * 37 + 1);
    return bytes;
}

// The interpreter runs a valid model only when every tensor has fully specified dimensions and all
// of them together hold at most this many elements (so that no input costs more than milliseconds).
inline constexpr std::uint64_t kNnapiRunElements = 4096;

inline std::string errors_have_messages(const nnef::Diagnostics& d) {
    if (!d.has_errors()) return "a refusal without an error";
    for (const auto& e : d)
        if (e.message.empty()) return "an error without a message (" + e.code + ")";
    return "";
}

// - The reader refuses with an error, or gives a model.
// - A model's JSON (to_json) reads back to the same JSON, with its pools in their file.
// - validate() agrees with its diagnostics; a valid small model runs on zero inputs, giving outputs
//   of the output operands' types, or an error.
inline std::string check_nnapi_json(const std::uint8_t* data, std::size_t size) {
    using namespace nnef::nnapi;
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    PoolFileReader pools = [](const std::string&) { return std::optional<std::vector<std::uint8_t>>(nnapi_pool_bytes()); };
    nnef::Diagnostics d;
    auto model = model_from_json_text(text, pools, d, "fuzz.json");
    if (!model) return errors_have_messages(d);
    if (d.has_errors()) return "a model and errors";

    nlohmann::json written = to_json(*model, "fuzz.bin");
    const std::vector<std::uint8_t> pool_file = pool_file_bytes(*model);
    PoolFileReader written_pools = [&pool_file](const std::string& name) -> std::optional<std::vector<std::uint8_t>> {
        if (name != "fuzz.bin") return std::nullopt;
        return pool_file;
    };
    nnef::Diagnostics d2;
    auto back = model_from_json(written, written_pools, d2, "written.json");
    if (!back) return "the written JSON does not read: " + (d2.empty() ? std::string() : (*d2.begin()).message);
    if (to_json(*back, "fuzz.bin") != written) return "the written JSON reads back as another model";

    nnef::Diagnostics v;
    const bool valid = validate(*model, v);
    if (valid == v.has_errors()) return "validate() disagrees with its diagnostics";
    if (!valid) return errors_have_messages(v);

    std::uint64_t elements = 0;
    for (const Operand& o : model->operands) {
        if (!is_tensor(o.type)) continue;
        auto n = element_count(o);
        if (!n) return "";
        elements += *n;
        if (elements > kNnapiRunElements) return "";
    }
    std::vector<nnef::nnapi::Tensor> inputs;
    for (std::uint32_t i : model->inputIndexes) {
        auto t = filled_tensor(model->operands[i], 0);
        if (!t) return "";  // an OEM scalar: no size to give
        inputs.push_back(std::move(*t));
    }
    nnef::Diagnostics r;
    auto outputs = run(*model, inputs, r);
    if (!outputs) return errors_have_messages(r);
    if (outputs->size() != model->outputIndexes.size()) return "run() gives the wrong number of outputs";
    for (std::size_t k = 0; k < outputs->size(); ++k) {
        const Operand& o = model->operands[model->outputIndexes[k]];
        const nnef::nnapi::Tensor& t = (*outputs)[k];
        if (t.type != o.type) return "an output of the wrong type";
        if (t.data.size() != t.element_count() * element_size(t.type)) return "an output of the wrong size";
    }
    return "";
}

}  // namespace nnef_fuzz
