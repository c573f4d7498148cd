// The C++ API of the Fusion runtime: load a module file, check inputs against
// its signature, evaluate its launch plan (cached per input signature) and run
// its kernels on a CUDA stream.
#ifndef FUSION_RUNTIME_EXECUTABLE_H
#define FUSION_RUNTIME_EXECUTABLE_H

#include "fusion/Runtime/DType.h"
#include "fusion/Runtime/ModuleFormat.h"
#include "fusion/Runtime/Status.h"

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace fusion::runtime {

/// Values equal fusion::fb::ArgKind.
enum class ArgKind : int32_t { Tensor = 0, Scalar = 1 };
/// Values equal fusion::fb::BufferKind.
enum class BufferKind : int32_t { Output = 0, Intermediate = 1 };
/// Values equal fusion::fb::ParamKind.
enum class ParamKind : int32_t {
  Pointer = 0,
  I64 = 1,
  I32 = 2,
  ScalarF64 = 3,
  ScalarF32 = 4,
  ScalarI64 = 5,
  /// A CUtensorMap (Note [Tensor maps]): 128 bytes, 64-byte aligned.
  TensorMap = 6,
};

/// One fusion input as the caller binds it. The arrays are borrowed for the
/// duration of the call only. Layout-compatible with fusion_arg of the C API.
struct Argument {
  ArgKind kind = ArgKind::Tensor;
  DType dtype = DType::F32;
  void *data = nullptr;             // tensor: device pointer, element-aligned
  int64_t rank = 0;                 // tensor: number of dims
  const int64_t *sizes = nullptr;   // tensor: `rank` sizes
  const int64_t *strides = nullptr; // tensor: in elements; null = row-major
  int64_t intValue = 0;             // scalar of an integer dtype (and i1)
  double floatValue = 0;            // scalar of a floating dtype

  static Argument tensor(void *data, DType dtype, const int64_t *sizes,
                         int64_t rank, const int64_t *strides = nullptr) {
    Argument arg;
    arg.kind = ArgKind::Tensor;
    arg.dtype = dtype;
    arg.data = data;
    arg.rank = rank;
    arg.sizes = sizes;
    arg.strides = strides;
    return arg;
  }
  static Argument intScalar(int64_t value, DType dtype = DType::I64) {
    Argument arg;
    arg.kind = ArgKind::Scalar;
    arg.dtype = dtype;
    arg.intValue = value;
    return arg;
  }
  static Argument floatScalar(double value, DType dtype = DType::F64) {
    Argument arg;
    arg.kind = ArgKind::Scalar;
    arg.dtype = dtype;
    arg.floatValue = value;
    return arg;
  }
};

/// An output tensor. For run(): set `data` to provide the output (its dtype,
/// rank, sizes and strides are then checked against the plan), or leave it
/// null to have the runtime allocate it (stream-ordered; the caller frees it
/// with freeDeviceMemory). Filled in completely on success only.
/// Layout-compatible with fusion_tensor of the C API.
struct OutputTensor {
  void *data = nullptr;
  DType dtype = DType::F32;
  int32_t rank = 0;
  int64_t sizes[kMaxRank] = {};
  int64_t strides[kMaxRank] = {}; // in elements
  int32_t allocated = 0; // 1 if the runtime allocated `data` in this call
  int32_t reserved = 0;
};

/// Module metadata.
struct InputInfo {
  std::string name;
  ArgKind kind = ArgKind::Tensor;
  DType dtype = DType::F32;
  std::vector<int64_t> sizes; // static size per dim, -1 for a dynamic dim
  /// An integer scalar whose value the launch plan reads (part of the plan
  /// cache's signature; output sizes may depend on it).
  bool valueAffectsPlan = false;
};
struct OutputInfo {
  DType dtype = DType::F32;
  int32_t rank = 0;
  int32_t aliasInput = -1; // >= 0: a view of that input, not allocated
};
struct KernelInfo {
  std::string name;
  bool hasCubin = false;
  size_t ptxSize = 0;
  size_t cubinSize = 0;
  /// Deferred in the file (Note [Deferred kernels]): built when a launch
  /// first needs it (Executable::kernelBuilt says whether it was since).
  bool deferred = false;
};
struct ModuleInfo {
  uint32_t version = 0;
  std::string name;
  std::string target;
  std::string definition;
  /// What wrote the file, e.g. "fusion 0.1.0" (empty for files from
  /// before 0.1.0).
  std::string producer;
  std::vector<InputInfo> inputs;
  std::vector<OutputInfo> outputs;
  std::vector<KernelInfo> kernels;
  size_t numLaunches = 0;
  size_t numBuffers = 0;
  size_t numExprs = 0;
};

/// One kernel parameter's place in the packed parameter buffer.
struct ParamField {
  ParamKind kind = ParamKind::Pointer;
  int32_t value = 0; // slot, register or scalar input, by kind
  uint32_t offset = 0;
  uint32_t size = 0;
};

/// The evaluated configuration of one launch.
struct LaunchConfig {
  int32_t kernel = 0;
  int32_t variant = 0; // index of the variant whose guard was taken
  uint32_t grid[3] = {1, 1, 1};
  uint32_t block[3] = {1, 1, 1};
  uint32_t cluster[3] = {1, 1, 1};
  bool hasCluster = false;
  bool cooperative = false;
  bool skipped = false; // a grid dim is 0 (empty tensors): not launched
  uint32_t dynamicSmem = 0;
  /// The packed parameters. Register values are final; pointers and scalar
  /// inputs are patched in per call (plan() shows those of its inputs, and
  /// 0 for buffers the runtime allocates).
  std::vector<uint8_t> params;
  std::vector<ParamField> fields;
  /// Passed to the driver one pointer per parameter instead of as the
  /// packed buffer: a tensor map's (Note [Parameters by pointer]).
  bool byPointer = false;
};

/// The evaluated shape of one buffer.
struct BufferLayout {
  BufferKind kind = BufferKind::Output;
  DType dtype = DType::F32;
  int32_t rank = 0;
  int64_t sizes[kMaxRank] = {};
  int64_t strides[kMaxRank] = {};
  int64_t numElements = 0;
  int64_t bytes = 0; // extent in memory, with strides
  bool zeroInit = false;
  bool keptZero = false; // zeroed once per workspace (kernels re-zero it)
  int32_t aliasInput = -1;
  /// A view (aliasInput >= 0): its first element's offset in the input, in
  /// elements (a slice's start); its data is the input's plus this.
  int64_t aliasOffset = 0;
  int64_t poolOffset = -1; // intermediates: offset in the stream workspace
};

/// Everything evaluated from one input signature. The runtime caches one per
/// signature; plan() returns a copy.
struct EvaluatedPlan {
  std::vector<int64_t> registers; // value of each expression instruction
  std::vector<BufferLayout> buffers;
  std::vector<int32_t> outputBuffers; // buffer index of each output
  std::vector<LaunchConfig> launches;
  int64_t intermediateBytes = 0; // size of the per-call intermediate pool

  const BufferLayout &output(size_t i) const {
    return buffers[outputBuffers[i]];
  }
};

struct PlanCacheStats {
  uint64_t hits = 0;    // calls served by a cached plan
  uint64_t misses = 0;  // calls that evaluated the plan
  uint64_t entries = 0; // plans in the cache now
};

/// Launch graphs of an Executable (Note [Launch graphs] in Executable.cpp):
/// counts since load.
struct LaunchGraphStats {
  uint64_t built = 0;       // graphs built and instantiated
  uint64_t launches = 0;    // calls that ran as one graph launch
  uint64_t nodeUpdates = 0; // kernel nodes given new parameters first
  uint64_t direct = 0;      // calls of 2+ launches run kernel by kernel
  uint64_t entries = 0;     // graphs kept now
};

struct ModuleDesc; // the decoded module (lib/Runtime/ModuleDesc.h)

/// A loaded module. Thread-safe: calls on one Executable are serialized.
class Executable {
public:
  /// Verifies and loads a module from memory (the bytes are copied).
  static Expected<std::unique_ptr<Executable>> load(const void *data,
                                                    size_t size);
  /// Reads, verifies and loads a module file: a regular file of at most
  /// kMaxModuleFileBytes (1 GiB), else FileError; its 8-byte header is
  /// checked before the rest is read.
  static Expected<std::unique_ptr<Executable>>
  loadFile(const std::string &path);

  ~Executable();
  Executable(const Executable &) = delete;
  Executable &operator=(const Executable &) = delete;

  const ModuleInfo &info() const;

  /// Checks the inputs and returns the launch plan for them, without a GPU.
  Expected<EvaluatedPlan> plan(const Argument *inputs, size_t numInputs);
  Expected<EvaluatedPlan> plan(const std::vector<Argument> &inputs) {
    return plan(inputs.data(), inputs.size());
  }

  /// Checks the inputs and fills dtype, rank, sizes and strides of each
  /// output (data stays null), so a caller can allocate them itself.
  Status inferOutputs(const Argument *inputs, size_t numInputs,
                      OutputTensor *outputs, size_t numOutputs);

  /// Checks the inputs and outputs, then launches every kernel on `stream`
  /// (a CUstream; null is the legacy default stream). On error `outputs` is
  /// untouched, and nothing is launched unless the driver fails a launch
  /// after earlier ones. Uses the CUDA context current on this thread, else
  /// makes device 0's primary context current.
  Status run(const Argument *inputs, size_t numInputs, OutputTensor *outputs,
             size_t numOutputs, void *stream);

  /// Whether kernel `index` has code: always for a kernel the file holds
  /// built, for a deferred one once a launch needed it and the kernel
  /// builder built it. False for an index out of range.
  bool kernelBuilt(size_t index) const;
  /// Deferred kernels this executable built (one builder call each).
  uint64_t kernelsBuiltSinceLoad() const;

  PlanCacheStats cacheStats() const;
  /// Drops the cached plans (and the launch graphs built for them).
  void clearCache();

  /// A plan of two or more kernel launches runs as one CUDA graph launch
  /// (built on its first call per stream, its parameters updated in place
  /// after): on by default, off when the environment variable
  /// FUSION_LAUNCH_GRAPHS is 0 at load. Turning it off destroys the graphs.
  void setLaunchGraphs(bool enabled);
  LaunchGraphStats launchGraphStats() const;

  struct Impl;

private:
  explicit Executable(std::unique_ptr<Impl> impl);
  static std::unique_ptr<Executable>
  makeExecutable(ModuleDesc desc, const char *bytes, size_t size);
  std::unique_ptr<Impl> impl_;
};

/// Note [Deferred kernels] (lib/Target/Compile.cpp): builds the deferred
/// kernel named `kernel` of the module file `module` (the bytes an
/// executable was loaded from, with the kernels it built since) and sets
/// `built` to the module file with that kernel built; an error status (its
/// message says why) otherwise. The compiler's is buildDeferredKernel
/// (C: fusionBuildDeferredKernel).
using KernelBuilder =
    std::function<Status(const void *module, size_t size,
                         const std::string &kernel, std::string &built)>;
/// Sets the process's kernel builder (an empty function removes it). An
/// executable calls it, under its own lock, when a launch first needs one of
/// its deferred kernels; without one, such a launch is a KernelNotBuilt
/// error naming the kernel.
void setKernelBuilder(KernelBuilder builder);
bool hasKernelBuilder();

/// Loads the CUDA driver if needed; ok when it is usable (a device exists).
Status cudaDriverStatus();
/// Frees memory the runtime allocated for an output, ordered on `stream`.
Status freeDeviceMemory(void *data, void *stream);
/// Waits for all work on `stream`.
Status synchronizeStream(void *stream);
/// The floor of host overhead: the host time per cuLaunchKernelEx of an
/// empty kernel (PTX) on `stream` in the current context, in microseconds,
/// over `launches` launches without synchronization (after 100 warm-up
/// launches).
Expected<double> measureRawLaunchMicros(int launches, void *stream);

} // namespace fusion::runtime

#endif // FUSION_RUNTIME_EXECUTABLE_H
