// Malformed integer lists (a fuzz finding, docs/fuzzing.md): LLVM 22's
// parsers of linalg.transpose, linalg.broadcast and linalg.reduce crashed
// (SIGSEGV, a null attribute stored in the op) on a `permutation` or
// `dimensions` list that does not parse. The tools refuse such a list before
// parsing, with an error at the first character that does not fit (Note
// [Integer lists]), and still take every list the parser takes.
// RUN: split-file %s %t
// The fuzzer's reproducer, as it was found.
// RUN: not fusion-opt %S/Inputs/crash-68ee6b48457a12d3c4afa17b855bf6f72662defa.mlir 2>&1 | FileCheck %s --check-prefix=REPRO
// RUN: not fusion-translate %S/Inputs/crash-68ee6b48457a12d3c4afa17b855bf6f72662defa.mlir --fusion-to-ptx -o /dev/null 2>&1 | FileCheck %s --check-prefix=REPRO
// RUN: not fusion-opt < %S/Inputs/crash-68ee6b48457a12d3c4afa17b855bf6f72662defa.mlir 2>&1 | FileCheck %s --check-prefix=STDIN
// RUN: not fusion-interpret %S/Inputs/crash-68ee6b48457a12d3c4afa17b855bf6f72662defa.mlir --fusion=named 2>&1 | FileCheck %s --check-prefix=REPRO
// RUN: not fusion-run %S/Inputs/crash-68ee6b48457a12d3c4afa17b855bf6f72662defa.mlir --reference-only 2>&1 | FileCheck %s --check-prefix=REPRO
// Each way a list went wrong, through fusion-opt and fusion-translate.
// RUN: not fusion-opt %t/question.mlir 2>&1 | FileCheck %s --check-prefix=QUESTION
// RUN: not fusion-translate %t/question.mlir --fusion-to-ptx -o /dev/null 2>&1 | FileCheck %s --check-prefix=QUESTION
// RUN: not fusion-opt %t/backtick.mlir 2>&1 | FileCheck %s --check-prefix=BACKTICK
// RUN: not fusion-translate %t/backtick.mlir --fusion-to-ptx -o /dev/null 2>&1 | FileCheck %s --check-prefix=BACKTICK
// RUN: not fusion-opt %t/backslash.mlir 2>&1 | FileCheck %s --check-prefix=BACKSLASH
// RUN: not fusion-translate %t/backslash.mlir --fusion-to-ptx -o /dev/null 2>&1 | FileCheck %s --check-prefix=BACKSLASH
// RUN: not fusion-opt %t/non-ascii.mlir 2>&1 | FileCheck %s --check-prefix=NON-ASCII
// RUN: not fusion-translate %t/non-ascii.mlir --fusion-to-ptx -o /dev/null 2>&1 | FileCheck %s --check-prefix=NON-ASCII
// RUN: not fusion-opt %t/unterminated.mlir 2>&1 | FileCheck %s --check-prefix=UNTERMINATED
// RUN: not fusion-translate %t/unterminated.mlir --fusion-to-ptx -o /dev/null 2>&1 | FileCheck %s --check-prefix=UNTERMINATED
// RUN: not fusion-opt %t/no-bracket.mlir 2>&1 | FileCheck %s --check-prefix=NO-BRACKET
// RUN: not fusion-translate %t/no-bracket.mlir --fusion-to-ptx -o /dev/null 2>&1 | FileCheck %s --check-prefix=NO-BRACKET
// RUN: not fusion-opt %t/out-of-range.mlir 2>&1 | FileCheck %s --check-prefix=OUT-OF-RANGE
// RUN: not fusion-translate %t/out-of-range.mlir --fusion-to-ptx -o /dev/null 2>&1 | FileCheck %s --check-prefix=OUT-OF-RANGE
// RUN: not fusion-opt %t/broadcast.mlir 2>&1 | FileCheck %s --check-prefix=BROADCAST
// RUN: not fusion-translate %t/broadcast.mlir --fusion-to-ptx -o /dev/null 2>&1 | FileCheck %s --check-prefix=BROADCAST
// RUN: not fusion-opt %t/reduce.mlir 2>&1 | FileCheck %s --check-prefix=REDUCE
// RUN: not fusion-translate %t/reduce.mlir --fusion-to-ptx -o /dev/null 2>&1 | FileCheck %s --check-prefix=REDUCE
// Valid lists still parse, in the printer's spelling and in others the
// parser takes; attribute dictionaries with those keys are not checked.
// RUN: fusion-opt %t/valid.mlir --fusion-import-linalg | FileCheck %s --check-prefix=VALID
// RUN: fusion-opt %t/valid.mlir --fusion-import-linalg -o %t/valid-fusion.mlir
// RUN: fusion-translate %t/valid-fusion.mlir --fusion=transpose_broadcast --fusion-to-ptx --no-cubin -o %t/valid.ptx
// RUN: FileCheck %s --check-prefix=VALID-PTX < %t/valid.ptx
// RUN: not fusion-translate %t/valid.mlir --fusion-to-ptx -o /dev/null 2>&1 | FileCheck %s --check-prefix=VALID-TRANSLATE

