// Verifier diagnostics of the kernel-level ops, one split per error.
// RUN: fusion-opt %s -split-input-file -verify-diagnostics

func.func @f16_state(%x: f16) {
  // expected-error @+1 {{state component 0 has type 'f16'; lanes exchange 32- or 64-bit integers or floats}}
  %s = fusion.warp_reduce %x : f16 combiner {
  ^bb0(%a: f16, %b: f16):
    fusion.reduce_yield %a : f16
  }
  return
}

// -----

func.func @empty_state() {
  // expected-error @+1 {{needs a state of at least one component}}
  "fusion.warp_reduce"() ({
  ^bb0:
    fusion.reduce_yield
  }) : () -> ()
  return
}

// -----

func.func @combiner_arity(%x: f32) {
  // expected-error @+1 {{expects the combiner region to take 2 arguments, got 1}}
  %s = fusion.warp_reduce %x : f32 combiner {
  ^bb0(%a: f32):
    fusion.reduce_yield %a : f32
  }
  return
}

// -----

func.func @combiner_arg_type(%x: f32) {
  // expected-error @+1 {{combiner argument 1 has type 'i32', expected 'f32'}}
  %s = fusion.warp_reduce %x : f32 combiner {
  ^bb0(%a: f32, %b: i32):
    fusion.reduce_yield %a : f32
  }
  return
}

// -----

func.func @yield_count(%x: f32) {
  %s = fusion.warp_reduce %x : f32 combiner {
  ^bb0(%a: f32, %b: f32):
    // expected-error @+1 {{yields 2 values, the state has 1 components}}
    fusion.reduce_yield %a, %b : f32, f32
  }
  return
}

// -----

func.func @yield_type(%x: f32, %y: i64) {
  %s:2 = fusion.warp_reduce %x, %y : f32, i64 combiner {
  ^bb0(%a: f32, %ai: i64, %b: f32, %bi: i64):
    // expected-error @+1 {{yields 'f32' as component 1, the state has 'i64'}}
    fusion.reduce_yield %a, %b : f32, f32
  }
  return
}

// -----

func.func @yield_outside(%x: f32) {
  // expected-error @+1 {{expects parent op to be one of 'fusion.warp_reduce, fusion.block_reduce, fusion.grid_reduce, fusion.cluster_reduce'}}
  fusion.reduce_yield %x : f32
}

// -----

