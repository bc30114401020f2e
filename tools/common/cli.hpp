// Command-line handling shared by the tools: the option table (the options every tool shares,
// declared once here, and each tool's own, declared the same way), --help generated from it, the
// one style of the tools' messages, the one JSON document of --format json, exit codes.
// docs/cli.md describes the options and the message style, docs/json.md the JSON documents.
#pragma once
#include <cstdint>
#include <functional>
#include <iosfwd>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include <nnef/nnef.hpp>

#include "lowering/tosa/from_nnef.hpp"
#include "lowering/tosa/ir.hpp"

namespace nnef::cli {

// The tools write JSON with nlohmann-json; members keep the order in which they are set.
using Json = nlohmann::ordered_json;

// The version of the JSON documents of docs/json.md (member `schema_version` of each).
constexpr int json_schema_version = 1;

enum Exit : int { ok = 0, invalid = 1, usage = 2 };

// ---- the option table ---------------------------------------------------------------------

// Sets an option from its value (a flag gets ""); returns an error message for a bad value.
using Setter = std::function<std::optional<std::string>(const std::string& value)>;

struct Option {
    std::string name;     // "--rtol"
    std::string alias;    // a second spelling ("-q"), or empty
    std::string arg;      // the value's placeholder ("R"); empty for a flag
    std::string help;     // lines separated by '\n'
    std::string section;  // the heading it is listed under in --help
    Setter set;
    bool shared = false;  // one of the shared options (shared_options())
};

// The options every tool that takes them shares: name, alias, placeholder, help text (with
// "{default}" where the tool's default goes) and section. One table: a tool binds an entry with
// Options::shared and cannot change what it says.
struct SharedOption {
    const char* name;
    const char* alias;
    const char* arg;
    const char* help;
    const char* section;
};
const std::vector<SharedOption>& shared_options();

// Setters for the usual kinds of values.
Setter set_flag(bool& target, bool value = true);
Setter set_text(std::string& target);
Setter set_uint(std::uint64_t& target, std::uint64_t min = 0, std::uint64_t max = UINT64_MAX);
Setter set_optional_uint(std::optional<std::uint64_t>& target);
Setter set_number(double& target);  // a finite non-negative number
Setter set_list(std::vector<std::string>& target);  // comma-separated items, appended
Setter set_choice(std::string& target, std::vector<std::string> choices);

// What a tool is, for --help and messages.
struct ToolSpec {
    std::string name;
    std::string synopsis;     // e.g. "PATH..."
    std::string description;  // paragraphs
    bool many_paths = false;
    std::string exit_status;  // the exit-status paragraph
    std::string epilogue;     // more paragraphs after the options (before the exit status)

    ToolSpec(std::string name_, std::string synopsis_, std::string description_, bool many_paths_ = false,
             std::string exit_status_ = "0 success, 1 invalid input (diagnostics printed), 2 usage or I/O error",
             std::string epilogue_ = "")
        : name(std::move(name_)), synopsis(std::move(synopsis_)), description(std::move(description_)),
          many_paths(many_paths_), exit_status(std::move(exit_status_)), epilogue(std::move(epilogue_)) {}
};

class Options {
public:
    explicit Options(ToolSpec spec) : spec_(std::move(spec)) {}
    const ToolSpec& spec() const { return spec_; }
    // Binds the shared option `name` (shared_options()); `default_text` replaces "{default}" in its
    // help, `more_help` is appended as the tool's own lines (what this tool does with it).
    void shared(const std::string& name, Setter set, const std::string& default_text = "", const std::string& more_help = "");
    // The tool's own option.
    void add(Option option);
    bool has(const std::string& name) const;
    const std::vector<Option>& list() const { return options_; }
    // The --help text.
    std::string help() const;
    // Parses argv (options anywhere, `--name=value` or `--name value`, `--` ends options):
    // returns -1 to go on, 0 after --help or --version (printed), or 2 after a usage error, whose
    // message is `error` (not printed).
    int parse(int argc, char** argv, std::vector<std::string>& paths, std::string& error) const;

private:
    ToolSpec spec_;
    std::vector<Option> options_;
};

// ---- the front end's options --------------------------------------------------------------

struct CommonOptions {
    FlattenOptions flatten;
    std::string format = "text";  // --format
    bool format_given = false;
    bool quiet = false;
    bool shapes = false;
    std::string output;  // -o FILE; empty: stdout
    std::vector<std::string> paths;
    bool json() const { return format == "json"; }
};

// What of the front end a tool takes besides the model options (strict, shapes, limits, ...).
struct FrontEnd {
    std::vector<std::string> formats = {"text", "json"};  // --format's choices, the first the default
    std::string format_help;     // more help of --format
    bool output = false;         // -o FILE
    std::string output_help;     // more help of -o
    bool shapes = false;         // --shapes
    bool expand = false;         // --expand-all, --expand
    bool no_weights = true;      // --no-weights (else the tool binds it itself)
};
void add_front_end(Options& options, CommonOptions& common, const FrontEnd& what);

// ---- messages and the JSON document -------------------------------------------------------

// A tool's run: where its messages go, and its JSON document. Every message has the form
// `WHERE: SEVERITY[STAGE]: text`: WHERE is the file (and line:col or byte offset) a diagnostic is
// about, or the tool's name for what concerns the command line (stage `usage`) or the tool's
// own work. With --format json they all go into the document's `diagnostics` instead, and the
// document (schema_version, tool, exit_status, the tool's members, diagnostics) is the one thing
// on stdout.
class Tool {
public:
    explicit Tool(ToolSpec spec) : options(std::move(spec)) {}
    Options options;
    CommonOptions common;
    Json document = Json::object();  // the tool's members of its JSON document

