// RUN: fusion-opt %s --fusion-decompose --fusion-segment --fusion-schedule --split-input-file -verify-diagnostics | FileCheck %s
// RUN: fusion-opt %s --fusion-decompose --fusion-segment --fusion-schedule="sm-count=100 blocks-per-sm=4" --split-input-file -verify-diagnostics | FileCheck %s --check-prefix=SM100
// RUN: fusion-opt %s --fusion-decompose --fusion-segment --fusion-schedule="unroll=4 blocks-per-sm=2" --split-input-file -verify-diagnostics | FileCheck %s --check-prefix=OVERRIDE

// f32 everywhere: 16-byte vectors are 4 elements, two per thread, 256-thread
// blocks and no cap on the grid unless blocks-per-sm asks for one.
// CHECK-LABEL: @f32_add
// CHECK: kernel @f32_add_k0 schedule = #fusion.pointwise<vector = 4, unroll = 2, block = 256, max_grid = 2147483647, index64 = false, fast_math = false>
// SM100-LABEL: @f32_add
// SM100: max_grid = 400
// OVERRIDE-LABEL: @f32_add
// OVERRIDE: unroll = 4, block = 256, max_grid = 264,
fusion.fusion @f32_add(%a: tensor<?x?xf32>, %b: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %0 = fusion.add %a, %b : tensor<?x?xf32>
  fusion.return %0 : tensor<?x?xf32>
}

// -----

// The narrowest element (bf16) sets the vector width: 8. An f32 result
// keeps exact math.
// CHECK-LABEL: @bf16_to_f32
// CHECK: #fusion.pointwise<vector = 8, {{.*}}fast_math = false>
fusion.fusion @bf16_to_f32(%a: tensor<?xbf16>) -> tensor<?xf32> {
  %0 = fusion.cast %a : tensor<?xbf16> to tensor<?xf32>
  fusion.return %0 : tensor<?xf32>
}

// -----

// Small static problems get smaller blocks; 2^31 elements need 64-bit indices.
// CHECK-LABEL: @small
// CHECK: #fusion.pointwise<vector = 4, unroll = 2, block = 32,
fusion.fusion @small(%a: tensor<8xf32>) -> tensor<8xf32> {
  %0 = fusion.neg %a : tensor<8xf32>
  fusion.return %0 : tensor<8xf32>
}

// -----

// CHECK-LABEL: @huge
// CHECK: index64 = true, fast_math = true
fusion.fusion @huge(%a: tensor<65536x32768xbf16>) -> tensor<65536x32768xbf16> {
  %0 = fusion.neg %a : tensor<65536x32768xbf16>
  fusion.return %0 : tensor<65536x32768xbf16>
}

// -----

// A schedule written by hand is honoured.
// CHECK-LABEL: @manual
// CHECK: schedule = #fusion.pointwise<vector = 2, unroll = 1, block = 64, max_grid = 10, index64 = true, fast_math = false>
fusion.fusion @manual(%a: tensor<?xf32>) -> tensor<?xf32> {
  %0 = fusion.kernel @manual_k0 schedule = #fusion.pointwise<vector = 2, unroll = 1, block = 64, max_grid = 10, index64 = true, fast_math = false> (%a) : (tensor<?xf32>) -> tensor<?xf32> {
  ^bb0(%x: tensor<?xf32>):
    %1 = fusion.abs %x : tensor<?xf32>
    fusion.yield %1 : tensor<?xf32>
  }
  fusion.return %0 : tensor<?xf32>
}

// -----

// Outer reductions: 16-byte vectors along the kept dims, 4 rows per thread
// and step, a grid target of 8 blocks per SM (132 SMs by default).
// CHECK-LABEL: @outer
// CHECK: schedule = #fusion.outer_reduction<vector = 4, unroll = 4, target_blocks = 1056, index64 = false, fast_math = false>
// SM100: schedule = #fusion.outer_reduction<vector = 4, unroll = 4, target_blocks = 400,
fusion.fusion @outer(%a: tensor<?x?xf32>) -> tensor<?xf32> {
  %0 = fusion.sum %a [0] : tensor<?x?xf32> -> tensor<?xf32>
  fusion.return %0 : tensor<?xf32>
}

// -----

