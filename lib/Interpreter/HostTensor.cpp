//===- HostTensor.cpp - CPU tensors of the reference interpreter ----------===//
// Storage access by dtype, the exact conversions between element types, and
// printing.
//===----------------------------------------------------------------------===//

#include "fusion/Interpreter/HostTensor.h"

#include "fusion/Interpreter/FloatFormats.h"

#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/MathExtras.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>

using namespace mlir;
using namespace mlir::fusion::interp;

//===----------------------------------------------------------------------===//
// DType
//===----------------------------------------------------------------------===//

StringRef mlir::fusion::interp::dtypeName(DType dtype) {
  switch (dtype) {
  case DType::F64:
    return "f64";
  case DType::F32:
    return "f32";
  case DType::F16:
    return "f16";
  case DType::BF16:
    return "bf16";
  case DType::I64:
    return "i64";
  case DType::I32:
    return "i32";
  case DType::I16:
    return "i16";
  case DType::I8:
    return "i8";
  case DType::I1:
    return "i1";
  case DType::F8E4M3FN:
    return "f8E4M3FN";
  case DType::F8E5M2:
    return "f8E5M2";
  }
  return "invalid";
}

std::optional<DType> mlir::fusion::interp::parseDType(StringRef name) {
  return llvm::StringSwitch<std::optional<DType>>(name)
      .Case("f64", DType::F64)
      .Case("f32", DType::F32)
      .Case("f16", DType::F16)
      .Case("bf16", DType::BF16)
      .Case("i64", DType::I64)
      .Case("i32", DType::I32)
      .Case("i16", DType::I16)
      .Case("i8", DType::I8)
      .Cases("i1", "bool", DType::I1)
      .Case("f8E4M3FN", DType::F8E4M3FN)
      .Case("f8E5M2", DType::F8E5M2)
      .Default(std::nullopt);
}

int64_t mlir::fusion::interp::dtypeBytes(DType dtype) {
  switch (dtype) {
  case DType::F64:
  case DType::I64:
    return 8;
  case DType::F32:
  case DType::I32:
    return 4;
  case DType::F16:
  case DType::BF16:
  case DType::I16:
    return 2;
  case DType::I8:
  case DType::I1:
  case DType::F8E4M3FN:
  case DType::F8E5M2:
    return 1;
  }
  return 0;
}

std::optional<double>
mlir::fusion::interp::parseScalarText(llvm::StringRef text) {
  text = text.trim();
  if (text == "true")
    return 1.0;
  if (text == "false")
    return 0.0;
  if (text.empty())
    return std::nullopt;
  std::string s = text.str();
  char *end = nullptr;
  double value = std::strtod(s.c_str(), &end);
  if (end != s.c_str() + s.size())
    return std::nullopt;
  return value;
}

bool mlir::fusion::interp::isFloatDType(DType dtype) {
  switch (dtype) {
  case DType::F64:
  case DType::F32:
  case DType::F16:
  case DType::BF16:
  case DType::F8E4M3FN:
  case DType::F8E5M2:
    return true;
  default:
    return false;
  }
}

unsigned mlir::fusion::interp::intBitWidth(DType dtype) {
  switch (dtype) {
  case DType::I64:
    return 64;
  case DType::I32:
    return 32;
  case DType::I16:
    return 16;
  case DType::I8:
    return 8;
  case DType::I1:
    return 1;
  default:
    return 0;
  }
}

std::optional<DType> mlir::fusion::interp::dtypeOf(Type type) {
  if (type.isF64())
    return DType::F64;
  if (type.isF32())
    return DType::F32;
  if (type.isF16())
    return DType::F16;
  if (type.isBF16())
    return DType::BF16;
  if (isa<Float8E4M3FNType>(type))
    return DType::F8E4M3FN;
  if (isa<Float8E5M2Type>(type))
    return DType::F8E5M2;
  if (auto integer = dyn_cast<IntegerType>(type)) {
    if (integer.isUnsigned())
      return std::nullopt;
    switch (integer.getWidth()) {
    case 64:
      return DType::I64;
    case 32:
      return DType::I32;
    case 16:
      return DType::I16;
    case 8:
      return DType::I8;
    case 1:
      return DType::I1;
    default:
      return std::nullopt;
    }
  }
  return std::nullopt;
}

Type mlir::fusion::interp::toMLIRType(DType dtype, MLIRContext *context) {
  switch (dtype) {
  case DType::F64:
    return Float64Type::get(context);
  case DType::F32:
    return Float32Type::get(context);
  case DType::F16:
    return Float16Type::get(context);
  case DType::BF16:
    return BFloat16Type::get(context);
  case DType::F8E4M3FN:
    return Float8E4M3FNType::get(context);
  case DType::F8E5M2:
    return Float8E5M2Type::get(context);
  default:
    return IntegerType::get(context, intBitWidth(dtype));
  }
}

