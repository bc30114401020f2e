// The JSON form of NNAPI models (docs/nnapi.md): the HAL's field and enum names, a round trip
// through MODEL.json + MODEL.bin that gives the same model, and a clear error for each kind of bad
// input (malformed JSON, wrong types, unknown enums, short or missing pool files).
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>

#include <unistd.h>

#include <nlohmann/json.hpp>

#include "common/scratch.hpp"
#include "unit/nnapi/nnapi_fixtures.hpp"

using namespace nnapi_test;
using nlohmann::json;

namespace json_test {

bool same(const Model& a, const Model& b) {
    if (a.operands.size() != b.operands.size() || a.operations.size() != b.operations.size()) return false;
    for (std::size_t i = 0; i < a.operands.size(); ++i) {
        const Operand &x = a.operands[i], &y = b.operands[i];
        if (x.type != y.type || x.dimensions != y.dimensions || x.numberOfConsumers != y.numberOfConsumers ||
            x.scale != y.scale || x.zeroPoint != y.zeroPoint || x.lifetime != y.lifetime ||
            x.location.poolIndex != y.location.poolIndex || x.location.offset != y.location.offset ||
            x.location.length != y.location.length)
            return false;
    }
    for (std::size_t i = 0; i < a.operations.size(); ++i)
        if (a.operations[i].type != b.operations[i].type || a.operations[i].inputs != b.operations[i].inputs ||
            a.operations[i].outputs != b.operations[i].outputs)
            return false;
    if (a.pools.size() != b.pools.size()) return false;
    for (std::size_t i = 0; i < a.pools.size(); ++i)
        if (a.pools[i].data != b.pools[i].data) return false;
    return a.inputIndexes == b.inputIndexes && a.outputIndexes == b.outputIndexes && a.operandValues == b.operandValues;
}

// A conv model with a 512-byte filter in pool 0 (CONSTANT_REFERENCE) and the rest inline.
Model pooled_model() {
    Model m;
    std::uint32_t in = add_operand(m, F32, {1, 4, 4, 8});
    std::vector<float> w(4 * 2 * 2 * 8);
    for (std::size_t i = 0; i < w.size(); ++i) w[i] = float(i % 7) - 3.0f;
    std::uint32_t filter = float_constant(m, {4, 2, 2, 8}, w);
    std::uint32_t bias = float_constant(m, {4}, {1, 2, 3, 4});
    std::vector<std::uint32_t> inputs = {in, filter, bias};
    for (std::int32_t v : {1, 1, 1, 1}) inputs.push_back(add_int32_scalar(m, v));
    std::uint32_t out = add_operand(m, F32, {1, 4, 4, 4});
    add_operation(m, OperationType::CONV_2D, inputs, {out});
    set_inputs_and_outputs(m, {in}, {out});
    return m;
}

std::string error_of(const std::string& text, const PoolFileReader& reader = {}) {
    nnef::Diagnostics d;
    auto m = model_from_json_text(text, reader, d, "m.json");
    CHECK_FALSE(m.has_value());
    REQUIRE(d.size() == 1);
    CHECK((*d.begin()).stage == nnef::Stage::nnapi);
    return (*d.begin()).message;
}


TEST_SUITE("nnapi") {
TEST_CASE("json: HAL field and enum names") {
    Model m = conv_model(true);
    json j = to_json(m, "m.bin");
    CHECK(j["operands"][0] == json::parse(R"({"type": "TENSOR_QUANT8_ASYMM", "dimensions": [1, 3, 3, 2],
        "numberOfConsumers": 1, "scale": 0.5, "zeroPoint": 128, "lifetime": "MODEL_INPUT",
        "location": {"poolIndex": 0, "offset": 0, "length": 0}})"));
    CHECK(j["operands"][3]["lifetime"] == "CONSTANT_COPY");
    CHECK(j["operands"][3]["location"] == json::parse(R"({"poolIndex": 0, "offset": 24, "length": 4})"));
    CHECK(j["operations"][0] == json::parse(R"({"type": "CONV_2D", "inputs": [0, 1, 2, 3, 4, 5, 6], "outputs": [7]})"));
    CHECK(j["inputIndexes"] == json::array({0}));
    CHECK(j["outputIndexes"] == json::array({7}));
    CHECK(j["pools"] == json::array());
    // 16 filter codes 130 (0x82), then the bias 4 and -4, then four INT32 scalars: base64.
    CHECK(j["operandValues"].get<std::string>().substr(0, 24) == "goKCgoKCgoKCgoKCgoKCggQA");
}

TEST_CASE("json: round trip through MODEL.json and MODEL.bin") {
    namespace fs = std::filesystem;
    fs::path dir = nnef_test::process_scratch("nnapi-json-test");
    fs::create_directories(dir);
    for (const Model& m : {pooled_model(), conv_model(true), chain_model()}) {
        nnef::Diagnostics d;
        std::string path = (dir / "model.json").string();
        REQUIRE(write_model(m, path, d));
        CHECK(fs::exists(dir / "model.bin") == !m.pools.empty());
        auto back = read_model(path, d);
        CAPTURE(d.size());
        REQUIRE(back.has_value());
        CHECK(same(m, *back));
        CHECK(validate(*back, d));
        fs::remove(dir / "model.bin");
    }
    Model p = pooled_model();
    CHECK(p.operands[1].lifetime == OperandLifeTime::CONSTANT_REFERENCE);
    CHECK(p.pools.at(0).data.size() == 512);
    fs::remove_all(dir);
}

TEST_CASE("json: bad input is a clear error") {
    const std::string good = to_json(conv_model(true), "m.bin").dump();
    auto with = [&good](const std::string& pointer, const json& value) {
        json j = json::parse(good);
        j[json::json_pointer(pointer)] = value;
        return j.dump();
    };
    CHECK(error_of("{\n  \"operands\": [,]\n}") ==
          "m.json:2:16: malformed JSON: syntax error while parsing value - unexpected ','; expected '[', '{', or a literal");
    // a number that overflows a double: nlohmann throws out_of_range (406), not parse_error (fuzzing found it)
    CHECK(error_of("{\n  \"operands\": [41e3867295]\n}") == "m.json:2:16: malformed JSON: number overflow parsing '41e3867295'");
    CHECK(error_of("[]") == "m.json: at /: expected an object, found array");
    CHECK(error_of(with("/operands/2/type", "TENSOR_FLOAT16")) == "m.json: at /operands/2/type: unknown OperandType \"TENSOR_FLOAT16\"");
    CHECK(error_of(with("/operations/0/type", "CONV_3D")) == "m.json: at /operations/0/type: unknown OperationType \"CONV_3D\"");
    CHECK(error_of(with("/operands/0/lifetime", "FOREVER")) == "m.json: at /operands/0/lifetime: unknown OperandLifeTime \"FOREVER\"");
    CHECK(error_of(with("/operations/0/inputs/1", -1)) ==
          "m.json: at /operations/0/inputs/1: expected an unsigned 32-bit integer, found -1");
    CHECK(error_of(with("/inputIndexes/0", 4294967296.0)) ==
          "m.json: at /inputIndexes/0: expected an unsigned 32-bit integer, found 4294967296.0");
    CHECK(error_of(with("/operands/0/zeroPoint", "128")) ==
          "m.json: at /operands/0/zeroPoint: expected a signed 32-bit integer, found \"128\"");
    CHECK(error_of(with("/operands/0/scale", 1e300)) == "m.json: at /operands/0/scale: number 1e+300 is not a finite 32-bit float");
    CHECK(error_of(with("/operands/0/zeropoint", 1)) == "m.json: at /operands/0/zeropoint: unknown field \"zeropoint\"");
    CHECK(error_of(with("/operandValues", "abc")) ==
          "m.json: at /operandValues: base64 text has 3 characters, not a multiple of 4");
    CHECK(error_of(with("/operandValues", "ab!d")) == "m.json: at /operandValues: invalid base64 character at character 2");
    json missing = json::parse(good);
    missing["operands"][1].erase("location");
    CHECK(error_of(missing.dump()) == "m.json: at /operands/1: missing field \"location\"");

    // Pool files: missing, and shorter than the pool.
    json pooled = to_json(pooled_model(), "p.bin");
    CHECK(error_of(pooled.dump()) == "m.json: at /pools/0/file: cannot read pool file \"p.bin\"");
    PoolFileReader short_file = [](const std::string&) { return std::vector<std::uint8_t>(100); };
    nnef::Diagnostics d;
    CHECK_FALSE(model_from_json_text(pooled.dump(), short_file, d, "m.json").has_value());
    REQUIRE(d.size() == 1);
    const auto& e = *d.begin();
    CHECK(e.message == "pool 0 (offset 0, length 512) ends at byte 512, past the end of the 100-byte file (named in m.json)");
    nnef::SourceManager sm;
    CHECK(nnef::render(e, sm) == "p.bin:byte 100: error[nnapi]: pool 0 (offset 0, length 512) ends at byte 512, past the end "
                                 "of the 100-byte file (named in m.json)\n");
    CHECK(e.path == "p.bin");
    CHECK(e.byte_offset == 100u);
}

TEST_CASE("json: a model whose locations lie outside its pools reads, and the validator names them") {
    json j = to_json(pooled_model(), "p.bin");
    j["operands"][1]["location"]["offset"] = 400;
    PoolFileReader reader = [](const std::string&) { return std::vector<std::uint8_t>(512); };
    nnef::Diagnostics d;
    auto m = model_from_json(j, reader, d, "m.json");
    REQUIRE(m.has_value());
    nnef::Diagnostics v;
    CHECK_FALSE(validate(*m, v, "m.json"));
    REQUIRE(v.size() == 1);
    CHECK((*v.begin()).path == "m.json");
    auto errors = validation_errors(*m);
    CHECK(has_message(errors, "operand 1 (TENSOR_FLOAT32[4,2,2,8]): location {poolIndex 0, offset 400, length 512} ends at "
                              "byte 912, past the 512 bytes of pool 0 [location]"));
}
}

}  // namespace json_test
