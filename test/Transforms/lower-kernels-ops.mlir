// RUN: fusion-opt %s --fusion-decompose --fusion-segment --fusion-schedule --fusion-lower-kernels --fusion-lower-kernel-ops --split-input-file -verify-diagnostics | FileCheck %s

// bf16 math computes in f32 and rounds once per op; a column vector
// broadcast along rows is read once per vector (scalar, then splat); a bf16
// result allows approximate tanh. The element-wise widening of 16-bit math
// stays arith.extf, which LLVM may narrow to packed bf16 math (Note [bf16
// pairs widened as bits]).
// CHECK-LABEL: gpu.func @rows_k0_v8_i32
// CHECK: memref.load %{{.*}} : memref<?xbf16>
// CHECK: vector.broadcast %{{.*}} : bf16 to vector<8xbf16>
// CHECK-NOT: vector.bitcast
// CHECK: arith.extf %{{.*}} : vector<8xbf16> to vector<8xf32>
// CHECK: llvm.inline_asm "tanh.approx.f32
// CHECK: arith.truncf %{{.*}} : vector<8xf32> to vector<8xbf16>
fusion.fusion @rows(%x: tensor<?x?xbf16>, %s: tensor<?xbf16>) -> tensor<?x?xbf16> {
  %m = fusion.dim %x, 0 : tensor<?x?xbf16>
  %n = fusion.dim %x, 1 : tensor<?x?xbf16>
  %b = fusion.broadcast_in_dim %s [0] (%m, %n) : tensor<?xbf16> -> tensor<?x?xbf16>
  %0 = fusion.mul %x, %b : tensor<?x?xbf16>
  %1 = fusion.tanh %0 : tensor<?x?xbf16>
  fusion.return %1 : tensor<?x?xbf16>
}

// -----

// i1 tensors are stored as bytes (so the byte-sized output sets the vector
// width to 8); comparisons and where.
// CHECK-LABEL: gpu.func @select_k0_v8_i32
// CHECK: arith.cmpf olt
// CHECK: arith.extui %{{.*}} : vector<8xi1> to vector<8xi8>
// CHECK: vector.store %{{.*}} : memref<?xi8>, vector<8xi8>
// CHECK: arith.select %{{.*}} : vector<8xi1>, vector<8xf32>
fusion.fusion @select(%a: tensor<?xf32>, %b: tensor<?xf32>) -> (tensor<?xi1>, tensor<?xf32>) {
  %lt = fusion.lt %a, %b : tensor<?xf32>
  %w = fusion.where %lt, %a, %b : tensor<?xi1>, tensor<?xf32>
  fusion.return %lt, %w : tensor<?xi1>, tensor<?xf32>
}

// -----

// A transposed read walks a strided dim of the input: lanes are gathered.
// CHECK-LABEL: gpu.func @transpose_k0_v4_i32
// CHECK-COUNT-4: memref.load
// CHECK: vector.from_elements
fusion.fusion @transpose(%a: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %t = fusion.permute %a [1, 0] : tensor<?x?xf32> -> tensor<?x?xf32>
  %r = fusion.neg %t : tensor<?x?xf32>
  fusion.return %r : tensor<?x?xf32>
}

// -----

// bf16 results allow approximate tanh (one MUFU op per element); the
// unrolled main loop loads both items before storing either.
// CHECK-LABEL: gpu.func @fast_k0_v8_i32
// CHECK: scf.for
// CHECK: vector.load
// CHECK: vector.load
// CHECK-NOT: vector.store
// CHECK: llvm.inline_asm "tanh.approx.f32 $0, $1;", "=f,f"
// CHECK: vector.store
// CHECK: vector.store
// CHECK: scf.for
// All variants compute the same function: the scalar one approximates too.
// CHECK-LABEL: gpu.func @fast_k0_s_i32
// CHECK: llvm.inline_asm "tanh.approx.f32
fusion.fusion @fast(%a: tensor<?xbf16>) -> tensor<?xbf16> {
  %0 = fusion.kernel @fast_k0 schedule = #fusion.pointwise<vector = 8, unroll = 2, block = 128, max_grid = 100, index64 = false, fast_math = true> (%a) : (tensor<?xbf16>) -> tensor<?xbf16> {
  ^bb0(%x: tensor<?xbf16>):
    %1 = fusion.tanh %x : tensor<?xbf16>
    fusion.yield %1 : tensor<?xbf16>
  }
  fusion.return %0 : tensor<?xbf16>
}

// -----

