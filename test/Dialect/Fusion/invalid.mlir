// Verifier diagnostics of the definition-level ops: one split per error, each
// checking that the message names the values at fault. Element-wise shape
// errors use the generic syntax: the custom syntax forces equal types.
// RUN: fusion-opt %s -split-input-file -verify-diagnostics

//===----------------------------------------------------------------------===//
// The container and its terminator
//===----------------------------------------------------------------------===//

// Inputs are ranked tensors or scalars.
// expected-error @+1 {{'fusion.fusion' op input 1 has type 'memref<4xf32>'; inputs are ranked tensors or scalars}}
fusion.fusion @memref_input(%a: f32, %b: memref<4xf32>) {
  fusion.return
}

// -----

// Unranked tensors are not inputs either.
// expected-error @+1 {{'fusion.fusion' op input 0 has type 'tensor<*xf32>'; inputs are ranked tensors or scalars}}
fusion.fusion @unranked_input(%a: tensor<*xf32>) {
  fusion.return
}

// -----

// Outputs are ranked tensors or scalars.
// expected-error @+1 {{'fusion.fusion' op result 1 has type 'memref<4xf32>'; results are ranked tensors or scalars}}
fusion.fusion @memref_result(%a: f32) -> (f32, memref<4xf32>) {
  %m = builtin.unrealized_conversion_cast %a : f32 to memref<4xf32>
  fusion.return %a, %m : f32, memref<4xf32>
}

// -----

// Element types are the dialect's: no complex numbers ...
// expected-error @+1 {{'fusion.fusion' op input 0 has element type 'complex<f32>'; element types are f64, f32, f16, bf16, i64, i32, i16, i8, i1, f8E4M3FN and f8E5M2 (and index for scalars)}}
fusion.fusion @complex_input(%a: tensor<4xcomplex<f32>>) {
  fusion.return
}

// -----

// ... no odd integer widths, even as scalars ...
// expected-error-re @+1 {{'fusion.fusion' op input 1 has element type 'i3'; element types are {{.*}}}}
fusion.fusion @i3_input(%a: f32, %b: i3) {
  fusion.return
}

// -----

// ... and no index tensors (index is for scalar sizes).
// expected-error-re @+1 {{'fusion.fusion' op result 0 has element type 'index'; element types are {{.*}}}}
fusion.fusion @index_tensor_result(%a: f32) -> tensor<4xindex> {
  %m = builtin.unrealized_conversion_cast %a : f32 to tensor<4xindex>
  fusion.return %m : tensor<4xindex>
}

// -----

// Entry block arguments match the signature (checked by the function
// interface, before the fusion's own verifier).
// expected-error @+1 {{type of entry block argument #0('f32') must match the type of the corresponding argument in function signature('tensor<4xf32>')}}
"fusion.fusion"() <{function_type = (tensor<4xf32>) -> (), sym_name = "block_arg_type"}> ({
^bb0(%arg0: f32):
  "fusion.return"() : () -> ()
}) : () -> ()

// -----

fusion.fusion @return_count(%a: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  // expected-error @+1 {{'fusion.return' op returns 1 values but the fusion has 2 results}}
  fusion.return %a : tensor<4xf32>
}

// -----

fusion.fusion @return_type(%a: tensor<?xf32>, %b: tensor<4xf32>) -> (tensor<?xf32>, tensor<?xf32>) {
  // expected-error @+1 {{'fusion.return' op value 1 has type 'tensor<4xf32>' but the fusion returns 'tensor<?xf32>'}}
  fusion.return %a, %b : tensor<?xf32>, tensor<4xf32>
}

// -----

func.func @return_outside_fusion(%a: f32) {
  // expected-error @+1 {{'fusion.return' op expects parent op 'fusion.fusion'}}
  fusion.return %a : f32
}

//===----------------------------------------------------------------------===//
// Size queries
//===----------------------------------------------------------------------===//

// -----

fusion.fusion @dim_out_of_range(%a: tensor<4x?xf32>) -> index {
  // expected-error @+1 {{'fusion.dim' op dim 2 is out of range [0, 2)}}
  %0 = fusion.dim %a, 2 : tensor<4x?xf32>
  fusion.return %0 : index
}

// -----

fusion.fusion @dim_negative(%a: tensor<4x?xf32>) -> index {
  // expected-error @+1 {{'fusion.dim' op dim -1 is out of range [0, 2)}}
  %0 = fusion.dim %a, -1 : tensor<4x?xf32>
  fusion.return %0 : index
}

//===----------------------------------------------------------------------===//
// Element-wise ops
//===----------------------------------------------------------------------===//

// -----

// Static dims of operands must agree: broadcasting is explicit.
fusion.fusion @elementwise_dim(%a: tensor<4x8xf32>, %b: tensor<4x6xf32>) {
  // expected-error @+1 {{'fusion.add' op operand 1 dim 1 is 6 but operand 0 dim 1 is 8; broadcasting is explicit (fusion.broadcast_in_dim)}}
  %0 = "fusion.add"(%a, %b) : (tensor<4x8xf32>, tensor<4x6xf32>) -> tensor<4x8xf32>
  fusion.return
}

// -----

// The result's dims are checked like the operands'.
fusion.fusion @elementwise_result_dim(%a: tensor<?x8xf32>) {
  // expected-error @+1 {{'fusion.exp' op result 0 dim 1 is 9 but operand 0 dim 1 is 8}}
  %0 = "fusion.exp"(%a) : (tensor<?x8xf32>) -> tensor<?x9xf32>
  fusion.return
}

// -----

fusion.fusion @elementwise_rank(%a: tensor<4xf32>, %b: tensor<1x4xf32>) {
  // expected-error @+1 {{'fusion.mul' op operand 1 has rank 2 but operand 0 has rank 1; broadcasting is explicit (fusion.broadcast_in_dim)}}
  %0 = "fusion.mul"(%a, %b) : (tensor<4xf32>, tensor<1x4xf32>) -> tensor<4xf32>
  fusion.return
}

// -----

fusion.fusion @elementwise_scalar_tensor(%a: tensor<4xf32>, %s: f32) {
  // expected-error @+1 {{'fusion.sub' op operand 1 is a scalar but operand 0 is a tensor; broadcast scalars with fusion.broadcast_in_dim}}
  %0 = "fusion.sub"(%a, %s) : (tensor<4xf32>, f32) -> tensor<4xf32>
  fusion.return
}

