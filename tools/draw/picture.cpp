// The picture model (picture.hpp): nodes, edges and the cluster hierarchy of a flat graph.
#include <nnef/draw/picture.hpp>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <string_view>
#include <functional>
#include <unordered_map>

#include <nlohmann/json.hpp>

#include <nnef/nnef.hpp>
#include <nnef/tensor_data.hpp>

namespace nnef::draw {

const char* to_string(NodeKind k) {
    switch (k) {
    case NodeKind::input: return "input";
    case NodeKind::output: return "output";
    case NodeKind::variable: return "variable";
    case NodeKind::constant: return "constant";
    case NodeKind::operation: return "operation";
    case NodeKind::error: return "error";
    }
    return "operation";
}

std::string model_name(const std::string& path) {
    std::string p = path;
    while (p.size() > 1 && p.back() == '/') p.pop_back();
    auto base = [](const std::string& s) {
        const auto slash = s.find_last_of('/');
        return slash == std::string::npos ? s : s.substr(slash + 1);
    };
    std::string name = base(p);
    if (name == "graph.nnef") {
        const auto slash = p.find_last_of('/');
        const std::string dir = slash == std::string::npos ? std::string() : p.substr(0, slash);
        const std::string up = base(dir);
        return up.empty() || up == "." ? "graph" : up;
    }
    for (const char* ext : {".tgz", ".tar.gz", ".tar", ".nnef"}) {
        const std::string e = ext;
        if (name.size() > e.size() && name.compare(name.size() - e.size(), e.size(), e) == 0) {
            name.resize(name.size() - e.size());
            break;
        }
    }
    return name;
}

namespace picture_cpp {

std::optional<Location> location_of(const SourceRange& r, const SourceManager* sm) {
    if (!r.valid() || !sm || r.file > sm->size()) return std::nullopt;
    Location l;
    l.file = sm->name(r.file);
    if (!sm->is_binary(r.file)) {
        const LineCol lc = sm->begin(r);
        l.line = lc.line;
        l.column = lc.col;
    }
    return l;
}

void for_each_identifier(const Value& v, const std::function<void(const std::string&)>& f) {
    if (v.is_identifier()) f(v.as_identifier());
    else if (v.is_list())
        for (const Value& item : v.items()) for_each_identifier(item, f);
}

bool has_identifier(const Value& v) {
    if (v.is_identifier()) return true;
    if (v.is_list())
        for (const Value& item : v.items())
            if (has_identifier(item)) return true;
    return false;
}

std::uint64_t nominal_item_bytes(PrimType t) { return t == PrimType::logical ? 1 : 4; }

TensorInfo tensor_info(const Tensor* t) {
    TensorInfo info;
    if (!t) return info;
    info.dtype = t->dtype == PrimType::none ? std::string() : std::string(nnef::to_string(t->dtype));
    if (t->shape) {
        info.shape.emplace();
        for (std::int64_t d : *t->shape) info.shape->push_back(d < 0 ? std::nullopt : std::optional<std::int64_t>(d));
    }
    if (t->quantization) info.quantization = QuantInfo{t->quantization->algorithm, t->quantization->arguments};
    return info;
}

NodeKind kind_of(const Operation& op) {
    if (op.name == "external") return NodeKind::input;
    if (op.name == "variable") return NodeKind::variable;
    if (op.name == "constant") return NodeKind::constant;
    return NodeKind::operation;
}

// The first result tensor's name.
std::string first_result(const Operation& op) {
    std::string out;
    for (const auto& [n, v] : op.outputs) {
        for_each_identifier(v, [&](const std::string& t) {
            if (out.empty()) out = t;
        });
        if (!out.empty()) break;
    }
    return out;
}

PictureDiagnostic picture_diagnostic(const Diagnostic& d, const SourceManager* sm) {
    PictureDiagnostic p;
    p.severity = nnef::to_string(d.severity);
    p.stage = nnef::to_string(d.stage);
    p.message = d.message;
    p.location = location_of(d.range, sm);
    if (!p.location && !d.path.empty()) p.location = Location{d.path, 0, 0};
    return p;
}

// The text of the first error as a tool prints it: `file:line:col: error[stage]: message`.
std::string error_text(const Diagnostic& d, const SourceManager* sm) {
    if (sm) return render(d, *sm, false);
    return std::string("error[") + nnef::to_string(d.stage) + "]: " + d.message;
}

class Builder {
public:
    Builder(const Source& s, Picture& p) : s_(s), p_(p) {}

