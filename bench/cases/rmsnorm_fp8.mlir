// rmsnorm whose result is cast to fp8 e4m3fn, as a quantized matmul's input
// is produced: x * rsqrt(mean(x^2) + 1e-6) * w[N] in f32, rounded once to
// f8E4M3FN (issue: "an fp8 e4m3 output cast after rmsnorm").
fusion.fusion @rmsnorm_fp8(%x: tensor<?x?xbf16> {fusion.name = "x"}, %w: tensor<?xbf16> {fusion.name = "weight"}) -> tensor<?x?xf8E4M3FN> {
  %m = fusion.dim %x, 0 : tensor<?x?xbf16>
  %n = fusion.dim %x, 1 : tensor<?x?xbf16>
  %xf = fusion.cast %x : tensor<?x?xbf16> to tensor<?x?xf32>
  %wf = fusion.cast %w : tensor<?xbf16> to tensor<?xf32>
  %0 = fusion.rms_norm %xf weight(%wf : tensor<?xf32>) axis = 1 eps = 1.0e-06 : tensor<?x?xf32>
  %1 = fusion.cast %0 : tensor<?x?xf32> to tensor<?x?xf8E4M3FN>
  fusion.return %1 : tensor<?x?xf8E4M3FN>
}
