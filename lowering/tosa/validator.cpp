#include "lowering/tosa/validator.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <functional>
#include <limits>
#include <map>
#include <set>
#include <stdexcept>
#include <unordered_map>
#include <utility>

#include "lowering/tosa/ops/check.hpp"
#include "lowering/tosa/ops/registry.hpp"

namespace nnef::tosa {

namespace checks {

// ---- per-operator checks (lowering/tosa/ops/*.cpp, by the registry) -----------------------------

// The operator's own rules (after operand counts and attribute kinds are known to be right).
void check_operator(OpCheck& c) { ops::functions(c.op_.kind).check(c); }

// ---- structure: operand counts and attributes ------------------------------------------------

bool kind_matches(AttrKind k, const Attr& a) {
    switch (k) {
        case AttrKind::i32: return std::holds_alternative<I64>(a);
        case AttrKind::boolean: return std::holds_alternative<bool>(a);
        case AttrKind::i32s:
        case AttrKind::shape: return std::holds_alternative<std::vector<I64>>(a);
        case AttrKind::num: return std::holds_alternative<double>(a) || std::holds_alternative<I64>(a);
        case AttrKind::acc: return std::holds_alternative<AccType>(a);
        case AttrKind::nan: return std::holds_alternative<NanMode>(a);
        case AttrKind::round: return std::holds_alternative<RoundingMode>(a);
        case AttrKind::resize: return std::holds_alternative<ResizeMode>(a);
        case AttrKind::str: return std::holds_alternative<std::string>(a);
        case AttrKind::dtype: return std::holds_alternative<DType>(a);
        case AttrKind::tensor: return std::holds_alternative<ConstPtr>(a) && std::get<ConstPtr>(a) != nullptr;
        case AttrKind::graph: return std::holds_alternative<BlockRef>(a);
    }
    return false;
}

bool fits_i32(I64 v) { return v >= std::numeric_limits<std::int32_t>::min() && v <= std::numeric_limits<std::int32_t>::max(); }

// Operand / result counts, value ids, attributes. Returns false (failure recorded) when the
// operator's own rules cannot be evaluated.
bool check_structure(OpCheck& c) {
    const Op& op = c.op_;
    const OpInfo& info = c.info_;
    const Graph& g = c.g_;
    auto count_ok = [](std::size_t n, std::size_t spec, bool variadic) { return variadic ? n + 1 >= spec : n == spec; };
    auto count_text = [](std::size_t spec, bool variadic) {
        return variadic ? "at least " + std::to_string(spec - 1) : std::to_string(spec);
    };
    if (!count_ok(op.inputs.size(), info.inputs.size(), info.variadic_inputs)) {
        c.fail("tosa-operands", "operand count (argument table)",
               std::to_string(op.inputs.size()) + " operands, the spec has " +
                   count_text(info.inputs.size(), info.variadic_inputs));
        return false;
    }
    if (c.results_checked && !count_ok(op.outputs.size(), info.outputs.size(), info.variadic_outputs)) {
        c.fail("tosa-operands", "result count (argument table)",
               std::to_string(op.outputs.size()) + " results, the spec has " +
                   count_text(info.outputs.size(), info.variadic_outputs));
        return false;
    }
    for (ValueId v : op.inputs)
        if (v >= g.values.size()) {
            c.fail("tosa-ssa", "operands are values of the graph", "%" + std::to_string(v) + " does not exist");
            return false;
        }
    for (ValueId v : op.outputs)
        if (v >= g.values.size()) {
            c.fail("tosa-ssa", "results are values of the graph", "%" + std::to_string(v) + " does not exist");
            return false;
        }
    for (std::size_t i = 0; i < op.attrs.size(); ++i) {
        const AttrName n = op.attrs[i].first;
        if (!info.attribute(n)) {
            c.fail("tosa-attribute", "the operator's attributes (argument table)",
                   std::string("unknown attribute '") + to_string(n) + "'");
            return false;
        }
        for (std::size_t j = 0; j < i; ++j)
            if (op.attrs[j].first == n) {
                c.fail("tosa-attribute", "the operator's attributes (argument table)",
                       std::string("attribute '") + to_string(n) + "' given twice");
                return false;
            }
    }
    for (const AttrSpec& spec : info.attributes) {
        const Attr* a = op.attr(spec.name);
        if (!a) {
            if (spec.optional) continue;
            c.fail("tosa-attribute", "required attribute (argument table)",
                   std::string("missing attribute '") + to_string(spec.name) + "' (" + to_string(spec.kind) + ")");
            return false;
        }
        if (!kind_matches(spec.kind, *a)) {
            c.fail("tosa-attribute", "attribute kind (argument table)",
                   std::string("attribute '") + to_string(spec.name) + "' must be " + to_string(spec.kind) + ", it is " +
                       to_string(*a));
            return false;
        }
        // i32_t attributes and T<i32_t> arrays hold 32-bit values.
        if (spec.kind == AttrKind::i32 && !fits_i32(std::get<I64>(*a))) {
            c.fail("tosa-attribute", "attribute type i32_t (argument table)",
                   std::string("attribute '") + to_string(spec.name) + "' is " + to_string(*a));
            return false;
        }
        if (spec.kind == AttrKind::i32s)
            for (I64 v : std::get<std::vector<I64>>(*a))
                if (!fits_i32(v)) {
                    c.fail("tosa-attribute", "attribute type T<i32_t> (argument table)",
                           std::string("attribute '") + to_string(spec.name) + "' is " + to_string(*a));
                    return false;
                }
        if (spec.kind == AttrKind::graph) {
            const std::uint32_t b = std::get<BlockRef>(*a).block;
            if (b == 0 || b >= g.blocks.size()) {
                c.fail("tosa-attribute", "tosa_graph_t attribute (argument table)",
                       std::string("attribute '") + to_string(spec.name) + "' names block " + std::to_string(b) +
                           ", which is not a control-flow graph of this graph");
                return false;
            }
        }
    }
    return true;
}

}  // namespace checks

// ---- infer_output_types ----------------------------------------------------------------------

std::optional<std::vector<TensorType>> infer_output_types(const Graph& g, const Op& op, std::string* why) {
    using namespace checks;
    OpCheck c(g, op, nullptr, ProducerLookup{g, nullptr});
    auto fail_with = [&](const std::string& text) -> std::optional<std::vector<TensorType>> {
        if (why) *why = text;
        return std::nullopt;
    };
    if (!check_structure(c)) return fail_with(op_info(op.kind).name + ": " + c.failure->rule + ": " + c.failure->detail);
    check_operator(c);
    if (c.failed()) {
        std::string text = op_info(op.kind).name + ": " + c.failure->rule;
        if (!c.failure->detail.empty()) text += ": " + c.failure->detail;
        return fail_with(text);
    }
    if (c.outputs_free) return fail_with("CUSTOM: the result types are implementation defined");
    for (std::size_t o = 0; o < c.out.size(); ++o) {
        for (I64 e : c.out[o].shape)
            if (e == unknown)
                return fail_with(op_info(op.kind).name + ": the result shape depends on a shape operand that is not a CONST_SHAPE");
        if (c.out[o].dtype == DType::none) {
            std::string reason;
            c.out[o].dtype = infer_dtype(c, o, &reason);
            if (c.out[o].dtype == DType::none) return fail_with(reason);
        }
    }
    return c.out;
}

std::optional<RuleFailure> operator_rules(const Graph& g, const Op& op, const std::vector<const Op*>* producers) {
    using namespace checks;
    OpCheck c(g, op, nullptr, ProducerLookup{g, producers});
    c.results_checked = true;
    if (check_structure(c)) check_operator(c);
    if (!c.failed()) return std::nullopt;
    // The site below lowering/tosa/ (the compiler may have been given the file by any path).
    std::string file = c.failure_file;
    const std::size_t at = file.rfind("lowering/tosa/");
    if (at != std::string::npos) file = file.substr(at + std::string("lowering/tosa/").size());
    return RuleFailure{c.failure->code, c.failure->rule + (c.failure->detail.empty() ? "" : ": " + c.failure->detail),
                       file + ":" + std::to_string(c.failure_line)};
}

// ---- validate --------------------------------------------------------------------------------

namespace checks {

class Validator {
public:
    Validator(const Graph& g, const ValidateOptions& o, Diagnostics& d) : g_(g), opts_(o), diags_(d) {}

