// Storage benchmark: loading a model's tensor files from a folder, a .tar and a .tgz, timed as whole
// processes against a baseline that only reads the same bytes (`cat`, `tar -O`) in the same run.
//
//   nnef-storage-bench generate DIR MB
//       writes DIR/model/ (graph.nnef + float32 tensor files of a ResNet-50-like mix of sizes,
//       repeated or cut to about MB megabytes), DIR/model.tar and DIR/model.tgz
//   nnef-storage-bench pack FOLDER ARCHIVE [--gzip]
//       packs a model folder (e.g. a corpus model) into a .tar or, with --gzip, a .tgz
//   nnef-storage-bench load PATH [--no-mmap]
//       opens PATH with open_container, reads every .dat member with the tensor codec and sums
//       every value (float32 from the data in place, other kinds decoded), prints one line;
//       --no-mmap reads folder tensor files into memory instead of mapping float32 data
//   nnef-storage-bench compare REPEAT NAME -- OURS... --vs BASELINE...
//       runs both commands alternately (one warm-up each, then REPEAT timed runs each, stdout to
//       /dev/null) and prints the medians and the ratio baseline / ours (1.0 = as fast as the
//       baseline, above 1.0 = faster)
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "storage/container.hpp"
#include "storage/tensor_file.hpp"

