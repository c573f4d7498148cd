// RUN: fusion-opt %s --fusion-segment --split-input-file | FileCheck %s

// Tensor ops move into one fusion.kernel; sizes stay on the host, computed
// from the inputs; constants are rematerialized inside the kernel.
// CHECK-LABEL: fusion.fusion @bias_gelu
// CHECK-SAME: (%[[X:.*]]: tensor<?x?xf32>, %[[B:.*]]: tensor<?xf32>)
// CHECK-DAG: %[[M:.*]] = dim %[[X]], 0
// CHECK-DAG: %[[N:.*]] = dim %[[X]], 1
// CHECK: %[[R:.*]] = kernel @bias_gelu_k0 (%[[B]], %[[M]], %[[N]], %[[X]])
// CHECK: ^bb0(%[[KB:.*]]: tensor<?xf32>, %[[KM:.*]]: index, %[[KN:.*]]: index, %[[KX:.*]]: tensor<?x?xf32>):
// CHECK: %[[C:.*]] = arith.constant 5.000000e-01 : f32
// CHECK: broadcast_in_dim %[[KB]] [1](%[[KM]], %[[KN]])
// CHECK: broadcast_in_dim %[[C]] [](%[[KM]], %[[KN]])
// CHECK: yield
// CHECK: return %[[R]]
fusion.fusion @bias_gelu(%x: tensor<?x?xf32>, %bias: tensor<?xf32>) -> tensor<?x?xf32> {
  %half = arith.constant 0.5 : f32
  %m = fusion.dim %x, 0 : tensor<?x?xf32>
  %n = fusion.dim %x, 1 : tensor<?x?xf32>
  %b = fusion.broadcast_in_dim %bias [1] (%m, %n) : tensor<?xf32> -> tensor<?x?xf32>
  %h = fusion.broadcast_in_dim %half [] (%m, %n) : f32 -> tensor<?x?xf32>
  %0 = fusion.add %x, %b : tensor<?x?xf32>
  %1 = fusion.mul %0, %h : tensor<?x?xf32>
  fusion.return %1 : tensor<?x?xf32>
}

// -----

// The size of a computed tensor is rewritten into the size of an input.
// CHECK-LABEL: fusion.fusion @dim_of_computed
// CHECK-SAME: (%[[A:.*]]: tensor<?xf32>)
// CHECK: %[[D:.*]] = dim %[[A]], 0
// CHECK: kernel @dim_of_computed_k0 (%[[A]], %[[D]])
// CHECK-NOT: f32,
// CHECK: arith.constant 1.0
fusion.fusion @dim_of_computed(%a: tensor<?xf32>) -> tensor<?xf32> {
  %e = fusion.exp %a : tensor<?xf32>
  %n = fusion.dim %e, 0 : tensor<?xf32>
  %one = arith.constant 1.0 : f32
  %o = fusion.broadcast_in_dim %one [] (%n) : f32 -> tensor<?xf32>
  %r = fusion.add %e, %o : tensor<?xf32>
  fusion.return %r : tensor<?xf32>
}

// -----

// Views of inputs that are only returned stay on the host (no kernel); the
// exp does need one.
// CHECK-LABEL: fusion.fusion @views
// CHECK: %[[FLAT:.*]] = reshape %arg0
// CHECK: %[[T:.*]] = permute %arg0 [1, 0]
// CHECK: %[[E:.*]] = kernel @views_k0 (%arg0)
// CHECK-NOT: reshape
// CHECK-NOT: permute
// CHECK: yield
// CHECK: return %[[FLAT]], %[[T]], %[[E]]
fusion.fusion @views(%x: tensor<?x?xf32>) -> (tensor<?xf32>, tensor<?x?xf32>, tensor<?x?xf32>) {
  %m = fusion.dim %x, 0 : tensor<?x?xf32>
  %n = fusion.dim %x, 1 : tensor<?x?xf32>
  %mn = arith.muli %m, %n : index
  %flat = fusion.reshape %x (%mn) : tensor<?x?xf32> -> tensor<?xf32>
  %t = fusion.permute %x [1, 0] : tensor<?x?xf32> -> tensor<?x?xf32>
  %e = fusion.exp %x : tensor<?x?xf32>
  fusion.return %flat, %t, %e : tensor<?xf32>, tensor<?x?xf32>, tensor<?x?xf32>
}

