// RUN: fusion-opt %s --fusion-segment --fusion-schedule --split-input-file -verify-diagnostics | FileCheck %s
// RUN: fusion-opt %s --fusion-segment --fusion-schedule="sm-count=100 blocks-per-sm=4" --split-input-file -verify-diagnostics | FileCheck %s --check-prefix=SM100
// RUN: fusion-opt %s --fusion-segment --fusion-schedule="unroll=4 blocks-per-sm=2" --split-input-file -verify-diagnostics | FileCheck %s --check-prefix=OVERRIDE

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

// Outer reductions have no scheduler at this stage: a clear error on the op.
fusion.fusion @outer(%a: tensor<?x?xf32>) -> tensor<?xf32> {
  // expected-error @+1 {{has no scheduler yet}}
  %0 = fusion.sum %a [0] : tensor<?x?xf32> -> tensor<?xf32>
  fusion.return %0 : tensor<?xf32>
}

// -----

// A reduction over the innermost dim fed by element-wise work: the inner
// reduction scheduler. Rows of 4096 bf16 in vectors of 8 want 512 threads.
// CHECK-LABEL: @inner
// CHECK: schedule = #fusion.inner_reduction<vector = 8, block = 512, max_grid = 2147483647, index64 = false>
fusion.fusion @inner(%a: tensor<?x4096xbf16>) -> tensor<?x1xbf16> {
  %e = fusion.exp %a : tensor<?x4096xbf16>
  %0 = fusion.max %e [1] keepdim : tensor<?x4096xbf16> -> tensor<?x1xbf16>
  fusion.return %0 : tensor<?x1xbf16>
}

// -----

// Short rows get small blocks; symbolic rows 256 threads.
// CHECK-LABEL: @short_rows
// CHECK: #fusion.inner_reduction<vector = 4, block = 32,
// CHECK-LABEL: @symbolic_rows
// CHECK: #fusion.inner_reduction<vector = 4, block = 256,
fusion.fusion @short_rows(%a: tensor<?x37xf32>) -> tensor<?xf32> {
  %0 = fusion.sum %a [1] : tensor<?x37xf32> -> tensor<?xf32>
  fusion.return %0 : tensor<?xf32>
}
fusion.fusion @symbolic_rows(%a: tensor<?x?xf32>) -> tensor<?xf32> {
  %0 = fusion.sum %a [1] : tensor<?x?xf32> -> tensor<?xf32>
  fusion.return %0 : tensor<?xf32>
}

// -----

// A reduction whose result feeds more work (softmax-like) is not an inner
// reduction kernel yet: the diagnostic names the reduction.
fusion.fusion @epilogue(%a: tensor<?x?xf32>) -> tensor<?x1xf32> {
  // expected-error @+1 {{has no scheduler yet}}
  %0 = fusion.sum %a [1] keepdim : tensor<?x?xf32> -> tensor<?x1xf32>
  %1 = fusion.exp %0 : tensor<?x1xf32>
  fusion.return %1 : tensor<?x1xf32>
}
