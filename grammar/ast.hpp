// The NNEF document AST produced by grammar::parse and consumed by semantics. Plain C++ (no X3
// types): every node carries a self-contained SourceRange.
#pragma once
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <new>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <unordered_set>
#include <utility>
#include <vector>

#include <nnef/source.hpp>
#include <nnef/value.hpp>

namespace nnef::ast {

// ---- compact storage for the rare or small fields of Expr ----------------------------------------
// A big flat graph is millions of Exprs, so every field costs: these keep an empty field at one
// pointer and a non-empty one at one allocation.

// A vector of one pointer: size, capacity and items share one heap block (none while empty).
template <class T>
class SmallVec {
public:
    SmallVec() = default;
    SmallVec(const SmallVec& o) {
        if (o.empty()) return;
        reserve(o.size());
        for (const T& x : o) emplace_back(x);
    }
    SmallVec(SmallVec&& o) noexcept : h_(std::exchange(o.h_, nullptr)) {}
    SmallVec& operator=(const SmallVec& o) {
        if (this != &o) {
            SmallVec t(o);
            swap(t);
        }
        return *this;
    }
    SmallVec& operator=(SmallVec&& o) noexcept {
        if (this != &o) {
            SmallVec t(std::move(o));
            swap(t);
        }
        return *this;
    }
    ~SmallVec() { release(); }
    void swap(SmallVec& o) noexcept { std::swap(h_, o.h_); }

    std::size_t size() const { return h_ ? h_->size : 0; }
    bool empty() const { return size() == 0; }
    T* begin() { return data(); }
    T* end() { return data() + size(); }
    const T* begin() const { return data(); }
    const T* end() const { return data() + size(); }
    T& operator[](std::size_t i) { return data()[i]; }
    const T& operator[](std::size_t i) const { return data()[i]; }
    const T& at(std::size_t i) const {
        if (i >= size()) throw std::out_of_range("SmallVec::at");
        return data()[i];
    }
    T& front() { return data()[0]; }
    T& back() { return data()[size() - 1]; }
    const T& front() const { return data()[0]; }
    const T& back() const { return data()[size() - 1]; }

    void reserve(std::size_t n) {
        if (n > capacity()) regrow(n);
    }
    template <class... A>
    T& emplace_back(A&&... a) {
        const std::size_t n = size();
        if (n == capacity()) {
            // Builds the new item first: `a` may refer to an item of this vector.
            Header* h = allocate(n < 2 ? 2 : 2 * n);
            try {
                new (items(h) + n) T(std::forward<A>(a)...);
            } catch (...) {
                ::operator delete(h);
                throw;
            }
            move_into(h);
            h_->size = static_cast<std::uint32_t>(n + 1);
        } else {
            new (data() + n) T(std::forward<A>(a)...);
            ++h_->size;
        }
        return back();
    }
    void push_back(const T& x) { emplace_back(x); }
    void push_back(T&& x) { emplace_back(std::move(x)); }
    void clear() {
        for (T& x : *this) x.~T();
        if (h_) h_->size = 0;
    }
    void shrink_to_fit() {
        if (empty())
            release();
        else if (size() < capacity())
            regrow(size());
    }

