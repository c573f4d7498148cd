// Tests of the packed C API (fusion_executable_infer_packed,
// fusion_executable_run_packed, fusion_executable_input_flags,
// fusion_measure_raw_launch_us) without a GPU: record layout, output-size
// queries, the typed errors that name the input, and the shared plan cache.
// The GPU side is in GPURuntimeTest.cpp (PackedRun*).
#include "TestModule.h"

#include "fusion/Runtime/fusion_runtime.h"

#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <string>
#include <vector>

using namespace fusion::runtime::testing;
namespace fb = fusion::fb;

namespace {

struct ExecutableDeleter {
  void operator()(fusion_executable *exe) const {
    fusion_executable_destroy(exe);
  }
};
using ExecutablePtr = std::unique_ptr<fusion_executable, ExecutableDeleter>;

ExecutablePtr loadC(const TestModule &module) {
  std::vector<uint8_t> bytes = module.build();
  fusion_executable *exe = nullptr;
  EXPECT_EQ(fusion_executable_load(bytes.data(), bytes.size(), &exe), FUSION_OK)
      << fusion_last_error_message();
  return ExecutablePtr(exe);
}

/// Input records as a binding fills them.
struct Records {
  std::vector<int64_t> words;
  std::vector<void *> data;

  int64_t *record(size_t i) { return words.data() + i * FUSION_PACKED_WORDS; }
  size_t count() const { return data.size(); }

  void tensor(void *pointer, int dtype, std::vector<int64_t> sizes,
              std::vector<int64_t> strides = {}) {
    words.resize(words.size() + FUSION_PACKED_WORDS, 0);
    data.push_back(pointer);
    int64_t *r = record(count() - 1);
    r[FUSION_PACKED_KIND] = FUSION_ARG_TENSOR;
    r[FUSION_PACKED_DTYPE] = dtype;
    r[FUSION_PACKED_RANK] = static_cast<int64_t>(sizes.size());
    if (strides.empty()) { // row-major
      strides.assign(sizes.size(), 1);
      for (size_t d = sizes.size(); d-- > 1;)
        strides[d - 1] = strides[d] * sizes[d];
    }
    for (size_t d = 0; d < sizes.size() && d < FUSION_MAX_RANK; ++d) {
      r[FUSION_PACKED_SIZES + d] = sizes[d];
      r[FUSION_PACKED_STRIDES + d] = strides[d];
    }
  }
  void intScalar(int64_t value, int dtype = FUSION_DTYPE_I64) {
    words.resize(words.size() + FUSION_PACKED_WORDS, 0);
    data.push_back(nullptr);
    int64_t *r = record(count() - 1);
    r[FUSION_PACKED_KIND] = FUSION_ARG_SCALAR;
    r[FUSION_PACKED_DTYPE] = dtype;
    r[FUSION_PACKED_VALUE] = value;
  }
  void floatScalar(double value, int dtype = FUSION_DTYPE_F32) {
    intScalar(0, dtype);
    std::memcpy(record(count() - 1) + FUSION_PACKED_VALUE, &value, 8);
  }
};

int infer(fusion_executable *exe, Records &in, std::vector<int64_t> &out,
          size_t numOutputs = 1) {
  out.assign(numOutputs * FUSION_PACKED_WORDS, -7);
  return fusion_executable_infer_packed(exe, in.data.data(), in.words.data(),
                                        in.count(), out.data(), numOutputs);
}

/// out[0 .. n) = iota, n an integer scalar input read by the plan, plus a
/// second output that is a view of input x (f16, 2-D).
TestModule makeScalarSizedModule() {
  TestModule m;
  m.name = "scalar_sized";
  m.inputs = {{"x", fb::ArgKind::Tensor, fb::DType::F16, {-1, 4}},
              {"n", fb::ArgKind::Scalar, fb::DType::I64, {}},
              {"scale", fb::ArgKind::Scalar, fb::DType::F32, {}}};
  int32_t rows = m.inputSize(0, 0);
  int32_t four = m.constant(4);
  int32_t n = m.expr(fb::ExprOp::ScalarInput, 1);
  int32_t one = m.constant(1);
  m.buffers = {
      {fb::BufferKind::Output, fb::DType::I32, {n}},
      {fb::BufferKind::Output, fb::DType::F16, {rows, four}, false, 0}};
  m.outputs = {0, 1};
  m.kernels = {{"iota", "// not compiled in CPU tests", {}, 0}};
  TestVariant v;
  v.grid = {n, one, one};
  v.block = {one, one, one};
  v.params = {{fb::ParamKind::Pointer, 3}, {fb::ParamKind::ScalarF32, 2}};
  m.launches = {{v}};
  return m;
}

} // namespace

