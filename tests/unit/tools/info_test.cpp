// End-to-end tests of nnef-info (and of nnef-flatten --shapes on graph.quant): the real binaries
// on real files. Expected numbers are computed here from the models' definitions, not taken from
// the tool's output.
#include <doctest/doctest.h>

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "storage/tensor_file.hpp"
#include "tool_runner.hpp"
#include <nlohmann/json.hpp>

namespace info_test {

namespace fs = std::filesystem;
using nnef_test::quoted;
using nnef_test::contains;
using nnef_test::run_tool;
using nnef_test::shell_quote;



nlohmann::json parse_json(const std::string& text) {
    nlohmann::json v;
    CHECK_NOTHROW(v = nlohmann::json::parse(text));
    return v;
}

std::uint64_t integer(const nlohmann::json& v) {
    REQUIRE(v.is_number_unsigned());
    return v.get<std::uint64_t>();
}

// The entry of a JSON array of objects whose `key` is `name`.
const nlohmann::json& entry(const nlohmann::json& list, const char* key, const std::string& name) {
    REQUIRE(list.is_array());
    for (const nlohmann::json& e : list)
        if (e.at(key) == name) return e;
    FAIL("no entry " << name);
    return list;
}

// Writes a tensor file (the directories of a label like 'conv1/filter' included).
void write_tensor(const fs::path& folder, const std::string& label, const nnef::Result<nnef::storage::TensorDataPtr>& t) {
    REQUIRE(t.value);
    fs::path p = folder / (label + ".dat");
    fs::create_directories(p.parent_path());
    REQUIRE(nnef::storage::write_tensor_file(p.string(), **t.value).value);
}

std::vector<double> ramp(std::size_t n) {
    std::vector<double> v(n);
    for (std::size_t i = 0; i < n; ++i) v[i] = double(i % 7) / 7.0 - 0.5;
    return v;
}

// samples/classifier with weights in four encodings and a graph.quant: a model folder.
fs::path classifier_folder() {
    fs::path dir = nnef_test::scratch_dir() / "info-classifier";
    fs::remove_all(dir);
    fs::create_directories(dir);
    fs::copy_file(nnef_test::source_dir() / "samples/classifier/graph.nnef", dir / "graph.nnef");
    using namespace nnef::storage;
    write_tensor(dir, "conv1/filter", make_float_tensor({16, 3, 3, 3}, ramp(432), 16));
    write_tensor(dir, "conv1/bias", make_float_tensor({1, 16}, std::vector<float>(16, 0.5f)));
    write_tensor(dir, "conv2/filter", make_linear_quantized_tensor({32, 16, 3, 3}, ramp(4608), -0.5f, 0.5f, 8));
    write_tensor(dir, "conv2/bias", make_float_tensor({1, 32}, std::vector<float>(32, 0.25f)));
    write_tensor(dir, "fc/weights", make_linear_quantized_tensor({10, 32}, ramp(320), -0.5f, 0.5f, 4));
    write_tensor(dir, "fc/bias", make_float_tensor({1, 10}, std::vector<float>(10, 0.0f)));
    std::ofstream(dir / "graph.quant") << "\"conv1\": linear_quantize(min = -8.0, max = 8.0, bits = 8);\n"
                                          "\"logits\": logarithmic_quantize(max = 16.0, bits = 8);\n";
    return dir;
}

// One torchvision ResNet-18 convolution: input and output channels, kernel size, output extent.
struct ConvLayer {
    std::uint64_t cin, cout, k, out;
};

// torchvision resnet18 for 224x224 (BasicBlock, [2, 2, 2, 2]): every convolution, downsampling
// included.
std::vector<ConvLayer> resnet18_convs() {
    std::vector<ConvLayer> c{{3, 64, 7, 112}};
    for (int i = 0; i < 4; ++i) c.push_back({64, 64, 3, 56});
    std::uint64_t in = 64, out = 128, hw = 28;
    for (int stage = 0; stage < 3; ++stage, in *= 2, out *= 2, hw /= 2) {
        c.push_back({in, out, 3, hw});  // first conv of the first block, stride 2
        for (int i = 0; i < 3; ++i) c.push_back({out, out, 3, hw});
        c.push_back({in, out, 1, hw});  // 1x1 downsampling
    }
    return c;
}

}  // namespace info_test

