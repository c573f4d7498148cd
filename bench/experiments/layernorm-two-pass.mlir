// layer_norm over the last dim with var_mean as two sum passes (mean, then
// the centered sum of squares) instead of one Welford pass: the IR that
// --fusion-decompose gives for var_mean over other dims, applied to the
// innermost dim. For bench/experiments/inner-variants.sh (case layernorm2).
fusion.fusion @layernorm(%arg0: tensor<?x?xbf16> {fusion.name = "x"}, %arg1: tensor<?xbf16> {fusion.name = "weight"}, %arg2: tensor<?xbf16> {fusion.name = "bias"}) -> tensor<?x?xbf16> {
  %cst = arith.constant 9.99999974E-6 : f32
  %c0_i64 = arith.constant 0 : i64
  %0 = cast %arg0 : tensor<?x?xbf16> to tensor<?x?xf32>
  %1 = dim %0, 1 : tensor<?x?xf32>
  %2 = arith.index_cast %1 : index to i64
  %3 = arith.maxsi %2, %c0_i64 : i64
  %4 = sum %0 [1] keepdim : tensor<?x?xf32> -> tensor<?x1xf32>
  %5 = cast %2 : i64 to f32
  %6 = dim %4, 0 : tensor<?x1xf32>
  %7 = broadcast_in_dim %5 [](%6) : f32 -> tensor<?x1xf32>
  %8 = div %4, %7 : tensor<?x1xf32>
  %9 = dim %0, 0 : tensor<?x?xf32>
  %10 = dim %0, 1 : tensor<?x?xf32>
  %11 = expand %8(%9, %10) : tensor<?x1xf32> -> tensor<?x?xf32>
  %12 = sub %0, %11 : tensor<?x?xf32>
  %13 = mul %12, %12 : tensor<?x?xf32>
  %14 = sum %13 [1] keepdim : tensor<?x?xf32> -> tensor<?x1xf32>
  %15 = cast %3 : i64 to f32
  %16 = dim %14, 0 : tensor<?x1xf32>
  %17 = broadcast_in_dim %15 [](%16) : f32 -> tensor<?x1xf32>
  %18 = div %14, %17 : tensor<?x1xf32>
  %19 = dim %18, 0 : tensor<?x1xf32>
  %20 = broadcast_in_dim %cst [](%19) : f32 -> tensor<?x1xf32>
  %21 = add %18, %20 : tensor<?x1xf32>
  %22 = rsqrt %21 : tensor<?x1xf32>
  %23 = dim %0, 0 : tensor<?x?xf32>
  %24 = dim %0, 1 : tensor<?x?xf32>
  %25 = expand %8(%23, %24) : tensor<?x1xf32> -> tensor<?x?xf32>
  %26 = sub %0, %25 : tensor<?x?xf32>
  %27 = dim %0, 0 : tensor<?x?xf32>
  %28 = dim %0, 1 : tensor<?x?xf32>
  %29 = expand %22(%27, %28) : tensor<?x1xf32> -> tensor<?x?xf32>
  %30 = mul %26, %29 : tensor<?x?xf32>
  %31 = cast %arg1 : tensor<?xbf16> to tensor<?xf32>
  %32 = dim %0, 0 : tensor<?x?xf32>
  %33 = dim %0, 1 : tensor<?x?xf32>
  %34 = broadcast_in_dim %31 [1](%32, %33) : tensor<?xf32> -> tensor<?x?xf32>
  %35 = mul %30, %34 : tensor<?x?xf32>
  %36 = cast %arg2 : tensor<?xbf16> to tensor<?xf32>
  %37 = dim %0, 0 : tensor<?x?xf32>
  %38 = dim %0, 1 : tensor<?x?xf32>
  %39 = broadcast_in_dim %36 [1](%37, %38) : tensor<?xf32> -> tensor<?x?xf32>
  %40 = add %35, %39 : tensor<?x?xf32>
  %41 = cast %40 : tensor<?x?xf32> to tensor<?x?xbf16>
  return %41 : tensor<?x?xbf16>
}
