//===- Npy.cpp - .npy files for host tensors ------------------------------===//
// A small reader of the header dict numpy writes (not a Python parser) and a
// writer of version 1.0 files.
//===----------------------------------------------------------------------===//

#include "fusion/Interpreter/Npy.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <cstring>

using namespace mlir;
using namespace mlir::fusion::interp;

StringRef mlir::fusion::interp::npyDescr(DType dtype) {
  switch (dtype) {
  case DType::F64:
    return "<f8";
  case DType::F32:
    return "<f4";
  case DType::F16:
    return "<f2";
  case DType::BF16:
    return "<V2";
  case DType::I64:
    return "<i8";
  case DType::I32:
    return "<i4";
  case DType::I16:
    return "<i2";
  case DType::I8:
    return "|i1";
  case DType::I1:
    return "|b1";
  case DType::F8E4M3FN:
  case DType::F8E5M2:
    return "|V1";
  }
  return "";
}

static llvm::Error npyError(const Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 "npy: " + message);
}

/// The value text of `'key': value` in the header dict.
static std::optional<StringRef> headerValue(StringRef header, StringRef key) {
  std::string quoted = ("'" + key + "'").str();
  size_t at = header.find(quoted);
  if (at == StringRef::npos)
    return std::nullopt;
  StringRef rest = header.drop_front(at + quoted.size()).ltrim();
  if (!rest.consume_front(":"))
    return std::nullopt;
  return rest.ltrim();
}

static llvm::Expected<DType> dtypeOfDescr(StringRef descr,
                                          std::optional<DType> rawHint) {
  if (descr.size() < 3)
    return npyError("unsupported dtype '" + descr + "'");
  char order = descr[0];
  StringRef code = descr.drop_front();
  unsigned bytes = 0;
  if (code.drop_front().getAsInteger(10, bytes))
    return npyError("unsupported dtype '" + descr + "'");
  if (order == '>' && bytes > 1)
    return npyError("big-endian data ('" + descr +
                    "') is not supported; save it little-endian");
  if (order != '<' && order != '|' && order != '=')
    return npyError("unsupported byte order in '" + descr + "'");
  char kind = code[0];
  // Raw bits of a type numpy lacks: the fusion's signature says which.
  if (kind == 'V' || kind == 'u') {
    if (rawHint && isFloatDType(*rawHint) &&
        dtypeBytes(*rawHint) == int64_t(bytes) && bytes <= 2)
      return *rawHint;
    if (kind == 'V' && bytes == 2)
      return DType::BF16;
    if (kind == 'V' && bytes == 1)
      return npyError("fp8 data ('" + descr +
                      "') needs an expected dtype (f8E4M3FN or f8E5M2)");
    return npyError("unsupported dtype '" + descr + "'");
  }
  std::optional<DType> dtype;
  if (kind == 'f')
    dtype = bytes == 8   ? std::optional(DType::F64)
            : bytes == 4 ? std::optional(DType::F32)
            : bytes == 2 ? std::optional(DType::F16)
                         : std::nullopt;
  else if (kind == 'i')
    dtype = bytes == 8   ? std::optional(DType::I64)
            : bytes == 4 ? std::optional(DType::I32)
            : bytes == 2 ? std::optional(DType::I16)
            : bytes == 1 ? std::optional(DType::I8)
                         : std::nullopt;
  else if (kind == 'b' && bytes == 1)
    dtype = DType::I1;
  if (!dtype)
    return npyError("unsupported dtype '" + descr + "'");
  return *dtype;
}

