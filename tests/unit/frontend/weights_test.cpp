// Loading real models with their weights from folders, and from .tar/.tgz packed by the test;
// the container conformance cases (spec chapter 6, step 4).
#include <doctest/doctest.h>

#include <archive.h>
#include <archive_entry.h>

#include <nnef/nnef.hpp>
#include <nnef/tensor_data.hpp>

#include <algorithm>
#include <filesystem>
#include <iostream>

#include "common/scratch.hpp"
#include "test_support.hpp"

namespace weights_test {

namespace fs = std::filesystem;

void pack(const fs::path& folder, const fs::path& out, bool gzip) {
    archive* a = archive_write_new();
    archive_write_set_format_pax_restricted(a);
    if (gzip) archive_write_add_filter_gzip(a);
    REQUIRE(archive_write_open_filename(a, out.c_str()) == ARCHIVE_OK);
    for (const auto& e : fs::recursive_directory_iterator(folder)) {
        if (!e.is_regular_file()) continue;
        std::string rel = fs::relative(e.path(), folder).generic_string();
        if (rel.rfind("optimized/", 0) == 0 || rel.rfind("reference/", 0) == 0) continue;
        std::string data = nnef_test::read_text(e.path());
        archive_entry* en = archive_entry_new();
        archive_entry_set_pathname(en, rel.c_str());
        archive_entry_set_filetype(en, AE_IFREG);
        archive_entry_set_perm(en, 0644);
        archive_entry_set_size(en, static_cast<la_int64_t>(data.size()));
        REQUIRE(archive_write_header(a, en) == ARCHIVE_OK);
        archive_write_data(a, data.data(), data.size());
        archive_entry_free(en);
    }
    archive_write_close(a);
    archive_write_free(a);
}

std::string first_error(const nnef::Session& s) {
    for (const nnef::Diagnostic& d : s.diagnostics())
        if (d.severity == nnef::Severity::error) return nnef::render(d, s.sources(), false);
    return "(no error)";
}

// Every variable's data as (name, raw bytes).
std::vector<std::pair<std::string, std::string>> weights(const nnef::Graph& g) {
    std::vector<std::pair<std::string, std::string>> out;
    for (const nnef::Tensor& t : g.tensors)
        if (t.data) out.emplace_back(t.name, std::string(reinterpret_cast<const char*>(t.data->bytes.data()), t.data->bytes.size()));
    return out;
}

}  // namespace weights_test

TEST_SUITE("frontend") {
    TEST_CASE("real models with weights load from folder, tar and tgz identically") {
        NNEF_REQUIRE_CORPUS();
        namespace wt = weights_test;
        auto tmp = nnef_test::process_scratch("nnef-weights-test");
        wt::fs::create_directories(tmp);
        int models = 0;
        for (const auto& e : wt::fs::directory_iterator(nnef_test::corpus_dir() / "real")) {
            bool has_data = false;
            for (const auto& f : wt::fs::directory_iterator(e.path())) has_data = has_data || f.path().extension() == ".dat";
            if (!has_data) continue;
            ++models;
            std::string name = e.path().filename().string();
            CAPTURE(name);
            nnef::Session folder;
            bool ok = folder.load_path(e.path().string());
            CAPTURE(wt::first_error(folder));
            REQUIRE(ok);
            auto expected = wt::weights(*folder.graph());
            std::size_t variables = 0;
            for (const auto& op : folder.graph()->operations) variables += op.name == "variable";
            CHECK(expected.size() == variables);
            for (bool gzip : {false, true}) {
                auto archive = tmp / (name + (gzip ? ".tgz" : ".tar"));
                wt::pack(e.path(), archive, gzip);
                nnef::Session packed;
                bool packed_ok = packed.load_path(archive.string());
                CAPTURE(wt::first_error(packed));
                REQUIRE(packed_ok);
                CHECK(packed.flat_text() == folder.flat_text());
                CHECK(wt::weights(*packed.graph()) == expected);
            }
        }
        wt::fs::remove_all(tmp);
        CHECK(models >= 5);
    }

    TEST_CASE("conformance corpus: container cases") {
        NNEF_REQUIRE_CORPUS();
        namespace wt = weights_test;
        int passed = 0, failed = 0;
        for (const auto& e : wt::fs::directory_iterator(nnef_test::corpus_dir() / "conformance" / "container")) {
            std::string text = nnef_test::read_text(e.path() / "graph.nnef");
            bool accept = text.rfind("# expect: accept", 0) == 0;
            std::string where;
            auto w = text.find("# where: ");
            if (w != std::string::npos) where = text.substr(w + 9, text.find('\n', w) - w - 9);
            nnef::FlattenOptions strict;
            strict.options.strict = true;
            nnef::Session s(strict);
            bool ok = s.load_path(e.path().string());
            std::string problem;
            if (accept && !ok) problem = "rejected: " + wt::first_error(s);
            if (!accept) {
                const nnef::Diagnostic* d = nullptr;
                for (const auto& x : s.diagnostics())
                    if (x.severity == nnef::Severity::error && !d) d = &x;
                if (ok || !d) problem = "accepted";
                else if (d->stage != nnef::Stage::data) problem = "wrong stage: " + wt::first_error(s);
                else if (d->path.size() < where.size() || d->path.compare(d->path.size() - where.size(), where.size(), where) != 0)
                    problem = "reported at '" + d->path + "', expected " + where;
            }
            if (problem.empty()) {
                ++passed;
            } else {
                ++failed;
                std::cout << "FAIL container/" << e.path().filename().string() << ": " << problem << "\n";
            }
        }
        std::cout << "container conformance: " << passed << " passed, " << failed << " failed\n";
        CHECK(failed == 0);
    }
}
