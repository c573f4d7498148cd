// Dropout + residual add (issue 15's row): dropout(x, p = 0.1) + res in
// bf16, computed in f32 and rounded once, the mask drawn by fusion.rand
// (Philox-4x32-10, docs/random.md) from the seed and offset inputs, so the
// same seed and offset give the same mask as the reference interpreter.
//   out = where(rand(seed, offset) >= 0.1, x / 0.9, 0) + res
// One pointwise kernel: it reads x and res once and writes out once.
fusion.fusion @dropout_residual(%x: tensor<?x?xbf16> {fusion.name = "x"}, %res: tensor<?x?xbf16> {fusion.name = "res"}, %seed: i64 {fusion.name = "seed"}, %offset: i64 {fusion.name = "offset"}) -> tensor<?x?xbf16> {
  %m = fusion.dim %x, 0 : tensor<?x?xbf16>
  %n = fusion.dim %x, 1 : tensor<?x?xbf16>
  %u = fusion.rand %seed, %offset (%m, %n) : tensor<?x?xf32>
  %p = arith.constant 0.1 : f32
  %pb = fusion.broadcast_in_dim %p [] (%m, %n) : f32 -> tensor<?x?xf32>
  %keep = fusion.ge %u, %pb : tensor<?x?xf32>
  %scale = arith.constant 1.11111116 : f32
  %zero = arith.constant 0.0 : f32
  %sb = fusion.broadcast_in_dim %scale [] (%m, %n) : f32 -> tensor<?x?xf32>
  %zb = fusion.broadcast_in_dim %zero [] (%m, %n) : f32 -> tensor<?x?xf32>
  %xf = fusion.cast %x : tensor<?x?xbf16> to tensor<?x?xf32>
  %rf = fusion.cast %res : tensor<?x?xbf16> to tensor<?x?xf32>
  %xs = fusion.mul %xf, %sb : tensor<?x?xf32>
  %d = fusion.where %keep, %xs, %zb : tensor<?x?xi1>, tensor<?x?xf32>
  %y = fusion.add %d, %rf : tensor<?x?xf32>
  %o = fusion.cast %y : tensor<?x?xf32> to tensor<?x?xbf16>
  fusion.return %o : tensor<?x?xbf16>
}
