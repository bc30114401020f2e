// The plain flat fast path (semantics/plain_flat.hpp) against the full front end: on every
// document at hand, and on plain documents each broken in one way, a Session with the fast path
// gives what one without it gives (verdict, diagnostics, tensors with dtypes and shapes, inputs,
// outputs, operation count; with operations kept, the operations value for value), and the fast
// path is taken exactly where it should be.
#include <doctest/doctest.h>

#include <nnef/nnef.hpp>

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "semantics/plain_flat.hpp"
#include "semantics/stdlib.hpp"
#include "test_support.hpp"

namespace plain_flat_test {


struct Run {
    bool ok = false;
    bool fast = false;
    std::vector<std::string> diagnostics;
    std::optional<nnef::Graph> graph;
    std::size_t operations = 0;
};

Run run(const std::string& name, const std::string& text, bool strict, bool fast_path, const nnef::Limits& limits,
        bool keep) {
    nnef::FlattenOptions opts;
    opts.options.strict = strict;
    opts.options.limits = limits;
    opts.keep_operations = keep;
    opts.plain_fast_path = fast_path;
    nnef::Session s(opts);
    Run r;
    r.ok = s.load_text(name, text);
    r.fast = s.used_plain_fast_path();
    for (const nnef::Diagnostic& d : s.diagnostics()) r.diagnostics.push_back(nnef::render(d, s.sources(), false));
    if (s.graph()) r.graph = *s.graph();
    r.operations = s.operation_count();
    return r;
}

// An operation as text: name, dtype, each argument and result with its value's kind and text,
// the invocation's range and call chain.
std::string describe(const nnef::Operation& op) {
    std::string out = op.name + "<" + nnef::to_string(op.dtype) + ">";
    for (const nnef::NamedValues* list : {&op.attribs, &op.inputs, &op.outputs}) {
        out += " |";
        for (const auto& [n, v] : *list)
            out += " " + n + "=" + std::to_string(static_cast<int>(v.kind())) + ":" + nnef::to_string(v);
    }
    const nnef::SourceRange& r = op.provenance.range;
    out += " @" + std::to_string(r.file) + ":" + std::to_string(r.begin) + "-" + std::to_string(r.end);
    for (const nnef::CallSite& c : op.provenance.chain) out += " in " + c.fragment;
    return out;
}

// Empty when the fast path and the full front end agree; else what differs. `fast` tells whether
// the fast path took the document. With `keep`, operations kept: they must be the same, value
// for value; without, none may be kept.
std::string compare_mode(const std::string& name, const std::string& text, bool strict, bool& fast,
                         const nnef::Limits& limits, bool keep) {
    const Run a = run(name, text, strict, true, limits, keep);
    const Run b = run(name, text, strict, false, limits, keep);
    fast = a.fast;
    if (b.fast) return "the fast path ran although it was switched off";
    if (a.ok != b.ok) return std::string("fast path ") + (a.ok ? "accepts" : "rejects") + ", full front end does not";
    if (a.fast && !a.diagnostics.empty()) return "the fast path took a document with diagnostics";
    if (a.diagnostics != b.diagnostics) return "diagnostics differ";
    if (a.graph.has_value() != b.graph.has_value()) return "one has a graph";
    if (a.operations != b.operations) return "operation counts differ";
    if (!a.graph) return {};
    const nnef::Graph& x = *a.graph;
    const nnef::Graph& y = *b.graph;
    if (x.name != y.name || x.inputs != y.inputs || x.outputs != y.outputs) return "graph headers differ";
    if (!keep && (!x.operations.empty() || !y.operations.empty())) return "operations were kept";
    if (keep && x.operations.size() != y.operations.size()) return "kept operation counts differ";
    if (keep && y.operations.size() != b.operations) return "not every operation was kept";
    for (std::size_t i = 0; keep && i < x.operations.size(); ++i) {
        const nnef::Operation& p = x.operations[i];
        const nnef::Operation& q = y.operations[i];
        if (describe(p) != describe(q) || p.attribs != q.attribs || p.inputs != q.inputs || p.outputs != q.outputs)
            return "operation " + std::to_string(i) + " differs: " + describe(p) + " vs " + describe(q);
    }
    if (x.tensors.size() != y.tensors.size()) return "tensor counts differ";
    for (std::size_t i = 0; i < x.tensors.size(); ++i) {
        const nnef::Tensor& p = x.tensors[i];
        const nnef::Tensor& q = y.tensors[i];
        if (p.name != q.name || p.dtype != q.dtype || p.shape != q.shape) return "tensor " + q.name + " differs";
    }
    for (const std::string& n : x.inputs)
        if (!x.tensor(n)) return "input " + n + " is not indexed";
    return {};
}

// Both modes (operations kept and not) agree; `fast`: the fast path took the document in both
// (it takes it in one exactly when in the other).
std::string compare(const std::string& name, const std::string& text, bool strict, bool& fast,
                    const nnef::Limits& limits = {}) {
    bool kept_fast = false;
    std::string diff = compare_mode(name, text, strict, fast, limits, false);
    if (!diff.empty()) return diff;
    diff = compare_mode(name, text, strict, kept_fast, limits, true);
    if (!diff.empty()) return "operations kept: " + diff;
    if (kept_fast != fast) return "the fast path took the document in one mode only";
    return {};
}

// A plain flat document in the shape of bench/'s generated graphs: every kind of operation they
// use, variables, literal tensor arguments, a comment.
std::string plain_graph(int blocks) {
    std::string t = "version 1.0;\n# generated\ngraph net( input ) -> ( output )\n{\n"
                    "    input = external(shape = [1, 4, 8, 8]);\n";
    std::string x = "input";
    for (int b = 1; b <= blocks; ++b) {
        const std::string p = "b" + std::to_string(b) + "_";
        const std::string v = "v" + std::to_string(b);
        t += "    " + v + "a = variable(shape = [4, 4, 3, 3], label = 'block" + std::to_string(b) + "/filter');\n";
        t += "    " + v + "b = variable<scalar>(shape = [1, 4], label = 'block" + std::to_string(b) + "/bias');\n";
        t += "    " + p + "conv = conv(" + x + ", " + v + "a, " + v +
             "b, border = 'constant', padding = [(1, 1), (1, 1)], stride = [1, 1], dilation = [1, 1]);\n";
        t += "    " + p + "relu = relu(" + p + "conv);\n";
        t += "    " + p + "clamp = clamp(" + p + "relu, 0.0, 6.0);\n";
        t += "    " + p + "cat = concat([" + p + "clamp, " + x + "], axis = 1);\n";
        t += "    " + v + "c = variable(shape = [4, 8, 1, 1], label = 'block" + std::to_string(b) + "/mix');\n";
        t += "    " + p + "mix = conv(" + p + "cat, " + v + "c, 0.0, padding = [(0, 0), (0, 0)]);\n";
        t += "    " + p + "pool = max_pool(" + p + "mix, size = [1, 1, 3, 3], stride = [1, 1, 1, 1], border = "
             "'ignore', padding = [(0, 0), (0, 0), (1, 1), (1, 1)]);\n";
        t += "    " + p + "gate = sigmoid(" + p + "pool);\n";
        t += "    " + p + "mul = mul(" + p + "gate, " + x + ");\n";
        t += "    " + p + "out = add(" + p + "mul, -1.5e-1);\n";
        x = p + "out";
    }
    t += "    output = copy(" + x + ");\n}\n";
    return t;
}

struct Mutation {
    const char* what;
    const char* from;
    const char* to;
};

// Each turns the plain graph into a document the fast path must leave to the full front end.
const Mutation mutations[] = {
    {"undefined identifier", "relu(b2_conv)", "relu(b2_conf)"},
    {"redefinition", "b2_relu = relu", "b1_relu = relu"},
    {"graph parameter not by external", "input = external(shape = [1, 4, 8, 8])", "input = relu(1.0)"},
    {"external of a non-parameter", "v1a = variable(shape = [4, 4, 3, 3], label = 'block1/filter')",
     "v1a = external(shape = [4, 4, 3, 3])"},
    {"attribute given positionally", "concat([b1_clamp, input], axis = 1)", "concat([b1_clamp, input], 1)"},
    {"argument type", "axis = 1)", "axis = 1.0)"},
    {"unknown operation", "b1_relu = relu(", "b1_relu = relux("},
    {"unknown argument", "axis = 1)", "axes = 1)"},
    {"duplicate argument", "stride = [1, 1], dilation", "stride = [1, 1], stride = [1, 1], dilation"},
    {"missing argument", "concat([b1_clamp, input], axis = 1)", "concat([b1_clamp, input])"},
    {"too many arguments", "b1_relu = relu(b1_conv)", "b1_relu = relu(b1_conv, b1_conv)"},
    {"positional after named", "clamp(b1_relu, 0.0, 6.0)", "clamp(b1_relu, a = 0.0, 6.0)"},
    {"generic argument on a non-generic operation", "relu(b1_conv)", "relu<scalar>(b1_conv)"},
    {"integer tensor where scalar expected", "add(b1_mul, -1.5e-1)", "add(b1_mul, 2)"},
    {"keyword as identifier", "b1_relu = relu(b1_conv);\n    b1_clamp = clamp(b1_relu",
     "tensor = relu(b1_conv);\n    b1_clamp = clamp(tensor"},
    {"integer literal out of range", "axis = 1)", "axis = 99999999999999999999)"},
    {"scalar literal out of range", "-1.5e-1", "1e999"},
    {"spaced minus", "-1.5e-1", "- 1.5e-1"},
    {"shape check", "axis = 1)", "axis = 7)"},
    {"label with a bad character", "label = 'block1/filter'", "label = 'block1 filter'"},
    {"labels shared with other shapes", "label = 'block2/filter'", "label = 'BLOCK1/MIX'"},
    {"rank limit", "shape = [1, 4, 8, 8]", "shape = [1, 1, 1, 1, 1, 1, 1, 1, 1, 4, 8, 8]"},
    {"update", "output = copy(", "u = update(v1a, v1a);\n    output = copy("},
    {"newer minor version", "version 1.0;", "version 1.1;"},
    {"extension", "version 1.0;", "version 1.0;\nextension KHR_enable_operator_expressions;"},
    {"operator expression", "add(b1_mul, -1.5e-1)", "add(b1_mul, 1.0 + 2.0)"},
    {"result never assigned", "output = copy(", "outputs = copy("},
    {"parameter never defined", "graph net( input )", "graph net( input, extra )"},
    {"graph parameter listed twice", "graph net( input )", "graph net( input, input )"},
    {"syntax error", "b1_relu = relu(b1_conv);", "b1_relu = relu(b1_conv)"},
    {"trailing text", "}\n", "}\nx"},
};

// check_plain_flat on `text` with the statements read on the calling thread (parallel_from 0)
// or on a second one (any body of at least parallel_from bytes): "-" when it declines, else the
// tensors it gives (name, dtype, shape) and the operation count.
std::string scan_outcome(const std::string& text, std::size_t parallel_from) {
    nnef::SourceManager sm;
    nnef::Diagnostics diags(20);
    std::shared_ptr<const nnef::sema::Stdlib> stdlib = nnef::sema::load_stdlib(sm, false, diags);
    REQUIRE(stdlib);
    const std::uint32_t file = sm.add("plain.nnef", text);
    nnef::sema::ExpandOptions xo;
    xo.keep_operations = false;
    std::optional<nnef::sema::PlainFlatResult> r = nnef::sema::check_plain_flat(sm, file, *stdlib, xo, parallel_from);
    if (!r) return "-";
    std::string out = std::to_string(r->expansion.operation_count) + " operations;";
    for (const nnef::Tensor& t : r->expansion.graph.tensors)
        out += " " + t.name + ":" + nnef::to_string(t.dtype) + (t.shape ? nnef::to_string(*t.shape) : "?");
    return out;
}

}  // namespace plain_flat_test

