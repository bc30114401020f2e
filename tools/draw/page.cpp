// The HTML page of a picture (nnef/draw/html.hpp): the picture document, with the lowering member
// when asked, written by write_html (tools/draw/html).
#include <nlohmann/json.hpp>
#include <nnef/draw/html.hpp>
#include <nnef/draw/picture.hpp>
#include <nnef/draw/render.hpp>

#include <sstream>

namespace nnef::draw {

bool write_html(const Picture& picture, const PageOptions& options, std::ostream& out, std::string& error) {
    if (!html_available()) {
        error = html_unavailable_reason();
        return false;
    }
    std::string text = picture_to_json(picture);
    if (options.lowering) {
        nlohmann::json doc = nlohmann::json::parse(text);
        if (options.lowering_graph && options.sources) {
            doc["lowering"] = lowering_member(*options.lowering_graph, *options.sources, doc, options.lowering_options);
        } else {
            doc["lowering"] = {{"error", "the model is not valid (its errors are marked in the NNEF graph): nothing was lowered"},
                               {"tosa", nullptr}, {"vpu", nullptr}, {"links", nlohmann::json::object()}};
        }
        text = doc.dump();
    }
    return write_html(text, out, error);
}

bool draw_page(const Picture& picture, const PageOptions& options, std::string& out, std::string& error) {
    const std::size_t items = visible(picture).items.size();
    if (items > max_page_items) {
        error = "the picture has " + std::to_string(items) + " nodes to draw, more than " + std::to_string(max_page_items) +
                ", the most that html is laid out for (write dot or json, or draw less: a smaller depth)";
        return false;
    }
    std::ostringstream os;
    if (!write_html(picture, options, os, error)) return false;
    out = os.str();
    return true;
}

}  // namespace nnef::draw
