// Verifier diagnostics of fusion.cluster_reduce (Note [Cluster
// reductions]): one static 1-d workgroup slot buffer per state component,
// of the component's type; components of 16 to 64 bits; the regions'
// signatures.
// RUN: fusion-opt %s -split-input-file -verify-diagnostics

gpu.module @m {
  gpu.func @slot_count(%x: f32, %y: f32, %l: i1) workgroup(%s : memref<1xf32, #gpu.address_space<workgroup>>) kernel {
    // expected-error @+1 {{needs one slot buffer per state component (2), got 1}}
    %r:2 = fusion.cluster_reduce %x, %y : f32, f32 leader %l slots(%s : memref<1xf32, #gpu.address_space<workgroup>>) identity {
      %z = arith.constant 0.0 : f32
      fusion.reduce_yield %z, %z : f32, f32
    } combiner {
    ^bb0(%a: f32, %b: f32, %c: f32, %d: f32):
      fusion.reduce_yield %a, %b : f32, f32
    }
    gpu.return
  }
}

// -----

gpu.module @m {
  gpu.func @global_slots(%x: f32, %l: i1, %s: memref<1xf32>) kernel {
    // expected-error @+1 {{slot buffer 0 has type 'memref<1xf32>'; expected a static 1-d workgroup memref of 'f32'}}
    %r = fusion.cluster_reduce %x : f32 leader %l slots(%s : memref<1xf32>) identity {
      %z = arith.constant 0.0 : f32
      fusion.reduce_yield %z : f32
    } combiner {
    ^bb0(%a: f32, %b: f32):
      fusion.reduce_yield %a : f32
    }
    gpu.return
  }
}

// -----

gpu.module @m {
  gpu.func @slot_type(%x: f32, %l: i1) workgroup(%s : memref<1xf64, #gpu.address_space<workgroup>>) kernel {
    // expected-error @+1 {{slot buffer 0 has type 'memref<1xf64, #gpu.address_space<workgroup>>'; expected a static 1-d workgroup memref of 'f32'}}
    %r = fusion.cluster_reduce %x : f32 leader %l slots(%s : memref<1xf64, #gpu.address_space<workgroup>>) identity {
      %z = arith.constant 0.0 : f32
      fusion.reduce_yield %z : f32
    } combiner {
    ^bb0(%a: f32, %b: f32):
      fusion.reduce_yield %a : f32
    }
    gpu.return
  }
}

// -----

gpu.module @m {
  gpu.func @empty_slots(%x: f32, %l: i1) workgroup(%s : memref<0xf32, #gpu.address_space<workgroup>>) kernel {
    // expected-error @+1 {{slot buffer 0 has type 'memref<0xf32, #gpu.address_space<workgroup>>'; expected a static 1-d workgroup memref of 'f32'}}
    %r = fusion.cluster_reduce %x : f32 leader %l slots(%s : memref<0xf32, #gpu.address_space<workgroup>>) identity {
      %z = arith.constant 0.0 : f32
      fusion.reduce_yield %z : f32
    } combiner {
    ^bb0(%a: f32, %b: f32):
      fusion.reduce_yield %a : f32
    }
    gpu.return
  }
}

// -----

gpu.module @m {
  gpu.func @bool_state(%x: i1, %l: i1) workgroup(%s : memref<1xi1, #gpu.address_space<workgroup>>) kernel {
    // expected-error @+1 {{state component 0 has type 'i1'; blocks exchange 16-, 32- or 64-bit integers or floats}}
    %r = fusion.cluster_reduce %x : i1 leader %l slots(%s : memref<1xi1, #gpu.address_space<workgroup>>) identity {
      %z = arith.constant false
      fusion.reduce_yield %z : i1
    } combiner {
    ^bb0(%a: i1, %b: i1):
      fusion.reduce_yield %a : i1
    }
    gpu.return
  }
}

// -----

gpu.module @m {
  gpu.func @combiner_args(%x: f32, %l: i1) workgroup(%s : memref<1xf32, #gpu.address_space<workgroup>>) kernel {
    // expected-error @+1 {{expects the combiner region to take 2 arguments, got 1}}
    %r = fusion.cluster_reduce %x : f32 leader %l slots(%s : memref<1xf32, #gpu.address_space<workgroup>>) identity {
      %z = arith.constant 0.0 : f32
      fusion.reduce_yield %z : f32
    } combiner {
    ^bb0(%a: f32):
      fusion.reduce_yield %a : f32
    }
    gpu.return
  }
}

// -----

gpu.module @m {
  gpu.func @identity_type(%x: f32, %l: i1) workgroup(%s : memref<1xf32, #gpu.address_space<workgroup>>) kernel {
    %r = fusion.cluster_reduce %x : f32 leader %l slots(%s : memref<1xf32, #gpu.address_space<workgroup>>) identity {
      %z = arith.constant 0.0 : f64
      // expected-error @+1 {{yields 'f64' as component 0, the state has 'f32'}}
      fusion.reduce_yield %z : f64
    } combiner {
    ^bb0(%a: f32, %b: f32):
      fusion.reduce_yield %a : f32
    }
    gpu.return
  }
}

// -----

// Alternating buffers need two slots per component.
gpu.module @m {
  gpu.func @one_buffer(%x: f32, %l: i1, %b: i32) workgroup(%s : memref<1xf32, #gpu.address_space<workgroup>>) kernel {
    // expected-error @+1 {{with a buffer operand needs two elements in every slot buffer; slot buffer 0 has type 'memref<1xf32, #gpu.address_space<workgroup>>'}}
    %r = fusion.cluster_reduce %x : f32 leader %l slots(%s : memref<1xf32, #gpu.address_space<workgroup>>) buffer %b : i32 identity {
      %z = arith.constant 0.0 : f32
      fusion.reduce_yield %z : f32
    } combiner {
    ^bb0(%a: f32, %c: f32):
      fusion.reduce_yield %a : f32
    }
    gpu.return
  }
}
