//===- CudaHarness.h - the CUDA driver as fusion-run uses it ----*- C++ -*-===//
// fusion-run's own access to the CUDA driver: allocation, copies, memset,
// events and a raw launch of an empty kernel. The driver is loaded with
// dlopen, so the tool starts on machines without one and says "no CUDA
// device". Every call's result is checked; a failure prints what was being
// done and the driver's message, and exits with status 1.
//===----------------------------------------------------------------------===//
#ifndef FUSION_TOOLS_FUSIONRUN_CUDAHARNESS_H
#define FUSION_TOOLS_FUSIONRUN_CUDAHARNESS_H

// Types and constants only: no libcuda symbol is linked.
#include <cuda.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

namespace fusion_run {

/// The driver entry points fusion-run calls, resolved with dlsym by their
/// versioned names (cuMemAlloc_v2, ...).
struct CudaApi {
  CUresult (*init)(unsigned) = nullptr;
  CUresult (*deviceGetCount)(int *) = nullptr;
  CUresult (*deviceGet)(CUdevice *, int) = nullptr;
  CUresult (*deviceGetName)(char *, int, CUdevice) = nullptr;
  CUresult (*deviceGetAttribute)(int *, CUdevice_attribute, CUdevice) = nullptr;
  CUresult (*devicePrimaryCtxRetain)(CUcontext *, CUdevice) = nullptr;
  CUresult (*ctxSetCurrent)(CUcontext) = nullptr;
  CUresult (*ctxSynchronize)() = nullptr;
  CUresult (*memGetInfo)(size_t *, size_t *) = nullptr;
  CUresult (*memAlloc)(CUdeviceptr *, size_t) = nullptr;
  CUresult (*memFree)(CUdeviceptr) = nullptr;
  CUresult (*memcpyHtoD)(CUdeviceptr, const void *, size_t) = nullptr;
  CUresult (*memcpyDtoH)(void *, CUdeviceptr, size_t) = nullptr;
  CUresult (*memcpyDtoDAsync)(CUdeviceptr, CUdeviceptr, size_t,
                              CUstream) = nullptr;
  CUresult (*memsetD8)(CUdeviceptr, unsigned char, size_t) = nullptr;
  CUresult (*eventCreate)(CUevent *, unsigned) = nullptr;
  CUresult (*eventRecord)(CUevent, CUstream) = nullptr;
  CUresult (*eventSynchronize)(CUevent) = nullptr;
  CUresult (*eventElapsedTime)(float *, CUevent, CUevent) = nullptr;
  CUresult (*eventDestroy)(CUevent) = nullptr;
  CUresult (*moduleLoadData)(CUmodule *, const void *) = nullptr;
  CUresult (*moduleGetFunction)(CUfunction *, CUmodule, const char *) = nullptr;
  CUresult (*launchKernelEx)(const CUlaunchConfig *, CUfunction, void **,
                             void **) = nullptr;
  CUresult (*getErrorString)(CUresult, const char **) = nullptr;
  CUresult (*getErrorName)(CUresult, const char **) = nullptr;
};

/// One device with its primary context current on the calling thread (the
/// context the Fusion runtime then uses too). Work goes to the legacy default
/// stream, as the runtime's launches in fusion-run do.
class Gpu {
public:
  /// Loads the driver ($FUSION_RUN_LIBCUDA, else libcuda.so.1), initializes
  /// it and makes device `ordinal`'s primary context current. Returns null
  /// and sets `reason` if any of that fails.
  static std::unique_ptr<Gpu> open(int ordinal, std::string &reason);

  const CudaApi &api() const { return api_; }
  const std::string &name() const { return name_; }
  int smCount() const { return smCount_; }
  int computeCapability() const { return computeCapability_; }

  /// "CUDA_ERROR_OUT_OF_MEMORY (out of memory)".
  std::string describe(CUresult result) const;
  /// Returns if `result` is CUDA_SUCCESS; else prints
  /// "fusion-run: CUDA error: <what> failed: <describe>" and exits with 1.
  void check(CUresult result, const std::string &what) const;

  /// cuMemAlloc of at least one byte; `what` names the buffer in errors.
  CUdeviceptr alloc(size_t bytes, const std::string &what);
  void free(CUdeviceptr pointer);
  void upload(CUdeviceptr dst, const void *src, size_t bytes,
              const std::string &what);
  void download(void *dst, CUdeviceptr src, size_t bytes,
                const std::string &what);
  void fill(CUdeviceptr dst, uint8_t byte, size_t bytes,
            const std::string &what);
  /// cuCtxSynchronize: the place where a kernel's fault shows.
  void synchronize(const std::string &what);
  size_t freeMemory();

  CUevent createEvent();
  void record(CUevent event);
  /// Milliseconds between two recorded events (waits for `end`).
  float elapsedMs(CUevent start, CUevent end);
  void destroyEvent(CUevent event);

  /// Median device-to-device copy bandwidth of a `bytes` buffer over `reps`
  /// timed copies after 2 warm-up copies, counting read + write bytes, in
  /// GB/s (1e9 bytes per second).
  double copyBandwidthGBps(size_t bytes, int reps);
  /// Host microseconds per cuLaunchKernelEx of an empty kernel (loaded from
  /// embedded PTX): `n` back-to-back launches with no sync between them,
  /// wall clock / n, after 100 warm-up launches.
  double rawLaunchMicros(int n);

private:
  Gpu() = default;
  CudaApi api_;
  CUdevice device_ = 0;
  CUcontext context_ = nullptr;
  std::string name_;
  int smCount_ = 0;
  int computeCapability_ = 0;
};

} // namespace fusion_run

#endif // FUSION_TOOLS_FUSIONRUN_CUDAHARNESS_H
