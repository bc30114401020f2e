// End-to-end tests of the VPU schedule's quality (docs/schedule.md): nnef-to-vpu --simulate on
// corpus models, the makespan against the lower bound the tool prints (docs/vpu.md, Lower bound:
// engine, DDR, dataflow and cut, each a bound of every schedule of the same tasks), recomputed
// here from its terms. The simulator's cycle counts are deterministic: these are not timing
// assertions.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>

#include "tool_runner.hpp"
#include <nlohmann/json.hpp>

namespace to_vpu_schedule_test {

namespace fs = std::filesystem;

// nnef-to-vpu MODEL ARGS --simulate --format json: the simulation member, its engine and DDR
// terms, and its makespan over the bound, the largest of the four terms (a NaN when a term is
// missing fails every comparison of the callers).
struct Schedule {
    nlohmann::json sim;
    double makespan = 0, engine = 0, ddr = 0, bound = 0, ratio = 0;
    std::string binding;
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
    s.bound = std::max(std::max(s.engine, s.ddr), std::max(lb.at("dataflow_cycles").get<double>(), lb.at("cut_cycles").get<double>()));
    CHECK(lb.at("cycles").get<double>() == std::ceil(s.bound));  // the printed bound is that largest term
    s.ratio = s.makespan / s.bound;
    s.binding = lb.at("binding");
    MESSAGE(m.filename().string() << args << ": makespan " << s.makespan << ", bound " << s.bound << " (" << s.binding << "): " << s.ratio
                                  << "x");
    return s;
}

std::string args_for(const fs::path& m, const std::string& profile) {
    return (nnef_test::stores_weights(m) ? "" : " --random-weights 1") + (profile.empty() ? "" : " --profile " + profile);
}

TEST_CASE("nnef-to-vpu schedule: within 1.20x of the lower bound on the corpus models that reach it") {
    NNEF_REQUIRE_CORPUS();
    NNEF_RELEASE_PASS_ONLY("the schedule is the same in both builds; nnef-to-vpu on every real model compiles and simulates these models under the sanitizers (the five largest in the Release pass only)");
    // docs/schedule.md has every model (ConvNeXt-tiny, the last to come within, in the next test case)
    struct Model {
        const char* dir;
        const char* profile;
    };
    // DenseNet-121 since its concats are written in place, VGG-11 since a cluster's chunks read one
    // load of their input, MobileNet-v2 since its classifier's weights load during the last stages,
    // ShuffleNet v2 since its last conv's first chunks load early too and the allocator's ring
    // avoids the bytes freed last, the int8 ShuffleNet v2 at PRO-INT since its last conv's input
    // is gathered on both clusters before the next layer's prefetch and its last transfers spread
    // over both DMA queues (docs/schedule.md steps 11, 12, 14, 18, 19 and 22)
    for (const Model& c : {Model{"real/alexnet", ""}, Model{"real/densenet121", ""}, Model{"real/googlenet", ""}, Model{"real/lstm_small", ""},
                           Model{"real/mobilenet_v2", ""}, Model{"real/resnet18", ""},
                           Model{"real/resnet18_bn", ""}, Model{"real/resnet50", ""}, Model{"real/shufflenet_v2_x1_0", ""},
                           Model{"real/squeezenet1_0", ""}, Model{"real/vgg11", ""}, Model{"quantized/squeezenet1_0_int8", "pro-int"},
                           Model{"quantized/shufflenet_v2_x1_0_int8", "pro-int"}}) {
        CAPTURE(c.dir);
        const fs::path m = nnef_test::corpus_dir() / c.dir;
        const Schedule s = simulate(m, args_for(m, c.profile));
        CHECK(s.ratio >= 1.0);  // a lower bound (a NaN fails both)
        CHECK(s.ratio <= 1.20);
    }
}

TEST_CASE("nnef-to-vpu schedule: every sample within 1.20x of the lower bound") {
    // samples/composite was 1.215x: its first conv's second tile (cluster 1) started after the
    // next layer's constants, prefetched after the first tile; before the second NCE layer a
    // layer of one tile per cluster now loads all its tiles' operands first (docs/schedule.md, step 10)
    struct Sample {
        const char* name;
        const char* profile;
    };
    for (const Sample& c : {Sample{"classifier", ""}, Sample{"composite", ""}, Sample{"quantized", "pro-fp"}, Sample{"quantized", "pro-int"},
                            Sample{"recurrent", ""}}) {
        CAPTURE(c.name);
        CAPTURE(c.profile);
        const fs::path m = nnef_test::sample_dir(c.name);
        const Schedule s = simulate(m, args_for(m, c.profile));
        CHECK(s.ratio >= 1.0);
        CHECK(s.ratio <= 1.20);
    }
}

TEST_CASE("nnef-to-vpu schedule: ConvNeXt-tiny within 1.20x of the lower bound, its list chain within it, no slower than today plus 1%") {
    NNEF_REQUIRE_CORPUS();
    NNEF_RELEASE_PASS_ONLY("the schedule is the same in both builds; nnef-to-vpu on every real model compiles and simulates these models under the sanitizers (the five largest in the Release pass only)");
    // The last corpus model to come within 1.20x (docs/schedule.md step 47: 1.195x, 8738630 cycles
    // against 7309760; 1.203x after step 46, 1.220x after step 45). It was in a test case of its
    // own, "the corpus models beyond 1.20x of the lower bound, and why", which checked its reason:
    // until step 46 its list's own chain (its queue order and barriers, each task at its cost) was
    // beyond 1.20x the bound; since then the chain is within, and the simulated run is longer than
    // that chain by the time its transfers take beyond their costs, DDR being shared by the DMA
    // queues (stage 4 streams 9.4 MB of weights a block). (DenseNet-121, MobileNet-v2, VGG-11 and
    // ShuffleNet v2 fp16 and int8 were there before it: see the list above.)
    const std::string dir = "real/convnext_tiny";
    CAPTURE(dir);
    const fs::path m = nnef_test::corpus_dir() / dir;
    const Schedule s = simulate(m, args_for(m, ""));
    const double chain = s.sim.at("lower_bound").at("list_chain_cycles").get<double>();
    CHECK(s.ratio >= 1.0);
    CHECK(s.ratio <= 1.20);
    CHECK(chain <= 1.20 * s.bound);
    CHECK(s.makespan >= chain);
    // and within today's makespan plus 1% (8738630 cycles since docs/schedule.md step 47, a band's
    // chunks emitted together and the timed placement's margins for transfers; 8796412 after step
    // 46, stage 2's first MLP convs band by band in their wavefront regions; 8923346 after step 45, stage 4's
    // partial sums in equal chunks; 8984421 after step 42, stage 1's
    // runs led by their MLP convs in the wavefront; 9386247 after step 41, the tables of alike rows
    // cut; 9383740 after step 40, the
    // prefetch beyond the next NCE layer; 9454646 after step 39, no
    // stores of results every reader takes from CMX; 9637390 after step 38, the buffers placed
    // again by estimated times; 10085478 after step 37, stage
    // 4's first MLP convs in their GELU runs; 10187316 after step 36, the layer norms' broadcasts
    // in their chains' parts; 10343118 after step 35, the wavefront;
    // 10927276 after step 34; 11434033 after steps 30-33; 13430628 after steps 24-29,
    // which moved most of its SHAVE work to the NCE and halved its bound; 21284649 before): a
    // makespan, not a ratio, since its bound falls with every kernel the NCE takes and every padded
    // cuboid it no longer computes
    CHECK(s.makespan <= 8826016.0);
}

TEST_CASE("nnef-to-vpu schedule: ShuffleNet v2's channel split and shuffle stay in CMX (no spills), fp16 and int8") {
    NNEF_REQUIRE_CORPUS();
    // The shuffle's copies go CMX to CMX (docs/schedule.md): no byte is stored to DDR but the
    // output. The limits are today's makespans (272149 and 191292 cycles: the constants of
    // consecutive layers loaded together, docs/vpu-compiler.md; the branches' last 1x1 convs writing
    // into the shuffled tensors and stage 4 on one cluster, docs/schedule.md step 10; the fp16
    // classifier's weights loaded during stages 2-3, step 15; the allocator's ring off the bytes
    // freed last, step 18; the last 1x1 conv's first chunks loaded before stage 4's end and the
    // classifier's last chunks beside the global pool's transfers, step 19; the int8 global pool as
    // one NCE dwconv and the classifier's weights and conv56's loaded one chunk at a time from early
    // on, step 20; conv56's input gathered on both clusters before the next layer's prefetch and
    // DMA ties spread over the queues, int8, step 22) with a margin of 0.5% for the fp16 model and
    // 1% for the int8 one,
    // so that a schedule that loses them fails here; not the ratio, whose bound falls with every
    // transfer saved.
    // The int8 model has one convolution whose float bias lies between its accumulator's steps:
    // that bias is added at a finer grid by SHAVE kernels in int32 (docs/tosa-lowering.md) on the
    // accumulator as [1, 1, 1, 1000], held in CMX (its 24000 bytes were spilled before step 20).
    struct Case {
        const char* dir;
        const char* args;
        double limit;  // makespan, cycles
        double spills;
    };
    for (const Case& c : {Case{"real/shufflenet_v2_x1_0", "", 273500, 0}, Case{"quantized/shufflenet_v2_x1_0_int8", " --profile pro-int", 193200, 0}}) {
        CAPTURE(c.dir);
        const fs::path m = nnef_test::corpus_dir() / c.dir;
        const Schedule s = simulate(m, c.args);
        const double spills = s.sim.at("ddr_bytes").at("spills").get<double>();
        MESSAGE(c.dir << ": spills " << spills << " bytes");
        CHECK(spills <= c.spills);
        CHECK(s.ratio >= 1.0);  // a NaN fails both
        CHECK(s.makespan <= c.limit);
    }
}

TEST_CASE("nnef-to-vpu schedule: DenseNet-121's batch norms run on the NCE and read their concats in place") {
    NNEF_REQUIRE_CORPUS();
    // Each dense layer's pre-activation batch norm (mul, add) and ReLU read a concat's copies, so
    // no NCE layer produced their operand: they were three SHAVE kernels per layer (16.7 M SHAVE
    // cycles, makespan 9.87 M, 2.19x max(engine, DDR)). fuse-post-ops makes each chain one NCE 1x1
    // maxpool with the scale and bias in its table and the ReLU as post-op
    // (lowering/vpu/passes/scale_shift_nce.cpp); what stays on SHAVE is the classifier's global
    // pool (reduce_sum twice). Each batch norm read its concat gathered from one buffer per source
    // by CMX-to-CMX DMA (about 2400 of them, 3671 tasks): the dense blocks' concats are now written
    // in place (lowering/vpu/passes/schedule_concat.cpp; docs/schedule.md step 10), 1613 tasks.
    // The limits: its makespan (2486944 cycles since docs/schedule.md step 40, the prefetch beyond
    // the next NCE layer kept where it simulates faster: 2583578 before it, 2693249 at step 10), its
    // ratio to max(busiest engine, DDR) (1.254x at step 10) and its task count, each with a margin
    // of 1% (3388620 cycles, 1.583x and 3671 tasks before step 10).
    const fs::path m = nnef_test::corpus_dir() / "real" / "densenet121";
    const Schedule s = simulate(m, " --random-weights 1");
    double shave_tasks = 0;
    for (const nlohmann::json& q : s.sim.at("queues"))
        if (q.at("name").get<std::string>().rfind("SHAVE", 0) == 0) shave_tasks += q.at("tasks").get<double>();
    MESSAGE("densenet121: makespan " << s.makespan << ", engine " << s.engine << " (" << s.sim.at("lower_bound").at("engine_queue").get<std::string>()
                                     << "), DDR " << s.ddr << ": " << s.makespan / std::max(s.engine, s.ddr) << "x, SHAVE tasks " << shave_tasks);
    CHECK(shave_tasks <= 2);
    CHECK(s.sim.at("lower_bound").at("engine_queue").get<std::string>().rfind("NCE", 0) == 0);
    CHECK(s.makespan <= 2486944 * 1.01);
    CHECK(s.ratio >= 1.0);  // a NaN fails both
    CHECK(s.makespan / std::max(s.engine, s.ddr) <= 1.254 * 1.01);
    CHECK(s.sim.at("tasks").get<double>() <= 1613 * 1.01);
}

}  // namespace to_vpu_schedule_test