TEST(PackedApiTest, RecordLayout) {
  EXPECT_EQ(FUSION_PACKED_WORDS, 21);
  EXPECT_EQ(FUSION_PACKED_SIZES + FUSION_MAX_RANK, FUSION_PACKED_STRIDES);
  EXPECT_EQ(FUSION_PACKED_STRIDES + FUSION_MAX_RANK, FUSION_PACKED_OFFSET);
  EXPECT_EQ(FUSION_PACKED_KIND, FUSION_PACKED_ALIAS);
  EXPECT_EQ(FUSION_PACKED_VALUE, FUSION_PACKED_NUM_ELEMENTS);
}

TEST(PackedApiTest, InferGivesOutputRecords) {
  ExecutablePtr exe = loadC(makeAddModule());
  int a = 0, b = 0;
  Records in;
  in.tensor(&a, FUSION_DTYPE_F32, {1000});
  in.tensor(&b, FUSION_DTYPE_F32, {1000});
  std::vector<int64_t> out;
  ASSERT_EQ(infer(exe.get(), in, out), FUSION_OK)
      << fusion_last_error_message();
  EXPECT_EQ(out[FUSION_PACKED_ALIAS], -1);
  EXPECT_EQ(out[FUSION_PACKED_DTYPE], FUSION_DTYPE_F32);
  EXPECT_EQ(out[FUSION_PACKED_RANK], 1);
  EXPECT_EQ(out[FUSION_PACKED_NUM_ELEMENTS], 1000);
  EXPECT_EQ(out[FUSION_PACKED_SIZES], 1000);
  EXPECT_EQ(out[FUSION_PACKED_STRIDES], 1);
  // Unused words are zeroed.
  EXPECT_EQ(out[FUSION_PACKED_SIZES + 1], 0);
  EXPECT_EQ(out[FUSION_PACKED_STRIDES + 7], 0);
}

