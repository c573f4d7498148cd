// Note [Verification in the pipeline]: the compile entry points turn the
// pass manager's verifier off and verify with --fusion-verify where the
// fusion passes leave the IR. It must catch what the pass manager's
// verifier would have caught.
// RUN: fusion-opt %s --mlir-very-unsafe-disable-verifier-on-parsing --verify-each=0 --fusion-verify --split-input-file --verify-diagnostics
// Without it nothing complains:
// RUN: fusion-opt %s --mlir-very-unsafe-disable-verifier-on-parsing --verify-each=0 --split-input-file | FileCheck %s --check-prefix=UNCHECKED
// UNCHECKED: arith.addi

func.func @mismatched(%a: i32, %b: i64) -> i32 {
  // expected-error @below {{'arith.addi' op requires the same type for all operands and results}}
  %0 = "arith.addi"(%a, %b) : (i32, i64) -> i32
  return %0 : i32
}

// -----

// Valid IR passes through unchanged.
func.func @fine(%a: i32) -> i32 {
  %0 = arith.addi %a, %a : i32
  return %0 : i32
}
