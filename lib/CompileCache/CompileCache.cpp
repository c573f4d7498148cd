//===- CompileCache.cpp - module files kept across processes --------------===//
// Note [Compile cache] in CompileCache.h.
//===----------------------------------------------------------------------===//

#include "fusion/Target/CompileCache.h"

#include "fusion/Version.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Errc.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/SHA256.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <dlfcn.h>

using namespace mlir::fusion;
namespace fs = llvm::sys::fs;
namespace path = llvm::sys::path;

namespace {

constexpr llvm::StringLiteral kEntrySuffix = ".fusionmod";

std::string hexDigest(llvm::ArrayRef<uint8_t> bytes) {
  return llvm::toHex(bytes, /*LowerCase=*/true);
}

std::string sha256(llvm::StringRef bytes) {
  return hexDigest(llvm::SHA256::hash(llvm::arrayRefFromStringRef(bytes)));
}

bool isKey(llvm::StringRef name) {
  return name.size() == 64 && llvm::all_of(name, llvm::isHexDigit);
}

/// The files of one key's folder that look like entries (or temporaries).
std::vector<std::string> filesIn(const std::string &folder) {
  std::vector<std::string> files;
  std::error_code ec;
  for (fs::directory_iterator it(folder, ec), end; !ec && it != end;
       it.increment(ec))
    files.push_back(it->path());
  return files;
}

// Note [Cache usage ledger]: <dir>/usage holds "<bytes> <stores>", the
// directory's size as of its last exact count plus what stores added since,
// and how many stores there were since that count. Counting exactly walks
// every key's folder, which took 0.1 s of CPU per store in a cache of
// 10,000 entries; a store adds its bytes (less those of the entries it
// replaced) to the ledger instead, and counts exactly only when the ledger
// is missing or unreadable, on every kExactCountEvery-th store, and before it
// prunes (so that it never deletes on an estimate). Two processes storing at
// once may lose one's update; the periodic exact count puts that right, so
// the directory may overshoot its bound by what at most that many stores
// add. The ledger is written to a temporary file and renamed, as entries
// are.
constexpr llvm::StringLiteral kLedgerName = "usage";
constexpr uint64_t kExactCountEvery = 64;

struct Ledger {
  uint64_t bytes = 0;
  uint64_t stores = 0;
};

std::optional<Ledger> readLedger(llvm::StringRef directory) {
  llvm::SmallString<256> file(directory);
  path::append(file, kLedgerName);
  auto buffer = llvm::MemoryBuffer::getFile(file, /*IsText=*/true);
  if (!buffer)
    return std::nullopt;
  llvm::StringRef text = (*buffer)->getBuffer().trim();
  auto [bytes, stores] = text.split(' ');
  Ledger ledger;
  if (bytes.getAsInteger(10, ledger.bytes) ||
      stores.getAsInteger(10, ledger.stores))
    return std::nullopt;
  return ledger;
}

void writeLedger(llvm::StringRef directory, Ledger ledger) {
  llvm::SmallString<256> model(directory);
  path::append(model, "usage-%%%%%%%%.tmp");
  llvm::SmallString<256> temporary;
  int fd = -1;
  if (fs::createUniqueFile(model, fd, temporary))
    return;
  {
    llvm::raw_fd_ostream os(fd, /*shouldClose=*/true);
    os << ledger.bytes << " " << ledger.stores << "\n";
    os.close();
    if (os.has_error()) {
      os.clear_error();
      fs::remove(temporary);
      return;
    }
  }
  llvm::SmallString<256> file(directory);
  path::append(file, kLedgerName);
  if (fs::rename(temporary, file))
    fs::remove(temporary);
}

} // namespace

std::optional<mlir::fusion::CompileCache> mlir::fusion::environmentCache() {
  CompileCacheConfig config = CompileCacheConfig::fromEnvironment();
  if (!config.enabled)
    return std::nullopt;
  return CompileCache(std::move(config));
}

std::string mlir::fusion::hashParts(llvm::ArrayRef<llvm::StringRef> parts) {
  llvm::SHA256 hash;
  for (llvm::StringRef part : parts) {
    uint64_t size = part.size();
    uint8_t prefix[8];
    for (int i = 0; i < 8; ++i)
      prefix[i] = uint8_t(size >> (8 * i));
    hash.update(llvm::ArrayRef<uint8_t>(prefix, 8));
    hash.update(llvm::arrayRefFromStringRef(part));
  }
  return hexDigest(hash.final());
}

std::string mlir::fusion::fileIdentity(llvm::StringRef file) {
  fs::file_status status;
  if (fs::status(file, status))
    return "";
  auto time = status.getLastModificationTime().time_since_epoch();
  return file.str() + ";" + std::to_string(status.getSize()) + ";" +
         std::to_string(
             std::chrono::duration_cast<std::chrono::nanoseconds>(time)
                 .count());
}

