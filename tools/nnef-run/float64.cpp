// nnef-run --float64: main.cpp compiled once more, against the executor whose scalar items are
// double (namespace nnef::exec64, exec/precision.hpp). Defines nnef::run_main64::run.
#define NNEF_EXEC_FLOAT64 1
#include "main.cpp"
