#!/usr/bin/env bash
# The install and the CMake package as a consumer sees them:
#   1. cmake --install $FUSION_BUILD_DIR --prefix P (a fresh temporary folder)
#   2. what P holds: headers (generated ones too), the runtime with its
#      SONAME, the compiler libraries, the tools (--version), the schema,
#      lib/cmake/fusion
#   3. test/consumer configured against P alone, built and run: consumer-opt
#      (Fusion beside every upstream dialect) runs the pipeline on an
#      example and its own lit tests (ninja check-consumer); capi-compile (the compiler's C API, from C) compiles one and
#      reports a bad one at its line; module-info (runtime C API, shared and
#      static) reads a module file the installed fusion-translate wrote
#   4. test/consumer again with the runtime only (MLIR made unfindable)
# Prints "test-install: N passed, M failed" last; exits 1 on any failure.
#
#   bash utils/test-install.sh        (after the build; run-tests.sh step 7b)
#
# Environment: FUSION_BUILD_DIR (build), FUSION_JOBS (2), KEEP=1 keeps the
# temporary folder (its path is printed).
set -uo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
BUILD_DIR="${FUSION_BUILD_DIR:-build}"
JOBS="${FUSION_JOBS:-2}"
WORK=$(mktemp -d /tmp/fusion-install.XXXXXX)
PREFIX="$WORK/prefix"
[[ "${KEEP:-0}" == 1 ]] || trap 'rm -rf "$WORK"' EXIT
echo "[install] in $WORK"

passed=0
failed=0
ok() { echo "[install] ok: $*"; passed=$((passed + 1)); }
bad() { echo "[install] FAILED: $*"; failed=$((failed + 1)); }
finish() {
  echo "test-install: $passed passed, $failed failed"
  ((failed == 0))
  exit
}

if cmake --install "$BUILD_DIR" --prefix "$PREFIX" >"$WORK/install.log" 2>&1; then
  ok "cmake --install $BUILD_DIR --prefix $PREFIX ($(grep -c '^-- Installing' "$WORK/install.log") files)"
else
  tail -20 "$WORK/install.log"
  bad "cmake --install"
  finish
fi

version=$(sed -n 's/^project(fusion VERSION \([0-9.]*\).*/\1/p' CMakeLists.txt)
minor=${version%.*}
for f in include/fusion/Version.h include/fusion/Runtime/fusion_runtime.h \
         include/fusion/Runtime/fusion_module_generated.h \
         include/fusion/Dialect/Fusion/IR/FusionOps.h.inc \
         include/fusion/Dialect/Fusion/IR/FusionOps.td \
         include/fusion/Dialect/Fusion/Transforms/Passes.h.inc include/fusion/Registration.h \
         include/fusion/Conversion/Passes.h.inc include/fusion/Pipeline/Pipeline.h \
         include/fusion-c/Fusion.h include/fusion-c/Interpreter.h \
         lib/libFusionCAPI.a lib/libfusion_compiler.so \
         lib/libFusionRuntime.a "lib/libfusion_runtime.so.$version" \
         lib/libFusionRegistration.a lib/libFusionDialect.a \
         lib/cmake/fusion/FusionConfig.cmake \
         lib/cmake/fusion/FusionConfigVersion.cmake \
         lib/cmake/fusion/FusionRuntimeTargets.cmake \
         lib/cmake/fusion/FusionCompilerTargets.cmake \
         share/fusion/fusion_module.fbs bin/fusion-opt bin/fusion-translate \
         bin/fusion-run bin/fusion-interpret bin/fusion-cache; do
  [[ -e "$PREFIX/$f" ]] || bad "missing $f"
