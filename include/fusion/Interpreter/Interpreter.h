//===- Interpreter.h - reference interpreter of fusions ---------*- C++ -*-===//
// Evaluates a definition-level fusion.fusion on the CPU: the ground truth
// that tests and fusion-run compare kernels against. docs/interpreter.md
// gives the numeric semantics.
//===----------------------------------------------------------------------===//
#ifndef FUSION_INTERPRETER_INTERPRETER_H
#define FUSION_INTERPRETER_INTERPRETER_H

#include "fusion/Dialect/Fusion/IR/FusionOps.h"
#include "fusion/Interpreter/HostTensor.h"

#include <vector>

namespace mlir::fusion::interp {

/// Checks `inputs` against the fusion's signature: count, kind (tensor,
/// scalar or index), dtype, rank and static sizes. The error names the input
/// by index and name, e.g. "input 1 (bias): expected dtype bf16, got f32".
llvm::Error checkInputs(FusionOp fusion, llvm::ArrayRef<HostValue> inputs);

/// Runs the fusion on `inputs` (tensors of any strides, scalars, indices)
/// and returns its outputs as contiguous tensors, scalar outputs as rank-0
/// tensors (an index as i64). Bad inputs, run-time size mismatches,
/// out-of-range indices and unsupported ops are errors naming the op at
/// fault; nothing aborts.
llvm::Expected<std::vector<HostTensor>>
interpret(FusionOp fusion, llvm::ArrayRef<HostValue> inputs);

} // namespace mlir::fusion::interp

#endif // FUSION_INTERPRETER_INTERPRETER_H
