// The HAL 1.0 `vpu` device (driver.hpp): prepareModel lowers the NNAPI model to TOSA (to_tosa.hpp)
// and compiles it with the VPU compiler (lowering/vpu/compiler.hpp) for the npu-2c target; execute
// runs the task list on the VPU simulator with values (fp16 arithmetic, as the target computes).
// getCapabilities compares the simulated makespan with the cpu device on a fixed workload
// (docs/nnapi.md, "The vpu device").
#include <algorithm>
#include <chrono>
#include <cstring>
#include <limits>
#include <mutex>

#include <nnef/diagnostics.hpp>

#include "lowering/nnapi/driver.hpp"
#include "lowering/nnapi/op_rules.hpp"
#include "lowering/nnapi/operation_model.hpp"
#include "lowering/nnapi/to_tosa.hpp"
#include "lowering/vpu/compiler.hpp"
#include "lowering/vpu/simulator.hpp"

namespace nnef::nnapi {

namespace {

std::string io_name(std::uint32_t operand) { return "operand " + std::to_string(operand); }

// What the vpu device runs: what to_tosa lowers. Empty, or why not.
std::string vpu_refusal(const Model& m, const Operation& op) {
    if (!tosa_lowers(m, op)) return "it has no TOSA lowering here";
    return {};
}

// Runs a compiled model on the simulator: inputs by graph input name, outputs read back as floats.
std::optional<std::vector<Tensor>> simulate_values(const vpu::TaskList& list, const vpu::Target& target, const Model& m,
                                                   const std::vector<Tensor>& inputs, Diagnostics& diags) {
    vpu::SimulateOptions so;
    so.values = true;
    for (std::size_t k = 0; k < inputs.size(); ++k) {
        const Tensor& t = inputs[k];
        const bool quant = t.type == OperandType::TENSOR_QUANT8_ASYMM;
        tosa::TensorType type{quant ? tosa::DType::i8 : tosa::DType::fp32, {}};
        for (std::uint32_t d : t.dimensions) type.shape.push_back(d);
        auto data = tosa::ConstData::allocate(type);
        if (data->byte_size() != t.data.size()) {
            diags.error(Stage::nnapi, "nnapi-vpu", "input " + std::to_string(k) + " does not have the bytes of its dimensions");
            return std::nullopt;
        }
        if (quant)  // uint8 codes -> the graph's i8 codes c - 128 (ToTosaOptions::uint8_io false)
            for (std::size_t i = 0; i < t.data.size(); ++i) data->mutable_items<std::int8_t>()[i] = std::int8_t(int(t.data[i]) - 128);
        else
            std::memcpy(data->mutable_items<std::uint8_t>(), t.data.data(), t.data.size());
        so.inputs[io_name(m.inputIndexes[k])] = data;
    }
    const vpu::SimulationResult r = vpu::simulate(list, target, so, diags);
    if (!r.valid) {
        diags.error(Stage::nnapi, "nnapi-vpu",
                    "the VPU simulator found " + std::to_string(r.violations) + " violation(s) in the compiled task list");
        return std::nullopt;
    }
    std::vector<Tensor> outputs;
    for (std::uint32_t i : m.outputIndexes) {
        const Operand& o = m.operands[i];
        const bool quant = o.type == OperandType::TENSOR_QUANT8_ASYMM;
        const auto it = r.outputs.find(io_name(i));
        if (it == r.outputs.end() || !it->second || it->second->type.dtype != (quant ? tosa::DType::i32 : tosa::DType::fp32)) {
            diags.error(Stage::nnapi, "nnapi-vpu", "the VPU simulator computed no value for model output operand " + std::to_string(i));
            return std::nullopt;
        }
        const tosa::ConstData& c = *it->second;
        std::vector<std::uint32_t> dims(c.type.shape.begin(), c.type.shape.end());
        if (quant) {  // i8 codes (as i32) -> uint8 codes
            std::vector<std::uint8_t> codes;
            for (std::int64_t e = 0; e < c.type.volume(); ++e)
                codes.push_back(std::uint8_t(std::clamp(c.items<std::int32_t>()[e] + 128, 0, 255)));
            outputs.push_back(make_quant8_tensor(std::move(dims), codes, o.scale, o.zeroPoint));
        } else {
            std::vector<float> items(c.items<float>(), c.items<float>() + c.type.volume());
            outputs.push_back(make_float_tensor(std::move(dims), items));
        }
    }
    return outputs;
}

class VpuPreparedModel : public PreparedModel {
public:
    VpuPreparedModel(Model m, vpu::TaskList list, vpu::Target target)
        : model_(std::move(m)), list_(std::move(list)), target_(std::move(target)) {}
    ErrorStatus execute(Request& request, Diagnostics& diags) override {
        return execute_request(
            model_, request,
            [this](const Model& m, const std::vector<Tensor>& in, Diagnostics& d) {
                return simulate_values(list_, target_, m, in, d);
            },
            diags);
    }

private:
    Model model_;
    vpu::TaskList list_;
    vpu::Target target_;
};

// The fixed workload of getCapabilities: input [1,32,32,16] -> CONV_2D 3x3 SAME to 32 channels
// with RELU -> AVERAGE_POOL_2D 2x2 stride 2 -> output [1,16,16,32]; float32, or quant8 (input scale
// 0.05 / zeroPoint 128, filter 0.01 / 128, bias 0.0005, the rest 0.1 / 0).
Model capability_workload(bool quant) {
    Model m;
    const OperandType t = quant ? OperandType::TENSOR_QUANT8_ASYMM : OperandType::TENSOR_FLOAT32;
    const std::uint32_t in = add_operand(m, t, {1, 32, 32, 16}, quant ? 0.05f : 0.0f, quant ? 128 : 0);
    std::uint32_t filter, bias;
    if (quant) {
        std::vector<std::uint8_t> w(32 * 3 * 3 * 16);
        std::vector<std::int32_t> b(32);
        for (std::size_t i = 0; i < w.size(); ++i) w[i] = std::uint8_t(128 + int(i % 7) - 3);
        for (std::size_t i = 0; i < b.size(); ++i) b[i] = std::int32_t(i) * 20;
        filter = add_constant(m, t, {32, 3, 3, 16}, w.data(), w.size(), 0.01f, 128);
        bias = add_constant(m, OperandType::TENSOR_INT32, {32}, b.data(), b.size() * 4, 0.0005f);
    } else {
        std::vector<float> w(32 * 3 * 3 * 16), b(32);
        for (std::size_t i = 0; i < w.size(); ++i) w[i] = float(int(i % 7) - 3) * 0.05f;
        for (std::size_t i = 0; i < b.size(); ++i) b[i] = float(i) * 0.01f;
        filter = add_constant(m, t, {32, 3, 3, 16}, w.data(), w.size() * 4);
        bias = add_constant(m, t, {32}, b.data(), b.size() * 4);
    }
    const std::uint32_t mid = add_operand(m, t, {1, 32, 32, 32}, quant ? 0.1f : 0.0f);
    add_operation(m, OperationType::CONV_2D,
                  {in, filter, bias, add_int32_scalar(m, 1), add_int32_scalar(m, 1), add_int32_scalar(m, 1),
                   add_int32_scalar(m, 1)},
                  {mid});
    const std::uint32_t out = add_operand(m, t, {1, 16, 16, 32}, quant ? 0.1f : 0.0f);
    add_operation(m, OperationType::AVERAGE_POOL_2D,
                  {mid, add_int32_scalar(m, 2), add_int32_scalar(m, 2), add_int32_scalar(m, 2), add_int32_scalar(m, 2),
                   add_int32_scalar(m, 2), add_int32_scalar(m, 0)},
                  {out});
    set_inputs_and_outputs(m, {in}, {out});
    return m;
}

class VpuDevice : public Device {
public:
    std::string name() const override { return "vpu"; }

