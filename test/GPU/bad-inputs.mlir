// Bad inputs give the runtime's typed error before any GPU is touched:
// fusion-run checks them with Executable::plan() on stand-in pointers, so
// this test needs no GPU. Exit status 1.

// RUN: not fusion-run %s --no-cubin --input=8x4:bf16 --input=8x4 2>&1 | FileCheck %s --check-prefix=DTYPE
// DTYPE: fusion-run: WrongDType: input 0 (a): expected dtype f32, got bf16

// RUN: not fusion-run %s --no-cubin --input=8x4 --input=4 2>&1 | FileCheck %s --check-prefix=RANK
// RANK: fusion-run: WrongRank: input 1 (b): expected rank 2, got 1

// RUN: not fusion-run %s --no-cubin --input=8x4 --input=8x5 2>&1 | FileCheck %s --check-prefix=DIMS
// DIMS: fusion-run: ConstraintViolation: {{.*}}input 1 (b) dim 1 must equal input 0 (a) dim 1, as operands of 'fusion.add' (broadcasting is explicit: broadcast_in_dim or expand) (5 != 4)

// RUN: not fusion-run %s --no-cubin --input=8x4 --input=9x4 2>&1 | FileCheck %s --check-prefix=DIMS0
// DIMS0: fusion-run: ConstraintViolation: {{.*}}input 1 (b) dim 0 must equal input 0 (a) dim 0, as operands of 'fusion.add' (broadcasting is explicit: broadcast_in_dim or expand) (9 != 8)

// RUN: not fusion-run %s --no-cubin --input=8x4 2>&1 | FileCheck %s --check-prefix=COUNT
// COUNT: fusion-run: WrongInputCount: wrong number of inputs: expected 2, got 1

// RUN: not fusion-run %s --no-cubin --input=8x4 --input=0.5 2>&1 | FileCheck %s --check-prefix=KIND
// KIND: fusion-run: WrongInputKind: input 1 (b): expected a tensor, got a scalar

// The same checks through a module file.
// RUN: fusion-translate %s --fusion-to-module --no-cubin -o %t.fusionmod
// RUN: not fusion-run %t.fusionmod --input=8x4 --input=8x4:i32 2>&1 | FileCheck %s --check-prefix=MODULE
// MODULE: fusion-run: WrongDType: input 1 (b): expected dtype f32, got i32

// Errors of the command line itself.
// RUN: not fusion-run %s --no-cubin --input=8x4:f33 --input=8x4 2>&1 | FileCheck %s --check-prefix=NAME
// NAME: fusion-run: input 0 (a): unknown dtype 'f33' in --input=8x4:f33
// RUN: not fusion-run %s --no-cubin --input=8y4 --input=8x4 2>&1 | FileCheck %s --check-prefix=SPEC
// SPEC: fusion-run: input 0 (a): cannot parse --input=8y4
// RUN: not fusion-run %s --no-cubin --input=8x4 --input=8x4 --layout=2:strided 2>&1 | FileCheck %s --check-prefix=LAYOUT
// LAYOUT: fusion-run: --layout=2:strided: there are only 2 --input options
// RUN: not fusion-run %s --no-cubin --input=8 --input=8 --layout=0:transposed 2>&1 | FileCheck %s --check-prefix=TRANSPOSED
// TRANSPOSED: fusion-run: input 0 (a): a transposed layout needs rank 2 or more
// RUN: not fusion-run %s --fusion=nope --input=8x4 --input=8x4 2>&1 | FileCheck %s --check-prefix=FUSION
// FUSION: fusion-run: no fusion named @nope in

fusion.fusion @add_relu(%a: tensor<?x?xf32> {fusion.name = "a"}, %b: tensor<?x?xf32> {fusion.name = "b"}) -> tensor<?x?xf32> {
  %0 = fusion.add %a, %b : tensor<?x?xf32>
  %1 = fusion.relu %0 : tensor<?x?xf32>
  fusion.return %1 : tensor<?x?xf32>
}
