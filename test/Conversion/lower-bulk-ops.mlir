// The bulk-copy and mbarrier ops lower to NVVM's (Note [Bulk copies]): the
// barriers and tiles as shared-window pointers, the load's tile as a
// shared::cluster address, coordinates innermost first. Through the rest of
// the pipeline the kernel is PTX that ptxas accepts for sm_90a; sm_80 is
// refused on the op.
// RUN: fusion-opt %s --fusion-lower-kernel-ops | FileCheck %s
// RUN: fusion-opt %s --fusion-lower-kernel-ops | FileCheck %s --check-prefix=GONE
// RUN: fusion-opt %s --pass-pipeline="builtin.module(fusion-lower-kernel-ops,gpu.module(convert-scf-to-cf,convert-gpu-to-nvvm,convert-nvvm-to-llvm,reconcile-unrealized-casts),nvvm-attach-target{chip=sm_90a},gpu-module-to-binary{format=isa})" | python3 %fusion_src/utils/gpu-binary-ptx.py > %t.ptx
// RUN: FileCheck %s --check-prefix=PTX < %t.ptx
// RUN: %if ptxas %{ ptxas -arch=sm_90a %t.ptx -o %t.cubin %}
// RUN: not fusion-opt %s --pass-pipeline="builtin.module(fusion-lower-kernel-ops,gpu.module(convert-scf-to-cf,convert-gpu-to-nvvm,convert-nvvm-to-llvm,reconcile-unrealized-casts),nvvm-attach-target{chip=sm_80},gpu-module-to-binary{format=isa})" 2>&1 | FileCheck %s --check-prefix=SM80

// CHECK-LABEL: gpu.func @copy_tile
// CHECK: nvvm.prefetch tensormap, %{{.*}} : !llvm.ptr
// CHECK: memref.extract_aligned_pointer_as_index
// CHECK: llvm.inttoptr {{.*}} : i64 to !llvm.ptr<3>
// CHECK: llvm.getelementptr {{.*}} : (!llvm.ptr<3>, i64) -> !llvm.ptr<3>, i64
// CHECK: nvvm.mbarrier.init %{{.*}}, %{{.*}} : !llvm.ptr<3>, i32
// CHECK: nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
// CHECK: nvvm.mbarrier.arrive.expect_tx %{{.*}}, %{{.*}} : !llvm.ptr<3>, i32
// CHECK: %[[CLUSTER:.*]] = llvm.addrspacecast %{{.*}} : !llvm.ptr<3> to !llvm.ptr<7>
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global %[[CLUSTER]], %arg0, %{{.*}}, box[%arg3, %arg2] : !llvm.ptr<7>, !llvm.ptr
// CHECK: nvvm.mbarrier.try_wait.parity %{{.*}}, %{{.*}}, %{{.*}} : !llvm.ptr<3>, i32, i32
// CHECK: nvvm.cp.async.bulk.tensor.global.shared.cta %arg1, %{{.*}}, box[%arg3, %arg2]
// CHECK: nvvm.cp.async.bulk.commit.group
// CHECK: nvvm.cp.async.bulk.wait_group 0 {read}
// GONE-NOT: fusion.

// PTX: .shared .align 128 .b8 [[TILE:__wg_copy_tile_[0-9]+]][8192];
// PTX: prefetch.tensormap
// PTX: mbarrier.init.shared.b64
// PTX: fence.proxy.async.shared::cta;
// PTX: mbarrier.arrive.expect_tx.shared.b64
// PTX: cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes
// PTX: mbarrier.try_wait.parity.shared.b64
// PTX: cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group {{.*}}[[[TILE]]]
// PTX: cp.async.bulk.commit_group;
// PTX: cp.async.bulk.wait_group.read 0;

// SM80: error: 'nvvm.cp.async.bulk.tensor.shared.cluster.global' op is not supported on sm_80
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
    gpu.return
  }
}
