// The properties the text fuzz targets check (fuzz_document, fuzz_quant), shared with the
// regression test that replays saved inputs in every build (tests/unit/frontend/regressions_test.cpp).
// Each check returns an empty string when the properties hold, otherwise what was violated.
//
// Both run with the tight limits below, so that no input costs more than a few milliseconds of
// front-end work; a limit that is hit is a diagnostic like any other.
#pragma once
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include <nnef/nnef.hpp>

#include "grammar/parse.hpp"
#include "semantics/checker.hpp"
#include "semantics/expander.hpp"
#include "semantics/stdlib.hpp"
#include "storage/quant_file.hpp"

namespace nnef_fuzz {

// The limits of both text targets (docs/fuzzing.md). The defaults allow 50M operations and
// 4M-item values, which a 100-byte document can ask for legitimately; the fuzzer should find
// bugs, not spend seconds building a legitimately huge graph.
inline nnef::Options text_options() {
    nnef::Options o;
    nnef::Limits& l = o.limits;
    l.max_errors = 8;
    l.max_nesting = 64;
    l.max_recursion = 64;
    l.max_operations = 2000;
    l.max_expansions = 2000;
    l.max_work = 200000;
    l.max_value_items = 4096;
    l.max_string_length = 4096;
    l.max_rank = 8;
    l.max_volume = std::uint64_t(1) << 32;
    return o;
}

// Every diagnostic renders (text with the source line, and JSON) and an error is located in a
// registered file or names a path. Returns what is wrong, or empty.
inline std::string check_diagnostics(const nnef::Diagnostics& diags, const nnef::SourceManager& sm) {
    std::size_t length = 0;
    for (const nnef::Diagnostic& d : diags) {
        if (d.message.empty()) return "a diagnostic without a message (" + d.code + ")";
        if (d.range.valid()) {
            if (d.range.file > sm.size()) return "a diagnostic in an unknown file (" + d.code + ")";
            const std::size_t n = sm.is_binary(d.range.file) ? 0 : sm.text(d.range.file).size();
            if (!sm.is_binary(d.range.file) && (d.range.begin > d.range.end || d.range.end > n))
                return "a diagnostic range outside its file (" + d.code + ": " + d.message + ")";
        }
        length += nnef::render(d, sm).size() + nnef::render_json(d, sm).size();
    }
    return length == 0 && !diags.empty() ? "empty rendering" : "";
}

// A document through nnef::Session::load_text: parse, check, expand, shape inference. A refusal
// carries an error; an accepted document has a graph, and its flat text (with and without shape
// comments) loads again and prints the same flat text (the flat printer's fixed point).
inline std::string check_document_text(const std::uint8_t* data, std::size_t size) {
    nnef::FlattenOptions fo;
    fo.options = text_options();
    nnef::Session s(fo);
    const bool ok = s.load_text("fuzz.nnef", std::string(reinterpret_cast<const char*>(data), size));
    std::string why = check_diagnostics(s.diagnostics(), s.sources());
    if (!why.empty()) return why;
    if (ok != !s.diagnostics().has_errors()) return "load_text's result disagrees with the diagnostics";
    if (!ok) return s.graph() ? "a refused document with a graph" : "";
    if (!s.graph()) return "an accepted document without a graph";
    const std::string flat = s.flat_text(false);
    if (s.flat_text(true).size() < flat.size()) return "the flat text with shapes is shorter than without";
    nnef::Session again(fo);
    if (!again.load_text("flat.nnef", flat)) {
        std::string first;
        for (const nnef::Diagnostic& d : again.diagnostics())
            if (d.severity == nnef::Severity::error) {
                first = nnef::render(d, again.sources(), true);
                break;
            }
        return "the flat text does not load: " + first;
    }
    if (again.graph()->operations.size() != s.graph()->operations.size())
        return "the flat text has a different number of operations";
    if (again.flat_text(false) != flat) return "the flat text of the flat text differs (no fixed point)";
    return {};
}

// The fixed graph graph.quant entries are applied to: every kind of exported tensor (external,
// variable with a label that is not an identifier, constant, activations) and a quantization
// fragment of the document's own with parameters of every type.
inline const char* quant_graph_text() {
    return "version 1.0;\n"
           "extension KHR_enable_fragment_definitions, KHR_enable_operator_expressions;\n"
           "\n"
           "fragment my_quantize( x: tensor<scalar>, lo: scalar = 0.0, hi: scalar, bits: integer = 8,\n"
           "                      levels: integer[] = [2, 4], tag: string = 'q', on: logical = true,\n"
           "                      pair: (scalar, integer) = (1.0, 2) ) -> ( y: tensor<scalar> )\n"
           "{\n"
           "    y = clamp(x, lo, hi);\n"
           "}\n"
           "\n"
           "graph Q( input ) -> ( output )\n"
           "{\n"
           "    input = external(shape = [1, 3, 8, 8]);\n"
           "    w = variable(shape = [4, 3, 3, 3], label = 'conv/w');\n"
           "    b = constant(shape = [1, 4], value = [0.0]);\n"
           "    c = conv(input, w, b);\n"
           "    act = relu(c);\n"
           "    output = my_quantize(act, hi = 4.0);\n"
           "}\n";
}

// The fixed graph, loaded once: sources (stdlib, document), the checked program and the graph.
struct QuantFixture {
    nnef::SourceManager sources;
    std::shared_ptr<const nnef::sema::Stdlib> stdlib;
    std::optional<nnef::ast::Document> document;
    nnef::sema::Program program;
    nnef::Graph graph;
    std::string error;  // why the fixture did not load (a bug in quant_graph_text or the front end)

