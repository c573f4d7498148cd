//===- FusionDeviceOps.cpp - kernel-level ops -----------------------------===//
// Result types and verifiers of the kernel-level ops (FusionDeviceOps.td):
// the reduction states and the regions that combine them, and the grid
// reduction's arrival counter, and the staging of values in dynamic shared
// memory.
//===----------------------------------------------------------------------===//

#include "fusion/Dialect/Fusion/IR/FusionOps.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMTypes.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"

using namespace mlir;
using namespace mlir::fusion;

/// Checks that `region` has one block taking `args` and ending in a
/// fusion.reduce_yield of values of `yields`' types. `what` names the region.
static LogicalResult verifyStateRegion(Operation *op, Region &region,
                                       StringRef what, TypeRange args,
                                       TypeRange yields) {
  Block &block = region.front();
  if (block.getNumArguments() != args.size())
    return op->emitOpError()
           << "expects the " << what << " region to take " << args.size()
           << " arguments, got " << block.getNumArguments();
  for (auto [i, pair] :
       llvm::enumerate(llvm::zip(block.getArgumentTypes(), args)))
    if (std::get<0>(pair) != std::get<1>(pair))
      return op->emitOpError()
             << what << " argument " << i << " has type " << std::get<0>(pair)
             << ", expected " << std::get<1>(pair);
  auto yield = dyn_cast<ReduceYieldOp>(block.getTerminator());
  if (!yield)
    return op->emitOpError()
           << "expects the " << what << " region to end in fusion.reduce_yield";
  if (yield.getNumOperands() != yields.size())
    return yield.emitOpError()
           << "yields " << yield.getNumOperands() << " values, the state has "
           << yields.size() << " components";
  for (auto [i, pair] :
       llvm::enumerate(llvm::zip(yield.getOperandTypes(), yields)))
    if (std::get<0>(pair) != std::get<1>(pair))
      return yield.emitOpError()
             << "yields " << std::get<0>(pair) << " as component " << i
             << ", the state has " << std::get<1>(pair);
  return success();
}

/// A state moves between lanes with gpu.shuffle: each component must be a
/// 32- or 64-bit integer or float (between the blocks of a cluster, through
/// shared memory, 16 bits too: `sixteen`); the combiner takes two states.
static LogicalResult verifyState(Operation *op, TypeRange state,
                                 Region &combiner, bool sixteen = false) {
  if (state.empty())
    return op->emitOpError("needs a state of at least one component");
  for (auto [i, type] : llvm::enumerate(state)) {
    bool scalar = isa<IntegerType, FloatType>(type);
    unsigned bits = scalar ? type.getIntOrFloatBitWidth() : 0;
    if (bits != 32 && bits != 64 && !(sixteen && bits == 16))
      return op->emitOpError()
             << "state component " << i << " has type " << type
             << (sixteen
                     ? "; blocks exchange 16-, 32- or 64-bit integers or floats"
                     : "; lanes exchange 32- or 64-bit integers or floats");
  }
  SmallVector<Type> pairs(state.begin(), state.end());
  pairs.append(state.begin(), state.end());
  return verifyStateRegion(op, combiner, "combiner", pairs, state);
}

LogicalResult WarpReduceOp::inferReturnTypes(MLIRContext *,
                                             std::optional<Location>,
                                             Adaptor adaptor,
                                             SmallVectorImpl<Type> &inferred) {
  llvm::append_range(inferred, adaptor.getState().getTypes());
  return success();
}

LogicalResult WarpReduceOp::verifyRegions() {
  return verifyState(*this, getState().getTypes(), getCombiner());
}

LogicalResult BlockReduceOp::inferReturnTypes(MLIRContext *,
                                              std::optional<Location>,
                                              Adaptor adaptor,
                                              SmallVectorImpl<Type> &inferred) {
  llvm::append_range(inferred, adaptor.getState().getTypes());
  return success();
}

