// MLIR 22's own tools as the consumer of the emitted TOSA: mlir-opt's strict TOSA validation, and
// lowering to LLVM + mlir-runner to execute a function. The tools are looked up in $NNEF_MLIR_DIR
// or /usr/lib/llvm-22/bin; tests skip with a message when they are absent.
#pragma once
#include <sys/wait.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "common/scratch.hpp"
#include "lowering/tosa/mlir.hpp"
#include "test_support.hpp"

namespace nnef_test {

inline std::filesystem::path mlir_bin_dir() {
    if (const char* d = std::getenv("NNEF_MLIR_DIR")) return d;
    return "/usr/lib/llvm-22/bin";
}
inline std::filesystem::path mlir_opt() { return mlir_bin_dir() / "mlir-opt"; }
inline std::filesystem::path mlir_runner() { return mlir_bin_dir() / "mlir-runner"; }
inline bool have_mlir_opt() { return std::filesystem::exists(mlir_opt()); }

// The runner-utils libraries next to the tools (lib/libmlir_runner_utils.so[.N]), comma-separated,
// or "" when absent.
inline std::string mlir_runner_libs() {
    namespace fs = std::filesystem;
    const fs::path lib = mlir_bin_dir().parent_path() / "lib";
    std::string found[2];
    const char* names[2] = {"libmlir_runner_utils.so", "libmlir_c_runner_utils.so"};
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(lib, ec)) {
        const std::string f = e.path().filename().string();
        for (int i = 0; i < 2; ++i)
            if (f.rfind(names[i], 0) == 0 && (found[i].empty() || f.size() < fs::path(found[i]).filename().string().size()))
                found[i] = e.path().string();
    }
    if (found[0].empty() || found[1].empty()) return {};
    return found[0] + "," + found[1];
}
inline bool have_mlir_runner() { return have_mlir_opt() && std::filesystem::exists(mlir_runner()) && !mlir_runner_libs().empty(); }

#define NNEF_REQUIRE_MLIR_OPT()                                                                           \
    do {                                                                                                  \
        if (!nnef_test::have_mlir_opt())                                                                  \
            NNEF_SKIP("mlir-opt not found at " << nnef_test::mlir_opt().string()                          \
                      << " (install mlir-22-tools, or set NNEF_MLIR_DIR)");                               \
    } while (0)

#define NNEF_REQUIRE_MLIR_RUNNER()                                                                        \
    do {                                                                                                  \
        if (!nnef_test::have_mlir_runner())                                                               \
            NNEF_SKIP("mlir-opt, mlir-runner or the runner-utils libraries not found in "                 \
                      << nnef_test::mlir_bin_dir().string() << " (install mlir-22-tools, or set NNEF_MLIR_DIR)"); \
    } while (0)

struct CommandResult {
    int code = -1;
    std::string out, err;
};

inline std::string mlir_quote(const std::string& s) {
    std::string q = "'";
    for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return q + "'";
}

inline std::filesystem::path mlir_scratch(const std::string& name) {
    return nnef_test::process_scratch("nnef-mlir-tests") / name;
}

inline CommandResult run_command(const std::string& cmd) {
    const auto out = mlir_scratch("cmd.out"), err = mlir_scratch("cmd.err");
    const int status = std::system((cmd + " >" + mlir_quote(out.string()) + " 2>" + mlir_quote(err.string())).c_str());
    CommandResult r;
    r.code = WIFEXITED(status) ? WEXITSTATUS(status) : 128;
    r.out = read_text(out);
    r.err = read_text(err);
    return r;
}

inline void write_file(const std::filesystem::path& p, const std::string& text) {
    std::ofstream f(p, std::ios::binary);
    f << text;
}

// mlir-opt --tosa-attach-target=... --tosa-validate="strict-op-spec-alignment" on the text.
inline CommandResult mlir_validate(const std::string& text, const std::string& profiles, const std::string& level = "8k",
                                   const std::string& extensions = "") {
    const auto file = mlir_scratch("validate.mlir");
    write_file(file, text);
    std::string target = "profiles=" + profiles + " level=" + level;
    if (!extensions.empty()) target += " extensions=" + extensions;
    return run_command(mlir_quote(mlir_opt().string()) + " --tosa-attach-target=" + mlir_quote(target) +
                       " --tosa-validate=strict-op-spec-alignment " + mlir_quote(file.string()) + " -o /dev/null");
}

// The pass pipeline from the TOSA dialect to the LLVM dialect that MLIR 22 runs.
inline const char* mlir_lowering_pipeline() {
    return "builtin.module(func.func(tosa-to-scf,tosa-to-linalg-named,tosa-to-linalg,tosa-to-arith{include-apply-rescale=true},tosa-to-tensor),"
           "one-shot-bufferize{bufferize-function-boundaries allow-return-allocs-from-loops},buffer-deallocation-pipeline,convert-linalg-to-loops,"
           "lower-affine,convert-scf-to-cf,expand-strided-metadata,finalize-memref-to-llvm,convert-math-to-llvm,"
           "convert-math-to-libm,convert-to-llvm,reconcile-unrealized-casts)";
}

