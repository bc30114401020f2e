// Up- and down-sampling (NNEF spec 4.3.4). nearest_upsample repeats each item (a RESHAPE that adds
// a unit dimension after each spatial one, TILE by the factors, RESHAPE back); nearest_downsample
// takes every factor-th item (strided slices); area_downsample is the mean of each factor-sized
// block (AVG_POOL2D without padding). multilinear_upsample is refused (see below).
#include "lowering/tosa/from_nnef/context.hpp"

namespace nnef::tosa::from_nnef {

namespace tosa_from_nnef_sampling_cpp {

bool nearest_upsample(Context& c) {
    const ValueId x = c.input("input");
    const Ints factor = c.ints_attr("factor");
    const TensorType out = c.result_type("output");
    const Shape xs = c.shape(x);
    Shape expanded{xs[0], xs[1]};
    Ints multiples{1, 1};
    for (std::size_t k = 0; k < factor.size(); ++k) {
        expanded.push_back(xs[2 + k]);
        expanded.push_back(1);
        multiples.push_back(1);
        multiples.push_back(factor[k]);
    }
    if (expanded.size() > std::size_t(c.options().level.max_rank))
        return c.refuse("the repetition needs a rank-" + std::to_string(expanded.size()) + " tensor, above the level's MAX_RANK");
    return c.bind("output", c.reshape(c.tile(c.reshape(x, expanded), multiples), out.shape));
}

bool nearest_downsample(Context& c) {
    ValueId x = c.input("input");
    const Ints factor = c.ints_attr("factor");
    const TensorType out = c.result_type("output");
    for (std::size_t k = 0; k < factor.size(); ++k) x = strided(c, x, 2 + k, 0, out.shape[2 + k], factor[k]);
    return c.bind("output", x);
}

bool area_downsample(Context& c) {
    const ValueId x = c.input("input");
    const Ints factor = c.ints_attr("factor");
    const TensorType out = c.result_type("output");
    if (factor.size() != 2 || c.rank(x) != 4)
        return c.refuse("only 2-D area down-sampling (a rank-4 input) has a TOSA form here (AVG_POOL2D)");
    const Shape& o = out.shape;
    const ValueId y = c.add(OpKind::AVG_POOL2D,
                            {c.to_channels_last(x), c.zero_point(DType::fp32), c.zero_point(DType::fp32)},
                            TensorType{DType::fp32, {o[0], o[2], o[3], o[1]}},
                            {{AttrName::kernel, factor}, {AttrName::stride, factor}, {AttrName::pad, Ints{0, 0, 0, 0}},
                             {AttrName::acc_type, AccType::FP32}});
    return c.bind("output", c.to_channels_first(y));
}

}  // namespace tosa_from_nnef_sampling_cpp

void add_sampling(Registry& r) {
    using namespace tosa_from_nnef_sampling_cpp;
    r.push_back({"nearest_upsample", "sampling", nearest_upsample, {}});
    r.push_back({"nearest_downsample", "sampling", nearest_downsample, {}});
    r.push_back({"area_downsample", "sampling", area_downsample, {}});
    r.push_back({"multilinear_upsample", "sampling", nullptr,
                 "its interpolation methods ('symmetric', 'asymmetric', 'aligned') with the border modes need "
                 "decompositions that are not written (TOSA's bilinear RESIZE samples one grid and clamps at the "
                 "edges)"});
}

}  // namespace nnef::tosa::from_nnef
