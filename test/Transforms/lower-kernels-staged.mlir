// Staged rows (Note [Staged rows]): --inner-stage=1 marks the inner
// reduction schedule `stage_row`; its vectorized persistent variant stores
// the thread's prefetched vectors of the current row into dynamic shared
// memory (fusion.stage_store, one slot per thread and vector) and reloads
// them in every pass (fusion.stage_load), volatile accesses once the
// kernel-level ops are lowered; the launch asks for block size x bytes per thread. The scalar
// variant keeps the row in registers. The PTX declares the dynamic shared
// memory `.extern` (an internal global would be demoted to a one-byte
// static array that the slots overrun).
// RUN: fusion-opt %s --fusion-decompose --fusion-segment --fusion-schedule="inner-stage=1" | FileCheck %s --check-prefix=SCHED
// RUN: fusion-opt %s --fusion-decompose --fusion-segment --fusion-schedule="inner-stage=0" | FileCheck %s --check-prefix=NOSCHED
// RUN: fusion-opt %s --fusion-decompose --fusion-segment --fusion-schedule="inner-stage=1" --fusion-lower-kernels | FileCheck %s
// RUN: fusion-opt %s --fusion-decompose --fusion-segment --fusion-schedule="inner-stage=1" --fusion-lower-kernels --fusion-lower-kernel-ops | FileCheck %s --check-prefix=LOWERED
// RUN: fusion-opt %s --fusion-decompose --fusion-segment --fusion-schedule="inner-stage=0" --fusion-lower-kernels --fusion-lower-kernel-ops | FileCheck %s --check-prefix=OFF
// RUN: fusion-opt %s --fusion-decompose --fusion-segment --fusion-schedule="inner-stage=1" --fusion-lower-kernels | FileCheck %s --check-prefix=GRID
// RUN: fusion-opt %s --fusion-decompose --fusion-segment --fusion-schedule="inner-stage=0" --fusion-lower-kernels | FileCheck %s --check-prefix=GRID0
// RUN: fusion-translate %s --inner-stage=1 --fusion-to-ptx --no-cubin -o %t.ptx
// RUN: FileCheck %s --check-prefix=PTX < %t.ptx
// RUN: %if ptxas %{ ptxas -arch=sm_90a %t.ptx -o %t.cubin %}

// PTX: .extern .shared .align 16 .b8 fusion_dynamic_smem[];
// PTX-NOT: fusion_dynamic_smem has been demoted
// PTX-LABEL: .entry add_rmsnorm_k0_pv8_i32
// PTX: .maxnreg 64
// PTX-COUNT-8: st.volatile.shared.v4.b32

// SCHED: #fusion.inner_reduction<vector = 8, items = 4, block = 256, max_grid = 2112, index64 = false, fast_math = true, stage_row = true, cluster = 8, long_cluster = 8, long_stage = true, row_grid = 16896>
// NOSCHED: #fusion.inner_reduction<vector = 8, items = 4, block = 256, max_grid = 2112, index64 = false, fast_math = true, cluster = 8, long_cluster = 8, row_grid = 16896>

