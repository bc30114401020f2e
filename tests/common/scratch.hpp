// One scratch folder per test process under the system's temporary directory, made on first use
// and removed with everything in it when the process exits (corpus runs write up to a GiB there).
// NNEF_KEEP_SCRATCH=1 keeps it, to look at a failing test's files afterwards.
#pragma once
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <string>
#include <system_error>

namespace nnef_test {

// TMP/nnef-tests-PID/NAME: each test file its own NAME, one process folder over them.
inline std::filesystem::path process_scratch(const std::string& name) {
    struct Scratch {
        std::filesystem::path dir;
        Scratch() : dir(std::filesystem::temp_directory_path() / ("nnef-tests-" + std::to_string(::getpid()))) {
            std::error_code ec;
            std::filesystem::remove_all(dir, ec);  // a folder left by an earlier process of this pid
        }
        ~Scratch() {
            const char* keep = std::getenv("NNEF_KEEP_SCRATCH");
            std::error_code ec;
            if (!keep || std::string(keep) != "1") std::filesystem::remove_all(dir, ec);
        }
    };
    static Scratch scratch;
    const auto dir = scratch.dir / name;
    std::filesystem::create_directories(dir);
    return dir;
}

}  // namespace nnef_test
