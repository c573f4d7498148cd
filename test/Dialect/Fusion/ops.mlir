// Round-trip of every definition-level op: parse, print, re-parse, in the
// custom and the generic syntax. The CHECK lines pin the printed form, so a
// change to an op's assembly format or a lost attribute fails here.
// RUN: fusion-opt %s | fusion-opt | FileCheck %s
// RUN: fusion-opt %s --mlir-print-op-generic | fusion-opt | FileCheck %s

// Inputs may carry names; a fusion may return several values or none.
// CHECK-LABEL: fusion.fusion @container
// CHECK-SAME: (%[[X:[a-z0-9]+]]: tensor<?x?xbf16> {fusion.name = "x"}, %[[S:[a-z0-9]+]]: f32, %[[I:[a-z0-9]+]]: index)
// CHECK-SAME: -> (tensor<?x?xbf16>, f32, index)
// CHECK-NEXT: return %[[X]], %[[S]], %[[I]] : tensor<?x?xbf16>, f32, index
fusion.fusion @container(%x: tensor<?x?xbf16> {fusion.name = "x"}, %s: f32, %i: index)
    -> (tensor<?x?xbf16>, f32, index) {
  fusion.return %x, %s, %i : tensor<?x?xbf16>, f32, index
}

// CHECK-LABEL: fusion.fusion @no_results
// CHECK-SAME: (%{{.*}}: tensor<2xf32>) {
// CHECK-NEXT: return{{$}}
fusion.fusion @no_results(%x: tensor<2xf32>) {
  fusion.return
}

// Prefixed and unprefixed op names both parse inside a fusion.
// CHECK-LABEL: fusion.fusion @prefix
// CHECK: set %{{.*}} : tensor<3xf32>
// CHECK: %[[A:.*]] = neg %{{.*}} : tensor<3xf32>
// CHECK: %[[B:.*]] = neg %[[A]] : tensor<3xf32>
// CHECK: return %[[B]]
fusion.fusion @prefix(%x: tensor<3xf32>) -> tensor<3xf32> {
  %s = fusion.set %x : tensor<3xf32>
  %0 = fusion.neg %x : tensor<3xf32>
  %1 = neg %0 : tensor<3xf32>
  fusion.return %1 : tensor<3xf32>
}

//===----------------------------------------------------------------------===//
// Size queries
//===----------------------------------------------------------------------===//

// CHECK-LABEL: fusion.fusion @dim
// CHECK-SAME: (%[[X:[a-z0-9]+]]: tensor<4x?xf16>)
// CHECK: %[[D0:.*]] = dim %[[X]], 0 : tensor<4x?xf16>
// CHECK: %[[D1:.*]] = dim %[[X]], 1 : tensor<4x?xf16>
// CHECK: return %[[D0]], %[[D1]] : index, index
fusion.fusion @dim(%x: tensor<4x?xf16>) -> (index, index) {
  %0 = fusion.dim %x, 0 : tensor<4x?xf16>
  %1 = fusion.dim %x, 1 : tensor<4x?xf16>
  fusion.return %0, %1 : index, index
}

//===----------------------------------------------------------------------===//
// Element-wise ops
//===----------------------------------------------------------------------===//

