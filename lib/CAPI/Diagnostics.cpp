//===- Diagnostics.cpp - diagnostics as data, for the C APIs --------------===//

#include "Diagnostics.h"

#include "fusion/Support/ToolLimits.h"
#include "mlir/CAPI/Support.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Location.h"

using namespace mlir;
using namespace mlir::fusion::capi;

static FusionDiagnosticSeverity severityOf(DiagnosticSeverity severity) {
  switch (severity) {
  case DiagnosticSeverity::Error:
    return FusionDiagnosticError;
  case DiagnosticSeverity::Warning:
    return FusionDiagnosticWarning;
  case DiagnosticSeverity::Note:
    return FusionDiagnosticNote;
  case DiagnosticSeverity::Remark:
    return FusionDiagnosticRemark;
  }
  return FusionDiagnosticError;
}

void mlir::fusion::capi::record(std::vector<RecordedDiagnostic> &into,
                                FusionDiagnosticSeverity severity,
                                std::string message, Location loc) {
  RecordedDiagnostic d;
  d.severity = severity;
  d.message = std::move(message);
  loc->walk([&](Location inner) {
    if (auto file = dyn_cast<FileLineColLoc>(inner)) {
      d.file = file.getFilename().str();
      d.line = file.getLine();
      d.column = file.getColumn();
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  into.push_back(std::move(d));
}

DiagnosticCollector::DiagnosticCollector(MLIRContext *ctx,
                                         std::vector<RecordedDiagnostic> &into)
    : handler(ctx, [&into](Diagnostic &diag) {
        record(into, severityOf(diag.getSeverity()), diag.str(),
               diag.getLocation());
        for (Diagnostic &note : diag.getNotes())
          record(into, FusionDiagnosticNote, note.str(), note.getLocation());
        return success();
      }) {}

FusionDiagnostic
mlir::fusion::capi::viewOf(const std::vector<RecordedDiagnostic> &all,
                           intptr_t index) {
  if (index < 0 || static_cast<size_t>(index) >= all.size())
    return {FusionDiagnosticError, mlirStringRefCreate(nullptr, 0),
            mlirStringRefCreate(nullptr, 0), 0, 0};
  const RecordedDiagnostic &d = all[static_cast<size_t>(index)];
  return {d.severity, mlirStringRefCreate(d.message.data(), d.message.size()),
          mlirStringRefCreate(d.file.data(), d.file.size()), d.line, d.column};
}

LogicalResult mlir::fusion::capi::refuseBeforeParsing(MLIRContext *ctx,
                                                      StringRef source,
                                                      StringRef sourceName) {
  std::optional<InputRefusal> refusal = findRefusal(source);
  if (!refusal)
    return success();
  auto [line, column] = lineAndColumn(source, refusal->offset);
  emitError(FileLineColLoc::get(ctx, sourceName, line, column))
      << refusal->message;
  return failure();
}
