//===- PipelineTest.cpp - compiler and runtime together, without a GPU ----===//
// Compiles example fusions to module files and checks the launch plans the
// runtime evaluates from them: variant choice, grid sizes, output shapes and
// input checks.
//===----------------------------------------------------------------------===//

#include "../Common/CompileHelpers.h"

#include "fusion/Runtime/Executable.h"
#include "fusion/Runtime/fusion_module_generated.h"
#include "fusion/Version.h"

#include <gtest/gtest.h>

#include <cstring>
#include <set>

using namespace fusion::runtime;
using fusion::testing::compileBytes;
using fusion::testing::compileExample;
using fusion::testing::compileSource;
using fusion::testing::readExample;

namespace {

struct Tensor2D {
  int64_t sizes[2];
  int64_t strides[2];
  Argument arg(uintptr_t address, DType dtype) {
    return Argument::tensor(reinterpret_cast<void *>(address), dtype, sizes, 2,
                            strides);
  }
};

Tensor2D contiguous(int64_t m, int64_t n) { return {{m, n}, {n, 1}}; }

std::string launchedKernel(Executable &exe, const EvaluatedPlan &plan) {
  return exe.info().kernels[plan.launches.at(0).kernel].name;
}

TEST(Pipeline, AddReluTakesTheVectorPathWhenAligned) {
  auto exe = compileExample("add_relu");
  ASSERT_TRUE(exe);
  ASSERT_EQ(exe->info().inputs.size(), 2u);
  EXPECT_EQ(exe->info().inputs[1].name, "b");
  Tensor2D a = contiguous(32768, 4096), b = contiguous(32768, 4096);
  auto plan =
      exe->plan({a.arg(0x100000, DType::F32), b.arg(0x200000, DType::F32)});
  ASSERT_TRUE(plan.ok()) << plan.status().toString();
  ASSERT_EQ(plan->launches.size(), 1u);
  EXPECT_EQ(launchedKernel(*exe, *plan), "add_relu_k0_v4_i32");
  // 2^27 elements in vectors of 4, two vectors per thread, 256 threads a
  // block: 2^16 blocks.
  EXPECT_EQ(plan->launches[0].grid[0], 65536u);
  EXPECT_EQ(plan->launches[0].block[0], 256u);
  EXPECT_EQ(plan->output(0).sizes[0], 32768);
  EXPECT_EQ(plan->output(0).sizes[1], 4096);
  EXPECT_EQ(plan->output(0).dtype, DType::F32);
}

// A module file says what wrote it (ModuleVerifierTest: one without the
// field, as files from before 0.1.0, loads with an empty producer).
TEST(Pipeline, ModuleFilesNameTheirProducer) {
  auto exe = compileExample("add_relu");
  ASSERT_TRUE(exe);
  EXPECT_EQ(exe->info().producer, "fusion " FUSION_VERSION_STRING);
}

// Note [Verification in the pipeline]: verifying only where the fusion
// passes leave the IR, or after every pass, compiles the same module.
TEST(Pipeline, VerifyingEveryPassChangesNothing) {
  for (const char *name : {"normalization/softmax", "add_relu"}) {
    std::string source = readExample(name);
    mlir::fusion::CompileOptions checkpoints, everyPass;
    everyPass.verifyEach = true;
    std::string a = compileBytes(source, true, &checkpoints);
    std::string b = compileBytes(source, true, &everyPass);
    ASSERT_FALSE(a.empty()) << name;
    EXPECT_TRUE(a == b) << name;
  }
}

TEST(Pipeline, MisalignedOrOddSizesFallBackToScalar) {
  auto exe = compileExample("add_relu");
  ASSERT_TRUE(exe);
  Tensor2D a = contiguous(7, 1000), b = contiguous(7, 1000);
  // One element past a 16-byte boundary.
  auto plan =
      exe->plan({a.arg(0x100004, DType::F32), b.arg(0x200000, DType::F32)});
  ASSERT_TRUE(plan.ok()) << plan.status().toString();
  EXPECT_EQ(launchedKernel(*exe, *plan), "add_relu_k0_s_i32");
  EXPECT_EQ(plan->launches[0].grid[0], 28u); // ceil(7000 / 256)

  Tensor2D c = contiguous(3, 1001), d = contiguous(3, 1001);
  plan = exe->plan({c.arg(0x100000, DType::F32), d.arg(0x200000, DType::F32)});
  ASSERT_TRUE(plan.ok());
  EXPECT_EQ(launchedKernel(*exe, *plan), "add_relu_k0_s_i32");

  // Non-contiguous rows (padded by 3) break vector alignment too.
  Tensor2D e = {{16, 1024}, {1027, 1}}, f = contiguous(16, 1024);
  plan = exe->plan({e.arg(0x100000, DType::F32), f.arg(0x200000, DType::F32)});
  ASSERT_TRUE(plan.ok());
  EXPECT_EQ(launchedKernel(*exe, *plan), "add_relu_k0_s_i32");
}

TEST(Pipeline, HugeTensorsUse64BitIndices) {
  auto exe = compileExample("add_relu");
  ASSERT_TRUE(exe);
  Tensor2D a = contiguous(65536, 32768), b = contiguous(65536, 32768);
  auto plan =
      exe->plan({a.arg(0x100000, DType::F32), b.arg(0x200000, DType::F32)});
  ASSERT_TRUE(plan.ok()) << plan.status().toString();
  EXPECT_EQ(launchedKernel(*exe, *plan), "add_relu_k0_s_i64");
}

TEST(Pipeline, GeluBiasBroadcastsAndChecksTheBias) {
  auto exe = compileExample("gelu_bias");
  ASSERT_TRUE(exe);
  Tensor2D x = contiguous(8192, 16384);
  int64_t biasSize[1] = {16384}, biasStride[1] = {1};
  auto bias = Argument::tensor(reinterpret_cast<void *>(0x300000), DType::BF16,
                               biasSize, 1, biasStride);
  auto plan = exe->plan({x.arg(0x100000, DType::BF16), bias});
  ASSERT_TRUE(plan.ok()) << plan.status().toString();
  EXPECT_EQ(launchedKernel(*exe, *plan), "gelu_bias_k0_v8_i32");
  EXPECT_EQ(plan->output(0).dtype, DType::BF16);

  int64_t wrongSize[1] = {16383};
  auto wrongBias = Argument::tensor(reinterpret_cast<void *>(0x300000),
                                    DType::BF16, wrongSize, 1, biasStride);
  plan = exe->plan({x.arg(0x100000, DType::BF16), wrongBias});
  ASSERT_FALSE(plan.ok());
  EXPECT_EQ(plan.status().code(), ErrorCode::ConstraintViolation);
  EXPECT_NE(plan.status().message().find("bias"), std::string::npos)
      << plan.status().message();
  // The error shows the size found and the size required.
  EXPECT_NE(plan.status().message().find("16383"), std::string::npos)
      << plan.status().message();
  EXPECT_NE(plan.status().message().find("16384"), std::string::npos)
      << plan.status().message();
}

TEST(Pipeline, WrongDTypeIsATypedError) {
  auto exe = compileExample("add_relu");
  ASSERT_TRUE(exe);
  Tensor2D a = contiguous(4, 4), b = contiguous(4, 4);
  auto plan =
      exe->plan({a.arg(0x100000, DType::F32), b.arg(0x200000, DType::BF16)});
  ASSERT_FALSE(plan.ok());
  EXPECT_EQ(plan.status().code(), ErrorCode::WrongDType);
  EXPECT_NE(plan.status().message().find("input 1 (b)"), std::string::npos)
      << plan.status().message();
}

// Views of inputs need no kernel: the outputs alias the input's memory.
constexpr const char *kViews = R"mlir(
fusion.fusion @views(%x: tensor<?x?xf32> {fusion.name = "x"}) -> (tensor<?xf32>, tensor<?x?xf32>, tensor<?x?xf32>) {
  %m = fusion.dim %x, 0 : tensor<?x?xf32>
  %n = fusion.dim %x, 1 : tensor<?x?xf32>
  %mn = arith.muli %m, %n : index
  %flat = fusion.reshape %x (%mn) : tensor<?x?xf32> -> tensor<?xf32>
  %t = fusion.permute %x [1, 0] : tensor<?x?xf32> -> tensor<?x?xf32>
  %e = fusion.exp %x : tensor<?x?xf32>
  fusion.return %flat, %t, %e : tensor<?xf32>, tensor<?x?xf32>, tensor<?x?xf32>
}
)mlir";

