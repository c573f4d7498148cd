/*===- fusion-c/Fusion.h - the compiler's C API -------------------*- C -*-===*\
|* In MLIR's C-API style (mlir-c/): the fusion dialect's handle, one call   *|
|* that registers what a host compiler needs, and one entry point that      *|
|* compiles a fusion (text or an MlirModule) to module-file bytes, with its *|
|* diagnostics returned as data. docs/embedding.md shows it in use.         *|
\*===----------------------------------------------------------------------===*/
#ifndef FUSION_C_FUSION_H
#define FUSION_C_FUSION_H

#include "mlir-c/IR.h"
#include "mlir-c/Pass.h"
#include "mlir-c/Support.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The compiler's version, e.g. "0.1.0" (fusion/Version.h). */
MLIR_CAPI_EXPORTED const char *fusionCompilerVersion(void);

/* mlirGetDialectHandle__fusion__(): the fusion dialect, for
 * mlirDialectHandleRegisterDialect and mlirDialectHandleLoadDialect. */
MLIR_DECLARE_CAPI_DIALECT_REGISTRATION(Fusion, fusion);

/* The fusion dialect and every upstream dialect, interface and translation
 * the pipeline uses, into `registry`. */
MLIR_CAPI_EXPORTED void fusionRegisterAllDialects(MlirDialectRegistry registry);

/* Registers the fusion passes, the pipeline `fusion-to-ptx` and the upstream
 * passes it builds on, so pass pipelines naming them parse
 * (mlirParsePassPipeline). Call once, before parsing a pipeline. */
MLIR_CAPI_EXPORTED void fusionRegisterAllPasses(void);

/* PyTorch's type promotion (torch.result_type), as the dialect's frontends
 * apply it (include/fusion/Dialect/Fusion/Utils/Promotion.h has the rules):
 * the common element type of `n` operands, each a type (an element type of
 * the dialect, or index) and a role: 0 a tensor of rank >= 1, 1 a tensor of
 * rank 0, 2 a scalar (a wrapped number). A null type when there is none (fp8
 * mixed with another type, an unsupported type, a bad role, n = 0). */
MLIR_CAPI_EXPORTED MlirType fusionPromoteElementTypes(const MlirType *types,
                                                      const int32_t *roles,
                                                      intptr_t n);

/* Options of a compile; fusionCompileOptionsInit sets the defaults. */
typedef struct {
  /* The target SM, e.g. "sm_90a" (the default). */
  MlirStringRef chip;
  /* Multiprocessors of the target (132, an H100/H200). */
  int64_t smCount;
  /* The fusion to compile; empty: the module's only fusion. */
  MlirStringRef fusionName;
  /* Compile each kernel's PTX to a cubin when ptxas is found (true). */
  bool emitCubin;
  /* More options of the fusion-to-ptx pipeline, as its textual form takes
   * them (docs/passes.md), e.g. "unroll=2 inner-stage=1 split-kernels=0";
   * they override chip and smCount. Empty: none. */
  MlirStringRef pipelineOptions;
  /* Take the module from the compile cache when it has it, and store it
   * there otherwise (true). The cache is the one the environment configures
   * (FUSION_CACHE, FUSION_CACHE_DIR, FUSION_CACHE_MAX_MB; docs/cache.md). */
  bool useCache;
} FusionCompileOptions;

MLIR_CAPI_EXPORTED void fusionCompileOptionsInit(FusionCompileOptions *options);

/* A compile's outcome: the module file bytes when it succeeded, and every
 * diagnostic it emitted, in order. Owned by the caller:
 * fusionCompilationDestroy. */
typedef struct {
  void *ptr;
} FusionCompilation;

typedef enum {
  FusionDiagnosticError = 0,
  FusionDiagnosticWarning = 1,
  FusionDiagnosticNote = 2,
  FusionDiagnosticRemark = 3
} FusionDiagnosticSeverity;

/* One diagnostic. The strings are owned by the compilation. `file` is the
 * location's file (the source name given for text) or empty when the
 * location has no file; `line` and `column` are 1-based, 0 without one. */
typedef struct {
  FusionDiagnosticSeverity severity;
  MlirStringRef message;
  MlirStringRef file;
  unsigned line;
  unsigned column;
} FusionDiagnostic;

