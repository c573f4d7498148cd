//===- FusionDeviceOps.td - kernel-level ops ---------------*- tablegen -*-===//
// Kernel-level ops: the hardware building blocks that more than one
// scheduler's lowering needs (docs/lowering.md). They appear in gpu.func
// bodies between --fusion-lower-kernels and --fusion-lower-kernel-ops, which
// lowers each with one pattern.
//===----------------------------------------------------------------------===//
#ifndef FUSION_DEVICE_OPS_TD
#define FUSION_DEVICE_OPS_TD

def Fusion_ReduceYieldOp : Fusion_Op<"reduce_yield", [Pure, Terminator,
    ReturnLike, ParentOneOf<["WarpReduceOp", "BlockReduceOp", "GridReduceOp",
                "ClusterReduceOp"]>]> {
  let summary = "Yields a reduction state from a combiner or identity region";
  let arguments = (ins Variadic<AnyType>:$values);
  let builders = [OpBuilder<(ins), [{ /* nothing */ }]>];
  let assemblyFormat = "attr-dict ($values^ `:` type($values))?";
}

def Fusion_WarpReduceOp : Fusion_Op<"warp_reduce", [RecursiveMemoryEffects,
    InferTypeOpAdaptor]> {
  let summary = "Combines a reduction state over the 32 lanes of a warp";
  let description = [{
    A reduction state is a tuple of scalars (one value for sum, max, min or
    prod; (max, sum) for online softmax; (count, mean, m2) for Welford;
    (value, index) for argmax). Each lane passes its state; every lane gets
    the combination of all 32. The `combiner` region takes two states (the
    components of the first, then of the second) and yields their
    combination with `fusion.reduce_yield`; it must be associative and
    commutative, as the lanes combine in a butterfly (xor shuffles at
    distances 16, 8, 4, 2, 1). Components are 32- or 64-bit integers or
    floats. All lanes of the warp must reach the op.

    ```mlir
    %sum = fusion.warp_reduce %x : f32 combiner {
    ^bb0(%a: f32, %b: f32):
      %s = arith.addf %a, %b : f32
      fusion.reduce_yield %s : f32
    }
    ```
  }];
  let arguments = (ins Variadic<AnyType>:$state);
  let results = (outs Variadic<AnyType>:$results);
  let regions = (region SizedRegion<1>:$combiner);
  let assemblyFormat = "$state `:` type($state) `combiner` $combiner attr-dict";
  let hasRegionVerifier = 1;
}

def Fusion_BlockReduceOp : Fusion_Op<"block_reduce", [AttrSizedOperandSegments,
    InferTypeOpAdaptor, AllTypesMatch<["lane", "warp", "at", "warps"]>,
    MemoryEffects<[MemRead<DefaultResource>, MemWrite<DefaultResource>]>]> {
  let summary = "Combines a reduction state over the warps of a thread group";
  let description = [{
    The states of a group of `warps` warps (a row of an inner reduction)
    are combined and every thread of the group gets the result. First as
    `fusion.warp_reduce`; then, when `multi_warp` holds, lane 0 of each warp
    stores its warp's state to the shared-memory `slots` (one buffer per
    state component) at `at + warp`, the block synchronizes, lane `l` of
    every warp takes slot `at + l` (the `identity` region's state from
    lane `warps` on: `warps` is at most 32), the butterfly folds the 32
    lanes so every thread has the group's state, and the block
    synchronizes again so the slots can be reused. `lane`, `warp`, `at`
    and `warps` share one integer type. Every thread of the block must
    reach the op (it has barriers when `multi_warp` holds).

    With `width %w` (a power of two), groups narrower than a warp (short
    rows, Note [Short rows]) reduce among themselves: the butterfly takes
    only the distances below `%w` (every step is taken for 32 and more), so
    each aligned group of `%w` lanes gets the combination of its own states;
    `multi_warp` must then be false.

    ```mlir
    %r = fusion.block_reduce %x : f32 lane %lane warp %warp
        slots(%smem : memref<32xf32, #gpu.address_space<workgroup>>)
        at %slot0 warps %n if %multi : i32
        identity {
      %z = arith.constant 0.0 : f32
      fusion.reduce_yield %z : f32
    } combiner {
    ^bb0(%a: f32, %b: f32):
      %s = arith.addf %a, %b : f32
      fusion.reduce_yield %s : f32
    }
    ```
  }];
  let arguments = (ins Variadic<AnyType>:$state, AnySignlessInteger:$lane,
                       AnySignlessInteger:$warp, Variadic<AnyMemRef>:$slots,
                       AnySignlessInteger:$at, AnySignlessInteger:$warps,
                       I1:$multi_warp, Optional<AnySignlessInteger>:$width);
  let results = (outs Variadic<AnyType>:$results);
  let regions = (region SizedRegion<1>:$identity, SizedRegion<1>:$combiner);
  let assemblyFormat = [{
    $state `:` type($state) `lane` $lane `warp` $warp
    `slots` `(` $slots `:` type($slots) `)` `at` $at `warps` $warps
    `if` $multi_warp (`width` $width^ `:` type($width))? `:` type($lane)
    `identity` $identity
    `combiner` $combiner attr-dict
  }];
  let hasRegionVerifier = 1;
}

