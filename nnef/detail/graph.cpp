#include <nnef/graph.hpp>
#include <nnef/op_def.hpp>

#include "nnef/detail/huge_pages.hpp"

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

// The slot holding `n`, or the empty slot where it would go.
std::size_t Graph::find_slot(std::string_view n, std::uint32_t h) const {
    const std::size_t mask = index_.size() - 1;
    for (std::size_t i = h & mask;; i = (i + 1) & mask) {
        const Slot& s = index_[i];
        if (s.index == 0 || (s.hash == h && tensors[s.index - 1].name == n)) return i;
    }
}

void Graph::grow_index() {
    if ((indexed_ + 1) * 2 > index_.size()) rehash(indexed_ + 1);
}

void Graph::rehash(std::size_t names) {
    std::size_t cap = 16;
    while (cap < names * 2) cap *= 2;
    if (cap <= index_.size()) return;
    std::vector<Slot> old;
    old.swap(index_);
    index_.reserve(cap);
    detail::advise_huge_pages(index_.data(), cap * sizeof(Slot));
    index_.resize(cap);
    const std::size_t mask = cap - 1;
    for (const Slot& s : old) {
        if (s.index == 0) continue;
        std::size_t k = s.hash & mask;
        while (index_[k].index != 0) k = (k + 1) & mask;
        index_[k] = s;
    }
}

void Graph::reserve(std::size_t n) {
    tensors.reserve(n);
    if (indexed_ != tensors.size()) rebuild_index();
    rehash(n);
}

void Graph::insert_index(std::size_t i) {
    grow_index();
    const std::string& n = tensors[i].name;
    const std::uint32_t h = hash_name(n);
    Slot& s = index_[find_slot(n, h)];
    if (s.index == 0) s = Slot{static_cast<std::uint32_t>(i + 1), h};  // the first of equal names wins
    ++indexed_;
}

Tensor* Graph::tensor(std::string_view n) { return tensor_hashed(n, hash_name(n)); }

Tensor* Graph::tensor_hashed(std::string_view n, std::uint32_t hash) {
    if (indexed_ != tensors.size()) rebuild_index();
    if (index_.empty()) return nullptr;
    const Slot& s = index_[find_slot(n, hash)];
    return s.index == 0 ? nullptr : &tensors[s.index - 1];
}

const Tensor* Graph::tensor(std::string_view n) const { return const_cast<Graph*>(this)->tensor(n); }

Tensor& Graph::add_tensor(std::string n, PrimType dtype, std::optional<Shape> shape) {
    if (indexed_ != tensors.size()) rebuild_index();
    Tensor t;
    t.name = std::move(n);
    t.dtype = dtype;
    t.shape = std::move(shape);
    tensors.push_back(std::move(t));
    insert_index(tensors.size() - 1);
    return tensors.back();
}

void Graph::prefetch_hashed(std::uint32_t hash) const {
    if (index_.empty()) return;
    __builtin_prefetch(&index_[hash & (index_.size() - 1)]);
}

Tensor* Graph::try_add_tensor_hashed(std::string_view n, std::uint32_t h, PrimType dtype) {
    if (indexed_ != tensors.size()) rebuild_index();
    grow_index();
    Slot& s = index_[find_slot(n, h)];
    if (s.index != 0) return nullptr;
    Tensor& t = tensors.emplace_back();
    t.name = n;
    t.dtype = dtype;
    s = Slot{static_cast<std::uint32_t>(tensors.size()), h};
    ++indexed_;
    return &t;
}

// Removes tensor i from the index (backward-shift deletion keeps probe sequences unbroken).
void Graph::erase_index(std::size_t i) {
    if (index_.empty()) return;
    const std::size_t mask = index_.size() - 1;
    std::size_t hole = find_slot(tensors[i].name, hash_name(tensors[i].name));
    if (index_[hole].index != i + 1) return;  // a duplicate name: indexed under the first one
    index_[hole] = Slot{};
    for (std::size_t k = (hole + 1) & mask; index_[k].index != 0; k = (k + 1) & mask) {
        const std::size_t home = index_[k].hash & mask;
        // Move k into the hole unless its home lies cyclically in (hole, k].
        const bool stays = hole <= k ? (home > hole && home <= k) : (home > hole || home <= k);
        if (stays) continue;
        index_[hole] = index_[k];
        index_[k] = Slot{};
        hole = k;
    }
    --indexed_;
}

void Graph::rename_tensor(Tensor& t, std::string n) {
    if (indexed_ != tensors.size()) rebuild_index();
    const std::size_t i = static_cast<std::size_t>(&t - tensors.data());
    erase_index(i);
    t.name = std::move(n);
    insert_index(i);
}

void Graph::rebuild_index() {
    index_.clear();
    indexed_ = 0;
    std::size_t cap = 16;
    while (cap < tensors.size() * 2) cap *= 2;
    index_.assign(cap, Slot{});
    for (std::size_t i = 0; i < tensors.size(); ++i) insert_index(i);
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