// fp8 conversions are integer arithmetic on the bits (Note [fp8 on the
// GPU]): f32 -> f8E4M3FN rounds the f32 bits and stores the bytes bitcast to
// fp8; f8E5M2 -> f32 decodes the loaded bytes. The vectorized and the scalar
// variants both convert, with no extf/truncf on fp8.
// CHECK-LABEL: gpu.func @to_f8_k0_v4_i32
// CHECK-NOT: arith.extf
// CHECK: %[[X:.*]] = vector.load %{{.*}} : memref<?xf32>, vector<4xf32>
// CHECK: arith.bitcast %[[X]] : vector<4xf32> to vector<4xi32>
// CHECK: %[[E4:.*]] = arith.bitcast %{{.*}} : vector<4xi8> to vector<4xf8E4M3FN>
// CHECK: %[[Y:.*]] = vector.load %{{.*}} : memref<?xf8E5M2>, vector<4xf8E5M2>
// CHECK: %[[YB:.*]] = arith.bitcast %[[Y]] : vector<4xf8E5M2> to vector<4xi8>
// CHECK: arith.extui %[[YB]] : vector<4xi8> to vector<4xi32>
// CHECK: %[[F:.*]] = arith.bitcast %{{.*}} : vector<4xi32> to vector<4xf32>
// CHECK-NOT: arith.truncf
// CHECK: vector.store %[[E4]], %{{.*}} : memref<?xf8E4M3FN>, vector<4xf8E4M3FN>
// CHECK: vector.store %[[F]], %{{.*}} : memref<?xf32>, vector<4xf32>
// CHECK-LABEL: gpu.func @to_f8_k0_s_i32
// CHECK-NOT: arith.extf
// CHECK: %[[SX:.*]] = memref.load %{{.*}} : memref<?xf32>
// CHECK: arith.bitcast %[[SX]] : f32 to i32
// CHECK: %[[SE4:.*]] = arith.bitcast %{{.*}} : i8 to f8E4M3FN
// CHECK: %[[SY:.*]] = memref.load %{{.*}} : memref<?xf8E5M2>
// CHECK: %[[SYB:.*]] = arith.bitcast %[[SY]] : f8E5M2 to i8
// CHECK: arith.extui %[[SYB]] : i8 to i32
// CHECK: %[[SF:.*]] = arith.bitcast %{{.*}} : i32 to f32
// CHECK-NOT: arith.truncf
// CHECK: memref.store %[[SE4]], %{{.*}} : memref<?xf8E4M3FN>
// CHECK: memref.store %[[SF]], %{{.*}} : memref<?xf32>
// CHECK-LABEL: gpu.func @to_f8_k0_s_i64
// CHECK: arith.bitcast %{{.*}} : i8 to f8E4M3FN
// CHECK: arith.bitcast %{{.*}} : f8E5M2 to i8
fusion.fusion @to_f8(%a: tensor<?xf32>, %e: tensor<?xf8E5M2>) -> (tensor<?xf8E4M3FN>, tensor<?xf32>) {
  %0:2 = fusion.kernel @to_f8_k0 schedule = #fusion.pointwise<vector = 4, unroll = 1, block = 128, max_grid = 100, index64 = false, fast_math = false> (%a, %e) : (tensor<?xf32>, tensor<?xf8E5M2>) -> (tensor<?xf8E4M3FN>, tensor<?xf32>) {
  ^bb0(%x: tensor<?xf32>, %y: tensor<?xf8E5M2>):
    %1 = fusion.cast %x : tensor<?xf32> to tensor<?xf8E4M3FN>
    %2 = fusion.cast %y : tensor<?xf8E5M2> to tensor<?xf32>
    fusion.yield %1, %2 : tensor<?xf8E4M3FN>, tensor<?xf32>
  }
  fusion.return %0#0, %0#1 : tensor<?xf8E4M3FN>, tensor<?xf32>
}

// -----

// Results of different symbolic shapes in one hand-written kernel (the
// segmenter would split them: Note [Results of one shape]): checked at run
// time with a message that says why, before anything launches.
// CHECK-LABEL: fusion.fusion @two_shapes
// CHECK: check %{{.*}}, "result 1 dim 0 must equal result 0 dim 0: outputs of different shapes in one pointwise kernel are not supported yet"
fusion.fusion @two_shapes(%a: tensor<?x?xf32>, %b: tensor<?x?xf32>) -> (tensor<?x?xf32>, tensor<?x?xf32>) {
  %r:2 = fusion.kernel @two_shapes_k0 schedule = #fusion.pointwise<vector = 4, unroll = 1, block = 128, max_grid = 100, index64 = false, fast_math = false> (%a, %b) : (tensor<?x?xf32>, tensor<?x?xf32>) -> (tensor<?x?xf32>, tensor<?x?xf32>) {
  ^bb0(%x: tensor<?x?xf32>, %y: tensor<?x?xf32>):
    %0 = fusion.add %x, %y : tensor<?x?xf32>
    %t = fusion.permute %x [1, 0] : tensor<?x?xf32> -> tensor<?x?xf32>
    %1 = fusion.neg %t : tensor<?x?xf32>
    fusion.yield %0, %1 : tensor<?x?xf32>, tensor<?x?xf32>
  }
  fusion.return %r#0, %r#1 : tensor<?x?xf32>, tensor<?x?xf32>
}

// -----

