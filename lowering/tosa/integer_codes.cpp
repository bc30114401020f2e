// The codes of a PRO-INT graph's inputs and outputs (IntegerCodes, from_nnef.hpp): reals to codes
// and back, for the tools that feed a PRO-INT function reals or report its codes as reals
// (nnef-run --via tosa --profile pro-int, nnef-to-vpu --simulate at pro-int).
#include "lowering/tosa/from_nnef.hpp"

namespace nnef::tosa {

std::optional<std::vector<std::int64_t>> codes_of(const IntegerCodes& codes, const Shape& shape, const std::vector<double>& reals) {
    const std::optional<storage::ChannelMap> channels = storage::ChannelMap::make(codes.params.shape, shape);
    if (!channels) return std::nullopt;
    std::vector<std::int64_t> out(reals.size());
    channels->for_each(reals.size(), [&](std::uint64_t i, std::size_t c) {
        out[std::size_t(i)] = codes.params.quantize(reals[std::size_t(i)], c) + codes.offset;
    });
    return out;
}

std::optional<std::vector<double>> reals_of(const IntegerCodes& codes, const Shape& shape, const std::vector<std::int64_t>& items) {
    const std::optional<storage::ChannelMap> channels = storage::ChannelMap::make(codes.params.shape, shape);
    if (!channels) return std::nullopt;
    std::vector<double> out(items.size());
    channels->for_each(items.size(), [&](std::uint64_t i, std::size_t c) {
        out[std::size_t(i)] = codes.params.dequantize(items[std::size_t(i)] - codes.offset, c);
    });
    return out;
}

}  // namespace nnef::tosa
