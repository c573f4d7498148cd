// x * rsqrt(mean(x^2) + 1e-6) * w[N] over the last dim of a bf16 matrix,
// computed in f32 (BENCHMARKS.md: rmsnorm).
fusion.fusion @rmsnorm(%x: tensor<?x?xbf16> {fusion.name = "x"}, %w: tensor<?xbf16> {fusion.name = "weight"}) -> tensor<?x?xbf16> {
  %0 = fusion.rms_norm %x weight(%w : tensor<?xbf16>) axis = 1 eps = 1.0e-06 : tensor<?x?xbf16>
  fusion.return %0 : tensor<?x?xbf16>
}