llvm::Expected<HostTensor>
mlir::fusion::interp::parseNpy(StringRef bytes, std::optional<DType> rawHint) {
  if (bytes.size() < 10 || !bytes.starts_with("\x93NUMPY"))
    return npyError("not a .npy file (bad magic)");
  uint8_t major = bytes[6];
  size_t headerLen, headerStart;
  if (major == 1) {
    headerLen = uint8_t(bytes[8]) | (size_t(uint8_t(bytes[9])) << 8);
    headerStart = 10;
  } else if (major == 2 || major == 3) {
    if (bytes.size() < 12)
      return npyError("truncated header");
    headerLen = 0;
    for (int i = 0; i < 4; ++i)
      headerLen |= size_t(uint8_t(bytes[8 + i])) << (8 * i);
    headerStart = 12;
  } else {
    return npyError("unsupported format version " + Twine(int(major)));
  }
  if (bytes.size() < headerStart + headerLen)
    return npyError("truncated header");
  StringRef header = bytes.substr(headerStart, headerLen);
  StringRef data = bytes.drop_front(headerStart + headerLen);

  auto descrText = headerValue(header, "descr");
  if (!descrText || descrText->empty() || (*descrText)[0] != '\'')
    return npyError("header has no simple 'descr' (structured dtypes are not "
                    "supported)");
  StringRef descr =
      descrText->drop_front().take_until([](char c) { return c == '\''; });
  auto dtype = dtypeOfDescr(descr, rawHint);
  if (!dtype)
    return dtype.takeError();

  auto fortranText = headerValue(header, "fortran_order");
  if (!fortranText)
    return npyError("header has no 'fortran_order'");
  bool fortran = fortranText->starts_with("True");

  auto shapeText = headerValue(header, "shape");
  if (!shapeText || !shapeText->starts_with("("))
    return npyError("header has no 'shape'");
  StringRef dims =
      shapeText->drop_front().take_until([](char c) { return c == ')'; });
  SmallVector<int64_t> sizes;
  SmallVector<StringRef> parts;
  dims.split(parts, ',');
  for (StringRef part : parts) {
    part = part.trim();
    if (part.empty())
      continue;
    int64_t size;
    if (part.getAsInteger(10, size) || size < 0)
      return npyError("bad dim '" + part + "' in the shape");
    sizes.push_back(size);
  }

  int64_t count = 1;
  for (int64_t s : sizes)
    count *= s;
  int64_t elementBytes = dtypeBytes(*dtype);
  if (int64_t(data.size()) < count * elementBytes)
    return npyError("the data holds " + Twine(data.size()) + " bytes but " +
                    Twine(count) + " elements of " + dtypeName(*dtype) +
                    " need " + Twine(count * elementBytes));
  SmallVector<int64_t> strides(sizes.size(), 1);
  if (fortran) {
    for (size_t d = 1; d < sizes.size(); ++d)
      strides[d] = strides[d - 1] * std::max<int64_t>(sizes[d - 1], 1);
  } else {
    for (int64_t d = int64_t(sizes.size()) - 2; d >= 0; --d)
      strides[d] = strides[d + 1] * std::max<int64_t>(sizes[d + 1], 1);
  }
  auto tensor = HostTensor::strided(*dtype, sizes, strides, count);
  if (!tensor)
    return tensor.takeError();
  std::memcpy(tensor->storage(), data.data(), count * elementBytes);
  if (*dtype == DType::I1) // numpy bools are 0 or 1, but be safe
    for (int64_t i = 0; i < count; ++i)
      tensor->storage()[i] = tensor->storage()[i] != 0;
  return tensor;
}

llvm::Expected<HostTensor>
mlir::fusion::interp::readNpy(StringRef path, std::optional<DType> rawHint) {
  auto buffer = llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                            /*RequiresNullTerminator=*/false);
  if (!buffer)
    return llvm::createStringError(buffer.getError(),
                                   "cannot read '" + path +
                                       "': " + buffer.getError().message());
  auto tensor = parseNpy((*buffer)->getBuffer(), rawHint);
  if (!tensor)
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   path + ": " +
                                       llvm::toString(tensor.takeError()));
  return tensor;
}

std::string mlir::fusion::interp::serializeNpy(const HostTensor &tensor) {
  std::string dict = "{'descr': '" + npyDescr(tensor.dtype()).str() +
                     "', 'fortran_order': False, 'shape': (";
  for (int64_t size : tensor.sizes())
    dict += std::to_string(size) + ", ";
  if (tensor.rank() > 0)
    dict.resize(dict.size() - (tensor.rank() == 1 ? 1 : 2));
  dict += "), }";
  // numpy pads the header with spaces and a newline to a multiple of 64.
  size_t total = 10 + dict.size() + 1;
  dict.append((64 - total % 64) % 64, ' ');
  dict += '\n';
  std::string out = "\x93NUMPY";
  out += char(1);
  out += char(0);
  out += char(dict.size() & 0xff);
  out += char(dict.size() >> 8);
  out += dict;
  HostTensor dense = tensor.clone();
  out.append(reinterpret_cast<const char *>(dense.storage()),
             dense.numElements() * dtypeBytes(dense.dtype()));
  return out;
}

llvm::Error mlir::fusion::interp::writeNpy(StringRef path,
                                           const HostTensor &tensor) {
  std::error_code ec;
  llvm::raw_fd_ostream os(path, ec, llvm::sys::fs::OF_None);
  if (ec)
    return llvm::createStringError(ec, "cannot write '" + path +
                                           "': " + ec.message());
  os << serializeNpy(tensor);
  os.close();
  if (os.has_error())
    return llvm::createStringError(os.error(), "cannot write '" + path + "'");
  return llvm::Error::success();
}