std::string mlir::fusion::compilerIdentity() {
  std::string id = "fusion " FUSION_VERSION_STRING;
  Dl_info info;
  llvm::SmallString<256> real;
  if (dladdr(reinterpret_cast<void *>(&compilerIdentity), &info) &&
      info.dli_fname && !fs::real_path(info.dli_fname, real))
    id += ";" + fileIdentity(real);
  return id;
}

CompileCacheConfig CompileCacheConfig::fromEnvironment(std::string *error) {
  CompileCacheConfig config;
  auto fail = [&](std::string why) {
    config.enabled = false;
    if (error)
      *error = std::move(why);
    return config;
  };
  std::optional<std::string> on = llvm::sys::Process::GetEnv("FUSION_CACHE");
  if (on && (*on == "0" || llvm::StringRef(*on).equals_insensitive("off")))
    return fail("");
  if (std::optional<std::string> bound =
          llvm::sys::Process::GetEnv("FUSION_CACHE_MAX_MB")) {
    uint64_t mb = 0;
    if (llvm::StringRef(*bound).getAsInteger(10, mb))
      return fail("FUSION_CACHE_MAX_MB is not a number of MiB: '" + *bound +
                  "'");
    config.maxBytes = mb << 20;
  }
  std::optional<std::string> dir =
      llvm::sys::Process::GetEnv("FUSION_CACHE_DIR");
  if (dir && !dir->empty()) {
    config.directory = *dir;
  } else {
    llvm::SmallString<256> base;
    if (std::optional<std::string> xdg =
            llvm::sys::Process::GetEnv("XDG_CACHE_HOME");
        xdg && !xdg->empty())
      base = *xdg;
    else if (std::optional<std::string> home =
                 llvm::sys::Process::GetEnv("HOME");
             home && !home->empty())
      path::append(base, *home, ".cache");
    else
      return fail("no cache directory: set FUSION_CACHE_DIR (neither "
                  "XDG_CACHE_HOME nor HOME is set)");
    path::append(base, "fusion");
    config.directory = base.str().str();
  }
  config.compilerId = compilerIdentity();
  return config;
}

CompileCache::CompileCache(CompileCacheConfig config)
    : config_(std::move(config)) {
  if (config_.compilerId.empty())
    config_.compilerId = compilerIdentity();
}

std::optional<std::string> CompileCache::lookup(llvm::StringRef key) const {
  if (!config_.enabled || !isKey(key))
    return std::nullopt;
  llvm::SmallString<256> folder(config_.directory);
  path::append(folder, key);
  // The newest whole entry of the key.
  std::optional<std::string> best;
  llvm::sys::TimePoint<> bestTime;
  std::string bestPath;
  for (const std::string &file : filesIn(folder.str().str())) {
    llvm::StringRef name = path::filename(file);
    if (!name.ends_with(kEntrySuffix))
      continue; // a temporary of a store in progress
    llvm::StringRef sum = name.drop_back(kEntrySuffix.size());
    llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> buffer =
        llvm::MemoryBuffer::getFile(file, /*IsText=*/false,
                                    /*RequiresNullTerminator=*/false);
    if (!buffer)
      continue;
    llvm::StringRef bytes = (*buffer)->getBuffer();
    if (!isKey(sum) || sha256(bytes) != sum) {
      fs::remove(file); // truncated or corrupt: compiled again
      continue;
    }
    fs::file_status status;
    llvm::sys::TimePoint<> time;
    if (!fs::status(file, status))
      time = status.getLastModificationTime();
    if (!best || time > bestTime) {
      best = bytes.str();
      bestTime = time;
      bestPath = file;
    }
  }
  if (best) {
    // A hit is a use: pruning goes by modification time.
    int fd = -1;
    if (!fs::openFileForWrite(bestPath, fd, fs::CD_OpenExisting,
                              fs::OF_Append)) {
      (void)fs::setLastAccessAndModificationTime(
          fd, std::chrono::system_clock::now());
      llvm::sys::Process::SafelyCloseFileDescriptor(fd);
    }
  }
  return best;
}

