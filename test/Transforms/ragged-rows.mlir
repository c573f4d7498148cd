// Ragged row variants (Note [Ragged rows] in
// lib/Conversion/FusionToGPU/InnerReductionKernel.cpp): a streaming
// vectorized variant for any row length, each row read from its first
// aligned vector with the head and tail vectors masked, taken where the
// plain vectorized ones are not, before the scalar ones.
// test/GPU/ragged-rows.mlir runs them.
// RUN: fusion-opt %s --fusion-decompose --fusion-segment --fusion-schedule --fusion-lower-kernels --fusion-lower-kernel-ops --split-input-file | FileCheck %s

// A symbolic row length: v8 (a multiple of 8), rv8, scalar.
// CHECK-LABEL: fusion.fusion @rowmax
// CHECK: launch @rowmax_kernels::@rowmax_k0_v8_i32 if(
// CHECK: launch @rowmax_kernels::@rowmax_k0_rv8_i32 if(
// CHECK: launch @rowmax_kernels::@rowmax_k0_s_i32 if(
// CHECK: launch @rowmax_kernels::@rowmax_k0_s_i64 grid(
// CHECK-LABEL: gpu.func @rowmax_k0_v8_i32
// CHECK-NOT: vector.maskedload
// CHECK-LABEL: gpu.func @rowmax_k0_rv8_i32
// The row's start modulo 8; the first chunk's whole vectors, aligned.
// CHECK: arith.remui %{{.*}}, %c8{{.*}} : i32
// CHECK: vector.load {{.*}} {alignment = 16 : i64} : memref<?xbf16>, vector<8xbf16>
// CHECK: scf.for
// CHECK: vector.load {{.*}} {alignment = 16 : i64} : memref<?xbf16>, vector<8xbf16>
// CHECK-NOT: vector.maskedload
// CHECK: scf.yield
// The head and tail vectors: a masked load, the lanes outside the row
// folded as the max's neutral element, then the block reduction.
// CHECK: vector.maskedload {{.*}} {alignment = 16 : i64} : memref<?xbf16>, vector<8xi1>, vector<8xbf16> into vector<8xbf16>
// CHECK: arith.select {{.*}} : vector<8xi1>, vector<8xf32>
// CHECK: vector.reduction <maximumf>
// CHECK: gpu.shuffle  xor
// CHECK-LABEL: gpu.func @rowmax_k0_s_i32
fusion.fusion @rowmax(%a: tensor<?x?xbf16>) -> tensor<?xbf16> {
  %0 = fusion.max %a [1] : tensor<?x?xbf16> -> tensor<?xbf16>
  fusion.return %0 : tensor<?xbf16>
}

// -----

// A static row length that is a multiple of the width: no ragged variant.
// CHECK-LABEL: fusion.fusion @rowmax_4096
// CHECK-NOT: _rv8_
// CHECK-LABEL: gpu.module @rowmax_4096_kernels
// CHECK-NOT: _rv8_
fusion.fusion @rowmax_4096(%a: tensor<?x4096xbf16>) -> tensor<?xbf16> {
  %0 = fusion.max %a [1] : tensor<?x4096xbf16> -> tensor<?xbf16>
  fusion.return %0 : tensor<?xbf16>
}

// -----

// A static odd one has it.
// CHECK-LABEL: fusion.fusion @rowmax_4097
// CHECK: launch @rowmax_4097_kernels::@rowmax_4097_k0_rv8_i32 if(
fusion.fusion @rowmax_4097(%a: tensor<?x4097xbf16>) -> tensor<?xbf16> {
  %0 = fusion.max %a [1] : tensor<?x4097xbf16> -> tensor<?xbf16>
  fusion.return %0 : tensor<?xbf16>
}

// -----

// A layer norm: the ragged variants (persistent, where the row fits,
// then streaming) come before the persistent scalar one. The persistent
// one loads each thread's whole vectors of the next row in that row's own
// frame (before the row loop and at its top) and the edge vectors where
// they are used. In the streaming one x and the output are read and
// written in the shifted frame (16-byte accesses, the edges masked), the
// weight and bias with element alignment (their lanes start anywhere).
// CHECK-LABEL: fusion.fusion @layernorm
// CHECK: launch @layernorm_kernels::@layernorm_k0_pv8_i32 if(
// CHECK: launch @layernorm_kernels::@layernorm_k0_prv8_i32 if(
// CHECK: launch @layernorm_kernels::@layernorm_k0_rv8_i32 if(
// CHECK: launch @layernorm_kernels::@layernorm_k0_ps_i32 if(
// CHECK: launch @layernorm_kernels::@layernorm_k0_v8_i32 if(
// CHECK: launch @layernorm_kernels::@layernorm_k0_s_i32 if(
// CHECK-LABEL: gpu.func @layernorm_k0_prv8_i32
// CHECK: arith.remui %{{.*}}, %c8{{.*}} : i32
// CHECK-COUNT-4: vector.load %arg0[{{.*}}] {alignment = 16 : i64} : memref<?xbf16>, vector<8xbf16>
// CHECK: scf.for
// CHECK: arith.remui %{{.*}}, %c8{{.*}} : i32
// CHECK-COUNT-4: vector.load %arg0[{{.*}}] {alignment = 16 : i64} : memref<?xbf16>, vector<8xbf16>
// CHECK: vector.maskedload %arg0[{{.*}}], {{.*}} {alignment = 16 : i64}
// CHECK: vector.maskedstore
// CHECK-LABEL: gpu.func @layernorm_k0_rv8_i32
// CHECK-DAG: vector.load %arg0[{{.*}}] {alignment = 16 : i64} : memref<?xbf16>, vector<8xbf16>
// CHECK-DAG: vector.load %arg11[{{.*}}] {alignment = 2 : i64} : memref<?xbf16>, vector<8xbf16>
// CHECK-DAG: vector.load %arg15[{{.*}}] {alignment = 2 : i64} : memref<?xbf16>, vector<8xbf16>
// CHECK-DAG: vector.store {{.*}} {alignment = 16 : i64} : memref<?xbf16>, vector<8xbf16>
// CHECK-DAG: vector.maskedload %arg11[{{.*}}], {{.*}} {alignment = 2 : i64}
// CHECK-DAG: vector.maskedstore {{.*}} {alignment = 16 : i64} : memref<?xbf16>, vector<8xi1>, vector<8xbf16>
// CHECK-LABEL: gpu.func @layernorm_k0_ps_i32
fusion.fusion @layernorm(%x: tensor<?x?xbf16>, %w: tensor<?xbf16>, %b: tensor<?xbf16>) -> tensor<?x?xbf16> {
  %0 = fusion.layer_norm %x weight(%w : tensor<?xbf16>) bias(%b : tensor<?xbf16>) axis = 1 eps = 1.0e-05 : tensor<?x?xbf16>
  fusion.return %0 : tensor<?x?xbf16>
}
