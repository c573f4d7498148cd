/* Compiles fusion_runtime.h as C (not C++), which ctypes and C users need. */
#include "fusion/Runtime/fusion_runtime.h"

int fusionRuntimeHeaderCompilesAsC(void) {
  fusion_arg arg = {FUSION_ARG_TENSOR, FUSION_DTYPE_F32, 0, 0, 0, 0, 0, 0.0};
  fusion_tensor tensor;
  tensor.rank = FUSION_MAX_RANK;
  (void)tensor;
  return arg.dtype == FUSION_DTYPE_F32 ? FUSION_OK : FUSION_ERROR_WRONG_DTYPE;
}
