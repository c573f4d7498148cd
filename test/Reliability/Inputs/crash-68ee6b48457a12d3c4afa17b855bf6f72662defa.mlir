#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
func.func @softmax_linalg(%x: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %m = tensor.dim %x, %c0 : tensor<?x?xf32>
  %n = tensor.dim %x, %c1 : tensor<?x?xf32>
  %ninf = arith.constant 0xFF800000 : f32
  %zero = arith.constant 0.0 : f32
  %rows = tensor.empty(%m) : tensor<?xf32>
  %init_max = linalg.fill ins(%ninf : f32) outs(%rows : tensor<?xf32>) -> tensor<?xf32>
  %max = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<?x?xf32>) outs(%init_max : tensor<?xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %r = arith.maximumf %a, %acc : f32
    linalg.yield %r : f32
  } -> tensor<?xf32>
  %full = tensor.empty(%m, %n) : tensor<?x?xf32>
  %e = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %max : tensor<?x?xf32>, tensor<?xf32>) outs(%full : tensor<?x?xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %d = arith.subf %a, %b : f32
    %v = math.exp %d : f32
    linalg.yield %v : f32
  } -> tensor<?x?xf32>
  %init_sum = linalg.fill ins(%zero : f32) outs(%rows : tensor<?xf32>) -> tensor<?xf32>
  %sum = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%e : tensor<?x?xf32>) outs(%init_sum : tensor<?xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %r = arith.addf %a, %acc : f32
    linalg.yield %r : f32
  } -> tensor<?xf32>
  %y = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%e, %sum : tensor<?x?xf32>, tensor<?xf32>) outs(%full : tensor<?x?xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %q = arith.divf %a, %b : f32
    linalg.yield %q : f32
  } -> tensor<?x?xf32>
  return %y : tensor<?x?xf32>
}

func.func @named(%a: tensor<8x16xbf16>, %v: tensor<16xbf16>) -> tensor<16x8xbf16> {
  %e = tensor.empty() : tensor<8x16xbf16>
  %s = linalg.softmax dimension(1) ins(%a : tensor<8x16xbf16>) outs(%e : tensor<8x16xbf16>) -> tensor<8x16xbf16>
  %vb = linalg.broadcast ins(%v : tensor<16xbf16>) outs(%e : tensor<8x16xbf16>) dimensions = [0]
  %p = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%s, %vb : tensor<8x16xbf16>, tensor<8x16xbf16>) outs(%e : tensor<8x16xbf16>) {
  ^bb0(%x: bf16, %y: bf16, %o: bf16):
    %r = arith.mulf %x, %y : bf16
    linalg.yield %r : bf16
  } -> tensor<8x16xbf16>
  %et = tensor.empty() : tensor<16x8xbf16>
  %t = linalg.transpose ins(%p : tensor<8x16xbf16>) outs(%et : tensor<16x8xbf16>) permutation = [1, Ш
  return %t : tensor<16x8xbf16>
}

func.func @named_ew(%a: tensor<?x?xf32>, %b: tensor<?x?xf32>) -> tensor<?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %m = tensor.dim %a, %c0 : tensor<?x?xf32>
  %n = tensor.dim %a, %c1 : tensor<?x?xf32>
  %e = tensor.empty(%m, %n) : tensor<?x?xf32>
  %s = linalg.add ins(%a, %b : tensor<?x?xf32>, tensor<?x?xf32>) outs(%e : tensor<?x?xf32>) -> tensor<?x?xf32>
  %x = linalg.exp ins(%s : tensor<?x?xf32>) outs(%e : tensor<?x?xf32>) -> tensor<?x?xf32>
  %zero = arith.constant 0.0 : f32
  %r = tensor.empty(%m) : tensor<?xf32>
  %f = linalg.fill ins(%zero : f32) outs(%r : tensor<?xf32>) -> tensor<?xf32>
  %sum = linalg.reduce ins(%x : tensor<?x?xf32>) outs(%f : tensor<?xf32>) dimensions = [1]
    (%in: f32, %init: f32) {
      %y = arith.addf %in, %init : f32
      linalg.yield %y : f32
    }
  return %sum : tensor<?xf32>
}

#vec = affine_map<(d0) -> (d0)>
func.func @scale_cast(%x: tensor<?xbf16>) -> tensor<?xf32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?xbf16>
  %e = tensor.empty(%n) : tensor<?xf32>
  %y = linalg.generic {indexing_maps = [#vec, #vec], iterator_types = ["parallel"]}
      ins(%x : tensor<?xbf16>) outs(%e : tensor<?xf32>) {
  ^bb0(%a: bf16, %o: f32):
    %w = arith.extf %a : bf16 to f32
    %h = arith.constant 0.5 : f32
    %r = arith.mulf %w, %h : f32
    linalg.yield %r : f32
  } -> tensor<?xf32>
  return %y : tensor<?xf32>
}
