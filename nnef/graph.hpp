// The flat graph: tensors and atomic operations in topological order. std-only.
#pragma once
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include <nnef/source.hpp>
#include <nnef/value.hpp>

namespace nnef {

using Shape = std::vector<std::int64_t>;
std::string to_string(const Shape&);  // "[1,3,224,224]"

// Named attribute / argument lists in declaration order.
using NamedValues = std::vector<std::pair<std::string, Value>>;
const Value* find(const NamedValues& list, std::string_view name);

// Where an operation of the flat graph comes from: the invocation that produced it, and the chain
// of fragment call sites it was expanded through (innermost first).
struct CallSite {
    std::string fragment;
    SourceRange range;
    // The number of this fragment body's expansion in the graph (1-based): tells apart invocations
    // at one call site (in a comprehension, or a recursive fragment), for pictures (nnef-draw).
    std::uint64_t invocation = 0;
};

// A chain of call sites, innermost first: a persistent list, so that the operations made in one
// fragment body share their chain and each call site is stored once, however many operations are
// made below it (an operation costs one shared pointer, not a copy of a chain as deep as the
// expansion). Iteration and indexing go from the innermost call site outwards.
class CallChain {
    struct Node {
        CallSite site;
        std::shared_ptr<const Node> outer;
        std::size_t size;
    };

public:
    class iterator {
    public:
        using iterator_category = std::forward_iterator_tag;
        using value_type = CallSite;
        using difference_type = std::ptrdiff_t;
        using pointer = const CallSite*;
        using reference = const CallSite&;
        iterator() = default;
        reference operator*() const { return node_->site; }
        pointer operator->() const { return &node_->site; }
        iterator& operator++() {
            node_ = node_->outer.get();
            return *this;
        }
        iterator operator++(int) {
            iterator old = *this;
            ++*this;
            return old;
        }
        bool operator==(const iterator& o) const { return node_ == o.node_; }
        bool operator!=(const iterator& o) const { return node_ != o.node_; }

    private:
        friend class CallChain;
        explicit iterator(const Node* n) : node_(n) {}
        const Node* node_ = nullptr;
    };

    CallChain() = default;
    // This chain called `site`: the result has `site` innermost, this chain outside it.
    CallChain called(CallSite site) const {
        CallChain c;
        c.head_ = std::make_shared<const Node>(Node{std::move(site), head_, size() + 1});
        return c;
    }
    // Without the innermost call site.
    CallChain outer() const {
        CallChain c;
        if (head_) c.head_ = head_->outer;
        return c;
    }
    std::size_t size() const { return head_ ? head_->size : 0; }
    bool empty() const { return !head_; }
    const CallSite& front() const { return head_->site; }  // the innermost; not on an empty chain
    const CallSite& operator[](std::size_t i) const {      // i-th from the innermost; linear in i
        const Node* n = head_.get();
        while (i-- > 0) n = n->outer.get();
        return n->site;
    }
    iterator begin() const { return iterator(head_.get()); }
    iterator end() const { return iterator(); }

private:
    std::shared_ptr<const Node> head_;
};

struct Provenance {
    SourceRange range;
    CallChain chain;
};

// Quantization attached to a tensor (from graph.quant or a quantization operation).
struct Quantization {
    std::string algorithm;  // e.g. "linear_quantize"
    NamedValues arguments;  // compile-time arguments, declaration order
    SourceRange range;      // the graph.quant entry, for diagnostics (none if not from graph.quant)
};

struct TensorData;  // defined by the storage layer

struct Tensor {
    std::string name;
    PrimType dtype = PrimType::none;  // none: unknown
    std::optional<Shape> shape;       // nullopt: unknown (e.g. downstream of a custom operation)
    // Set from graph.quant; shared, so that a tensor stays small when (as mostly) there is none.
    std::shared_ptr<const Quantization> quantization;
    std::shared_ptr<const TensorData> data;  // variables with loaded weights
};

struct Operation {
    std::string name;                 // the operation (fragment) name
    PrimType dtype = PrimType::none;  // the bound generic type, none if not generic
    NamedValues attribs;              // attribute parameters, declaration order
    NamedValues inputs;               // tensor parameters, declaration order
    NamedValues outputs;              // results, declaration order
    Provenance provenance;

