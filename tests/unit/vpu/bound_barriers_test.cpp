// The simulator's lower bound (docs/vpu.md, "Lower bound") does not follow a list's own queue order
// and barriers: the same tasks under other barriers have the same bound, while their makespan and
// the list's own chain differ. ResNet-18 scheduled once, then given barriers for the default target
// (64 physical barriers) and for one with 4: the same tasks, other waits and updates.
#include <doctest/doctest.h>

#include <filesystem>
#include <string>

#include "common/skip.hpp"
#include "lowering/vpu/compiler.hpp"
#include "lowering/vpu/simulator.hpp"
#include "unit/mlir/lowered_model.hpp"

namespace bound_barriers_test {

namespace fs = std::filesystem;
namespace vpu = nnef::vpu;
using nnef::Diagnostics;

TEST_CASE("simulator: the bound is the same for the same tasks under other barriers, the makespan is not") {
    const fs::path model = fs::path(NNEF_CORPUS_DIR) / "real" / "resnet18";
    if (!fs::exists(model / "graph.nnef")) NNEF_SKIP("the corpus model " + model.string() + " is not here");
    auto lowered = nnef_test::lower_model(model, 1, nnef::tosa::Profile::pro_fp);
    REQUIRE(lowered->graph);
    vpu::ir::Module a;
    a.graph = &*lowered->graph;
    a.name = lowered->graph->name;
    a.target = vpu::Target{};
    const auto pipeline = vpu::compile_pipeline();
    std::size_t k = 0;
    for (; k < pipeline.passes.size() && pipeline.passes[k].name != "barriers"; ++k) {
        Diagnostics d{0};
        REQUIRE(pipeline.passes[k].run(a, d));
    }
    vpu::ir::Module b = a;
    b.target.barriers = 4;
    for (vpu::ir::Module* m : {&a, &b})
        for (std::size_t j = k; j < pipeline.passes.size(); ++j) {
            Diagnostics d{0};
            INFO(pipeline.passes[j].name);
            REQUIRE(pipeline.passes[j].run(*m, d));
        }
    // the same tasks (queues, reads, writes), other waits and updates
    REQUIRE(a.list.tasks.size() == b.list.tasks.size());
    std::size_t differ = 0, orderings = 0;
    for (std::size_t i = 0; i < a.list.tasks.size(); ++i) {
        const vpu::Task &x = a.list.tasks[i], &y = b.list.tasks[i];
        orderings += x.wait != y.wait || x.update != y.update;
        differ += x.queue != y.queue || x.op != y.op || x.reads.size() != y.reads.size() || x.writes.size() != y.writes.size() ||
                  x.cycles != y.cycles;
    }
    CHECK(differ == 0);
    CHECK(orderings > 0);
    Diagnostics da{0}, db{0};
    const auto ra = vpu::simulate(a.list, a.target, {}, da), rb = vpu::simulate(b.list, b.target, {}, db);
    REQUIRE(ra.valid);
    REQUIRE(rb.valid);
    CHECK(ra.bound.value() == rb.bound.value());
    CHECK(ra.bound.engine == rb.bound.engine);
    CHECK(ra.bound.ddr == rb.bound.ddr);
    CHECK(ra.bound.dataflow == rb.bound.dataflow);
    CHECK(ra.bound.cut == rb.bound.cut);
    CHECK(rb.bound.list_chain > ra.bound.list_chain);
    CHECK(rb.makespan > ra.makespan);
    CHECK(ra.makespan >= ra.bound.value());  // a lower bound (a NaN fails)
    CHECK(rb.makespan >= rb.bound.value());
}

}  // namespace bound_barriers_test
