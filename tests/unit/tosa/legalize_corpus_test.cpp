// Every real model of the corpus and every sample, lowered to TOSA at PRO-FP, level 8K (the
// validator after the legalization and after every pass), run by the TOSA interpreter and compared
// with nnef-run on the same input: max relative error <= 1e-5 (stored weights where the model has
// them, random weights elsewhere), and with the PyTorch reference output where the model ships one
// (<= 1e-4). Models with custom operations must fail with the error naming the operation.
#include "legalize_support.hpp"

#include <algorithm>
#include <filesystem>
#include <sstream>

#include "storage/tensor_file.hpp"

namespace legalize_corpus_test {

namespace fs = std::filesystem;

bool has_weights(const fs::path& dir) {
    for (const auto& e : fs::directory_iterator(dir))
        if (e.path().extension() == ".dat") return true;
    return false;
}

TEST_SUITE("tosa") {

TEST_CASE("legalize: every corpus model and sample matches nnef-run through the TOSA interpreter") {
    std::vector<fs::path> models;
    for (const auto& e : fs::directory_iterator(nnef_test::source_dir() / "samples")) models.push_back(e.path());
    if (nnef_test::have_corpus()) {
        for (const auto& e : fs::directory_iterator(nnef_test::corpus_dir() / "real"))
            if (nnef_test::sweep_runs(e.path().filename().string())) models.push_back(e.path());
    } else {
        NNEF_SKIP_PART("corpus not found at " << nnef_test::corpus_dir().string() << ": samples only");
    }
    std::sort(models.begin(), models.end());
    int passed = 0, failed = 0;
    for (const fs::path& model : models) {
        const std::string name = model.filename().string();
        CAPTURE(name);
        const bool weights = has_weights(model);
        nnef::FlattenOptions fo;
        fo.expand = nnef::exec::compounds_without_kernel();
        nnef::Session session(fo);
        REQUIRE_MESSAGE(session.load_path(weights ? model.string() : (model / "graph.nnef").string()),
                        legalize_support::render_all(session.diagnostics(), session.sources()));
        nnef::FlattenOptions keep;
        keep.load_weights = weights;
        nnef::Session kept(keep);  // the standard compounds kept, for their own legalizations
        REQUIRE(kept.load_path(weights ? model.string() : (model / "graph.nnef").string()));
        std::string outcome;
        bool ok = false;
        if (!session.custom_operations().empty()) {
            // the error of a custom operation: named, located, explained
            nnef::Diagnostics d;
            nnef::tosa::LowerOptions lo;
            if (!weights) lo.random_weights = 7;
            ok = !nnef::tosa::lower_to_tosa(*kept.graph(), lo, d) && d.error_count() >= 1;
            const std::string m = legalize_support::render_all(d, kept.sources());
            ok = ok && d.begin()->code == "unsupported-operation" &&
                 m.find("'" + session.custom_operations().front() + "'") != std::string::npos &&
                 m.find("graph.nnef:") != std::string::npos && m.find("custom operation") != std::string::npos;
            outcome = "refused as it must be: " + d.begin()->message;
        } else {
            std::vector<nnef::exec::TensorValue> inputs;
            const fs::path ref_in = model / "reference" / "input.dat", ref_out = model / "reference" / "output.dat";
            const bool reference = fs::exists(ref_in) && fs::exists(ref_out);
            if (reference) {
                auto in = nnef::storage::read_tensor_file(ref_in.string());
                REQUIRE(in);
                inputs.push_back(*nnef::exec::from_tensor_data(**in.value, nnef::PrimType::scalar));
            }
            const int cycles = name == "recurrent" ? 3 : 1;  // its variable carries state
            const legalize_support::Comparison c = legalize_support::compare(
                session, kept, weights ? std::nullopt : std::optional<std::uint64_t>(7), inputs, cycles);
            ok = c.ok;
            outcome = ok ? "" : c.why;
            std::ostringstream s;
            s << c.operators << " TOSA operators, " << c.transposes << " TRANSPOSE, max relative error vs nnef-run "
              << c.max_rel;
            if (ok && reference) {
                auto out = nnef::storage::read_tensor_file(ref_out.string());
                REQUIRE(out);
                const nnef_test::Comparison ref =
                    nnef_test::compare(legalize_support::items(*c.outputs.front()), (*out.value)->to_doubles());
                ok = ref.max_rel_within(1e-4);
                s << ", vs the PyTorch reference " << ref.max_rel();
                if (!ok) outcome = "the reference differs: " + ref.summary();
            }
            outcome = s.str() + (outcome.empty() ? "" : " -- FAILED: " + outcome);
        }
        MESSAGE(name << ": " << (ok ? "passed" : "FAILED") << ", " << outcome);
        CHECK_MESSAGE(ok, name << ": " << outcome);
        (ok ? passed : failed) += 1;
    }
    MESSAGE(passed << " passed, " << failed << " failed");
    CHECK(failed == 0);
}

}  // TEST_SUITE

}  // namespace legalize_corpus_test
