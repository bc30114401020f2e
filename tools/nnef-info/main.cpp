// nnef-info: prints a summary of an NNEF model (nnef::summarize): inputs and outputs, operation
// histogram, parameters, MACs, element-wise operations and quantization.
#include <algorithm>
#include <cstdio>
#include <optional>
#include <iostream>
#include <sstream>

#include <nnef/summary.hpp>

#include "lowering/tosa/from_nnef.hpp"

#include "../common/cli.hpp"
#include "../common/tensors.hpp"

namespace nnef::info_main {

const char* const description =
    "Prints a summary of the model (a folder, a .tar or .tgz archive, or a graph.nnef file): graph name,\n"
    "inputs and outputs, the operation histogram (by count, then name), parameters, multiply-accumulates,\n"
    "element-wise operations and quantization. Counts are of the flat graph (standard compounds atomic\n"
    "unless --expand-all).\n"
    "\n"
    "Parameters: the variables, each label once. Elements from the declared shape; bytes from the\n"
    "stored tensor data when weights are loaded, else nominal (scalar 4, integer 4, logical 1 byte).\n"
    "MACs (multiply-accumulates, from the operations' spec semantics; bias additions excluded):\n"
    "  conv                  output volume x input channels / groups x kernel spatial volume\n"
    "                        (output volume x filter volume / filter batch extent; covers groups = 0)\n"
    "  deconv                input volume x output channels / groups x kernel spatial volume\n"
    "  separable_conv/deconv the depth-wise and the point-wise part\n"
    "  matmul                output volume x K (the agreeing extent), batch dimensions included\n"
    "  linear                output volume x K (the filter's last extent)\n"
    "  every other operation 0\n"
    "Element-wise operations: one per output item of unary, binary, select, clamp, activation,\n"
    "prelu, batch_normalization and quantization operations (add_n: n - 1); copy and cast 0.\n"
    "Counts that need an unknown shape (downstream of a custom operation) are reported as unknown,\n"
    "and the cost of custom operations is unknown.\n"
    "TOSA operators: the histogram of the TOSA 1.0.1 operators the model lowers to (nnef-to-tosa's\n"
    "lowering at PRO-FP, level 8K, layout passes included; random weights stand in for missing tensor\n"
    "data), or why it does not lower. See docs/info.md.";

// The model lowered to TOSA: its operator histogram, or the first reason it does not lower.
struct TosaSummary {
    bool lowered = false;
    std::uint64_t total = 0;
    std::vector<OperationCount> histogram;  // by count (descending), then name
    std::string reason;                     // when not lowered
};

TosaSummary tosa_summary(const Graph& g, bool weights_stored) {
    TosaSummary out;
    tosa::LowerOptions options;
    options.verify_each = false;  // a histogram needs the operators, not the checks after each pass
    if (!weights_stored) options.random_weights = 0;
    Diagnostics diags;
    const std::optional<tosa::Graph> t = tosa::lower_to_tosa(g, options, diags);
    if (!t) {
        for (const Diagnostic& d : diags)
            if (d.severity == Severity::error) {
                out.reason = d.message;
                break;
            }
        return out;
    }
    out.lowered = true;
    std::vector<std::uint64_t> counts(tosa::op_kind_count, 0);
    for (const tosa::Block& b : t->blocks)
        for (const tosa::Op& op : b.ops) ++counts[static_cast<std::size_t>(op.kind)];
    for (std::size_t k = 0; k < counts.size(); ++k)
        if (counts[k]) {
            out.histogram.push_back({tosa::to_string(static_cast<tosa::OpKind>(k)), counts[k]});
            out.total += counts[k];
        }
    std::stable_sort(out.histogram.begin(), out.histogram.end(), [](const OperationCount& a, const OperationCount& b) {
        return a.count != b.count ? a.count > b.count : a.name < b.name;
    });
    return out;
}

// " (1.81 G)": an approximation of a count from 1000 up, else "".
std::string scale(std::uint64_t n, const char* unit = "") {
    const char* units[] = {"", " k", " M", " G", " T", " P", " E"};
    double v = double(n);
    int u = 0;
    while (v >= 1000.0 && u < 6) {
        v /= 1000.0;
        ++u;
    }
    if (u == 0) return "";
    char buf[32];
    std::snprintf(buf, sizeof buf, " (%.3g%s%s)", v, units[u], unit);
    return buf;
}

using cli::plural;

// ---- text ---------------------------------------------------------------------------------

void cost_text(std::ostream& os, const char* title, const CostTotal& c, const GraphSummary& s) {
    os << title << ": ";
    if (c.complete) {
        os << c.known << scale(c.known) << "\n";
    } else {
        os << "unknown (";
        if (c.unknown_operations) os << plural(c.unknown_operations, "operation") << " with unknown shapes; ";
        if (!s.custom_operations.empty()) os << "custom operations not counted; ";
        os << c.known << scale(c.known) << " over the rest)\n";
    }
    for (const CostGroup& g : c.by_type) {
        os << "  " << g.name << ": " << plural(g.operations, "operation") << ", ";
        if (g.unknown == 0) os << g.cost;
        else os << "unknown (" << g.unknown << " with unknown shapes; " << g.cost << " over the others)";
        os << "\n";
    }
}

std::string text(const std::string& path, const Graph& g, const GraphSummary& s, const std::optional<TosaSummary>& t,
                 const std::string& weights) {
    std::ostringstream os;
    os << "model: " << path << " (" << weights << ")\ngraph: " << g.name << "\ninputs:\n";
    for (const std::string& n : g.inputs) os << "  " << n << ": " << cli::tensor_text(g.tensor(n)) << "\n";
    os << "outputs:\n";
    for (const std::string& n : g.outputs) os << "  " << n << ": " << cli::tensor_text(g.tensor(n)) << "\n";
    os << "operations: " << s.operation_total << "\n";
    for (const OperationCount& c : s.operations) os << "  " << c.name << ": " << c.count << "\n";
    if (!s.custom_operations.empty()) {
        os << "custom operations (cost unknown):\n";
        for (const OperationCount& c : s.custom_operations) os << "  " << c.name << ": " << c.count << "\n";
    }
    os << "parameters: " << plural(s.parameter_tensors, "tensor") << " (" << plural(s.variables, "variable") << "), "
       << s.parameter_elements << " elements" << scale(s.parameter_elements) << ", " << s.parameter_bytes << " bytes"
       << scale(s.parameter_bytes, "B") << ", "
       << (s.bytes_stored ? "as stored in the tensor files" : "nominal sizes of the declared types (no tensor data loaded)")
       << "\n";
    for (const ParameterGroup& p : s.parameters)
        os << "  " << p.dtype << ": " << plural(p.tensors, "tensor") << ", " << p.elements << " elements, " << p.bytes
           << " bytes" << (p.stored ? "" : " (nominal)") << "\n";
    if (s.constant_tensors)
        os << "constants: " << plural(s.constant_tensors, "tensor") << ", " << s.constant_elements << " elements\n";
    cost_text(os, "MACs", s.macs, s);
    cost_text(os, "element-wise operations", s.elementwise, s);
    os << "quantization: " << plural(s.quantized_tensors, "tensor") << " quantized\n";
    for (const QuantizationGroup& q : s.quantization)
        os << "  " << q.algorithm << ": " << plural(q.attached, "tensor") << " from graph.quant, "
           << plural(q.operations, "operation") << " in the graph\n";
    if (!s.quantized_parameters.empty()) os << "quantized parameters (stored / as float32):\n";
    for (const QuantizedParameterGroup& q : s.quantized_parameters)
        os << "  " << q.stored << (q.loaded ? "" : " (declared, not loaded)") << ", " << q.algorithm << ": "
           << plural(q.tensors, "tensor") << ", " << q.elements << " elements, " << q.bytes << " bytes stored"
           << scale(q.bytes, "B") << ", " << q.float_bytes << " bytes as float32" << scale(q.float_bytes, "B") << "\n";
    if (t && t->lowered) {
        os << "TOSA operators (PRO-FP, level 8K): " << t->total << "\n";
        for (const OperationCount& c : t->histogram) os << "  " << c.name << ": " << c.count << "\n";
    } else if (t) {
        os << "TOSA operators: not lowered: " << t->reason << "\n";
    }
    return os.str();
}

// ---- JSON ---------------------------------------------------------------------------------

cli::Json counts_json(const std::vector<OperationCount>& list) {
    cli::Json out = cli::Json::array();
    for (const OperationCount& c : list) out.push_back({{"name", c.name}, {"count", c.count}});
    return out;
}

// A total is null when some operation's count is unknown (its shapes are); `known` is what is known.
cli::Json cost_json(const CostTotal& c) {
    cli::Json by_type = cli::Json::array();
    for (const CostGroup& g : c.by_type)
        by_type.push_back({{"name", g.name},
                           {"operations", g.operations},
                           {"unknown", g.unknown},
                           {"count", g.unknown ? cli::Json(nullptr) : cli::Json(g.cost)},
                           {"known", g.cost}});
    return {{"total", c.complete ? cli::Json(c.known) : cli::Json(nullptr)},
            {"known", c.known},
            {"complete", c.complete},
            {"unknown_operations", c.unknown_operations},
            {"by_type", std::move(by_type)}};
}

// The summary's members of the tool's JSON document (docs/json.md).
void json(cli::Json& out, const std::string& path, const Graph& g, const GraphSummary& s, const std::optional<TosaSummary>& t,
          const std::string& weights) {
    cli::Json by_dtype = cli::Json::array();
    for (const ParameterGroup& p : s.parameters)
        by_dtype.push_back({{"dtype", p.dtype},
                            {"stored", p.stored},
                            {"tensors", p.tensors},
                            {"elements", p.elements},
                            {"bytes", p.bytes}});
    cli::Json by_algorithm = cli::Json::array();
    for (const QuantizationGroup& q : s.quantization)
        by_algorithm.push_back({{"algorithm", q.algorithm}, {"attached", q.attached}, {"operations", q.operations}});
    cli::Json quantized_parameters = cli::Json::array();
    for (const QuantizedParameterGroup& q : s.quantized_parameters)
        quantized_parameters.push_back({{"stored", q.stored},
                                        {"loaded", q.loaded},
                                        {"algorithm", q.algorithm},
                                        {"tensors", q.tensors},
                                        {"elements", q.elements},
                                        {"bytes", q.bytes},
                                        {"float_bytes", q.float_bytes}});
    cli::Json members = {
        {"path", path},
        {"weights", weights},
        {"graph", g.name},
        {"inputs", cli::tensors_json(g, g.inputs)},
        {"outputs", cli::tensors_json(g, g.outputs)},
        {"operations", {{"total", s.operation_total}, {"histogram", counts_json(s.operations)}}},
        {"custom_operations", counts_json(s.custom_operations)},
        {"parameters",
         {{"tensors", s.parameter_tensors},
          {"variables", s.variables},
          {"elements", s.parameter_elements},
          {"bytes", s.parameter_bytes},
          {"bytes_source", s.bytes_stored ? "stored" : "nominal"},
          {"by_dtype", std::move(by_dtype)}}},
        {"constants", {{"tensors", s.constant_tensors}, {"elements", s.constant_elements}}},
        {"macs", cost_json(s.macs)},
        {"elementwise", cost_json(s.elementwise)},
        {"quantization", {{"quantized_tensors", s.quantized_tensors}, {"by_algorithm", std::move(by_algorithm)},
                          {"parameters", std::move(quantized_parameters)}}}};
    for (auto it = members.begin(); it != members.end(); ++it) out[it.key()] = it.value();
    if (t && t->lowered)
        out["tosa"] = {{"lowered", true},
                       {"profile", "PRO-FP"},
                       {"level", "8K"},
                       {"total", t->total},
                       {"histogram", counts_json(t->histogram)}};
    else if (t)
        out["tosa"] = {{"lowered", false}, {"reason", t->reason}};
}

int run(int argc, char** argv) {
    cli::tune_allocator();
    cli::Tool tool({"nnef-info", "PATH", description});
    cli::FrontEnd front;
    front.output = front.expand = true;
    front.output_help = "(the summary; with --format json the JSON document)";
    cli::add_front_end(tool.options, tool.common, front);
    bool no_tosa = false;
    tool.options.add({"--no-tosa", "", "", "skip the TOSA operator histogram (the lowering)", "summary", cli::set_flag(no_tosa)});
    tool.parse(argc, argv);
    cli::CommonOptions& opts = tool.common;
    opts.flatten.weights_optional = true;  // a summary of a model stored graph-only needs no values
    Session session(opts.flatten);
    const std::string& path = opts.paths.front();
    const bool good = session.load_path(path);
    if (!good) tool.fail(session.diagnostics(), session.sources());
    tool.report(session.diagnostics(), session.sources());
    const Graph& g = *session.graph();
    const GraphSummary s = summarize(g);
    if (tool.quiet()) tool.finish(cli::ok);
    std::optional<TosaSummary> t;
    if (!no_tosa) t = tosa_summary(g, s.bytes_stored);
    if (!tool.json()) {
        if (!cli::write_output(opts.output, text(path, g, s, t, session.weights().summary()), tool)) tool.finish(cli::usage);
        tool.finish(cli::ok);
    }
    json(tool.document, path, g, s, t, session.weights().summary());
    if (!opts.output.empty() && opts.output != "-") {
        // The document goes to FILE instead of stdout.
        if (!cli::write_output(opts.output, tool.full_document(cli::ok).dump() + "\n", tool)) tool.finish(cli::usage);
        tool.document_written();
    }
    tool.finish(cli::ok);
}

}  // namespace nnef::info_main

int main(int argc, char** argv) { return nnef::info_main::run(argc, argv); }
