// Tests of module loading: structure (FlatBuffers verifier, identifier,
// version), fuzzed files, and the semantic checks of every index.
#include "TestModule.h"

#include "fusion/Runtime/Executable.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>
#include <functional>
#include <random>

#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

using namespace fusion::runtime;
using namespace fusion::runtime::testing;
namespace fb = fusion::fb;

namespace {

Expected<std::unique_ptr<Executable>> loadBytes(const std::vector<uint8_t> &b) {
  return Executable::load(b.data(), b.size());
}

/// Loads `module` and expects it rejected with `code` and a message that
/// contains `fragment`.
void expectRejected(const TestModule &module, ErrorCode code,
                    const std::string &fragment) {
  Expected<std::unique_ptr<Executable>> loaded = loadBytes(module.build());
  ASSERT_FALSE(loaded.ok()) << "expected an error containing: " << fragment;
  EXPECT_EQ(loaded.status().code(), code) << loaded.status().toString();
  EXPECT_NE(loaded.status().message().find(fragment), std::string::npos)
      << loaded.status().message();
}

/// Reads and writes little-endian fields of a cubin.
uint64_t getLE(const std::vector<uint8_t> &image, size_t offset, int bytes) {
  uint64_t value = 0;
  for (int i = bytes - 1; i >= 0; --i)
    value = value << 8 | image.at(offset + i);
  return value;
}

void setLE(std::vector<uint8_t> &image, size_t offset, uint64_t value,
           int bytes) {
  for (int i = 0; i < bytes; ++i)
    image.at(offset + i) = static_cast<uint8_t>(value >> (8 * i));
}

/// The offset of field `field` of section header `index` of `image`.
size_t sectionField(const std::vector<uint8_t> &image, size_t index,
                    size_t field) {
  return getLE(image, 40, 8) + index * kCubinSectionHeaderBytes + field;
}

/// The add module with `cubin` as its kernel's cubin.
TestModule addModuleWithCubin(std::vector<uint8_t> cubin) {
  TestModule module = makeAddModule();
  module.kernels[0].cubin = std::move(cubin);
  return module;
}

} // namespace

TEST(ModuleVerifierTest, ValidModuleLoadsWithMetadata) {
  TestModule module = makeAddModule();
  module.target = "sm_90a";
  module.kernels[0].cubin = makeTestCubin("add_f32");
  Expected<std::unique_ptr<Executable>> loaded = loadBytes(module.build());
  ASSERT_TRUE(loaded.ok()) << loaded.status().toString();
  const ModuleInfo &info = (*loaded)->info();
  EXPECT_EQ(info.version, kModuleFormatVersion);
  EXPECT_EQ(info.name, "add");
  EXPECT_EQ(info.target, "sm_90a");
  EXPECT_EQ(info.definition, "fusion.func @test");
  ASSERT_EQ(info.inputs.size(), 2u);
  EXPECT_EQ(info.inputs[1].name, "b");
  EXPECT_EQ(info.inputs[1].kind, ArgKind::Tensor);
  EXPECT_EQ(info.inputs[1].dtype, DType::F32);
  EXPECT_EQ(info.inputs[1].sizes, std::vector<int64_t>{-1});
  ASSERT_EQ(info.outputs.size(), 1u);
  EXPECT_EQ(info.outputs[0].dtype, DType::F32);
  EXPECT_EQ(info.outputs[0].rank, 1);
  EXPECT_EQ(info.outputs[0].aliasInput, -1);
  ASSERT_EQ(info.kernels.size(), 1u);
  EXPECT_EQ(info.kernels[0].name, "add_f32");
  EXPECT_TRUE(info.kernels[0].hasCubin);
  EXPECT_EQ(info.kernels[0].cubinSize, module.kernels[0].cubin.size());
  EXPECT_EQ(info.kernels[0].ptxSize, module.kernels[0].ptx.size());
  EXPECT_EQ(info.numLaunches, 1u);
  EXPECT_EQ(info.numExprs, 5u);
}

// The test modules have no producer field, as files from before 0.1.0.
TEST(ModuleVerifierTest, AModuleWithoutAProducerLoads) {
  Expected<std::unique_ptr<Executable>> loaded =
      loadBytes(makeAddModule().build());
  ASSERT_TRUE(loaded.ok()) << loaded.status().toString();
  EXPECT_EQ((*loaded)->info().producer, "");
  EXPECT_EQ((*loaded)->info().name, "add");
}

TEST(ModuleVerifierTest, LoadsFromUnalignedMemory) {
  std::vector<uint8_t> bytes = makeAddModule().build();
  std::vector<uint8_t> shifted(bytes.size() + 1);
  std::copy(bytes.begin(), bytes.end(), shifted.begin() + 1);
  Expected<std::unique_ptr<Executable>> loaded =
      Executable::load(shifted.data() + 1, bytes.size());
  EXPECT_TRUE(loaded.ok()) << loaded.status().toString();
}

TEST(ModuleVerifierTest, RejectsWrongIdentifier) {
  std::vector<uint8_t> bytes = makeAddModule().build();
  bytes[4] = 'N';
  bytes[5] = 'O';
  bytes[6] = 'P';
  bytes[7] = 0x01;
  Expected<std::unique_ptr<Executable>> loaded = loadBytes(bytes);
  ASSERT_FALSE(loaded.ok());
  EXPECT_EQ(loaded.status().code(), ErrorCode::InvalidModule);
  EXPECT_NE(loaded.status().message().find(
                "file identifier is 'NOP\\x01', expected 'FUSN'"),
            std::string::npos)
      << loaded.status().message();
}

