// Executable: module loading, the per-signature plan cache, and the launch
// path. Note [Steady state]: once a signature is cached, a call builds the
// signature key, compares it with the last one (or hashes it), checks
// pointers, allocates, patches a copy of each packed parameter buffer and
// calls cuLaunchKernelEx; no expression is evaluated.
#include "fusion/Runtime/Executable.h"

#include "CudaDriver.h"
#include "ExprEvaluator.h"
#include "Format.h"
#include "LaunchPlanEvaluator.h"
#include "ModuleVerifier.h"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <unordered_map>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace fusion::runtime {

namespace {

// Dynamic shapes could grow the cache without bound; past this many
// signatures it starts over.
constexpr size_t kMaxCachedPlans = 4096;
// Note [Launch graphs].
constexpr size_t kMaxLaunchGraphs = 64;
// cuMemAllocAsync returns at least this alignment; PtrAligned assumes it for
// buffers the runtime allocates (LaunchPlanEvaluator keeps pool parts so).
constexpr uint64_t kRuntimeAllocationAlignment = 256;

/// The data of a view output (layout.aliasInput >= 0): its input's data,
/// moved to the view's first element.
/// (Integer arithmetic: inferOutputs may see null inputs.)
void *viewData(const BufferLayout &layout, const Argument *inputs) {
  return reinterpret_cast<void *>(
      reinterpret_cast<uintptr_t>(inputs[layout.aliasInput].data) +
      static_cast<uintptr_t>(layout.aliasOffset * dtypeByteSize(layout.dtype)));
}

/// Grid, block and dynamic shared memory of `launch` into a CUlaunchConfig
/// or a CUDA_KERNEL_NODE_PARAMS (the same field names).
template <typename Config>
void setLaunchShape(Config &config, const LaunchConfig &launch) {
  config.gridDimX = launch.grid[0];
  config.gridDimY = launch.grid[1];
  config.gridDimZ = launch.grid[2];
  config.blockDimX = launch.block[0];
  config.blockDimY = launch.block[1];
  config.blockDimZ = launch.block[2];
  config.sharedMemBytes = launch.dynamicSmem;
}
// Note [Parameters by pointer]: the packed buffer (`extra`'s
// CU_LAUNCH_PARAM_BUFFER_POINTER) is copied into the kernel's constant
// bank as it is, so its layout must be the one the compiled kernel reads.
// Parameters aligned to at most 16 bytes sit where the PTX's .param list
// puts them (Note [Parameter packing]). A tensor map (`.align 64`) does
// not: ptxas aligns it to 64 in the constant bank, whose parameter window
// starts 16 bytes past a multiple of 64 on sm_90 (c[0x0][0x210]), so the
// map lands 48 bytes into the buffer, and a map written at offset 0 makes
// the bulk tensor copy read a garbage descriptor (an illegal instruction,
// seen on the H200). The kernel's own layout is known to the driver only:
// a launch with such a parameter passes one pointer per parameter
// (kernelParams), each into the packed buffer, and the driver places them.
void **paramPointers(const LaunchConfig &launch, uint8_t *params,
                     std::vector<void *> &pointers) {
  pointers.resize(launch.fields.size());
  for (size_t p = 0; p < launch.fields.size(); ++p)
    pointers[p] = params + launch.fields[p].offset;
  return pointers.data();
}

// Note [Static and dynamic shared memory]: a block gets 48 KB of shared
// memory without asking, static (the kernel's own __shared__ buffers, such
// as a block reduction's scratch) and dynamic together; more needs
// CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, whose default is 48 KB
// less the static part. So a launch of exactly 48 KB of dynamic shared
// memory (an f32 row of 12288 staged) by a kernel with 256 static bytes
// fails with CUDA_ERROR_INVALID_VALUE unless the attribute is raised.
// loadKernel reads both from the function (cuFuncGetAttribute); without
// that entry point nothing is known: the attribute is set for any dynamic
// shared memory.
constexpr uint32_t kDefaultDynamicSmemLimit = 48 * 1024;

struct SignatureHash {
  size_t operator()(const std::vector<int64_t> &key) const {
    uint64_t hash = 0xcbf29ce484222325ull;
    for (int64_t value : key) {
      hash ^= static_cast<uint64_t>(value);
      hash *= 0x100000001b3ull;
      hash ^= hash >> 32;
    }
    return static_cast<size_t>(hash);
  }
};

/// A module's kernels loaded into one CUDA context.
/// A clustered launch shape whose residency was checked (Note [Cluster
/// residency]).
struct ClusterShape {
  int32_t kernel = 0;
  uint32_t cluster[3] = {}, block[3] = {};
  uint32_t dynamicSmem = 0;
  bool operator==(const ClusterShape &o) const {
    return kernel == o.kernel && dynamicSmem == o.dynamicSmem &&
           std::equal(cluster, cluster + 3, o.cluster) &&
           std::equal(block, block + 3, o.block);
  }
};

struct LoadedKernels {
  CUcontext context = nullptr;
  std::vector<CUmodule> modules;
  std::vector<CUfunction> functions;
  std::vector<uint32_t> dynamicSmemLimit; // what each function allows now
  std::vector<uint32_t> staticSmem;       // each function's own buffers
  std::vector<bool> nonPortableClusters;  // the attribute is set
  std::vector<ClusterShape> residentClusters;
  int32_t deviceSmemOptin = 0;
};

std::string kindName(ArgKind kind) {
  switch (kind) {
  case ArgKind::Tensor:
    return "a tensor";
  case ArgKind::Scalar:
    return "a scalar";
  }
  return concat("invalid kind ", static_cast<int32_t>(kind));
}

std::string dtypeLabel(DType dtype) {
  if (isValidDType(static_cast<int32_t>(dtype)))
    return dtypeName(dtype);
  return concat("invalid dtype ", static_cast<int32_t>(dtype));
}

ModuleInfo describeModule(const ModuleDesc &desc) {
  ModuleInfo info;
  info.version = desc.version;
  info.name = desc.name;
  info.target = desc.target;
  info.definition = desc.definition;
  info.producer = desc.producer;
  for (const InputDesc &input : desc.inputs)
    info.inputs.push_back(
        {input.name, input.kind, input.dtype, input.sizes, false});
  for (int32_t scalar : desc.scalarsReadByExprs)
    info.inputs[scalar].valueAffectsPlan = true;
  for (int32_t buffer : desc.outputs) {
    const BufferDesc &spec = desc.buffers[buffer];
    info.outputs.push_back(
        {spec.dtype, static_cast<int32_t>(spec.sizes.size()), spec.aliasInput});
  }
  for (const KernelDesc &kernel : desc.kernels)
    info.kernels.push_back({kernel.name, !kernel.cubin.empty(),
                            kernel.ptx.size(), kernel.cubin.size(),
                            kernel.deferred});
  info.numLaunches = desc.launches.size();
  info.numBuffers = desc.buffers.size();
  info.numExprs = desc.exprs.size();
  return info;
}

} // namespace

struct Executable::Impl {
  ModuleDesc desc;
  ModuleInfo info;
  std::mutex mutex;
  // Note [Deferred kernels]: the module file's bytes, kept (with the code
  // of the kernels built since) only when it has deferred kernels.
  std::string moduleBytes;
  uint64_t kernelsBuilt = 0;

  // The plan cache, keyed by the input signature (see bindSignature).
  std::unordered_map<std::vector<int64_t>, std::unique_ptr<CachedPlan>,
                     SignatureHash>
      cache;
  std::vector<int64_t> key; // this call's signature
  std::vector<int64_t> lastKey;
  const CachedPlan *lastPlan = nullptr;
  std::vector<uint8_t> ptrAligned; // this call's PtrAligned values
  PlanCacheStats stats;

  // Launch state, reused across calls.
  std::vector<LoadedKernels> loaded; // one per CUDA context seen
  std::vector<uint64_t> slotPointers;
  std::vector<CUdeviceptr> allocatedOutputs;
  CUdeviceptr pool = 0; // this call's intermediates (a stream workspace)
  std::vector<uint8_t> paramScratch;
  std::vector<void *> paramPointerScratch; // Note [Parameters by pointer]

  // Note [Stream workspaces]: the intermediates of a call live in a
  // workspace per (context, stream), kept between calls: calls on one
  // stream run in order, so the next call may reuse the memory as soon as
  // it is enqueued after the last. It grows (stream-ordered free and
  // allocation) when a plan needs more. Zero-initialized intermediates are
  // zeroed per call, except kept_zero ones (grid-reduction counters, which
  // the kernels reset): those only when the workspace is new or another
  // plan (another layout) used it since. Calls on different streams never
  // share a workspace. A stream's handle is only used while a call on it
  // runs (a destroyed stream's workspace is freed with the executable, after
  // a context synchronization); a new stream that gets a destroyed one's
  // handle value inherits its workspace; work still pending on the
  // destroyed stream is not ordered before it (destroy a stream after its
  // work is done).
  struct StreamWorkspace {
    CUcontext context = nullptr;
    CUstream stream = nullptr;
    CUdeviceptr base = 0;
    int64_t bytes = 0;
    const CachedPlan *zeroedFor = nullptr; // kept_zero buffers are zero for
  };
  std::vector<StreamWorkspace> workspaces;
  const CachedPlan *runningPlan = nullptr;
  StreamWorkspace *callWorkspace = nullptr; // this call's, or null

