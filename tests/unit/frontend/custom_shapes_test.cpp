// Custom operations (body-less fragment declarations): unknown shapes downstream unless a shape
// function is registered through FlattenOptions::custom_shapes.
#include <doctest/doctest.h>

#include <nnef/nnef.hpp>

#include <string>

namespace custom_shapes_test {

const char* kDoc =
    "version 1.0;\n"
    "extension KHR_enable_fragment_definitions;\n"
    "fragment widen( x: tensor<scalar>, factor: integer ) -> ( y: tensor<scalar> );\n"
    "graph G( input ) -> ( output )\n"
    "{\n"
    "    input = external(shape = [1, 4]);\n"
    "    w = widen(input, factor = 3);\n"
    "    output = relu(w);\n"
    "}\n";

// y has the shape of x with the last extent multiplied by `factor`; factor < 1 is an error.
bool widen_shape(nnef::ShapeContext& ctx) {
    const nnef::Value& factor = ctx.attr("factor");
    if (!factor.is_integer() || factor.as_integer() < 1) return ctx.error("factor must be positive");
    nnef::Shape s = ctx.shape_of(ctx.input("x"));
    if (s.empty()) return ctx.error("x must have rank >= 1");
    s.back() *= factor.as_integer();
    ctx.set_shape("y", s);
    return true;
}

// Loads `doc` with widen_shape registered.
nnef::Session load_registered(const std::string& doc, bool& ok) {
    static nnef::OpRegistry reg = [] {
        nnef::OpRegistry r;
        r.add({"widen", widen_shape});
        return r;
    }();
    nnef::FlattenOptions o;
    o.custom_shapes = &reg;
    nnef::Session s(o);
    ok = s.load_text("custom.nnef", doc);
    return s;
}

}  // namespace custom_shapes_test

TEST_SUITE("frontend") {
    TEST_CASE("custom operations: unknown shapes, or a registered shape function") {
        namespace ct = custom_shapes_test;
        SUBCASE("no shape function: outputs and downstream unknown, listed once") {
            nnef::Session s;
            REQUIRE(s.load_text("custom.nnef", ct::kDoc));
            const nnef::Graph* g = s.graph();
            REQUIRE(g);
            CHECK_FALSE(g->tensor("w")->shape.has_value());
            CHECK_FALSE(g->tensor("output")->shape.has_value());
            CHECK(g->tensor("output")->dtype == nnef::PrimType::scalar);
            REQUIRE(s.custom_operations().size() == 1);
            CHECK(s.custom_operations()[0] == "widen");
        }
        SUBCASE("registered: shapes propagate and it is no longer listed") {
            bool ok = false;
            nnef::Session s = ct::load_registered(ct::kDoc, ok);
            REQUIRE(ok);
            const nnef::Graph* g = s.graph();
            REQUIRE(g);
            REQUIRE(g->tensor("output")->shape.has_value());
            CHECK(*g->tensor("output")->shape == nnef::Shape{1, 12});
            CHECK(s.custom_operations().empty());
            CHECK(s.flat_text(true).find("output = relu(w);  # output: scalar[1,12]") != std::string::npos);
        }
        SUBCASE("registered: its errors are shape errors at the invocation") {
            std::string doc = ct::kDoc;
            doc.replace(doc.find("factor = 3"), 10, "factor = 0");
            bool ok = true;
            nnef::Session s = ct::load_registered(doc, ok);
            CHECK_FALSE(ok);
            bool found = false;
            for (const nnef::Diagnostic& d : s.diagnostics())
                if (d.severity == nnef::Severity::error) {
                    CHECK(d.stage == nnef::Stage::shape);
                    CHECK(d.message.find("factor must be positive") != std::string::npos);
                    CHECK(s.sources().begin(d.range).line == 7);
                    found = true;
                }
            CHECK(found);
        }
    }
}
