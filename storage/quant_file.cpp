// graph.quant: parsing (grammar::parse_quant), checking each entry against the program's
// declarations, compile-time evaluation of the arguments, attaching to the graph's tensors.
#include "storage/quant_file.hpp"

#include <charconv>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "grammar/parse.hpp"
#include "semantics/types.hpp"

namespace nnef::storage {

namespace quant_file_cpp {

// ---- compile-time evaluation ---------------------------------------------------------------

// A failed evaluation. Stage `semantic` for type errors and tensor ids, `shape` for values that
// cannot be computed (SPEC_NOTES section 5: compile-time evaluation errors).
struct EvalError {
    Stage stage = Stage::semantic;
    std::string code;
    std::string message;
    SourceRange range;
};

[[noreturn]] void type_error(std::string code, std::string message, SourceRange range) {
    throw EvalError{Stage::semantic, std::move(code), std::move(message), range};
}
[[noreturn]] void value_error(std::string code, std::string message, SourceRange range) {
    throw EvalError{Stage::shape, std::move(code), std::move(message), range};
}

std::string type_name(const Value& v) { return sema::describe(sema::type_of(v)); }

// Evaluates argument values: literals, arrays, tuples, unary and binary operators, if-else,
// subscripts and ranges, the built-in functions and comprehensions. Identifiers other than
// comprehension loop variables are tensor ids, which a quantization file must not contain.
class Evaluator {
public:
    explicit Evaluator(const Limits& limits) : limits_(limits) {}

    Value eval(const ast::Expr& e) {
        using K = ast::ExprKind;
        switch (e.kind) {
            case K::integer: return Value::integer(e.ival);
            case K::scalar: return Value::scalar(e.sval);
            case K::logical: return Value::logical(e.bval);
            case K::string: return Value::string(e.text);
            case K::identifier: return variable(e);
            case K::array: {
                Value::Items items;
                items.reserve(e.children.size());
                for (const ast::Expr& c : e.children) items.push_back(eval(c));
                return make_array(std::move(items), e.range);
            }
            case K::tuple: {
                Value::Items items;
                items.reserve(e.children.size());
                for (const ast::Expr& c : e.children) items.push_back(eval(c));
                return Value::tuple(std::move(items));
            }
            case K::paren: return eval(e.children.front());
            case K::unary: return unary(e);
            case K::binary: return binary(e);
            case K::if_else: return if_else(e);
            case K::comprehension: return comprehension(e);
            case K::subscript: return subscript(e);
            case K::range: return range(e);
            case K::builtin: return builtin(e);
            case K::invocation:
                type_error("invocation-argument",
                           "invocation of '" + e.text + "' is not a compile-time value (quantization arguments are "
                           "compile-time expressions, spec 5.3)",
                           e.range);
        }
        type_error("invalid-expression", "expression is not a compile-time value", e.range);
    }

private:
    // Loop variables of the comprehensions being evaluated, innermost last; restored on exit.
    struct VarsGuard {
        std::vector<std::pair<std::string, Value>>& vars;
        std::size_t size;
        ~VarsGuard() { vars.resize(size); }
    };

    Value variable(const ast::Expr& e) {
        for (auto it = vars_.rbegin(); it != vars_.rend(); ++it)
            if (it->first == e.text) return it->second;
        type_error("tensor-id-argument",
                   "identifier '" + e.text + "' in a quantization argument: arguments are compile-time expressions, "
                   "no tensor ids (spec 5.3)",
                   e.range);
    }

    // Evaluates an operand that the result does not depend on (the other branch of an if-else,
    // the right side of a decided && / ||): its type errors count, its value errors do not.
    std::optional<Value> unevaluated(const ast::Expr& e) {
        try {
            return eval(e);
        } catch (const EvalError& err) {
            if (err.stage == Stage::semantic) throw;
            return std::nullopt;
        }
    }

    void check_items(std::size_t n, SourceRange range) const {
        if (n > limits_.max_value_items)
            value_error("limit-exceeded",
                        "array has more than max_value_items = " + std::to_string(limits_.max_value_items) + " items",
                        range);
    }