// The same fusion as the segmenter cuts it: a + b and -(a^T) have shapes
// that differ unless a is square, so they come from two kernels.
// CHECK-LABEL: fusion.fusion @two_shapes_split
// CHECK-NOT: outputs of different shapes
// CHECK: launch @two_shapes_split_kernels::@two_shapes_split_k0_v4_i32
// CHECK: launch @two_shapes_split_kernels::@two_shapes_split_k1_t64_i32
// CHECK: return
fusion.fusion @two_shapes_split(%a: tensor<?x?xf32>, %b: tensor<?x?xf32>) -> (tensor<?x?xf32>, tensor<?x?xf32>) {
  %0 = fusion.add %a, %b : tensor<?x?xf32>
  %t = fusion.permute %a [1, 0] : tensor<?x?xf32> -> tensor<?x?xf32>
  %1 = fusion.neg %t : tensor<?x?xf32>
  fusion.return %0, %1 : tensor<?x?xf32>, tensor<?x?xf32>
}

// -----

// A hand-written inner-reduction schedule with per-row results only: no
// persistent variants. First the split-row variants (Note [Split rows]):
// S = min(ceil(max_grid / 4 / rows), ceil(K / (512 * vector * 4))) blocks
// per row in grid y, 512 threads, a workspace of rows * S states and zeroed
// counters (allocated only when the scalar variant splits); then streaming
// vectorized, scalar 32-bit and 64-bit variants. Threads per row (the last
// launch argument) come from the row length at launch: ceil(K / 32)
// rounded up to 32, within 32..512, and a block takes max(64 / T, 1) rows.
// CHECK-LABEL: fusion.fusion @rowmax
// CHECK: %[[K:.*]] = dim %arg0, 1
// CHECK: %[[WS:.*]] = empty(%{{.*}}) : tensor<?xf32>
// CHECK: %[[CNT:.*]] = empty(%{{.*}}) zero_init kept_zero : tensor<?xi32>
// CHECK: %[[C16K:.*]] = arith.constant 16384 : index
// CHECK: %[[CH:.*]] = arith.ceildivsi %[[K]], %[[C16K]]
// CHECK: %[[PER:.*]] = arith.ceildivsi %c250, %{{.*}}
// CHECK: arith.minsi %[[PER]], %[[CH]]
// CHECK: launch @rowmax_kernels::@rowmax_k0_gv8_i32 if({{.*}}) grid(%[[ROWS:.*]], %{{.*}}, %{{.*}}) block(%c512{{.*}}) smem({{.*}}) args(%arg0, %{{.*}}, %{{.*}}, %{{.*}}, %[[WS]], %[[CNT]], {{.*}}, %c512)
// CHECK: launch @rowmax_kernels::@rowmax_k0_gs_i32 if({{.*}}) grid(%[[ROWS]],
// CHECK: %[[N:.*]] = arith.ceildivsi %[[K]], %{{.*}} : index
// CHECK: %[[W:.*]] = arith.ceildivsi %[[N]]
// CHECK: %[[T0:.*]] = arith.muli %[[W]]
// CHECK: %[[T1:.*]] = arith.maxsi %[[T0]]
// CHECK: %[[TW:.*]] = arith.minsi %[[T1]]
// Note [Short rows]: a row that needs at most 16 threads gets 2, 4, 8 or 16.
// CHECK: %[[NEED:.*]] = arith.ceildivsi %[[K]], %c32{{.*}}
// CHECK: arith.cmpi slt, %[[NEED]], %c9
// CHECK: %[[SHORT:.*]] = arith.cmpi slt, %[[NEED]], %c17
// CHECK: %[[T:.*]] = arith.select %{{.*}}, %{{.*}}, %[[TW]] : index
// CHECK: %[[R0:.*]] = arith.floordivsi %c64, %[[T]]
// CHECK: %[[R:.*]] = arith.maxsi %[[R0]]
// CHECK: %[[B:.*]] = arith.muli %[[T]], %[[R]]
// CHECK: launch @rowmax_kernels::@rowmax_k0_v8_i32 if({{.*}}) grid({{.*}}) block(%[[B]], {{.*}}) smem({{.*}}) args({{.*}}, %[[T]])
// CHECK: launch @rowmax_kernels::@rowmax_k0_s_i32 if(
// CHECK: launch @rowmax_kernels::@rowmax_k0_s_i64 grid(
// CHECK-NOT: launch
// The split variant: a span of the row per block y, the block's state to
// the workspace, a fence, the row's counter; the last block resets it,
// folds the states (a strided share per thread, then across the block)
// and writes the row's result.
// CHECK-LABEL: gpu.func @rowmax_k0_gv8_i32
// CHECK-SAME: workgroup({{.*}}memref<32xf32, #gpu.address_space<workgroup>>, {{.*}}memref<1xi32, #gpu.address_space<workgroup>>)
// CHECK: gpu.block_id  y
// CHECK: scf.for {{.*}} iter_args({{.*}}) -> (f32)
// CHECK-COUNT-4: vector.load {{.*}} : memref<?xbf16>, vector<8xbf16>
// CHECK-COUNT-5: gpu.shuffle  xor
// CHECK: memref.store {{.*}} : memref<?xf32>
// CHECK: fence.acq_rel.gpu
// CHECK-NEXT: gpu.barrier
// CHECK: memref.atomic_rmw addi {{.*}} : (i32, memref<?xi32>) -> i32
// CHECK: gpu.barrier
// CHECK: memref.load {{.*}} : memref<1xi32, #gpu.address_space<workgroup>>
// CHECK: scf.if
// CHECK-NEXT: fence.acq_rel.gpu
// CHECK: memref.store %{{.*}} : memref<?xi32>
// CHECK: scf.for {{.*}} iter_args({{.*}}) -> (f32)
// CHECK: memref.load {{.*}} : memref<?xf32>
// CHECK: arith.maximumf
// CHECK-COUNT-5: gpu.shuffle  xor
// CHECK: arith.truncf {{.*}} : f32 to bf16
// CHECK: memref.store {{.*}} : memref<?xbf16>
// CHECK-LABEL: gpu.func @rowmax_k0_gs_i32
// CHECK-LABEL: gpu.func @rowmax_k0_v8_i32
// CHECK-SAME: nvvm.maxntid = array<i32: 512, 1, 1>
// CHECK: scf.for
// The first chunk's loads before the chunk loop, the next chunk's at the
// top of its body, carried after the state (Note [Chunk prefetch]).
// CHECK-COUNT-4: vector.load {{.*}} : memref<?xbf16>, vector<8xbf16>
// CHECK: scf.for {{.*}} iter_args({{.*}}) -> (f32, vector<8xbf16>, vector<8xbf16>, vector<8xbf16>, vector<8xbf16>)
// CHECK-COUNT-4: vector.load {{.*}} : memref<?xbf16>, vector<8xbf16>
// CHECK-NOT: vector.load
// CHECK: vector.reduction <maximumf>
// CHECK: scf.yield {{.*}} : f32, vector<8xbf16>, vector<8xbf16>, vector<8xbf16>, vector<8xbf16>
// CHECK-COUNT-5: gpu.shuffle  xor
// CHECK: memref.store {{.*}} : memref<32xf32, #gpu.address_space<workgroup>>
// CHECK: gpu.barrier
// CHECK: memref.load {{.*}} : memref<32xf32, #gpu.address_space<workgroup>>
// CHECK: gpu.barrier
// CHECK: arith.truncf {{.*}} : f32 to bf16
// CHECK: memref.store {{.*}} : memref<?xbf16>
// CHECK-LABEL: gpu.func @rowmax_k0_s_i32
// CHECK-LABEL: gpu.func @rowmax_k0_s_i64
fusion.fusion @rowmax(%a: tensor<?x?xbf16>) -> tensor<?xbf16> {
  %0 = fusion.kernel @rowmax_k0 schedule = #fusion.inner_reduction<vector = 8, items = 2, block = 64, max_grid = 1000, index64 = false, fast_math = false> (%a) : (tensor<?x?xbf16>) -> tensor<?xbf16> {
  ^bb0(%x: tensor<?x?xbf16>):
    %1 = fusion.max %x [1] : tensor<?x?xbf16> -> tensor<?xbf16>
    fusion.yield %1 : tensor<?xbf16>
  }
  fusion.return %0 : tensor<?xbf16>
}

