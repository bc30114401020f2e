// An operation's provenance (nnef/graph.hpp): the call sites it was expanded through, innermost
// first, in a chain that the operations made below one call site share (a persistent list), so a
// deep expansion does not copy its chain into every operation; and an error inside a fragment
// body leaves no call site behind for the statements after it.
#include <doctest/doctest.h>

#include <nnef/nnef.hpp>

#include <string>
#include <vector>

namespace provenance_test {

std::vector<std::string> fragments(const nnef::CallChain& chain) {
    std::vector<std::string> out;
    for (const nnef::CallSite& site : chain) out.push_back(site.fragment);
    return out;
}

nnef::Session session() {
    nnef::FlattenOptions opts;
    opts.keep_operations = true;
    return nnef::Session(opts);
}

const std::string kHeader = "version 1.0;\nextension KHR_enable_fragment_definitions;\n";

}  // namespace provenance_test

TEST_SUITE("frontend") {
    TEST_CASE("provenance: a call chain is a persistent list, innermost first") {
        using nnef::CallChain;
        using nnef::CallSite;
        const CallChain none;
        CHECK(none.empty());
        CHECK(none.size() == 0);
        CHECK(none.begin() == none.end());
        const CallChain outer = none.called(CallSite{"outer", {1, 10, 20}, 1});
        const CallChain inner = outer.called(CallSite{"inner", {1, 30, 40}, 2});
        const CallChain other = outer.called(CallSite{"other", {1, 50, 60}, 3});
        CHECK(provenance_test::fragments(inner) == std::vector<std::string>{"inner", "outer"});
        CHECK(provenance_test::fragments(other) == std::vector<std::string>{"other", "outer"});
        CHECK(provenance_test::fragments(outer) == std::vector<std::string>{"outer"});  // unchanged by its callers
        CHECK(inner.size() == 2);
        CHECK(inner.front().fragment == "inner");
        CHECK(inner[1].fragment == "outer");
        CHECK(inner[1].range.begin == 10);
        CHECK(inner[0].invocation == 2);
        // the outer part is stored once: both chains reach the same call site
        CHECK(&inner[1] == &other[1]);
        CHECK(&inner.outer().front() == &outer.front());
        CHECK(inner.outer().outer().empty());
        CHECK(none.outer().empty());
    }

    TEST_CASE("provenance: operations made below one call site share its chain, innermost first") {
        const std::string text = provenance_test::kHeader +
                                 "fragment g( x: tensor<scalar> ) -> ( y: tensor<scalar> )\n{\n    y = relu(x);\n}\n"
                                 "fragment f( x: tensor<scalar> ) -> ( y: tensor<scalar> )\n{\n"
                                 "    a = g(x);\n    b = g(a);\n    y = add(a, b);\n}\n"
                                 "graph G( x ) -> ( y )\n{\n    x = external(shape = [1]);\n    y = f(x);\n}\n";
        nnef::Session s = provenance_test::session();
        REQUIRE(s.load_text("p.nnef", text));
        REQUIRE(s.graph());
        const std::vector<nnef::Operation>& ops = s.graph()->operations;
        std::vector<const nnef::Operation*> relus, adds;
        for (const nnef::Operation& op : ops) {
            if (op.name == "relu") relus.push_back(&op);
            if (op.name == "add") adds.push_back(&op);
        }
        REQUIRE(relus.size() == 2);
        REQUIRE(adds.size() == 1);
        for (const nnef::Operation* r : relus)
            CHECK(provenance_test::fragments(r->provenance.chain) == std::vector<std::string>{"g", "f"});
        CHECK(provenance_test::fragments(adds[0]->provenance.chain) == std::vector<std::string>{"f"});
        // two expansions of g: two call sites, numbered apart, below one call site of f
        CHECK(relus[0]->provenance.chain.front().invocation != relus[1]->provenance.chain.front().invocation);
        CHECK(&relus[0]->provenance.chain[1] == &relus[1]->provenance.chain[1]);
        CHECK(&relus[0]->provenance.chain[1] == &adds[0]->provenance.chain.front());
        for (const nnef::Operation& op : ops)
            if (op.name == "external") CHECK(op.provenance.chain.empty());
    }

    TEST_CASE("provenance: an error inside a fragment body leaves no call site to the next statements") {
        // The first statement fails two levels down, in the expansion (an axis the tensor does
        // not have); the second one's error is in the graph body, so it has no 'in expansion of' note.
        const std::string text = provenance_test::kHeader +
                                 "fragment g( x: tensor<scalar> ) -> ( y: tensor<scalar> )\n{\n"
                                 "    y = slice(x, axes = [5], begin = [0], end = [1]);\n}\n"
                                 "fragment f( x: tensor<scalar> ) -> ( y: tensor<scalar> )\n{\n    y = g(x);\n}\n"
                                 "graph G( x ) -> ( y )\n{\n    x = external(shape = [1]);\n    z = f(x);\n"
                                 "    y = slice(x, axes = [7], begin = [0], end = [1]);\n}\n";
        nnef::Session s = provenance_test::session();
        CHECK_FALSE(s.load_text("p.nnef", text));
        std::vector<const nnef::Diagnostic*> errors;
        for (const nnef::Diagnostic& d : s.diagnostics())
            if (d.severity == nnef::Severity::error) errors.push_back(&d);
        REQUIRE(errors.size() >= 2);
        CAPTURE(errors[0]->message);
        CAPTURE(errors[1]->message);
        CHECK(errors[0]->message.find("5") != std::string::npos);
        CHECK(errors[0]->notes.size() == 2);
        CHECK(errors[1]->message.find("7") != std::string::npos);
        CHECK(errors[1]->notes.empty());
    }
}