    const std::string& name() const { return options.spec().name; }
    bool json() const { return common.json(); }
    bool quiet() const { return common.quiet; }

    // Parses argv into the options; exits after --help, --version and usage errors.
    void parse(int argc, char** argv);

    // Diagnostics (text on stderr, or into the document).
    void report(const Diagnostics& diags, const SourceManager& sm);
    void report(const Diagnostics& diags);
    // The diagnostics as JSON without printing them (for documents that nest them).
    Json take_json(const Diagnostics& diags, const SourceManager& sm) const;
    // The tool's own messages: `name: error[stage]: text` ... (stage "usage" for the command line,
    // "io" for files, or a library stage). A note is silenced by --quiet.
    // `file`: the file the message is about (WHERE), else the tool's name is.
    void error(const std::string& stage, const std::string& text, const std::string& file = "");
    void warning(const std::string& stage, const std::string& text, const std::string& file = "");
    void note(const std::string& text);
    // A usage error: the message, the usage line, then exit 2.
    [[noreturn]] void usage_error(const std::string& text);
    // Ends the run: with --format json writes the document (unless written already), then exits.
    [[noreturn]] void finish(int code);
    // Reports `diags` and ends with their failure code.
    [[noreturn]] void fail(const Diagnostics& diags, const SourceManager& sm);
    [[noreturn]] void fail(const Diagnostics& diags);
    // The whole document as it would be written with exit status `code`.
    Json full_document(int code) const;
    // The document has been written elsewhere (e.g. -o FILE); finish() writes nothing to stdout.
    void document_written() { document_written_ = true; }

private:
    void message(const char* severity, const std::string& stage, const std::string& text, const std::string& file = "");
    Json diagnostics_ = Json::array();
    bool document_written_ = false;
};

// ---- older helpers, still used inside the library's tools ---------------------------------

// Prints diagnostics to `err` (text: warnings alike collapsed after a few, nnef::render_list; no
// warning after --quiet) or returns them as a JSON array of the objects that nnef::render_json
// describes (severity, stage, code, message, location, notes).
void print_diagnostics(std::ostream& err, const Diagnostics& diags, const SourceManager& sm, bool warnings);
Json diagnostics_json(const Diagnostics& diags, const SourceManager& sm);

// Exit code for a failed load: usage (2) for I/O problems, invalid (1) otherwise.
int failure_code(const Diagnostics& diags);

// Writes text to -o FILE or stdout; returns false (after `tool` reported an error) on failure.
bool write_output(const std::string& path, const std::string& text, Tool& tool);
// The same, for output written by `write` as it is made (large outputs need no whole string).
bool write_output(const std::string& path, const std::function<void(std::ostream&)>& write, Tool& tool);

// ---- the lowering's choices: --profile and --bias-grid ----------------------------------------
// One rule for every tool that lowers an NNEF model to TOSA (nnef-to-tosa, nnef-to-vpu, nnef-run
// --via tosa): without --profile a quantized model is lowered at PRO-INT, any other at PRO-FP
// (tosa::default_profile), and a note says which; --bias-grid fine|accumulator (default fine) is
// LowerOptions::bias_on_accumulator_grid. docs/cli.md.
struct LoweringChoice {
    std::string profile;    // --profile as given ("pro-fp", "pro-int"), or empty: the rule
    std::string bias_grid;  // --bias-grid as given ("fine", "accumulator"), or empty: fine
};
// Binds --profile and --bias-grid; `profile_help` and `bias_help` are the tool's own lines.
void add_lowering_options(Options& options, LoweringChoice& choice, const std::string& profile_help = "",
                          const std::string& bias_help = "");
// The choice's effect on lowering `model` (`quantization` false: the model runs without its graph.quant,
// nnef-run --no-quant): sets lo.profile (as given, else by the rule, with a note naming the profile
// and why) and lo.bias_on_accumulator_grid. --bias-grid with --profile pro-fp is a usage error; at a
// PRO-FP the rule picked, a note says that it changes nothing. Returns lo.profile.
tosa::Profile apply_lowering_choice(Tool& tool, const LoweringChoice& choice, const nnef::Graph& model, bool quantization,
                                    tosa::LowerOptions& lo);

// "1 task", "2 tasks".
std::string plural(std::uint64_t n, const std::string& word);

// JSON has no infinities or NaN: those are null.
Json json_number(double v);

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