// -----

// A normalization with per-row results beside it: persistent variants
// first (the row's 8 vectors per thread are loaded once, one row ahead:
// before the row loop for the first row, at the top of each iteration for
// the next; the weight in the epilogue), guarded by K <= 512 * 32;
// var_mean is one Welford state.
// CHECK-LABEL: fusion.fusion @norm
// CHECK: %[[CAP:.*]] = arith.constant 16385 : index
// CHECK: arith.cmpi slt, %{{.*}}, %[[CAP]] : index
// CHECK: launch @norm_kernels::@norm_k0_pv4_i32 if(
// CHECK: launch @norm_kernels::@norm_k0_prv4_i32 if(
// CHECK: launch @norm_kernels::@norm_k0_rv4_i32 if(
// CHECK: launch @norm_kernels::@norm_k0_ps_i32 if(
// CHECK: launch @norm_kernels::@norm_k0_v4_i32 if(
// CHECK: launch @norm_kernels::@norm_k0_s_i32 if(
// CHECK: launch @norm_kernels::@norm_k0_s_i64 grid(
// CHECK-LABEL: gpu.func @norm_k0_pv4_i32
// CHECK-COUNT-8: vector.load %arg0
// CHECK: scf.for {{.*}} iter_args({{.*}}) -> (vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>)
// CHECK-COUNT-8: vector.load %arg0
// CHECK-NOT: vector.load %arg0
// CHECK: vector.reduction <add>
// CHECK: gpu.barrier
// CHECK: arith.divf
// CHECK: math.rsqrt
// CHECK: vector.load %arg8
// CHECK: vector.store
// CHECK-NOT: vector.load %arg0
// The ragged variants (Note [Ragged rows], test/Transforms/ragged-rows.mlir).
// CHECK-LABEL: gpu.func @norm_k0_prv4_i32
// CHECK-LABEL: gpu.func @norm_k0_rv4_i32
// CHECK-LABEL: gpu.func @norm_k0_ps_i32
// CHECK-COUNT-32: memref.load %arg0
// CHECK-NOT: memref.load %arg0
// CHECK-LABEL: gpu.func @norm_k0_v4_i32
// CHECK: scf.for
// CHECK: vector.load %arg0
// CHECK: scf.for
// CHECK: vector.load %arg0
fusion.fusion @norm(%x: tensor<?x?xf32>, %w: tensor<?xf32>) -> (tensor<?x?xf32>, tensor<?xf32>, tensor<?x1xf32>) {
  %v, %m = fusion.var_mean %x [1] correction = 0 keepdim : tensor<?x?xf32> -> tensor<?x1xf32>
  %y = fusion.rms_norm %x weight(%w : tensor<?xf32>) axis = 1 eps = 1.0e-6 : tensor<?x?xf32>
  %s = fusion.sum %x [1] : tensor<?x?xf32> -> tensor<?xf32>
  fusion.return %y, %s, %v : tensor<?x?xf32>, tensor<?xf32>, tensor<?x1xf32>
}

