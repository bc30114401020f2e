// Issue 21: a vision transformer's block (tests/unit/tools/models/vit_block, the forms NNEF-Tools'
// converter writes for torchvision's ViT-B/32) compiles with nnef-to-vpu and its simulated values
// match nnef-run's. Before, the patch embedding was refused ("kernel 16x16 exceeds the NCE's
// largest (11)"); now it runs as one 1x1 NCE conv per kernel row, summed by NCE eltwise adds. The
// constant scale pow(16.0, -0.5) is folded at compile time (no SHAVE task on rank-0 buffers).
#include <doctest/doctest.h>

#include <filesystem>
#include <map>
#include <string>

#include <nlohmann/json.hpp>

#include "tool_runner.hpp"
#include "vpu_model_run.hpp"

namespace fs = std::filesystem;
using nnef_test::quoted;

TEST_SUITE("tools") {
    TEST_CASE("nnef-to-vpu: a ViT block (16x16/16 patch embedding, layer norm, attention, GELU by erf) compiles and simulates as nnef-run") {
        const nnef_test::VpuModelRun r = nnef_test::reference_and_tasks("vit_block", 4);
        const fs::path& dir = r.dir;
        const nlohmann::json& j = r.tasks;
        std::map<std::string, int> ops;
        int patch_parts = 0;
        for (const auto& t : j["tasks"]) {
            ops[t["kind"].get<std::string>() + " " + t["op"].get<std::string>()]++;
            const std::string source = t["source"];
            if (t["kind"] == "NCE" && t["op"] == "conv") {
                // every NCE conv within the NCE's kernel (11) and stride (8)
                for (int k : t["params"]["kernel"]) CHECK(k <= 11);
                for (int s : t["params"]["stride"]) CHECK(s <= 8);
                if (source.rfind("conv1.k", 0) == 0) {
                    ++patch_parts;
                    CHECK(t["params"]["kernel"] == nlohmann::json::array({1, 1}));
                }
            }
            // the scale is a constant: no task computes it
            CHECK(source != "scale");
        }
        CHECK(patch_parts >= 16);  // one per kernel row (16), or more when tiled
        CHECK(ops["NCE eltwise"] >= 15);
        CHECK(ops["SHAVE matmul"] >= 2);  // the attention's two products of activations
        CHECK(ops["SHAVE exp"] >= 1);     // softmax (and erf's exp)
        auto vpu = nnef_test::run_tool("nnef-to-vpu", quoted(dir / "tasks.json") + " --simulate --input random:4 --compare " + quoted(dir / "ref"));
        INFO(vpu.out << vpu.err);
        CHECK(vpu.code == 0);
        CHECK(vpu.out.find("compare output with") != std::string::npos);
        CHECK(vpu.out.find(": match") != std::string::npos);
        CHECK(vpu.out.find("MISMATCH") == std::string::npos);
    }
}
