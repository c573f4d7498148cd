// Folders and canonicalization patterns of the definition-level ops. Each
// fusion has a positive case and the nearest case that must not change.
// RUN: fusion-opt %s --canonicalize --split-input-file | FileCheck %s

// A static dim becomes a constant; a dynamic one stays a query.
// CHECK-LABEL: fusion.fusion @dim_static
// CHECK-SAME: (%[[X:[a-z0-9]+]]: tensor<4x?xf32>)
// CHECK-DAG: %[[C4:.*]] = arith.constant 4 : index
// CHECK-DAG: %[[D1:.*]] = dim %[[X]], 1 : tensor<4x?xf32>
// CHECK-NOT: dim %[[X]], 0
// CHECK: return %[[C4]], %[[D1]] : index, index
fusion.fusion @dim_static(%x: tensor<4x?xf32>) -> (index, index) {
  %0 = fusion.dim %x, 0 : tensor<4x?xf32>
  %1 = fusion.dim %x, 1 : tensor<4x?xf32>
  fusion.return %0, %1 : index, index
}

// -----

// CHECK-LABEL: fusion.fusion @cast_same_type
// CHECK-SAME: (%[[X:[a-z0-9]+]]: tensor<?xbf16>)
// CHECK-NEXT: return %[[X]] : tensor<?xbf16>
fusion.fusion @cast_same_type(%x: tensor<?xbf16>) -> tensor<?xbf16> {
  %0 = fusion.cast %x : tensor<?xbf16> to tensor<?xbf16>
  fusion.return %0 : tensor<?xbf16>
}

// -----

// Widening and narrowing back to the original type is the identity.
// CHECK-LABEL: fusion.fusion @cast_round_trip
// CHECK-SAME: (%[[H:[a-z0-9]+]]: tensor<?xf16>, %[[E4:[a-z0-9]+]]: tensor<?xf8E4M3FN>, %[[E5:[a-z0-9]+]]: tensor<?xf8E5M2>, %[[B:[a-z0-9]+]]: tensor<?xbf16>, %[[I8:[a-z0-9]+]]: tensor<?xi8>, %[[I16:[a-z0-9]+]]: i16, %[[P:[a-z0-9]+]]: tensor<?xi1>)
// CHECK-NOT: cast
// CHECK: return %[[H]], %[[E4]], %[[E5]], %[[B]], %[[I8]], %[[I8]], %[[I16]], %[[P]]
fusion.fusion @cast_round_trip(%h: tensor<?xf16>, %e4: tensor<?xf8E4M3FN>,
                               %e5: tensor<?xf8E5M2>, %b: tensor<?xbf16>,
                               %i8: tensor<?xi8>, %i16: i16, %p: tensor<?xi1>)
    -> (tensor<?xf16>, tensor<?xf8E4M3FN>, tensor<?xf8E5M2>, tensor<?xbf16>,
        tensor<?xi8>, tensor<?xi8>, i16, tensor<?xi1>) {
  %0 = fusion.cast %h : tensor<?xf16> to tensor<?xf32>
  %1 = fusion.cast %0 : tensor<?xf32> to tensor<?xf16>
  %2 = fusion.cast %e4 : tensor<?xf8E4M3FN> to tensor<?xf16>
  %3 = fusion.cast %2 : tensor<?xf16> to tensor<?xf8E4M3FN>
  %4 = fusion.cast %e5 : tensor<?xf8E5M2> to tensor<?xbf16>
  %5 = fusion.cast %4 : tensor<?xbf16> to tensor<?xf8E5M2>
  %6 = fusion.cast %b : tensor<?xbf16> to tensor<?xf64>
  %7 = fusion.cast %6 : tensor<?xf64> to tensor<?xbf16>
  %8 = fusion.cast %i8 : tensor<?xi8> to tensor<?xi64>
  %9 = fusion.cast %8 : tensor<?xi64> to tensor<?xi8>
  %10 = fusion.cast %i8 : tensor<?xi8> to tensor<?xbf16>
  %11 = fusion.cast %10 : tensor<?xbf16> to tensor<?xi8>
  %12 = fusion.cast %i16 : i16 to f32
  %13 = fusion.cast %12 : f32 to i16
  %14 = fusion.cast %p : tensor<?xi1> to tensor<?xf8E4M3FN>
  %15 = fusion.cast %14 : tensor<?xf8E4M3FN> to tensor<?xi1>
  fusion.return %1, %3, %5, %7, %9, %11, %13, %15
      : tensor<?xf16>, tensor<?xf8E4M3FN>, tensor<?xf8E5M2>, tensor<?xbf16>,
        tensor<?xi8>, tensor<?xi8>, i16, tensor<?xi1>
}

