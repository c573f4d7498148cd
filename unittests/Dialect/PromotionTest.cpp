//===- PromotionTest.cpp - PyTorch-like promotion helpers -----------------===//
//
// The expected types are what `torch.result_type` gives for the same dtypes
// (a "scalar" is a Python number; rank-0 tensors are 0-d tensors), except
// that fp8 never promotes implicitly here.
//
//===----------------------------------------------------------------------===//

#include "fusion/Dialect/Fusion/Utils/Promotion.h"

#include "fusion/Dialect/Fusion/IR/FusionOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>

#include <ostream>
#include <string>

using namespace mlir;
using namespace mlir::fusion;

namespace {

/// A type by name ("" is the null type); the table reads like PyTorch dtypes.
Type getType(MLIRContext &ctx, StringRef name) {
  Builder b(&ctx);
  if (name.empty())
    return Type();
  if (name == "index")
    return b.getIndexType();
  if (name == "f64")
    return b.getF64Type();
  if (name == "f32")
    return b.getF32Type();
  if (name == "f16")
    return b.getF16Type();
  if (name == "bf16")
    return b.getBF16Type();
  if (name == "f8E4M3FN")
    return b.getType<Float8E4M3FNType>();
  if (name == "f8E5M2")
    return b.getType<Float8E5M2Type>();
  if (name == "ui8")
    return IntegerType::get(&ctx, 8, IntegerType::Unsigned);
  unsigned width = 0;
  if (name.consume_front("i") && !name.getAsInteger(10, width))
    return b.getIntegerType(width);
  ADD_FAILURE() << "unknown type name";
  return Type();
}

//===----------------------------------------------------------------------===//
// promoteElementTypes(a, b, aIsScalar, bIsScalar)
//===----------------------------------------------------------------------===//

struct PairCase {
  const char *name;
  const char *a;
  bool aIsScalar;
  const char *b;
  bool bIsScalar;
  const char *expected; // "" = no common type
};

// torch.result_type(x, y) with x, y dimensioned tensors (T) or Python
// numbers (S) of the given dtypes.
const PairCase kPairCases[] = {
    // Tensor with tensor: higher category, else wider.
    {"T_i32_T_f16", "i32", false, "f16", false, "f16"},
    {"T_bf16_T_f16", "bf16", false, "f16", false, "f32"},
    {"T_i1_T_i8", "i1", false, "i8", false, "i8"},
    {"T_i8_T_i16", "i8", false, "i16", false, "i16"},
    {"T_i64_T_i32", "i64", false, "i32", false, "i64"},
    {"T_f32_T_f64", "f32", false, "f64", false, "f64"},
    {"T_bf16_T_f32", "bf16", false, "f32", false, "f32"},
    {"T_i64_T_bf16", "i64", false, "bf16", false, "bf16"},
    {"T_i1_T_f16", "i1", false, "f16", false, "f16"},
    {"T_i1_T_i1", "i1", false, "i1", false, "i1"},
    {"T_f16_T_f16", "f16", false, "f16", false, "f16"},
    // Tensor with scalar: the scalar counts only by category.
    {"T_i64_S_f64", "i64", false, "f64", true, "f32"},
    {"T_i64_S_f32", "i64", false, "f32", true, "f32"},
    {"T_i16_S_f16", "i16", false, "f16", true, "f32"},
    {"T_f16_S_f64", "f16", false, "f64", true, "f16"},
    {"T_f64_S_f32", "f64", false, "f32", true, "f64"},
    {"T_bf16_S_i32", "bf16", false, "i32", true, "bf16"},
    {"T_i8_S_i64", "i8", false, "i64", true, "i8"},
    {"T_i32_S_i1", "i32", false, "i1", true, "i32"},
    {"T_i1_S_i32", "i1", false, "i32", true, "i64"},
    {"T_i1_S_i64", "i1", false, "i64", true, "i64"},
    {"T_i1_S_i1", "i1", false, "i1", true, "i1"},
    {"T_i1_S_f64", "i1", false, "f64", true, "f32"},
    {"T_i32_S_index", "i32", false, "index", true, "i32"},
    {"T_i1_S_index", "i1", false, "index", true, "i64"},
    {"S_f64_T_i16", "f64", true, "i16", false, "f32"},
    // Scalar with scalar: the default types of the highest category.
    {"S_f64_S_f64", "f64", true, "f64", true, "f32"},
    {"S_i8_S_i16", "i8", true, "i16", true, "i64"},
    {"S_i1_S_i1", "i1", true, "i1", true, "i1"},
    {"S_i32_S_f64", "i32", true, "f64", true, "f32"},
    // fp8 is a storage type: only the same type.
    {"T_f8E4M3FN_T_f32", "f8E4M3FN", false, "f32", false, ""},
    {"T_f8E4M3FN_T_f8E4M3FN", "f8E4M3FN", false, "f8E4M3FN", false, "f8E4M3FN"},
    {"T_f8E4M3FN_T_f8E5M2", "f8E4M3FN", false, "f8E5M2", false, ""},
    {"T_f8E5M2_S_f32", "f8E5M2", false, "f32", true, ""},
    {"T_i8_T_f8E5M2", "i8", false, "f8E5M2", false, ""},
    {"T_f8E5M2_S_f8E5M2", "f8E5M2", false, "f8E5M2", true, "f8E5M2"},
    // Types outside the dialect.
    {"T_index_T_f32", "index", false, "f32", false, ""},
    {"T_i7_T_i8", "i7", false, "i8", false, ""},
    {"T_ui8_T_i8", "ui8", false, "i8", false, ""},
    {"T_null_T_f32", "", false, "f32", false, ""},
};

/// Readable parameters in test output (and ctest names).
void PrintTo(const PairCase &c, std::ostream *os) {
  auto role = [](bool isScalar) { return isScalar ? " scalar" : " tensor"; };
  *os << c.a << role(c.aIsScalar) << ", " << c.b << role(c.bIsScalar) << " -> "
      << (*c.expected ? c.expected : "none");
}

class PromoteElementTypesTest : public ::testing::TestWithParam<PairCase> {
protected:
  MLIRContext ctx;
};

TEST_P(PromoteElementTypesTest, MatchesTorchResultType) {
  const PairCase &c = GetParam();
  Type a = getType(ctx, c.a), b = getType(ctx, c.b);
  Type expected = getType(ctx, c.expected);
  EXPECT_EQ(promoteElementTypes(a, b, c.aIsScalar, c.bIsScalar), expected);
  // Promotion is symmetric.
  EXPECT_EQ(promoteElementTypes(b, a, c.bIsScalar, c.aIsScalar), expected);
}

INSTANTIATE_TEST_SUITE_P(Torch, PromoteElementTypesTest,
                         ::testing::ValuesIn(kPairCases),
                         [](const ::testing::TestParamInfo<PairCase> &info) {
                           return std::string(info.param.name);
                         });

//===----------------------------------------------------------------------===//
// promoteElementTypes(operands): three roles
//===----------------------------------------------------------------------===//

TEST(PromoteElementTypesRoles, ZeroDimTensorsKeepTheirWidth) {
  MLIRContext ctx;
  auto t = [&](StringRef name, PromotionRole role) {
    return PromotionOperand{getType(ctx, name), role};
  };
  const PromotionRole T = PromotionRole::Tensor;
  const PromotionRole Z = PromotionRole::ZeroDimTensor;
  const PromotionRole S = PromotionRole::WrappedNumber;
  // torch.result_type(torch.ones(2, dtype=torch.int32),
  //                   torch.tensor(1., dtype=torch.float64)) == float64
  EXPECT_EQ(promoteElementTypes({t("i32", T), t("f64", Z)}),
            getType(ctx, "f64"));
  // A 0-d tensor of the same category does not widen a dimensioned one.
  EXPECT_EQ(promoteElementTypes({t("i8", T), t("i64", Z)}), getType(ctx, "i8"));
  EXPECT_EQ(promoteElementTypes({t("f16", Z), t("i32", T)}),
            getType(ctx, "f16"));
  // Only 0-d tensors: as tensors.
  EXPECT_EQ(promoteElementTypes({t("bf16", Z), t("f16", Z)}),
            getType(ctx, "f32"));
  // 0-d tensors beat wrapped numbers within a category.
  EXPECT_EQ(promoteElementTypes({t("f16", Z), t("f64", S)}),
            getType(ctx, "f16"));
  // Three roles: bool tensor, i16 0-d tensor, Python int -> int16.
  EXPECT_EQ(promoteElementTypes({t("i1", T), t("i16", Z), t("i32", S)}),
            getType(ctx, "i16"));
  // ... and with a Python float -> the default float type.
  EXPECT_EQ(promoteElementTypes({t("i1", T), t("i16", Z), t("f64", S)}),
            getType(ctx, "f32"));
  // Three tensors.
  EXPECT_EQ(promoteElementTypes({t("i8", T), t("i1", T), t("i32", T)}),
            getType(ctx, "i32"));
  // Index is a scalar type only.
  EXPECT_EQ(promoteElementTypes({t("index", Z), t("f32", T)}), Type());
  EXPECT_EQ(promoteElementTypes({}), Type());
}

//===----------------------------------------------------------------------===//
// promoteOperands
//===----------------------------------------------------------------------===//

class PromoteOperandsTest : public ::testing::Test {
protected:
  PromoteOperandsTest() : builder(&ctx) {
    ctx.loadDialect<FusionDialect, arith::ArithDialect>();
    loc = builder.getUnknownLoc();
    module = ModuleOp::create(loc);
  }

