// Hand-written schedules the lowering cannot honour are refused when they
// are parsed (Note [Schedule ranges]): before, vector = 2147483647 hung the
// compiler, block = 0 leaked an NVVM range error and unroll = 0 compiled to
// plans that divided by zero.
// RUN: fusion-opt %s -split-input-file -verify-diagnostics

fusion.fusion @f0(%a: tensor<?xf32>) -> tensor<?xf32> {
  // expected-error @+1 {{#fusion.pointwise vector = 2147483647 is out of range: expected 1 to 16}}
  %0 = fusion.kernel @f0_k0 schedule = #fusion.pointwise<vector = 2147483647, unroll = 1, block = 128, max_grid = 100, index64 = false, fast_math = false> (%a) : (tensor<?xf32>) -> tensor<?xf32> {
  ^bb0(%x: tensor<?xf32>):
    %1 = fusion.neg %x : tensor<?xf32>
    fusion.yield %1 : tensor<?xf32>
  }
  fusion.return %0 : tensor<?xf32>
}

// -----

fusion.fusion @f1(%a: tensor<?xf32>) -> tensor<?xf32> {
  // expected-error @+1 {{#fusion.pointwise unroll = 2147483647 is out of range: expected 1 to 16}}
  %0 = fusion.kernel @f1_k0 schedule = #fusion.pointwise<vector = 4, unroll = 2147483647, block = 128, max_grid = 100, index64 = false, fast_math = false> (%a) : (tensor<?xf32>) -> tensor<?xf32> {
  ^bb0(%x: tensor<?xf32>):
    %1 = fusion.neg %x : tensor<?xf32>
    fusion.yield %1 : tensor<?xf32>
  }
  fusion.return %0 : tensor<?xf32>
}

// -----

fusion.fusion @f2(%a: tensor<?xf32>) -> tensor<?xf32> {
  // expected-error @+1 {{#fusion.pointwise block = 0 is out of range: expected 1 to 1024}}
  %0 = fusion.kernel @f2_k0 schedule = #fusion.pointwise<vector = 4, unroll = 1, block = 0, max_grid = 100, index64 = false, fast_math = false> (%a) : (tensor<?xf32>) -> tensor<?xf32> {
  ^bb0(%x: tensor<?xf32>):
    %1 = fusion.neg %x : tensor<?xf32>
    fusion.yield %1 : tensor<?xf32>
  }
  fusion.return %0 : tensor<?xf32>
}

// -----

fusion.fusion @f3(%a: tensor<?xf32>) -> tensor<?xf32> {
  // expected-error @+1 {{#fusion.pointwise unroll = 0 is out of range: expected 1 to 16}}
  %0 = fusion.kernel @f3_k0 schedule = #fusion.pointwise<vector = 4, unroll = 0, block = 128, max_grid = 100, index64 = false, fast_math = false> (%a) : (tensor<?xf32>) -> tensor<?xf32> {
  ^bb0(%x: tensor<?xf32>):
    %1 = fusion.neg %x : tensor<?xf32>
    fusion.yield %1 : tensor<?xf32>
  }
  fusion.return %0 : tensor<?xf32>
}

// -----

fusion.fusion @f4(%a: tensor<?xf32>) -> tensor<?xf32> {
  // expected-error @+1 {{#fusion.pointwise vector = -4 is out of range: expected 1 to 16}}
  %0 = fusion.kernel @f4_k0 schedule = #fusion.pointwise<vector = -4, unroll = 1, block = 128, max_grid = 100, index64 = false, fast_math = false> (%a) : (tensor<?xf32>) -> tensor<?xf32> {
  ^bb0(%x: tensor<?xf32>):
    %1 = fusion.neg %x : tensor<?xf32>
    fusion.yield %1 : tensor<?xf32>
  }
  fusion.return %0 : tensor<?xf32>
}

// -----

