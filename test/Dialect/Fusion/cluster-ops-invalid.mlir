// Verifier diagnostics of fusion.cluster_reduce (Note [Cluster
// reductions]): one static 1-d workgroup slot buffer per state component,
// of the component's type; components of 16 to 64 bits; the regions'
// signatures; the mbarrier form's slots and barriers.
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

// Rounds through mbarriers need two sets of slots per component (an even
// count), 32- or 64-bit components (st.async's widths), and two mbarriers in
// a workgroup memref<2xi64>, for the reduction and for its initialization.
gpu.module @m {
  gpu.func @odd_slots(%x: f32, %l: i1, %n: i32) workgroup(%s : memref<3xf32, #gpu.address_space<workgroup>>, %bars : memref<2xi64, #gpu.address_space<workgroup>>) kernel {
    // expected-error @+1 {{with barriers needs an even number of elements (two sets of slots) in every slot buffer; slot buffer 0 has type 'memref<3xf32, #gpu.address_space<workgroup>>'}}
    %r = fusion.cluster_reduce %x : f32 leader %l slots(%s : memref<3xf32, #gpu.address_space<workgroup>>) barriers %bars round %n : memref<2xi64, #gpu.address_space<workgroup>>, i32 identity {
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
  gpu.func @half_slots(%x: f16, %l: i1, %n: i32) workgroup(%s : memref<16xf16, #gpu.address_space<workgroup>>, %bars : memref<2xi64, #gpu.address_space<workgroup>>) kernel {
    // expected-error @+1 {{with barriers sends 32- or 64-bit components (st.async); slot buffer 0 has type 'memref<16xf16, #gpu.address_space<workgroup>>'}}
    %r = fusion.cluster_reduce %x : f16 leader %l slots(%s : memref<16xf16, #gpu.address_space<workgroup>>) barriers %bars round %n : memref<2xi64, #gpu.address_space<workgroup>>, i32 identity {
      %z = arith.constant 0.0 : f16
      fusion.reduce_yield %z : f16
    } combiner {
    ^bb0(%a: f16, %b: f16):
      fusion.reduce_yield %a : f16
    }
    gpu.return
  }
}

// -----

gpu.module @m {
  gpu.func @barrier_type(%x: f32, %l: i1, %n: i32) workgroup(%s : memref<16xf32, #gpu.address_space<workgroup>>, %bars : memref<2xi32, #gpu.address_space<workgroup>>) kernel {
    // expected-error @+1 {{needs two mbarriers, a workgroup memref<2xi64>, got 'memref<2xi32, #gpu.address_space<workgroup>>'}}
    %r = fusion.cluster_reduce %x : f32 leader %l slots(%s : memref<16xf32, #gpu.address_space<workgroup>>) barriers %bars round %n : memref<2xi32, #gpu.address_space<workgroup>>, i32 identity {
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
  gpu.func @global_barriers(%bars : memref<2xi64>) kernel {
    // expected-error @+1 {{needs two mbarriers, a workgroup memref<2xi64>, got 'memref<2xi64>'}}
    fusion.cluster_reduce_init %bars : memref<2xi64>
    gpu.return
  }
}

// -----

gpu.module @m {
  gpu.func @three_barriers() workgroup(%bars : memref<3xi64, #gpu.address_space<workgroup>>) kernel {
    // expected-error @+1 {{needs two mbarriers, a workgroup memref<2xi64>, got 'memref<3xi64, #gpu.address_space<workgroup>>'}}
    fusion.cluster_reduce_init %bars : memref<3xi64, #gpu.address_space<workgroup>>
    gpu.return
  }
}
