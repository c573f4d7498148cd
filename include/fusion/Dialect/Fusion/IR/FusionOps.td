//===- FusionOps.td - fusion dialect operations ------------*- tablegen -*-===//
// Definition-level ops (what a user writes) and kernel-level ops (what
// segmentation and lowering produce).
//===----------------------------------------------------------------------===//
#ifndef FUSION_OPS_TD
#define FUSION_OPS_TD

include "fusion/Dialect/Fusion/IR/FusionDialect.td"
include "fusion/Dialect/Fusion/IR/FusionAttrs.td"
include "mlir/IR/SymbolInterfaces.td"
include "mlir/IR/RegionKindInterface.td"
include "mlir/Interfaces/FunctionInterfaces.td"
include "mlir/Interfaces/CallInterfaces.td"
include "mlir/Interfaces/ControlFlowInterfaces.td"
include "mlir/Interfaces/InferTypeOpInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/IR/OpAsmInterface.td"

//===----------------------------------------------------------------------===//
// Types
//===----------------------------------------------------------------------===//

def Fusion_FloatElement : AnyTypeOf<[F64, F32, F16, BF16]>;
def Fusion_IntElement : AnyTypeOf<[I64, I32, I16, I8]>;
def Fusion_StorageElement : AnyTypeOf<[F8E4M3FN, F8E5M2]>;
def Fusion_Element : AnyTypeOf<[F64, F32, F16, BF16, I64, I32, I16, I8, I1,
                                F8E4M3FN, F8E5M2]>;

def Fusion_Tensor : RankedTensorOf<[Fusion_Element]>;
def Fusion_FloatTensor : RankedTensorOf<[Fusion_FloatElement]>;
def Fusion_IndexTensor : RankedTensorOf<[I64, I32]>;

// A tensor or a scalar of one of the supported element types.
def Fusion_Value : AnyTypeOf<[Fusion_Tensor, Fusion_Element]>;
def Fusion_Float : AnyTypeOf<[Fusion_FloatTensor, Fusion_FloatElement]>;
def Fusion_Numeric : AnyTypeOf<[RankedTensorOf<[Fusion_FloatElement,
                                                Fusion_IntElement]>,
                                Fusion_FloatElement, Fusion_IntElement]>;
def Fusion_Integer : AnyTypeOf<[RankedTensorOf<[Fusion_IntElement, I1]>,
                                Fusion_IntElement, I1]>;
def Fusion_Bool : AnyTypeOf<[RankedTensorOf<[I1]>, I1]>;
def Fusion_Scalar : AnyTypeOf<[Fusion_Element, Index]>;

// The verifier of all element-wise ops: operands and results are all tensors
// of one shape, or all scalars, with diagnostics naming the mismatching dims.
def Fusion_Elementwise : NativeOpTrait<"FusionElementwise"> {
  let cppNamespace = "::mlir::fusion";
}

//===----------------------------------------------------------------------===//
// The container
//===----------------------------------------------------------------------===//

def Fusion_FusionOp : Fusion_Op<"fusion", [
    IsolatedFromAbove, FunctionOpInterface, Symbol, OpAsmOpInterface,
    AutomaticAllocationScope]> {
  let summary = "A named fusion: inputs in, outputs out";
  let description = [{
    The unit of compilation. Its arguments are the fusion's inputs (tensors
    with static or dynamic sizes, and scalars); its `fusion.return` gives the
    outputs. An argument may carry a `fusion.name` string attribute used in
    runtime error messages.

    ```mlir
    fusion.fusion @add_relu(%a: tensor<?x?xf32>, %b: tensor<?x?xf32>)
        -> tensor<?x?xf32> {
      %0 = fusion.add %a, %b : tensor<?x?xf32>
      %1 = fusion.relu %0 : tensor<?x?xf32>
      fusion.return %1 : tensor<?x?xf32>
    }
    ```
  }];
  let arguments = (ins SymbolNameAttr:$sym_name,
                       TypeAttrOf<FunctionType>:$function_type,
                       OptionalAttr<DictArrayAttr>:$arg_attrs,
                       OptionalAttr<DictArrayAttr>:$res_attrs);
  let regions = (region SizedRegion<1>:$body);
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    ::llvm::ArrayRef<::mlir::Type> getArgumentTypes() {
      return getFunctionType().getInputs();
    }
    ::llvm::ArrayRef<::mlir::Type> getResultTypes() {
      return getFunctionType().getResults();
    }
    ::mlir::Region *getCallableRegion() { return &getBody(); }
    static ::llvm::StringRef getDefaultDialect() { return "fusion"; }
    /// The name of input `i` for diagnostics: its `fusion.name` or "arg<i>".
    std::string getInputName(unsigned i);
  }];
}

