// RUN: not fusion-opt %s --fusion-decompose --fusion-segment --fusion-schedule --fusion-lower-kernels="transpose-tile=48" 2>&1 | FileCheck %s --check-prefix=BAD
// RUN: fusion-opt %s --fusion-decompose --fusion-segment --fusion-schedule --fusion-lower-kernels="transpose-tile=32" | FileCheck %s --check-prefix=T32
// RUN: fusion-opt %s --fusion-decompose --fusion-segment --fusion-schedule --fusion-lower-kernels="inner-min-blocks=2" | FileCheck %s --check-prefix=MIN

// BAD: transpose-tile must be 16, 32 or 64, got 48

// A 32 x 32 tile: 32 * 33 staged elements, 4 per thread and phase.
// T32: launch @transpose_kernels::@transpose_k0_t32_i32
// T32-LABEL: gpu.func @transpose_k0_t32_i32
// T32-SAME: memref<1056xbf16, #gpu.address_space<workgroup>>
// T32-COUNT-4: memref.store {{.*}} : memref<1056xbf16, #gpu.address_space<workgroup>>
// T32-NOT: memref.store {{.*}} : memref<1056xbf16, #gpu.address_space<workgroup>>
// T32: gpu.barrier
fusion.fusion @transpose(%x: tensor<?x?xbf16>) -> tensor<?x?xbf16> {
  %0 = fusion.permute %x [1, 0] : tensor<?x?xbf16> -> tensor<?x?xbf16>
  %1 = fusion.set %0 : tensor<?x?xbf16>
  fusion.return %1 : tensor<?x?xbf16>
}

// inner-min-blocks bounds the registers of the persistent variants only.
// MIN-LABEL: gpu.func @softmax_k0_pv8_i32
// MIN-SAME: nvvm.minctasm = 2 : i32
// MIN-LABEL: gpu.func @softmax_k0_ps_i32
// MIN-SAME: nvvm.minctasm = 2 : i32
// MIN-LABEL: gpu.func @softmax_k0_v8_i32
// MIN-NOT: minctasm
// MIN: gpu.return
fusion.fusion @softmax(%x: tensor<?x?xbf16>) -> tensor<?x?xbf16> {
  %0 = fusion.softmax %x dim = 1 : tensor<?x?xbf16>
  fusion.return %0 : tensor<?x?xbf16>
}