// Note [Wide row grids]: the staged persistent variant and the streaming
// ones launch up to row_grid blocks, the staged one kept to 64 registers;
// the long-row variant, the scalar persistent one (rows in registers) and
// the ragged ones up to max_grid; without staging the first persistent
// variant keeps its row in registers and max_grid.
// GRID: %[[PV:.*]] = arith.minsi %{{.*}}, %c16896{{.*}} : index
// GRID-NEXT: %[[PVG:.*]] = arith.maxsi %[[PV]], %c1{{.*}} : index
// GRID: launch @add_rmsnorm_kernels::@add_rmsnorm_k0_pv8_i32 if(%{{.*}}) grid(%[[PVG]],
// GRID: %[[PL:.*]] = arith.minsi %{{.*}}, %c2112{{.*}} : index
// GRID-NEXT: %[[PLG:.*]] = arith.maxsi %[[PL]], %c1{{.*}} : index
// GRID: launch @add_rmsnorm_kernels::@add_rmsnorm_k0_plv8_i32 if(%{{.*}}) grid(%[[PLG]],
// GRID: %[[PR:.*]] = arith.minsi %{{.*}}, %c2112{{.*}} : index
// GRID-NEXT: %[[PRG:.*]] = arith.maxsi %[[PR]], %c1{{.*}} : index
// GRID: launch @add_rmsnorm_kernels::@add_rmsnorm_k0_prv8_i32 if(%{{.*}}) grid(%[[PRG]],
// GRID: %[[RV:.*]] = arith.minsi %{{.*}}, %c2112{{.*}} : index
// GRID-NEXT: %[[RVG:.*]] = arith.maxsi %[[RV]], %c1{{.*}} : index
// GRID: launch @add_rmsnorm_kernels::@add_rmsnorm_k0_rv8_i32 if(%{{.*}}) grid(%[[RVG]],
// GRID: %[[PS:.*]] = arith.minsi %{{.*}}, %c2112{{.*}} : index
// GRID-NEXT: %[[PSG:.*]] = arith.maxsi %[[PS]], %c1{{.*}} : index
// GRID: launch @add_rmsnorm_kernels::@add_rmsnorm_k0_ps_i32 if(%{{.*}}) grid(%[[PSG]],
// GRID: %[[V:.*]] = arith.minsi %{{.*}}, %c16896{{.*}} : index
// GRID-NEXT: %[[VG:.*]] = arith.maxsi %[[V]], %c1{{.*}} : index
// GRID: launch @add_rmsnorm_kernels::@add_rmsnorm_k0_v8_i32 if(%{{.*}}) grid(%[[VG]],
// GRID0: %[[PV:.*]] = arith.minsi %{{.*}}, %c2112{{.*}} : index
// GRID0-NEXT: %[[PVG:.*]] = arith.maxsi %[[PV]], %c1{{.*}} : index
// GRID0: launch @add_rmsnorm_kernels::@add_rmsnorm_k0_pv8_i32 if(%{{.*}}) grid(%[[PVG]],
// GRID: gpu.func @add_rmsnorm_k0_pv8_i32({{.*}} attributes {{{.*}}nvvm.maxnreg = 64 : i32
// GRID: gpu.func @add_rmsnorm_k0_plv8_i32({{.*}} attributes {nvvm.maxntid
// GRID0: gpu.func @add_rmsnorm_k0_pv8_i32({{.*}} attributes {nvvm.maxntid

// 4 vectors of 8 bf16 per thread and input: 64 bytes; two inputs (x and r
// are both read per row and column, w only per column): 128 bytes.
// CHECK-LABEL: fusion.fusion @add_rmsnorm
// CHECK: %[[SMEM:.*]] = arith.muli %[[BLOCK:.*]], %c128{{.*}} : index
// CHECK: launch @add_rmsnorm_kernels::@add_rmsnorm_k0_pv8_i32 if(%{{.*}}) grid(%{{.*}}) block(%[[BLOCK]], %{{.*}}) smem(%[[SMEM]])
// CHECK: launch @add_rmsnorm_kernels::@add_rmsnorm_k0_ps_i32 {{.*}} smem(%c0
// CHECK-LABEL: gpu.func @add_rmsnorm_k0_pv8_i32
// CHECK-SAME: fusion.stage_bytes_per_thread = 128
// CHECK: scf.for
// CHECK-COUNT-8: fusion.stage_store %{{.*}}, %{{.*}} : vector<8xbf16>, i32
// CHECK-COUNT-8: fusion.stage_load %{{.*}} : i32 -> vector<8xbf16>
// CHECK: fusion.block_reduce
// CHECK-COUNT-8: fusion.stage_load %{{.*}} : i32 -> vector<8xbf16>
// CHECK: gpu.return
// CHECK-LABEL: gpu.func @add_rmsnorm_k0_ps_i32
// CHECK-NOT: fusion.stage_
// CHECK: gpu.return

// LOWERED: llvm.mlir.global external @fusion_dynamic_smem() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<0 x i8>
// LOWERED-LABEL: gpu.func @add_rmsnorm_k0_pv8_i32
// LOWERED: scf.for
// LOWERED-COUNT-8: llvm.store volatile {{.*}} {alignment = 16 : i64} : vector<8xbf16>, !llvm.ptr<3>
// LOWERED-COUNT-8: llvm.load volatile {{.*}} {alignment = 16 : i64} : !llvm.ptr<3> -> vector<8xbf16>
// LOWERED: gpu.barrier
// LOWERED-COUNT-8: llvm.load volatile {{.*}} -> vector<8xbf16>
// LOWERED: gpu.return
// LOWERED-LABEL: gpu.func @add_rmsnorm_k0_ps_i32
// LOWERED-NOT: fusion_dynamic_smem
// LOWERED: gpu.return

// OFF-NOT: fusion_dynamic_smem
// OFF-NOT: volatile
fusion.fusion @add_rmsnorm(%x: tensor<?x?xbf16>, %r: tensor<?x?xbf16>, %w: tensor<?xbf16>) -> tensor<?x?xbf16> {
  %s = fusion.add %x, %r : tensor<?x?xbf16>
  %0 = fusion.rms_norm %s weight(%w : tensor<?xbf16>) axis = 1 eps = 1.0e-6 : tensor<?x?xbf16>
  fusion.return %0 : tensor<?x?xbf16>
}
