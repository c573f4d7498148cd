// A reshape of a reshape of an input made the segmenter's view test recurse
// up and down the chain forever (a stack overflow: fusion-translate and
// fusion-run crashed on RoPE-style imports). A chain of views that is
// returned needs no kernel; one that feeds compute is part of the kernel.
// RUN: fusion-translate %s --fusion=chain_into_compute --fusion-to-ptx --no-cubin -o %t.ptx
// RUN: FileCheck %s --check-prefix=PTX < %t.ptx
// RUN: fusion-translate %s --fusion=chain_returned --fusion-to-lowered-ir --no-cubin | FileCheck %s --check-prefix=VIEW
// RUN: fusion-opt %s --fusion-segment | FileCheck %s --check-prefix=SEGMENT
// RUN: fusion-interpret %s --fusion=chain_into_compute --input=2x6xf32=iota --print | FileCheck %s --check-prefix=VALUES

// PTX: .entry chain_into_compute_k0
// SEGMENT-LABEL: fusion.fusion @chain_into_compute
// SEGMENT: kernel @chain_into_compute_k0
// SEGMENT: reshape
// SEGMENT: reshape
// SEGMENT: add
// VALUES: [0, 2, 4]
// VALUES: [18, 20, 22]
fusion.fusion @chain_into_compute(%x: tensor<?x6xf32>) -> tensor<?x3xf32> {
  %c2 = arith.constant 2 : index
  %c6 = arith.constant 6 : index
  %d0 = fusion.dim %x, 0 : tensor<?x6xf32>
  %n = arith.muli %d0, %c2 : index
  %f = arith.muli %d0, %c6 : index
  %flat = fusion.reshape %x(%f) : tensor<?x6xf32> -> tensor<?xf32>
  %y = fusion.reshape %flat(%n) : tensor<?xf32> -> tensor<?x3xf32>
  %z = fusion.add %y, %y : tensor<?x3xf32>
  fusion.return %z : tensor<?x3xf32>
}

// VIEW-NOT: gpu.binary
// SEGMENT-LABEL: fusion.fusion @chain_returned
// SEGMENT-NOT: kernel @
// SEGMENT: return
fusion.fusion @chain_returned(%x: tensor<?x6xf32>) -> tensor<?x2x3xf32> {
  %c6 = arith.constant 6 : index
  %d0 = fusion.dim %x, 0 : tensor<?x6xf32>
  %f = arith.muli %d0, %c6 : index
  %flat = fusion.reshape %x(%f) : tensor<?x6xf32> -> tensor<?xf32>
  %y = fusion.reshape %flat(%d0) : tensor<?xf32> -> tensor<?x2x3xf32>
  %t = fusion.permute %y [0, 1, 2] : tensor<?x2x3xf32> -> tensor<?x2x3xf32>
  fusion.return %t : tensor<?x2x3xf32>
}

// A chain whose first view a kernel also reads: the second view is not a
// host view (it would view a kernel result); it compiles as kernels.
// RUN: fusion-translate %s --fusion=chain_shared --fusion-to-ptx --no-cubin -o %t.shared.ptx
// RUN: FileCheck %s --check-prefix=SHARED < %t.shared.ptx
// SHARED: .entry chain_shared_k0
// SEGMENT-LABEL: fusion.fusion @chain_shared
// SEGMENT: kernel @chain_shared_k0
// SEGMENT: reshape
// SEGMENT: add
// SEGMENT: kernel @chain_shared_k1
// SEGMENT: reshape
fusion.fusion @chain_shared(%x: tensor<?x6xf32>) -> (tensor<?xf32>, tensor<?x3xf32>) {
  %c2 = arith.constant 2 : index
  %c6 = arith.constant 6 : index
  %d0 = fusion.dim %x, 0 : tensor<?x6xf32>
  %f = arith.muli %d0, %c6 : index
  %n = arith.muli %d0, %c2 : index
  %flat = fusion.reshape %x(%f) : tensor<?x6xf32> -> tensor<?xf32>
  %y = fusion.reshape %flat(%n) : tensor<?xf32> -> tensor<?x3xf32>
  %z = fusion.add %flat, %flat : tensor<?xf32>
  fusion.return %z, %y : tensor<?xf32>, tensor<?x3xf32>
}
