// REQUIRES: cuda
// The check itself: --inject-fault (a hidden self-test option) corrupts one
// element after the runs ("wrong") or leaves it unwritten ("unwritten": the
// poison is put back on the device after each run). fusion-run must print
// FAIL, name the element, and exit with status 1.

// RUN: not fusion-run %s --fusion=add --input=1000x37 --input=1000x37 --inject-fault=wrong@37 | FileCheck %s --check-prefix=WRONG
// WRONG: FAIL add 1000x37xf32,1000x37xf32 max_abs_err={{.*}} mismatches=1 unwritten_or_racy=0 checked=37000 variant=
// WRONG-NEXT: out0[1, 0]: got {{.*}}, expected

// RUN: not fusion-run %s --fusion=add --input=1000x37 --input=1000x37 --inject-fault=unwritten | FileCheck %s --check-prefix=UNWRITTEN
// UNWRITTEN: FAIL add 1000x37xf32,1000x37xf32 {{.*}} mismatches=1 unwritten_or_racy=1 checked=37000 variant=
// UNWRITTEN-DAG: out0[500, 0]: the first run left nan, the second run {{.*}} (unwritten element, or a race)
// UNWRITTEN-DAG: out0[500, 0]: got nan, expected

// Integers and bools are exact: one off is a mismatch.
// RUN: not fusion-run %s --fusion=ints --input=999 --input=999 --inject-fault=wrong@998 | FileCheck %s --check-prefix=INTS
// INTS: FAIL ints 999xi8,999xi8 max_abs_err={{[0-9]+}} {{.*}} mismatches=1
// INTS-NEXT: out0[998]: got
// RUN: not fusion-run %s --fusion=bools --input=999 --input=999 --inject-fault=unwritten@5 | FileCheck %s --check-prefix=BOOLS
// BOOLS: FAIL bools 999xf32,999xf32 {{.*}} mismatches=1 unwritten_or_racy=1
// BOOLS-DAG: out0[5]: the first run left 255, the second run 90 (unwritten element, or a race)
// BOOLS-DAG: out0[5]: got 255, expected

// A large output is compared on a sample, but an unwritten element anywhere
// still fails (the two poisoned runs are compared in full).
// RUN: not fusion-run %s --fusion=add --input=8192x4099 --input=8192x4099 --inject-fault=unwritten | FileCheck %s --check-prefix=LARGE
// LARGE: FAIL add 8192x4099xf32,8192x4099xf32 {{.*}} unwritten_or_racy=1 checked={{[0-9]+}}/33579008 variant=
// LARGE-NEXT: out0[4096, 0]: the first run left nan

fusion.fusion @add(%a: tensor<?x?xf32>, %b: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %0 = fusion.add %a, %b : tensor<?x?xf32>
  fusion.return %0 : tensor<?x?xf32>
}

fusion.fusion @ints(%a: tensor<?xi8>, %b: tensor<?xi8>) -> tensor<?xi8> {
  %0 = fusion.mul %a, %b : tensor<?xi8>
  fusion.return %0 : tensor<?xi8>
}

fusion.fusion @bools(%a: tensor<?xf32>, %b: tensor<?xf32>) -> tensor<?xi1> {
  %0 = fusion.ge %a, %b : tensor<?xf32>
  fusion.return %0 : tensor<?xi1>
}
