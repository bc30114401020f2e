// nnef-to-vpu: the VPU back end's tool. Reads a task list (lowering/vpu/task_list.hpp, the JSON of
// specs/vpu-target.md section 6), writes it back as JSON or as a readable dump, and with
// --simulate runs it on the target: checks, timing, a report, the schedule as SVG, and with inputs
// the values of the outputs (written as tensor files or compared with reference files).
//
// Given a MODEL instead of TASKS.json, `load_task_list` compiles it: the NNEF model is lowered to
// TOSA (lowering/tosa/from_nnef.hpp) and compiled for the target (lowering/vpu/compiler.hpp);
// everything after it works on a TaskList whatever its origin.
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <map>
#include <optional>
#include <set>
#include <sstream>

#include "../common/cli.hpp"
#include "exec/executor.hpp"
#include "lowering/tosa/from_nnef.hpp"
#include "lowering/vpu/compiler.hpp"
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
    "TASKS.bin beside it) and writes it back (-o, --format), or simulates it on the target (--simulate):\n"
    "checks every ordering, race, barrier, capacity and alignment rule, times it with the cost model and\n"
    "prints makespan, lower bound, busy share per queue, DDR traffic and peak CMX.\n"
    "\n"
    "MODEL (a graph.nnef, folder or archive) is compiled first: lowered to TOSA, then to a task list.\n"
    "\n"
    "vpu options:\n"
    "  --target FILE            the target file (default: the task list's own target)\n"
    "  --format json|text       how -o writes the task list: JSON (default; -o FILE.json of a compiled\n"
    "                           MODEL also writes its constants to FILE.bin) or a readable dump\n"
    "  --simulate               run the task list on the target and print the report\n"
    "  --svg FILE               with --simulate: the schedule as an SVG timeline\n"
    "  --input NAME=FILE.dat    with --simulate: the value of graph input NAME (in NNEF's layout); FILE\n"
    "                           alone for a list with one input; computes the outputs' values\n"
    "  --input NAME=random:SEED pseudo-random values as nnef-run makes them (scalar N(0,1), integer [0,10))\n"
    "                           (a variable that the graph updates is an input and an output named after\n"
    "                           its label; compiling a MODEL, it starts from the variable's value)\n"
    "  --output-dir DIR         write each output to DIR/NAME.dat (needs --input for every graph input)\n"
    "  --compare DIR            compare each output with DIR/NAME.dat: relative L2 error <= --rtol\n"
    "  --rtol R                 tolerance of --compare (default 1e-2)\n"
    "  --random-weights SEED    compiling a MODEL: pseudo-random weights (as nnef-run's) instead of stored ones\n"
    NNEF_CLI_PROFILE_HELP
    "                           compiling a MODEL: pro-int compiles the int8 path (int8 activations and\n"
    "                           weights, requantization in the NCE's weights table)\n"
    "  --verify-each            compiling a MODEL: verify the IR after every pass\n"
    "  --print-after PASS       compiling a MODEL: print the IR after PASS (or 'all') on stderr; passes:\n"
    "                           assign-executors, layout-and-types, tile, build-tables, schedule, barriers, emit\n"
    "\n"
    "exit status: 0 success (no violation, every output matches), 1 invalid task list, a violation or a\n"
    "mismatch, 2 usage or I/O error";

struct VpuOptions {
    std::string target_file, svg, output_dir, compare_dir;
    std::string format = "json";
    bool simulate = false;
    double rtol = 1e-2;
    std::vector<std::pair<std::string, std::string>> inputs;  // NAME (may be empty), FILE or random:SEED
    // compiling a MODEL
    std::optional<std::uint64_t> random_weights;
    std::optional<tosa::Profile> profile;
    bool verify_each = false;
    std::set<std::string> print_after;
};

[[noreturn]] void usage_error(const std::string& message) {
    std::cerr << "nnef-to-vpu: error: " << message << "\nusage: nnef-to-vpu [options] MODEL|TASKS.json\n(try --help)\n";
    cli::exit_now(cli::usage);
}

