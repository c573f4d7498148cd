// Tests of launch-plan evaluation without a GPU: grid/block/shared memory,
// variant choice, parameter packing, buffer layouts, and the plan cache.
#include "TestModule.h"

#include "fusion/Runtime/Executable.h"

#include <gtest/gtest.h>

#include <cstring>

using namespace fusion::runtime;
using namespace fusion::runtime::testing;
namespace fb = fusion::fb;

namespace {

template <typename T> T readAt(const std::vector<uint8_t> &bytes, size_t at) {
  T value;
  EXPECT_LE(at + sizeof(T), bytes.size());
  std::memcpy(&value, bytes.data() + at, sizeof(T));
  return value;
}

std::vector<Argument> addArgs(const int64_t *n) {
  return {Argument::tensor(fakePointer(0x1000), DType::F32, n, 1),
          Argument::tensor(fakePointer(0x2000), DType::F32, n, 1)};
}

} // namespace

TEST(LaunchPlanTest, GridFromSizes) {
  std::unique_ptr<Executable> exe = load(makeAddModule());
  for (auto [n, blocks] : {std::pair<int64_t, uint32_t>{1, 1},
                           {128, 1},
                           {1000, 8},
                           {1024, 8},
                           {1025, 9}}) {
    Expected<EvaluatedPlan> plan = exe->plan(addArgs(&n));
    ASSERT_TRUE(plan.ok()) << plan.status().toString();
    const LaunchConfig &launch = plan->launches[0];
    EXPECT_EQ(launch.grid[0], blocks) << n;
    EXPECT_EQ(launch.grid[1], 1u);
    EXPECT_EQ(launch.block[0], 128u);
    EXPECT_EQ(launch.dynamicSmem, 0u);
    EXPECT_FALSE(launch.hasCluster);
    EXPECT_FALSE(launch.cooperative);
    EXPECT_EQ(launch.kernel, 0);
  }
}

TEST(LaunchPlanTest, PackingFollowsCStructLayout) {
  TestModule module = makeAddModule();
  module.inputs.push_back({"alpha", fb::ArgKind::Scalar, fb::DType::F32, {}});
  module.inputs.push_back({"beta", fb::ArgKind::Scalar, fb::DType::F64, {}});
  module.inputs.push_back({"seed", fb::ArgKind::Scalar, fb::DType::I64, {}});
  int32_t neg = module.constant(-7);
  module.launches[0][0].params = {
      {fb::ParamKind::I32, 0},       // n as i32      @0
      {fb::ParamKind::I64, 3},       // grid          @8
      {fb::ParamKind::Pointer, 1},   // b             @16
      {fb::ParamKind::ScalarF32, 2}, // alpha         @24
      {fb::ParamKind::I32, neg},     //               @28
      {fb::ParamKind::Pointer, 5},   // out (slot 5)  @32
      {fb::ParamKind::ScalarF64, 3}, // beta          @40
      {fb::ParamKind::I32, 2},       // 128           @48
      {fb::ParamKind::ScalarI64, 4}, // seed          @56
      {fb::ParamKind::ScalarF32, 2}, // alpha         @64
  };
  std::unique_ptr<Executable> exe = load(module);
  int64_t n = 1000;
  std::vector<Argument> args = addArgs(&n);
  args.push_back(Argument::floatScalar(0.5, DType::F32));
  args.push_back(Argument::floatScalar(-2.25, DType::F64));
  args.push_back(Argument::intScalar(123456789012345, DType::I64));
  Expected<EvaluatedPlan> plan = exe->plan(args);
  ASSERT_TRUE(plan.ok()) << plan.status().toString();

  const LaunchConfig &launch = plan->launches[0];
  std::vector<uint32_t> offsets, sizes;
  for (const ParamField &field : launch.fields) {
    offsets.push_back(field.offset);
    sizes.push_back(field.size);
  }
  EXPECT_EQ(offsets,
            (std::vector<uint32_t>{0, 8, 16, 24, 28, 32, 40, 48, 56, 64}));
  EXPECT_EQ(sizes, (std::vector<uint32_t>{4, 8, 8, 4, 4, 8, 8, 4, 8, 4}));
  // No padding after the last parameter.
  ASSERT_EQ(launch.params.size(), 68u);
  const std::vector<uint8_t> &p = launch.params;
  EXPECT_EQ(readAt<int32_t>(p, 0), 1000);
  EXPECT_EQ(readAt<int64_t>(p, 8), 8);
  EXPECT_EQ(readAt<uint64_t>(p, 16), 0x2000u);
  EXPECT_EQ(readAt<float>(p, 24), 0.5f);
  EXPECT_EQ(readAt<int32_t>(p, 28), -7);
  EXPECT_EQ(readAt<uint64_t>(p, 32), 0u); // allocated at run time
  EXPECT_EQ(readAt<double>(p, 40), -2.25);
  EXPECT_EQ(readAt<int32_t>(p, 48), 128);
  EXPECT_EQ(readAt<int64_t>(p, 56), 123456789012345);
  EXPECT_EQ(readAt<float>(p, 64), 0.5f);
  // Padding bytes are zero.
  EXPECT_EQ(readAt<uint32_t>(p, 4), 0u);
  EXPECT_EQ(readAt<uint32_t>(p, 52), 0u);

  // Scalars that no expression reads are patched per call, not keyed.
  args[2].floatValue = 4.0;
  plan = exe->plan(args);
  ASSERT_TRUE(plan.ok());
  EXPECT_EQ(readAt<float>(plan->launches[0].params, 24), 4.0f);
  EXPECT_EQ(exe->cacheStats().misses, 1u);
  EXPECT_EQ(exe->cacheStats().hits, 1u);
}

