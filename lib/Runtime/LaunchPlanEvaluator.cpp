// The launch-plan evaluator: everything the runtime computes once per input
// signature, so the steady-state launch path only patches and launches.
#include "LaunchPlanEvaluator.h"

#include "ExprEvaluator.h"
#include "Format.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>

namespace fusion::runtime {

namespace {

// Runtime-allocated buffers start at multiples of this (cuMemAllocAsync
// guarantees 256 bytes); the intermediate pool keeps its parts aligned too.
constexpr int64_t kAllocationAlignment = 256;
constexpr int64_t kMaxThreadsPerBlock = 1024;
// Blocks of a thread block cluster: 8 portably, 16 on sm_90 with the
// non-portable attribute (Executable.cpp sets it above 8).
constexpr int64_t kMaxClusterBlocks = 16;
constexpr int64_t kMaxUint32 = std::numeric_limits<uint32_t>::max();

Status checkInputShapes(const ModuleDesc &desc, const Argument *inputs,
                        std::vector<int64_t> &numElements) {
  numElements.assign(desc.inputs.size(), 1);
  for (int32_t i = 0; i < desc.numInputs(); ++i) {
    const InputDesc &spec = desc.inputs[i];
    if (spec.kind != ArgKind::Tensor)
      continue;
    const Argument &arg = inputs[i];
    int64_t count = 1;
    for (int64_t d = 0; d < spec.rank(); ++d) {
      int64_t size = arg.sizes[d];
      if (size < 0)
        return Status(ErrorCode::WrongSize,
                      concat(desc.inputLabel(i), ": dim ", d,
                             " has negative size ", size));
      if (spec.sizes[d] >= 0 && size != spec.sizes[d])
        return Status(ErrorCode::WrongSize,
                      concat(desc.inputLabel(i), ": dim ", d, " expected ",
                             spec.sizes[d], ", got ", size));
      if (__builtin_mul_overflow(count, size, &count))
        return Status(
            ErrorCode::WrongSize,
            concat(desc.inputLabel(i), ": number of elements overflows int64"));
    }
    numElements[i] = count;
  }
  return Status::success();
}

Status checkConstraints(const ModuleDesc &desc, const std::vector<int64_t> &r) {
  for (const CheckDesc &check : desc.checks) {
    if (r[check.lhs] == r[check.rhs])
      continue;
    std::string what = check.message.empty()
                           ? concat("r", check.lhs, " == r", check.rhs)
                           : check.message;
    return Status(ErrorCode::ConstraintViolation,
                  concat("input constraint violated: ", what, " (",
                         r[check.lhs], " != ", r[check.rhs], ")"));
  }
  return Status::success();
}

/// Elements spanned in memory by a strided layout: 1 + sum((size-1)*stride),
/// 0 when empty; -1 on overflow.
int64_t stridedExtent(int64_t rank, const int64_t *sizes,
                      const int64_t *strides) {
  int64_t extent = 1;
  for (int64_t d = 0; d < rank; ++d) {
    if (sizes[d] == 0)
      return 0;
    int64_t term = 0;
    if (__builtin_mul_overflow(sizes[d] - 1, strides[d], &term) ||
        __builtin_add_overflow(extent, term, &extent))
      return -1;
  }
  return extent;
}

std::string bufferLabel(const ModuleDesc &desc, size_t buffer) {
  int32_t output = desc.outputOfBuffer[buffer];
  if (output >= 0)
    return concat("output ", output, " (buffer ", buffer, ")");
  return concat("intermediate buffer ", buffer);
}

Status layoutBuffer(const ModuleDesc &desc, size_t index,
                    const std::vector<int64_t> &r, const Argument *inputs,
                    BufferLayout &layout) {
  const BufferDesc &buffer = desc.buffers[index];
  auto invalid = [&](const std::string &what) {
    return Status(ErrorCode::InvalidLaunchValue,
                  concat(bufferLabel(desc, index), ": ", what));
  };
  layout.kind = buffer.kind;
  layout.dtype = buffer.dtype;
  layout.rank = static_cast<int32_t>(buffer.sizes.size());
  layout.zeroInit = buffer.zeroInit;
  layout.keptZero = buffer.keptZero;
  layout.aliasInput = buffer.aliasInput;
  layout.numElements = 1;
  for (int32_t d = 0; d < layout.rank; ++d) {
    layout.sizes[d] = r[buffer.sizes[d]];
    if (layout.sizes[d] < 0)
      return invalid(concat("dim ", d, " has negative size ", layout.sizes[d]));
    if (__builtin_mul_overflow(layout.numElements, layout.sizes[d],
                               &layout.numElements))
      return invalid("number of elements overflows int64");
  }
  if (!buffer.strides.empty()) {
    for (int32_t d = 0; d < layout.rank; ++d) {
      layout.strides[d] = r[buffer.strides[d]];
      if (layout.strides[d] < 0)
        return invalid(
            concat("dim ", d, " has negative stride ", layout.strides[d]));
    }
  } else {
    // Row-major; a size-0 or size-1 dim does not change the stride (PyTorch's
    // convention, so that caller-provided contiguous outputs compare equal).
    // An empty buffer's element count cannot overflow, its strides can (the
    // other dims' product): found by fusion-fuzz-module.
    int64_t stride = 1;
    for (int32_t d = layout.rank - 1; d >= 0; --d) {
      layout.strides[d] = stride;
      if (d > 0 && __builtin_mul_overflow(
                       stride, std::max<int64_t>(layout.sizes[d], 1), &stride))
        return invalid(
            concat("the row-major stride of dim ", d - 1, " overflows int64"));
    }
  }
  int64_t extent = stridedExtent(layout.rank, layout.sizes, layout.strides);
  if (extent < 0 || __builtin_mul_overflow(extent, dtypeByteSize(layout.dtype),
                                           &layout.bytes))
    return invalid("size in bytes overflows int64");
  layout.aliasOffset = buffer.aliasOffset >= 0 ? r[buffer.aliasOffset] : 0;
  if (layout.aliasInput >= 0) {
    // A view must stay inside the input it views: its first element at
    // aliasOffset, its last extent - 1 elements further.
    if (layout.aliasOffset < 0)
      return invalid(concat("a view of ", desc.inputLabel(layout.aliasInput),
                            " starts at element ", layout.aliasOffset));
    int64_t viewBytes = layout.bytes;
    if (extent > 0 &&
        __builtin_mul_overflow(layout.aliasOffset, dtypeByteSize(layout.dtype),
                               &viewBytes))
      return invalid("offset in bytes overflows int64");
    if (extent > 0 &&
        __builtin_add_overflow(viewBytes, layout.bytes, &viewBytes))
      return invalid("offset in bytes overflows int64");
    const Argument &input = inputs[layout.aliasInput];
    std::vector<int64_t> strides(input.rank);
    for (int64_t d = 0; d < input.rank; ++d)
      strides[d] = argumentStride(input, d);
    int64_t inputExtent =
        stridedExtent(input.rank, input.sizes, strides.data());
    int64_t inputBytes = 0;
    if (inputExtent < 0 ||
        __builtin_mul_overflow(inputExtent, dtypeByteSize(input.dtype),
                               &inputBytes) ||
        viewBytes > inputBytes)
      return invalid(concat("a view of ", desc.inputLabel(layout.aliasInput),
                            " needs ", viewBytes, " bytes, the input has ",
                            inputBytes));
  }
  return Status::success();
}

Status layoutBuffers(const ModuleDesc &desc, const std::vector<int64_t> &r,
                     const Argument *inputs, EvaluatedPlan &plan) {
  plan.buffers.resize(desc.buffers.size());
  plan.intermediateBytes = 0;
  for (size_t b = 0; b < desc.buffers.size(); ++b) {
    BufferLayout &layout = plan.buffers[b];
    Status status = layoutBuffer(desc, b, r, inputs, layout);
    if (!status.ok())
      return status;
    if (layout.kind != BufferKind::Intermediate)
      continue;
    // All intermediates of a call share one allocation.
    int64_t offset = (plan.intermediateBytes + kAllocationAlignment - 1) /
                     kAllocationAlignment * kAllocationAlignment;
    layout.poolOffset = offset;
    if (__builtin_add_overflow(offset, layout.bytes, &plan.intermediateBytes))
      return Status(ErrorCode::InvalidLaunchValue,
                    "intermediate buffers: total size overflows int64");
  }
  plan.outputBuffers = desc.outputs;
  return Status::success();
}

/// Note [Parameter packing]: parameters are laid out like the fields of a C
/// struct: each at the next multiple of its size (pointers, i64, f64: 8;
/// i32, f32: 4), with no padding after the last one. Registers are written
/// now; pointers and scalar inputs are recorded as patches for each call.
Status packParams(const VariantDesc &variant, const std::vector<int64_t> &r,
                  const std::string &label, LaunchConfig &config,
                  std::vector<ParamPatch> &patches) {
  uint32_t offset = 0;
  for (const ParamDesc &param : variant.params) {
    uint32_t size = paramBytes(param.kind);
    uint32_t align = paramAlignment(param.kind);
    offset = (offset + align - 1) / align * align;
    config.fields.push_back({param.kind, param.value, offset, size});
    config.byPointer |= align > 16;
    offset += size;
  }
  config.params.assign(offset, 0);
  for (size_t p = 0; p < config.fields.size(); ++p) {
    const ParamField &field = config.fields[p];
    uint8_t *dst = config.params.data() + field.offset;
    if (field.kind == ParamKind::I64) {
      std::memcpy(dst, &r[field.value], 8);
    } else if (field.kind == ParamKind::I32) {
      int64_t value = r[field.value];
      if (value < std::numeric_limits<int32_t>::min() ||
          value > std::numeric_limits<int32_t>::max())
        return Status(ErrorCode::IntegerOverflow,
                      concat(label, ": param ", p, " (i32 register r",
                             field.value, ") = ", value,
                             " does not fit in i32"));
      int32_t narrow = static_cast<int32_t>(value);
      std::memcpy(dst, &narrow, 4);
    } else {
      patches.push_back({field.offset, field.kind, field.value});
    }
  }
  return Status::success();
}

/// Note [Tensor maps]: the copy engine's rules on the global tensor
/// (cuTensorMapEncodeTiled's): a 16-byte aligned address, every size in
/// [1, 2^32], the innermost stride 1, every other stride a multiple of 16
/// bytes below 2^40 that steps over the dims inside it (no overlap). The
/// stride of a dim of size 1 is never used, so it is not checked (PyTorch
/// gives such dims any stride): the map gets one that keeps the rules.
TensorMapGeometry evaluateTensorMap(const TensorMapDesc &map,
                                    const std::vector<int64_t> &r,
                                    bool aligned) {
  TensorMapGeometry g;
  g.rank = map.rank();
  int64_t element = dtypeByteSize(map.dtype);
  auto fail = [&](std::string why) {
    g.whyNot = std::move(why);
    return g;
  };
  if (!aligned)
    return fail("the pointer is not 16-byte aligned");
  int64_t inside = element; // bytes spanned by the dims inside this one
  for (int32_t k = 0; k < g.rank; ++k) {
    int32_t d = g.rank - 1 - k; // the module's dim, outermost first
    int64_t size = r[map.sizes[d]];
    int64_t stride = r[map.strides[d]];
    if (size < 1 || size > (int64_t(1) << 32))
      return fail(concat("dim ", d, " has size ", size, " (1 to 2^32)"));
    g.dims[k] = static_cast<uint64_t>(size);
    g.box[k] = map.box[d];
    if (k == 0) {
      if (stride != 1 && size != 1)
        return fail(
            concat("the innermost dim has stride ", stride, " (it must be 1)"));
    } else {
      int64_t bytes = 0;
      if (size == 1)
        bytes = std::max<int64_t>((inside + 15) / 16 * 16, 16);
      else if (__builtin_mul_overflow(stride, element, &bytes))
        bytes = -1;
      if (bytes < inside || bytes % 16 != 0 || bytes >= (int64_t(1) << 40))
        return fail(concat("dim ", d, " has a stride of ", stride * element,
                           " bytes (a multiple of 16 below 2^40, at least ",
                           inside, ")"));
      g.strides[k - 1] = static_cast<uint64_t>(bytes);
      inside = bytes;
    }
    if (__builtin_mul_overflow(inside, size, &inside))
      inside = std::numeric_limits<int64_t>::max();
  }
  g.usable = true;
  return g;
}

/// FUSION_RUNTIME_DEBUG=1: the runtime says on stderr why it did not take
/// a variant whose guard held (read when a plan is evaluated, once per
/// signature: plans are cached).
bool runtimeDebug() {
  const char *v = std::getenv("FUSION_RUNTIME_DEBUG");
  return v && *v && std::strcmp(v, "0") != 0;
}

Status configureLaunch(const ModuleDesc &desc, size_t index,
                       const std::vector<int64_t> &r,
                       const std::vector<TensorMapGeometry> &tensorMaps,
                       LaunchConfig &config, std::vector<ParamPatch> &patches) {
  const LaunchDesc &launch = desc.launches[index];
  int32_t chosen = -1;
  for (size_t v = 0; v < launch.variants.size() && chosen < 0; ++v) {
    const VariantDesc &variant = launch.variants[v];
    if (variant.guard >= 0 && r[variant.guard] == 0)
      continue;
    // A variant whose tensor maps break the rules for this call is not
    // taken (never an error): the next one is.
    const TensorMapGeometry *broken = nullptr;
    int32_t brokenIndex = -1;
    for (const ParamDesc &param : variant.params)
      if (param.kind == ParamKind::TensorMap &&
          !tensorMaps[param.value].usable && !broken) {
        broken = &tensorMaps[param.value];
        brokenIndex = param.value;
      }
    if (broken) {
      if (runtimeDebug())
        std::fprintf(stderr,
                     "fusion runtime: launch %zu: variant %zu (kernel %s) not "
                     "taken: tensor map %d: %s\n",
                     index, v, desc.kernels[variant.kernel].name.c_str(),
                     brokenIndex, broken->whyNot.c_str());
      continue;
    }
    chosen = static_cast<int32_t>(v);
  }
  if (chosen < 0)
    return Status(ErrorCode::NoLaunchVariant,
                  concat("launch ", index, ": none of its ",
                         launch.variants.size(), " variants has a true guard"));
  const VariantDesc &variant = launch.variants[chosen];
  config.kernel = variant.kernel;
  config.variant = chosen;
  std::string label = concat("launch ", index, " (kernel ",
                             desc.kernels[variant.kernel].name, ")");
  auto outOfRange = [&](const char *what, int k, int64_t value) {
    return Status(ErrorCode::InvalidLaunchValue,
                  concat(label, ": ", what, ".", "xyz"[k], " = ", value,
                         " is out of range"));
  };
  for (int k = 0; k < 3; ++k) {
    int64_t value = r[variant.grid[k]];
    if (value < 0 || value > kMaxUint32)
      return outOfRange("grid", k, value);
    config.grid[k] = static_cast<uint32_t>(value);
    // Note [Empty launches]: a grid dim of 0 means there is no work (empty
    // tensors); CUDA rejects such a launch, so the runtime skips it.
    config.skipped |= value == 0;
  }
  if (!config.skipped) {
    int64_t threads = 1;
    for (int k = 0; k < 3; ++k) {
      int64_t value = r[variant.block[k]];
      if (value < 1 || value > kMaxThreadsPerBlock)
        return outOfRange("block", k, value);
      config.block[k] = static_cast<uint32_t>(value);
      threads *= value;
    }
    if (threads > kMaxThreadsPerBlock)
      return Status(ErrorCode::InvalidLaunchValue,
                    concat(label, ": ", threads, " threads per block exceed ",
                           kMaxThreadsPerBlock));
    config.hasCluster = variant.hasCluster;
    int64_t clusterBlocks = 1;
    for (int k = 0; k < 3 && variant.hasCluster; ++k) {
      int64_t value = r[variant.cluster[k]];
      if (value < 1 || value > kMaxUint32)
        return outOfRange("cluster", k, value);
      config.cluster[k] = static_cast<uint32_t>(value);
      // CUDA launches whole clusters only.
      if (config.grid[k] % value != 0)
        return Status(ErrorCode::InvalidLaunchValue,
                      concat(label, ": grid.", "xyz"[k], " = ", config.grid[k],
                             " is not a multiple of cluster.", "xyz"[k], " = ",
                             value));
      clusterBlocks *= value;
      if (clusterBlocks > kMaxClusterBlocks)
        return Status(ErrorCode::InvalidLaunchValue,
                      concat(label, ": a cluster of more than ",
                             kMaxClusterBlocks, " blocks"));
    }
    config.cooperative = variant.cooperative;
    if (variant.dynamicSmem >= 0) {
      int64_t value = r[variant.dynamicSmem];
      if (value < 0 || value > kMaxUint32)
        return Status(ErrorCode::InvalidLaunchValue,
                      concat(label, ": dynamic shared memory ", value,
                             " is out of range"));
      config.dynamicSmem = static_cast<uint32_t>(value);
    }
  }
  return packParams(variant, r, label, config, patches);
}

} // namespace

Expected<CachedPlan> evaluateLaunchPlan(const ModuleDesc &desc,
                                        const Argument *inputs,
                                        const uint8_t *ptrAligned) {
  CachedPlan cached;
  Status status = checkInputShapes(desc, inputs, cached.inputNumElements);
  if (!status.ok())
    return status;
  Expected<std::vector<int64_t>> registers =
      evaluateExprProgram(desc, inputs, ptrAligned);
  if (!registers)
    return registers.status();
  EvaluatedPlan &plan = cached.plan;
  plan.registers = std::move(*registers);
  status = checkConstraints(desc, plan.registers);
  if (!status.ok())
    return status;
  status = layoutBuffers(desc, plan.registers, inputs, plan);
  if (!status.ok())
    return status;
  // After the PtrAligned values: whether each tensor map's pointer is
  // 16-byte aligned.
  const uint8_t *mapAligned = ptrAligned + desc.ptrAlignedExprs.size();
  for (size_t m = 0; m < desc.tensorMaps.size(); ++m)
    cached.tensorMaps.push_back(evaluateTensorMap(
        desc.tensorMaps[m], plan.registers, mapAligned[m] != 0));
  cached.encodedTensorMaps.resize(desc.tensorMaps.size());
  plan.launches.resize(desc.launches.size());
  cached.patches.resize(desc.launches.size());
  for (size_t l = 0; l < desc.launches.size(); ++l) {
    status = configureLaunch(desc, l, plan.registers, cached.tensorMaps,
                             plan.launches[l], cached.patches[l]);
    if (!status.ok())
      return status;
    for (const ParamPatch &patch : cached.patches[l])
      if (patch.kind == ParamKind::TensorMap && !plan.launches[l].skipped &&
          std::find(cached.usedTensorMaps.begin(), cached.usedTensorMaps.end(),
                    patch.value) == cached.usedTensorMaps.end())
        cached.usedTensorMaps.push_back(patch.value);
  }
  return cached;
}

void applyParamPatches(const std::vector<ParamPatch> &patches,
                       const uint64_t *slotPointers, const Argument *inputs,
                       const EncodedTensorMap *tensorMaps, uint8_t *params) {
  for (const ParamPatch &patch : patches) {
    uint8_t *dst = params + patch.offset;
    switch (patch.kind) {
    case ParamKind::Pointer:
      std::memcpy(dst, &slotPointers[patch.value], 8);
      break;
    case ParamKind::ScalarF64:
      std::memcpy(dst, &inputs[patch.value].floatValue, 8);
      break;
    case ParamKind::ScalarF32: {
      float value = static_cast<float>(inputs[patch.value].floatValue);
      std::memcpy(dst, &value, 4);
      break;
    }
    case ParamKind::ScalarI64:
      std::memcpy(dst, &inputs[patch.value].intValue, 8);
      break;
    case ParamKind::I64:
    case ParamKind::I32:
      break; // Written at evaluation time.
    case ParamKind::TensorMap:
      // Encoded per call by the executable (Note [Tensor maps]).
      if (tensorMaps)
        std::memcpy(dst, tensorMaps[patch.value].bytes, 128);
      break;
    }
  }
}

} // namespace fusion::runtime
