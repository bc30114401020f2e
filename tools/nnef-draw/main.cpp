// nnef-draw: draws a model's graph (tools/draw: the picture model, DOT, Graphviz layout):
// operations as nodes, tensors as labelled edges, compound-fragment invocations as nested
// clusters. docs/draw.md.
#include <iostream>
#include <set>
#include <sstream>

#include <nnef/draw/html.hpp>
#include <nnef/draw/picture.hpp>
#include <nnef/draw/render.hpp>

#include "../common/cli.hpp"

namespace nnef::draw_main {

const char* const description =
    "Draws the model (a folder, a .tar or .tgz archive, or a graph.nnef file): operations as nodes,\n"
    "tensors as edges labelled with dtype and shape (and quantization), graph inputs, outputs,\n"
    "variables (with shape and bytes) and constants drawn distinctly, and each invocation of a\n"
    "compound fragment as a cluster that holds the operations of its body, nested as the fragments\n"
    "call each other. A collapsed invocation is drawn as one node named after its fragment; by\n"
    "default every invocation is collapsed (the graph as written); --depth N opens those nested less\n"
    "than N deep, --expand NAME,... every invocation of those fragments (and the invocations around\n"
    "them; a standard compound NAME is expanded from its body first), --expand-all everything.\n"
    "\n"
    "An invalid model is drawn as far as it parsed and checked: the operation where the first error\n"
    "sits is marked with the diagnostic's text (or the error is drawn on its own), the diagnostics\n"
    "are printed as usual and the tool exits with 1, but the picture is written.\n"
    "\n"
    "Formats: dot (Graphviz text, for other tools), svg and png (laid out here by Graphviz's\n"
    "libraries), json (the tool's JSON document with the picture, docs/draw.md), html (one\n"
    "self-contained page: pan and zoom, search, the selected operation's details, fragments that\n"
    "open and close in place; --lowering adds the TOSA graph and the VPU schedule beside it). The\n"
    "format comes from --format, else from the extension of -o FILE (.dot .gv .svg .png .json\n"
    ".html), else dot.";

int run(int argc, char** argv) {
    cli::tune_allocator();
    const std::string limit = std::to_string(draw::max_layout_items);
    cli::Tool tool({"nnef-draw", "MODEL", description, false,
                    "0 success, 1 invalid input (diagnostics printed; the picture is written), 2 usage or I/O error",
                    "Limits: svg, png and html are laid out for at most " + limit +
                        " drawn nodes (operations, endpoints and collapsed\n"
                        "invocations); a larger picture is refused as a usage error (write dot or json, or draw\n"
                        "less with a smaller --depth). The page opens fragments while at most " +
                        std::to_string(draw::max_page_items) + " nodes are drawn."});
    cli::FrontEnd front;
    front.formats = {"dot", "svg", "png", "json", "html"};
    front.format_help = "(default: from the extension of -o FILE)";
    front.output = true;
    front.output_help = "(the picture; its extension gives the format when --format is not given)";
    front.expand = true;
    cli::add_front_end(tool.options, tool.common, front);
    std::uint64_t depth = 0;
    bool no_shapes = false;
    tool.options.add({"--depth", "", "N",
                      "open the invocations nested less than N deep (default 0: the graph\nas written; 1: the fragments the graph calls, ...)",
                      "picture", cli::set_uint(depth)});
    tool.options.add({"--no-shapes", "", "", "no dtype and shape labels on the edges", "picture", cli::set_flag(no_shapes)});
    bool lowering = false;
    tool.options.add({"--lowering", "", "",
                      "(html) also the model's TOSA graph and VPU schedule, linked to the NNEF\noperations they came from",
                      "picture", cli::set_flag(lowering)});
    tool.parse(argc, argv);
    cli::CommonOptions& opts = tool.common;
    const std::string& path = opts.paths.front();

    // The format: --format, else the extension of -o FILE, else dot.
    std::string format = opts.format;
    if (!opts.format_given) {
        format = "dot";
        if (!opts.output.empty() && opts.output != "-") {
            const std::optional<std::string> f = draw::format_from_extension(opts.output);
            if (!f) tool.usage_error("cannot tell the format from the file name '" + opts.output + "' (use --format dot|svg|png|json|html)");
            format = *f;
        }
        opts.format = format;
    }
    if (lowering && format != "html") tool.usage_error("--lowering applies to the html format");
    if (format == "html" && !draw::html_available()) tool.usage_error(draw::html_unavailable_reason());

    FlattenOptions& flatten = opts.flatten;
    flatten.weights_optional = true;
    flatten.keep_partial = true;
    draw::PictureOptions po;
    po.depth = static_cast<std::size_t>(depth);
    po.expand_all = flatten.expand_all;
    po.expand.insert(flatten.expand.begin(), flatten.expand.end());

    Session session(flatten);
    const bool good = session.load_path(path);
    const int code = good ? cli::ok : cli::failure_code(session.diagnostics());
    // A model that cannot be read at all has nothing to draw.
    if (code == cli::usage) tool.fail(session.diagnostics(), session.sources());
    tool.report(session.diagnostics(), session.sources());
    const draw::Picture picture = draw::build_picture(session, path, po);

    if (format == "json") {
        tool.document["picture"] = cli::Json::parse(draw::picture_to_json(picture));
        if (!opts.output.empty() && opts.output != "-") {
            if (!cli::write_output(opts.output, tool.full_document(code).dump() + "\n", tool)) tool.finish(cli::usage);
            tool.document_written();
        }
        tool.finish(code);
    }
    if (format == "html") {
        draw::PageOptions page;
        page.lowering = lowering;
        page.lowering_graph = good ? session.graph() : nullptr;
        page.sources = &session.sources();
        page.lowering_options.title = picture.model;
        std::string html, error;
        if (!draw::draw_page(picture, page, html, error)) tool.usage_error(error);
        if (!cli::write_output(opts.output, html, tool)) tool.finish(cli::usage);
        tool.finish(code);
    }
    draw::DotOptions dot_options;
    dot_options.shapes = !no_shapes;
    std::string out, error;
    if (!draw::draw(picture, format, dot_options, out, error)) {
        tool.error("usage", error);
        tool.finish(cli::usage);
    }
    if (!cli::write_output(opts.output, out, tool)) tool.finish(cli::usage);
    tool.finish(code);
}

}  // namespace nnef::draw_main

int main(int argc, char** argv) { return nnef::draw_main::run(argc, argv); }