// CHECK-LABEL: fusion.fusion @unary_float
// CHECK-SAME: (%[[X:[a-z0-9]+]]: tensor<?x4xf32>)
// CHECK: = neg %[[X]] : tensor<?x4xf32>
// CHECK: = abs %[[X]] : tensor<?x4xf32>
// CHECK: = exp %[[X]] : tensor<?x4xf32>
// CHECK: = exp2 %[[X]] : tensor<?x4xf32>
// CHECK: = expm1 %[[X]] : tensor<?x4xf32>
// CHECK: = log %[[X]] : tensor<?x4xf32>
// CHECK: = log2 %[[X]] : tensor<?x4xf32>
// CHECK: = log1p %[[X]] : tensor<?x4xf32>
// CHECK: = sqrt %[[X]] : tensor<?x4xf32>
// CHECK: = rsqrt %[[X]] : tensor<?x4xf32>
// CHECK: = reciprocal %[[X]] : tensor<?x4xf32>
// CHECK: = sin %[[X]] : tensor<?x4xf32>
// CHECK: = cos %[[X]] : tensor<?x4xf32>
// CHECK: = tan %[[X]] : tensor<?x4xf32>
// CHECK: = tanh %[[X]] : tensor<?x4xf32>
// CHECK: = sigmoid %[[X]] : tensor<?x4xf32>
// CHECK: = erf %[[X]] : tensor<?x4xf32>
// CHECK: = erfc %[[X]] : tensor<?x4xf32>
// CHECK: = relu %[[X]] : tensor<?x4xf32>
// CHECK: = silu %[[X]] : tensor<?x4xf32>
// CHECK: = floor %[[X]] : tensor<?x4xf32>
// CHECK: = ceil %[[X]] : tensor<?x4xf32>
// CHECK: = round %[[X]] : tensor<?x4xf32>
// CHECK: = trunc %[[X]] : tensor<?x4xf32>
// CHECK: = sign %[[X]] : tensor<?x4xf32>
// CHECK: %[[GELU:.*]] = gelu %[[X]] : tensor<?x4xf32>
// CHECK: %[[GELU_TANH:.*]] = gelu %[[X]] tanh : tensor<?x4xf32>
// CHECK: %[[NAN:.*]] = isnan %[[X]] : tensor<?x4xf32>
// CHECK: %[[INF:.*]] = isinf %[[X]] : tensor<?x4xf32>
// CHECK: return %[[GELU]], %[[GELU_TANH]], %[[NAN]], %[[INF]] : tensor<?x4xf32>, tensor<?x4xf32>, tensor<?x4xi1>, tensor<?x4xi1>
fusion.fusion @unary_float(%x: tensor<?x4xf32>)
    -> (tensor<?x4xf32>, tensor<?x4xf32>, tensor<?x4xi1>, tensor<?x4xi1>) {
  %0 = fusion.neg %x : tensor<?x4xf32>
  %1 = fusion.abs %x : tensor<?x4xf32>
  %2 = fusion.exp %x : tensor<?x4xf32>
  %3 = fusion.exp2 %x : tensor<?x4xf32>
  %4 = fusion.expm1 %x : tensor<?x4xf32>
  %5 = fusion.log %x : tensor<?x4xf32>
  %6 = fusion.log2 %x : tensor<?x4xf32>
  %7 = fusion.log1p %x : tensor<?x4xf32>
  %8 = fusion.sqrt %x : tensor<?x4xf32>
  %9 = fusion.rsqrt %x : tensor<?x4xf32>
  %10 = fusion.reciprocal %x : tensor<?x4xf32>
  %11 = fusion.sin %x : tensor<?x4xf32>
  %12 = fusion.cos %x : tensor<?x4xf32>
  %13 = fusion.tan %x : tensor<?x4xf32>
  %14 = fusion.tanh %x : tensor<?x4xf32>
  %15 = fusion.sigmoid %x : tensor<?x4xf32>
  %16 = fusion.erf %x : tensor<?x4xf32>
  %17 = fusion.erfc %x : tensor<?x4xf32>
  %18 = fusion.relu %x : tensor<?x4xf32>
  %19 = fusion.silu %x : tensor<?x4xf32>
  %20 = fusion.floor %x : tensor<?x4xf32>
  %21 = fusion.ceil %x : tensor<?x4xf32>
  %22 = fusion.round %x : tensor<?x4xf32>
  %23 = fusion.trunc %x : tensor<?x4xf32>
  %24 = fusion.sign %x : tensor<?x4xf32>
  %25 = fusion.gelu %x : tensor<?x4xf32>
  %26 = fusion.gelu %x tanh : tensor<?x4xf32>
  %27 = fusion.isnan %x : tensor<?x4xf32>
  %28 = fusion.isinf %x : tensor<?x4xf32>
  fusion.return %25, %26, %27, %28
      : tensor<?x4xf32>, tensor<?x4xf32>, tensor<?x4xi1>, tensor<?x4xi1>
}

// The numeric unary ops also take integers; the bitwise ones take i1 too.
// CHECK-LABEL: fusion.fusion @unary_int
// CHECK-SAME: (%[[I:[a-z0-9]+]]: tensor<8xi32>, %[[P:[a-z0-9]+]]: tensor<8xi1>)
// CHECK: = neg %[[I]] : tensor<8xi32>
// CHECK: = abs %[[I]] : tensor<8xi32>
// CHECK: = relu %[[I]] : tensor<8xi32>
// CHECK: = sign %[[I]] : tensor<8xi32>
// CHECK: = bitwise_not %[[I]] : tensor<8xi32>
// CHECK: = bitwise_not %[[P]] : tensor<8xi1>
// CHECK: = logical_not %[[P]] : tensor<8xi1>
fusion.fusion @unary_int(%i: tensor<8xi32>, %p: tensor<8xi1>) {
  %0 = fusion.neg %i : tensor<8xi32>
  %1 = fusion.abs %i : tensor<8xi32>
  %2 = fusion.relu %i : tensor<8xi32>
  %3 = fusion.sign %i : tensor<8xi32>
  %4 = fusion.bitwise_not %i : tensor<8xi32>
  %5 = fusion.bitwise_not %p : tensor<8xi1>
  %6 = fusion.logical_not %p : tensor<8xi1>
  fusion.return
}

