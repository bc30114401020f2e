// Diagnostics and Result<T>. std-only.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nnef/source.hpp>

namespace nnef {

enum class Severity : std::uint8_t { error, warning, note };
// Stages follow spec chapter 6, then the lowering stages; `io` is for files that cannot be read
// and command-line usage problems; `nnapi` is for NNAPI models (lowering/nnapi).
enum class Stage : std::uint8_t { syntax, semantic, shape, data, tosa, vpu, io, nnapi };

const char* to_string(Severity);
const char* to_string(Stage);

struct Note {
    std::string message;
    SourceRange range;
};

struct Diagnostic {
    Severity severity = Severity::error;
    Stage stage = Stage::syntax;
    std::string code;     // stable, kebab-case, e.g. "unknown-operation"
    std::string message;  // one line, no trailing period
    SourceRange range;
    std::vector<Note> notes;
    // For binary inputs: the file path and the byte offset of the problem.
    std::string path;
    std::optional<std::uint64_t> byte_offset;
};

// An ordered list of diagnostics with an error cap. Once the cap is reached further errors are
// dropped and limit_reached() is true (callers should stop early).
class Diagnostics {
public:
    explicit Diagnostics(std::size_t max_errors = 20) : max_errors_(max_errors) {}

    void add(Diagnostic d);
    Diagnostic& error(Stage stage, std::string code, std::string message, SourceRange range = {});
    Diagnostic& warning(Stage stage, std::string code, std::string message, SourceRange range = {});
    void append(const Diagnostics& other);

    bool has_errors() const { return errors_ > 0; }
    std::size_t error_count() const { return errors_; }
    bool limit_reached() const { return max_errors_ != 0 && errors_ >= max_errors_; }
    std::size_t max_errors() const { return max_errors_; }
    void set_max_errors(std::size_t n) { max_errors_ = n; }

    const std::vector<Diagnostic>& list() const { return list_; }
    bool empty() const { return list_.empty(); }
    std::size_t size() const { return list_.size(); }
    auto begin() const { return list_.begin(); }
    auto end() const { return list_.end(); }

private:
    std::vector<Diagnostic> list_;
    std::size_t errors_ = 0;
    std::size_t max_errors_;
    Diagnostic dropped_;  // sink for diagnostics beyond the cap
};

// `path:line:col: error[stage]: message`, the source line with a caret, then the notes.
std::string render(const Diagnostic& d, const SourceManager& sm, bool with_source_line = true);
// A list for a person to read, each as render() gives it. Warnings alike (the same code, and the
// same message once quoted names and numbers are set aside) are shown `max_alike` times, the last
// of them followed by "note: N more warnings like this one"; with `warnings` false none is shown.
// Errors and notes are always shown in full.
struct RenderOptions {
    bool warnings = true;
    std::size_t max_alike = 3;  // 0: no limit
};
std::string render_list(const Diagnostics& diags, const SourceManager& sm, const RenderOptions& options = {});
// One JSON object (no trailing newline).
std::string render_json(const Diagnostic& d, const SourceManager& sm);

// Value or nothing, plus diagnostics. Library calls return this instead of throwing.
template <class T>
struct Result {
    std::optional<T> value;
    Diagnostics diagnostics;

    explicit operator bool() const { return value.has_value() && !diagnostics.has_errors(); }
    T& operator*() { return *value; }
    const T& operator*() const { return *value; }
    T* operator->() { return &*value; }
    const T* operator->() const { return &*value; }
};

}  // namespace nnef
