// The type checker against the conformance corpus: every `reject semantic` document is rejected
// with a semantic error on its `# where:` line (strict mode, and the `# default:` verdict in the
// default dialect); valid documents and `reject shape` documents give no semantic error.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "grammar/parse.hpp"
#include "semantics/checker.hpp"
#include "semantics/stdlib.hpp"
#include "test_support.hpp"

namespace checker_corpus_test {

struct Header {
    std::string expect;             // text after `# expect:`
    std::optional<unsigned> where;  // `# where:`
    std::string default_verdict;    // text after `# default:` ("" if absent)
};

inline std::string trim(std::string s) {
    while (!s.empty() && (s.back() == '\r' || s.back() == ' ')) s.pop_back();
    std::size_t b = s.find_first_not_of(' ');
    return b == std::string::npos ? std::string() : s.substr(b);
}

inline Header read_header(const std::string& text) {
    Header h;
    std::istringstream in(text);
    std::string line;
    while (std::getline(in, line) && line.rfind("#", 0) == 0) {
        auto field = [&](const char* key) -> std::optional<std::string> {
            const std::string k = std::string("# ") + key + ":";
            if (line.rfind(k, 0) != 0) return std::nullopt;
            return trim(line.substr(k.size()));
        };
        if (auto v = field("expect")) h.expect = *v;
        if (auto v = field("where")) h.where = static_cast<unsigned>(std::stoul(*v));
        if (auto v = field("default")) h.default_verdict = *v;
    }
    return h;
}

struct Run {
    bool parsed = false;
    std::vector<std::pair<unsigned, std::string>> semantic_errors;  // line, "code: message"
};

inline Run check_text(const std::string& name, const std::string& text, bool strict) {
    nnef::SourceManager sm;
    nnef::Diagnostics lib_diags;
    auto stdlib = nnef::sema::load_stdlib(sm, strict, lib_diags);
    const std::uint32_t file = sm.add(name, text);
    nnef::grammar::ParseOptions popts;
    popts.options.strict = strict;
    nnef::Diagnostics diags;
    Run r;
    auto doc = nnef::grammar::parse(sm, file, popts, diags);
    if (!doc) return r;
    r.parsed = true;
    nnef::Options opts;
    opts.strict = strict;
    nnef::sema::check(*doc, stdlib, opts, diags);
    for (const nnef::Diagnostic& d : diags)
        if (d.severity == nnef::Severity::error && d.stage == nnef::Stage::semantic)
            r.semantic_errors.emplace_back(d.range.valid() ? sm.begin(d.range).line : 0, d.code + ": " + d.message);
    return r;
}

inline std::vector<std::filesystem::path> files(const std::filesystem::path& dir) {
    std::vector<std::filesystem::path> out;
    if (!std::filesystem::is_directory(dir)) return out;
    for (const auto& e : std::filesystem::directory_iterator(dir))
        if (e.path().extension() == ".nnef") out.push_back(e.path());
    std::sort(out.begin(), out.end());
    return out;
}

}  // namespace checker_corpus_test

TEST_SUITE("semantics") {

TEST_CASE("checker corpus: semantic rejections, valid documents, shape rejections") {
    NNEF_REQUIRE_CORPUS();
    using namespace checker_corpus_test;
    const auto root = nnef_test::corpus_dir() / "conformance";
    int passed = 0, failed = 0, unparsed = 0;
    const bool dump = std::getenv("NNEF_CHECKER_DUMP") != nullptr;  // every diagnostic, for review
    std::vector<std::string> failures, not_parsed;

    auto verdict = [&](const std::string& what, bool ok, const std::string& why) {
        if (ok) {
            ++passed;
        } else {
            ++failed;
            failures.push_back(what + ": " + why);
        }
    };
    auto describe = [](const Run& r) {
        std::string s;
        for (const auto& [line, msg] : r.semantic_errors) s += " [line " + std::to_string(line) + " " + msg + "]";
        return s.empty() ? std::string(" [no semantic error]") : s;
    };

    for (const auto& path : files(root / "invalid")) {
        const std::string text = nnef_test::read_text(path);
        const Header h = read_header(text);
        const std::string name = path.filename().string();
        const bool semantic = h.expect.rfind("reject semantic", 0) == 0;
        const bool shape = h.expect.rfind("reject shape", 0) == 0;
        if (!semantic && !shape) continue;
        for (bool strict : {true, false}) {
            const std::string label = name + (strict ? " (strict)" : " (default)");
            Run r = check_text(name, text, strict);
            if (dump && strict) MESSAGE(label << describe(r));
            if (!r.parsed) {
                ++unparsed;
                not_parsed.push_back(label);
                continue;
            }
            if (shape || (!strict && h.default_verdict.rfind("accept", 0) == 0)) {
                verdict(label, r.semantic_errors.empty(), "expected no semantic error, got" + describe(r));
            } else if (!strict && !h.default_verdict.empty() && h.default_verdict.rfind("reject semantic", 0) != 0) {
                continue;  // another stage's verdict in the default dialect: not ours
            } else {
                const bool ok = !r.semantic_errors.empty() && h.where && r.semantic_errors.front().first == *h.where;
                verdict(label, ok,
                        "expected a first semantic error on line " + (h.where ? std::to_string(*h.where) : "?") +
                            ", got" + describe(r));
            }
        }
    }
    for (const auto& path : files(root / "valid")) {
        const std::string text = nnef_test::read_text(path);
        const std::string name = path.filename().string();
        Run r = check_text(name, text, true);
        if (!r.parsed) {
            ++unparsed;
            not_parsed.push_back(name);
            continue;
        }
        verdict(name, r.semantic_errors.empty(), "expected no semantic error, got" + describe(r));
    }

    std::string report = std::to_string(passed) + " passed, " + std::to_string(failed) + " failed";
    for (const std::string& f : failures) report += "\n  FAIL " + f;
    if (unparsed) {
        report += "\n" + std::to_string(unparsed) + " not parsed (the grammar's concern):";
        for (const std::string& f : not_parsed) report += "\n  " + f;
    }
    MESSAGE(report);
    CHECK(failed == 0);
}

TEST_CASE("checker corpus: real exported models type-check in the default dialect") {
    NNEF_REQUIRE_CORPUS();
    using namespace checker_corpus_test;
    const auto root = nnef_test::corpus_file("real");
    int checked = 0;
    std::vector<std::filesystem::path> models;
    for (const auto& e : std::filesystem::directory_iterator(root)) models.push_back(e.path());
    std::sort(models.begin(), models.end());
    for (const auto& dir : models)
        for (const auto& path : {dir / "graph.nnef", dir / "optimized" / "graph.nnef"}) {
            if (!std::filesystem::exists(path)) continue;
            const std::string label = std::filesystem::relative(path, root).string();
            Run r = check_text(label, nnef_test::read_text(path), false);
            if (!r.parsed) {
                MESSAGE(label << ": not parsed (the grammar's concern)");
                continue;
            }
            ++checked;
            std::string errors;
            for (const auto& [line, msg] : r.semantic_errors) errors += "\n  line " + std::to_string(line) + " " + msg;
            INFO(label << errors);
            CHECK(r.semantic_errors.empty());
        }
    MESSAGE(checked << " real models checked");
}

}  // TEST_SUITE
