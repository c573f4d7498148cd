#!/usr/bin/env bash
# Installs what Fusion needs (Debian 12 packages) and configures the build.
# Idempotent: apt is skipped when every package is already installed, and
# CMake is run only when the build directory is not configured yet.
#
#   bash utils/setup.sh            install + configure build/
#   FUSION_BUILD_DIR=out bash utils/setup.sh
#   FUSION_RECONFIGURE=1 bash ...  re-run CMake even if build/ is configured
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
BUILD_DIR="${FUSION_BUILD_DIR:-build}"

say() { echo "[setup] $*"; }

PACKAGES=(
  cmake ninja-build g++ ccache
  libmlir-22-dev mlir-22-tools llvm-22-dev llvm-22-tools
  libflatbuffers-dev flatbuffers-compiler
  libgtest-dev
  clang-format
  python3-dev python3-venv
  libzstd-dev zlib1g-dev
  clang-22 libclang-rt-22-dev
)

# --- 1. Packages --------------------------------------------------------------
# Note [No early readers under pipefail]: with `set -o pipefail`, a pipeline
# whose reader stops early (`grep -q`, `head`) fails with the writer's SIGPIPE
# (status 141) whenever the writer is still writing, so a check like
# `apt-cache policy P | grep -q Candidate` reads a present package as missing.
# Every check below captures the command's whole output first and matches it
# in bash.
installed() {
  local status
  status=$(dpkg-query -W -f='${Status}' "$1" 2>/dev/null) || return 1
  [[ "$status" == *"install ok installed"* ]]
}

# The version apt would install for $1, or nothing when no source offers it.
candidate() {
  local policy
  policy=$(apt-cache policy "$1" 2>/dev/null) || return 0
  sed -n 's/^ *Candidate: *\([0-9][^ ]*\).*/\1/p' <<<"$policy"
}

missing=()
for p in "${PACKAGES[@]}"; do
  installed "$p" || missing+=("$p")
done

if ((${#missing[@]})); then
  say "installing: ${missing[*]}"
  SUDO=()
  if [[ $(id -u) -ne 0 ]]; then
    command -v sudo >/dev/null || { say "error: not root and no sudo: install ${missing[*]} by hand"; exit 1; }
    SUDO=(sudo)
  fi
  export DEBIAN_FRONTEND=noninteractive
  "${SUDO[@]}" apt-get update -q
  unavailable=()
  for p in "${missing[@]}"; do
    [[ -n "$(candidate "$p")" ]] || unavailable+=("$p")
  done
  if ((${#unavailable[@]})); then
    say "error: no apt source offers ${unavailable[*]}"
    [[ " ${unavailable[*]} " == *-22-* ]] &&
      say "LLVM/MLIR 22 comes from Debian 12's bookworm-security (or the LLVM 22 apt source): add one to /etc/apt/sources.list.d"
    exit 1
  fi
  say "apt offers libmlir-22-dev $(candidate libmlir-22-dev)"
  "${SUDO[@]}" apt-get install -y -q --no-install-recommends "${missing[@]}" </dev/null
else
  say "all ${#PACKAGES[@]} packages already installed"
fi

# --- 2. CUDA toolkit (ptxas) --------------------------------------------------
# Not a Debian package here: the CUDA 13 toolkit lives in /usr/local/cuda.
if command -v ptxas >/dev/null; then
  say "ptxas: $(command -v ptxas)"
elif [[ -x /usr/local/cuda/bin/ptxas ]]; then
  say "ptxas: /usr/local/cuda/bin/ptxas (add /usr/local/cuda/bin to PATH to use it by hand)"
else
  say "warning: ptxas not found (CUDA toolkit missing): generated PTX cannot be verified"
fi

# --- 3. Configure ---------------------------------------------------------------
configured=0
if [[ -f "$BUILD_DIR/build.ninja" && -f "$BUILD_DIR/CMakeCache.txt" ]]; then
  # A build directory copied from another checkout points at the wrong sources.
  src=$(sed -n 's/^CMAKE_HOME_DIRECTORY:INTERNAL=//p' "$BUILD_DIR/CMakeCache.txt")
  if [[ "$src" == "$ROOT" ]]; then
    configured=1
  else
    say "$BUILD_DIR/ was configured for $src, not $ROOT: reconfiguring from scratch"
    rm -rf "$BUILD_DIR"
  fi
fi

if ((configured)) && [[ "${FUSION_RECONFIGURE:-0}" != 1 ]]; then
  say "$BUILD_DIR/ already configured (ninja re-runs CMake by itself when a CMakeLists.txt changes)"
else
  say "configuring $BUILD_DIR/"
  cmake -S . -B "$BUILD_DIR" -G Ninja \
    -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_C_COMPILER=gcc -DCMAKE_CXX_COMPILER=g++
fi
