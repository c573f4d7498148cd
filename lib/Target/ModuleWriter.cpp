//===- ModuleWriter.cpp - lowered fusions to module files -----------------===//
// Turns the host program of a lowered fusion into the module file's launch
// plan (an expression program over input sizes, strides and scalars) and
// packs the kernels' PTX (and cubin, when ptxas is found).
//===----------------------------------------------------------------------===//

#include "fusion/Target/ModuleWriter.h"

#include "llvm/ADT/StringExtras.h"

#include "fusion/Dialect/Fusion/IR/FusionOps.h"
#include "fusion/Runtime/ModuleFormat.h"
#include "fusion/Runtime/fusion_module_generated.h"
#include "fusion/Version.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMTypes.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"

#include <atomic>
#include <thread>

using namespace mlir;
using namespace mlir::fusion;
namespace fb = ::fusion::fb;

std::string mlir::fusion::findPtxas(StringRef hint) {
  if (!hint.empty())
    return hint.str();
  SmallVector<StringRef> paths;
  std::string cudaHome;
  if (const char *home = std::getenv("CUDA_HOME")) {
    cudaHome = (Twine(home) + "/bin").str();
    paths.push_back(cudaHome);
  }
  paths.push_back("/usr/local/cuda/bin");
  if (auto found = llvm::sys::findProgramByName("ptxas"))
    return *found;
  if (auto found = llvm::sys::findProgramByName("ptxas", paths))
    return *found;
  return "";
}

namespace {

std::optional<fb::DType> toDType(Type type) {
  if (type.isF64())
    return fb::DType::F64;
  if (type.isF32())
    return fb::DType::F32;
  if (type.isF16())
    return fb::DType::F16;
  if (type.isBF16())
    return fb::DType::BF16;
  if (type.isInteger(64) || type.isIndex())
    return fb::DType::I64;
  if (type.isInteger(32))
    return fb::DType::I32;
  if (type.isInteger(16))
    return fb::DType::I16;
  if (type.isInteger(8))
    return fb::DType::I8;
  if (type.isInteger(1))
    return fb::DType::I1;
  if (isa<Float8E4M3FNType>(type))
    return fb::DType::F8E4M3;
  if (isa<Float8E5M2Type>(type))
    return fb::DType::F8E5M2;
  return std::nullopt;
}

/// Compiles the launch plan of one fusion.
class PlanWriter {
public:
  PlanWriter(FusionOp fusion, ModuleOp module,
             const ModuleWriterOptions &options)
      : fusion(fusion), module(module), options(options) {}

  FailureOr<std::string> write(StringRef definition) {
    if (failed(compileCubins()))
      return failure();
    TimingScope timer =
        options.timing ? options.timing->nest("launch plan") : TimingScope();
    Block &body = fusion.getBody().front();
    numInputs = body.getNumArguments();
    // Inputs.
    std::vector<flatbuffers::Offset<fb::InputSpec>> inputs;
    for (auto [i, type] : llvm::enumerate(fusion.getArgumentTypes())) {
      auto tensor = dyn_cast<RankedTensorType>(type);
      auto dtype = toDType(tensor ? tensor.getElementType() : type);
      if (!dtype)
        return fusion.emitOpError() << "input " << i << " has type " << type
                                    << " that module files cannot describe";
      std::vector<int64_t> sizes;
      if (tensor)
        for (int64_t s : tensor.getShape())
          sizes.push_back(ShapedType::isDynamic(s) ? -1 : s);
      inputs.push_back(fb::CreateInputSpecDirect(
          fbb, fusion.getInputName(i).c_str(),
          tensor ? fb::ArgKind::Tensor : fb::ArgKind::Scalar, *dtype,
          tensor ? &sizes : nullptr));
    }
    // Host ops may sit between the variants of one launch; a guarded launch
    // and the launches up to the next unguarded one form one group.
    for (Operation &op : body)
      if (failed(visit(&op)))
        return failure();

    std::vector<flatbuffers::Offset<fb::ExprInst>> exprOffsets;
    for (auto &e : exprs)
      exprOffsets.push_back(
          fb::CreateExprInst(fbb, e.op, e.a, e.b, e.c, e.imm));
    auto moduleOffset = fb::CreateModuleDirect(
        fbb, formatVersion, fusion.getSymName().str().c_str(),
        options.chip.c_str(), &inputs, &exprOffsets, &buffers, &outputs,
        &kernels, &launches, &checks, definition.str().c_str(),
        "fusion " FUSION_VERSION_STRING,
        tensorMaps.empty() ? nullptr : &tensorMaps,
        anyDeferred ? options.compileOptions.c_str() : nullptr);
    fb::FinishModuleBuffer(fbb, moduleOffset);
    return std::string(reinterpret_cast<const char *>(fbb.GetBufferPointer()),
                       fbb.GetSize());
  }

private:
  struct Expr {
    fb::ExprOp op;
    int32_t a = 0, b = 0, c = 0;
    int64_t imm = 0;
  };