    std::pair<ErrorStatus, Capabilities> getCapabilities() const override {
        static std::once_flag once;
        static std::pair<ErrorStatus, Capabilities> answer;
        std::call_once(once, [this] { answer = measure(); });
        return answer;
    }

    // What prepareModel would run: when the whole model lowers and compiles, every operation; else
    // each operation alone (operation_model: its constants, its other inputs model inputs) lowered
    // to TOSA and compiled by the VPU compiler, so that an operation the compiler refuses (a
    // depthwise multiplier other than 1, ...) is answered false, not only one without a lowering.
    std::pair<ErrorStatus, std::vector<bool>> getSupportedOperations(const Model& m, Diagnostics& diags) const override {
        if (!validate(m, diags)) return {ErrorStatus::INVALID_ARGUMENT, {}};
        std::vector<bool> supported(m.operations.size(), true);
        // why an operation is refused is not an error of the call (the answer is the bool): each
        // question gets its own diagnostics, since the lowering stops at earlier errors
        Diagnostics whole(0);
        if (compile(m, whole)) return {ErrorStatus::NONE, supported};
        for (std::size_t k = 0; k < m.operations.size(); ++k) {
            if (!vpu_refusal(m, m.operations[k]).empty()) {
                supported[k] = false;
                continue;
            }
            Diagnostics refusal(0);
            const std::optional<Model> alone = operation_model(m, k, refusal);
            // an operation of constants only (nothing to ask alone) is judged by its lowering
            supported[k] = !alone || compile(*alone, refusal).has_value();
        }
        return {ErrorStatus::NONE, supported};
    }

