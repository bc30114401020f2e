// The task list's constant data file (lowering/vpu/task_list.hpp): the bytes of every constant
// DDR buffer in the order of `buffers`, written and read back.
#include <algorithm>
#include <fstream>
#include <memory>
#include <sstream>

#include "lowering/vpu/task_list.hpp"

namespace nnef::vpu {

std::string constants_path(const std::string& task_list_path) {
    const std::string ext = ".json";
    if (task_list_path.size() > ext.size() &&
        task_list_path.compare(task_list_path.size() - ext.size(), ext.size(), ext) == 0)
        return task_list_path.substr(0, task_list_path.size() - ext.size()) + ".bin";
    return task_list_path + ".bin";
}

bool write_constants_file(const TaskList& list, const std::string& path, Diagnostics& diags) {
    std::ofstream f(path, std::ios::binary);
    for (const Buffer& b : list.buffers) {
        if (!is_constant(b.role) || b.memory != Memory::DDR) continue;
        if (!b.data || std::int64_t(b.data->size()) != b.size) {
            diags.error(Stage::vpu, "missing-constant",
                        "constant buffer " + b.id + " (" + to_string(b.role) + ", " + std::to_string(b.size) +
                            " bytes) has no data of that size to write")
                .path = path;
            return false;
        }
        f.write(reinterpret_cast<const char*>(b.data->data()), static_cast<std::streamsize>(b.size));
    }
    if (!f) {
        diags.error(Stage::io, "cannot-write", "cannot write the constant data file").path = path;
        return false;
    }
    return true;
}

bool read_constants_file(TaskList& list, const std::string& path, Diagnostics& diags) {
    std::ifstream f(path, std::ios::binary);
    if (!f) {
        diags.error(Stage::io, "cannot-read", "cannot open the constant data file").path = path;
        return false;
    }
    std::ostringstream ss;
    ss << f.rdbuf();
    const std::string bytes = ss.str();
    std::int64_t expected = 0;
    for (const Buffer& b : list.buffers)
        if (is_constant(b.role) && b.memory == Memory::DDR) expected += b.size;
    if (std::int64_t(bytes.size()) != expected) {
        Diagnostic& d = diags.error(Stage::vpu, "bad-constants",
                                    "the constant data file has " + std::to_string(bytes.size()) +
                                        " bytes; the task list's constant buffers (weights, table, constant) need " +
                                        std::to_string(expected));
        d.path = path;
        d.byte_offset = std::min<std::uint64_t>(bytes.size(), std::uint64_t(expected));
        return false;
    }
    std::size_t at = 0;
    for (Buffer& b : list.buffers) {
        if (!is_constant(b.role) || b.memory != Memory::DDR) continue;
        b.data = std::make_shared<const std::vector<std::uint8_t>>(bytes.begin() + std::ptrdiff_t(at),
                                                                   bytes.begin() + std::ptrdiff_t(at + std::size_t(b.size)));
        at += std::size_t(b.size);
    }
    return true;
}

}  // namespace nnef::vpu
