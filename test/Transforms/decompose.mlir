// --fusion-decompose: composite ops become reductions, broadcasts and
// element-wise ops. The CHECK lines follow the data flow, so a wrong operand,
// constant, reduced dim or compute type fails here.
// RUN: fusion-opt %s --fusion-decompose --split-input-file | FileCheck %s

// bf16 softmax: computed in f32 (Note [Compute type of composites]),
// max-subtracted, rounded back once at the end.
// CHECK-LABEL: fusion.fusion @softmax_bf16
// CHECK-SAME: (%[[X:[a-z0-9]+]]: tensor<?x?xbf16>)
// CHECK: %[[XF:.*]] = cast %[[X]] : tensor<?x?xbf16> to tensor<?x?xf32>
// CHECK: %[[MAX:.*]] = max %[[XF]] [1] keepdim : tensor<?x?xf32> -> tensor<?x1xf32>
// CHECK: %[[M0:.*]] = dim %[[XF]], 0
// CHECK: %[[M1:.*]] = dim %[[XF]], 1
// CHECK: %[[MAXB:.*]] = expand %[[MAX]](%[[M0]], %[[M1]]) : tensor<?x1xf32> -> tensor<?x?xf32>
// CHECK: %[[SHIFTED:.*]] = sub %[[XF]], %[[MAXB]] : tensor<?x?xf32>
// CHECK: %[[EXP:.*]] = exp %[[SHIFTED]] : tensor<?x?xf32>
// CHECK: %[[SUM:.*]] = sum %[[EXP]] [1] keepdim : tensor<?x?xf32> -> tensor<?x1xf32>
// CHECK: %[[S0:.*]] = dim %[[XF]], 0
// CHECK: %[[S1:.*]] = dim %[[XF]], 1
// CHECK: %[[SUMB:.*]] = expand %[[SUM]](%[[S0]], %[[S1]]) : tensor<?x1xf32> -> tensor<?x?xf32>
// CHECK: %[[Y:.*]] = div %[[EXP]], %[[SUMB]] : tensor<?x?xf32>
// CHECK: %[[R:.*]] = cast %[[Y]] : tensor<?x?xf32> to tensor<?x?xbf16>
// CHECK: return %[[R]] : tensor<?x?xbf16>
fusion.fusion @softmax_bf16(%x: tensor<?x?xbf16>) -> tensor<?x?xbf16> {
  %0 = fusion.softmax %x dim = 1 : tensor<?x?xbf16>
  fusion.return %0 : tensor<?x?xbf16>
}

// -----

// f32 stays f32 (no cast), and the reduced dim follows `dim`.
// CHECK-LABEL: fusion.fusion @softmax_f32_dim0
// CHECK-SAME: (%[[X:[a-z0-9]+]]: tensor<4x8xf32>)
// CHECK-NOT: cast
// CHECK: %[[MAX:.*]] = max %[[X]] [0] keepdim : tensor<4x8xf32> -> tensor<1x8xf32>
// CHECK: %[[MAXB:.*]] = expand %[[MAX]] : tensor<1x8xf32> -> tensor<4x8xf32>
// CHECK: %[[SHIFTED:.*]] = sub %[[X]], %[[MAXB]] : tensor<4x8xf32>
// CHECK: %[[EXP:.*]] = exp %[[SHIFTED]] : tensor<4x8xf32>
// CHECK: %[[SUM:.*]] = sum %[[EXP]] [0] keepdim : tensor<4x8xf32> -> tensor<1x8xf32>
// CHECK: %[[SUMB:.*]] = expand %[[SUM]] : tensor<1x8xf32> -> tensor<4x8xf32>
// CHECK: %[[Y:.*]] = div %[[EXP]], %[[SUMB]] : tensor<4x8xf32>
// CHECK-NOT: cast
// CHECK: return %[[Y]] : tensor<4x8xf32>
fusion.fusion @softmax_f32_dim0(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = fusion.softmax %x dim = 0 : tensor<4x8xf32>
  fusion.return %0 : tensor<4x8xf32>
}

// -----

