// NNAPI interpreter benchmark (docs/nnapi.md, "Figures"): the kernels that dominate a vision model,
// CONV_2D 3x3 and DEPTHWISE_CONV_2D 3x3 on a 56x56x64 input, float32 and quant8, run REPEAT times
// (default 3); prints the best time and the multiply-accumulate rate of each.
//   nnef-nnapi-interpreter-bench [REPEAT]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include <nnef/diagnostics.hpp>

#include "lowering/nnapi/interpreter.hpp"
#include "lowering/nnapi/model.hpp"

using namespace nnef::nnapi;

namespace {

// input [1,56,56,64] -> 3x3 SAME (CONV_2D to 64 channels, or DEPTHWISE_CONV_2D multiplier 1).
Model model(bool quant, bool depthwise) {
    Model m;
    const OperandType t = quant ? OperandType::TENSOR_QUANT8_ASYMM : OperandType::TENSOR_FLOAT32;
    const std::uint32_t in = add_operand(m, t, {1, 56, 56, 64}, quant ? 0.5f : 0.0f, quant ? 128 : 0);
    const std::vector<std::uint32_t> fdims = depthwise ? std::vector<std::uint32_t>{1, 3, 3, 64} : std::vector<std::uint32_t>{64, 3, 3, 64};
    const std::size_t fcount = depthwise ? 9 * 64 : 64 * 9 * 64;
    std::uint32_t filter, bias;
    if (quant) {
        std::vector<std::uint8_t> w(fcount);
        for (std::size_t i = 0; i < fcount; ++i) w[i] = std::uint8_t(120 + i % 17);
        filter = add_constant(m, t, fdims, w.data(), w.size(), 0.01f, 128);
        std::vector<std::int32_t> b(64, 3);
        bias = add_constant(m, OperandType::TENSOR_INT32, {64}, b.data(), b.size() * 4, 0.005f);
    } else {
        std::vector<float> w(fcount);
        for (std::size_t i = 0; i < fcount; ++i) w[i] = float(i % 17) * 0.01f - 0.08f;
        filter = add_constant(m, t, fdims, w.data(), w.size() * 4);
        std::vector<float> b(64, 0.1f);
        bias = add_constant(m, t, {64}, b.data(), b.size() * 4);
    }
    std::vector<std::uint32_t> inputs = {in, filter, bias, add_int32_scalar(m, 1), add_int32_scalar(m, 1), add_int32_scalar(m, 1)};
    if (depthwise) inputs.push_back(add_int32_scalar(m, 1));
    inputs.push_back(add_int32_scalar(m, 1));
    const std::uint32_t out = add_operand(m, t, {1, 56, 56, 64}, quant ? 0.1f : 0.0f, 0);
    add_operation(m, depthwise ? OperationType::DEPTHWISE_CONV_2D : OperationType::CONV_2D, inputs, {out});
    set_inputs_and_outputs(m, {in}, {out});
    return m;
}

}  // namespace

int main(int argc, char** argv) {
    const int repeat = argc > 1 ? std::max(1, std::atoi(argv[1])) : 3;
    for (bool depthwise : {false, true})
        for (bool quant : {false, true}) {
            const Model m = model(quant, depthwise);
            auto input = filled_tensor(m.operands[0], 129);
            double best = 1e30;
            for (int r = 0; r < repeat; ++r) {
                nnef::Diagnostics d;
                const auto t0 = std::chrono::steady_clock::now();
                auto out = run(m, {*input}, d);
                const auto t1 = std::chrono::steady_clock::now();
                if (!out) {
                    std::fprintf(stderr, "run failed\n");
                    return 1;
                }
                best = std::min(best, std::chrono::duration<double>(t1 - t0).count());
            }
            const double macs = 56.0 * 56 * 64 * 9 * (depthwise ? 1 : 64);
            std::printf("%-18s %-7s %8.1f MMAC %8.3f s %8.1f MMAC/s\n", depthwise ? "DEPTHWISE_CONV_2D" : "CONV_2D",
                        quant ? "quant8" : "float32", macs / 1e6, best, macs / 1e6 / best);
        }
    return 0;
}