// -----

// Note [Segmentation]: x - mean(x, dim 0) is an outer reduction and then
// element-wise work over all of x, which one kernel cannot do: the means
// (k0's result, not returned) become an intermediate that k1 reads.
// CHECK-LABEL: fusion.fusion @outer_center
// CHECK-SAME: (%[[X:.*]]: tensor<?x?xf32>, %[[COUNT:.*]]: f32)
// CHECK-DAG: %[[M:.*]] = dim %[[X]], 0
// CHECK-DAG: %[[N:.*]] = dim %[[X]], 1
// CHECK: %[[MEAN:.*]] = kernel @outer_center_k0 (%[[X]], %[[COUNT]], %[[N]]) : (tensor<?x?xf32>, f32, index) -> tensor<1x?xf32>
// CHECK: sum
// CHECK: div
// CHECK: yield
// CHECK: %[[Y:.*]] = kernel @outer_center_k1 (%[[MEAN]], %[[M]], %[[N]], %[[X]]) : (tensor<1x?xf32>, index, index, tensor<?x?xf32>) -> tensor<?x?xf32>
// CHECK-NOT: sum
// CHECK: expand
// CHECK: sub
// CHECK: yield
// CHECK: return %[[Y]]
fusion.fusion @outer_center(%x: tensor<?x?xf32>, %count: f32) -> tensor<?x?xf32> {
  %m = fusion.dim %x, 0 : tensor<?x?xf32>
  %n = fusion.dim %x, 1 : tensor<?x?xf32>
  %s = fusion.sum %x [0] keepdim : tensor<?x?xf32> -> tensor<1x?xf32>
  %c = fusion.broadcast_in_dim %count [] (%n) : f32 -> tensor<1x?xf32>
  %mean = fusion.div %s, %c : tensor<1x?xf32>
  %e = fusion.expand %mean (%m, %n) : tensor<1x?xf32> -> tensor<?x?xf32>
  %y = fusion.sub %x, %e : tensor<?x?xf32>
  fusion.return %y : tensor<?x?xf32>
}

// -----

// Element-wise work on inputs alone (exp(x)) is recomputed by each kernel
// that reads it rather than written out: two kernels, and only the column
// maxima cross between them.
// CHECK-LABEL: fusion.fusion @recompute
// CHECK: %[[MAX:.*]] = kernel @recompute_k0 (%arg0) : (tensor<?x?xf32>) -> tensor<?xf32>
// CHECK: exp
// CHECK: max {{.*}} [0]
// CHECK: %[[Y:.*]] = kernel @recompute_k1 (%arg0, %[[MAX]], %{{.*}}, %{{.*}}) : (tensor<?x?xf32>, tensor<?xf32>, index, index) -> tensor<?x?xf32>
// CHECK: exp
// CHECK: broadcast_in_dim
// CHECK: div
// CHECK: return %[[Y]]
// CHECK-NOT: kernel
fusion.fusion @recompute(%x: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %m = fusion.dim %x, 0 : tensor<?x?xf32>
  %n = fusion.dim %x, 1 : tensor<?x?xf32>
  %e = fusion.exp %x : tensor<?x?xf32>
  %mx = fusion.max %e [0] : tensor<?x?xf32> -> tensor<?xf32>
  %b = fusion.broadcast_in_dim %mx [1] (%m, %n) : tensor<?xf32> -> tensor<?x?xf32>
  %y = fusion.div %e, %b : tensor<?x?xf32>
  fusion.return %y : tensor<?x?xf32>
}

// -----

