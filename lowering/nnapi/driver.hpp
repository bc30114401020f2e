// The HAL 1.0 device interface (IDevice / IPreparedModel of android.hardware.neuralnetworks@1.0) in
// C++: getCapabilities, getSupportedOperations, prepareModel, and execute on the prepared model, each
// answering with an ErrorStatus. The HAL's asynchronous callbacks become return values; problems are
// also reported as diagnostics (stage nnapi).
//
// Devices: "cpu" runs the reference interpreter (interpreter.hpp); "vpu" lowers the model to TOSA
// (to_tosa.hpp), compiles it for the VPU (lowering/vpu/compiler.hpp) and runs it on the VPU simulator
// (driver_vpu.cpp).
#pragma once
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "lowering/nnapi/interpreter.hpp"
#include "lowering/nnapi/model.hpp"

namespace nnef {
class Diagnostics;
}  // namespace nnef

namespace nnef::nnapi {

class PreparedModel {
public:
    virtual ~PreparedModel() = default;
    // Runs the model on the request's inputs and writes its outputs into the request's pools.
    virtual ErrorStatus execute(Request& request, Diagnostics&) = 0;
};

class Device {
public:
    virtual ~Device() = default;
    virtual std::string name() const = 0;
    virtual DeviceStatus getStatus() const { return DeviceStatus::AVAILABLE; }
    virtual std::pair<ErrorStatus, Capabilities> getCapabilities() const = 0;
    // One entry per operation of the model: whether this device can run it. INVALID_ARGUMENT (and
    // no entries) for a model the validator refuses.
    virtual std::pair<ErrorStatus, std::vector<bool>> getSupportedOperations(const Model&, Diagnostics&) const = 0;
    // Validates and prepares the model; INVALID_ARGUMENT for an invalid model, GENERAL_FAILURE when
    // the device cannot run one of its operations (named in a diagnostic).
    virtual std::pair<ErrorStatus, std::unique_ptr<PreparedModel>> prepareModel(const Model&, Diagnostics&) const = 0;
};

// Whether the reference interpreter runs operations of this type (all of HAL 1.0 but LSTM, SVDF,
// LSH_PROJECTION and OEM_OPERATION).
bool interpreter_runs(OperationType);

// The CPU reference device. Its capabilities are 1.0 for float32 and quant8: it is the reference
// the HAL's PerformanceInfo ratios are taken against.
std::unique_ptr<Device> make_cpu_device();

// The VPU device: prepareModel = NNAPI -> TOSA -> the VPU compiler (target npu-2c), execute = the VPU
// simulator with values (fp16 arithmetic, int8 for quant8). getSupportedOperations answers what the
// VPU compile runs (the whole model, else each operation alone, lowered and compiled); its
// capabilities are the simulated makespan of a fixed workload over the cpu device's time for it
// (docs/nnapi.md, "The vpu device").
std::unique_ptr<Device> make_vpu_device();

// The device of that name ("cpu", "vpu"), or nothing.
std::unique_ptr<Device> make_device(const std::string& name);
// The names make_device knows.
std::vector<std::string> device_names();

}  // namespace nnef::nnapi