std::optional<std::string> CompileCache::store(llvm::StringRef key,
                                               llvm::StringRef bytes,
                                               std::string *error) const {
  auto fail = [&](const llvm::Twine &why) -> std::optional<std::string> {
    if (error)
      *error = why.str();
    return std::nullopt;
  };
  if (!config_.enabled)
    return fail("the compile cache is off");
  if (!isKey(key))
    return fail("not a cache key: '" + key + "'");
  llvm::SmallString<256> folder(config_.directory);
  path::append(folder, key);
  if (std::error_code ec = fs::create_directories(folder))
    return fail("cannot create " + folder + ": " + ec.message());
  llvm::SmallString<256> temporary;
  int fd = -1;
  llvm::SmallString<256> model(folder);
  path::append(model, "store-%%%%%%%%.tmp");
  if (std::error_code ec = fs::createUniqueFile(model, fd, temporary))
    return fail("cannot create a file in " + folder + ": " + ec.message());
  {
    llvm::raw_fd_ostream os(fd, /*shouldClose=*/true);
    os << bytes;
    os.close();
    if (os.has_error()) {
      std::string message = os.error().message();
      os.clear_error();
      fs::remove(temporary);
      return fail("cannot write " + temporary + ": " + message);
    }
  }
  llvm::SmallString<256> entry(folder);
  path::append(entry, sha256(bytes) + kEntrySuffix.str());
  // Note [Cache usage ledger]: what this store takes the place of.
  uint64_t replaced = 0;
  if (fs::file_status same; !fs::status(entry, same))
    replaced += same.getSize();
  if (std::error_code ec = fs::rename(temporary, entry)) {
    fs::remove(temporary);
    return fail("cannot rename " + temporary + ": " + ec.message());
  }
  // A store replaces the key's older entries (a module file with more
  // kernels built, Note [Deferred kernels]); lookups take the newest anyway.
  // Only older ones: two processes storing the key at once keep one entry.
  fs::file_status mine;
  if (!fs::status(entry, mine))
    for (const std::string &file : filesIn(folder.str().str())) {
      fs::file_status status;
      if (file == entry.str() ||
          !llvm::StringRef(file).ends_with(kEntrySuffix) ||
          fs::status(file, status) ||
          status.getLastModificationTime() >= mine.getLastModificationTime())
        continue;
      if (!fs::remove(file))
        replaced += status.getSize();
    }
  if (config_.maxBytes) {
    std::optional<Ledger> ledger = readLedger(config_.directory);
    Ledger now;
    if (ledger && (ledger->stores + 1) % kExactCountEvery != 0) {
      now.bytes = ledger->bytes + bytes.size();
      now.bytes -= std::min(now.bytes, replaced);
      now.stores = ledger->stores + 1;
    } else {
      now.bytes = totalBytes();
    }
    if (now.bytes > config_.maxBytes)
      prune(config_.maxBytes); // counts exactly, writes the ledger
    else
      writeLedger(config_.directory, now);
  }
  return entry.str().str();
}

std::vector<CompileCacheEntry> CompileCache::list() const {
  std::vector<CompileCacheEntry> entries;
  std::error_code ec;
  for (fs::directory_iterator it(config_.directory, ec), end; !ec && it != end;
       it.increment(ec)) {
    llvm::StringRef key = path::filename(it->path());
    if (!isKey(key))
      continue;
    for (const std::string &file : filesIn(it->path())) {
      if (!llvm::StringRef(file).ends_with(kEntrySuffix))
        continue;
      fs::file_status status;
      if (fs::status(file, status))
        continue;
      entries.push_back({key.str(), file, status.getSize(),
                         status.getLastModificationTime()});
    }
  }
  std::sort(entries.begin(), entries.end(),
            [](const CompileCacheEntry &a, const CompileCacheEntry &b) {
              return a.lastUse != b.lastUse ? a.lastUse < b.lastUse
                                            : a.path < b.path;
            });
  return entries;
}

uint64_t CompileCache::totalBytes() const {
  uint64_t total = 0;
  for (const CompileCacheEntry &entry : list())
    total += entry.bytes;
  return total;
}

size_t CompileCache::prune(uint64_t maxBytes) const {
  std::vector<CompileCacheEntry> entries = list();
  uint64_t total = 0;
  for (const CompileCacheEntry &entry : entries)
    total += entry.bytes;
  size_t removed = 0;
  for (const CompileCacheEntry &entry : entries) {
    if (total <= maxBytes)
      break;
    if (!fs::remove(entry.path)) {
      total -= entry.bytes;
      ++removed;
      // The key's folder goes with its last entry (fails while not empty).
      fs::remove(path::parent_path(entry.path));
    }
  }
  if (fs::is_directory(config_.directory))
    writeLedger(config_.directory, {total, 0});
  return removed;
}

size_t CompileCache::clear() const {
  size_t removed = 0;
  std::error_code ec;
  for (fs::directory_iterator it(config_.directory, ec), end; !ec && it != end;
       it.increment(ec)) {
    if (!isKey(path::filename(it->path())))
      continue;
    for (const std::string &file : filesIn(it->path()))
      if (!fs::remove(file) && llvm::StringRef(file).ends_with(kEntrySuffix))
        ++removed;
    fs::remove(it->path());
  }
  if (fs::is_directory(config_.directory))
    writeLedger(config_.directory, {totalBytes(), 0});
  return removed;
}