  // Note [Launch graphs]: a plan of two or more launches runs as one CUDA
  // graph per (context, stream, plan). Its first call there launches kernel
  // by kernel (a shape seen once does not pay for a graph); the second
  // builds and instantiates the graph, a chain of kernel nodes in launch
  // order; later calls replay it with one cuGraphLaunch, after updating in
  // place (cuGraphExecKernelNodeSetParams) the nodes whose parameters
  // changed: new pointers or scalars. Such an update affects only launches
  // enqueued after it. Plans of one launch, plans with cluster or
  // cooperative launches, and calls on a stream being captured (their
  // launches go into the caller's graph) launch kernel by kernel; so does
  // every call when the driver lacks an entry point, when graphs are off
  // (FUSION_LAUNCH_GRAPHS=0, or setLaunchGraphs(false)), and a plan whose
  // graph the driver refused on that stream. At most kMaxLaunchGraphs are
  // kept, the least recently used destroyed first; the driver frees a graph
  // still running when it completes. Graphs go with their plans (cache
  // eviction, clearCache) and before the modules they launch.
  struct LaunchGraph {
    CUcontext context = nullptr;
    CUstream stream = nullptr;
    const CachedPlan *plan = nullptr;
    CUgraph graph = nullptr;
    CUgraphExec exec = nullptr; // null: the driver refused, launch directly
    std::vector<CUgraphNode> nodes;
    std::vector<size_t> launchOfNode;
    std::vector<size_t> paramOffset; // each node's bytes in `params`
    std::vector<uint8_t> params;     // the parameters each node has now
    bool built = false;              // false: seen once, no graph tried yet
    uint64_t lastUse = 0;
  };
  std::vector<LaunchGraph> graphs;
  uint64_t graphClock = 0;
  bool launchGraphs = true;
  LaunchGraphStats graphStats;

  explicit Impl(ModuleDesc moduleDesc)
      : desc(std::move(moduleDesc)), info(describeModule(desc)),
        slotPointers(desc.numSlots(), 0),
        allocatedOutputs(desc.outputs.size(), 0) {
    const char *graphsVar = std::getenv("FUSION_LAUNCH_GRAPHS");
    launchGraphs = !(graphsVar && std::strcmp(graphsVar, "0") == 0);
  }
  ~Impl();

  bool slotAligned(int32_t slot, int64_t alignment, const Argument *inputs,
                   const OutputTensor *outputs) const;
  Status bindSignature(const Argument *inputs, size_t numInputs,
                       const OutputTensor *outputs);
  /// The plan of this signature (cached or evaluated), after checking that
  /// every non-empty tensor input has a pointer.
  Expected<const CachedPlan *> findPlan(const Argument *inputs,
                                        size_t numInputs,
                                        const OutputTensor *outputs);
  Expected<const CachedPlan *> lookupPlan(const Argument *inputs,
                                          size_t numInputs,
                                          const OutputTensor *outputs);
  Status checkPointers(const CachedPlan &cached, const Argument *inputs) const;
  Status checkOutputs(const CachedPlan &cached, const Argument *inputs,
                      const OutputTensor *outputs) const;
  void fillOutput(const CachedPlan &cached, size_t index,
                  OutputTensor &output) const;

  Status run(const Argument *inputs, size_t numInputs, OutputTensor *outputs,
             size_t numOutputs, CUstream stream);
  Expected<LoadedKernels *> kernelsForCurrentContext(const CudaDriver &cu);
  Status loadKernel(const CudaDriver &cu, LoadedKernels &kernels,
                    int32_t index);
  /// Note [Deferred kernels]: has the kernel builder build kernel `index`.
  Status buildKernel(int32_t index);
  Status prepareKernels(const CudaDriver &cu, const CachedPlan &cached,
                        LoadedKernels &kernels);
  Status prepareCluster(const CudaDriver &cu, LoadedKernels &kernels,
                        const LaunchConfig &config, size_t index);
  Status encodeTensorMaps(const CudaDriver &cu, const CachedPlan &cached);
  Status allocateBuffers(const CudaDriver &cu, const EvaluatedPlan &plan,
                         const Argument *inputs, const OutputTensor *outputs,
                         CUcontext context, CUstream stream);
  Status launchKernel(const CudaDriver &cu, const CachedPlan &cached,
                      size_t index, const LoadedKernels &kernels,
                      const Argument *inputs, CUstream stream);
  void releaseBuffers(const CudaDriver &cu, CUstream stream);
  /// The workspace of (context, stream); `context` is the current one
  /// (kernelsForCurrentContext asked the driver once per call).
  Expected<StreamWorkspace *> workspaceFor(const CudaDriver &cu,
                                           CUcontext context, CUstream stream,
                                           int64_t bytes);
  /// Plans are gone (a new one may reuse an address): every workspace's
  /// kept_zero buffers are zeroed again by their next call.
  void forgetZeroedPlans() {
    for (StreamWorkspace &w : workspaces)
      w.zeroedFor = nullptr;
    destroyGraphs();
  }

  /// Fills paramScratch with launch `index`'s parameters for this call;
  /// returns their size.
  size_t packParams(const CachedPlan &cached, size_t index,
                    const Argument *inputs, size_t offset = 0);
  /// Whether this call may run the plan as a graph (Note [Launch graphs]).
  bool wantsGraph(const CudaDriver &cu, const CachedPlan &cached,
                  CUstream stream) const;
  /// Runs the plan's launches as the graph of (context, stream, plan);
  /// `launched` false: the driver refused the graph, nothing was launched.
  Status launchGraph(const CudaDriver &cu, const CachedPlan &cached,
                     const LoadedKernels &kernels, const Argument *inputs,
                     CUstream stream, bool &launched);
  Status buildGraph(const CudaDriver &cu, const CachedPlan &cached,
                    const LoadedKernels &kernels, LaunchGraph &entry);
  void destroyGraph(LaunchGraph &entry);
  void destroyGraphs() {
    for (LaunchGraph &entry : graphs)
      destroyGraph(entry);
    graphs.clear();
  }
};

//===----------------------------------------------------------------------===//
// Signature binding and the plan cache
//===----------------------------------------------------------------------===//

bool Executable::Impl::slotAligned(int32_t slot, int64_t alignment,
                                   const Argument *inputs,
                                   const OutputTensor *outputs) const {
  const void *address = nullptr;
  if (slot < desc.numInputs()) {
    address = inputs[slot].data;
  } else {
    int32_t buffer = slot - desc.numInputs();
    int32_t output = desc.outputOfBuffer[buffer];
    // A view that starts inside its input (a slice): its offset is not
    // known here. Kernels never read views, so no guard asks.
    if (desc.buffers[buffer].aliasOffset >= 0)
      return false;
    if (desc.buffers[buffer].aliasInput >= 0)
      address = inputs[desc.buffers[buffer].aliasInput].data;
    else if (output >= 0 && outputs && outputs[output].data)
      address = outputs[output].data;
    else
      return kRuntimeAllocationAlignment % alignment == 0;
  }
  return reinterpret_cast<uintptr_t>(address) % alignment == 0;
}

/// Note [Signature key]: the key holds everything the launch plan depends on
/// besides the module: sizes and strides of every tensor input, the integer
/// scalars the expressions read, and each PtrAligned result. Kinds, dtypes
/// and ranks are checked here on every call instead (they fix the layout of
/// the key); static sizes and constraints are checked when a plan is made.
Status Executable::Impl::bindSignature(const Argument *inputs, size_t numInputs,
                                       const OutputTensor *outputs) {
  if (numInputs != desc.inputs.size())
    return Status(ErrorCode::WrongInputCount,
                  concat("wrong number of inputs: expected ",
                         desc.inputs.size(), ", got ", numInputs));
  if (numInputs != 0 && !inputs)
    return Status(ErrorCode::InvalidArgument, "inputs is null");
  key.clear();
  for (int32_t i = 0; i < desc.numInputs(); ++i) {
    const InputDesc &spec = desc.inputs[i];
    const Argument &arg = inputs[i];
    if (arg.kind != spec.kind)
      return Status(ErrorCode::WrongInputKind,
                    concat(desc.inputLabel(i), ": expected ",
                           kindName(spec.kind), ", got ", kindName(arg.kind)));
    if (arg.dtype != spec.dtype)
      return Status(ErrorCode::WrongDType,
                    concat(desc.inputLabel(i), ": expected dtype ",
                           dtypeName(spec.dtype), ", got ",
                           dtypeLabel(arg.dtype)));
    if (spec.kind != ArgKind::Tensor)
      continue;
    if (arg.rank != spec.rank())
      return Status(ErrorCode::WrongRank,
                    concat(desc.inputLabel(i), ": expected rank ", spec.rank(),
                           ", got ", arg.rank));
    if (arg.rank != 0 && !arg.sizes)
      return Status(ErrorCode::InvalidArgument,
                    concat(desc.inputLabel(i), ": sizes is null"));
    key.insert(key.end(), arg.sizes, arg.sizes + arg.rank);
    if (arg.strides) {
      key.insert(key.end(), arg.strides, arg.strides + arg.rank);
      continue;
    }
    // Row-major strides, innermost first, in one pass: each is the product
    // of the sizes after it, which must fit int64 (1 x 2^32 x 2^32 did not).
    size_t base = key.size();
    key.resize(base + arg.rank);
    int64_t stride = 1;
    for (int64_t d = arg.rank - 1; d >= 0; --d) {
      key[base + d] = stride;
      if (d > 0 && __builtin_mul_overflow(
                       stride, std::max<int64_t>(arg.sizes[d], 1), &stride))
        return Status(ErrorCode::IntegerOverflow,
                      concat(desc.inputLabel(i),
                             ": the row-major stride of "
                             "dim ",
                             d - 1,
                             " (the product of the sizes "
                             "after it) overflows int64"));
    }
  }
  for (int32_t scalar : desc.scalarsReadByExprs)
    key.push_back(inputs[scalar].intValue);
  ptrAligned.clear();
  for (int32_t expr : desc.ptrAlignedExprs) {
    const ExprInstDesc &inst = desc.exprs[expr];
    ptrAligned.push_back(slotAligned(inst.a, inst.imm, inputs, outputs));
    key.push_back(ptrAligned.back());
  }
  // Note [Tensor maps]: a variant with a tensor map needs the pointer
  // 16-byte aligned.
  for (const TensorMapDesc &map : desc.tensorMaps) {
    ptrAligned.push_back(slotAligned(map.slot, 16, inputs, outputs));
    key.push_back(ptrAligned.back());
  }
  return Status::success();
}

