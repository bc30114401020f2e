// Archive members in memory: exact contents for every size class (arena chunks, members with a
// chunk of their own, empty members; views into the mapped file for an uncompressed tar), sparse
// members, and zero-copy tensors read from members.
#include <doctest/doctest.h>

#include <archive.h>
#include <archive_entry.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "common/scratch.hpp"
#include "storage/container.hpp"
#include "storage/tensor_file.hpp"

namespace archive_members_test {

namespace fs = std::filesystem;

fs::path scratch() {
    return nnef_test::process_scratch("nnef-archive-members-test");
}

struct File {
    std::string name;
    std::string data;
};

void write_archive(const fs::path& path, const std::vector<File>& files, bool gzip) {
    archive* a = archive_write_new();
    archive_write_set_format_pax_restricted(a);
    if (gzip) archive_write_add_filter_gzip(a);
    REQUIRE(archive_write_open_filename(a, path.c_str()) == ARCHIVE_OK);
    for (const File& f : files) {
        archive_entry* e = archive_entry_new();
        archive_entry_set_pathname(e, f.name.c_str());
        archive_entry_set_filetype(e, AE_IFREG);
        archive_entry_set_perm(e, 0644);
        archive_entry_set_size(e, la_int64_t(f.data.size()));
        REQUIRE(archive_write_header(a, e) == ARCHIVE_OK);
        if (!f.data.empty()) REQUIRE(archive_write_data(a, f.data.data(), f.data.size()) == la_ssize_t(f.data.size()));
        archive_entry_free(e);
    }
    REQUIRE(archive_write_close(a) == ARCHIVE_OK);
    archive_write_free(a);
}

std::string pattern(std::size_t n, unsigned seed) {
    std::string s(n, '\0');
    std::uint32_t x = seed * 2654435761u + 1;
    for (char& c : s) {
        x = x * 1664525u + 1013904223u;
        c = char(x >> 24);
    }
    return s;
}

std::string contents(const nnef::storage::Member& m) {
    return std::string(reinterpret_cast<const char*>(m.bytes.data()), m.bytes.size());
}

}  // namespace archive_members_test

