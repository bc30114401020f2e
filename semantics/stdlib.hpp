// The standard library: NNEF text embedded in the library (semantics/stdlib/*.nnef), parsed with
// the same grammar as documents. The only source of standard signatures.
#pragma once
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include <nnef/diagnostics.hpp>
#include <nnef/source.hpp>
#include "grammar/ast.hpp"

namespace nnef::sema {

struct Stdlib {
    bool strict = false;
    // Revision 3 text, then (unless strict) the later-revision text; a later fragment replaces a
    // revision 3 fragment of the same name.
    std::vector<ast::Document> documents;
    // Every visible standard fragment by name.
    std::unordered_map<std::string, const ast::Fragment*> fragments;

    const ast::Fragment* find(std::string_view name) const {
        auto it = fragments.find(std::string(name));
        return it == fragments.end() ? nullptr : it->second;
    }
    // True for body-less (primitive) standard fragments.
    bool is_primitive(std::string_view name) const {
        const ast::Fragment* f = find(name);
        return f && !f->body;
    }
};

// The embedded texts.
std::string_view stdlib_rev3_text();
std::string_view stdlib_later_text();

// Parses the embedded standard library, registering its texts in `sm` (as "<stdlib>" and
// "<stdlib-later>") so that diagnostics and provenance can point into it. Later additions are
// merged unless `strict`. Errors here are bugs in the embedded text; they go to `diags`.
std::shared_ptr<const Stdlib> load_stdlib(SourceManager& sm, bool strict, Diagnostics& diags);

}  // namespace nnef::sema
