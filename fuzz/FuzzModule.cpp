//===- FuzzModule.cpp - libFuzzer target: module files through the runtime ===//
// fusion-fuzz-module: the input bytes are a module file. They go through the
// runtime's public API only:
//  - the C++ API (Executable.h): Executable::load, then, for a few input
//    signatures (dynamic sizes 3, 0 and 17, the last with misaligned
//    pointers), plan, inferOutputs and run (twice: a plan cache miss, then
//    a hit) on the fake CUDA driver of unittests/Runtime/FakeCuda.cpp;
//  - the C API (fusion_runtime.h) on the same bytes: fusion_executable_load
//    (which must agree with Executable::load), every metadata query,
//    fusion_executable_infer_packed, fusion_executable_run_packed and the
//    launch plan inspection.
// A plan whose buffers take more than kMaxDeviceBytes is not run: the fake's
// device memory is host memory. A failure must be a typed error (an
// ErrorCode the API documents, with a message); a crash, a sanitizer report,
// an untyped error, a plan with negative sizes, or device memory or modules
// left behind after the executables are destroyed is a finding. See
// docs/fuzzing.md.
//
// The fake driver: the runtime dlopens "libcuda.so.1". This target loads the
// fake (FUSION_FUZZ_FAKE_CUDA, or $FUSION_FUZZ_FAKE_CUDA) by path first, so
// the runtime's dlopen finds it by its soname whatever LD_LIBRARY_PATH says
// (utils/fuzz.sh also points LD_LIBRARY_PATH at it), and a real driver of a
// GPU machine is never used.
//===----------------------------------------------------------------------===//

#include "FakeCuda.h" // unittests/Runtime: the fake's test interface

#include "fusion/Runtime/Executable.h"
#include "fusion/Runtime/fusion_runtime.h"

#include <cuda.h>
#include <dlfcn.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

using namespace fusion::runtime;

namespace {

constexpr size_t kMaxInputBytes = 1 << 20;
/// Inputs larger than this get a fake address instead of fake device memory
/// (the fake never reads inputs; this only bounds the fuzzer's memory).
constexpr int64_t kMaxTensorBytes = 1 << 20;
/// Room after each tensor, so that a misaligned pointer stays inside it.
constexpr int64_t kSlackBytes = 64;
/// Device memory one run may take from the fake driver (host memory).
constexpr int64_t kMaxDeviceBytes = 64 << 20;
void *const kFakeAddress = reinterpret_cast<void *>(uintptr_t(1) << 40);
void *const kStream = reinterpret_cast<void *>(0x5100);

[[noreturn]] void finding(const std::string &what) {
  std::fprintf(stderr, "fusion-fuzz-module: %s\n", what.c_str());
  std::abort();
}

struct Fake {
  decltype(&fake_cuda_reset) reset = nullptr;
  decltype(&fake_cuda_live_allocations) liveAllocations = nullptr;
  decltype(&fake_cuda_live_modules) liveModules = nullptr;
  decltype(&::cuMemAllocAsync) memAllocAsync = nullptr;
  decltype(&::cuMemFreeAsync) memFreeAsync = nullptr;
};
Fake fake;

void loadFakeDriver() {
  const char *path = std::getenv("FUSION_FUZZ_FAKE_CUDA");
  if (!path || !*path)
    path = FUSION_FUZZ_FAKE_CUDA;
  void *handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    const char *why = dlerror();
    std::fprintf(stderr,
                 "fusion-fuzz-module: cannot load the fake driver %s: %s\n",
                 path, why ? why : "unknown");
    std::exit(2);
  }
  if (dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL | RTLD_NOLOAD) != handle) {
    std::fprintf(stderr,
                 "fusion-fuzz-module: dlopen(\"libcuda.so.1\") is not "
                 "the fake driver %s\n",
                 path);
    std::exit(2);
  }