// -----

// A scalar condition does not select between tensors.
fusion.fusion @where_scalar_cond(%p: i1, %a: tensor<4xf32>) {
  // expected-error @+1 {{'fusion.where' op operand 1 is a tensor but operand 0 is a scalar}}
  %0 = fusion.where %p, %a, %a : i1, tensor<4xf32>
  fusion.return
}

// -----

fusion.fusion @where_cond_dim(%p: tensor<3xi1>, %a: tensor<4xf32>) {
  // expected-error @+1 {{'fusion.where' op operand 1 dim 0 is 4 but operand 0 dim 0 is 3}}
  %0 = fusion.where %p, %a, %a : tensor<3xi1>, tensor<4xf32>
  fusion.return
}

// -----

// Element types are not promoted implicitly.
fusion.fusion @elementwise_element_type(%a: tensor<4xf32>, %b: tensor<4xf16>) {
  // expected-error @+1 {{'fusion.add' op operand 1 element type 'f16' differs from operand 0 element type 'f32'; insert a fusion.cast}}
  %0 = "fusion.add"(%a, %b) : (tensor<4xf32>, tensor<4xf16>) -> tensor<4xf32>
  fusion.return
}

// -----

fusion.fusion @elementwise_result_element_type(%a: f32) {
  // expected-error @+1 {{'fusion.neg' op result 0 element type 'f64' differs from operand 0 element type 'f32'; insert a fusion.cast}}
  %0 = "fusion.neg"(%a) : (f32) -> f64
  fusion.return
}

// -----

// A dynamic and a static size agree at run time, but an op of one type
// needs one spelling of it.
fusion.fusion @elementwise_dynamic_vs_static(%a: tensor<4xf32>, %b: tensor<?xf32>) {
  // expected-error @+1 {{'fusion.fma' op operand 2 has type 'tensor<?xf32>' but operand 0 has type 'tensor<4xf32>'; all operands and results of fusion.fma have one type}}
  %0 = "fusion.fma"(%a, %a, %b) : (tensor<4xf32>, tensor<4xf32>, tensor<?xf32>) -> tensor<4xf32>
  fusion.return
}

// -----

// Operands of a comparison have one type; the message names them.
fusion.fusion @compare_operand_types(%a: tensor<4xf32>, %b: tensor<4xf16>) {
  // expected-error @+1 {{'fusion.eq' op failed to verify that all of {lhs, rhs} have same type}}
  %0 = "fusion.eq"(%a, %b) : (tensor<4xf32>, tensor<4xf16>) -> tensor<4xi1>
  fusion.return
}

// -----

fusion.fusion @where_branch_types(%p: tensor<4xi1>, %a: tensor<4xf32>, %b: tensor<4xi32>) {
  // expected-error @+1 {{'fusion.where' op failed to verify that all of {lhs, rhs, result} have same type}}
  %0 = "fusion.where"(%p, %a, %b) : (tensor<4xi1>, tensor<4xf32>, tensor<4xi32>) -> tensor<4xf32>
  fusion.return
}

// -----

// Transcendental ops take floats only.
fusion.fusion @exp_integer(%a: tensor<4xi32>) {
  // expected-error @+1 {{'fusion.exp' op operand #0 must be ranked tensor of 64-bit float or 32-bit float or 16-bit float or bfloat16 type values or 64-bit float or 32-bit float or 16-bit float or bfloat16 type, but got 'tensor<4xi32>'}}
  %0 = fusion.exp %a : tensor<4xi32>
  fusion.return
}

// -----

// 8-bit floats are storage types: they are cast, not computed on.
fusion.fusion @add_f8(%a: tensor<4xf8E4M3FN>) {
  // expected-error-re @+1 {{'fusion.add' op operand #0 must be ranked tensor of {{.*}}, but got 'tensor<4xf8E4M3FN>'}}
  %0 = fusion.add %a, %a : tensor<4xf8E4M3FN>
  fusion.return
}

// -----

// Arithmetic is not defined on i1; logical ops are.
fusion.fusion @add_i1(%a: tensor<4xi1>) {
  // expected-error-re @+1 {{'fusion.add' op operand #0 must be ranked tensor of {{.*}}, but got 'tensor<4xi1>'}}
  %0 = fusion.add %a, %a : tensor<4xi1>
  fusion.return
}

// -----

fusion.fusion @bitwise_float(%a: f32) {
  // expected-error @+1 {{'fusion.bitwise_and' op operand #0 must be ranked tensor of 64-bit signless integer or 32-bit signless integer or 16-bit signless integer or 8-bit signless integer or 1-bit signless integer values or 64-bit signless integer or 32-bit signless integer or 16-bit signless integer or 8-bit signless integer or 1-bit signless integer, but got 'f32'}}
  %0 = fusion.bitwise_and %a, %a : f32
  fusion.return
}

// -----

fusion.fusion @logical_not_int(%a: tensor<4xi8>) {
  // expected-error @+1 {{'fusion.logical_not' op operand #0 must be ranked tensor of 1-bit signless integer values or 1-bit signless integer, but got 'tensor<4xi8>'}}
  %0 = fusion.logical_not %a : tensor<4xi8>
  fusion.return
}

// -----

fusion.fusion @where_int_cond(%p: tensor<4xi8>, %a: tensor<4xf32>) {
  // expected-error @+1 {{'fusion.where' op operand #0 must be ranked tensor of 1-bit signless integer values or 1-bit signless integer, but got 'tensor<4xi8>'}}
  %0 = fusion.where %p, %a, %a : tensor<4xi8>, tensor<4xf32>
  fusion.return
}

// -----

// A comparison's result is exactly the operands' shape with i1 elements (a
// dynamic size where the operands have a static one is not).
fusion.fusion @compare_result(%a: tensor<4xf32>) {
  // expected-error @+1 {{'fusion.lt' op failed to verify that result is the operands' shape with i1 elements}}
  %0 = "fusion.lt"(%a, %a) : (tensor<4xf32>, tensor<4xf32>) -> tensor<?xi1>
  fusion.return
}

