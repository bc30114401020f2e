// The folders the tests find things in (the source tree, the build folder, the built tools, the
// third-party corpus). They are compiled into one translation unit (build_paths.cpp, part of
// every test executable through nnef_doctest_main) instead of being defined on every test file's
// command line: a test file's compile command then names no checkout, so a compiler cache serves
// it to every checkout (base_dir) and the CI's fresh clone (docs/building.md).
#pragma once

namespace nnef_test::build_paths {
extern const char* const corpus;  // NNEF_CORPUS_DIR of the CMake configuration
extern const char* const source;  // the source tree
extern const char* const binary;  // the build folder
extern const char* const tools;   // where the built tools are
}  // namespace nnef_test::build_paths

// What the tests name them by (each a const char*).
#define NNEF_CORPUS_DIR (::nnef_test::build_paths::corpus)
#define NNEF_SOURCE_DIR (::nnef_test::build_paths::source)
#define NNEF_BINARY_DIR (::nnef_test::build_paths::binary)
#define NNEF_TOOLS_DIR (::nnef_test::build_paths::tools)
