// Loading a model's tensor data (spec chapter 6, step 4): every variable gets the tensor file of
// its label, which must exist, be valid, and have exactly the declared shape.
#pragma once
#include <nnef/diagnostics.hpp>
#include <nnef/graph.hpp>
#include <nnef/options.hpp>
#include "storage/container.hpp"

namespace nnef::storage {

// Attaches tensor data to the variables of `graph` (Tensor::data). Variables whose labels are equal
// case-insensitively share one file, read once. Problems are stage `data` diagnostics naming the
// label, the file and the declared and stored shapes. Returns false on any error.
bool attach_weights(Graph& graph, const Container& container, const Limits& limits, Diagnostics& diags);

}  // namespace nnef::storage
