// Values of NNEF expressions and operation attributes, and NNEF types. std-only.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <variant>
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
    static Type array(Type item) { return Type(Kind::array, PrimType::none, {std::move(item)}); }
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
class Value {
public:
    enum class Kind : std::uint8_t { none, integer, scalar, logical, string, identifier, array, tuple };
    using Items = std::vector<Value>;

    Value() = default;
    static Value integer(std::int64_t v) { return Value(Kind::integer, v); }
    static Value scalar(double v) { return Value(Kind::scalar, v); }
    static Value logical(bool v) { return Value(Kind::logical, v); }
    static Value string(std::string v) { return Value(Kind::string, std::move(v)); }
    static Value identifier(std::string v) { return Value(Kind::identifier, std::move(v)); }
    static Value array(Items v = {}) { return Value(Kind::array, std::move(v)); }
    static Value tuple(Items v) { return Value(Kind::tuple, std::move(v)); }

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

    std::int64_t as_integer() const { return std::get<std::int64_t>(data_); }
    double as_scalar() const { return std::get<double>(data_); }
    bool as_logical() const { return std::get<bool>(data_); }
    // string and identifier
    const std::string& as_string() const { return std::get<std::string>(data_); }
    const std::string& as_identifier() const { return std::get<std::string>(data_); }
    // array and tuple
    const Items& items() const { return std::get<Items>(data_); }
    Items& items() { return std::get<Items>(data_); }
    std::size_t size() const { return items().size(); }
    const Value& operator[](std::size_t i) const { return items()[i]; }

    // Deep equality (the spec's `==` and `in` on compile-time values).
    friend bool operator==(const Value& a, const Value& b) { return a.kind_ == b.kind_ && a.data_ == b.data_; }
    friend bool operator!=(const Value& a, const Value& b) { return !(a == b); }

private:
    using Data = std::variant<std::monostate, std::int64_t, double, bool, std::string, Items>;
    template <class T>
    Value(Kind k, T&& v) : kind_(k), data_(std::forward<T>(v)) {}
    Kind kind_ = Kind::none;
    Data data_;
};

// NNEF literal syntax: `1`, `1.5`, `true`, `'text'` (escaped), identifiers bare, `[a, b]`, `(a, b)`.
// Scalars use the shortest form that reads back to the same double and always contain `.`,
// `e`, `inf` or `nan`.
std::string to_string(const Value&);
std::string format_scalar(double);
// Quotes and escapes a string as an NNEF string literal (single quotes).
std::string quote(const std::string&);

}  // namespace nnef
