// DOT text of a picture, and its layout and rendering through Graphviz's libraries.
#include <nnef/draw/render.hpp>

#include <nnef/draw/html.hpp>
#include <nnef/draw/lanes.hpp>

#include <algorithm>
#include <cmath>
#include <functional>
#include <optional>
#include <mutex>
#include <set>
#include <sstream>
#include <tuple>
#include <unordered_map>

#include <graphviz/cgraph.h>
#include <graphviz/gvc.h>

namespace nnef::draw {

namespace render_cpp {

// The outermost collapsed cluster enclosing (or being) cluster `c`, if any.
std::optional<std::size_t> outermost_collapsed(const Picture& p, std::optional<std::size_t> c) {
    std::optional<std::size_t> out;
    for (; c; c = p.clusters[*c].parent)
        if (!p.clusters[*c].expanded) out = c;
    return out;
}

std::string escape(const std::string& s) {
    std::string out;
    out.reserve(s.size() + 2);
    for (char c : s) {
        if (c == '"' || c == '\\') out += '\\';
        if (c == '\n') {
            out += "\\n";
            continue;
        }
        out += c;
    }
    return out;
}

std::string shape_text(const TensorInfo& t) {
    std::string s = t.dtype.empty() ? "?" : t.dtype;
    if (!t.shape) return s + "[?]";
    s += "[";
    for (std::size_t i = 0; i < t.shape->size(); ++i) {
        if (i) s += ",";
        const auto& d = (*t.shape)[i];
        s += d ? std::to_string(*d) : "?";
    }
    return s + "]";
}

std::string quant_text(const TensorInfo& t) {
    if (!t.quantization) return {};
    std::string s = t.quantization->op;
    const std::string suffix = "_quantize";
    if (s.size() > suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0) s.resize(s.size() - suffix.size());
    s += "(";
    bool first = true;
    for (const auto& [n, v] : t.quantization->arguments) {
        std::string text = nnef::to_string(v);
        if (text.size() > 24) text = text.substr(0, 21) + "...";
        s += (first ? "" : ", ") + n + "=" + text;
        first = false;
    }
    return s + ")";
}

std::string bytes_text(std::uint64_t b) {
    const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    double v = double(b);
    int u = 0;
    while (v >= 1024.0 && u < 4) {
        v /= 1024.0;
        ++u;
    }
    std::ostringstream os;
    os.precision(u == 0 ? 0 : 3);
    if (u == 0) os << b << " B";
    else os << v << " " << units[u];
    return os.str();
}

// Wraps a long text (a diagnostic) at spaces into lines of about `width` characters.
std::string wrap(const std::string& s, std::size_t width) {
    std::string out, line;
    std::istringstream in(s);
    std::string word;
    while (in >> word) {
        if (!line.empty() && line.size() + 1 + word.size() > width) {
            out += line + "\n";
            line.clear();
        }
        line += (line.empty() ? "" : " ") + word;
    }
    return out + line;
}

std::string where(const std::optional<Location>& l) {
    if (!l || l->line == 0) return {};
    const auto slash = l->file.find_last_of('/');
    return (slash == std::string::npos ? l->file : l->file.substr(slash + 1)) + ":" + std::to_string(l->line);
}

struct Style {
    const char* shape;
    const char* style;
    const char* fill;
    const char* border;
};

Style style_of(NodeKind k) {
    switch (k) {
    case NodeKind::input: return {"invhouse", "filled", "#c8e6c9", "#2e7d32"};
    case NodeKind::output: return {"house", "filled", "#bbdefb", "#1565c0"};
    case NodeKind::variable: return {"cylinder", "filled", "#fff3c4", "#a07800"};
    case NodeKind::constant: return {"note", "filled", "#eeeeee", "#616161"};
    case NodeKind::operation: return {"box", "rounded,filled", "#ffffff", "#37474f"};
    case NodeKind::error: return {"octagon", "filled", "#ffcdd2", "#c62828"};
    }
    return {"box", "filled", "#ffffff", "#000000"};
}

std::string node_label(const Node& n) {
    std::string label;
    switch (n.kind) {
    case NodeKind::input:
    case NodeKind::output:
        label = n.name;
        if (n.tensor) label += "\n" + shape_text(*n.tensor);
        break;
    case NodeKind::variable:
    case NodeKind::constant:
        label = n.name;
        if (n.tensor) {
            label += "\n" + shape_text(*n.tensor);
            if (n.tensor->bytes) label += "  " + bytes_text(*n.tensor->bytes);
        }
        break;
    case NodeKind::operation:
    case NodeKind::error:
        label = n.op.empty() ? n.name : n.op;
        if (!n.op.empty() && n.name != n.op) label += "\n" + n.name;
        break;
    }
    if (n.tensor && n.tensor->quantization && (n.kind == NodeKind::variable || n.kind == NodeKind::input))
        label += "\n" + quant_text(*n.tensor);
    if (n.error) label += "\n" + wrap(*n.error, 48);
    return label;
}

}  // namespace render_cpp

Visible visible(const Picture& p) {
    using namespace render_cpp;
    Visible v;
    const std::size_t nn = p.nodes.size();
    v.representative.resize(nn);
    std::vector<bool> listed(nn + p.clusters.size(), false);
    for (std::size_t i = 0; i < nn; ++i) {
        const auto c = outermost_collapsed(p, p.nodes[i].cluster);
        // An error node stays visible: the mark must not be folded away.
        const std::size_t r = c && !p.nodes[i].error ? nn + *c : i;
        v.representative[i] = r;
        if (!listed[r]) {
            listed[r] = true;
            v.items.push_back(r);
        }
    }
    std::set<std::tuple<std::size_t, std::size_t, std::string>> drawn;
    for (std::size_t i = 0; i < p.edges.size(); ++i) {
        const Edge& e = p.edges[i];
        const std::size_t a = v.representative[e.from], b = v.representative[e.to];
        if (a == b) continue;
        if (!drawn.emplace(a, b, e.tensor).second) continue;
        v.edges.push_back(i);
    }
    return v;
}

std::string to_dot(const Picture& p, const DotOptions& options) {
    using namespace render_cpp;
    const Visible v = visible(p);
    const std::size_t nn = p.nodes.size();
    // Edge labels that take part in the layout (dot gives each a place of its own, so no edge
    // crosses one) make it several times slower; above `max_laid_out_labels` edges the labels are
    // placed after the layout instead (xlabel), which keeps ResNet-50 and DenseNet-121 within 2 s.
    const bool large = v.edges.size() > max_laid_out_labels;
    const char* label_attribute = large ? "xlabel" : "label";
    std::ostringstream os;
    os << "digraph \"" << escape(p.model) << "\" {\n"
       << "  graph [rankdir=TB, fontname=\"Helvetica\", fontsize=11, nodesep=0.25, ranksep=0.35, newrank=true"
       << (large ? ", mclimit=0.3, nslimit=1, nslimit1=1, searchsize=20" : "") << "];\n"
       << "  node [fontname=\"Helvetica\", fontsize=10, margin=\"0.12,0.04\", height=0.3, penwidth=1.2];\n"
       << "  edge [fontname=\"Helvetica\", fontsize=8, color=\"#546e7a\", fontcolor=\"#37474f\", arrowsize=0.6];\n";
    // Items grouped by the expanded cluster they are drawn in (a collapsed cluster is drawn in its
    // parent).
    std::vector<std::vector<std::size_t>> members(p.clusters.size() + 1);  // [0]: the graph
    auto home = [&](std::size_t r) -> std::size_t {
        const std::optional<std::size_t> c = r < nn ? p.nodes[r].cluster : p.clusters[r - nn].parent;
        // The innermost expanded cluster around it (all its ancestors are expanded too, or it
        // would be folded).
        return c ? *c + 1 : 0;
    };
    for (std::size_t r : v.items) members[home(r)].push_back(r);
    std::vector<std::vector<std::size_t>> children(p.clusters.size() + 1);
    for (std::size_t c = 0; c < p.clusters.size(); ++c)
        if (p.clusters[c].expanded && !outermost_collapsed(p, c)) children[p.clusters[c].parent ? *p.clusters[c].parent + 1 : 0].push_back(c);

    // In a large picture a variable or constant read by several operations is drawn once per reader
    // (a copy beside each, the edges from it one each): one node with edges to readers all over the
    // graph gives dot long edges to lay out (ResNet-50's shared batch-norm vectors, convnext_tiny's
    // layer scales), and the picture is easier to read with the data beside its use.
    std::vector<std::size_t> readers(nn + p.clusters.size(), 0);  // per representative
    if (large)
        for (std::size_t i : v.edges) {
            const std::size_t a = v.representative[p.edges[i].from];
            if (a < nn && !p.nodes[a].error && (p.nodes[a].kind == NodeKind::variable || p.nodes[a].kind == NodeKind::constant)) ++readers[a];
        }
    auto item = [&](std::size_t r, const std::string& indent) {
        if (r >= nn) {
            const Cluster& c = p.clusters[r - nn];
            const std::string at = where(c.location);
            os << indent << cluster_id(r - nn) << " [label=\"" << escape(c.label + (at.empty() ? "" : "\n" + at))
               << "\", shape=box3d, style=filled, fillcolor=\"#e1d5f0\", color=\"#5e35b1\"];\n";
            return;
        }
        const Node& n = p.nodes[r];
        const Style s = style_of(n.kind);
        const std::string label = node_label(n) + (readers[r] > 1 ? "\n(read by " + std::to_string(readers[r]) + ")" : "");
        for (std::size_t copy = 0; copy < std::max<std::size_t>(readers[r], 1); ++copy) {
            os << indent << node_id(r) << (copy ? "_" + std::to_string(copy) : "") << " [label=\"" << escape(label) << "\", shape=" << s.shape
               << ", style=\"" << s.style << "\", fillcolor=\"" << (n.error ? "#ffcdd2" : s.fill) << "\", color=\""
               << (n.error ? "#c62828" : s.border) << "\"";
            if (n.error) os << ", penwidth=2.5";
            os << "];\n";
        }
    };
    std::function<void(std::size_t, const std::string&)> body = [&](std::size_t k, const std::string& indent) {
        for (std::size_t c : children[k]) {
            const Cluster& cl = p.clusters[c];
            const std::string at = where(cl.location);
            os << indent << "subgraph cluster_" << cluster_id(c) << " {\n"
               << indent << "  label=\"" << escape(cl.label + (at.empty() ? "" : " (" + at + ")")) << "\"; labeljust=l;"
               << " style=\"rounded,dashed\"; color=\"#5e35b1\"; fontcolor=\"#4527a0\"; penwidth=1.2;\n";
            body(c + 1, indent + "  ");
            os << indent << "}\n";
        }
        for (std::size_t r : members[k]) item(r, indent);
    };
    body(0, "  ");
    std::vector<std::size_t> copies_drawn(readers.size(), 0);
    // In a large picture the first data input of each operation (by the order of the arguments)
    // weighs more, so that the main path runs straight rather than drifting towards the parameters
    // hung beside it.
    std::vector<bool> has_main_input(nn + p.clusters.size(), false);
    // The data: nodes computed from a graph input (not only from variables and constants, as the
    // copies and unsqueezes of parameters are). A node's edges come after its producers' (the
    // picture adds each operation's edges with it), so one pass settles it.
    std::vector<bool> data(nn, false);
    for (std::size_t i = 0; i < nn; ++i) data[i] = p.nodes[i].kind == NodeKind::input;
    for (const Edge& e : p.edges)
        if (data[e.from]) data[e.to] = true;
    auto is_data = [&](std::size_t r) { return r >= nn || data[r]; };
    for (std::size_t i : v.edges) {
        const Edge& e = p.edges[i];
        const std::size_t a = v.representative[e.from], b = v.representative[e.to];
        auto name = [&](std::size_t r) { return r < nn ? node_id(r) : cluster_id(r - nn); };
        std::string from = name(a);
        const bool copied = readers[a] > 1;
        if (copied && copies_drawn[a]++) from += "_" + std::to_string(copies_drawn[a] - 1);
        os << "  " << from << " -> " << name(b);
        std::vector<std::string> attributes;
        if (options.shapes) {
            std::string label = shape_text(e.info);
            const std::string q = quant_text(e.info);
            if (!q.empty()) label += "\n" + q;
            attributes.push_back(std::string(label_attribute) + "=\"" + escape(label) + "\"");
        }
        if (large && is_data(a) && !has_main_input[b]) {
            has_main_input[b] = true;
            attributes.push_back("weight=8");
        }
        for (std::size_t k = 0; k < attributes.size(); ++k) os << (k ? ", " : " [") << attributes[k];
        os << (attributes.empty() ? "" : "]") << ";\n";
    }
    os << "}\n";
    return os.str();
}

namespace render_cpp {

std::string& graphviz_errors() {
    static std::string text;
    return text;
}

int collect_error(char* message) {
    graphviz_errors() += message;
    return 0;
}

// The points of a polyline as the control points of a piecewise cubic B-spline (each segment a
// straight cubic), in Graphviz's "pos" syntax with an arrowhead at the last point.
std::string spline_pos(const Route& route, double arrow) {
    auto [hx, hy] = route.back();
    auto [px, py] = route[route.size() - 2];
    const double length = std::hypot(px - hx, py - hy);
    const double k = length > arrow ? arrow / length : 0.5;
    Route points = route;
    points.back() = {hx + (px - hx) * k, hy + (py - hy) * k};  // the spline ends at the arrow's base
    std::ostringstream os;
    os.setf(std::ios::fixed);
    os.precision(2);
    os << "e," << hx << "," << hy;
    auto point = [&](double x, double y) { os << " " << x << "," << y; };
    point(points[0].first, points[0].second);
    for (std::size_t i = 1; i < points.size(); ++i) {
        const auto [x0, y0] = points[i - 1];
        const auto [x1, y1] = points[i];
        point(x0 + (x1 - x0) / 3, y0 + (y1 - y0) / 3);
        point(x0 + 2 * (x1 - x0) / 3, y0 + 2 * (y1 - y0) / 3);
        point(x1, y1);
    }
    return os.str();
}

void cluster_frames(Agraph_t* g, std::vector<Frame>& frames) {
    for (int i = 1; i <= GD_n_cluster(g); ++i) {
        Agraph_t* c = GD_clust(g)[i];
        const boxf bb = GD_bb(c);
        frames.push_back({bb.LL.x, bb.LL.y, bb.UR.x, bb.UR.y});
        cluster_frames(c, frames);
    }
}

// Lays out `g` with dot; when its long transitive edges would make too many virtual nodes
// (lanes.hpp), lays out the graph without them, routes them in lanes and fixes the whole with the
// "nop2" layout (the positions as given). Zero on success, as gvLayout.
int lay_out(GVC_t* gvc, Agraph_t* g) {
    std::vector<Agnode_t*> nodes;
    std::unordered_map<Agnode_t*, std::size_t> index;
    for (Agnode_t* n = agfstnode(g); n; n = agnxtnode(g, n)) {
        index.emplace(n, nodes.size());
        nodes.push_back(n);
    }
    EdgeList edges;
    std::vector<Agedge_t*> graph_edges;
    for (Agnode_t* n : nodes)
        for (Agedge_t* e = agfstout(g, n); e; e = agnxtout(g, e)) {
            edges.emplace_back(index[agtail(e)], index[aghead(e)]);
            graph_edges.push_back(e);
        }
    const std::vector<bool> moved = moved_edges(nodes.size(), edges);
    struct Taken {
        std::size_t from, to;
        std::string label;
    };
    std::vector<Taken> taken;
    std::vector<Agnode_t*> lost_main_input;
    for (std::size_t i = 0; i < edges.size(); ++i) {
        if (!moved[i]) continue;
        const char* label = agget(graph_edges[i], const_cast<char*>("xlabel"));
        taken.push_back({edges[i].first, edges[i].second, label ? label : ""});
        const char* weight = agget(graph_edges[i], const_cast<char*>("weight"));
        if (weight && std::string(weight) != "" && std::string(weight) != "1") lost_main_input.push_back(nodes[edges[i].second]);
        agdelete(g, graph_edges[i]);
    }
    // A head whose main input moved to a lane (a concatenation's first input in DenseNet) keeps its
    // path straight by a remaining input that is itself on the main path (has a weighted input).
    auto weighted = [&](Agedge_t* e) {
        const char* w = agget(e, const_cast<char*>("weight"));
        return w && std::string(w) == "8";
    };
    for (Agnode_t* head : lost_main_input)
        for (Agedge_t* e = agfstin(g, head); e; e = agnxtin(g, e)) {
            bool main_path = false;
            for (Agedge_t* in = agfstin(g, agtail(e)); in && !main_path; in = agnxtin(g, in)) main_path = weighted(in);
            if (main_path) {
                agsafeset(e, const_cast<char*>("weight"), const_cast<char*>("8"), const_cast<char*>("1"));
                break;
            }
        }
    if (const int rc = gvLayout(gvc, g, "dot"); rc != 0 || taken.empty()) return rc;
    // The positions as attributes (pos, bb, lp), which the "nop2" layout reads back.
    char* data = nullptr;
    unsigned int length = 0;
    if (gvRenderData(gvc, g, "dot", &data, &length) != 0) return -1;
    gvFreeRenderData(data);
    std::vector<Box> boxes;
    for (Agnode_t* n : nodes) boxes.push_back({ND_coord(n).x, ND_coord(n).y, ND_lw(n), ND_rw(n), ND_ht(n) / 2});
    std::vector<Frame> frames;
    cluster_frames(g, frames);
    EdgeList lane_edges;
    for (const Taken& t : taken) lane_edges.emplace_back(t.from, t.to);
    const std::vector<Route> routes = route_lanes(boxes, frames, lane_edges);
    boxf bb = GD_bb(g);
    gvFreeLayout(gvc, g);
    const double arrow = 10 * 0.6;  // Graphviz's arrow length times the edges' arrowsize (to_dot)
    std::set<std::pair<std::size_t, std::string>> labelled;  // a lane carries one label per tensor
    for (std::size_t i = 0; i < taken.size(); ++i) {
        Agedge_t* e = agedge(g, nodes[taken[i].from], nodes[taken[i].to], nullptr, 1);
        agsafeset(e, const_cast<char*>("pos"), const_cast<char*>(spline_pos(routes[i], arrow).c_str()), const_cast<char*>(""));
        if (!taken[i].label.empty() && labelled.emplace(taken[i].from, taken[i].label).second)
            agsafeset(e, const_cast<char*>("xlabel"), const_cast<char*>(taken[i].label.c_str()), const_cast<char*>(""));
        for (const auto& [x, y] : routes[i]) bb.UR.x = std::max(bb.UR.x, x + 16);
    }
    std::ostringstream box;
    box << bb.LL.x << "," << bb.LL.y << "," << bb.UR.x << "," << bb.UR.y;
    agsafeset(g, const_cast<char*>("bb"), const_cast<char*>(box.str().c_str()), const_cast<char*>(""));
    return gvLayout(gvc, g, "nop2");
}

}  // namespace render_cpp

namespace render_cpp {

// Reads `dot`, lays it out (lay_out) and calls `use` on the laid-out graph, under the lock that
// Graphviz's global state needs. False with `error` set when Graphviz fails or `use` does.
bool with_layout(const std::string& dot, const std::function<bool(GVC_t*, Agraph_t*, std::string&)>& use, std::string& error) {
    static std::mutex mutex;  // Graphviz keeps global state
    std::lock_guard<std::mutex> lock(mutex);
    graphviz_errors().clear();
    agseterr(AGERR);
    agseterrf(collect_error);
    GVC_t* gvc = gvContext();
    if (!gvc) {
        error = "Graphviz: cannot create a context";
        return false;
    }
    Agraph_t* g = agmemread(dot.c_str());
    if (!g) {
        error = "Graphviz cannot read the DOT text: " + graphviz_errors();
        gvFreeContext(gvc);
        return false;
    }
    bool ok = lay_out(gvc, g) == 0;
    if (!ok) error = "Graphviz layout failed: " + graphviz_errors();
    if (ok) {
        ok = use(gvc, g, error);
        gvFreeLayout(gvc, g);
    }
    agclose(g);
    gvFreeContext(gvc);
    while (!error.empty() && (error.back() == '\n' || error.back() == ' ')) error.pop_back();
    return ok;
}

}  // namespace render_cpp

bool render(const std::string& dot, const std::string& format, std::string& out, std::string& error) {
    using namespace render_cpp;
    return with_layout(
        dot,
        [&](GVC_t* gvc, Agraph_t* g, std::string& message) {
            if (format == "png") {
                // cairo's bitmaps take at most 32767 pixels a side: a taller picture (densenet121
                // as written) is drawn at a lower resolution, rather than Graphviz shrinking it
                // with a warning of its own on stderr
                const boxf bb = GD_bb(g);
                const double longest = std::max(bb.UR.x - bb.LL.x, bb.UR.y - bb.LL.y) + 16;  // points, with the margin
                double& dpi = GD_drawing(g)->dpi;
                const double current = dpi > 0 ? dpi : 96;
                const double largest = 32000.0 * 72.0 / longest;
                if (current > largest) dpi = largest;
            }
            char* data = nullptr;
            unsigned int length = 0;
            const bool ok = gvRenderData(gvc, g, format.c_str(), &data, &length) == 0 && data;
            if (ok) out.assign(data, length);
            else message = "Graphviz cannot render " + format + ": " + graphviz_errors();
            if (data) gvFreeRenderData(data);
            return ok;
        },
        error);
}

bool layout_positions(const std::string& dot, std::vector<Position>& out, std::string& error) {
    using namespace render_cpp;
    return with_layout(
        dot,
        [&](GVC_t*, Agraph_t* g, std::string&) {
            out.clear();
            for (Agnode_t* n = agfstnode(g); n; n = agnxtnode(g, n)) out.push_back({agnameof(n), ND_coord(n).x, ND_coord(n).y});
            return true;
        },
        error);
}

std::optional<std::string> format_from_extension(const std::string& path) {
    const auto dot = path.find_last_of('.');
    const auto slash = path.find_last_of('/');
    if (dot == std::string::npos || (slash != std::string::npos && dot < slash)) return std::nullopt;
    const std::string ext = path.substr(dot + 1);
    if (ext == "dot" || ext == "gv") return std::string("dot");
    if (ext == "svg" || ext == "png" || ext == "json" || ext == "html") return ext;
    if (ext == "htm") return std::string("html");
    return std::nullopt;
}

bool draw(const Picture& picture, const std::string& format, const DotOptions& options, std::string& out, std::string& error) {
    if (format == "json") {
        out = picture_to_json(picture);
        return true;
    }
    if (format == "html") return draw_page(picture, PageOptions{}, out, error);
    if (format != "dot" && format != "svg" && format != "png") {
        error = "unknown format '" + format + "' (dot, svg, png, json or html)";
        return false;
    }
    const std::string dot = to_dot(picture, options);
    if (format == "dot") {
        out = dot;
        return true;
    }
    const std::size_t items = visible(picture).items.size();
    if (items > max_layout_items) {
        error = "the picture has " + std::to_string(items) + " nodes to draw, more than " + std::to_string(max_layout_items) +
                ", the most that " + format + " is laid out for (write dot or json, or draw less: a smaller depth)";
        return false;
    }
    return render(dot, format, out, error);
}

}  // namespace nnef::draw