TEST_SUITE("tools") {
    using namespace info_test;

    TEST_CASE("nnef-info on the samples") {
        for (const char* name : {"classifier", "composite", "recurrent", "quantized"}) {
            CAPTURE(name);
            auto r = run_tool("nnef-info", quoted(nnef_test::source_dir() / "samples" / name / "graph.nnef"));
            CHECK(r.code == 0);
            CHECK(contains(r.out, std::string("graph: ") + name + "\n"));
            CHECK(contains(r.out, "\nMACs: "));
            CHECK(contains(r.out, "nominal sizes of the declared types"));
        }
        auto r = run_tool("nnef-info", quoted(nnef_test::source_dir() / "samples/classifier/graph.nnef"));
        // Histogram by count, then name.
        CHECK(contains(r.out, "operations: 16\n  variable: 6\n  conv: 2\n  relu: 2\n  external: 1\n  linear: 1\n"
                         "  max_pool: 1\n  mean_reduce: 1\n  reshape: 1\n  softmax: 1\n"));
        CHECK(contains(r.out, "inputs:\n  image: scalar[1,3,32,32]\noutputs:\n  probabilities: scalar[1,10]\n"));
        // conv1: [1,16,32,32] x 3*3*3; conv2 (stride 2 of the 16x16 pool): [1,32,8,8] x 16*3*3;
        // linear: 10 x 32.
        const std::uint64_t conv = 16 * 32 * 32 * 27 + 32 * 8 * 8 * 144, linear = 10 * 32;
        CHECK(contains(r.out, "MACs: " + std::to_string(conv + linear) + " (738 k)\n  conv: 2 operations, " +
                             std::to_string(conv) + "\n  linear: 1 operation, 320\n"));
        const std::uint64_t params = 16 * 27 + 16 + 32 * 144 + 32 + 320 + 10;
        CHECK(contains(r.out, "parameters: 6 tensors (6 variables), " + std::to_string(params) + " elements (5.42 k), " +
                             std::to_string(params * 4) + " bytes (21.7 kB), nominal"));
        // relu1 [1,16,32,32] and relu2 [1,32,8,8].
        CHECK(contains(r.out, "element-wise operations: " + std::to_string(16 * 32 * 32 + 32 * 8 * 8)));

        auto q = run_tool("nnef-info", quoted(nnef_test::source_dir() / "samples/quantized/graph.nnef"));
        CHECK(contains(q.out, "quantization: 3 tensors quantized\n"
                         "  linear_quantize: 0 tensors from graph.quant, 2 operations in the graph\n"
                         "  logarithmic_quantize: 0 tensors from graph.quant, 1 operation in the graph\n"));
    }

    TEST_CASE("nnef-info MAC definitions") {
        auto p = nnef_test::write_scratch("info-macs/graph.nnef",
                                          "version 1.0;\ngraph G( x, a, b ) -> ( y1, y2, y3, y4, y5, y6 )\n{\n"
                                          "    x = external(shape = [1, 8, 16, 16]);\n"
                                          "    a = external(shape = [3, 5, 7]);\n"
                                          "    b = external(shape = [3, 6, 7]);\n"
                                          "    w1 = variable(shape = [16, 4, 3, 3], label = 'w1');\n"
                                          "    y1 = conv(x, w1, groups = 2);\n"
                                          "    w2 = variable(shape = [8, 1, 3, 3], label = 'w2');\n"
                                          "    y2 = conv(x, w2, groups = 0, stride = [2, 2]);\n"
                                          "    w3 = variable(shape = [8, 4, 4, 4], label = 'w3');\n"
                                          "    y3 = deconv(x, w3, stride = [2, 2]);\n"
                                          "    y4 = matmul(a, b, transposeB = true);\n"
                                          "    w5 = variable(shape = [10, 2048], label = 'w5');\n"
                                          "    f = reshape(x, shape = [1, 2048]);\n"
                                          "    y5 = linear(f, w5);\n"
                                          "    plane = variable(shape = [8, 1, 3, 3], label = 'plane');\n"
                                          "    point = variable(shape = [16, 8, 1, 1], label = 'point');\n"
                                          "    y6 = separable_conv(x, plane, point);\n"
                                          "    w1b = variable(shape = [16, 4, 3, 3], label = 'W1');\n}\n");
        // groups = 2: output [1,16,16,16], 8 / 2 input channels per group, 3x3 kernel.
        const std::uint64_t grouped = 16 * 16 * 16 * (8 / 2) * 9;
        // groups = 0 (depth-wise), stride 2: output [1,8,8,8], one input channel each.
        const std::uint64_t depthwise = 8 * 8 * 8 * 1 * 9;
        // deconv, stride 2: each of the 8*16*16 input items meets 4 output channels x 4x4 once.
        const std::uint64_t deconv = 8 * 16 * 16 * 4 * 16;
        // matmul [3,5,7] x [3,6,7]^T: 3 batches of 5x6 outputs, K = 7.
        const std::uint64_t matmul = 3 * 5 * 6 * 7;
        const std::uint64_t linear = 10 * 2048;
        // separable: depth-wise 8 channels at 16x16 (3x3), then point-wise 8 -> 16 at 16x16.
        const std::uint64_t separable = 8 * 16 * 16 * 9 + 16 * 16 * 16 * 8;
        const std::uint64_t total = grouped + depthwise + deconv + matmul + linear + separable;
        auto r = run_tool("nnef-info", quoted(p));
        REQUIRE(r.code == 0);
        CHECK(contains(r.out, "MACs: " + std::to_string(total) + " "));
        CHECK(contains(r.out, "  conv: 2 operations, " + std::to_string(grouped + depthwise) + "\n"));
        CHECK(contains(r.out, "  deconv: 1 operation, " + std::to_string(deconv) + "\n"));
        CHECK(contains(r.out, "  separable_conv: 1 operation, " + std::to_string(separable) + "\n"));
        CHECK(contains(r.out, "  linear: 1 operation, " + std::to_string(linear) + "\n"));
        CHECK(contains(r.out, "  matmul: 1 operation, " + std::to_string(matmul) + "\n"));
        // w1 and w1b share a label (case-insensitive): one parameter tensor.
        const std::uint64_t params = 16 * 4 * 9 + 8 * 9 + 8 * 4 * 16 + 10 * 2048 + 8 * 9 + 16 * 8;
        CHECK(contains(r.out, "parameters: 6 tensors (7 variables), " + std::to_string(params) + " elements"));
        // Expanding the compounds (separable_conv into two convs, linear into matmul) keeps the total.
        auto all = run_tool("nnef-info", "--expand-all " + quoted(p));
        REQUIRE(all.code == 0);
        CHECK(contains(all.out, "MACs: " + std::to_string(total) + " "));
        CHECK(contains(all.out, "  conv: 4 operations, " + std::to_string(grouped + depthwise + separable) + "\n"));
        CHECK(contains(all.out, "  matmul: 2 operations, " + std::to_string(matmul + linear) + "\n"));
    }

    TEST_CASE("nnef-info on unknown shapes") {
        auto p = nnef_test::write_scratch("info-custom/graph.nnef",
                                          "version 1.0;\nextension KHR_enable_fragment_definitions;\n"
                                          "fragment mystery( x: tensor<scalar> ) -> ( y: tensor<scalar> );\n"
                                          "graph G( x ) -> ( z, r )\n{\n    x = external(shape = [1, 3, 8, 8]);\n"
                                          "    w = variable(shape = [4, 3, 3, 3], label = 'w');\n"
                                          "    c = conv(x, w);\n    y = mystery(c);\n    z = conv(y, w);\n"
                                          "    r = relu(y);\n}\n");
        auto r = run_tool("nnef-info", quoted(p));
        REQUIRE(r.code == 0);
        CHECK(contains(r.out, "  z: scalar[unknown]\n"));
        CHECK(contains(r.out, "custom operations (cost unknown):\n  mystery: 1\n"));
        // The first conv is known (256 outputs x 27), the second is not: no total.
        CHECK(contains(r.out, "MACs: unknown (1 operation with unknown shapes; custom operations not counted; 6912 (6.91 k) "
                         "over the rest)\n"));
        CHECK(contains(r.out, "  conv: 2 operations, unknown (1 with unknown shapes; 6912 over the others)\n"));
        CHECK(contains(r.out, "element-wise operations: unknown"));
        auto j = run_tool("nnef-info", "--format json " + quoted(p));
        REQUIRE(j.code == 0);
        auto v = parse_json(j.out);
        CHECK(v.at("macs").at("total").is_null());
        CHECK(v.at("macs").at("complete").is_boolean());
        CHECK_FALSE(v.at("macs").at("complete").get<bool>());
        CHECK(integer(v.at("macs").at("known")) == 6912);
        CHECK(entry(v.at("macs").at("by_type"), "name", "conv").at("count").is_null());
        CHECK(entry(v.at("outputs"), "name", "z").at("shape").is_null());
        CHECK(integer(entry(v.at("custom_operations"), "name", "mystery").at("count")) == 1);
    }

    TEST_CASE("nnef-info: the TOSA operator histogram") {
        // The classifier: two convolutions and the linear layer (TOSA 1.0 has no fully connected
        // operator: a 1x1 CONV2D), one max_pool (MAX_POOL2D), a softmax (EXP among its operators);
        // the layout passes leave transposes at the edges only.
        auto r = run_tool("nnef-info", "--format json " + quoted(classifier_folder()));
        REQUIRE(r.code == 0);
        auto v = parse_json(r.out);
        const nlohmann::json& t = v.at("tosa");
        REQUIRE(t.at("lowered").get<bool>());
        CHECK(t.at("profile") == "PRO-FP");
        std::uint64_t sum = 0;
        for (const nlohmann::json& e : t.at("histogram")) sum += integer(e.at("count"));
        CHECK(sum == integer(t.at("total")));
        CHECK(integer(entry(t.at("histogram"), "name", "CONV2D").at("count")) == 3);
        CHECK(integer(entry(t.at("histogram"), "name", "MAX_POOL2D").at("count")) == 1);
        CHECK(integer(entry(t.at("histogram"), "name", "EXP").at("count")) == 1);
        CHECK(integer(entry(t.at("histogram"), "name", "TRANSPOSE").at("count")) <= 2);
        auto text = run_tool("nnef-info", quoted(classifier_folder()));
        REQUIRE(text.code == 0);
        CHECK(contains(text.out, "TOSA operators (PRO-FP, level 8K): " + std::to_string(sum) + "\n"));
        CHECK(contains(text.out, "  CONV2D: 3\n"));
        auto skipped = run_tool("nnef-info", "--no-tosa --format json " + quoted(classifier_folder()));
        REQUIRE(skipped.code == 0);
        CHECK_FALSE(parse_json(skipped.out).contains("tosa"));
        CHECK(contains(run_tool("nnef-info", "--help").out, "--no-tosa"));

        // A custom operation has no TOSA form: the model is still described, with the reason.
        auto p = nnef_test::write_scratch("info-tosa-custom/graph.nnef",
                                          "version 1.0;\nextension KHR_enable_fragment_definitions;\n"
                                          "fragment mystery( x: tensor<scalar> ) -> ( y: tensor<scalar> );\n"
                                          "graph G( x ) -> ( y )\n{\n    x = external(shape = [1, 3, 8, 8]);\n"
                                          "    y = mystery(x);\n}\n");
        auto c = run_tool("nnef-info", "--format json " + quoted(p));
        REQUIRE(c.code == 0);
        auto cv = parse_json(c.out);
        CHECK_FALSE(cv.at("tosa").at("lowered").get<bool>());
        CHECK(contains(cv.at("tosa").at("reason").get<std::string>(), "mystery"));
        CHECK(contains(run_tool("nnef-info", quoted(p)).out, "TOSA operators: not lowered: "));
    }

    TEST_CASE("nnef-info on a folder, .tar and .tgz with stored weights") {
        fs::path dir = classifier_folder();
        fs::path tar = nnef_test::scratch_dir() / "info-classifier.tar", tgz = nnef_test::scratch_dir() / "info-classifier.tgz";
        REQUIRE(std::system(("tar -C " + quoted(dir) + " -cf " + quoted(tar) + " .").c_str()) == 0);
        REQUIRE(std::system(("tar -C " + quoted(dir) + " -czf " + quoted(tgz) + " .").c_str()) == 0);
        for (const fs::path& model : {dir, tar, tgz}) {
            CAPTURE(model);
            auto r = run_tool("nnef-info", quoted(model));
            REQUIRE(r.code == 0);
            CHECK(contains(r.out, "as stored in the tensor files\n"));
            // Bytes from the stored widths: 4608 8-bit codes, 432 float16, 320 4-bit codes, 58 float32.
            CHECK(contains(r.out, "  linear_quantized8: 1 tensor, 4608 elements, 4608 bytes\n"));
            CHECK(contains(r.out, "  float16: 1 tensor, 432 elements, " + std::to_string(432 * 2) + " bytes\n"));
            CHECK(contains(r.out, "  float32: 3 tensors, 58 elements, " + std::to_string(58 * 4) + " bytes\n"));
            CHECK(contains(r.out, "  linear_quantized4: 1 tensor, 320 elements, " + std::to_string(320 / 2) + " bytes\n"));
            CHECK(contains(r.out, "parameters: 6 tensors (6 variables), 5418 elements (5.42 k), " +
                                 std::to_string(4608 + 864 + 232 + 160) + " bytes"));
            CHECK(contains(r.out, "quantization: 2 tensors quantized\n"
                             "  linear_quantize: 1 tensor from graph.quant, 0 operations in the graph\n"
                             "  logarithmic_quantize: 1 tensor from graph.quant, 0 operations in the graph\n"));
        }
        // --no-weights: nominal sizes, said so.
        auto n = run_tool("nnef-info", "--no-weights --format json " + quoted(tgz));
        REQUIRE(n.code == 0);
        auto v = parse_json(n.out);
        CHECK(v.at("parameters").at("bytes_source") == "nominal");
        CHECK(integer(v.at("parameters").at("bytes")) == 5418 * 4);
        // -o FILE
        fs::path out = nnef_test::scratch_dir() / "info.txt";
        auto o = run_tool("nnef-info", "-o " + quoted(out) + " " + quoted(tar));
        CHECK(o.code == 0);
        CHECK(o.out.empty());
        CHECK(contains(nnef_test::read_text(out), "graph: classifier\n"));
    }

    TEST_CASE("nnef-info --format json") {
        auto r = run_tool("nnef-info", "--format json " + quoted(classifier_folder()));
        REQUIRE(r.code == 0);
        CHECK(r.err.empty());
        auto v = parse_json(r.out);
        REQUIRE(v.is_object());
        CHECK(v.at("graph") == "classifier");
        CHECK(entry(v.at("inputs"), "name", "image").at("shape").size() == 4);
        CHECK(integer(v.at("operations").at("total")) == 16);
        CHECK(v.at("operations").at("histogram").front().at("name") == "variable");
        CHECK(integer(v.at("macs").at("total")) == 16 * 32 * 32 * 27 + 32 * 8 * 8 * 144 + 10 * 32);
        CHECK(v.at("macs").at("complete").get<bool>());
        CHECK(v.at("parameters").at("bytes_source") == "stored");
        CHECK(integer(entry(v.at("parameters").at("by_dtype"), "dtype", "float16").at("bytes")) == 864);
        CHECK(integer(v.at("quantization").at("quantized_tensors")) == 2);
        CHECK(integer(entry(v.at("quantization").at("by_algorithm"), "algorithm", "logarithmic_quantize").at("attached")) == 1);
        CHECK(v.at("diagnostics").is_array());
    }

    TEST_CASE("nnef-info errors, --help") {
        auto bad = nnef_test::write_scratch("info-bad/graph.nnef", "version 1.0;\ngraph G( x ) -> ( y )\n{\n    y = relu(x);\n}\n");
        auto r = run_tool("nnef-info", quoted(bad));
        CHECK(r.code == 1);
        CHECK(r.out.empty());
        CHECK(contains(r.err, "error[semantic]"));
        auto j = run_tool("nnef-info", "--format json " + quoted(bad));
        CHECK(j.code == 1);
        CHECK(j.err.empty());  // one document on stdout, the diagnostics in it
        CHECK(parse_json(j.out).at("diagnostics").at(0).at("stage") == "semantic");
        auto missing = run_tool("nnef-info", "/nonexistent/model");
        CHECK(missing.code == 2);
        CHECK(missing.out.empty());
        CHECK(!missing.err.empty());
        CHECK(run_tool("nnef-info", "").code == 2);
        CHECK(run_tool("nnef-info", "--format yaml x").code == 2);
        auto h = run_tool("nnef-info", "--help");
        CHECK(h.code == 0);
        CHECK(contains(h.out, "usage: nnef-info"));
        CHECK(contains(h.out, "output volume x input channels / groups x kernel spatial volume"));
        CHECK(contains(h.out, "--expand-all"));
        CHECK(contains(h.out, "-o FILE"));
    }

    TEST_CASE("nnef-info on real exported models") {
        NNEF_REQUIRE_CORPUS();
        const fs::path real = nnef_test::corpus_dir() / "real";
        SUBCASE("resnet18: parameters and MACs from the torchvision architecture") {
            std::uint64_t conv_weights = 0, conv_macs = 0;
            for (const ConvLayer& c : resnet18_convs()) {
                conv_weights += c.cin * c.cout * c.k * c.k;
                conv_macs += c.cin * c.cout * c.k * c.k * c.out * c.out;
            }
            const std::uint64_t fc_weights = 512 * 1000, fc_bias = 1000;
            const std::uint64_t bn_channels = 64 + 4 * 64 + 5 * 128 + 5 * 256 + 5 * 512;  // every BatchNorm2d
            // torchvision's published count: conv and fc weights, fc bias, BatchNorm weight and bias.
            CHECK(conv_weights + fc_weights + fc_bias + 2 * bn_channels == 11689512);
            // The export folds each BatchNorm into its conv as a bias, and the converter stores equal
            // initialisers once: the folded biases of the untrained (identity) BatchNorms are equal
            // per width, so the graph has one bias per width (64, 128, 256, 512).
            const std::uint64_t exported = conv_weights + fc_weights + fc_bias + (64 + 128 + 256 + 512);
            const std::uint64_t macs = conv_macs + fc_weights;
            CHECK(macs == 1814073344);  // the published ~1.81 G
            for (const char* args : {"--no-weights ", ""}) {
                CAPTURE(args);
                fs::path model = *args ? real / "resnet18" : real / "resnet18" / "graph.nnef";
                auto r = run_tool("nnef-info", std::string(args) + "--format json " + quoted(model));
                REQUIRE(r.code == 0);
                auto v = parse_json(r.out);
                CHECK(integer(v.at("parameters").at("elements")) == exported);
                CHECK(integer(v.at("parameters").at("bytes")) == exported * 4);
                CHECK(v.at("parameters").at("bytes_source") == "nominal");
                CHECK(integer(v.at("macs").at("total")) == macs);
                CHECK(integer(entry(v.at("macs").at("by_type"), "name", "conv").at("count")) == conv_macs);
                CHECK(integer(entry(v.at("macs").at("by_type"), "name", "linear").at("count")) == fc_weights);
                CHECK(integer(entry(v.at("operations").at("histogram"), "name", "conv").at("count")) == 20);
            }
        }
        SUBCASE("a folder with weights: bytes are the tensor files' data") {
            const fs::path dir = real / "mobilenet_v2";
            std::uint64_t files = 0, data_bytes = 0;
            for (const auto& e : fs::directory_iterator(dir))
                if (e.path().extension() == ".dat") {
                    ++files;
                    data_bytes += fs::file_size(e.path()) - 128;  // the 128-byte header
                }
            auto r = run_tool("nnef-info", "--format json " + quoted(dir));
            REQUIRE(r.code == 0);
            auto v = parse_json(r.out);
            CHECK(v.at("parameters").at("bytes_source") == "stored");
            CHECK(integer(v.at("parameters").at("tensors")) == files);
            CHECK(integer(v.at("parameters").at("bytes")) == data_bytes);
            // All float32.
            CHECK(integer(entry(v.at("parameters").at("by_dtype"), "dtype", "float32").at("elements")) == data_bytes / 4);
            CHECK(v.at("macs").at("complete").get<bool>());
            // torchvision's mobilenet_v2 is published at 0.30 GFLOPS (MACs) for 224x224.
            const double macs = double(integer(v.at("macs").at("total")));
            CHECK(macs > 0.29e9);
            CHECK(macs < 0.31e9);
        }
        SUBCASE("a custom operation: MACs unknown, not wrong") {
            auto r = run_tool("nnef-info", quoted(real / "gru_small_mirror"));
            REQUIRE(r.code == 0);
            CHECK(contains(r.out, "GRU_v1: 1\n"));
            CHECK(contains(r.out, "MACs: unknown ("));
            CHECK(contains(r.err, "GRU_v1"));
        }
    }

    TEST_CASE("graph.quant quantization: nnef-info and nnef-flatten --shapes") {
        NNEF_REQUIRE_CORPUS();
        const fs::path dir = nnef_test::corpus_dir() / "conformance/quant/01_linear_all_tensors";
        auto f = run_tool("nnef-flatten", "--shapes " + quoted(dir));
        REQUIRE(f.code == 0);
        CHECK(contains(f.out, "  # input: scalar[1,3,8,8] quantized linear_quantize(min = 0.0, max = 1.0, bits = 8)\n"));
        CHECK(contains(f.out, "  # w: scalar[4,3,3,3] quantized linear_quantize(min = -1.0, max = 1.0, bits = 8)\n"));
        CHECK(contains(f.out, "  # b: scalar[1,4] quantized linear_quantize(min = -1.0, max = 1.0, bits = 8)\n"));
        CHECK(contains(f.out, "  # c: scalar[1,4,8,8] quantized linear_quantize(min = -4.0, max = 4.0, bits = 16)\n"));
        CHECK(contains(f.out, "  # output: scalar[1,4,8,8] quantized linear_quantize(min = 0.0, max = 4.0, bits = 8)\n"));
        auto r = run_tool("nnef-info", quoted(dir));
        REQUIRE(r.code == 0);
        CHECK(contains(r.out, "quantization: 5 tensors quantized\n"
                         "  linear_quantize: 5 tensors from graph.quant, 0 operations in the graph\n"));
        // conv: output [1,4,8,8] x 3*3*3.
        CHECK(contains(r.out, "MACs: " + std::to_string(4 * 8 * 8 * 27) + " "));
        CHECK(contains(r.out, "  float32: 1 tensor, 108 elements, 432 bytes\n"));
    }
}
