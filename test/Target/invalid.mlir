// RUN: not fusion-translate %s --fusion-to-module -o /dev/null 2>&1 | FileCheck %s

// Returning one tensor twice is refused with a diagnostic, not a bad file.
// CHECK: returns one tensor twice
fusion.fusion @twice(%a: tensor<?xf32>) -> (tensor<?xf32>, tensor<?xf32>) {
  %0 = fusion.neg %a : tensor<?xf32>
  fusion.return %0, %0 : tensor<?xf32>, tensor<?xf32>
}
