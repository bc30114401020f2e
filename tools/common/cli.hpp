// Command-line handling shared by the tools: options, diagnostics output, exit codes.
#pragma once
#include <functional>
#include <iosfwd>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include <nnef/nnef.hpp>

#include "lowering/tosa/ir.hpp"

namespace nnef::cli {

// The tools write JSON with nlohmann-json; members keep the order in which they are set.
using Json = nlohmann::ordered_json;

enum Exit : int { ok = 0, invalid = 1, usage = 2 };

struct CommonOptions {
    FlattenOptions flatten;
    bool json = false;
    bool quiet = false;
    bool shapes = false;
    std::string output;  // -o FILE; empty: stdout
    std::set<std::string> flags;  // the ToolSpec::flags given
    std::vector<std::string> paths;
};

// What a tool accepts besides the common front-end options.
struct ToolSpec {
    const char* name;
    const char* synopsis;     // e.g. "PATH..."
    const char* description;  // one paragraph
    bool many_paths = false;
    bool has_output = false;  // -o FILE
    bool has_shapes = false;  // --shapes
    bool has_expand = false;  // --expand-all, --expand
    // Boolean options of this tool alone: (name, help text), e.g. {"--no-tosa", "skip ..."}.
    std::vector<std::pair<std::string, std::string>> flags = {};
};

// Parses argv. Returns -1 to continue, or an exit code (after --help, --version or a usage error,
// which it has printed).
int parse_args(int argc, char** argv, const ToolSpec& spec, CommonOptions& out);

// Prints diagnostics to `err` (text: warnings alike collapsed after a few, nnef::render_list; no
// warning after --quiet) or returns them as a JSON array of the objects that nnef::render_json
// describes (severity, stage, code, message, location, notes).
void print_diagnostics(std::ostream& err, const Diagnostics& diags, const SourceManager& sm);
void print_diagnostics(std::ostream& err, const Diagnostics& diags, const SourceManager& sm, bool warnings);
Json diagnostics_json(const Diagnostics& diags, const SourceManager& sm);

// Exit code for a failed load: usage (2) for I/O problems, invalid (1) otherwise.
int failure_code(const Diagnostics& diags);

// Writes text to -o FILE or stdout; returns false (after printing an error) on failure.
bool write_output(const std::string& path, const std::string& text, const char* tool);
// The same, for output written by `write` as it is made (large outputs need no whole string).
bool write_output(const std::string& path, const std::function<void(std::ostream&)>& write, const char* tool);

// The value of a lowering tool's `--profile` option (nnef-to-tosa, nnef-to-vpu): "pro-fp" or
// "pro-int"; nothing for any other text.
std::optional<tosa::Profile> parse_profile(const std::string& value);
// Its help line, the same in every tool that takes it (a macro: the tools' help texts are literals).
#define NNEF_CLI_PROFILE_HELP "  --profile pro-fp|pro-int the TOSA profile (default pro-fp; pro-int for quantized models)\n"

// Sets up the process's allocator for a tool that loads one model and exits (glibc; elsewhere, and
// under the sanitizers, nothing): one heap for every thread (the front end runs on a deep-stack
// thread and reads large documents on another), large buffers from that heap instead of fresh
// mappings, freed memory kept for reuse, and the heap grown in 64 MiB steps, the first of them at
// once with transparent huge pages advised on it. A 100k-operation graph otherwise takes some 4,600
// page faults and 1,200 mprotect calls as the heap grows a page at a time; with it, some 400 and
// none. Call it first in main, before any thread starts.
void tune_allocator();

// Flushes stdout/stderr and ends the process with `code` without running destructors. A tool
// calls it while its last Session is still alive: freeing a large graph's millions of small
// objects one by one costs a quarter of a run, and the operating system reclaims it all at once.
// Output that fails to flush turns a success into exit code 2.
[[noreturn]] void exit_now(int code);

}  // namespace nnef::cli
