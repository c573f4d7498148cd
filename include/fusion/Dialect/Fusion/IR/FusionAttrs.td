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

def Fusion_PointwiseScheduleAttr : Fusion_Attr<"PointwiseSchedule", "pointwise"> {
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
  }];
  let parameters = (ins "int64_t":$vector, "int64_t":$unroll,
                        "int64_t":$block, "int64_t":$max_grid,
                        "bool":$index64, "bool":$fast_math);
  let assemblyFormat = "`<` struct(params) `>`";
}

def Fusion_InnerReductionScheduleAttr
    : Fusion_Attr<"InnerReductionSchedule", "inner_reduction"> {
  let summary = "Schedule of a reduction over the innermost dim";
  let description = [{
    One block of `block` threads per row (rows are the outer dims; blocks
    loop over rows past `max_grid`). Threads read `vector` consecutive
    elements at a time, accumulate in f32 (f64 for f64, i64 for integers),
    then reduce across the warp with shuffles and across warps through
    shared memory. Element-wise work before the reduction (casts, scaling)
    is fused into the loads. The vectorized variant needs the row length to
    be a multiple of `vector`, unit innermost strides and 16-byte alignment
    (checked at run time, with scalar fallbacks).
  }];
  let parameters = (ins "int64_t":$vector, "int64_t":$block,
                        "int64_t":$max_grid, "bool":$index64);
  let assemblyFormat = "`<` struct(params) `>`";
}

#endif // FUSION_ATTRS_TD
