// The options a user names (from_nnef.hpp): the default profile's rule and the names of the
// profiles and of the bias grids, shared by the tools' --profile / --bias-grid and the Python package.
#include "lowering/tosa/from_nnef.hpp"

namespace nnef::tosa {

Profile default_profile(const nnef::Graph& model, bool quantization) {
    return quantization && from_nnef::is_quantized(model) ? Profile::pro_int : Profile::pro_fp;
}

std::optional<Profile> profile_named(std::string_view name) {
    if (name == "pro-fp") return Profile::pro_fp;
    if (name == "pro-int") return Profile::pro_int;
    return std::nullopt;
}

std::optional<bool> bias_on_accumulator_grid_named(std::string_view name) {
    if (name == "fine") return false;
    if (name == "accumulator") return true;
    return std::nullopt;
}

}  // namespace nnef::tosa