    friend bool operator==(const SmallVec& a, const SmallVec& b) {
        if (a.size() != b.size()) return false;
        for (std::size_t i = 0; i < a.size(); ++i)
            if (!(a[i] == b[i])) return false;
        return true;
    }
    friend bool operator==(const SmallVec& a, const std::vector<T>& b) {
        if (a.size() != b.size()) return false;
        for (std::size_t i = 0; i < a.size(); ++i)
            if (!(a[i] == b[i])) return false;
        return true;
    }
    friend bool operator!=(const SmallVec& a, const SmallVec& b) { return !(a == b); }
    friend bool operator!=(const SmallVec& a, const std::vector<T>& b) { return !(a == b); }

private:
    struct Header {
        std::uint32_t size;
        std::uint32_t cap;
    };
    static constexpr std::size_t kOffset = (sizeof(Header) + alignof(T) - 1) / alignof(T) * alignof(T);
    static_assert(alignof(T) <= alignof(std::max_align_t), "SmallVec: over-aligned items");
    static T* items(Header* h) { return reinterpret_cast<T*>(reinterpret_cast<char*>(h) + kOffset); }
    std::size_t capacity() const { return h_ ? h_->cap : 0; }
    T* data() const { return h_ ? items(h_) : nullptr; }
    static Header* allocate(std::size_t cap) {
        if (cap > UINT32_MAX) throw std::length_error("SmallVec: too many items");
        auto* h = static_cast<Header*>(::operator new(kOffset + cap * sizeof(T)));
        h->size = 0;
        h->cap = static_cast<std::uint32_t>(cap);
        return h;
    }
    // Moves the items into `h` (same size), frees the old block and adopts `h`.
    void move_into(Header* h) noexcept {
        const std::size_t n = size();
        T* from = data();
        T* to = items(h);
        for (std::size_t i = 0; i < n; ++i) {
            new (to + i) T(std::move(from[i]));
            from[i].~T();
        }
        if (h_) ::operator delete(h_);
        h_ = h;
        h_->size = static_cast<std::uint32_t>(n);
    }
    void regrow(std::size_t cap) { move_into(allocate(cap)); }
    void release() noexcept {
        if (!h_) return;
        for (T& x : *this) x.~T();
        ::operator delete(h_);
        h_ = nullptr;
    }
    Header* h_ = nullptr;
};

// An optional of one pointer (the value on the heap), for fields that are rarely set.
template <class T>
class Boxed {
public:
    Boxed() = default;
    Boxed(const Boxed& o) : p_(o.p_ ? new T(*o.p_) : nullptr) {}
    Boxed(Boxed&& o) noexcept : p_(std::exchange(o.p_, nullptr)) {}
    Boxed& operator=(const Boxed& o) {
        if (this != &o) {
            Boxed t(o);
            std::swap(p_, t.p_);
        }
        return *this;
    }
    Boxed& operator=(Boxed&& o) noexcept {
        if (this != &o) {
            Boxed t(std::move(o));
            std::swap(p_, t.p_);
        }
        return *this;
    }
    Boxed& operator=(T v) {
        if (p_)
            *p_ = std::move(v);
        else
            p_ = new T(std::move(v));
        return *this;
    }
    ~Boxed() { delete p_; }
    void reset() {
        delete p_;
        p_ = nullptr;
    }
    bool has_value() const { return p_ != nullptr; }
    explicit operator bool() const { return p_ != nullptr; }
    T& operator*() { return *p_; }
    const T& operator*() const { return *p_; }
    T* operator->() { return p_; }
    const T* operator->() const { return p_; }
    // As a std::optional (e.g. for interfaces that take one).
    std::optional<T> optional() const { return p_ ? std::optional<T>(*p_) : std::nullopt; }

private:
    T* p_ = nullptr;
};

// An operator spelling of the grammar ("+", "<=", "in", ...), interned: one pointer to a string
// that lives as long as the program. Compares and concatenates like the std::string it names.
class OpName {
public:
    OpName() = default;
    explicit OpName(std::string_view s) : p_(intern(s)) {}
    const std::string& str() const { return p_ ? *p_ : empty_string(); }
    operator const std::string&() const { return str(); }
    bool empty() const { return str().empty(); }
    std::size_t size() const { return str().size(); }
    const char* c_str() const { return str().c_str(); }

    friend bool operator==(const OpName& a, const OpName& b) { return a.str() == b.str(); }
    friend bool operator!=(const OpName& a, const OpName& b) { return !(a == b); }
    friend bool operator==(const OpName& a, const char* b) { return a.str() == b; }
    friend bool operator!=(const OpName& a, const char* b) { return a.str() != b; }
    friend bool operator==(const OpName& a, const std::string& b) { return a.str() == b; }
    friend bool operator!=(const OpName& a, const std::string& b) { return a.str() != b; }
    friend bool operator==(const char* a, const OpName& b) { return b == a; }
    friend bool operator!=(const char* a, const OpName& b) { return b != a; }
    friend std::string operator+(const char* a, const OpName& b) { return a + b.str(); }
    friend std::string operator+(const std::string& a, const OpName& b) { return a + b.str(); }
    friend std::string operator+(std::string&& a, const OpName& b) { return std::move(a) + b.str(); }
    friend std::string operator+(const OpName& a, const char* b) { return a.str() + b; }
    friend std::string operator+(const OpName& a, const std::string& b) { return a.str() + b; }

private:
    static const std::string& empty_string() {
        static const std::string e;
        return e;
    }
    static const std::string* intern(std::string_view s) {
        if (s.empty()) return nullptr;
        static const std::string known[] = {"+", "-", "*", "/", "^", "<", "<=", ">", ">=",
                                            "==", "!=", "&&", "||", "!", "in"};
        for (const std::string& k : known)
            if (k == s) return &k;
        static std::mutex mutex;
        static std::unordered_set<std::string> others;  // nodes never move
        std::lock_guard<std::mutex> lock(mutex);
        return &*others.emplace(s).first;
    }
    const std::string* p_ = nullptr;
};

enum class ExprKind : std::uint8_t {
    integer,        // ival; `text` holds the literal as written
    scalar,         // sval; `text` holds the literal as written
    logical,        // bval
    string,         // text (unescaped)
    identifier,     // text
    array,          // items: children
    tuple,          // items: children (also parenthesised lvalue tuples and bare `a, b` lvalues)
    unary,          // op: "-", "+", "!"; children[0]
    binary,         // op: "+ - * / ^ < <= > >= == != && || in"; children[0], children[1]
    if_else,        // children: [0] then-value, [1] condition, [2] else-value
    comprehension,  // names: loop variables; children: iterables (names.size()), then the
                    // filter if has_filter, then the yield expression (last)
    subscript,      // children: [0] object, [1] index
    range,          // children: [0] object, then begin if has_begin, then end if has_end
    builtin,        // text: shape_of length_of range_of integer scalar logical string; children[0]
    invocation,     // text: operation name; generic: explicit <type>; children: arguments;
                    // arg_names[i]: "" for positional, else the name of a named argument
    paren,          // children[0]: a parenthesised expression `(e)` (kept for faithful ranges)
};

// Fields in an order without padding holes (a big flat graph has millions of Exprs).
struct Expr {
    ExprKind kind = ExprKind::integer;
    bool bval = false;
    bool has_filter = false;  // comprehension
    bool has_begin = false;   // range
    bool has_end = false;     // range
    bool negative_literal = false;  // integer/scalar written with a leading '-' (flat syntax)
    SourceRange range;
    std::int64_t ival = 0;
    double sval = 0.0;
    std::string text;
    OpName op;
    SmallVec<std::string> arg_names;   // invocation
    SmallVec<SourceRange> arg_name_ranges;
    std::vector<Expr> children;