TEST(ModuleVerifierTest, RejectsTinyAndEmptyFiles) {
  for (size_t size : {0, 1, 7}) {
    std::vector<uint8_t> bytes(size, 0);
    Expected<std::unique_ptr<Executable>> loaded =
        Executable::load(bytes.data(), bytes.size());
    ASSERT_FALSE(loaded.ok());
    EXPECT_EQ(loaded.status().code(), ErrorCode::InvalidModule);
  }
  Expected<std::unique_ptr<Executable>> loaded = Executable::load(nullptr, 0);
  EXPECT_EQ(loaded.status().code(), ErrorCode::InvalidModule);
  loaded = Executable::load(nullptr, 16);
  EXPECT_EQ(loaded.status().code(), ErrorCode::InvalidArgument);
}

// Note [Deferred kernels]: a deferred kernel has no code, needs format
// version 4 and a definition to be built from; a kernel that is not
// deferred needs code.
TEST(ModuleVerifierTest, DeferredKernels) {
  TestModule module = makeAddModule();
  module.kernels[0].ptx.clear();
  module.kernels[0].deferred = true;
  Expected<std::unique_ptr<Executable>> loaded = loadBytes(module.build());
  ASSERT_TRUE(loaded.ok()) << loaded.status().toString();
  EXPECT_TRUE(loaded.value()->info().kernels[0].deferred);
  EXPECT_FALSE(loaded.value()->kernelBuilt(0));

  struct Case {
    std::function<void(TestModule &)> change;
    const char *message;
  } cases[] = {
      {[](TestModule &m) { m.kernels[0].ptx = "// code"; },
       "is deferred but has code"},
      {[](TestModule &m) { m.version = 3; },
       "deferred kernels need module format version 4, the file has 3"},
      {[](TestModule &m) { m.definition.clear(); },
       "is deferred but the module has no definition"},
      {[](TestModule &m) { m.kernels[0].deferred = false; },
       "no PTX and no cubin"},
  };
  for (const Case &c : cases) {
    TestModule bad = module;
    c.change(bad);
    Expected<std::unique_ptr<Executable>> refused = loadBytes(bad.build());
    ASSERT_FALSE(refused.ok()) << c.message;
    EXPECT_EQ(refused.status().code(), ErrorCode::InvalidModule);
    EXPECT_NE(refused.status().message().find(c.message), std::string::npos)
        << refused.status().message();
  }
}

TEST(ModuleVerifierTest, RejectsNewerVersionNamingBoth) {
  TestModule module = makeAddModule();
  module.version = kModuleFormatVersion + 1;
  Expected<std::unique_ptr<Executable>> loaded = loadBytes(module.build());
  ASSERT_FALSE(loaded.ok());
  EXPECT_EQ(loaded.status().code(), ErrorCode::UnsupportedVersion);
  EXPECT_EQ(loaded.status().message(),
            "module format version 5 is newer than this runtime supports "
            "(version 4)");
}

// A view's offset (a slice that starts inside its input) needs format 2 and
// an aliased input; its register is checked like every other.
TEST(ModuleVerifierTest, ChecksTheOffsetOfAView) {
  auto viewModule = [](uint32_t version, int32_t alias, int32_t offset) {
    TestModule module;
    module.version = version;
    module.inputs = {{"x", fb::ArgKind::Tensor, fb::DType::F32, {-1}}};
    int32_t n = module.inputSize(0, 0);
    module.buffers = {{fb::BufferKind::Output,
                       fb::DType::F32,
                       {n},
                       false,
                       alias,
                       {},
                       false,
                       offset}};
    module.outputs = {0};
    return module;
  };
  TestModule ok = viewModule(2, 0, 0);
  EXPECT_TRUE(loadBytes(ok.build()).ok());
  expectRejected(viewModule(1, 0, 0), ErrorCode::InvalidModule,
                 "buffer 0: alias_offset needs module format version 2, the "
                 "file has 1");
  expectRejected(viewModule(2, -1, 0), ErrorCode::InvalidModule,
                 "buffer 0: alias_offset without alias_input");
  expectRejected(viewModule(2, 0, 99), ErrorCode::InvalidModule,
                 "buffer 0 alias_offset: register 99 out of range (module has "
                 "1 registers)");
}

