// Tests of input and output checking: each error code, and messages that name
// the input by index and name with the expected and the actual value.
#include "TestModule.h"

#include "fusion/Runtime/Executable.h"

#include <gtest/gtest.h>

#include <cstring>

using namespace fusion::runtime;
using namespace fusion::runtime::testing;
namespace fb = fusion::fb;

namespace {

class SignatureCheckTest : public ::testing::Test {
protected:
  void SetUp() override { exe = load(makeAddModule()); }

  /// Plans `args` and expects `code` with exactly `message`.
  void expectError(const std::vector<Argument> &args, ErrorCode code,
                   const std::string &message) {
    Expected<EvaluatedPlan> plan = exe->plan(args);
    ASSERT_FALSE(plan.ok());
    EXPECT_EQ(plan.status().code(), code) << plan.status().toString();
    EXPECT_EQ(plan.status().message(), message);
  }

  std::vector<Argument> addArgs() {
    return {Argument::tensor(fakePointer(0x1000), DType::F32, &n, 1),
            Argument::tensor(fakePointer(0x2000), DType::F32, &n, 1)};
  }

  int64_t n = 1000;
  std::unique_ptr<Executable> exe;
};

} // namespace

TEST_F(SignatureCheckTest, AcceptsMatchingInputs) {
  Expected<EvaluatedPlan> plan = exe->plan(addArgs());
  ASSERT_TRUE(plan.ok()) << plan.status().toString();
  EXPECT_EQ(plan->output(0).sizes[0], 1000);
}

TEST_F(SignatureCheckTest, WrongInputCount) {
  std::vector<Argument> args = addArgs();
  args.push_back(args[0]);
  expectError(args, ErrorCode::WrongInputCount,
              "wrong number of inputs: expected 2, got 3");
  expectError({}, ErrorCode::WrongInputCount,
              "wrong number of inputs: expected 2, got 0");
}

TEST_F(SignatureCheckTest, WrongInputKind) {
  std::vector<Argument> args = addArgs();
  args[1] = Argument::floatScalar(1.0, DType::F32);
  expectError(args, ErrorCode::WrongInputKind,
              "input 1 (b): expected a tensor, got a scalar");
  args[1].kind = static_cast<ArgKind>(7);
  expectError(args, ErrorCode::WrongInputKind,
              "input 1 (b): expected a tensor, got invalid kind 7");
}

TEST_F(SignatureCheckTest, WrongDType) {
  std::vector<Argument> args = addArgs();
  args[1].dtype = DType::BF16;
  expectError(args, ErrorCode::WrongDType,
              "input 1 (b): expected dtype f32, got bf16");
  args[1].dtype = static_cast<DType>(99);
  expectError(args, ErrorCode::WrongDType,
              "input 1 (b): expected dtype f32, got invalid dtype 99");
}

TEST_F(SignatureCheckTest, WrongRank) {
  std::vector<Argument> args = addArgs();
  int64_t sizes[] = {10, 100};
  args[0].rank = 2;
  args[0].sizes = sizes;
  expectError(args, ErrorCode::WrongRank,
              "input 0 (a): expected rank 1, got 2");
}

TEST_F(SignatureCheckTest, NullSizesArray) {
  std::vector<Argument> args = addArgs();
  args[0].sizes = nullptr;
  expectError(args, ErrorCode::InvalidArgument, "input 0 (a): sizes is null");
}

TEST_F(SignatureCheckTest, StaticSizeMismatch) {
  TestModule module;
  module.inputs = {{"x", fb::ArgKind::Tensor, fb::DType::F16, {-1, 4096}}};
  exe = load(module);
  int64_t good[] = {8, 4096};
  int64_t bad[] = {8, 4095};
  EXPECT_TRUE(
      exe->plan({Argument::tensor(fakePointer(0x100), DType::F16, good, 2)})
          .ok());
  expectError({Argument::tensor(fakePointer(0x100), DType::F16, bad, 2)},
              ErrorCode::WrongSize,
              "input 0 (x): dim 1 expected 4096, got 4095");
}

TEST_F(SignatureCheckTest, NegativeSize) {
  std::vector<Argument> args = addArgs();
  int64_t negative = -5;
  args[1].sizes = &negative;
  expectError(args, ErrorCode::WrongSize,
              "input 1 (b): dim 0 has negative size -5");
}

