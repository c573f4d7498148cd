//===- Diagnostics.h - diagnostics as data, for the C APIs ------*- C++ -*-===//
// The C APIs (fusion-c/Fusion.h, fusion-c/Interpreter.h) return every
// diagnostic a call emitted, with its file location, as data that lives as
// long as the call's result.
//===----------------------------------------------------------------------===//
#ifndef FUSION_LIB_CAPI_DIAGNOSTICS_H
#define FUSION_LIB_CAPI_DIAGNOSTICS_H

#include "fusion-c/Fusion.h"

#include "mlir/IR/Diagnostics.h"

#include <string>
#include <vector>

namespace mlir::fusion::capi {

struct RecordedDiagnostic {
  FusionDiagnosticSeverity severity = FusionDiagnosticError;
  std::string message, file;
  unsigned line = 0, column = 0;
};

/// Records a diagnostic with the first file location `loc` holds (through
/// fused and named locations).
void record(std::vector<RecordedDiagnostic> &into, FusionDiagnosticSeverity,
            std::string message, Location loc);

/// Collects the context's diagnostics, and their notes, while it lives; the
/// context's other handlers see none of them.
class DiagnosticCollector {
public:
  DiagnosticCollector(MLIRContext *ctx, std::vector<RecordedDiagnostic> &into);

private:
  ScopedDiagnosticHandler handler;
};

/// Emits, on `ctx`, an error at the first problem of `source` that the
/// tools refuse before parsing (findRefusal, Note [Integer lists]: MLIR's
/// parser would crash on some of it), and fails; succeeds when `source` may
/// be parsed.
LogicalResult refuseBeforeParsing(MLIRContext *ctx, StringRef source,
                                  StringRef sourceName);

/// The C view of `all[index]`; an empty error when out of range.
FusionDiagnostic viewOf(const std::vector<RecordedDiagnostic> &all,
                        intptr_t index);

} // namespace mlir::fusion::capi

#endif // FUSION_LIB_CAPI_DIAGNOSTICS_H
