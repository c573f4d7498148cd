// Tests of what reaches the CUDA driver, against the fake driver of
// FakeCuda.cpp, with hand-written modules only (TestModule.h): no compiler
// is needed, so they build with the runtime alone. Run them under valgrind
// to see every byte the fake driver reads. A separate executable: the
// runtime keeps the driver it loaded for the life of the process, and
// FusionRuntimeTests must see none.
#include "FakeCuda.h"
#include "TestModule.h"

#include "fusion/Runtime/Executable.h"

#include <dlfcn.h>
#include <gtest/gtest.h>

#include <string>

using namespace fusion::runtime;
using namespace fusion::runtime::testing;

namespace {

/// The fake's counters, resolved from the library the runtime loads.
struct Fake {
  std::string error; // why the fake is unusable, empty when it is usable
  decltype(&fake_cuda_count) count = nullptr;
  decltype(&fake_cuda_reset) reset = nullptr;
  decltype(&fake_cuda_num_launches) numLaunches = nullptr;
  decltype(&fake_cuda_launch) launch = nullptr;
};

const Fake &fake() {
  static const Fake *loaded = [] {
    auto *f = new Fake;
    // Loaded by path first: the runtime's dlopen("libcuda.so.1") then finds
    // it by its soname.
    void *handle = dlopen(FUSION_FAKE_CUDA_LIBRARY, RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
      const char *why = dlerror();
      f->error = std::string("cannot load the fake driver: ") +
                 (why ? why : "unknown");
      return f;
    }
    if (dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL | RTLD_NOLOAD) != handle) {
      f->error = "dlopen(\"libcuda.so.1\") is not the fake driver";
      return f;
    }
    f->count =
        reinterpret_cast<decltype(f->count)>(dlsym(handle, "fake_cuda_count"));
    f->reset =
        reinterpret_cast<decltype(f->reset)>(dlsym(handle, "fake_cuda_reset"));
    f->numLaunches = reinterpret_cast<decltype(f->numLaunches)>(
        dlsym(handle, "fake_cuda_num_launches"));
    f->launch = reinterpret_cast<decltype(f->launch)>(
        dlsym(handle, "fake_cuda_launch"));
    if (!f->count || !f->reset || !f->numLaunches || !f->launch)
      f->error = "the fake driver lacks its test interface";
    return f;
  }();
  return *loaded;
}

class RuntimeFakeDriverTest : public ::testing::Test {
protected:
  void SetUp() override {
    ASSERT_TRUE(fake().error.empty()) << fake().error;
    Status status = cudaDriverStatus();
    ASSERT_TRUE(status.ok()) << status.toString();
    fake().reset();
  }
};

Expected<std::unique_ptr<Executable>> loadModule(const TestModule &module) {
  std::vector<uint8_t> bytes = module.build();
  return Executable::load(bytes.data(), bytes.size());
}

/// Runs the add module's kernel over n = 1000 elements at fake addresses;
/// the runtime allocates the output.
Status runAdd(Executable &exe, void *a, void *b) {
  int64_t n = 1000;
  std::vector<Argument> inputs = {Argument::tensor(a, DType::F32, &n, 1),
                                  Argument::tensor(b, DType::F32, &n, 1)};
  OutputTensor output;
  Status status = exe.run(inputs.data(), inputs.size(), &output, 1, nullptr);
  if (status.ok() && output.allocated) {
    EXPECT_TRUE(freeDeviceMemory(output.data, nullptr).ok());
  }
  return status;
}

} // namespace

TEST_F(RuntimeFakeDriverTest, WellFormedCubinLoadsAndLaunches) {
  TestModule module = makeAddModule();
  module.kernels[0].cubin = makeTestCubin("add_f32");
  Expected<std::unique_ptr<Executable>> exe = loadModule(module);
  ASSERT_TRUE(exe.ok()) << exe.status().toString();
  Status status = runAdd(**exe, fakePointer(0x10000), fakePointer(0x20000));
  ASSERT_TRUE(status.ok()) << status.toString();
  EXPECT_EQ(fake().count("cuModuleLoadData"), 1);
  EXPECT_EQ(fake().numLaunches(), 1u);
}

