// nnef-to-vpu: the VPU back end's tool. Reads a task list (lowering/vpu/task_list.hpp, the JSON of
// specs/vpu-target.md section 6), writes it back as JSON or as a readable dump, and with
// --simulate runs it on the target: checks, timing, a report, the schedule as SVG, and with inputs
// the values of the outputs (written as tensor files or compared with reference files).
//
// Given a MODEL instead of TASKS.json, `load_task_list` compiles it: the NNEF model is lowered to
// TOSA (lowering/tosa/from_nnef.hpp) and compiled for the target (lowering/vpu/compiler.hpp);
// everything after it works on a TaskList whatever its origin.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <utility>

#include "../common/cli.hpp"
#include "../common/compare.hpp"
#include "../common/mlir_input.hpp"
#include "../common/nnapi_input.hpp"
#include "exec/executor.hpp"
#include "lowering/tosa/from_nnef.hpp"
#include "lowering/vpu/compiler.hpp"
#include "lowering/vpu/ir_text.hpp"
#include "lowering/vpu/sim_values.hpp"
#include "lowering/vpu/simulator.hpp"
#include "lowering/vpu/svg.hpp"
#include "lowering/vpu/target.hpp"
#include "lowering/vpu/task_list.hpp"
#include "storage/tensor_file.hpp"

