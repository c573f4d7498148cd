// Note [Tensor map parameters]: a kernel with `fusion.tensor_maps = N`
// takes its first N parameters by value as grid constants: after
// convert-gpu-to-nvvm they get llvm.byval (128 bytes), llvm.align 64 and
// nvvm.grid_constant, so the PTX parameter is `.param .align 64 .b8 [128]`
// and the bulk copy reads the map through its generic address; ptxas
// accepts it for sm_90a. Kernels without the attribute are untouched.
// RUN: fusion-opt %s --pass-pipeline="builtin.module(fusion-lower-kernel-ops,gpu.module(convert-scf-to-cf,convert-gpu-to-nvvm,fusion-tensor-map-params))" -split-input-file -verify-diagnostics | FileCheck %s
// RUN: fusion-opt %s --pass-pipeline="builtin.module(fusion-lower-kernel-ops,gpu.module(convert-scf-to-cf,convert-gpu-to-nvvm,fusion-tensor-map-params,convert-nvvm-to-llvm,reconcile-unrealized-casts),nvvm-attach-target{chip=sm_90a},gpu-module-to-binary{format=isa})" -split-input-file -verify-diagnostics 2>/dev/null | python3 %fusion_src/utils/gpu-binary-ptx.py > %t.ptx
// RUN: FileCheck %s --check-prefix=PTX < %t.ptx
// RUN: %if ptxas %{ ptxas -arch=sm_90a %t.ptx -o %t.cubin %}

// CHECK-LABEL: llvm.func @load_tile(
// CHECK-SAME: %arg0: !llvm.ptr {llvm.align = 64 : i64, llvm.byval = !llvm.array<128 x i8>, nvvm.grid_constant}
// CHECK-SAME: %arg1: !llvm.ptr {llvm.align = 64 : i64, llvm.byval = !llvm.array<128 x i8>, nvvm.grid_constant}
// CHECK-SAME: %arg2: i32, %arg3: i32)
// CHECK-NOT: fusion.tensor_maps
// CHECK-LABEL: llvm.func @plain(
// CHECK-NOT: grid_constant

// PTX-LABEL: .entry load_tile(
// PTX-NEXT: .param .align 64 .b8 load_tile_param_0[128],
// PTX-NEXT: .param .align 64 .b8 load_tile_param_1[128],
// PTX: cvta.param.u64
// PTX: cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes
// PTX: cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group
gpu.module @tma_kernels {
  gpu.func @load_tile(%in: !llvm.ptr, %out: !llvm.ptr, %row: i32, %col: i32) workgroup(%tile : memref<8x64xf32, #gpu.address_space<workgroup>> {llvm.align = 128 : i64}, %bars : memref<1xi64, #gpu.address_space<workgroup>>) kernel attributes {fusion.tensor_maps = 2 : i64} {
    %c0 = arith.constant 0 : index
    %one = arith.constant 1 : i32
    %bytes = arith.constant 2048 : i32
    %phase = arith.constant 0 : i32
    fusion.mbarrier_init %bars[%c0], %one : memref<1xi64, #gpu.address_space<workgroup>>
    fusion.fence_async_shared
    gpu.barrier
    fusion.mbarrier_arrive_expect_tx %bars[%c0], %bytes : memref<1xi64, #gpu.address_space<workgroup>>
    fusion.bulk_tensor_load %in [%row, %col] to %tile, %bars[%c0] : !llvm.ptr, memref<8x64xf32, #gpu.address_space<workgroup>>, memref<1xi64, #gpu.address_space<workgroup>>
    fusion.mbarrier_wait %bars[%c0], %phase : memref<1xi64, #gpu.address_space<workgroup>>
    fusion.fence_async_shared
    fusion.bulk_tensor_store %tile to %out [%row, %col] : memref<8x64xf32, #gpu.address_space<workgroup>>, !llvm.ptr
    fusion.bulk_commit_group
    fusion.bulk_wait_group 0 {read}
    gpu.return
  }
  gpu.func @plain(%p: !llvm.ptr) kernel {
    gpu.return
  }
}

// -----

gpu.module @too_many {
  // expected-error @+1 {{'llvm.func' op has fusion.tensor_maps = 2 but 1 arguments}}
  gpu.func @k(%map: !llvm.ptr) kernel attributes {fusion.tensor_maps = 2 : i64} {
    gpu.return
  }
}

// -----

gpu.module @not_a_pointer {
  // expected-error @+1 {{'llvm.func' op passes tensor map 0 as an argument of type 'i32'; expected a generic !llvm.ptr}}
  gpu.func @k(%n: i32) kernel attributes {fusion.tensor_maps = 1 : i64} {
    gpu.return
  }
}