def Fusion_ReturnOp : Fusion_Op<"return", [Pure, Terminator,
    ParentOneOf<["FusionOp"]>, ReturnLike]> {
  let summary = "Returns the outputs of a fusion";
  let arguments = (ins Variadic<AnyType>:$operands);
  let assemblyFormat = "attr-dict ($operands^ `:` type($operands))?";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Size queries
//===----------------------------------------------------------------------===//

def Fusion_DimOp : Fusion_Op<"dim", [Pure]> {
  let summary = "The extent of one tensor dimension, as an index";
  let arguments = (ins Fusion_Tensor:$input, I64Attr:$dim);
  let results = (outs Index:$result);
  let assemblyFormat = "$input `,` $dim attr-dict `:` type($input)";
  let hasVerifier = 1;
  let hasFolder = 1;
  let hasCanonicalizeMethod = 1;
}

//===----------------------------------------------------------------------===//
// Element-wise ops
//===----------------------------------------------------------------------===//

class Fusion_UnaryOp<string mnemonic, TypeConstraint type, string doc,
                     list<Trait> traits = []>
    : Fusion_Op<mnemonic, [Pure, Fusion_Elementwise,
                           SameOperandsAndResultType] # traits> {
  let summary = "Element-wise " # mnemonic;
  let description = doc;
  let arguments = (ins type:$input);
  let results = (outs type:$result);
  let assemblyFormat = "$input attr-dict `:` type($result)";
}

def Fusion_NegOp : Fusion_UnaryOp<"neg", Fusion_Numeric, "`-x`.">;
def Fusion_SetOp : Fusion_UnaryOp<"set", Fusion_Tensor, [{
  A copy of `x` that is always written by a kernel, never a view (nvFuser's
  `set`): `fusion.set` of a `fusion.permute` of an input returns the
  transposed tensor in new contiguous memory, where the permute alone would
  return a view of the input.
}]>;
def Fusion_AbsOp : Fusion_UnaryOp<"abs", Fusion_Numeric, "`|x|`.">;
def Fusion_ExpOp : Fusion_UnaryOp<"exp", Fusion_Float, "`e^x`.">;
def Fusion_Exp2Op : Fusion_UnaryOp<"exp2", Fusion_Float, "`2^x`.">;
def Fusion_Expm1Op : Fusion_UnaryOp<"expm1", Fusion_Float, "`e^x - 1`.">;
def Fusion_LogOp : Fusion_UnaryOp<"log", Fusion_Float, "Natural log.">;
def Fusion_Log2Op : Fusion_UnaryOp<"log2", Fusion_Float, "Base-2 log.">;
def Fusion_Log1pOp : Fusion_UnaryOp<"log1p", Fusion_Float, "`log(1 + x)`.">;
def Fusion_SqrtOp : Fusion_UnaryOp<"sqrt", Fusion_Float, "Square root.">;
def Fusion_RsqrtOp : Fusion_UnaryOp<"rsqrt", Fusion_Float, "`1 / sqrt(x)`.">;
def Fusion_ReciprocalOp
    : Fusion_UnaryOp<"reciprocal", Fusion_Float, "`1 / x`.">;
def Fusion_SinOp : Fusion_UnaryOp<"sin", Fusion_Float, "Sine.">;
def Fusion_CosOp : Fusion_UnaryOp<"cos", Fusion_Float, "Cosine.">;
def Fusion_TanOp : Fusion_UnaryOp<"tan", Fusion_Float, "Tangent.">;
def Fusion_TanhOp : Fusion_UnaryOp<"tanh", Fusion_Float, "Hyperbolic tangent.">;
def Fusion_SigmoidOp
    : Fusion_UnaryOp<"sigmoid", Fusion_Float, "`1 / (1 + e^-x)`.">;
