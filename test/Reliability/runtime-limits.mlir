// Fusions whose modules the runtime would refuse (item 7) are refused by the
// compiler, with a diagnostic on the op (Note [What the runtime takes]).
// RUN: fusion-opt %s -split-input-file -verify-diagnostics --fusion-to-ptx -o /dev/null

// expected-error @+1 {{'fusion.fusion' op input 0 (arg0): rank 9 is over the runtime's maximum rank 8}}
fusion.fusion @rank9(%x: tensor<?x?x?x?x?x?x?x?x?xf32>) -> tensor<?x?x?x?x?x?x?x?x?xf32> {
  %r = fusion.neg %x : tensor<?x?x?x?x?x?x?x?x?xf32>
  fusion.return %r : tensor<?x?x?x?x?x?x?x?x?xf32>
}

// -----

fusion.fusion @rank9_inside(%x: tensor<?x?x?x?x?x?x?x?xf32>) -> tensor<?x?x?x?x?x?x?x?xf32> {
  %n = fusion.dim %x, 0 : tensor<?x?x?x?x?x?x?x?xf32>
  // expected-error @+1 {{rank 9 is over the runtime's maximum rank 8}}
  %b = fusion.broadcast_in_dim %x [1, 2, 3, 4, 5, 6, 7, 8](%n, %n, %n, %n, %n, %n, %n, %n, %n) : tensor<?x?x?x?x?x?x?x?xf32> -> tensor<?x?x?x?x?x?x?x?x?xf32>
  %s = fusion.sum %b [0] : tensor<?x?x?x?x?x?x?x?x?xf32> -> tensor<?x?x?x?x?x?x?x?xf32>
  fusion.return %s : tensor<?x?x?x?x?x?x?x?xf32>
}

// -----

// expected-error @+1 {{input 0 (arg0): the static sizes of 'tensor<4294967296x4294967296xf32>' overflow 64-bit byte offsets}}
fusion.fusion @too_big(%x: tensor<4294967296x4294967296xf32>) -> tensor<4294967296x4294967296xf32> {
  %r = fusion.neg %x : tensor<4294967296x4294967296xf32>
  fusion.return %r : tensor<4294967296x4294967296xf32>
}

// -----

fusion.fusion @argmax_empty(%x: tensor<?x0xf32>) -> tensor<?xi64> {
  // expected-error @+1 {{'fusion.argmax' op reduces dim 1 of 'tensor<?x0xf32>', which is empty: there is no index to return}}
  %r = fusion.argmax %x dim = 1 : tensor<?x0xf32> -> tensor<?xi64>
  fusion.return %r : tensor<?xi64>
}
