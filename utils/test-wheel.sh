#!/usr/bin/env bash
# The Python package as users get it: builds the wheel (utils/build-wheel.sh),
# installs it into a fresh virtual environment and runs the CPU tests of
# test/python against the installed package, not the source tree
# (FUSION_TEST_INSTALLED=1: conftest.py refuses a package from python/), and
# the tutorial of docs/python.md (utils/python-tutorial.py).
#
#   bash utils/test-wheel.sh             # last line: "test-wheel: ..."
#
# WHEEL=path skips the build and tests that wheel.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
PYTHON=${PYTHON:-python3}

if [[ -z "${WHEEL:-}" ]]; then
  bash utils/build-wheel.sh
  WHEEL=$(ls "$ROOT"/dist/fusion_mlir-*.whl)
fi

venv=$(mktemp -d)
trap 'rm -rf "$venv"' EXIT
"$PYTHON" -m venv "$venv"
# numpy and pytest from the index (or the machine's pip cache); the package
# from the wheel alone.
"$venv/bin/python" -m pip install -q "$WHEEL" pytest
"$venv/bin/python" -m pip show fusion-mlir | sed -n 's/^\(Name\|Version\|Location\): /  \1: /p'

cd "$venv" # away from the source tree
"$venv/bin/python" - <<'PY'
import os, fusion
where = os.path.dirname(fusion.__file__)
print(f"  fusion {fusion.__version__} from {where}")
assert "site-packages" in where, where
from fusion import _compiler, runtime
print(f"  compiler {_compiler.version()}: {_compiler.library_path()}")
assert _compiler.library_path().startswith(where)
assert runtime.load_library()._name.startswith(where)
assert runtime.load_fastpath() is not None, runtime.fastpath_status()
PY
"$venv/bin/python" "$ROOT/utils/python-tutorial.py"
set +e
FUSION_TEST_INSTALLED=1 "$venv/bin/python" -m pytest -q -rs -p no:cacheprovider \
  "$ROOT/test/python" 2>&1 | tee "$venv/pytest.log"
rc=${PIPESTATUS[0]}
set -e
result=$(grep -E '^=* ?[0-9]+ (passed|failed)' "$venv/pytest.log" | tail -1 | sed -E 's/=+//g; s/^ +| +$//g')
if ((rc != 0)); then
  echo "test-wheel: FAILED: pytest against the installed wheel: $result"
  exit 1
fi
echo "test-wheel: $(basename "$WHEEL") installed in a fresh venv; tutorial ran; pytest: $result"