fusion.fusion @f5(%a: tensor<?xf32>) -> tensor<?xf32> {
  // expected-error @+1 {{#fusion.pointwise max_grid = -1 is out of range: expected 1 to 2147483647}}
  %0 = fusion.kernel @f5_k0 schedule = #fusion.pointwise<vector = 4, unroll = 1, block = 128, max_grid = -1, index64 = false, fast_math = false> (%a) : (tensor<?xf32>) -> tensor<?xf32> {
  ^bb0(%x: tensor<?xf32>):
    %1 = fusion.neg %x : tensor<?xf32>
    fusion.yield %1 : tensor<?xf32>
  }
  fusion.return %0 : tensor<?xf32>
}

// -----

fusion.fusion @f6(%a: tensor<?xf32>) -> tensor<?xf32> {
  // expected-error @+1 {{#fusion.pointwise max_grid = 2147483648 is out of range: expected 1 to 2147483647}}
  %0 = fusion.kernel @f6_k0 schedule = #fusion.pointwise<vector = 4, unroll = 1, block = 128, max_grid = 2147483648, index64 = false, fast_math = false> (%a) : (tensor<?xf32>) -> tensor<?xf32> {
  ^bb0(%x: tensor<?xf32>):
    %1 = fusion.neg %x : tensor<?xf32>
    fusion.yield %1 : tensor<?xf32>
  }
  fusion.return %0 : tensor<?xf32>
}

// -----

fusion.fusion @f7(%a: tensor<?xf32>) -> tensor<?xf32> {
  // expected-error @+1 {{#fusion.pointwise vector = 3 is not a power of two}}
  %0 = fusion.kernel @f7_k0 schedule = #fusion.pointwise<vector = 3, unroll = 1, block = 128, max_grid = 100, index64 = false, fast_math = false> (%a) : (tensor<?xf32>) -> tensor<?xf32> {
  ^bb0(%x: tensor<?xf32>):
    %1 = fusion.neg %x : tensor<?xf32>
    fusion.yield %1 : tensor<?xf32>
  }
  fusion.return %0 : tensor<?xf32>
}

// -----

fusion.fusion @f8(%a: tensor<?xf32>) -> tensor<?xf32> {
  // expected-error @+1 {{#fusion.pointwise block = 2048 is out of range: expected 1 to 1024}}
  %0 = fusion.kernel @f8_k0 schedule = #fusion.pointwise<vector = 4, unroll = 1, block = 2048, max_grid = 100, index64 = false, fast_math = false> (%a) : (tensor<?xf32>) -> tensor<?xf32> {
  ^bb0(%x: tensor<?xf32>):
    %1 = fusion.neg %x : tensor<?xf32>
    fusion.yield %1 : tensor<?xf32>
  }
  fusion.return %0 : tensor<?xf32>
}

// -----

fusion.fusion @f9(%a: tensor<?x?xf32>) -> tensor<?x?xf32> {
  // expected-error @+1 {{#fusion.inner_reduction vector = 65536 is out of range: expected 1 to 16}}
  %0 = fusion.kernel @f9_k0 schedule = #fusion.inner_reduction<vector = 65536, items = 1, block = 128, max_grid = 100, index64 = false, fast_math = false> (%a) : (tensor<?x?xf32>) -> tensor<?x?xf32> {
  ^bb0(%x: tensor<?x?xf32>):
    %1 = fusion.neg %x : tensor<?x?xf32>
    fusion.yield %1 : tensor<?x?xf32>
  }
  fusion.return %0 : tensor<?x?xf32>
}

// -----

fusion.fusion @f10(%a: tensor<?x?xf32>) -> tensor<?x?xf32> {
  // expected-error @+1 {{#fusion.inner_reduction items = -1 is out of range: expected 0 to 16}}
  %0 = fusion.kernel @f10_k0 schedule = #fusion.inner_reduction<vector = 4, items = -1, block = 128, max_grid = 100, index64 = false, fast_math = false> (%a) : (tensor<?x?xf32>) -> tensor<?x?xf32> {
  ^bb0(%x: tensor<?x?xf32>):
    %1 = fusion.neg %x : tensor<?x?xf32>
    fusion.yield %1 : tensor<?x?xf32>
  }
  fusion.return %0 : tensor<?x?xf32>
}

// -----

