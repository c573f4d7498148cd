#!/usr/bin/env bash
# Fusion's demo: one fusion through the compiler, stage by stage.
#
#   bash utils/demo.sh                      examples/gelu_bias.mlir (or the first example)
#   bash utils/demo.sh examples/normalization/softmax.mlir
#
# Stages: the definition -> --fusion-decompose -> the --fusion-to-ptx pipeline
# (IR after each pass) -> PTX (verified by ptxas) -> a timed run on the GPU
# with fusion-run. Stages whose tool or pass is not built yet are skipped with
# the reason, so the demo works at every point of the project.
#
# Environment: FUSION_BUILD_DIR (build), FUSION_PTX_ARCH (sm_90a),
# FUSION_DEMO_INPUTS (fusion-run's --input=... flags; by default made from the
# fusion's signature), FUSION_DEMO_LINES (lines shown per IR stage, 25).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
BUILD_DIR="${FUSION_BUILD_DIR:-build}"
BIN="$BUILD_DIR/bin"
ARCH="${FUSION_PTX_ARCH:-sm_90a}"
LINES="${FUSION_DEMO_LINES:-25}"
OUT="$BUILD_DIR/demo"

if [[ -t 1 ]]; then B=$'\033[1m' N=$'\033[0m'; else B= N=; fi
stage() { printf '\n%s== %s ==%s\n' "$B" "$*" "$N"; }
skipped() { echo "(skipped: $*)"; }

# --- build -----------------------------------------------------------------------
stage "build"
bash utils/setup.sh
if ! ninja -C "$BUILD_DIR" -j"${FUSION_JOBS:-2}"; then
  echo "warning: the full build failed; building only the tools the demo uses"
  ninja -C "$BUILD_DIR" fusion-opt
  for t in fusion-translate fusion-run; do
    ninja -C "$BUILD_DIR" "$t" 2>/dev/null || echo "warning: $t could not be built"
  done
fi
OPT="$BIN/fusion-opt"
[[ -x "$OPT" ]] || { echo "error: $OPT was not built"; exit 1; }

# --- pick the fusion ----------------------------------------------------------------
if [[ $# -ge 1 ]]; then
  EX="$1"
elif [[ -f examples/gelu_bias.mlir ]]; then
  EX=examples/gelu_bias.mlir
else
  shopt -s nullglob
  all=(examples/*.mlir)
  ((${#all[@]})) || { echo "error: no examples/*.mlir"; exit 1; }
  EX="${all[0]}"
  echo "note: examples/gelu_bias.mlir does not exist yet: using $EX"
fi
[[ -f "$EX" ]] || { echo "error: $EX not found"; exit 1; }
NAME=$(basename "$EX" .mlir)
mkdir -p "$OUT"

stage "1. the definition: $EX"
cat "$EX"

stage "2. fusion-opt --fusion-decompose $EX"
"$OPT" --fusion-decompose "$EX" | tee "$OUT/$NAME.decomposed.mlir"

stage "3. the GPU pipeline: fusion-opt --fusion-to-ptx (IR after each pass)"
# The help text is read whole before it is matched: under pipefail, `grep -q`
# would stop reading early and fail the pipeline with fusion-opt's SIGPIPE
# (Note [No early readers under pipefail] in utils/setup.sh).
opt_help=$("$OPT" --help)
echo "fusion passes in this fusion-opt:" \
  $(grep -oE -- '--fusion-[a-z0-9-]+' <<<"$opt_help" | sort -u | tr '\n' ' ')
if [[ "$opt_help" == *--fusion-to-ptx* ]]; then
  dump="$OUT/$NAME.stages.mlir"
  if "$OPT" "$EX" --fusion-to-ptx -mlir-print-ir-after-all -o "$OUT/$NAME.final.mlir" 2>"$dump"; then
    # First $LINES lines of each stage; the whole dump is in $dump.
    awk -v max="$LINES" '
      /^\/\/ -----\/\/ IR Dump/ { if (n > max) printf("   ... (%d more lines)\n", n - max);
                                   print ""; print; n = 0; next }
      { n++; if (n <= max) print }
      END { if (n > max) printf("   ... (%d more lines)\n", n - max) }' "$dump"
    echo
    echo "(every stage in full: $dump)"
  else
    cat "$dump"
    echo "the --fusion-to-ptx pipeline failed on $EX (see above)"
  fi
else
  skipped "fusion-opt has no --fusion-to-ptx pipeline yet"
fi

stage "4. PTX for $ARCH"
PTX="$OUT/$NAME.ptx"
have_ptx=0
if [[ -x "$BIN/fusion-translate" ]]; then
  if "$BIN/fusion-translate" --fusion-to-ptx "$EX" -o "$PTX"; then
    have_ptx=1
    head -n 60 "$PTX"
    total=$(wc -l <"$PTX")
    ((total > 60)) && echo "... ($((total - 60)) more lines in $PTX)"
    PTXAS=$(command -v ptxas || echo /usr/local/cuda/bin/ptxas)
    if [[ -x "$PTXAS" ]]; then
      echo
      echo "ptxas -arch=$ARCH -v (registers, shared memory per kernel):"
      "$PTXAS" -arch="$ARCH" -v "$PTX" -o "$OUT/$NAME.cubin" 2>&1 | sed 's/^/  /'
    else
      skipped "no ptxas (CUDA toolkit) to verify the PTX"
    fi
  else
    echo "fusion-translate --fusion-to-ptx failed on $EX (see above)"
  fi
else
  skipped "$BIN/fusion-translate is not built yet"
fi

stage "5. run on the GPU"
gpus=""
command -v nvidia-smi >/dev/null && gpus=$(nvidia-smi -L 2>/dev/null || true)
if [[ "$gpus" != *GPU* ]]; then
  echo "no GPU here: skipping the run"
  echo "(the GPU machine runs it; on this machine everything up to PTX is checked)"
elif [[ ! -x "$BIN/fusion-run" ]]; then
  skipped "$BIN/fusion-run is not built yet"
else
  nvidia-smi -L
  if [[ -n "${FUSION_DEMO_INPUTS:-}" ]]; then
    read -r -a inputs <<<"$FUSION_DEMO_INPUTS"
  else
    # One --input=SHAPE per tensor argument, in order: the last dim is 4096,
    # the others 8192, so row-wise ops (norms, softmax, bias) line up.
    inputs=()
    sig=$(grep -m1 -oE 'fusion\.fusion @[A-Za-z0-9_]+\(.*\)' "$EX" || true)
    while read -r ty; do
      IFS=x read -r -a parts <<<"$ty"
      rank=$((${#parts[@]} - 1))
      shape=()
      for ((i = 0; i < rank; i++)); do
        d=${parts[$i]}
        if [[ "$d" == "?" ]]; then
          ((i == rank - 1)) && d=4096 || d=8192
        fi
        shape+=("$d")
      done
      inputs+=("--input=$(IFS=x; echo "${shape[*]}")")
    done < <(grep -oE 'tensor<[^>]*>' <<<"$sig" | sed -E 's/tensor<(.*)>/\1/')
  fi
  echo "$BIN/fusion-run $EX ${inputs[*]} --bench"
  "$BIN/fusion-run" "$EX" "${inputs[@]}" --bench
fi

if ((have_ptx)); then
  echo
  echo "demo done: outputs in $OUT/"
else
  echo
  echo "demo done (the GPU pipeline is still being built: stages above say what was skipped)"
fi