// -----

fusion.fusion @isnan_result(%a: tensor<4xf32>) {
  // expected-error @+1 {{'fusion.isnan' op failed to verify that result is the operand's shape with i1 elements}}
  %0 = "fusion.isnan"(%a) : (tensor<4xf32>) -> tensor<?xi1>
  fusion.return
}

// -----

// Index values are sizes, not data.
fusion.fusion @add_index(%a: index) {
  // expected-error-re @+1 {{'fusion.add' op operand #0 must be {{.*}}, but got 'index'}}
  %0 = fusion.add %a, %a : index
  fusion.return
}

// -----

// A cast converts elements; it never changes the shape.
fusion.fusion @cast_shape(%a: tensor<4xf32>) {
  // expected-error @+1 {{'fusion.cast' op result 0 dim 0 is 8 but operand 0 dim 0 is 4}}
  %0 = fusion.cast %a : tensor<4xf32> to tensor<8xf16>
  fusion.return
}

// -----

// Not even from a dynamic to a static size.
fusion.fusion @cast_refines_shape(%a: tensor<?x4xf32>) {
  // expected-error @+1 {{'fusion.cast' op changes the shape from 'tensor<?x4xf32>' to 'tensor<2x4xf16>'; it converts element types only}}
  %0 = fusion.cast %a : tensor<?x4xf32> to tensor<2x4xf16>
  fusion.return
}

// -----

fusion.fusion @cast_rank(%a: tensor<4xf32>) {
  // expected-error @+1 {{'fusion.cast' op result 0 has rank 2 but operand 0 has rank 1}}
  %0 = fusion.cast %a : tensor<4xf32> to tensor<4x1xf32>
  fusion.return
}

// -----

fusion.fusion @cast_scalar_to_tensor(%a: f32) {
  // expected-error @+1 {{'fusion.cast' op result 0 is a tensor but operand 0 is a scalar}}
  %0 = fusion.cast %a : f32 to tensor<1xf32>
  fusion.return
}

// -----

fusion.fusion @cast_to_index(%a: i64) {
  // expected-error-re @+1 {{'fusion.cast' op result #0 must be {{.*}}, but got 'index'}}
  %0 = fusion.cast %a : i64 to index
  fusion.return
}

// -----

fusion.fusion @gelu_integer(%a: tensor<4xi32>) {
  // expected-error @+1 {{'fusion.gelu' op operand #0 must be ranked tensor of 64-bit float or 32-bit float or 16-bit float or bfloat16 type values or 64-bit float or 32-bit float or 16-bit float or bfloat16 type, but got 'tensor<4xi32>'}}
  %0 = fusion.gelu %a tanh : tensor<4xi32>
  fusion.return
}

//===----------------------------------------------------------------------===//
// broadcast_in_dim and expand
//===----------------------------------------------------------------------===//

// -----

// Only size-1 dims broadcast.
fusion.fusion @broadcast_non_unit(%a: tensor<3xf32>) {
  // expected-error @+1 {{'fusion.broadcast_in_dim' op operand dim 0 (size 3) cannot broadcast to result dim 1 (size 4)}}
  %0 = fusion.broadcast_in_dim %a [1] : tensor<3xf32> -> tensor<2x4xf32>
  fusion.return
}

// -----

fusion.fusion @broadcast_dims_count(%a: tensor<3xf32>) {
  // expected-error @+1 {{'fusion.broadcast_in_dim' op has 2 dims but the operand has rank 1}}
  %0 = fusion.broadcast_in_dim %a [0, 1] : tensor<3xf32> -> tensor<3x3xf32>
  fusion.return
}

// -----

fusion.fusion @broadcast_dims_order(%a: tensor<3x3xf32>) {
  // expected-error @+1 {{'fusion.broadcast_in_dim' op dims must be strictly increasing, got 0 after 1}}
  %0 = fusion.broadcast_in_dim %a [1, 0] : tensor<3x3xf32> -> tensor<3x3xf32>
  fusion.return
}

// -----

fusion.fusion @broadcast_dim_out_of_range(%a: tensor<3xf32>) {
  // expected-error @+1 {{'fusion.broadcast_in_dim' op mapped dim 2 is out of range [0, 2)}}
  %0 = fusion.broadcast_in_dim %a [2] : tensor<3xf32> -> tensor<2x3xf32>
  fusion.return
}

// -----

// One size operand per dynamic result dim.
fusion.fusion @broadcast_sizes(%a: tensor<3xf32>, %n: index) {
  // expected-error @+1 {{'fusion.broadcast_in_dim' op result type 'tensor<?x?x3xf32>' has 2 dynamic dims but 1 size operands were given}}
  %0 = fusion.broadcast_in_dim %a [2] (%n) : tensor<3xf32> -> tensor<?x?x3xf32>
  fusion.return
}

// -----

fusion.fusion @broadcast_element_type(%a: f32) {
  // expected-error @+1 {{'fusion.broadcast_in_dim' op operand element type 'f32' differs from result element type 'f16'; insert a fusion.cast}}
  %0 = fusion.broadcast_in_dim %a [] : f32 -> tensor<2xf16>
  fusion.return
}

// -----

fusion.fusion @expand_non_unit(%a: tensor<2x1xf32>) {
  // expected-error @+1 {{'fusion.expand' op operand dim 0 (size 2) can only expand from size 1 (to 4)}}
  %0 = fusion.expand %a : tensor<2x1xf32> -> tensor<4x5xf32>
  fusion.return
}

// -----

fusion.fusion @expand_rank(%a: tensor<1xf32>) {
  // expected-error @+1 {{'fusion.expand' op operand rank 1 differs from result rank 2}}
  %0 = fusion.expand %a : tensor<1xf32> -> tensor<3x3xf32>
  fusion.return
}

// -----

fusion.fusion @expand_sizes(%a: tensor<1xf32>, %n: index) {
  // expected-error @+1 {{'fusion.expand' op result type 'tensor<3xf32>' has 0 dynamic dims but 1 size operands were given}}
  %0 = fusion.expand %a (%n) : tensor<1xf32> -> tensor<3xf32>
  fusion.return
}

// -----