/// The state, the identity region, and one 1-d workgroup slot buffer per
/// state component, of the component's type (`fixed`: of a static shape
/// with at least one element and the identity layout, as a cluster
/// reduction addresses its slot 0 in every block).
static LogicalResult verifySlotReduction(Operation *op, TypeRange state,
                                         ValueRange slotBuffers,
                                         Region &identity, Region &combiner,
                                         bool fixed) {
  if (failed(verifyState(op, state, combiner, /*sixteen=*/fixed)))
    return failure();
  if (failed(verifyStateRegion(op, identity, "identity", {}, state)))
    return failure();
  if (slotBuffers.size() != state.size())
    return op->emitOpError() << "needs one slot buffer per state component ("
                             << state.size() << "), got " << slotBuffers.size();
  for (auto [i, pair] : llvm::enumerate(llvm::zip(slotBuffers, state))) {
    auto slots = cast<MemRefType>(std::get<0>(pair).getType());
    auto space =
        dyn_cast_if_present<gpu::AddressSpaceAttr>(slots.getMemorySpace());
    bool ok = slots.getRank() == 1 &&
              slots.getElementType() == std::get<1>(pair) && space &&
              space.getValue() == gpu::AddressSpace::Workgroup;
    if (fixed)
      ok = ok && slots.hasStaticShape() && slots.getNumElements() >= 1 &&
           slots.getLayout().isIdentity();
    if (!ok)
      return op->emitOpError()
             << "slot buffer " << i << " has type " << slots << "; expected a "
             << (fixed ? "static " : "") << "1-d workgroup memref of "
             << std::get<1>(pair);
  }
  return success();
}

LogicalResult BlockReduceOp::verifyRegions() {
  return verifySlotReduction(*this, getState().getTypes(), getSlots(),
                             getIdentity(), getCombiner(), /*fixed=*/false);
}

/// The two mbarriers of cluster reductions (Note [Cluster reductions
/// through mbarriers]): a static workgroup memref<2xi64>.
static LogicalResult verifyClusterBarriers(Operation *op, Value barriers) {
  auto type = cast<MemRefType>(barriers.getType());
  auto space =
      dyn_cast_if_present<gpu::AddressSpaceAttr>(type.getMemorySpace());
  if (!type.hasStaticShape() || type.getRank() != 1 ||
      type.getNumElements() != 2 || !type.getElementType().isInteger(64) ||
      !space || space.getValue() != gpu::AddressSpace::Workgroup)
    return op->emitOpError()
           << "needs two mbarriers, a workgroup memref<2xi64>, got " << type;
  return success();
}

LogicalResult
ClusterReduceOp::inferReturnTypes(MLIRContext *, std::optional<Location>,
                                  Adaptor adaptor,
                                  SmallVectorImpl<Type> &inferred) {
  llvm::append_range(inferred, adaptor.getState().getTypes());
  return success();
}

/// Each component moves through a slot buffer in shared memory (read by the
/// other blocks with ld.shared::cluster, or sent to them with st.async):
/// 16- to 64-bit integers and floats; 32- or 64-bit through mbarriers.
LogicalResult ClusterReduceOp::verifyRegions() {
  if (failed(verifySlotReduction(*this, getState().getTypes(), getSlots(),
                                 getIdentity(), getCombiner(), /*fixed=*/true)))
    return failure();
  if (static_cast<bool>(getBarriers()) != static_cast<bool>(getRound()))
    return emitOpError("needs both barriers and a round, or neither");
  if (!getBarriers())
    return success();
  // Note [Cluster reductions through mbarriers]: two sets of slots, two
  // mbarriers.
  if (failed(verifyClusterBarriers(*this, getBarriers())))
    return failure();
  for (auto [i, slots] : llvm::enumerate(getSlots())) {
    auto type = cast<MemRefType>(slots.getType());
    if (type.getNumElements() < 2 || type.getNumElements() % 2 != 0)
      return emitOpError() << "with barriers needs an even number of elements "
                              "(two sets of slots) in every slot buffer; slot "
                              "buffer "
                           << i << " has type " << type;
    unsigned bits = type.getElementTypeBitWidth();
    if (bits != 32 && bits != 64)
      return emitOpError() << "with barriers sends 32- or 64-bit components "
                              "(st.async); slot buffer "
                           << i << " has type " << type;
  }
  return success();
}