def Fusion_GridArriveOp : Fusion_Op<"grid_arrive", [
    AllTypesMatch<["thread", "group", "splits"]>,
    MemoryEffects<[MemRead<DefaultResource>, MemWrite<DefaultResource>]>]> {
  let summary = "The arrival counter of a grid reduction: is this block last?";
  let description = [{
    Note [Grid reduction]: `splits` blocks each write a partial result of
    group `group` to a workspace and then reach this op, which makes the
    block's writes visible at GPU scope (`fence.acq_rel.gpu`), synchronizes
    the block, lets thread 0 (`thread` is the thread's linear id in the
    block; with `if %active`, only where `active` also holds) add 1 to
    `counters[group]`, and returns in every thread whether this block was the
    last of the `splits` to arrive (through the one-word shared `flag`). The
    last block then folds the partials (after a fence of its own) and
    resets the counter to 0 for the next launch; the runtime zeroes the
    counters once. Every thread of the block must reach the op.

    ```mlir
    %last = fusion.grid_arrive thread %tid counters(%counters : memref<?xi32>)
        [%group] of %splits flag(%flag : memref<1xi32,
        #gpu.address_space<workgroup>>) : i32
    ```
  }];
  let arguments = (ins AnySignlessInteger:$thread, Optional<I1>:$active,
                       MemRefRankOf<[I32], [1]>:$counters,
                       AnySignlessInteger:$group, AnySignlessInteger:$splits,
                       MemRefRankOf<[I32], [1]>:$flag);
  let results = (outs I1:$last);
  let assemblyFormat = [{
    `thread` $thread (`if` $active^)? `counters` `(` $counters `:` type($counters) `)` `[` $group `]`
    `of` $splits `flag` `(` $flag `:` type($flag) `)` `:` type($group)
    attr-dict
  }];
  let hasVerifier = 1;
}

def Fusion_StageStoreOp : Fusion_Op<"stage_store", [
    MemoryEffects<[MemWrite<DefaultResource>]>]> {
  let summary = "Stores a thread's value to the block's dynamic shared memory";
  let description = [{
    Note [Staged rows]: a thread keeps values it needs again later in a
    slot of its own in the block's dynamic shared memory rather than in
    registers. `value` (an integer or float of whole bytes, or a vector of
    them) is stored at byte `offset` of the dynamic shared memory; `offset`
    must be a multiple of the value's size in bytes, which is also the
    access's alignment. The access is volatile, so the compiler neither
    drops it nor forwards the stored registers to a later
    `fusion.stage_load` (which would undo the staging). The launch provides
    the dynamic shared memory; its size is the kernel's business (the
    inner-reduction lowering records it in `fusion.stage_bytes_per_thread`).

    ```mlir
    fusion.stage_store %x, %offset : vector<8xbf16>, i32
    ```
  }];
  let arguments = (ins AnyType:$value, AnySignlessInteger:$offset);
  let assemblyFormat = [{
    $value `,` $offset attr-dict `:` type($value) `,` type($offset)
  }];
  let hasVerifier = 1;
}

