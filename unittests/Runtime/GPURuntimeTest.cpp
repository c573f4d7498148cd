// End-to-end tests on a real GPU: a hand-written PTX kernel run through the
// runtime (intermediates, views, variants with clusters, large dynamic shared
// memory and cooperative launch). Skipped when no CUDA device is present.
#include "TestModule.h"

#include "fusion/Runtime/Executable.h"
#include "fusion/Runtime/fusion_runtime.h"

#include <cuda.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <dlfcn.h>
#include <random>

using namespace fusion::runtime;
using namespace fusion::runtime::testing;
namespace fb = fusion::fb;

namespace {

/// The few driver calls the test itself needs to move data; the runtime has
/// its own loader.
struct TestDriver {
  decltype(&::cuInit) init = nullptr;
  decltype(&::cuDeviceGet) deviceGet = nullptr;
  decltype(&::cuDeviceGetAttribute) deviceGetAttribute = nullptr;
  decltype(&::cuDevicePrimaryCtxRetain) primaryCtxRetain = nullptr;
  decltype(&::cuCtxSetCurrent) ctxSetCurrent = nullptr;
  decltype(&::cuMemAlloc_v2) memAlloc = nullptr;
  decltype(&::cuMemFree_v2) memFree = nullptr;
  decltype(&::cuMemcpyHtoD_v2) memcpyHtoD = nullptr;
  decltype(&::cuMemcpyDtoH_v2) memcpyDtoH = nullptr;
  decltype(&::cuMemsetD32_v2) memsetD32 = nullptr;
  decltype(&::cuStreamCreate) streamCreate = nullptr;
  decltype(&::cuStreamDestroy_v2) streamDestroy = nullptr;
  decltype(&::cuCtxSynchronize) ctxSynchronize = nullptr;

  bool load() {
    void *library = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!library)
      return false;
    auto get = [&](auto &fn, const char *name) {
      fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(
          dlsym(library, name));
      return fn != nullptr;
    };
    return get(init, "cuInit") && get(deviceGet, "cuDeviceGet") &&
           get(deviceGetAttribute, "cuDeviceGetAttribute") &&
           get(primaryCtxRetain, "cuDevicePrimaryCtxRetain") &&
           get(ctxSetCurrent, "cuCtxSetCurrent") &&
           get(memAlloc, "cuMemAlloc_v2") && get(memFree, "cuMemFree_v2") &&
           get(memcpyHtoD, "cuMemcpyHtoD_v2") &&
           get(memcpyDtoH, "cuMemcpyDtoH_v2") &&
           get(memsetD32, "cuMemsetD32_v2") &&
           get(streamCreate, "cuStreamCreate") &&
           get(streamDestroy, "cuStreamDestroy_v2") &&
           get(ctxSynchronize, "cuCtxSynchronize");
  }
};

#define CU_ASSERT(call) ASSERT_EQ((call), CUDA_SUCCESS) << #call

class GPURuntimeTest : public ::testing::Test {
protected:
  void SetUp() override {
    Status status = cudaDriverStatus();
    if (!status.ok())
      GTEST_SKIP() << "no CUDA device: GPU test skipped (" << status.message()
                   << ")";
    ASSERT_TRUE(cu.load()) << "libcuda.so.1 lacks an entry point the test uses";
    // Make the primary context current first, as PyTorch would; the runtime
    // must use it.
    CUdevice device = 0;
    CU_ASSERT(cu.init(0));
    CU_ASSERT(cu.deviceGet(&device, 0));
    CUcontext context = nullptr;
    CU_ASSERT(cu.primaryCtxRetain(&context, device));
    CU_ASSERT(cu.ctxSetCurrent(context));
    useModule(makeAxpyModule());
  }

  /// Loads `module` as the executable the test runs.
  void useModule(const TestModule &module) {
    std::vector<uint8_t> bytes = module.build();
    Expected<std::unique_ptr<Executable>> loaded =
        Executable::load(bytes.data(), bytes.size());
    ASSERT_TRUE(loaded.ok()) << loaded.status().toString();
    exe = std::move(*loaded);
  }

  void TearDown() override {
    for (CUdeviceptr pointer : allocations)
      cu.memFree(pointer);
  }

