// CPU-only tests of the runtime's launch path (lib/Runtime/Executable.cpp)
// against the fake CUDA driver of FakeCuda.cpp: the runtime dlopens
// "libcuda.so.1" and gets the fake, which counts every driver call and
// records launches, memsets and allocations. Modules are compiled from MLIR
// to PTX (no ptxas needed) or written by hand (TestModule.h); inputs are
// fake device pointers the fake never dereferences, outputs live in the
// fake's (host) memory. A separate executable: the runtime keeps the driver
// it loaded for the life of the process.
#include "../Common/CompileHelpers.h"
#include "FakeCuda.h"
#include "TestModule.h"

#include "fusion/Runtime/Executable.h"
#include "fusion/Runtime/fusion_runtime.h"
#include "fusion/Target/CompileCache.h"

#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"

#include <cuda.h>
#include <dlfcn.h>
#include <gtest/gtest.h>

#include "llvm/Support/FileSystem.h"

#include <cstdlib>
#include <cstring>
#include <functional>
#include <optional>
#include <set>
#include <thread>
#include <utility>

using namespace fusion::runtime;
using fusion::testing::compileExample;
using fusion::testing::compileSource;
namespace fb = fusion::fb;

namespace {

//===----------------------------------------------------------------------===//
// The fake driver
//===----------------------------------------------------------------------===//

/// The fake's test interface and the few entry points the tests call
/// themselves, resolved from the library the runtime loads.
struct Fake {
  void *handle = nullptr;
  std::string error; // why the fake is unusable, empty when it is usable
  decltype(&fake_cuda_count) count = nullptr;
  decltype(&fake_cuda_reset) reset = nullptr;
  decltype(&fake_cuda_num_launches) numLaunches = nullptr;
  decltype(&fake_cuda_launch) launch = nullptr;
  decltype(&fake_cuda_num_memsets) numMemsets = nullptr;
  decltype(&fake_cuda_memset) memset = nullptr;
  decltype(&fake_cuda_num_allocs) numAllocs = nullptr;
  decltype(&fake_cuda_alloc) alloc = nullptr;
  decltype(&fake_cuda_live_allocations) liveAllocations = nullptr;
  decltype(&fake_cuda_live_modules) liveModules = nullptr;
  decltype(&fake_cuda_fail_next) failNext = nullptr;
  decltype(&fake_cuda_live_graphs) liveGraphs = nullptr;
  decltype(&fake_cuda_set_capturing) setCapturing = nullptr;
  decltype(&fake_cuda_set_max_active_clusters) setMaxActiveClusters = nullptr;
  decltype(&::cuMemAllocAsync) memAllocAsync = nullptr;
  decltype(&::cuMemFreeAsync) memFreeAsync = nullptr;
  decltype(&::cuCtxGetCurrent) ctxGetCurrent = nullptr;
  decltype(&::cuCtxSetCurrent) ctxSetCurrent = nullptr;

  std::vector<FakeCudaLaunch> launches() const {
    std::vector<FakeCudaLaunch> out(numLaunches());
    for (size_t i = 0; i < out.size(); ++i)
      launch(i, &out[i]);
    return out;
  }
  std::vector<FakeCudaMemset> memsets() const {
    std::vector<FakeCudaMemset> out(numMemsets());
    for (size_t i = 0; i < out.size(); ++i)
      memset(i, &out[i]);
    return out;
  }
  std::vector<FakeCudaAlloc> allocs() const {
    std::vector<FakeCudaAlloc> out(numAllocs());
    for (size_t i = 0; i < out.size(); ++i)
      alloc(i, &out[i]);
    return out;
  }
};

const Fake &fake() {
  static const Fake *loaded = [] {
    auto *f = new Fake;
    // Loaded by path before the runtime asks for "libcuda.so.1": its dlopen
    // then finds the fake by its soname, whatever LD_LIBRARY_PATH says
    // (ctest points that at the fake too).
    f->handle = dlopen(FUSION_FAKE_CUDA_LIBRARY, RTLD_NOW | RTLD_LOCAL);
    if (!f->handle) {
      const char *why = dlerror();
      f->error = std::string("cannot load the fake driver: ") +
                 (why ? why : "unknown");
      return f;
    }
    if (dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL | RTLD_NOLOAD) !=
        f->handle) {
      f->error = "dlopen(\"libcuda.so.1\") is not the fake driver";
      return f;
    }
#define FAKE_RESOLVE(field, symbol)                                            \
  f->field = reinterpret_cast<decltype(f->field)>(dlsym(f->handle, #symbol));  \
  if (!f->field && f->error.empty())                                           \
    f->error = "the fake driver has no " #symbol;
    FAKE_RESOLVE(count, fake_cuda_count)
    FAKE_RESOLVE(reset, fake_cuda_reset)
    FAKE_RESOLVE(numLaunches, fake_cuda_num_launches)
    FAKE_RESOLVE(launch, fake_cuda_launch)
    FAKE_RESOLVE(numMemsets, fake_cuda_num_memsets)
    FAKE_RESOLVE(memset, fake_cuda_memset)
    FAKE_RESOLVE(numAllocs, fake_cuda_num_allocs)
    FAKE_RESOLVE(alloc, fake_cuda_alloc)
    FAKE_RESOLVE(liveAllocations, fake_cuda_live_allocations)
    FAKE_RESOLVE(liveModules, fake_cuda_live_modules)
    FAKE_RESOLVE(failNext, fake_cuda_fail_next)
    FAKE_RESOLVE(liveGraphs, fake_cuda_live_graphs)
    FAKE_RESOLVE(setCapturing, fake_cuda_set_capturing)
    FAKE_RESOLVE(setMaxActiveClusters, fake_cuda_set_max_active_clusters)
    FAKE_RESOLVE(memAllocAsync, cuMemAllocAsync)
    FAKE_RESOLVE(memFreeAsync, cuMemFreeAsync)
    FAKE_RESOLVE(ctxGetCurrent, cuCtxGetCurrent)
    FAKE_RESOLVE(ctxSetCurrent, cuCtxSetCurrent)
#undef FAKE_RESOLVE
    return f;
  }();
  return *loaded;
}

/// Every test starts with the runtime on the fake driver and the fake's
/// counters and records cleared.
class FakeDriver : public ::testing::Test {
protected:
  void SetUp() override {
    ASSERT_TRUE(fake().error.empty()) << fake().error;
    Status status = cudaDriverStatus();
    ASSERT_TRUE(status.ok()) << status.toString();
    fake().reset();
  }

  static int64_t count(const char *entryPoint) {
    return fake().count(entryPoint);
  }
};

/// Memory of the fake driver (host memory, so memsets really write).
class DeviceMemory {
public:
  explicit DeviceMemory(size_t bytes) {
    EXPECT_EQ(fake().memAllocAsync(&address_, bytes, nullptr), CUDA_SUCCESS);
  }
  ~DeviceMemory() {
    if (address_)
      fake().memFreeAsync(address_, nullptr);
  }
  DeviceMemory(const DeviceMemory &) = delete;
  DeviceMemory &operator=(const DeviceMemory &) = delete;
  void *get() const { return reinterpret_cast<void *>(address_); }

private:
  CUdeviceptr address_ = 0;
};

// Stream handles: the fake never dereferences them.
void *const kStream1 = reinterpret_cast<void *>(0x5100);
void *const kStream2 = reinterpret_cast<void *>(0x5200);

//===----------------------------------------------------------------------===//
// Modules and arguments
//===----------------------------------------------------------------------===//

// An outer (column) reduction: a grid split with partials and kept_zero
// counters (test/Transforms/lower-kernels-ops.mlir @colsum).
const char *const kColsum = R"mlir(
fusion.fusion @colsum(%x: tensor<?x?xf32>) -> tensor<?xf32> {
  %0 = fusion.sum %x [0] : tensor<?x?xf32> -> tensor<?xf32>
  fusion.return %0 : tensor<?xf32>
})mlir";

/// A row-major 2-D tensor at a fake device address.
struct Tensor2D {
  int64_t sizes[2];
  int64_t strides[2];
  Tensor2D(int64_t rows, int64_t cols) : sizes{rows, cols}, strides{cols, 1} {}
  Argument arg(uintptr_t address, DType dtype) const {
    return Argument::tensor(reinterpret_cast<void *>(address), dtype, sizes, 2,
                            strides);
  }
};

/// Inputs, their plan, and outputs in the fake's memory, for repeated runs.
struct Call {
  std::vector<Argument> inputs;
  EvaluatedPlan plan;
  std::vector<OutputTensor> outputs;
  std::vector<std::unique_ptr<DeviceMemory>> memory;

  /// Plans `inputs` and allocates the outputs; the fake's counters are
  /// reset afterwards.
  static std::unique_ptr<Call> make(Executable &exe,
                                    std::vector<Argument> inputs) {
    auto call = std::make_unique<Call>();
    call->inputs = std::move(inputs);
    auto plan = exe.plan(call->inputs);
    EXPECT_TRUE(plan.ok()) << plan.status().toString();
    if (!plan.ok())
      return nullptr;
    call->plan = std::move(*plan);
    call->outputs.resize(exe.info().outputs.size());
    Status status =
        exe.inferOutputs(call->inputs.data(), call->inputs.size(),
                         call->outputs.data(), call->outputs.size());
    EXPECT_TRUE(status.ok()) << status.toString();
    for (size_t o = 0; o < call->outputs.size(); ++o) {
      const BufferLayout &layout = call->plan.output(o);
      if (layout.aliasInput >= 0 || layout.bytes == 0)
        continue;
      call->memory.push_back(std::make_unique<DeviceMemory>(layout.bytes));
      call->outputs[o].data = call->memory.back()->get();
    }
    fake().reset();
    return call;
  }

  Status run(Executable &exe, void *stream) {
    return exe.run(inputs.data(), inputs.size(), outputs.data(), outputs.size(),
                   stream);
  }

  /// The distinct kernels the plan launches (Note [Kernels on first use]:
  /// the only ones a first call loads).
  int64_t kernelsLaunched() const {
    std::set<int32_t> kernels;
    for (const LaunchConfig &launch : plan.launches)
      if (!launch.skipped)
        kernels.insert(launch.kernel);
    return static_cast<int64_t>(kernels.size());
  }

  size_t launchesPerRun() const {
    size_t n = 0;
    for (const LaunchConfig &launch : plan.launches)
      n += !launch.skipped;
    return n;
  }

  /// Whether calls after the first run as one graph launch (Note [Launch
  /// graphs]): two or more launches, none clustered or cooperative.
  bool graphed() const {
    for (const LaunchConfig &launch : plan.launches)
      if (!launch.skipped && (launch.hasCluster || launch.cooperative))
        return false;
    return launchesPerRun() >= 2;
  }

  /// The memsets (address, bytes) a run must do, with the intermediates in
  /// the workspace at `workspace`; kept_zero buffers only if
  /// `keptZeroStale`.
  std::multiset<std::pair<uint64_t, uint64_t>>
  expectedMemsets(uint64_t workspace, bool keptZeroStale) const {
    std::multiset<std::pair<uint64_t, uint64_t>> out;
    for (size_t b = 0; b < plan.buffers.size(); ++b) {
      const BufferLayout &layout = plan.buffers[b];
      if (!layout.zeroInit || layout.bytes == 0)
        continue;
      if (layout.kind == BufferKind::Intermediate) {
        if (!layout.keptZero || keptZeroStale)
          out.insert({workspace + layout.poolOffset, layout.bytes});
        continue;
      }
      for (size_t o = 0; o < plan.outputBuffers.size(); ++o)
        if (plan.outputBuffers[o] == static_cast<int32_t>(b))
          out.insert(
              {reinterpret_cast<uint64_t>(outputs[o].data), layout.bytes});
    }
    return out;
  }

