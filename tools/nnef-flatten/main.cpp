// nnef-flatten: expands an NNEF model into a flat document of atomic operations.
#include <iostream>

#include "../common/cli.hpp"

namespace nnef::flatten_main {

int run(int argc, char** argv) {
    cli::ToolSpec spec{"nnef-flatten", "PATH",
                       "Prints the model (a graph.nnef file or a model folder) as a flat NNEF document: user fragments\n"
                       "expanded, compile-time expressions evaluated, standard compounds kept atomic unless\n"
                       "--expand-all or --expand asks otherwise. The output re-validates and is a fixed point.",
                       false, true, true, true};
    cli::CommonOptions opts;
    cli::tune_allocator();
    int rc = cli::parse_args(argc, argv, spec, opts);
    if (rc >= 0) return rc;
    opts.flatten.weights_optional = true;  // the flat document of a model stored graph-only needs no values
    Session session(opts.flatten);
    bool good = session.load_path(opts.paths.front());
    if (opts.json) {
        std::cerr << cli::diagnostics_json(session.diagnostics(), session.sources()) << "\n";
    } else {
        cli::print_diagnostics(std::cerr, session.diagnostics(), session.sources());
    }
    if (!good) cli::exit_now(cli::failure_code(session.diagnostics()));
    if (!cli::write_output(opts.output, session.flat_text(opts.shapes), spec.name)) cli::exit_now(cli::usage);
    cli::exit_now(cli::ok);
}

}  // namespace nnef::flatten_main

int main(int argc, char** argv) { return nnef::flatten_main::run(argc, argv); }