// Note [Tensor maps]: the copy engine's static rules are checked at load.
TEST(ModuleVerifierTest, ChecksTensorMaps) {
  EXPECT_TRUE(loadBytes(makeTensorMapModule().build()).ok());
  auto broken = [](auto change) {
    TestModule m = makeTensorMapModule();
    change(m);
    return m;
  };
  expectRejected(broken([](TestModule &m) { m.version = 2; }),
                 ErrorCode::InvalidModule,
                 "tensor maps need module format version 3, the file has 2");
  expectRejected(broken([](TestModule &m) {
                   m.tensorMaps[0].box = {8, 300};
                 }),
                 ErrorCode::InvalidModule,
                 "tensor map 0: box dim 1 is 300 (1 to 256)");
  expectRejected(broken([](TestModule &m) {
                   m.tensorMaps[0].box = {8, 3};
                 }),
                 ErrorCode::InvalidModule,
                 "tensor map 0: the innermost box dim is 12 bytes, not a "
                 "multiple of 16");
  expectRejected(broken([](TestModule &m) { m.tensorMaps[0].box = {8}; }),
                 ErrorCode::InvalidModule,
                 "tensor map 0: 1 box dims for 2 dims");
  expectRejected(broken([](TestModule &m) {
                   m.tensorMaps[0].swizzle = fb::TensorMapSwizzle::B128;
                 }),
                 ErrorCode::InvalidModule,
                 "tensor map 0: the innermost box dim is 256 bytes, more "
                 "than the 128-byte swizzle span");
  expectRejected(broken([](TestModule &m) {
                   m.tensorMaps[0].dtype = fb::DType::I32;
                   m.tensorMaps[0].oobNan = true;
                 }),
                 ErrorCode::InvalidModule, "tensor map 0: NaN fill for i32");
  expectRejected(broken([](TestModule &m) {
                   auto &map = m.tensorMaps[0];
                   for (int k = 0; k < 5; ++k) {
                     map.sizes.push_back(map.sizes[0]);
                     map.strides.push_back(map.strides[0]);
                     map.box.insert(map.box.begin(), 1);
                   }
                 }),
                 ErrorCode::InvalidModule,
                 "tensor map 0: rank 7 (bulk copies take 1 to 5 dims)");
  expectRejected(broken([](TestModule &m) { m.tensorMaps[0].slot = 9; }),
                 ErrorCode::InvalidModule,
                 "tensor map 0: slot 9 out of range (module has 2 slots)");
  expectRejected(
      broken([](TestModule &m) { m.launches[0][0].params[1].value = 1; }),
      ErrorCode::InvalidModule,
      "param 1: tensor map 1 out of range (module has 1)");
}

TEST(ModuleVerifierTest, RejectsMissingVersion) {
  TestModule module = makeAddModule();
  module.version = 0;
  expectRejected(module, ErrorCode::InvalidModule, "no format version");
}

TEST(ModuleVerifierTest, RejectsEveryTruncation) {
  std::vector<uint8_t> bytes = makeAddModule().build();
  ASSERT_TRUE(loadBytes(bytes).ok());
  for (size_t size = 0; size < bytes.size(); ++size) {
    Expected<std::unique_ptr<Executable>> loaded =
        Executable::load(bytes.data(), size);
    ASSERT_FALSE(loaded.ok()) << "prefix of " << size << " of " << bytes.size()
                              << " bytes was accepted";
    EXPECT_EQ(loaded.status().code(), ErrorCode::InvalidModule);
    EXPECT_FALSE(loaded.status().message().empty());
  }
}

TEST(ModuleVerifierTest, SurvivesRandomByteFlips) {
  TestModule module = makeAddModule();
  // Give the fuzzer more structure to break: variants, buffers, checks.
  int32_t big = module.constant(4096);
  int32_t isBig = module.expr(fb::ExprOp::Lt, big, 0);
  module.buffers.push_back(
      {fb::BufferKind::Intermediate, fb::DType::F16, {0, 4}, true});
  TestVariant second = module.launches[0][0];
  module.launches[0][0].guard = isBig;
  module.launches[0].push_back(second);
  std::vector<uint8_t> original = module.build();
  ASSERT_TRUE(loadBytes(original).ok())
      << loadBytes(original).status().toString();

  std::mt19937 random(1234);
  int rejected = 0, accepted = 0;
  for (int trial = 0; trial < 20000; ++trial) {
    std::vector<uint8_t> bytes = original;
    int flips = 1 + static_cast<int>(random() % 4);
    for (int f = 0; f < flips; ++f)
      bytes[random() % bytes.size()] ^=
          static_cast<uint8_t>(1 + random() % 255);
    Expected<std::unique_ptr<Executable>> loaded = loadBytes(bytes);
    if (!loaded.ok()) {
      ++rejected;
      ErrorCode code = loaded.status().code();
      EXPECT_TRUE(code == ErrorCode::InvalidModule ||
                  code == ErrorCode::UnsupportedVersion)
          << loaded.status().toString();
      continue;
    }
    ++accepted;
    // Whatever loads must evaluate without crashing, with any inputs.
    const ModuleInfo &info = (*loaded)->info();
    std::vector<Argument> args;
    std::vector<std::vector<int64_t>> sizes;
    for (const InputInfo &input : info.inputs) {
      sizes.emplace_back(input.sizes.size(), 1000);
      for (size_t d = 0; d < input.sizes.size(); ++d)
        if (input.sizes[d] >= 0)
          sizes.back()[d] = input.sizes[d];
    }
    for (size_t i = 0; i < info.inputs.size(); ++i) {
      const InputInfo &input = info.inputs[i];
      if (input.kind == ArgKind::Scalar)
        args.push_back(Argument::intScalar(3, input.dtype));
      else
        args.push_back(Argument::tensor(reinterpret_cast<void *>(0x10000),
                                        input.dtype, sizes[i].data(),
                                        sizes[i].size()));
    }
    (void)(*loaded)->plan(args);
  }
  EXPECT_GT(rejected, 0);
  std::cout << "byte flips: " << rejected << " rejected, " << accepted
            << " accepted (flips in strings or values)\n";
}

TEST(ModuleVerifierTest, RejectsBadInputs) {
  TestModule module = makeAddModule();
  module.inputs[0].sizes = {-2};
  expectRejected(module, ErrorCode::InvalidModule,
                 "input 0 (a): invalid static size -2");

  module = makeAddModule();
  module.inputs.push_back({"s", fb::ArgKind::Scalar, fb::DType::I64, {4}});
  expectRejected(module, ErrorCode::InvalidModule, "a scalar has no sizes");

  module = makeAddModule();
  module.inputs[1].dtype = static_cast<fb::DType>(42);
  expectRejected(module, ErrorCode::InvalidModule,
                 "input 1 (b): invalid dtype 42");

  module = makeAddModule();
  module.inputs[0].sizes.assign(kMaxRank + 1, -1);
  expectRejected(module, ErrorCode::InvalidModule, "exceeds the maximum");
}

