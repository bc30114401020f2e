// Acceptance of the quantization corpus: every model folder in conformance/quant/ loads through
// nnef::Session (strict dialect) with the verdict, stage and graph.quant line its graph.nnef
// header states (`# expect: accept|reject <stage>`, `# where: graph.quant:LINE`).
#include <doctest/doctest.h>

#include <nnef/nnef.hpp>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "test_support.hpp"

namespace quant_conformance_test {

namespace fs = std::filesystem;

struct Expectation {
    bool accept = true;
    std::string stage;
    std::string file;  // of `# where: FILE:LINE`
    int line = 0;
};

Expectation read_header(const std::string& text) {
    Expectation x;
    std::istringstream in(text);
    std::string line;
    while (std::getline(in, line) && line.rfind('#', 0) == 0) {
        std::istringstream ss(line.substr(1));
        std::string key;
        ss >> key;
        if (key == "expect:") {
            std::string verdict;
            ss >> verdict >> x.stage;
            x.accept = verdict == "accept";
        } else if (key == "where:") {
            std::string where;
            ss >> where;
            auto colon = where.rfind(':');
            if (colon != std::string::npos) {
                x.file = where.substr(0, colon);
                x.line = std::atoi(where.c_str() + colon + 1);
            }
        }
    }
    return x;
}

bool ends_with(const std::string& s, const std::string& tail) {
    return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

// Empty when the outcome matches the header, else what went wrong.
std::string verify(const fs::path& dir, const Expectation& x) {
    nnef::FlattenOptions opts;
    opts.options.strict = true;
    nnef::Session s(opts);
    bool ok = s.load_path(dir.string());
    const nnef::Diagnostic* first = nullptr;
    for (const nnef::Diagnostic& d : s.diagnostics())
        if (d.severity == nnef::Severity::error) {
            first = &d;
            break;
        }
    if (x.accept) {
        if (ok) return {};
        return "rejected: " + (first ? nnef::render(*first, s.sources(), false) : std::string("(no error)"));
    }
    if (ok) return "accepted, expected reject " + x.stage;
    if (!first) return "failed without an error";
    bool in_file = first->range.valid() && ends_with(s.sources().name(first->range.file), x.file);
    int line = first->range.valid() ? static_cast<int>(s.sources().begin(first->range).line) : 0;
    if (nnef::to_string(first->stage) != x.stage || !in_file || line != x.line)
        return "expected " + x.stage + " error at " + x.file + ":" + std::to_string(x.line) + ", got " +
               nnef::render(*first, s.sources(), false);
    return {};
}

}  // namespace quant_conformance_test

TEST_SUITE("frontend") {
    TEST_CASE("conformance corpus: quantization files") {
        NNEF_REQUIRE_CORPUS();
        namespace qc = quant_conformance_test;
        std::vector<qc::fs::path> dirs;
        for (const auto& e : qc::fs::directory_iterator(nnef_test::corpus_dir() / "conformance" / "quant"))
            if (e.is_directory()) dirs.push_back(e.path());
        std::sort(dirs.begin(), dirs.end());
        REQUIRE_FALSE(dirs.empty());
        int passed = 0, failed = 0;
        for (const auto& dir : dirs) {
            qc::Expectation x = qc::read_header(nnef_test::read_text(dir / "graph.nnef"));
            std::string problem = qc::verify(dir, x);
            if (problem.empty()) {
                ++passed;
            } else {
                ++failed;
                std::cout << "FAIL quant/" << dir.filename().string() << ": " << problem << "\n";
            }
        }
        std::cout << "quant conformance: " << passed << " passed, " << failed << " failed\n";
        CHECK(failed == 0);
    }
}
