// --repeat compiles the same definition several times in one process (the
// warm-process compile time) and writes the last module file, the same bytes
// as a single compile.
// RUN: fusion-translate %s --fusion-to-module --no-cubin --repeat=3 -o %t.three 2>&1 | FileCheck %s
// RUN: fusion-translate %s --fusion-to-module --no-cubin -o %t.one
// RUN: cmp %t.one %t.three
// CHECK: fusion-translate: compile 1 of 3: {{[0-9.]+}} ms
// CHECK: fusion-translate: compile 2 of 3: {{[0-9.]+}} ms
// CHECK: fusion-translate: compile 3 of 3: {{[0-9.]+}} ms
fusion.fusion @norm(%x: tensor<?x?xbf16>) -> tensor<?x?xbf16> {
  %0 = fusion.softmax %x dim = 1 : tensor<?x?xbf16>
  fusion.return %0 : tensor<?x?xbf16>
}