Expected<const CachedPlan *>
Executable::Impl::findPlan(const Argument *inputs, size_t numInputs,
                           const OutputTensor *outputs) {
  Expected<const CachedPlan *> found = lookupPlan(inputs, numInputs, outputs);
  if (!found)
    return found;
  Status status = checkPointers(**found, inputs);
  if (!status.ok())
    return status;
  return found;
}

Expected<const CachedPlan *>
Executable::Impl::lookupPlan(const Argument *inputs, size_t numInputs,
                             const OutputTensor *outputs) {
  Status status = bindSignature(inputs, numInputs, outputs);
  if (!status.ok())
    return status;
  if (lastPlan && key == lastKey) {
    ++stats.hits;
    return lastPlan;
  }
  auto found = cache.find(key);
  if (found != cache.end()) {
    ++stats.hits;
    lastKey = key;
    lastPlan = found->second.get();
    return lastPlan;
  }
  ++stats.misses;
  Expected<CachedPlan> evaluated =
      evaluateLaunchPlan(desc, inputs, ptrAligned.data());
  if (!evaluated)
    return evaluated.status();
  if (cache.size() >= kMaxCachedPlans) {
    cache.clear();
    forgetZeroedPlans();
  }
  // Note [Launch graphs]: which plans may run as one graph.
  for (const LaunchConfig &launch : evaluated->plan.launches) {
    if (launch.skipped)
      continue;
    ++evaluated->graphLaunches;
    if (launch.hasCluster || launch.cooperative)
      evaluated->graphable = false;
  }
  evaluated->graphable = evaluated->graphable && evaluated->graphLaunches >= 2;
  auto inserted =
      cache.emplace(key, std::make_unique<CachedPlan>(std::move(*evaluated)));
  stats.entries = cache.size();
  lastKey = key;
  lastPlan = inserted.first->second.get();
  return lastPlan;
}

namespace {

// Note [Pointer alignment]: kernels access tensors with loads and stores of
// their element size (or wider, which PtrAligned guards), and the GPU
// faults on a misaligned one. So the data pointer of every non-empty tensor
// input (checkPointers, every call) and of every provided non-empty output
// (checkOutputs, run) must be a multiple of its element size (1, 2, 4 or 8
// bytes); else MisalignedPointer, before anything is allocated or launched.
// Empty tensors are never accessed: any pointer (null too) is fine.

/// MisalignedPointer for `what` ("input 1 (b)", "output 0").
Status misalignedPointer(const std::string &what, const void *data,
                         DType dtype) {
  return Status(ErrorCode::MisalignedPointer,
                concat(what, ": data pointer ", data, " is not aligned to ",
                       dtypeByteSize(dtype), " bytes (the size of ",
                       dtypeName(dtype), ")"));
}

bool isAligned(const void *data, DType dtype) {
  auto alignment = static_cast<uintptr_t>(dtypeByteSize(dtype));
  return (reinterpret_cast<uintptr_t>(data) & (alignment - 1)) == 0;
}

} // namespace

Status Executable::Impl::checkPointers(const CachedPlan &cached,
                                       const Argument *inputs) const {
  for (int32_t i = 0; i < desc.numInputs(); ++i) {
    if (desc.inputs[i].kind != ArgKind::Tensor ||
        cached.inputNumElements[i] == 0)
      continue;
    if (!inputs[i].data)
      return Status(ErrorCode::NullPointer,
                    concat(desc.inputLabel(i),
                           ": null data pointer for a tensor of ",
                           cached.inputNumElements[i], " elements"));
    // Note [Pointer alignment]; the dtype was checked by bindSignature.
    if (!isAligned(inputs[i].data, desc.inputs[i].dtype))
      return misalignedPointer(desc.inputLabel(i), inputs[i].data,
                               desc.inputs[i].dtype);
  }
  return Status::success();
}

Status Executable::Impl::checkOutputs(const CachedPlan &cached,
                                      const Argument *inputs,
                                      const OutputTensor *outputs) const {
  for (size_t o = 0; o < desc.outputs.size(); ++o) {
    const OutputTensor &given = outputs[o];
    if (!given.data)
      continue;
    const BufferLayout &layout = cached.plan.output(o);
    auto wrong = [&](const std::string &what) {
      return Status(ErrorCode::WrongOutput, concat("output ", o, ": ", what));
    };
    if (layout.aliasInput >= 0) {
      if (given.data != viewData(layout, inputs))
        return wrong(concat("is a view of ", desc.inputLabel(layout.aliasInput),
                            "; pass a null data pointer"));
      continue;
    }
    if (given.dtype != layout.dtype)
      return wrong(concat("expected dtype ", dtypeName(layout.dtype), ", got ",
                          dtypeLabel(given.dtype)));
    if (given.rank != layout.rank)
      return wrong(concat("expected rank ", layout.rank, ", got ", given.rank));
    for (int32_t d = 0; d < layout.rank; ++d)
      if (given.sizes[d] != layout.sizes[d])
        return wrong(concat("dim ", d, " expected ", layout.sizes[d], ", got ",
                            given.sizes[d]));
    // Strides of size-1 dims and of empty tensors never address memory.
    for (int32_t d = 0; d < layout.rank && layout.numElements != 0; ++d)
      if (layout.sizes[d] > 1 && given.strides[d] != layout.strides[d])
        return wrong(concat("dim ", d, " stride expected ", layout.strides[d],
                            ", got ", given.strides[d]));
    // Note [Pointer alignment].
    if (layout.numElements != 0 && !isAligned(given.data, layout.dtype))
      return misalignedPointer(concat("output ", o), given.data, layout.dtype);
  }
  return Status::success();
}

void Executable::Impl::fillOutput(const CachedPlan &cached, size_t index,
                                  OutputTensor &output) const {
  const BufferLayout &layout = cached.plan.output(index);
  output.dtype = layout.dtype;
  output.rank = layout.rank;
  for (int d = 0; d < kMaxRank; ++d) {
    output.sizes[d] = d < layout.rank ? layout.sizes[d] : 0;
    output.strides[d] = d < layout.rank ? layout.strides[d] : 0;
  }
}

//===----------------------------------------------------------------------===//
// The launch path
//===----------------------------------------------------------------------===//

Status Executable::Impl::run(const Argument *inputs, size_t numInputs,
                             OutputTensor *outputs, size_t numOutputs,
                             CUstream stream) {
  if (numOutputs != desc.outputs.size())
    return Status(ErrorCode::WrongOutput,
                  concat("wrong number of outputs: expected ",
                         desc.outputs.size(), ", got ", numOutputs));
  if (numOutputs != 0 && !outputs)
    return Status(ErrorCode::InvalidArgument, "outputs is null");
  Expected<const CachedPlan *> found = findPlan(inputs, numInputs, outputs);
  if (!found)
    return found.status();
  const CachedPlan &cached = **found;
  Status status = checkOutputs(cached, inputs, outputs);
  if (!status.ok())
    return status;

  Expected<const CudaDriver *> driver = CudaDriver::get();
  if (!driver)
    return driver.status();
  const CudaDriver &cu = **driver;
  Expected<LoadedKernels *> kernels = kernelsForCurrentContext(cu);
  if (!kernels)
    return kernels.status();
  status = prepareKernels(cu, cached, **kernels);
  runningPlan = &cached;
  if (status.ok())
    status = allocateBuffers(cu, cached.plan, inputs, outputs,
                             (*kernels)->context, stream);
  if (!status.ok())
    return status;
  if (!cached.usedTensorMaps.empty()) {
    status = encodeTensorMaps(cu, cached);
    if (!status.ok()) {
      releaseBuffers(cu, stream);
      return status;
    }
  }
  bool launched = false;
  if (cached.graphLaunches >= 2) {
    if (wantsGraph(cu, cached, stream))
      status = launchGraph(cu, cached, **kernels, inputs, stream, launched);
    if (!launched)
      ++graphStats.direct;
  }
  for (size_t l = 0;
       !launched && l < cached.plan.launches.size() && status.ok(); ++l)
    status = launchKernel(cu, cached, l, **kernels, inputs, stream);
  if (!status.ok()) {
    releaseBuffers(cu, stream);
    return status;
  }
  // The intermediates stay in the stream's workspace (Note [Stream
  // workspaces]).
  pool = 0;
  callWorkspace = nullptr;
  for (size_t o = 0; o < desc.outputs.size(); ++o) {
    fillOutput(cached, o, outputs[o]);
    outputs[o].data = reinterpret_cast<void *>(
        slotPointers[desc.numInputs() + desc.outputs[o]]);
    outputs[o].allocated = allocatedOutputs[o] != 0;
    allocatedOutputs[o] = 0;
  }
  return status;
}

