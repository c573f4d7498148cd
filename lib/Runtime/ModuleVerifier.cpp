// Verification and decoding of module files: FlatBuffers structure first,
// then the file identifier and version, then the meaning of every index.
#include "ModuleVerifier.h"

#include "Format.h"

#include "fusion/Runtime/ModuleFormat.h"
#include "fusion/Runtime/fusion_module_generated.h"

#include <algorithm>
#include <cstdint>
#include <cstring>

namespace fusion::runtime {

namespace fb = fusion::fb;

// The schema's enums and the runtime's public enums must agree value by
// value, because decoding is a static_cast.
static_assert(static_cast<int>(fb::DType::F8E5M2) ==
              static_cast<int>(DType::F8E5M2));
static_assert(static_cast<int>(fb::DType::I1) == static_cast<int>(DType::I1));
static_assert(static_cast<int>(fb::DType::MAX) + 1 == kNumDTypes);
static_assert(static_cast<int>(fb::ExprOp::PtrAligned) ==
              static_cast<int>(ExprOp::PtrAligned));
static_assert(static_cast<int>(fb::ExprOp::MAX) + 1 == kNumExprOps);
static_assert(static_cast<int>(fb::ArgKind::Scalar) ==
              static_cast<int>(ArgKind::Scalar));
static_assert(static_cast<int>(fb::BufferKind::Intermediate) ==
              static_cast<int>(BufferKind::Intermediate));
static_assert(static_cast<int>(fb::ParamKind::ScalarI64) ==
              static_cast<int>(ParamKind::ScalarI64));
static_assert(static_cast<int>(fb::ParamKind::TensorMap) ==
              static_cast<int>(ParamKind::TensorMap));
static_assert(static_cast<int>(fb::ParamKind::MAX) ==
              static_cast<int>(ParamKind::TensorMap));

const char *exprOpName(ExprOp op) {
  static const char *const names[kNumExprOps] = {
      "const", "input_size", "input_stride", "scalar_input", "add", "sub",
      "mul",   "floordiv",   "ceildiv",      "rem",          "min", "max",
      "eq",    "lt",         "select",       "ptr_aligned"};
  auto index = static_cast<size_t>(op);
  return index < kNumExprOps ? names[index] : "invalid";
}

std::string ModuleDesc::inputLabel(int32_t index) const {
  return concat("input ", index, " (", inputs[index].name, ")");
}

namespace {

Status invalidModule(const std::string &message) {
  return Status(ErrorCode::InvalidModule, "invalid module: " + message);
}

std::string toString(const flatbuffers::String *s) {
  return s ? s->str() : std::string();
}

//===----------------------------------------------------------------------===//
// Cubins
//===----------------------------------------------------------------------===//

// Note [Cubin checks]: cuModuleLoadData takes an image and no size. The
// driver finds the extent of an ELF image from its headers and reads what
// they point at, so a cubin whose headers point past the bytes the module
// holds would have the driver read past them. Before a cubin can reach the
// driver the verifier checks that it is an ELF64 little-endian image for
// EM_CUDA and that everything its headers locate lies within its bytes: the
// ELF header (64 bytes), the program header table (56-byte entries) and
// the section header table (64-byte entries), each program header's file
// bytes, each section's bytes (NOBITS sections take none), the section
// names and symbol names (offsets inside their string tables, which end in
// a NUL byte, so no name runs past its table). Extended numbering (section
// count, name table index or program header count in section 0) is
// followed. At most one symbol table of each type is allowed (as in the ELF
// specification), which keeps the checks linear in the size of the image.
// The checks say nothing about the SASS: the driver still refuses a cubin
// for another architecture, and the runtime then loads the PTX.

constexpr uint64_t kElfHeaderBytes = 64;
constexpr uint64_t kProgramHeaderBytes = 56;
constexpr uint64_t kSectionHeaderBytes = 64;
constexpr uint64_t kSymbolBytes = 24;
constexpr uint64_t kMachineCuda = 190; // EM_CUDA
constexpr uint32_t kSectionNull = 0, kSectionSymtab = 2, kSectionStrtab = 3,
                   kSectionNobits = 8, kSectionDynsym = 11;
constexpr uint64_t kSectionIndexEscape = 0xffff; // SHN_XINDEX, PN_XNUM

/// The fields of an ELF image that the checks read, all within its bytes
/// once checked.
class CubinChecker {
public:
  CubinChecker(const uint8_t *data, size_t size) : data_(data), size_(size) {}

  /// Empty when the image is well formed, else what is wrong with it.
  std::string check() {
    std::string problem = checkHeader();
    if (problem.empty())
      problem = checkSectionTable();
    if (problem.empty())
      problem = checkProgramHeaders();
    if (problem.empty())
      problem = checkSections();
    if (problem.empty())
      return problem;
    return concat("cubin of ", size_, " bytes: ", problem);
  }

private:
  /// The little-endian unsigned integer of `bytes` bytes at `offset`, which
  /// the caller has checked to lie within the image.
  uint64_t read(uint64_t offset, int bytes) const {
    uint64_t value = 0;
    for (int i = bytes - 1; i >= 0; --i)
      value = value << 8 | data_[offset + i];
    return value;
  }