TEST(PackedApiTest, ScalarsViewsAndInputFlags) {
  ExecutablePtr exe = loadC(makeScalarSizedModule());
  uint32_t flags = 99;
  ASSERT_EQ(fusion_executable_input_flags(exe.get(), 0, &flags), FUSION_OK);
  EXPECT_EQ(flags, 0u);
  ASSERT_EQ(fusion_executable_input_flags(exe.get(), 1, &flags), FUSION_OK);
  EXPECT_EQ(flags, static_cast<uint32_t>(FUSION_INPUT_VALUE_AFFECTS_PLAN));
  ASSERT_EQ(fusion_executable_input_flags(exe.get(), 2, &flags), FUSION_OK);
  EXPECT_EQ(flags, 0u);
  EXPECT_EQ(fusion_executable_input_flags(exe.get(), 3, &flags),
            FUSION_ERROR_INVALID_ARGUMENT);
  EXPECT_STREQ(fusion_last_error_message(),
               "input index 3 out of range [0, 3)");
  EXPECT_EQ(fusion_executable_input_flags(exe.get(), 0, nullptr),
            FUSION_ERROR_INVALID_ARGUMENT);

  int16_t x = 0;
  Records in;
  in.tensor(&x, FUSION_DTYPE_F16, {3, 4});
  in.intScalar(37);
  in.floatScalar(0.5);
  std::vector<int64_t> out;
  ASSERT_EQ(infer(exe.get(), in, out, 2), FUSION_OK)
      << fusion_last_error_message();
  // The integer scalar's value is the output's size.
  EXPECT_EQ(out[FUSION_PACKED_ALIAS], -1);
  EXPECT_EQ(out[FUSION_PACKED_DTYPE], FUSION_DTYPE_I32);
  EXPECT_EQ(out[FUSION_PACKED_SIZES], 37);
  EXPECT_EQ(out[FUSION_PACKED_NUM_ELEMENTS], 37);
  const int64_t *view = out.data() + FUSION_PACKED_WORDS;
  EXPECT_EQ(view[FUSION_PACKED_ALIAS], 0);
  EXPECT_EQ(view[FUSION_PACKED_DTYPE], FUSION_DTYPE_F16);
  EXPECT_EQ(view[FUSION_PACKED_RANK], 2);
  EXPECT_EQ(view[FUSION_PACKED_SIZES], 3);
  EXPECT_EQ(view[FUSION_PACKED_SIZES + 1], 4);
  EXPECT_EQ(view[FUSION_PACKED_STRIDES], 4);
  EXPECT_EQ(view[FUSION_PACKED_NUM_ELEMENTS], 12);

  EXPECT_EQ(view[FUSION_PACKED_OFFSET], 0);
  EXPECT_EQ(out[FUSION_PACKED_OFFSET], 0);

  in.record(1)[FUSION_PACKED_VALUE] = 5;
  ASSERT_EQ(infer(exe.get(), in, out, 2), FUSION_OK);
  EXPECT_EQ(out[FUSION_PACKED_SIZES], 5);
  fusion_cache_stats stats;
  ASSERT_EQ(fusion_executable_cache_stats(exe.get(), &stats), FUSION_OK);
  EXPECT_EQ(stats.misses, 2u); // the scalar is part of the signature
}

// A view that starts inside its input (rows 1.. of x, a slice) carries
// its offset in elements.
TEST(PackedApiTest, ViewsCarryTheirOffset) {
  TestModule m = makeScalarSizedModule();
  m.version = 2;
  int32_t rows = m.inputSize(0, 0);
  int32_t one = m.constant(1);
  m.buffers[1].sizes[0] = m.expr(fb::ExprOp::Sub, rows, one);
  m.buffers[1].aliasOffset = m.constant(4);
  ExecutablePtr exe = loadC(m);
  int16_t x[12] = {};
  Records in;
  in.tensor(x, FUSION_DTYPE_F16, {3, 4});
  in.intScalar(2);
  in.floatScalar(0.5);
  std::vector<int64_t> out;
  ASSERT_EQ(infer(exe.get(), in, out, 2), FUSION_OK)
      << fusion_last_error_message();
  const int64_t *view = out.data() + FUSION_PACKED_WORDS;
  EXPECT_EQ(view[FUSION_PACKED_ALIAS], 0);
  EXPECT_EQ(view[FUSION_PACKED_SIZES], 2);
  EXPECT_EQ(view[FUSION_PACKED_OFFSET], 4);
  EXPECT_EQ(out[FUSION_PACKED_OFFSET], 0);
}