// CHECK-LABEL: fusion.fusion @binary_float
// CHECK-SAME: (%[[A:[a-z0-9]+]]: tensor<?x?xbf16>, %[[B:[a-z0-9]+]]: tensor<?x?xbf16>)
// CHECK: = add %[[A]], %[[B]] : tensor<?x?xbf16>
// CHECK: = add %[[A]], %[[B]] alpha = -2.500000e-01 : tensor<?x?xbf16>
// CHECK: = sub %[[A]], %[[B]] : tensor<?x?xbf16>
// CHECK: = mul %[[A]], %[[B]] : tensor<?x?xbf16>
// CHECK: = div %[[A]], %[[B]] : tensor<?x?xbf16>
// CHECK: = fmod %[[A]], %[[B]] : tensor<?x?xbf16>
// CHECK: = remainder %[[A]], %[[B]] : tensor<?x?xbf16>
// CHECK: = pow %[[A]], %[[B]] : tensor<?x?xbf16>
// CHECK: = maximum %[[A]], %[[B]] : tensor<?x?xbf16>
// CHECK: = minimum %[[A]], %[[B]] : tensor<?x?xbf16>
// CHECK: = atan2 %[[A]], %[[B]] : tensor<?x?xbf16>
fusion.fusion @binary_float(%a: tensor<?x?xbf16>, %b: tensor<?x?xbf16>) {
  %0 = fusion.add %a, %b : tensor<?x?xbf16>
  %1 = fusion.add %a, %b alpha = -0.25 : tensor<?x?xbf16>
  %2 = fusion.sub %a, %b : tensor<?x?xbf16>
  %3 = fusion.mul %a, %b : tensor<?x?xbf16>
  %4 = fusion.div %a, %b : tensor<?x?xbf16>
  %5 = fusion.fmod %a, %b : tensor<?x?xbf16>
  %6 = fusion.remainder %a, %b : tensor<?x?xbf16>
  %7 = fusion.pow %a, %b : tensor<?x?xbf16>
  %8 = fusion.maximum %a, %b : tensor<?x?xbf16>
  %9 = fusion.minimum %a, %b : tensor<?x?xbf16>
  %10 = fusion.atan2 %a, %b : tensor<?x?xbf16>
  fusion.return
}

// CHECK-LABEL: fusion.fusion @binary_int
// CHECK-SAME: (%[[A:[a-z0-9]+]]: tensor<2x3xi64>, %[[B:[a-z0-9]+]]: tensor<2x3xi64>)
// CHECK: = add %[[A]], %[[B]] alpha = 3.000000e+00 : tensor<2x3xi64>
// CHECK: = div %[[A]], %[[B]] : tensor<2x3xi64>
// CHECK: = bitwise_and %[[A]], %[[B]] : tensor<2x3xi64>
// CHECK: = bitwise_or %[[A]], %[[B]] : tensor<2x3xi64>
// CHECK: = bitwise_xor %[[A]], %[[B]] : tensor<2x3xi64>
// CHECK: = shift_left %[[A]], %[[B]] : tensor<2x3xi64>
// CHECK: = shift_right %[[A]], %[[B]] : tensor<2x3xi64>
fusion.fusion @binary_int(%a: tensor<2x3xi64>, %b: tensor<2x3xi64>) {
  %0 = fusion.add %a, %b alpha = 3.0 : tensor<2x3xi64>
  %1 = fusion.div %a, %b : tensor<2x3xi64>
  %2 = fusion.bitwise_and %a, %b : tensor<2x3xi64>
  %3 = fusion.bitwise_or %a, %b : tensor<2x3xi64>
  %4 = fusion.bitwise_xor %a, %b : tensor<2x3xi64>
  %5 = fusion.shift_left %a, %b : tensor<2x3xi64>
  %6 = fusion.shift_right %a, %b : tensor<2x3xi64>
  fusion.return
}

// CHECK-LABEL: fusion.fusion @logical
// CHECK-SAME: (%[[P:[a-z0-9]+]]: tensor<?xi1>, %[[Q:[a-z0-9]+]]: tensor<?xi1>)
// CHECK: = logical_and %[[P]], %[[Q]] : tensor<?xi1>
// CHECK: = logical_or %[[P]], %[[Q]] : tensor<?xi1>
// CHECK: = logical_xor %[[P]], %[[Q]] : tensor<?xi1>
fusion.fusion @logical(%p: tensor<?xi1>, %q: tensor<?xi1>) {
  %0 = fusion.logical_and %p, %q : tensor<?xi1>
  %1 = fusion.logical_or %p, %q : tensor<?xi1>
  %2 = fusion.logical_xor %p, %q : tensor<?xi1>
  fusion.return
}

