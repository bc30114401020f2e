#include <nnef/value.hpp>

#include <charconv>
#include <cmath>
#include <stdexcept>

namespace nnef {

const char* to_string(PrimType p) {
    switch (p) {
        case PrimType::integer: return "integer";
        case PrimType::scalar: return "scalar";
        case PrimType::logical: return "logical";
        case PrimType::string: return "string";
        case PrimType::generic: return "?";
        case PrimType::none: return "";
    }
    return "";
}

bool Type::contains_tensor() const {
    if (kind_ == Kind::tensor) return true;
    for (const Type& t : items())
        if (t.contains_tensor()) return true;
    return false;
}

bool Type::is_generic() const {
    if ((kind_ == Kind::primitive || kind_ == Kind::tensor) && prim_ == PrimType::generic) return true;
    for (const Type& t : items())
        if (t.is_generic()) return true;
    return false;
}

Type Type::simple_array(Kind item_kind, PrimType item_prim) {
    constexpr std::size_t prims = static_cast<std::size_t>(PrimType::none) + 1;
    static const std::vector<Type> cache = [] {
        std::vector<Type> all;
        all.reserve(2 * prims);
        for (Kind k : {Kind::primitive, Kind::tensor})
            for (std::size_t p = 0; p < prims; ++p)
                all.push_back(Type(Kind::array, PrimType::none, {Type(k, static_cast<PrimType>(p), {})}));
        return all;
    }();
    return cache[(item_kind == Kind::tensor ? prims : 0) + static_cast<std::size_t>(item_prim)];
}

Type Type::bind(PrimType p) const {
    if (!is_generic()) return *this;  // shares the items
    Type t = *this;
    if ((t.kind_ == Kind::primitive || t.kind_ == Kind::tensor) && t.prim_ == PrimType::generic) t.prim_ = p;
    if (t.items_) {
        std::vector<Type> items;
        items.reserve(t.items_->size());
        for (const Type& i : *t.items_) items.push_back(i.bind(p));
        t.items_ = std::make_shared<const std::vector<Type>>(std::move(items));
    }
    return t;
}

std::string to_string(const Type& t) {
    switch (t.kind()) {
        case Type::Kind::primitive: return to_string(t.prim());
        case Type::Kind::tensor: return std::string("tensor<") + to_string(t.prim()) + ">";
        case Type::Kind::array: {
            const Type& item = t.item();
            return to_string(item) + "[]";
        }
        case Type::Kind::tuple: {
            std::string s = "(";
            for (std::size_t i = 0; i < t.items().size(); ++i) {
                if (i) s += ',';
                s += to_string(t.items()[i]);
            }
            return s + ")";
        }
    }
    return {};
}

// ---- Value ------------------------------------------------------------------------------------

void Value::release() noexcept {
    if (!counted()) return;
    if (u_.rep->refs.fetch_sub(1, std::memory_order_acq_rel) != 1) return;
    if (kind_ == Kind::string || kind_ == Kind::identifier)
        delete static_cast<StrRep*>(u_.rep);
    else
        delete static_cast<ListRep*>(u_.rep);
}

void Value::wrong_kind() { throw std::logic_error("nnef::Value: accessor does not match the value's kind"); }

Value::Items& Value::mutable_items() {
    expect(is_list());
    auto* l = static_cast<ListRep*>(u_.rep);
    if (l->refs.load(std::memory_order_acquire) != 1) {
        auto* copy = new ListRep(l->items);
        release();
        u_.rep = copy;
        l = copy;
    }
    return l->items;
}

bool operator==(const Value& a, const Value& b) {
    if (a.kind_ != b.kind_) return false;
    switch (a.kind_) {
        case Value::Kind::none: return true;
        case Value::Kind::integer: return a.u_.i == b.u_.i;
        case Value::Kind::scalar: return a.u_.d == b.u_.d;
        case Value::Kind::logical: return a.u_.b == b.u_.b;
        case Value::Kind::string:
        case Value::Kind::identifier: return a.u_.rep == b.u_.rep || a.str()->text == b.str()->text;
        case Value::Kind::array:
        case Value::Kind::tuple: return a.u_.rep == b.u_.rep || a.list()->items == b.list()->items;
    }
    return false;
}

std::string format_scalar(double v) {
    if (std::isnan(v)) return "nan";
    if (std::isinf(v)) return v < 0 ? "-inf" : "inf";
    char buf[64];
    auto res = std::to_chars(buf, buf + sizeof buf, v);
    std::string s(buf, res.ptr);
    if (s.find_first_of(".e") == std::string::npos) s += ".0";
    return s;
}

std::string quote(const std::string& s) {
    std::string out = "'";
    for (char c : s) {
        if (c == '\'' || c == '\\') out += '\\';
        out += c;
    }
    out += '\'';
    return out;
}

std::string to_string(const Value& v) {
    switch (v.kind()) {
        case Value::Kind::none: return "none";
        case Value::Kind::integer: return std::to_string(v.as_integer());
        case Value::Kind::scalar: return format_scalar(v.as_scalar());
        case Value::Kind::logical: return v.as_logical() ? "true" : "false";
        case Value::Kind::string: return quote(v.as_string());
        case Value::Kind::identifier: return v.as_identifier();
        case Value::Kind::array:
        case Value::Kind::tuple: {
            bool arr = v.is_array();
            std::string s = arr ? "[" : "(";
            for (std::size_t i = 0; i < v.size(); ++i) {
                if (i) s += ", ";
                s += to_string(v[i]);
            }
            return s + (arr ? "]" : ")");
        }
    }
    return {};
}

}  // namespace nnef