fusion.fusion @expand_element_type(%a: tensor<1xf32>) {
  // expected-error @+1 {{'fusion.expand' op operand element type 'f32' differs from result element type 'bf16'}}
  %0 = fusion.expand %a : tensor<1xf32> -> tensor<3xbf16>
  fusion.return
}

//===----------------------------------------------------------------------===//
// reshape, permute, squeeze
//===----------------------------------------------------------------------===//

// -----

fusion.fusion @reshape_count(%a: tensor<2x3xf32>) {
  // expected-error @+1 {{'fusion.reshape' op operand has 6 elements but result has 8}}
  %0 = fusion.reshape %a : tensor<2x3xf32> -> tensor<2x4xf32>
  fusion.return
}

// -----

fusion.fusion @reshape_sizes(%a: tensor<?x3xf32>) {
  // expected-error @+1 {{'fusion.reshape' op result type 'tensor<?xf32>' has 1 dynamic dims but 0 size operands were given}}
  %0 = fusion.reshape %a : tensor<?x3xf32> -> tensor<?xf32>
  fusion.return
}

// -----

fusion.fusion @reshape_element_type(%a: tensor<6xi32>) {
  // expected-error @+1 {{'fusion.reshape' op operand element type 'i32' differs from result element type 'f32'}}
  %0 = fusion.reshape %a : tensor<6xi32> -> tensor<2x3xf32>
  fusion.return
}

// -----

fusion.fusion @permute_out_of_range(%a: tensor<2x3xf32>) {
  // expected-error @+1 {{'fusion.permute' op perm entry 2 is out of range [0, 2)}}
  %0 = fusion.permute %a [2, 0] : tensor<2x3xf32> -> tensor<3x2xf32>
  fusion.return
}

// -----

fusion.fusion @permute_repeated(%a: tensor<2x3xf32>) {
  // expected-error @+1 {{'fusion.permute' op perm entry 1 appears twice}}
  %0 = fusion.permute %a [1, 1] : tensor<2x3xf32> -> tensor<3x3xf32>
  fusion.return
}

// -----

fusion.fusion @permute_length(%a: tensor<2x3xf32>) {
  // expected-error @+1 {{'fusion.permute' op perm has 3 entries but the operand has rank 2}}
  %0 = fusion.permute %a [1, 0, 2] : tensor<2x3xf32> -> tensor<3x2xf32>
  fusion.return
}

// -----

fusion.fusion @permute_result(%a: tensor<2x3xf32>) {
  // expected-error @+1 {{'fusion.permute' op result dim 0 is 2 but 3 is expected}}
  %0 = fusion.permute %a [1, 0] : tensor<2x3xf32> -> tensor<2x3xf32>
  fusion.return
}

// -----

fusion.fusion @permute_element_type(%a: tensor<2x3xf32>) {
  // expected-error @+1 {{'fusion.permute' op operand element type 'f32' differs from result element type 'f64'}}
  %0 = fusion.permute %a [1, 0] : tensor<2x3xf32> -> tensor<3x2xf64>
  fusion.return
}

// -----

fusion.fusion @squeeze_out_of_range(%a: tensor<1x3xf32>) {
  // expected-error @+1 {{'fusion.squeeze' op squeezed dim 2 is out of range [0, 2)}}
  %0 = fusion.squeeze %a [2] : tensor<1x3xf32> -> tensor<1x3xf32>
  fusion.return
}

// -----

fusion.fusion @squeeze_repeated(%a: tensor<1x3xf32>) {
  // expected-error @+1 {{'fusion.squeeze' op squeezed dim 0 appears twice}}
  %0 = fusion.squeeze %a [0, 0] : tensor<1x3xf32> -> tensor<3xf32>
  fusion.return
}

// -----

fusion.fusion @squeeze_non_unit(%a: tensor<1x3xf32>) {
  // expected-error @+1 {{'fusion.squeeze' op squeezed dim 1 has size 3, not 1}}
  %0 = fusion.squeeze %a [1] : tensor<1x3xf32> -> tensor<1xf32>
  fusion.return
}

// -----

fusion.fusion @squeeze_result(%a: tensor<1x3xf32>) {
  // expected-error @+1 {{'fusion.squeeze' op result has rank 2 but rank 1 is expected}}
  %0 = fusion.squeeze %a [0] : tensor<1x3xf32> -> tensor<1x3xf32>
  fusion.return
}

// -----

fusion.fusion @squeeze_element_type(%a: tensor<1x3xf32>) {
  // expected-error @+1 {{'fusion.squeeze' op operand element type 'f32' differs from result element type 'i32'}}
  %0 = fusion.squeeze %a [0] : tensor<1x3xf32> -> tensor<3xi32>
  fusion.return
}

//===----------------------------------------------------------------------===//
// slice, pad, cat
//===----------------------------------------------------------------------===//

// -----

fusion.fusion @slice_step_zero(%a: tensor<8xf32>) {
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  // expected-error @+1 {{'fusion.slice' op step of dim 0 is 0; steps must be >= 1}}
  %0 = fusion.slice %a [%c0] [%c8] [%c0] : tensor<8xf32> -> tensor<?xf32>
  fusion.return
}

// -----

fusion.fusion @slice_step_negative(%a: tensor<8x?xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %cm1 = arith.constant -1 : index
  // expected-error @+1 {{'fusion.slice' op step of dim 1 is -1; steps must be >= 1}}
  %0 = fusion.slice %a [%c0, %c0] [%n, %n] [%c1, %cm1] : tensor<8x?xf32> -> tensor<?x?xf32>
  fusion.return
}

// -----

fusion.fusion @slice_bounds_count(%a: tensor<8x8xf32>, %i: index) {
  // expected-error @+1 {{'fusion.slice' op has 1 starts but the operand has rank 2}}
  %0 = fusion.slice %a [%i] [%i, %i] [%i, %i] : tensor<8x8xf32> -> tensor<?x?xf32>
  fusion.return
}

// -----

fusion.fusion @slice_steps_count(%a: tensor<8x8xf32>, %i: index) {
  // expected-error @+1 {{'fusion.slice' op has 3 steps but the operand has rank 2}}
  %0 = fusion.slice %a [%i, %i] [%i, %i] [%i, %i, %i] : tensor<8x8xf32> -> tensor<?x?xf32>
  fusion.return
}

