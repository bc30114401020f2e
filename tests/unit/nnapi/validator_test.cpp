// The NNAPI 1.0 validator (lowering/nnapi/model.hpp, validate): valid models pass, and for each rule
// the HAL text states a hand-broken model is caught with a message naming the operation, the
// operand and the rule.
#include <doctest/doctest.h>

#include <cstring>
#include <functional>

#include "unit/nnapi/nnapi_fixtures.hpp"

using namespace nnapi_test;

namespace validator_test {

struct Breakage {
    const char* what;
    std::function<Model()> make;
    const char* message;  // a part of one error's message
};

Model conv_with(const std::function<void(Model&)>& change, bool quant = true) {
    Model m = conv_model(quant);
    change(m);
    return m;
}

// A model with one operation of `type` on `inputs` (operand indexes of `m`) and one output.
Model single(OperationType type, Model m, std::vector<std::uint32_t> inputs, OperandType out_type,
             std::vector<std::uint32_t> out_dims, float scale = 0.0f, std::int32_t zeroPoint = 0) {
    std::uint32_t out = add_operand(m, out_type, std::move(out_dims), scale, zeroPoint);
    add_operation(m, type, std::move(inputs), {out});
    set_inputs_and_outputs(m, {0}, {out});
    return m;
}

Model input_model(OperandType t, std::vector<std::uint32_t> dims, float scale = 0.0f, std::int32_t zeroPoint = 0) {
    Model m;
    add_operand(m, t, std::move(dims), scale, zeroPoint);
    return m;
}


TEST_SUITE("nnapi") {
TEST_CASE("validator: valid models pass") {
    CHECK(joined(validation_errors(conv_model(false))) == "");
    CHECK(joined(validation_errors(conv_model(true))) == "");
    CHECK(joined(validation_errors(chain_model())) == "");
}

TEST_CASE("validator: the exact message of a broken bias scale") {
    Model m = conv_with([](Model& m) { m.operands[2].scale = 0.5f; });
    auto errors = validation_errors(m);
    REQUIRE(errors.size() == 1);
    CHECK(errors[0] ==
          "operation 0 (CONV_2D), input 2 (operand 2): has scale 0.5; it must be input_scale * filter_scale = 0.5 * 0.25 = "
          "0.125 [bias-scale]");
}

TEST_CASE("validator: each rule catches its hand-broken model") {
    const std::vector<Breakage> cases = {
        // operands
        {"quant8 scale 0", [] { return conv_with([](Model& m) { m.operands[0].scale = 0; }); },
         "operand 0 (TENSOR_QUANT8_ASYMM[1,3,3,2], scale 0, zeroPoint 128): scale is 0; a TENSOR_QUANT8_ASYMM scale must be "
         "greater than zero [quant8-scale]"},
        {"quant8 zeroPoint 256", [] { return conv_with([](Model& m) { m.operands[7].zeroPoint = 256; }); },
         "operand 7 (TENSOR_QUANT8_ASYMM[1,2,2,2], scale 1, zeroPoint 256): zeroPoint is 256; it must be in [0, 255] "
         "[quant8-zero-point]"},
        {"quant8 zeroPoint -1", [] { return conv_with([](Model& m) { m.operands[1].zeroPoint = -1; }); },
         "zeroPoint is -1; it must be in [0, 255] [quant8-zero-point]"},
        {"tensor without dimensions", [] { return conv_with([](Model& m) { m.operands[7].dimensions.clear(); }); },
         "operand 7 (TENSOR_QUANT8_ASYMM[], scale 1, zeroPoint 100): a tensor operand needs at least one dimension [operand-rank]"},
        {"scalar with dimensions", [] { return conv_with([](Model& m) { m.operands[4].dimensions = {1}; }); },
         "operand 4 (INT32): a scalar operand must have no dimensions [operand-rank]"},
        {"temporary with a location", [] { return conv_with([](Model& m) { m.operands[7].location.offset = 4; }); },
         "location {poolIndex 0, offset 4, length 0}; a MODEL_OUTPUT operand's location fields must all be 0 [location]"},
        {"constant past operandValues", [] { return conv_with([](Model& m) { m.operands[6].location.offset = 4000; }); },
         "operand 6 (INT32): location {poolIndex 0, offset 4000, length 4} ends at byte 4004, past the"},
        {"constant in a missing pool", [] { return conv_with([](Model& m) { m.operands[1].lifetime = OperandLifeTime::CONSTANT_REFERENCE; }); },
         "operand 1 (TENSOR_QUANT8_ASYMM[2,2,2,2], scale 0.25, zeroPoint 128): location {poolIndex 0, offset 0, length 16}; the "
         "model has 0 pools [location]"},
        {"constant length", [] { return conv_with([](Model& m) { m.operands[2].location.length = 4; }); },
         "operand 2 (TENSOR_INT32[2]): location length is 4; the operand's value has 8 bytes [constant-length]"},
        {"constant dimensions unspecified", [] { return conv_with([](Model& m) { m.operands[2].dimensions = {0}; }); },
         "a CONSTANT_COPY tensor needs fully specified dimensions [constant-dimensions]"},
        {"copy with poolIndex", [] { return conv_with([](Model& m) { m.operands[3].location.poolIndex = 1; }); },
         "a CONSTANT_COPY operand has poolIndex 0 [location]"},
        // model inputs and outputs
        {"no inputs", [] { return conv_with([](Model& m) { m.inputIndexes.clear(); m.operands[0].lifetime = OperandLifeTime::TEMPORARY_VARIABLE; }); },
         "model: inputIndexes is empty; there must be at least one [model-io]"},
        {"input not listed", [] { return conv_with([](Model& m) { m.operands[0].lifetime = OperandLifeTime::MODEL_INPUT; m.inputIndexes = {}; }); },
         "has lifetime MODEL_INPUT but is not in inputIndexes [model-io]"},
        {"listed input not MODEL_INPUT", [] { return conv_with([](Model& m) { m.operands[0].lifetime = OperandLifeTime::TEMPORARY_VARIABLE; }); },
         "is in inputIndexes but has lifetime TEMPORARY_VARIABLE, not MODEL_INPUT [model-io]"},
        {"input index out of range", [] { return conv_with([](Model& m) { m.inputIndexes.push_back(99); }); },
         "model: inputIndexes[1] is 99; the model has 8 operands [index-range]"},
        {"constant as model output", [] { return conv_with([](Model& m) { m.outputIndexes.push_back(1); }); },
         "is in outputIndexes but has lifetime CONSTANT_COPY, not MODEL_OUTPUT [model-io]"},
        // operations
        {"operation index out of range", [] { return conv_with([](Model& m) { m.operations[0].inputs[1] = 42; }); },
         "operation 0 (CONV_2D), input 1 (operand 42): operand index 42 is out of range; the model has 8 operands [index-range]"},
        {"constant as operation output", [] {
             Model m = chain_model();
             m.operations[1].outputs = {2};
             return m;
         },
         "operation 1 (ADD), output 0 (operand 2): has lifetime CONSTANT_COPY; an operation's output must be TEMPORARY_VARIABLE "
         "or MODEL_OUTPUT [output-lifetime]"},
        {"model input as operation output", [] {
             Model m = chain_model();
             m.operations[0].outputs = {0};
             return m;
         },
         "operation 0 (RELU), output 0 (operand 0): has lifetime MODEL_INPUT; an operation's output must be"},
        {"two writers", [] {
             Model m = chain_model();
             m.operations[1].outputs = {1};
             m.operations[1].inputs = {0, 2, 3};
             m.operands[0].numberOfConsumers = 2;
             m.operands[1].numberOfConsumers = 0;
             return m;
         },
         "operation 1 (ADD), output 0 (operand 1): is already the output of operation 0; it must be the output of exactly one "
         "operation [single-writer]"},
        {"temporary never written", [] {
             Model m = chain_model();
             m.operations[0].outputs = {4};
             m.operations.pop_back();
             m.operands[2].numberOfConsumers = m.operands[3].numberOfConsumers = m.operands[1].numberOfConsumers = 0;
             return m;
         },
         "operand 1 (TENSOR_FLOAT32[1,2,2,1]): is TEMPORARY_VARIABLE but no operation writes it; it must be the output of "
         "exactly one operation [single-writer]"},
        {"read before written", [] {
             Model m = chain_model();
             std::swap(m.operations[0], m.operations[1]);
             return m;
         },
         "operation 0 (ADD), input 0 (operand 1): the TEMPORARY_VARIABLE operand is read before an operation writes it "
         "[execution-order]"},
        {"numberOfConsumers", [] { return conv_with([](Model& m) { m.operands[0].numberOfConsumers = 3; }); },
         "numberOfConsumers is 3; the operations read it 1 times [number-of-consumers]"},
        {"NO_VALUE on a required input", [] { return conv_with([](Model& m) {
                                                   m.operands[2].lifetime = OperandLifeTime::NO_VALUE;
                                                   m.operands[2].location = {};
                                               }); },
         "operation 0 (CONV_2D), input 2 (operand 2): has lifetime NO_VALUE, but this input of CONV_2D is not optional [no-value]"},
        // operation signatures
        {"operand count", [] { return conv_with([](Model& m) { m.operations[0].inputs.pop_back(); }); },
         "operation 0 (CONV_2D): has 6 inputs; CONV_2D takes 10 or 7 [operand-count]"},
        {"input type", [] { return conv_with([](Model& m) { m.operands[0].type = I32T; m.operands[0].zeroPoint = 0; }); },
         "operation 0 (CONV_2D), input 0 (operand 0): is TENSOR_INT32; expected TENSOR_FLOAT32, TENSOR_QUANT8_ASYMM [operand-type]"},
        {"filter type", [] { return conv_with([](Model& m) { m.operands[0].type = F32; m.operands[7].type = F32; }); },
         "input 1 (operand 1): is TENSOR_QUANT8_ASYMM; it must be TENSOR_FLOAT32 (the filter has the input's type) [operand-type]"},
        {"scalar type", [] { return conv_with([](Model& m) { m.operands[4].type = OperandType::FLOAT32; }); },
         "operation 0 (CONV_2D), input 4 (operand 4): is FLOAT32; the width stride must be INT32 [scalar-type]"},
        {"fused activation", [] { return conv_with([](Model& m) { set_int32(m, 6, 7); }); },
         "operation 0 (CONV_2D), input 6 (operand 6): the fused activation is 7; it must be a FusedActivationFunc value"},
        {"padding scheme", [] { return conv_with([](Model& m) { set_int32(m, 3, 5); }); },
         "operation 0 (CONV_2D), input 3 (operand 3): the implicit padding scheme is 5; it must be 0 (NONE), 1 (SAME) or 2 "
         "(VALID) [padding-scheme]"},
        {"stride", [] { return conv_with([](Model& m) { set_int32(m, 5, 0); }); },
         "input 5 (operand 5): the height stride is 0; it must be >= 1 [stride]"},
        {"rank (NHWC)", [] { return conv_with([](Model& m) { m.operands[0].dimensions = {1, 3, 3}; }); },
         "operation 0 (CONV_2D), input 0 (operand 0): has rank 3; CONV_2D needs rank 4 (NHWC) [rank]"},
        {"filter depth", [] { return conv_with([](Model& m) { m.operands[0].dimensions = {1, 3, 3, 3}; }); },
         "input 1 (operand 1): is [2,2,2,2]; its last dimension must be the input depth 3 [filter-shape]"},
        {"bias type", [] { return conv_with([](Model& m) { m.operands[2].type = F32; }); },
         "input 2 (operand 2): is TENSOR_FLOAT32; the bias of a TENSOR_QUANT8_ASYMM operation must be TENSOR_INT32 [bias-type]"},
        {"bias zeroPoint", [] { return conv_with([](Model& m) { m.operands[2].zeroPoint = 3; }); },
         "input 2 (operand 2): has zeroPoint 3; it must be 0 [bias-zero-point]"},
        {"bias shape", [] { return conv_with([](Model& m) {
                                std::int32_t v[3] = {};
                                m.operands[2] = m.operands[add_constant(m, I32T, {3}, v, 12, 0.125f)];
                                m.operands[2].numberOfConsumers = 1;
                                m.operands.pop_back();
                            }); },
         "input 2 (operand 2): is [3]; it must be [2] [bias-shape]"},
        {"output scale", [] { return conv_with([](Model& m) { m.operands[7].scale = 0.125f; }); },
         "operation 0 (CONV_2D), output 0 (operand 7): has scale 0.125; it must be > input_scale * filter_scale = 0.125 "
         "[output-scale]"},
        {"output shape", [] { return conv_with([](Model& m) { m.operands[7].dimensions = {1, 3, 3, 2}; }); },
         "operation 0 (CONV_2D), output 0 (operand 7): has dimensions [1,3,3,2]; CONV_2D gives [1,2,2,2] [output-shape]"},
        {"window larger than the input", [] { return conv_with([](Model& m) {
                                                  m.operands[0].dimensions = {1, 1, 1, 2};
                                                  m.operands[7].dimensions = {1, 0, 0, 2};
                                              }); },
         "operation 0 (CONV_2D): the 2x2 window does not fit the padded 1x1 input [window-size]"},
        {"MUL output scale", [] {
             Model m = input_model(Q8, {2}, 0.5f, 0);
             add_operand(m, Q8, {2}, 0.5f, 0);
             m.operands[1].lifetime = OperandLifeTime::MODEL_INPUT;
             std::uint32_t act = add_int32_scalar(m, 0);
             Model r = single(OperationType::MUL, m, {0, 1, act}, Q8, {2}, 0.25f, 0);
             r.inputIndexes = {0, 1};
             return r;
         },
         "operation 0 (MUL), output 0 (operand 3): has scale 0.25; it must be > input1_scale * input2_scale = 0.25 [output-scale]"},
        {"ADD broadcast", [] {
             Model m = input_model(F32, {2, 3});
             std::uint32_t b = float_constant(m, {2}, {1, 2});
             std::uint32_t act = add_int32_scalar(m, 0);
             return single(OperationType::ADD, m, {0, b, act}, F32, {2, 3});
         },
         "operation 0 (ADD): input dimensions [2,3] and [2] are not compatible [broadcast]"},
        {"LOGISTIC output quantization", [] { return single(OperationType::LOGISTIC, input_model(Q8, {4}, 0.1f, 128), {0}, Q8, {4}, 0.1f, 128); },
         "operation 0 (LOGISTIC), output 0 (operand 1): has scale 0.1 and zeroPoint 128; LOGISTIC needs scale 1/256 and "
         "zeroPoint 0 [output-quantization]"},
        {"RELU output quantization", [] { return single(OperationType::RELU, input_model(Q8, {4}, 0.1f, 128), {0}, Q8, {4}, 0.2f, 128); },
         "operation 0 (RELU), output 0 (operand 1): has scale 0.2 and zeroPoint 128; they must be input 0's, 0.1 and 128 "
         "[output-quantization]"},
        {"SOFTMAX beta", [] {
             Model m = input_model(F32, {1, 4});
             std::uint32_t beta = add_float32_scalar(m, 0.0f);
             return single(OperationType::SOFTMAX, m, {0, beta}, F32, {1, 4});
         },
         "operation 0 (SOFTMAX), input 1 (operand 1): beta is 0.000000; it must be positive [softmax-beta]"},
        {"SOFTMAX rank", [] {
             Model m = input_model(F32, {4});
             std::uint32_t beta = add_float32_scalar(m, 1.0f);
             return single(OperationType::SOFTMAX, m, {0, beta}, F32, {4});
         },
         "has rank 1; SOFTMAX supports rank 2 or 4 [rank]"},
        {"CONCATENATION axis", [] {
             Model m = input_model(F32, {1, 2});
             std::uint32_t b = float_constant(m, {1, 2}, {1, 2});
             std::uint32_t axis = add_int32_scalar(m, 2);
             return single(OperationType::CONCATENATION, m, {0, b, axis}, F32, {1, 4});
         },
         "operation 0 (CONCATENATION), input 2 (operand 2): the axis is 2; the inputs have rank 2 [concat-axis]"},
        {"CONCATENATION shapes", [] {
             Model m = input_model(F32, {1, 2});
             std::uint32_t b = float_constant(m, {2, 3}, {1, 2, 3, 4, 5, 6});
             std::uint32_t axis = add_int32_scalar(m, 0);
             return single(OperationType::CONCATENATION, m, {0, b, axis}, F32, {3, 2});
         },
         "input 1 (operand 1): is [2,3]; it must match input 0 [1,2] except on axis 0 [concat-shape]"},
        {"RESHAPE size", [] {
             Model m = input_model(F32, {2, 3});
             std::uint32_t shape = int_constant(m, {2}, {4, 2});
             return single(OperationType::RESHAPE, m, {0, shape}, F32, {4, 2});
         },
         "operation 0 (RESHAPE), input 1 (operand 1): the shape has 8 elements; the input has 6 [reshape-size]"},
        {"RESHAPE two -1", [] {
             Model m = input_model(F32, {2, 3});
             std::uint32_t shape = int_constant(m, {2}, {-1, -1});
             return single(OperationType::RESHAPE, m, {0, shape}, F32, {0, 0});
         },
         "entry 1 is -1; entries must be >= 1, or -1 once [reshape-shape]"},
        {"DEPTH_TO_SPACE block", [] {
             Model m = input_model(F32, {1, 2, 2, 6});
             std::uint32_t block = add_int32_scalar(m, 2);
             return single(OperationType::DEPTH_TO_SPACE, m, {0, block}, F32, {1, 4, 4, 1});
         },
         "operation 0 (DEPTH_TO_SPACE), input 1 (operand 1): block_size * block_size = 4 does not divide the input depth 6 "
         "[block-size]"},
        {"SPACE_TO_DEPTH block", [] {
             Model m = input_model(F32, {1, 3, 4, 1});
             std::uint32_t block = add_int32_scalar(m, 2);
             return single(OperationType::SPACE_TO_DEPTH, m, {0, block}, F32, {1, 1, 2, 4});
         },
         "block_size 2 does not divide the input height and width 3x4 [block-size]"},
        {"LRN bias", [] {
             Model m = input_model(F32, {1, 1, 1, 4});
             std::uint32_t r = add_int32_scalar(m, 1);
             std::uint32_t bias = add_float32_scalar(m, 0.0f);
             std::uint32_t alpha = add_float32_scalar(m, 1.0f);
             std::uint32_t beta = add_float32_scalar(m, 0.5f);
             return single(OperationType::LOCAL_RESPONSE_NORMALIZATION, m, {0, r, bias, alpha, beta}, F32, {1, 1, 1, 4});
         },
         "input 2 (operand 2): the bias is 0; it must not be zero [lrn-bias]"},
        {"FULLY_CONNECTED input size", [] {
             Model m = input_model(F32, {1, 5});
             std::uint32_t w = float_constant(m, {2, 3}, {1, 2, 3, 4, 5, 6});
             std::uint32_t b = float_constant(m, {2}, {0, 0});
             std::uint32_t act = add_int32_scalar(m, 0);
             return single(OperationType::FULLY_CONNECTED, m, {0, w, b, act}, F32, {1, 2});
         },
         "operation 0 (FULLY_CONNECTED), input 0 (operand 0): has 5 elements, not a multiple of input_size 3 [input-size]"},
        {"DEQUANTIZE input type", [] { return single(OperationType::DEQUANTIZE, input_model(F32, {4}), {0}, F32, {4}); },
         "operation 0 (DEQUANTIZE), input 0 (operand 0): is TENSOR_FLOAT32; expected TENSOR_QUANT8_ASYMM [operand-type]"},
        {"L2_POOL_2D quant8", [] {
             Model m = input_model(Q8, {1, 2, 2, 1}, 0.5f, 0);
             std::vector<std::uint32_t> in = {0};
             for (std::int32_t v : {2, 1, 1, 2, 2, 0}) in.push_back(add_int32_scalar(m, v));
             return single(OperationType::L2_POOL_2D, m, in, Q8, {1, 1, 1, 1}, 0.5f, 0);
         },
         "operation 0 (L2_POOL_2D), input 0 (operand 0): is TENSOR_QUANT8_ASYMM; expected TENSOR_FLOAT32 [operand-type]"},
        {"DEPTHWISE multiplier", [] {
             Model m = input_model(F32, {1, 2, 2, 2});
             std::uint32_t f = float_constant(m, {1, 1, 1, 4}, {1, 2, 3, 4});
             std::uint32_t b = float_constant(m, {4}, {0, 0, 0, 0});
             std::vector<std::uint32_t> in = {0, f, b};
             for (std::int32_t v : {2, 1, 1, 3, 0}) in.push_back(add_int32_scalar(m, v));
             return single(OperationType::DEPTHWISE_CONV_2D, m, in, F32, {1, 2, 2, 4});
         },
         "input 1 (operand 1): has depth_out 4; it must be depth_in * multiplier = 2 * 3 [filter-shape]"},
        {"HASHTABLE_LOOKUP hits quantization", [] {
             Model m = input_model(I32T, {2});
             std::uint32_t keys = int_constant(m, {3}, {1, 2, 3});
             std::uint32_t values = float_constant(m, {3, 1}, {1, 2, 3});
             std::uint32_t out = add_operand(m, F32, {2, 1});
             std::uint32_t hits = add_operand(m, Q8, {2}, 0.5f, 0);
             add_operation(m, OperationType::HASHTABLE_LOOKUP, {0, keys, values}, {out, hits});
             set_inputs_and_outputs(m, {0}, {out, hits});
             return m;
         },
         "operation 0 (HASHTABLE_LOOKUP), output 1 (operand 4): Hits must have scale 1.0 and zeroPoint 0 [output-quantization]"},
        {"HASHTABLE_LOOKUP keys not sorted", [] {
             Model m = input_model(I32T, {2});
             std::uint32_t keys = int_constant(m, {3}, {1, 3, 2});
             std::uint32_t values = float_constant(m, {3, 1}, {1, 2, 3});
             std::uint32_t out = add_operand(m, F32, {2, 1});
             std::uint32_t hits = add_operand(m, Q8, {2}, 1.0f, 0);
             add_operation(m, OperationType::HASHTABLE_LOOKUP, {0, keys, values}, {out, hits});
             set_inputs_and_outputs(m, {0}, {out, hits});
             return m;
         },
         "operation 0 (HASHTABLE_LOOKUP), input 1 (operand 1): Keys must be sorted in ascending order [hashtable-keys]"},
        {"LSTM input gate group", [] {
             Model m = input_model(F32, {1, 2});
             std::vector<std::uint32_t> in = {0};
             for (int k = 1; k < 20; ++k) {
                 std::uint32_t o = add_operand(m, F32, {1, 2});
                 m.operands[o].lifetime = k == 5 ? OperandLifeTime::NO_VALUE : OperandLifeTime::MODEL_INPUT;
                 in.push_back(o);
             }
             in.push_back(add_int32_scalar(m, 4));
             in.push_back(add_float32_scalar(m, 0.0f));
             in.push_back(add_float32_scalar(m, 0.0f));
             std::vector<std::uint32_t> outs;
             for (int k = 0; k < 4; ++k) outs.push_back(add_operand(m, F32, {1, 2}));
             add_operation(m, OperationType::LSTM, in, outs);
             std::vector<std::uint32_t> inputs;
             for (std::uint32_t i = 0; i < m.operands.size(); ++i)
                 if (m.operands[i].lifetime == OperandLifeTime::MODEL_INPUT) inputs.push_back(i);
             set_inputs_and_outputs(m, inputs, outs);
             return m;
         },
         "operation 0 (LSTM): inputs 1, 5, 12 (the input gate weights and bias) must all have values or all have none [lstm-cifg]"},
        {"OEM_OPERATION", [] { return single(OperationType::OEM_OPERATION, input_model(F32, {1}), {0}, F32, {1}); },
         "operation 0 (OEM_OPERATION): OEM_OPERATION is vendor-specific; this implementation has no OEM operations [oem-operation]"},
    };
    for (const auto& c : cases) {
        const std::string what = c.what;
        CAPTURE(what);
        auto errors = validation_errors(c.make());
        CAPTURE(joined(errors));
        CHECK(has_message(errors, c.message));
    }
}

TEST_CASE("validator: every operation has rules") {
    // An operation with no operands at all is caught by its operand-count rule (not accepted, not
    // a crash), for each of the 29 operations.
    for (OperationType t : all_operation_types()) {
        CAPTURE(to_string(t));
        Model m = input_model(F32, {1});
        std::uint32_t out = add_operand(m, F32, {1});
        add_operation(m, t, {}, {out});
        set_inputs_and_outputs(m, {0}, {out});
        m.operands[0].numberOfConsumers = 0;
        auto errors = validation_errors(m);
        CHECK(has_message(errors, std::string("operation 0 (") + to_string(t) + ")"));
    }
    CHECK(all_operation_types().size() == 29);
}

TEST_CASE("validator: requests") {
    Model m = chain_model();
    Request r;
    r.pools.push_back(Memory{std::vector<std::uint8_t>(32)});
    r.inputs.push_back(RequestArgument{false, {0, 0, 16}, {}});
    r.outputs.push_back(RequestArgument{false, {0, 16, 16}, {}});
    nnef::Diagnostics ok;
    CHECK(validate_request(m, r, ok));
    CHECK(ok.empty());

    auto errors_of = [&m](const Request& bad) {
        nnef::Diagnostics d;
        CHECK_FALSE(validate_request(m, bad, d));
        std::vector<std::string> out;
        for (const auto& e : d) out.push_back(e.message);
        return joined(out);
    };
    Request overlap = r;
    overlap.outputs[0].location.offset = 8;
    CHECK(errors_of(overlap) == "request: output 0 (operand 4) overlaps input 0 (operand 0) [request-overlap]\n");
    Request outside = r;
    outside.outputs[0].location.offset = 24;
    CHECK(errors_of(outside) == "request: output 0 (operand 4) ends at byte 40, past the 32 bytes of pool 0 [request-location]\n");
    Request count = r;
    count.inputs.clear();
    CHECK(errors_of(count) == "request: has 0 inputs; the model has 1 [request-count]\n");
    Request dims = r;
    dims.inputs[0].dimensions = {1, 2, 2, 2};
    CHECK(errors_of(dims) == "request: input 0 (operand 0) dimension 3 is 2; the model's is 1 (0: unspecified) [request-dimensions]\n");
    Model open_output = chain_model();
    open_output.operands[4].dimensions = {1, 0, 2, 1};
    nnef::Diagnostics d_open;
    CHECK_FALSE(validate_request(open_output, r, d_open));
    REQUIRE(d_open.size() == 1);
    CHECK((*d_open.begin()).message ==
          "request: output 0 (operand 4) has unspecified dimensions; the request must give them [request-dimensions]");
    Request given = r;
    given.outputs[0].dimensions = {1, 2, 2, 1};
    nnef::Diagnostics d_given;
    CHECK(validate_request(open_output, given, d_given));
    Request length = r;
    length.inputs[0].location.length = 12;
    CHECK(errors_of(length) == "request: input 0 (operand 0) has length 12; its value has 16 bytes [request-length]\n");
}
}

}  // namespace validator_test