// Comparisons print the operand type; the result is its i1 twin.
// CHECK-LABEL: fusion.fusion @compare
// CHECK-SAME: (%[[A:[a-z0-9]+]]: tensor<?x8xf16>, %[[B:[a-z0-9]+]]: tensor<?x8xf16>, %[[I:[a-z0-9]+]]: tensor<5xi8>)
// CHECK: = eq %[[A]], %[[B]] : tensor<?x8xf16>
// CHECK: = ne %[[A]], %[[B]] : tensor<?x8xf16>
// CHECK: = lt %[[A]], %[[B]] : tensor<?x8xf16>
// CHECK: = le %[[A]], %[[B]] : tensor<?x8xf16>
// CHECK: = gt %[[A]], %[[B]] : tensor<?x8xf16>
// CHECK: %[[GE:.*]] = ge %[[A]], %[[B]] : tensor<?x8xf16>
// CHECK: %[[EQI:.*]] = eq %[[I]], %[[I]] : tensor<5xi8>
// CHECK: return %[[GE]], %[[EQI]] : tensor<?x8xi1>, tensor<5xi1>
fusion.fusion @compare(%a: tensor<?x8xf16>, %b: tensor<?x8xf16>, %i: tensor<5xi8>)
    -> (tensor<?x8xi1>, tensor<5xi1>) {
  %0 = fusion.eq %a, %b : tensor<?x8xf16>
  %1 = fusion.ne %a, %b : tensor<?x8xf16>
  %2 = fusion.lt %a, %b : tensor<?x8xf16>
  %3 = fusion.le %a, %b : tensor<?x8xf16>
  %4 = fusion.gt %a, %b : tensor<?x8xf16>
  %5 = fusion.ge %a, %b : tensor<?x8xf16>
  %6 = fusion.eq %i, %i : tensor<5xi8>
  fusion.return %5, %6 : tensor<?x8xi1>, tensor<5xi1>
}

// CHECK-LABEL: fusion.fusion @ternary
// CHECK-SAME: (%[[P:[a-z0-9]+]]: tensor<?x2xi1>, %[[A:[a-z0-9]+]]: tensor<?x2xf64>, %[[B:[a-z0-9]+]]: tensor<?x2xf64>, %[[C:[a-z0-9]+]]: tensor<?x2xf64>)
// CHECK: = where %[[P]], %[[A]], %[[B]] : tensor<?x2xi1>, tensor<?x2xf64>
// CHECK: = clamp %[[A]], %[[B]], %[[C]] : tensor<?x2xf64>
// CHECK: = lerp %[[A]], %[[B]], %[[C]] : tensor<?x2xf64>
// CHECK: = fma %[[A]], %[[B]], %[[C]] : tensor<?x2xf64>
fusion.fusion @ternary(%p: tensor<?x2xi1>, %a: tensor<?x2xf64>,
                       %b: tensor<?x2xf64>, %c: tensor<?x2xf64>) {
  %0 = fusion.where %p, %a, %b : tensor<?x2xi1>, tensor<?x2xf64>
  %1 = fusion.clamp %a, %b, %c : tensor<?x2xf64>
  %2 = fusion.lerp %a, %b, %c : tensor<?x2xf64>
  %3 = fusion.fma %a, %b, %c : tensor<?x2xf64>
  fusion.return
}

// Element-wise ops on scalars only: all operands and the result are scalars.
// CHECK-LABEL: fusion.fusion @scalars
// CHECK-SAME: (%[[A:[a-z0-9]+]]: f32, %[[B:[a-z0-9]+]]: f32, %[[P:[a-z0-9]+]]: i1, %[[I:[a-z0-9]+]]: i16)
// CHECK: = add %[[A]], %[[B]] alpha = 2.000000e+00 : f32
// CHECK: = exp %[[A]] : f32
// CHECK: = gelu %[[A]] tanh : f32
// CHECK: = isnan %[[A]] : f32
// CHECK: = lt %[[A]], %[[B]] : f32
// CHECK: = where %[[P]], %[[A]], %[[B]] : i1, f32
// CHECK: = clamp %[[A]], %[[B]], %[[B]] : f32
// CHECK: = fma %[[A]], %[[B]], %[[A]] : f32
// CHECK: = shift_left %[[I]], %[[I]] : i16
// CHECK: = logical_not %[[P]] : i1
// CHECK: %[[CAST:.*]] = cast %[[I]] : i16 to f32
// CHECK: return %[[CAST]] : f32
fusion.fusion @scalars(%a: f32, %b: f32, %p: i1, %i: i16) -> f32 {
  %0 = fusion.add %a, %b alpha = 2.0 : f32
  %1 = fusion.exp %a : f32
  %2 = fusion.gelu %a tanh : f32
  %3 = fusion.isnan %a : f32
  %4 = fusion.lt %a, %b : f32
  %5 = fusion.where %p, %a, %b : i1, f32
  %6 = fusion.clamp %a, %b, %b : f32
  %7 = fusion.fma %a, %b, %a : f32
  %8 = fusion.shift_left %i, %i : i16
  %9 = fusion.logical_not %p : i1
  %10 = fusion.cast %i : i16 to f32
  fusion.return %10 : f32
}