/* Adds the fusion-to-ptx pipeline (decompose, segment, schedule, the
 * lowering, upstream's NVVM lowering and serialization to PTX) with the
 * options' chip, smCount and pipelineOptions to `passManager`, which must
 * be anchored on builtin.module. Fails, adding nothing, when
 * pipelineOptions does not parse; the reason goes to `errorCallback` (may
 * be NULL) with `userData`. */
MLIR_CAPI_EXPORTED MlirLogicalResult fusionAddFusionToPTXPipeline(
    MlirOpPassManager passManager, const FusionCompileOptions *options,
    MlirStringCallback errorCallback, void *userData);

/* Compiles the fusion of `source` (textual IR; `sourceName` names it in
 * diagnostics) in `context`, which gets the dialects it needs. */
MLIR_CAPI_EXPORTED FusionCompilation fusionCompileSource(
    MlirContext context, MlirStringRef source, MlirStringRef sourceName,
    const FusionCompileOptions *options);

/* Compiles a fusion of `module`, which is left unchanged (a copy is
 * lowered). */
MLIR_CAPI_EXPORTED FusionCompilation
fusionCompileModule(MlirModule module, const FusionCompileOptions *options);

/* What fusionCompileSourceTo produces. */
typedef enum {
  /* The module file (what fusionCompileSource returns). */
  FusionOutputModuleFile = 0,
  /* The PTX of every kernel, as text (one PTX module per fusion). */
  FusionOutputPTX = 1,
  /* The IR after the whole pipeline (host program, launch plan and
   * gpu.binary), as text. */
  FusionOutputLoweredIR = 2,
  /* The IR after every pass of the pipeline that changed it, as text (what
   * fusion-translate --print-stages prints). */
  FusionOutputStages = 3,
  /* The source parsed and verified, printed back (fusion-opt without
   * passes): nothing is compiled. */
  FusionOutputVerifiedIR = 4
} FusionOutputKind;

/* Compiles the fusion of `source` as fusionCompileSource does and returns
 * `kind` as the bytes. Only the module file comes from (and goes to) the
 * compile cache. */
MLIR_CAPI_EXPORTED FusionCompilation fusionCompileSourceTo(
    MlirContext context, MlirStringRef source, MlirStringRef sourceName,
    const FusionCompileOptions *options, FusionOutputKind kind);

MLIR_CAPI_EXPORTED bool fusionCompilationSucceeded(FusionCompilation result);
/* Whether the bytes came from the compile cache (nothing was compiled). */
MLIR_CAPI_EXPORTED bool fusionCompilationCacheHit(FusionCompilation result);
/* The module file (for fusion_executable_load of the runtime); empty when
 * the compile failed. Owned by the compilation. */
MLIR_CAPI_EXPORTED MlirStringRef
fusionCompilationGetBytes(FusionCompilation result);
MLIR_CAPI_EXPORTED intptr_t
fusionCompilationGetNumDiagnostics(FusionCompilation result);
MLIR_CAPI_EXPORTED FusionDiagnostic
fusionCompilationGetDiagnostic(FusionCompilation result, intptr_t index);
MLIR_CAPI_EXPORTED void fusionCompilationDestroy(FusionCompilation result);

/* Receives a kernel build's outcome: ok = 1 and the module file's bytes, or
 * ok = 0 and an error message (not NUL-terminated). The same type as the
 * runtime's fusion_kernel_build_result (fusion_runtime.h). */
typedef void (*FusionKernelBuildResult)(void *result, int ok, const void *data,
                                        size_t size);

/* Builds the deferred kernel `kernel` of the module file `module` (compiled
 * with the pipeline option defer-kernels=fallbacks or all; docs/cache.md,
 * "Deferred kernels") and passes the module file with that kernel built to
 * `setResult` with `result`, before returning 0 (1 on failure, after
 * passing the error message). Stores the result in the compile cache the
 * environment configures. Thread-safe (a context per call). Its signature is
 * the runtime's kernel builder's: register it with
 * fusion_set_kernel_builder(fusionBuildDeferredKernel, NULL). `user` is
 * ignored. */
MLIR_CAPI_EXPORTED int
fusionBuildDeferredKernel(void *user, const void *module, size_t size,
                          const char *kernel, void *result,
                          FusionKernelBuildResult setResult);

#ifdef __cplusplus
}
#endif

#endif /* FUSION_C_FUSION_H */