    // Rare parts, out of line (one pointer while unset).
    struct Rare {
        std::optional<Type> generic;            // invocation `<type>`
        SourceRange generic_range;              // range of the `<type>` part
        std::vector<std::string> names;         // comprehension loop variables
        std::vector<SourceRange> name_ranges;
    };
    const std::optional<Type>& generic() const { return rare_ ? rare_->generic : no_rare().generic; }
    SourceRange generic_range() const { return rare_ ? rare_->generic_range : SourceRange{}; }
    const std::vector<std::string>& names() const { return rare_ ? rare_->names : no_rare().names; }
    const std::vector<SourceRange>& name_ranges() const { return rare_ ? rare_->name_ranges : no_rare().name_ranges; }
    Rare& rare() {  // creates them
        if (!rare_) rare_ = Rare{};
        return *rare_;
    }

private:
    static const Rare& no_rare() {
        static const Rare none;
        return none;
    }
    Boxed<Rare> rare_;
};
static_assert(sizeof(SourceRange) != 12 || sizeof(void*) != 8 || sizeof(std::string) != 32 || sizeof(Expr) <= 128,
              "Expr grew: keep it compact");

struct Assignment {
    Expr lhs;  // identifier | array | tuple of lvalues
    Expr rhs;  // invocation in flat syntax; any expression with operator expressions
    SourceRange range;
};

struct Param {
    std::string name;
    SourceRange name_range;
    Type type;
    SourceRange type_range;
    std::optional<Expr> default_value;
};

struct Result {
    std::string name;
    SourceRange name_range;
    Type type;
    SourceRange type_range;
};

struct Fragment {
    std::string name;
    SourceRange name_range;
    bool generic = false;               // `<?>` or `<? = T>`
    std::optional<PrimType> generic_default;  // the T of `<? = T>`
    std::vector<Param> params;
    std::vector<Result> results;
    std::optional<std::vector<Assignment>> body;  // nullopt: body-less declaration `...;`
    SourceRange range;
};

struct Identifier {
    std::string name;
    SourceRange range;
};

struct GraphDef {
    std::string name;
    SourceRange name_range;
    std::vector<Identifier> params;
    std::vector<Identifier> results;
    std::vector<Assignment> body;
    SourceRange range;
};

struct Document {
    int version_major = 1;
    int version_minor = 0;
    SourceRange version_range;
    std::vector<Identifier> extensions;
    std::vector<Fragment> fragments;
    std::optional<GraphDef> graph;  // always set for a parsed document; the stdlib has none
    std::uint32_t file = 0;         // SourceManager id of the text
};

// One line of a quantization file (spec 5.3): `"tensor-id": algorithm(name = value, ...);`.
struct QuantEntry {
    std::string tensor;        // the identifier between the quotes (unescaped)
    SourceRange tensor_range;  // the quoted string, quotes included
    Expr invocation;           // ExprKind::invocation: the algorithm and its arguments
    SourceRange range;         // the whole entry, through the ';'
};

struct QuantDocument {
    std::vector<QuantEntry> entries;
    std::uint32_t file = 0;  // SourceManager id of the text
};

}  // namespace nnef::ast