  CUdeviceptr upload(const std::vector<float> &host) {
    CUdeviceptr device = 0;
    size_t bytes = std::max<size_t>(host.size(), 1) * sizeof(float);
    EXPECT_EQ(cu.memAlloc(&device, bytes), CUDA_SUCCESS);
    if (!host.empty()) {
      EXPECT_EQ(cu.memcpyHtoD(device, host.data(), host.size() * sizeof(float)),
                CUDA_SUCCESS);
    }
    allocations.push_back(device);
    return device;
  }

  std::vector<float> download(CUdeviceptr device, size_t count) {
    std::vector<float> host(count);
    if (count) {
      EXPECT_EQ(cu.memcpyDtoH(host.data(), device, count * sizeof(float)),
                CUDA_SUCCESS);
    }
    return host;
  }

  static std::vector<float> randomVector(size_t n, unsigned seed) {
    std::mt19937 random(seed);
    std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
    std::vector<float> values(n);
    for (float &v : values)
      v = uniform(random);
    return values;
  }

  /// Runs the module on random inputs of size n with runtime-allocated
  /// outputs and checks the results.
  void runAndCheck(int64_t n, CUstream stream) {
    std::vector<float> a = randomVector(n, 1), b = randomVector(n, 2);
    float alpha = 0.75f;
    CUdeviceptr da = upload(a), db = upload(b);
    std::vector<Argument> args = {
        Argument::tensor(reinterpret_cast<void *>(da), DType::F32, &n, 1),
        Argument::tensor(reinterpret_cast<void *>(db), DType::F32, &n, 1),
        Argument::floatScalar(alpha, DType::F32)};
    OutputTensor outputs[2];
    Status status = exe->run(args.data(), args.size(), outputs, 2, stream);
    ASSERT_TRUE(status.ok()) << status.toString();
    ASSERT_TRUE(synchronizeStream(stream).ok());
    EXPECT_EQ(outputs[0].allocated, n > 0 ? 1 : 0);
    EXPECT_EQ(outputs[0].rank, 1);
    EXPECT_EQ(outputs[0].sizes[0], n);
    EXPECT_EQ(outputs[1].data, reinterpret_cast<void *>(da));
    EXPECT_EQ(outputs[1].allocated, 0);
    std::vector<float> out =
        download(reinterpret_cast<CUdeviceptr>(outputs[0].data), n);
    for (int64_t i = 0; i < n; ++i) {
      float tmp = std::fma(alpha, b[i], a[i]);
      float expected = std::fma(alpha, a[i], tmp);
      ASSERT_NEAR(out[i], expected, 1e-5f) << "n = " << n << ", i = " << i;
    }
    ASSERT_TRUE(freeDeviceMemory(outputs[0].data, stream).ok());
    ASSERT_TRUE(synchronizeStream(stream).ok());
  }

  TestDriver cu;
  std::unique_ptr<Executable> exe;
  std::vector<CUdeviceptr> allocations;
};

} // namespace

TEST_F(GPURuntimeTest, RunsOnTheDefaultStream) {
  runAndCheck(1000, nullptr);
  runAndCheck(1000, nullptr); // cached plan
  PlanCacheStats stats = exe->cacheStats();
  EXPECT_EQ(stats.misses, 1u);
  EXPECT_EQ(stats.hits, 1u);
}

TEST_F(GPURuntimeTest, RunsOnAStreamWithEveryVariant) {
  CUstream stream = nullptr;
  CU_ASSERT(cu.streamCreate(&stream, CU_STREAM_NON_BLOCKING));
  for (int64_t n : std::vector<int64_t>{1, 255, 257, 4096, kAxpyLargeThreshold,
                                        kAxpyLargeThreshold + 1, 1 << 22})
    runAndCheck(n, stream);
  int64_t large = 1 << 22;
  int64_t one = 1;
  Expected<EvaluatedPlan> plan =
      exe->plan({Argument::tensor(reinterpret_cast<void *>(0x1000), DType::F32,
                                  &large, 1),
                 Argument::tensor(reinterpret_cast<void *>(0x2000), DType::F32,
                                  &large, 1),
                 Argument::floatScalar(1.0, DType::F32)});
  ASSERT_TRUE(plan.ok());
  EXPECT_TRUE(plan->launches[1].hasCluster);
  EXPECT_EQ(plan->launches[1].dynamicSmem, 64u * 1024);
  plan = exe->plan(
      {Argument::tensor(reinterpret_cast<void *>(0x1000), DType::F32, &one, 1),
       Argument::tensor(reinterpret_cast<void *>(0x2000), DType::F32, &one, 1),
       Argument::floatScalar(1.0, DType::F32)});
  ASSERT_TRUE(plan.ok());
  EXPECT_TRUE(plan->launches[1].cooperative);
  cu.streamDestroy(stream);
}

