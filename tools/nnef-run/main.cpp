// nnef-run: runs a model with the reference executor (exec/): feeds the inputs, runs one or more
// cycles, and prints, writes or compares the outputs.
//
// This file is compiled twice: as is (float32 scalars, namespace nnef::exec) and by float64.cpp
// with NNEF_EXEC_FLOAT64 defined (float64 scalars, namespace nnef::exec64); `--float64` makes the
// first hand over to the second.
#include <cctype>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <type_traits>
#include <algorithm>

#include "../common/cli.hpp"
#include "../common/tensors.hpp"
#include "engine.hpp"
#include "exec/executor.hpp"
#include "exec/gemm.hpp"
#include "storage/tensor_file.hpp"
#ifndef NNEF_EXEC_FLOAT64
#include "via_tosa.hpp"
#endif

#ifndef NNEF_EXEC_FLOAT64
namespace nnef::run_main64 {
int run(int argc, char** argv);  // float64.cpp
}  // namespace nnef::run_main64
#endif

#ifdef NNEF_EXEC_FLOAT64
#define NNEF_RUN_NS run_main64
#else
#define NNEF_RUN_NS run_main
#endif

namespace nnef::NNEF_RUN_NS {

namespace fs = std::filesystem;
namespace exec = nnef::NNEF_EXEC_NS;

const char* const description =
    "Runs the model (a folder, a .tar or .tgz archive, or a graph.nnef file) with the reference executor:\n"
    "one kernel per operation, written from the formulas of the specification (scalar as float32 or with\n"
    "--float64 float64, integer as int64, logical as bool). Standard compounds without a dedicated kernel\n"
    "run through their expansion. Prints each output's data type, shape, minimum, maximum and mean (of the\n"
    "last cycle).\n"
    "\n"
    "run options:\n"
    "  --input NAME=FILE.dat    the value of graph input NAME from a tensor file (repeatable; FILE alone\n"
    "                           for a graph with one input)\n"
    "  --input NAME=random:SEED pseudo-random values: scalar N(0,1), integer [0,10), logical 50/50; the\n"
    "                           same in every cycle (random:SEED+ uses seed SEED + K - 1 in cycle K)\n"
    "  --input NAME=A,B,...     one value per cycle (files or random:SEED): as many as --cycles, which\n"
    "                           defaults to their number; a single value is fed in every cycle\n"
    "  --random-weights SEED    variables get pseudo-random values instead of stored data (for models\n"
    "                           stored without weights; no tensor files are read)\n"
    "  --output-dir DIR         write each output (and each --dump tensor) of the last cycle to\n"
    "                           DIR/NAME.dat; with several cycles also each cycle's to DIR/NAME.cycleK.dat\n"
    "  --save-variables DIR     after the last cycle, write each variable to DIR/LABEL.dat\n"
    "  --dump NAME,...          also report (and write) these intermediate tensors\n"
    "  --compare DIR            compare each output with DIR/NAME.dat (or DIR/output.dat for a graph with\n"
    "                           one output); an output matches when max|out - ref| <= atol + rtol * max|ref|\n"
    "  --rtol R, --atol A       tolerances of --compare (default 1e-4 and 0)\n"
    "  --cycles N               run N cycles (variables keep their updated values; default 1)\n"
    "  --float64                compute scalars in float64 (every kernel) to study precision; scalar\n"
    "                           tensors are written as float64 files\n"
    "  --no-quant               do not simulate graph.quant: run in float (stored integer codes are still\n"
    "                           dequantized by their entries), to measure the quantization error\n"
    "  --quant-like nnef-tools  simulate graph.quant as NNEF-Tools' PyTorch interpreter does, to reproduce\n"
    "                           its outputs: graph inputs (and variables, constants) are not rounded, only\n"
    "                           results of operations; each step in float32 with round() ties to even;\n"
    "                           convolution sums accumulated in double (not the spec's reading: the spec\n"
    "                           also quantizes inputs and rounds ties up; see docs/exec.md)\n"
    "  --threads N              threads for the large kernels (default 2)\n"
    "  --time                   print the time of each cycle on stderr\n"
    "  --via tosa               run the model lowered to TOSA 1.0.1 (PRO-FP) by the TOSA interpreter instead\n"
    "                           (same inputs, outputs and options; --dump finds tensors by the TOSA values'\n"
    "                           names)\n"
    "\n"
    "Quantization (graph.quant): variables whose tensor files hold integer codes are dequantized by their\n"
    "entry ((code - zero_point) * scale, ...), and every tensor with an entry is rounded to its grid right\n"
    "after it is computed, as the quantized model computes (ties of round() go up, spec 4.2.1; graph inputs\n"
    "included, as spec 7.1's example quantizes its input). --quant-like nnef-tools reproduces what\n"
    "NNEF-Tools' interpreter computes instead.\n"
    "\n"
    "Integer tensors are written with 64-bit signed items, or at the width of the integer tensor files\n"
    "they derive from (inputs, variables); a value that does not fit that width is an error. Logical\n"
    "tensors are written with 1-bit items.\n"
    "\n"
    "exit status: 0 success (and every output matches), 1 invalid model or data, failed execution or an\n"
    "output that does not match, 2 usage or I/O error";

struct RunOptions {
    // NAME (may be empty), then FILE or random:SEED[+]: one item for every cycle or one per cycle
    std::vector<std::pair<std::string, std::vector<std::string>>> inputs;
    std::optional<std::uint64_t> random_weights;
    std::string output_dir, compare_dir, save_variables;
    std::vector<std::string> dump;
    double rtol = 1e-4, atol = 0.0;
    std::uint64_t cycles = 1;
    bool cycles_given = false;
    unsigned threads = 2;
    bool time = false, float64 = false, no_quant = false;
    std::string via;  // "tosa" or empty
    std::string quant_like;  // "nnef-tools" or empty
};

[[noreturn]] void usage_error(const std::string& message) {
    std::cerr << "nnef-run: error: " << message << "\nusage: nnef-run [options] MODEL\n(try --help)\n";
    cli::exit_now(cli::usage);
}

bool parse_uint(const std::string& s, std::uint64_t& out) {
    if (s.empty() || s.size() > 19 || s.find_first_not_of("0123456789") != std::string::npos) return false;
    out = std::stoull(s);
    return true;
}

bool parse_double(const std::string& s, double& out) {
    char* end = nullptr;
    out = std::strtod(s.c_str(), &end);
    return !s.empty() && end == s.c_str() + s.size() && std::isfinite(out) && out >= 0.0;
}

// Takes the run options out of argv; the rest goes to the common parser.
std::vector<char*> take_run_options(int argc, char** argv, RunOptions& r) {
    std::vector<char*> rest{argv[0]};
    for (int i = 1; i < argc; ++i) {
        std::string a = argv[i];
        const std::string key = a.substr(0, a.find('='));
        static const std::set<std::string> keys = {"--input",   "--random-weights", "--output-dir", "--dump",
                                                   "--compare", "--rtol",           "--atol",       "--cycles",
                                                   "--threads", "--save-variables", "--via",        "--quant-like"};
        if (a == "--time" || a == "--float64" || a == "--no-quant") {
            (a == "--time" ? r.time : a == "--float64" ? r.float64 : r.no_quant) = true;
            continue;
        }
        if (!keys.count(key)) {
            rest.push_back(argv[i]);
            continue;
        }
        std::string v;
        if (a.size() > key.size()) {
            v = a.substr(key.size() + 1);
        } else {
            if (i + 1 >= argc) usage_error("option '" + key + "' needs a value");
            v = argv[++i];
        }
        std::uint64_t n = 0;
        if (key == "--input") {
            const auto eq = v.find('=');
            const std::string items = eq == std::string::npos ? v : v.substr(eq + 1);
            std::vector<std::string> list;
            std::stringstream ss(items);
            for (std::string item; std::getline(ss, item, ',');) list.push_back(item);
            if (v.empty() || eq == 0 || items.empty() || items.back() == ',' ||
                std::find(list.begin(), list.end(), "") != list.end())
                usage_error("bad --input '" + v + "' (expected NAME=FILE.dat, NAME=random:SEED or NAME=A,B,... with one value per cycle)");
            r.inputs.emplace_back(eq == std::string::npos ? "" : v.substr(0, eq), std::move(list));
        } else if (key == "--random-weights") {
            if (!parse_uint(v, n)) usage_error("--random-weights needs a non-negative integer seed, not '" + v + "'");
            r.random_weights = n;
        } else if (key == "--output-dir") {
            r.output_dir = v;
        } else if (key == "--save-variables") {
            r.save_variables = v;
        } else if (key == "--compare") {
            r.compare_dir = v;
        } else if (key == "--dump") {
            std::stringstream ss(v);
            std::string item;
            while (std::getline(ss, item, ','))
                if (!item.empty()) r.dump.push_back(item);
        } else if (key == "--rtol" || key == "--atol") {
            double d = 0.0;
            if (!parse_double(v, d)) usage_error(key + " needs a non-negative number, not '" + v + "'");
            (key == "--rtol" ? r.rtol : r.atol) = d;
        } else if (key == "--cycles") {
            if (!parse_uint(v, n) || n == 0) usage_error("--cycles needs a positive integer, not '" + v + "'");
            r.cycles = n;
            r.cycles_given = true;
        } else if (key == "--quant-like") {
            if (v != "nnef-tools") usage_error("--quant-like takes 'nnef-tools', not '" + v + "'");
            r.quant_like = v;
        } else if (key == "--via") {
            if (v != "tosa") usage_error("--via takes 'tosa', not '" + v + "'");
            r.via = v;
        } else if (key == "--threads") {
            if (!parse_uint(v, n) || n == 0 || n > 256) usage_error("--threads needs an integer in [1, 256], not '" + v + "'");
            r.threads = static_cast<unsigned>(n);
        }
    }
    return rest;
}

// Diagnostics go to stderr: text, or with --format json one JSON array per group.
bool json_diagnostics = false;
void print(const Diagnostics& d, const Session& s) {
    if (!json_diagnostics) cli::print_diagnostics(std::cerr, d, s.sources());
    else if (!d.empty()) std::cerr << cli::diagnostics_json(d, s.sources()) << "\n";
}

// The width integer tensors are written at: 64-bit signed, or that of the integer tensor files they
// derive from (the widest of them; signed and unsigned ones together give a signed width that holds
// both, e.g. 8-bit unsigned and 8-bit signed give 16-bit signed).
struct Width {
    unsigned bits = 64;
    bool is_signed = true;
    bool from_file = false;

