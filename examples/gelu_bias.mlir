// gelu_tanh(x + bias[N]) on bf16, computed in f32 (BENCHMARKS.md: gelu_bias).
fusion.fusion @gelu_bias(%x: tensor<?x?xbf16> {fusion.name = "x"}, %bias: tensor<?xbf16> {fusion.name = "bias"}) -> tensor<?x?xbf16> {
  %m = fusion.dim %x, 0 : tensor<?x?xbf16>
  %n = fusion.dim %x, 1 : tensor<?x?xbf16>
  %b = fusion.broadcast_in_dim %bias [1] (%m, %n) : tensor<?xbf16> -> tensor<?x?xbf16>
  %0 = fusion.add %x, %b : tensor<?x?xbf16>
  %1 = fusion.gelu %0 tanh : tensor<?x?xbf16>
  fusion.return %1 : tensor<?x?xbf16>
}