// -----

// An outer reduction: a workspace (splits x columns, f32) and zeroed
// counters; the grid is column groups x splits of 256-thread blocks; the
// kernel folds 8 row-threads in shared memory, and with several splits
// writes partials, fences, counts in atomically, and the last block folds.
// CHECK-LABEL: fusion.fusion @colsum
// CHECK: %[[OUT:.*]] = empty(%{{.*}}) : tensor<?xf32>
// CHECK: %[[WS:.*]] = empty(%{{.*}}) : tensor<?xf32>
// CHECK: %[[CNT:.*]] = empty(%{{.*}}) zero_init kept_zero : tensor<?xi32>
// CHECK: launch @colsum_kernels::@colsum_k0_v4_i32 if({{.*}}) grid(%{{.*}}, %[[S:[^,]*]], %{{.*}}) block(%c256{{.*}}) smem({{.*}}) args(%arg0, %{{.*}}, %{{.*}}, %[[OUT]], %[[WS]], %[[CNT]], {{.*}}, %[[S]], %{{.*}})
// CHECK: launch @colsum_kernels::@colsum_k0_s_i32
// CHECK: launch @colsum_kernels::@colsum_k0_s_i64
// CHECK-LABEL: gpu.func @colsum_k0_v4_i32
// CHECK-SAME: workgroup(%{{.*}} : memref<1024xf32, #gpu.address_space<workgroup>>, %{{.*}} : memref<1xi32, #gpu.address_space<workgroup>>)
// CHECK-SAME: known_block_size = array<i32: 256, 1, 1>
// CHECK: scf.for {{.*}} iter_args({{.*}}) -> (vector<4xf32>)
// CHECK-COUNT-4: vector.load %arg0
// CHECK: gpu.barrier
// CHECK: llvm.inline_asm has_side_effects "fence.acq_rel.gpu;"
// CHECK: memref.atomic_rmw addi
// CHECK: llvm.inline_asm has_side_effects "fence.acq_rel.gpu;"
// CHECK: vector.store {{.*}} : memref<?xf32>, vector<4xf32>
fusion.fusion @colsum(%x: tensor<?x?xf32>) -> tensor<?xf32> {
  %0 = fusion.sum %x [0] : tensor<?x?xf32> -> tensor<?xf32>
  fusion.return %0 : tensor<?xf32>
}

// -----

