// The header-only implementation file must include every library source file.
#include <doctest/doctest.h>

#include <filesystem>
#include <regex>
#include <sstream>
#include <set>
#include <string>

#include "test_support.hpp"

TEST_SUITE("core") {
    TEST_CASE("nnef/detail/implementation.hpp lists every library source") {
        namespace fs = std::filesystem;
        std::string text = nnef_test::read_text(nnef_test::source_dir() / "nnef/detail/implementation.hpp");
        std::set<std::string> on_disk;
        for (const char* dir : {"nnef/detail", "grammar", "semantics", "semantics/ops", "storage", "exec", "exec/kernels",
                                "lowering", "lowering/tosa", "lowering/tosa/from_nnef", "lowering/tosa/passes",
                                "lowering/vpu", "lowering/vpu/passes"}) {
            if (!fs::is_directory(nnef_test::source_dir() / dir)) continue;
            for (const auto& e : fs::directory_iterator(nnef_test::source_dir() / dir))
                if (e.path().extension() == ".cpp") on_disk.insert(std::string(dir) + "/" + e.path().filename().string());
        }
        REQUIRE(on_disk.size() > 10);
        for (const std::string& f : on_disk) {
            CAPTURE(f);
            CHECK(text.find("#include \"" + f + "\"") != std::string::npos);
            // Header-only mode compiles all of them in one translation unit: a using-directive at
            // namespace scope would carry a file's private helpers into every later file (and make
            // helpers of the same name ambiguous there). Such directives belong inside functions.
            std::istringstream lines(nnef_test::read_text(nnef_test::source_dir() / f));
            std::string line;
            int number = 0;
            static const std::regex file_private(R"(^using namespace \w+;)");
            while (std::getline(lines, line)) {
                ++number;
                CAPTURE(number);
                CHECK_MESSAGE(!std::regex_search(line, file_private), line);
            }
        }
    }
}
