// The front end's fast path for plain flat documents.
//
// A plain flat document (grammar/plain_flat.hpp) whose every statement invokes a standard
// operation that stays atomic is checked here in one lean pass: the scanner's compact statements
// are matched to the standard declarations, typed, evaluated into the operation's arguments and
// shape-inferred with the standard shape functions. The tensors are kept, and the operations when
// ExpandOptions::keep_operations asks for them (as the full front end makes them: the same
// arguments, defaults and invocation ranges); with collect_exports every tensor is exported. The rules are
// those of the full front end (semantics/checker.cpp, semantics/expander.cpp); where a statement
// needs more than this path does (user fragments, compounds to expand, `update`, generic deduction,
// ...) or where the full front end would report anything at all, error or warning, the answer is
// nullopt and the caller runs the full front end from the start, which then says what it says.
// tests/unit/frontend/plain_flat_test.cpp holds the two to the same results on every document of
// the corpus, the samples and generated graphs.
#pragma once
#include <cstdint>
#include <memory>
#include <optional>

#include <nnef/source.hpp>
#include "grammar/ast.hpp"
#include "semantics/expander.hpp"
#include "semantics/stdlib.hpp"

namespace nnef::sema {

struct PlainFlatResult {
    ast::Document document;  // the version and the graph's header (the statements are not kept)
    Expansion expansion;     // tensors, inputs, outputs, operation count; operations if kept
};

// True when the options allow the fast path: nothing to expand, no input shape overridden.
bool plain_flat_applies(const ExpandOptions& options);

// Graph bodies from this size on are read on a second thread, ahead of the checks, when another
// processor is idle as the check starts (the outcome is the same; see
// grammar::plain::scan_plain_flat). On a busy machine the two threads would share one processor
// and the hand-over costs more than it gains.
constexpr std::size_t plain_parallel_from = std::size_t(1) << 20;

// Checks the text registered as `file` (see above). nullopt: run the full front end.
// `parallel_from`: as for grammar::plain::scan_plain_flat (0: one thread); plain_parallel_from
// only when another processor is idle (any other value: whatever the machine is doing).
std::optional<PlainFlatResult> check_plain_flat(const SourceManager& sm, std::uint32_t file, const Stdlib& stdlib,
                                                const ExpandOptions& options,
                                                std::size_t parallel_from = plain_parallel_from);

}  // namespace nnef::sema
