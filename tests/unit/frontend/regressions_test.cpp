// Replays every saved text fuzzer input under tests/unit/frontend/regressions/ with the fuzz
// targets' checks (fuzz/text_checks.hpp), in every build: `document-*` files as NNEF documents,
// `quant-*` files as graph.quant text. Also: the fixed graph of fuzz_quant loads, and the
// dictionary of the text targets (fuzz/nnef.dict) names every standard fragment.
#include <doctest/doctest.h>

#include <sstream>
#include <string>

#include "fuzz/text_checks.hpp"
#include "fuzz_replay.hpp"

TEST_SUITE("frontend") {
    TEST_CASE("text fuzzer regressions replay cleanly") {
        const std::size_t replayed = nnef_test::replay_fuzz_inputs(
            nnef_test::source_dir() / "tests/unit/frontend/regressions",
            {{"document-", nnef_fuzz::check_document_text}, {"quant-", nnef_fuzz::check_quant_text}});
        MESSAGE("replayed " << replayed << " text fuzzer inputs");
    }

    TEST_CASE("text fuzz targets: fixed graph, seeds-like inputs, dictionary") {
        REQUIRE(nnef_fuzz::quant_fixture().error == "");
        auto text = [](const std::string& s) { return reinterpret_cast<const std::uint8_t*>(s.data()); };
        for (const std::string q : {"\"act\": my_quantize(hi = 4.0);\n", "'w': linear_quantize(min = -1.0, max = 1.0, bits = 8);\n",
                                    "\"nope\": linear_quantize(min = 0.0, max = 1.0, bits = 8);\n", "garbage"}) {
            CAPTURE(q);
            CHECK(nnef_fuzz::check_quant_text(text(q), q.size()) == "");
        }
        const std::string sample = nnef_test::read_text(nnef_test::source_dir() / "samples/composite/graph.nnef");
        CHECK(nnef_fuzz::check_document_text(text(sample), sample.size()) == "");
        CHECK(nnef_fuzz::check_document_text(text(sample), sample.size() / 2) == "");

        const std::string dict = nnef_test::read_text(nnef_test::source_dir() / "fuzz/nnef.dict");
        const std::string stdlib =
            std::string(nnef::sema::stdlib_rev3_text()) + std::string(nnef::sema::stdlib_later_text());
        std::size_t names = 0;
        std::istringstream lines(stdlib);
        for (std::string line; std::getline(lines, line);) {
            // `fragment NAME` at the start of a line (std::regex trips GCC 12's -Wmaybe-uninitialized
            // in sanitizer builds).
            std::istringstream words(line);
            std::string keyword, name;
            if (!(words >> keyword >> name) || keyword != "fragment") continue;
            name = name.substr(0, name.find_first_not_of(
                                      "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_"));
            CAPTURE(name);
            CHECK(dict.find("\"" + name + "\"") != std::string::npos);
            ++names;
        }
        CHECK(names > 100);
    }
}
