// The Session runs the front end in one pass (the parser streams each graph statement to the
// checker and the expander). These tests hold it to the staged pipeline of the layer APIs
// (grammar::parse of the whole document, then sema::check, then sema::expand): the same
// diagnostics in the same order, and the same flat graph, on every document at hand.
#include <doctest/doctest.h>

#include <nnef/nnef.hpp>

#include <pthread.h>

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "grammar/parse.hpp"
#include "semantics/checker.hpp"
#include "semantics/expander.hpp"
#include "semantics/stdlib.hpp"
#include "test_support.hpp"

namespace streaming_test {


struct Outcome {
    bool ok = false;
    std::vector<std::string> diagnostics;  // rendered, in order
    std::string flat;                      // when ok
};

std::vector<std::string> rendered(const nnef::Diagnostics& diags, const nnef::SourceManager& sm) {
    std::vector<std::string> out;
    for (const nnef::Diagnostic& d : diags) out.push_back(nnef::render(d, sm, false));
    return out;
}

Outcome streamed(const std::string& name, const std::string& text, bool strict) {
    nnef::FlattenOptions opts;
    opts.options.strict = strict;
    nnef::Session s(opts);
    Outcome o;
    o.ok = s.load_text(name, text);
    o.diagnostics = rendered(s.diagnostics(), s.sources());
    if (o.ok) o.flat = s.flat_text(true);
    return o;
}

Outcome staged(const std::string& name, const std::string& text, bool strict) {
    nnef::Options options;
    options.strict = strict;
    nnef::SourceManager sm;
    nnef::Diagnostics diags(options.limits.max_errors);
    const std::uint32_t file = sm.add(name, text);
    Outcome o;
    auto stdlib = nnef::sema::load_stdlib(sm, strict, diags);
    nnef::grammar::ParseOptions po;
    po.options = options;
    std::optional<nnef::ast::Document> doc = nnef::grammar::parse(sm, file, po, diags);
    if (doc && !diags.has_errors()) {
        nnef::sema::Program program = nnef::sema::check(*doc, stdlib, options, diags);
        if (!diags.has_errors()) {
            nnef::sema::ExpandOptions xo;
            xo.options = options;
            nnef::sema::Expansion x = nnef::sema::expand(program, xo, diags);
            if (!diags.has_errors()) {
                o.ok = true;
                nnef::sema::PrintOptions print;
                print.shapes = true;
                o.flat = nnef::sema::print_flat(x.graph, program, print);
            }
        }
    }
    o.diagnostics = rendered(diags, sm);
    return o;
}

// Empty when both agree, else what differs.
std::string compare(const std::string& name, const std::string& text, bool strict) {
    const Outcome a = streamed(name, text, strict);
    const Outcome b = staged(name, text, strict);
    if (a.ok != b.ok) return std::string("streamed ") + (a.ok ? "accepts" : "rejects") + ", staged does not";
    if (a.diagnostics != b.diagnostics) {
        std::string why = "diagnostics differ:\n  streamed:";
        for (const auto& d : a.diagnostics) why += "\n    " + d;
        why += "\n  staged:";
        for (const auto& d : b.diagnostics) why += "\n    " + d;
        return why;
    }
    if (a.flat != b.flat) return "flat text differs:\n" + a.flat + "\n---\n" + b.flat;
    return {};
}

// A Session that drops its operations (a validator's mode) against one that keeps them: the
// same verdict, diagnostics, tensors (names, dtypes, shapes) and operation count.
std::string compare_kept(const std::string& name, const std::string& text, bool strict) {
    std::optional<nnef::Session> sessions[2];
    for (int keep = 0; keep < 2; ++keep) {
        nnef::FlattenOptions opts;
        opts.options.strict = strict;
        opts.keep_operations = keep == 1;
        sessions[keep].emplace(opts).load_text(name, text);
    }
    const nnef::Session& dropped = *sessions[0];
    const nnef::Session& kept = *sessions[1];
    if (rendered(dropped.diagnostics(), dropped.sources()) != rendered(kept.diagnostics(), kept.sources()))
        return "diagnostics differ";
    if (!kept.graph() || !dropped.graph()) return kept.graph() || dropped.graph() ? "one has a graph" : "";
    const nnef::Graph& a = *dropped.graph();
    const nnef::Graph& b = *kept.graph();
    if (!a.operations.empty()) return "operations were kept";
    if (dropped.operation_count() != b.operations.size() || kept.operation_count() != b.operations.size())
        return "operation counts differ";
    if (a.tensors.size() != b.tensors.size()) return "tensor counts differ";
    for (std::size_t i = 0; i < a.tensors.size(); ++i) {
        const nnef::Tensor& x = a.tensors[i];
        const nnef::Tensor& y = b.tensors[i];
        if (x.name != y.name || x.dtype != y.dtype || x.shape != y.shape) return "tensor " + y.name + " differs";
    }
    if (dropped.custom_operations() != kept.custom_operations()) return "custom operations differ";
    return {};
}

const char* const written[] = {
    // A temporary of an expansion takes a name that a later statement assigns: it is renamed.
    "version 1.0;\nextension KHR_enable_fragment_definitions;\n"
    "fragment f( x: tensor<scalar> ) -> ( y: tensor<scalar> )\n{\n    t = relu(x);\n    y = sigmoid(t);\n}\n"
    "graph G( input ) -> ( out )\n{\n    input = external(shape = [1, 2]);\n    a = f(input);\n"
    "    a_t = neg(input);\n    a_t_1 = abs(input);\n    b = add(a, a_t);\n    out = add(b, a_t_1);\n}\n",
    // Errors of several stages: only the first stage with an error counts.
    "version 1.0;\ngraph G( x ) -> ( y )\n{\n    x = external(shape = [1]);\n    y = relu(z);\n    w = conv(x, x);\n}\n",
    "version 1.0;\ngraph G( x ) -> ( y )\n{\n    x = external(shape = [1]);\n    y = relu(x) + 1.0;\n    w = relu(q);\n}\n",
    "version 1.0;\ngraph G( x ) -> ( y )\n{\n    x = external(shape = [1, 2]);\n    y = conv(x, x);\n    z = relu(x);\n}\n",
    "version 1.0;\ngraph G( x ) -> ( y )\n{\n    x = external(shape = [1]);\n    y = relu(x);\n    z = relu(x) w\n}\n",
    "version 1.0;\ngraph G( x, x ) -> ( y, q )\n{\n    x = external(shape = [1]);\n    y = relu(x);\n}\n",
    // Graph-level rules: variables sharing a label, updates (checked as the operations are made).
    "version 1.0;\ngraph G( x ) -> ( y )\n{\n    x = external(shape = [2]);\n"
    "    a = variable(shape = [2], label = 'w');\n    b = variable(shape = [3], label = 'W');\n"
    "    c = variable(shape = [2], label = 'w');\n    y = add(x, a);\n    u = update(a, x);\n"
    "    v = update(c, x);\n    d = variable(shape = [2], label = 'd');\n    e = update(d, x);\n    f = update(d, y);\n}\n",
    "version 1.0;\ngraph G( x ) -> ( y )\n{\n    x = external(shape = [2]);\n"
    "    a = variable(shape = [2], label = 'w');\n    c = variable(shape = [2], label = 'W');\n"
    "    y = add(x, a);\n    u = update(a, x);\n    q = update(x, x);\n}\n",
};

}  // namespace streaming_test

