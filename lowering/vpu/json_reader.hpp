// Strict reading of the VPU JSON files (target, task list) with nlohmann-json: every field is
// looked up by name, unknown fields and wrong types are errors naming the field (as a JSON
// pointer) and what was expected. Internal to lowering/vpu: reading code throws JsonReadError,
// and the public entry points turn it into a Diagnostic (library calls never throw).
#pragma once
#include <cmath>
#include <cstdio>
#include <cstdint>
#include <limits>
#include <set>
#include <stdexcept>
#include <string>
#include <utility>

#include <nlohmann/json.hpp>

#include "lowering/json_parse_error.hpp"

namespace nnef::vpu::json_read {

struct JsonReadError : std::runtime_error {
    std::string pointer;  // JSON pointer of the offending field, e.g. "/tasks/3/queue"
    JsonReadError(std::string pointer_, const std::string& what) : std::runtime_error(what), pointer(std::move(pointer_)) {}
};

// "a string \"x\"", "the number 3.5", "an object", ... (for "expected ..., got ...").
inline std::string describe(const nlohmann::json& j) {
    switch (j.type()) {
        case nlohmann::json::value_t::null: return "null";
        case nlohmann::json::value_t::boolean: return j.get<bool>() ? "true" : "false";
        case nlohmann::json::value_t::string: {
            std::string s = j.get<std::string>();
            if (s.size() > 40) s = s.substr(0, 40) + "...";
            return "the string " + nlohmann::json(s).dump();
        }
        case nlohmann::json::value_t::number_integer:
        case nlohmann::json::value_t::number_unsigned:
        case nlohmann::json::value_t::number_float: return "the number " + j.dump();
        case nlohmann::json::value_t::object: return "an object";
        case nlohmann::json::value_t::array: return "an array";
        default: return "a value of another kind";
    }
}

// A view of one JSON value with its pointer, for reading fields by name.
class Node {
public:
    Node(const nlohmann::json& j, std::string pointer) : j_(&j), pointer_(std::move(pointer)) {}

    const nlohmann::json& json() const { return *j_; }
    const std::string& pointer() const { return pointer_; }

    [[noreturn]] void fail(const std::string& expected) const {
        throw JsonReadError(pointer_, "expected " + expected + ", got " + describe(*j_));
    }
    [[noreturn]] void fail_message(const std::string& message) const { throw JsonReadError(pointer_, message); }

    // Object access: require an object whose every key is in `allowed`.
    void expect_object(std::initializer_list<const char*> allowed) const {
        if (!j_->is_object()) fail("an object");
        for (auto it = j_->begin(); it != j_->end(); ++it) {
            bool ok = false;
            for (const char* a : allowed)
                if (it.key() == a) ok = true;
            if (!ok) {
                std::string list;
                for (const char* a : allowed) list += std::string(list.empty() ? "" : ", ") + a;
                throw JsonReadError(pointer_ + "/" + it.key(), "unknown field '" + it.key() + "' (expected one of: " + list + ")");
            }
        }
    }
    bool has(const char* key) const { return j_->is_object() && j_->contains(key); }
    Node field(const std::string& key) const {
        if (!j_->is_object() || !j_->contains(key))
            throw JsonReadError(pointer_ + "/" + key, "missing field '" + key + "'");
        return Node((*j_)[key], pointer_ + "/" + key);
    }
    std::size_t size() const {
        if (!j_->is_array()) fail("an array");
        return j_->size();
    }
    Node at(std::size_t i) const { return Node((*j_)[i], pointer_ + "/" + std::to_string(i)); }

    // Scalars.
    std::string string() const {
        if (!j_->is_string()) fail("a string");
        return j_->get<std::string>();
    }
    bool boolean() const {
        if (!j_->is_boolean()) fail("true or false");
        return j_->get<bool>();
    }
    std::int64_t integer(std::int64_t lo = std::numeric_limits<std::int64_t>::min(),
                         std::int64_t hi = std::numeric_limits<std::int64_t>::max()) const {
        std::int64_t v = 0;
        if (j_->is_number_integer() && !j_->is_number_unsigned()) v = j_->get<std::int64_t>();
        else if (j_->is_number_unsigned() && j_->get<std::uint64_t>() <= std::uint64_t(std::numeric_limits<std::int64_t>::max()))
            v = static_cast<std::int64_t>(j_->get<std::uint64_t>());
        else if (j_->is_number_float() && std::floor(j_->get<double>()) == j_->get<double>() &&
                 std::fabs(j_->get<double>()) < 9.0e15)
            v = static_cast<std::int64_t>(j_->get<double>());
        else fail(range_text("an integer", lo, hi));
        if (v < lo || v > hi) fail(range_text("an integer", lo, hi));
        return v;
    }
    double number(double lo = -std::numeric_limits<double>::infinity(), bool lo_open = false) const {
        if (!j_->is_number()) fail(lo == -std::numeric_limits<double>::infinity() ? "a number" : number_text(lo, lo_open));
        const double v = j_->get<double>();
        if (!std::isfinite(v) || v < lo || (lo_open && v == lo)) fail(number_text(lo, lo_open));
        return v;
    }

private:
    static std::string range_text(const std::string& what, std::int64_t lo, std::int64_t hi) {
        // Limits from 2^50 on only guard the arithmetic: not worth stating.
        const std::int64_t huge = std::int64_t(1) << 50;
        if (lo <= -huge && hi >= huge) return what;
        if (hi >= huge) return what + " >= " + std::to_string(lo);
        if (lo <= -huge) return what + " <= " + std::to_string(hi);
        return what + " in [" + std::to_string(lo) + ", " + std::to_string(hi) + "]";
    }
    static std::string number_text(double lo, bool open) {
        char buf[32];
        std::snprintf(buf, sizeof buf, "%g", lo);
        const std::string s = buf;
        return std::string("a number ") + (open ? "> " : ">= ") + s;
    }

    const nlohmann::json* j_;
    std::string pointer_;
};

// Parses text; a syntax error becomes a JsonReadError whose message gives line and column. With
// `comments`, // and /* */ comments are skipped.
inline nlohmann::json parse_text(const std::string& text, bool comments = false) {
    try {
        return nlohmann::json::parse(text, nullptr, true, comments);
    } catch (const nlohmann::json::exception& e) {  // a syntax error, or a number that overflows (out_of_range 406)
        const JsonParseErrorPlace p = json_exception_place(e, text);
        throw JsonReadError("", "malformed JSON at line " + std::to_string(p.line) + ", column " + std::to_string(p.column) +
                                    ": " + p.detail);
    }
}

}  // namespace nnef::vpu::json_read
