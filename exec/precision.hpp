// The precision of the executor's `scalar` items. std-only.
//
// By default scalar items are float (IEEE binary32) and the executor lives in namespace
// nnef::exec. The same sources compiled with NNEF_EXEC_FLOAT64 defined make a second executor in
// namespace nnef::exec64 whose scalar items, and so every kernel's arithmetic, are double (IEEE
// binary64): `nnef-run --float64` runs that one to study the precision of a model. Both can be
// linked into one program.
#pragma once

#ifdef NNEF_EXEC_FLOAT64
#define NNEF_EXEC_NS exec64
#else
#define NNEF_EXEC_NS exec
#endif

namespace nnef::NNEF_EXEC_NS {

#ifdef NNEF_EXEC_FLOAT64
using Real = double;
#else
using Real = float;
#endif

}  // namespace nnef::NNEF_EXEC_NS