def Fusion_ErfOp : Fusion_UnaryOp<"erf", Fusion_Float, "The error function.">;
def Fusion_ErfcOp : Fusion_UnaryOp<"erfc", Fusion_Float, "`1 - erf(x)`.">;
def Fusion_ReluOp : Fusion_UnaryOp<"relu", Fusion_Numeric, "`max(x, 0)`; NaN stays NaN.">;
def Fusion_SiluOp : Fusion_UnaryOp<"silu", Fusion_Float, "`x * sigmoid(x)`.">;
def Fusion_FloorOp : Fusion_UnaryOp<"floor", Fusion_Float, "Round down.">;
def Fusion_CeilOp : Fusion_UnaryOp<"ceil", Fusion_Float, "Round up.">;
def Fusion_RoundOp : Fusion_UnaryOp<"round", Fusion_Float,
    "Round half to even (as `torch.round`).">;
def Fusion_TruncOp : Fusion_UnaryOp<"trunc", Fusion_Float, "Round toward zero.">;
def Fusion_SignOp : Fusion_UnaryOp<"sign", Fusion_Numeric,
    "-1, 0 or 1 (NaN stays NaN).">;
def Fusion_BitwiseNotOp : Fusion_UnaryOp<"bitwise_not", Fusion_Integer,
    "Bitwise complement (logical not on i1).">;
def Fusion_LogicalNotOp : Fusion_UnaryOp<"logical_not", Fusion_Bool,
    "Logical not of an i1 value.">;

def Fusion_GeluOp : Fusion_Op<"gelu", [Pure, Fusion_Elementwise,
                                       SameOperandsAndResultType]> {
  let summary = "Element-wise GELU, exact (erf) or with the tanh approximation";
  let description = [{
    `x * 0.5 * (1 + erf(x / sqrt(2)))`, or with `tanh`:
    `0.5 * x * (1 + tanh(sqrt(2 / pi) * (x + 0.044715 * x^3)))`.
  }];
  let arguments = (ins Fusion_Float:$input, UnitAttr:$tanh);
  let results = (outs Fusion_Float:$result);
  let assemblyFormat = "$input (`tanh` $tanh^)? attr-dict `:` type($result)";
}

// Unary predicates: the result has the operand's shape and element type i1.
class Fusion_PredicateOp<string mnemonic, string doc>
    : Fusion_Op<mnemonic, [Pure, Fusion_Elementwise,
        TypesMatchWith<"result is the operand's shape with i1 elements",
                       "input", "result", "getI1Like($_self)">]> {
  let summary = "Element-wise " # mnemonic;
  let description = doc;
  let arguments = (ins Fusion_Float:$input);
  let results = (outs Fusion_Bool:$result);
  let assemblyFormat = "$input attr-dict `:` type($input)";
}
def Fusion_IsNanOp : Fusion_PredicateOp<"isnan", "True where x is NaN.">;
def Fusion_IsInfOp : Fusion_PredicateOp<"isinf", "True where x is +-inf.">;

class Fusion_BinaryOp<string mnemonic, TypeConstraint type, string doc,
                      list<Trait> traits = []>
    : Fusion_Op<mnemonic, [Pure, Fusion_Elementwise,
                           SameOperandsAndResultType] # traits> {
  let summary = "Element-wise " # mnemonic;
  let description = doc;
  let arguments = (ins type:$lhs, type:$rhs);
  let results = (outs type:$result);
  let assemblyFormat = "$lhs `,` $rhs attr-dict `:` type($result)";
}

def Fusion_AddOp : Fusion_Op<"add", [Pure, Commutative, Fusion_Elementwise,
                                     SameOperandsAndResultType]> {
  let summary = "Element-wise add, optionally scaling the right operand";
  let description = [{
    `lhs + alpha * rhs` (as `torch.add(lhs, rhs, alpha=alpha)`); `alpha`
    defaults to 1. The product is computed in the element type.
  }];
  let arguments = (ins Fusion_Numeric:$lhs, Fusion_Numeric:$rhs,
                       OptionalAttr<F64Attr>:$alpha);
  let results = (outs Fusion_Numeric:$result);
  let assemblyFormat = [{
    $lhs `,` $rhs (`alpha` `=` $alpha^)? attr-dict `:` type($result)
  }];
  let hasCanonicalizer = 1;
}
def Fusion_SubOp : Fusion_BinaryOp<"sub", Fusion_Numeric, "`lhs - rhs`.">;
def Fusion_MulOp : Fusion_BinaryOp<"mul", Fusion_Numeric, "`lhs * rhs`.",
                                   [Commutative]>;
