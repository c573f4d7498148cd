// Note [Schedule options] (lib/Dialect/Fusion/Transforms/Schedule.cpp): a
// compile option out of its range is an error naming the option, before
// anything is scheduled, and the definition is not printed after it; the
// target chip is checked first of all.
// RUN: not fusion-translate %s --fusion-to-module --no-cache --no-cubin --unroll=-3 -o %t 2>&1 | FileCheck %s --check-prefix=UNROLL
// UNROLL: error: the option unroll must be 0 (heuristic) or 1 to 16, got -3
// UNROLL-NOT: see current operation
// RUN: not fusion-translate %s --fusion-to-module --no-cache --no-cubin --unroll=17 -o %t 2>&1 | FileCheck %s --check-prefix=UNROLL17
// UNROLL17: error: the option unroll must be 0 (heuristic) or 1 to 16, got 17
// RUN: not fusion-translate %s --fusion-to-module --no-cache --no-cubin --blocks-per-sm=-1 -o %t 2>&1 | FileCheck %s --check-prefix=BPS
// BPS: error: the option blocks-per-sm must be 0 (heuristic) or 1 to 64, got -1
// RUN: not fusion-translate %s --fusion-to-module --no-cache --no-cubin --inner-items=99 -o %t 2>&1 | FileCheck %s --check-prefix=ITEMS
// ITEMS: error: the option inner-items must be -1 (heuristic), 0 (no persistent variant) or 1 to 16, got 99
// RUN: not fusion-translate %s --fusion-to-module --no-cache --no-cubin --inner-block=2000 -o %t 2>&1 | FileCheck %s --check-prefix=BLOCK
// BLOCK: error: the option inner-block must be 0 (heuristic) or 1 to 512, got 2000
// A row kernel's blocks hold at most 512 threads (1024 made blocks the
// driver refused at launch).
// RUN: not fusion-translate %s --fusion-to-module --no-cache --no-cubin --inner-block=1024 -o %t 2>&1 | FileCheck %s --check-prefix=BLOCK1024
// BLOCK1024: error: the option inner-block must be 0 (heuristic) or 1 to 512, got 1024
// RUN: not fusion-translate %s --fusion-to-module --no-cache --no-cubin --inner-stage=5 -o %t 2>&1 | FileCheck %s --check-prefix=STAGE
// STAGE: error: the option inner-stage must be -1 (heuristic), 0 (registers), 1 (shared memory), 2 (shared memory, next row by cp.async) or 3 (shared memory, next row by bulk copies), got 5
// RUN: not fusion-translate %s --fusion-to-module --no-cache --no-cubin --inner-long-cluster=16 -o %t 2>&1 | FileCheck %s --check-prefix=LONGC
// LONGC: error: the option inner-long-cluster must be -1 (heuristic), 0 (none), 2, 4 or 8, got 16
// RUN: not fusion-translate %s --fusion-to-module --no-cache --no-cubin --inner-columns=2 -o %t 2>&1 | FileCheck %s --check-prefix=COLS
// COLS: error: the option inner-columns must be -1 (heuristic), 0 (off) or 1 (on), got 2
// RUN: not fusion-translate %s --fusion-to-module --no-cache --no-cubin --sm-count=0 -o %t 2>&1 | FileCheck %s --check-prefix=SMS
// SMS: error: the option sm-count must be 1 to 1024, got 0
// RUN: not fusion-translate %s --fusion-to-module --no-cache --no-cubin --compute-bound-cost=-5 -o %t 2>&1 | FileCheck %s --check-prefix=COST
// COST: error: the option compute-bound-cost must be 0 (never) or more, got -5
// RUN: not fusion-translate %s --fusion-to-module --no-cache --no-cubin --inner-min-blocks=-2 -o %t 2>&1 | FileCheck %s --check-prefix=MINB
// MINB: error: the option inner-min-blocks must be 0 (none) or 1 to 32, got -2
// MINB-NOT: see current operation
// Note [The target chip] (lib/Pipeline/Pipeline.cpp): a chip LLVM does not
// know, or none, aborted the process in the NVPTX back end.
// RUN: not fusion-translate %s --fusion-to-module --no-cache --no-cubin --chip=foo -o %t 2>&1 | FileCheck %s --check-prefix=CHIP
// CHIP: error: the option chip 'foo' is not an NVIDIA GPU architecture (sm_<version>, e.g. sm_80, sm_90a)
// CHIP-NOT: LLVM ERROR
// RUN: not fusion-translate %s --fusion-to-module --no-cache --no-cubin --chip= -o %t 2>&1 | FileCheck %s --check-prefix=NOCHIP
// NOCHIP: error: the option chip '' is not an NVIDIA GPU architecture
// RUN: not fusion-translate %s --fusion-to-module --no-cache --no-cubin --chip=sm_999 -o %t 2>&1 | FileCheck %s --check-prefix=CHIP999
// CHIP999: error: the option chip 'sm_999' is not a processor LLVM's NVPTX back end knows
// RUN: not fusion-translate %s --fusion-to-module --no-cache --no-cubin --chip=sm_60 -o %t 2>&1 | FileCheck %s --check-prefix=OLD
// OLD: error: the option chip 'sm_60' is older than sm_70, the oldest the kernels are written for
// RUN: fusion-translate %s --fusion-to-module --no-cache --no-cubin --chip=sm_80 -o %t
// RUN: fusion-translate %s --fusion-to-module --no-cache --no-cubin --chip=sm_100f -o %t
// The pass options of fusion-opt are the same options.
// RUN: not fusion-opt %s --fusion-schedule="inner-stage=4" 2>&1 | FileCheck %s --check-prefix=OPT
// OPT: error: the option inner-stage must be
// The heuristic's own values (0 and -1) and the edges of each range pass.
// RUN: fusion-translate %s --fusion-to-module --no-cache --no-cubin --unroll=16 --blocks-per-sm=64 --inner-items=16 --inner-block=512 --inner-stage=3 --inner-min-blocks=32 --inner-long-cluster=8 --inner-columns=1 -o %t

fusion.fusion @softmax(%x: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %0 = fusion.softmax %x dim = 1 : tensor<?x?xf32>
  fusion.return %0 : tensor<?x?xf32>
}