// Casts reach every element type, the 8-bit floats included.
// CHECK-LABEL: fusion.fusion @casts
// CHECK-SAME: (%[[X:[a-z0-9]+]]: tensor<?x3xf32>)
// CHECK: = cast %[[X]] : tensor<?x3xf32> to tensor<?x3xf64>
// CHECK: = cast %[[X]] : tensor<?x3xf32> to tensor<?x3xf16>
// CHECK: = cast %[[X]] : tensor<?x3xf32> to tensor<?x3xbf16>
// CHECK: = cast %[[X]] : tensor<?x3xf32> to tensor<?x3xi64>
// CHECK: = cast %[[X]] : tensor<?x3xf32> to tensor<?x3xi32>
// CHECK: = cast %[[X]] : tensor<?x3xf32> to tensor<?x3xi16>
// CHECK: = cast %[[X]] : tensor<?x3xf32> to tensor<?x3xi8>
// CHECK: = cast %[[X]] : tensor<?x3xf32> to tensor<?x3xi1>
// CHECK: %[[E4:.*]] = cast %[[X]] : tensor<?x3xf32> to tensor<?x3xf8E4M3FN>
// CHECK: %[[E5:.*]] = cast %[[X]] : tensor<?x3xf32> to tensor<?x3xf8E5M2>
// CHECK: = cast %[[E4]] : tensor<?x3xf8E4M3FN> to tensor<?x3xbf16>
// CHECK: = cast %[[E5]] : tensor<?x3xf8E5M2> to tensor<?x3xf16>
fusion.fusion @casts(%x: tensor<?x3xf32>) {
  %0 = fusion.cast %x : tensor<?x3xf32> to tensor<?x3xf64>
  %1 = fusion.cast %x : tensor<?x3xf32> to tensor<?x3xf16>
  %2 = fusion.cast %x : tensor<?x3xf32> to tensor<?x3xbf16>
  %3 = fusion.cast %x : tensor<?x3xf32> to tensor<?x3xi64>
  %4 = fusion.cast %x : tensor<?x3xf32> to tensor<?x3xi32>
  %5 = fusion.cast %x : tensor<?x3xf32> to tensor<?x3xi16>
  %6 = fusion.cast %x : tensor<?x3xf32> to tensor<?x3xi8>
  %7 = fusion.cast %x : tensor<?x3xf32> to tensor<?x3xi1>
  %8 = fusion.cast %x : tensor<?x3xf32> to tensor<?x3xf8E4M3FN>
  %9 = fusion.cast %x : tensor<?x3xf32> to tensor<?x3xf8E5M2>
  %10 = fusion.cast %8 : tensor<?x3xf8E4M3FN> to tensor<?x3xbf16>
  %11 = fusion.cast %9 : tensor<?x3xf8E5M2> to tensor<?x3xf16>
  fusion.return
}

//===----------------------------------------------------------------------===//
// Shape ops
//===----------------------------------------------------------------------===//

// CHECK-LABEL: fusion.fusion @broadcast_in_dim
// CHECK-SAME: (%[[V:[a-z0-9]+]]: tensor<?xbf16>, %[[ONE:[a-z0-9]+]]: tensor<1x8xbf16>, %[[S:[a-z0-9]+]]: bf16, %[[M:[a-z0-9]+]]: index)
// CHECK: %[[N:.*]] = dim %[[V]], 0
// CHECK: = broadcast_in_dim %[[V]] [1](%[[M]], %[[N]]) : tensor<?xbf16> -> tensor<?x?xbf16>
// CHECK: = broadcast_in_dim %[[ONE]] [0, 2] : tensor<1x8xbf16> -> tensor<4x3x8xbf16>
// CHECK: = broadcast_in_dim %[[S]] [](%[[M]]) : bf16 -> tensor<2x?xbf16>
fusion.fusion @broadcast_in_dim(%v: tensor<?xbf16>, %one: tensor<1x8xbf16>,
                                %s: bf16, %m: index) {
  %n = fusion.dim %v, 0 : tensor<?xbf16>
  %0 = fusion.broadcast_in_dim %v [1] (%m, %n) : tensor<?xbf16> -> tensor<?x?xbf16>
  %1 = fusion.broadcast_in_dim %one [0, 2] : tensor<1x8xbf16> -> tensor<4x3x8xbf16>
  %2 = fusion.broadcast_in_dim %s [] (%m) : bf16 -> tensor<2x?xbf16>
  fusion.return
}

// CHECK-LABEL: fusion.fusion @expand
// CHECK-SAME: (%[[X:[a-z0-9]+]]: tensor<?x1x1xf32>, %[[N:[a-z0-9]+]]: index)
// CHECK: %[[M:.*]] = dim %[[X]], 0
// CHECK: = expand %[[X]](%[[M]], %[[N]]) : tensor<?x1x1xf32> -> tensor<?x?x7xf32>
// CHECK: = expand %[[X]](%[[M]]) : tensor<?x1x1xf32> -> tensor<?x1x1xf32>
fusion.fusion @expand(%x: tensor<?x1x1xf32>, %n: index) {
  %m = fusion.dim %x, 0 : tensor<?x1x1xf32>
  %0 = fusion.expand %x (%m, %n) : tensor<?x1x1xf32> -> tensor<?x?x7xf32>
  %1 = fusion.expand %x (%m) : tensor<?x1x1xf32> -> tensor<?x1x1xf32>
  fusion.return
}

