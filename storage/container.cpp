#include "storage/container.hpp"
#include "storage/memory.hpp"
#include "nnef/detail/huge_pages.hpp"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <fstream>
#include <sstream>

#include <boost/filesystem.hpp>


#include <dirent.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

#ifdef NNEF_WITH_LIBARCHIVE
#include <archive.h>
#include <archive_entry.h>
#endif

namespace nnef::storage {

namespace container_cpp {

Diagnostic io_error(const std::string& path, std::string code, std::string message) {
    Diagnostic d;
    d.stage = Stage::io;
    d.code = std::move(code);
    d.message = std::move(message);
    d.path = path;
    return d;
}

// Reads a whole file into `out` with one buffer of the file's size (no growing copies: large
// graphs would otherwise pass through memory three times and peak at twice their size).
bool read_file(const std::string& path, std::string& out) {
    std::ifstream in(path, std::ios::binary | std::ios::ate);
    if (!in) return false;
    const std::streamoff size = in.tellg();
    out.clear();
    if (size < 0) in.clear();  // not seekable
    if (size > 0) {
        in.seekg(0);
        out.reserve(static_cast<std::size_t>(size));
        detail::advise_huge_pages(out.data(), static_cast<std::size_t>(size));
        out.resize(static_cast<std::size_t>(size));
        in.read(out.data(), size);
        if (in.gcount() != size) return false;
    }
    // A file that grew meanwhile, or one whose size is not known up front (a pipe): the rest.
    char buffer[4096];
    while (in.read(buffer, sizeof buffer) || in.gcount() > 0) out.append(buffer, static_cast<std::size_t>(in.gcount()));
    return in.eof();
}

std::string lower(std::string s) {
    for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return s;
}

// Normalizes an archive member path; returns false for absolute paths and `..` components.
bool safe_member_path(const std::string& raw, std::string& out) {
    if (raw.empty() || raw[0] == '/' || raw[0] == '\\') return false;
    if (raw.size() >= 2 && std::isalpha(static_cast<unsigned char>(raw[0])) && raw[1] == ':') return false;
    std::vector<std::string> parts;
    std::string part;
    std::istringstream ss(raw);
    while (std::getline(ss, part, '/')) {
        if (part.empty() || part == ".") continue;
        if (part == ".." || part.find('\\') != std::string::npos) return false;
        parts.push_back(part);
    }
    out.clear();
    for (const std::string& p : parts) out += (out.empty() ? "" : "/") + p;
    return true;
}

enum class Sniffed { text, tar, gzip };

Sniffed sniff(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    char head[512] = {};
    in.read(head, sizeof head);
    std::streamsize n = in.gcount();
    if (n >= 2 && static_cast<unsigned char>(head[0]) == 0x1f && static_cast<unsigned char>(head[1]) == 0x8b) return Sniffed::gzip;
    if (n >= 262 && std::string(head + 257, 5) == "ustar") return Sniffed::tar;
    return Sniffed::text;
}

// Moves graph.nnef / graph.quant out of the member list, stripping one common top-level folder
// when the archive wraps the model in one.
bool finish(Container& c, const std::string& display, Diagnostics& diags) {
    if (!c.members.count("graph.nnef")) {
        std::string prefix;
        for (const auto& [name, m] : c.members) {
            auto slash = name.find('/');
            if (slash != std::string::npos && name.substr(slash + 1) == "graph.nnef") {
                if (!prefix.empty()) {
                    prefix.clear();
                    break;
                }
                prefix = name.substr(0, slash + 1);
            }
        }
        bool all_under = !prefix.empty();
        for (const auto& [name, m] : c.members) all_under = all_under && name.rfind(prefix, 0) == 0;
        if (all_under) {
            std::map<std::string, Member> stripped;
            for (auto& [name, m] : c.members) {
                m.name = name.substr(prefix.size());
                stripped.emplace(m.name, std::move(m));
            }
            c.members = std::move(stripped);
        }
    }
    auto g = c.members.find("graph.nnef");
    if (g == c.members.end()) {
        diags.add(io_error(c.origin, "no-graph", "no graph.nnef in '" + display + "'"));
        return false;
    }
    c.graph_name = g->second.disk_path.empty() ? display + ":graph.nnef" : g->second.disk_path;
    if (g->second.in_memory()) {
        c.graph_text.assign(reinterpret_cast<const char*>(g->second.bytes.data()), g->second.bytes.size());
    } else if (!read_file(g->second.disk_path, c.graph_text)) {
        diags.add(io_error(g->second.disk_path, "cannot-read", "cannot read '" + g->second.disk_path + "'"));
        return false;
    }
    c.members.erase(g);
    auto q = c.members.find("graph.quant");
    if (q != c.members.end()) {
        c.quant_name = q->second.disk_path.empty() ? display + ":graph.quant" : q->second.disk_path;
        std::string text;
        if (q->second.in_memory()) {
            text.assign(reinterpret_cast<const char*>(q->second.bytes.data()), q->second.bytes.size());
        } else if (!read_file(q->second.disk_path, text)) {
            diags.add(io_error(q->second.disk_path, "cannot-read", "cannot read '" + q->second.disk_path + "'"));
            return false;
        }
        c.quant_text = std::move(text);
        c.members.erase(q);
    }
    return true;
}

// Joins a folder and a name as boost::filesystem's operator/ does (no separator doubled).
std::string join(const std::string& folder, const std::string& name) {
    if (folder.empty()) return name;
    return folder.back() == '/' ? folder + name : folder + "/" + name;
}

// Walks a model folder and its subfolders with one fstatat per entry relative to an open folder
// (the folder's entries say what they are; a regular file is asked only for its size): about half
// the system calls of a path-based walk, which asks each file's type and then its size by its full
// path. Links are not followed (a link to a file is not a member, a link to a folder is not
// entered), as in a path-based walk with symlink_status.
struct FolderWalk {
    const std::string& root;
    Container& c;
    const ContainerLimits& limits;
    Diagnostics& diags;

