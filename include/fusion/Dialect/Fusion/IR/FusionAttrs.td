//===- FusionAttrs.td - schedule attributes ----------------*- tablegen -*-===//
// Schedules: the scheduler's decision for one kernel, as data in the IR.
//===----------------------------------------------------------------------===//
#ifndef FUSION_ATTRS_TD
#define FUSION_ATTRS_TD

include "fusion/Dialect/Fusion/IR/FusionDialect.td"

class Fusion_Attr<string name, string mnemonic_>
    : AttrDef<Fusion_Dialect, name> {
  let mnemonic = mnemonic_;
}

// Every schedule is range-checked when it is parsed and again by the
// fusion.kernel that carries it (Note [Schedule ranges] in
// FusionDialect.cpp): a hand-written schedule the lowering cannot honour is
// rejected here, not in the back end.
class Fusion_ScheduleAttr<string name, string mnemonic_>
    : Fusion_Attr<name, mnemonic_> {
  let genVerifyDecl = 1;
}

def Fusion_PointwiseScheduleAttr : Fusion_ScheduleAttr<"PointwiseSchedule", "pointwise"> {
  let summary = "Schedule of a pointwise kernel";
  let description = [{
    Each thread handles `unroll` groups of `vector` consecutive elements of
    the innermost dim; blocks have `block` threads; at most `max_grid` blocks
    are launched and blocks loop over the rest (grid-stride). The vectorized
    path is taken at run time only when every tensor's innermost dim is
    contiguous, its size is a multiple of `vector` and its pointer is
    16-byte aligned; otherwise a scalar path runs. `index64` selects 64-bit
    index arithmetic (needed when an extent or offset reaches 2^31).
    `fast_math` allows approximate transcendental functions.

    Ranges: `vector` a power of two from 1 to 16, `unroll` 1 to 16, `block`
    1 to 1024, `max_grid` 1 to 2^31 - 1.
  }];
  let parameters = (ins "int64_t":$vector, "int64_t":$unroll,
                        "int64_t":$block, "int64_t":$max_grid,
                        "bool":$index64, "bool":$fast_math);
  let assemblyFormat = "`<` struct(params) `>`";
}

