// Tests of the C API: loading, metadata, plans, error codes and the
// thread-local error message, and a run without a GPU.
#include "TestModule.h"

#include "fusion/Runtime/fusion_runtime.h"
#include "fusion/Version.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <string>
#include <thread>
#include <unistd.h>

using namespace fusion::runtime::testing;

extern "C" int fusionRuntimeHeaderCompilesAsC(void);

namespace {

struct ExecutableDeleter {
  void operator()(fusion_executable *exe) const {
    fusion_executable_destroy(exe);
  }
};
using ExecutablePtr = std::unique_ptr<fusion_executable, ExecutableDeleter>;

ExecutablePtr loadAddModule() {
  std::vector<uint8_t> bytes = makeAddModule().build();
  fusion_executable *exe = nullptr;
  EXPECT_EQ(fusion_executable_load(bytes.data(), bytes.size(), &exe), FUSION_OK)
      << fusion_last_error_message();
  return ExecutablePtr(exe);
}

fusion_arg tensorArg(void *data, int dtype, const int64_t *sizes,
                     int64_t rank) {
  fusion_arg arg = {};
  arg.kind = FUSION_ARG_TENSOR;
  arg.dtype = dtype;
  arg.data = data;
  arg.rank = rank;
  arg.sizes = sizes;
  return arg;
}

} // namespace

TEST(CApiTest, HeaderCompilesAsC) {
  EXPECT_EQ(fusionRuntimeHeaderCompilesAsC(), FUSION_OK);
}

TEST(CApiTest, LoadAndQueryMetadata) {
  ExecutablePtr exe = loadAddModule();
  ASSERT_NE(exe, nullptr);
  EXPECT_STREQ(fusion_executable_name(exe.get()), "add");
  EXPECT_STREQ(fusion_executable_target(exe.get()), "sm_90a");
  ASSERT_EQ(fusion_executable_num_inputs(exe.get()), 2);
  fusion_input_info input;
  ASSERT_EQ(fusion_executable_input(exe.get(), 1, &input), FUSION_OK);
  EXPECT_STREQ(input.name, "b");
  EXPECT_EQ(input.kind, FUSION_ARG_TENSOR);
  EXPECT_EQ(input.dtype, FUSION_DTYPE_F32);
  ASSERT_EQ(input.rank, 1);
  EXPECT_EQ(input.sizes[0], -1);
  ASSERT_EQ(fusion_executable_num_outputs(exe.get()), 1);
  int32_t dtype = -1, rank = -1;
  ASSERT_EQ(fusion_executable_output(exe.get(), 0, &dtype, &rank), FUSION_OK);
  EXPECT_EQ(dtype, FUSION_DTYPE_F32);
  EXPECT_EQ(rank, 1);
  ASSERT_EQ(fusion_executable_num_kernels(exe.get()), 1);
  fusion_kernel_info kernel;
  ASSERT_EQ(fusion_executable_kernel(exe.get(), 0, &kernel), FUSION_OK);
  EXPECT_STREQ(kernel.name, "add_f32");
  EXPECT_EQ(kernel.has_cubin, 0);
  EXPECT_GT(kernel.ptx_size, 0u);

  EXPECT_EQ(fusion_executable_input(exe.get(), 2, &input),
            FUSION_ERROR_INVALID_ARGUMENT);
  EXPECT_STREQ(fusion_last_error_message(),
               "input index 2 out of range [0, 2)");
}

