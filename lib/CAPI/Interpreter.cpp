//===- Interpreter.cpp - the interpreter's C API (fusion-c/Interpreter.h) -===//
// Parses the source, picks the fusion, copies the inputs into host tensors,
// runs interp::interpret and keeps the outputs (contiguous) and every
// diagnostic until fusionInterpretationDestroy. An interpreter error (an
// llvm::Error naming the op at fault) becomes an error diagnostic at the
// fusion's location.
//===----------------------------------------------------------------------===//

#include "fusion-c/Interpreter.h"

#include "Diagnostics.h"

#include "fusion/Dialect/Fusion/Transforms/Passes.h"
#include "fusion/Interpreter/Interpreter.h"
#include "fusion/Registration.h"
#include "fusion/Target/ModuleWriter.h"

#include "mlir/CAPI/IR.h"
#include "mlir/CAPI/Support.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"

#include <cstring>
#include <string>
#include <vector>

using namespace mlir;
using namespace mlir::fusion;

namespace {

struct Output {
  interp::HostTensor tensor;
  std::string dtype;
  std::vector<int64_t> sizes;
};

struct Interpretation {
  bool succeeded = false;
  std::vector<Output> outputs;
  std::vector<capi::RecordedDiagnostic> diagnostics;
};

Interpretation *unwrapInterpretation(FusionInterpretation r) {
  return static_cast<Interpretation *>(r.ptr);
}

/// The host value of input `k`, or an error naming it.
llvm::Expected<interp::HostValue> toHostValue(const FusionHostValue &v,
                                              const std::string &who) {
  if (v.kind == FusionHostIndex)
    return interp::HostValue::index(v.intValue);
  StringRef name = unwrap(v.dtype);
  std::optional<interp::DType> dtype = interp::parseDType(name);
  if (!dtype)
    return llvm::createStringError(who + ": unknown dtype '" + name.str() +
                                   "'");
  if (v.kind == FusionHostScalar)
    return interp::isFloatDType(*dtype)
               ? interp::HostValue::scalar(*dtype, v.floatValue)
               : interp::HostValue::intScalar(*dtype, v.intValue);
  if (v.kind != FusionHostTensor)
    return llvm::createStringError(who + ": unknown kind " +
                                   std::to_string(static_cast<int>(v.kind)));
  if (v.rank < 0 || (v.rank > 0 && !v.sizes))
    return llvm::createStringError(who + ": rank " + std::to_string(v.rank) +
                                   " without sizes");
  ArrayRef<int64_t> sizes(v.sizes, static_cast<size_t>(v.rank));
  int64_t elements = 1;
  for (int64_t s : sizes) {
    if (s < 0)
      return llvm::createStringError(who + ": negative size " +
                                     std::to_string(s));
    if (s != 0 && elements > INT64_MAX / s)
      return llvm::createStringError(who + ": too many elements");
    elements *= s;
  }
  if (elements > 0 && !v.data)
    return llvm::createStringError(who + ": no data");
  interp::HostTensor t(*dtype, sizes);
  if (elements > 0)
    std::memcpy(t.storage(), v.data,
                static_cast<size_t>(elements * interp::dtypeBytes(*dtype)));
  return interp::HostValue(std::move(t));
}

void run(Interpretation &r, ModuleOp module, StringRef fusionName,
         const FusionHostValue *inputs, intptr_t numInputs, bool decompose) {
  if (decompose) {
    PassManager pm(module.getContext());
    pm.nest<FusionOp>().addPass(createFusionDecompose());
    if (failed(pm.run(module)))
      return;
  }
  FailureOr<FusionOp> fusion = selectFusion(module, fusionName);
  if (failed(fusion))
    return;
  if (numInputs < 0 || (numInputs > 0 && !inputs)) {
    mlir::emitError(fusion->getLoc(), "bad input list (")
        << numInputs << " inputs)";
    return;
  }
  std::vector<interp::HostValue> values;
  for (intptr_t k = 0; k < numInputs; ++k) {
    std::string who = "input " + std::to_string(k);
    if (static_cast<unsigned>(k) < fusion->getArgumentTypes().size())
      who += " (" + fusion->getInputName(static_cast<unsigned>(k)) + ")";
    auto value = toHostValue(inputs[k], who);
    if (!value) {
      mlir::emitError(fusion->getLoc(), llvm::toString(value.takeError()));
      return;
    }
    values.push_back(std::move(*value));
  }
  auto outputs = interp::interpret(*fusion, values);
  if (!outputs) {
    // The message names the op at fault and its location itself.
    mlir::emitError(UnknownLoc::get(module.getContext()),
                    llvm::toString(outputs.takeError()));
    return;
  }
  for (interp::HostTensor &t : *outputs) {
    Output out;
    out.dtype = interp::dtypeName(t.dtype()).str();
    out.sizes.assign(t.sizes().begin(), t.sizes().end());
    // interpret returns contiguous tensors; clone() makes sure of it.
    out.tensor = t.isContiguous() && t.offset() == 0 ? std::move(t) : t.clone();
    r.outputs.push_back(std::move(out));
  }
  r.succeeded = true;
}

} // namespace

FusionInterpretation fusionInterpretSource(MlirContext context,
                                           MlirStringRef source,
                                           MlirStringRef sourceName,
                                           MlirStringRef fusionName,
                                           const FusionHostValue *inputs,
                                           intptr_t numInputs, bool decompose) {
  auto *r = new Interpretation;
  MLIRContext *ctx = unwrap(context);
  DialectRegistry registry;
  registerAllDialects(registry);
  ctx->appendDialectRegistry(registry);
  capi::DiagnosticCollector collector(ctx, r->diagnostics);
  if (failed(
          capi::refuseBeforeParsing(ctx, unwrap(source), unwrap(sourceName))))
    return {r};
  ParserConfig config(ctx);
  OwningOpRef<ModuleOp> module =
      parseSourceString<ModuleOp>(unwrap(source), config, unwrap(sourceName));
  if (module)
    run(*r, *module, unwrap(fusionName), inputs, numInputs, decompose);
  return {r};
}

bool fusionInterpretationSucceeded(FusionInterpretation result) {
  return unwrapInterpretation(result)->succeeded;
}

intptr_t fusionInterpretationGetNumOutputs(FusionInterpretation result) {
  return static_cast<intptr_t>(unwrapInterpretation(result)->outputs.size());
}

FusionHostTensorView fusionInterpretationGetOutput(FusionInterpretation result,
                                                   intptr_t index) {
  auto &all = unwrapInterpretation(result)->outputs;
  if (index < 0 || static_cast<size_t>(index) >= all.size())
    return {mlirStringRefCreate(nullptr, 0), -1, nullptr, nullptr, 0};
  Output &o = all[static_cast<size_t>(index)];
  int64_t bytes = o.tensor.numElements() * interp::dtypeBytes(o.tensor.dtype());
  return {mlirStringRefCreate(o.dtype.data(), o.dtype.size()),
          static_cast<intptr_t>(o.sizes.size()), o.sizes.data(),
          o.tensor.storage(), static_cast<intptr_t>(bytes)};
}

intptr_t fusionInterpretationGetNumDiagnostics(FusionInterpretation result) {
  return static_cast<intptr_t>(
      unwrapInterpretation(result)->diagnostics.size());
}

FusionDiagnostic fusionInterpretationGetDiagnostic(FusionInterpretation result,
                                                   intptr_t index) {
  return capi::viewOf(unwrapInterpretation(result)->diagnostics, index);
}

void fusionInterpretationDestroy(FusionInterpretation result) {
  delete unwrapInterpretation(result);
}
