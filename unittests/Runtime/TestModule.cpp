// Serialization of TestModule with FlatBufferBuilder.
#include "TestModule.h"

#include <gtest/gtest.h>

#include <dlfcn.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>

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
        buffer.keptZero, buffer.aliasOffset));

  // The PTX string is written with its size, so that a test can give it a
  // NUL byte; otherwise the bytes are those of CreateKernelDirect.
  std::vector<flatbuffers::Offset<fb::Kernel>> kernelOffsets;
  for (const TestKernel &kernel : kernels) {
    auto kernelName = fbb.CreateString(kernel.name);
    auto ptx = fbb.CreateString(kernel.ptx);
    auto cubin = fbb.CreateVector(kernel.cubin);
    kernelOffsets.push_back(fb::CreateKernel(fbb, kernelName, ptx, cubin,
                                             kernel.sharedBytesStatic,
                                             kernel.deferred));
  }

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

  std::vector<flatbuffers::Offset<fb::TensorMapSpec>> mapOffsets;
  for (const TestTensorMap &map : tensorMaps)
    mapOffsets.push_back(fb::CreateTensorMapSpecDirect(
        fbb, map.slot, map.dtype, &map.sizes, &map.strides, &map.box,
        map.swizzle, map.oobNan));
  auto root = fb::CreateModuleDirect(
      fbb, version, name.c_str(), target.c_str(), &inputOffsets, &exprOffsets,
      &bufferOffsets, &outputs, &kernelOffsets, &launchOffsets, &checkOffsets,
      definition.c_str(), nullptr, tensorMaps.empty() ? nullptr : &mapOffsets);
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

const char *const kAxpyPtx = R"(
.version 8.0
.target sm_90
.address_size 64

.visible .entry axpy_f32(
	.param .u64 axpy_f32_a,
	.param .u64 axpy_f32_b,
	.param .u64 axpy_f32_out,
	.param .u64 axpy_f32_n,
	.param .f32 axpy_f32_alpha
)
{
	.reg .pred 	%p<2>;
	.reg .b32 	%r<4>;
	.reg .f32 	%f<5>;
	.reg .b64 	%rd<13>;

	ld.param.u64 	%rd1, [axpy_f32_a];
	ld.param.u64 	%rd2, [axpy_f32_b];
	ld.param.u64 	%rd3, [axpy_f32_out];
	ld.param.u64 	%rd4, [axpy_f32_n];
	ld.param.f32 	%f1, [axpy_f32_alpha];
	mov.u32 	%r1, %ctaid.x;
	mov.u32 	%r2, %ntid.x;
	mov.u32 	%r3, %tid.x;
	cvt.u64.u32 	%rd5, %r3;
	mad.wide.u32 	%rd6, %r1, %r2, %rd5;
	setp.ge.s64 	%p1, %rd6, %rd4;
	@%p1 bra 	$L__done;
	shl.b64 	%rd7, %rd6, 2;
	cvta.to.global.u64 	%rd8, %rd1;
	add.s64 	%rd9, %rd8, %rd7;
	ld.global.f32 	%f2, [%rd9];
	cvta.to.global.u64 	%rd10, %rd2;
	add.s64 	%rd11, %rd10, %rd7;
	ld.global.f32 	%f3, [%rd11];
	fma.rn.f32 	%f4, %f1, %f3, %f2;
	cvta.to.global.u64 	%rd12, %rd3;
	add.s64 	%rd12, %rd12, %rd7;
	st.global.f32 	[%rd12], %f4;
$L__done:
	ret;
}
)";