// REPRO: crash-68ee6b48457a12d3c4afa17b855bf6f72662defa.mlir:53:101: error: expected an integer in the 'permutation' list here: the input is refused (Note [Integer lists])
// REPRO-NOT: PLEASE submit a bug report
// STDIN: <stdin>:53:101: error: expected an integer in the 'permutation' list here: the input is refused (Note [Integer lists])
// QUESTION: question.mlir:3:96: error: expected an integer in the 'permutation' list here: the input is refused (Note [Integer lists])
// QUESTION-NEXT: permutation = [1, ?]
// QUESTION-NEXT: {{^ *\^$}}
// BACKTICK: backtick.mlir:3:96: error: expected an integer in the 'permutation' list here: the input is refused
// BACKSLASH: backslash.mlir:3:96: error: expected an integer in the 'permutation' list here: the input is refused
// NON-ASCII: non-ascii.mlir:3:96: error: expected an integer in the 'permutation' list here: the input is refused
// UNTERMINATED: unterminated.mlir:2:1: error: the input ends inside the 'permutation' list here: the input is refused
// NO-BRACKET: no-bracket.mlir:2:1: error: expected '[' to start the 'permutation' list here: the input is refused
// OUT-OF-RANGE: out-of-range.mlir:3:93: error: integer out of int64's range in the 'permutation' list here: the input is refused
// BROADCAST: broadcast.mlir:3:93: error: expected an integer in the 'dimensions' list here: the input is refused
// REDUCE: reduce.mlir:3:91: error: expected ',' or ']' in the 'dimensions' list here: the input is refused

// VALID: fusion.fusion @transpose_broadcast
// VALID: broadcast_in_dim %{{.*}} [1] : tensor<16xf32> -> tensor<8x16xf32>
// VALID: permute %{{.*}} [1, 0] : tensor<8x16xf32> -> tensor<16x8xf32>
// VALID: fusion.fusion @spellings
// VALID-COUNT-2: permute %{{.*}} [1, 0] : tensor<8x16xf32> -> tensor<16x8xf32>
// VALID-PTX: .entry transpose_broadcast_k0
// VALID-TRANSLATE: error: no fusion.fusion in the input

//--- question.mlir
func.func @f(%a: tensor<2x3xf32>) -> tensor<3x2xf32> {
  %e = tensor.empty() : tensor<3x2xf32>
  %t = linalg.transpose ins(%a : tensor<2x3xf32>) outs(%e : tensor<3x2xf32>) permutation = [1, ?]
  return %t : tensor<3x2xf32>
}

