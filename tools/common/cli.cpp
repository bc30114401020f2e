#include "cli.hpp"

#include <nnef/detail/huge_pages.hpp>

#if defined(__GLIBC__)
#include <malloc.h>
#include <unistd.h>
#endif

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <iostream>
#include <sstream>
#include <type_traits>

namespace nnef::cli {

void tune_allocator() {
#if defined(__GLIBC__) && !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_THREAD__)
    constexpr std::size_t mib = std::size_t(1) << 20;
    ::mallopt(M_ARENA_MAX, 1);
    ::mallopt(M_MMAP_THRESHOLD, static_cast<int>(256 * mib));
    ::mallopt(M_TRIM_THRESHOLD, static_cast<int>(512 * mib));
    ::mallopt(M_TOP_PAD, static_cast<int>(64 * mib));
    // One allocation beyond the heap's free top grows it by 64 MiB now; freed, it stays in the heap.
    char* const before = static_cast<char*>(::sbrk(0));
    void* volatile grow = std::malloc(mib);  // volatile: the compiler may not drop the pair
    char* const after = static_cast<char*>(::sbrk(0));
    std::free(grow);
    if (before != reinterpret_cast<char*>(-1) && after > before)
        detail::advise_huge_pages(before, static_cast<std::size_t>(after - before));
#endif
}

// ---- the shared option table --------------------------------------------------------------

const std::vector<SharedOption>& shared_options() {
    static const std::vector<SharedOption> table = {
        // the model (the front end)
        {"--strict", "", "", "NNEF 1.0 revision 3 exactly (default: also later 1.0.x additions\nand the de facto forms of exported models, with warnings)", "model"},
        {"--input-shape", "", "NAME=D,...", "override the shape of graph input NAME (repeatable)", "model"},
        {"--no-weights", "", "", "do not read tensor files: the structure only", "model"},
        {"--no-fast-path", "", "", "take plain flat documents through the full front end too", "model"},
        {"--single-thread", "", "", "read large plain flat documents on the calling thread only\n(same results; for comparison)", "model"},
        {"--expand-all", "", "", "expand every standard compound down to primitives", "model"},
        {"--expand", "", "NAME,...", "expand the named standard compounds", "model"},
        // limits
        {"--max-errors", "", "N", "stop after N errors (default 20; 0 = no limit)", "limits"},
        {"--max-recursion", "", "N", "fragment expansion depth limit (default 1000)", "limits"},
        {"--max-nesting", "", "N", "expression nesting depth limit (default 512)", "limits"},
        {"--max-operations", "", "N", "limit on operations produced by expansion (default 50000000)", "limits"},
        {"--max-value-items", "", "N", "limit on items in one compile-time value (default 4194304)", "limits"},
        {"--max-expansions", "", "N", "limit on fragment bodies expanded (default 1000000)", "limits"},
        {"--max-work", "", "N", "limit on the work of expansion beyond the text: expressions\nevaluated in fragments and comprehensions, items built,\n32 per fragment expanded, 128+ per operation\nmade there; +1024 per graph statement (default 16000000)", "limits"},
        {"--max-string-length", "", "N", "limit on bytes in one string or identifier (default 1048576)", "limits"},
        {"--max-rank", "", "N", "limit on the rank of a tensor of the graph (default 64;\ntensor files hold at most rank 8 anyway)", "limits"},
        {"--max-volume", "", "N", "limit on items in one tensor (default 1099511627776)", "limits"},
        {"--max-archive-members", "", "N", "limit on files in a model folder or .tar/.tgz (default 1000000)", "limits"},
        {"--max-archive-bytes", "", "N", "limit on decompressed bytes of a .tar/.tgz model (default 17179869184)", "limits"},
        // values
        {"--input", "", "NAME=VALUE", "the value of graph input NAME: FILE.dat (a tensor file) or random:SEED\n(pseudo-random: scalar N(0,1), integer [0,10), logical 50/50);\nVALUE alone for a graph with one input (repeatable)", "values"},
        {"--random-weights", "", "SEED", "variables get pseudo-random values from SEED instead of stored\ndata (for models stored without weights; no tensor files are read)", "values"},
        // outputs and comparison
        {"--output-dir", "", "DIR", "write each output to DIR/NAME.dat (real values; see --output-codes)", "outputs"},
        {"--output-codes", "", "", "write quantized outputs (graph.quant) as their integer codes instead", "outputs"},
        {"--compare", "", "DIR", "compare each output with DIR/NAME.dat (DIR/output.dat for one output):\nmatch when max|out - ref| <= atol + rtol * max|ref| with no NaN or\ninfinity on one side only; a quantized output (graph.quant) matches\nwhen at most --max-quanta-off quanta off and at most --max-share-off\nof its items more than one quantum off (docs/cli.md)", "outputs"},
        {"--rtol", "", "R", "relative tolerance of --compare (default {default})", "outputs"},
        {"--atol", "", "A", "absolute tolerance of --compare (default {default})", "outputs"},
        {"--max-quanta-off", "", "N", "quantized outputs: largest difference in quanta (default {default})", "outputs"},
        {"--max-share-off", "", "P", "quantized outputs: largest share of items more than one quantum\noff (default {default})", "outputs"},
        // lowering
        {"--profile", "", "PROFILE", "the TOSA profile, pro-fp or pro-int (default: pro-int for a\nquantized model (graph.quant), else pro-fp; a note says which)", "lowering"},
        {"--bias-grid", "", "GRID", "PRO-INT: where a convolution's float bias that lies between the\naccumulator's steps is added: fine (default; nnef-run's codes:\nclamp, MUL and ADD on the accumulator before its RESCALE) or\naccumulator (rounded to its steps: CONV2D + RESCALE, one NCE\nlayer, fewer cycles; codes near ties move; docs/tosa-lowering.md)", "lowering"},
        {"--verify-each", "", "", "verify the IR after every lowering pass (default {default})", "lowering"},
        {"--no-verify-each", "", "", "verify the IR at the end only", "lowering"},
        {"--print-after", "", "PASS", "print the IR after PASS (or 'all') on stderr (repeatable); passes:\n{default}", "lowering"},
        // output and messages
        {"--format", "", "FORMAT", "the output's format: {default}\n(json: one JSON document on stdout with the result and the\ndiagnostics, docs/json.md)", "output"},
        {"-o", "", "FILE", "write the output to FILE (default: stdout)", "output"},
        {"--shapes", "", "", "add each tensor's dtype and shape as a trailing comment", "output"},
        {"--quiet", "-q", "", "print errors only (no results, notes or warnings)", "output"},
    };
    return table;
}

Setter set_flag(bool& target, bool value) {
    return [&target, value](const std::string&) -> std::optional<std::string> {
        target = value;
        return std::nullopt;
    };
}

Setter set_text(std::string& target) {
    return [&target](const std::string& v) -> std::optional<std::string> {
        if (v.empty()) return std::string("needs a value");
        target = v;
        return std::nullopt;
    };
}

namespace cli_cpp {

bool parse_size(const std::string& s, std::uint64_t& out) {
    if (s.empty() || s.size() > 19 || s.find_first_not_of("0123456789") != std::string::npos) return false;
    out = std::strtoull(s.c_str(), nullptr, 10);
    return true;
}

bool parse_shape_arg(const std::string& arg, std::string& name, Shape& shape) {
    auto eq = arg.find('=');
    if (eq == std::string::npos || eq == 0) return false;
    name = arg.substr(0, eq);
    std::stringstream ss(arg.substr(eq + 1));
    std::string item;
    shape.clear();
    while (std::getline(ss, item, ',')) {
        std::uint64_t v = 0;
        if (!parse_size(item, v)) return false;
        shape.push_back(static_cast<std::int64_t>(v));
    }
    return !shape.empty();
}

template <class Field>
Setter set_limit(Field& field) {
    return [&field](const std::string& v) -> std::optional<std::string> {
        std::uint64_t n = 0;
        if (!parse_size(v, n) || n > std::uint64_t(std::numeric_limits<Field>::max())) return std::string("needs a non-negative integer");
        field = static_cast<Field>(n);
        return std::nullopt;
    };
}

void wrap_help(std::ostream& os, const std::string& head, const std::string& help) {
    constexpr std::size_t column = 27;
    std::string line = "  " + head;
    std::stringstream ss(help);
    std::string text;
    bool first = true;
    while (std::getline(ss, text, '\n')) {
        if (first) {
            if (line.size() + 1 > column) {
                os << line << "\n";
                line.clear();
            }
            line.resize(column, ' ');
            os << line << text << "\n";
            first = false;
        } else {
            os << std::string(column, ' ') << text << "\n";
        }
    }
    if (first) os << line << "\n";
}

}  // namespace cli_cpp

Setter set_uint(std::uint64_t& target, std::uint64_t min, std::uint64_t max) {
    return [&target, min, max](const std::string& v) -> std::optional<std::string> {
        std::uint64_t n = 0;
        if (!cli_cpp::parse_size(v, n) || n < min || n > max) {
            if (max == UINT64_MAX && min == 1) return "needs a positive integer, not '" + v + "'";
            if (max == UINT64_MAX) return "needs an integer >= " + std::to_string(min) + ", not '" + v + "'";
            return "needs an integer in [" + std::to_string(min) + ", " + std::to_string(max) + "], not '" + v + "'";
        }
        target = n;
        return std::nullopt;
    };
}

Setter set_optional_uint(std::optional<std::uint64_t>& target) {
    return [&target](const std::string& v) -> std::optional<std::string> {
        std::uint64_t n = 0;
        if (!cli_cpp::parse_size(v, n)) return "needs a non-negative integer seed, not '" + v + "'";
        target = n;
        return std::nullopt;
    };
}

Setter set_number(double& target) {
    return [&target](const std::string& v) -> std::optional<std::string> {
        char* end = nullptr;
        const double d = std::strtod(v.c_str(), &end);
        if (v.empty() || end != v.c_str() + v.size() || !std::isfinite(d) || d < 0.0)
            return "needs a non-negative number, not '" + v + "'";
        target = d;
        return std::nullopt;
    };
}

Setter set_list(std::vector<std::string>& target) {
    return [&target](const std::string& v) -> std::optional<std::string> {
        std::stringstream ss(v);
        std::string item;
        while (std::getline(ss, item, ','))
            if (!item.empty()) target.push_back(item);
        return std::nullopt;
    };
}

Setter set_choice(std::string& target, std::vector<std::string> choices) {
    return [&target, choices](const std::string& v) -> std::optional<std::string> {
        if (std::find(choices.begin(), choices.end(), v) == choices.end()) {
            std::string list;
            for (std::size_t i = 0; i < choices.size(); ++i)
                list += (i == 0 ? "'" : i + 1 == choices.size() ? " or '" : ", '") + choices[i] + "'";
            return "takes " + list + ", not '" + v + "'";
        }
        target = v;
        return std::nullopt;
    };
}

void Options::shared(const std::string& name, Setter set, const std::string& default_text, const std::string& more_help) {
    for (const SharedOption& s : shared_options()) {
        if (name != s.name) continue;
        std::string help = s.help;
        const auto at = help.find("{default}");
        if (at != std::string::npos) help.replace(at, 9, default_text);
        if (!more_help.empty()) help += "\n" + more_help;
        add({s.name, s.alias, s.arg, help, s.section, std::move(set), true});
        return;
    }
    throw std::logic_error("no shared option " + name);  // a tool's mistake, found by its tests
}

void Options::add(Option option) { options_.push_back(std::move(option)); }

bool Options::has(const std::string& name) const {
    for (const Option& o : options_)
        if (o.name == name) return true;
    return false;
}

std::string Options::help() const {
    std::ostringstream os;
    os << "usage: " << spec_.name << " [options] " << spec_.synopsis << "\n\n" << spec_.description << "\n";
    std::vector<std::string> sections;
    for (const Option& o : options_)
        if (std::find(sections.begin(), sections.end(), o.section) == sections.end()) sections.push_back(o.section);
    // the output and messages last
    const auto output = std::find(sections.begin(), sections.end(), "output");
    if (output != sections.end()) std::rotate(output, output + 1, sections.end());
    for (const std::string& s : sections) {
        os << "\n" << s << " options:\n";
        for (const Option& o : options_) {
            if (o.section != s) continue;
            std::string head = o.name + (o.alias.empty() ? "" : ", " + o.alias) + (o.arg.empty() ? "" : " " + o.arg);
            cli_cpp::wrap_help(os, head, o.help);
        }
    }
    os << "\n  --help, --version\n";
    if (!spec_.epilogue.empty()) os << "\n" << spec_.epilogue << "\n";
    os << "\nexit status: " << spec_.exit_status << "\n";
    return os.str();
}

namespace cli_cpp {

void usage_message(const ToolSpec& spec, const std::string& message) {
    std::cerr << spec.name << ": error[usage]: " << message << "\n"
              << "usage: " << spec.name << " [options] " << spec.synopsis << " (try --help)\n";
}

}  // namespace cli_cpp

int Options::parse(int argc, char** argv, std::vector<std::string>& paths, std::string& error) const {
    bool options_end = false;
    for (int i = 1; i < argc; ++i) {
        std::string a = argv[i];
        if (options_end || a == "-" || a.empty() || a[0] != '-') {
            paths.push_back(a);
            continue;
        }
        if (a == "--") {
            options_end = true;
            continue;
        }
        if (a == "--help" || a == "-h") {
            std::cout << help();
            return ok;
        }
        if (a == "--version") {
            std::cout << spec_.name << " (nnef toolkit) " << nnef::version() << "\n";
            return ok;
        }
        std::string key = a, value;
        bool inline_value = false;
        const auto eq = a.find('=');
        if (a.rfind("--", 0) == 0 && eq != std::string::npos) {
            key = a.substr(0, eq);
            value = a.substr(eq + 1);
            inline_value = true;
        }
        const Option* found = nullptr;
        for (const Option& o : options_)
            if (o.name == key || (!o.alias.empty() && o.alias == key)) found = &o;
        if (!found) {
            error = "unknown option '" + key + "'";
            return usage;
        }
        if (found->arg.empty()) {
            if (inline_value) {
                error = "option '" + key + "' takes no value";
                return usage;
            }
        } else if (!inline_value) {
            if (i + 1 >= argc) {
                error = "option '" + key + "' needs a value (" + found->arg + ")";
                return usage;
            }
            value = argv[++i];
        }
        if (auto bad = found->set(value)) {
            error = found->name + " " + *bad;
            return usage;
        }
    }
    if (paths.empty()) {
        error = "no input given";
        return usage;
    }
    if (!spec_.many_paths && paths.size() > 1) {
        error = "only one input may be given";
        return usage;
    }
    return -1;
}

void add_front_end(Options& options, CommonOptions& c, const FrontEnd& what) {
    FlattenOptions& f = c.flatten;
    Limits& l = f.options.limits;
    options.shared("--strict", set_flag(f.options.strict));
    options.shared("--input-shape", [&f](const std::string& v) -> std::optional<std::string> {
        std::string name;
        Shape shape;
        if (!cli_cpp::parse_shape_arg(v, name, shape)) return "'" + v + "' is not NAME=D0,D1,...";
        f.input_shapes[name] = shape;
        return std::nullopt;
    });
    if (what.no_weights) options.shared("--no-weights", set_flag(f.load_weights, false));
    options.shared("--no-fast-path", set_flag(f.plain_fast_path, false));
    options.shared("--single-thread", set_flag(f.parallel_scan, false));
    if (what.expand) {
        options.shared("--expand-all", set_flag(f.expand_all));
        options.shared("--expand", set_list(f.expand));
    }
    options.shared("--max-errors", cli_cpp::set_limit(l.max_errors));
    options.shared("--max-recursion", cli_cpp::set_limit(l.max_recursion));
    options.shared("--max-nesting", cli_cpp::set_limit(l.max_nesting));
    options.shared("--max-operations", cli_cpp::set_limit(l.max_operations));
    options.shared("--max-value-items", cli_cpp::set_limit(l.max_value_items));
    options.shared("--max-expansions", cli_cpp::set_limit(l.max_expansions));
    options.shared("--max-work", cli_cpp::set_limit(l.max_work));
    options.shared("--max-string-length", cli_cpp::set_limit(l.max_string_length));
    options.shared("--max-rank", cli_cpp::set_limit(l.max_rank));
    options.shared("--max-volume", cli_cpp::set_limit(l.max_volume));
    options.shared("--max-archive-members", cli_cpp::set_limit(f.max_archive_members));
    options.shared("--max-archive-bytes", cli_cpp::set_limit(f.max_archive_bytes));
    c.format = what.formats.front();
    std::string choices;
    for (std::size_t i = 0; i < what.formats.size(); ++i) choices += (i ? "|" : "") + what.formats[i];
    Setter choose = set_choice(c.format, what.formats);
    options.shared("--format", [&c, choose](const std::string& v) {
        c.format_given = true;
        return choose(v);
    }, choices + " (default " + what.formats.front() + ")", what.format_help);
    if (what.output) options.shared("-o", set_text(c.output), "", what.output_help);
    if (what.shapes) options.shared("--shapes", set_flag(c.shapes));
    options.shared("--quiet", set_flag(c.quiet));
}

// ---- Tool -----------------------------------------------------------------------------------

void Tool::parse(int argc, char** argv) {
    std::string error;
    const int rc = options.parse(argc, argv, common.paths, error);
    if (rc < 0) return;
    if (rc == ok) exit_now(ok);
    // The parser stops at the first error, maybe before --format: a document is asked for when
    // the command line says `--format json` anywhere.
    bool json_asked = false;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        json_asked = json_asked || a == "--format=json" || (a == "--format" && i + 1 < argc && std::string(argv[i + 1]) == "json");
    }
    common.format = json_asked ? "json" : "text";
    usage_error(error);
}