  /// A fusion `@f` with `inputs` and one result, with the builder at the end
  /// of its (empty) body.
  FusionOp makeFusion(ArrayRef<Type> inputs, Type result) {
    builder.setInsertionPointToEnd(module->getBody());
    auto fusion = FusionOp::create(builder, loc, "f",
                                   builder.getFunctionType(inputs, {result}),
                                   /*arg_attrs=*/nullptr,
                                   /*res_attrs=*/nullptr);
    Block *body = fusion.addEntryBlock();
    builder.setInsertionPointToEnd(body);
    return fusion;
  }

  /// Returns `value` from the fusion and verifies the module.
  LogicalResult finish(Value value) {
    ReturnOp::create(builder, loc, ValueRange{value});
    return verify(*module);
  }

  Type parse(StringRef name) { return getType(ctx, name); }
  RankedTensorType tensor(ArrayRef<int64_t> shape, StringRef element) {
    return RankedTensorType::get(shape, parse(element));
  }

  std::string print(Operation *op) {
    std::string text;
    llvm::raw_string_ostream os(text);
    op->print(os);
    return text;
  }

  template <typename OpTy> int count(Operation *op) {
    int n = 0;
    op->walk([&](OpTy) { ++n; });
    return n;
  }

  MLIRContext ctx;
  OpBuilder builder;
  Location loc = UnknownLoc::get(&ctx);
  OwningOpRef<ModuleOp> module;
  static constexpr int64_t kDyn = ShapedType::kDynamic;
};

TEST_F(PromoteOperandsTest, CastsAndBroadcastsStaticShapes) {
  FusionOp fusion = makeFusion({tensor({4, 1}, "i32"), tensor({3}, "f32")},
                               tensor({4, 3}, "f32"));
  Value a = fusion.getArgument(0), b = fusion.getArgument(1);
  FailureOr<SmallVector<Value>> promoted =
      promoteOperands(builder, loc, {a, b});
  ASSERT_TRUE(succeeded(promoted));
  ASSERT_EQ(promoted->size(), 2u);
  Type expected = tensor({4, 3}, "f32");
  EXPECT_EQ((*promoted)[0].getType(), expected);
  EXPECT_EQ((*promoted)[1].getType(), expected);

  // a: cast to f32, then broadcast along both dims.
  auto bcastA = (*promoted)[0].getDefiningOp<BroadcastInDimOp>();
  ASSERT_TRUE(bcastA);
  EXPECT_EQ(bcastA.getDims(), ArrayRef<int64_t>({0, 1}));
  EXPECT_TRUE(bcastA.getSizes().empty());
  auto castA = bcastA.getInput().getDefiningOp<CastOp>();
  ASSERT_TRUE(castA);
  EXPECT_EQ(castA.getInput(), a);
  EXPECT_EQ(castA.getType(), tensor({4, 1}, "f32"));
  // b: already f32, broadcast into the trailing dim.
  auto bcastB = (*promoted)[1].getDefiningOp<BroadcastInDimOp>();
  ASSERT_TRUE(bcastB);
  EXPECT_EQ(bcastB.getInput(), b);
  EXPECT_EQ(bcastB.getDims(), ArrayRef<int64_t>({1}));
  EXPECT_EQ(count<CastOp>(fusion), 1);
  EXPECT_EQ(count<BroadcastInDimOp>(fusion), 2);
  EXPECT_EQ(count<DimOp>(fusion), 0);

  Value sum = AddOp::create(builder, loc, (*promoted)[0], (*promoted)[1],
                            /*alpha=*/nullptr);
  ASSERT_TRUE(succeeded(finish(sum)));
  // (Ops print without the dialect prefix inside a fusion.)
  EXPECT_EQ(print(fusion),
            "fusion.fusion @f(%arg0: tensor<4x1xi32>, %arg1: tensor<3xf32>) "
            "-> tensor<4x3xf32> {\n"
            "  %0 = cast %arg0 : tensor<4x1xi32> to tensor<4x1xf32>\n"
            "  %1 = broadcast_in_dim %0 [0, 1] : tensor<4x1xf32> -> "
            "tensor<4x3xf32>\n"
            "  %2 = broadcast_in_dim %arg1 [1] : tensor<3xf32> -> "
            "tensor<4x3xf32>\n"
            "  %3 = add %1, %2 : tensor<4x3xf32>\n"
            "  return %3 : tensor<4x3xf32>\n"
            "}");
}

TEST_F(PromoteOperandsTest, DynamicDimsUseFusionDim) {
  // bf16 and f16 tensors with a Python-float-like f64 scalar: f32.
  FusionOp fusion = makeFusion(
      {tensor({kDyn, 1}, "bf16"), tensor({kDyn}, "f16"), parse("f64")},
      tensor({kDyn, kDyn}, "f32"));
  Value a = fusion.getArgument(0), b = fusion.getArgument(1),
        c = fusion.getArgument(2);
  FailureOr<SmallVector<Value>> promoted =
      promoteOperands(builder, loc, {a, b, c});
  ASSERT_TRUE(succeeded(promoted));
  Type expected = tensor({kDyn, kDyn}, "f32");
  for (Value v : *promoted)
    EXPECT_EQ(v.getType(), expected);

  // Result dim 0 is a's dim 0; result dim 1 is b's dim 0 (a's is 1).
  SmallVector<DimOp> dims;
  fusion.walk([&](DimOp op) { dims.push_back(op); });
  ASSERT_EQ(dims.size(), 2u);
  EXPECT_EQ(dims[0].getInput(), a);
  EXPECT_EQ(dims[0].getDim(), 0u);
  EXPECT_EQ(dims[1].getInput(), b);
  EXPECT_EQ(dims[1].getDim(), 0u);

  SmallVector<int64_t> expectedDims[] = {{0, 1}, {1}, {}};
  for (auto [v, expectedMap] : llvm::zip(*promoted, expectedDims)) {
    auto bcast = v.getDefiningOp<BroadcastInDimOp>();
    ASSERT_TRUE(bcast);
    EXPECT_EQ(bcast.getDims(), ArrayRef<int64_t>(expectedMap));
    ASSERT_EQ(bcast.getSizes().size(), 2u);
    EXPECT_EQ(bcast.getSizes()[0], dims[0].getResult());
    EXPECT_EQ(bcast.getSizes()[1], dims[1].getResult());
  }
  // The scalar is truncated with arith, the tensors cast with fusion.cast.
  auto trunc = (*promoted)[2]
                   .getDefiningOp<BroadcastInDimOp>()
                   .getInput()
                   .getDefiningOp<arith::TruncFOp>();
  ASSERT_TRUE(trunc);
  EXPECT_EQ(trunc.getIn(), c);
  EXPECT_EQ(count<CastOp>(fusion), 2);

  Value fma = FmaOp::create(builder, loc, (*promoted)[0], (*promoted)[1],
                            (*promoted)[2]);
  EXPECT_TRUE(succeeded(finish(fma))) << print(fusion);
}

TEST_F(PromoteOperandsTest, StaticSizeWinsOverDynamic) {
  FusionOp fusion = makeFusion(
      {tensor({kDyn, 3}, "f32"), tensor({4, 1}, "f32")}, tensor({4, 3}, "f32"));
  FailureOr<SmallVector<Value>> promoted = promoteOperands(
      builder, loc, {fusion.getArgument(0), fusion.getArgument(1)});
  ASSERT_TRUE(succeeded(promoted));
  EXPECT_EQ((*promoted)[0].getType(), tensor({4, 3}, "f32"));
  EXPECT_EQ((*promoted)[1].getType(), tensor({4, 3}, "f32"));
  EXPECT_EQ(count<DimOp>(fusion), 0);
  EXPECT_EQ(count<CastOp>(fusion), 0);
  Value product = MulOp::create(builder, loc, (*promoted)[0], (*promoted)[1]);
  EXPECT_TRUE(succeeded(finish(product))) << print(fusion);
}

TEST_F(PromoteOperandsTest, SameTypesBuildNothing) {
  Type type = tensor({kDyn, 8}, "bf16");
  FusionOp fusion = makeFusion({type, type}, type);
  Value a = fusion.getArgument(0), b = fusion.getArgument(1);
  FailureOr<SmallVector<Value>> promoted =
      promoteOperands(builder, loc, {a, b});
  ASSERT_TRUE(succeeded(promoted));
  EXPECT_EQ((*promoted)[0], a);
  EXPECT_EQ((*promoted)[1], b);
  EXPECT_TRUE(fusion.getBody().front().empty());
}

TEST_F(PromoteOperandsTest, MismatchedStaticDimsFail) {
  FusionOp fusion =
      makeFusion({tensor({4}, "f32"), tensor({5}, "f32")}, tensor({4}, "f32"));
  std::vector<std::string> messages;
  ScopedDiagnosticHandler handler(&ctx, [&](Diagnostic &diag) {
    messages.push_back(diag.str());
    return success();
  });
  FailureOr<SmallVector<Value>> promoted = promoteOperands(
      builder, loc, {fusion.getArgument(0), fusion.getArgument(1)});
  EXPECT_TRUE(failed(promoted));
  ASSERT_EQ(messages.size(), 1u);
  EXPECT_NE(messages[0].find("size 4"), std::string::npos) << messages[0];
  EXPECT_NE(messages[0].find("size 5"), std::string::npos) << messages[0];
  EXPECT_TRUE(fusion.getBody().front().empty());
}

TEST_F(PromoteOperandsTest, Fp8WithAnotherTypeFails) {
  FusionOp fusion = makeFusion({tensor({2}, "f8E4M3FN"), tensor({2}, "f32")},
                               tensor({2}, "f32"));
  std::vector<std::string> messages;
  ScopedDiagnosticHandler handler(&ctx, [&](Diagnostic &diag) {
    messages.push_back(diag.str());
    return success();
  });
  EXPECT_TRUE(failed(promoteOperands(
      builder, loc, {fusion.getArgument(0), fusion.getArgument(1)})));
  ASSERT_EQ(messages.size(), 1u);
  EXPECT_NE(messages[0].find("fp8"), std::string::npos) << messages[0];
  EXPECT_TRUE(fusion.getBody().front().empty());
}

TEST_F(PromoteOperandsTest, ScalarsOnlyStayScalars) {
  // An i32 and an f64 scalar: Python numbers, so the default float f32.
  FusionOp fusion = makeFusion({parse("i32"), parse("f64")}, parse("f32"));
  Value a = fusion.getArgument(0), b = fusion.getArgument(1);
  FailureOr<SmallVector<Value>> promoted =
      promoteOperands(builder, loc, {a, b});
  ASSERT_TRUE(succeeded(promoted));
  EXPECT_EQ((*promoted)[0].getType(), parse("f32"));
  EXPECT_EQ((*promoted)[1].getType(), parse("f32"));
  EXPECT_TRUE((*promoted)[0].getDefiningOp<arith::SIToFPOp>());
  EXPECT_TRUE((*promoted)[1].getDefiningOp<arith::TruncFOp>());
  EXPECT_EQ(count<BroadcastInDimOp>(fusion), 0);
  Value sum = AddOp::create(builder, loc, (*promoted)[0], (*promoted)[1],
                            /*alpha=*/nullptr);
  EXPECT_TRUE(succeeded(finish(sum))) << print(fusion);
}

TEST_F(PromoteOperandsTest, ScalarsCastWithArith) {
  // Each scalar with a tensor of the type it must become.
  struct Case {
    const char *scalar;
    const char *tensorElement;
    const char *firstOp; // the first arith op on the scalar
  };
  const Case cases[] = {
      {"i64", "i8", "arith.trunci"},
      {"i8", "i32", "arith.extsi"},
      {"i1", "i16", "arith.extui"},
      {"i1", "bf16", "arith.uitofp"},
      {"i32", "f16", "arith.sitofp"},
      {"f32", "f64", "arith.extf"},
      {"f64", "bf16", "arith.truncf"},
      {"bf16", "f16", "arith.extf"},
      {"index", "i32", "arith.index_cast"},
      {"index", "f32", "arith.index_cast"},
  };
  for (const Case &c : cases) {
    SCOPED_TRACE(std::string(c.scalar) + " with a tensor of " +
                 c.tensorElement);
    module = ModuleOp::create(loc);
    Type tensorType = tensor({2, 3}, c.tensorElement);
    FusionOp fusion = makeFusion({parse(c.scalar), tensorType}, tensorType);
    Value s = fusion.getArgument(0), t = fusion.getArgument(1);
    FailureOr<SmallVector<Value>> promoted =
        promoteOperands(builder, loc, {s, t});
    ASSERT_TRUE(succeeded(promoted));
    EXPECT_EQ((*promoted)[0].getType(), tensorType);
    EXPECT_EQ((*promoted)[1], t);
    auto bcast = (*promoted)[0].getDefiningOp<BroadcastInDimOp>();
    ASSERT_TRUE(bcast);
    EXPECT_TRUE(bcast.getDims().empty());
    EXPECT_EQ(bcast.getInput().getType(), parse(c.tensorElement));
    Operation *first = &fusion.getBody().front().front();
    EXPECT_EQ(first->getName().getStringRef(), c.firstOp);
    EXPECT_EQ(first->getOperand(0), s);
    EXPECT_EQ(count<CastOp>(fusion), 0);
    Value result = MaximumOp::create(builder, loc, (*promoted)[0], t);
    EXPECT_TRUE(succeeded(finish(result))) << print(fusion);
  }
}

TEST_F(PromoteOperandsTest, ZeroDimTensorPromotesAndBroadcasts) {
  // A 0-d f64 tensor with an i32 tensor: f64 (0-d tensors keep widths).
  FusionOp fusion =
      makeFusion({tensor({}, "f64"), tensor({2}, "i32"), tensor({2}, "i1")},
                 tensor({2}, "f64"));
  Value z = fusion.getArgument(0), t = fusion.getArgument(1),
        cond = fusion.getArgument(2);
  FailureOr<SmallVector<Value>> promoted =
      promoteOperands(builder, loc, {z, t});
  ASSERT_TRUE(succeeded(promoted));
  Type expected = tensor({2}, "f64");
  EXPECT_EQ((*promoted)[0].getType(), expected);
  EXPECT_EQ((*promoted)[1].getType(), expected);
  auto bcast = (*promoted)[0].getDefiningOp<BroadcastInDimOp>();
  ASSERT_TRUE(bcast);
  EXPECT_EQ(bcast.getInput(), z);
  EXPECT_TRUE(bcast.getDims().empty());
  EXPECT_TRUE((*promoted)[1].getDefiningOp<CastOp>());
  Value result =
      WhereOp::create(builder, loc, cond, (*promoted)[0], (*promoted)[1]);
  EXPECT_TRUE(succeeded(finish(result))) << print(fusion);
}

TEST_F(PromoteOperandsTest, RejectsNonTensorNonScalar) {
  Type vector = VectorType::get({4}, parse("f32"));
  FusionOp fusion = makeFusion({tensor({4}, "f32")}, tensor({4}, "f32"));
  // A value of a type fusions cannot take: an unrealized cast makes one.
  Value v = UnrealizedConversionCastOp::create(builder, loc, TypeRange{vector},
                                               ValueRange{})
                .getResult(0);
  std::vector<std::string> messages;
  ScopedDiagnosticHandler handler(&ctx, [&](Diagnostic &diag) {
    messages.push_back(diag.str());
    return success();
  });
  EXPECT_TRUE(
      failed(promoteOperands(builder, loc, {fusion.getArgument(0), v})));
  ASSERT_EQ(messages.size(), 1u);
  EXPECT_NE(messages[0].find("operand 1"), std::string::npos) << messages[0];
}

} // namespace