    // An array whose items must have a common type (spec 3.3.1).
    Value make_array(Value::Items items, SourceRange range) const {
        check_items(items.size(), range);
        if (!items.empty()) {
            Type common = sema::type_of(items.front());
            for (std::size_t i = 1; i < items.size(); ++i) {
                Type t = sema::type_of(items[i]);
                std::optional<Type> c = sema::common_type(common, t);
                if (!c)
                    type_error("array-item-types",
                               "array items have no common type (" + sema::describe(common) + " and " +
                                   sema::describe(t) + ")",
                               range);
                common = std::move(*c);
            }
        }
        return Value::array(std::move(items));
    }

    Value unary(const ast::Expr& e) {
        Value v = eval(e.children.front());
        if (e.op == "!") {
            if (!v.is_logical()) type_error("operand-type", "'!' needs a logical operand, got " + type_name(v), e.range);
            return Value::logical(!v.as_logical());
        }
        if (v.is_integer()) {
            if (e.op == "-") {
                if (v.as_integer() == std::numeric_limits<std::int64_t>::min())
                    value_error("integer-overflow", "integer overflow in negation", e.range);
                return Value::integer(-v.as_integer());
            }
            return v;
        }
        if (v.is_scalar()) return e.op == "-" ? Value::scalar(-v.as_scalar()) : v;
        type_error("operand-type", "'" + e.op + "' needs an integer or scalar operand, got " + type_name(v), e.range);
    }

    static Value compare(const std::string& op, int order) {
        if (op == "<") return Value::logical(order < 0);
        if (op == "<=") return Value::logical(order <= 0);
        if (op == ">") return Value::logical(order > 0);
        return Value::logical(order >= 0);  // ">="
    }
    template <class T>
    static int order(const T& a, const T& b) {
        return a < b ? -1 : b < a ? 1 : 0;
    }
    static bool is_comparison(const std::string& op) { return op == "<" || op == "<=" || op == ">" || op == ">="; }

    Value binary(const ast::Expr& e) {
        const std::string& op = e.op;
        const ast::Expr& left = e.children[0];
        const ast::Expr& right = e.children[1];
        Value a = eval(left);
        if (op == "&&" || op == "||") {
            if (!a.is_logical()) type_error("operand-type", "'" + op + "' needs logical operands, got " + type_name(a), left.range);
            bool decided = op == "&&" ? !a.as_logical() : a.as_logical();
            std::optional<Value> b = decided ? unevaluated(right) : std::optional<Value>(eval(right));
            if (b && !b->is_logical()) type_error("operand-type", "'" + op + "' needs logical operands, got " + type_name(*b), right.range);
            return decided ? a : *b;
        }
        Value b = eval(right);
        if (op == "in") {
            if (!b.is_array()) type_error("operand-type", "right operand of 'in' must be an array, got " + type_name(b), right.range);
            for (const Value& item : b.items())
                if (item == a) return Value::logical(true);
            return Value::logical(false);
        }
        if (op == "==" || op == "!=") {
            if (!sema::common_type(sema::type_of(a), sema::type_of(b)))
                type_error("operand-type", "cannot compare " + type_name(a) + " with " + type_name(b), e.range);
            return Value::logical((a == b) == (op == "=="));
        }
        if (op == "+" && a.is_array() && b.is_array()) {
            Value::Items items = a.items();
            items.insert(items.end(), b.items().begin(), b.items().end());
            return make_array(std::move(items), e.range);
        }
        if (op == "+" && a.is_string() && b.is_string()) return Value::string(a.as_string() + b.as_string());
        if (op == "*" && (a.is_array() || a.is_string()) && b.is_integer()) return repeat(a, b.as_integer(), e.range);
        if (op == "*" && a.is_integer() && (b.is_array() || b.is_string())) return repeat(b, a.as_integer(), e.range);
        if (a.is_integer() && b.is_integer()) return integer_op(op, a.as_integer(), b.as_integer(), e.range);
        if (a.is_scalar() && b.is_scalar()) return scalar_op(op, a.as_scalar(), b.as_scalar(), e.range);
        if (a.is_string() && b.is_string() && is_comparison(op)) return compare(op, order(a.as_string(), b.as_string()));
        if (a.is_logical() && b.is_logical() && is_comparison(op)) return compare(op, order(a.as_logical(), b.as_logical()));
        type_error("operand-type", "operator '" + op + "' cannot be applied to " + type_name(a) + " and " + type_name(b),
                   e.range);
    }

