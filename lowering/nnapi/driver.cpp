// The HAL 1.0 device interface (driver.hpp) and its CPU device, the reference interpreter.
#include "lowering/nnapi/driver.hpp"

#include <nnef/diagnostics.hpp>

#include "lowering/nnapi/op_rules.hpp"

namespace nnef::nnapi {

bool interpreter_runs(OperationType t) {
    switch (t) {
        case OperationType::LSTM:
        case OperationType::SVDF:
        case OperationType::LSH_PROJECTION:
        case OperationType::OEM_OPERATION: return false;
        default: return true;
    }
}

namespace {

class CpuPreparedModel : public PreparedModel {
public:
    explicit CpuPreparedModel(Model m) : model_(std::move(m)) {}
    ErrorStatus execute(Request& request, Diagnostics& diags) override { return nnapi::execute(model_, request, diags); }

private:
    Model model_;
};

class CpuDevice : public Device {
public:
    std::string name() const override { return "cpu"; }

    std::pair<ErrorStatus, Capabilities> getCapabilities() const override {
        Capabilities c;
        c.float32Performance = {1.0f, 1.0f};
        c.quantized8Performance = {1.0f, 1.0f};
        return {ErrorStatus::NONE, c};
    }

    std::pair<ErrorStatus, std::vector<bool>> getSupportedOperations(const Model& m, Diagnostics& diags) const override {
        if (!validate(m, diags)) return {ErrorStatus::INVALID_ARGUMENT, {}};
        std::vector<bool> supported;
        for (const Operation& op : m.operations) supported.push_back(interpreter_runs(op.type));
        return {ErrorStatus::NONE, supported};
    }

    std::pair<ErrorStatus, std::unique_ptr<PreparedModel>> prepareModel(const Model& m, Diagnostics& diags) const override {
        if (!validate(m, diags)) return {ErrorStatus::INVALID_ARGUMENT, nullptr};
        bool all = true;
        for (std::size_t k = 0; k < m.operations.size(); ++k) {
            if (interpreter_runs(m.operations[k].type)) continue;
            detail::report(diags, m, k, "", "unsupported-operation",
                           std::string("the cpu device does not run ") + to_string(m.operations[k].type));
            all = false;
        }
        if (!all) return {ErrorStatus::GENERAL_FAILURE, nullptr};
        return {ErrorStatus::NONE, std::make_unique<CpuPreparedModel>(m)};
    }
};

}  // namespace

std::unique_ptr<Device> make_cpu_device() { return std::make_unique<CpuDevice>(); }

std::unique_ptr<Device> make_device(const std::string& name) {
    if (name == "cpu") return make_cpu_device();
    return nullptr;
}

std::vector<std::string> device_names() { return {"cpu"}; }

}  // namespace nnef::nnapi
