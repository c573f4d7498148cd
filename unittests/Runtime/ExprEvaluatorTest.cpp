// Tests of the launch-plan expression program, through Executable::plan():
// every ExprOp, Python-style division semantics, and the typed errors.
#include "TestModule.h"

#include "fusion/Runtime/Executable.h"

#include <gtest/gtest.h>

#include <limits>

using namespace fusion::runtime;
using namespace fusion::runtime::testing;
namespace fb = fusion::fb;

namespace {

constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
constexpr int64_t kMax = std::numeric_limits<int64_t>::max();

/// A module with integer scalar inputs p, q, s (registers 0, 1, 2) and a
/// launch-free expression program.
TestModule makeScalarModule() {
  TestModule m;
  m.inputs = {{"p", fb::ArgKind::Scalar, fb::DType::I64, {}},
              {"q", fb::ArgKind::Scalar, fb::DType::I64, {}},
              {"s", fb::ArgKind::Scalar, fb::DType::I32, {}}};
  m.expr(fb::ExprOp::ScalarInput, 0);
  m.expr(fb::ExprOp::ScalarInput, 1);
  m.expr(fb::ExprOp::ScalarInput, 2);
  return m;
}

/// Evaluates `op`(p, q) (and s as Select's third operand).
Expected<int64_t> evaluate(fb::ExprOp op, int64_t p, int64_t q, int64_t s = 0) {
  TestModule module = makeScalarModule();
  int32_t result = module.expr(op, 0, 1, 2);
  std::unique_ptr<Executable> exe = load(module);
  std::vector<Argument> args = {Argument::intScalar(p), Argument::intScalar(q),
                                Argument::intScalar(s, DType::I32)};
  Expected<EvaluatedPlan> plan = exe->plan(args);
  if (!plan)
    return plan.status();
  return plan->registers[result];
}

int64_t value(fb::ExprOp op, int64_t p, int64_t q, int64_t s = 0) {
  Expected<int64_t> result = evaluate(op, p, q, s);
  EXPECT_TRUE(result.ok()) << result.status().toString();
  return result.ok() ? *result : -999999;
}

} // namespace

TEST(ExprEvaluatorTest, Arithmetic) {
  EXPECT_EQ(value(fb::ExprOp::Add, 7, -3), 4);
  EXPECT_EQ(value(fb::ExprOp::Sub, 7, -3), 10);
  EXPECT_EQ(value(fb::ExprOp::Mul, -7, 3), -21);
  EXPECT_EQ(value(fb::ExprOp::Min, -7, 3), -7);
  EXPECT_EQ(value(fb::ExprOp::Max, -7, 3), 3);
  EXPECT_EQ(value(fb::ExprOp::Eq, 3, 3), 1);
  EXPECT_EQ(value(fb::ExprOp::Eq, 3, 4), 0);
  EXPECT_EQ(value(fb::ExprOp::Lt, 3, 4), 1);
  EXPECT_EQ(value(fb::ExprOp::Lt, 4, 4), 0);
  EXPECT_EQ(value(fb::ExprOp::Lt, -5, 4), 1);
}

TEST(ExprEvaluatorTest, FloorDivRoundsTowardNegativeInfinity) {
  EXPECT_EQ(value(fb::ExprOp::FloorDiv, 7, 2), 3);
  EXPECT_EQ(value(fb::ExprOp::FloorDiv, -7, 2), -4);
  EXPECT_EQ(value(fb::ExprOp::FloorDiv, 7, -2), -4);
  EXPECT_EQ(value(fb::ExprOp::FloorDiv, -7, -2), 3);
  EXPECT_EQ(value(fb::ExprOp::FloorDiv, -6, 3), -2);
  EXPECT_EQ(value(fb::ExprOp::FloorDiv, 0, -3), 0);
  EXPECT_EQ(value(fb::ExprOp::FloorDiv, kMin, 1), kMin);
}

TEST(ExprEvaluatorTest, CeilDivRoundsTowardPositiveInfinity) {
  EXPECT_EQ(value(fb::ExprOp::CeilDiv, 7, 2), 4);
  EXPECT_EQ(value(fb::ExprOp::CeilDiv, -7, 2), -3);
  EXPECT_EQ(value(fb::ExprOp::CeilDiv, 7, -2), -3);
  EXPECT_EQ(value(fb::ExprOp::CeilDiv, -7, -2), 4);
  EXPECT_EQ(value(fb::ExprOp::CeilDiv, 6, 3), 2);
  EXPECT_EQ(value(fb::ExprOp::CeilDiv, 1000, 128), 8);
  EXPECT_EQ(value(fb::ExprOp::CeilDiv, 1025, 128), 9);
  EXPECT_EQ(value(fb::ExprOp::CeilDiv, kMax, 2), kMax / 2 + 1);
}

