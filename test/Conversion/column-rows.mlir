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
// Per-element results (Note [Column-major rows with per-element
// results]): softmax gets the variant before the persistent scalar one;
// its results go out through a workgroup tile.
// RUN: fusion-translate %s --fusion=softmax --fusion-to-ptx --no-cubin -o - | FileCheck %s --check-prefix=SOFTMAX
// RUN: fusion-translate %s --fusion=softmax --inner-columns=0 --fusion-to-ptx --no-cubin -o - | FileCheck %s --check-prefix=SOFTMAXOFF
// RUN: fusion-opt %s --fusion-decompose --fusion-segment --fusion-schedule --fusion-lower-kernels | FileCheck %s --check-prefix=LOWER
// Static shared memory: four f64 per-element results would take 64 KB of
// tiles, over the bound, and get no column variant; three f32 ones fit.
// RUN: fusion-translate %s --fusion=many_f64 --fusion-to-ptx --no-cubin -o - | FileCheck %s --check-prefix=MANY
// RUN: fusion-translate %s --fusion=three_f32 --fusion-to-ptx --no-cubin -o - | FileCheck %s --check-prefix=THREE
// A kernel of two passes whose results are all per row gets none (not
// checked on a GPU: its first pass's result would be stored by other
// threads than hold it).
// RUN: fusion-translate %s --fusion=centered --fusion-to-ptx --no-cubin -o - | FileCheck %s --check-prefix=TWOPASS

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

// SOFTMAX: .entry softmax_k0_rv8_i32(
// SOFTMAX: .entry softmax_k0_cs_i32(
// SOFTMAX: .entry softmax_k0_ps_i32(
// SOFTMAX: .entry softmax_k0_s_i32(
// SOFTMAXOFF: .entry softmax_k0_rv8_i32(
// SOFTMAXOFF-NOT: _cs_i32
// SOFTMAXOFF: .entry softmax_k0_ps_i32(
// SOFTMAXOFF-NOT: _cs_i32
// The pass's states move to the usual threads, are reduced there, and come
// back to the loading threads through the same slots: the row's first
// thread writes slot ty, a barrier, each thread reads its loading row's
// slot, a barrier. Then a loop over the whole row length (the same bound in
// every thread: it holds barriers) computes 4 elements per thread into the
// tile, a barrier, 4 guarded stores of the tile to the output, a barrier.
// The tile's rows are the chunk plus 2 bf16 apart (Note [Column tile
// pitch]): 2048 elements and 256 rows' pads.
// LOWER-LABEL: gpu.func @softmax_k0_cs_i32(
// LOWER-SAME: workgroup({{.*}}memref<512xf32, #gpu.address_space<workgroup>>, %[[SUM:[a-z0-9]+]] : memref<512xf32, #gpu.address_space<workgroup>>, %[[TILE:[a-z0-9]+]] : memref<2560xbf16, #gpu.address_space<workgroup>>)
// LOWER: memref.store %{{.*}}, %[[SUM]][%{{.*}}] : memref<512xf32
// LOWER: gpu.barrier
// LOWER: fusion.block_reduce
// LOWER: fusion.block_reduce
// LOWER: scf.if
// LOWER: memref.store %{{.*}}, %[[SUM]]
// LOWER: gpu.barrier
// LOWER: memref.load %[[SUM]]
// LOWER: gpu.barrier
// LOWER: %[[TWO:.*]] = arith.constant 2 : i32
// LOWER-NEXT: %[[PITCH:.*]] = arith.addi %{{.*}}, %[[TWO]] : i32
// LOWER: scf.for %{{.*}} = %{{.*}} to %[[LEN:arg[0-9]+]] step
// LOWER-COUNT-4: arith.muli %{{.*}}, %[[PITCH]] : i32{{$[[:space:]].*}}arith.addi{{.*$[[:space:]].*}}arith.index_cast{{.*$[[:space:]].*}}memref.store %{{.*}}, %[[TILE]]
// LOWER: gpu.barrier
// LOWER-COUNT-4: arith.muli %{{.*}}, %[[PITCH]] : i32{{$[[:space:]].*}}arith.addi{{.*$[[:space:]].*}}arith.index_cast{{.*$[[:space:]].*}}memref.load %[[TILE]]
// LOWER: gpu.barrier
// LOWER: gpu.return
fusion.fusion @softmax(%x: tensor<?x?xbf16>) -> tensor<?x?xbf16> {
  %0 = fusion.softmax %x dim = 1 : tensor<?x?xbf16>
  fusion.return %0 : tensor<?x?xbf16>
}