func.func @identity_args(%x: f32, %i: i32, %m: i1,
                         %s: memref<32xf32, #gpu.address_space<workgroup>>) {
  // expected-error @+1 {{expects the identity region to take 0 arguments, got 1}}
  %r = fusion.block_reduce %x : f32 lane %i warp %i
      slots(%s : memref<32xf32, #gpu.address_space<workgroup>>)
      at %i warps %i if %m : i32 identity {
  ^bb0(%z: f32):
    fusion.reduce_yield %z : f32
  } combiner {
  ^bb0(%a: f32, %b: f32):
    fusion.reduce_yield %a : f32
  }
  return
}

// -----

func.func @slot_count(%x: f32, %y: f32, %i: i32, %m: i1,
                      %s: memref<32xf32, #gpu.address_space<workgroup>>) {
  // expected-error @+1 {{needs one slot buffer per state component (2), got 1}}
  %r:2 = fusion.block_reduce %x, %y : f32, f32 lane %i warp %i
      slots(%s : memref<32xf32, #gpu.address_space<workgroup>>)
      at %i warps %i if %m : i32 identity {
    %z = arith.constant 0.0 : f32
    fusion.reduce_yield %z, %z : f32, f32
  } combiner {
  ^bb0(%a: f32, %b: f32, %c: f32, %d: f32):
    fusion.reduce_yield %a, %b : f32, f32
  }
  return
}

// -----

func.func @slot_space(%x: f32, %i: i32, %m: i1, %s: memref<32xf32>) {
  // expected-error @+1 {{slot buffer 0 has type 'memref<32xf32>'; expected a 1-d workgroup memref of 'f32'}}
  %r = fusion.block_reduce %x : f32 lane %i warp %i slots(%s : memref<32xf32>)
      at %i warps %i if %m : i32 identity {
    %z = arith.constant 0.0 : f32
    fusion.reduce_yield %z : f32
  } combiner {
  ^bb0(%a: f32, %b: f32):
    fusion.reduce_yield %a : f32
  }
  return
}

// -----

func.func @slot_element(%x: f32, %i: i32, %m: i1,
                        %s: memref<32xf64, #gpu.address_space<workgroup>>) {
  // expected-error @+1 {{slot buffer 0 has type 'memref<32xf64, #gpu.address_space<workgroup>>'; expected a 1-d workgroup memref of 'f32'}}
  %r = fusion.block_reduce %x : f32 lane %i warp %i
      slots(%s : memref<32xf64, #gpu.address_space<workgroup>>)
      at %i warps %i if %m : i32 identity {
    %z = arith.constant 0.0 : f32
    fusion.reduce_yield %z : f32
  } combiner {
  ^bb0(%a: f32, %b: f32):
    fusion.reduce_yield %a : f32
  }
  return
}

// -----

func.func @count_types(%x: f32, %i: i32, %j: i64, %m: i1,
                       %s: memref<32xf32, #gpu.address_space<workgroup>>) {
  // expected-error @+1 {{failed to verify that all of {lane, warp, at, warps} have same type}}
  %r = "fusion.block_reduce"(%x, %i, %j, %s, %i, %i, %m) <{operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 0>}> ({
    %z = arith.constant 0.0 : f32
    fusion.reduce_yield %z : f32
  }, {
  ^bb0(%a: f32, %b: f32):
    fusion.reduce_yield %a : f32
  }) : (f32, i32, i64, memref<32xf32, #gpu.address_space<workgroup>>, i32, i32, i1) -> f32
  return
}

// -----

func.func @identity_type(%x: f32, %i: i32, %m: i1,
                         %s: memref<32xf32, #gpu.address_space<workgroup>>) {
  %r = fusion.block_reduce %x : f32 lane %i warp %i
      slots(%s : memref<32xf32, #gpu.address_space<workgroup>>)
      at %i warps %i if %m : i32 identity {
    %z = arith.constant 0 : i32
    // expected-error @+1 {{yields 'i32' as component 0, the state has 'f32'}}
    fusion.reduce_yield %z : i32
  } combiner {
  ^bb0(%a: f32, %b: f32):
    fusion.reduce_yield %a : f32
  }
  return
}

// -----

func.func @flag_global(%t: i32, %c: memref<?xi32>, %f: memref<1xi32>) {
  // expected-error @+1 {{needs a one-element workgroup memref as its flag, got 'memref<1xi32>'}}
  %l = fusion.grid_arrive thread %t counters(%c : memref<?xi32>)[%t] of %t
      flag(%f : memref<1xi32>) : i32
  return
}

// -----

func.func @flag_size(%t: i32, %c: memref<?xi32>,
                     %f: memref<2xi32, #gpu.address_space<workgroup>>) {
  // expected-error @+1 {{needs a one-element workgroup memref as its flag, got 'memref<2xi32, #gpu.address_space<workgroup>>'}}
  %l = fusion.grid_arrive thread %t counters(%c : memref<?xi32>)[%t] of %t
      flag(%f : memref<2xi32, #gpu.address_space<workgroup>>) : i32
  return
}

// -----

func.func @counters_shared(%t: i32,
                           %c: memref<4xi32, #gpu.address_space<workgroup>>,
                           %f: memref<1xi32, #gpu.address_space<workgroup>>) {
  // expected-error @+1 {{needs its counters in global memory, got 'memref<4xi32, #gpu.address_space<workgroup>>'}}
  %l = fusion.grid_arrive thread %t
      counters(%c : memref<4xi32, #gpu.address_space<workgroup>>)[%t] of %t
      flag(%f : memref<1xi32, #gpu.address_space<workgroup>>) : i32
  return
}

// -----

func.func @counters_i64(%t: i32, %c: memref<?xi64>,
                        %f: memref<1xi32, #gpu.address_space<workgroup>>) {
  // expected-error @+1 {{operand #1 must be 1D memref of 32-bit signless integer values}}
  %l = "fusion.grid_arrive"(%t, %c, %t, %t, %f) : (i32, memref<?xi64>, i32, i32, memref<1xi32, #gpu.address_space<workgroup>>) -> i1
  return
}

// -----

func.func @arrive_types(%t: i32, %g: i64, %c: memref<?xi32>,
                        %f: memref<1xi32, #gpu.address_space<workgroup>>) {
  // expected-error @+1 {{failed to verify that all of {thread, group, splits} have same type}}
  %l = "fusion.grid_arrive"(%t, %c, %g, %t, %f) : (i32, memref<?xi32>, i64, i32, memref<1xi32, #gpu.address_space<workgroup>>) -> i1
  return
}

// -----

func.func @stage_outside_gpu_module(%x: f32, %at: i32) {
  // expected-error @+1 {{must be inside a gpu.module: it addresses the module's dynamic shared memory}}
  fusion.stage_store %x, %at : f32, i32
  return
}

// -----

gpu.module @m {
  gpu.func @stage_bits(%x: vector<8xi1>, %at: i32) kernel {
    // expected-error @+1 {{stages integers or floats of whole bytes, got 'vector<8xi1>'}}
    fusion.stage_store %x, %at : vector<8xi1>, i32
    gpu.return
  }
}

// -----

gpu.module @m {
  gpu.func @stage_2d(%at: i32) kernel {
    // expected-error @+1 {{stages a fixed 1-d vector or a scalar, got 'vector<2x4xf32>'}}
    %x = fusion.stage_load %at : i32 -> vector<2x4xf32>
    gpu.return
  }
}

// -----

gpu.module @m {
  gpu.func @stage_memref(%at: i32) kernel {
    // expected-error @+1 {{stages integers or floats of whole bytes, got 'memref<4xf32>'}}
    %x = fusion.stage_load %at : i32 -> memref<4xf32>
    gpu.return
  }
}

// -----

gpu.module @m {
  gpu.func @grid_two_workspaces(%x: f32, %i: i32, %w: i1, %ws: memref<?xf32>, %c: memref<?xi32>,
                   %flag: memref<1xi32, #gpu.address_space<workgroup>>) kernel {
    // expected-error @+1 {{needs one workspace per state component (1), got 2}}
    fusion.grid_reduce %x : f32 workspaces(%ws, %ws : memref<?xf32>, memref<?xf32>)
        at %i stride %i split %i of %i if %w thread %i
        counters(%c : memref<?xi32>) [%i] flag(%flag : memref<1xi32, #gpu.address_space<workgroup>>)
        fold from %i step %i : i32
        identity {
      %z = arith.constant 0.0 : f32
      fusion.reduce_yield %z : f32
    } combiner {
    ^bb0(%a: f32, %b: f32):
      fusion.reduce_yield %a : f32
    } last {
    ^bb0(%t: f32):
      fusion.reduce_yield
    }
    gpu.return
  }
}

// -----

gpu.module @m {
  gpu.func @grid_workspace_type(%x: f32, %i: i32, %w: i1, %ws: memref<?xf16>, %c: memref<?xi32>,
                   %flag: memref<1xi32, #gpu.address_space<workgroup>>) kernel {
    // expected-error @+1 {{workspace 0 has type 'memref<?xf16>'; expected a 1-d global memref of 'f32'}}
    fusion.grid_reduce %x : f32 workspaces(%ws : memref<?xf16>)
        at %i stride %i split %i of %i if %w thread %i
        counters(%c : memref<?xi32>) [%i] flag(%flag : memref<1xi32, #gpu.address_space<workgroup>>)
        fold from %i step %i : i32
        identity {
      %z = arith.constant 0.0 : f32
      fusion.reduce_yield %z : f32
    } combiner {
    ^bb0(%a: f32, %b: f32):
      fusion.reduce_yield %a : f32
    } last {
    ^bb0(%t: f32):
      fusion.reduce_yield
    }
    gpu.return
  }
}

// -----

gpu.module @m {
  gpu.func @grid_workspace_shared(%x: f32, %i: i32, %w: i1, %ws: memref<?xf32, #gpu.address_space<workgroup>>, %c: memref<?xi32>,
                   %flag: memref<1xi32, #gpu.address_space<workgroup>>) kernel {
    // expected-error @+1 {{workspace 0 has type 'memref<?xf32, #gpu.address_space<workgroup>>'; expected a 1-d global memref of 'f32'}}
    fusion.grid_reduce %x : f32 workspaces(%ws : memref<?xf32, #gpu.address_space<workgroup>>)
        at %i stride %i split %i of %i if %w thread %i
        counters(%c : memref<?xi32>) [%i] flag(%flag : memref<1xi32, #gpu.address_space<workgroup>>)
        fold from %i step %i : i32
        identity {
      %z = arith.constant 0.0 : f32
      fusion.reduce_yield %z : f32
    } combiner {
    ^bb0(%a: f32, %b: f32):
      fusion.reduce_yield %a : f32
    } last {
    ^bb0(%t: f32):
      fusion.reduce_yield
    }
    gpu.return
  }
}

// -----

gpu.module @m {
  gpu.func @grid_last_args(%x: f32, %i: i32, %w: i1, %ws: memref<?xf32>, %c: memref<?xi32>,
                   %flag: memref<1xi32, #gpu.address_space<workgroup>>) kernel {
    // expected-error @+1 {{expects the last region to take 1 arguments, got 2}}
    fusion.grid_reduce %x : f32 workspaces(%ws : memref<?xf32>)
        at %i stride %i split %i of %i if %w thread %i
        counters(%c : memref<?xi32>) [%i] flag(%flag : memref<1xi32, #gpu.address_space<workgroup>>)
        fold from %i step %i : i32
        identity {
      %z = arith.constant 0.0 : f32
      fusion.reduce_yield %z : f32
    } combiner {
    ^bb0(%a: f32, %b: f32):
      fusion.reduce_yield %a : f32
    } last {
    ^bb0(%t: f32, %u: f32):
      fusion.reduce_yield
    }
    gpu.return
  }
}

// -----

gpu.module @m {
  gpu.func @grid_identity_type(%x: f32, %i: i32, %w: i1, %ws: memref<?xf32>, %c: memref<?xi32>,
                   %flag: memref<1xi32, #gpu.address_space<workgroup>>) kernel {
    fusion.grid_reduce %x : f32 workspaces(%ws : memref<?xf32>)
        at %i stride %i split %i of %i if %w thread %i
        counters(%c : memref<?xi32>) [%i] flag(%flag : memref<1xi32, #gpu.address_space<workgroup>>)
        fold from %i step %i : i32
        identity {
      %z = arith.constant 0.0 : f64
      // expected-error @+1 {{yields 'f64' as component 0, the state has 'f32'}}
      fusion.reduce_yield %z : f64
    } combiner {
    ^bb0(%a: f32, %b: f32):
      fusion.reduce_yield %a : f32
    } last {
    ^bb0(%t: f32):
      fusion.reduce_yield
    }
    gpu.return
  }
}

// -----

gpu.module @m {
  gpu.func @grid_flag(%x: f32, %i: i32, %w: i1, %ws: memref<?xf32>, %c: memref<?xi32>,
                   %flag: memref<1xi32>) kernel {
    // expected-error @+1 {{needs a one-element workgroup memref as its flag, got 'memref<1xi32>'}}
    fusion.grid_reduce %x : f32 workspaces(%ws : memref<?xf32>)
        at %i stride %i split %i of %i if %w thread %i
        counters(%c : memref<?xi32>) [%i] flag(%flag : memref<1xi32>)
        fold from %i step %i : i32
        identity {
      %z = arith.constant 0.0 : f32
      fusion.reduce_yield %z : f32
    } combiner {
    ^bb0(%a: f32, %b: f32):
      fusion.reduce_yield %a : f32
    } last {
    ^bb0(%t: f32):
      fusion.reduce_yield
    }
    gpu.return
  }
}

// -----

gpu.module @m {
  gpu.func @grid_vector_2d(%x: vector<2x2xf32>, %i: i32, %w: i1, %ws: memref<?xf32>, %c: memref<?xi32>,
                   %flag: memref<1xi32, #gpu.address_space<workgroup>>) kernel {
    // expected-error @+1 {{state component 0 has type 'vector<2x2xf32>'; expected an integer, a float or a 1-d vector of them}}
    fusion.grid_reduce %x : vector<2x2xf32> workspaces(%ws : memref<?xf32>)
        at %i stride %i split %i of %i if %w thread %i
        counters(%c : memref<?xi32>) [%i] flag(%flag : memref<1xi32, #gpu.address_space<workgroup>>)
        fold from %i step %i : i32
        identity {
      %z = arith.constant dense<0.0> : vector<2x2xf32>
      fusion.reduce_yield %z : vector<2x2xf32>
    } combiner {
    ^bb0(%a: vector<2x2xf32>, %b: vector<2x2xf32>):
      fusion.reduce_yield %a : vector<2x2xf32>
    } last {
    ^bb0(%t: vector<2x2xf32>):
      fusion.reduce_yield
    }
    gpu.return
  }
}

// -----

func.func @stage_copy_outside_gpu_module(%x: memref<?xf32>, %i: index, %at: i32, %ok: i1) {
  // expected-error @+1 {{must be inside a gpu.module: it addresses the module's dynamic shared memory}}
  fusion.stage_copy %x[%i] to %at if %ok {bytes = 16} : memref<?xf32>, i32
  return
}

// -----

gpu.module @m {
  gpu.func @stage_copy_bytes(%x: memref<?xf32>, %i: index, %at: i32, %ok: i1) kernel {
    // expected-error @+1 {{copies 4, 8 or a multiple of 16 bytes, got 12}}
    fusion.stage_copy %x[%i] to %at if %ok {bytes = 12} : memref<?xf32>, i32
    gpu.return
  }
}

// -----

gpu.module @m {
  gpu.func @stage_copy_partial(%x: memref<?xf64>, %i: index, %at: i32, %ok: i1) kernel {
    // expected-error @+1 {{copies whole elements: 4 bytes of 'f64'}}
    fusion.stage_copy %x[%i] to %at if %ok {bytes = 4} : memref<?xf64>, i32
    gpu.return
  }
}

// -----

gpu.module @m {
  gpu.func @stage_copy_shared(%x: memref<?xf32, #gpu.address_space<workgroup>>, %i: index, %at: i32, %ok: i1) kernel {
    // expected-error @+1 {{copies from global memory, got 'memref<?xf32, #gpu.address_space<workgroup>>'}}
    fusion.stage_copy %x[%i] to %at if %ok {bytes = 16} : memref<?xf32, #gpu.address_space<workgroup>>, i32
    gpu.return
  }
}

// -----

gpu.module @m {
  gpu.func @stage_wait_range() kernel {
    // expected-error @+1 {{attribute 'pending' failed to satisfy constraint}}
    fusion.stage_wait {pending = 9}
    gpu.return
  }
}

// -----

gpu.module @m {
  gpu.func @stage_copy_bits(%x: memref<?xi1>, %i: index, %at: i32, %ok: i1) kernel {
    // expected-error @+1 {{copies integers or floats of whole bytes, got 'i1'}}
    fusion.stage_copy %x[%i] to %at if %ok {bytes = 4} : memref<?xi1>, i32
    gpu.return
  }
}

// -----

func.func @stage_bulk_copy_outside_gpu_module(%x: memref<?xf32>, %i: index, %at: i32, %n: i32, %bars: memref<2xi64, #gpu.address_space<workgroup>>, %b: index) {
  // expected-error @+1 {{must be inside a gpu.module: it addresses the module's dynamic shared memory}}
  fusion.stage_bulk_copy %x[%i] to %at, %n bytes, %bars[%b] : memref<?xf32>, i32, memref<2xi64, #gpu.address_space<workgroup>>
  return
}

// -----

gpu.module @m {
  gpu.func @stage_bulk_copy_bytes(%x: memref<?xf32>, %i: index, %at: i32, %bars: memref<2xi64, #gpu.address_space<workgroup>>, %b: index) kernel {
    %n = arith.constant 24 : i32
    // expected-error @+1 {{copies a positive multiple of 16 bytes, got 24}}
    fusion.stage_bulk_copy %x[%i] to %at, %n bytes, %bars[%b] : memref<?xf32>, i32, memref<2xi64, #gpu.address_space<workgroup>>
    gpu.return
  }
}

// -----

gpu.module @m {
  gpu.func @stage_bulk_copy_none(%x: memref<?xf32>, %i: index, %at: i32, %bars: memref<2xi64, #gpu.address_space<workgroup>>, %b: index) kernel {
    %n = arith.constant 0 : i32
    // expected-error @+1 {{copies a positive multiple of 16 bytes, got 0}}
    fusion.stage_bulk_copy %x[%i] to %at, %n bytes, %bars[%b] : memref<?xf32>, i32, memref<2xi64, #gpu.address_space<workgroup>>
    gpu.return
  }
}

// -----

gpu.module @m {
  gpu.func @stage_bulk_copy_shared(%x: memref<?xf32, #gpu.address_space<workgroup>>, %i: index, %at: i32, %n: i32, %bars: memref<2xi64, #gpu.address_space<workgroup>>, %b: index) kernel {
    // expected-error @+1 {{copies from global memory, got 'memref<?xf32, #gpu.address_space<workgroup>>'}}
    fusion.stage_bulk_copy %x[%i] to %at, %n bytes, %bars[%b] : memref<?xf32, #gpu.address_space<workgroup>>, i32, memref<2xi64, #gpu.address_space<workgroup>>
    gpu.return
  }
}

// -----

gpu.module @m {
  gpu.func @stage_bulk_copy_bits(%x: memref<?xi1>, %i: index, %at: i32, %n: i32, %bars: memref<2xi64, #gpu.address_space<workgroup>>, %b: index) kernel {
    // expected-error @+1 {{copies integers or floats of whole bytes, got 'i1'}}
    fusion.stage_bulk_copy %x[%i] to %at, %n bytes, %bars[%b] : memref<?xi1>, i32, memref<2xi64, #gpu.address_space<workgroup>>
    gpu.return
  }
}

// -----

gpu.module @m {
  gpu.func @stage_bulk_copy_barriers(%x: memref<?xf32>, %i: index, %at: i32, %n: i32, %bars: memref<2xi32, #gpu.address_space<workgroup>>, %b: index) kernel {
    // expected-error @+1 {{takes its mbarriers as a static 1-d memref of i64 in workgroup memory, got 'memref<2xi32, #gpu.address_space<workgroup>>'}}
    fusion.stage_bulk_copy %x[%i] to %at, %n bytes, %bars[%b] : memref<?xf32>, i32, memref<2xi32, #gpu.address_space<workgroup>>
    gpu.return
  }
}
