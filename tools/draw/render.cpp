// DOT text of a picture, and its layout and rendering through Graphviz's libraries.
#include <nnef/draw/render.hpp>

#include <nnef/draw/html.hpp>

#include <algorithm>
#include <functional>
#include <optional>
#include <mutex>
#include <set>
#include <sstream>
#include <tuple>

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
        os << indent << node_id(r) << " [label=\"" << escape(node_label(n)) << "\", shape=" << s.shape << ", style=\"" << s.style
           << "\", fillcolor=\"" << (n.error ? "#ffcdd2" : s.fill) << "\", color=\"" << (n.error ? "#c62828" : s.border) << "\"";
        if (n.error) os << ", penwidth=2.5";
        os << "];\n";
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
    for (std::size_t i : v.edges) {
        const Edge& e = p.edges[i];
        const std::size_t a = v.representative[e.from], b = v.representative[e.to];
        auto name = [&](std::size_t r) { return r < nn ? node_id(r) : cluster_id(r - nn); };
        os << "  " << name(a) << " -> " << name(b);
        if (options.shapes) {
            std::string label = shape_text(e.info);
            const std::string q = quant_text(e.info);
            if (!q.empty()) label += "\n" + q;
            os << " [" << label_attribute << "=\"" << escape(label) << "\"]";
        }
        os << ";\n";
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

}  // namespace render_cpp

bool render(const std::string& dot, const std::string& format, std::string& out, std::string& error) {
    using namespace render_cpp;
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
    bool ok = gvLayout(gvc, g, "dot") == 0;
    if (!ok) error = "Graphviz layout failed: " + graphviz_errors();
    if (ok) {
        char* data = nullptr;
        unsigned int length = 0;
        ok = gvRenderData(gvc, g, format.c_str(), &data, &length) == 0 && data;
        if (ok) out.assign(data, length);
        else error = "Graphviz cannot render " + format + ": " + graphviz_errors();
        if (data) gvFreeRenderData(data);
        gvFreeLayout(gvc, g);
    }
    agclose(g);
    gvFreeContext(gvc);
    while (!error.empty() && (error.back() == '\n' || error.back() == ' ')) error.pop_back();
    return ok;
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
