// The MLIR reader's syntax: the cursor, types, attributes and constants (mlir_read_syntax.hpp).
#include "lowering/tosa/mlir_read_syntax.hpp"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <new>

#include "lowering/tosa/interpreter.hpp"
#include "lowering/tosa/mlir.hpp"

namespace nnef::tosa::mlir_read {

namespace {

bool id_start(char ch) { return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || ch == '_'; }
bool digit(char ch) { return ch >= '0' && ch <= '9'; }
bool id_char(char ch) { return id_start(ch) || digit(ch) || ch == '$' || ch == '.'; }
int hex_value(char ch) {
    if (ch >= '0' && ch <= '9') return ch - '0';
    if (ch >= 'a' && ch <= 'f') return ch - 'a' + 10;
    if (ch >= 'A' && ch <= 'F') return ch - 'A' + 10;
    return -1;
}

}  // namespace

void Cursor::ws() {
    while (p < text.size()) {
        const char ch = text[p];
        if (ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r') {
            ++p;
        } else if (ch == '/' && p + 1 < text.size() && text[p + 1] == '/') {
            while (p < text.size() && text[p] != '\n') ++p;
        } else {
            break;
        }
    }
}

bool Cursor::eat(char c) {
    if (peek() != c) return false;
    ++p;
    return true;
}

bool Cursor::eat(std::string_view s) {
    ws();
    if (text.substr(p, s.size()) != s) return false;
    p += s.size();
    return true;
}

bool Cursor::eat_word(std::string_view w) {
    ws();
    if (text.substr(p, w.size()) != w) return false;
    if (p + w.size() < text.size() && id_char(text[p + w.size()])) return false;
    p += w.size();
    return true;
}

void Cursor::expect(char ch, const char* where) {
    if (eat(ch)) return;
    if (p >= text.size()) fail(std::string("the text ends where '") + ch + "' is expected " + where);
    fail(std::string("expected '") + ch + "' " + where);
}

void Cursor::expect(std::string_view s, const char* where) {
    if (eat(s)) return;
    if (p >= text.size()) fail("the text ends where '" + std::string(s) + "' is expected " + where);
    fail("expected '" + std::string(s) + "' " + where);
}

std::string_view Cursor::bare_id(const char* what) {
    ws();
    if (p >= text.size() || !id_start(text[p])) fail(std::string("expected ") + what);
    const std::size_t b = p;
    while (p < text.size() && id_char(text[p])) ++p;
    if (p - b > opt.limits.max_string_length) fail_at(b, "identifier exceeds limit max_string_length");
    return text.substr(b, p - b);
}

std::string_view Cursor::suffix_id(const char* what) {
    const std::size_t b = p;
    while (p < text.size() && (id_char(text[p]) || text[p] == '-')) ++p;
    if (p == b) fail(std::string("expected ") + what);
    if (p - b > opt.limits.max_string_length) fail_at(b, "name exceeds limit max_string_length");
    return text.substr(b, p - b);
}

std::string_view Cursor::raw_string() {
    ws();
    if (p >= text.size() || text[p] != '"') fail("expected a string");
    const std::size_t b = ++p;
    while (p < text.size() && text[p] != '"') {
        if (text[p] == '\\') ++p;
        if (p < text.size() && text[p] == '\n') fail("a string does not end on its line");
        ++p;
    }
    if (p >= text.size()) fail_at(b - 1, "the string does not end");
    return text.substr(b, p++ - b);
}

std::string Cursor::string_literal() {
    const std::size_t b = p;
    const std::string_view raw = raw_string();
    if (raw.size() > opt.limits.max_string_length) fail_at(b, "string exceeds limit max_string_length");
    std::string out;
    for (std::size_t i = 0; i < raw.size(); ++i) {
        if (raw[i] != '\\') {
            out += raw[i];
            continue;
        }
        const char e = i + 1 < raw.size() ? raw[i + 1] : '\0';
        ++i;
        if (e == 'n') out += '\n';
        else if (e == 't') out += '\t';
        else if (e == '"' || e == '\\') out += e;
        else if (hex_value(e) >= 0 && i + 1 < raw.size() && hex_value(raw[i + 1]) >= 0) {
            out += static_cast<char>(hex_value(e) * 16 + hex_value(raw[i + 1]));
            ++i;
        } else {
            fail_at(b + 1 + i, "unknown escape in a string");
        }
    }
    return out;
}

std::string Cursor::symbol() {
    if (!eat('@')) fail("expected a symbol (@name)");
    if (p < text.size() && text[p] == '"') return string_literal();
    return std::string(suffix_id("a symbol name"));
}

void Cursor::skip_balanced(char open, char close) {
    const std::size_t b = p;
    std::size_t depth = 0;
    while (p < text.size()) {
        const char ch = text[p];
        if (ch == '"') {
            raw_string();
            continue;
        }
        if (ch == open) {
            check_nesting(++depth);
        } else if (ch == close && !(close == '>' && p > 0 && text[p - 1] == '-')) {
            if (--depth == 0) {
                ++p;
                return;
            }
        }
        ++p;
    }
    fail_at(b, std::string("no '") + close + "' closes this '" + open + "'");
}

void Cursor::skip_location() {
    if (!eat_word("loc")) return;
    if (peek() != '(') fail("expected '(' after loc");
    skip_balanced('(', ')');
}

void Cursor::check_nesting(std::size_t depth) const {
    if (depth > opt.limits.max_nesting)
        fail("nesting exceeds limit max_nesting (" + std::to_string(opt.limits.max_nesting) + ")");
}

std::optional<Cursor::Number> Cursor::number() {
    ws();
    Number n;
    n.at = p;
    std::size_t q = p;
    if (q < text.size() && (text[q] == '-' || text[q] == '+')) ++q;
    if (q >= text.size() || !digit(text[q])) return std::nullopt;
    if (text[q] == '0' && q + 1 < text.size() && text[q + 1] == 'x') {
        q += 2;
        const std::size_t d = q;
        while (q < text.size() && hex_value(text[q]) >= 0) ++q;
        if (q == d) fail_at(d, "expected hexadecimal digits after 0x");
        n.is_hex = true;
    } else {
        while (q < text.size() && digit(text[q])) ++q;
        if (q < text.size() && text[q] == '.') {
            n.is_float = true;
            ++q;
            while (q < text.size() && digit(text[q])) ++q;
        }
        if (q < text.size() && (text[q] == 'e' || text[q] == 'E')) {
            std::size_t e = q + 1;
            if (e < text.size() && (text[e] == '+' || text[e] == '-')) ++e;
            if (e < text.size() && digit(text[e])) {
                n.is_float = true;
                q = e;
                while (q < text.size() && digit(text[q])) ++q;
            }
        }
    }
    if (q - p > 400) fail_at(p, "a number of more than 400 characters");
    n.text = text.substr(p, q - p);
    p = q;
    return n;
}

std::int64_t Cursor::to_int(const Number& n) {
    if (n.is_float) fail_at(n.at, "expected an integer, not " + std::string(n.text));
    const bool neg = n.text[0] == '-';
    std::string_view t = n.text.substr(n.text[0] == '-' || n.text[0] == '+' ? 1 : 0);
    std::uint64_t v = 0;
    const bool hex = n.is_hex;
    for (char ch : t.substr(hex ? 2 : 0)) {
        const std::uint64_t d = static_cast<std::uint64_t>(hex ? hex_value(ch) : ch - '0');
        const std::uint64_t base = hex ? 16 : 10;
        if (v > (std::numeric_limits<std::uint64_t>::max() - d) / base) fail_at(n.at, std::string(n.text) + " does not fit 64 bits");
        v = v * base + d;
    }
    if (hex) return static_cast<std::int64_t>(v);  // a bit pattern
    if (neg ? v > std::uint64_t(1) << 63 : v > std::uint64_t(std::numeric_limits<std::int64_t>::max()))
        fail_at(n.at, std::string(n.text) + " does not fit 64 bits");
    return neg ? static_cast<std::int64_t>(0 - v) : static_cast<std::int64_t>(v);
}

// ---- types ------------------------------------------------------------------------------------

std::optional<DType> element_type(std::string_view name) {
    if (name == "i1") return DType::bool_;
    if (name == "i8") return DType::i8;
    if (name == "i16") return DType::i16;
    if (name == "i32") return DType::i32;
    if (name == "i48") return DType::i48;
    if (name == "f16") return DType::fp16;
    if (name == "bf16") return DType::bf16;
    if (name == "f32") return DType::fp32;
    if (name == "index") return DType::shape;
    return std::nullopt;
}

DType parse_element_type(Cursor& c) {
    const std::size_t at = (c.ws(), c.p);
    const std::string_view name = c.bare_id("an element type");
    if (auto t = element_type(name)) return *t;
    Cursor::fail_at(at, "element type '" + std::string(name) +
                            "' is not one of TOSA 1.0's (i1, i8, i16, i32, i48, f16, bf16, f32)");
}

TensorType parse_value_type(Cursor& c, bool index_items) {
    const std::size_t at = (c.ws(), c.p);
    if (c.eat("!tosa.shape")) {
        c.expect('<', "after !tosa.shape");
        const auto n = c.number();
        if (!n || n->is_float || n->text[0] == '-') c.fail("expected the rank of a !tosa.shape");
        const std::int64_t r = Cursor::to_int(*n);
        if (static_cast<std::uint64_t>(r) > c.opt.limits.max_rank)
            Cursor::fail_at(n->at, "!tosa.shape rank " + std::string(n->text) + " exceeds limit max_rank (" +
                                       std::to_string(c.opt.limits.max_rank) + ")");
        c.expect('>', "after the rank of a !tosa.shape");
        return {DType::shape, {r}};
    }
    if (!c.eat_word("tensor")) {
        if (c.p < c.text.size() && (c.text[c.p] == '!' || c.text[c.p] == 'm' || c.text[c.p] == 'v' || c.text[c.p] == 'i' ||
                                    c.text[c.p] == 'f'))
            c.fail("expected a tensor type (tensor<...>) or !tosa.shape<N>: TOSA values are tensors");
        c.fail("expected a type");
    }
    if (c.p >= c.text.size() || c.text[c.p] != '<') c.fail("expected '<' after tensor");
    ++c.p;
    TensorType t;
    std::uint64_t volume = 1;
    for (;;) {
        c.ws();
        if (c.p < c.text.size() && (c.text[c.p] == '?' || c.text[c.p] == '*'))
            c.fail("a dynamic or unranked dimension: TOSA graphs here need static shapes");
        if (c.p >= c.text.size() || !digit(c.text[c.p])) break;
        const std::size_t b = c.p;
        std::uint64_t e = 0;
        while (c.p < c.text.size() && digit(c.text[c.p])) {
            e = e * 10 + static_cast<std::uint64_t>(c.text[c.p++] - '0');
            if (e > c.opt.limits.max_volume) Cursor::fail_at(b, "dimension exceeds limit max_volume (" + std::to_string(c.opt.limits.max_volume) + ")");
        }
        if (c.p >= c.text.size() || c.text[c.p] != 'x') c.fail("expected 'x' after a dimension");
        ++c.p;
        t.shape.push_back(static_cast<std::int64_t>(e));
        if (t.shape.size() > c.opt.limits.max_rank)
            Cursor::fail_at(at, "rank exceeds limit max_rank (" + std::to_string(c.opt.limits.max_rank) + ")");
        volume = e == 0 ? 0 : (volume > c.opt.limits.max_volume / e ? c.opt.limits.max_volume + 1 : volume * e);
        if (volume > c.opt.limits.max_volume)
            Cursor::fail_at(at, "tensor volume exceeds limit max_volume (" + std::to_string(c.opt.limits.max_volume) + ")");
    }
    t.dtype = parse_element_type(c);
    if (t.dtype == DType::shape && !index_items) Cursor::fail_at(at, "a tensor of index is not a TOSA value type");
    if (c.peek() == ',') c.fail("tensor encodings are not read (a TOSA tensor has none)");
    c.expect('>', "to end the tensor type");
    return t;
}

std::vector<TensorType> parse_type_list(Cursor& c) {
    std::vector<TensorType> out;
    if (!c.eat('(')) {
        out.push_back(parse_value_type(c));
        return out;
    }
    if (c.eat(')')) return out;
    do out.push_back(parse_value_type(c));
    while (c.eat(','));
    c.expect(')', "to end the type list");
    return out;
}

std::string type_text(const TensorType& t) { return mlir_type(t); }

// ---- constants --------------------------------------------------------------------------------

namespace {

std::uint64_t item_count(const TensorType& t) { return static_cast<std::uint64_t>(t.volume()); }

std::shared_ptr<ConstData> allocate(const TensorType& t, std::size_t at) {
    try {
        return ConstData::allocate(t);
    } catch (const std::bad_alloc&) {
        Cursor::fail_at(at, "no memory for a constant of type " + type_text(t));
    }
}

// Item i of c from `bits`, the item's bit pattern (little-endian bytes as written).
void set_bits(ConstData& c, std::size_t i, std::uint64_t bits) {
    switch (c.type.dtype) {
        case DType::bool_: c.mutable_items<std::uint8_t>()[i] = bits != 0; break;
        case DType::i8: c.mutable_items<std::int8_t>()[i] = static_cast<std::int8_t>(bits); break;
        case DType::i16:
        case DType::fp16:
        case DType::bf16: c.mutable_items<std::uint16_t>()[i] = static_cast<std::uint16_t>(bits); break;
        case DType::i32:
        case DType::fp32: c.mutable_items<std::uint32_t>()[i] = static_cast<std::uint32_t>(bits); break;
        case DType::i48: {  // sign-extended from 48 bits
            const std::uint64_t v = bits & ((std::uint64_t(1) << 48) - 1);
            c.mutable_items<std::int64_t>()[i] = static_cast<std::int64_t>(v ^ (std::uint64_t(1) << 47)) - (std::int64_t(1) << 47);
            break;
        }
        case DType::shape: c.mutable_items<std::int64_t>()[i] = static_cast<std::int64_t>(bits); break;
        case DType::none: break;
    }
}

// Bytes of one item in hexadecimal data: i48 as its six bytes, shape (index) items eight; bool
// (packed bits) 0.
std::size_t hex_bytes(DType t) { return t == DType::bool_ ? 0 : t == DType::i48 ? 6 : storage_bytes(t); }

std::uint64_t read_le(const char* hex, std::size_t bytes) {
    std::uint64_t v = 0;
    for (std::size_t b = 0; b < bytes; ++b)
        v |= static_cast<std::uint64_t>(hex_value(hex[2 * b]) * 16 + hex_value(hex[2 * b + 1])) << (8 * b);
    return v;
}

void check_hex(std::string_view digits, std::size_t at) {
    for (std::size_t i = 0; i < digits.size(); ++i)
        if (hex_value(digits[i]) < 0) Cursor::fail_at(at + i, "not a hexadecimal digit in constant data");
    if (digits.size() % 2) Cursor::fail_at(at, "hexadecimal constant data of an odd number of digits");
}

void check_splat(const Cursor& c, const TensorType& t, std::size_t at) {
    const std::uint64_t bytes = item_count(t) * storage_bytes(t.dtype);
    if (bytes > c.opt.max_splat_bytes)
        Cursor::fail_at(at, "splat constant of type " + type_text(t) + " (" + std::to_string(bytes) + " bytes) exceeds limit max_splat_bytes (" +
                                std::to_string(c.opt.max_splat_bytes) + ")");
}

// dense<"0x..."> items: each hex_bytes wide (bool: packed bits), or one item (a splat).
ConstPtr decode_hex(Cursor& c, std::string_view hex, const TensorType& t, std::size_t at) {
    if (hex.size() < 2 || hex[0] != '0' || (hex[1] != 'x' && hex[1] != 'X'))
        Cursor::fail_at(at, "dense string data must be hexadecimal (\"0x...\")");
    const std::string_view digits = hex.substr(2);
    check_hex(digits, at + 2);
    const std::uint64_t n = item_count(t), bytes = digits.size() / 2;
    if (t.dtype == DType::bool_) {
        const std::uint64_t packed = (n + 7) / 8;
        if (bytes != packed && bytes != 1)
            Cursor::fail_at(at, "i1 hexadecimal data of " + std::to_string(bytes) + " bytes for " + type_text(t) + " (" +
                                    std::to_string(packed) + " bytes of packed bits, or 1 for a splat)");
        if (bytes != packed) check_splat(c, t, at);
        auto d = allocate(t, at);
        for (std::uint64_t i = 0; i < n; ++i) {
            const std::uint64_t byte = bytes == packed ? i / 8 : 0;
            const unsigned v = static_cast<unsigned>(read_le(digits.data() + 2 * byte, 1));
            set_bits(*d, i, bytes == packed ? (v >> (i % 8)) & 1 : v != 0);
        }
        return d;
    }
    const std::size_t w = hex_bytes(t.dtype);
    if (bytes != n * w && bytes != w)
        Cursor::fail_at(at, "hexadecimal data of " + std::to_string(bytes) + " bytes for " + type_text(t) + " (" + std::to_string(n * w) +
                                " bytes, " + std::to_string(w) + " per item, or " + std::to_string(w) + " for a splat)");
    if (bytes != n * w) check_splat(c, t, at);
    auto d = allocate(t, at);
    const bool splat = bytes != n * w;
    const std::uint64_t first = read_le(digits.data(), w);
    for (std::uint64_t i = 0; i < n; ++i) set_bits(*d, i, splat ? first : read_le(digits.data() + 2 * w * i, w));
    return d;
}

// One literal item (a number, true, false) into item i of d.
void set_literal(Cursor& c, ConstData& d, std::size_t i) {
    const DType t = d.type.dtype;
    if (c.eat_word("true") || c.eat_word("false")) {
        if (t != DType::bool_) c.fail("true / false in a constant of " + std::string(to_string(t)));
        set_bits(d, i, c.text[c.p - 1] == 'e' && c.text[c.p - 2] == 'u');
        return;
    }
    const auto n = c.number();
    if (!n) c.fail("expected a number in constant data");
    if (n->is_hex) {
        const int bits = t == DType::fp32 ? 32 : t == DType::fp16 || t == DType::bf16 ? 16 : 64;
        const std::int64_t v = Cursor::to_int(*n);
        if (bits < 64 && static_cast<std::uint64_t>(v) >> bits) Cursor::fail_at(n->at, std::string(n->text) + " has more bits than the item");
        set_bits(d, i, static_cast<std::uint64_t>(v));
        return;
    }
    if (is_float(t)) {
        const std::string s(n->text);
        errno = 0;
        if (t == DType::fp32) {
            const float f = std::strtof(s.c_str(), nullptr);
            std::uint32_t b;
            std::memcpy(&b, &f, 4);
            set_bits(d, i, b);
        } else {
            const double v = std::strtod(s.c_str(), nullptr);
            set_bits(d, i, t == DType::fp16 ? fp64_to_fp16(v) : fp64_to_bf16(v));
        }
        return;
    }
    const std::int64_t v = Cursor::to_int(*n);
    const int bits = t == DType::bool_ ? 1 : t == DType::shape ? 64 : integer_bits(t);
    if (bits < 64) {
        // Signless: from the signed minimum up to the unsigned maximum (MLIR's rule).
        const std::int64_t lo = t == DType::bool_ ? 0 : -(std::int64_t(1) << (bits - 1)), hi = (std::int64_t(1) << bits) - 1;
        if (v < lo || v > hi) Cursor::fail_at(n->at, std::string(n->text) + " does not fit " + std::string(to_string(t)));
    }
    set_bits(d, i, static_cast<std::uint64_t>(v));
}

// Nested lists `[[...], ...]` of the shape of d from dimension `dim`.
void read_list(Cursor& c, ConstData& d, std::size_t dim, std::size_t& index) {
    c.check_nesting(dim + 1);
    const std::int64_t extent = d.type.shape[dim];
    c.expect('[', "to begin a list of constant items");
    for (std::int64_t k = 0; k < extent; ++k) {
        if (k) c.expect(',', "between constant items");
        if (dim + 1 < d.type.shape.size()) read_list(c, d, dim + 1, index);
        else set_literal(c, d, index++);
    }
    if (c.peek() == ',') c.fail("more items than the dimension's " + std::to_string(extent));
    c.expect(']', "to end a list of constant items");
}

ConstPtr decode_dense(Cursor& c, std::size_t payload, const TensorType& t) {
    const std::size_t resume = c.p;
    c.p = payload;
    c.ws();
    ConstPtr out;
    if (c.peek() == '"') {
        const std::size_t at = c.p + 1;
        out = decode_hex(c, c.raw_string(), t, at);
    } else if (c.peek() == '>') {
        if (item_count(t) != 0) c.fail("dense<> holds no items, the type " + type_text(t) + " has " + std::to_string(item_count(t)));
        out = allocate(t, payload);
    } else if (c.peek() == '[') {
        if (t.shape.empty()) c.fail("a list of items for a tensor of rank 0");
        auto d = allocate(t, payload);
        std::size_t index = 0;
        read_list(c, *d, 0, index);
        out = d;
    } else {  // one literal: a splat
        check_splat(c, t, payload);
        auto d = allocate(t, payload);
        set_literal(c, *d, 0);
        for (std::uint64_t i = 1; i < item_count(t); ++i)
            std::memcpy(static_cast<char*>(const_cast<void*>(d->data)) + i * storage_bytes(t.dtype), d->data, storage_bytes(t.dtype));
        out = d;
    }
    c.expect('>', "to end dense<...>");
    c.p = resume;
    return out;
}

}  // namespace

ConstPtr decode_blob(std::string_view hex, const TensorType& t, std::size_t at) {
    if (hex.size() < 10 || hex[0] != '0' || (hex[1] != 'x' && hex[1] != 'X'))
        Cursor::fail_at(at, "a resource blob is \"0x\" then an alignment of 4 bytes, then the data");
    const std::string_view digits = hex.substr(10);
    check_hex(hex.substr(2), at + 2);
    const std::uint64_t n = item_count(t), bytes = digits.size() / 2;
    const std::size_t w = t.dtype == DType::bool_ ? 1 : hex_bytes(t.dtype);
    if (w == 0 || bytes != n * w)
        Cursor::fail_at(at, "resource blob of " + std::to_string(bytes) + " bytes for " + type_text(t) + " (" + std::to_string(n * w) + " bytes)");
    auto d = allocate(t, at);
    for (std::uint64_t i = 0; i < n; ++i) set_bits(*d, i, read_le(digits.data() + 2 * w * i, w));
    return d;
}

// ---- attributes -------------------------------------------------------------------------------

const AttrNode* AttrNode::find(std::string_view key) const {
    for (const auto& [k, v] : entries)
        if (k == key) return &v;
    return nullptr;
}

std::vector<std::pair<std::string, AttrNode>> parse_dict_entries(Cursor& c, std::size_t depth) {
    c.check_nesting(depth);
    std::vector<std::pair<std::string, AttrNode>> out;
    if (c.eat('}')) return out;
    do {
        c.ws();
        std::string key = c.peek() == '"' ? c.string_literal() : std::string(c.bare_id("an attribute name"));
        AttrNode v;
        v.at = c.p;
        if (c.eat('=')) v = parse_attr(c, depth + 1);
        else v.kind = AttrNode::unit;
        out.emplace_back(std::move(key), std::move(v));
    } while (c.eat(','));
    c.expect('}', "to end the attribute dictionary");
    return out;
}

AttrNode parse_attr(Cursor& c, std::size_t depth) {
    c.check_nesting(depth);
    AttrNode a;
    a.at = (c.ws(), c.p);
    if (c.p >= c.text.size()) c.fail("the text ends where an attribute is expected");
    const char ch = c.text[c.p];
    if (ch == '"') {
        a.kind = AttrNode::string;
        a.str = c.string_literal();
        return a;
    }
    if (ch == '@') {
        a.kind = AttrNode::symbol;
        a.str = c.symbol();
        return a;
    }
    if (ch == '[') {
        ++c.p;
        a.kind = AttrNode::list;
        if (c.eat(']')) return a;
        do a.items.push_back(parse_attr(c, depth + 1));
        while (c.eat(','));
        c.expect(']', "to end the attribute list");
        return a;
    }
    if (ch == '{') {
        ++c.p;
        a.kind = AttrNode::dict;
        a.entries = parse_dict_entries(c, depth + 1);
        return a;
    }
    if (ch == '(') {  // a function type
        a.kind = AttrNode::function;
        a.inputs = parse_type_list(c);
        c.expect("->", "in a function type");
        a.results = parse_type_list(c);
        return a;
    }
    if (ch == '#') {
        ++c.p;
        const std::string_view name = c.bare_id("an attribute name after #");
        a.kind = AttrNode::dialect;
        a.str = std::string(name);
        if (c.p < c.text.size() && c.text[c.p] == '<') {
            const std::size_t b = c.p;
            c.skip_balanced('<', '>');
            a.inner = std::string(c.text.substr(b + 1, c.p - b - 2));
        }
        return a;
    }
    if (auto n = c.number()) {
        a.kind = n->is_hex ? AttrNode::hex : n->is_float ? AttrNode::floating : AttrNode::integer;
        a.number = *n;
        if (c.eat(':')) a.number_type = parse_element_type(c);
        return a;
    }
    if (c.eat_word("true") || c.eat_word("false")) {
        a.kind = AttrNode::boolean;
        a.value = c.text[c.p - 1] == 'e' && c.text[c.p - 2] == 'u';
        return a;
    }
    if (c.eat_word("unit")) {
        a.kind = AttrNode::unit;
        return a;
    }
    if (c.eat_word("array")) {
        a.kind = AttrNode::array;
        c.expect('<', "after array");
        const std::size_t et = (c.ws(), c.p);
        const std::string_view e = c.bare_id("the element type of array<...>");
        if (e != "i64" && e != "i32" && e != "i16" && e != "i8" && e != "i1")
            Cursor::fail_at(et, "array<" + std::string(e) + ": ...>: only integer arrays are read");
        if (c.eat(':')) {
            do {
                c.ws();
                if (c.eat_word("true") || c.eat_word("false")) {
                    a.ints.push_back(c.text[c.p - 1] == 'e' && c.text[c.p - 2] == 'u');
                    continue;
                }
                const auto n = c.number();
                if (!n) c.fail("expected an integer in array<...>");
                a.ints.push_back(Cursor::to_int(*n));
                if (a.ints.size() > c.opt.limits.max_value_items) c.fail("array exceeds limit max_value_items");
            } while (c.eat(','));
        }
        c.expect('>', "to end array<...>");
        return a;
    }
    if (c.eat_word("dense_resource")) {
        a.kind = AttrNode::resource;
        c.expect('<', "after dense_resource");
        c.ws();
        a.str = std::string(c.suffix_id("a resource name"));
        c.expect('>', "to end dense_resource<...>");
        c.expect(':', "after dense_resource<...> (its type)");
        a.type = parse_value_type(c);
        return a;
    }
    if (c.eat_word("dense")) {
        a.kind = AttrNode::dense;
        if (c.p >= c.text.size() || c.text[c.p] != '<') c.fail("expected '<' after dense");
        const std::size_t payload = c.p + 1;
        c.skip_balanced('<', '>');
        c.expect(':', "after dense<...> (its type)");
        a.type = parse_value_type(c, true);
        a.data = decode_dense(c, payload, a.type);
        return a;
    }
    // A type as an attribute (acc_type = f32, type = i8, a tensor type).
    if (ch == 't' && c.text.substr(c.p, 7) == "tensor<") {
        a.kind = AttrNode::type_value;
        a.type = parse_value_type(c);
        return a;
    }
    if (id_start(ch)) {
        const std::size_t b = c.p;
        const std::string_view id = c.bare_id("an attribute");
        if (auto t = element_type(id)) {
            a.kind = AttrNode::type_value;
            a.type = {*t, {}};
            return a;
        }
        // A bare keyword: an enumeration's case as the pretty form prints it (nan_mode = IGNORE).
        a.kind = AttrNode::dialect;
        a.inner = std::string(id);
        (void)b;
        return a;
    }
    if (ch == '!') c.fail("dialect types are not read here (only !tosa.shape<N> as a value type)");
    c.fail("expected an attribute value");
}

}  // namespace nnef::tosa::mlir_read