double mlir::fusion::interp::roundToDType(double value, DType dtype) {
  switch (dtype) {
  case DType::F64:
    return value;
  case DType::F32:
    return roundToF32(value);
  case DType::F16:
    return decodeF16(encodeF16(value));
  case DType::BF16:
    return decodeBF16(encodeBF16(value));
  case DType::F8E4M3FN:
    return decodeF8E4M3FN(encodeF8E4M3FN(value));
  case DType::F8E5M2:
    return decodeF8E5M2(encodeF8E5M2(value));
  default:
    return value;
  }
}

int64_t mlir::fusion::interp::wrapToDType(int64_t value, DType dtype) {
  switch (dtype) {
  case DType::I32:
    return static_cast<int32_t>(static_cast<uint32_t>(value));
  case DType::I16:
    return static_cast<int16_t>(static_cast<uint16_t>(value));
  case DType::I8:
    return static_cast<int8_t>(static_cast<uint8_t>(value));
  case DType::I1:
    return value != 0;
  default:
    return value;
  }
}

int64_t mlir::fusion::interp::intMin(DType dtype) {
  unsigned bits = intBitWidth(dtype);
  if (bits == 1)
    return 0;
  return bits == 64 ? std::numeric_limits<int64_t>::min()
                    : -(int64_t(1) << (bits - 1));
}

int64_t mlir::fusion::interp::intMax(DType dtype) {
  unsigned bits = intBitWidth(dtype);
  if (bits == 1)
    return 1;
  return bits == 64 ? std::numeric_limits<int64_t>::max()
                    : (int64_t(1) << (bits - 1)) - 1;
}

double mlir::fusion::interp::intToFloat(int64_t value, DType dtype) {
  if (dtype == DType::F64)
    return static_cast<double>(value);
  // Beyond 2^53 the conversion to double rounds, and rounding that again to
  // a narrower type could be off by one ulp. Truncating to 53 bits with the
  // dropped bits ORed into the last one (round to odd) keeps the second
  // rounding exact, as every narrower type has at most 24 significand bits.
  uint64_t magnitude = value < 0 ? 0 - static_cast<uint64_t>(value)
                                 : static_cast<uint64_t>(value);
  double x;
  if (magnitude < (uint64_t(1) << 53)) {
    x = static_cast<double>(magnitude);
  } else {
    int shift = 64 - llvm::countl_zero(magnitude) - 53;
    uint64_t kept = magnitude >> shift;
    if (magnitude & ((uint64_t(1) << shift) - 1))
      kept |= 1;
    x = std::ldexp(static_cast<double>(kept), shift);
  }
  return roundToDType(value < 0 ? -x : x, dtype);
}

int64_t mlir::fusion::interp::floatToInt(double value, DType dtype) {
  if (dtype == DType::I1)
    return value != 0; // NaN is non-zero, as bool(nan) in Python
  if (std::isnan(value))
    return 0;
  double t = std::trunc(value);
  int64_t lo = intMin(dtype), hi = intMax(dtype);
  if (t <= static_cast<double>(lo))
    return lo;
  // (double)INT64_MAX is 2^63, so >= catches every value out of range.
  if (t >= static_cast<double>(hi))
    return hi;
  return static_cast<int64_t>(t);
}

//===----------------------------------------------------------------------===//
// HostTensor
//===----------------------------------------------------------------------===//

static int64_t product(ArrayRef<int64_t> sizes) {
  int64_t n = 1;
  for (int64_t s : sizes)
    n *= s;
  return n;
}

static SmallVector<int64_t, 4> rowMajorStrides(ArrayRef<int64_t> sizes) {
  SmallVector<int64_t, 4> strides(sizes.size(), 1);
  for (int64_t d = static_cast<int64_t>(sizes.size()) - 2; d >= 0; --d)
    strides[d] = strides[d + 1] * std::max<int64_t>(sizes[d + 1], 1);
  return strides;
}

HostTensor::HostTensor(DType dtype, ArrayRef<int64_t> sizes)
    : dtype_(dtype), sizes_(sizes.begin(), sizes.end()),
      strides_(rowMajorStrides(sizes)),
      storage_(std::make_shared<std::vector<uint8_t>>(product(sizes) *
                                                      dtypeBytes(dtype))) {}

