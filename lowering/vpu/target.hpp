// The VPU target: the machine of specs/vpu-target.md section 1 as a struct, read from a target
// file (JSON) strictly: an unknown field, a wrong type or a value out of range is an error naming
// the file, the field and what was expected; missing fields keep the default. The defaults are
// the spec's (npu-2c); the same values ship as lowering/vpu/targets/npu-2c.json.
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include <nnef/diagnostics.hpp>

namespace nnef::vpu {

// A rate per NCE data type.
struct RatePerType {
    double fp16 = 0.0;
    double int8 = 0.0;  // also uint8
};

struct Target {
    std::string name = "npu-2c";
    double clock_mhz = 1300;
    std::int64_t clusters = 2;
    std::int64_t cmx_bytes = 1982464;
    std::int64_t cmx_alignment = 64;
    std::int64_t ddr_bytes = 1073741824;
    std::int64_t dma_engines = 2;
    double dma_bytes_per_cycle = 32;
    std::int64_t dma_latency_cycles = 600;
    double ddr_bytes_per_cycle = 48;
    std::int64_t shave_per_cluster = 2;
    std::int64_t nce_channel_alignment = 16;
    RatePerType nce_macs_per_cycle{1024, 2048};
    RatePerType nce_dw_macs_per_cycle{64, 128};
    RatePerType nce_eltwise_per_cycle{64, 128};
    std::int64_t nce_overhead_cycles = 300;
    std::int64_t nce_max_kernel = 11;
    std::int64_t nce_max_stride = 8;
    std::int64_t shave_overhead_cycles = 1200;
    // Cycles per output element by SHAVE kernel name; "default" for the others. A target file's
    // entries replace or add to these (the ones it does not name keep their default).
    std::map<std::string, double> shave_cycles_per_element{{"default", 0.5}, {"exp", 2},      {"sigmoid", 2},
                                                           {"tanh", 2},      {"erf", 3},      {"softmax", 4},
                                                           {"gelu", 4}};
    std::int64_t barriers = 64;
    std::int64_t barrier_max_producers = 256;
    std::int64_t barrier_max_consumers = 256;

    // Cycles per output element of SHAVE kernel `kernel` (its entry, else "default").
    double shave_rate(const std::string& kernel) const;
    // Microseconds of `cycles` at clock_mhz.
    double microseconds(double cycles) const { return cycles / clock_mhz; }
    // The queue names: "DMA0".., "NCE0".., "SHAVE0.0".. in that order.
    std::vector<std::string> queue_names() const;

    friend bool operator==(const Target& a, const Target& b);
    friend bool operator!=(const Target& a, const Target& b) { return !(a == b); }
};

// Reads a target file. Errors (stage vpu, code "bad-target", path = the file): unreadable file,
// malformed JSON (with line and column), unknown field, wrong type or out-of-range value (the
// message names the field as a JSON pointer, e.g. "/nce_macs_per_cycle/fp16", and what was
// expected).
Result<Target> read_target_file(const std::string& path);
// The same from text; `name` stands for the file in diagnostics.
Result<Target> parse_target(const std::string& text, const std::string& name);
// From a JSON value (as embedded in a task list); errors name `name` and the pointer under
// `pointer_prefix`.
Result<Target> target_from_json(const nlohmann::json& j, const std::string& name, const std::string& pointer_prefix = "");
// Every field, resolved (the task list's "target" object).
nlohmann::ordered_json to_json(const Target& t);

}  // namespace nnef::vpu