    bool run() {
        const std::size_t errors_before = diags_.error_count();
        if (!check_options()) return false;
        if (g_.blocks.empty()) {
            diags_.error(Stage::tosa, "tosa-ssa", "the TOSA graph has no main block");
            return false;
        }
        producers_.assign(g_.values.size(), nullptr);
        def_block_.assign(g_.values.size(), unset);
        defined_.assign(g_.values.size(), false);
        block_users_.assign(g_.blocks.size(), 0);
        for (const Block& b : g_.blocks)
            for (const Op& op : b.ops)
                for (ValueId v : op.outputs)
                    if (v < producers_.size() && !producers_[v]) producers_[v] = &op;
        declare_variables();
        walk(0, 0);
        for (std::uint32_t b = 1; b < g_.blocks.size(); ++b)
            if (block_users_[b] == 0 && !diags_.limit_reached())
                diags_.error(Stage::tosa, "tosa-ssa",
                             "block ^" + std::to_string(b) + " '" + g_.blocks[b].name +
                                 "' is not the graph of any COND_IF / WHILE_LOOP reachable from the main graph");
        return diags_.error_count() == errors_before;
    }

private:
    static constexpr std::uint32_t unset = std::numeric_limits<std::uint32_t>::max();

    bool check_options() {
        enabled_ = opts_.profile == Profile::pro_int ? atom_pro_int : atom_pro_fp;
        for (Profile p : opts_.also_profiles) enabled_ |= p == Profile::pro_int ? atom_pro_int : atom_pro_fp;
        std::string profiles = to_string(opts_.profile);
        if ((enabled_ & (atom_pro_int | atom_pro_fp)) == (atom_pro_int | atom_pro_fp)) profiles = "PRO-INT and PRO-FP";
        bool ok = true;
        for (const std::string& name : opts_.extensions) {
            auto e = extension_from_string(name);
            if (!e) {
                diags_.error(Stage::tosa, "tosa-options", "unknown TOSA extension '" + name + "' (spec 1.6, table 3)");
                ok = false;
                continue;
            }
            if (!(extension_profiles[static_cast<std::size_t>(*e)] & enabled_)) {
                diags_.error(Stage::tosa, "tosa-options",
                             std::string(to_string(*e)) + " is not allowed with " + profiles + " (spec 1.6, table 3)");
                ok = false;
                continue;
            }
            enabled_ |= atom(*e);
        }
        return ok;
    }

