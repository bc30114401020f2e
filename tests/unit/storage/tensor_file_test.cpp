// The tensor file codec: the corpus of tensor files, round trips for every code and width, hostile
// headers with bounded memory, memory mapping.
#include <storage/tensor_file.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include <fcntl.h>
#include <unistd.h>

#include "common/scratch.hpp"
#include "alloc_probe.hpp"
#include <nlohmann/json.hpp>
#include "test_support.hpp"

namespace tensor_file_test {

namespace fs = std::filesystem;
using nnef::ElementKind;
using nnef::TensorData;
using nnef::TensorHeader;
using nnef::storage::TensorDataPtr;

std::vector<std::uint8_t> read_bytes(const fs::path& p) {
    const std::string s = nnef_test::read_text(p);
    return std::vector<std::uint8_t>(s.begin(), s.end());
}

void write_bytes(const fs::path& p, const std::vector<std::uint8_t>& bytes) {
    std::ofstream out(p, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));
}

// A fresh scratch folder per process.
fs::path scratch() {
    return nnef_test::process_scratch("nnef-tensor-file-test");
}

std::string describe(const nnef::Diagnostics& ds) {
    std::string s;
    for (const auto& d : ds) {
        s += d.path + " @" + (d.byte_offset ? std::to_string(*d.byte_offset) : std::string("-")) + " [" + d.code +
             "] " + d.message + "\n";
    }
    return s;
}

// The single error of a refused read.
const nnef::Diagnostic& the_error(const nnef::Result<TensorDataPtr>& r) {
    REQUIRE_MESSAGE(!r, "expected a refusal");
    REQUIRE(r.diagnostics.error_count() == 1);
    return r.diagnostics.list().front();
}

std::string code_text(std::uint64_t v) { return std::to_string(v); }

// Compares a decoded item with an expect.json value (bool, exact integer text, or a real).
void check_value(const TensorData& t, std::uint64_t i, const nlohmann::json& want, const std::string& what) {
    INFO(what << " item " << i);
    if (want.is_boolean()) {
        CHECK(t.as_bool(i) == want.get<bool>());
    } else if (want.is_number_integer()) {
        const bool unsigned_kind = t.kind == ElementKind::unsigned_int || t.kind == ElementKind::quantized_unsigned;
        const std::string got = unsigned_kind ? code_text(t.raw(i)) : std::to_string(t.as_int64(i));
        CHECK(got == want.dump());  // integers are read and written back exactly
    } else {
        const double w = want.get<double>();
        const double g = t.as_double(i);
        CHECK(std::fabs(g - w) <= 1e-12 * std::max(1.0, std::fabs(w)));
        if (t.is_float()) CHECK(g == w);  // floats decode exactly
    }
}

std::uint64_t parse_hex(const std::string& s) { return std::stoull(s, nullptr, 16); }

void check_accepted(const TensorData& t, const nlohmann::json& e) {
    CHECK(std::string(nnef::to_string(t.kind)) == e["dtype"].get<std::string>());
    CHECK(t.bits == e["bits"].get<unsigned>());
    CHECK(t.header.bits == t.bits);
    REQUIRE(t.shape.size() == e["shape"].size());
    for (std::size_t k = 0; k < t.shape.size(); ++k) CHECK(t.shape[k] == e["shape"][k].get<std::uint64_t>());
    CHECK(t.count == e["count"].get<std::uint64_t>());
    CHECK(t.header.data_length == e["data_length"].get<std::uint64_t>());
    CHECK(t.bytes.size() == t.header.data_length);
    CHECK(t.header.item_type() == parse_hex(e["item_type"].get<std::string>()));
    CHECK(t.header.algorithm == parse_hex(e["code"].get<std::string>()));
    CHECK(t.header.vendor == parse_hex(e["vendor"].get<std::string>()));
    if (e.contains("first")) check_value(t, 0, e["first"], "first");
    if (e.contains("last")) check_value(t, t.count - 1, e["last"], "last");
    if (e.contains("first_code")) CHECK(t.raw(0) == e["first_code"].get<std::uint64_t>());
    if (e.contains("last_code")) CHECK(t.raw(t.count - 1) == e["last_code"].get<std::uint64_t>());
    if (e.contains("min")) CHECK(t.min == e["min"].get<double>());
    if (e.contains("max")) CHECK(t.max == e["max"].get<double>());
    if (e.contains("signed")) CHECK(t.is_signed == e["signed"].get<bool>());
    if (e.contains("signed_flag")) CHECK(t.header.params[0] == e["signed_flag"].get<std::uint64_t>());
    if (t.kind == ElementKind::opaque) CHECK(!t.has_values());
    else CHECK(t.has_values());
    // Every item decodes without touching bytes beyond the data.
    const std::vector<double> all = t.to_doubles();
    CHECK(all.size() == t.count);
}

// A header with the given fields, as bytes (no validation).
std::vector<std::uint8_t> header_bytes(const TensorHeader& h) {
    const auto a = nnef::storage::encode_tensor_header(h);
    return std::vector<std::uint8_t>(a.begin(), a.end());
}