TEST(CApiTest, LoadErrors) {
  const char garbage[] = "this is certainly not a module file";
  fusion_executable *exe = reinterpret_cast<fusion_executable *>(0x1);
  EXPECT_EQ(fusion_executable_load(garbage, sizeof(garbage), &exe),
            FUSION_ERROR_INVALID_MODULE);
  EXPECT_EQ(exe, nullptr);
  EXPECT_EQ(fusion_last_error_code(), FUSION_ERROR_INVALID_MODULE);
  EXPECT_NE(
      std::string(fusion_last_error_message()).find("not a Fusion module"),
      std::string::npos);
  EXPECT_STREQ(fusion_error_code_name(fusion_last_error_code()),
               "InvalidModule");

  EXPECT_EQ(fusion_executable_load_file("/nonexistent.fusionmod", &exe),
            FUSION_ERROR_FILE);
  EXPECT_EQ(fusion_executable_load(garbage, sizeof(garbage), nullptr),
            FUSION_ERROR_INVALID_ARGUMENT);
}

TEST(CApiTest, LoadFromFile) {
  std::vector<uint8_t> bytes = makeAddModule().build();
  std::string path = ::testing::TempDir() + "capi_test_" +
                     std::to_string(getpid()) + ".fusionmod";
  FILE *file = std::fopen(path.c_str(), "wb");
  ASSERT_NE(file, nullptr);
  ASSERT_EQ(std::fwrite(bytes.data(), 1, bytes.size(), file), bytes.size());
  std::fclose(file);
  fusion_executable *exe = nullptr;
  EXPECT_EQ(fusion_executable_load_file(path.c_str(), &exe), FUSION_OK)
      << fusion_last_error_message();
  ExecutablePtr owned(exe);
  EXPECT_STREQ(fusion_executable_name(exe), "add");
  std::remove(path.c_str());
}

TEST(CApiTest, LoadFileOfADirectoryIsAFileError) {
  // It was "unexpected C++ exception" (InvalidArgument).
  std::string dir = ::testing::TempDir();
  fusion_executable *exe = nullptr;
  EXPECT_EQ(fusion_executable_load_file(dir.c_str(), &exe), FUSION_ERROR_FILE);
  EXPECT_EQ(exe, nullptr);
  EXPECT_EQ(std::string(fusion_last_error_message()),
            "module file '" + dir + "' is not a regular file (a directory)");
}

TEST(CApiTest, PlanInspection) {
  ExecutablePtr exe = loadAddModule();
  int64_t n = 1000;
  int a = 0, b = 0;
  fusion_arg args[] = {tensorArg(&a, FUSION_DTYPE_F32, &n, 1),
                       tensorArg(&b, FUSION_DTYPE_F32, &n, 1)};
  fusion_plan *plan = nullptr;
  ASSERT_EQ(fusion_executable_plan(exe.get(), args, 2, &plan), FUSION_OK)
      << fusion_last_error_message();
  ASSERT_EQ(fusion_plan_num_launches(plan), 1);
  fusion_launch_info launch;
  ASSERT_EQ(fusion_plan_launch(plan, 0, &launch), FUSION_OK);
  EXPECT_EQ(launch.grid[0], 8u);
  EXPECT_EQ(launch.block[0], 128u);
  EXPECT_EQ(launch.param_size, 32u);
  EXPECT_EQ(launch.skipped, 0);
  int64_t packedN = 0;
  std::memcpy(&packedN, launch.params + 24, 8);
  EXPECT_EQ(packedN, 1000);
  ASSERT_EQ(fusion_plan_num_outputs(plan), 1);
  fusion_tensor out;
  ASSERT_EQ(fusion_plan_output(plan, 0, &out), FUSION_OK);
  EXPECT_EQ(out.rank, 1);
  EXPECT_EQ(out.sizes[0], 1000);
  EXPECT_EQ(fusion_plan_num_registers(plan), 5);
  int64_t value = 0;
  ASSERT_EQ(fusion_plan_register(plan, 3, &value), FUSION_OK);
  EXPECT_EQ(value, 8);
  fusion_plan_destroy(plan);

  fusion_cache_stats stats;
  ASSERT_EQ(fusion_executable_cache_stats(exe.get(), &stats), FUSION_OK);
  EXPECT_EQ(stats.misses, 1u);
  ASSERT_EQ(fusion_executable_plan(exe.get(), args, 2, &plan), FUSION_OK);
  fusion_plan_destroy(plan);
  ASSERT_EQ(fusion_executable_cache_stats(exe.get(), &stats), FUSION_OK);
  EXPECT_EQ(stats.hits, 1u);
  EXPECT_EQ(stats.entries, 1u);
  ASSERT_EQ(fusion_executable_clear_cache(exe.get()), FUSION_OK);
  ASSERT_EQ(fusion_executable_cache_stats(exe.get(), &stats), FUSION_OK);
  EXPECT_EQ(stats.entries, 0u);

  fusion_tensor inferred;
  ASSERT_EQ(fusion_executable_infer_outputs(exe.get(), args, 2, &inferred, 1),
            FUSION_OK);
  EXPECT_EQ(inferred.sizes[0], 1000);
  EXPECT_EQ(inferred.data, nullptr);
}