  int32_t emit(Expr e) {
    exprs.push_back(e);
    return static_cast<int32_t>(exprs.size() - 1);
  }
  int32_t constant(int64_t v) {
    auto it = constants.find(v);
    if (it != constants.end())
      return it->second;
    return constants[v] = emit({fb::ExprOp::Const, 0, 0, 0, v});
  }

  FailureOr<int32_t> reg(Value v, Operation *user) {
    auto it = registers.find(v);
    if (it != registers.end())
      return it->second;
    if (auto arg = dyn_cast<BlockArgument>(v)) {
      if (arg.getType().isIntOrIndex())
        return registers[v] = emit({fb::ExprOp::ScalarInput,
                                    static_cast<int32_t>(arg.getArgNumber())});
    }
    return user->emitOpError()
           << "uses a value the runtime cannot evaluate: " << v;
  }

  /// The pointer slot of a tensor: an input or a buffer.
  FailureOr<int32_t> slot(Value v, Operation *user) {
    if (auto arg = dyn_cast<BlockArgument>(v))
      return static_cast<int32_t>(arg.getArgNumber());
    auto it = bufferIndex.find(v);
    if (it != bufferIndex.end())
      return static_cast<int32_t>(numInputs + it->second);
    return user->emitOpError() << "uses a tensor that is neither an input "
                                  "nor a buffer of the host program";
  }

  LogicalResult binary(Operation *op, fb::ExprOp kind, bool swap = false,
                       bool negate = false) {
    auto a = reg(op->getOperand(0), op), b = reg(op->getOperand(1), op);
    if (failed(a) || failed(b))
      return failure();
    int32_t r = swap ? emit({kind, *b, *a}) : emit({kind, *a, *b});
    if (negate)
      r = emit({fb::ExprOp::Sub, constant(1), r});
    registers[op->getResult(0)] = r;
    return success();
  }