// Takes the vpu options out of argv; the rest goes to the common parser.
std::vector<char*> take_vpu_options(int argc, char** argv, VpuOptions& o) {
    std::vector<char*> rest{argv[0]};
    static const std::set<std::string> keys = {"--target",  "--format", "--svg",          "--input",      "--output-dir",
                                               "--compare", "--rtol",   "--random-weights", "--print-after", "--profile"};
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        const std::string key = a.substr(0, a.find('='));
        if (a == "--simulate") {
            o.simulate = true;
            continue;
        }
        if (a == "--verify-each") {
            o.verify_each = true;
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
        if (key == "--target") o.target_file = v;
        else if (key == "--svg") o.svg = v;
        else if (key == "--output-dir") o.output_dir = v;
        else if (key == "--compare") o.compare_dir = v;
        else if (key == "--print-after") {
            if (v != "all" && !vpu::compile_pipeline().has(v)) usage_error("--print-after: no pass named '" + v + "'");
            o.print_after.insert(v);
        } else if (key == "--profile") {
            o.profile = cli::parse_profile(v);
            if (!o.profile) usage_error("unknown profile '" + v + "' (use pro-fp or pro-int)");
        } else if (key == "--random-weights") {
            if (v.empty() || v.size() > 19 || v.find_first_not_of("0123456789") != std::string::npos)
                usage_error("--random-weights needs a non-negative integer, not '" + v + "'");
            o.random_weights = std::stoull(v);
        }
        else if (key == "--format") {
            if (v != "json" && v != "text") usage_error("--format takes json or text, not '" + v + "'");
            o.format = v;
        } else if (key == "--rtol") {
            char* end = nullptr;
            o.rtol = std::strtod(v.c_str(), &end);
            if (v.empty() || end != v.c_str() + v.size() || !(o.rtol >= 0)) usage_error("--rtol needs a non-negative number, not '" + v + "'");
        } else if (key == "--input") {
            const auto eq = v.find('=');
            const std::string item = eq == std::string::npos ? v : v.substr(eq + 1);
            if (v.empty() || eq == 0 || item.empty()) usage_error("bad --input '" + v + "' (expected NAME=FILE.dat or NAME=random:SEED)");
            o.inputs.emplace_back(eq == std::string::npos ? "" : v.substr(0, eq), item);
        }
    }
    return rest;
}

void print(const Diagnostics& d) {
    SourceManager sm;
    cli::print_diagnostics(std::cerr, d, sm);
}

template <class T>
T take(Result<T>&& r) {
    if (!r) {
        print(r.diagnostics);
        cli::exit_now(cli::failure_code(r.diagnostics));
    }
    return std::move(*r.value);
}

bool is_task_list_path(const std::string& path) {
    return path.size() > 5 && path.compare(path.size() - 5, 5, ".json") == 0;
}

// The initial values of the model's variables (its state inputs, docs/vpu-compiler.md), by name.
using InitialState = std::map<std::string, tosa::ConstPtr>;

// MODEL -> TOSA -> task list for `target`.
vpu::TaskList compile_model(const std::string& path, const vpu::Target& target, const VpuOptions& o,
                            const FlattenOptions& flatten, InitialState& state) {
    FlattenOptions f = flatten;
    if (o.random_weights) f.load_weights = false;
    Session session(f);
    auto fail = [&](const Diagnostics& d) {
        cli::print_diagnostics(std::cerr, d, session.sources());
        cli::exit_now(cli::failure_code(d));
    };
    if (!session.load_path(path)) fail(session.diagnostics());
    cli::print_diagnostics(std::cerr, session.diagnostics(), session.sources());
    auto print = [](const std::string& pass, const std::string& text) { std::cerr << "// after " << pass << "\n" << text << "\n"; };
    tosa::LowerOptions lo;
    lo.random_weights = o.random_weights;
    lo.verify_each = o.verify_each;
    lo.profile = o.profile.value_or(tosa::Profile::pro_fp);
    Diagnostics diags(0);
    std::optional<tosa::Graph> g = tosa::lower_to_tosa(*session.graph(), lo, diags);
    if (!g) fail(diags);
    for (const tosa::Op& op : g->main().ops) {
        if (op.kind != tosa::OpKind::VARIABLE) continue;
        const tosa::Attr* init = op.attr(tosa::AttrName::initial_value);
        if (init && std::holds_alternative<tosa::ConstPtr>(*init) && std::get<tosa::ConstPtr>(*init))
            state[op.get<std::string>(tosa::AttrName::name)] = std::get<tosa::ConstPtr>(*init);
    }
    vpu::CompileOptions co;
    co.verify_each = o.verify_each;
    co.print_after = o.print_after;
    co.print = print;
    std::optional<vpu::TaskList> list = vpu::compile(*g, target, co, diags);
    if (!list) fail(diags);
    cli::print_diagnostics(std::cerr, diags, session.sources());
    return std::move(*list);
}