LogicalResult ClusterReduceInitOp::verify() {
  if (getBarriers().empty())
    return emitOpError("needs at least one barrier buffer");
  for (Value barriers : getBarriers())
    if (failed(verifyClusterBarriers(*this, barriers)))
      return failure();
  return success();
}

/// The arrival counter's buffers: a one-element workgroup flag, and the
/// counters in global memory.
static LogicalResult verifyArrival(Operation *op, Value flagValue,
                                   Value countersValue) {
  auto flag = cast<MemRefType>(flagValue.getType());
  auto space =
      dyn_cast_if_present<gpu::AddressSpaceAttr>(flag.getMemorySpace());
  if (!flag.hasStaticShape() || flag.getNumElements() != 1 || !space ||
      space.getValue() != gpu::AddressSpace::Workgroup)
    return op->emitOpError() << "needs a one-element workgroup memref as its "
                                "flag, got "
                             << flag;
  auto counters = cast<MemRefType>(countersValue.getType());
  if (isa_and_present<gpu::AddressSpaceAttr>(counters.getMemorySpace()))
    return op->emitOpError()
           << "needs its counters in global memory, got " << counters;
  return success();
}

LogicalResult GridArriveOp::verify() {
  return verifyArrival(*this, getFlag(), getCounters());
}

LogicalResult GridReduceOp::verifyRegions() {
  TypeRange state = getState().getTypes();
  if (state.empty())
    return emitOpError("needs a state of at least one component");
  if (failed(verifyArrival(*this, getFlag(), getCounters())))
    return failure();
  if (getWorkspaces().size() != state.size())
    return emitOpError() << "needs one workspace per state component ("
                         << state.size() << "), got " << getWorkspaces().size();
  for (auto [i, pair] : llvm::enumerate(llvm::zip(getWorkspaces(), state))) {
    auto workspace = cast<MemRefType>(std::get<0>(pair).getType());
    Type type = std::get<1>(pair);
    Type element = type;
    if (auto vector = dyn_cast<VectorType>(type))
      element = vector.getRank() == 1 ? vector.getElementType() : Type();
    if (!element || !isa<IntegerType, FloatType>(element))
      return emitOpError() << "state component " << i << " has type " << type
                           << "; expected an integer, a float or a 1-d "
                              "vector of them";
    if (workspace.getRank() != 1 || workspace.getElementType() != element ||
        isa_and_present<gpu::AddressSpaceAttr>(workspace.getMemorySpace()))
      return emitOpError() << "workspace " << i << " has type " << workspace
                           << "; expected a 1-d global memref of " << element;
  }
  SmallVector<Type> pairs(state.begin(), state.end());
  pairs.append(state.begin(), state.end());
  if (failed(verifyStateRegion(*this, getCombiner(), "combiner", pairs, state)))
    return failure();
  if (failed(verifyStateRegion(*this, getIdentity(), "identity", {}, state)))
    return failure();
  return verifyStateRegion(*this, getLast(), "last", state, {});
}

/// A staged value: an integer or float of whole bytes, or a vector of them
/// (the access's size, and so its alignment, is the value's size).
static LogicalResult verifyStagedType(Operation *op, Type type) {
  if (!op->getParentOfType<gpu::GPUModuleOp>())
    return op->emitOpError(
        "must be inside a gpu.module: it addresses the module's dynamic "
        "shared memory");
  Type element = type;
  if (auto vector = dyn_cast<VectorType>(type)) {
    if (vector.getRank() != 1 || vector.isScalable())
      return op->emitOpError()
             << "stages a fixed 1-d vector or a scalar, got " << type;
    element = vector.getElementType();
  }
  if (!isa<IntegerType, FloatType>(element) ||
      element.getIntOrFloatBitWidth() % 8 != 0)
    return op->emitOpError()
           << "stages integers or floats of whole bytes, got " << type;
  return success();
}