// softmax: the max and the sum of exp(x - max) are one online state, folded
// across the row in two folds (Note [Online states in two folds]): the max
// (one component), then the sums rescaled to it by one exp per thread;
// exp is ex2.approx with bf16 results; the epilogue divides with div.full.
// Every row reduction has one butterfly of five distances, each step taken
// only below the row's width in lanes (Note [Narrow butterfly]).
// CHECK-LABEL: gpu.func @softmax_k0_pv8_i32
// CHECK-COUNT-8: vector.load %arg0
// CHECK-NOT: vector.load %arg0
// exp(x - max) is ex2(fma(x, log2 e, max * -log2 e)) (Note [exp of a
// difference]): the max scaled once, one fma per element.
// CHECK: %[[NEG:.*]] = arith.constant dense<-1.44269502> : vector<8xf32>
// CHECK: %[[OFF:.*]] = arith.mulf %{{.*}}, %[[NEG]] : vector<8xf32>
// CHECK: %[[ARG:.*]] = math.fma %{{.*}}, %{{.*}}, %[[OFF]] : vector<8xf32>
// CHECK: vector.extract %[[ARG]][0]
// CHECK-NEXT: ex2.approx.ftz.f32
// CHECK-COUNT-5: gpu.shuffle  xor
// CHECK-NOT: ex2.approx
// The warps' fold (several warps per row): lane l takes warp l's slot and
// the butterfly's five distances fold them, between two barriers.
// CHECK: = scf.if %{{.*}} -> (f32) {
// CHECK: gpu.barrier
// CHECK-COUNT-5: gpu.shuffle  xor
// CHECK-NEXT: arith.maximumf
// CHECK-NEXT: gpu.barrier
// CHECK: ex2.approx.ftz.f32
// CHECK-NOT: ex2.approx
// CHECK-COUNT-5: gpu.shuffle  xor
// CHECK: = scf.if %{{.*}} -> (f32) {
// CHECK-COUNT-5: gpu.shuffle  xor
// CHECK-NEXT: arith.addf
// CHECK-NEXT: gpu.barrier
// CHECK-NOT: gpu.shuffle
// The division by the row's sum (Note [Division by a row's value]): its
// reciprocal once, then a multiply per element; no div.full.
// CHECK-NOT: div.full.f32
// CHECK: %[[RCP:.*]] = llvm.inline_asm "rcp.approx.ftz.f32 $0, $1;", "=f,f" %{{.*}} : (f32) -> f32
// CHECK-NEXT: %[[RCPV:.*]] = vector.broadcast %[[RCP]] : f32 to vector<8xf32>
// CHECK-NEXT: arith.mulf %{{.*}}, %[[RCPV]] : vector<8xf32>
// CHECK-NOT: div.full.f32
// CHECK: vector.store
// CHECK-LABEL: gpu.func @softmax_k0_ps_i32
fusion.fusion @softmax(%x: tensor<?x?xbf16>) -> tensor<?x?xbf16> {
  %0 = fusion.softmax %x dim = 1 : tensor<?x?xbf16>
  fusion.return %0 : tensor<?x?xbf16>
}

// -----

// layer_norm: two sum passes (Note [Norms as sums]): the mean, then the
// squares centered on it; each folds one value (5 shuffles, and a block
// fold of 5 more).
// CHECK-LABEL: gpu.func @layernorm_k0_pv8_i32
// CHECK-COUNT-5: gpu.shuffle  xor
// CHECK: = scf.if %{{.*}} -> (f32) {
// CHECK-COUNT-5: gpu.shuffle  xor
// CHECK-COUNT-5: gpu.shuffle  xor
// CHECK: = scf.if %{{.*}} -> (f32) {
// CHECK-COUNT-5: gpu.shuffle  xor
// CHECK-NOT: gpu.shuffle
// CHECK: vector.store
// CHECK-LABEL: gpu.func @layernorm_k0_ps_i32
fusion.fusion @layernorm(%x: tensor<?x?xbf16>, %w: tensor<?xbf16>, %b: tensor<?xbf16>) -> tensor<?x?xbf16> {
  %0 = fusion.layer_norm %x weight(%w : tensor<?xbf16>) bias(%b : tensor<?xbf16>) axis = 1 eps = 1.0e-05 : tensor<?x?xbf16>
  fusion.return %0 : tensor<?x?xbf16>
}

// -----

// var_mean is one Welford state (count, mean, m2: three components, one
// set of shuffles, and one more in the block fold), here with a
// per-element epilogue.
// CHECK-LABEL: gpu.func @center_k0_pv4_i32
// CHECK-COUNT-15: gpu.shuffle  xor
// CHECK: = scf.if %{{.*}} -> (f32, f32, f32) {
// CHECK-COUNT-15: gpu.shuffle  xor
// CHECK-NOT: gpu.shuffle
// CHECK: vector.store
// CHECK-LABEL: gpu.func @center_k0_ps_i32
fusion.fusion @center(%x: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %v, %m = fusion.var_mean %x [1] correction = 0 keepdim : tensor<?x?xf32> -> tensor<?x1xf32>
  %d0 = fusion.dim %x, 0 : tensor<?x?xf32>
  %d1 = fusion.dim %x, 1 : tensor<?x?xf32>
  %me = fusion.expand %m(%d0, %d1) : tensor<?x1xf32> -> tensor<?x?xf32>
  %ve = fusion.expand %v(%d0, %d1) : tensor<?x1xf32> -> tensor<?x?xf32>
  %c = fusion.sub %x, %me : tensor<?x?xf32>
  %y = fusion.mul %c, %ve : tensor<?x?xf32>
  fusion.return %y : tensor<?x?xf32>
}

// -----

