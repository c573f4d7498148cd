#!/usr/bin/env bash
# Fusion's test command: everything CI checks, runnable on any dev machine.
#
#   bash utils/run-tests.sh
#
# 1. utils/setup.sh: install the Debian packages, configure build/ (idempotent);
#    utils/test-setup.sh: its install branch against stand-ins for apt and dpkg
# 2. build everything (ninja)
# 3. GoogleTest through ctest
# 4. lit + FileCheck tests (ninja check-fusion-lit)
# 5. clang-format check (utils/check-format.sh)
# 6. if build/bin/fusion-translate exists: examples/*.mlir -> PTX, verified
#    with ptxas -arch=sm_90a (every fusion of examples/, bench/cases/ and test/GPU/)
#    and the kernel variants the GPU tests expect checked against the launch
#    plan (utils/check-gpu-variants.py)
# 7. Python frontend and benchmark suite: pytest on test/python and
#    test/bench (installs pytest and numpy with pip if missing; GPU tests
#    skip without torch CUDA)
# 7b. install: cmake --install into a temporary prefix and the out-of-tree
#    consumer in test/consumer built against it (utils/test-install.sh)
# 7c. wheel: the Python wheel built, installed into a fresh venv, the
#    tutorial of docs/python.md and test/python run against it
#    (utils/test-wheel.sh)
# 8. fuzz: a short run (60 s per target) of the libFuzzer targets with
#    utils/fuzz.sh, in build-fuzz/ (clang-22, ASan + UBSan; docs/fuzzing.md);
#    a crash, timeout or OOM fails it and leaves the reproducer in
#    build-fuzz/fuzz/artifacts/. FUSION_SKIP_FUZZ=1 skips it.
# 9. sanitize: the unit and lit tests again under ASan + UBSan in build-asan/
#    (utils/sanitize.sh). FUSION_SKIP_SANITIZE=1 skips it.
# Exits non-zero if any step fails; the last line is a one-line summary.
#
# Environment: FUSION_BUILD_DIR (build), FUSION_JOBS (2), FUSION_PTX_ARCH
# (sm_90a), FUSION_SKIP_FUZZ (0), FUZZ_SECONDS (60), FUSION_SKIP_SANITIZE (0).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
BUILD_DIR="${FUSION_BUILD_DIR:-build}"
JOBS="${FUSION_JOBS:-2}"
ARCH="${FUSION_PTX_ARCH:-sm_90a}"
START=$SECONDS

summary=()   # "step: result" lines for the final report
failed=()    # names of the failed steps

banner() { printf '\n===== %s =====\n' "$*"; }
pass() { summary+=("  $1: ok${2:+ ($2)}"); }
fail() { summary+=("  $1: FAILED${2:+ ($2)}"); failed+=("$1"); }
skip() { summary+=("  $1: skipped ($2)"); }

