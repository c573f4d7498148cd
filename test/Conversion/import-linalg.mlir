// --fusion-import-linalg: a softmax written as torch-mlir or IREE hand it
// over (a max reduction, exp of the difference with the row max read
// through a projection map, a sum reduction, a division) becomes one
// fusion.fusion of the same name and type: the reductions are fusion.max
// and fusion.sum (their inits are linalg.fill of the neutral values), the
// projections fusion.broadcast_in_dim with the dims of the input; the
// segmenter then makes it one inner-reduction kernel, as fusion.softmax.
// linalg.softmax, linalg.transpose and linalg.broadcast have fusion forms of
// their own. The PTX passes ptxas.
// RUN: fusion-opt %s --fusion-import-linalg | FileCheck %s
// RUN: fusion-opt %s --fusion-import-linalg | fusion-opt --fusion-decompose --canonicalize --fusion-segment --fusion-schedule | FileCheck %s --check-prefix=SCHED
// RUN: fusion-opt %s --fusion-import-linalg > %t.mlir
// RUN: fusion-translate %t.mlir --fusion=softmax_linalg --fusion-to-ptx --no-cubin -o %t.ptx
// RUN: %if ptxas %{ ptxas -arch=sm_90a %t.ptx -o %t.cubin %}

// CHECK-NOT: func.func
// CHECK-LABEL: fusion.fusion @softmax_linalg
// CHECK-SAME: (%[[X:.*]]: tensor<?x?xf32>) -> tensor<?x?xf32>
// CHECK: %[[MAX:.*]] = max %[[X]] [1] : tensor<?x?xf32> -> tensor<?xf32>
// CHECK: %[[M:.*]] = dim %[[X]], 0
// CHECK: %[[N:.*]] = dim %[[X]], 1
// CHECK: %[[B:.*]] = broadcast_in_dim %[[MAX]] [0](%[[M]], %[[N]]) : tensor<?xf32> -> tensor<?x?xf32>
// CHECK: %[[D:.*]] = sub %[[X]], %[[B]] : tensor<?x?xf32>
// CHECK: %[[E:.*]] = exp %[[D]] : tensor<?x?xf32>
// CHECK: %[[S:.*]] = sum %[[E]] [1] : tensor<?x?xf32> -> tensor<?xf32>
// CHECK: %[[SB:.*]] = broadcast_in_dim %[[S]] [0]
// CHECK: %[[Y:.*]] = div %[[E]], %[[SB]] : tensor<?x?xf32>
// CHECK: return %[[Y]] : tensor<?x?xf32>
// SCHED-LABEL: fusion.fusion @softmax_linalg
// SCHED-COUNT-1: schedule = #fusion.inner_reduction
// SCHED-NOT: schedule =
// SCHED-LABEL: fusion.fusion @named

// CHECK-LABEL: fusion.fusion @named
// CHECK-SAME: (%[[A:.*]]: tensor<8x16xbf16>, %[[V:.*]]: tensor<16xbf16>) -> tensor<16x8xbf16>
// CHECK: %[[SM:.*]] = softmax %[[A]] dim = 1 : tensor<8x16xbf16>
// CHECK: %[[VB:.*]] = broadcast_in_dim %[[V]] [1] : tensor<16xbf16> -> tensor<8x16xbf16>
// CHECK: %[[P:.*]] = mul %[[SM]], %[[VB]] : tensor<8x16xbf16>
// CHECK: %[[T:.*]] = permute %[[P]] [1, 0] : tensor<8x16xbf16> -> tensor<16x8xbf16>
// CHECK: return %[[T]]

// Named structured ops go the same way as generics: linalg.add, linalg.exp,
// linalg.reduce.
// CHECK-LABEL: fusion.fusion @named_ew
// CHECK: %[[AD:.*]] = add %{{.*}}, %{{.*}} : tensor<?x?xf32>
// CHECK: %[[EX:.*]] = exp %[[AD]] : tensor<?x?xf32>
// CHECK: %[[SU:.*]] = sum %[[EX]] [1] : tensor<?x?xf32> -> tensor<?xf32>
// CHECK: return %[[SU]]