    void declare_variables() {
        for (std::uint32_t b = 0; b < g_.blocks.size(); ++b) {
            const Block& block = g_.blocks[b];
            for (std::uint32_t i = 0; i < block.ops.size(); ++i) {
                const Op& op = block.ops[i];
                if (op.kind != OpKind::VARIABLE) continue;
                const auto* name = std::get_if<std::string>(op.attr(AttrName::name));
                if (!name) continue;
                auto [it, fresh] = variables_.emplace(*name, std::make_pair(b, i));
                if (!fresh)
                    report(b, i, op,
                           Failure{"tosa-require", "REQUIRE(!var_tensor.seen)",
                                   "variable '" + *name + "' is declared twice (first: operator " +
                                       std::to_string(it->second.second) + " of block " + g_.blocks[it->second.first].name +
                                       ")"});
            }
        }
    }

    std::string label(std::uint32_t b, std::uint32_t i, const Op& op) const {
        std::string s = std::string(to_string(op.kind)) + " (operator " + std::to_string(i);
        s += b == 0 ? std::string(" of the main graph") : " of block ^" + std::to_string(b) + " '" + g_.blocks[b].name + "'";
        if (op.origin != no_origin && op.origin < g_.origins.size()) {
            const Origin& o = g_.origins[op.origin];
            if (!o.operation.empty()) s += ", from NNEF " + o.operation;  // empty: read from MLIR (its range says where)
            if (!o.operation.empty() && !o.tensor.empty()) s += " '" + o.tensor + "'";
        }
        return s + ")";
    }

    void report(std::uint32_t b, std::uint32_t i, const Op& op, const Failure& f) {
        std::string message = label(b, i, op) + ": " + f.rule;
        if (!f.detail.empty()) message += ": " + f.detail;
        SourceRange range;
        const Origin* origin = op.origin != no_origin && op.origin < g_.origins.size() ? &g_.origins[op.origin] : nullptr;
        if (origin) range = origin->provenance.range;
        Diagnostic& d = diags_.error(Stage::tosa, f.code, std::move(message), range);
        if (origin)
            for (const CallSite& cs : origin->provenance.chain)
                d.notes.push_back(Note{"in expansion of '" + cs.fragment + "'", cs.range});
    }

