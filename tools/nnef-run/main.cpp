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
#include "../common/compare.hpp"
#include "../common/mlir_input.hpp"
#include "../common/tensors.hpp"
#include "engine.hpp"
#include "exec/executor.hpp"
#include "exec/gemm.hpp"
#include "storage/quantization.hpp"
#include "storage/tensor_file.hpp"
#ifndef NNEF_EXEC_FLOAT64
#include "via_nnapi.hpp"
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
    "FILE.mlir (TOSA 1.0 MLIR text of any producer, generic or pretty form; docs/tosa.md) runs on the TOSA\n"
    "interpreter, as --via tosa: its inputs and outputs are the function's arguments and results, by their\n"
    "SSA names (unnamed ones input<i>, output<i>); --input, --compare, --output-dir, --dump and --cycles work\n"
    "as for a model.";

const char* const epilogue =
    "Quantization (graph.quant): variables whose tensor files hold integer codes are dequantized by their\n"
    "entry ((code - zero_point) * scale, ...), and every tensor with an entry is rounded to its grid right\n"
    "after it is computed, as the quantized model computes (ties of round() go up, spec 4.2.1; graph inputs\n"
    "included, as spec 7.1's example quantizes its input). --quant-like nnef-tools reproduces what\n"
    "NNEF-Tools' interpreter computes instead. Quantized outputs are written as real values (their grid's\n"
    "values; --output-codes writes the codes) and compared in quanta (--max-quanta-off, --max-share-off).\n"
    "\n"
    "Integer tensors are written with 64-bit signed items, or at the width of the integer tensor files\n"
    "they derive from (inputs, variables); a value that does not fit that width is an error. Logical\n"
    "tensors are written with 1-bit items.";

struct RunOptions {
    // NAME (may be empty), then FILE or random:SEED[+]: one item for every cycle or one per cycle
    std::vector<std::pair<std::string, std::vector<std::string>>> inputs;
    std::optional<std::uint64_t> random_weights;
    std::string output_dir, save_variables;
    std::vector<std::string> dump;
    cli::CompareOptions compare;
    std::uint64_t cycles = 1;
    bool cycles_given = false;
    std::uint64_t threads = 2;
    bool time = false, float64 = false, no_quant = false, output_codes = false;
    std::string via;  // "tosa", "nnapi" or empty
    std::string quant_like;  // "nnef-tools" or empty
    cli::LoweringChoice lowering;  // --profile, --bias-grid (with --via tosa; --profile also FILE.mlir)
};

cli::Tool& tool() {
    static cli::Tool t({"nnef-run", "MODEL|FILE.mlir", description, false,
                        "0 success (and every output matches), 1 invalid model or data, failed execution or an\n"
                        "output that does not match, 2 usage or I/O error",
                        epilogue});
    return t;
}

[[noreturn]] void usage_error(const std::string& message) { tool().usage_error(message); }

bool parse_uint(const std::string& s, std::uint64_t& out) {
    if (s.empty() || s.size() > 19 || s.find_first_not_of("0123456789") != std::string::npos) return false;
    out = std::stoull(s);
    return true;
}

