// What nnef-run runs a model with: the reference executor (exec/), or with `--via tosa` the model
// lowered to TOSA and run by the TOSA interpreter (via_tosa.hpp). Both behind one interface, so
// that every nnef-run option (inputs, cycles, --dump, --output-dir, --compare, ...) works alike.
#pragma once
#include <memory>
#include <string>
#include <utility>

#include <nnef/diagnostics.hpp>

namespace nnef::run_engine {

template <class TensorValue>
struct Engine {
    virtual ~Engine() = default;
    // Feeds graph input `name` for the following cycles (shape as declared).
    virtual bool set_input(const std::string& name, const TensorValue& value, Diagnostics& diags) = 0;
    // Runs one cycle.
    virtual bool run(Diagnostics& diags) = 0;
    // An output or kept tensor of the last cycle; null otherwise.
    virtual const TensorValue* tensor(const std::string& name) const = 0;
    // The current value of a variable; null if there is none.
    virtual const TensorValue* variable(const std::string& name) const = 0;
};

// The reference executor.
template <class Executor, class TensorValue>
struct ExecutorEngine final : Engine<TensorValue> {
    std::unique_ptr<Executor> executor;
    explicit ExecutorEngine(std::unique_ptr<Executor> e) : executor(std::move(e)) {}
    bool set_input(const std::string& name, const TensorValue& value, Diagnostics& diags) override {
        return executor->set_input(name, value, diags);
    }
    bool run(Diagnostics& diags) override { return executor->run(diags); }
    const TensorValue* tensor(const std::string& name) const override { return executor->tensor(name); }
    const TensorValue* variable(const std::string& name) const override { return executor->variable(name); }
};

}  // namespace nnef::run_engine