TEST(Pipeline, ViewsOfInputsAliasWithoutAKernel) {
  auto exe = compileSource(kViews);
  ASSERT_TRUE(exe);
  ASSERT_EQ(exe->info().outputs.size(), 3u);
  EXPECT_EQ(exe->info().outputs[0].aliasInput, 0);
  EXPECT_EQ(exe->info().outputs[1].aliasInput, 0);
  EXPECT_EQ(exe->info().outputs[2].aliasInput, -1);
  Tensor2D x = contiguous(6, 10);
  auto plan = exe->plan({x.arg(0x100000, DType::F32)});
  ASSERT_TRUE(plan.ok()) << plan.status().toString();
  ASSERT_EQ(plan->launches.size(), 1u); // only exp needs a kernel
  EXPECT_EQ(plan->output(0).rank, 1);
  EXPECT_EQ(plan->output(0).sizes[0], 60);
  EXPECT_EQ(plan->output(0).strides[0], 1);
  EXPECT_EQ(plan->output(1).sizes[0], 10);
  EXPECT_EQ(plan->output(1).sizes[1], 6);
  EXPECT_EQ(plan->output(1).strides[0], 1);
  EXPECT_EQ(plan->output(1).strides[1], 10);

  // A padded (non-contiguous) input cannot be reshaped without a copy.
  Tensor2D padded = {{6, 10}, {13, 1}};
  plan = exe->plan({padded.arg(0x100000, DType::F32)});
  ASSERT_FALSE(plan.ok());
  EXPECT_EQ(plan.status().code(), ErrorCode::ConstraintViolation);
  EXPECT_NE(plan.status().message().find("input 0 (x) must be contiguous"),
            std::string::npos)
      << plan.status().message();
}

// Slices of inputs are views too: x[1:, a::2] and a slice of its
// transpose, with the start `a` an input. A reshape of a slice is not (a
// slice is rarely contiguous): it runs in a kernel.
constexpr const char *kSliceViews = R"mlir(
fusion.fusion @sliced(%x: tensor<?x?xf32> {fusion.name = "x"}, %a: index {fusion.name = "a"}, %step: index {fusion.name = "step"}) -> (tensor<?x?xf32>, tensor<?x?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %m = fusion.dim %x, 0 : tensor<?x?xf32>
  %n = fusion.dim %x, 1 : tensor<?x?xf32>
  %s = fusion.slice %x [%c1, %a] [%m, %n] [%c1, %step] : tensor<?x?xf32> -> tensor<?x?xf32>
  %t = fusion.permute %s [1, 0] : tensor<?x?xf32> -> tensor<?x?xf32>
  %r = fusion.slice %t [%c1, %c0] [%m, %c2] [%c1, %c1] : tensor<?x?xf32> -> tensor<?x?xf32>
  fusion.return %s, %r : tensor<?x?xf32>, tensor<?x?xf32>
}
)mlir";
constexpr const char *kSliceReshape = R"mlir(
fusion.fusion @sliced_reshape(%x: tensor<?x?xf32> {fusion.name = "x"}) -> tensor<?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %m = fusion.dim %x, 0 : tensor<?x?xf32>
  %s = fusion.slice %x [%c0, %c0] [%m, %c2] [%c1, %c1] : tensor<?x?xf32> -> tensor<?x?xf32>
  %k = arith.muli %m, %c2 : index
  %f = fusion.reshape %s (%k) : tensor<?x?xf32> -> tensor<?xf32>
  fusion.return %f : tensor<?xf32>
}
)mlir";

