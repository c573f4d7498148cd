// The bulk-copy (TMA) and mbarrier ops round-trip through the custom syntax:
// a tile load completing on an mbarrier, the wait, a tile store in a bulk
// group, the fences and the tensor-map prefetch (Note [Bulk copies]).
// RUN: fusion-opt %s | FileCheck %s
// RUN: fusion-opt %s | fusion-opt | FileCheck %s

// CHECK-LABEL: gpu.func @copy_tile
// CHECK-SAME: {llvm.align = 128 : i64}
// CHECK: fusion.prefetch_tensormap %{{.*}} : !llvm.ptr
// CHECK: fusion.mbarrier_init %{{.*}}[%{{.*}}], %{{.*}} : memref<2xi64, #gpu.address_space<workgroup>>
// CHECK: fusion.fence_async_shared
// CHECK: fusion.mbarrier_arrive_expect_tx %{{.*}}[%{{.*}}], %{{.*}} : memref<2xi64, #gpu.address_space<workgroup>>
// CHECK: fusion.bulk_tensor_load %{{.*}}[%{{.*}}, %{{.*}}] to %{{.*}}, %{{.*}}[%{{.*}}] : !llvm.ptr, memref<64x64xbf16, #gpu.address_space<workgroup>>, memref<2xi64, #gpu.address_space<workgroup>>
// CHECK: fusion.mbarrier_wait %{{.*}}[%{{.*}}], %{{.*}} : memref<2xi64, #gpu.address_space<workgroup>>
// CHECK: fusion.bulk_tensor_store %{{.*}} to %{{.*}}[%{{.*}}, %{{.*}}] : memref<64x64xbf16, #gpu.address_space<workgroup>>, !llvm.ptr
// CHECK: fusion.bulk_commit_group
// CHECK: fusion.bulk_wait_group 0 {read}
// CHECK: fusion.bulk_wait_group 3
// CHECK-LABEL: gpu.func @boxes
// CHECK: fusion.bulk_tensor_load {{.*}} : !llvm.ptr, memref<256xf32, #gpu.address_space<workgroup>>, memref<1xi64, #gpu.address_space<workgroup>>
// CHECK: fusion.bulk_tensor_load {{.*}} : !llvm.ptr, memref<1x2x4x8x16xi8, #gpu.address_space<workgroup>>, memref<1xi64, #gpu.address_space<workgroup>>
gpu.module @tma_kernels {
  gpu.func @copy_tile(%map_in: !llvm.ptr, %map_out: !llvm.ptr, %row: i32, %col: i32) workgroup(%tile : memref<64x64xbf16, #gpu.address_space<workgroup>> {llvm.align = 128 : i64}, %bars : memref<2xi64, #gpu.address_space<workgroup>>) kernel {
    %c0 = arith.constant 0 : index
    %one = arith.constant 1 : i32
    %bytes = arith.constant 8192 : i32
    %phase = arith.constant 0 : i32
    fusion.prefetch_tensormap %map_in : !llvm.ptr
    fusion.mbarrier_init %bars[%c0], %one : memref<2xi64, #gpu.address_space<workgroup>>
    fusion.fence_async_shared
    gpu.barrier
    fusion.mbarrier_arrive_expect_tx %bars[%c0], %bytes : memref<2xi64, #gpu.address_space<workgroup>>
    fusion.bulk_tensor_load %map_in [%row, %col] to %tile, %bars[%c0] : !llvm.ptr, memref<64x64xbf16, #gpu.address_space<workgroup>>, memref<2xi64, #gpu.address_space<workgroup>>
    fusion.mbarrier_wait %bars[%c0], %phase : memref<2xi64, #gpu.address_space<workgroup>>
    fusion.fence_async_shared
    fusion.bulk_tensor_store %tile to %map_out [%row, %col] : memref<64x64xbf16, #gpu.address_space<workgroup>>, !llvm.ptr
    fusion.bulk_commit_group
    fusion.bulk_wait_group 0 {read}
    fusion.bulk_wait_group 3
    gpu.return
  }
  // The rank limits: 1 and 5 dims, 16-byte innermost boxes of f32 and i8.
  gpu.func @boxes(%map: !llvm.ptr, %i: i32) workgroup(%a : memref<256xf32, #gpu.address_space<workgroup>> {llvm.align = 128 : i64}, %b : memref<1x2x4x8x16xi8, #gpu.address_space<workgroup>> {llvm.align = 1024 : i64}, %bar : memref<1xi64, #gpu.address_space<workgroup>>) kernel {
    %c0 = arith.constant 0 : index
    fusion.bulk_tensor_load %map [%i] to %a, %bar[%c0] : !llvm.ptr, memref<256xf32, #gpu.address_space<workgroup>>, memref<1xi64, #gpu.address_space<workgroup>>
    fusion.bulk_tensor_load %map [%i, %i, %i, %i, %i] to %b, %bar[%c0] : !llvm.ptr, memref<1x2x4x8x16xi8, #gpu.address_space<workgroup>>, memref<1xi64, #gpu.address_space<workgroup>>
    gpu.return
  }
}
