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
// Slices are views from their first element, of contiguous, strided and
// transposed inputs alike; a start past the end gives an empty view.
// RUN: fusion-run %s --fusion=sliced --input=64x48 --input=5 | FileCheck %s --check-prefix=SLICED
// RUN: fusion-run %s --fusion=sliced --input=7x1001 --input=1 --layout=0:strided | FileCheck %s --check-prefix=SLICED
// RUN: fusion-run %s --fusion=sliced --input=33x17 --input=3 --layout=0:transposed | FileCheck %s --check-prefix=SLICED
// SLICED: PASS sliced
// RUN: fusion-run %s --fusion=sliced --input=9x8 --input=100 | FileCheck %s --check-prefix=EMPTY
// EMPTY: PASS sliced
// A reshape of a slice is computed by a kernel, not viewed.
// RUN: fusion-run %s --fusion=sliced_flat --input=9x8 --layout=0:strided | FileCheck %s --check-prefix=FLAT
// FLAT: PASS sliced_flat

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

fusion.fusion @sliced(%x: tensor<?x?xbf16> {fusion.name = "x"}, %a: index {fusion.name = "a"}) -> (tensor<?x?xbf16>, tensor<?x?xbf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %m = fusion.dim %x, 0 : tensor<?x?xbf16>
  %n = fusion.dim %x, 1 : tensor<?x?xbf16>
  %s = fusion.slice %x [%c1, %a] [%m, %n] [%c1, %c2] : tensor<?x?xbf16> -> tensor<?x?xbf16>
  %t = fusion.permute %s [1, 0] : tensor<?x?xbf16> -> tensor<?x?xbf16>
  %r = fusion.slice %t [%c1, %c0] [%n, %c2] [%c2, %c1] : tensor<?x?xbf16> -> tensor<?x?xbf16>
  fusion.return %s, %r : tensor<?x?xbf16>, tensor<?x?xbf16>
}

fusion.fusion @sliced_flat(%x: tensor<?x?xf32> {fusion.name = "x"}) -> tensor<?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %m = fusion.dim %x, 0 : tensor<?x?xf32>
  %s = fusion.slice %x [%c0, %c0] [%m, %c3] [%c1, %c1] : tensor<?x?xf32> -> tensor<?x?xf32>
  %k = arith.muli %m, %c3 : index
  %f = fusion.reshape %s (%k) : tensor<?x?xf32> -> tensor<?xf32>
  fusion.return %f : tensor<?xf32>
}