TEST(Pipeline, SlicesOfInputsAreViewsWithAnOffset) {
  auto exe = compileSource(kSliceViews);
  ASSERT_TRUE(exe);
  // An offset needs format version 2; views without one keep version 1.
  EXPECT_EQ(exe->info().version, 2u);
  auto plain = compileSource(kViews);
  ASSERT_TRUE(plain);
  EXPECT_EQ(plain->info().version, 1u);

  ASSERT_EQ(exe->info().outputs.size(), 2u);
  EXPECT_EQ(exe->info().outputs[0].aliasInput, 0);
  EXPECT_EQ(exe->info().outputs[1].aliasInput, 0);
  Tensor2D padded = {{6, 10}, {13, 1}};
  auto call = [&](int64_t a, int64_t step) {
    return std::vector<Argument>{padded.arg(0x100000, DType::F32),
                                 Argument::intScalar(a),
                                 Argument::intScalar(step)};
  };
  std::vector<Argument> args = call(3, 2);
  auto plan = exe->plan(args);
  ASSERT_TRUE(plan.ok()) << plan.status().toString();
  EXPECT_TRUE(plan->launches.empty());
  // x[1:, 3::2]: 5 x 4 elements, strides 13 and 2, from element 13 + 3.
  const BufferLayout &s = plan->output(0);
  EXPECT_EQ(s.sizes[0], 5);
  EXPECT_EQ(s.sizes[1], 4);
  EXPECT_EQ(s.strides[0], 13);
  EXPECT_EQ(s.strides[1], 2);
  EXPECT_EQ(s.aliasOffset, 16);
  // Its transpose's rows 1.. and columns 0..2: the 3 later columns.
  const BufferLayout &r = plan->output(1);
  EXPECT_EQ(r.sizes[0], 3);
  EXPECT_EQ(r.sizes[1], 2);
  EXPECT_EQ(r.strides[0], 2);
  EXPECT_EQ(r.strides[1], 13);
  EXPECT_EQ(r.aliasOffset, 18);
  OutputTensor outs[2];
  ASSERT_TRUE(exe->inferOutputs(args.data(), args.size(), outs, 2).ok());
  EXPECT_EQ(outs[0].data, reinterpret_cast<void *>(0x100000 + 16 * 4));
  EXPECT_EQ(outs[1].data, reinterpret_cast<void *>(0x100000 + 18 * 4));

  // A start past the end gives an empty view, clamped as the interpreter
  // clamps it.
  args = call(100, 1);
  plan = exe->plan(args);
  ASSERT_TRUE(plan.ok()) << plan.status().toString();
  EXPECT_EQ(plan->output(0).sizes[1], 0);
  EXPECT_EQ(plan->output(0).aliasOffset, 13 + 10);

  // A step below 1 is refused before anything runs.
  args = call(0, 0);
  plan = exe->plan(args);
  ASSERT_FALSE(plan.ok());
  EXPECT_EQ(plan.status().code(), ErrorCode::ConstraintViolation);
  EXPECT_NE(plan.status().message().find(
                "slice of input 0 (x): the step of dim 1 must be at least 1"),
            std::string::npos)
      << plan.status().message();

  auto reshaped = compileSource(kSliceReshape);
  ASSERT_TRUE(reshaped);
  EXPECT_EQ(reshaped->info().outputs[0].aliasInput, -1);
  Tensor2D x = contiguous(6, 10);
  auto kernelPlan = reshaped->plan({x.arg(0x100000, DType::F32)});
  ASSERT_TRUE(kernelPlan.ok()) << kernelPlan.status().toString();
  EXPECT_EQ(kernelPlan->launches.size(), 1u);
  EXPECT_EQ(kernelPlan->output(0).sizes[0], 12);
}

// A lowered module's cluster launch (fusion.launch ... cluster(...)) keeps
// its shape in the module file (fusion-translate --lowered-to-module).
TEST(Pipeline, LoweredClusterLaunchesKeepTheirShape) {
  auto file = llvm::MemoryBuffer::getFile(std::string(FUSION_EXAMPLES_DIR) +
                                          "/../test/GPU/cluster.mlir");
  ASSERT_TRUE(bool(file));
  std::string source = (*file)->getBuffer().str();
  mlir::DialectRegistry registry;
  mlir::fusion::registerAllDialects(registry);
  mlir::MLIRContext context(registry);
  context.loadAllAvailableDialects();
  auto module = mlir::parseSourceString<mlir::ModuleOp>(source, &context);
  ASSERT_TRUE(module);
  mlir::fusion::CompileOptions options;
  options.emitCubin = false;
  auto bytes = mlir::fusion::compileLoweredToModuleFile(
      *module, "", "fusion.fusion @row_sum", options);
  ASSERT_TRUE(mlir::succeeded(bytes));
  auto exe = Executable::load(bytes->data(), bytes->size());
  ASSERT_TRUE(exe.ok()) << exe.status().toString();
  Tensor2D x = contiguous(37, 1000);
  auto plan = (*exe)->plan({x.arg(0x100000, DType::F32)});
  ASSERT_TRUE(plan.ok()) << plan.status().toString();
  ASSERT_EQ(plan->launches.size(), 1u);
  const LaunchConfig &launch = plan->launches[0];
  EXPECT_TRUE(launch.hasCluster);
  EXPECT_EQ(launch.cluster[0], 4u);
  EXPECT_EQ(launch.cluster[1], 1u);
  EXPECT_EQ(launch.grid[0], 4u);
  EXPECT_EQ(launch.grid[1], 37u);
}

} // namespace

