#include "mlir_input.hpp"

#include <fstream>
#include <set>
#include <sstream>

namespace nnef::cli {

tosa::MlirModule read_mlir_input(Tool& tool, const std::string& path, const std::string& profile, SourceManager& sources,
                                 bool name_interface) {
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
    if (!profile.empty()) o.profile = tosa::profile_named(profile);
    Diagnostics diags(o.limits.max_errors);
    std::optional<tosa::MlirModule> m = tosa::read_mlir(sources, file, o, diags);
    if (!m || diags.has_errors()) tool.fail(diags, sources);
    tool.report(diags, sources);
    if (name_interface) {
        std::set<std::string> names;
        for (const tosa::Value& v : m->graph.values) names.insert(v.name);
        tosa::Block& main = m->graph.main();
        for (const auto& [list, prefix] : {std::pair(&main.inputs, "input"), std::pair(&main.outputs, "output")})
            for (std::size_t i = 0; i < list->size(); ++i) {
                std::string& name = m->graph.values[(*list)[i]].name;
                if (!name.empty()) continue;
                std::string n = prefix + std::to_string(i);
                while (names.count(n)) n += "_";
                names.insert(n);
                name = n;
            }
    }
    return std::move(*m);
}

}  // namespace nnef::cli
