// REQUIRES: cuda
// Broadcasts: a bias along rows (one value per column), along columns (one
// value per row), a scalar, a size-1 dim, and a middle dim of rank 3.

// RUN: fusion-run %s --fusion=rows --input=1000x37 --input=37 | FileCheck %s --check-prefix=ROWS
// ROWS: PASS rows 1000x37xf32,37xf32 max_abs_err=
// RUN: fusion-run %s --fusion=rows --input=256x1024 --input=1024 | FileCheck %s --check-prefix=ROWSV
// ROWSV: PASS rows 256x1024xf32,1024xf32 {{.*}} variant={{.*}}_v{{[0-9]+}}_i32
// RUN: fusion-run %s --fusion=cols --input=1000x37 --input=1000 | FileCheck %s --check-prefix=COLS
// COLS: PASS cols 1000x37xf32,1000xf32 max_abs_err=
// RUN: fusion-run %s --fusion=cols --input=256x1024 --input=256 | FileCheck %s --check-prefix=COLSV
// COLSV: PASS cols 256x1024xf32,256xf32 max_abs_err=
// RUN: fusion-run %s --fusion=scalar --input=1000x37 --input=0.75 | FileCheck %s --check-prefix=SCALAR
// SCALAR: PASS scalar 1000x37xf32,0.75:f32 max_abs_err=
// RUN: fusion-run %s --fusion=scalar --input=1000x37 --input=-3.5 | FileCheck %s --check-prefix=NEG
// NEG: PASS scalar 1000x37xf32,-3.5:f32 max_abs_err=
// RUN: fusion-run %s --fusion=unit --input=1000x37 --input=1x37 | FileCheck %s --check-prefix=UNIT
// UNIT: PASS unit 1000x37xf32,1x37xf32 max_abs_err=
// RUN: fusion-run %s --fusion=middle --input=9x100x13 --input=100 | FileCheck %s --check-prefix=MIDDLE
// MIDDLE: PASS middle 9x100x13xbf16,100xbf16 max_abs_err=
// Broadcast operands may be strided too.
// RUN: fusion-run %s --fusion=rows --input=1000x37 --input=37 --layout=1:strided | FileCheck %s --check-prefix=ROWSS
// ROWSS: PASS rows 1000x37xf32,37xf32 max_abs_err=

fusion.fusion @rows(%x: tensor<?x?xf32>, %bias: tensor<?xf32>) -> tensor<?x?xf32> {
  %m = fusion.dim %x, 0 : tensor<?x?xf32>
  %n = fusion.dim %x, 1 : tensor<?x?xf32>
  %b = fusion.broadcast_in_dim %bias [1] (%m, %n) : tensor<?xf32> -> tensor<?x?xf32>
  %0 = fusion.add %x, %b : tensor<?x?xf32>
  %1 = fusion.relu %0 : tensor<?x?xf32>
  fusion.return %1 : tensor<?x?xf32>
}

fusion.fusion @cols(%x: tensor<?x?xf32>, %bias: tensor<?xf32>) -> tensor<?x?xf32> {
  %m = fusion.dim %x, 0 : tensor<?x?xf32>
  %n = fusion.dim %x, 1 : tensor<?x?xf32>
  %b = fusion.broadcast_in_dim %bias [0] (%m, %n) : tensor<?xf32> -> tensor<?x?xf32>
  %0 = fusion.mul %x, %b : tensor<?x?xf32>
  fusion.return %0 : tensor<?x?xf32>
}

fusion.fusion @scalar(%x: tensor<?x?xf32>, %s: f32) -> tensor<?x?xf32> {
  %m = fusion.dim %x, 0 : tensor<?x?xf32>
  %n = fusion.dim %x, 1 : tensor<?x?xf32>
  %b = fusion.broadcast_in_dim %s [] (%m, %n) : f32 -> tensor<?x?xf32>
  %0 = fusion.mul %x, %b : tensor<?x?xf32>
  %1 = fusion.sub %0, %x : tensor<?x?xf32>
  fusion.return %1 : tensor<?x?xf32>
}

fusion.fusion @unit(%x: tensor<?x?xf32>, %r: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %m = fusion.dim %x, 0 : tensor<?x?xf32>
  %n = fusion.dim %x, 1 : tensor<?x?xf32>
  %b = fusion.broadcast_in_dim %r [0, 1] (%m, %n) : tensor<?x?xf32> -> tensor<?x?xf32>
  %0 = fusion.sub %x, %b : tensor<?x?xf32>
  fusion.return %0 : tensor<?x?xf32>
}

fusion.fusion @middle(%x: tensor<?x?x?xbf16>, %bias: tensor<?xbf16>) -> tensor<?x?x?xbf16> {
  %a = fusion.dim %x, 0 : tensor<?x?x?xbf16>
  %k = fusion.dim %x, 1 : tensor<?x?x?xbf16>
  %n = fusion.dim %x, 2 : tensor<?x?x?xbf16>
  %b = fusion.broadcast_in_dim %bias [1] (%a, %k, %n) : tensor<?xbf16> -> tensor<?x?x?xbf16>
  %0 = fusion.add %x, %b : tensor<?x?x?xbf16>
  %1 = fusion.sigmoid %0 : tensor<?x?x?xbf16>
  fusion.return %1 : tensor<?x?x?xbf16>
}