// Clusters of 2, 4 or 8 blocks (Note [Cluster rows]).
fusion.fusion @f10c(%a: tensor<?x?xf32>) -> tensor<?x?xf32> {
  // expected-error @+1 {{#fusion.inner_reduction cluster = 16 is not a cluster size: expected 0 (none), 2, 4 or 8}}
  %0 = fusion.kernel @f10c_k0 schedule = #fusion.inner_reduction<vector = 4, items = 1, block = 128, max_grid = 100, index64 = false, fast_math = false, cluster = 16> (%a) : (tensor<?x?xf32>) -> tensor<?x?xf32> {
  ^bb0(%x: tensor<?x?xf32>):
    %1 = fusion.neg %x : tensor<?x?xf32>
    fusion.yield %1 : tensor<?x?xf32>
  }
  fusion.return %0 : tensor<?x?xf32>
}

// -----

// Rows over clusters of 2, 4 or 8 blocks (Note [Cluster persistent rows]).
fusion.fusion @f10d(%a: tensor<?x?xf32>) -> tensor<?x?xf32> {
  // expected-error @+1 {{#fusion.inner_reduction long_cluster = 3 is not a cluster size: expected 0 (none), 2, 4 or 8}}
  %0 = fusion.kernel @f10d_k0 schedule = #fusion.inner_reduction<vector = 4, items = 1, block = 128, max_grid = 100, index64 = false, fast_math = false, long_cluster = 3> (%a) : (tensor<?x?xf32>) -> tensor<?x?xf32> {
  ^bb0(%x: tensor<?x?xf32>):
    %1 = fusion.neg %x : tensor<?x?xf32>
    fusion.yield %1 : tensor<?x?xf32>
  }
  fusion.return %0 : tensor<?x?xf32>
}

// -----

// The wide grid of the streaming and staged variants (Note [Wide row
// grids]) is a block count like max_grid.
fusion.fusion @f10g(%a: tensor<?x?xf32>) -> tensor<?x?xf32> {
  // expected-error @+1 {{#fusion.inner_reduction row_grid = -1 is out of range: expected 0 to 2147483647}}
  %0 = fusion.kernel @f10g_k0 schedule = #fusion.inner_reduction<vector = 4, items = 1, block = 128, max_grid = 100, index64 = false, fast_math = false, row_grid = -1> (%a) : (tensor<?x?xf32>) -> tensor<?x?xf32> {
  ^bb0(%x: tensor<?x?xf32>):
    %1 = fusion.neg %x : tensor<?x?xf32>
    fusion.yield %1 : tensor<?x?xf32>
  }
  fusion.return %0 : tensor<?x?xf32>
}

// -----

// A second staged buffer needs the first (Note [Async staged rows]).
fusion.fusion @f10s(%a: tensor<?x?xf32>) -> tensor<?x?xf32> {
  // expected-error @+1 {{#fusion.inner_reduction async_stage needs stage_row: it copies the next row into the staged row's second buffer}}
  %0 = fusion.kernel @f10s_k0 schedule = #fusion.inner_reduction<vector = 4, items = 1, block = 128, max_grid = 100, index64 = false, fast_math = false, async_stage = true> (%a) : (tensor<?x?xf32>) -> tensor<?x?xf32> {
  ^bb0(%x: tensor<?x?xf32>):
    %1 = fusion.neg %x : tensor<?x?xf32>
    fusion.yield %1 : tensor<?x?xf32>
  }
  fusion.return %0 : tensor<?x?xf32>
}

// -----

// The long-row variant's async copy is the staged rows' async copy
// (Note [Staged rows heuristic]).
fusion.fusion @f10l(%a: tensor<?x?xf32>) -> tensor<?x?xf32> {
  // expected-error @+1 {{#fusion.inner_reduction long_async needs async_stage: it lets the long-row variant copy its next row the same way}}
  %0 = fusion.kernel @f10l_k0 schedule = #fusion.inner_reduction<vector = 4, items = 1, block = 128, max_grid = 100, index64 = false, fast_math = false, stage_row = true, long_stage = true, long_async = true> (%a) : (tensor<?x?xf32>) -> tensor<?x?xf32> {
  ^bb0(%x: tensor<?x?xf32>):
    %1 = fusion.neg %x : tensor<?x?xf32>
    fusion.yield %1 : tensor<?x?xf32>
  }
  fusion.return %0 : tensor<?x?xf32>
}