// log_softmax: shifted - log(sum(exp(shifted))), in f32 for bf16.
// CHECK-LABEL: fusion.fusion @log_softmax_bf16
// CHECK-SAME: (%[[X:[a-z0-9]+]]: tensor<?x?xbf16>)
// CHECK: %[[XF:.*]] = cast %[[X]] : tensor<?x?xbf16> to tensor<?x?xf32>
// CHECK: %[[MAX:.*]] = max %[[XF]] [1] keepdim : tensor<?x?xf32> -> tensor<?x1xf32>
// CHECK: %[[MAXB:.*]] = expand %[[MAX]]
// CHECK: %[[SHIFTED:.*]] = sub %[[XF]], %[[MAXB]] : tensor<?x?xf32>
// CHECK: %[[EXP:.*]] = exp %[[SHIFTED]] : tensor<?x?xf32>
// CHECK: %[[SUM:.*]] = sum %[[EXP]] [1] keepdim : tensor<?x?xf32> -> tensor<?x1xf32>
// CHECK: %[[SUMB:.*]] = expand %[[SUM]]
// CHECK: %[[LOG:.*]] = log %[[SUMB]] : tensor<?x?xf32>
// CHECK: %[[Y:.*]] = sub %[[SHIFTED]], %[[LOG]] : tensor<?x?xf32>
// CHECK: %[[R:.*]] = cast %[[Y]] : tensor<?x?xf32> to tensor<?x?xbf16>
// CHECK: return %[[R]] : tensor<?x?xbf16>
fusion.fusion @log_softmax_bf16(%x: tensor<?x?xbf16>) -> tensor<?x?xbf16> {
  %0 = fusion.log_softmax %x dim = 1 : tensor<?x?xbf16>
  fusion.return %0 : tensor<?x?xbf16>
}

// -----

// layer_norm with weight and bias: biased variance (correction 0) over
// [axis, rank) as two sums (Note [Norms as sums]: the mean, then the mean of
// the squared deviations), eps added to the variance, then the affine
// parameters broadcast over the leading dims and applied as one fma.
// CHECK-LABEL: fusion.fusion @layer_norm_affine
// CHECK-SAME: (%[[X:[a-z0-9]+]]: tensor<?x?xbf16>, %[[W:[a-z0-9]+]]: tensor<?xbf16>, %[[B:[a-z0-9]+]]: tensor<?xbf16>)
// CHECK: %[[EPS:.*]] = arith.constant 9.99999974E-6 : f32
// CHECK: %[[XF:.*]] = cast %[[X]] : tensor<?x?xbf16> to tensor<?x?xf32>
// CHECK: %[[K:.*]] = dim %[[XF]], 1
// CHECK: %[[K64:.*]] = arith.index_cast %[[K]] : index to i64
// CHECK-NOT: var_mean
// CHECK: %[[S:.*]] = sum %[[XF]] [1] keepdim : tensor<?x?xf32> -> tensor<?x1xf32>
// CHECK: cast %[[K64]] : i64 to f32
// CHECK: %[[MEAN:.*]] = div %[[S]], %{{.*}} : tensor<?x1xf32>
// CHECK: %[[ME:.*]] = expand %[[MEAN]]({{.*}}) : tensor<?x1xf32> -> tensor<?x?xf32>
// CHECK: %[[DEV:.*]] = sub %[[XF]], %[[ME]] : tensor<?x?xf32>
// CHECK: %[[SQ:.*]] = mul %[[DEV]], %[[DEV]] : tensor<?x?xf32>
// CHECK: %[[SS:.*]] = sum %[[SQ]] [1] keepdim : tensor<?x?xf32> -> tensor<?x1xf32>
// CHECK: cast %[[K64]] : i64 to f32
// CHECK: %[[VAR:.*]] = div %[[SS]], %{{.*}} : tensor<?x1xf32>
// CHECK: %[[E0:.*]] = dim %[[VAR]], 0 : tensor<?x1xf32>
// CHECK: %[[EPSB:.*]] = broadcast_in_dim %[[EPS]] [](%[[E0]]) : f32 -> tensor<?x1xf32>
// CHECK: %[[VAREPS:.*]] = add %[[VAR]], %[[EPSB]] : tensor<?x1xf32>
// CHECK: %[[RSTD:.*]] = rsqrt %[[VAREPS]] : tensor<?x1xf32>
// CHECK-NOT: sub
// CHECK: %[[RSTDB:.*]] = expand %[[RSTD]]({{.*}}) : tensor<?x1xf32> -> tensor<?x?xf32>
// CHECK: %[[NORM:.*]] = mul %[[DEV]], %[[RSTDB]] : tensor<?x?xf32>
// CHECK: %[[WF:.*]] = cast %[[W]] : tensor<?xbf16> to tensor<?xf32>
// CHECK: %[[WB:.*]] = broadcast_in_dim %[[WF]] [1]({{.*}}) : tensor<?xf32> -> tensor<?x?xf32>
// CHECK: %[[BF:.*]] = cast %[[B]] : tensor<?xbf16> to tensor<?xf32>
// CHECK: %[[BB:.*]] = broadcast_in_dim %[[BF]] [1]({{.*}}) : tensor<?xf32> -> tensor<?x?xf32>
// CHECK: %[[Y:.*]] = fma %[[NORM]], %[[WB]], %[[BB]] : tensor<?x?xf32>
// CHECK: %[[R:.*]] = cast %[[Y]] : tensor<?x?xf32> to tensor<?x?xbf16>
// CHECK: return %[[R]] : tensor<?x?xbf16>
fusion.fusion @layer_norm_affine(%x: tensor<?x?xbf16>, %w: tensor<?xbf16>, %b: tensor<?xbf16>) -> tensor<?x?xbf16> {
  %0 = fusion.layer_norm %x weight(%w : tensor<?xbf16>) bias(%b : tensor<?xbf16>) axis = 1 eps = 1.0e-5 : tensor<?x?xbf16>
  fusion.return %0 : tensor<?x?xbf16>
}

