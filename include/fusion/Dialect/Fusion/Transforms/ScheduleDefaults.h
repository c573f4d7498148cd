//===- ScheduleDefaults.h - fusion-schedule's defaults ----------*- C++ -*-===//
// Shared by the pass, the pipeline's options and the tools' flags, so that
// each default is written once. No MLIR headers: the compile options of the
// target (fusion/Target/ModuleWriter.h) include it too.
//===----------------------------------------------------------------------===//
#ifndef FUSION_DIALECT_FUSION_TRANSFORMS_SCHEDULEDEFAULTS_H
#define FUSION_DIALECT_FUSION_TRANSFORMS_SCHEDULEDEFAULTS_H

#include <cstdint>

namespace mlir::fusion {

/// `compute-bound-cost`: Note [Compute-bound kernels] in Schedule.cpp.
constexpr int64_t kDefaultComputeBoundCost = 512;

} // namespace mlir::fusion

#endif
