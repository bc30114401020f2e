// Header-only mode: the whole library, compiled in the one translation unit that defines
// NNEF_IMPLEMENTATION before including <nnef/nnef.hpp> (stb-style, so the X3 grammar is compiled
// once). The repository root (or the installed include directory) must be on the include path.
// A test checks that this list names every library source file.
#pragma once

#include "nnef/detail/diagnostics.cpp"
#include "nnef/detail/graph.cpp"
#include "nnef/detail/source.cpp"
#include "nnef/detail/value.cpp"

#include "grammar/document.cpp"
#include "grammar/parse.cpp"
#include "grammar/plain_flat.cpp"

#include "semantics/checker.cpp"
#include "semantics/expander.cpp"
#include "semantics/infer.cpp"
#include "semantics/plain_flat.cpp"
#include "semantics/printer.cpp"
#include "semantics/stdlib.cpp"
#include "semantics/summary.cpp"
#include "semantics/types.cpp"

#include "semantics/ops/common.cpp"
#include "semantics/ops/elementwise.cpp"
#include "semantics/ops/matmul.cpp"
#include "semantics/ops/normalization.cpp"
#include "semantics/ops/quantization.cpp"
#include "semantics/ops/reduce.cpp"
#include "semantics/ops/registry.cpp"
#include "semantics/ops/roi.cpp"
#include "semantics/ops/sampling.cpp"
#include "semantics/ops/shape_ops.cpp"
#include "semantics/ops/sliding_window.cpp"
#include "semantics/ops/tensor_intro.cpp"
#include "semantics/ops/variable_update.cpp"

#include "storage/container.cpp"
#include "storage/model.cpp"
#include "storage/quant_file.cpp"
#include "storage/quantization.cpp"
#include "storage/session.cpp"
#include "storage/tensor_file.cpp"

#include "exec/common.cpp"
#include "exec/executor.cpp"
#include "exec/gemm.cpp"

#include "exec/kernels/elementwise.cpp"
#include "exec/kernels/matmul.cpp"
#include "exec/kernels/normalization.cpp"
#include "exec/kernels/reduce.cpp"
#include "exec/kernels/registry.cpp"
#include "exec/kernels/roi.cpp"
#include "exec/kernels/sampling.cpp"
#include "exec/kernels/shape_ops.cpp"
#include "exec/kernels/sliding_window.cpp"
#include "exec/kernels/tensor_intro.cpp"

#include "lowering/tosa/ir.cpp"