  /// Whether `count` entries of `entryBytes` (> 0) bytes from `offset` lie
  /// within the image; no arithmetic here can overflow.
  bool fits(uint64_t offset, uint64_t count, uint64_t entryBytes) const {
    return offset <= size_ && count <= (size_ - offset) / entryBytes;
  }

  /// A field of section header `index` (< numSections_).
  uint64_t section(uint64_t index, uint64_t field, int bytes) const {
    return read(sectionTable_ + index * kSectionHeaderBytes + field, bytes);
  }
  uint32_t sectionType(uint64_t index) const {
    return static_cast<uint32_t>(section(index, 4, 4));
  }
  uint64_t sectionOffset(uint64_t index) const { return section(index, 24, 8); }
  uint64_t sectionSize(uint64_t index) const { return section(index, 32, 8); }

  std::string checkHeader() {
    if (size_ < kElfHeaderBytes)
      return concat("smaller than an ELF64 header (", kElfHeaderBytes,
                    " bytes)");
    static const uint8_t magic[4] = {0x7f, 'E', 'L', 'F'};
    if (std::memcmp(data_, magic, 4) != 0) {
      static const char hex[] = "0123456789abcdef";
      std::string start;
      for (int i = 0; i < 4; ++i) {
        start += i ? " " : "";
        start += hex[data_[i] >> 4];
        start += hex[data_[i] & 15];
      }
      return concat("no ELF magic (starts with ", start, ")");
    }
    if (data_[4] != 2)
      return concat("ELF class ", int(data_[4]), ", expected 2 (ELF64)");
    if (data_[5] != 1)
      return concat("ELF data encoding ", int(data_[5]),
                    ", expected 1 (little-endian)");
    if (data_[6] != 1)
      return concat("ELF version ", int(data_[6]), ", expected 1");
    if (read(18, 2) != kMachineCuda)
      return concat("ELF machine ", read(18, 2), ", expected ", kMachineCuda,
                    " (EM_CUDA)");
    if (read(52, 2) != kElfHeaderBytes)
      return concat("ELF header size ", read(52, 2), ", expected ",
                    kElfHeaderBytes);
    programTable_ = read(32, 8);
    sectionTable_ = read(40, 8);
    numPrograms_ = read(56, 2);
    numSections_ = read(60, 2);
    nameTable_ = read(62, 2);
    return std::string();
  }

  std::string checkSectionTable() {
    if (sectionTable_ == 0) {
      if (numSections_ != 0)
        return concat(numSections_,
                      " section headers but no section header table "
                      "(e_shoff 0)");
      if (numPrograms_ == kSectionIndexEscape)
        return "extended program header count without a section header "
               "table";
      nameTable_ = 0;
      return std::string();
    }
    if (read(58, 2) != kSectionHeaderBytes)
      return concat("section header size ", read(58, 2), ", expected ",
                    kSectionHeaderBytes);
    // Extended numbering: the real values are in section 0.
    bool extended = numSections_ == 0 || nameTable_ == kSectionIndexEscape ||
                    numPrograms_ == kSectionIndexEscape;
    if (extended && !fits(sectionTable_, 1, kSectionHeaderBytes))
      return concat("section header table (offset ", sectionTable_,
                    ", 1 entries of ", kSectionHeaderBytes,
                    " bytes) extends past the end");
    if (numSections_ == 0)
      numSections_ = read(sectionTable_ + 32, 8);
    if (nameTable_ == kSectionIndexEscape)
      nameTable_ = read(sectionTable_ + 40, 4);
    if (numPrograms_ == kSectionIndexEscape)
      numPrograms_ = read(sectionTable_ + 44, 4);
    if (!fits(sectionTable_, numSections_, kSectionHeaderBytes))
      return concat("section header table (offset ", sectionTable_, ", ",
                    numSections_, " entries of ", kSectionHeaderBytes,
                    " bytes) extends past the end");
    return std::string();
  }

  std::string checkProgramHeaders() const {
    if (numPrograms_ == 0)
      return std::string();
    if (read(54, 2) != kProgramHeaderBytes)
      return concat("program header size ", read(54, 2), ", expected ",
                    kProgramHeaderBytes);
    if (!fits(programTable_, numPrograms_, kProgramHeaderBytes))
      return concat("program header table (offset ", programTable_, ", ",
                    numPrograms_, " entries of ", kProgramHeaderBytes,
                    " bytes) extends past the end");
    for (uint64_t i = 0; i < numPrograms_; ++i) {
      uint64_t header = programTable_ + i * kProgramHeaderBytes;
      if (read(header, 4) == 0) // PT_NULL
        continue;
      uint64_t offset = read(header + 8, 8), fileBytes = read(header + 32, 8);
      if (!fits(offset, fileBytes, 1))
        return concat("program header ", i, " (offset ", offset, ", file size ",
                      fileBytes, ") extends past the end");
    }
    return std::string();
  }

