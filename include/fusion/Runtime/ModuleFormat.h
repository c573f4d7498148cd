// Constants of the Fusion module file format (schema/fusion_module.fbs) that
// the compiler, which writes modules, and the runtime, which reads them, share.
#ifndef FUSION_RUNTIME_MODULEFORMAT_H
#define FUSION_RUNTIME_MODULEFORMAT_H

#include <cstddef>
#include <cstdint>

namespace fusion::runtime {

/// The newest module format version this runtime reads. Bump it on any
/// schema change an older runtime would misread. The compiler writes the
/// lowest version whose features a file uses, so files that use none of a
/// newer version's load in older runtimes too:
///   1: the first format;
///   2: BufferSpec.alias_offset (views that start inside their input: slices);
///   3: Module.tensor_maps and ParamKind.TensorMap (bulk tensor copies);
///   4: Kernel.deferred and Module.compile_options (kernels built when a
///      launch first needs them, Note [Deferred kernels]).
inline constexpr uint32_t kModuleFormatVersion = 4;

/// The FlatBuffers file identifier of a module file.
inline constexpr char kModuleFileIdentifier[] = "FUSN";

/// The largest tensor rank the runtime binds. Output descriptors carry their
/// sizes inline (so the C API needs no allocation per call), hence a bound.
inline constexpr int kMaxRank = 8;

/// The largest kernel parameter buffer a launch may pass (CUDA 12.1+ limit).
inline constexpr size_t kMaxParamBytes = 32764;

/// The largest module file Executable::loadFile reads (1 GiB); a larger
/// file is a FileError before anything is read past its 8-byte header.
inline constexpr uint64_t kMaxModuleFileBytes = uint64_t(1) << 30;

} // namespace fusion::runtime

#endif // FUSION_RUNTIME_MODULEFORMAT_H
