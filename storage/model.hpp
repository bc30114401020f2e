// Loading a model's tensor data (spec chapter 6, step 4): every variable gets the tensor file of
// its label, which must exist, be valid, and have exactly the declared shape.
#pragma once
#include <string>
#include <vector>

#include <nnef/diagnostics.hpp>
#include <nnef/graph.hpp>
#include <nnef/options.hpp>
#include "storage/container.hpp"

namespace nnef::storage {

// What attach_weights found.
struct WeightsCount {
    std::size_t variables = 0;  // variable operations of the graph
    std::size_t attached = 0;   // of them, those that got their tensor file's data
    std::vector<std::string> missing;  // labels without a tensor file, in graph order, each once
};

// Attaches tensor data to the variables of `graph` (Tensor::data). Variables whose labels are equal
// case-insensitively share one file, read once. Problems are stage `data` diagnostics naming the
// label, the file and the declared and stored shapes. Variables without a tensor file are one
// diagnostic (`missing-tensor-file`: how many, the first few names, and the options that help
// with a model stored without weights), or none with `missing_allowed` (a bare graph.nnef file,
// whose tensor files beside it are checked when they exist). Returns false on any error.
bool attach_weights(Graph& graph, const Container& container, const Limits& limits, Diagnostics& diags,
                    bool missing_allowed = false, WeightsCount* count = nullptr);

// True when a container holds no tensor file at all (a model published graph-only).
bool has_no_tensor_files(const Container& container);

// A bare graph.nnef file: adds to `container` the tensor files of the graph's variables that exist
// beside it (label + ".dat" relative to the file's folder), so that attach_weights checks them.
void add_tensor_files_beside(Container& container, const Graph& graph);
// Whether the folder of a bare graph.nnef file may hold tensor files (a `.dat` file in it or in a
// folder directly below it): a cheap test made before the graph is read, so that a lone document
// keeps the front end's lean path.
bool may_have_tensor_files_beside(const std::string& graph_path);

}  // namespace nnef::storage
