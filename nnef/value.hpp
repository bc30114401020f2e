// Values of NNEF expressions and operation attributes, and NNEF types. std-only.
#pragma once
#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace nnef {

// Primitive data types. `generic` is `?`; `none` is the item of an unbound `tensor<>` and the
// dtype of a tensor whose type is not known (e.g. outputs of custom operations).
enum class PrimType : std::uint8_t { integer, scalar, logical, string, generic, none };
const char* to_string(PrimType);

// An NNEF type: primitive, tensor<primitive>, array of T, or tuple of Ts.
class Type {
public:
    enum class Kind : std::uint8_t { primitive, tensor, array, tuple };

    Type() = default;
    static Type primitive(PrimType p) { return Type(Kind::primitive, p, {}); }
    static Type tensor(PrimType p) { return Type(Kind::tensor, p, {}); }
    // Arrays of primitive and tensor types are shared instances (no allocation).
    static Type array(Type item) {
        if (!item.items_) return simple_array(item.kind_, item.prim_);
        return Type(Kind::array, PrimType::none, {std::move(item)});
    }
    static Type tuple(std::vector<Type> items) { return Type(Kind::tuple, PrimType::none, std::move(items)); }

    Kind kind() const { return kind_; }
    bool is_primitive() const { return kind_ == Kind::primitive; }
    bool is_tensor() const { return kind_ == Kind::tensor; }
    bool is_array() const { return kind_ == Kind::array; }
    bool is_tuple() const { return kind_ == Kind::tuple; }
    PrimType prim() const { return prim_; }  // primitive and tensor kinds
    const Type& item() const { return items().front(); }  // array kind
    const std::vector<Type>& items() const { return items_ ? *items_ : no_items(); }  // tuple kind (array: one item)

    // True if the type contains a tensor anywhere (a "tensor type" in the spec's sense when
    // is_tensor() or an array/tuple of tensors).
    bool contains_tensor() const;
    // True if the type contains `?` anywhere.
    bool is_generic() const;
    // Replaces every `?` by p.
    Type bind(PrimType p) const;

    friend bool operator==(const Type& a, const Type& b) {
        return a.kind_ == b.kind_ && a.prim_ == b.prim_ && (a.items_ == b.items_ || a.items() == b.items());
    }
    friend bool operator!=(const Type& a, const Type& b) { return !(a == b); }

private:
    Type(Kind k, PrimType p, std::vector<Type> items)
        : kind_(k), prim_(p), items_(items.empty() ? nullptr : std::make_shared<const std::vector<Type>>(std::move(items))) {}
    static Type simple_array(Kind item_kind, PrimType item_prim);
    static const std::vector<Type>& no_items() {
        static const std::vector<Type> none;
        return none;
    }
    Kind kind_ = Kind::primitive;
    PrimType prim_ = PrimType::none;
    // Immutable and shared: copying a type (the checker does so constantly) copies no items.
    std::shared_ptr<const std::vector<Type>> items_;
};

// NNEF spelling: `integer`, `tensor<scalar>`, `tensor<>`, `integer[]`, `(integer,integer)[]`.
std::string to_string(const Type&);

// A compile-time value: none | integer | scalar | logical | string | identifier (a tensor
// name) | array | tuple.
//
// 16 bytes. Strings, identifiers and lists live in immutable, reference-counted blocks: copying a
// Value never copies its text or items, so a graph can share one block between every operation
// that names the same tensor or passes the same literal. mutable_items() detaches a shared list
// before it is changed (copy on write). Accessors for the wrong kind throw std::logic_error.
class Value {
public:
    enum class Kind : std::uint8_t { none, integer, scalar, logical, string, identifier, array, tuple };
    using Items = std::vector<Value>;

    Value() noexcept : kind_(Kind::none) { u_.i = 0; }
    Value(const Value& o) noexcept : kind_(o.kind_), u_(o.u_) { retain(); }
    Value(Value&& o) noexcept : kind_(o.kind_), u_(o.u_) {
        o.kind_ = Kind::none;
        o.u_.i = 0;
    }
    Value& operator=(const Value& o) noexcept {
        Value t(o);
        swap(t);
        return *this;
    }
    Value& operator=(Value&& o) noexcept {
        Value t(std::move(o));
        swap(t);
        return *this;
    }
    ~Value() { release(); }
    void swap(Value& o) noexcept {
        std::swap(kind_, o.kind_);
        std::swap(u_, o.u_);
    }

