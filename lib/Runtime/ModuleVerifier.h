// Turns the bytes of a module file into a ModuleDesc, rejecting anything that
// is not a well-formed module this runtime can evaluate safely.
#ifndef FUSION_LIB_RUNTIME_MODULEVERIFIER_H
#define FUSION_LIB_RUNTIME_MODULEVERIFIER_H

#include "ModuleDesc.h"

#include "fusion/Runtime/Status.h"

#include <cstddef>
#include <cstdint>

namespace fusion::runtime {

/// The size of the header checkModuleHeader reads: the FlatBuffers root
/// offset and the file identifier.
inline constexpr size_t kModuleHeaderBytes = 8;

/// Checks that `size` bytes are at least a module header and that the file
/// identifier is kModuleFileIdentifier; reads at most kModuleHeaderBytes.
Status checkModuleHeader(const uint8_t *data, size_t size);

/// Checks the file identifier, runs the FlatBuffers verifier, checks the
/// format version, decodes, and validates every index the launch plan uses.
/// `data` must stay valid during the call only.
Expected<ModuleDesc> verifyAndDecodeModule(const uint8_t *data, size_t size);

} // namespace fusion::runtime

#endif // FUSION_LIB_RUNTIME_MODULEVERIFIER_H