TensorHeader float32_header(std::vector<std::uint32_t> shape) {
    TensorHeader h;
    h.rank = std::uint32_t(shape.size());
    std::uint64_t volume = 1;
    for (std::size_t i = 0; i < shape.size(); ++i) {
        h.extents[i] = shape[i];
        volume *= shape[i];
    }
    h.bits = 32;
    h.data_length = std::uint32_t(volume * 4);
    return h;
}

std::vector<std::uint8_t> image(const TensorHeader& h, std::size_t data_bytes) {
    std::vector<std::uint8_t> b = header_bytes(h);
    b.resize(b.size() + data_bytes, 0);
    return b;
}

// Refusal of an in-memory image at `offset`.
void expect_refused(const std::vector<std::uint8_t>& bytes, std::uint64_t offset, const std::string& code,
                    const nnef::Limits& limits = {}) {
    auto r = nnef::storage::read_tensor_bytes(bytes.data(), bytes.size(), "hostile.dat", limits);
    const nnef::Diagnostic& d = the_error(r);
    INFO(describe(r.diagnostics));
    CHECK(d.stage == nnef::Stage::data);
    CHECK(d.path == "hostile.dat");
    REQUIRE(d.byte_offset.has_value());
    CHECK(*d.byte_offset == offset);
    CHECK(d.code == code);
    CHECK(!d.message.empty());
}

struct CodeCase {
    std::uint32_t item_type;
    std::array<std::uint32_t, 8> params;
    std::vector<unsigned> widths;
    ElementKind kind;
};

std::array<std::uint32_t, 8> float_params(float min, float max) {
    std::array<std::uint32_t, 8> p{};
    std::memcpy(&p[0], &min, 4);
    std::memcpy(&p[1], &max, 4);
    return p;
}

std::vector<unsigned> widths(unsigned from, unsigned to) {
    std::vector<unsigned> w;
    for (unsigned b = from; b <= to; ++b) w.push_back(b);
    return w;
}

// Reads `body` through a pipe (a file whose size is unknown), fed by a writer thread; `largest`
// receives the largest allocation made meanwhile.
nnef::Result<TensorDataPtr> read_through_pipe(const std::vector<std::uint8_t>& body, std::size_t* largest = nullptr) {
    int fds[2];
    REQUIRE(::pipe(fds) == 0);
    std::thread writer([&] {
        std::size_t done = 0;
        while (done < body.size()) {
            const ssize_t k = ::write(fds[1], body.data() + done, body.size() - done);
            if (k <= 0) break;
            done += std::size_t(k);
        }
        ::close(fds[1]);
    });
    alloc_probe::reset();
    auto r = nnef::storage::read_tensor_file("/dev/fd/" + std::to_string(fds[0]));
    if (largest) *largest = alloc_probe::largest();
    writer.join();
    ::close(fds[0]);
    return r;
}

}  // namespace tensor_file_test

