// Verifier diagnostics of the bulk-copy and mbarrier ops (Note [Bulk
// copies]): the box rules of the copy engine, tiles and barriers in
// workgroup memory, the tensor map as a generic pointer.
// RUN: fusion-opt %s -split-input-file -verify-diagnostics

gpu.module @m {
  gpu.func @six_dims(%map: !llvm.ptr, %i: i32) workgroup(%t : memref<1x1x1x1x2x16xf32, #gpu.address_space<workgroup>>, %bar : memref<1xi64, #gpu.address_space<workgroup>>) kernel {
    %c0 = arith.constant 0 : index
    // expected-error @+1 {{copies boxes of 1 to 5 dims, got 6}}
    fusion.bulk_tensor_load %map [%i, %i, %i, %i, %i, %i] to %t, %bar[%c0] : !llvm.ptr, memref<1x1x1x1x2x16xf32, #gpu.address_space<workgroup>>, memref<1xi64, #gpu.address_space<workgroup>>
    gpu.return
  }
}

// -----

gpu.module @m {
  gpu.func @coordinates(%map: !llvm.ptr, %i: i32) workgroup(%t : memref<64x64xbf16, #gpu.address_space<workgroup>>, %bar : memref<1xi64, #gpu.address_space<workgroup>>) kernel {
    %c0 = arith.constant 0 : index
    // expected-error @+1 {{has 1 coordinates for a tile of 2 dims}}
    fusion.bulk_tensor_load %map [%i] to %t, %bar[%c0] : !llvm.ptr, memref<64x64xbf16, #gpu.address_space<workgroup>>, memref<1xi64, #gpu.address_space<workgroup>>
    gpu.return
  }
}

// -----

gpu.module @m {
  gpu.func @box_too_long(%map: !llvm.ptr, %i: i32) workgroup(%t : memref<512x8xbf16, #gpu.address_space<workgroup>>, %bar : memref<1xi64, #gpu.address_space<workgroup>>) kernel {
    %c0 = arith.constant 0 : index
    // expected-error @+1 {{box dim 0 has 512 elements, more than 256}}
    fusion.bulk_tensor_load %map [%i, %i] to %t, %bar[%c0] : !llvm.ptr, memref<512x8xbf16, #gpu.address_space<workgroup>>, memref<1xi64, #gpu.address_space<workgroup>>
    gpu.return
  }
}

// -----

gpu.module @m {
  gpu.func @inner_bytes(%map: !llvm.ptr, %i: i32) workgroup(%t : memref<64x6xbf16, #gpu.address_space<workgroup>>) kernel {
    // expected-error @+1 {{needs the box's innermost dim to be a multiple of 16 bytes, got 12}}
    fusion.bulk_tensor_store %t to %map [%i, %i] : memref<64x6xbf16, #gpu.address_space<workgroup>>, !llvm.ptr
    gpu.return
  }
}

// -----

gpu.module @m {
  gpu.func @global_tile(%map: !llvm.ptr, %i: i32, %t: memref<64x64xbf16>) kernel {
    // expected-error @+1 {{copies to or from a tile in workgroup memory}}
    fusion.bulk_tensor_store %t to %map [%i, %i] : memref<64x64xbf16>, !llvm.ptr
    gpu.return
  }
}

// -----

gpu.module @m {
  gpu.func @dynamic_tile(%map: !llvm.ptr, %i: i32, %t: memref<?x64xbf16, #gpu.address_space<workgroup>>) kernel {
    // expected-error @+1 {{needs a tile of static shape and identity layout (the box)}}
    fusion.bulk_tensor_store %t to %map [%i, %i] : memref<?x64xbf16, #gpu.address_space<workgroup>>, !llvm.ptr
    gpu.return
  }
}

// -----

gpu.module @m {
  gpu.func @element(%map: !llvm.ptr, %i: i32) workgroup(%t : memref<64x128xi1, #gpu.address_space<workgroup>>) kernel {
    // expected-error @+1 {{copies elements of 1, 2, 4 or 8 bytes, got 'i1'}}
    fusion.bulk_tensor_store %t to %map [%i, %i] : memref<64x128xi1, #gpu.address_space<workgroup>>, !llvm.ptr
    gpu.return
  }
}