TEST_F(GPURuntimeTest, EmptyTensorsLaunchNothing) { runAndCheck(0, nullptr); }

TEST_F(GPURuntimeTest, BadInputsLaunchNothingAndLeaveOutputsUntouched) {
  int64_t n = 4096;
  std::vector<float> a = randomVector(n, 3), b = randomVector(n, 4);
  CUdeviceptr da = upload(a), db = upload(b);
  CUdeviceptr dout = upload(std::vector<float>(n));
  const unsigned kPoison = 0x7fbadbadu; // a NaN
  CU_ASSERT(cu.memsetD32(dout, kPoison, n));
  CU_ASSERT(cu.ctxSynchronize());

  auto tensor = [&](CUdeviceptr p, DType dtype, int64_t *size) {
    return Argument::tensor(reinterpret_cast<void *>(p), dtype, size, 1);
  };
  OutputTensor provided[2];
  provided[0].data = reinterpret_cast<void *>(dout);
  provided[0].dtype = DType::F32;
  provided[0].rank = 1;
  provided[0].sizes[0] = n;
  provided[0].strides[0] = 1;
  int64_t shorter = n - 1;
  struct BadCall {
    std::vector<Argument> args;
    OutputTensor out0;
    ErrorCode code;
  };
  OutputTensor wrongSize = provided[0];
  wrongSize.sizes[0] = n + 1;
  std::vector<BadCall> calls = {
      {{tensor(da, DType::F32, &n), tensor(db, DType::F16, &n),
        Argument::floatScalar(1.0, DType::F32)},
       provided[0],
       ErrorCode::WrongDType},
      {{tensor(da, DType::F32, &n), tensor(db, DType::F32, &shorter),
        Argument::floatScalar(1.0, DType::F32)},
       provided[0],
       ErrorCode::ConstraintViolation},
      {{tensor(da, DType::F32, &n), tensor(0, DType::F32, &n),
        Argument::floatScalar(1.0, DType::F32)},
       provided[0],
       ErrorCode::NullPointer},
      {{tensor(da, DType::F32, &n), tensor(db, DType::F32, &n)},
       provided[0],
       ErrorCode::WrongInputCount},
      {{tensor(da, DType::F32, &n), tensor(db, DType::F32, &n),
        Argument::floatScalar(1.0, DType::F32)},
       wrongSize,
       ErrorCode::WrongOutput},
  };
  for (BadCall &call : calls) {
    OutputTensor outputs[2] = {call.out0, OutputTensor()};
    OutputTensor before[2] = {outputs[0], outputs[1]};
    Status status =
        exe->run(call.args.data(), call.args.size(), outputs, 2, nullptr);
    EXPECT_EQ(status.code(), call.code) << status.toString();
    EXPECT_EQ(std::memcmp(before, outputs, sizeof(outputs)), 0);
  }
  CU_ASSERT(cu.ctxSynchronize());
  std::vector<float> out = download(dout, n);
  for (int64_t i = 0; i < n; ++i) {
    unsigned bits;
    std::memcpy(&bits, &out[i], 4);
    ASSERT_EQ(bits, kPoison) << "output written at " << i;
  }

  // The same output, with good inputs: written.
  std::vector<Argument> args = {tensor(da, DType::F32, &n),
                                tensor(db, DType::F32, &n),
                                Argument::floatScalar(2.0, DType::F32)};
  OutputTensor outputs[2] = {provided[0], OutputTensor()};
  Status status = exe->run(args.data(), args.size(), outputs, 2, nullptr);
  ASSERT_TRUE(status.ok()) << status.toString();
  EXPECT_EQ(outputs[0].data, reinterpret_cast<void *>(dout));
  EXPECT_EQ(outputs[0].allocated, 0);
  CU_ASSERT(cu.ctxSynchronize());
  out = download(dout, n);
  for (int64_t i = 0; i < n; ++i)
    ASSERT_NEAR(out[i], std::fma(2.0f, a[i], std::fma(2.0f, b[i], a[i])),
                1e-5f);
}

