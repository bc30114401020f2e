#include "cli.hpp"

#include <nnef/detail/huge_pages.hpp>

#if defined(__GLIBC__)
#include <malloc.h>
#include <unistd.h>
#endif

#include <algorithm>
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

namespace cli_cpp {

bool quiet = false;  // --quiet: warnings are not printed (print_diagnostics)

void usage_error(const ToolSpec& spec, const std::string& message) {
    std::cerr << spec.name << ": error: " << message << "\n" << "usage: " << spec.name << " [options] " << spec.synopsis
              << "\n(try --help)\n";
}

void help(const ToolSpec& spec) {
    std::cout << "usage: " << spec.name << " [options] " << spec.synopsis << "\n\n" << spec.description << "\n\noptions:\n";
    std::cout << "  --strict                 NNEF 1.0 revision 3 exactly (default: also later 1.0.x additions\n"
                 "                           and the de facto forms of exported models, with warnings)\n"
                 "  --input-shape NAME=D,... override the shape of graph input NAME (repeatable)\n"
                 "  --no-weights             check the structure only (do not load tensor files)\n"
                 "  --no-fast-path           take plain flat documents through the full front end too\n"
                 "  --single-thread          read large plain flat documents on the calling thread only\n"
                 "                           (same results; for comparison)\n"
                 "  --max-errors N           stop after N errors (default 20; 0 = no limit)\n"
                 "  --max-recursion N        fragment expansion depth limit (default 1000)\n"
                 "  --max-nesting N          expression nesting depth limit (default 512)\n"
                 "  --max-operations N       limit on operations produced by expansion (default 50000000)\n"
                 "  --max-value-items N      limit on items in one compile-time value (default 4194304)\n"
                 "  --max-expansions N       limit on fragment bodies expanded (default 1000000)\n"
                 "  --max-work N             limit on the work of expansion beyond the text: expressions\n"
                 "                           evaluated in fragments and comprehensions, items built,\n"
                 "                           32 per fragment expanded, 128+ per operation\n"
                 "                           made there; +1024 per graph statement (default 16000000)\n"
                 "  --max-string-length N    limit on bytes in one string or identifier (default 1048576)\n"
                 "  --max-rank N             limit on the rank of a tensor of the graph (default 64;\n"
                 "                           tensor files hold at most rank 8 anyway)\n"
                 "  --max-volume N           limit on items in one tensor (default 1099511627776)\n"
                 "  --max-archive-members N  limit on files in a model folder or .tar/.tgz (default 1000000)\n"
                 "  --max-archive-bytes N    limit on decompressed bytes of a .tar/.tgz model (default 17179869184)\n";
    if (spec.has_expand)
        std::cout << "  --expand-all             expand every standard compound down to primitives\n"
                     "  --expand NAME,...        expand the named standard compounds\n";
    if (spec.has_shapes) std::cout << "  --shapes                 add each tensor's dtype and shape as a trailing comment\n";
    if (spec.has_output) std::cout << "  -o FILE                  write the output to FILE (default: stdout)\n";
    for (const auto& [name, text] : spec.flags) {
        std::string line = "  " + name;
        line.resize(std::max<std::size_t>(line.size() + 1, 27), ' ');
        std::cout << line << text << "\n";
    }
    std::cout << "  --format text|json       output format of diagnostics and summaries (default text)\n"
                 "  --quiet                  print errors only: no summary, no warnings\n"
                 "  --help, --version\n\n"
                 "exit status: 0 success, 1 invalid input (diagnostics printed), 2 usage or I/O error\n";
}

bool parse_size(const std::string& s, std::size_t& out) {
    if (s.empty() || s.size() > 18) return false;
    for (char c : s)
        if (c < '0' || c > '9') return false;
    out = static_cast<std::size_t>(std::strtoull(s.c_str(), nullptr, 10));
    return true;
}

bool parse_shape_arg(const std::string& arg, std::string& name, Shape& shape) {
    auto eq = arg.find('=');
    if (eq == std::string::npos || eq == 0) return false;
    name = arg.substr(0, eq);
    std::string rest = arg.substr(eq + 1);
    std::stringstream ss(rest);
    std::string item;
    shape.clear();
    while (std::getline(ss, item, ',')) {
        std::size_t v = 0;
        if (!parse_size(item, v)) return false;
        shape.push_back(static_cast<std::int64_t>(v));
    }
    return !shape.empty();
}

// What sets the limit named by a --max-* option, or an empty function.
std::function<void(std::uint64_t)> limit_option(const std::string& key, CommonOptions& out) {
    auto set = [](auto& field) {
        return [&field](std::uint64_t n) { field = static_cast<std::remove_reference_t<decltype(field)>>(n); };
    };
    Limits& l = out.flatten.options.limits;
    if (key == "--max-errors") return set(l.max_errors);
    if (key == "--max-recursion") return set(l.max_recursion);
    if (key == "--max-nesting") return set(l.max_nesting);
    if (key == "--max-operations") return set(l.max_operations);
    if (key == "--max-value-items") return set(l.max_value_items);
    if (key == "--max-expansions") return set(l.max_expansions);
    if (key == "--max-work") return set(l.max_work);
    if (key == "--max-string-length") return set(l.max_string_length);
    if (key == "--max-rank") return set(l.max_rank);
    if (key == "--max-volume") return set(l.max_volume);
    if (key == "--max-archive-members") return set(out.flatten.max_archive_members);
    if (key == "--max-archive-bytes") return set(out.flatten.max_archive_bytes);
    return {};
}

}  // namespace cli_cpp

