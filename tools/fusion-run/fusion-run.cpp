//===- fusion-run.cpp - run a fusion on the GPU, check it, time it --------===//
// Loads a module file or compiles a fusion from textual IR, makes seeded
// random inputs of the given shapes and layouts, runs the kernels through the
// Fusion runtime on poisoned outputs, compares them with the reference
// interpreter, and with --bench times them against the device's copy
// bandwidth and the raw launch floor. docs/fusion-run.md describes it.
//===----------------------------------------------------------------------===//

#include "Check.h"
#include "CompileFlags.h"
#include "CudaHarness.h"
#include "Inputs.h"

#include "fusion/Interpreter/Interpreter.h"
#include "fusion/Registration.h"
#include "fusion/Runtime/Executable.h"
#include "fusion/Support/ToolLimits.h"
#include "fusion/Target/CompileCache.h"
#include "fusion/Target/ModuleWriter.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <optional>

using namespace mlir;
using namespace fusion_run;
namespace rt = ::fusion::runtime;
namespace fc = mlir::fusion;
namespace cl = llvm::cl;

static cl::OptionCategory category("fusion-run options");

static cl::opt<std::string> inputFile(cl::Positional, cl::Required,
                                      cl::desc("<FILE.mlir | FILE.fusionmod>"),
                                      cl::cat(category));
static cl::opt<std::string>
    fusionName("fusion",
               cl::desc("The fusion to run (needed if the file has several)"),
               cl::value_desc("name"), cl::cat(category));
static cl::list<std::string> inputSpecs(
    "input",
    cl::desc("One per fusion input, in order: a shape like 8192x4096 (dtype "
             "from the signature), 8192x4096:bf16, or a number for a scalar "
             "input"),
    cl::value_desc("spec"), cl::cat(category));
static cl::list<std::string>
    layoutSpecs("layout",
                cl::desc("K:strided (rows padded by 3 elements) or "
                         "K:transposed (last two dims swapped in memory) for "
                         "input K"),
                cl::value_desc("K:layout"), cl::cat(category));
static cl::opt<bool>
    misalign("misalign", cl::desc("Offset every input pointer by one element"),
             cl::cat(category));
static cl::opt<uint64_t> seed("seed",
                              cl::desc("Seed of the random inputs (default 0)"),
                              cl::init(0), cl::cat(category));
static cl::opt<double>
    rtolOption("rtol",
               cl::desc("Relative tolerance for float outputs (default: by "
                        "dtype)"),
               cl::init(-1), cl::cat(category));
static cl::opt<double>
    atolOption("atol",
               cl::desc("Absolute tolerance for float outputs (default: by "
                        "dtype)"),
               cl::init(-1), cl::cat(category));
static cl::opt<bool> noCheck("no-check",
                             cl::desc("Skip the comparison with the reference"),
                             cl::cat(category));
static cl::opt<bool>
    fullCheck("full-check",
              cl::desc("Interpret and compare every element, even of "
                       "outputs above --sample-above elements"),
              cl::cat(category));
static cl::opt<int64_t>
    sampleAbove("sample-above",
                cl::desc("Outputs with more elements are checked on a sample "
                         "(default 2^24)"),
                cl::init(int64_t(1) << 24), cl::cat(category));
static cl::opt<int64_t>
    sampleSize("sample-size",
               cl::desc("Elements compared in a sample (default 2^20)"),
               cl::init(int64_t(1) << 20), cl::cat(category));
static cl::opt<bool> bench("bench", cl::desc("Time the kernels"),
                           cl::cat(category));
static cl::opt<int> iters("iters", cl::desc("Timed runs (default 50)"),
                          cl::init(50), cl::cat(category));
static cl::opt<int> warmup("warmup", cl::desc("Warm-up runs (default 10)"),
                           cl::init(10), cl::cat(category));
static cl::opt<int> hostIters(
    "host-iters",
    cl::desc("Back-to-back calls timed for the host time (default 2000)"),
    cl::init(2000), cl::cat(category));
static cl::opt<int64_t>
    copyMiB("copy-mib",
            cl::desc("Size of the reference device-to-device copy in MiB "
                     "(default 1024)"),
            cl::init(1024), cl::cat(category));
static cl::opt<std::string> jsonPath("json",
                                     cl::desc("Write the results as JSON"),
                                     cl::value_desc("path"), cl::cat(category));
// The compile options of an in-process compile, as fusion-translate takes
// them.
static fc::CompileFlags compileFlags(category);
static cl::opt<bool> noCache(
    "no-cache",
    cl::desc("Compile a definition even when the compile cache has its "
             "module, and do not store it (FUSION_CACHE=0 does the same)"),
    cl::init(false), cl::cat(category));
static cl::opt<bool> referenceOnly(
    "reference-only",
    cl::desc("Run only the reference interpreter (no GPU needed) and print "
             "a summary of the outputs"),
    cl::cat(category));
static cl::opt<bool>
    printOutputs("print",
                 cl::desc("With --reference-only: print the outputs in full"),
                 cl::cat(category));
static cl::opt<int> deviceOrdinal("device",
                                  cl::desc("CUDA device ordinal (default 0)"),
                                  cl::init(0), cl::cat(category));
static cl::opt<bool> verbose("verbose",
                             cl::desc("Print the launch plan and progress"),
                             cl::cat(category));
static cl::opt<std::string> injectFault(
    "inject-fault",
    cl::desc("Self-test of the check: 'wrong[@N]' changes element N of "
             "output 0 after the runs, 'unwritten[@N]' puts the poison back "
             "into it on the device after each run (N: row-major index, "
             "default the middle element)"),
    cl::value_desc("kind[@N]"), cl::Hidden, cl::cat(category));

