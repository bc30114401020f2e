// Issue 21: a graph shaped like Inception-v3's stem (1x3x299x299 input, up to Mixed_5b's pool
// branch with the explicit pad before avg_pool(border = 'ignore') that NNEF-Tools' converter writes)
// compiles with nnef-to-vpu, its SHAVE pad split into parts that fit CMX, and the simulated values
// match nnef-run's. Before SHAVE kernels tiled it failed: "layer 'pad1' (SHAVE pad) needs 967682
// bytes of CMX for its smallest part, more than the 495616 a tile may take". And a zero pad before
// a convolution folds into its padding (nnef-to-tosa's fold-pads), with the values unchanged.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "tool_runner.hpp"
#include "vpu_model_run.hpp"

namespace to_vpu_shave_tile_test {

namespace fs = std::filesystem;
using nnef_test::quoted;

TEST_SUITE("tools") {
    TEST_CASE("nnef-to-vpu: an Inception-v3 stem (299x299) with its pad before avg_pool compiles, its SHAVE pad tiled, values as nnef-run") {
        const nnef_test::VpuModelRun r = nnef_test::reference_and_tasks("inception_stem", 3);
        const fs::path& dir = r.dir;
        const nlohmann::json& j = r.tasks;
        // the pad's result (1x192x37x37 fp16, with its input more than a quarter of CMX) is
        // computed by several SHAVE tasks, each writing a part of it
        int pads = 0;
        for (const auto& t : j["tasks"])
            if (t["kind"] == "SHAVE" && t["op"] == "pad") ++pads;
        CHECK(pads > 2);
        auto vpu = nnef_test::run_tool("nnef-to-vpu", quoted(dir / "tasks.json") + " --simulate --input random:3 --compare " + quoted(dir / "ref"));
        INFO(vpu.out << vpu.err);
        CHECK(vpu.code == 0);
        CHECK(vpu.out.find(": match") != std::string::npos);
        CHECK(vpu.out.find("MISMATCH") == std::string::npos);
    }

    TEST_CASE("nnef-to-tosa, nnef-to-vpu: a zero pad before a conv folds into its padding, the one before avg_pool stays, values as nnef-run") {
        const fs::path model = nnef_test::source_dir() / "tests" / "unit" / "tools" / "models" / "pad_fold";
        const fs::path dir = nnef_test::scratch_dir() / "vpu-pad-fold";
        fs::remove_all(dir);
        fs::create_directories(dir);
        auto mlir = nnef_test::run_tool("nnef-to-tosa", quoted(model) + " --random-weights 1");
        INFO(mlir.err);
        REQUIRE(mlir.code == 0);
        // pad1 (rows 1, 1; columns 2, 0) is the second convolution's padding now; pad2 is two PADs
        // (one per dimension) before the avg_pool
        CHECK(mlir.out.find("pad = array<i64: 1, 1, 2, 0>") != std::string::npos);
        std::size_t pads = 0;
        for (std::size_t at = mlir.out.find("\"tosa.pad\""); at != std::string::npos; at = mlir.out.find("\"tosa.pad\"", at + 1)) ++pads;
        CHECK(pads == 2);
        auto ref = nnef_test::run_tool("nnef-run", quoted(model) + " --random-weights 1 --input random:2 --output-dir " + quoted(dir / "ref"));
        INFO(ref.err);
        REQUIRE(ref.code == 0);
        auto via = nnef_test::run_tool("nnef-run", quoted(model) + " --random-weights 1 --input random:2 --via tosa --compare " + quoted(dir / "ref"));
        INFO(via.out << via.err);
        CHECK(via.code == 0);
        CHECK(via.out.find("MISMATCH") == std::string::npos);
        auto vpu = nnef_test::run_tool("nnef-to-vpu", quoted(model) + " --random-weights 1 --simulate --input random:2 --compare " + quoted(dir / "ref"));
        INFO(vpu.out << vpu.err);
        CHECK(vpu.code == 0);
        CHECK(vpu.out.find("compare output with") != std::string::npos);
        CHECK(vpu.out.find("compare pooled with") != std::string::npos);
        CHECK(vpu.out.find("MISMATCH") == std::string::npos);
    }
}

}  // namespace to_vpu_shave_tile_test
