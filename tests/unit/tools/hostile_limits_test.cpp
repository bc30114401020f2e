// Acceptance (issue 12): with its default limits, nnef-validate ends every pathological document
// (branching call trees, deep recursion, huge comprehensions, growing strings and arrays) with exit
// 1 and an error that names the limit, within a bounded wall time and peak RSS. Each run is a child
// process whose resource use comes from wait4 (the getrusage figures of that child alone).
#include <doctest/doctest.h>
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <string>
#include <vector>

#include "tool_runner.hpp"

namespace hostile_limits_test {

// Bounds of the acceptance. The defaults end each document within 2.7 s of CPU and 570 MiB in the
// Release build (most within 0.7 s; measured 2026-11-28 on the 2-core machine, docs/limits.md).
// The sanitizer build runs the same tests with instrumented code, 1.2 to 15x the CPU there (at most
// 6.5 s, 650 MiB with the shadow memory and the quarantine; measured the same day), so its CPU
// bound is 3x the Release one: still a bound that an unbounded expansion cannot meet.
constexpr double kMaxSeconds = NNEF_TEST_SANITIZED ? 15.0 : 5.0;
constexpr long kMaxRssKiB = 1024L * 1024;

// The wall-time bound holds for the tool alone on the machine's cores. On a machine shared with
// other work (a load average above the number of cores) the tool gets its share of the cores
// only, so the wall-time bound is stretched by load / cores, and at least 4x there: the one-minute
// load average lags behind work that has just started (seen: 10 s of wall time for 2.5 s of CPU
// while two builds started). The CPU time (user + system) must stay within the unstretched bound
// whatever the load; the wall bound catches a process that waits instead of computing.
double wall_bound() {
    double load[1] = {0};
    const long cores = ::sysconf(_SC_NPROCESSORS_ONLN);
    if (::getloadavg(load, 1) != 1 || cores <= 0) return kMaxSeconds;
    const double share = load[0] / static_cast<double>(cores);
    return share <= 1.0 ? kMaxSeconds : kMaxSeconds * std::max(4.0, share);
}

double seconds_of(const struct timeval& tv) { return static_cast<double>(tv.tv_sec) + static_cast<double>(tv.tv_usec) / 1e6; }

struct Run {
    int code = -1;
    double seconds = 0;
    double cpu_seconds = 0;  // user + system
    long max_rss_kib = 0;
    std::string err;
};

// Runs the tool with `args` (no shell), stdout and stderr to files; the child's own rusage.
Run run(const std::string& tool, const std::vector<std::string>& args) {
    const auto dir = nnef_test::scratch_dir();
    const std::string out = (dir / "hostile.out").string(), err = (dir / "hostile.err").string();
    const std::string path = (std::filesystem::path(NNEF_TOOLS_DIR) / tool).string();
    std::vector<char*> argv;
    argv.push_back(const_cast<char*>(path.c_str()));
    for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    const auto start = std::chrono::steady_clock::now();
    const pid_t pid = ::fork();
    if (pid == 0) {
        const int o = ::open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
        const int e = ::open(err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (o < 0 || e < 0 || ::dup2(o, 1) < 0 || ::dup2(e, 2) < 0) ::_exit(126);
        ::execv(path.c_str(), argv.data());
        ::_exit(127);
    }
    Run r;
    REQUIRE(pid > 0);
    int status = 0;
    struct rusage usage {};
    REQUIRE(::wait4(pid, &status, 0, &usage) == pid);
    r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    r.max_rss_kib = usage.ru_maxrss;  // KiB on Linux
    r.cpu_seconds = seconds_of(usage.ru_utime) + seconds_of(usage.ru_stime);
    r.code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
    r.err = nnef_test::read_text(err);
    return r;
}

const std::string kHeader = "version 1.0;\nextension KHR_enable_fragment_definitions KHR_enable_operator_expressions;\n";

std::string document(const std::string& fragments, const std::string& body) {
    return kHeader + fragments + "graph G( x ) -> ( y )\n{\n    x = external(shape = [1]);\n" + body + "}\n";
}

std::string repeated(const std::string& call, int times, const std::string& sep) {
    std::string s;
    for (int i = 0; i < times; ++i) s += (i ? sep : "") + call;
    return s;
}

struct Case {
    std::string name;
    std::string text;
    std::vector<std::string> limits;  // the error names one of these
};

std::vector<Case> cases() {
    std::vector<Case> out;
    const std::vector<std::string> tree_limits = {"max_work", "max_expansions", "max_operations"};
    // Exponential call trees: every call makes `b` calls one level down, `d` levels (under the
    // sanitizers the deepest and the widest only: the same code, 4 to 7 s each there)
    std::vector<std::pair<int, int>> shapes = {{2, 64}, {3, 40}, {4, 32}, {8, 21}, {16, 16}, {64, 11}};
    if (NNEF_TEST_SANITIZED) shapes = {{2, 64}, {64, 11}};
    for (auto [b, d] : shapes) {
        const std::string bd = "_b" + std::to_string(b) + "_d" + std::to_string(d);
        out.push_back({"tensor tree" + bd,
                       document("fragment f( x: tensor<scalar>, n: integer ) -> ( y: tensor<scalar> )\n{\n    y = " +
                                    repeated("f(x, n = n - 1)", b, " + ") + " if n > 0 else x;\n}\n",
                                "    y = f(x, n = " + std::to_string(d) + ");\n"),
                       tree_limits});
        out.push_back({"integer tree" + bd,
                       document("fragment f( n: integer ) -> ( a: integer )\n{\n    a = " + repeated("f(n = n - 1)", b, " + ") +
                                    " if n > 0 else 1;\n}\n",
                                "    y = mul(x, scalar(f(n = " + std::to_string(d) + ")));\n"),
                       tree_limits});
        out.push_back({"tensor array tree" + bd,
                       document("fragment f( x: tensor<scalar>, n: integer ) -> ( y: tensor<scalar>[] )\n{\n    y = [" +
                                    repeated("f(x, n = n - 1)[0]", b, ", ") + "] if n > 0 else [x, relu(x)];\n}\n",
                                "    y = f(x, n = " + std::to_string(d) + ")[0];\n"),
                       tree_limits});
    }
    // Deep recursion, with a tensor operation or a large value at every level.
    out.push_back({"deep tensor recursion",
                   document("fragment f( x: tensor<scalar>, n: integer ) -> ( y: tensor<scalar> )\n{\n"
                            "    y = f(relu(x), n = n - 1) if n > 0 else x;\n}\n",
                            "    y = f(x, n = 1000000000);\n"),
                   {"max_recursion", "max_work"}});
    out.push_back({"deep recursion growing an array",
                   document("fragment f( a: integer[], n: integer ) -> ( y: integer )\n{\n"
                            "    y = f(a = a + [n], n = n - 1) if n > 0 else length_of(a);\n}\n",
                            "    y = mul(x, scalar(f(a = [0] * 4000000, n = 1000000000)));\n"),
                   {"max_recursion", "max_work", "max_value_items"}});
    // Huge comprehensions.
    out.push_back({"comprehension of tensors",
                   document("fragment f( x: tensor<scalar> ) -> ( y: tensor<scalar> )\n{\n"
                            "    ys = [for i in range_of([0] * 4000000) yield relu(x)];\n    y = ys[0];\n}\n",
                            "    y = f(x);\n"),
                   {"max_work", "max_operations"}});
    out.push_back({"nested comprehension",
                   document("fragment f( n: integer ) -> ( l: integer )\n{\n    a = range_of([0] * n);\n"
                            "    m = [for j in a yield [for i in a yield i * j]];\n    l = length_of(m);\n}\n",
                            "    y = mul(x, scalar(f(n = 2000)));\n"),
                   {"max_work", "max_value_items"}});
    out.push_back({"triply nested comprehension",
                   document("fragment f( n: integer ) -> ( l: integer )\n{\n    a = range_of([0] * n);\n"
                            "    m = [for k in a yield [for j in a yield [for i in a yield i]]];\n    l = length_of(m);\n}\n",
                            "    y = mul(x, scalar(f(n = 400)));\n"),
                   {"max_work", "max_value_items"}});
    out.push_back({"comprehension of pairs",
                   document("fragment f( n: integer ) -> ( l: integer )\n{\n"
                            "    l = length_of([for i in range_of([0] * n) yield [i, i + 1]]);\n}\n",
                            "    y = mul(x, scalar(f(n = 4000000)));\n"),
                   {"max_work", "max_value_items"}});
    // Strings and arrays that grow, or are rebuilt at every call.
    out.push_back({"doubling string",
                   document("fragment s( n: integer ) -> ( t: string )\n{\n    t = 'ab' if n == 0 else s(n = n - 1) + s(n = n - 1);\n}\n",
                            "    w = variable(shape = [1], label = s(n = 40));\n    y = add(x, w);\n"),
                   {"max_work", "max_string_length"}});
    out.push_back({"string rebuilt at every call",
                   document("fragment s( t: string, n: integer ) -> ( u: string )\n{\n"
                            "    u = t if n == 0 else s(t = t[1:] + 'a', n = n - 1);\n}\n"
                            "fragment c( t: string, n: integer ) -> ( l: integer )\n{\n"
                            "    l = length_of(s(t = t, n = 900)) + (c(t = t, n = n - 1) if n > 0 else 0);\n}\n",
                            "    y = mul(x, scalar(c(t = 'a' * 1000000, n = 900)));\n"),
                   {"max_work", "max_recursion"}});
    out.push_back({"doubling array",
                   document("fragment big( n: integer ) -> ( a: integer[] )\n{\n"
                            "    a = [1] if n == 0 else big(n = n - 1) + big(n = n - 1);\n}\n",
                            "    y = mul(x, scalar(length_of(big(n = 40))));\n"),
                   {"max_work", "max_value_items"}});
    out.push_back({"array rebuilt at every call",
                   document("fragment c( a: integer[], n: integer ) -> ( l: integer )\n{\n"
                            "    l = length_of(a + [1]) + (c(a = a, n = n - 1) + c(a = a, n = n - 1) if n > 0 else 0);\n}\n",
                            "    y = mul(x, scalar(c(a = [0] * 4000000, n = 60)));\n"),
                   {"max_work"}});
    out.push_back({"array of shared arrays",
                   document("", "    y = mul(x, scalar(length_of([[0] * 4000000] * 4000000)));\n"), {"max_value_items"}});
    out.push_back({"membership in a large array at every call",
                   document("fragment c( a: integer[], n: integer ) -> ( l: integer )\n{\n"
                            "    l = (1 if 7 in a else 0) + (c(a = a, n = n - 1) + c(a = a, n = n - 1) if n > 0 else 0);\n}\n",
                            "    y = mul(x, scalar(c(a = [0] * 4000000, n = 60)));\n"),
                   {"max_work"}});
    return out;
}

}  // namespace hostile_limits_test

TEST_SUITE("tools") {
    TEST_CASE("default limits end every pathological document in bounded time and memory") {
        namespace hl = hostile_limits_test;
        if (NNEF_TEST_SANITIZED)
            NNEF_RELEASE_PASS_PART("the call trees of branching 3, 4, 8 and 16", "the same code as those of 2 and 64; 4 to 7 s each there");
        for (const hl::Case& c : hl::cases()) {
            CAPTURE(c.name);
            const std::string path = nnef_test::write_scratch("hostile-limits/graph.nnef", c.text).string();
            const hl::Run r = hl::run("nnef-validate", {"--quiet", path});
            MESSAGE(c.name << ": exit " << r.code << ", " << r.seconds << " s wall, " << r.cpu_seconds << " s CPU, "
                           << r.max_rss_kib / 1024 << " MiB");
            CHECK_MESSAGE(r.code == 1, r.err);
            bool named = false;
            for (const std::string& limit : c.limits) named = named || r.err.find("limit " + limit) != std::string::npos;
            CHECK_MESSAGE(named, r.err);
            CHECK(r.cpu_seconds < hl::kMaxSeconds);
            CHECK(r.seconds < hl::wall_bound());
            CHECK(r.max_rss_kib < hl::kMaxRssKiB);
        }
    }
}