// A chain of reductions: the row sums are returned and also reduced again,
// so k1 reads k0's output.
// CHECK-LABEL: fusion.fusion @reduction_chain
// CHECK: %[[ROWS:.*]] = kernel @reduction_chain_k0 (%arg0) : (tensor<?x?xf32>) -> tensor<?xf32>
// CHECK: sum {{.*}} [1]
// CHECK: %[[TOTAL:.*]] = kernel @reduction_chain_k1 (%[[ROWS]]) : (tensor<?xf32>) -> tensor<f32>
// CHECK: max {{.*}} [0]
// CHECK: return %[[ROWS]], %[[TOTAL]]
fusion.fusion @reduction_chain(%x: tensor<?x?xf32>) -> (tensor<?xf32>, tensor<f32>) {
  %r = fusion.sum %x [1] : tensor<?x?xf32> -> tensor<?xf32>
  %t = fusion.max %r [0] : tensor<?xf32> -> tensor<f32>
  fusion.return %r, %t : tensor<?xf32>, tensor<f32>
}

// -----

// A row normalization, a column maximum of it, and element-wise work over
// both: three kernels; the normalized rows cross to k1 and k2.
// CHECK-LABEL: fusion.fusion @three_kernels
// CHECK: %[[R:.*]] = kernel @three_kernels_k0 (%arg0, %{{.*}}, %{{.*}}) : (tensor<?x?xf32>, index, index) -> tensor<?x?xf32>
// CHECK: max {{.*}} [1] keepdim
// CHECK: sub
// CHECK: %[[C:.*]] = kernel @three_kernels_k1 (%[[R]]) : (tensor<?x?xf32>) -> tensor<?xf32>
// CHECK: max {{.*}} [0]
// CHECK: %[[Y:.*]] = kernel @three_kernels_k2 (%[[C]], %{{.*}}, %{{.*}}, %[[R]]) : (tensor<?xf32>, index, index, tensor<?x?xf32>) -> tensor<?x?xf32>
// CHECK: return %[[Y]]
fusion.fusion @three_kernels(%x: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %m = fusion.dim %x, 0 : tensor<?x?xf32>
  %n = fusion.dim %x, 1 : tensor<?x?xf32>
  %mx = fusion.max %x [1] keepdim : tensor<?x?xf32> -> tensor<?x1xf32>
  %mxe = fusion.expand %mx (%m, %n) : tensor<?x1xf32> -> tensor<?x?xf32>
  %r = fusion.sub %x, %mxe : tensor<?x?xf32>
  %c = fusion.max %r [0] : tensor<?x?xf32> -> tensor<?xf32>
  %b = fusion.broadcast_in_dim %c [1] (%m, %n) : tensor<?xf32> -> tensor<?x?xf32>
  %y = fusion.sub %r, %b : tensor<?x?xf32>
  fusion.return %y : tensor<?x?xf32>
}

// -----

// Host arithmetic that a kernel reads moves before it with its operands (a
// mean's count written after the sum, as the Python frontend does). The
// count as f32 is computed in the kernel from the size (Note [Scalars
// computed from sizes]): the launch plan evaluates integers only, and the
// host copy is dropped.
// CHECK-LABEL: fusion.fusion @count_after_sum
// CHECK: %[[N:.*]] = dim %arg0, 1
// CHECK-NOT: arith.index_cast
// CHECK: %[[M:.*]] = dim %arg0, 0
// CHECK: kernel @count_after_sum_k0 (%arg0, %[[N]], %[[M]])
// CHECK: ^bb0(%{{.*}}: tensor<?x?xf32>, %[[KN:.*]]: index, %{{.*}}: index):
// CHECK: %[[NI:.*]] = arith.index_cast %[[KN]] : index to i64
// CHECK: %[[NF:.*]] = cast %[[NI]] : i64 to f32
// CHECK: broadcast_in_dim %[[NF]]
fusion.fusion @count_after_sum(%x: tensor<?x?xf32>) -> tensor<?x1xf32> {
  %s = fusion.sum %x [1] keepdim : tensor<?x?xf32> -> tensor<?x1xf32>
  %n = fusion.dim %x, 1 : tensor<?x?xf32>
  %ni = arith.index_cast %n : index to i64
  %nf = fusion.cast %ni : i64 to f32
  %m = fusion.dim %x, 0 : tensor<?x?xf32>
  %c = fusion.broadcast_in_dim %nf [] (%m) : f32 -> tensor<?x1xf32>
  %mean = fusion.div %s, %c : tensor<?x1xf32>
  fusion.return %mean : tensor<?x1xf32>
}

// -----

