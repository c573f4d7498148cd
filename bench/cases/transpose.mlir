// [M, N] -> [N, M] of a bf16 matrix, written contiguously (BENCHMARKS.md:
// transpose). A permute that is only returned compiles to a view of the
// input (no kernel); bench/run.py passes a contiguous output, so the runtime
// must write one, and says "not materialized" while it returns a view.
fusion.fusion @transpose(%x: tensor<?x?xbf16> {fusion.name = "x"}) -> tensor<?x?xbf16> {
  %0 = fusion.permute %x [1, 0] : tensor<?x?xbf16> -> tensor<?x?xbf16>
  fusion.return %0 : tensor<?x?xbf16>
}
