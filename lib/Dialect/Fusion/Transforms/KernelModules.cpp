//===- KernelModules.cpp - one gpu.module per kernel, compiled in parallel ===//
// The lowering puts all variants of a fusion's kernel into one gpu.module.
// Compiled as one module, every variant's PTX and cubin would be one blob
// stored again for each kernel of the module file, and LLVM and ptxas would
// run over all variants in one thread. These passes give each gpu.func its
// own gpu.module, serialize the modules in parallel (a pass on gpu.module:
// the pass manager runs it over the modules on the context's threads, with
// deterministic output), and replace them with gpu.binary ops as upstream
// gpu-module-to-binary does.
//===----------------------------------------------------------------------===//

#include "fusion/Dialect/Fusion/Transforms/KernelModules.h"

#include "fusion/Dialect/Fusion/IR/FusionOps.h"
#include "mlir/Dialect/GPU/IR/CompilationInterfaces.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Pass/Pass.h"
#include "llvm/ADT/StringMap.h"

using namespace mlir;
using namespace mlir::fusion;

static constexpr StringLiteral kObjectsAttr = "fusion.objects";

namespace {

struct SplitKernelModulesPass
    : PassWrapper<SplitKernelModulesPass, OperationPass<ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(SplitKernelModulesPass)

  StringRef getArgument() const final { return "fusion-split-kernel-modules"; }
  StringRef getDescription() const final {
    return "Give every gpu.func of a multi-kernel gpu.module its own "
           "gpu.module (its own PTX and cubin)";
  }
  void getDependentDialects(DialectRegistry &registry) const override {
    registry.insert<gpu::GPUDialect>();
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SymbolTable symbols(module);
    // "module::func" -> the module that now holds func.
    llvm::StringMap<StringAttr> moved;
    for (auto gpuModule :
         llvm::make_early_inc_range(module.getOps<gpu::GPUModuleOp>())) {
      SmallVector<gpu::GPUFuncOp> funcs(gpuModule.getOps<gpu::GPUFuncOp>());
      if (funcs.size() < 2)
        continue;
      Operation *after = gpuModule;
      for (gpu::GPUFuncOp func : funcs) {
        OpBuilder b(module.getContext());
        b.setInsertionPointAfter(after);
        auto piece =
            gpu::GPUModuleOp::create(b, gpuModule.getLoc(), func.getName());
        piece->setAttrs(gpuModule->getAttrs());
        piece.setName(func.getName());
        // Globals and declarations go with every kernel; unused ones are
        // dropped by LLVM.
        OpBuilder inner = OpBuilder::atBlockEnd(piece.getBody());
        for (Operation &op : gpuModule.getBody()->getOperations()) {
          auto other = dyn_cast<gpu::GPUFuncOp>(op);
          if (other && other != func)
            continue;
          inner.clone(op);
        }
        // Renames the module when its name is taken.
        StringAttr name = symbols.insert(piece);
        moved[(gpuModule.getName() + "::" + func.getName()).str()] = name;
        after = piece;
      }
      symbols.erase(gpuModule);
    }
    if (moved.empty())
      return;
    module.walk([&](LaunchOp launch) {
      SymbolRefAttr kernel = launch.getKernel();
      if (kernel.getNestedReferences().size() != 1)
        return;
      auto it = moved.find((kernel.getRootReference().getValue() +
                            "::" + kernel.getLeafReference().getValue())
                               .str());
      if (it == moved.end())
        return;
      launch.setKernelAttr(SymbolRefAttr::get(
          it->second, {FlatSymbolRefAttr::get(kernel.getLeafReference())}));
    });
  }
};