TEST(LaunchPlanTest, FirstVariantWithATrueGuardIsTaken) {
  TestModule module = makeAddModule();
  int32_t limit = module.constant(4096);
  int32_t small = module.expr(fb::ExprOp::Lt, 0, limit); // n < 4096
  int32_t two = module.constant(2);
  int32_t smem = module.constant(100 * 1024);
  TestVariant smallVariant = module.launches[0][0];
  smallVariant.guard = small;
  smallVariant.cooperative = true;
  TestVariant largeVariant = module.launches[0][0];
  largeVariant.cluster = {two, 4, 4}; // (2, 1, 1): register 4 holds 1
  largeVariant.dynamicSmem = smem;
  module.launches[0] = {smallVariant, largeVariant};
  std::unique_ptr<Executable> exe = load(module);

  int64_t n = 100;
  Expected<EvaluatedPlan> plan = exe->plan(addArgs(&n));
  ASSERT_TRUE(plan.ok()) << plan.status().toString();
  EXPECT_EQ(plan->launches[0].variant, 0);
  EXPECT_TRUE(plan->launches[0].cooperative);
  EXPECT_FALSE(plan->launches[0].hasCluster);
  EXPECT_EQ(plan->launches[0].dynamicSmem, 0u);

  n = 10240; // 80 blocks of 128: whole clusters of 2
  plan = exe->plan(addArgs(&n));
  ASSERT_TRUE(plan.ok()) << plan.status().toString();
  const LaunchConfig &launch = plan->launches[0];
  EXPECT_EQ(launch.variant, 1);
  EXPECT_FALSE(launch.cooperative);
  EXPECT_TRUE(launch.hasCluster);
  EXPECT_EQ(launch.cluster[0], 2u);
  EXPECT_EQ(launch.cluster[1], 1u);
  EXPECT_EQ(launch.cluster[2], 1u);
  EXPECT_EQ(launch.dynamicSmem, 100u * 1024);
}