TEST(CApiTest, SignatureErrorsThroughTheCApi) {
  ExecutablePtr exe = loadAddModule();
  int64_t n = 1000;
  int a = 0, b = 0;
  fusion_arg args[] = {tensorArg(&a, FUSION_DTYPE_F32, &n, 1),
                       tensorArg(&b, FUSION_DTYPE_BF16, &n, 1)};
  fusion_tensor out = {};
  EXPECT_EQ(fusion_executable_run(exe.get(), args, 2, &out, 1, nullptr),
            FUSION_ERROR_WRONG_DTYPE);
  EXPECT_EQ(fusion_last_error_code(), FUSION_ERROR_WRONG_DTYPE);
  EXPECT_STREQ(fusion_last_error_message(),
               "input 1 (b): expected dtype f32, got bf16");
  EXPECT_EQ(out.data, nullptr);

  EXPECT_EQ(fusion_executable_run(exe.get(), args, 1, &out, 1, nullptr),
            FUSION_ERROR_WRONG_INPUT_COUNT);
  EXPECT_STREQ(fusion_last_error_message(),
               "wrong number of inputs: expected 2, got 1");
  EXPECT_EQ(fusion_executable_run(nullptr, args, 2, &out, 1, nullptr),
            FUSION_ERROR_INVALID_ARGUMENT);
}

TEST(CApiTest, ErrorMessageIsThreadLocal) {
  ExecutablePtr exe = loadAddModule();
  int64_t n = 1000;
  fusion_arg args[] = {tensorArg(nullptr, FUSION_DTYPE_F32, &n, 1),
                       tensorArg(nullptr, FUSION_DTYPE_F32, &n, 1)};
  fusion_plan *plan = nullptr;
  EXPECT_EQ(fusion_executable_plan(exe.get(), args, 2, &plan),
            FUSION_ERROR_NULL_POINTER);
  std::string mine = fusion_last_error_message();
  std::thread other([&] {
    EXPECT_EQ(fusion_last_error_code(), FUSION_OK);
    EXPECT_STREQ(fusion_last_error_message(), "");
    fusion_executable *bad = nullptr;
    EXPECT_EQ(fusion_executable_load("x", 1, &bad),
              FUSION_ERROR_INVALID_MODULE);
  });
  other.join();
  EXPECT_EQ(fusion_last_error_code(), FUSION_ERROR_NULL_POINTER);
  EXPECT_EQ(mine, fusion_last_error_message());
  EXPECT_EQ(mine,
            "input 0 (a): null data pointer for a tensor of 1000 elements");
}

