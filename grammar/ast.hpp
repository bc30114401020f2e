// The NNEF document AST produced by grammar::parse and consumed by semantics. Plain C++ (no X3
// types): every node carries a self-contained SourceRange.
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <type_traits>
#include <mutex>
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

// ---- storage ---------------------------------------------------------------------------------
// The nodes of a document live in an Arena the Document owns; text (identifiers, operation names,
// numeric literals) is a view into the source buffer, which the SourceManager owns and never moves.
// So an Expr is trivially copyable and destructible: building, copying and dropping a statement's
// nodes costs no allocation per node.

// Bump allocation in chunks; everything is freed together (reset() keeps the first chunk).
class Arena {
public:
    Arena() = default;
    Arena(const Arena&) = delete;
    Arena& operator=(const Arena&) = delete;
    ~Arena() { release(); }

    // `align` is a power of two.
    void* allocate(std::size_t bytes, std::size_t align) {
        std::size_t at = head_ ? aligned(used_, align) : 0;
        if (!head_ || at + bytes > head_->size) {
            grow(bytes + align);
            at = aligned(0, align);
        }
        used_ = at + bytes;
        total_ += bytes;
        return data() + at;
    }
    // A copy of [p, p + n) (trivially copyable T).
    template <class T>
    T* copy(const T* p, std::size_t n) {
        if (n == 0) return nullptr;
        T* out = static_cast<T*>(allocate(n * sizeof(T), alignof(T)));
        std::memcpy(static_cast<void*>(out), p, n * sizeof(T));
        return out;
    }
    std::string_view copy(std::string_view s) {
        if (s.empty()) return {};
        char* out = static_cast<char*>(allocate(s.size(), 1));
        std::memcpy(out, s.data(), s.size());
        return std::string_view(out, s.size());
    }
    // Frees every allocation but keeps the most recent chunk for reuse.
    void reset() {
        if (!head_) return;
        Chunk* keep = head_;
        head_ = head_->next;
        release();
        keep->next = nullptr;
        head_ = keep;
        used_ = 0;
        total_ = 0;
    }
    std::size_t bytes() const { return total_; }  // allocated since construction or reset()

private:
    struct alignas(std::max_align_t) Chunk {
        Chunk* next;
        std::size_t size;  // usable bytes after the header
    };
    char* data() const { return reinterpret_cast<char*>(head_ + 1); }
    // The offset from `offset` on in the current chunk whose address is a multiple of `align`.
    std::size_t aligned(std::size_t offset, std::size_t align) const {
        const auto address = reinterpret_cast<std::uintptr_t>(data()) + offset;
        return offset + ((align - address % align) % align);
    }
    void grow(std::size_t at_least) {
        std::size_t size = head_ ? head_->size * 2 : std::size_t(16) << 10;
        if (size > (std::size_t(4) << 20)) size = std::size_t(4) << 20;
        if (size < at_least) size = at_least;
        auto* c = static_cast<Chunk*>(::operator new(sizeof(Chunk) + size));
        c->next = head_;
        c->size = size;
        head_ = c;
        used_ = 0;
    }
    void release() {
        while (head_) {
            Chunk* next = head_->next;
            ::operator delete(head_);
            head_ = next;
        }
    }
    Chunk* head_ = nullptr;
    std::size_t used_ = 0;
    std::size_t total_ = 0;
};

// A read-only run of nodes in an arena.
template <class T>
class List {
public:
    List() = default;
    List(T* data, std::size_t n) : data_(data), size_(static_cast<std::uint32_t>(n)) {}
    std::size_t size() const { return size_; }
    bool empty() const { return size_ == 0; }
    const T* begin() const { return data_; }
    const T* end() const { return data_ + size_; }
    const T& operator[](std::size_t i) const { return data_[i]; }
    const T& at(std::size_t i) const {
        if (i >= size_) throw std::out_of_range("ast::List::at");
        return data_[i];
    }
    const T& front() const { return data_[0]; }
    const T& back() const { return data_[size_ - 1]; }
    // For the grammar, which completes nodes in place (e.g. folding a negative literal).
    T& mutable_at(std::size_t i) const { return data_[i]; }

private:
    T* data_ = nullptr;
    std::uint32_t size_ = 0;
};