// CUDA launches whole clusters of at most 16 blocks (8 portably): a grid
// that clusters do not tile, or a larger cluster, is refused before any
// launch.
TEST(LaunchPlanTest, ClustersMustTileTheGrid) {
  TestModule module = makeAddModule();
  int32_t two = module.constant(2);
  int32_t four = module.constant(4);
  module.launches[0][0].cluster = {two, 4, 4}; // (2, 1, 1)
  std::unique_ptr<Executable> exe = load(module);
  int64_t n = 128 * 6;
  Expected<EvaluatedPlan> plan = exe->plan(addArgs(&n));
  ASSERT_TRUE(plan.ok()) << plan.status().toString();
  EXPECT_EQ(plan->launches[0].grid[0], 6u);
  n = 128 * 7;
  plan = exe->plan(addArgs(&n));
  ASSERT_FALSE(plan.ok());
  EXPECT_EQ(plan.status().code(), ErrorCode::InvalidLaunchValue);
  EXPECT_EQ(plan.status().message(),
            "launch 0 (kernel add_f32): grid.x = 7 is not a multiple of "
            "cluster.x = 2");

  int32_t sixteen = module.expr(fb::ExprOp::Mul, four, four);
  module.launches[0][0].cluster = {sixteen, 4, 4};
  exe = load(module);
  n = 128 * 32;
  plan = exe->plan(addArgs(&n));
  ASSERT_TRUE(plan.ok()) << plan.status().toString();
  module.launches[0][0].cluster = {module.expr(fb::ExprOp::Mul, sixteen, two),
                                   4, 4};
  exe = load(module);
  plan = exe->plan(addArgs(&n));
  ASSERT_FALSE(plan.ok());
  EXPECT_EQ(plan.status().code(), ErrorCode::InvalidLaunchValue);
  EXPECT_EQ(plan.status().message(),
            "launch 0 (kernel add_f32): a cluster of more than 16 blocks");
}

// Note [Tensor maps]: a variant with a tensor map is taken only where the
// copy engine's rules hold for the call (an aligned pointer, the innermost
// stride 1, other strides multiples of 16 bytes); otherwise the next
// variant, never an error, and FUSION_RUNTIME_DEBUG says why. The map is a
// 128-byte parameter at a multiple of 64.
TEST(LaunchPlanTest, TensorMapVariantsNeedTheCopyEnginesRules) {
  std::unique_ptr<Executable> exe = load(makeTensorMapModule());
  auto kernelOf = [&](uintptr_t address, std::vector<int64_t> sizes,
                      std::vector<int64_t> strides) -> std::string {
    Argument x = Argument::tensor(fakePointer(address), DType::F32,
                                  sizes.data(), 2, strides.data());
    Expected<EvaluatedPlan> plan = exe->plan({x});
    if (!plan.ok())
      return plan.status().toString();
    return exe->info().kernels[plan->launches[0].kernel].name;
  };
  EXPECT_EQ(kernelOf(0x1000, {100, 64}, {64, 1}), "tile_tma");
  // A row of 1001 floats: 4004 bytes, not a multiple of 16.
  EXPECT_EQ(kernelOf(0x1000, {100, 1001}, {1001, 1}), "tile");
  // Padded rows that are: the map steps over them.
  EXPECT_EQ(kernelOf(0x1000, {100, 1001}, {1004, 1}), "tile_tma");
  EXPECT_EQ(kernelOf(0x1004, {100, 64}, {64, 1}), "tile");  // unaligned
  EXPECT_EQ(kernelOf(0x1000, {100, 64}, {1, 100}), "tile"); // transposed
  EXPECT_EQ(kernelOf(0x1000, {100, 64}, {32, 1}), "tile");  // overlapping
  EXPECT_EQ(kernelOf(0x1000, {100, 0}, {64, 1}), "tile");   // empty
  // A dim of size 1 may have any stride (PyTorch's [1, n] views).
  EXPECT_EQ(kernelOf(0x1000, {1, 64}, {1, 1}), "tile_tma");
  EXPECT_EQ(kernelOf(0x1000, {100, 1}, {4, 7}), "tile_tma");
  EXPECT_EQ(kernelOf(0x1000, {100, 1}, {1, 7}), "tile"); // rows 4 bytes apart
  int64_t huge = (int64_t(1) << 32) + 16;
  EXPECT_EQ(kernelOf(0x1000, {4, huge}, {huge, 1}), "tile");

  int64_t sizes[2] = {100, 64}, strides[2] = {64, 1};
  Expected<EvaluatedPlan> plan = exe->plan(
      {Argument::tensor(fakePointer(0x1000), DType::F32, sizes, 2, strides)});
  ASSERT_TRUE(plan.ok()) << plan.status().toString();
  const LaunchConfig &launch = plan->launches[0];
  ASSERT_EQ(launch.fields.size(), 3u);
  EXPECT_EQ(launch.fields[1].kind, ParamKind::TensorMap);
  EXPECT_EQ(launch.fields[1].offset, 64u);
  EXPECT_EQ(launch.fields[1].size, 128u);
  EXPECT_EQ(launch.fields[2].offset, 192u);
  EXPECT_EQ(launch.params.size(), 200u);
  EXPECT_EQ(readAt<int64_t>(launch.params, 192), 64);

  setenv("FUSION_RUNTIME_DEBUG", "1", 1);
  ::testing::internal::CaptureStderr();
  strides[0] = 1001;
  sizes[0] = 50; // a signature not evaluated yet (plans are cached)
  sizes[1] = 1001;
  plan = exe->plan(
      {Argument::tensor(fakePointer(0x1000), DType::F32, sizes, 2, strides)});
  std::string log = ::testing::internal::GetCapturedStderr();
  unsetenv("FUSION_RUNTIME_DEBUG");
  ASSERT_TRUE(plan.ok()) << plan.status().toString();
  EXPECT_EQ(log, "fusion runtime: launch 0: variant 0 (kernel tile_tma) not "
                 "taken: tensor map 0: dim 0 has a stride of 4004 bytes (a "
                 "multiple of 16 below 2^40, at least 4004)\n");
}

