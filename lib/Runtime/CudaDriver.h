// The CUDA driver API, loaded with dlopen("libcuda.so.1") on first use, so the
// runtime builds, links and runs its tests on machines without a GPU.
#ifndef FUSION_LIB_RUNTIME_CUDADRIVER_H
#define FUSION_LIB_RUNTIME_CUDADRIVER_H

#include "fusion/Runtime/Status.h"

// Types and constants only: no symbol of libcuda is linked.
#include <cuda.h>

#include <string>

namespace fusion::runtime {

// Entry points the runtime cannot work without.
#define FUSION_CUDA_REQUIRED_ENTRY_POINTS(X)                                   \
  X(cuInit)                                                                    \
  X(cuDeviceGet)                                                               \
  X(cuDeviceGetAttribute)                                                      \
  X(cuCtxGetCurrent)                                                           \
  X(cuCtxSetCurrent)                                                           \
  X(cuCtxGetDevice)                                                            \
  X(cuDevicePrimaryCtxRetain)                                                  \
  X(cuModuleLoadData)                                                          \
  X(cuModuleGetFunction)                                                       \
  X(cuFuncSetAttribute)                                                        \
  X(cuLaunchKernelEx)                                                          \
  X(cuMemAllocAsync)                                                           \
  X(cuMemFreeAsync)                                                            \
  X(cuMemsetD8Async)                                                           \
  X(cuStreamSynchronize)                                                       \
  X(cuGetErrorString)

// Entry points used when present (messages, cleanup, a function's shared
// memory, the cluster occupancy check, tensor maps, launch graphs). The
// symbol looked up is the name cuda.h maps each to (cuGraphAddKernelNode is
// cuGraphAddKernelNode_v2, whose parameter struct is the one declared here).
#define FUSION_CUDA_OPTIONAL_ENTRY_POINTS(X)                                   \
  X(cuGetErrorName)                                                            \
  X(cuModuleUnload)                                                            \
  X(cuFuncGetAttribute)                                                        \
  X(cuCtxSynchronize)                                                          \
  X(cuOccupancyMaxActiveClusters)                                              \
  X(cuTensorMapEncodeTiled)                                                    \
  FUSION_CUDA_GRAPH_ENTRY_POINTS(X)

// Note [Launch graphs] (Executable.cpp): used only when all are present.
#define FUSION_CUDA_GRAPH_ENTRY_POINTS(X)                                      \
  X(cuGraphCreate)                                                             \
  X(cuGraphAddKernelNode)                                                      \
  X(cuGraphInstantiateWithFlags)                                               \
  X(cuGraphExecKernelNodeSetParams)                                            \
  X(cuGraphLaunch)                                                             \
  X(cuGraphExecDestroy)                                                        \
  X(cuGraphDestroy)                                                            \
  X(cuStreamIsCapturing)

/// The loaded driver: one function pointer per entry point, named as in
/// cuda.h. Obtained with CudaDriver::get(); lives until process exit.
struct CudaDriver {
#define FUSION_CUDA_DECLARE(name) decltype(&::name) name = nullptr;
  FUSION_CUDA_REQUIRED_ENTRY_POINTS(FUSION_CUDA_DECLARE)
  FUSION_CUDA_OPTIONAL_ENTRY_POINTS(FUSION_CUDA_DECLARE)
#undef FUSION_CUDA_DECLARE

  /// Loads libcuda.so.1 and calls cuInit once per process. A missing library,
  /// entry point or device gives DriverUnavailable ("CUDA driver not
  /// available: ..."), every later call the same answer.
  static Expected<const CudaDriver *> get();

  /// "CUDA_ERROR_OUT_OF_MEMORY (out of memory)".
  std::string describe(CUresult result) const;

  /// Ok for CUDA_SUCCESS, else CudaError "<what> failed: <describe>".
  Status check(CUresult result, const char *what) const;

  /// Every entry point of launch graphs was found.
  bool hasGraphs() const {
    return cuGraphCreate && cuGraphAddKernelNode &&
           cuGraphInstantiateWithFlags && cuGraphExecKernelNodeSetParams &&
           cuGraphLaunch && cuGraphExecDestroy && cuGraphDestroy &&
           cuStreamIsCapturing;
  }

  /// The context current on this thread; when there is none, device 0's
  /// primary context, made current (what the CUDA runtime and PyTorch do).
  Expected<CUcontext> currentContext() const;

private:
  mutable CUcontext primaryContext_ = nullptr;
};

} // namespace fusion::runtime

#endif // FUSION_LIB_RUNTIME_CUDADRIVER_H
