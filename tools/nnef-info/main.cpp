// nnef-info: prints a summary of an NNEF model (nnef::summarize): inputs and outputs, operation
// histogram, parameters, MACs, element-wise operations and quantization.
#include <cstdio>
#include <iostream>
#include <sstream>

#include <nnef/summary.hpp>

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
    "and the cost of custom operations is unknown. See docs/info.md.";

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

std::string plural(std::uint64_t n, const char* word) {
    return std::to_string(n) + " " + word + (n == 1 ? "" : "s");
}

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

std::string text(const std::string& path, const Graph& g, const GraphSummary& s) {
    std::ostringstream os;
    os << "model: " << path << "\ngraph: " << g.name << "\ninputs:\n";
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
    return os.str();
}

// ---- JSON ---------------------------------------------------------------------------------

std::string counts_json(const std::vector<OperationCount>& list) {
    std::string out = "[";
    for (std::size_t i = 0; i < list.size(); ++i)
        out += (i ? "," : "") + std::string("{\"name\":") + cli::json_string(list[i].name) +
               ",\"count\":" + std::to_string(list[i].count) + "}";
    return out + "]";
}

std::string cost_json(const CostTotal& c) {
    std::string out = "{\"total\":" + (c.complete ? std::to_string(c.known) : std::string("null")) +
                      ",\"known\":" + std::to_string(c.known) + ",\"complete\":" + (c.complete ? "true" : "false") +
                      ",\"unknown_operations\":" + std::to_string(c.unknown_operations) + ",\"by_type\":[";
    for (std::size_t i = 0; i < c.by_type.size(); ++i) {
        const CostGroup& g = c.by_type[i];
        out += (i ? "," : "") + std::string("{\"name\":") + cli::json_string(g.name) +
               ",\"operations\":" + std::to_string(g.operations) + ",\"unknown\":" + std::to_string(g.unknown) +
               ",\"count\":" + (g.unknown ? std::string("null") : std::to_string(g.cost)) +
               ",\"known\":" + std::to_string(g.cost) + "}";
    }
    return out + "]}";
}

std::string json(const std::string& path, const Graph& g, const GraphSummary& s, const std::string& diagnostics) {
    std::string out = "{\"path\":" + cli::json_string(path) + ",\"graph\":" + cli::json_string(g.name) +
                      ",\"inputs\":" + cli::tensors_json(g, g.inputs) + ",\"outputs\":" + cli::tensors_json(g, g.outputs);
    out += ",\"operations\":{\"total\":" + std::to_string(s.operation_total) + ",\"histogram\":" +
           counts_json(s.operations) + "},\"custom_operations\":" + counts_json(s.custom_operations);
    out += ",\"parameters\":{\"tensors\":" + std::to_string(s.parameter_tensors) +
           ",\"variables\":" + std::to_string(s.variables) + ",\"elements\":" + std::to_string(s.parameter_elements) +
           ",\"bytes\":" + std::to_string(s.parameter_bytes) + ",\"bytes_source\":" +
           (s.bytes_stored ? "\"stored\"" : "\"nominal\"") + ",\"by_dtype\":[";
    for (std::size_t i = 0; i < s.parameters.size(); ++i) {
        const ParameterGroup& p = s.parameters[i];
        out += (i ? "," : "") + std::string("{\"dtype\":") + cli::json_string(p.dtype) +
               ",\"stored\":" + (p.stored ? "true" : "false") + ",\"tensors\":" + std::to_string(p.tensors) +
               ",\"elements\":" + std::to_string(p.elements) + ",\"bytes\":" + std::to_string(p.bytes) + "}";
    }
    out += "]},\"constants\":{\"tensors\":" + std::to_string(s.constant_tensors) +
           ",\"elements\":" + std::to_string(s.constant_elements) + "}";
    out += ",\"macs\":" + cost_json(s.macs) + ",\"elementwise\":" + cost_json(s.elementwise);
    out += ",\"quantization\":{\"quantized_tensors\":" + std::to_string(s.quantized_tensors) + ",\"by_algorithm\":[";
    for (std::size_t i = 0; i < s.quantization.size(); ++i) {
        const QuantizationGroup& q = s.quantization[i];
        out += (i ? "," : "") + std::string("{\"algorithm\":") + cli::json_string(q.algorithm) +
               ",\"attached\":" + std::to_string(q.attached) + ",\"operations\":" + std::to_string(q.operations) + "}";
    }
    out += "],\"parameters\":[";
    for (std::size_t i = 0; i < s.quantized_parameters.size(); ++i) {
        const QuantizedParameterGroup& q = s.quantized_parameters[i];
        out += (i ? "," : "") + std::string("{\"stored\":") + cli::json_string(q.stored) +
               ",\"loaded\":" + (q.loaded ? "true" : "false") + ",\"algorithm\":" + cli::json_string(q.algorithm) +
               ",\"tensors\":" + std::to_string(q.tensors) + ",\"elements\":" + std::to_string(q.elements) +
               ",\"bytes\":" + std::to_string(q.bytes) + ",\"float_bytes\":" + std::to_string(q.float_bytes) + "}";
    }
    return out + "]},\"diagnostics\":" + diagnostics + "}\n";
}

int run(int argc, char** argv) {
    cli::ToolSpec spec{"nnef-info", "PATH", description, false, true, false, true};
    cli::CommonOptions opts;
    int rc = cli::parse_args(argc, argv, spec, opts);
    if (rc >= 0) return rc;
    Session session(opts.flatten);
    const std::string& path = opts.paths.front();
    bool good = session.load_path(path);
    const std::string diagnostics = opts.json ? cli::diagnostics_json(session.diagnostics(), session.sources()) : "";
    if (!good) {
        if (opts.json) std::cerr << diagnostics << "\n";
        else cli::print_diagnostics(std::cerr, session.diagnostics(), session.sources());
        cli::exit_now(cli::failure_code(session.diagnostics()));
    }
    if (!opts.json) cli::print_diagnostics(std::cerr, session.diagnostics(), session.sources());
    const Graph& g = *session.graph();
    const GraphSummary s = summarize(g);
    if (!opts.quiet) {
        const std::string out = opts.json ? json(path, g, s, diagnostics) : text(path, g, s);
        if (!cli::write_output(opts.output, out, spec.name)) cli::exit_now(cli::usage);
    }
    cli::exit_now(cli::ok);
}

}  // namespace nnef::info_main

int main(int argc, char** argv) { return nnef::info_main::run(argc, argv); }
