// nnef-flatten: expands an NNEF model into a flat document of atomic operations.
#include <iostream>

#include "../common/cli.hpp"

namespace nnef::flatten_main {

int run(int argc, char** argv) {
    cli::tune_allocator();
    cli::Tool tool({"nnef-flatten", "PATH",
                    "Prints the model (a graph.nnef file, a model folder, or a .tar/.tgz archive) as a flat NNEF\n"
                    "document: user fragments expanded, compile-time expressions evaluated, standard compounds kept\n"
                    "atomic unless --expand-all or --expand asks otherwise. The output re-validates and is a fixed\n"
                    "point."});
    cli::FrontEnd front;
    front.output = front.shapes = front.expand = true;
    front.format_help = "(the flat document is a member of it, or goes to -o FILE)";
    front.output_help = "(the flat document)";
    cli::add_front_end(tool.options, tool.common, front);
    tool.parse(argc, argv);
    cli::CommonOptions& opts = tool.common;
    opts.flatten.weights_optional = true;  // the flat document of a model stored graph-only needs no values
    Session session(opts.flatten);
    const std::string& path = opts.paths.front();
    const bool good = session.load_path(path);
    tool.document["path"] = path;
    tool.document["valid"] = good;
    tool.report(session.diagnostics(), session.sources());
    if (!good) tool.finish(cli::failure_code(session.diagnostics()));
    if (tool.json() && (opts.output.empty() || opts.output == "-")) {
        tool.document["output"] = nullptr;
        tool.document["document"] = session.flat_text(opts.shapes);
        tool.finish(cli::ok);
    }
    if (!cli::write_output(opts.output, session.flat_text(opts.shapes), tool)) tool.finish(cli::usage);
    tool.document["output"] = opts.output;
    tool.finish(cli::ok);
}

}  // namespace nnef::flatten_main

int main(int argc, char** argv) { return nnef::flatten_main::run(argc, argv); }