// -----

// Narrowing first rounds, and a value the middle type cannot hold exactly
// changes: these pairs stay.
// CHECK-LABEL: fusion.fusion @cast_lossy_round_trip
// CHECK-SAME: (%[[F:[a-z0-9]+]]: tensor<?xf32>, %[[B:[a-z0-9]+]]: tensor<?xbf16>, %[[I32:[a-z0-9]+]]: tensor<?xi32>, %[[I16:[a-z0-9]+]]: i16, %[[I8:[a-z0-9]+]]: i8)
// f32 -> f16 -> f32 rounds.
// CHECK: %[[A0:.*]] = cast %[[F]] : tensor<?xf32> to tensor<?xf16>
// CHECK: %[[A1:.*]] = cast %[[A0]] : tensor<?xf16> to tensor<?xf32>
// bf16 has a wider exponent range than f16.
// CHECK: %[[B0:.*]] = cast %[[B]] : tensor<?xbf16> to tensor<?xf16>
// CHECK: %[[B1:.*]] = cast %[[B0]] : tensor<?xf16> to tensor<?xbf16>
// i32 -> i8 -> i32 wraps.
// CHECK: %[[C0:.*]] = cast %[[I32]] : tensor<?xi32> to tensor<?xi8>
// CHECK: %[[C1:.*]] = cast %[[C0]] : tensor<?xi8> to tensor<?xi32>
// f16 holds integers exactly only up to 2^11.
// CHECK: %[[D0:.*]] = cast %[[I16]] : i16 to f16
// CHECK: %[[D1:.*]] = cast %[[D0]] : f16 to i16
// f32 -> i32 -> f32 truncates the fraction.
// CHECK: %[[E0:.*]] = cast %[[F]] : tensor<?xf32> to tensor<?xi32>
// CHECK: %[[E1:.*]] = cast %[[E0]] : tensor<?xi32> to tensor<?xf32>
// An 8-bit float holds only 4 bits of an i8.
// CHECK: %[[G0:.*]] = cast %[[I8]] : i8 to f8E4M3FN
// CHECK: %[[G1:.*]] = cast %[[G0]] : f8E4M3FN to i8
// Widening, then narrowing to another type than the original.
// CHECK: %[[H0:.*]] = cast %[[B]] : tensor<?xbf16> to tensor<?xf32>
// CHECK: %[[H1:.*]] = cast %[[H0]] : tensor<?xf32> to tensor<?xf16>
// CHECK: return %[[A1]], %[[B1]], %[[C1]], %[[D1]], %[[E1]], %[[G1]], %[[H1]]
fusion.fusion @cast_lossy_round_trip(%f: tensor<?xf32>, %b: tensor<?xbf16>,
                                     %i32: tensor<?xi32>, %i16: i16, %i8: i8)
    -> (tensor<?xf32>, tensor<?xbf16>, tensor<?xi32>, i16, tensor<?xf32>, i8,
        tensor<?xf16>) {
  %0 = fusion.cast %f : tensor<?xf32> to tensor<?xf16>
  %1 = fusion.cast %0 : tensor<?xf16> to tensor<?xf32>
  %2 = fusion.cast %b : tensor<?xbf16> to tensor<?xf16>
  %3 = fusion.cast %2 : tensor<?xf16> to tensor<?xbf16>
  %4 = fusion.cast %i32 : tensor<?xi32> to tensor<?xi8>
  %5 = fusion.cast %4 : tensor<?xi8> to tensor<?xi32>
  %6 = fusion.cast %i16 : i16 to f16
  %7 = fusion.cast %6 : f16 to i16
  %8 = fusion.cast %f : tensor<?xf32> to tensor<?xi32>
  %9 = fusion.cast %8 : tensor<?xi32> to tensor<?xf32>
  %10 = fusion.cast %i8 : i8 to f8E4M3FN
  %11 = fusion.cast %10 : f8E4M3FN to i8
  %12 = fusion.cast %b : tensor<?xbf16> to tensor<?xf32>
  %13 = fusion.cast %12 : tensor<?xf32> to tensor<?xf16>
  fusion.return %1, %3, %5, %7, %9, %11, %13
      : tensor<?xf32>, tensor<?xbf16>, tensor<?xi32>, i16, tensor<?xf32>, i8,
        tensor<?xf16>
}

