// The registry of standard kernels: every primitive of revision 3 and of the later revisions
// (SPEC_NOTES 2), and the compounds that have a dedicated kernel.
#include "exec/kernel.hpp"

namespace nnef::NNEF_EXEC_NS {

const KernelRegistry& KernelRegistry::standard() {
    static const KernelRegistry registry = [] {
        KernelRegistry r;
        add_tensor_intro_kernels(r);
        add_elementwise_kernels(r);
        add_sliding_window_kernels(r);
        add_sampling_kernels(r);
        add_reduce_kernels(r);
        add_shape_kernels(r);
        add_roi_kernels(r);
        add_matmul_kernels(r);
        add_normalization_kernels(r);
        return r;
    }();
    return registry;
}

}  // namespace nnef::NNEF_EXEC_NS