    const Value* attrib(std::string_view n) const { return find(attribs, n); }
    const Value* input(std::string_view n) const { return find(inputs, n); }
    const Value* output(std::string_view n) const { return find(outputs, n); }
};

struct Graph {
    std::string name;
    std::vector<std::string> inputs;
    std::vector<std::string> outputs;
    std::vector<Tensor> tensors;
    std::vector<Operation> operations;

    Tensor* tensor(std::string_view n);
    const Tensor* tensor(std::string_view n) const;
    // Adds a tensor (name must be new) and returns it.
    Tensor& add_tensor(std::string n, PrimType dtype = PrimType::none, std::optional<Shape> shape = {});
    // A hint that `n` will be looked up or added soon: starts fetching its place in the index.
    void prefetch(std::string_view n) const { prefetch_hashed(hash_name(n)); }
    // Adds a tensor unless the name is taken (then nullptr): one look-up for both.
    Tensor* try_add_tensor(std::string_view n, PrimType dtype = PrimType::none) {
        return try_add_tensor_hashed(n, hash_name(n), dtype);
    }
    // The hash of a name in the index, and the above with it computed beforehand (possibly on
    // another thread).
    static std::uint32_t hash_name(std::string_view n) {
        // Eight bytes at a time (names are read once to hash them, often on the scanning thread).
        constexpr std::uint64_t m = 0xFF51AFD7ED558CCDull;
        std::uint64_t h = 0x9E3779B97F4A7C15ull ^ n.size();
        const char* p = n.data();
        std::size_t k = n.size();
        for (; k >= 8; k -= 8, p += 8) {
            std::uint64_t w = 0;
            for (int i = 0; i < 8; ++i) w |= std::uint64_t(static_cast<unsigned char>(p[i])) << (8 * i);
            h = (h ^ w) * m;
            h ^= h >> 32;
        }
        if (k > 0) {
            std::uint64_t w = 0;
            for (std::size_t i = 0; i < k; ++i) w |= std::uint64_t(static_cast<unsigned char>(p[i])) << (8 * i);
            h = (h ^ w) * m;
        }
        h ^= h >> 33;
        h *= 0xC4CEB9FE1A85EC53ull;
        h ^= h >> 33;
        return static_cast<std::uint32_t>(h);
    }
    void prefetch_hashed(std::uint32_t hash) const;
    Tensor* tensor_hashed(std::string_view n, std::uint32_t hash);
    Tensor* try_add_tensor_hashed(std::string_view n, std::uint32_t hash, PrimType dtype = PrimType::none);
    // Room for `n` tensors in all: the store and the name index (neither grows while they are added).
    void reserve(std::size_t n);
    // Renames a tensor of this graph (it keeps its position), keeping the name index current.
    void rename_tensor(Tensor& t, std::string n);
    void rebuild_index();

private:
    // Open-addressing name index over `tensors` (no copies of the names): each slot holds a tensor
    // index + 1 (0: empty) and the name's hash; the table size is a power of two. `indexed_` is the
    // number of tensors it covers (a mismatch with tensors.size() triggers a rebuild).
    struct Slot {
        std::uint32_t index = 0;
        std::uint32_t hash = 0;
    };
    std::vector<Slot> index_;
    std::size_t indexed_ = 0;
    std::size_t find_slot(std::string_view n, std::uint32_t h) const;
    void insert_index(std::size_t i);
    void grow_index();  // room for one more name at load factor <= 1/2
    void rehash(std::size_t names);  // room for that many names at load factor <= 1/2
    void erase_index(std::size_t i);
};

}  // namespace nnef