def Fusion_StageLoadOp : Fusion_Op<"stage_load", [
    MemoryEffects<[MemRead<DefaultResource>]>]> {
  let summary = "Loads a value from the block's dynamic shared memory";
  let description = [{
    The counterpart of `fusion.stage_store`: a volatile load of a `result`
    type at byte `offset` (a multiple of the type's size in bytes) of the
    block's dynamic shared memory.

    ```mlir
    %x = fusion.stage_load %offset : i32 -> vector<8xbf16>
    ```
  }];
  let arguments = (ins AnySignlessInteger:$offset);
  let results = (outs AnyType:$result);
  let assemblyFormat = "$offset attr-dict `:` type($offset) `->` type($result)";
  let hasVerifier = 1;
}

def Fusion_StageCopyOp : Fusion_Op<"stage_copy", [
    MemoryEffects<[MemRead<DefaultResource>, MemWrite<DefaultResource>]>]> {
  let summary = "Copies global memory into the block's dynamic shared memory, asynchronously";
  let description = [{
    Note [Async staged rows]: `bytes` bytes (4, 8, 16 or a multiple of 16)
    of the 1-d global `source`, from its element `index` on, are copied to
    byte `offset` of the block's dynamic shared memory without passing
    through registers (`cp.async`, sm_80 and later; 16-byte pieces bypass
    L1). Where `valid` is false the slot is filled with zeros and nothing is
    read. The copy is complete for the thread that issued it once a
    `fusion.stage_wait` leaves no more than the groups committed after it
    pending (`fusion.stage_commit` closes a group); other threads see it
    only after a barrier. The element's address and `offset` must be
    multiples of the copy's piece size (the smaller of `bytes` and 16).

    ```mlir
    fusion.stage_copy %x[%i] to %offset if %ok {bytes = 16} : memref<?xbf16>, i32
    ```
  }];
  let arguments = (ins MemRefRankOf<[AnyType], [1]>:$source, Index:$index,
                       AnySignlessInteger:$offset, I1:$valid,
                       I64Attr:$bytes);
  let assemblyFormat = [{
    $source `[` $index `]` `to` $offset `if` $valid attr-dict `:`
    type($source) `,` type($offset)
  }];
  let hasVerifier = 1;
}

def Fusion_StageBulkCopyOp : Fusion_Op<"stage_bulk_copy", [
    MemoryEffects<[MemRead<DefaultResource>, MemWrite<DefaultResource>]>]> {
  let summary = "Copies a span of global memory into the block's dynamic shared memory in one bulk copy";
  let description = [{
    Note [Bulk staged rows]: `bytes` bytes (a multiple of 16, more than 0)
    of the 1-d global `source`, from its element `index` on, are copied to
    byte `offset` of the block's dynamic shared memory by the copy engine
    (`cp.async.bulk`, sm_90 and later), one instruction for the whole
    span. The copy completes on barrier `barrier` of `barriers`, adding
    its bytes to the barrier's transaction count: a
    `fusion.mbarrier_arrive_expect_tx` of the bytes comes first, and a
    `fusion.mbarrier_wait` makes them visible. The element's address and
    `offset` must be multiples of 16. Shared memory the block read through
    ordinary loads takes a barrier and a `fusion.fence_async_shared` before
    a copy writes it again.

    ```mlir
    fusion.stage_bulk_copy %x[%i] to %offset, %bytes bytes, %bars[%b]
        : memref<?xbf16>, i32, memref<2xi64, #gpu.address_space<workgroup>>
    ```
  }];
  let arguments = (ins MemRefRankOf<[AnyType], [1]>:$source, Index:$index,
                       AnySignlessInteger:$offset, I32:$bytes,
                       AnyMemRef:$barriers, Index:$barrier);
  let assemblyFormat = [{
    $source `[` $index `]` `to` $offset `,` $bytes `bytes` `,` $barriers `[`
    $barrier `]` attr-dict `:` type($source) `,` type($offset) `,`
    type($barriers)
  }];
  let hasVerifier = 1;
}

def Fusion_StageCommitOp : Fusion_Op<"stage_commit", [
    MemoryEffects<[MemWrite<DefaultResource>]>]> {
  let summary = "Closes the thread's group of asynchronous stage copies";
  let description = [{
    The `fusion.stage_copy` ops this thread issued since the last commit
    form one group (`cp.async.commit_group`).
  }];
  let assemblyFormat = "attr-dict";
}

def Fusion_StageWaitOp : Fusion_Op<"stage_wait", [
    MemoryEffects<[MemRead<DefaultResource>, MemWrite<DefaultResource>]>]> {
  let summary = "Waits for the thread's older groups of stage copies";
  let description = [{
    Waits until at most `pending` of this thread's committed groups of
    `fusion.stage_copy` ops are still in flight (`cp.async.wait_group`):
    with 1, every group but the newest has landed.

    ```mlir
    fusion.stage_wait {pending = 1}
    ```
  }];
  let arguments = (ins ConfinedAttr<I64Attr, [IntMinValue<0>, IntMaxValue<7>]>:$pending);
  let assemblyFormat = "attr-dict";
}

def Fusion_GridReduceOp : Fusion_Op<"grid_reduce", [AttrSizedOperandSegments,
    AllTypesMatch<["base", "stride", "split", "splits", "thread", "group",
                   "first", "step"]>,
    MemoryEffects<[MemRead<DefaultResource>, MemWrite<DefaultResource>]>]> {
  let summary = "Combines the partial states of a group's blocks in the last block";
  let description = [{
    Note [Grid reduction]: a group's `splits` blocks (block `split` of them
    here) each hold a partial reduction state; the last block to finish
    combines all of them and runs the `last` region on the result.

    1. Where `writer` holds (one thread per partial), the state's
       components go to the `workspaces` (one 1-d global buffer per
       component, of its element type: a vector component is stored as
       consecutive elements) at slot `base + split * stride`.
    2. The blocks arrive as in `fusion.grid_arrive` (`thread`, `active`,
       `counters[group]`, `flag`).
    3. In the last block (where `active` also holds): a GPU-scope fence,
       thread 0 resets the counter to 0 for the next launch, and each
       thread folds the partials `i = first, first + step, ...` below
       `splits` (slot `base + i * stride`; where `in_range` is given and
       false, the thread reads nothing and keeps the `identity` state) with
       the `combiner`, then runs the `last` region on its folded state (for
       example a block reduction of the threads' folds and the result's
       store). The region yields nothing.

    The integer operands share one type. Every thread of the block must
    reach the op.

    ```mlir
    fusion.grid_reduce %x : f32 workspaces(%ws : memref<?xf32>)
        at %base stride %one split %y of %splits if %writer
        thread %tid if %valid counters(%counters : memref<?xi32>) [%row]
        flag(%flag : memref<1xi32, #gpu.address_space<workgroup>>)
        fold from %tid step %threads : i32
        identity {
      %z = arith.constant 0.0 : f32
      fusion.reduce_yield %z : f32
    } combiner {
    ^bb0(%a: f32, %b: f32):
      %s = arith.addf %a, %b : f32
      fusion.reduce_yield %s : f32
    } last {
    ^bb0(%folded: f32):
      fusion.reduce_yield
    }
    ```
  }];
  let arguments = (ins Variadic<AnyType>:$state,
                       Variadic<AnyMemRef>:$workspaces,
                       AnySignlessInteger:$base, AnySignlessInteger:$stride,
                       AnySignlessInteger:$split, AnySignlessInteger:$splits,
                       I1:$writer, AnySignlessInteger:$thread,
                       Optional<I1>:$active,
                       MemRefRankOf<[I32], [1]>:$counters,
                       AnySignlessInteger:$group,
                       MemRefRankOf<[I32], [1]>:$flag,
                       AnySignlessInteger:$first, AnySignlessInteger:$step,
                       Optional<I1>:$in_range);
  let regions = (region SizedRegion<1>:$identity, SizedRegion<1>:$combiner,
                        SizedRegion<1>:$last);
  let assemblyFormat = [{
    $state `:` type($state)
    `workspaces` `(` $workspaces `:` type($workspaces) `)`
    `at` $base `stride` $stride `split` $split `of` $splits `if` $writer
    `thread` $thread (`if` $active^)?
    `counters` `(` $counters `:` type($counters) `)` `[` $group `]`
    `flag` `(` $flag `:` type($flag) `)`
    `fold` `from` $first `step` $step (`if` $in_range^)? `:` type($base)
    `identity` $identity `combiner` $combiner `last` $last attr-dict
  }];
  let hasRegionVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Hopper bulk copies (TMA) and mbarriers (sm_90+). Note [Bulk copies]: a
// tile moves between global and shared memory with one instruction that
// the copy engine runs asynchronously; a load completes on an mbarrier
// (which counts the bytes it expects), a store on a bulk group. Barriers
// are i64 slots of a workgroup memref, picked by index; tiles are static
// workgroup memrefs whose shape is the copy's box. The tensor map
// describing the global tensor (a CUtensorMap, 128 bytes) is reached
// through a generic pointer.
//===----------------------------------------------------------------------===//

def Fusion_MBarrierInitOp : Fusion_Op<"mbarrier_init", [
    MemoryEffects<[MemWrite<DefaultResource>]>]> {
  let summary = "Initializes an mbarrier for `count` arrivals";
  let description = [{
    Sets barrier `index` of `barriers` to phase 0, expecting `count`
    arrivals and no transaction bytes. One thread initializes a barrier;
    a `fusion.fence_async_shared` and a block barrier must follow before
    the bulk copies use it.

    ```mlir
    fusion.mbarrier_init %bars[%i], %count : memref<2xi64, #gpu.address_space<workgroup>>
    ```
  }];
  let arguments = (ins AnyMemRef:$barriers, Index:$index, I32:$count);
  let assemblyFormat = [{
    $barriers `[` $index `]` `,` $count attr-dict `:` type($barriers)
  }];
  let hasVerifier = 1;
}

def Fusion_MBarrierArriveExpectTxOp : Fusion_Op<"mbarrier_arrive_expect_tx", [
    MemoryEffects<[MemWrite<DefaultResource>]>]> {
  let summary = "Arrives on an mbarrier and expects `bytes` of bulk copies";
  let description = [{
    Adds `bytes` to the transaction bytes barrier `index` waits for (the
    bytes the bulk tensor loads completing on it will bring) and arrives on
    it once (release semantics, CTA scope).

    ```mlir
    fusion.mbarrier_arrive_expect_tx %bars[%i], %bytes : memref<2xi64, #gpu.address_space<workgroup>>
    ```
  }];
  let arguments = (ins AnyMemRef:$barriers, Index:$index, I32:$bytes);
  let assemblyFormat = [{
    $barriers `[` $index `]` `,` $bytes attr-dict `:` type($barriers)
  }];
  let hasVerifier = 1;
}

def Fusion_MBarrierWaitOp : Fusion_Op<"mbarrier_wait", [
    MemoryEffects<[MemRead<DefaultResource>, MemWrite<DefaultResource>]>]> {
  let summary = "Waits until an mbarrier completes the phase of a parity";
  let description = [{
    Blocks the thread until barrier `index` has completed its phase of
    parity `phase` (0 or 1: the barrier's phases alternate), with acquire
    semantics: what the bulk copies completing on it wrote is visible after.

    ```mlir
    fusion.mbarrier_wait %bars[%i], %phase : memref<2xi64, #gpu.address_space<workgroup>>
    ```
  }];
  let arguments = (ins AnyMemRef:$barriers, Index:$index, I32:$phase);
  let assemblyFormat = [{
    $barriers `[` $index `]` `,` $phase attr-dict `:` type($barriers)
  }];
  let hasVerifier = 1;
}

def Fusion_BulkTensorLoadOp : Fusion_Op<"bulk_tensor_load", [
    MemoryEffects<[MemRead<DefaultResource>, MemWrite<DefaultResource>]>]> {
  let summary = "Copies a tile of a global tensor to shared memory (TMA)";
  let description = [{
    Starts the copy of the box at `coordinates` (innermost dim last, as the
    tile's shape; elements, i32) of the tensor that `tensor_map` describes
    into `tile`, a static workgroup memref of the box's shape. The copy
    completes on barrier `index` of `barriers`, adding its bytes to the
    barrier's transaction count; elements outside the tensor read as zero.
    Rank 1 to 5; each box dim at most 256 elements, the innermost one a
    multiple of 16 bytes.

    ```mlir
    fusion.bulk_tensor_load %map [%r, %c] to %tile, %bars[%i]
        : !llvm.ptr, memref<64x64xbf16, #gpu.address_space<workgroup>>,
          memref<2xi64, #gpu.address_space<workgroup>>
    ```
  }];
  let arguments = (ins AnyType:$tensor_map, Variadic<I32>:$coordinates,
                       AnyMemRef:$tile, AnyMemRef:$barriers, Index:$index);
  let assemblyFormat = [{
    $tensor_map `[` $coordinates `]` `to` $tile `,` $barriers `[` $index `]`
    attr-dict `:` type($tensor_map) `,` type($tile) `,` type($barriers)
  }];
  let hasVerifier = 1;
}

def Fusion_BulkTensorStoreOp : Fusion_Op<"bulk_tensor_store", [
    MemoryEffects<[MemRead<DefaultResource>, MemWrite<DefaultResource>]>]> {
  let summary = "Copies a shared-memory tile to a global tensor (TMA)";
  let description = [{
    Starts the copy of `tile` (a static workgroup memref of the box's
    shape) to the box at `coordinates` of the tensor that `tensor_map`
    describes; elements outside the tensor are not written. The copy joins
    the thread's current bulk group (`fusion.bulk_commit_group`,
    `fusion.bulk_wait_group`). Writes to the tile through ordinary stores
    must be made visible to the copy engine first
    (`fusion.fence_async_shared`). The same box rules as the load.

    ```mlir
    fusion.bulk_tensor_store %tile to %map [%r, %c]
        : memref<64x64xbf16, #gpu.address_space<workgroup>>, !llvm.ptr
    ```
  }];
  let arguments = (ins AnyMemRef:$tile, AnyType:$tensor_map,
                       Variadic<I32>:$coordinates);
  let assemblyFormat = [{
    $tile `to` $tensor_map `[` $coordinates `]` attr-dict `:` type($tile) `,`
    type($tensor_map)
  }];
  let hasVerifier = 1;
}

def Fusion_BulkCommitGroupOp : Fusion_Op<"bulk_commit_group", [
    MemoryEffects<[MemWrite<DefaultResource>]>]> {
  let summary = "Closes the thread's current bulk group";
  let description = [{
    The bulk tensor stores started since the last commit form a group that
    `fusion.bulk_wait_group` can wait for.
  }];
  let assemblyFormat = "attr-dict";
}

def Fusion_BulkWaitGroupOp : Fusion_Op<"bulk_wait_group", [
    MemoryEffects<[MemRead<DefaultResource>, MemWrite<DefaultResource>]>]> {
  let summary = "Waits until at most `pending` bulk groups are in flight";
  let description = [{
    Blocks until no more than `pending` of the thread's most recent bulk
    groups are unfinished; with `read`, until they have finished reading
    their source tiles (the tiles may be written again), not until their
    writes are visible.

    ```mlir
    fusion.bulk_wait_group 0 {read}
    ```
  }];
  let arguments = (ins ConfinedAttr<I32Attr, [IntMinValue<0>, IntMaxValue<63>]>:$pending,
                       UnitAttr:$read);
  let assemblyFormat = "$pending attr-dict";
}

def Fusion_FenceAsyncSharedOp : Fusion_Op<"fence_async_shared", [
    MemoryEffects<[MemRead<DefaultResource>, MemWrite<DefaultResource>]>]> {
  let summary = "Orders shared-memory accesses with the bulk copies";
  let description = [{
    Makes the thread's ordinary shared-memory writes (a tile, an mbarrier's
    initialization) visible to the bulk copies that follow (the async
    proxy), and theirs to the thread's reads.
  }];
  let assemblyFormat = "attr-dict";
}

def Fusion_PrefetchTensorMapOp : Fusion_Op<"prefetch_tensormap", [
    MemoryEffects<[MemRead<DefaultResource>]>]> {
  let summary = "Prefetches a tensor map for later bulk copies";
  let arguments = (ins AnyType:$tensor_map);
  let assemblyFormat = "$tensor_map attr-dict `:` type($tensor_map)";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Thread block clusters (sm_90+). Note [Cluster reductions]: the blocks of a
// cluster run at once on one GPC and read each other's shared memory
// (distributed shared memory). A row too long for one block's registers is
// split over the blocks of a cluster: each block reduces its part, then
// `fusion.cluster_reduce` combines the blocks' states without a round trip
// through global memory. The cluster's shape is a launch attribute
// (LaunchVariant.cluster in the module file).
//===----------------------------------------------------------------------===//

def Fusion_ClusterRankOp : Fusion_Op<"cluster_rank", [Pure]> {
  let summary = "The block's rank in its cluster";
  let description = [{
    The linear rank of the executing block in its thread block cluster, in
    `[0, blocks of the cluster)` (`%cluster_ctarank`); 0 when the launch has
    no cluster.

    ```mlir
    %rank = fusion.cluster_rank : i32
    ```
  }];
  let results = (outs I32:$rank);
  let assemblyFormat = "attr-dict `:` type($rank)";
}

def Fusion_ClusterReduceOp : Fusion_Op<"cluster_reduce", [
    AttrSizedOperandSegments, InferTypeOpAdaptor,
    MemoryEffects<[MemRead<DefaultResource>, MemWrite<DefaultResource>]>]> {
  let summary = "Combines the blocks' states over a thread block cluster";
  let description = [{
    Note [Cluster reductions]: each block of the cluster holds a state that
    is the same in all its threads (the result of a `fusion.block_reduce`).
    The thread for which `leader` holds (one per block) writes its block's
    state to element 0 of the workgroup buffers `slots` (one buffer per
    state component); after a cluster barrier (arrive with release, wait
    with acquire semantics) every thread folds, from the `identity`
    region's state, the slots of the cluster's blocks in rank order, read
    through distributed shared memory, so every block of the cluster gets
    the same bits. A second cluster barrier keeps each block's slots (and
    the block) alive until every block has read them. Every thread of
    every block of the cluster must reach the op. sm_90 and later only.

    With `barriers %bars round %n` (Note [Cluster reductions through
    mbarriers]), there is no cluster barrier: each slot buffer holds two
    sets of `S / 2` elements (S its size, S / 2 at least the cluster's
    blocks), `%n` (an integer or index) counts the reductions through these slots and
    barriers (0, 1, 2, ... in every block of the cluster), and round `%n`
    uses set `b = n % 2` and mbarrier `b` of `%bars` (a workgroup
    `memref<2xi64>` that `fusion.cluster_reduce_init` prepared). The
    leader thread arrives on its block's mbarrier `b`, expecting the bytes
    of every block's state, and sends its block's state to element
    `b * S / 2 + rank` of every block's slots with `st.async`, which
    completes those bytes on the receiver's mbarrier `b`; every thread
    waits for phase `(n / 2) % 2` of its own mbarrier `b` and folds the
    slots of the set in rank order from its own shared memory. No block
    sends round `n + 2` before it has every block's round `n + 1`, which
    no block sends before its own reads of round `n`, so the two sets
    never overlap; and every byte sent to a block is one it waits for, so
    no cluster barrier is needed before a block exits. Components are
    32- or 64-bit (st.async's widths).

    ```mlir
    %r = fusion.cluster_reduce %x : f32 leader %t0
        slots(%s : memref<1xf32, #gpu.address_space<workgroup>>)
        identity {
      %z = arith.constant 0.0 : f32
      fusion.reduce_yield %z : f32
    } combiner {
    ^bb0(%a: f32, %b: f32):
      %s = arith.addf %a, %b : f32
      fusion.reduce_yield %s : f32
    }
    ```
  }];
  let arguments = (ins Variadic<AnyType>:$state, I1:$leader,
                       Variadic<AnyMemRef>:$slots,
                       Optional<AnyMemRef>:$barriers,
                       Optional<AnySignlessIntegerOrIndex>:$round);
  let results = (outs Variadic<AnyType>:$results);
  let regions = (region SizedRegion<1>:$identity, SizedRegion<1>:$combiner);
  let assemblyFormat = [{
    $state `:` type($state) `leader` $leader
    `slots` `(` $slots `:` type($slots) `)`
    (`barriers` $barriers^ `round` $round `:` type($barriers) `,` type($round))?
    `identity` $identity
    `combiner` $combiner attr-dict
  }];
  let hasRegionVerifier = 1;
}

def Fusion_ClusterReduceInitOp : Fusion_Op<"cluster_reduce_init", [
    MemoryEffects<[MemRead<DefaultResource>, MemWrite<DefaultResource>]>]> {
  let summary = "Prepares the mbarriers of cluster reductions";
  let description = [{
    Note [Cluster reductions through mbarriers]: thread 0 of each block
    initializes both mbarriers of every operand (a workgroup
    `memref<2xi64>`) for one arrival each, then every thread crosses a
    cluster barrier (after `fence.mbarrier_init`), so no block's `st.async`
    reaches a peer's mbarrier before the peer has initialized it. Every
    thread of every block of the cluster must reach it, before the first
    `fusion.cluster_reduce ... barriers` on these barriers. The thread
    index is the block's linear one (x fastest). sm_90 and later only.

    ```mlir
    fusion.cluster_reduce_init %bars : memref<2xi64, #gpu.address_space<workgroup>>
    ```
  }];
  let arguments = (ins Variadic<AnyMemRef>:$barriers);
  let assemblyFormat = "$barriers attr-dict `:` type($barriers)";
  let hasVerifier = 1;
}

#endif // FUSION_DEVICE_OPS_TD