LogicalResult StageStoreOp::verify() {
  return verifyStagedType(*this, getValue().getType());
}

LogicalResult StageLoadOp::verify() {
  return verifyStagedType(*this, getResult().getType());
}

/// What fusion.stage_copy and fusion.stage_bulk_copy ask of their place and
/// source: inside a gpu.module (they address its dynamic shared memory), a
/// memref of global memory (no memory space, or #gpu.address_space<global>)
/// of integers or floats of whole bytes.
static LogicalResult verifyStageCopySource(Operation *op, Value source) {
  if (!op->getParentOfType<gpu::GPUModuleOp>())
    return op->emitOpError("must be inside a gpu.module: it addresses the "
                           "module's dynamic shared memory");
  auto type = cast<MemRefType>(source.getType());
  if (auto space =
          dyn_cast_or_null<gpu::AddressSpaceAttr>(type.getMemorySpace());
      (type.getMemorySpace() && !space) ||
      (space && space.getValue() != gpu::AddressSpace::Global))
    return op->emitOpError() << "copies from global memory, got " << type;
  Type element = type.getElementType();
  if (!isa<IntegerType, FloatType>(element) ||
      element.getIntOrFloatBitWidth() % 8 != 0)
    return op->emitOpError()
           << "copies integers or floats of whole bytes, got " << element;
  return success();
}

LogicalResult StageCopyOp::verify() {
  if (failed(verifyStageCopySource(*this, getSource())))
    return failure();
  Type element = cast<MemRefType>(getSource().getType()).getElementType();
  int64_t bytes = getBytes();
  if (bytes != 4 && bytes != 8 && (bytes <= 0 || bytes % 16 != 0))
    return emitOpError() << "copies 4, 8 or a multiple of 16 bytes, got "
                         << bytes;
  if (bytes % (element.getIntOrFloatBitWidth() / 8) != 0)
    return emitOpError() << "copies whole elements: " << bytes << " bytes of "
                         << element;
  return success();
}

//===----------------------------------------------------------------------===//
// Bulk copies and mbarriers (Note [Bulk copies] in FusionDeviceOps.td).
//===----------------------------------------------------------------------===//

static bool inWorkgroupMemory(MemRefType type) {
  auto space = dyn_cast_or_null<gpu::AddressSpaceAttr>(type.getMemorySpace());
  return space && space.getValue() == gpu::AddressSpace::Workgroup;
}

/// Barriers: a static 1-d workgroup memref of i64 (one slot per barrier).
static LogicalResult verifyBarriers(Operation *op, Value barriers) {
  auto type = cast<MemRefType>(barriers.getType());
  if (type.getRank() != 1 || !type.hasStaticShape() ||
      !type.getElementType().isInteger(64) || !inWorkgroupMemory(type) ||
      !type.getLayout().isIdentity())
    return op->emitOpError()
           << "takes its mbarriers as a static 1-d memref of i64 in "
              "workgroup memory, got "
           << type;
  return success();
}

/// A tensor map is reached through a generic pointer.
static LogicalResult verifyTensorMap(Operation *op, Value map) {
  auto ptr = dyn_cast<LLVM::LLVMPointerType>(map.getType());
  if (!ptr || ptr.getAddressSpace() != 0)
    return op->emitOpError()
           << "takes the tensor map as a generic !llvm.ptr, got "
           << map.getType();
  return success();
}

