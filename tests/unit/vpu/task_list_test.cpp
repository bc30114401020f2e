// The task list: JSON of spec section 6 (field names, nulls, params), strict reading, the text
// dump, and the constant data file.
#include <doctest/doctest.h>

#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "common/scratch.hpp"
#include "lowering/vpu/task_list.hpp"
#include "vpu_fixtures.hpp"

using namespace nnef::vpu;

TEST_SUITE("vpu") {
    TEST_CASE("task list: JSON field names and values of section 6") {
        const TaskList l = vpu_test::conv_list();
        const nlohmann::json j = nlohmann::json::parse(to_json_text(l));
        CHECK(j["format"] == "nnef-vpu-tasks");
        CHECK(j["version"] == 1);
        CHECK(j["graph"] == "conv_relu");
        CHECK(j["target"]["cmx_bytes"] == 1982464);
        CHECK(j["target"]["nce_macs_per_cycle"]["int8"] == 2048);
        CHECK(j["target"].size() == 23);  // every field of section 1, resolved
        const auto& b = j["buffers"][4];
        CHECK(b == nlohmann::json::parse(R"({"id": "cx", "memory": "CMX", "cluster": 0, "offset": 0, "size": 64,
                                              "dtype": "fp16", "role": "activation", "tensor": "x"})"));
        CHECK(j["buffers"][0]["cluster"].is_null());
        CHECK(j["inputs"][0] == nlohmann::json::parse(R"({"name": "x", "buffer": "x", "shape": [1,4,4,2], "layout": "NHWC", "dtype": "fp16"})"));
        CHECK(j["barriers"][1] == nlohmann::json::parse(R"({"id": 1, "physical": 1})"));
        const auto& conv = j["tasks"][3];
        CHECK(conv["queue"] == "NCE0");
        CHECK(conv["kind"] == "NCE");
        CHECK(conv["op"] == "conv");
        // Byte strides of the NHWC fp16 box [1,4,4,2]: C 2, W 4, H 16, N 64.
        CHECK(conv["reads"][0] == nlohmann::json::parse(R"({"buffer": "cx", "offset": 0, "shape": [1,4,4,2], "strides": [64,16,4,2]})"));
        CHECK(conv["reads"][2]["strides"] == nlohmann::json::parse("[16,4]"));
        CHECK(conv["wait"] == nlohmann::json::parse("[0]"));
        CHECK(conv["update"] == nlohmann::json::parse("[1]"));
        CHECK(conv["cycles"] == 336);
        CHECK(conv["params"] == nlohmann::json::parse(R"({"kernel": [3,3], "stride": [1,1], "dilation": [1,1], "pad": [1,1,1,1], "post_op": "relu"})"));
        CHECK(conv["source"] == "conv");
        CHECK(j["tasks"][0]["params"] == nlohmann::json::object());
        std::vector<std::string> keys;
        for (auto it = conv.begin(); it != conv.end(); ++it) keys.push_back(it.key());
        std::sort(keys.begin(), keys.end());
        CHECK(keys == std::vector<std::string>{"cycles", "id", "kind", "op", "params", "queue", "reads", "source", "update", "wait", "writes"});
    }

    TEST_CASE("task list: JSON round trip") {
        TaskList l = vpu_test::conv_list();
        // Exercise the optional parts: a SHAVE task with attributes, an int8 NCE eltwise, clamp.
        Task s;
        s.id = 9;
        s.queue = "SHAVE1.1";
        s.kind = TaskKind::SHAVE;
        s.op = "softmax";
        s.shave.kernel = "softmax";
        s.shave.attrs = {{"axis", 3}};
        s.reads = {Access::dense("cy", 0, {1, 4, 4, 2}, 2)};
        s.writes = {Access::dense("cy", 0, {1, 4, 4, 2}, 2)};
        l.tasks.push_back(s);
        Task e;
        e.id = 10;
        e.queue = "NCE1";
        e.kind = TaskKind::NCE;
        e.op = "eltwise";
        e.nce.eltwise = "add";
        e.nce.post_op = PostOp::clamp;
        e.nce.clamp_min = -3;
        e.nce.clamp_max = 100;
        e.nce.quantized = true;
        e.nce.output_zp = 5;
        e.nce.double_round = true;
        e.nce.eltwise_inputs[1] = {1234567, 35, -7};
        l.tasks.push_back(e);
        const std::string text = to_json_text(l);
        auto r = parse_task_list(text, "conv.json");
        REQUIRE(r);
        CHECK(to_json_text(*r) == text);
        CHECK(r->tasks[5].shave.attrs["axis"] == 3);
        CHECK(r->tasks[6].nce.eltwise_inputs[1].multiplier == 1234567);
        CHECK(r->tasks[6].nce.output_zp == 5);
        CHECK(r->tasks[6].nce.double_round);
        CHECK(r->buffers[4].memory == Memory::CMX);
        CHECK(r->buffers[0].tensor == "x");
    }

    TEST_CASE("task list: strict reading names the field and what was expected") {
        const std::string good = to_json_text(vpu_test::conv_list());
        struct Case {
            std::string from, to, message;
        };
        const Case cases[] = {
            {"\"format\": \"nnef-vpu-tasks\"", "\"format\": \"vpu\"", "field /format: expected \"nnef-vpu-tasks\", got the string \"vpu\""},
            {"\"version\": 1", "\"version\": 2", "field /version: expected an integer in [1, 1], got the number 2"},
            {"\"queue\":\"NCE0\"", "\"queue\":\"NPU0\"", "field /tasks/3/queue: expected a queue name DMA<i>, NCE<k> or SHAVE<k>.<i>, got the string \"NPU0\""},
            {"\"queue\":\"NCE0\"", "\"queue\":\"SHAVE0.0\"", "field /tasks/3/kind: expected SHAVE (the kind of queue SHAVE0.0), got NCE"},
            {"\"post_op\":\"relu\"", "\"post_op\":\"swish\"", "field /tasks/3/params/post_op: expected one of none, relu, clamp, leaky_relu, got the string \"swish\""},
            {"\"post_op\":\"relu\"", "\"post_op\":\"relu\",\"groups\":2", "field /tasks/3/params/groups: unknown field 'groups'"},
            {"\"strides\":[64,16,4,2]},{\"buffer\":\"cw\"", "\"strides\":[64,16,4]},{\"buffer\":\"cw\"",
             "field /tasks/3/reads/0/strides: expected one stride per dimension of shape (4), got 3"},
            {"\"memory\":\"CMX\"", "\"memory\":\"SRAM\"", "field /buffers/4/memory: expected one of DDR, CMX, got the string \"SRAM\""},
            {"\"cmx_bytes\":1982464", "\"cmx_bytes\":\"big\"", "field /target/cmx_bytes: expected an integer >= 1, got the string \"big\""},
            {"\"op\":\"copy\"", "\"op\":\"move\"", "field /tasks/0/op: expected \"copy\" (the one DMA operation), got the string \"move\""},
            {"\"layout\":\"NHWC\"", "\"layout\":\"NHW\"", "field /inputs/0/layout: expected one letter per dimension of shape (4), got the string \"NHW\""},
            {"\"cycles\":336", "\"cycles\":-1", "field /tasks/3/cycles: expected an integer >= 0, got the number -1"},
            {"\"wait\":[0]", "\"wait\":0", "field /tasks/3/wait: expected an array, got the number 0"},
            {"{\"buffer\":\"x\",\"offset\":0,\"shape\":[1,4,4,2]", "{\"buffer\":\"x\",\"offset\":0,\"shape\":[100000,100000,4,2]",
             "field /tasks/0/reads/0/shape: expected a box of at most 2^32 elements, got an array"},
            {"\"graph\": \"conv_relu\",", "\"graph\": \"conv_relu\", \"extra\": 1,", "field /extra: unknown field 'extra'"},
        };
        for (const Case& c : cases) {
            CAPTURE(c.to);
            const auto at = good.find(c.from);
            REQUIRE(at != std::string::npos);
            std::string bad = good;
            bad.replace(at, c.from.size(), c.to);
            auto r = parse_task_list(bad, "bad.json");
            CHECK_FALSE(r);
            REQUIRE(r.diagnostics.size() == 1);
            CHECK(r.diagnostics.list().front().path == "bad.json");
            CAPTURE(r.diagnostics.list().front().message);
            CHECK(r.diagnostics.list().front().message.find(c.message) == 0);
        }
        auto r = parse_task_list(good.substr(0, good.size() / 2), "cut.json");
        CHECK_FALSE(r);
        CHECK(r.diagnostics.list().front().message.find("malformed JSON at line ") == 0);
    }

    TEST_CASE("task list: text dump") {
        const std::string text = to_text(vpu_test::conv_list());
        CAPTURE(text);
        CHECK(text.find("task list for graph 'conv_relu' on target 'npu-2c'") == 0);
        CHECK(text.find("cw: CMX0 [64, 136) 72 bytes fp16 weights 'filter'") != std::string::npos);
        CHECK(text.find("NCE0 (1 task):\n  #3 conv {\"kernel\":[3,3]") != std::string::npos);
        CHECK(text.find("wait [0]  update [1]  # conv\n      reads cx+0[1,4,4,2]/[64,16,4,2] cw+0[2,3,3,2]/[36,12,4,2] ct+0[2,4]/[16,4]") !=
              std::string::npos);
    }

    TEST_CASE("task list: the constant data file") {
        TaskList l = vpu_test::conv_list();
        const auto dir = nnef_test::process_scratch("nnef-vpu-test");
        std::filesystem::create_directories(dir);
        const std::string json = (dir / "conv.json").string();
        CHECK(constants_path(json) == (dir / "conv.bin").string());
        CHECK(constants_path("tasks") == "tasks.bin");
        nnef::Diagnostics d;
        REQUIRE(write_constants_file(l, constants_path(json), d));
        CHECK(std::filesystem::file_size(constants_path(json)) == 72 + 32);
        TaskList back = vpu_test::conv_list();
        for (Buffer& b : back.buffers) b.data.reset();
        REQUIRE(read_constants_file(back, constants_path(json), d));
        CHECK(*back.buffers[1].data == *l.buffers[1].data);
        CHECK(*back.buffers[2].data == *l.buffers[2].data);
        CHECK_FALSE(back.buffers[5].data);  // CMX buffers get their contents by DMA
        // A file of the wrong size.
        std::ofstream(constants_path(json), std::ios::binary | std::ios::app) << "x";
        nnef::Diagnostics bad;
        CHECK_FALSE(read_constants_file(back, constants_path(json), bad));
        CHECK(bad.list().front().message == "the constant data file has 105 bytes; the task list's constant buffers (weights, table, constant) need 104");
        std::filesystem::remove_all(dir);
    }
}