// FlatBuffers' verifier checks only the 4-byte alignment of a vector's
// length, but an input's sizes are int64 read in place (the fuzzer found a
// file with them 4 bytes off, which UBSan reports as a misaligned load).
// Here the offset to input 0's sizes is moved 4 bytes back, onto a new
// length of 1 written there: the vector then starts at its old length field.
TEST(ModuleVerifierTest, RejectsMisalignedInputSizes) {
  TestModule module = makeAddModule();
  module.inputs[0].sizes = {-1, -1};
  std::vector<uint8_t> bytes = module.build();
  const fb::InputSpec *spec = fb::GetModule(bytes.data())->inputs()->Get(0);
  // A generated table derives from flatbuffers::Table privately.
  const auto *table = reinterpret_cast<const flatbuffers::Table *>(spec);
  const auto *field = reinterpret_cast<const uint8_t *>(spec) +
                      table->GetOptionalFieldOffset(fb::InputSpec::VT_SIZES);
  const auto *vector =
      reinterpret_cast<const uint8_t *>(spec->sizes()->data()) - 4;
  ASSERT_EQ(reinterpret_cast<uintptr_t>(vector + 4) % 8, 0u);
  size_t fieldAt = field - bytes.data();
  size_t vectorAt = vector - bytes.data();
  ASSERT_EQ(getLE(bytes, fieldAt, 4), vectorAt - fieldAt);
  setLE(bytes, fieldAt, vectorAt - 4 - fieldAt, 4);
  setLE(bytes, vectorAt - 4, 1, 4);
  Expected<std::unique_ptr<Executable>> loaded = loadBytes(bytes);
  ASSERT_FALSE(loaded.ok());
  EXPECT_EQ(loaded.status().code(), ErrorCode::InvalidModule);
  // (The 4 bytes overwritten held input 0's name, hence no name check.)
  EXPECT_EQ(loaded.status().message().rfind("invalid module: input 0 (", 0), 0u)
      << loaded.status().toString();
  EXPECT_NE(loaded.status().message().find(
                "): its sizes (int64) are not aligned to 8 bytes"),
            std::string::npos)
      << loaded.status().toString();
}

TEST(ModuleVerifierTest, RejectsBadExprOperands) {
  TestModule module = makeAddModule();
  module.exprs[3].a = 3; // ceildiv reading itself
  expectRejected(module, ErrorCode::InvalidModule,
                 "expr 3 (ceildiv): operand a = 3 is not an earlier register");

  module = makeAddModule();
  module.exprs[3].b = 7; // a later register
  expectRejected(module, ErrorCode::InvalidModule,
                 "expr 3 (ceildiv): operand b = 7");

  module = makeAddModule();
  module.expr(fb::ExprOp::Select, 0, 1, -1);
  expectRejected(module, ErrorCode::InvalidModule, "operand c = -1");

  module = makeAddModule();
  module.exprs[0].b = 1; // dim 1 of a rank-1 input
  expectRejected(module, ErrorCode::InvalidModule,
                 "dim 1 out of range for input 0 (a) of rank 1");

  module = makeAddModule();
  module.exprs[0].a = 2; // no input 2
  expectRejected(module, ErrorCode::InvalidModule,
                 "input 2 is not a tensor input");

  module = makeAddModule();
  module.expr(fb::ExprOp::ScalarInput, 0); // a tensor, not a scalar
  expectRejected(module, ErrorCode::InvalidModule,
                 "input 0 (a) is not an integer scalar");

  module = makeAddModule();
  module.inputs.push_back({"eps", fb::ArgKind::Scalar, fb::DType::F32, {}});
  module.expr(fb::ExprOp::ScalarInput, 2); // a float scalar
  expectRejected(module, ErrorCode::InvalidModule,
                 "input 2 (eps) is not an integer scalar");

  module = makeAddModule();
  module.expr(fb::ExprOp::PtrAligned, 0, 0, 0, 0);
  expectRejected(module, ErrorCode::InvalidModule,
                 "alignment 0 must be positive");

  module = makeAddModule();
  module.expr(fb::ExprOp::PtrAligned, 3, 0, 0, 16); // slots: 2 inputs, 1 buffer
  expectRejected(module, ErrorCode::InvalidModule,
                 "slot 3 out of range (module has 3 slots)");

  module = makeAddModule();
  module.expr(static_cast<fb::ExprOp>(200));
  expectRejected(module, ErrorCode::InvalidModule, "expr 5: invalid op 200");
}

