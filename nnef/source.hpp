// Source buffers and positions. std-only.
#pragma once
#include <cstdint>
#include <deque>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace nnef {

// A range of bytes [begin, end) in one registered source buffer. file == 0 means "no location".
struct SourceRange {
    std::uint32_t file = 0;
    std::uint32_t begin = 0;
    std::uint32_t end = 0;
    bool valid() const { return file != 0; }
};

struct LineCol {
    std::uint32_t line = 0;  // 1-based
    std::uint32_t col = 0;   // 1-based, in bytes
};

// Owns source texts (and names of binary files) so that SourceRanges stay meaningful. A text never
// moves once registered: views into it stay valid as long as the SourceManager.
class SourceManager {
public:
    // Registers a text buffer; returns its id (>= 1).
    std::uint32_t add(std::string name, std::string text);
    // Registers a text that lives elsewhere for at least as long as this SourceManager (e.g. the
    // embedded standard library) without copying it.
    std::uint32_t add_view(std::string name, std::string_view text);
    // Registers a binary file by name only (diagnostics then use byte offsets).
    std::uint32_t add_binary(std::string name);

    const std::string& name(std::uint32_t file) const;
    std::string_view text(std::uint32_t file) const;
    bool is_binary(std::uint32_t file) const;
    LineCol line_col(std::uint32_t file, std::uint32_t offset) const;
    LineCol begin(const SourceRange& r) const { return line_col(r.file, r.begin); }
    // Text of the given 1-based line without its terminator.
    std::string_view line_text(std::uint32_t file, std::uint32_t line) const;
    std::size_t size() const { return files_.size(); }

private:
    struct File {
        std::string name;
        std::string owned;      // the text, when registered by add()
        std::string_view text;  // the text (owned or not)
        bool binary = false;
        mutable std::vector<std::uint32_t> line_starts;  // computed lazily
    };
    const File& file(std::uint32_t id) const;
    void index_lines(const File& f) const;
    std::deque<File> files_;  // a deque: registering a file moves no other
};

}  // namespace nnef