Expected<LoadedKernels *>
Executable::Impl::kernelsForCurrentContext(const CudaDriver &cu) {
  Expected<CUcontext> context = cu.currentContext();
  if (!context)
    return context.status();
  for (LoadedKernels &kernels : loaded)
    if (kernels.context == *context)
      return &kernels;

  LoadedKernels kernels;
  kernels.context = *context;
  // Kernels are loaded when a plan first launches them (loadKernel):
  // fallback variants may hold PTX only, which the driver compiles then.
  kernels.modules.assign(desc.kernels.size(), nullptr);
  kernels.functions.assign(desc.kernels.size(), nullptr);
  kernels.dynamicSmemLimit.assign(desc.kernels.size(),
                                  kDefaultDynamicSmemLimit);
  kernels.staticSmem.assign(desc.kernels.size(), 0);
  kernels.nonPortableClusters.assign(desc.kernels.size(), false);
  CUdevice device = 0;
  Status status = cu.check(cu.cuCtxGetDevice(&device), "cuCtxGetDevice");
  if (status.ok())
    status = cu.check(cu.cuDeviceGetAttribute(
                          &kernels.deviceSmemOptin,
                          CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN,
                          device),
                      "cuDeviceGetAttribute");
  if (!status.ok())
    return status;
  loaded.push_back(std::move(kernels));
  return &loaded.back();
}

// Note [Kernels on first use]: a context loads a kernel's module when a
// plan first launches it, not when the executable meets the context. The
// compiler keeps fallback variants (scalar, 64-bit index) as PTX only
// (Note [Cubins for expected variants] in ModuleWriter.cpp), so the
// driver JIT-compiles one only when a launch needs it, once per context
// (and its compute cache keeps the result across processes).
Status Executable::Impl::loadKernel(const CudaDriver &cu,
                                    LoadedKernels &kernels, int32_t index) {
  if (desc.kernels[index].ptx.empty() && desc.kernels[index].cubin.empty()) {
    Status built = buildKernel(index);
    if (!built.ok())
      return built;
  }
  const KernelDesc &kernel = desc.kernels[index];
  CUmodule module = nullptr;
  CUresult result = CUDA_ERROR_INVALID_IMAGE;
  if (!kernel.cubin.empty())
    result = cu.cuModuleLoadData(&module, kernel.cubin.data());
  // No cubin, or one for another architecture: the driver JITs the PTX.
  if (result != CUDA_SUCCESS && !kernel.ptx.empty())
    result = cu.cuModuleLoadData(&module, kernel.ptx.c_str());
  Status status = cu.check(
      result, concat("cuModuleLoadData for kernel ", kernel.name).c_str());
  if (!status.ok())
    return status;
  CUfunction function = nullptr;
  status =
      cu.check(cu.cuModuleGetFunction(&function, module, kernel.name.c_str()),
               concat("cuModuleGetFunction(", kernel.name, ")").c_str());
  if (!status.ok()) {
    if (cu.cuModuleUnload)
      cu.cuModuleUnload(module);
    return status;
  }
  kernels.modules[index] = module;
  kernels.functions[index] = function;
  // Note [Static and dynamic shared memory].
  int allowed = 0, own = 0;
  bool known = cu.cuFuncGetAttribute &&
               cu.cuFuncGetAttribute(
                   &allowed, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                   function) == CUDA_SUCCESS &&
               cu.cuFuncGetAttribute(&own, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES,
                                     function) == CUDA_SUCCESS;
  kernels.dynamicSmemLimit[index] =
      known ? static_cast<uint32_t>(std::max(allowed, 0)) : 0;
  kernels.staticSmem[index] =
      known ? static_cast<uint32_t>(std::max(own, 0)) : 0;
  return Status();
}

namespace {
std::mutex builderMutex;
KernelBuilder &processKernelBuilder() {
  static KernelBuilder builder;
  return builder;
}
} // namespace

void setKernelBuilder(KernelBuilder builder) {
  std::lock_guard<std::mutex> lock(builderMutex);
  processKernelBuilder() = std::move(builder);
}

bool hasKernelBuilder() {
  std::lock_guard<std::mutex> lock(builderMutex);
  return static_cast<bool>(processKernelBuilder());
}

/// Whether two decoded modules have the same launch plan: inputs, the
/// expression program, buffers, outputs, checks, tensor maps and every
/// launch variant with its parameters (what the runtime packs for a
/// kernel, so what the kernel's code must expect).
static bool samePlan(const ModuleDesc &a, const ModuleDesc &b) {
  auto sameInputs = [](const InputDesc &x, const InputDesc &y) {
    return x.name == y.name && x.kind == y.kind && x.dtype == y.dtype &&
           x.sizes == y.sizes;
  };
  auto sameExpr = [](const ExprInstDesc &x, const ExprInstDesc &y) {
    return x.op == y.op && x.a == y.a && x.b == y.b && x.c == y.c &&
           x.imm == y.imm;
  };
  auto sameBuffer = [](const BufferDesc &x, const BufferDesc &y) {
    return x.kind == y.kind && x.dtype == y.dtype && x.sizes == y.sizes &&
           x.strides == y.strides && x.zeroInit == y.zeroInit &&
           x.keptZero == y.keptZero && x.aliasInput == y.aliasInput &&
           x.aliasOffset == y.aliasOffset;
  };
  auto sameCheck = [](const CheckDesc &x, const CheckDesc &y) {
    return x.lhs == y.lhs && x.rhs == y.rhs && x.message == y.message;
  };
  auto sameMap = [](const TensorMapDesc &x, const TensorMapDesc &y) {
    return x.slot == y.slot && x.dtype == y.dtype && x.sizes == y.sizes &&
           x.strides == y.strides && x.box == y.box && x.swizzle == y.swizzle &&
           x.oobNan == y.oobNan;
  };
  auto sameVariant = [](const VariantDesc &x, const VariantDesc &y) {
    if (x.kernel != y.kernel || x.guard != y.guard ||
        x.dynamicSmem != y.dynamicSmem || x.hasCluster != y.hasCluster ||
        x.cooperative != y.cooperative || x.params.size() != y.params.size())
      return false;
    for (int d = 0; d < 3; ++d)
      if (x.grid[d] != y.grid[d] || x.block[d] != y.block[d] ||
          x.cluster[d] != y.cluster[d])
        return false;
    for (size_t p = 0; p < x.params.size(); ++p)
      if (x.params[p].kind != y.params[p].kind ||
          x.params[p].value != y.params[p].value)
        return false;
    return true;
  };
  auto sameLaunch = [&](const LaunchDesc &x, const LaunchDesc &y) {
    return std::equal(x.variants.begin(), x.variants.end(), y.variants.begin(),
                      y.variants.end(), sameVariant);
  };
  return std::equal(a.inputs.begin(), a.inputs.end(), b.inputs.begin(),
                    b.inputs.end(), sameInputs) &&
         std::equal(a.exprs.begin(), a.exprs.end(), b.exprs.begin(),
                    b.exprs.end(), sameExpr) &&
         std::equal(a.buffers.begin(), a.buffers.end(), b.buffers.begin(),
                    b.buffers.end(), sameBuffer) &&
         a.outputs == b.outputs &&
         std::equal(a.checks.begin(), a.checks.end(), b.checks.begin(),
                    b.checks.end(), sameCheck) &&
         std::equal(a.tensorMaps.begin(), a.tensorMaps.end(),
                    b.tensorMaps.begin(), b.tensorMaps.end(), sameMap) &&
         std::equal(a.launches.begin(), a.launches.end(), b.launches.begin(),
                    b.launches.end(), sameLaunch);
}