// A transposed read: tiled variants come first (64 x 64 tiles staged in
// shared memory with a padded row of 65, 256 threads), then the plain ones.
// bf16 moves in pairs first (Note [Transpose pairs]: 8 two-element loads
// along the input's rows, 8 two-element stores along the output's), guarded
// by even sizes, unit innermost and even other strides and 4-byte aligned
// buffers; then one element per access (16 each).
// CHECK-LABEL: fusion.fusion @transpose
// CHECK: %[[EVEN:.*]] = arith.remsi %{{.*}}, %c2
// CHECK: %[[ROW:.*]] = stride %arg0, 0
// CHECK: %[[INNER:.*]] = stride %arg0, 1
// CHECK: arith.cmpi eq, %[[INNER]], %c1
// CHECK: arith.remsi %[[ROW]], %c2
// CHECK: ptr_aligned %arg0, 4
// CHECK: ptr_aligned %{{.*}}, 4
// CHECK: launch @transpose_kernels::@transpose_k0_t64x2_i32 if(
// CHECK-SAME: block(%c256
// CHECK: launch @transpose_kernels::@transpose_k0_t64_i32 if(
// CHECK-SAME: block(%c256
// CHECK: launch @transpose_kernels::@transpose_k0_v8_i32
// CHECK-LABEL: gpu.func @transpose_k0_t64x2_i32
// CHECK-SAME: workgroup(%{{.*}} : memref<4160xbf16, #gpu.address_space<workgroup>>)
// CHECK-COUNT-8: vector.load {{.*}} {alignment = 4 : i64} : memref<?xbf16>, vector<2xbf16>
// CHECK-NOT: vector.load
// CHECK: gpu.barrier
// CHECK-COUNT-8: vector.store {{.*}} {alignment = 4 : i64} : memref<?xbf16>, vector<2xbf16>
// CHECK-NOT: vector.store
// CHECK: gpu.barrier
// CHECK-LABEL: gpu.func @transpose_k0_t64_i32
// CHECK-SAME: workgroup(%{{.*}} : memref<4160xbf16, #gpu.address_space<workgroup>>)
// CHECK-COUNT-16: memref.store {{.*}} : memref<4160xbf16, #gpu.address_space<workgroup>>
// CHECK: gpu.barrier
// CHECK-COUNT-16: memref.load {{.*}} : memref<4160xbf16, #gpu.address_space<workgroup>>
fusion.fusion @transpose(%x: tensor<?x?xbf16>) -> tensor<?x?xbf16> {
  %0 = fusion.permute %x [1, 0] : tensor<?x?xbf16> -> tensor<?x?xbf16>
  %1 = fusion.set %0 : tensor<?x?xbf16>
  fusion.return %1 : tensor<?x?xbf16>
}

// -----

// f32 elements are 4 bytes already: one per access, no pairs variant.
// CHECK-LABEL: fusion.fusion @transpose_f32
// CHECK-NOT: _t64x2_i32
// CHECK: launch @transpose_f32_kernels::@transpose_f32_k0_t64_i32 if(
fusion.fusion @transpose_f32(%x: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %0 = fusion.permute %x [1, 0] : tensor<?x?xf32> -> tensor<?x?xf32>
  %1 = fusion.set %0 : tensor<?x?xf32>
  fusion.return %1 : tensor<?x?xf32>
}

// -----

// A hand-written persistent schedule without vectors: the scalar persistent
// variant (vector * items / 2 = 2 elements per thread), then the streaming
// scalar ones.
// CHECK-LABEL: fusion.fusion @rownorm_scalar
// CHECK: launch @rownorm_scalar_kernels::@rownorm_scalar_k0_ps_i32 if(
// CHECK: launch @rownorm_scalar_kernels::@rownorm_scalar_k0_s_i32 if(
// CHECK: launch @rownorm_scalar_kernels::@rownorm_scalar_k0_s_i64 grid(
// CHECK-NOT: launch
fusion.fusion @rownorm_scalar(%arg0: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %0 = fusion.dim %arg0, 0 : tensor<?x?xf32>
  %1 = fusion.dim %arg0, 1 : tensor<?x?xf32>
  %2 = fusion.kernel @rownorm_scalar_k0 schedule = #fusion.inner_reduction<vector = 1, items = 4, block = 128, max_grid = 64, index64 = false, fast_math = false> (%arg0, %0, %1) : (tensor<?x?xf32>, index, index) -> tensor<?x?xf32> {
  ^bb0(%arg1: tensor<?x?xf32>, %arg2: index, %arg3: index):
    %3 = fusion.sum %arg1 [1] keepdim : tensor<?x?xf32> -> tensor<?x1xf32>
    %4 = fusion.expand %3(%arg2, %arg3) : tensor<?x1xf32> -> tensor<?x?xf32>
    %5 = fusion.div %arg1, %4 : tensor<?x?xf32>
    fusion.yield %5 : tensor<?x?xf32>
  }
  fusion.return %2 : tensor<?x?xf32>
}

// -----

// A vector broadcast along the rows (one value per row) is not a transpose:
// no tiled variant.
// CHECK-LABEL: fusion.fusion @row_scale
// CHECK-NOT: _t64_i32
// CHECK: launch @row_scale_kernels::@row_scale_k0_v4_i32
fusion.fusion @row_scale(%x: tensor<?x?xf32>, %s: tensor<?xf32>) -> tensor<?x?xf32> {
  %d0 = fusion.dim %x, 0 : tensor<?x?xf32>
  %d1 = fusion.dim %x, 1 : tensor<?x?xf32>
  %b = fusion.broadcast_in_dim %s [0](%d0, %d1) : tensor<?xf32> -> tensor<?x?xf32>
  %0 = fusion.mul %x, %b : tensor<?x?xf32>
  fusion.return %0 : tensor<?x?xf32>
}

