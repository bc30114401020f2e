// The interpreter checks every operator's own rules with the validator's family checks before it
// runs a graph (operator_rules, validator.hpp): one source of the ERROR_IFs that attributes, shapes
// and constant operands decide, with the validator's code and wording; the kernels keep only the
// ERROR_IFs that depend on the data, under the same code.
#include <doctest/doctest.h>

#include <string>

#include "lowering/tosa/interpreter.hpp"
#include "lowering/tosa/validator.hpp"

namespace interpreter_rules_test {

using namespace nnef::tosa;

TensorType T(DType t, nnef::Shape s) { return TensorType{t, std::move(s)}; }

ConstPtr f32(nnef::Shape shape, float v) {
    auto c = ConstData::allocate(T(DType::fp32, std::move(shape)));
    for (std::int64_t i = 0; i < c->type.volume(); ++i) c->mutable_items<float>()[i] = v;
    return c;
}

// The first error of interpreting g on inputs (empty: it ran).
nnef::Diagnostic first_error(const Graph& g, const std::vector<ConstPtr>& inputs) {
    nnef::Diagnostics d;
    const bool ran = interpret(g, inputs, {}, d).has_value();
    CHECK(ran == !d.has_errors());
    return d.has_errors() ? d.list().front() : nnef::Diagnostic{};
}

TEST_CASE("interpreter: a CLAMP with max_val < min_val is refused with the validator's code and words") {
    Graph g;
    const ValueId x = g.add_value(T(DType::fp32, {2}), "x");
    g.main().inputs = {x};
    const ValueId y = g.add_op(0, OpKind::CLAMP, {x}, {T(DType::fp32, {2})},
                               {{AttrName::min_val, 1.0}, {AttrName::max_val, 0.5}, {AttrName::nan_mode, NanMode::PROPAGATE}})
                          .outputs[0];
    g.main().outputs = {y};
    const nnef::Diagnostic e = first_error(g, {f32({2}, 0.0f)});
    CHECK(e.code == "tosa-error-if");
    CHECK(e.message.find("CLAMP %1: ERROR_IF(max_val < min_val): min_val 1.000000, max_val 0.500000") == 0);
    // The validator: the same rule, code and detail.
    nnef::Diagnostics v;
    CHECK_FALSE(validate(g, {}, v));
    REQUIRE(v.has_errors());
    CHECK(v.list().front().code == "tosa-error-if");
    CHECK(v.list().front().message.find("ERROR_IF(max_val < min_val): min_val 1.000000, max_val 0.500000") != std::string::npos);
    const auto rules = operator_rules(g, g.main().ops[0]);
    REQUIRE(rules);
    CHECK(rules->message == "ERROR_IF(max_val < min_val): min_val 1.000000, max_val 0.500000");
}

TEST_CASE("interpreter: a CONV2D with stride 0 is refused before any kernel runs (no division by zero)") {
    Graph g;
    const ValueId x = g.add_value(T(DType::fp32, {1, 4, 4, 1}), "x");
    g.main().inputs = {x};
    const ValueId w = g.add_const(0, f32({1, 1, 1, 1}, 1.0f));
    const ValueId b = g.add_const(0, f32({1}, 0.0f));
    const ValueId zp = g.add_const(0, f32({1}, 0.0f));
    const ValueId y = g.add_op(0, OpKind::CONV2D, {x, w, b, zp, zp}, {T(DType::fp32, {1, 4, 4, 1})},
                               {{AttrName::pad, std::vector<std::int64_t>{0, 0, 0, 0}},
                                {AttrName::stride, std::vector<std::int64_t>{0, 1}},
                                {AttrName::dilation, std::vector<std::int64_t>{1, 1}},
                                {AttrName::acc_type, AccType::FP32}})
                          .outputs[0];
    g.main().outputs = {y};
    const nnef::Diagnostic e = first_error(g, {f32({1, 4, 4, 1}, 1.0f)});
    CHECK(e.code == "tosa-error-if");
    CHECK(e.message.find("ERROR_IF(stride_y < 1 || stride_x < 1): stride [0,1]") != std::string::npos);
    // With a valid stride the same graph runs.
    g.main().ops.back().set(AttrName::stride, std::vector<std::int64_t>{1, 1});
    CHECK(first_error(g, {f32({1, 4, 4, 1}, 1.0f)}).code.empty());
}

}  // namespace interpreter_rules_test