// -----

// Without weight and bias the normalized value is the result; a static
// row length is a constant N.
// CHECK-LABEL: fusion.fusion @layer_norm_plain
// CHECK-SAME: (%[[X:[a-z0-9]+]]: tensor<?x16xf32>)
// CHECK: %[[EPS:.*]] = arith.constant 9.99999974E-6 : f32
// CHECK: %[[N:.*]] = arith.constant 16 : i64
// CHECK: %[[S:.*]] = sum %[[X]] [1] keepdim : tensor<?x16xf32> -> tensor<?x1xf32>
// CHECK: cast %[[N]] : i64 to f32
// CHECK: %[[MEAN:.*]] = div %[[S]]
// CHECK: %[[M0:.*]] = dim %[[X]], 0
// CHECK: %[[MEANB:.*]] = expand %[[MEAN]](%[[M0]]) : tensor<?x1xf32> -> tensor<?x16xf32>
// CHECK: %[[CENTERED:.*]] = sub %[[X]], %[[MEANB]]
// CHECK: %[[SQ:.*]] = mul %[[CENTERED]], %[[CENTERED]]
// CHECK: %[[SS:.*]] = sum %[[SQ]] [1] keepdim
// CHECK: %[[VAR:.*]] = div %[[SS]]
// CHECK: %[[EPSB:.*]] = broadcast_in_dim %[[EPS]]
// CHECK: %[[VAREPS:.*]] = add %[[VAR]], %[[EPSB]]
// CHECK: %[[RSTD:.*]] = rsqrt %[[VAREPS]]
// CHECK: %[[RSTDB:.*]] = expand %[[RSTD]]
// CHECK: %[[Y:.*]] = mul %[[CENTERED]], %[[RSTDB]] : tensor<?x16xf32>
// CHECK-NOT: broadcast_in_dim
// CHECK-NOT: cast
// CHECK: return %[[Y]] : tensor<?x16xf32>
fusion.fusion @layer_norm_plain(%x: tensor<?x16xf32>) -> tensor<?x16xf32> {
  %0 = fusion.layer_norm %x axis = 1 eps = 1.0e-5 : tensor<?x16xf32>
  fusion.return %0 : tensor<?x16xf32>
}

// -----