    void build() {
        const Graph* g = s_.graph;
        if (g) {
            producer_.reserve(g->tensors.size());
            for (const Operation& op : g->operations) add_operation(*g, op);
        }
        mark_first_error();
        if (g)
            for (const std::string& out : g->outputs) add_output(*g, out);
    }

private:
    // The cluster of the invocation chain (innermost first), creating the chain's clusters.
    std::optional<std::size_t> cluster_of(const Provenance& p) {
        std::optional<std::size_t> parent;
        std::vector<const CallSite*> outermost_first;
        for (const CallSite& site : p.chain) outermost_first.push_back(&site);
        for (std::size_t k = outermost_first.size(); k-- > 0;) {
            const CallSite& site = *outermost_first[k];
            const Key key{parent ? *parent + 1 : 0, site.invocation, site.range.file, site.range.begin};
            auto it = clusters_.find(key);
            if (it == clusters_.end()) {
                Cluster c;
                c.fragment = site.fragment;
                c.label = site.fragment;
                c.parent = parent;
                c.location = location_of(site.range, s_.sources);
                c.depth = parent ? p_.clusters[*parent].depth + 1 : 0;
                p_.clusters.push_back(std::move(c));
                it = clusters_.emplace(key, p_.clusters.size() - 1).first;
            }
            parent = it->second;
        }
        return parent;
    }

    void add_operation(const Graph& g, const Operation& op) {
        Node n;
        n.kind = kind_of(op);
        n.op = op.name;
        n.name = first_result(op);
        if (n.name.empty()) n.name = op.name;
        n.cluster = cluster_of(op.provenance);
        for (const auto& [name, v] : op.attribs) n.attributes.emplace_back(name, nnef::to_string(v));
        // Tensor arguments given as literals (no edge to draw) are shown with the attributes.
        for (const auto& [name, v] : op.inputs)
            if (!has_identifier(v)) n.attributes.emplace_back(name, nnef::to_string(v));
        n.location = location_of(op.provenance.range, s_.sources);
        const Tensor* result = n.name.empty() ? nullptr : g.tensor(n.name);
        if (result && !first_result(op).empty()) {
            n.tensor = tensor_info(result);
            if (n.kind == NodeKind::variable) {
                if (result->data) n.tensor->bytes = result->data->bytes.size();
                else if (result->shape) {
                    std::uint64_t items = 1;
                    for (std::int64_t d : *result->shape) items *= std::uint64_t(d < 0 ? 0 : d);
                    n.tensor->bytes = items * nominal_item_bytes(result->dtype);
                }
            }
        }
        const std::size_t index = p_.nodes.size();
        p_.nodes.push_back(std::move(n));
        // Edges from the producers of its inputs, one per (producer, tensor).
        for (const auto& [name, v] : op.inputs)
            for_each_identifier(v, [&](const std::string& t) { add_edge(g, t, index); });
        for (const auto& [name, v] : op.outputs)
            for_each_identifier(v, [&](const std::string& t) { producer_[t] = index; });
        ranges_.push_back({op.provenance.range, index});
        for (const CallSite& c : op.provenance.chain) ranges_.push_back({c.range, index});
    }

    void add_edge(const Graph& g, const std::string& tensor, std::size_t to) {
        auto it = producer_.find(tensor);
        if (it == producer_.end()) return;
        const std::size_t from = it->second;
        if (!seen_.insert(Triple{from, to, tensor}).second) return;
        Edge e;
        e.from = from;
        e.to = to;
        e.tensor = tensor;
        e.info = tensor_info(g.tensor(tensor));
        p_.edges.push_back(std::move(e));
    }

    void add_output(const Graph& g, const std::string& name) {
        Node n;
        n.kind = NodeKind::output;
        n.op = "output";
        n.name = name;
        n.tensor = tensor_info(g.tensor(name));
        const std::size_t index = p_.nodes.size();
        p_.nodes.push_back(std::move(n));
        add_edge(g, name, index);
    }