  LogicalResult visit(Operation *op) {
    using P = arith::CmpIPredicate;
    if (auto c = dyn_cast<arith::ConstantOp>(op)) {
      auto attr = dyn_cast<IntegerAttr>(c.getValue());
      if (!attr)
        return success(); // Float constants only feed kernels.
      registers[c.getResult()] = constant(attr.getInt());
      return success();
    }
    if (auto dim = dyn_cast<DimOp>(op)) {
      auto arg = dyn_cast<BlockArgument>(dim.getInput());
      if (!arg)
        return dim.emitOpError("must query a fusion input in a host program");
      registers[dim.getResult()] =
          emit({fb::ExprOp::InputSize, static_cast<int32_t>(arg.getArgNumber()),
                static_cast<int32_t>(dim.getDim())});
      return success();
    }
    if (auto stride = dyn_cast<StrideOp>(op)) {
      auto arg = dyn_cast<BlockArgument>(stride.getInput());
      if (!arg)
        return stride.emitOpError("must query a fusion input");
      registers[stride.getResult()] = emit(
          {fb::ExprOp::InputStride, static_cast<int32_t>(arg.getArgNumber()),
           static_cast<int32_t>(stride.getDim())});
      return success();
    }
    if (auto aligned = dyn_cast<PtrAlignedOp>(op)) {
      auto s = slot(aligned.getInput(), op);
      if (failed(s))
        return failure();
      registers[aligned.getResult()] =
          emit({fb::ExprOp::PtrAligned, *s, 0, 0,
                static_cast<int64_t>(aligned.getBytes())});
      return success();
    }
    if (isa<arith::AddIOp>(op))
      return binary(op, fb::ExprOp::Add);
    if (isa<arith::SubIOp>(op))
      return binary(op, fb::ExprOp::Sub);
    if (isa<arith::MulIOp>(op))
      return binary(op, fb::ExprOp::Mul);
    // Host sizes are non-negative, so truncating division is floor division.
    if (isa<arith::FloorDivSIOp, arith::DivSIOp, arith::DivUIOp>(op))
      return binary(op, fb::ExprOp::FloorDiv);
    if (isa<arith::CeilDivSIOp, arith::CeilDivUIOp>(op))
      return binary(op, fb::ExprOp::CeilDiv);
    if (isa<arith::RemSIOp, arith::RemUIOp>(op))
      return binary(op, fb::ExprOp::Rem);
    if (isa<arith::MinSIOp>(op))
      return binary(op, fb::ExprOp::Min);
    if (isa<arith::MaxSIOp>(op))
      return binary(op, fb::ExprOp::Max);
    if (auto cmp = dyn_cast<arith::CmpIOp>(op)) {
      switch (cmp.getPredicate()) {
      case P::eq:
        return binary(op, fb::ExprOp::Eq);
      case P::ne:
        return binary(op, fb::ExprOp::Eq, false, true);
      case P::slt:
      case P::ult:
        return binary(op, fb::ExprOp::Lt);
      case P::sgt:
      case P::ugt:
        return binary(op, fb::ExprOp::Lt, true);
      case P::sge:
      case P::uge:
        return binary(op, fb::ExprOp::Lt, false, true);
      case P::sle:
      case P::ule:
        return binary(op, fb::ExprOp::Lt, true, true);
      }
    }
    if (auto select = dyn_cast<arith::SelectOp>(op)) {
      auto c = reg(select.getCondition(), op);
      auto a = reg(select.getTrueValue(), op);
      auto b = reg(select.getFalseValue(), op);
      if (failed(c) || failed(a) || failed(b))
        return failure();
      registers[select.getResult()] = emit({fb::ExprOp::Select, *c, *a, *b});
      return success();
    }
    if (isa<arith::IndexCastOp, arith::IndexCastUIOp, arith::ExtUIOp,
            arith::ExtSIOp>(op)) {
      auto a = reg(op->getOperand(0), op);
      if (failed(a))
        return failure();
      registers[op->getResult(0)] = *a;
      return success();
    }
    if (auto empty = dyn_cast<EmptyOp>(op))
      return visitEmpty(empty);
    // Views are resolved where they are returned (Note [Views]), tensor maps
    // where they are launched with.
    if (isa<ReshapeOp, SqueezeOp, PermuteOp, SliceOp, TensorMapOp>(op))
      return success();
    if (auto check = dyn_cast<CheckOp>(op)) {
      auto c = reg(check.getCondition(), op);
      if (failed(c))
        return failure();
      if (check.getActual() && check.getExpected()) {
        // lhs is the expected value when the check holds and the actual one
        // when it fails, so the runtime's "(lhs != rhs)" shows both sizes.
        auto actual = reg(check.getActual(), op);
        auto expected = reg(check.getExpected(), op);
        if (failed(actual) || failed(expected))
          return failure();
        int32_t shown = emit({fb::ExprOp::Select, *c, *expected, *actual});
        checks.push_back(fb::CreateExprCheckDirect(
            fbb, shown, *expected, check.getMessage().str().c_str()));
        return success();
      }
      addCheck(*c, check.getMessage().str());
      return success();
    }
    if (auto launch = dyn_cast<LaunchOp>(op))
      return visitLaunch(launch);
    if (auto ret = dyn_cast<ReturnOp>(op)) {
      if (!pendingGroup.empty())
        return op->emitOpError("follows a guarded fusion.launch that has no "
                               "unguarded fallback");
      return visitReturn(ret);
    }
    // Float scalar arithmetic feeds kernels only as kernel parameters; the
    // lowering never leaves it on the host.
    return op->emitOpError("cannot be evaluated by the runtime's launch plan");
  }

  FailureOr<std::vector<int32_t>>
  sizeRegisters(RankedTensorType type, ValueRange dynamic, Operation *op) {
    std::vector<int32_t> sizes;
    unsigned next = 0;
    for (int64_t s : type.getShape()) {
      if (!ShapedType::isDynamic(s)) {
        sizes.push_back(constant(s));
        continue;
      }
      auto r = reg(dynamic[next++], op);
      if (failed(r))
        return failure();
      sizes.push_back(*r);
    }
    return sizes;
  }

  LogicalResult visitEmpty(EmptyOp empty) {
    auto type = empty.getType();
    auto sizes = sizeRegisters(type, empty.getSizes(), empty);
    if (failed(sizes))
      return failure();
    bool isOutput = llvm::any_of(
        empty->getUsers(), [](Operation *user) { return isa<ReturnOp>(user); });
    bufferIndex[empty.getResult()] = buffers.size();
    buffers.push_back(fb::CreateBufferSpecDirect(
        fbb, isOutput ? fb::BufferKind::Output : fb::BufferKind::Intermediate,
        *toDType(type.getElementType()), &*sizes, empty.getZeroInit(), -1,
        nullptr, empty.getKeptZero()));
    return success();
  }

  /// Sizes, strides and the offset of the first element (registers, in
  /// elements) of an input seen through views.
  struct View {
    int32_t input;
    std::vector<int32_t> sizes, strides;
    int32_t offset;
  };