TEST(LaunchPlanTest, NoTrueGuardIsATypedError) {
  TestModule module = makeAddModule();
  int32_t zero = module.constant(0);
  module.launches[0][0].guard = zero;
  std::unique_ptr<Executable> exe = load(module);
  int64_t n = 10;
  Expected<EvaluatedPlan> plan = exe->plan(addArgs(&n));
  ASSERT_FALSE(plan.ok());
  EXPECT_EQ(plan.status().code(), ErrorCode::NoLaunchVariant);
  EXPECT_EQ(plan.status().message(),
            "launch 0: none of its 1 variants has a true guard");
}

TEST(LaunchPlanTest, OutOfRangeLaunchValues) {
  struct Case {
    int64_t block;
    std::string message;
  } cases[] = {
      {0, "launch 0 (kernel add_f32): block.x = 0 is out of range"},
      {2048, "launch 0 (kernel add_f32): block.x = 2048 is out of range"},
  };
  for (const Case &c : cases) {
    TestModule module = makeAddModule();
    module.exprs[2].imm = c.block;
    module.exprs[3].op = fb::ExprOp::Const; // grid fixed at 1
    module.exprs[3].imm = 1;
    std::unique_ptr<Executable> exe = load(module);
    int64_t n = 10;
    Expected<EvaluatedPlan> plan = exe->plan(addArgs(&n));
    ASSERT_FALSE(plan.ok());
    EXPECT_EQ(plan.status().code(), ErrorCode::InvalidLaunchValue);
    EXPECT_EQ(plan.status().message(), c.message);
  }
  TestModule module = makeAddModule();
  int32_t threads = module.constant(64);
  module.launches[0][0].block = {threads, threads, 4}; // 64*64*1
  std::unique_ptr<Executable> exe = load(module);
  int64_t n = 10;
  Expected<EvaluatedPlan> plan = exe->plan(addArgs(&n));
  ASSERT_FALSE(plan.ok());
  EXPECT_EQ(plan.status().message(),
            "launch 0 (kernel add_f32): 4096 threads per block exceed 1024");

  module = makeAddModule();
  int32_t negative = module.constant(-3);
  module.launches[0][0].grid[2] = negative;
  exe = load(module);
  plan = exe->plan(addArgs(&n));
  ASSERT_FALSE(plan.ok());
  EXPECT_EQ(plan.status().message(),
            "launch 0 (kernel add_f32): grid.z = -3 is out of range");
}