    // The operation where the first error sits gets its text; an error that sits on none
    // (a syntax error, an error in a fragment's declaration, a failed statement that made no
    // operation) becomes a node of its own, with edges from the tensors it names.
    void mark_first_error() {
        if (!s_.diagnostics) return;
        const Diagnostic* first = nullptr;
        for (const Diagnostic& d : *s_.diagnostics) {
            p_.diagnostics.push_back(picture_diagnostic(d, s_.sources));
            if (!first && d.severity == Severity::error) first = &d;
        }
        if (!first) return;
        const std::string text = error_text(*first, s_.sources);
        if (first->range.valid()) {
            // The operation whose source (or call site) is the smallest range around the error.
            const SourceRange& r = first->range;
            const std::pair<SourceRange, std::size_t>* best = nullptr;
            for (const auto& entry : ranges_) {
                const SourceRange& o = entry.first;
                if (o.file != r.file || o.begin > r.begin || (o.end <= r.begin && o.begin != r.begin)) continue;
                if (!best || o.end - o.begin < best->first.end - best->first.begin) best = &entry;
            }
            if (best) {
                p_.nodes[best->second].error = text;
                return;
            }
        }
        if (!first->path.empty()) {
            // A tensor file: the variable whose label names it.
            for (Node& n : p_.nodes)
                if (n.kind == NodeKind::variable)
                    for (const auto& [name, v] : n.attributes)
                        if (name == "label" && v.size() > 2 && first->path.find(v.substr(1, v.size() - 2)) != std::string::npos) {
                            n.error = text;
                            return;
                        }
        }
        Node n;
        n.kind = NodeKind::error;
        n.location = location_of(first->range, s_.sources);
        if (s_.failed) {
            n.op = s_.failed->operation;
            n.name = s_.failed->results.empty() ? s_.failed->operation : s_.failed->results.front();
            n.location = location_of(s_.failed->range, s_.sources);
        }
        // An invocation that made no operation (its shapes were refused, say): its name and the
        // tensors it names, read from the source text at the error.
        std::vector<std::string> named;
        if (!s_.failed && s_.sources && first->range.valid() && first->range.file <= s_.sources->size() &&
            !s_.sources->is_binary(first->range.file)) {
            const std::string_view all = s_.sources->text(first->range.file);
            const SourceRange& r = first->range;
            if (r.begin < r.end && r.end <= all.size()) {
                const std::string_view src = all.substr(r.begin, r.end - r.begin);
                auto ident = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
                std::size_t i = 0;
                while (i < src.size() && ident(src[i])) ++i;
                if (i > 0 && i < src.size() && (src[i] == '(' || src[i] == '<')) n.op = std::string(src.substr(0, i));
                for (std::size_t k = i; k < src.size();) {
                    if (!ident(src[k]) || std::isdigit(static_cast<unsigned char>(src[k]))) {
                        ++k;
                        continue;
                    }
                    std::size_t e = k;
                    while (e < src.size() && ident(src[e])) ++e;
                    const std::string word(src.substr(k, e - k));
                    if (producer_.count(word) && (k == 0 || src[k - 1] != '\'')) named.push_back(word);
                    k = e;
                }
            }
        }
        if (n.name.empty()) n.name = n.op.empty() ? "error" : n.op;
        n.error = text;
        const std::size_t index = p_.nodes.size();
        p_.nodes.push_back(std::move(n));
        if (s_.graph)
            for (const std::string& t : named) add_edge(*s_.graph, t, index);
        if (s_.failed && s_.graph) {
            for (const std::string& t : s_.failed->arguments) add_edge(*s_.graph, t, index);
            for (const std::string& t : s_.failed->results) producer_.emplace(t, index);
        }
    }

    struct Key {
        std::size_t parent;       // index + 1, 0 for the graph
        std::uint64_t invocation;  // the expansion's number (CallSite::invocation)
        std::uint32_t file, begin;
        bool operator==(const Key& o) const {
            return parent == o.parent && invocation == o.invocation && file == o.file && begin == o.begin;
        }
    };
    struct KeyHash {
        std::size_t operator()(const Key& k) const {
            return (k.invocation * 0x9E3779B97F4A7C15ull) ^ (k.parent * 0xC4CEB9FE1A85EC53ull) ^ (std::size_t(k.file) << 40) ^ k.begin;
        }
    };
    struct Triple {
        std::size_t from, to;
        std::string tensor;
        bool operator<(const Triple& o) const {
            if (from != o.from) return from < o.from;
            if (to != o.to) return to < o.to;
            return tensor < o.tensor;
        }
    };

