// A fake CUDA driver, built as libcuda.so.1 so that the runtime's
// dlopen("libcuda.so.1") loads it on machines without a GPU (see
// FakeDriverTest.cpp). It implements every entry point the runtime resolves
// (lib/Runtime/CudaDriver.h) and checks its arguments the way the real
// driver would: one device (an H100-like sm_90 with 132 SMs and 227 KB of
// opt-in shared memory) with one context, current on every thread until
// changed; modules loaded from PTX text, whose .entry parameter lists give
// the parameter buffer size each launch must pass; device memory from
// malloc, so memsets really write and are bounds-checked; launches, and the
// kernel nodes of launched graphs, are recorded, never run. Every call is
// counted per entry point; the test interface is in FakeCuda.h.
#include "FakeCuda.h"

#include <cuda.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

// Opaque in cuda.h; the fake's handles point to these.
struct CUctx_st {
  CUdevice device = 0;
};
struct CUfunc_st {
  std::string name;
  CUmodule module = nullptr;
  // The driver's rule: 48 KB of static and dynamic shared memory together
  // unless cuFuncSetAttribute raises the dynamic part.
  int staticSmem = 0; // the PTX entry's .shared buffers
  int maxDynamicSmem = 48 * 1024;
  bool nonPortableClusters = false;
  int64_t ptxParamSize = -1;
  std::vector<std::pair<int64_t, int64_t>> ptxParams; // offset, bytes
  int64_t ptxMaxAlign = 0;
};
// The parameters of a PTX .entry, as its .param list lays them out.
struct PtxEntry {
  int64_t size = 0; // -1: a type the fake does not understand
  std::vector<std::pair<int64_t, int64_t>> params; // offset, bytes
  int64_t maxAlign = 0;
  int64_t staticSmem = 0; // bytes of its .shared declarations
};
struct CUmod_st {
  std::map<std::string, PtxEntry> entries;
  bool cubin = false; // entries unknown: any name goes
  std::map<std::string, std::unique_ptr<CUfunc_st>> functions;
};
// A kernel node as the driver keeps it: a copy of its parameters.
struct KernelNode {
  CUfunction function = nullptr;
  uint32_t grid[3] = {};
  uint32_t block[3] = {};
  uint32_t sharedMemBytes = 0;
  std::vector<uint8_t> params;
  bool byPointer = false; // given as kernelParams
};
struct CUgraphNode_st {
  KernelNode kernel;
  std::vector<CUgraphNode> dependencies;
};
struct CUgraph_st {
  // In the order added; a node's dependencies are added before it, so this
  // order runs each after its dependencies.
  std::vector<std::unique_ptr<CUgraphNode_st>> nodes;
};
struct CUgraphExec_st {
  CUgraph source = nullptr; // the nodes' handles stay those of the source
  std::vector<std::pair<CUgraphNode, KernelNode>> nodes;
};

namespace {

#define FAKE_CUDA_ENTRY_POINTS(X)                                              \
  X(cuInit)                                                                    \
  X(cuDriverGetVersion)                                                        \
  X(cuDeviceGet)                                                               \
  X(cuDeviceGetCount)                                                          \
  X(cuDeviceGetAttribute)                                                      \
  X(cuDevicePrimaryCtxRetain)                                                  \
  X(cuCtxGetCurrent)                                                           \
  X(cuCtxSetCurrent)                                                           \
  X(cuCtxGetDevice)                                                            \
  X(cuCtxSynchronize)                                                          \
  X(cuModuleLoadData)                                                          \
  X(cuModuleGetFunction)                                                       \
  X(cuModuleUnload)                                                            \
  X(cuFuncSetAttribute)                                                        \
  X(cuFuncGetAttribute)                                                        \
  X(cuOccupancyMaxActiveClusters)                                              \
  X(cuTensorMapEncodeTiled)                                                    \
  X(cuLaunchKernelEx)                                                          \
  X(cuMemAllocAsync)                                                           \
  X(cuMemFreeAsync)                                                            \
  X(cuMemsetD8Async)                                                           \
  X(cuMemsetD16Async)                                                          \
  X(cuMemsetD32Async)                                                          \
  X(cuStreamSynchronize)                                                       \
  X(cuGetErrorName)                                                            \
  X(cuGetErrorString)                                                          \
  X(cuGraphCreate)                                                             \
  X(cuGraphAddKernelNode)                                                      \
  X(cuGraphInstantiateWithFlags)                                               \
  X(cuGraphExecKernelNodeSetParams)                                            \
  X(cuGraphLaunch)                                                             \
  X(cuGraphExecDestroy)                                                        \
  X(cuGraphDestroy)                                                            \
  X(cuStreamIsCapturing)

constexpr int kSmCount = 132;
constexpr int kSmemOptin = 227 * 1024;
constexpr int kDefaultDynamicSmem = 48 * 1024;
constexpr size_t kAllocationAlignment = 256;

struct LaunchRecord {
  std::string function;
  FakeCudaLaunch launch = {};
  std::vector<uint8_t> params;
};

struct State {
  std::mutex mutex;
  bool initialized = false;
  CUctx_st context; // device 0's (primary) context, the only one
  std::map<std::string, int64_t> counts;
  std::map<std::string, CUresult> failNext;
  std::set<CUmodule> modules;
  std::map<uint64_t, size_t> allocations; // base -> bytes
  std::vector<std::unique_ptr<LaunchRecord>> launches;
  std::vector<FakeCudaMemset> memsets;
  std::vector<FakeCudaAlloc> allocs;
  std::set<CUgraph> graphs;
  std::set<CUgraphExec> execs;
  std::set<CUstream> capturing;
  int maxActiveClusters = -1; // -1: computed (cuOccupancyMaxActiveClusters)

