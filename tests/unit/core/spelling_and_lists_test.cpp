// The library's "did you mean" helper (nnef/detail/spelling.hpp) and the rendering of a list of
// diagnostics for a person (nnef::render_list: warnings alike collapsed, or none).
#include <doctest/doctest.h>

#include <nnef/diagnostics.hpp>
#include <nnef/source.hpp>

#include <string>

#include "nnef/detail/spelling.hpp"

namespace spelling_test {

std::size_t count(const std::string& text, const std::string& part) {
    std::size_t n = 0;
    for (std::size_t at = text.find(part); at != std::string::npos; at = text.find(part, at + 1)) ++n;
    return n;
}

}  // namespace spelling_test

TEST_SUITE("core") {
    TEST_CASE("edit distance: insertions, deletions, substitutions, transpositions, the limit") {
        using nnef::detail::edit_distance;
        CHECK(edit_distance("relu", "relu", 3) == 0);
        CHECK(edit_distance("relu", "rleu", 3) == 1);   // transposition
        CHECK(edit_distance("relu", "reluu", 3) == 1);  // insertion
        CHECK(edit_distance("stride", "strid", 3) == 1);  // deletion
        CHECK(edit_distance("conv", "cinv", 3) == 1);   // substitution
        CHECK(edit_distance("kitten", "sitting", 5) == 3);
        CHECK(edit_distance("", "abc", 5) == 3);
        CHECK(edit_distance("abcdefgh", "a", 2) == 3);  // beyond the limit: limit + 1
        CHECK(edit_distance("sigmoid", "softmax", 2) == 3);
    }

    TEST_CASE("closest name: within a third of the length, ties alphabetical, no echo, short names none") {
        nnef::detail::ClosestName a("rleu");
        for (const char* c : {"tanh", "relu", "elu", "selu", "rleu"}) a.consider(c);
        CHECK(a.best() == "relu");  // distance 1 against elu/selu's 2; the equal name is skipped
        CHECK(a.suffix() == "; did you mean 'relu'?");

        nnef::detail::ClosestName tie("abcx");
        for (const char* c : {"abcz", "abcy"}) tie.consider(c);
        CHECK(tie.best() == "abcy");

        nnef::detail::ClosestName far("frobnicate");
        for (const char* c : {"relu", "conv", "deconv", "max_pool"}) far.consider(c);
        CHECK(far.best().empty());
        CHECK(far.suffix().empty());

        nnef::detail::ClosestName tiny("x");
        tiny.consider("y");
        CHECK(tiny.best().empty());
    }

    TEST_CASE("render_list: warnings alike shown three times, then a count, errors in full, or no warnings") {
        nnef::SourceManager sm;
        auto id = sm.add("g.nnef", "version 1.0;\ngraph G(x) -> (y)\n");
        nnef::Diagnostics diags(0);
        for (int i = 0; i < 7; ++i)
            diags.warning(nnef::Stage::semantic, "deviation", "operation 'op" + std::to_string(i) + "' takes " +
                                                                 std::to_string(i + 10) + " inputs",
                          {id, 19, 20});
        diags.warning(nnef::Stage::semantic, "other", "something else", {id, 0, 7});
        for (int i = 0; i < 5; ++i) diags.error(nnef::Stage::semantic, "bad", "error number " + std::to_string(i), {id, 19, 20});
        diags.warning(nnef::Stage::shape, "deviation", "a different shape of message", {id, 0, 7});

        const std::string text = nnef::render_list(diags, sm);
        INFO(text);
        CHECK(spelling_test::count(text, "warning[semantic]: operation 'op") == 3);
        CHECK(text.find("op2' takes 12 inputs\n") != std::string::npos);
        CHECK(text.find("op3'") == std::string::npos);
        CHECK(spelling_test::count(text, "note: 4 more warnings like this one [deviation] not shown\n") == 1);
        // the note follows the third of them
        CHECK(text.find("note: 4 more") > text.find("op2'"));
        CHECK(text.find("note: 4 more") < text.find("something else"));
        CHECK(text.find("warning[semantic]: something else") != std::string::npos);
        CHECK(spelling_test::count(text, "error[semantic]: error number") == 5);
        CHECK(text.find("warning[shape]: a different shape of message") != std::string::npos);

        nnef::RenderOptions all;
        all.max_alike = 0;
        CHECK(spelling_test::count(nnef::render_list(diags, sm, all), "warning[semantic]: operation") == 7);

        nnef::RenderOptions quiet;
        quiet.warnings = false;
        const std::string errors_only = nnef::render_list(diags, sm, quiet);
        CHECK(errors_only.find("warning") == std::string::npos);
        CHECK(errors_only.find("more warnings") == std::string::npos);
        CHECK(spelling_test::count(errors_only, "error[semantic]") == 5);
    }
}
