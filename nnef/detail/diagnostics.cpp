#include <nnef/diagnostics.hpp>

#include <cstdio>
#include <sstream>
#include <unordered_map>

namespace nnef {

const char* to_string(Severity s) {
    switch (s) {
        case Severity::error: return "error";
        case Severity::warning: return "warning";
        case Severity::note: return "note";
    }
    return "error";
}

const char* to_string(Stage s) {
    switch (s) {
        case Stage::syntax: return "syntax";
        case Stage::semantic: return "semantic";
        case Stage::shape: return "shape";
        case Stage::data: return "data";
        case Stage::tosa: return "tosa";
        case Stage::vpu: return "vpu";
        case Stage::io: return "io";
        case Stage::nnapi: return "nnapi";
    }
    return "io";
}

void Diagnostics::add(Diagnostic d) {
    if (d.severity == Severity::error) {
        if (limit_reached()) return;
        ++errors_;
    }
    list_.push_back(std::move(d));
}

Diagnostic& Diagnostics::error(Stage stage, std::string code, std::string message, SourceRange range) {
    if (limit_reached()) {
        dropped_ = Diagnostic{};
        return dropped_;
    }
    Diagnostic d;
    d.severity = Severity::error;
    d.stage = stage;
    d.code = std::move(code);
    d.message = std::move(message);
    d.range = range;
    add(std::move(d));
    return list_.back();
}

Diagnostic& Diagnostics::warning(Stage stage, std::string code, std::string message, SourceRange range) {
    Diagnostic d;
    d.severity = Severity::warning;
    d.stage = stage;
    d.code = std::move(code);
    d.message = std::move(message);
    d.range = range;
    list_.push_back(std::move(d));
    return list_.back();
}

void Diagnostics::append(const Diagnostics& other) {
    for (const Diagnostic& d : other.list_) add(d);
}

namespace diagnostics_cpp {

std::string location(const SourceRange& r, const std::string& path, const std::optional<std::uint64_t>& offset,
                     const SourceManager& sm) {
    std::ostringstream os;
    if (r.valid() && r.file <= sm.size()) {
        if (sm.is_binary(r.file)) {
            os << sm.name(r.file) << ":byte " << r.begin;
        } else {
            LineCol lc = sm.begin(r);
            os << sm.name(r.file) << ':' << lc.line << ':' << lc.col;
        }
    } else if (!path.empty()) {
        os << path;
        if (offset) os << ":byte " << *offset;
    }
    return os.str();
}

void caret(std::ostringstream& os, const SourceRange& r, const SourceManager& sm) {
    if (!r.valid() || r.file > sm.size() || sm.is_binary(r.file)) return;
    LineCol lc = sm.begin(r);
    std::string_view line = sm.line_text(r.file, lc.line);
    if (line.size() > 240) return;  // do not echo huge lines (generated or hostile input)
    os << "  " << line << "\n  ";
    for (std::uint32_t i = 1; i < lc.col && i - 1 < line.size(); ++i) os << (line[i - 1] == '\t' ? '\t' : ' ');
    os << '^';
    std::uint32_t len = r.end > r.begin ? r.end - r.begin : 1;
    LineCol end = sm.line_col(r.file, r.end > r.begin ? r.end - 1 : r.begin);
    if (end.line == lc.line)
        for (std::uint32_t i = 1; i < len; ++i) os << '~';
    os << '\n';
}

void json_string(std::ostringstream& os, const std::string& s) {
    os << '"';
    for (unsigned char c : s) {
        switch (c) {
            case '"': os << "\\\""; break;
            case '\\': os << "\\\\"; break;
            case '\n': os << "\\n"; break;
            case '\r': os << "\\r"; break;
            case '\t': os << "\\t"; break;
            default:
                if (c < 0x20) {
                    char buf[8];
                    std::snprintf(buf, sizeof buf, "\\u%04x", c);
                    os << buf;
                } else {
                    os << c;
                }
        }
    }
    os << '"';
}

void json_location(std::ostringstream& os, const SourceRange& r, const SourceManager& sm) {
    if (r.valid() && r.file <= sm.size()) {
        os << "\"file\":";
        json_string(os, sm.name(r.file));
        if (sm.is_binary(r.file)) {
            os << ",\"byte_offset\":" << r.begin;
        } else {
            LineCol lc = sm.begin(r);
            os << ",\"line\":" << lc.line << ",\"column\":" << lc.col;
        }
    } else {
        os << "\"file\":null";
    }
}

}  // namespace diagnostics_cpp

std::string render(const Diagnostic& d, const SourceManager& sm, bool with_source_line) {
    std::ostringstream os;
    std::string loc = diagnostics_cpp::location(d.range, d.path, d.byte_offset, sm);
    if (!loc.empty()) os << loc << ": ";
    os << to_string(d.severity) << '[' << to_string(d.stage) << "]: " << d.message << '\n';
    if (with_source_line) diagnostics_cpp::caret(os, d.range, sm);
    for (const Note& n : d.notes) {
        std::string nloc = diagnostics_cpp::location(n.range, {}, {}, sm);
        if (!nloc.empty()) os << nloc << ": ";
        os << "note: " << n.message << '\n';
    }
    return os.str();
}

namespace diagnostics_cpp {

// What makes warnings alike: the code, and the message with quoted text and numbers set aside.
std::string warning_shape(const Diagnostic& d) {
    std::string shape = d.code;
    shape += '\x1f';
    bool quoted = false, digits = false;
    for (char c : d.message) {
        if (c == '\'') {
            if (!quoted) shape += "''";
            quoted = !quoted;
            continue;
        }
        if (quoted) continue;
        const bool digit = c >= '0' && c <= '9';
        if (digit && !digits) shape += '#';
        digits = digit;
        if (!digit) shape += c;
    }
    return shape;
}

}  // namespace diagnostics_cpp

std::string render_list(const Diagnostics& diags, const SourceManager& sm, const RenderOptions& options) {
    std::unordered_map<std::string, std::size_t> total, shown;
    if (options.warnings && options.max_alike != 0)
        for (const Diagnostic& d : diags)
            if (d.severity == Severity::warning) ++total[diagnostics_cpp::warning_shape(d)];
    std::string out;
    for (const Diagnostic& d : diags) {
        if (d.severity != Severity::warning || options.max_alike == 0) {
            if (d.severity != Severity::warning || options.warnings) out += render(d, sm);
            continue;
        }
        if (!options.warnings) continue;
        const std::string shape = diagnostics_cpp::warning_shape(d);
        const std::size_t n = ++shown[shape];
        if (n > options.max_alike) continue;
        out += render(d, sm);
        const std::size_t all = total[shape];
        if (n == options.max_alike && all > n)
            out += "note: " + std::to_string(all - n) + " more warning" + (all - n == 1 ? "" : "s") + " like this one [" +
                   d.code + "] not shown\n";
    }
    return out;
}

std::string render_json(const Diagnostic& d, const SourceManager& sm) {
    std::ostringstream os;
    os << "{\"severity\":\"" << to_string(d.severity) << "\",\"stage\":\"" << to_string(d.stage) << "\",\"code\":";
    diagnostics_cpp::json_string(os, d.code);
    os << ",\"message\":";
    diagnostics_cpp::json_string(os, d.message);
    os << ',';
    if (d.range.valid()) {
        diagnostics_cpp::json_location(os, d.range, sm);
    } else if (!d.path.empty()) {
        os << "\"file\":";
        diagnostics_cpp::json_string(os, d.path);
        if (d.byte_offset) os << ",\"byte_offset\":" << *d.byte_offset;
    } else {
        os << "\"file\":null";
    }
    os << ",\"notes\":[";
    for (std::size_t i = 0; i < d.notes.size(); ++i) {
        if (i) os << ',';
        os << "{\"message\":";
        diagnostics_cpp::json_string(os, d.notes[i].message);
        os << ',';
        diagnostics_cpp::json_location(os, d.notes[i].range, sm);
        os << '}';
    }
    os << "]}";
    return os.str();
}

}  // namespace nnef
