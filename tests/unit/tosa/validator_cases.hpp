// Graph builders and cases of the TOSA validator's tests (tests/unit/tosa/validator_test.cpp), shared
// with the cross-check against MLIR's own TOSA validator (tests/unit/mlir/validator_mlir_test.cpp):
// a valid graph per operator (result shapes computed by hand from the spec's formulas) and builders
// of the failing ones.
#pragma once
#include <doctest/doctest.h>

#include <cctype>
#include <cmath>
#include <functional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "lowering/tosa/interpreter.hpp"
#include "lowering/tosa/validator.hpp"

// The ERROR_IF / REQUIRE sites of the family checks (RuleFailure::site) that a hand-broken graph
// of the tests reached, and the groups of such graphs: tests/unit/tosa/error_if_sites_test.cpp runs
// every group and checks that together they reach every site of lowering/tosa/ops (one binary,
// one set: inline, not in the unnamed namespace).
inline std::set<std::string>& rule_sites_reached() {
    static std::set<std::string> sites;
    return sites;
}
inline std::vector<std::pair<std::string, void (*)()>>& case_groups() {
    static std::vector<std::pair<std::string, void (*)()>> groups;
    return groups;
}
inline bool list_case_group(const char* title, void (*cases)()) {
    case_groups().emplace_back(title, cases);
    return true;
}
// A test case of hand-broken graphs, listed for the site coverage test too.
#define CASE_GROUP(cases, title)                                                   \
    [[maybe_unused]] const bool cases##_listed = list_case_group(title, cases); \
    TEST_CASE(title) { cases(); }

using namespace nnef::tosa;
using nnef::CallSite;
using nnef::Diagnostic;
using nnef::Diagnostics;
using nnef::Shape;
using nnef::SourceRange;
using nnef::Stage;