// Normalizing the two trailing dims of an f16 input, with a weight only:
// N = dim 1 * 8, the mean as sums over dim 2 then dim 1 (Note [Reductions
// over any dims]), the variance from the squared deviations.
// CHECK-LABEL: fusion.fusion @layer_norm_trailing_dims
// CHECK-SAME: (%[[X:[a-z0-9]+]]: tensor<2x?x8xf16>, %[[W:[a-z0-9]+]]: tensor<?x8xf16>)
// CHECK: %[[XF:.*]] = cast %[[X]] : tensor<2x?x8xf16> to tensor<2x?x8xf32>
// CHECK: %[[D1:.*]] = dim %[[XF]], 1
// CHECK: %[[N:.*]] = arith.muli %[[D1]], %c8 : index
// CHECK: %[[N64:.*]] = arith.index_cast %[[N]] : index to i64
// CHECK: %[[S1:.*]] = sum %[[XF]] [2] keepdim
// CHECK: %[[P1:.*]] = permute %[[S1]] [1, 0, 2]
// CHECK: sum %[[P1]] [0]
// CHECK: %[[NF:.*]] = cast %[[N64]] : i64 to f32
// CHECK: %[[MEAN:.*]] = div
// CHECK: %[[ME:.*]] = expand %[[MEAN]]
// CHECK: %[[DEV:.*]] = sub %[[XF]], %[[ME]]
// CHECK: %[[SQ:.*]] = mul %[[DEV]], %[[DEV]]
// CHECK: sum %[[SQ]] [2] keepdim
// CHECK: rsqrt
// CHECK: %[[NORM:.*]] = mul %{{.*}}, %{{.*}} : tensor<2x?x8xf32>
// CHECK: %[[WF:.*]] = cast %[[W]] : tensor<?x8xf16> to tensor<?x8xf32>
// CHECK: %[[N1:.*]] = dim %[[XF]], 1
// CHECK: %[[WB:.*]] = broadcast_in_dim %[[WF]] [1, 2](%[[N1]]) : tensor<?x8xf32> -> tensor<2x?x8xf32>
// CHECK: %[[Y:.*]] = mul %[[NORM]], %[[WB]] : tensor<2x?x8xf32>
// CHECK-NOT: add
// CHECK: %[[R:.*]] = cast %[[Y]] : tensor<2x?x8xf32> to tensor<2x?x8xf16>
// CHECK: return %[[R]]
fusion.fusion @layer_norm_trailing_dims(%x: tensor<2x?x8xf16>, %w: tensor<?x8xf16>) -> tensor<2x?x8xf16> {
  %0 = fusion.layer_norm %x weight(%w : tensor<?x8xf16>) axis = 1 eps = 0.0 : tensor<2x?x8xf16>
  fusion.return %0 : tensor<2x?x8xf16>
}

// -----

// A bias without a weight is added to the normalized value directly.
// CHECK-LABEL: fusion.fusion @layer_norm_bias_only
// CHECK-SAME: (%[[X:[a-z0-9]+]]: tensor<4x8xf32>, %[[B:[a-z0-9]+]]: tensor<8xf32>)
// CHECK: %[[RSTD:.*]] = rsqrt
// CHECK: %[[RSTDB:.*]] = expand %[[RSTD]] : tensor<4x1xf32> -> tensor<4x8xf32>
// CHECK: %[[NORM:.*]] = mul %{{.*}}, %[[RSTDB]] : tensor<4x8xf32>
// CHECK-NOT: mul
// CHECK: %[[BB:.*]] = broadcast_in_dim %[[B]] [1] : tensor<8xf32> -> tensor<4x8xf32>
// CHECK: %[[Y:.*]] = add %[[NORM]], %[[BB]] : tensor<4x8xf32>
// CHECK: return %[[Y]]
fusion.fusion @layer_norm_bias_only(%x: tensor<4x8xf32>, %b: tensor<8xf32>) -> tensor<4x8xf32> {
  %0 = fusion.layer_norm %x bias(%b : tensor<8xf32>) axis = 1 eps = 1.0e-5 : tensor<4x8xf32>
  fusion.return %0 : tensor<4x8xf32>
}

// -----

// rms_norm: x * rsqrt(mean(x^2) + eps) * weight; no centering. The mean of
// squares is a sum divided by the row length (no Welford state).
// CHECK-LABEL: fusion.fusion @rms_norm_weight
// CHECK-SAME: (%[[X:[a-z0-9]+]]: tensor<?x?xbf16>, %[[W:[a-z0-9]+]]: tensor<?xbf16>)
// CHECK: %[[EPS:.*]] = arith.constant 9.99999997E-7 : f32
// CHECK: %[[XF:.*]] = cast %[[X]] : tensor<?x?xbf16> to tensor<?x?xf32>
// CHECK: %[[K:.*]] = dim %[[XF]], 1
// CHECK: %[[K64:.*]] = arith.index_cast %[[K]] : index to i64
// CHECK: %[[SQ:.*]] = mul %[[XF]], %[[XF]] : tensor<?x?xf32>
// CHECK: %[[SS:.*]] = sum %[[SQ]] [1] keepdim : tensor<?x?xf32> -> tensor<?x1xf32>
// CHECK: %[[KF:.*]] = cast %[[K64]] : i64 to f32
// CHECK: %[[KB:.*]] = broadcast_in_dim %[[KF]]
// CHECK: %[[MS:.*]] = div %[[SS]], %[[KB]] : tensor<?x1xf32>
// CHECK-NOT: var_mean
// CHECK: %[[EPSB:.*]] = broadcast_in_dim %[[EPS]]
// CHECK: %[[MSEPS:.*]] = add %[[MS]], %[[EPSB]] : tensor<?x1xf32>
// CHECK: %[[RRMS:.*]] = rsqrt %[[MSEPS]] : tensor<?x1xf32>
// CHECK-NOT: sub
// CHECK: %[[RRMSB:.*]] = expand %[[RRMS]]({{.*}}) : tensor<?x1xf32> -> tensor<?x?xf32>
// CHECK: %[[NORM:.*]] = mul %[[XF]], %[[RRMSB]] : tensor<?x?xf32>
// CHECK: %[[WF:.*]] = cast %[[W]] : tensor<?xbf16> to tensor<?xf32>
// CHECK: %[[WB:.*]] = broadcast_in_dim %[[WF]] [1]({{.*}}) : tensor<?xf32> -> tensor<?x?xf32>
// CHECK: %[[Y:.*]] = mul %[[NORM]], %[[WB]] : tensor<?x?xf32>
// CHECK: %[[R:.*]] = cast %[[Y]] : tensor<?x?xf32> to tensor<?x?xbf16>
// CHECK: return %[[R]] : tensor<?x?xbf16>
fusion.fusion @rms_norm_weight(%x: tensor<?x?xbf16>, %w: tensor<?xbf16>) -> tensor<?x?xbf16> {
  %0 = fusion.rms_norm %x weight(%w : tensor<?xbf16>) axis = 1 eps = 1.0e-6 : tensor<?x?xbf16>
  fusion.return %0 : tensor<?x?xbf16>
}