// Declares the options (the shared ones and nnef-run's own) into the tool's table.
void declare_options(cli::Tool& t, RunOptions& r) {
    cli::FrontEnd front;
    front.expand = true;
    cli::add_front_end(t.options, t.common, front);
    cli::Options& o = t.options;
    o.shared("--input", [&r](const std::string& v) -> std::optional<std::string> {
        const auto eq = v.find('=');
        const std::string items = eq == std::string::npos ? v : v.substr(eq + 1);
        std::vector<std::string> list;
        std::stringstream ss(items);
        for (std::string item; std::getline(ss, item, ',');) list.push_back(item);
        if (v.empty() || eq == 0 || items.empty() || items.back() == ',' ||
            std::find(list.begin(), list.end(), "") != list.end())
            return "'" + v + "' is not NAME=FILE.dat, NAME=random:SEED or NAME=A,B,... with one value per cycle";
        r.inputs.emplace_back(eq == std::string::npos ? "" : v.substr(0, eq), std::move(list));
        return std::nullopt;
    }, "", "random:SEED+ uses seed SEED + K - 1 in cycle K; NAME=A,B,... gives one value per\n"
           "cycle (files or random:SEED): as many as --cycles, which defaults to their number");
    o.shared("--random-weights", cli::set_optional_uint(r.random_weights));
    o.shared("--output-dir", cli::set_text(r.output_dir), "",
             "(and each --dump tensor) of the last cycle; with several cycles also\neach cycle's to DIR/NAME.cycleK.dat");
    o.shared("--output-codes", cli::set_flag(r.output_codes));
    cli::add_compare_options(o, r.compare);
    const char* run = "run";
    o.add({"--save-variables", "", "DIR", "after the last cycle, write each variable to DIR/LABEL.dat", run, cli::set_text(r.save_variables)});
    o.add({"--dump", "", "NAME,...", "also report (and write) these intermediate tensors", run, cli::set_list(r.dump)});
    o.add({"--cycles", "", "N", "run N cycles (variables keep their updated values; default 1)", run,
           [&r](const std::string& v) -> std::optional<std::string> {
               r.cycles_given = true;
               return cli::set_uint(r.cycles, 1)(v);
           }});
    o.add({"--float64", "", "", "compute scalars in float64 (every kernel) to study precision; scalar\n"
           "tensors are written as float64 files", run, cli::set_flag(r.float64)});
    o.add({"--no-quant", "", "", "do not simulate graph.quant: run in float (stored integer codes are still\n"
           "dequantized by their entries), to measure the quantization error", run, cli::set_flag(r.no_quant)});
    o.add({"--quant-like", "", "nnef-tools", "simulate graph.quant as NNEF-Tools' PyTorch interpreter does, to reproduce\n"
           "its outputs: graph inputs (and variables, constants) are not rounded, only\n"
           "results of operations; each step in float32 with round() ties to even;\n"
           "convolution sums accumulated in double (not the spec's reading: the spec\n"
           "also quantizes inputs and rounds ties up; see docs/exec.md)", run,
           cli::set_choice(r.quant_like, {"nnef-tools"})});
    o.add({"--threads", "", "N", "threads for the large kernels (default 2)", run, cli::set_uint(r.threads, 1, 256)});
    o.add({"--time", "", "", "print the time of each cycle on stderr", run, cli::set_flag(r.time)});
    o.add({"--via", "", "tosa|nnapi", "run the model lowered to TOSA 1.0.1 (--profile) by the TOSA interpreter, or\n"
           "exported as an NNAPI 1.0 model (NHWC; a quantized model as TENSOR_QUANT8_ASYMM)\n"
           "by the NNAPI interpreter, instead (same inputs, outputs and options; --dump\n"
           "finds tensors by the TOSA values' names or the NNAPI operands')", run,
           cli::set_choice(r.via, {"tosa", "nnapi"})});
    cli::add_lowering_options(o, r.lowering,
                              "(with --via tosa or FILE.mlir; pro-int lowers a quantized\nmodel in integers: its inputs are quantized on their graph.quant\n"
                              "grids, its output codes given as reals, or as codes with\n--output-codes; with --no-quant the default is pro-fp;\n"
                              "FILE.mlir: instead of the file's own)",
                              "(with --via tosa)");
}

void print(const Diagnostics& d, const SourceManager& sources) { tool().report(d, sources); }

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
                             const SourceManager& sources, Width& width) {
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
        tool().fail(r.diagnostics, sources);
    }
    std::optional<exec::TensorValue> v = exec::from_tensor_data(**r.value, t.dtype);
    if (!v) {
        tool().error("data", "the tensor data has no values of a known encoding", item);
        tool().finish(cli::invalid);
    }
    if (t.dtype == PrimType::integer) width.merge(Width::of(**r.value));
    return *v;
}

std::vector<double> values(const exec::TensorValue& t) {
    std::vector<double> out(static_cast<std::size_t>(t.volume()));
    for (std::int64_t i = 0; i < t.volume(); ++i) out[std::size_t(i)] = t.as_double(i);
    return out;
}