void Tool::report(const Diagnostics& diags, const SourceManager& sm) {
    if (!json()) {
        print_diagnostics(std::cerr, diags, sm, !quiet());
        return;
    }
    for (auto& d : take_json(diags, sm)) diagnostics_.push_back(std::move(d));
}

void Tool::report(const Diagnostics& diags) {
    SourceManager sm;
    report(diags, sm);
}

Json Tool::take_json(const Diagnostics& diags, const SourceManager& sm) const {
    Json out = diagnostics_json(diags, sm);
    if (diags.limit_reached())
        out.push_back({{"severity", "note"}, {"stage", "usage"}, {"code", "max-errors"},
                       {"message", "stopped after " + std::to_string(diags.max_errors()) + " errors (limit max_errors, --max-errors)"},
                       {"file", nullptr}, {"notes", Json::array()}});
    return out;
}

void Tool::message(const char* severity, const std::string& stage, const std::string& text, const std::string& file) {
    if (json()) {
        diagnostics_.push_back({{"severity", severity}, {"stage", stage}, {"code", ""}, {"message", text},
                                {"file", file.empty() ? Json(nullptr) : Json(file)}, {"notes", Json::array()}});
        return;
    }
    std::cerr << (file.empty() ? name() : file) << ": " << severity << (stage.empty() ? "" : "[" + stage + "]") << ": " << text << "\n";
}