    Value repeat(const Value& v, std::int64_t n, SourceRange range) const {
        if (n < 0) value_error("negative-repeat", "repetition count " + std::to_string(n) + " is negative", range);
        std::size_t len = v.is_string() ? v.as_string().size() : v.size();
        if (len != 0 && static_cast<std::uint64_t>(n) > limits_.max_value_items / len)
            value_error("limit-exceeded",
                        "repetition exceeds the limit max_value_items = " + std::to_string(limits_.max_value_items), range);
        auto count = static_cast<std::size_t>(n);
        if (v.is_string()) {
            std::string out;
            out.reserve(len * count);
            for (std::size_t i = 0; i < count; ++i) out += v.as_string();
            return Value::string(std::move(out));
        }
        Value::Items items;
        items.reserve(len * count);
        for (std::size_t i = 0; i < count; ++i) items.insert(items.end(), v.items().begin(), v.items().end());
        return Value::array(std::move(items));
    }

    static Value integer_op(const std::string& op, std::int64_t x, std::int64_t y, SourceRange range) {
        std::int64_t r = 0;
        auto overflow = [&]() { value_error("integer-overflow", "integer overflow in '" + op + "'", range); };
        if (op == "+") {
            if (__builtin_add_overflow(x, y, &r)) overflow();
            return Value::integer(r);
        }
        if (op == "-") {
            if (__builtin_sub_overflow(x, y, &r)) overflow();
            return Value::integer(r);
        }
        if (op == "*") {
            if (__builtin_mul_overflow(x, y, &r)) overflow();
            return Value::integer(r);
        }
        if (op == "/") {
            if (y == 0) value_error("division-by-zero", "integer division by zero", range);
            if (x == std::numeric_limits<std::int64_t>::min() && y == -1) overflow();
            return Value::integer(x / y);  // toward zero (SPEC_NOTES section 1)
        }
        if (op == "^") {
            if (y < 0) value_error("negative-exponent", "integer power with the negative exponent " + std::to_string(y), range);
            r = 1;
            std::int64_t base = x;
            for (std::int64_t k = y; k > 0; k >>= 1) {
                if ((k & 1) && __builtin_mul_overflow(r, base, &r)) overflow();
                if (k > 1 && __builtin_mul_overflow(base, base, &base)) overflow();
            }
            return Value::integer(r);
        }
        if (is_comparison(op)) return compare(op, order(x, y));
        type_error("operand-type", "operator '" + op + "' cannot be applied to integers", range);
    }

    static Value scalar_op(const std::string& op, double x, double y, SourceRange range) {
        if (op == "+") return Value::scalar(x + y);
        if (op == "-") return Value::scalar(x - y);
        if (op == "*") return Value::scalar(x * y);
        if (op == "/") return Value::scalar(x / y);
        if (op == "^") return Value::scalar(std::pow(x, y));
        if (is_comparison(op)) return compare(op, order(x, y));
        type_error("operand-type", "operator '" + op + "' cannot be applied to scalars", range);
    }

    // `then if cond else other`: both branches need a common type even though one is not used.
    Value if_else(const ast::Expr& e) {
        Value c = eval(e.children[1]);
        if (!c.is_logical()) type_error("condition-not-logical", "if-else condition is " + type_name(c) + ", not logical", e.children[1].range);
        const ast::Expr& taken = c.as_logical() ? e.children[0] : e.children[2];
        const ast::Expr& other = c.as_logical() ? e.children[2] : e.children[0];
        Value v = eval(taken);
        std::optional<Value> w = unevaluated(other);
        if (w && !sema::common_type(sema::type_of(v), sema::type_of(*w)))
            type_error("branch-types", "if-else branches have no common type (" + type_name(v) + " and " + type_name(*w) + ")",
                       e.range);
        return v;
    }