// -----

// f64 computes in f64; without a weight the normalized value is the result.
// CHECK-LABEL: fusion.fusion @rms_norm_f64
// CHECK-SAME: (%[[X:[a-z0-9]+]]: tensor<4x?xf64>)
// CHECK: %[[EPS:.*]] = arith.constant 9.9999999999999995E-7 : f64
// CHECK-NOT: cast %[[X]]
// CHECK: %[[SQ:.*]] = mul %[[X]], %[[X]] : tensor<4x?xf64>
// CHECK: %[[SS:.*]] = sum %[[SQ]] [1] keepdim : tensor<4x?xf64> -> tensor<4x1xf64>
// CHECK: %[[MS:.*]] = div %[[SS]], %{{.*}} : tensor<4x1xf64>
// CHECK: %[[EPSB:.*]] = broadcast_in_dim %[[EPS]] [] : f64 -> tensor<4x1xf64>
// CHECK: %[[MSEPS:.*]] = add %[[MS]], %[[EPSB]] : tensor<4x1xf64>
// CHECK: %[[RRMS:.*]] = rsqrt %[[MSEPS]]
// CHECK: %[[N1:.*]] = dim %[[X]], 1
// CHECK: %[[RRMSB:.*]] = expand %[[RRMS]](%[[N1]]) : tensor<4x1xf64> -> tensor<4x?xf64>
// CHECK: %[[Y:.*]] = mul %[[X]], %[[RRMSB]] : tensor<4x?xf64>
// CHECK-NEXT: return %[[Y]] : tensor<4x?xf64>
fusion.fusion @rms_norm_f64(%x: tensor<4x?xf64>) -> tensor<4x?xf64> {
  %0 = fusion.rms_norm %x axis = 1 eps = 1.0e-6 : tensor<4x?xf64>
  fusion.return %0 : tensor<4x?xf64>
}

// -----

// Exact gelu: x * 0.5 * (1 + erf(x / sqrt(2))), in f32 for f16.
// CHECK-LABEL: fusion.fusion @gelu_exact
// CHECK-SAME: (%[[X:[a-z0-9]+]]: tensor<?xf16>)
// CHECK-DAG: %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK-DAG: %[[RSQRT2:.*]] = arith.constant 0.707106769 : f32
// CHECK-DAG: %[[HALF:.*]] = arith.constant 5.000000e-01 : f32
// CHECK: %[[XF:.*]] = cast %[[X]] : tensor<?xf16> to tensor<?xf32>
// CHECK: %[[HALFB:.*]] = broadcast_in_dim %[[HALF]] [](%{{.*}}) : f32 -> tensor<?xf32>
// CHECK: %[[HALFX:.*]] = mul %[[XF]], %[[HALFB]] : tensor<?xf32>
// CHECK: %[[RSQRT2B:.*]] = broadcast_in_dim %[[RSQRT2]]
// CHECK: %[[SCALED:.*]] = mul %[[XF]], %[[RSQRT2B]] : tensor<?xf32>
// CHECK: %[[ERF:.*]] = erf %[[SCALED]] : tensor<?xf32>
// CHECK: %[[ONEB:.*]] = broadcast_in_dim %[[ONE]]
// CHECK: %[[SUM:.*]] = add %[[ERF]], %[[ONEB]] : tensor<?xf32>
// CHECK: %[[Y:.*]] = mul %[[HALFX]], %[[SUM]] : tensor<?xf32>
// CHECK: %[[R:.*]] = cast %[[Y]] : tensor<?xf32> to tensor<?xf16>
// CHECK: return %[[R]] : tensor<?xf16>
fusion.fusion @gelu_exact(%x: tensor<?xf16>) -> tensor<?xf16> {
  %0 = fusion.gelu %x : tensor<?xf16>
  fusion.return %0 : tensor<?xf16>
}

