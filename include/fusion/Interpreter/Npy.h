//===- Npy.h - .npy files for host tensors ----------------------*- C++ -*-===//
// Reads and writes numpy's .npy format (versions 1 to 3), little-endian.
// Element types without a numpy dtype are stored as raw bits: bf16 as '<V2'
// (as ml_dtypes' bfloat16 arrays are saved), fp8 as '|V1'.
//===----------------------------------------------------------------------===//
#ifndef FUSION_INTERPRETER_NPY_H
#define FUSION_INTERPRETER_NPY_H

#include "fusion/Interpreter/HostTensor.h"

#include <optional>

namespace mlir::fusion::interp {

/// The numpy dtype string a tensor of `dtype` is written with: '<f8', '<f4',
/// '<f2', '<V2' (bf16), '<i8', '<i4', '<i2', '|i1', '|b1', '|V1' (fp8).
llvm::StringRef npyDescr(DType dtype);

/// Parses a .npy image. `rawHint` says which dtype raw-bits data ('V1',
/// 'V2') holds; without it 'V2' is bf16 and 'V1' an error, since the two
/// fp8 types can't be told apart. Fortran-order data becomes a tensor with
/// column-major strides.
llvm::Expected<HostTensor> parseNpy(llvm::StringRef bytes,
                                    std::optional<DType> rawHint = {});
llvm::Expected<HostTensor> readNpy(llvm::StringRef path,
                                   std::optional<DType> rawHint = {});

/// The .npy image (version 1.0, C order) of a tensor of any strides.
std::string serializeNpy(const HostTensor &tensor);
llvm::Error writeNpy(llvm::StringRef path, const HostTensor &tensor);

} // namespace mlir::fusion::interp

#endif // FUSION_INTERPRETER_NPY_H