static llvm::Error checkView(ArrayRef<int64_t> sizes, ArrayRef<int64_t> strides,
                             int64_t offset, int64_t storageElements) {
  if (sizes.size() != strides.size())
    return llvm::createStringError("%zu sizes but %zu strides", sizes.size(),
                                   strides.size());
  int64_t lo = offset, hi = offset;
  bool empty = false;
  for (auto [size, stride] : llvm::zip(sizes, strides)) {
    if (size < 0)
      return llvm::createStringError("negative size %lld", (long long)size);
    if (size == 0)
      empty = true;
    else if (stride < 0)
      lo += stride * (size - 1);
    else
      hi += stride * (size - 1);
  }
  if (empty)
    return llvm::Error::success();
  if (lo < 0 || hi >= storageElements)
    return llvm::createStringError(
        "the view reaches elements [%lld, %lld] outside the storage of %lld "
        "elements",
        (long long)lo, (long long)hi, (long long)storageElements);
  return llvm::Error::success();
}

llvm::Expected<HostTensor> HostTensor::strided(DType dtype,
                                               ArrayRef<int64_t> sizes,
                                               ArrayRef<int64_t> strides,
                                               int64_t storageElements,
                                               int64_t offset) {
  if (storageElements < 0)
    return llvm::createStringError("negative storage size");
  if (auto err = checkView(sizes, strides, offset, storageElements))
    return std::move(err);
  HostTensor t;
  t.dtype_ = dtype;
  t.sizes_.assign(sizes.begin(), sizes.end());
  t.strides_.assign(strides.begin(), strides.end());
  t.offset_ = offset;
  t.storage_ = std::make_shared<std::vector<uint8_t>>(storageElements *
                                                      dtypeBytes(dtype));
  return t;
}

llvm::Expected<HostTensor> HostTensor::view(ArrayRef<int64_t> sizes,
                                            ArrayRef<int64_t> strides,
                                            int64_t offset) const {
  if (auto err = checkView(sizes, strides, offset, storageElements()))
    return std::move(err);
  HostTensor t = *this;
  t.sizes_.assign(sizes.begin(), sizes.end());
  t.strides_.assign(strides.begin(), strides.end());
  t.offset_ = offset;
  return t;
}

HostTensor HostTensor::fromDoubles(DType dtype, ArrayRef<int64_t> sizes,
                                   ArrayRef<double> values) {
  HostTensor t(dtype, sizes);
  assert(static_cast<int64_t>(values.size()) == t.numElements() &&
         "one value per element");
  for (auto [i, v] : llvm::enumerate(values))
    t.storeDouble(i, v);
  return t;
}

HostTensor HostTensor::fromInts(DType dtype, ArrayRef<int64_t> sizes,
                                ArrayRef<int64_t> values) {
  HostTensor t(dtype, sizes);
  assert(static_cast<int64_t>(values.size()) == t.numElements() &&
         "one value per element");
  for (auto [i, v] : llvm::enumerate(values))
    t.storeInt(i, v);
  return t;
}

HostTensor HostTensor::scalar(DType dtype, double value) {
  return fromDoubles(dtype, {}, {value});
}

int64_t HostTensor::numElements() const { return product(sizes_); }

bool HostTensor::isContiguous() const {
  int64_t expected = 1;
  for (int64_t d = rank() - 1; d >= 0; --d) {
    if (sizes_[d] == 1)
      continue;
    if (sizes_[d] == 0)
      return true;
    if (strides_[d] != expected)
      return false;
    expected *= sizes_[d];
  }
  return true;
}

std::string HostTensor::typeString() const {
  std::string s = "tensor<";
  for (int64_t size : sizes_)
    s += std::to_string(size) + "x";
  s += dtypeName(dtype_).str() + ">";
  return s;
}

uint8_t *HostTensor::storage() { return storage_ ? storage_->data() : nullptr; }
const uint8_t *HostTensor::storage() const {
  return storage_ ? storage_->data() : nullptr;
}
int64_t HostTensor::storageElements() const {
  return storage_ ? static_cast<int64_t>(storage_->size()) / dtypeBytes(dtype_)
                  : 0;
}

int64_t HostTensor::positionOf(ArrayRef<int64_t> index) const {
  assert(static_cast<int64_t>(index.size()) == rank() && "index rank");
  int64_t p = offset_;
  for (auto [i, s] : llvm::zip(index, strides_))
    p += i * s;
  return p;
}

int64_t HostTensor::positionOfLinear(int64_t linear) const {
  int64_t p = offset_;
  for (int64_t d = rank() - 1; d >= 0; --d) {
    int64_t size = sizes_[d];
    p += (linear % size) * strides_[d];
    linear /= size;
  }
  return p;
}

