// The type checker: every rule of spec 3.3.1 and 3.3.2 (and the SPEC_NOTES section 5 decisions),
// checked statically on the AST. Diagnostics have stage `semantic`.
#pragma once
#include <memory>
#include <vector>
#include <string>
#include <unordered_map>

#include <nnef/diagnostics.hpp>
#include <nnef/options.hpp>
#include "grammar/ast.hpp"
#include "semantics/stdlib.hpp"

namespace nnef::sema {

// A checked document: the declarations every invocation resolves to.
struct Program {
    const ast::Document* document = nullptr;  // not owned; must outlive the Program
    std::shared_ptr<const Stdlib> stdlib;
    // Every visible fragment by name: the standard ones and the document's own.
    std::unordered_map<std::string, const ast::Fragment*> fragments;

    const ast::Fragment* find(const std::string& name) const {
        auto it = fragments.find(name);
        return it == fragments.end() ? nullptr : it->second;
    }
};

namespace checker_cpp {
class Checker;
}

// Checks a document a part at a time: declarations and fragment bodies, then the graph's header,
// each statement of its body in order, and its end (for a graph body streamed from the parser).
class Checking {
public:
    // `doc` must outlive this object; its fragments must be complete.
    Checking(const ast::Document& doc, std::shared_ptr<const Stdlib> stdlib, const Options& opts, Diagnostics& diags);
    ~Checking();
    Checking(const Checking&) = delete;
    Checking& operator=(const Checking&) = delete;

    void check_declarations();
    // The declarations every invocation resolves to (complete from construction on).
    const Program& program() const;
    Program take_program();

    void begin_graph(const ast::GraphDef& header);  // name, parameters, results
    void statement(const ast::Assignment& a);
    void end_graph();

private:
    std::unique_ptr<checker_cpp::Checker> impl_;
};

// Checks `doc` against the standard library. Independent errors are all reported (up to
// diags.max_errors()). The returned Program is usable for expansion only if no error was added.
Program check(const ast::Document& doc, std::shared_ptr<const Stdlib> stdlib, const Options& opts,
              Diagnostics& diags);

}  // namespace nnef::sema