  const BufferLayout *keptZeroBuffer() const {
    for (const BufferLayout &layout : plan.buffers)
      if (layout.keptZero)
        return &layout;
    return nullptr;
  }
};

/// The memsets the fake saw since its last reset, as (address, bytes).
std::multiset<std::pair<uint64_t, uint64_t>> recordedMemsets() {
  std::multiset<std::pair<uint64_t, uint64_t>> out;
  for (const FakeCudaMemset &m : fake().memsets()) {
    EXPECT_EQ(m.value, 0u);
    out.insert({m.address, m.count * m.elementSize});
  }
  return out;
}

//===----------------------------------------------------------------------===//
// Tests
//===----------------------------------------------------------------------===//

// Note [Steady state]: once the modules are loaded and the plan cached, a
// call asks the driver for the current context once and then only memsets
// and launches; the stream workspace is reused, nothing is allocated.
TEST_F(FakeDriver, OneContextQueryPerCallInSteadyState) {
  struct Case {
    const char *name;
    std::unique_ptr<Executable> exe;
    std::vector<Argument> inputs;
    bool intermediates;
  };
  Tensor2D big(4096, 4096), square(1000, 1000), tall(32768, 1024);
  Case cases[] = {
      {"add_relu",
       compileExample("add_relu"),
       {big.arg(0x100000, DType::F32), big.arg(0x200000, DType::F32)},
       false},
      {"outer_center",
       compileSource(fusion::testing::kOuterCenterSource),
       {square.arg(0x100000, DType::F32),
        Argument::floatScalar(1000, DType::F32)},
       true},
      {"colsum",
       compileSource(kColsum),
       {tall.arg(0x100000, DType::F32)},
       true},
  };
  for (Case &c : cases) {
    SCOPED_TRACE(c.name);
    ASSERT_TRUE(c.exe);
    auto call = Call::make(*c.exe, c.inputs);
    ASSERT_TRUE(call);
    if (c.intermediates) {
      ASSERT_GT(call->plan.intermediateBytes, 0);
    }
    size_t launches = call->launchesPerRun();
    ASSERT_GT(launches, 0u);
    int64_t kernels = call->kernelsLaunched();
    ASSERT_LT(kernels, static_cast<int64_t>(c.exe->info().kernels.size()));

    // The first call loads the kernels it launches into the context, and
    // only those (the other variants wait for a plan that needs them).
    Status status = call->run(*c.exe, kStream1);
    ASSERT_TRUE(status.ok()) << status.toString();
    EXPECT_EQ(count("cuCtxGetCurrent"), 1);
    EXPECT_EQ(count("cuModuleLoadData"), kernels);
    EXPECT_EQ(count("cuModuleGetFunction"), kernels);
    EXPECT_EQ(count("cuCtxGetDevice"), 1);
    EXPECT_EQ(count("cuDeviceGetAttribute"), 1);
    EXPECT_EQ(count("cuMemAllocAsync"), c.intermediates ? 1 : 0);
    EXPECT_EQ(count("cuLaunchKernelEx"), static_cast<int64_t>(launches));

    // The second call builds the launch graph of a plan of 2+ launches.
    status = call->run(*c.exe, kStream1);
    ASSERT_TRUE(status.ok()) << status.toString();
    EXPECT_EQ(count("cuGraphInstantiateWithFlags"), call->graphed() ? 1 : 0);

    fake().reset();
    const int kCalls = 5;
    for (int i = 0; i < kCalls; ++i) {
      status = call->run(*c.exe, kStream1);
      ASSERT_TRUE(status.ok()) << status.toString();
    }
    EXPECT_EQ(count("cuCtxGetCurrent"), kCalls);
    EXPECT_EQ(fake().numLaunches(), kCalls * launches);
    if (call->graphed()) {
      EXPECT_EQ(count("cuGraphLaunch"), kCalls);
      EXPECT_EQ(count("cuStreamIsCapturing"), kCalls);
      EXPECT_EQ(count("cuLaunchKernelEx"), 0);
    } else {
      EXPECT_EQ(count("cuLaunchKernelEx"),
                static_cast<int64_t>(kCalls * launches));
      EXPECT_EQ(count("cuGraphLaunch"), 0);
    }
    for (const char *none : {"cuCtxSetCurrent",
                             "cuCtxGetDevice",
                             "cuDeviceGet",
                             "cuDeviceGetAttribute",
                             "cuDevicePrimaryCtxRetain",
                             "cuModuleLoadData",
                             "cuModuleGetFunction",
                             "cuFuncSetAttribute",
                             "cuMemAllocAsync",
                             "cuMemFreeAsync",
                             "cuStreamSynchronize",
                             "cuCtxSynchronize",
                             "cuGetErrorName",
                             "cuGetErrorString",
                             "cuGraphCreate",
                             "cuGraphAddKernelNode_v2",
                             "cuGraphInstantiateWithFlags",
                             "cuGraphExecKernelNodeSetParams_v2",
                             "cuGraphExecDestroy",
                             "cuGraphDestroy"})
      EXPECT_EQ(count(none), 0) << none;
    EXPECT_EQ(c.exe->cacheStats().misses, 1u);
  }
}

// Note [Stream workspaces]: kept_zero counters (a grid-split column
// reduction's) are zeroed when a stream's workspace is new or another plan
// used it since; the kernels leave them zero, so calls with the same plan
// on the same stream skip the memset. Other zero_init buffers are zeroed
// every call.
// Note [Kernels on first use]: a context loads a kernel when a plan first
// launches it. Aligned inputs take add_relu's vectorized variant; odd
// sizes then take its scalar fallback, loaded by that call and only once;
// the 64-bit-index variant is never loaded.
TEST_F(FakeDriver, FallbackVariantsLoadWhenALaunchFirstNeedsThem) {
  std::unique_ptr<Executable> exe = compileExample("add_relu");
  ASSERT_TRUE(exe);
  ASSERT_EQ(exe->info().kernels.size(), 3u);
  Tensor2D aligned(64, 64), odd(7, 9);
  auto vector = Call::make(*exe, {aligned.arg(0x100000, DType::F32),
                                  aligned.arg(0x200000, DType::F32)});
  ASSERT_TRUE(vector);
  ASSERT_EQ(vector->plan.launches.size(), 1u);
  int32_t vectorKernel = vector->plan.launches[0].kernel;
  Status status = vector->run(*exe, kStream1);
  ASSERT_TRUE(status.ok()) << status.toString();
  EXPECT_EQ(count("cuModuleLoadData"), 1);
  EXPECT_EQ(count("cuModuleGetFunction"), 1);

  auto scalar = Call::make(
      *exe, {odd.arg(0x300000, DType::F32), odd.arg(0x400000, DType::F32)});
  ASSERT_TRUE(scalar);
  int32_t scalarKernel = scalar->plan.launches[0].kernel;
  EXPECT_NE(scalarKernel, vectorKernel);
  EXPECT_EQ(exe->info().kernels[scalarKernel].name.find("_s_i32") !=
                std::string::npos,
            true)
      << exe->info().kernels[scalarKernel].name;
  for (int i = 0; i < 3; ++i) {
    status = scalar->run(*exe, kStream1);
    ASSERT_TRUE(status.ok()) << status.toString();
  }
  EXPECT_EQ(count("cuModuleLoadData"), 1);
  EXPECT_EQ(count("cuModuleGetFunction"), 1);
  EXPECT_EQ(fake().numLaunches(), 3u);

  fake().reset();
  for (Call *call : {vector.get(), scalar.get()}) {
    status = call->run(*exe, kStream1);
    ASSERT_TRUE(status.ok()) << status.toString();
  }
  EXPECT_EQ(count("cuModuleLoadData"), 0);
  EXPECT_EQ(fake().numLaunches(), 2u);
}

TEST_F(FakeDriver, KeptZeroCountersAreZeroedOncePerPlanAndStream) {
  auto exe = compileSource(kColsum);
  ASSERT_TRUE(exe);
  Tensor2D tallX(32768, 1024);
  auto a = Call::make(*exe, {tallX.arg(0x100000, DType::F32)});
  ASSERT_TRUE(a);
  const BufferLayout *counters = a->keptZeroBuffer();
  ASSERT_NE(counters, nullptr) << "no kept_zero buffer in the plan";
  EXPECT_TRUE(counters->zeroInit);
  EXPECT_EQ(counters->kind, BufferKind::Intermediate);
  EXPECT_GT(counters->bytes, 0);

  // Another shape with kept_zero counters that fits in a's workspace, so
  // switching plans does not grow (and so re-zero) the workspace.
  std::unique_ptr<Call> b;
  std::vector<std::unique_ptr<Tensor2D>> shapes;
  const std::pair<int64_t, int64_t> candidates[] = {
      {16384, 1024}, {32768, 512}, {8192, 1024}, {4096, 256}};
  for (const auto &[rows, cols] : candidates) {
    shapes.push_back(std::make_unique<Tensor2D>(rows, cols));
    auto candidate =
        Call::make(*exe, {shapes.back()->arg(0x100000, DType::F32)});
    ASSERT_TRUE(candidate);
    if (candidate->keptZeroBuffer() &&
        candidate->plan.intermediateBytes <= a->plan.intermediateBytes) {
      b = std::move(candidate);
      break;
    }
  }
  ASSERT_TRUE(b) << "no second shape with kept_zero counters";

  // One call; checks its memsets and returns its allocations.
  auto run = [&](Call &call, void *stream, uint64_t workspace,
                 bool keptZeroStale) {
    fake().reset();
    Status status = call.run(*exe, stream);
    EXPECT_TRUE(status.ok()) << status.toString();
    EXPECT_EQ(recordedMemsets(),
              call.expectedMemsets(workspace, keptZeroStale));
    int64_t keptZeroMemsets = 0;
    const BufferLayout *kept = call.keptZeroBuffer();
    for (const FakeCudaMemset &m : fake().memsets()) {
      EXPECT_EQ(m.stream, stream);
      keptZeroMemsets += m.address == workspace + kept->poolOffset &&
                         int64_t(m.count * m.elementSize) == kept->bytes;
    }
    EXPECT_EQ(keptZeroMemsets, keptZeroStale ? 1 : 0);
    EXPECT_EQ(fake().numLaunches(), call.launchesPerRun());
    return fake().allocs();
  };

  // A new workspace: allocated and its counters zeroed.
  fake().reset();
  ASSERT_TRUE(a->run(*exe, kStream1).ok());
  std::vector<FakeCudaAlloc> allocs = fake().allocs();
  ASSERT_EQ(allocs.size(), 1u);
  EXPECT_EQ(int64_t(allocs[0].bytes), a->plan.intermediateBytes);
  EXPECT_EQ(allocs[0].stream, kStream1);
  uint64_t workspace1 = allocs[0].address;
  EXPECT_EQ(recordedMemsets(), a->expectedMemsets(workspace1, true));
  {
    SCOPED_TRACE("same plan, same stream");
    EXPECT_TRUE(run(*a, kStream1, workspace1, false).empty());
    EXPECT_TRUE(run(*a, kStream1, workspace1, false).empty());
  }
  {
    SCOPED_TRACE("another plan on the workspace");
    // Whatever a's partials left where b's counters go must be zeroed.
    std::memset(reinterpret_cast<void *>(workspace1), 0xab,
                a->plan.intermediateBytes);
    EXPECT_TRUE(run(*b, kStream1, workspace1, true).empty());
    const BufferLayout *kept = b->keptZeroBuffer();
    std::vector<uint8_t> bytes(kept->bytes);
    std::memcpy(bytes.data(),
                reinterpret_cast<void *>(workspace1 + kept->poolOffset),
                bytes.size());
    EXPECT_EQ(bytes, std::vector<uint8_t>(kept->bytes, 0));
    EXPECT_TRUE(run(*b, kStream1, workspace1, false).empty());
  }
  {
    SCOPED_TRACE("back to the first plan");
    EXPECT_TRUE(run(*a, kStream1, workspace1, true).empty());
    EXPECT_TRUE(run(*a, kStream1, workspace1, false).empty());
  }
  uint64_t workspace2 = 0;
  {
    SCOPED_TRACE("a new stream");
    fake().reset();
    ASSERT_TRUE(a->run(*exe, kStream2).ok());
    allocs = fake().allocs();
    ASSERT_EQ(allocs.size(), 1u);
    EXPECT_EQ(allocs[0].stream, kStream2);
    workspace2 = allocs[0].address;
    EXPECT_NE(workspace2, workspace1);
    EXPECT_EQ(recordedMemsets(), a->expectedMemsets(workspace2, true));
    EXPECT_TRUE(run(*a, kStream2, workspace2, false).empty());
  }
  {
    SCOPED_TRACE("each stream keeps its own state");
    EXPECT_TRUE(run(*a, kStream1, workspace1, false).empty());
    EXPECT_TRUE(run(*b, kStream2, workspace2, true).empty());
    EXPECT_TRUE(run(*a, kStream1, workspace1, false).empty());
    EXPECT_TRUE(run(*a, kStream2, workspace2, true).empty());
  }
  {
    SCOPED_TRACE("clearCache forgets the plans");
    exe->clearCache();
    EXPECT_TRUE(run(*a, kStream1, workspace1, true).empty());
    EXPECT_TRUE(run(*a, kStream1, workspace1, false).empty());
  }
}

// A failed launch leaves the counters in an unknown state: the next call
// zeroes them again.
TEST_F(FakeDriver, FailedLaunchZeroesKeptZeroCountersAgain) {
  auto exe = compileSource(kColsum);
  ASSERT_TRUE(exe);
  Tensor2D x(32768, 1024);
  auto call = Call::make(*exe, {x.arg(0x100000, DType::F32)});
  ASSERT_TRUE(call);
  const BufferLayout *kept = call->keptZeroBuffer();
  ASSERT_NE(kept, nullptr);
  ASSERT_TRUE(call->run(*exe, kStream1).ok());
  ASSERT_EQ(fake().numAllocs(), 1u);
  FakeCudaAlloc workspace;
  ASSERT_TRUE(fake().alloc(0, &workspace));
  ASSERT_TRUE(call->run(*exe, kStream1).ok());
  size_t live = fake().liveAllocations();

  fake().reset();
  fake().failNext("cuLaunchKernelEx", CUDA_ERROR_LAUNCH_FAILED);
  Status status = call->run(*exe, kStream1);
  EXPECT_EQ(status.code(), ErrorCode::CudaError);
  EXPECT_NE(status.message().find("CUDA_ERROR_LAUNCH_FAILED"),
            std::string::npos)
      << status.toString();
  EXPECT_EQ(recordedMemsets(), call->expectedMemsets(workspace.address, false));
  EXPECT_EQ(fake().liveAllocations(), live);

  fake().reset();
  ASSERT_TRUE(call->run(*exe, kStream1).ok());
  EXPECT_EQ(recordedMemsets(), call->expectedMemsets(workspace.address, true));
  EXPECT_EQ(count("cuMemAllocAsync"), 0);
  fake().reset();
  ASSERT_TRUE(call->run(*exe, kStream1).ok());
  EXPECT_EQ(recordedMemsets(), call->expectedMemsets(workspace.address, false));
}

/// One call of `exe` on a contiguous bf16 [rows, cols] tensor: the launches
/// the fake driver saw (none, with a test failure, when the call fails).
static std::vector<FakeCudaLaunch>
launchesOfBf16Rows(Executable &exe, int64_t rows, int64_t cols) {
  Tensor2D x(rows, cols);
  auto call = Call::make(exe, {x.arg(0x100000, DType::BF16)});
  if (!call) {
    ADD_FAILURE() << "no call";
    return {};
  }
  Status status = call->run(exe, kStream1);
  EXPECT_TRUE(status.ok()) << status.toString();
  return status.ok() ? fake().launches() : std::vector<FakeCudaLaunch>{};
}

// Note [Cluster rows]: the compiled cluster variant (PTX only, loaded at its
// first launch) reaches cuLaunchKernelEx with its cluster attribute, after
// the residency check (asked once); the parameter buffer is what its PTX
// entry declares.
TEST_F(FakeDriver, CompiledClusterRowsLaunchWithTheirCluster) {
  mlir::fusion::CompileOptions options;
  options.innerCluster = 8;
  auto exe = compileExample("normalization/softmax", &options);
  ASSERT_TRUE(exe);
  std::vector<FakeCudaLaunch> launches = launchesOfBf16Rows(*exe, 16, 1000000);
  ASSERT_EQ(launches.size(), 1u);
  EXPECT_STREQ(launches[0].function, "softmax_k0_cv8_i32");
  EXPECT_EQ(launches[0].grid[0], 128u);
  EXPECT_EQ(launches[0].block[0], 512u);
  EXPECT_EQ(launches[0].clusterDim[0], 8u);
  EXPECT_EQ(launches[0].clusterDim[1], 1u);
  EXPECT_EQ(int64_t(launches[0].paramSize), launches[0].ptxParamSize);
  // A portable cluster: no non-portable attribute.
  EXPECT_EQ(count("cuFuncSetAttribute"), 0);
  EXPECT_EQ(count("cuOccupancyMaxActiveClusters"), 1);
  // (A shape of which no cluster fits is refused before any launch:
  // ClusterResidencyAndNonPortableClusters.)
}

// Note [Cluster persistent rows]: with the default schedule, a row longer
// than the long-row variant holds (bf16 65536 > 32768) takes the cluster
// persistent variant: a cluster of 4 blocks of 512 threads (the fewest that
// hold the row), cs * min(rows, max_grid / cs) blocks, each block's staged
// slots as dynamic shared memory; a row the long-row variant holds keeps it
// (no cluster attribute).
TEST_F(FakeDriver, LongRowsTakeTheClusterPersistentVariant) {
  auto exe = compileExample("normalization/softmax");
  ASSERT_TRUE(exe);
  std::vector<FakeCudaLaunch> launches = launchesOfBf16Rows(*exe, 2048, 65536);
  ASSERT_EQ(launches.size(), 1u);
  EXPECT_STREQ(launches[0].function, "softmax_k0_cpv8_i32");
  EXPECT_EQ(launches[0].clusterDim[0], 4u);
  EXPECT_EQ(launches[0].clusterDim[1], 1u);
  EXPECT_EQ(launches[0].block[0], 512u);
  EXPECT_EQ(launches[0].grid[0], 4u * 528u);
  // 4 vectors of 8 bf16 per thread, staged: 64 bytes a thread.
  EXPECT_EQ(launches[0].sharedMemBytes, 512u * 64u);
  EXPECT_EQ(int64_t(launches[0].paramSize), launches[0].ptxParamSize);
  EXPECT_EQ(count("cuOccupancyMaxActiveClusters"), 1);

  fake().reset();
  launches = launchesOfBf16Rows(*exe, 4096, 32768);
  ASSERT_EQ(launches.size(), 1u);
  EXPECT_STREQ(launches[0].function, "softmax_k0_plv8_i32");
  EXPECT_EQ(launches[0].clusterDim[0], 0u);
}

/// The last integer parameter of `config` (a row variant's threads per row
/// where the kernel reads no extents).
static int64_t lastIntParam(const LaunchConfig &config) {
  const ParamField *last = nullptr;
  for (const ParamField &field : config.fields)
    if ((field.kind == ParamKind::I32 || field.kind == ParamKind::I64) &&
        (!last || field.offset > last->offset))
      last = &field;
  if (!last)
    return -1;
  if (last->kind == ParamKind::I64) {
    int64_t value = 0;
    std::memcpy(&value, config.params.data() + last->offset, 8);
    return value;
  }
  int32_t value = 0;
  std::memcpy(&value, config.params.data() + last->offset, 4);
  return value;
}

/// The single launch planned for `cols`-element rows of `x` (f32 or bf16)
/// stored column-major (a transposed view) or row-major.
static std::optional<LaunchConfig> rowLaunch(Executable &exe, DType dtype,
                                             int64_t rows, int64_t cols,
                                             bool columnMajor,
                                             std::string *name) {
  Tensor2D x(rows, cols);
  if (columnMajor) {
    x.strides[0] = 1;
    x.strides[1] = rows;
  }
  std::vector<Argument> inputs{x.arg(0x100000, dtype)};
  auto plan = exe.plan(inputs);
  if (!plan.ok()) {
    ADD_FAILURE() << plan.status().toString();
    return std::nullopt;
  }
  if (plan->launches.size() != 1) {
    ADD_FAILURE() << plan->launches.size() << " launches";
    return std::nullopt;
  }
  *name = exe.info().kernels[plan->launches[0].kernel].name;
  return plan->launches[0];
}

// Note [Column-major rows]: per-row results over a transposed input take
// the column-major variant (lanes along the rows) with 2 to 32 threads per
// row (the largest power of two within max_grid x 128 / rows, at most
// block x element bytes / 32), block / threads rows per block; an input of
// 2^31 elements or more takes the 64-bit scalar variant with 2 to 16 (the
// fewest for max_grid x 128 threads); the same rows
// stored row-major keep the vectorized variant and its threads; kernels
// with per-element results (softmax) take the column variant too, and
// their other variants keep a warp or more per row.
const char *const kRowSumBf16 = R"mlir(
fusion.fusion @rowsum_bf16(%x: tensor<?x?xbf16>) -> tensor<?xbf16> {
  %0 = fusion.sum %x [1] : tensor<?x?xbf16> -> tensor<?xbf16>
  fusion.return %0 : tensor<?xbf16>
})mlir";