namespace {

[[noreturn]] void fail(const llvm::Twine &message, int code = 1) {
  llvm::outs().flush();
  llvm::errs() << "fusion-run: " << message << "\n";
  llvm::errs().flush();
  std::exit(code);
}

void note(const llvm::Twine &message) {
  if (verbose) {
    llvm::outs() << "# " << message << "\n";
    llvm::outs().flush();
  }
}

rt::DType toRuntime(interp::DType dtype) {
  return static_cast<rt::DType>(static_cast<int>(dtype));
}
interp::DType toInterp(rt::DType dtype) {
  return static_cast<interp::DType>(static_cast<int>(dtype));
}

/// The device memory of one input set or output set.
struct DeviceTensor {
  CUdeviceptr base = 0; // what cuMemAlloc returned
  void *data = nullptr; // base + the misalignment
};

/// The runtime arguments of one input set.
std::vector<rt::Argument> makeArguments(const std::vector<InputDesc> &inputs,
                                        const std::vector<void *> &pointers) {
  std::vector<rt::Argument> args;
  for (size_t k = 0; k < inputs.size(); ++k) {
    const InputDesc &in = inputs[k];
    if (in.isTensor)
      args.push_back(rt::Argument::tensor(
          pointers[k], toRuntime(in.dtype), in.sizes.data(),
          static_cast<int64_t>(in.sizes.size()), in.strides.data()));
    else if (in.isIndex)
      args.push_back(rt::Argument::intScalar(in.intValue, rt::DType::I64));
    else if (interp::isFloatDType(in.dtype))
      args.push_back(
          rt::Argument::floatScalar(in.floatValue, toRuntime(in.dtype)));
    else
      args.push_back(rt::Argument::intScalar(in.intValue, toRuntime(in.dtype)));
  }
  return args;
}

int64_t misalignBytes(const InputDesc &input) {
  return misalign ? interp::dtypeBytes(input.dtype) : 0;
}

/// Stand-in device pointers for checking inputs before any GPU is touched:
/// distinct, non-null, 256-byte aligned as cuMemAlloc's are, then misaligned
/// as --misalign asks.
std::vector<void *> fakePointers(const std::vector<InputDesc> &inputs) {
  std::vector<void *> pointers;
  for (size_t k = 0; k < inputs.size(); ++k)
    pointers.push_back(reinterpret_cast<void *>(
        (static_cast<uintptr_t>(k + 1) << 36) + misalignBytes(inputs[k])));
  return pointers;
}

/// Elements from a tensor's first to one past its last element.
int64_t extentElements(const rt::OutputTensor &out) {
  int64_t extent = 1;
  for (int32_t d = 0; d < out.rank; ++d) {
    if (out.sizes[d] == 0)
      return 0;
    extent += (out.sizes[d] - 1) * out.strides[d];
  }
  return extent;
}

int64_t numElements(const rt::OutputTensor &out) {
  int64_t n = 1;
  for (int32_t d = 0; d < out.rank; ++d)
    n *= out.sizes[d];
  return n;
}

std::vector<int64_t> sizesOf(const rt::OutputTensor &out) {
  return std::vector<int64_t>(out.sizes, out.sizes + out.rank);
}

std::string variantNames(const rt::EvaluatedPlan &plan,
                         const rt::ModuleInfo &info) {
  std::string names;
  for (const rt::LaunchConfig &launch : plan.launches) {
    if (!names.empty())
      names += ",";
    names += launch.kernel >= 0 &&
                     static_cast<size_t>(launch.kernel) < info.kernels.size()
                 ? info.kernels[launch.kernel].name
                 : "kernel" + std::to_string(launch.kernel);
    if (launch.skipped)
      names += "(skipped)";
  }
  return names.empty() ? "none" : names;
}

void printPlan(const rt::EvaluatedPlan &plan, const rt::ModuleInfo &info) {
  for (size_t l = 0; l < plan.launches.size(); ++l) {
    const rt::LaunchConfig &launch = plan.launches[l];
    llvm::outs() << "# launch " << l << ": " << info.kernels[launch.kernel].name
                 << " (variant " << launch.variant << ") grid "
                 << launch.grid[0] << "x" << launch.grid[1] << "x"
                 << launch.grid[2] << " block " << launch.block[0] << "x"
                 << launch.block[1] << "x" << launch.block[2] << " smem "
                 << launch.dynamicSmem;
    if (launch.hasCluster)
      llvm::outs() << " cluster " << launch.cluster[0] << "x"
                   << launch.cluster[1] << "x" << launch.cluster[2];
    llvm::outs() << (launch.skipped ? " skipped" : "") << "\n";
  }
}

/// Whether slicing the inputs along dims 0..`dim` of outputs of rank `rank`
/// gives the matching slice of the outputs as far as reductions go: every
/// reduction (dims, dim or axis attribute) reduces only dims after `dim` of
/// an operand of that rank. A reduction over a sliced dim (a column sum
/// broadcast back over the rows, say) needs all rows: no sampling.
bool reductionsKeepSlices(Operation *fusionOp, int64_t dim, int64_t rank) {
  WalkResult result = fusionOp->walk([&](Operation *op) {
    if (!isa<fc::SumOp, fc::ProdOp, fc::MaxOp, fc::MinOp, fc::VarMeanOp,
             fc::ArgmaxOp, fc::ArgminOp, fc::SoftmaxOp, fc::LogSoftmaxOp,
             fc::LayerNormOp, fc::RmsNormOp>(op))
      return WalkResult::advance();
    SmallVector<int64_t> reduced;
    if (auto dims = op->getAttrOfType<DenseI64ArrayAttr>("dims"))
      reduced.assign(dims.asArrayRef().begin(), dims.asArrayRef().end());
    else if (auto one = op->getAttrOfType<IntegerAttr>("dim"))
      reduced.push_back(one.getInt());
    else if (auto axis = op->getAttrOfType<IntegerAttr>("axis"))
      for (int64_t d = axis.getInt(); d < rank; ++d)
        reduced.push_back(d);
    else
      return WalkResult::interrupt();
    if (op->getNumOperands() == 0)
      return WalkResult::advance();
    auto type = dyn_cast<RankedTensorType>(op->getOperand(0).getType());
    if (!type || type.getRank() != rank)
      return WalkResult::interrupt();
    for (int64_t d : reduced)
      if ((d < 0 ? d + rank : d) <= dim)
        return WalkResult::interrupt();
    return WalkResult::advance();
  });
  return !result.wasInterrupted();
}

std::string joinShapes(const std::vector<InputDesc> &inputs) {
  std::string text;
  for (const InputDesc &in : inputs)
    text += (text.empty() ? "" : ",") + in.shapeText();
  return text.empty() ? "()" : text;
}

std::string jsonString(const std::string &text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      char buffer[8];
      std::snprintf(buffer, sizeof(buffer), "\\u%04x", c);
      out += buffer;
    } else {
      out += c;
    }
  }
  return out + "\"";
}

