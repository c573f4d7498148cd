//===- Passes.td - fusion passes ---------------------------*- tablegen -*-===//
// The passes of the fusion pipeline, in pipeline order. The passes before
// the lowering work on one fusion.fusion each, so a pipeline nests them
// (`builtin.module(fusion.fusion(fusion-decompose))`) and runs them on
// several fusions in parallel; the lowering adds gpu.modules beside the
// fusions and runs on the module.
//===----------------------------------------------------------------------===//
#ifndef FUSION_TRANSFORMS_PASSES_TD
#define FUSION_TRANSFORMS_PASSES_TD

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
    of its own, where `--fusion-schedule` reports it.
  }];
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
           "across passes (1), in registers (0), or as the heuristic "
           "chooses (-1)">,
  ];
}

def FusionLowerKernels : Pass<"fusion-lower-kernels", "ModuleOp"> {
  let summary = "Lower scheduled kernels to gpu.func plus a host launch program";
  let description = [{
    Every scheduled `fusion.kernel` becomes one or more `gpu.func` kernels in
    a `gpu.module` (a vectorized variant and scalar fallbacks, with 32-bit or
    64-bit index arithmetic), and the fusion's body becomes the host program:
    `fusion.empty` buffers, size arithmetic, and guarded `fusion.launch` ops
    that pick a variant at run time.
  }];
  let options = [
    Option<"innerMinBlocks", "inner-min-blocks", "int64_t", /*default=*/"0",
           "Persistent inner-reduction variants: blocks per SM to keep "
           "resident (nvvm.minctasm; bounds registers per thread; 0: none)">,
    Option<"transposeTile", "transpose-tile", "int64_t", /*default=*/"64",
           "Tile edge of the tiled transpose variant (16, 32 or 64)">,
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect", "::mlir::gpu::GPUDialect",
    "::mlir::LLVM::LLVMDialect", "::mlir::math::MathDialect", "::mlir::memref::MemRefDialect",
    "::mlir::scf::SCFDialect", "::mlir::vector::VectorDialect"
  ];
}

def FusionLowerKernelOps : Pass<"fusion-lower-kernel-ops"> {
  let summary = "Lower the kernel-level ops to gpu, scf, memref, vector and llvm";
  let description = [{
    Rewrites each kernel-level op (`fusion.warp_reduce`,
    `fusion.block_reduce`, `fusion.grid_arrive`, `fusion.grid_reduce`,
    `fusion.stage_store`, `fusion.stage_load`) with its one pattern: xor
    shuffles with the combiner region inlined at each step; for a block
    reduction the shared-memory slots, barriers and the fold loop; for a
    grid arrival the fence, the atomic counter and the shared flag; for a
    grid reduction the partials' stores, the arrival, and the last block's
    counter reset, fold loop and `last` region; for staged values volatile
    accesses of the module's dynamic shared memory (declared once per
    gpu.module that stages). Runs on any op; in `--fusion-to-ptx` right
    after `--fusion-lower-kernels`.
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect", "::mlir::gpu::GPUDialect",
    "::mlir::LLVM::LLVMDialect", "::mlir::memref::MemRefDialect",
    "::mlir::scf::SCFDialect", "::mlir::vector::VectorDialect"
  ];
}

#endif // FUSION_TRANSFORMS_PASSES_TD
