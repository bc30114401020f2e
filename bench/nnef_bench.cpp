// Front-end benchmark: generates large flat graphs and a deep compositional network, then times
// whole `nnef-validate` processes on them (median of several runs) against a baseline measured in
// the same run (reading the same file with `cat`), and reports MB/s, operations/s and peak RSS.
//
//   nnef-bench generate flat N FILE      conv/relu/add/concat blocks with variables, ~N operations
//   nnef-bench generate deep N FILE      compositional: recursion depth N, comprehension blocks
//   nnef-bench run VALIDATE FILE... [--repeat R]
//   nnef-bench compare BEFORE AFTER FILE... [--repeat R] [-- ARG...]
//                                        two builds of nnef-validate, interleaved: per-pair ratios
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

namespace nnef_bench {

std::size_t generate_flat(std::size_t n_ops, std::ostream& os) {
    std::mt19937 rng(12345);
    const int C = 8, H = 8;
    std::ostringstream body;
    std::size_t count = 0, var = 0, block = 0;
    auto emit = [&](const std::string& s) {
        body << "    " << s << ";\n";
        ++count;
    };
    auto variable = [&](const std::string& shape, const std::string& what) {
        std::string name = "v" + std::to_string(++var);
        emit(name + " = variable(shape = [" + shape + "], label = 'block" + std::to_string(block) + "/" + what + "')");
        return name;
    };
    emit("input = external(shape = [1, " + std::to_string(C) + ", " + std::to_string(H) + ", " + std::to_string(H) + "])");
    std::vector<std::string> history{"input"};
    std::string x = "input";
    const std::string c = std::to_string(C);
    while (count < n_ops) {
        ++block;
        std::string p = "b" + std::to_string(block) + "_";
        std::string w1 = variable(c + ", " + c + ", 3, 3", "conv1/filter");
        std::string b1 = variable("1, " + c, "conv1/bias");
        emit(p + "conv1 = conv(" + x + ", " + w1 + ", " + b1 +
             ", border = 'constant', padding = [(1, 1), (1, 1)], stride = [1, 1], dilation = [1, 1])");
        emit(p + "relu1 = relu(" + p + "conv1)");
        emit(p + "add1 = add(" + p + "relu1, " + x + ")");
        std::string skip = rng() % 2 ? history.back() : history[rng() % history.size()];
        emit(p + "cat = concat([" + p + "add1, " + skip + "], axis = 1)");
        std::string w2 = variable(c + ", " + std::to_string(2 * C) + ", 1, 1", "conv2/filter");
        emit(p + "conv2 = conv(" + p + "cat, " + w2 + ", 0.0, padding = [(0, 0), (0, 0)])");
        std::string y = p + "conv2";
        switch (rng() % 6) {
            case 0: emit(p + "out = mul(" + y + ", 0.5)"); break;
            case 1: emit(p + "out = clamp(" + y + ", -6.0, 6.0)"); break;
            case 2:
                emit(p + "out = max_pool(" + y + ", size = [1, 1, 3, 3], border = 'ignore', padding = [(0, 0), (0, 0), (1, 1), (1, 1)])");
                break;
            case 3: emit(p + "out = add(" + y + ", " + history[rng() % history.size()] + ")"); break;
            case 4: emit(p + "out = sigmoid(" + y + ")"); break;
            default: emit(p + "out = relu(" + y + ")"); break;
        }
        x = p + "out";
        history.push_back(x);
    }
    emit("output = copy(" + x + ")");
    os << "version 1.0;\n\ngraph flat( input ) -> ( output )\n{\n" << body.str() << "}\n";
    return count;
}

std::size_t generate_deep(std::size_t depth, std::ostream& os) {
    os << "version 1.0;\nextension KHR_enable_fragment_definitions;\nextension KHR_enable_operator_expressions;\n\n"
          "fragment unit( x: tensor<scalar>, channels: integer, label: string ) -> ( y: tensor<scalar> )\n{\n"
          "    c = shape_of(x)[1];\n"
          "    w = variable(shape = [channels, c, 3, 3], label = label + '/w');\n"
          "    b = variable(shape = [1, channels], label = label + '/b');\n"
          "    y = relu(conv(x, w, b));\n}\n\n"
          "fragment block( x: tensor<scalar>, widths: integer[], label: string ) -> ( y: tensor<scalar> )\n{\n"
          "    parts = [for i in range_of(widths) yield unit(x, channels = widths[i], label = label + '/u' + string(i))];\n"
          "    y = concat(parts, axis = 1) + x;\n}\n\n"
          "fragment tower( x: tensor<scalar>, depth: integer, index: integer = 0 ) -> ( y: tensor<scalar> )\n{\n"
          "    z = block(x, widths = [4, 2, 2], label = 'level' + string(index));\n"
          "    y = tower(z, depth = depth, index = index + 1) if index + 1 < depth else z;\n}\n\n"
          "graph deep( input ) -> ( output )\n{\n"
          "    input = external(shape = [1, 8, 16, 16]);\n"
       << "    output = tower(input, depth = " << depth << ");\n}\n";
    return depth * 14 + 1;  // per level: 3 units x (2 variables + conv + relu), concat and add
}

struct Sample {
    double seconds;
    double user;    // CPU seconds in user mode
    double system;  // CPU seconds in the kernel
    long max_rss_kb;
    int status;
};

double seconds_of(const struct timeval& tv) { return static_cast<double>(tv.tv_sec) + static_cast<double>(tv.tv_usec) / 1e6; }

Sample run_once(const std::vector<std::string>& argv) {
    std::fflush(stdout);
    std::fflush(stderr);
    auto start = std::chrono::steady_clock::now();
    pid_t pid = fork();
    if (pid == 0) {
        std::vector<char*> args;
        for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
        args.push_back(nullptr);
        if (!freopen("/dev/null", "w", stdout)) _exit(127);
        execv(args[0], args.data());
        _exit(127);
    }
    int status = 0;
    struct rusage ru {};
    wait4(pid, &status, 0, &ru);
    double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return Sample{s, seconds_of(ru.ru_utime), seconds_of(ru.ru_stime), ru.ru_maxrss,
                  WIFEXITED(status) ? WEXITSTATUS(status) : -1};
}

template <class T>
T median(std::vector<T> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

// Times whole nnef-validate processes on each file. Absolute figures move with the machine; what
// holds across machines are the ratios, each taken pair by pair in the same run (the runs alternate,
// so a drift of the machine's speed moves both sides of a pair): against `cat FILE` (reading the
// bytes) and against the full front end (`--no-fast-path`, where the file takes the fast path).
int run(const std::string& validate, const std::vector<std::string>& files, int repeat) {
    std::printf("%-28s %6s %8s %8s %7s %9s %7s %7s %7s %8s %7s %7s\n", "file", "MB", "ops", "median_s", "MB/s", "ops/s",
                "user_s", "sys_s", "RSS_MB", "RSS/size", "vs_cat", "vs_full");
    for (const std::string& f : files) {
        std::ifstream in(f, std::ios::binary | std::ios::ate);
        double mb = static_cast<double>(in.tellg()) / 1e6;
        // The operation count comes from one validate run in JSON.
        std::string cmd = validate + " --format json '" + f + "'";
        FILE* p = popen(cmd.c_str(), "r");
        std::string json;
        char buf[4096];
        while (p && fgets(buf, sizeof buf, p)) json += buf;
        if (p) pclose(p);
        auto pos = json.find("\"operations\":");
        long ops = pos == std::string::npos ? 0 : std::atol(json.c_str() + pos + 13);
        std::vector<double> t, user, sys, vs_cat, vs_full;
        std::vector<long> rss;
        for (int i = 0; i < repeat; ++i) {
            // The order alternates (validate, cat, full; then full, cat, validate) so that no side
            // always runs on the state the other left.
            Sample s, cat, full;
            if (i % 2 == 0) {
                s = run_once({validate, "--quiet", f});
                cat = run_once({"/bin/cat", f});
                full = run_once({validate, "--quiet", "--no-fast-path", f});
            } else {
                full = run_once({validate, "--quiet", "--no-fast-path", f});
                cat = run_once({"/bin/cat", f});
                s = run_once({validate, "--quiet", f});
            }
            if (s.status != 0) {
                std::fprintf(stderr, "%s: nnef-validate failed (exit %d)\n", f.c_str(), s.status);
                return 1;
            }
            t.push_back(s.seconds);
            user.push_back(s.user);
            sys.push_back(s.system);
            rss.push_back(s.max_rss_kb);
            vs_cat.push_back(s.seconds / cat.seconds);
            if (full.status != 0) {
                std::fprintf(stderr, "%s: nnef-validate --no-fast-path failed (exit %d)\n", f.c_str(), full.status);
                return 1;
            }
            vs_full.push_back(s.seconds / full.seconds);
        }
        double med = median(t), rss_mb = static_cast<double>(median(rss)) / 1024.0;
        std::printf("%-28s %6.2f %8ld %8.3f %7.1f %9.0f %7.3f %7.3f %7.1f %8.2f %7.1f %7.2f\n", f.c_str(), mb, ops, med,
                    mb / med, static_cast<double>(ops) / med, median(user), median(sys), rss_mb, rss_mb * 1.048576 / mb,
                    median(vs_cat), median(vs_full));
    }
    std::printf("median of %d runs each; vs_cat and vs_full: median of the per-pair ratios of wall times (nnef-validate / "
                "cat FILE, nnef-validate / nnef-validate --no-fast-path)\n", repeat);
    return 0;
}

// Two builds of nnef-validate (or one with two sets of flags: the same path twice) on the same
// files, in pairs: A B, then B A, then A B ... (the order alternates so that neither side always
// runs on a cache or machine state the other left). Prints both sides' medians and the median of
// the per-pair ratios AFTER / BEFORE of the wall time, the CPU time (user + system), the user and
// the system time: below 1 is faster.
int compare(const std::string& before, const std::string& after, const std::vector<std::string>& files, int repeat,
            const std::vector<std::string>& extra) {
    std::printf("%-28s %-6s %8s %7s %8s %8s %8s %7s\n", "file", "build", "wall_s", "MB/s", "user_s", "sys_s", "cpu_s",
                "RSS_MB");
    for (const std::string& f : files) {
        std::ifstream in(f, std::ios::binary | std::ios::ate);
        const double mb = static_cast<double>(in.tellg()) / 1e6;
        std::vector<std::string> args_a{before, "--quiet"}, args_b{after, "--quiet"};
        for (const std::string& e : extra) {
            args_a.push_back(e);
            args_b.push_back(e);
        }
        args_a.push_back(f);
        args_b.push_back(f);
        std::vector<Sample> a, b;
        std::vector<double> r_wall, r_cpu, r_user, r_sys;
        auto ratio = [](double x, double y) { return y > 0 ? x / y : 0.0; };
        for (int i = 0; i < repeat; ++i) {
            Sample sa, sb;
            if (i % 2 == 0) {
                sa = run_once(args_a);
                sb = run_once(args_b);
            } else {
                sb = run_once(args_b);
                sa = run_once(args_a);
            }
            if (sa.status != 0 || sb.status != 0) {
                std::fprintf(stderr, "%s: nnef-validate failed (exit %d / %d)\n", f.c_str(), sa.status, sb.status);
                return 1;
            }
            a.push_back(sa);
            b.push_back(sb);
            r_wall.push_back(ratio(sb.seconds, sa.seconds));
            r_cpu.push_back(ratio(sb.user + sb.system, sa.user + sa.system));
            r_user.push_back(ratio(sb.user, sa.user));
            r_sys.push_back(ratio(sb.system, sa.system));
        }
        for (int side = 0; side < 2; ++side) {
            const std::vector<Sample>& s = side == 0 ? a : b;
            std::vector<double> wall, user, sys, cpu;
            std::vector<long> rss;
            for (const Sample& x : s) {
                wall.push_back(x.seconds);
                user.push_back(x.user);
                sys.push_back(x.system);
                cpu.push_back(x.user + x.system);
                rss.push_back(x.max_rss_kb);
            }
            std::printf("%-28s %-6s %8.3f %7.1f %8.3f %8.3f %8.3f %7.1f\n", f.c_str(), side == 0 ? "before" : "after",
                        median(wall), mb / median(wall), median(user), median(sys), median(cpu),
                        static_cast<double>(median(rss)) / 1024.0);
        }
        std::printf("%-28s %-6s wall %.3f  cpu %.3f  user %.3f  sys %.3f  (per-pair medians, range of wall %.3f to %.3f)\n",
                    f.c_str(), "ratio", median(r_wall), median(r_cpu), median(r_user), median(r_sys),
                    *std::min_element(r_wall.begin(), r_wall.end()), *std::max_element(r_wall.begin(), r_wall.end()));
    }
    std::printf("%d pairs each, order alternating (A B, B A, ...); ratio: after / before, median over the pairs (a "
                "system-time ratio of 0 means the before side's was below the clock's resolution)\n", repeat);
    return 0;
}

}  // namespace nnef_bench

int main(int argc, char** argv) {
    std::vector<std::string> args(argv + 1, argv + argc);
    if (args.size() == 4 && args[0] == "generate") {
        std::size_t n = std::strtoull(args[2].c_str(), nullptr, 10);
        std::ofstream out(args[3], std::ios::binary);
        std::size_t ops = args[1] == "deep" ? nnef_bench::generate_deep(n, out) : nnef_bench::generate_flat(n, out);
        std::cout << args[3] << ": ~" << ops << " operations\n";
        return out ? 0 : 1;
    }
    if (args.size() >= 3 && args[0] == "run") {
        int repeat = 5;
        std::vector<std::string> files;
        for (std::size_t i = 2; i < args.size(); ++i) {
            if (args[i] == "--repeat" && i + 1 < args.size()) repeat = std::atoi(args[++i].c_str());
            else files.push_back(args[i]);
        }
        return nnef_bench::run(args[1], files, std::max(1, repeat));
    }
    if (args.size() >= 4 && args[0] == "compare") {
        int repeat = 11;
        std::vector<std::string> files, extra;
        for (std::size_t i = 3; i < args.size(); ++i) {
            if (args[i] == "--") {
                extra.assign(args.begin() + static_cast<std::ptrdiff_t>(i) + 1, args.end());
                break;
            }
            if (args[i] == "--repeat" && i + 1 < args.size()) repeat = std::atoi(args[++i].c_str());
            else files.push_back(args[i]);
        }
        return nnef_bench::compare(args[1], args[2], files, std::max(1, repeat), extra);
    }
    std::cerr << "usage: nnef-bench generate flat|deep N FILE\n       nnef-bench run PATH/TO/nnef-validate FILE... [--repeat R]\n"
                 "       nnef-bench compare BEFORE/nnef-validate AFTER/nnef-validate FILE... [--repeat R] [-- ARG...]\n";
    return 2;
}
