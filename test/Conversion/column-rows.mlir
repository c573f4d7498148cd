// The column-major variant (Note [Column-major rows]) is emitted only for a
// row kernel with an input that spans both the row and the rows' last dim
// (an input that can be column-major); one reading only broadcast vectors
// keeps no such kernel (its guard would be 0).
// RUN: fusion-translate %s --fusion=row_sums --fusion-to-ptx --no-cubin -o - | FileCheck %s --check-prefix=SUMS
// RUN: fusion-translate %s --fusion=outer_row_sums --fusion-to-ptx --no-cubin -o - | FileCheck %s --check-prefix=OUTER

// SUMS: .entry row_sums_k0_v4_i32(
// SUMS: .entry row_sums_k0_cs_i32(
// SUMS: .entry row_sums_k0_s_i32(
// SUMS: .entry row_sums_k0_s_i64(
fusion.fusion @row_sums(%x: tensor<?x?xf32>) -> tensor<?xf32> {
  %0 = fusion.sum %x [1] : tensor<?x?xf32> -> tensor<?xf32>
  fusion.return %0 : tensor<?xf32>
}

// OUTER: .entry outer_row_sums_k0_v4_i32(
// OUTER-NOT: _cs_i32
// OUTER: .entry outer_row_sums_k0_s_i32(
// OUTER-NOT: _cs_i32
fusion.fusion @outer_row_sums(%r: tensor<?xf32>, %c: tensor<?xf32>) -> tensor<?xf32> {
  %m = fusion.dim %r, 0 : tensor<?xf32>
  %n = fusion.dim %c, 0 : tensor<?xf32>
  %rb = fusion.broadcast_in_dim %r [0] (%m, %n) : tensor<?xf32> -> tensor<?x?xf32>
  %cb = fusion.broadcast_in_dim %c [1] (%m, %n) : tensor<?xf32> -> tensor<?x?xf32>
  %p = fusion.mul %rb, %cb : tensor<?x?xf32>
  %0 = fusion.sum %p [1] : tensor<?x?xf32> -> tensor<?xf32>
  fusion.return %0 : tensor<?xf32>
}
