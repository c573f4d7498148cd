//===- HostProgram.cpp - the host side of the kernel lowerings ------------===//
// Launch arguments, effective strides, size checks, variant guards and
// launches, shared by the schedulers' lowerings.
//===----------------------------------------------------------------------===//

#include "HostProgram.h"

#include "fusion/Dialect/Fusion/Transforms/ShapeReification.h"
#include "fusion/Runtime/ModuleFormat.h"

using namespace mlir;
using namespace mlir::fusion;

namespace mlir::fusion::lowering {

gpu::GPUModuleOp KernelLowering::gpuModuleFor(FusionOp fusion) {
  std::string name = (fusion.getSymName() + "_kernels").str();
  if (auto existing = module.lookupSymbol<gpu::GPUModuleOp>(name))
    return existing;
  OpBuilder b = OpBuilder::atBlockEnd(module.getBody());
  return gpu::GPUModuleOp::create(b, fusion.getLoc(), name);
}

FailureOr<KernelLowering::EmittedVariants> KernelLowering::emitVariants(
    KernelOp kernel, gpu::GPUModuleOp gpuModule, ArrayRef<Variant> variants,
    RankedTensorType iterType, std::optional<int64_t> block,
    function_ref<LogicalResult(KernelEmitter &, gpu::GPUFuncOp)> emitBody,
    int64_t numExtraParams, ArrayRef<Type> extraBufferElements) {
  EmittedVariants result;
  bool anyVector =
      llvm::any_of(variants, [](const Variant &v) { return v.vector > 1; });
  bool any32 =
      llvm::any_of(variants, [](const Variant &v) { return !v.index64; });
  for (const Variant &variant : variants) {
    KernelEmitter emitter(kernel, variant, iterType);
    emitter.hardwareFp8 = hardwareFp8;
    emitter.numExtraParams = numExtraParams;
    emitter.extraBufferElements.assign(extraBufferElements.begin(),
                                       extraBufferElements.end());
    OpBuilder mb = OpBuilder::atBlockEnd(gpuModule.getBody());
    FunctionType signature = emitter.signature(&getContext());
    if (failed(checkParamBytes(kernel, signature)))
      return failure();
    auto func =
        gpu::GPUFuncOp::create(mb, kernel.getLoc(), variant.name, signature);
    func->setAttr(gpu::GPUDialect::getKernelFuncAttrName(), mb.getUnitAttr());
    // A block size chosen at launch is bounded instead (nvvm.maxntid).
    if (block)
      func.setKnownBlockSizeAttr(
          mb.getDenseI32ArrayAttr({static_cast<int32_t>(*block), 1, 1}));
    else
      func->setAttr("nvvm.maxntid",
                    mb.getDenseI32ArrayAttr(
                        {static_cast<int32_t>(kMaxRowThreads), 1, 1}));
    if (failed(emitBody(emitter, func)))
      return failure();
    // Cluster variants too while they are opt-in (Note [Cluster rows]).
    if ((variant.vector == 1 && anyVector) || (variant.index64 && any32) ||
        variant.ragged || variant.cluster || variant.longRows)
      fallbackFuncs.insert(func);
    if (variant.vector > 1)
      result.vectorLoaded = emitter.vectorLoadedInputs;
    if (variant.ragged) {
      result.raggedAligned.insert_range(emitter.raggedAligned);
      result.raggedUnaligned.insert_range(emitter.raggedUnaligned);
    }
    result.accesses = emitter.accesses;
    result.funcs.push_back(func);
  }
  return result;
}

LogicalResult KernelLowering::checkParamBytes(KernelOp kernel,
                                              FunctionType signature) {
  size_t bytes = 0;
  size_t tensors = 0;
  for (Type type : signature.getInputs()) {
    size_t words = 1, size = 8;
    if (isa<MemRefType>(type)) {
      words = 5;
      ++tensors;
    } else if (type.isInteger(32) || type.isF32()) {
      size = 4;
    }
    for (size_t w = 0; w < words; ++w)
      bytes = (bytes + size - 1) / size * size + size;
  }
  if (bytes <= ::fusion::runtime::kMaxParamBytes)
    return success();
  return kernel.emitOpError()
         << "needs " << bytes << " bytes of kernel parameters ("
         << signature.getNumInputs() << " parameters, " << tensors
         << " of them tensors), over the " << ::fusion::runtime::kMaxParamBytes
         << " a launch can pass";
}

void KernelLowering::createLaunch(OpBuilder &b, Location loc, HostBuilder &h,
                                  gpu::GPUModuleOp gpuModule,
                                  gpu::GPUFuncOp func, Value guard, Value gridX,
                                  Value gridY, Value blockX, ValueRange args,
                                  Value smem, ValueRange cluster) {
  auto symbol = SymbolRefAttr::get(
      &getContext(), gpuModule.getName(),
      {FlatSymbolRefAttr::get(&getContext(), func.getName())});
  auto launch =
      LaunchOp::create(b, loc, symbol, guard, gridX, gridY, h.c(1), blockX,
                       h.c(1), h.c(1), smem ? smem : h.c(0), cluster, args);
  launch->setAttr("param_types", b.getTypeArrayAttr(func.getArgumentTypes()));
  if (fallbackFuncs.contains(func))
    launch->setAttr("fallback", b.getUnitAttr());
}

LogicalResult KernelLowering::checkReadsFusionInputs(KernelOp kernel) {
  for (Value input : kernel.getInputs())
    if (isa<RankedTensorType>(input.getType()) && !isa<BlockArgument>(input) &&
        !input.getDefiningOp<EmptyOp>())
      return kernel.emitOpError(
          "reads a tensor that is neither a fusion input nor the buffer of "
          "a kernel before it");
  return success();
}

void KernelLowering::inputDimsAndStrides(HostBuilder &h, Value input,
                                         SmallVectorImpl<Value> &dims,
                                         SmallVectorImpl<Value> &strides) {
  auto tensor = cast<RankedTensorType>(input.getType());
  OpBuilder &b = h.builder();
  Location loc = h.location();
  if (auto empty = input.getDefiningOp<EmptyOp>()) {
    unsigned next = 0;
    for (int64_t d = 0; d < tensor.getRank(); ++d)
      dims.push_back(tensor.isDynamicDim(d) ? empty.getSizes()[next++]
                                            : h.c(tensor.getDimSize(d)));
    strides.resize(tensor.getRank());
    Value stride = h.c(1);
    for (int64_t d = tensor.getRank() - 1; d >= 0; --d) {
      strides[d] = stride;
      stride = h.mul(stride, dims[d]);
    }
    return;
  }
  for (int64_t d = 0; d < tensor.getRank(); ++d) {
    dims.push_back(tensor.isDynamicDim(d)
                       ? Value(DimOp::create(b, loc, input, d))
                       : h.c(tensor.getDimSize(d)));
    strides.push_back(StrideOp::create(b, loc, input, d));
  }
}

std::string KernelLowering::describeInput(KernelOp kernel, FusionOp fusion,
                                          unsigned k) {
  std::string text;
  llvm::raw_string_ostream os(text);
  if (auto arg = dyn_cast<BlockArgument>(kernel.getInputs()[k]))
    os << "input " << arg.getArgNumber() << " ("
       << fusion.getInputName(arg.getArgNumber()) << ")";
  else
    os << "intermediate input " << k << " of " << kernel.getSymName();
  return text;
}

SmallVector<Variant> KernelLowering::plainVariants(StringRef base,
                                                   int64_t vector, bool index64,
                                                   bool fastMath) {
  std::string ix = index64 ? "_i64" : "_i32";
  SmallVector<Variant> variants;
  if (vector > 1)
    variants.push_back(
        {vector, index64, (base + "_v" + Twine(vector) + ix).str()});
  if (!index64)
    variants.push_back({1, false, (base + "_s_i32").str()});
  variants.push_back({1, true, (base + "_s_i64").str()});
  for (Variant &variant : variants)
    variant.fastMath = fastMath;
  return variants;
}

bool KernelLowering::sameSize(Value x, Value y) {
  auto dx = x.getDefiningOp<DimOp>(), dy = y.getDefiningOp<DimOp>();
  return x == y || (dx && dy && dx.getInput() == dy.getInput() &&
                    dx.getDim() == dy.getDim());
}

void KernelLowering::checkSameSize(HostBuilder &h, Value size, Value expected,
                                   const Twine &what) {
  if (sameSize(size, expected))
    return;
  std::string message;
  llvm::raw_string_ostream(message) << what;
  CheckOp::create(h.builder(), h.location(), h.eq(size, expected), message,
                  size, expected);
}

FailureOr<SmallVector<Value>>
KernelLowering::reifyReducedDomain(KernelOp kernel, Value domainValue,
                                   ArrayRef<Operation *> reductions,
                                   HostBuilder &h) {
  auto toHost = [&](Value v) { return kernelInputOutside(kernel, v); };
  int64_t rank = cast<RankedTensorType>(domainValue.getType()).getRank();
  SmallVector<Value> sizes;
  for (int64_t d = 0; d < rank; ++d) {
    FailureOr<Value> size =
        reifyDim(h.builder(), h.location(), domainValue, d, toHost);
    if (failed(size))
      return kernel.emitOpError("cannot express reduced dim ")
             << d << " from the inputs";
    sizes.push_back(*size);
  }
  for (Operation *op : reductions)
    for (int64_t d = 0; d < rank; ++d) {
      FailureOr<Value> size =
          reifyDim(h.builder(), h.location(), op->getOperand(0), d, toHost);
      if (failed(size))
        return op->emitOpError("cannot express operand dim ")
               << d << " from the inputs";
      checkSameSize(h, *size, sizes[d],
                    "dim " + Twine(d) + " of a reduced tensor must equal dim " +
                        Twine(d) + " of the kernel's first reduced tensor");
    }
  return sizes;
}

Value KernelLowering::andVectorAccessOk(HostBuilder &h, OpBuilder &b,
                                        Location loc, Value ok, Value input,
                                        ArrayRef<Value> strides, int64_t width,
                                        int64_t align) {
  ok = h.mul(ok, h.eq(strides.back(), h.c(1)));
  for (size_t d = 0; d + 1 < strides.size(); ++d)
    ok = h.mul(ok, h.eq(h.rem(strides[d], h.c(width)), h.c(0)));
  return h.mul(ok, PtrAlignedOp::create(b, loc, input, align));
}

Value KernelLowering::raggedAccessOk(KernelOp kernel, HostBuilder &h,
                                     ArrayRef<Value> sizes,
                                     const EmittedVariants &emitted,
                                     int64_t width, ValueRange outputs,
                                     const LaunchArgs &launch) {
  OpBuilder &b = h.builder();
  Location loc = h.location();
  int64_t rank = sizes.size();
  // The output's element strides (outputs are contiguous).
  SmallVector<Value> domainStrides(rank, h.c(1));
  for (int64_t d = rank - 2; d >= 0; --d)
    domainStrides[d] = h.mul(domainStrides[d + 1], sizes[d + 1]);
  Value ok = h.c(1);
  auto check = [&](unsigned k, bool aligned) {
    Value input = kernel.getInputs()[k];
    ArrayRef<Value> effective = launch.inputStrides[k];
    ok = h.mul(ok, h.eq(effective.back(), h.c(1)));
    if (!aligned)
      return;
    ok = h.mul(ok, PtrAlignedOp::create(b, loc, input, 16));
    for (int64_t d = 0; d + 1 < rank; ++d) {
      Value congruent = h.eq(
          h.rem(h.sub(effective[d], domainStrides[d]), h.c(width)), h.c(0));
      ok = h.mul(ok, h.max(congruent, h.eq(sizes[d], h.c(1))));
    }
  };
  for (unsigned k : emitted.raggedAligned)
    check(k, true);
  for (unsigned k : emitted.raggedUnaligned)
    check(k, false);
  for (Value out : outputs)
    ok = h.mul(ok, PtrAlignedOp::create(b, loc, out, 16));
  return ok;
}

FailureOr<KernelLowering::LaunchArgs> KernelLowering::hostArgs(
    KernelOp kernel, FusionOp fusion, HostBuilder &h, ArrayRef<Value> sizes,
    const llvm::SetVector<std::tuple<unsigned, int64_t, int64_t>> &accesses,
    const llvm::SmallSetVector<unsigned, 4> &vectorLoaded, int64_t vector,
    ValueRange outputs) {
  OpBuilder b(kernel);
  Location loc = kernel.getLoc();
  int64_t rank = sizes.size();
  Value numel = h.c(1);
  for (Value size : sizes)
    numel = h.mul(numel, size);
  // Effective strides: a size-1 dim broadcasts, so its stride is 0.
  SmallVector<Value> args;
  SmallVector<SmallVector<Value>> inputStrides, inputDims;
  for (Value input : kernel.getInputs()) {
    auto tensor = dyn_cast<RankedTensorType>(input.getType());
    inputStrides.emplace_back();
    inputDims.emplace_back();
    args.push_back(input);
    if (!tensor)
      continue;
    SmallVector<Value> strides;
    inputDimsAndStrides(h, input, inputDims.back(), strides);
    for (auto [dim, stride] : llvm::zip(inputDims.back(), strides)) {
      Value effective = h.select(h.eq(dim, h.c(1)), h.c(0), stride);
      inputStrides.back().push_back(effective);
      args.push_back(effective);
    }
  }
  args.append(outputs.begin(), outputs.end());
  args.append(sizes.begin(), sizes.end());

  // Note [Equal operand sizes]: element-wise operands have equal sizes
  // (broadcasting is explicit: docs/dialect.md); only broadcast_in_dim and
  // expand stretch a size-1 dim. The access checks below let an input dim
  // be 1, which such a broadcast needs, so the operands of each
  // element-wise op are checked against each other too, as the interpreter
  // and the Python frontend check them: add(a of 2x3, b of 1x3) is an
  // error, not a broadcast.
  auto toHost = [&](Value v) { return kernelInputOutside(kernel, v); };
  auto describe = [&](Value v, unsigned operand) -> std::string {
    auto arg = dyn_cast<BlockArgument>(v);
    if (arg && arg.getOwner() == &kernel.getBody().front())
      return describeInput(kernel, fusion, arg.getArgNumber());
    return "operand " + std::to_string(operand);
  };
  kernel.getBody().walk([&](Operation *op) {
    if (!op->hasTrait<FusionElementwise>())
      return;
    Value first;
    unsigned firstIndex = 0;
    for (auto [i, operand] : llvm::enumerate(op->getOperands())) {
      auto type = dyn_cast<RankedTensorType>(operand.getType());
      if (!type)
        continue;
      if (!first) {
        first = operand;
        firstIndex = i;
        continue;
      }
      auto firstType = cast<RankedTensorType>(first.getType());
      for (int64_t d = 0; d < type.getRank(); ++d) {
        if (!type.isDynamicDim(d) && !firstType.isDynamicDim(d))
          continue; // equal, by the verifier
        FailureOr<Value> size =
            reifyDim(h.builder(), h.location(), operand, d, toHost);
        FailureOr<Value> expected =
            reifyDim(h.builder(), h.location(), first, d, toHost);
        if (failed(size) || failed(expected))
          continue;
        std::string message;
        llvm::raw_string_ostream os(message);
        os << describe(operand, i) << " dim " << d << " must equal "
           << describe(first, firstIndex) << " dim " << d
           << ", as operands of '" << op->getName()
           << "' (broadcasting is explicit: "
           << "broadcast_in_dim or expand)";
        checkSameSize(h, *size, *expected, message);
      }
    }
  });

  // Dynamic extents that must agree are checked before any launch.
  for (auto [k, d, it] : accesses) {
    auto tensor = cast<RankedTensorType>(kernel.getInputs()[k].getType());
    if (!tensor.isDynamicDim(d) && !isa<BlockArgument>(sizes[it]) &&
        sizes[it].getDefiningOp<arith::ConstantOp>())
      continue;
    Value dim = inputDims[k][d];
    if (!isa<BlockArgument>(kernel.getInputs()[k]) && sameSize(dim, sizes[it]))
      continue; // an intermediate of the right size
    Value ok = h.max(h.eq(dim, sizes[it]), h.eq(dim, h.c(1)));
    std::string message;
    llvm::raw_string_ostream os(message);
    os << describeInput(kernel, fusion, k) << " dim " << d
       << " must equal result dim " << it << " or be 1";
    CheckOp::create(b, loc, ok, message, dim, sizes[it]);
  }

  // Note [Variant guards]: the vectorized variant needs the innermost
  // size to be a multiple of the width, 16-byte aligned buffers, unit
  // innermost strides and other strides that keep vectors aligned; the
  // 32-bit variants need every offset below 2^31.
  Value vecOk = h.c(1);
  if (vector > 1) {
    vecOk = h.eq(h.rem(sizes[rank - 1], h.c(vector)), h.c(0));
    for (unsigned k : vectorLoaded)
      vecOk = andVectorAccessOk(h, b, loc, vecOk, kernel.getInputs()[k],
                                inputStrides[k], vector, 16);
    for (Value out : outputs)
      vecOk = h.mul(vecOk, PtrAlignedOp::create(b, loc, out, 16));
  }
  const int64_t limit32 = (int64_t(1) << 31) - (int64_t(1) << 25);
  Value fits32 = h.lt(numel, h.c(limit32));
  for (auto [k, input] : llvm::enumerate(kernel.getInputs())) {
    if (!isa<RankedTensorType>(input.getType()))
      continue;
    Value maxOffset = h.c(0);
    for (auto [dim, stride] : llvm::zip(inputDims[k], inputStrides[k]))
      maxOffset =
          h.add(maxOffset, h.mul(h.max(h.sub(dim, h.c(1)), h.c(0)), stride));
    fits32 = h.mul(fits32, h.lt(maxOffset, h.c(limit32)));
  }

  return LaunchArgs{args, vecOk, fits32, Value(), inputStrides};
}

Value KernelLowering::plainGuard(HostBuilder &h, const Variant &variant,
                                 const LaunchArgs &launch) {
  if (variant.vector > 1)
    return variant.index64 ? launch.vecOk : h.mul(launch.vecOk, launch.fits32);
  return variant.index64 ? Value() : launch.fits32;
}

FailureOr<SmallVector<Value>>
KernelLowering::indexOpHostArgs(KernelOp kernel, HostBuilder &h,
                                ArrayRef<std::pair<Value, int64_t>> extents) {
  OpBuilder &b = h.builder();
  Location loc = h.location();
  auto toHost = [&](Value v) { return kernelValueOnHost(kernel, v); };
  // The pieces of a cat agree off the cat dim; a gather's index is no
  // larger than its input off the gathered dim (as PyTorch's gather).
  WalkResult checked = kernel.getBody().walk([&](Operation *op) {
    auto dimOf = [&](Value v, int64_t d) {
      return reifyDim(b, loc, v, d, toHost);
    };
    if (auto cat = dyn_cast<CatOp>(op)) {
      Value first = cat.getInputs()[0];
      for (auto [k, input] : llvm::enumerate(cat.getInputs()))
        for (int64_t d = 0; k > 0 && d < cat.getType().getRank(); ++d) {
          if (d == static_cast<int64_t>(cat.getDim()))
            continue;
          FailureOr<Value> size = dimOf(input, d), expected = dimOf(first, d);
          if (failed(size) || failed(expected))
            return WalkResult::interrupt();
          checkSameSize(h, *size, *expected,
                        "operand " + Twine(k) + " of 'fusion.cat' dim " +
                            Twine(d) + " must equal operand 0 dim " + Twine(d));
        }
    }
    if (auto gather = dyn_cast<GatherOp>(op)) {
      for (int64_t d = 0; d < gather.getType().getRank(); ++d) {
        if (d == static_cast<int64_t>(gather.getDim()))
          continue;
        FailureOr<Value> size = dimOf(gather.getIndex(), d);
        FailureOr<Value> bound = dimOf(gather.getInput(), d);
        if (failed(size) || failed(bound))
          return WalkResult::interrupt();
        std::string message;
        llvm::raw_string_ostream(message)
            << "the index of 'fusion.gather' dim " << d
            << " must not exceed its input's dim " << d;
        CheckOp::create(b, loc, h.sub(h.c(1), h.lt(*bound, *size)), message,
                        *size, *bound);
      }
    }
    return WalkResult::advance();
  });
  if (checked.wasInterrupted())
    return kernel.emitOpError("cannot express the sizes of an index op from "
                              "the inputs");
  SmallVector<Value> extentArgs;
  for (auto [value, d] : extents) {
    FailureOr<Value> extent = reifyDim(b, loc, value, d, toHost);
    if (failed(extent))
      return kernel.emitOpError("cannot express an extent an index op reads "
                                "from the inputs");
    extentArgs.push_back(*extent);
  }
  return extentArgs;
}

} // namespace mlir::fusion::lowering
