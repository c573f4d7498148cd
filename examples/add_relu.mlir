// relu(a + b) on f32 matrices of any size (BENCHMARKS.md: add_relu).
fusion.fusion @add_relu(%a: tensor<?x?xf32> {fusion.name = "a"}, %b: tensor<?x?xf32> {fusion.name = "b"}) -> tensor<?x?xf32> {
  %0 = fusion.add %a, %b : tensor<?x?xf32>
  %1 = fusion.relu %0 : tensor<?x?xf32>
  fusion.return %1 : tensor<?x?xf32>
}