TEST(PackedApiTest, ErrorsNameTheInput) {
  ExecutablePtr exe = loadC(makeAddModule());
  int a = 0, b = 0;
  std::vector<int64_t> out;
  auto expectError = [&](Records &in, int code, const std::string &message) {
    EXPECT_EQ(infer(exe.get(), in, out), code) << message;
    EXPECT_EQ(fusion_last_error_code(), code);
    EXPECT_EQ(fusion_last_error_message(), message);
    EXPECT_EQ(out[0], -7) << "output records written on error";
  };
  {
    Records in;
    in.tensor(&a, FUSION_DTYPE_F32, {1000});
    in.tensor(&b, FUSION_DTYPE_BF16, {1000});
    expectError(in, FUSION_ERROR_WRONG_DTYPE,
                "input 1 (b): expected dtype f32, got bf16");
    in.record(1)[FUSION_PACKED_DTYPE] = int64_t(1) << 40;
    expectError(in, FUSION_ERROR_WRONG_DTYPE,
                "input 1 (b): expected dtype f32, got invalid dtype -1");
  }
  {
    Records in;
    in.tensor(&a, FUSION_DTYPE_F32, {10, 100});
    in.tensor(&b, FUSION_DTYPE_F32, {1000});
    expectError(in, FUSION_ERROR_WRONG_RANK,
                "input 0 (a): expected rank 1, got 2");
    // A rank past the record's 8 slots is rejected before sizes are read.
    in.record(0)[FUSION_PACKED_RANK] = 1000000;
    expectError(in, FUSION_ERROR_WRONG_RANK,
                "input 0 (a): expected rank 1, got 1000000");
  }
  {
    Records in;
    in.floatScalar(1.0, FUSION_DTYPE_F32);
    in.tensor(&b, FUSION_DTYPE_F32, {1000});
    expectError(in, FUSION_ERROR_WRONG_INPUT_KIND,
                "input 0 (a): expected a tensor, got a scalar");
    in.record(0)[FUSION_PACKED_KIND] = 7;
    expectError(in, FUSION_ERROR_WRONG_INPUT_KIND,
                "input 0 (a): expected a tensor, got invalid kind 7");
  }
  {
    Records in;
    in.tensor(nullptr, FUSION_DTYPE_F32, {1000});
    in.tensor(&b, FUSION_DTYPE_F32, {1000});
    expectError(in, FUSION_ERROR_NULL_POINTER,
                "input 0 (a): null data pointer for a tensor of 1000 "
                "elements");
    in.record(0)[FUSION_PACKED_SIZES] = 0; // empty: null is fine
    in.record(1)[FUSION_PACKED_SIZES] = 0;
    EXPECT_EQ(infer(exe.get(), in, out), FUSION_OK)
        << fusion_last_error_message();
    EXPECT_EQ(out[FUSION_PACKED_NUM_ELEMENTS], 0);
  }
  {
    Records in;
    in.tensor(&a, FUSION_DTYPE_F32, {1000});
    in.tensor(reinterpret_cast<void *>(0x20001), FUSION_DTYPE_F32, {1000});
    expectError(in, FUSION_ERROR_MISALIGNED_POINTER,
                "input 1 (b): data pointer 0x20001 is not aligned to 4 bytes "
                "(the size of f32)");
  }
  {
    Records in;
    in.tensor(&a, FUSION_DTYPE_F32, {1000});
    in.tensor(&b, FUSION_DTYPE_F32, {999});
    EXPECT_EQ(infer(exe.get(), in, out), FUSION_ERROR_CONSTRAINT_VIOLATION);
    EXPECT_NE(std::string(fusion_last_error_message())
                  .find("input 1 (b) dim 0 must equal input 0 (a) dim 0"),
              std::string::npos)
        << fusion_last_error_message();
    in.record(1)[FUSION_PACKED_SIZES] = -3;
    EXPECT_EQ(infer(exe.get(), in, out), FUSION_ERROR_WRONG_SIZE);
  }
  {
    Records in;
    in.tensor(&a, FUSION_DTYPE_F32, {1000});
    expectError(in, FUSION_ERROR_WRONG_INPUT_COUNT,
                "wrong number of inputs: expected 2, got 1");
    in.tensor(&b, FUSION_DTYPE_F32, {1000});
    EXPECT_EQ(infer(exe.get(), in, out, 2), FUSION_ERROR_WRONG_OUTPUT);
    EXPECT_STREQ(fusion_last_error_message(),
                 "wrong number of outputs: expected 1, got 2");
    EXPECT_EQ(fusion_executable_infer_packed(exe.get(), nullptr,
                                             in.words.data(), 2, out.data(), 1),
              FUSION_ERROR_INVALID_ARGUMENT);
    EXPECT_STREQ(fusion_last_error_message(), "input_data is null");
    EXPECT_EQ(fusion_executable_infer_packed(exe.get(), in.data.data(), nullptr,
                                             2, out.data(), 1),
              FUSION_ERROR_INVALID_ARGUMENT);
    EXPECT_STREQ(fusion_last_error_message(), "input_records is null");
    EXPECT_EQ(fusion_executable_infer_packed(exe.get(), in.data.data(),
                                             in.words.data(), 2, nullptr, 1),
              FUSION_ERROR_INVALID_ARGUMENT);
    EXPECT_STREQ(fusion_last_error_message(), "output_records is null");
    EXPECT_EQ(fusion_executable_infer_packed(nullptr, in.data.data(),
                                             in.words.data(), 2, out.data(), 1),
              FUSION_ERROR_INVALID_ARGUMENT);
  }
}

