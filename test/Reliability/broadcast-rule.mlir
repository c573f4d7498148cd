// One rule for size-1 dims (item 10; docs/dialect.md: broadcasting is
// explicit): element-wise operands have equal sizes, and only
// broadcast_in_dim and expand stretch a size-1 dim. The compiled plan
// (fusion-run --verbose makes the plan before it needs a GPU) and the
// interpreter agree; the Python CPU path runs the interpreter. Before, the
// plan of add_relu took b = 1x3 with a = 2x3 (stride 0).
// RUN: not fusion-run %s --fusion=add_relu --input=2x3 --input=1x3 --verbose 2>&1 | FileCheck %s --check-prefix=PLAN
// RUN: not fusion-interpret %s --fusion=add_relu --input=2x3xf32 --input=1x3xf32 2>&1 | FileCheck %s --check-prefix=INTERP
// (fusion-run exits 2 where there is no GPU, after the plan.)
// RUN: fusion-run %s --fusion=bias --input=2x3 --input=1 --verbose > %t.bcast 2>&1 || true
// RUN: FileCheck %s --check-prefix=BCAST < %t.bcast
// RUN: fusion-interpret %s --fusion=bias --input=2x3xf32 --input=1xf32 | FileCheck %s --check-prefix=BCAST-INTERP
// RUN: not fusion-run %s --fusion=bias --input=2x3 --input=2 --verbose 2>&1 | FileCheck %s --check-prefix=BAD-BCAST
// RUN: not fusion-interpret %s --fusion=bias --input=2x3xf32 --input=2xf32 2>&1 | FileCheck %s --check-prefix=BAD-BCAST-INTERP

// PLAN: ConstraintViolation: input constraint violated: input 1 (arg1) dim 0 must equal input 0 (arg0) dim 0, as operands of 'fusion.add' (broadcasting is explicit: broadcast_in_dim or expand) (1 != 2)
// INTERP: error: 'fusion.add' at {{.*}}: operand 1 has shape [1, 3] but operand 0 has [2, 3]; element-wise operands need one shape

// BCAST: # launch 0: bias_k0_
// BCAST-NOT: ConstraintViolation
// BCAST-INTERP: out0: tensor<2x3xf32>
// BAD-BCAST: ConstraintViolation: input constraint violated: input 1 (arg1) dim 0 must equal result dim 1 or be 1 (2 != 3)
// BAD-BCAST-INTERP: error: 'fusion.broadcast_in_dim' at {{.*}}: operand dim 0 (size 2) cannot broadcast to result dim 1 (size 3)

fusion.fusion @add_relu(%a: tensor<?x?xf32>, %b: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %0 = fusion.add %a, %b : tensor<?x?xf32>
  %1 = fusion.relu %0 : tensor<?x?xf32>
  fusion.return %1 : tensor<?x?xf32>
}

fusion.fusion @bias(%x: tensor<?x?xf32>, %b: tensor<?xf32>) -> tensor<?x?xf32> {
  %m = fusion.dim %x, 0 : tensor<?x?xf32>
  %n = fusion.dim %x, 1 : tensor<?x?xf32>
  %bb = fusion.broadcast_in_dim %b [1](%m, %n) : tensor<?xf32> -> tensor<?x?xf32>
  %r = fusion.add %x, %bb : tensor<?x?xf32>
  fusion.return %r : tensor<?x?xf32>
}