// Note [Deferred kernels] (lib/Target/Compile.cpp): the builder returns the
// whole module file with the kernel built. It is verified as any file is,
// and must be this module: the same kernels by name, the same definition
// and the same launch plan (samePlan), so that the new code expects what
// this executable packs for it (a compiler of another version could lower
// the definition to another plan);
// the executable takes the code of every kernel it still lacks from it and
// keeps its bytes for the next build. Plans do not change: a kernel's code
// is not part of them.
Status Executable::Impl::buildKernel(int32_t index) {
  const std::string &name = desc.kernels[index].name;
  KernelBuilder builder;
  {
    std::lock_guard<std::mutex> lock(builderMutex);
    builder = processKernelBuilder();
  }
  if (!builder || moduleBytes.empty())
    return Status(
        ErrorCode::KernelNotBuilt,
        concat("kernel ", name,
               " is deferred (the module was compiled with defer-kernels) "
               "and this process has no kernel builder: load the compiler "
               "(fusion_set_kernel_builder with fusionBuildDeferredKernel), "
               "or compile the module with defer-kernels=none"));
  std::string bytes;
  Status status = builder(moduleBytes.data(), moduleBytes.size(), name, bytes);
  if (!status.ok())
    return Status(
        ErrorCode::KernelNotBuilt,
        concat("building deferred kernel ", name, ": ", status.message()));
  std::vector<uint64_t> aligned((bytes.size() + 7) / 8);
  if (!bytes.empty())
    std::memcpy(aligned.data(), bytes.data(), bytes.size());
  Expected<ModuleDesc> fresh = verifyAndDecodeModule(
      reinterpret_cast<const uint8_t *>(aligned.data()), bytes.size());
  if (!fresh)
    return Status(ErrorCode::KernelNotBuilt,
                  concat("the kernel builder returned an invalid module for ",
                         name, ": ", fresh.status().toString()));
  bool same = fresh->kernels.size() == desc.kernels.size() &&
              fresh->definition == desc.definition;
  for (size_t k = 0; same && k < desc.kernels.size(); ++k)
    same = fresh->kernels[k].name == desc.kernels[k].name;
  if (!same)
    return Status(ErrorCode::KernelNotBuilt,
                  concat("the kernel builder returned another module for ",
                         name, " (other kernels or definition)"));
  if (!samePlan(*fresh, desc))
    return Status(ErrorCode::KernelNotBuilt,
                  concat("the kernel builder's module for ", name,
                         " has another launch plan than this one (was the "
                         "module compiled by another version of the "
                         "compiler?)"));
  KernelDesc &built = fresh->kernels[index];
  if (built.ptx.empty() && built.cubin.empty())
    return Status(ErrorCode::KernelNotBuilt,
                  concat("the kernel builder did not build kernel ", name));
  for (size_t k = 0; k < desc.kernels.size(); ++k) {
    KernelDesc &mine = desc.kernels[k];
    if (!mine.ptx.empty() || !mine.cubin.empty())
      continue;
    mine.ptx = std::move(fresh->kernels[k].ptx);
    mine.cubin = std::move(fresh->kernels[k].cubin);
  }
  moduleBytes = std::move(bytes);
  ++kernelsBuilt;
  return Status::success();
}

// Note [Tensor maps]: a kernel's bulk tensor copies read a CUtensorMap (the
// global tensor's address, sizes, strides and the box) passed by value as
// a 128-byte, 64-byte aligned kernel parameter (`__grid_constant__`). Its
// geometry is evaluated with the plan (LaunchPlanEvaluator.cpp, where a
// variant whose map breaks the copy engine's rules for a signature is not
// taken); the address changes per call, so the map is encoded per call
// with cuTensorMapEncodeTiled, after the buffers are allocated, and kept
// with the plan while the pointer stays the same (a loop over the same
// tensors encodes once).
Status Executable::Impl::encodeTensorMaps(const CudaDriver &cu,
                                          const CachedPlan &cached) {
  for (int32_t m : cached.usedTensorMaps) {
    const TensorMapDesc &map = desc.tensorMaps[m];
    const TensorMapGeometry &g = cached.tensorMaps[m];
    EncodedTensorMap &encoded = cached.encodedTensorMaps[m];
    uint64_t pointer = slotPointers[map.slot];
    if (encoded.valid && encoded.pointer == pointer)
      continue;
    if (!cu.cuTensorMapEncodeTiled)
      return Status(ErrorCode::DriverUnavailable,
                    "CUDA driver not available: it has no "
                    "cuTensorMapEncodeTiled (tensor maps need CUDA 12)");
    CUtensorMapDataType type = CU_TENSOR_MAP_DATA_TYPE_UINT8;
    switch (map.dtype) {
    case DType::F64:
      type = CU_TENSOR_MAP_DATA_TYPE_FLOAT64;
      break;
    case DType::F32:
      type = CU_TENSOR_MAP_DATA_TYPE_FLOAT32;
      break;
    case DType::F16:
      type = CU_TENSOR_MAP_DATA_TYPE_FLOAT16;
      break;
    case DType::BF16:
      type = CU_TENSOR_MAP_DATA_TYPE_BFLOAT16;
      break;
    case DType::I64:
      type = CU_TENSOR_MAP_DATA_TYPE_INT64;
      break;
    case DType::I32:
      type = CU_TENSOR_MAP_DATA_TYPE_INT32;
      break;
    case DType::I16:
      type = CU_TENSOR_MAP_DATA_TYPE_UINT16;
      break;
    case DType::I8:
    case DType::I1:
    case DType::F8E4M3:
    case DType::F8E5M2:
      type = CU_TENSOR_MAP_DATA_TYPE_UINT8; // bytes, moved as they are
      break;
    }
    cuuint64_t dims[5], strides[4];
    cuuint32_t box[5], elementStrides[5];
    for (int32_t k = 0; k < g.rank; ++k) {
      dims[k] = g.dims[k];
      box[k] = g.box[k];
      elementStrides[k] = 1;
      if (k > 0)
        strides[k - 1] = g.strides[k - 1];
    }
    static const CUtensorMapSwizzle swizzles[4] = {
        CU_TENSOR_MAP_SWIZZLE_NONE, CU_TENSOR_MAP_SWIZZLE_32B,
        CU_TENSOR_MAP_SWIZZLE_64B, CU_TENSOR_MAP_SWIZZLE_128B};
    CUtensorMap result;
    Status status = cu.check(
        cu.cuTensorMapEncodeTiled(
            &result, type, static_cast<cuuint32_t>(g.rank),
            reinterpret_cast<void *>(pointer), dims, strides, box,
            elementStrides, CU_TENSOR_MAP_INTERLEAVE_NONE,
            swizzles[map.swizzle], CU_TENSOR_MAP_L2_PROMOTION_L2_128B,
            map.oobNan ? CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA
                       : CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE),
        concat("cuTensorMapEncodeTiled for tensor map ", m).c_str());
    if (!status.ok())
      return status;
    static_assert(sizeof(CUtensorMap) == 128, "a CUtensorMap is 128 bytes");
    std::memcpy(encoded.bytes, &result, 128);
    encoded.pointer = pointer;
    encoded.valid = true;
  }
  return Status::success();
}

// Note [Cluster residency]: a launch whose clusters cannot be resident
// (too much shared memory or too many threads for the blocks of one
// cluster on one GPC) fails in cuLaunchKernelEx with a bare
// CUDA_ERROR_CLUSTER_OUT_OF_RESOURCES. Before a clustered launch shape
// first runs, the runtime asks cuOccupancyMaxActiveClusters (when the
// driver has it) and refuses a shape of which no cluster fits with an
// InvalidLaunchValue that names the shape; the answer is kept per loaded
// kernel set. Clusters of more than 8 blocks need the kernel's
// non-portable attribute, set once per function.
Status Executable::Impl::prepareCluster(const CudaDriver &cu,
                                        LoadedKernels &kernels,
                                        const LaunchConfig &config,
                                        size_t index) {
  ClusterShape shape;
  shape.kernel = config.kernel;
  std::copy(config.cluster, config.cluster + 3, shape.cluster);
  std::copy(config.block, config.block + 3, shape.block);
  shape.dynamicSmem = config.dynamicSmem;
  if (std::find(kernels.residentClusters.begin(),
                kernels.residentClusters.end(),
                shape) != kernels.residentClusters.end())
    return Status::success();
  CUfunction function = kernels.functions[config.kernel];
  const std::string &name = desc.kernels[config.kernel].name;
  uint32_t blocks = config.cluster[0] * config.cluster[1] * config.cluster[2];
  if (blocks > 8 && !kernels.nonPortableClusters[config.kernel]) {
    Status status = cu.check(
        cu.cuFuncSetAttribute(
            function, CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED, 1),
        concat("cuFuncSetAttribute(non-portable cluster size) for launch ",
               index, " (kernel ", name, ")")
            .c_str());
    if (!status.ok())
      return status;
    kernels.nonPortableClusters[config.kernel] = true;
  }
  if (cu.cuOccupancyMaxActiveClusters) {
    CUlaunchAttribute attribute = {};
    attribute.id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
    attribute.value.clusterDim.x = config.cluster[0];
    attribute.value.clusterDim.y = config.cluster[1];
    attribute.value.clusterDim.z = config.cluster[2];
    CUlaunchConfig query = {};
    setLaunchShape(query, config);
    query.attrs = &attribute;
    query.numAttrs = 1;
    int clusters = 0;
    Status status =
        cu.check(cu.cuOccupancyMaxActiveClusters(&clusters, function, &query),
                 concat("cuOccupancyMaxActiveClusters for launch ", index,
                        " (kernel ", name, ")")
                     .c_str());
    if (!status.ok())
      return status;
    if (clusters < 1)
      return Status(
          ErrorCode::InvalidLaunchValue,
          concat("launch ", index, " (kernel ", name, "): no cluster of ",
                 config.cluster[0], "x", config.cluster[1], "x",
                 config.cluster[2], " blocks of ",
                 config.block[0] * config.block[1] * config.block[2],
                 " threads with ", config.dynamicSmem,
                 " bytes of dynamic shared memory each can be resident on "
                 "this device"));
  }
  kernels.residentClusters.push_back(shape);
  return Status::success();
}

