#include "mlir_input.hpp"

#include <fstream>
#include <sstream>

namespace nnef::cli {

tosa::MlirModule read_mlir_input(Tool& tool, const std::string& path, const std::string& profile, SourceManager& sources) {
    std::ifstream f(path, std::ios::binary);
    std::ostringstream ss;
    if (f) ss << f.rdbuf();
    if (!f || f.bad()) {
        tool.error("io", "cannot read the MLIR file", path);
        tool.finish(usage);
    }
    const std::uint32_t file = sources.add(path, std::move(ss).str());
    tosa::MlirReadOptions o;
    o.limits = tool.common.flatten.options.limits;
    if (!profile.empty()) o.profile = profile == "pro-int" ? tosa::Profile::pro_int : tosa::Profile::pro_fp;
    Diagnostics diags(o.limits.max_errors);
    std::optional<tosa::MlirModule> m = tosa::read_mlir(sources, file, o, diags);
    if (!m || diags.has_errors()) tool.fail(diags, sources);
    tool.report(diags, sources);
    return std::move(*m);
}

}  // namespace nnef::cli
