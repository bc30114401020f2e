// The standard library: the embedded NNEF texts and their loader.
#include "semantics/stdlib.hpp"

#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>

#include "grammar/parse.hpp"

namespace nnef::sema {

namespace stdlib_cpp {

// Generated from semantics/stdlib/*.nnef by the `update-stdlib` target.
constexpr char rev3_text[] =
#include "semantics/stdlib/stdlib_nnef.inc"
    ;
constexpr char later_text[] =
#include "semantics/stdlib/stdlib_later_nnef.inc"
    ;

// Parses one embedded text registered as `name`; appends the document to `lib` on success.
// Errors here are bugs in the embedded text.
inline void parse_text(Stdlib& lib, SourceManager& sm, const char* name, std::string_view text, bool strict,
                       Diagnostics& diags) {
    // The library's nodes point into the text: register the embedded (static) text itself, so
    // that a library parsed once can serve every SourceManager.
    const std::uint32_t file = sm.add_view(name, text);
    grammar::ParseOptions opts;
    opts.stdlib = true;
    opts.options.strict = strict;
    std::optional<ast::Document> doc = grammar::parse(sm, file, opts, diags);
    if (!doc) return;
    doc->file = file;
    // Within one text every name is declared once; a repeated name would silently shadow.
    std::unordered_map<std::string, const ast::Fragment*> seen;
    for (const ast::Fragment& f : doc->fragments) {
        auto [it, fresh] = seen.emplace(f.name, &f);
        if (!fresh) {
            Diagnostic& d = diags.error(Stage::semantic, "duplicate-fragment",
                                        "standard fragment '" + f.name + "' is declared twice in " + name,
                                        f.name_range);
            d.notes.push_back(Note{"first declared here", it->second->name_range});
        }
    }
    lib.documents.push_back(std::move(*doc));
}

// Parses both texts into a new library (the texts registered in `sm`).
inline std::shared_ptr<const Stdlib> parse_library(SourceManager& sm, bool strict, Diagnostics& diags) {
    auto lib = std::make_shared<Stdlib>();
    lib->strict = strict;
    stdlib_cpp::parse_text(*lib, sm, "<stdlib>", stdlib_rev3_text(), strict, diags);
    if (!strict) stdlib_cpp::parse_text(*lib, sm, "<stdlib-later>", stdlib_later_text(), false, diags);
    // The map points into `documents`, which no longer grows: later documents replace earlier
    // fragments of the same name.
    for (const ast::Document& doc : lib->documents)
        for (const ast::Fragment& f : doc.fragments) lib->fragments[f.name] = &f;
    return lib;
}

}  // namespace stdlib_cpp

std::string_view stdlib_rev3_text() {
    return std::string_view(stdlib_cpp::rev3_text, sizeof(stdlib_cpp::rev3_text) - 1);
}

std::string_view stdlib_later_text() {
    return std::string_view(stdlib_cpp::later_text, sizeof(stdlib_cpp::later_text) - 1);
}

// The parsed library refers to its texts only by their ids in `sm`, which depend on how many
// files `sm` already holds (the text of a document comes first in a Session). So a library is
// parsed once per dialect and number of files before it, for the first few such numbers, and shared
// (parsing it is most of the cost of loading a small document).
std::shared_ptr<const Stdlib> load_stdlib(SourceManager& sm, bool strict, Diagnostics& diags) {
    constexpr std::size_t cached_positions = 4;
    const std::size_t before = sm.size();
    if (before >= cached_positions) return stdlib_cpp::parse_library(sm, strict, diags);
    static std::mutex mutex;
    static std::shared_ptr<const Stdlib> parsed[2][cached_positions];
    const std::lock_guard<std::mutex> lock(mutex);
    std::shared_ptr<const Stdlib>& cached = parsed[strict ? 1 : 0][before];
    if (cached) {
        sm.add_view("<stdlib>", stdlib_rev3_text());
        if (!strict) sm.add_view("<stdlib-later>", stdlib_later_text());
        return cached;
    }
    Diagnostics own(diags.max_errors());
    std::shared_ptr<const Stdlib> lib = stdlib_cpp::parse_library(sm, strict, own);
    if (own.empty()) cached = lib;
    diags.append(own);
    return lib;
}

}  // namespace nnef::sema
