#!/usr/bin/env bash
# Builds the libFuzzer targets (fuzz/, docs/fuzzing.md), makes their seed
# corpora and runs each target for a while.
#
#   bash utils/fuzz.sh                        both targets, 60 s each (CI's run)
#   bash utils/fuzz.sh compile                one target: compile or module
#   FUZZ_SECONDS=3600 bash utils/fuzz.sh      the long run: an hour per target
#   FUZZ_SECONDS=3600 FUZZ_WORKERS=2 bash utils/fuzz.sh
#                                             the long run in 2 processes per
#                                             target (-jobs=2 -workers=2; their
#                                             logs are fuzz-N.log in the log
#                                             folder)
#
# Targets:
#   compile   fusion-fuzz-compile: IR text -> parse, verify, --fusion-to-ptx of
#             each fusion (seeds: test/ examples/ bench/cases/ split at // -----)
#   module    fusion-fuzz-module: module file -> runtime load, plan, run on the
#             fake CUDA driver (seeds: fusion-translate --fusion-to-module of the
#             examples, bench cases and GPU tests, from $FUSION_BUILD_DIR)
#
# In $FUZZ_BUILD_DIR (build-fuzz/, configured with clang-22 when it is not yet):
#   fuzz/seeds/TARGET/      seeds made by fuzz/make-seeds.py (remade each run for
#                           compile; for module when fusion-translate changed)
#   fuzz/corpus/TARGET/     the corpus libFuzzer grows; kept between runs
#   fuzz/artifacts/TARGET/  reproducers: crash-*, timeout-*, oom-*, leak-*
#                           (an earlier run's are moved to previous/)
#   fuzz/logs/TARGET.log    libFuzzer's output
# A reproducer replays with the target and the file, e.g.
#   build-fuzz/bin/fusion-fuzz-compile build-fuzz/fuzz/artifacts/compile/crash-...
#
# Each target runs with -max_total_time=$FUZZ_SECONDS -rss_limit_mb=2048
# -timeout=60 -print_final_stats=1 -seed=$FUZZ_SEED (compile: -max_len=65536,
# its input cap). The time includes replaying the seeds and the kept corpus
# first (about a minute for compile's seeds alone). Per target it prints the
# executions and whether it crashed; the last line is "fuzz: N passed, N
# failed". Exits 1 on any crash, timeout, OOM or leak (or a failed build), 3
# when this machine cannot build the fuzzers (no clang++-22: bash
# utils/setup.sh installs it).
#
# With FUZZ_PREBUILT=1 nothing is configured or built: the targets must be in
# $FUZZ_BUILD_DIR/bin already (e.g. copied to a machine with more cores and no
# clang; link them with -DFUSION_STATIC_LLVM=ON so that they need no libLLVM).
#
# Environment: FUZZ_SECONDS (60), FUZZ_WORKERS (1), FUZZ_SEED (1; 0: random),
# FUZZ_DETECT_LEAKS (1: LeakSanitizer after every input; 0: off),
# FUZZ_BUILD_DIR (build-fuzz), FUSION_BUILD_DIR (build: its fusion-translate
# makes the module seeds), FUSION_JOBS (2: ninja and seed-making jobs),
# FUZZ_ARGS (more libFuzzer flags).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
FUZZ_BUILD_DIR="${FUZZ_BUILD_DIR:-build-fuzz}"
FUZZ_BUILD_DIR="$(mkdir -p "$FUZZ_BUILD_DIR" && cd "$FUZZ_BUILD_DIR" && pwd)"
MAIN_BUILD_DIR="${FUSION_BUILD_DIR:-build}"
SECONDS_PER_TARGET="${FUZZ_SECONDS:-60}"
WORKERS="${FUZZ_WORKERS:-1}"
SEED="${FUZZ_SEED:-1}"
JOBS="${FUSION_JOBS:-2}"
read -r -a EXTRA_ARGS <<<"${FUZZ_ARGS:-}"

say() { echo "[fuzz] $*"; }

