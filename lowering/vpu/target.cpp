#include "lowering/vpu/target.hpp"

#include <cmath>
#include <fstream>
#include <sstream>

#include "lowering/vpu/json_reader.hpp"

namespace nnef::vpu {

namespace target_cpp {

using json_read::JsonReadError;
using json_read::Node;

RatePerType read_rates(const Node& n, RatePerType r) {
    n.expect_object({"fp16", "int8"});
    if (n.has("fp16")) r.fp16 = n.field("fp16").number(0.0, true);
    if (n.has("int8")) r.int8 = n.field("int8").number(0.0, true);
    return r;
}

// Integral numbers print as integers (1300, not 1300.0).
nlohmann::ordered_json num(double v) {
    if (std::floor(v) == v && std::fabs(v) < 9.0e15) return static_cast<std::int64_t>(v);
    return v;
}

nlohmann::ordered_json rates_json(const RatePerType& r) {
    nlohmann::ordered_json j = nlohmann::ordered_json::object();
    j["fp16"] = num(r.fp16);
    j["int8"] = num(r.int8);
    return j;
}

Target read(const Node& n) {
    n.expect_object({"name", "clock_mhz", "clusters", "cmx_bytes", "cmx_alignment", "ddr_bytes", "dma_engines",
                     "dma_bytes_per_cycle", "dma_latency_cycles", "ddr_bytes_per_cycle", "shave_per_cluster",
                     "nce_channel_alignment", "nce_macs_per_cycle", "nce_dw_macs_per_cycle", "nce_eltwise_per_cycle",
                     "nce_overhead_cycles", "nce_max_kernel", "nce_max_stride", "shave_overhead_cycles",
                     "shave_cycles_per_element", "barriers", "barrier_max_producers", "barrier_max_consumers"});
    Target t;
    auto int_field = [&](const char* key, std::int64_t& out, std::int64_t lo, std::int64_t hi) {
        if (n.has(key)) out = n.field(key).integer(lo, hi);
    };
    const std::int64_t big = std::int64_t(1) << 50;
    if (n.has("name")) t.name = n.field("name").string();
    if (n.has("clock_mhz")) t.clock_mhz = n.field("clock_mhz").number(0.0, true);
    int_field("clusters", t.clusters, 1, 64);
    int_field("cmx_bytes", t.cmx_bytes, 1, big);
    int_field("cmx_alignment", t.cmx_alignment, 1, 1 << 20);
    int_field("ddr_bytes", t.ddr_bytes, 1, big);
    int_field("dma_engines", t.dma_engines, 1, 64);
    if (n.has("dma_bytes_per_cycle")) t.dma_bytes_per_cycle = n.field("dma_bytes_per_cycle").number(0.0, true);
    int_field("dma_latency_cycles", t.dma_latency_cycles, 0, big);
    if (n.has("ddr_bytes_per_cycle")) t.ddr_bytes_per_cycle = n.field("ddr_bytes_per_cycle").number(0.0, true);
    int_field("shave_per_cluster", t.shave_per_cluster, 0, 64);
    int_field("nce_channel_alignment", t.nce_channel_alignment, 1, 1 << 16);
    if (n.has("nce_macs_per_cycle")) t.nce_macs_per_cycle = read_rates(n.field("nce_macs_per_cycle"), t.nce_macs_per_cycle);
    if (n.has("nce_dw_macs_per_cycle"))
        t.nce_dw_macs_per_cycle = read_rates(n.field("nce_dw_macs_per_cycle"), t.nce_dw_macs_per_cycle);
    if (n.has("nce_eltwise_per_cycle"))
        t.nce_eltwise_per_cycle = read_rates(n.field("nce_eltwise_per_cycle"), t.nce_eltwise_per_cycle);
    int_field("nce_overhead_cycles", t.nce_overhead_cycles, 0, big);
    int_field("nce_max_kernel", t.nce_max_kernel, 1, 1 << 16);
    int_field("nce_max_stride", t.nce_max_stride, 1, 1 << 16);
    int_field("shave_overhead_cycles", t.shave_overhead_cycles, 0, big);
    if (n.has("shave_cycles_per_element")) {
        Node s = n.field("shave_cycles_per_element");
        if (!s.json().is_object()) s.fail("an object mapping kernel names to cycles per element");
        for (auto it = s.json().begin(); it != s.json().end(); ++it)
            t.shave_cycles_per_element[it.key()] = Node(it.value(), s.pointer() + "/" + it.key()).number(0.0);
    }
    int_field("barriers", t.barriers, 1, 1 << 20);
    int_field("barrier_max_producers", t.barrier_max_producers, 1, big);
    int_field("barrier_max_consumers", t.barrier_max_consumers, 1, big);
    if ((t.cmx_alignment & (t.cmx_alignment - 1)) != 0)
        n.field("cmx_alignment").fail_message("expected a power of two, got " + std::to_string(t.cmx_alignment));
    return t;
}

Result<Target> failure(const std::string& name, const std::string& message) {
    Result<Target> r;
    Diagnostic& d = r.diagnostics.error(Stage::vpu, "bad-target", message);
    d.path = name;
    return r;
}

std::string located(const JsonReadError& e) {
    return e.pointer.empty() ? e.what() : std::string("field ") + e.pointer + ": " + e.what();
}

}  // namespace target_cpp

double Target::shave_rate(const std::string& kernel) const {
    auto it = shave_cycles_per_element.find(kernel);
    if (it != shave_cycles_per_element.end()) return it->second;
    it = shave_cycles_per_element.find("default");
    return it != shave_cycles_per_element.end() ? it->second : 0.5;
}

std::vector<std::string> Target::queue_names() const {
    std::vector<std::string> out;
    for (std::int64_t i = 0; i < dma_engines; ++i) out.push_back("DMA" + std::to_string(i));
    for (std::int64_t k = 0; k < clusters; ++k) out.push_back("NCE" + std::to_string(k));
    for (std::int64_t k = 0; k < clusters; ++k)
        for (std::int64_t i = 0; i < shave_per_cluster; ++i)
            out.push_back("SHAVE" + std::to_string(k) + "." + std::to_string(i));
    return out;
}

bool operator==(const Target& a, const Target& b) { return to_json(a) == to_json(b); }

Result<Target> target_from_json(const nlohmann::json& j, const std::string& name, const std::string& pointer_prefix) {
    try {
        Result<Target> r;
        r.value = target_cpp::read(json_read::Node(j, pointer_prefix));
        return r;
    } catch (const json_read::JsonReadError& e) {
        return target_cpp::failure(name, target_cpp::located(e));
    }
}

Result<Target> parse_target(const std::string& text, const std::string& name) {
    nlohmann::json j;
    try {
        j = json_read::parse_text(text);
    } catch (const json_read::JsonReadError& e) {
        return target_cpp::failure(name, e.what());
    }
    return target_from_json(j, name);
}

Result<Target> read_target_file(const std::string& path) {
    std::ifstream f(path, std::ios::binary);
    if (!f) {
        Result<Target> r;
        Diagnostic& d = r.diagnostics.error(Stage::io, "cannot-read", "cannot open the target file");
        d.path = path;
        return r;
    }
    std::ostringstream ss;
    ss << f.rdbuf();
    return parse_target(ss.str(), path);
}

nlohmann::ordered_json to_json(const Target& t) {
    using target_cpp::num;
    nlohmann::ordered_json j = nlohmann::ordered_json::object();
    j["name"] = t.name;
    j["clock_mhz"] = num(t.clock_mhz);
    j["clusters"] = t.clusters;
    j["cmx_bytes"] = t.cmx_bytes;
    j["cmx_alignment"] = t.cmx_alignment;
    j["ddr_bytes"] = t.ddr_bytes;
    j["dma_engines"] = t.dma_engines;
    j["dma_bytes_per_cycle"] = num(t.dma_bytes_per_cycle);
    j["dma_latency_cycles"] = t.dma_latency_cycles;
    j["ddr_bytes_per_cycle"] = num(t.ddr_bytes_per_cycle);
    j["shave_per_cluster"] = t.shave_per_cluster;
    j["nce_channel_alignment"] = t.nce_channel_alignment;
    j["nce_macs_per_cycle"] = target_cpp::rates_json(t.nce_macs_per_cycle);
    j["nce_dw_macs_per_cycle"] = target_cpp::rates_json(t.nce_dw_macs_per_cycle);
    j["nce_eltwise_per_cycle"] = target_cpp::rates_json(t.nce_eltwise_per_cycle);
    j["nce_overhead_cycles"] = t.nce_overhead_cycles;
    j["nce_max_kernel"] = t.nce_max_kernel;
    j["nce_max_stride"] = t.nce_max_stride;
    j["shave_overhead_cycles"] = t.shave_overhead_cycles;
    nlohmann::ordered_json s = nlohmann::ordered_json::object();
    for (const auto& [k, v] : t.shave_cycles_per_element) s[k] = num(v);
    j["shave_cycles_per_element"] = s;
    j["barriers"] = t.barriers;
    j["barrier_max_producers"] = t.barrier_max_producers;
    j["barrier_max_consumers"] = t.barrier_max_consumers;
    return j;
}

}  // namespace nnef::vpu