TEST_F(FakeDriver, ColumnMajorRowsTakeFewThreadsPerRow) {
  auto exe = compileExample("inner_sum");
  ASSERT_TRUE(exe);
  auto bf16 = compileSource(kRowSumBf16);
  ASSERT_TRUE(bf16);
  // inner-columns=0 leaves the variant out: the scalar one takes the rows,
  // with the older rule's power of two from 2 to 16.
  mlir::fusion::CompileOptions off;
  off.innerColumns = 0;
  auto noColumns = compileExample("inner_sum", &off);
  ASSERT_TRUE(noColumns);
  std::string name;
  // Threads per row from max_grid x 128 / rows wanted (2112 x 128 here);
  // grid 0: not checked.
  struct Case {
    Executable *exe;
    DType dtype;
    int64_t rows, cols;
    const char *variant;
    int64_t threads;
    uint32_t grid;
  };
  const Case cases[] = {
      // 9 wanted, 8 given: 32 rows per 256-thread block.
      {exe.get(), DType::F32, 32768, 4096, "inner_sum_k0_cs_i32", 8,
       32768 / 32},
      // 17 wanted.
      {exe.get(), DType::F32, 16384, 8192, "inner_sum_k0_cs_i32", 16,
       16384 / 16},
      // 33 wanted, 32 given (256 x 4 bytes / 32).
      {exe.get(), DType::F32, 8192, 16384, "inner_sum_k0_cs_i32", 32, 8192 / 8},
      {exe.get(), DType::F32, 262144, 1024, "inner_sum_k0_cs_i32", 2, 0},
      // One thread per row: never.
      {exe.get(), DType::F32, 1 << 20, 64, "inner_sum_k0_cs_i32", 2, 0},
      // 5 wanted.
      {exe.get(), DType::F32, 65536, 64, "inner_sum_k0_cs_i32", 4, 0},
      // 2^31 elements: the 64-bit scalar variant, 33 wanted, 16 given.
      {exe.get(), DType::F32, 8192, 262144, "inner_sum_k0_s_i64", 16, 0},
      // bf16: at most 256 x 2 / 32 = 16 threads, so 16 rows of a block
      // span a 32-byte sector.
      {bf16.get(), DType::BF16, 8192, 16384, "rowsum_bf16_k0_cs_i32", 16,
       8192 / 16},
      // inner-columns=0: 9 wanted, 16 given.
      {noColumns.get(), DType::F32, 32768, 4096, "inner_sum_k0_s_i32", 16,
       32768 / 16},
  };
  for (const Case &c : cases) {
    SCOPED_TRACE(std::string(c.variant) + " " + std::to_string(c.rows) + "x" +
                 std::to_string(c.cols));
    auto config = rowLaunch(*c.exe, c.dtype, c.rows, c.cols, true, &name);
    ASSERT_TRUE(config);
    EXPECT_EQ(name, c.variant);
    EXPECT_EQ(lastIntParam(*config), c.threads);
    EXPECT_EQ(config->block[0], 256u);
    if (c.grid)
      EXPECT_EQ(config->grid[0], c.grid);
  }
  // Row-major: the vectorized variant, a row per block group as before.
  auto config = rowLaunch(*exe, DType::F32, 32768, 4096, false, &name);
  ASSERT_TRUE(config);
  EXPECT_NE(name, "inner_sum_k0_cs_i32");
  EXPECT_NE(name, "inner_sum_k0_s_i32");
  EXPECT_GE(lastIntParam(*config), 32);

  // Per-element results (Note [Column-major rows with per-element
  // results]): softmax over a transposed bf16 input takes the column
  // variant too, 8 threads per row, its tile static (no dynamic shared
  // memory); without it the persistent scalar variant keeps a warp or more
  // per row; row-major rows keep the persistent vectorized variant.
  auto softmax = compileExample("normalization/softmax");
  ASSERT_TRUE(softmax);
  // The column variant's launch over transposed bf16 rows: threads per row,
  // block and grid.
  auto expectColumn = [&](int64_t rows, int64_t cols, int64_t perRow,
                          unsigned block, unsigned grid) {
    SCOPED_TRACE(std::to_string(rows) + "x" + std::to_string(cols));
    config = rowLaunch(*softmax, DType::BF16, rows, cols, true, &name);
    ASSERT_TRUE(config);
    EXPECT_EQ(name, "softmax_k0_cs_i32");
    EXPECT_EQ(lastIntParam(*config), perRow);
    EXPECT_EQ(config->block[0], block);
    EXPECT_EQ(config->grid[0], grid);
  };
  expectColumn(32768, 4096, 8, 256, 32768 / 32);
  EXPECT_EQ(config->dynamicSmem, 0u);
  auto softmaxOff = compileExample("normalization/softmax", &off);
  ASSERT_TRUE(softmaxOff);
  config = rowLaunch(*softmaxOff, DType::BF16, 32768, 4096, true, &name);
  ASSERT_TRUE(config);
  EXPECT_EQ(name, "softmax_k0_ps_i32");
  EXPECT_GE(lastIntParam(*config), 32);
  // Only where the column variant's blocks fill the SMs (2112 / 16 = 132
  // blocks of 16 rows): 2113 rows take 133, 2096 would take 131 and keep
  // a block per row. So few blocks of 16 rows (at most 2112 / 8) take
  // 512 threads, 32 per row (Note [Column blocks of few rows]).
  expectColumn(2113, 4096, 32, 512, 133);
  expectColumn(4096, 50257, 32, 512, 256);
  // 512 blocks of 16 rows keep 256 threads, 16 per row.
  expectColumn(8192, 16384, 16, 256, 512);
  config = rowLaunch(*softmax, DType::BF16, 2096, 4096, true, &name);
  ASSERT_TRUE(config);
  EXPECT_EQ(name, "softmax_k0_ps_i32");
  // ... and where rows get 8 threads or more: 65536 rows would get 4.
  config = rowLaunch(*softmax, DType::BF16, 65536, 1024, true, &name);
  ASSERT_TRUE(config);
  EXPECT_EQ(name, "softmax_k0_ps_i32");
  config = rowLaunch(*softmax, DType::BF16, 33792, 1024, true, &name);
  ASSERT_TRUE(config);
  EXPECT_EQ(name, "softmax_k0_cs_i32");
  EXPECT_EQ(lastIntParam(*config), 8);
  config = rowLaunch(*softmax, DType::BF16, 32768, 4096, false, &name);
  ASSERT_TRUE(config);
  EXPECT_EQ(name, "softmax_k0_pv8_i32");
  EXPECT_GE(lastIntParam(*config), 32);
}

// The plan's grid, block, dynamic shared memory and packed parameters (with
// this call's pointers patched in) are what cuLaunchKernelEx gets.
TEST_F(FakeDriver, LaunchParametersReachTheDriver) {
  auto exe = compileExample("normalization/softmax");
  ASSERT_TRUE(exe);
  Tensor2D x(8192, 16384);
  const uintptr_t input = 0x100000;
  auto call = Call::make(*exe, {x.arg(input, DType::BF16)});
  ASSERT_TRUE(call);
  const EvaluatedPlan &plan = call->plan;
  ASSERT_EQ(plan.launches.size(), 1u);
  const LaunchConfig &config = plan.launches[0];
  // As PipelineTest's InnerReductionHeuristicTable has it (the long
  // persistent variant: 256 threads x 128 staged bytes).
  EXPECT_EQ(config.block[0], 256u);
  EXPECT_EQ(config.dynamicSmem, 32768u);

  for (void *stream : {kStream1, kStream2, static_cast<void *>(nullptr)}) {
    fake().reset();
    Status status = call->run(*exe, stream);
    ASSERT_TRUE(status.ok()) << status.toString();
    std::vector<FakeCudaLaunch> launches = fake().launches();
    ASSERT_EQ(launches.size(), 1u);
    const FakeCudaLaunch &launch = launches[0];
    EXPECT_STREQ(launch.function,
                 exe->info().kernels[config.kernel].name.c_str());
    EXPECT_STREQ(launch.function, "softmax_k0_plv8_i32");
    for (int d = 0; d < 3; ++d) {
      EXPECT_EQ(launch.grid[d], config.grid[d]) << d;
      EXPECT_EQ(launch.block[d], config.block[d]) << d;
    }
    EXPECT_EQ(launch.grid[0], 2112u);
    EXPECT_EQ(launch.block[0], 256u);
    EXPECT_EQ(launch.sharedMemBytes, 32768u);
    EXPECT_EQ(launch.stream, stream);
    EXPECT_EQ(launch.numAttrs, 0u);
    // Below the default 48 KiB: no attribute needed.
    EXPECT_EQ(count("cuFuncSetAttribute"), 0);

    // The buffer the PTX entry declares, with the input and the output
    // pointers patched in and everything else as planned.
    ASSERT_EQ(launch.paramSize, config.params.size());
    EXPECT_EQ(int64_t(launch.paramSize), launch.ptxParamSize);
    std::vector<uint8_t> expected = config.params;
    int32_t numInputs = static_cast<int32_t>(call->inputs.size());
    int pointers = 0;
    for (const ParamField &field : config.fields) {
      if (field.kind != ParamKind::Pointer)
        continue;
      ASSERT_EQ(field.size, 8u);
      uint64_t pointer = 0;
      if (field.value < numInputs) {
        pointer = reinterpret_cast<uint64_t>(call->inputs[field.value].data);
      } else {
        int32_t buffer = field.value - numInputs;
        ASSERT_EQ(buffer, plan.outputBuffers[0]) << "an unexpected buffer";
        pointer = reinterpret_cast<uint64_t>(call->outputs[0].data);
      }
      std::memcpy(expected.data() + field.offset, &pointer, 8);
      ++pointers;
    }
    EXPECT_GE(pointers, 2);
    EXPECT_EQ(
        std::vector<uint8_t>(launch.params, launch.params + launch.paramSize),
        expected);
    uint64_t first = 0;
    std::memcpy(&first, launch.params, 8);
    EXPECT_EQ(first, input);
  }
}