targets=("$@")
((${#targets[@]})) || targets=(compile module)
for t in "${targets[@]}"; do
  case "$t" in
    compile|module) ;;
    *) say "unknown target '$t' (compile or module)"; exit 2 ;;
  esac
done

# --- 1. Configure and build (only the fuzz targets) ----------------------------
build_fuzzers() {
  CC_BIN=$(command -v clang-22 || true)
  CXX_BIN=$(command -v clang++-22 || true)
  if [[ -z "$CXX_BIN" || -z "$CC_BIN" ]]; then
    say "clang++-22 not found: cannot build the fuzzers here (bash utils/setup.sh installs clang-22 and libclang-rt-22-dev)"
    exit 3
  fi
  if [[ -f "$FUZZ_BUILD_DIR/CMakeCache.txt" ]]; then
    src=$(sed -n 's/^CMAKE_HOME_DIRECTORY:INTERNAL=//p' "$FUZZ_BUILD_DIR/CMakeCache.txt")
    if [[ "$src" != "$ROOT" ]]; then
      say "$FUZZ_BUILD_DIR was configured for $src, not $ROOT: reconfiguring from scratch"
      rm -rf "$FUZZ_BUILD_DIR"
      mkdir -p "$FUZZ_BUILD_DIR"
    fi
  fi
  if [[ ! -f "$FUZZ_BUILD_DIR/build.ninja" ]]; then
    say "configuring $FUZZ_BUILD_DIR"
    cmake -S . -B "$FUZZ_BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
      -DCMAKE_C_COMPILER="$CC_BIN" -DCMAKE_CXX_COMPILER="$CXX_BIN" \
      -DFUSION_ENABLE_FUZZERS=ON -DFUSION_ENABLE_TESTS=OFF \
      -DFUSION_ENABLE_PYTHON_EXT=OFF
  fi
  build_targets=()
  for t in "${targets[@]}"; do build_targets+=("fusion-fuzz-$t"); done
  say "building ${build_targets[*]} (ninja -j$JOBS)"
  build_start=$SECONDS
  ninja -C "$FUZZ_BUILD_DIR" -j"$JOBS" "${build_targets[@]}"
  say "built in $((SECONDS - build_start)) s"
}
if [[ "${FUZZ_PREBUILT:-0}" == 1 ]]; then
  for t in "${targets[@]}"; do
    if [[ ! -x "$FUZZ_BUILD_DIR/bin/fusion-fuzz-$t" ]]; then
      say "FUZZ_PREBUILT=1 but there is no $FUZZ_BUILD_DIR/bin/fusion-fuzz-$t"
      exit 2
    fi
  done
  say "FUZZ_PREBUILT=1: using the targets in $FUZZ_BUILD_DIR/bin as they are"
else
  build_fuzzers
fi

# --- 2. Seeds ---------------------------------------------------------------------
FUZZ_DIR="$FUZZ_BUILD_DIR/fuzz"
make_seeds() {
  local target=$1 dir="$FUZZ_DIR/seeds/$1"
  case "$target" in
    compile)
      rm -rf "$dir"
      python3 fuzz/make-seeds.py compile "$dir"
      ;;
    module)
      local translate="$MAIN_BUILD_DIR/bin/fusion-translate" stamp="$dir/.made-with"
      if [[ ! -x "$translate" ]]; then
        say "warning: no $translate (bash utils/run-tests.sh builds it): no new module seeds"
        mkdir -p "$dir"
      elif [[ ! -f "$stamp" || "$translate" -nt "$stamp" ]]; then
        rm -rf "$dir"
        python3 fuzz/make-seeds.py module "$dir" --translate "$translate" --jobs "$JOBS"
        echo "$translate" >"$stamp"
      else
        say "module seeds in $dir are up to date with $translate"
      fi
      ;;
  esac
}

# --- 3. Run -------------------------------------------------------------------------
results=()  # one line per target
passed=0
failed=0

# The top frames of the first sanitizer or libFuzzer report in log $1.
top_frames() {
  awk '/ERROR: (AddressSanitizer|LeakSanitizer|UndefinedBehaviorSanitizer|libFuzzer)|runtime error:|ALARM: working on the last Unit|==[0-9]+== ?ERROR/ {on=1}
       on && /^ *#[0-9]+ / && !/ in fuzzer::|in LLVMFuzzerTestOneInput|libc_start|in main |in _start/ {print; n++}
       n >= 8 {exit}' "$1" | sed -E 's/ \(BuildId: [0-9a-f]+\)//; s/^ +/    /'
}