TEST_F(GPURuntimeTest, FallsBackToPtxWhenTheCubinDoesNotLoad) {
  // A well-formed ELF image (the verifier accepts it) for no SM
  // architecture: the driver refuses it, the runtime loads the PTX.
  TestModule module = makeAxpyModule();
  module.kernels[0].cubin = makeTestCubin("axpy_f32");
  ASSERT_NO_FATAL_FAILURE(useModule(module));
  runAndCheck(1000, nullptr);
}

TEST_F(GPURuntimeTest, RunsACubinFromPtxasWithoutPtx) {
  // A cubin as the compiler embeds it passes the verifier (Note [Cubin
  // checks]) and is what the driver runs: the module has no PTX.
  CUdevice device = 0;
  int major = 0, minor = 0;
  CU_ASSERT(cu.deviceGet(&device, 0));
  CU_ASSERT(cu.deviceGetAttribute(
      &major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, device));
  CU_ASSERT(cu.deviceGetAttribute(
      &minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, device));
  std::string why;
  std::vector<uint8_t> cubin = compileAxpyCubin(
      FUSION_PTXAS_EXECUTABLE,
      "sm_" + std::to_string(major) + std::to_string(minor), why);
  if (cubin.empty())
    GTEST_SKIP() << why;
  TestModule module = makeAxpyModule();
  module.kernels[0].ptx.clear();
  module.kernels[0].cubin = cubin;
  ASSERT_NO_FATAL_FAILURE(useModule(module));
  runAndCheck(1000, nullptr);
  runAndCheck(200000, nullptr); // the clustered variant
}

TEST_F(GPURuntimeTest, SteadyStateHostOverhead) {
  // The axpy module (2 launches, a zero-filled intermediate) and a variant
  // with its first launch only, writing the output directly.
  TestModule single = makeAxpyModule();
  single.launches.pop_back();
  single.launches[0][0].params[2].value = 4; // out instead of tmp
  single.buffers[0].zeroInit = false;
  std::vector<uint8_t> bytes = single.build();
  Expected<std::unique_ptr<Executable>> loaded =
      Executable::load(bytes.data(), bytes.size());
  ASSERT_TRUE(loaded.ok()) << loaded.status().toString();
  std::unique_ptr<Executable> singleExe = std::move(*loaded);

  int64_t n = 1 << 16;
  CUdeviceptr da = upload(randomVector(n, 5)), db = upload(randomVector(n, 6));
  CUdeviceptr dout = upload(std::vector<float>(n));
  std::vector<Argument> args = {
      Argument::tensor(reinterpret_cast<void *>(da), DType::F32, &n, 1),
      Argument::tensor(reinterpret_cast<void *>(db), DType::F32, &n, 1),
      Argument::floatScalar(1.0, DType::F32)};
  OutputTensor provided[2];
  provided[0].data = reinterpret_cast<void *>(dout);
  provided[0].dtype = DType::F32;
  provided[0].rank = 1;
  provided[0].sizes[0] = n;
  provided[0].strides[0] = 1;
  auto measure = [&](Executable &executable, const char *what) {
    OutputTensor outputs[2] = {provided[0], provided[1]};
    ASSERT_TRUE(executable.run(args.data(), 3, outputs, 2, nullptr).ok());
    constexpr int kCalls = 5000;
    auto start = std::chrono::steady_clock::now();
    for (int i = 0; i < kCalls; ++i) {
      outputs[0] = provided[0];
      outputs[1] = provided[1];
      Status status = executable.run(args.data(), 3, outputs, 2, nullptr);
      ASSERT_TRUE(status.ok()) << status.toString();
    }
    auto elapsed = std::chrono::steady_clock::now() - start;
    ASSERT_TRUE(synchronizeStream(nullptr).ok());
    double perCall =
        std::chrono::duration<double, std::micro>(elapsed).count() / kCalls;
    std::cout << "host time per run(), " << what << ": " << perCall << " us\n";
    EXPECT_EQ(executable.cacheStats().misses, 1u);
  };
  measure(*exe, "2 launches, zero-filled intermediate");
  measure(*singleExe, "1 launch, unused intermediate");
  // Without any intermediate: only the launch.
  single.buffers[0].sizes = {single.constant(0)};
  bytes = single.build();
  loaded = Executable::load(bytes.data(), bytes.size());
  ASSERT_TRUE(loaded.ok()) << loaded.status().toString();
  measure(**loaded, "1 launch, no intermediate");
}