// Note [Reduction heuristic table]: the launch shapes the schedulers choose
// (inner: threads per row T, rows per block, grid; outer: column groups x
// splits) for a table of shapes, evaluated by the runtime from the module
// file as it would be before a launch.
struct InnerCase {
  const char *example;
  DType dtype;
  int64_t rows, cols;
  uintptr_t address;
  const char *kernel;
  uint32_t block, grid;
  int64_t threadsPerRow;
  /// Dynamic shared memory: block x 64 bytes (32 bf16 per thread) where the
  /// row is staged (Note [Staged rows heuristic]).
  uint32_t smem = 0;
};

TEST(Pipeline, InnerReductionHeuristicTable) {
  // Grids are capped at 16 blocks per SM (132 SMs) where a variant keeps
  // rows in registers, at 128 per SM for the streaming and staged
  // persistent variants (Note [Wide row grids]): blocks loop over rows.
  const InnerCase cases[] = {
      // bf16 softmax: 32 elements per thread, staged: a block per pair of
      // rows.
      {"normalization/softmax", DType::BF16, 32768, 4096, 0x100000,
       "softmax_k0_pv8_i32", 256, 16384, 128, 256 * 64},
      // Rows that 4 vectors per thread would give 512 threads: softmax
      // takes 8 vectors and 256 threads (Note [Long persistent rows]).
      {"normalization/softmax", DType::BF16, 8192, 16384, 0x100000,
       "softmax_k0_plv8_i32", 256, 2112, 256, 256 * 128},
      // Short rows: a warp per row, 8 rows per block.
      {"normalization/softmax", DType::BF16, 262144, 1024, 0x100000,
       "softmax_k0_pv8_i32", 256, 16896, 32, 256 * 64},
      {"normalization/softmax", DType::BF16, 100, 1000, 0x100000,
       "softmax_k0_pv8_i32", 256, 13, 32, 256 * 64},
      // Odd rows: the persistent ragged variant (Note [Ragged rows]), 32
      // elements per thread, staged.
      {"normalization/softmax", DType::BF16, 7, 4097, 0x100000,
       "softmax_k0_prv8_i32", 160, 7, 160, 160 * 64},
      // Misaligned: scalar persistent.
      {"normalization/softmax", DType::BF16, 64, 1024, 0x100002,
       "softmax_k0_ps_i32", 256, 16, 64},
      // Up to twice as long: the long persistent variant, 64 elements per
      // thread, staged (Note [Long persistent rows]).
      {"normalization/softmax", DType::BF16, 100, 32768, 0x100000,
       "softmax_k0_plv8_i32", 512, 100, 512, 512 * 128},
      {"normalization/softmax", DType::BF16, 8192, 32000, 0x100000,
       "softmax_k0_plv8_i32", 512, 2112, 512, 512 * 128},
      // Longer still: split over a cluster of 4 blocks (the fewest that
      // hold 40000), each keeping 10000 elements in 320 threads, staged;
      // cs x min(rows, 2112 / cs) blocks (Note [Cluster persistent rows]).
      {"normalization/softmax", DType::BF16, 100, 40000, 0x100000,
       "softmax_k0_cpv8_i32", 320, 400, 320, 320 * 64},
      {"normalization/softmax", DType::BF16, 8192, 40000, 0x100000,
       "softmax_k0_cpv8_i32", 320, 2112, 320, 320 * 64},
      // Too long to stay on chip (more than 8 blocks of 16384): streaming,
      // 512 threads per row where the rows are few, down to 128 where 2112
      // blocks of 128 threads find a row each (Note [Streaming threads per
      // row]).
      {"normalization/softmax", DType::BF16, 100, 140000, 0x100000,
       "softmax_k0_v8_i32", 512, 100, 512},
      // Few long rows (at most 66, each more than one chunk of 512 x 8 x
      // 4): a row per cluster of cs streaming blocks of 512 threads, cs
      // the largest of 2, 4, 8 within the SMs per row (132 / rows) and the
      // row's chunks (Note [Cluster rows]).
      {"normalization/softmax", DType::BF16, 4, 32768, 0x100000,
       "softmax_k0_cv8_i32", 512, 8, 512},
      {"normalization/softmax", DType::BF16, 4, 140000, 0x100000,
       "softmax_k0_cv8_i32", 512, 32, 512},
      {"normalization/softmax", DType::BF16, 40, 40000, 0x100000,
       "softmax_k0_cv8_i32", 512, 80, 512},
      {"normalization/softmax", DType::BF16, 67, 40000, 0x100000,
       "softmax_k0_cpv8_i32", 320, 268, 320, 320 * 64},
      // ... unless the cluster persistent variant takes the row with all
      // its clusters resident at once (Note [Cluster rows or cluster
      // persistent rows]).
      {"normalization/softmax", DType::BF16, 16, 65536, 0x100000,
       "softmax_k0_cpv8_i32", 512, 64, 512, 512 * 64},
      {"normalization/softmax", DType::BF16, 8192, 140000, 0x100000,
       "softmax_k0_v8_i32", 256, 4096, 128},
      // Odd row lengths stream 16 bytes at a time from each row's first
      // aligned vector, the head and tail masked (Note [Ragged rows]);
      // a misaligned buffer still takes the scalar variant.
      {"normalization/softmax", DType::BF16, 3, 100003, 0x100000,
       "softmax_k0_rv8_i32", 512, 3, 512},
      {"normalization/softmax", DType::BF16, 1000, 50257, 0x100000,
       "softmax_k0_rv8_i32", 288, 1000, 288},
      {"normalization/softmax", DType::BF16, 1000, 50257, 0x100002,
       "softmax_k0_s_i32", 288, 1000, 288},
      // Pure reductions stream: 4 vectors per thread and pass.
      {"inner_sum", DType::F32, 262144, 1024, 0x100000, "inner_sum_k0_v4_i32",
       256, 16896, 64},
      // (One chunk of 256 threads covers a row of 4096: 256 threads.)
      {"inner_sum", DType::F32, 32768, 4096, 0x100000, "inner_sum_k0_v4_i32",
       256, 16896, 256},
      {"inner_sum", DType::F32, 8192, 16384, 0x100000, "inner_sum_k0_v4_i32",
       256, 4096, 128},
      {"inner_sum", DType::F32, 600, 16384, 0x100000, "inner_sum_k0_v4_i32",
       480, 600, 480},
  };
  for (const InnerCase &c : cases) {
    SCOPED_TRACE(std::string(c.example) + " " + std::to_string(c.rows) + "x" +
                 std::to_string(c.cols));
    auto exe = compileExample(c.example);
    ASSERT_TRUE(exe);
    Tensor2D x = contiguous(c.rows, c.cols);
    auto plan = exe->plan({x.arg(c.address, c.dtype)});
    ASSERT_TRUE(plan.ok()) << plan.status().toString();
    ASSERT_EQ(plan->launches.size(), 1u);
    EXPECT_EQ(launchedKernel(*exe, *plan), c.kernel);
    EXPECT_EQ(plan->launches[0].block[0], c.block);
    EXPECT_EQ(plan->launches[0].grid[0], c.grid);
    // Threads per row is the last kernel parameter (a 32-bit index).
    const LaunchConfig &launch = plan->launches[0];
    int32_t threads = 0;
    std::memcpy(&threads, launch.params.data() + launch.params.size() - 4, 4);
    EXPECT_EQ(threads, c.threadsPerRow);
    EXPECT_EQ(launch.dynamicSmem, c.smem);
  }
}

