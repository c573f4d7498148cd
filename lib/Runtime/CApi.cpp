// The C API (fusion_runtime.h): a thin layer over the C++ API that turns
// Status into int codes plus a thread-local message, and never throws.
#include "fusion/Runtime/fusion_runtime.h"
#include "fusion/Version.h"

#include "fusion/Runtime/Executable.h"

#include "Format.h"

#include <cstddef>
#include <cstring>
#include <limits>
#include <new>
#include <string>
#include <vector>

using namespace fusion::runtime;

struct fusion_executable {
  std::unique_ptr<Executable> executable;
};

struct fusion_plan {
  EvaluatedPlan plan;
};

// The C structs are the C++ structs seen from C: arguments pass through
// without copying. Any drift between the two breaks the build here.
#define FUSION_SAME_FIELD(c, cxx, cField, cxxField)                            \
  static_assert(offsetof(c, cField) == offsetof(cxx, cxxField) &&              \
                    sizeof(c::cField) == sizeof(cxx::cxxField),                \
                #c "." #cField " must match " #cxx "." #cxxField)
static_assert(sizeof(fusion_arg) == sizeof(Argument));
FUSION_SAME_FIELD(fusion_arg, Argument, kind, kind);
FUSION_SAME_FIELD(fusion_arg, Argument, dtype, dtype);
FUSION_SAME_FIELD(fusion_arg, Argument, data, data);
FUSION_SAME_FIELD(fusion_arg, Argument, rank, rank);
FUSION_SAME_FIELD(fusion_arg, Argument, sizes, sizes);
FUSION_SAME_FIELD(fusion_arg, Argument, strides, strides);
FUSION_SAME_FIELD(fusion_arg, Argument, int_value, intValue);
FUSION_SAME_FIELD(fusion_arg, Argument, float_value, floatValue);
static_assert(sizeof(fusion_tensor) == sizeof(OutputTensor));
FUSION_SAME_FIELD(fusion_tensor, OutputTensor, data, data);
FUSION_SAME_FIELD(fusion_tensor, OutputTensor, dtype, dtype);
FUSION_SAME_FIELD(fusion_tensor, OutputTensor, rank, rank);
FUSION_SAME_FIELD(fusion_tensor, OutputTensor, sizes, sizes);
FUSION_SAME_FIELD(fusion_tensor, OutputTensor, strides, strides);
FUSION_SAME_FIELD(fusion_tensor, OutputTensor, allocated, allocated);
#undef FUSION_SAME_FIELD
static_assert(FUSION_MAX_RANK == kMaxRank);
static_assert(FUSION_ERROR_CUDA == static_cast<int>(ErrorCode::CudaError));
static_assert(FUSION_ERROR_MISALIGNED_POINTER ==
              static_cast<int>(ErrorCode::MisalignedPointer));
static_assert(FUSION_ERROR_KERNEL_NOT_BUILT ==
              static_cast<int>(ErrorCode::KernelNotBuilt));
static_assert(FUSION_ERROR_WRONG_OUTPUT ==
              static_cast<int>(ErrorCode::WrongOutput));
static_assert(FUSION_DTYPE_F8E5M2 == static_cast<int>(DType::F8E5M2));
static_assert(FUSION_ARG_SCALAR == static_cast<int>(ArgKind::Scalar));
static_assert(FUSION_PACKED_SIZES + FUSION_MAX_RANK == FUSION_PACKED_STRIDES &&
                  FUSION_PACKED_STRIDES + FUSION_MAX_RANK ==
                      FUSION_PACKED_OFFSET &&
                  FUSION_PACKED_OFFSET + 1 == FUSION_PACKED_WORDS,
              "a packed record holds kMaxRank sizes and strides, then the "
              "offset of a view");

namespace {

thread_local int lastErrorCode = FUSION_OK;
thread_local std::string lastErrorMessage;

int fail(ErrorCode code, const std::string &message) {
  lastErrorCode = static_cast<int>(code);
  lastErrorMessage = message;
  return lastErrorCode;
}

int report(const Status &status) {
  return status.ok() ? FUSION_OK : fail(status.code(), status.message());
}

/// Runs `body` (which returns a status code), turning exceptions into codes:
/// nothing may unwind into C or Python.
template <typename Body> int guarded(Body body) {
  try {
    return body();
  } catch (const std::bad_alloc &) {
    return fail(ErrorCode::InvalidArgument, "out of host memory");
  } catch (...) {
    return fail(ErrorCode::InvalidArgument, "unexpected C++ exception");
  }
}

int nullArgument(const char *what) {
  return fail(ErrorCode::InvalidArgument, std::string(what) + " is null");
}

int badIndex(const char *what, int index, size_t count) {
  return fail(ErrorCode::InvalidArgument,
              std::string(what) + " index " + std::to_string(index) +
                  " out of range [0, " + std::to_string(count) + ")");
}

const Argument *asArguments(const fusion_arg *inputs) {
  return reinterpret_cast<const Argument *>(inputs);
}

OutputTensor *asOutputs(fusion_tensor *outputs) {
  return reinterpret_cast<OutputTensor *>(outputs);
}

/// A record word that must fit an int32 field (kind, dtype, rank); values
/// out of range become -1, which every check rejects.
int32_t narrowWord(int64_t word) {
  if (word < std::numeric_limits<int32_t>::min() ||
      word > std::numeric_limits<int32_t>::max())
    return -1;
  return static_cast<int32_t>(word);
}

/// Per-thread scratch of the packed entry points: Arguments and
/// OutputTensors that view the caller's records, reused across calls.
struct PackedScratch {
  std::vector<Argument> inputs;
  std::vector<OutputTensor> outputs;
};
thread_local PackedScratch packedScratch;

/// Note [Packed records]: an input record becomes an Argument whose sizes
/// and strides point into the record. Argument::rank keeps the full word:
/// the signature check compares it with the module's rank (at most 8)
/// before reading sizes, so a record never is read past its end.
int unpackInputs(void *const *data, const int64_t *records, size_t count,
                 std::vector<Argument> &args) {
  if (count != 0 && !data)
    return nullArgument("input_data");
  if (count != 0 && !records)
    return nullArgument("input_records");
  args.resize(count);
  for (size_t i = 0; i < count; ++i) {
    const int64_t *record = records + i * FUSION_PACKED_WORDS;
    Argument &arg = args[i];
    arg.kind = static_cast<ArgKind>(narrowWord(record[FUSION_PACKED_KIND]));
    arg.dtype = static_cast<DType>(narrowWord(record[FUSION_PACKED_DTYPE]));
    arg.data = data[i];
    arg.rank = record[FUSION_PACKED_RANK];
    arg.sizes = record + FUSION_PACKED_SIZES;
    arg.strides = record + FUSION_PACKED_STRIDES;
    arg.intValue = record[FUSION_PACKED_VALUE];
    std::memcpy(&arg.floatValue, record + FUSION_PACKED_VALUE, sizeof(double));
  }
  return FUSION_OK;
}

int adopt(Expected<std::unique_ptr<Executable>> loaded,
          fusion_executable **out) {
  if (!loaded)
    return report(loaded.status());
  *out = new fusion_executable{std::move(*loaded)};
  return FUSION_OK;
}

} // namespace

extern "C" {

int fusion_last_error_code(void) { return lastErrorCode; }

const char *fusion_last_error_message(void) { return lastErrorMessage.c_str(); }

const char *fusion_error_code_name(int code) {
  return errorCodeName(static_cast<ErrorCode>(code));
}

const char *fusion_runtime_version(void) { return FUSION_VERSION_STRING; }

uint32_t fusion_module_format_version(void) { return kModuleFormatVersion; }

const char *fusion_dtype_name(int dtype) {
  return dtypeName(static_cast<DType>(dtype));
}

int64_t fusion_dtype_size(int dtype) {
  return dtypeByteSize(static_cast<DType>(dtype));
}

int fusion_dtype_parse(const char *name, int *dtype) {
  if (!name || !dtype)
    return nullArgument(!name ? "name" : "dtype");
  std::optional<DType> parsed = parseDType(name);
  if (!parsed)
    return fail(ErrorCode::InvalidArgument,
                std::string("unknown dtype '") + name + "'");
  *dtype = static_cast<int>(*parsed);
  return FUSION_OK;
}

int fusion_executable_load(const void *data, size_t size,
                           fusion_executable **out) {
  return guarded([&]() -> int {
    if (!out)
      return nullArgument("out");
    *out = nullptr;
    return adopt(Executable::load(data, size), out);
  });
}

int fusion_executable_load_file(const char *path, fusion_executable **out) {
  return guarded([&]() -> int {
    if (!out || !path)
      return nullArgument(!out ? "out" : "path");
    *out = nullptr;
    return adopt(Executable::loadFile(path), out);
  });
}

void fusion_executable_destroy(fusion_executable *exe) { delete exe; }

const char *fusion_executable_name(const fusion_executable *exe) {
  return exe ? exe->executable->info().name.c_str() : "";
}

const char *fusion_executable_target(const fusion_executable *exe) {
  return exe ? exe->executable->info().target.c_str() : "";
}

const char *fusion_executable_producer(const fusion_executable *exe) {
  return exe ? exe->executable->info().producer.c_str() : "";
}

int fusion_executable_num_inputs(const fusion_executable *exe) {
  return exe ? static_cast<int>(exe->executable->info().inputs.size()) : -1;
}

int fusion_executable_input(const fusion_executable *exe, int index,
                            fusion_input_info *info) {
  if (!exe || !info)
    return nullArgument(!exe ? "executable" : "info");
  const std::vector<InputInfo> &inputs = exe->executable->info().inputs;
  if (index < 0 || static_cast<size_t>(index) >= inputs.size())
    return badIndex("input", index, inputs.size());
  const InputInfo &input = inputs[index];
  info->name = input.name.c_str();
  info->kind = static_cast<int32_t>(input.kind);
  info->dtype = static_cast<int32_t>(input.dtype);
  info->rank = static_cast<int32_t>(input.sizes.size());
  info->sizes = input.sizes.data();
  return FUSION_OK;
}

int fusion_executable_input_flags(const fusion_executable *exe, int index,
                                  uint32_t *flags) {
  if (!exe || !flags)
    return nullArgument(!exe ? "executable" : "flags");
  const std::vector<InputInfo> &inputs = exe->executable->info().inputs;
  if (index < 0 || static_cast<size_t>(index) >= inputs.size())
    return badIndex("input", index, inputs.size());
  *flags = inputs[index].valueAffectsPlan ? FUSION_INPUT_VALUE_AFFECTS_PLAN : 0;
  return FUSION_OK;
}

int fusion_executable_num_outputs(const fusion_executable *exe) {
  return exe ? static_cast<int>(exe->executable->info().outputs.size()) : -1;
}

int fusion_executable_output(const fusion_executable *exe, int index,
                             int32_t *dtype, int32_t *rank) {
  if (!exe)
    return nullArgument("executable");
  const std::vector<OutputInfo> &outputs = exe->executable->info().outputs;
  if (index < 0 || static_cast<size_t>(index) >= outputs.size())
    return badIndex("output", index, outputs.size());
  if (dtype)
    *dtype = static_cast<int32_t>(outputs[index].dtype);
  if (rank)
    *rank = outputs[index].rank;
  return FUSION_OK;
}

int fusion_executable_num_kernels(const fusion_executable *exe) {
  return exe ? static_cast<int>(exe->executable->info().kernels.size()) : -1;
}

int fusion_executable_kernel(const fusion_executable *exe, int index,
                             fusion_kernel_info *info) {
  if (!exe || !info)
    return nullArgument(!exe ? "executable" : "info");
  const std::vector<KernelInfo> &kernels = exe->executable->info().kernels;
  if (index < 0 || static_cast<size_t>(index) >= kernels.size())
    return badIndex("kernel", index, kernels.size());
  info->name = kernels[index].name.c_str();
  info->has_cubin = kernels[index].hasCubin;
  info->ptx_size = kernels[index].ptxSize;
  info->cubin_size = kernels[index].cubinSize;
  return FUSION_OK;
}

int fusion_executable_kernel_built(const fusion_executable *exe, int index) {
  if (!exe || index < 0 ||
      static_cast<size_t>(index) >= exe->executable->info().kernels.size())
    return -1;
  return exe->executable->kernelBuilt(static_cast<size_t>(index)) ? 1 : 0;
}

namespace {
/// What a C kernel builder hands back through fusion_kernel_build_result.
struct BuildOutcome {
  bool called = false;
  bool ok = false;
  std::string bytes;
};

void setBuildOutcome(void *result, int ok, const void *data, size_t size) {
  auto *outcome = static_cast<BuildOutcome *>(result);
  outcome->called = true;
  outcome->ok = ok != 0;
  outcome->bytes.assign(static_cast<const char *>(data), data ? size : 0);
}
} // namespace

void fusion_set_kernel_builder(fusion_kernel_builder builder, void *user) {
  if (!builder) {
    setKernelBuilder(nullptr);
    return;
  }
  setKernelBuilder([builder, user](const void *module, size_t size,
                                   const std::string &kernel,
                                   std::string &built) -> Status {
    BuildOutcome outcome;
    int rc =
        builder(user, module, size, kernel.c_str(), &outcome, setBuildOutcome);
    if (rc == 0 && outcome.called && outcome.ok) {
      built = std::move(outcome.bytes);
      return Status::success();
    }
    return Status(ErrorCode::KernelNotBuilt,
                  outcome.called && !outcome.ok
                      ? outcome.bytes
                      : concat("the kernel builder returned ", rc,
                               outcome.called ? "" : " without a result"));
  });
}

int fusion_executable_infer_outputs(fusion_executable *exe,
                                    const fusion_arg *inputs, size_t num_inputs,
                                    fusion_tensor *outputs,
                                    size_t num_outputs) {
  return guarded([&]() -> int {
    if (!exe)
      return nullArgument("executable");
    return report(exe->executable->inferOutputs(
        asArguments(inputs), num_inputs, asOutputs(outputs), num_outputs));
  });
}

int fusion_executable_run(fusion_executable *exe, const fusion_arg *inputs,
                          size_t num_inputs, fusion_tensor *outputs,
                          size_t num_outputs, void *stream) {
  return guarded([&]() -> int {
    if (!exe)
      return nullArgument("executable");
    return report(exe->executable->run(asArguments(inputs), num_inputs,
                                       asOutputs(outputs), num_outputs,
                                       stream));
  });
}

int fusion_executable_infer_packed(fusion_executable *exe,
                                   void *const *input_data,
                                   const int64_t *input_records,
                                   size_t num_inputs, int64_t *output_records,
                                   size_t num_outputs) {
  return guarded([&]() -> int {
    if (!exe)
      return nullArgument("executable");
    if (num_outputs != 0 && !output_records)
      return nullArgument("output_records");
    PackedScratch &scratch = packedScratch;
    int code =
        unpackInputs(input_data, input_records, num_inputs, scratch.inputs);
    if (code != FUSION_OK)
      return code;
    scratch.outputs.assign(num_outputs, OutputTensor());
    code = report(
        exe->executable->inferOutputs(scratch.inputs.data(), num_inputs,
                                      scratch.outputs.data(), num_outputs));
    if (code != FUSION_OK)
      return code;
    const std::vector<OutputInfo> &infos = exe->executable->info().outputs;
    for (size_t o = 0; o < num_outputs; ++o) {
      const OutputTensor &output = scratch.outputs[o];
      int64_t *record = output_records + o * FUSION_PACKED_WORDS;
      std::memset(record, 0, FUSION_PACKED_WORDS * sizeof(int64_t));
      int32_t alias = infos[o].aliasInput;
      record[FUSION_PACKED_ALIAS] = alias;
      // inferOutputs gave a view the input's data moved to its first element.
      if (alias >= 0 && output.data)
        record[FUSION_PACKED_OFFSET] = static_cast<int64_t>(
            (reinterpret_cast<uintptr_t>(output.data) -
             reinterpret_cast<uintptr_t>(scratch.inputs[alias].data)) /
            dtypeByteSize(output.dtype));
      record[FUSION_PACKED_DTYPE] = static_cast<int64_t>(output.dtype);
      record[FUSION_PACKED_RANK] = output.rank;
      int64_t elements = 1;
      for (int32_t d = 0; d < output.rank; ++d) {
        record[FUSION_PACKED_SIZES + d] = output.sizes[d];
        record[FUSION_PACKED_STRIDES + d] = output.strides[d];
        elements *= output.sizes[d];
      }
      record[FUSION_PACKED_NUM_ELEMENTS] = elements;
    }
    return FUSION_OK;
  });
}

int fusion_executable_run_packed(fusion_executable *exe,
                                 void *const *input_data,
                                 const int64_t *input_records,
                                 size_t num_inputs, void **output_data,
                                 const int64_t *output_records,
                                 size_t num_outputs, void *stream) {
  return guarded([&]() -> int {
    if (!exe)
      return nullArgument("executable");
    if (num_outputs != 0 && !output_data)
      return nullArgument("output_data");
    PackedScratch &scratch = packedScratch;
    int code =
        unpackInputs(input_data, input_records, num_inputs, scratch.inputs);
    if (code != FUSION_OK)
      return code;
    scratch.outputs.resize(num_outputs);
    for (size_t o = 0; o < num_outputs; ++o) {
      OutputTensor &output = scratch.outputs[o];
      output.data = output_data[o];
      output.allocated = 0;
      if (!output.data)
        continue;
      if (!output_records)
        return fail(ErrorCode::InvalidArgument,
                    "output_records is null but output " + std::to_string(o) +
                        " is provided");
      const int64_t *record = output_records + o * FUSION_PACKED_WORDS;
      output.dtype =
          static_cast<DType>(narrowWord(record[FUSION_PACKED_DTYPE]));
      output.rank = narrowWord(record[FUSION_PACKED_RANK]);
      std::memcpy(output.sizes, record + FUSION_PACKED_SIZES,
                  sizeof(output.sizes));
      std::memcpy(output.strides, record + FUSION_PACKED_STRIDES,
                  sizeof(output.strides));
    }
    code = report(exe->executable->run(scratch.inputs.data(), num_inputs,
                                       scratch.outputs.data(), num_outputs,
                                       stream));
    if (code != FUSION_OK)
      return code;
    for (size_t o = 0; o < num_outputs; ++o)
      output_data[o] = scratch.outputs[o].data;
    return FUSION_OK;
  });
}

int fusion_executable_cache_stats(fusion_executable *exe,
                                  fusion_cache_stats *stats) {
  if (!exe || !stats)
    return nullArgument(!exe ? "executable" : "stats");
  PlanCacheStats cache = exe->executable->cacheStats();
  stats->hits = cache.hits;
  stats->misses = cache.misses;
  stats->entries = cache.entries;
  return FUSION_OK;
}

int fusion_executable_clear_cache(fusion_executable *exe) {
  if (!exe)
    return nullArgument("executable");
  exe->executable->clearCache();
  return FUSION_OK;
}

int fusion_executable_set_launch_graphs(fusion_executable *exe, int enabled) {
  if (!exe)
    return nullArgument("executable");
  exe->executable->setLaunchGraphs(enabled != 0);
  return FUSION_OK;
}

int fusion_executable_graph_stats(fusion_executable *exe,
                                  fusion_graph_stats *stats) {
  if (!exe || !stats)
    return nullArgument(!exe ? "executable" : "stats");
  LaunchGraphStats graphs = exe->executable->launchGraphStats();
  stats->built = graphs.built;
  stats->launches = graphs.launches;
  stats->node_updates = graphs.nodeUpdates;
  stats->direct = graphs.direct;
  stats->entries = graphs.entries;
  return FUSION_OK;
}

int fusion_executable_plan(fusion_executable *exe, const fusion_arg *inputs,
                           size_t num_inputs, fusion_plan **out) {
  return guarded([&]() -> int {
    if (!exe || !out)
      return nullArgument(!exe ? "executable" : "out");
    *out = nullptr;
    Expected<EvaluatedPlan> plan =
        exe->executable->plan(asArguments(inputs), num_inputs);
    if (!plan)
      return report(plan.status());
    *out = new fusion_plan{std::move(*plan)};
    return FUSION_OK;
  });
}

void fusion_plan_destroy(fusion_plan *plan) { delete plan; }

int fusion_plan_num_launches(const fusion_plan *plan) {
  return plan ? static_cast<int>(plan->plan.launches.size()) : -1;
}

int fusion_plan_launch(const fusion_plan *plan, int index,
                       fusion_launch_info *info) {
  if (!plan || !info)
    return nullArgument(!plan ? "plan" : "info");
  const std::vector<LaunchConfig> &launches = plan->plan.launches;
  if (index < 0 || static_cast<size_t>(index) >= launches.size())
    return badIndex("launch", index, launches.size());
  const LaunchConfig &launch = launches[index];
  info->kernel = launch.kernel;
  info->variant = launch.variant;
  for (int k = 0; k < 3; ++k) {
    info->grid[k] = launch.grid[k];
    info->block[k] = launch.block[k];
    info->cluster[k] = launch.cluster[k];
  }
  info->dynamic_smem = launch.dynamicSmem;
  info->has_cluster = launch.hasCluster;
  info->cooperative = launch.cooperative;
  info->skipped = launch.skipped;
  info->param_size = launch.params.size();
  info->params = launch.params.data();
  return FUSION_OK;
}

int fusion_plan_num_outputs(const fusion_plan *plan) {
  return plan ? static_cast<int>(plan->plan.outputBuffers.size()) : -1;
}

int fusion_plan_output(const fusion_plan *plan, int index,
                       fusion_tensor *output) {
  if (!plan || !output)
    return nullArgument(!plan ? "plan" : "output");
  if (index < 0 ||
      static_cast<size_t>(index) >= plan->plan.outputBuffers.size())
    return badIndex("output", index, plan->plan.outputBuffers.size());
  const BufferLayout &layout = plan->plan.output(index);
  *output = fusion_tensor{};
  output->dtype = static_cast<int32_t>(layout.dtype);
  output->rank = layout.rank;
  for (int d = 0; d < layout.rank; ++d) {
    output->sizes[d] = layout.sizes[d];
    output->strides[d] = layout.strides[d];
  }
  return FUSION_OK;
}

int fusion_plan_num_registers(const fusion_plan *plan) {
  return plan ? static_cast<int>(plan->plan.registers.size()) : -1;
}

int fusion_plan_register(const fusion_plan *plan, int index, int64_t *value) {
  if (!plan || !value)
    return nullArgument(!plan ? "plan" : "value");
  if (index < 0 || static_cast<size_t>(index) >= plan->plan.registers.size())
    return badIndex("register", index, plan->plan.registers.size());
  *value = plan->plan.registers[index];
  return FUSION_OK;
}

int fusion_driver_status(void) {
  return guarded([]() -> int { return report(cudaDriverStatus()); });
}

int fusion_free_async(void *data, void *stream) {
  return guarded(
      [&]() -> int { return report(freeDeviceMemory(data, stream)); });
}

int fusion_stream_synchronize(void *stream) {
  return guarded([&]() -> int { return report(synchronizeStream(stream)); });
}

int fusion_measure_raw_launch_us(int launches, void *stream,
                                 double *us_per_launch) {
  return guarded([&]() -> int {
    if (!us_per_launch)
      return nullArgument("us_per_launch");
    Expected<double> micros = measureRawLaunchMicros(launches, stream);
    if (!micros)
      return report(micros.status());
    *us_per_launch = *micros;
    return FUSION_OK;
  });
}

} // extern "C"
