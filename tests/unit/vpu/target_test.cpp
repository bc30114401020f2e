// The target file: the shipped default, strict reading and its error messages.
#include <doctest/doctest.h>

#include <fstream>
#include <string>

#include "common/build_paths.hpp"
#include "lowering/vpu/target.hpp"

using namespace nnef::vpu;

namespace target_test {
std::string first_message(const nnef::Result<Target>& r) {
    return r.diagnostics.empty() ? std::string() : r.diagnostics.list().front().message;
}

TEST_SUITE("vpu") {
    TEST_CASE("target: the shipped default file is the spec's table") {
        auto r = read_target_file(std::string(NNEF_SOURCE_DIR) + "/lowering/vpu/targets/npu-2c.json");
        REQUIRE(r);
        const Target& t = *r;
        CHECK(*r == Target{});
        // The spec's section 1 values, spot-checked against the file.
        CHECK(t.name == "npu-2c");
        CHECK(t.clock_mhz == 1300);
        CHECK(t.clusters == 2);
        CHECK(t.cmx_bytes == 1982464);
        CHECK(t.cmx_alignment == 64);
        CHECK(t.ddr_bytes == 1073741824);
        CHECK(t.dma_engines == 2);
        CHECK(t.dma_bytes_per_cycle == 32);
        CHECK(t.dma_latency_cycles == 600);
        CHECK(t.ddr_bytes_per_cycle == 48);
        CHECK(t.shave_per_cluster == 2);
        CHECK(t.nce_channel_alignment == 16);
        CHECK(t.nce_macs_per_cycle.fp16 == 1024);
        CHECK(t.nce_macs_per_cycle.int8 == 2048);
        CHECK(t.nce_dw_macs_per_cycle.fp16 == 64);
        CHECK(t.nce_eltwise_per_cycle.int8 == 128);
        CHECK(t.nce_overhead_cycles == 300);
        CHECK(t.nce_max_kernel == 11);
        CHECK(t.nce_max_stride == 8);
        CHECK(t.shave_overhead_cycles == 1200);
        CHECK(t.shave_rate("softmax") == 4);
        CHECK(t.shave_rate("erf") == 3);
        CHECK(t.shave_rate("reduce_sum") == 0.5);
        CHECK(t.barriers == 64);
        CHECK(t.barrier_max_producers == 256);
        CHECK(t.barrier_max_consumers == 256);
        CHECK(t.queue_names() == std::vector<std::string>{"DMA0", "DMA1", "NCE0", "NCE1", "SHAVE0.0", "SHAVE0.1", "SHAVE1.0", "SHAVE1.1"});
    }

    TEST_CASE("target: missing fields keep the default, given ones replace it") {
        auto r = parse_target(R"({"name": "tiny", "cmx_bytes": 65536, "barriers": 4,
                                  "nce_macs_per_cycle": {"int8": 4096}, "shave_cycles_per_element": {"exp": 8}})",
                              "tiny.json");
        REQUIRE(r);
        CHECK(r->name == "tiny");
        CHECK(r->cmx_bytes == 65536);
        CHECK(r->barriers == 4);
        CHECK(r->nce_macs_per_cycle.int8 == 4096);
        CHECK(r->nce_macs_per_cycle.fp16 == 1024);
        CHECK(r->shave_rate("exp") == 8);
        CHECK(r->shave_rate("sigmoid") == 2);
        CHECK(r->clusters == 2);
        // Round trip through the resolved JSON.
        auto back = target_from_json(nlohmann::json::parse(to_json(*r).dump()), "x");
        REQUIRE(back);
        CHECK(*back == *r);
    }

    TEST_CASE("target: errors name the file, the field and what was expected") {
        struct Case {
            const char* text;
            const char* message;
        };
        const Case cases[] = {
            {R"({"clusters": 2, "cmx_size": 100})", "field /cmx_size: unknown field 'cmx_size' (expected one of: name, clock_mhz,"},
            {R"({"clusters": "two"})", "field /clusters: expected an integer in [1, 64], got the string \"two\""},
            {R"({"clusters": 2.5})", "field /clusters: expected an integer in [1, 64], got the number 2.5"},
            {R"({"clusters": 0})", "field /clusters: expected an integer in [1, 64], got the number 0"},
            {R"({"clock_mhz": -5})", "field /clock_mhz: expected a number > 0, got the number -5"},
            {R"({"cmx_alignment": 48})", "field /cmx_alignment: expected a power of two, got 48"},
            {R"({"nce_macs_per_cycle": {"fp16": 1024, "fp32": 512}})", "field /nce_macs_per_cycle/fp32: unknown field 'fp32'"},
            {R"({"nce_macs_per_cycle": 1024})", "field /nce_macs_per_cycle: expected an object, got the number 1024"},
            {R"({"shave_cycles_per_element": {"exp": "fast"}})", "field /shave_cycles_per_element/exp: expected a number >= 0, got the string \"fast\""},
            {R"({"name": 7})", "field /name: expected a string, got the number 7"},
            {R"([1, 2])", "expected an object, got an array"},
            {"{\"clusters\": 2,\n \"barriers\": }", "malformed JSON at line 2, column 14:"},
            // a number that overflows a double: nlohmann throws out_of_range (406), not parse_error (fuzzing found it)
            {"{\"clusters\": 2,\n \"barriers\": 41e3867295}", "malformed JSON at line 2, column 14: number overflow parsing '41e3867295'"},
        };
        for (const Case& c : cases) {
            CAPTURE(c.text);
            auto r = parse_target(c.text, "my-target.json");
            CHECK_FALSE(r);
            REQUIRE(r.diagnostics.size() == 1);
            const nnef::Diagnostic& d = r.diagnostics.list().front();
            CHECK(d.stage == nnef::Stage::vpu);
            CHECK(d.path == "my-target.json");
            CAPTURE(d.message);
            CHECK(d.message.find(c.message) == 0);
        }
        auto missing = read_target_file("/nonexistent/target.json");
        CHECK_FALSE(missing);
        CHECK(missing.diagnostics.list().front().stage == nnef::Stage::io);
        CHECK(first_message(missing) == "cannot open the target file");
    }
}

}  // namespace target_test
