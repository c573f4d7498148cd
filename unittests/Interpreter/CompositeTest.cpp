//===- CompositeTest.cpp - composites: identities and decomposition -------===//
// The composites evaluated directly satisfy their defining identities, and
// agree with what --fusion-decompose makes of them.
//===----------------------------------------------------------------------===//

#include "TestSupport.h"

#include "fusion/Dialect/Fusion/Transforms/Passes.h"

#include "mlir/Pass/PassManager.h"

#include <random>

using namespace mlir;
using namespace mlir::fusion;
using namespace mlir::fusion::interp;
using namespace mlir::fusion::interp::test;

namespace {

class Composite : public InterpreterTest {
protected:
  HostTensor random(DType dtype, std::vector<int64_t> sizes, double scale = 3) {
    HostTensor t(dtype, sizes);
    std::uniform_real_distribution<double> dist(-scale, scale);
    for (int64_t i = 0; i < t.numElements(); ++i)
      t.storeDouble(i, dist(rng));
    return t;
  }

  /// Runs `source` as written and after --fusion-decompose, and checks the
  /// outputs agree within `tolerance` (absolute, plus `relative` times the
  /// magnitude).
  void expectDecompositionAgrees(const std::string &source,
                                 ArrayRef<HostValue> inputs, double tolerance,
                                 double relative = 0) {
    FusionOp fusion = parse(source);
    ASSERT_TRUE(fusion);
    OwningOpRef<ModuleOp> decomposed = modules.back()->clone();
    PassManager pm(&context);
    pm.nest<FusionOp>().addPass(createFusionDecompose());
    ASSERT_TRUE(succeeded(pm.run(*decomposed)));
    FusionOp primitive = *decomposed->getOps<FusionOp>().begin();
    bool composite = false;
    primitive.walk([&](Operation *op) {
      composite |= isa<SoftmaxOp, LogSoftmaxOp, LayerNormOp, RmsNormOp>(op);
    });
    EXPECT_FALSE(composite) << "the pass left a composite";

    auto direct = interpret(fusion, inputs);
    ASSERT_TRUE(bool(direct)) << llvm::toString(direct.takeError());
    auto viaPrimitives = interpret(primitive, inputs);
    ASSERT_TRUE(bool(viaPrimitives))
        << llvm::toString(viaPrimitives.takeError());
    ASSERT_EQ(direct->size(), viaPrimitives->size());
    for (size_t k = 0; k < direct->size(); ++k) {
      std::vector<double> a = (*direct)[k].toDoubles();
      std::vector<double> b = (*viaPrimitives)[k].toDoubles();
      ASSERT_EQ(a.size(), b.size());
      double worst = 0;
      for (size_t i = 0; i < a.size(); ++i) {
        double allowed = tolerance + relative * std::fabs(a[i]);
        ASSERT_LE(std::fabs(a[i] - b[i]), allowed)
            << "output " << k << " element " << i << ": composite " << a[i]
            << ", decomposed " << b[i];
        worst = std::max(worst, std::fabs(a[i] - b[i]));
      }
      RecordProperty("worst_difference", std::to_string(worst));
    }
  }