/// A bulk copy's tile: a static, contiguous workgroup memref of 1 to 5 dims,
/// one coordinate per dim, each dim at most 256 elements, the innermost
/// one a multiple of 16 bytes (the copy engine's box rules).
static LogicalResult verifyTile(Operation *op, Value tile,
                                ValueRange coordinates) {
  auto type = cast<MemRefType>(tile.getType());
  if (!inWorkgroupMemory(type))
    return op->emitOpError() << "copies to or from a tile in workgroup memory, "
                                "got "
                             << type;
  if (!type.hasStaticShape() || !type.getLayout().isIdentity())
    return op->emitOpError()
           << "needs a tile of static shape and identity layout (the box), "
              "got "
           << type;
  int64_t rank = type.getRank();
  if (rank < 1 || rank > 5)
    return op->emitOpError() << "copies boxes of 1 to 5 dims, got " << rank;
  if (static_cast<int64_t>(coordinates.size()) != rank)
    return op->emitOpError()
           << "has " << coordinates.size() << " coordinates for a tile of "
           << rank << " dims";
  Type element = type.getElementType();
  unsigned bits = isa<IntegerType, FloatType>(element)
                      ? element.getIntOrFloatBitWidth()
                      : 0;
  if (bits != 8 && bits != 16 && bits != 32 && bits != 64)
    return op->emitOpError()
           << "copies elements of 1, 2, 4 or 8 bytes, got " << element;
  for (int64_t d = 0; d < rank; ++d)
    if (type.getDimSize(d) > 256)
      return op->emitOpError()
             << "box dim " << d << " has " << type.getDimSize(d)
             << " elements, more than 256";
  int64_t innerBytes = type.getDimSize(rank - 1) * bits / 8;
  if (innerBytes % 16 != 0)
    return op->emitOpError()
           << "needs the box's innermost dim to be a multiple of 16 bytes, "
              "got "
           << innerBytes;
  // The copy engine reads and writes tiles at 128-byte aligned shared
  // addresses; a workgroup attribution says its alignment with llvm.align.
  if (auto arg = dyn_cast<BlockArgument>(tile))
    if (auto func = dyn_cast<gpu::GPUFuncOp>(arg.getOwner()->getParentOp()))
      if (llvm::is_contained(func.getWorkgroupAttributions(), arg)) {
        unsigned index = arg.getArgNumber() - func.getNumArguments();
        auto align = dyn_cast_or_null<IntegerAttr>(
            func.getWorkgroupAttributionAttr(index, "llvm.align"));
        if (!align || align.getInt() < 128 || align.getInt() % 128 != 0)
          return op->emitOpError()
                 << "needs its tile 128-byte aligned: give the workgroup "
                    "attribution {llvm.align = 128 : i64}";
      }
  return success();
}

LogicalResult MBarrierInitOp::verify() {
  return verifyBarriers(*this, getBarriers());
}

LogicalResult MBarrierArriveExpectTxOp::verify() {
  return verifyBarriers(*this, getBarriers());
}

LogicalResult MBarrierWaitOp::verify() {
  return verifyBarriers(*this, getBarriers());
}

LogicalResult StageBulkCopyOp::verify() {
  if (failed(verifyStageCopySource(*this, getSource())))
    return failure();
  if (auto bytes = getConstantIntValue(getBytes());
      bytes && (*bytes <= 0 || *bytes % 16 != 0))
    return emitOpError() << "copies a positive multiple of 16 bytes, got "
                         << *bytes;
  return verifyBarriers(*this, getBarriers());
}

LogicalResult BulkTensorLoadOp::verify() {
  if (failed(verifyTensorMap(*this, getTensorMap())) ||
      failed(verifyBarriers(*this, getBarriers())))
    return failure();
  return verifyTile(*this, getTile(), getCoordinates());
}

LogicalResult BulkTensorStoreOp::verify() {
  if (failed(verifyTensorMap(*this, getTensorMap())))
    return failure();
  return verifyTile(*this, getTile(), getCoordinates());
}

LogicalResult PrefetchTensorMapOp::verify() {
  return verifyTensorMap(*this, getTensorMap());
}
