#!/usr/bin/env bash
# Runs on the GPU machine, from the unpacked bundle (utils/build-gpu-bundle.sh):
# the runtime's GPU unit tests, the lit tests (GPU ones included), and the
# benchmark suite (bench/run.py). Logs and bench.json go to $OUT when it is set.
set -uo pipefail
cd "$(dirname "$0")"
out=${OUT:-$PWD/out}
mkdir -p "$out"
status=0
export PATH=$PWD/bin:$PATH
export FUSION_RUNTIME_LIBRARY=$PWD/lib/libfusion_runtime.so
export PYTHONUNBUFFERED=1
nvidia-smi -L || true
ls /usr/local/cuda/nvvm/libdevice/ 2>&1 | sed -n 1,2p

# SANITIZE_ONLY=1: only the compute-sanitizer runs below (lit is installed).
if [ "${SANITIZE_ONLY:-0}" = 1 ]; then
  SANITIZE=1 SKIP_BENCH=1
  python3 -m pip install -q --no-index --no-deps --target /tmp/litsite wheels/*.whl
fi
if [ "${SANITIZE_ONLY:-0}" != 1 ]; then
echo "== runtime unit tests (GPU tests included)"
bin/FusionRuntimeTests --gtest_brief=1 2>&1 | tee "$out/runtime-tests.log" | tail -5
[ "${PIPESTATUS[0]}" -eq 0 ] || status=1

echo "== the static compiler on this machine"
bin/fusion-translate examples/gelu_bias.mlir --fusion-to-module -o /tmp/gelu_bias.fusionmod \
  && echo "fusion-translate: compiled gelu_bias here ($(stat -c %s /tmp/gelu_bias.fusionmod) bytes)" \
  || status=1

if [ -x bin/fusion-run ]; then
echo "== lit"
python3 -m pip install -q --no-index --no-deps --target /tmp/litsite wheels/*.whl
PYTHONPATH=/tmp/litsite python3 -c "import lit.main; lit.main.main()" -sv -j "${LIT_JOBS:-4}" test/GPU 2>&1 | tee "$out/lit.log" | tail -15
[ "${PIPESTATUS[0]}" -eq 0 ] || status=1
else
  echo "== lit: skipped (no fusion-run in this bundle)"
fi

if [ -x bin/fusion-run ] && [ -f utils/opgen.py ]; then
  # The property test (utils/opgen.py): random definitions over every op,
  # compiled here and run against the interpreter.
  echo "== property test: random definitions on the GPU"
  rm -rf /tmp/opgen-prop
  python3 utils/opgen.py --tools bin property --count "${PROPERTY_COUNT:-60}" \
    --seed "${PROPERTY_SEED:-3}" --out /tmp/opgen-prop >"$out/property.log" 2>&1 || status=1
  python3 utils/opgen.py --tools bin run /tmp/opgen-prop >>"$out/property.log" 2>&1 || status=1
  # The whole log is in $out; the summary lines and any failure are the tail.
  tail -n 40 "$out/property.log"
fi

fi # SANITIZE_ONLY

# compute-sanitizer over the GPU lit tests (Note [Sanitized GPU runs] in
# test/lit.cfg.py): SANITIZE=1 runs memcheck, racecheck, initcheck and
# synccheck (SANITIZE_TOOLS picks), each over test/GPU (SANITIZE_FILTER: a lit
# --filter regex) but no-device.mlir, which runs without a driver. Each
# sanitized process writes its report to a log of its own; a tool's run fails
# on any error reported or any test failed.
if [ -x bin/fusion-run ] && [ "${SANITIZE:-0}" = 1 ]; then
  for tool in ${SANITIZE_TOOLS:-memcheck racecheck initcheck synccheck}; do
    echo "== compute-sanitizer --tool $tool over test/GPU"
    logs=/tmp/sanitize-$tool
    rm -rf "$logs" && mkdir -p "$logs"
    FUSION_RUN_WRAPPER="compute-sanitizer --tool $tool --error-exitcode 86 --print-limit 20 --log-file $logs/%%p.log" \
      PYTHONPATH=/tmp/litsite python3 -c "import lit.main; lit.main.main()" -v -j "${LIT_JOBS:-4}" \
      --filter-out 'no-device' ${SANITIZE_FILTER:+--filter "$SANITIZE_FILTER"} test/GPU >"$out/sanitize-$tool.log" 2>&1
    rc=$?
    # memcheck, initcheck and synccheck end with "ERROR SUMMARY: N errors",
    # racecheck with "RACECHECK SUMMARY: H hazards displayed (N errors, W
    # warnings)".
    summaries=$(cat "$logs"/*.log 2>/dev/null | grep -E "(ERROR|RACECHECK) SUMMARY:")
    runs=$(grep -c . <<<"$summaries")
    errors=$(sed -n -E 's/.*ERROR SUMMARY: ([0-9]+) error.*/\1/p; s/.*RACECHECK SUMMARY: .*\(([0-9]+) error.*/\1/p' <<<"$summaries" |
      awk '{s += $1} END {print s + 0}')
    if [ "$errors" -ne 0 ]; then
      grep -lE "ERROR SUMMARY: [1-9]|\([1-9][0-9]* error" "$logs"/*.log | while read -r f; do
        echo "--- $f"; sed -n 1,40p "$f"
      done >>"$out/sanitize-$tool.log"
    fi
    sed -n '/^Total Discovered/,$p' "$out/sanitize-$tool.log"
    echo "compute-sanitizer $tool: $runs sanitized runs, $errors errors (lit exit $rc)"
    [ "$rc" -eq 0 ] && [ "$errors" -eq 0 ] || status=1
  done
fi

# The Python package: the wheel of the bundle (dist/, built by
# utils/build-wheel.sh) installed into a fresh virtual environment that also
# sees the packages of the machine's python3 (torch, numpy: a .pth file
# naming its site-packages, since that python3 is itself a venv); the tests
# and the host-time benchmark then import the installed package
# (FUSION_TEST_INSTALLED=1).
PY=python3
if [ "${SANITIZE_ONLY:-0}" != 1 ] && ls dist/fusion_mlir-*.whl >/dev/null 2>&1; then
  echo "== the wheel, installed into a fresh virtual environment"
  rm -rf /tmp/fvenv
  python3 -m venv /tmp/fvenv || status=1
  machine_site=$(python3 -c 'import site; print(site.getsitepackages()[0])')
  venv_site=$(/tmp/fvenv/bin/python -c 'import site; print(site.getsitepackages()[0])')
  echo "$machine_site" >"$venv_site/_machine_packages.pth"
  /tmp/fvenv/bin/python -m pip install -q --no-index --no-deps dist/fusion_mlir-*.whl \
    wheels/*.whl || status=1
  /tmp/fvenv/bin/python -m pip show fusion-mlir | grep -E "^(Name|Version|Location)"
  PY=/tmp/fvenv/bin/python
  # From here on the package finds its own libraries (fusion/_paths.py).
  export FUSION_TEST_INSTALLED=1
  unset FUSION_RUNTIME_LIBRARY
  (cd /tmp && $PY -c 'import fusion, torch; from fusion import _compiler, runtime
print("fusion", fusion.__version__, "from", fusion.__file__)
print("compiler", _compiler.library_path())
print("runtime", runtime.load_library()._name)
print("C fast path:", runtime.fastpath_status())
print("torch", torch.__version__, torch.cuda.get_device_name())') || status=1
  [ -f utils/python-tutorial.py ] && { (cd /tmp && $PY "$OLDPWD/utils/python-tutorial.py") || status=1; }
fi

if [ -d test/python ] && [ "${SANITIZE_ONLY:-0}" != 1 ]; then
  echo "== pytest (the Python frontend on torch CUDA tensors, fast path included)"
  # pytest comes from the bundle's wheels (the lit step installs them too).
  [ -d /tmp/litsite/pytest ] || python3 -m pip install -q --no-index --no-deps \
    --target /tmp/litsite wheels/*.whl
  if [ -n "${FUSION_TEST_INSTALLED:-}" ]; then
    (cd /tmp && $PY -m pytest -q -rs -p no:cacheprovider "$OLDPWD/test/python") 2>&1 |
      tee "$out/pytest.log" | tail -8
  else
    PYTHONPATH=/tmp/litsite:$PWD/python FUSION_TOOLS_DIR=$PWD/bin \
      FUSION_RUNTIME_LIBRARY=$PWD/lib/libfusion_runtime.so \
      python3 -m pytest -q -rs test/python 2>&1 | tee "$out/pytest.log" | tail -8
  fi
  [ "${PIPESTATUS[0]}" -eq 0 ] || status=1
fi

if [ -f bench/host_overhead.py ] && [ "${SANITIZE_ONLY:-0}" != 1 ]; then
  echo "== host time per call from Python (bench/host_overhead.py)"
  pp=$PWD/python
  [ -n "${FUSION_TEST_INSTALLED:-}" ] && pp=
  PYTHONPATH=$pp $PY bench/host_overhead.py --json "$out/host_overhead.json" \
    2>&1 | tee "$out/host_overhead.log" | grep -v Warning
  [ "${PIPESTATUS[0]}" -eq 0 ] || status=1
fi

if [ "${SKIP_BENCH:-0}" != 1 ]; then
  # Every public case, compiled here (cold compile times), beside torch eager
  # and torch.compile. Cases the compiler does not handle yet get a "not
  # compiled" row; a wrong result fails. Put the run into the docs with
  # `python3 bench/run.py --from-json bench.json --update-docs docs/performance.md`.
  echo "== benchmark suite (bench/run.py)"
  $PY bench/run.py --tools bin --work "$out/bench-modules" --json "$out/bench.json" \
    --markdown "$out/bench.md" --cases "${BENCH_CASES:-all}" ${BENCH_ARGS:-} \
    2>&1 | tee "$out/bench.log" | grep -v Warning
  [ "${PIPESTATUS[0]}" -eq 0 ] || status=1
fi
if [ -x bin/fusion-run ] && [ "${SKIP_BENCH:-0}" != 1 ]; then
  echo "== fusion-run --bench (C++ runtime: kernel time, copy fraction, host time per launch)"
  for c in ${RUN_CASES:-add_relu gelu_bias inner_sum}; do
    for s in 32768x4096 8192x16384 262144x1024; do
      n=${s#*x}
      # inner_sum: f32 sums differ from the f64 reference by ~1e-5 (see
      # test/GPU/reductions.mlir).
      case $c in add_relu) in2="--input=$s";; gelu_bias) in2="--input=$n";; *) in2="--atol=1e-3";; esac
      bin/fusion-run modules/$c.fusionmod --input=$s $in2 --bench --iters=30 \
        --json="$out/run-$c-$s.json" 2>&1 | grep -E "^(PASS|FAIL|BENCH)" || status=1
    done
  done
fi
echo "gpu-tests: status $status"
exit $status