  std::string checkSections() const {
    for (uint64_t i = 0; i < numSections_; ++i) {
      uint32_t type = sectionType(i);
      if (type == kSectionNull || type == kSectionNobits)
        continue;
      if (!fits(sectionOffset(i), sectionSize(i), 1))
        return concat("section ", i, " (offset ", sectionOffset(i), ", size ",
                      sectionSize(i), ") extends past the end");
    }
    // Every section's bytes are in the image now; string tables next, so
    // that names may be checked against them.
    for (uint64_t i = 0; i < numSections_; ++i)
      if (sectionType(i) == kSectionStrtab && sectionSize(i) != 0 &&
          data_[sectionOffset(i) + sectionSize(i) - 1] != 0)
        return concat("string table (section ", i,
                      ") does not end in a NUL byte");
    if (nameTable_ != 0) {
      if (nameTable_ >= numSections_)
        return concat("section name table index ", nameTable_,
                      " out of range (", numSections_, " sections)");
      if (sectionType(nameTable_) != kSectionStrtab)
        return concat("section name table (section ", nameTable_,
                      ") is not a string table (type ", sectionType(nameTable_),
                      ")");
      for (uint64_t i = 0; i < numSections_; ++i)
        if (section(i, 0, 4) >= sectionSize(nameTable_))
          return concat("section ", i, ": name offset ", section(i, 0, 4),
                        " outside the section name table (",
                        sectionSize(nameTable_), " bytes)");
    }
    uint64_t symbolTables[2] = {0, 0}; // SYMTAB, DYNSYM; 0: none yet
    for (uint64_t i = 0; i < numSections_; ++i) {
      uint32_t type = sectionType(i);
      if (type != kSectionSymtab && type != kSectionDynsym)
        continue;
      uint64_t &seen = symbolTables[type == kSectionDynsym];
      if (seen != 0)
        return concat("more than one symbol table (sections ", seen, " and ", i,
                      ")");
      seen = i;
      std::string problem = checkSymbolTable(i);
      if (!problem.empty())
        return problem;
    }
    return std::string();
  }

  std::string checkSymbolTable(uint64_t index) const {
    std::string what = concat("symbol table (section ", index, "): ");
    uint64_t entryBytes = section(index, 56, 8);
    if (entryBytes != kSymbolBytes)
      return concat(what, "entry size ", entryBytes, ", expected ",
                    kSymbolBytes);
    uint64_t bytes = sectionSize(index);
    if (bytes % kSymbolBytes != 0)
      return concat(what, "size ", bytes, " is not a multiple of ",
                    kSymbolBytes);
    uint64_t names = section(index, 40, 4);
    if (names >= numSections_)
      return concat(what, "linked section ", names, " out of range (",
                    numSections_, " sections)");
    if (sectionType(names) != kSectionStrtab)
      return concat(what, "linked section ", names,
                    " is not a string table (type ", sectionType(names), ")");
    for (uint64_t s = 0; s < bytes / kSymbolBytes; ++s) {
      uint64_t name = read(sectionOffset(index) + s * kSymbolBytes, 4);
      if (name >= sectionSize(names))
        return concat(what, "symbol ", s, " has name offset ", name,
                      " outside its string table (", sectionSize(names),
                      " bytes)");
    }
    return std::string();
  }

  const uint8_t *data_;
  uint64_t size_;
  uint64_t programTable_ = 0, numPrograms_ = 0;
  uint64_t sectionTable_ = 0, numSections_ = 0;
  uint64_t nameTable_ = 0;
};

/// Decodes a verified fb::Module into a ModuleDesc, checking every index on
/// the way, so that the evaluator may index without bounds checks.
class ModuleDecoder {
public:
  explicit ModuleDecoder(const fb::Module &module) : module_(module) {}

  Expected<ModuleDesc> decode() {
    desc_.version = module_.version();
    desc_.name = toString(module_.name());
    desc_.target = toString(module_.target());
    desc_.definition = toString(module_.definition());
    desc_.producer = toString(module_.producer());
    desc_.compileOptions = toString(module_.compile_options());
    for (Status (ModuleDecoder::*step)() :
         {&ModuleDecoder::decodeInputs, &ModuleDecoder::decodeExprs,
          &ModuleDecoder::decodeBuffers, &ModuleDecoder::decodeOutputs,
          &ModuleDecoder::decodeKernels, &ModuleDecoder::decodeTensorMaps,
          &ModuleDecoder::decodeLaunches, &ModuleDecoder::decodeChecks}) {
      Status status = (this->*step)();
      if (!status.ok())
        return status;
    }
    return std::move(desc_);
  }

private:
  int32_t numRegisters() const {
    return static_cast<int32_t>(desc_.exprs.size());
  }