Status Executable::Impl::prepareKernels(const CudaDriver &cu,
                                        const CachedPlan &cached,
                                        LoadedKernels &kernels) {
  for (size_t l = 0; l < cached.plan.launches.size(); ++l) {
    const LaunchConfig &config = cached.plan.launches[l];
    if (config.skipped)
      continue;
    if (!kernels.functions[config.kernel]) {
      Status status = loadKernel(cu, kernels, config.kernel);
      if (!status.ok())
        return status;
    }
    uint32_t &limit = kernels.dynamicSmemLimit[config.kernel];
    if (config.dynamicSmem > limit) {
      const std::string &name = desc.kernels[config.kernel].name;
      uint64_t own = kernels.staticSmem[config.kernel];
      if (config.dynamicSmem + own >
          static_cast<uint64_t>(std::max(kernels.deviceSmemOptin, 0)))
        return Status(
            ErrorCode::InvalidLaunchValue,
            concat("launch ", l, " (kernel ", name, "): ", config.dynamicSmem,
                   " bytes of dynamic shared memory",
                   own ? concat(" and ", own, " static") : std::string(),
                   " exceed the device's limit of ", kernels.deviceSmemOptin));
      Status status = cu.check(
          cu.cuFuncSetAttribute(kernels.functions[config.kernel],
                                CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                                static_cast<int>(config.dynamicSmem)),
          concat("cuFuncSetAttribute(max dynamic shared memory) for launch ", l,
                 " (kernel ", name, ")")
              .c_str());
      if (!status.ok())
        return status;
      limit = config.dynamicSmem;
    }
    // After the shared memory limit: the residency query counts with the
    // function's attributes.
    if (config.hasCluster) {
      Status status = prepareCluster(cu, kernels, config, l);
      if (!status.ok())
        return status;
    }
  }
  return Status::success();
}

Status Executable::Impl::allocateBuffers(const CudaDriver &cu,
                                         const EvaluatedPlan &plan,
                                         const Argument *inputs,
                                         const OutputTensor *outputs,
                                         CUcontext context, CUstream stream) {
  const int32_t numInputs = desc.numInputs();
  for (int32_t i = 0; i < numInputs; ++i)
    slotPointers[i] = desc.inputs[i].kind == ArgKind::Tensor
                          ? reinterpret_cast<uint64_t>(inputs[i].data)
                          : 0;
  Status status;
  for (size_t b = 0; b < plan.buffers.size() && status.ok(); ++b) {
    const BufferLayout &layout = plan.buffers[b];
    uint64_t &slot = slotPointers[numInputs + b];
    int32_t output = desc.outputOfBuffer[b];
    slot = 0;
    if (layout.aliasInput >= 0)
      slot = reinterpret_cast<uint64_t>(viewData(layout, inputs));
    else if (output >= 0 && outputs[output].data)
      slot = reinterpret_cast<uint64_t>(outputs[output].data);
    else if (output >= 0 && layout.bytes > 0) {
      status = cu.check(
          cu.cuMemAllocAsync(&allocatedOutputs[output], layout.bytes, stream),
          "cuMemAllocAsync(output)");
      slot = allocatedOutputs[output];
    }
  }
  StreamWorkspace *workspace = nullptr;
  if (status.ok() && plan.intermediateBytes > 0) {
    Expected<StreamWorkspace *> found =
        workspaceFor(cu, context, stream, plan.intermediateBytes);
    if (!found)
      status = found.status();
    else
      workspace = *found;
  }
  if (workspace)
    pool = workspace->base;
  bool keptZeroValid = workspace && workspace->zeroedFor == runningPlan;
  for (size_t b = 0; b < plan.buffers.size() && status.ok(); ++b) {
    const BufferLayout &layout = plan.buffers[b];
    uint64_t &slot = slotPointers[numInputs + b];
    if (layout.kind == BufferKind::Intermediate)
      slot = pool + layout.poolOffset;
    bool zeroed = layout.keptZero && keptZeroValid &&
                  layout.kind == BufferKind::Intermediate;
    if (layout.zeroInit && layout.bytes > 0 && !zeroed)
      status = cu.check(cu.cuMemsetD8Async(slot, 0, layout.bytes, stream),
                        "cuMemsetD8Async");
  }
  // Until the kernels of this call have run, the kept_zero buffers are
  // zero only if they all complete; a failed launch leaves the workspace
  // unclaimed (zeroed again next time).
  callWorkspace = workspace;
  if (workspace)
    workspace->zeroedFor = status.ok() ? runningPlan : nullptr;
  if (!status.ok())
    releaseBuffers(cu, stream);
  return status;
}

Status Executable::Impl::launchKernel(const CudaDriver &cu,
                                      const CachedPlan &cached, size_t index,
                                      const LoadedKernels &kernels,
                                      const Argument *inputs, CUstream stream) {
  const LaunchConfig &launch = cached.plan.launches[index];
  if (launch.skipped)
    return Status::success();
  size_t paramSize = packParams(cached, index, inputs);

  CUlaunchAttribute attributes[2] = {};
  unsigned numAttributes = 0;
  if (launch.hasCluster) {
    attributes[numAttributes].id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
    attributes[numAttributes].value.clusterDim.x = launch.cluster[0];
    attributes[numAttributes].value.clusterDim.y = launch.cluster[1];
    attributes[numAttributes].value.clusterDim.z = launch.cluster[2];
    ++numAttributes;
  }
  if (launch.cooperative) {
    attributes[numAttributes].id = CU_LAUNCH_ATTRIBUTE_COOPERATIVE;
    attributes[numAttributes].value.cooperative = 1;
    ++numAttributes;
  }
  CUlaunchConfig config = {};
  setLaunchShape(config, launch);
  config.hStream = stream;
  config.attrs = numAttributes ? attributes : nullptr;
  config.numAttrs = numAttributes;
  void *extra[] = {CU_LAUNCH_PARAM_BUFFER_POINTER, paramScratch.data(),
                   CU_LAUNCH_PARAM_BUFFER_SIZE, &paramSize,
                   CU_LAUNCH_PARAM_END};
  void **kernelParams =
      launch.byPointer
          ? paramPointers(launch, paramScratch.data(), paramPointerScratch)
          : nullptr;
  CUresult result = cu.cuLaunchKernelEx(
      &config, kernels.functions[launch.kernel], kernelParams,
      paramSize && !kernelParams ? extra : nullptr);
  if (result == CUDA_SUCCESS)
    return Status::success();
  return cu.check(result,
                  concat("cuLaunchKernelEx for launch ", index, " (kernel ",
                         desc.kernels[launch.kernel].name, ")")
                      .c_str());
}

size_t Executable::Impl::packParams(const CachedPlan &cached, size_t index,
                                    const Argument *inputs, size_t offset) {
  const LaunchConfig &launch = cached.plan.launches[index];
  size_t paramSize = launch.params.size();
  if (paramScratch.size() < offset + paramSize)
    paramScratch.resize(offset + paramSize);
  // A kernel without parameters has an empty buffer: no copy (memcpy's
  // pointers must not be null, even for 0 bytes).
  if (paramSize) {
    std::memcpy(paramScratch.data() + offset, launch.params.data(), paramSize);
    applyParamPatches(cached.patches[index], slotPointers.data(), inputs,
                      cached.encodedTensorMaps.data(),
                      paramScratch.data() + offset);
  }
  return paramSize;
}

namespace {

/// The node parameters of `launch`, its packed parameters at `params`.
/// `extra` (5 entries), `pointers` and `size` must outlive the driver call.
CUDA_KERNEL_NODE_PARAMS nodeParams(const LaunchConfig &launch,
                                   CUfunction function, uint8_t *params,
                                   size_t &size, void **extra,
                                   std::vector<void *> &pointers) {
  CUDA_KERNEL_NODE_PARAMS node = {};
  node.func = function;
  setLaunchShape(node, launch);
  size = launch.params.size();
  if (launch.byPointer) {
    node.kernelParams = paramPointers(launch, params, pointers);
  } else if (size) {
    extra[0] = CU_LAUNCH_PARAM_BUFFER_POINTER;
    extra[1] = params;
    extra[2] = CU_LAUNCH_PARAM_BUFFER_SIZE;
    extra[3] = &size;
    extra[4] = CU_LAUNCH_PARAM_END;
    node.extra = extra;
  }
  return node;
}

} // namespace

bool Executable::Impl::wantsGraph(const CudaDriver &cu,
                                  const CachedPlan &cached,
                                  CUstream stream) const {
  if (!launchGraphs || !cached.graphable || !cu.hasGraphs())
    return false;
  // Launches into a stream being captured belong to the caller's graph.
  CUstreamCaptureStatus capture = CU_STREAM_CAPTURE_STATUS_NONE;
  return cu.cuStreamIsCapturing(stream, &capture) == CUDA_SUCCESS &&
         capture == CU_STREAM_CAPTURE_STATUS_NONE;
}