std::string jsonNumber(double value) {
  if (!std::isfinite(value))
    return "null";
  char buffer[64];
  std::snprintf(buffer, sizeof(buffer), "%.6g", value);
  return buffer;
}

std::string fixed(double value, int digits) {
  char buffer[64];
  std::snprintf(buffer, sizeof(buffer), "%.*f", digits, value);
  return buffer;
}

double median(std::vector<double> values) {
  if (values.empty())
    return 0;
  std::sort(values.begin(), values.end());
  size_t n = values.size();
  return n % 2 ? values[n / 2] : 0.5 * (values[n / 2 - 1] + values[n / 2]);
}

/// Finds the fusion to run: by name, else the only one.
fc::FusionOp findFusion(ModuleOp module, llvm::StringRef name,
                        llvm::StringRef where) {
  llvm::SmallVector<fc::FusionOp> fusions(module.getOps<fc::FusionOp>());
  if (!name.empty()) {
    for (fc::FusionOp f : fusions)
      if (f.getSymName() == name)
        return f;
    fail("no fusion named @" + name + " in " + where);
  }
  if (fusions.size() == 1)
    return fusions.front();
  if (fusions.empty())
    fail(where + " has no fusion.fusion");
  std::string names;
  for (fc::FusionOp f : fusions)
    names += " @" + f.getSymName().str();
  fail(where + " has " + llvm::Twine(fusions.size()) + " fusions (" +
       llvm::StringRef(names).ltrim() + "); pick one with --fusion=NAME");
}

/// Summary of one reference output for --reference-only.
void printSummary(const std::string &name, const interp::HostTensor &t) {
  int64_t n = t.numElements(), nans = 0, infs = 0;
  double lo = INFINITY, hi = -INFINITY, sum = 0, sumSq = 0;
  int64_t finite = 0;
  for (int64_t i = 0; i < n; ++i) {
    double v = t.getDouble(i);
    if (std::isnan(v)) {
      ++nans;
      continue;
    }
    if (std::isinf(v))
      ++infs;
    lo = std::min(lo, v);
    hi = std::max(hi, v);
    if (std::isfinite(v)) {
      sum += v;
      sumSq += v * v;
      ++finite;
    }
  }
  llvm::outs() << name << ": " << t.typeString();
  if (n)
    llvm::outs() << " min=" << formatNumber(lo) << " max=" << formatNumber(hi)
                 << " mean=" << formatNumber(finite ? sum / finite : NAN)
                 << " l2=" << formatNumber(std::sqrt(sumSq));
  llvm::outs() << " nan=" << nans << " inf=" << infs << "\n";
}

/// A fault --inject-fault asks for: kind "wrong" or "unwritten" at a
/// row-major element index of output 0 (-1: the middle element).
struct Fault {
  std::string kind;
  int64_t index = -1;
};

Fault parseFault(llvm::StringRef text) {
  Fault fault;
  if (text.empty())
    return fault;
  auto [kind, index] = text.split('@');
  if (kind != "wrong" && kind != "unwritten")
    fail("--inject-fault=" + text + ": expected wrong[@N] or unwritten[@N]");
  fault.kind = kind.str();
  if (text.contains('@') &&
      (index.getAsInteger(10, fault.index) || fault.index < 0))
    fail("--inject-fault=" + text + ": N must be an element index");
  return fault;
}

/// Storage position (in elements) of row-major element `linear` of `out`.
int64_t positionOf(const rt::OutputTensor &out, int64_t linear) {
  int64_t position = 0;
  for (int32_t d = out.rank - 1; d >= 0; --d) {
    position += (linear % out.sizes[d]) * out.strides[d];
    linear /= out.sizes[d];
  }
  return position;
}

/// Result of the correctness check.
struct CheckResult {
  bool ran = false;
  bool passed = true;
  double maxAbsErr = 0;
  double relL2 = 0;
  int64_t checked = 0;
  int64_t total = 0;
  int64_t mismatches = 0;
  int64_t differences = 0;
  std::vector<std::string> examples;
};

/// Sizes for the host-overhead loop: every dynamic size above 1 replaced by a
/// small one (distinct sizes stay distinct and keep their order, multiples
/// of 8 keep vector paths possible), so that the GPU keeps up with the host.
std::vector<InputDesc> tinyInputs(const std::vector<InputDesc> &inputs,
                                  const std::vector<InputSignature> &sig) {
  std::vector<int64_t> values;
  for (size_t k = 0; k < inputs.size(); ++k)
    if (inputs[k].isTensor)
      for (size_t d = 0; d < inputs[k].sizes.size(); ++d)
        if (inputs[k].sizes[d] > 1 &&
            (k >= sig.size() || d >= sig[k].sizes.size() ||
             sig[k].sizes[d] < 0))
          values.push_back(inputs[k].sizes[d]);
  std::sort(values.begin(), values.end());
  values.erase(std::unique(values.begin(), values.end()), values.end());
  std::vector<InputDesc> tiny;
  for (size_t k = 0; k < inputs.size(); ++k) {
    const InputDesc &in = inputs[k];
    if (!in.isTensor) {
      tiny.push_back(in);
      continue;
    }
    std::string spec;
    for (size_t d = 0; d < in.sizes.size(); ++d) {
      int64_t size = in.sizes[d];
      bool dynamic =
          k >= sig.size() || d >= sig[k].sizes.size() || sig[k].sizes[d] < 0;
      if (dynamic && size > 1)
        size = 8 * (1 + (std::lower_bound(values.begin(), values.end(), size) -
                         values.begin()));
      spec += (d ? "x" : "") + std::to_string(size);
    }
    spec += ":" + interp::dtypeName(in.dtype).str();
    auto parsed =
        parseInput(spec, k, k < sig.size() ? &sig[k] : nullptr, in.layout);
    if (!parsed) {
      llvm::consumeError(parsed.takeError());
      return {};
    }
    tiny.push_back(*parsed);
  }
  return tiny;
}