template <typename T> static T load(const uint8_t *base, int64_t position) {
  T value;
  std::memcpy(&value, base + position * sizeof(T), sizeof(T));
  return value;
}

template <typename T>
static void store(uint8_t *base, int64_t position, T value) {
  std::memcpy(base + position * sizeof(T), &value, sizeof(T));
}

double HostTensor::loadDouble(int64_t position) const {
  const uint8_t *base = storage();
  switch (dtype_) {
  case DType::F64:
    return load<double>(base, position);
  case DType::F32:
    return load<float>(base, position);
  case DType::F16:
    return decodeF16(load<uint16_t>(base, position));
  case DType::BF16:
    return decodeBF16(load<uint16_t>(base, position));
  case DType::F8E4M3FN:
    return decodeF8E4M3FN(load<uint8_t>(base, position));
  case DType::F8E5M2:
    return decodeF8E5M2(load<uint8_t>(base, position));
  default:
    return static_cast<double>(loadInt(position));
  }
}

int64_t HostTensor::loadInt(int64_t position) const {
  const uint8_t *base = storage();
  switch (dtype_) {
  case DType::I64:
    return load<int64_t>(base, position);
  case DType::I32:
    return load<int32_t>(base, position);
  case DType::I16:
    return load<int16_t>(base, position);
  case DType::I8:
    return load<int8_t>(base, position);
  case DType::I1:
    return load<uint8_t>(base, position) != 0;
  default:
    return floatToInt(loadDouble(position), DType::I64);
  }
}

void HostTensor::storeDouble(int64_t position, double value) {
  uint8_t *base = storage();
  switch (dtype_) {
  case DType::F64:
    return store<double>(base, position, value);
  case DType::F32:
    return store<float>(base, position, static_cast<float>(roundToF32(value)));
  case DType::F16:
    return store<uint16_t>(base, position, encodeF16(value));
  case DType::BF16:
    return store<uint16_t>(base, position, encodeBF16(value));
  case DType::F8E4M3FN:
    return store<uint8_t>(base, position, encodeF8E4M3FN(value));
  case DType::F8E5M2:
    return store<uint8_t>(base, position, encodeF8E5M2(value));
  default:
    return storeInt(position, floatToInt(value, dtype_));
  }
}

void HostTensor::storeInt(int64_t position, int64_t value) {
  uint8_t *base = storage();
  switch (dtype_) {
  case DType::I64:
    return store<int64_t>(base, position, value);
  case DType::I32:
    return store<int32_t>(base, position,
                          static_cast<int32_t>(wrapToDType(value, dtype_)));
  case DType::I16:
    return store<int16_t>(base, position,
                          static_cast<int16_t>(wrapToDType(value, dtype_)));
  case DType::I8:
    return store<int8_t>(base, position,
                         static_cast<int8_t>(wrapToDType(value, dtype_)));
  case DType::I1:
    return store<uint8_t>(base, position, value != 0);
  default:
    return storeDouble(position, intToFloat(value, dtype_));
  }
}

double HostTensor::getDouble(ArrayRef<int64_t> index) const {
  return loadDouble(positionOf(index));
}
double HostTensor::getDouble(int64_t linear) const {
  return loadDouble(positionOfLinear(linear));
}
int64_t HostTensor::getInt(ArrayRef<int64_t> index) const {
  return loadInt(positionOf(index));
}
int64_t HostTensor::getInt(int64_t linear) const {
  return loadInt(positionOfLinear(linear));
}
void HostTensor::setDouble(ArrayRef<int64_t> index, double value) {
  storeDouble(positionOf(index), value);
}
void HostTensor::setInt(ArrayRef<int64_t> index, int64_t value) {
  storeInt(positionOf(index), value);
}

std::vector<double> HostTensor::toDoubles() const {
  std::vector<double> values(numElements());
  for (int64_t i = 0, e = numElements(); i < e; ++i)
    values[i] = getDouble(i);
  return values;
}

std::vector<int64_t> HostTensor::toInts() const {
  std::vector<int64_t> values(numElements());
  for (int64_t i = 0, e = numElements(); i < e; ++i)
    values[i] = getInt(i);
  return values;
}

HostTensor HostTensor::clone() const {
  HostTensor t(dtype_, sizes_);
  int64_t bytes = dtypeBytes(dtype_);
  for (int64_t i = 0, e = numElements(); i < e; ++i)
    std::memcpy(t.storage() + i * bytes,
                storage() + positionOfLinear(i) * bytes, bytes);
  return t;
}

//===----------------------------------------------------------------------===//
// HostValue
//===----------------------------------------------------------------------===//