// An op that no scheduler takes gets a kernel of its own (fusion-schedule
// reports it there); the rest is segmented as usual.
// CHECK-LABEL: fusion.fusion @unschedulable
// CHECK: kernel @unschedulable_k0 (%arg0)
// CHECK-NEXT: ^bb0
// CHECK-NEXT: sum
// CHECK: kernel @unschedulable_k1 (%arg0)
// CHECK-NEXT: ^bb0
// CHECK-NEXT: argmax
// CHECK-NEXT: yield
fusion.fusion @unschedulable(%x: tensor<?x?xf32>) -> (tensor<?xf32>, tensor<?xi64>) {
  %s = fusion.sum %x [0] : tensor<?x?xf32> -> tensor<?xf32>
  %a = fusion.argmax %x dim = 1 : tensor<?x?xf32> -> tensor<?xi64>
  fusion.return %s, %a : tensor<?xf32>, tensor<?xi64>
}

// -----

// Outputs of different shapes need different pointwise kernels.
// CHECK-LABEL: fusion.fusion @two_shapes
// CHECK: kernel @two_shapes_k0 (%arg0) : (tensor<?x?xf32>) -> tensor<?x?xf32>
// CHECK: kernel @two_shapes_k1 (%arg1) : (tensor<?xf32>) -> tensor<?xf32>
fusion.fusion @two_shapes(%x: tensor<?x?xf32>, %v: tensor<?xf32>) -> (tensor<?x?xf32>, tensor<?xf32>) {
  %a = fusion.exp %x : tensor<?x?xf32>
  %b = fusion.neg %v : tensor<?xf32>
  fusion.return %a, %b : tensor<?x?xf32>, tensor<?xf32>
}

// -----

// Dead tensor work of a split fusion is dropped (it would be a kernel
// without results).
// CHECK-LABEL: fusion.fusion @dead_work
// CHECK: kernel @dead_work_k0
// CHECK: kernel @dead_work_k1
// CHECK-NOT: kernel
// CHECK-NOT: prod
// CHECK: return
fusion.fusion @dead_work(%x: tensor<?x?xf32>) -> tensor<f32> {
  %r = fusion.sum %x [1] : tensor<?x?xf32> -> tensor<?xf32>
  %unused = fusion.prod %x [0] : tensor<?x?xf32> -> tensor<?xf32>
  %t = fusion.sum %r [0] : tensor<?xf32> -> tensor<f32>
  fusion.return %t : tensor<f32>
}

// -----

// First fit: a column sum of y written between the ops of a row
// normalization of x. The sum does not fit the row kernel and opens k1; the
// rest of the normalization still joins k0, so two kernels, not three. k1
// goes after k0, whose last op came after the sum.
// CHECK-LABEL: fusion.fusion @interleaved
// CHECK: %[[Y:.*]] = kernel @interleaved_k0 (%arg0, %{{.*}}, %{{.*}}) : (tensor<?x?xf32>, index, index) -> tensor<?x?xf32>
// CHECK-NEXT: ^bb0
// CHECK-NEXT: max {{.*}} [1] keepdim
// CHECK-NEXT: expand
// CHECK-NEXT: sub
// CHECK-NEXT: yield
// CHECK: %[[S:.*]] = kernel @interleaved_k1 (%arg1) : (tensor<?x?xf32>) -> tensor<?xf32>
// CHECK-NEXT: ^bb0
// CHECK-NEXT: sum {{.*}} [0]
// CHECK-NEXT: yield
// CHECK-NOT: kernel
// CHECK: return %[[Y]], %[[S]]
fusion.fusion @interleaved(%x: tensor<?x?xf32>, %y: tensor<?x?xf32>) -> (tensor<?x?xf32>, tensor<?xf32>) {
  %m = fusion.dim %x, 0 : tensor<?x?xf32>
  %n = fusion.dim %x, 1 : tensor<?x?xf32>
  %mx = fusion.max %x [1] keepdim : tensor<?x?xf32> -> tensor<?x1xf32>
  %s = fusion.sum %y [0] : tensor<?x?xf32> -> tensor<?xf32>
  %e = fusion.expand %mx (%m, %n) : tensor<?x1xf32> -> tensor<?x?xf32>
  %d = fusion.sub %x, %e : tensor<?x?xf32>
  fusion.return %d, %s : tensor<?x?xf32>, tensor<?xf32>
}

