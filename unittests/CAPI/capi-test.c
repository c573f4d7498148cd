/* The compiler's C API from C: the dialect handle, pass registration, and
 * compiles of text and of an MlirModule, good and bad, checked through the
 * bytes (loaded by the runtime) and the diagnostics. Exits non-zero with a
 * message at the first check that fails. */
#define _XOPEN_SOURCE 700 /* setenv, mkdtemp */
#include "fusion-c/Fusion.h"
#include "fusion/Runtime/fusion_runtime.h"
#include "mlir-c/Pass.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TEST_NAME "capi-test"
#include "Check.h"

/* A compile that failed, its first diagnostic naming `needle`; destroys it. */
static void failsWith(FusionCompilation c, const char *needle) {
  CHECK(!fusionCompilationSucceeded(c), "compiled; expected: %s", needle);
  CHECK(fusionCompilationGetNumDiagnostics(c) >= 1, "no diagnostic");
  if (fusionCompilationGetNumDiagnostics(c) >= 1) {
    FusionDiagnostic d = fusionCompilationGetDiagnostic(c, 0);
    CHECK(contains(d.message, needle), "message %.*s", (int)d.message.length,
          d.message.data);
  }
  fusionCompilationDestroy(c);
}

/* An MlirStringCallback appending to a char[512]. */
static void appendTo(MlirStringRef s, void *userData) {
  char *buffer = userData;
  size_t used = strlen(buffer);
  size_t n = s.length < 511 - used ? s.length : 511 - used;
  memcpy(buffer + used, s.data, n);
  buffer[used + n] = 0;
}

static const char *kTwo =
    "fusion.fusion @add_relu(%a: tensor<?x?xf32>, %b: tensor<?x?xf32>) -> "
    "tensor<?x?xf32> {\n"
    "  %0 = fusion.add %a, %b : tensor<?x?xf32>\n"
    "  %1 = fusion.relu %0 : tensor<?x?xf32>\n"
    "  fusion.return %1 : tensor<?x?xf32>\n"
    "}\n"
    "fusion.fusion @neg(%a: tensor<?xf32>) -> tensor<?xf32> {\n"
    "  %0 = fusion.neg %a : tensor<?xf32>\n"
    "  fusion.return %0 : tensor<?xf32>\n"
    "}\n";

/* The bytes load in the runtime, with the fusion's name and producer. */
static void checkModule(FusionCompilation c, const char *name, int inputs) {
  MlirStringRef bytes = fusionCompilationGetBytes(c);
  CHECK(bytes.length > 8 && memcmp(bytes.data + 4, "FUSN", 4) == 0,
        "%zu bytes without the module file identifier", bytes.length);
  fusion_executable *exe = NULL;
  int code = fusion_executable_load(bytes.data, bytes.length, &exe);
  CHECK(code == FUSION_OK, "load: %s", fusion_last_error_message());
  if (code != FUSION_OK)
    return;
  CHECK(strcmp(fusion_executable_name(exe), name) == 0, "name %s",
        fusion_executable_name(exe));
  CHECK(fusion_executable_num_inputs(exe) == inputs, "%d inputs",
        fusion_executable_num_inputs(exe));
  char producer[64];
  snprintf(producer, sizeof producer, "fusion %s", fusion_runtime_version());
  CHECK(strcmp(fusion_executable_producer(exe), producer) == 0, "producer %s",
        fusion_executable_producer(exe));
  fusion_executable_destroy(exe);
}

