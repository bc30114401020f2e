// Dialect and resource limits shared by every stage. std-only.
#pragma once
#include <cstddef>
#include <cstdint>

namespace nnef {

// Resource limits. Exceeding one is a diagnostic that names the limit, never a crash.
struct Limits {
    std::size_t max_errors = 20;                   // independent errors reported per run
    std::size_t max_nesting = 512;                 // nesting depth of expressions / brackets
    std::size_t max_recursion = 1000;              // fragment call depth during expansion
    std::size_t max_operations = 50'000'000;       // operations produced by expansion
    std::size_t max_expansions = 10'000'000;       // fragment bodies expanded (bounds branching recursion)
    std::size_t max_value_items = 1u << 22;        // items in one compile-time value (nested arrays count)
    std::size_t max_string_length = 1 << 20;       // bytes in one string literal / identifier
    std::size_t max_rank = 8;                      // tensor rank (spec 5.2)
    std::uint64_t max_volume = std::uint64_t(1) << 40;  // items in one tensor
};

struct Options {
    bool strict = false;  // revision 3 exactly (SPEC_NOTES section 3); default: later additions too
    Limits limits;
};

}  // namespace nnef
