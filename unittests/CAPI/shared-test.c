/* libfusion_compiler.so from C: the text outputs of a compile (PTX, lowered
 * IR, the stages) and the reference interpreter (fusion-c/Interpreter.h),
 * good and bad inputs. Links the shared library alone, so it also proves
 * the library exports everything a ctypes or C user needs. Exits non-zero
 * at the first failed check. */
#include "fusion-c/Fusion.h"
#include "fusion-c/Interpreter.h"

#include <stdio.h>
#include <string.h>

#define TEST_NAME "shared-test"
#include "Check.h"

static const char *kAddRelu =
    "fusion.fusion @add_relu(%a: tensor<?x?xf32>, %b: tensor<?x?xf32>, "
    "%s: f32) -> tensor<?x?xf32> {\n"
    "  %d0 = fusion.dim %a, 0 : tensor<?x?xf32>\n"
    "  %d1 = fusion.dim %a, 1 : tensor<?x?xf32>\n"
    "  %t = fusion.broadcast_in_dim %s [] (%d0, %d1) : f32 -> "
    "tensor<?x?xf32>\n"
    "  %0 = fusion.add %a, %b : tensor<?x?xf32>\n"
    "  %1 = fusion.mul %0, %t : tensor<?x?xf32>\n"
    "  %2 = fusion.relu %1 : tensor<?x?xf32>\n"
    "  fusion.return %2 : tensor<?x?xf32>\n"
    "}\n";

static void firstDiagnostic(FusionInterpretation r, const char *needle) {
  CHECK(!fusionInterpretationSucceeded(r), "ran; expected: %s", needle);
  CHECK(fusionInterpretationGetNumOutputs(r) == 0, "outputs of a failed run");
  CHECK(fusionInterpretationGetNumDiagnostics(r) >= 1, "no diagnostic");
  if (fusionInterpretationGetNumDiagnostics(r) >= 1) {
    FusionDiagnostic d = fusionInterpretationGetDiagnostic(r, 0);
    CHECK(contains(d.message, needle), "message %.*s", (int)d.message.length,
          d.message.data);
  }
  fusionInterpretationDestroy(r);
}