    Value comprehension(const ast::Expr& e) {
        const std::size_t n = e.names().size();
        std::vector<Value> iterables;
        iterables.reserve(n);
        std::size_t length = 0;
        for (std::size_t i = 0; i < n; ++i) {
            Value v = eval(e.children[i]);
            if (!v.is_array()) type_error("operand-type", "comprehension iterates " + type_name(v) + ", not an array", e.children[i].range);
            if (i == 0) {
                length = v.size();
            } else if (v.size() != length) {
                value_error("length-mismatch",
                            "comprehension iterators have different lengths (" + std::to_string(length) + " and " +
                                std::to_string(v.size()) + ")",
                            e.children[i].range);
            }
            iterables.push_back(std::move(v));
        }
        const ast::Expr* filter = e.has_filter ? &e.children[n] : nullptr;
        const ast::Expr& yield = e.children.back();
        Value::Items items;
        for (std::size_t k = 0; k < length; ++k) {
            VarsGuard guard{vars_, vars_.size()};
            for (std::size_t i = 0; i < n; ++i) vars_.emplace_back(e.names()[i].text.str(), iterables[i][k]);
            if (filter) {
                Value c = eval(*filter);
                if (!c.is_logical()) type_error("operand-type", "comprehension filter is " + type_name(c) + ", not logical", filter->range);
                if (!c.as_logical()) continue;
            }
            items.push_back(eval(yield));
        }
        return make_array(std::move(items), e.range);
    }

    static std::size_t length(const Value& v) { return v.is_string() ? v.as_string().size() : v.size(); }

    Value subscript(const ast::Expr& e) {
        Value obj = eval(e.children[0]);
        Value idx = eval(e.children[1]);
        if (!obj.is_string() && !obj.is_list())
            type_error("operand-type", "subscript of " + type_name(obj) + " (an array, tuple or string is needed)", e.range);
        if (!idx.is_integer()) type_error("operand-type", "subscript index is " + type_name(idx) + ", not integer", e.children[1].range);
        std::int64_t i = idx.as_integer();
        std::size_t len = length(obj);
        if (i < 0 || static_cast<std::uint64_t>(i) >= len)
            value_error("index-out-of-range", "index " + std::to_string(i) + " is out of range for length " + std::to_string(len),
                        e.range);
        auto k = static_cast<std::size_t>(i);
        return obj.is_string() ? Value::string(obj.as_string().substr(k, 1)) : obj[k];
    }

    Value range(const ast::Expr& e) {
        Value obj = eval(e.children[0]);
        if (!obj.is_string() && !obj.is_array())
            type_error("operand-type", "range subscript of " + type_name(obj) + " (an array or string is needed)", e.range);
        auto len = static_cast<std::int64_t>(length(obj));
        std::int64_t bounds[2] = {0, len};
        std::size_t next = 1;
        for (int which = 0; which < 2; ++which) {
            if (which == 0 ? !e.has_begin : !e.has_end) continue;
            const ast::Expr& x = e.children[next++];
            Value v = eval(x);
            if (!v.is_integer()) type_error("operand-type", "range bound is " + type_name(v) + ", not integer", x.range);
            bounds[which] = std::max<std::int64_t>(0, std::min(v.as_integer(), len));
        }
        if (bounds[0] >= bounds[1]) return obj.is_string() ? Value::string("") : Value::array();
        auto b = static_cast<std::size_t>(bounds[0]);
        auto n = static_cast<std::size_t>(bounds[1] - bounds[0]);
        if (obj.is_string()) return Value::string(obj.as_string().substr(b, n));
        return Value::array(Value::Items(obj.items().begin() + static_cast<std::ptrdiff_t>(b),
                                         obj.items().begin() + static_cast<std::ptrdiff_t>(b + n)));
    }

