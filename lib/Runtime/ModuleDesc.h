// The decoded, verified form of a module file: plain C++ structs that the
// launch-plan evaluator and the executable read, so nothing past the loader
// touches FlatBuffers.
#ifndef FUSION_LIB_RUNTIME_MODULEDESC_H
#define FUSION_LIB_RUNTIME_MODULEDESC_H

#include "fusion/Runtime/DType.h"
#include "fusion/Runtime/Executable.h"

#include <cstdint>
#include <string>
#include <vector>

namespace fusion::runtime {

/// Values equal fusion::fb::ExprOp.
enum class ExprOp : uint8_t {
  Const = 0,
  InputSize,
  InputStride,
  ScalarInput,
  Add,
  Sub,
  Mul,
  FloorDiv,
  CeilDiv,
  Rem,
  Min,
  Max,
  Eq,
  Lt,
  Select,
  PtrAligned,
};
inline constexpr int kNumExprOps = 16;
const char *exprOpName(ExprOp op);

struct ExprInstDesc {
  ExprOp op = ExprOp::Const;
  int32_t a = 0, b = 0, c = 0;
  int64_t imm = 0;
};

struct InputDesc {
  std::string name;
  ArgKind kind = ArgKind::Tensor;
  DType dtype = DType::F32;
  std::vector<int64_t> sizes; // -1: dynamic
  int64_t rank() const { return static_cast<int64_t>(sizes.size()); }
};

struct BufferDesc {
  BufferKind kind = BufferKind::Output;
  DType dtype = DType::F32;
  std::vector<int32_t> sizes;   // registers
  std::vector<int32_t> strides; // registers; empty: row-major
  bool zeroInit = false;
  bool keptZero = false; // Note [Stream workspaces]
  int32_t aliasInput = -1;
  int32_t aliasOffset = -1; // register: the view's first element, -1: 0
};

struct ParamDesc {
  ParamKind kind = ParamKind::Pointer;
  int32_t value = 0;
};

struct VariantDesc {
  int32_t kernel = 0;
  int32_t guard = -1;
  int32_t grid[3] = {};
  int32_t block[3] = {};
  int32_t dynamicSmem = -1;
  bool hasCluster = false;
  int32_t cluster[3] = {};
  bool cooperative = false;
  std::vector<ParamDesc> params;
};

struct LaunchDesc {
  std::vector<VariantDesc> variants;
};

/// Note [Tensor maps]. Dims outermost first, as in the module file.
struct TensorMapDesc {
  int32_t slot = 0;
  DType dtype = DType::F32;
  std::vector<int32_t> sizes;   // registers
  std::vector<int32_t> strides; // registers, elements
  std::vector<uint32_t> box;
  uint8_t swizzle = 0; // 0 none, 1: 32 bytes, 2: 64, 3: 128
  bool oobNan = false;
  int32_t rank() const { return static_cast<int32_t>(sizes.size()); }
};

/// Bytes and alignment of a parameter in the packed buffer (Note
/// [Parameter packing]).
inline uint32_t paramBytes(ParamKind kind) {
  if (kind == ParamKind::TensorMap)
    return 128;
  return kind == ParamKind::I32 || kind == ParamKind::ScalarF32 ? 4 : 8;
}
inline uint32_t paramAlignment(ParamKind kind) {
  return kind == ParamKind::TensorMap ? 64 : paramBytes(kind);
}

struct KernelDesc {
  std::string name;
  std::string ptx;
  std::vector<uint8_t> cubin;
  int32_t sharedBytesStatic = 0;
  /// Note [Deferred kernels]: no code yet; the kernel builder makes it.
  bool deferred = false;
};

struct CheckDesc {
  int32_t lhs = 0, rhs = 0;
  std::string message;
};

struct ModuleDesc {
  uint32_t version = 0;
  std::string name, target, definition, producer;
  std::string compileOptions; // Note [Deferred kernels]
  std::vector<InputDesc> inputs;
  std::vector<ExprInstDesc> exprs;
  std::vector<BufferDesc> buffers;
  std::vector<int32_t> outputs; // buffer indices
  std::vector<KernelDesc> kernels;
  std::vector<LaunchDesc> launches;
  std::vector<CheckDesc> checks;
  std::vector<TensorMapDesc> tensorMaps;

  // Derived at load time for the per-call signature key.
  std::vector<int32_t> scalarsReadByExprs; // integer scalar inputs, unique
  std::vector<int32_t> ptrAlignedExprs;    // indices of PtrAligned exprs
  std::vector<int32_t> outputOfBuffer;     // output index, -1: intermediate

  int32_t numInputs() const { return static_cast<int32_t>(inputs.size()); }
  int32_t numSlots() const {
    return static_cast<int32_t>(inputs.size() + buffers.size());
  }
  /// "input 1 (b)".
  std::string inputLabel(int32_t index) const;
};

} // namespace fusion::runtime

#endif // FUSION_LIB_RUNTIME_MODULEDESC_H
