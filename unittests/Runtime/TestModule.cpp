// Serialization of TestModule with FlatBufferBuilder.
#include "TestModule.h"

#include <gtest/gtest.h>

#include <dlfcn.h>

namespace fusion::runtime::testing {

int32_t TestModule::expr(fb::ExprOp op, int32_t a, int32_t b, int32_t c,
                         int64_t imm) {
  exprs.push_back({op, a, b, c, imm});
  return static_cast<int32_t>(exprs.size()) - 1;
}

std::vector<uint8_t> TestModule::build() const {
  flatbuffers::FlatBufferBuilder fbb;
  // FlatBuffers builds back to front, so the first object created ends the
  // file. Creating the inputs' int64 size vectors first (they need no
  // trailing alignment padding) makes every proper prefix of a module with a
  // ranked tensor input lose referenced data (see the truncation test).
  std::vector<flatbuffers::Offset<fb::InputSpec>> inputOffsets;
  for (const TestInput &input : inputs) {
    auto sizes = fbb.CreateVector(input.sizes);
    auto inputName = fbb.CreateString(input.name);
    inputOffsets.push_back(
        fb::CreateInputSpec(fbb, inputName, input.kind, input.dtype, sizes));
  }

  std::vector<flatbuffers::Offset<fb::ExprInst>> exprOffsets;
  for (const TestExpr &e : exprs)
    exprOffsets.push_back(fb::CreateExprInst(fbb, e.op, e.a, e.b, e.c, e.imm));

  std::vector<flatbuffers::Offset<fb::BufferSpec>> bufferOffsets;
  for (const TestBuffer &buffer : buffers)
    bufferOffsets.push_back(fb::CreateBufferSpecDirect(
        fbb, buffer.kind, buffer.dtype, &buffer.sizes, buffer.zeroInit,
        buffer.aliasInput, buffer.strides.empty() ? nullptr : &buffer.strides,
        buffer.keptZero));

  std::vector<flatbuffers::Offset<fb::Kernel>> kernelOffsets;
  for (const TestKernel &kernel : kernels)
    kernelOffsets.push_back(
        fb::CreateKernelDirect(fbb, kernel.name.c_str(), kernel.ptx.c_str(),
                               &kernel.cubin, kernel.sharedBytesStatic));

  std::vector<flatbuffers::Offset<fb::Launch>> launchOffsets;
  for (const std::vector<TestVariant> &variants : launches) {
    std::vector<flatbuffers::Offset<fb::LaunchVariant>> variantOffsets;
    for (const TestVariant &v : variants) {
      std::vector<flatbuffers::Offset<fb::Param>> params;
      for (const TestParam &p : v.params)
        params.push_back(fb::CreateParam(fbb, p.kind, p.value));
      variantOffsets.push_back(fb::CreateLaunchVariantDirect(
          fbb, v.kernel, v.guard, &v.grid, &v.block, v.dynamicSmem,
          v.cluster.empty() ? nullptr : &v.cluster, v.cooperative, &params));
    }
    launchOffsets.push_back(fb::CreateLaunchDirect(fbb, &variantOffsets));
  }

  std::vector<flatbuffers::Offset<fb::ExprCheck>> checkOffsets;
  for (const TestCheck &check : checks)
    checkOffsets.push_back(fb::CreateExprCheckDirect(fbb, check.lhs, check.rhs,
                                                     check.message.c_str()));

  auto root = fb::CreateModuleDirect(
      fbb, version, name.c_str(), target.c_str(), &inputOffsets, &exprOffsets,
      &bufferOffsets, &outputs, &kernelOffsets, &launchOffsets, &checkOffsets,
      definition.c_str());
  fb::FinishModuleBuffer(fbb, root);
  return std::vector<uint8_t>(fbb.GetBufferPointer(),
                              fbb.GetBufferPointer() + fbb.GetSize());
}

TestModule makeAddModule() {
  using fb::ExprOp;
  TestModule m;
  m.name = "add";
  m.inputs = {{"a", fb::ArgKind::Tensor, fb::DType::F32, {-1}},
              {"b", fb::ArgKind::Tensor, fb::DType::F32, {-1}}};
  int32_t n = m.inputSize(0, 0);
  int32_t nb = m.inputSize(1, 0);
  int32_t block = m.constant(128);
  int32_t grid = m.expr(ExprOp::CeilDiv, n, block);
  int32_t one = m.constant(1);
  m.buffers = {{fb::BufferKind::Output, fb::DType::F32, {n}}};
  m.outputs = {0};
  m.kernels = {{"add_f32", "// PTX is not compiled in CPU tests", {}, 0}};
  TestVariant v;
  v.grid = {grid, one, one};
  v.block = {block, one, one};
  v.params = {{fb::ParamKind::Pointer, 0},
              {fb::ParamKind::Pointer, 1},
              {fb::ParamKind::Pointer, 2},
              {fb::ParamKind::I64, n}};
  m.launches = {{v}};
  m.checks = {{nb, n, "input 1 (b) dim 0 must equal input 0 (a) dim 0"}};
  return m;
}

bool cudaDriverLoadable() {
  void *library = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!library)
    return false;
  dlclose(library);
  return true;
}

std::unique_ptr<Executable> load(const TestModule &module) {
  std::vector<uint8_t> bytes = module.build();
  Expected<std::unique_ptr<Executable>> loaded =
      Executable::load(bytes.data(), bytes.size());
  EXPECT_TRUE(loaded.ok()) << loaded.status().toString();
  return loaded.ok() ? std::move(*loaded) : nullptr;
}

} // namespace fusion::runtime::testing
