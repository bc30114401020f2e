// The conformance corpus and the real exported models through grammar::parse.
#include <algorithm>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include "grammar/parse.hpp"
#include "test_support.hpp"

namespace grammar_corpus_test {

namespace fs = std::filesystem;

struct Header {
    std::string expect;  // "accept" or "reject"
    std::string stage;   // for rejects
    int where = 0;
    std::string default_verdict;  // "" if absent, else "accept" / "reject"
};

inline Header read_header(const std::string& text) {
    Header h;
    std::istringstream in(text);
    std::string line;
    while (std::getline(in, line) && line.rfind("#", 0) == 0) {
        std::istringstream words(line);
        std::string hash, key;
        words >> hash >> key;
        if (key == "expect:") words >> h.expect >> h.stage;
        else if (key == "where:") words >> h.where;
        else if (key == "default:") words >> h.default_verdict;
    }
    return h;
}

struct Outcome {
    bool ok = false;
    std::vector<nnef::Diagnostic> errors;
    std::string rendered;
};

inline Outcome run(const std::string& name, const std::string& text, bool strict) {
    nnef::SourceManager sm;
    auto id = sm.add(name, text);
    nnef::grammar::ParseOptions opts;
    opts.options.strict = strict;
    nnef::Diagnostics diags;
    Outcome o;
    o.ok = nnef::grammar::parse(sm, id, opts, diags).has_value();
    for (const auto& d : diags) {
        if (d.severity == nnef::Severity::error) o.errors.push_back(d);
        o.rendered += nnef::render(d, sm, false) + "\n";
    }
    return o;
}

// The line of a syntax error is where the corpus marks it (the token found there) or, for a
// missing token, the line after whose last token the error is placed, with that line in a note.
inline bool error_on_line(const std::string& name, const std::string& text, const nnef::Diagnostic& d, int line) {
    nnef::SourceManager sm;
    auto id = sm.add(name, text);
    if (static_cast<int>(sm.line_col(id, d.range.begin).line) == line) return true;
    return std::any_of(d.notes.begin(), d.notes.end(), [&](const nnef::Note& n) {
        return n.range.valid() && static_cast<int>(sm.line_col(id, n.range.begin).line) == line;
    });
}

inline std::vector<fs::path> sorted_files(const fs::path& dir, const std::string& ext) {
    std::vector<fs::path> out;
    for (const auto& e : fs::directory_iterator(dir))
        if (e.is_regular_file() && e.path().extension() == ext) out.push_back(e.path());
    std::sort(out.begin(), out.end());
    return out;
}

}  // namespace grammar_corpus_test

TEST_SUITE("grammar") {

TEST_CASE("conformance corpus") {
    NNEF_REQUIRE_CORPUS();
    using namespace grammar_corpus_test;
    auto root = nnef_test::corpus_dir() / "conformance";
    int passed = 0;
    std::vector<std::string> failed;

    for (const char* sub : {"valid", "invalid"}) {
        for (const auto& path : sorted_files(root / sub, ".nnef")) {
            std::string text = nnef_test::read_text(path);
            Header h = read_header(text);
            std::string name = std::string(sub) + "/" + path.filename().string();
            CAPTURE(name);
            std::string why;
            Outcome strict = run(name, text, true);
            if (h.expect == "reject" && h.stage == "syntax") {
                bool at_line = std::any_of(strict.errors.begin(), strict.errors.end(), [&](const nnef::Diagnostic& d) {
                    return d.stage == nnef::Stage::syntax && error_on_line(name, text, d, h.where);
                });
                if (strict.ok) why = "strict: accepted";
                else if (!at_line) why = "strict: no syntax error on line " + std::to_string(h.where) + ": " + strict.rendered;
            } else if (!strict.ok) {
                why = "strict: rejected: " + strict.rendered;
            }
            if (why.empty()) {
                Outcome dflt = run(name, text, false);
                bool want_accept = h.default_verdict.empty() ? !(h.expect == "reject" && h.stage == "syntax")
                                                             : (h.default_verdict == "accept" ||
                                                                h.stage != "syntax");
                if (want_accept && !dflt.ok) why = "default: rejected: " + dflt.rendered;
                if (!want_accept && dflt.ok) why = "default: accepted";
            }
            CHECK_MESSAGE(why.empty(), why);
            if (why.empty()) ++passed;
            else failed.push_back(name + ": " + why);
        }
    }
    std::ostringstream summary;
    summary << "conformance: " << passed << " passed, " << failed.size() << " failed";
    for (const auto& f : failed) summary << "\n  " << f;
    MESSAGE(summary.str());
}

TEST_CASE("real exported models parse in the default dialect") {
    NNEF_REQUIRE_CORPUS();
    using namespace grammar_corpus_test;
    auto root = nnef_test::corpus_dir() / "real";
    int passed = 0;
    std::vector<std::string> failed;
    for (const auto& e : fs::recursive_directory_iterator(root)) {
        if (!e.is_regular_file() || e.path().filename() != "graph.nnef") continue;
        std::string name = fs::relative(e.path(), root).string();
        CAPTURE(name);
        Outcome o = run(name, nnef_test::read_text(e.path()), false);
        CHECK_MESSAGE(o.ok, o.rendered);
        if (o.ok) ++passed;
        else failed.push_back(name);
    }
    CHECK(passed > 0);
    std::ostringstream summary;
    summary << "real models: " << passed << " passed, " << failed.size() << " failed";
    for (const auto& f : failed) summary << "\n  " << f;
    MESSAGE(summary.str());
}

}  // TEST_SUITE
