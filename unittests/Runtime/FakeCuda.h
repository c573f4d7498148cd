/* The test interface of the fake CUDA driver (FakeCuda.cpp), a libcuda.so.1
 * for machines without a GPU. Besides the driver entry points the runtime
 * resolves, the library exports these C functions; tests look them up with
 * dlsym on a handle of the same library (they never link it), so this header
 * only declares them and the records they fill in. */
#ifndef FUSION_UNITTESTS_RUNTIME_FAKECUDA_H
#define FUSION_UNITTESTS_RUNTIME_FAKECUDA_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* One cuLaunchKernelEx call, or one kernel node of a cuGraphLaunch (in the
 * graph's order). The pointers stay valid until fake_cuda_reset. */
typedef struct FakeCudaLaunch {
  const char *function; /* the entry's name */
  uint32_t grid[3];
  uint32_t block[3];
  uint32_t sharedMemBytes;
  void *stream;
  uint32_t numAttrs;
  uint32_t clusterDim[3]; /* CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION, else 0 */
  int32_t cooperative;    /* CU_LAUNCH_ATTRIBUTE_COOPERATIVE */
  const uint8_t *params;  /* a copy of the packed parameter buffer */
  size_t paramSize;
  /* The size the entry's .param list in the PTX needs, -1 if unknown. */
  int64_t ptxParamSize;
  int32_t graph; /* 1: a node of a cuGraphLaunch, with the node's parameters */
  /* 1: the parameters came as kernelParams (one pointer each), laid out in
   * `params` as the PTX's .param list declares them. */
  int32_t byPointer;
} FakeCudaLaunch;

/* The bytes the fake's cuTensorMapEncodeTiled writes into a CUtensorMap
 * (128 bytes; the rest stays zero): what it was given, dims innermost
 * first as the driver takes them. */
typedef struct FakeCudaTensorMap {
  uint64_t address;
  uint32_t dtype; /* CUtensorMapDataType */
  uint32_t rank;
  uint32_t swizzle; /* CUtensorMapSwizzle */
  uint32_t oobFill; /* CUtensorMapFloatOOBfill */
  uint64_t dims[5];
  uint64_t strides[4]; /* bytes, dims 1 .. rank - 1 */
  uint32_t box[5];
} FakeCudaTensorMap;

/* One cuMemsetD{8,16,32}Async call. */
typedef struct FakeCudaMemset {
  uint64_t address;
  uint32_t elementSize; /* 1, 2 or 4 */
  uint32_t value;
  size_t count; /* elements */
  void *stream;
} FakeCudaMemset;

/* One cuMemAllocAsync call that succeeded. */
typedef struct FakeCudaAlloc {
  uint64_t address;
  size_t bytes;
  void *stream;
} FakeCudaAlloc;

/* Calls of the entry point `name` since the last reset; -1 when the fake
 * has no entry point of that name (a typo in a test). */
int64_t fake_cuda_count(const char *name);
/* Zeroes the counters and clears the records and pending failures. Loaded
 * modules, allocations and the current context stay. */
void fake_cuda_reset(void);

size_t fake_cuda_num_launches(void);
/* Copies launch `index` (in call order) to `out`; 0 if out of range. */
int fake_cuda_launch(size_t index, FakeCudaLaunch *out);
size_t fake_cuda_num_memsets(void);
int fake_cuda_memset(size_t index, FakeCudaMemset *out);
size_t fake_cuda_num_allocs(void);
int fake_cuda_alloc(size_t index, FakeCudaAlloc *out);

/* Allocations not freed yet and modules not unloaded yet. */
size_t fake_cuda_live_allocations(void);
size_t fake_cuda_live_modules(void);

/* Graphs (cuGraphCreate) and executable graphs (cuGraphInstantiate) not
 * destroyed yet. */
size_t fake_cuda_live_graphs(void);
/* cuStreamIsCapturing reports `stream` as being captured (capturing != 0)
 * or not; streams are not captured until set. */
void fake_cuda_set_capturing(void *stream, int capturing);

/* Entry points are counted under their symbol's name: cuda.h's versioned
 * names where it has them (cuGraphAddKernelNode_v2,
 * cuGraphExecKernelNodeSetParams_v2). */

/* cuOccupancyMaxActiveClusters answers `clusters` (until the next reset);
 * -1 goes back to the fake's model. */
void fake_cuda_set_max_active_clusters(int clusters);

/* The next call of the entry point `name` fails with `result` (a CUresult)
 * and does nothing else. */
void fake_cuda_fail_next(const char *name, int result);

#ifdef __cplusplus
}
#endif

#endif /* FUSION_UNITTESTS_RUNTIME_FAKECUDA_H */