done
soname=$(readelf -d "$PREFIX/lib/libfusion_runtime.so.$version" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
if [[ "$soname" == "libfusion_runtime.so.$minor" && -L "$PREFIX/lib/libfusion_runtime.so" ]]; then
  ok "headers, libraries, tools, schema, package files; SONAME $soname"
else
  bad "the runtime's SONAME is '$soname', not libfusion_runtime.so.$minor"
fi
for tool in fusion-opt fusion-translate fusion-run fusion-interpret fusion-cache; do
  line=$("$PREFIX/bin/$tool" --version 2>&1 | grep '^Fusion version' || true)
  if [[ "$line" == "Fusion version $version (module format "* ]]; then
    ok "$tool --version: $line"
  else
    bad "$tool --version printed no 'Fusion version $version' line"
  fi
done

# The consumer, against the prefix only (CMAKE_PREFIX_PATH; MLIR from the
# path recorded in FusionConfig.cmake).
consumer() {
  local dir=$1
  shift
  cmake -S test/consumer -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_PREFIX_PATH="$PREFIX" "$@" >"$dir.configure.log" 2>&1 &&
    ninja -C "$dir" -j"$JOBS" >"$dir.build.log" 2>&1
}
example=examples/normalization/softmax.mlir
if consumer "$WORK/consumer"; then
  ok "test/consumer configured and built against $PREFIX ($(grep -o 'Fusion [0-9.]*: compiler found: [A-Z]*' "$WORK/consumer.configure.log"))"
  if "$WORK/consumer/consumer-opt" --fusion-to-ptx "$example" >"$WORK/opt.mlir" 2>"$WORK/opt.err" &&
     grep -q 'gpu.binary' "$WORK/opt.mlir"; then
    ok "consumer-opt --fusion-to-ptx $example: $(grep -c 'gpu.binary' "$WORK/opt.mlir") gpu.binary"
  else
    head -5 "$WORK/opt.err"
    bad "consumer-opt --fusion-to-ptx $example"
  fi
  if ninja -C "$WORK/consumer" check-consumer >"$WORK/consumer-lit.log" 2>&1 &&
     grep -q 'Passed: 2 ' "$WORK/consumer-lit.log"; then
    ok "test/consumer's lit tests with consumer-opt: $(grep -o 'Passed: [0-9]* ([0-9.]*%)' "$WORK/consumer-lit.log")"
  else
    tail -20 "$WORK/consumer-lit.log"
    bad "ninja check-consumer"
  fi
  if printf 'func.func @f(%%t: tensor<4xf32>) -> tensor<4xf32> {\n  %%c = arith.constant 0.0 : f32\n  %%r = linalg.fill ins(%%c : f32) outs(%%t : tensor<4xf32>) -> tensor<4xf32>\n  return %%r : tensor<4xf32>\n}\n' |
     "$WORK/consumer/consumer-opt" - >/dev/null 2>"$WORK/linalg.err"; then
    ok "consumer-opt parses upstream dialects (linalg) beside fusion"
  else
    head -3 "$WORK/linalg.err"
    bad "consumer-opt on a linalg function"
  fi
  if out=$("$WORK/consumer/capi-compile" "$example" "$WORK/capi.fmod" 2>&1) &&
     [[ "$out" == *"written by fusion $version"* ]]; then
    ok "capi-compile (the compiler's C API, from C): ${out//$'\n'/; }"
    if "$PREFIX/bin/fusion-translate" --fusion-to-module "$example" -o "$WORK/translate.fmod" 2>/dev/null &&
       cmp -s "$WORK/capi.fmod" "$WORK/translate.fmod"; then
      ok "capi-compile wrote the same module file as fusion-translate --fusion-to-module ($(wc -c <"$WORK/capi.fmod") bytes)"
    else
      bad "capi-compile and fusion-translate wrote different module files for $example"
    fi
  else
    printf '%s\n' "$out"
    bad "capi-compile $example"
  fi
  if printf 'fusion.fusion @f(%%a: tensor<?xf32>) -> tensor<?xf32> {\n  %%0 = fusion.exp %%b : tensor<?xf32>\n  fusion.return %%0 : tensor<?xf32>\n}\n' >"$WORK/bad.mlir" &&
     ! "$WORK/consumer/capi-compile" "$WORK/bad.mlir" "$WORK/bad.fmod" 2>"$WORK/bad.err" &&
     grep -q "bad.mlir:2:.*undeclared SSA value" "$WORK/bad.err"; then
    ok "capi-compile reports a bad fusion at its line: $(head -1 "$WORK/bad.err")"
  else
    cat "$WORK/bad.err"
    bad "capi-compile on a bad fusion"
  fi
  fusion_name=$(sed -n '/^ *fusion\.fusion @/{s/^ *fusion\.fusion @\([A-Za-z0-9_]*\).*/\1/p;q;}' "$example")
  if "$PREFIX/bin/fusion-translate" --fusion-to-module --fusion="$fusion_name" "$example" -o "$WORK/m.fmod" 2>"$WORK/translate.err"; then
    for exe in module-info module-info-static; do
      if out=$("$WORK/consumer/$exe" "$WORK/m.fmod" 2>&1) && [[ "$out" == *"fusion $fusion_name for "* ]]; then
        ok "$exe: ${out//$'\n'/; }"
      else
        printf '%s\n' "$out"
        bad "$exe $WORK/m.fmod"
      fi
    done
  else
    head -3 "$WORK/translate.err"
    bad "installed fusion-translate --fusion-to-module $example"
  fi
else
  tail -15 "$WORK/consumer.configure.log" "$WORK/consumer.build.log" 2>/dev/null
  bad "test/consumer against $PREFIX"
fi

if consumer "$WORK/runtime-only" -DCONSUMER_RUNTIME_ONLY=ON &&
   grep -q 'compiler found: FALSE' "$WORK/runtime-only.configure.log" &&
   "$WORK/runtime-only/module-info" "$WORK/m.fmod" >/dev/null 2>&1; then
  ok "test/consumer with the runtime only (no MLIR): configured, built, ran"
else
  tail -15 "$WORK/runtime-only.configure.log" "$WORK/runtime-only.build.log" 2>/dev/null
  bad "test/consumer with the runtime only"
fi
finish