  State() {
    // Counted under the symbol's name, which is the name after cuda.h's
    // macros (cuGraphAddKernelNode_v2), as __func__ in each entry point.
#define FAKE_CUDA_NAME_2(name) #name
#define FAKE_CUDA_NAME(name) FAKE_CUDA_NAME_2(name)
#define FAKE_CUDA_COUNTER(name) counts[FAKE_CUDA_NAME(name)] = 0;
    FAKE_CUDA_ENTRY_POINTS(FAKE_CUDA_COUNTER)
#undef FAKE_CUDA_COUNTER
#undef FAKE_CUDA_NAME
#undef FAKE_CUDA_NAME_2
  }

  /// Counts a call; a pending failure of the entry point is its result.
  CUresult enter(const char *name) {
    ++counts[name];
    auto failure = failNext.find(name);
    if (failure == failNext.end())
      return CUDA_SUCCESS;
    CUresult result = failure->second;
    failNext.erase(failure);
    return result;
  }

  bool liveFunction(CUfunction function) const {
    return function && modules.count(function->module) &&
           function->module->functions.count(function->name) &&
           function->module->functions.at(function->name).get() == function;
  }

  /// The allocation holding [address, address + bytes), or end().
  std::map<uint64_t, size_t>::const_iterator holding(uint64_t address,
                                                     size_t bytes) const {
    auto it = allocations.upper_bound(address);
    if (it == allocations.begin())
      return allocations.end();
    --it;
    if (address + bytes > it->first + it->second)
      return allocations.end();
    return it;
  }
};

// Leaked: the runtime's driver (and executables in static storage) may call
// in during process exit.
State &state() {
  static State *s = new State;
  return *s;
}

// The context current on this thread: the application's, as it were.
thread_local CUcontext currentContext = &state().context;

#define FAKE_CUDA_ENTER()                                                      \
  State &s = state();                                                          \
  std::lock_guard<std::mutex> lock(s.mutex);                                   \
  if (CUresult injected = s.enter(__func__))                                   \
    return injected;                                                           \
  if (!s.initialized)                                                          \
    return CUDA_ERROR_NOT_INITIALIZED;

/// The parameters of each .entry of `ptx`, packed with natural alignment
/// as its .param list declares them.
std::map<std::string, PtxEntry> parsePtxEntries(const std::string &ptx) {
  std::map<std::string, PtxEntry> entries;
  for (size_t at = ptx.find(".entry "); at != std::string::npos;
       at = ptx.find(".entry ", at + 1)) {
    size_t nameBegin = at + 7;
    size_t open = ptx.find('(', nameBegin);
    size_t close = ptx.find(')', nameBegin);
    if (open == std::string::npos || close == std::string::npos ||
        close < open) {
      // An entry without parameters: ".entry name\n{".
      size_t end = ptx.find_first_of(" \t\r\n{", nameBegin);
      entries[ptx.substr(nameBegin, end - nameBegin)] = PtxEntry();
      continue;
    }
    std::string name = ptx.substr(nameBegin, open - nameBegin);
    name.erase(name.find_last_not_of(" \t\r\n") + 1);
    std::string list = ptx.substr(open + 1, close - open - 1);
    int64_t offset = 0;
    bool known = true;
    PtxEntry entry;
    size_t pos = 0;
    while ((pos = list.find(".param", pos)) != std::string::npos) {
      size_t end = list.find(',', pos);
      std::string decl = list.substr(
          pos, end == std::string::npos ? std::string::npos : end - pos);
      pos = end == std::string::npos ? list.size() : end;
      // .param [.align A] .type name[[N]]
      int64_t size = 0, align = 0, explicitAlign = 0, count = 1;
      size_t type = 6;
      if (decl.compare(6, 8, " .align ") == 0) {
        explicitAlign = std::atoll(decl.c_str() + 14);
        type = decl.find(' ', 14);
      }
      static const std::pair<const char *, int64_t> types[] = {
          {".u64", 8}, {".s64", 8}, {".b64", 8}, {".f64", 8}, {".u32", 4},
          {".s32", 4}, {".b32", 4}, {".f32", 4}, {".u16", 2}, {".s16", 2},
          {".b16", 2}, {".f16", 2}, {".u8", 1},  {".s8", 1},  {".b8", 1}};
      for (const auto &t : types)
        if (type != std::string::npos &&
            decl.compare(type, std::strlen(t.first) + 2,
                         std::string(" ") + t.first + " ") == 0)
          size = align = t.second;
      size_t array = decl.find('[');
      if (array != std::string::npos)
        count = std::atoll(decl.c_str() + array + 1);
      size *= count;
      if (explicitAlign)
        align = explicitAlign;
      if (size <= 0 || align <= 0) {
        known = false;
        break;
      }
      offset = (offset + align - 1) / align * align;
      entry.params.push_back({offset, size});
      entry.maxAlign = std::max(entry.maxAlign, align);
      offset += size;
    }
    entry.size = known ? offset : -1;
    // The body's `.shared .align A .b8 name[N];` buffers, up to the next
    // entry (the `.extern .shared` of dynamic shared memory has no size).
    size_t bodyEnd = ptx.find(".entry ", close);
    std::string body =
        ptx.substr(close, bodyEnd == std::string::npos ? std::string::npos
                                                       : bodyEnd - close);
    for (size_t sh = body.find(".shared "); sh != std::string::npos;
         sh = body.find(".shared ", sh + 1)) {
      size_t lineStart = body.rfind('\n', sh);
      size_t lineEnd = body.find('\n', sh);
      std::string line =
          body.substr(lineStart == std::string::npos ? 0 : lineStart + 1,
                      lineEnd == std::string::npos ? std::string::npos
                                                   : lineEnd - lineStart - 1);
      size_t open = line.find('['), b8 = line.find(".b8 ");
      if (line.find(".extern") == std::string::npos &&
          b8 != std::string::npos && open != std::string::npos)
        entry.staticSmem += std::atoll(line.c_str() + open + 1);
    }
    entries[name] = std::move(entry);
  }
  return entries;
}

CUresult fill(uint64_t address, uint32_t elementSize, uint32_t value,
              size_t count, CUstream stream) {
  State &s = state();
  if (!currentContext)
    return CUDA_ERROR_INVALID_CONTEXT;
  if (address % elementSize != 0 ||
      s.holding(address, count * elementSize) == s.allocations.end())
    return CUDA_ERROR_INVALID_VALUE;
  auto *bytes = reinterpret_cast<uint8_t *>(address);
  for (size_t i = 0; i < count; ++i)
    std::memcpy(bytes + i * elementSize, &value, elementSize);
  s.memsets.push_back({address, elementSize, value, count, stream});
  return CUDA_SUCCESS;
}

struct ErrorText {
  CUresult result;
  const char *name;
  const char *text;
};
const ErrorText kErrors[] = {
    {CUDA_SUCCESS, "CUDA_SUCCESS", "no error"},
    {CUDA_ERROR_INVALID_VALUE, "CUDA_ERROR_INVALID_VALUE", "invalid argument"},
    {CUDA_ERROR_OUT_OF_MEMORY, "CUDA_ERROR_OUT_OF_MEMORY", "out of memory"},
    {CUDA_ERROR_NOT_INITIALIZED, "CUDA_ERROR_NOT_INITIALIZED",
     "initialization error"},
    {CUDA_ERROR_NO_DEVICE, "CUDA_ERROR_NO_DEVICE",
     "no CUDA-capable device is detected"},
    {CUDA_ERROR_INVALID_DEVICE, "CUDA_ERROR_INVALID_DEVICE",
     "invalid device ordinal"},
    {CUDA_ERROR_INVALID_IMAGE, "CUDA_ERROR_INVALID_IMAGE",
     "device kernel image is invalid"},
    {CUDA_ERROR_INVALID_CONTEXT, "CUDA_ERROR_INVALID_CONTEXT",
     "invalid device context"},
    {CUDA_ERROR_INVALID_PTX, "CUDA_ERROR_INVALID_PTX",
     "a PTX JIT compilation failed"},
    {CUDA_ERROR_INVALID_HANDLE, "CUDA_ERROR_INVALID_HANDLE",
     "invalid resource handle"},
    {CUDA_ERROR_NOT_FOUND, "CUDA_ERROR_NOT_FOUND", "named symbol not found"},
    {CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES, "CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES",
     "too many resources requested for launch"},
    {CUDA_ERROR_LAUNCH_FAILED, "CUDA_ERROR_LAUNCH_FAILED",
     "unspecified launch failure"},
    {CUDA_ERROR_NOT_SUPPORTED, "CUDA_ERROR_NOT_SUPPORTED",
     "operation not supported"},
};

const ErrorText *findError(CUresult result) {
  for (const ErrorText &error : kErrors)
    if (error.result == result)
      return &error;
  return nullptr;
}

/// Checks a kernel launch (or kernel node) the way the driver does and
/// copies its parameter buffer from `extra` into `kernel.params`.
CUresult takeKernel(State &s, KernelNode &kernel, void **kernelParams,
                    void **extra) {
  CUfunction function = kernel.function;
  if (!s.liveFunction(function))
    return CUDA_ERROR_INVALID_HANDLE;
  if (kernel.grid[0] == 0 || kernel.grid[1] == 0 || kernel.grid[2] == 0 ||
      kernel.grid[1] > 65535 || kernel.grid[2] > 65535 ||
      kernel.grid[0] > 2147483647u)
    return CUDA_ERROR_INVALID_VALUE;
  uint64_t threads =
      uint64_t(kernel.block[0]) * kernel.block[1] * kernel.block[2];
  if (threads == 0 || threads > 1024 || kernel.block[2] > 64)
    return CUDA_ERROR_INVALID_VALUE;
  if (kernel.sharedMemBytes > static_cast<unsigned>(function->maxDynamicSmem))
    return CUDA_ERROR_INVALID_VALUE;
  if (kernelParams && extra)
    return CUDA_ERROR_INVALID_VALUE;
  const uint8_t *buffer = nullptr;
  size_t size = 0;
  bool sized = false;
  for (void **p = extra; p && *p != CU_LAUNCH_PARAM_END; p += 2) {
    if (p[0] == CU_LAUNCH_PARAM_BUFFER_POINTER) {
      buffer = static_cast<const uint8_t *>(p[1]);
    } else if (p[0] == CU_LAUNCH_PARAM_BUFFER_SIZE) {
      size = *static_cast<size_t *>(p[1]);
      sized = true;
    } else {
      return CUDA_ERROR_INVALID_VALUE;
    }
  }
  if (extra && (!buffer || !sized))
    return CUDA_ERROR_INVALID_VALUE;
  if (kernelParams) {
    // One pointer per parameter: the fake lays them out as the PTX's
    // .param list does (the real driver as the compiled kernel reads them).
    // A cubin's list is unknown here.
    if (function->ptxParamSize < 0)
      return CUDA_ERROR_NOT_SUPPORTED;
    kernel.params.assign(function->ptxParamSize, 0);
    for (size_t p = 0; p < function->ptxParams.size(); ++p) {
      if (!kernelParams[p])
        return CUDA_ERROR_INVALID_VALUE;
      std::memcpy(kernel.params.data() + function->ptxParams[p].first,
                  kernelParams[p], function->ptxParams[p].second);
    }
    kernel.byPointer = true;
    return CUDA_SUCCESS;
  }
  // Note [Parameters by pointer] (the runtime's Executable.cpp): the real
  // driver copies a packed buffer as it is, and a parameter aligned to
  // more than 16 bytes is not where the compiled kernel reads it; the
  // kernel runs with a garbage parameter. The fake refuses such a launch.
  if (extra && function->ptxMaxAlign > 16)
    return CUDA_ERROR_INVALID_VALUE;
  kernel.byPointer = false;
  // The kernel would read past the buffer.
  if (function->ptxParamSize > 0 &&
      static_cast<int64_t>(size) < function->ptxParamSize)
    return CUDA_ERROR_INVALID_VALUE;
  kernel.params.assign(buffer, buffer + size);
  return CUDA_SUCCESS;
}

/// Records one kernel run: a launch, or a node of a graph launch.
FakeCudaLaunch &record(State &s, const KernelNode &kernel, CUstream stream,
                       bool graph) {
  auto record = std::make_unique<LaunchRecord>();
  record->function = kernel.function->name;
  record->params = kernel.params;
  FakeCudaLaunch &launch = record->launch;
  for (int d = 0; d < 3; ++d) {
    launch.grid[d] = kernel.grid[d];
    launch.block[d] = kernel.block[d];
  }
  launch.sharedMemBytes = kernel.sharedMemBytes;
  launch.stream = stream;
  launch.paramSize = record->params.size();
  launch.ptxParamSize = kernel.function->ptxParamSize;
  launch.function = record->function.c_str();
  launch.params = record->params.data();
  launch.graph = graph ? 1 : 0;
  launch.byPointer = kernel.byPointer ? 1 : 0;
  s.launches.push_back(std::move(record));
  return s.launches.back()->launch;
}

/// A kernel node's description as the runtime passes it.
CUresult takeNodeParams(State &s, const CUDA_KERNEL_NODE_PARAMS *params,
                        KernelNode &kernel) {
  if (!params)
    return CUDA_ERROR_INVALID_VALUE;
  kernel.function = params->func;
  kernel.grid[0] = params->gridDimX;
  kernel.grid[1] = params->gridDimY;
  kernel.grid[2] = params->gridDimZ;
  kernel.block[0] = params->blockDimX;
  kernel.block[1] = params->blockDimY;
  kernel.block[2] = params->blockDimZ;
  kernel.sharedMemBytes = params->sharedMemBytes;
  return takeKernel(s, kernel, params->kernelParams, params->extra);
}

} // namespace