TEST_SUITE("frontend") {
    TEST_CASE("the plain flat fast path gives what the full front end gives") {
        using namespace plain_flat_test;
        const std::string base = plain_graph(3);
        for (bool strict : {false, true}) {
            CAPTURE(strict);
            bool fast = false;
            CHECK(compare("plain.nnef", base, strict, fast) == "");
            CHECK(fast);
            for (const Mutation& m : mutations) {
                CAPTURE(m.what);
                std::string text = base;
                const std::size_t at = text.find(m.from);
                REQUIRE(at != std::string::npos);
                text.replace(at, std::string(m.from).size(), m.to);
                CHECK(compare("plain.nnef", text, strict, fast) == "");
                CHECK_FALSE(fast);
            }
        }
        // Taken, and the same: an escape in a string, generic deduction, an explicit generic
        // argument, a literal tensor argument, comments and odd white space.
        const std::string odd =
            "version 1.0; # a comment\ngraph g( x ) -> ( y )\n{\n\tx = external<scalar>(shape = [2, 3]);\v\f\n"
            "    w = variable(shape = [2, 3], label = 'a\\\\b');\n    s = select(true, x, w);\n"
            "    t = reshape(s, shape = [6], axis_start = 0, axis_count = -1);\n    y = copy(t);\n}\n";
        bool fast = false;
        CHECK(compare("odd.nnef", odd, false, fast) == "");
        CHECK(fast);
        // Taken, and the same: variables sharing a label up to case, with equal shapes.
        std::string shared = base;
        const std::size_t label = shared.find("label = 'block2/filter'");
        REQUIRE(label != std::string::npos);
        shared.replace(label, 23, "label = 'BLOCK1/Filter'");
        CHECK(compare("shared.nnef", shared, false, fast) == "");
        CHECK(fast);
        // Limits: the fast path leaves max_operations to the full front end.
        nnef::Limits few;
        few.max_operations = 5;
        CHECK(compare("plain.nnef", base, false, fast, few) == "");
        CHECK_FALSE(fast);
    }

    TEST_CASE("the plain flat fast path gives what the full front end gives with a graph.quant") {
        using namespace plain_flat_test;
        const std::string base = plain_graph(3);
        const std::string good = "\"b1_relu\": linear_quantize(min = 0.0, max = 6.0, bits = 8);\n"
                                 "\"v2a\": zero_point_linear_quantize(zero_point = 0, scale = 0.5, bits = 8, "
                                 "signed = true, symmetric = true);\n";
        const std::string unknown = "\"b9_relu\": linear_quantize(min = 0.0, max = 6.0, bits = 8);\n";
        for (const std::string& quant : {good, unknown}) {
            CAPTURE(quant);
            std::string outcome[2];
            bool fast[2] = {false, false};
            for (int f = 0; f < 2; ++f) {
                nnef::FlattenOptions opts;
                opts.plain_fast_path = f == 1;
                nnef::Session s(opts);
                const bool ok = s.load_text("plain.nnef", base, "graph.quant", quant);
                fast[f] = s.used_plain_fast_path();
                std::string& o = outcome[f];
                o = ok ? "ok" : "refused";
                for (const nnef::Diagnostic& d : s.diagnostics()) o += "\n" + nnef::render(d, s.sources(), false);
                if (!s.graph()) continue;
                for (const nnef::Operation& op : s.graph()->operations) o += "\n" + describe(op);
                for (const nnef::Tensor& t : s.graph()->tensors)
                    if (t.quantization) {
                        o += "\n" + t.name + ": " + t.quantization->algorithm;
                        for (const auto& [n, v] : t.quantization->arguments) o += " " + n + "=" + nnef::to_string(v);
                    }
            }
            CHECK(outcome[1] == outcome[0]);
            CHECK(fast[1]);
            CHECK_FALSE(fast[0]);
            CHECK((outcome[0].rfind("ok", 0) == 0) == (quant == good));
            if (quant == good) CHECK(outcome[0].find("v2a: zero_point_linear_quantize") != std::string::npos);
        }
    }

    TEST_CASE("the plain flat fast path agrees with the full front end on every document at hand") {
        using namespace plain_flat_test;
        std::vector<std::pair<std::string, std::string>> docs = nnef_test::documents_at_hand();
        docs.emplace_back("generated.nnef", plain_graph(50));
        std::size_t compared = 0, taken = 0;
        for (const auto& doc : docs)
            for (bool strict : {false, true}) {
                const std::string& name = doc.first;  // (CAPTURE's lambda captures it: no structured binding, for clang 14)
                const std::string& text = doc.second;
                CAPTURE(name);
                CAPTURE(strict);
                bool fast = false;
                CHECK(compare(name, text, strict, fast) == "");
                ++compared;
                taken += fast ? 1 : 0;
            }
        MESSAGE(compared << " comparisons, " << taken << " taken by the fast path");
        CHECK(taken >= 2);  // the generated graph in both dialects, at least
    }

    TEST_CASE("the plain flat fast path gives the same outcome reading on one thread or on two") {
        using namespace plain_flat_test;
        // 400 blocks: about 4800 statements, many batches of the second thread.
        const std::string big = plain_graph(400);
        std::vector<std::pair<std::string, std::string>> cases = {{"taken", big}};
        for (const Mutation& m : mutations) {
            std::string text = big;
            const std::size_t at = text.find(m.from);
            REQUIRE(at != std::string::npos);
            cases.emplace_back(m.what, text.replace(at, std::string(m.from).size(), m.to));
        }
        // Declined late: in the last batch, by the checks and by the scanner.
        const std::size_t last = big.rfind("output = copy(");
        cases.emplace_back("late unknown operation", std::string(big).replace(last, 14, "output = copx("));
        cases.emplace_back("late syntax error", std::string(big).replace(big.rfind(");"), 2, ")"));
        cases.emplace_back("late bad label", std::string(big).replace(big.rfind("/mix'"), 5, "/m x'"));
        // Variables are memoized by whether their label is valid, not by the label.
        const std::size_t label = big.rfind("label = '");
        cases.emplace_back("late integer out of range",
                           std::string(big).replace(big.rfind("[4, 8, 1, 1]"), 12, "[4, 8, 1, 99999999999999999999]"));
        cases.emplace_back("late keyword as an argument name",
                           std::string(big).replace(big.rfind("axis = 1"), 8, "for = 1"));
        cases.emplace_back("late empty label",
                           std::string(big).replace(label, big.find('\'', label + 9) + 1 - label, "label = ''"));
        // The 400th conv like the 399 before it but for its filter's shape: its shape function
        // must run again (memoized outcomes are keyed by the argument shapes).
        const std::size_t filter = big.rfind("variable(shape = [4, 4, 3, 3]");
        cases.emplace_back("late conv with another filter shape",
                           std::string(big).replace(filter, 29, "variable(shape = [4, 5, 3, 3]"));
        for (const auto& what_text : cases) {
            const auto& what = what_text.first;  // (CAPTURE's lambda captures it: no structured binding, for clang 14)
            const auto& text = what_text.second;
            CAPTURE(what);
            const std::string one = scan_outcome(text, 0);
            CHECK(scan_outcome(text, 1) == one);
            CHECK(scan_outcome(text, 4096) == one);
            CHECK((what == "taken") == (one != "-"));
        }
    }
}