namespace nnef::to_vpu_main {

namespace fs = std::filesystem;

const char* const description =
    "Reads a VPU task list (TASKS.json, the format of specs/vpu-target.md section 6; constant data in\n"
    "TASKS.bin beside it) and writes it back (-o), or simulates it on the target (--simulate): checks every\n"
    "ordering, race, barrier, capacity and alignment rule, times it with the cost model and prints makespan,\n"
    "lower bound, busy share per queue, DDR traffic and peak CMX.\n"
    "\n"
    "MODEL (a graph.nnef, folder or archive) is compiled first: lowered to TOSA, then to a task list.\n"
    "FILE.mlir (TOSA 1.0 MLIR text of any producer, generic or pretty form; docs/tosa.md) is read,\n"
    "validated and compiled the same way; its inputs and outputs are the function's arguments and results.\n"
    "NNAPI.json (an Android NNAPI 1.0 model in the JSON form of nnef-to-nnapi, recognised by its content;\n"
    "docs/nnapi.md) is validated, lowered by the NNAPI lowering and compiled the same way; its inputs and\n"
    "outputs are named \"operand N\" (NHWC; a quant8 one holds the i8 codes c - 128 of NNAPI's uint8 codes c:\n"
    "--input takes reals, quantized on its grid, or those codes; --output-codes writes the uint8 codes).\n"
    "\n"
    "The task list is written as JSON (-o FILE.json of a compiled MODEL also writes its constants to\n"
    "FILE.bin; on stdout they are not written, and a note says so) or with --format text as a readable\n"
    "dump. With --format json and --simulate or -o, stdout carries the tool's JSON document instead\n"
    "(the simulation report, comparisons and diagnostics; docs/json.md).";

struct VpuOptions {
    std::string target_file, svg, output_dir;
    cli::CompareOptions compare;
    bool simulate = false, output_codes = false;
    std::vector<std::pair<std::string, std::string>> inputs;  // NAME (may be empty), FILE or random:SEED
    // compiling a MODEL
    std::optional<std::uint64_t> random_weights;
    cli::LoweringChoice lowering;  // --profile, --bias-grid
    bool verify_each = false;
    std::set<std::string> print_after_tosa, print_after_vpu;
    std::string pass;  // --pass NAME: one VPU pass on the IR text (lowering/vpu/ir_text.hpp)
};

cli::Tool& tool() {
    static cli::Tool t({"nnef-to-vpu", "MODEL|FILE.mlir|NNAPI.json|TASKS.json", description, false,
                        "0 success (no violation, every output matches), 1 invalid task list, a violation or a\n"
                        "mismatch, 2 usage or I/O error"});
    return t;
}

[[noreturn]] void usage_error(const std::string& message) { tool().usage_error(message); }

void declare_options(cli::Tool& t, VpuOptions& o) {
    cli::FrontEnd front;
    front.formats = {"json", "text"};
    front.output = true;
    front.format_help = "(json: the task list; with --simulate or -o, the tool's document on stdout)";
    front.output_help = "(the task list)";
    cli::add_front_end(t.options, t.common, front);
    cli::Options& opt = t.options;
    opt.shared("--input", [&o](const std::string& v) -> std::optional<std::string> {
        const auto eq = v.find('=');
        const std::string item = eq == std::string::npos ? v : v.substr(eq + 1);
        if (v.empty() || eq == 0 || item.empty()) return "'" + v + "' is not NAME=FILE.dat or NAME=random:SEED";
        o.inputs.emplace_back(eq == std::string::npos ? "" : v.substr(0, eq), item);
        return std::nullopt;
    }, "", "(with --simulate, in NNEF's layout: computes the outputs' values; a variable\n"
           "that the graph updates is an input and an output named after its label;\n"
           "compiling a MODEL, it starts from the variable's value)");
    opt.shared("--random-weights", cli::set_optional_uint(o.random_weights), "", "(compiling a MODEL)");
    opt.shared("--output-dir", cli::set_text(o.output_dir), "", "(with --simulate; needs --input for every graph input)");
    opt.shared("--output-codes", cli::set_flag(o.output_codes), "", "(compiling a MODEL at pro-int)");
    o.compare.rtol = 2e-2;
    o.compare.atol = std::ldexp(1.0, -24);  // fp16's smallest subnormal: below it the device has 0
    cli::add_compare_options(opt, o.compare,
                             "(the device computes in fp16: the defaults are wider than nnef-run's 1e-4\n"
                             "and 0; atol is fp16's smallest subnormal 2^-24)");
    cli::add_lowering_options(opt, o.lowering,
                              "(compiling a MODEL: pro-int compiles the int8 path, int8 activations and\n"
                              "weights, requantization in the NCE's weights table; FILE.mlir: instead\n"
                              "of the file's own; NNAPI.json: must be the model's)",
                              "(compiling a MODEL)");
    opt.shared("--verify-each", cli::set_flag(o.verify_each), "off");
    opt.shared("--no-verify-each", cli::set_flag(o.verify_each, false));
    std::vector<std::string> tosa_passes = {"legalize-nnef-to-tosa"};
    for (const std::string& n : tosa::layout_pipeline(tosa::LowerOptions{}).names()) tosa_passes.push_back(n);
    const std::vector<std::string> vpu_passes = vpu::compile_pipeline().names();
    // --print-after also takes "import": the VPU module before its first pass (assign-executors' input)
    std::vector<std::string> vpu_printable = {vpu::import_name};
    vpu_printable.insert(vpu_printable.end(), vpu_passes.begin(), vpu_passes.end());
    std::string names;
    for (const std::vector<std::string>* list : {&std::as_const(tosa_passes), &std::as_const(vpu_printable)})
        for (const std::string& n : *list) names += (names.empty() ? "" : ", ") + n;
    opt.shared("--print-after", [&o, tosa_passes, vpu_printable, names](const std::string& v) -> std::optional<std::string> {
        const bool is_tosa = std::find(tosa_passes.begin(), tosa_passes.end(), v) != tosa_passes.end();
        const bool is_vpu = std::find(vpu_printable.begin(), vpu_printable.end(), v) != vpu_printable.end();
        if (v != "all" && !is_tosa && !is_vpu) return "names no pass '" + v + "' (passes: " + names + ")";
        if (v == "all" || is_tosa) o.print_after_tosa.insert(v);
        if (v == "all" || is_vpu) o.print_after_vpu.insert(v);
        return std::nullopt;
    }, names);
    const char* vpu = "vpu";
    opt.add({"--target", "", "FILE", "the target file (default: the task list's own target)", vpu, cli::set_text(o.target_file)});
    opt.add({"--simulate", "", "", "run the task list on the target and print the report", vpu, cli::set_flag(o.simulate)});
    opt.add({"--svg", "", "FILE", "with --simulate: the schedule as an SVG timeline", vpu, cli::set_text(o.svg)});
    opt.add({"--pass", "", "NAME",
             "read IR text (what --print-after writes) instead of a MODEL, run the one VPU pass NAME, verify\n"
             "its promises and write the resulting IR text (stdout or -o)",
             vpu, cli::set_choice(o.pass, vpu_passes)});
}

void print(const Diagnostics& d) { tool().report(d); }

template <class T>
T take(Result<T>&& r) {
    if (!r) tool().fail(r.diagnostics);
    return std::move(*r.value);
}

bool is_task_list_path(const std::string& path) {
    return path.size() > 5 && path.compare(path.size() - 5, 5, ".json") == 0;
}

// The initial values of the model's variables (its state inputs, docs/vpu-compiler.md), by name.
using InitialState = std::map<std::string, tosa::ConstPtr>;
// The graph.quant codes of a compiled model's quantized inputs or outputs (at pro-int), by name.
using OutputCodes = std::map<std::string, tosa::IntegerCodes>;

// The variables' initial values (the graph's state inputs), by name.
void initial_state(const tosa::Graph& g, InitialState& state) {
    for (const tosa::Op& op : g.main().ops) {
        if (op.kind != tosa::OpKind::VARIABLE) continue;
        const tosa::Attr* init = op.attr(tosa::AttrName::initial_value);
        if (init && std::holds_alternative<tosa::ConstPtr>(*init) && std::get<tosa::ConstPtr>(*init))
            state[op.get<std::string>(tosa::AttrName::name)] = std::get<tosa::ConstPtr>(*init);
    }
}

// MODEL -> TOSA -> task list for `target`.
vpu::TaskList compile_model(const std::string& path, const vpu::Target& target, const VpuOptions& o,
                            const FlattenOptions& flatten, InitialState& state, OutputCodes& codes, OutputCodes& input_codes) {
    FlattenOptions f = flatten;
    if (o.random_weights) f.load_weights = false;
    Session session(f);
    auto fail = [&](const Diagnostics& d) { tool().fail(d, session.sources()); };
    if (!session.load_path(path)) fail(session.diagnostics());
    tool().report(session.diagnostics(), session.sources());
    auto print = [](const std::string& pass, const std::string& text) { std::cerr << "// after " << pass << "\n" << text << "\n"; };
    tosa::LowerOptions lo;
    lo.random_weights = o.random_weights;
    // A model without weights (stored graph-only, --no-weights, a graph.nnef without tensor files
    // beside it) compiles for its schedule and timing, which need no values: stand-in values fill
    // the constants (the simulation of values refuses such a model before this).
    const Graph& graph = *session.graph();
    const bool has_variables = std::any_of(graph.operations.begin(), graph.operations.end(),
                                           [](const Operation& op) { return op.name == "variable"; });
    if (!o.random_weights && session.weights().checked == 0 && has_variables) {
        lo.random_weights = 0;
        tool().note(path + ": weights not checked (" + graph.name +
                    " has no tensor data here); pseudo-random values (seed 0) stand in for them: the schedule "
                    "and timing need no values (--random-weights SEED picks the seed)");
    }
    lo.verify_each = o.verify_each;
    tool().document["profile"] = tosa::to_string(cli::apply_lowering_choice(tool(), o.lowering, graph, true, lo));
    lo.print_after = o.print_after_tosa;
    lo.print = print;
    if (lo.profile == tosa::Profile::pro_int)
        for (const std::string& n : session.graph()->outputs)
            if (auto c = tosa::integer_codes(*session.graph(), n)) codes[n] = *c;
    if (lo.profile == tosa::Profile::pro_int)
        for (const std::string& n : session.graph()->inputs)
            if (auto c = tosa::integer_codes(*session.graph(), n)) input_codes[n] = *c;
    Diagnostics diags(0);
    std::optional<tosa::Graph> g = tosa::lower_to_tosa(*session.graph(), lo, diags);
    if (!g) fail(diags);
    initial_state(*g, state);
    vpu::CompileOptions co;
    co.verify_each = o.verify_each;
    co.print_after = o.print_after_vpu;
    co.print = print;
    std::optional<vpu::TaskList> list = vpu::compile(*g, target, co, diags);
    if (!list) fail(diags);
    tool().report(diags, session.sources());
    return std::move(*list);
}

// A TOSA graph read from a file (FILE.mlir, NNAPI.json) -> task list for `target`.
vpu::TaskList compile_graph(const tosa::Graph& g, const SourceManager& sources, const vpu::Target& target, const VpuOptions& o,
                            InitialState& state) {
    initial_state(g, state);
    auto print = [](const std::string& pass, const std::string& text) { std::cerr << "// after " << pass << "\n" << text << "\n"; };
    vpu::CompileOptions co;
    co.verify_each = o.verify_each;
    co.print_after = o.print_after_vpu;
    co.print = print;
    Diagnostics diags(0);
    std::optional<vpu::TaskList> list = vpu::compile(g, target, co, diags);
    if (!list) tool().fail(diags, sources);
    tool().report(diags, sources);
    return std::move(*list);
}

// FILE.mlir -> TOSA (read and validated) -> task list for `target`.
vpu::TaskList compile_mlir(const std::string& path, const vpu::Target& target, const VpuOptions& o, InitialState& state) {
    SourceManager sources;
    const tosa::MlirModule m = cli::read_mlir_input(tool(), path, o.lowering.profile, sources, true);
    tool().document["profile"] = tosa::to_string(m.graph.profile);
    return compile_graph(m.graph, sources, target, o, state);
}

// NNAPI.json -> TOSA (nnapi::to_tosa, its quantized inputs and outputs the i8 codes c - 128) -> task
// list for `target`; `codes` gets the grids of the quantized inputs and outputs.
vpu::TaskList compile_nnapi(const std::string& path, const vpu::Target& target, const VpuOptions& o, InitialState& state,
                            OutputCodes& codes) {
    cli::NnapiInput in = cli::read_nnapi_input(tool(), path, false);
    if (!o.lowering.profile.empty() && *tosa::profile_named(o.lowering.profile) != in.module.graph.profile)
        usage_error("--profile " + o.lowering.profile + ": an NNAPI model's profile is its operand types' (PRO-INT for "
                    "TENSOR_QUANT8_ASYMM, PRO-FP for TENSOR_FLOAT32), here " +
                    (in.module.graph.profile == tosa::Profile::pro_int ? std::string("pro-int") : std::string("pro-fp")));
    codes = std::move(in.codes);
    tool().document["profile"] = tosa::to_string(in.module.graph.profile);
    return compile_graph(in.module.graph, SourceManager(), target, o, state);
}

// The task list the rest of the tool works on.
vpu::TaskList load_task_list(const std::string& path, bool need_constants) {
    vpu::TaskList list = take(vpu::read_task_list_file(path));
    if (need_constants) {
        bool any = false;
        for (const vpu::Buffer& b : list.buffers) any = any || (vpu::is_constant(b.role) && b.memory == vpu::Memory::DDR);
        Diagnostics d;
        if (any && !vpu::read_constants_file(list, vpu::constants_path(path), d)) {
            tool().fail(d);
        }
    }
    return list;
}

// Whether the list has constant DDR buffers, all with their contents.
bool carries_constants(const vpu::TaskList& list) {
    bool any = false;
    for (const vpu::Buffer& b : list.buffers) {
        if (!vpu::is_constant(b.role) || b.memory != vpu::Memory::DDR) continue;
        if (!b.data || std::int64_t(b.data->size()) != b.size) return false;
        any = true;
    }
    return any;
}

// The value of one graph input from --input (NNEF layout). An integer input with graph.quant
// codes (a compiled MODEL at pro-int) takes reals, a file's or random:SEED's (nnef-run's values for
// the same seed), as their codes on its grid; a file of integers as the codes themselves.
tosa::ConstPtr input_value(const vpu::IoEntry& e, const std::string& item, const tosa::IntegerCodes* codes) {
    const bool ints = e.dtype == vpu::DataType::int8 || e.dtype == vpu::DataType::uint8 || e.dtype == vpu::DataType::int32;
    const PrimType prim = ints ? PrimType::integer : PrimType::scalar;
    Shape shape;
    for (std::size_t i : vpu::nnef_order(e.layout)) shape.push_back(e.shape[i]);
    std::optional<exec::TensorValue> v;
    bool reals = false;  // real values for an input with codes: quantized below
    const std::string random = "random:";
    if (item.rfind(random, 0) == 0) {
        const std::string seed = item.substr(random.size());
        if (seed.empty() || seed.size() > 19 || seed.find_first_not_of("0123456789") != std::string::npos)
            usage_error("bad --input '" + e.name + "=" + item + "' (random:SEED needs a non-negative integer)");
        reals = codes != nullptr;
        v = exec::random_tensor(reals ? PrimType::scalar : prim, shape, std::stoull(seed));
    } else {
        auto data = take(storage::read_tensor_file(item));
        reals = codes && (data->kind == ElementKind::float16 || data->kind == ElementKind::float32 || data->kind == ElementKind::float64);
        v = exec::from_tensor_data(*data, reals ? PrimType::scalar : prim);
        if (!v) {
            tool().error("data", "the tensor data has no values of a known encoding", item);
            tool().finish(cli::invalid);
        }
        if (v->shape() != shape) {
            tool().error("data", "input '" + e.name + "' needs shape " + to_string(shape) + " (as the model declares it: an NNEF model in its own order, an NNAPI model NHWC), the file has " +
                                     to_string(v->shape()), item);
            tool().finish(cli::invalid);
        }
    }
    if (reals) {
        std::vector<double> items(static_cast<std::size_t>(v->volume()));
        for (std::int64_t i = 0; i < v->volume(); ++i) items[std::size_t(i)] = v->as_double(i);
        const auto q = tosa::codes_of(*codes, v->shape(), items);
        if (!q) {
            tool().error("data", "the graph.quant entry of input '" + e.name + "' does not apply to shape " + to_string(v->shape()), item);
            tool().finish(cli::invalid);
        }
        exec::TensorValue c(PrimType::integer, v->shape());
        std::copy(q->begin(), q->end(), c.data<std::int64_t>());
        v = std::move(c);
    }
    auto c = tosa::ConstData::allocate({ints ? tosa::DType::i32 : tosa::DType::fp32, shape});
    for (std::int64_t i = 0; i < v->volume(); ++i) {
        if (ints) c->mutable_items<std::int32_t>()[i] = static_cast<std::int32_t>(v->as_double(i));
        else c->mutable_items<float>()[i] = static_cast<float>(v->as_double(i));
    }
    return c;
}

double item(const tosa::ConstData& c, std::int64_t i) {
    return c.type.dtype == tosa::DType::i32 ? double(c.items<std::int32_t>()[i]) : double(c.items<float>()[i]);
}

// An output's values: reals (a quantized output's codes dequantized by its graph.quant entry), or
// the integer codes of a task list that has no graph.quant to say what they mean.
std::vector<double> output_values(const tosa::ConstData& c, const tosa::IntegerCodes* codes) {
    std::vector<double> out(static_cast<std::size_t>(c.type.volume()));
    for (std::int64_t i = 0; i < c.type.volume(); ++i) out[std::size_t(i)] = item(c, i);
    if (!codes) return out;
    const auto reals = tosa::reals_of(*codes, c.type.shape, std::vector<std::int64_t>(out.begin(), out.end()));
    return reals ? *reals : out;  // an entry that does not apply: the codes, as the task list holds them
}

void write_output_tensor(const fs::path& path, const tosa::ConstData& c, const tosa::IntegerCodes* codes, bool write_codes) {
    const std::int64_t n = c.type.volume();
    Result<storage::TensorDataPtr> data;
    if (codes && write_codes) {
        data = cli::codes_tensor(codes->params, c.type.shape, output_values(c, codes));
    } else if (codes) {
        const std::vector<double> reals = output_values(c, codes);
        data = storage::make_float_tensor(c.type.shape, std::vector<float>(reals.begin(), reals.end()));
    } else if (c.type.dtype == tosa::DType::i32) {
        std::vector<std::int64_t> values(static_cast<std::size_t>(n));
        for (std::int64_t i = 0; i < n; ++i) values[std::size_t(i)] = c.items<std::int32_t>()[i];
        data = storage::make_integer_tensor(c.type.shape, values, 32, true);
    } else {
        data = storage::make_float_tensor(c.type.shape, std::vector<float>(c.items<float>(), c.items<float>() + n));
    }
    auto tensor = take(std::move(data));
    std::error_code ec;
    fs::create_directories(path.parent_path(), ec);
    take(storage::write_tensor_file(path.string(), *tensor));
}

// NaN where a value is NaN (std::max would skip it and report the others' magnitude)
double max_magnitude(const std::vector<double>& values) {
    double m = 0.0;
    for (double v : values) {
        if (std::isnan(v)) return v;
        m = std::max(m, std::fabs(v));
    }
    return m;
}

// fp16 represents magnitudes from its smallest normal (2^-14, about 6.1e-5) with full precision,
// below it ever fewer bits down to 2^-24 and then only 0. An fp16 output whose reference (the
// --compare file) or, without one, simulated values all lie below that is physics, not a fault of
// the compiler: say so instead of leaving zeros unexplained.
// Above fp16's largest finite value (65504) it overflows to infinity, and then to NaN (inf - inf,
// 0 * inf): the random-init Inception-v3 of the zoo reaches 2.5e12.
void fp16_range_warning(const std::string& output, double magnitude, bool reference) {
    const double smallest_normal = std::ldexp(1.0, -14), largest = 65504.0;
    char text[320];
    if (std::isnan(magnitude)) {
        // not a question of fp16's range: with --compare the comparison names the NaN on its side
        if (!reference) {
            std::snprintf(text, sizeof text,
                          "output '%s': the simulated values hold NaN (--compare against nnef-run's output says whether "
                          "the float model has them too)",
                          output.c_str());
            tool().warning("vpu", text);
        }
        return;
    }
    if (magnitude > largest) {
        std::snprintf(text, sizeof text,
                      "output '%s': the %s max |value| is %.3g, above fp16's largest (%.0f): fp16 overflows to infinity, and then "
                      "to NaN, %s (physics, not a fault; e.g. deep models with random weights)",
                      output.c_str(), reference ? "reference's" : "simulated", magnitude, largest,
                      reference ? "so the VPU's output is not finite here" : "in the VPU's computation of it");
        tool().warning("vpu", text);
        return;
    }
    if (magnitude >= smallest_normal) return;
    std::snprintf(text, sizeof text,
                  "output '%s': the %s max |value| is %.3g, below fp16's smallest normal (%.3g; 0 below %.3g): fp16 cannot "
                  "represent outputs this small, %s (physics, not a fault; e.g. deep models with random weights)",
                  output.c_str(), reference ? "reference's" : "simulated", magnitude, smallest_normal, std::ldexp(1.0, -24),
                  reference ? "so the VPU gives zeros or coarse subnormals here"
                            : "so where the float model's outputs are this small the VPU gives zeros or coarse subnormals");
    tool().warning("vpu", text);
}

// The simulation report as JSON (docs/json.md).
cli::Json report_json(const vpu::TaskList& list, const vpu::Target& target, const vpu::SimulationResult& r) {
    cli::Json queues = cli::Json::array();
    for (const vpu::QueueStats& q : r.queues)
        queues.push_back({{"name", q.name}, {"tasks", q.tasks}, {"busy_cycles", q.busy},
                          {"busy_share", r.makespan > 0 ? q.busy / r.makespan : 0.0}, {"work_cycles", q.work}});
    cli::Json cmx = cli::Json::array();
    for (std::size_t k = 0; k < r.cmx.size(); ++k)
        cmx.push_back({{"cluster", k}, {"peak_bytes", r.cmx[k].peak}, {"capacity_bytes", target.cmx_bytes},
                       {"high_water_bytes", r.cmx[k].high_water}});
    cli::Json cut = nullptr;
    cli::Json segments = cli::Json::array();
    for (const vpu::LowerBound::Segment& g : r.bound.cut_segments)
        segments.push_back({{"task", list.tasks[std::size_t(g.task)].id}, {"cycles", g.cycles}, {"term", g.term}});
    if (r.bound.cut_task >= 0)
        cut = {{"task", list.tasks[std::size_t(r.bound.cut_task)].id},
               {"name", r.bound.cut_task_name},
               {"before_cycles", r.bound.cut_before},
               {"before_term", r.bound.cut_before_term},
               {"before_segments", segments},
               {"after_cycles", r.bound.cut_after},
               {"after_term", r.bound.cut_after_term},
               {"cmx_excess_bytes", r.bound.cut_cmx_excess}};
    return {{"makespan_cycles", std::ceil(r.makespan)},
            {"makespan_us", r.makespan_us},
            {"clock_mhz", target.clock_mhz},
            {"tasks", list.tasks.size()},
            {"barriers", list.barriers.size()},
            {"lower_bound", {{"cycles", std::ceil(r.bound.value())},
                             {"binding", r.bound.binding()},
                             {"engine_cycles", r.bound.engine},
                             {"engine_queue", r.bound.engine_queue},
                             {"ddr_cycles", r.bound.ddr},
                             {"dataflow_cycles", r.bound.dataflow},
                             {"cut_cycles", r.bound.cut},
                             {"cut", cut},
                             {"list_chain_cycles", r.bound.list_chain}}},
            {"queues", std::move(queues)},
            {"ddr_bytes", {{"total", r.ddr.total()}, {"inputs", r.ddr.inputs}, {"weights", r.ddr.weights},
                           {"spills", r.ddr.spills}, {"outputs", r.ddr.outputs}}},
            {"cmx", std::move(cmx)}};
}

// --pass NAME IN.txt: IR text in, one pass, IR text out.
[[noreturn]] void run_one_pass(const std::string& path, const VpuOptions& o, cli::CommonOptions& opts) {
    const bool values = !o.inputs.empty() || !o.output_dir.empty() || !o.compare.dir.empty();
    opts.format = "ir-text";  // stdout is the IR text: no JSON document, messages as text
    if (o.simulate || values || !o.svg.empty() || !o.target_file.empty() || o.random_weights || o.verify_each ||
        !o.print_after_tosa.empty() || !o.print_after_vpu.empty() || !o.lowering.profile.empty() || !o.lowering.bias_grid.empty() || o.output_codes ||
        opts.format_given)
        usage_error("--pass reads and writes IR text: it takes no other option of compiling or simulating (but -o)");
    std::ifstream f(path, std::ios::binary);
    if (!f) {
        tool().error("io", "cannot open the IR text", path);
        tool().finish(cli::usage);
    }
    std::ostringstream ss;
    ss << f.rdbuf();
    Diagnostics diags(0);
    std::optional<vpu::ir::ReadModule> in = vpu::ir::read_text(ss.str(), path, diags);
    if (!in) tool().fail(diags);
    if (!vpu::run_pass(in->module, o.pass, diags)) tool().fail(diags);
    print(diags);
    if (!cli::write_output(opts.output, vpu::ir::write_text(in->module), tool())) tool().finish(cli::usage);
    tool().finish(cli::ok);
}

int run(int argc, char** argv) {
    VpuOptions o;
    declare_options(tool(), o);
    tool().parse(argc, argv);
    cli::CommonOptions& opts = tool().common;
    const std::string& path = opts.paths.front();
    if (!o.pass.empty()) run_one_pass(path, o, opts);
    const bool to_file = !opts.output.empty() && opts.output != "-";
    // --format json asks for the tool's document on stdout, unless stdout is the task list (no -o,
    // no --simulate); json is also the task list's default format, which asks for no document.
    const std::string list_format = opts.format == "text" ? "text" : "json";
    const bool document = opts.json() && opts.format_given && (o.simulate || to_file);
    if (opts.json() && !document) opts.format = "task-list";  // messages as text
    const bool values = !o.inputs.empty() || !o.output_dir.empty() || !o.compare.dir.empty();
    if (!o.simulate && (values || !o.svg.empty()))
        usage_error("--input, --output-dir, --compare and --svg need --simulate");

    // An NNAPI model is recognised by its content (its name may end in .json, as a task list's does).
    const bool nnapi = cli::is_nnapi_json(path);
    const bool mlir = !nnapi && tosa::is_mlir_path(path);
    const bool model = !nnapi && !is_task_list_path(path) && !mlir;
    if (mlir && (o.random_weights || !o.print_after_tosa.empty() || o.output_codes || !o.lowering.bias_grid.empty()))
        usage_error("--random-weights, --output-codes, --bias-grid and the TOSA passes' --print-after apply to compiling a MODEL; "
                    "FILE.mlir is TOSA already (its constants are its weights)");
    if (nnapi && (o.random_weights || !o.print_after_tosa.empty() || !o.lowering.bias_grid.empty()))
        usage_error("--random-weights, --bias-grid and the TOSA passes' --print-after apply to compiling an NNEF MODEL; an NNAPI model "
                    "has its constants and is lowered by the NNAPI lowering (docs/nnapi.md)");
    if (model && values && !opts.flatten.load_weights && !o.random_weights)
        usage_error("--no-weights: --input, --output-dir and --compare simulate values, which need the model's "
                    "weights; for a model stored without weights use --random-weights SEED");
    // Without values to simulate, a model stored graph-only compiles for its schedule and timing.
    opts.flatten.weights_optional = !values;
    if (!model && !mlir && !nnapi && (o.random_weights || o.verify_each || !o.print_after_tosa.empty() || !o.print_after_vpu.empty() ||
                   !o.lowering.profile.empty() || !o.lowering.bias_grid.empty() || o.output_codes))
        usage_error("--random-weights, --profile, --bias-grid, --output-codes, --verify-each and --print-after apply to compiling a MODEL, "
                    "not to a task list");
    const std::optional<vpu::Target> given =
        o.target_file.empty() ? std::nullopt : std::optional<vpu::Target>(take(vpu::read_target_file(o.target_file)));
    tool().document["path"] = path;
    InitialState state;
    OutputCodes codes, input_codes;
    vpu::TaskList list = model   ? compile_model(path, given.value_or(vpu::Target{}), o, opts.flatten, state, codes, input_codes)
                         : mlir  ? compile_mlir(path, given.value_or(vpu::Target{}), o, state)
                         : nnapi ? compile_nnapi(path, given.value_or(vpu::Target{}), o, state, codes)
                                 : load_task_list(path, values);
    if (nnapi) input_codes = codes;  // the grids of the NNAPI model's quantized inputs and outputs alike
    const vpu::Target target = given.value_or(list.target);

    if (!o.simulate || to_file) {
        const std::string text = list_format == "json" ? vpu::to_json_text(list) : vpu::to_text(list);
        if (!cli::write_output(opts.output, text, tool())) tool().finish(cli::usage);
        // A JSON file gets its constant data file beside it (docs/vpu.md) when the list carries the
        // constants: a compiled MODEL, or a task list read with them (values).
        const bool constants = carries_constants(list);
        cli::Json written = {{"file", to_file ? cli::Json(opts.output) : cli::Json(nullptr)}, {"format", list_format},
                             {"tasks", list.tasks.size()}, {"constants_file", nullptr}};
        if (list_format == "json" && to_file && constants) {
            Diagnostics d;
            if (!vpu::write_constants_file(list, vpu::constants_path(opts.output), d)) tool().fail(d);
            written["constants_file"] = vpu::constants_path(opts.output);
        } else if (list_format == "json" && !to_file && constants && (model || mlir || nnapi)) {
            tool().note("the task list on stdout refers to its constant data, which is not written (a .bin file beside "
                        "the .json holds it): use -o FILE.json to write FILE.bin too");
        }
        tool().document["task_list"] = std::move(written);
        if (!o.simulate) tool().finish(cli::ok);
    }

    vpu::SimulateOptions sim;
    sim.values = values;
    if (values) {
        // A compiled model's state starts from its variables' values, as in nnef-run; an unnamed
        // --input is for the one graph input that has no value otherwise.
        auto initial = [&](const vpu::IoEntry& e) {
            const auto init = state.find(e.name);
            return init != state.end() && init->second->type.dtype == tosa::DType::fp32 ? init->second : tosa::ConstPtr();
        };
        auto named = [&](const vpu::IoEntry& e) {
            for (const auto& [name, it] : o.inputs)
                if (name == e.name) return true;
            return false;
        };
        std::size_t open = 0;
        for (const vpu::IoEntry& e : list.inputs) open += !named(e) && !initial(e);
        for (const vpu::IoEntry& e : list.inputs) {
            std::string found;
            for (const auto& [name, it] : o.inputs)
                if (name == e.name || (name.empty() && open == 1 && !named(e) && !initial(e))) found = it;
            if (found.empty() && initial(e)) {
                sim.inputs[e.name] = initial(e);
                continue;
            }
            if (found.empty()) usage_error("no --input for graph input '" + e.name + "'");
            const auto code_it = input_codes.find(e.name);
            sim.inputs[e.name] = input_value(e, found, code_it == input_codes.end() ? nullptr : &code_it->second);
        }
        for (const auto& [name, it] : o.inputs) {
            bool known = name.empty();
            for (const vpu::IoEntry& e : list.inputs) known = known || e.name == name;
            if (!known) usage_error("--input names '" + name + "', which is not a graph input of the task list");
        }
    }
    Diagnostics diags(0);
    const vpu::SimulationResult result = vpu::simulate(list, target, sim, diags);
    print(diags);
    if (!result.valid) {
        tool().error("vpu", cli::plural(result.violations, "violation") + " in the task list", path);
        tool().finish(cli::invalid);
    }
    if (tool().json()) tool().document["simulation"] = report_json(list, target, result);
    else if (!tool().quiet()) std::cout << vpu::report_text(list, target, result);
    if (!o.svg.empty()) {
        vpu::SvgOptions so;
        so.title = fs::path(path).filename().string() == "graph.nnef" ? fs::path(path).parent_path().filename().string()
                                                                      : fs::path(path).filename().string();
        if (!cli::write_output(o.svg, vpu::to_svg(list, target, result, so), tool())) tool().finish(cli::usage);
    }
    std::vector<cli::Comparison> comparisons;
    for (const auto& [name, value] : result.outputs) {
        const vpu::IoEntry* entry = nullptr;
        for (const vpu::IoEntry& e : list.outputs)
            if (e.name == name) entry = &e;
        const bool fp16 = entry && entry->dtype == vpu::DataType::fp16 && value->type.dtype == tosa::DType::fp32;
        if (fp16 && o.compare.dir.empty()) fp16_range_warning(name, max_magnitude(output_values(*value, nullptr)), false);
        const auto code_it = codes.find(name);
        const tosa::IntegerCodes* grid = code_it == codes.end() ? nullptr : &code_it->second;
        if (!o.output_dir.empty()) write_output_tensor(fs::path(o.output_dir) / (name + ".dat"), *value, grid, o.output_codes);
        if (o.compare.dir.empty()) continue;
        const std::string ref_path = cli::reference_path(o.compare.dir, name, result.outputs.size() == 1);
        auto ref_data = take(storage::read_tensor_file(ref_path));
        const bool codes_only = value->type.dtype == tosa::DType::i32 && !grid;
        auto ref = exec::from_tensor_data(*ref_data, codes_only ? PrimType::integer : PrimType::scalar);
        if (!ref || ref->volume() != value->type.volume()) {
            tool().error("data", "not a reference of " + std::to_string(value->type.volume()) + " items for output '" + name + "'",
                         ref_path);
            tool().finish(cli::invalid);
        }
        if (codes_only)
            tool().note("output '" + name + "' holds integer codes and the task list has no graph.quant to dequantize "
                        "them: compared as numbers");
        std::vector<double> reference(static_cast<std::size_t>(ref->volume()));
        for (std::int64_t i = 0; i < ref->volume(); ++i) reference[std::size_t(i)] = ref->as_double(i);
        if (fp16) fp16_range_warning(name, max_magnitude(reference), true);
        comparisons.push_back(cli::compare(name, ref_path, output_values(*value, grid), reference, value->type.shape,
                                           grid ? &grid->params : nullptr, o.compare));
    }
    bool all_match = true;
    for (const cli::Comparison& c : comparisons) {
        all_match = all_match && c.match;
        if (!tool().json() && !tool().quiet()) std::cout << cli::comparison_text(c);
    }
    if (tool().json() && !o.compare.dir.empty()) tool().document["compare"] = cli::compare_json(comparisons, o.compare);
    if (!all_match) {
        tool().error("compare", cli::mismatch_message(comparisons, o.compare));
        tool().finish(cli::invalid);
    }
    tool().finish(cli::ok);
}

}  // namespace nnef::to_vpu_main

int main(int argc, char** argv) {
    nnef::cli::tune_allocator();
    return nnef::to_vpu_main::run(argc, argv);
}