// -----

fusion.fusion @slice_rank(%a: tensor<8xf32>, %i: index) {
  // expected-error @+1 {{'fusion.slice' op result rank 2 differs from operand rank 1}}
  %0 = fusion.slice %a [%i] [%i] [%i] : tensor<8xf32> -> tensor<?x1xf32>
  fusion.return
}

// -----

// [1, 8) by 3 takes elements 1, 4 and 7.
fusion.fusion @slice_result_size(%a: tensor<8xf32>) {
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c8 = arith.constant 8 : index
  // expected-error @+1 {{'fusion.slice' op result dim 0 is 2 but the slice has 3 elements}}
  %0 = fusion.slice %a [%c1] [%c8] [%c3] : tensor<8xf32> -> tensor<2xf32>
  fusion.return
}

// -----

// Bounds clamp to the operand: [4, 100) of 8 elements is 4 elements.
fusion.fusion @slice_clamped_size(%a: tensor<8xf32>) {
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c100 = arith.constant 100 : index
  // expected-error @+1 {{'fusion.slice' op result dim 0 is 96 but the slice has 4 elements}}
  %0 = fusion.slice %a [%c4] [%c100] [%c1] : tensor<8xf32> -> tensor<96xf32>
  fusion.return
}

// -----

fusion.fusion @slice_element_type(%a: tensor<8xf32>, %i: index) {
  // expected-error @+1 {{'fusion.slice' op operand element type 'f32' differs from result element type 'f16'}}
  %0 = fusion.slice %a [%i] [%i] [%i] : tensor<8xf32> -> tensor<?xf16>
  fusion.return
}

// -----

fusion.fusion @pad_negative(%a: tensor<4x4xf32>, %v: f32) {
  // expected-error @+1 {{'fusion.pad' op padding of dim 1 is negative; use fusion.slice to crop}}
  %0 = fusion.pad %a, %v low [0, -1] high [0, 0] : tensor<4x4xf32>, f32 -> tensor<4x3xf32>
  fusion.return
}

// -----

fusion.fusion @pad_entries(%a: tensor<4x4xf32>, %v: f32) {
  // expected-error @+1 {{'fusion.pad' op low and high need 2 entries (the operand rank), got 2 and 1}}
  %0 = fusion.pad %a, %v low [1, 1] high [1] : tensor<4x4xf32>, f32 -> tensor<6x6xf32>
  fusion.return
}

// -----

fusion.fusion @pad_result(%a: tensor<4x?xf32>, %v: f32) {
  // expected-error @+1 {{'fusion.pad' op result dim 0 is 6 but 7 is expected}}
  %0 = fusion.pad %a, %v low [1, 1] high [2, 1] : tensor<4x?xf32>, f32 -> tensor<6x?xf32>
  fusion.return
}

// -----

fusion.fusion @pad_value_type(%a: tensor<4xf32>, %v: f16) {
  // expected-error @+1 {{'fusion.pad' op padding value element type 'f16' differs from result element type 'f32'}}
  %0 = fusion.pad %a, %v low [1] high [1] : tensor<4xf32>, f16 -> tensor<6xf32>
  fusion.return
}

// -----

fusion.fusion @pad_element_type(%a: tensor<4xf32>, %v: f16) {
  // expected-error @+1 {{'fusion.pad' op operand element type 'f32' differs from result element type 'f16'}}
  %0 = fusion.pad %a, %v low [1] high [1] : tensor<4xf32>, f16 -> tensor<6xf16>
  fusion.return
}

// -----

fusion.fusion @cat_dim_out_of_range(%a: tensor<2x3xf32>) {
  // expected-error @+1 {{'fusion.cat' op dim 2 is out of range [0, 2)}}
  %0 = fusion.cat %a, %a dim = 2 : tensor<2x3xf32>, tensor<2x3xf32> -> tensor<2x3xf32>
  fusion.return
}

// -----

fusion.fusion @cat_total(%a: tensor<2x3xf32>, %b: tensor<4x3xf32>) {
  // expected-error @+1 {{'fusion.cat' op result dim 0 is 5 but the operands add up to 6}}
  %0 = fusion.cat %a, %b dim = 0 : tensor<2x3xf32>, tensor<4x3xf32> -> tensor<5x3xf32>
  fusion.return
}

// -----

// Dims other than the concatenated one must agree.
fusion.fusion @cat_other_dim(%a: tensor<2x3xf32>, %b: tensor<2x4xf32>) {
  // expected-error @+1 {{'fusion.cat' op operand 1 dim 1 is 4 but result dim 1 is 3}}
  %0 = fusion.cat %a, %b dim = 0 : tensor<2x3xf32>, tensor<2x4xf32> -> tensor<4x3xf32>
  fusion.return
}

// -----

fusion.fusion @cat_rank(%a: tensor<2x3xf32>, %b: tensor<3xf32>) {
  // expected-error @+1 {{'fusion.cat' op operand 1 has rank 1 but the result has rank 2}}
  %0 = fusion.cat %a, %b dim = 1 : tensor<2x3xf32>, tensor<3xf32> -> tensor<2x6xf32>
  fusion.return
}

// -----

fusion.fusion @cat_element_type(%a: tensor<2xf32>, %b: tensor<2xf16>) {
  // expected-error @+1 {{'fusion.cat' op operand 1 element type 'f16' differs from result element type 'f32'}}
  %0 = fusion.cat %a, %b dim = 0 : tensor<2xf32>, tensor<2xf16> -> tensor<4xf32>
  fusion.return
}

// -----

fusion.fusion @cat_empty(%a: tensor<2xf32>) {
  // expected-error @+1 {{'fusion.cat' op needs at least one operand}}
  %0 = "fusion.cat"() <{dim = 0 : i64}> : () -> tensor<4xf32>
  fusion.return
}

//===----------------------------------------------------------------------===//
// Factories
//===----------------------------------------------------------------------===//

// -----

fusion.fusion @full_sizes(%v: f32, %n: index) {
  // expected-error @+1 {{'fusion.full' op result type 'tensor<?x?xf32>' has 2 dynamic dims but 1 size operands were given}}
  %0 = fusion.full %v (%n) : f32 -> tensor<?x?xf32>
  fusion.return
}