namespace {

/// One packed tensor record (fusion_runtime.h, FUSION_PACKED_*), 1-D.
void packTensor(int64_t *record, int dtype, int64_t n) {
  std::fill(record, record + FUSION_PACKED_WORDS, 0);
  record[FUSION_PACKED_KIND] = FUSION_ARG_TENSOR;
  record[FUSION_PACKED_DTYPE] = dtype;
  record[FUSION_PACKED_RANK] = 1;
  record[FUSION_PACKED_SIZES] = n;
  record[FUSION_PACKED_STRIDES] = 1;
}

void packFloat(int64_t *record, int dtype, double value) {
  std::fill(record, record + FUSION_PACKED_WORDS, 0);
  record[FUSION_PACKED_KIND] = FUSION_ARG_SCALAR;
  record[FUSION_PACKED_DTYPE] = dtype;
  std::memcpy(record + FUSION_PACKED_VALUE, &value, sizeof(double));
}

struct CExecutable {
  fusion_executable *exe = nullptr;
  ~CExecutable() { fusion_executable_destroy(exe); }
};

} // namespace

TEST_F(GPURuntimeTest, PackedRunMatchesTheReference) {
  std::vector<uint8_t> bytes = makeAxpyModule().build();
  CExecutable c;
  ASSERT_EQ(fusion_executable_load(bytes.data(), bytes.size(), &c.exe),
            FUSION_OK)
      << fusion_last_error_message();
  for (int64_t n : std::vector<int64_t>{1000, kAxpyLargeThreshold + 1}) {
    std::vector<float> a = randomVector(n, 11), b = randomVector(n, 12);
    CUdeviceptr da = upload(a), db = upload(b);
    CUdeviceptr dout = upload(std::vector<float>(n));
    float alpha = 0.25f;
    int64_t records[3 * FUSION_PACKED_WORDS];
    packTensor(records, FUSION_DTYPE_F32, n);
    packTensor(records + FUSION_PACKED_WORDS, FUSION_DTYPE_F32, n);
    packFloat(records + 2 * FUSION_PACKED_WORDS, FUSION_DTYPE_F32, alpha);
    void *data[3] = {reinterpret_cast<void *>(da), reinterpret_cast<void *>(db),
                     nullptr};
    int64_t outRecords[2 * FUSION_PACKED_WORDS];
    ASSERT_EQ(
        fusion_executable_infer_packed(c.exe, data, records, 3, outRecords, 2),
        FUSION_OK)
        << fusion_last_error_message();
    EXPECT_EQ(outRecords[FUSION_PACKED_WORDS + FUSION_PACKED_ALIAS], 0);
    // Output 0 provided, output 1 (a view of a) left null.
    void *outData[2] = {reinterpret_cast<void *>(dout), nullptr};
    for (int call = 0; call < 3; ++call) {
      outData[1] = nullptr;
      ASSERT_EQ(fusion_executable_run_packed(c.exe, data, records, 3, outData,
                                             outRecords, 2, nullptr),
                FUSION_OK)
          << fusion_last_error_message();
    }
    EXPECT_EQ(outData[0], reinterpret_cast<void *>(dout));
    EXPECT_EQ(outData[1], reinterpret_cast<void *>(da));
    ASSERT_EQ(fusion_stream_synchronize(nullptr), FUSION_OK);
    std::vector<float> out = download(dout, n);
    for (int64_t i = 0; i < n; ++i)
      ASSERT_NEAR(out[i], std::fma(alpha, a[i], std::fma(alpha, b[i], a[i])),
                  1e-5f)
          << "n = " << n << ", i = " << i;

    // Runtime-allocated output 0.
    void *allocated[2] = {nullptr, nullptr};
    ASSERT_EQ(fusion_executable_run_packed(c.exe, data, records, 3, allocated,
                                           nullptr, 2, nullptr),
              FUSION_OK)
        << fusion_last_error_message();
    ASSERT_NE(allocated[0], nullptr);
    ASSERT_EQ(fusion_stream_synchronize(nullptr), FUSION_OK);
    out = download(reinterpret_cast<CUdeviceptr>(allocated[0]), n);
    EXPECT_NEAR(out[n - 1],
                std::fma(alpha, a[n - 1], std::fma(alpha, b[n - 1], a[n - 1])),
                1e-5f);
    ASSERT_EQ(fusion_free_async(allocated[0], nullptr), FUSION_OK);
  }
  fusion_cache_stats stats;
  ASSERT_EQ(fusion_executable_cache_stats(c.exe, &stats), FUSION_OK);
  EXPECT_EQ(stats.misses, 2u); // one per size; every other call hit
  EXPECT_EQ(stats.hits, 8u);
}