// A middle dim: decomposed into a leading-dim reduction of a permuted view
// (Note [Reductions over any dims]), scheduled as an outer reduction.
// CHECK-LABEL: fusion.fusion @middle
// CHECK: kernel @middle_k0 schedule = #fusion.outer_reduction<
// CHECK: permute %{{.*}} [1, 0, 2]
// CHECK: sum %{{.*}} [0] : tensor<?x?x?xf32> -> tensor<?x?xf32>
fusion.fusion @middle(%a: tensor<?x?x?xf32>) -> tensor<?x?xf32> {
  %0 = fusion.sum %a [1] : tensor<?x?x?xf32> -> tensor<?x?xf32>
  fusion.return %0 : tensor<?x?xf32>
}

// -----

// An outer reduction feeding another outer reduction would need two passes:
// segmentation makes two kernels, each an outer reduction.
// CHECK-LABEL: @outer_chain
// CHECK: kernel @outer_chain_k0 schedule = #fusion.outer_reduction<
// CHECK: kernel @outer_chain_k1 schedule = #fusion.outer_reduction<
fusion.fusion @outer_chain(%a: tensor<?x?xf32>) -> tensor<?xf32> {
  %0 = fusion.max %a [0] keepdim : tensor<?x?xf32> -> tensor<1x?xf32>
  %c0 = arith.constant 0 : index
  %d0 = fusion.dim %a, 0 : tensor<?x?xf32>
  %d1 = fusion.dim %a, 1 : tensor<?x?xf32>
  %e = fusion.expand %0(%d0, %d1) : tensor<1x?xf32> -> tensor<?x?xf32>
  %1 = fusion.sub %a, %e : tensor<?x?xf32>
  %2 = fusion.sum %1 [0] : tensor<?x?xf32> -> tensor<?xf32>
  fusion.return %2 : tensor<?xf32>
}

// -----

// argmax along the innermost dim: an inner reduction (Note [Arg
// reductions]).
// Streaming and staged variants get a grid of 128 blocks per SM (Note
// [Wide row grids]); blocks-per-sm sets both grids, so row_grid is left out.
// CHECK-LABEL: @argmax
// CHECK: kernel @argmax_k0 schedule = #fusion.inner_reduction<vector = 4, items = 0, block = 256, max_grid = 2112, index64 = false, fast_math = false, row_grid = 16896>
// SM100-LABEL: @argmax
// SM100: kernel @argmax_k0 schedule = #fusion.inner_reduction<vector = 4, items = 0, block = 256, max_grid = 400, index64 = false, fast_math = false>
// OVERRIDE-LABEL: @argmax
// OVERRIDE: kernel @argmax_k0 schedule = #fusion.inner_reduction<vector = 4, items = 0, block = 256, max_grid = 264, index64 = false, fast_math = false>
fusion.fusion @argmax(%a: tensor<?x?xf32>) -> tensor<?xi64> {
  %0 = fusion.argmax %a dim = 1 : tensor<?x?xf32> -> tensor<?xi64>
  fusion.return %0 : tensor<?xi64>
}

// -----

// A reduction over the innermost dim fed by element-wise work: the inner
// reduction scheduler, 16-byte vectors of bf16, no persistence (every
// result is per row), blocks of 256 threads; bf16 results allow fast math.
// CHECK-LABEL: @inner
// CHECK: schedule = #fusion.inner_reduction<vector = 8, items = 0, block = 256, max_grid = 2112, index64 = false, fast_math = true, row_grid = 16896>
fusion.fusion @inner(%a: tensor<?x4096xbf16>) -> tensor<?x1xbf16> {
  %e = fusion.exp %a : tensor<?x4096xbf16>
  %0 = fusion.max %e [1] keepdim : tensor<?x4096xbf16> -> tensor<?x1xbf16>
  fusion.return %0 : tensor<?x1xbf16>
}

// -----

// f32 rows: vectors of 4; a sum and a max of one input in one kernel.
// CHECK-LABEL: @two_reductions
// CHECK: schedule = #fusion.inner_reduction<vector = 4, items = 0, block = 256, max_grid = 2112, index64 = false, fast_math = false, row_grid = 16896>
fusion.fusion @two_reductions(%a: tensor<?x?xf32>) -> (tensor<?xf32>, tensor<?xf32>) {
  %0 = fusion.sum %a [1] : tensor<?x?xf32> -> tensor<?xf32>
  %1 = fusion.max %a [1] : tensor<?x?xf32> -> tensor<?xf32>
  fusion.return %0, %1 : tensor<?xf32>, tensor<?xf32>
}

// -----

