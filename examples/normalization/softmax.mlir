// Softmax over the last dim of a bf16 matrix, computed in f32.
fusion.fusion @softmax(%x: tensor<?x?xbf16> {fusion.name = "x"}) -> tensor<?x?xbf16> {
  %0 = fusion.softmax %x dim = 1 : tensor<?x?xbf16>
  fusion.return %0 : tensor<?x?xbf16>
}