  // Note [Views]: reshape, squeeze, permute and slice of an input need no
  // kernel when their result is returned: the output aliases the input with
  // other sizes and strides, and a slice moves its first element (the
  // buffer's alias_offset). A reshape is a view only of a contiguous
  // tensor; the plan checks that at run time (and the element count) and
  // says so. The segmenter keeps a reshape of a slice in a kernel.
  FailureOr<View> viewOf(Value v, Operation *user) {
    if (auto arg = dyn_cast<BlockArgument>(v)) {
      View view{static_cast<int32_t>(arg.getArgNumber()), {}, {}, constant(0)};
      auto type = cast<RankedTensorType>(v.getType());
      for (int64_t d = 0; d < type.getRank(); ++d) {
        view.sizes.push_back(
            emit({fb::ExprOp::InputSize, view.input, static_cast<int32_t>(d)}));
        view.strides.push_back(emit(
            {fb::ExprOp::InputStride, view.input, static_cast<int32_t>(d)}));
      }
      return view;
    }
    Operation *op = v.getDefiningOp();
    if (!op || !isa<ReshapeOp, SqueezeOp, PermuteOp, SliceOp>(op))
      return failure();
    FailureOr<View> source = viewOf(op->getOperand(0), user);
    if (failed(source))
      return failure();
    View view{source->input, {}, {}, source->offset};
    if (auto slice = dyn_cast<SliceOp>(op))
      return sliceView(slice, *source, user);
    if (auto permute = dyn_cast<PermuteOp>(op)) {
      for (int64_t p : permute.getPerm()) {
        view.sizes.push_back(source->sizes[p]);
        view.strides.push_back(source->strides[p]);
      }
      return view;
    }
    if (auto squeeze = dyn_cast<SqueezeOp>(op)) {
      for (size_t d = 0; d < source->sizes.size(); ++d) {
        if (llvm::is_contained(squeeze.getDims(), static_cast<int64_t>(d))) {
          addCheck(emit({fb::ExprOp::Eq, source->sizes[d], constant(1)}),
                   "squeezed dim " + std::to_string(d) + " of input " +
                       std::to_string(view.input) + " (" +
                       fusion.getInputName(view.input) + ") must have size 1");
          continue;
        }
        view.sizes.push_back(source->sizes[d]);
        view.strides.push_back(source->strides[d]);
      }
      return view;
    }
    auto reshape = cast<ReshapeOp>(op);
    auto sizes = sizeRegisters(reshape.getType(), reshape.getSizes(), user);
    if (failed(sizes))
      return failure();
    std::string name = "input " + std::to_string(view.input) + " (" +
                       fusion.getInputName(view.input) + ")";
    // Contiguous: each stride is the product of the later sizes (a size-1
    // dim's stride does not matter).
    int32_t expected = constant(1);
    int32_t contiguous = constant(1);
    for (size_t d = source->sizes.size(); d-- > 0;) {
      int32_t ok =
          emit({fb::ExprOp::Max,
                emit({fb::ExprOp::Eq, source->strides[d], expected}),
                emit({fb::ExprOp::Eq, source->sizes[d], constant(1)})});
      contiguous = emit({fb::ExprOp::Mul, contiguous, ok});
      expected = emit({fb::ExprOp::Mul, expected, source->sizes[d]});
    }
    addCheck(contiguous, name + " must be contiguous to be reshaped without "
                                "a copy");
    int32_t count = constant(1);
    for (int32_t size : *sizes)
      count = emit({fb::ExprOp::Mul, count, size});
    addCheck(emit({fb::ExprOp::Eq, count, expected}),
             "reshape of " + name + " must keep the number of elements");
    view.sizes = *sizes;
    view.strides = rowMajorStrides(view.sizes);
    return view;
  }

  /// Registers of the row-major strides of `sizes` (registers).
  std::vector<int32_t> rowMajorStrides(const std::vector<int32_t> &sizes) {
    std::vector<int32_t> strides(sizes.size(), 0);
    int32_t stride = constant(1);
    for (size_t d = sizes.size(); d-- > 0;) {
      strides[d] = stride;
      stride = emit({fb::ExprOp::Mul, stride, sizes[d]});
    }
    return strides;
  }

