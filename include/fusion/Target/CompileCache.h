//===- CompileCache.h - module files kept across processes -------*- C++
//-*-===//
// Note [Compile cache]: compiled module files are kept in a directory,
// keyed by a hash of everything the bytes depend on, so that no process
// compiles a fusion that any process on the machine compiled before.
//
// - The key is the hex SHA-256 of: the cache format, the compiler's
//   identity (its version and the size and time of the binary or library
//   it is linked into, so that a rebuilt compiler misses), the compile
//   options, ptxas's identity when a cubin is wanted, libdevice's (the
//   kernels' math calls link it), and the definition
//   after the pipeline's own canonicalization (canonicalize + CSE), printed:
//   definitions that differ only in names, layout or foldable constants
//   share an entry. The CUDA driver is not part of the key: a module file
//   holds PTX, which the driver JIT-compiles when a cubin does not load.
// - An entry is a plain module file, <dir>/<key>/<sha256 of its bytes>
//   .fusionmod, written to a temporary file in the same folder and renamed
//   into place, so that readers see a whole file or none, and two
//   processes storing the same key at once both succeed. A lookup takes the
//   newest file of the key whose bytes hash to its name; a file that does
//   not (truncated, corrupt) is deleted and the compile runs again. The
//   runtime verifies what it loads, as for any module file.
// - A hit sets the entry's modification time: pruning, when the directory
//   holds more than its bound after a store, deletes the least recently
//   used entries first.
// - Configuration: FUSION_CACHE=0 turns it off, FUSION_CACHE_DIR moves it
//   (default $XDG_CACHE_HOME/fusion, else $HOME/.cache/fusion), and
//   FUSION_CACHE_MAX_MB bounds it (default 2048). `fusion-cache` lists,
//   prunes and clears it. A hit prints no diagnostics: the compile that
//   stored the entry did. docs/cache.md is the user's side of this.
//===----------------------------------------------------------------------===//
#ifndef FUSION_TARGET_COMPILECACHE_H
#define FUSION_TARGET_COMPILECACHE_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Chrono.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace mlir::fusion {

struct CompileCacheConfig {
  bool enabled = true;
  /// Where the entries live; created on the first store.
  std::string directory;
  /// Pruned to this after a store that makes the directory larger.
  uint64_t maxBytes = uint64_t(2048) << 20;
  /// The compiler's identity in the key; compilerIdentity() by default.
  std::string compilerId;

  /// From FUSION_CACHE, FUSION_CACHE_DIR and FUSION_CACHE_MAX_MB (Note
  /// [Compile cache]). `error` is set, and the cache off, for a value that
  /// cannot be used (a bound that is not a number, no home directory).
  static CompileCacheConfig fromEnvironment(std::string *error = nullptr);
};

struct CompileCacheEntry {
  std::string key;
  std::string path;
  uint64_t bytes = 0;
  llvm::sys::TimePoint<> lastUse;
};

class CompileCache {
public:
  explicit CompileCache(CompileCacheConfig config);

  const CompileCacheConfig &config() const { return config_; }

  /// The bytes stored under `key`, if a whole entry is there. Files of the
  /// key whose bytes do not match their name are deleted.
  std::optional<std::string> lookup(llvm::StringRef key) const;
  /// Stores `bytes` under `key` and prunes; the path of the entry, or an
  /// error message (a cache that cannot write costs a compile next time,
  /// nothing else).
  std::optional<std::string> store(llvm::StringRef key, llvm::StringRef bytes,
                                   std::string *error = nullptr) const;

  /// Every entry, least recently used first.
  std::vector<CompileCacheEntry> list() const;
  uint64_t totalBytes() const;
  /// Deletes least recently used entries until at most `maxBytes` remain;
  /// returns how many were deleted.
  size_t prune(uint64_t maxBytes) const;
  /// Deletes every entry; returns how many.
  size_t clear() const;

private:
  CompileCacheConfig config_;
};

/// The cache the environment configures (CompileCacheConfig::fromEnvironment),
/// or none when it is off or unusable.
std::optional<CompileCache> environmentCache();

/// The hex SHA-256 of `parts`, each length-prefixed (so that the parts'
/// boundaries are part of the hash).
std::string hashParts(llvm::ArrayRef<llvm::StringRef> parts);

/// "<path>;<size>;<modification time in ns>" of a file, "" if it cannot be
/// read: a file that changes, changes the keys that include this.
std::string fileIdentity(llvm::StringRef path);

/// "fusion <version>" and the fileIdentity of the binary or shared library
/// this function is linked into.
std::string compilerIdentity();

} // namespace mlir::fusion

#endif // FUSION_TARGET_COMPILECACHE_H
