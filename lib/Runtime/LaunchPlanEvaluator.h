// Evaluation of a module's launch plan for one input signature: input shape
// checks, the expression program, constraints, buffer layouts, launch
// configurations and packed kernel parameters. Its result is what the
// executable caches per signature.
#ifndef FUSION_LIB_RUNTIME_LAUNCHPLANEVALUATOR_H
#define FUSION_LIB_RUNTIME_LAUNCHPLANEVALUATOR_H

#include "ModuleDesc.h"

#include "fusion/Runtime/Executable.h"
#include "fusion/Runtime/Status.h"

#include <cstdint>
#include <vector>

namespace fusion::runtime {

/// A parameter whose bytes change per call: a pointer or a scalar input.
struct ParamPatch {
  uint32_t offset = 0;
  ParamKind kind = ParamKind::Pointer;
  int32_t value = 0; // slot or scalar input
};

/// One cache entry: the public plan plus what the launch path reads.
struct CachedPlan {
  EvaluatedPlan plan;
  /// Elements per input (1 for scalars): a null pointer is only accepted
  /// for an empty tensor, checked per call.
  std::vector<int64_t> inputNumElements;
  /// Per launch, the parameters to patch into a copy of its packed buffer.
  std::vector<std::vector<ParamPatch>> patches;
  /// Launches that are not skipped, and whether they may run as one CUDA
  /// graph (Note [Launch graphs], Executable.cpp): two or more, none with a
  /// cluster or cooperative. Set when the plan is cached.
  size_t graphLaunches = 0;
  bool graphable = true;
};

/// Evaluates the plan. `inputs` have passed the per-call signature checks
/// (count, kind, dtype, rank, non-null sizes). `ptrAligned` holds the value of
/// each PtrAligned instruction (see evaluateExprProgram).
Expected<CachedPlan> evaluateLaunchPlan(const ModuleDesc &desc,
                                        const Argument *inputs,
                                        const uint8_t *ptrAligned);

/// Writes per-call values (pointers of `slotPointers`, scalar inputs) into a
/// launch's packed parameter buffer.
void applyParamPatches(const std::vector<ParamPatch> &patches,
                       const uint64_t *slotPointers, const Argument *inputs,
                       uint8_t *params);

} // namespace fusion::runtime

#endif // FUSION_LIB_RUNTIME_LAUNCHPLANEVALUATOR_H
