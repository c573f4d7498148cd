// Rotary position embedding on [tokens, heads, 128] bf16 (BENCHMARKS.md:
// slice, neg, cat, mul, add), with cos and sin per token [tokens, 128]:
// x * cos + rotate_half(x) * sin, rotate_half(x) = cat(-x[..., 64:], x[..., :64]).
fusion.fusion @rope(%x: tensor<?x?x128xbf16> {fusion.name = "x"}, %cos: tensor<?x128xbf16> {fusion.name = "cos"}, %sin: tensor<?x128xbf16> {fusion.name = "sin"}) -> tensor<?x?x128xbf16> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %t = fusion.dim %x, 0 : tensor<?x?x128xbf16>
  %h = fusion.dim %x, 1 : tensor<?x?x128xbf16>
  %lo = fusion.slice %x [%c0, %c0, %c0] [%t, %h, %c64] [%c1, %c1, %c1] : tensor<?x?x128xbf16> -> tensor<?x?x64xbf16>
  %hi = fusion.slice %x [%c0, %c0, %c64] [%t, %h, %c128] [%c1, %c1, %c1] : tensor<?x?x128xbf16> -> tensor<?x?x64xbf16>
  %nhi = fusion.neg %hi : tensor<?x?x64xbf16>
  %rot = fusion.cat %nhi, %lo dim = 2 : tensor<?x?x64xbf16>, tensor<?x?x64xbf16> -> tensor<?x?x128xbf16>
  %cb = fusion.broadcast_in_dim %cos [0, 2] (%t, %h) : tensor<?x128xbf16> -> tensor<?x?x128xbf16>
  %sb = fusion.broadcast_in_dim %sin [0, 2] (%t, %h) : tensor<?x128xbf16> -> tensor<?x?x128xbf16>
  %a = fusion.mul %x, %cb : tensor<?x?x128xbf16>
  %b = fusion.mul %rot, %sb : tensor<?x?x128xbf16>
  %y = fusion.add %a, %b : tensor<?x?x128xbf16>
  fusion.return %y : tensor<?x?x128xbf16>
}