namespace {

// The extensions in MLIR's spelling ("EXT-INT16" -> "int16"), comma-separated.
inline std::string mlir_extension_list(const std::vector<std::string>& extensions) {
    std::string exts;
    for (const std::string& e : extensions) {
        std::string m = e.substr(4);
        for (char& ch : m) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
        exts += (exts.empty() ? "" : ",") + m;
    }
    return exts;
}

inline bool has_text(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

using I64 = std::int64_t;
using Ints = std::vector<I64>;
using Attrs = std::vector<std::pair<AttrName, Attr>>;

inline Attr i(I64 v) { return Attr(v); }
inline Attr is(Ints v) { return Attr(std::move(v)); }

// Builds graphs operator by operator; new operators go to block `cur`, all with one origin.
struct G {
    Graph g;
    std::uint32_t cur = 0;
    std::uint32_t origin;

    G() {
        g.name = "test";
        Origin o;
        o.operation = "conv";
        o.tensor = "y";
        o.provenance.range = SourceRange{1, 10, 20};
        origin = g.add_origin(o);
    }
    ValueId in(DType t, Shape s) {
        ValueId v = g.add_value(TensorType{t, std::move(s)});
        g.blocks[cur].inputs.push_back(v);
        return v;
    }
    ValueId cst(DType t, Shape s, std::vector<double> items = {}) {
        auto c = ConstData::allocate(TensorType{t, s});
        for (std::size_t k = 0; k < items.size(); ++k) {
            const double x = items[k];
            switch (t) {
                case DType::fp32: c->mutable_items<float>()[k] = static_cast<float>(x); break;
                case DType::fp16: c->mutable_items<std::uint16_t>()[k] = fp32_to_fp16(static_cast<float>(x)); break;
                case DType::bf16: c->mutable_items<std::uint16_t>()[k] = fp32_to_bf16(static_cast<float>(x)); break;
                case DType::bool_: c->mutable_items<std::uint8_t>()[k] = x != 0; break;
                // Integers through int64_t, then to the item type modulo 2^bits: an unsigned zero point
                // (32768 in an i16 tensor) is its bit pattern. A double outside the item type's range
                // cast directly is undefined (clang's UBSan: float-cast-overflow).
                case DType::i8: c->mutable_items<std::int8_t>()[k] = static_cast<std::int8_t>(static_cast<std::int64_t>(x)); break;
                case DType::i16: c->mutable_items<std::int16_t>()[k] = static_cast<std::int16_t>(static_cast<std::int64_t>(x)); break;
                case DType::i32: c->mutable_items<std::int32_t>()[k] = static_cast<std::int32_t>(static_cast<std::int64_t>(x)); break;
                case DType::i48:
                case DType::shape: c->mutable_items<std::int64_t>()[k] = static_cast<std::int64_t>(x); break;
                case DType::none: break;
            }
        }
        return g.add_const(cur, c, origin);
    }
    ValueId zp(DType t, double v = 0) { return cst(t, {1}, {v}); }
    ValueId shape(Ints v) { return g.add_const_shape(cur, std::move(v), origin); }
    ValueId op(OpKind k, std::vector<ValueId> ins, TensorType out, Attrs attrs = {}) {
        return g.add_op(cur, k, std::move(ins), {std::move(out)}, std::move(attrs), origin).outputs[0];
    }
    Op& op_n(OpKind k, std::vector<ValueId> ins, std::vector<TensorType> outs, Attrs attrs = {}) {
        return g.add_op(cur, k, std::move(ins), std::move(outs), std::move(attrs), origin);
    }
    void out(ValueId v) { g.blocks[cur].outputs.push_back(v); }
};

inline TensorType T(DType t, Shape s) { return TensorType{t, std::move(s)}; }
const DType f32 = DType::fp32;

inline ValidateOptions opts(Profile p = Profile::pro_fp, std::vector<std::string> ext = {}, Level l = Level::eight_k()) {
    ValidateOptions o;
    o.profile = p;
    o.level = std::move(l);
    o.extensions = std::move(ext);
    return o;
}

// Interpreter::create refuses g by the rule `f` (code and words) before running it; the rule's site
// is reached.
inline void interpreter_refuses_by(const Graph& g, const RuleFailure& f) {
    rule_sites_reached().insert(f.site);
    Diagnostics d(100);
    CHECK(Interpreter::create(g, InterpretOptions{}, d) == nullptr);
    bool same = false;
    for (const Diagnostic& x : d) same = same || (x.code == f.code && has_text(x.message, f.message));
    CHECK(same);
}

// ERROR_IF in one place: when an operator of `g` breaks one of its own rules (operator_rules, the
// family check), the interpreter refuses the graph before running it with the validator's code and
// words; when the validator reports that rule, it is the same words. Returns whether a rule broke.
inline bool interpreter_refuses_as_validator(const Graph& g, const std::string& validator_errors) {
    for (const Block& b : g.blocks)
        for (const Op& op : b.ops) {
            const std::optional<RuleFailure> f = operator_rules(g, op);
            if (!f) continue;
            CAPTURE(f->message);
            CHECK(has_text(validator_errors, f->message));
            interpreter_refuses_by(g, *f);
            return true;
        }
    return false;
}

// The messages of validate, one a line ("" when valid); a broken operator rule among them is
// checked against the interpreter (interpreter_refuses_as_validator).
inline std::string errors(const Graph& g, const ValidateOptions& o = opts()) {
    Diagnostics d(100);
    const bool ok = validate(g, o, d);
    std::string s;
    for (const Diagnostic& x : d) {
        s += x.message + "\n";
        CHECK(x.stage == Stage::tosa);
    }
    CHECK(ok == s.empty());
    if (!s.empty()) interpreter_refuses_as_validator(g, s);
    return s;
}

inline bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// infer_output_types agrees with the result types of every operator of a valid graph.
inline void check_inference(const Graph& g) {
    for (const Block& b : g.blocks) {
        for (const Op& op : b.ops) {
            if (op.kind == OpKind::CUSTOM) continue;
            std::string why;
            auto types = infer_output_types(g, op, &why);
            CAPTURE(to_string(op.kind));
            CAPTURE(why);
            REQUIRE(types.has_value());
            REQUIRE(types->size() == op.outputs.size());
            for (std::size_t k = 0; k < op.outputs.size(); ++k) CHECK(to_string((*types)[k]) == to_string(g.type(op.outputs[k])));
        }
    }
}

struct ValidCase {
    OpKind kind;
    Profile profile;
    std::vector<std::string> extensions;
    std::function<void(G&)> build;
};

inline Attrs conv_attrs(Ints pad, Ints stride, Ints dilation, AccType acc = AccType::FP32) {
    return {{AttrName::pad, is(std::move(pad))}, {AttrName::stride, is(std::move(stride))},
            {AttrName::dilation, is(std::move(dilation))}, {AttrName::acc_type, acc}};
}

// One valid graph per operator; the result shapes are computed by hand from the spec's formulas.
inline std::vector<ValidCase> valid_cases() {
    const Profile fp = Profile::pro_fp, in = Profile::pro_int;
    auto unary = [](OpKind k, DType t) {
        return [k, t](G& b) { b.out(b.op(k, {b.in(t, {2, 3})}, T(t, {2, 3}))); };
    };
    auto binary = [](OpKind k, DType t, DType out, Attrs a = {}) {
        return [k, t, out, a](G& b) { b.out(b.op(k, {b.in(t, {2, 3}), b.in(t, {1, 3})}, T(out, {2, 3}), a)); };
    };
    const Attrs nan = {{AttrName::nan_mode, NanMode::PROPAGATE}};
    std::vector<ValidCase> v = {
        {OpKind::ARGMAX, fp, {}, [](G& b) {
             b.out(b.op(OpKind::ARGMAX, {b.in(f32, {2, 3, 4})}, T(DType::i32, {2, 4}),
                        {{AttrName::axis, i(1)}, {AttrName::nan_mode, NanMode::PROPAGATE}}));
         }},
        {OpKind::AVG_POOL2D, fp, {}, [](G& b) {
             // OH = (4 + 0 + 0 - 2) / 2 + 1 = 2
             ValueId x = b.in(f32, {1, 4, 4, 2});
             b.out(b.op(OpKind::AVG_POOL2D, {x, b.zp(f32), b.zp(f32)}, T(f32, {1, 2, 2, 2}),
                        {{AttrName::kernel, is({2, 2})}, {AttrName::stride, is({2, 2})}, {AttrName::pad, is({0, 0, 0, 0})},
                         {AttrName::acc_type, AccType::FP32}}));
         }},
        {OpKind::CONV2D, fp, {}, [](G& b) {
             // OH = (5 - 1 + 1 + 1 - (3 - 1) * 1) / 2 + 1 = 3
             ValueId x = b.in(f32, {1, 5, 5, 3});
             ValueId w = b.cst(f32, {4, 3, 3, 3});
             b.out(b.op(OpKind::CONV2D, {x, w, b.cst(f32, {4}), b.zp(f32), b.zp(f32)}, T(f32, {1, 3, 3, 4}),
                        conv_attrs({1, 1, 1, 1}, {2, 2}, {1, 1})));
         }},
        {OpKind::CONV3D, fp, {}, [](G& b) {
             // OD = (4 - 1 + 0 - (2 - 1)) / 2 + 1 = 2
             ValueId x = b.in(f32, {1, 4, 4, 4, 2});
             b.out(b.op(OpKind::CONV3D, {x, b.cst(f32, {3, 2, 2, 2, 2}), b.cst(f32, {3}), b.zp(f32), b.zp(f32)},
                        T(f32, {1, 2, 2, 2, 3}), conv_attrs({0, 0, 0, 0, 0, 0}, {2, 2, 2}, {1, 1, 1})));
         }},
        {OpKind::DEPTHWISE_CONV2D, fp, {}, [](G& b) {
             // OH = (4 - 1 + 2 - 2) / 1 + 1 = 4, C * M = 4; dilation 2: (4 - 1 + 4 - 4) + 1 = 4
             ValueId x = b.in(f32, {1, 4, 4, 2});
             b.out(b.op(OpKind::DEPTHWISE_CONV2D, {x, b.cst(f32, {3, 3, 2, 2}), b.cst(f32, {1}), b.zp(f32), b.zp(f32)},
                        T(f32, {1, 4, 4, 4}), conv_attrs({2, 2, 2, 2}, {1, 1}, {2, 2})));
         }},
        {OpKind::FFT2D, fp, {"EXT-FFT"}, [](G& b) {
             Op& op = b.op_n(OpKind::FFT2D, {b.in(f32, {1, 4, 8}), b.in(f32, {1, 4, 8})}, {T(f32, {1, 4, 8}), T(f32, {1, 4, 8})},
                             {{AttrName::inverse, false}});
             b.out(op.outputs[0]);
             b.out(op.outputs[1]);
         }},
        {OpKind::MATMUL, fp, {}, [](G& b) {
             b.out(b.op(OpKind::MATMUL, {b.in(f32, {2, 3, 4}), b.in(f32, {2, 4, 5}), b.zp(f32), b.zp(f32)}, T(f32, {2, 3, 5})));
         }},
        {OpKind::MAX_POOL2D, fp, {}, [](G& b) {
             // OH = (5 + 1 + 1 - 3) / 2 + 1 = 3
             b.out(b.op(OpKind::MAX_POOL2D, {b.in(f32, {1, 5, 5, 1})}, T(f32, {1, 3, 3, 1}),
                        {{AttrName::kernel, is({3, 3})}, {AttrName::stride, is({2, 2})}, {AttrName::pad, is({1, 1, 1, 1})},
                         {AttrName::nan_mode, NanMode::PROPAGATE}}));
         }},
        {OpKind::RFFT2D, fp, {"EXT-FFT"}, [](G& b) {
             // W / 2 + 1 = 5
             Op& op = b.op_n(OpKind::RFFT2D, {b.in(f32, {1, 4, 8})}, {T(f32, {1, 4, 5}), T(f32, {1, 4, 5})});
             b.out(op.outputs[0]);
             b.out(op.outputs[1]);
         }},
        {OpKind::TRANSPOSE_CONV2D, fp, {}, [](G& b) {
             // OH = (3 - 1) * 2 + 0 + 0 + 3 = 7
             ValueId x = b.in(f32, {1, 3, 3, 2});
             b.out(b.op(OpKind::TRANSPOSE_CONV2D, {x, b.cst(f32, {4, 3, 3, 2}), b.cst(f32, {4}), b.zp(f32), b.zp(f32)},
                        T(f32, {1, 7, 7, 4}),
                        {{AttrName::out_pad, is({0, 0, 0, 0})}, {AttrName::stride, is({2, 2})}, {AttrName::acc_type, AccType::FP32}}));
         }},
        {OpKind::CLAMP, fp, {}, [](G& b) {
             b.out(b.op(OpKind::CLAMP, {b.in(f32, {2, 3})}, T(f32, {2, 3}),
                        {{AttrName::min_val, -1.0}, {AttrName::max_val, 1.0}, {AttrName::nan_mode, NanMode::PROPAGATE}}));
         }},
        {OpKind::ERF, fp, {}, unary(OpKind::ERF, f32)},
        {OpKind::SIGMOID, fp, {}, unary(OpKind::SIGMOID, f32)},
        {OpKind::TANH, fp, {}, unary(OpKind::TANH, DType::fp16)},
        {OpKind::ADD, fp, {}, binary(OpKind::ADD, f32, f32)},
        {OpKind::ARITHMETIC_RIGHT_SHIFT, in, {}, [](G& b) {
             b.out(b.op(OpKind::ARITHMETIC_RIGHT_SHIFT, {b.in(DType::i32, {2, 3}), b.cst(DType::i32, {1, 1}, {31})},
                        T(DType::i32, {2, 3}), {{AttrName::round, true}}));
         }},
        {OpKind::BITWISE_AND, in, {}, binary(OpKind::BITWISE_AND, DType::i8, DType::i8)},
        {OpKind::BITWISE_OR, in, {}, binary(OpKind::BITWISE_OR, DType::i16, DType::i16)},
        {OpKind::BITWISE_XOR, in, {}, binary(OpKind::BITWISE_XOR, DType::i32, DType::i32)},
        {OpKind::INTDIV, fp, {}, [](G& b) {
             b.out(b.op(OpKind::INTDIV, {b.in(DType::i32, {2, 3}), b.cst(DType::i32, {1, 3}, {1, -2, 3})}, T(DType::i32, {2, 3})));
         }},
        {OpKind::LOGICAL_AND, in, {}, binary(OpKind::LOGICAL_AND, DType::bool_, DType::bool_)},
        {OpKind::LOGICAL_LEFT_SHIFT, in, {}, binary(OpKind::LOGICAL_LEFT_SHIFT, DType::i16, DType::i16)},
        {OpKind::LOGICAL_RIGHT_SHIFT, fp, {}, binary(OpKind::LOGICAL_RIGHT_SHIFT, DType::i8, DType::i8)},
        {OpKind::LOGICAL_OR, fp, {}, binary(OpKind::LOGICAL_OR, DType::bool_, DType::bool_)},
        {OpKind::LOGICAL_XOR, in, {}, binary(OpKind::LOGICAL_XOR, DType::bool_, DType::bool_)},
        {OpKind::MAXIMUM, fp, {}, binary(OpKind::MAXIMUM, f32, f32, nan)},
        {OpKind::MINIMUM, in, {}, binary(OpKind::MINIMUM, DType::i32, DType::i32, nan)},
        {OpKind::MUL, in, {}, [](G& b) {
             // i8 x i8 -> i32 (PRO-INT), shift 0
             b.out(b.op(OpKind::MUL, {b.in(DType::i8, {2, 3}), b.in(DType::i8, {2, 1}), b.zp(DType::i8)}, T(DType::i32, {2, 3})));
         }},
        {OpKind::POW, fp, {}, binary(OpKind::POW, f32, f32)},
        {OpKind::SUB, in, {}, binary(OpKind::SUB, DType::i32, DType::i32)},
        {OpKind::TABLE, in, {}, [](G& b) {
             b.out(b.op(OpKind::TABLE, {b.in(DType::i8, {2, 3}), b.cst(DType::i8, {256})}, T(DType::i8, {2, 3})));
         }},
        {OpKind::ABS, fp, {}, unary(OpKind::ABS, f32)},
        {OpKind::BITWISE_NOT, in, {}, unary(OpKind::BITWISE_NOT, DType::i8)},
        {OpKind::CEIL, fp, {}, unary(OpKind::CEIL, f32)},
        {OpKind::CLZ, in, {}, unary(OpKind::CLZ, DType::i32)},
        {OpKind::COS, fp, {}, unary(OpKind::COS, f32)},
        {OpKind::EXP, fp, {"EXT-BF16"}, unary(OpKind::EXP, DType::bf16)},
        {OpKind::FLOOR, fp, {}, unary(OpKind::FLOOR, f32)},
        {OpKind::LOG, fp, {}, unary(OpKind::LOG, f32)},
        {OpKind::LOGICAL_NOT, in, {}, unary(OpKind::LOGICAL_NOT, DType::bool_)},
        {OpKind::NEGATE, in, {}, [](G& b) {
             b.out(b.op(OpKind::NEGATE, {b.in(DType::i8, {2, 3}), b.zp(DType::i8, 5), b.zp(DType::i8, -7)}, T(DType::i8, {2, 3})));
         }},
        {OpKind::RECIPROCAL, fp, {}, unary(OpKind::RECIPROCAL, f32)},
        {OpKind::RSQRT, fp, {}, unary(OpKind::RSQRT, f32)},
        {OpKind::SIN, fp, {}, unary(OpKind::SIN, f32)},
        {OpKind::SELECT, fp, {}, [](G& b) {
             b.out(b.op(OpKind::SELECT, {b.in(DType::bool_, {2, 1}), b.in(f32, {2, 3}), b.in(f32, {1, 3})}, T(f32, {2, 3})));
         }},
        {OpKind::EQUAL, fp, {}, binary(OpKind::EQUAL, f32, DType::bool_)},
        {OpKind::GREATER, in, {}, binary(OpKind::GREATER, DType::i32, DType::bool_)},
        {OpKind::GREATER_EQUAL, fp, {}, binary(OpKind::GREATER_EQUAL, DType::fp16, DType::bool_)},
        {OpKind::REDUCE_ALL, fp, {}, [](G& b) {
             b.out(b.op(OpKind::REDUCE_ALL, {b.in(DType::bool_, {2, 3})}, T(DType::bool_, {2, 1}), {{AttrName::axis, i(1)}}));
         }},
        {OpKind::REDUCE_ANY, in, {}, [](G& b) {
             b.out(b.op(OpKind::REDUCE_ANY, {b.in(DType::bool_, {2, 3})}, T(DType::bool_, {1, 3}), {{AttrName::axis, i(0)}}));
         }},
        {OpKind::REDUCE_MAX, in, {}, [](G& b) {
             b.out(b.op(OpKind::REDUCE_MAX, {b.in(DType::i8, {2, 3, 4})}, T(DType::i8, {2, 3, 1}),
                        {{AttrName::axis, i(2)}, {AttrName::nan_mode, NanMode::IGNORE}}));
         }},
        {OpKind::REDUCE_MIN, fp, {}, [](G& b) {
             b.out(b.op(OpKind::REDUCE_MIN, {b.in(f32, {2, 3})}, T(f32, {2, 1}),
                        {{AttrName::axis, i(1)}, {AttrName::nan_mode, NanMode::PROPAGATE}}));
         }},
        {OpKind::REDUCE_PRODUCT, fp, {}, [](G& b) {
             b.out(b.op(OpKind::REDUCE_PRODUCT, {b.in(f32, {2, 3})}, T(f32, {1, 3}), {{AttrName::axis, i(0)}}));
         }},
        {OpKind::REDUCE_SUM, fp, {}, [](G& b) {
             b.out(b.op(OpKind::REDUCE_SUM, {b.in(f32, {2, 3})}, T(f32, {2, 1}), {{AttrName::axis, i(1)}}));
         }},
        {OpKind::CONCAT, fp, {}, [](G& b) {
             b.out(b.op(OpKind::CONCAT, {b.in(f32, {2, 3}), b.in(f32, {2, 1}), b.in(f32, {2, 2})}, T(f32, {2, 6}),
                        {{AttrName::axis, i(1)}}));
         }},
        {OpKind::PAD, fp, {}, [](G& b) {
             // [1 + 2 + 0, 0 + 3 + 2]
             b.out(b.op(OpKind::PAD, {b.in(f32, {2, 3}), b.shape({1, 0, 0, 2}), b.zp(f32, 1.5)}, T(f32, {3, 5})));
         }},
        {OpKind::RESHAPE, in, {}, [](G& b) {
             b.out(b.op(OpKind::RESHAPE, {b.in(DType::i8, {2, 3}), b.shape({3, 1, 2})}, T(DType::i8, {3, 1, 2})));
         }},
        {OpKind::REVERSE, fp, {}, [](G& b) {
             b.out(b.op(OpKind::REVERSE, {b.in(f32, {2, 3})}, T(f32, {2, 3}), {{AttrName::axis, i(0)}}));
         }},
        {OpKind::SLICE, fp, {}, [](G& b) {
             b.out(b.op(OpKind::SLICE, {b.in(f32, {4, 5}), b.shape({1, 2}), b.shape({3, 3})}, T(f32, {3, 3})));
         }},
        {OpKind::TILE, fp, {}, [](G& b) {
             b.out(b.op(OpKind::TILE, {b.in(f32, {2, 3}), b.shape({2, 1})}, T(f32, {4, 3})));
         }},
        {OpKind::TRANSPOSE, fp, {}, [](G& b) {
             b.out(b.op(OpKind::TRANSPOSE, {b.in(f32, {2, 3, 4})}, T(f32, {4, 2, 3}), {{AttrName::perms, is({2, 0, 1})}}));
         }},
        {OpKind::GATHER, fp, {}, [](G& b) {
             ValueId idx = b.cst(DType::i32, {2, 4}, {0, 4, 4, 1, 3, 2, 0, 0});
             b.out(b.op(OpKind::GATHER, {b.in(f32, {2, 5, 3}), idx}, T(f32, {2, 4, 3})));
         }},
        {OpKind::SCATTER, in, {}, [](G& b) {
             ValueId idx = b.cst(DType::i32, {2, 2}, {0, 4, 4, 0});
             b.out(b.op(OpKind::SCATTER, {b.in(DType::i8, {2, 5, 3}), idx, b.in(DType::i8, {2, 2, 3})}, T(DType::i8, {2, 5, 3})));
         }},
        {OpKind::RESIZE, fp, {}, [](G& b) {
             // OH = ((4 - 1) * 2 - 0 + 0) / 1 + 1 = 7; OW = ((4 - 1) * 4 - 1 + 1) / 3 + 1 = 5
             b.out(b.op(OpKind::RESIZE, {b.in(f32, {1, 4, 4, 2}), b.shape({2, 1, 4, 3}), b.shape({0, 1}), b.shape({0, 1})},
                        T(f32, {1, 7, 5, 2}), {{AttrName::mode, ResizeMode::BILINEAR}}));
         }},
        {OpKind::CAST, fp, {}, [](G& b) { b.out(b.op(OpKind::CAST, {b.in(f32, {2, 3})}, T(DType::i8, {2, 3}))); }},
        {OpKind::RESCALE, in, {}, [](G& b) {
             ValueId x = b.in(DType::i32, {2, 3});
             b.out(b.op(OpKind::RESCALE,
                        {x, b.cst(DType::i32, {3}, {1 << 30, 1 << 29, 3 << 28}), b.cst(DType::i8, {3}, {30, 31, 40}),
                         b.zp(DType::i32), b.zp(DType::i8, -3)},
                        T(DType::i8, {2, 3}),
                        {{AttrName::scale32, true}, {AttrName::rounding_mode, RoundingMode::SINGLE_ROUND},
                         {AttrName::per_channel, true}, {AttrName::input_unsigned, false},
                         {AttrName::output_unsigned, false}}));
         }},
        {OpKind::CONST, fp, {}, [](G& b) { b.out(b.cst(f32, {2, 2}, {1, 2, 3, 4})); }},
        {OpKind::IDENTITY, in, {"EXT-INT16"}, unary(OpKind::IDENTITY, DType::i48)},
        {OpKind::CUSTOM, fp, {}, [](G& b) {
             Op& op = b.op_n(OpKind::CUSTOM, {b.in(f32, {2}), b.in(DType::i8, {3})}, {T(f32, {7})},
                             {{AttrName::operator_name, std::string("my_op")}, {AttrName::domain_name, std::string("example.com")},
                              {AttrName::implementation_attrs, std::string("")}});
             b.out(op.outputs[0]);
         }},
        {OpKind::COND_IF, fp, {"EXT-CONTROLFLOW"}, [](G& b) {
             ValueId c = b.in(DType::bool_, {1, 1});
             ValueId x = b.in(f32, {2});
             const std::uint32_t then_b = b.g.add_block("then_graph.0"), else_b = b.g.add_block("else_graph.0");
             b.cur = then_b;
             b.out(b.op(OpKind::ABS, {b.in(f32, {2})}, T(f32, {2})));
             b.cur = else_b;
             ValueId e = b.in(f32, {2});
             b.out(b.op(OpKind::NEGATE, {e, b.zp(f32), b.zp(f32)}, T(f32, {2})));
             b.cur = 0;
             b.out(b.op(OpKind::COND_IF, {c, x}, T(f32, {2}),
                        {{AttrName::then_graph, BlockRef{then_b}}, {AttrName::else_graph, BlockRef{else_b}}}));
         }},
        {OpKind::WHILE_LOOP, in, {"EXT-CONTROLFLOW"}, [](G& b) {
             ValueId x = b.in(DType::i32, {1});
             const std::uint32_t cond_b = b.g.add_block("cond_graph.0"), body_b = b.g.add_block("body_graph.0");
             b.cur = cond_b;
             ValueId ci = b.in(DType::i32, {1});
             b.out(b.op(OpKind::GREATER, {b.cst(DType::i32, {1}, {10}), ci}, T(DType::bool_, {1})));
             b.cur = body_b;
             ValueId bi = b.in(DType::i32, {1});
             b.out(b.op(OpKind::ADD, {bi, b.cst(DType::i32, {1}, {1})}, T(DType::i32, {1})));
             b.cur = 0;
             b.out(b.op(OpKind::WHILE_LOOP, {x}, T(DType::i32, {1}),
                        {{AttrName::cond_graph, BlockRef{cond_b}}, {AttrName::body_graph, BlockRef{body_b}}}));
         }},
        {OpKind::VARIABLE, fp, {"EXT-VARIABLE"}, [](G& b) {
             auto init = ConstData::allocate(T(f32, {2}));
             b.op_n(OpKind::VARIABLE, {}, {},
                    {{AttrName::name, std::string("state")}, {AttrName::var_shape, is({2})}, {AttrName::type, f32},
                     {AttrName::initial_value, ConstPtr(init)}});
             ValueId r = b.op_n(OpKind::VARIABLE_READ, {}, {T(f32, {2})}, {{AttrName::name, std::string("state")}}).outputs[0];
             ValueId s = b.op(OpKind::ADD, {r, b.in(f32, {2})}, T(f32, {2}));
             b.op_n(OpKind::VARIABLE_WRITE, {s}, {}, {{AttrName::name, std::string("state")}});
             b.out(s);
         }},
        {OpKind::VARIABLE_WRITE, in, {"EXT-VARIABLE"}, [](G& b) {
             b.op_n(OpKind::VARIABLE, {}, {},
                    {{AttrName::name, std::string("acc")}, {AttrName::var_shape, is({1, 4})}, {AttrName::type, DType::i8}});
             b.op_n(OpKind::VARIABLE_WRITE, {b.in(DType::i8, {1, 4})}, {}, {{AttrName::name, std::string("acc")}});
         }},
        {OpKind::VARIABLE_READ, fp, {"EXT-VARIABLE"}, [](G& b) {
             b.op_n(OpKind::VARIABLE, {}, {},
                    {{AttrName::name, std::string("h")}, {AttrName::var_shape, is({3})}, {AttrName::type, DType::fp16}});
             b.out(b.op_n(OpKind::VARIABLE_READ, {}, {T(DType::fp16, {3})}, {{AttrName::name, std::string("h")}}).outputs[0]);
         }},
        {OpKind::CONST_SHAPE, fp, {}, [](G& b) {
             b.out(b.op(OpKind::RESHAPE, {b.in(f32, {6}), b.shape({2, 3})}, T(f32, {2, 3})));
         }},
    };
    return v;
}

// A graph with one operator of `k` built by `f` (for the failing cases).
inline Graph build(const std::function<void(G&)>& f) {
    G b;
    f(b);
    return b.g;
}

// A CONV2D graph with the given parameters.
inline Graph conv(Shape x, Shape w, Shape out, Ints pad, Ints stride, Ints dil, I64 bias = -1, double in_zp = 0) {
    return build([&](G& b) {
        ValueId xi = b.in(f32, x);
        const I64 bc = bias < 0 ? w[0] : bias;
        b.out(b.op(OpKind::CONV2D, {xi, b.cst(f32, w), b.cst(f32, {bc}), b.zp(f32, in_zp), b.zp(f32)}, T(f32, out),
                   conv_attrs(pad, stride, dil)));
    });
}

inline Graph pool(OpKind k, Shape x, Shape out, Ints kernel, Ints stride, Ints pad) {
    return build([&](G& b) {
        ValueId xi = b.in(f32, x);
        if (k == OpKind::MAX_POOL2D)
            b.out(b.op(k, {xi}, T(f32, out),
                       {{AttrName::kernel, is(kernel)}, {AttrName::stride, is(stride)}, {AttrName::pad, is(pad)},
                        {AttrName::nan_mode, NanMode::PROPAGATE}}));
        else
            b.out(b.op(k, {xi, b.zp(f32), b.zp(f32)}, T(f32, out),
                       {{AttrName::kernel, is(kernel)}, {AttrName::stride, is(stride)}, {AttrName::pad, is(pad)},
                        {AttrName::acc_type, AccType::FP32}}));
    });
}

inline Graph rescale(DType in_t, DType out_t, bool scale32, RoundingMode rm, bool in_u, bool out_u, double in_zp = 0,
              double out_zp = 0, std::vector<double> shift = {30}) {
    return build([&](G& b) {
        ValueId x = b.in(in_t, {2, 3});
        const DType mul_t = scale32 ? DType::i32 : DType::i16;
        b.out(b.op(OpKind::RESCALE,
                   {x, b.cst(mul_t, {1}, {scale32 ? double(1 << 30) : double(1 << 14)}), b.cst(DType::i8, {1}, shift),
                    b.zp(in_t, in_zp), b.zp(out_t, out_zp)},
                   T(out_t, {2, 3}),
                   {{AttrName::scale32, scale32}, {AttrName::rounding_mode, rm}, {AttrName::per_channel, false},
                    {AttrName::input_unsigned, in_u}, {AttrName::output_unsigned, out_u}}));
    });
}

inline Graph resize(Shape x, Shape out, Ints scale, Ints offset, Ints border) {
    return build([&](G& b) {
        b.out(b.op(OpKind::RESIZE, {b.in(f32, x), b.shape(scale), b.shape(offset), b.shape(border)}, T(f32, out),
                   {{AttrName::mode, ResizeMode::NEAREST_NEIGHBOR}}));
    });
}

// COND_IFs nested `depth` deep (the innermost one at nesting depth - 1).
inline Graph nested_cond_if(int depth) {
    G b;
    std::function<ValueId(int, ValueId, ValueId)> level = [&](int d, ValueId c, ValueId x) -> ValueId {
        if (d == depth) return b.op(OpKind::ABS, {x}, T(f32, {2}));
        const std::uint32_t outer = b.cur;
        const std::uint32_t then_b = b.g.add_block("then." + std::to_string(d));
        const std::uint32_t else_b = b.g.add_block("else." + std::to_string(d));
        b.cur = then_b;
        ValueId tc = b.in(DType::bool_, {1});
        ValueId tx = b.in(f32, {2});
        b.out(level(d + 1, tc, tx));
        b.cur = else_b;
        b.in(DType::bool_, {1});
        ValueId ex = b.in(f32, {2});
        b.out(b.op(OpKind::IDENTITY, {ex}, T(f32, {2})));
        b.cur = outer;
        return b.op(OpKind::COND_IF, {c, c, x}, T(f32, {2}),
                    {{AttrName::then_graph, BlockRef{then_b}}, {AttrName::else_graph, BlockRef{else_b}}});
    };
    ValueId c = b.in(DType::bool_, {1});
    ValueId x = b.in(f32, {2});
    b.out(level(0, c, x));
    return b.g;
}

}  // namespace