// Note [Cluster rows]: with --inner-cluster=C, few long rows of a kernel
// with per-element results take the cluster variant: a row per cluster of
// cs blocks of 512 threads, cs the largest power of two up to C, the SMs
// per row (132 / rows) and the row's chunks of 512 x 8 x 4 bf16 elements.
// Note [Long persistent rows]: rows longer than the persistent variant
// holds (512 threads x 4 vectors of 8 bf16; 256 threads for softmax) and
// at most twice that take the second persistent variant, with the threads
// the row needs; longer rows take the cluster persistent variant (Note
// [Cluster persistent rows]) up to 8 blocks' worth, then stream; odd ones
// stream; shorter ones keep the first.
TEST(Pipeline, LongRowsTakeTheLongPersistentVariant) {
  struct Case {
    const char *example;
    int64_t rows, cols;
    const char *kernel;
    uint32_t block;
  };
  const Case cases[] = {
      {"normalization/softmax", 100, 8192, "softmax_k0_pv8_i32", 256},
      {"normalization/softmax", 100, 8200, "softmax_k0_plv8_i32", 160},
      {"normalization/softmax", 100, 16384, "softmax_k0_plv8_i32", 256},
      {"normalization/softmax", 100, 16392, "softmax_k0_plv8_i32", 288},
      // Odd rows up to 512 threads' worth: the persistent ragged variant.
      {"normalization/softmax", 100, 16383, "softmax_k0_prv8_i32", 512},
      {"normalization/layernorm", 100, 16384, "layernorm_k0_pv8_i32", 512},
      {"normalization/softmax", 100, 32768, "softmax_k0_plv8_i32", 512},
      {"normalization/softmax", 100, 32776, "softmax_k0_cpv8_i32", 288},
      {"normalization/layernorm", 100, 65536, "layernorm_k0_cpv8_i32", 512},
      {"normalization/softmax", 100, 131080, "softmax_k0_v8_i32", 0},
      {"normalization/softmax", 100, 20001, "softmax_k0_rv8_i32", 0},
      {"normalization/layernorm", 100, 32000, "layernorm_k0_plv8_i32", 512},
  };
  for (const Case &c : cases) {
    SCOPED_TRACE(std::string(c.example) + " " + std::to_string(c.rows) + "x" +
                 std::to_string(c.cols));
    std::string bytes = compileBytes(readExample(c.example), true);
    ASSERT_FALSE(bytes.empty());
    auto exe = Executable::load(bytes.data(), bytes.size());
    ASSERT_TRUE(exe.ok()) << exe.status().toString();
    Tensor2D x = contiguous(c.rows, c.cols);
    int64_t n[1] = {c.cols}, one[1] = {1};
    std::vector<Argument> args = {x.arg(0x100000, DType::BF16)};
    for (size_t i = 1; i < (*exe)->info().inputs.size(); ++i)
      args.push_back(Argument::tensor(reinterpret_cast<void *>(0x200000 * i),
                                      DType::BF16, n, 1, one));
    auto plan = (*exe)->plan(args);
    ASSERT_TRUE(plan.ok()) << plan.status().toString();
    ASSERT_EQ(plan->launches.size(), 1u);
    EXPECT_EQ(launchedKernel(**exe, *plan), c.kernel);
    if (c.block)
      EXPECT_EQ(plan->launches[0].block[0], c.block);
  }
  // (PTX only, like the fallbacks: Pipeline.CubinsOnlyForExpectedVariants.)
}

