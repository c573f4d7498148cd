//===- Inputs.h - fusion-run's input specs and random inputs ----*- C++ -*-===//
// Parses --input specs against a fusion's signature, lays tensors out in
// memory (contiguous, strided or transposed) and fills them with seeded
// random values, in host buffers that are copied to the device as they are
// and that the reference interpreter reads through the same strides.
//===----------------------------------------------------------------------===//
#ifndef FUSION_TOOLS_FUSIONRUN_INPUTS_H
#define FUSION_TOOLS_FUSIONRUN_INPUTS_H

#include "fusion/Dialect/Fusion/IR/FusionOps.h"
#include "fusion/Interpreter/HostTensor.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <string>
#include <vector>

namespace fusion_run {

namespace interp = mlir::fusion::interp;

/// One input of the fusion's signature.
struct InputSignature {
  enum class Kind { Tensor, Scalar, Index };
  Kind kind = Kind::Tensor;
  std::string name;
  interp::DType dtype = interp::DType::F32; // i64 for an index
  std::vector<int64_t> sizes;               // tensors: static size or -1
};

/// The signature of `fusion`; an error for an element type without a dtype.
llvm::Expected<std::vector<InputSignature>>
signatureOf(mlir::fusion::FusionOp fusion);

/// How a tensor input is laid out in memory.
enum class Layout {
  Contiguous, // row-major
  Strided,    // rows padded by 3 elements (rank 1: every 3rd element)
  Transposed, // the last two dims swapped in memory (a permuted view)
};

/// One input as the command line gives it.
struct InputDesc {
  std::string label; // "input 1 (b)"
  bool isTensor = true;
  bool isIndex = false;
  interp::DType dtype = interp::DType::F32;
  // Tensors.
  std::vector<int64_t> sizes;
  std::vector<int64_t> strides; // elements
  int64_t storageElements = 0;  // extent of the storage, padding included
  Layout layout = Layout::Contiguous;
  // Scalars (and indices).
  double floatValue = 0;
  int64_t intValue = 0;

  int64_t numElements() const;
  int64_t storageBytes() const;
  /// "8x4xf32" for tensors (":f32" suffix style is not used), "0.5xf32" for
  /// scalars; "8x4" alone with `withDtype` false.
  std::string shapeText(bool withDtype = true) const;
};

/// Parses input `k`'s spec: "8192x4096" (dtype from the signature),
/// "8192x4096:bf16" or "8192x4096xbf16", ":f32" for a rank-0 tensor, or a
/// number ("0.5", "-3", "true") for a scalar input. `signature` is null for
/// an input beyond the fusion's signature (the runtime then reports the
/// count). Mismatches with the signature are left to the runtime's checks.
llvm::Expected<InputDesc> parseInput(llvm::StringRef spec, size_t k,
                                     const InputSignature *signature,
                                     Layout layout);

/// Parses a --layout value "K:strided" or "K:transposed" (K counts from 0).
llvm::Error parseLayout(llvm::StringRef text, size_t &index, Layout &layout);

/// The host image of a tensor input: storage in the input's layout, padding
/// filled with 0x7F bytes, every element random from (`seed`, `k`):
/// floats uniform in [-2, 2) rounded to the dtype, integers in [-50, 50],
/// bools fair. Element values depend on the logical index only, never on the
/// layout. Large tensors are filled by several threads.
interp::HostTensor makeHostTensor(const InputDesc &input, uint64_t seed,
                                  uint64_t k);

/// The interpreter's value of an input (`tensor` is used for tensors).
interp::HostValue hostValue(const InputDesc &input,
                            const interp::HostTensor &tensor);

/// A 64-bit mixing function (splitmix64's finalizer).
uint64_t mix64(uint64_t x);

/// Number of worker threads for bulk host work.
unsigned hostThreads();

} // namespace fusion_run

#endif // FUSION_TOOLS_FUSIONRUN_INPUTS_H