// Found by fusion-fuzz-module: without strides, the row-major strides of
// 1 x 2^32 x 2^32 overflowed int64 (undefined behaviour) while the plan's
// cache key was built.
TEST_F(SignatureCheckTest, RowMajorStridesThatOverflow) {
  TestModule module;
  module.inputs = {{"x", fb::ArgKind::Tensor, fb::DType::BF16, {-1, -1, -1}}};
  exe = load(module);
  int64_t sizes[] = {1, int64_t(1) << 32, int64_t(1) << 32};
  expectError({Argument::tensor(fakePointer(0x100), DType::BF16, sizes, 3)},
              ErrorCode::IntegerOverflow,
              "input 0 (x): the row-major stride of dim 0 (the product of "
              "the sizes after it) overflows int64");
  // Sizes whose row-major strides fit are planned.
  int64_t fine[] = {1, int64_t(1) << 20, int64_t(1) << 20};
  EXPECT_TRUE(
      exe->plan({Argument::tensor(fakePointer(0x100), DType::BF16, fine, 3)})
          .ok());
}

TEST_F(SignatureCheckTest, NullPointerOfANonEmptyTensor) {
  std::vector<Argument> args = addArgs();
  args[0].data = nullptr;
  expectError(args, ErrorCode::NullPointer,
              "input 0 (a): null data pointer for a tensor of 1000 elements");
}

TEST_F(SignatureCheckTest, MisalignedPointerOfANonEmptyTensor) {
  std::vector<Argument> args = addArgs();
  args[1].data = fakePointer(0x2001); // an f32 at +1 byte
  expectError(args, ErrorCode::MisalignedPointer,
              "input 1 (b): data pointer 0x2001 is not aligned to 4 bytes "
              "(the size of f32)");
  args[1].data = fakePointer(0x2002);
  expectError(args, ErrorCode::MisalignedPointer,
              "input 1 (b): data pointer 0x2002 is not aligned to 4 bytes "
              "(the size of f32)");
  // Checked on cache hits too, and by inferOutputs.
  ASSERT_TRUE(exe->plan(addArgs()).ok());
  args[0].data = fakePointer(0x1003);
  args[1].data = fakePointer(0x2000);
  expectError(args, ErrorCode::MisalignedPointer,
              "input 0 (a): data pointer 0x1003 is not aligned to 4 bytes "
              "(the size of f32)");
  OutputTensor output;
  Status status = exe->inferOutputs(args.data(), args.size(), &output, 1);
  EXPECT_EQ(status.code(), ErrorCode::MisalignedPointer) << status.toString();
  // An empty tensor's pointer is never dereferenced.
  int64_t zero = 0;
  args = {Argument::tensor(fakePointer(0x1001), DType::F32, &zero, 1),
          Argument::tensor(fakePointer(0x2003), DType::F32, &zero, 1)};
  Expected<EvaluatedPlan> plan = exe->plan(args);
  EXPECT_TRUE(plan.ok()) << plan.status().toString();
}

TEST_F(SignatureCheckTest, PointerAlignmentIsTheElementSize) {
  TestModule module = makeAddModule();
  module.inputs[0].dtype = fb::DType::I8;
  module.inputs[1].dtype = fb::DType::F64;
  exe = load(module);
  std::vector<Argument> args = {
      Argument::tensor(fakePointer(0x1001), DType::I8, &n, 1),
      Argument::tensor(fakePointer(0x2008), DType::F64, &n, 1)};
  Expected<EvaluatedPlan> plan = exe->plan(args);
  EXPECT_TRUE(plan.ok()) << plan.status().toString();
  args[1].data = fakePointer(0x2004);
  expectError(args, ErrorCode::MisalignedPointer,
              "input 1 (b): data pointer 0x2004 is not aligned to 8 bytes "
              "(the size of f64)");
}

TEST_F(SignatureCheckTest, NullPointerOfAnEmptyTensorIsFine) {
  int64_t zero = 0;
  std::vector<Argument> args = {
      Argument::tensor(nullptr, DType::F32, &zero, 1),
      Argument::tensor(nullptr, DType::F32, &zero, 1)};
  Expected<EvaluatedPlan> plan = exe->plan(args);
  ASSERT_TRUE(plan.ok()) << plan.status().toString();
  // No blocks: the launch is skipped instead of failing in CUDA.
  EXPECT_EQ(plan->launches[0].grid[0], 0u);
  EXPECT_TRUE(plan->launches[0].skipped);
  EXPECT_EQ(plan->output(0).bytes, 0);
}

TEST_F(SignatureCheckTest, ConstraintViolation) {
  std::vector<Argument> args = addArgs();
  int64_t other = 999;
  args[1].sizes = &other;
  expectError(args, ErrorCode::ConstraintViolation,
              "input constraint violated: input 1 (b) dim 0 must equal input "
              "0 (a) dim 0 (999 != 1000)");
}

