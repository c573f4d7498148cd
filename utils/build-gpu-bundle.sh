#!/usr/bin/env bash
# Builds the bundle for the GPU machine (which has CUDA, PyTorch, cmake and
# ninja but no LLVM/MLIR): the tools linked statically against LLVM/MLIR,
# the runtime's shared library and GPU unit tests, module files of the
# examples compiled here, the lit tests with a FileCheck, the Python package
# and the benchmarks. Writes .bundle/fusion-gpu.tar.xz (carry `.bundle`).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
jobs=${JOBS:-2}

# setup.sh installs the static zlib/zstd of the static link too (the GPU
# machine has no libzstd).
bash utils/setup.sh
command -v xz >/dev/null || apt-get install -y -qq xz-utils </dev/null
# The static tools (one copy of LLVM/MLIR each; stripped and xz'd below).
cmake -S . -B build-static -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_C_COMPILER=gcc -DCMAKE_CXX_COMPILER=g++ \
  -DFUSION_ENABLE_TESTS=OFF -DFUSION_STATIC_LLVM=ON >/dev/null
static_targets="fusion-translate fusion-filecheck"
grep -q fusion-run tools/CMakeLists.txt && [ "${NO_FUSION_RUN:-0}" != 1 ] && static_targets="$static_targets fusion-run"
ninja -C build-static -j"$jobs" $static_targets
# The runtime (no LLVM) and its tests from the regular build, and the Python
# fast path (a stable-ABI extension: built with 3.11 headers, loads in 3.12).
ninja -C build -j"$jobs" FusionRuntimeShared FusionRuntimeTests FusionFastpath

stage=$root/.bundle/stage
rm -rf "$stage" && mkdir -p "$stage"/{bin,lib,modules,test,wheels}
for t in $static_targets; do
  strip -o "$stage/bin/$t" "build-static/bin/$t"
done
ln -s fusion-filecheck "$stage/bin/FileCheck"
cp build/bin/FusionRuntimeTests "$stage/bin/"
cp build/lib/libfusion_runtime.so "$stage/lib/"

# Module files of every example, with cubin when ptxas is here.
for f in examples/*.mlir; do
  name=$(basename "$f" .mlir)
  if ! build-static/bin/fusion-translate "$f" --fusion-to-module \
      -o "$stage/modules/$name.fusionmod" 2>"$stage/modules/$name.log"; then
    echo "bundle: $name does not compile yet (see modules/$name.log)"
    rm -f "$stage/modules/$name.fusionmod"
  fi
done

cp -r test/GPU test/lit.cfg.py "$stage/test/" 2>/dev/null || true
cat >"$stage/test/lit.site.cfg.py" <<'SITE'
# lit site configuration inside the GPU bundle.
import os
here = os.path.dirname(os.path.abspath(__file__))
root = os.path.dirname(here)
config.fusion_src_root = root
config.fusion_obj_root = root
config.fusion_tools_dir = os.path.join(root, "bin")
config.llvm_tools_dir = os.path.join(root, "bin")
config.ptxas = "/usr/local/cuda/bin/ptxas"
lit_config.load_config(config, os.path.join(here, "lit.cfg.py"))
SITE
mkdir -p "$stage/examples"
cp examples/*.mlir "$stage/examples/"
# The benchmark suite's cases that live in subfolders (bench/ comes below).
cp -r examples/normalization "$stage/examples/"
cp -r python bench utils/gpu-tests.sh "$stage/"
mkdir -p "$stage/utils" && cp utils/opgen.py "$stage/utils/"
cp build/lib/_fastpath.abi3.so "$stage/python/fusion/"
# The Python package as users get it (utils/build-wheel.sh); gpu-tests.sh
# installs it into a venv and runs the Python tests against it.
# NO_WHEEL=1 leaves it out.
if [ "${NO_WHEEL:-0}" != 1 ]; then
  WHEEL_DIR="$stage/dist" bash utils/build-wheel.sh
  mkdir -p "$stage/docs" && cp docs/python.md "$stage/docs/"
  cp utils/python-tutorial.py "$stage/utils/"
fi
python3 -m pip download -q --no-deps --only-binary=:all: -d "$stage/wheels" \
  lit pytest pluggy iniconfig packaging
mkdir -p "$stage/test/python"
cp test/python/test_gpu.py "$stage/test/python/"
[ -f test/python/conftest.py ] && cp test/python/conftest.py "$stage/test/python/"
find "$stage" -name __pycache__ -prune -exec rm -rf {} +

mkdir -p .bundle
tar -C "$stage" -cf - . | xz -T2 -6 >.bundle/fusion-gpu.tar.xz
du -h .bundle/fusion-gpu.tar.xz
