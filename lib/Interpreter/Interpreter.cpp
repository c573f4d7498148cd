//===- Interpreter.cpp - reference interpreter of fusions -----------------===//
// The driver: checks inputs against the signature, runs the fusion body op by
// op through the evaluators, checks every result against its type, and hands
// the outputs back as host tensors.
//===----------------------------------------------------------------------===//

#include "fusion/Interpreter/Interpreter.h"

#include "Internal.h"

#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/STLExtras.h"

using namespace mlir;
using namespace mlir::fusion;
using namespace mlir::fusion::interp;
using namespace mlir::fusion::interp::eval;

//===----------------------------------------------------------------------===//
// DenseValue and helpers
//===----------------------------------------------------------------------===//

DenseValue DenseValue::make(DType dtype, ArrayRef<int64_t> shape, Kind kind) {
  DenseValue v;
  v.kind = kind;
  v.dtype = dtype;
  v.shape.assign(shape.begin(), shape.end());
  if (v.isFloat())
    v.f.assign(v.numel(), 0.0);
  else
    v.i.assign(v.numel(), 0);
  return v;
}

DenseValue DenseValue::index(int64_t value) {
  DenseValue v = make(DType::I64, {}, Kind::Index);
  v.i[0] = value;
  return v;
}

int64_t DenseValue::numel() const {
  int64_t n = 1;
  for (int64_t s : shape)
    n *= s;
  return n;
}

double DenseValue::getDouble(int64_t k) const {
  return isFloat() ? f[k] : static_cast<double>(i[k]);
}

int64_t DenseValue::getInt(int64_t k) const {
  return isFloat() ? floatToInt(f[k], DType::I64) : i[k];
}

void DenseValue::setDouble(int64_t k, double v) {
  if (isFloat())
    f[k] = roundToDType(v, dtype);
  else
    i[k] = floatToInt(v, dtype);
}

void DenseValue::setInt(int64_t k, int64_t v) {
  if (isFloat())
    f[k] = intToFloat(v, dtype);
  else
    i[k] = kind == Kind::Index ? v : wrapToDType(v, dtype);
}

void DenseValue::copyFrom(int64_t k, const DenseValue &src, int64_t from) {
  if (isFloat())
    f[k] = src.f[from];
  else
    i[k] = src.i[from];
}

llvm::Error eval::opError(Operation *op, const Twine &message) {
  std::string where;
  if (auto loc = op->getLoc()->findInstanceOf<FileLineColLoc>()) {
    if (!loc.getFilename().empty())
      where += loc.getFilename().str() + ":";
    where +=
        std::to_string(loc.getLine()) + ":" + std::to_string(loc.getColumn());
  }
  std::string prefix = "'" + op->getName().getStringRef().str() + "'";
  if (!where.empty())
    prefix += " at " + where;
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 prefix + ": " + message);
}

std::string eval::shapeString(ArrayRef<int64_t> shape) {
  std::string s = "[";
  for (auto [k, size] : llvm::enumerate(shape))
    s += (k ? ", " : "") + std::to_string(size);
  return s + "]";
}

llvm::Expected<DType> eval::dtypeOfResult(Operation *op, Type type) {
  Type element = getElementTypeOrSelf(type);
  if (auto dtype = dtypeOf(element))
    return *dtype;
  std::string name;
  llvm::raw_string_ostream os(name);
  os << element;
  return opError(op, "element type " + name + " is not supported");
}

llvm::Expected<SmallVector<int64_t, 4>> eval::resultShape(Operation *op,
                                                          RankedTensorType type,
                                                          ValueRange sizes,
                                                          const Env &env) {
  SmallVector<int64_t, 4> shape;
  unsigned next = 0;
  for (int64_t d = 0; d < type.getRank(); ++d) {
    if (!type.isDynamicDim(d)) {
      shape.push_back(type.getDimSize(d));
      continue;
    }
    if (next >= sizes.size())
      return opError(op, "has too few size operands for its dynamic dims");
    int64_t size = env.get(sizes[next++]).getInt(0);
    if (size < 0)
      return opError(op, "size operand " + Twine(next - 1) + " (result dim " +
                             Twine(d) + ") is negative: " + Twine(size));
    shape.push_back(size);
  }
  return shape;
}

llvm::Error eval::checkElementCount(Operation *op, ArrayRef<int64_t> shape) {
  if (llvm::is_contained(shape, 0))
    return llvm::Error::success();
  int64_t n = 1;
  for (int64_t size : shape) {
    if (__builtin_mul_overflow(n, size, &n) || n > kMaxElements)
      return opError(op, "result shape " + shapeString(shape) +
                             " has more than 2^32 elements, too many for the "
                             "interpreter");
  }
  return llvm::Error::success();
}

SmallVector<int64_t, 4> eval::rowMajorStrides(ArrayRef<int64_t> shape) {
  SmallVector<int64_t, 4> strides(shape.size(), 1);
  for (int64_t d = static_cast<int64_t>(shape.size()) - 2; d >= 0; --d)
    strides[d] = strides[d + 1] * shape[d + 1];
  return strides;
}

//===----------------------------------------------------------------------===//
// Inputs and outputs
//===----------------------------------------------------------------------===//

static std::string typeName(Type type) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << type;
  return s;
}