// Writes a run-time tensor as a tensor file (with `codes`, a scalar tensor as its integer codes on
// that grid): scalar as float32 (float64 in the --float64 build),
// integer at `width`, logical with 1-bit items. Exits on an integer that does not fit the width
// (1) or an I/O error (2).
void write_tensor(const fs::path& path, const std::string& name, const exec::TensorValue& t, const Width& width,
                  const SourceManager& sources, const storage::QuantParams* codes = nullptr) {
    Result<storage::TensorDataPtr> data;
    const std::int64_t n = t.volume();
    if (codes && t.dtype() == PrimType::scalar) {
        data = cli::codes_tensor(*codes, t.shape(), values(t));
    } else if (t.dtype() == PrimType::scalar) {
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
                tool().error("data", "integer tensor '" + name + "' has the value " + std::to_string(items[i]) + " (item " +
                                         std::to_string(i) + "), which does not fit the " + width.text() +
                                         " items of the integer tensor files it derives from; not written to '" +
                                         path.string() + "'");
                tool().finish(cli::invalid);
            }
        data = storage::make_integer_tensor(t.shape(), std::vector<std::int64_t>(items, items + n), width.bits,
                                            width.is_signed);
    } else {
        data = storage::make_logical_tensor(t.shape(), std::vector<bool>(t.data<bool>(), t.data<bool>() + n));
    }
    if (!data) {
        print(data.diagnostics, sources);
        tool().finish(cli::usage);
    }
    std::error_code ec;
    fs::create_directories(path.parent_path(), ec);
    auto w = storage::write_tensor_file(path.string(), **data.value);
    if (!w) {
        print(w.diagnostics, sources);
        tool().finish(cli::usage);
    }
}

std::string number(double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.7g", v);
    return buf;
}

using cli::json_number;

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

