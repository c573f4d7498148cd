// REQUIRES: cuda
// Long persistent rows (Note [Long persistent rows]): rows longer than the
// persistent variant holds and at most twice that take the variant with
// twice the items, against the reference interpreter: bf16 rows of 16392
// to 32768 (the row staged in shared memory: Note [Staged rows heuristic]),
// the same with --inner-stage=2 (two 64 KB buffers
// copied with cp.async on sm_90), and the rows that go on to the next
// variants (longer: a cluster's blocks keep them, Note [Cluster persistent
// rows], or they stream with --inner-long-cluster=0; odd: ragged). The
// definitions are staged-rows.mlir's.
// RUN: fusion-run %S/staged-rows.mlir --fusion=softmax_bf16 --input=300x32768 | FileCheck %s --check-prefix=SM32K
// SM32K: PASS softmax_bf16 300x32768xbf16 {{.*}}variant=softmax_bf16_k0_plv8_i32
// RUN: fusion-run %S/staged-rows.mlir --fusion=softmax_bf16 --inner-cluster=0 --input=50x16392 | FileCheck %s --check-prefix=SM16K
// SM16K: PASS softmax_bf16 50x16392xbf16 {{.*}}variant=softmax_bf16_k0_plv8_i32
// RUN: fusion-run %S/staged-rows.mlir --fusion=softmax_bf16 --input=300x32768 --inner-stage=2 | FileCheck %s --check-prefix=SM32K
// f32 rows: 8 vectors of 4 per thread already (16384 per row); twice
// that would pass 8 vectors: no long variant, longer rows go to the
// cluster variant (or stream without it).
// RUN: fusion-run %S/staged-rows.mlir --fusion=softmax_f32 --input=100x16384 | FileCheck %s --check-prefix=F32
// F32: PASS softmax_f32 100x16384xf32 {{.*}}variant=softmax_f32_k0_pv4_i32
// RUN: fusion-run %S/staged-rows.mlir --fusion=softmax_f32 --input=100x20000 | FileCheck %s --check-prefix=F32LONG
// F32LONG: PASS softmax_f32 100x20000xf32 {{.*}}variant=softmax_f32_k0_cpv4_i32
// RUN: fusion-run %S/staged-rows.mlir --fusion=softmax_f32 --input=100x20000 --inner-long-cluster=0 | FileCheck %s --check-prefix=F32STREAM
// F32STREAM: PASS softmax_f32 100x20000xf32 {{.*}}variant=softmax_f32_k0_v4_i32
// RUN: fusion-run %S/staged-rows.mlir --fusion=layernorm_bf16 --input=100x32000 --input=32000 --input=32000 | FileCheck %s --check-prefix=LN
// RUN: fusion-run %S/staged-rows.mlir --fusion=layernorm_bf16 --input=100x32000 --input=32000 --input=32000 --inner-stage=2 | FileCheck %s --check-prefix=LN
// LN: PASS layernorm_bf16 100x32000xbf16{{.*}}variant=layernorm_bf16_k0_plv8_i32
// The long-row variant stages its row for multi-pass and var_mean kernels
// too (`long_stage`, Note [Staged rows heuristic]); --inner-stage=0 keeps
// it in registers.
// RUN: fusion-run %S/staged-rows.mlir --fusion=layernorm_bf16 --input=100x32000 --input=32000 --input=32000 --inner-stage=0 | FileCheck %s --check-prefix=LN
// RUN: fusion-run %S/staged-rows.mlir --fusion=center_scale_bf16 --input=100x32000 | FileCheck %s --check-prefix=WEL
// RUN: fusion-run %S/staged-rows.mlir --fusion=center_scale_bf16 --input=100x24576 --inner-stage=0 | FileCheck %s --check-prefix=WEL
// RUN: fusion-run %S/staged-rows.mlir --fusion=center_scale_bf16 --input=60x24576 --misalign | FileCheck %s --check-prefix=WELMIS
// WEL: PASS center_scale_bf16 {{.*}}variant=center_scale_bf16_k0_plv8_i32
// WELMIS: PASS center_scale_bf16 60x24576xbf16
// RUN: fusion-run %S/staged-rows.mlir --fusion=rmsnorm_bf16 --inner-cluster=0 --input=64x24576 --input=24576 | FileCheck %s --check-prefix=RMS
// RMS: PASS rmsnorm_bf16 64x24576xbf16{{.*}}variant=rmsnorm_bf16_k0_plv8_i32
// RUN: fusion-run %S/staged-rows.mlir --fusion=add_rmsnorm_bf16 --inner-cluster=0 --input=64x32768 --input=64x32768 --input=32768 | FileCheck %s --check-prefix=ADD
// ADD: PASS add_rmsnorm_bf16 64x32768xbf16{{.*}}variant=add_rmsnorm_bf16_k0_plv8_i32
// RUN: fusion-run %S/staged-rows.mlir --fusion=softmax_bf16 --inner-cluster=0 --input=20x32776 | FileCheck %s --check-prefix=LONGER
// LONGER: PASS softmax_bf16 20x32776xbf16 {{.*}}variant=softmax_bf16_k0_cpv8_i32
// RUN: fusion-run %S/staged-rows.mlir --fusion=softmax_bf16 --inner-cluster=0 --input=20x32776 --inner-long-cluster=0 | FileCheck %s --check-prefix=STREAM
// STREAM: PASS softmax_bf16 20x32776xbf16 {{.*}}variant=softmax_bf16_k0_v8_i32
// RUN: fusion-run %S/staged-rows.mlir --fusion=softmax_bf16 --input=20x20001 | FileCheck %s --check-prefix=ODD
// ODD: PASS softmax_bf16 20x20001xbf16 {{.*}}variant=softmax_bf16_k0_rv8_i32
