// nnef-validate: checks NNEF documents and models through parsing, type checking, expansion and
// shape inference, and prints a one-line summary of each valid graph.
#include <iostream>
#include <optional>
#include <sstream>

#include "../common/cli.hpp"
#include "../common/tensors.hpp"

namespace nnef::validate_main {

int run(int argc, char** argv) {
    cli::tune_allocator();
    cli::Tool tool({"nnef-validate", "PATH...",
                    "Validates NNEF models (a graph.nnef file, a model folder, or a .tar/.tgz archive) through every\n"
                    "front-end stage: syntax, semantics (types, declarations, identifiers), expansion and shape\n"
                    "inference; tensor files are checked when the model has them (the summary says whether).",
                    true});
    cli::add_front_end(tool.options, tool.common, {});
    tool.parse(argc, argv);
    cli::CommonOptions& opts = tool.common;
    int worst = cli::ok;
    cli::Json models = cli::Json::array();
    // A validator needs the graph's tensors, not its operations (kept only where weights or a
    // graph.quant are attached to them).
    opts.flatten.keep_operations = false;
    // The structure of a model stored graph-only is checked without values (the summary says so).
    opts.flatten.weights_optional = true;
    std::optional<Session> current;  // the last one is still alive at exit_now
    for (std::size_t pi = 0; pi < opts.paths.size(); ++pi) {
        const std::string& path = opts.paths[pi];
        current.reset();
        Session& session = current.emplace(opts.flatten);
        bool good = session.load_path(path);
        Diagnostics extra;
        if (good) {
            const auto& ops = session.custom_operations();
            const auto& sites = session.custom_operation_sites();  // the first use of each
            for (std::size_t i = 0; i < ops.size(); ++i)
                extra.warning(Stage::shape, "custom-operation",
                              "custom operation '" + ops[i] + "' has no shape function: shapes downstream of it are "
                              "unknown and the checks that need them are skipped",
                              i < sites.size() ? sites[i] : SourceRange{});
        }
        const Graph* g = session.graph();
        if (tool.json()) {
            cli::Json diags = tool.take_json(session.diagnostics(), session.sources());
            for (auto& d : tool.take_json(extra, session.sources())) diags.push_back(std::move(d));
            cli::Json entry = {{"path", path}, {"valid", good}, {"diagnostics", std::move(diags)}};
            if (good && g) {
                entry["graph"] = g->name;
                entry["weights"] = session.weights().summary();
                entry["operations"] = session.operation_count();
                entry["tensors"] = g->tensors.size();
                entry["inputs"] = cli::tensors_json(*g, g->inputs);
                entry["outputs"] = cli::tensors_json(*g, g->outputs);
            }
            models.push_back(std::move(entry));
        } else {
            tool.report(session.diagnostics(), session.sources());
            tool.report(extra, session.sources());
            if (good && g && !tool.quiet()) {
                std::ostringstream os;
                os << path << ": valid: graph '" << g->name << "', " << session.operation_count() << " operations, "
                   << g->tensors.size() << " tensors; inputs:";
                for (const std::string& n : g->inputs) os << ' ' << n << ' ' << cli::tensor_text(g->tensor(n));
                os << "; outputs:";
                for (const std::string& n : g->outputs) os << ' ' << n << ' ' << cli::tensor_text(g->tensor(n));
                os << "; " << session.weights().summary();
                std::cout << os.str() << "\n";
            }
        }
        int code = good ? cli::ok : cli::failure_code(session.diagnostics());
        worst = std::max(worst, code);
    }
    tool.document["models"] = std::move(models);
    tool.finish(worst);
}

}  // namespace nnef::validate_main

int main(int argc, char** argv) { return nnef::validate_main::run(argc, argv); }