Status Executable::Impl::buildGraph(const CudaDriver &cu,
                                    const CachedPlan &cached,
                                    const LoadedKernels &kernels,
                                    LaunchGraph &entry) {
  Status status = cu.check(cu.cuGraphCreate(&entry.graph, 0), "cuGraphCreate");
  size_t offset = 0;
  for (size_t l = 0; l < cached.plan.launches.size() && status.ok(); ++l) {
    const LaunchConfig &launch = cached.plan.launches[l];
    if (launch.skipped)
      continue;
    entry.launchOfNode.push_back(l);
    entry.paramOffset.push_back(offset);
    offset += launch.params.size();
  }
  entry.params.assign(paramScratch.begin(), paramScratch.begin() + offset);
  for (size_t n = 0; n < entry.launchOfNode.size() && status.ok(); ++n) {
    const LaunchConfig &launch = cached.plan.launches[entry.launchOfNode[n]];
    size_t size = 0;
    void *extra[5] = {};
    CUDA_KERNEL_NODE_PARAMS node =
        nodeParams(launch, kernels.functions[launch.kernel],
                   entry.params.data() + entry.paramOffset[n], size, extra,
                   paramPointerScratch);
    // Each launch after the one before, as on the stream.
    CUgraphNode added = nullptr;
    status = cu.check(cu.cuGraphAddKernelNode(&added, entry.graph,
                                              n ? &entry.nodes.back() : nullptr,
                                              n ? 1 : 0, &node),
                      "cuGraphAddKernelNode");
    if (status.ok())
      entry.nodes.push_back(added);
  }
  if (status.ok())
    status =
        cu.check(cu.cuGraphInstantiateWithFlags(&entry.exec, entry.graph, 0),
                 "cuGraphInstantiateWithFlags");
  if (status.ok())
    ++graphStats.built;
  return status;
}

Status Executable::Impl::launchGraph(const CudaDriver &cu,
                                     const CachedPlan &cached,
                                     const LoadedKernels &kernels,
                                     const Argument *inputs, CUstream stream,
                                     bool &launched) {
  launched = false;
  LaunchGraph *entry = nullptr;
  for (LaunchGraph &g : graphs)
    if (g.plan == &cached && g.stream == stream && g.context == kernels.context)
      entry = &g;
  if (!entry) {
    // The first call of a plan on a stream launches kernel by kernel: a
    // shape seen once does not pay for building a graph.
    if (graphs.size() >= kMaxLaunchGraphs) {
      auto oldest =
          std::min_element(graphs.begin(), graphs.end(),
                           [](const LaunchGraph &a, const LaunchGraph &b) {
                             return a.lastUse < b.lastUse;
                           });
      destroyGraph(*oldest);
      graphs.erase(oldest);
    }
    graphs.emplace_back();
    entry = &graphs.back();
    entry->context = kernels.context;
    entry->stream = stream;
    entry->plan = &cached;
    entry->lastUse = ++graphClock;
    return Status::success();
  }
  entry->lastUse = ++graphClock;
  if (entry->built && !entry->exec)
    return Status::success(); // refused before: kernel by kernel

  // This call's parameters, node after node.
  size_t offset = 0;
  for (size_t l = 0; l < cached.plan.launches.size(); ++l)
    if (!cached.plan.launches[l].skipped)
      offset += packParams(cached, l, inputs, offset);

  if (!entry->built) {
    entry->built = true;
    // A graph the driver refuses is remembered as such (exec stays null):
    // this plan launches kernel by kernel on this stream from now on.
    if (!buildGraph(cu, cached, kernels, *entry).ok()) {
      destroyGraph(*entry);
      return Status::success();
    }
  } else {
    for (size_t n = 0; n < entry->nodes.size(); ++n) {
      const LaunchConfig &launch = cached.plan.launches[entry->launchOfNode[n]];
      size_t bytes = launch.params.size();
      uint8_t *now = entry->params.data() + entry->paramOffset[n];
      const uint8_t *wanted = paramScratch.data() + entry->paramOffset[n];
      if (!bytes || std::memcmp(now, wanted, bytes) == 0)
        continue;
      std::memcpy(now, wanted, bytes);
      size_t size = 0;
      void *extra[5] = {};
      CUDA_KERNEL_NODE_PARAMS node =
          nodeParams(launch, kernels.functions[launch.kernel], now, size, extra,
                     paramPointerScratch);
      Status status = cu.check(cu.cuGraphExecKernelNodeSetParams(
                                   entry->exec, entry->nodes[n], &node),
                               "cuGraphExecKernelNodeSetParams");
      if (!status.ok()) {
        // The graph cannot take this call's parameters: kernel by kernel
        // from now on.
        destroyGraph(*entry);
        return Status::success();
      }
      ++graphStats.nodeUpdates;
    }
  }
  Status status =
      cu.check(cu.cuGraphLaunch(entry->exec, stream), "cuGraphLaunch");
  if (status.ok()) {
    launched = true;
    ++graphStats.launches;
  }
  return status;
}

void Executable::Impl::destroyGraph(LaunchGraph &entry) {
  Expected<const CudaDriver *> driver = CudaDriver::get();
  if (!driver)
    return;
  if (entry.exec)
    (*driver)->cuGraphExecDestroy(entry.exec);
  if (entry.graph)
    (*driver)->cuGraphDestroy(entry.graph);
  entry.exec = nullptr;
  entry.graph = nullptr;
  entry.nodes.clear();
}

Expected<Executable::Impl::StreamWorkspace *>
Executable::Impl::workspaceFor(const CudaDriver &cu, CUcontext context,
                               CUstream stream, int64_t bytes) {
  StreamWorkspace *found = nullptr;
  for (StreamWorkspace &w : workspaces)
    if (w.context == context && w.stream == stream)
      found = &w;
  if (!found) {
    workspaces.push_back(StreamWorkspace{context, stream, 0, 0, nullptr});
    found = &workspaces.back();
  }
  if (found->bytes >= bytes)
    return found;
  // Grow: the old memory is freed after the work already on the stream.
  if (found->base) {
    Status status =
        cu.check(cu.cuMemFreeAsync(found->base, stream), "cuMemFreeAsync");
    found->base = 0;
    found->bytes = 0;
    found->zeroedFor = nullptr;
    if (!status.ok())
      return status;
  }
  CUdeviceptr base = 0;
  Status status =
      cu.check(cu.cuMemAllocAsync(&base, static_cast<size_t>(bytes), stream),
               "cuMemAllocAsync(intermediates)");
  if (!status.ok())
    return status;
  found->base = base;
  found->bytes = bytes;
  found->zeroedFor = nullptr;
  return found;
}

void Executable::Impl::releaseBuffers(const CudaDriver &cu, CUstream stream) {
  // The workspace stays; a failed call's kept_zero buffers are zeroed again
  // by the next call.
  if (callWorkspace)
    callWorkspace->zeroedFor = nullptr;
  callWorkspace = nullptr;
  pool = 0;
  for (CUdeviceptr &output : allocatedOutputs) {
    if (output)
      cu.cuMemFreeAsync(output, stream);
    output = 0;
  }
}

Executable::Impl::~Impl() {
  // Graphs first: their nodes name the modules' functions.
  destroyGraphs();
  if (loaded.empty() && workspaces.empty())
    return;
  Expected<const CudaDriver *> driver = CudaDriver::get();
  if (!driver)
    return;
  // Errors are ignored: the context may be gone already (process exit).
  // The workspaces' streams may be destroyed by now (their handles must not
  // be used): the context is synchronized, so no kernel of any stream still
  // uses a workspace, and the memory is freed in the legacy stream's order.
  // Without cuCtxSynchronize the memory is left to the context's teardown.
  const CudaDriver &cu = **driver;
  CUcontext previous = nullptr;
  if (!workspaces.empty() && cu.cuCtxSynchronize &&
      cu.cuCtxGetCurrent(&previous) == CUDA_SUCCESS) {
    for (StreamWorkspace &w : workspaces) {
      if (!w.base || cu.cuCtxSetCurrent(w.context) != CUDA_SUCCESS ||
          cu.cuCtxSynchronize() != CUDA_SUCCESS)
        continue;
      cu.cuMemFreeAsync(w.base, nullptr);
    }
    cu.cuCtxSetCurrent(previous);
  }
  if (!(*driver)->cuModuleUnload)
    return;
  for (LoadedKernels &kernels : loaded)
    for (CUmodule module : kernels.modules)
      if (module)
        (*driver)->cuModuleUnload(module);
}

//===----------------------------------------------------------------------===//
// Executable
//===----------------------------------------------------------------------===//