// A kernel may take no parameters (the fuzzer found the runtime copying its
// empty parameter buffer with memcpy from a null pointer, which UBSan
// reports): it launches with no parameter buffer at all.
TEST_F(RuntimeFakeDriverTest, KernelWithoutParametersLaunches) {
  TestModule module = makeAddModule();
  module.kernels[0].cubin = makeTestCubin("add_f32");
  module.launches[0][0].params.clear();
  Expected<std::unique_ptr<Executable>> exe = loadModule(module);
  ASSERT_TRUE(exe.ok()) << exe.status().toString();
  for (int call = 0; call < 2; ++call) { // a plan cache miss, then a hit
    Status status = runAdd(**exe, fakePointer(0x10000), fakePointer(0x20000));
    ASSERT_TRUE(status.ok()) << status.toString();
  }
  ASSERT_EQ(fake().numLaunches(), 2u);
  for (size_t i = 0; i < 2; ++i) {
    FakeCudaLaunch launch;
    ASSERT_TRUE(fake().launch(i, &launch));
    EXPECT_STREQ(launch.function, "add_f32");
    EXPECT_EQ(launch.paramSize, 0u);
    EXPECT_EQ(launch.grid[0], 8u); // ceil(1000 / 128)
  }
}

TEST_F(RuntimeFakeDriverTest, MisalignedPointersLaunchNothing) {
  TestModule module = makeAddModule();
  module.kernels[0].cubin = makeTestCubin("add_f32");
  Expected<std::unique_ptr<Executable>> exe = loadModule(module);
  ASSERT_TRUE(exe.ok()) << exe.status().toString();
  // An f32 input at +1 byte.
  Status status = runAdd(**exe, fakePointer(0x10000), fakePointer(0x20001));
  EXPECT_EQ(status.code(), ErrorCode::MisalignedPointer) << status.toString();
  EXPECT_EQ(status.message(), "input 1 (b): data pointer 0x20001 is not "
                              "aligned to 4 bytes (the size of f32)");
  // A provided output at +2 bytes.
  int64_t n = 1000;
  std::vector<Argument> inputs = {
      Argument::tensor(fakePointer(0x10000), DType::F32, &n, 1),
      Argument::tensor(fakePointer(0x20000), DType::F32, &n, 1)};
  OutputTensor output;
  ASSERT_TRUE((*exe)->inferOutputs(inputs.data(), 2, &output, 1).ok());
  output.data = fakePointer(0x30002);
  status = (*exe)->run(inputs.data(), 2, &output, 1, nullptr);
  EXPECT_EQ(status.code(), ErrorCode::MisalignedPointer) << status.toString();
  EXPECT_EQ(status.message(), "output 0: data pointer 0x30002 is not aligned "
                              "to 4 bytes (the size of f32)");
  EXPECT_EQ(fake().numLaunches(), 0u);
  EXPECT_EQ(fake().count("cuMemAllocAsync"), 0);
  // Aligned: one launch.
  status = runAdd(**exe, fakePointer(0x10000), fakePointer(0x20000));
  EXPECT_TRUE(status.ok()) << status.toString();
  EXPECT_EQ(fake().numLaunches(), 1u);
}

TEST_F(RuntimeFakeDriverTest, TruncatedCubinNeverReachesTheDriver) {
  // cuModuleLoadData takes no size: a 2-byte cubin that reached it was read
  // past its end (valgrind: an invalid read in the fake's cuModuleLoadData).
  TestModule module = makeAddModule();
  module.kernels[0].cubin = {0x7f, 'E'};
  Expected<std::unique_ptr<Executable>> exe = loadModule(module);
  if (exe.ok()) {
    // What a caller does with a module that loads.
    Status status = runAdd(**exe, fakePointer(0x10000), fakePointer(0x20000));
    ADD_FAILURE() << "a module with a 2-byte cubin loaded; run: "
                  << status.toString();
  } else {
    EXPECT_EQ(exe.status().code(), ErrorCode::InvalidModule);
    EXPECT_EQ(exe.status().message(),
              "invalid module: kernel 0 (add_f32): cubin of 2 bytes: smaller "
              "than an ELF64 header (64 bytes)");
  }
  EXPECT_EQ(fake().count("cuModuleLoadData"), 0);
}