    Value builtin(const ast::Expr& e) {
        Value v = eval(e.children.front());
        const std::string& f = e.text;
        auto bad = [&]() {
            type_error("operand-type", f + "() cannot be applied to " + type_name(v), e.range);
        };
        if (f == "shape_of") {
            if (!v.is_primitive()) bad();
            return Value::array();  // a primitive is a rank-0 tensor (SPEC_NOTES section 5)
        }
        if (f == "length_of" || f == "range_of") {
            if (!v.is_array() && !v.is_string()) bad();
            std::size_t len = length(v);
            if (f == "length_of") return Value::integer(static_cast<std::int64_t>(len));
            check_items(len, e.range);
            Value::Items items;
            items.reserve(len);
            for (std::size_t i = 0; i < len; ++i) items.push_back(Value::integer(static_cast<std::int64_t>(i)));
            return Value::array(std::move(items));
        }
        if (f == "integer") {
            if (v.is_integer()) return v;
            if (v.is_logical()) return Value::integer(v.as_logical() ? 1 : 0);
            if (v.is_scalar()) {
                double x = std::floor(v.as_scalar());
                if (!(x >= -9.2233720368547758e18 && x < 9.2233720368547758e18))
                    value_error("bad-cast", "integer(" + format_scalar(v.as_scalar()) + ") is out of the integer range", e.range);
                return Value::integer(static_cast<std::int64_t>(x));
            }
            if (v.is_string()) {
                const std::string& s = v.as_string();
                std::int64_t r = 0;
                auto res = std::from_chars(s.data(), s.data() + s.size(), r);
                if (s.empty() || res.ec != std::errc() || res.ptr != s.data() + s.size())
                    value_error("bad-cast", "integer(" + quote(s) + "): not an integer literal", e.range);
                return Value::integer(r);
            }
        } else if (f == "scalar") {
            if (v.is_scalar()) return v;
            if (v.is_logical()) return Value::scalar(v.as_logical() ? 1.0 : 0.0);
            if (v.is_integer()) return Value::scalar(static_cast<double>(v.as_integer()));
            if (v.is_string()) {
                const std::string& s = v.as_string();
                double r = 0.0;
                auto res = std::from_chars(s.data(), s.data() + s.size(), r, std::chars_format::general);
                if (s.empty() || res.ec != std::errc() || res.ptr != s.data() + s.size())
                    value_error("bad-cast", "scalar(" + quote(s) + "): not a numeric literal", e.range);
                return Value::scalar(r);
            }
        } else if (f == "logical") {
            if (v.is_logical()) return v;
            if (v.is_integer()) return Value::logical(v.as_integer() != 0);
            if (v.is_scalar()) return Value::logical(v.as_scalar() != 0.0);
            if (v.is_string()) return Value::logical(!v.as_string().empty());
        } else if (f == "string") {
            if (v.is_string()) return v;
            if (v.is_primitive()) return Value::string(to_string(v));
        }
        type_error("operand-type", f + "() cannot be applied to " + type_name(v), e.range);
    }

    const Limits& limits_;
    std::vector<std::pair<std::string, Value>> vars_;
};

// ---- checking entries ----------------------------------------------------------------------

// A tensor parameter may be given per channel as an array (nested arrays for higher ranks) of its
// item type (storage/quantization.hpp: the nesting is the parameter's shape).
bool array_for_tensor(const Type& got, const Type& want) {
    if (!want.is_tensor() || !got.is_array()) return false;
    Type item = got;
    while (item.is_array()) item = item.item();
    return item.is_primitive() && (want.prim() == PrimType::none || item.prim() == want.prim());
}

SourceRange head(SourceRange r, std::size_t n) {
    return SourceRange{r.file, r.begin, r.begin + static_cast<std::uint32_t>(n)};
}

void add(Diagnostics& diags, const EvalError& err) { diags.error(err.stage, err.code, err.message, err.range); }

// Identifiers assigned in the graph body: the exported tensor names (spec 3.3.4).
void collect_lvalues(const ast::Expr& e, std::unordered_set<std::string>& out) {
    if (e.kind == ast::ExprKind::identifier) {
        out.insert(e.text);
        return;
    }
    for (const ast::Expr& c : e.children) collect_lvalues(c, out);
}

class EntryChecker {
public:
    EntryChecker(Graph& graph, const sema::Program& program, const std::vector<bool>* exported, const Options& options,
                 Diagnostics& diags)
        : graph_(graph), program_(program), exported_(exported), options_(options), diags_(diags), eval_(options.limits) {
        if (!exported_ && program.document && program.document->graph) {
            have_exports_ = true;
            for (const ast::Assignment& a : program.document->graph->body) collect_lvalues(a.lhs, exports_);
        }
    }

