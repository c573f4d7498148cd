// Deep inputs (item 4): a chain of 20,000 element-wise ops compiles (it
// overflowed the stack in the lowering's recursive generator, Note [Deep
// chains]); an attribute nested 20,000 deep is refused before MLIR's
// recursive parser sees it (Note [Tool limits]).
// RUN: python3 %S/Inputs/make-deep.py chain 20000 %t.chain.mlir
// RUN: fusion-opt %t.chain.mlir --fusion-decompose --fusion-segment --fusion-schedule --fusion-lower-kernels | FileCheck %s --check-prefix=CHAIN
// The whole pipeline to PTX on a chain of 2,000 (20,000 take 25 s there).
// RUN: python3 %S/Inputs/make-deep.py chain 2000 %t.short.mlir
// RUN: fusion-translate %t.short.mlir --fusion-to-ptx --no-cubin -o %t.short.ptx
// RUN: FileCheck %s --check-prefix=PTX < %t.short.ptx
// RUN: python3 %S/Inputs/make-deep.py nested 20000 %t.nested.mlir
// RUN: not fusion-opt %t.nested.mlir 2>&1 | FileCheck %s --check-prefix=NESTED
// RUN: not fusion-translate %t.nested.mlir --fusion-to-ptx -o /dev/null 2>&1 | FileCheck %s --check-prefix=NESTED
// RUN: not fusion-interpret %t.nested.mlir --input=4 2>&1 | FileCheck %s --check-prefix=NESTED
// RUN: python3 %S/Inputs/make-deep.py nested 900 %t.ok.mlir
// RUN: fusion-opt %t.ok.mlir -o /dev/null

// Chains this long are compute-bound (Note [Compute-bound kernels]): the
// scalar variant and its 64-bit fallback.
// CHAIN: gpu.func @chain_k0_s_i32
// CHAIN: gpu.func @chain_k0_s_i64
// PTX: .entry chain_k0_s_i32
// NESTED: error: brackets nest deeper than 1000 levels here: the input is refused
