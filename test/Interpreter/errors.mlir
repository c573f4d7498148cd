// Bad inputs and run-time errors: a message on stderr and exit code 1.
// RUN: not fusion-interpret %s --fusion=biased --input=2x4xf32 --input=4xf32 2>&1 | FileCheck %s --check-prefix=DTYPE
// RUN: not fusion-interpret %s --fusion=biased --input=2x4xf32 --input=5xbf16 2>&1 | FileCheck %s --check-prefix=SIZE
// RUN: not fusion-interpret %s --fusion=biased --input=2x4x1xf32 --input=4xbf16 2>&1 | FileCheck %s --check-prefix=RANK
// RUN: not fusion-interpret %s --fusion=biased --input=2x4xf32 2>&1 | FileCheck %s --check-prefix=COUNT
// RUN: not fusion-interpret %s --fusion=biased --input=2xqx4 --input=4xbf16 2>&1 | FileCheck %s --check-prefix=SPEC
// RUN: not fusion-interpret %s --fusion=biased --input='2x4=[1,2]' --input=4xbf16 2>&1 | FileCheck %s --check-prefix=VALUES
// RUN: not fusion-interpret %s --fusion=biased --input=%t.missing.npy --input=4xbf16 2>&1 | FileCheck %s --check-prefix=NPY
// RUN: not fusion-interpret %s --input=2x4xf32 --input=4xbf16 2>&1 | FileCheck %s --check-prefix=WHICH
// RUN: not fusion-interpret %s --fusion=nope 2>&1 | FileCheck %s --check-prefix=NAME
// RUN: not fusion-interpret %s --fusion=mul --input=3 --input=4 2>&1 | FileCheck %s --check-prefix=SHAPES
// RUN: not fusion-interpret %s --fusion=select --input=3=iota --input='2xi64=[0,3]' 2>&1 | FileCheck %s --check-prefix=INDEX
// RUN: not fusion-interpret %s --fusion=mul 2>&1 | FileCheck %s --check-prefix=DYNAMIC
// RUN: echo 'func.func @g() { return }' > %t.nofusion.mlir
// RUN: not fusion-interpret %t.nofusion.mlir 2>&1 | FileCheck %s --check-prefix=NOFUSION
// RUN: echo 'fusion.fusion @g() { fusion.bogus }' > %t.bad.mlir
// RUN: not fusion-interpret %t.bad.mlir 2>&1 | FileCheck %s --check-prefix=PARSE

// DTYPE: fusion-interpret: error: input 1 (bias): expected dtype bf16, got f32
// SIZE: fusion-interpret: error: input 1 (bias): dim 0 expected size 4, got 5 (tensor<5xbf16> for tensor<4xbf16>)
// RANK: fusion-interpret: error: input 0 (x): expected rank 2 (tensor<?x4xf32>), got rank 3 (tensor<2x4x1xf32>)
// COUNT: fusion-interpret: error: fusion @biased has 2 inputs but 1 --input options were given
// SPEC: fusion-interpret: error: input 0 (x): cannot parse '2xqx4': expected DIMSxDTYPE like 2x3xf32, a .npy file, or =VALUES
// VALUES: fusion-interpret: error: input 0 (x): 2 values for a shape of 8 elements
// NPY: fusion-interpret: error: cannot read '{{.*}}missing.npy'
// WHICH: fusion-interpret: error: '{{.*}}errors.mlir' has 3 fusions (@biased @mul @select); pick one with --fusion=NAME
// NAME: fusion-interpret: error: no fusion named @nope in
// SHAPES: fusion-interpret: error: 'fusion.mul' at {{.*}}errors.mlir:[[@LINE+16]]:8: operand 1 has shape [4] but operand 0 has [3]; element-wise operands need one shape
// INDEX: fusion-interpret: error: 'fusion.index_select' at {{.*}}errors.mlir:[[@LINE+20]]:8: index 3 at position 1 is out of range [0, 3) of dim 0
// NOFUSION: fusion-interpret: error: '{{.*}}nofusion.mlir' has no fusion.fusion
// PARSE: error: custom op 'fusion.bogus' is unknown
// PARSE: fusion-interpret: error: cannot parse '{{.*}}bad.mlir'
// DYNAMIC: fusion-interpret: error: input 0 (a): tensor<?xf32> has dynamic dims; give the shape, e.g. --input=2xf32

fusion.fusion @biased(%x: tensor<?x4xf32> {fusion.name = "x"}, %bias: tensor<4xbf16> {fusion.name = "bias"}) -> tensor<?x4xf32> {
  %b = fusion.cast %bias : tensor<4xbf16> to tensor<4xf32>
  %m = fusion.dim %x, 0 : tensor<?x4xf32>
  %bb = fusion.broadcast_in_dim %b [1] (%m) : tensor<4xf32> -> tensor<?x4xf32>
  %r = fusion.add %x, %bb : tensor<?x4xf32>
  fusion.return %r : tensor<?x4xf32>
}

fusion.fusion @mul(%a: tensor<?xf32> {fusion.name = "a"}, %b: tensor<?xf32>) -> tensor<?xf32> {
  %r = fusion.mul %a, %b : tensor<?xf32>
  fusion.return %r : tensor<?xf32>
}

fusion.fusion @select(%x: tensor<?xf32>, %i: tensor<?xi64>) -> tensor<?xf32> {
  %r = fusion.index_select %x, %i dim = 0 : tensor<?xf32>, tensor<?xi64> -> tensor<?xf32>
  fusion.return %r : tensor<?xf32>
}
