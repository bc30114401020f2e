// nnef-to-tosa: lowers a model to TOSA 1.0.1 (lowering/tosa/from_nnef.hpp) and writes it as MLIR
// `tosa` dialect text, as JSON, or as the readable text dump.
#include <cstdlib>
#include <iostream>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "../common/cli.hpp"
#include "lowering/tosa/from_nnef.hpp"
#include "lowering/tosa/json.hpp"
#include "lowering/tosa/mlir.hpp"
#include "lowering/tosa/validator.hpp"

namespace nnef::to_tosa_main {

const char* const description =
    "Lowers the model (a folder, a .tar or .tgz archive, or a graph.nnef file) to a TOSA 1.0.1 operator graph\n"
    "and writes it: as MLIR `tosa` dialect text (default; one public func.func named after the graph whose\n"
    "arguments and results are the graph's inputs and outputs, with NNEF's shapes and layout; MLIR's\n"
    "mlir-opt --tosa-validate accepts it), as JSON (docs/tosa.md), or as a readable text dump. The graph is\n"
    "checked after every lowering step, and validated at the end (the profile's data types, the level's\n"
    "limits, every ERROR_IF of the specification).\n"
    "\n"
    "lowering options:\n"
    "  --format mlir|json|text  output format (default mlir); diagnostics are always text on stderr\n"
    NNEF_CLI_PROFILE_HELP
    "  --level 8k|none          the TOSA level whose limits the graph must keep (default 8k)\n"
    "  --random-weights SEED    variables get pseudo-random values (the same as nnef-run --random-weights\n"
    "                           SEED) instead of stored data; no tensor files are read\n"
    "  --no-weights             write the structure only: large constants as dense_resource<__elided__>\n"
    "                           (MLIR) or \"elided\" (JSON); no tensor files are read\n"
    "  --resource-blobs         MLIR: large constants as dense_resource blobs in the file's\n"
    "                           dialect_resources section instead of inline dense<\"0x...\"> data\n"
    "  --no-verify              check the graph's structure only at the end, not after every lowering step\n"
    "\n"
    "exit status: 0 success, 1 invalid model or a model without a TOSA form (diagnostics printed), 2 usage or\n"
    "I/O error";

struct ToTosaOptions {
    enum class Format { mlir, json, text } format = Format::mlir;
    tosa::Profile profile = tosa::Profile::pro_fp;
    bool level_none = false;
    std::optional<std::uint64_t> random_weights;
    bool no_weights = false;
    bool resource_blobs = false;
    bool verify_each = true;
};

[[noreturn]] void usage_error(const std::string& message) {
    std::cerr << "nnef-to-tosa: error: " << message << "\nusage: nnef-to-tosa [options] MODEL\n(try --help)\n";
    cli::exit_now(cli::usage);
}

// Takes this tool's options out of argv; the rest goes to the common parser.
std::vector<char*> take_options(int argc, char** argv, ToTosaOptions& t) {
    std::vector<char*> rest{argv[0]};
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        const std::string key = a.substr(0, a.find('='));
        if (a == "--no-weights") {
            t.no_weights = true;
            continue;
        }
        if (a == "--resource-blobs" || a == "--no-verify") {
            (a == "--resource-blobs" ? t.resource_blobs : t.verify_each) = a == "--resource-blobs";
            continue;
        }
        static const std::set<std::string> keys = {"--format", "--profile", "--level", "--random-weights"};
        if (!keys.count(key)) {
            rest.push_back(argv[i]);
            continue;
        }
        std::string v;
        if (a.size() > key.size()) {
            v = a.substr(key.size() + 1);
        } else {
            if (i + 1 >= argc) usage_error("option '" + key + "' needs a value");
            v = argv[++i];
        }
        if (key == "--format") {
            if (v == "mlir") t.format = ToTosaOptions::Format::mlir;
            else if (v == "json") t.format = ToTosaOptions::Format::json;
            else if (v == "text") t.format = ToTosaOptions::Format::text;
            else usage_error("unknown format '" + v + "' (use mlir, json or text)");
        } else if (key == "--profile") {
            const auto p = cli::parse_profile(v);
            if (!p) usage_error("unknown profile '" + v + "' (use pro-fp or pro-int)");
            t.profile = *p;
        } else if (key == "--level") {
            if (v == "8k" || v == "8K") t.level_none = false;
            else if (v == "none") t.level_none = true;
            else usage_error("unknown level '" + v + "' (use 8k or none)");
        } else if (key == "--random-weights") {
            if (v.empty() || v.size() > 19 || v.find_first_not_of("0123456789") != std::string::npos)
                usage_error("--random-weights needs a non-negative integer seed, not '" + v + "'");
            t.random_weights = std::stoull(v);
        }
    }
    return rest;
}

int run(int argc, char** argv) {
    ToTosaOptions t;
    std::vector<char*> rest = take_options(argc, argv, t);
    cli::ToolSpec spec{"nnef-to-tosa", "MODEL", description, false, true, false, false};
    cli::CommonOptions opts;
    const int rc = cli::parse_args(static_cast<int>(rest.size()), rest.data(), spec, opts);
    if (rc >= 0) return rc;

    // Without stored weights the lowering still needs values for the variables: pseudo-random ones
    // (elided from the output with --no-weights).
    if (t.no_weights && !t.random_weights) t.random_weights = 0;
    if (t.random_weights) opts.flatten.load_weights = false;
    Session session(opts.flatten);
    const std::string& path = opts.paths.front();
    if (!session.load_path(path)) {
        cli::print_diagnostics(std::cerr, session.diagnostics(), session.sources());
        cli::exit_now(cli::failure_code(session.diagnostics()));
    }
    cli::print_diagnostics(std::cerr, session.diagnostics(), session.sources());

    tosa::LowerOptions lo;
    lo.profile = t.profile;
    lo.level = t.level_none ? tosa::Level::none() : tosa::Level::eight_k();
    lo.verify_each = t.verify_each;
    lo.random_weights = t.random_weights;
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
    cli::print_diagnostics(std::cerr, diags, session.sources());
    if (!g || diags.has_errors()) cli::exit_now(cli::invalid);

    std::string text;
    switch (t.format) {
        case ToTosaOptions::Format::mlir: {
            tosa::MlirOptions mo;
            mo.level = lo.level;
            mo.elide_weights = t.no_weights;
            mo.resource_blobs = t.resource_blobs;
            mo.sources = &session.sources();
            // Written as it is made: the weights of a large model are hundreds of MB of text.
            const bool written = cli::write_output(opts.output, [&](std::ostream& os) { tosa::write_mlir(os, *g, mo); }, "nnef-to-tosa");
            cli::exit_now(written ? cli::ok : cli::usage);
            break;
        }
        case ToTosaOptions::Format::json: {
            tosa::JsonOptions jo;
            jo.elide_weights = t.no_weights;
            jo.sources = &session.sources();
            text = tosa::to_json(*g, jo).dump(1) + "\n";
            break;
        }
        case ToTosaOptions::Format::text: text = tosa::to_text(*g, &session.sources(), t.no_weights ? 0 : 8); break;
    }
    if (!cli::write_output(opts.output, text, "nnef-to-tosa")) cli::exit_now(cli::usage);
    cli::exit_now(cli::ok);
}

}  // namespace nnef::to_tosa_main

int main(int argc, char** argv) { return nnef::to_tosa_main::run(argc, argv); }
