#!/usr/bin/env bash
# The unit tests and the lit tests under AddressSanitizer and
# UndefinedBehaviorSanitizer: configures build-asan/ (gcc, Release with
# -fsanitize=address,undefined on the project's code; FUSION_SANITIZE picks
# others), builds the tools and the test programs, and runs ctest and lit
# there. Any report fails the run (halt_on_error; -fno-sanitize-recover).
#
#   bash utils/sanitize.sh              configure if needed, build, test
#   FUSION_SANITIZE_DIR=out bash ...    another build folder
#
# Leak checks: on for the runtime's tests (a module, a plan or device memory
# not freed is a bug there); off for the compiler's tools and tests, whose
# option registries and MLIR contexts live until exit by design.
#
# Note [Sanitizing against Debian's MLIR]: LLVM's headers poison and unpoison
# the slabs of their bump allocators when they are compiled with ASan, but
# libMLIR (as Debian builds it) is not, so an MLIRContext made in an ASan
# build reads its own fresh slab as "use-after-poison" (in
# Dialect::addType). The compiler's runs therefore set
# allow_user_poisoning=0: ASan still checks every malloc'd block, the stack
# and globals; only the allocators' manual poisoning is off.
# Prints "sanitize: N passed, N failed" last (ctest and lit); exits non-zero
# on any failure.
set -uo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
DIR="${FUSION_SANITIZE_DIR:-build-asan}"
JOBS="${FUSION_JOBS:-2}"
SANITIZERS="${FUSION_SANITIZE:-address,undefined}"
say() { echo "[sanitize] $*"; }

if [[ ! -f "$DIR/build.ninja" ]]; then
  say "configuring $DIR/ (-fsanitize=$SANITIZERS)"
  cmake -S . -B "$DIR" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_C_COMPILER=gcc -DCMAKE_CXX_COMPILER=g++ \
    -DFUSION_SANITIZE="$SANITIZERS" -DFUSION_ENABLE_PYTHON_EXT=OFF >/dev/null ||
    { say "cmake failed"; exit 1; }
fi
say "building $DIR/"
ninja -C "$DIR" -j"$JOBS" || { say "build failed"; exit 1; }

export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
passed=0
failed=0

say "ctest (runtime tests with leak checks, the others without)"
ASAN_OPTIONS="detect_leaks=1:abort_on_error=0" ctest --test-dir "$DIR" -j"$JOBS" \
  --output-on-failure -R '^(Runtime|RuntimeFakeDriver|ModuleVerifier|CApi|DType|ExprEvaluator|LaunchPlan|PackedApi|SharedLibrary|SignatureCheck|GPURuntime)' \
  >"$DIR/ctest-runtime.log" 2>&1
rc_rt=$?
ASAN_OPTIONS="detect_leaks=0:allow_user_poisoning=0" ctest --test-dir "$DIR" -j"$JOBS" --output-on-failure \
  -E '^(Runtime|RuntimeFakeDriver|ModuleVerifier|CApi|DType|ExprEvaluator|LaunchPlan|PackedApi|SharedLibrary|SignatureCheck|GPURuntime)' \
  >"$DIR/ctest-other.log" 2>&1
rc_other=$?
for log in "$DIR/ctest-runtime.log" "$DIR/ctest-other.log"; do
  line=$(grep -Eo '[0-9]+% tests passed, [0-9]+ tests? failed out of [0-9]+' "$log" | tail -n 1)
  echo "  $(basename "$log" .log): ${line:-no ctest summary (see $log)}"
  if [[ "$line" =~ ([0-9]+)\ tests?\ failed\ out\ of\ ([0-9]+) ]]; then
    failed=$((failed + BASH_REMATCH[1]))
    passed=$((passed + BASH_REMATCH[2] - BASH_REMATCH[1]))
  else
    failed=$((failed + 1))
  fi
done
((rc_rt == 0 && rc_other == 0)) || grep -E "ERROR: AddressSanitizer|runtime error:|LeakSanitizer" \
  "$DIR"/ctest-*.log | sed -n 1,20p

say "lit (the tools under ASan and UBSan)"
ASAN_OPTIONS="detect_leaks=0:allow_user_poisoning=0" ninja -C "$DIR" check-fusion-lit >"$DIR/lit.log" 2>&1
rc_lit=$?
sed -n '/^Total Discovered/,$p' "$DIR/lit.log"
lit_pass=$(sed -n -E 's/^ +Passed *: *([0-9]+).*/\1/p' "$DIR/lit.log")
lit_fail=$(sed -n -E 's/^ +Failed *: *([0-9]+).*/\1/p' "$DIR/lit.log")
passed=$((passed + ${lit_pass:-0}))
failed=$((failed + ${lit_fail:-0}))
((rc_lit == 0)) || { ((${lit_fail:-0})) || failed=$((failed + 1)); grep -E "^FAIL:|ERROR: AddressSanitizer|runtime error:" "$DIR/lit.log" | sed -n 1,20p; }

echo "sanitize: $passed passed, $failed failed"
((failed == 0 && rc_rt == 0 && rc_other == 0 && rc_lit == 0))