TEST(CApiTest, MisalignedPointerIsATypedError) {
  ExecutablePtr exe = loadAddModule();
  int64_t n = 1000;
  fusion_arg args[] = {
      tensorArg(reinterpret_cast<void *>(0x10000), FUSION_DTYPE_F32, &n, 1),
      tensorArg(reinterpret_cast<void *>(0x20001), FUSION_DTYPE_F32, &n, 1)};
  const char *message = "input 1 (b): data pointer 0x20001 is not aligned to "
                        "4 bytes (the size of f32)";
  fusion_plan *plan = nullptr;
  EXPECT_EQ(fusion_executable_plan(exe.get(), args, 2, &plan),
            FUSION_ERROR_MISALIGNED_POINTER);
  EXPECT_EQ(plan, nullptr);
  EXPECT_EQ(fusion_last_error_code(), FUSION_ERROR_MISALIGNED_POINTER);
  EXPECT_STREQ(fusion_last_error_message(), message);
  EXPECT_STREQ(fusion_error_code_name(FUSION_ERROR_MISALIGNED_POINTER),
               "MisalignedPointer");
  fusion_tensor out = {};
  EXPECT_EQ(fusion_executable_infer_outputs(exe.get(), args, 2, &out, 1),
            FUSION_ERROR_MISALIGNED_POINTER);
  EXPECT_STREQ(fusion_last_error_message(), message);
  // Checked before the driver is needed.
  EXPECT_EQ(fusion_executable_run(exe.get(), args, 2, &out, 1, nullptr),
            FUSION_ERROR_MISALIGNED_POINTER);
  EXPECT_STREQ(fusion_last_error_message(), message);
}

TEST(CApiTest, DTypeHelpers) {
  EXPECT_STREQ(fusion_dtype_name(FUSION_DTYPE_BF16), "bf16");
  EXPECT_EQ(fusion_dtype_size(FUSION_DTYPE_I1), 1);
  EXPECT_EQ(fusion_dtype_size(FUSION_DTYPE_F64), 8);
  EXPECT_EQ(fusion_dtype_size(77), 0);
  int dtype = -1;
  EXPECT_EQ(fusion_dtype_parse("f8e4m3", &dtype), FUSION_OK);
  EXPECT_EQ(dtype, FUSION_DTYPE_F8E4M3);
  EXPECT_EQ(fusion_dtype_parse("float", &dtype), FUSION_ERROR_INVALID_ARGUMENT);
  EXPECT_STREQ(fusion_last_error_message(), "unknown dtype 'float'");
  EXPECT_EQ(fusion_module_format_version(), 4u);
  // MAJOR.MINOR.PATCH, as CMake's project() VERSION gives it.
  std::string version = std::to_string(FUSION_VERSION_MAJOR) + "." +
                        std::to_string(FUSION_VERSION_MINOR) + "." +
                        std::to_string(FUSION_VERSION_PATCH);
  EXPECT_EQ(version, FUSION_VERSION_STRING);
  EXPECT_STREQ(fusion_runtime_version(), FUSION_VERSION_STRING);
}

TEST(CApiTest, RunWithoutADriverIsATypedError) {
  if (cudaDriverLoadable())
    GTEST_SKIP() << "libcuda.so.1 is loadable here: the no-driver error "
                    "cannot be observed";
  ExecutablePtr exe = loadAddModule();
  int64_t n = 1000;
  int a = 0, b = 0;
  fusion_arg args[] = {tensorArg(&a, FUSION_DTYPE_F32, &n, 1),
                       tensorArg(&b, FUSION_DTYPE_F32, &n, 1)};
  fusion_tensor out = {};
  EXPECT_EQ(fusion_executable_run(exe.get(), args, 2, &out, 1, nullptr),
            FUSION_ERROR_DRIVER_UNAVAILABLE);
  EXPECT_EQ(std::string(fusion_last_error_message())
                .rfind("CUDA driver not available: ", 0),
            0u)
      << fusion_last_error_message();
  EXPECT_EQ(out.data, nullptr);
  EXPECT_EQ(fusion_driver_status(), FUSION_ERROR_DRIVER_UNAVAILABLE);
  EXPECT_EQ(fusion_stream_synchronize(nullptr),
            FUSION_ERROR_DRIVER_UNAVAILABLE);
  EXPECT_EQ(fusion_free_async(reinterpret_cast<void *>(0x100), nullptr),
            FUSION_ERROR_DRIVER_UNAVAILABLE);
}