    // Checks one entry; on success returns the tensor and its quantization.
    std::optional<std::pair<Tensor*, Quantization>> check(const ast::QuantEntry& entry) {
        const std::size_t errors_before = diags_.error_count();
        Tensor* tensor = find_tensor(entry);
        std::optional<Quantization> q = check_algorithm(entry, tensor);
        if (diags_.error_count() != errors_before || !tensor || !q) return std::nullopt;
        return std::make_pair(tensor, std::move(*q));
    }

private:
    Tensor* find_tensor(const ast::QuantEntry& entry) {
        const std::string& id = entry.tensor;
        auto [it, inserted] = seen_.emplace(id, entry.tensor_range);
        if (!inserted) {
            diags_.error(Stage::semantic, "duplicate-tensor",
                         "tensor '" + id + "' is listed twice in the quantization file", entry.tensor_range)
                .notes.push_back(Note{"first listed here", it->second});
            return nullptr;
        }
        Tensor* t = graph_.tensor(id);
        if (t && is_exported(*t)) return t;
        if (const std::string* name = variable_with_label(id)) {
            diags_.error(Stage::semantic, "variable-label",
                         "'" + id + "' is the label of variable '" + *name +
                             "': the quantization file names tensors by their identifier in the graph (spec 5.3)",
                         entry.tensor_range);
        } else if (t) {
            diags_.error(Stage::semantic, "unknown-tensor",
                         "'" + id + "' is not an exported tensor of graph '" + graph_.name +
                             "' (only identifiers assigned in the graph body can be quantized)",
                         entry.tensor_range);
        } else {
            diags_.error(Stage::semantic, "unknown-tensor",
                         "'" + id + "' does not name a tensor of graph '" + graph_.name + "'", entry.tensor_range);
        }
        return nullptr;
    }

    bool is_exported(const Tensor& t) const {
        if (exported_) {
            const auto i = static_cast<std::size_t>(&t - graph_.tensors.data());
            return i < exported_->size() && (*exported_)[i];
        }
        return !have_exports_ || exports_.count(t.name) != 0;
    }

    // The output of the `variable` operation whose label is `label`, if any.
    const std::string* variable_with_label(const std::string& label) const {
        for (const Operation& op : graph_.operations) {
            if (op.name != "variable") continue;
            const Value* l = op.attrib("label");
            if (!l || !l->is_string() || l->as_string() != label || op.outputs.empty()) continue;
            const Value& out = op.outputs.front().second;
            if (out.is_identifier()) return &out.as_identifier();
        }
        return nullptr;
    }

    bool is_standard(const ast::Fragment& f) const {
        if (!program_.stdlib) return false;
        for (const ast::Document& d : program_.stdlib->documents)
            if (d.file == f.range.file) return true;
        return false;
    }

    // The fragment named by the invocation if it is a quantization algorithm; else an error.
    const ast::Fragment* algorithm(const ast::Expr& inv) {
        const std::string& name = inv.text;
        const SourceRange where = head(inv.range, name.size());
        const bool later = name == "min_max_linear_quantize" || name == "zero_point_linear_quantize";
        const ast::Fragment* f = program_.find(name);
        if (f && is_standard(*f)) {
            if (name == "linear_quantize" || name == "logarithmic_quantize" || (later && !options_.strict)) return f;
            diags_.error(Stage::semantic, "not-a-quantization",
                         "'" + name + "' is not a quantization algorithm (expected linear_quantize or logarithmic_quantize" +
                             std::string(options_.strict ? "" : ", min_max_linear_quantize, zero_point_linear_quantize") +
                             ", or a fragment of the document)",
                         where);
            return nullptr;
        }
        if (!f) {
            if (later && options_.strict)
                diags_.error(Stage::semantic, "unknown-algorithm",
                             "quantization algorithm '" + name + "' is a later-revision operation (not allowed with --strict)",
                             where);
            else
                diags_.error(Stage::semantic, "unknown-algorithm",
                             "quantization algorithm '" + name + "' is not a declared operation", where);
            return nullptr;
        }
        if (f->params.empty() || !f->params.front().type.is_tensor()) {
            diags_.error(Stage::semantic, "not-a-quantization",
                         "fragment '" + name + "' is not a quantization algorithm: its first parameter must be a tensor",
                         where)
                .notes.push_back(Note{"'" + name + "' is declared here", f->name_range});
            return nullptr;
        }
        return f;
    }