TEST(Pipeline, FewLongRowsTakeClusters) {
  struct Case {
    const char *example;
    int64_t cluster, rows, cols;
    uintptr_t address;
    const char *kernel;
    uint32_t grid, clusterX;
  };
  const Case cases[] = {
      {"normalization/softmax", 8, 16, 1000000, 0x100000, "softmax_k0_cv8_i32",
       128, 8},
      {"normalization/softmax", 4, 16, 1000000, 0x100000, "softmax_k0_cv8_i32",
       64, 4},
      // 132 / 40 SMs per row: clusters of 2.
      {"normalization/softmax", 8, 40, 200000, 0x100000, "softmax_k0_cv8_i32",
       80, 2},
      // Rows of 3 chunks: clusters of 2; but the cluster persistent variant
      // holds them in clusters of 4, all resident at once, and goes first
      // (Note [Cluster rows or cluster persistent rows]).
      {"normalization/softmax", 8, 40, 3 * 16384, 0x100000,
       "softmax_k0_cv8_i32", 80, 2},
      {"normalization/softmax", 8, 4, 3 * 16384, 0x100000,
       "softmax_k0_cpv8_i32", 16, 4},
      // The default (-1): clusters of up to 8.
      {"normalization/softmax", -1, 16, 1000000, 0x100000, "softmax_k0_cv8_i32",
       128, 8},
      // One chunk per row, rows enough for the SMs, a misaligned buffer or
      // an odd row: the plain variants.
      {"normalization/softmax", 8, 16, 16384, 0x100000, "softmax_k0_plv8_i32",
       16, 1},
      {"normalization/softmax", 8, 100, 1000000, 0x100000, "softmax_k0_v8_i32",
       100, 1},
      {"normalization/softmax", 8, 16, 1000000, 0x100002, "softmax_k0_s_i32",
       16, 1},
      {"normalization/softmax", 8, 16, 1000001, 0x100000, "softmax_k0_rv8_i32",
       16, 1},
      // Not asked: no cluster variant.
      {"normalization/softmax", 0, 16, 1000000, 0x100000, "softmax_k0_v8_i32",
       16, 1},
  };
  for (const Case &c : cases) {
    SCOPED_TRACE(std::string(c.example) + " cluster " +
                 std::to_string(c.cluster) + " " + std::to_string(c.rows) +
                 "x" + std::to_string(c.cols));
    mlir::fusion::CompileOptions options;
    options.innerCluster = c.cluster;
    std::string bytes = compileBytes(readExample(c.example), true, &options);
    ASSERT_FALSE(bytes.empty());
    auto exe = Executable::load(bytes.data(), bytes.size());
    ASSERT_TRUE(exe.ok()) << exe.status().toString();
    bool hasCluster = false;
    for (const auto &kernel : (*exe)->info().kernels)
      hasCluster |= llvm::StringRef(kernel.name).contains("_cv8_");
    EXPECT_EQ(hasCluster, c.cluster != 0);
    Tensor2D x = contiguous(c.rows, c.cols);
    auto plan = (*exe)->plan({x.arg(c.address, DType::BF16)});
    ASSERT_TRUE(plan.ok()) << plan.status().toString();
    ASSERT_EQ(plan->launches.size(), 1u);
    const LaunchConfig &launch = plan->launches[0];
    EXPECT_EQ(launchedKernel(**exe, *plan), c.kernel);
    EXPECT_EQ(launch.grid[0], c.grid);
    EXPECT_EQ(launch.cluster[0], c.clusterX);
    // (The cluster persistent variant's threads: InnerReductionHeuristicTable.)
    if (c.clusterX > 1 && llvm::StringRef(c.kernel).contains("_cv8_")) {
      EXPECT_EQ(launch.block[0], 512u);
      // Threads per row: the whole block.
      int32_t threads = 0;
      std::memcpy(&threads, launch.params.data() + launch.params.size() - 4, 4);
      EXPECT_EQ(threads, 512);
    }
  }
  // Layer norm (a var_mean: a Welford state of 3 components) too.
  mlir::fusion::CompileOptions eight;
  eight.innerCluster = 8;
  std::string norm =
      compileBytes(readExample("normalization/layernorm"), true, &eight);
  ASSERT_FALSE(norm.empty());
  auto normExe = Executable::load(norm.data(), norm.size());
  ASSERT_TRUE(normExe.ok());
  EXPECT_TRUE(llvm::any_of((*normExe)->info().kernels, [](const auto &k) {
    return k.name == "layernorm_k0_cv8_i32";
  }));
  // For a chip without clusters the schedule's cluster is ignored.
  mlir::fusion::CompileOptions sm80;
  sm80.innerCluster = 8;
  sm80.chip = "sm_80";
  std::string bytes =
      compileBytes(readExample("normalization/softmax"), true, &sm80);
  ASSERT_FALSE(bytes.empty());
  auto exe = Executable::load(bytes.data(), bytes.size());
  ASSERT_TRUE(exe.ok());
  for (const auto &kernel : (*exe)->info().kernels)
    EXPECT_FALSE(llvm::StringRef(kernel.name).contains("_cv8_")) << kernel.name;
}

// Note [Staged rows heuristic]: kernels without a var_mean stage the row
// in shared memory: one buffer for one pass (rms_norm), two for several
// passes, whose next row comes by cp.async (layer_norm: two sum passes,
// Note [Norms as sums]); var_mean epilogues keep it in registers.
TEST(Pipeline, StagedRowsHeuristic) {
  struct Case {
    const char *source;
    int inputs;
    const char *kernel;
    uint32_t smem;
  };
  const Case cases[] = {
      {R"mlir(
fusion.fusion @rms(%x: tensor<?x?xbf16>, %w: tensor<?xbf16>) -> tensor<?x?xbf16> {
  %0 = fusion.rms_norm %x weight(%w : tensor<?xbf16>) axis = 1 eps = 1.0e-6 : tensor<?x?xbf16>
  fusion.return %0 : tensor<?x?xbf16>
})mlir",
       2, "rms_k0_pv8_i32", 512 * 64},
      {R"mlir(
fusion.fusion @ln(%x: tensor<?x?xbf16>, %w: tensor<?xbf16>, %b: tensor<?xbf16>) -> tensor<?x?xbf16> {
  %0 = fusion.layer_norm %x weight(%w : tensor<?xbf16>) bias(%b : tensor<?xbf16>) axis = 1 eps = 1.0e-5 : tensor<?x?xbf16>
  fusion.return %0 : tensor<?x?xbf16>
})mlir",
       3, "ln_k0_pv8_i32", 2 * 512 * 64},
      {R"mlir(
fusion.fusion @center(%x: tensor<?x?xbf16>) -> tensor<?x?xbf16> {
  %v, %m = fusion.var_mean %x [1] correction = 0 keepdim : tensor<?x?xbf16> -> tensor<?x1xbf16>
  %d0 = fusion.dim %x, 0 : tensor<?x?xbf16>
  %d1 = fusion.dim %x, 1 : tensor<?x?xbf16>
  %me = fusion.expand %m(%d0, %d1) : tensor<?x1xbf16> -> tensor<?x?xbf16>
  %y = fusion.sub %x, %me : tensor<?x?xbf16>
  fusion.return %y : tensor<?x?xbf16>
})mlir",
       1, "center_k0_pv8_i32", 0},
  };
  for (const Case &c : cases) {
    SCOPED_TRACE(c.kernel);
    auto exe = compileSource(c.source);
    ASSERT_TRUE(exe);
    // Rows of 16384: 512 threads per row, one row per block.
    Tensor2D x = contiguous(64, 16384);
    int64_t vecSize[1] = {16384}, vecStride[1] = {1};
    std::vector<Argument> args = {x.arg(0x100000, DType::BF16)};
    for (int i = 1; i < c.inputs; ++i)
      args.push_back(Argument::tensor(reinterpret_cast<void *>(0x200000 * i),
                                      DType::BF16, vecSize, 1, vecStride));
    auto plan = exe->plan(args);
    ASSERT_TRUE(plan.ok()) << plan.status().toString();
    ASSERT_EQ(plan->launches.size(), 1u);
    EXPECT_EQ(launchedKernel(*exe, *plan), c.kernel);
    EXPECT_EQ(plan->launches[0].block[0], 512u);
    EXPECT_EQ(plan->launches[0].dynamicSmem, c.smem);
  }
}

