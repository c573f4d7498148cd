// Loading of the CUDA driver library and the driver helpers of the public API.
#include "CudaDriver.h"

#include "Format.h"

#include "fusion/Runtime/Executable.h"

#include <dlfcn.h>
#include <mutex>

namespace fusion::runtime {

namespace {

Status driverUnavailable(const std::string &why) {
  return Status(ErrorCode::DriverUnavailable,
                "CUDA driver not available: " + why);
}

struct LoadedDriver {
  CudaDriver driver;
  Status status;
};

LoadedDriver loadDriver() {
  LoadedDriver loaded;
  // RTLD_LOCAL: the driver's symbols must not satisfy anyone else's lookups.
  void *library = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!library) {
    const char *why = dlerror();
    loaded.status = driverUnavailable(
        concat("dlopen(\"libcuda.so.1\") failed: ", why ? why : "unknown"));
    return loaded;
  }
  CudaDriver &driver = loaded.driver;
  // The symbol of an entry point is its name after cuda.h's macros
  // (cuGraphAddKernelNode -> cuGraphAddKernelNode_v2): the version whose
  // signature decltype(&::name) has.
#define FUSION_CUDA_SYMBOL_2(name) #name
#define FUSION_CUDA_SYMBOL(name) FUSION_CUDA_SYMBOL_2(name)
#define FUSION_CUDA_LOAD_REQUIRED(name)                                        \
  driver.name = reinterpret_cast<decltype(driver.name)>(                       \
      dlsym(library, FUSION_CUDA_SYMBOL(name)));                               \
  if (!driver.name) {                                                          \
    loaded.status = driverUnavailable(                                         \
        "libcuda.so.1 has no " FUSION_CUDA_SYMBOL(name) " (driver too old?)"); \
    return loaded;                                                             \
  }
  FUSION_CUDA_REQUIRED_ENTRY_POINTS(FUSION_CUDA_LOAD_REQUIRED)
#undef FUSION_CUDA_LOAD_REQUIRED
#define FUSION_CUDA_LOAD_OPTIONAL(name)                                        \
  driver.name = reinterpret_cast<decltype(driver.name)>(                       \
      dlsym(library, FUSION_CUDA_SYMBOL(name)));
  FUSION_CUDA_OPTIONAL_ENTRY_POINTS(FUSION_CUDA_LOAD_OPTIONAL)
#undef FUSION_CUDA_LOAD_OPTIONAL
#undef FUSION_CUDA_SYMBOL
#undef FUSION_CUDA_SYMBOL_2
  CUresult result = driver.cuInit(0);
  if (result != CUDA_SUCCESS) {
    loaded.status =
        driverUnavailable("cuInit failed: " + driver.describe(result));
    return loaded;
  }
  // The library stays loaded for the life of the process: contexts and
  // modules created through it outlive any one Executable.
  return loaded;
}

} // namespace

Expected<const CudaDriver *> CudaDriver::get() {
  // A function-local static: initialized once, thread-safe, and never torn
  // down before the executables that use it.
  static const LoadedDriver *loaded = new LoadedDriver(loadDriver());
  if (!loaded->status.ok())
    return loaded->status;
  return &loaded->driver;
}

std::string CudaDriver::describe(CUresult result) const {
  const char *name = nullptr;
  const char *text = nullptr;
  if (cuGetErrorName)
    cuGetErrorName(result, &name);
  if (cuGetErrorString)
    cuGetErrorString(result, &text);
  std::string out = name ? name : concat("CUresult ", static_cast<int>(result));
  if (text)
    out += concat(" (", text, ")");
  return out;
}

Status CudaDriver::check(CUresult result, const char *what) const {
  if (result == CUDA_SUCCESS)
    return Status::success();
  return Status(ErrorCode::CudaError,
                concat(what, " failed: ", describe(result)));
}

Expected<CUcontext> CudaDriver::currentContext() const {
  CUcontext context = nullptr;
  Status status = check(cuCtxGetCurrent(&context), "cuCtxGetCurrent");
  if (!status.ok())
    return status;
  if (context)
    return context;
  // Retain device 0's primary context once and keep it for the process, as
  // the CUDA runtime does; guarded because several threads may get here.
  static std::mutex mutex;
  std::lock_guard<std::mutex> lock(mutex);
  if (!primaryContext_) {
    CUdevice device = 0;
    status = check(cuDeviceGet(&device, 0), "cuDeviceGet(0)");
    if (!status.ok())
      return status;
    CUcontext primary = nullptr;
    status = check(cuDevicePrimaryCtxRetain(&primary, device),
                   "cuDevicePrimaryCtxRetain");
    if (!status.ok())
      return status;
    primaryContext_ = primary;
  }
  status = check(cuCtxSetCurrent(primaryContext_), "cuCtxSetCurrent");
  if (!status.ok())
    return status;
  return primaryContext_;
}

Status cudaDriverStatus() {
  Expected<const CudaDriver *> driver = CudaDriver::get();
  return driver ? Status::success() : driver.status();
}

Status freeDeviceMemory(void *data, void *stream) {
  if (!data)
    return Status::success();
  Expected<const CudaDriver *> driver = CudaDriver::get();
  if (!driver)
    return driver.status();
  return (*driver)->check(
      (*driver)->cuMemFreeAsync(reinterpret_cast<CUdeviceptr>(data),
                                static_cast<CUstream>(stream)),
      "cuMemFreeAsync");
}

Status synchronizeStream(void *stream) {
  Expected<const CudaDriver *> driver = CudaDriver::get();
  if (!driver)
    return driver.status();
  return (*driver)->check(
      (*driver)->cuStreamSynchronize(static_cast<CUstream>(stream)),
      "cuStreamSynchronize");
}

} // namespace fusion::runtime