// MANY: .entry many_f64_k0_ps_i32(
// MANY-NOT: _cs_i32
// THREE: .entry three_f32_k0_cs_i32(
// THREE: .shared .align {{[0-9]+}} .b8 {{.*}}[9216]
// THREE: .shared .align {{[0-9]+}} .b8 {{.*}}[9216]
// THREE: .shared .align {{[0-9]+}} .b8 {{.*}}[9216]
// THREE: .entry three_f32_k0_ps_i32(
fusion.fusion @many_f64(%x: tensor<?x?xf64>) -> (tensor<?x?xf64>, tensor<?x?xf64>, tensor<?x?xf64>, tensor<?x?xf64>) {
  %s = fusion.sum %x [1] keepdim : tensor<?x?xf64> -> tensor<?x1xf64>
  %d0 = fusion.dim %x, 0 : tensor<?x?xf64>
  %d1 = fusion.dim %x, 1 : tensor<?x?xf64>
  %e = fusion.expand %s(%d0, %d1) : tensor<?x1xf64> -> tensor<?x?xf64>
  %a = fusion.div %x, %e : tensor<?x?xf64>
  %b = fusion.mul %x, %e : tensor<?x?xf64>
  %c = fusion.sub %x, %e : tensor<?x?xf64>
  %f = fusion.add %x, %e : tensor<?x?xf64>
  fusion.return %a, %b, %c, %f : tensor<?x?xf64>, tensor<?x?xf64>, tensor<?x?xf64>, tensor<?x?xf64>
}

fusion.fusion @three_f32(%x: tensor<?x?xf32>) -> (tensor<?x?xf32>, tensor<?x?xf32>, tensor<?x?xf32>) {
  %s = fusion.sum %x [1] keepdim : tensor<?x?xf32> -> tensor<?x1xf32>
  %d0 = fusion.dim %x, 0 : tensor<?x?xf32>
  %d1 = fusion.dim %x, 1 : tensor<?x?xf32>
  %e = fusion.expand %s(%d0, %d1) : tensor<?x1xf32> -> tensor<?x?xf32>
  %a = fusion.div %x, %e : tensor<?x?xf32>
  %b = fusion.mul %x, %e : tensor<?x?xf32>
  %c = fusion.sub %x, %e : tensor<?x?xf32>
  fusion.return %a, %b, %c : tensor<?x?xf32>, tensor<?x?xf32>, tensor<?x?xf32>
}

// TWOPASS: .entry centered_k0_v4_i32(
// TWOPASS-NOT: _cs_i32
// TWOPASS: .entry centered_k0_s_i32(
fusion.fusion @centered(%x: tensor<?x?xf32>) -> (tensor<?x1xf32>, tensor<?xf32>) {
  %m = fusion.sum %x [1] keepdim : tensor<?x?xf32> -> tensor<?x1xf32>
  %d0 = fusion.dim %x, 0 : tensor<?x?xf32>
  %d1 = fusion.dim %x, 1 : tensor<?x?xf32>
  %e = fusion.expand %m(%d0, %d1) : tensor<?x1xf32> -> tensor<?x?xf32>
  %d = fusion.sub %x, %e : tensor<?x?xf32>
  %q = fusion.mul %d, %d : tensor<?x?xf32>
  %s = fusion.sum %q [1] : tensor<?x?xf32> -> tensor<?xf32>
  fusion.return %m, %s : tensor<?x1xf32>, tensor<?xf32>
}