TEST(PackedApiTest, RunChecksInputsAndOutputsBeforeTheDriver) {
  // Every check happens before the driver is needed, so these errors are
  // the same with and without a GPU, and output_data stays untouched.
  ExecutablePtr exe = loadC(makeAddModule());
  int a = 0, b = 0, c = 0;
  Records in;
  in.tensor(&a, FUSION_DTYPE_F32, {1000});
  in.tensor(&b, FUSION_DTYPE_I32, {1000});
  void *outData[1] = {&c};
  std::vector<int64_t> outRecords(FUSION_PACKED_WORDS, 0);
  auto run = [&](const int64_t *records) {
    return fusion_executable_run_packed(exe.get(), in.data.data(),
                                        in.words.data(), in.count(), outData,
                                        records, 1, nullptr);
  };
  EXPECT_EQ(run(outRecords.data()), FUSION_ERROR_WRONG_DTYPE);
  EXPECT_STREQ(fusion_last_error_message(),
               "input 1 (b): expected dtype f32, got i32");
  EXPECT_EQ(outData[0], &c);

  in.record(1)[FUSION_PACKED_DTYPE] = FUSION_DTYPE_F32;
  std::vector<int64_t> inferred;
  ASSERT_EQ(infer(exe.get(), in, inferred), FUSION_OK);
  outRecords = inferred;
  outRecords[FUSION_PACKED_SIZES] = 999;
  EXPECT_EQ(run(outRecords.data()), FUSION_ERROR_WRONG_OUTPUT);
  EXPECT_STREQ(fusion_last_error_message(),
               "output 0: dim 0 expected 1000, got 999");
  outRecords = inferred;
  outRecords[FUSION_PACKED_DTYPE] = FUSION_DTYPE_F16;
  EXPECT_EQ(run(outRecords.data()), FUSION_ERROR_WRONG_OUTPUT);
  EXPECT_STREQ(fusion_last_error_message(),
               "output 0: expected dtype f32, got f16");
  outRecords = inferred;
  outRecords[FUSION_PACKED_STRIDES] = 2;
  EXPECT_EQ(run(outRecords.data()), FUSION_ERROR_WRONG_OUTPUT);
  EXPECT_STREQ(fusion_last_error_message(),
               "output 0: dim 0 stride expected 1, got 2");
  EXPECT_EQ(run(nullptr), FUSION_ERROR_INVALID_ARGUMENT);
  EXPECT_STREQ(fusion_last_error_message(),
               "output_records is null but output 0 is provided");
  EXPECT_EQ(outData[0], &c);
  EXPECT_EQ(fusion_executable_run_packed(exe.get(), in.data.data(),
                                         in.words.data(), 2, nullptr, nullptr,
                                         1, nullptr),
            FUSION_ERROR_INVALID_ARGUMENT);
  EXPECT_STREQ(fusion_last_error_message(), "output_data is null");
  // Two outputs for a fusion of one (the arrays hold two: the runtime reads
  // as many as it is told, so a shorter array would be the caller's overrun;
  // ASan caught this test doing that).
  void *twoOutputs[2] = {&c, nullptr};
  EXPECT_EQ(fusion_executable_run_packed(exe.get(), in.data.data(),
                                         in.words.data(), 2, twoOutputs,
                                         inferred.data(), 2, nullptr),
            FUSION_ERROR_WRONG_OUTPUT);
  EXPECT_EQ(twoOutputs[0], &c);
}