TEST(LaunchPlanTest, BufferLayouts) {
  TestModule module;
  module.inputs = {{"x", fb::ArgKind::Tensor, fb::DType::F16, {-1, -1}}};
  int32_t rows = module.inputSize(0, 0);
  int32_t cols = module.inputSize(0, 1);
  int32_t one = module.constant(1);
  int32_t total = module.expr(fb::ExprOp::Mul, rows, cols);
  module.buffers = {
      // 0: output, row-major [rows, cols] f32
      {fb::BufferKind::Output, fb::DType::F32, {rows, cols}},
      // 1: intermediate [rows] f64, zero-initialized
      {fb::BufferKind::Intermediate, fb::DType::F64, {rows}, true},
      // 2: intermediate [cols] i1
      {fb::BufferKind::Intermediate, fb::DType::I1, {cols}},
      // 3: output, a view of x as [rows * cols]
      {fb::BufferKind::Output, fb::DType::F16, {total}, false, 0},
      // 4: output, column-major [rows, cols] with strides [1, rows]
      {fb::BufferKind::Output,
       fb::DType::BF16,
       {rows, cols},
       false,
       -1,
       {one, rows}},
  };
  module.buffers[1].keptZero = true;
  module.outputs = {0, 3, 4};
  std::unique_ptr<Executable> exe = load(module);
  int64_t sizes[] = {3, 5};
  std::vector<Argument> args = {
      Argument::tensor(fakePointer(0x4000), DType::F16, sizes, 2)};
  Expected<EvaluatedPlan> plan = exe->plan(args);
  ASSERT_TRUE(plan.ok()) << plan.status().toString();

  const BufferLayout &out = plan->output(0);
  EXPECT_EQ(out.rank, 2);
  EXPECT_EQ(out.sizes[0], 3);
  EXPECT_EQ(out.sizes[1], 5);
  EXPECT_EQ(out.strides[0], 5);
  EXPECT_EQ(out.strides[1], 1);
  EXPECT_EQ(out.bytes, 60);
  EXPECT_EQ(out.poolOffset, -1);

  const BufferLayout &first = plan->buffers[1];
  EXPECT_EQ(first.kind, BufferKind::Intermediate);
  EXPECT_TRUE(first.zeroInit);
  EXPECT_TRUE(first.keptZero);
  EXPECT_EQ(first.bytes, 24);
  EXPECT_EQ(first.poolOffset, 0);
  const BufferLayout &second = plan->buffers[2];
  EXPECT_FALSE(second.keptZero);
  EXPECT_EQ(second.bytes, 5); // i1 is one byte
  EXPECT_EQ(second.poolOffset, 256);
  EXPECT_EQ(plan->intermediateBytes, 261);

  const BufferLayout &view = plan->output(1);
  EXPECT_EQ(view.aliasInput, 0);
  EXPECT_EQ(view.sizes[0], 15);
  EXPECT_EQ(view.bytes, 30);

  const BufferLayout &columnMajor = plan->output(2);
  EXPECT_EQ(columnMajor.strides[0], 1);
  EXPECT_EQ(columnMajor.strides[1], 3);
  EXPECT_EQ(columnMajor.bytes, 30);

  OutputTensor outputs[3];
  ASSERT_TRUE(exe->inferOutputs(args.data(), 1, outputs, 3).ok());
  EXPECT_EQ(outputs[0].data, nullptr);
  EXPECT_EQ(outputs[1].data, fakePointer(0x4000)); // a view: known now
  EXPECT_EQ(outputs[2].strides[1], 3);
}