llvm::Error mlir::fusion::interp::checkInputs(FusionOp fusion,
                                              ArrayRef<HostValue> inputs) {
  ArrayRef<Type> types = fusion.getArgumentTypes();
  if (inputs.size() != types.size())
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "fusion @" + fusion.getSymName() +
                                       " expects " + Twine(types.size()) +
                                       " inputs, got " + Twine(inputs.size()));
  for (auto [k, pair] : llvm::enumerate(llvm::zip(types, inputs))) {
    auto &[type, input] = pair;
    std::string who =
        "input " + std::to_string(k) + " (" + fusion.getInputName(k) + ")";
    auto fail = [&](const Twine &message) {
      return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                     who + ": " + message);
    };
    if (isa<IndexType>(type)) {
      if (!input.isIndex())
        return fail("expected an index, got " + input.typeString());
      continue;
    }
    auto tensorType = dyn_cast<RankedTensorType>(type);
    if (tensorType && !input.isTensor())
      return fail("expected a tensor " + typeName(type) + ", got a scalar " +
                  input.typeString());
    if (!tensorType && !input.isScalar())
      return fail("expected a scalar " + typeName(type) + ", got " +
                  (input.isTensor() ? "a tensor " : "an ") +
                  input.typeString());
    if (!input.tensor().valid())
      return fail("has no storage");
    auto expected = dtypeOf(getElementTypeOrSelf(type));
    if (!expected)
      return fail("the signature's element type " +
                  typeName(getElementTypeOrSelf(type)) +
                  " is not supported by the interpreter");
    if (*expected != input.dtype())
      return fail("expected dtype " + dtypeName(*expected) + ", got " +
                  dtypeName(input.dtype()));
    if (!tensorType)
      continue;
    const HostTensor &tensor = input.tensor();
    if (tensor.rank() != tensorType.getRank())
      return fail("expected rank " + Twine(tensorType.getRank()) + " (" +
                  typeName(type) + "), got rank " + Twine(tensor.rank()) +
                  " (" + tensor.typeString() + ")");
    for (int64_t d = 0; d < tensor.rank(); ++d)
      if (!tensorType.isDynamicDim(d) &&
          tensorType.getDimSize(d) != tensor.sizes()[d])
        return fail("dim " + Twine(d) + " expected size " +
                    Twine(tensorType.getDimSize(d)) + ", got " +
                    Twine(tensor.sizes()[d]) + " (" + tensor.typeString() +
                    " for " + typeName(type) + ")");
  }
  return llvm::Error::success();
}

static DenseValue toDense(const HostValue &input) {
  const HostTensor &t = input.tensor();
  DenseValue::Kind kind = input.isTensor()  ? DenseValue::Kind::Tensor
                          : input.isIndex() ? DenseValue::Kind::Index
                                            : DenseValue::Kind::Scalar;
  DenseValue v = DenseValue::make(t.dtype(), t.sizes(), kind);
  int64_t n = v.numel();
  if (v.isFloat())
    for (int64_t k = 0; k < n; ++k)
      v.f[k] = t.getDouble(k);
  else
    for (int64_t k = 0; k < n; ++k)
      v.i[k] = t.getInt(k);
  return v;
}

static HostTensor toHost(const DenseValue &v) {
  if (v.isFloat())
    return HostTensor::fromDoubles(v.dtype, v.shape, v.f);
  return HostTensor::fromInts(v.dtype, v.shape, v.i);
}

/// Every result must agree with its declared type; a disagreement (say, a
/// static result dim the run-time sizes contradict) is the op's error.
static llvm::Error checkResults(Operation *op, const Env &env) {
  for (auto [k, result] : llvm::enumerate(op->getResults())) {
    const DenseValue &v = env.get(result);
    auto type = dyn_cast<RankedTensorType>(result.getType());
    if (!type) {
      if (v.isTensor())
        return opError(op, "result " + Twine(k) +
                               " is a tensor but its type is a scalar");
      continue;
    }
    bool match = v.isTensor() && int64_t(v.shape.size()) == type.getRank();
    for (int64_t d = 0; match && d < type.getRank(); ++d)
      match = type.isDynamicDim(d) || type.getDimSize(d) == v.shape[d];
    if (!match)
      return opError(op, "result " + Twine(k) + " has shape " +
                             shapeString(v.shape) + " but its type is " +
                             typeName(type));
  }
  return llvm::Error::success();
}

llvm::Expected<std::vector<HostTensor>>
mlir::fusion::interp::interpret(FusionOp fusion, ArrayRef<HostValue> inputs) {
  if (auto err = checkInputs(fusion, inputs))
    return std::move(err);
  Block &body = fusion.getBody().front();
  Env env;
  for (auto [arg, input] : llvm::zip(body.getArguments(), inputs))
    env.set(arg, toDense(input));

  using Evaluator = llvm::Error (*)(Operation *, Env &, bool &);
  static const Evaluator evaluators[] = {evalArith, evalElementwise, evalShape,
                                         evalReduction, evalComposite};
  for (Operation &op : body) {
    if (auto ret = dyn_cast<ReturnOp>(op)) {
      std::vector<HostTensor> outputs;
      for (mlir::Value v : ret.getOperands())
        outputs.push_back(toHost(env.get(v)));
      return outputs;
    }
    bool handled = false;
    for (Evaluator evaluate : evaluators) {
      if (auto err = evaluate(&op, env, handled))
        return std::move(err);
      if (handled)
        break;
    }
    if (!handled)
      return opError(&op, "is not supported by the interpreter");
    if (auto err = checkResults(&op, env))
      return std::move(err);
  }
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 "fusion @" + fusion.getSymName() +
                                     " has no fusion.return");
}