TEST_F(GPURuntimeTest, PackedRunBadInputsLaunchNothing) {
  std::vector<uint8_t> bytes = makeAxpyModule().build();
  CExecutable c;
  ASSERT_EQ(fusion_executable_load(bytes.data(), bytes.size(), &c.exe),
            FUSION_OK);
  int64_t n = 4096;
  CUdeviceptr da = upload(randomVector(n, 3)), db = upload(randomVector(n, 4));
  CUdeviceptr dout = upload(std::vector<float>(n));
  const unsigned kPoison = 0x7fbadbadu;
  CU_ASSERT(cu.memsetD32(dout, kPoison, n));
  CU_ASSERT(cu.ctxSynchronize());
  int64_t records[3 * FUSION_PACKED_WORDS];
  packTensor(records, FUSION_DTYPE_F32, n);
  packTensor(records + FUSION_PACKED_WORDS, FUSION_DTYPE_F16, n);
  packFloat(records + 2 * FUSION_PACKED_WORDS, FUSION_DTYPE_F32, 1.0);
  void *data[3] = {reinterpret_cast<void *>(da), reinterpret_cast<void *>(db),
                   nullptr};
  int64_t outRecords[2 * FUSION_PACKED_WORDS] = {};
  packTensor(outRecords, FUSION_DTYPE_F32, n);
  void *outData[2] = {reinterpret_cast<void *>(dout), nullptr};
  EXPECT_EQ(fusion_executable_run_packed(c.exe, data, records, 3, outData,
                                         outRecords, 2, nullptr),
            FUSION_ERROR_WRONG_DTYPE);
  EXPECT_STREQ(fusion_last_error_message(),
               "input 1 (b): expected dtype f32, got f16");
  EXPECT_EQ(outData[1], nullptr);
  CU_ASSERT(cu.ctxSynchronize());
  std::vector<float> out = download(dout, n);
  for (int64_t i = 0; i < n; ++i) {
    unsigned bits;
    std::memcpy(&bits, &out[i], 4);
    ASSERT_EQ(bits, kPoison) << "output written at " << i;
  }
}

