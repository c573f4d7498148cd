// [M, N] -> [N, M] of an f32 matrix, written contiguously (an experiment beside BENCHMARKS.md:
// transpose). `fusion.set` makes the permuted tensor a kernel's output (a
// permute alone is returned as a view of the input, with no kernel).
fusion.fusion @transpose(%x: tensor<?x?xf32> {fusion.name = "x"}) -> tensor<?x?xf32> {
  %0 = fusion.permute %x [1, 0] : tensor<?x?xf32> -> tensor<?x?xf32>
  %1 = fusion.set %0 : tensor<?x?xf32>
  fusion.return %1 : tensor<?x?xf32>
}
