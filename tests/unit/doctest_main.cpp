// The main of every unit-test executable: doctest's, plus what tests/common/skip.hpp promises. A
// test case that skipped (NNEF_SKIP) counts as skipped; a run in which every test case skipped and
// none failed exits with 77 (the tests' CTest SKIP_RETURN_CODE); a test case that passed without an
// assertion and did not skip fails the run, named on stderr; so does a --test-case filter that
// matches no test case.
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include <iostream>
#include <string>
#include <vector>

#include "common/skip.hpp"

namespace {

struct RunTally {
    int ran = 0, skipped = 0, failed = 0;
    std::vector<std::string> without_assertions;
};
RunTally& tally() {
    static RunTally t;
    return t;
}

// Counts test cases as they end (a listener: it adds to the reporters, does not replace them).
struct SkipListener : doctest::IReporter {
    const doctest::TestCaseData* current = nullptr;
    explicit SkipListener(const doctest::ContextOptions&) {}
    void report_query(const doctest::QueryData&) override {}
    void test_run_start() override {}
    void test_run_end(const doctest::TestRunStats&) override {}
    void test_case_start(const doctest::TestCaseData& data) override {
        current = &data;
        nnef_test::test_case_skipped() = false;
        nnef_test::current_test_case() = data.m_name;
    }
    void test_case_reenter(const doctest::TestCaseData&) override {}
    void test_case_end(const doctest::CurrentTestCaseStats& st) override {
        RunTally& t = tally();
        ++t.ran;
        if (!st.testCaseSuccess) ++t.failed;
        else if (nnef_test::test_case_skipped()) ++t.skipped;
        else if (st.numAssertsCurrentTest == 0 && current) t.without_assertions.push_back(current->m_name);
    }
    void test_case_exception(const doctest::TestCaseException&) override {}
    void subcase_start(const doctest::SubcaseSignature&) override {}
    void subcase_end() override {}
    void log_assert(const doctest::AssertData&) override {}
    void log_message(const doctest::MessageData&) override {}
    void test_case_skipped(const doctest::TestCaseData&) override {}
};
REGISTER_LISTENER("nnef-skips", 1, SkipListener);

}  // namespace

int main(int argc, char** argv) {
    doctest::Context context(argc, argv);
    const int result = context.run();
    if (context.shouldExit()) return result;
    const RunTally& t = tally();
    // A test-case filter that matches nothing (CTest runs each test case by name, and cuts a name
    // at a ';' into two that match none) would pass having run nothing.
    for (int k = 1; k < argc && t.ran == 0; ++k) {
        const std::string arg = argv[k];
        if (arg.rfind("--test-case=", 0) == 0 || arg.rfind("-tc=", 0) == 0) {
            std::cerr << "error: no test case matches " << arg << " (a ';' in a test case's name cuts its CTest name)\n";
            return 1;
        }
    }
    for (const std::string& name : t.without_assertions)
        std::cerr << "error: test case '" << name
                  << "' passed without a single assertion: it checks nothing (NNEF_SKIP says why a test cannot run)\n";
    if (result != 0 || !t.without_assertions.empty()) return result != 0 ? result : 1;
    return t.ran > 0 && t.skipped == t.ran ? 77 : 0;
}
