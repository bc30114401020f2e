// Runs a built tool as a separate process and captures its stdout, stderr and exit code.
#pragma once
#include <sys/wait.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "common/scratch.hpp"
#include "test_support.hpp"

namespace nnef_test {

struct RunResult {
    int code = -1;
    std::string out;
    std::string err;
};

inline std::string shell_quote(const std::string& s) {
    std::string q = "'";
    for (char c : s) {
        if (c == '\'') q += "'\\''";
        else q += c;
    }
    return q + "'";
}

inline std::filesystem::path scratch_dir() { return process_scratch("nnef-tool-tests"); }

// `args` is appended verbatim (quote paths with shell_quote).
inline RunResult run_tool(const std::string& tool, const std::string& args, const std::string& stdin_text = {}) {
    auto dir = scratch_dir();
    auto out = dir / "stdout.txt", err = dir / "stderr.txt", in = dir / "stdin.txt";
    {
        std::ofstream f(in, std::ios::binary);
        f << stdin_text;
    }
    std::string cmd = shell_quote((std::filesystem::path(NNEF_TOOLS_DIR) / tool).string()) + " " + args + " <" +
                      shell_quote(in.string()) + " >" + shell_quote(out.string()) + " 2>" + shell_quote(err.string());
    int status = std::system(cmd.c_str());
    RunResult r;
    r.code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
    r.out = read_text(out);
    r.err = read_text(err);
    return r;
}

// Whether `text` contains `part`, and how many times (overlapping occurrences counted).
inline bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }
inline std::size_t occurrences(const std::string& text, const std::string& part) {
    std::size_t n = 0;
    for (std::size_t at = text.find(part); at != std::string::npos; at = text.find(part, at + 1)) ++n;
    return n;
}

// A path quoted for the shell; a scratch path removed first; a sample's folder.
inline std::string quoted(const std::filesystem::path& p) { return shell_quote(p.string()); }
inline std::filesystem::path fresh_scratch(const std::string& name) {
    std::filesystem::path p = scratch_dir() / name;
    std::filesystem::remove_all(p);
    return p;
}
inline std::filesystem::path sample_dir(const std::string& name) { return source_dir() / "samples" / name; }

inline std::filesystem::path write_scratch(const std::string& name, const std::string& text) {
    auto p = scratch_dir() / name;
    std::filesystem::create_directories(p.parent_path());
    std::ofstream f(p, std::ios::binary);
    f << text;
    return p;
}

// The sections of what --print-after writes on stderr: (pass, text) per "// after PASS" line, the
// text without the blank line that ends it.
inline std::vector<std::pair<std::string, std::string>> print_after_sections(const std::string& err) {
    std::vector<std::pair<std::string, std::string>> sections;
    const std::string mark = "// after ";
    std::size_t at = err.rfind(mark, 0) == 0 ? 0 : err.find("\n" + mark);
    while (at != std::string::npos) {
        if (err[at] == '\n') ++at;
        const std::size_t name_end = err.find('\n', at);
        if (name_end == std::string::npos) break;
        const std::size_t next = err.find("\n" + mark, name_end);
        std::string text = err.substr(name_end + 1, (next == std::string::npos ? err.size() : next + 1) - name_end - 1);
        if (!text.empty() && text.back() == '\n') text.pop_back();  // the blank line after the text
        sections.emplace_back(err.substr(at + mark.size(), name_end - at - mark.size()), text);
        at = next;
    }
    return sections;
}

}  // namespace nnef_test
