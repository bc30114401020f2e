// End-to-end tests of the VPU schedule's quality (docs/schedule.md): nnef-to-vpu --simulate on
// corpus models, the makespan against the lower bound's engine and DDR terms, which bound every
// schedule of the same tasks (the chain term follows the schedule's own orderings). The
// simulator's cycle counts are deterministic: these are not timing assertions.
#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <string>

#include "tool_runner.hpp"
#include <nlohmann/json.hpp>

namespace to_vpu_schedule_test {

namespace fs = std::filesystem;

// nnef-to-vpu MODEL ARGS --simulate --format json: the simulation member, and its makespan over
// max(busiest engine, DDR) (a NaN when a term is missing fails every comparison of the callers).
struct Schedule {
    nlohmann::json sim;
    double makespan = 0, engine = 0, ddr = 0, ratio = 0;
};

Schedule simulate(const fs::path& m, const std::string& args) {
    const auto r = nnef_test::run_tool("nnef-to-vpu", nnef_test::shell_quote(m.string()) + args + " --simulate --format json");
    CAPTURE(r.err);
    REQUIRE(r.code == 0);
    Schedule s;
    s.sim = nlohmann::json::parse(r.out).at("simulation");
    const nlohmann::json& lb = s.sim.at("lower_bound");
    s.makespan = s.sim.at("makespan_cycles");
    s.engine = lb.at("engine_cycles");
    s.ddr = lb.at("ddr_cycles");
    s.ratio = s.makespan / std::max(s.engine, s.ddr);
    return s;
}

TEST_CASE("nnef-to-vpu schedule: within 1.20x of max(busiest engine, DDR) on the corpus models that reach it") {
    NNEF_REQUIRE_CORPUS();
    // the models at or under 1.20x (docs/schedule.md has every model, with the reason where not)
    for (const char* name : {"googlenet", "resnet18", "resnet18_bn", "resnet50", "squeezenet1_0"}) {
        CAPTURE(name);
        const fs::path m = nnef_test::corpus_dir() / "real" / name;
        const Schedule s = simulate(m, nnef_test::stores_weights(m) ? "" : " --random-weights 1");
        const nlohmann::json& lb = s.sim.at("lower_bound");
        const double makespan = s.makespan, engine = s.engine, ddr = s.ddr, ratio = s.ratio;
        MESSAGE(std::string(name) << ": makespan " << makespan << ", engine " << engine << " (" << lb.at("engine_queue").get<std::string>() << "), DDR "
                     << ddr << ": " << ratio << "x");
        CHECK(engine > 0);
        CHECK(ratio >= 1.0);  // a lower bound (a NaN fails both)
        CHECK(ratio <= 1.20);
    }
}

TEST_CASE("nnef-to-vpu schedule: ShuffleNet v2's channel split and shuffle stay in CMX (no spills), fp16 and int8") {
    NNEF_REQUIRE_CORPUS();
    // The shuffle's copies go CMX to CMX (docs/schedule.md): no byte is stored to DDR but the
    // output. 1.20x of max(engine, DDR) is not reached (the chain of short layers, each waiting
    // for its inputs' CMX-to-CMX copies and for weights the queues load behind them:
    // docs/schedule.md). The limits are today's makespans (347519 and 271524 cycles, the
    // constants of consecutive layers loaded together: docs/vpu-compiler.md) with a margin of 1%,
    // so that a schedule that loses them fails here; not the ratio, whose engine term falls with
    // every transfer saved. The int8 model has one convolution whose float bias lies between its
    // accumulator's steps: that bias is added at a finer grid by SHAVE kernels in int32
    // (docs/tosa-lowering.md), whose int32 accumulator (24000 bytes) is spilled; the shuffle's
    // copies store nothing.
    struct Case {
        const char* dir;
        const char* args;
        double limit;  // makespan, cycles
        double spills;
    };
    for (const Case& c : {Case{"real/shufflenet_v2_x1_0", "", 351000, 0}, Case{"quantized/shufflenet_v2_x1_0_int8", " --profile pro-int", 274300, 24000}}) {
        CAPTURE(c.dir);
        const fs::path m = nnef_test::corpus_dir() / c.dir;
        const Schedule s = simulate(m, c.args);
        const nlohmann::json& sim = s.sim;
        const double makespan = s.makespan, engine = s.engine, ddr = s.ddr, ratio = s.ratio;
        MESSAGE(c.dir << ": makespan " << makespan << ", engine " << engine << ", DDR " << ddr << ": " << ratio << "x, spills "
                      << sim.at("ddr_bytes").at("spills").get<double>() << " bytes");
        CHECK(sim.at("ddr_bytes").at("spills").get<double>() <= c.spills);
        CHECK(engine > 0);
        CHECK(ratio >= 1.0);  // a NaN fails both
        CHECK(makespan <= c.limit);
    }
}

TEST_CASE("nnef-to-vpu schedule: DenseNet-121's batch norms and ReLUs after its concats run on the NCE, not SHAVE") {
    NNEF_REQUIRE_CORPUS();
    // Each dense layer's pre-activation batch norm (mul, add) and ReLU read a concat's copies, so
    // no NCE layer produced their operand: they were three SHAVE kernels per layer (16.7 M SHAVE
    // cycles, makespan 9.87 M, 2.19x max(engine, DDR)). fuse-post-ops makes each chain one NCE 1x1
    // maxpool with the scale and bias in its table and the ReLU as post-op
    // (lowering/vpu/passes/scale_shift_nce.cpp); what stays on SHAVE is the classifier's global
    // pool (reduce_sum twice). The limits: today's figures (3425895 cycles, 1.601x) with a margin of 1%.
    const fs::path m = nnef_test::corpus_dir() / "real" / "densenet121";
    const Schedule s = simulate(m, " --random-weights 1");
    double shave_tasks = 0;
    for (const nlohmann::json& q : s.sim.at("queues"))
        if (q.at("name").get<std::string>().rfind("SHAVE", 0) == 0) shave_tasks += q.at("tasks").get<double>();
    MESSAGE("densenet121: makespan " << s.makespan << ", engine " << s.engine << " (" << s.sim.at("lower_bound").at("engine_queue").get<std::string>()
                                     << "), DDR " << s.ddr << ": " << s.ratio << "x, SHAVE tasks " << shave_tasks);
    CHECK(shave_tasks <= 2);
    CHECK(s.sim.at("lower_bound").at("engine_queue").get<std::string>().rfind("NCE", 0) == 0);
    CHECK(s.makespan <= 3425895 * 1.01);
    CHECK(s.ratio >= 1.0);  // a NaN fails both
    CHECK(s.ratio <= 1.62);
}

}  // namespace to_vpu_schedule_test