// Normalizations write the row again: persistent, 32 elements per thread
// (4 vectors of 8 bf16, 8 vectors of 4 f32, 16 vectors of 2 f64), the row
// staged in shared memory unless there is a var_mean, the next row copied
// there with cp.async where the kernel makes several passes (layer_norm;
// Note [Staged rows heuristic]).
// CHECK-LABEL: @softmax_bf16
// CHECK: #fusion.inner_reduction<vector = 8, items = 4, block = 256, max_grid = 2112, index64 = false, fast_math = true, stage_row = true, cluster = 8, long_cluster = 8, long_stage = true, row_grid = 16896>
// CHECK-LABEL: @layernorm_f32
// CHECK: #fusion.inner_reduction<vector = 4, items = 8, block = 256, max_grid = 2112, index64 = false, fast_math = false, stage_row = true, cluster = 8, async_stage = true, long_cluster = 8, long_stage = true, row_grid = 16896>
// CHECK-LABEL: @rmsnorm_f64
// CHECK: #fusion.inner_reduction<vector = 2, items = 16, block = 256, max_grid = 2112, index64 = false, fast_math = false, stage_row = true, cluster = 8, long_cluster = 8, long_stage = true, row_grid = 16896>
// A var_mean (one Welford pass) keeps the row in registers; only the
// long-row variant stages.
// CHECK-LABEL: @center_scale_bf16
// CHECK: #fusion.inner_reduction<vector = 8, items = 4, block = 256, max_grid = 2112, index64 = false, fast_math = true, cluster = 8, long_cluster = 8, long_stage = true, row_grid = 16896>
fusion.fusion @softmax_bf16(%x: tensor<?x?xbf16>) -> tensor<?x?xbf16> {
  %0 = fusion.softmax %x dim = 1 : tensor<?x?xbf16>
  fusion.return %0 : tensor<?x?xbf16>
}
fusion.fusion @layernorm_f32(%x: tensor<?x?x?xf32>, %w: tensor<?xf32>, %b: tensor<?xf32>) -> tensor<?x?x?xf32> {
  %0 = fusion.layer_norm %x weight(%w : tensor<?xf32>) bias(%b : tensor<?xf32>) axis = 2 eps = 1.0e-05 : tensor<?x?x?xf32>
  fusion.return %0 : tensor<?x?x?xf32>
}
fusion.fusion @rmsnorm_f64(%x: tensor<?x?xf64>, %w: tensor<?xf64>) -> tensor<?x?xf64> {
  %0 = fusion.rms_norm %x weight(%w : tensor<?xf64>) axis = 1 eps = 1.0e-6 : tensor<?x?xf64>
  fusion.return %0 : tensor<?x?xf64>
}
fusion.fusion @center_scale_bf16(%x: tensor<?x?xbf16>) -> tensor<?x?xbf16> {
  %v, %m = fusion.var_mean %x [1] correction = 0 : tensor<?x?xbf16> -> tensor<?xbf16>
  %d0 = fusion.dim %x, 0 : tensor<?x?xbf16>
  %d1 = fusion.dim %x, 1 : tensor<?x?xbf16>
  %mb = fusion.broadcast_in_dim %m [0] (%d0, %d1) : tensor<?xbf16> -> tensor<?x?xbf16>
  %vb = fusion.broadcast_in_dim %v [0] (%d0, %d1) : tensor<?xbf16> -> tensor<?x?xbf16>
  %c = fusion.sub %x, %mb : tensor<?x?xbf16>
  %y = fusion.mul %c, %vb : tensor<?x?xbf16>
  fusion.return %y : tensor<?x?xbf16>
}

// -----

// A static shape of 2^31 elements or more takes 64-bit indices.
// CHECK-LABEL: @huge
// CHECK: #fusion.inner_reduction<vector = 4, items = 0, block = 256, max_grid = 2112, index64 = true,
fusion.fusion @huge(%a: tensor<65536x32768xf32>) -> tensor<65536xf32> {
  %0 = fusion.sum %a [1] : tensor<65536x32768xf32> -> tensor<65536xf32>
  fusion.return %0 : tensor<65536xf32>
}

// -----

// A result that is neither per element nor per row: it gets a pointwise
// kernel of its own.
// CHECK-LABEL: @bad_result
// CHECK: kernel @bad_result_k0 schedule = #fusion.inner_reduction<
// CHECK: kernel @bad_result_k1 schedule = #fusion.pointwise<
fusion.fusion @bad_result(%a: tensor<?x8xf32>, %b: tensor<?x4xf32>) -> (tensor<?x1xf32>, tensor<?x4xf32>) {
  %0 = fusion.sum %a [1] keepdim : tensor<?x8xf32> -> tensor<?x1xf32>
  %1 = fusion.exp %b : tensor<?x4xf32>
  fusion.return %0, %1 : tensor<?x1xf32>, tensor<?x4xf32>
}