  Status checkRegister(int32_t reg, const std::string &what) const {
    if (reg < 0 || reg >= numRegisters())
      return invalidModule(concat(what, ": register ", reg,
                                  " out of range (module has ", numRegisters(),
                                  " registers)"));
    return Status::success();
  }

  Status checkRegisters(const flatbuffers::Vector<int32_t> *regs,
                        size_t expectedCount, const std::string &what,
                        int32_t *out) const {
    size_t count = regs ? regs->size() : 0;
    if (count != expectedCount)
      return invalidModule(concat(what, ": expected ", expectedCount,
                                  " registers, got ", count));
    for (size_t i = 0; i < count; ++i) {
      Status status = checkRegister(regs->Get(i), concat(what, "[", i, "]"));
      if (!status.ok())
        return status;
      out[i] = regs->Get(i);
    }
    return Status::success();
  }

  bool isTensorInput(int32_t index) const {
    return index >= 0 && index < desc_.numInputs() &&
           desc_.inputs[index].kind == ArgKind::Tensor;
  }

  /// A slot that has a device pointer: a tensor input or any buffer.
  Status checkPointerSlot(int32_t slot, const std::string &what) const {
    if (slot < 0 || slot >= desc_.numInputs() + numBuffersInFile())
      return invalidModule(
          concat(what, ": slot ", slot, " out of range (module has ",
                 desc_.numInputs() + numBuffersInFile(), " slots)"));
    if (slot < desc_.numInputs() && !isTensorInput(slot))
      return invalidModule(concat(what, ": slot ", slot, " is scalar ",
                                  desc_.inputLabel(slot),
                                  ", which has no pointer"));
    return Status::success();
  }

  int32_t numBuffersInFile() const {
    return module_.buffers() ? static_cast<int32_t>(module_.buffers()->size())
                             : 0;
  }

  Status checkScalarInput(int32_t index, bool floating,
                          const std::string &what) const {
    if (index < 0 || index >= desc_.numInputs())
      return invalidModule(concat(what, ": input ", index,
                                  " out of range (module has ",
                                  desc_.numInputs(), " inputs)"));
    const InputDesc &input = desc_.inputs[index];
    if (input.kind != ArgKind::Scalar ||
        isFloatingDType(input.dtype) != floating)
      return invalidModule(
          concat(what, ": ", desc_.inputLabel(index), " is not ",
                 floating ? "a floating" : "an integer", " scalar"));
    return Status::success();
  }

  Status decodeInputs() {
    if (!module_.inputs())
      return Status::success();
    for (size_t i = 0; i < module_.inputs()->size(); ++i) {
      const fb::InputSpec *spec = module_.inputs()->Get(i);
      InputDesc input;
      input.name = toString(spec->name());
      std::string what = concat("input ", i, " (", input.name, ")");
      auto kind = static_cast<int32_t>(spec->kind());
      if (kind > static_cast<int32_t>(fb::ArgKind::MAX))
        return invalidModule(concat(what, ": invalid kind ", kind));
      input.kind = static_cast<ArgKind>(kind);
      auto dtype = static_cast<int32_t>(spec->dtype());
      if (!isValidDType(dtype))
        return invalidModule(concat(what, ": invalid dtype ", dtype));
      input.dtype = static_cast<DType>(dtype);
      if (spec->sizes()) {
        if (input.kind == ArgKind::Scalar && spec->sizes()->size() != 0)
          return invalidModule(concat(what, ": a scalar has no sizes"));
        if (spec->sizes()->size() > static_cast<size_t>(kMaxRank))
          return invalidModule(concat(what, ": rank ", spec->sizes()->size(),
                                      " exceeds the maximum ", kMaxRank));
        // FlatBuffers' verifier checks a vector's length field for 4-byte
        // alignment only; its int64 elements are read in place, so they
        // must be 8-byte aligned (the buffer is: Executable::load copies a
        // misaligned one). A writer aligns them (an empty vector, which has
        // nothing to read, need not be).
        auto at = reinterpret_cast<uintptr_t>(spec->sizes()->data());
        if (spec->sizes()->size() != 0 && at % alignof(int64_t) != 0)
          return invalidModule(
              concat(what, ": its sizes (int64) are not aligned to 8 bytes"));
        for (int64_t size : *spec->sizes()) {
          if (size < -1)
            return invalidModule(concat(what, ": invalid static size ", size));
          input.sizes.push_back(size);
        }
      }
      desc_.inputs.push_back(std::move(input));
    }
    return Status::success();
  }