// -----

// Bulk copies are a way of the async copy (Note [Bulk staged rows]).
fusion.fusion @f10b(%a: tensor<?x?xf32>) -> tensor<?x?xf32> {
  // expected-error @+1 {{#fusion.inner_reduction bulk_stage needs async_stage: it is a way to copy the next row into the second buffer}}
  %0 = fusion.kernel @f10b_k0 schedule = #fusion.inner_reduction<vector = 4, items = 1, block = 128, max_grid = 100, index64 = false, fast_math = false, stage_row = true, bulk_stage = true> (%a) : (tensor<?x?xf32>) -> tensor<?x?xf32> {
  ^bb0(%x: tensor<?x?xf32>):
    %1 = fusion.neg %x : tensor<?x?xf32>
    fusion.yield %1 : tensor<?x?xf32>
  }
  fusion.return %0 : tensor<?x?xf32>
}

// -----

fusion.fusion @f11(%a: tensor<?x?xf32>) -> tensor<?x?xf32> {
  // expected-error @+1 {{#fusion.inner_reduction block = 0 is out of range: expected 1 to 512}}
  %0 = fusion.kernel @f11_k0 schedule = #fusion.inner_reduction<vector = 4, items = 1, block = 0, max_grid = 100, index64 = false, fast_math = false> (%a) : (tensor<?x?xf32>) -> tensor<?x?xf32> {
  ^bb0(%x: tensor<?x?xf32>):
    %1 = fusion.neg %x : tensor<?x?xf32>
    fusion.yield %1 : tensor<?x?xf32>
  }
  fusion.return %0 : tensor<?x?xf32>
}

// -----

fusion.fusion @f11b(%a: tensor<?x?xf32>) -> tensor<?x?xf32> {
  // expected-error @+1 {{#fusion.inner_reduction block = 1024 is out of range: expected 1 to 512}}
  %0 = fusion.kernel @f11b_k0 schedule = #fusion.inner_reduction<vector = 4, items = 1, block = 1024, max_grid = 100, index64 = false, fast_math = false> (%a) : (tensor<?x?xf32>) -> tensor<?x?xf32> {
  ^bb0(%x: tensor<?x?xf32>):
    %1 = fusion.neg %x : tensor<?x?xf32>
    fusion.yield %1 : tensor<?x?xf32>
  }
  fusion.return %0 : tensor<?x?xf32>
}

// -----

fusion.fusion @f12(%a: tensor<?x?xf32>) -> tensor<?x?xf32> {
  // expected-error @+1 {{#fusion.outer_reduction unroll = 0 is out of range: expected 1 to 16}}
  %0 = fusion.kernel @f12_k0 schedule = #fusion.outer_reduction<vector = 4, unroll = 0, target_blocks = 100, index64 = false, fast_math = false> (%a) : (tensor<?x?xf32>) -> tensor<?x?xf32> {
  ^bb0(%x: tensor<?x?xf32>):
    %1 = fusion.neg %x : tensor<?x?xf32>
    fusion.yield %1 : tensor<?x?xf32>
  }
  fusion.return %0 : tensor<?x?xf32>
}

// -----

fusion.fusion @f13(%a: tensor<?x?xf32>) -> tensor<?x?xf32> {
  // expected-error @+1 {{#fusion.outer_reduction target_blocks = 0 is out of range: expected 1 to 2147483647}}
  %0 = fusion.kernel @f13_k0 schedule = #fusion.outer_reduction<vector = 4, unroll = 1, target_blocks = 0, index64 = false, fast_math = false> (%a) : (tensor<?x?xf32>) -> tensor<?x?xf32> {
  ^bb0(%x: tensor<?x?xf32>):
    %1 = fusion.neg %x : tensor<?x?xf32>
    fusion.yield %1 : tensor<?x?xf32>
  }
  fusion.return %0 : tensor<?x?xf32>
}