    bool fail_read(const std::string& folder, int error) {
        diags.add(io_error(root, "cannot-read", "cannot read folder '" + folder + "': " + std::strerror(error)));
        return false;
    }

    // `fd` is an open folder (closed here); `rel` its path below the root ("" or "a/b/").
    bool walk(int fd, const std::string& disk, const std::string& rel) {
        DIR* dir = ::fdopendir(fd);
        if (!dir) {
            const int error = errno;
            ::close(fd);
            return fail_read(disk, error);
        }
        struct Closer {
            DIR* d;
            ~Closer() { ::closedir(d); }
        } guard{dir};
        for (;;) {
            errno = 0;
            const dirent* e = ::readdir(dir);
            if (!e) {
                if (errno != 0) return fail_read(disk, errno);
                return true;
            }
            const char* name = e->d_name;
            if (name[0] == '.' && (name[1] == 0 || (name[1] == '.' && name[2] == 0))) continue;
            unsigned char type = e->d_type;
            struct stat st {};
            bool stated = false;
            if (type == DT_UNKNOWN || type == DT_REG) {
                if (::fstatat(::dirfd(dir), name, &st, AT_SYMLINK_NOFOLLOW) != 0) continue;  // gone meanwhile
                stated = true;
                type = S_ISREG(st.st_mode) ? DT_REG : S_ISDIR(st.st_mode) ? DT_DIR : DT_LNK;
            }
            if (type == DT_DIR) {
                const int sub = ::openat(::dirfd(dir), name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
                if (sub < 0) {
                    if (errno == ELOOP || errno == ENOTDIR || errno == ENOENT) continue;  // replaced meanwhile
                    return fail_read(join(disk, name), errno);
                }
                if (!walk(sub, join(disk, name), rel + name + "/")) return false;
                continue;
            }
            if (type != DT_REG || !stated) continue;
            if (c.members.size() >= limits.max_members) {
                diags.add(io_error(root, "limit-exceeded",
                                   "model folder has more than max_members (" + std::to_string(limits.max_members) + ") files"));
                return false;
            }
            Member m;
            m.name = rel + name;
            m.disk_path = join(disk, name);
            m.size = std::uint64_t(st.st_size);
            std::string key = m.name;
            c.members.emplace(std::move(key), std::move(m));
        }
    }
};

bool open_folder(const std::string& path, Container& c, const ContainerLimits& limits, Diagnostics& diags) {
    FolderWalk walk{path, c, limits, diags};
    const int fd = ::open(path.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) return walk.fail_read(path, errno);
    if (!walk.walk(fd, path, "")) return false;
    return finish(c, path, diags);
}

#ifdef NNEF_WITH_LIBARCHIVE
// libarchive's message for the last error; it has none for some failures (null).
std::string error_text(archive* a) {
    const char* why = archive_error_string(a);
    return why ? why : "unrecognized or damaged data";
}

// A member buffer: from the arena when the size is known and plausible, otherwise a malloc'd
// buffer that grows as data arrives. Bytes handed out have all been written.
struct MemberBuffer {
    std::uint8_t* data = nullptr;
    std::size_t capacity = 0;
    std::size_t filled = 0;
    std::shared_ptr<const void> owner;  // arena memory
    bool grown = false;                 // malloc'd memory (freed here unless released)

