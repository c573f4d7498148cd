//===- Internal.h - the interpreter's value model ---------------*- C++ -*-===//
// Shared by the evaluators of lib/Interpreter: dense values, the value map
// and error helpers. Not installed.
//===----------------------------------------------------------------------===//
#ifndef FUSION_LIB_INTERPRETER_INTERNAL_H
#define FUSION_LIB_INTERPRETER_INTERNAL_H

#include "fusion/Dialect/Fusion/IR/FusionOps.h"
#include "fusion/Interpreter/HostTensor.h"

#include "llvm/ADT/DenseMap.h"

#include <string>
#include <vector>

namespace mlir::fusion::interp::eval {

// Note [Dense values]: inside the interpreter every value is dense and
// row-major, floats widened to double and integers to int64, each already
// rounded (or wrapped) to its dtype. Strided inputs are gathered once on
// entry, so the evaluators never see strides, and an op's arithmetic in
// double followed by one rounding gives the correctly rounded result a
// kernel computing in the element type would give for + - * / and sqrt.
struct DenseValue {
  enum class Kind { Tensor, Scalar, Index };
  Kind kind = Kind::Tensor;
  DType dtype = DType::F32;
  llvm::SmallVector<int64_t, 4> shape;
  std::vector<double> f;  // float dtypes
  std::vector<int64_t> i; // integer dtypes, i1 (0 or 1) and index

  static DenseValue make(DType dtype, llvm::ArrayRef<int64_t> shape,
                         Kind kind = Kind::Tensor);
  static DenseValue index(int64_t v);
  bool isFloat() const { return isFloatDType(dtype); }
  bool isTensor() const { return kind == Kind::Tensor; }
  int64_t numel() const;
  /// Element `k` as double or int64, whatever the dtype.
  double getDouble(int64_t k) const;
  int64_t getInt(int64_t k) const;
  /// Stores element `k`, rounding or wrapping into the dtype.
  void setDouble(int64_t k, double v);
  void setInt(int64_t k, int64_t v);
  /// Copies element `from` of `src` (same dtype class) to element `k`.
  void copyFrom(int64_t k, const DenseValue &src, int64_t from);
};

/// The values of an interpretation, by SSA value.
class Env {
public:
  const DenseValue &get(mlir::Value v) const {
    auto it = values.find(v);
    assert(it != values.end() && "value used before definition");
    return it->second;
  }
  void set(mlir::Value v, DenseValue value) { values[v] = std::move(value); }

private:
  llvm::DenseMap<mlir::Value, DenseValue> values;
};

/// An error naming the op and its location:
/// "'fusion.add' at file.mlir:3:8: <message>".
llvm::Error opError(Operation *op, const llvm::Twine &message);
/// "[2, 3]".
std::string shapeString(llvm::ArrayRef<int64_t> shape);
/// The dtype of a type's element type; an error naming the op if it has
/// none (e.g. an unsupported integer width).
llvm::Expected<DType> dtypeOfResult(Operation *op, Type type);
/// The shape of `type` with its dynamic dims taken from `sizes`, in order.
llvm::Expected<llvm::SmallVector<int64_t, 4>>
resultShape(Operation *op, RankedTensorType type, mlir::ValueRange sizes,
            const Env &env);
/// The most elements one value may have (8 bytes each inside the
/// interpreter): sizes from the IR or the inputs beyond it are errors rather
/// than failed allocations.
constexpr int64_t kMaxElements = int64_t(1) << 32;
/// An error naming the op if `shape` has more than kMaxElements elements.
llvm::Error checkElementCount(Operation *op, llvm::ArrayRef<int64_t> shape);

/// Row-major strides of a shape.
llvm::SmallVector<int64_t, 4> rowMajorStrides(llvm::ArrayRef<int64_t> shape);

/// Where a reduction reads its input: output element `o` reduces input
/// elements `bases[o] + offsets[r]` for every `r`, with `r` running
/// row-major over the reduced dims (so over [axis, rank) it is the linear
/// index into a normalization's weight).
struct ReductionPlan {
  llvm::SmallVector<int64_t, 4> shape; // the result shape
  std::vector<int64_t> bases;
  std::vector<int64_t> offsets;
};
ReductionPlan planReduction(llvm::ArrayRef<int64_t> inputShape,
                            llvm::ArrayRef<int64_t> dims, bool keepdim);

// The evaluators set `handled` when `op` is theirs.
llvm::Error evalArith(Operation *op, Env &env, bool &handled);
llvm::Error evalElementwise(Operation *op, Env &env, bool &handled);
llvm::Error evalShape(Operation *op, Env &env, bool &handled);
llvm::Error evalReduction(Operation *op, Env &env, bool &handled);
llvm::Error evalComposite(Operation *op, Env &env, bool &handled);

} // namespace mlir::fusion::interp::eval

#endif // FUSION_LIB_INTERPRETER_INTERNAL_H