namespace nnef_storage_bench {

namespace fs = std::filesystem;

struct Variable {
    std::string label;
    std::vector<std::int64_t> shape;
    std::uint64_t count() const {
        std::uint64_t n = 1;
        for (std::int64_t e : shape) n *= std::uint64_t(e);
        return n;
    }
};

// The variables of a ResNet-50 (convolution filters, batch-norm vectors, the classifier): 25.6 M
// float32 values, ~102 MB, from 37 KB to 9.4 MB per file.
std::vector<Variable> resnet50_variables(const std::string& prefix) {
    std::vector<Variable> out;
    auto conv = [&](const std::string& name, std::int64_t o, std::int64_t i, std::int64_t k) {
        out.push_back({prefix + name + "/filter", {o, i, k, k}});
        for (const char* v : {"mean", "variance", "scale", "offset"}) out.push_back({prefix + name + "/bn_" + v, {1, o}});
    };
    conv("conv1", 64, 3, 7);
    const int blocks[] = {3, 4, 6, 3};
    std::int64_t in = 64;
    for (int s = 0; s < 4; ++s) {
        const std::int64_t w = std::int64_t(64) << s;
        for (int b = 0; b < blocks[s]; ++b) {
            const std::string p = "layer" + std::to_string(s + 1) + "/block" + std::to_string(b) + "/";
            conv(p + "conv1", w, in, 1);
            conv(p + "conv2", w, w, 3);
            conv(p + "conv3", 4 * w, w, 1);
            if (b == 0) conv(p + "downsample", 4 * w, in, 1);
            in = 4 * w;
        }
    }
    out.push_back({prefix + "fc/weights", {1000, 2048}});
    out.push_back({prefix + "fc/bias", {1, 1000}});
    return out;
}

// Values like trained weights (roughly normal, sd 0.05), deterministic.
struct Rng {
    std::uint64_t s = 0x9E3779B97F4A7C15ull;
    std::uint32_t next() {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        return std::uint32_t(s >> 32);
    }
    float normalish() {
        float u = 0;
        for (int k = 0; k < 4; ++k) u += float(next()) * (1.0f / 4294967296.0f);
        return (u - 2.0f) * 0.0866f;  // sum of 4 uniforms: sd sqrt(4/12); scaled to sd 0.05
    }
};

bool fail(const std::string& message) {
    std::fprintf(stderr, "nnef-storage-bench: %s\n", message.c_str());
    return false;
}

bool write_file(const fs::path& p, const std::uint8_t* data, std::size_t size) {
    fs::create_directories(p.parent_path());
    std::ofstream out(p, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(data), std::streamsize(size));
    return static_cast<bool>(out) || fail("cannot write " + p.string());
}

// Packs the folder's files (relative names, in order) into a tar, gzip-compressed or not, with the
// system's `tar` (this binary only reads archives, so it links just the reading part of
// libarchive, as the tools do).
bool pack(const fs::path& folder, const std::vector<std::string>& names, const fs::path& archive_path, bool gzip) {
    auto quote = [](const std::string& s) {
        std::string q = "'";
        for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
        return q + "'";
    };
    const fs::path list = archive_path.string() + ".list";
    {
        std::ofstream out(list, std::ios::trunc);
        for (const std::string& n : names) out << n << '\n';
        if (!out) return fail("cannot write " + list.string());
    }
    std::string cmd = std::string("tar --format=pax -c") + (gzip ? "z" : "") + "f " + quote(archive_path.string()) +
                      " -C " + quote(folder.string()) + " --no-recursion -T " + quote(list.string());
    int rc = std::system(cmd.c_str());
    fs::remove(list);
    return rc == 0 || fail("'" + cmd + "' failed");
}

int generate(const fs::path& dir, double megabytes) {
    const std::uint64_t budget = std::uint64_t(megabytes * 1e6);
    std::vector<Variable> vars;
    std::uint64_t bytes = 0;
    for (int copy = 0; bytes < budget; ++copy) {
        for (Variable& v : resnet50_variables(copy == 0 ? "" : "copy" + std::to_string(copy) + "/")) {
            if (bytes >= budget) break;
            bytes += nnef::TensorHeader::size + 4 * v.count();
            vars.push_back(std::move(v));
        }
    }
    const fs::path folder = dir / "model";
    fs::remove_all(folder);
    fs::create_directories(folder);
    std::string graph = "version 1.0;\n\ngraph storage_bench( input ) -> ( output )\n{\n"
                        "    input = external(shape = [1, 3, 224, 224]);\n";
    std::vector<std::string> names{"graph.nnef"};
    Rng rng;
    std::vector<float> values;
    for (std::size_t i = 0; i < vars.size(); ++i) {
        const Variable& v = vars[i];
        std::string shape;
        for (std::int64_t e : v.shape) shape += (shape.empty() ? "" : ", ") + std::to_string(e);
        graph += "    v" + std::to_string(i) + " = variable(shape = [" + shape + "], label = '" + v.label + "');\n";
        values.resize(v.count());
        for (float& x : values) x = rng.normalish();
        auto t = nnef::storage::make_float_tensor(v.shape, values);
        if (!t.value) {
            fail("cannot make tensor " + v.label);
            return 1;
        }
        auto image = nnef::storage::encode_tensor(**t.value);
        if (!image.value) {
            fail("cannot encode tensor " + v.label);
            return 1;
        }
        names.push_back(v.label + ".dat");
        if (!write_file(folder / names.back(), image.value->data(), image.value->size())) return 1;
    }
    graph += "    output = copy(input);\n}\n";
    if (!write_file(folder / "graph.nnef", reinterpret_cast<const std::uint8_t*>(graph.data()), graph.size())) return 1;
    if (!pack(folder, names, dir / "model.tar", false) || !pack(folder, names, dir / "model.tgz", true)) return 1;
    std::printf("%s: %zu tensor files, %.1f MB of float32 data; model.tar %.1f MB, model.tgz %.1f MB\n",
                folder.string().c_str(), vars.size(), double(bytes) / 1e6, double(fs::file_size(dir / "model.tar")) / 1e6,
                double(fs::file_size(dir / "model.tgz")) / 1e6);
    return 0;
}

int pack_folder(const fs::path& folder, const fs::path& out, bool gzip) {
    std::vector<std::string> names;
    for (const auto& e : fs::recursive_directory_iterator(folder))
        if (e.is_regular_file()) names.push_back(e.path().lexically_relative(folder).generic_string());
    std::sort(names.begin(), names.end());
    return pack(folder, names, out, gzip) ? 0 : 1;
}

// Sums every item so that every byte of the data is really read (mapped pages faulted in, archive
// bytes touched). float32 in place with independent accumulators; other kinds through as_double.
double touch(const nnef::TensorData& t) {
    if (const float* f = t.float32_data()) {
        float acc[8] = {};
        std::uint64_t i = 0;
        for (; i + 8 <= t.count; i += 8)
            for (int k = 0; k < 8; ++k) acc[k] += f[i + std::uint64_t(k)];
        double sum = 0;
        for (; i < t.count; ++i) sum += f[i];
        for (float a : acc) sum += a;
        return sum;
    }
    double sum = 0;
    if (t.has_values())
        for (std::uint64_t i = 0; i < t.count; ++i) sum += t.as_double(i);
    else
        for (std::size_t i = 0; i < t.bytes.size(); ++i) sum += t.bytes.data()[i];
    return sum;
}

int load(const std::string& path, bool allow_mmap) {
    const auto start = std::chrono::steady_clock::now();
    nnef::storage::ReadOptions options;
    options.allow_mmap = allow_mmap;
    options.populate = true;  // every value is used
    auto c = nnef::storage::open_container(path);
    if (!c.value) {
        for (const nnef::Diagnostic& d : c.diagnostics.list()) fail(d.path + ": " + d.message);
        return 1;
    }
    std::size_t files = 0;
    std::uint64_t bytes = 0;
    double sum = 0;
    for (const auto& [name, m] : c.value->members) {
        if (name.size() < 4 || name.compare(name.size() - 4, 4, ".dat") != 0) continue;
        auto t = m.in_memory() ? nnef::storage::read_tensor_bytes(m.bytes, path + ":" + name)
                         : nnef::storage::read_tensor_file(m.disk_path, {}, options);
        if (!t.value) {
            for (const nnef::Diagnostic& d : t.diagnostics.list()) fail(d.path + ": " + d.message);
            return 1;
        }
        ++files;
        bytes += nnef::TensorHeader::size + (*t.value)->bytes.size();
        sum += touch(**t.value);
    }
    const double ms = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() * 1e3;
    std::printf("%s (%s): %zu tensor files, %" PRIu64 " bytes, sum %.6g, %.1f ms in process\n", path.c_str(),
                nnef::storage::to_string(c.value->kind), files, bytes, sum, ms);
    return 0;
}

double run_once(const std::vector<std::string>& argv) {
    const auto start = std::chrono::steady_clock::now();
    const pid_t pid = fork();
    if (pid == 0) {
        std::vector<char*> args;
        for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
        args.push_back(nullptr);
        if (!std::freopen("/dev/null", "w", stdout)) _exit(127);
        execvp(args[0], args.data());
        _exit(127);
    }
    int status = 0;
    if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        fail("command failed: " + argv[0]);
        return -1;
    }
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    const std::size_t n = v.size();
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

int compare(int repeat, const std::string& name, const std::vector<std::string>& ours,
            const std::vector<std::string>& base) {
    if (run_once(ours) < 0 || run_once(base) < 0) return 1;  // warm-up (page cache, loader)
    std::vector<double> t_ours, t_base;
    for (int i = 0; i < repeat; ++i) {
        const double a = run_once(ours), b = run_once(base);
        if (a < 0 || b < 0) return 1;
        t_ours.push_back(a);
        t_base.push_back(b);
    }
    const double mo = median(t_ours), mb = median(t_base);
    std::printf("%-8s ours %8.1f ms   baseline %8.1f ms   baseline/ours %5.2f   (%d runs each)\n", name.c_str(),
                mo * 1e3, mb * 1e3, mb / mo, repeat);
    return 0;
}

int usage() {
    std::fprintf(stderr,
                 "usage: nnef-storage-bench generate DIR MB\n"
                 "       nnef-storage-bench pack FOLDER ARCHIVE [--gzip]\n"
                 "       nnef-storage-bench load PATH [--no-mmap]\n"
                 "       nnef-storage-bench compare REPEAT NAME -- OURS... --vs BASELINE...\n");
    return 2;
}

}  // namespace nnef_storage_bench

int main(int argc, char** argv) {
    namespace b = nnef_storage_bench;
    std::vector<std::string> args(argv + 1, argv + argc);
    if (args.size() == 3 && args[0] == "generate") return b::generate(args[1], std::atof(args[2].c_str()));
    if (args.size() >= 3 && args.size() <= 4 && args[0] == "pack" && (args.size() == 3 || args[3] == "--gzip"))
        return b::pack_folder(args[1], args[2], args.size() == 4);
    if ((args.size() == 2 || (args.size() == 3 && args[2] == "--no-mmap")) && args[0] == "load")
        return b::load(args[1], args.size() == 2);
    if (args.size() >= 6 && args[0] == "compare" && args[3] == "--") {
        auto vs = std::find(args.begin() + 4, args.end(), "--vs");
        std::vector<std::string> ours(args.begin() + 4, vs), base;
        if (vs != args.end()) base.assign(vs + 1, args.end());
        const int repeat = std::atoi(args[1].c_str());
        if (ours.empty() || base.empty() || repeat < 1) return b::usage();
        return b::compare(repeat, args[2], ours, base);
    }
    return b::usage();
}
