// Region-of-interest operations (NNEF spec 4.6): refused. Their windows come from the `rois`
// tensor, so where each output item reads is known only at run time; TOSA 1.0.1 has no operator
// with data-dependent windows (RESIZE and the pools take compile-time parameters), and no
// decomposition into GATHER and arithmetic is provided here.
#include "lowering/tosa/from_nnef/context.hpp"

namespace nnef::tosa::from_nnef {

void add_roi(Registry& r) {
    const std::string why =
        "its windows come from the 'rois' tensor at run time, and TOSA 1.0.1 has no operator with data-dependent "
        "windows (no decomposition into GATHER and arithmetic is provided)";
    for (const char* name : {"avg_roi_pool", "max_roi_pool", "roi_resample", "avg_roi_align", "max_roi_align"})
        r.push_back({name, "roi", nullptr, why});
}

}  // namespace nnef::tosa::from_nnef
