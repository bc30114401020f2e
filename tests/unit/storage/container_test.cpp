// Model containers: folder, tar, tgz (by content), and refusal of hostile archives.
#include <doctest/doctest.h>

#include <archive.h>
#include <archive_entry.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "common/scratch.hpp"
#include "storage/container.hpp"
#include "test_support.hpp"

namespace container_test {

namespace fs = std::filesystem;

struct Entry {
    enum Type { file, dir, symlink, hardlink, fifo };
    Entry(std::string n, std::string d = {}, Type t = file, std::string tg = {})
        : name(std::move(n)), data(std::move(d)), type(t), target(std::move(tg)) {}
    std::string name;
    std::string data;
    Type type;
    std::string target;  // links
};

fs::path scratch() {
    return nnef_test::process_scratch("nnef-container-test");
}

void write_archive(const fs::path& path, const std::vector<Entry>& entries, bool gzip) {
    archive* a = archive_write_new();
    archive_write_set_format_pax_restricted(a);
    if (gzip) archive_write_add_filter_gzip(a);
    REQUIRE(archive_write_open_filename(a, path.c_str()) == ARCHIVE_OK);
    for (const Entry& e : entries) {
        archive_entry* en = archive_entry_new();
        archive_entry_set_pathname(en, e.name.c_str());
        archive_entry_set_perm(en, 0644);
        switch (e.type) {
            case Entry::file: archive_entry_set_filetype(en, AE_IFREG); archive_entry_set_size(en, static_cast<la_int64_t>(e.data.size())); break;
            case Entry::dir: archive_entry_set_filetype(en, AE_IFDIR); break;
            case Entry::symlink: archive_entry_set_filetype(en, AE_IFLNK); archive_entry_set_symlink(en, e.target.c_str()); break;
            case Entry::hardlink: archive_entry_set_filetype(en, AE_IFREG); archive_entry_set_hardlink(en, e.target.c_str()); break;
            case Entry::fifo: archive_entry_set_filetype(en, AE_IFIFO); break;
        }
        REQUIRE(archive_write_header(a, en) == ARCHIVE_OK);
        if (e.type == Entry::file && !e.data.empty()) archive_write_data(a, e.data.data(), e.data.size());
        archive_entry_free(en);
    }
    archive_write_close(a);
    archive_write_free(a);
}

const char* kGraph = "version 1.0;\ngraph G( x ) -> ( y )\n{\n    x = external(shape = [1]);\n    y = relu(x);\n}\n";

std::vector<Entry> model_entries(const std::string& prefix = "") {
    return {{prefix + "graph.nnef", kGraph},
            {prefix + "graph.quant", "\"y\": linear_quantize(min = 0.0, max = 1.0, bits = 8);\n"},
            {prefix + "conv", "", Entry::dir},
            {prefix + "conv/W.dat", std::string(130, '\x01')},
            {prefix + "vendor.bin", "opaque"}};
}

std::string expect_refused(const fs::path& p, nnef::storage::ContainerLimits limits = {}) {
    auto r = nnef::storage::open_container(p.string(), limits);
    CHECK_FALSE(r.value.has_value());
    REQUIRE(r.diagnostics.has_errors());
    const nnef::Diagnostic& d = r.diagnostics.list().front();
    CHECK(d.stage == nnef::Stage::io);
    CHECK(d.path == p.string());
    return d.code + ": " + d.message;
}

}  // namespace container_test