  std::mt19937_64 rng{1234};
};

std::string softmaxFusion(const char *op, const std::string &type, int dim) {
  return fusion1(type, type,
                 "  %r = fusion." + std::string(op) +
                     " %x dim = " + std::to_string(dim) + " : " + type);
}

TEST_F(Composite, SoftmaxRowsSumToOne) {
  HostTensor x = random(DType::F32, {5, 17}, 10);
  HostTensor y = run1(softmaxFusion("softmax", "tensor<5x17xf32>", 1), {x});
  for (int64_t r = 0; r < 5; ++r) {
    double sum = 0;
    for (int64_t c = 0; c < 17; ++c) {
      double v = y.getDouble({r, c});
      EXPECT_GT(v, 0);
      sum += v;
    }
    EXPECT_NEAR(sum, 1.0, 1e-6);
  }
  // Along dim 0, columns sum to one.
  HostTensor z = run1(softmaxFusion("softmax", "tensor<5x17xf32>", 0), {x});
  for (int64_t c = 0; c < 17; ++c) {
    double sum = 0;
    for (int64_t r = 0; r < 5; ++r)
      sum += z.getDouble({r, c});
    EXPECT_NEAR(sum, 1.0, 1e-6);
  }
}

TEST_F(Composite, SoftmaxHandValues) {
  // softmax([0, ln 3]) = [1/4, 3/4]; large inputs don't overflow.
  HostTensor y =
      run1(softmaxFusion("softmax", "tensor<2x2xf64>", 1),
           {tensor(DType::F64, {2, 2}, {0, std::log(3.0), 1000, 1000})});
  EXPECT_TRUE(nearDoubles(y, {0.25, 0.75, 0.5, 0.5}, 1e-15));
  HostTensor l = run1(softmaxFusion("log_softmax", "tensor<2xf64>", 0),
                      {f64s({0, std::log(3.0)})});
  EXPECT_TRUE(nearDoubles(l, {std::log(0.25), std::log(0.75)}, 1e-15));
  // A row of -inf is NaN, as in PyTorch.
  HostTensor n = run1(softmaxFusion("softmax", "tensor<2xf32>", 0),
                      {f32s({-INFINITY, -INFINITY})});
  EXPECT_TRUE(sameDoubles(n, {NAN, NAN}));
}

TEST_F(Composite, LogSoftmaxExpSumsToOne) {
  HostTensor x = random(DType::F64, {3, 4, 6});
  HostTensor y =
      run1(softmaxFusion("log_softmax", "tensor<3x4x6xf64>", 1), {x});
  for (int64_t a = 0; a < 3; ++a)
    for (int64_t c = 0; c < 6; ++c) {
      double sum = 0;
      for (int64_t b = 0; b < 4; ++b)
        sum += std::exp(y.getDouble({a, b, c}));
      EXPECT_NEAR(sum, 1.0, 1e-12);
    }
}

TEST_F(Composite, LayerNormRowsHaveMeanZeroVarianceOne) {
  std::string source = fusion1(
      "tensor<4x3x5xf64>", "tensor<4x3x5xf64>",
      "  %r = fusion.layer_norm %x axis = 1 eps = 0.0 : tensor<4x3x5xf64>");
  HostTensor y = run1(source, {random(DType::F64, {4, 3, 5})});
  for (int64_t a = 0; a < 4; ++a) {
    double sum = 0, squares = 0;
    for (int64_t b = 0; b < 3; ++b)
      for (int64_t c = 0; c < 5; ++c) {
        double v = y.getDouble({a, b, c});
        sum += v;
        squares += v * v;
      }
    EXPECT_NEAR(sum / 15, 0.0, 1e-12);
    EXPECT_NEAR(squares / 15, 1.0, 1e-12); // biased variance, mean 0
  }
}

TEST_F(Composite, LayerNormWeightAndBias) {
  // Row [1, 3]: mean 2, variance 1, normalized [-1, 1].
  std::string source =
      "fusion.fusion @f(%x: tensor<1x2xf64>, %w: tensor<2xf64>, %b: "
      "tensor<2xf64>) -> tensor<1x2xf64> {\n"
      "  %r = fusion.layer_norm %x weight(%w : tensor<2xf64>) bias(%b : "
      "tensor<2xf64>) axis = 1 eps = 0.0 : tensor<1x2xf64>\n"
      "  fusion.return %r : tensor<1x2xf64>\n}\n";
  EXPECT_TRUE(sameDoubles(run1(source, {tensor(DType::F64, {1, 2}, {1, 3}),
                                        f64s({2, 10}), f64s({0.5, -1})}),
                          {-1.5, 9}));
}

TEST_F(Composite, RmsNormHasMeanSquareOne) {
  std::string source =
      fusion1("tensor<6x7xf64>", "tensor<6x7xf64>",
              "  %r = fusion.rms_norm %x axis = 1 eps = 0.0 : tensor<6x7xf64>");
  HostTensor y = run1(source, {random(DType::F64, {6, 7})});
  for (int64_t r = 0; r < 6; ++r) {
    double squares = 0;
    for (int64_t c = 0; c < 7; ++c)
      squares += y.getDouble({r, c}) * y.getDouble({r, c});
    EXPECT_NEAR(squares / 7, 1.0, 1e-12);
  }
  // [3, 4]: mean square 12.5; with weight [2, 1].
  std::string weighted =
      "fusion.fusion @f(%x: tensor<2xf64>, %w: tensor<2xf64>) -> "
      "tensor<2xf64> {\n"
      "  %r = fusion.rms_norm %x weight(%w : tensor<2xf64>) axis = 0 eps = "
      "0.0 : tensor<2xf64>\n"
      "  fusion.return %r : tensor<2xf64>\n}\n";
  double rms = std::sqrt(12.5);
  EXPECT_TRUE(nearDoubles(run1(weighted, {f64s({3, 4}), f64s({2, 1})}),
                          {6 / rms, 4 / rms}, 1e-15));
}

TEST_F(Composite, DecompositionAgreesInF64) {
  for (int dim : {0, 1}) {
    expectDecompositionAgrees(softmaxFusion("softmax", "tensor<?x?xf64>", dim),
                              {random(DType::F64, {7, 9})}, 1e-12);
    expectDecompositionAgrees(
        softmaxFusion("log_softmax", "tensor<?x?xf64>", dim),
        {random(DType::F64, {7, 9})}, 1e-12);
  }
  expectDecompositionAgrees(
      "fusion.fusion @f(%x: tensor<?x?x?xf64>, %w: tensor<?x?xf64>, %b: "
      "tensor<?x?xf64>) -> tensor<?x?x?xf64> {\n"
      "  %r = fusion.layer_norm %x weight(%w : tensor<?x?xf64>) bias(%b : "
      "tensor<?x?xf64>) axis = 1 eps = 1.0e-05 : tensor<?x?x?xf64>\n"
      "  fusion.return %r : tensor<?x?x?xf64>\n}\n",
      {random(DType::F64, {3, 4, 5}), random(DType::F64, {4, 5}),
       random(DType::F64, {4, 5})},
      1e-12);
  expectDecompositionAgrees(
      "fusion.fusion @f(%x: tensor<?x?xf64>, %w: tensor<?xf64>) -> "
      "tensor<?x?xf64> {\n"
      "  %r = fusion.rms_norm %x weight(%w : tensor<?xf64>) axis = 1 eps = "
      "1.0e-06 : tensor<?x?xf64>\n"
      "  fusion.return %r : tensor<?x?xf64>\n}\n",
      {random(DType::F64, {5, 8}), random(DType::F64, {8})}, 1e-12);
  for (const char *expr :
       {"fusion.gelu %x", "fusion.gelu %x tanh", "fusion.silu %x"})
    expectDecompositionAgrees(
        fusion1("tensor<?xf64>", "tensor<?xf64>",
                "  %r = " + std::string(expr) + " : tensor<?xf64>"),
        {random(DType::F64, {50}, 6)}, 1e-12);
}

TEST_F(Composite, DecompositionAgreesInF32) {
  // The decomposition rounds to f32 after every primitive, the composite
  // once: they agree within a few f32 ulps.
  expectDecompositionAgrees(softmaxFusion("softmax", "tensor<?x?xf32>", 1),
                            {random(DType::F32, {8, 33})}, 1e-6);
  expectDecompositionAgrees(softmaxFusion("log_softmax", "tensor<?x?xf32>", 1),
                            {random(DType::F32, {8, 33})}, 1e-6, 1e-6);
  expectDecompositionAgrees(
      "fusion.fusion @f(%x: tensor<?x?xf32>, %w: tensor<?xf32>, %b: "
      "tensor<?xf32>) -> tensor<?x?xf32> {\n"
      "  %r = fusion.layer_norm %x weight(%w : tensor<?xf32>) bias(%b : "
      "tensor<?xf32>) axis = 1 eps = 1.0e-05 : tensor<?x?xf32>\n"
      "  fusion.return %r : tensor<?x?xf32>\n}\n",
      {random(DType::F32, {6, 64}), random(DType::F32, {64}, 1),
       random(DType::F32, {64}, 1)},
      1e-6, 1e-6);
  expectDecompositionAgrees(
      fusion1("tensor<?x?xf32>", "tensor<?x?xf32>",
              "  %r = fusion.rms_norm %x axis = 1 eps = 1.0e-06 : "
              "tensor<?x?xf32>"),
      {random(DType::F32, {6, 64})}, 1e-6, 1e-6);
  expectDecompositionAgrees(fusion1("tensor<?xf32>", "tensor<?xf32>",
                                    "  %r = fusion.gelu %x : tensor<?xf32>"),
                            {random(DType::F32, {100}, 5)}, 1e-6);
  expectDecompositionAgrees(fusion1("tensor<?xf32>", "tensor<?xf32>",
                                    "  %r = fusion.silu %x : tensor<?xf32>"),
                            {random(DType::F32, {100}, 5)}, 1e-6);
}

TEST_F(Composite, DecompositionAgreesInBF16WithinOneUlp) {
  // Both compute in f32 or better and round once to bf16 at the end, so
  // they differ at most where the f32 result sits next to a bf16 tie.
  expectDecompositionAgrees(
      "fusion.fusion @f(%x: tensor<?x?xbf16>, %w: tensor<?xbf16>, %b: "
      "tensor<?xbf16>) -> tensor<?x?xbf16> {\n"
      "  %r = fusion.layer_norm %x weight(%w : tensor<?xbf16>) bias(%b : "
      "tensor<?xbf16>) axis = 1 eps = 1.0e-05 : tensor<?x?xbf16>\n"
      "  fusion.return %r : tensor<?x?xbf16>\n}\n",
      {random(DType::BF16, {4, 32}), random(DType::BF16, {32}, 1),
       random(DType::BF16, {32}, 1)},
      0, std::ldexp(1.0, -7));
  expectDecompositionAgrees(softmaxFusion("softmax", "tensor<?x?xbf16>", 1),
                            {random(DType::BF16, {4, 32})}, 0,
                            std::ldexp(1.0, -7));
}

} // namespace