// -----

// Note [Results of one shape]: `x + expand(b)` is ?x?, `b * b` is 1x?: a
// static 1 beside a symbolic extent could differ at run time, so the
// results come from two kernels (the expand of b is recomputed where read).
// CHECK-LABEL: fusion.fusion @one_beside_symbolic
// CHECK: kernel @one_beside_symbolic_k0 {{.*}} -> tensor<?x?xf32>
// CHECK: kernel @one_beside_symbolic_k1 (%arg1) : (tensor<1x?xf32>) -> tensor<1x?xf32>
// CHECK-NOT: kernel
fusion.fusion @one_beside_symbolic(%x: tensor<?x?xf32>, %b: tensor<1x?xf32>) -> (tensor<?x?xf32>, tensor<1x?xf32>) {
  %m = fusion.dim %x, 0 : tensor<?x?xf32>
  %n = fusion.dim %x, 1 : tensor<?x?xf32>
  %e = fusion.expand %b (%m, %n) : tensor<1x?xf32> -> tensor<?x?xf32>
  %s = fusion.add %x, %e : tensor<?x?xf32>
  %q = fusion.mul %b, %b : tensor<1x?xf32>
  fusion.return %s, %q : tensor<?x?xf32>, tensor<1x?xf32>
}

// -----

// Results over the dims of two unrelated inputs: two kernels.
// CHECK-LABEL: fusion.fusion @unrelated_inputs
// CHECK: kernel @unrelated_inputs_k0 (%arg0)
// CHECK: kernel @unrelated_inputs_k1 (%arg1)
// CHECK-NOT: kernel
fusion.fusion @unrelated_inputs(%x: tensor<?x?xf32>, %y: tensor<?x?xf32>) -> (tensor<?x?xf32>, tensor<?x?xf32>) {
  %a = fusion.exp %x : tensor<?x?xf32>
  %b = fusion.neg %y : tensor<?x?xf32>
  fusion.return %a, %b : tensor<?x?xf32>, tensor<?x?xf32>
}

// -----

// The dims of x and y are tied by `x + y` (the kernel checks them equal at
// run time): `exp(x)` and `neg(y)` beside it stay in one kernel.
// CHECK-LABEL: fusion.fusion @tied_inputs
// CHECK: kernel @tied_inputs_k0 (%arg0, %arg1) : (tensor<?x?xf32>, tensor<?x?xf32>) -> (tensor<?x?xf32>, tensor<?x?xf32>, tensor<?x?xf32>)
// CHECK-NOT: kernel
fusion.fusion @tied_inputs(%x: tensor<?x?xf32>, %y: tensor<?x?xf32>) -> (tensor<?x?xf32>, tensor<?x?xf32>, tensor<?x?xf32>) {
  %s = fusion.add %x, %y : tensor<?x?xf32>
  %a = fusion.exp %x : tensor<?x?xf32>
  %b = fusion.neg %y : tensor<?x?xf32>
  fusion.return %s, %a, %b : tensor<?x?xf32>, tensor<?x?xf32>, tensor<?x?xf32>
}

// -----

// Note [Index ops in row kernels]: a gather that a reduction reads is
// computed at the columns of the row, which a row kernel does not do: it
// gets a pointwise kernel, the sum a kernel of its own.
// CHECK-LABEL: fusion.fusion @gather_then_sum
// CHECK: kernel @gather_then_sum_k0
// CHECK: gather
// CHECK: kernel @gather_then_sum_k1
// CHECK: sum
// CHECK-NOT: kernel
fusion.fusion @gather_then_sum(%x: tensor<?x?xf32>, %i: tensor<?x?xi64>) -> tensor<?xf32> {
  %g = fusion.gather %x, %i dim = 1 : tensor<?x?xf32>, tensor<?x?xi64> -> tensor<?x?xf32>
  %s = fusion.sum %g [1] : tensor<?x?xf32> -> tensor<?xf32>
  fusion.return %s : tensor<?xf32>
}