TEST_SUITE("storage") {
    TEST_CASE("containers: folder, tar and tgz load identically") {
        namespace ct = container_test;
        auto dir = ct::scratch() / "folder";
        ct::fs::create_directories(dir / "conv");
        for (const auto& e : ct::model_entries())
            if (e.type == ct::Entry::file) std::ofstream(dir / e.name, std::ios::binary) << e.data;
        ct::write_archive(ct::scratch() / "model.tar", ct::model_entries(), false);
        ct::write_archive(ct::scratch() / "model.tgz", ct::model_entries(), true);
        // Detected by content: a gzip-compressed tar named .zip, and a tar wrapped in a folder.
        ct::write_archive(ct::scratch() / "named-wrong.zip", ct::model_entries(), true);
        ct::write_archive(ct::scratch() / "wrapped.tar", ct::model_entries("mymodel/"), false);
        using K = nnef::storage::Container::Kind;
        std::vector<std::pair<ct::fs::path, K>> cases = {{dir, K::folder},
                                                        {ct::scratch() / "model.tar", K::tar},
                                                        {ct::scratch() / "model.tgz", K::tgz},
                                                        {ct::scratch() / "named-wrong.zip", K::tgz},
                                                        {ct::scratch() / "wrapped.tar", K::tar}};
        for (const auto& path_kind : cases) {
            const auto& path = path_kind.first;  // (CAPTURE's lambda captures it: no structured binding, for clang 14)
            const K kind = path_kind.second;
            CAPTURE(path.string());
            auto r = nnef::storage::open_container(path.string());
            REQUIRE(r.value.has_value());
            const auto& c = *r.value;
            CHECK(c.kind == kind);
            CHECK(c.graph_text == ct::kGraph);
            REQUIRE(c.quant_text.has_value());
            CHECK(c.quant_text->find("linear_quantize") != std::string::npos);
            CHECK(c.members.size() == 2);
            // Labels map to files case-insensitively (spec 5.1 label sharing).
            const nnef::storage::Member* w = c.tensor_file("conv/w");
            REQUIRE(w != nullptr);
            CHECK(w->size == 130);
            CHECK(c.tensor_file("conv/missing") == nullptr);
        }
    }

    TEST_CASE("containers: a bare graph.nnef file") {
        namespace ct = container_test;
        auto p = ct::scratch() / "bare.nnef";
        std::ofstream(p) << ct::kGraph;
        auto r = nnef::storage::open_container(p.string());
        REQUIRE(r.value.has_value());
        CHECK(r.value->kind == nnef::storage::Container::Kind::graph_file);
        CHECK(r.value->graph_text == ct::kGraph);
    }

    TEST_CASE("containers: hostile archives are refused and nothing is written") {
        namespace ct = container_test;
        using E = ct::Entry;
        auto base = ct::model_entries();
        struct Case {
            const char* name;
            std::vector<E> extra;
            const char* code;
        };
        std::vector<Case> cases = {
            {"absolute", {{"/tmp/nnef-evil-absolute", "x"}}, "unsafe-member"},
            {"traversal", {{"../nnef-evil-traversal", "x"}}, "unsafe-member"},
            {"nested-traversal", {{"conv/../../nnef-evil-nested", "x"}}, "unsafe-member"},
            {"symlink", {{"link.dat", "", E::symlink, "/etc/passwd"}}, "unsafe-member"},
            {"hardlink", {{"hard.dat", "", E::hardlink, "graph.nnef"}}, "unsafe-member"},
            {"fifo", {{"pipe", "", E::fifo}}, "unsafe-member"},
            {"duplicate", {{"conv/W.dat", "again"}}, "duplicate-member"},
        };
        for (const auto& c : cases) {
            for (bool gzip : {false, true}) {
                CAPTURE(c.name);
                CAPTURE(gzip);
                auto entries = base;
                entries.insert(entries.end(), c.extra.begin(), c.extra.end());
                auto p = ct::scratch() / (std::string(c.name) + (gzip ? ".tgz" : ".tar"));
                ct::write_archive(p, entries, gzip);
                std::string why = ct::expect_refused(p);
                CHECK(why.rfind(c.code, 0) == 0);
            }
        }
        CHECK_FALSE(ct::fs::exists("/tmp/nnef-evil-absolute"));
        CHECK_FALSE(ct::fs::exists(ct::scratch().parent_path() / "nnef-evil-traversal"));
        CHECK_FALSE(ct::fs::exists(ct::scratch().parent_path() / "nnef-evil-nested"));
    }

    TEST_CASE("containers: member count and decompressed size limits") {
        namespace ct = container_test;
        auto many = ct::model_entries();
        for (int i = 0; i < 20; ++i) many.push_back({"extra" + std::to_string(i) + ".dat", "x"});
        ct::write_archive(ct::scratch() / "many.tar", many, false);
        nnef::storage::ContainerLimits few;
        few.max_members = 10;
        CHECK(ct::expect_refused(ct::scratch() / "many.tar", few).find("max_members (10)") != std::string::npos);
        CHECK(nnef::storage::open_container((ct::scratch() / "many.tar").string()).value.has_value());

        // A gzip bomb: 64 MiB of zeros compress to a few tens of KiB.
        auto bomb = ct::model_entries();
        bomb.push_back({"zeros.dat", std::string(64u << 20, '\0')});
        ct::write_archive(ct::scratch() / "bomb.tgz", bomb, true);
        CHECK(ct::fs::file_size(ct::scratch() / "bomb.tgz") < (1u << 20));
        nnef::storage::ContainerLimits small;
        small.max_total_bytes = 1u << 20;
        CHECK(ct::expect_refused(ct::scratch() / "bomb.tgz", small).find("max_total_bytes") != std::string::npos);
    }

    TEST_CASE("containers: missing graph, missing path, corrupt archive") {
        namespace ct = container_test;
        ct::write_archive(ct::scratch() / "nograph.tar", {{"w.dat", "x"}}, false);
        CHECK(ct::expect_refused(ct::scratch() / "nograph.tar").rfind("no-graph", 0) == 0);
        CHECK(ct::expect_refused(ct::scratch() / "does-not-exist").rfind("cannot-open", 0) == 0);
        // Truncated gzip stream.
        auto whole = ct::scratch() / "model-for-truncation.tgz";
        ct::write_archive(whole, ct::model_entries(), true);
        std::string bytes = nnef_test::read_text(whole);
        auto cut = ct::scratch() / "truncated.tgz";
        std::ofstream(cut, std::ios::binary) << bytes.substr(0, bytes.size() / 2);
        CHECK(ct::expect_refused(cut).rfind("bad-archive", 0) == 0);
    }
}