// -----

fusion.fusion @full_element_type(%v: f32) {
  // expected-error @+1 {{'fusion.full' op fill value element type 'f32' differs from result element type 'bf16'}}
  %0 = fusion.full %v : f32 -> tensor<2xbf16>
  fusion.return
}

// -----

fusion.fusion @iota_rank(%s: i32) {
  // expected-error @+1 {{'fusion.iota' op result must have rank 1, got rank 2}}
  %0 = fusion.iota %s, %s : i32 -> tensor<2x2xi32>
  fusion.return
}

// -----

fusion.fusion @iota_element_type(%s: i32) {
  // expected-error @+1 {{'fusion.iota' op start element type 'i32' differs from result element type 'i64'}}
  %0 = fusion.iota %s, %s : i32 -> tensor<4xi64>
  fusion.return
}

// -----

fusion.fusion @iota_step_type(%s: i32, %t: i64) {
  // expected-error @+1 {{'fusion.iota' op failed to verify that all of {start, step} have same type}}
  %0 = "fusion.iota"(%s, %t) : (i32, i64) -> tensor<4xi32>
  fusion.return
}

// -----

fusion.fusion @iota_sizes(%s: i32) {
  // expected-error @+1 {{'fusion.iota' op result type 'tensor<?xi32>' has 1 dynamic dims but 0 size operands were given}}
  %0 = fusion.iota %s, %s : i32 -> tensor<?xi32>
  fusion.return
}

// -----

fusion.fusion @rand_sizes(%seed: i64, %n: index) {
  // expected-error @+1 {{'fusion.rand' op result type 'tensor<4xf32>' has 0 dynamic dims but 1 size operands were given}}
  %0 = fusion.rand %seed, %seed (%n) : tensor<4xf32>
  fusion.return
}

// -----

fusion.fusion @randn_sizes(%seed: i64, %n: index) {
  // expected-error @+1 {{'fusion.randn' op result type 'tensor<?x?xf16>' has 2 dynamic dims but 1 size operands were given}}
  %0 = fusion.randn %seed, %seed (%n) : tensor<?x?xf16>
  fusion.return
}

// -----

fusion.fusion @rand_integer(%seed: i64) {
  // expected-error @+1 {{'fusion.rand' op result #0 must be ranked tensor of 64-bit float or 32-bit float or 16-bit float or bfloat16 type values, but got 'tensor<4xi32>'}}
  %0 = fusion.rand %seed, %seed : tensor<4xi32>
  fusion.return
}

//===----------------------------------------------------------------------===//
// Indexing
//===----------------------------------------------------------------------===//

// -----

fusion.fusion @index_select_dim(%a: tensor<4x5xf32>, %i: tensor<3xi64>) {
  // expected-error @+1 {{'fusion.index_select' op dim 2 is out of range [0, 2)}}
  %0 = fusion.index_select %a, %i dim = 2 : tensor<4x5xf32>, tensor<3xi64> -> tensor<4x3xf32>
  fusion.return
}

// -----

fusion.fusion @index_select_index_rank(%a: tensor<4x5xf32>, %i: tensor<3x1xi64>) {
  // expected-error @+1 {{'fusion.index_select' op index must have rank 1, got rank 2}}
  %0 = fusion.index_select %a, %i dim = 1 : tensor<4x5xf32>, tensor<3x1xi64> -> tensor<4x3xf32>
  fusion.return
}

// -----

fusion.fusion @index_select_result(%a: tensor<4x5xf32>, %i: tensor<3xi64>) {
  // expected-error @+1 {{'fusion.index_select' op result dim 1 is 5 but 3 is expected}}
  %0 = fusion.index_select %a, %i dim = 1 : tensor<4x5xf32>, tensor<3xi64> -> tensor<4x5xf32>
  fusion.return
}

// -----

fusion.fusion @index_select_element_type(%a: tensor<4x5xf32>, %i: tensor<3xi64>) {
  // expected-error @+1 {{'fusion.index_select' op operand element type 'f32' differs from result element type 'f16'}}
  %0 = fusion.index_select %a, %i dim = 1 : tensor<4x5xf32>, tensor<3xi64> -> tensor<4x3xf16>
  fusion.return
}

// -----

fusion.fusion @index_select_float_index(%a: tensor<4x5xf32>, %i: tensor<3xf32>) {
  // expected-error @+1 {{'fusion.index_select' op operand #1 must be ranked tensor of 64-bit signless integer or 32-bit signless integer values, but got 'tensor<3xf32>'}}
  %0 = fusion.index_select %a, %i dim = 1 : tensor<4x5xf32>, tensor<3xf32> -> tensor<4x3xf32>
  fusion.return
}

// -----

fusion.fusion @gather_dim(%a: tensor<4x5xf32>, %i: tensor<4x2xi32>) {
  // expected-error @+1 {{'fusion.gather' op dim -1 is out of range [0, 2)}}
  %0 = fusion.gather %a, %i dim = -1 : tensor<4x5xf32>, tensor<4x2xi32> -> tensor<4x2xf32>
  fusion.return
}

// -----

fusion.fusion @gather_index_rank(%a: tensor<4x5xf32>, %i: tensor<8xi32>) {
  // expected-error @+1 {{'fusion.gather' op index rank 1 differs from operand rank 2}}
  %0 = fusion.gather %a, %i dim = 1 : tensor<4x5xf32>, tensor<8xi32> -> tensor<8xf32>
  fusion.return
}

// -----

// The result has the index's shape.
fusion.fusion @gather_result(%a: tensor<4x5xf32>, %i: tensor<4x2xi32>) {
  // expected-error @+1 {{'fusion.gather' op result dim 1 is 5 but 2 is expected}}
  %0 = fusion.gather %a, %i dim = 1 : tensor<4x5xf32>, tensor<4x2xi32> -> tensor<4x5xf32>
  fusion.return
}

// -----

fusion.fusion @gather_element_type(%a: tensor<4x5xf32>, %i: tensor<4x2xi32>) {
  // expected-error @+1 {{'fusion.gather' op operand element type 'f32' differs from result element type 'i32'}}
  %0 = fusion.gather %a, %i dim = 1 : tensor<4x5xf32>, tensor<4x2xi32> -> tensor<4x2xi32>
  fusion.return
}

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