    std::optional<Quantization> check_algorithm(const ast::QuantEntry& entry, const Tensor* tensor) {
        const ast::Expr& inv = entry.invocation;
        const ast::Fragment* f = algorithm(inv);
        if (!f) return std::nullopt;
        const std::size_t errors_before = diags_.error_count();
        const std::vector<ast::Param>& params = f->params;
        std::vector<std::optional<Value>> values(params.size());
        std::vector<SourceRange> ranges(params.size());

        if (inv.generic() && !f->generic)
            diags_.error(Stage::semantic, "not-generic",
                         "'" + inv.text + "' is not generic: it takes no <" + to_string(*inv.generic()) + ">",
                         inv.generic_range());

        for (std::size_t i = 0; i < inv.children.size(); ++i) {
            const ast::Expr& arg = inv.children[i];
            const std::string name = inv.arg_name(i).str();
            if (name.empty()) {
                diags_.error(Stage::semantic, "positional-argument",
                             "positional argument to '" + inv.text +
                                 "': quantization parameters must be given by name (spec 5.3)",
                             arg.range);
                continue;
            }
            const SourceRange name_range = inv.arg_name_range(i);
            std::size_t p = 0;
            while (p < params.size() && params[p].name != name) ++p;
            if (p == 0) {
                diags_.error(Stage::semantic, "tensor-argument",
                             "'" + name + "' is the quantized tensor of '" + inv.text +
                                 "' and must not be given: it is the tensor named before the ':' (spec 5.3)",
                             name_range);
                continue;
            }
            if (p == params.size()) {
                diags_.error(Stage::semantic, "unknown-parameter",
                             "'" + inv.text + "' has no parameter '" + name + "'", name_range)
                    .notes.push_back(Note{"'" + inv.text + "' is declared here", f->name_range});
                continue;
            }
            if (values[p]) {
                diags_.error(Stage::semantic, "duplicate-argument", "argument '" + name + "' is given twice", name_range)
                    .notes.push_back(Note{"first given here", ranges[p]});
                continue;
            }
            ranges[p] = name_range;
            try {
                values[p] = eval_.eval(arg);
                ranges[p] = SourceRange{name_range.file, name_range.begin, arg.range.end};
            } catch (const EvalError& err) {
                add(diags_, err);
                values[p] = Value();  // given, but without a usable value
            }
        }

        for (std::size_t p = 1; p < params.size(); ++p) {
            if (values[p]) continue;
            if (!params[p].default_value) {
                diags_.error(Stage::semantic, "missing-argument",
                             "missing argument '" + params[p].name + "' of '" + inv.text +
                                 "': every parameter but the quantized tensor must be given (spec 5.3)",
                             inv.range);
                continue;
            }
            try {
                values[p] = eval_.eval(*params[p].default_value);
            } catch (const EvalError& err) {
                diags_.error(err.stage, err.code, "default value of '" + params[p].name + "': " + err.message, inv.range);
            }
        }
        // Values that could not be evaluated (or are missing) are left out of the type checks.
        auto usable = [&](std::size_t p) { return values[p] && !values[p]->is_none(); };

        // The generic binding: explicit `<T>`, the declared default, else deduced from the
        // quantized tensor and the arguments.
        PrimType binding = PrimType::none;
        if (f->generic) {
            if (diags_.error_count() != errors_before) return std::nullopt;
            std::vector<std::pair<Type, Type>> pairs;
            if (tensor && tensor->dtype != PrimType::none) pairs.emplace_back(Type::tensor(tensor->dtype), params[0].type);
            for (std::size_t p = 1; p < params.size(); ++p) pairs.emplace_back(sema::type_of(*values[p]), params[p].type);
            std::optional<PrimType> explicit_type;
            if (inv.generic()) explicit_type = inv.generic()->prim();
            sema::Deduction d = sema::resolve_generic(explicit_type, f->generic_default, pairs);
            if (d.status != sema::Deduction::Status::unique) {
                diags_.error(Stage::semantic, "generic-deduction",
                             "cannot deduce the generic type of '" + inv.text + "' (give it as " + inv.text + "<type>)",
                             head(inv.range, inv.text.size()));
                return std::nullopt;
            }
            binding = d.binding;
        }
        auto declared = [&](std::size_t p) {
            const Type& t = params[p].type;
            return t.is_generic() ? t.bind(binding) : t;
        };

        // The quantized tensor must fit the first parameter (`t = algorithm(t, ...)`).
        const Type first = declared(0);
        if (tensor && tensor->dtype != PrimType::none && first.prim() != PrimType::none &&
            tensor->dtype != first.prim())
            diags_.error(Stage::semantic, "tensor-type",
                         "tensor '" + entry.tensor + "' is " + to_string(Type::tensor(tensor->dtype)) + ", but '" +
                             inv.text + "' quantizes " + to_string(first),
                         entry.tensor_range);

        Quantization q;
        q.algorithm = inv.text;
        q.range = entry.range;
        for (std::size_t p = 1; p < params.size(); ++p) {
            if (!usable(p)) continue;
            const Type want = declared(p);
            const Type got = sema::type_of(*values[p]);
            if (!sema::castable(got, want, true) && !quant_file_cpp::array_for_tensor(got, want)) {
                SourceRange where = ranges[p].valid() ? ranges[p] : inv.range;
                std::string hint;
                if (got.is_primitive() && got.prim() == PrimType::integer && want.prim() == PrimType::scalar)
                    hint = " (there is no implicit integer to scalar conversion: write a decimal point)";
                diags_.error(Stage::semantic, "argument-type",
                             "argument '" + params[p].name + "' of '" + inv.text + "' must be " + to_string(want) +
                                 ", got " + sema::describe(got) + hint,
                             where);
                continue;
            }
            q.arguments.emplace_back(params[p].name, std::move(*values[p]));
        }
        if (diags_.error_count() != errors_before) return std::nullopt;
        return q;
    }