void Tool::error(const std::string& stage, const std::string& text, const std::string& file) {
    message("error", stage, text, file);
}

void Tool::warning(const std::string& stage, const std::string& text, const std::string& file) {
    if (!quiet()) message("warning", stage, text, file);
}

void Tool::note(const std::string& text) {
    if (!quiet()) message("note", "", text);
}

void Tool::usage_error(const std::string& text) {
    if (json()) {
        error("usage", text);
    } else {
        cli_cpp::usage_message(options.spec(), text);
    }
    finish(usage);
}

Json Tool::full_document(int code) const {
    Json out = {{"schema_version", json_schema_version}, {"tool", name()}, {"exit_status", code}};
    for (auto it = document.begin(); it != document.end(); ++it) out[it.key()] = it.value();
    out["diagnostics"] = diagnostics_;
    return out;
}

void Tool::finish(int code) {
    if (json() && !document_written_) std::cout << full_document(code).dump() << "\n";
    exit_now(code);
}

void Tool::fail(const Diagnostics& diags, const SourceManager& sm) {
    report(diags, sm);
    finish(failure_code(diags));
}

void Tool::fail(const Diagnostics& diags) {
    SourceManager sm;
    fail(diags, sm);
}

std::string plural(std::uint64_t n, const std::string& word) { return std::to_string(n) + " " + word + (n == 1 ? "" : "s"); }