// -----

// CHECK-LABEL: fusion.fusion @where_same_operands
// CHECK-SAME: (%[[P:[a-z0-9]+]]: tensor<?xi1>, %[[A:[a-z0-9]+]]: tensor<?xf32>)
// CHECK-NEXT: return %[[A]] : tensor<?xf32>
fusion.fusion @where_same_operands(%p: tensor<?xi1>, %a: tensor<?xf32>) -> tensor<?xf32> {
  %0 = fusion.where %p, %a, %a : tensor<?xi1>, tensor<?xf32>
  fusion.return %0 : tensor<?xf32>
}

// -----

// A constant condition, scalar or splat, picks one side.
// CHECK-LABEL: fusion.fusion @where_constant_cond
// CHECK-SAME: (%[[A:[a-z0-9]+]]: f32, %[[B:[a-z0-9]+]]: f32, %[[X:[a-z0-9]+]]: tensor<4xf32>, %[[Y:[a-z0-9]+]]: tensor<4xf32>)
// CHECK-NOT: where
// CHECK: return %[[A]], %[[B]], %[[X]], %[[Y]] : f32, f32, tensor<4xf32>, tensor<4xf32>
fusion.fusion @where_constant_cond(%a: f32, %b: f32, %x: tensor<4xf32>, %y: tensor<4xf32>)
    -> (f32, f32, tensor<4xf32>, tensor<4xf32>) {
  %true = arith.constant true
  %false = arith.constant false
  %all = arith.constant dense<true> : tensor<4xi1>
  %none = arith.constant dense<false> : tensor<4xi1>
  %0 = fusion.where %true, %a, %b : i1, f32
  %1 = fusion.where %false, %a, %b : i1, f32
  %2 = fusion.where %all, %x, %y : tensor<4xi1>, tensor<4xf32>
  %3 = fusion.where %none, %x, %y : tensor<4xi1>, tensor<4xf32>
  fusion.return %0, %1, %2, %3 : f32, f32, tensor<4xf32>, tensor<4xf32>
}

// -----

// A mixed constant condition selects per element: it stays.
// CHECK-LABEL: fusion.fusion @where_mixed_cond
// CHECK: %[[COND:.*]] = arith.constant dense<[true, false]> : tensor<2xi1>
// CHECK: %[[W:.*]] = where %[[COND]], %{{.*}}, %{{.*}} : tensor<2xi1>, tensor<2xf32>
// CHECK: return %[[W]]
fusion.fusion @where_mixed_cond(%x: tensor<2xf32>, %y: tensor<2xf32>) -> tensor<2xf32> {
  %cond = arith.constant dense<[true, false]> : tensor<2xi1>
  %0 = fusion.where %cond, %x, %y : tensor<2xi1>, tensor<2xf32>
  fusion.return %0 : tensor<2xf32>
}

// -----

// CHECK-LABEL: fusion.fusion @permute_identity
// CHECK-SAME: (%[[X:[a-z0-9]+]]: tensor<?x4xf32>)
// CHECK: %[[P:.*]] = permute %[[X]] [1, 0] : tensor<?x4xf32> -> tensor<4x?xf32>
// CHECK-NOT: permute
// CHECK: return %[[X]], %[[P]] : tensor<?x4xf32>, tensor<4x?xf32>
fusion.fusion @permute_identity(%x: tensor<?x4xf32>) -> (tensor<?x4xf32>, tensor<4x?xf32>) {
  %0 = fusion.permute %x [0, 1] : tensor<?x4xf32> -> tensor<?x4xf32>
  %1 = fusion.permute %x [1, 0] : tensor<?x4xf32> -> tensor<4x?xf32>
  fusion.return %0, %1 : tensor<?x4xf32>, tensor<4x?xf32>
}

