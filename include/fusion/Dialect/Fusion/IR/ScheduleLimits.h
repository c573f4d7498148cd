//===- ScheduleLimits.h - limits a schedule shares with the lowering --*- C++
//-*-===//
// Numbers that the schedule verifier, the scheduler's options and the
// lowering must agree on; each lives here once.
//===----------------------------------------------------------------------===//
#ifndef FUSION_DIALECT_FUSION_IR_SCHEDULELIMITS_H
#define FUSION_DIALECT_FUSION_IR_SCHEDULELIMITS_H

#include <cstdint>

namespace mlir::fusion {

/// Most threads of one row kernel's block. Every row variant declares it as
/// nvvm.maxntid (so ptxas keeps it within 128 registers per thread), so an
/// inner_reduction schedule's block may not exceed it: a larger one made
/// blocks the driver refuses at launch.
inline constexpr int64_t kMaxRowBlockThreads = 512;

} // namespace mlir::fusion

#endif
