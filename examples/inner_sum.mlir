// Sum over the last dim of an f32 matrix (BENCHMARKS.md: inner_sum).
fusion.fusion @inner_sum(%x: tensor<?x?xf32> {fusion.name = "x"}) -> tensor<?xf32> {
  %0 = fusion.sum %x [1] : tensor<?x?xf32> -> tensor<?xf32>
  fusion.return %0 : tensor<?xf32>
}