TEST(ModuleVerifierTest, RejectsBadBuffersAndOutputs) {
  TestModule module = makeAddModule();
  module.buffers[0].sizes = {99};
  expectRejected(module, ErrorCode::InvalidModule,
                 "buffer 0 sizes[0]: register 99 out of range (module has 5 "
                 "registers)");

  module = makeAddModule();
  module.buffers[0].strides = {0, 1};
  expectRejected(module, ErrorCode::InvalidModule,
                 "buffer 0 strides: expected 1 registers, got 2");

  module = makeAddModule();
  module.buffers[0].aliasInput = 5;
  expectRejected(module, ErrorCode::InvalidModule,
                 "alias_input 5 is not a tensor input");

  module = makeAddModule();
  module.buffers[0].aliasInput = 0;
  module.buffers[0].zeroInit = true;
  expectRejected(module, ErrorCode::InvalidModule,
                 "a view of an input cannot be zero-initialized");

  module = makeAddModule();
  module.buffers.push_back(
      {fb::BufferKind::Intermediate, fb::DType::F32, {0}, false, 1});
  expectRejected(module, ErrorCode::InvalidModule,
                 "only an output may alias an input");

  // kept_zero: zero-initialized intermediates only.
  module = makeAddModule();
  module.buffers.push_back(
      {fb::BufferKind::Intermediate, fb::DType::I32, {0}, false});
  module.buffers.back().keptZero = true;
  expectRejected(module, ErrorCode::InvalidModule,
                 "buffer 1: kept_zero needs a zero-initialized intermediate");
  module = makeAddModule();
  module.buffers[0].zeroInit = true;
  module.buffers[0].keptZero = true;
  expectRejected(module, ErrorCode::InvalidModule,
                 "buffer 0: kept_zero needs a zero-initialized intermediate");

  module = makeAddModule();
  module.outputs = {1};
  expectRejected(module, ErrorCode::InvalidModule,
                 "output 0: buffer 1 out of range (module has 1 buffers)");

  module = makeAddModule();
  module.outputs = {0, 0};
  expectRejected(module, ErrorCode::InvalidModule, "listed twice");

  module = makeAddModule();
  module.outputs = {};
  expectRejected(module, ErrorCode::InvalidModule,
                 "buffer 0 is an output but not listed in outputs");

  module = makeAddModule();
  module.buffers.push_back({fb::BufferKind::Intermediate, fb::DType::F32, {0}});
  module.outputs = {0, 1};
  expectRejected(module, ErrorCode::InvalidModule,
                 "output 1: buffer 1 is not an output buffer");
}

TEST(ModuleVerifierTest, RejectsBadKernelsAndLaunches) {
  TestModule module = makeAddModule();
  module.launches[0][0].kernel = 1;
  expectRejected(module, ErrorCode::InvalidModule,
                 "launch 0 variant 0: kernel 1 out of range (module has 1 "
                 "kernels)");

  module = makeAddModule();
  module.launches[0][0].kernel = -1;
  expectRejected(module, ErrorCode::InvalidModule, "kernel -1 out of range");

  module = makeAddModule();
  module.launches[0][0].grid = {3, 4};
  expectRejected(module, ErrorCode::InvalidModule,
                 "launch 0 variant 0 grid: expected 3 registers, got 2");

  module = makeAddModule();
  module.launches[0][0].block = {2, 4, 17};
  expectRejected(module, ErrorCode::InvalidModule,
                 "launch 0 variant 0 block[2]: register 17 out of range");

  module = makeAddModule();
  module.launches[0][0].cluster = {4};
  expectRejected(module, ErrorCode::InvalidModule,
                 "cluster: expected 3 registers, got 1");

  module = makeAddModule();
  module.launches[0][0].guard = 5;
  expectRejected(module, ErrorCode::InvalidModule, "guard: register 5");

  module = makeAddModule();
  module.launches[0][0].dynamicSmem = -7;
  expectRejected(module, ErrorCode::InvalidModule, "dynamic_smem: register -7");

  module = makeAddModule();
  module.launches[0][0].params[2].value = 3; // slots 0..2
  expectRejected(module, ErrorCode::InvalidModule,
                 "launch 0 variant 0 param 2: slot 3 out of range (module has "
                 "3 slots)");

  module = makeAddModule();
  module.inputs.push_back({"n", fb::ArgKind::Scalar, fb::DType::I64, {}});
  module.launches[0][0].params[0].value = 2; // pointer of a scalar input
  expectRejected(module, ErrorCode::InvalidModule,
                 "param 0: slot 2 is scalar input 2 (n), which has no pointer");

  module = makeAddModule();
  module.inputs.push_back({"n", fb::ArgKind::Scalar, fb::DType::I64, {}});
  module.launches[0][0].params[2].value = 3; // the output moved to slot 3
  module.launches[0][0].params.push_back({fb::ParamKind::ScalarF32, 2});
  expectRejected(module, ErrorCode::InvalidModule,
                 "input 2 (n) is not a floating scalar");

  module = makeAddModule();
  module.launches[0][0].params.push_back({fb::ParamKind::I32, 5});
  expectRejected(module, ErrorCode::InvalidModule, "param 4: register 5");

  module = makeAddModule();
  module.launches[0][0].params.push_back({static_cast<fb::ParamKind>(9), 0});
  expectRejected(module, ErrorCode::InvalidModule, "param 4: invalid kind 9");

  module = makeAddModule();
  module.launches[0][0].params.assign(4200, {fb::ParamKind::I64, 0});
  expectRejected(module, ErrorCode::InvalidModule,
                 "33600 bytes of parameters exceed the limit 32764");

  module = makeAddModule();
  module.launches[0].clear();
  expectRejected(module, ErrorCode::InvalidModule, "launch 0: no variants");

  module = makeAddModule();
  module.kernels[0].ptx.clear();
  expectRejected(module, ErrorCode::InvalidModule,
                 "kernel 0 (add_f32): no PTX and no cubin");

  module = makeAddModule();
  module.kernels[0].name.clear();
  expectRejected(module, ErrorCode::InvalidModule,
                 "kernel 0: empty entry name");
}

TEST(ModuleVerifierTest, RejectsBadChecks) {
  TestModule module = makeAddModule();
  module.checks[0].rhs = 40;
  expectRejected(module, ErrorCode::InvalidModule,
                 "check 0 rhs: register 40 out of range");
}