HostValue HostValue::scalar(DType dtype, double value) {
  return HostValue(Kind::Scalar, HostTensor::scalar(dtype, value));
}

HostValue HostValue::intScalar(DType dtype, int64_t value) {
  return HostValue(Kind::Scalar, HostTensor::fromInts(dtype, {}, {value}));
}

HostValue HostValue::index(int64_t value) {
  return HostValue(Kind::Index, HostTensor::fromInts(DType::I64, {}, {value}));
}

std::string HostValue::typeString() const {
  switch (kind_) {
  case Kind::Tensor:
    return tensor_.typeString();
  case Kind::Scalar:
    return dtypeName(tensor_.dtype()).str();
  case Kind::Index:
    return "index";
  }
  return "";
}

//===----------------------------------------------------------------------===//
// Printing
//===----------------------------------------------------------------------===//

std::string mlir::fusion::interp::formatFloat(double value, DType dtype) {
  if (std::isnan(value))
    return "nan";
  if (std::isinf(value))
    return value < 0 ? "-inf" : "inf";
  char buffer[40];
  int precision = 1;
  for (; precision <= 17; ++precision) {
    std::snprintf(buffer, sizeof(buffer), "%.*g", precision, value);
    if (roundToDType(std::strtod(buffer, nullptr), dtype) == value)
      break;
  }
  // %g switches to an exponent once the integer digits exceed the
  // precision ("1e+02" for 100); below 1e16 print all integer digits.
  double magnitude = std::fabs(value);
  if (magnitude >= 1 && magnitude < 1e16) {
    int integerDigits = int(std::floor(std::log10(magnitude))) + 1;
    if (integerDigits > precision)
      std::snprintf(buffer, sizeof(buffer), "%.*g", integerDigits, value);
  }
  return buffer;
}

namespace {
class TensorPrinter {
public:
  TensorPrinter(raw_ostream &os, const HostTensor &t,
                const PrintOptions &options)
      : os(os), t(t), options(options),
        summarize(t.numElements() > options.summarizeAbove),
        index(t.rank(), 0) {}

  void print() {
    if (t.rank() == 0) {
      os << element();
      return;
    }
    printDim(0);
  }

private:
  std::string element() {
    if (isFloatDType(t.dtype()))
      return formatFloat(t.getDouble(index),
                         options.exact ? DType::F64 : t.dtype());
    int64_t v = t.getInt(index);
    if (t.dtype() == DType::I1)
      return v ? "true" : "false";
    return std::to_string(v);
  }

  void printDim(int64_t d) {
    os << "[";
    int64_t size = t.sizes()[d];
    bool elide = summarize && size > 2 * options.edgeItems;
    bool last = d == t.rank() - 1;
    bool first = true;
    for (int64_t i = 0; i < size; ++i) {
      if (elide && i == options.edgeItems) {
        separator(d, last, first);
        os << "...";
        i = size - options.edgeItems;
      }
      separator(d, last, first);
      index[d] = i;
      if (last)
        os << element();
      else
        printDim(d + 1);
    }
    os << "]";
  }

  void separator(int64_t d, bool last, bool &first) {
    if (first) {
      first = false;
      return;
    }
    if (last) {
      os << ", ";
      return;
    }
    // One newline per nesting level below, as numpy and torch print.
    os << ",";
    for (int64_t k = d + 1; k < t.rank(); ++k)
      os << "\n";
    os.indent(d + 1);
  }

  raw_ostream &os;
  const HostTensor &t;
  const PrintOptions &options;
  bool summarize;
  SmallVector<int64_t> index;
};
} // namespace

void mlir::fusion::interp::printTensor(raw_ostream &os, const HostTensor &t,
                                       const PrintOptions &options) {
  TensorPrinter(os, t, options).print();
  if (t.numElements() <= options.summarizeAbove)
    return;
  // Statistics of the whole tensor, since most of it is elided.
  double lo = INFINITY, hi = -INFINITY, sum = 0;
  int64_t nans = 0;
  for (int64_t i = 0, e = t.numElements(); i < e; ++i) {
    double v = t.getDouble(i);
    if (std::isnan(v)) {
      ++nans;
      continue;
    }
    lo = std::min(lo, v);
    hi = std::max(hi, v);
    sum += v;
  }
  int64_t n = t.numElements() - nans;
  os << "\n(" << t.numElements() << " elements; min "
     << formatFloat(lo, DType::F64) << ", max " << formatFloat(hi, DType::F64)
     << ", mean " << formatFloat(n ? sum / n : NAN, DType::F32);
  if (nans)
    os << ", " << nans << " NaN";
  os << ")";
}
