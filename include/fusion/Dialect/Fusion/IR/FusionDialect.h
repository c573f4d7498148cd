//===- FusionDialect.h - the fusion dialect ---------------------*- C++ -*-===//
// Dialect, attribute and op declarations of the fusion dialect.
//===----------------------------------------------------------------------===//
#ifndef FUSION_DIALECT_FUSION_IR_FUSIONDIALECT_H
#define FUSION_DIALECT_FUSION_IR_FUSIONDIALECT_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Dialect.h"

#include "fusion/Dialect/Fusion/IR/FusionDialect.h.inc"

#endif