TEST_SUITE("frontend") {
    TEST_CASE("graph-level rules are checked as operations are made, and reported after them") {
        using namespace streaming_test;
        for (bool keep : {false, true}) {
            CAPTURE(keep);
            nnef::FlattenOptions opts;
            opts.keep_operations = keep;
            nnef::Session s(opts);
            CHECK_FALSE(s.load_text("rules.nnef", written[6]));
            const std::vector<std::string> d = rendered(s.diagnostics(), s.sources());
            REQUIRE(d.size() == 3);
            CHECK(d[0].rfind("rules.nnef:6:9: error[shape]: variables labelled 'W' share data but have shapes [2] and "
                             "[3]\nrules.nnef:5:9: note: the first variable with this label is here",
                             0) == 0);
            CHECK(d[1].rfind("rules.nnef:10:9: error[shape]: variable 'c' is updated more than once (variables sharing "
                             "a label are one variable)\nrules.nnef:9:9: note: first update is here",
                             0) == 0);
            CHECK(d[2].rfind("rules.nnef:13:9: error[shape]: variable 'd' is updated more than once", 0) == 0);
        }
        // Another stage's error hides them (they count for an otherwise valid graph only).
        nnef::Session s;
        CHECK_FALSE(s.load_text("rules.nnef", written[7]));
        const std::vector<std::string> d = rendered(s.diagnostics(), s.sources());
        REQUIRE(d.size() == 1);
        CHECK(d[0].find("only tensors introduced by 'variable' can be updated") != std::string::npos);
    }

    TEST_CASE("the one-pass Session agrees with the staged layer APIs") {
        using namespace streaming_test;
        std::vector<std::pair<std::string, std::string>> docs = nnef_test::documents_at_hand();
        for (const char* text : written) docs.emplace_back("written.nnef", text);
        std::size_t compared = 0;
        for (const auto& doc : docs)
            for (bool strict : {false, true}) {
                const std::string& name = doc.first;  // (CAPTURE's lambda captures it: no structured binding, for clang 14)
                const std::string& text = doc.second;
                CAPTURE(name);
                CAPTURE(strict);
                CHECK(compare(name, text, strict) == "");
                CHECK(compare_kept(name, text, strict) == "");
                ++compared;
            }
        MESSAGE(compared << " comparisons");
        CHECK(compared >= 2 * (std::size(written) + 4));
    }

    TEST_CASE("a temporary that takes a later statement's name is renamed in its own operations") {
        using namespace streaming_test;
        const Outcome o = streamed("written.nnef", written[0], false);
        REQUIRE(o.ok);
        // The temporary of `a = f(input)` was named a_t; `a_t` is assigned later, so it became
        // a_t_1; `a_t_1` is assigned after that, so it became a_t_1_1.
        CHECK(o.flat.find("a_t_1_1 = relu(input);") != std::string::npos);
        CHECK(o.flat.find("a = sigmoid(a_t_1_1);") != std::string::npos);
        CHECK(o.flat.find("a_t = neg(input);") != std::string::npos);
        CHECK(o.flat.find("a_t_1 = abs(input);") != std::string::npos);
    }

    TEST_CASE("the layer APIs hold their depth limits on a small caller stack") {
        // Fragments recursing to Limits::max_recursion and brackets nesting to max_nesting: on a
        // 64 KiB thread stack (a fraction of what that depth takes) the whole-document entry points
        // still give the limit's diagnostic, as they run on a large stack of their own.
        using namespace streaming_test;
        struct Run {
            std::string recursion, nesting;
        } run;
        auto body = [](void* p) -> void* {
            auto* r = static_cast<Run*>(p);
            const std::string ops =
                "version 1.0;\nextension KHR_enable_fragment_definitions KHR_enable_operator_expressions;\n";
            auto all = [](const Outcome& o) {
                std::string text;
                for (const std::string& d : o.diagnostics) text += d + "\n";
                return text;
            };
            r->recursion = all(staged("deep.nnef",
                                  ops + "fragment f( x: tensor<scalar>, n: integer ) -> ( y: tensor<scalar> )\n{\n"
                                        "    y = x if n == 0 else f(x, n = n - 1) + x;\n}\n"
                                        "graph G( x ) -> ( y )\n{\n    x = external(shape = [1]);\n"
                                        "    y = f(x, n = 5000);\n}\n",
                                  false));
            r->nesting = all(staged("nest.nnef",
                                ops + "graph G( x ) -> ( y )\n{\n    x = external(shape = [1]);\n    y = " +
                                    std::string(600, '(') + "x" + std::string(600, ')') + ";\n}\n",
                                false));
            return nullptr;
        };
        pthread_attr_t attr;
        REQUIRE(pthread_attr_init(&attr) == 0);
        REQUIRE(pthread_attr_setstacksize(&attr, 64 * 1024) == 0);
        pthread_t thread;
        REQUIRE(pthread_create(&thread, &attr, body, &run) == 0);
        pthread_attr_destroy(&attr);
        REQUIRE(pthread_join(thread, nullptr) == 0);
        CHECK_MESSAGE(run.recursion.find("max_recursion (1000)") != std::string::npos, run.recursion);
        CHECK_MESSAGE(run.nesting.find("max_nesting = 512") != std::string::npos, run.nesting);
    }
}