def Fusion_DivOp : Fusion_BinaryOp<"div", Fusion_Numeric,
    "`lhs / rhs`; integer division truncates toward zero.">;
def Fusion_FmodOp : Fusion_BinaryOp<"fmod", Fusion_Numeric,
    "Remainder with the sign of `lhs` (C `fmod`, `torch.fmod`).">;
def Fusion_RemainderOp : Fusion_BinaryOp<"remainder", Fusion_Numeric,
    "Remainder with the sign of `rhs` (Python `%`, `torch.remainder`).">;
def Fusion_PowOp : Fusion_BinaryOp<"pow", Fusion_Float, "`lhs ^ rhs`.">;
def Fusion_MaximumOp : Fusion_BinaryOp<"maximum", Fusion_Numeric,
    "Larger of the two; NaN if either is NaN.", [Commutative]>;
def Fusion_MinimumOp : Fusion_BinaryOp<"minimum", Fusion_Numeric,
    "Smaller of the two; NaN if either is NaN.", [Commutative]>;
def Fusion_Atan2Op : Fusion_BinaryOp<"atan2", Fusion_Float,
    "Angle of the point (rhs, lhs).">;
def Fusion_LogicalAndOp : Fusion_BinaryOp<"logical_and", Fusion_Bool, "And.",
                                          [Commutative]>;
def Fusion_LogicalOrOp : Fusion_BinaryOp<"logical_or", Fusion_Bool, "Or.",
                                         [Commutative]>;
def Fusion_LogicalXorOp : Fusion_BinaryOp<"logical_xor", Fusion_Bool, "Xor.",
                                          [Commutative]>;
def Fusion_BitwiseAndOp : Fusion_BinaryOp<"bitwise_and", Fusion_Integer,
    "Bitwise and.", [Commutative]>;
def Fusion_BitwiseOrOp : Fusion_BinaryOp<"bitwise_or", Fusion_Integer,
    "Bitwise or.", [Commutative]>;
def Fusion_BitwiseXorOp : Fusion_BinaryOp<"bitwise_xor", Fusion_Integer,
    "Bitwise xor.", [Commutative]>;
def Fusion_ShiftLeftOp : Fusion_BinaryOp<"shift_left", Fusion_Integer,
    "`lhs << rhs`; shifts of the bit width or more give 0.">;
def Fusion_ShiftRightOp : Fusion_BinaryOp<"shift_right", Fusion_Integer,
    "Arithmetic `lhs >> rhs`; shifts of the bit width or more give the sign.">;

// Comparisons: the result has the operands' shape and element type i1.
class Fusion_CompareOp<string mnemonic, string doc, list<Trait> traits = []>
    : Fusion_Op<mnemonic, [Pure, Fusion_Elementwise,
        AllTypesMatch<["lhs", "rhs"]>,
        TypesMatchWith<"result is the operands' shape with i1 elements",
                       "lhs", "result", "getI1Like($_self)">] # traits> {
  let summary = "Element-wise comparison " # mnemonic;
  let description = doc # " NaN compares unequal to everything.";
  let arguments = (ins Fusion_Value:$lhs, Fusion_Value:$rhs);
  let results = (outs Fusion_Bool:$result);
  let assemblyFormat = "$lhs `,` $rhs attr-dict `:` type($lhs)";
}
def Fusion_EqOp : Fusion_CompareOp<"eq", "`lhs == rhs`.", [Commutative]>;
def Fusion_NeOp : Fusion_CompareOp<"ne", "`lhs != rhs`.", [Commutative]>;
def Fusion_LtOp : Fusion_CompareOp<"lt", "`lhs < rhs`.">;
def Fusion_LeOp : Fusion_CompareOp<"le", "`lhs <= rhs`.">;
def Fusion_GtOp : Fusion_CompareOp<"gt", "`lhs > rhs`.">;
def Fusion_GeOp : Fusion_CompareOp<"ge", "`lhs >= rhs`.">;