// -----

// Work on the reduced values (one per row) stays in the kernel.
// CHECK-LABEL: @epilogue
// CHECK: #fusion.inner_reduction<vector = 4, items = 0,
fusion.fusion @epilogue(%a: tensor<?x?xf32>) -> tensor<?x1xf32> {
  %0 = fusion.sum %a [1] keepdim : tensor<?x?xf32> -> tensor<?x1xf32>
  %1 = fusion.exp %0 : tensor<?x1xf32>
  fusion.return %1 : tensor<?x1xf32>
}

// -----

// A column sum and a row argmax of one input: two kernels (Note [Reduced
// domains agree]).
// CHECK-LABEL: @argmax_after_split
// CHECK: kernel @argmax_after_split_k0 schedule = #fusion.outer_reduction
// CHECK: kernel @argmax_after_split_k1 schedule = #fusion.inner_reduction
fusion.fusion @argmax_after_split(%a: tensor<?x?xf32>) -> (tensor<?xf32>, tensor<?xi64>) {
  %0 = fusion.sum %a [0] : tensor<?x?xf32> -> tensor<?xf32>
  %1 = fusion.argmax %a dim = 1 : tensor<?x?xf32> -> tensor<?xi64>
  fusion.return %0, %1 : tensor<?xf32>, tensor<?xi64>
}

// -----

// argmax over a middle dim with keepdim (Note [Arg reductions]): the
// permuted argmax, then a kernel that puts the size-1 dim back.
// CHECK-LABEL: @keepdim_argmax_after_split
// CHECK: kernel @keepdim_argmax_after_split_k0 schedule = #fusion.outer_reduction
// CHECK: kernel @keepdim_argmax_after_split_k1 schedule = #fusion.inner_reduction
// CHECK: kernel @keepdim_argmax_after_split_k2 schedule = #fusion.pointwise
fusion.fusion @keepdim_argmax_after_split(%a: tensor<?x?x?xf32>) -> (tensor<?x?xf32>, tensor<?x1x?xi64>) {
  %0 = fusion.sum %a [0] : tensor<?x?x?xf32> -> tensor<?x?xf32>
  %1 = fusion.argmax %a dim = 1 keepdim : tensor<?x?x?xf32> -> tensor<?x1x?xi64>
  fusion.return %0, %1 : tensor<?x?xf32>, tensor<?x1x?xi64>
}

// -----

// A row's sum broadcast to tensor<1x?> of a ?x? domain is not a full
// result (its static 1 is a broadcast dim): the broadcast gets a kernel of
// its own instead of the row kernel writing it as if it had the domain's
// shape.
// CHECK-LABEL: @row_sums_as_a_row
// CHECK: kernel @row_sums_as_a_row_k0 schedule = #fusion.inner_reduction<vector = 4, items = 0,
// CHECK: kernel @row_sums_as_a_row_k1 schedule = #fusion.pointwise
fusion.fusion @row_sums_as_a_row(%a: tensor<?x?xf32>) -> tensor<1x?xf32> {
  %0 = fusion.sum %a [1] : tensor<?x?xf32> -> tensor<?xf32>
  %n = fusion.dim %a, 0 : tensor<?x?xf32>
  %1 = fusion.broadcast_in_dim %0 [1](%n) : tensor<?xf32> -> tensor<1x?xf32>
  fusion.return %1 : tensor<1x?xf32>
}

// -----

// An argmax over a leading dim of a reduction's result: it reads a
// permute of that result, so it takes a kernel of its own.
// CHECK-LABEL: @middle_in_chain
// CHECK: kernel @middle_in_chain_k0 schedule = #fusion.inner_reduction
// CHECK: kernel @middle_in_chain_k1 schedule = #fusion.inner_reduction
fusion.fusion @middle_in_chain(%a: tensor<?x?x?xf32>) -> tensor<?x1xi64> {
  %e = fusion.exp %a : tensor<?x?x?xf32>
  %0 = fusion.sum %e [2] keepdim : tensor<?x?x?xf32> -> tensor<?x?x1xf32>
  %1 = fusion.argmax %0 dim = 0 : tensor<?x?x1xf32> -> tensor<?x1xi64>
  fusion.return %1 : tensor<?x1xi64>
}

// -----

