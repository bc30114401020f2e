#include "lowering/tosa/interpreter.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <limits>
#include <map>
#include <stdexcept>
#include <type_traits>

#include "exec/common.hpp"
#include "exec/gemm.hpp"

#include "lowering/tosa/ops/kernel.hpp"
#include "lowering/tosa/ops/registry.hpp"
#include "lowering/tosa/validator.hpp"

namespace nnef::tosa {

namespace kernels {

// Rounds |d| to the grid of a binary format with `mant` fraction bits and minimum normal exponent
// `emin`, ties to even; the result is exactly representable in float (or is infinite).
double round_to_format(double d, int mant, int emin, double max_finite) {
    double a = std::fabs(d);
    if (a == 0.0 || std::isinf(a)) return d;
    int e = 0;
    std::frexp(a, &e);                          // a = m * 2^e, m in [0.5, 1)
    const int q = std::max(e - 1, emin) - mant;  // exponent of one unit in the last place
    double r = std::ldexp(std::nearbyint(std::ldexp(a, -q)), q);
    if (r > max_finite) r = std::numeric_limits<double>::infinity();
    return std::copysign(r, d);
}

}  // namespace kernels

std::uint16_t fp64_to_fp16(double d) {
    if (std::isnan(d)) return 0x7e00;
    return fp32_to_fp16(static_cast<float>(kernels::round_to_format(d, 10, -14, 65504.0)));
}

std::uint16_t fp64_to_bf16(double d) {
    if (std::isnan(d)) return 0x7fc0;
    const double max_bf16 = std::ldexp(255.0, 120);  // (2 - 2^-7) * 2^127
    return fp32_to_bf16(static_cast<float>(kernels::round_to_format(d, 7, -126, max_bf16)));
}

namespace kernels {

// Runs one operator by its kernel (lowering/tosa/ops/*.cpp, by the registry).
void execute(Ctx& c) { ops::functions(c.op.kind).kernel(c); }

}  // namespace kernels

// ---- the interpreter -----------------------------------------------------------------------------

void Interpreter::Impl::report(const Op& op, const std::string& code, const std::string& message, Diagnostics& diags) const {
    std::string what = to_string(op.kind);
    if (!op.outputs.empty()) what += " %" + std::to_string(op.outputs[0]);
    const Origin* origin = op.origin < graph.origins.size() ? &graph.origins[op.origin] : nullptr;
    Diagnostic& d = diags.error(Stage::tosa, code, what + ": " + message, origin ? origin->provenance.range : SourceRange{});
    if (origin && !origin->operation.empty())
        d.notes.push_back(Note{"lowered from NNEF operation '" + origin->operation + "'" +
                                   (origin->tensor.empty() ? std::string() : " ('" + origin->tensor + "')"),
                               origin->provenance.range});
}

void Interpreter::Impl::plan() {
    // Values read by an operator of another block than the one defining them stay until the end.
    std::vector<std::uint32_t> defined(graph.values.size(), no_origin);
    for (std::uint32_t b = 0; b < graph.blocks.size(); ++b) {
        for (ValueId v : graph.blocks[b].inputs)
            if (v < defined.size()) defined[v] = b;
        for (const Op& op : graph.blocks[b].ops)
            for (ValueId v : op.outputs)
                if (v < defined.size()) defined[v] = b;
    }
    std::vector<bool> pinned(graph.values.size(), false);
    release.assign(graph.blocks.size(), {});
    for (std::uint32_t b = 0; b < graph.blocks.size(); ++b) {
        const Block& blk = graph.blocks[b];
        std::vector<std::size_t> last(graph.values.size(), no_origin);
        for (std::size_t i = 0; i < blk.ops.size(); ++i) {
            for (ValueId v : blk.ops[i].inputs)
                if (v < last.size()) {
                    last[v] = i;
                    if (defined[v] != b) pinned[v] = true;
                }
            for (ValueId v : blk.ops[i].outputs)
                if (v < last.size() && last[v] == no_origin) last[v] = i;  // never read: free at once
        }
        for (ValueId v : blk.outputs)
            if (v < last.size()) {
                last[v] = no_origin;
                if (defined[v] != b) pinned[v] = true;
            }
        release[b].assign(blk.ops.size(), {});
        for (ValueId v = 0; v < last.size(); ++v)
            if (last[v] != no_origin && defined[v] == b) release[b][last[v]].push_back(v);
    }
    for (auto& per_block : release)
        for (auto& list : per_block)
            list.erase(std::remove_if(list.begin(), list.end(), [&](ValueId v) { return pinned[v]; }), list.end());
}

std::vector<ConstPtr> Interpreter::Impl::run_block(std::uint32_t b, const std::vector<ConstPtr>& inputs, Diagnostics& diags) {
    using namespace kernels;
    const Block& blk = graph.blocks.at(b);
    for (std::size_t i = 0; i < blk.inputs.size() && i < inputs.size(); ++i) values[blk.inputs[i]] = inputs[i];
    for (std::size_t i = 0; i < blk.ops.size(); ++i) {
        const Op& op = blk.ops[i];
        Ctx c{*this, op, diags};
        try {
            execute(c);
        } catch (const Failure& f) {
            report(op, f.code, f.message, diags);
            throw Reported{};
        } catch (const Reported&) {
            throw;
        } catch (const std::logic_error& e) {
            report(op, "malformed-op", e.what(), diags);
            throw Reported{};
        } catch (const std::exception& e) {
            report(op, "internal", e.what(), diags);
            throw Reported{};
        }
        for (ValueId v : release[b][i]) values[v].reset();
    }
    std::vector<ConstPtr> outs;
    for (ValueId v : blk.outputs) {
        if (!values.at(v)) {
            diags.error(Stage::tosa, "unset-output", "output %" + std::to_string(v) + " of block '" + blk.name + "' is not computed by any operator");
            throw Reported{};
        }
        outs.push_back(values[v]);
    }
    return outs;
}

Interpreter::Interpreter(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Interpreter::~Interpreter() = default;

const Graph& Interpreter::graph() const { return impl_->graph; }

ConstPtr Interpreter::variable(const std::string& name) const {
    auto found = impl_->variables.find(name);
    return found == impl_->variables.end() || !found->second.written ? nullptr : found->second.data;
}

std::unique_ptr<Interpreter> Interpreter::create(const Graph& graph, InterpretOptions options, Diagnostics& diags) {
    const std::size_t before = diags.error_count();
    auto impl = std::make_unique<Impl>(graph, std::move(options));
    if (graph.blocks.empty()) {
        diags.error(Stage::tosa, "malformed-graph", "the graph has no main block");
        return nullptr;
    }
    for (const Block& blk : graph.blocks) {
        for (ValueId v : blk.inputs)
            if (v >= graph.values.size()) diags.error(Stage::tosa, "malformed-graph", "block '" + blk.name + "' has an unknown input value");
        for (ValueId v : blk.outputs)
            if (v >= graph.values.size()) diags.error(Stage::tosa, "malformed-graph", "block '" + blk.name + "' has an unknown output value");
        // The operators' operands, results and attributes (their existence, counts and kinds) are
        // the validator's structure rules, checked with its words by operator_rules below.
        for (const Op& op : blk.ops) {
            const OpInfo& info = op.info();
            auto bad = [&](const std::string& code, const std::string& why) { impl->report(op, code, why, diags); };
            for (const AttrSpec& a : info.attributes) {
                if (a.kind == AttrKind::graph && op.attr(a.name)) {
                    const Attr& v = *op.attr(a.name);
                    if (!std::holds_alternative<BlockRef>(v) || std::get<BlockRef>(v).block == 0 || std::get<BlockRef>(v).block >= graph.blocks.size())
                        bad("malformed-op", std::string("attribute '") + to_string(a.name) + "' does not refer to a block of the graph");
                }
            }
            if (op.kind == OpKind::CUSTOM) {
                const Attr* n = op.attr(AttrName::operator_name);
                const std::string name = n && std::holds_alternative<std::string>(*n) ? std::get<std::string>(*n) : std::string("?");
                bad("custom-op", "CUSTOM operator '" + name + "' has no implementation in the interpreter (its behavior is implementation defined)");
            }
        }
    }
    if (diags.error_count() > before) return nullptr;
    // Every operator's own rules (ERROR_IF, REQUIRE, argument tables) as the validator checks and
    // words them: the one source of those rules; the kernels check only what depends on the data.
    std::vector<const Op*> producers(graph.values.size(), nullptr);
    for (const Block& blk : graph.blocks)
        for (const Op& op : blk.ops)
            for (ValueId v : op.outputs)
                if (v < producers.size() && !producers[v]) producers[v] = &op;
    for (const Block& blk : graph.blocks)
        for (const Op& op : blk.ops)
            if (const std::optional<RuleFailure> f = operator_rules(graph, op, &producers)) impl->report(op, f->code, f->message, diags);
    if (diags.error_count() > before) return nullptr;
    impl->plan();
    return std::unique_ptr<Interpreter>(new Interpreter(std::move(impl)));
}

std::optional<std::vector<ConstPtr>> Interpreter::run(const std::vector<ConstPtr>& inputs, Diagnostics& diags) {
    Impl& m = *impl_;
    const Graph& g = m.graph;
    const Block& main = g.main();
    if (inputs.size() != main.inputs.size()) {
        diags.error(Stage::tosa, "bad-input", "the graph takes " + std::to_string(main.inputs.size()) + " inputs, " +
                                                  std::to_string(inputs.size()) + " given");
        return std::nullopt;
    }
    bool ok = true;
    for (std::size_t i = 0; i < inputs.size(); ++i) {
        const Value& v = g.value(main.inputs[i]);
        const std::string name = v.name.empty() ? "%" + std::to_string(main.inputs[i]) : "'" + v.name + "'";
        if (!inputs[i] || !inputs[i]->data) {
            diags.error(Stage::tosa, "bad-input", "input " + std::to_string(i) + " (" + name + ") is missing");
            ok = false;
        } else if (inputs[i]->type != v.type) {
            diags.error(Stage::tosa, "bad-input", "input " + std::to_string(i) + " (" + name + ") is " + to_string(inputs[i]->type) +
                                                      ", the graph takes " + to_string(v.type));
            ok = false;
        }
    }
    if (!ok) return std::nullopt;
    m.values.assign(g.values.size(), nullptr);
    m.depth = 0;
    for (auto& v : m.variables) v.second.seen = false;
    std::optional<std::vector<ConstPtr>> result;
    try {
        result = m.run_block(0, inputs, diags);
    } catch (const kernels::Reported&) {
        result.reset();
    }
    m.values.clear();
    return result;
}

std::optional<std::vector<ConstPtr>> interpret(const Graph& graph, const std::vector<ConstPtr>& inputs,
                                               const InterpretOptions& options, Diagnostics& diags) {
    std::unique_ptr<Interpreter> it = Interpreter::create(graph, options, diags);
    if (!it) return std::nullopt;
    return it->run(inputs, diags);
}

}  // namespace nnef::tosa
