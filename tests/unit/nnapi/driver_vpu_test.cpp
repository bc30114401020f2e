// The driver's vpu device (lowering/nnapi/driver_vpu.cpp): NNAPI -> TOSA -> VPU compiler -> VPU
// simulator, against the cpu device on the same requests (the VPU computes in fp16), its
// capabilities and its refusals.
#include <doctest/doctest.h>

#include <cmath>
#include <cstring>
#include <limits>

#include "common/compare.hpp"
#include "lowering/nnapi/driver.hpp"
#include "lowering/nnapi/to_tosa.hpp"
#include "test_support.hpp"
#include "unit/nnapi/nnapi_fixtures.hpp"

using namespace nnapi_test;

namespace driver_vpu_test {

std::string messages(const nnef::Diagnostics& d) {
    std::string s;
    for (const auto& e : d) s += e.message + "\n";
    return s;
}

// A model of float32 operations one after another: each reads the previous result, then the given
// operands, then INT32 scalars of the given values.
struct Chain {
    Model m;
    std::uint32_t input, last;
    explicit Chain(std::vector<std::uint32_t> dims) { input = last = add_operand(m, F32, std::move(dims)); }
    Chain& then(OperationType type, const std::vector<std::uint32_t>& operands, const std::vector<std::int32_t>& scalars,
                std::vector<std::uint32_t> out_dims) {
        std::vector<std::uint32_t> inputs{last};
        inputs.insert(inputs.end(), operands.begin(), operands.end());
        for (std::int32_t v : scalars) inputs.push_back(add_int32_scalar(m, v));
        last = add_operand(m, F32, std::move(out_dims));
        add_operation(m, type, inputs, {last});
        return *this;
    }
    Model done() {
        set_inputs_and_outputs(m, {input}, {last});
        return m;
    }
};

// Prepares `m` on `device` and executes one request whose inputs are deterministic mixed-sign
// values (quant8: codes spread over 0..255); returns the outputs' items (quant8: the codes), one
// vector per model output.
std::vector<std::vector<float>> execute_on(const Device& device, const Model& m) {
    nnef::Diagnostics d(100);
    auto [status, prepared] = device.prepareModel(m, d);
    CAPTURE(device.name());
    CAPTURE(messages(d));
    REQUIRE(status == ErrorStatus::NONE);
    REQUIRE(prepared);
    Request r;
    for (std::size_t k = 0; k < m.inputIndexes.size(); ++k) {
        const Operand& o = m.operands[m.inputIndexes[k]];
        const std::uint64_t n = *element_count(o);
        Memory pool{std::vector<std::uint8_t>(*byte_size(o))};
        if (o.type == Q8) {
            for (std::size_t i = 0; i < n; ++i) pool.data[i] = std::uint8_t((i * 37 + k * 11 + (i * i) % 23) % 256);
        } else {
            std::vector<float> v(n);
            for (std::size_t i = 0; i < n; ++i) v[i] = 1.5f * std::sin(0.37f * float(i) + float(k)) - 0.2f;
            std::memcpy(pool.data.data(), v.data(), n * 4);
        }
        r.inputs.push_back(RequestArgument{false, {std::uint32_t(r.pools.size()), 0, std::uint32_t(pool.data.size())}, {}});
        r.pools.push_back(std::move(pool));
    }
    for (std::uint32_t o : m.outputIndexes) {
        const std::uint32_t bytes = std::uint32_t(*byte_size(m.operands[o]));
        r.outputs.push_back(RequestArgument{false, {std::uint32_t(r.pools.size()), 0, bytes}, {}});
        r.pools.push_back(Memory{std::vector<std::uint8_t>(bytes)});
    }
    const ErrorStatus e = prepared->execute(r, d);
    CAPTURE(messages(d));
    REQUIRE(e == ErrorStatus::NONE);
    std::vector<std::vector<float>> outputs;
    for (std::size_t k = 0; k < r.outputs.size(); ++k) {
        const RequestArgument& a = r.outputs[k];
        const std::uint8_t* bytes = r.pools[a.location.poolIndex].data.data();
        std::vector<float> v;
        if (m.operands[m.outputIndexes[k]].type == Q8) {  // the codes
            v.assign(bytes, bytes + a.location.length);
        } else {
            v.resize(a.location.length / 4);
            std::memcpy(v.data(), bytes, a.location.length);
        }
        outputs.push_back(std::move(v));
    }
    return outputs;
}

// The vpu device's outputs against the cpu device's. float32: fp16 arithmetic on the VPU (its
// relative L2 error on these models is about 5e-4), checked <= 2e-3. quant8: every code within 1.
void check_against_cpu(const Model& m) {
    auto cpu = execute_on(*make_cpu_device(), m);
    auto vpu = execute_on(*make_vpu_device(), m);
    REQUIRE(cpu.size() == vpu.size());
    for (std::size_t k = 0; k < cpu.size(); ++k) {
        nnef_test::Comparison c;
        c.add(vpu[k], cpu[k]);
        if (m.operands[m.outputIndexes[k]].type == Q8) CHECK_MESSAGE(c.max_abs_within(1.0), c.summary());
        else CHECK_MESSAGE(c.rel_l2_within(2e-3), c.summary());
    }
}


TEST_SUITE("nnapi") {
TEST_CASE("driver: the vpu device runs float models as the cpu device does (within fp16)") {
    SUBCASE("CONV_2D") { check_against_cpu(conv_model(false)); }
    SUBCASE("RELU then ADD") { check_against_cpu(chain_model()); }
    SUBCASE("DEPTHWISE_CONV_2D, AVERAGE_POOL_2D, FULLY_CONNECTED, SOFTMAX") {
        Chain c({1, 6, 6, 4});
        std::vector<float> w(3 * 3 * 4), fc(5 * 36);
        for (std::size_t i = 0; i < w.size(); ++i) w[i] = 0.2f * std::sin(1.1f * float(i));
        for (std::size_t i = 0; i < fc.size(); ++i) fc[i] = 0.1f * std::cos(0.3f * float(i));
        // SAME, strides 1, multiplier 1, RELU; then a 2x2 window, stride 2
        c.then(OperationType::DEPTHWISE_CONV_2D,
               {float_constant(c.m, {1, 3, 3, 4}, w), float_constant(c.m, {4}, {0.1f, 0.2f, -0.1f, 0.0f})}, {1, 1, 1, 1, 1},
               {1, 6, 6, 4});
        c.then(OperationType::AVERAGE_POOL_2D, {}, {2, 2, 2, 2, 2, 0}, {1, 3, 3, 4});
        c.then(OperationType::FULLY_CONNECTED,
               {float_constant(c.m, {5, 36}, fc), float_constant(c.m, {5}, {0, 0.1f, 0.2f, 0.3f, 0.4f})}, {0}, {1, 5});
        c.then(OperationType::SOFTMAX, {add_float32_scalar(c.m, 1.0f)}, {}, {1, 5});
        check_against_cpu(c.done());
    }
    SUBCASE("CONV_2D SAME stride 2 with RELU6, then MAX_POOL_2D") {
        Chain c({1, 9, 9, 8});
        std::vector<float> w(16 * 3 * 3 * 8), b(16);
        for (std::size_t i = 0; i < w.size(); ++i) w[i] = 0.1f * std::cos(0.9f * float(i));
        for (std::size_t i = 0; i < b.size(); ++i) b[i] = 0.05f * float(i) - 0.3f;
        c.then(OperationType::CONV_2D, {float_constant(c.m, {16, 3, 3, 8}, w), float_constant(c.m, {16}, b)}, {1, 2, 2, 3},
               {1, 5, 5, 16});
        c.then(OperationType::MAX_POOL_2D, {}, {1, 2, 2, 2, 2, 0}, {1, 3, 3, 16});
        check_against_cpu(c.done());
    }
}

TEST_CASE("driver: the vpu device runs quant8 models as the cpu device does (within 1 code)") {
    SUBCASE("CONV_2D") { check_against_cpu(conv_model(true)); }
    SUBCASE("CONV_2D SAME with RELU, then MAX_POOL_2D") {
        std::vector<std::uint8_t> w(8 * 3 * 3 * 4);
        for (std::size_t i = 0; i < w.size(); ++i) w[i] = std::uint8_t((i * 29) % 256);
        Model m;
        const std::uint32_t in = add_operand(m, Q8, {1, 6, 6, 4}, 0.05f, 120);
        const std::uint32_t mid = add_operand(m, Q8, {1, 6, 6, 8}, 0.1f, 20);
        add_operation(m, OperationType::CONV_2D,
                      {in, quant_constant(m, {8, 3, 3, 4}, w, 0.01f, 130), int_constant(m, {8}, {100, -200, 0, 50, 7, 9, -11, 0}, 0.0005f),
                       add_int32_scalar(m, 1), add_int32_scalar(m, 1), add_int32_scalar(m, 1), add_int32_scalar(m, 1)},
                      {mid});
        const std::uint32_t out = add_operand(m, Q8, {1, 3, 3, 8}, 0.1f, 20);
        add_operation(m, OperationType::MAX_POOL_2D,
                      {mid, add_int32_scalar(m, 2), add_int32_scalar(m, 2), add_int32_scalar(m, 2), add_int32_scalar(m, 2),
                       add_int32_scalar(m, 2), add_int32_scalar(m, 0)},
                      {out});
        set_inputs_and_outputs(m, {in}, {out});
        check_against_cpu(m);
    }
}

TEST_CASE("driver: the vpu device's capabilities and supported operations") {
    auto device = make_device("vpu");
    REQUIRE(device);
    CHECK(device->name() == "vpu");
    auto [status, caps] = device->getCapabilities();
    REQUIRE(status == ErrorStatus::NONE);
    // a ratio of two measured times: positive and finite (its value depends on the host CPU)
    CHECK(std::isfinite(caps.float32Performance.execTime));
    CHECK(caps.float32Performance.execTime > 0.0f);
    MESSAGE("vpu float32 execTime " << caps.float32Performance.execTime);
    CHECK(caps.float32Performance.powerUsage == caps.float32Performance.execTime);
    CHECK(std::isfinite(caps.quantized8Performance.execTime));
    CHECK(caps.quantized8Performance.execTime > 0.0f);
    CHECK(caps.quantized8Performance.powerUsage == caps.quantized8Performance.execTime);
    MESSAGE("vpu quant8 execTime " << caps.quantized8Performance.execTime);

    nnef::Diagnostics d;
    Model m = One(F32, {1, 2, 2, 4}).i32(1).f32(1.0f).f32(1.0f).f32(0.5f)
                  .done(OperationType::LOCAL_RESPONSE_NORMALIZATION, F32, {1, 2, 2, 4});
    auto [s1, supported] = device->getSupportedOperations(m, d);
    CHECK(s1 == ErrorStatus::NONE);
    CHECK(supported == std::vector<bool>{false});
    auto [s2, conv_supported] = device->getSupportedOperations(conv_model(false), d);
    CHECK(conv_supported == std::vector<bool>{true});
    auto [s3, quant_supported] = device->getSupportedOperations(conv_model(true), d);
    CHECK(quant_supported == std::vector<bool>{true});
}

TEST_CASE("driver: the vpu device refuses what it cannot run, naming the operation") {
    auto device = make_vpu_device();
    nnef::Diagnostics d;
    Model lrn = One(F32, {1, 2, 2, 4}).i32(1).f32(1.0f).f32(1.0f).f32(0.5f)
                    .done(OperationType::LOCAL_RESPONSE_NORMALIZATION, F32, {1, 2, 2, 4});
    auto [status, none] = device->prepareModel(lrn, d);
    CHECK(status == ErrorStatus::GENERAL_FAILURE);
    CHECK_FALSE(none);
    REQUIRE(d.size() >= 1);
    CAPTURE(messages(d));
    CHECK((*d.begin()).message.find("operation 0 (LOCAL_RESPONSE_NORMALIZATION)") != std::string::npos);

    // what the VPU compiler refuses (a depthwise multiplier other than 1): its message names the operation
    nnef::Diagnostics d1;
    auto m = read_model((nnef_test::source_dir() / "tests/unit/nnapi/models/depthwise-pool-softmax.json").string(), d1);
    REQUIRE(m.has_value());
    CHECK(device->prepareModel(*m, d1).first == ErrorStatus::GENERAL_FAILURE);
    CHECK(messages(d1).find("DEPTHWISE_CONV_2D") != std::string::npos);
    CHECK(messages(d1).find("depthwise multiplier 2") != std::string::npos);

    Model broken = conv_model(false);
    broken.outputIndexes.clear();
    nnef::Diagnostics d2;
    CHECK(device->prepareModel(broken, d2).first == ErrorStatus::INVALID_ARGUMENT);
}
}

TEST_CASE("driver: the vpu device's getSupportedOperations answers what the VPU compiler runs, per operation") {
    auto device = make_vpu_device();
    // DEPTHWISE_CONV_2D with multiplier 2 lowers to TOSA but the VPU compiler refuses it (the NCE's
    // dwconv takes multiplier 1); the other operations of the model compile alone
    nnef::Diagnostics d;
    auto m = read_model((nnef_test::source_dir() / "tests/unit/nnapi/models/depthwise-pool-softmax.json").string(), d);
    REQUIRE(m.has_value());
    std::vector<bool> want;
    std::size_t depthwise = 0;
    for (const Operation& op : m->operations) {
        want.push_back(op.type != OperationType::DEPTHWISE_CONV_2D);
        depthwise += op.type == OperationType::DEPTHWISE_CONV_2D;
    }
    REQUIRE(depthwise == 1);
    REQUIRE(m->operations.size() > 1);
    auto [status, supported] = device->getSupportedOperations(*m, d);
    CHECK(status == ErrorStatus::NONE);
    std::string answer;
    for (bool b : supported) answer += b ? "1" : "0";
    CAPTURE(answer);
    CHECK(supported == want);
    CHECK_FALSE(d.has_errors());  // the refusals are the answer, not errors of the call
    // the cpu device runs them all
    auto [cpu_status, cpu_supported] = make_cpu_device()->getSupportedOperations(*m, d);
    CHECK(cpu_supported == std::vector<bool>(m->operations.size(), true));

    // quant8 SOFTMAX lowers to TOSA (an i16 TABLE of exp, EXT-INT16), which the VPU compiler refuses;
    // quant8 LOGISTIC (an i8 TABLE) runs
    Model softmax = One(Q8, {1, 10}, 0.1f, 128).f32(1.0f).done(OperationType::SOFTMAX, Q8, {1, 10}, 1.0f / 256, 0);
    Model logistic = One(Q8, {1, 10}, 0.1f, 128).done(OperationType::LOGISTIC, Q8, {1, 10}, 1.0f / 256, 0);
    CHECK(tosa_lowers(softmax, softmax.operations[0]));
    CHECK(device->getSupportedOperations(softmax, d).second == std::vector<bool>{false});
    CHECK(device->getSupportedOperations(logistic, d).second == std::vector<bool>{true});
    nnef::Diagnostics why;
    CHECK(device->prepareModel(softmax, why).first == ErrorStatus::GENERAL_FAILURE);
    CHECK(messages(why).find("TOSA TABLE (from NNEF operation 'SOFTMAX'") != std::string::npos);
    CHECK_FALSE(d.has_errors());
}

}  // namespace driver_vpu_test
