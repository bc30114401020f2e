// A model loaded and lowered to TOSA for the MLIR tests, with its diagnostics kept for messages.
#pragma once
#include <filesystem>
#include <memory>
#include <optional>
#include <string>

#include <nnef/nnef.hpp>

#include "lowering/tosa/from_nnef.hpp"

namespace nnef_test {

struct LoweredModel {
    nnef::Session session;
    nnef::Diagnostics diags;
    std::optional<nnef::tosa::Graph> graph;
};

// Loads and lowers a model at `profile` (with pseudo-random weights from `seed` when given;
// LowerOptions::bias_on_accumulator_grid as given).
inline std::unique_ptr<LoweredModel> lower_model(const std::filesystem::path& model, std::optional<std::uint64_t> seed,
                                                 nnef::tosa::Profile profile = nnef::tosa::Profile::pro_fp,
                                                 bool bias_on_accumulator_grid = false) {
    nnef::FlattenOptions fo;
    if (seed) fo.load_weights = false;
    auto l = std::make_unique<LoweredModel>();
    l->session = nnef::Session(fo);
    if (!l->session.load_path(model.string())) return l;
    nnef::tosa::LowerOptions lo;
    lo.profile = profile;
    lo.random_weights = seed;
    lo.bias_on_accumulator_grid = bias_on_accumulator_grid;
    l->graph = nnef::tosa::lower_to_tosa(*l->session.graph(), lo, l->diags);
    return l;
}

// Every diagnostic of the load and of the lowering, rendered.
inline std::string rendered(const LoweredModel& l) {
    std::string s;
    for (const auto& d : l.session.diagnostics()) s += nnef::render(d, l.session.sources());
    for (const auto& d : l.diags) s += nnef::render(d, l.session.sources());
    return s;
}

}  // namespace nnef_test
