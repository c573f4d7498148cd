// fusion-translate --lowered-to-module (Note [Lowered modules]): a lowered
// module of hand-written kernels (test/GPU/tma.mlir: a host program that
// maps its input for a TMA kernel, and a plain fallback) goes through the
// pipeline's tail to a module file holding the definition, which
// fusion-run's reference runs. Without --definition, or with a launch
// argument that is no tensor map where the kernel takes one, it says so.
// RUN: fusion-translate %S/../GPU/tma.mlir --lowered-to-module --definition=%S/../GPU/Inputs/tma-double.mlir --no-cubin -o %t.fusionmod
// RUN: fusion-run %t.fusionmod --reference-only --input=9x68 | FileCheck %s
// CHECK: REFERENCE tma_double 9x68xf32
// test/GPU/cluster.mlir (a cluster launch of a cluster reduction) too:
// RUN: fusion-translate %S/../GPU/cluster.mlir --lowered-to-module --definition=%S/../GPU/Inputs/row-sum.mlir --no-cubin -o %t.cluster
// RUN: fusion-run %t.cluster --reference-only --input=37x1000 | FileCheck %s --check-prefix=SUM
// SUM: REFERENCE row_sum 37x1000xf32
// A cluster has 3 dims:
// RUN: sed 's/cluster(%c4, %c1, %c1)/cluster(%c4, %c1)/' %S/../GPU/cluster.mlir | not fusion-translate - --lowered-to-module --definition=%S/../GPU/Inputs/row-sum.mlir -o %t4 2>&1 | FileCheck %s --check-prefix=DIMS
// DIMS: error: 'fusion.launch' op has 2 cluster dims; a cluster has 3 (x, y, z)
// Bulk copies and clusters need sm_90: for sm_80 the op says so (Note
// [Verification in the pipeline]: the kernel modules are verified once their
// target is attached), never an LLVM crash:
// RUN: not fusion-translate %S/../GPU/tma.mlir --chip=sm_80 --lowered-to-module --definition=%S/../GPU/Inputs/tma-double.mlir --no-cubin -o %t5 2>&1 | FileCheck %s --check-prefix=SM80-TMA
// SM80-TMA: error: 'nvvm.cp.async.bulk.tensor.shared.cluster.global' op is not supported on sm_80
// RUN: not fusion-translate %S/../GPU/cluster.mlir --chip=sm_80 --lowered-to-module --definition=%S/../GPU/Inputs/row-sum.mlir --no-cubin -o %t6 2>&1 | FileCheck %s --check-prefix=SM80-CLUSTER
// SM80-CLUSTER: error: 'nvvm.read.ptx.sreg.cluster.ctarank' op is not supported on sm_80
// RUN: not fusion-translate %S/../GPU/tma.mlir --lowered-to-module -o %t2 2>&1 | FileCheck %s --check-prefix=NODEF
// NODEF: fusion-translate: --lowered-to-module needs --definition=FILE
// RUN: not fusion-translate %s --lowered-to-module --definition=%S/../GPU/Inputs/tma-double.mlir --no-cubin -o %t3 2>&1 | FileCheck %s --check-prefix=NOMAP
// NOMAP: error: 'fusion.launch' op passes <block argument> of type 'tensor<?x?xf32>' at index: 0 where the kernel takes a tensor map; expected the result of a fusion.tensor_map

module attributes {gpu.container_module} {
  fusion.fusion @tma_double(%x: tensor<?x?xf32> {fusion.name = "x"}) -> tensor<?x?xf32> {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c128 = arith.constant 128 : index
    %m = fusion.dim %x, 0 : tensor<?x?xf32>
    %n = fusion.dim %x, 1 : tensor<?x?xf32>
    %out = fusion.empty(%m, %n) : tensor<?x?xf32>
    fusion.launch @k::@k grid(%m, %c1, %c1) block(%c128, %c1, %c1) smem(%c0) args(%x, %out) {param_types = [!llvm.ptr, memref<?xf32>]} : tensor<?x?xf32>, tensor<?x?xf32>
    fusion.return %out : tensor<?x?xf32>
  }
  gpu.module @k {
    gpu.func @k(%map: !llvm.ptr, %out: memref<?xf32>) kernel attributes {fusion.tensor_maps = 1 : i64} {
      gpu.return
    }
  }
}