def Fusion_WhereOp : Fusion_Op<"where", [Pure, Fusion_Elementwise,
    AllTypesMatch<["lhs", "rhs", "result"]>]> {
  let summary = "Element-wise select: `cond ? lhs : rhs`";
  let arguments = (ins Fusion_Bool:$cond, Fusion_Value:$lhs,
                       Fusion_Value:$rhs);
  let results = (outs Fusion_Value:$result);
  let assemblyFormat = [{
    $cond `,` $lhs `,` $rhs attr-dict `:` type($cond) `,` type($result)
  }];
  let hasFolder = 1;
}

class Fusion_TernaryOp<string mnemonic, TypeConstraint type, string doc,
                       list<string> names>
    : Fusion_Op<mnemonic, [Pure, Fusion_Elementwise,
                           SameOperandsAndResultType]> {
  let summary = "Element-wise " # mnemonic;
  let description = doc;
  let results = (outs type:$result);
}
def Fusion_ClampOp : Fusion_TernaryOp<"clamp", Fusion_Numeric,
    "`min(max(x, lo), hi)`; NaN in `x` stays NaN.", []> {
  let arguments = (ins Fusion_Numeric:$input, Fusion_Numeric:$lo,
                       Fusion_Numeric:$hi);
  let assemblyFormat = "$input `,` $lo `,` $hi attr-dict `:` type($result)";
}
def Fusion_LerpOp : Fusion_TernaryOp<"lerp", Fusion_Float,
    "`start + weight * (end - start)`.", []> {
  let arguments = (ins Fusion_Float:$start, Fusion_Float:$end,
                       Fusion_Float:$weight);
  let assemblyFormat = "$start `,` $end `,` $weight attr-dict `:` type($result)";
}
def Fusion_FmaOp : Fusion_TernaryOp<"fma", Fusion_Float,
    "`a * b + c` with one rounding.", []> {
  let arguments = (ins Fusion_Float:$a, Fusion_Float:$b, Fusion_Float:$c);
  let assemblyFormat = "$a `,` $b `,` $c attr-dict `:` type($result)";
}

