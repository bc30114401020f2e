// Helpers shared by the unit tests.
#pragma once
#include <doctest/doctest.h>

#include "common/skip.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace nnef_test {

inline std::filesystem::path corpus_dir() { return std::filesystem::path(NNEF_CORPUS_DIR); }
inline bool have_corpus() { return std::filesystem::is_directory(corpus_dir()); }
// `relative` under the corpus; with the corpus present, a file or folder it lacks fails the test
// (a test that names a corpus file must not pass by skipping it). Use after NNEF_REQUIRE_CORPUS.
inline std::filesystem::path corpus_file(const std::filesystem::path& relative) {
    const std::filesystem::path p = corpus_dir() / relative;
    REQUIRE_MESSAGE(std::filesystem::exists(p), "the corpus at " << corpus_dir().string() << " lacks " << relative.string());
    return p;
}
inline std::filesystem::path source_dir() { return std::filesystem::path(NNEF_SOURCE_DIR); }

inline std::string read_text(const std::filesystem::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::ostringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

// Every document at hand, as (name, text): the samples, then (with the corpus) the conformance
// documents, valid and invalid, and each real model's graph.nnef (and optimized/graph.nnef).
// Without the corpus, says so in a message.
inline std::vector<std::pair<std::string, std::string>> documents_at_hand() {
    namespace fs = std::filesystem;
    std::vector<std::pair<std::string, std::string>> docs;
    for (const auto& e : fs::directory_iterator(source_dir() / "samples"))
        docs.emplace_back(e.path().filename().string(), read_text(e.path() / "graph.nnef"));
    if (!have_corpus()) {
        NNEF_SKIP_PART("corpus not found at " << corpus_dir().string() << ": written documents and samples only");
        return docs;
    }
    for (const char* folder : {"conformance/valid", "conformance/invalid"})
        for (const auto& e : fs::directory_iterator(corpus_dir() / folder))
            if (e.path().extension() == ".nnef") docs.emplace_back(e.path().filename().string(), read_text(e.path()));
    for (const auto& e : fs::directory_iterator(corpus_dir() / "real")) {
        docs.emplace_back(e.path().filename().string(), read_text(e.path() / "graph.nnef"));
        if (fs::exists(e.path() / "optimized" / "graph.nnef"))
            docs.emplace_back(e.path().filename().string() + "/optimized",
                              read_text(e.path() / "optimized" / "graph.nnef"));
    }
    return docs;
}

// The real models of the corpus (folders with a graph.nnef), sorted by name; and whether a model
// folder stores its weights (.dat files), else tools need --random-weights.
inline std::vector<std::string> real_models() {
    std::vector<std::string> models;
    for (const auto& e : std::filesystem::directory_iterator(corpus_dir() / "real"))
        if (std::filesystem::exists(e.path() / "graph.nnef")) models.push_back(e.path().filename().string());
    std::sort(models.begin(), models.end());
    return models;
}

// In a sweep over the corpus's real models: whether this build runs `model`. The Release pass runs
// every model. The sanitizer pass (instrumented code at -O1, 3 to 15x the Release CPU) leaves the
// five largest to it: VGG-11, ResNet-50, ConvNeXt-tiny, DenseNet-121 (1.5 to 7.6 GMAC per image to
// compute twice, by nnef-run and through TOSA or the VPU) and AlexNet (61 M random weights), and
// says so in the test's output and the skip log (NNEF_SKIP_PART). Their operations occur in the
// models kept, the samples, the conformance documents and the layers' unit tests
// (docs/building.md, "What the sanitizer pass leaves to the Release pass").
inline bool sweep_runs(const std::string& model) {
    static const char* const costly[] = {"alexnet", "convnext_tiny", "densenet121", "resnet50", "vgg11"};
    if (!NNEF_TEST_SANITIZED || std::find(std::begin(costly), std::end(costly), model) == std::end(costly)) return true;
    NNEF_RELEASE_PASS_PART(model, "one of the five largest corpus models, whose operations the models kept have");
    return false;
}
inline bool stores_weights(const std::filesystem::path& model) {
    for (const auto& e : std::filesystem::directory_iterator(model))
        if (e.path().extension() == ".dat") return true;
    return false;
}

// Outcomes of a tool over the corpus, with known failures (name -> reason) that must still fail.
struct CorpusTally {
    std::map<std::string, std::string> known;
    int passed = 0, failed = 0;
    std::string report;
    void record(const std::string& name, bool ok, std::string outcome) {
        const auto k = known.find(name);
        if (k != known.end()) {
            CHECK_MESSAGE(!ok, name << " passes now: remove it from the known failures");
            outcome += " (known: " + k->second + ")";
        } else {
            CHECK_MESSAGE(ok, name << ": " << outcome);
        }
        (ok ? passed : failed) += 1;
        report += "  " + name + ": " + (ok ? "pass" : "FAIL") + ", " + outcome + "\n";
    }
};

}  // namespace nnef_test

// Skips the rest of a test case (NNEF_SKIP, saying why) when the third-party corpus is absent.
#define NNEF_REQUIRE_CORPUS()                                                                               \
    do {                                                                                                    \
        if (!nnef_test::have_corpus())                                                                      \
            NNEF_SKIP("corpus not found at " << nnef_test::corpus_dir().string() << " (set -DNNEF_CORPUS_DIR)"); \
    } while (0)
