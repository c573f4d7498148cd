//===- Schedulers.h - which scheduler takes a kernel ------------*- C++ -*-===//
// The one test of whether a kernel can be scheduled, and by which scheduler:
// fusion-schedule uses it to pick the schedule, fusion-segment to decide
// where a fusion must be split into several kernels.
//===----------------------------------------------------------------------===//
#ifndef FUSION_TRANSFORMS_SCHEDULERS_H
#define FUSION_TRANSFORMS_SCHEDULERS_H

#include "fusion/Dialect/Fusion/Transforms/RowKernel.h"

#include <optional>
#include <string>

namespace mlir::fusion {

enum class SchedulerKind { Pointwise, InnerReduction, OuterReduction };

/// The scheduler that accepts a kernel and what its analysis found.
struct SchedulerChoice {
  SchedulerKind kind;
  std::optional<RowKernelInfo> row;     // InnerReduction
  std::optional<OuterKernelInfo> outer; // OuterReduction
};

/// Picks the scheduler for `kernel`: pointwise when it has no reduction,
/// else the inner reduction scheduler, else the outer one. On failure `why`
/// says what no scheduler handles and `culprit` is the op at fault (null when
/// the kernel as a whole is).
FailureOr<SchedulerChoice> chooseScheduler(KernelOp kernel, std::string &why,
                                           Operation *&culprit);

/// Whether some scheduler accepts `kernel` (`why`/`culprit` as above).
inline bool canSchedule(KernelOp kernel, std::string &why,
                        Operation *&culprit) {
  return succeeded(chooseScheduler(kernel, why, culprit));
}

} // namespace mlir::fusion

#endif