report() {
  local rc=$?
  local secs=$((SECONDS - START))
  echo
  echo "===== summary ====="
  ((${#summary[@]})) && printf '%s\n' "${summary[@]}"
  if ((${#failed[@]} == 0 && rc == 0)); then
    echo "run-tests: PASSED in ${secs}s"
  else
    ((${#failed[@]})) || failed=("exit status $rc")
    (IFS=,; echo "run-tests: FAILED (${failed[*]}) in ${secs}s" | sed "s/,/, /g")
    ((rc)) || rc=1
  fi
  exit "$rc"
}
trap report EXIT

# --- setup and build: nothing else can run without them --------------------------
banner "setup"
if ! bash utils/setup.sh; then
  fail setup "utils/setup.sh"
  exit 1
fi
pass setup

# --- setup.sh's install branch, as a fresh machine runs it --------------------------
# This machine may have every package already, so the branch above may not have
# run: utils/test-setup.sh runs it against stand-ins for apt and dpkg.
banner "setup on a fresh machine (utils/test-setup.sh)"
# (Output is captured, then printed: `tee /dev/stderr` would reopen stderr
# and truncate it when it is a file, losing the log before this step.)
src=0
setup_out=$(bash utils/test-setup.sh 2>&1) || src=$?
printf '%s\n' "$setup_out"
line=${setup_out##*$'\n'}
if ((src == 0)) && [[ "$line" == *" 0 failed" ]]; then
  pass setup-test "${line#test-setup: }"
else
  fail setup-test "${line#test-setup: }"
fi

banner "build"
if ! ninja -C "$BUILD_DIR" -j"$JOBS"; then
  fail build "ninja -C $BUILD_DIR"
  exit 1
fi
pass build

LOG_DIR="$BUILD_DIR/test-logs"
mkdir -p "$LOG_DIR"

# script_step NAME PREFIX COMMAND...: runs a step's script with its output on
# the terminal and in $LOG_DIR/NAME.log; the summary's detail is the last
# line the script starts with "PREFIX: ".
script_step() {
  local name=$1 prefix=$2 rc detail
  shift 2
  set +e
  "$@" 2>&1 | tee "$LOG_DIR/$name.log"
  rc=${PIPESTATUS[0]}
  set -e
  detail=$(sed -n "s/^$prefix: //p" "$LOG_DIR/$name.log" | tail -n 1)
  if ((rc == 0)); then
    pass "$name" "$detail"
  else
    fail "$name" "${detail:-exit code $rc; see $LOG_DIR/$name.log}"
  fi
}

# --- GoogleTest ------------------------------------------------------------------
banner "ctest (GoogleTest)"
if ctest --test-dir "$BUILD_DIR" --output-on-failure -j"$JOBS" 2>&1 | tee "$LOG_DIR/ctest.log"; then
  detail=$(grep -Eo '[0-9]+% tests passed, [0-9]+ tests? failed out of [0-9]+' "$LOG_DIR/ctest.log" | tail -1 || true)
  grep -q 'No tests were found' "$LOG_DIR/ctest.log" && detail="no tests registered yet"
  pass ctest "$detail"
else
  fail ctest "$(grep -Eo '[0-9]+ tests? failed out of [0-9]+' "$LOG_DIR/ctest.log" | tail -1 || true)"
fi

# --- lit + FileCheck -------------------------------------------------------------
banner "lit (ninja check-fusion-lit)"
lit_counts() {
  grep -E '^ +(Passed|Failed|Unsupported|Expectedly Failed|Unexpectedly Passed|Unresolved|Timed Out|Skipped|Excluded) *:' \
    "$LOG_DIR/lit.log" | sed -E 's/^ +//; s/ *\(.*//; s/ *: */ /' | paste -sd, - | sed 's/,/, /g' || true
}
if ninja -C "$BUILD_DIR" check-fusion-lit 2>&1 | tee "$LOG_DIR/lit.log"; then
  pass lit "$(lit_counts)"
else
  d=$(lit_counts)
  grep -q 'did not discover any tests' "$LOG_DIR/lit.log" && d="lit found no tests"
  fail lit "$d"
fi

# --- format ------------------------------------------------------------------------
banner "clang-format"
if bash utils/check-format.sh; then
  pass format
else
  fail format "utils/check-format.sh lists the files"
fi

# --- fusions -> PTX -> ptxas -------------------------------------------------------
# Every fusion of the examples, the benchmark cases and the GPU tests, one at a
# time (a file's fusions compile to separate PTX modules).
banner "fusions -> PTX ($ARCH)"
TRANSLATE="$BUILD_DIR/bin/fusion-translate"
shopt -s nullglob
examples=(examples/*.mlir examples/*/*.mlir bench/cases/*.mlir test/GPU/*.mlir)
if [[ ! -x "$TRANSLATE" ]]; then
  echo "$TRANSLATE is not built yet: skipping PTX generation of the examples"
  skip ptx "no $TRANSLATE yet"
elif ((${#examples[@]} == 0)); then
  echo "no examples/*.mlir"
  skip ptx "no examples"
else
  PTXAS=$(command -v ptxas || true)
  [[ -z "$PTXAS" && -x /usr/local/cuda/bin/ptxas ]] && PTXAS=/usr/local/cuda/bin/ptxas
  if [[ -z "$PTXAS" ]]; then
    echo "warning: ptxas not found (CUDA toolkit): PTX is generated but not verified"
  fi
  mkdir -p "$BUILD_DIR/ptx"
  ok=0; bad=(); total=0
  for ex in "${examples[@]}"; do
    for fusion in $(sed -n 's/^fusion\.fusion @\([A-Za-z0-9_]*\).*/\1/p' "$ex"); do
      total=$((total + 1))
      name=$(echo "${ex%.mlir}" | tr '/' '_')-$fusion
      ptx="$BUILD_DIR/ptx/$name.ptx"
      if ! "$TRANSLATE" --fusion-to-ptx "$ex" --fusion="$fusion" -o "$ptx"; then
        echo "FAILED: $TRANSLATE --fusion-to-ptx $ex --fusion=$fusion"
        bad+=("$name")
        continue
      fi
      if [[ ! -s "$ptx" ]]; then
        echo "ok: $ex @$fusion has no kernels (its outputs are views)"
      elif [[ -n "$PTXAS" ]]; then
        if ! "$PTXAS" -arch="$ARCH" "$ptx" -o "$BUILD_DIR/ptx/$name.cubin"; then
          echo "FAILED: ptxas -arch=$ARCH $ptx"
          bad+=("$name")
          continue
        fi
      fi
      ok=$((ok + 1))
    done
  done
  echo "$ok of $total fusions compiled${PTXAS:+ and accepted by ptxas -arch=$ARCH}"
  if ((${#bad[@]})); then
    fail ptx "$ok of $total fusions ok; failed: ${bad[*]}"
  elif [[ -z "$PTXAS" && "${CI:-}" == true ]]; then
    fail ptx "ptxas is missing in CI"
  else
    pass ptx "$ok fusions (examples, bench cases, GPU tests) compiled${PTXAS:+ and verified by ptxas}"
  fi
fi

# --- the GPU tests' expected kernel variants ----------------------------------------
# fusion-run --verbose prints the launch plan before it needs a device: the
# variants the GPU lit tests expect must be the ones the plan picks.
banner "GPU tests' kernel variants (utils/check-gpu-variants.py)"
if [[ ! -x "$BUILD_DIR/bin/fusion-run" ]]; then
  skip variants "no $BUILD_DIR/bin/fusion-run"
else
  # Captured, then printed (see the setup test above on `tee /dev/stderr`).
  vrc=0
  variants_out=$(python3 utils/check-gpu-variants.py --fusion-run "$BUILD_DIR/bin/fusion-run" 2>&1) || vrc=$?
  printf '%s\n' "$variants_out"
  line=${variants_out##*$'\n'}
  if ((vrc == 0)) && [[ "$line" == *" 0 mismatches" ]]; then
    pass variants "${line#check-gpu-variants: }"
  else
    fail variants "${line#check-gpu-variants: }"
  fi
fi

# --- Python frontend (pytest) ------------------------------------------------------
banner "python (pytest test/python test/bench)"
PYTHON="${PYTHON:-python3}"
if ! "$PYTHON" -c 'import pytest, numpy' 2>/dev/null; then
  echo "installing pytest and numpy with pip"
  "$PYTHON" -m pip install -q pytest numpy || true
fi
if ! "$PYTHON" -c 'import pytest, numpy' 2>/dev/null; then
  fail python "pytest or numpy missing and pip could not install them"
else
  set +e
  FUSION_BUILD_DIR="$BUILD_DIR" "$PYTHON" -m pytest -q -rs test/python test/bench 2>&1 | tee "$LOG_DIR/pytest.log"
  rc=${PIPESTATUS[0]}
  set -e
  # pytest's last line: "N passed, M skipped in Xs" (exit 5: no tests collected).
  detail=$(grep -E '^=* ?[0-9]+ (passed|failed|error|skipped)|no tests ran' "$LOG_DIR/pytest.log" | tail -1 | sed -E 's/=+//g; s/^ +| +$//g' || true)
  if ((rc == 0)); then
    pass python "$detail"
  elif ((rc == 5)); then
    fail python "pytest collected no tests"
  else
    fail python "${detail:-pytest exit code $rc}"
  fi
fi

# --- the install and the CMake package (utils/test-install.sh) ----------------------
# cmake --install into a temporary prefix, then test/consumer built against it
# (the compiler and the runtime, then the runtime alone).
banner "install (utils/test-install.sh)"
script_step install test-install \
  env FUSION_BUILD_DIR="$BUILD_DIR" FUSION_JOBS="$JOBS" bash utils/test-install.sh

# --- the wheel (utils/test-wheel.sh) -------------------------------------------------
# The Python package as users install it: the wheel built (build-wheel/,
# LLVM linked statically), installed into a fresh venv, the tutorial of
# docs/python.md and test/python run against it.
banner "wheel (utils/test-wheel.sh)"
script_step wheel test-wheel env FUSION_JOBS="$JOBS" bash utils/test-wheel.sh

# --- fuzzers (utils/fuzz.sh) --------------------------------------------------------
# A short run of each libFuzzer target in build-fuzz/ (docs/fuzzing.md). The
# compiler target has to build the compiler libraries with clang and the
# sanitizers first (ccache keeps that between runs).
FUZZ_SECONDS="${FUZZ_SECONDS:-60}"
banner "fuzz (utils/fuzz.sh, ${FUZZ_SECONDS} s per target)"
if [[ "${FUSION_SKIP_FUZZ:-0}" == 1 ]]; then
  skip fuzz "FUSION_SKIP_FUZZ=1"
else
  set +e
  FUSION_BUILD_DIR="$BUILD_DIR" FUSION_JOBS="$JOBS" FUZZ_SECONDS="$FUZZ_SECONDS" \
    bash utils/fuzz.sh 2>&1 | tee "$LOG_DIR/fuzz.log"
  rc=${PIPESTATUS[0]}
  set -e
  # fuzz.sh prints one "fuzz-result: TARGET: ..." line per target.
  detail=$(sed -n 's/^fuzz-result: //p' "$LOG_DIR/fuzz.log" | paste -sd';' - | sed 's/;/; /g' || true)
  if ((rc == 0)); then
    pass fuzz "$detail"
  elif ((rc == 3)); then
    skip fuzz "$(sed -n 's/^\[fuzz\] //p' "$LOG_DIR/fuzz.log" | tail -n 1)"
  else
    fail fuzz "${detail:-utils/fuzz.sh exit code $rc; see $LOG_DIR/fuzz.log}"
  fi
fi

# --- sanitizers (utils/sanitize.sh) -------------------------------------------------
# The unit tests and the lit tests again, in build-asan/ with ASan and UBSan on
# the project's code (ccache keeps that build between runs).
banner "sanitizers (utils/sanitize.sh: ASan + UBSan)"
if [[ "${FUSION_SKIP_SANITIZE:-0}" == 1 ]]; then
  skip sanitize "FUSION_SKIP_SANITIZE=1"
else
  script_step sanitize sanitize env FUSION_JOBS="$JOBS" bash utils/sanitize.sh
fi

((${#failed[@]} == 0))
