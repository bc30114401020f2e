// Model containers (spec 5.1): a folder, a .tar, or a gzip-compressed tar (detected by content, not
// by name), or a bare graph.nnef file. Archives are read with libarchive without extracting
// anything to disk.
#pragma once
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nnef/diagnostics.hpp>
#include <nnef/tensor_data.hpp>

namespace nnef::storage {

struct ContainerLimits {
    std::size_t max_members = 1000000;                      // entries in an archive or files in a folder
    std::uint64_t max_total_bytes = std::uint64_t(16) << 30;  // decompressed bytes of an archive
};

// One file of the model: in memory (archives) or on disk (folders; read or mapped by the user).
struct Member {
    std::string name;       // path inside the model, '/'-separated, e.g. "conv/w.dat"
    std::string disk_path;  // folders: the file on disk; empty for archive members
    // Archives: the contents, read once into memory (tensors read from it with read_tensor_bytes
    // point into it); they stay alive as long as any copy of the view or of such a tensor does.
    ByteView bytes;
    std::uint64_t size = 0;

    bool in_memory() const { return disk_path.empty(); }
};

struct Container {
    enum class Kind { graph_file, folder, tar, tgz };
    Kind kind = Kind::folder;
    std::string origin;       // the path given
    std::string graph_name;   // for diagnostics, e.g. "model.tgz:graph.nnef"
    std::string graph_text;
    std::optional<std::string> quant_name;
    std::optional<std::string> quant_text;
    // Every other member, by name. Tensor files are found by label (spec 5.1: label + ".dat").
    std::map<std::string, Member> members;

    // The tensor file of a variable label: exact match first, then case-insensitive.
    const Member* tensor_file(std::string_view label) const;
};

const char* to_string(Container::Kind);

// Opens a model. Hostile archives (absolute paths, `..` components, links, device files,
// duplicate members, too many members, too many decompressed bytes) are refused with a
// diagnostic (stage io) and nothing is written anywhere.
Result<Container> open_container(const std::string& path, const ContainerLimits& limits = {});

}  // namespace nnef::storage