TEST_SUITE("storage") {
    TEST_CASE("archive members: exact contents across size classes, tar and tgz") {
        namespace amt = archive_members_test;
        std::vector<amt::File> files{{"graph.nnef", "version 1.0;\ngraph G( x ) -> ( x )\n{\n    x = external(shape = [1]);\n}\n"},
                                     {"empty.bin", ""},
                                     {"big.bin", amt::pattern(9u << 20, 1)}};  // above a quarter chunk
        for (unsigned i = 0; i < 40; ++i)  // 40 x 1 MiB + a bit: several arena chunks
            files.push_back({"w/" + std::to_string(i) + ".bin", amt::pattern((1u << 20) + 4 * i + 1, 10 + i)});
        for (unsigned i = 0; i < 100; ++i) files.push_back({"small/" + std::to_string(i) + ".bin", amt::pattern(i * 7, 200 + i)});
        for (bool gzip : {false, true}) {
            CAPTURE(gzip);
            const amt::fs::path p = amt::scratch() / (gzip ? "sizes.tgz" : "sizes.tar");
            amt::write_archive(p, files, gzip);
            nnef::storage::ContainerLimits limits;
            auto r = nnef::storage::open_container(p.string(), limits);
            REQUIRE(r.value.has_value());
            REQUIRE(r.value->members.size() == files.size() - 1);
            for (std::size_t i = 1; i < files.size(); ++i) {
                CAPTURE(files[i].name);
                auto it = r.value->members.find(files[i].name);
                REQUIRE(it != r.value->members.end());
                CHECK(it->second.in_memory());
                CHECK(it->second.size == files[i].data.size());
                CHECK(amt::contents(it->second) == files[i].data);
                // 64-byte alignment keeps float32 data (at offset 128 of a tensor file) aligned.
                CHECK(reinterpret_cast<std::uintptr_t>(it->second.bytes.data()) % 64 == 0);
                // An uncompressed tar is mapped and its members are views into it (zero copy).
                CHECK(it->second.bytes.mapped() == (!gzip && !files[i].data.empty()));
            }
            // The members outlive the container.
            nnef::storage::Member kept = r.value->members.at("w/39.bin");
            r.value.reset();
            CHECK(amt::contents(kept) == amt::pattern((1u << 20) + 4 * 39 + 1, 49));
            amt::fs::remove(p);
        }
    }

    TEST_CASE("archive members: the decompressed limit counts every member") {
        namespace amt = archive_members_test;
        std::vector<amt::File> files{{"graph.nnef", "version 1.0;"}};
        for (unsigned i = 0; i < 8; ++i) files.push_back({std::to_string(i) + ".bin", amt::pattern(1u << 20, i)});
        const amt::fs::path p = amt::scratch() / "limit.tgz";
        amt::write_archive(p, files, true);
        nnef::storage::ContainerLimits limits;
        limits.max_total_bytes = (8u << 20) - 1;
        auto refused = nnef::storage::open_container(p.string(), limits);
        CHECK_FALSE(refused.value.has_value());
        REQUIRE(refused.diagnostics.has_errors());
        CHECK(refused.diagnostics.list().front().code == "limit-exceeded");
        limits.max_total_bytes = (8u << 20) + 64;
        CHECK(nnef::storage::open_container(p.string(), limits).value.has_value());
    }

    TEST_CASE("archive members: sparse members read with their holes as zeros") {
        namespace amt = archive_members_test;
        const amt::fs::path p = amt::scratch() / "sparse.tar";
        archive* a = archive_write_new();
        archive_write_set_format_pax(a);
        REQUIRE(archive_write_open_filename(a, p.c_str()) == ARCHIVE_OK);
        const std::string graph = "version 1.0;";
        archive_entry* e = archive_entry_new();
        archive_entry_set_pathname(e, "graph.nnef");
        archive_entry_set_filetype(e, AE_IFREG);
        archive_entry_set_perm(e, 0644);
        archive_entry_set_size(e, la_int64_t(graph.size()));
        REQUIRE(archive_write_header(a, e) == ARCHIVE_OK);
        archive_write_data(a, graph.data(), graph.size());
        archive_entry_clear(e);
        // 1 MiB logical size: data at [4096, 8192) and [65536, 69632), holes elsewhere (the tail too).
        archive_entry_set_pathname(e, "sparse.bin");
        archive_entry_set_filetype(e, AE_IFREG);
        archive_entry_set_perm(e, 0644);
        archive_entry_set_size(e, 1 << 20);
        archive_entry_sparse_add_entry(e, 4096, 4096);
        archive_entry_sparse_add_entry(e, 65536, 4096);
        REQUIRE(archive_write_header(a, e) == ARCHIVE_OK);
        // The writer takes the logical contents and stores the data regions only.
        const std::string data = amt::pattern(8192, 7);
        std::string want(1u << 20, '\0');
        want.replace(4096, 4096, data.substr(0, 4096));
        want.replace(65536, 4096, data.substr(4096));
        archive_write_data(a, want.data(), want.size());
        archive_entry_free(e);
        REQUIRE(archive_write_close(a) == ARCHIVE_OK);
        archive_write_free(a);

        auto r = nnef::storage::open_container(p.string());
        REQUIRE(r.value.has_value());
        const nnef::storage::Member& m = r.value->members.at("sparse.bin");
        REQUIRE(m.size == (1u << 20));
        CHECK(amt::contents(m) == want);
    }

    TEST_CASE("archive members: tensors are read in place from a member") {
        namespace amt = archive_members_test;
        std::vector<float> values(300000);
        for (std::size_t i = 0; i < values.size(); ++i) values[i] = float(i) * 0.25f - 7.0f;
        auto made = nnef::storage::make_float_tensor({300, 1000}, values);
        REQUIRE(made);
        auto image = nnef::storage::encode_tensor(**made);
        REQUIRE(image);
        const std::string bytes(image.value->begin(), image.value->end());
        const amt::fs::path p = amt::scratch() / "tensor.tgz";
        amt::write_archive(p, {{"graph.nnef", "version 1.0;"}, {"w.dat", bytes}}, true);
        nnef::storage::TensorDataPtr t;
        const std::uint8_t* member_data = nullptr;
        {
            auto r = nnef::storage::open_container(p.string());
            REQUIRE(r.value.has_value());
            const nnef::storage::Member* m = r.value->tensor_file("w");
            REQUIRE(m != nullptr);
            member_data = m->bytes.data();
            auto read = nnef::storage::read_tensor_bytes(m->bytes, "tensor.tgz:w.dat");
            REQUIRE(read);
            t = *read;
        }
        // Zero copy: the data is the member's bytes after the header, alive after the container.
        CHECK(t->bytes.data() == member_data + nnef::TensorHeader::size);
        CHECK_FALSE(t->bytes.owned());
        const float* f = t->float32_data();
        REQUIRE(f != nullptr);
        CHECK(std::memcmp(f, values.data(), values.size() * sizeof(float)) == 0);
        auto back = nnef::storage::encode_tensor(*t);
        REQUIRE(back);
        CHECK(*back.value == *image.value);

        // A damaged member is refused with its name.
        nnef::ByteView shortened(std::vector<std::uint8_t>(image.value->begin(), image.value->begin() + 200));
        auto bad = nnef::storage::read_tensor_bytes(shortened, "x.dat");
        CHECK_FALSE(bad);
        CHECK(bad.diagnostics.list().front().code == "tensor-truncated-data");
        CHECK(bad.diagnostics.list().front().path == "x.dat");
    }

    TEST_CASE("large tensor data read into memory (not mapped) is exact") {
        namespace amt = archive_members_test;
        std::vector<std::int64_t> ints(3u << 20);
        for (std::size_t i = 0; i < ints.size(); ++i) ints[i] = std::int64_t(i % 251) - 125;
        auto made = nnef::storage::make_integer_tensor({3, 1 << 20}, ints, 8, true);
        REQUIRE(made);
        const amt::fs::path p = amt::scratch() / "large_int8.dat";
        REQUIRE(nnef::storage::write_tensor_file(p.string(), **made));
        auto r = nnef::storage::read_tensor_file(p.string());
        REQUIRE(r);
        CHECK_FALSE((*r)->bytes.mapped());
        CHECK((*r)->bytes.to_vector() == (*made)->bytes.to_vector());
        CHECK((*r)->as_int64(3u << 19) == ints[3u << 19]);

        std::vector<float> floats(1u << 20);
        for (std::size_t i = 0; i < floats.size(); ++i) floats[i] = float(i) * 0.5f;
        auto f = nnef::storage::make_float_tensor({1 << 20}, floats);
        REQUIRE(f);
        REQUIRE(nnef::storage::write_tensor_file(p.string(), **f));
        nnef::storage::ReadOptions no_map;
        no_map.allow_mmap = false;
        auto rf = nnef::storage::read_tensor_file(p.string(), {}, no_map);
        REQUIRE(rf);
        CHECK_FALSE((*rf)->bytes.mapped());
        const float* data = (*rf)->float32_data();
        REQUIRE(data != nullptr);
        CHECK(std::memcmp(data, floats.data(), floats.size() * sizeof(float)) == 0);
        amt::fs::remove(p);
    }
}
