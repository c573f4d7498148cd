// Evaluation of a module's launch-plan expression program (int64 registers)
// for one set of bound inputs.
#ifndef FUSION_LIB_RUNTIME_EXPREVALUATOR_H
#define FUSION_LIB_RUNTIME_EXPREVALUATOR_H

#include "ModuleDesc.h"

#include "fusion/Runtime/Executable.h"
#include "fusion/Runtime/Status.h"

#include <cstdint>
#include <vector>

namespace fusion::runtime {

/// Stride of dim `dim` of a bound tensor, in elements; row-major when the
/// argument gives no strides.
int64_t argumentStride(const Argument &arg, int64_t dim);

/// Evaluates every instruction in order. `inputs` have been checked against
/// the signature (kind, dtype, rank). `ptrAligned[k]` is the value of the k-th
/// PtrAligned instruction (ModuleDesc::ptrAlignedExprs), 0 or 1: pointers of
/// buffers do not exist yet at evaluation time, so the caller decides.
/// Division by zero and int64 overflow are typed errors.
Expected<std::vector<int64_t>> evaluateExprProgram(const ModuleDesc &desc,
                                                   const Argument *inputs,
                                                   const uint8_t *ptrAligned);

} // namespace fusion::runtime

#endif // FUSION_LIB_RUNTIME_EXPREVALUATOR_H
