// Helpers shared by the unit tests.
#pragma once
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace nnef_test {

inline std::filesystem::path corpus_dir() { return std::filesystem::path(NNEF_CORPUS_DIR); }
inline bool have_corpus() { return std::filesystem::is_directory(corpus_dir()); }
inline std::filesystem::path source_dir() { return std::filesystem::path(NNEF_SOURCE_DIR); }

inline std::string read_text(const std::filesystem::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::ostringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

}  // namespace nnef_test

// Skips the rest of a test case (with a message) when the third-party corpus is absent.
#define NNEF_REQUIRE_CORPUS()                                                                  \
    do {                                                                                       \
        if (!nnef_test::have_corpus()) {                                                       \
            MESSAGE("skipped: corpus not found at " << nnef_test::corpus_dir().string()        \
                    << " (set -DNNEF_CORPUS_DIR)");                                            \
            return;                                                                            \
        }                                                                                      \
    } while (0)
