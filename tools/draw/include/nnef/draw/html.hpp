// The nnef-draw HTML page (docs/draw.md, HTML page): one self-contained, offline file that shows a
// picture document (the JSON of docs/draw.md, Picture document) with pan and zoom, search by name,
// a side panel for the selected operation, fragments that collapse and expand in place, and with a
// "lowering" member the TOSA graph and the VPU schedule beside it. The JavaScript libraries
// (cytoscape.js with cytoscape-dagre) are inlined from the npm packages pinned at build time.
#pragma once
#include <cstddef>
#include <ostream>
#include <string>

#include <nnef/draw/lowering.hpp>
#include <nnef/graph.hpp>
#include <nnef/source.hpp>

namespace nnef::draw {

struct Picture;

// Whether this build carries the page's JavaScript; when not, why (e.g. "npm was not found when this
// build was configured").
bool html_available();

// The most nodes the page lays out in the browser (drawn nodes: operations, endpoints, collapsed
// invocations) when a fragment is opened or closed. Its dagre layout grows faster than linearly:
// 1500 nodes took 42 s in Chromium on the project's loaded machine. The page refuses to open
// fragments past it.
constexpr std::size_t max_page_items = 1500;
// Above this many drawn nodes the page's first view is laid out here, by Graphviz as for svg
// (render.hpp: with copies of shared variables and long edges in lanes), and the page places the
// nodes where the member "layout" of its picture document says; smaller pictures are laid out by
// dagre in the browser. A page is written for at most max_layout_items drawn nodes (render.hpp).
constexpr std::size_t page_preset_items = 400;
std::string html_unavailable_reason();

// Writes the page for `picture_json` (a picture document, text). False with `error` set when the
// build has no page support or the text is not a picture document (a JSON object with "nodes").
bool write_html(const std::string& picture_json, std::ostream& out, std::string& error);

// The page of a picture (tools/draw/page.cpp). With `lowering_graph` (the model's graph, valid), the
// document gets its "lowering" member (lowering.hpp); with `lowering` but no graph (an invalid model)
// the member carries only the error saying why nothing was lowered.
struct PageOptions {
    bool lowering = false;
    const Graph* lowering_graph = nullptr;
    const SourceManager* sources = nullptr;
    LoweringOptions lowering_options;
};
bool write_html(const Picture& picture, const PageOptions& options, std::ostream& out, std::string& error);
// The same into `out`, refusing a picture of more than max_page_items drawn nodes (draw() of
// render.hpp calls it for the format "html", without the lowering).
bool draw_page(const Picture& picture, const PageOptions& options, std::string& out, std::string& error);

// `text` made safe inside <script type="application/json">: every '<' becomes \u003c (JSON text has
// '<' only inside strings, where the escape means the same character).
std::string json_for_script(const std::string& text);

}  // namespace nnef::draw