// -----

gpu.module @m {
  gpu.func @shared_map(%map: !llvm.ptr<3>, %i: i32) workgroup(%t : memref<64x64xbf16, #gpu.address_space<workgroup>>) kernel {
    // expected-error @+1 {{takes the tensor map as a generic !llvm.ptr, got '!llvm.ptr<3>'}}
    fusion.bulk_tensor_store %t to %map [%i, %i] : memref<64x64xbf16, #gpu.address_space<workgroup>>, !llvm.ptr<3>
    gpu.return
  }
}

// -----

gpu.module @m {
  gpu.func @prefetch_index(%map: i64) kernel {
    // expected-error @+1 {{takes the tensor map as a generic !llvm.ptr, got 'i64'}}
    fusion.prefetch_tensormap %map : i64
    gpu.return
  }
}

// -----

gpu.module @m {
  gpu.func @i32_barriers(%n: i32) workgroup(%bar : memref<2xi32, #gpu.address_space<workgroup>>) kernel {
    %c0 = arith.constant 0 : index
    // expected-error @+1 {{takes its mbarriers as a static 1-d memref of i64 in workgroup memory, got 'memref<2xi32, #gpu.address_space<workgroup>>'}}
    fusion.mbarrier_init %bar[%c0], %n : memref<2xi32, #gpu.address_space<workgroup>>
    gpu.return
  }
}

// -----

gpu.module @m {
  gpu.func @global_barriers(%n: i32, %bar: memref<2xi64>) kernel {
    %c0 = arith.constant 0 : index
    // expected-error @+1 {{takes its mbarriers as a static 1-d memref of i64 in workgroup memory}}
    fusion.mbarrier_wait %bar[%c0], %n : memref<2xi64>
    gpu.return
  }
}

// -----

gpu.module @m {
  gpu.func @barriers_of_load(%map: !llvm.ptr, %i: i32) workgroup(%t : memref<64x64xbf16, #gpu.address_space<workgroup>>, %bar : memref<1x1xi64, #gpu.address_space<workgroup>>) kernel {
    %c0 = arith.constant 0 : index
    // expected-error @+1 {{takes its mbarriers as a static 1-d memref of i64 in workgroup memory}}
    fusion.bulk_tensor_load %map [%i, %i] to %t, %bar[%c0] : !llvm.ptr, memref<64x64xbf16, #gpu.address_space<workgroup>>, memref<1x1xi64, #gpu.address_space<workgroup>>
    gpu.return
  }
}

// -----

gpu.module @m {
  gpu.func @pending(%n: i32) kernel {
    // expected-error @+1 {{attribute 'pending' failed to satisfy constraint}}
    fusion.bulk_wait_group 64
    gpu.return
  }
}

// -----

gpu.module @m {
  gpu.func @unaligned(%map: !llvm.ptr, %i: i32) workgroup(%t : memref<64x64xbf16, #gpu.address_space<workgroup>>, %bar : memref<1xi64, #gpu.address_space<workgroup>>) kernel {
    %c0 = arith.constant 0 : index
    // expected-error @+1 {{needs its tile 128-byte aligned: give the workgroup attribution {llvm.align = 128 : i64}}}
    fusion.bulk_tensor_load %map [%i, %i] to %t, %bar[%c0] : !llvm.ptr, memref<64x64xbf16, #gpu.address_space<workgroup>>, memref<1xi64, #gpu.address_space<workgroup>>
    gpu.return
  }
}

// -----

gpu.module @m {
  gpu.func @align_64(%map: !llvm.ptr, %i: i32) workgroup(%t : memref<64x64xbf16, #gpu.address_space<workgroup>> {llvm.align = 64 : i64}) kernel {
    // expected-error @+1 {{needs its tile 128-byte aligned}}
    fusion.bulk_tensor_store %t to %map [%i, %i] : memref<64x64xbf16, #gpu.address_space<workgroup>>, !llvm.ptr
    gpu.return
  }
}
