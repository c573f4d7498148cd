/* A C program that embeds the compiler through its C API (Fusion::CAPI):
 * compiles the fusion of a .mlir file to a module file, prints each
 * diagnostic as FILE:LINE:COL: message, and on success writes the module
 * file and prints the name and producer the runtime reads from it.
 * Usage: capi-compile IN.mlir OUT.fusionmod [FUSION] */
#include "fusion-c/Fusion.h"
#include "fusion/Runtime/fusion_runtime.h"

#include <stdio.h>
#include <stdlib.h>

static char *readAll(const char *path, size_t *size) {
  FILE *f = fopen(path, "rb");
  if (!f)
    return NULL;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *data = n >= 0 ? malloc((size_t)n + 1) : NULL;
  if (data && fread(data, 1, (size_t)n, f) != (size_t)n) {
    free(data);
    data = NULL;
  }
  fclose(f);
  *size = data ? (size_t)n : 0;
  return data;
}

int main(int argc, char **argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: %s IN.mlir OUT.fusionmod [FUSION]\n", argv[0]);
    return 2;
  }
  size_t size = 0;
  char *source = readAll(argv[1], &size);
  if (!source) {
    fprintf(stderr, "%s: cannot read %s\n", argv[0], argv[1]);
    return 2;
  }
  MlirContext ctx = mlirContextCreate();
  FusionCompileOptions options;
  fusionCompileOptionsInit(&options);
  if (argc > 3)
    options.fusionName = mlirStringRefCreateFromCString(argv[3]);
  FusionCompilation c =
      fusionCompileSource(ctx, mlirStringRefCreate(source, size),
                          mlirStringRefCreateFromCString(argv[1]), &options);
  for (intptr_t i = 0; i < fusionCompilationGetNumDiagnostics(c); ++i) {
    FusionDiagnostic d = fusionCompilationGetDiagnostic(c, i);
    fprintf(stderr, "%.*s:%u:%u: %.*s\n", (int)d.file.length, d.file.data,
            d.line, d.column, (int)d.message.length, d.message.data);
  }
  int status = 1;
  if (fusionCompilationSucceeded(c)) {
    MlirStringRef bytes = fusionCompilationGetBytes(c);
    FILE *out = fopen(argv[2], "wb");
    fusion_executable *exe = NULL;
    if (out && fwrite(bytes.data, 1, bytes.length, out) == bytes.length &&
        fusion_executable_load(bytes.data, bytes.length, &exe) == FUSION_OK) {
      printf("compiled %s: %zu bytes, fusion %s, written by %s\n", argv[1],
             bytes.length, fusion_executable_name(exe),
             fusion_executable_producer(exe));
      fusion_executable_destroy(exe);
      status = 0;
    }
    if (out)
      fclose(out);
  }
  fusionCompilationDestroy(c);
  mlirContextDestroy(ctx);
  free(source);
  return status;
}