    // Value-level rules at the definition of v: an element type, extents >= 1 (tensor_size), the
    // size limit of MAX_LOG2_SIZE; shape_t values are one-dimensional.
    std::optional<Failure> value_rules(ValueId v) const {
        const TensorType& t = g_.values[v].type;
        const std::string name = "%" + std::to_string(v) + (g_.values[v].name.empty() ? "" : " '" + g_.values[v].name + "'");
        if (t.dtype == DType::none) return Failure{"tosa-type-table", "tensors have an element type", name + " has none"};
        if (t.dtype == DType::shape) {
            if (t.shape.size() != 1 || t.shape[0] < 0)
                return Failure{"tosa-argument", "shape_t values are shape_t<[rank]>", name + " is " + to_string(t)};
            return std::nullopt;
        }
        for (I64 e : t.shape)
            if (e < 1) return Failure{"tosa-require", "REQUIRE(1 <= shape[i]) (tensor_size, 4.4.1)", name + " is " + to_string(t)};
        // Size in bytes < 2^MAX_LOG2_SIZE, computed without overflow.
        const int log2 = static_cast<int>(std::min<I64>(opts_.level.max_log2_size, 63));
        const std::uint64_t limit = std::uint64_t(1) << log2;
        std::uint64_t bytes = static_cast<std::uint64_t>(element_bytes(t.dtype));
        for (I64 e : t.shape) {
            const std::uint64_t ue = static_cast<std::uint64_t>(e);
            if (bytes > (limit - 1) / ue) {
                return Failure{"tosa-level",
                               "tensor size in bytes is a tensor_size_t: below 2^MAX_LOG2_SIZE = 2^" + std::to_string(log2) +
                                   " at level " + opts_.level.name + " (1.11.1)",
                               name + " is " + to_string(t)};
            }
            bytes *= ue;
        }
        return std::nullopt;
    }

    template <class Fail>
    void define(ValueId v, std::uint32_t block, const Fail& fail) {
        if (defined_[v] || def_block_[v] != unset) {
            fail(Failure{"tosa-ssa", "every value is defined once",
                         "%" + std::to_string(v) + " is already defined in block " +
                             (def_block_[v] == unset ? std::string("?") : g_.blocks[def_block_[v]].name)});
            return;
        }
        defined_[v] = true;
        def_block_[v] = block;
        if (auto f = value_rules(v)) fail(*f);
    }

    void walk(std::uint32_t b, int depth) {
        const Block& block = g_.blocks[b];
        const std::string where = b == 0 ? std::string("the main graph") : "block ^" + std::to_string(b) + " '" + block.name + "'";
        for (ValueId v : block.inputs) {
            auto fail = [&](const Failure& f) {
                diags_.error(Stage::tosa, f.code, "input of " + where + ": " + f.rule + (f.detail.empty() ? "" : ": " + f.detail));
            };
            if (v >= g_.values.size()) {
                fail(Failure{"tosa-ssa", "block inputs are values of the graph", "%" + std::to_string(v) + " does not exist"});
                continue;
            }
            define(v, b, fail);
            if (g_.values[v].type.dtype == DType::shape)
                fail(Failure{"tosa-argument", "the inputs of a graph may not be shape_t (2.2)", "%" + std::to_string(v)});
            else if (g_.values[v].type.rank() > static_cast<std::size_t>(opts_.level.max_rank))
                fail(Failure{"tosa-level", "LEVEL_CHECK(rank(shape) <= MAX_RANK)",
                             "%" + std::to_string(v) + " is " + to_string(g_.values[v].type) + ", MAX_RANK is " +
                                 std::to_string(opts_.level.max_rank) + " at level " + opts_.level.name});
        }
        for (std::uint32_t i = 0; i < block.ops.size() && !diags_.limit_reached(); ++i) check_op(b, i, depth);
        for (ValueId v : block.outputs) {
            std::string problem;
            if (v >= g_.values.size())
                problem = "%" + std::to_string(v) + " does not exist";
            else if (def_block_[v] != b || !defined_[v])
                problem = "%" + std::to_string(v) + " is not defined in " + where;
            else if (g_.values[v].type.dtype == DType::shape)
                problem = "%" + std::to_string(v) + " is shape_t, which a graph may not return (2.2)";
            if (!problem.empty())
                diags_.error(Stage::tosa, "tosa-ssa", "output of " + where + ": " + problem);
        }
    }