#define FUZZ_RESOLVE(field, symbol)                                            \
  fake.field = reinterpret_cast<decltype(fake.field)>(dlsym(handle, #symbol)); \
  if (!fake.field) {                                                           \
    std::fprintf(stderr, "fusion-fuzz-module: the fake driver has no %s\n",    \
                 #symbol);                                                     \
    std::exit(2);                                                              \
  }
  FUZZ_RESOLVE(reset, fake_cuda_reset)
  FUZZ_RESOLVE(liveAllocations, fake_cuda_live_allocations)
  FUZZ_RESOLVE(liveModules, fake_cuda_live_modules)
  FUZZ_RESOLVE(memAllocAsync, cuMemAllocAsync)
  FUZZ_RESOLVE(memFreeAsync, cuMemFreeAsync)
#undef FUZZ_RESOLVE
  Status status = cudaDriverStatus();
  if (!status.ok()) {
    std::fprintf(stderr,
                 "fusion-fuzz-module: the runtime cannot use the fake "
                 "driver: %s\n",
                 status.toString().c_str());
    std::exit(2);
  }
}

/// A failure must carry one of the documented error codes and a message.
void checkTyped(const Status &status, const char *call) {
  if (status.ok())
    return;
  int code = static_cast<int>(status.code());
  // Every documented code has a name (errorCodeName); others are "Unknown".
  if (code < static_cast<int>(ErrorCode::InvalidArgument) ||
      std::string(errorCodeName(status.code())) == "Unknown")
    finding(std::string(call) + " failed with an untyped error " +
            std::to_string(code) + ": " + status.message());
  if (status.message().empty())
    finding(std::string(call) + " failed with " + errorCodeName(status.code()) +
            " and no message");
}

/// The same for a C API status: the return value is the last error's code.
void checkTypedC(int rc, const char *call) {
  if (rc == FUSION_OK)
    return;
  if (rc < FUSION_ERROR_INVALID_ARGUMENT ||
      std::string(fusion_error_code_name(rc)) == "Unknown")
    finding(std::string(call) + " returned an untyped error " +
            std::to_string(rc));
  if (fusion_last_error_code() != rc)
    finding(std::string(call) + " returned " + std::to_string(rc) +
            " but fusion_last_error_code() is " +
            std::to_string(fusion_last_error_code()));
  const char *message = fusion_last_error_message();
  if (!message || !*message)
    finding(std::string(call) + " failed with no message");
}

/// Fake device memory for one call's input tensors.
class DeviceMemory {
public:
  ~DeviceMemory() {
    for (CUdeviceptr p : blocks_)
      fake.memFreeAsync(p, nullptr);
  }
  void *get(int64_t bytes) {
    if (bytes < 0 || bytes > kMaxTensorBytes)
      return kFakeAddress;
    CUdeviceptr p = 0;
    if (fake.memAllocAsync(&p, size_t(bytes + kSlackBytes), nullptr) !=
        CUDA_SUCCESS)
      finding("the fake driver could not allocate " + std::to_string(bytes) +
              " bytes");
    blocks_.push_back(p);
    return reinterpret_cast<void *>(p);
  }

private:
  std::vector<CUdeviceptr> blocks_;
};

/// Inputs for a module's signature: every dynamic size is `dynamic`, static
/// sizes are kept, integer scalars are 2 and floating ones 1.5. With
/// `misalign`, tensor pointers are one element past an aligned address.
struct Inputs {
  std::vector<std::vector<int64_t>> sizes;
  std::vector<Argument> args;
  DeviceMemory memory;

  Inputs(const ModuleInfo &info, int64_t dynamic, bool misalign) {
    sizes.reserve(info.inputs.size());
    for (const InputInfo &in : info.inputs) {
      if (in.kind == ArgKind::Scalar) {
        sizes.emplace_back();
        args.push_back(isFloatingDType(in.dtype)
                           ? Argument::floatScalar(1.5, in.dtype)
                           : Argument::intScalar(2, in.dtype));
        continue;
      }
      std::vector<int64_t> shape;
      int64_t bytes = dtypeByteSize(in.dtype);
      for (int64_t s : in.sizes) {
        int64_t size = s < 0 ? dynamic : s;
        shape.push_back(size);
        if (bytes >= 0 &&
            (size < 0 || (size > 0 && bytes > kMaxTensorBytes / size)))
          bytes = -1; // too big (or nonsense): a fake address
        else if (bytes >= 0)
          bytes *= size;
      }
      sizes.push_back(std::move(shape));
      char *data = static_cast<char *>(memory.get(bytes));
      if (misalign)
        data += dtypeByteSize(in.dtype) > 0 ? dtypeByteSize(in.dtype) : 1;
      args.push_back(Argument::tensor(data, in.dtype, sizes.back().data(),
                                      int64_t(sizes.back().size())));
    }
  }
};

void freeOutputs(std::vector<OutputTensor> &outputs) {
  for (OutputTensor &out : outputs)
    if (out.allocated && out.data)
      checkTyped(freeDeviceMemory(out.data, kStream), "freeDeviceMemory");
}

/// Whether running `plan` stays within what the fake driver can give: the
/// fake's device memory is host memory, so a module that asks for gigabytes
/// (a real GPU may have them) is planned but not run. A buffer of negative
/// size in a plan that was accepted is a finding.
bool fitsFakeDevice(const EvaluatedPlan &plan) {
  int64_t total = plan.intermediateBytes;
  if (total < 0)
    finding("plan has " + std::to_string(total) + " intermediate bytes");
  for (const BufferLayout &b : plan.buffers) {
    if (b.bytes < 0 || b.numElements < 0)
      finding("plan has a buffer of " + std::to_string(b.bytes) + " bytes, " +
              std::to_string(b.numElements) + " elements");
    if (b.kind == BufferKind::Output && b.aliasInput < 0) {
      if (b.bytes > kMaxDeviceBytes - total)
        return false;
      total += b.bytes;
    }
  }
  return total <= kMaxDeviceBytes;
}

/// Plans `exe` on one input signature and, when the plan fits the fake
/// device, infers the outputs and runs it twice (a plan cache miss, then a
/// hit). Returns whether it ran.
bool runOnce(Executable &exe, int64_t dynamic, bool misalign) {
  const ModuleInfo &info = exe.info();
  Inputs in(info, dynamic, misalign);
  Expected<EvaluatedPlan> plan = exe.plan(in.args);
  checkTyped(plan.status(), "Executable::plan");
  if (!plan)
    return false;
  if (plan->outputBuffers.size() != info.outputs.size())
    finding("plan has " + std::to_string(plan->outputBuffers.size()) +
            " outputs, the module " + std::to_string(info.outputs.size()));
  for (int32_t b : plan->outputBuffers)
    if (b < 0 || size_t(b) >= plan->buffers.size())
      finding("plan output buffer " + std::to_string(b) + " out of range");
  if (!fitsFakeDevice(*plan))
    return false;

  std::vector<OutputTensor> outputs(info.outputs.size());
  checkTyped(exe.inferOutputs(in.args.data(), in.args.size(), outputs.data(),
                              outputs.size()),
             "Executable::inferOutputs");
  for (int repeat = 0; repeat < 2; ++repeat) {
    std::vector<OutputTensor> run(info.outputs.size());
    Status status = exe.run(in.args.data(), in.args.size(), run.data(),
                            run.size(), kStream);
    checkTyped(status, "Executable::run");
    if (status.ok())
      freeOutputs(run);
  }
  checkTyped(synchronizeStream(kStream), "synchronizeStream");
  return true;
}

/// The C API on a loaded executable: metadata, the packed path (run only
/// when `mayRun`: the C++ plan of the same signature fits the fake device)
/// and the plan inspection. The signature: dynamic sizes 3, row-major, fake
/// input addresses, integer scalars 2, floating scalars 1.5.
void throughCApi(fusion_executable *exe, bool mayRun) {
  volatile size_t sink = 0;
  if (const char *name = fusion_executable_name(exe))
    sink = sink + std::string(name).size();
  if (const char *target = fusion_executable_target(exe))
    sink = sink + std::string(target).size();

  int numInputs = fusion_executable_num_inputs(exe);
  int numOutputs = fusion_executable_num_outputs(exe);
  int numKernels = fusion_executable_num_kernels(exe);
  if (numInputs < 0 || numOutputs < 0 || numKernels < 0)
    finding("negative input, output or kernel count");
  const size_t nIn = static_cast<size_t>(numInputs);
  const size_t nOut = static_cast<size_t>(numOutputs);
  std::vector<void *> inputData(nIn, nullptr);
  std::vector<int64_t> records(nIn * FUSION_PACKED_WORDS, 0);
  std::vector<fusion_arg> args(nIn);
  for (int i = 0; i < numInputs; ++i) {
    fusion_input_info in;
    checkTypedC(fusion_executable_input(exe, i, &in),
                "fusion_executable_input");
    uint32_t flags = 0;
    checkTypedC(fusion_executable_input_flags(exe, i, &flags),
                "fusion_executable_input_flags");
    if (in.name)
      sink = sink + std::string(in.name).size();
    int64_t *r = &records[size_t(i) * FUSION_PACKED_WORDS];
    fusion_arg &a = args[size_t(i)];
    r[FUSION_PACKED_KIND] = a.kind = in.kind;
    r[FUSION_PACKED_DTYPE] = a.dtype = in.dtype;
    a.int_value = 2;
    a.float_value = 1.5;
    if (in.kind != FUSION_ARG_TENSOR) {
      if (isFloatingDType(static_cast<DType>(in.dtype))) {
        double v = 1.5;
        std::memcpy(&r[FUSION_PACKED_VALUE], &v, sizeof v);
      } else {
        r[FUSION_PACKED_VALUE] = 2;
      }
      continue;
    }
    if (in.rank < 0 || in.rank > FUSION_MAX_RANK)
      finding("input " + std::to_string(i) + " has rank " +
              std::to_string(in.rank));
    r[FUSION_PACKED_RANK] = in.rank;
    int64_t stride = 1;
    for (int d = in.rank - 1; d >= 0; --d) {
      int64_t size = in.sizes[d] < 0 ? 3 : in.sizes[d];
      r[FUSION_PACKED_SIZES + d] = size;
      r[FUSION_PACKED_STRIDES + d] = stride;
      if (size > 0 && stride < (int64_t(1) << 40) / size)
        stride *= size;
    }
    // No kernel runs on the fake: inputs need no memory.
    inputData[size_t(i)] = a.data = kFakeAddress;
    a.rank = in.rank;
    a.sizes = r + FUSION_PACKED_SIZES;
    a.strides = r + FUSION_PACKED_STRIDES;
  }
  for (int o = 0; o < numOutputs; ++o) {
    int32_t dtype = 0, rank = 0;
    checkTypedC(fusion_executable_output(exe, o, &dtype, &rank),
                "fusion_executable_output");
  }
  for (int k = 0; k < numKernels; ++k) {
    fusion_kernel_info kernel;
    checkTypedC(fusion_executable_kernel(exe, k, &kernel),
                "fusion_executable_kernel");
    if (kernel.name)
      sink = sink + std::string(kernel.name).size();
  }
  // Out of range: a typed error too.
  fusion_input_info none;
  checkTypedC(fusion_executable_input(exe, numInputs, &none),
              "fusion_executable_input");

  std::vector<int64_t> outRecords(nOut * FUSION_PACKED_WORDS, 0);
  int rc = fusion_executable_infer_packed(exe, inputData.data(), records.data(),
                                          nIn, outRecords.data(), nOut);
  checkTypedC(rc, "fusion_executable_infer_packed");
  if (rc == FUSION_OK && mayRun) {
    std::vector<void *> outData(nOut, nullptr);
    rc =
        fusion_executable_run_packed(exe, inputData.data(), records.data(), nIn,
                                     outData.data(), nullptr, nOut, kStream);
    checkTypedC(rc, "fusion_executable_run_packed");
    if (rc == FUSION_OK)
      for (size_t o = 0; o < nOut; ++o)
        if (outRecords[o * FUSION_PACKED_WORDS + FUSION_PACKED_ALIAS] < 0 &&
            outData[o])
          checkTypedC(fusion_free_async(outData[o], kStream),
                      "fusion_free_async");
  }

  fusion_plan *plan = nullptr;
  rc = fusion_executable_plan(exe, args.data(), nIn, &plan);
  checkTypedC(rc, "fusion_executable_plan");
  if (rc == FUSION_OK) {
    for (int l = 0, n = fusion_plan_num_launches(plan); l < n; ++l) {
      fusion_launch_info launch;
      checkTypedC(fusion_plan_launch(plan, l, &launch), "fusion_plan_launch");
    }
    for (int o = 0, n = fusion_plan_num_outputs(plan); o < n; ++o) {
      fusion_tensor out;
      checkTypedC(fusion_plan_output(plan, o, &out), "fusion_plan_output");
    }
    for (int r = 0, n = fusion_plan_num_registers(plan); r < n; ++r) {
      int64_t value = 0;
      checkTypedC(fusion_plan_register(plan, r, &value),
                  "fusion_plan_register");
    }
    fusion_plan_destroy(plan);
  }
  fusion_cache_stats stats;
  checkTypedC(fusion_executable_cache_stats(exe, &stats),
              "fusion_executable_cache_stats");
  checkTypedC(fusion_executable_clear_cache(exe),
              "fusion_executable_clear_cache");
  checkTypedC(fusion_stream_synchronize(kStream), "fusion_stream_synchronize");
}

void fuzzOne(const uint8_t *data, size_t size) {
  Expected<std::unique_ptr<Executable>> exe = Executable::load(data, size);
  checkTyped(exe.status(), "Executable::load");
  fusion_executable *cExe = nullptr;
  int rc = fusion_executable_load(data, size, &cExe);
  checkTypedC(rc, "fusion_executable_load");
  if (exe.ok() != (rc == FUSION_OK))
    finding(std::string("Executable::load ") +
            (exe.ok() ? "accepts" : "rejects") +
            " the module, fusion_executable_load " +
            (rc == FUSION_OK ? "accepts" : "rejects") + " it");
  if (!exe)
    return;
  if (!*exe || !cExe)
    finding("a load succeeded with a null executable");
  bool ranFirst = runOnce(**exe, 3, /*misalign=*/false);
  runOnce(**exe, 0, /*misalign=*/false);
  runOnce(**exe, 17, /*misalign=*/true);
  PlanCacheStats stats = (*exe)->cacheStats();
  (void)stats;
  throughCApi(cExe, ranFirst);
  fusion_executable_destroy(cExe);
}

} // namespace

extern "C" int LLVMFuzzerInitialize(int *, char ***) {
  loadFakeDriver();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size > kMaxInputBytes)
    return -1;
  size_t allocations = fake.liveAllocations();
  size_t modules = fake.liveModules();
  fuzzOne(data, size);
  // Everything the executables took from the driver is given back when they
  // are destroyed (the runtime frees its outputs' memory only when asked, and
  // this target asked).
  if (fake.liveAllocations() != allocations)
    finding("device allocations left behind: " +
            std::to_string(fake.liveAllocations()) + " live, " +
            std::to_string(allocations) + " before the input");
  if (fake.liveModules() != modules)
    finding("modules left loaded: " + std::to_string(fake.liveModules()) +
            " live, " + std::to_string(modules) + " before the input");
  fake.reset();
  return 0;
}
