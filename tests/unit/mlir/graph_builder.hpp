// Small TOSA graphs built by hand with the IR API, for the emitter and MLIR consumer tests.
#pragma once
#include <cstdint>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "lowering/tosa/ir.hpp"

namespace nnef_test {

struct TosaBuilder {
    nnef::tosa::Graph g;
    std::uint32_t block = 0;

    explicit TosaBuilder(std::string name, nnef::tosa::Profile profile = nnef::tosa::Profile::pro_fp) {
        g.name = std::move(name);
        g.profile = profile;
    }

    nnef::tosa::ValueId input(nnef::tosa::DType t, nnef::Shape shape, std::string name = {}) {
        auto v = g.add_value({t, std::move(shape)}, std::move(name));
        g.blocks[block].inputs.push_back(v);
        return v;
    }
    void output(nnef::tosa::ValueId v) { g.blocks[block].outputs.push_back(v); }

    nnef::tosa::ValueId op(nnef::tosa::OpKind k, std::vector<nnef::tosa::ValueId> in, nnef::tosa::DType t, nnef::Shape shape,
                           std::vector<std::pair<nnef::tosa::AttrName, nnef::tosa::Attr>> attrs = {}) {
        return g.add_op(block, k, std::move(in), {{t, std::move(shape)}}, std::move(attrs)).outputs.at(0);
    }

    template <class T>
    static nnef::tosa::ConstPtr data(nnef::tosa::DType t, nnef::Shape shape, const std::vector<T>& items) {
        auto c = nnef::tosa::ConstData::allocate({t, std::move(shape)});
        std::memcpy(c->template mutable_items<T>(), items.data(), items.size() * sizeof(T));
        return c;
    }
    template <class T>
    nnef::tosa::ValueId constant(nnef::tosa::DType t, nnef::Shape shape, const std::vector<T>& items, std::string name = {}) {
        return g.add_const(block, data<T>(t, std::move(shape), items), nnef::tosa::no_origin, std::move(name));
    }
    nnef::tosa::ValueId f32(nnef::Shape shape, const std::vector<float>& items) {
        return constant<float>(nnef::tosa::DType::fp32, std::move(shape), items);
    }
    nnef::tosa::ValueId i8(nnef::Shape shape, const std::vector<std::int8_t>& items) {
        return constant<std::int8_t>(nnef::tosa::DType::i8, std::move(shape), items);
    }
    nnef::tosa::ValueId i32(nnef::Shape shape, const std::vector<std::int32_t>& items) {
        return constant<std::int32_t>(nnef::tosa::DType::i32, std::move(shape), items);
    }
    nnef::tosa::ValueId shape(std::vector<std::int64_t> v) { return g.add_const_shape(block, std::move(v)); }
};

}  // namespace nnef_test
