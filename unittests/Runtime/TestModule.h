// A plain, editable description of a module file for the runtime's tests,
// serialized with flatbuffers::FlatBufferBuilder; plus the modules that
// several tests share.
#ifndef FUSION_UNITTESTS_RUNTIME_TESTMODULE_H
#define FUSION_UNITTESTS_RUNTIME_TESTMODULE_H

#include "fusion/Runtime/Executable.h"
#include "fusion/Runtime/ModuleFormat.h"
#include "fusion/Runtime/fusion_module_generated.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace fusion::runtime::testing {

struct TestInput {
  std::string name;
  fb::ArgKind kind = fb::ArgKind::Tensor;
  fb::DType dtype = fb::DType::F32;
  std::vector<int64_t> sizes;
};

struct TestExpr {
  fb::ExprOp op = fb::ExprOp::Const;
  int32_t a = 0, b = 0, c = 0;
  int64_t imm = 0;
};

struct TestBuffer {
  fb::BufferKind kind = fb::BufferKind::Output;
  fb::DType dtype = fb::DType::F32;
  std::vector<int32_t> sizes;
  bool zeroInit = false;
  int32_t aliasInput = -1;
  std::vector<int32_t> strides;
  bool keptZero = false;
  int32_t aliasOffset = -1;
};

struct TestParam {
  fb::ParamKind kind = fb::ParamKind::Pointer;
  int32_t value = 0;
};

struct TestVariant {
  int32_t kernel = 0;
  int32_t guard = -1;
  std::vector<int32_t> grid, block, cluster;
  int32_t dynamicSmem = -1;
  bool cooperative = false;
  std::vector<TestParam> params;
};

struct TestKernel {
  std::string name;
  std::string ptx;
  std::vector<uint8_t> cubin;
  int32_t sharedBytesStatic = 0;
  bool deferred = false;
};

struct TestCheck {
  int32_t lhs = 0, rhs = 0;
  std::string message;
};

struct TestTensorMap {
  int32_t slot = 0;
  fb::DType dtype = fb::DType::F32;
  std::vector<int32_t> sizes, strides, box; // outermost first
  fb::TensorMapSwizzle swizzle = fb::TensorMapSwizzle::None;
  bool oobNan = false;
};

struct TestModule {
  uint32_t version = kModuleFormatVersion;
  std::string name = "test_fusion";
  std::string target = "sm_90a";
  std::vector<TestInput> inputs;
  std::vector<TestExpr> exprs;
  std::vector<TestBuffer> buffers;
  std::vector<int32_t> outputs;
  std::vector<TestKernel> kernels;
  std::vector<std::vector<TestVariant>> launches; // variants per launch
  std::vector<TestCheck> checks;
  std::vector<TestTensorMap> tensorMaps;
  std::string definition = "fusion.func @test";

  /// Appends an instruction and returns its register.
  int32_t expr(fb::ExprOp op, int32_t a = 0, int32_t b = 0, int32_t c = 0,
               int64_t imm = 0);
  int32_t constant(int64_t value) {
    return expr(fb::ExprOp::Const, 0, 0, 0, value);
  }
  int32_t inputSize(int32_t input, int32_t dim) {
    return expr(fb::ExprOp::InputSize, input, dim);
  }

  /// The module file bytes.
  std::vector<uint8_t> build() const;
};

/// out = a + b over 1-D f32 tensors of a dynamic size n, one kernel
/// "add_f32"(a, b, out, n: i64) with 128 threads per block, and the
/// constraint size(b) == size(a). Registers: 0 = size(a), 1 = size(b),
/// 2 = 128, 3 = ceildiv(n, 128), 4 = 1.
TestModule makeAddModule();

/// out[i] = a[i] + alpha * b[i] for i < n, hand-written PTX for sm_90:
/// parameters (a, b, out, n: i64, alpha: f32), 36 bytes packed.
extern const char *const kAxpyPtx;
constexpr int64_t kAxpyLargeThreshold = 100000;

/// Two launches of axpy_f32 through a zero-initialized intermediate:
///   tmp = a + alpha * b;  out = tmp + alpha * a
/// plus a second output that is a view of input a. The second launch has a
/// variant for n > kAxpyLargeThreshold with a cluster of 2 and 64 KiB of
/// dynamic shared memory, and a cooperative variant otherwise. Inputs a, b
/// (f32, dynamic n) and alpha (f32 scalar); slots 0 a, 1 b, 2 alpha, 3 tmp,
/// 4 out, 5 the view of a. Used by the GPU and the fake-driver tests.
TestModule makeAxpyModule();

/// Note [Tensor maps]: out = f(x) for x [m, n] f32, one launch of two
/// variants: "tile_tma" (params: out pointer, a tensor map of x with a box
/// of 8 x 64, n as i64) and the plain "tile" (x and out pointers, n). Not
/// runnable PTX: for the launch path without a GPU. `launches` > 1 repeats
/// the launch (a plan that runs as a launch graph).
TestModule makeTensorMapModule(int launches = 1);

/// `launches` (>= 2) plain launches of axpy_f32 in a chain, the k-th
/// computing x_k = x_{k-1} + alpha * b with x_0 = a, through two
/// intermediates used in turn; the last writes the output. No variants,
/// clusters or zero-filled buffers: a plan that runs as one launch graph.
/// Inputs a, b (f32, dynamic n) and alpha; slots 0 a, 1 b, 2 alpha, 3 and 4
/// the intermediates, 5 out.
TestModule makeAxpyChainModule(int launches);

/// Sizes of the ELF64 structures in a cubin.
constexpr size_t kCubinElfHeaderBytes = 64;
constexpr size_t kCubinProgramHeaderBytes = 56;
constexpr size_t kCubinSectionHeaderBytes = 64;

/// A small well-formed cubin: an ELF64 image for EM_CUDA with a section name
/// table, a string table, a symbol table naming `entry`, a text section, a
/// NOBITS shared-memory section and one program header; the section header
/// table comes last, so every truncation cuts it. It holds no SASS: the
/// fake driver loads it, a real driver refuses it (no SM architecture).
std::vector<uint8_t> makeTestCubin(const std::string &entry);

/// kAxpyPtx compiled by `ptxas` for `arch` (the compiler embeds such
/// cubins), or empty with the reason in `why` (no ptxas, or it failed).
std::vector<uint8_t> compileAxpyCubin(const std::string &ptxas,
                                      const std::string &arch,
                                      std::string &why);

/// Loads `module`; a test failure (and null) when it does not load.
std::unique_ptr<Executable> load(const TestModule &module);

/// Whether the CUDA driver library loads (tests of the no-driver errors
/// skip where it does).
bool cudaDriverLoadable();

/// A device address for plan evaluation (never dereferenced).
inline void *fakePointer(uintptr_t address) {
  return reinterpret_cast<void *>(address);
}

} // namespace fusion::runtime::testing

#endif // FUSION_UNITTESTS_RUNTIME_TESTMODULE_H
