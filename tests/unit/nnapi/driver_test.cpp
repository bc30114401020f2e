// The HAL 1.0 device interface (lowering/nnapi/driver.hpp) and its cpu device: capabilities,
// supported operations, prepareModel and execute with their ErrorStatus answers.
#include <doctest/doctest.h>

#include <cstring>

#include "lowering/nnapi/driver.hpp"
#include "unit/nnapi/nnapi_fixtures.hpp"

using namespace nnapi_test;

namespace driver_test {

// chain_model() with an operation the cpu device does not run appended: SVDF on its own inputs.
Model with_svdf() {
    Model m = chain_model();
    std::vector<std::uint32_t> in;
    for (std::vector<std::uint32_t> dims : {std::vector<std::uint32_t>{1, 2}, {3, 2}, {3, 4}}) in.push_back(add_operand(m, F32, dims));
    std::uint32_t bias = add_operand(m, F32, {3});
    m.operands[bias].lifetime = OperandLifeTime::NO_VALUE;
    in.push_back(bias);
    in.push_back(add_operand(m, F32, {1, 9}));
    in.push_back(add_int32_scalar(m, 1));
    in.push_back(add_int32_scalar(m, 0));
    std::uint32_t state = add_operand(m, F32, {1, 9});
    std::uint32_t out = add_operand(m, F32, {1, 3});
    add_operation(m, OperationType::SVDF, in, {state, out});
    set_inputs_and_outputs(m, {0, in[0], in[1], in[2], in[4]}, {4, state, out});
    return m;
}


TEST_SUITE("nnapi") {
TEST_CASE("driver: the cpu device") {
    auto device = make_device("cpu");
    REQUIRE(device);
    CHECK(device->name() == "cpu");
    CHECK(device->getStatus() == DeviceStatus::AVAILABLE);
    auto [status, caps] = device->getCapabilities();
    CHECK(status == ErrorStatus::NONE);
    CHECK(caps.float32Performance.execTime == 1.0f);
    CHECK(caps.quantized8Performance.powerUsage == 1.0f);
    CHECK(make_device("npu") == nullptr);
    CHECK(device_names() == std::vector<std::string>{"cpu", "vpu"});
}

TEST_CASE("driver: getSupportedOperations answers per operation") {
    auto device = make_cpu_device();
    nnef::Diagnostics d;
    Model m = with_svdf();
    CHECK(validation_errors(m).empty());
    auto [status, supported] = device->getSupportedOperations(m, d);
    CHECK(status == ErrorStatus::NONE);
    CHECK(supported == std::vector<bool>{true, true, false});

    Model broken = chain_model();
    broken.operands[0].numberOfConsumers = 5;
    auto [bad_status, none] = device->getSupportedOperations(broken, d);
    CHECK(bad_status == ErrorStatus::INVALID_ARGUMENT);
    CHECK(none.empty());
}

TEST_CASE("driver: prepareModel and execute") {
    auto device = make_cpu_device();
    nnef::Diagnostics d;
    auto [status, prepared] = device->prepareModel(chain_model(), d);
    REQUIRE(status == ErrorStatus::NONE);
    REQUIRE(prepared);
    Request r;
    r.pools.push_back(Memory{std::vector<std::uint8_t>(32)});
    float in[4] = {-2, 0, 0.5f, 3};
    std::memcpy(r.pools[0].data.data(), in, 16);
    r.inputs.push_back(RequestArgument{false, {0, 0, 16}, {}});
    r.outputs.push_back(RequestArgument{false, {0, 16, 16}, {}});
    CHECK(prepared->execute(r, d) == ErrorStatus::NONE);
    float out[4];
    std::memcpy(out, r.pools[0].data.data() + 16, 16);
    CHECK(out[0] == 1.0f);  // relu(-2) + 1
    CHECK(out[2] == 1.5f);
    CHECK(out[3] == 4.0f);

    nnef::Diagnostics d2;
    auto [svdf_status, none] = device->prepareModel(with_svdf(), d2);
    CHECK(svdf_status == ErrorStatus::GENERAL_FAILURE);
    CHECK_FALSE(none);
    REQUIRE(d2.size() == 1);
    CHECK((*d2.begin()).message == "operation 2 (SVDF): the cpu device does not run SVDF [unsupported-operation]");

    Model broken = chain_model();
    broken.outputIndexes.clear();
    nnef::Diagnostics d3;
    CHECK(device->prepareModel(broken, d3).first == ErrorStatus::INVALID_ARGUMENT);
}
}

}  // namespace driver_test
