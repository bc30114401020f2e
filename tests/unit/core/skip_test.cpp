// The one way a test skips (tests/common/skip.hpp) and what the test main makes of it: a skipped test
// says why and exits with CTest's skip code 77, a failure before a skip still fails, a test with no
// assertion fails, a filter that matches no test fails, a corpus file a test names fails the test
// when the corpus lacks it; every skip is written to the skip log, which tests/print_skips.sh
// prints. The fixtures below are doctest::skip()-decorated: they run only when this test runs this
// executable on one of them.
#include <dlfcn.h>
#include <doctest/doctest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "test_support.hpp"

namespace skip_test {

namespace fs = std::filesystem;

struct Outcome {
    int code = -1;
    std::string out;  // stdout and stderr
};

Outcome run(const std::string& command) {
    Outcome o;
    FILE* p = ::popen((command + " 2>&1").c_str(), "r");
    REQUIRE(p);
    std::array<char, 4096> buf{};
    for (std::size_t n; (n = std::fread(buf.data(), 1, buf.size(), p)) > 0;) o.out.append(buf.data(), n);
    const int status = ::pclose(p);
    o.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    return o;
}

// A fresh skip log for this test's runs of fixtures (not the build's, which CTest prints).
fs::path fixture_log() {
    static const fs::path log = fs::temp_directory_path() / ("nnef-skip-test-" + std::to_string(::getpid()) + ".txt");
    return log;
}

// This executable on one fixture test case, its skips written to fixture_log().
Outcome fixture(const std::string& name) {
    const fs::path self = fs::read_symlink("/proc/self/exe");
    return run("NNEF_SKIP_LOG='" + fixture_log().string() + "' '" + self.string() + "' --no-skip --test-case='" + name + "'");
}

bool has(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

TEST_SUITE("core") {

TEST_CASE("skip fixture: passes" * doctest::skip()) { CHECK(1 + 1 == 2); }
TEST_CASE("skip fixture: skips" * doctest::skip()) { NNEF_SKIP("the fixture's reason, " << 42); }
TEST_CASE("skip fixture: fails then skips" * doctest::skip()) {
    CHECK(1 + 1 == 3);
    NNEF_SKIP("too late to skip");
}
TEST_CASE("skip fixture: checks nothing" * doctest::skip()) { MESSAGE("a message is not an assertion"); }
TEST_CASE("skip fixture: a corpus file the corpus lacks" * doctest::skip()) {
    NNEF_REQUIRE_CORPUS();
    nnef_test::corpus_file("no/such/file.dat");
}

TEST_CASE("skip fixture: release pass only" * doctest::skip()) {
    NNEF_RELEASE_PASS_ONLY("the fixture's reason");
    CHECK(1 + 1 == 2);
}

TEST_CASE("skips: a skipped test says why and exits with 77, failing and empty tests fail") {
    fs::remove(fixture_log());
    const Outcome passes = fixture("skip fixture: passes");
    CHECK_MESSAGE(passes.code == 0, passes.out);
    const Outcome skips = fixture("skip fixture: skips");
    CHECK_MESSAGE(skips.code == 77, skips.out);
    CHECK_MESSAGE(has(skips.out, "MESSAGE: skipped: the fixture's reason, 42"), skips.out);
    const Outcome late = fixture("skip fixture: fails then skips");
    CHECK_MESSAGE(late.code == 1, late.out);
    const Outcome empty = fixture("skip fixture: checks nothing");
    CHECK_MESSAGE(empty.code == 1, empty.out);
    CHECK_MESSAGE(has(empty.out, "error: test case 'skip fixture: checks nothing' passed without a single assertion"), empty.out);
    // two test cases, one skipped: the run is not a skip
    const Outcome both = fixture("skip fixture: passes,skip fixture: skips");
    CHECK_MESSAGE(both.code == 0, both.out);
    // a filter that matches nothing (a CTest name cut at a ';') fails
    const Outcome none = fixture("skip fixture: no such test case");
    CHECK_MESSAGE(none.code == 1, none.out);
    CHECK_MESSAGE(has(none.out, "error: no test case matches --test-case=skip fixture: no such test case"), none.out);
    // the skip log has each skip with its test, once per skipping run
    CHECK(nnef_test::read_text(fixture_log()) ==
          "core:skip fixture: skips: skipped: the fixture's reason, 42\n"
          "core:skip fixture: fails then skips: skipped: too late to skip\n"
          "core:skip fixture: skips: skipped: the fixture's reason, 42\n");
    fs::remove(fixture_log());
}

TEST_CASE("skips: NNEF_RELEASE_PASS_ONLY skips, saying why, exactly when AddressSanitizer's runtime is in the process") {
    fs::remove(fixture_log());
    const bool sanitized = ::dlsym(RTLD_DEFAULT, "__asan_init") != nullptr;
    const Outcome o = fixture("skip fixture: release pass only");
    if (sanitized) {
        CHECK_MESSAGE(o.code == 77, o.out);
        CHECK(nnef_test::read_text(fixture_log()) ==
              "core:skip fixture: release pass only: skipped: left to the Release pass (costly under the sanitizers): the fixture's reason\n");
    } else {
        CHECK_MESSAGE(o.code == 0, o.out);
        CHECK_FALSE(fs::exists(fixture_log()));
    }
    fs::remove(fixture_log());
}

TEST_CASE("skips: a corpus file a test names fails the test when the corpus is present and lacks it") {
    const Outcome o = fixture("skip fixture: a corpus file the corpus lacks");
    if (nnef_test::have_corpus()) {
        CHECK_MESSAGE(o.code == 1, o.out);
        CHECK_MESSAGE(has(o.out, "lacks no/such/file.dat"), o.out);
    } else {
        CHECK_MESSAGE(o.code == 77, o.out);
        CHECK_MESSAGE(has(o.out, "skipped: corpus not found at"), o.out);
    }
    fs::remove(fixture_log());
}

TEST_CASE("skips: print_skips.sh prints the skip log of a run, or that nothing skipped") {
    const fs::path log = fixture_log();
    fs::remove(log);
    const Outcome skips = fixture("skip fixture: skips");
    REQUIRE(skips.code == 77);
    {
        std::ofstream out(log, std::ios::app);
        out << "tosa:b: partly skipped: corpus not found at /c: samples only\n";
    }
    const std::string script = (nnef_test::source_dir() / "tests" / "print_skips.sh").string();
    const Outcome o = run("sh '" + script + "' '" + log.string() + "'");
    CHECK(o.code == 0);
    CHECK_MESSAGE(has(o.out, "Skips of this run, with their reasons"), o.out);
    CHECK_MESSAGE(has(o.out, "\n  core:skip fixture: skips: skipped: the fixture's reason, 42\n"), o.out);
    CHECK_MESSAGE(has(o.out, "\n  tosa:b: partly skipped: corpus not found at /c: samples only\n"), o.out);
    // no log (CTest removes it before a run): nothing skipped, and success (a failing post-test
    // command fails CTest)
    fs::remove(log);
    const Outcome none = run("sh '" + script + "' '" + log.string() + "'");
    CHECK(none.code == 0);
    CHECK_MESSAGE(has(none.out, "No test skipped anything"), none.out);
}

}  // TEST_SUITE

}  // namespace skip_test
