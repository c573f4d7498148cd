// The column-major variant (Note [Column-major rows]) is emitted only for a
// row kernel with an input that spans both the row and the rows' last dim
// (an input that can be column-major); one reading only broadcast vectors
// keeps no such kernel (its guard would be 0). `--inner-columns=0` leaves
// it out everywhere (the schedule's `column_rows = false`).
// RUN: fusion-translate %s --fusion=row_sums --fusion-to-ptx --no-cubin -o - | FileCheck %s --check-prefix=SUMS
// RUN: fusion-translate %s --fusion=row_sums --inner-columns=1 --fusion-to-ptx --no-cubin -o - | FileCheck %s --check-prefix=SUMS
// RUN: fusion-translate %s --fusion=row_sums --inner-columns=0 --fusion-to-ptx --no-cubin -o - | FileCheck %s --check-prefix=OFF
// RUN: fusion-opt %s --fusion-decompose --fusion-segment --fusion-schedule="inner-columns=0" | FileCheck %s --check-prefix=SCHED
// RUN: fusion-opt %s --fusion-decompose --fusion-segment --fusion-schedule | FileCheck %s --check-prefix=DEFAULT
// RUN: fusion-translate %s --fusion=outer_row_sums --fusion-to-ptx --no-cubin -o - | FileCheck %s --check-prefix=OUTER

// SUMS: .entry row_sums_k0_v4_i32(
// SUMS: .entry row_sums_k0_cs_i32(
// SUMS: .entry row_sums_k0_s_i32(
// SUMS: .entry row_sums_k0_s_i64(
// OFF: .entry row_sums_k0_v4_i32(
// OFF-NOT: _cs_i32
// OFF: .entry row_sums_k0_s_i32(
// OFF-NOT: _cs_i32
// SCHED: kernel @row_sums_k0 schedule = #fusion.inner_reduction<{{.*}}column_rows = false>
// DEFAULT: kernel @row_sums_k0 schedule = #fusion.inner_reduction<
// DEFAULT-NOT: column_rows
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