TEST_SUITE("storage") {
    TEST_CASE("containers: a folder's walk (subfolders, links, sizes, max_members)") {
        namespace ct = container_test;
        const ct::fs::path dir = ct::scratch() / "walked";
        ct::fs::remove_all(dir);
        ct::fs::create_directories(dir / "a" / "b");
        std::ofstream(dir / "graph.nnef") << ct::kGraph;
        std::ofstream(dir / "top.dat", std::ios::binary) << std::string(7, 'x');
        std::ofstream(dir / "a" / "b" / "deep.dat", std::ios::binary) << std::string(300, 'y');
        std::ofstream(dir / ".hidden", std::ios::binary) << "h";
        // Links are not members and are not entered: a link to a file, and one to a folder.
        const ct::fs::path outside = ct::scratch() / "walked-outside";
        ct::fs::remove_all(outside);
        ct::fs::create_directories(outside);
        std::ofstream(outside / "x.dat", std::ios::binary) << "outside";
        ct::fs::create_symlink(outside / "x.dat", dir / "link.dat");
        ct::fs::create_directory_symlink(outside, dir / "linked");

        // The root given with a trailing separator names files as the path-based walk did.
        for (const std::string& root : {dir.string(), dir.string() + "/"}) {
            CAPTURE(root);
            auto r = nnef::storage::open_container(root);
            REQUIRE(r.value.has_value());
            const auto& c = *r.value;
            CHECK(c.graph_name == dir.string() + "/graph.nnef");
            std::vector<std::string> names;
            for (const auto& [name, m] : c.members) names.push_back(name);
            CHECK(names == std::vector<std::string>{".hidden", "a/b/deep.dat", "top.dat"});
            const nnef::storage::Member* deep = c.tensor_file("a/b/deep");
            REQUIRE(deep != nullptr);
            CHECK(deep->size == 300);
            CHECK(deep->disk_path == dir.string() + "/a/b/deep.dat");
            CHECK(c.tensor_file("top")->size == 7);
            CHECK(c.tensor_file("link") == nullptr);
        }

        nnef::storage::ContainerLimits few;
        few.max_members = 3;  // graph.nnef and three more
        CHECK(ct::expect_refused(dir, few).find("model folder has more than max_members (3) files") != std::string::npos);
        few.max_members = 4;
        CHECK(nnef::storage::open_container(dir.string(), few).value.has_value());
    }
}
