// TOSA validator benchmark: the time nnef::tosa::validate takes on a ResNet-50-sized graph (the one of
// tests/unit/tosa/validator_test.cpp, "a ResNet-50-sized graph validates without reading a weight"):
// 53 pairs of 1x1 convolutions (256 -> per -> 256 channels) with 25.5M fp32 weights as views of one
// buffer, each with its bias, zero points and a CLAMP, every fourth pair an ADD (about 600
// operators). Prints the median and the fastest of R runs (default 21) at PRO-FP, level 8K.
//
//   nnef-tosa-validate-bench [R]
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <vector>

#include "lowering/tosa/validator.hpp"

namespace {

using namespace nnef::tosa;
using I64 = std::int64_t;

struct Built {
    Graph g;
    I64 weights = 0;
};

Built resnet50_sized() {
    Built r;
    Graph& g = r.g;
    g.name = "bench";
    Origin o;
    o.operation = "conv";
    o.tensor = "y";
    const std::uint32_t origin = g.add_origin(o);
    const DType f32 = DType::fp32;
    auto cst = [&](nnef::Shape s) { return g.add_const(0, ConstData::allocate(TensorType{f32, std::move(s)}), origin); };
    auto op = [&](OpKind k, std::vector<ValueId> ins, nnef::Shape s, std::vector<std::pair<AttrName, Attr>> attrs = {}) {
        return g.add_op(0, k, std::move(ins), {TensorType{f32, std::move(s)}}, std::move(attrs), origin).outputs[0];
    };
    const std::vector<std::pair<AttrName, Attr>> conv1x1{{AttrName::pad, std::vector<I64>{0, 0, 0, 0}},
                                                         {AttrName::stride, std::vector<I64>{1, 1}},
                                                         {AttrName::dilation, std::vector<I64>{1, 1}},
                                                         {AttrName::acc_type, AccType::FP32}};
    const I64 total = 25'500'000;
    const I64 per = total / 53 / 512;
    std::shared_ptr<float[]> storage(new float[std::size_t(per * 256 * 53)]());
    ValueId x = g.add_value(TensorType{f32, {1, 56, 56, 256}});
    g.main().inputs.push_back(x);
    I64 offset = 0;
    ValueId skip = x;
    for (int layer = 0; layer < 53; ++layer) {
        const float* items = storage.get() + offset;
        offset += per * 256;
        const ValueId w1 = g.add_const(0, ConstData::view(TensorType{f32, {per, 1, 1, 256}}, storage, items), origin);
        const ValueId w2 = g.add_const(0, ConstData::view(TensorType{f32, {256, 1, 1, per}}, storage, items), origin);
        r.weights += 2 * per * 256;
        const ValueId y = op(OpKind::CONV2D, {x, w1, cst({per}), cst({1}), cst({1})}, {1, 56, 56, per}, conv1x1);
        ValueId z = op(OpKind::CONV2D, {y, w2, cst({256}), cst({1}), cst({1})}, {1, 56, 56, 256}, conv1x1);
        z = op(OpKind::CLAMP, {z}, {1, 56, 56, 256},
               {{AttrName::min_val, 0.0}, {AttrName::max_val, 6.0}, {AttrName::nan_mode, NanMode::PROPAGATE}});
        if (layer % 4 == 3) {
            z = op(OpKind::ADD, {z, skip}, {1, 56, 56, 256});
            skip = z;
        }
        x = z;
    }
    g.main().outputs.push_back(x);
    return r;
}

}  // namespace

int main(int argc, char** argv) {
    const int repeat = argc > 1 ? std::atoi(argv[1]) : 21;
    if (repeat < 1) {
        std::fprintf(stderr, "usage: nnef-tosa-validate-bench [REPEAT >= 1]\n");
        return 2;
    }
    const Built b = resnet50_sized();
    ValidateOptions options;
    std::vector<double> ms;
    for (int k = 0; k < repeat; ++k) {
        nnef::Diagnostics d(100);
        const auto t0 = std::chrono::steady_clock::now();
        const bool ok = validate(b.g, options, d);
        ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
        if (!ok) {
            for (const nnef::Diagnostic& x : d) std::fprintf(stderr, "error: %s\n", x.message.c_str());
            return 1;
        }
    }
    std::sort(ms.begin(), ms.end());
    std::printf("validate: %zu operators, %lld weights: median %.3f ms, fastest %.3f ms (%d runs)\n", b.g.op_count(),
                static_cast<long long>(b.weights), ms[ms.size() / 2], ms.front(), repeat);
    return 0;
}
