// An NNAPI model's JSON form (docs/nnapi.md) given to nnef-to-tosa and nnef-to-vpu directly
// (tools/common/nnapi_input.hpp): recognised by its content, lowered NNAPI -> TOSA (-> VPU), with the
// tools' other options; bad NNAPI JSON is the reader's error.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "storage/tensor_file.hpp"
#include "tool_runner.hpp"

namespace nnapi_input_test {

namespace fs = std::filesystem;
using nnef_test::quoted;
using nnef_test::contains;
using nnef_test::run_tool;

fs::path folder(const std::string& name) {
    const fs::path dir = nnef_test::fresh_scratch(name);
    fs::create_directories(dir);
    return dir;
}

std::string read(const fs::path& p) {
    std::ifstream f(p, std::ios::binary);
    std::stringstream s;
    s << f.rdbuf();
    return s.str();
}

// Pseudo-random values of a [1, C, H, W] tensor, written in NNEF's order (NCHW) and in NNAPI's
// (NHWC): int8 codes over their whole range, or reals in [-2, 2].
void write_inputs(const fs::path& nchw, const fs::path& nhwc, std::int64_t C, std::int64_t H, std::int64_t W, bool codes) {
    std::vector<std::int64_t> a(std::size_t(C * H * W)), b(a.size());
    std::uint32_t s = 7;
    for (auto& v : a) {
        s = s * 1664525u + 1013904223u;
        v = std::int64_t((s >> 8) % 256) - 128;
    }
    for (std::int64_t c = 0; c < C; ++c)
        for (std::int64_t h = 0; h < H; ++h)
            for (std::int64_t w = 0; w < W; ++w) b[std::size_t((h * W + w) * C + c)] = a[std::size_t((c * H + h) * W + w)];
    for (const auto& [path, items, shape] : {std::tuple(nchw, a, std::vector<std::int64_t>{1, C, H, W}),
                                             std::tuple(nhwc, b, std::vector<std::int64_t>{1, H, W, C})}) {
        nnef::Result<nnef::storage::TensorDataPtr> t;
        if (codes) {
            t = nnef::storage::make_integer_tensor(shape, items, 8, true);
        } else {
            std::vector<float> reals;
            for (std::int64_t v : items) reals.push_back(float(v) / 64.0f);
            t = nnef::storage::make_float_tensor(shape, reals);
        }
        REQUIRE(t.value);
        REQUIRE(nnef::storage::write_tensor_file(path.string(), **t.value).value);
    }
}

// The one .dat file an --output-dir holds, copied to output.dat (what --compare takes for the one
// output of another name: the NNAPI model's is "operand N").
void name_output(const fs::path& dir) {
    std::vector<fs::path> dats;
    for (const auto& e : fs::directory_iterator(dir))
        if (e.path().extension() == ".dat") dats.push_back(e.path());
    REQUIRE(dats.size() == 1);
    fs::copy_file(dats[0], dir / "output.dat");
}

TEST_SUITE("tools") {

TEST_CASE("nnef-to-vpu and nnef-to-tosa take the exported int8 ShuffleNet v2 (NNAPI JSON, by content): nnef-to-vpu's codes on the NNEF model") {
    NNEF_REQUIRE_CORPUS();
    const fs::path model = nnef_test::corpus_file("quantized/shufflenet_v2_x1_0_int8");
    const fs::path dir = folder("nnapi-input-int8");
    const auto e = run_tool("nnef-to-nnapi", quoted(model) + " --quiet -o " + quoted(dir / "model.json"));
    REQUIRE_MESSAGE(e.code == 0, e.err);
    // not named .json: recognised by its content (its pool, model.bin, is named inside it)
    fs::rename(dir / "model.json", dir / "shufflenet.nnapi");
    write_inputs(dir / "x_nchw.dat", dir / "x_nhwc.dat", 3, 224, 224, true);
    const auto ref = run_tool("nnef-to-vpu", quoted(model) + " --profile pro-int --simulate --quiet --input " + quoted(dir / "x_nchw.dat") +
                                                 " --output-dir " + quoted(dir / "nnef"));
    REQUIRE_MESSAGE(ref.code == 0, ref.err);
    name_output(dir / "nnef");
    const auto r = run_tool("nnef-to-vpu", quoted(dir / "shufflenet.nnapi") + " --simulate --input " + quoted(dir / "x_nhwc.dat") + " --compare " +
                                               quoted(dir / "nnef") + " --output-dir " + quoted(dir / "nnapi"));
    CHECK_MESSAGE(r.code == 0, r.err);
    CHECK(contains(r.out, "makespan:"));
    CHECK(contains(r.out, "max 0 quanta off"));  // the same codes (docs/nnapi.md, "The vpu device")
    CHECK(contains(r.out, ": match"));
    CHECK(fs::exists(dir / "nnapi" / "operand 1509.dat"));
    // -o: the task list and its constants
    const auto o = run_tool("nnef-to-vpu", quoted(dir / "shufflenet.nnapi") + " -o " + quoted(dir / "tasks.json"));
    CHECK_MESSAGE(o.code == 0, o.err);
    CHECK(fs::file_size(dir / "tasks.bin") > 1000000);
    // nnef-to-tosa: PRO-INT MLIR (uint8 inputs and outputs through unsigned RESCALEs)
    const auto t = run_tool("nnef-to-tosa", quoted(dir / "shufflenet.nnapi") + " -o " + quoted(dir / "model.mlir"));
    CHECK_MESSAGE(t.code == 0, t.err);
    const std::string mlir = read(dir / "model.mlir");
    CHECK(contains(mlir, "profiles=pro_int"));
    CHECK(contains(mlir, "input_unsigned = true"));
    const auto p = run_tool("nnef-to-tosa", quoted(dir / "shufflenet.nnapi") + " --profile pro-fp");
    CHECK(p.code == 2);
    CHECK(contains(p.err, "an NNAPI model's profile is its operand types'"));
}

TEST_CASE("nnef-to-vpu and nnef-to-tosa on an exported float NNAPI model: the TOSA interpreter's outputs, every format, the options that do not apply") {
    const fs::path dir = folder("nnapi-input-float");
    const fs::path classifier = nnef_test::source_dir() / "samples" / "classifier";
    const auto e = run_tool("nnef-to-nnapi", quoted(classifier) + " --random-weights 1 --quiet -o " + quoted(dir / "model.json"));
    REQUIRE_MESSAGE(e.code == 0, e.err);
    for (const char* format : {"mlir", "json", "text"}) {
        CAPTURE(format);
        const auto t = run_tool("nnef-to-tosa", quoted(dir / "model.json") + " --format " + format + " -o " + quoted(dir / (std::string("tosa.") + format)));
        CHECK_MESSAGE(t.code == 0, t.err);
    }
    CHECK(contains(read(dir / "tosa.mlir"), "profiles=pro_fp"));
    CHECK(contains(read(dir / "tosa.json"), "\"schema_version\""));
    CHECK(contains(read(dir / "tosa.text"), "CONV2D"));
    // the TOSA interpreter (nnef-run FILE.mlir) and the VPU simulator on the same input agree (fp16)
    const auto run = run_tool("nnef-run", quoted(dir / "tosa.mlir") + " --input random:3 --output-dir " + quoted(dir / "tosa"));
    REQUIRE_MESSAGE(run.code == 0, run.err);
    name_output(dir / "tosa");
    const auto v = run_tool("nnef-to-vpu", quoted(dir / "model.json") + " --simulate --input random:3 --compare " + quoted(dir / "tosa") +
                                               " --format json");
    CHECK_MESSAGE(v.code == 0, v.err);
    CHECK(contains(v.out, "\"simulation\""));
    CHECK(contains(v.out, "\"compare\""));
    for (const std::string option : {"--random-weights 1", "--print-after legalize-nnef-to-tosa"}) {
        CAPTURE(option);
        const auto u = run_tool("nnef-to-vpu", quoted(dir / "model.json") + " " + option);
        CHECK(u.code == 2);
        CHECK(contains(u.err, "an NNAPI model"));
        const auto w = run_tool("nnef-to-tosa", quoted(dir / "model.json") + " " + option);
        CHECK(w.code == 2);
        CHECK(contains(w.err, "an NNAPI model"));
    }
}

TEST_CASE("bad NNAPI JSON given to nnef-to-tosa and nnef-to-vpu: the reader's or the validator's error, exit 1") {
    const fs::path dir = folder("nnapi-input-bad");
    const fs::path classifier = nnef_test::source_dir() / "samples" / "classifier";
    REQUIRE(run_tool("nnef-to-nnapi", quoted(classifier) + " --random-weights 1 --quiet -o " + quoted(dir / "good.json")).code == 0);
    const std::string good = read(dir / "good.json");
    struct Case {
        std::string name, text, message;
    };
    std::string enum_broken = good, consumers_broken = good;
    enum_broken.replace(enum_broken.find("TENSOR_FLOAT32"), 14, "TENSOR_FLOAT16");
    const std::size_t at = consumers_broken.find("\"numberOfConsumers\": 1");
    REQUIRE(at != std::string::npos);
    consumers_broken.replace(at, 22, "\"numberOfConsumers\": 7");
    const std::vector<Case> cases = {
        {"malformed.json", "{\"operands\": [,], \"operations\": []}", "malformed.json:1:15: malformed JSON"},
        {"enum.json", enum_broken, "unknown OperandType \"TENSOR_FLOAT16\""},
        {"consumers.json", consumers_broken, "numberOfConsumers"},
    };
    for (const Case& c : cases) {
        CAPTURE(c.name);
        std::ofstream(dir / c.name, std::ios::binary) << c.text;
        for (const std::string tool : {"nnef-to-tosa", "nnef-to-vpu"}) {
            CAPTURE(tool);
            const auto r = run_tool(tool, quoted(dir / c.name));
            CHECK(r.code == 1);
            CHECK(contains(r.err, c.message));
            CHECK(contains(r.err, (dir / c.name).string()));
            CHECK(r.out.empty());
        }
    }
}

}  // TEST_SUITE

}  // namespace nnapi_input_test