    std::pair<ErrorStatus, std::unique_ptr<PreparedModel>> prepareModel(const Model& m, Diagnostics& diags) const override {
        if (!validate(m, diags)) return {ErrorStatus::INVALID_ARGUMENT, nullptr};
        auto list = compile(m, diags);
        if (!list) return {ErrorStatus::GENERAL_FAILURE, nullptr};
        return {ErrorStatus::NONE, std::make_unique<VpuPreparedModel>(m, std::move(*list), target_)};
    }

private:
    vpu::Target target_;  // npu-2c, the spec's target

    std::optional<vpu::TaskList> compile(const Model& m, Diagnostics& diags) const {
        bool all = true;
        for (std::size_t k = 0; k < m.operations.size(); ++k) {
            const std::string why = vpu_refusal(m, m.operations[k]);
            if (why.empty()) continue;
            detail::report(diags, m, k, "", "unsupported-operation", "the vpu device does not run this operation (" + why + ")");
            all = false;
        }
        if (!all) return std::nullopt;
        ToTosaOptions options;
        options.uint8_io = false;  // the VPU compiler takes no unsigned RESCALE: execute converts the codes
        auto g = to_tosa(m, diags, options);
        if (!g) return std::nullopt;
        vpu::CompileOptions co;
        return vpu::compile(*g, target_, co, diags);
    }

    // execTime: the simulated makespan of the workload over the cpu device's time for it (the best
    // of three runs of the reference interpreter), for float32 and quant8. The simulator models no
    // power: powerUsage is the same ratio (energy at equal power draw).
    std::pair<ErrorStatus, Capabilities> measure() const {
        Capabilities c;
        for (bool quant : {false, true}) {
            const auto ratio = measure(capability_workload(quant));
            if (!ratio) return {ErrorStatus::GENERAL_FAILURE, c};
            (quant ? c.quantized8Performance : c.float32Performance) = {*ratio, *ratio};
        }
        return {ErrorStatus::NONE, c};
    }

    std::optional<float> measure(const Model& m) const {
        Diagnostics diags(10);
        auto list = compile(m, diags);
        if (!list) return std::nullopt;
        const vpu::SimulationResult r = vpu::simulate(*list, target_, vpu::SimulateOptions{}, diags);
        auto input = filled_tensor(m.operands[m.inputIndexes[0]], 0);
        if (!r.valid || !input) return std::nullopt;
        double best = std::numeric_limits<double>::max();
        for (int k = 0; k < 3; ++k) {
            const auto start = std::chrono::steady_clock::now();
            if (!run(m, {*input}, diags)) return std::nullopt;
            best = std::min(best, std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count());
        }
        return float(r.makespan_us / std::max(best, 1e-3));
    }
};

}  // namespace

std::unique_ptr<Device> make_vpu_device() { return std::make_unique<VpuDevice>(); }

}  // namespace nnef::nnapi
