//===- Passes.td - fusion passes ---------------------------*- tablegen -*-===//
// The passes within the fusion dialect, in pipeline order. Each works on one
// fusion.fusion, so a pipeline nests them
// (`builtin.module(fusion.fusion(fusion-decompose))`) and runs them on
// several fusions in parallel. The lowering's passes are in
// fusion/Conversion/Passes.td.
//===----------------------------------------------------------------------===//
#ifndef FUSION_DIALECT_FUSION_TRANSFORMS_PASSES_TD
#define FUSION_DIALECT_FUSION_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def FusionDecompose : Pass<"fusion-decompose", "::mlir::fusion::FusionOp"> {
  let summary = "Decompose composite ops into primitives";
  let description = [{
    Rewrites softmax, log_softmax, layer_norm, rms_norm, gelu and silu into
    reductions, broadcasts and element-wise ops, so schedulers see one
    vocabulary. 16-bit float inputs are computed in f32 and cast back.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect"];
}

def FusionSegment : Pass<"fusion-segment", "::mlir::fusion::FusionOp"> {
  let summary = "Wrap each fusion's tensor work into fusion.kernel regions";
  let description = [{
    Sizes of computed tensors are rewritten into sizes of inputs (or size
    operands), so the host part of a fusion is pure size arithmetic; the
    tensor ops move into `fusion.kernel` regions with explicit inputs and
    results. A fusion whose tensor ops some scheduler accepts as one kernel
    becomes that one kernel (`@<fusion>_k0`). Otherwise it is split into
    kernels `_k0`, `_k1`, ... in launch order: in block order, each op
    joins the first kernel after its producers' kernels that stays
    schedulable with it (the test `--fusion-schedule` applies); element-wise and broadcast work on fusion inputs alone is
    recomputed by every kernel that reads it; values that cross kernels
    become intermediate buffers. An op that no scheduler takes gets a kernel
    of its own, where `--fusion-schedule` reports it. With `explain`, each
    decision is a remark: why the fusion is not one kernel, and which op
    starts each further kernel and why it fits no earlier one.
  }];
  let options = [
    Option<"explain", "explain", "bool", /*default=*/"false",
           "Emit a remark for every segmentation decision, with its reason">,
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect"];
}

def FusionSchedule : Pass<"fusion-schedule", "::mlir::fusion::FusionOp"> {
  let summary = "Choose a scheduler and its parameters for every kernel";
  let description = [{
    Attaches a schedule attribute (e.g. `#fusion.pointwise<...>`) to every
    `fusion.kernel` without one; a schedule written by hand is kept. The
    heuristics read element types, static sizes and the target.
    `-debug-only=fusion-schedule` or `--print-schedules` prints each choice.
  }];
  let options = [
    Option<"smCount", "sm-count", "int64_t", /*default=*/"132",
           "Number of streaming multiprocessors of the target">,
    Option<"threadsPerSM", "threads-per-sm", "int64_t", /*default=*/"2048",
           "Resident threads per multiprocessor">,
    Option<"printSchedules", "print-schedules", "bool", /*default=*/"false",
           "Print every scheduling decision to stderr">,
    Option<"explain", "explain", "bool", /*default=*/"false",
           "Emit a remark per kernel: the scheduler chosen, why, and the "
           "schedule">,
    Option<"unroll", "unroll", "int64_t", /*default=*/"0",
           "Work items per thread and loop iteration (0: heuristic)">,
    Option<"blocksPerSM", "blocks-per-sm", "int64_t", /*default=*/"0",
           "Cap the grid at this many blocks per SM; the grid-stride loop "
           "takes the rest (0: no cap)">,
    Option<"innerItems", "inner-items", "int64_t", /*default=*/"-1",
           "Inner reductions: vectors per thread kept in registers (0: no "
           "persistent variant; -1: heuristic)">,
    Option<"innerBlock", "inner-block", "int64_t", /*default=*/"0",
           "Inner reductions: threads per block (0: heuristic)">,
    Option<"innerStage", "inner-stage", "int64_t", /*default=*/"-1",
           "Persistent inner reductions: keep the row in shared memory "
           "across passes (1; 2: and copy the next row there with cp.async; "
           "3: with bulk copies, sm_90), in registers (0), or as the "
           "heuristic chooses (-1)">,
    Option<"innerCluster", "inner-cluster", "int64_t", /*default=*/"-1",
           "Inner reductions with per-element results: split few long rows "
           "over thread block clusters of up to this many blocks (2, 4 or "
           "8; 0: no cluster variant; -1: heuristic; sm_90 and later)">,
    Option<"innerLongCluster", "inner-long-cluster", "int64_t",
           /*default=*/"-1",
           "Persistent inner reductions with per-element results: rows "
           "longer than one block holds are split over a thread block "
           "cluster of up to this many blocks, each keeping its span in "
           "registers (2, 4 or 8; 0: none; -1: heuristic; sm_90 and later)">,
    Option<"innerColumns", "inner-columns", "int64_t", /*default=*/"-1",
           "Inner reductions and normalizations: the column-major variant "
           "for rows of transposed inputs (1: on; 0: off, such rows take "
           "the scalar variants; -1: heuristic, on)">,
    Option<"computeBoundCost", "compute-bound-cost", "int64_t",
           /*default=*/"::mlir::fusion::kDefaultComputeBoundCost",
           "Kernels whose estimated instructions per element exceed this "
           "take one element per thread and step: no vectors, unrolling or "
           "persistent rows (0: never)">,
  ];
}

#endif // FUSION_DIALECT_FUSION_TRANSFORMS_PASSES_TD
