// A pass manager for the lowering IRs (TOSA, VPU), after MLIR's: a pipeline of named passes, each
// one transformation that takes valid IR and leaves valid IR; a verifier after each pass
// (`verify_each`), and the IR printed after the passes named in `print_after`. std-only.
#pragma once
#include <functional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <nnef/diagnostics.hpp>

namespace nnef::lowering {

template <class IR>
struct Pass {
    std::string name;  // kebab-case, as on the command line (--print-after=NAME)
    std::string summary;
    // Transforms the IR; returns false after reporting an error (the pipeline stops).
    std::function<bool(IR&, Diagnostics&)> run;
};

struct PassOptions {
    bool verify_each = true;
    std::set<std::string> print_after;  // pass names; "all" prints after every pass
    // Receives (pass name, printed IR) for each pass in print_after.
    std::function<void(const std::string&, const std::string&)> print;
};

template <class IR>
struct Pipeline {
    std::vector<Pass<IR>> passes;
    // Checks the invariants that hold after `after_pass` (the empty name: before the first pass);
    // reports violations and returns false.
    std::function<bool(const IR&, const std::string& after_pass, Diagnostics&)> verify;
    std::function<std::string(const IR&)> printer;

    std::vector<std::string> names() const {
        std::vector<std::string> out;
        for (const auto& p : passes) out.push_back(p.name);
        return out;
    }
    bool has(const std::string& name) const {
        for (const auto& p : passes)
            if (p.name == name) return true;
        return false;
    }

    // Runs the passes in order. Returns false when a pass or a verification reports an error.
    bool run(IR& ir, const PassOptions& options, Diagnostics& diags) const {
        if (options.verify_each && verify && !verify(ir, std::string(), diags)) return false;
        for (const auto& pass : passes) {
            if (!pass.run(ir, diags) || diags.has_errors()) return false;
            if (options.verify_each && verify && !verify(ir, pass.name, diags)) return false;
            if (options.print && printer &&
                (options.print_after.count(pass.name) || options.print_after.count("all")))
                options.print(pass.name, printer(ir));
        }
        return true;
    }
};

}  // namespace nnef::lowering
