/* The C API of the Fusion runtime, for C programs and Python ctypes: opaque
 * handles, int status codes, and a thread-local last-error message. */
#ifndef FUSION_RUNTIME_FUSION_RUNTIME_H
#define FUSION_RUNTIME_FUSION_RUNTIME_H

#include <stddef.h>
#include <stdint.h>

#if defined(_WIN32)
#define FUSION_RUNTIME_API
#else
#define FUSION_RUNTIME_API __attribute__((visibility("default")))
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* Status codes returned by the functions below (0 is success). They equal
 * fusion::runtime::ErrorCode. */
enum {
  FUSION_OK = 0,
  FUSION_ERROR_INVALID_ARGUMENT = 1,
  FUSION_ERROR_FILE = 2,
  FUSION_ERROR_INVALID_MODULE = 3,
  FUSION_ERROR_UNSUPPORTED_VERSION = 4,
  FUSION_ERROR_WRONG_INPUT_COUNT = 5,
  FUSION_ERROR_WRONG_INPUT_KIND = 6,
  FUSION_ERROR_WRONG_DTYPE = 7,
  FUSION_ERROR_WRONG_RANK = 8,
  FUSION_ERROR_WRONG_SIZE = 9,
  FUSION_ERROR_NULL_POINTER = 10,
  FUSION_ERROR_CONSTRAINT_VIOLATION = 11,
  FUSION_ERROR_DIVISION_BY_ZERO = 12,
  FUSION_ERROR_INTEGER_OVERFLOW = 13,
  FUSION_ERROR_NO_LAUNCH_VARIANT = 14,
  FUSION_ERROR_INVALID_LAUNCH_VALUE = 15,
  FUSION_ERROR_WRONG_OUTPUT = 16,
  FUSION_ERROR_DRIVER_UNAVAILABLE = 17,
  FUSION_ERROR_CUDA = 18,
  FUSION_ERROR_MISALIGNED_POINTER = 19,
  FUSION_ERROR_KERNEL_NOT_BUILT = 20
};

/* Element types; equal fusion::runtime::DType. */
enum {
  FUSION_DTYPE_F64 = 0,
  FUSION_DTYPE_F32 = 1,
  FUSION_DTYPE_F16 = 2,
  FUSION_DTYPE_BF16 = 3,
  FUSION_DTYPE_I64 = 4,
  FUSION_DTYPE_I32 = 5,
  FUSION_DTYPE_I16 = 6,
  FUSION_DTYPE_I8 = 7,
  FUSION_DTYPE_I1 = 8,
  FUSION_DTYPE_F8E4M3 = 9,
  FUSION_DTYPE_F8E5M2 = 10
};

enum { FUSION_ARG_TENSOR = 0, FUSION_ARG_SCALAR = 1 };

#define FUSION_MAX_RANK 8

/* The packed form of a call (fusion_executable_infer_packed,
 * fusion_executable_run_packed): flat arrays instead of structs, so that a
 * binding such as Python ctypes can fill preallocated arrays per call. Each
 * input and each output is one record of FUSION_PACKED_WORDS int64 words;
 * these are the word offsets in a record. */
enum {
  /* Inputs: FUSION_ARG_TENSOR or FUSION_ARG_SCALAR. Outputs (written by
   * fusion_executable_infer_packed): the index of the input the output is a
   * view of, or -1. */
  FUSION_PACKED_KIND = 0,
  FUSION_PACKED_ALIAS = 0,
  FUSION_PACKED_DTYPE = 1, /* FUSION_DTYPE_* */
  FUSION_PACKED_RANK = 2,  /* tensors: number of dims, at most 8 */
  /* Input scalars: the value, an int64 for integer dtypes and i1, the 8
   * bytes of a double for floating dtypes. Outputs: the element count. */
  FUSION_PACKED_VALUE = 3,
  FUSION_PACKED_NUM_ELEMENTS = 3,
  FUSION_PACKED_SIZES = 4,    /* FUSION_MAX_RANK sizes; `rank` are used */
  FUSION_PACKED_STRIDES = 12, /* FUSION_MAX_RANK strides, in elements */
  /* Outputs that are views of an input: the offset of the view's first
   * element in the input, in elements (a slice's start); 0 otherwise.
   * Unused in inputs. */
  FUSION_PACKED_OFFSET = 20,
  FUSION_PACKED_WORDS = 21
};

