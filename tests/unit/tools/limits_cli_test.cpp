// The --max-* options of the tools: each sets its limit (the error names it), and a bad value is
// a usage error.
#include <doctest/doctest.h>

#include <cstdlib>

#include "tool_runner.hpp"

namespace {
using nnef_test::run_tool;
using nnef_test::shell_quote;

// Runs nnef-validate with `option` on `path`: exit `code` (1, invalid input; 2 for containers that
// cannot be read within the limits, an I/O error) and an error naming `limit`.
void refused(const std::string& option, const std::string& path, const std::string& limit, int code = 1) {
    CAPTURE(option);
    auto r = run_tool("nnef-validate", option + " " + shell_quote(path));
    CHECK(r.code == code);
    CHECK_MESSAGE(r.err.find(limit) != std::string::npos, r.err);
}
}  // namespace

TEST_SUITE("tools") {
    TEST_CASE("--max-* options set the limits") {
        const std::string doc = nnef_test::write_scratch(
            "cli-limits/graph.nnef",
            "version 1.0;\nextension KHR_enable_fragment_definitions, KHR_enable_operator_expressions;\n"
            "fragment twice( n: integer ) -> ( a: integer )\n{\n    a = 1 if n == 0 else twice(n = n - 1) + twice(n = n - 1);\n}\n"
            "graph G( x ) -> ( y )\n{\n    x = external(shape = [4, 30, 5]);\n"
            "    w = variable(shape = [4, 30, 5], label = 'a_rather_long_label');\n"
            "    z = add(x, ((w)));\n    y = mul(z, scalar(twice(n = 7)));\n}\n").string();
        auto fine = run_tool("nnef-validate", shell_quote(doc));
        CHECK_MESSAGE(fine.code == 0, fine.err);
        refused("--max-rank 2", doc, "max_rank = 2");
        refused("--max-volume=500", doc, "max_volume = 500");
        refused("--max-string-length 10", doc, "max_string_length");
        refused("--max-operations 3", doc, "max_operations (3)");
        refused("--max-expansions 4", doc, "max_expansions (4)");
        refused("--max-work 10", doc, "limit max_work (10)");
        refused("--max-nesting 2", doc, "max_nesting");
        for (const char* option : {"--max-rank", "--max-volume", "--max-string-length", "--max-archive-members",
                                   "--max-archive-bytes"}) {
            CAPTURE(option);
            CHECK(run_tool("nnef-validate", std::string(option) + " -1 " + shell_quote(doc)).code == 2);
            CHECK(run_tool("nnef-validate", std::string(option) + "=x " + shell_quote(doc)).code == 2);
        }
        auto help = run_tool("nnef-validate", "--help");
        for (const char* option : {"--max-string-length", "--max-rank", "--max-volume", "--max-archive-members",
                                   "--max-archive-bytes", "--max-work"})
            CHECK(help.out.find(option) != std::string::npos);
    }

    TEST_CASE("the default --max-rank accepts a rank-9 graph tensor") {
        // Valid NNEF: the spec limits rank in tensor files only (chapter 5).
        const std::string doc = nnef_test::write_scratch(
            "cli-rank9/graph.nnef",
            "version 1.0;\ngraph G( x ) -> ( y )\n{\n    x = external(shape = [2, 3]);\n"
            "    c = constant(shape = [1, 1, 1, 1, 1, 1, 1, 2, 3], value = [1.0]);\n    y = add(x, c);\n}\n").string();
        auto r = run_tool("nnef-validate", shell_quote(doc));
        CHECK_MESSAGE(r.code == 0, r.err);
        refused("--max-rank 8", doc, "max_rank = 8");
        auto help = run_tool("nnef-validate", "--help");
        CHECK(help.out.find("(default 64;") != std::string::npos);
    }

    TEST_CASE("--max-errors caps the errors reported") {
        std::string body;
        for (int i = 0; i < 6; ++i) body += "    a" + std::to_string(i) + " = relu(missing" + std::to_string(i) + ");\n";
        const std::string doc = nnef_test::write_scratch(
            "cli-errors/graph.nnef", "version 1.0;\ngraph G( x ) -> ( y )\n{\n    x = external(shape = [1]);\n" + body +
                                         "    y = copy(x);\n}\n").string();
        auto all = run_tool("nnef-validate", shell_quote(doc));
        CHECK(all.code == 1);
        CHECK(all.err.find("missing5") != std::string::npos);
        auto capped = run_tool("nnef-validate", "--max-errors 2 " + shell_quote(doc));
        CHECK(capped.code == 1);
        CHECK(capped.err.find("missing1") != std::string::npos);
        CHECK(capped.err.find("missing2") == std::string::npos);
        CHECK(capped.err.find("stopped after 2 errors (limit max_errors, --max-errors)") != std::string::npos);
    }

    TEST_CASE("--max-archive-members and --max-archive-bytes") {
        const auto dir = nnef_test::scratch_dir() / "cli-archive";
        nnef_test::write_scratch("cli-archive/graph.nnef",
                                 "version 1.0;\ngraph G( x ) -> ( y )\n{\n    x = external(shape = [1]);\n    y = relu(x);\n}\n");
        nnef_test::write_scratch("cli-archive/padding.txt", std::string(8192, 'p'));
        nnef_test::write_scratch("cli-archive/more.txt", "m");
        const std::string tgz = (nnef_test::scratch_dir() / "cli-archive.tgz").string();
        REQUIRE(std::system(("tar -C " + shell_quote(dir.string()) + " -czf " + shell_quote(tgz) +
                             " graph.nnef padding.txt more.txt").c_str()) == 0);
        CHECK(run_tool("nnef-validate", "--quiet " + shell_quote(tgz)).code == 0);
        refused("--max-archive-members 2", tgz, "max_members (2)", 2);
        refused("--max-archive-bytes 4096", tgz, "max_total_bytes (4096", 2);
    }
}