// Note [Deferred kernels] (lib/Target/Compile.cpp).
struct DeferKernelsPass
    : PassWrapper<DeferKernelsPass, OperationPass<ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(DeferKernelsPass)

  DeferKernelsPass() = default;
  DeferKernelsPass(const DeferKernelsPass &other) : PassWrapper(other) {}
  DeferKernelsPass(DeferKernels mode, ArrayRef<std::string> build, bool split) {
    this->mode = mode;
    this->build = SmallVector<std::string>(build);
    this->split = split;
  }

  StringRef getArgument() const final { return "fusion-defer-kernels"; }
  StringRef getDescription() const final {
    return "Leave kernels to be built when a launch first needs them: erase "
           "their gpu.modules and mark their launches fusion.deferred";
  }

  Option<DeferKernels> mode{
      *this, "mode", llvm::cl::desc("Which kernels to defer"),
      llvm::cl::init(DeferKernels::All),
      llvm::cl::values(clEnumValN(DeferKernels::None, "none", "none"),
                       clEnumValN(DeferKernels::Fallbacks, "fallbacks",
                                  "kernels that only fallback launches use"),
                       clEnumValN(DeferKernels::All, "all", "every kernel"))};
  ListOption<std::string> build{
      *this, "build",
      llvm::cl::desc("Kernels (gpu.func names) built whatever the mode")};
  Option<bool> split{
      *this, "split",
      llvm::cl::desc("The kernels are split into modules of their own "
                     "afterwards (deferral needs it)"),
      llvm::cl::init(true)};

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (mode == DeferKernels::None && build.empty())
      return;
    if (!split) {
      module.emitError("deferred kernels need one kernel per gpu.module "
                       "(split-kernels=true)");
      return signalPassFailure();
    }
    // Before the split (Note [Deferred kernels]): a deferred kernel is never
    // copied into a module of its own. Kernels are (module, func) pairs.
    using Kernel = std::pair<StringAttr, StringAttr>;
    auto kernelOf = [](LaunchOp launch) -> Kernel {
      SymbolRefAttr symbol = launch.getKernel();
      return {symbol.getRootReference(), symbol.getLeafReference()};
    };
    // Each launched kernel, and whether a launch that is not a fallback
    // uses it.
    llvm::DenseMap<Kernel, bool> expected;
    module.walk([&](LaunchOp launch) {
      expected[kernelOf(launch)] |= !launch->hasAttr("fallback");
    });
    llvm::DenseSet<Kernel> deferred;
    for (auto gpuModule :
         llvm::make_early_inc_range(module.getOps<gpu::GPUModuleOp>())) {
      bool launchedLeft = false;
      for (auto func :
           llvm::make_early_inc_range(gpuModule.getOps<gpu::GPUFuncOp>())) {
        Kernel kernel{gpuModule.getNameAttr(), func.getNameAttr()};
        auto it = expected.find(kernel);
        if (it == expected.end())
          continue; // not launched: a helper, left as it is
        bool defer = mode == DeferKernels::All ||
                     (mode == DeferKernels::Fallbacks && !it->second);
        if (!defer || llvm::is_contained(build, func.getName())) {
          launchedLeft = true;
          continue;
        }
        deferred.insert(kernel);
        func.erase();
      }
      if (!launchedLeft)
        gpuModule.erase();
    }
    module.walk([&](LaunchOp launch) {
      if (deferred.contains(kernelOf(launch)))
        launch->setAttr(kDeferredKernelAttr,
                        UnitAttr::get(module.getContext()));
    });
  }
};

// Note [PTX ISA of inline PTX]: LLVM writes the lowest PTX ISA version
// that the chip and its own instructions need (8.0 for sm_90, 8.6 and later
// for sm_100 and later). Inline PTX may need a later one: st.async (cluster
// reductions through mbarriers, FusionDeviceOps.td) needs 8.1. A module
// whose inline PTX holds such an instruction is serialized with that
// version (the target's `features`, where the target sets none) if the
// chip's own is older; the other modules keep LLVM's choice, so their PTX
// does not change.
static int64_t inlinePtxVersion(gpu::GPUModuleOp module) {
  static const std::pair<StringRef, int64_t> kNeeds[] = {{"st.async", 81}};
  int64_t version = 0;
  module.walk([&](LLVM::InlineAsmOp asmOp) {
    for (auto [instruction, needed] : kNeeds)
      if (asmOp.getAsmString().contains(instruction))
        version = std::max(version, needed);
  });
  return version;
}

/// A lower bound of the PTX ISA version LLVM writes for `chip` without
/// features: 8.6 from sm_100 on (LLVM refuses less for them), 8.0 for
/// sm_90, none assumed before (no chip before sm_90 has the instructions
/// that need more).
static int64_t chipPtxVersion(StringRef chip) {
  unsigned sm = 0;
  if (!chip.consume_front("sm_") || chip.consumeInteger(10, sm))
    return 0;
  return sm >= 100 ? 86 : sm >= 90 ? 80 : 0;
}