/* Input flags (fusion_executable_input_flags). */
enum {
  /* An integer scalar input whose value the launch plan reads: sizes and
   * launch configurations may depend on it, so it is part of the plan
   * cache's signature. */
  FUSION_INPUT_VALUE_AFFECTS_PLAN = 1
};

/* A loaded module (opaque). */
typedef struct fusion_executable fusion_executable;
/* An evaluated launch plan, for inspection (opaque). */
typedef struct fusion_plan fusion_plan;

/* One input. Tensors: data, rank, sizes, strides (in elements, NULL for
 * row-major). Scalars: int_value for integer dtypes and i1, float_value for
 * floating dtypes. The arrays are borrowed for the call only. */
typedef struct fusion_arg {
  int32_t kind;
  int32_t dtype;
  void *data;
  int64_t rank;
  const int64_t *sizes;
  const int64_t *strides;
  int64_t int_value;
  double float_value;
} fusion_arg;

/* One output. For fusion_executable_run: data != NULL provides the output
 * (dtype, rank, sizes, strides are checked), data == NULL lets the runtime
 * allocate it (allocated = 1; free it with fusion_free_async). Written only
 * on success. */
typedef struct fusion_tensor {
  void *data;
  int32_t dtype;
  int32_t rank;
  int64_t sizes[FUSION_MAX_RANK];
  int64_t strides[FUSION_MAX_RANK];
  int32_t allocated;
  int32_t reserved;
} fusion_tensor;

typedef struct fusion_input_info {
  const char *name; /* owned by the executable */
  int32_t kind;
  int32_t dtype;
  int32_t rank;
  const int64_t *sizes; /* static sizes, -1 for dynamic; owned */
} fusion_input_info;

typedef struct fusion_kernel_info {
  const char *name; /* owned by the executable */
  int32_t has_cubin;
  size_t ptx_size;
  size_t cubin_size;
} fusion_kernel_info;

typedef struct fusion_launch_info {
  int32_t kernel;
  int32_t variant;
  uint32_t grid[3];
  uint32_t block[3];
  uint32_t cluster[3]; /* 1,1,1 when the launch has no cluster */
  uint32_t dynamic_smem;
  int32_t has_cluster;
  int32_t cooperative;
  int32_t skipped; /* a grid dim is 0: the launch is skipped */
  size_t param_size;
  const uint8_t *params; /* packed parameters; owned by the plan */
} fusion_launch_info;

typedef struct fusion_cache_stats {
  uint64_t hits;
  uint64_t misses;
  uint64_t entries;
} fusion_cache_stats;

/* Launch graphs (see fusion_executable_set_launch_graphs): counts since load.
 */
typedef struct fusion_graph_stats {
  uint64_t built;        /* graphs built and instantiated */
  uint64_t launches;     /* calls that ran as one graph launch */
  uint64_t node_updates; /* kernel nodes given new parameters first */
  uint64_t direct;       /* calls of 2+ launches run kernel by kernel */
  uint64_t entries;      /* graphs kept now */
} fusion_graph_stats;

/* Errors. Every function that returns int sets these on failure (and leaves
 * them alone on success). The message is thread-local and valid until the
 * next failing call on this thread. */
FUSION_RUNTIME_API int fusion_last_error_code(void);
FUSION_RUNTIME_API const char *fusion_last_error_message(void);
FUSION_RUNTIME_API const char *fusion_error_code_name(int code);

/* Versions and dtypes. fusion_runtime_version: the project's version,
 * "MAJOR.MINOR.PATCH" (FUSION_VERSION_STRING of fusion/Version.h when this
 * library was built); fusion_module_format_version: the newest module file
 * format it loads. */
FUSION_RUNTIME_API const char *fusion_runtime_version(void);
FUSION_RUNTIME_API uint32_t fusion_module_format_version(void);
FUSION_RUNTIME_API const char *fusion_dtype_name(int dtype);
FUSION_RUNTIME_API int64_t fusion_dtype_size(int dtype); /* 0 if invalid */
FUSION_RUNTIME_API int fusion_dtype_parse(const char *name, int *dtype);

