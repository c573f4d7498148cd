// The definition test/GPU/tma.mlir's hand-written kernels implement: the
// reference fusion-run checks them against.
fusion.fusion @tma_double(%x: tensor<?x?xf32> {fusion.name = "x"}) -> tensor<?x?xf32> {
  %y = fusion.add %x, %x : tensor<?x?xf32>
  fusion.return %y : tensor<?x?xf32>
}