TestModule makeTensorMapModule(int launches) {
  TestModule m;
  m.name = "tile_copy";
  m.inputs = {{"x", fb::ArgKind::Tensor, fb::DType::F32, {-1, -1}}};
  int32_t rows = m.inputSize(0, 0), cols = m.inputSize(0, 1);
  int32_t rowStride = m.expr(fb::ExprOp::InputStride, 0, 0);
  int32_t colStride = m.expr(fb::ExprOp::InputStride, 0, 1);
  int32_t one = m.constant(1);
  int32_t block = m.constant(128);
  m.buffers = {{fb::BufferKind::Output, fb::DType::F32, {rows, cols}}};
  m.outputs = {0};
  m.tensorMaps = {
      {0, fb::DType::F32, {rows, cols}, {rowStride, colStride}, {8, 64}}};
  m.kernels = {{"tile_tma",
                R"(
.version 8.0
.target sm_90a
.address_size 64
.visible .entry tile_tma(
	.param .u64 tile_tma_out,
	.param .align 64 .b8 tile_tma_map[128],
	.param .u64 tile_tma_n
)
{
	ret;
}
)",
                {},
                0},
               {"tile",
                R"(
.version 8.0
.target sm_90a
.address_size 64
.visible .entry tile(
	.param .u64 tile_x,
	.param .u64 tile_out,
	.param .u64 tile_n
)
{
	ret;
}
)",
                {},
                0}};
  TestVariant tma;
  tma.kernel = 0;
  tma.grid = {rows, one, one};
  tma.block = {block, one, one};
  tma.params = {{fb::ParamKind::Pointer, 1},
                {fb::ParamKind::TensorMap, 0},
                {fb::ParamKind::I64, cols}};
  TestVariant plain = tma;
  plain.kernel = 1;
  plain.params = {{fb::ParamKind::Pointer, 0},
                  {fb::ParamKind::Pointer, 1},
                  {fb::ParamKind::I64, cols}};
  m.launches.assign(launches, {tma, plain});
  return m;
}

TestModule makeAxpyModule() {
  TestModule m;
  m.name = "axpy_twice";
  m.target = "sm_90";
  m.inputs = {{"a", fb::ArgKind::Tensor, fb::DType::F32, {-1}},
              {"b", fb::ArgKind::Tensor, fb::DType::F32, {-1}},
              {"alpha", fb::ArgKind::Scalar, fb::DType::F32, {}}};
  int32_t n = m.inputSize(0, 0);
  int32_t nb = m.inputSize(1, 0);
  int32_t block = m.constant(256);
  int32_t grid = m.expr(fb::ExprOp::CeilDiv, n, block);
  int32_t one = m.constant(1);
  int32_t two = m.constant(2);
  int32_t evenGrid =
      m.expr(fb::ExprOp::Mul, m.expr(fb::ExprOp::CeilDiv, grid, two), two);
  int32_t smem = m.constant(64 * 1024);
  int32_t large = m.expr(fb::ExprOp::Lt, m.constant(kAxpyLargeThreshold), n);
  m.buffers = {{fb::BufferKind::Intermediate, fb::DType::F32, {n}, true},
               {fb::BufferKind::Output, fb::DType::F32, {n}},
               {fb::BufferKind::Output, fb::DType::F32, {n}, false, 0}};
  m.outputs = {1, 2};
  m.kernels = {{"axpy_f32", kAxpyPtx, {}, 0}};
  // Slots: 0 a, 1 b, 2 alpha (no pointer), 3 tmp, 4 out, 5 view of a.
  TestVariant first;
  first.grid = {grid, one, one};
  first.block = {block, one, one};
  first.params = {{fb::ParamKind::Pointer, 0},
                  {fb::ParamKind::Pointer, 1},
                  {fb::ParamKind::Pointer, 3},
                  {fb::ParamKind::I64, n},
                  {fb::ParamKind::ScalarF32, 2}};
  TestVariant clustered;
  clustered.guard = large;
  clustered.grid = {evenGrid, one, one};
  clustered.block = {block, one, one};
  clustered.cluster = {two, one, one};
  clustered.dynamicSmem = smem;
  clustered.params = {{fb::ParamKind::Pointer, 3},
                      {fb::ParamKind::Pointer, 0},
                      {fb::ParamKind::Pointer, 4},
                      {fb::ParamKind::I64, n},
                      {fb::ParamKind::ScalarF32, 2}};
  TestVariant cooperative = clustered;
  cooperative.guard = -1;
  cooperative.grid = {grid, one, one};
  cooperative.cluster.clear();
  cooperative.dynamicSmem = -1;
  cooperative.cooperative = true;
  m.launches = {{first}, {clustered, cooperative}};
  m.checks = {{nb, n, "input 1 (b) dim 0 must equal input 0 (a) dim 0"}};
  return m;
}