// -----

// argmax (Note [Arg reductions]): a (value, index) state per thread, the
// index i64; warps fold both with xor-shuffles (ties: the smaller index;
// NaN: an unordered compare); one i64 per row is stored. The host checks
// that rows with elements have a row length > 0. Split-row variants come
// first, with an f32 and an i64 workspace for the blocks' states.
// CHECK-LABEL: fusion.fusion @argmax
// CHECK: check %{{.*}}, "argmax over an empty dim: there is no extreme element (rows with elements)"
// CHECK: empty(%{{.*}}) : tensor<?xf32>
// CHECK-NEXT: empty(%{{.*}}) : tensor<?xi64>
// CHECK: empty(%{{.*}}) zero_init kept_zero : tensor<?xi32>
// CHECK: launch @argmax_kernels::@argmax_k0_gv8_i32
// CHECK: launch @argmax_kernels::@argmax_k0_gs_i32
// CHECK: launch @argmax_kernels::@argmax_k0_v8_i32
// CHECK-LABEL: gpu.func @argmax_k0_v8_i32
// CHECK-SAME: memref<32xf32, #gpu.address_space<workgroup>>, %{{.*}} : memref<32xi64, #gpu.address_space<workgroup>>
// CHECK: arith.cmpf uno
// CHECK: gpu.shuffle  xor %{{.*}} : f32
// CHECK: gpu.shuffle  xor %{{.*}} : i64
// CHECK: memref.store %{{.*}} : memref<?xi64>
fusion.fusion @argmax(%x: tensor<?x?xbf16>) -> tensor<?xi64> {
  %0 = fusion.argmax %x dim = 1 : tensor<?x?xbf16> -> tensor<?xi64>
  fusion.return %0 : tensor<?xi64>
}

// -----

// A float sum of a vectorized variant starts from -0 (its exact neutral
// element), adds the items after the first under their bound, folds the
// lanes from -0 and adds +0 once (Note [Float sums from -0]); bf16 pairs
// widen as words (Note [bf16 pairs widened as bits]).
// CHECK-LABEL: gpu.func @bsum_k0_v8_i32
// CHECK: %[[W:.*]] = vector.bitcast %{{.*}} : vector<8xbf16> to vector<4xi32>
// CHECK: arith.andi %[[W]], %{{.*}} : vector<4xi32>
// CHECK: %[[NZ:.*]] = arith.constant dense<-0.000000e+00> : vector<8xf32>
// CHECK: %[[FIRST:.*]] = arith.addf %[[NZ]], %{{.*}} : vector<8xf32>
// CHECK: scf.if %{{.*}} -> (vector<8xf32>) {
// CHECK-NEXT: arith.addf %[[FIRST]], %{{.*}} : vector<8xf32>
// CHECK: %[[NZS:.*]] = arith.constant -0.000000e+00 : f32
// CHECK: %[[LANES:.*]] = vector.reduction <add>, %{{.*}}, %[[NZS]] : vector<8xf32> into f32
// CHECK: %[[Z:.*]] = arith.constant 0.000000e+00 : f32
// CHECK: arith.addf %[[LANES]], %[[Z]] : f32
// The scalar variants keep the masked form from +0.
// CHECK-LABEL: gpu.func @bsum_k0_s_i32
// CHECK-NOT: -0.000000e+00
// CHECK: gpu.return
fusion.fusion @bsum(%x: tensor<?x?xbf16>) -> tensor<?xf32> {
  %c = fusion.cast %x : tensor<?x?xbf16> to tensor<?x?xf32>
  %s = fusion.sum %c [1] : tensor<?x?xf32> -> tensor<?xf32>
  fusion.return %s : tensor<?xf32>
}

// -----

// A float sum of products adds each item's product after the first as one
// fma onto the sum (Note [Sums of products]); the first keeps its product.
// CHECK-LABEL: gpu.func @sumsq_k0_gv8_i32
// CHECK: %[[FIRST:.*]] = arith.addf %{{.*}}, %{{.*}} : vector<8xf32>
// CHECK: scf.if %{{.*}} -> (vector<8xf32>) {
// CHECK-NEXT: math.fma %[[A:.*]], %[[A]], %[[FIRST]] : vector<8xf32>
// CHECK: scf.if %{{.*}} -> (vector<8xf32>) {
// CHECK-NEXT: math.fma
fusion.fusion @sumsq(%x: tensor<?x?xbf16>) -> tensor<?xf32> {
  %c = fusion.cast %x : tensor<?x?xbf16> to tensor<?x?xf32>
  %q = fusion.mul %c, %c : tensor<?x?xf32>
  %s = fusion.sum %q [1] : tensor<?x?xf32> -> tensor<?xf32>
  fusion.return %s : tensor<?xf32>
}
