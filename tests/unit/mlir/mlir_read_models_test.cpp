// The MLIR reader on our own MLIR of every sample and corpus model (PRO-FP, and PRO-INT where a
// model lowers so), and on what MLIR 22's mlir-opt prints from it in the generic form
// (--mlir-print-op-generic) and the pretty form: our text reads back to the same text
// (write -> read -> write identical), and mlir-opt's prints read to the same graph (the same text
// once the SSA names, which mlir-opt renumbers, are set aside).
//
// Constants above 4096 items are zeroed before writing (written as splats), so that the large
// models' files stay small; the samples keep their pseudo-random weights and so every constant's
// data goes through the hexadecimal form.
#include <doctest/doctest.h>

#include <algorithm>
#include <map>
#include <regex>
#include <string>
#include <vector>

#include <nnef/source.hpp>

#include "lowered_model.hpp"
#include "lowering/tosa/mlir_read.hpp"
#include "mlir_support.hpp"

namespace {

using namespace nnef::tosa;
using namespace nnef_test;
namespace fs = std::filesystem;

void zero_large_constants(Graph& g) {
    for (Block& b : g.blocks)
        for (Op& op : b.ops)
            for (auto& [name, a] : op.attrs)
                if (auto* c = std::get_if<ConstPtr>(&a); c && *c && (*c)->type.volume() > 4096)
                    *c = ConstData::allocate((*c)->type);
}

struct ReadBack {
    nnef::SourceManager sources;
    nnef::Diagnostics diags;
    std::optional<MlirModule> module;
    std::string errors;
};

std::unique_ptr<ReadBack> read_back(const std::string& text, const std::string& name) {
    auto r = std::make_unique<ReadBack>();
    const std::uint32_t f = r->sources.add(name, text);
    r->module = read_mlir(r->sources, f, {}, r->diags);
    for (const auto& d : r->diags) r->errors += nnef::render(d, r->sources, false) + "\n";
    return r;
}

// The text with every SSA name replaced by its rank of first appearance (%v0, %v1, ...).
std::string without_names(const std::string& text) {
    static const std::regex name("%[A-Za-z0-9_$.\\-]+");
    std::map<std::string, std::string> seen;
    std::string out;
    auto at = text.cbegin();
    for (std::sregex_iterator it(text.begin(), text.end(), name), end; it != end; ++it) {
        out.append(at, (*it)[0].first);
        auto [pos, fresh] = seen.emplace(it->str(), "%v" + std::to_string(seen.size()));
        out += pos->second;
        at = (*it)[0].second;
    }
    out.append(at, text.cend());
    return out;
}

struct Model {
    fs::path path;
    Profile profile;
};

std::vector<Model> models() {
    std::vector<Model> out;
    std::vector<fs::path> paths;
    for (const char* s : {"classifier", "composite", "quantized", "recurrent"}) paths.push_back(source_dir() / "samples" / s);
    if (have_corpus())
        for (const char* dir : {"real", "quantized"}) {
            std::vector<fs::path> found;
            for (const auto& e : fs::directory_iterator(corpus_dir() / dir)) found.push_back(e.path());
            std::sort(found.begin(), found.end());
            paths.insert(paths.end(), found.begin(), found.end());
        }
    for (const fs::path& p : paths)
        for (Profile profile : {Profile::pro_fp, Profile::pro_int}) out.push_back({p, profile});
    return out;
}

}  // namespace

TEST_SUITE("mlir") {
    TEST_CASE("mlir-read: our MLIR of every sample and corpus model reads back to the same text, and mlir-opt's generic and pretty prints of it read to the same graph") {
        if (!have_corpus()) NNEF_SKIP_PART("corpus not found at " << corpus_dir().string() << ": samples only");
        const bool opt = have_mlir_opt();
        if (!opt) NNEF_SKIP_PART("mlir-opt not found at " << mlir_opt().string() << ": our own files only");
        std::size_t same = 0, generic = 0, pretty = 0;
        std::string not_lowered;
        for (const Model& m : models()) {
            const std::string label = m.path.filename().string() + (m.profile == Profile::pro_int ? " (PRO-INT)" : "");
            CAPTURE(label);
            auto l = lower_model(m.path, 1, m.profile);
            if (!l->graph || l->diags.has_errors()) {
                not_lowered += " " + label;  // the lowering's own tests judge these
                continue;
            }
            zero_large_constants(*l->graph);
            const std::string text = to_mlir(*l->graph);
            auto ours = read_back(text, label + ".mlir");
            INFO(ours->errors);
            REQUIRE(ours->module);
            CHECK(ours->module->graph.profile == m.profile);
            const std::string again = to_mlir(ours->module->graph);
            CHECK(again == text);
            same += again == text;
            if (!opt) continue;
            const fs::path file = mlir_scratch("read-models.mlir");
            write_file(file, text);
            for (const bool generic_form : {true, false}) {
                const CommandResult printed =
                    run_command(mlir_quote(mlir_opt().string()) + (generic_form ? " --mlir-print-op-generic " : " ") + mlir_quote(file.string()));
                REQUIRE_MESSAGE(printed.code == 0, printed.err.substr(0, 2000));
                auto theirs = read_back(printed.out, label + (generic_form ? ".generic.mlir" : ".pretty.mlir"));
                INFO(theirs->errors);
                REQUIRE(theirs->module);
                const bool equal = without_names(to_mlir(theirs->module->graph)) == without_names(text);
                CHECK_MESSAGE(equal, (generic_form ? "generic" : "pretty") << " form reads to another graph");
                (generic_form ? generic : pretty) += equal;
            }
        }
        MESSAGE(same << " files read back to the same text, " << generic << " generic and " << pretty
                     << " pretty prints of mlir-opt to the same graph; not lowered:" << not_lowered);
        CHECK(same >= 5);
    }
}