  Status decodeExprs() {
    if (!module_.exprs())
      return Status::success();
    for (size_t i = 0; i < module_.exprs()->size(); ++i) {
      const fb::ExprInst *inst = module_.exprs()->Get(i);
      auto op = static_cast<int32_t>(inst->op());
      if (op >= kNumExprOps)
        return invalidModule(concat("expr ", i, ": invalid op ", op));
      ExprInstDesc expr;
      expr.op = static_cast<ExprOp>(op);
      expr.a = inst->a();
      expr.b = inst->b();
      expr.c = inst->c();
      expr.imm = inst->imm();
      Status status = checkExprOperands(static_cast<int32_t>(i), expr);
      if (!status.ok())
        return status;
      if (expr.op == ExprOp::ScalarInput &&
          std::find(desc_.scalarsReadByExprs.begin(),
                    desc_.scalarsReadByExprs.end(),
                    expr.a) == desc_.scalarsReadByExprs.end())
        desc_.scalarsReadByExprs.push_back(expr.a);
      if (expr.op == ExprOp::PtrAligned)
        desc_.ptrAlignedExprs.push_back(static_cast<int32_t>(i));
      desc_.exprs.push_back(expr);
    }
    return Status::success();
  }

  Status checkExprOperands(int32_t index, const ExprInstDesc &expr) const {
    std::string what = concat("expr ", index, " (", exprOpName(expr.op), ")");
    auto earlier = [&](int32_t reg, const char *operand) {
      if (reg < 0 || reg >= index)
        return invalidModule(concat(what, ": operand ", operand, " = ", reg,
                                    " is not an earlier register"));
      return Status::success();
    };
    switch (expr.op) {
    case ExprOp::Const:
      return Status::success();
    case ExprOp::InputSize:
    case ExprOp::InputStride:
      if (!isTensorInput(expr.a))
        return invalidModule(
            concat(what, ": input ", expr.a, " is not a tensor input"));
      if (expr.b < 0 || expr.b >= desc_.inputs[expr.a].rank())
        return invalidModule(concat(what, ": dim ", expr.b,
                                    " out of range for ",
                                    desc_.inputLabel(expr.a), " of rank ",
                                    desc_.inputs[expr.a].rank()));
      return Status::success();
    case ExprOp::ScalarInput:
      return checkScalarInput(expr.a, /*floating=*/false, what);
    case ExprOp::Select: {
      Status status = earlier(expr.c, "c");
      if (!status.ok())
        return status;
      [[fallthrough]];
    }
    case ExprOp::Add:
    case ExprOp::Sub:
    case ExprOp::Mul:
    case ExprOp::FloorDiv:
    case ExprOp::CeilDiv:
    case ExprOp::Rem:
    case ExprOp::Min:
    case ExprOp::Max:
    case ExprOp::Eq:
    case ExprOp::Lt: {
      Status status = earlier(expr.a, "a");
      if (!status.ok())
        return status;
      return earlier(expr.b, "b");
    }
    case ExprOp::PtrAligned:
      if (expr.imm <= 0)
        return invalidModule(
            concat(what, ": alignment ", expr.imm, " must be positive"));
      return checkPointerSlot(expr.a, what);
    }
    return invalidModule(concat(what, ": unhandled op"));
  }

  Status decodeBuffers() {
    if (!module_.buffers())
      return Status::success();
    for (size_t i = 0; i < module_.buffers()->size(); ++i) {
      const fb::BufferSpec *spec = module_.buffers()->Get(i);
      std::string what = concat("buffer ", i);
      BufferDesc buffer;
      auto kind = static_cast<int32_t>(spec->kind());
      if (kind > static_cast<int32_t>(fb::BufferKind::MAX))
        return invalidModule(concat(what, ": invalid kind ", kind));
      buffer.kind = static_cast<BufferKind>(kind);
      auto dtype = static_cast<int32_t>(spec->dtype());
      if (!isValidDType(dtype))
        return invalidModule(concat(what, ": invalid dtype ", dtype));
      buffer.dtype = static_cast<DType>(dtype);
      size_t rank = spec->sizes() ? spec->sizes()->size() : 0;
      if (rank > static_cast<size_t>(kMaxRank))
        return invalidModule(
            concat(what, ": rank ", rank, " exceeds the maximum ", kMaxRank));
      buffer.sizes.resize(rank);
      Status status = checkRegisters(
          spec->sizes(), rank, concat(what, " sizes"), buffer.sizes.data());
      if (!status.ok())
        return status;
      if (spec->strides() && spec->strides()->size() != 0) {
        buffer.strides.resize(rank);
        status = checkRegisters(spec->strides(), rank, concat(what, " strides"),
                                buffer.strides.data());
        if (!status.ok())
          return status;
      }
      buffer.zeroInit = spec->zero_init();
      buffer.keptZero = spec->kept_zero();
      if (buffer.keptZero &&
          (!buffer.zeroInit || buffer.kind != BufferKind::Intermediate))
        return invalidModule(
            concat(what, ": kept_zero needs a zero-initialized intermediate"));
      buffer.aliasInput = spec->alias_input();
      if (buffer.aliasInput != -1) {
        if (!isTensorInput(buffer.aliasInput))
          return invalidModule(concat(what, ": alias_input ", buffer.aliasInput,
                                      " is not a tensor input"));
        if (buffer.kind != BufferKind::Output)
          return invalidModule(
              concat(what, ": only an output may alias an input"));
        // Zero-filling a view would overwrite the caller's input.
        if (buffer.zeroInit)
          return invalidModule(
              concat(what, ": a view of an input cannot be zero-initialized"));
      }
      buffer.aliasOffset = spec->alias_offset();
      if (buffer.aliasOffset != -1) {
        if (buffer.aliasInput == -1)
          return invalidModule(
              concat(what, ": alias_offset without alias_input"));
        // A version-1 runtime would ignore the offset and hand out the
        // input's first element.
        if (desc_.version < 2)
          return invalidModule(concat(what,
                                      ": alias_offset needs module "
                                      "format version 2, the file has ",
                                      desc_.version));
        status = checkRegister(buffer.aliasOffset, what + " alias_offset");
        if (!status.ok())
          return status;
      }
      desc_.buffers.push_back(std::move(buffer));
    }
    return Status::success();
  }