int main(void) {
  /* The compile cache (Note [Compile cache]) in a folder of this run's. */
  char cacheDir[] = "/tmp/fusion-capi-cache-XXXXXX";
  CHECK(mkdtemp(cacheDir) != NULL, "mkdtemp failed");
  setenv("FUSION_CACHE_DIR", cacheDir, 1);
  unsetenv("FUSION_CACHE");
  MlirContext ctx = mlirContextCreate();

  /* The dialect handle. */
  MlirDialectHandle handle = mlirGetDialectHandle__fusion__();
  MlirStringRef ns = mlirDialectHandleGetNamespace(handle);
  CHECK(ns.length == 6 && memcmp(ns.data, "fusion", 6) == 0, "namespace %.*s",
        (int)ns.length, ns.data);
  MlirDialect dialect = mlirDialectHandleLoadDialect(handle, ctx);
  CHECK(!mlirDialectIsNull(dialect), "fusion dialect not loaded");

  /* Passes: a pipeline naming them parses only once they are registered. */
  MlirPassManager pm = mlirPassManagerCreate(ctx);
  MlirOpPassManager opm = mlirPassManagerGetAsOpPassManager(pm);
  fusionRegisterAllPasses();
  MlirLogicalResult parsed = mlirParsePassPipeline(
      opm,
      str("builtin.module(fusion.fusion(fusion-decompose,fusion-segment))"),
      NULL, NULL);
  CHECK(mlirLogicalResultIsSuccess(parsed), "pipeline did not parse");
  mlirPassManagerDestroy(pm);

  FusionCompileOptions options;
  fusionCompileOptionsInit(&options);
  options.emitCubin = false; /* PTX only: no ptxas needed */

  /* Text, with two fusions: one named. */
  options.fusionName = str("neg");
  FusionCompilation c =
      fusionCompileSource(ctx, str(kTwo), str("two.mlir"), &options);
  CHECK(fusionCompilationSucceeded(c), "%d diagnostics",
        (int)fusionCompilationGetNumDiagnostics(c));
  if (fusionCompilationSucceeded(c))
    checkModule(c, "neg", 1);
  fusionCompilationDestroy(c);

  /* The same compile again: from the cache, the same bytes; without the
   * cache: compiled. */
  {
    FusionCompilation first =
        fusionCompileSource(ctx, str(kTwo), str("two.mlir"), &options);
    FusionCompilation again =
        fusionCompileSource(ctx, str(kTwo), str("again.mlir"), &options);
    options.useCache = false;
    FusionCompilation uncached =
        fusionCompileSource(ctx, str(kTwo), str("two.mlir"), &options);
    options.useCache = true;
    MlirStringRef a = fusionCompilationGetBytes(first);
    MlirStringRef b = fusionCompilationGetBytes(again);
    MlirStringRef u = fusionCompilationGetBytes(uncached);
    CHECK(fusionCompilationCacheHit(first), "the first compile (stored by "
                                            "the one above) missed");
    CHECK(fusionCompilationCacheHit(again), "the second compile missed");
    CHECK(!fusionCompilationCacheHit(uncached), "useCache = false hit");
    CHECK(a.length == b.length && memcmp(a.data, b.data, a.length) == 0,
          "a hit's bytes differ from the stored ones");
    CHECK(a.length == u.length && memcmp(a.data, u.data, a.length) == 0,
          "a compile's bytes differ from the cached ones");
    checkModule(again, "neg", 1);
    fusionCompilationDestroy(first);
    fusionCompilationDestroy(again);
    fusionCompilationDestroy(uncached);
  }

  /* Two fusions and none named: an error that names both. */
  options.fusionName = mlirStringRefCreate(NULL, 0);
  c = fusionCompileSource(ctx, str(kTwo), str("two.mlir"), &options);
  CHECK(!fusionCompilationSucceeded(c), "compiled with no fusion named");
  CHECK(fusionCompilationGetBytes(c).length == 0, "bytes of a failed compile");
  CHECK(fusionCompilationGetNumDiagnostics(c) >= 1, "no diagnostic");
  if (fusionCompilationGetNumDiagnostics(c) >= 1) {
    FusionDiagnostic d = fusionCompilationGetDiagnostic(c, 0);
    CHECK(d.severity == FusionDiagnosticError, "severity %d", d.severity);
    CHECK(contains(d.message, "@add_relu") && contains(d.message, "@neg"),
          "message %.*s", (int)d.message.length, d.message.data);
  }
  fusionCompilationDestroy(c);

  /* Malformed IR: the diagnostic points at the user's line and column. */
  c = fusionCompileSource(
      ctx,
      str("fusion.fusion @f(%a: tensor<?xf32>) -> tensor<?xf32> {\n"
          "  %0 = fusion.add %a, %b : tensor<?xf32>\n"
          "  fusion.return %0 : tensor<?xf32>\n"
          "}\n"),
      str("model.mlir"), &options);
  CHECK(!fusionCompilationSucceeded(c), "malformed IR compiled");
  CHECK(fusionCompilationGetNumDiagnostics(c) >= 1, "no diagnostic");
  if (fusionCompilationGetNumDiagnostics(c) >= 1) {
    FusionDiagnostic d = fusionCompilationGetDiagnostic(c, 0);
    CHECK(contains(d.message, "undeclared SSA value"), "message %.*s",
          (int)d.message.length, d.message.data);
    CHECK(d.file.length == 10 && memcmp(d.file.data, "model.mlir", 10) == 0,
          "file %.*s", (int)d.file.length, d.file.data);
    CHECK(d.line == 2 && d.column == 23, "at %u:%u", d.line, d.column);
  }
  FusionDiagnostic none = fusionCompilationGetDiagnostic(c, 1000);
  CHECK(none.message.length == 0, "diagnostic past the end");
  fusionCompilationDestroy(c);

  /* A list MLIR's linalg parser crashes on (Note [Integer lists]): refused
   * before parsing, with the line and column of the bad character. */
  c = fusionCompileSource(
      ctx,
      str("func.func @t(%a: tensor<2x3xf32>, %b: tensor<3x2xf32>) {\n"
          "  %0 = linalg.transpose ins(%a : tensor<2x3xf32>) outs(%b : "
          "tensor<3x2xf32>) permutation = [1, ?]\n"
          "  return\n"
          "}\n"),
      str("crash.mlir"), &options);
  CHECK(!fusionCompilationSucceeded(c), "a malformed list compiled");
  CHECK(fusionCompilationGetNumDiagnostics(c) == 1, "%d diagnostics",
        (int)fusionCompilationGetNumDiagnostics(c));
  if (fusionCompilationGetNumDiagnostics(c) >= 1) {
    FusionDiagnostic d = fusionCompilationGetDiagnostic(c, 0);
    CHECK(contains(d.message, "Note [Integer lists]"), "message %.*s",
          (int)d.message.length, d.message.data);
    CHECK(d.line == 2 && d.column == 96, "at %u:%u", d.line, d.column);
  }
  fusionCompilationDestroy(c);

  /* An MlirModule, left as it was. */
  MlirModule module = mlirModuleCreateParse(ctx, str(kTwo));
  CHECK(!mlirModuleIsNull(module), "module did not parse");
  options.fusionName = str("add_relu");
  c = fusionCompileModule(module, &options);
  CHECK(fusionCompilationSucceeded(c), "%d diagnostics",
        (int)fusionCompilationGetNumDiagnostics(c));
  if (fusionCompilationSucceeded(c))
    checkModule(c, "add_relu", 2);
  fusionCompilationDestroy(c);
  MlirOperation op = mlirModuleGetOperation(module);
  CHECK(mlirOperationVerify(op), "the caller's module changed");
  MlirBlock body = mlirModuleGetBody(module);
  int fusions = 0;
  for (MlirOperation o = mlirBlockGetFirstOperation(body);
       !mlirOperationIsNull(o); o = mlirOperationGetNextInBlock(o))
    ++fusions;
  CHECK(fusions == 2, "%d ops left in the caller's module", fusions);

  /* A bad option is an error, not a crash. */
  options.smCount = 0;
  failsWith(fusionCompileModule(module, &options),
            "sm count must be at least 1");
  options.smCount = 132;
  /* A chip LLVM does not know aborted the process in its NVPTX back end
     (Note [The target chip]). */
  options.chip = str("sm_999");
  failsWith(fusionCompileModule(module, &options),
            "the option chip 'sm_999' is not a processor LLVM's NVPTX back end "
            "knows");

  mlirModuleDestroy(module);

  /* The pipeline built from C, with textual options, run on a module. */
  fusionCompileOptionsInit(&options);
  options.pipelineOptions = str("unroll=2 split-kernels=0");
  MlirPassManager ptx =
      mlirPassManagerCreateOnOperation(ctx, str("builtin.module"));
  MlirLogicalResult added = fusionAddFusionToPTXPipeline(
      mlirPassManagerGetAsOpPassManager(ptx), &options, NULL, NULL);
  CHECK(mlirLogicalResultIsSuccess(added), "pipeline not added");
  MlirModule lowered = mlirModuleCreateParse(
      ctx, str("fusion.fusion @neg(%a: tensor<?xf32>) -> tensor<?xf32> {\n"
               "  %0 = fusion.neg %a : tensor<?xf32>\n"
               "  fusion.return %0 : tensor<?xf32>\n"
               "}\n"));
  MlirLogicalResult ran =
      mlirPassManagerRunOnOp(ptx, mlirModuleGetOperation(lowered));
  CHECK(mlirLogicalResultIsSuccess(ran), "pipeline failed");
  int binaries = 0;
  for (MlirOperation o = mlirBlockGetFirstOperation(mlirModuleGetBody(lowered));
       !mlirOperationIsNull(o); o = mlirOperationGetNextInBlock(o)) {
    MlirIdentifier name = mlirOperationGetName(o);
    MlirStringRef n = mlirIdentifierStr(name);
    binaries += n.length == 10 && memcmp(n.data, "gpu.binary", 10) == 0;
  }
  CHECK(binaries == 1, "%d gpu.binary ops (split-kernels=0 makes one)",
        binaries);
  mlirModuleDestroy(lowered);
  mlirPassManagerDestroy(ptx);

  /* Options that do not parse: an error, through the callback. */
  options.pipelineOptions = str("no-such-option=1");
  char reason[512] = "";
  MlirPassManager bad =
      mlirPassManagerCreateOnOperation(ctx, str("builtin.module"));
  added = fusionAddFusionToPTXPipeline(mlirPassManagerGetAsOpPassManager(bad),
                                       &options, appendTo, reason);
  CHECK(mlirLogicalResultIsFailure(added), "bad pipeline options accepted");
  CHECK(strstr(reason, "no-such-option") != NULL, "reason: %s", reason);
  mlirPassManagerDestroy(bad);
  failsWith(fusionCompileSource(ctx, str(kTwo), str("two.mlir"), &options),
            "bad compile options");

  mlirContextDestroy(ctx);
  char clear[128];
  snprintf(clear, sizeof clear, "rm -rf '%s'", cacheDir);
  if (system(clear) != 0)
    fprintf(stderr, "capi-test: could not remove %s\n", cacheDir);
  if (failures)
    fprintf(stderr, "capi-test: %d checks failed\n", failures);
  else
    printf("capi-test: all checks passed\n");
  return failures ? 1 : 0;
}
