// Without a usable CUDA driver fusion-run says so and exits with status 2
// (after the inputs were checked). FUSION_RUN_LIBCUDA points the tool at a
// driver library that does not exist, so this runs on GPU machines too.
// (sh -c: lit's internal shell has no $?.)

// RUN: sh -c 'FUSION_RUN_LIBCUDA=%t.missing/libcuda.so.1 fusion-run %s --no-cubin --input=8x4 --input=8x4 > %t.out 2>&1; echo "exit status $?" >> %t.out'
// RUN: FileCheck %s < %t.out
// CHECK: fusion-run: no CUDA device: cannot load the CUDA driver ({{.*}}libcuda.so.1)
// CHECK: exit status 2

// Bad inputs are reported first, with status 1.
// RUN: sh -c 'FUSION_RUN_LIBCUDA=%t.missing/libcuda.so.1 fusion-run %s --no-cubin --input=8x4 --input=8x4:i8 > %t.bad 2>&1; echo "exit status $?" >> %t.bad'
// RUN: FileCheck %s --check-prefix=BAD < %t.bad
// BAD: fusion-run: WrongDType: input 1 (b): expected dtype f32, got i8
// BAD: exit status 1

fusion.fusion @add_relu(%a: tensor<?x?xf32> {fusion.name = "a"}, %b: tensor<?x?xf32> {fusion.name = "b"}) -> tensor<?x?xf32> {
  %0 = fusion.add %a, %b : tensor<?x?xf32>
  %1 = fusion.relu %0 : tensor<?x?xf32>
  fusion.return %1 : tensor<?x?xf32>
}