// A view that starts inside its input (a slice): its data is the input's
// moved by the offset, and it must end inside the input too.
TEST(LaunchPlanTest, AViewStartsAtItsOffset) {
  TestModule module;
  module.version = 2;
  module.inputs = {{"x", fb::ArgKind::Tensor, fb::DType::F16, {-1}},
                   {"k", fb::ArgKind::Scalar, fb::DType::I64, {}}};
  int32_t n = module.inputSize(0, 0);
  int32_t k = module.expr(fb::ExprOp::ScalarInput, 1);
  int32_t rest = module.expr(fb::ExprOp::Sub, n, k);
  module.buffers = {
      {fb::BufferKind::Output, fb::DType::F16, {rest}, false, 0, {}, false, k}};
  module.outputs = {0};
  std::unique_ptr<Executable> exe = load(module);
  int64_t size = 10;
  auto call = [&](int64_t offset) {
    return std::vector<Argument>{
        Argument::tensor(fakePointer(0x1000), DType::F16, &size, 1),
        Argument::intScalar(offset)};
  };
  std::vector<Argument> args = call(3);
  Expected<EvaluatedPlan> plan = exe->plan(args.data(), args.size());
  ASSERT_TRUE(plan.ok()) << plan.status().toString();
  EXPECT_EQ(plan->output(0).aliasOffset, 3);
  EXPECT_EQ(plan->output(0).sizes[0], 7);
  OutputTensor out;
  ASSERT_TRUE(exe->inferOutputs(args.data(), args.size(), &out, 1).ok());
  EXPECT_EQ(out.data, fakePointer(0x1000 + 3 * 2));

  // 7 elements from element 4 would end one past the input.
  module.buffers[0].sizes = {
      module.expr(fb::ExprOp::Sub, n, module.constant(3))};
  exe = load(module);
  args = call(4);
  plan = exe->plan(args.data(), args.size());
  ASSERT_FALSE(plan.ok());
  EXPECT_EQ(plan.status().code(), ErrorCode::InvalidLaunchValue);
  EXPECT_EQ(plan.status().message(),
            "output 0 (buffer 0): a view of input 0 (x) needs 22 bytes, the "
            "input has 20");
  args = call(-1);
  plan = exe->plan(args.data(), args.size());
  ASSERT_FALSE(plan.ok());
  EXPECT_EQ(plan.status().message(),
            "output 0 (buffer 0): a view of input 0 (x) starts at element -1");
}

TEST(LaunchPlanTest, AViewMayNotOutgrowItsInput) {
  TestModule module;
  module.inputs = {{"x", fb::ArgKind::Tensor, fb::DType::F32, {-1}}};
  int32_t n = module.inputSize(0, 0);
  int32_t twice = module.expr(fb::ExprOp::Add, n, n);
  module.buffers = {
      {fb::BufferKind::Output, fb::DType::F32, {twice}, false, 0}};
  module.outputs = {0};
  std::unique_ptr<Executable> exe = load(module);
  int64_t size = 4;
  Expected<EvaluatedPlan> plan =
      exe->plan({Argument::tensor(fakePointer(0x100), DType::F32, &size, 1)});
  ASSERT_FALSE(plan.ok());
  EXPECT_EQ(plan.status().code(), ErrorCode::InvalidLaunchValue);
  EXPECT_EQ(plan.status().message(),
            "output 0 (buffer 0): a view of input 0 (x) needs 32 bytes, the "
            "input has 16");
}

TEST(LaunchPlanTest, NegativeBufferSizeIsATypedError) {
  TestModule module = makeAddModule();
  int32_t negative = module.constant(-1);
  module.buffers[0].sizes = {negative};
  std::unique_ptr<Executable> exe = load(module);
  int64_t n = 4;
  Expected<EvaluatedPlan> plan = exe->plan(addArgs(&n));
  ASSERT_FALSE(plan.ok());
  EXPECT_EQ(plan.status().code(), ErrorCode::InvalidLaunchValue);
  EXPECT_EQ(plan.status().message(),
            "output 0 (buffer 0): dim 0 has negative size -1");
}

