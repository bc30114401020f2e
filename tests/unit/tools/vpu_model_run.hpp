// The first steps of the nnef-to-vpu end-to-end tests on small models of tests/unit/tools/models
// (to_vpu_shave_tile_test.cpp, to_vpu_transformer_test.cpp): nnef-run's reference outputs and the
// task list of the model with random weights, in a fresh scratch folder.
#pragma once
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "tool_runner.hpp"

namespace nnef_test {

struct VpuModelRun {
    std::filesystem::path model, dir;  // dir/ref: nnef-run's outputs; dir/tasks.json: the task list
    nlohmann::json tasks;
};

// Model `name` of tests/unit/tools/models, weights from --random-weights 1, input random:SEED.
inline VpuModelRun reference_and_tasks(const std::string& name, int seed) {
    VpuModelRun r;
    r.model = source_dir() / "tests" / "unit" / "tools" / "models" / name;
    r.dir = scratch_dir() / ("vpu-" + name);
    std::filesystem::remove_all(r.dir);
    std::filesystem::create_directories(r.dir);
    auto ref = run_tool("nnef-run", quoted(r.model) + " --random-weights 1 --input random:" + std::to_string(seed) + " --output-dir " +
                                        quoted(r.dir / "ref"));
    INFO(ref.err);
    REQUIRE(ref.code == 0);
    auto list = run_tool("nnef-to-vpu", quoted(r.model) + " --random-weights 1 -o " + quoted(r.dir / "tasks.json"));
    INFO(list.err);
    REQUIRE(list.code == 0);
    std::ifstream(r.dir / "tasks.json") >> r.tasks;
    return r;
}

}  // namespace nnef_test
