// [M, N] -> [N, M] of a bf16 matrix, written contiguously (BENCHMARKS.md:
// transpose). `fusion.set` makes the permuted tensor a kernel's output (a
// permute alone is returned as a view of the input, with no kernel).
fusion.fusion @transpose(%x: tensor<?x?xbf16> {fusion.name = "x"}) -> tensor<?x?xbf16> {
  %0 = fusion.permute %x [1, 0] : tensor<?x?xbf16> -> tensor<?x?xbf16>
  %1 = fusion.set %0 : tensor<?x?xbf16>
  fusion.return %1 : tensor<?x?xbf16>
}