/// Note [Deferred kernels]: this process has the compiler, so it builds the
/// deferred kernels of what it runs (a definition compiled with
/// --defer-kernels, or a module file that has some).
void installKernelBuilder() {
  rt::setKernelBuilder([](const void *module, size_t size,
                          const std::string &kernel,
                          std::string &built) -> rt::Status {
    DialectRegistry registry;
    fc::registerAllDialects(registry);
    MLIRContext context(registry);
    std::optional<fc::CompileCache> cache;
    if (!noCache)
      cache = fc::environmentCache();
    std::string error;
    auto start = std::chrono::steady_clock::now();
    FailureOr<std::string> bytes = fc::buildDeferredKernel(
        &context, llvm::StringRef(static_cast<const char *>(module), size),
        kernel, cache ? &*cache : nullptr, error);
    if (failed(bytes))
      return rt::Status(rt::ErrorCode::KernelNotBuilt, error);
    note("built deferred kernel " + kernel + " in " +
         fixed(std::chrono::duration<double, std::milli>(
                   std::chrono::steady_clock::now() - start)
                   .count(),
               1) +
         " ms");
    built = std::move(*bytes);
    return rt::Status::success();
  });
}

/// The tool's own numbers, checked before anything runs: a count of 0
/// timed runs would take the median of nothing on the GPU machine.
void checkToolOptions() {
  auto atLeast = [](const char *name, int64_t value, int64_t least) {
    if (value < least)
      fail(std::string("--") + name + " must be at least " +
           std::to_string(least) + ", got " + std::to_string(value));
  };
  atLeast("iters", iters, 1);
  atLeast("warmup", warmup, 0);
  atLeast("host-iters", hostIters, 1);
  atLeast("copy-mib", copyMiB, 1);
  atLeast("sample-size", sampleSize, 1);
  atLeast("sample-above", sampleAbove, 0);
  atLeast("device", deviceOrdinal, 0);
  if (copyMiB > (int64_t(1) << 20))
    fail("--copy-mib must be at most 1048576 (1 TiB), got " +
         std::to_string(copyMiB));
  for (auto [name, value] :
       {std::pair<const char *, double>{"rtol", rtolOption},
        {"atol", atolOption}})
    if (value != -1 && !(value >= 0))
      fail(std::string("--") + name +
           " must be a tolerance of 0 or more (or -1: by dtype), got " +
           llvm::formatv("{0}", value).str());
}