    static Width of(const TensorData& d) {
        Width w;
        if (d.kind == ElementKind::signed_int || d.kind == ElementKind::unsigned_int) {
            w.bits = d.bits;
            w.is_signed = d.kind == ElementKind::signed_int;
            w.from_file = true;
        }
        return w;
    }
    void merge(const Width& w) {
        if (!w.from_file) return;
        if (!from_file) {
            *this = w;
            return;
        }
        if (is_signed == w.is_signed) {
            bits = std::max(bits, w.bits);
            return;
        }
        const unsigned s = is_signed ? bits : w.bits, u = is_signed ? w.bits : bits;
        unsigned holds_u = 8;  // the smallest of 8, 16, 32, 64 bits that holds the unsigned values signed
        while (holds_u < u + 1 && holds_u < 64) holds_u *= 2;
        bits = std::max(s, holds_u);
        is_signed = true;
    }
    std::string text() const { return std::to_string(bits) + "-bit " + (is_signed ? "signed" : "unsigned"); }
};

// The tensors an argument or result names (a single identifier or nested arrays of them).
void collect_ids(const Value& v, std::vector<std::string>& out) {
    if (v.is_identifier()) out.push_back(v.as_identifier());
    else if (v.is_list())
        for (const Value& item : v.items()) collect_ids(item, out);
}

// The integer widths of the graph's tensors (see Width), from those of the integer input files and
// variables: an integer result gets the merged width of the integer tensors its operation reads.
std::map<std::string, Width> integer_widths(const Graph& g, std::map<std::string, Width> widths) {
    for (const Operation& op : g.operations) {
        if (op.name == "external" || op.name == "variable") continue;
        Width w;
        std::vector<std::string> ids;
        for (const auto& [param, v] : op.inputs) collect_ids(v, ids);
        for (const std::string& id : ids) {
            const Tensor* t = g.tensor(id);
            auto it = widths.find(id);
            if (t && t->dtype == PrimType::integer && it != widths.end()) w.merge(it->second);
        }
        if (!w.from_file) continue;
        ids.clear();
        for (const auto& [param, v] : op.outputs) collect_ids(v, ids);
        for (const std::string& id : ids) {
            const Tensor* t = g.tensor(id);
            if (t && t->dtype == PrimType::integer) widths[id] = w;
        }
    }
    return widths;
}

// One --input item as the value of graph input `name` in cycle `cycle` (0-based): a tensor file
// (its integer width is merged into `width`), random:SEED or random:SEED+ (seed SEED + cycle).
exec::TensorValue read_input(const std::string& name, const std::string& item, std::uint64_t cycle, const Tensor& t,
                             const Session& s, Width& width) {
    const std::string random = "random:";
    if (item.rfind(random, 0) == 0) {
        std::string seed_text = item.substr(random.size());
        const bool per_cycle = !seed_text.empty() && seed_text.back() == '+';
        if (per_cycle) seed_text.pop_back();
        std::uint64_t seed = 0;
        if (!parse_uint(seed_text, seed))
            usage_error("bad --input '" + name + "=" + item + "' (random:SEED and random:SEED+ need a non-negative integer)");
        return exec::random_tensor(t.dtype, *t.shape, per_cycle ? seed + cycle : seed);
    }
    auto r = storage::read_tensor_file(item);
    if (!r) {
        print(r.diagnostics, s);
        cli::exit_now(cli::failure_code(r.diagnostics));
    }
    std::optional<exec::TensorValue> v = exec::from_tensor_data(**r.value, t.dtype);
    if (!v) {
        std::cerr << "nnef-run: error: " << item << ": the tensor data has no values of a known encoding\n";
        cli::exit_now(cli::invalid);
    }
    if (t.dtype == PrimType::integer) width.merge(Width::of(**r.value));
    return *v;
}

// Writes a run-time tensor as a tensor file: scalar as float32 (float64 in the --float64 build),
// integer at `width`, logical with 1-bit items. Exits on an integer that does not fit the width
// (1) or an I/O error (2).
void write_tensor(const fs::path& path, const std::string& name, const exec::TensorValue& t, const Width& width,
                  const Session& s) {
    Result<storage::TensorDataPtr> data;
    const std::int64_t n = t.volume();
    if (t.dtype() == PrimType::scalar) {
        const exec::Real* items = t.data<exec::Real>();
        if constexpr (std::is_same_v<exec::Real, double>)
            data = storage::make_float_tensor(t.shape(), std::vector<double>(items, items + n), 64);
        else
            data = storage::make_float_tensor(t.shape(), std::vector<float>(items, items + n));
    } else if (t.dtype() == PrimType::integer) {
        const std::int64_t* items = t.data<std::int64_t>();
        const unsigned magnitude = width.is_signed ? width.bits - 1 : width.bits;  // bits of the largest value
        const std::int64_t hi = magnitude >= 63 ? std::numeric_limits<std::int64_t>::max()
                                                : (std::int64_t(1) << magnitude) - 1;
        const std::int64_t lo = width.is_signed ? -hi - 1 : 0;
        for (std::int64_t i = 0; i < n; ++i)
            if (items[i] < lo || items[i] > hi) {
                std::cerr << "nnef-run: error: integer tensor '" << name << "' has the value " << items[i] << " (item " << i
                          << "), which does not fit the " << width.text()
                          << " items of the integer tensor files it derives from; not written to '" << path.string()
                          << "'\n";
                cli::exit_now(cli::invalid);
            }
        data = storage::make_integer_tensor(t.shape(), std::vector<std::int64_t>(items, items + n), width.bits,
                                            width.is_signed);
    } else {
        data = storage::make_logical_tensor(t.shape(), std::vector<bool>(t.data<bool>(), t.data<bool>() + n));
    }
    if (!data) {
        print(data.diagnostics, s);
        cli::exit_now(cli::usage);
    }
    std::error_code ec;
    fs::create_directories(path.parent_path(), ec);
    auto w = storage::write_tensor_file(path.string(), **data.value);
    if (!w) {
        print(w.diagnostics, s);
        cli::exit_now(cli::usage);
    }
}

std::string number(double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.7g", v);
    return buf;
}

// JSON has no infinities or NaN: those are null.
cli::Json json_number(double v) { return std::isfinite(v) ? cli::Json(v) : cli::Json(nullptr); }

struct Stats {
    double min = 0.0, max = 0.0, mean = 0.0;
    std::int64_t nans = 0;
};

Stats stats(const exec::TensorValue& t) {
    Stats s;
    s.min = std::numeric_limits<double>::infinity();
    s.max = -s.min;
    double sum = 0.0;
    std::int64_t count = 0;
    for (std::int64_t i = 0; i < t.volume(); ++i) {
        const double v = t.as_double(i);
        if (std::isnan(v)) {
            ++s.nans;
            continue;
        }
        s.min = std::min(s.min, v);
        s.max = std::max(s.max, v);
        sum += v;
        ++count;
    }
    s.mean = count ? sum / double(count) : std::numeric_limits<double>::quiet_NaN();
    return s;
}

struct Comparison {
    std::string name, reference;
    double max_abs = 0.0, max_ref = 0.0, rel_l2 = 0.0;
    std::int64_t nans = 0;
    bool match = false;
};

// max|a - b| <= atol + rtol * max|b|, no NaN in either.
Comparison compare(const std::string& name, const exec::TensorValue& out, const exec::TensorValue& ref,
                   const std::string& ref_path, const RunOptions& r) {
    Comparison c;
    c.name = name;
    c.reference = ref_path;
    double diff2 = 0.0, ref2 = 0.0;
    for (std::int64_t i = 0; i < out.volume(); ++i) {
        const double a = out.as_double(i), b = ref.as_double(i);
        if (std::isnan(a) != std::isnan(b)) ++c.nans;
        if (std::isnan(a) || std::isnan(b)) continue;
        const double d = std::fabs(a - b);
        c.max_abs = std::max(c.max_abs, d);
        c.max_ref = std::max(c.max_ref, std::fabs(b));
        diff2 += d * d;
        ref2 += b * b;
    }
    c.rel_l2 = ref2 > 0.0 ? std::sqrt(diff2 / ref2) : std::sqrt(diff2);
    c.match = c.nans == 0 && c.max_abs <= r.atol + r.rtol * c.max_ref;
    return c;
}

int run(int argc, char** argv) {
    RunOptions r;
    std::vector<char*> rest = take_run_options(argc, argv, r);
    cli::ToolSpec spec{"nnef-run", "MODEL", description, false, false, false, true};
    cli::CommonOptions opts;
    int rc = cli::parse_args(static_cast<int>(rest.size()), rest.data(), spec, opts);
    if (rc >= 0) return rc;
#ifndef NNEF_EXEC_FLOAT64
    if (r.float64) return run_main64::run(argc, argv);
#endif

    json_diagnostics = opts.json;
    for (const std::string& name : exec::compounds_without_kernel()) opts.flatten.expand.push_back(name);
    if (!opts.flatten.load_weights && !r.random_weights)
        usage_error("--no-weights: running a model needs values for its variables; for a model stored without "
                    "weights use --random-weights SEED");
    if (r.random_weights) opts.flatten.load_weights = false;
    Session session(opts.flatten);
    const std::string& path = opts.paths.front();
    if (!session.load_path(path)) {
        print(session.diagnostics(), session);
        cli::exit_now(cli::failure_code(session.diagnostics()));
    }
    print(session.diagnostics(), session);
    const Graph& g = *session.graph();

    // inputs
    std::map<std::string, std::vector<std::string>> given;
    for (const auto& [name, items] : r.inputs) {
        std::string n = name;
        if (n.empty()) {
            if (g.inputs.size() != 1)
                usage_error("--input '" + items.front() + "' without a NAME= needs a graph with one input; graph '" +
                            g.name + "' has " + std::to_string(g.inputs.size()));
            n = g.inputs.front();
        }
        if (std::find(g.inputs.begin(), g.inputs.end(), n) == g.inputs.end()) {
            std::string list;
            for (const std::string& i : g.inputs) list += (list.empty() ? "" : ", ") + i;
            usage_error("graph '" + g.name + "' has no input '" + n + "' (inputs: " + (list.empty() ? "none" : list) + ")");
        }
        if (given.count(n)) usage_error("input '" + n + "' is given twice");
        given[n] = items;
    }
    // one value per cycle: as many as --cycles (which defaults to their number)
    std::string per_cycle;  // an input given one value per cycle
    for (const auto& [n, items] : given) {
        if (items.size() == 1) continue;
        if (!r.cycles_given && per_cycle.empty()) r.cycles = items.size();
        if (items.size() != r.cycles)
            usage_error("input '" + n + "' has " + std::to_string(items.size()) + " values (one per cycle) but " +
                        (r.cycles_given ? "--cycles is " + std::to_string(r.cycles)
                                        : "input '" + per_cycle + "' has " + std::to_string(r.cycles)) +
                        " (give one value for every cycle, or as many as there are cycles)");
        per_cycle = n;
    }
    for (const std::string& n : g.inputs)
        if (!given.count(n))
            usage_error("no value for graph input '" + n + "' " + cli::tensor_text(g.tensor(n)) + " (use --input " + n +
                        "=FILE.dat or --input " + n + "=random:SEED)");
    for (const std::string& n : r.dump)
        if (!g.tensor(n)) usage_error("--dump: graph '" + g.name + "' has no tensor '" + n + "'");

    exec::ExecOptions eo;
    eo.threads = r.threads;
    eo.random_weights = r.random_weights;
    eo.keep.insert(r.dump.begin(), r.dump.end());
    eo.simulate_quantization = !r.no_quant;
    if (!r.quant_like.empty()) {
        if (r.no_quant) usage_error("--quant-like says how to simulate graph.quant; it does not combine with --no-quant");
        if (!r.via.empty()) usage_error("--quant-like applies to the reference executor; it does not combine with --via tosa");
        eo.quant_mode = exec::ExecOptions::QuantMode::nnef_tools;
        eo.exact_sums = true;
    }
    std::unique_ptr<run_engine::Engine<exec::TensorValue>> engine;
    if (!r.via.empty()) {
#ifdef NNEF_EXEC_FLOAT64
        usage_error("--via tosa computes as the TOSA graph says (float32 here); it does not combine with --float64");
#else
        Diagnostics d;
        engine = run_engine::make_tosa_engine(g, eo, d);
        print(d, session);
        if (!engine) cli::exit_now(cli::invalid);
#endif
    } else {
        auto created = exec::Executor::create(g, eo);
        if (!created) {
            print(created.diagnostics, session);
            cli::exit_now(cli::invalid);
        }
        engine = std::make_unique<run_engine::ExecutorEngine<exec::Executor, exec::TensorValue>>(std::move(*created.value));
    }
    run_engine::Engine<exec::TensorValue>& executor = *engine;
    // Tensor files are read (and checked) before the first cycle; random values are made when fed.
    std::map<std::string, Width> input_widths;
    std::map<std::pair<std::string, std::string>, exec::TensorValue> files;  // (input, file) -> value
    for (const auto& [name, items] : given)
        for (const std::string& item : items)
            if (item.rfind("random:", 0) != 0 && !files.count({name, item})) {
                exec::TensorValue v = read_input(name, item, 0, *g.tensor(name), session, input_widths[name]);
                files.emplace(std::make_pair(name, item), std::move(v));
            }
    // Feeds the inputs of cycle c (0-based) that change from the previous cycle.
    auto feed = [&](std::uint64_t c) {
        for (const auto& [name, items] : given) {
            const std::string& item = items[items.size() == 1 ? 0 : c];
            const bool random = item.rfind("random:", 0) == 0;
            if (c > 0 && items.size() == 1 && !(random && item.back() == '+')) continue;
            Width unused;
            Diagnostics d;
            if (!executor.set_input(name, random ? read_input(name, item, c, *g.tensor(name), session, unused)
                                                 : files.at({name, item}), d)) {
                std::cerr << "nnef-run: error: input '" << name << "' from '" << item << "':\n";
                print(d, session);
                cli::exit_now(cli::invalid);
            }
        }
    };

    // integer widths of the inputs and variables read from files, carried to the tensors they give
    std::map<std::string, Width> widths = input_widths;
    if (!r.random_weights)
        for (const Operation& op : g.operations) {
            const Value* out = op.output("output");
            if (op.name != "variable" || !out || !out->is_identifier()) continue;
            const Tensor* t = g.tensor(out->as_identifier());
            if (t && t->dtype == PrimType::integer && t->data) widths[t->name] = Width::of(*t->data);
        }
    widths = integer_widths(g, widths);
    auto width = [&](const std::string& n) {
        auto it = widths.find(n);
        return it == widths.end() ? Width() : it->second;
    };

    std::vector<std::string> shown = g.outputs;
    for (const std::string& n : r.dump)
        if (std::find(shown.begin(), shown.end(), n) == shown.end()) shown.push_back(n);
    if (!r.output_dir.empty()) {
        std::error_code ec;
        fs::create_directories(r.output_dir, ec);
        if (ec) {
            std::cerr << "nnef-run: error: cannot create '" << r.output_dir << "': " << ec.message() << "\n";
            cli::exit_now(cli::usage);
        }
    }

    for (std::uint64_t c = 0; c < r.cycles; ++c) {
        feed(c);
        Diagnostics d;
        const auto start = std::chrono::steady_clock::now();
        const bool ok = executor.run(d);
        const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
        print(d, session);
        if (!ok) cli::exit_now(cli::invalid);
        if (r.time)
            std::cerr << "cycle " << (c + 1) << ": " << number(ms) << " ms (" << g.operations.size() << " operations, "
                      << r.threads << " threads, " << exec::gemm_kernel_name() << " gemm)\n";
        if (!r.output_dir.empty() && r.cycles > 1)
            for (const std::string& n : shown)
                write_tensor(fs::path(r.output_dir) / (n + ".cycle" + std::to_string(c + 1) + ".dat"), n,
                             *executor.tensor(n), width(n), session);
    }

    // outputs and dumps of the last cycle, variables after it
    if (!r.output_dir.empty())
        for (const std::string& n : shown)
            write_tensor(fs::path(r.output_dir) / (n + ".dat"), n, *executor.tensor(n), width(n), session);
    if (!r.save_variables.empty()) {
        std::set<std::string> saved;  // labels, compared case-insensitively as the executor does
        for (const Operation& op : g.operations) {
            const Value* out = op.output("output");
            const Value* label = op.attrib("label");
            if (op.name != "variable" || !out || !out->is_identifier() || !label || !label->is_string()) continue;
            std::string key = label->as_string();
            for (char& ch : key) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
            if (!saved.insert(key).second) continue;
            const std::string& n = out->as_identifier();
            if (!executor.variable(n)) {
                std::cerr << "nnef-run: error: variable '" << n << "' has no value to save\n";
                cli::exit_now(cli::invalid);
            }
            write_tensor(fs::path(r.save_variables) / (label->as_string() + ".dat"), n, *executor.variable(n), width(n),
                         session);
        }
    }

    std::vector<Comparison> comparisons;
    if (!r.compare_dir.empty()) {
        for (const std::string& n : g.outputs) {
            fs::path ref = fs::path(r.compare_dir) / (n + ".dat");
            if (!fs::exists(ref) && g.outputs.size() == 1 && fs::exists(fs::path(r.compare_dir) / "output.dat"))
                ref = fs::path(r.compare_dir) / "output.dat";
            auto data = storage::read_tensor_file(ref.string());
            if (!data) {
                print(data.diagnostics, session);
                cli::exit_now(cli::failure_code(data.diagnostics));
            }
            const exec::TensorValue& out = *executor.tensor(n);
            std::optional<exec::TensorValue> v = exec::from_tensor_data(**data.value, out.dtype());
            if (!v || v->shape() != out.shape()) {
                std::cerr << "nnef-run: error: " << ref.string() << ": reference "
                          << (v ? "shape " + to_string(v->shape()) : std::string("data of an unknown encoding"))
                          << " does not match output '" << n << "' " << to_string(out.shape()) << "\n";
                cli::exit_now(cli::invalid);
            }
            comparisons.push_back(compare(n, out, *v, ref.string(), r));
        }
    }

    bool all_match = true;
    for (const Comparison& c : comparisons) all_match = all_match && c.match;
    if (!opts.quiet) {
        std::ostringstream os;
        if (opts.json) {
            cli::Json tensors = cli::Json::array();
            for (std::size_t i = 0; i < shown.size(); ++i) {
                const exec::TensorValue& t = *executor.tensor(shown[i]);
                const Stats s = stats(t);
                tensors.push_back({{"name", shown[i]},
                                   {"output", i < g.outputs.size()},
                                   {"dtype", nnef::to_string(t.dtype())},
                                   {"shape", t.shape()},
                                   {"min", json_number(s.min)},
                                   {"max", json_number(s.max)},
                                   {"mean", json_number(s.mean)},
                                   {"nan", s.nans}});
            }
            cli::Json out = {{"graph", g.name}, {"cycles", r.cycles}, {"tensors", std::move(tensors)}};
            if (!r.compare_dir.empty()) {
                cli::Json outputs = cli::Json::array();
                for (const Comparison& c : comparisons)
                    outputs.push_back({{"name", c.name},
                                       {"reference", c.reference},
                                       {"max_abs_error", json_number(c.max_abs)},
                                       {"max_abs_reference", json_number(c.max_ref)},
                                       {"max_rel_error", json_number(c.max_ref > 0.0 ? c.max_abs / c.max_ref : c.max_abs)},
                                       {"rel_l2_error", json_number(c.rel_l2)},
                                       {"nan_mismatches", c.nans},
                                       {"match", c.match}});
                out["compare"] = {{"rtol", r.rtol}, {"atol", r.atol}, {"match", all_match}, {"outputs", std::move(outputs)}};
            }
            os << out.dump() << "\n";
        } else {
            for (std::size_t i = 0; i < shown.size(); ++i) {
                const exec::TensorValue& t = *executor.tensor(shown[i]);
                const Stats s = stats(t);
                os << (i < g.outputs.size() ? "output " : "tensor ") << shown[i] << ": " << nnef::to_string(t.dtype())
                   << to_string(t.shape()) << " min " << number(s.min) << " max " << number(s.max) << " mean "
                   << number(s.mean);
                if (s.nans) os << " (" << s.nans << " NaN)";
                os << "\n";
            }
            for (const Comparison& c : comparisons)
                os << "compare " << c.name << " with " << c.reference << ": max abs error " << number(c.max_abs)
                   << ", max relative error " << number(c.max_ref > 0.0 ? c.max_abs / c.max_ref : c.max_abs)
                   << " (of max|ref| " << number(c.max_ref) << "), relative L2 error " << number(c.rel_l2)
                   << (c.nans ? ", " + std::to_string(c.nans) + " NaN mismatches" : std::string()) << ": "
                   << (c.match ? "match" : "MISMATCH") << "\n";
        }
        std::cout << os.str();
    }
    if (!all_match) {
        std::cerr << "nnef-run: error: output differs from the reference (tolerance: max|out - ref| <= " << number(r.atol)
                  << " + " << number(r.rtol) << " * max|ref|)\n";
        cli::exit_now(cli::invalid);
    }
    cli::exit_now(cli::ok);
}

}  // namespace nnef::NNEF_RUN_NS

#ifndef NNEF_EXEC_FLOAT64
int main(int argc, char** argv) { return nnef::run_main::run(argc, argv); }
#endif