/// The inputs of makeAxpyModule's fusion: a and b of `*size` floats at
/// fixed fake addresses (the arrays must outlive the call), alpha = 2.
std::vector<Argument> axpyInputs(int64_t *size, int64_t *stride) {
  return {Argument::tensor(reinterpret_cast<void *>(0x100000), DType::F32, size,
                           1, stride),
          Argument::tensor(reinterpret_cast<void *>(0x900000), DType::F32, size,
                           1, stride),
          Argument::floatScalar(2.0, DType::F32)};
}

// Above 48 KiB of dynamic shared memory a kernel needs its limit raised
// (once per kernel and context); clusters and cooperative launches are
// launch attributes.
TEST_F(FakeDriver, LargeDynamicSmemClustersAndCooperativeLaunches) {
  // The GPU tests' module (TestModule.h): its second launch has a
  // clustered variant with 64 KiB of dynamic shared memory for large n and
  // a cooperative one otherwise.
  fusion::runtime::testing::TestModule m =
      fusion::runtime::testing::makeAxpyModule();
  auto exe = fusion::runtime::testing::load(m);
  ASSERT_TRUE(exe);

  int64_t largeSize[1] = {1 << 20}, smallSize[1] = {1000}, stride[1] = {1};
  auto big = Call::make(*exe, axpyInputs(largeSize, stride));
  auto small = Call::make(*exe, axpyInputs(smallSize, stride));
  ASSERT_TRUE(big && small);

  ASSERT_TRUE(big->run(*exe, kStream1).ok());
  EXPECT_EQ(count("cuFuncSetAttribute"), 1);
  // Note [Cluster residency]: asked once per launch shape.
  EXPECT_EQ(count("cuOccupancyMaxActiveClusters"), 1);
  std::vector<FakeCudaLaunch> launches = fake().launches();
  ASSERT_EQ(launches.size(), 2u);
  EXPECT_EQ(launches[0].sharedMemBytes, 0u);
  EXPECT_EQ(launches[0].numAttrs, 0u);
  EXPECT_EQ(launches[1].sharedMemBytes, 64u * 1024);
  EXPECT_EQ(launches[1].numAttrs, 1u);
  EXPECT_EQ(launches[1].clusterDim[0], 2u);
  EXPECT_EQ(launches[1].clusterDim[1], 1u);
  EXPECT_EQ(launches[1].clusterDim[2], 1u);
  EXPECT_EQ(launches[1].grid[0], 4096u);
  EXPECT_EQ(launches[1].cooperative, 0);
  for (const FakeCudaLaunch &launch : launches) {
    EXPECT_EQ(launch.paramSize, 36u);
    EXPECT_EQ(launch.ptxParamSize, 36);
  }
  // The zero_init intermediate (not kept_zero) is zeroed every call.
  EXPECT_EQ(count("cuMemsetD8Async"), 1);

  fake().reset();
  ASSERT_TRUE(big->run(*exe, kStream1).ok());
  EXPECT_EQ(count("cuFuncSetAttribute"), 0);
  EXPECT_EQ(count("cuOccupancyMaxActiveClusters"), 0);
  EXPECT_EQ(count("cuMemsetD8Async"), 1);
  EXPECT_EQ(count("cuLaunchKernelEx"), 2);

  fake().reset();
  ASSERT_TRUE(small->run(*exe, kStream1).ok());
  EXPECT_EQ(count("cuFuncSetAttribute"), 0);
  launches = fake().launches();
  ASSERT_EQ(launches.size(), 2u);
  EXPECT_EQ(launches[1].sharedMemBytes, 0u);
  EXPECT_EQ(launches[1].numAttrs, 1u);
  EXPECT_EQ(launches[1].cooperative, 1);
  EXPECT_EQ(launches[1].clusterDim[0], 0u);
  EXPECT_EQ(launches[1].grid[0], 4u);
}

// Note [Cluster residency]: a clustered launch shape of which no cluster
// can be resident is refused before anything is launched, naming the
// shape; clusters of more than 8 blocks get the non-portable attribute.
TEST_F(FakeDriver, ClusterResidencyAndNonPortableClusters) {
  fusion::runtime::testing::TestModule m =
      fusion::runtime::testing::makeAxpyModule();
  int64_t size[1] = {1 << 20}, stride[1] = {1};
  auto inputs = [&] { return axpyInputs(size, stride); };
  {
    auto exe = fusion::runtime::testing::load(m);
    ASSERT_TRUE(exe);
    auto call = Call::make(*exe, inputs());
    ASSERT_TRUE(call);
    fake().setMaxActiveClusters(0);
    Status status = call->run(*exe, kStream1);
    ASSERT_FALSE(status.ok());
    EXPECT_EQ(status.code(), ErrorCode::InvalidLaunchValue);
    EXPECT_EQ(status.message(),
              "launch 1 (kernel axpy_f32): no cluster of 2x1x1 blocks of 256 "
              "threads with 65536 bytes of dynamic shared memory each can be "
              "resident on this device");
    EXPECT_EQ(count("cuLaunchKernelEx"), 0);
  }
  fake().reset();
  // 16 blocks a cluster, the grid rounded up to whole clusters.
  int32_t sixteen = m.constant(16);
  int32_t grid =
      m.expr(fb::ExprOp::CeilDiv, m.inputSize(0, 0), m.constant(256));
  m.launches[1][0].grid[0] = m.expr(
      fb::ExprOp::Mul, m.expr(fb::ExprOp::CeilDiv, grid, sixteen), sixteen);
  m.launches[1][0].cluster[0] = sixteen;
  auto exe = fusion::runtime::testing::load(m);
  ASSERT_TRUE(exe);
  auto call = Call::make(*exe, inputs());
  ASSERT_TRUE(call);
  ASSERT_TRUE(call->run(*exe, kStream1).ok());
  // The dynamic shared memory limit and the non-portable cluster size.
  EXPECT_EQ(count("cuFuncSetAttribute"), 2);
  std::vector<FakeCudaLaunch> launches = fake().launches();
  ASSERT_EQ(launches.size(), 2u);
  EXPECT_EQ(launches[1].clusterDim[0], 16u);
  EXPECT_EQ(launches[1].grid[0], 4096u);
}

// Note [Tensor maps]: the map is encoded with cuTensorMapEncodeTiled after
// the buffers exist, once while the pointer stays the same, and passed by
// value at its offset in the parameters; a call the rules refuse (a row of
// 4004 bytes) takes the plain variant and encodes nothing.
TEST_F(FakeDriver, TensorMapsAreEncodedPerPointer) {
  auto exe = fusion::runtime::testing::load(
      fusion::runtime::testing::makeTensorMapModule());
  ASSERT_TRUE(exe);
  int64_t sizes[2] = {100, 64}, strides[2] = {64, 1};
  auto callAt = [&](uintptr_t address) {
    return Call::make(*exe, {Argument::tensor(reinterpret_cast<void *>(address),
                                              DType::F32, sizes, 2, strides)});
  };
  auto first = callAt(0x100000);
  ASSERT_TRUE(first);
  ASSERT_TRUE(first->run(*exe, kStream1).ok());
  EXPECT_EQ(count("cuTensorMapEncodeTiled"), 1);
  std::vector<FakeCudaLaunch> launches = fake().launches();
  ASSERT_EQ(launches.size(), 1u);
  EXPECT_STREQ(launches[0].function, "tile_tma");
  ASSERT_EQ(launches[0].paramSize, 200u);
  EXPECT_EQ(launches[0].ptxParamSize, 200);
  // Note [Parameters by pointer]: one pointer per parameter, so that the
  // driver places the map where the compiled kernel reads it.
  EXPECT_EQ(launches[0].byPointer, 1);
  FakeCudaTensorMap map;
  std::memcpy(&map, launches[0].params + 64, sizeof(map));
  EXPECT_EQ(map.address, 0x100000u);
  EXPECT_EQ(map.dtype, static_cast<uint32_t>(CU_TENSOR_MAP_DATA_TYPE_FLOAT32));
  EXPECT_EQ(map.rank, 2u);
  EXPECT_EQ(map.dims[0], 64u); // innermost first
  EXPECT_EQ(map.dims[1], 100u);
  EXPECT_EQ(map.strides[0], 256u); // bytes
  EXPECT_EQ(map.box[0], 64u);
  EXPECT_EQ(map.box[1], 8u);
  EXPECT_EQ(map.swizzle, static_cast<uint32_t>(CU_TENSOR_MAP_SWIZZLE_NONE));
  uint64_t out = 0;
  std::memcpy(&out, launches[0].params, 8);
  EXPECT_NE(out, 0u); // the runtime's output allocation

  // The same pointer: the map is reused.
  fake().reset();
  ASSERT_TRUE(first->run(*exe, kStream1).ok());
  EXPECT_EQ(count("cuTensorMapEncodeTiled"), 0);
  std::memcpy(&map, fake().launches()[0].params + 64, sizeof(map));
  EXPECT_EQ(map.address, 0x100000u);

  // Another pointer, the same signature: encoded again.
  auto second = callAt(0x200000);
  ASSERT_TRUE(second);
  fake().reset();
  ASSERT_TRUE(second->run(*exe, kStream1).ok());
  EXPECT_EQ(count("cuTensorMapEncodeTiled"), 1);
  std::memcpy(&map, fake().launches()[0].params + 64, sizeof(map));
  EXPECT_EQ(map.address, 0x200000u);

  // A driver failure is a typed error naming the map.
  fake().reset();
  auto third = callAt(0x300000);
  ASSERT_TRUE(third);
  fake().failNext("cuTensorMapEncodeTiled", CUDA_ERROR_INVALID_VALUE);
  Status failed = third->run(*exe, kStream1);
  EXPECT_EQ(failed.code(), ErrorCode::CudaError);
  EXPECT_NE(failed.message().find("cuTensorMapEncodeTiled for tensor map 0"),
            std::string::npos)
      << failed.message();
  EXPECT_EQ(count("cuLaunchKernelEx"), 0);

  // Rows of 4004 bytes: the plain variant, no map.
  sizes[1] = 1001;
  strides[0] = 1001;
  auto plain = callAt(0x100000);
  ASSERT_TRUE(plain);
  fake().reset();
  ASSERT_TRUE(plain->run(*exe, kStream1).ok());
  EXPECT_EQ(count("cuTensorMapEncodeTiled"), 0);
  EXPECT_STREQ(fake().launches()[0].function, "tile");
  EXPECT_EQ(fake().launches()[0].byPointer, 0); // the packed buffer
}

// Note [Parameters by pointer] in a launch graph: the kernel nodes of a
// plan with tensor maps take their parameters as pointers too, when the
// graph is built and when a call with another pointer updates them.
TEST_F(FakeDriver, TensorMapsReachGraphNodesByPointer) {
  auto exe = fusion::runtime::testing::load(
      fusion::runtime::testing::makeTensorMapModule(/*launches=*/2));
  ASSERT_TRUE(exe);
  int64_t sizes[2] = {100, 64}, strides[2] = {64, 1};
  auto callAt = [&](uintptr_t address) {
    return Call::make(*exe, {Argument::tensor(reinterpret_cast<void *>(address),
                                              DType::F32, sizes, 2, strides)});
  };
  for (uintptr_t address : {0x100000u, 0x100000u, 0x200000u}) {
    fake().reset();
    auto call = callAt(address);
    ASSERT_TRUE(call);
    ASSERT_TRUE(call->run(*exe, kStream1).ok());
    std::vector<FakeCudaLaunch> launches = fake().launches();
    ASSERT_EQ(launches.size(), 2u);
    for (const FakeCudaLaunch &launch : launches) {
      EXPECT_STREQ(launch.function, "tile_tma");
      EXPECT_EQ(launch.byPointer, 1);
      FakeCudaTensorMap map;
      std::memcpy(&map, launch.params + 64, sizeof(map));
      EXPECT_EQ(map.address, address);
      EXPECT_EQ(map.dims[1], 100u);
    }
  }
  LaunchGraphStats stats = exe->launchGraphStats();
  EXPECT_EQ(stats.launches, 2u);    // the second and third calls
  EXPECT_EQ(stats.nodeUpdates, 2u); // the third call's new map, per node
}

