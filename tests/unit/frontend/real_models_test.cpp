// Acceptance: every real exported model validates (default dialect); its flattened form
// re-validates and is a fixed point; --expand-all output validates with the same output shapes.
#include <doctest/doctest.h>

#include <nnef/nnef.hpp>

#include <algorithm>
#include <filesystem>
#include <iostream>

#include "test_support.hpp"

namespace real_models_test {

namespace fs = std::filesystem;

std::string output_shapes(const nnef::Graph& g) {
    std::string s;
    for (const std::string& o : g.outputs) {
        const nnef::Tensor* t = g.tensor(o);
        s += o + "=" + (t && t->shape ? nnef::to_string(*t->shape) : std::string("?")) + " ";
    }
    return s;
}

std::string first_error(const nnef::Session& s) {
    for (const nnef::Diagnostic& d : s.diagnostics())
        if (d.severity == nnef::Severity::error) return nnef::render(d, s.sources(), false);
    return "(no error)";
}

std::string check_model(const fs::path& graph_file) {
    std::string text = nnef_test::read_text(graph_file);
    nnef::Session original;
    if (!original.load_text(graph_file.string(), text)) return "does not validate: " + first_error(original);
    std::string shapes = output_shapes(*original.graph());
    std::string flat = original.flat_text();
    nnef::Session again;
    if (!again.load_text("flat.nnef", flat)) return "flattened output does not validate: " + first_error(again);
    if (again.flat_text() != flat) return "flattening is not a fixed point";
    if (output_shapes(*again.graph()) != shapes) return "flattened output shapes differ";
    nnef::FlattenOptions all;
    all.expand_all = true;
    nnef::Session expanded(all);
    if (!expanded.load_text(graph_file.string(), text)) return "--expand-all fails: " + first_error(expanded);
    nnef::Session expanded_again;
    if (!expanded_again.load_text("expanded.nnef", expanded.flat_text()))
        return "--expand-all output does not validate: " + first_error(expanded_again);
    if (output_shapes(*expanded_again.graph()) != shapes)
        return "--expand-all output shapes " + output_shapes(*expanded_again.graph()) + "differ from " + shapes;
    return {};
}

}  // namespace real_models_test

TEST_SUITE("frontend") {
    TEST_CASE("real models: validate, flatten, fixed point, expand-all") {
        NNEF_REQUIRE_CORPUS();
        namespace rt = real_models_test;
        std::vector<rt::fs::path> graphs;
        for (const auto& e : rt::fs::directory_iterator(nnef_test::corpus_dir() / "real")) {
            if (!e.is_directory()) continue;
            for (const auto& p : {e.path() / "graph.nnef", e.path() / "optimized" / "graph.nnef"})
                if (rt::fs::exists(p)) graphs.push_back(p);
        }
        std::sort(graphs.begin(), graphs.end());
        int passed = 0, failed = 0;
        for (const auto& g : graphs) {
            std::string problem = rt::check_model(g);
            std::string name = rt::fs::relative(g, nnef_test::corpus_dir() / "real").string();
            if (problem.empty()) {
                ++passed;
            } else {
                ++failed;
                std::cout << "FAIL " << name << ": " << problem << "\n";
            }
        }
        std::cout << "real models: " << passed << " passed, " << failed << " failed\n";
        CHECK(failed == 0);
    }
}