  /// A slice of `source`, as the interpreter takes it: along each dim the
  /// bounds clamped to [0, size], ceil((stop - start) / step) elements (at
  /// least 0), the stride times the step, and the start added to the
  /// offset. A step below 1 is refused by the plan.
  FailureOr<View> sliceView(SliceOp slice, const View &source,
                            Operation *user) {
    View view{source.input, {}, {}, source.offset};
    std::string name = "input " + std::to_string(view.input) + " (" +
                       fusion.getInputName(view.input) + ")";
    int32_t zero = constant(0);
    for (size_t d = 0; d < source.sizes.size(); ++d) {
      auto start = reg(slice.getStarts()[d], user);
      auto stop = reg(slice.getStops()[d], user);
      auto step = reg(slice.getSteps()[d], user);
      if (failed(start) || failed(stop) || failed(step))
        return failure();
      int32_t size = source.sizes[d];
      auto clamp = [&](int32_t bound) {
        return emit(
            {fb::ExprOp::Min, emit({fb::ExprOp::Max, bound, zero}), size});
      };
      addCheck(emit({fb::ExprOp::Lt, zero, *step}),
               "slice of " + name + ": the step of dim " + std::to_string(d) +
                   " must be at least 1");
      // Registers are all evaluated before the checks: divide by at least
      // 1, so that a step of 0 fails the check, not the division.
      int32_t lo = clamp(*start), hi = clamp(*stop);
      int32_t divisor = emit({fb::ExprOp::Max, *step, constant(1)});
      int32_t count = emit({fb::ExprOp::Max,
                            emit({fb::ExprOp::CeilDiv,
                                  emit({fb::ExprOp::Sub, hi, lo}), divisor}),
                            zero});
      view.sizes.push_back(count);
      view.strides.push_back(emit({fb::ExprOp::Mul, source.strides[d], *step}));
      view.offset = emit({fb::ExprOp::Add, view.offset,
                          emit({fb::ExprOp::Mul, lo, source.strides[d]})});
    }
    return view;
  }

  void addCheck(int32_t condition, const std::string &message) {
    checks.push_back(fb::CreateExprCheckDirect(fbb, condition, constant(1),
                                               message.c_str()));
  }

  LogicalResult visitReturn(ReturnOp ret) {
    for (Value v : ret.getOperands()) {
      auto it = bufferIndex.find(v);
      if (it != bufferIndex.end()) {
        if (llvm::is_contained(outputs, static_cast<int32_t>(it->second)))
          return ret.emitOpError(
              "returns one tensor twice; module files give each output "
              "its own buffer");
        outputs.push_back(it->second);
        continue;
      }
      auto type = dyn_cast<RankedTensorType>(v.getType());
      FailureOr<View> view = type ? viewOf(v, ret) : FailureOr<View>(failure());
      if (failed(view))
        return ret.emitOpError("returns a value that is neither a buffer nor "
                               "a view of an input tensor");
      // An input, or a view of one, returned: an alias, no kernel, no copy.
      // An offset other than the constant 0 needs format version 2.
      int32_t offset = -1;
      if (view->offset != constant(0)) {
        offset = view->offset;
        formatVersion = std::max<uint32_t>(formatVersion, 2);
      }
      outputs.push_back(buffers.size());
      buffers.push_back(fb::CreateBufferSpecDirect(
          fbb, fb::BufferKind::Output, *toDType(type.getElementType()),
          &view->sizes, false, view->input, &view->strides, false, offset));
    }
    return success();
  }

  /// Note [Tensor maps]: the TensorMapSpec of a fusion.tensor_map passed to
  /// a launch (one per op): the tensor's slot, its sizes and strides as
  /// registers (an input's as bound, a buffer's row-major), the box.
  FailureOr<int32_t> tensorMapIndex(Value arg, LaunchOp launch) {
    auto op = arg.getDefiningOp<TensorMapOp>();
    if (!op)
      return launch.emitOpError()
             << "passes " << arg
             << " where the kernel takes a tensor map; expected the result "
                "of a fusion.tensor_map";
    auto it = tensorMapIndices.find(op);
    if (it != tensorMapIndices.end())
      return it->second;
    Value tensor = op.getTensor();
    auto s = slot(tensor, op);
    if (failed(s))
      return failure();
    auto type = cast<RankedTensorType>(tensor.getType());
    auto dtype = toDType(type.getElementType());
    if (!dtype)
      return op.emitOpError()
             << "maps elements of type " << type.getElementType()
             << ", which module files cannot hold";
    std::vector<int32_t> sizes, strides;
    if (auto input = dyn_cast<BlockArgument>(tensor)) {
      for (int64_t d = 0; d < type.getRank(); ++d) {
        auto dim = static_cast<int32_t>(d);
        auto i = static_cast<int32_t>(input.getArgNumber());
        sizes.push_back(emit({fb::ExprOp::InputSize, i, dim}));
        strides.push_back(emit({fb::ExprOp::InputStride, i, dim}));
      }
    } else {
      auto empty = tensor.getDefiningOp<EmptyOp>();
      if (!empty)
        return op.emitOpError("maps a tensor that is neither an input nor a "
                              "buffer of the host program");
      auto bufferSizes = sizeRegisters(type, empty.getSizes(), op);
      if (failed(bufferSizes))
        return failure();
      sizes = *bufferSizes;
      strides = rowMajorStrides(sizes);
    }
    std::vector<int32_t> box(op.getBox().begin(), op.getBox().end());
    auto index = static_cast<int32_t>(tensorMaps.size());
    tensorMaps.push_back(fb::CreateTensorMapSpecDirect(
        fbb, *s, *dtype, &sizes, &strides, &box,
        static_cast<fb::TensorMapSwizzle>(op.getSwizzle()), op.getOobNan()));
    tensorMapIndices[op] = index;
    formatVersion = std::max<uint32_t>(formatVersion, 3);
    return index;
  }

