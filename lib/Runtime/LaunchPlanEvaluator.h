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
#include <string>
#include <vector>

namespace fusion::runtime {

/// A parameter whose bytes change per call: a pointer or a scalar input.
struct ParamPatch {
  uint32_t offset = 0;
  ParamKind kind = ParamKind::Pointer;
  int32_t value = 0; // slot or scalar input
};

/// A tensor map's geometry for one signature (Note [Tensor maps]), as
/// cuTensorMapEncodeTiled takes it: dims innermost first, strides in bytes
/// of dims 1 .. rank - 1. `usable` is false, with the reason, when the copy
/// engine's rules fail for these sizes, strides or the pointer's alignment.
struct TensorMapGeometry {
  bool usable = false;
  std::string whyNot;
  int32_t rank = 0;
  uint64_t dims[5] = {};
  uint64_t strides[4] = {};
  uint32_t box[5] = {};
};

/// A tensor map encoded for one pointer (the bytes of a CUtensorMap).
struct EncodedTensorMap {
  uint64_t pointer = 0;
  bool valid = false;
  alignas(64) uint8_t bytes[128] = {};
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
  /// Note [Tensor maps]: each of the module's maps evaluated for this
  /// signature, the ones the chosen variants pass, and their encodings
  /// (filled per call by the executable, reused while the pointer stays).
  std::vector<TensorMapGeometry> tensorMaps;
  std::vector<int32_t> usedTensorMaps;
  mutable std::vector<EncodedTensorMap> encodedTensorMaps;
};

/// Evaluates the plan. `inputs` have passed the per-call signature checks
/// (count, kind, dtype, rank, non-null sizes). `ptrAligned` holds the value of
/// each PtrAligned instruction (see evaluateExprProgram), then for each
/// tensor map whether its slot's pointer is 16-byte aligned.
Expected<CachedPlan> evaluateLaunchPlan(const ModuleDesc &desc,
                                        const Argument *inputs,
                                        const uint8_t *ptrAligned);

/// Writes per-call values (pointers of `slotPointers`, scalar inputs, and
/// the encoded tensor maps of `tensorMaps` where not null) into a launch's
/// packed parameter buffer.
void applyParamPatches(const std::vector<ParamPatch> &patches,
                       const uint64_t *slotPointers, const Argument *inputs,
                       const EncodedTensorMap *tensorMaps, uint8_t *params);

} // namespace fusion::runtime

#endif // FUSION_LIB_RUNTIME_LAUNCHPLANEVALUATOR_H