struct SerializeKernelModulePass
    : PassWrapper<SerializeKernelModulePass, OperationPass<gpu::GPUModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(SerializeKernelModulePass)

  SerializeKernelModulePass() = default;
  SerializeKernelModulePass(const SerializeKernelModulePass &other)
      : PassWrapper(other) {}
  explicit SerializeKernelModulePass(const std::string &toolkit) {
    toolkitPath = toolkit;
  }

  StringRef getArgument() const final {
    return "fusion-serialize-kernel-module";
  }
  StringRef getDescription() const final {
    return "Serialize a gpu.module to PTX for each of its targets (objects "
           "in the fusion.objects attribute); runs over modules in parallel";
  }

  Option<std::string> toolkitPath{
      *this, "toolkit",
      llvm::cl::desc("CUDA toolkit for libdevice (linked only into modules "
                     "that call __nv_* functions)"),
      llvm::cl::init("")};

  void runOnOperation() override {
    gpu::GPUModuleOp op = getOperation();
    ArrayAttr targets = op.getTargetsAttr();
    if (!targets || targets.empty()) {
      op.emitError("the kernel module has no target attributes");
      return signalPassFailure();
    }
    // libdevice is parsed and linked per module: only where it is needed.
    bool needsLibdevice = false;
    op.walk([&](SymbolOpInterface symbol) {
      if (symbol.getName().starts_with("__nv_"))
        needsLibdevice = true;
    });
    int64_t ptxVersion = inlinePtxVersion(op);
    gpu::TargetOptions options(
        needsLibdevice ? StringRef(toolkitPath) : StringRef(),
        /*librariesToLink=*/{}, /*cmdOptions=*/{},
        /*elfSection=*/{}, gpu::CompilationTarget::Assembly);
    SmallVector<Attribute> objects;
    for (Attribute attr : targets) {
      auto target = dyn_cast<gpu::TargetAttrInterface>(attr);
      if (!target) {
        op.emitError() << "target " << attr << " cannot serialize modules";
        return signalPassFailure();
      }
      // Note [PTX ISA of inline PTX].
      if (auto nvvm = dyn_cast<NVVM::NVVMTargetAttr>(attr);
          nvvm && ptxVersion && nvvm.getFeatures().empty() &&
          chipPtxVersion(nvvm.getChip()) < ptxVersion)
        target = cast<gpu::TargetAttrInterface>(NVVM::NVVMTargetAttr::get(
            op.getContext(), nvvm.getO(), nvvm.getTriple(), nvvm.getChip(),
            "+ptx" + std::to_string(ptxVersion), nvvm.getFlags(),
            nvvm.getLink()));
      std::optional<SmallVector<char, 0>> serialized =
          target.serializeToObject(op, options);
      if (!serialized) {
        op.emitError("an error happened while serializing the module");
        return signalPassFailure();
      }
      Attribute object = target.createObject(op, *serialized, options);
      if (!object) {
        op.emitError("an error happened while creating the object");
        return signalPassFailure();
      }
      // The serializer records how long LLVM took (LLVMIRToISATimeInMs);
      // drop it so that the lowered IR is the same run to run.
      if (auto obj = dyn_cast<gpu::ObjectAttr>(object);
          obj && obj.getProperties()) {
        NamedAttrList properties(obj.getProperties());
        properties.erase("LLVMIRToISATimeInMs");
        object = gpu::ObjectAttr::get(
            op.getContext(), obj.getTarget(), obj.getFormat(), obj.getObject(),
            properties.getDictionary(op.getContext()), obj.getKernels());
      }
      objects.push_back(object);
    }
    op->setAttr(kObjectsAttr, ArrayAttr::get(op.getContext(), objects));
  }
};

struct KernelModulesToBinariesPass
    : PassWrapper<KernelModulesToBinariesPass, OperationPass<ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(KernelModulesToBinariesPass)

  StringRef getArgument() const final {
    return "fusion-kernel-modules-to-binaries";
  }
  StringRef getDescription() const final {
    return "Replace each serialized gpu.module by a gpu.binary of its objects";
  }

  void runOnOperation() override {
    for (auto gpuModule : llvm::make_early_inc_range(
             getOperation().getOps<gpu::GPUModuleOp>())) {
      auto objects = gpuModule->getAttrOfType<ArrayAttr>(kObjectsAttr);
      if (!objects) {
        gpuModule.emitError("was not serialized (run "
                            "fusion-serialize-kernel-module first)");
        return signalPassFailure();
      }
      OpBuilder b(gpuModule);
      b.setInsertionPointAfter(gpuModule);
      gpu::BinaryOp::create(b, gpuModule.getLoc(), gpuModule.getName(),
                            gpuModule.getOffloadingHandlerAttr(), objects);
      gpuModule.erase();
    }
  }
};

} // namespace

std::unique_ptr<Pass> mlir::fusion::createFusionSplitKernelModules() {
  return std::make_unique<SplitKernelModulesPass>();
}

std::unique_ptr<Pass> mlir::fusion::createFusionDeferKernels(
    DeferKernels mode, ArrayRef<std::string> build, bool split) {
  return std::make_unique<DeferKernelsPass>(mode, build, split);
}

std::unique_ptr<Pass>
mlir::fusion::createFusionSerializeKernelModule(const std::string &toolkit) {
  return std::make_unique<SerializeKernelModulePass>(toolkit);
}

std::unique_ptr<Pass> mlir::fusion::createFusionKernelModulesToBinaries() {
  return std::make_unique<KernelModulesToBinariesPass>();
}

void mlir::fusion::registerFusionKernelModulePasses() {
  PassRegistration<SplitKernelModulesPass>();
  PassRegistration<DeferKernelsPass>();
  PassRegistration<SerializeKernelModulePass>();
  PassRegistration<KernelModulesToBinariesPass>();
}