// The task list the rest of the tool works on.
vpu::TaskList load_task_list(const std::string& path, bool need_constants) {
    vpu::TaskList list = take(vpu::read_task_list_file(path));
    if (need_constants) {
        bool any = false;
        for (const vpu::Buffer& b : list.buffers) any = any || (vpu::is_constant(b.role) && b.memory == vpu::Memory::DDR);
        Diagnostics d;
        if (any && !vpu::read_constants_file(list, vpu::constants_path(path), d)) {
            print(d);
            cli::exit_now(cli::failure_code(d));
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

// The value of one graph input from --input (NNEF layout).
tosa::ConstPtr input_value(const vpu::IoEntry& e, const std::string& item) {
    const bool ints = e.dtype == vpu::DataType::int8 || e.dtype == vpu::DataType::uint8 || e.dtype == vpu::DataType::int32;
    const PrimType prim = ints ? PrimType::integer : PrimType::scalar;
    Shape shape;
    for (std::size_t i : vpu::nnef_order(e.layout)) shape.push_back(e.shape[i]);
    std::optional<exec::TensorValue> v;
    const std::string random = "random:";
    if (item.rfind(random, 0) == 0) {
        const std::string seed = item.substr(random.size());
        if (seed.empty() || seed.size() > 19 || seed.find_first_not_of("0123456789") != std::string::npos)
            usage_error("bad --input '" + e.name + "=" + item + "' (random:SEED needs a non-negative integer)");
        v = exec::random_tensor(prim, shape, std::stoull(seed));
    } else {
        auto data = take(storage::read_tensor_file(item));
        v = exec::from_tensor_data(*data, prim);
        if (!v) {
            std::cerr << "nnef-to-vpu: error: " << item << ": the tensor data has no values of a known encoding\n";
            cli::exit_now(cli::invalid);
        }
        if (v->shape() != shape) {
            std::ostringstream os;
            os << "nnef-to-vpu: error: " << item << ": input '" << e.name << "' needs shape [";
            for (std::size_t i = 0; i < shape.size(); ++i) os << (i ? "," : "") << shape[i];
            os << "] (NNEF order), the file has [";
            for (std::size_t i = 0; i < v->shape().size(); ++i) os << (i ? "," : "") << v->shape()[i];
            std::cerr << os.str() << "]\n";
            cli::exit_now(cli::invalid);
        }
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

void write_output_tensor(const fs::path& path, const tosa::ConstData& c) {
    const std::int64_t n = c.type.volume();
    Result<storage::TensorDataPtr> data;
    if (c.type.dtype == tosa::DType::i32) {
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

int run(int argc, char** argv) {
    VpuOptions o;
    std::vector<char*> rest = take_vpu_options(argc, argv, o);
    cli::ToolSpec spec{"nnef-to-vpu", "MODEL|TASKS.json", description, false, true, false, false};
    cli::CommonOptions opts;
    const int rc = cli::parse_args(static_cast<int>(rest.size()), rest.data(), spec, opts);
    if (rc >= 0) return rc;
    const bool values = !o.inputs.empty() || !o.output_dir.empty() || !o.compare_dir.empty();
    if (!o.simulate && (values || !o.svg.empty()))
        usage_error("--input, --output-dir, --compare and --svg need --simulate");

    const bool model = !is_task_list_path(opts.paths.front());
    if (!model && (o.random_weights || o.verify_each || !o.print_after.empty() || o.profile))
        usage_error("--random-weights, --profile, --verify-each and --print-after apply to compiling a MODEL, not to a task list");
    const std::optional<vpu::Target> given =
        o.target_file.empty() ? std::nullopt : std::optional<vpu::Target>(take(vpu::read_target_file(o.target_file)));
    InitialState state;
    vpu::TaskList list = model ? compile_model(opts.paths.front(), given.value_or(vpu::Target{}), o, opts.flatten, state)
                               : load_task_list(opts.paths.front(), values);
    const vpu::Target target = given.value_or(list.target);

    if (!o.simulate || !opts.output.empty()) {
        const std::string text = o.format == "json" ? vpu::to_json_text(list) : vpu::to_text(list);
        if (!cli::write_output(opts.output, text, "nnef-to-vpu")) return cli::usage;
        // A JSON file gets its constant data file beside it (docs/vpu.md) when the list carries the
        // constants: a compiled MODEL, or a task list read with them (values).
        if (o.format == "json" && !opts.output.empty() && opts.output != "-" && carries_constants(list)) {
            Diagnostics d;
            if (!vpu::write_constants_file(list, vpu::constants_path(opts.output), d)) {
                print(d);
                return cli::usage;
            }
        }
        if (!o.simulate) return cli::ok;
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
            sim.inputs[e.name] = input_value(e, found);
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
        std::cerr << "nnef-to-vpu: " << result.violations << " violation" << (result.violations == 1 ? "" : "s") << " in '"
                  << opts.paths.front() << "'\n";
        return cli::invalid;
    }
    std::cout << vpu::report_text(list, target, result);
    if (!o.svg.empty() && !cli::write_output(o.svg, vpu::to_svg(list, target, result), "nnef-to-vpu")) return cli::usage;
    int status = cli::ok;
    for (const auto& [name, value] : result.outputs) {
        if (!o.output_dir.empty()) write_output_tensor(fs::path(o.output_dir) / (name + ".dat"), *value);
        if (o.compare_dir.empty()) continue;
        fs::path ref_path = fs::path(o.compare_dir) / (name + ".dat");
        if (!fs::exists(ref_path) && result.outputs.size() == 1) ref_path = fs::path(o.compare_dir) / "output.dat";
        auto ref_data = take(storage::read_tensor_file(ref_path.string()));
        auto ref = exec::from_tensor_data(*ref_data, value->type.dtype == tosa::DType::i32 ? PrimType::integer : PrimType::scalar);
        if (!ref || ref->volume() != value->type.volume()) {
            std::cerr << "nnef-to-vpu: error: " << ref_path.string() << ": not a reference of " << value->type.volume()
                      << " items for output '" << name << "'\n";
            return cli::invalid;
        }
        double diff2 = 0, ref2 = 0, max_abs = 0;
        for (std::int64_t i = 0; i < value->type.volume(); ++i) {
            const double a = item(*value, i), b = ref->as_double(i);
            diff2 += (a - b) * (a - b);
            ref2 += b * b;
            max_abs = std::max(max_abs, std::fabs(a - b));
        }
        const double rel = ref2 > 0 ? std::sqrt(diff2 / ref2) : std::sqrt(diff2);
        const bool match = rel <= o.rtol && std::isfinite(rel);
        char buf[256];
        std::snprintf(buf, sizeof buf, "%s: relative L2 error %.3g, max abs error %.3g vs %s: %s\n", name.c_str(), rel, max_abs,
                      ref_path.string().c_str(), match ? "match" : "MISMATCH");
        std::cout << buf;
        if (!match) status = cli::invalid;
    }
    return status;
}

}  // namespace nnef::to_vpu_main

int main(int argc, char** argv) {
    nnef::cli::tune_allocator();
    nnef::cli::exit_now(nnef::to_vpu_main::run(argc, argv));
}