// -----

// tanh gelu: 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))).
// CHECK-LABEL: fusion.fusion @gelu_tanh
// CHECK-SAME: (%[[X:[a-z0-9]+]]: tensor<8xf32>)
// CHECK-DAG: %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK-DAG: %[[SQRT2PI:.*]] = arith.constant 0.797884583 : f32
// CHECK-DAG: %[[K:.*]] = arith.constant 4.471500e-02 : f32
// CHECK-DAG: %[[HALF:.*]] = arith.constant 5.000000e-01 : f32
// CHECK-NOT: cast
// CHECK: %[[HALFB:.*]] = broadcast_in_dim %[[HALF]] [] : f32 -> tensor<8xf32>
// CHECK: %[[HALFX:.*]] = mul %[[X]], %[[HALFB]] : tensor<8xf32>
// CHECK: %[[SQ:.*]] = mul %[[X]], %[[X]] : tensor<8xf32>
// CHECK: %[[CUBE:.*]] = mul %[[SQ]], %[[X]] : tensor<8xf32>
// CHECK: %[[KB:.*]] = broadcast_in_dim %[[K]] [] : f32 -> tensor<8xf32>
// CHECK: %[[KCUBE:.*]] = mul %[[CUBE]], %[[KB]] : tensor<8xf32>
// CHECK: %[[POLY:.*]] = add %[[X]], %[[KCUBE]] : tensor<8xf32>
// CHECK: %[[SQRT2PIB:.*]] = broadcast_in_dim %[[SQRT2PI]] [] : f32 -> tensor<8xf32>
// CHECK: %[[INNER:.*]] = mul %[[POLY]], %[[SQRT2PIB]] : tensor<8xf32>
// CHECK: %[[TANH:.*]] = tanh %[[INNER]] : tensor<8xf32>
// CHECK: %[[ONEB:.*]] = broadcast_in_dim %[[ONE]] [] : f32 -> tensor<8xf32>
// CHECK: %[[SUM:.*]] = add %[[TANH]], %[[ONEB]] : tensor<8xf32>
// CHECK: %[[Y:.*]] = mul %[[HALFX]], %[[SUM]] : tensor<8xf32>
// CHECK-NEXT: return %[[Y]] : tensor<8xf32>
fusion.fusion @gelu_tanh(%x: tensor<8xf32>) -> tensor<8xf32> {
  %0 = fusion.gelu %x tanh : tensor<8xf32>
  fusion.return %0 : tensor<8xf32>
}

// -----

// silu: x * sigmoid(x), in f32 for bf16.
// CHECK-LABEL: fusion.fusion @silu_bf16
// CHECK-SAME: (%[[X:[a-z0-9]+]]: tensor<?x4xbf16>)
// CHECK-NEXT: %[[XF:.*]] = cast %[[X]] : tensor<?x4xbf16> to tensor<?x4xf32>
// CHECK-NEXT: %[[SIG:.*]] = sigmoid %[[XF]] : tensor<?x4xf32>
// CHECK-NEXT: %[[Y:.*]] = mul %[[XF]], %[[SIG]] : tensor<?x4xf32>
// CHECK-NEXT: %[[R:.*]] = cast %[[Y]] : tensor<?x4xf32> to tensor<?x4xbf16>
// CHECK-NEXT: return %[[R]] : tensor<?x4xbf16>
fusion.fusion @silu_bf16(%x: tensor<?x4xbf16>) -> tensor<?x4xbf16> {
  %0 = fusion.silu %x : tensor<?x4xbf16>
  fusion.return %0 : tensor<?x4xbf16>
}

// -----

