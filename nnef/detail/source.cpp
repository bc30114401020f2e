#include <nnef/source.hpp>

#include <algorithm>
#include <stdexcept>

namespace nnef {

std::uint32_t SourceManager::add(std::string name, std::string text) {
    File& f = files_.emplace_back();
    f.name = std::move(name);
    f.owned = std::move(text);
    f.text = f.owned;  // after the move: a short string lives inside the File
    return static_cast<std::uint32_t>(files_.size());
}

std::uint32_t SourceManager::add_view(std::string name, std::string_view text) {
    File& f = files_.emplace_back();
    f.name = std::move(name);
    f.text = text;
    return static_cast<std::uint32_t>(files_.size());
}

std::uint32_t SourceManager::add_binary(std::string name) {
    File& f = files_.emplace_back();
    f.name = std::move(name);
    f.binary = true;
    return static_cast<std::uint32_t>(files_.size());
}

const SourceManager::File& SourceManager::file(std::uint32_t id) const {
    if (id == 0 || id > files_.size()) throw std::out_of_range("nnef::SourceManager: bad file id");
    return files_[id - 1];
}

const std::string& SourceManager::name(std::uint32_t id) const { return file(id).name; }
std::string_view SourceManager::text(std::uint32_t id) const { return file(id).text; }
bool SourceManager::is_binary(std::uint32_t id) const { return file(id).binary; }

void SourceManager::index_lines(const File& f) const {
    if (!f.line_starts.empty()) return;
    f.line_starts.push_back(0);
    const std::string_view t = f.text;
    for (std::size_t i = 0; i < t.size(); ++i) {
        // \n, \r\n and a lone \r all end a line.
        if (t[i] == '\n' || (t[i] == '\r' && (i + 1 >= t.size() || t[i + 1] != '\n')))
            f.line_starts.push_back(static_cast<std::uint32_t>(i + 1));
    }
}

LineCol SourceManager::line_col(std::uint32_t id, std::uint32_t offset) const {
    const File& f = file(id);
    index_lines(f);
    auto it = std::upper_bound(f.line_starts.begin(), f.line_starts.end(), offset);
    std::uint32_t line = static_cast<std::uint32_t>(it - f.line_starts.begin());
    std::uint32_t start = f.line_starts[line - 1];
    return LineCol{line, offset - start + 1};
}

std::string_view SourceManager::line_text(std::uint32_t id, std::uint32_t line) const {
    const File& f = file(id);
    index_lines(f);
    if (line == 0 || line > f.line_starts.size()) return {};
    std::size_t b = f.line_starts[line - 1];
    std::size_t e = line < f.line_starts.size() ? f.line_starts[line] : f.text.size();
    while (e > b && (f.text[e - 1] == '\n' || f.text[e - 1] == '\r')) --e;
    return f.text.substr(b, e - b);
}

}  // namespace nnef