// CHECK-LABEL: fusion.fusion @reshape
// CHECK-SAME: (%[[X:[a-z0-9]+]]: tensor<2x3x4xi8>, %[[Y:[a-z0-9]+]]: tensor<?x4xi8>, %[[N:[a-z0-9]+]]: index)
// CHECK: = reshape %[[X]] : tensor<2x3x4xi8> -> tensor<6x4xi8>
// CHECK: = reshape %[[Y]](%[[N]]) : tensor<?x4xi8> -> tensor<?x2x2xi8>
fusion.fusion @reshape(%x: tensor<2x3x4xi8>, %y: tensor<?x4xi8>, %n: index) {
  %0 = fusion.reshape %x : tensor<2x3x4xi8> -> tensor<6x4xi8>
  %1 = fusion.reshape %y (%n) : tensor<?x4xi8> -> tensor<?x2x2xi8>
  fusion.return
}

// CHECK-LABEL: fusion.fusion @permute
// CHECK-SAME: (%[[X:[a-z0-9]+]]: tensor<2x?x4xf16>)
// CHECK: = permute %[[X]] [2, 0, 1] : tensor<2x?x4xf16> -> tensor<4x2x?xf16>
fusion.fusion @permute(%x: tensor<2x?x4xf16>) {
  %0 = fusion.permute %x [2, 0, 1] : tensor<2x?x4xf16> -> tensor<4x2x?xf16>
  fusion.return
}

// CHECK-LABEL: fusion.fusion @squeeze
// CHECK-SAME: (%[[X:[a-z0-9]+]]: tensor<1x?x1xf32>)
// CHECK: = squeeze %[[X]] [0, 2] : tensor<1x?x1xf32> -> tensor<?xf32>
// CHECK: = squeeze %[[X]] [1] : tensor<1x?x1xf32> -> tensor<1x1xf32>
fusion.fusion @squeeze(%x: tensor<1x?x1xf32>) {
  %0 = fusion.squeeze %x [0, 2] : tensor<1x?x1xf32> -> tensor<?xf32>
  %1 = fusion.squeeze %x [1] : tensor<1x?x1xf32> -> tensor<1x1xf32>
  fusion.return
}

// Slice bounds are index values: constants or symbolic sizes.
// CHECK-LABEL: fusion.fusion @slice
// CHECK-SAME: (%[[X:[a-z0-9]+]]: tensor<8x?xf32>, %[[LO:[a-z0-9]+]]: index)
// CHECK-DAG: %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG: %[[C1:.*]] = arith.constant 1 : index
// CHECK-DAG: %[[C2:.*]] = arith.constant 2 : index
// CHECK-DAG: %[[C8:.*]] = arith.constant 8 : index
// CHECK: %[[N:.*]] = dim %[[X]], 1
// CHECK: = slice %[[X]][%[[C0]], %[[LO]]] [%[[C8]], %[[N]]] [%[[C2]], %[[C1]]] : tensor<8x?xf32> -> tensor<4x?xf32>
fusion.fusion @slice(%x: tensor<8x?xf32>, %lo: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c8 = arith.constant 8 : index
  %n = fusion.dim %x, 1 : tensor<8x?xf32>
  %0 = fusion.slice %x [%c0, %lo] [%c8, %n] [%c2, %c1] : tensor<8x?xf32> -> tensor<4x?xf32>
  fusion.return
}

// CHECK-LABEL: fusion.fusion @pad
// CHECK-SAME: (%[[X:[a-z0-9]+]]: tensor<3x?xbf16>, %[[V:[a-z0-9]+]]: bf16)
// CHECK: = pad %[[X]], %[[V]] low [1, 0] high [2, 5] : tensor<3x?xbf16>, bf16 -> tensor<6x?xbf16>
fusion.fusion @pad(%x: tensor<3x?xbf16>, %v: bf16) {
  %0 = fusion.pad %x, %v low [1, 0] high [2, 5] : tensor<3x?xbf16>, bf16 -> tensor<6x?xbf16>
  fusion.return
}