//--- backtick.mlir
func.func @f(%a: tensor<2x3xf32>) -> tensor<3x2xf32> {
  %e = tensor.empty() : tensor<3x2xf32>
  %t = linalg.transpose ins(%a : tensor<2x3xf32>) outs(%e : tensor<3x2xf32>) permutation = [1, `]
  return %t : tensor<3x2xf32>
}

//--- backslash.mlir
func.func @f(%a: tensor<2x3xf32>) -> tensor<3x2xf32> {
  %e = tensor.empty() : tensor<3x2xf32>
  %t = linalg.transpose ins(%a : tensor<2x3xf32>) outs(%e : tensor<3x2xf32>) permutation = [1, \]
  return %t : tensor<3x2xf32>
}

//--- non-ascii.mlir
func.func @f(%a: tensor<2x3xf32>) -> tensor<3x2xf32> {
  %e = tensor.empty() : tensor<3x2xf32>
  %t = linalg.transpose ins(%a : tensor<2x3xf32>) outs(%e : tensor<3x2xf32>) permutation = [1, Ш
  return %t : tensor<3x2xf32>
}

//--- unterminated.mlir
linalg.transpose permutation = [1, 0
//--- no-bracket.mlir
linalg.transpose permutation=
//--- out-of-range.mlir
func.func @f(%a: tensor<2x3xf32>) -> tensor<3x2xf32> {
  %e = tensor.empty() : tensor<3x2xf32>
  %t = linalg.transpose ins(%a : tensor<2x3xf32>) outs(%e : tensor<3x2xf32>) permutation = [9223372036854775808, 0]
  return %t : tensor<3x2xf32>
}

//--- broadcast.mlir
func.func @f(%v: tensor<3xf32>) -> tensor<2x3xf32> {
  %e = tensor.empty() : tensor<2x3xf32>
  %b = linalg.broadcast ins(%v : tensor<3xf32>) outs(%e : tensor<2x3xf32>) dimensions = [0, ?]
  return %b : tensor<2x3xf32>
}

//--- reduce.mlir
func.func @f(%x: tensor<2x3xf32>, %init: tensor<2xf32>) -> tensor<2xf32> {
  %e = tensor.empty() : tensor<2xf32>
  %r = linalg.reduce ins(%x : tensor<2x3xf32>) outs(%init : tensor<2xf32>) dimensions = [1.5]
    (%in: f32, %acc: f32) {
      %y = arith.addf %in, %acc : f32
      linalg.yield %y : f32
    }
  return %r : tensor<2xf32>
}

//--- valid.mlir
func.func @transpose_broadcast(%a: tensor<8x16xf32>, %v: tensor<16xf32>) -> tensor<16x8xf32> {
  %e = tensor.empty() : tensor<8x16xf32>
  %b = linalg.broadcast ins(%v : tensor<16xf32>) outs(%e : tensor<8x16xf32>) dimensions = [0]
  %s = linalg.add ins(%a, %b : tensor<8x16xf32>, tensor<8x16xf32>) outs(%e : tensor<8x16xf32>) -> tensor<8x16xf32>
  %et = tensor.empty() : tensor<16x8xf32>
  %t = linalg.transpose ins(%s : tensor<8x16xf32>) outs(%et : tensor<16x8xf32>) permutation = [1, 0]
  return %t : tensor<16x8xf32>
}

func.func @spellings(%a: tensor<8x16xf32>) -> tensor<16x8xf32>
    attributes {dimensions = ["rows", "columns"], permutation = affine_map<(d0, d1) -> (d1, d0)>} {
  %et = tensor.empty() : tensor<16x8xf32>
  %t = linalg.transpose ins(%a : tensor<8x16xf32>) outs(%et : tensor<16x8xf32>)
      permutation = [ 0x1 , // the rows last
                      00 ] {note = "permutation = [1, ?"}
  %u = "linalg.transpose"(%a, %et) <{permutation = array<i64: 1, 0>}> ({
  ^bb0(%x: f32, %y: f32):
    linalg.yield %x : f32
  }) : (tensor<8x16xf32>, tensor<16x8xf32>) -> tensor<16x8xf32>
  return %u : tensor<16x8xf32>
}