int run(int argc, char** argv) {
    RunOptions r;
    declare_options(tool(), r);
    tool().parse(argc, argv);
    cli::CommonOptions& opts = tool().common;
#ifndef NNEF_EXEC_FLOAT64
    if (r.float64) return run_main64::run(argc, argv);
#endif

    // The reference executor runs the compounds without a kernel through their bodies. --via tosa
    // keeps the quantize fragments atomic, as nnef-to-tosa and nnef-to-vpu do: at PRO-INT a graph input
    // read by one linear quantize fragment takes that fragment's grid (samples/quantized).
    for (const std::string& name : exec::compounds_without_kernel())
        if (r.via != "tosa" || !storage::quant_algorithm(name)) opts.flatten.expand.push_back(name);
    if (!opts.flatten.load_weights && !r.random_weights)
        usage_error("--no-weights: running a model needs values for its variables; for a model stored without "
                    "weights use --random-weights SEED");
    if (r.random_weights) opts.flatten.load_weights = false;
    Session session(opts.flatten);
    const std::string& path = opts.paths.front();
    // FILE.mlir: a TOSA graph, run by the TOSA interpreter (as --via tosa); the NNEF graph `g` is
    // then only its interface (inputs and outputs with their types).
    const bool mlir_file = tosa::is_mlir_path(path);
    std::string profile;  // the TOSA graph's profile (--via tosa, FILE.mlir), for the JSON document
    SourceManager mlir_sources;
    std::optional<tosa::MlirModule> mlir;
    Graph interface;
    if (mlir_file) {
        if (r.random_weights || !r.quant_like.empty() || r.no_quant || !r.lowering.bias_grid.empty())
            usage_error("FILE.mlir is a TOSA graph with its constants: --random-weights, --quant-like, --no-quant and "
                        "--bias-grid apply to NNEF models");
        if (r.output_codes)
            tool().note("--output-codes: FILE.mlir has no graph.quant; its outputs are written as the TOSA graph computes "
                        "them (a PRO-INT graph's integer outputs are its codes)");
        if (r.via == "nnapi") usage_error("FILE.mlir is a TOSA graph and runs on the TOSA interpreter; --via nnapi applies to NNEF models");
        r.via = "tosa";
#ifdef NNEF_EXEC_FLOAT64
        usage_error("FILE.mlir runs on the TOSA interpreter, which computes as the TOSA graph says; it does not combine with --float64");
#else
        mlir = cli::read_mlir_input(tool(), path, r.lowering.profile, mlir_sources, true);
        profile = tosa::to_string(mlir->graph.profile);
        interface = run_engine::interface_of(mlir->graph);
#endif
    } else {
        if (!session.load_path(path)) tool().fail(session.diagnostics(), session.sources());
        print(session.diagnostics(), session.sources());
    }
    const SourceManager& sources = mlir_file ? mlir_sources : session.sources();
    const Graph& g = mlir_file ? interface : *session.graph();

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
    eo.threads = static_cast<unsigned>(r.threads);
    eo.random_weights = r.random_weights;
    eo.keep.insert(r.dump.begin(), r.dump.end());
    eo.simulate_quantization = !r.no_quant;
    if (!r.quant_like.empty()) {
        if (r.no_quant) usage_error("--quant-like says how to simulate graph.quant; it does not combine with --no-quant");
        if (!r.via.empty()) usage_error("--quant-like applies to the reference executor; it does not combine with --via " + r.via);
        eo.quant_mode = exec::ExecOptions::QuantMode::nnef_tools;
        eo.exact_sums = true;
    }
    std::unique_ptr<run_engine::Engine<exec::TensorValue>> engine;
    if (!r.lowering.profile.empty() && r.via != "tosa")
        usage_error("--profile " + r.lowering.profile + " says how --via tosa lowers the model; it applies with --via tosa or FILE.mlir");
    if (!r.lowering.bias_grid.empty() && r.via != "tosa")
        usage_error("--bias-grid " + r.lowering.bias_grid + " says how --via tosa lowers the model; it applies with --via tosa");
    if (r.lowering.profile == "pro-int" && r.no_quant)
        usage_error("--profile pro-int computes on the graph.quant grids; it does not combine with --no-quant");
    if (!r.via.empty()) {
#ifdef NNEF_EXEC_FLOAT64
        usage_error("--via " + r.via + " computes as the " + (r.via == "tosa" ? "TOSA graph" : "NNAPI model") +
                    " says (float32 here); it does not combine with --float64");
#else
        if (r.via == "nnapi" && r.no_quant && std::any_of(g.tensors.begin(), g.tensors.end(), [](const Tensor& t) { return t.quantization != nullptr; }))
            usage_error("--via nnapi runs a quantized model as NNAPI computes it (TENSOR_QUANT8_ASYMM); it does not combine with --no-quant");
        Diagnostics d;
        tosa::LowerOptions lo;
        if (!mlir_file && r.via == "tosa") profile = tosa::to_string(cli::apply_lowering_choice(tool(), r.lowering, g, !r.no_quant, lo));
        engine = mlir_file ? run_engine::make_tosa_engine(std::move(mlir->graph), g, eo, d)
                 : r.via == "nnapi" ? run_engine::make_nnapi_engine(g, eo, d)
                                    : run_engine::make_tosa_engine(g, eo, d, lo);
        print(d, sources);
        if (!engine) tool().finish(cli::invalid);
#endif
    } else {
        auto created = exec::Executor::create(g, eo);
        if (!created) {
            print(created.diagnostics, sources);
            tool().finish(cli::invalid);
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
                exec::TensorValue v = read_input(name, item, 0, *g.tensor(name), sources, input_widths[name]);
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
            if (!executor.set_input(name, random ? read_input(name, item, c, *g.tensor(name), sources, unused)
                                                 : files.at({name, item}), d)) {
                tool().error("data", "input '" + name + "' from '" + item + "' does not fit the graph:");
                print(d, sources);
                tool().finish(cli::invalid);
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
    // --output-codes: the grids of the quantized outputs (and dumped tensors)
    std::map<std::string, storage::QuantParams> grids;
    if (r.output_codes && !r.no_quant)
        for (const std::string& n : g.outputs)
            if (auto grid = cli::linear_grid(g, n)) grids[n] = *grid;
    if (r.output_codes && grids.empty() && !mlir_file) tool().note("--output-codes: no output is quantized (graph.quant); real values are written");
    auto codes = [&](const std::string& n) -> const storage::QuantParams* {
        auto it = grids.find(n);
        return it == grids.end() ? nullptr : &it->second;
    };
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
            tool().error("io", "cannot create the folder: " + ec.message(), r.output_dir);
            tool().finish(cli::usage);
        }
    }

    for (std::uint64_t c = 0; c < r.cycles; ++c) {
        feed(c);
        Diagnostics d;
        const auto start = std::chrono::steady_clock::now();
        const bool ok = executor.run(d);
        const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
        print(d, sources);
        if (!ok) tool().finish(cli::invalid);
        if (r.time)
            tool().note("cycle " + std::to_string(c + 1) + ": " + number(ms) + " ms (" + std::to_string(g.operations.size()) +
                        " operations, " + std::to_string(r.threads) + " threads, " + exec::gemm_kernel_name() + " gemm)");
        if (!r.output_dir.empty() && r.cycles > 1)
            for (const std::string& n : shown)
                write_tensor(fs::path(r.output_dir) / (n + ".cycle" + std::to_string(c + 1) + ".dat"), n,
                             *executor.tensor(n), width(n), sources, codes(n));
    }

    // outputs and dumps of the last cycle, variables after it
    if (!r.output_dir.empty())
        for (const std::string& n : shown)
            write_tensor(fs::path(r.output_dir) / (n + ".dat"), n, *executor.tensor(n), width(n), sources, codes(n));
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
                tool().error("data", "variable '" + n + "' has no value to save");
                tool().finish(cli::invalid);
            }
            write_tensor(fs::path(r.save_variables) / (label->as_string() + ".dat"), n, *executor.variable(n), width(n),
                         sources);
        }
    }

    std::vector<cli::Comparison> comparisons;
    if (!r.compare.dir.empty()) {
        for (const std::string& n : g.outputs) {
            const std::string ref = cli::reference_path(r.compare.dir, n, g.outputs.size() == 1);
            auto data = storage::read_tensor_file(ref);
            if (!data) tool().fail(data.diagnostics, sources);
            const exec::TensorValue& out = *executor.tensor(n);
            std::optional<exec::TensorValue> v = exec::from_tensor_data(**data.value, out.dtype());
            if (!v || v->shape() != out.shape()) {
                tool().error("data", "reference " + (v ? "shape " + to_string(v->shape()) : std::string("data of an unknown encoding")) +
                                         " does not match output '" + n + "' " + to_string(out.shape()), ref);
                tool().finish(cli::invalid);
            }
            // A quantized output is compared on its grid, unless graph.quant is not simulated.
            const std::optional<storage::QuantParams> grid = r.no_quant ? std::nullopt : cli::linear_grid(g, n);
            comparisons.push_back(cli::compare(n, ref, values(out), values(*v), out.shape(), grid ? &*grid : nullptr, r.compare));
        }
    }

    bool all_match = true;
    for (const cli::Comparison& c : comparisons) all_match = all_match && c.match;
    if (tool().json()) {
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
        tool().document["path"] = path;
        tool().document["graph"] = g.name;
        if (!profile.empty()) tool().document["profile"] = profile;
        tool().document["cycles"] = r.cycles;
        if (!tool().quiet()) tool().document["tensors"] = std::move(tensors);
        if (!r.compare.dir.empty()) tool().document["compare"] = cli::compare_json(comparisons, r.compare);
    } else if (!tool().quiet()) {
        std::ostringstream os;
        for (std::size_t i = 0; i < shown.size(); ++i) {
            const exec::TensorValue& t = *executor.tensor(shown[i]);
            const Stats s = stats(t);
            os << (i < g.outputs.size() ? "output " : "tensor ") << shown[i] << ": " << nnef::to_string(t.dtype())
               << to_string(t.shape()) << " min " << number(s.min) << " max " << number(s.max) << " mean "
               << number(s.mean);
            if (s.nans) os << " (" << s.nans << " NaN)";
            os << "\n";
        }
        for (const cli::Comparison& c : comparisons) os << cli::comparison_text(c);
        std::cout << os.str();
    }
    if (!all_match) {
        tool().error("compare", cli::mismatch_message(comparisons, r.compare));
        tool().finish(cli::invalid);
    }
    tool().finish(cli::ok);
}

}  // namespace nnef::NNEF_RUN_NS

#ifndef NNEF_EXEC_FLOAT64
int main(int argc, char** argv) { return nnef::run_main::run(argc, argv); }
#endif