// Text of a node: a view (into the source, or into the arena for unescaped strings) that
// concatenates with std::string and converts to one where an owned string is needed.
class Text : public std::string_view {
public:
    using std::string_view::basic_string_view;
    Text(std::string_view s) : std::string_view(s) {}  // NOLINT: implicit on purpose
    std::string str() const { return std::string(*this); }
    operator std::string() const { return str(); }  // NOLINT
    friend std::string operator+(const std::string& a, Text b) { return a + b.str(); }
    friend std::string operator+(std::string&& a, Text b) {
        a.append(b.data(), b.size());
        return std::move(a);
    }
    friend std::string operator+(const char* a, Text b) { return std::string(a) + b.str(); }
    friend std::string operator+(Text a, const std::string& b) { return a.str() + b; }
    friend std::string operator+(Text a, const char* b) { return a.str() + b; }
    friend std::string operator+(Text a, char b) { return a.str() + b; }
    friend bool operator==(Text a, const std::string& b) { return std::string_view(a) == std::string_view(b); }
    friend bool operator==(const std::string& a, Text b) { return std::string_view(a) == std::string_view(b); }
    friend bool operator!=(Text a, const std::string& b) { return !(a == b); }
    friend bool operator!=(const std::string& a, Text b) { return !(a == b); }
    friend bool operator==(Text a, const char* b) { return std::string_view(a) == std::string_view(b); }
    friend bool operator!=(Text a, const char* b) { return std::string_view(a) != std::string_view(b); }
    friend bool operator==(Text a, Text b) { return std::string_view(a) == std::string_view(b); }
    friend bool operator!=(Text a, Text b) { return std::string_view(a) != std::string_view(b); }
};

// A name written in the source with its range: an argument name of an invocation (empty for a
// positional argument) or a loop variable of a comprehension.
struct Name {
    Text text;
    SourceRange range;
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
    integer,        // ival; `text`: the literal as written (a view into the source)
    scalar,         // sval; `text`: the literal as written (a view into the source)
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
    invocation,     // text: operation name; generic_type: explicit <type>; children: arguments;
                    // arg_name(i): "" for positional, else the name of a named argument
    paren,          // children[0]: a parenthesised expression `(e)` (kept for faithful ranges)
};

// A node of an expression. Trivially copyable: children and names are runs in the document's
// arena, text is a view into the source or the arena.
struct Expr {
    ExprKind kind = ExprKind::integer;
    bool bval = false;
    bool has_filter = false;        // comprehension
    bool has_begin = false;         // range
    bool has_end = false;           // range
    bool negative_literal = false;  // integer/scalar written with a leading '-' (flat syntax)
    PrimType generic_type = PrimType::none;  // invocation: the explicit `<type>`, none when absent
    SourceRange range;
    std::uint32_t build_mark = 0;   // the grammar's bookkeeping while the node is being built
    std::uint32_t name_mark = 0;
    SourceRange generic_range_;     // invocation: the `<type>` part
    std::int64_t ival = 0;
    double sval = 0.0;
    Text text;
    OpName op;
    List<Expr> children;
    // Invocation: one Name per child (empty text: positional). Comprehension: the loop variables.
    const Name* names_ = nullptr;

    // Invocations.
    Text arg_name(std::size_t i) const { return names_ ? names_[i].text : Text(); }
    SourceRange arg_name_range(std::size_t i) const { return names_ ? names_[i].range : SourceRange{}; }
    std::optional<Type> generic() const {
        return generic_type == PrimType::none ? std::nullopt : std::optional<Type>(Type::primitive(generic_type));
    }
    SourceRange generic_range() const { return generic_type == PrimType::none ? SourceRange{} : generic_range_; }
    // Comprehensions: the loop variables (one per iterable).
    List<const Name> names() const {
        if (kind != ExprKind::comprehension) return {};
        return List<const Name>(names_, children.size() - 1 - (has_filter ? 1 : 0));
    }
};
static_assert(std::is_trivially_copyable_v<Expr> && std::is_trivially_destructible_v<Expr>,
              "Expr lives in an arena: no destructor runs");

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
    std::shared_ptr<Arena> arena = std::make_shared<Arena>();  // every node of the document
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
    std::shared_ptr<Arena> arena = std::make_shared<Arena>();
    std::vector<QuantEntry> entries;
    std::uint32_t file = 0;  // SourceManager id of the text
};

}  // namespace nnef::ast