// A host program that maps its input for a kernel's bulk copies (the
// lowered form a scheduler would write): a guarded launch of the kernel
// that takes the map, and the plain kernel as its fallback.
constexpr const char *kTensorMapProgram = R"mlir(
module attributes {gpu.container_module} {
  fusion.fusion @tile_copy(%x: tensor<?x?xf32> {fusion.name = "x"}) -> tensor<?x?xf32> {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c128 = arith.constant 128 : index
    %m = fusion.dim %x, 0 : tensor<?x?xf32>
    %n = fusion.dim %x, 1 : tensor<?x?xf32>
    %out = fusion.empty(%m, %n) : tensor<?x?xf32>
    %map = fusion.tensor_map %x box [8, 64] : tensor<?x?xf32> -> !llvm.ptr
    fusion.launch @tma::@load_tile if(%c1) grid(%m, %c1, %c1) block(%c128, %c1, %c1) smem(%c0) args(%map, %out, %n) {param_types = [!llvm.ptr, memref<?xf32>, i64]} : !llvm.ptr, tensor<?x?xf32>, index
    fusion.launch @plain::@copy grid(%m, %c1, %c1) block(%c128, %c1, %c1) smem(%c0) args(%x, %out, %n) {param_types = [memref<?xf32>, memref<?xf32>, i64]} : tensor<?x?xf32>, tensor<?x?xf32>, index
    fusion.return %out : tensor<?x?xf32>
  }
  gpu.module @tma {
    gpu.func @load_tile(%map: !llvm.ptr, %out: memref<?xf32>, %n: i64) workgroup(%tile : memref<8x64xf32, #gpu.address_space<workgroup>> {llvm.align = 128 : i64}, %bars : memref<1xi64, #gpu.address_space<workgroup>>) kernel attributes {fusion.tensor_maps = 1 : i64} {
      %c0 = arith.constant 0 : index
      %zero = arith.constant 0 : i32
      %one = arith.constant 1 : i32
      %bytes = arith.constant 2048 : i32
      fusion.mbarrier_init %bars[%c0], %one : memref<1xi64, #gpu.address_space<workgroup>>
      fusion.fence_async_shared
      gpu.barrier
      fusion.mbarrier_arrive_expect_tx %bars[%c0], %bytes : memref<1xi64, #gpu.address_space<workgroup>>
      fusion.bulk_tensor_load %map [%zero, %zero] to %tile, %bars[%c0] : !llvm.ptr, memref<8x64xf32, #gpu.address_space<workgroup>>, memref<1xi64, #gpu.address_space<workgroup>>
      fusion.mbarrier_wait %bars[%c0], %zero : memref<1xi64, #gpu.address_space<workgroup>>
      %v = memref.load %tile[%c0, %c0] : memref<8x64xf32, #gpu.address_space<workgroup>>
      memref.store %v, %out[%c0] : memref<?xf32>
      gpu.return
    }
  }
  gpu.module @plain {
    gpu.func @copy(%x: memref<?xf32>, %out: memref<?xf32>, %n: i64) kernel {
      %c0 = arith.constant 0 : index
      %v = memref.load %x[%c0] : memref<?xf32>
      memref.store %v, %out[%c0] : memref<?xf32>
      gpu.return
    }
  }
}
)mlir";

// The compiler's half of Note [Tensor maps]: fusion.tensor_map becomes a
// TensorMapSpec of the input's sizes and strides (format 3), the kernel's
// parameter a 128-byte grid constant (--fusion-tensor-map-params); the
// runtime encodes the map and passes it where the PTX expects it.
TEST_F(FakeDriver, CompiledTensorMapsReachTheKernel) {
  mlir::DialectRegistry registry;
  mlir::fusion::registerAllDialects(registry);
  mlir::fusion::registerAllPasses();
  mlir::MLIRContext context(registry);
  context.loadAllAvailableDialects();
  auto module =
      mlir::parseSourceString<mlir::ModuleOp>(kTensorMapProgram, &context);
  ASSERT_TRUE(module);
  mlir::PassManager pm(&context);
  ASSERT_TRUE(mlir::succeeded(mlir::parsePassPipeline(
      "fusion-lower-kernel-ops,gpu.module(convert-scf-to-cf,"
      "convert-gpu-to-nvvm,fusion-tensor-map-params,convert-nvvm-to-llvm,"
      "reconcile-unrealized-casts),nvvm-attach-target{chip=sm_90a},"
      "gpu-module-to-binary{format=isa}",
      pm)));
  ASSERT_TRUE(mlir::succeeded(pm.run(*module)));
  mlir::fusion::ModuleWriterOptions options;
  options.emitCubin = false;
  mlir::FailureOr<std::string> bytes =
      mlir::fusion::writeModuleFile(*module, "", "", options);
  ASSERT_TRUE(mlir::succeeded(bytes));
  auto loaded = Executable::load(bytes->data(), bytes->size());
  ASSERT_TRUE(loaded.ok()) << loaded.status().toString();
  std::unique_ptr<Executable> exe = std::move(loaded.value());
  EXPECT_EQ(exe->info().version, 3u);

  int64_t sizes[2] = {100, 64}, strides[2] = {64, 1};
  auto call =
      Call::make(*exe, {Argument::tensor(reinterpret_cast<void *>(0x100000),
                                         DType::F32, sizes, 2, strides)});
  ASSERT_TRUE(call);
  ASSERT_TRUE(call->run(*exe, kStream1).ok());
  EXPECT_EQ(count("cuTensorMapEncodeTiled"), 1);
  std::vector<FakeCudaLaunch> launches = fake().launches();
  ASSERT_EQ(launches.size(), 1u);
  EXPECT_STREQ(launches[0].function, "load_tile");
  // The map, then the output's memref descriptor (5 words), then n.
  EXPECT_EQ(launches[0].paramSize, 128u + 5 * 8 + 8);
  EXPECT_EQ(launches[0].ptxParamSize,
            static_cast<int64_t>(launches[0].paramSize));
  EXPECT_EQ(launches[0].byPointer, 1);
  FakeCudaTensorMap map;
  std::memcpy(&map, launches[0].params, sizeof(map));
  EXPECT_EQ(map.address, 0x100000u);
  EXPECT_EQ(map.dtype, static_cast<uint32_t>(CU_TENSOR_MAP_DATA_TYPE_FLOAT32));
  EXPECT_EQ(map.rank, 2u);
  EXPECT_EQ(map.dims[0], 64u);
  EXPECT_EQ(map.dims[1], 100u);
  EXPECT_EQ(map.strides[0], 256u);
  EXPECT_EQ(map.box[0], 64u);
  EXPECT_EQ(map.box[1], 8u);

  // Rows of 1001 floats break the rules: the plain kernel.
  int64_t oddSizes[2] = {100, 1001}, oddStrides[2] = {1001, 1};
  auto odd =
      Call::make(*exe, {Argument::tensor(reinterpret_cast<void *>(0x100000),
                                         DType::F32, oddSizes, 2, oddStrides)});
  ASSERT_TRUE(odd);
  fake().reset();
  ASSERT_TRUE(odd->run(*exe, kStream1).ok());
  EXPECT_EQ(count("cuTensorMapEncodeTiled"), 0);
  ASSERT_EQ(fake().launches().size(), 1u);
  EXPECT_STREQ(fake().launches()[0].function, "copy");
}

// Destroying an executable frees its stream workspaces (after a context
// synchronization) and unloads its modules.
TEST_F(FakeDriver, DestroyingAnExecutableFreesWorkspacesAndModules) {
  size_t modulesBefore = fake().liveModules();
  auto exe = compileSource(kColsum);
  ASSERT_TRUE(exe);
  Tensor2D x(32768, 1024);
  auto call = Call::make(*exe, {x.arg(0x100000, DType::F32)});
  ASSERT_TRUE(call);
  size_t allocationsBefore = fake().liveAllocations();
  ASSERT_TRUE(call->run(*exe, kStream1).ok());
  ASSERT_TRUE(call->run(*exe, kStream2).ok());
  EXPECT_EQ(fake().liveAllocations(), allocationsBefore + 2);
  // The modules of the kernels the plan launched (Note [Kernels on first
  // use]).
  EXPECT_EQ(fake().liveModules(),
            modulesBefore + static_cast<size_t>(call->kernelsLaunched()));

  fake().reset();
  exe.reset();
  EXPECT_EQ(fake().liveAllocations(), allocationsBefore);
  EXPECT_EQ(fake().liveModules(), modulesBefore);
  EXPECT_GE(count("cuCtxSynchronize"), 1);
  EXPECT_EQ(count("cuMemFreeAsync"), 2);
  // The caller's context is current again.
  CUcontext current = nullptr;
  ASSERT_EQ(fake().ctxGetCurrent(&current), CUDA_SUCCESS);
  EXPECT_NE(current, nullptr);
}

// Without a current context the runtime makes device 0's primary context
// current (once); later calls find it current.
TEST_F(FakeDriver, NoCurrentContextMakesThePrimaryContextCurrent) {
  auto exe = compileExample("add_relu");
  ASSERT_TRUE(exe);
  Tensor2D t(64, 64);
  auto call = Call::make(
      *exe, {t.arg(0x100000, DType::F32), t.arg(0x200000, DType::F32)});
  ASSERT_TRUE(call);
  CUcontext original = nullptr;
  ASSERT_EQ(fake().ctxGetCurrent(&original), CUDA_SUCCESS);
  ASSERT_NE(original, nullptr);
  ASSERT_EQ(fake().ctxSetCurrent(nullptr), CUDA_SUCCESS);

  fake().reset();
  Status status = call->run(*exe, kStream1);
  ASSERT_TRUE(status.ok()) << status.toString();
  EXPECT_EQ(count("cuCtxGetCurrent"), 1);
  EXPECT_EQ(count("cuCtxSetCurrent"), 1);
  EXPECT_LE(count("cuDevicePrimaryCtxRetain"), 1);
  CUcontext current = nullptr;
  ASSERT_EQ(fake().ctxGetCurrent(&current), CUDA_SUCCESS);
  EXPECT_EQ(current, original); // the fake's only context is the primary one

  fake().reset();
  ASSERT_TRUE(call->run(*exe, kStream1).ok());
  EXPECT_EQ(count("cuCtxGetCurrent"), 1);
  EXPECT_EQ(count("cuCtxSetCurrent"), 0);
  EXPECT_EQ(count("cuDevicePrimaryCtxRetain"), 0);
}

//===----------------------------------------------------------------------===//
// Launch graphs (Note [Launch graphs] in Executable.cpp)
//===----------------------------------------------------------------------===//

/// The launches recorded since the last reset, as (function, parameters,
/// whether a graph launched it).
struct Recorded {
  std::string function;
  std::vector<uint8_t> params;
  bool graph;
  bool operator==(const Recorded &o) const {
    return function == o.function && params == o.params;
  }
};
std::vector<Recorded> recorded() {
  std::vector<Recorded> out;
  for (const FakeCudaLaunch &l : fake().launches())
    out.push_back({l.function,
                   std::vector<uint8_t>(l.params, l.params + l.paramSize),
                   l.graph != 0});
  return out;
}

/// outer_center at `address` (1000x1000 f32): two launches per call, a
/// reduction into a workspace and the element-wise step after it.
std::unique_ptr<Call> outerCenterCall(Executable &exe, uintptr_t address) {
  static const Tensor2D square(1000, 1000);
  auto call = Call::make(exe, {square.arg(address, DType::F32),
                               Argument::floatScalar(1000, DType::F32)});
  EXPECT_TRUE(call && call->graphed());
  return call;
}

// A plan of two launches: the first call launches kernel by kernel, the
// second builds one graph (a node per launch, in order, with the same
// parameters), and later calls with the same pointers replay it untouched.
TEST_F(FakeDriver, MultiLaunchPlansReplayOneGraph) {
  auto exe = compileSource(fusion::testing::kOuterCenterSource);
  ASSERT_TRUE(exe);
  auto call = outerCenterCall(*exe, 0x100000);
  ASSERT_TRUE(call);
  size_t launches = call->launchesPerRun();
  size_t graphsBefore = fake().liveGraphs();

  ASSERT_TRUE(call->run(*exe, kStream1).ok());
  std::vector<Recorded> direct = recorded();
  ASSERT_EQ(direct.size(), launches);
  EXPECT_EQ(count("cuLaunchKernelEx"), int64_t(launches));
  EXPECT_EQ(count("cuGraphCreate"), 0);
  for (const Recorded &r : direct)
    EXPECT_FALSE(r.graph);

  fake().reset();
  ASSERT_TRUE(call->run(*exe, kStream1).ok());
  EXPECT_EQ(count("cuLaunchKernelEx"), 0);
  EXPECT_EQ(count("cuGraphCreate"), 1);
  EXPECT_EQ(count("cuGraphAddKernelNode_v2"), int64_t(launches));
  EXPECT_EQ(count("cuGraphInstantiateWithFlags"), 1);
  EXPECT_EQ(count("cuGraphLaunch"), 1);
  std::vector<Recorded> graphed = recorded();
  EXPECT_EQ(graphed, direct);
  for (const Recorded &r : graphed)
    EXPECT_TRUE(r.graph);
  for (const FakeCudaLaunch &l : fake().launches())
    EXPECT_EQ(l.stream, kStream1);
  // The graph and its executable graph.
  EXPECT_EQ(fake().liveGraphs(), graphsBefore + 2);

  fake().reset();
  ASSERT_TRUE(call->run(*exe, kStream1).ok());
  EXPECT_EQ(count("cuGraphLaunch"), 1);
  EXPECT_EQ(count("cuGraphExecKernelNodeSetParams_v2"), 0);
  EXPECT_EQ(count("cuGraphCreate"), 0);
  EXPECT_EQ(recorded(), direct);

  LaunchGraphStats stats = exe->launchGraphStats();
  EXPECT_EQ(stats.built, 1u);
  EXPECT_EQ(stats.launches, 2u);
  EXPECT_EQ(stats.nodeUpdates, 0u);
  EXPECT_EQ(stats.direct, 1u);
  EXPECT_EQ(stats.entries, 1u);

  // Destroying the executable destroys its graphs.
  exe.reset();
  EXPECT_EQ(fake().liveGraphs(), graphsBefore);
}