TestModule makeAxpyChainModule(int launches) {
  TestModule m;
  m.name = "axpy_chain";
  m.target = "sm_90";
  m.inputs = {{"a", fb::ArgKind::Tensor, fb::DType::F32, {-1}},
              {"b", fb::ArgKind::Tensor, fb::DType::F32, {-1}},
              {"alpha", fb::ArgKind::Scalar, fb::DType::F32, {}}};
  int32_t n = m.inputSize(0, 0);
  int32_t nb = m.inputSize(1, 0);
  int32_t block = m.constant(256);
  int32_t grid = m.expr(fb::ExprOp::CeilDiv, n, block);
  int32_t one = m.constant(1);
  m.buffers = {{fb::BufferKind::Intermediate, fb::DType::F32, {n}},
               {fb::BufferKind::Intermediate, fb::DType::F32, {n}},
               {fb::BufferKind::Output, fb::DType::F32, {n}}};
  m.outputs = {2};
  m.kernels = {{"axpy_f32", kAxpyPtx, {}, 0}};
  int32_t source = 0; // a, then the intermediates (slots 3, 4) in turn
  for (int k = 0; k < launches; ++k) {
    int32_t target = k + 1 == launches ? 5 : 3 + k % 2;
    TestVariant v;
    v.grid = {grid, one, one};
    v.block = {block, one, one};
    v.params = {{fb::ParamKind::Pointer, source},
                {fb::ParamKind::Pointer, 1},
                {fb::ParamKind::Pointer, target},
                {fb::ParamKind::I64, n},
                {fb::ParamKind::ScalarF32, 2}};
    m.launches.push_back({v});
    source = target;
  }
  m.checks = {{nb, n, "input 1 (b) dim 0 must equal input 0 (a) dim 0"}};
  return m;
}

namespace {

/// Writes the `bytes` low bytes of `value` at `offset`, little-endian.
void putLE(std::vector<uint8_t> &image, size_t offset, uint64_t value,
           int bytes) {
  for (int i = 0; i < bytes; ++i)
    image[offset + i] = static_cast<uint8_t>(value >> (8 * i));
}

size_t alignUp(size_t value, size_t alignment) {
  return (value + alignment - 1) / alignment * alignment;
}

} // namespace