    void check_op(std::uint32_t b, std::uint32_t i, int depth) {
        const Op& op = g_.blocks[b].ops[i];
        auto fail = [&](const Failure& f) { report(b, i, op, f); };
        OpCheck c(g_, op, &opts_, ProducerLookup{g_, &producers_});
        c.variables = &variables_;
        bool structure_ok = check_structure(c);
        // SSA: operands defined before, in this block.
        if (structure_ok) {
            for (std::size_t k = 0; k < op.inputs.size(); ++k) {
                const ValueId v = op.inputs[k];
                if (!defined_[v] || def_block_[v] != b) {
                    c.fail("tosa-ssa", "operands are defined before use, in the same graph",
                           "operand " + std::to_string(k) + " %" + std::to_string(v) +
                               (def_block_[v] == unset ? std::string(" is not defined before this operator")
                                                       : " is defined in block '" + g_.blocks[def_block_[v]].name + "'"));
                    break;
                }
            }
        }
        // Control flow: nesting and the graphs (checked before the operator's own rules, which
        // read the graphs' interfaces).
        const bool control = op.kind == OpKind::COND_IF || op.kind == OpKind::WHILE_LOOP;
        std::vector<std::uint32_t> sub_blocks;
        bool nesting_ok = true;
        if (structure_ok && control) {
            for (const auto& [name, value] : op.attrs)
                if (auto ref = std::get_if<BlockRef>(&value)) sub_blocks.push_back(ref->block);
            for (std::uint32_t sb : sub_blocks) {
                if (++block_users_[sb] > 1)
                    c.fail("tosa-ssa", "each control-flow graph belongs to one operator",
                           "block ^" + std::to_string(sb) + " '" + g_.blocks[sb].name + "' is used more than once");
            }
            nesting_ok = !c.error_if(depth >= opts_.level.max_nesting, "tosa_nesting_depth >= MAX_NESTING",
                                     "nesting depth " + std::to_string(depth) + ", MAX_NESTING is " +
                                         std::to_string(opts_.level.max_nesting) + " at level " + opts_.level.name);
            if (!c.failed()) {
                const std::size_t in_list = op.kind == OpKind::COND_IF ? op.inputs.size() - 1 : op.inputs.size();
                if (!c.level(static_cast<I64>(in_list), opts_.level.max_tensor_list_size,
                             "tensor_list_shape(input_list) <= MAX_TENSOR_LIST_SIZE"))
                    c.level(static_cast<I64>(op.outputs.size()), opts_.level.max_tensor_list_size,
                            "tensor_list_shape(output_list) <= MAX_TENSOR_LIST_SIZE");
            }
        }
        if (structure_ok && !c.failed()) {
            // LEVEL_CHECK(rank(shape) <= MAX_RANK) on the tensors of the operator.
            auto rank_ok = [&](const std::vector<ValueId>& vs, const char* what) {
                for (ValueId v : vs) {
                    const TensorType& t = g_.values[v].type;
                    if (t.dtype != DType::shape && c.level(static_cast<I64>(t.rank()), opts_.level.max_rank, "rank(shape) <= MAX_RANK")) {
                        c.failure->detail = std::string(what) + " %" + std::to_string(v) + " is " + to_string(t) + ": " +
                                            c.failure->detail;
                        return false;
                    }
                }
                return true;
            };
            if (rank_ok(op.inputs, "operand")) rank_ok(op.outputs, "result");
        }
        if (structure_ok && !c.failed()) check_types(c, enabled_);
        if (structure_ok && !c.failed()) ctc_rules(c);
        // The sub-graphs are walked before the operator's results are defined.
        if (structure_ok && control && nesting_ok && block_ok(sub_blocks))
            for (std::uint32_t sb : sub_blocks) walk(sb, depth + 1);
        if (structure_ok && !c.failed()) check_operator(c);
        if (structure_ok && !c.failed() && !c.outputs_free) compare_results(c);
        if (c.failed()) fail(*c.failure);
        // Results are defined even after a failure, so that later operators do not cascade.
        if (structure_ok)
            for (ValueId v : op.outputs) define(v, b, fail);
    }