/* Loading. */
FUSION_RUNTIME_API int fusion_executable_load(const void *data, size_t size,
                                              fusion_executable **out);
FUSION_RUNTIME_API int fusion_executable_load_file(const char *path,
                                                   fusion_executable **out);
FUSION_RUNTIME_API void fusion_executable_destroy(fusion_executable *exe);

/* Metadata. Strings are owned by the executable. */
FUSION_RUNTIME_API const char *
fusion_executable_name(const fusion_executable *exe);
FUSION_RUNTIME_API const char *
fusion_executable_target(const fusion_executable *exe);
/* What wrote the module file, e.g. "fusion 0.1.0"; "" for files older than
 * 0.1.0. */
FUSION_RUNTIME_API const char *
fusion_executable_producer(const fusion_executable *exe);
FUSION_RUNTIME_API int
fusion_executable_num_inputs(const fusion_executable *exe);
FUSION_RUNTIME_API int fusion_executable_input(const fusion_executable *exe,
                                               int index,
                                               fusion_input_info *info);
/* FUSION_INPUT_* flags of input `index`. */
FUSION_RUNTIME_API int
fusion_executable_input_flags(const fusion_executable *exe, int index,
                              uint32_t *flags);
FUSION_RUNTIME_API int
fusion_executable_num_outputs(const fusion_executable *exe);
FUSION_RUNTIME_API int fusion_executable_output(const fusion_executable *exe,
                                                int index, int32_t *dtype,
                                                int32_t *rank);
FUSION_RUNTIME_API int
fusion_executable_num_kernels(const fusion_executable *exe);
FUSION_RUNTIME_API int fusion_executable_kernel(const fusion_executable *exe,
                                                int index,
                                                fusion_kernel_info *info);

/* Note [Deferred kernels]: 1 when kernel `index` has code (always, unless
 * the module deferred it and no launch has needed it yet), 0 when it is still
 * to be built, -1 for a bad handle or index. */
FUSION_RUNTIME_API int
fusion_executable_kernel_built(const fusion_executable *exe, int index);

/* A kernel builder's outcome: ok = 1 and the module file with the kernel
 * built, or ok = 0 and an error message (not NUL-terminated). The runtime
 * copies the bytes before the call returns. */
typedef void (*fusion_kernel_build_result)(void *result, int ok,
                                           const void *data, size_t size);
/* Builds deferred kernel `kernel` of the module file `module` (the bytes an
 * executable was loaded from, with the kernels built since) and passes the
 * outcome to `set_result` with `result` exactly once; returns 0 on success.
 * The compiler's C API has one: fusionBuildDeferredKernel (fusion-c/Fusion.h).
 */
typedef int (*fusion_kernel_builder)(void *user, const void *module,
                                     size_t size, const char *kernel,
                                     void *result,
                                     fusion_kernel_build_result set_result);
/* Sets the process's kernel builder (NULL removes it). An executable calls
 * it, under its own lock, when a launch first needs a deferred kernel;
 * without one such a launch fails with FUSION_ERROR_KERNEL_NOT_BUILT. */
FUSION_RUNTIME_API void fusion_set_kernel_builder(fusion_kernel_builder builder,
                                                  void *user);

/* Shapes of the outputs for these inputs (data left NULL). */
FUSION_RUNTIME_API int fusion_executable_infer_outputs(fusion_executable *exe,
                                                       const fusion_arg *inputs,
                                                       size_t num_inputs,
                                                       fusion_tensor *outputs,
                                                       size_t num_outputs);

/* Checks the inputs and outputs and launches on `stream` (a CUstream, NULL
 * for the legacy default stream). On error nothing is launched and outputs
 * are untouched. */
FUSION_RUNTIME_API int fusion_executable_run(fusion_executable *exe,
                                             const fusion_arg *inputs,
                                             size_t num_inputs,
                                             fusion_tensor *outputs,
                                             size_t num_outputs, void *stream);