// -----

fusion.fusion @sum_dim_out_of_range(%a: tensor<4x5xf32>) {
  // expected-error @+1 {{'fusion.sum' op reduced dim 2 is out of range [0, 2)}}
  %0 = fusion.sum %a [2] : tensor<4x5xf32> -> tensor<4x5xf32>
  fusion.return
}

// -----

fusion.fusion @max_dim_negative(%a: tensor<4x5xf32>) {
  // expected-error @+1 {{'fusion.max' op reduced dim -1 is out of range [0, 2)}}
  %0 = fusion.max %a [-1] : tensor<4x5xf32> -> tensor<4xf32>
  fusion.return
}

// -----

fusion.fusion @prod_dim_repeated(%a: tensor<4x5xi32>) {
  // expected-error @+1 {{'fusion.prod' op reduced dim 1 appears twice}}
  %0 = fusion.prod %a [1, 0, 1] : tensor<4x5xi32> -> tensor<i32>
  fusion.return
}

// -----

// With keepdim the reduced dims stay with size 1 ...
fusion.fusion @keepdim_dropped(%a: tensor<4x5xf32>) {
  // expected-error @+1 {{'fusion.sum' op result has rank 1 but rank 2 is expected}}
  %0 = fusion.sum %a [1] keepdim : tensor<4x5xf32> -> tensor<4xf32>
  fusion.return
}

// -----

// ... and without it they go away.
fusion.fusion @keepdim_missing(%a: tensor<4x5xf32>) {
  // expected-error @+1 {{'fusion.min' op result has rank 2 but rank 1 is expected}}
  %0 = fusion.min %a [1] : tensor<4x5xf32> -> tensor<4x1xf32>
  fusion.return
}

// -----

fusion.fusion @keepdim_size(%a: tensor<4x5xf32>) {
  // expected-error @+1 {{'fusion.sum' op result dim 1 is 5 but 1 is expected}}
  %0 = fusion.sum %a [1] keepdim : tensor<4x5xf32> -> tensor<4x5xf32>
  fusion.return
}

// -----

fusion.fusion @sum_element_type(%a: tensor<4x5xbf16>) {
  // expected-error @+1 {{'fusion.sum' op operand element type 'bf16' differs from result element type 'f32'}}
  %0 = fusion.sum %a [1] : tensor<4x5xbf16> -> tensor<4xf32>
  fusion.return
}

// -----

fusion.fusion @var_mean_correction(%a: tensor<4x5xf32>) {
  // expected-error @+1 {{'fusion.var_mean' op correction must be >= 0, got -1}}
  %0:2 = fusion.var_mean %a [1] correction = -1 : tensor<4x5xf32> -> tensor<4xf32>
  fusion.return
}

// -----

fusion.fusion @var_mean_dim(%a: tensor<4x5xf32>) {
  // expected-error @+1 {{'fusion.var_mean' op reduced dim 5 is out of range [0, 2)}}
  %0:2 = fusion.var_mean %a [5] correction = 1 : tensor<4x5xf32> -> tensor<4xf32>
  fusion.return
}

// -----

fusion.fusion @var_mean_keepdim(%a: tensor<4x5xf32>) {
  // expected-error @+1 {{'fusion.var_mean' op result has rank 1 but rank 2 is expected}}
  %0:2 = fusion.var_mean %a [1] correction = 1 keepdim : tensor<4x5xf32> -> tensor<4xf32>
  fusion.return
}

// -----

fusion.fusion @var_mean_element_type(%a: tensor<4x5xf16>) {
  // expected-error @+1 {{'fusion.var_mean' op operand element type 'f16' differs from result element type 'f32'}}
  %0:2 = fusion.var_mean %a [1] correction = 1 : tensor<4x5xf16> -> tensor<4xf32>
  fusion.return
}

// -----

fusion.fusion @var_mean_result_types(%a: tensor<4x5xf32>) {
  // expected-error @+1 {{'fusion.var_mean' op failed to verify that all of {variance, mean} have same type}}
  %0:2 = "fusion.var_mean"(%a) <{dims = array<i64: 1>, correction = 1 : i64}> : (tensor<4x5xf32>) -> (tensor<4xf32>, tensor<4x1xf32>)
  fusion.return
}

// -----

fusion.fusion @var_mean_integer(%a: tensor<4x5xi32>) {
  // expected-error @+1 {{'fusion.var_mean' op operand #0 must be ranked tensor of 64-bit float or 32-bit float or 16-bit float or bfloat16 type values, but got 'tensor<4x5xi32>'}}
  %0:2 = fusion.var_mean %a [1] correction = 1 : tensor<4x5xi32> -> tensor<4xi32>
  fusion.return
}

// -----

fusion.fusion @argmax_dim(%a: tensor<4x5xf32>) {
  // expected-error @+1 {{'fusion.argmax' op reduced dim 2 is out of range [0, 2)}}
  %0 = fusion.argmax %a dim = 2 : tensor<4x5xf32> -> tensor<4xi64>
  fusion.return
}

// -----

fusion.fusion @argmin_keepdim(%a: tensor<4x5xf32>) {
  // expected-error @+1 {{'fusion.argmin' op result has rank 1 but rank 2 is expected}}
  %0 = fusion.argmin %a dim = 0 keepdim : tensor<4x5xf32> -> tensor<5xi64>
  fusion.return
}

// -----

fusion.fusion @argmax_result(%a: tensor<4x5xf32>) {
  // expected-error @+1 {{'fusion.argmax' op result dim 0 is 5 but 4 is expected}}
  %0 = fusion.argmax %a dim = 1 : tensor<4x5xf32> -> tensor<5xi64>
  fusion.return
}

// -----

fusion.fusion @argmax_i32(%a: tensor<4x5xf32>) {
  // expected-error @+1 {{'fusion.argmax' op result #0 must be ranked tensor of 64-bit signless integer values, but got 'tensor<4xi32>'}}
  %0 = fusion.argmax %a dim = 1 : tensor<4x5xf32> -> tensor<4xi32>
  fusion.return
}

//===----------------------------------------------------------------------===//
// Composites
//===----------------------------------------------------------------------===//

