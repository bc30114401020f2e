// The header-only implementation file must include every library source file.
#include <doctest/doctest.h>

#include <filesystem>
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
        }
    }
}
