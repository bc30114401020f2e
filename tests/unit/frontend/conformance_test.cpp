// Acceptance: every conformance document gives the verdict, stage, line and output shapes its
// header states (strict dialect; `# default:` lines in the default dialect).
#include <doctest/doctest.h>

#include <nnef/nnef.hpp>

#include <algorithm>
#include <filesystem>
#include <iostream>
#include <sstream>

#include "test_support.hpp"

namespace conformance_test {

namespace fs = std::filesystem;

struct Expectation {
    bool accept = true;
    std::string stage;
    int line = 0;
    bool has_default = false;
    bool default_accept = true;
    std::string default_stage;
    std::vector<std::pair<std::string, std::string>> shapes;  // name -> "[1,2]"
};

std::string trim(std::string s) {
    while (!s.empty() && (s.back() == ' ' || s.back() == '\r' || s.back() == ';')) s.pop_back();
    while (!s.empty() && s.front() == ' ') s.erase(s.begin());
    return s;
}

Expectation read_header(const std::string& text) {
    Expectation x;
    std::istringstream in(text);
    std::string line;
    while (std::getline(in, line) && line.rfind("#", 0) == 0) {
        auto field = [&](const char* key) -> std::string {
            std::string k = std::string("# ") + key + ":";
            return line.rfind(k, 0) == 0 ? trim(line.substr(k.size())) : std::string("\x01");
        };
        std::string v;
        if ((v = field("expect")) != "\x01") {
            std::istringstream ss(v);
            std::string verdict;
            ss >> verdict >> x.stage;
            x.accept = verdict == "accept";
        } else if ((v = field("where")) != "\x01") {
            x.line = std::atoi(v.c_str());
        } else if ((v = field("default")) != "\x01") {
            std::istringstream ss(v);
            std::string verdict;
            ss >> verdict >> x.default_stage;
            x.has_default = true;
            x.default_accept = verdict == "accept";
        } else if ((v = field("shapes")) != "\x01") {
            std::istringstream ss(v);
            std::string item;
            while (std::getline(ss, item, ';')) {
                item = trim(item);
                auto eq = item.find('=');
                if (eq != std::string::npos) x.shapes.emplace_back(trim(item.substr(0, eq)), trim(item.substr(eq + 1)));
            }
        }
    }
    return x;
}

// Returns an empty string when the outcome matches, else what went wrong.
std::string verify(const fs::path& file, const std::string& text, bool strict, bool accept, const std::string& stage, int line,
                   const std::vector<std::pair<std::string, std::string>>& shapes) {
    nnef::FlattenOptions opts;
    opts.options.strict = strict;
    nnef::Session s(opts);
    bool ok = s.load_text(file.filename().string(), text);
    std::ostringstream why;
    const nnef::Diagnostic* first = nullptr;
    for (const nnef::Diagnostic& d : s.diagnostics())
        if (d.severity == nnef::Severity::error) {
            first = &d;
            break;
        }
    if (accept) {
        if (!ok) {
            why << "rejected: " << (first ? nnef::render(*first, s.sources(), false) : std::string("(no error)"));
            return why.str();
        }
        for (const auto& [name, shape] : shapes) {
            const nnef::Tensor* t = s.graph()->tensor(name);
            std::string got = t && t->shape ? nnef::to_string(*t->shape) : std::string("<none>");
            if (got != shape) why << "shape of " << name << " is " << got << ", expected " << shape << "; ";
        }
        return why.str();
    }
    if (ok) return "accepted, expected reject " + stage;
    if (!first) return "failed without an error";
    std::string got_stage = nnef::to_string(first->stage);
    int got_line = first->range.valid() ? static_cast<int>(s.sources().begin(first->range).line) : 0;
    // A missing token is reported after the token before it, with the line the header marks (the
    // token found instead) in a note.
    for (const nnef::Note& n : first->notes)
        if (line && got_line != line && n.range.valid() && static_cast<int>(s.sources().begin(n.range).line) == line)
            got_line = line;
    if (got_stage != stage || (line && got_line != line)) {
        why << "expected " << stage << " error on line " << line << ", got " << nnef::render(*first, s.sources(), false);
        return why.str();
    }
    return {};
}

}  // namespace conformance_test

TEST_SUITE("frontend") {
    TEST_CASE("conformance corpus: valid and invalid documents") {
        NNEF_REQUIRE_CORPUS();
        namespace ct = conformance_test;
        std::vector<ct::fs::path> files;
        for (const char* sub : {"valid", "invalid"})
            for (const auto& e : ct::fs::directory_iterator(nnef_test::corpus_dir() / "conformance" / sub))
                if (e.path().extension() == ".nnef") files.push_back(e.path());
        std::sort(files.begin(), files.end());
        int passed = 0, failed = 0;
        for (const auto& f : files) {
            std::string text = nnef_test::read_text(f);
            ct::Expectation x = ct::read_header(text);
            std::string problem = ct::verify(f, text, true, x.accept, x.stage, x.line, x.shapes);
            if (problem.empty() && x.has_default)
                problem = ct::verify(f, text, false, x.default_accept, x.default_stage, 0, x.accept ? x.shapes : decltype(x.shapes){});
            if (problem.empty()) {
                ++passed;
            } else {
                ++failed;
                std::cout << "FAIL " << f.parent_path().filename().string() << "/" << f.filename().string() << ": " << problem << "\n";
            }
        }
        std::cout << "conformance: " << passed << " passed, " << failed << " failed\n";
        CHECK(failed == 0);
    }
}