// Constants in a body become broadcast scalars; casts become fusion.cast.
// CHECK-LABEL: fusion.fusion @scale_cast
// CHECK: %[[W:.*]] = cast %{{.*}} : tensor<?xbf16> to tensor<?xf32>
// CHECK: %[[C:.*]] = arith.constant 5.000000e-01 : f32
// CHECK: %[[CB:.*]] = broadcast_in_dim %[[C]] [](%{{.*}}) : f32 -> tensor<?xf32>
// CHECK: mul %[[W]], %[[CB]] : tensor<?xf32>
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
func.func @softmax_linalg(%x: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %m = tensor.dim %x, %c0 : tensor<?x?xf32>
  %n = tensor.dim %x, %c1 : tensor<?x?xf32>
  %ninf = arith.constant 0xFF800000 : f32
  %zero = arith.constant 0.0 : f32
  %rows = tensor.empty(%m) : tensor<?xf32>
  %init_max = linalg.fill ins(%ninf : f32) outs(%rows : tensor<?xf32>) -> tensor<?xf32>
  %max = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<?x?xf32>) outs(%init_max : tensor<?xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %r = arith.maximumf %a, %acc : f32
    linalg.yield %r : f32
  } -> tensor<?xf32>
  %full = tensor.empty(%m, %n) : tensor<?x?xf32>
  %e = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %max : tensor<?x?xf32>, tensor<?xf32>) outs(%full : tensor<?x?xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %d = arith.subf %a, %b : f32
    %v = math.exp %d : f32
    linalg.yield %v : f32
  } -> tensor<?x?xf32>
  %init_sum = linalg.fill ins(%zero : f32) outs(%rows : tensor<?xf32>) -> tensor<?xf32>
  %sum = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%e : tensor<?x?xf32>) outs(%init_sum : tensor<?xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %r = arith.addf %a, %acc : f32
    linalg.yield %r : f32
  } -> tensor<?xf32>
  %y = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%e, %sum : tensor<?x?xf32>, tensor<?xf32>) outs(%full : tensor<?x?xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %q = arith.divf %a, %b : f32
    linalg.yield %q : f32
  } -> tensor<?x?xf32>
  return %y : tensor<?x?xf32>
}

func.func @named(%a: tensor<8x16xbf16>, %v: tensor<16xbf16>) -> tensor<16x8xbf16> {
  %e = tensor.empty() : tensor<8x16xbf16>
  %s = linalg.softmax dimension(1) ins(%a : tensor<8x16xbf16>) outs(%e : tensor<8x16xbf16>) -> tensor<8x16xbf16>
  %vb = linalg.broadcast ins(%v : tensor<16xbf16>) outs(%e : tensor<8x16xbf16>) dimensions = [0]
  %p = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%s, %vb : tensor<8x16xbf16>, tensor<8x16xbf16>) outs(%e : tensor<8x16xbf16>) {
  ^bb0(%x: bf16, %y: bf16, %o: bf16):
    %r = arith.mulf %x, %y : bf16
    linalg.yield %r : bf16
  } -> tensor<8x16xbf16>
  %et = tensor.empty() : tensor<16x8xbf16>
  %t = linalg.transpose ins(%p : tensor<8x16xbf16>) outs(%et : tensor<16x8xbf16>) permutation = [1, 0]
  return %t : tensor<16x8xbf16>
}

func.func @named_ew(%a: tensor<?x?xf32>, %b: tensor<?x?xf32>) -> tensor<?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %m = tensor.dim %a, %c0 : tensor<?x?xf32>
  %n = tensor.dim %a, %c1 : tensor<?x?xf32>
  %e = tensor.empty(%m, %n) : tensor<?x?xf32>
  %s = linalg.add ins(%a, %b : tensor<?x?xf32>, tensor<?x?xf32>) outs(%e : tensor<?x?xf32>) -> tensor<?x?xf32>
  %x = linalg.exp ins(%s : tensor<?x?xf32>) outs(%e : tensor<?x?xf32>) -> tensor<?x?xf32>
  %zero = arith.constant 0.0 : f32
  %r = tensor.empty(%m) : tensor<?xf32>
  %f = linalg.fill ins(%zero : f32) outs(%r : tensor<?xf32>) -> tensor<?xf32>
  %sum = linalg.reduce ins(%x : tensor<?x?xf32>) outs(%f : tensor<?xf32>) dimensions = [1]
    (%in: f32, %init: f32) {
      %y = arith.addf %in, %init : f32
      linalg.yield %y : f32
    }
  return %sum : tensor<?xf32>
}

#vec = affine_map<(d0) -> (d0)>
func.func @scale_cast(%x: tensor<?xbf16>) -> tensor<?xf32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?xbf16>
  %e = tensor.empty(%n) : tensor<?xf32>
  %y = linalg.generic {indexing_maps = [#vec, #vec], iterator_types = ["parallel"]}
      ins(%x : tensor<?xbf16>) outs(%e : tensor<?xf32>) {
  ^bb0(%a: bf16, %o: f32):
    %w = arith.extf %a : bf16 to f32
    %h = arith.constant 0.5 : f32
    %r = arith.mulf %w, %h : f32
    linalg.yield %r : f32
  } -> tensor<?xf32>
  return %y : tensor<?xf32>
}
