// Defines a libFuzzer entry point from a check of fuzz/*_checks.hpp (a function of the input bytes
// that returns an empty string when its properties hold): a violated property is printed with the
// target's name, then the process aborts so that libFuzzer saves the input.
#pragma once
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#define NNEF_FUZZ_TARGET(NAME, CHECK)                                                   \
    extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) { \
        const std::string why = CHECK(data, size);                                      \
        if (!why.empty()) {                                                             \
            std::fprintf(stderr, "%s: %s\n", NAME, why.c_str());                        \
            std::abort();                                                               \
        }                                                                               \
        return 0;                                                                       \
    }