// -----

// A reshape to the same static type is the identity, and so is one whose
// dynamic sizes are the input's own; with other sizes it may regroup the
// elements (a 2x6 input viewed as 6x2), so it stays.
// CHECK-LABEL: fusion.fusion @reshape_same_type
// CHECK-SAME: (%[[X:[a-z0-9]+]]: tensor<2x3xf32>, %[[Y:[a-z0-9]+]]: tensor<?x?xf32>)
// CHECK-DAG: %[[D0:.*]] = dim %[[Y]], 0
// CHECK-DAG: %[[D1:.*]] = dim %[[Y]], 1
// CHECK: %[[R:.*]] = reshape %[[Y]](%[[D1]], %[[D0]]) : tensor<?x?xf32> -> tensor<?x?xf32>
// CHECK-NOT: reshape
// CHECK: return %[[X]], %[[Y]], %[[R]] : tensor<2x3xf32>, tensor<?x?xf32>, tensor<?x?xf32>
fusion.fusion @reshape_same_type(%x: tensor<2x3xf32>, %y: tensor<?x?xf32>)
    -> (tensor<2x3xf32>, tensor<?x?xf32>, tensor<?x?xf32>) {
  %0 = fusion.reshape %x : tensor<2x3xf32> -> tensor<2x3xf32>
  %d0 = fusion.dim %y, 0 : tensor<?x?xf32>
  %d1 = fusion.dim %y, 1 : tensor<?x?xf32>
  %1 = fusion.reshape %y (%d0, %d1) : tensor<?x?xf32> -> tensor<?x?xf32>
  %2 = fusion.reshape %y (%d1, %d0) : tensor<?x?xf32> -> tensor<?x?xf32>
  fusion.return %0, %1, %2 : tensor<2x3xf32>, tensor<?x?xf32>, tensor<?x?xf32>
}

// -----

// alpha = 1 is the default: it is dropped; any other alpha stays.
// CHECK-LABEL: fusion.fusion @add_unit_alpha
// CHECK-SAME: (%[[A:[a-z0-9]+]]: tensor<?xf32>, %[[B:[a-z0-9]+]]: tensor<?xf32>)
// CHECK: %[[S0:.*]] = add %[[A]], %[[B]] : tensor<?xf32>
// CHECK: %[[S1:.*]] = add %[[A]], %[[B]] alpha = 2.000000e+00 : tensor<?xf32>
// CHECK: return %[[S0]], %[[S1]]
fusion.fusion @add_unit_alpha(%a: tensor<?xf32>, %b: tensor<?xf32>) -> (tensor<?xf32>, tensor<?xf32>) {
  %0 = fusion.add %a, %b alpha = 1.0 : tensor<?xf32>
  %1 = fusion.add %a, %b alpha = 2.0 : tensor<?xf32>
  fusion.return %0, %1 : tensor<?xf32>, tensor<?xf32>
}

// -----

// broadcast_in_dim with identity dims onto its own static type is the identity.
// CHECK-LABEL: fusion.fusion @broadcast_identity_static
// CHECK-SAME: (%[[X:[a-z0-9]+]]: tensor<1x4xf32>)
// CHECK-NEXT: return %[[X]] : tensor<1x4xf32>
fusion.fusion @broadcast_identity_static(%x: tensor<1x4xf32>) -> tensor<1x4xf32> {
  %0 = fusion.broadcast_in_dim %x [0, 1] : tensor<1x4xf32> -> tensor<1x4xf32>
  fusion.return %0 : tensor<1x4xf32>
}

// -----