int main(void) {
  CHECK(strlen(fusionCompilerVersion()) >= 5, "version %s",
        fusionCompilerVersion());
  MlirContext ctx = mlirContextCreate();
  FusionCompileOptions options;
  fusionCompileOptionsInit(&options);
  options.useCache = false;

  /* The text outputs. */
  struct {
    FusionOutputKind kind;
    const char *needle;
  } kinds[] = {{FusionOutputPTX, ".entry"},
               {FusionOutputLoweredIR, "gpu.binary"},
               {FusionOutputStages, "IR Dump After"},
               {FusionOutputVerifiedIR, "relu %"}};
  for (int k = 0; k < 4; ++k) {
    FusionCompilation c = fusionCompileSourceTo(
        ctx, str(kAddRelu), str("f.mlir"), &options, kinds[k].kind);
    CHECK(fusionCompilationSucceeded(c), "kind %d failed", kinds[k].kind);
    MlirStringRef text = fusionCompilationGetBytes(c);
    CHECK(contains(text, kinds[k].needle), "kind %d: no '%s' in %zu bytes",
          kinds[k].kind, kinds[k].needle, text.length);
    CHECK(!contains(text, "FUSN"), "kind %d returned a module file",
          kinds[k].kind);
    fusionCompilationDestroy(c);
  }
  FusionCompilation bad = fusionCompileSourceTo(
      ctx, str(kAddRelu), str("f.mlir"), &options, (FusionOutputKind)7);
  CHECK(!fusionCompilationSucceeded(bad), "output kind 7 accepted");
  CHECK(fusionCompilationGetNumDiagnostics(bad) == 1 &&
            contains(fusionCompilationGetDiagnostic(bad, 0).message,
                     "unknown output kind 7"),
        "no diagnostic for output kind 7");
  fusionCompilationDestroy(bad);

  /* Promotion (Promotion.h's table), through the C API. */
  struct {
    const char *a, *b;
    int32_t roleA, roleB;
    const char *want; /* NULL: no common type */
  } rows[] = {{"i32", "f16", 0, 0, "f16"},     {"bf16", "f16", 0, 0, "f32"},
              {"i64", "f64", 0, 2, "f32"},     {"i1", "i32", 0, 2, "i64"},
              {"i32", "f64", 0, 1, "f64"},     {"i8", "i64", 0, 1, "i8"},
              {"f8E4M3FN", "f32", 0, 0, NULL}, {"f32", "f32", 0, 3, NULL}};
  for (size_t r = 0; r < sizeof rows / sizeof rows[0]; ++r) {
    MlirType types[2] = {mlirTypeParseGet(ctx, str(rows[r].a)),
                         mlirTypeParseGet(ctx, str(rows[r].b))};
    int32_t roles[2] = {rows[r].roleA, rows[r].roleB};
    MlirType got = fusionPromoteElementTypes(types, roles, 2);
    if (!rows[r].want) {
      CHECK(mlirTypeIsNull(got), "%s, %s: a common type", rows[r].a, rows[r].b);
      continue;
    }
    MlirType want = mlirTypeParseGet(ctx, str(rows[r].want));
    CHECK(!mlirTypeIsNull(got) && mlirTypeEqual(got, want), "%s, %s: not %s",
          rows[r].a, rows[r].b, rows[r].want);
  }
  CHECK(mlirTypeIsNull(fusionPromoteElementTypes(NULL, NULL, 0)),
        "no operands: a type");

  /* The interpreter: relu((a + b) * s) on 2x3 f32. */
  float a[6] = {1, -2, 3, -4, 5, -6}, b[6] = {0.5f, 1, -4, 2, 0, 7};
  int64_t sizes[2] = {2, 3};
  FusionHostValue inputs[3] = {
      {FusionHostTensor, str("f32"), 2, sizes, a, 0, 0},
      {FusionHostTensor, str("f32"), 2, sizes, b, 0, 0},
      {FusionHostScalar, str("f32"), 0, NULL, NULL, 2.0, 0}};
  FusionInterpretation r =
      fusionInterpretSource(ctx, str(kAddRelu), str("f.mlir"),
                            mlirStringRefCreate(NULL, 0), inputs, 3, false);
  CHECK(fusionInterpretationSucceeded(r), "%d diagnostics",
        (int)fusionInterpretationGetNumDiagnostics(r));
  CHECK(fusionInterpretationGetNumOutputs(r) == 1, "%d outputs",
        (int)fusionInterpretationGetNumOutputs(r));
  FusionHostTensorView out = fusionInterpretationGetOutput(r, 0);
  CHECK(out.rank == 2 && out.sizes[0] == 2 && out.sizes[1] == 3, "rank %d",
        (int)out.rank);
  CHECK(out.dtype.length == 3 && memcmp(out.dtype.data, "f32", 3) == 0,
        "dtype %.*s", (int)out.dtype.length, out.dtype.data);
  CHECK(out.sizeInBytes == 24, "%d bytes", (int)out.sizeInBytes);
  if (out.sizeInBytes == 24) {
    const float *y = out.data;
    for (int i = 0; i < 6; ++i) {
      float want = (a[i] + b[i]) * 2.0f;
      want = want > 0 ? want : 0;
      CHECK(y[i] == want, "y[%d] = %g, want %g", i, y[i], want);
    }
  }
  CHECK(fusionInterpretationGetOutput(r, 1).rank == -1, "output past the end");
  fusionInterpretationDestroy(r);

  /* Bad inputs: errors naming the input, never a crash. */
  int64_t other[2] = {2, 4};
  FusionHostValue wrongShape[3] = {inputs[0], inputs[1], inputs[2]};
  wrongShape[1].sizes = other;
  float wide[8] = {0};
  wrongShape[1].data = wide;
  firstDiagnostic(fusionInterpretSource(ctx, str(kAddRelu), str("f.mlir"),
                                        mlirStringRefCreate(NULL, 0),
                                        wrongShape, 3, false),
                  "'fusion.add' at f.mlir:5:8: operand 1 has shape [2, 4]");
  FusionHostValue wrongType[3] = {inputs[0], inputs[1], inputs[2]};
  wrongType[0].dtype = str("f16");
  firstDiagnostic(fusionInterpretSource(ctx, str(kAddRelu), str("f.mlir"),
                                        mlirStringRefCreate(NULL, 0), wrongType,
                                        3, false),
                  "input 0 (arg0): expected dtype f32, got f16");
  wrongType[0].dtype = str("f33");
  firstDiagnostic(fusionInterpretSource(ctx, str(kAddRelu), str("f.mlir"),
                                        mlirStringRefCreate(NULL, 0), wrongType,
                                        3, false),
                  "unknown dtype 'f33'");
  firstDiagnostic(fusionInterpretSource(ctx, str(kAddRelu), str("f.mlir"),
                                        mlirStringRefCreate(NULL, 0), inputs, 2,
                                        false),
                  "input");
  firstDiagnostic(fusionInterpretSource(ctx, str(kAddRelu), str("f.mlir"),
                                        str("nope"), inputs, 3, false),
                  "no fusion named 'nope'");
  /* Refused before parsing (Note [Integer lists]): MLIR's linalg parser
   * would crash on this list. */
  firstDiagnostic(
      fusionInterpretSource(ctx,
                            str("func.func @t(%b: tensor<3xf32>) {\n"
                                "  %0 = linalg.broadcast ins(%b : "
                                "tensor<3xf32>) outs(%b : tensor<3xf32>) "
                                "dimensions = [`]\n}\n"),
                            str("f.mlir"), mlirStringRefCreate(NULL, 0), inputs,
                            3, false),
      "expected an integer in the 'dimensions' list here");
  /* Malformed IR: the parser's diagnostic, with the user's file and line. */
  FusionInterpretation m = fusionInterpretSource(
      ctx, str("fusion.fusion @f() {\n  %0 = fusion.what\n}\n"),
      str("model.mlir"), mlirStringRefCreate(NULL, 0), NULL, 0, false);
  CHECK(!fusionInterpretationSucceeded(m), "malformed IR ran");
  if (fusionInterpretationGetNumDiagnostics(m) >= 1) {
    FusionDiagnostic d = fusionInterpretationGetDiagnostic(m, 0);
    CHECK(d.line == 2 && d.file.length == 10, "at %.*s:%u", (int)d.file.length,
          d.file.data, d.line);
  } else {
    CHECK(0, "no diagnostic for malformed IR");
  }
  fusionInterpretationDestroy(m);

  mlirContextDestroy(ctx);
  if (failures)
    fprintf(stderr, "shared-test: %d checks failed\n", failures);
  else
    printf("shared-test: all checks passed\n");
  return failures ? 1 : 0;
}
