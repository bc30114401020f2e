// The JSON form of TOSA graphs (lowering/tosa/json.hpp): the documented layout, a round trip
// that gives the same graph for graphs using every operator, and clear errors on bad input.
#include <doctest/doctest.h>

#include <cmath>
#include <cstring>
#include <string>

#include <nnef/diagnostics.hpp>

#include "lowering/tosa/json.hpp"
#include "unit/mlir/zoo_graphs.hpp"

using namespace nnef::tosa;
using nlohmann::json;

namespace json_test {

bool same_const(const ConstPtr& a, const ConstPtr& b) {
    if (!a || !b) return a == b;
    return a->type == b->type && a->byte_size() == b->byte_size() && std::memcmp(a->data, b->data, a->byte_size()) == 0;
}

bool same_attr(const Attr& a, const Attr& b) {
    if (a.index() != b.index()) return false;
    if (const auto* c = std::get_if<ConstPtr>(&a)) return same_const(*c, std::get<ConstPtr>(b));
    if (const auto* d = std::get_if<double>(&a)) {
        const double e = std::get<double>(b);
        return (std::isnan(*d) && std::isnan(e)) || *d == e;
    }
    return a == b;
}

// Every part of two graphs equal (constants by content); says what differs.
std::string difference(const Graph& a, const Graph& b) {
    if (a.name != b.name || a.profile != b.profile) return "name or profile";
    if (a.values.size() != b.values.size()) return "value count";
    for (std::size_t i = 0; i < a.values.size(); ++i)
        if (a.values[i].type != b.values[i].type || a.values[i].name != b.values[i].name) return "value " + std::to_string(i);
    if (a.origins.size() != b.origins.size()) return "origin count";
    for (std::size_t i = 0; i < a.origins.size(); ++i)
        if (a.origins[i].operation != b.origins[i].operation || a.origins[i].tensor != b.origins[i].tensor)
            return "origin " + std::to_string(i);
    if (a.blocks.size() != b.blocks.size()) return "block count";
    for (std::size_t bi = 0; bi < a.blocks.size(); ++bi) {
        const Block &x = a.blocks[bi], &y = b.blocks[bi];
        if (x.name != y.name || x.inputs != y.inputs || x.outputs != y.outputs || x.ops.size() != y.ops.size())
            return "block " + std::to_string(bi);
        for (std::size_t oi = 0; oi < x.ops.size(); ++oi) {
            const Op &p = x.ops[oi], &q = y.ops[oi];
            const std::string where = "block " + std::to_string(bi) + " op " + std::to_string(oi);
            if (p.kind != q.kind || p.inputs != q.inputs || p.outputs != q.outputs || p.origin != q.origin) return where;
            for (const auto& [name, value] : p.attrs) {
                const Attr* other = q.attr(name);
                if (!other || !same_attr(value, *other)) return where + " attribute " + to_string(name);
            }
            if (p.attrs.size() != q.attrs.size()) return where + " attribute count";
        }
    }
    return {};
}

std::string read_error(const json& j) {
    nnef::Diagnostics d;
    auto g = graph_from_json(j, d, "t.json");
    if (g || !d.has_errors()) return "(read without error)";
    CHECK(d.list().front().stage == nnef::Stage::tosa);
    CHECK(d.list().front().code == "bad-tosa-json");
    return d.list().front().message;
}


TEST_SUITE("tosa") {
    TEST_CASE("JSON: the documented layout") {
        nnef_test::TosaBuilder b("tiny");
        const ValueId x = b.input(DType::fp32, {2}, "x");
        const ValueId c = b.f32({2}, {1.0f, -2.0f});
        b.g.origins.push_back({"add", "y", {}});
        const ValueId y = b.g.add_op(0, OpKind::ADD, {x, c}, {{DType::fp32, {2}}}, {}, 0).outputs[0];
        const ValueId z = b.op(OpKind::CLAMP, {y}, DType::fp32, {2},
                               {{AttrName::min_val, -HUGE_VAL}, {AttrName::max_val, 6.0}, {AttrName::nan_mode, NanMode::IGNORE}});
        b.output(z);
        const json j = to_json(b.g);
        CHECK(j["format"] == "nnef-tosa-graph");
        CHECK(j["version"] == 1);
        CHECK(j["name"] == "tiny");
        CHECK(j["profile"] == "PRO-FP");
        CHECK(j["values"][0] == json{{"type", "fp32"}, {"shape", {2}}, {"name", "x"}});
        CHECK(j["blocks"][0]["inputs"] == json{0});
        CHECK(j["blocks"][0]["outputs"] == json{3});
        const json& ops = j["blocks"][0]["ops"];
        CHECK(ops[0]["op"] == "CONST");
        // 1.0f = 0x3f800000, -2.0f = 0xc0000000: little-endian bytes.
        CHECK(ops[0]["attributes"]["values"] == json{{"type", "fp32"}, {"shape", {2}}, {"data", "0000803f000000c0"}});
        CHECK(ops[1] == json{{"op", "ADD"}, {"inputs", {0, 1}}, {"outputs", {2}}, {"origin", 0}});
        CHECK(ops[2]["attributes"] == json{{"min_val", "-inf"}, {"max_val", 6.0}, {"nan_mode", "IGNORE"}});
        CHECK(j["origins"][0] == json{{"operation", "add"}, {"tensor", "y"}});
        JsonOptions elide;
        elide.elide_weights = true;
        elide.elide_above = 1;
        CHECK(to_json(b.g, elide)["blocks"][0]["ops"][0]["attributes"]["values"] ==
              json{{"type", "fp32"}, {"shape", {2}}, {"elided", true}});
    }

    TEST_CASE("JSON: round trip of graphs using every operator") {
        for (const Graph& g : {nnef_test::fp32_zoo(), nnef_test::int_zoo(), nnef_test::extension_zoo()}) {
            CAPTURE(g.name);
            const std::string text = to_json(g).dump();
            nnef::Diagnostics d;
            auto back = graph_from_json(json::parse(text), d);
            REQUIRE(back.has_value());
            CHECK(d.empty());
            CHECK(difference(g, *back) == "");
            CHECK(to_json(*back).dump() == text);
        }
    }

    TEST_CASE("JSON: malformed input gets an error that says where") {
        const json good = to_json(nnef_test::extension_zoo());
        CHECK(read_error(json::array()) == "t.json: at /: expected an object");
        json j = good;
        j["format"] = "other";
        CHECK(read_error(j).find("at /format: expected \"nnef-tosa-graph\"") != std::string::npos);
        j = good;
        j["values"][0]["type"] = "f32";
        CHECK(read_error(j) == "t.json: at /values/0/type: unknown element type");
        j = good;
        j["blocks"][0]["ops"][0]["op"] = "CONV";
        CHECK(read_error(j) == "t.json: at /blocks/0/ops/0/op: unknown TOSA operator \"CONV\"");
        j = good;
        j["blocks"][0]["ops"][1]["inputs"] = {99999};
        CHECK(read_error(j) == "t.json: at /blocks/0/ops/1/inputs: value 99999 does not exist");
        j = good;
        j["blocks"][0]["ops"][1]["attributes"].erase("name");
        CHECK(read_error(j) == "t.json: at /blocks/0/ops/1/attributes: VARIABLE_READ needs attribute \"name\"");
        j = good;
        j["blocks"][0]["ops"][0]["attributes"]["initial_value"]["data"] = "00";
        CHECK(read_error(j).find("2 hexadecimal digits for fp32[2,3] (expected 48)") != std::string::npos);
        j = good;
        auto& cond_if = j["blocks"][0]["ops"];
        for (auto& op : cond_if)
            if (op["op"] == "COND_IF") op["attributes"]["then_graph"]["block"] = 0;
        CHECK(read_error(j).find("no such block") != std::string::npos);
        JsonOptions elide;
        elide.elide_weights = true;
        elide.elide_above = 0;
        CHECK(read_error(to_json(nnef_test::extension_zoo(), elide)).find("elided") != std::string::npos);
        j = good;
        j["blocks"][0]["ops"][2]["attributes"] = {{"axis", 1}};
        CHECK(read_error(j).find("has no attribute \"axis\"") != std::string::npos);
    }

    TEST_CASE("JSON: the codec of one attribute and of a constant as values (the VPU side's form)") {
        const OpInfo& clamp = op_info(OpKind::CLAMP);
        const OpInfo& rescale = op_info(OpKind::RESCALE);
        const AttrSpec& lo = *clamp.attribute(AttrName::min_val);
        const AttrSpec& nan = *clamp.attribute(AttrName::nan_mode);
        const AttrSpec& round = *rescale.attribute(AttrName::rounding_mode);
        // numbers JSON cannot hold are strings, and read back
        CHECK(attribute_to_json(Attr(-HUGE_VAL), lo) == json("-inf"));
        CHECK(std::get<double>(attribute_from_json(json("-inf"), lo, "/min")) == -HUGE_VAL);
        CHECK(std::isnan(std::get<double>(attribute_from_json(json("nan"), lo, "/min"))));
        CHECK(attribute_to_json(Attr(0.25), lo) == json(0.25));
        // an integer CLAMP's bound is an integer
        CHECK(attribute_to_json(Attr(std::int64_t(-128)), lo) == json(-128));
        CHECK(std::get<std::int64_t>(attribute_from_json(json(-128), lo, "/min")) == -128);
        // enumerators by name
        CHECK(attribute_to_json(Attr(NanMode::IGNORE), nan) == json("IGNORE"));
        CHECK(std::get<RoundingMode>(attribute_from_json(json("DOUBLE_ROUND"), round, "/r")) == RoundingMode::DOUBLE_ROUND);
        auto error = [](const json& j, const AttrSpec& spec) {
            try {
                attribute_from_json(j, spec, "/params/attributes/x");
            } catch (const JsonError& e) {
                return std::string(e.what());
            }
            return std::string("no error");
        };
        CHECK(error(json("ROUND"), round) == "/params/attributes/x: unknown value \"ROUND\"");
        CHECK(error(json(true), lo) == "/params/attributes/x: expected a string");

        // constants as values: exact integers, every type, the shape's item count
        auto c = ConstData::allocate({DType::i8, {2}});
        c->mutable_items<std::int8_t>()[0] = -128;
        c->mutable_items<std::int8_t>()[1] = 7;
        const json jc = constant_to_values_json(*c);
        CHECK(jc == json{{"dtype", "i8"}, {"shape", {2}}, {"values", {-128, 7}}});
        CHECK(same_const(constant_from_values_json(jc, "/c"), c));
        auto s = ConstData::allocate({DType::shape, {3}});
        for (int i = 0; i < 3; ++i) s->mutable_items<std::int64_t>()[i] = std::int64_t(1) << (40 + i);
        CHECK(same_const(constant_from_values_json(constant_to_values_json(*s), "/c"), s));
        auto f = ConstData::allocate({DType::fp16, {2}});
        f->mutable_items<std::uint16_t>()[0] = fp32_to_fp16(0.5f);
        f->mutable_items<std::uint16_t>()[1] = fp32_to_fp16(-HUGE_VALF);
        CHECK(constant_to_values_json(*f)["values"] == json{0.5, "-inf"});
        CHECK(same_const(constant_from_values_json(constant_to_values_json(*f), "/c"), f));
        auto cerror = [](const json& j) {
            try {
                constant_from_values_json(j, "/constants/shift");
            } catch (const JsonError& e) {
                return std::string(e.what());
            }
            return std::string("no error");
        };
        CHECK(cerror(json{{"dtype", "i8"}, {"shape", {1}}, {"values", {128}}}) == "/constants/shift/values/0: not a value of i8");
        CHECK(cerror(json{{"dtype", "i8"}, {"shape", {2}}, {"values", {1}}}) ==
              "/constants/shift/values: expected an array of 2 items (the shape's)");
        CHECK(cerror(json{{"dtype", "i32"}, {"shape", {1}}, {"values", {1.5}}}) == "/constants/shift/values/0: expected an integer (i32)");
        CHECK(cerror(json{{"dtype", "i8"}, {"shape", {1}}, {"values", {1}}, {"data", "00"}}) == "/constants/shift: unknown field \"data\"");
    }
}

}  // namespace json_test
