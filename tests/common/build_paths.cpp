// The only test translation unit whose command line carries the build's folders (tests/CMakeLists.txt
// defines NNEF_BUILD_PATH_* for it alone; common/build_paths.hpp says why).
#include "common/build_paths.hpp"

namespace nnef_test::build_paths {
const char* const corpus = NNEF_BUILD_PATH_CORPUS;
const char* const source = NNEF_BUILD_PATH_SOURCE;
const char* const binary = NNEF_BUILD_PATH_BINARY;
const char* const tools = NNEF_BUILD_PATH_TOOLS;
}  // namespace nnef_test::build_paths