TEST(ExprEvaluatorTest, RemTakesTheSignOfTheDivisor) {
  EXPECT_EQ(value(fb::ExprOp::Rem, 7, 3), 1);
  EXPECT_EQ(value(fb::ExprOp::Rem, -7, 3), 2);
  EXPECT_EQ(value(fb::ExprOp::Rem, 7, -3), -2);
  EXPECT_EQ(value(fb::ExprOp::Rem, -7, -3), -1);
  EXPECT_EQ(value(fb::ExprOp::Rem, -6, 3), 0);
  EXPECT_EQ(value(fb::ExprOp::Rem, kMin, -1), 0);
}

TEST(ExprEvaluatorTest, Select) {
  // Select reads r[a] = p as the condition, r[b] = q, r[c] = s.
  EXPECT_EQ(value(fb::ExprOp::Select, 1, 10, 20), 10);
  EXPECT_EQ(value(fb::ExprOp::Select, -3, 10, 20), 10);
  EXPECT_EQ(value(fb::ExprOp::Select, 0, 10, 20), 20);
}

TEST(ExprEvaluatorTest, DivisionByZeroIsATypedError) {
  for (fb::ExprOp op :
       {fb::ExprOp::FloorDiv, fb::ExprOp::CeilDiv, fb::ExprOp::Rem}) {
    Expected<int64_t> result = evaluate(op, 7, 0);
    ASSERT_FALSE(result.ok());
    EXPECT_EQ(result.status().code(), ErrorCode::DivisionByZero);
    EXPECT_NE(
        result.status().message().find("division by zero (r0 = 7, r1 = 0)"),
        std::string::npos)
        << result.status().message();
  }
}

TEST(ExprEvaluatorTest, Int64OverflowIsATypedError) {
  struct Case {
    fb::ExprOp op;
    int64_t p, q;
  } cases[] = {{fb::ExprOp::Add, kMax, 1},
               {fb::ExprOp::Sub, kMin, 1},
               {fb::ExprOp::Mul, int64_t(1) << 32, int64_t(1) << 32},
               {fb::ExprOp::FloorDiv, kMin, -1},
               {fb::ExprOp::CeilDiv, kMin, -1}};
  for (const Case &c : cases) {
    Expected<int64_t> result = evaluate(c.op, c.p, c.q);
    ASSERT_FALSE(result.ok());
    EXPECT_EQ(result.status().code(), ErrorCode::IntegerOverflow);
    EXPECT_NE(result.status().message().find("int64 overflow"),
              std::string::npos);
  }
}

TEST(ExprEvaluatorTest, ConstInputSizeStrideAndScalar) {
  TestModule module;
  module.inputs = {{"x", fb::ArgKind::Tensor, fb::DType::BF16, {-1, -1, -1}},
                   {"k", fb::ArgKind::Scalar, fb::DType::I64, {}}};
  int32_t c = module.constant(-42);
  int32_t s1 = module.inputSize(0, 1);
  int32_t st0 = module.expr(fb::ExprOp::InputStride, 0, 0);
  int32_t st1 = module.expr(fb::ExprOp::InputStride, 0, 1);
  int32_t st2 = module.expr(fb::ExprOp::InputStride, 0, 2);
  int32_t k = module.expr(fb::ExprOp::ScalarInput, 1);
  std::unique_ptr<Executable> exe = load(module);

  int64_t sizes[] = {2, 3, 5};
  int64_t strides[] = {1, 2, 6}; // column-major
  char buffer[64];
  std::vector<Argument> args = {
      Argument::tensor(buffer, DType::BF16, sizes, 3, strides),
      Argument::intScalar(77)};
  Expected<EvaluatedPlan> plan = exe->plan(args);
  ASSERT_TRUE(plan.ok()) << plan.status().toString();
  EXPECT_EQ(plan->registers[c], -42);
  EXPECT_EQ(plan->registers[s1], 3);
  EXPECT_EQ(plan->registers[st0], 1);
  EXPECT_EQ(plan->registers[st1], 2);
  EXPECT_EQ(plan->registers[st2], 6);
  EXPECT_EQ(plan->registers[k], 77);

  // Without strides the tensor is row-major.
  args[0].strides = nullptr;
  plan = exe->plan(args);
  ASSERT_TRUE(plan.ok()) << plan.status().toString();
  EXPECT_EQ(plan->registers[st0], 15);
  EXPECT_EQ(plan->registers[st1], 5);
  EXPECT_EQ(plan->registers[st2], 1);
}