  Status decodeOutputs() {
    std::vector<bool> listed(desc_.buffers.size(), false);
    desc_.outputOfBuffer.assign(desc_.buffers.size(), -1);
    if (module_.outputs()) {
      for (size_t i = 0; i < module_.outputs()->size(); ++i) {
        int32_t buffer = module_.outputs()->Get(i);
        std::string what = concat("output ", i);
        if (buffer < 0 || buffer >= static_cast<int32_t>(desc_.buffers.size()))
          return invalidModule(concat(what, ": buffer ", buffer,
                                      " out of range (module has ",
                                      desc_.buffers.size(), " buffers)"));
        if (desc_.buffers[buffer].kind != BufferKind::Output)
          return invalidModule(
              concat(what, ": buffer ", buffer, " is not an output buffer"));
        if (listed[buffer])
          return invalidModule(
              concat(what, ": buffer ", buffer, " is listed twice"));
        listed[buffer] = true;
        desc_.outputOfBuffer[buffer] = static_cast<int32_t>(i);
        desc_.outputs.push_back(buffer);
      }
    }
    // An output buffer nobody receives would be allocated and leaked.
    for (size_t i = 0; i < desc_.buffers.size(); ++i)
      if (desc_.buffers[i].kind == BufferKind::Output && !listed[i])
        return invalidModule(
            concat("buffer ", i, " is an output but not listed in outputs"));
    return Status::success();
  }

  Status decodeKernels() {
    if (!module_.kernels())
      return Status::success();
    for (size_t i = 0; i < module_.kernels()->size(); ++i) {
      const fb::Kernel *spec = module_.kernels()->Get(i);
      KernelDesc kernel;
      kernel.name = toString(spec->name());
      if (kernel.name.empty())
        return invalidModule(concat("kernel ", i, ": empty entry name"));
      std::string what = concat("kernel ", i, " (", kernel.name, "): ");
      // The driver reads PTX up to its first NUL; the runtime hands it
      // kernel.ptx.c_str(), always terminated. A NUL inside the text would
      // make the driver compile a prefix of it.
      kernel.ptx = toString(spec->ptx());
      if (size_t nul = kernel.ptx.find('\0'); nul != std::string::npos)
        return invalidModule(concat(what, "PTX has a NUL byte at offset ", nul,
                                    " of its ", kernel.ptx.size(), " bytes"));
      if (spec->cubin() && spec->cubin()->size() != 0) {
        // Note [Cubin checks]; an empty vector is no cubin.
        std::string problem =
            CubinChecker(spec->cubin()->data(), spec->cubin()->size()).check();
        if (!problem.empty())
          return invalidModule(what + problem);
        kernel.cubin.assign(spec->cubin()->begin(), spec->cubin()->end());
      }
      kernel.deferred = spec->deferred();
      if (kernel.deferred) {
        // Note [Deferred kernels]: built from the definition and the
        // compile options, which a version 3 runtime would not know to do.
        if (!kernel.ptx.empty() || !kernel.cubin.empty())
          return invalidModule(what + "is deferred but has code");
        if (desc_.version < 4)
          return invalidModule(concat(what,
                                      "deferred kernels need module format "
                                      "version 4, the file has ",
                                      desc_.version));
        if (desc_.definition.empty())
          return invalidModule(what + "is deferred but the module has no "
                                      "definition to build it from");
      } else if (kernel.ptx.empty() && kernel.cubin.empty()) {
        return invalidModule(what + "no PTX and no cubin");
      }
      kernel.sharedBytesStatic = spec->shared_bytes_static();
      desc_.kernels.push_back(std::move(kernel));
    }
    return Status::success();
  }

  Status decodeLaunches() {
    if (!module_.launches())
      return Status::success();
    for (size_t i = 0; i < module_.launches()->size(); ++i) {
      const fb::Launch *spec = module_.launches()->Get(i);
      LaunchDesc launch;
      if (!spec->variants() || spec->variants()->size() == 0)
        return invalidModule(concat("launch ", i, ": no variants"));
      for (size_t v = 0; v < spec->variants()->size(); ++v) {
        VariantDesc variant;
        Status status =
            decodeVariant(*spec->variants()->Get(v),
                          concat("launch ", i, " variant ", v), variant);
        if (!status.ok())
          return status;
        launch.variants.push_back(std::move(variant));
      }
      desc_.launches.push_back(std::move(launch));
    }
    return Status::success();
  }

