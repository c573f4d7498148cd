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
  FUSION_ERROR_CUDA = 18
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

/* Errors. Every function that returns int sets these on failure (and leaves
 * them alone on success). The message is thread-local and valid until the
 * next failing call on this thread. */
FUSION_RUNTIME_API int fusion_last_error_code(void);
FUSION_RUNTIME_API const char *fusion_last_error_message(void);
FUSION_RUNTIME_API const char *fusion_error_code_name(int code);

/* Version and dtypes. */
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
FUSION_RUNTIME_API int
fusion_executable_num_inputs(const fusion_executable *exe);
FUSION_RUNTIME_API int fusion_executable_input(const fusion_executable *exe,
                                               int index,
                                               fusion_input_info *info);
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

FUSION_RUNTIME_API int fusion_executable_cache_stats(fusion_executable *exe,
                                                     fusion_cache_stats *stats);
FUSION_RUNTIME_API int fusion_executable_clear_cache(fusion_executable *exe);

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

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* FUSION_RUNTIME_FUSION_RUNTIME_H */
