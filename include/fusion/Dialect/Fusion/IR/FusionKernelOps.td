//===- FusionKernelOps.td - kernel-level ops ---------------*- tablegen -*-===//
// Ops that segmentation and lowering produce: kernel regions, and the host
// program (buffers, size queries, launches) that becomes a launch plan.
//===----------------------------------------------------------------------===//
#ifndef FUSION_KERNEL_OPS_TD
#define FUSION_KERNEL_OPS_TD

def Fusion_KernelOp : Fusion_Op<"kernel", [IsolatedFromAbove,
    SingleBlockImplicitTerminator<"YieldOp">,
    DeclareOpInterfaceMethods<OpAsmOpInterface, ["getDefaultDialect"]>]> {
  let summary = "One GPU kernel's worth of a fusion";
  let description = [{
    Produced by `--fusion-segment`. The region computes the kernel's results
    from its operands (tensors and scalars captured from the fusion); it is
    isolated from above so it can be scheduled and lowered on its own. The
    optional `schedule` is the scheduler's decision (for example
    `#fusion.pointwise<...>`); a schedule written by hand is kept by
    `--fusion-schedule`.

    ```mlir
    %r = fusion.kernel @add_relu_k0 (%a, %b) : (tensor<?xf32>, tensor<?xf32>)
        -> tensor<?xf32> {
    ^bb0(%x: tensor<?xf32>, %y: tensor<?xf32>):
      %0 = add %x, %y : tensor<?xf32>
      yield %0 : tensor<?xf32>
    }
    ```
  }];
  let arguments = (ins SymbolNameAttr:$sym_name, Variadic<AnyType>:$inputs,
                       OptionalAttr<AnyAttr>:$schedule);
  let results = (outs Variadic<AnyType>:$results);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = [{
    $sym_name (`schedule` `=` $schedule^)? ` ` `(` $inputs `)` attr-dict `:`
    functional-type($inputs, $results) $body
  }];
  let hasVerifier = 1;
  let skipDefaultBuilders = 1;
  let builders = [OpBuilder<(ins "StringRef":$name, "ValueRange":$inputs,
                                 "TypeRange":$resultTypes)>];
}

def Fusion_YieldOp : Fusion_Op<"yield", [Pure, Terminator, ReturnLike,
    HasParent<"KernelOp">]> {
  let summary = "Returns the results of a kernel region";
  let arguments = (ins Variadic<AnyType>:$operands);
  let builders = [OpBuilder<(ins), [{ /* nothing */ }]>];
  let assemblyFormat = "attr-dict ($operands^ `:` type($operands))?";
}

def Fusion_EmptyOp : Fusion_Op<"empty", [
    MemoryEffects<[MemAlloc<DefaultResource>]>]> {
  let summary = "A device buffer the runtime allocates (host program)";
  let description = [{
    An output or intermediate buffer with one index operand per dynamic dim.
    It is contiguous (row-major). `zero_init` asks the runtime to zero it
    before the kernels run. `kept_zero` (with `zero_init`, intermediates
    only) says the kernels leave it zeroed again, as grid-reduction counters
    are: the runtime keeps such a buffer between calls and zeroes it only
    when it is new or another launch plan used the memory in between.
  }];
  let arguments = (ins Variadic<Index>:$sizes, UnitAttr:$zero_init,
                       UnitAttr:$kept_zero);
  let results = (outs Fusion_Tensor:$result);
  let assemblyFormat = [{
    (`(` $sizes^ `)`)? (`zero_init` $zero_init^)? (`kept_zero` $kept_zero^)?
    attr-dict `:` type($result)
  }];
  let hasVerifier = 1;
}

def Fusion_StrideOp : Fusion_Op<"stride", [Pure]> {
  let summary = "The stride, in elements, of a dim of a fusion input";
  let description = [{
    Host program only: evaluated by the runtime from the bound input.
  }];
  let arguments = (ins Fusion_Tensor:$input, I64Attr:$dim);
  let results = (outs Index:$result);
  let assemblyFormat = "$input `,` $dim attr-dict `:` type($input)";
}

