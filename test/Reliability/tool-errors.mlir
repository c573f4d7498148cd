// Errors that looked like success (item 14): a file with no fusion.fusion,
// and several fusions where one PTX file or one module file is written.
// RUN: split-file %s %t
// RUN: not fusion-opt %t/no-fusion.mlir --fusion-to-ptx -o /dev/null 2>&1 | FileCheck %s --check-prefix=NONE
// RUN: not fusion-translate %t/no-fusion.mlir --fusion-to-ptx -o %t/none.ptx 2>&1 | FileCheck %s --check-prefix=NONE
// RUN: not fusion-translate %t/no-fusion.mlir --fusion-to-module -o %t/none.fusionmod 2>&1 | FileCheck %s --check-prefix=NONE
// RUN: not fusion-translate %t/two.mlir --fusion-to-ptx -o %t/two.ptx 2>&1 | FileCheck %s --check-prefix=TWO-PTX
// RUN: not fusion-translate %t/two.mlir --fusion-to-module --no-cubin -o %t/two.fusionmod 2>&1 | FileCheck %s --check-prefix=TWO-MOD
// RUN: not fusion-translate %t/two.mlir --fusion-to-module --fusion=h --no-cubin -o %t/h.fusionmod 2>&1 | FileCheck %s --check-prefix=NAMED
// RUN: fusion-translate %t/two.mlir --fusion-to-ptx --fusion=g -o %t/g.ptx
// RUN: FileCheck %s --check-prefix=G < %t/g.ptx
// RUN: fusion-translate --help | FileCheck %s --check-prefix=HELP

// NONE: error: no fusion.fusion in the input: nothing to
// TWO-PTX: two.mlir has 2 fusions (@f, @g): their PTX modules are not one ptxas input; name one with --fusion=NAME
// TWO-MOD: error: several fusions (@f, @g): a module file holds one; name it (fusion-translate --fusion=NAME)
// NAMED: error: no fusion named 'h' (the input has @f, @g)
// G: .entry g_k0
// G-NOT: .entry f_k0

// The tool's own options, not LLVM's back-end options.
// HELP: fusion-translate options:
// HELP: --fusion-to-module
// HELP-NOT: --x86-
// HELP-NOT: --nvptx-

//--- no-fusion.mlir
func.func @f(%x: tensor<?xf32>) -> tensor<?xf32> {
  %r = fusion.neg %x : tensor<?xf32>
  return %r : tensor<?xf32>
}

//--- two.mlir
fusion.fusion @f(%x: tensor<?xf32>) -> tensor<?xf32> {
  %r = fusion.neg %x : tensor<?xf32>
  fusion.return %r : tensor<?xf32>
}
fusion.fusion @g(%x: tensor<?xf32>) -> tensor<?xf32> {
  %r = fusion.exp %x : tensor<?xf32>
  fusion.return %r : tensor<?xf32>
}
