//===- fusion-interpret.cpp - run a fusion on the CPU ---------------------===//
// Runs one fusion of a .mlir file through the reference interpreter on given
// or seeded random inputs, and prints the outputs or writes them as .npy.
//===----------------------------------------------------------------------===//

#include "fusion/Dialect/Fusion/Transforms/Passes.h"
#include "fusion/Interpreter/Interpreter.h"
#include "fusion/Interpreter/Npy.h"
#include "fusion/Interpreter/Philox.h"
#include "fusion/Registration.h"
#include "fusion/Support/ToolLimits.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/WithColor.h"

#include <cmath>

using namespace mlir;
using namespace mlir::fusion;
using namespace mlir::fusion::interp;

namespace cl = llvm::cl;

static cl::OptionCategory category("fusion-interpret options");

static cl::opt<std::string> inputFile(cl::Positional,
                                      cl::desc("<input .mlir file>"),
                                      cl::init("-"), cl::cat(category));
static cl::opt<std::string>
    fusionName("fusion",
               cl::desc("The fusion to run (needed if the file has "
                        "more than one)"),
               cl::value_desc("name"), cl::cat(category));
static cl::list<std::string> inputSpecs(
    "input",
    cl::desc("One per fusion input, in order: a .npy file, or "
             "[DIMSx][DTYPE][=VALUES] where VALUES is a number (fill), "
             "'iota', or a comma list in brackets; without VALUES the input "
             "is random (see --seed). An empty shape part means the "
             "signature's static shape; scalars take a plain number"),
    cl::value_desc("spec"), cl::cat(category));
static cl::opt<uint64_t> seed("seed",
                              cl::desc("Seed of the random inputs (default 0)"),
                              cl::init(0), cl::cat(category));
static cl::opt<std::string>
    outputDir("output-dir",
              cl::desc("Write the outputs as out0.npy, out1.npy, ... here"),
              cl::value_desc("dir"), cl::cat(category));
static cl::opt<bool> print("print", cl::desc("Print the outputs"),
                           cl::cat(category));
static cl::opt<bool> printExact(
    "print-exact",
    cl::desc("Print floats exactly (bf16 0.30078125, not 0.3, the shortest "
             "decimal that reads back as the same bf16)"),
    cl::cat(category));
static cl::opt<bool> printInputs("print-inputs",
                                 cl::desc("Print the inputs first"),
                                 cl::cat(category));
static cl::opt<int64_t> printLimit(
    "print-limit",
    cl::desc("Summarize tensors with more elements than this (default 1000)"),
    cl::init(1000), cl::cat(category));
static cl::opt<bool> decompose(
    "decompose",
    cl::desc("Run --fusion-decompose before interpreting (composites become "
             "primitives)"),
    cl::cat(category));

