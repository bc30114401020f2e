// The MLIR emitter (lowering/tosa/mlir.hpp) on hand-built graphs, checked by MLIR 22 itself:
// mlir-opt's strict TOSA validation accepts every emitted file, and mlir-runner executes one with
// the results computed here by hand.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdio>
#include <set>
#include <sstream>
#include <string>

#include <nnef/diagnostics.hpp>

#include "lowering/tosa/mlir.hpp"
#include "lowering/tosa/validator.hpp"
#include "mlir_support.hpp"
#include "zoo_graphs.hpp"

using namespace nnef::tosa;
using namespace nnef_test;

namespace {

std::size_t count(const std::string& text, const std::string& what) {
    std::size_t n = 0;
    for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
    return n;
}

}  // namespace

TEST_SUITE("mlir") {
    TEST_CASE("the test graphs use every operator of ops.def") {
        std::set<OpKind> kinds;
        for (const Graph& g : {fp32_zoo(), int_zoo(), extension_zoo()})
            for (const Block& b : g.blocks)
                for (const Op& op : b.ops) kinds.insert(op.kind);
        for (std::size_t k = 0; k < op_kind_count; ++k) {
            const std::string name = to_string(static_cast<OpKind>(k));
            CAPTURE(name);
            CHECK(kinds.count(static_cast<OpKind>(k)) == 1);
        }
    }

    TEST_CASE("the test graphs are valid TOSA by our own validator too") {
        const std::vector<std::pair<Graph, ValidateOptions>> cases = {
            {fp32_zoo(), {Profile::pro_fp, Level::eight_k(), {}, {}}},
            {int_zoo(), {Profile::pro_int, Level::eight_k(), {}, {}}},
            {extension_zoo(), {Profile::pro_fp, Level::eight_k(), {"EXT-CONTROLFLOW", "EXT-VARIABLE", "EXT-FFT"}, {}}}};
        for (const auto& c : cases) {
            const auto& g = c.first;  // not a structured binding: CAPTURE's lambda takes it (clang 14, C++17)
            const auto& options = c.second;
            CAPTURE(g.name);
            nnef::Diagnostics d;
            CHECK(validate(g, options, d));
            CHECK(d.empty());
        }
    }

    TEST_CASE("types and constants in MLIR's spelling") {
        CHECK(mlir_type({DType::fp32, {1, 3, 224, 224}}) == "tensor<1x3x224x224xf32>");
        CHECK(mlir_type({DType::bool_, {}}) == "tensor<i1>");
        CHECK(mlir_type({DType::i48, {2}}) == "tensor<2xi48>");
        CHECK(mlir_type({DType::shape, {4}}) == "!tosa.shape<4>");
        CHECK(mlir_element_type(DType::bf16) == "bf16");
        // 1.0f is 0x3F800000, 2.0f 0x40000000: little-endian bytes.
        CHECK(mlir_dense_attr(*TosaBuilder::data<float>(DType::fp32, {2}, {1.0f, 2.0f})) ==
              "dense<\"0x0000803F00000040\"> : tensor<2xf32>");
        // Equal items: one item, which MLIR reads as a splat.
        CHECK(mlir_dense_attr(*TosaBuilder::data<float>(DType::fp32, {2, 2}, {1.0f, 1.0f, 1.0f, 1.0f})) ==
              "dense<\"0x0000803F\"> : tensor<2x2xf32>");
        CHECK(mlir_dense_attr(*TosaBuilder::data<std::int16_t>(DType::i16, {2}, {1, -2})) ==
              "dense<\"0x0100FEFF\"> : tensor<2xi16>");
        // i48 is stored as int64 and written with 6 bytes per item.
        CHECK(mlir_dense_attr(*TosaBuilder::data<std::int64_t>(DType::i48, {2}, {-1, 256})) ==
              "dense<\"0xFFFFFFFFFFFF000100000000\"> : tensor<2xi48>");
        CHECK(mlir_dense_attr(*TosaBuilder::data<std::uint8_t>(DType::bool_, {2, 2}, {1, 0, 0, 1})) ==
              "dense<[[true, false], [false, true]]> : tensor<2x2xi1>");
        CHECK(mlir_dense_attr(*TosaBuilder::data<std::uint16_t>(DType::fp16, {1}, {fp32_to_fp16(1.0f)})) ==
              "dense<\"0x003C\"> : tensor<1xf16>");
    }

    TEST_CASE("hexadecimal data: every byte value, at lengths around the encoders' 16- and 32-byte blocks") {
        for (const std::int64_t n : {std::int64_t(1), std::int64_t(15), std::int64_t(16), std::int64_t(17), std::int64_t(31), std::int64_t(32),
                                     std::int64_t(33), std::int64_t(513)}) {
            CAPTURE(n);
            std::vector<std::int8_t> items(static_cast<std::size_t>(n));
            std::string digits;
            for (std::int64_t i = 0; i < n; ++i) {
                const unsigned byte = static_cast<unsigned>((i * 37 + 11) % 256);  // every value for n = 513
                items[static_cast<std::size_t>(i)] = static_cast<std::int8_t>(byte);
                char two[3];
                std::snprintf(two, sizeof two, "%02X", byte);
                digits += two;
            }
            CHECK(mlir_dense_attr(*TosaBuilder::data<std::int8_t>(DType::i8, {n}, items)) ==
                  "dense<\"0x" + digits + "\"> : tensor<" + std::to_string(n) + "xi8>");
        }
    }

    TEST_CASE("the module: one function named after the graph, generic operators") {
        const Graph g = fp32_zoo();
        const std::string text = to_mlir(g);
        CHECK(text.find("func.func @fp32_zoo(%x: tensor<1x4x4x2xf32>) -> (tensor<1x1x1x1xf32>, tensor<1x4x4xi32>,") !=
              std::string::npos);
        CHECK(text.find("\"tosa.conv2d\"(%x, ") != std::string::npos);
        CHECK(text.find("acc_type = f32, ") != std::string::npos);
        CHECK(text.find("perms = array<i32: 0, 3, 1, 2>") != std::string::npos);
        CHECK(text.find("max_val = 0x7F800000 : f32") != std::string::npos);  // relu's +inf
        CHECK(text.find("#tosa.nan_mode<IGNORE>") != std::string::npos);
        CHECK(text.find("#tosa.resize_mode<NEAREST_NEIGHBOR>") != std::string::npos);
        // No extension: the target as a comment, not an attribute MLIR 22 cannot read back.
        CHECK(text.find("module {") != std::string::npos);
        CHECK(text.find("tosa.target_env") == std::string::npos);
        CHECK(text.find("--tosa-attach-target=\"profiles=pro_fp level=8k\"") != std::string::npos);
        // The rank-4 PAD (two padded axes) became two PADs on rank-3 views.
        CHECK(count(text, "\"tosa.pad\"") == 2);
        CHECK(text.find("!tosa.shape<8>") == std::string::npos);
        MlirOptions keep;
        keep.split_wide_pads = false;
        const std::string unsplit = to_mlir(g, keep);
        CHECK(count(unsplit, "\"tosa.pad\"") == 1);
        CHECK(unsplit.find("!tosa.shape<8>") != std::string::npos);
        MlirOptions none;
        none.level = Level::none();
        CHECK(count(to_mlir(g, none), "\"tosa.pad\"") == 1);  // MAX_RANK 32: no MLIR 22 problem
        // The helper values of a split PAD never take a name an NNEF tensor has.
        Graph named = g;
        named.values.at(0).name = "pad_view0";
        const std::string renamed = to_mlir(named);
        CHECK(count(renamed, "%pad_view0 =") == 0);
        CHECK(count(renamed, "%pad_view0: tensor<1x4x4x2xf32>") == 1);
    }

    TEST_CASE("weights elided or as resource blobs") {
        const Graph g = fp32_zoo();
        MlirOptions elide;
        elide.elide_weights = true;
        const std::string elided = to_mlir(g, elide);
        CHECK(count(elided, "dense_resource<__elided__> : tensor<2x3x3x2xf32>") == 1);
        CHECK(elided.find("dense<\"0x00000000\"> : tensor<1xf32>") != std::string::npos);  // zero points stay
        MlirOptions blobs;
        blobs.resource_blobs = true;
        const std::string with_blobs = to_mlir(g, blobs);
        CHECK(with_blobs.find("dialect_resources: {") != std::string::npos);
        CHECK(with_blobs.find("dense_resource<c") != std::string::npos);
    }

    TEST_CASE("write_mlir streams the same text as to_mlir, weights inline or as blobs") {
        // Three constants of 1.2 MB (2.4 MB of hexadecimal each): the stream is flushed between
        // operators (every 4 MiB), so the text goes out in more than one piece; inline, each
        // constant's digits go out in chunks, the last one not a whole number of 16-byte blocks.
        TosaBuilder b("streamed");
        const ValueId x = b.input(DType::fp32, {300001}, "x");
        ValueId v = x;
        for (int k = 0; k < 3; ++k) {
            std::vector<float> items(300001);
            for (std::size_t i = 0; i < items.size(); ++i) items[i] = static_cast<float>(i % 977) * 0.125f - static_cast<float>(k);
            v = b.op(OpKind::ADD, {v, b.f32({300001}, items)}, DType::fp32, {300001});
        }
        b.output(v);
        for (const bool blobs : {false, true}) {
            CAPTURE(blobs);
            MlirOptions o;
            o.resource_blobs = blobs;
            const std::string whole = to_mlir(b.g, o);
            CHECK(whole.size() > 7000000);
            std::ostringstream streamed;
            CHECK(write_mlir(streamed, b.g, o));
            CHECK(streamed.str() == whole);
        }
    }

    TEST_CASE("extensions: the target environment is written so that MLIR reads it back") {
        const Graph g = extension_zoo();
        CHECK(mlir_extensions(g) == std::vector<std::string>{"controlflow", "fft", "variable"});
        const std::string text = to_mlir(g);
        CHECK(text.find("module attributes {tosa.target_env = #tosa.target_env<specification_version = \"1.0\", "
                        "level = \"8k\", profiles = [pro_fp], extensions = [controlflow, fft, variable]>} {") !=
              std::string::npos);
        CHECK(text.find("\"tosa.variable\"() <{sym_name = \"state\", var_shape = dense<[2, 3]> : tensor<2xindex>, type = f32, "
                        "initial_value = dense<") != std::string::npos);
        CHECK(text.find("\"tosa.yield\"") != std::string::npos);
        CHECK(text.find("implementation_attrs = \"alpha=\\221\\22\"") != std::string::npos);
        NNEF_REQUIRE_MLIR_OPT();
        // As written (its own target environment) and with the target attached from outside.
        const auto file = mlir_scratch("extensions.mlir");
        write_file(file, text);
        CommandResult r = run_command(mlir_quote(mlir_opt().string()) + " --tosa-validate=strict-op-spec-alignment " +
                                      mlir_quote(file.string()) + " -o /dev/null");
        CHECK_MESSAGE(r.code == 0, r.err);
        r = mlir_validate(text, "pro_fp", "8k", "controlflow,fft,variable");
        CHECK_MESSAGE(r.code == 0, r.err);
        // Without the extensions MLIR refuses: the check is real.
        r = mlir_validate(text, "pro_fp", "8k");
        CHECK(r.code != 0);
        CHECK(r.err.find("requires [controlflow]") != std::string::npos);
    }

    TEST_CASE("mlir-opt strict validation accepts the fp32 and integer graphs") {
        NNEF_REQUIRE_MLIR_OPT();
        const Graph fp = fp32_zoo();
        CommandResult r = mlir_validate(to_mlir(fp), "pro_fp");
        CHECK_MESSAGE(r.code == 0, r.err);
        MlirOptions elide;
        elide.elide_weights = true;
        r = mlir_validate(to_mlir(fp, elide), "pro_fp");
        CHECK_MESSAGE(r.code == 0, r.err);
        MlirOptions blobs;
        blobs.resource_blobs = true;
        r = mlir_validate(to_mlir(fp, blobs), "pro_fp");
        CHECK_MESSAGE(r.code == 0, r.err);
        MlirOptions none;
        none.level = Level::none();
        r = mlir_validate(to_mlir(fp, none), "pro_fp", "none");
        CHECK_MESSAGE(r.code == 0, r.err);
        // MLIR 22's MAX_RANK check of !tosa.shape operands: the unsplit rank-4 PAD is refused at 8K.
        MlirOptions keep;
        keep.split_wide_pads = false;
        r = mlir_validate(to_mlir(fp, keep), "pro_fp");
        CHECK(r.code != 0);
        CHECK(r.err.find("MAX_RANK") != std::string::npos);

        const Graph in = int_zoo();
        CHECK(mlir_profiles(in) == std::vector<std::string>{"pro_int"});
        r = mlir_validate(to_mlir(in), "pro_int");
        CHECK_MESSAGE(r.code == 0, r.err);
        // The integer graph is no PRO-FP graph: MLIR says so.
        r = mlir_validate(to_mlir(in), "pro_fp");
        CHECK(r.code != 0);
    }
}
