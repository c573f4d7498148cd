// REQUIRES: cuda
// --bench prints one BENCH line (median kernel time over runs rotating among
// three input sets, bandwidth, the fraction of the device-to-device copy
// bandwidth measured in the same process, host time per call and the raw
// launch floor) and --json writes the same fields. Small sizes keep it quick;
// the numbers are not checked, only their presence.

// RUN: fusion-run %s --input=1024x1000 --input=1000 --bench --iters=7 --warmup=2 --host-iters=200 --copy-mib=64 --json=%t.json | FileCheck %s
// CHECK: # device 0: {{.*}} SMs); module target sm_90a
// CHECK: PASS gelu_bias 1024x1000xbf16,1000xbf16
// CHECK: BENCH gelu_bias 1024x1000 bf16 time_us={{[0-9.]+}} GBps={{[0-9.]+}} copy_GBps={{[0-9.]+}} fraction={{[0-9.]+}} host_us={{[0-9.]+}} raw_launch_us={{[0-9.]+}} variant=gelu_bias_k0_

// RUN: FileCheck %s --check-prefix=JSON < %t.json
// JSON: "name": "gelu_bias",
// JSON: "shape": "1024x1000",
// JSON: "dtype": "bf16",
// JSON: "time_us": {{[0-9.e+-]+}},
// JSON: "bytes": 4098000,
// JSON: "GBps":
// JSON: "copy_GBps":
// JSON: "fraction":
// JSON: "host_us":
// JSON: "host_shapes": "16x8xbf16,8xbf16",
// JSON: "raw_launch_us":
// JSON: "check": "PASS",

// With --no-check only the BENCH line comes.
// RUN: fusion-run %s --input=1024x1000 --input=1000 --bench --no-check --iters=3 --warmup=1 --host-iters=50 --copy-mib=64 | FileCheck %s --check-prefix=NOCHECK
// NOCHECK-NOT: PASS
// NOCHECK: BENCH gelu_bias 1024x1000 bf16 time_us=

fusion.fusion @gelu_bias(%x: tensor<?x?xbf16> {fusion.name = "x"}, %bias: tensor<?xbf16> {fusion.name = "bias"}) -> tensor<?x?xbf16> {
  %m = fusion.dim %x, 0 : tensor<?x?xbf16>
  %n = fusion.dim %x, 1 : tensor<?x?xbf16>
  %b = fusion.broadcast_in_dim %bias [1] (%m, %n) : tensor<?xbf16> -> tensor<?x?xbf16>
  %0 = fusion.add %x, %b : tensor<?x?xbf16>
  %1 = fusion.gelu %0 tanh : tensor<?x?xbf16>
  fusion.return %1 : tensor<?x?xbf16>
}