  /// Note [Tensor maps]: the copy engine's static rules (rank 1 to 5, box
  /// dims 1 to 256, an innermost box of a multiple of 16 bytes that fits
  /// the swizzle span) are checked here; the rules on sizes, strides and
  /// the pointer are checked per call.
  Status decodeTensorMaps() {
    if (!module_.tensor_maps())
      return Status::success();
    if (module_.tensor_maps()->size() != 0 && desc_.version < 3)
      return invalidModule(concat("tensor maps need module format version "
                                  "3, the file has ",
                                  desc_.version));
    for (size_t m = 0; m < module_.tensor_maps()->size(); ++m) {
      const fb::TensorMapSpec *spec = module_.tensor_maps()->Get(m);
      std::string what = concat("tensor map ", m);
      TensorMapDesc map;
      map.slot = spec->slot();
      Status status = checkPointerSlot(map.slot, what);
      if (!status.ok())
        return status;
      auto dtype = static_cast<int32_t>(spec->dtype());
      if (!isValidDType(dtype))
        return invalidModule(concat(what, ": invalid dtype ", dtype));
      map.dtype = static_cast<DType>(dtype);
      size_t rank = spec->sizes() ? spec->sizes()->size() : 0;
      if (rank < 1 || rank > 5)
        return invalidModule(
            concat(what, ": rank ", rank, " (bulk copies take 1 to 5 dims)"));
      map.sizes.resize(rank);
      map.strides.resize(rank);
      status = checkRegisters(spec->sizes(), rank, what + " sizes",
                              map.sizes.data());
      if (status.ok())
        status = checkRegisters(spec->strides(), rank, what + " strides",
                                map.strides.data());
      if (!status.ok())
        return status;
      size_t boxRank = spec->box() ? spec->box()->size() : 0;
      if (boxRank != rank)
        return invalidModule(
            concat(what, ": ", boxRank, " box dims for ", rank, " dims"));
      for (size_t d = 0; d < rank; ++d) {
        int32_t edge = spec->box()->Get(d);
        if (edge < 1 || edge > 256)
          return invalidModule(
              concat(what, ": box dim ", d, " is ", edge, " (1 to 256)"));
        map.box.push_back(static_cast<uint32_t>(edge));
      }
      int64_t innerBytes = int64_t(map.box.back()) * dtypeByteSize(map.dtype);
      if (innerBytes % 16 != 0)
        return invalidModule(concat(what, ": the innermost box dim is ",
                                    innerBytes,
                                    " bytes, not a multiple of 16"));
      auto swizzle = static_cast<int32_t>(spec->swizzle());
      if (swizzle > static_cast<int32_t>(fb::TensorMapSwizzle::MAX))
        return invalidModule(concat(what, ": invalid swizzle ", swizzle));
      map.swizzle = static_cast<uint8_t>(swizzle);
      if (swizzle != 0 && innerBytes > (int64_t(16) << swizzle))
        return invalidModule(concat(what, ": the innermost box dim is ",
                                    innerBytes, " bytes, more than the ",
                                    int64_t(16) << swizzle,
                                    "-byte swizzle span"));
      map.oobNan = spec->oob_nan();
      if (map.oobNan && !isFloatingDType(map.dtype))
        return invalidModule(
            concat(what, ": NaN fill for ", dtypeName(map.dtype), " elements"));
      desc_.tensorMaps.push_back(std::move(map));
    }
    return Status::success();
  }