// A call with other pointers updates, before the graph launch, exactly the
// nodes whose parameters changed, to what a direct launch would pass.
TEST_F(FakeDriver, NewPointersUpdateTheNodesThatUseThem) {
  auto exe = compileSource(fusion::testing::kOuterCenterSource);
  ASSERT_TRUE(exe);
  auto a = outerCenterCall(*exe, 0x100000);
  auto b = outerCenterCall(*exe, 0x40000000);
  ASSERT_TRUE(a && b);

  // What each call's launches get, kernel by kernel.
  exe->setLaunchGraphs(false);
  ASSERT_TRUE(a->run(*exe, kStream1).ok());
  ASSERT_TRUE(a->run(*exe, kStream1).ok());
  fake().reset();
  ASSERT_TRUE(a->run(*exe, kStream1).ok());
  std::vector<Recorded> directA = recorded();
  fake().reset();
  ASSERT_TRUE(b->run(*exe, kStream1).ok());
  std::vector<Recorded> directB = recorded();
  EXPECT_EQ(count("cuGraphCreate"), 0);
  EXPECT_EQ(count("cuStreamIsCapturing"), 0);
  ASSERT_EQ(directA.size(), directB.size());
  int64_t differing = 0;
  for (size_t n = 0; n < directA.size(); ++n)
    differing += directA[n].params != directB[n].params;
  // Both kernels read or write a pointer that moved.
  EXPECT_EQ(differing, int64_t(directA.size()));

  exe->setLaunchGraphs(true);
  ASSERT_TRUE(a->run(*exe, kStream1).ok());
  ASSERT_TRUE(a->run(*exe, kStream1).ok());
  ASSERT_EQ(exe->launchGraphStats().built, 1u);

  fake().reset();
  ASSERT_TRUE(b->run(*exe, kStream1).ok());
  EXPECT_EQ(count("cuGraphExecKernelNodeSetParams_v2"), differing);
  EXPECT_EQ(count("cuGraphLaunch"), 1);
  EXPECT_EQ(count("cuGraphCreate"), 0);
  EXPECT_EQ(recorded(), directB);

  fake().reset();
  ASSERT_TRUE(b->run(*exe, kStream1).ok());
  EXPECT_EQ(count("cuGraphExecKernelNodeSetParams_v2"), 0);
  EXPECT_EQ(recorded(), directB);

  fake().reset();
  ASSERT_TRUE(a->run(*exe, kStream1).ok());
  EXPECT_EQ(count("cuGraphExecKernelNodeSetParams_v2"), differing);
  EXPECT_EQ(recorded(), directA);
  EXPECT_EQ(exe->launchGraphStats().nodeUpdates, uint64_t(2 * differing));

  // A node update the driver refuses: this call and later ones launch
  // kernel by kernel, with the right parameters.
  fake().reset();
  fake().failNext("cuGraphExecKernelNodeSetParams_v2",
                  CUDA_ERROR_NOT_SUPPORTED);
  ASSERT_TRUE(b->run(*exe, kStream1).ok());
  EXPECT_EQ(count("cuGraphLaunch"), 0);
  EXPECT_EQ(count("cuLaunchKernelEx"), int64_t(directB.size()));
  EXPECT_EQ(recorded(), directB);
  EXPECT_EQ(exe->launchGraphStats().entries, 0u);
  fake().reset();
  ASSERT_TRUE(a->run(*exe, kStream1).ok());
  EXPECT_EQ(count("cuGraphLaunch"), 0);
  EXPECT_EQ(count("cuGraphCreate"), 0);
  EXPECT_EQ(recorded(), directA);
}

// Each stream has its own graph; a stream being captured gets the kernels
// themselves (they go into the caller's graph), and no graph of ours.
TEST_F(FakeDriver, GraphsPerStreamAndNoneWhileCapturing) {
  auto exe = compileSource(fusion::testing::kOuterCenterSource);
  ASSERT_TRUE(exe);
  auto call = outerCenterCall(*exe, 0x100000);
  ASSERT_TRUE(call);
  size_t launches = call->launchesPerRun();
  for (void *stream : {kStream1, kStream2})
    for (int i = 0; i < 3; ++i)
      ASSERT_TRUE(call->run(*exe, stream).ok());
  LaunchGraphStats stats = exe->launchGraphStats();
  EXPECT_EQ(stats.built, 2u);
  EXPECT_EQ(stats.entries, 2u);
  EXPECT_EQ(stats.launches, 4u);

  fake().reset();
  fake().setCapturing(kStream1, 1);
  for (int i = 0; i < 3; ++i)
    ASSERT_TRUE(call->run(*exe, kStream1).ok());
  EXPECT_EQ(count("cuGraphLaunch"), 0);
  EXPECT_EQ(count("cuGraphCreate"), 0);
  EXPECT_EQ(count("cuLaunchKernelEx"), int64_t(3 * launches));
  for (const FakeCudaLaunch &l : fake().launches())
    EXPECT_EQ(l.stream, kStream1);
  // The stream captured no longer: its graph again.
  fake().setCapturing(kStream1, 0);
  fake().reset();
  ASSERT_TRUE(call->run(*exe, kStream1).ok());
  EXPECT_EQ(count("cuGraphLaunch"), 1);
  EXPECT_EQ(count("cuGraphCreate"), 0);
  EXPECT_EQ(exe->launchGraphStats().direct, 2u + 3u);
}

// A graph the driver refuses to build or instantiate: the call and later
// ones on that stream launch kernel by kernel, and nothing leaks. A failed
// graph launch is the call's error and its counters are zeroed again.
TEST_F(FakeDriver, RefusedGraphsLaunchKernelByKernel) {
  auto exe = compileSource(fusion::testing::kOuterCenterSource);
  ASSERT_TRUE(exe);
  auto call = outerCenterCall(*exe, 0x100000);
  ASSERT_TRUE(call);
  size_t launches = call->launchesPerRun();
  size_t graphsBefore = fake().liveGraphs();
  for (const char *refused :
       {"cuGraphAddKernelNode_v2", "cuGraphInstantiateWithFlags"}) {
    SCOPED_TRACE(refused);
    exe->clearCache();
    ASSERT_TRUE(call->run(*exe, kStream1).ok());
    fake().reset();
    fake().failNext(refused, CUDA_ERROR_NOT_SUPPORTED);
    Status status = call->run(*exe, kStream1);
    ASSERT_TRUE(status.ok()) << status.toString();
    EXPECT_EQ(count(refused), 1);
    EXPECT_EQ(count("cuGraphLaunch"), 0);
    EXPECT_EQ(count("cuLaunchKernelEx"), int64_t(launches));
    EXPECT_EQ(fake().liveGraphs(), graphsBefore);
    fake().reset();
    ASSERT_TRUE(call->run(*exe, kStream1).ok());
    EXPECT_EQ(count("cuGraphCreate"), 0);
    EXPECT_EQ(count("cuLaunchKernelEx"), int64_t(launches));
  }

  exe->clearCache();
  ASSERT_TRUE(call->run(*exe, kStream1).ok());
  ASSERT_TRUE(call->run(*exe, kStream1).ok());
  ASSERT_EQ(exe->launchGraphStats().entries, 1u);
  fake().reset();
  fake().failNext("cuGraphLaunch", CUDA_ERROR_LAUNCH_FAILED);
  Status status = call->run(*exe, kStream1);
  EXPECT_EQ(status.code(), ErrorCode::CudaError);
  EXPECT_NE(status.message().find("cuGraphLaunch"), std::string::npos)
      << status.toString();
  EXPECT_NE(status.message().find("CUDA_ERROR_LAUNCH_FAILED"),
            std::string::npos)
      << status.toString();
  fake().reset();
  ASSERT_TRUE(call->run(*exe, kStream1).ok());
  EXPECT_EQ(count("cuGraphLaunch"), 1);
}

// Graphs go with their plans: clearCache and turning graphs off destroy
// them; at most 64 are kept, the least recently used going first; plans of
// one launch never have one; FUSION_LAUNCH_GRAPHS=0 at load turns them off.
TEST_F(FakeDriver, GraphsGoWithTheirPlans) {
  auto exe = compileSource(fusion::testing::kOuterCenterSource);
  ASSERT_TRUE(exe);
  auto call = outerCenterCall(*exe, 0x100000);
  ASSERT_TRUE(call);
  size_t graphsBefore = fake().liveGraphs();
  ASSERT_TRUE(call->run(*exe, kStream1).ok());
  ASSERT_TRUE(call->run(*exe, kStream1).ok());
  EXPECT_EQ(fake().liveGraphs(), graphsBefore + 2);
  exe->clearCache();
  EXPECT_EQ(fake().liveGraphs(), graphsBefore);
  EXPECT_EQ(exe->launchGraphStats().entries, 0u);

  ASSERT_TRUE(call->run(*exe, kStream1).ok());
  ASSERT_TRUE(call->run(*exe, kStream1).ok());
  exe->setLaunchGraphs(false);
  EXPECT_EQ(fake().liveGraphs(), graphsBefore);
  fake().reset();
  ASSERT_TRUE(call->run(*exe, kStream1).ok());
  EXPECT_EQ(count("cuGraphLaunch"), 0);
  exe->setLaunchGraphs(true);

  // 70 streams, two calls each: 64 graphs kept; the oldest were destroyed.
  fake().reset();
  for (uintptr_t s = 0; s < 70; ++s) {
    void *stream = reinterpret_cast<void *>(0x10000 + 0x100 * s);
    ASSERT_TRUE(call->run(*exe, stream).ok());
    ASSERT_TRUE(call->run(*exe, stream).ok());
  }
  EXPECT_EQ(count("cuGraphCreate"), 70);
  EXPECT_EQ(exe->launchGraphStats().entries, 64u);
  EXPECT_EQ(fake().liveGraphs(), graphsBefore + 2 * 64);
  EXPECT_EQ(count("cuGraphExecDestroy"), 6);
  // The newest are still there: a call on the last stream replays.
  fake().reset();
  ASSERT_TRUE(
      call->run(*exe, reinterpret_cast<void *>(0x10000 + 0x100 * 69)).ok());
  EXPECT_EQ(count("cuGraphLaunch"), 1);
  EXPECT_EQ(count("cuGraphCreate"), 0);
  exe.reset();
  EXPECT_EQ(fake().liveGraphs(), graphsBefore);

  // One launch per call: no graph, not even a capture query.
  auto single = compileExample("add_relu");
  ASSERT_TRUE(single);
  Tensor2D t(64, 64);
  auto one = Call::make(
      *single, {t.arg(0x100000, DType::F32), t.arg(0x200000, DType::F32)});
  ASSERT_TRUE(one);
  ASSERT_EQ(one->launchesPerRun(), 1u);
  for (int i = 0; i < 3; ++i)
    ASSERT_TRUE(one->run(*single, kStream1).ok());
  EXPECT_EQ(count("cuGraphCreate"), 0);
  EXPECT_EQ(count("cuStreamIsCapturing"), 0);
  EXPECT_EQ(single->launchGraphStats().direct, 0u);

  ASSERT_EQ(setenv("FUSION_LAUNCH_GRAPHS", "0", 1), 0);
  auto off = compileSource(fusion::testing::kOuterCenterSource);
  ASSERT_EQ(unsetenv("FUSION_LAUNCH_GRAPHS"), 0);
  ASSERT_TRUE(off);
  auto offCall = outerCenterCall(*off, 0x100000);
  ASSERT_TRUE(offCall);
  fake().reset();
  for (int i = 0; i < 3; ++i)
    ASSERT_TRUE(offCall->run(*off, kStream1).ok());
  EXPECT_EQ(count("cuGraphCreate"), 0);
  EXPECT_EQ(count("cuLaunchKernelEx"), int64_t(3 * offCall->launchesPerRun()));
  EXPECT_EQ(off->launchGraphStats().direct, 3u);
}

// The hand-written chain of the GPU tests (TestModule.h) runs as a graph:
// K kernel nodes in launch order.
TEST_F(FakeDriver, AxpyChainRunsAsOneGraph) {
  auto exe = fusion::runtime::testing::load(
      fusion::runtime::testing::makeAxpyChainModule(5));
  ASSERT_TRUE(exe);
  int64_t n = 5000, stride = 1;
  std::vector<Argument> inputs = {
      Argument::tensor(reinterpret_cast<void *>(0x100000), DType::F32, &n, 1,
                       &stride),
      Argument::tensor(reinterpret_cast<void *>(0x200000), DType::F32, &n, 1,
                       &stride),
      Argument::floatScalar(0.5, DType::F32)};
  auto call = Call::make(*exe, inputs);
  ASSERT_TRUE(call);
  ASSERT_TRUE(call->graphed());
  for (int i = 0; i < 3; ++i)
    ASSERT_TRUE(call->run(*exe, kStream1).ok());
  EXPECT_EQ(count("cuGraphAddKernelNode_v2"), 5);
  EXPECT_EQ(count("cuGraphLaunch"), 2);
  EXPECT_EQ(count("cuLaunchKernelEx"), 5);
  std::vector<FakeCudaLaunch> launches = fake().launches();
  ASSERT_EQ(launches.size(), 15u);
  for (size_t l = 0; l < 15; ++l) {
    EXPECT_EQ(launches[l].graph, l >= 5 ? 1 : 0) << l;
    EXPECT_EQ(launches[l].paramSize, 36u);
    EXPECT_EQ(launches[l].grid[0], 20u);
  }
}

