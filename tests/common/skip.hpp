// The one way a test skips: NNEF_SKIP(why) ends the test case with doctest's MESSAGE "skipped: why"
// and marks it skipped; NNEF_SKIP_PART(why) says "partly skipped: why" where a test goes on without
// a part (a model, a tool). The test main (tests/unit/doctest_main.cpp) then
//   - exits with 77, CTest's SKIP_RETURN_CODE, when every test case it ran was skipped and none
//     failed, so that CTest lists the test as "Skipped";
//   - fails a test case that passed without a single assertion and did not skip.
// Each skip is also written, with its test, to the skip log (record_skip): after a CTest run
// tests/print_skips.sh prints that log (CTEST_CUSTOM_POST_TEST, tests/CMakeLists.txt), so that the
// log of a run shows every skip with its reason, although CTest hides the output of tests that pass
// or skip.
#pragma once
#include <doctest/doctest.h>

#include "common/build_paths.hpp"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace nnef_test {

// Whether the running test case skipped, and its name (both set by the main's listener).
inline bool& test_case_skipped() {
    static bool skipped = false;
    return skipped;
}
inline std::string& current_test_case() {
    static std::string name;
    return name;
}

// The skip log: $NNEF_SKIP_LOG, else <build>/Testing/nnef-skips.txt (CTest empties it before a run).
inline std::string skip_log_path() {
    if (const char* p = std::getenv("NNEF_SKIP_LOG")) return p;
    return std::string(NNEF_BINARY_DIR) + "/Testing/nnef-skips.txt";
}

// Appends "<layer>:<test case>: <what>" to the skip log (the layer from the executable's name,
// test_<layer>, as CTest names the test).
inline void record_skip(const std::string& what) {
    namespace fs = std::filesystem;
    const std::string path = skip_log_path();
    if (path.empty()) return;
    std::error_code ec;
    fs::create_directories(fs::path(path).parent_path(), ec);
    std::string layer = fs::read_symlink("/proc/self/exe", ec).filename().string();
    if (layer.rfind("test_", 0) == 0) layer = layer.substr(5);
    std::ofstream(path, std::ios::app) << layer + ":" + current_test_case() + ": " + what + "\n" << std::flush;
}

}  // namespace nnef_test

// Prints "<kind>why" (doctest MESSAGE, at the caller's line) and writes it to the skip log.
#define NNEF_SKIP_NOTE_(kind, why)                                \
    do {                                                          \
        std::ostringstream nnef_skip_why_;                        \
        nnef_skip_why_ << kind << why;                            \
        MESSAGE(nnef_skip_why_.str());                            \
        nnef_test::record_skip(nnef_skip_why_.str());             \
    } while (0)

// Ends the current test case (a void function body) as skipped, saying why.
#define NNEF_SKIP(why)                             \
    do {                                           \
        NNEF_SKIP_NOTE_("skipped: ", why);         \
        nnef_test::test_case_skipped() = true;     \
        return;                                    \
    } while (0)

// Says why a part of the current test case does not run; the rest of it goes on.
#define NNEF_SKIP_PART(why) NNEF_SKIP_NOTE_("partly skipped: ", why)

// Whether this test executable was built with AddressSanitizer (scripts/test.sh's sanitizer pass,
// -DNNEF_SANITIZE=ON; GCC defines __SANITIZE_ADDRESS__, clang answers __has_feature).
#if defined(__SANITIZE_ADDRESS__)
#define NNEF_TEST_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define NNEF_TEST_SANITIZED 1
#endif
#endif
#ifndef NNEF_TEST_SANITIZED
#define NNEF_TEST_SANITIZED 0
#endif

// Says that the sanitizer build leaves a part of the current test case (`what`) to the Release pass,
// and what still runs that code under the sanitizers (`covered`): NNEF_SKIP_PART's note. For sweeps
// that run on part of their models or inputs there (docs/building.md, "What the sanitizer pass
// leaves to the Release pass"); the caller tests NNEF_TEST_SANITIZED and skips the part.
#define NNEF_RELEASE_PASS_PART(what, covered) \
    NNEF_SKIP_PART(what << " left to the Release pass (costly under the sanitizers; " << covered << ")")

// Ends the current test case as skipped in the sanitizer build only, saying why; the Release pass
// runs it. For the few whole-corpus numeric sweeps whose code another test runs on the same models
// under the sanitizers (docs/building.md lists them and the tests that cover them there).
#define NNEF_RELEASE_PASS_ONLY(why)                                                  \
    do {                                                                             \
        if (NNEF_TEST_SANITIZED) NNEF_SKIP("left to the Release pass (costly under the sanitizers): " << why); \
    } while (0)
