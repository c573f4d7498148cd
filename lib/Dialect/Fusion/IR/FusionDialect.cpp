//===- FusionDialect.cpp - the fusion dialect -----------------------------===//
// Registers the ops and attributes of the fusion dialect.
//===----------------------------------------------------------------------===//

#include "fusion/Dialect/Fusion/IR/FusionOps.h"
#include "fusion/Dialect/Fusion/IR/ScheduleLimits.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::fusion;

#include "fusion/Dialect/Fusion/IR/FusionDialect.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "fusion/Dialect/Fusion/IR/FusionAttrs.cpp.inc"

// Note [Schedule ranges]
// A schedule is data a user can write by hand, so its numbers are checked
// against what the lowering can honour before any pass sees them: a vector
// width the 16-byte accesses allow (a power of two up to 16 elements), an
// unroll or items count that keeps a thread's unrolled body small (at most
// 16), a block CUDA can launch (1 to 1024 threads; 1 to 512 for a row
// kernel, whose variants are compiled for at most kMaxRowBlockThreads) and a
// grid bound that fits the launch's 32-bit grid dims. Outside them the lowering
// would unroll without bound (vector = 2^31 - 1 hangs the compiler), divide by
// zero (unroll = 0) or hand NVVM a block size it refuses.
namespace {
constexpr int64_t kMaxScheduleVector = 16;
constexpr int64_t kMaxScheduleUnroll = 16;
constexpr int64_t kMaxBlockThreads = 1024;
constexpr int64_t kMaxGridBlocks = 2147483647;

LogicalResult checkRange(function_ref<InFlightDiagnostic()> emitError,
                         StringRef schedule, StringRef name, int64_t value,
                         int64_t lo, int64_t hi) {
  if (value >= lo && value <= hi)
    return success();
  return emitError() << "#fusion." << schedule << " " << name << " = " << value
                     << " is out of range: expected " << lo << " to " << hi;
}

LogicalResult checkVector(function_ref<InFlightDiagnostic()> emitError,
                          StringRef schedule, int64_t vector) {
  if (failed(checkRange(emitError, schedule, "vector", vector, 1,
                        kMaxScheduleVector)))
    return failure();
  if (!llvm::isPowerOf2_64(vector))
    return emitError() << "#fusion." << schedule << " vector = " << vector
                       << " is not a power of two";
  return success();
}
/// The block size and grid bound of the pointwise and inner schedules.
LogicalResult checkBlockAndGrid(function_ref<InFlightDiagnostic()> emitError,
                                StringRef schedule, int64_t block,
                                int64_t maxGrid,
                                int64_t maxBlock = kMaxBlockThreads) {
  if (failed(checkRange(emitError, schedule, "block", block, 1, maxBlock)))
    return failure();
  return checkRange(emitError, schedule, "max_grid", maxGrid, 1,
                    kMaxGridBlocks);
}
} // namespace

LogicalResult
PointwiseScheduleAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                              int64_t vector, int64_t unroll, int64_t block,
                              int64_t maxGrid, bool, bool) {
  StringRef name = "pointwise";
  return success(succeeded(checkVector(emitError, name, vector)) &&
                 succeeded(checkRange(emitError, name, "unroll", unroll, 1,
                                      kMaxScheduleUnroll)) &&
                 succeeded(checkBlockAndGrid(emitError, name, block, maxGrid)));
}

LogicalResult InnerReductionScheduleAttr::verify(
    function_ref<InFlightDiagnostic()> emitError, int64_t vector, int64_t items,
    int64_t block, int64_t maxGrid, bool, bool, bool stageRow, int64_t cluster,
    bool asyncStage, int64_t longCluster, bool, bool bulkStage, int64_t rowGrid,
    bool longAsync, bool) {
  StringRef name = "inner_reduction";
  if (failed(checkVector(emitError, name, vector)) ||
      failed(
          checkRange(emitError, name, "items", items, 0, kMaxScheduleUnroll)) ||
      failed(checkBlockAndGrid(emitError, name, block, maxGrid,
                               kMaxRowBlockThreads)) ||
      failed(
          checkRange(emitError, name, "row_grid", rowGrid, 0, kMaxGridBlocks)))
    return failure();
  // Portable cluster sizes only: gpu.cluster_dim_blocks assumes at most 8.
  if (cluster != 0 && cluster != 2 && cluster != 4 && cluster != 8)
    return emitError() << "#fusion." << name << " cluster = " << cluster
                       << " is not a cluster size: expected 0 (none), 2, 4 "
                          "or 8";
  if (longCluster != 0 && longCluster != 2 && longCluster != 4 &&
      longCluster != 8)
    return emitError() << "#fusion." << name
                       << " long_cluster = " << longCluster
                       << " is not a cluster size: expected 0 (none), 2, 4 "
                          "or 8";
  if (asyncStage && !stageRow)
    return emitError() << "#fusion." << name
                       << " async_stage needs stage_row: it copies the next "
                          "row into the staged row's second buffer";
  if (bulkStage && !asyncStage)
    return emitError() << "#fusion." << name
                       << " bulk_stage needs async_stage: it is a way to copy "
                          "the next row into the second buffer";
  if (longAsync && !asyncStage)
    return emitError() << "#fusion." << name
                       << " long_async needs async_stage: it lets the "
                          "long-row variant copy its next row the same way";
  return success();
}

LogicalResult
OuterReductionScheduleAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                   int64_t vector, int64_t unroll,
                                   int64_t targetBlocks, bool, bool) {
  StringRef name = "outer_reduction";
  return success(succeeded(checkVector(emitError, name, vector)) &&
                 succeeded(checkRange(emitError, name, "unroll", unroll, 1,
                                      kMaxScheduleUnroll)) &&
                 succeeded(checkRange(emitError, name, "target_blocks",
                                      targetBlocks, 1, kMaxGridBlocks)));
}

void FusionDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "fusion/Dialect/Fusion/IR/FusionOps.cpp.inc"
      >();
  registerAttributes();
}

void FusionDialect::registerAttributes() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "fusion/Dialect/Fusion/IR/FusionAttrs.cpp.inc"
      >();
}