    bool block_ok(const std::vector<std::uint32_t>& blocks) const {
        for (std::uint32_t sb : blocks)
            if (sb == 0 || sb >= g_.blocks.size() || block_users_[sb] != 1) return false;
        return true;
    }

    // Compile Time Constant inputs come from CONST / CONST_SHAPE (2.1), unless EXT-DYNAMIC.
    void ctc_rules(OpCheck& c) const {
        if (enabled_ & atom(Extension::dynamic)) return;
        const CtcInputs& ctc = ctc_inputs(c.op_.kind);
        if (!(ctc.profiles & enabled_)) return;
        for (std::size_t i : ctc.inputs) {
            const Op* p = producers_[c.op_.inputs[i]];
            // shape_t operands come from CONST_SHAPE, tensors from CONST.
            const OpKind want = c.idt(i) == DType::shape ? OpKind::CONST_SHAPE : OpKind::CONST;
            if (!p || p->kind != want) {
                c.fail("tosa-ctc", "Compile Time Constant Status: " + c.iname(i) + " is a CTC input (2.1)",
                       c.iname(i) + " is " + (p ? std::string("the result of ") + to_string(p->kind) : std::string("a graph input")) +
                           ", not of " + to_string(want) + " (EXT-DYNAMIC is not enabled)");
                return;
            }
        }
    }

    // The result types against the spec's: the extents were compared by the operator's rules;
    // here the counts (tensor lists) and the element types that the operands decide.
    void compare_results(OpCheck& c) const {
        const Op& op = c.op_;
        if (c.out.size() != op.outputs.size()) {
            c.fail("tosa-operands", "result count", std::to_string(op.outputs.size()) + " results, the spec implies " +
                                                        std::to_string(c.out.size()));
            return;
        }
        for (std::size_t o = 0; o < c.out.size(); ++o) {
            const TensorType& a = g_.values[op.outputs[o]].type;
            const TensorType& e = c.out[o];
            if (e.dtype != DType::none && a.dtype != e.dtype) {
                c.fail("tosa-type-table", "element type of " + c.info_.outputs[std::min(o, c.info_.outputs.size() - 1)],
                       "result " + std::to_string(o) + " is " + to_string(a) + ", the spec implies " + to_string(e.dtype));
                return;
            }
            if (a.shape.size() != e.shape.size()) {
                c.fail("tosa-error-if", "shape of " + c.info_.outputs[std::min(o, c.info_.outputs.size() - 1)],
                       "result " + std::to_string(o) + " is " + to_string(a) + ", the spec implies rank " +
                           std::to_string(e.shape.size()));
                return;
            }
            for (std::size_t d = 0; d < e.shape.size(); ++d)
                if (e.shape[d] != unknown && e.shape[d] != a.shape[d]) {
                    c.fail("tosa-error-if", "shape of " + c.info_.outputs[std::min(o, c.info_.outputs.size() - 1)],
                           "result " + std::to_string(o) + " is " + to_string(a) + ", the spec implies " + shape_text(e.shape));
                    return;
                }
        }
    }

    const Graph& g_;
    const ValidateOptions& opts_;
    Diagnostics& diags_;
    std::uint32_t enabled_ = 0;
    std::vector<const Op*> producers_;
    std::vector<std::uint32_t> def_block_;
    std::vector<bool> defined_;
    std::vector<int> block_users_;
    std::map<std::string, std::pair<std::uint32_t, std::uint32_t>> variables_;
};

}  // namespace checks

bool validate(const Graph& g, const ValidateOptions& options, Diagnostics& diags) {
    return checks::Validator(g, options, diags).run();
}

bool validate_after_pass(const Graph& g, const ValidateOptions& options, const std::string& after_pass,
                         Diagnostics& diags) {
    // The errors still allowed (at least one, as 0 would mean no cap); diags drops the rest.
    const std::size_t cap = diags.max_errors();
    Diagnostics local(cap == 0 ? 0 : std::max<std::size_t>(1, cap - std::min(cap, diags.error_count())));
    const bool ok = validate(g, options, local);
    const std::string note = after_pass.empty() ? std::string("in the input of the lowering pipeline")
                                                : "after the lowering pass '" + after_pass + "'";
    for (Diagnostic d : local) {
        d.notes.push_back(Note{note, {}});
        diags.add(std::move(d));
    }
    return ok;
}

}  // namespace nnef::tosa
