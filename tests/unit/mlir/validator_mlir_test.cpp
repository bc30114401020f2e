// The TOSA validator against MLIR 22's own TOSA validator (mlir-opt --tosa-validate with
// strict-op-spec-alignment), an independent implementation of the same specification: the valid
// graph of every operator passes it, and graphs that the validator refuses (levels, ERROR_IFs,
// type tables, nesting, list sizes) are refused by it too. Skipped with a message without mlir-opt.
#include <doctest/doctest.h>

#include "unit/mlir/mlir_support.hpp"
#include "unit/tosa/validator_cases.hpp"

TEST_SUITE("mlir") {
    TEST_CASE("TOSA validator: its valid graphs pass MLIR 22's TOSA validator (an independent implementation)") {
        NNEF_REQUIRE_MLIR_OPT();
        for (const ValidCase& vc : valid_cases()) {
            const std::string name = to_string(vc.kind);
            CAPTURE(name);
            G b;
            vc.build(b);
            const std::string exts = mlir_extension_list(vc.extensions);
            const nnef_test::CommandResult r =
                nnef_test::mlir_validate(to_mlir(b.g), vc.profile == Profile::pro_int ? "pro_int" : "pro_fp", "8k", exts);
            CHECK_MESSAGE(r.code == 0, r.err);
        }
    }

    TEST_CASE("TOSA validator: what it refuses, MLIR 22's TOSA validator refuses too") {
        NNEF_REQUIRE_MLIR_OPT();
        struct Bad {
            const char* what;
            Graph g;
            ValidateOptions o;
            const char* mlir_profile;
        };
        const ValidateOptions cf = opts(Profile::pro_fp, {"EXT-CONTROLFLOW"});
        std::vector<Bad> bad = {
            {"rank 7", build([](G& b) { b.out(b.op(OpKind::ABS, {b.in(f32, {1, 1, 1, 1, 1, 2, 2})}, T(f32, {1, 1, 1, 1, 1, 2, 2}))); }),
             opts(), "pro_fp"},
            {"kernel 8193", pool(OpKind::MAX_POOL2D, {1, 8193, 1, 1}, {1, 1, 1, 1}, {8193, 1}, {1, 1}, {0, 0, 0, 0}), opts(), "pro_fp"},
            {"stride 8193", pool(OpKind::AVG_POOL2D, {1, 1, 8194, 1}, {1, 1, 2, 1}, {1, 1}, {1, 8193}, {0, 0, 0, 0}), opts(), "pro_fp"},
            {"not divisible", conv({1, 224, 224, 3}, {64, 7, 7, 3}, {1, 112, 112, 64}, {3, 3, 3, 3}, {2, 2}, {1, 1}), opts(), "pro_fp"},
            {"pad >= kernel", pool(OpKind::AVG_POOL2D, {1, 6, 6, 1}, {1, 4, 4, 1}, {2, 2}, {2, 2}, {2, 2, 0, 0}), opts(), "pro_fp"},
            {"scale 300", resize({1, 2, 2, 1}, {1, 301, 301, 1}, {300, 1, 300, 1}, {0, 0}, {0, 0}), opts(), "pro_fp"},
            {"bf16 without EXT-BF16",
             build([](G& b) { b.out(b.op(OpKind::ADD, {b.in(DType::bf16, {2}), b.in(DType::bf16, {2})}, T(DType::bf16, {2}))); }),
             opts(), "pro_fp"},
            {"i8 conv at PRO-FP", build([](G& b) {
                 ValueId x = b.in(DType::i8, {1, 3, 3, 1});
                 b.out(b.op(OpKind::CONV2D, {x, b.cst(DType::i8, {2, 1, 1, 1}), b.cst(DType::i32, {2}), b.zp(DType::i8), b.zp(DType::i8)},
                            T(DType::i32, {1, 3, 3, 2}), conv_attrs({0, 0, 0, 0}, {1, 1}, {1, 1}, AccType::INT32)));
             }),
             opts(), "pro_fp"},
            {"nesting 7", nested_cond_if(7), cf, "pro_fp"},
            {"65 inputs", build([](G& b) {
                 std::vector<ValueId> vs;
                 for (int n = 0; n < 65; ++n) vs.push_back(b.in(f32, {1}));
                 b.out(b.op(OpKind::CONCAT, vs, T(f32, {65}), {{AttrName::axis, i(0)}}));
             }),
             opts(), "pro_fp"},
            {"clamp max < min", build([](G& b) {
                 b.out(b.op(OpKind::CLAMP, {b.in(f32, {2})}, T(f32, {2}),
                            {{AttrName::min_val, 1.0}, {AttrName::max_val, -1.0}, {AttrName::nan_mode, NanMode::PROPAGATE}}));
             }),
             opts(), "pro_fp"},
        };
        for (const Bad& x : bad) {
            CAPTURE(std::string(x.what));
            CHECK(errors(x.g, x.o) != "");
            const std::string exts = mlir_extension_list(x.o.extensions);
            const nnef_test::CommandResult r = nnef_test::mlir_validate(to_mlir(x.g), x.mlir_profile, "8k", exts);
            CHECK_MESSAGE(r.code != 0, "mlir-opt accepted it");
        }
    }
}