int parse_args(int argc, char** argv, const ToolSpec& spec, CommonOptions& out) {
    for (int i = 1; i < argc; ++i) {
        std::string a = argv[i];
        auto value = [&](std::string& v) -> bool {
            auto eq = a.find('=');
            if (a.rfind("--", 0) == 0 && eq != std::string::npos) {
                v = a.substr(eq + 1);
                a = a.substr(0, eq);
                return true;
            }
            if (i + 1 >= argc) {
                cli_cpp::usage_error(spec, "option '" + a + "' needs a value");
                return false;
            }
            v = argv[++i];
            return true;
        };
        std::string v;
        std::string key = a.substr(0, a.find('='));
        if (a == "--help" || a == "-h") {
            cli_cpp::help(spec);
            return ok;
        } else if (a == "--version") {
            std::cout << spec.name << " (nnef toolkit) " << nnef::version() << "\n";
            return ok;
        } else if (a == "--strict") {
            out.flatten.options.strict = true;
        } else if (a == "--no-weights") {
            out.flatten.load_weights = false;
        } else if (a == "--no-fast-path") {
            out.flatten.plain_fast_path = false;
        } else if (a == "--single-thread") {
            out.flatten.parallel_scan = false;
        } else if (a == "--quiet" || a == "-q") {
            out.quiet = true;
            cli_cpp::quiet = true;
        } else if (std::any_of(spec.flags.begin(), spec.flags.end(), [&](const auto& f) { return f.first == a; })) {
            out.flags.insert(a);
        } else if (spec.has_shapes && a == "--shapes") {
            out.shapes = true;
        } else if (spec.has_expand && a == "--expand-all") {
            out.flatten.expand_all = true;
        } else if (spec.has_expand && key == "--expand") {
            if (!value(v)) return usage;
            std::stringstream ss(v);
            std::string item;
            while (std::getline(ss, item, ','))
                if (!item.empty()) out.flatten.expand.push_back(item);
        } else if (key == "--format") {
            if (!value(v)) return usage;
            if (v == "json") out.json = true;
            else if (v == "text") out.json = false;
            else {
                cli_cpp::usage_error(spec, "unknown format '" + v + "' (use text or json)");
                return usage;
            }
        } else if (key == "--input-shape") {
            if (!value(v)) return usage;
            std::string name;
            Shape shape;
            if (!cli_cpp::parse_shape_arg(v, name, shape)) {
                cli_cpp::usage_error(spec, "bad --input-shape '" + v + "' (expected NAME=D0,D1,...)");
                return usage;
            }
            out.flatten.input_shapes[name] = shape;
        } else if (auto set_limit = cli_cpp::limit_option(key, out)) {
            if (!value(v)) return usage;
            std::size_t n = 0;
            if (!cli_cpp::parse_size(v, n)) {
                cli_cpp::usage_error(spec, "option '" + a + "' needs a non-negative integer");
                return usage;
            }
            set_limit(n);
        } else if (spec.has_output && a == "-o") {
            if (!value(v)) return usage;
            out.output = v;
        } else if (a.size() > 1 && a[0] == '-') {
            cli_cpp::usage_error(spec, "unknown option '" + a + "'");
            return usage;
        } else {
            out.paths.push_back(a);
        }
    }
    if (out.paths.empty()) {
        cli_cpp::usage_error(spec, "no input given");
        return usage;
    }
    if (!spec.many_paths && out.paths.size() > 1) {
        cli_cpp::usage_error(spec, "only one input may be given");
        return usage;
    }
    return -1;
}

void print_diagnostics(std::ostream& err, const Diagnostics& diags, const SourceManager& sm) {
    print_diagnostics(err, diags, sm, !cli_cpp::quiet);
}

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

bool write_output(const std::string& path, const std::string& text, const char* tool) {
    return write_output(path, [&](std::ostream& os) { os << text; }, tool);
}

bool write_output(const std::string& path, const std::function<void(std::ostream&)>& write, const char* tool) {
    if (path.empty() || path == "-") {
        write(std::cout);
        std::cout.flush();
        return static_cast<bool>(std::cout);
    }
    std::ofstream f(path, std::ios::binary);
    write(f);
    f.close();
    if (!f) {
        std::cerr << tool << ": error: cannot write '" << path << "'\n";
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

std::optional<tosa::Profile> parse_profile(const std::string& value) {
    if (value == "pro-fp") return tosa::Profile::pro_fp;
    if (value == "pro-int") return tosa::Profile::pro_int;
    return std::nullopt;
}

}  // namespace nnef::cli
