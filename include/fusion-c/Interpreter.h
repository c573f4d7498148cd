/*===- fusion-c/Interpreter.h - the reference interpreter's C API -*- C -*-===*\
|* Runs a fusion on the CPU with the reference interpreter                  *|
|* (docs/interpreter.md) on tensors in host memory: what fusion-interpret   *|
|* does, without files. Its results are the ground truth kernels are       *|
|* compared against. Errors (bad inputs, out-of-range indices, ops the      *|
|* interpreter does not know) come back as diagnostics, never as a crash.  *|
\*===----------------------------------------------------------------------===*/
#ifndef FUSION_C_INTERPRETER_H
#define FUSION_C_INTERPRETER_H

#include "fusion-c/Fusion.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
  FusionHostTensor = 0,
  /* A float or integer scalar input (`floatValue` or `intValue` by its
   * dtype). */
  FusionHostScalar = 1,
  /* An index input (`intValue`). */
  FusionHostIndex = 2
} FusionHostValueKind;

/* One input. A tensor's elements are `data`, row-major and contiguous, in
 * the dtype's storage (bf16 and f16 as 16-bit patterns, fp8 as bytes, i1 as
 * one byte 0 or 1); they are copied. `dtype` is the dialect's name of the
 * element type ("f32", "bf16", "i64", ...); an index ignores it. */
typedef struct {
  FusionHostValueKind kind;
  MlirStringRef dtype;
  intptr_t rank;
  const int64_t *sizes;
  const void *data;
  double floatValue;
  int64_t intValue;
} FusionHostValue;

/* A run's outcome: the outputs and the diagnostics. Owned by the caller:
 * fusionInterpretationDestroy. */
typedef struct {
  void *ptr;
} FusionInterpretation;

/* One output: a contiguous row-major tensor (a scalar output has rank 0;
 * an index output is an i64). Owned by the interpretation. */
typedef struct {
  MlirStringRef dtype;
  intptr_t rank;
  const int64_t *sizes;
  const void *data;
  intptr_t sizeInBytes;
} FusionHostTensorView;

/* Runs fusion `fusionName` (empty: the only one) of `source` (textual IR;
 * `sourceName` names it in diagnostics) on `inputs`. With `decompose`,
 * composite ops are decomposed first (the GPU path's numerics). */
MLIR_CAPI_EXPORTED FusionInterpretation fusionInterpretSource(
    MlirContext context, MlirStringRef source, MlirStringRef sourceName,
    MlirStringRef fusionName, const FusionHostValue *inputs, intptr_t numInputs,
    bool decompose);

MLIR_CAPI_EXPORTED bool
fusionInterpretationSucceeded(FusionInterpretation result);
MLIR_CAPI_EXPORTED intptr_t
fusionInterpretationGetNumOutputs(FusionInterpretation result);
/* Output `index`; rank -1 and no data when out of range. */
MLIR_CAPI_EXPORTED FusionHostTensorView
fusionInterpretationGetOutput(FusionInterpretation result, intptr_t index);
MLIR_CAPI_EXPORTED intptr_t
fusionInterpretationGetNumDiagnostics(FusionInterpretation result);
MLIR_CAPI_EXPORTED FusionDiagnostic
fusionInterpretationGetDiagnostic(FusionInterpretation result, intptr_t index);
MLIR_CAPI_EXPORTED void
fusionInterpretationDestroy(FusionInterpretation result);

#ifdef __cplusplus
}
#endif

#endif /* FUSION_C_INTERPRETER_H */
