//===- CudaHarness.cpp - the CUDA driver as fusion-run uses it ------------===//

#include "CudaHarness.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <dlfcn.h>
#include <vector>

namespace fusion_run {

namespace {

/// An empty kernel for the raw launch floor. PTX ISA 7.0 for sm_75 is JIT
/// compiled by any driver recent enough for cuLaunchKernelEx.
const char kEmptyKernelPTX[] = ".version 7.0\n"
                               ".target sm_75\n"
                               ".address_size 64\n"
                               "\n"
                               ".visible .entry fusion_run_empty()\n"
                               "{\n"
                               "\tret;\n"
                               "}\n";

template <typename T>
bool resolve(void *library, T &slot, const char *name,
             const char *fallback = nullptr) {
  void *symbol = dlsym(library, name);
  if (!symbol && fallback)
    symbol = dlsym(library, fallback);
  slot = reinterpret_cast<T>(symbol);
  return symbol != nullptr;
}

double median(std::vector<double> values) {
  if (values.empty())
    return 0;
  std::sort(values.begin(), values.end());
  size_t n = values.size();
  return n % 2 ? values[n / 2] : 0.5 * (values[n / 2 - 1] + values[n / 2]);
}

} // namespace

std::unique_ptr<Gpu> Gpu::open(int ordinal, std::string &reason) {
  const char *path = std::getenv("FUSION_RUN_LIBCUDA");
  if (!path || !*path)
    path = "libcuda.so.1";
  void *library = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!library) {
    const char *why = dlerror();
    reason = std::string("cannot load the CUDA driver (") + path +
             "): " + (why ? why : "unknown error");
    return nullptr;
  }
  std::unique_ptr<Gpu> gpu(new Gpu());
  CudaApi &a = gpu->api_;
  struct Entry {
    bool ok;
    const char *name;
  };
  const Entry entries[] = {
      {resolve(library, a.init, "cuInit"), "cuInit"},
      {resolve(library, a.deviceGetCount, "cuDeviceGetCount"),
       "cuDeviceGetCount"},
      {resolve(library, a.deviceGet, "cuDeviceGet"), "cuDeviceGet"},
      {resolve(library, a.deviceGetName, "cuDeviceGetName"), "cuDeviceGetName"},
      {resolve(library, a.deviceGetAttribute, "cuDeviceGetAttribute"),
       "cuDeviceGetAttribute"},
      {resolve(library, a.devicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain"),
       "cuDevicePrimaryCtxRetain"},
      {resolve(library, a.ctxSetCurrent, "cuCtxSetCurrent"), "cuCtxSetCurrent"},
      {resolve(library, a.ctxSynchronize, "cuCtxSynchronize"),
       "cuCtxSynchronize"},
      {resolve(library, a.memGetInfo, "cuMemGetInfo_v2"), "cuMemGetInfo_v2"},
      {resolve(library, a.memAlloc, "cuMemAlloc_v2"), "cuMemAlloc_v2"},
      {resolve(library, a.memFree, "cuMemFree_v2"), "cuMemFree_v2"},
      {resolve(library, a.memcpyHtoD, "cuMemcpyHtoD_v2"), "cuMemcpyHtoD_v2"},
      {resolve(library, a.memcpyDtoH, "cuMemcpyDtoH_v2"), "cuMemcpyDtoH_v2"},
      {resolve(library, a.memcpyDtoDAsync, "cuMemcpyDtoDAsync_v2"),
       "cuMemcpyDtoDAsync_v2"},
      {resolve(library, a.memsetD8, "cuMemsetD8_v2"), "cuMemsetD8_v2"},
      {resolve(library, a.eventCreate, "cuEventCreate"), "cuEventCreate"},
      {resolve(library, a.eventRecord, "cuEventRecord"), "cuEventRecord"},
      {resolve(library, a.eventSynchronize, "cuEventSynchronize"),
       "cuEventSynchronize"},
      {resolve(library, a.eventElapsedTime, "cuEventElapsedTime_v2",
               "cuEventElapsedTime"),
       "cuEventElapsedTime"},
      {resolve(library, a.eventDestroy, "cuEventDestroy_v2"),
       "cuEventDestroy_v2"},
      {resolve(library, a.moduleLoadData, "cuModuleLoadData"),
       "cuModuleLoadData"},
      {resolve(library, a.moduleGetFunction, "cuModuleGetFunction"),
       "cuModuleGetFunction"},
      {resolve(library, a.launchKernelEx, "cuLaunchKernelEx"),
       "cuLaunchKernelEx"},
      {resolve(library, a.getErrorString, "cuGetErrorString"),
       "cuGetErrorString"},
      {resolve(library, a.getErrorName, "cuGetErrorName"), "cuGetErrorName"},
  };
  for (const Entry &entry : entries) {
    if (!entry.ok) {
      reason = std::string("the CUDA driver (") + path + ") has no " +
               entry.name + " (driver too old?)";
      return nullptr;
    }
  }
  // The library stays loaded until exit: the runtime's kernels live in it.
  CUresult result = a.init(0);
  if (result != CUDA_SUCCESS) {
    reason = "cuInit failed: " + gpu->describe(result);
    return nullptr;
  }
  int count = 0;
  result = a.deviceGetCount(&count);
  if (result != CUDA_SUCCESS) {
    reason = "cuDeviceGetCount failed: " + gpu->describe(result);
    return nullptr;
  }
  if (ordinal < 0 || ordinal >= count) {
    reason = "device " + std::to_string(ordinal) + " requested, " +
             std::to_string(count) + " present";
    return nullptr;
  }
  result = a.deviceGet(&gpu->device_, ordinal);
  if (result != CUDA_SUCCESS) {
    reason = "cuDeviceGet failed: " + gpu->describe(result);
    return nullptr;
  }
  result = a.devicePrimaryCtxRetain(&gpu->context_, gpu->device_);
  if (result != CUDA_SUCCESS) {
    reason = "cuDevicePrimaryCtxRetain failed: " + gpu->describe(result);
    return nullptr;
  }
  result = a.ctxSetCurrent(gpu->context_);
  if (result != CUDA_SUCCESS) {
    reason = "cuCtxSetCurrent failed: " + gpu->describe(result);
    return nullptr;
  }
  char name[256] = {};
  gpu->check(a.deviceGetName(name, sizeof(name) - 1, gpu->device_),
             "cuDeviceGetName");
  gpu->name_ = name;
  gpu->check(a.deviceGetAttribute(&gpu->smCount_,
                                  CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT,
                                  gpu->device_),
             "cuDeviceGetAttribute(multiprocessor count)");
  int major = 0, minor = 0;
  gpu->check(a.deviceGetAttribute(&major,
                                  CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR,
                                  gpu->device_),
             "cuDeviceGetAttribute(compute capability major)");
  gpu->check(a.deviceGetAttribute(&minor,
                                  CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR,
                                  gpu->device_),
             "cuDeviceGetAttribute(compute capability minor)");
  gpu->computeCapability_ = major * 10 + minor;
  return gpu;
}

std::string Gpu::describe(CUresult result) const {
  const char *name = nullptr;
  const char *text = nullptr;
  if (api_.getErrorName && api_.getErrorName(result, &name) != CUDA_SUCCESS)
    name = nullptr;
  if (api_.getErrorString && api_.getErrorString(result, &text) != CUDA_SUCCESS)
    text = nullptr;
  std::string out =
      name ? name : "CUresult " + std::to_string(static_cast<int>(result));
  if (text)
    out += std::string(" (") + text + ")";
  return out;
}

void Gpu::check(CUresult result, const std::string &what) const {
  if (result == CUDA_SUCCESS)
    return;
  std::fflush(stdout);
  std::fprintf(stderr, "fusion-run: CUDA error: %s failed: %s\n", what.c_str(),
               describe(result).c_str());
  std::exit(1);
}

CUdeviceptr Gpu::alloc(size_t bytes, const std::string &what) {
  CUdeviceptr pointer = 0;
  size_t size = std::max<size_t>(bytes, 1);
  CUresult result = api_.memAlloc(&pointer, size);
  if (result != CUDA_SUCCESS)
    check(result, "cuMemAlloc of " + std::to_string(size) + " bytes for " +
                      what + " (" + std::to_string(freeMemory() >> 20) +
                      " MiB free)");
  return pointer;
}

void Gpu::free(CUdeviceptr pointer) {
  if (pointer)
    check(api_.memFree(pointer), "cuMemFree");
}

void Gpu::upload(CUdeviceptr dst, const void *src, size_t bytes,
                 const std::string &what) {
  if (bytes)
    check(api_.memcpyHtoD(dst, src, bytes),
          "cuMemcpyHtoD of " + std::to_string(bytes) + " bytes to " + what);
}

void Gpu::download(void *dst, CUdeviceptr src, size_t bytes,
                   const std::string &what) {
  if (bytes)
    check(api_.memcpyDtoH(dst, src, bytes),
          "cuMemcpyDtoH of " + std::to_string(bytes) + " bytes from " + what);
}

void Gpu::fill(CUdeviceptr dst, uint8_t byte, size_t bytes,
               const std::string &what) {
  if (bytes)
    check(api_.memsetD8(dst, byte, bytes),
          "cuMemsetD8 of " + std::to_string(bytes) + " bytes of " + what);
}

void Gpu::synchronize(const std::string &what) {
  check(api_.ctxSynchronize(), "cuCtxSynchronize after " + what);
}

size_t Gpu::freeMemory() {
  size_t free = 0, total = 0;
  if (api_.memGetInfo(&free, &total) != CUDA_SUCCESS)
    return 0;
  return free;
}

CUevent Gpu::createEvent() {
  CUevent event = nullptr;
  check(api_.eventCreate(&event, CU_EVENT_DEFAULT), "cuEventCreate");
  return event;
}

void Gpu::record(CUevent event) {
  check(api_.eventRecord(event, nullptr), "cuEventRecord");
}

float Gpu::elapsedMs(CUevent start, CUevent end) {
  check(api_.eventSynchronize(end), "cuEventSynchronize");
  float ms = 0;
  check(api_.eventElapsedTime(&ms, start, end), "cuEventElapsedTime");
  return ms;
}

void Gpu::destroyEvent(CUevent event) {
  check(api_.eventDestroy(event), "cuEventDestroy");
}

double Gpu::copyBandwidthGBps(size_t bytes, int reps) {
  CUdeviceptr src = alloc(bytes, "the copy-bandwidth source");
  CUdeviceptr dst = alloc(bytes, "the copy-bandwidth destination");
  // Never time on zeros: fill the source with a pattern.
  fill(src, 0x3c, bytes, "the copy-bandwidth source");
  for (int i = 0; i < 2; ++i)
    check(api_.memcpyDtoDAsync(dst, src, bytes, nullptr),
          "cuMemcpyDtoDAsync (warm-up)");
  synchronize("the warm-up copies");
  std::vector<CUevent> events;
  for (int i = 0; i < 2 * reps; ++i)
    events.push_back(createEvent());
  for (int i = 0; i < reps; ++i) {
    record(events[2 * i]);
    check(api_.memcpyDtoDAsync(dst, src, bytes, nullptr), "cuMemcpyDtoDAsync");
    record(events[2 * i + 1]);
  }
  synchronize("the timed copies");
  std::vector<double> seconds;
  for (int i = 0; i < reps; ++i)
    seconds.push_back(elapsedMs(events[2 * i], events[2 * i + 1]) * 1e-3);
  for (CUevent event : events)
    destroyEvent(event);
  free(src);
  free(dst);
  double t = median(seconds);
  return t > 0 ? 2.0 * static_cast<double>(bytes) / t / 1e9 : 0;
}

double Gpu::rawLaunchMicros(int n) {
  CUmodule module = nullptr;
  check(api_.moduleLoadData(&module, kEmptyKernelPTX),
        "cuModuleLoadData(empty kernel PTX)");
  CUfunction function = nullptr;
  check(api_.moduleGetFunction(&function, module, "fusion_run_empty"),
        "cuModuleGetFunction(fusion_run_empty)");
  CUlaunchConfig config = {};
  config.gridDimX = config.gridDimY = config.gridDimZ = 1;
  config.blockDimX = 32;
  config.blockDimY = config.blockDimZ = 1;
  config.hStream = nullptr;
  for (int i = 0; i < 100; ++i)
    check(api_.launchKernelEx(&config, function, nullptr, nullptr),
          "cuLaunchKernelEx(empty kernel, warm-up)");
  synchronize("the warm-up launches of the empty kernel");
  auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < n; ++i) {
    CUresult result = api_.launchKernelEx(&config, function, nullptr, nullptr);
    if (result != CUDA_SUCCESS)
      check(result, "cuLaunchKernelEx(empty kernel)");
  }
  auto stop = std::chrono::steady_clock::now();
  synchronize("the timed launches of the empty kernel");
  return std::chrono::duration<double, std::micro>(stop - start).count() / n;
}

} // namespace fusion_run
