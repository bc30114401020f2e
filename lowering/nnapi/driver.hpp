// The HAL 1.0 device interface (IDevice / IPreparedModel of android.hardware.neuralnetworks@1.0) in
// C++: getCapabilities, getSupportedOperations, prepareModel, and execute on the prepared model, each
// answering with an ErrorStatus. The HAL's asynchronous callbacks become return values; problems are
// also reported as diagnostics (stage nnapi).
//
// Devices: "cpu" runs the reference interpreter (interpreter.hpp).
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

// The device of that name ("cpu"), or nothing.
std::unique_ptr<Device> make_device(const std::string& name);
// The names make_device knows.
std::vector<std::string> device_names();

}  // namespace nnef::nnapi