//===----------------------------------------------------------------------===//
// Driver entry points
//===----------------------------------------------------------------------===//

extern "C" {

CUresult CUDAAPI cuInit(unsigned int flags) {
  State &s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  if (CUresult injected = s.enter(__func__))
    return injected;
  if (flags != 0)
    return CUDA_ERROR_INVALID_VALUE;
  s.initialized = true;
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuDriverGetVersion(int *version) {
  State &s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  if (CUresult injected = s.enter(__func__))
    return injected;
  if (!version)
    return CUDA_ERROR_INVALID_VALUE;
  *version = CUDA_VERSION;
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuDeviceGet(CUdevice *device, int ordinal) {
  FAKE_CUDA_ENTER();
  if (!device)
    return CUDA_ERROR_INVALID_VALUE;
  if (ordinal != 0)
    return CUDA_ERROR_INVALID_DEVICE;
  *device = 0;
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuDeviceGetCount(int *count) {
  FAKE_CUDA_ENTER();
  if (!count)
    return CUDA_ERROR_INVALID_VALUE;
  *count = 1;
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuDeviceGetAttribute(int *value, CUdevice_attribute attribute,
                                      CUdevice device) {
  FAKE_CUDA_ENTER();
  if (!value)
    return CUDA_ERROR_INVALID_VALUE;
  if (device != 0)
    return CUDA_ERROR_INVALID_DEVICE;
  switch (attribute) {
  case CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT:
    *value = kSmCount;
    break;
  case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN:
    *value = kSmemOptin;
    break;
  case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK:
    *value = kDefaultDynamicSmem;
    break;
  case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR:
    *value = 228 * 1024;
    break;
  case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR:
    *value = 9;
    break;
  case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR:
    *value = 0;
    break;
  case CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK:
  case CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X:
  case CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y:
    *value = 1024;
    break;
  case CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z:
    *value = 64;
    break;
  case CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR:
    *value = 2048;
    break;
  case CU_DEVICE_ATTRIBUTE_WARP_SIZE:
    *value = 32;
    break;
  case CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X:
    *value = 2147483647;
    break;
  case CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y:
  case CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z:
    *value = 65535;
    break;
  case CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH:
  case CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED:
    *value = 1;
    break;
  default:
    // Unknown to the fake: add it above rather than answer nonsense.
    return CUDA_ERROR_NOT_SUPPORTED;
  }
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuDevicePrimaryCtxRetain(CUcontext *context, CUdevice device) {
  FAKE_CUDA_ENTER();
  if (!context)
    return CUDA_ERROR_INVALID_VALUE;
  if (device != 0)
    return CUDA_ERROR_INVALID_DEVICE;
  *context = &s.context;
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuCtxGetCurrent(CUcontext *context) {
  FAKE_CUDA_ENTER();
  if (!context)
    return CUDA_ERROR_INVALID_VALUE;
  *context = currentContext;
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuCtxSetCurrent(CUcontext context) {
  FAKE_CUDA_ENTER();
  if (context && context != &s.context)
    return CUDA_ERROR_INVALID_CONTEXT;
  currentContext = context;
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuCtxGetDevice(CUdevice *device) {
  FAKE_CUDA_ENTER();
  if (!device)
    return CUDA_ERROR_INVALID_VALUE;
  if (!currentContext)
    return CUDA_ERROR_INVALID_CONTEXT;
  *device = currentContext->device;
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuCtxSynchronize(void) {
  FAKE_CUDA_ENTER();
  return currentContext ? CUDA_SUCCESS : CUDA_ERROR_INVALID_CONTEXT;
}

CUresult CUDAAPI cuModuleLoadData(CUmodule *module, const void *image) {
  FAKE_CUDA_ENTER();
  if (!module || !image)
    return CUDA_ERROR_INVALID_VALUE;
  if (!currentContext)
    return CUDA_ERROR_INVALID_CONTEXT;
  auto loaded = std::make_unique<CUmod_st>();
  if (std::memcmp(image,
                  "\x7f"
                  "ELF",
                  4) == 0) {
    loaded->cubin = true;
  } else {
    std::string ptx(static_cast<const char *>(image));
    if (ptx.find(".version") == std::string::npos ||
        ptx.find(".target") == std::string::npos)
      return CUDA_ERROR_INVALID_PTX;
    loaded->entries = parsePtxEntries(ptx);
    if (loaded->entries.empty())
      return CUDA_ERROR_INVALID_PTX;
  }
  *module = loaded.release();
  s.modules.insert(*module);
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuModuleGetFunction(CUfunction *function, CUmodule module,
                                     const char *name) {
  FAKE_CUDA_ENTER();
  if (!function || !name)
    return CUDA_ERROR_INVALID_VALUE;
  if (!s.modules.count(module))
    return CUDA_ERROR_INVALID_HANDLE;
  auto entry = module->entries.find(name);
  if (!module->cubin && entry == module->entries.end())
    return CUDA_ERROR_NOT_FOUND;
  std::unique_ptr<CUfunc_st> &slot = module->functions[name];
  if (!slot) {
    slot = std::make_unique<CUfunc_st>();
    slot->name = name;
    slot->module = module;
    if (!module->cubin) {
      slot->ptxParamSize = entry->second.size;
      slot->ptxParams = entry->second.params;
      slot->ptxMaxAlign = entry->second.maxAlign;
      slot->staticSmem = static_cast<int>(entry->second.staticSmem);
      slot->maxDynamicSmem = std::max(0, 48 * 1024 - slot->staticSmem);
    }
  }
  *function = slot.get();
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuModuleUnload(CUmodule module) {
  FAKE_CUDA_ENTER();
  if (!s.modules.erase(module))
    return CUDA_ERROR_INVALID_HANDLE;
  delete module;
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuFuncSetAttribute(CUfunction function,
                                    CUfunction_attribute attribute, int value) {
  FAKE_CUDA_ENTER();
  if (!s.liveFunction(function))
    return CUDA_ERROR_INVALID_HANDLE;
  if (attribute == CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES) {
    if (value < 0 || value > kSmemOptin - function->staticSmem)
      return CUDA_ERROR_INVALID_VALUE;
    function->maxDynamicSmem = value;
  }
  if (attribute == CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED)
    function->nonPortableClusters = value != 0;
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuFuncGetAttribute(int *value, CUfunction_attribute attribute,
                                    CUfunction function) {
  FAKE_CUDA_ENTER();
  if (!value)
    return CUDA_ERROR_INVALID_VALUE;
  if (!s.liveFunction(function))
    return CUDA_ERROR_INVALID_HANDLE;
  switch (attribute) {
  case CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES:
    *value = function->staticSmem;
    return CUDA_SUCCESS;
  case CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES:
    *value = function->maxDynamicSmem;
    return CUDA_SUCCESS;
  default:
    return CUDA_ERROR_NOT_SUPPORTED;
  }
}

/// Blocks of the config's cluster attribute; 0 without one, -1 when its
/// size is one the launch would refuse (over 8 blocks without the
/// function's non-portable attribute, over 16 with it).
int64_t clusterBlocks(const CUlaunchConfig &config, CUfunction function) {
  for (unsigned a = 0; a < config.numAttrs; ++a) {
    const CUlaunchAttribute &attribute = config.attrs[a];
    if (attribute.id != CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION)
      continue;
    int64_t blocks = int64_t(attribute.value.clusterDim.x) *
                     attribute.value.clusterDim.y *
                     attribute.value.clusterDim.z;
    int64_t limit = function->nonPortableClusters ? 16 : 8;
    return blocks < 1 || blocks > limit ? -1 : blocks;
  }
  return 0;
}

// A model: one cluster per 2 SMs' worth of blocks, none when the dynamic
// shared memory exceeds what the function allows; a test can force the
// answer (fake_cuda_set_max_active_clusters).
CUresult CUDAAPI cuOccupancyMaxActiveClusters(int *numClusters,
                                              CUfunction function,
                                              const CUlaunchConfig *config) {
  FAKE_CUDA_ENTER();
  if (!numClusters || !config || (config->numAttrs && !config->attrs))
    return CUDA_ERROR_INVALID_VALUE;
  if (!s.liveFunction(function))
    return CUDA_ERROR_INVALID_HANDLE;
  int64_t blocks = clusterBlocks(*config, function);
  if (blocks < 0)
    return CUDA_ERROR_INVALID_CLUSTER_SIZE;
  if (s.maxActiveClusters >= 0) {
    *numClusters = s.maxActiveClusters;
    return CUDA_SUCCESS;
  }
  bool fits =
      config->sharedMemBytes <= static_cast<unsigned>(function->maxDynamicSmem);
  *numClusters =
      fits ? static_cast<int>(kSmCount / std::max<int64_t>(blocks, 1)) : 0;
  return CUDA_SUCCESS;
}

// The driver's argument rules (CUDA 12's documentation of
// cuTensorMapEncodeTiled, without interleave), then the arguments written
// into the map as a FakeCudaTensorMap.
CUresult CUDAAPI cuTensorMapEncodeTiled(
    CUtensorMap *tensorMap, CUtensorMapDataType dtype, cuuint32_t rank,
    void *address, const cuuint64_t *dims, const cuuint64_t *strides,
    const cuuint32_t *box, const cuuint32_t *elementStrides,
    CUtensorMapInterleave interleave, CUtensorMapSwizzle swizzle,
    CUtensorMapL2promotion, CUtensorMapFloatOOBfill oobFill) {
  FAKE_CUDA_ENTER();
  // Element bytes of UINT8 .. TFLOAT32_FTZ (cuda.h's order).
  static const int64_t bytes[] = {1, 2, 4, 4, 8, 8, 2, 4, 8, 2, 4, 4, 4};
  if (!tensorMap || rank < 1 || rank > 5 || !dims || !box || !elementStrides ||
      (rank > 1 && !strides) || interleave != CU_TENSOR_MAP_INTERLEAVE_NONE ||
      static_cast<size_t>(dtype) >= sizeof(bytes) / sizeof(bytes[0]) ||
      reinterpret_cast<uintptr_t>(address) % 16 != 0)
    return CUDA_ERROR_INVALID_VALUE;
  int64_t element = bytes[dtype];
  for (cuuint32_t k = 0; k < rank; ++k) {
    if (dims[k] < 1 || dims[k] > (uint64_t(1) << 32) || box[k] < 1 ||
        box[k] > 256 || elementStrides[k] < 1 || elementStrides[k] > 8)
      return CUDA_ERROR_INVALID_VALUE;
    if (k > 0 &&
        (strides[k - 1] % 16 != 0 || strides[k - 1] >= (uint64_t(1) << 40)))
      return CUDA_ERROR_INVALID_VALUE;
  }
  if (box[0] * element % 16 != 0)
    return CUDA_ERROR_INVALID_VALUE;
  FakeCudaTensorMap map = {};
  map.address = reinterpret_cast<uintptr_t>(address);
  map.dtype = dtype;
  map.rank = rank;
  map.swizzle = swizzle;
  map.oobFill = oobFill;
  for (cuuint32_t k = 0; k < rank; ++k) {
    map.dims[k] = dims[k];
    map.box[k] = box[k];
    if (k > 0)
      map.strides[k - 1] = strides[k - 1];
  }
  static_assert(sizeof(FakeCudaTensorMap) <= sizeof(CUtensorMap),
                "the record fits a CUtensorMap");
  std::memset(tensorMap, 0, sizeof(CUtensorMap));
  std::memcpy(tensorMap, &map, sizeof(map));
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuLaunchKernelEx(const CUlaunchConfig *config,
                                  CUfunction function, void **kernelParams,
                                  void **extra) {
  FAKE_CUDA_ENTER();
  if (!config)
    return CUDA_ERROR_INVALID_VALUE;
  if (!currentContext)
    return CUDA_ERROR_INVALID_CONTEXT;
  if (config->numAttrs && !config->attrs)
    return CUDA_ERROR_INVALID_VALUE;
  if (function && s.liveFunction(function) &&
      clusterBlocks(*config, function) < 0)
    return CUDA_ERROR_INVALID_CLUSTER_SIZE;
  KernelNode kernel;
  kernel.function = function;
  kernel.grid[0] = config->gridDimX;
  kernel.grid[1] = config->gridDimY;
  kernel.grid[2] = config->gridDimZ;
  kernel.block[0] = config->blockDimX;
  kernel.block[1] = config->blockDimY;
  kernel.block[2] = config->blockDimZ;
  kernel.sharedMemBytes = config->sharedMemBytes;
  if (CUresult result = takeKernel(s, kernel, kernelParams, extra))
    return result;
  FakeCudaLaunch &launch = record(s, kernel, config->hStream, false);
  launch.numAttrs = config->numAttrs;
  for (unsigned a = 0; a < config->numAttrs; ++a) {
    const CUlaunchAttribute &attribute = config->attrs[a];
    if (attribute.id == CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION) {
      launch.clusterDim[0] = attribute.value.clusterDim.x;
      launch.clusterDim[1] = attribute.value.clusterDim.y;
      launch.clusterDim[2] = attribute.value.clusterDim.z;
    } else if (attribute.id == CU_LAUNCH_ATTRIBUTE_COOPERATIVE) {
      launch.cooperative = attribute.value.cooperative;
    }
  }
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuMemAllocAsync(CUdeviceptr *pointer, size_t bytes,
                                 CUstream stream) {
  FAKE_CUDA_ENTER();
  if (!pointer || bytes == 0)
    return CUDA_ERROR_INVALID_VALUE;
  if (!currentContext)
    return CUDA_ERROR_INVALID_CONTEXT;
  size_t rounded = (bytes + kAllocationAlignment - 1) / kAllocationAlignment *
                   kAllocationAlignment;
  void *memory = std::aligned_alloc(kAllocationAlignment, rounded);
  if (!memory)
    return CUDA_ERROR_OUT_OF_MEMORY;
  uint64_t address = reinterpret_cast<uint64_t>(memory);
  s.allocations[address] = bytes;
  s.allocs.push_back({address, bytes, stream});
  *pointer = address;
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuMemFreeAsync(CUdeviceptr pointer, CUstream) {
  FAKE_CUDA_ENTER();
  auto found = s.allocations.find(pointer);
  if (found == s.allocations.end())
    return CUDA_ERROR_INVALID_VALUE;
  s.allocations.erase(found);
  std::free(reinterpret_cast<void *>(pointer));
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuMemsetD8Async(CUdeviceptr pointer, unsigned char value,
                                 size_t count, CUstream stream) {
  FAKE_CUDA_ENTER();
  return fill(pointer, 1, value, count, stream);
}

CUresult CUDAAPI cuMemsetD16Async(CUdeviceptr pointer, unsigned short value,
                                  size_t count, CUstream stream) {
  FAKE_CUDA_ENTER();
  return fill(pointer, 2, value, count, stream);
}

CUresult CUDAAPI cuMemsetD32Async(CUdeviceptr pointer, unsigned int value,
                                  size_t count, CUstream stream) {
  FAKE_CUDA_ENTER();
  return fill(pointer, 4, value, count, stream);
}

CUresult CUDAAPI cuStreamSynchronize(CUstream) {
  FAKE_CUDA_ENTER();
  return currentContext ? CUDA_SUCCESS : CUDA_ERROR_INVALID_CONTEXT;
}

CUresult CUDAAPI cuGetErrorName(CUresult result, const char **name) {
  State &s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  if (CUresult injected = s.enter(__func__))
    return injected;
  const ErrorText *error = findError(result);
  if (!name)
    return CUDA_ERROR_INVALID_VALUE;
  *name = error ? error->name : nullptr;
  return error ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

CUresult CUDAAPI cuGetErrorString(CUresult result, const char **text) {
  State &s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  if (CUresult injected = s.enter(__func__))
    return injected;
  const ErrorText *error = findError(result);
  if (!text)
    return CUDA_ERROR_INVALID_VALUE;
  *text = error ? error->text : nullptr;
  return error ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

CUresult CUDAAPI cuStreamIsCapturing(CUstream stream,
                                     CUstreamCaptureStatus *status) {
  FAKE_CUDA_ENTER();
  if (!status)
    return CUDA_ERROR_INVALID_VALUE;
  *status = s.capturing.count(stream) ? CU_STREAM_CAPTURE_STATUS_ACTIVE
                                      : CU_STREAM_CAPTURE_STATUS_NONE;
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuGraphCreate(CUgraph *graph, unsigned int flags) {
  FAKE_CUDA_ENTER();
  if (!graph || flags != 0)
    return CUDA_ERROR_INVALID_VALUE;
  *graph = new CUgraph_st;
  s.graphs.insert(*graph);
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuGraphAddKernelNode(CUgraphNode *node, CUgraph graph,
                                      const CUgraphNode *dependencies,
                                      size_t numDependencies,
                                      const CUDA_KERNEL_NODE_PARAMS *params) {
  FAKE_CUDA_ENTER();
  if (!node || !s.graphs.count(graph) || (numDependencies && !dependencies))
    return CUDA_ERROR_INVALID_VALUE;
  auto added = std::make_unique<CUgraphNode_st>();
  for (size_t d = 0; d < numDependencies; ++d) {
    bool inGraph = false;
    for (const auto &n : graph->nodes)
      inGraph = inGraph || n.get() == dependencies[d];
    if (!inGraph)
      return CUDA_ERROR_INVALID_VALUE;
    added->dependencies.push_back(dependencies[d]);
  }
  if (CUresult result = takeNodeParams(s, params, added->kernel))
    return result;
  *node = added.get();
  graph->nodes.push_back(std::move(added));
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuGraphInstantiateWithFlags(CUgraphExec *exec, CUgraph graph,
                                             unsigned long long flags) {
  FAKE_CUDA_ENTER();
  if (!exec || !s.graphs.count(graph) || flags != 0)
    return CUDA_ERROR_INVALID_VALUE;
  auto *made = new CUgraphExec_st;
  made->source = graph;
  for (const auto &n : graph->nodes)
    made->nodes.emplace_back(n.get(), n->kernel);
  s.execs.insert(made);
  *exec = made;
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuGraphExecKernelNodeSetParams(
    CUgraphExec exec, CUgraphNode node, const CUDA_KERNEL_NODE_PARAMS *params) {
  FAKE_CUDA_ENTER();
  if (!s.execs.count(exec))
    return CUDA_ERROR_INVALID_VALUE;
  for (auto &n : exec->nodes) {
    if (n.first != node)
      continue;
    KernelNode kernel;
    if (CUresult result = takeNodeParams(s, params, kernel))
      return result;
    // The driver refuses to move a node to another context's function.
    if (kernel.function->module != n.second.function->module)
      return CUDA_ERROR_INVALID_VALUE;
    n.second = std::move(kernel);
    return CUDA_SUCCESS;
  }
  return CUDA_ERROR_INVALID_VALUE;
}

CUresult CUDAAPI cuGraphLaunch(CUgraphExec exec, CUstream stream) {
  FAKE_CUDA_ENTER();
  if (!s.execs.count(exec))
    return CUDA_ERROR_INVALID_VALUE;
  if (!currentContext)
    return CUDA_ERROR_INVALID_CONTEXT;
  for (const auto &n : exec->nodes)
    if (!s.liveFunction(n.second.function))
      return CUDA_ERROR_INVALID_HANDLE;
  for (const auto &n : exec->nodes)
    record(s, n.second, stream, true);
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuGraphExecDestroy(CUgraphExec exec) {
  FAKE_CUDA_ENTER();
  if (!s.execs.erase(exec))
    return CUDA_ERROR_INVALID_VALUE;
  delete exec;
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuGraphDestroy(CUgraph graph) {
  FAKE_CUDA_ENTER();
  if (!s.graphs.erase(graph))
    return CUDA_ERROR_INVALID_VALUE;
  delete graph;
  return CUDA_SUCCESS;
}

//===----------------------------------------------------------------------===//
// The test interface (FakeCuda.h)
//===----------------------------------------------------------------------===//

int64_t fake_cuda_count(const char *name) {
  State &s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  auto found = s.counts.find(name ? name : "");
  return found == s.counts.end() ? -1 : found->second;
}

void fake_cuda_reset(void) {
  State &s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  for (auto &count : s.counts)
    count.second = 0;
  s.failNext.clear();
  s.launches.clear();
  s.memsets.clear();
  s.allocs.clear();
  s.capturing.clear();
  s.maxActiveClusters = -1;
}

size_t fake_cuda_num_launches(void) {
  State &s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  return s.launches.size();
}

int fake_cuda_launch(size_t index, FakeCudaLaunch *out) {
  State &s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  if (index >= s.launches.size() || !out)
    return 0;
  *out = s.launches[index]->launch;
  return 1;
}

size_t fake_cuda_num_memsets(void) {
  State &s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  return s.memsets.size();
}

int fake_cuda_memset(size_t index, FakeCudaMemset *out) {
  State &s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  if (index >= s.memsets.size() || !out)
    return 0;
  *out = s.memsets[index];
  return 1;
}

size_t fake_cuda_num_allocs(void) {
  State &s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  return s.allocs.size();
}

int fake_cuda_alloc(size_t index, FakeCudaAlloc *out) {
  State &s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  if (index >= s.allocs.size() || !out)
    return 0;
  *out = s.allocs[index];
  return 1;
}

size_t fake_cuda_live_allocations(void) {
  State &s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  return s.allocations.size();
}

size_t fake_cuda_live_modules(void) {
  State &s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  return s.modules.size();
}

size_t fake_cuda_live_graphs(void) {
  State &s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  return s.graphs.size() + s.execs.size();
}

void fake_cuda_set_capturing(void *stream, int capturing) {
  State &s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  if (capturing)
    s.capturing.insert(static_cast<CUstream>(stream));
  else
    s.capturing.erase(static_cast<CUstream>(stream));
}

void fake_cuda_set_max_active_clusters(int clusters) {
  State &s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  s.maxActiveClusters = clusters;
}

void fake_cuda_fail_next(const char *name, int result) {
  State &s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  s.failNext[name] = static_cast<CUresult>(result);
}

} // extern "C"
