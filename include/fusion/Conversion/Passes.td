//===- Passes.td - the lowering's passes -------------------*- tablegen -*-===//
// The passes between the levels of docs/lowering.md, in pipeline order: the
// scheduled kernels to gpu.func variants and a host program (on the module,
// as it adds gpu.modules beside the fusions), then the kernel-level ops to
// upstream gpu, scf, memref, vector and llvm ops.
//===----------------------------------------------------------------------===//
#ifndef FUSION_CONVERSION_PASSES_TD
#define FUSION_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

def FusionImportLinalg : Pass<"fusion-import-linalg", "ModuleOp"> {
  let summary = "Import functions of linalg and tensor ops into fusion.fusion ops";
  let description = [{
    Each func.func of ranked tensors whose ops all have a fusion form
    becomes a fusion.fusion of the same name and type: element-wise
    `linalg.generic` ops and named structured ops (`linalg.add`,
    `linalg.exp`, `linalg.reduce`, ...) with `arith`/`math` bodies (inputs read whole or
    through an ordered projection, which becomes `fusion.broadcast_in_dim`),
    reductions (`linalg.generic` whose body ends in an add, mul, max or min
    with the output, initialized by `linalg.fill` of its neutral value: sum,
    prod, max, min), `linalg.softmax`, `linalg.transpose` (permute) and
    `linalg.broadcast`; `tensor.collapse_shape` and `tensor.expand_shape`
    (reshape), `tensor.extract_slice` (slice, and squeeze when it drops
    dims) and `tensor.concat` (cat); `tensor.empty`, `linalg.fill`,
    `tensor.dim` and `arith` on index values as their inits and sizes. A
    function with an op the pass cannot express
    stays as it is, and the pass warns on that op, saying why.
  }];
  let dependentDialects = [
    "::mlir::fusion::FusionDialect", "::mlir::arith::ArithDialect"
  ];
}

def FusionLowerKernels : Pass<"fusion-lower-kernels", "ModuleOp"> {
  let summary = "Lower scheduled kernels to gpu.func plus a host launch program";
  let description = [{
    Every scheduled `fusion.kernel` becomes one or more `gpu.func` kernels in
    a `gpu.module` (a vectorized variant and scalar fallbacks, with 32-bit or
    64-bit index arithmetic), and the fusion's body becomes the host program:
    `fusion.empty` buffers, size arithmetic, and guarded `fusion.launch` ops
    that pick a variant at run time.
  }];
  let options = [
    Option<"innerMinBlocks", "inner-min-blocks", "int64_t", /*default=*/"0",
           "Persistent inner-reduction variants: blocks per SM to keep "
           "resident (nvvm.minctasm; bounds registers per thread; 0: none)">,
    Option<"transposeTile", "transpose-tile", "int64_t", /*default=*/"64",
           "Tile edge of the tiled transpose variant (16, 32 or 64)">,
    Option<"chip", "chip", "std::string", /*default=*/"\"\"",
           "Target chip (sm_XX): sm_89 and later convert f32 to fp8 with "
           "the hardware's cvt (Note [Hardware fp8 conversion]); empty: "
           "integer code that runs on every chip">,
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect", "::mlir::gpu::GPUDialect",
    "::mlir::LLVM::LLVMDialect", "::mlir::math::MathDialect", "::mlir::memref::MemRefDialect",
    "::mlir::NVVM::NVVMDialect", "::mlir::scf::SCFDialect",
    "::mlir::vector::VectorDialect"
  ];
}

def FusionLowerKernelOps : Pass<"fusion-lower-kernel-ops"> {
  let summary = "Lower the kernel-level ops to gpu, scf, memref, vector and llvm";
  let description = [{
    Rewrites each kernel-level op (`fusion.warp_reduce`,
    `fusion.block_reduce`, `fusion.grid_arrive`, `fusion.grid_reduce`,
    `fusion.stage_store`, `fusion.stage_load`) with its one pattern: xor
    shuffles with the combiner region inlined at each step; for a block
    reduction the shared-memory slots, barriers and a second butterfly
    over the warps' slots; for a grid arrival the fence, the atomic
    counter and the shared flag; for a grid reduction the partials'
    stores, the arrival, and the last block's counter reset, fold loop
    and `last` region; for staged values volatile accesses of the
    module's dynamic shared memory (declared once per
    gpu.module that stages); the bulk copies, mbarriers and their fences
    (`fusion.bulk_tensor_load`, `fusion.bulk_tensor_store`,
    `fusion.mbarrier_*`, `fusion.bulk_commit_group`,
    `fusion.bulk_wait_group`, `fusion.fence_async_shared`,
    `fusion.prefetch_tensormap`) become NVVM's ops on shared-window
    pointers (sm_90 and later). Runs on any op; in `--fusion-to-ptx` right
    after `--fusion-lower-kernels`.
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect", "::mlir::gpu::GPUDialect",
    "::mlir::LLVM::LLVMDialect", "::mlir::memref::MemRefDialect",
    "::mlir::NVVM::NVVMDialect", "::mlir::scf::SCFDialect",
    "::mlir::vector::VectorDialect"
  ];
}

def FusionTensorMapParams : Pass<"fusion-tensor-map-params"> {
  let summary = "Pass a kernel's tensor maps by value, as grid constants";
  let description = [{
    Note [Tensor map parameters]: a kernel whose bulk tensor copies read
    tensor maps takes them as its first `N` parameters (`!llvm.ptr`), and
    says so with the function attribute `fusion.tensor_maps = N` (a
    function attribute survives `convert-gpu-to-nvvm`, an argument
    attribute does not; the leading parameters keep their positions, since
    only memrefs expand into several). After that conversion this pass
    gives those `llvm.func` arguments `llvm.byval = !llvm.array<128 x i8>`,
    `llvm.align = 64` and `nvvm.grid_constant`, so each is a 128-byte,
    64-byte aligned `.param` (a `__grid_constant__ CUtensorMap`) whose
    generic address the copies use, and the runtime passes the encoded map
    by value (ParamKind TensorMap). A count beyond the arguments, or a
    leading argument that is not a generic pointer, is an error on the
    function. Kernels without the attribute are untouched.
  }];
  let dependentDialects = [
    "::mlir::LLVM::LLVMDialect", "::mlir::NVVM::NVVMDialect"
  ];
}

#endif // FUSION_CONVERSION_PASSES_TD