TEST(Pipeline, SplitRowHeuristicTable) {
  // Note [Split rows]: per-row results of few long rows: S = min(ceil(528 /
  // rows), ceil(K / (512 * vector * 4))) blocks per row in grid y (528 =
  // max_grid / 4 at 132 SMs), 512 threads; the scalar split only where the
  // vectorized variants cannot run; S = 1 takes the other variants.
  auto exe = compileExample("inner_sum");
  ASSERT_TRUE(exe);
  struct Case {
    int64_t rows, cols;
    uint64_t address;
    const char *kernel;
    uint32_t gridX, gridY, block;
  } cases[] = {
      {1, 4194304, 0x100000, "inner_sum_k0_gv4_i32", 1, 512, 512},
      {200, 20000, 0x100000, "inner_sum_k0_gv4_i32", 200, 3, 512},
      // Odd rows and misaligned pointers: the scalar split, 2048 per chunk.
      {3, 100003, 0x100000, "inner_sum_k0_gs_i32", 3, 49, 512},
      {2, 65536, 0x100004, "inner_sum_k0_gs_i32", 2, 32, 512},
      // Enough rows, or rows within one chunk: no split (1000 rows: 288
      // threads each, Note [Streaming threads per row]).
      {1000, 20000, 0x100000, "inner_sum_k0_v4_i32", 1000, 1, 288},
      {64, 2000, 0x100000, "inner_sum_k0_v4_i32", 32, 1, 256},
  };
  for (const Case &c : cases) {
    SCOPED_TRACE(std::to_string(c.rows) + "x" + std::to_string(c.cols));
    Tensor2D x = contiguous(c.rows, c.cols);
    auto plan = exe->plan({x.arg(c.address, DType::F32)});
    ASSERT_TRUE(plan.ok()) << plan.status().toString();
    ASSERT_EQ(plan->launches.size(), 1u);
    EXPECT_EQ(launchedKernel(*exe, *plan), c.kernel);
    EXPECT_EQ(plan->launches[0].grid[0], c.gridX);
    EXPECT_EQ(plan->launches[0].grid[1], c.gridY);
    EXPECT_EQ(plan->launches[0].block[0], c.block);
  }
}

TEST(Pipeline, OuterReductionHeuristicTable) {
  auto buffer = llvm::MemoryBuffer::getFile(std::string(FUSION_EXAMPLES_DIR) +
                                            "/../bench/cases/outer_sum.mlir");
  ASSERT_TRUE(bool(buffer));
  auto exe = compileSource((*buffer)->getBuffer());
  ASSERT_TRUE(exe);
  struct Case {
    int64_t rows, cols;
    const char *kernel;
    uint32_t groups, splits;
  } cases[] = {
      // 132 SMs x 8 blocks = 1056 blocks wanted; 32 column groups of 128.
      {32768, 4096, "outer_sum_k0_v4_i32", 32, 33},
      {8192, 16384, "outer_sum_k0_v4_i32", 128, 9},
      {262144, 1024, "outer_sum_k0_v4_i32", 8, 132},
      // Few rows: at least 64 rows per split.
      {100, 4096, "outer_sum_k0_v4_i32", 32, 2},
      {64, 8, "outer_sum_k0_v4_i32", 1, 1},
      // Odd columns: scalar, 32 columns per group.
      {1000, 1001, "outer_sum_k0_s_i32", 32, 16},
  };
  for (const Case &c : cases) {
    SCOPED_TRACE(std::to_string(c.rows) + "x" + std::to_string(c.cols));
    Tensor2D x = contiguous(c.rows, c.cols);
    auto plan = exe->plan({x.arg(0x100000, DType::F32)});
    ASSERT_TRUE(plan.ok()) << plan.status().toString();
    ASSERT_EQ(plan->launches.size(), 1u);
    EXPECT_EQ(launchedKernel(*exe, *plan), c.kernel);
    EXPECT_EQ(plan->launches[0].grid[0], c.groups);
    EXPECT_EQ(plan->launches[0].grid[1], c.splits);
    EXPECT_EQ(plan->launches[0].block[0], 256u);
    // The workspace holds every split's partials; the counters are zeroed.
    bool zeroed = false;
    int64_t workspace = -1;
    for (const BufferLayout &layout : plan->buffers) {
      if (layout.kind != BufferKind::Intermediate)
        continue;
      if (layout.zeroInit)
        zeroed = true;
      else
        workspace = layout.numElements;
    }
    EXPECT_TRUE(zeroed);
    EXPECT_EQ(workspace, c.splits > 1 ? int64_t(c.splits) * c.cols : 0);
  }
}

