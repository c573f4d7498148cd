// REQUIRES: cuda
// Reshape, squeeze and permute of an input that are returned need no kernel:
// the outputs alias the input (fusion-run checks them against the
// interpreter like any output). A reshape of a non-contiguous input is
// refused before anything runs.

// RUN: fusion-run %s --fusion=views --input=64x48 | FileCheck %s --check-prefix=VIEWS
// VIEWS: PASS views 64x48xf32 max_abs_err={{.*}} checked=
// RUN: fusion-run %s --fusion=views --input=1x7 | FileCheck %s --check-prefix=SMALL
// SMALL: PASS views 1x7xf32
// RUN: fusion-run %s --fusion=squeezed --input=5x1x9 | FileCheck %s --check-prefix=SQUEEZE
// SQUEEZE: PASS squeezed 5x1x9xbf16
// RUN: not fusion-run %s --fusion=views --input=64x48 --layout=0:strided 2>&1 | FileCheck %s --check-prefix=STRIDED
// STRIDED: input 0 (x) must be contiguous to be reshaped without a copy

fusion.fusion @views(%x: tensor<?x?xf32> {fusion.name = "x"}) -> (tensor<?xf32>, tensor<?x?xf32>, tensor<?x?xf32>) {
  %m = fusion.dim %x, 0 : tensor<?x?xf32>
  %n = fusion.dim %x, 1 : tensor<?x?xf32>
  %mn = arith.muli %m, %n : index
  %flat = fusion.reshape %x (%mn) : tensor<?x?xf32> -> tensor<?xf32>
  %t = fusion.permute %x [1, 0] : tensor<?x?xf32> -> tensor<?x?xf32>
  %e = fusion.exp %x : tensor<?x?xf32>
  fusion.return %flat, %t, %e : tensor<?xf32>, tensor<?x?xf32>, tensor<?x?xf32>
}

fusion.fusion @squeezed(%x: tensor<?x1x?xbf16> {fusion.name = "x"}) -> tensor<?x?xbf16> {
  %s = fusion.squeeze %x [1] : tensor<?x1x?xbf16> -> tensor<?x?xbf16>
  fusion.return %s : tensor<?x?xbf16>
}