def Fusion_PtrAlignedOp : Fusion_Op<"ptr_aligned", [Pure]> {
  let summary = "Whether a buffer's address is a multiple of `bytes` (0 or 1)";
  let arguments = (ins Fusion_Tensor:$input, I64Attr:$bytes);
  let results = (outs Index:$result);
  let assemblyFormat = "$input `,` $bytes attr-dict `:` type($input)";
}

def Fusion_LaunchOp : Fusion_Op<"launch", [AttrSizedOperandSegments,
    MemoryEffects<[MemWrite<DefaultResource>, MemRead<DefaultResource>]>]> {
  let summary = "Launch a gpu.func of a gpu.module (host program)";
  let description = [{
    Launches `kernel` with the given grid, block and dynamic shared memory.
    Tensor arguments pass their device buffers (the kernel writes its
    outputs into them); index arguments pass as the kernel parameter's
    integer type. A launch with a `guard` runs only when the guard is
    non-zero; otherwise the next launch in the block (its fallback) runs.
    With `cluster(x, y, z)` the blocks launch in thread block clusters of
    that shape (sm_90+; the runtime checks that they tile the grid and can
    be resident, Note [Cluster residency]).
  }];
  let arguments = (ins SymbolRefAttr:$kernel, Optional<Index>:$guard,
                       Index:$gridX, Index:$gridY, Index:$gridZ,
                       Index:$blockX, Index:$blockY, Index:$blockZ,
                       Index:$smem, Variadic<Index>:$cluster,
                       Variadic<AnyType>:$args);
  let assemblyFormat = [{
    $kernel (`if` `(` $guard^ `)`)? `grid` `(` $gridX `,` $gridY `,` $gridZ `)`
    `block` `(` $blockX `,` $blockY `,` $blockZ `)` `smem` `(` $smem `)`
    (`cluster` `(` $cluster^ `)`)?
    `args` `(` $args `)` attr-dict `:` type($args)
  }];
  let hasVerifier = 1;
}

def Fusion_CheckOp : Fusion_Op<"check", [AttrSizedOperandSegments,
    MemoryEffects<[MemWrite<DefaultResource>]>]> {
  let summary = "A run-time condition on the inputs (host program)";
  let description = [{
    The runtime rejects inputs for which `condition` is zero, with `message`,
    before anything is launched; with `actual` and `expected` the error shows
    those two values (e.g. the size found and the size required).
  }];
  let arguments = (ins Index:$condition, StrAttr:$message,
                       Optional<Index>:$actual, Optional<Index>:$expected);
  let assemblyFormat = [{
    $condition `,` $message (`(` $actual^ `vs` $expected `)`)? attr-dict
  }];
}

def Fusion_TensorMapOp : Fusion_Op<"tensor_map", [Pure]> {
  let summary = "A tensor map of a tensor, for a kernel's bulk copies (host program)";
  let description = [{
    Note [Tensor maps] (docs/runtime.md): describes `tensor` (an input or a
    buffer of the host program) for the copy engine, with the box each bulk
    tensor copy moves (outermost first) and a shared-memory swizzle (0:
    none, 1: 32 bytes, 2: 64, 3: 128); `oob_nan` fills out-of-bounds
    elements of a load with NaN instead of zero. Its result is passed to a
    `fusion.launch` whose kernel takes a tensor map there (the kernel's
    leading `!llvm.ptr` parameters, Note [Tensor map parameters]); the
    module file holds it as a TensorMapSpec that the runtime encodes per
    call. Verified: 1 to 5 dims, a box dim per dim of 1 to 256, the
    innermost box a multiple of 16 bytes within the swizzle span, an
    element type of 1 to 8 bytes, NaN fill only for floats.

    ```mlir
    %map = fusion.tensor_map %x box [8, 64] : tensor<?x?xf32> -> !llvm.ptr
    ```
  }];
  let arguments = (ins AnyRankedTensor:$tensor, DenseI64ArrayAttr:$box,
                       DefaultValuedAttr<ConfinedAttr<I32Attr,
                           [IntMinValue<0>, IntMaxValue<3>]>, "0">:$swizzle,
                       UnitAttr:$oob_nan);
  let results = (outs AnyType:$map);
  let assemblyFormat = [{
    $tensor `box` $box attr-dict `:` type($tensor) `->` type($map)
  }];
  let hasVerifier = 1;
}

#endif // FUSION_KERNEL_OPS_TD
