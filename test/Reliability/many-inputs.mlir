// 2,000 inputs in one kernel need 96,048 bytes of kernel parameters, over
// the 32,764 a launch can pass (item 7): refused as the kernel is lowered,
// before LLVM and ptxas run (it took 19.7 s and 1.27 GB to write a module
// the runtime then refused).
// RUN: python3 %S/Inputs/make-wide.py 2000 %t.mlir
// RUN: not fusion-translate %t.mlir --fusion-to-module --no-cubin -o %t.fusionmod 2>&1 | FileCheck %s
// RUN: python3 %S/Inputs/make-wide.py 200 %t.ok.mlir
// RUN: fusion-translate %t.ok.mlir --fusion-to-module --no-cubin -o %t.ok.fusionmod

// CHECK: error: 'fusion.kernel' op needs {{[0-9]+}} bytes of kernel parameters ({{[0-9]+}} parameters, 2001 of them tensors), over the 32764 a launch can pass
