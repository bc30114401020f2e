// nnef-to-nnapi: exports a model as an Android NNAPI 1.0 model (lowering/nnapi/from_nnef.hpp),
// validates it (lowering/nnapi/model.hpp) and writes it as JSON with its pool file beside it
// (docs/nnapi.md); with --partial, lists which operations NNAPI 1.0 can express, as
// getSupportedOperations answers.
#include <iostream>
#include <map>
#include <optional>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "../common/cli.hpp"
#include "lowering/nnapi/from_nnef.hpp"
#include "lowering/nnapi/model.hpp"

namespace nnef::to_nnapi_main {

const char* const description =
    "Exports the model (a folder, a .tar or .tgz archive, or a graph.nnef file) as an Android Neural Networks\n"
    "HAL 1.0 model: NNAPI 1.0 operations on NHWC tensors (filters in NNAPI's layouts, biases and\n"
    "activations fused), TENSOR_QUANT8_ASYMM for a quantized model (graph.quant). The model is validated\n"
    "against every rule of the HAL text and written as JSON (-o MODEL.json) with its constants pool in\n"
    "MODEL.bin beside it (docs/nnapi.md). An operation NNAPI 1.0 cannot express is an error naming it, its\n"
    "line and why; --partial lists instead, for every operation, whether NNAPI 1.0 can express it.";

std::string where(const SourceManager& sm, const SourceRange& r) {
    if (!r.valid()) return "?";
    const LineCol lc = sm.begin(r);
    return sm.name(r.file) + ":" + std::to_string(lc.line) + ":" + std::to_string(lc.col);
}

int run(int argc, char** argv) {
    cli::Tool tool({"nnef-to-nnapi", "MODEL", description, false,
                    "0 success (with --partial: the list was made), 1 invalid model or a model NNAPI 1.0 cannot\n"
                    "express (diagnostics printed), 2 usage or I/O error"});
    cli::FrontEnd front;
    front.output = true;
    front.output_help = "(the model's JSON; its pool goes to the same name with .bin)";
    cli::add_front_end(tool.options, tool.common, front);
    std::optional<std::uint64_t> random_weights;
    bool partial = false;
    cli::Options& o = tool.options;
    o.shared("--random-weights", cli::set_optional_uint(random_weights), "", "(the same values as nnef-run --random-weights SEED)");
    o.add({"--partial", "", "", "list each operation as supported or not by NNAPI 1.0 (getSupportedOperations)\n"
           "instead of exporting", "export", cli::set_flag(partial)});
    tool.parse(argc, argv);
    const cli::CommonOptions& opts = tool.common;
    if (!partial && opts.output.empty()) tool.usage_error("-o MODEL.json is needed (the model is written as JSON with a .bin pool beside it)");
    if (!partial && opts.output == "-") tool.usage_error("-o - cannot hold the model's pool file; name a file");

    FlattenOptions flatten = opts.flatten;
    if (random_weights) flatten.load_weights = false;
    Session session(flatten);
    const std::string& path = opts.paths.front();
    if (!session.load_path(path)) tool.fail(session.diagnostics(), session.sources());
    tool.report(session.diagnostics(), session.sources());
    const nnef::Graph& graph = *session.graph();
    nnapi::ExportOptions eo;
    eo.random_weights = random_weights;

    if (partial) {
        const std::vector<nnapi::OperationSupport> support = nnapi::supported_operations(graph, eo);
        std::size_t supported = 0;
        for (const auto& s : support) supported += s.supported;
        if (tool.json()) {
            cli::Json list = cli::Json::array();
            for (const auto& s : support) {
                cli::Json item = {{"index", s.index}, {"operation", s.op}, {"result", s.result},
                                  {"location", where(session.sources(), s.range)}, {"supported", s.supported}};
                if (!s.supported) item["why"] = s.why;
                list.push_back(std::move(item));
            }
            tool.document["path"] = path;
            tool.document["graph"] = graph.name;
            tool.document["supported"] = supported;
            tool.document["operations"] = std::move(list);
        } else if (!tool.quiet()) {
            std::ostringstream os;
            for (const auto& s : support) {
                os << where(session.sources(), s.range) << ": " << s.op << " -> " << s.result << ": "
                   << (s.supported ? "supported" : "unsupported: " + s.why) << "\n";
            }
            os << supported << " of " << support.size() << " operations supported\n";
            std::cout << os.str();
        }
        tool.finish(cli::ok);
    }

    Diagnostics diags;
    std::optional<nnapi::Exported> e = nnapi::export_model(graph, eo, diags);
    if (e) nnapi::validate(e->model, diags);
    tool.report(diags, session.sources());
    if (!e || diags.has_errors()) tool.finish(cli::invalid);
    Diagnostics io;
    if (!nnapi::write_model(e->model, opts.output, io)) {
        tool.report(io);
        tool.finish(cli::usage);
    }
    std::map<std::string, std::size_t> histogram;
    for (const nnapi::Operation& op : e->model.operations) ++histogram[nnapi::to_string(op.type)];
    auto boundary = [&](const std::vector<nnapi::TensorBinding>& list) {
        cli::Json out = cli::Json::array();
        for (const nnapi::TensorBinding& b : list) {
            const nnapi::Operand& op = e->model.operands.at(b.operand);
            cli::Json item = {{"name", b.name}, {"operand", b.operand}, {"type", nnapi::to_string(op.type)},
                              {"dimensions", op.dimensions}, {"layout", b.nhwc ? "NHWC" : "NNEF"}};
            if (b.quantized) item.update({{"scale", op.scale}, {"zeroPoint", op.zeroPoint}, {"code_offset", b.offset}});
            out.push_back(std::move(item));
        }
        return out;
    };
    if (tool.json()) {
        tool.document["path"] = path;
        tool.document["graph"] = graph.name;
        tool.document["model"] = opts.output;
        tool.document["operands"] = e->model.operands.size();
        tool.document["operations"] = e->model.operations.size();
        tool.document["histogram"] = histogram;
        tool.document["inputs"] = boundary(e->inputs);
        tool.document["outputs"] = boundary(e->outputs);
    } else if (!tool.quiet()) {
        std::ostringstream os;
        os << "graph " << graph.name << ": " << e->model.operations.size() << " NNAPI operations, " << e->model.operands.size()
           << " operands, written to " << opts.output << "\n";
        for (const auto& [name, n] : histogram) os << "  " << name << " " << n << "\n";
        for (const auto* list : {&e->inputs, &e->outputs})
            for (const nnapi::TensorBinding& b : *list)
                os << (list == &e->inputs ? "input " : "output ") << b.name << ": " << nnapi::describe(e->model.operands.at(b.operand))
                   << (b.nhwc ? " (NHWC)" : "") << "\n";
        std::cout << os.str();
    }
    tool.finish(cli::ok);
}

}  // namespace nnef::to_nnapi_main

int main(int argc, char** argv) { return nnef::to_nnapi_main::run(argc, argv); }
