// slice + cat + mul (issue 15's row): the first half of each row of x and
// the second half of y, joined and scaled by w[N]:
//   cat(x[:, :N/2], y[:, N/2:], dim=1) * w
// The cut at N/2 is symbolic (a multiple of the vector width at the public
// shapes, not known to the compiler). One pointwise kernel.
fusion.fusion @slice_cat_mul(%x: tensor<?x?xbf16> {fusion.name = "x"}, %y: tensor<?x?xbf16> {fusion.name = "y"}, %w: tensor<?xbf16> {fusion.name = "w"}) -> tensor<?x?xbf16> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %m = fusion.dim %x, 0 : tensor<?x?xbf16>
  %n = fusion.dim %x, 1 : tensor<?x?xbf16>
  %h = arith.divui %n, %c2 : index
  %a = fusion.slice %x [%c0, %c0] [%m, %h] [%c1, %c1] : tensor<?x?xbf16> -> tensor<?x?xbf16>
  %b = fusion.slice %y [%c0, %h] [%m, %n] [%c1, %c1] : tensor<?x?xbf16> -> tensor<?x?xbf16>
  %c = fusion.cat %a, %b dim = 1 : tensor<?x?xbf16>, tensor<?x?xbf16> -> tensor<?x?xbf16>
  %wb = fusion.broadcast_in_dim %w [1] (%m, %n) : tensor<?xbf16> -> tensor<?x?xbf16>
  %o = fusion.mul %c, %wb : tensor<?x?xbf16>
  fusion.return %o : tensor<?x?xbf16>
}