    MemberBuffer() = default;
    MemberBuffer(const MemberBuffer&) = delete;
    MemberBuffer& operator=(const MemberBuffer&) = delete;
    ~MemberBuffer() {
        if (grown) std::free(data);
    }
    bool from_arena(memory::Arena& arena, std::size_t n) {
        data = arena.allocate(n, owner);
        capacity = data ? n : 0;
        return data != nullptr;
    }
    // Room for `end` bytes.
    bool ensure(std::uint64_t end) {
        if (end <= capacity) return true;
        if (end > std::numeric_limits<std::size_t>::max() / 2) return false;
        const std::size_t want = std::max<std::size_t>(std::size_t(end), std::max<std::size_t>(capacity * 2, 1 << 16));
        void* p = grown ? std::realloc(data, want) : std::malloc(want);
        if (!p) return false;
        if (!grown && filled > 0) std::memcpy(p, data, filled);
        data = static_cast<std::uint8_t*>(p);
        capacity = want;
        grown = true;
        owner.reset();
        return true;
    }
    ByteView release() {
        if (grown) {
            owner = std::shared_ptr<const void>(data, [](const void* q) { std::free(const_cast<void*>(q)); });
            grown = false;
        }
        return ByteView(std::move(owner), data, filled, false);
    }
};

bool open_archive(const std::string& path, bool compressed, Container& c, const ContainerLimits& limits,
                  Diagnostics& diags) {
    struct Closer {
        archive* a;
        ~Closer() { archive_read_free(a); }
    } guard{archive_read_new()};
    archive* a = guard.a;
    archive_read_support_filter_gzip(a);
    archive_read_support_format_tar(a);
    boost::system::error_code ec;
    const std::uint64_t file_size = boost::filesystem::file_size(path, ec);
    // Read blocks of 1 MiB, or of the file's size for small archives (a fresh block costs more
    // than the reading).
    const std::size_t block = std::size_t(std::clamp<std::uint64_t>(ec ? 0 : file_size, 64u << 10, 1u << 20));
    // An uncompressed .tar file is mapped and read in place: reading from memory, libarchive hands
    // out each member's data as one pointer into the mapping, so members become views of the file
    // (zero copy, like a mapped folder) instead of copies into fresh memory. All of it is read, so
    // the page tables are filled at once.
    std::shared_ptr<const void> mapping;
    const std::uint8_t* map_begin = nullptr;
    const std::uint8_t* map_end = nullptr;
    if (!compressed && !ec && file_size > 0 && file_size <= std::numeric_limits<std::size_t>::max()) {
        int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
        if (fd >= 0) {
            const std::size_t size = std::size_t(file_size);
            int flags = MAP_PRIVATE;
#ifdef MAP_POPULATE
            flags |= MAP_POPULATE;
#endif
            void* p = ::mmap(nullptr, size, PROT_READ, flags, fd, 0);
            ::close(fd);
            if (p != MAP_FAILED) {
                mapping = std::shared_ptr<const void>(p, [size](const void* q) { ::munmap(const_cast<void*>(q), size); });
                map_begin = static_cast<const std::uint8_t*>(p);
                map_end = map_begin + size;
            }
        }
    }
    const int opened = mapping ? archive_read_open_memory(a, map_begin, std::size_t(map_end - map_begin))
                               : archive_read_open_filename(a, path.c_str(), block);
    if (opened != ARCHIVE_OK) {
        diags.add(io_error(path, "bad-archive", "cannot read archive: " + error_text(a)));
        return false;
    }
    // A member's buffer is sized from its declared size only when the archive could hold that much
    // (deflate expands at most ~1032:1); otherwise it grows as data arrives.
    const std::uint64_t plausible = ec ? 0 : compressed ? file_size * 1032 + (1u << 20) : file_size;
    memory::Arena arena;
    auto exceeded = [&] {
        diags.add(io_error(path, "limit-exceeded",
                           "archive expands beyond max_total_bytes (" + std::to_string(limits.max_total_bytes) +
                               " decompressed bytes)"));
        return false;
    };
    std::uint64_t total = 0;
    std::size_t count = 0;
    archive_entry* entry = nullptr;
    for (;;) {
        int r = archive_read_next_header(a, &entry);
        if (r == ARCHIVE_EOF) break;
        if (r != ARCHIVE_OK && r != ARCHIVE_WARN) {
            diags.add(io_error(path, "bad-archive", "corrupt archive: " + error_text(a)));
            return false;
        }
        const char* raw = archive_entry_pathname(entry);
        std::string name = raw ? raw : "";
        if (++count > limits.max_members) {
            diags.add(io_error(path, "limit-exceeded",
                               "archive has more than max_members (" + std::to_string(limits.max_members) + ") members"));
            return false;
        }
        std::string clean;
        if (!safe_member_path(name, clean)) {
            diags.add(io_error(path, "unsafe-member", "archive member '" + name + "' has an absolute path or a '..' component"));
            return false;
        }
        mode_t type = archive_entry_filetype(entry);
        if (archive_entry_hardlink(entry) || type == AE_IFLNK) {
            diags.add(io_error(path, "unsafe-member", "archive member '" + name + "' is a link"));
            return false;
        }
        if (type == AE_IFDIR) continue;
        if (type != AE_IFREG) {
            diags.add(io_error(path, "unsafe-member", "archive member '" + name + "' is not a regular file"));
            return false;
        }
        if (clean.empty() || c.members.count(clean)) {
            diags.add(io_error(path, "duplicate-member", "archive member '" + name + "' occurs twice"));
            return false;
        }
        const bool sized = archive_entry_size_is_set(entry) && archive_entry_size(entry) >= 0;
        const std::uint64_t declared = sized ? std::uint64_t(archive_entry_size(entry)) : 0;
        if (sized && declared > limits.max_total_bytes - total) {
            diags.add(io_error(path, "limit-exceeded",
                               "archive member '" + name + "' would exceed max_total_bytes (" + std::to_string(limits.max_total_bytes) +
                                   " decompressed bytes)"));
            return false;
        }
        auto read_error = [&] {
            diags.add(io_error(path, "bad-archive", "cannot read member '" + name + "': " + error_text(a)));
            return false;
        };
        auto no_memory = [&] {
            diags.add(io_error(path, "out-of-memory", "cannot allocate memory for member '" + name + "'"));
            return false;
        };
        auto add_member = [&](ByteView bytes) {
            Member m;
            m.name = clean;
            m.bytes = std::move(bytes);
            m.size = m.bytes.size();
            c.members.emplace(clean, std::move(m));
        };
        const void* block = nullptr;
        std::size_t length = 0;
        la_int64_t offset = 0;
        r = archive_read_data_block(a, &block, &length, &offset);
        // Zero copy: the whole member in one block inside the mapping, and nothing after it.
        if (mapping && r == ARCHIVE_OK && sized && offset == 0 && length == declared && declared > 0) {
            const auto* p = static_cast<const std::uint8_t*>(block);
            if (p >= map_begin && p + length <= map_end) {
                const void* more = nullptr;
                std::size_t more_length = 0;
                la_int64_t more_offset = 0;
                while ((r = archive_read_data_block(a, &more, &more_length, &more_offset)) == ARCHIVE_OK)
                    if (more_length > 0) {
                        diags.add(io_error(path, "bad-archive", "member '" + name + "' has data beyond its size"));
                        return false;
                    }
                if (r != ARCHIVE_EOF) return read_error();
                total += declared;
                add_member(ByteView(mapping, p, length, true));
                continue;
            }
        }
        MemberBuffer buf;
        if (sized && declared <= plausible && !buf.from_arena(arena, std::size_t(declared))) return no_memory();
        for (; r != ARCHIVE_EOF; r = archive_read_data_block(a, &block, &length, &offset)) {
            if (r != ARCHIVE_OK || offset < 0 || std::uint64_t(offset) < buf.filled) return read_error();
            // Holes of sparse members are zeros and count toward the limit like data.
            const std::uint64_t end = std::uint64_t(offset) + length;
            if (end - buf.filled > limits.max_total_bytes - total) return exceeded();
            total += end - buf.filled;
            if (!buf.ensure(end)) return no_memory();
            std::memset(buf.data + buf.filled, 0, std::size_t(offset) - buf.filled);
            if (length > 0) std::memcpy(buf.data + offset, block, length);
            buf.filled = std::size_t(end);
        }
        if (sized && buf.filled < declared) {  // a trailing hole of a sparse member
            if (declared - buf.filled > limits.max_total_bytes - total) return exceeded();
            total += declared - buf.filled;
            if (!buf.ensure(declared)) return no_memory();
            std::memset(buf.data + buf.filled, 0, std::size_t(declared) - buf.filled);
            buf.filled = std::size_t(declared);
        }
        add_member(buf.release());
    }
    return finish(c, path, diags);
}
#endif

}  // namespace container_cpp

const char* to_string(Container::Kind k) {
    switch (k) {
        case Container::Kind::graph_file: return "graph file";
        case Container::Kind::folder: return "folder";
        case Container::Kind::tar: return "tar";
        case Container::Kind::tgz: return "tgz";
    }
    return "";
}

const Member* Container::tensor_file(std::string_view label) const {
    std::string name = std::string(label) + ".dat";
    auto it = members.find(name);
    if (it != members.end()) return &it->second;
    std::string key = container_cpp::lower(name);
    for (const auto& [n, m] : members)
        if (container_cpp::lower(n) == key) return &m;
    return nullptr;
}

Result<Container> open_container(const std::string& path, const ContainerLimits& limits) {
    Result<Container> result;
    Container c;
    c.origin = path;
    boost::system::error_code ec;
    boost::filesystem::file_status st = boost::filesystem::status(path, ec);
    if (ec || !boost::filesystem::exists(st)) {
        result.diagnostics.add(container_cpp::io_error(path, "cannot-open", "cannot open '" + path + "': no such file or folder"));
        return result;
    }
    bool ok = false;
    if (boost::filesystem::is_directory(st)) {
        c.kind = Container::Kind::folder;
        ok = container_cpp::open_folder(path, c, limits, result.diagnostics);
    } else {
        container_cpp::Sniffed kind = container_cpp::sniff(path);
        if (kind == container_cpp::Sniffed::text) {
            c.kind = Container::Kind::graph_file;
            c.graph_name = path;
            ok = container_cpp::read_file(path, c.graph_text);
            if (!ok) result.diagnostics.add(container_cpp::io_error(path, "cannot-read", "cannot read '" + path + "'"));
            // Tensor files and graph.quant beside a graph.nnef file are not part of the model: load
            // the folder to get them.
        } else {
            c.kind = kind == container_cpp::Sniffed::gzip ? Container::Kind::tgz : Container::Kind::tar;
#ifdef NNEF_WITH_LIBARCHIVE
            ok = container_cpp::open_archive(path, c.kind == Container::Kind::tgz, c, limits, result.diagnostics);
#else
            result.diagnostics.add(container_cpp::io_error(path, "no-archive-support",
                                                           "'" + path + "' is an archive, but this build has no libarchive support"));
#endif
        }
    }
    if (ok) result.value = std::move(c);
    return result;
}

}  // namespace nnef::storage
