//===- KernelOpsToGPU.h - pieces of the kernel-level op lowering -*- C++
//-*-===//
// What --fusion-lower-kernel-ops emits that the schedulers' lowerings also
// need directly (lib/Conversion/KernelOpsToGPU/, docs/lowering.md).
//===----------------------------------------------------------------------===//
#ifndef FUSION_CONVERSION_KERNELOPSTOGPU_H
#define FUSION_CONVERSION_KERNELOPSTOGPU_H

#include "mlir/IR/Builders.h"

namespace mlir::fusion {

/// A GPU-scope acquire-release fence (`fence.acq_rel.gpu`): orders a block's
/// writes of grid-reduction partials with the counter other blocks read.
void createGpuFence(OpBuilder &b, Location loc);

/// The symbol of a gpu.module's dynamic shared memory, which
/// fusion.stage_store and fusion.stage_load address (Note [Staged rows]).
inline constexpr llvm::StringLiteral kDynamicSmemSymbol = "fusion_dynamic_smem";

/// A kernel's function attribute: its first N parameters are tensor maps,
/// passed by value (Note [Tensor map parameters], --fusion-tensor-map-params).
inline constexpr llvm::StringLiteral kTensorMapsAttr = "fusion.tensor_maps";

} // namespace mlir::fusion

#endif // FUSION_CONVERSION_KERNELOPSTOGPU_H