    QuantFixture() {
        const nnef::Options options = text_options();
        nnef::Diagnostics diags(options.limits.max_errors);
        stdlib = nnef::sema::load_stdlib(sources, options.strict, diags);
        nnef::grammar::ParseOptions po;
        po.options = options;
        const std::uint32_t file = sources.add("graph.nnef", quant_graph_text());
        if (!diags.has_errors()) document = nnef::grammar::parse(sources, file, po, diags);
        if (document && !diags.has_errors()) program = nnef::sema::check(*document, stdlib, options, diags);
        if (document && !diags.has_errors()) {
            nnef::sema::ExpandOptions xo;
            xo.options = options;
            graph = nnef::sema::expand(program, xo, diags).graph;
        }
        for (const nnef::Diagnostic& d : diags)
            if (d.severity == nnef::Severity::error) error += nnef::render(d, sources);
        if (error.empty() && !document) error = "no document";
    }
};

inline const QuantFixture& quant_fixture() {
    static const QuantFixture fixture;
    return fixture;
}

// graph.quant text applied to the fixed graph with storage::apply_quantization. A refusal carries
// an error and leaves the graph as it was; an acceptance names an algorithm for each tensor it
// quantizes. Neither changes anything else in the graph.
inline std::string check_quant_text(const std::uint8_t* data, std::size_t size) {
    const QuantFixture& fixture = quant_fixture();
    if (!fixture.error.empty()) return "the fixed graph does not load: " + fixture.error;
    nnef::SourceManager sources = fixture.sources;
    const std::uint32_t file = sources.add("graph.quant", std::string(reinterpret_cast<const char*>(data), size));
    nnef::Graph graph = fixture.graph;
    const nnef::Options options = text_options();
    nnef::Diagnostics diags(options.limits.max_errors);
    const bool ok = nnef::storage::apply_quantization(graph, fixture.program, nullptr, sources, file, options, diags);
    std::string why = check_diagnostics(diags, sources);
    if (!why.empty()) return why;
    if (ok != !diags.has_errors()) return "apply_quantization's result disagrees with the diagnostics";
    if (graph.tensors.size() != fixture.graph.tensors.size() || graph.operations.size() != fixture.graph.operations.size())
        return "apply_quantization changed the graph's structure";
    for (std::size_t i = 0; i < graph.tensors.size(); ++i) {
        const nnef::Tensor& t = graph.tensors[i];
        const nnef::Tensor& before = fixture.graph.tensors[i];
        if (t.name != before.name || t.shape != before.shape || t.dtype != before.dtype)
            return "apply_quantization changed tensor '" + before.name + "'";
        if (!ok && (t.quantization != nullptr) != (before.quantization != nullptr))
            return "a refused graph.quant quantized '" + t.name + "'";
        if (ok && t.quantization && t.quantization->algorithm.empty())
            return "tensor '" + t.name + "' quantized without an algorithm";
    }
    return {};
}

}  // namespace nnef_fuzz