namespace {

/// A file in the test's temporary directory, removed at the end.
class TempFile {
public:
  explicit TempFile(const std::string &name)
      : path_(::testing::TempDir() + "fusion_" + std::to_string(getpid()) +
              "_" + name) {}
  ~TempFile() { std::remove(path_.c_str()); }
  TempFile(const TempFile &) = delete;
  TempFile &operator=(const TempFile &) = delete;
  const std::string &path() const { return path_; }

  /// Writes `bytes` and makes the file `size` bytes long (a sparse tail of
  /// zeros when larger).
  void write(const std::string &bytes, off_t size) const {
    int fd = ::open(path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    ASSERT_GE(fd, 0) << path_;
    ASSERT_EQ(::write(fd, bytes.data(), bytes.size()),
              static_cast<ssize_t>(bytes.size()));
    ASSERT_EQ(::ftruncate(fd, size), 0);
    ::close(fd);
  }

private:
  std::string path_;
};

/// `text` as a POSIX extended regular expression that matches it.
std::string quoteRegex(const std::string &text) {
  std::string out;
  for (char c : text) {
    if (std::strchr("\\^$.|?*+()[]{}", c))
      out += '\\';
    out += c;
  }
  return out;
}

/// The body of the child process of expectLoadFileFailsQuickly: at most
/// 10 s and 2 GiB of address space, the status on stderr, and an exit code
/// that is the error code (100 when the module loads).
[[noreturn]] void loadFileInChild(const std::string &path) {
  alarm(10);
  struct rlimit limit;
  limit.rlim_cur = limit.rlim_max = rlim_t(2) << 30;
  setrlimit(RLIMIT_AS, &limit);
  Expected<std::unique_ptr<Executable>> loaded = Executable::loadFile(path);
  std::fprintf(stderr, "status: %s\n", loaded.status().toString().c_str());
  std::fflush(stderr);
  _exit(loaded.ok() ? 100 : static_cast<int>(loaded.status().code()));
}

/// Runs `loadFile(path)` in a child process and expects it to exit with
/// `code` and a message that contains `fragment`, within the limits of
/// loadFileInChild.
void expectLoadFileFailsQuickly(const std::string &path, ErrorCode code,
                                const std::string &fragment) {
  EXPECT_EXIT(loadFileInChild(path),
              ::testing::ExitedWithCode(static_cast<int>(code)),
              quoteRegex(fragment));
}

} // namespace

TEST(ModuleVerifierTest, LoadFileLoadsAModuleFile) {
  std::vector<uint8_t> bytes = makeAddModule().build();
  TempFile file("add.fusionmod");
  file.write(std::string(bytes.begin(), bytes.end()),
             static_cast<off_t>(bytes.size()));
  Expected<std::unique_ptr<Executable>> loaded =
      Executable::loadFile(file.path());
  ASSERT_TRUE(loaded.ok()) << loaded.status().toString();
  EXPECT_EQ((*loaded)->info().name, "add");
}

TEST(ModuleVerifierTest, LoadFileRejectsADirectory) {
  std::string dir = ::testing::TempDir();
  Expected<std::unique_ptr<Executable>> loaded = Executable::loadFile(dir);
  ASSERT_FALSE(loaded.ok());
  EXPECT_EQ(loaded.status().code(), ErrorCode::FileError);
  EXPECT_EQ(loaded.status().message(),
            "module file '" + dir + "' is not a regular file (a directory)");
}

TEST(ModuleVerifierTest, LoadFileRejectsDevicesAndFifosQuickly) {
  // /dev/zero was read until memory ran out; a FIFO without a writer
  // blocked in open.
  expectLoadFileFailsQuickly(
      "/dev/zero", ErrorCode::FileError,
      "FileError: module file '/dev/zero' is not a regular file (a "
      "character device)");
  TempFile fifo("fifo");
  ASSERT_EQ(mkfifo(fifo.path().c_str(), 0600), 0);
  expectLoadFileFailsQuickly(fifo.path(), ErrorCode::FileError,
                             "FileError: module file '" + fifo.path() +
                                 "' is not a regular file (a FIFO)");
}

TEST(ModuleVerifierTest, LoadFileChecksTheHeaderBeforeReadingTheRest) {
  // 3 GiB (sparse) that is not a module: rejected after 8 bytes.
  TempFile file("not_a_module");
  file.write(std::string("\0\0\0\0ELF!", 8), off_t(3) << 30);
  expectLoadFileFailsQuickly(file.path(), ErrorCode::InvalidModule,
                             file.path() +
                                 ": invalid module: not a Fusion module: file "
                                 "identifier is 'ELF!', expected 'FUSN'");
}

TEST(ModuleVerifierTest, LoadFileRejectsAFileOverTheSizeLimit) {
  EXPECT_EQ(kMaxModuleFileBytes, uint64_t(1) << 30);
  TempFile file("huge.fusionmod");
  file.write(std::string("\0\0\0\0FUSN", 8),
             static_cast<off_t>(kMaxModuleFileBytes + 1));
  expectLoadFileFailsQuickly(
      file.path(), ErrorCode::FileError,
      "FileError: module file '" + file.path() +
          "' is 1073741825 bytes, larger than the limit of 1073741824 bytes "
          "(1 GiB)");
}

TEST(ModuleVerifierTest, LoadFileErrors) {
  Expected<std::unique_ptr<Executable>> loaded =
      Executable::loadFile("/nonexistent/dir/module.fusionmod");
  ASSERT_FALSE(loaded.ok());
  EXPECT_EQ(loaded.status().code(), ErrorCode::FileError);
  EXPECT_NE(loaded.status().message().find("/nonexistent/dir/module.fusionmod"),
            std::string::npos);

  // Shorter than a header: the verifier's message, after the path.
  TempFile small("small.fusionmod");
  small.write("FUS", 3);
  loaded = Executable::loadFile(small.path());
  ASSERT_FALSE(loaded.ok());
  EXPECT_EQ(loaded.status().code(), ErrorCode::InvalidModule);
  EXPECT_EQ(loaded.status().message(),
            small.path() +
                ": invalid module: not a Fusion module: 3 bytes is too small");
}

//===----------------------------------------------------------------------===//
// Cubins and PTX (Note [Cubin checks])
//===----------------------------------------------------------------------===//

TEST(ModuleVerifierTest, RejectsACubinSmallerThanAnElfHeader) {
  // cuModuleLoadData takes no size: a 2-byte cubin that loaded had the
  // driver read past its bytes.
  expectRejected(addModuleWithCubin({0x7f, 'E'}), ErrorCode::InvalidModule,
                 "invalid module: kernel 0 (add_f32): cubin of 2 bytes: "
                 "smaller than an ELF64 header (64 bytes)");
  std::vector<uint8_t> cubin = makeTestCubin("add_f32");
  cubin.resize(kCubinElfHeaderBytes - 1);
  expectRejected(addModuleWithCubin(cubin), ErrorCode::InvalidModule,
                 "cubin of 63 bytes: smaller than an ELF64 header");
}

TEST(ModuleVerifierTest, AcceptsWellFormedCubins) {
  std::vector<uint8_t> cubin = makeTestCubin("add_f32");
  EXPECT_TRUE(loadBytes(addModuleWithCubin(cubin).build()).ok());
  // Extended numbering: e_shnum 0, the count in section 0's sh_size, and
  // e_shstrndx SHN_XINDEX, the index in section 0's sh_link.
  size_t numSections = getLE(cubin, 60, 2);
  size_t nameTable = getLE(cubin, 62, 2);
  setLE(cubin, 60, 0, 2);
  setLE(cubin, 62, 0xffff, 2);
  setLE(cubin, sectionField(cubin, 0, 32), numSections, 8);
  setLE(cubin, sectionField(cubin, 0, 40), nameTable, 4);
  Expected<std::unique_ptr<Executable>> loaded =
      loadBytes(addModuleWithCubin(cubin).build());
  EXPECT_TRUE(loaded.ok()) << loaded.status().toString();
  // Past the image through the extended count.
  setLE(cubin, sectionField(cubin, 0, 32), numSections + 1, 8);
  expectRejected(addModuleWithCubin(cubin), ErrorCode::InvalidModule,
                 "section header table (offset ");
}

TEST(ModuleVerifierTest, AcceptsCubinsFromPtxas) {
  // What the compiler embeds: ptxas output (ModuleWriter runs ptxas too).
  for (const char *arch : {"sm_90", "sm_90a"}) {
    std::string why;
    std::vector<uint8_t> cubin =
        compileAxpyCubin(FUSION_PTXAS_EXECUTABLE, arch, why);
    if (cubin.empty())
      GTEST_SKIP() << why;
    TestModule module = makeAxpyModule();
    module.kernels[0].cubin = cubin;
    Expected<std::unique_ptr<Executable>> loaded = loadBytes(module.build());
    EXPECT_TRUE(loaded.ok()) << arch << ": " << loaded.status().toString();
  }
}

TEST(ModuleVerifierTest, RejectsCubinsWhoseHeadersDoNotFitTheImage) {
  const std::vector<uint8_t> good = makeTestCubin("add_f32");
  const size_t size = good.size();
  const size_t shoff = getLE(good, 40, 8);
  const size_t phoff = getLE(good, 32, 8);
  struct Case {
    std::string expected;
    std::function<void(std::vector<uint8_t> &)> corrupt;
  };
  const std::vector<Case> cases = {
      {"no ELF magic (starts with 7f 45 4c 00)", [](auto &c) { c[3] = 0; }},
      {"ELF class 1, expected 2 (ELF64)", [](auto &c) { c[4] = 1; }},
      {"ELF data encoding 2, expected 1 (little-endian)",
       [](auto &c) { c[5] = 2; }},
      {"ELF version 0, expected 1", [](auto &c) { c[6] = 0; }},
      {"ELF machine 62, expected 190 (EM_CUDA)",
       [](auto &c) { setLE(c, 18, 62, 2); }},
      {"ELF header size 52, expected 64", [](auto &c) { setLE(c, 52, 52, 2); }},
      {"section header size 40, expected 64",
       [](auto &c) { setLE(c, 58, 40, 2); }},
      {"section header table (offset " + std::to_string(shoff) +
           ", 7 entries of 64 bytes) extends past the end",
       [](auto &c) { setLE(c, 60, 7, 2); }},
      {"section header table (offset " + std::to_string(size - 8) +
           ", 6 entries of 64 bytes) extends past the end",
       [&](auto &c) { setLE(c, 40, size - 8, 8); }},
      {"section header table (offset 18446744073709551552, 6 entries",
       [](auto &c) { setLE(c, 40, ~uint64_t(63), 8); }},
      {"6 section headers but no section header table (e_shoff 0)",
       [](auto &c) { setLE(c, 40, 0, 8); }},
      {"program header size 32, expected 56",
       [](auto &c) { setLE(c, 54, 32, 2); }},
      {"program header table (offset " + std::to_string(phoff) +
           ", 2000 entries of 56 bytes) extends past the end",
       [](auto &c) { setLE(c, 56, 2000, 2); }},
      {"program header table (offset " + std::to_string(size) +
           ", 1 entries of 56 bytes) extends past the end",
       [&](auto &c) { setLE(c, 32, size, 8); }},
      {"section 4 (offset " + std::to_string(size - 8) +
           ", size 16) extends past the end",
       [&](auto &c) { setLE(c, sectionField(c, 4, 24), size - 8, 8); }},
      {"section 4 (offset 18446744073709551608, size 16) extends past",
       [&](auto &c) { setLE(c, sectionField(c, 4, 24), ~uint64_t(7), 8); }},
      {"section 2 (offset ",
       [&](auto &c) { setLE(c, sectionField(c, 2, 32), ~uint64_t(0), 8); }},
      {"program header 0 (offset ",
       [&](auto &c) { setLE(c, phoff + 32, size, 8); }},
      {"section name table index 6 out of range (6 sections)",
       [](auto &c) { setLE(c, 62, 6, 2); }},
      {"section name table (section 4) is not a string table (type 1)",
       [](auto &c) { setLE(c, 62, 4, 2); }},
      {"string table (section 1) does not end in a NUL byte",
       [&](auto &c) {
         size_t end = getLE(c, sectionField(c, 1, 24), 8) +
                      getLE(c, sectionField(c, 1, 32), 8);
         c[end - 1] = 'x';
       }},
      {"section 4: name offset 4000 outside the section name table",
       [&](auto &c) { setLE(c, sectionField(c, 4, 0), 4000, 4); }},
      {"symbol table (section 3): entry size 16, expected 24",
       [&](auto &c) { setLE(c, sectionField(c, 3, 56), 16, 8); }},
      {"symbol table (section 3): size 40 is not a multiple of 24",
       [&](auto &c) { setLE(c, sectionField(c, 3, 32), 40, 8); }},
      {"symbol table (section 3): linked section 4 is not a string table",
       [&](auto &c) { setLE(c, sectionField(c, 3, 40), 4, 4); }},
      {"symbol table (section 3): linked section 9 out of range",
       [&](auto &c) { setLE(c, sectionField(c, 3, 40), 9, 4); }},
      {"symbol table (section 3): symbol 1 has name offset 300 outside its "
       "string table",
       [&](auto &c) {
         setLE(c, getLE(c, sectionField(c, 3, 24), 8) + 24, 300, 4);
       }},
      {"more than one symbol table (sections 3 and 5)",
       [&](auto &c) {
         for (size_t field = 4; field < kCubinSectionHeaderBytes; ++field)
           c[sectionField(c, 5, field)] = c[sectionField(c, 3, field)];
       }},
  };
  for (const Case &test : cases) {
    std::vector<uint8_t> cubin = good;
    test.corrupt(cubin);
    SCOPED_TRACE(test.expected);
    expectRejected(addModuleWithCubin(cubin), ErrorCode::InvalidModule,
                   "kernel 0 (add_f32): cubin of " +
                       std::to_string(cubin.size()) + " bytes: ");
    expectRejected(addModuleWithCubin(cubin), ErrorCode::InvalidModule,
                   test.expected);
  }
}

TEST(ModuleVerifierTest, RejectsEveryTruncatedCubin) {
  // The section header table ends the test cubin: every prefix cuts it.
  const std::vector<uint8_t> cubin = makeTestCubin("add_f32");
  for (size_t size = 0; size < cubin.size(); ++size) {
    TestModule module = addModuleWithCubin(
        std::vector<uint8_t>(cubin.begin(), cubin.begin() + size));
    if (size == 0) // no cubin: the PTX is used
      continue;
    Expected<std::unique_ptr<Executable>> loaded = loadBytes(module.build());
    ASSERT_FALSE(loaded.ok()) << size << " of " << cubin.size() << " bytes";
    EXPECT_EQ(loaded.status().code(), ErrorCode::InvalidModule);
  }
}

TEST(ModuleVerifierTest, SurvivesRandomCubinByteFlips) {
  // Under ASan this shows that the checks read only the cubin's bytes.
  const std::vector<uint8_t> good = makeTestCubin("add_f32");
  std::mt19937 random(4321);
  int rejected = 0;
  for (int trial = 0; trial < 5000; ++trial) {
    std::vector<uint8_t> cubin = good;
    int flips = 1 + static_cast<int>(random() % 3);
    for (int f = 0; f < flips; ++f)
      cubin[random() % cubin.size()] ^=
          static_cast<uint8_t>(1 + random() % 255);
    Expected<std::unique_ptr<Executable>> loaded =
        loadBytes(addModuleWithCubin(cubin).build());
    if (!loaded.ok()) {
      ++rejected;
      EXPECT_EQ(loaded.status().code(), ErrorCode::InvalidModule);
    }
  }
  EXPECT_GT(rejected, 0);
}

TEST(ModuleVerifierTest, RejectsPtxWithANulByte) {
  // The driver reads PTX up to its first NUL: it would see a prefix.
  TestModule module = makeAddModule();
  module.kernels[0].ptx = std::string(".version 8.0\0.target sm_90\n", 28);
  expectRejected(module, ErrorCode::InvalidModule,
                 "invalid module: kernel 0 (add_f32): PTX has a NUL byte at "
                 "offset 12 of its 28 bytes");
}