// Note [Reduced domains agree]: two leading-dim reductions, one of a
// permuted view of %a, iterate over different dims of %a (a run-time check
// would fail on any non-square input): two kernels, not one.
// CHECK-LABEL: fusion.fusion @permuted_beside
// CHECK: kernel @permuted_beside_k0 schedule = #fusion.outer_reduction
// CHECK: permute
// CHECK: kernel @permuted_beside_k1 schedule = #fusion.outer_reduction
// CHECK-NOT: kernel @
fusion.fusion @permuted_beside(%a: tensor<?x?xf32>) -> (tensor<?xf32>, tensor<?xf32>) {
  %p = fusion.permute %a [1, 0] : tensor<?x?xf32> -> tensor<?x?xf32>
  %0 = fusion.sum %p [0] : tensor<?x?xf32> -> tensor<?xf32>
  %1 = fusion.sum %a [0] : tensor<?x?xf32> -> tensor<?xf32>
  fusion.return %0, %1 : tensor<?xf32>, tensor<?xf32>
}

// -----

// Note [Loads per item]: x read at three places (two slices and the
// element-wise mul), cos and sin once each: five loads per item, no unroll.
// CHECK-LABEL: @rope_loads
// CHECK: #fusion.pointwise<vector = 8, unroll = 1,
fusion.fusion @rope_loads(%x: tensor<?x?x128xbf16>, %cos: tensor<?x128xbf16>, %sin: tensor<?x128xbf16>) -> tensor<?x?x128xbf16> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %t = fusion.dim %x, 0 : tensor<?x?x128xbf16>
  %h = fusion.dim %x, 1 : tensor<?x?x128xbf16>
  %lo = fusion.slice %x [%c0, %c0, %c0] [%t, %h, %c64] [%c1, %c1, %c1] : tensor<?x?x128xbf16> -> tensor<?x?x64xbf16>
  %hi = fusion.slice %x [%c0, %c0, %c64] [%t, %h, %c128] [%c1, %c1, %c1] : tensor<?x?x128xbf16> -> tensor<?x?x64xbf16>
  %nhi = fusion.neg %hi : tensor<?x?x64xbf16>
  %rot = fusion.cat %nhi, %lo dim = 2 : tensor<?x?x64xbf16>, tensor<?x?x64xbf16> -> tensor<?x?x128xbf16>
  %cb = fusion.broadcast_in_dim %cos [0, 2] (%t, %h) : tensor<?x128xbf16> -> tensor<?x?x128xbf16>
  %sb = fusion.broadcast_in_dim %sin [0, 2] (%t, %h) : tensor<?x128xbf16> -> tensor<?x?x128xbf16>
  %a = fusion.mul %x, %cb : tensor<?x?x128xbf16>
  %b = fusion.mul %rot, %sb : tensor<?x?x128xbf16>
  %y = fusion.add %a, %b : tensor<?x?x128xbf16>
  fusion.return %y : tensor<?x?x128xbf16>
}

// -----

// Three inputs, each read where the item is (however many element-wise ops
// use them), plus one broadcast: four loads, no unroll; without the
// broadcast, three loads and the default unroll of 2.
// CHECK-LABEL: @four_loads
// CHECK: #fusion.pointwise<vector = 4, unroll = 1,
// CHECK-LABEL: @three_loads
// CHECK: #fusion.pointwise<vector = 4, unroll = 2,
fusion.fusion @four_loads(%a: tensor<?x?xf32>, %b: tensor<?x?xf32>, %c: tensor<?x?xf32>, %r: tensor<?xf32>) -> tensor<?x?xf32> {
  %m = fusion.dim %a, 0 : tensor<?x?xf32>
  %n = fusion.dim %a, 1 : tensor<?x?xf32>
  %rb = fusion.broadcast_in_dim %r [1] (%m, %n) : tensor<?xf32> -> tensor<?x?xf32>
  %0 = fusion.mul %a, %b : tensor<?x?xf32>
  %1 = fusion.add %0, %a : tensor<?x?xf32>
  %2 = fusion.fma %1, %c, %rb : tensor<?x?xf32>
  fusion.return %2 : tensor<?x?xf32>
}
fusion.fusion @three_loads(%a: tensor<?x?xf32>, %b: tensor<?x?xf32>, %c: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %0 = fusion.mul %a, %b : tensor<?x?xf32>
  %1 = fusion.add %0, %a : tensor<?x?xf32>
  %2 = fusion.fma %1, %c, %b : tensor<?x?xf32>
  fusion.return %2 : tensor<?x?xf32>
}
