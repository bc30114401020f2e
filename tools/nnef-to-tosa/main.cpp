// nnef-to-tosa: lowers a model to TOSA 1.0.1 (lowering/tosa/from_nnef.hpp) and writes it as MLIR
// `tosa` dialect text, as JSON, or as the readable text dump.
#include <cstdlib>
#include <iostream>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "../common/cli.hpp"
#include "../common/mlir_input.hpp"
#include "../common/nnapi_input.hpp"
#include "lowering/tosa/from_nnef.hpp"
#include "lowering/tosa/json.hpp"
#include "lowering/tosa/mlir.hpp"
#include "lowering/tosa/validator.hpp"

namespace nnef::to_tosa_main {

const char* const description =
    "Lowers the model (a folder, a .tar or .tgz archive, or a graph.nnef file) to a TOSA 1.0.1 operator graph\n"
    "and writes it: as MLIR `tosa` dialect text (default; one public func.func named after the graph whose\n"
    "arguments and results are the graph's inputs and outputs, with NNEF's shapes and layout; MLIR's\n"
    "mlir-opt --tosa-validate=\"profile=... strict-op-spec-alignment\" accepts it, docs/tosa.md), as JSON\n"
    "(docs/tosa.md; with the tool's schema_version and diagnostics, docs/json.md), or as a readable text\n"
    "dump. The graph is checked after every lowering step (--verify-each), and validated at the end (the\n"
    "profile's data types, the level's limits, every ERROR_IF of the specification). A quantized model\n"
    "(graph.quant) is lowered at PRO-INT unless --profile says otherwise, as in nnef-to-vpu and nnef-run\n"
    "--via tosa; a note on stderr says which.\n"
    "\n"
    "FILE.mlir (TOSA 1.0 MLIR text of any producer, generic or pretty form; docs/tosa.md) is read instead\n"
    "of lowered, validated, and written back in the chosen format (its profile: the file's tosa.target_env,\n"
    "else PRO-INT for a graph with RESCALE or 8/16-bit integer tensors; --profile overrides it).\n"
    "\n"
    "NNAPI.json (an Android NNAPI 1.0 model in the JSON form of nnef-to-nnapi, recognised by its content;\n"
    "docs/nnapi.md) is validated, lowered by the NNAPI lowering (PRO-FP for float32, PRO-INT for quant8,\n"
    "whose inputs and outputs hold NNAPI's uint8 codes) and written in the chosen format.";

// FILE.mlir (read and validated) or an NNAPI model (lowered by nnapi::to_tosa and validated),
// written in the chosen format (without locations: the input's lines are not NNEF's).
[[noreturn]] void write_tosa_input(cli::Tool& tool, const tosa::MlirModule& m, const SourceManager& sources, const std::string& level,
                                   bool no_weights, bool resource_blobs) {
    const cli::CommonOptions& opts = tool.common;
    if (opts.format == "mlir") {
        tosa::MlirOptions mo;
        mo.level = level == "none" ? tosa::Level::none() : m.level;
        mo.elide_weights = no_weights;
        mo.resource_blobs = resource_blobs;
        const bool written = cli::write_output(opts.output, [&](std::ostream& os) { tosa::write_mlir(os, m.graph, mo); }, tool);
        tool.finish(written ? cli::ok : cli::usage);
    }
    if (opts.format == "text") {
        const bool written = cli::write_output(opts.output, tosa::to_text(m.graph, &sources, no_weights ? 0 : 8), tool);
        tool.finish(written ? cli::ok : cli::usage);
    }
    tosa::JsonOptions jo;
    jo.elide_weights = no_weights;
    jo.sources = &sources;
    cli::Json graph = tosa::to_json(m.graph, jo);
    for (auto it = graph.begin(); it != graph.end(); ++it) tool.document[it.key()] = std::move(it.value());
    if (!cli::write_output(opts.output, tool.full_document(cli::ok).dump(1) + "\n", tool)) tool.finish(cli::usage);
    tool.document_written();
    tool.finish(cli::ok);
}

int run(int argc, char** argv) {
    cli::Tool tool({"nnef-to-tosa", "MODEL|FILE.mlir|NNAPI.json", description, false,
                    "0 success, 1 invalid model or a model without a TOSA form (diagnostics printed), 2 usage or\n"
                    "I/O error"});
    cli::FrontEnd front;
    front.formats = {"mlir", "json", "text"};
    front.output = true;
    front.no_weights = false;
    front.output_help = "(the graph; with --format json the JSON document)";
    cli::add_front_end(tool.options, tool.common, front);
    cli::LoweringChoice lowering;
    std::string level = "8k";
    std::optional<std::uint64_t> random_weights;
    bool no_weights = false, resource_blobs = false, verify_each = true;
    std::set<std::string> print_after;
    cli::Options& o = tool.options;
    o.shared("--no-weights", cli::set_flag(no_weights), "",
             "(large constants written as dense_resource<__elided__> (MLIR) or \"elided\"\n(JSON); pseudo-random weights stand in for the lowering)");
    o.shared("--random-weights", cli::set_optional_uint(random_weights), "", "(the same values as nnef-run --random-weights SEED)");
    cli::add_lowering_options(o, lowering, "(FILE.mlir: instead of the file's own; NNAPI.json: must be the\nmodel's)");
    o.shared("--verify-each", cli::set_flag(verify_each), "on");
    o.shared("--no-verify-each", cli::set_flag(verify_each, false));
    std::string passes = "legalize-nnef-to-tosa";
    for (const std::string& n : tosa::layout_pipeline(tosa::LowerOptions{}).names()) passes += ", " + n;
    o.shared("--print-after", [&print_after, passes](const std::string& v) -> std::optional<std::string> {
        if (v != "all" && (", " + passes + ", ").find(", " + v + ", ") == std::string::npos)
            return "names no pass '" + v + "' (passes: " + passes + ")";
        print_after.insert(v);
        return std::nullopt;
    }, passes);
    const char* section = "lowering";
    o.add({"--no-verify", "", "", "the same as --no-verify-each", section, cli::set_flag(verify_each, false)});
    o.add({"--level", "", "8k|none", "the TOSA level whose limits the graph must keep (default 8k)", section,
           cli::set_choice(level, {"8k", "8K", "none"})});
    o.add({"--resource-blobs", "", "", "MLIR: large constants as dense_resource blobs in the file's\n"
           "dialect_resources section instead of inline dense<\"0x...\"> data", section, cli::set_flag(resource_blobs)});
    tool.parse(argc, argv);
    const cli::CommonOptions& opts = tool.common;
    if (cli::is_nnapi_json(opts.paths.front())) {
        // An NNAPI model: its operand types pick the profile, its constants are its weights.
        if (random_weights || !print_after.empty() || !lowering.bias_grid.empty())
            tool.usage_error("--random-weights, --bias-grid and --print-after apply to lowering an NNEF MODEL; an NNAPI model "
                             "has its constants and is lowered by the NNAPI lowering (docs/nnapi.md)");
        cli::NnapiInput in = cli::read_nnapi_input(tool, opts.paths.front(), true);
        if (!lowering.profile.empty() && *tosa::profile_named(lowering.profile) != in.module.graph.profile)
            tool.usage_error("--profile " + lowering.profile + ": an NNAPI model's profile is its operand types' (PRO-INT for "
                             "TENSOR_QUANT8_ASYMM, PRO-FP for TENSOR_FLOAT32), here " +
                             (in.module.graph.profile == tosa::Profile::pro_int ? std::string("pro-int") : std::string("pro-fp")));
        write_tosa_input(tool, in.module, SourceManager(), level, no_weights, resource_blobs);
    }
    if (tosa::is_mlir_path(opts.paths.front())) {
        if (!lowering.bias_grid.empty())
            tool.usage_error("--bias-grid says how an NNEF model's convolutions are lowered; FILE.mlir is TOSA already");
        SourceManager sources;
        const tosa::MlirModule m = cli::read_mlir_input(tool, opts.paths.front(), lowering.profile, sources);
        write_tosa_input(tool, m, sources, level, no_weights, resource_blobs);
    }

    // Without stored weights the lowering still needs values for the variables: pseudo-random ones
    // (elided from the output with --no-weights).
    if (no_weights && !random_weights) random_weights = 0;
    FlattenOptions flatten = opts.flatten;
    if (random_weights) flatten.load_weights = false;
    Session session(flatten);
    const std::string& path = opts.paths.front();
    if (!session.load_path(path)) tool.fail(session.diagnostics(), session.sources());
    tool.report(session.diagnostics(), session.sources());

    tosa::LowerOptions lo;
    cli::apply_lowering_choice(tool, lowering, *session.graph(), true, lo);
    lo.level = level == "none" ? tosa::Level::none() : tosa::Level::eight_k();
    lo.verify_each = verify_each;
    lo.random_weights = random_weights;
    lo.print_after = print_after;
    lo.print = [](const std::string& pass, const std::string& text) { std::cerr << "// after " << pass << "\n" << text << "\n"; };
    Diagnostics diags;
    std::optional<tosa::Graph> g = tosa::lower_to_tosa(*session.graph(), lo, diags);
    if (g && !diags.has_errors()) {
        // The validator on the result (the profile's data types, the level's limits, every
        // ERROR_IF), allowing the extensions the graph needs (those the MLIR target names).
        tosa::ValidateOptions vo;
        vo.profile = lo.profile;
        vo.level = lo.level;
        vo.extensions = tosa::validation_extensions(*g);
        tosa::validate(*g, vo, diags);
    }
    tool.report(diags, session.sources());
    if (!g || diags.has_errors()) tool.finish(cli::invalid);

    if (opts.format == "mlir") {
        tosa::MlirOptions mo;
        mo.level = lo.level;
        mo.elide_weights = no_weights;
        mo.resource_blobs = resource_blobs;
        mo.sources = &session.sources();
        // Written as it is made: the weights of a large model are hundreds of MB of text.
        const bool written = cli::write_output(opts.output, [&](std::ostream& os) { tosa::write_mlir(os, *g, mo); }, tool);
        tool.finish(written ? cli::ok : cli::usage);
    }
    if (opts.format == "text") {
        const bool written = cli::write_output(opts.output, tosa::to_text(*g, &session.sources(), no_weights ? 0 : 8), tool);
        tool.finish(written ? cli::ok : cli::usage);
    }
    // JSON: the graph document (docs/tosa.md) is the tool's document: its members, then
    // schema_version, tool, exit_status and diagnostics (docs/json.md).
    tosa::JsonOptions jo;
    jo.elide_weights = no_weights;
    jo.sources = &session.sources();
    cli::Json graph = tosa::to_json(*g, jo);
    for (auto it = graph.begin(); it != graph.end(); ++it) tool.document[it.key()] = std::move(it.value());
    if (!cli::write_output(opts.output, tool.full_document(cli::ok).dump(1) + "\n", tool)) tool.finish(cli::usage);
    tool.document_written();
    tool.finish(cli::ok);
}

}  // namespace nnef::to_tosa_main

int main(int argc, char** argv) { return nnef::to_tosa_main::run(argc, argv); }