// CHECK-LABEL: fusion.fusion @cat
// CHECK-SAME: (%[[A:[a-z0-9]+]]: tensor<2x?xf32>, %[[B:[a-z0-9]+]]: tensor<3x?xf32>, %[[C:[a-z0-9]+]]: tensor<?x4xf32>)
// CHECK: = cat %[[A]], %[[B]] dim = 0 : tensor<2x?xf32>, tensor<3x?xf32> -> tensor<5x?xf32>
// CHECK: = cat %[[A]], %[[C]] dim = 0 : tensor<2x?xf32>, tensor<?x4xf32> -> tensor<?x4xf32>
// CHECK: = cat %[[A]], %[[A]] dim = 1 : tensor<2x?xf32>, tensor<2x?xf32> -> tensor<2x?xf32>
fusion.fusion @cat(%a: tensor<2x?xf32>, %b: tensor<3x?xf32>, %c: tensor<?x4xf32>) {
  %0 = fusion.cat %a, %b dim = 0 : tensor<2x?xf32>, tensor<3x?xf32> -> tensor<5x?xf32>
  %1 = fusion.cat %a, %c dim = 0 : tensor<2x?xf32>, tensor<?x4xf32> -> tensor<?x4xf32>
  %2 = fusion.cat %a, %a dim = 1 : tensor<2x?xf32>, tensor<2x?xf32> -> tensor<2x?xf32>
  fusion.return
}

//===----------------------------------------------------------------------===//
// Tensor factories
//===----------------------------------------------------------------------===//

// CHECK-LABEL: fusion.fusion @factories
// CHECK-SAME: (%[[V:[a-z0-9]+]]: f16, %[[N:[a-z0-9]+]]: index, %[[SEED:[a-z0-9]+]]: i64, %[[OFF:[a-z0-9]+]]: i64)
// CHECK: = full %[[V]](%[[N]]) : f16 -> tensor<?x4xf16>
// CHECK: = full %[[V]] : f16 -> tensor<2x4xf16>
// CHECK: %[[START:.*]] = arith.constant 0 : i32
// CHECK: %[[STEP:.*]] = arith.constant 3 : i32
// CHECK: = iota %[[START]], %[[STEP]](%[[N]]) : i32 -> tensor<?xi32>
// CHECK: = iota %[[START]], %[[STEP]] : i32 -> tensor<16xi32>
// CHECK: = rand %[[SEED]], %[[OFF]](%[[N]]) : tensor<?x8xf32>
// CHECK: = randn %[[SEED]], %[[OFF]] : tensor<4x8xbf16>
fusion.fusion @factories(%v: f16, %n: index, %seed: i64, %off: i64) {
  %0 = fusion.full %v (%n) : f16 -> tensor<?x4xf16>
  %1 = fusion.full %v : f16 -> tensor<2x4xf16>
  %start = arith.constant 0 : i32
  %step = arith.constant 3 : i32
  %2 = fusion.iota %start, %step (%n) : i32 -> tensor<?xi32>
  %3 = fusion.iota %start, %step : i32 -> tensor<16xi32>
  %4 = fusion.rand %seed, %off (%n) : tensor<?x8xf32>
  %5 = fusion.randn %seed, %off : tensor<4x8xbf16>
  fusion.return
}

//===----------------------------------------------------------------------===//
// Indexing
//===----------------------------------------------------------------------===//

// CHECK-LABEL: fusion.fusion @indexing
// CHECK-SAME: (%[[X:[a-z0-9]+]]: tensor<?x16xf32>, %[[I:[a-z0-9]+]]: tensor<5xi64>, %[[J:[a-z0-9]+]]: tensor<?x3xi32>)
// CHECK: = index_select %[[X]], %[[I]] dim = 1 : tensor<?x16xf32>, tensor<5xi64> -> tensor<?x5xf32>
// CHECK: = gather %[[X]], %[[J]] dim = 1 : tensor<?x16xf32>, tensor<?x3xi32> -> tensor<?x3xf32>
fusion.fusion @indexing(%x: tensor<?x16xf32>, %i: tensor<5xi64>, %j: tensor<?x3xi32>) {
  %0 = fusion.index_select %x, %i dim = 1 : tensor<?x16xf32>, tensor<5xi64> -> tensor<?x5xf32>
  %1 = fusion.gather %x, %j dim = 1 : tensor<?x16xf32>, tensor<?x3xi32> -> tensor<?x3xf32>
  fusion.return
}

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

