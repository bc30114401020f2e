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
    std::size_t max_expansions = 1'000'000;        // fragment bodies expanded (bounds branching recursion)
    std::size_t max_value_items = 1u << 22;        // items in one compile-time value (nested arrays count)
    // Work of expansion beyond what the text spells out, in units of about one expression evaluated
    // or one 16-byte item built: expressions evaluated in fragment bodies and comprehensions, items
    // of every array built (and 16 bytes of every string), 32 per fragment body expanded and 128
    // per operation made there, including values and operations
    // discarded later; each graph statement adds 1024 to the budget. It bounds time and memory where
    // the counts above do not (branching recursion, values rebuilt at every call): the default ends
    // in about half a second of CPU (docs/limits.md).
    std::uint64_t max_work = 16'000'000;
    std::size_t max_string_length = 1 << 20;       // bytes in one string literal / identifier
    // Rank of a tensor of the graph. The spec limits rank only in tensor files (chapter 5: a header
    // holds at most 8 extents, which the tensor-file reader enforces whatever this is); a graph may
    // use any rank, so the default only stops abuse (NumPy's own limit is 64).
    std::size_t max_rank = 64;
    std::uint64_t max_volume = std::uint64_t(1) << 40;  // items in one tensor
};

struct Options {
    bool strict = false;  // revision 3 exactly (SPEC_NOTES section 3); default: later additions too
    Limits limits;
};

}  // namespace nnef
