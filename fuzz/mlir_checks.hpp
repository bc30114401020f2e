// The properties the fuzz_mlir target checks (tosa::read_mlir on arbitrary text), shared with the
// test that replays the seed files and saved inputs in every build (tests/unit/tosa/mlir_read_test.cpp).
// The check returns an empty string when the properties hold, otherwise what was violated:
// - read_mlir never throws; it gives a graph or at least one error, every error has a message and
//   every range it has lies inside the text;
// - an accepted graph is written (to_mlir, no exception), and that text reads back to a graph
//   whose text is the same (write -> read -> write is a fixed point).
#pragma once
#include <cstdint>
#include <exception>
#include <optional>
#include <string>

#include <nnef/source.hpp>

#include "lowering/tosa/mlir.hpp"
#include "lowering/tosa/mlir_read.hpp"
#include "text_checks.hpp"

namespace nnef_fuzz {

// The text targets' tight limits (text_options()), so that no input costs more than milliseconds
// (docs/fuzzing.md); tensors of at most 2^20 items, splats of at most 4 MiB.
inline nnef::tosa::MlirReadOptions mlir_options() {
    nnef::tosa::MlirReadOptions o;
    o.limits = text_options().limits;
    o.limits.max_volume = std::uint64_t(1) << 20;
    o.max_splat_bytes = std::uint64_t(1) << 22;
    return o;
}

struct MlirRead {
    nnef::SourceManager sources;
    nnef::Diagnostics diags{8};
    std::optional<nnef::tosa::MlirModule> module;
    std::string failure;  // a violated property
};

// Reads `text`; `failure` names a violated property of reading.
inline void read_checked(MlirRead& r, const std::string& text) {
    const std::uint32_t file = r.sources.add("fuzz.mlir", text);
    try {
        r.module = nnef::tosa::read_mlir(r.sources, file, mlir_options(), r.diags);
    } catch (const std::exception& e) {
        r.failure = std::string("read_mlir threw: ") + e.what();
        return;
    }
    if (!r.module && !r.diags.has_errors()) r.failure = "no graph and no error";
    for (const nnef::Diagnostic& d : r.diags) {
        if (d.message.empty()) r.failure = "an error without a message";
        if (d.range.valid() && (d.range.file != file || d.range.begin > text.size() || d.range.end > text.size()))
            r.failure = "an error's range lies outside the text: " + d.message;
    }
}

inline std::string check_mlir_text(const std::uint8_t* data, std::size_t size) {
    MlirRead first;
    read_checked(first, std::string(reinterpret_cast<const char*>(data), size));
    if (!first.failure.empty() || !first.module) return first.failure;
    nnef::tosa::MlirOptions mo;
    mo.level = first.module->level;
    std::string once, twice;
    try {
        once = nnef::tosa::to_mlir(first.module->graph, mo);
    } catch (const std::exception& e) {
        return std::string("to_mlir threw on a graph read and validated: ") + e.what();
    }
    MlirRead second;
    read_checked(second, once);
    if (!second.failure.empty()) return "the written text: " + second.failure;
    if (!second.module) return "the written text does not read back: " + second.diags.list().front().message;
    try {
        twice = nnef::tosa::to_mlir(second.module->graph, mo);
    } catch (const std::exception& e) {
        return std::string("to_mlir threw on the graph read back: ") + e.what();
    }
    if (twice != once) return "write -> read -> write is not a fixed point";
    return {};
}

}  // namespace nnef_fuzz
