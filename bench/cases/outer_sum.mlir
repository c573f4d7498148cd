// Sum over the first dim of an f32 matrix (BENCHMARKS.md: outer_sum).
fusion.fusion @outer_sum(%x: tensor<?x?xf32> {fusion.name = "x"}) -> tensor<?xf32> {
  %0 = fusion.sum %x [0] : tensor<?x?xf32> -> tensor<?xf32>
  fusion.return %0 : tensor<?xf32>
}