  Status decodeVariant(const fb::LaunchVariant &spec, const std::string &what,
                       VariantDesc &variant) const {
    variant.kernel = spec.kernel();
    if (variant.kernel < 0 ||
        variant.kernel >= static_cast<int32_t>(desc_.kernels.size()))
      return invalidModule(concat(what, ": kernel ", variant.kernel,
                                  " out of range (module has ",
                                  desc_.kernels.size(), " kernels)"));
    variant.guard = spec.guard();
    if (variant.guard != -1) {
      Status status = checkRegister(variant.guard, what + " guard");
      if (!status.ok())
        return status;
    }
    Status status =
        checkRegisters(spec.grid(), 3, what + " grid", variant.grid);
    if (!status.ok())
      return status;
    status = checkRegisters(spec.block(), 3, what + " block", variant.block);
    if (!status.ok())
      return status;
    variant.dynamicSmem = spec.dynamic_smem();
    if (variant.dynamicSmem != -1) {
      status = checkRegister(variant.dynamicSmem, what + " dynamic_smem");
      if (!status.ok())
        return status;
    }
    if (spec.cluster() && spec.cluster()->size() != 0) {
      variant.hasCluster = true;
      status =
          checkRegisters(spec.cluster(), 3, what + " cluster", variant.cluster);
      if (!status.ok())
        return status;
    }
    variant.cooperative = spec.cooperative();
    size_t totalBytes = 0;
    if (spec.params()) {
      for (size_t p = 0; p < spec.params()->size(); ++p) {
        const fb::Param *param = spec.params()->Get(p);
        std::string paramWhat = concat(what, " param ", p);
        auto kind = static_cast<int32_t>(param->kind());
        if (kind > static_cast<int32_t>(fb::ParamKind::MAX))
          return invalidModule(concat(paramWhat, ": invalid kind ", kind));
        ParamDesc desc{static_cast<ParamKind>(kind), param->value()};
        status = checkParam(desc, paramWhat);
        if (!status.ok())
          return status;
        size_t align = paramAlignment(desc.kind);
        totalBytes =
            (totalBytes + align - 1) / align * align + paramBytes(desc.kind);
        variant.params.push_back(desc);
      }
    }
    if (totalBytes > kMaxParamBytes)
      return invalidModule(concat(what, ": ", totalBytes,
                                  " bytes of parameters exceed the limit ",
                                  kMaxParamBytes));
    return Status::success();
  }

  Status checkParam(const ParamDesc &param, const std::string &what) const {
    switch (param.kind) {
    case ParamKind::Pointer:
      return checkPointerSlot(param.value, what);
    case ParamKind::I64:
    case ParamKind::I32:
      return checkRegister(param.value, what);
    case ParamKind::ScalarF64:
    case ParamKind::ScalarF32:
      return checkScalarInput(param.value, /*floating=*/true, what);
    case ParamKind::ScalarI64:
      return checkScalarInput(param.value, /*floating=*/false, what);
    case ParamKind::TensorMap:
      if (param.value < 0 ||
          param.value >= static_cast<int32_t>(desc_.tensorMaps.size()))
        return invalidModule(concat(what, ": tensor map ", param.value,
                                    " out of range (module has ",
                                    desc_.tensorMaps.size(), ")"));
      return Status::success();
    }
    return invalidModule(what + ": unhandled parameter kind");
  }

  Status decodeChecks() {
    if (!module_.checks())
      return Status::success();
    for (size_t i = 0; i < module_.checks()->size(); ++i) {
      const fb::ExprCheck *spec = module_.checks()->Get(i);
      CheckDesc check{spec->lhs(), spec->rhs(), toString(spec->message())};
      std::string what = concat("check ", i);
      Status status = checkRegister(check.lhs, what + " lhs");
      if (!status.ok())
        return status;
      status = checkRegister(check.rhs, what + " rhs");
      if (!status.ok())
        return status;
      desc_.checks.push_back(std::move(check));
    }
    return Status::success();
  }

  const fb::Module &module_;
  ModuleDesc desc_;
};

std::string printableIdentifier(const uint8_t *bytes) {
  std::string out;
  for (int i = 0; i < 4; ++i) {
    uint8_t c = bytes[i];
    if (c >= 0x20 && c < 0x7f && c != '\\') {
      out += static_cast<char>(c);
    } else {
      static const char hex[] = "0123456789abcdef";
      out += "\\x";
      out += hex[c >> 4];
      out += hex[c & 15];
    }
  }
  return out;
}

} // namespace

Status checkModuleHeader(const uint8_t *data, size_t size) {
  // A FlatBuffer starts with the root offset and the 4-byte identifier.
  if (!data || size < kModuleHeaderBytes)
    return invalidModule(
        concat("not a Fusion module: ", size, " bytes is too small"));
  if (std::memcmp(data + 4, kModuleFileIdentifier, 4) != 0)
    return invalidModule(concat("not a Fusion module: file identifier is '",
                                printableIdentifier(data + 4), "', expected '",
                                kModuleFileIdentifier, "'"));
  return Status::success();
}

Expected<ModuleDesc> verifyAndDecodeModule(const uint8_t *data, size_t size) {
  Status header = checkModuleHeader(data, size);
  if (!header.ok())
    return header;
  // The verifier asserts on sizes at or above this limit; reject them first.
  if (size >= FLATBUFFERS_MAX_BUFFER_SIZE)
    return invalidModule(concat("module of ", size, " bytes is too large"));
  flatbuffers::Verifier verifier(data, size);
  if (!fb::VerifyModuleBuffer(verifier))
    return invalidModule(concat("corrupt or truncated module file (", size,
                                " bytes): FlatBuffers verification failed"));
  const fb::Module *module = fb::GetModule(data);
  if (module->version() == 0)
    return invalidModule("the module has no format version");
  if (module->version() > kModuleFormatVersion)
    return Status(ErrorCode::UnsupportedVersion,
                  concat("module format version ", module->version(),
                         " is newer than this runtime supports (version ",
                         kModuleFormatVersion, ")"));
  return ModuleDecoder(*module).decode();
}

} // namespace fusion::runtime
