// The HTML page of a picture (nnef/draw/html.hpp): the picture document, with the lowering member
// when asked, written by write_html (tools/draw/html).
#include <nlohmann/json.hpp>
#include <nnef/draw/html.hpp>
#include <nnef/draw/picture.hpp>
#include <nnef/draw/render.hpp>

#include <cmath>
#include <sstream>

namespace nnef::draw {

bool write_html(const Picture& picture, const PageOptions& options, std::ostream& out, std::string& error) {
    if (!html_available()) {
        error = html_unavailable_reason();
        return false;
    }
    std::string text = picture_to_json(picture);
    const bool preset = visible(picture).items.size() > page_preset_items;
    if (options.lowering || preset) {
        nlohmann::json doc = nlohmann::json::parse(text);
        if (preset) {
            // The first view laid out here (html.hpp, page_preset_items): each drawn node's centre,
            // y downwards as in the browser.
            std::vector<Position> positions;
            if (!layout_positions(to_dot(picture), positions, error)) return false;
            nlohmann::json layout = nlohmann::json::object();
            for (const Position& q : positions) layout[q.name] = {std::round(q.x * 10) / 10, std::round(-q.y * 10) / 10};
            doc["layout"] = std::move(layout);
        }
        if (options.lowering && options.lowering_graph && options.sources) {
            doc["lowering"] = lowering_member(*options.lowering_graph, *options.sources, doc, options.lowering_options);
        } else if (options.lowering) {
            doc["lowering"] = {{"error", "the model is not valid (its errors are marked in the NNEF graph): nothing was lowered"},
                               {"tosa", nullptr}, {"vpu", nullptr}, {"links", nlohmann::json::object()}};
        }
        text = doc.dump();
    }
    return write_html(text, out, error);
}

bool draw_page(const Picture& picture, const PageOptions& options, std::string& out, std::string& error) {
    const std::size_t items = visible(picture).items.size();
    if (items > max_layout_items) {
        error = "the picture has " + std::to_string(items) + " nodes to draw, more than " + std::to_string(max_layout_items) +
                ", the most that html is laid out for (write dot or json, or draw less: a smaller depth)";
        return false;
    }
    std::ostringstream os;
    if (!write_html(picture, options, os, error)) return false;
    out = os.str();
    return true;
}

}  // namespace nnef::draw