TEST(ExprEvaluatorTest, ScalarsReadByExpressionsAreInTheSignature) {
  TestModule module = makeScalarModule();
  module.expr(fb::ExprOp::Mul, 0, 1);
  std::unique_ptr<Executable> exe = load(module);
  auto planFor = [&](int64_t p) {
    std::vector<Argument> args = {Argument::intScalar(p),
                                  Argument::intScalar(6),
                                  Argument::intScalar(0, DType::I32)};
    Expected<EvaluatedPlan> plan = exe->plan(args);
    EXPECT_TRUE(plan.ok()) << plan.status().toString();
    return plan.ok() ? plan->registers[3] : -1;
  };
  EXPECT_EQ(planFor(3), 18);
  EXPECT_EQ(planFor(4), 24);
  EXPECT_EQ(planFor(3), 18);
  PlanCacheStats stats = exe->cacheStats();
  EXPECT_EQ(stats.misses, 2u);
  EXPECT_EQ(stats.hits, 1u);
}

TEST(ExprEvaluatorTest, PtrAligned) {
  TestModule module = makeAddModule();
  int32_t a16 = module.expr(fb::ExprOp::PtrAligned, 0, 0, 0, 16);
  int32_t b16 = module.expr(fb::ExprOp::PtrAligned, 1, 0, 0, 16);
  // Slot 2 is the output, which the runtime allocates 256-byte aligned.
  int32_t out16 = module.expr(fb::ExprOp::PtrAligned, 2, 0, 0, 16);
  int32_t out512 = module.expr(fb::ExprOp::PtrAligned, 2, 0, 0, 512);
  std::unique_ptr<Executable> exe = load(module);
  int64_t n = 8;
  std::vector<Argument> args = {
      Argument::tensor(reinterpret_cast<void *>(0x10000), DType::F32, &n, 1),
      Argument::tensor(reinterpret_cast<void *>(0x10004), DType::F32, &n, 1)};
  Expected<EvaluatedPlan> plan = exe->plan(args);
  ASSERT_TRUE(plan.ok()) << plan.status().toString();
  EXPECT_EQ(plan->registers[a16], 1);
  EXPECT_EQ(plan->registers[b16], 0);
  EXPECT_EQ(plan->registers[out16], 1);
  EXPECT_EQ(plan->registers[out512], 0);

  // Alignment is part of the signature: same sizes, other alignment, new plan.
  args[1].data = reinterpret_cast<void *>(0x10010);
  plan = exe->plan(args);
  ASSERT_TRUE(plan.ok());
  EXPECT_EQ(plan->registers[b16], 1);
  EXPECT_EQ(exe->cacheStats().misses, 2u);
  // Same alignment, other pointer: the cached plan.
  args[1].data = reinterpret_cast<void *>(0x20020);
  plan = exe->plan(args);
  ASSERT_TRUE(plan.ok());
  EXPECT_EQ(exe->cacheStats().misses, 2u);
  EXPECT_EQ(exe->cacheStats().hits, 1u);
}

TEST(ExprEvaluatorTest, I32ParameterOverflowIsATypedError) {
  TestModule module = makeScalarModule();
  module.kernels = {{"k", "ptx"}};
  int32_t one = module.constant(1);
  TestVariant v;
  v.grid = {one, one, one};
  v.block = {one, one, one};
  v.params = {{fb::ParamKind::I32, 0}};
  module.launches = {{v}};
  std::unique_ptr<Executable> exe = load(module);
  auto planFor = [&](int64_t p) {
    std::vector<Argument> args = {Argument::intScalar(p),
                                  Argument::intScalar(0),
                                  Argument::intScalar(0, DType::I32)};
    return exe->plan(args);
  };
  EXPECT_TRUE(planFor(2147483647).ok());
  EXPECT_TRUE(planFor(-2147483648LL).ok());
  Expected<EvaluatedPlan> plan = planFor(2147483648LL);
  ASSERT_FALSE(plan.ok());
  EXPECT_EQ(plan.status().code(), ErrorCode::IntegerOverflow);
  EXPECT_EQ(plan.status().message(),
            "launch 0 (kernel k): param 0 (i32 register r0) = 2147483648 does "
            "not fit in i32");
  plan = planFor(-2147483649LL);
  ASSERT_FALSE(plan.ok());
  EXPECT_EQ(plan.status().code(), ErrorCode::IntegerOverflow);
}
