//===- Inputs.cpp - fusion-run's input specs and random inputs ------------===//

#include "Inputs.h"

#include "fusion/Interpreter/FloatFormats.h"
#include "fusion/Runtime/DType.h"

#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <thread>

using namespace fusion_run;
using interp::DType;

namespace {

llvm::Error makeError(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

/// The MLIR spelling ("bf16", "f8E4M3FN") or the runtime's ("f8e4m3").
std::optional<DType> parseDTypeName(llvm::StringRef name) {
  if (auto dtype = interp::parseDType(name))
    return dtype;
  if (auto dtype = fusion::runtime::parseDType(
          std::string_view(name.data(), name.size())))
    return static_cast<DType>(static_cast<int>(*dtype));
  return std::nullopt;
}

std::vector<int64_t> rowMajor(llvm::ArrayRef<int64_t> sizes) {
  std::vector<int64_t> strides(sizes.size(), 1);
  for (int64_t d = static_cast<int64_t>(sizes.size()) - 2; d >= 0; --d)
    strides[d] = strides[d + 1] * std::max<int64_t>(sizes[d + 1], 1);
  return strides;
}

uint64_t mix(uint64_t x) { return mix64(x); }

void storeElement(uint8_t *storage, int64_t position, DType dtype,
                  uint64_t bits) {
  switch (dtype) {
  case DType::F64:
  case DType::F32:
  case DType::F16:
  case DType::BF16:
  case DType::F8E4M3FN:
  case DType::F8E5M2: {
    // Uniform in [-2, 2) on a grid of 2^-51; a value that rounds up to 2 in
    // a narrower type becomes -2 instead, so [-2, 2) holds after rounding.
    double value = static_cast<double>(bits >> 11) * 0x1p-51 - 2.0;
    switch (dtype) {
    case DType::F64:
      std::memcpy(storage + position * 8, &value, 8);
      return;
    case DType::F32: {
      float f = static_cast<float>(value);
      if (f == 2.0f)
        f = -2.0f;
      std::memcpy(storage + position * 4, &f, 4);
      return;
    }
    case DType::F16: {
      uint16_t h = interp::encodeF16(value);
      if (h == 0x4000) // 2.0
        h = 0xC000;
      std::memcpy(storage + position * 2, &h, 2);
      return;
    }
    case DType::BF16: {
      uint16_t h = interp::encodeBF16(value);
      if (h == 0x4000) // 2.0
        h = 0xC000;
      std::memcpy(storage + position * 2, &h, 2);
      return;
    }
    case DType::F8E4M3FN: {
      uint8_t b = interp::encodeF8E4M3FN(value);
      storage[position] = b == 0x40 ? 0xC0 : b; // 2.0 -> -2.0
      return;
    }
    default: {
      uint8_t b = interp::encodeF8E5M2(value);
      storage[position] = b == 0x40 ? 0xC0 : b; // 2.0 -> -2.0
      return;
    }
    }
  }
  case DType::I1:
    storage[position] = static_cast<uint8_t>(bits >> 63);
    return;
  case DType::I64:
  case DType::I32:
  case DType::I16:
  case DType::I8: {
    int64_t value = static_cast<int64_t>(bits % 101) - 50;
    // Little-endian: the low bytes are the narrower integer.
    std::memcpy(storage + position * interp::dtypeBytes(dtype), &value,
                interp::dtypeBytes(dtype));
    return;
  }
  }
}

} // namespace

// Cheap enough for 2^28 draws, and good enough for test data.
uint64_t fusion_run::mix64(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

unsigned fusion_run::hostThreads() {
  unsigned n = std::thread::hardware_concurrency();
  return std::clamp(n, 1u, 32u);
}

llvm::Expected<std::vector<InputSignature>>
fusion_run::signatureOf(mlir::fusion::FusionOp fusion) {
  std::vector<InputSignature> signature;
  for (auto [k, argType] : llvm::enumerate(fusion.getArgumentTypes())) {
    mlir::Type type = argType;
    InputSignature input;
    input.name = fusion.getInputName(k);
    if (auto tensor = mlir::dyn_cast<mlir::RankedTensorType>(type)) {
      input.kind = InputSignature::Kind::Tensor;
      for (int64_t size : tensor.getShape())
        input.sizes.push_back(mlir::ShapedType::isDynamic(size) ? -1 : size);
      type = tensor.getElementType();
    } else if (mlir::isa<mlir::IndexType>(type)) {
      input.kind = InputSignature::Kind::Index;
      input.dtype = DType::I64;
      signature.push_back(std::move(input));
      continue;
    } else {
      input.kind = InputSignature::Kind::Scalar;
    }
    std::optional<DType> dtype = interp::dtypeOf(type);
    if (!dtype) {
      std::string text;
      llvm::raw_string_ostream os(text);
      type.print(os);
      return makeError("input " + llvm::Twine(k) + " (" + input.name +
                       ") has type " + text + ", which has no element dtype");
    }
    input.dtype = *dtype;
    signature.push_back(std::move(input));
  }
  return signature;
}

int64_t InputDesc::numElements() const {
  int64_t n = 1;
  for (int64_t size : sizes)
    n *= size;
  return n;
}

int64_t InputDesc::storageBytes() const {
  return storageElements * interp::dtypeBytes(dtype);
}

std::string InputDesc::shapeText(bool withDtype) const {
  if (!isTensor) {
    std::string value = isIndex || !interp::isFloatDType(dtype)
                            ? std::to_string(intValue)
                            : interp::formatFloat(floatValue, dtype);
    return withDtype ? value + ":" + interp::dtypeName(dtype).str() : value;
  }
  std::string text;
  for (int64_t size : sizes)
    text += (text.empty() ? "" : "x") + std::to_string(size);
  if (withDtype)
    text += (text.empty() ? "" : "x") + interp::dtypeName(dtype).str();
  return text;
}

llvm::Expected<InputDesc>
fusion_run::parseInput(llvm::StringRef spec, size_t k,
                       const InputSignature *signature, Layout layout) {
  InputDesc input;
  input.label = "input " + std::to_string(k);
  if (signature)
    input.label += " (" + signature->name + ")";
  llvm::StringRef text = spec.trim();

  // An explicit dtype: "SHAPE:DTYPE" (or "VALUE:DTYPE" for scalars).
  std::optional<DType> dtype;
  if (size_t colon = text.rfind(':'); colon != llvm::StringRef::npos) {
    llvm::StringRef name = text.drop_front(colon + 1);
    dtype = parseDTypeName(name);
    if (!dtype)
      return makeError(input.label + ": unknown dtype '" + name +
                       "' in --input=" + spec);
    text = text.take_front(colon);
  }

  bool wantsScalar =
      signature && signature->kind != InputSignature::Kind::Tensor;
  std::optional<double> number = mlir::fusion::interp::parseScalarText(text);

  // The shape: dims separated by 'x', optionally ending in a dtype.
  std::vector<int64_t> sizes;
  bool isShape = !wantsScalar || !number;
  if (isShape && !text.empty()) {
    llvm::SmallVector<llvm::StringRef> tokens;
    text.split(tokens, 'x');
    for (auto [i, token] : llvm::enumerate(tokens)) {
      int64_t size;
      if (!token.getAsInteger(10, size) && size >= 0) {
        sizes.push_back(size);
        continue;
      }
      std::optional<DType> suffix;
      if (i + 1 == tokens.size() && i > 0 && !dtype &&
          (suffix = parseDTypeName(token))) {
        dtype = suffix;
        continue;
      }
      isShape = false;
      break;
    }
  }
  if (!isShape && !number)
    return makeError(input.label + ": cannot parse --input=" + spec +
                     ": expected a shape like 8192x4096 or 8192x4096:bf16, "
                     "or a number for a scalar input");

  if (!dtype)
    dtype = signature ? signature->dtype : DType::F32;
  input.dtype = *dtype;
  if (!isShape) {
    input.isTensor = false;
    input.isIndex = signature && signature->kind == InputSignature::Kind::Index;
    input.floatValue = *number;
    input.intValue = static_cast<int64_t>(*number);
    if (interp::isFloatDType(input.dtype))
      input.floatValue = interp::roundToDType(*number, input.dtype);
    else if (!input.isIndex)
      input.intValue = interp::floatToInt(*number, input.dtype);
    if (layout != Layout::Contiguous)
      return makeError(input.label + ": --layout applies to tensor inputs");
    return input;
  }

  input.sizes = sizes;
  input.layout = layout;
  int64_t rank = static_cast<int64_t>(sizes.size());
  switch (layout) {
  case Layout::Contiguous:
    input.strides = rowMajor(sizes);
    break;
  case Layout::Strided:
    if (rank == 0)
      return makeError(input.label + ": a rank-0 tensor cannot be strided");
    input.strides.assign(rank, 1);
    if (rank == 1) {
      input.strides[0] = 3;
    } else {
      input.strides[rank - 2] = sizes[rank - 1] + 3;
      for (int64_t d = rank - 3; d >= 0; --d)
        input.strides[d] =
            input.strides[d + 1] * std::max<int64_t>(sizes[d + 1], 1);
    }
    break;
  case Layout::Transposed: {
    if (rank < 2)
      return makeError(input.label +
                       ": a transposed layout needs rank 2 or more");
    std::vector<int64_t> swapped = sizes;
    std::swap(swapped[rank - 1], swapped[rank - 2]);
    input.strides = rowMajor(swapped);
    std::swap(input.strides[rank - 1], input.strides[rank - 2]);
    break;
  }
  }
  // The extent: one past the furthest element reached.
  int64_t extent = 1;
  for (int64_t d = 0; d < rank; ++d) {
    if (sizes[d] == 0) {
      extent = 0;
      break;
    }
    extent += (sizes[d] - 1) * input.strides[d];
  }
  input.storageElements = extent;
  return input;
}

llvm::Error fusion_run::parseLayout(llvm::StringRef text, size_t &index,
                                    Layout &layout) {
  auto [number, kind] = text.split(':');
  if (number.trim().getAsInteger(10, index))
    return makeError("cannot parse --layout=" + text +
                     ": expected K:strided or K:transposed");
  if (kind == "strided")
    layout = Layout::Strided;
  else if (kind == "transposed")
    layout = Layout::Transposed;
  else if (kind == "contiguous")
    layout = Layout::Contiguous;
  else
    return makeError("cannot parse --layout=" + text + ": unknown layout '" +
                     kind + "' (strided, transposed or contiguous)");
  return llvm::Error::success();
}

interp::HostTensor fusion_run::makeHostTensor(const InputDesc &input,
                                              uint64_t seed, uint64_t k) {
  auto created = interp::HostTensor::strided(
      input.dtype, input.sizes, input.strides, input.storageElements, 0);
  if (!created) {
    // parseInput computed the extent, so the view always fits.
    llvm::errs() << "fusion-run: internal error: "
                 << llvm::toString(created.takeError()) << "\n";
    std::exit(1);
  }
  interp::HostTensor tensor = std::move(*created);
  uint8_t *storage = tensor.storage();
  // Padding: a value no correct kernel reads (NaN in f16, 3.4e38 in f32 and
  // bf16, 127 in i8, ...).
  std::memset(storage, 0x7F, input.storageBytes());
  int64_t numel = input.numElements();
  if (numel == 0)
    return tensor;

  const uint64_t key = mix(mix(seed) ^ (0xD1B54A32D192ED03ull * (k + 1)));
  const int64_t rank = static_cast<int64_t>(input.sizes.size());
  const int64_t inner = rank ? input.sizes[rank - 1] : 1;
  const int64_t innerStride = rank ? input.strides[rank - 1] : 1;
  const int64_t rows = numel / inner;
  const DType dtype = input.dtype;
  auto fillRows = [&](int64_t first, int64_t last) {
    for (int64_t row = first; row < last; ++row) {
      int64_t rest = row, base = 0;
      for (int64_t d = rank - 2; d >= 0; --d) {
        base += (rest % input.sizes[d]) * input.strides[d];
        rest /= input.sizes[d];
      }
      int64_t linear = row * inner;
      for (int64_t j = 0; j < inner; ++j)
        storeElement(storage, base + j * innerStride, dtype,
                     mix(key + static_cast<uint64_t>(linear + j)));
    }
  };
  unsigned threads = numel >= (int64_t(1) << 20) ? hostThreads() : 1;
  threads = static_cast<unsigned>(std::min<int64_t>(threads, rows));
  if (threads <= 1) {
    fillRows(0, rows);
    return tensor;
  }
  std::vector<std::thread> workers;
  for (unsigned t = 0; t < threads; ++t)
    workers.emplace_back(fillRows, rows * t / threads,
                         rows * (t + 1) / threads);
  for (std::thread &worker : workers)
    worker.join();
  return tensor;
}

interp::HostValue fusion_run::hostValue(const InputDesc &input,
                                        const interp::HostTensor &tensor) {
  if (input.isTensor)
    return interp::HostValue(tensor);
  if (input.isIndex)
    return interp::HostValue::index(input.intValue);
  if (interp::isFloatDType(input.dtype))
    return interp::HostValue::scalar(input.dtype, input.floatValue);
  return interp::HostValue::intScalar(input.dtype, input.intValue);
}