namespace {

llvm::Error makeError(const Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

/// Random values of input `k`: floats uniform in [-1, 1), integers in
/// [-10, 10], bools fair; from Philox with key `seed` and offset `k`, so
/// inputs don't change when other inputs are added.
void fillRandom(HostTensor &t, uint64_t k) {
  for (int64_t i = 0, n = t.numElements(); i < n; ++i) {
    uint32_t word = philoxBlock(seed, k, i)[i % 4];
    if (t.dtype() == DType::I1)
      t.storeInt(i, word >> 31);
    else if (isFloatDType(t.dtype()))
      t.storeDouble(i, std::ldexp(double(word >> 8), -23) - 1.0);
    else
      t.storeInt(i, int64_t(word % 21) - 10);
  }
}

/// Builds input `k` of type `type` from its spec.
llvm::Expected<HostValue> makeInput(StringRef spec, Type type, uint64_t k,
                                    StringRef who) {
  auto tensorType = dyn_cast<RankedTensorType>(type);
  Type element = getElementTypeOrSelf(type);
  std::optional<DType> expected = dtypeOf(element);
  bool isIndex = isa<IndexType>(type);

  if (spec.ends_with(".npy")) {
    auto t = readNpy(spec, expected);
    if (!t)
      return t.takeError();
    if (tensorType)
      return HostValue(*t);
    if (t->rank() != 0)
      return makeError(who + ": a scalar needs a rank-0 .npy, got " +
                       t->typeString());
    if (isIndex)
      return HostValue::index(t->getInt(int64_t(0)));
    return isFloatDType(t->dtype())
               ? HostValue::scalar(t->dtype(), t->getDouble(int64_t(0)))
               : HostValue::intScalar(t->dtype(), t->getInt(int64_t(0)));
  }

  auto [shapePart, valuePart] = spec.split('=');
  bool hasValues = spec.contains('=');
  // A scalar input takes a plain number.
  if (!tensorType && !hasValues && interp::parseScalarText(spec)) {
    valuePart = spec;
    shapePart = "";
    hasValues = true;
  }

  // The shape part: dims separated by 'x', optionally ending in a dtype.
  SmallVector<int64_t> sizes;
  std::optional<DType> dtype;
  bool fromSignature = shapePart.empty();
  if (!shapePart.empty()) {
    SmallVector<StringRef> tokens;
    shapePart.split(tokens, 'x');
    for (auto [i, token] : llvm::enumerate(tokens)) {
      int64_t size;
      if (!token.getAsInteger(10, size) && size >= 0) {
        sizes.push_back(size);
        continue;
      }
      if (i + 1 == tokens.size() && (dtype = parseDType(token)))
        continue;
      return makeError(who + ": cannot parse '" + spec +
                       "': expected DIMSxDTYPE like 2x3xf32, a .npy file, "
                       "or =VALUES");
    }
  }
  if (fromSignature && tensorType) {
    if (!tensorType.hasStaticShape()) {
      // Suggest a spec of the right rank, with 2 for every dynamic dim.
      std::string example, type;
      for (int64_t size : tensorType.getShape())
        example += std::to_string(size < 0 ? 2 : size) + "x";
      example += expected ? dtypeName(*expected).str() : "f32";
      llvm::raw_string_ostream(type) << tensorType;
      return makeError(
          who + ": " + type +
          " has dynamic dims; give the shape, e.g. --input=" + example);
    }
    sizes.assign(tensorType.getShape().begin(), tensorType.getShape().end());
  }
  if (!dtype)
    dtype = isIndex ? std::optional(DType::I64) : expected;
  if (!dtype)
    return makeError(who + ": give a dtype for this input");
  if (!tensorType && !sizes.empty())
    return makeError(who + ": is a scalar but the spec has dims");

  int64_t count = 1;
  bool tooLarge = false;
  for (int64_t size : sizes)
    tooLarge |= __builtin_mul_overflow(count, size, &count) ||
                count > (int64_t(1) << 32);
  if (tooLarge && !llvm::is_contained(sizes, 0))
    return makeError(who + ": '" + spec + "' has more than 2^32 elements");
  HostTensor t(*dtype, sizes);
  if (!hasValues) {
    fillRandom(t, k);
  } else if (valuePart.trim() == "iota") {
    for (int64_t i = 0, n = t.numElements(); i < n; ++i)
      t.storeInt(i, i);
  } else {
    StringRef list = valuePart.trim();
    bool bracketed = list.consume_front("[");
    if (bracketed && !list.consume_back("]"))
      return makeError(who + ": unbalanced '[' in '" + spec + "'");
    SmallVector<StringRef> items;
    list.split(items, ',', -1, /*KeepEmpty=*/false);
    SmallVector<double> values;
    for (StringRef item : items) {
      auto v = interp::parseScalarText(item);
      if (!v)
        return makeError(who + ": '" + item.trim() + "' is not a number");
      values.push_back(*v);
    }
    int64_t n = t.numElements();
    if (values.size() == 1 && !bracketed) {
      values.assign(n, values[0]);
    } else if (int64_t(values.size()) != n) {
      return makeError(who + ": " + Twine(values.size()) +
                       " values for a shape of " + Twine(n) + " elements");
    }
    for (int64_t i = 0; i < n; ++i) {
      // Integers go through int64 so that large values stay exact.
      if (isFloatDType(*dtype))
        t.storeDouble(i, values[i]);
      else
        t.storeInt(i, floatToInt(values[i], DType::I64));
    }
  }
  if (tensorType)
    return HostValue(t);
  if (isIndex)
    return HostValue::index(t.getInt(int64_t(0)));
  return isFloatDType(*dtype)
             ? HostValue::scalar(*dtype, t.getDouble(int64_t(0)))
             : HostValue::intScalar(*dtype, t.getInt(int64_t(0)));
}

void printValue(StringRef name, const HostTensor &t) {
  llvm::outs() << name << ": " << t.typeString() << "\n";
  PrintOptions options;
  options.summarizeAbove = printLimit;
  options.exact = printExact;
  printTensor(llvm::outs(), t, options);
  llvm::outs() << "\n";
}

llvm::Error run(MLIRContext &context) {
  std::string errorMessage;
  auto file = openInputFile(inputFile, &errorMessage);
  if (!file)
    return makeError(errorMessage);
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(std::move(file), llvm::SMLoc());
  if (!fusion::checkInput(sourceMgr))
    return makeError("cannot parse '" + inputFile + "'");
  // Parse errors print through the source manager with the offending line.
  SourceMgrDiagnosticHandler diagnostics(sourceMgr, &context, llvm::errs());
  OwningOpRef<ModuleOp> module = parseSourceFile<ModuleOp>(sourceMgr, &context);
  if (!module)
    return makeError("cannot parse '" + inputFile + "'");

  if (decompose) {
    PassManager pm(&context);
    pm.nest<FusionOp>().addPass(createFusionDecompose());
    if (failed(pm.run(*module)))
      return makeError("--fusion-decompose failed");
  }

  SmallVector<FusionOp> fusions(module->getOps<FusionOp>());
  FusionOp fusion;
  if (!fusionName.empty()) {
    for (FusionOp f : fusions)
      if (f.getSymName() == fusionName)
        fusion = f;
    if (!fusion)
      return makeError("no fusion named @" + fusionName + " in '" + inputFile +
                       "'");
  } else if (fusions.size() == 1) {
    fusion = fusions.front();
  } else if (fusions.empty()) {
    return makeError("'" + inputFile + "' has no fusion.fusion");
  } else {
    std::string names;
    for (FusionOp f : fusions)
      names += " @" + f.getSymName().str();
    return makeError("'" + inputFile + "' has " + Twine(fusions.size()) +
                     " fusions (" + StringRef(names).ltrim() +
                     "); pick one with --fusion=NAME");
  }

  ArrayRef<Type> types = fusion.getArgumentTypes();
  SmallVector<std::string> specs(inputSpecs.begin(), inputSpecs.end());
  // With no --input at all, every input comes from its signature.
  if (specs.empty())
    specs.assign(types.size(), "");
  if (specs.size() != types.size())
    return makeError("fusion @" + fusion.getSymName() + " has " +
                     Twine(types.size()) + " inputs but " +
                     Twine(specs.size()) + " --input options were given");
  SmallVector<HostValue> inputs;
  for (auto [k, spec] : llvm::enumerate(specs)) {
    std::string who =
        "input " + std::to_string(k) + " (" + fusion.getInputName(k) + ")";
    auto value = makeInput(spec, types[k], k, who);
    if (!value)
      return value.takeError();
    if (printInputs)
      printValue(fusion.getInputName(k), value->tensor());
    inputs.push_back(std::move(*value));
  }

  auto outputs = interpret(fusion, inputs);
  if (!outputs)
    return outputs.takeError();

  if (!outputDir.empty()) {
    if (std::error_code ec = llvm::sys::fs::create_directories(outputDir))
      return makeError("cannot create '" + outputDir + "': " + ec.message());
    for (auto [k, t] : llvm::enumerate(*outputs)) {
      SmallString<128> path(outputDir);
      llvm::sys::path::append(path, "out" + std::to_string(k) + ".npy");
      if (auto err = writeNpy(path, t))
        return err;
    }
  }
  for (auto [k, t] : llvm::enumerate(*outputs)) {
    std::string name = "out" + std::to_string(k);
    if (print)
      printValue(name, t);
    else if (outputDir.empty())
      llvm::outs() << name << ": " << t.typeString() << "\n";
  }
  return llvm::Error::success();
}

} // namespace

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  mlir::fusion::addToolVersionPrinter();
  cl::HideUnrelatedOptions(category);
  cl::ParseCommandLineOptions(
      argc, argv,
      "fusion-interpret: run a fusion on the CPU with the reference "
      "interpreter\n\n"
      "  fusion-interpret f.mlir --input=4x8xf32 --input=8xf32=1 --print\n"
      "  fusion-interpret f.mlir --fusion=softmax --input=x.npy "
      "--output-dir=out\n");
  DialectRegistry registry;
  registerAllDialects(registry);
  MLIRContext context(registry);
  context.loadAllAvailableDialects();
  return fusion::runWithLargeStack([&] {
    if (auto err = run(context)) {
      llvm::WithColor::error(llvm::errs(), "fusion-interpret")
          << llvm::toString(std::move(err)) << "\n";
      return 1;
    }
    return 0;
  });
}
