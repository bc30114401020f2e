#include <nnef/graph.hpp>
#include <nnef/op_def.hpp>

namespace nnef {

std::string to_string(const Shape& s) {
    std::string out = "[";
    for (std::size_t i = 0; i < s.size(); ++i) {
        if (i) out += ',';
        out += std::to_string(s[i]);
    }
    return out + "]";
}

const Value* find(const NamedValues& list, std::string_view name) {
    for (const auto& [n, v] : list)
        if (n == name) return &v;
    return nullptr;
}

Tensor* Graph::tensor(std::string_view n) {
    if (index_.size() != tensors.size()) rebuild_index();
    auto it = index_.find(std::string(n));
    return it == index_.end() ? nullptr : &tensors[it->second];
}

const Tensor* Graph::tensor(std::string_view n) const { return const_cast<Graph*>(this)->tensor(n); }

Tensor& Graph::add_tensor(std::string n, PrimType dtype, std::optional<Shape> shape) {
    if (index_.size() != tensors.size()) rebuild_index();
    index_.emplace(n, tensors.size());
    Tensor t;
    t.name = std::move(n);
    t.dtype = dtype;
    t.shape = std::move(shape);
    tensors.push_back(std::move(t));
    return tensors.back();
}

void Graph::rebuild_index() {
    index_.clear();
    index_.reserve(tensors.size());
    for (std::size_t i = 0; i < tensors.size(); ++i) index_.emplace(tensors[i].name, i);
}

namespace graph_cpp {
const Value& none_value() {
    static const Value none;
    return none;
}
}  // namespace graph_cpp

const Value& ShapeContext::attr(std::string_view name) const {
    const Value* v = op().attrib(name);
    return v ? *v : graph_cpp::none_value();
}

const Value& ShapeContext::input(std::string_view name) const {
    const Value* v = op().input(name);
    return v ? *v : graph_cpp::none_value();
}

std::vector<std::string> OpRegistry::names() const {
    std::vector<std::string> out;
    out.reserve(defs_.size());
    for (const auto& [n, d] : defs_) out.push_back(n);
    return out;
}

}  // namespace nnef
