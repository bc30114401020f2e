// The TOSA IR: the operator table read from ops.def, graph building, the text dump, and the 16-bit
// float conversions.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <set>
#include <stdexcept>
#include <string>

#include "lowering/tosa/ir.hpp"
#include "lowering/tosa/passes/passes.hpp"

using namespace nnef::tosa;

namespace ir_test {
float from_bits(std::uint32_t u) {
    float f;
    std::memcpy(&f, &u, sizeof f);
    return f;
}

TEST_SUITE("tosa") {
    TEST_CASE("operator table") {
        // Every operator of the spec's chapter 2 (sections 2.3 to 2.18): 75 operators.
        CHECK(op_kind_count == 75);
        std::set<std::string> names, mnemonics;
        for (std::size_t k = 0; k < op_kind_count; ++k) {
            const OpInfo& info = op_info(static_cast<OpKind>(k));
            CAPTURE(info.name);
            CHECK(info.kind == static_cast<OpKind>(k));
            CHECK(names.insert(info.name).second);
            CHECK(mnemonics.insert(info.mnemonic).second);
            CHECK(op_kind_from_string(info.name) == info.kind);
            CHECK(info.section.rfind("2.", 0) == 0);
        }
        SUBCASE("arguments and attributes in the spec's order") {
            const OpInfo& conv = op_info(OpKind::CONV2D);
            CHECK(conv.inputs == std::vector<std::string>{"input", "weight", "bias", "input_zp", "weight_zp"});
            CHECK(conv.outputs == std::vector<std::string>{"output"});
            REQUIRE(conv.attributes.size() == 5);
            CHECK(conv.attributes[0].name == AttrName::pad);
            CHECK(conv.attributes[0].kind == AttrKind::i32s);
            CHECK(conv.attributes[3].kind == AttrKind::acc);
            CHECK(conv.attributes[4].optional);
            CHECK_FALSE(conv.attributes[0].optional);
            CHECK(conv.attribute(AttrName::dilation) != nullptr);
            CHECK(conv.attribute(AttrName::axis) == nullptr);
        }
        SUBCASE("tensor lists") {
            CHECK(op_info(OpKind::CONCAT).variadic_inputs);
            CHECK(op_info(OpKind::CONCAT).inputs == std::vector<std::string>{"input1"});
            CHECK(op_info(OpKind::COND_IF).inputs == std::vector<std::string>{"condition", "input_list"});
            CHECK(op_info(OpKind::COND_IF).variadic_outputs);
            CHECK_FALSE(op_info(OpKind::ADD).variadic_inputs);
        }
        SUBCASE("operators without results") {
            CHECK(op_info(OpKind::VARIABLE).outputs.empty());
            CHECK(op_info(OpKind::VARIABLE_WRITE).outputs.empty());
            CHECK(op_info(OpKind::VARIABLE).attribute(AttrName::initial_value)->optional);
        }
        CHECK_FALSE(op_kind_from_string("CONV").has_value());
        CHECK(attr_name_from_string("rounding_mode") == AttrName::rounding_mode);
        CHECK_FALSE(attr_name_from_string("padding").has_value());
    }

    TEST_CASE("element types") {
        CHECK(storage_bytes(DType::i48) == 8);
        CHECK(storage_bytes(DType::bool_) == 1);
        CHECK(storage_bytes(DType::fp16) == 2);
        CHECK(integer_bits(DType::i48) == 48);
        CHECK(integer_bits(DType::fp32) == 0);
        CHECK(is_float(DType::bf16));
        CHECK_FALSE(is_float(DType::i32));
        CHECK(dtype_from_string("fp16") == DType::fp16);
        CHECK_FALSE(dtype_from_string("f16").has_value());
        CHECK(to_string(TensorType{DType::fp32, {1, 3, 224, 224}}) == "fp32[1,3,224,224]");
        CHECK(TensorType{DType::i8, {}}.volume() == 1);
    }

    TEST_CASE("constant storage: zeroed, aligned and writable in every size class (heap, mapped, huge pages)") {
        // 2 items to 5 MiB and an odd size over 2 MiB: the heap, fresh mappings, 2 MiB-aligned ones.
        for (const std::int64_t n : {std::int64_t(2), std::int64_t(70000), std::int64_t(524288 + 12345), std::int64_t(1310720)}) {
            CAPTURE(n);
            auto c = ConstData::allocate({DType::fp32, {n}});
            CHECK(reinterpret_cast<std::uintptr_t>(c->data) % 8 == 0);
            float* items = c->mutable_items<float>();
            bool zero = true;
            for (std::int64_t i = 0; i < n; ++i) zero = zero && items[i] == 0.0f;
            CHECK(zero);
            items[0] = 1.0f;
            items[n - 1] = 2.0f;
            CHECK(c->items<float>()[n - 1] == 2.0f);
        }
    }

    TEST_CASE("constant layouts: permuted items, shared when only extents of 1 move") {
        // in[o][i][h][w] = 1000 o + 100 i + 10 h + w, permuted OIHW -> OHWI: out[o][h][w][i].
        const auto make = [](nnef::Shape shape) {
            auto c = ConstData::allocate({DType::i32, shape});
            std::int32_t* items = c->mutable_items<std::int32_t>();
            std::size_t k = 0;
            for (std::int64_t o = 0; o < shape[0]; ++o)
                for (std::int64_t i = 0; i < shape[1]; ++i)
                    for (std::int64_t h = 0; h < shape[2]; ++h)
                        for (std::int64_t w = 0; w < shape[3]; ++w) items[k++] = std::int32_t(1000 * o + 100 * i + 10 * h + w);
            return ConstPtr(c);
        };
        for (const nnef::Shape& shape : {nnef::Shape{2, 3, 1, 1}, nnef::Shape{2, 3, 2, 2}, nnef::Shape{1, 3, 2, 1}}) {
            CAPTURE(shape.size());
            const ConstPtr in = make(shape);
            const ConstPtr out = passes::permute(*in, {0, 2, 3, 1});
            CHECK(out->type.shape == nnef::Shape{shape[0], shape[2], shape[3], shape[1]});
            std::size_t k = 0, wrong = 0;
            for (std::int64_t o = 0; o < shape[0]; ++o)
                for (std::int64_t h = 0; h < shape[2]; ++h)
                    for (std::int64_t w = 0; w < shape[3]; ++w)
                        for (std::int64_t i = 0; i < shape[1]; ++i)
                            if (out->items<std::int32_t>()[k++] != std::int32_t(1000 * o + 100 * i + 10 * h + w)) ++wrong;
            CHECK(wrong == 0);
            // 1x1 kernels keep their bytes; 2x2 ones, and 3 channels moving past 2 rows, do not.
            CHECK((out->data == in->data) == (shape[2] == 1 && shape[3] == 1));
        }
    }

    TEST_CASE("building a graph") {
        Graph g;
        g.name = "net";
        const ValueId x = g.add_value({DType::fp32, {1, 4, 4, 2}}, "input");
        g.main().inputs.push_back(x);
        auto w = ConstData::allocate({DType::fp32, {3, 1, 1, 2}});
        for (int i = 0; i < 6; ++i) w->mutable_items<float>()[i] = static_cast<float>(i);
        const std::uint32_t origin = g.add_origin(Origin{"conv", "y", {}});
        const ValueId wv = g.add_const(0, w, origin, "filter");
        auto zero = ConstData::allocate({DType::fp32, {1}});
        const ValueId zp = g.add_const(0, zero, origin);
        auto b = ConstData::allocate({DType::fp32, {3}});
        const ValueId bv = g.add_const(0, b, origin);
        Op& conv = g.add_op(0, OpKind::CONV2D, {x, wv, bv, zp, zp}, {{DType::fp32, {1, 4, 4, 3}}},
                            {{AttrName::pad, std::vector<std::int64_t>{0, 0, 0, 0}},
                             {AttrName::stride, std::vector<std::int64_t>{1, 1}},
                             {AttrName::dilation, std::vector<std::int64_t>{1, 1}},
                             {AttrName::acc_type, AccType::FP32}},
                            origin);
        const ValueId y = conv.outputs[0];
        g.main().outputs.push_back(y);

        CHECK(g.op_count() == 4);
        CHECK(g.constant(wv) != nullptr);
        CHECK(g.constant(wv)->items<float>()[5] == 5.0f);
        CHECK(g.constant(x) == nullptr);
        CHECK(g.main().ops.back().get<AccType>(AttrName::acc_type) == AccType::FP32);
        CHECK_THROWS_AS(g.main().ops.back().get<bool>(AttrName::local_bound), std::logic_error);
        const auto producers = g.producers();
        CHECK(producers[y].index == 3);
        CHECK(producers[x].index == nnef::tosa::no_origin);

        const std::string text = to_text(g);
        CAPTURE(text);
        CHECK(text.find("tosa.graph \"net\" profile PRO-FP") != std::string::npos);
        CHECK(text.find("%0:fp32[1,4,4,2]") != std::string::npos);
        CHECK(text.find("CONST() {values=fp32[3,1,1,2] [0, 1, 2, 3, 4, 5]}") != std::string::npos);
        CHECK(text.find("= CONV2D(%0, %1, %3, %2, %2) {pad=[0,0,0,0], stride=[1,1], dilation=[1,1], acc_type=FP32}  # conv 'y'") !=
              std::string::npos);
        CHECK(text.find("return %4") != std::string::npos);

        Op& op = g.main().ops.back();
        op.set(AttrName::local_bound, true);
        op.set(AttrName::acc_type, AccType::FP16);
        CHECK(op.attrs.size() == 5);
        CHECK(op.get<AccType>(AttrName::acc_type) == AccType::FP16);
    }

    TEST_CASE("fp16 and bf16 conversions") {
        CHECK(fp32_to_fp16(1.0f) == 0x3c00);
        CHECK(fp32_to_fp16(-2.0f) == 0xc000);
        CHECK(fp32_to_fp16(65504.0f) == 0x7bff);
        CHECK(fp32_to_fp16(65519.0f) == 0x7bff);   // below the midpoint to 65536
        CHECK(fp32_to_fp16(65520.0f) == 0x7c00);   // the midpoint rounds to even: infinity
        CHECK(fp32_to_fp16(0.1f) == 0x2e66);
        CHECK(fp32_to_fp16(std::ldexp(1.0f, -24)) == 0x0001);  // smallest subnormal
        CHECK(fp32_to_fp16(std::ldexp(1.0f, -25)) == 0x0000);  // half of it: ties to even
        CHECK(fp32_to_fp16(std::ldexp(1.5f, -25)) == 0x0001);
        CHECK(fp32_to_fp16(std::ldexp(3.0f, -25)) == 0x0002);  // 1.5 ulp: ties to even (2)
        CHECK(fp32_to_fp16(std::ldexp(1023.0f, -24)) == 0x03ff);  // largest subnormal
        CHECK(fp32_to_fp16(std::ldexp(1.0f, -14)) == 0x0400);     // smallest normal
        CHECK(fp32_to_fp16(1.0f + std::ldexp(1.0f, -11)) == 0x3c00);  // tie, even stays
        CHECK(fp32_to_fp16(1.0f + 3 * std::ldexp(1.0f, -11)) == 0x3c02);  // tie, odd rounds up
        CHECK(fp32_to_fp16(INFINITY) == 0x7c00);
        CHECK((fp32_to_fp16(NAN) & 0x7c00) == 0x7c00);
        CHECK((fp32_to_fp16(NAN) & 0x03ff) != 0);
        CHECK(fp16_to_fp32(0x3c00) == 1.0f);
        CHECK(fp16_to_fp32(0x0001) == std::ldexp(1.0f, -24));
        CHECK(fp16_to_fp32(0x03ff) == std::ldexp(1023.0f, -24));
        CHECK(fp16_to_fp32(0xfbff) == -65504.0f);
        CHECK(std::isinf(fp16_to_fp32(0x7c00)));
        CHECK(std::isnan(fp16_to_fp32(0x7e00)));
        // Every fp16 value converts to fp32 and back to itself.
        for (std::uint32_t h = 0; h < 0x10000; ++h) {
            if ((h & 0x7c00) == 0x7c00 && (h & 0x3ff)) continue;  // NaNs
            if (fp32_to_fp16(fp16_to_fp32(static_cast<std::uint16_t>(h))) != h) {
                CAPTURE(h);
                FAIL("fp16 round trip");
            }
        }
        // A sample of every fp32 bit pattern: the result is the nearest fp16 (ties to the even
        // one), infinity past the midpoint above 65504, and a NaN keeps its sign and top payload
        // bits with the quiet bit set (whichever conversion the processor allows).
        for (std::uint64_t k = 0; k < (1ull << 32); k += 4093) {
            const std::uint32_t u = static_cast<std::uint32_t>(k);
            const float f = from_bits(u);
            const std::uint16_t h = fp32_to_fp16(f);
            bool ok;
            if (std::isnan(f)) {
                ok = h == (((u >> 16) & 0x8000u) | 0x7e00u | ((u >> 13) & 0x3ffu));
            } else if (std::fabs(f) >= 65520.0f) {
                ok = h == (f > 0 ? 0x7c00 : 0xfc00);
            } else {
                const double d = std::fabs(double(f)), got = std::fabs(double(fp16_to_fp32(h)));
                const std::uint16_t mag = h & 0x7fffu;
                const double below = mag ? double(fp16_to_fp32(static_cast<std::uint16_t>(mag - 1))) : -1.0;
                const double above = double(fp16_to_fp32(static_cast<std::uint16_t>(mag + 1)));
                ok = (h & 0x8000u) == ((u >> 16) & 0x8000u) && mag < 0x7c00u && std::fabs(d - got) <= d - below &&
                     std::fabs(d - got) <= above - d &&
                     (std::fabs(d - got) < d - below || (mag & 1u) == 0) && (std::fabs(d - got) < above - d || (mag & 1u) == 0);
            }
            if (!ok) {
                CAPTURE(u);
                CAPTURE(h);
                FAIL("fp32 to fp16 is not the nearest even");
            }
        }
        // The bulk conversion gives fp32_to_fp16's bits for the same sample (eight at a time and the
        // tail), wherever its destination starts.
        {
            std::vector<float> in;
            for (std::uint64_t k = 0; k < (1ull << 32); k += 4093) in.push_back(from_bits(static_cast<std::uint32_t>(k)));
            in.resize(in.size() - in.size() % 8 + 5);  // a tail of 5
            std::vector<std::uint8_t> out(2 * in.size() + 1);
            fp32_to_fp16_bytes(in.data(), in.size(), out.data() + 1);  // (an odd address)
            std::size_t differ = 0;
            for (std::size_t i = 0; i < in.size(); ++i) {
                std::uint16_t h = 0;
                std::memcpy(&h, out.data() + 1 + 2 * i, 2);
                differ += h != fp32_to_fp16(in[i]);
            }
            CHECK(differ == 0);
        }
        CHECK(fp32_to_bf16(1.0f) == 0x3f80);
        CHECK(fp32_to_bf16(from_bits(0x3f808000u)) == 0x3f80);  // tie, even stays
        CHECK(fp32_to_bf16(from_bits(0x3f818000u)) == 0x3f82);  // tie, odd rounds up
        CHECK(fp32_to_bf16(from_bits(0x3f808001u)) == 0x3f81);
        CHECK(bf16_to_fp32(0xc000) == -2.0f);
        CHECK(std::isnan(bf16_to_fp32(fp32_to_bf16(NAN))));
    }
}

}  // namespace ir_test
