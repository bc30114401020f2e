// The registry of standard operations: every primitive of revision 3 and of the later revisions
// (SPEC_NOTES 2), and every standard compound, which therefore stays atomic by default.
#include "semantics/ops/common.hpp"

namespace nnef {

const OpRegistry& OpRegistry::standard() {
    static const OpRegistry registry = [] {
        OpRegistry r;
        sema::ops::add_tensor_intro_ops(r);
        sema::ops::add_elementwise_ops(r);
        sema::ops::add_sliding_window_ops(r);
        sema::ops::add_sampling_ops(r);
        sema::ops::add_reduce_ops(r);
        sema::ops::add_shape_ops(r);
        sema::ops::add_roi_ops(r);
        sema::ops::add_matmul_ops(r);
        sema::ops::add_variable_update_ops(r);
        sema::ops::add_normalization_ops(r);
        sema::ops::add_quantization_ops(r);
        return r;
    }();
    return registry;
}

}  // namespace nnef