// An empty buffer whose other dims' product overflows: its element count
// is 0, its row-major strides would overflow (fusion-fuzz-module found the
// signed overflow).
TEST(LaunchPlanTest, RowMajorStridesThatOverflowAreATypedError) {
  TestModule module = makeAddModule();
  int32_t huge = module.constant(int64_t(1) << 62);
  module.buffers[0].sizes = {module.constant(0), huge, huge};
  std::unique_ptr<Executable> exe = load(module);
  int64_t n = 4;
  Expected<EvaluatedPlan> plan = exe->plan(addArgs(&n));
  ASSERT_FALSE(plan.ok());
  EXPECT_EQ(plan.status().code(), ErrorCode::InvalidLaunchValue);
  EXPECT_EQ(plan.status().message(), "output 0 (buffer 0): the row-major "
                                     "stride of dim 0 overflows int64");
  // Strides that fit are kept, the empty dim's included.
  module.buffers[0].sizes = {module.constant(0), huge, module.constant(1)};
  exe = load(module);
  plan = exe->plan(addArgs(&n));
  ASSERT_TRUE(plan.ok()) << plan.status().toString();
  EXPECT_EQ(plan->buffers[0].strides[0], int64_t(1) << 62);
  EXPECT_EQ(plan->buffers[0].numElements, 0);
}

TEST(LaunchPlanTest, CacheHitsForTheSameSignature) {
  std::unique_ptr<Executable> exe = load(makeAddModule());
  int64_t n = 1000;
  ASSERT_TRUE(exe->plan(addArgs(&n)).ok());
  EXPECT_EQ(exe->cacheStats().misses, 1u);
  EXPECT_EQ(exe->cacheStats().hits, 0u);

  // Same sizes, other pointers: a hit (the last-key fast path).
  std::vector<Argument> args = addArgs(&n);
  args[0].data = fakePointer(0x9000);
  Expected<EvaluatedPlan> plan = exe->plan(args);
  ASSERT_TRUE(plan.ok());
  EXPECT_EQ(readAt<uint64_t>(plan->launches[0].params, 0), 0x9000u);
  EXPECT_EQ(exe->cacheStats().hits, 1u);

  // Another size: a miss.
  int64_t m = 2000;
  plan = exe->plan(addArgs(&m));
  ASSERT_TRUE(plan.ok());
  EXPECT_EQ(plan->launches[0].grid[0], 16u);
  EXPECT_EQ(exe->cacheStats().misses, 2u);

  // Back to the first size: found in the map.
  plan = exe->plan(addArgs(&n));
  ASSERT_TRUE(plan.ok());
  EXPECT_EQ(plan->launches[0].grid[0], 8u);
  PlanCacheStats stats = exe->cacheStats();
  EXPECT_EQ(stats.misses, 2u);
  EXPECT_EQ(stats.hits, 2u);
  EXPECT_EQ(stats.entries, 2u);

  // Strides are part of the signature too.
  int64_t stride = 2;
  args = addArgs(&n);
  args[1].strides = &stride;
  ASSERT_TRUE(exe->plan(args).ok());
  EXPECT_EQ(exe->cacheStats().misses, 3u);

  exe->clearCache();
  EXPECT_EQ(exe->cacheStats().entries, 0u);
  ASSERT_TRUE(exe->plan(addArgs(&n)).ok());
  EXPECT_EQ(exe->cacheStats().misses, 4u);
}

TEST(LaunchPlanTest, NullPointerCheckedOnCacheHitsToo) {
  std::unique_ptr<Executable> exe = load(makeAddModule());
  int64_t n = 1000;
  ASSERT_TRUE(exe->plan(addArgs(&n)).ok());
  std::vector<Argument> args = addArgs(&n);
  args[1].data = nullptr;
  Expected<EvaluatedPlan> plan = exe->plan(args);
  ASSERT_FALSE(plan.ok());
  EXPECT_EQ(plan.status().code(), ErrorCode::NullPointer);
  EXPECT_EQ(exe->cacheStats().hits, 1u);
}