  FailureOr<int32_t> kernelIndex(LaunchOp launch) {
    SymbolRefAttr symbol = launch.getKernel();
    std::string key = symbol.getLeafReference().str();
    auto it = kernelIndices.find(key);
    if (it != kernelIndices.end())
      return it->second;
    if (launch->hasAttr(kDeferredKernelAttr)) {
      // Note [Deferred kernels]: code built earlier, or none yet.
      int32_t index = kernels.size();
      auto built = options.prebuiltKernels.find(key);
      if (built != options.prebuiltKernels.end()) {
        kernels.push_back(fb::CreateKernelDirect(fbb, key.c_str(),
                                                 built->second.ptx.c_str(),
                                                 &built->second.cubin, 0));
      } else {
        kernels.push_back(fb::CreateKernelDirect(fbb, key.c_str(), nullptr,
                                                 nullptr, 0,
                                                 /*deferred=*/true));
        anyDeferred = true;
        formatVersion = std::max<uint32_t>(formatVersion, 4);
      }
      kernelIndices[key] = index;
      return index;
    }
    auto binary = module.lookupSymbol<gpu::BinaryOp>(symbol.getRootReference());
    if (!binary)
      return launch.emitOpError()
             << "refers to " << symbol
             << " but there is no gpu.binary of that name (run "
                "gpu-module-to-binary with format isa)";
    auto object = dyn_cast<gpu::ObjectAttr>(binary.getObjects()[0]);
    if (!object || object.getFormat() != gpu::CompilationTarget::Assembly)
      return launch.emitOpError("needs a PTX (isa) gpu.binary object");
    StringRef ptx = object.getObject().getValue();
    // compileCubins ran ptxas over every binary already (none when ptxas is
    // missing or not wanted: no cubin).
    std::vector<uint8_t> cubin;
    if (auto it = cubins.find(binary.getName()); it != cubins.end())
      cubin = it->second;
    int32_t index = kernels.size();
    kernels.push_back(
        fb::CreateKernelDirect(fbb, key.c_str(), ptx.str().c_str(), &cubin, 0));
    kernelIndices[key] = index;
    return index;
  }

  /// One ptxas run: its own temporary files, so runs can overlap.
  struct PtxasJob {
    Operation *op;
    std::string name;
    StringRef ptx;
    std::vector<uint8_t> cubin;
    std::string error; // empty: success
  };

  static void runPtxas(const std::string &ptxas, const std::string &chip,
                       PtxasJob &job) {
    SmallString<128> ptxPath, cubinPath, logPath;
    if (llvm::sys::fs::createTemporaryFile("fusion", "ptx", ptxPath) ||
        llvm::sys::fs::createTemporaryFile("fusion", "cubin", cubinPath) ||
        llvm::sys::fs::createTemporaryFile("fusion", "ptxas.log", logPath)) {
      job.error = "cannot create temporary files for ptxas";
      return;
    }
    {
      std::error_code ec;
      llvm::raw_fd_ostream os(ptxPath, ec);
      if (ec) {
        job.error = ("cannot write " + ptxPath).str();
        return;
      }
      os << job.ptx;
    }
    std::string arch = "-arch=" + chip;
    SmallVector<StringRef> args = {ptxas,   arch, "-O3",
                                   ptxPath, "-o", cubinPath};
    std::optional<StringRef> redirects[] = {std::nullopt, logPath, logPath};
    std::string error;
    int rc = llvm::sys::ExecuteAndWait(ptxas, args, std::nullopt, redirects, 0,
                                       0, &error);
    auto buffer = llvm::MemoryBuffer::getFile(cubinPath);
    auto log = llvm::MemoryBuffer::getFile(logPath);
    llvm::sys::fs::remove(ptxPath);
    llvm::sys::fs::remove(cubinPath);
    llvm::sys::fs::remove(logPath);
    if (rc != 0 || !buffer) {
      job.error = "ptxas (" + ptxas + ") failed with code " +
                  std::to_string(rc) + " " + error + ": " +
                  (log ? (*log)->getBuffer() : StringRef()).str();
      return;
    }
    StringRef bytes = (*buffer)->getBuffer();
    job.cubin.assign(bytes.begin(), bytes.end());
  }

