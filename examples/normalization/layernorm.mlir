// layer_norm over the last dim with weight and bias, eps 1e-5.
fusion.fusion @layernorm(%x: tensor<?x?xbf16> {fusion.name = "x"}, %w: tensor<?xbf16> {fusion.name = "weight"}, %b: tensor<?xbf16> {fusion.name = "bias"}) -> tensor<?x?xbf16> {
  %0 = fusion.layer_norm %x weight(%w : tensor<?xbf16>) bias(%b : tensor<?xbf16>) axis = 1 eps = 1.0e-05 : tensor<?x?xbf16>
  fusion.return %0 : tensor<?x?xbf16>
}
