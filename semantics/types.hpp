// Type utilities of spec 3.3.1 shared by the type checker and the expander: castability, common
// types, deduction of a generic binding from argument types, the type of a compile-time Value.
//
// Two special types complete nnef::Type for expression typing (neither can be declared):
//  - the *unknown* type, Type::primitive(PrimType::none): the type of an erroneous expression (it
//    suppresses cascading errors: it is castable to and from anything) and the item type of the
//    empty array;
//  - the *empty-array-type* of spec 3.3.1, Type::array(unknown): the type of the literal `[]`.
// Inside the body of a generic fragment, `?` (PrimType::generic) is an opaque primitive type that
// equals only itself.
#pragma once
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <nnef/value.hpp>

namespace nnef::sema {

Type unknown_type();
bool is_unknown(const Type& t);
Type empty_array_type();
// True if the type contains the unknown type anywhere (e.g. the empty-array-type).
bool contains_unknown(const Type& t);

// Three-valued "is this a tensor type" (spec: a type containing a tensor). `maybe` for types
// whose tensor-ness is not known (unknown, empty arrays).
enum class Tensorness : unsigned char { no, yes, maybe };
Tensorness tensorness(const Type& t);
// An attribute type (spec 3.3.1): certainly contains no tensor type (tensorness(t) == no).
bool is_attribute(const Type& t);

// True if an unbound `tensor<>` occurs anywhere in t.
bool contains_unbound_tensor(const Type& t);
// True if some tuple inside t has both tensor and attribute items (spec 3.3.1 forbids it).
bool tuple_mixes_tensor_and_attribute(const Type& t);

// Spec 3.3.1 implicit casts: may a value of type `from` be substituted where `to` is expected?
// `to` must already have its generic `?` bound (see deduce_generic). `input`: the target is an
// input (parameter) of a fragment, where a primitive may be cast to a tensor of the same data type
// (a rank-0 constant); for fragment results (input = false) it may not. There is no implicit
// integer -> scalar cast.
bool castable(const Type& from, const Type& to, bool input = true);

// The common type of two types (spec 3.3.1: either can be cast to the other), used for array
// items, array concatenation and if-else branches; nullopt if there is none. Primitives are not
// promoted to tensors here.
std::optional<Type> common_type(const Type& a, const Type& b);

// Collects the candidate bindings of `?` implied by substituting an argument of type `arg` for a
// parameter of (unbound, generic) type `param`: `?` against a primitive P, `tensor<?>` against
// `tensor<P>` or a primitive P, arrays and tuples itemwise. Candidates are appended to `out`
// without duplicates; PrimType::generic is a candidate (the caller's own opaque `?`).
void collect_generic_candidates(const Type& arg, const Type& param, std::vector<PrimType>& out);

// Result of deducing `?` for an invocation from its argument/parameter type pairs.
struct Deduction {
    enum class Status : unsigned char { unique, none, ambiguous } status = Status::none;
    PrimType binding = PrimType::none;   // when unique
    std::vector<PrimType> candidates;    // every candidate found (for messages)
};
Deduction deduce_generic(const std::vector<std::pair<Type, Type>>& arg_param_types);
// The spec 3.3.2 rule for an invocation of a generic fragment: the explicit `<type>` if given,
// else the declared default `<? = T>`, else the (unique) deduction from the argument/parameter
// type pairs. Explicit and default bindings come back as `unique`.
Deduction resolve_generic(std::optional<PrimType> explicit_type, std::optional<PrimType> declared_default,
                          const std::vector<std::pair<Type, Type>>& arg_param_types);

// The type of a compile-time value. Identifiers (tensor names) get `identifier_type(name)` if
// given, else `tensor<>`. Arrays get the common type of their items (the empty array: the
// empty-array-type; items without a common type: unknown item type).
Type type_of(const Value& v, const std::function<Type(const std::string&)>& identifier_type = {});

// Spelling for messages: like nnef::to_string but `[]` for the empty-array-type and `<error>`
// for the unknown type.
std::string describe(const Type& t);

}  // namespace nnef::sema