// Primitives are left alone, and scalar gelu and silu are not decomposed
// (Decompose.cpp: they have no tensor to broadcast constants to).
// CHECK-LABEL: fusion.fusion @untouched
// CHECK-SAME: (%[[X:[a-z0-9]+]]: tensor<?xf32>, %[[S:[a-z0-9]+]]: f32)
// CHECK-NEXT: %[[E:.*]] = exp %[[X]] : tensor<?xf32>
// CHECK-NEXT: %[[SILU:.*]] = silu %[[S]] : f32
// CHECK-NEXT: %[[GELU:.*]] = gelu %[[S]] tanh : f32
// CHECK-NEXT: return %[[E]], %[[SILU]], %[[GELU]]
fusion.fusion @untouched(%x: tensor<?xf32>, %s: f32) -> (tensor<?xf32>, f32, f32) {
  %0 = fusion.exp %x : tensor<?xf32>
  %1 = fusion.silu %s : f32
  %2 = fusion.gelu %s tanh : f32
  fusion.return %0, %1, %2 : tensor<?xf32>, f32, f32
}

// -----

// After decomposition no composite op is left in a fusion of tensors, even
// when composites feed each other.
// CHECK-LABEL: fusion.fusion @all_composites
// CHECK-NOT: {{softmax|layer_norm|rms_norm|gelu|silu|var_mean}}
// CHECK: sum
// CHECK-NOT: {{softmax|layer_norm|rms_norm|gelu|silu|var_mean}}
// CHECK: return
fusion.fusion @all_composites(%x: tensor<?x?xbf16>, %w: tensor<?xbf16>, %b: tensor<?xbf16>) -> tensor<?x?xbf16> {
  %0 = fusion.layer_norm %x weight(%w : tensor<?xbf16>) bias(%b : tensor<?xbf16>) axis = 1 eps = 1.0e-5 : tensor<?x?xbf16>
  %1 = fusion.gelu %0 tanh : tensor<?x?xbf16>
  %2 = fusion.gelu %1 : tensor<?x?xbf16>
  %3 = fusion.silu %2 : tensor<?x?xbf16>
  %4 = fusion.rms_norm %3 weight(%w : tensor<?xbf16>) axis = 1 eps = 1.0e-6 : tensor<?x?xbf16>
  %5 = fusion.softmax %4 dim = 1 : tensor<?x?xbf16>
  %6 = fusion.log_softmax %5 dim = 0 : tensor<?x?xbf16>
  fusion.return %6 : tensor<?x?xbf16>
}

// -----

// Note [Reductions over any dims]: the innermost dim with others reduces
// the innermost first, then the rest.
// CHECK-LABEL: fusion.fusion @full_sum
// CHECK: %[[R:.*]] = sum %arg0 [1] : tensor<?x?xf32> -> tensor<?xf32>
// CHECK: %[[S:.*]] = sum %[[R]] [0] : tensor<?xf32> -> tensor<f32>
// CHECK: return %[[S]]
fusion.fusion @full_sum(%x: tensor<?x?xf32>) -> tensor<f32> {
  %0 = fusion.sum %x [0, 1] : tensor<?x?xf32> -> tensor<f32>
  fusion.return %0 : tensor<f32>
}

// -----

// Keepdim: both steps keep their dims; the second reduces the leading dim
// and keeps the innermost (now of size 1).
// CHECK-LABEL: fusion.fusion @max_02_keepdim
// CHECK: %[[R:.*]] = max %arg0 [2] keepdim : tensor<?x?x?xbf16> -> tensor<?x?x1xbf16>
// CHECK: %[[M:.*]] = max %[[R]] [0] keepdim : tensor<?x?x1xbf16> -> tensor<1x?x1xbf16>
// CHECK: return %[[M]]
fusion.fusion @max_02_keepdim(%x: tensor<?x?x?xbf16>) -> tensor<1x?x1xbf16> {
  %0 = fusion.max %x [0, 2] keepdim : tensor<?x?x?xbf16> -> tensor<1x?x1xbf16>
  fusion.return %0 : tensor<1x?x1xbf16>
}

// -----

// Dims 1 and 3 of a rank-4 tensor: the innermost first, then dim 1 of the
// rank-3 result as a leading-dim reduction of a permuted view.
// CHECK-LABEL: fusion.fusion @min_13
// CHECK: %[[R:.*]] = min %arg0 [3] : tensor<?x?x?x?xf64> -> tensor<?x?x?xf64>
// CHECK: %[[P:.*]] = permute %[[R]] [1, 0, 2] : tensor<?x?x?xf64> -> tensor<?x?x?xf64>
// CHECK: %[[M:.*]] = min %[[P]] [0] : tensor<?x?x?xf64> -> tensor<?x?xf64>
// CHECK: return %[[M]]
fusion.fusion @min_13(%x: tensor<?x?x?x?xf64>) -> tensor<?x?xf64> {
  %0 = fusion.min %x [1, 3] : tensor<?x?x?x?xf64> -> tensor<?x?xf64>
  fusion.return %0 : tensor<?x?xf64>
}

