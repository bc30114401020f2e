// Every ERROR_IF and REQUIRE of the TOSA operators' checks (lowering/tosa/ops/*.cpp and the shared
// rules of ops/check.hpp) is reached by a hand-broken graph, which the validator and the
// interpreter refuse with the same code and words (interpreter_refuses_as_validator).
//
// A site is the source line of one `c.error_if(` / `c.require(` call of a family check (or one
// `error_if(` / `require(` / `fail("tosa-error-if"` of check.hpp's shared rules): OpCheck records
// its caller's file and line (__builtin_FILE / __builtin_LINE) with the first failure, and
// operator_rules hands it on (RuleFailure::site). The test reads the sites from the sources, runs
// every group of hand-broken graphs (CASE_GROUP: validator_test.cpp's and this file's) and compares:
// a site no graph reaches is named with its source text. A new rule therefore comes with its case.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include "common/build_paths.hpp"
#include "unit/tosa/validator_cases.hpp"

namespace error_if_sites_test {

// A rule that the validator's type tables decide first (the interpreter reads none): the
// interpreter refuses the graph by the family check's rule, its site is reached.
void interpreter_refuses(const Graph& g, const std::string& message) {
    const std::optional<RuleFailure> f = operator_rules(g, g.main().ops.front());
    REQUIRE(f);
    CHECK(f->message == message);
    interpreter_refuses_by(g, *f);
}

// The one rule that only infer_output_types decides: with the operator's result types given (the
// validator, the interpreter), the two rules comparing them with each graph's results decide first.
// (It stays: without result types, the graphs must agree for the result to have a type.)
const char* const inference_only_rule = "tosa_output_shape(then_graph) != tosa_output_shape(else_graph)";

const ValidateOptions pi = opts(Profile::pro_int);
const ValidateOptions pi16 = opts(Profile::pro_int, {"EXT-INT16"});
const ValidateOptions cf = opts(Profile::pro_fp, {"EXT-CONTROLFLOW"});
const ValidateOptions var = opts(Profile::pro_fp, {"EXT-VARIABLE"});

// The rules that no group of validator_test.cpp reaches, one hand-broken graph each (the result
// types are given as a producer would write them; only the named rule breaks).
void sliding_window_sites() {
    // Pools: stride, pad, and an output extent below 1 (IH + pads - kernel = -1, stride 1).
    CHECK(has(errors(pool(OpKind::MAX_POOL2D, {1, 6, 6, 1}, {1, 3, 3, 1}, {2, 2}, {0, 2}, {0, 0, 0, 0})),
              "ERROR_IF(stride_y < 1 || stride_x < 1)"));
    CHECK(has(errors(pool(OpKind::AVG_POOL2D, {1, 6, 6, 1}, {1, 3, 3, 1}, {2, 2}, {2, 2}, {0, 0, -1, 0})),
              "ERROR_IF(pad_top < 0 || pad_bottom < 0 || pad_left < 0 || pad_right < 0)"));
    CHECK(has(errors(pool(OpKind::MAX_POOL2D, {1, 2, 2, 1}, {1, 1, 1, 1}, {3, 3}, {1, 1}, {0, 0, 0, 0})),
              "OH would be 0 (tensor_size needs >= 1)"));
    // TRANSPOSE_CONV2D: out_pad, stride, an output below 1, the bias.
    auto tconv = [](Shape x, Ints out_pad, Ints stride, Shape out, I64 bias) {
        return build([&](G& b) {
            b.out(b.op(OpKind::TRANSPOSE_CONV2D, {b.in(f32, x), b.cst(f32, {4, 3, 3, 2}), b.cst(f32, {bias}), b.zp(f32), b.zp(f32)},
                       T(f32, out), {{AttrName::out_pad, is(out_pad)}, {AttrName::stride, is(stride)}, {AttrName::acc_type, AccType::FP32}}));
        });
    };
    CHECK(errors(tconv({1, 3, 3, 2}, {0, 0, 0, 0}, {2, 2}, {1, 7, 7, 4}, 4)) == "");
    CHECK(has(errors(tconv({1, 3, 3, 2}, {0, 0, 0, -3}, {2, 2}, {1, 7, 4, 4}, 4)),
              "ERROR_IF(out_pad_left <= -KW || out_pad_right <= -KW)"));
    CHECK(has(errors(tconv({1, 3, 3, 2}, {0, 0, 0, 0}, {2, 0}, {1, 7, 3, 4}, 4)), "ERROR_IF(stride_y < 1 || stride_x < 1)"));
    // OH = (1 - 1) * 1 - 2 - 2 + 3 = -1
    CHECK(has(errors(tconv({1, 1, 1, 2}, {-2, -2, 0, 0}, {1, 1}, {1, 1, 3, 4}, 4)), "the output would be -1x3"));
    CHECK(has(errors(tconv({1, 3, 3, 2}, {0, 0, 0, 0}, {2, 2}, {1, 7, 7, 4}, 3)), "ERROR_IF(BC != OC && BC != 1)"));
    // FFT2D: the height a power of two.
    Graph fft = build([](G& b) {
        Op& op = b.op_n(OpKind::FFT2D, {b.in(f32, {1, 6, 8}), b.in(f32, {1, 6, 8})}, {T(f32, {1, 6, 8}), T(f32, {1, 6, 8})},
                        {{AttrName::inverse, false}});
        b.out(op.outputs[0]);
    });
    CHECK(has(errors(fft, opts(Profile::pro_fp, {"EXT-FFT"})), "ERROR_IF(!power_of_two(H))"));
}

void elementwise_layout_sites() {
    // An integer CLAMP's bounds.
    Graph clamp = build([](G& b) {
        b.out(b.op(OpKind::CLAMP, {b.in(DType::i8, {2})}, T(DType::i8, {2}),
                   {{AttrName::min_val, i(5)}, {AttrName::max_val, i(-5)}, {AttrName::nan_mode, NanMode::PROPAGATE}}));
    });
    CHECK(has(errors(clamp, pi), "ERROR_IF(max_val < min_val): min_val 5, max_val -5"));
    // A result of the wrong rank (the rank part of shape(output) != shape(input)).
    Graph rank = build([](G& b) { b.out(b.op(OpKind::ABS, {b.in(f32, {2, 3})}, T(f32, {6}))); });
    CHECK(has(errors(rank), "ERROR_IF(shape(output) != shape(input)): output is fp32[6], expected rank 2"));
    // RESHAPE to a shape with an extent below 1 (the declared result is a valid tensor).
    Graph reshape = build([](G& b) { b.out(b.op(OpKind::RESHAPE, {b.in(f32, {6}), b.shape({-2, -3})}, T(f32, {2, 3}))); });
    CHECK(has(errors(reshape), "REQUIRE(1 <= shape[i] (tensor_size)): shape [-2,-3]"));
    // TILE with a multiple of 0.
    Graph tile = build([](G& b) { b.out(b.op(OpKind::TILE, {b.in(f32, {2, 3}), b.shape({0, 1})}, T(f32, {2, 3}))); });
    CHECK(has(errors(tile), "REQUIRE(1 <= shape[i] (tensor_size of shape1[i] * multiples[i])): multiples [0,1]"));
    // TRANSPOSE with a negative index.
    Graph transpose = build([](G& b) {
        b.out(b.op(OpKind::TRANSPOSE, {b.in(f32, {2, 3})}, T(f32, {3, 2}), {{AttrName::perms, is({-1, 0})}}));
    });
    CHECK(has(errors(transpose), "ERROR_IF(index < 0): perms [-1,0]"));
}

void resize_rescale_sites() {
    // RESIZE: the input's size limit, offset_x, border_y (the valid case: validator_test.cpp).
    CHECK(has(errors(resize({1, 16384, 2, 1}, {1, 16384, 2, 1}, {1, 1, 1, 1}, {0, 0}, {0, 0}), opts(Profile::pro_fp, {}, Level::none())),
              "ERROR_IF(max(OH,OW,IH,IW) >= 16384)"));
    CHECK(has(errors(resize({1, 4, 4, 1}, {1, 4, 4, 1}, {2, 2, 2, 2}, {0, 32}, {0, 0})),
              "ERROR_IF(offset_x < -scale_x_n || offset_x >= 16 * scale_x_n)"));
    CHECK(has(errors(resize({1, 4, 4, 1}, {1, 4, 4, 1}, {2, 2, 2, 2}, {0, 0}, {2, 0})),
              "ERROR_IF(border_y < -16 * scale_y_n || border_y >= scale_y_n)"));
    // RESCALE: zero points and signedness.
    const RoundingMode single = RoundingMode::SINGLE_ROUND;
    CHECK(has(errors(rescale(DType::i8, DType::i32, true, single, false, false, 0, 1), pi),
              "ERROR_IF(!is_same<out_t,i8_t>() && (!is_same<out_t,i16_t>() || output_unsigned == false) && output_zp != 0)"));
    CHECK(has(errors(rescale(DType::i8, DType::i16, true, single, false, true, 0, 5), pi),
              "ERROR_IF(is_same<out_t,i16_t>() && output_unsigned == true && output_zp != 0 && output_zp != 32768)"));
    CHECK(has(errors(rescale(DType::i48, DType::i16, false, single, false, true), pi16),
              "ERROR_IF(is_same<in_t,i48_t>() && output_unsigned)"));
    CHECK(has(errors(rescale(DType::i48, DType::i8, false, single, true, false), pi16),
              "ERROR_IF(is_same<in_t, i48_t> && input_unsigned)"));
    CHECK(has(errors(rescale(DType::i32, DType::i8, true, single, true, false), pi),
              "ERROR_IF(is_same<in_t, i32_t> && input_unsigned)"));
    CHECK(has(errors(rescale(DType::i16, DType::i32, true, single, false, true), pi),
              "ERROR_IF(is_same<out_t, i32_t> && output_unsigned)"));
    // RESCALE: a negative multiplier (apply_scale_32's REQUIRE).
    Graph negative = build([](G& b) {
        b.out(b.op(OpKind::RESCALE,
                   {b.in(DType::i32, {2}), b.cst(DType::i32, {1}, {-3}), b.cst(DType::i8, {1}, {30}), b.zp(DType::i32), b.zp(DType::i8)},
                   T(DType::i8, {2}),
                   {{AttrName::scale32, true}, {AttrName::rounding_mode, RoundingMode::SINGLE_ROUND}, {AttrName::per_channel, false},
                    {AttrName::input_unsigned, false}, {AttrName::output_unsigned, false}}));
    });
    CHECK(has(errors(negative, pi), "REQUIRE(multiplier >= 0): multiplier[0] is -3"));
}

// COND_IF with the given graphs' result types (both take the f32 [2] input).
Graph cond_if(Shape then_out, Shape else_out, Shape result) {
    return build([&](G& b) {
        ValueId c = b.in(DType::bool_, {1});
        ValueId x = b.in(f32, {2});
        const std::uint32_t tb = b.g.add_block("then"), eb = b.g.add_block("else");
        b.cur = tb;
        b.out(b.op(OpKind::RESHAPE, {b.in(f32, {2}), b.shape(then_out)}, T(f32, then_out)));
        b.cur = eb;
        b.out(b.op(OpKind::RESHAPE, {b.in(f32, {2}), b.shape(else_out)}, T(f32, else_out)));
        b.cur = 0;
        b.out(b.op(OpKind::COND_IF, {c, x}, T(f32, result), {{AttrName::then_graph, BlockRef{tb}}, {AttrName::else_graph, BlockRef{eb}}}));
    });
}

// WHILE_LOOP over an f32 [1] (`in`), its graphs taking `cond_in` / `body_in`, the condition
// returning a bool `cond_out`, the result `out`.
Graph while_loop(Shape in, Shape cond_in, Shape body_in, Shape cond_out, Shape out) {
    return build([&](G& b) {
        ValueId x = b.in(f32, in);
        const std::uint32_t cb = b.g.add_block("cond"), bb = b.g.add_block("body");
        b.cur = cb;
        b.in(f32, cond_in);
        b.out(b.cst(DType::bool_, cond_out));
        b.cur = bb;
        b.out(b.op(OpKind::IDENTITY, {b.in(f32, body_in)}, T(f32, body_in)));
        b.cur = 0;
        b.out(b.op(OpKind::WHILE_LOOP, {x}, T(f32, out), {{AttrName::cond_graph, BlockRef{cb}}, {AttrName::body_graph, BlockRef{bb}}}));
    });
}

void control_flow_variable_sites() {
    CHECK(errors(cond_if({2}, {2}, {2}), cf) == "");
    CHECK(has(errors(cond_if({1, 2}, {2}, {2}), cf),
              "ERROR_IF(tensor_list_shape(output_list) != tosa_output_shape(then_graph))"));
    CHECK(has(errors(cond_if({2}, {1, 2}, {2}), cf),
              "ERROR_IF(tensor_list_shape(output_list) != tosa_output_shape(else_graph))"));
    // Without the operator's declared results (infer_output_types), the graphs must agree with
    // each other: a rule of the inference only (the interpreter always has the results).
    const Graph disagree = cond_if({1, 2}, {2}, {2});
    std::string why;
    CHECK(!infer_output_types(disagree, disagree.main().ops.back(), &why));
    CHECK(has(why, "ERROR_IF(" + std::string(inference_only_rule) + ")"));
    // WHILE_LOOP: the lists against each other and the graphs' interfaces.
    CHECK(errors(while_loop({1}, {1}, {1}, {1}, {1}), cf) == "");
    CHECK(has(errors(while_loop({1}, {1}, {1}, {1}, {2}), cf),
              "ERROR_IF(tensor_list_shape(input_list) != tensor_list_shape(output_list))"));
    CHECK(has(errors(while_loop({1}, {2}, {1}, {1}, {1}), cf),
              "ERROR_IF(tensor_list_shape(input_list) != tosa_input_shape(cond_graph))"));
    CHECK(has(errors(while_loop({1}, {1}, {2}, {1}, {1}), cf),
              "ERROR_IF(tensor_list_shape(input_list) != tosa_input_shape(body_graph))"));
    CHECK(has(errors(while_loop({1}, {1}, {1}, {2}, {1}), cf), "ERROR_IF(tensor_size(tosa_output_shape(cond_graph)) != 1)"));
    // VARIABLE: the shape's extents, the initial value's type.
    Graph empty = build([](G& b) {
        b.op_n(OpKind::VARIABLE, {}, {}, {{AttrName::name, std::string("v")}, {AttrName::var_shape, is({2, 0})}, {AttrName::type, f32}});
    });
    CHECK(has(errors(empty, var), "REQUIRE(1 <= shape[i] (tensor_size of var_shape)): var_shape [2,0]"));
    Graph init = build([](G& b) {
        b.op_n(OpKind::VARIABLE, {}, {},
               {{AttrName::name, std::string("v")}, {AttrName::var_shape, is({2})}, {AttrName::type, f32},
                {AttrName::initial_value, ConstPtr(ConstData::allocate(T(DType::fp16, {2})))}});
    });
    // The validator reports this one by its type table first (in_t of type and initial_value);
    // the interpreter, which reads no type tables, by the REQUIRE.
    Diagnostics d(100);
    CHECK(!validate(init, var, d));
    CHECK(has(d.list().front().message, "in_t of type and initial_value (Supported Data Types): type is fp32_t but initial_value is fp16_t"));
    interpreter_refuses(init, "REQUIRE(var_t == in_t): type is fp32, initial_value fp16[2]");
    // VARIABLE_WRITE of another type; VARIABLE_READ of another shape.
    Graph write = build([](G& b) {
        b.op_n(OpKind::VARIABLE, {}, {}, {{AttrName::name, std::string("v")}, {AttrName::var_shape, is({2})}, {AttrName::type, f32}});
        b.op_n(OpKind::VARIABLE_WRITE, {b.in(DType::fp16, {2})}, {}, {{AttrName::name, std::string("v")}});
    });
    CHECK(has(errors(write, var), "REQUIRE(is_same<variable_tensor.type,in_t>())"));
    Graph read = build([](G& b) {
        b.op_n(OpKind::VARIABLE, {}, {}, {{AttrName::name, std::string("v")}, {AttrName::var_shape, is({2})}, {AttrName::type, f32}});
        b.out(b.op_n(OpKind::VARIABLE_READ, {}, {T(f32, {3})}, {{AttrName::name, std::string("v")}}).outputs[0]);
    });
    CHECK(has(errors(read, var), "REQUIRE(variable_tensor.shape == shape): output1 is fp32[3]"));
}

CASE_GROUP(sliding_window_sites, "tosa: ERROR_IF sites: sliding windows, TRANSPOSE_CONV2D, FFT2D")
CASE_GROUP(elementwise_layout_sites, "tosa: ERROR_IF sites: CLAMP, result ranks, RESHAPE, TILE, TRANSPOSE")
CASE_GROUP(resize_rescale_sites, "tosa: ERROR_IF sites: RESIZE, RESCALE")
CASE_GROUP(control_flow_variable_sites, "tosa: ERROR_IF sites: COND_IF, WHILE_LOOP, variables")

std::string trimmed(const std::string& line) {
    const std::size_t text = line.find_first_not_of(' ');
    return text == std::string::npos ? std::string() : line.substr(text);
}

// The lines of lowering/tosa/<path>.
std::vector<std::string> source_lines(const std::string& path) {
    std::ifstream in(std::filesystem::path(NNEF_SOURCE_DIR) / "lowering" / "tosa" / path);
    std::vector<std::string> lines;
    for (std::string line; std::getline(in, line);) lines.push_back(line);
    return lines;
}

// site ("ops/tensor.cpp:123") -> its source line and the next (where the rule's text may continue).
std::map<std::string, std::string> sites_in_sources() {
    namespace fs = std::filesystem;
    const std::regex family_rule(R"(\bc\.(error_if|require)\()");
    const std::regex shared_rule(R"((^|[^a-z_.])(error_if|require)\(|fail\("tosa-error-if")");
    std::map<std::string, std::string> sites;
    for (const auto& entry : fs::directory_iterator(fs::path(NNEF_SOURCE_DIR) / "lowering" / "tosa" / "ops")) {
        const std::string name = entry.path().filename().string();
        const bool shared = name == "check.hpp";
        if (!shared && entry.path().extension() != ".cpp") continue;
        const std::vector<std::string> lines = source_lines("ops/" + name);
        for (std::size_t n = 0; n < lines.size(); ++n) {
            const std::string line = trimmed(lines[n]);
            if (line.rfind("//", 0) == 0) continue;
            const std::regex& rule = shared ? shared_rule : family_rule;
            const auto count = std::distance(std::sregex_iterator(line.begin(), line.end(), rule), std::sregex_iterator());
            if (count == 0) continue;
            // check.hpp's definitions of the rules and their forwarding are not sites
            if (shared && (line.find("bool error_if(") != std::string::npos || line.find("bool require(") != std::string::npos ||
                           line.find("file, line)") != std::string::npos))
                continue;
            const std::string site = "ops/" + name + ":" + std::to_string(n + 1);
            CAPTURE(site);
            CAPTURE(line);
            CHECK_MESSAGE(count == 1, "one rule a line: the line is the rule's id");
            sites[site] = line + (n + 1 < lines.size() ? " " + trimmed(lines[n + 1]) : "");
        }
    }
    return sites;
}

TEST_CASE("tosa: every ERROR_IF / REQUIRE site of the operator checks is reached by a hand-broken graph") {
    const std::map<std::string, std::string> sites = sites_in_sources();
    REQUIRE(sites.size() > 50);  // the sources were found
    rule_sites_reached().clear();
    REQUIRE(!case_groups().empty());
    for (const auto& group : case_groups()) {
        const auto& title = group.first;  // not a structured binding: CAPTURE's lambda takes it (clang 14, C++17)
        CAPTURE(title);
        group.second();
    }
    std::size_t reached = 0, inference = 0;
    for (const auto& [site, text] : sites) {
        const bool hit = rule_sites_reached().count(site) != 0;
        reached += hit;
        // control_flow_variable_sites checks this one by infer_output_types
        if (!hit && has(text, '"' + std::string(inference_only_rule) + '"')) {
            ++inference;
            continue;
        }
        if (!hit) FAIL_CHECK("no hand-broken graph reaches " << site << ": " << text);
    }
    CHECK(inference == 1);
    MESSAGE(reached << " of " << sites.size() << " ERROR_IF / REQUIRE sites reached by the validator's and the interpreter's"
                    << " hand-broken graphs (" << case_groups().size() << " groups), " << inference
                    << " by infer_output_types");
    // A reached site of the checks that the scan did not find must be another kind of rule (an
    // argument table's, the structure's), not an ERROR_IF or REQUIRE the scan missed.
    for (const std::string& site : rule_sites_reached()) {
        if (site.rfind("ops/", 0) != 0 || sites.count(site)) continue;
        const std::vector<std::string> lines = source_lines(site.substr(0, site.find(':')));
        const std::size_t n = std::stoul(site.substr(site.find(':') + 1));
        REQUIRE(n >= 1);
        REQUIRE(n <= lines.size());
        CAPTURE(site);
        CAPTURE(lines[n - 1]);
        CHECK(lines[n - 1].find("error_if(") == std::string::npos);
        CHECK(lines[n - 1].find("require(") == std::string::npos);
    }
}

}  // namespace error_if_sites_test