Executable::Executable(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Executable::~Executable() = default;

Expected<std::unique_ptr<Executable>> Executable::load(const void *data,
                                                       size_t size) {
  if (!data && size != 0)
    return Status(ErrorCode::InvalidArgument, "module data is null");
  // FlatBuffers reads scalars in place: give it an 8-byte aligned copy.
  std::vector<uint64_t> aligned((size + 7) / 8);
  if (size != 0)
    std::memcpy(aligned.data(), data, size);
  Expected<ModuleDesc> desc = verifyAndDecodeModule(
      reinterpret_cast<const uint8_t *>(aligned.data()), size);
  if (!desc)
    return desc.status();
  return makeExecutable(std::move(*desc),
                        reinterpret_cast<const char *>(aligned.data()), size);
}

std::unique_ptr<Executable>
Executable::makeExecutable(ModuleDesc desc, const char *bytes, size_t size) {
  bool deferred = false;
  for (const KernelDesc &kernel : desc.kernels)
    deferred |= kernel.deferred;
  auto impl = std::make_unique<Impl>(std::move(desc));
  if (deferred)
    impl->moduleBytes.assign(bytes, size);
  return std::unique_ptr<Executable>(new Executable(std::move(impl)));
}

namespace {

/// What a file that is not a regular one is, for messages.
const char *fileTypeName(mode_t mode) {
  if (S_ISDIR(mode))
    return "a directory";
  if (S_ISCHR(mode))
    return "a character device";
  if (S_ISBLK(mode))
    return "a block device";
  if (S_ISFIFO(mode))
    return "a FIFO";
  if (S_ISSOCK(mode))
    return "a socket";
  return "not a file";
}

/// Closes a file descriptor at the end of a scope.
struct FileDescriptor {
  int fd = -1;
  ~FileDescriptor() {
    if (fd >= 0)
      ::close(fd);
  }
};

/// Reads up to `size` bytes at the file position; fewer only at the end of
/// the file.
Expected<size_t> readFully(int fd, uint8_t *out, size_t size) {
  size_t done = 0;
  while (done < size) {
    ssize_t got = ::read(fd, out + done, size - done);
    if (got < 0 && errno == EINTR)
      continue;
    if (got < 0)
      return Status(ErrorCode::FileError, std::strerror(errno));
    if (got == 0)
      break;
    done += static_cast<size_t>(got);
  }
  return done;
}

} // namespace

/// Note [Module file reading]: only a regular file is opened (stat first,
/// so that a FIFO is never opened and a device never read; the open is
/// non-blocking and fstat checks the opened file again). The 8-byte header
/// is read and checked first, then the size against kMaxModuleFileBytes,
/// and only then the rest, straight into the 8-byte aligned buffer the
/// FlatBuffers verifier reads.
Expected<std::unique_ptr<Executable>>
Executable::loadFile(const std::string &path) {
  auto fileError = [&](const std::string &what) {
    return Status(ErrorCode::FileError,
                  concat("module file '", path, "' ", what));
  };
  auto withPath = [&](const Status &status) {
    return Status(status.code(), concat(path, ": ", status.message()));
  };
  struct stat info;
  if (::stat(path.c_str(), &info) != 0)
    return Status(
        ErrorCode::FileError,
        concat("cannot open module file '", path, "': ", std::strerror(errno)));
  if (!S_ISREG(info.st_mode))
    return fileError(
        concat("is not a regular file (", fileTypeName(info.st_mode), ")"));
  FileDescriptor file;
  file.fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (file.fd < 0)
    return Status(
        ErrorCode::FileError,
        concat("cannot open module file '", path, "': ", std::strerror(errno)));
  if (::fstat(file.fd, &info) != 0)
    return fileError(concat("cannot be read: ", std::strerror(errno)));
  if (!S_ISREG(info.st_mode))
    return fileError(
        concat("is not a regular file (", fileTypeName(info.st_mode), ")"));

  uint8_t header[kModuleHeaderBytes] = {};
  Expected<size_t> headerBytes = readFully(file.fd, header, sizeof(header));
  if (!headerBytes)
    return fileError(
        concat("cannot be read: ", headerBytes.status().message()));
  Status status = checkModuleHeader(header, *headerBytes);
  if (!status.ok())
    return withPath(status);
  auto size = static_cast<uint64_t>(info.st_size);
  if (size > kMaxModuleFileBytes)
    return fileError(concat("is ", size, " bytes, larger than the limit of ",
                            kMaxModuleFileBytes, " bytes (1 GiB)"));
  size = std::max<uint64_t>(size, kModuleHeaderBytes);

  // FlatBuffers reads scalars in place: an 8-byte aligned buffer.
  std::vector<uint64_t> aligned((size + 7) / 8);
  auto *bytes = reinterpret_cast<uint8_t *>(aligned.data());
  std::memcpy(bytes, header, kModuleHeaderBytes);
  Expected<size_t> rest =
      readFully(file.fd, bytes + kModuleHeaderBytes, size - kModuleHeaderBytes);
  if (!rest)
    return fileError(concat("cannot be read: ", rest.status().message()));
  // A file that shrank since fstat is short: the verifier rejects it as
  // truncated. Growth past the size is not read.
  Expected<ModuleDesc> desc =
      verifyAndDecodeModule(bytes, kModuleHeaderBytes + *rest);
  if (!desc)
    return withPath(desc.status());
  return makeExecutable(std::move(*desc), reinterpret_cast<const char *>(bytes),
                        kModuleHeaderBytes + *rest);
}

const ModuleInfo &Executable::info() const { return impl_->info; }

bool Executable::kernelBuilt(size_t index) const {
  std::lock_guard<std::mutex> lock(impl_->mutex);
  if (index >= impl_->desc.kernels.size())
    return false;
  const KernelDesc &kernel = impl_->desc.kernels[index];
  return !kernel.ptx.empty() || !kernel.cubin.empty();
}

uint64_t Executable::kernelsBuiltSinceLoad() const {
  std::lock_guard<std::mutex> lock(impl_->mutex);
  return impl_->kernelsBuilt;
}

Expected<EvaluatedPlan> Executable::plan(const Argument *inputs,
                                         size_t numInputs) {
  std::lock_guard<std::mutex> lock(impl_->mutex);
  Expected<const CachedPlan *> found =
      impl_->findPlan(inputs, numInputs, nullptr);
  if (!found)
    return found.status();
  EvaluatedPlan plan = (*found)->plan;
  // Show this call's input pointers and scalars in the parameters; buffers
  // the runtime would allocate stay 0.
  const ModuleDesc &desc = impl_->desc;
  std::vector<uint64_t> slots(desc.numSlots(), 0);
  for (int32_t i = 0; i < desc.numInputs(); ++i)
    if (desc.inputs[i].kind == ArgKind::Tensor)
      slots[i] = reinterpret_cast<uint64_t>(inputs[i].data);
  for (size_t b = 0; b < desc.buffers.size(); ++b)
    if (plan.buffers[b].aliasInput >= 0)
      slots[desc.numInputs() + b] =
          reinterpret_cast<uint64_t>(viewData(plan.buffers[b], inputs));
  for (size_t l = 0; l < plan.launches.size(); ++l)
    applyParamPatches((*found)->patches[l], slots.data(), inputs,
                      /*tensorMaps=*/nullptr, plan.launches[l].params.data());
  return plan;
}

Status Executable::inferOutputs(const Argument *inputs, size_t numInputs,
                                OutputTensor *outputs, size_t numOutputs) {
  std::lock_guard<std::mutex> lock(impl_->mutex);
  const ModuleDesc &desc = impl_->desc;
  if (numOutputs != desc.outputs.size())
    return Status(ErrorCode::WrongOutput,
                  concat("wrong number of outputs: expected ",
                         desc.outputs.size(), ", got ", numOutputs));
  if (numOutputs != 0 && !outputs)
    return Status(ErrorCode::InvalidArgument, "outputs is null");
  Expected<const CachedPlan *> found =
      impl_->findPlan(inputs, numInputs, nullptr);
  if (!found)
    return found.status();
  for (size_t o = 0; o < numOutputs; ++o) {
    impl_->fillOutput(**found, o, outputs[o]);
    const BufferLayout &layout = (*found)->plan.output(o);
    // A view's data is known now; the others are for the caller to provide.
    outputs[o].data =
        layout.aliasInput >= 0 ? viewData(layout, inputs) : nullptr;
    outputs[o].allocated = 0;
  }
  return Status::success();
}

Status Executable::run(const Argument *inputs, size_t numInputs,
                       OutputTensor *outputs, size_t numOutputs, void *stream) {
  std::lock_guard<std::mutex> lock(impl_->mutex);
  return impl_->run(inputs, numInputs, outputs, numOutputs,
                    static_cast<CUstream>(stream));
}

PlanCacheStats Executable::cacheStats() const {
  std::lock_guard<std::mutex> lock(impl_->mutex);
  PlanCacheStats stats = impl_->stats;
  stats.entries = impl_->cache.size();
  return stats;
}

void Executable::setLaunchGraphs(bool enabled) {
  std::lock_guard<std::mutex> lock(impl_->mutex);
  impl_->launchGraphs = enabled;
  if (!enabled)
    impl_->destroyGraphs();
}

LaunchGraphStats Executable::launchGraphStats() const {
  std::lock_guard<std::mutex> lock(impl_->mutex);
  LaunchGraphStats stats = impl_->graphStats;
  stats.entries = 0;
  for (const Impl::LaunchGraph &entry : impl_->graphs)
    stats.entries += entry.exec != nullptr;
  return stats;
}

void Executable::clearCache() {
  std::lock_guard<std::mutex> lock(impl_->mutex);
  impl_->cache.clear();
  impl_->forgetZeroedPlans();
  impl_->lastPlan = nullptr;
  impl_->lastKey.clear();
  impl_->stats.entries = 0;
}

} // namespace fusion::runtime
