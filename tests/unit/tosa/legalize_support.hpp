// Helpers of the lowering tests: a model run by nnef-run's executor and, lowered to TOSA, by the
// TOSA interpreter on the same inputs (and, without stored weights, the same random weights), and
// the two compared.
#pragma once
#include "common/compare.hpp"
#include "test_support.hpp"

#include <nnef/nnef.hpp>

#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "exec/executor.hpp"
#include "lowering/tosa/from_nnef.hpp"
#include "lowering/tosa/interpreter.hpp"

namespace legalize_support {

struct Comparison {
    bool ok = false;
    std::string why;          // what failed (empty when ok)
    double max_rel = 0.0;     // max |tosa - exec| / max |exec| over the outputs
    std::size_t transposes = 0, operators = 0;
    std::vector<nnef::tosa::ConstPtr> outputs;  // the interpreter's
    std::vector<nnef::exec::TensorValue> expected;
};

// Item i of an interpreter output as a double (fp32, i32 or bool).
inline double item(const nnef::tosa::ConstData& c, std::int64_t i) {
    switch (c.type.dtype) {
        case nnef::tosa::DType::fp32: return c.items<float>()[i];
        case nnef::tosa::DType::i32: return c.items<std::int32_t>()[i];
        case nnef::tosa::DType::bool_: return c.items<std::uint8_t>()[i];
        default: return std::nan("");
    }
}

// Every item of an interpreter output as doubles.
inline std::vector<double> items(const nnef::tosa::ConstData& c) {
    std::vector<double> v(std::size_t(c.type.volume()));
    for (std::size_t k = 0; k < v.size(); ++k) v[k] = item(c, std::int64_t(k));
    return v;
}

inline std::string render_all(const nnef::Diagnostics& d, const nnef::SourceManager& sm) {
    std::string s;
    for (const nnef::Diagnostic& x : d) s += nnef::render(x, sm, false);
    return s;
}

// Runs the graph of `session` (loaded with the compounds nnef-run has no kernel for expanded) with
// nnef-run, and the graph of `lowered` (the same document with the standard compounds kept, so
// that their own legalizations run) through TOSA, with inputs from random_tensor (seed 11, 12, ...)
// or `inputs` when given, for `cycles` runs (variables carried over), and compares the last run.
inline Comparison compare(const nnef::Session& session, const nnef::Session& lowered,
                          std::optional<std::uint64_t> random_weights, std::vector<nnef::exec::TensorValue> inputs = {},
                          int cycles = 1, nnef::tosa::LowerOptions lo = {}) {
    Comparison r;
    const nnef::Graph& g = *session.graph();
    nnef::exec::ExecOptions eo;
    eo.random_weights = random_weights;
    auto ex = nnef::exec::Executor::create(g, eo);
    if (!ex) {
        r.why = "nnef-run: " + render_all(ex.diagnostics, session.sources());
        return r;
    }
    lo.random_weights = random_weights;
    nnef::Diagnostics d;
    std::optional<nnef::tosa::Graph> t = nnef::tosa::lower_to_tosa(*lowered.graph(), lo, d);
    if (!t) {
        r.why = "lowering: " + render_all(d, lowered.sources());
        return r;
    }
    r.operators = t->op_count();
    for (const nnef::tosa::Op& op : t->main().ops) r.transposes += op.kind == nnef::tosa::OpKind::TRANSPOSE;
    std::vector<nnef::tosa::ConstPtr> ins;
    for (std::size_t i = 0; i < g.inputs.size(); ++i) {
        const nnef::Tensor& tt = *g.tensor(g.inputs[i]);
        if (inputs.size() <= i) inputs.push_back(nnef::exec::random_tensor(tt.dtype, *tt.shape, 11 + i));
        const nnef::exec::TensorValue& v = inputs[i];
        if (!(*ex.value)->set_input(g.inputs[i], v, d)) {
            r.why = "nnef-run input: " + render_all(d, session.sources());
            return r;
        }
        const nnef::tosa::TensorType type = t->type(t->main().inputs[i]);
        auto c = nnef::tosa::ConstData::allocate(type);
        for (std::int64_t k = 0; k < v.volume(); ++k) {
            if (type.dtype == nnef::tosa::DType::fp32) c->mutable_items<float>()[k] = v.data<float>()[k];
            else if (type.dtype == nnef::tosa::DType::i32) c->mutable_items<std::int32_t>()[k] = std::int32_t(v.data<std::int64_t>()[k]);
            else c->mutable_items<std::uint8_t>()[k] = v.data<bool>()[k];
        }
        ins.push_back(c);
    }
    nnef::tosa::InterpretOptions io;
    auto interp = nnef::tosa::Interpreter::create(*t, io, d);
    if (!interp) {
        r.why = "interpreter: " + render_all(d, lowered.sources());
        return r;
    }
    std::optional<std::vector<nnef::tosa::ConstPtr>> outs;
    for (int k = 0; k < cycles; ++k) {
        if (!(*ex.value)->run(d)) {
            r.why = "nnef-run: " + render_all(d, session.sources());
            return r;
        }
        outs = interp->run(ins, d);
        if (!outs) {
            r.why = "interpreter: " + render_all(d, lowered.sources());
            return r;
        }
    }
    // every output as one comparison: max |tosa - exec| over all of them / max |exec| over all; a
    // NaN or infinity passes only where nnef-run has the same (a kernel's special values)
    nnef_test::Comparison c(nnef_test::CompareOptions{true});
    for (std::size_t i = 0; i < g.outputs.size(); ++i) {
        const nnef::exec::TensorValue& e = *(*ex.value)->tensor(g.outputs[i]);
        const nnef::tosa::ConstData& o = *(*outs)[i];
        if (o.type.shape != e.shape()) {
            r.why = "output '" + g.outputs[i] + "' has shape " + nnef::to_string(o.type.shape) + ", nnef-run's " +
                    nnef::to_string(e.shape());
            return r;
        }
        c.add(items(o), e.to_doubles());
        r.expected.push_back(e);
    }
    r.outputs = *outs;
    r.max_rel = c.max_rel();
    r.ok = c.max_rel_within(1e-5);
    if (!r.ok) r.why = "max relative error above 1e-5 (outputs as parts, in order): " + c.summary();
    return r;
}

}  // namespace legalize_support