    static Value integer(std::int64_t v) {
        Value r(Kind::integer);
        r.u_.i = v;
        return r;
    }
    static Value scalar(double v) {
        Value r(Kind::scalar);
        r.u_.d = v;
        return r;
    }
    static Value logical(bool v) {
        Value r(Kind::logical);
        r.u_.b = v;
        return r;
    }
    static Value string(std::string v) { return Value(Kind::string, new StrRep(std::move(v))); }
    static Value identifier(std::string v) { return Value(Kind::identifier, new StrRep(std::move(v))); }
    static Value array(Items v = {}) { return Value(Kind::array, new ListRep(std::move(v))); }
    static Value tuple(Items v) { return Value(Kind::tuple, new ListRep(std::move(v))); }

    Kind kind() const { return kind_; }
    bool is_none() const { return kind_ == Kind::none; }
    bool is_integer() const { return kind_ == Kind::integer; }
    bool is_scalar() const { return kind_ == Kind::scalar; }
    bool is_logical() const { return kind_ == Kind::logical; }
    bool is_string() const { return kind_ == Kind::string; }
    bool is_identifier() const { return kind_ == Kind::identifier; }
    bool is_array() const { return kind_ == Kind::array; }
    bool is_tuple() const { return kind_ == Kind::tuple; }
    bool is_list() const { return kind_ == Kind::array || kind_ == Kind::tuple; }
    bool is_primitive() const { return kind_ >= Kind::integer && kind_ <= Kind::string; }

    std::int64_t as_integer() const { return expect(is_integer()), u_.i; }
    double as_scalar() const { return expect(is_scalar()), u_.d; }
    bool as_logical() const { return expect(is_logical()), u_.b; }
    // string and identifier
    const std::string& as_string() const { return expect(is_string()), str()->text; }
    const std::string& as_identifier() const { return expect(is_identifier()), str()->text; }
    // array and tuple
    const Items& items() const { return expect(is_list()), list()->items; }
    // The items for changing them: a list shared with other Values is copied first.
    Items& mutable_items();
    std::size_t size() const { return items().size(); }
    const Value& operator[](std::size_t i) const { return items()[i]; }
    // True when both share one block (a string, identifier or list): equal without comparing.
    bool same_block(const Value& o) const { return kind_ == o.kind_ && counted() && u_.rep == o.u_.rep; }

    // Deep equality (the spec's `==` and `in` on compile-time values).
    friend bool operator==(const Value& a, const Value& b);
    friend bool operator!=(const Value& a, const Value& b) { return !(a == b); }

private:
    struct Counted {
        std::atomic<std::uint32_t> refs{1};
    };
    struct StrRep : Counted {
        explicit StrRep(std::string t) : text(std::move(t)) {}
        std::string text;
    };
    struct ListRep : Counted {
        explicit ListRep(Items v) : items(std::move(v)) {}
        Items items;
    };
    union Payload {
        std::int64_t i;
        double d;
        bool b;
        Counted* rep;  // StrRep for string and identifier, ListRep for array and tuple
    };

    explicit Value(Kind k) noexcept : kind_(k) { u_.i = 0; }
    Value(Kind k, Counted* rep) noexcept : kind_(k) { u_.rep = rep; }
    bool counted() const { return kind_ >= Kind::string; }
    const StrRep* str() const { return static_cast<const StrRep*>(u_.rep); }
    const ListRep* list() const { return static_cast<const ListRep*>(u_.rep); }
    void retain() const noexcept {
        if (counted()) u_.rep->refs.fetch_add(1, std::memory_order_relaxed);
    }
    void release() noexcept;
    static void expect(bool ok) {
        if (!ok) wrong_kind();
    }
    [[noreturn]] static void wrong_kind();

    Kind kind_;
    Payload u_;
};

// NNEF literal syntax: `1`, `1.5`, `true`, `'text'` (escaped), identifiers bare, `[a, b]`, `(a, b)`.
// Scalars use the shortest form that reads back to the same double and always contain `.`,
// `e`, `inf` or `nan`.
std::string to_string(const Value&);
std::string format_scalar(double);
// Quotes and escapes a string as an NNEF string literal (single quotes).
std::string quote(const std::string&);

}  // namespace nnef