// -----

// A middle dim with keepdim: the permuted reduction, then the size-1 dim
// put back by a broadcast_in_dim. Leading dims and the innermost alone stay.
// CHECK-LABEL: fusion.fusion @middle_keepdim
// CHECK: %[[P:.*]] = permute %arg0 [1, 0, 2]
// CHECK: %[[S:.*]] = sum %[[P]] [0] : tensor<?x?x?xf32> -> tensor<?x?xf32>
// CHECK: %[[B:.*]] = broadcast_in_dim %[[S]] [0, 2]
// CHECK-SAME: tensor<?x?xf32> -> tensor<?x1x?xf32>
// CHECK: sum %arg0 [0, 1] : tensor<?x?x?xf32> -> tensor<?xf32>
// CHECK: sum %arg0 [2] : tensor<?x?x?xf32> -> tensor<?x?xf32>
// CHECK-NOT: permute
fusion.fusion @middle_keepdim(%x: tensor<?x?x?xf32>) -> (tensor<?x1x?xf32>, tensor<?xf32>, tensor<?x?xf32>) {
  %0 = fusion.sum %x [1] keepdim : tensor<?x?x?xf32> -> tensor<?x1x?xf32>
  %1 = fusion.sum %x [0, 1] : tensor<?x?x?xf32> -> tensor<?xf32>
  %2 = fusion.sum %x [2] : tensor<?x?x?xf32> -> tensor<?x?xf32>
  fusion.return %0, %1, %2 : tensor<?x1x?xf32>, tensor<?xf32>, tensor<?x?xf32>
}

// -----

// Note [Arg reductions]: argmin along a leading dim reads a permuted view
// with that dim last; with keepdim the size-1 dim is put back by a
// broadcast_in_dim (sizes from the input's dims).
// CHECK-LABEL: fusion.fusion @argmin_dim0
// CHECK: %[[P:.*]] = permute %arg0 [1, 0] : tensor<?x?xf32> -> tensor<?x?xf32>
// CHECK: %[[R:.*]] = argmin %[[P]] dim = 1 : tensor<?x?xf32> -> tensor<?xi64>
// CHECK: return %[[R]]
fusion.fusion @argmin_dim0(%x: tensor<?x?xf32>) -> tensor<?xi64> {
  %0 = fusion.argmin %x dim = 0 : tensor<?x?xf32> -> tensor<?xi64>
  fusion.return %0 : tensor<?xi64>
}
// CHECK-LABEL: fusion.fusion @argmax_middle_keep
// CHECK: %[[P:.*]] = permute %arg0 [0, 2, 1] : tensor<2x?x8xf32> -> tensor<2x8x?xf32>
// CHECK: %[[R:.*]] = argmax %[[P]] dim = 2 : tensor<2x8x?xf32> -> tensor<2x8xi64>
// CHECK: %[[B:.*]] = broadcast_in_dim %[[R]] [0, 2] : tensor<2x8xi64> -> tensor<2x1x8xi64>
// CHECK: return %[[B]]
fusion.fusion @argmax_middle_keep(%x: tensor<2x?x8xf32>) -> tensor<2x1x8xi64> {
  %0 = fusion.argmax %x dim = 1 keepdim : tensor<2x?x8xf32> -> tensor<2x1x8xi64>
  fusion.return %0 : tensor<2x1x8xi64>
}
// CHECK-LABEL: fusion.fusion @argmin_lead_keep
// CHECK: %[[P:.*]] = permute %arg0 [1, 0]
// CHECK: %[[R:.*]] = argmin %[[P]] dim = 1 : tensor<?x?xbf16> -> tensor<?xi64>
// CHECK: %[[N:.*]] = dim %arg0, 1
// CHECK: broadcast_in_dim %[[R]] [1](%[[N]]) : tensor<?xi64> -> tensor<1x?xi64>
fusion.fusion @argmin_lead_keep(%x: tensor<?x?xbf16>) -> tensor<1x?xi64> {
  %0 = fusion.argmin %x dim = 0 keepdim : tensor<?x?xbf16> -> tensor<1x?xi64>
  fusion.return %0 : tensor<1x?xi64>
}