// With dynamic dims it is the identity only when every dynamic size is the
// input's own; another size may broadcast an input dim of size 1 at run time.
// CHECK-LABEL: fusion.fusion @broadcast_identity_dynamic
// CHECK-SAME: (%[[X:[a-z0-9]+]]: tensor<?x?xf32>, %[[N:[a-z0-9]+]]: index)
// CHECK: %[[D0:.*]] = dim %[[X]], 0
// CHECK: %[[D1:.*]] = dim %[[X]], 1
// CHECK: %[[B1:.*]] = broadcast_in_dim %[[X]] [0, 1](%[[D0]], %[[N]])
// CHECK: %[[B2:.*]] = broadcast_in_dim %[[X]] [0, 1](%[[D1]], %[[D0]])
// CHECK-NOT: broadcast_in_dim
// CHECK: return %[[X]], %[[B1]], %[[B2]]
fusion.fusion @broadcast_identity_dynamic(%x: tensor<?x?xf32>, %n: index)
    -> (tensor<?x?xf32>, tensor<?x?xf32>, tensor<?x?xf32>) {
  %d0 = fusion.dim %x, 0 : tensor<?x?xf32>
  %d1 = fusion.dim %x, 1 : tensor<?x?xf32>
  %0 = fusion.broadcast_in_dim %x [0, 1] (%d0, %d1) : tensor<?x?xf32> -> tensor<?x?xf32>
  %1 = fusion.broadcast_in_dim %x [0, 1] (%d0, %n) : tensor<?x?xf32> -> tensor<?x?xf32>
  %2 = fusion.broadcast_in_dim %x [0, 1] (%d1, %d0) : tensor<?x?xf32> -> tensor<?x?xf32>
  fusion.return %0, %1, %2 : tensor<?x?xf32>, tensor<?x?xf32>, tensor<?x?xf32>
}

// -----

// A broadcast that adds dims or changes sizes is not an identity.
// CHECK-LABEL: fusion.fusion @broadcast_not_identity
// CHECK-SAME: (%[[X:[a-z0-9]+]]: tensor<4xf32>, %[[Y:[a-z0-9]+]]: tensor<1xf32>)
// CHECK: %[[B0:.*]] = broadcast_in_dim %[[X]] [1] : tensor<4xf32> -> tensor<1x4xf32>
// CHECK: %[[B1:.*]] = broadcast_in_dim %[[Y]] [0] : tensor<1xf32> -> tensor<4xf32>
// CHECK: return %[[B0]], %[[B1]]
fusion.fusion @broadcast_not_identity(%x: tensor<4xf32>, %y: tensor<1xf32>)
    -> (tensor<1x4xf32>, tensor<4xf32>) {
  %0 = fusion.broadcast_in_dim %x [1] : tensor<4xf32> -> tensor<1x4xf32>
  %1 = fusion.broadcast_in_dim %y [0] : tensor<1xf32> -> tensor<4xf32>
  fusion.return %0, %1 : tensor<1x4xf32>, tensor<4xf32>
}

// -----

// expand follows the same rule as broadcast_in_dim.
// CHECK-LABEL: fusion.fusion @expand_identity
// CHECK-SAME: (%[[X:[a-z0-9]+]]: tensor<?x1xf32>, %[[S:[a-z0-9]+]]: tensor<1x3xf32>, %[[N:[a-z0-9]+]]: index)
// CHECK-NOT: dim
// CHECK: %[[E:.*]] = expand %[[X]](%[[N]]) : tensor<?x1xf32> -> tensor<?x1xf32>
// CHECK-NOT: expand
// CHECK: return %[[X]], %[[E]], %[[S]]
fusion.fusion @expand_identity(%x: tensor<?x1xf32>, %s: tensor<1x3xf32>, %n: index)
    -> (tensor<?x1xf32>, tensor<?x1xf32>, tensor<1x3xf32>) {
  %d0 = fusion.dim %x, 0 : tensor<?x1xf32>
  %0 = fusion.expand %x (%d0) : tensor<?x1xf32> -> tensor<?x1xf32>
  %1 = fusion.expand %x (%n) : tensor<?x1xf32> -> tensor<?x1xf32>
  %2 = fusion.expand %s : tensor<1x3xf32> -> tensor<1x3xf32>
  fusion.return %0, %1, %2 : tensor<?x1xf32>, tensor<?x1xf32>, tensor<1x3xf32>
}
