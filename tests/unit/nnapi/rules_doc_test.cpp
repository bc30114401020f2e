// Every rule code the validator reports (lowering/nnapi/validator.cpp, op_check.hpp, op_rules*.cpp) is listed in
// docs/nnapi.md, so that the page's table stays the complete list of what is checked.
#include <doctest/doctest.h>

#include <regex>
#include <set>
#include <string>

#include "test_support.hpp"

TEST_SUITE("nnapi") {
TEST_CASE("every validator rule code is documented in docs/nnapi.md") {
    const std::string docs = nnef_test::read_text(nnef_test::source_dir() / "docs/nnapi.md");
    const std::regex patterns[] = {
        std::regex(R"re(fail\(\s*(?:""|[^,"]*),\s*"([a-z0-9-]+)")re"),            // c.fail(position, "rule", ...)
        std::regex(R"re(fail\("([a-z0-9-]+)",)re"),                               // request: fail("rule", ...)
        std::regex(R"re(at_least\([^;]*?,\s*"([a-z0-9-]+)",\s*")re"),             // at_least(k, v, min, "rule", "what")
        std::regex(R"re(all_or_none\([^;]*?"([a-z0-9-]+)")re"),                   // all_or_none(c, {...}, "rule", ...)
        std::regex(R"re(operand_error\(diags, m, i, "([a-z0-9-]+)")re"),          // operand_error(..., "rule", ...)
        std::regex(R"re(model_error\(diags, "([a-z0-9-]+)")re"),                  // model_error(diags, "rule", ...)
        std::regex(R"re(report\(diags, m, k,[^;]*?,\s*"([a-z0-9-]+)",)re"),       // detail::report(..., "rule", ...)
    };
    std::set<std::string> codes;
    for (const char* file : {"validator.cpp", "op_check.hpp", "op_rules.cpp", "op_rules_sequence.cpp"}) {
        const std::string text = nnef_test::read_text(nnef_test::source_dir() / "lowering/nnapi" / file);
        for (const auto& re : patterns)
            for (auto it = std::sregex_iterator(text.begin(), text.end(), re); it != std::sregex_iterator(); ++it)
                codes.insert((*it)[1].str());
    }
    CHECK(codes.size() > 50);
    for (const auto& code : codes) {
        CAPTURE(code);
        const std::string family = code.substr(0, code.find('-')) + "-*";
        CHECK((docs.find("`" + code + "`") != std::string::npos || docs.find("`" + family + "`") != std::string::npos));
    }
}
}