int runTool() {
  checkToolOptions();
  installKernelBuilder();
  // Read the file; a module file is recognized by its identifier.
  auto buffer = llvm::MemoryBuffer::getFileOrSTDIN(inputFile);
  if (!buffer)
    fail("cannot read '" + inputFile + "': " + buffer.getError().message());
  llvm::StringRef bytes = (*buffer)->getBuffer();
  bool isModuleFile =
      bytes.size() >= 8 &&
      std::memcmp(bytes.data() + 4, rt::kModuleFileIdentifier, 4) == 0;

  DialectRegistry registry;
  fc::registerAllDialects(registry);
  MLIRContext context(registry);
  context.loadAllAvailableDialects();
  llvm::SourceMgr sourceMgr;
  SourceMgrDiagnosticHandler diagnostics(sourceMgr, &context, llvm::errs());

  std::unique_ptr<rt::Executable> executable;
  OwningOpRef<ModuleOp> module;
  std::string where = "'" + inputFile + "'";
  if (isModuleFile) {
    // A module file brings its kernels: nothing is compiled here.
    if (std::vector<std::string> ignored = compileFlags.given();
        !ignored.empty())
      llvm::errs() << "fusion-run: warning: " << llvm::join(ignored, ", ")
                   << " ignored: " << inputFile
                   << " is a module file (compile options apply to a "
                      "definition)\n";
    auto loaded = rt::Executable::load(bytes.data(), bytes.size());
    if (!loaded)
      fail(inputFile + ": " + loaded.status().toString());
    executable = std::move(*loaded);
    const rt::ModuleInfo &info = executable->info();
    if (info.definition.empty())
      fail(inputFile + ": the module file holds no definition (fusion-run "
                       "needs it for the signature and the reference)");
    sourceMgr.AddNewSourceBuffer(
        llvm::MemoryBuffer::getMemBufferCopy(info.definition,
                                             inputFile + " (definition)"),
        llvm::SMLoc());
    // The definition is text like any other input (a module file may come
    // from anywhere): Note [Tool limits], Note [Integer lists].
    if (!fc::checkInput(sourceMgr))
      fail("cannot parse the definition stored in " + where);
    module = parseSourceFile<ModuleOp>(sourceMgr, &context);
    if (!module)
      fail("cannot parse the definition stored in " + where);
    if (fusionName.empty())
      fusionName = info.name;
    else if (fusionName != info.name)
      fail(where + " holds fusion @" + info.name + ", not @" + fusionName);
  } else {
    sourceMgr.AddNewSourceBuffer(std::move(*buffer), llvm::SMLoc());
    if (!fc::checkInput(sourceMgr))
      fail("cannot parse " + where);
    module = parseSourceFile<ModuleOp>(sourceMgr, &context);
    if (!module)
      fail("cannot parse " + where);
  }
  fc::FusionOp fusionOp = findFusion(*module, fusionName, where);
  std::string name = fusionOp.getSymName().str();

  // The inputs as the command line gives them.
  auto signature = signatureOf(fusionOp);
  if (!signature)
    fail(llvm::toString(signature.takeError()));
  std::map<size_t, Layout> layouts;
  for (const std::string &text : layoutSpecs) {
    size_t index;
    Layout layout;
    if (auto err = parseLayout(text, index, layout))
      fail(llvm::toString(std::move(err)));
    if (index >= inputSpecs.size())
      fail("--layout=" + text + ": there are only " +
           llvm::Twine(inputSpecs.size()) + " --input options");
    layouts[index] = layout;
  }
  std::vector<InputDesc> inputs;
  for (size_t k = 0; k < inputSpecs.size(); ++k) {
    auto input = parseInput(inputSpecs[k], k,
                            k < signature->size() ? &(*signature)[k] : nullptr,
                            layouts.count(k) ? layouts[k] : Layout::Contiguous);
    if (!input)
      fail(llvm::toString(input.takeError()));
    inputs.push_back(std::move(*input));
  }
  std::string shapes = joinShapes(inputs);

  // Compile a definition in process (unless only the reference is wanted).
  if (!executable && !referenceOnly) {
    OwningOpRef<ModuleOp> lowered(module->clone());
    for (fc::FusionOp other :
         llvm::make_early_inc_range(lowered->getOps<fc::FusionOp>()))
      if (other.getSymName() != name)
        other.erase();
    fc::CompileOptions options;
    compileFlags.apply(options);
    // Note [Compile cache].
    std::optional<fc::CompileCache> cache;
    if (!noCache)
      cache = fc::environmentCache();
    fc::CompileCacheReport report;
    auto start = std::chrono::steady_clock::now();
    auto file = fc::compileToModuleFile(*lowered, name, options,
                                        cache ? &*cache : nullptr, &report);
    if (failed(file))
      fail("cannot compile @" + name + " from " + where);
    bool hit = report.outcome == fc::CompileCacheReport::Outcome::Hit;
    note("compiled @" + name + " in " +
         fixed(std::chrono::duration<double, std::milli>(
                   std::chrono::steady_clock::now() - start)
                   .count(),
               1) +
         " ms" + (hit ? " (a compile cache hit)" : ""));
    auto loaded = rt::Executable::load(file->data(), file->size());
    if (!loaded)
      fail("the compiled module does not load: " + loaded.status().toString());
    executable = std::move(*loaded);
  }

  // Check the inputs with the runtime before touching any GPU: bad inputs
  // get the runtime's typed error here, on any machine.
  std::vector<rt::OutputTensor> outputLayouts;
  std::optional<rt::EvaluatedPlan> fakePlan;
  if (executable) {
    std::vector<void *> fake = fakePointers(inputs);
    std::vector<rt::Argument> args = makeArguments(inputs, fake);
    auto plan = executable->plan(args);
    if (!plan)
      fail(plan.status().toString());
    fakePlan = std::move(*plan);
    outputLayouts.resize(executable->info().outputs.size());
    rt::Status status = executable->inferOutputs(
        args.data(), args.size(), outputLayouts.data(), outputLayouts.size());
    if (!status.ok())
      fail(status.toString());
    if (verbose) {
      printPlan(*fakePlan, executable->info());
      // The inputs as the PASS/FAIL line prints them (for
      // utils/check-gpu-variants.py).
      llvm::outs() << "# inputs: " << shapes << "\n";
    }
  }

  // Input set 0: checked, and the first of the sets timed.
  auto hostStart = std::chrono::steady_clock::now();
  std::vector<interp::HostTensor> hostInputs;
  for (size_t k = 0; k < inputs.size(); ++k)
    hostInputs.push_back(inputs[k].isTensor ? makeHostTensor(inputs[k], seed, k)
                                            : interp::HostTensor());
  note("made the inputs in " +
       fixed(std::chrono::duration<double, std::milli>(
                 std::chrono::steady_clock::now() - hostStart)
                 .count(),
             1) +
       " ms");
  auto fullValues = [&] {
    std::vector<interp::HostValue> values;
    for (size_t k = 0; k < inputs.size(); ++k)
      values.push_back(hostValue(inputs[k], hostInputs[k]));
    return values;
  };

  if (referenceOnly) {
    std::vector<interp::HostValue> values = fullValues();
    if (auto err = interp::checkInputs(fusionOp, values))
      fail(llvm::toString(std::move(err)));
    auto outputs = interp::interpret(fusionOp, values);
    if (!outputs)
      fail("reference interpreter: " + llvm::toString(outputs.takeError()));
    llvm::outs() << "REFERENCE " << name << " " << shapes << "\n";
    for (auto [o, t] : llvm::enumerate(*outputs)) {
      std::string label = "out" + std::to_string(o);
      printSummary(label, t);
      if (printOutputs) {
        interp::printTensor(llvm::outs(), t);
        llvm::outs() << "\n";
      }
    }
    return 0;
  }

  // The GPU.
  std::string reason;
  std::unique_ptr<Gpu> gpu = Gpu::open(deviceOrdinal, reason);
  if (!gpu)
    fail("no CUDA device: " + reason, 2);
  const rt::ModuleInfo &info = executable->info();
  if (bench || verbose)
    llvm::outs() << "# device " << deviceOrdinal << ": " << gpu->name()
                 << " (sm_" << gpu->computeCapability() << ", "
                 << gpu->smCount() << " SMs); module target " << info.target
                 << "\n";

  // Device memory: input sets, output sets.
  const int numSets = bench ? 3 : 1;
  const size_t numOutputs = outputLayouts.size();
  {
    int64_t need = 0;
    for (const InputDesc &in : inputs)
      if (in.isTensor)
        need += (in.storageBytes() + 16) * numSets;
    for (const rt::OutputTensor &out : outputLayouts)
      need += extentElements(out) * rt::dtypeByteSize(out.dtype) * numSets;
    if (bench)
      need += 2 * (copyMiB << 20);
    size_t free = gpu->freeMemory();
    if (free && static_cast<size_t>(need) > free)
      fail("needs " + llvm::Twine(need >> 20) + " MiB of device memory, " +
           llvm::Twine(free >> 20) + " MiB are free");
  }
  std::vector<std::vector<DeviceTensor>> deviceInputs(numSets);
  std::vector<std::vector<rt::Argument>> args(numSets);
  std::vector<std::vector<rt::OutputTensor>> outputs(numSets);
  for (int s = 0; s < numSets; ++s) {
    std::vector<void *> pointers;
    for (size_t k = 0; k < inputs.size(); ++k) {
      const InputDesc &in = inputs[k];
      DeviceTensor tensor;
      if (in.isTensor) {
        std::string what = in.label + " (set " + std::to_string(s) + ")";
        tensor.base = gpu->alloc(in.storageBytes() + 16, what);
        tensor.data = reinterpret_cast<void *>(tensor.base + misalignBytes(in));
        // Sets 1 and 2 are drawn from other seeds, only for timing.
        interp::HostTensor other;
        const interp::HostTensor &host =
            s == 0 ? hostInputs[k]
                   : (other = makeHostTensor(in, seed + 0x51ED270B * s, k));
        gpu->upload(reinterpret_cast<CUdeviceptr>(tensor.data), host.storage(),
                    in.storageBytes(), what);
      }
      deviceInputs[s].push_back(tensor);
      pointers.push_back(tensor.data);
    }
    args[s] = makeArguments(inputs, pointers);
    outputs[s] = outputLayouts;
    for (size_t o = 0; o < numOutputs; ++o) {
      rt::OutputTensor &out = outputs[s][o];
      if (info.outputs[o].aliasInput >= 0) {
        // A view of an input (a slice starts inside it): the runtime sets
        // its data at the first run.
        out.data = nullptr;
        continue;
      }
      int64_t bytes = extentElements(out) * rt::dtypeByteSize(out.dtype);
      out.data = reinterpret_cast<void *>(
          gpu->alloc(bytes, "output " + std::to_string(o) + " (set " +
                                std::to_string(s) + ")"));
    }
  }

  // The plan for the real pointers: which variant runs.
  auto realPlan = executable->plan(args[0]);
  if (!realPlan)
    fail(realPlan.status().toString());
  std::string variant = variantNames(*realPlan, info);
  if (fakePlan && variantNames(*fakePlan, info) != variant)
    llvm::outs() << "# note: with the real pointers the plan takes " << variant
                 << ", with the stand-in pointers "
                 << variantNames(*fakePlan, info) << "\n";
  if (verbose)
    printPlan(*realPlan, info);

  auto runOnce = [&](int s) {
    rt::Status status =
        executable->run(args[s].data(), args[s].size(), outputs[s].data(),
                        outputs[s].size(), nullptr);
    if (!status.ok())
      fail(status.toString());
  };

  // Correctness: two runs on outputs poisoned with different bytes.
  CheckResult check;
  Fault fault = parseFault(injectFault);
  if (!fault.kind.empty()) {
    if (numOutputs == 0 || info.outputs[0].aliasInput >= 0 ||
        numElements(outputs[0][0]) == 0)
      fail("--inject-fault needs a non-empty output 0 that is no view");
    if (fault.index < 0)
      fault.index = numElements(outputs[0][0]) / 2;
    if (fault.index >= numElements(outputs[0][0]))
      fail("--inject-fault: output 0 has only " +
           llvm::Twine(numElements(outputs[0][0])) + " elements");
  }
  if (!noCheck) {
    check.ran = true;
    const uint8_t poisons[2] = {0xFF, 0x5A};
    std::vector<std::vector<interp::HostTensor>> downloads(2);
    for (int pass = 0; pass < 2; ++pass) {
      for (size_t o = 0; o < numOutputs; ++o) {
        const rt::OutputTensor &out = outputs[0][o];
        if (info.outputs[o].aliasInput < 0)
          gpu->fill(reinterpret_cast<CUdeviceptr>(out.data), poisons[pass],
                    extentElements(out) * rt::dtypeByteSize(out.dtype),
                    "output " + std::to_string(o));
      }
      gpu->synchronize("poisoning the outputs");
      runOnce(0);
      gpu->synchronize("the checked run of @" + name + " (" + variant + ")");
      if (fault.kind == "unwritten") {
        const rt::OutputTensor &out = outputs[0][0];
        int64_t bytes = rt::dtypeByteSize(out.dtype);
        gpu->fill(reinterpret_cast<CUdeviceptr>(out.data) +
                      positionOf(out, fault.index) * bytes,
                  poisons[pass], bytes, "an element of output 0");
      }
      for (size_t o = 0; o < numOutputs; ++o) {
        const rt::OutputTensor &out = outputs[0][o];
        std::vector<int64_t> strides(out.strides, out.strides + out.rank);
        auto host = interp::HostTensor::strided(
            toInterp(out.dtype), sizesOf(out), strides, extentElements(out), 0);
        if (!host)
          fail("output " + llvm::Twine(o) + ": " +
               llvm::toString(host.takeError()));
        gpu->download(host->storage(), reinterpret_cast<CUdeviceptr>(out.data),
                      extentElements(out) * rt::dtypeByteSize(out.dtype),
                      "output " + std::to_string(o));
        downloads[pass].push_back(std::move(*host));
      }
      if (fault.kind == "wrong") {
        interp::HostTensor &t = downloads[pass][0];
        int64_t position = positionOf(outputs[0][0], fault.index);
        if (t.dtype() == interp::DType::I1)
          t.storage()[position] = t.storage()[position] ? 0 : 1;
        else if (interp::isFloatDType(t.dtype()))
          t.storeDouble(position, t.loadDouble(position) + 0.25 +
                                      0.5 * std::fabs(t.loadDouble(position)));
        else
          t.storeInt(position, t.loadInt(position) + 1);
      }
    }
    for (size_t o = 0; o < numOutputs; ++o) {
      check.differences +=
          countDifferences(downloads[0][o], downloads[1][o],
                           "out" + std::to_string(o), check.examples);
      check.total += numElements(outputs[0][o]);
    }

    // The reference: on samples of large outputs, else on everything.
    auto refStart = std::chrono::steady_clock::now();
    std::vector<Comparison> comparisons(numOutputs);
    bool sampled = false;
    std::vector<int64_t> shape =
        numOutputs ? sizesOf(outputs[0][0]) : std::vector<int64_t>();
    bool sameShapes = llvm::all_of(outputs[0], [&](const rt::OutputTensor &t) {
      return sizesOf(t) == shape;
    });
    if (numOutputs && sameShapes && !fullCheck &&
        numElements(outputs[0][0]) > sampleAbove) {
      Sample sample = chooseSample(shape, seed, sampleSize);
      std::vector<Comparison> partial(numOutputs);
      sampled = !sample.boxes.empty();
      // Index ops and random numbers depend on where an element is (a
      // rand's counter is its position in the whole tensor; a slice, cat or
      // gather reads elsewhere): a box of the inputs does not give the box
      // of the output.
      bool positional = false;
      fusionOp.walk([&](Operation *op) {
        positional |=
            isa<fc::RandOp, fc::RandnOp, fc::IotaOp, fc::SliceOp, fc::PadOp,
                fc::CatOp, fc::IndexSelectOp, fc::GatherOp>(op);
      });
      if (sampled && positional) {
        llvm::outs() << "# note: index ops or random numbers; interpreting "
                        "the full inputs\n";
        sampled = false;
        sample.boxes.clear();
      }
      if (sampled &&
          !reductionsKeepSlices(fusionOp, sample.dim,
                                static_cast<int64_t>(shape.size()))) {
        llvm::outs() << "# note: a reduction over sampled dims; interpreting "
                        "the full inputs\n";
        sampled = false;
        sample.boxes.clear();
      }
      for (const Box &box : sample.boxes) {
        std::vector<interp::HostValue> values =
            sliceInputs(inputs, hostInputs, shape, sample.dim, box);
        auto ref = interp::interpret(fusionOp, values);
        bool fits = ref && ref->size() == numOutputs &&
                    llvm::all_of(*ref, [&](const interp::HostTensor &t) {
                      return std::vector<int64_t>(t.sizes().begin(),
                                                  t.sizes().end()) == box.sizes;
                    });
        if (!fits) {
          if (!ref)
            llvm::consumeError(ref.takeError());
          llvm::outs() << "# note: the reference cannot be sliced for this "
                          "fusion; interpreting the full inputs\n";
          sampled = false;
          break;
        }
        for (size_t o = 0; o < numOutputs; ++o)
          compareRegion(downloads[0][o], (*ref)[o], box.origin,
                        "out" + std::to_string(o), partial[o]);
      }
      if (sampled)
        comparisons = std::move(partial);
    }
    if (!sampled) {
      auto ref = interp::interpret(fusionOp, fullValues());
      if (!ref)
        fail("reference interpreter: " + llvm::toString(ref.takeError()));
      if (ref->size() != numOutputs)
        fail("the reference has " + llvm::Twine(ref->size()) +
             " outputs, the module " + llvm::Twine(numOutputs));
      for (size_t o = 0; o < numOutputs; ++o) {
        std::vector<int64_t> refShape((*ref)[o].sizes().begin(),
                                      (*ref)[o].sizes().end());
        if (refShape != sizesOf(outputs[0][o]))
          fail("output " + llvm::Twine(o) + ": the reference has shape " +
               (*ref)[o].typeString() + ", the kernels' output differs");
        std::vector<int64_t> origin(refShape.size(), 0);
        compareRegion(downloads[0][o], (*ref)[o], origin,
                      "out" + std::to_string(o), comparisons[o]);
      }
    }
    note("reference and comparison took " +
         fixed(std::chrono::duration<double, std::milli>(
                   std::chrono::steady_clock::now() - refStart)
                   .count(),
               1) +
         " ms");
    for (Comparison &c : comparisons) {
      check.checked += c.checked;
      check.mismatches += c.mismatches;
      check.maxAbsErr = std::max(check.maxAbsErr, c.maxAbsErr);
      check.relL2 = std::max(check.relL2, c.relL2());
      for (std::string &example : c.examples)
        if (check.examples.size() < 16)
          check.examples.push_back(std::move(example));
    }
    check.passed = check.mismatches == 0 && check.differences == 0;
    llvm::outs() << (check.passed ? "PASS " : "FAIL ") << name << " " << shapes
                 << " max_abs_err=" << formatNumber(check.maxAbsErr)
                 << " rel_l2=" << formatNumber(check.relL2);
    if (!check.passed)
      llvm::outs() << " mismatches=" << check.mismatches
                   << " unwritten_or_racy=" << check.differences;
    llvm::outs() << " checked=" << check.checked;
    if (check.checked != check.total)
      llvm::outs() << "/" << check.total;
    llvm::outs() << " variant=" << variant << "\n";
    for (const std::string &example : check.examples)
      llvm::outs() << "  " << example << "\n";
    llvm::outs().flush();
  }

  if (!bench)
    return check.passed ? 0 : 1;

  // Timing: warm-up, then every timed run on the next of the input sets.
  for (int i = 0; i < std::max(warmup.getValue(), 1); ++i)
    runOnce(i % numSets);
  gpu->synchronize("the warm-up runs of @" + name);
  int n = std::max(iters.getValue(), 1);
  std::vector<CUevent> events;
  for (int i = 0; i < 2 * n; ++i)
    events.push_back(gpu->createEvent());
  for (int i = 0; i < n; ++i) {
    gpu->record(events[2 * i]);
    runOnce(i % numSets);
    gpu->record(events[2 * i + 1]);
  }
  gpu->synchronize("the timed runs of @" + name + " (" + variant + ")");
  std::vector<double> micros;
  for (int i = 0; i < n; ++i)
    micros.push_back(1e3 * gpu->elapsedMs(events[2 * i], events[2 * i + 1]));
  for (CUevent event : events)
    gpu->destroyEvent(event);
  double timeUs = median(micros);
  double minUs = *std::min_element(micros.begin(), micros.end());

  int64_t usefulBytes = 0;
  for (const InputDesc &in : inputs)
    if (in.isTensor)
      usefulBytes += in.numElements() * interp::dtypeBytes(in.dtype);
  for (size_t o = 0; o < numOutputs; ++o)
    if (info.outputs[o].aliasInput < 0)
      usefulBytes +=
          numElements(outputs[0][o]) * rt::dtypeByteSize(outputs[0][o].dtype);
  double gbps = timeUs > 0 ? usefulBytes / (timeUs * 1e-6) / 1e9 : 0;
  double copyGBps = gpu->copyBandwidthGBps(size_t(copyMiB) << 20, 10);
  double fraction = copyGBps > 0 ? gbps / copyGBps : 0;

  // Host time per call: back-to-back runs of the same fusion on small
  // inputs (so the GPU keeps up), caller-provided outputs, no sync.
  std::string hostShapes = "none";
  double hostUs = 0;
  {
    std::vector<InputDesc> tiny = tinyInputs(inputs, *signature);
    std::vector<void *> pointers;
    std::vector<rt::OutputTensor> tinyOutputs(numOutputs);
    bool usable = !tiny.empty() || inputs.empty();
    std::vector<rt::Argument> tinyArgs;
    if (usable) {
      for (size_t k = 0; k < tiny.size(); ++k) {
        void *data = nullptr;
        if (tiny[k].isTensor) {
          CUdeviceptr base =
              gpu->alloc(tiny[k].storageBytes() + 16, "host-loop input");
          data = reinterpret_cast<void *>(base + misalignBytes(tiny[k]));
          interp::HostTensor host = makeHostTensor(tiny[k], seed, k);
          gpu->upload(reinterpret_cast<CUdeviceptr>(data), host.storage(),
                      tiny[k].storageBytes(), "host-loop input");
        }
        pointers.push_back(data);
      }
      tinyArgs = makeArguments(tiny, pointers);
      rt::Status status = executable->inferOutputs(
          tinyArgs.data(), tinyArgs.size(), tinyOutputs.data(), numOutputs);
      usable = status.ok();
    }
    if (usable) {
      hostShapes = joinShapes(tiny);
      for (size_t o = 0; o < numOutputs; ++o)
        if (info.outputs[o].aliasInput < 0)
          tinyOutputs[o].data = reinterpret_cast<void *>(
              gpu->alloc(extentElements(tinyOutputs[o]) *
                             rt::dtypeByteSize(tinyOutputs[o].dtype),
                         "host-loop output"));
    } else {
      // The small sizes break a constraint: time the real inputs instead.
      hostShapes = shapes;
      tinyArgs = args[0];
      tinyOutputs = outputs[0];
    }
    auto call = [&] {
      rt::Status status =
          executable->run(tinyArgs.data(), tinyArgs.size(), tinyOutputs.data(),
                          tinyOutputs.size(), nullptr);
      if (!status.ok())
        fail(status.toString());
    };
    for (int i = 0; i < 100; ++i)
      call();
    gpu->synchronize("the host-loop warm-up of @" + name);
    int calls = std::max(hostIters.getValue(), 1);
    auto start = std::chrono::steady_clock::now();
    for (int i = 0; i < calls; ++i)
      call();
    auto stop = std::chrono::steady_clock::now();
    gpu->synchronize("the host loop of @" + name);
    hostUs =
        std::chrono::duration<double, std::micro>(stop - start).count() / calls;
  }
  double rawUs = gpu->rawLaunchMicros(std::max(hostIters.getValue(), 1));

  // The case: the largest tensor input's shape and dtype.
  std::string caseShape = "()", caseDtype = "none";
  int64_t largest = -1;
  for (const InputDesc &in : inputs)
    if (in.isTensor && in.numElements() > largest) {
      largest = in.numElements();
      caseShape = in.shapeText(false);
      caseDtype = interp::dtypeName(in.dtype).str();
    }
  if (caseShape.empty())
    caseShape = "()";
  llvm::outs() << "BENCH " << name << " " << caseShape << " " << caseDtype
               << " time_us=" << fixed(timeUs, 2) << " GBps=" << fixed(gbps, 1)
               << " copy_GBps=" << fixed(copyGBps, 1)
               << " fraction=" << fixed(fraction, 3)
               << " host_us=" << fixed(hostUs, 2)
               << " raw_launch_us=" << fixed(rawUs, 2) << " variant=" << variant
               << "\n";
  llvm::outs().flush();

  if (!jsonPath.empty()) {
    std::ofstream json(jsonPath);
    if (!json)
      fail("cannot write '" + jsonPath + "'");
    json << "{\n"
         << "  \"name\": " << jsonString(name) << ",\n"
         << "  \"shape\": " << jsonString(caseShape) << ",\n"
         << "  \"dtype\": " << jsonString(caseDtype) << ",\n"
         << "  \"inputs\": " << jsonString(shapes) << ",\n"
         << "  \"layouts\": [";
    for (size_t k = 0; k < inputs.size(); ++k)
      json << (k ? ", " : "")
           << jsonString(inputs[k].layout == Layout::Strided ? "strided"
                         : inputs[k].layout == Layout::Transposed
                             ? "transposed"
                             : "contiguous");
    json << "],\n"
         << "  \"misaligned\": " << (misalign ? "true" : "false") << ",\n"
         << "  \"device\": " << jsonString(gpu->name()) << ",\n"
         << "  \"variant\": " << jsonString(variant) << ",\n"
         << "  \"time_us\": " << jsonNumber(timeUs) << ",\n"
         << "  \"min_time_us\": " << jsonNumber(minUs) << ",\n"
         << "  \"iters\": " << n << ",\n"
         << "  \"bytes\": " << usefulBytes << ",\n"
         << "  \"GBps\": " << jsonNumber(gbps) << ",\n"
         << "  \"copy_GBps\": " << jsonNumber(copyGBps) << ",\n"
         << "  \"fraction\": " << jsonNumber(fraction) << ",\n"
         << "  \"host_us\": " << jsonNumber(hostUs) << ",\n"
         << "  \"host_shapes\": " << jsonString(hostShapes) << ",\n"
         << "  \"raw_launch_us\": " << jsonNumber(rawUs) << ",\n"
         << "  \"check\": "
         << jsonString(!check.ran     ? "skipped"
                       : check.passed ? "PASS"
                                      : "FAIL");
    if (check.ran)
      json << ",\n  \"max_abs_err\": " << jsonNumber(check.maxAbsErr)
           << ",\n  \"rel_l2\": " << jsonNumber(check.relL2)
           << ",\n  \"checked\": " << check.checked;
    json << "\n}\n";
    if (!json)
      fail("cannot write '" + jsonPath + "'");
  }
  return check.passed ? 0 : 1;
}

} // namespace

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  mlir::fusion::addToolVersionPrinter();
  cl::HideUnrelatedOptions(category);
  cl::ParseCommandLineOptions(
      argc, argv,
      "fusion-run: run a fusion on the GPU, check it against the reference "
      "interpreter, and time it\n\n"
      "  fusion-run add_relu.mlir --input=8192x4096 --input=8192x4096\n"
      "  fusion-run gelu_bias.fusionmod --input=32768x4096 --input=4096 "
      "--bench\n"
      "  fusion-run f.mlir --input=1000003 --input=1000003 --misalign\n"
      "  fusion-run f.mlir --input=8x4 --input=8x4 --reference-only\n\n"
      "Exit status: 0 pass, 1 failure or error, 2 no CUDA device.\n");
  setToleranceOverride(rtolOption, atolOption);
  return fc::runWithLargeStack([] { return runTool(); });
}