  /// Runs ptxas over the PTX of every kernel the fusion launches, as many
  /// at a time as there are cores (each kernel has its own gpu.binary).
  /// Errors are reported in launch order, whatever order ptxas finished in.
  ///
  /// Note [Cubins for expected variants]: a launch's variants are tried in
  /// order, and the lowering marks `fallback` the ones that run only when
  /// an expected variant cannot: a scalar variant beside a vectorized one
  /// (odd sizes, misaligned or strided inputs), a 64-bit-index variant
  /// beside a 32-bit one (2^31 elements and more), the plain variants of a
  /// tiled transpose. Those keep PTX only (unless fallbackCubins): ptxas
  /// took 50-70% of a compile, and of softmax's five variants only the two
  /// vectorized ones run on aligned inputs. The runtime loads a kernel when
  /// a launch first needs it (Note [Kernels on first use]), so the driver
  /// JIT-compiles a fallback's PTX then, once per context.
  LogicalResult compileCubins() {
    std::string ptxas = options.emitCubin ? findPtxas(options.ptxas) : "";
    if (ptxas.empty())
      return success();
    TimingScope timer =
        options.timing ? options.timing->nest("ptxas") : TimingScope();
    std::vector<PtxasJob> jobs;
    llvm::StringSet<> seen;
    fusion.walk([&](LaunchOp launch) {
      auto binary = module.lookupSymbol<gpu::BinaryOp>(
          launch.getKernel().getRootReference());
      // A deferred kernel's launch names a module that may still hold
      // other kernels (Note [Deferred kernels]): not its binary.
      if (!binary || binary.getObjects().empty() ||
          launch->hasAttr(kDeferredKernelAttr) ||
          (launch->hasAttr("fallback") && !options.fallbackCubins) ||
          !seen.insert(binary.getName()).second)
        return;
      auto object = dyn_cast<gpu::ObjectAttr>(binary.getObjects()[0]);
      // kernelIndex reports what is wrong with such a binary.
      if (!object || object.getFormat() != gpu::CompilationTarget::Assembly)
        return;
      jobs.push_back(
          {launch, binary.getName().str(), object.getObject().getValue()});
    });
    size_t workers = std::min<size_t>(
        jobs.size(), std::max(1u, std::thread::hardware_concurrency()));
    std::atomic<size_t> next{0};
    auto work = [&] {
      for (size_t i; (i = next++) < jobs.size();)
        runPtxas(ptxas, options.chip, jobs[i]);
    };
    std::vector<std::thread> threads;
    for (size_t t = 1; t < workers; ++t)
      threads.emplace_back(work);
    work();
    for (std::thread &t : threads)
      t.join();
    for (PtxasJob &job : jobs) {
      if (!job.error.empty())
        return job.op->emitError() << job.error;
      cubins[job.name] = std::move(job.cubin);
    }
    return success();
  }

  LogicalResult visitLaunch(LaunchOp launch) {
    auto kernel = kernelIndex(launch);
    if (failed(kernel))
      return failure();
    auto types = launch->getAttrOfType<ArrayAttr>("param_types");
    if (!types)
      return launch.emitOpError("needs the param_types the lowering records");
    std::vector<flatbuffers::Offset<fb::Param>> params;
    unsigned t = 0;
    for (Value arg : launch.getArgs()) {
      if (t >= types.size())
        return launch.emitOpError("has more arguments than kernel parameters");
      Type paramType = cast<TypeAttr>(types[t++]).getValue();
      if (isa<LLVM::LLVMPointerType>(paramType)) {
        auto map = tensorMapIndex(arg, launch);
        if (failed(map))
          return failure();
        params.push_back(fb::CreateParam(fbb, fb::ParamKind::TensorMap, *map));
        continue;
      }
      if (isa<MemRefType>(paramType)) {
        // A rank-1 memref descriptor: allocated and aligned pointers,
        // offset, size and stride. Kernels index from the aligned pointer.
        auto s = slot(arg, launch);
        if (failed(s))
          return failure();
        params.push_back(fb::CreateParam(fbb, fb::ParamKind::Pointer, *s));
        params.push_back(fb::CreateParam(fbb, fb::ParamKind::Pointer, *s));
        params.push_back(fb::CreateParam(fbb, fb::ParamKind::I64, constant(0)));
        params.push_back(fb::CreateParam(fbb, fb::ParamKind::I64, constant(0)));
        params.push_back(fb::CreateParam(fbb, fb::ParamKind::I64, constant(1)));
        continue;
      }
      auto blockArg = dyn_cast<BlockArgument>(arg);
      if (blockArg && !arg.getType().isIndex()) {
        fb::ParamKind kind;
        if (paramType.isF32())
          kind = fb::ParamKind::ScalarF32;
        else if (paramType.isF64())
          kind = fb::ParamKind::ScalarF64;
        else if (paramType.isInteger(64))
          kind = fb::ParamKind::ScalarI64;
        else
          return launch.emitOpError() << "cannot pass a scalar input of type "
                                      << paramType << " to a kernel yet";
        params.push_back(fb::CreateParam(fbb, kind, blockArg.getArgNumber()));
        continue;
      }
      auto r = reg(arg, launch);
      if (failed(r))
        return failure();
      params.push_back(fb::CreateParam(
          fbb,
          paramType.isInteger(32) ? fb::ParamKind::I32 : fb::ParamKind::I64,
          *r));
    }
    auto regs = [&](ValueRange values) -> FailureOr<std::vector<int32_t>> {
      std::vector<int32_t> out;
      for (Value v : values) {
        auto r = reg(v, launch);
        if (failed(r))
          return failure();
        out.push_back(*r);
      }
      return out;
    };
    auto grid = regs({launch.getGridX(), launch.getGridY(), launch.getGridZ()});
    auto block =
        regs({launch.getBlockX(), launch.getBlockY(), launch.getBlockZ()});
    auto smem = reg(launch.getSmem(), launch);
    int32_t guard = -1;
    if (launch.getGuard()) {
      auto g = reg(launch.getGuard(), launch);
      if (failed(g))
        return failure();
      guard = *g;
    }
    auto cluster = regs(launch.getCluster());
    if (failed(grid) || failed(block) || failed(smem) || failed(cluster))
      return failure();
    pendingGroup.push_back(fb::CreateLaunchVariantDirect(
        fbb, *kernel, guard, &*grid, &*block, *smem,
        cluster->empty() ? nullptr : &*cluster, false, &params));
    // A launch without a guard ends its group of variants.
    if (!launch.getGuard())
      flushLaunchGroup();
    return success();
  }