    Graph& graph_;
    const sema::Program& program_;
    const std::vector<bool>* exported_;  // by tensor position (Session); else exports_
    const Options& options_;
    Diagnostics& diags_;
    Evaluator eval_;
    bool have_exports_ = false;
    std::unordered_set<std::string> exports_;
    std::unordered_map<std::string, SourceRange> seen_;
};

}  // namespace quant_file_cpp

bool apply_quantization(Graph& graph, const sema::Program& program, const std::vector<bool>* exported,
                        const SourceManager& sm, std::uint32_t file, const Options& options, Diagnostics& diags) {
    grammar::ParseOptions po;
    po.options = options;
    std::optional<ast::QuantDocument> doc = grammar::parse_quant(sm, file, po, diags);
    if (!doc) return false;
    const std::size_t errors_before = diags.error_count();
    quant_file_cpp::EntryChecker checker(graph, program, exported, options, diags);
    std::vector<std::pair<Tensor*, Quantization>> checked;
    checked.reserve(doc->entries.size());
    for (const ast::QuantEntry& entry : doc->entries) {
        if (diags.limit_reached()) break;
        if (auto r = checker.check(entry)) checked.push_back(std::move(*r));
    }
    if (diags.error_count() != errors_before || diags.limit_reached()) return false;
    for (auto& [tensor, q] : checked) tensor->quantization = std::make_shared<const Quantization>(std::move(q));
    return true;
}

}  // namespace nnef::storage
