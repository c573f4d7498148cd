// measureRawLaunchMicros: the host time of a bare cuLaunchKernelEx of an
// empty kernel, the floor that the runtime's own overhead is measured
// against (BENCHMARKS.md, "Host overhead").
#include "fusion/Runtime/Executable.h"

#include "CudaDriver.h"
#include "Format.h"

#include <chrono>

namespace fusion::runtime {

namespace {

// sm_75 PTX: the driver JIT-compiles it for any newer GPU.
const char kEmptyKernelPtx[] = ".version 7.0\n"
                               ".target sm_75\n"
                               ".address_size 64\n"
                               "\n"
                               ".visible .entry fusion_raw_launch_empty()\n"
                               "{\n"
                               "\tret;\n"
                               "}\n";

constexpr int kWarmupLaunches = 100;

} // namespace

Expected<double> measureRawLaunchMicros(int launches, void *stream) {
  if (launches <= 0)
    return Status(ErrorCode::InvalidArgument,
                  concat("launches must be positive, got ", launches));
  Expected<const CudaDriver *> driver = CudaDriver::get();
  if (!driver)
    return driver.status();
  const CudaDriver &cu = **driver;
  Expected<CUcontext> context = cu.currentContext();
  if (!context)
    return context.status();
  CUmodule module = nullptr;
  Status status = cu.check(cu.cuModuleLoadData(&module, kEmptyKernelPtx),
                           "cuModuleLoadData(empty kernel PTX)");
  if (!status.ok())
    return status;
  CUfunction function = nullptr;
  status = cu.check(
      cu.cuModuleGetFunction(&function, module, "fusion_raw_launch_empty"),
      "cuModuleGetFunction(fusion_raw_launch_empty)");

  CUlaunchConfig config = {};
  config.gridDimX = config.gridDimY = config.gridDimZ = 1;
  config.blockDimX = 32;
  config.blockDimY = config.blockDimZ = 1;
  config.hStream = static_cast<CUstream>(stream);
  for (int i = 0; i < kWarmupLaunches && status.ok(); ++i)
    status = cu.check(cu.cuLaunchKernelEx(&config, function, nullptr, nullptr),
                      "cuLaunchKernelEx(empty kernel, warm-up)");
  if (status.ok())
    status = cu.check(cu.cuStreamSynchronize(config.hStream),
                      "cuStreamSynchronize(after the warm-up launches)");
  double micros = 0;
  if (status.ok()) {
    auto start = std::chrono::steady_clock::now();
    CUresult result = CUDA_SUCCESS;
    for (int i = 0; i < launches && result == CUDA_SUCCESS; ++i)
      result = cu.cuLaunchKernelEx(&config, function, nullptr, nullptr);
    auto stop = std::chrono::steady_clock::now();
    status = cu.check(result, "cuLaunchKernelEx(empty kernel)");
    micros = std::chrono::duration<double, std::micro>(stop - start).count() /
             launches;
    Status synced = cu.check(cu.cuStreamSynchronize(config.hStream),
                             "cuStreamSynchronize(after the timed launches)");
    if (status.ok())
      status = synced;
  }
  if (cu.cuModuleUnload)
    cu.cuModuleUnload(module);
  if (!status.ok())
    return status;
  return micros;
}

} // namespace fusion::runtime