  void flushLaunchGroup() {
    if (pendingGroup.empty())
      return;
    launches.push_back(fb::CreateLaunchDirect(fbb, &pendingGroup));
    pendingGroup.clear();
  }

  FusionOp fusion;
  ModuleOp module;
  const ModuleWriterOptions &options;
  flatbuffers::FlatBufferBuilder fbb;
  unsigned numInputs = 0;
  std::vector<Expr> exprs;
  std::map<int64_t, int32_t> constants;
  DenseMap<Value, int32_t> registers;
  DenseMap<Value, unsigned> bufferIndex;
  std::vector<flatbuffers::Offset<fb::BufferSpec>> buffers;
  std::vector<int32_t> outputs;
  std::vector<flatbuffers::Offset<fb::Kernel>> kernels;
  llvm::StringMap<int32_t> kernelIndices;
  llvm::StringMap<std::vector<uint8_t>> cubins;
  std::vector<flatbuffers::Offset<fb::Launch>> launches;
  std::vector<flatbuffers::Offset<fb::LaunchVariant>> pendingGroup;
  std::vector<flatbuffers::Offset<fb::ExprCheck>> checks;
  /// The lowest format version whose features the file uses
  /// (ModuleFormat.h).
  uint32_t formatVersion = 1;
  bool anyDeferred = false;
  std::vector<flatbuffers::Offset<fb::TensorMapSpec>> tensorMaps;
  DenseMap<Operation *, int32_t> tensorMapIndices;
};

} // namespace

FailureOr<FusionOp> mlir::fusion::selectFusion(ModuleOp module,
                                               StringRef fusionName) {
  FusionOp fusion;
  SmallVector<StringRef> names;
  for (auto f : module.getOps<FusionOp>())
    names.push_back(f.getSymName());
  for (auto f : module.getOps<FusionOp>()) {
    if (!fusionName.empty() && f.getSymName() != fusionName)
      continue;
    if (fusion)
      return module.emitError("several fusions (@")
             << llvm::join(names, ", @")
             << "): a module file holds one; name it (fusion-translate "
                "--fusion=NAME)";
    fusion = f;
  }
  if (!fusion && fusionName.empty())
    return module.emitError("no fusion.fusion in the input: nothing to write");
  if (!fusion)
    return module.emitError("no fusion named '")
           << fusionName << "' (the input has "
           << (names.empty() ? std::string("none")
                             : "@" + llvm::join(names, ", @"))
           << ")";
  return fusion;
}

FailureOr<FusionOp> mlir::fusion::keepOnlyFusion(ModuleOp module,
                                                 StringRef fusionName) {
  FailureOr<FusionOp> selected = selectFusion(module, fusionName);
  if (failed(selected))
    return failure();
  for (auto other : llvm::make_early_inc_range(module.getOps<FusionOp>()))
    if (other != *selected)
      other.erase();
  return selected;
}

FailureOr<std::string>
mlir::fusion::writeModuleFile(ModuleOp module, StringRef fusionName,
                              StringRef definition,
                              const ModuleWriterOptions &options) {
  FailureOr<FusionOp> fusion = selectFusion(module, fusionName);
  if (failed(fusion))
    return failure();
  return PlanWriter(*fusion, module, options).write(definition);
}
