//===- FusionKernelOps.td - kernel-level ops ---------------*- tablegen -*-===//
// Ops that segmentation and lowering produce: kernels, launches, buffers.
//===----------------------------------------------------------------------===//
#ifndef FUSION_KERNEL_OPS_TD
#define FUSION_KERNEL_OPS_TD

#endif // FUSION_KERNEL_OPS_TD