Json json_number(double v) { return std::isfinite(v) ? Json(v) : Json(nullptr); }

void print_diagnostics(std::ostream& err, const Diagnostics& diags, const SourceManager& sm, bool warnings) {
    RenderOptions ro;
    ro.warnings = warnings;
    err << render_list(diags, sm, ro);
    if (diags.limit_reached()) err << "note: stopped after " << diags.max_errors() << " errors (limit max_errors, --max-errors)\n";
}

Json diagnostics_json(const Diagnostics& diags, const SourceManager& sm) {
    // The std-only core has its own small writer for one diagnostic; read back, it joins the
    // tools' documents as a value.
    Json out = Json::array();
    for (const Diagnostic& d : diags) out.push_back(Json::parse(render_json(d, sm)));
    return out;
}

int failure_code(const Diagnostics& diags) {
    for (const Diagnostic& d : diags)
        if (d.severity == Severity::error && d.stage == Stage::io) return usage;
    return invalid;
}

bool write_output(const std::string& path, const std::string& text, Tool& tool) {
    return write_output(path, [&](std::ostream& os) { os << text; }, tool);
}

bool write_output(const std::string& path, const std::function<void(std::ostream&)>& write, Tool& tool) {
    if (path.empty() || path == "-") {
        write(std::cout);
        std::cout.flush();
        return static_cast<bool>(std::cout);
    }
    std::ofstream f(path, std::ios::binary);
    write(f);
    f.close();
    if (!f) {
        tool.error("io", "cannot write the file", path);
        return false;
    }
    return true;
}