TEST(PackedApiTest, SharesThePlanCacheWithTheStructApi) {
  ExecutablePtr exe = loadC(makeAddModule());
  int a = 0, b = 0;
  Records in;
  in.tensor(&a, FUSION_DTYPE_F32, {1000});
  in.tensor(&b, FUSION_DTYPE_F32, {1000});
  std::vector<int64_t> out;
  ASSERT_EQ(infer(exe.get(), in, out), FUSION_OK);
  ASSERT_EQ(infer(exe.get(), in, out), FUSION_OK);
  int64_t n = 1000;
  fusion_arg args[2] = {};
  for (int i = 0; i < 2; ++i) {
    args[i].kind = FUSION_ARG_TENSOR;
    args[i].dtype = FUSION_DTYPE_F32;
    args[i].data = i ? static_cast<void *>(&b) : &a;
    args[i].rank = 1;
    args[i].sizes = &n;
  }
  fusion_tensor inferred;
  ASSERT_EQ(fusion_executable_infer_outputs(exe.get(), args, 2, &inferred, 1),
            FUSION_OK);
  fusion_cache_stats stats;
  ASSERT_EQ(fusion_executable_cache_stats(exe.get(), &stats), FUSION_OK);
  EXPECT_EQ(stats.misses, 1u);
  EXPECT_EQ(stats.hits, 2u);
  EXPECT_EQ(stats.entries, 1u);
  // Other sizes: a second signature.
  in.record(0)[FUSION_PACKED_SIZES] = 7;
  in.record(1)[FUSION_PACKED_SIZES] = 7;
  ASSERT_EQ(infer(exe.get(), in, out), FUSION_OK);
  EXPECT_EQ(out[FUSION_PACKED_SIZES], 7);
  ASSERT_EQ(fusion_executable_cache_stats(exe.get(), &stats), FUSION_OK);
  EXPECT_EQ(stats.entries, 2u);
}

TEST(PackedApiTest, RunWithoutADriverIsATypedError) {
  if (cudaDriverLoadable())
    GTEST_SKIP() << "libcuda.so.1 is loadable here: the no-driver error "
                    "cannot be observed (GPURuntimeTest.PackedRun* runs)";
  ExecutablePtr exe = loadC(makeAddModule());
  int a = 0, b = 0;
  Records in;
  in.tensor(&a, FUSION_DTYPE_F32, {1000});
  in.tensor(&b, FUSION_DTYPE_F32, {1000});
  void *outData[1] = {nullptr};
  EXPECT_EQ(fusion_executable_run_packed(exe.get(), in.data.data(),
                                         in.words.data(), 2, outData, nullptr,
                                         1, nullptr),
            FUSION_ERROR_DRIVER_UNAVAILABLE);
  EXPECT_EQ(std::string(fusion_last_error_message())
                .rfind("CUDA driver not available: ", 0),
            0u)
      << fusion_last_error_message();
  EXPECT_EQ(outData[0], nullptr);
  double micros = -1;
  EXPECT_EQ(fusion_measure_raw_launch_us(10, nullptr, &micros),
            FUSION_ERROR_DRIVER_UNAVAILABLE);
  EXPECT_EQ(micros, -1);
}

TEST(PackedApiTest, RawLaunchArgumentErrors) {
  double micros = -1;
  EXPECT_EQ(fusion_measure_raw_launch_us(0, nullptr, &micros),
            FUSION_ERROR_INVALID_ARGUMENT);
  EXPECT_STREQ(fusion_last_error_message(), "launches must be positive, got 0");
  EXPECT_EQ(fusion_measure_raw_launch_us(10, nullptr, nullptr),
            FUSION_ERROR_INVALID_ARGUMENT);
  EXPECT_STREQ(fusion_last_error_message(), "us_per_launch is null");
  EXPECT_EQ(micros, -1);
}
