// Helpers of the executor tests: a graph from a few statements, run through the front end and the
// executor with given inputs; results compared with hand-computed values.
#pragma once
#include "common/compare.hpp"
#include "test_support.hpp"

#include <nnef/nnef.hpp>

#include <cmath>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "exec/executor.hpp"

// A test file that defines NNEF_EXEC_FLOAT64 before including this gets the same helpers for the
// float64 executor (nnef::exec64), in namespace exec64_test.
#ifdef NNEF_EXEC_FLOAT64
#define NNEF_EXEC_TEST_NS exec64_test
#else
#define NNEF_EXEC_TEST_NS exec_test
#endif

namespace NNEF_EXEC_TEST_NS {

using nnef::Shape;
using Real = nnef::NNEF_EXEC_NS::Real;
using nnef::NNEF_EXEC_NS::TensorValue;

inline TensorValue scalars(Shape shape, std::vector<Real> v) { return TensorValue::from<Real>(std::move(shape), v); }
inline TensorValue integers(Shape shape, std::vector<std::int64_t> v) {
    return TensorValue::from<std::int64_t>(std::move(shape), v);
}
inline TensorValue logicals(Shape shape, std::vector<bool> v) {
    TensorValue t(nnef::PrimType::logical, std::move(shape));
    for (std::size_t i = 0; i < v.size(); ++i) t.data<bool>()[i] = v[i];
    return t;
}

struct Input {
    std::string name;
    TensorValue value;
};

struct Outcome {
    bool ok = false;
    std::string messages;  // rendered diagnostics of every stage
    std::map<std::string, TensorValue> outputs;
    const TensorValue& operator[](const std::string& n) const { return outputs.at(n); }
};

struct Options {
    bool expand_all = false;
    unsigned threads = 2;
    int cycles = 1;
    bool strict = false;
    bool exact_sums = false;  // ExecOptions::exact_sums
};

// Runs `graph G(inputs) -> (outputs) { externals; body }`. Inputs are declared as externals of
// their dtype and shape. Compounds without a kernel are expanded (as nnef-run does).
inline Outcome run(const std::vector<Input>& inputs, const std::string& body, const std::vector<std::string>& outputs,
                   const Options& o = {}) {
    std::string text = "version 1.0;\nextension KHR_enable_operator_expressions;\n\ngraph G( ";
    for (std::size_t i = 0; i < inputs.size(); ++i) text += (i ? ", " : "") + inputs[i].name;
    text += " ) -> ( ";
    for (std::size_t i = 0; i < outputs.size(); ++i) text += (i ? ", " : "") + outputs[i];
    text += " )\n{\n";
    for (const Input& in : inputs) {
        std::string shape;
        for (std::size_t k = 0; k < in.value.rank(); ++k) shape += (k ? ", " : "") + std::to_string(in.value.shape()[k]);
        text += "    " + in.name + " = external<" + nnef::to_string(in.value.dtype()) + ">(shape = [" + shape + "]);\n";
    }
    text += body + "\n}\n";
    nnef::FlattenOptions fo;
    fo.options.strict = o.strict;
    fo.expand_all = o.expand_all;
    fo.expand = nnef::NNEF_EXEC_NS::compounds_without_kernel();
    nnef::Session session(fo);
    Outcome out;
    auto render = [&](const nnef::Diagnostics& d) {
        for (const nnef::Diagnostic& x : d) out.messages += nnef::render(x, session.sources(), false);
    };
    if (!session.load_text("graph.nnef", text)) {
        render(session.diagnostics());
        out.messages += "in:\n" + text;
        return out;
    }
    nnef::NNEF_EXEC_NS::ExecOptions eo;
    eo.threads = o.threads;
    eo.exact_sums = o.exact_sums;
    auto created = nnef::NNEF_EXEC_NS::Executor::create(*session.graph(), eo);
    render(created.diagnostics);
    if (!created) return out;
    nnef::NNEF_EXEC_NS::Executor& ex = **created;
    nnef::Diagnostics d;
    for (const Input& in : inputs)
        if (!ex.set_input(in.name, in.value, d)) {
            render(d);
            return out;
        }
    for (int c = 0; c < o.cycles; ++c)
        if (!ex.run(d)) {
            render(d);
            return out;
        }
    for (const std::string& n : outputs) out.outputs[n] = *ex.tensor(n);
    out.ok = true;
    return out;
}

// Single input x, single output y.
inline Outcome run1(const TensorValue& x, const std::string& body, const Options& o = {}) {
    return run({{"x", x}}, body, {"y"}, o);
}

}  // namespace NNEF_EXEC_TEST_NS

// Checks that an outcome succeeded and its tensor `name` has `shape` and the `expected` items.
#define CHECK_TENSOR(outcome, name, shape_, ...)                                                        \
    do {                                                                                               \
        const NNEF_EXEC_TEST_NS::Outcome& o_ = (outcome);                                                      \
        INFO(o_.messages);                                                                             \
        REQUIRE(o_.ok);                                                                                \
        const auto& t_ = o_[name];                                                                     \
        CHECK(t_.shape() == nnef::Shape shape_);                                                       \
        const std::vector<double> expected_ = __VA_ARGS__;                                             \
        const std::vector<double> got_ = t_.to_doubles();                                              \
        /* every item within 1e-5 * max(1, |expected|); a NaN or infinity only where expected */    \
        const nnef_test::Comparison c_ = nnef_test::compare(got_, expected_, nnef_test::CompareOptions{true}); \
        CHECK_MESSAGE(c_.scaled_within(1e-5), c_.summary());                                           \
    } while (0)