// A fusion that one kernel cannot do (x - mean(x, dim 0)) is two kernels
// launched in order: the outer reduction writes the means into an
// intermediate buffer of the per-call pool, which the pointwise kernel reads.
TEST(Pipeline, SegmentedFusionLaunchesTwoKernelsThroughAnIntermediate) {
  auto exe = compileSource(fusion::testing::kOuterCenterSource);
  ASSERT_TRUE(exe);
  EXPECT_EQ(exe->info().numLaunches, 2u);
  std::set<std::string> kernels;
  for (const KernelInfo &kernel : exe->info().kernels)
    kernels.insert(kernel.name.substr(0, kernel.name.find("_k") + 3));
  EXPECT_EQ(kernels,
            (std::set<std::string>{"outer_center_k0", "outer_center_k1"}));

  struct Case {
    int64_t rows, cols;
    const char *k0, *k1;
  } cases[] = {
      {1000, 1000, "outer_center_k0_v4_i32", "outer_center_k1_v4_i32"},
      {3, 31, "outer_center_k0_s_i32", "outer_center_k1_s_i32"},
      {1, 1, "outer_center_k0_s_i32", "outer_center_k1_s_i32"},
  };
  for (const Case &c : cases) {
    SCOPED_TRACE(std::to_string(c.rows) + "x" + std::to_string(c.cols));
    Tensor2D x = contiguous(c.rows, c.cols);
    auto plan = exe->plan({x.arg(0x100000, DType::F32),
                           Argument::floatScalar(c.rows, DType::F32)});
    ASSERT_TRUE(plan.ok()) << plan.status().toString();
    ASSERT_EQ(plan->launches.size(), 2u);
    EXPECT_EQ(exe->info().kernels[plan->launches[0].kernel].name, c.k0);
    EXPECT_EQ(exe->info().kernels[plan->launches[1].kernel].name, c.k1);
    EXPECT_EQ(plan->output(0).sizes[0], c.rows);
    EXPECT_EQ(plan->output(0).sizes[1], c.cols);
    // The means: 1 x cols f32, not zeroed, in the pool with the outer
    // reduction's workspace and counters.
    int means = 0;
    for (const BufferLayout &layout : plan->buffers)
      if (layout.kind == BufferKind::Intermediate && !layout.zeroInit &&
          layout.rank == 2) {
        ++means;
        EXPECT_EQ(layout.sizes[0], 1);
        EXPECT_EQ(layout.sizes[1], c.cols);
        EXPECT_EQ(layout.dtype, DType::F32);
        EXPECT_GE(layout.poolOffset, 0);
        EXPECT_GE(plan->intermediateBytes, layout.poolOffset + layout.bytes);
      }
    EXPECT_EQ(means, 1);
  }
}

// Every variant of a kernel is a gpu.module of its own: each Kernel entry of
// the module file holds the PTX of its own entry only, not the PTX (and
// cubin) of all variants again.
TEST(Pipeline, EachKernelCarriesOnlyItsOwnPTX) {
  for (const char *name :
       {"normalization/softmax", "normalization/layernorm", "add_relu"}) {
    SCOPED_TRACE(name);
    std::string bytes = compileBytes(readExample(name));
    ASSERT_FALSE(bytes.empty());
    const ::fusion::fb::Module *module = ::fusion::fb::GetModule(bytes.data());
    ASSERT_TRUE(module->kernels());
    ASSERT_GE(module->kernels()->size(), 3u);
    std::set<std::string> names;
    for (const ::fusion::fb::Kernel *kernel : *module->kernels()) {
      std::string ptx = kernel->ptx()->str();
      std::string kernelName = kernel->name()->str();
      names.insert(kernelName);
      size_t entries = 0;
      for (size_t at = ptx.find(".entry "); at != std::string::npos;
           at = ptx.find(".entry ", at + 1))
        ++entries;
      EXPECT_EQ(entries, 1u) << kernelName;
      EXPECT_NE(ptx.find(".entry " + kernelName + "("), std::string::npos)
          << kernelName;
    }
    EXPECT_EQ(names.size(), module->kernels()->size());
  }
}

// Note [Cubins for expected variants]: ptxas runs over the variants a
// launch expects (vectorized, 32-bit index); the fallbacks keep PTX only
// unless fallbackCubins asks for theirs.
TEST(Pipeline, CubinsOnlyForExpectedVariants) {
  if (mlir::fusion::findPtxas().empty())
    GTEST_SKIP() << "no ptxas on this machine: no cubins to count";
  struct Case {
    const char *name;
    std::set<std::string> withCubin;
  };
  Case cases[] = {
      {"add_relu", {"add_relu_k0_v4_i32"}},
      {"normalization/softmax", {"softmax_k0_pv8_i32", "softmax_k0_v8_i32"}},
  };
  for (const Case &c : cases) {
    SCOPED_TRACE(c.name);
    for (bool all : {false, true}) {
      mlir::fusion::CompileOptions options;
      options.fallbackCubins = all;
      std::string bytes = compileBytes(readExample(c.name), true, &options);
      ASSERT_FALSE(bytes.empty());
      const ::fusion::fb::Module *module =
          ::fusion::fb::GetModule(bytes.data());
      std::set<std::string> withCubin, names;
      for (const ::fusion::fb::Kernel *kernel : *module->kernels()) {
        names.insert(kernel->name()->str());
        EXPECT_GT(kernel->ptx()->size(), 0u);
        if (kernel->cubin() && kernel->cubin()->size() > 0)
          withCubin.insert(kernel->name()->str());
      }
      EXPECT_EQ(withCubin, all ? names : c.withCubin);
    }
  }
}

// The kernel modules compile on the context's threads; the module file is
// the same byte for byte, run to run and with threading off.
TEST(Pipeline, ModuleFilesAreDeterministic) {
  std::string source = readExample("normalization/layernorm");
  std::string first = compileBytes(source);
  ASSERT_FALSE(first.empty());
  EXPECT_EQ(first, compileBytes(source));
  EXPECT_EQ(first, compileBytes(source, /*threads=*/false));
}
