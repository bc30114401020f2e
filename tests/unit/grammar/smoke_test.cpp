#include "test_support.hpp"
#include "grammar/parse.hpp"
TEST_CASE("smoke") {
    nnef::SourceManager sm;
    auto id = sm.add("t.nnef", "version 1.0;\ngraph G(x) -> (y) { x = external(shape = [1]); y = relu(x); }\n");
    nnef::Diagnostics d;
    auto doc = nnef::grammar::parse(sm, id, {}, d);
    for (auto& x : d) MESSAGE(nnef::render(x, sm));
    CHECK(doc);
}