std::vector<uint8_t> makeTestCubin(const std::string &entry) {
  std::string shstrtab(1, '\0'), strtab(1, '\0');
  auto addName = [](std::string &table, const std::string &name) {
    auto offset = static_cast<uint32_t>(table.size());
    table += name;
    table += '\0';
    return offset;
  };
  uint32_t shstrtabName = addName(shstrtab, ".shstrtab");
  uint32_t strtabName = addName(shstrtab, ".strtab");
  uint32_t symtabName = addName(shstrtab, ".symtab");
  uint32_t textName = addName(shstrtab, ".text." + entry);
  uint32_t sharedName = addName(shstrtab, ".nv.shared." + entry);
  uint32_t entryName = addName(strtab, entry);

  constexpr size_t kTextBytes = 16, kSymbolBytes = 24, kNumSections = 6;
  size_t shstrtabOffset = kCubinElfHeaderBytes;
  size_t strtabOffset = shstrtabOffset + shstrtab.size();
  size_t symtabOffset = alignUp(strtabOffset + strtab.size(), 8);
  size_t textOffset = alignUp(symtabOffset + 2 * kSymbolBytes, 16);
  size_t phOffset = alignUp(textOffset + kTextBytes, 8);
  size_t shOffset = phOffset + kCubinProgramHeaderBytes;
  std::vector<uint8_t> image(shOffset +
                             kNumSections * kCubinSectionHeaderBytes);

  // The ELF header: ELF64, little-endian, version 1, the CUDA ABI, an
  // executable for EM_CUDA (190). e_flags 0 names no SM architecture, so a
  // real driver refuses the image.
  const uint8_t ident[] = {0x7f, 'E', 'L', 'F', 2, 1, 1, 0x41, 8};
  std::copy(std::begin(ident), std::end(ident), image.begin());
  putLE(image, 16, 2, 2);   // e_type
  putLE(image, 18, 190, 2); // e_machine
  putLE(image, 20, 1, 4);   // e_version
  putLE(image, 32, phOffset, 8);
  putLE(image, 40, shOffset, 8);
  putLE(image, 52, kCubinElfHeaderBytes, 2);
  putLE(image, 54, kCubinProgramHeaderBytes, 2);
  putLE(image, 56, 1, 2); // e_phnum
  putLE(image, 58, kCubinSectionHeaderBytes, 2);
  putLE(image, 60, kNumSections, 2);
  putLE(image, 62, 1, 2); // e_shstrndx

  std::copy(shstrtab.begin(), shstrtab.end(), image.begin() + shstrtabOffset);
  std::copy(strtab.begin(), strtab.end(), image.begin() + strtabOffset);
  // Symbol 0 is the null symbol; symbol 1 the entry, a global function in
  // the text section.
  size_t symbol = symtabOffset + kSymbolBytes;
  putLE(image, symbol, entryName, 4);
  putLE(image, symbol + 4, 0x12, 1); // STB_GLOBAL, STT_FUNC
  putLE(image, symbol + 6, 4, 2);    // st_shndx
  putLE(image, symbol + 16, kTextBytes, 8);

  // One PT_LOAD segment: the text.
  putLE(image, phOffset, 1, 4);     // p_type
  putLE(image, phOffset + 4, 5, 4); // p_flags: R, X
  putLE(image, phOffset + 8, textOffset, 8);
  putLE(image, phOffset + 32, kTextBytes, 8); // p_filesz
  putLE(image, phOffset + 40, kTextBytes, 8); // p_memsz
  putLE(image, phOffset + 48, 8, 8);          // p_align

  struct Section {
    uint32_t name, type;
    uint64_t flags, offset, size;
    uint32_t link, info;
    uint64_t align, entrySize;
  };
  const Section sections[kNumSections] = {
      {0, 0, 0, 0, 0, 0, 0, 0, 0},
      {shstrtabName, 3, 0, shstrtabOffset, shstrtab.size(), 0, 0, 1, 0},
      {strtabName, 3, 0, strtabOffset, strtab.size(), 0, 0, 1, 0},
      {symtabName, 2, 0, symtabOffset, 2 * kSymbolBytes, 2, 1, 8, kSymbolBytes},
      {textName, 1, 0x6, textOffset, kTextBytes, 3, 0, 16, 0},
      // NOBITS: 1 KiB of shared memory that takes no bytes of the image.
      {sharedName, 8, 0x3, textOffset + kTextBytes, 1024, 0, 4, 4, 0}};
  for (size_t i = 0; i < kNumSections; ++i) {
    size_t header = shOffset + i * kCubinSectionHeaderBytes;
    const Section &s = sections[i];
    putLE(image, header, s.name, 4);
    putLE(image, header + 4, s.type, 4);
    putLE(image, header + 8, s.flags, 8);
    putLE(image, header + 24, s.offset, 8);
    putLE(image, header + 32, s.size, 8);
    putLE(image, header + 40, s.link, 4);
    putLE(image, header + 44, s.info, 4);
    putLE(image, header + 48, s.align, 8);
    putLE(image, header + 56, s.entrySize, 8);
  }
  return image;
}

std::vector<uint8_t> compileAxpyCubin(const std::string &ptxas,
                                      const std::string &arch,
                                      std::string &why) {
  if (ptxas.empty()) {
    why = "ptxas was not found at configure time";
    return {};
  }
  char dir[] = "/tmp/fusion-cubin-XXXXXX";
  if (!mkdtemp(dir)) {
    why = "mkdtemp failed";
    return {};
  }
  std::string ptxPath = std::string(dir) + "/axpy.ptx";
  std::string cubinPath = std::string(dir) + "/axpy.cubin";
  std::ofstream(ptxPath) << kAxpyPtx;
  std::string command = "'" + ptxas + "' -arch=" + arch + " '" + ptxPath +
                        "' -o '" + cubinPath + "' 2>&1";
  int rc = std::system(command.c_str());
  std::ifstream file(cubinPath, std::ios::binary);
  std::vector<uint8_t> cubin((std::istreambuf_iterator<char>(file)),
                             std::istreambuf_iterator<char>());
  std::remove(ptxPath.c_str());
  std::remove(cubinPath.c_str());
  std::remove(dir);
  if (rc != 0 || cubin.empty()) {
    why = command + " failed with status " + std::to_string(rc);
    return {};
  }
  return cubin;
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