/* The packed fast path. `input_data` holds one device pointer per input
 * (ignored for scalars, NULL for an empty tensor is fine) and
 * `input_records` num_inputs records (see FUSION_PACKED_*); both are
 * borrowed for the call. Inputs are checked exactly as by
 * fusion_executable_run, with the same typed errors ("input 1 (b): expected
 * dtype f32, got bf16"), and the same plan cache is used.
 *
 * fusion_executable_infer_packed writes one record per output: alias input
 * (or -1), dtype, rank, element count, sizes, strides and, for a view, the
 * offset of its first element in the input. A caller allocates each output
 * (not a view) with that layout. Needs no GPU. */
FUSION_RUNTIME_API int
fusion_executable_infer_packed(fusion_executable *exe, void *const *input_data,
                               const int64_t *input_records, size_t num_inputs,
                               int64_t *output_records, size_t num_outputs);

/* Checks and launches on `stream`. `output_data[o]` is the output's device
 * pointer, or NULL: a view output then gets its input's pointer moved to
 * the view's first element, any other
 * output is allocated by the runtime (free it with fusion_free_async).
 * `output_records` describe the provided outputs (dtype, rank, sizes,
 * strides: what fusion_executable_infer_packed wrote; the alias and element
 * count words are ignored) and are checked against the plan like
 * fusion_tensor; NULL is allowed when every output_data[o] is NULL. On
 * success output_data[o] holds each output's pointer; on error nothing is
 * launched and output_data is untouched. */
FUSION_RUNTIME_API int
fusion_executable_run_packed(fusion_executable *exe, void *const *input_data,
                             const int64_t *input_records, size_t num_inputs,
                             void **output_data, const int64_t *output_records,
                             size_t num_outputs, void *stream);

FUSION_RUNTIME_API int fusion_executable_cache_stats(fusion_executable *exe,
                                                     fusion_cache_stats *stats);
FUSION_RUNTIME_API int fusion_executable_clear_cache(fusion_executable *exe);

/* A call whose plan has two or more kernel launches runs them as one CUDA
 * graph launch: the graph is built on the plan's first call on a stream and
 * its kernel parameters are updated in place on later calls whose pointers
 * or scalars differ. Not used on a stream that is being captured, for plans
 * with cluster or cooperative launches, or when the driver lacks graphs.
 * On by default; FUSION_LAUNCH_GRAPHS=0 in the environment at load turns it
 * off, and so does enabled = 0 here (which destroys the graphs). */
FUSION_RUNTIME_API int
fusion_executable_set_launch_graphs(fusion_executable *exe, int enabled);
FUSION_RUNTIME_API int fusion_executable_graph_stats(fusion_executable *exe,
                                                     fusion_graph_stats *stats);

/* Launch-plan inspection (no GPU needed). */
FUSION_RUNTIME_API int fusion_executable_plan(fusion_executable *exe,
                                              const fusion_arg *inputs,
                                              size_t num_inputs,
                                              fusion_plan **out);
FUSION_RUNTIME_API void fusion_plan_destroy(fusion_plan *plan);
FUSION_RUNTIME_API int fusion_plan_num_launches(const fusion_plan *plan);
FUSION_RUNTIME_API int fusion_plan_launch(const fusion_plan *plan, int index,
                                          fusion_launch_info *info);
FUSION_RUNTIME_API int fusion_plan_num_outputs(const fusion_plan *plan);
FUSION_RUNTIME_API int fusion_plan_output(const fusion_plan *plan, int index,
                                          fusion_tensor *output);
FUSION_RUNTIME_API int fusion_plan_num_registers(const fusion_plan *plan);
FUSION_RUNTIME_API int fusion_plan_register(const fusion_plan *plan, int index,
                                            int64_t *value);

/* Driver helpers. */
FUSION_RUNTIME_API int fusion_driver_status(void); /* FUSION_OK if usable */
FUSION_RUNTIME_API int fusion_free_async(void *data, void *stream);
FUSION_RUNTIME_API int fusion_stream_synchronize(void *stream);
/* The floor for host overhead: loads an empty kernel (PTX, JIT-compiled by
 * the driver) in the current context, launches it 100 times to warm up,
 * then `launches` times with cuLaunchKernelEx on `stream` with no
 * synchronization in between, and writes the host time per launch in
 * microseconds. Synchronizes the stream before and after timing. */
FUSION_RUNTIME_API int fusion_measure_raw_launch_us(int launches, void *stream,
                                                    double *us_per_launch);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* FUSION_RUNTIME_FUSION_RUNTIME_H */