// -----

fusion.fusion @softmax_dim(%a: tensor<4x5xf32>) {
  // expected-error @+1 {{'fusion.softmax' op dim 2 is out of range [0, 2)}}
  %0 = fusion.softmax %a dim = 2 : tensor<4x5xf32>
  fusion.return
}

// -----

fusion.fusion @log_softmax_dim(%a: tensor<4x5xf32>) {
  // expected-error @+1 {{'fusion.log_softmax' op dim -1 is out of range [0, 2)}}
  %0 = fusion.log_softmax %a dim = -1 : tensor<4x5xf32>
  fusion.return
}

// -----

fusion.fusion @softmax_integer(%a: tensor<4x5xi32>) {
  // expected-error @+1 {{'fusion.softmax' op operand #0 must be ranked tensor of 64-bit float or 32-bit float or 16-bit float or bfloat16 type values, but got 'tensor<4x5xi32>'}}
  %0 = fusion.softmax %a dim = 1 : tensor<4x5xi32>
  fusion.return
}

// -----

fusion.fusion @layer_norm_axis(%a: tensor<4x5xf32>) {
  // expected-error @+1 {{'fusion.layer_norm' op axis 2 is out of range [0, 2)}}
  %0 = fusion.layer_norm %a axis = 2 eps = 1.0e-5 : tensor<4x5xf32>
  fusion.return
}

// -----

fusion.fusion @layer_norm_eps(%a: tensor<4x5xf32>) {
  // expected-error @+1 {{'fusion.layer_norm' op eps must be >= 0, got -1.000000e-05}}
  %0 = fusion.layer_norm %a axis = 1 eps = -1.0e-5 : tensor<4x5xf32>
  fusion.return
}

// -----

fusion.fusion @layer_norm_eps_nan(%a: tensor<4x5xf32>) {
  // expected-error @+1 {{'fusion.layer_norm' op eps must be >= 0, got nan}}
  %0 = fusion.layer_norm %a axis = 1 eps = 0x7FF8000000000000 : tensor<4x5xf32>
  fusion.return
}

// -----

// The weight has the shape of the normalized dims [axis, rank).
fusion.fusion @layer_norm_weight_shape(%a: tensor<4x5xf32>, %w: tensor<4xf32>) {
  // expected-error @+1 {{'fusion.layer_norm' op weight dim 0 is 4 but 5 is expected}}
  %0 = fusion.layer_norm %a weight(%w : tensor<4xf32>) axis = 1 eps = 1.0e-5 : tensor<4x5xf32>
  fusion.return
}

// -----

fusion.fusion @layer_norm_weight_rank(%a: tensor<4x5xf32>, %w: tensor<4x5xf32>) {
  // expected-error @+1 {{'fusion.layer_norm' op weight has rank 2 but rank 1 is expected}}
  %0 = fusion.layer_norm %a weight(%w : tensor<4x5xf32>) axis = 1 eps = 1.0e-5 : tensor<4x5xf32>
  fusion.return
}

// -----

fusion.fusion @layer_norm_bias_shape(%a: tensor<4x5xf32>, %w: tensor<4x5xf32>, %b: tensor<5xf32>) {
  // expected-error @+1 {{'fusion.layer_norm' op bias has rank 1 but rank 2 is expected}}
  %0 = fusion.layer_norm %a weight(%w : tensor<4x5xf32>) bias(%b : tensor<5xf32>) axis = 0 eps = 1.0e-5 : tensor<4x5xf32>
  fusion.return
}

// -----

fusion.fusion @layer_norm_weight_type(%a: tensor<4x5xbf16>, %w: tensor<5xf32>) {
  // expected-error @+1 {{'fusion.layer_norm' op weight element type 'f32' differs from input element type 'bf16'}}
  %0 = fusion.layer_norm %a weight(%w : tensor<5xf32>) axis = 1 eps = 1.0e-5 : tensor<4x5xbf16>
  fusion.return
}

// -----

fusion.fusion @layer_norm_result(%a: tensor<4x5xf32>) {
  // expected-error @+1 {{'fusion.layer_norm' op failed to verify that all of {input, result} have same type}}
  %0 = "fusion.layer_norm"(%a) <{axis = 1 : i64, eps = 1.0e-5 : f64, operandSegmentSizes = array<i32: 1, 0, 0>}> : (tensor<4x5xf32>) -> tensor<4x5xf16>
  fusion.return
}

// -----

fusion.fusion @rms_norm_axis(%a: tensor<4x5xf32>) {
  // expected-error @+1 {{'fusion.rms_norm' op axis -1 is out of range [0, 2)}}
  %0 = fusion.rms_norm %a axis = -1 eps = 1.0e-6 : tensor<4x5xf32>
  fusion.return
}

// -----

fusion.fusion @rms_norm_eps(%a: tensor<4x5xf32>) {
  // expected-error @+1 {{'fusion.rms_norm' op eps must be >= 0, got -1.000000e+00}}
  %0 = fusion.rms_norm %a axis = 1 eps = -1.0 : tensor<4x5xf32>
  fusion.return
}

// -----

fusion.fusion @rms_norm_weight(%a: tensor<4x5xf32>, %w: tensor<6xf32>) {
  // expected-error @+1 {{'fusion.rms_norm' op weight dim 0 is 6 but 5 is expected}}
  %0 = fusion.rms_norm %a weight(%w : tensor<6xf32>) axis = 1 eps = 1.0e-6 : tensor<4x5xf32>
  fusion.return
}

// -----

fusion.fusion @kept_zero_without_zero_init(%n: index) -> tensor<?xi32> {
  // expected-error @+1 {{'fusion.empty' op kept_zero needs zero_init}}
  %0 = fusion.empty(%n) kept_zero : tensor<?xi32>
  %1 = fusion.empty(%n) : tensor<?xi32>
  fusion.return %1 : tensor<?xi32>
}

// -----

fusion.fusion @kept_zero_output(%n: index) -> tensor<?xi32> {
  // expected-error @+1 {{'fusion.empty' op kept_zero is for intermediates; a returned buffer is an output}}
  %0 = fusion.empty(%n) zero_init kept_zero : tensor<?xi32>
  fusion.return %0 : tensor<?xi32>
}
