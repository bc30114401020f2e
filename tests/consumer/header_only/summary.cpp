// A second translation unit that only uses the API (no NNEF_IMPLEMENTATION).
#include <nnef/nnef.hpp>

#include <string>

std::string summary(const nnef::Session& session) {
    const nnef::Graph& g = *session.graph();
    const nnef::Tensor* out = g.tensor(g.outputs.front());
    return g.name + ": " + std::to_string(g.operations.size()) + " operations, output " + g.outputs.front() + " " +
           nnef::to_string(*out->shape);
}