TEST_F(GPURuntimeTest, RawLaunchFloorAndPackedHostOverhead) {
  double raw = 0;
  ASSERT_EQ(fusion_measure_raw_launch_us(5000, nullptr, &raw), FUSION_OK)
      << fusion_last_error_message();
  EXPECT_GT(raw, 0.0);
  EXPECT_LT(raw, 1000.0);
  std::cout << "raw cuLaunchKernelEx of an empty kernel: " << raw
            << " us per launch\n";

  // The single-launch axpy module through the packed entry point.
  TestModule single = makeAxpyModule();
  single.launches.pop_back();
  single.launches[0][0].params[2].value = 4;
  single.buffers[0].sizes = {single.constant(0)};
  std::vector<uint8_t> bytes = single.build();
  CExecutable c;
  ASSERT_EQ(fusion_executable_load(bytes.data(), bytes.size(), &c.exe),
            FUSION_OK);
  int64_t n = 1024;
  CUdeviceptr da = upload(randomVector(n, 5)), db = upload(randomVector(n, 6));
  CUdeviceptr dout = upload(std::vector<float>(n));
  int64_t records[3 * FUSION_PACKED_WORDS];
  packTensor(records, FUSION_DTYPE_F32, n);
  packTensor(records + FUSION_PACKED_WORDS, FUSION_DTYPE_F32, n);
  packFloat(records + 2 * FUSION_PACKED_WORDS, FUSION_DTYPE_F32, 1.0);
  void *data[3] = {reinterpret_cast<void *>(da), reinterpret_cast<void *>(db),
                   nullptr};
  int64_t outRecords[2 * FUSION_PACKED_WORDS];
  ASSERT_EQ(
      fusion_executable_infer_packed(c.exe, data, records, 3, outRecords, 2),
      FUSION_OK);
  void *outData[2] = {reinterpret_cast<void *>(dout), nullptr};
  ASSERT_EQ(fusion_executable_run_packed(c.exe, data, records, 3, outData,
                                         outRecords, 2, nullptr),
            FUSION_OK);
  constexpr int kCalls = 5000;
  auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < kCalls; ++i) {
    outData[1] = nullptr;
    ASSERT_EQ(fusion_executable_run_packed(c.exe, data, records, 3, outData,
                                           outRecords, 2, nullptr),
              FUSION_OK);
  }
  auto elapsed = std::chrono::steady_clock::now() - start;
  ASSERT_EQ(fusion_stream_synchronize(nullptr), FUSION_OK);
  double perCall =
      std::chrono::duration<double, std::micro>(elapsed).count() / kCalls;
  std::cout << "host time per fusion_executable_run_packed, 1 launch: "
            << perCall << " us (raw launch " << raw << " us)\n";
  EXPECT_LT(perCall, raw + 10.0) << "packed path far above the raw floor";
}

namespace {

/// What makeAxpyChainModule(launches) computes, as the kernels round.
std::vector<float> axpyChainReference(const std::vector<float> &a,
                                      const std::vector<float> &b, float alpha,
                                      int launches) {
  std::vector<float> x = a;
  for (int k = 0; k < launches; ++k)
    for (size_t i = 0; i < x.size(); ++i)
      x[i] = std::fma(alpha, b[i], x[i]);
  return x;
}

} // namespace

// Note [Launch graphs]: a plan of several launches runs as one graph from
// its second call on; calls with other pointers and other sizes (another
// plan) get the right results, with the nodes updated in place.
TEST_F(GPURuntimeTest, LaunchGraphsMatchKernelByKernel) {
  constexpr int kLaunches = 4;
  ASSERT_NO_FATAL_FAILURE(useModule(makeAxpyChainModule(kLaunches)));
  CUstream stream = nullptr;
  CU_ASSERT(cu.streamCreate(&stream, CU_STREAM_NON_BLOCKING));
  const float alpha = 0.5f;
  struct Set {
    int64_t n;
    std::vector<float> a, b, expected;
    CUdeviceptr da = 0, db = 0, dout = 0;
  };
  std::vector<Set> sets;
  unsigned seed = 11;
  for (int64_t n : {int64_t(1000), int64_t(1000), int64_t(77777)}) {
    Set s;
    s.n = n;
    s.a = randomVector(n, seed++);
    s.b = randomVector(n, seed++);
    s.expected = axpyChainReference(s.a, s.b, alpha, kLaunches);
    s.da = upload(s.a);
    s.db = upload(s.b);
    s.dout = upload(std::vector<float>(n, -7.0f));
    sets.push_back(std::move(s));
  }
  // Each set three times in turn, then in another order.
  const int order[] = {0, 0, 0, 1, 1, 0, 2, 2, 2, 1, 0, 2, 1};
  for (int call = 0; call < int(std::size(order)); ++call) {
    Set &s = sets[order[call]];
    ASSERT_EQ(cu.memsetD32(s.dout, 0xffc00000u, s.n), CUDA_SUCCESS);
    std::vector<Argument> args = {
        Argument::tensor(reinterpret_cast<void *>(s.da), DType::F32, &s.n, 1),
        Argument::tensor(reinterpret_cast<void *>(s.db), DType::F32, &s.n, 1),
        Argument::floatScalar(alpha, DType::F32)};
    OutputTensor out;
    out.data = reinterpret_cast<void *>(s.dout);
    out.dtype = DType::F32;
    out.rank = 1;
    out.sizes[0] = s.n;
    out.strides[0] = 1;
    Status status = exe->run(args.data(), args.size(), &out, 1, stream);
    ASSERT_TRUE(status.ok()) << status.toString();
    ASSERT_TRUE(synchronizeStream(stream).ok());
    std::vector<float> got = download(s.dout, s.n);
    for (int64_t i = 0; i < s.n; ++i)
      ASSERT_EQ(got[i], s.expected[i]) << "call " << call << ", i = " << i;
  }
  LaunchGraphStats stats = exe->launchGraphStats();
  std::cout << "launch graphs: built " << stats.built << ", graph launches "
            << stats.launches << ", node updates " << stats.nodeUpdates
            << ", direct " << stats.direct << "\n";
  EXPECT_EQ(stats.built, 2u);  // one per plan (n = 1000, n = 77777)
  EXPECT_EQ(stats.direct, 2u); // the first call of each plan
  EXPECT_EQ(stats.launches, std::size(order) - 2);
  EXPECT_GT(stats.nodeUpdates, 0u);
  cu.streamDestroy(stream);
}