def Fusion_InnerReductionScheduleAttr
    : Fusion_ScheduleAttr<"InnerReductionSchedule", "inner_reduction"> {
  let summary = "Schedule of a kernel that reduces the innermost dim";
  let description = [{
    Rows are the outer dims; each row is reduced by `T` threads (2, 4, 8 or
    16 for a row that needs at most 16, else a multiple of 32 up to 512)
    and a block of `block` threads (or `T` when larger) takes `block / T`
    rows at a time: several rows per warp for short rows, several warps per
    row for long ones. `T` is computed at launch from the row
    length `K`: enough threads for `items` vectors of `vector` elements per
    thread (for the streaming variants: 4 vectors per thread and pass).
    Blocks loop over rows past `max_grid`; with `row_grid > 0`, the
    streaming variants and the staged persistent variant (`stage_row`,
    kept to 64 registers) loop past `row_grid` instead, while the variants
    that keep rows in registers and the ragged ones keep `max_grid` (Note
    [Wide row grids]).

    Reductions (sum, prod, max, min, var_mean) accumulate in f32 for 16-bit
    and f32 inputs, f64 for f64 and i64 for integers; threads fold their
    partials, warps fold with xor-shuffles and the warps of a row meet in
    shared memory. Reductions that depend on other reductions take further
    passes over the row, except a sum of exp(x - max(x)) with its max: the
    two are one online state (softmax in one pass). var_mean is one Welford
    state (count, mean, centered sum of squares, merged with Chan's
    formula). Element-wise work after the reductions (normalization
    epilogues) writes results of the row's shape.

    With `items > 0` a persistent variant keeps each thread's `items`
    vectors in registers across passes, so the input is read once; it runs
    when `K <= 512 * vector * items`. Otherwise (and for kernels without
    per-element results) streaming variants read the row once per pass.
    Vectorized variants need the row length to be a multiple of `vector`,
    unit innermost strides and 16-byte alignment (checked at run time);
    where only the row length is off, ragged variants (persistent and
    streaming) read each row from its first aligned vector and mask the
    head and tail vectors, before the scalar fallbacks (Note [Ragged
    rows]); `index64` selects
    64-bit index arithmetic; `fast_math` allows approximate
    transcendentals.

    With `stage_row`, the persistent variants keep the row's loaded values
    in dynamic shared memory instead of registers (each thread its own
    slots) and recompute what depends on them in every pass: fewer
    registers per thread, so more rows in flight per SM. With
    `async_stage` too (sm_80 and later), the next row is copied into a
    second buffer with `cp.async` while the current one is reduced, instead
    of being loaded into registers a row ahead (Note [Async staged rows]).
    With `long_stage`, the long-row persistent variant (twice the items,
    Note [Long persistent rows]) stages its row even where `stage_row` is
    off: its row spills registers otherwise (the scheduler sets it unless
    `--inner-stage=0`; Note [Staged rows heuristic]); `async_stage` applies
    to it only with `long_async` too (the scheduler sets it for
    `--inner-stage=2` and `3`, not by default). With `bulk_stage`
    too (sm_90 and later), the next row comes in bulk copies that complete
    on an mbarrier, a few per row, issued by one thread of the row (Note
    [Bulk staged rows]; `--inner-stage=3`).

    With `cluster = C` (2, 4 or 8; sm_90 and later), kernels with
    per-element results get a cluster variant for few long rows, tried
    first: a row is split over a thread block cluster of up to `C` blocks,
    each block streams its span of the row, and the blocks' states meet
    through distributed shared memory (`fusion.cluster_reduce`) after each
    pass, so a handful of rows fills the GPU (Note [Cluster rows]).

    With `long_cluster = L` (2, 4 or 8; sm_90 and later, vectorized and
    `items > 0`; the scheduler sets 8), rows longer than the persistent
    variants hold in one block are split over a cluster of 2, 4 or 8
    blocks (the fewest whose 512 threads hold the row, at most `L`), each
    block keeping its span of the row in registers; the blocks' states meet
    through distributed shared memory after each pass (Note [Cluster
    persistent rows]).

    With `column_rows` (the default; `column_rows = false` or
    `--inner-columns=0` turns it off), row kernels (except those of several
    passes whose results are all per row) get a column-major
    variant, tried before the scalar ones where an input's rows lie across
    memory (a transposed view): a block's consecutive threads read
    consecutive rows (Note [Column-major rows]); per-element results go
    out through a tile in shared memory, row by row (Note [Column-major
    rows with per-element results]). Without it such rows take the scalar
    variants.

    Ranges: `vector` a power of two from 1 to 16, `items` 0 to 16, `block`
    1 to 512 (a row kernel's blocks hold at most 512 threads), `max_grid` 1
    to 2^31 - 1, `row_grid` 0 (none) to 2^31 - 1,
    `cluster` and `long_cluster` 0 (none), 2, 4 or 8.
  }];
  let parameters = (ins "int64_t":$vector, "int64_t":$items,
                        "int64_t":$block, "int64_t":$max_grid,
                        "bool":$index64, "bool":$fast_math,
                        DefaultValuedParameter<"bool", "false">:$stage_row,
                        DefaultValuedParameter<"int64_t", "0">:$cluster,
                        DefaultValuedParameter<"bool", "false">:$async_stage,
                        DefaultValuedParameter<"int64_t", "0">:$long_cluster,
                        DefaultValuedParameter<"bool", "false">:$long_stage,
                        DefaultValuedParameter<"bool", "false">:$bulk_stage,
                        DefaultValuedParameter<"int64_t", "0">:$row_grid,
                        DefaultValuedParameter<"bool", "false">:$long_async,
                        DefaultValuedParameter<"bool", "true">:$column_rows);
  let assemblyFormat = "`<` struct(params) `>`";
}

def Fusion_OuterReductionScheduleAttr
    : Fusion_ScheduleAttr<"OuterReductionSchedule", "outer_reduction"> {
  let summary = "Schedule of a kernel that reduces leading dims";
  let description = [{
    The kept (trailing) dims are columns; a block of 256 threads is 32
    columns of `vector` elements (16-byte loads along the contiguous kept
    dim, a warp reads 32 consecutive vectors of one row) by 8 rows of the
    reduced dims, each thread taking `unroll` rows per step. The reduced
    dims are split over `S` blocks per column group, with `S` chosen at
    launch so the grid has about `target_blocks` blocks (each split keeps at
    least 64 rows). With `S > 1`, blocks write partials to a workspace and
    the last block of a column group to arrive (an atomic counter, reset by
    that block) folds them and writes the result: a grid reduction in one
    launch. Accumulation types as for inner reductions; element-wise work
    on the reduced values (one per kept position) is fused into the store.

    Ranges: `vector` a power of two from 1 to 16, `unroll` 1 to 16,
    `target_blocks` 1 to 2^31 - 1.
  }];
  let parameters = (ins "int64_t":$vector, "int64_t":$unroll,
                        "int64_t":$target_blocks, "bool":$index64,
                        "bool":$fast_math);
  let assemblyFormat = "`<` struct(params) `>`";
}

#endif // FUSION_ATTRS_TD
