#include "semantics/types.hpp"

#include <algorithm>

namespace nnef::sema {

Type unknown_type() { return Type::primitive(PrimType::none); }

bool is_unknown(const Type& t) { return t.is_primitive() && t.prim() == PrimType::none; }

Type empty_array_type() { return Type::array(unknown_type()); }

bool contains_unknown(const Type& t) {
    if (is_unknown(t)) return true;
    if (t.is_array() || t.is_tuple())
        for (const Type& i : t.items())
            if (contains_unknown(i)) return true;
    return false;
}

Tensorness tensorness(const Type& t) {
    switch (t.kind()) {
        case Type::Kind::primitive: return is_unknown(t) ? Tensorness::maybe : Tensorness::no;
        case Type::Kind::tensor: return Tensorness::yes;
        case Type::Kind::array: return tensorness(t.item());
        case Type::Kind::tuple: {
            bool maybe = false;
            for (const Type& i : t.items()) {
                Tensorness x = tensorness(i);
                if (x == Tensorness::yes) return Tensorness::yes;
                if (x == Tensorness::maybe) maybe = true;
            }
            return maybe ? Tensorness::maybe : Tensorness::no;
        }
    }
    return Tensorness::maybe;
}

bool is_attribute(const Type& t) { return tensorness(t) == Tensorness::no; }

bool contains_unbound_tensor(const Type& t) {
    if (t.is_tensor()) return t.prim() == PrimType::none;
    if (t.is_array() || t.is_tuple())
        for (const Type& i : t.items())
            if (contains_unbound_tensor(i)) return true;
    return false;
}

bool tuple_mixes_tensor_and_attribute(const Type& t) {
    if (t.is_tuple()) {
        bool tensors = false, attributes = false;
        for (const Type& i : t.items()) {
            Tensorness x = tensorness(i);
            if (x == Tensorness::yes) tensors = true;
            if (x == Tensorness::no) attributes = true;
        }
        if (tensors && attributes) return true;
    }
    if (t.is_array() || t.is_tuple())
        for (const Type& i : t.items())
            if (tuple_mixes_tensor_and_attribute(i)) return true;
    return false;
}

bool castable(const Type& from, const Type& to, bool input) {
    if (is_unknown(from) || is_unknown(to)) return true;
    switch (to.kind()) {
        case Type::Kind::primitive:
            return from.is_primitive() && from.prim() == to.prim();
        case Type::Kind::tensor:
            if (from.is_tensor()) return to.prim() == PrimType::none || from.prim() == to.prim();
            if (from.is_primitive())
                return input && (to.prim() == PrimType::none || from.prim() == to.prim());
            return false;
        case Type::Kind::array:
            return from.is_array() && castable(from.item(), to.item(), input);
        case Type::Kind::tuple: {
            if (!from.is_tuple() || from.items().size() != to.items().size()) return false;
            for (std::size_t i = 0; i < to.items().size(); ++i)
                if (!castable(from.items()[i], to.items()[i], input)) return false;
            return true;
        }
    }
    return false;
}

std::optional<Type> common_type(const Type& a, const Type& b) {
    if (is_unknown(a)) return b;
    if (is_unknown(b)) return a;
    if (a.kind() != b.kind()) return std::nullopt;
    switch (a.kind()) {
        case Type::Kind::primitive:
            if (a.prim() == b.prim()) return a;
            return std::nullopt;
        case Type::Kind::tensor:
            if (a.prim() == b.prim()) return a;
            if (a.prim() == PrimType::none || b.prim() == PrimType::none) return Type::tensor(PrimType::none);
            return std::nullopt;
        case Type::Kind::array: {
            auto item = common_type(a.item(), b.item());
            if (!item) return std::nullopt;
            return Type::array(std::move(*item));
        }
        case Type::Kind::tuple: {
            if (a.items().size() != b.items().size()) return std::nullopt;
            std::vector<Type> items;
            for (std::size_t i = 0; i < a.items().size(); ++i) {
                auto item = common_type(a.items()[i], b.items()[i]);
                if (!item) return std::nullopt;
                items.push_back(std::move(*item));
            }
            return Type::tuple(std::move(items));
        }
    }
    return std::nullopt;
}

namespace types_cpp {
void add_candidate(PrimType p, std::vector<PrimType>& out) {
    if (p == PrimType::none) return;
    if (std::find(out.begin(), out.end(), p) == out.end()) out.push_back(p);
}
}  // namespace types_cpp

void collect_generic_candidates(const Type& arg, const Type& param, std::vector<PrimType>& out) {
    if (is_unknown(arg) || !param.is_generic()) return;
    switch (param.kind()) {
        case Type::Kind::primitive:
            if (arg.is_primitive()) types_cpp::add_candidate(arg.prim(), out);
            return;
        case Type::Kind::tensor:
            if (arg.is_tensor() || arg.is_primitive()) types_cpp::add_candidate(arg.prim(), out);
            return;
        case Type::Kind::array:
            if (arg.is_array()) collect_generic_candidates(arg.item(), param.item(), out);
            return;
        case Type::Kind::tuple:
            if (arg.is_tuple() && arg.items().size() == param.items().size())
                for (std::size_t i = 0; i < arg.items().size(); ++i)
                    collect_generic_candidates(arg.items()[i], param.items()[i], out);
            return;
    }
}

Deduction deduce_generic(const std::vector<std::pair<Type, Type>>& arg_param_types) {
    Deduction d;
    for (const auto& [arg, param] : arg_param_types) collect_generic_candidates(arg, param, d.candidates);
    if (d.candidates.size() == 1) {
        d.status = Deduction::Status::unique;
        d.binding = d.candidates.front();
    } else {
        d.status = d.candidates.empty() ? Deduction::Status::none : Deduction::Status::ambiguous;
    }
    return d;
}

Deduction resolve_generic(std::optional<PrimType> explicit_type, std::optional<PrimType> declared_default,
                          const std::vector<std::pair<Type, Type>>& arg_param_types) {
    std::optional<PrimType> given = explicit_type ? explicit_type : declared_default;
    if (!given) return deduce_generic(arg_param_types);
    Deduction d;
    d.status = Deduction::Status::unique;
    d.binding = *given;
    d.candidates = {*given};
    return d;
}

Type type_of(const Value& v, const std::function<Type(const std::string&)>& identifier_type) {
    switch (v.kind()) {
        case Value::Kind::none: return unknown_type();
        case Value::Kind::integer: return Type::primitive(PrimType::integer);
        case Value::Kind::scalar: return Type::primitive(PrimType::scalar);
        case Value::Kind::logical: return Type::primitive(PrimType::logical);
        case Value::Kind::string: return Type::primitive(PrimType::string);
        case Value::Kind::identifier:
            return identifier_type ? identifier_type(v.as_identifier()) : Type::tensor(PrimType::none);
        case Value::Kind::array: {
            Type item = unknown_type();
            for (const Value& i : v.items()) {
                auto c = common_type(item, type_of(i, identifier_type));
                if (!c) return Type::array(unknown_type());
                item = std::move(*c);
            }
            return Type::array(std::move(item));
        }
        case Value::Kind::tuple: {
            std::vector<Type> items;
            for (const Value& i : v.items()) items.push_back(type_of(i, identifier_type));
            return Type::tuple(std::move(items));
        }
    }
    return unknown_type();
}

std::string describe(const Type& t) {
    if (is_unknown(t)) return "<error>";
    switch (t.kind()) {
        case Type::Kind::array:
            if (is_unknown(t.item())) return "[]";
            return describe(t.item()) + "[]";
        case Type::Kind::tuple: {
            std::string s = "(";
            for (std::size_t i = 0; i < t.items().size(); ++i) {
                if (i) s += ", ";
                s += describe(t.items()[i]);
            }
            return s + ")";
        }
        default: return to_string(t);
    }
}

}  // namespace nnef::sema
