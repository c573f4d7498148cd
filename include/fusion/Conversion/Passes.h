//===- Passes.h - the lowering's passes -------------------------*- C++ -*-===//
// Declarations and registration of --fusion-lower-kernels and
// --fusion-lower-kernel-ops (docs/lowering.md).
//===----------------------------------------------------------------------===//
#ifndef FUSION_CONVERSION_PASSES_H
#define FUSION_CONVERSION_PASSES_H

#include "fusion/Dialect/Fusion/IR/FusionOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Pass/Pass.h"

namespace mlir::fusion {

#define GEN_PASS_DECL
#include "fusion/Conversion/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "fusion/Conversion/Passes.h.inc"

} // namespace mlir::fusion

#endif
