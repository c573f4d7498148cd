// Cross-entropy forward, per-row loss (F.cross_entropy(x, target,
// reduction="none") on bf16 logits [M, V] and int64 targets [M]):
// -log_softmax(x)[target], one inner-reduction kernel (the row's max and
// sum of exp in one pass, the target logit gathered after them).
fusion.fusion @cross_entropy(%x: tensor<?x?xbf16> {fusion.name = "logits"}, %t: tensor<?xi64> {fusion.name = "target"}) -> tensor<?xbf16> {
  %m = fusion.dim %x, 0 : tensor<?x?xbf16>
  %i = fusion.broadcast_in_dim %t [0] (%m) : tensor<?xi64> -> tensor<?x1xi64>
  %l = fusion.log_softmax %x dim = 1 : tensor<?x?xbf16>
  %g = fusion.gather %l, %i dim = 1 : tensor<?x?xbf16>, tensor<?x1xi64> -> tensor<?x1xbf16>
  %n = fusion.neg %g : tensor<?x1xbf16>
  %loss = fusion.squeeze %n [1] : tensor<?x1xbf16> -> tensor<?xbf16>
  fusion.return %loss : tensor<?xbf16>
}