def Fusion_CastOp : Fusion_Op<"cast", [Pure, Fusion_Elementwise]> {
  let summary = "Element-type conversion";
  let description = [{
    Converts every element to the result's element type, keeping the shape.
    Float to float rounds to nearest even; float to integer truncates toward
    zero (as PyTorch); integer or float to i1 tests for non-zero; i1 to a
    number gives 0 or 1.
  }];
  let arguments = (ins Fusion_Value:$input);
  let results = (outs Fusion_Value:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `to` type($result)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

//===----------------------------------------------------------------------===//
// Shape ops
//===----------------------------------------------------------------------===//

// Shape ops take one index operand per dynamic dim of their result.
class Fusion_ShapeOp<string mnemonic, list<Trait> traits = []>
    : Fusion_Op<mnemonic, [Pure] # traits> {
  let hasVerifier = 1;
}

def Fusion_BroadcastInDimOp : Fusion_ShapeOp<"broadcast_in_dim"> {
  let summary = "Broadcast to a larger shape, mapping operand dims explicitly";
  let description = [{
    Operand dim `i` becomes result dim `dims[i]` (`dims` strictly increasing);
    result dims not in `dims` are new. An operand dim of size 1 may broadcast
    to any size; any other operand dim must equal its result dim. A scalar
    operand (empty `dims`) fills the whole result.

    ```mlir
    %b = fusion.broadcast_in_dim %bias [1] (%m, %n)
        : tensor<?xbf16> -> tensor<?x?xbf16>
    ```
  }];
  let arguments = (ins Fusion_Value:$input, DenseI64ArrayAttr:$dims,
                       Variadic<Index>:$sizes);
  let results = (outs Fusion_Tensor:$result);
  let assemblyFormat = [{
    $input $dims (`(` $sizes^ `)`)? attr-dict `:` type($input) `->` type($result)
  }];
  let hasFolder = 1;
}

def Fusion_ExpandOp : Fusion_ShapeOp<"expand"> {
  let summary = "Broadcast size-1 dims to larger sizes (as `Tensor.expand`)";
  let arguments = (ins Fusion_Tensor:$input, Variadic<Index>:$sizes);
  let results = (outs Fusion_Tensor:$result);
  let assemblyFormat = [{
    $input (`(` $sizes^ `)`)? attr-dict `:` type($input) `->` type($result)
  }];
  let hasFolder = 1;
}

def Fusion_ReshapeOp : Fusion_ShapeOp<"reshape"> {
  let summary = "Same elements in row-major order, another shape";
  let arguments = (ins Fusion_Tensor:$input, Variadic<Index>:$sizes);
  let results = (outs Fusion_Tensor:$result);
  let assemblyFormat = [{
    $input (`(` $sizes^ `)`)? attr-dict `:` type($input) `->` type($result)
  }];
  let hasFolder = 1;
}

def Fusion_PermuteOp : Fusion_ShapeOp<"permute"> {
  let summary = "Reorder dims: result dim i is operand dim perm[i]";
  let arguments = (ins Fusion_Tensor:$input, DenseI64ArrayAttr:$perm);
  let results = (outs Fusion_Tensor:$result);
  let assemblyFormat = [{
    $input $perm attr-dict `:` type($input) `->` type($result)
  }];
  let hasFolder = 1;
}

def Fusion_SqueezeOp : Fusion_ShapeOp<"squeeze"> {
  let summary = "Remove size-1 dims";
  let arguments = (ins Fusion_Tensor:$input, DenseI64ArrayAttr:$dims);
  let results = (outs Fusion_Tensor:$result);
  let assemblyFormat = [{
    $input $dims attr-dict `:` type($input) `->` type($result)
  }];
}

def Fusion_SliceOp : Fusion_ShapeOp<"slice", [AttrSizedOperandSegments]> {
  let summary = "Strided slice, with index bounds per dim";
  let description = [{
    Along every dim `d`, takes elements `starts[d], starts[d] + steps[d], ...`
    below `stops[d]`. Bounds are clamped to `[0, size]` (negative bounds are
    not wrapped); steps must be positive. Bounds may be symbolic.
  }];
  let arguments = (ins Fusion_Tensor:$input, Variadic<Index>:$starts,
                       Variadic<Index>:$stops, Variadic<Index>:$steps);
  let results = (outs Fusion_Tensor:$result);
  let assemblyFormat = [{
    $input `[` $starts `]` `[` $stops `]` `[` $steps `]` attr-dict `:`
    type($input) `->` type($result)
  }];
}

def Fusion_PadOp : Fusion_ShapeOp<"pad"> {
  let summary = "Pad each dim with a scalar value";
  let arguments = (ins Fusion_Tensor:$input, Fusion_Element:$value,
                       DenseI64ArrayAttr:$low, DenseI64ArrayAttr:$high);
  let results = (outs Fusion_Tensor:$result);
  let assemblyFormat = [{
    $input `,` $value `low` $low `high` $high attr-dict `:` type($input) `,`
    type($value) `->` type($result)
  }];
}

def Fusion_CatOp : Fusion_ShapeOp<"cat"> {
  let summary = "Concatenate along one dim";
  let arguments = (ins Variadic<Fusion_Tensor>:$inputs, I64Attr:$dim);
  let results = (outs Fusion_Tensor:$result);
  let assemblyFormat = [{
    $inputs `dim` `=` $dim attr-dict `:` type($inputs) `->` type($result)
  }];
}

//===----------------------------------------------------------------------===//
// Tensor factories
//===----------------------------------------------------------------------===//

def Fusion_FullOp : Fusion_ShapeOp<"full"> {
  let summary = "A tensor filled with one scalar";
  let arguments = (ins Fusion_Element:$value, Variadic<Index>:$sizes);
  let results = (outs Fusion_Tensor:$result);
  let assemblyFormat = [{
    $value (`(` $sizes^ `)`)? attr-dict `:` type($value) `->` type($result)
  }];
}

def Fusion_IotaOp : Fusion_ShapeOp<"iota", [AllTypesMatch<["start", "step"]>]> {
  let summary = "`start + i * step` along a rank-1 tensor (as `torch.arange`)";
  let arguments = (ins Fusion_Element:$start, Fusion_Element:$step,
                       Variadic<Index>:$sizes);
  let results = (outs Fusion_Tensor:$result);
  let assemblyFormat = [{
    $start `,` $step (`(` $sizes^ `)`)? attr-dict `:` type($start) `->`
    type($result)
  }];
}

class Fusion_RandomOp<string mnemonic, string doc>
    : Fusion_ShapeOp<mnemonic> {
  let summary = doc;
  let description = [{
    Counter-based random numbers (Philox-4x32-10): element `i` (row-major) of
    the result depends only on `seed`, `offset` and `i`, so every kernel and
    the reference interpreter produce the same tensor. See
    docs/random.md for the exact bit recipe.
  }];
  let arguments = (ins I64:$seed, I64:$offset, Variadic<Index>:$sizes);
  let results = (outs Fusion_FloatTensor:$result);
  let assemblyFormat = [{
    $seed `,` $offset (`(` $sizes^ `)`)? attr-dict `:` type($result)
  }];
}
def Fusion_RandOp : Fusion_RandomOp<"rand", "Uniform random numbers in [0, 1)">;
def Fusion_RandnOp : Fusion_RandomOp<"randn", "Standard normal random numbers">;

//===----------------------------------------------------------------------===//
// Indexing
//===----------------------------------------------------------------------===//

def Fusion_IndexSelectOp : Fusion_Op<"index_select", [Pure]> {
  let summary = "Select slices along `dim` by a rank-1 index tensor";
  let description = [{
    `result[..., i, ...] = input[..., index[i], ...]` along `dim`. An index out
    of `[0, size)` is an error at run time (the interpreter reports it).
  }];
  let arguments = (ins Fusion_Tensor:$input, Fusion_IndexTensor:$index,
                       I64Attr:$dim);
  let results = (outs Fusion_Tensor:$result);
  let assemblyFormat = [{
    $input `,` $index `dim` `=` $dim attr-dict `:` type($input) `,`
    type($index) `->` type($result)
  }];
  let hasVerifier = 1;
}

def Fusion_GatherOp : Fusion_Op<"gather", [Pure]> {
  let summary = "Gather along `dim` (as `torch.take_along_dim`)";
  let description = [{
    `result[i0, .., id, .., in] = input[i0, .., index[i0, .., in], .., in]`;
    `index` has the input's rank and the result's shape.
  }];
  let arguments = (ins Fusion_Tensor:$input, Fusion_IndexTensor:$index,
                       I64Attr:$dim);
  let results = (outs Fusion_Tensor:$result);
  let assemblyFormat = [{
    $input `,` $index `dim` `=` $dim attr-dict `:` type($input) `,`
    type($index) `->` type($result)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

class Fusion_ReductionOp<string mnemonic, string doc>
    : Fusion_Op<mnemonic, [Pure]> {
  let summary = "Reduction: " # mnemonic;
  let description = doc # [{

    Reduces over `dims` (unique, in range, any order); with `keepdim` the
    reduced dims stay with size 1. Floating-point inputs of 16 bits or fewer
    accumulate in f32; the result has the input's element type.
  }];
  let arguments = (ins Fusion_Tensor:$input, DenseI64ArrayAttr:$dims,
                       UnitAttr:$keepdim);
  let results = (outs Fusion_Tensor:$result);
  let assemblyFormat = [{
    $input $dims (`keepdim` $keepdim^)? attr-dict `:` type($input) `->`
    type($result)
  }];
  let hasVerifier = 1;
}
def Fusion_SumOp : Fusion_ReductionOp<"sum", "Sum; 0 over empty dims.">;
def Fusion_ProdOp : Fusion_ReductionOp<"prod", "Product; 1 over empty dims.">;
def Fusion_MaxOp : Fusion_ReductionOp<"max",
    "Maximum; NaN propagates; -inf (or the type's minimum) over empty dims "
    "(PyTorch raises there).">;
def Fusion_MinOp : Fusion_ReductionOp<"min",
    "Minimum; NaN propagates; +inf (or the type's maximum) over empty dims "
    "(PyTorch raises there).">;

def Fusion_VarMeanOp : Fusion_Op<"var_mean", [Pure,
    AllTypesMatch<["variance", "mean"]>]> {
  let summary = "Variance and mean over dims (Welford), with correction";
  let description = [{
    `variance = sum((x - mean)^2) / (N - correction)`, computed with Welford's
    algorithm in f32 (f64 for f64 inputs). `correction = 1` is Bessel's.
  }];
  let arguments = (ins Fusion_FloatTensor:$input, DenseI64ArrayAttr:$dims,
                       DefaultValuedAttr<I64Attr, "1">:$correction,
                       UnitAttr:$keepdim);
  let results = (outs Fusion_FloatTensor:$variance,
                      Fusion_FloatTensor:$mean);
  let assemblyFormat = [{
    $input $dims `correction` `=` $correction (`keepdim` $keepdim^)? attr-dict
    `:` type($input) `->` type($variance)
  }];
  let hasVerifier = 1;
}

class Fusion_ArgReductionOp<string mnemonic, string doc>
    : Fusion_Op<mnemonic, [Pure]> {
  let summary = doc;
  let description = [{
    The index (i64) of the first extreme element along `dim`; NaN counts as
    the extreme (as PyTorch).
  }];
  let arguments = (ins Fusion_Tensor:$input, I64Attr:$dim, UnitAttr:$keepdim);
  let results = (outs RankedTensorOf<[I64]>:$result);
  let assemblyFormat = [{
    $input `dim` `=` $dim (`keepdim` $keepdim^)? attr-dict `:` type($input)
    `->` type($result)
  }];
  let hasVerifier = 1;
}
def Fusion_ArgmaxOp : Fusion_ArgReductionOp<"argmax", "Index of the maximum">;
def Fusion_ArgminOp : Fusion_ArgReductionOp<"argmin", "Index of the minimum">;

//===----------------------------------------------------------------------===//
// Composites (decomposed by --fusion-decompose)
//===----------------------------------------------------------------------===//

class Fusion_SoftmaxLikeOp<string mnemonic, string doc>
    : Fusion_Op<mnemonic, [Pure, SameOperandsAndResultType]> {
  let summary = doc;
  let description = [{
    Along `dim`; computed in f32 for 16-bit inputs, max-subtracted for range.
    Decomposed into primitives by `--fusion-decompose`.
  }];
  let arguments = (ins Fusion_FloatTensor:$input, I64Attr:$dim);
  let results = (outs Fusion_FloatTensor:$result);
  let assemblyFormat = "$input `dim` `=` $dim attr-dict `:` type($result)";
  let hasVerifier = 1;
}
def Fusion_SoftmaxOp : Fusion_SoftmaxLikeOp<"softmax", "Softmax along a dim">;
def Fusion_LogSoftmaxOp
    : Fusion_SoftmaxLikeOp<"log_softmax", "Log-softmax along a dim">;

def Fusion_LayerNormOp : Fusion_Op<"layer_norm", [Pure,
    AttrSizedOperandSegments, AllTypesMatch<["input", "result"]>]> {
  let summary = "Layer normalization over the trailing dims from `axis`";
  let description = [{
    `(x - mean) / sqrt(var + eps) * weight + bias`, with the biased variance
    over dims `[axis, rank)`; `weight` and `bias` (optional) have the shape of
    those dims. Decomposed into primitives by `--fusion-decompose`.
  }];
  let arguments = (ins Fusion_FloatTensor:$input,
                       Optional<Fusion_FloatTensor>:$weight,
                       Optional<Fusion_FloatTensor>:$bias,
                       I64Attr:$axis, F64Attr:$eps);
  let results = (outs Fusion_FloatTensor:$result);
  let assemblyFormat = [{
    $input (`weight` `(` $weight^ `:` type($weight) `)`)?
    (`bias` `(` $bias^ `:` type($bias) `)`)? `axis` `=` $axis `eps` `=` $eps
    attr-dict `:` type($result)
  }];
  let hasVerifier = 1;
}

def Fusion_RmsNormOp : Fusion_Op<"rms_norm", [Pure,
    AllTypesMatch<["input", "result"]>]> {
  let summary = "RMS normalization over the trailing dims from `axis`";
  let description = [{
    `x * rsqrt(mean(x^2) + eps) * weight` over dims `[axis, rank)`; `weight`
    (optional) has the shape of those dims.
  }];
  let arguments = (ins Fusion_FloatTensor:$input,
                       Optional<Fusion_FloatTensor>:$weight,
                       I64Attr:$axis, F64Attr:$eps);
  let results = (outs Fusion_FloatTensor:$result);
  let assemblyFormat = [{
    $input (`weight` `(` $weight^ `:` type($weight) `)`)? `axis` `=` $axis
    `eps` `=` $eps attr-dict `:` type($result)
  }];
  let hasVerifier = 1;
}

include "fusion/Dialect/Fusion/IR/FusionKernelOps.td"
include "fusion/Dialect/Fusion/IR/FusionDeviceOps.td"

#endif // FUSION_OPS_TD
