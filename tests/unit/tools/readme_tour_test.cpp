// The README's tour, run as a newcomer would: each line of the block after the marker comment,
// as written, from the repository root with the built tools first on PATH; each must exit with 0.
#include <doctest/doctest.h>

#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include "tool_runner.hpp"

namespace readme_tour_test {

namespace fs = std::filesystem;

// The lines of the first ```sh block after the line that names this test file.
std::vector<std::string> tour_lines(const std::string& readme) {
    std::istringstream in(readme);
    std::string line;
    bool marker = false, inside = false;
    std::vector<std::string> lines;
    while (std::getline(in, line)) {
        if (!marker) {
            marker = line.find("tests/unit/tools/readme_tour_test.cpp") != std::string::npos;
            continue;
        }
        if (!inside) {
            if (line.rfind("```sh", 0) == 0) inside = true;
            continue;
        }
        if (line.rfind("```", 0) == 0) break;
        if (!line.empty() && line[0] != '#') lines.push_back(line);
    }
    return lines;
}

}  // namespace readme_tour_test

TEST_SUITE("tools") {
    TEST_CASE("README: the tour's commands run as written") {
        namespace fs = readme_tour_test::fs;
        const std::string readme = nnef_test::read_text(nnef_test::source_dir() / "README.md");
        const std::vector<std::string> lines = readme_tour_test::tour_lines(readme);
        // the tour shows every tool, the SVG timeline included
        REQUIRE(lines.size() >= 6);
        std::string all;
        for (const std::string& l : lines) all += l + "\n";
        for (const char* tool : {"nnef-validate ", "nnef-flatten ", "nnef-info ", "nnef-run ", "nnef-to-tosa ", "nnef-to-vpu "}) {
            CAPTURE(tool);
            const bool shown = all.rfind(tool, 0) == 0 || all.find(std::string("\n") + tool) != std::string::npos;
            CHECK(shown);
        }
        CHECK(all.find("--svg ") != std::string::npos);
        // the tour writes into /tmp/nnef-tour: start from nothing, so that its files are this run's
        std::error_code ec;
        fs::remove_all("/tmp/nnef-tour", ec);
        const fs::path out = nnef_test::scratch_dir() / "tour-output.txt";
        for (const std::string& line : lines) {
            CAPTURE(line);
            const std::string cmd = "cd " + nnef_test::shell_quote(nnef_test::source_dir().string()) + " && PATH=" +
                                    nnef_test::shell_quote(std::string(NNEF_TOOLS_DIR)) + ":\"$PATH\" bash -c " +
                                    nnef_test::shell_quote(line) + " >" + nnef_test::shell_quote(out.string()) + " 2>&1";
            const int status = std::system(cmd.c_str());
            const int code = WIFEXITED(status) ? WEXITSTATUS(status) : 128;
            INFO(nnef_test::read_text(out));
            CHECK(code == 0);
        }
        // what the tour says it writes is there
        for (const char* file : {"/tmp/nnef-tour/probabilities.dat", "/tmp/nnef-tour/classifier.mlir",
                                 "/tmp/nnef-tour/classifier.svg"}) {
            CAPTURE(file);
            CHECK(fs::is_regular_file(file));
            CHECK(fs::file_size(file, ec) > 0);
        }
        CHECK(nnef_test::read_text("/tmp/nnef-tour/classifier.svg").find("<svg") != std::string::npos);
    }
}
