//===- Passes.h - passes within the fusion dialect --------------*- C++ -*-===//
// Declarations and registration of decompose, segment and schedule.
//===----------------------------------------------------------------------===//
#ifndef FUSION_DIALECT_FUSION_TRANSFORMS_PASSES_H
#define FUSION_DIALECT_FUSION_TRANSFORMS_PASSES_H

#include "fusion/Dialect/Fusion/IR/FusionOps.h"
#include "fusion/Dialect/Fusion/Transforms/ScheduleDefaults.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassOptions.h"

namespace mlir::fusion {

#define GEN_PASS_DECL
#include "fusion/Dialect/Fusion/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "fusion/Dialect/Fusion/Transforms/Passes.h.inc"

} // namespace mlir::fusion

#endif