void exit_now(int code) {
    std::cout.flush();
    std::cerr.flush();
    bool failed = !std::cout || std::fflush(stdout) != 0;
    std::fflush(stderr);
    std::_Exit(failed && code == ok ? usage : code);
}

void add_lowering_options(Options& options, LoweringChoice& choice, const std::string& profile_help, const std::string& bias_help) {
    options.shared("--profile", set_choice(choice.profile, {"pro-fp", "pro-int"}), "", profile_help);
    options.shared("--bias-grid", set_choice(choice.bias_grid, {"fine", "accumulator"}), "", bias_help);
}

tosa::Profile apply_lowering_choice(Tool& tool, const LoweringChoice& choice, const nnef::Graph& model, bool quantization,
                                    tosa::LowerOptions& lo) {
    if (!choice.profile.empty()) {
        lo.profile = *tosa::profile_named(choice.profile);
    } else {
        lo.profile = tosa::default_profile(model, quantization);
        const bool quantized = tosa::from_nnef::is_quantized(model);
        tool.note(lo.profile == tosa::Profile::pro_int
                      ? "profile PRO-INT: the model is quantized (graph.quant); --profile pro-fp lowers it in float"
                  : quantized ? "profile PRO-FP: the model runs without its quantization (--no-quant)"
                              : "profile PRO-FP");
    }
    if (!choice.bias_grid.empty()) {
        if (lo.profile == tosa::Profile::pro_fp && !choice.profile.empty())
            tool.usage_error("--bias-grid " + choice.bias_grid + " says how PRO-INT adds a convolution's bias; it does not "
                             "combine with --profile pro-fp");
        if (lo.profile == tosa::Profile::pro_fp)
            tool.note("--bias-grid " + choice.bias_grid + ": the model is lowered at PRO-FP, whose biases are exact; it changes nothing");
        lo.bias_on_accumulator_grid = *tosa::bias_on_accumulator_grid_named(choice.bias_grid);
    }
    return lo.profile;
}

}  // namespace nnef::cli
