// How the tools describe a graph's tensors: text and JSON.
#pragma once
#include <string>
#include <vector>

#include <nnef/graph.hpp>

#include "cli.hpp"

namespace nnef::cli {

// A tensor's dtype and shape as "scalar[1,3,224,224]" ("?" for an unknown dtype, "[unknown]" for
// an unknown shape; "?" for no tensor).
std::string tensor_text(const Tensor* t);
// The named tensors of a graph as a JSON array of {"name", "dtype" ("" if unknown), "shape"
// (null if unknown)}.
Json tensors_json(const Graph& g, const std::vector<std::string>& names);

}  // namespace nnef::cli