// Lowers the module text (which must define a `@main` without arguments or results that prints)
// and runs it with mlir-runner; returns what it printed. `code` != 0 on failure (err says why).
inline CommandResult mlir_execute(const std::string& text) {
    const auto file = mlir_scratch("execute.mlir"), llvm = mlir_scratch("execute.llvm.mlir");
    write_file(file, text);
    CommandResult r = run_command(mlir_quote(mlir_opt().string()) + " " + mlir_quote(file.string()) + " --pass-pipeline=" +
                                  mlir_quote(mlir_lowering_pipeline()) + " -o " + mlir_quote(llvm.string()));
    if (r.code != 0) return r;
    return run_command(mlir_quote(mlir_runner().string()) + " " + mlir_quote(llvm.string()) +
                       " -e main -entry-point-result=void -shared-libs=" + mlir_quote(mlir_runner_libs()));
}

// The numbers of a printMemref* output ("... data = [[1, 2], [3, 4]]"), in row-major order.
inline std::vector<double> printed_values(const std::string& printed) {
    std::vector<double> v;
    const auto at = printed.find("data =");
    if (at == std::string::npos) return v;
    std::string s = printed.substr(at + 6);
    for (char& c : s)
        if (c == '[' || c == ']' || c == ',') c = ' ';
    std::istringstream in(s);
    std::string item;
    while (in >> item) {
        if (item == "nan" || item == "-nan") v.push_back(std::nan(""));
        else if (item == "inf") v.push_back(HUGE_VAL);
        else if (item == "-inf") v.push_back(-HUGE_VAL);
        else v.push_back(std::strtod(item.c_str(), nullptr));
    }
    return v;
}

// A `@main` that calls the graph's function on the given inputs (constants) and prints every
// result with printMemrefF32 (floating-point results, converted with CAST) or printMemrefI32
// (integer and bool results): to pass as MlirOptions::extra_ops.
inline std::string mlir_driver(const nnef::tosa::Graph& g, const std::vector<nnef::tosa::ConstPtr>& inputs) {
    using namespace nnef::tosa;
    const Block& main = g.main();
    std::string s = "  func.func @main() {\n";
    std::string args, arg_types, result_types;
    for (std::size_t i = 0; i < inputs.size(); ++i) {
        s += "    %in" + std::to_string(i) + " = arith.constant " + mlir_dense_attr(*inputs[i]) + "\n";
        args += (i ? ", " : "") + std::string("%in") + std::to_string(i);
        arg_types += (i ? ", " : "") + mlir_type(inputs[i]->type);
    }
    for (std::size_t i = 0; i < main.outputs.size(); ++i)
        result_types += (i ? ", " : "") + mlir_type(g.type(main.outputs[i]));
    const std::size_t n = main.outputs.size();
    s += "    %r" + (n > 1 ? ":" + std::to_string(n) : std::string()) + " = func.call @" + g.name + "(" + args + ") : (" +
         arg_types + ") -> (" + result_types + ")\n";
    for (std::size_t i = 0; i < n; ++i) {
        const TensorType& t = g.type(main.outputs[i]);
        const std::string r = n > 1 ? "%r#" + std::to_string(i) : std::string("%r");
        const bool fp = is_float(t.dtype);
        const std::string elem = fp ? "f32" : "i32";
        TensorType printed{fp ? DType::fp32 : DType::i32, t.shape};
        std::string value = r;
        if (t.dtype != printed.dtype) {
            value = "%p" + std::to_string(i);
            s += "    " + value + " = \"tosa.cast\"(" + r + ") : (" + mlir_type(t) + ") -> " + mlir_type(printed) + "\n";
        }
        std::string memref = "memref<";
        for (std::int64_t e : t.shape) memref += std::to_string(e) + "x";
        memref += elem + ">";
        s += "    %m" + std::to_string(i) + " = bufferization.to_buffer " + value + " : " + mlir_type(printed) + " to " + memref + "\n";
        s += "    %u" + std::to_string(i) + " = memref.cast %m" + std::to_string(i) + " : " + memref + " to memref<*x" + elem + ">\n";
        s += "    func.call @printMemref" + std::string(fp ? "F32" : "I32") + "(%u" + std::to_string(i) + ") : (memref<*x" + elem + ">) -> ()\n";
    }
    s += "    return\n  }\n";
    s += "  func.func private @printMemrefF32(memref<*xf32>)\n  func.func private @printMemrefI32(memref<*xi32>)\n";
    return s;
}

// The printed results of a run: one vector per printMemref call.
inline std::vector<std::vector<double>> printed_results(const std::string& printed) {
    std::vector<std::vector<double>> all;
    std::size_t at = 0;
    while ((at = printed.find("Unranked Memref", at)) != std::string::npos) {
        std::size_t next = printed.find("Unranked Memref", at + 1);
        all.push_back(printed_values(printed.substr(at, next == std::string::npos ? std::string::npos : next - at)));
        at = next;
        if (next == std::string::npos) break;
    }
    return all;
}

}  // namespace nnef_test