// Host time per call of a plan of K launches, as one graph launch and
// kernel by kernel, beside K raw launches of an empty kernel (printed; the
// figures go into docs/performance.md).
TEST_F(GPURuntimeTest, LaunchGraphHostOverhead) {
  double raw = 0;
  ASSERT_EQ(fusion_measure_raw_launch_us(5000, nullptr, &raw), FUSION_OK)
      << fusion_last_error_message();
  int64_t n = 1024;
  CUdeviceptr da = upload(randomVector(n, 5)), db = upload(randomVector(n, 6));
  CUdeviceptr dout = upload(std::vector<float>(n));
  std::vector<Argument> args = {
      Argument::tensor(reinterpret_cast<void *>(da), DType::F32, &n, 1),
      Argument::tensor(reinterpret_cast<void *>(db), DType::F32, &n, 1),
      Argument::floatScalar(1.0, DType::F32)};
  OutputTensor provided;
  provided.data = reinterpret_cast<void *>(dout);
  provided.dtype = DType::F32;
  provided.rank = 1;
  provided.sizes[0] = n;
  provided.strides[0] = 1;
  for (int launches : {2, 4, 8}) {
    ASSERT_NO_FATAL_FAILURE(useModule(makeAxpyChainModule(launches)));
    // Per call, the median of 21 rounds of 100 calls each, graphs on and
    // off in turn. 100 calls of at most 8 launches stay below the depth of
    // the launch queue: the host is timed, not the GPU.
    exe->setLaunchGraphs(true);
    OutputTensor out = provided;
    for (int i = 0; i < 3; ++i)
      ASSERT_TRUE(exe->run(args.data(), 3, &out, 1, nullptr).ok());
    auto round = [&](bool graphs) {
      exe->setLaunchGraphs(graphs);
      if (graphs) { // the graph is built on the second call
        for (int i = 0; i < 2; ++i)
          EXPECT_TRUE(exe->run(args.data(), 3, &out, 1, nullptr).ok());
      }
      EXPECT_TRUE(synchronizeStream(nullptr).ok());
      constexpr int kCalls = 100;
      auto start = std::chrono::steady_clock::now();
      for (int i = 0; i < kCalls; ++i) {
        out = provided;
        Status status = exe->run(args.data(), 3, &out, 1, nullptr);
        EXPECT_TRUE(status.ok()) << status.toString();
      }
      auto elapsed = std::chrono::steady_clock::now() - start;
      EXPECT_TRUE(synchronizeStream(nullptr).ok());
      return std::chrono::duration<double, std::micro>(elapsed).count() /
             kCalls;
    };
    std::vector<double> on, off;
    for (int r = 0; r < 21; ++r) {
      off.push_back(round(false));
      on.push_back(round(true));
    }
    std::sort(on.begin(), on.end());
    std::sort(off.begin(), off.end());
    LaunchGraphStats stats = exe->launchGraphStats();
    EXPECT_GT(stats.launches, 0u);
    std::cout << "host time per run(), " << launches << " launches: graph "
              << on[10] << " us, kernel by kernel " << off[10] << " us, "
              << launches << " raw launches " << launches * raw << " us\n";
  }
}