// CHECK-LABEL: fusion.fusion @reductions
// CHECK-SAME: (%[[X:[a-z0-9]+]]: tensor<?x4x?xbf16>, %[[I:[a-z0-9]+]]: tensor<6x7xi32>)
// CHECK: = sum %[[X]] [2, 0] : tensor<?x4x?xbf16> -> tensor<4xbf16>
// CHECK: = sum %[[X]] [1] keepdim : tensor<?x4x?xbf16> -> tensor<?x1x?xbf16>
// CHECK: = prod %[[I]] [0, 1] : tensor<6x7xi32> -> tensor<i32>
// CHECK: = max %[[X]] [1] : tensor<?x4x?xbf16> -> tensor<?x?xbf16>
// CHECK: = min %[[I]] [1] keepdim : tensor<6x7xi32> -> tensor<6x1xi32>
// CHECK: = var_mean %[[X]] [2] correction = 1 : tensor<?x4x?xbf16> -> tensor<?x4xbf16>
// CHECK: = var_mean %[[X]] [1, 2] correction = 0 keepdim : tensor<?x4x?xbf16> -> tensor<?x1x1xbf16>
// CHECK: = argmax %[[X]] dim = 1 : tensor<?x4x?xbf16> -> tensor<?x?xi64>
// CHECK: = argmin %[[I]] dim = 0 keepdim : tensor<6x7xi32> -> tensor<1x7xi64>
fusion.fusion @reductions(%x: tensor<?x4x?xbf16>, %i: tensor<6x7xi32>) {
  %0 = fusion.sum %x [2, 0] : tensor<?x4x?xbf16> -> tensor<4xbf16>
  %1 = fusion.sum %x [1] keepdim : tensor<?x4x?xbf16> -> tensor<?x1x?xbf16>
  %2 = fusion.prod %i [0, 1] : tensor<6x7xi32> -> tensor<i32>
  %3 = fusion.max %x [1] : tensor<?x4x?xbf16> -> tensor<?x?xbf16>
  %4 = fusion.min %i [1] keepdim : tensor<6x7xi32> -> tensor<6x1xi32>
  %5:2 = fusion.var_mean %x [2] correction = 1 : tensor<?x4x?xbf16> -> tensor<?x4xbf16>
  %6:2 = fusion.var_mean %x [1, 2] correction = 0 keepdim : tensor<?x4x?xbf16> -> tensor<?x1x1xbf16>
  %7 = fusion.argmax %x dim = 1 : tensor<?x4x?xbf16> -> tensor<?x?xi64>
  %8 = fusion.argmin %i dim = 0 keepdim : tensor<6x7xi32> -> tensor<1x7xi64>
  fusion.return
}

//===----------------------------------------------------------------------===//
// Composites
//===----------------------------------------------------------------------===//

// CHECK-LABEL: fusion.fusion @composites
// CHECK-SAME: (%[[X:[a-z0-9]+]]: tensor<?x?x64xbf16>, %[[W:[a-z0-9]+]]: tensor<64xbf16>, %[[B:[a-z0-9]+]]: tensor<64xbf16>, %[[W2:[a-z0-9]+]]: tensor<?x64xbf16>)
// CHECK: = softmax %[[X]] dim = 2 : tensor<?x?x64xbf16>
// CHECK: = log_softmax %[[X]] dim = 0 : tensor<?x?x64xbf16>
// CHECK: = layer_norm %[[X]] weight(%[[W]] : tensor<64xbf16>) bias(%[[B]] : tensor<64xbf16>) axis = 2 eps = 1.000000e-05 : tensor<?x?x64xbf16>
// CHECK: = layer_norm %[[X]] axis = 2 eps = 9.9999999999999998E-13 : tensor<?x?x64xbf16>
// CHECK: = layer_norm %[[X]] weight(%[[W2]] : tensor<?x64xbf16>) axis = 1 eps = 0.000000e+00 : tensor<?x?x64xbf16>
// CHECK: = layer_norm %[[X]] bias(%[[B]] : tensor<64xbf16>) axis = 2 eps = 1.000000e-05 : tensor<?x?x64xbf16>
// CHECK: = rms_norm %[[X]] weight(%[[W]] : tensor<64xbf16>) axis = 2 eps = 9.9999999999999995E-7 : tensor<?x?x64xbf16>
// CHECK: = rms_norm %[[X]] axis = 1 eps = 9.9999999999999995E-7 : tensor<?x?x64xbf16>
fusion.fusion @composites(%x: tensor<?x?x64xbf16>, %w: tensor<64xbf16>,
                          %b: tensor<64xbf16>, %w2: tensor<?x64xbf16>) {
  %0 = fusion.softmax %x dim = 2 : tensor<?x?x64xbf16>
  %1 = fusion.log_softmax %x dim = 0 : tensor<?x?x64xbf16>
  %2 = fusion.layer_norm %x weight(%w : tensor<64xbf16>) bias(%b : tensor<64xbf16>) axis = 2 eps = 1.0e-5 : tensor<?x?x64xbf16>
  %3 = fusion.layer_norm %x axis = 2 eps = 1.0e-12 : tensor<?x?x64xbf16>
  %4 = fusion.layer_norm %x weight(%w2 : tensor<?x64xbf16>) axis = 1 eps = 0.0 : tensor<?x?x64xbf16>
  %5 = fusion.layer_norm %x bias(%b : tensor<64xbf16>) axis = 2 eps = 1.0e-5 : tensor<?x?x64xbf16>
  %6 = fusion.rms_norm %x weight(%w : tensor<64xbf16>) axis = 2 eps = 1.0e-6 : tensor<?x?x64xbf16>
  %7 = fusion.rms_norm %x axis = 1 eps = 1.0e-6 : tensor<?x?x64xbf16>
  fusion.return
}
