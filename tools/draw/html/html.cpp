#include <nnef/draw/html.hpp>

#include <nlohmann/json.hpp>

#include "lowering/vpu/svg.hpp"

namespace nnef::draw {

namespace {

#if NNEF_DRAW_HTML
// The libraries, as published on npm (tools/draw/html/package-lock.json), and the page's own code.
const char cytoscape_js[] =
#include "cytoscape.min.js.inc"
    ;
const char cytoscape_dagre_js[] =
#include "cytoscape-dagre.min.js.inc"
    ;
const char page_css[] =
#include "page.css.inc"
    ;
const char page_js[] =
#include "page.js.inc"
    ;
#endif


}  // namespace

bool html_available() { return NNEF_DRAW_HTML != 0; }

std::string html_unavailable_reason() {
#if NNEF_DRAW_HTML
    return {};
#else
    return "this build has no HTML page: " NNEF_DRAW_HTML_REASON " (docs/draw.md, HTML page)";
#endif
}

std::string json_for_script(const std::string& text) {
    std::string r;
    r.reserve(text.size() + text.size() / 64);
    for (char c : text) {
        if (c == '<') r += "\\u003c";
        else r += c;
    }
    return r;
}

bool write_html(const std::string& picture_json, std::ostream& out, std::string& error) {
    if (!html_available()) {
        error = html_unavailable_reason();
        return false;
    }
    const nlohmann::json doc = nlohmann::json::parse(picture_json, nullptr, false);
    if (doc.is_discarded() || !doc.is_object() || !doc.contains("nodes") || !doc["nodes"].is_array()) {
        error = "the picture is not a picture document (a JSON object with a \"nodes\" array)";
        return false;
    }
#if NNEF_DRAW_HTML
    const std::string model = doc.value("model", std::string("model"));
    out << "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
        << "<meta name=\"generator\" content=\"nnef-draw\">\n"
        << "<title>" << vpu::xml_escape(model) << " - nnef-draw</title>\n"
        << "<style>\n" << page_css << "</style>\n</head>\n<body data-max-nodes=\"" << max_page_items << "\">\n"
        << "<header id=\"bar\"><span id=\"title\">" << vpu::xml_escape(model) << "</span>"
        << "<input id=\"search\" type=\"search\" placeholder=\"search by name (Enter: next)\" autocomplete=\"off\">"
        << "<span id=\"search-count\"></span>"
        << "<button id=\"expand-all\" type=\"button\">expand all</button>"
        << "<button id=\"collapse-all\" type=\"button\">collapse all</button>"
        << "<button id=\"fit\" type=\"button\">fit</button>"
        << "<label><input id=\"shapes\" type=\"checkbox\" checked> shapes</label>"
        << "<span id=\"status\"></span></header>\n"
        << "<main id=\"main\"><section id=\"nnef-pane\" class=\"pane\"><div class=\"pane-title\">NNEF</div>"
        << "<div id=\"nnef\" class=\"graph\"></div></section>"
        << "<section id=\"lowering-pane\" class=\"pane\" hidden><div id=\"tosa-title\" class=\"pane-title\">TOSA</div>"
        << "<div id=\"tosa\" class=\"graph\"></div><div id=\"vpu-title\" class=\"pane-title\">VPU schedule</div>"
        << "<div id=\"vpu\"></div><div id=\"lowering-error\" hidden></div></section>"
        << "<aside id=\"panel\"><div id=\"panel-body\"><p class=\"hint\">Click an operation for its attributes, "
           "shapes, quantization and source line; click a fragment to expand or collapse it.</p></div></aside></main>\n"
        << "<script>\n" << cytoscape_js << "\n</script>\n"
        << "<script>\n" << cytoscape_dagre_js << "\n</script>\n"
        << "<script id=\"picture\" type=\"application/json\">" << json_for_script(picture_json) << "</script>\n"
        << "<script>\n" << page_js << "\n</script>\n</body>\n</html>\n";
#endif
    if (!out) {
        error = "cannot write the page";
        return false;
    }
    return true;
}

}  // namespace nnef::draw