// The C API's switch and counters.
TEST_F(FakeDriver, LaunchGraphsThroughTheCApi) {
  std::string bytes =
      fusion::testing::compileBytes(fusion::testing::kOuterCenterSource);
  ASSERT_FALSE(bytes.empty());
  fusion_executable *exe = nullptr;
  ASSERT_EQ(fusion_executable_load(bytes.data(), bytes.size(), &exe), FUSION_OK)
      << fusion_last_error_message();
  int64_t sizes[2] = {1000, 1000}, strides[2] = {1000, 1};
  fusion_arg args[2] = {};
  args[0].kind = FUSION_ARG_TENSOR;
  args[0].dtype = FUSION_DTYPE_F32;
  args[0].data = reinterpret_cast<void *>(0x100000);
  args[0].rank = 2;
  args[0].sizes = sizes;
  args[0].strides = strides;
  args[1].kind = FUSION_ARG_SCALAR;
  args[1].dtype = FUSION_DTYPE_F32;
  args[1].float_value = 1000;
  DeviceMemory out(1000 * 1000 * 4);
  fusion_tensor result = {};
  ASSERT_EQ(fusion_executable_infer_outputs(exe, args, 2, &result, 1),
            FUSION_OK);
  result.data = out.get();
  for (int i = 0; i < 3; ++i)
    ASSERT_EQ(fusion_executable_run(exe, args, 2, &result, 1, kStream1),
              FUSION_OK)
        << fusion_last_error_message();
  fusion_graph_stats stats = {};
  ASSERT_EQ(fusion_executable_graph_stats(exe, &stats), FUSION_OK);
  EXPECT_EQ(stats.built, 1u);
  EXPECT_EQ(stats.launches, 2u);
  EXPECT_EQ(stats.direct, 1u);
  EXPECT_EQ(stats.entries, 1u);
  ASSERT_EQ(fusion_executable_set_launch_graphs(exe, 0), FUSION_OK);
  ASSERT_EQ(fusion_executable_graph_stats(exe, &stats), FUSION_OK);
  EXPECT_EQ(stats.entries, 0u);
  EXPECT_EQ(fusion_executable_graph_stats(exe, nullptr),
            FUSION_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(fusion_executable_set_launch_graphs(nullptr, 1),
            FUSION_ERROR_INVALID_ARGUMENT);
  fusion_executable_destroy(exe);
}

//===----------------------------------------------------------------------===//
// Deferred kernels (Note [Deferred kernels] in lib/Target/Compile.cpp)
//===----------------------------------------------------------------------===//

/// The module file of examples/<name>.mlir compiled with `mode` (PTX only).
std::string compileDeferred(const std::string &name,
                            mlir::fusion::DeferKernels mode) {
  mlir::fusion::CompileOptions options;
  options.emitCubin = false;
  options.deferKernels = mode;
  return fusion::testing::compileBytes(fusion::testing::readExample(name), true,
                                       &options);
}

/// A module file's bytes loaded (null, with a test failure, when they do
/// not load).
std::unique_ptr<Executable> loadModule(const std::string &bytes) {
  auto loaded = Executable::load(bytes.data(), bytes.size());
  EXPECT_TRUE(loaded.ok()) << loaded.status().toString();
  return loaded.ok() ? std::move(loaded.value()) : nullptr;
}

/// The compiler as the process's kernel builder, counting its calls; with a
/// cache when given one. Removed again when it goes out of scope.
struct CompilerAsBuilder {
  int calls = 0;
  int cacheHits = 0;
  std::vector<std::string> kernels;
  explicit CompilerAsBuilder(
      const mlir::fusion::CompileCache *cache = nullptr) {
    setKernelBuilder([this, cache](const void *module, size_t size,
                                   const std::string &kernel,
                                   std::string &built) -> Status {
      ++calls;
      kernels.push_back(kernel);
      mlir::DialectRegistry registry;
      mlir::fusion::registerAllDialects(registry);
      mlir::MLIRContext context(registry);
      std::string error;
      bool hit = false;
      mlir::FailureOr<std::string> bytes = mlir::fusion::buildDeferredKernel(
          &context, llvm::StringRef(static_cast<const char *>(module), size),
          kernel, cache, error, &hit);
      if (mlir::failed(bytes))
        return Status(ErrorCode::KernelNotBuilt, error);
      cacheHits += hit;
      built = std::move(*bytes);
      return Status::success();
    });
  }
  ~CompilerAsBuilder() { setKernelBuilder(nullptr); }
};

/// Kernel `name`'s fields in a module file.
const fb::Kernel *kernelIn(const std::string &bytes, const std::string &name) {
  const fb::Module *module = fb::GetModule(bytes.data());
  if (!module->kernels())
    return nullptr;
  for (const fb::Kernel *kernel : *module->kernels())
    if (kernel->name() && kernel->name()->str() == name)
      return kernel;
  return nullptr;
}

// A module compiled with every kernel deferred holds the launch plan and no
// code; a launch builds the kernel it needs (once), another shape the one it
// needs, and without a builder the launch is a typed error naming the
// kernel, before anything reaches the driver.
TEST_F(FakeDriver, DeferredKernelsAreBuiltWhenALaunchFirstNeedsThem) {
  std::string bytes =
      compileDeferred("normalization/softmax", mlir::fusion::DeferKernels::All);
  ASSERT_FALSE(bytes.empty());
  std::unique_ptr<Executable> exe = loadModule(bytes);
  ASSERT_TRUE(exe);
  EXPECT_EQ(exe->info().version, 4u);
  ASSERT_GE(exe->info().kernels.size(), 7u);
  for (size_t k = 0; k < exe->info().kernels.size(); ++k) {
    EXPECT_TRUE(exe->info().kernels[k].deferred) << k;
    EXPECT_EQ(exe->info().kernels[k].ptxSize, 0u) << k;
    EXPECT_FALSE(exe->kernelBuilt(k)) << k;
  }

  Tensor2D aligned(64, 1024), odd(64, 1001);
  auto call = Call::make(*exe, {aligned.arg(0x100000, DType::BF16)});
  ASSERT_TRUE(call);
  int32_t kernel = call->plan.launches[0].kernel;
  EXPECT_EQ(exe->info().kernels[kernel].name, "softmax_k0_pv8_i32");

  ASSERT_FALSE(hasKernelBuilder());
  Status status = call->run(*exe, kStream1);
  EXPECT_EQ(status.code(), ErrorCode::KernelNotBuilt);
  EXPECT_NE(status.message().find("kernel softmax_k0_pv8_i32 is deferred"),
            std::string::npos)
      << status.message();
  EXPECT_EQ(count("cuModuleLoadData"), 0);
  EXPECT_EQ(count("cuLaunchKernelEx"), 0);

  CompilerAsBuilder builder;
  for (int i = 0; i < 3; ++i) {
    status = call->run(*exe, kStream1);
    ASSERT_TRUE(status.ok()) << status.toString();
  }
  EXPECT_EQ(builder.calls, 1);
  EXPECT_EQ(builder.kernels, std::vector<std::string>{"softmax_k0_pv8_i32"});
  EXPECT_EQ(count("cuModuleLoadData"), 1);
  EXPECT_EQ(count("cuLaunchKernelEx"), 3);
  std::vector<FakeCudaLaunch> launches = fake().launches();
  ASSERT_EQ(launches.size(), 3u);
  EXPECT_STREQ(launches[0].function, "softmax_k0_pv8_i32");
  // The fake read the entry's parameter list from the built PTX.
  EXPECT_EQ(launches[0].ptxParamSize,
            static_cast<int64_t>(launches[0].paramSize));
  EXPECT_TRUE(exe->kernelBuilt(kernel));
  EXPECT_EQ(exe->kernelsBuiltSinceLoad(), 1u);

  // Rows of 1001 elements take the ragged variant: built now, and only it.
  auto other = Call::make(*exe, {odd.arg(0x100000, DType::BF16)});
  ASSERT_TRUE(other);
  int32_t ragged = other->plan.launches[0].kernel;
  EXPECT_EQ(exe->info().kernels[ragged].name, "softmax_k0_prv8_i32");
  status = other->run(*exe, kStream1);
  ASSERT_TRUE(status.ok()) << status.toString();
  EXPECT_EQ(builder.calls, 2);
  EXPECT_EQ(exe->kernelsBuiltSinceLoad(), 2u);
  size_t built = 0;
  for (size_t k = 0; k < exe->info().kernels.size(); ++k)
    built += exe->kernelBuilt(k);
  EXPECT_EQ(built, 2u);
}

// Threads that launch the same executable at once build a deferred kernel
// once: the build runs under the executable's lock, and the others find
// the code when they get it.
TEST_F(FakeDriver, ConcurrentLaunchesBuildADeferredKernelOnce) {
  std::string bytes =
      compileDeferred("normalization/softmax", mlir::fusion::DeferKernels::All);
  ASSERT_FALSE(bytes.empty());
  std::unique_ptr<Executable> exe = loadModule(bytes);
  ASSERT_TRUE(exe);
  Tensor2D x(64, 1024);
  std::vector<std::unique_ptr<Call>> calls;
  for (int t = 0; t < 4; ++t) {
    calls.push_back(Call::make(*exe, {x.arg(0x100000, DType::BF16)}));
    ASSERT_TRUE(calls.back());
  }
  CompilerAsBuilder builder;
  std::vector<Status> results(calls.size());
  std::vector<std::thread> threads;
  for (size_t t = 0; t < calls.size(); ++t)
    threads.emplace_back(
        [&, t] { results[t] = calls[t]->run(*exe, kStream1); });
  for (std::thread &thread : threads)
    thread.join();
  for (const Status &status : results)
    EXPECT_TRUE(status.ok()) << status.toString();
  EXPECT_EQ(builder.calls, 1);
  EXPECT_EQ(exe->kernelsBuiltSinceLoad(), 1u);
  EXPECT_EQ(count("cuModuleLoadData"), 1);
  EXPECT_EQ(count("cuLaunchKernelEx"), 4);
}

// The C API's side: a C builder reports through its result callback, and
// fusion_executable_kernel_built follows the builds.
int cBuilder(void *user, const void *module, size_t size, const char *kernel,
             void *result, fusion_kernel_build_result setResult) {
  ++*static_cast<int *>(user);
  mlir::DialectRegistry registry;
  mlir::fusion::registerAllDialects(registry);
  mlir::MLIRContext context(registry);
  std::string error;
  mlir::FailureOr<std::string> bytes = mlir::fusion::buildDeferredKernel(
      &context, llvm::StringRef(static_cast<const char *>(module), size),
      kernel, nullptr, error);
  if (mlir::failed(bytes)) {
    setResult(result, 0, error.data(), error.size());
    return 1;
  }
  setResult(result, 1, bytes->data(), bytes->size());
  return 0;
}

int failingCBuilder(void *, const void *, size_t, const char *, void *result,
                    fusion_kernel_build_result setResult) {
  const char message[] = "out of luck";
  setResult(result, 0, message, sizeof(message) - 1);
  return 1;
}

// A module file whose stored definition holds a list that MLIR's linalg
// parser crashes on (Note [Integer lists]): building a kernel from it fails
// with the refusal, without parsing (this test crashed before the check).
TEST(DeferredKernels, RefusedDefinitionIsNotParsed) {
  std::string bytes =
      compileDeferred("normalization/softmax", mlir::fusion::DeferKernels::All);
  ASSERT_FALSE(bytes.empty());
  size_t at = bytes.find("fusion.fusion @softmax");
  ASSERT_NE(at, std::string::npos);
  const std::string bad = "linalg.reduce dimensions=[?] //";
  bytes.replace(at, bad.size(), bad);
  mlir::DialectRegistry registry;
  mlir::fusion::registerAllDialects(registry);
  mlir::MLIRContext context(registry);
  std::string error;
  mlir::FailureOr<std::string> built = mlir::fusion::buildDeferredKernel(
      &context, bytes, "softmax_k0_pv8_i32", nullptr, error);
  EXPECT_TRUE(mlir::failed(built));
  EXPECT_NE(error.find("the module file's definition is refused: expected an "
                       "integer in the 'dimensions' list"),
            std::string::npos)
      << error;
}

TEST_F(FakeDriver, KernelBuildersThroughTheCApi) {
  std::string bytes =
      compileDeferred("normalization/softmax", mlir::fusion::DeferKernels::All);
  ASSERT_FALSE(bytes.empty());
  fusion_executable *exe = nullptr;
  ASSERT_EQ(fusion_executable_load(bytes.data(), bytes.size(), &exe),
            FUSION_OK);
  int64_t sizes[2] = {64, 1024}, strides[2] = {1024, 1};
  fusion_arg arg = {};
  arg.kind = FUSION_ARG_TENSOR;
  arg.dtype = FUSION_DTYPE_BF16;
  arg.data = reinterpret_cast<void *>(0x100000);
  arg.rank = 2;
  arg.sizes = sizes;
  arg.strides = strides;
  DeviceMemory out(64 * 1024 * 2);
  fusion_tensor result = {};
  ASSERT_EQ(fusion_executable_infer_outputs(exe, &arg, 1, &result, 1),
            FUSION_OK);
  result.data = out.get();
  int kernels = fusion_executable_num_kernels(exe);
  ASSERT_GE(kernels, 7);
  EXPECT_EQ(fusion_executable_kernel_built(exe, 0), 0);
  EXPECT_EQ(fusion_executable_kernel_built(exe, kernels), -1);
  EXPECT_EQ(fusion_executable_kernel_built(exe, -1), -1);
  EXPECT_EQ(fusion_executable_kernel_built(nullptr, 0), -1);

  fusion_set_kernel_builder(failingCBuilder, nullptr);
  EXPECT_EQ(fusion_executable_run(exe, &arg, 1, &result, 1, kStream1),
            FUSION_ERROR_KERNEL_NOT_BUILT);
  EXPECT_NE(std::string(fusion_last_error_message()).find("out of luck"),
            std::string::npos)
      << fusion_last_error_message();
  EXPECT_STREQ(fusion_error_code_name(FUSION_ERROR_KERNEL_NOT_BUILT),
               "KernelNotBuilt");

  int calls = 0;
  fusion_set_kernel_builder(cBuilder, &calls);
  for (int i = 0; i < 2; ++i)
    ASSERT_EQ(fusion_executable_run(exe, &arg, 1, &result, 1, kStream1),
              FUSION_OK)
        << fusion_last_error_message();
  EXPECT_EQ(calls, 1);
  int built = 0;
  for (int k = 0; k < kernels; ++k)
    built += fusion_executable_kernel_built(exe, k);
  EXPECT_EQ(built, 1);
  fusion_set_kernel_builder(nullptr, nullptr);
  EXPECT_FALSE(hasKernelBuilder());
  fusion_executable_destroy(exe);
}

// What the builder makes is byte for byte what a compile without deferral
// makes, for every variant; `fallbacks` defers exactly the kernels only
// fallback launches use.
TEST_F(FakeDriver, DeferredKernelsEqualACompleteCompile) {
  for (const char *name : {"normalization/softmax", "add_relu"}) {
    mlir::fusion::CompileOptions options;
    options.emitCubin = false;
    std::string complete = fusion::testing::compileBytes(
        fusion::testing::readExample(name), true, &options);
    std::string lazy = compileDeferred(name, mlir::fusion::DeferKernels::All);
    ASSERT_FALSE(complete.empty());
    ASSERT_FALSE(lazy.empty());
    EXPECT_LT(lazy.size(), complete.size()) << name;
    const fb::Module *full = fb::GetModule(complete.data());
    ASSERT_TRUE(full->kernels());
    for (const fb::Kernel *kernel : *full->kernels()) {
      std::string kernelName = kernel->name()->str();
      ASSERT_TRUE(kernelIn(lazy, kernelName)) << kernelName;
      EXPECT_TRUE(kernelIn(lazy, kernelName)->deferred()) << kernelName;
      mlir::DialectRegistry registry;
      mlir::fusion::registerAllDialects(registry);
      mlir::MLIRContext context(registry);
      std::string error;
      mlir::FailureOr<std::string> built = mlir::fusion::buildDeferredKernel(
          &context, lazy, kernelName, nullptr, error);
      ASSERT_TRUE(mlir::succeeded(built)) << kernelName << ": " << error;
      const fb::Kernel *mine = kernelIn(*built, kernelName);
      ASSERT_TRUE(mine && mine->ptx()) << kernelName;
      EXPECT_FALSE(mine->deferred()) << kernelName;
      EXPECT_EQ(mine->ptx()->str(), kernel->ptx()->str()) << kernelName;
      // Built again: it is not deferred any more.
      mlir::FailureOr<std::string> again = mlir::fusion::buildDeferredKernel(
          &context, *built, kernelName, nullptr, error);
      EXPECT_TRUE(mlir::failed(again));
      EXPECT_NE(error.find("is not deferred"), std::string::npos) << error;
    }
  }

  std::string fallbacks = compileDeferred(
      "normalization/softmax", mlir::fusion::DeferKernels::Fallbacks);
  ASSERT_FALSE(fallbacks.empty());
  std::vector<std::string> deferred, built;
  for (const fb::Kernel *kernel : *fb::GetModule(fallbacks.data())->kernels())
    (kernel->deferred() ? deferred : built).push_back(kernel->name()->str());
  EXPECT_EQ(built, (std::vector<std::string>{"softmax_k0_pv8_i32",
                                             "softmax_k0_v8_i32"}));
  // Every other kernel (ragged, persistent scalar, scalar ones) waits.
  EXPECT_EQ(deferred.size() + 2,
            fusion::testing::compileSource(
                fusion::testing::readExample("normalization/softmax"))
                ->info()
                .kernels.size());
  EXPECT_TRUE(llvm::is_contained(deferred, "softmax_k0_s_i64"));
  EXPECT_TRUE(llvm::is_contained(deferred, "softmax_k0_prv8_i32"));
}

// A builder that fails, or returns a file that is not the module, is a
// KernelNotBuilt error; the executable keeps working for kernels it has.
TEST_F(FakeDriver, KernelBuilderFailuresAreTypedErrors) {
  std::string bytes = compileDeferred("normalization/softmax",
                                      mlir::fusion::DeferKernels::Fallbacks);
  ASSERT_FALSE(bytes.empty());
  std::unique_ptr<Executable> exe = loadModule(bytes);
  ASSERT_TRUE(exe);
  Tensor2D aligned(64, 1024), odd(64, 1001);
  auto expected = Call::make(*exe, {aligned.arg(0x100000, DType::BF16)});
  auto fallback = Call::make(*exe, {odd.arg(0x100000, DType::BF16)});
  ASSERT_TRUE(expected && fallback);

  std::string other =
      fusion::testing::compileBytes(fusion::testing::readExample("add_relu"));
  // The same fusion and kernels, compiled for another SM count: another
  // launch plan (as a compiler of another version might make).
  mlir::fusion::CompileOptions otherOptions;
  otherOptions.emitCubin = false;
  otherOptions.smCount = 100;
  otherOptions.deferKernels = mlir::fusion::DeferKernels::Fallbacks;
  std::string otherPlan = fusion::testing::compileBytes(
      fusion::testing::readExample("normalization/softmax"), true,
      &otherOptions);
  {
    mlir::DialectRegistry registry;
    mlir::fusion::registerAllDialects(registry);
    mlir::MLIRContext context(registry);
    std::string error;
    mlir::FailureOr<std::string> built = mlir::fusion::buildDeferredKernel(
        &context, otherPlan, "softmax_k0_prv8_i32", nullptr, error);
    ASSERT_TRUE(mlir::succeeded(built)) << error;
    otherPlan = *built;
  }
  // What the builder returns (none: an error), and what the launch says.
  struct Case {
    std::optional<std::string> returned;
    const char *message;
  } cases[] = {
      {std::nullopt,
       "building deferred kernel softmax_k0_prv8_i32: no compiler today"},
      {std::string("not a module"),
       "returned an invalid module for softmax_k0_prv8_i32"},
      {other, "returned another module for softmax_k0_prv8_i32"},
      // The same file: the kernel is still deferred.
      {bytes, "did not build kernel softmax_k0_prv8_i32"},
      {otherPlan, "has another launch plan than this one"},
  };
  for (const Case &c : cases) {
    setKernelBuilder(
        [&](const void *, size_t, const std::string &, std::string &out) {
          if (!c.returned)
            return Status(ErrorCode::InvalidArgument, "no compiler today");
          out = *c.returned;
          return Status::success();
        });
    Status status = fallback->run(*exe, kStream1);
    EXPECT_EQ(status.code(), ErrorCode::KernelNotBuilt) << c.message;
    EXPECT_NE(status.message().find(c.message), std::string::npos)
        << status.message();
    // The expected variant was built at compile time: it runs.
    status = expected->run(*exe, kStream1);
    EXPECT_TRUE(status.ok()) << status.toString();
  }
  setKernelBuilder(nullptr);
  EXPECT_EQ(exe->kernelsBuiltSinceLoad(), 0u);
}

// The builder stores what it built under the key of the compile that made
// the file: the next compile of the fusion (another process, here another
// context) gets the module with that kernel built.
/// A compile cache in a folder of its own, emptied and removed at the end.
struct ScratchCache {
  llvm::SmallString<128> dir;
  bool made = false;
  mlir::fusion::CompileCache cache{mlir::fusion::CompileCacheConfig()};
  ScratchCache() {
    made = !llvm::sys::fs::createUniqueDirectory("fusion-deferred", dir);
    mlir::fusion::CompileCacheConfig config;
    config.directory = dir.str().str();
    config.compilerId = "test";
    cache = mlir::fusion::CompileCache(config);
  }
  ~ScratchCache() {
    if (!made)
      return;
    // clear() leaves the usage ledger (Note [Cache usage ledger]).
    llvm::sys::fs::remove_directories(dir);
  }
};

TEST_F(FakeDriver, BuiltKernelsReachTheCompileCache) {
  ScratchCache scratch;
  ASSERT_TRUE(scratch.made);
  mlir::fusion::CompileCache &cache = scratch.cache;
  std::string source = fusion::testing::readExample("normalization/softmax");
  auto compile = [&](mlir::fusion::CompileCacheReport &report) {
    mlir::fusion::CompileOptions options;
    options.emitCubin = false;
    options.deferKernels = mlir::fusion::DeferKernels::All;
    return fusion::testing::compileBytes(source, true, &options, "", &cache,
                                         &report);
  };
  // Runs `bytes` on 64 rows of each length with the compiler as the
  // builder (and this cache); (builder calls, cache hits among them).
  auto runRows = [&](const std::string &bytes,
                     std::vector<int64_t> lengths) -> std::pair<int, int> {
    std::unique_ptr<Executable> exe = loadModule(bytes);
    if (!exe)
      return {-1, -1};
    CompilerAsBuilder builder(&cache);
    for (int64_t length : lengths) {
      Tensor2D x(64, length);
      auto call = Call::make(*exe, {x.arg(0x100000, DType::BF16)});
      EXPECT_TRUE(call);
      if (!call)
        return {-1, -1};
      Status status = call->run(*exe, kStream1);
      EXPECT_TRUE(status.ok()) << status.toString();
    }
    return {builder.calls, builder.cacheHits};
  };
  mlir::fusion::CompileCacheReport report;
  std::string first = compile(report);
  EXPECT_EQ(report.outcome, mlir::fusion::CompileCacheReport::Outcome::Stored);
  EXPECT_EQ(runRows(first, {1024}), std::make_pair(1, 0));
  std::string second = compile(report);
  EXPECT_EQ(report.outcome, mlir::fusion::CompileCacheReport::Outcome::Hit);
  ASSERT_TRUE(kernelIn(second, "softmax_k0_pv8_i32"));
  EXPECT_FALSE(kernelIn(second, "softmax_k0_pv8_i32")->deferred());
  EXPECT_TRUE(kernelIn(second, "softmax_k0_s_i32")->deferred());
  // One file per key: the store replaced the entry it completed.
  EXPECT_EQ(cache.list().size(), 1u);
  EXPECT_EQ(runRows(second, {1024}), std::make_pair(0, 0));
  // A process that loaded the file as it was first written (no kernel
  // built) gets the kernel from the cache, not from a compile; a kernel no
  // process built yet (ragged rows) is compiled.
  EXPECT_EQ(runRows(first, {1024, 1001}), std::make_pair(2, 1));
  // The cache's module has both now: a build keeps the kernels built
  // before.
  std::string third = compile(report);
  EXPECT_EQ(report.outcome, mlir::fusion::CompileCacheReport::Outcome::Hit);
  for (const char *name : {"softmax_k0_pv8_i32", "softmax_k0_prv8_i32"}) {
    ASSERT_TRUE(kernelIn(third, name)) << name;
    EXPECT_FALSE(kernelIn(third, name)->deferred()) << name;
  }
  EXPECT_TRUE(kernelIn(third, "softmax_k0_s_i64")->deferred());
}

// Note [Static and dynamic shared memory] (Executable.cpp): an f32 row of
// 12288 staged in shared memory is exactly 48 KiB of dynamic shared memory,
// and the kernel's block reduction has static buffers of its own, so the
// launch needs the attribute raised (on an H100 it failed with
// CUDA_ERROR_INVALID_VALUE without); a row of 8192 (32 KiB) does not.
TEST_F(FakeDriver, StaticSharedMemoryCountsAgainstTheDefaultLimit) {
  // emitCubin off: the fake reads .shared from the PTX.
  std::string bytes = fusion::testing::compileBytes(R"(
fusion.fusion @softmax_f32(%x: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %0 = fusion.softmax %x dim = 1 : tensor<?x?xf32>
  fusion.return %0 : tensor<?x?xf32>
})");
  ASSERT_FALSE(bytes.empty());
  std::unique_ptr<Executable> exe = loadModule(bytes);
  ASSERT_TRUE(exe);
  // 100 rows: more than the few long rows that take the cluster variant
  // (Note [Cluster rows]), so the staged persistent variant runs.
  auto run = [&](int64_t cols) {
    Tensor2D x(100, cols);
    auto call = Call::make(*exe, {x.arg(0x100000, DType::F32)});
    EXPECT_TRUE(call);
    if (!call)
      return;
    Status status = call->run(*exe, kStream1);
    EXPECT_TRUE(status.ok()) << status.toString();
  };
  run(8192);
  std::vector<FakeCudaLaunch> launches = fake().launches();
  ASSERT_EQ(launches.size(), 1u);
  EXPECT_EQ(launches[0].sharedMemBytes, 32u * 1024);
  EXPECT_EQ(count("cuFuncSetAttribute"), 0);
  fake().reset();
  run(12288);
  launches = fake().launches();
  ASSERT_EQ(launches.size(), 1u);
  EXPECT_EQ(launches[0].sharedMemBytes, 48u * 1024);
  EXPECT_EQ(count("cuFuncSetAttribute"), 1);
}

// fusion-run's compile: a file of several fusions, one of them named, the
// options set field by field (not parsed from a pipeline string) and cubin.
// The builder must store under the key that the next such compile looks up.
TEST_F(FakeDriver, BuiltKernelsReachTheCompileCacheOfANamedFusion) {
  ScratchCache scratch;
  ASSERT_TRUE(scratch.made);
  mlir::fusion::CompileCache &cache = scratch.cache;
  std::string source = fusion::testing::readExample("normalization/layernorm") +
                       fusion::testing::readExample("normalization/softmax");
  auto compile = [&](mlir::fusion::CompileCacheReport &report) {
    mlir::fusion::CompileOptions options;
    options.chip = "sm_90a";
    options.smCount = 132;
    options.innerStage = -1;
    options.innerCluster = 0;
    options.emitCubin = true;
    options.deferKernels = mlir::fusion::DeferKernels::All;
    return fusion::testing::compileBytes(source, true, &options, "softmax",
                                         &cache, &report);
  };
  mlir::fusion::CompileCacheReport report;
  std::string first = compile(report);
  EXPECT_EQ(report.outcome, mlir::fusion::CompileCacheReport::Outcome::Stored);
  {
    std::unique_ptr<Executable> exe = loadModule(first);
    ASSERT_TRUE(exe);
    CompilerAsBuilder builder(&cache);
    Tensor2D x(64, 1024);
    auto call = Call::make(*exe, {x.arg(0x100000, DType::BF16)});
    ASSERT_TRUE(call);
    Status status = call->run(*exe, kStream1);
    EXPECT_TRUE(status.ok()) << status.toString();
    EXPECT_EQ(builder.calls, 1);
  }
  std::string second = compile(report);
  EXPECT_EQ(report.outcome, mlir::fusion::CompileCacheReport::Outcome::Hit);
  ASSERT_TRUE(kernelIn(second, "softmax_k0_pv8_i32"));
  EXPECT_FALSE(kernelIn(second, "softmax_k0_pv8_i32")->deferred());
  EXPECT_EQ(cache.list().size(), 1u);
}

// The fake counts only its own entry points: a misspelt name is -1, not 0.
TEST_F(FakeDriver, CountsKnowTheEntryPoints) {
  EXPECT_EQ(count("cuCtxGetCurrent"), 0);
  EXPECT_EQ(count("cuCtxGetCurent"), -1);
}

} // namespace