TEST_SUITE("storage") {

TEST_CASE("tensor files of the corpus read as expect.json says") {
    NNEF_REQUIRE_CORPUS();
    namespace t = tensor_file_test;
    const t::fs::path dir = nnef_test::corpus_dir() / "tensors";
    const nlohmann::json expect = nlohmann::json::parse(nnef_test::read_text(dir / "expect.json"));
    REQUIRE(expect.is_array());
    std::set<std::string> listed;
    std::size_t accepted = 0, rejected = 0;
    for (const nlohmann::json& e : expect) {
        const std::string file = e["file"].get<std::string>();
        listed.insert(file);
        const t::fs::path path = dir / file;
        const std::vector<std::uint8_t> bytes = t::read_bytes(path);
        CAPTURE(file);
        REQUIRE(bytes.size() == e["size"].get<std::size_t>());

        auto from_file = nnef::storage::read_tensor_file(path.string());
        nnef::storage::ReadOptions no_map;
        no_map.allow_mmap = false;
        auto unmapped = nnef::storage::read_tensor_file(path.string(), {}, no_map);
        auto from_memory = nnef::storage::read_tensor_bytes(bytes.data(), bytes.size(), file);
        auto shared = nnef::storage::read_tensor_bytes(
            std::make_shared<const std::string>(bytes.begin(), bytes.end()), file);

        if (e["expect"] == "accept") {
            ++accepted;
            INFO(t::describe(from_file.diagnostics));
            REQUIRE(from_file);
            REQUIRE(unmapped);
            REQUIRE(from_memory);
            REQUIRE(shared);
            for (const auto* r : {&from_file, &unmapped, &from_memory, &shared}) t::check_accepted(***r, e);
            const nnef::TensorData& td = **from_file;
            // float32 data is mapped from ReadOptions::map_from bytes on, read below it.
            CHECK(td.bytes.mapped() ==
                  (td.kind == nnef::ElementKind::float32 && td.bytes.size() >= nnef::storage::ReadOptions{}.map_from));
            CHECK(!(*unmapped)->bytes.mapped());
            nnef::storage::ReadOptions map_all;
            map_all.map_from = 0;
            auto mapped = nnef::storage::read_tensor_file(path.string(), {}, map_all);
            REQUIRE(mapped);
            t::check_accepted(**mapped, e);
            CHECK((*mapped)->bytes.mapped() == (td.kind == nnef::ElementKind::float32));
            // Writing it back reproduces the file bit for bit (reserved bytes and padding included).
            auto encoded = nnef::storage::encode_tensor(td);
            REQUIRE(encoded);
            CHECK(*encoded == bytes);
        } else {
            ++rejected;
            const std::uint64_t offset = e["offset"].get<std::uint64_t>();
            for (const auto* r : {&from_file, &unmapped}) {
                const nnef::Diagnostic& d = t::the_error(*r);
                INFO(t::describe(r->diagnostics));
                CHECK(d.stage == nnef::Stage::data);
                CHECK(d.path == path.string());
                REQUIRE(d.byte_offset.has_value());
                CHECK(*d.byte_offset == offset);
            }
            for (const auto* r : {&from_memory, &shared}) {
                const nnef::Diagnostic& d = t::the_error(*r);
                CHECK(d.path == file);
                REQUIRE(d.byte_offset.has_value());
                CHECK(*d.byte_offset == offset);
            }
        }
    }
    for (const auto& entry : t::fs::directory_iterator(dir)) {
        if (entry.path().extension() == ".dat") CHECK_MESSAGE(listed.count(entry.path().filename().string()),
                                                              entry.path().filename().string());
    }
    MESSAGE("corpus tensors: " << accepted << " accepted, " << rejected << " rejected as expected");
}

TEST_CASE("bit layout: MSB-first streams and little-endian bytes (SPEC_NOTES 4)") {
    auto b = nnef::storage::make_logical_tensor({8}, {true, false, false, false, false, false, false, true}, 1);
    REQUIRE(b);
    REQUIRE((*b)->bytes.size() == 1);
    CHECK((*b)->bytes.data()[0] == 0x81);

    auto u4 = nnef::storage::make_integer_tensor({2}, {1, 2}, 4, false);
    REQUIRE(u4);
    REQUIRE((*u4)->bytes.size() == 1);
    CHECK((*u4)->bytes.data()[0] == 0x12);

    auto i3 = nnef::storage::make_integer_tensor({3}, {-4, 3, -1}, 3, true);  // 100 011 111 -> 10001111 1(0000000)
    REQUIRE(i3);
    REQUIRE((*i3)->bytes.size() == 2);
    CHECK((*i3)->bytes.data()[0] == 0x8F);
    CHECK((*i3)->bytes.data()[1] == 0x80);
    CHECK((*i3)->as_int64(0) == -4);
    CHECK((*i3)->as_int64(1) == 3);
    CHECK((*i3)->as_int64(2) == -1);

    auto i16 = nnef::storage::make_integer_tensor({2}, {0x1234, -2}, 16, true, nnef::item_code::signed_integer);
    REQUIRE(i16);
    const std::uint8_t* d = (*i16)->bytes.data();
    CHECK(d[0] == 0x34);
    CHECK(d[1] == 0x12);
    CHECK(d[2] == 0xFE);
    CHECK(d[3] == 0xFF);
    CHECK((*i16)->kind == nnef::ElementKind::signed_int);
    CHECK((*i16)->dtype == nnef::PrimType::integer);
}

TEST_CASE("round trip: every code and every valid width, bit-exact") {
    namespace t = tensor_file_test;
    std::mt19937_64 rng(20240521);
    const std::vector<t::CodeCase> cases = {
        {nnef::item_code::float_values, {}, {16, 32, 64}, nnef::ElementKind::float32},
        {nnef::item_code::integer, {}, t::widths(1, 64), nnef::ElementKind::unsigned_int},
        {nnef::item_code::integer, {1}, t::widths(1, 64), nnef::ElementKind::signed_int},
        {nnef::item_code::quantized_unsigned, {}, t::widths(1, 64), nnef::ElementKind::quantized_unsigned},
        {nnef::item_code::quantized_signed, {}, t::widths(1, 64), nnef::ElementKind::quantized_signed},
        {nnef::item_code::signed_integer, {}, t::widths(1, 64), nnef::ElementKind::signed_int},
        {nnef::item_code::logical, {}, {1, 8}, nnef::ElementKind::logical},
        {nnef::item_code::linear_quantized, t::float_params(-1.5f, 2.25f), t::widths(1, 64),
         nnef::ElementKind::linear_quantized},
        {nnef::item_code::log_quantized, t::float_params(0.0f, 6.0f), t::widths(1, 64), nnef::ElementKind::log_quantized},
        {nnef::item_code::log_quantized, t::float_params(-0.5f, 0.5f), t::widths(2, 64), nnef::ElementKind::log_quantized},
        {0x7A3Bu << 16 | 0x0042u, {9, 8, 7}, t::widths(1, 64), nnef::ElementKind::opaque},
    };
    std::size_t files = 0;
    for (const t::CodeCase& c : cases) {
        for (unsigned bits : c.widths) {
            CAPTURE(c.item_type);
            CAPTURE(bits);
            // A random shape of rank 0..4 with small extents.
            std::vector<std::int64_t> shape(rng() % 5);
            std::uint64_t volume = 1;
            for (auto& e : shape) volume *= std::uint64_t(e = std::int64_t(1 + rng() % 5));
            std::vector<std::uint64_t> codes(volume);
            const std::uint64_t top = nnef::TensorData::max_code(bits);
            for (auto& q : codes) q = rng() & top;
            if (c.item_type == nnef::item_code::logical) for (auto& q : codes) q &= 1;
            if (volume > 1) {
                codes.front() = top;  // the extremes
                codes.back() = 0;
                if (c.item_type == nnef::item_code::logical) codes.front() = 1;
            }
            auto made = nnef::storage::make_tensor(shape, c.item_type, bits, c.params, codes);
            INFO(t::describe(made.diagnostics));
            REQUIRE(made);
            const nnef::TensorData& td = **made;
            if (c.item_type != nnef::item_code::float_values) CHECK(td.kind == c.kind);
            for (std::uint64_t i = 0; i < volume; ++i) REQUIRE(td.raw(i) == codes[i]);

            const t::fs::path path = t::scratch() / "round_trip.dat";
            auto written = nnef::storage::write_tensor_file(path.string(), td);
            REQUIRE(written);
            ++files;
            CHECK(*written == 128 + td.header.data_length);
            auto back = nnef::storage::read_tensor_file(path.string());
            INFO(t::describe(back.diagnostics));
            REQUIRE(back);
            const nnef::TensorData& rd = **back;
            CHECK(rd.shape == shape);
            CHECK(rd.kind == td.kind);
            CHECK(rd.header.item_type() == c.item_type);
            CHECK(rd.header.params == c.params);
            REQUIRE(rd.bytes.size() == td.bytes.size());
            CHECK(std::memcmp(rd.bytes.data(), td.bytes.data(), td.bytes.size()) == 0);
            for (std::uint64_t i = 0; i < volume; ++i) REQUIRE(rd.raw(i) == codes[i]);
            if (td.is_signed && td.kind != nnef::ElementKind::log_quantized) {
                for (std::uint64_t i = 0; i < volume; ++i)
                    REQUIRE(rd.as_int64(i) == nnef::TensorData::sign_extend(codes[i], bits));
            }
            auto encoded = nnef::storage::encode_tensor(rd);
            REQUIRE(encoded);
            CHECK(*encoded == t::read_bytes(path));
        }
    }
    MESSAGE(files << " round-trip files");
}

TEST_CASE("round trip of values: floats, integers, logicals") {
    namespace t = tensor_file_test;
    std::mt19937_64 rng(7);
    std::normal_distribution<double> normal(0.0, 100.0);
    std::vector<double> values(37);
    for (auto& v : values) v = normal(rng);
    values[0] = -0.0;
    values[1] = std::numeric_limits<double>::infinity();
    values[2] = 1e-300;

    auto f64 = nnef::storage::make_float_tensor({37}, values, 64);
    REQUIRE(f64);
    for (std::size_t i = 0; i < values.size(); ++i) CHECK((*f64)->as_double(i) == values[i]);
    CHECK((*f64)->kind == nnef::ElementKind::float64);

    auto f32 = nnef::storage::make_float_tensor({37}, values, 32);
    REQUIRE(f32);
    for (std::size_t i = 0; i < values.size(); ++i) CHECK((*f32)->as_double(i) == double(float(values[i])));
    REQUIRE((*f32)->float32_data() != nullptr);
    CHECK((*f32)->float32_data()[5] == float(values[5]));

    std::vector<float> floats(values.begin(), values.end());
    auto f32b = nnef::storage::make_float_tensor({1, 37}, floats);
    REQUIRE(f32b);
    CHECK((*f32b)->bytes.to_vector() == (*f32)->bytes.to_vector());

    auto f16 = nnef::storage::make_float_tensor({37}, values, 16);
    REQUIRE(f16);
    CHECK((*f16)->kind == nnef::ElementKind::float16);
    for (std::size_t i = 3; i < values.size(); ++i) {
        const double got = (*f16)->as_double(i);
        if (std::fabs(values[i]) < 65504.0) CHECK(std::fabs(got - values[i]) <= std::fabs(values[i]) * (1.0 / 2048));
    }
    CHECK((*f16)->as_double(2) == 0.0);
    CHECK(std::isinf((*f16)->as_double(1)));
    CHECK(std::signbit((*f16)->as_double(0)));

    std::vector<std::int64_t> ints = {0, 1, -1, 127, -128, 42};
    for (std::uint16_t code : {nnef::item_code::integer, nnef::item_code::signed_integer,
                               nnef::item_code::quantized_signed}) {
        auto it = nnef::storage::make_integer_tensor({2, 3}, ints, 8, true, code);
        REQUIRE(it);
        CHECK((*it)->to_int64s() == ints);
    }
    auto big = nnef::storage::make_integer_tensor({2}, {std::numeric_limits<std::int64_t>::min(),
                                                        std::numeric_limits<std::int64_t>::max()},
                                                  64, true);
    REQUIRE(big);
    CHECK((*big)->as_int64(0) == std::numeric_limits<std::int64_t>::min());
    CHECK((*big)->as_int64(1) == std::numeric_limits<std::int64_t>::max());

    auto too_big = nnef::storage::make_integer_tensor({1}, {128}, 8, true);
    CHECK(!too_big);
    CHECK(too_big.diagnostics.list().front().stage == nnef::Stage::data);
    CHECK(!nnef::storage::make_integer_tensor({1}, {-1}, 8, false));
    CHECK(!nnef::storage::make_integer_tensor({1}, {16}, 4, false, nnef::item_code::quantized_unsigned));
    CHECK(!nnef::storage::make_integer_tensor({1}, {1}, 8, false, nnef::item_code::logical));
    CHECK(!nnef::storage::make_integer_tensor({2}, {1}, 8, false));  // count mismatch
    CHECK(!nnef::storage::make_float_tensor({2}, std::vector<double>{1, 2}, 8));
    CHECK(!nnef::storage::make_logical_tensor({2}, {true, false}, 4));
    CHECK(!nnef::storage::make_float_tensor({0}, std::vector<float>{}));
    CHECK(!nnef::storage::make_float_tensor({1, 1, 1, 1, 1, 1, 1, 1, 1}, std::vector<float>{1}));

    std::vector<bool> flags = {true, false, true, true, false};
    for (unsigned bits : {1u, 8u}) {
        auto lg = nnef::storage::make_logical_tensor({5}, flags, bits);
        REQUIRE(lg);
        CHECK((*lg)->dtype == nnef::PrimType::logical);
        for (std::size_t i = 0; i < flags.size(); ++i) CHECK((*lg)->as_bool(i) == flags[i]);
    }
}

TEST_CASE("float16 conversion: every half value round trips, ties go to even") {
    for (std::uint32_t h = 0; h < 0x10000; ++h) {
        const double d = nnef::tensor_data_detail::half_to_double(std::uint16_t(h));
        const std::uint16_t back = nnef::storage::double_to_half(d);
        if (std::isnan(d)) {
            REQUIRE((back & 0x7C00) == 0x7C00);
            REQUIRE((back & 0x3FF) != 0);
        } else {
            REQUIRE(back == h);
        }
    }
    CHECK(nnef::storage::double_to_half(1.0 + 1.0 / 2048) == 0x3C00);          // tie -> even (down)
    CHECK(nnef::storage::double_to_half(1.0 + 3.0 / 2048) == 0x3C02);          // tie -> even (up)
    CHECK(nnef::storage::double_to_half(65504.0 + 16.0) == 0x7C00);            // rounds to infinity
    CHECK(nnef::storage::double_to_half(65504.0 + 15.9) == 0x7BFF);
    CHECK(nnef::storage::double_to_half(std::ldexp(1.0, -25)) == 0x0000);      // tie -> even (zero)
    CHECK(nnef::storage::double_to_half(std::ldexp(1.5, -25)) == 0x0001);
    CHECK(nnef::storage::double_to_half(std::ldexp(1.0, -14) * (1023.5 / 1024)) == 0x0400);  // into normals
    CHECK(nnef::storage::double_to_half(-2.0) == 0xC000);
}

TEST_CASE("linear and logarithmic quantization formulas") {
    // Linear: q / r * (max - min) + min, endpoints exact; encoding inverts decoding.
    for (unsigned bits : {1u, 2u, 5u, 8u, 12u, 16u, 31u, 32u, 53u, 64u}) {
        CAPTURE(bits);
        std::vector<double> values = {-10.0, -1.5, -0.25, 0.0, 0.7, 2.25, 99.0};
        auto lq = nnef::storage::make_linear_quantized_tensor({7}, values, -1.5f, 2.25f, bits);
        REQUIRE(lq);
        const nnef::TensorData& t = **lq;
        CHECK(t.kind == nnef::ElementKind::linear_quantized);
        CHECK(t.as_double(0) == -1.5);   // clamped to min
        CHECK(t.as_double(1) == -1.5);
        CHECK(t.as_double(6) == 2.25);   // clamped to max
        CHECK(t.as_double(5) == 2.25);
        const double step = 3.75 / double(nnef::TensorData::max_code(bits));
        for (std::size_t i = 0; i < values.size(); ++i) {
            const double clamped = std::min(2.25, std::max(-1.5, values[i]));
            CHECK(std::fabs(t.as_double(i) - clamped) <= step / 2 + 1e-12);
            // Re-encoding a decoded value gives its code back (while doubles resolve the steps).
            if (bits <= 32) CHECK(nnef::storage::linear_quantize_code(t.as_double(i), -1.5, 2.25, bits) == t.raw(i));
        }
    }
    {
        auto lq = nnef::storage::make_linear_quantized_tensor({3}, {0.0, 0.5, 1.0}, 0.0f, 1.0f, 8);
        REQUIRE(lq);
        CHECK((*lq)->raw(1) == 128);  // round(0.5 * 255) = round(127.5) = 128
    }
    CHECK(!nnef::storage::make_linear_quantized_tensor({1}, {0.0}, std::nanf(""), 1.0f, 8));

    // Logarithmic (SPEC_NOTES 1): q = round(clamp(log2 x, m - r, m)) - (m - r), x = 2^(q + m - r).
    {
        auto lg = nnef::storage::make_log_quantized_tensor({6}, {0.0, 1.0, 2.0, 3.0, 8.0, 100.0}, 8.0f, false, 5);
        REQUIRE(lg);
        const nnef::TensorData& t = **lg;
        CHECK(t.log_m == 3);
        CHECK(t.raw(0) == 0);
        CHECK(t.as_double(0) == std::ldexp(1.0, 3 - 31));
        CHECK(t.as_double(1) == 1.0);
        CHECK(t.raw(1) == 28);
        CHECK(t.as_double(2) == 2.0);
        CHECK(t.as_double(3) == 4.0);  // log2 3 = 1.58 rounds to 2
        CHECK(t.as_double(4) == 8.0);
        CHECK(t.raw(4) == 31);
        CHECK(t.as_double(5) == 8.0);  // clamped to m
    }
    {
        auto lg = nnef::storage::make_log_quantized_tensor({4}, {-4.0, -0.5, 0.25, 4.0}, 4.0f, true, 8);
        REQUIRE(lg);
        const nnef::TensorData& t = **lg;
        CHECK(t.is_signed);
        CHECK(t.min == -4.0);
        CHECK(t.raw(0) == 255);
        CHECK(t.as_double(0) == -4.0);
        CHECK(t.as_double(1) == -0.5);
        CHECK(t.as_double(2) == 0.25);
        CHECK(t.raw(3) == 127);
        CHECK(t.as_double(3) == 4.0);
    }
    {
        // ceil(log2 max) for a max that is not a power of two; every code maps back to itself.
        for (unsigned bits : {1u, 3u, 8u, 20u, 64u}) {
            auto lg = nnef::storage::make_log_quantized_tensor({1}, {1.0}, 5.0f, false, bits);
            REQUIRE(lg);
            CHECK((*lg)->log_m == 3);
            const std::uint64_t top = nnef::TensorData::max_code(bits);
            for (std::uint64_t q : {std::uint64_t(0), std::uint64_t(1), top / 2, top - 1, top}) {
                const double x = (*lg)->log_decode(q);
                if (x > 0 && x == std::ldexp(1.0, std::ilogb(x)) && std::ilogb(x) > -1000)
                    CHECK(nnef::storage::log_quantize_code(x, 5.0, false, bits) == q);
            }
        }
    }
    CHECK(!nnef::storage::make_log_quantized_tensor({1}, {1.0}, 0.0f, false, 8));
    CHECK(!nnef::storage::make_log_quantized_tensor({1}, {1.0}, 1.0f, true, 1));
}

TEST_CASE("hostile headers are refused at the offending field") {
    namespace t = tensor_file_test;
    using H = nnef::TensorHeader;
    {
        H h = t::float32_header({4});
        h.rank = 9;
        t::expect_refused(t::image(h, 16), H::offset_rank, "tensor-bad-rank");
        h.rank = 0xFFFFFFFF;
        t::expect_refused(t::image(h, 16), H::offset_rank, "tensor-bad-rank");
    }
    for (std::uint32_t bits : {0u, 65u, 0xFFFFFFFFu}) {
        H h = t::float32_header({4});
        h.algorithm = nnef::item_code::integer;
        h.bits = bits;
        t::expect_refused(t::image(h, 16), H::offset_bits, "tensor-bad-bits");
    }
    {
        H h = t::float32_header({2, 3});
        h.extents[7] = 1;
        t::expect_refused(t::image(h, 24), H::offset_extents + 28, "tensor-bad-extent");
        h = t::float32_header({2, 3, 4});
        h.extents[2] = 0;
        t::expect_refused(t::image(h, 96), H::offset_extents + 8, "tensor-bad-extent");
    }
    {
        // Extents whose product overflows 64 bits.
        H h = t::float32_header({});
        h.rank = 8;
        for (auto& e : h.extents) e = 0xFFFFFFFFu;
        h.bits = 64;
        h.data_length = 0xFFFFFFFFu;
        t::expect_refused(t::image(h, 0), H::offset_data_length, "tensor-bad-data-length");
        // volume * bits overflows although the volume does not.
        h.rank = 2;
        h.extents = {0xFFFFFFFFu, 0xFFFFFFFFu};
        t::expect_refused(t::image(h, 0), H::offset_data_length, "tensor-bad-data-length");
    }
    {
        H h = t::float32_header({3});
        h.data_length = 13;
        t::expect_refused(t::image(h, 13), H::offset_data_length, "tensor-bad-data-length");
    }
    {
        H h = t::float32_header({3});
        h.algorithm = 0x12;
        t::expect_refused(t::image(h, 12), H::offset_item_type, "tensor-unknown-algorithm");
        h.algorithm = nnef::item_code::logical;
        h.bits = 32;
        t::expect_refused(t::image(h, 12), H::offset_bits, "tensor-bad-bits");
    }
    {
        H h = t::float32_header({3});
        h.algorithm = nnef::item_code::linear_quantized;
        h.set_param_float(0, 0.0f);
        h.set_param_float(1, std::numeric_limits<float>::infinity());
        t::expect_refused(t::image(h, 12), H::offset_params + 4, "tensor-bad-parameter");
        h.algorithm = nnef::item_code::log_quantized;
        h.set_param_float(1, -2.0f);
        t::expect_refused(t::image(h, 12), H::offset_params + 4, "tensor-bad-parameter");
        h.set_param_float(0, -1.0f);
        h.set_param_float(1, 2.0f);
        t::expect_refused(t::image(h, 12), H::offset_params, "tensor-bad-parameter");
        h.set_param_float(0, -2.0f);
        h.bits = 1;
        h.data_length = 1;
        t::expect_refused(t::image(h, 1), H::offset_bits, "tensor-bad-bits");
    }
    {
        // Version, magic, short headers, trailing bytes.
        std::vector<std::uint8_t> b = t::image(t::float32_header({2}), 8);
        b[3] = 1;
        t::expect_refused(b, 3, "tensor-bad-version");
        b[2] = 0;
        t::expect_refused(b, 2, "tensor-bad-version");
        b = t::image(t::float32_header({2}), 8);
        b.resize(50);
        t::expect_refused(b, 50, "tensor-truncated-header");
        b.resize(1);
        t::expect_refused(b, 1, "tensor-truncated-header");
        b[0] = 'X';
        t::expect_refused(b, 0, "tensor-bad-magic");
        b = t::image(t::float32_header({2}), 8 + 3);
        t::expect_refused(b, 136, "tensor-trailing-bytes");
        b.resize(128 + 7);
        t::expect_refused(b, H::offset_data_length, "tensor-truncated-data");
        auto none = nnef::storage::read_tensor_bytes(std::shared_ptr<const std::string>(), "null.dat");
        CHECK(!none);
    }
    {
        // Limits.
        nnef::Limits limits;
        limits.max_rank = 2;
        t::expect_refused(t::image(t::float32_header({1, 2, 3}), 24), H::offset_rank, "limit-exceeded", limits);
        limits = {};
        limits.max_volume = 5;
        t::expect_refused(t::image(t::float32_header({2, 3}), 24), H::offset_extents, "limit-exceeded", limits);
    }
    {
        // Vendor data is opaque, whatever its algorithm code.
        H h = t::float32_header({3});
        h.vendor = 0xFFFF;
        h.algorithm = 0xFFFF;
        h.bits = 7;
        h.data_length = 3;
        const auto b = t::image(h, 3);
        auto r = nnef::storage::read_tensor_bytes(b.data(), b.size(), "vendor.dat");
        REQUIRE(r);
        CHECK((*r)->kind == nnef::ElementKind::opaque);
        CHECK((*r)->dtype == nnef::PrimType::none);
        CHECK(!(*r)->has_values());
    }
}

TEST_CASE("gigantic claimed sizes cause no large allocation") {
    namespace t = tensor_file_test;
    // A header claiming 4 GiB - 4 bytes of float32 data (consistent with its extents), with 64 bytes.
    nnef::TensorHeader h = t::float32_header({0x3FFFFFFFu});
    REQUIRE(h.data_length == 0xFFFFFFFCu);
    const std::vector<std::uint8_t> b = t::image(h, 64);
    constexpr std::size_t bound = 1 << 20;
    {
        alloc_probe::reset();  // the probe sees allocations (the replacement operator new is linked)
        std::vector<std::uint8_t> probe(2 * bound);
        CHECK(alloc_probe::largest() >= probe.size());
    }

    alloc_probe::reset();
    t::expect_refused(b, nnef::TensorHeader::offset_data_length, "tensor-truncated-data");
    CHECK(alloc_probe::largest() < bound);

    const t::fs::path path = t::scratch() / "claims_4gb.dat";
    t::write_bytes(path, b);
    for (bool map : {true, false}) {
        nnef::storage::ReadOptions options;
        options.allow_mmap = map;
        alloc_probe::reset();
        auto r = nnef::storage::read_tensor_file(path.string(), {}, options);
        CHECK(alloc_probe::largest() < bound);
        const nnef::Diagnostic& d = t::the_error(r);
        CHECK(*d.byte_offset == nnef::TensorHeader::offset_data_length);
    }

    // Through a pipe the size is unknown: the buffer grows only with the data that arrives.
    std::vector<std::uint8_t> body = b;
    body.resize(128 + 300000, 0x5A);
    std::size_t largest = 0;
    auto r = t::read_through_pipe(body, &largest);
    CHECK(largest < bound);
    const nnef::Diagnostic& d = t::the_error(r);
    CHECK(*d.byte_offset == nnef::TensorHeader::offset_data_length);
}

TEST_CASE("a valid tensor through a pipe, and through a file with trailing data") {
    namespace t = tensor_file_test;
    auto made = nnef::storage::make_integer_tensor({3, 100000}, std::vector<std::int64_t>(300000, -3), 5, true);
    REQUIRE(made);
    auto image = nnef::storage::encode_tensor(**made);
    REQUIRE(image);
    for (std::size_t extra : {std::size_t(0), std::size_t(1)}) {
        std::vector<std::uint8_t> body = *image;
        body.resize(body.size() + extra, 0);
        auto r = t::read_through_pipe(body);
        if (extra == 0) {
            REQUIRE(r);
            CHECK((*r)->as_int64(299999) == -3);
            CHECK((*r)->bytes.to_vector() == (*made)->bytes.to_vector());
        } else {
            CHECK(*t::the_error(r).byte_offset == image->size());
        }
    }
    auto missing = nnef::storage::read_tensor_file((t::scratch() / "does_not_exist.dat").string());
    REQUIRE(!missing);
    CHECK(missing.diagnostics.list().front().stage == nnef::Stage::io);
    CHECK(!nnef::storage::read_tensor_file(t::scratch().string()));
}

TEST_CASE("float32 files are memory-mapped and stay valid after the file is gone") {
    namespace t = tensor_file_test;
    // 100k values, 400 KB: above ReadOptions::map_from (smaller data is read: see below).
    std::vector<float> values(100000);
    for (std::size_t i = 0; i < values.size(); ++i) values[i] = float(i) * 0.5f - 3.0f;
    REQUIRE(values.size() * sizeof(float) >= nnef::storage::ReadOptions{}.map_from);
    auto made = nnef::storage::make_float_tensor({100, 1000}, values);
    REQUIRE(made);
    const t::fs::path path = t::scratch() / "mapped.dat";
    REQUIRE(nnef::storage::write_tensor_file(path.string(), **made));

    nnef::storage::TensorDataPtr kept;
    {
        auto r = nnef::storage::read_tensor_file(path.string());
        REQUIRE(r);
        kept = *r;
    }
    t::fs::remove(path);
    CHECK(kept->bytes.mapped());
    CHECK(!kept->bytes.owned());
    const float* f = kept->float32_data();
    REQUIRE(f != nullptr);
    CHECK(f[0] == -3.0f);
    CHECK(f[999] == values[999]);
    const std::vector<double> all = kept->to_doubles();
    CHECK(all[500] == double(values[500]));

    // Copies share the mapping.
    nnef::TensorData copy = *kept;
    kept.reset();
    CHECK(copy.as_double(1) == double(values[1]));

    // Small float32 data is read into memory (cheaper than a mapping), unless map_from says otherwise.
    auto small = nnef::storage::make_float_tensor({10, 100}, std::vector<float>(values.begin(), values.begin() + 1000));
    REQUIRE(small);
    REQUIRE(nnef::storage::write_tensor_file(path.string(), **small));
    {
        auto read = nnef::storage::read_tensor_file(path.string());
        REQUIRE(read);
        CHECK(!(*read)->bytes.mapped());
        CHECK((*read)->bytes.owned());
        REQUIRE((*read)->float32_data() != nullptr);
        CHECK((*read)->float32_data()[999] == values[999]);
        nnef::storage::ReadOptions map_all;
        map_all.map_from = 0;
        auto mapped = nnef::storage::read_tensor_file(path.string(), {}, map_all);
        REQUIRE(mapped);
        CHECK((*mapped)->bytes.mapped());
        CHECK((*mapped)->float32_data()[999] == values[999]);
    }

    // Other codes are read into memory.
    auto ints = nnef::storage::make_integer_tensor({4}, {1, 2, 3, 4}, 32, true);
    REQUIRE(ints);
    REQUIRE(nnef::storage::write_tensor_file(path.string(), **ints));
    auto r = nnef::storage::read_tensor_file(path.string());
    REQUIRE(r);
    CHECK(!(*r)->bytes.mapped());
    CHECK((*r)->bytes.owned());
    CHECK((*r)->float32_data() == nullptr);
}

TEST_CASE("encode_tensor refuses inconsistent tensors") {
    auto made = nnef::storage::make_float_tensor({2}, std::vector<float>{1.0f, 2.0f});
    REQUIRE(made);
    nnef::TensorData broken = **made;
    broken.bytes = nnef::ByteView(std::vector<std::uint8_t>(7, 0));
    auto e = nnef::storage::encode_tensor(broken);
    CHECK(!e);
    CHECK(e.diagnostics.list().front().code == "tensor-bad-data-length");
    broken = **made;
    broken.header.rank = 9;
    CHECK(!nnef::storage::encode_tensor(broken));
    CHECK(!nnef::storage::write_tensor_file("/nonexistent-dir/x.dat", **made));
}

}  // TEST_SUITE
