//===- FusionKernelOps.cpp - kernel-level ops -----------------------------===//
// Builders and verifiers of fusion.kernel and the host-program ops.
//===----------------------------------------------------------------------===//

#include "fusion/Dialect/Fusion/IR/FusionOps.h"

#include "mlir/Dialect/LLVMIR/LLVMTypes.h"
#include "mlir/IR/Builders.h"

using namespace mlir;
using namespace mlir::fusion;

void KernelOp::build(OpBuilder &builder, OperationState &state, StringRef name,
                     ValueRange inputs, TypeRange resultTypes) {
  state.addAttribute(getSymNameAttrName(state.name),
                     builder.getStringAttr(name));
  state.addOperands(inputs);
  state.addTypes(resultTypes);
  Region *body = state.addRegion();
  Block *block = new Block();
  body->push_back(block);
  for (Value input : inputs)
    block->addArgument(input.getType(), input.getLoc());
}

StringRef KernelOp::getDefaultDialect() { return "fusion"; }

LogicalResult KernelOp::verify() {
  Block &block = getBody().front();
  if (block.getNumArguments() != getInputs().size())
    return emitOpError() << "has " << getInputs().size() << " inputs but "
                         << block.getNumArguments() << " block arguments";
  for (auto [i, pair] :
       llvm::enumerate(llvm::zip(getInputs(), block.getArguments())))
    if (std::get<0>(pair).getType() != std::get<1>(pair).getType())
      return emitOpError() << "input " << i << " has type "
                           << std::get<0>(pair).getType()
                           << " but its block argument has type "
                           << std::get<1>(pair).getType();
  auto yield = cast<YieldOp>(block.getTerminator());
  if (yield.getNumOperands() != getNumResults())
    return emitOpError() << "yields " << yield.getNumOperands()
                         << " values but has " << getNumResults() << " results";
  for (auto [i, pair] :
       llvm::enumerate(llvm::zip(yield.getOperandTypes(), getResultTypes())))
    if (std::get<0>(pair) != std::get<1>(pair))
      return emitOpError() << "yields " << std::get<0>(pair) << " as result "
                           << i << " of type " << std::get<1>(pair);
  // A schedule built in C++ (by the scheduler or a user's pass) skips the
  // parser's check: check it here too (Note [Schedule ranges]).
  auto emit = [&] { return emitOpError(); };
  if (std::optional<Attribute> schedule = getSchedule()) {
    if (auto s = dyn_cast<PointwiseScheduleAttr>(*schedule))
      return PointwiseScheduleAttr::verify(emit, s.getVector(), s.getUnroll(),
                                           s.getBlock(), s.getMaxGrid(),
                                           s.getIndex64(), s.getFastMath());
    if (auto s = dyn_cast<InnerReductionScheduleAttr>(*schedule))
      return InnerReductionScheduleAttr::verify(
          emit, s.getVector(), s.getItems(), s.getBlock(), s.getMaxGrid(),
          s.getIndex64(), s.getFastMath(), s.getStageRow(), s.getCluster(),
          s.getAsyncStage(), s.getLongCluster(), s.getLongStage(),
          s.getBulkStage(), s.getRowGrid(), s.getLongAsync(),
          s.getColumnRows());
    if (auto s = dyn_cast<OuterReductionScheduleAttr>(*schedule))
      return OuterReductionScheduleAttr::verify(
          emit, s.getVector(), s.getUnroll(), s.getTargetBlocks(),
          s.getIndex64(), s.getFastMath());
  }
  return success();
}

LogicalResult EmptyOp::verify() {
  int64_t dynamic = getType().getNumDynamicDims();
  if (static_cast<int64_t>(getSizes().size()) != dynamic)
    return emitOpError() << "result type " << getType() << " has " << dynamic
                         << " dynamic dims but " << getSizes().size()
                         << " size operands were given";
  if (getKeptZero() && !getZeroInit())
    return emitOpError() << "kept_zero needs zero_init";
  if (getKeptZero() && llvm::any_of(getResult().getUsers(), [](Operation *u) {
        return isa<ReturnOp>(u);
      }))
    return emitOpError()
           << "kept_zero is for intermediates; a returned buffer is an output";
  return success();
}

/// Note [Tensor maps]: the copy engine's static rules, as the runtime's
/// module verifier checks them again.
LogicalResult TensorMapOp::verify() {
  auto ptr = dyn_cast<LLVM::LLVMPointerType>(getMap().getType());
  if (!ptr || ptr.getAddressSpace() != 0)
    return emitOpError() << "gives a generic !llvm.ptr, not "
                         << getMap().getType();
  auto type = getTensor().getType();
  int64_t rank = type.getRank();
  if (rank < 1 || rank > 5)
    return emitOpError() << "maps tensors of 1 to 5 dims, got " << rank;
  ArrayRef<int64_t> box = getBox();
  if (static_cast<int64_t>(box.size()) != rank)
    return emitOpError() << "has " << box.size() << " box dims for a tensor of "
                         << rank << " dims";
  for (auto [d, edge] : llvm::enumerate(box))
    if (edge < 1 || edge > 256)
      return emitOpError() << "box dim " << d << " is " << edge
                           << "; box dims are 1 to 256 elements";
  Type element = type.getElementType();
  unsigned bits = element.isIntOrFloat() ? element.getIntOrFloatBitWidth() : 0;
  if (element.isInteger(1))
    bits = 8;
  if (bits != 8 && bits != 16 && bits != 32 && bits != 64)
    return emitOpError() << "maps elements of 1 to 8 bytes, got " << element;
  int64_t innerBytes = box.back() * (bits / 8);
  if (innerBytes % 16 != 0)
    return emitOpError() << "has an innermost box of " << innerBytes
                         << " bytes; it must be a multiple of 16";
  int64_t swizzle = getSwizzle();
  if (swizzle != 0 && innerBytes > (int64_t(16) << swizzle))
    return emitOpError() << "has an innermost box of " << innerBytes
                         << " bytes, more than the " << (16 << swizzle)
                         << "-byte swizzle span";
  if (getOobNan() && !isa<FloatType>(element))
    return emitOpError() << "fills with NaN, but its elements are " << element;
  return success();
}

LogicalResult LaunchOp::verify() {
  if (!getCluster().empty() && getCluster().size() != 3)
    return emitOpError() << "has " << getCluster().size()
                         << " cluster dims; a cluster has 3 (x, y, z)";
  return success();
}
