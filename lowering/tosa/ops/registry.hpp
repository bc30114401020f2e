// The operator registry of the TOSA validator and interpreter: for every operator of ops.def the
// function that checks its own rules and the kernel that runs it, as ops.def's `check` and `kernel`
// columns name them, and the Supported Data Types and Compile Time Constant tables that the family
// files (lowering/tosa/ops/<family>.cpp, ops.def's `family` column) hold. Internal to lowering/tosa.
#pragma once
#include "lowering/tosa/ir.hpp"

namespace nnef::tosa {
namespace checks {
class OpCheck;
struct Tables;
}  // namespace checks
namespace kernels {
struct Ctx;
}  // namespace kernels

namespace ops {

struct OpFunctions {
    void (*check)(checks::OpCheck&);  // the operator's own rules (validator.cpp has checked the structure)
    void (*kernel)(kernels::Ctx&);    // runs the operator (throws kernels::Failure)
};

// The functions of operator `k`.
const OpFunctions& functions(OpKind k);

// The tables of every operator (built once).
const checks::Tables& tables();

}  // namespace ops
}  // namespace nnef::tosa