run_target() {
  local target=$1 binary="$FUZZ_BUILD_DIR/bin/fusion-fuzz-$1"
  local corpus="$FUZZ_DIR/corpus/$target" artifacts="$FUZZ_DIR/artifacts/$target"
  local logs="$FUZZ_DIR/logs" log="$FUZZ_DIR/logs/$target.log"
  mkdir -p "$corpus" "$artifacts/previous" "$logs"
  find "$artifacts" -maxdepth 1 -type f -exec mv -f {} "$artifacts/previous/" \;
  make_seeds "$target"

  # UBSan's reports with a stack; the module target finds the fake driver by
  # LD_LIBRARY_PATH too (it also loads it by path itself).
  local env=(UBSAN_OPTIONS="${UBSAN_OPTIONS:-}${UBSAN_OPTIONS:+:}print_stacktrace=1")
  if [[ "$target" == module ]]; then
    env+=(LD_LIBRARY_PATH="$FUZZ_BUILD_DIR/fuzz/fakecuda${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}")
  fi
  # Leak checks: on for both targets (Note [Fuzzing leaks] in
  # docs/fuzzing.md); FUZZ_DETECT_LEAKS=0 turns them off. Off needs ASan's
  # exit-time check off too, or it blames the last input.
  local leaks="${FUZZ_DETECT_LEAKS:-1}"
  if ((leaks == 0)); then
    env+=(ASAN_OPTIONS="${ASAN_OPTIONS:-}${ASAN_OPTIONS:+:}detect_leaks=0")
  fi
  local args=(-max_total_time="$SECONDS_PER_TARGET" -rss_limit_mb=2048 -timeout=60
              -print_final_stats=1 -detect_leaks="$leaks" -artifact_prefix="$artifacts/")
  # The compile target takes up to 64 KiB; without -max_len libFuzzer would
  # never grow an input past its largest seed (about 1.4 KiB).
  [[ "$target" == compile ]] && args+=(-max_len=65536)
  ((SEED != 0)) && args+=(-seed="$SEED")
  ((WORKERS > 1)) && args+=(-jobs="$WORKERS" -workers="$WORKERS")
  args+=("${EXTRA_ARGS[@]}")
  local replay
  replay="$(printf '%q ' "${env[@]}")$binary -detect_leaks=$leaks"

  local banner_line="fusion-fuzz-$target for ${SECONDS_PER_TARGET}s"
  ((SEED != 0)) && banner_line+=" (seed $SEED)"
  ((WORKERS > 1)) && banner_line+=" in $WORKERS processes"
  say "running $banner_line: log in $log"
  rm -f "$logs"/fuzz-*.log
  local rc=0 start=$SECONDS
  # Past -max_total_time: the seed corpus runs first, and a unit may take up
  # to -timeout; a run that hangs beyond that is killed and counts as failed.
  (cd "$logs" && env "${env[@]}" timeout -k 30 $((SECONDS_PER_TARGET + 1200)) \
     "$binary" "${args[@]}" "$corpus" "$FUZZ_DIR/seeds/$target") >"$log" 2>&1 || rc=$?
  local secs=$((SECONDS - start))
  # With several workers libFuzzer copies each job's log, final stats
  # included, into the main log: count the jobs' own logs only.
  local all_logs=("$log")
  ((WORKERS > 1)) && all_logs=("$logs"/fuzz-*.log)

  local execs
  execs=$(cat "${all_logs[@]}" 2>/dev/null | sed -n 's/^stat::number_of_executed_units: *//p' | awk '{s += $1} END {print s + 0}')
  local found=()
  for f in "$artifacts"/crash-* "$artifacts"/timeout-* "$artifacts"/oom-* "$artifacts"/leak-*; do
    [[ -f "$f" ]] && found+=("$f")
  done
  if ((rc == 0 && ${#found[@]} == 0)); then
    say "$target: $execs executions in ${secs}s, no crash"
    results+=("$target: $execs executions, no crash")
    passed=$((passed + 1))
    return
  fi
  failed=$((failed + 1))
  local kind="exit status $rc"
  ((rc == 124 || rc == 137)) && kind="killed after ${secs}s (hung)"
  if ((${#found[@]})); then
    kind=$(basename "${found[0]}"); kind=${kind%%-*}
  fi
  say "$target: FAILED ($kind) after $execs executions in ${secs}s"
  grep -E -m3 'ERROR: |runtime error:|ALARM:|out-of-memory|fusion-fuzz-module: ' "${all_logs[@]}" 2>/dev/null | sed 's/^/    /' || true
  say "$target: top frames:"
  local frames_log
  for frames_log in "${all_logs[@]}"; do
    if [[ -n "$(top_frames "$frames_log")" ]]; then
      top_frames "$frames_log"
      break
    fi
  done
  for f in "${found[@]}"; do
    say "$target: reproducer $f ($(stat -c %s "$f") bytes); replay: $replay $f"
  done
  ((${#found[@]})) || say "$target: no reproducer written; see $log"
  results+=("$target: FAILED ($kind) after $execs executions${found:+, reproducer ${found[0]}}")
}

for t in "${targets[@]}"; do
  run_target "$t"
done

echo
printf 'fuzz-result: %s\n' "${results[@]}"
echo "fuzz: $passed passed, $failed failed"
((failed == 0))