TEST_F(SignatureCheckTest, ScalarDTypeMismatch) {
  TestModule module;
  module.inputs = {{"eps", fb::ArgKind::Scalar, fb::DType::F32, {}},
                   {"k", fb::ArgKind::Scalar, fb::DType::I64, {}}};
  exe = load(module);
  EXPECT_TRUE(exe->plan({Argument::floatScalar(1e-5, DType::F32),
                         Argument::intScalar(3)})
                  .ok());
  expectError({Argument::floatScalar(1e-5, DType::F64), Argument::intScalar(3)},
              ErrorCode::WrongDType,
              "input 0 (eps): expected dtype f32, got f64");
  expectError({Argument::floatScalar(1e-5, DType::F32),
               Argument::intScalar(3, DType::I32)},
              ErrorCode::WrongDType,
              "input 1 (k): expected dtype i64, got i32");
}

TEST_F(SignatureCheckTest, ErrorsAreNotCached) {
  std::vector<Argument> args = addArgs();
  int64_t other = 999;
  args[1].sizes = &other;
  EXPECT_FALSE(exe->plan(args).ok());
  EXPECT_FALSE(exe->plan(args).ok());
  EXPECT_EQ(exe->cacheStats().entries, 0u);
  EXPECT_TRUE(exe->plan(addArgs()).ok());
  EXPECT_EQ(exe->cacheStats().entries, 1u);
}

TEST_F(SignatureCheckTest, InferOutputs) {
  OutputTensor out;
  ASSERT_TRUE(exe->inferOutputs(addArgs().data(), 2, &out, 1).ok());
  EXPECT_EQ(out.data, nullptr);
  EXPECT_EQ(out.dtype, DType::F32);
  EXPECT_EQ(out.rank, 1);
  EXPECT_EQ(out.sizes[0], 1000);
  EXPECT_EQ(out.strides[0], 1);
  Status status = exe->inferOutputs(addArgs().data(), 2, &out, 2);
  EXPECT_EQ(status.code(), ErrorCode::WrongOutput);
  EXPECT_EQ(status.message(), "wrong number of outputs: expected 1, got 2");
}

// Caller-provided outputs are checked before the CUDA driver is touched, so
// these run without a GPU; on error the output descriptors are untouched.
TEST_F(SignatureCheckTest, ProvidedOutputMismatches) {
  std::vector<Argument> args = addArgs();
  auto expectOutputError = [&](OutputTensor out, const std::string &message) {
    OutputTensor before = out;
    Status status = exe->run(args.data(), args.size(), &out, 1, nullptr);
    EXPECT_EQ(status.code(), ErrorCode::WrongOutput) << status.toString();
    EXPECT_EQ(status.message(), message);
    EXPECT_EQ(std::memcmp(&before, &out, sizeof(out)), 0);
  };
  OutputTensor out;
  out.data = fakePointer(0x3000);
  out.dtype = DType::F32;
  out.rank = 1;
  out.sizes[0] = 1000;
  out.strides[0] = 1;

  OutputTensor wrong = out;
  wrong.dtype = DType::F16;
  expectOutputError(wrong, "output 0: expected dtype f32, got f16");
  wrong = out;
  wrong.rank = 2;
  expectOutputError(wrong, "output 0: expected rank 1, got 2");
  wrong = out;
  wrong.sizes[0] = 1001;
  expectOutputError(wrong, "output 0: dim 0 expected 1000, got 1001");
  wrong = out;
  wrong.strides[0] = 2;
  expectOutputError(wrong, "output 0: dim 0 stride expected 1, got 2");

  OutputTensor two[2] = {out, out};
  Status status = exe->run(args.data(), args.size(), two, 2, nullptr);
  EXPECT_EQ(status.code(), ErrorCode::WrongOutput);
  EXPECT_EQ(status.message(), "wrong number of outputs: expected 1, got 2");
}

TEST_F(SignatureCheckTest, InputErrorsComeBeforeTheDriver) {
  std::vector<Argument> args = addArgs();
  args[0].dtype = DType::I8;
  OutputTensor out;
  OutputTensor before = out;
  Status status = exe->run(args.data(), args.size(), &out, 1, nullptr);
  EXPECT_EQ(status.code(), ErrorCode::WrongDType);
  EXPECT_EQ(status.message(), "input 0 (a): expected dtype f32, got i8");
  EXPECT_EQ(std::memcmp(&before, &out, sizeof(out)), 0);
}