    const Source& s_;
    Picture& p_;
    std::unordered_map<std::string, std::size_t> producer_;
    std::unordered_map<Key, std::size_t, KeyHash> clusters_;
    std::vector<std::pair<SourceRange, std::size_t>> ranges_;  // operations' sources and call sites
    std::set<Triple> seen_;
};

}  // namespace picture_cpp

void apply_expansion(Picture& picture, const PictureOptions& options) {
    std::vector<Cluster>& cs = picture.clusters;
    for (Cluster& c : cs) c.expanded = options.expand_all || c.depth < options.depth;
    if (options.expand.empty() || options.expand_all) return;
    for (std::size_t i = 0; i < cs.size(); ++i) {
        if (!options.expand.count(cs[i].fragment)) continue;
        // The invocation and its ancestors.
        for (std::optional<std::size_t> k = i; k; k = cs[*k].parent) cs[*k].expanded = true;
    }
}

Picture build_picture(const Source& source, const PictureOptions& options) {
    Picture p;
    p.source = source.path;
    p.model = model_name(source.path);
    picture_cpp::Builder(source, p).build();
    apply_expansion(p, options);
    return p;
}

Picture build_picture(const Session& session, const std::string& path, const PictureOptions& options) {
    Source s;
    s.path = path;
    s.graph = session.graph() ? session.graph() : session.partial_graph();
    s.sources = &session.sources();
    s.diagnostics = &session.diagnostics();
    s.failed = session.failed_statement();
    return build_picture(s, options);
}

// ---- JSON -----------------------------------------------------------------------------------

namespace picture_cpp {

using Json = nlohmann::ordered_json;

Json value_json(const Value& v) {
    switch (v.kind()) {
    case Value::Kind::integer: return v.as_integer();
    case Value::Kind::scalar: return std::isfinite(v.as_scalar()) ? Json(v.as_scalar()) : Json(nnef::to_string(v));
    case Value::Kind::logical: return v.as_logical();
    case Value::Kind::string: return v.as_string();
    case Value::Kind::identifier: return v.as_identifier();
    case Value::Kind::array:
    case Value::Kind::tuple: {
        Json out = Json::array();
        for (const Value& item : v.items()) out.push_back(value_json(item));
        return out;
    }
    case Value::Kind::none: break;
    }
    return nullptr;
}

Json location_json(const std::optional<Location>& l) {
    if (!l) return nullptr;
    return {{"file", l->file}, {"line", l->line}, {"column", l->column}};
}

Json index_json(const std::optional<std::size_t>& i, std::string (*id)(std::size_t)) {
    return i ? Json(id(*i)) : Json(nullptr);
}

Json shape_json(const TensorInfo& t) {
    if (!t.shape) return nullptr;
    Json out = Json::array();
    for (const auto& d : *t.shape) out.push_back(d ? Json(*d) : Json(nullptr));
    return out;
}

Json quant_json(const TensorInfo& t) {
    if (!t.quantization) return nullptr;
    Json out = {{"op", t.quantization->op}};
    for (const auto& [n, v] : t.quantization->arguments) out[n] = value_json(v);
    return out;
}

}  // namespace picture_cpp

std::string picture_to_json(const Picture& p) {
    using namespace picture_cpp;
    Json clusters = Json::array();
    for (std::size_t i = 0; i < p.clusters.size(); ++i) {
        const Cluster& c = p.clusters[i];
        clusters.push_back({{"id", cluster_id(i)},
                            {"fragment", c.fragment},
                            {"label", c.label},
                            {"parent", index_json(c.parent, cluster_id)},
                            {"location", location_json(c.location)},
                            {"expanded", c.expanded},
                            {"depth", c.depth}});
    }
    Json nodes = Json::array();
    for (std::size_t i = 0; i < p.nodes.size(); ++i) {
        const Node& n = p.nodes[i];
        Json attributes = Json::object();
        for (const auto& [k, v] : n.attributes) attributes[k] = v;
        Json tensor = nullptr;
        if (n.tensor)
            tensor = {{"dtype", n.tensor->dtype},
                      {"shape", shape_json(*n.tensor)},
                      {"bytes", n.tensor->bytes ? Json(*n.tensor->bytes) : Json(nullptr)},
                      {"quantization", quant_json(*n.tensor)}};
        nodes.push_back({{"id", node_id(i)},
                         {"kind", to_string(n.kind)},
                         {"name", n.name},
                         {"op", n.op},
                         {"cluster", index_json(n.cluster, cluster_id)},
                         {"attributes", std::move(attributes)},
                         {"location", location_json(n.location)},
                         {"error", n.error ? Json(*n.error) : Json(nullptr)},
                         {"tensor", std::move(tensor)}});
    }
    Json edges = Json::array();
    for (std::size_t i = 0; i < p.edges.size(); ++i) {
        const Edge& e = p.edges[i];
        edges.push_back({{"id", edge_id(i)},
                         {"from", node_id(e.from)},
                         {"to", node_id(e.to)},
                         {"tensor", e.tensor},
                         {"dtype", e.info.dtype},
                         {"shape", shape_json(e.info)},
                         {"quantization", quant_json(e.info)}});
    }
    Json diagnostics = Json::array();
    for (const PictureDiagnostic& d : p.diagnostics)
        diagnostics.push_back({{"severity", d.severity}, {"stage", d.stage}, {"message", d.message},
                               {"location", location_json(d.location)}});
    Json doc = {{"schema", "nnef-draw/1"},
                {"model", p.model},
                {"source", p.source},
                {"clusters", std::move(clusters)},
                {"nodes", std::move(nodes)},
                {"edges", std::move(edges)},
                {"diagnostics", std::move(diagnostics)},
                {"lowering", nullptr}};
    return doc.dump(-1, ' ', false, Json::error_handler_t::replace);
}

}  // namespace nnef::draw
