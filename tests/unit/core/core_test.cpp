#include <doctest/doctest.h>

#include <nnef/diagnostics.hpp>
#include <nnef/graph.hpp>
#include <nnef/source.hpp>
#include <nnef/value.hpp>

#include <cstdlib>
#include <stdexcept>
#include <string>

TEST_SUITE("core") {
    TEST_CASE("source manager") {
        nnef::SourceManager sm;
        auto id = sm.add("a.nnef", "line one\nline two\r\nthree\rfour");
        SUBCASE("line and column") {
            CHECK(sm.line_col(id, 0).line == 1);
            CHECK(sm.line_col(id, 9).line == 2);
            CHECK(sm.line_col(id, 9).col == 1);
            CHECK(sm.line_col(id, 14).col == 6);
            CHECK(sm.line_col(id, 19).line == 3);
            CHECK(sm.line_col(id, 25).line == 4);
        }
        SUBCASE("line text drops terminators") {
            CHECK(sm.line_text(id, 2) == "line two");
            CHECK(sm.line_text(id, 3) == "three");
            CHECK(sm.line_text(id, 4) == "four");
            CHECK(sm.line_text(id, 5).empty());
        }
    }

    TEST_CASE("diagnostic rendering") {
        nnef::SourceManager sm;
        auto id = sm.add("g.nnef", "version 1.0;\ngraph G(x) -> (y)\n");
        nnef::Diagnostics diags;
        auto& d = diags.error(nnef::Stage::semantic, "test-code", "something is wrong", {id, 19, 20});
        d.notes.push_back({"in expansion of 'f'", {id, 0, 7}});
        std::string text = nnef::render(diags.list().front(), sm);
        CHECK(text == "g.nnef:2:7: error[semantic]: something is wrong\n  graph G(x) -> (y)\n        ^\n"
                      "g.nnef:1:1: note: in expansion of 'f'\n");
        std::string json = nnef::render_json(diags.list().front(), sm);
        CHECK(json == "{\"severity\":\"error\",\"stage\":\"semantic\",\"code\":\"test-code\",\"message\":"
                      "\"something is wrong\",\"file\":\"g.nnef\",\"line\":2,\"column\":7,\"notes\":[{\"message\":"
                      "\"in expansion of 'f'\",\"file\":\"g.nnef\",\"line\":1,\"column\":1}]}");
    }

    TEST_CASE("binary diagnostics use byte offsets") {
        nnef::SourceManager sm;
        nnef::Diagnostic d;
        d.stage = nnef::Stage::data;
        d.message = "bad magic";
        d.path = "w.dat";
        d.byte_offset = 2;
        CHECK(nnef::render(d, sm) == "w.dat:byte 2: error[data]: bad magic\n");
    }

    TEST_CASE("error cap") {
        nnef::Diagnostics diags(3);
        for (int i = 0; i < 10; ++i) diags.error(nnef::Stage::semantic, "c", "m");
        diags.warning(nnef::Stage::syntax, "w", "warning still recorded");
        CHECK(diags.error_count() == 3);
        CHECK(diags.limit_reached());
        CHECK(diags.size() == 4);
    }

    TEST_CASE("scalar formatting is shortest round-trip") {
        for (double v : {0.1, 1.0, -2.5, 1e-7, 123456789.125, 1.0 / 3.0, 6.02214076e23, 0.0}) {
            CAPTURE(v);
            std::string s = nnef::format_scalar(v);
            CHECK(std::strtod(s.c_str(), nullptr) == v);
            CHECK(s.find_first_of(".e") != std::string::npos);
        }
        CHECK(nnef::format_scalar(1.0) == "1.0");
        CHECK(nnef::format_scalar(0.1) == "0.1");
    }

    TEST_CASE("value printing and equality") {
        using nnef::Value;
        Value v = Value::array({Value::tuple({Value::integer(1), Value::integer(-2)}), Value::tuple({Value::integer(0), Value::integer(0)})});
        CHECK(nnef::to_string(v) == "[(1, -2), (0, 0)]");
        CHECK(nnef::to_string(Value::string("it's")) == "'it\\'s'");
        CHECK(Value::integer(1) != Value::scalar(1.0));
        CHECK(v == Value::array({Value::tuple({Value::integer(1), Value::integer(-2)}), Value::tuple({Value::integer(0), Value::integer(0)})}));
    }


    TEST_CASE("values share their blocks, lists are copied on write") {
        using nnef::Value;
        static_assert(sizeof(Value) == 16, "Value is a kind and a word");
        Value a = Value::array({Value::integer(1), Value::identifier("x")});
        Value b = a;  // shares a's items
        CHECK(b.same_block(a));
        CHECK(&b.items() == &a.items());
        b.mutable_items()[0] = Value::integer(2);  // detaches b
        CHECK_FALSE(b.same_block(a));
        CHECK(nnef::to_string(a) == "[1, x]");
        CHECK(nnef::to_string(b) == "[2, x]");
        CHECK(a != b);
        // An unshared list is changed in place.
        const Value::Items* before = &b.items();
        b.mutable_items().push_back(Value::logical(true));
        CHECK(&b.items() == before);
        CHECK(b.size() == 3);

        Value s = Value::identifier("conv1");
        Value t = s;
        CHECK(t.same_block(s));
        CHECK(t == Value::identifier("conv1"));  // deep equality without sharing
        CHECK(Value::string("conv1") != s);      // kind matters
        Value moved = std::move(t);
        CHECK(t.is_none());
        CHECK(moved.as_identifier() == "conv1");

        CHECK_THROWS_AS(Value::integer(3).as_scalar(), std::logic_error);
        CHECK_THROWS_AS(Value().items(), std::logic_error);
        CHECK_THROWS_AS(s.as_string(), std::logic_error);
    }
    TEST_CASE("type printing and binding") {
        using nnef::PrimType;
        using nnef::Type;
        Type t = Type::array(Type::tuple({Type::primitive(PrimType::integer), Type::primitive(PrimType::integer)}));
        CHECK(nnef::to_string(t) == "(integer,integer)[]");
        Type g = Type::tensor(PrimType::generic);
        CHECK(g.is_generic());
        CHECK(g.bind(PrimType::scalar) == Type::tensor(PrimType::scalar));
        CHECK(nnef::to_string(Type::tensor(PrimType::none)) == "tensor<>");
    }

    TEST_CASE("graph tensor index") {
        nnef::Graph g;
        g.add_tensor("a", nnef::PrimType::scalar, nnef::Shape{1, 2});
        g.add_tensor("b");
        REQUIRE(g.tensor("a"));
        CHECK(nnef::to_string(*g.tensor("a")->shape) == "[1,2]");
        CHECK(g.tensor("c") == nullptr);
        CHECK_FALSE(g.tensor("b")->shape.has_value());
    }

    TEST_CASE("graph tensor index: many names, renames, tensors added directly, copies") {
        nnef::Graph g;
        const int n = 5000;
        for (int i = 0; i < n; ++i) g.add_tensor("t" + std::to_string(i));
        for (int i = 0; i < n; ++i) {
            REQUIRE(g.tensor("t" + std::to_string(i)));
            CHECK(g.tensor("t" + std::to_string(i)) == &g.tensors[static_cast<std::size_t>(i)]);
        }
        // Renames keep every other name findable (deletion must not break probe sequences).
        for (int i = 0; i < n; i += 3) g.rename_tensor(*g.tensor("t" + std::to_string(i)), "r" + std::to_string(i));
        for (int i = 0; i < n; ++i) {
            const std::string old = "t" + std::to_string(i), renamed = "r" + std::to_string(i);
            if (i % 3 == 0) {
                CHECK(g.tensor(old) == nullptr);
                REQUIRE(g.tensor(renamed));
                CHECK(g.tensor(renamed) == &g.tensors[static_cast<std::size_t>(i)]);
            } else {
                CHECK(g.tensor(old) == &g.tensors[static_cast<std::size_t>(i)]);
                CHECK(g.tensor(renamed) == nullptr);
            }
        }
        // The first of two equal names wins; tensors pushed directly are found after a rebuild.
        g.add_tensor("t1");
        CHECK(g.tensor("t1") == &g.tensors[1]);
        nnef::Tensor extra;
        extra.name = "extra";
        g.tensors.push_back(extra);
        REQUIRE(g.tensor("extra"));
        CHECK(g.tensor("extra") == &g.tensors.back());
        const nnef::Graph copy = g;
        REQUIRE(copy.tensor("r3"));
        CHECK(copy.tensor("r3") == &copy.tensors[3]);
    }
}
