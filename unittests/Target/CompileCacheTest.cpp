// Tests of the compile cache (Note [Compile cache] in
// include/fusion/Target/CompileCache.h): keys, whole entries only, corrupt
// and truncated entries compiled again, pruning least recently used first,
// a changed compiler missing. Concurrent writers (processes) are tested in
// test/python/test_compile_cache.py.
#include "../Common/CompileHelpers.h"

#include "fusion/Target/CompileCache.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include <gtest/gtest.h>

#include <fstream>
#include <thread>

using namespace mlir;
using namespace mlir::fusion;
namespace fs = llvm::sys::fs;

namespace {

/// A fresh cache directory, removed afterwards.
class CacheDir {
public:
  CacheDir() {
    llvm::SmallString<128> dir;
    EXPECT_FALSE(fs::createUniqueDirectory("fusion-cache-test", dir));
    path = dir.str().str();
  }
  ~CacheDir() { fs::remove_directories(path); }
  CompileCacheConfig
  config(llvm::StringRef compilerId = "test-compiler") const {
    CompileCacheConfig c;
    c.directory = path;
    c.compilerId = compilerId.str();
    return c;
  }
  std::string path;
};

std::string readFile(const std::string &file) {
  auto buffer = llvm::MemoryBuffer::getFile(file, false, false);
  return buffer ? (*buffer)->getBuffer().str() : "";
}

void writeFile(const std::string &file, llvm::StringRef bytes) {
  std::ofstream(file, std::ios::binary | std::ios::trunc) << bytes.str();
}

const std::string kKey(64, 'a');
const std::string kOtherKey(64, 'b');

/// One compile through the cache of `config`: the bytes and the report.
struct Compiled {
  std::string bytes;
  CompileCacheReport report;
};
Compiled compileWith(llvm::StringRef source, const CompileCacheConfig &config,
                     CompileOptions options = {}) {
  DialectRegistry registry;
  registerAllDialects(registry);
  MLIRContext context(registry);
  context.loadAllAvailableDialects();
  auto module = parseSourceString<ModuleOp>(source, &context);
  EXPECT_TRUE(bool(module));
  Compiled out;
  if (!module)
    return out;
  options.emitCubin = false;
  CompileCache cache(config);
  auto bytes = compileToModuleFile(*module, "", options, &cache, &out.report);
  EXPECT_TRUE(succeeded(bytes));
  if (succeeded(bytes))
    out.bytes = *bytes;
  return out;
}

const char *const kAddRelu = R"mlir(
fusion.fusion @add_relu(%a: tensor<?x?xf32>, %b: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %0 = fusion.add %a, %b : tensor<?x?xf32>
  %1 = fusion.relu %0 : tensor<?x?xf32>
  fusion.return %1 : tensor<?x?xf32>
})mlir";

// The same definition with other value names, a comment and another layout.
const char *const kAddReluRenamed = R"mlir(
// the same fusion, written differently
fusion.fusion @add_relu(%x: tensor<?x?xf32>, %y: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %sum = fusion.add %x, %y : tensor<?x?xf32>
  %out = fusion.relu %sum :
      tensor<?x?xf32>
  fusion.return %out : tensor<?x?xf32>
})mlir";

const char *const kAddNeg = R"mlir(
fusion.fusion @add_relu(%a: tensor<?x?xf32>, %b: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %0 = fusion.add %a, %b : tensor<?x?xf32>
  %1 = fusion.neg %0 : tensor<?x?xf32>
  fusion.return %1 : tensor<?x?xf32>
})mlir";

} // namespace

TEST(CompileCache, StoresAndFindsWholeEntries) {
  CacheDir dir;
  CompileCache cache(dir.config());
  EXPECT_FALSE(cache.lookup(kKey));
  std::string error;
  auto path = cache.store(kKey, "module bytes", &error);
  ASSERT_TRUE(path) << error;
  EXPECT_EQ(readFile(*path), "module bytes");
  EXPECT_EQ(cache.lookup(kKey).value_or(""), "module bytes");
  EXPECT_FALSE(cache.lookup(kOtherKey));
  // Storing again (another process, same key) replaces nothing it should
  // not: one entry, the same bytes.
  ASSERT_TRUE(cache.store(kKey, "module bytes"));
  EXPECT_EQ(cache.list().size(), 1u);
  // Not a key: never a path outside the directory.
  EXPECT_FALSE(cache.store("../escape", "x", &error));
  EXPECT_NE(error.find("not a cache key"), std::string::npos) << error;
  EXPECT_FALSE(cache.lookup("../escape"));
  // A temporary of a store in progress is not an entry.
  llvm::SmallString<256> temporary(dir.path);
  llvm::sys::path::append(temporary, kOtherKey);
  ASSERT_FALSE(fs::create_directories(temporary));
  llvm::sys::path::append(temporary, "store-12345678.tmp");
  writeFile(temporary.str().str(), "half a modu");
  EXPECT_FALSE(cache.lookup(kOtherKey));
  EXPECT_EQ(cache.list().size(), 1u);
}

TEST(CompileCache, CorruptAndTruncatedEntriesAreDiscarded) {
  CacheDir dir;
  CompileCache cache(dir.config());
  std::string bytes(10000, 'm');
  for (size_t i = 0; i < bytes.size(); ++i)
    bytes[i] = char(i * 7);
  for (const char *damage : {"truncated", "corrupt", "empty"}) {
    SCOPED_TRACE(damage);
    auto path = cache.store(kKey, bytes);
    ASSERT_TRUE(path);
    std::string damaged = bytes;
    if (std::string(damage) == "truncated")
      damaged.resize(bytes.size() / 2);
    else if (std::string(damage) == "corrupt")
      damaged[1234] ^= 0x10;
    else
      damaged.clear();
    writeFile(*path, damaged);
    EXPECT_FALSE(cache.lookup(kKey));
    EXPECT_FALSE(fs::exists(*path)) << "the damaged entry was kept";
    EXPECT_TRUE(cache.list().empty());
  }
  // Stored again after that, it is found again.
  ASSERT_TRUE(cache.store(kKey, bytes));
  EXPECT_EQ(cache.lookup(kKey).value_or(""), bytes);
}

TEST(CompileCache, PrunesLeastRecentlyUsedFirst) {
  CacheDir dir;
  CompileCache cache(dir.config());
  std::vector<std::string> keys;
  for (char c : {'1', '2', '3', '4'}) {
    keys.push_back(std::string(64, c));
    ASSERT_TRUE(cache.store(keys.back(), std::string(1000, c)));
    // Distinct modification times, oldest first.
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  EXPECT_EQ(cache.totalBytes(), 4000u);
  // A hit makes key 1 the most recently used.
  ASSERT_TRUE(cache.lookup(keys[0]));
  EXPECT_EQ(cache.list().back().key, keys[0]);
  EXPECT_EQ(cache.prune(2500), 2u);
  EXPECT_FALSE(cache.lookup(keys[1]));
  EXPECT_FALSE(cache.lookup(keys[2]));
  EXPECT_TRUE(cache.lookup(keys[3]));
  EXPECT_TRUE(cache.lookup(keys[0]));
  // A store past the bound prunes by itself.
  CompileCacheConfig bounded = dir.config();
  bounded.maxBytes = 2500;
  CompileCache small(bounded);
  ASSERT_TRUE(small.store(std::string(64, '5'), std::string(1000, '5')));
  EXPECT_LE(small.totalBytes(), 2500u);
  EXPECT_TRUE(small.lookup(std::string(64, '5')));
  size_t entries = small.list().size();
  EXPECT_EQ(entries, 2u);
  EXPECT_EQ(small.clear(), entries);
  EXPECT_TRUE(small.list().empty());
}

// Note [Cache usage ledger]: stores keep <dir>/usage (bytes, stores since
// the last exact count) instead of walking the directory; it is exact after
// prune and clear, never makes a store delete on its own say-so, and is
// recounted when missing or every 64th store.
TEST(CompileCache, UsageLedgerFollowsTheDirectory) {
  CacheDir dir;
  CompileCacheConfig config = dir.config();
  config.maxBytes = 100000;
  CompileCache cache(config);
  std::string ledger = dir.path + "/usage";
  ASSERT_TRUE(cache.store(kKey, std::string(1000, 'x')));
  EXPECT_EQ(readFile(ledger), "1000 0\n"); // counted: there was none
  ASSERT_TRUE(cache.store(kOtherKey, std::string(500, 'y')));
  EXPECT_EQ(readFile(ledger), "1500 1\n");
  // The same bytes again, and new bytes for a key (the old entry goes).
  ASSERT_TRUE(cache.store(kOtherKey, std::string(500, 'y')));
  EXPECT_EQ(readFile(ledger), "1500 2\n");
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  ASSERT_TRUE(cache.store(kOtherKey, std::string(700, 'z')));
  EXPECT_EQ(readFile(ledger), "1700 3\n");
  EXPECT_EQ(cache.totalBytes(), 1700u);
  EXPECT_EQ(cache.list().size(), 2u);

  // A ledger over the bound (another process's, say) makes the store count
  // exactly, not delete: nothing here is over the bound.
  writeFile(ledger, "999999 5\n");
  ASSERT_TRUE(cache.store(std::string(64, 'c'), std::string(300, 'c')));
  EXPECT_EQ(cache.list().size(), 3u);
  EXPECT_EQ(readFile(ledger), "2000 0\n");
  // An unreadable one is recounted.
  writeFile(ledger, "garbage");
  ASSERT_TRUE(cache.store(std::string(64, 'd'), std::string(100, 'd')));
  EXPECT_EQ(readFile(ledger), "2100 0\n");
  // One that lost updates is put right by the 64th store's count.
  writeFile(ledger, "0 60\n");
  for (char c : {'1', '2', '3'}) {
    ASSERT_TRUE(cache.store(std::string(64, c), std::string(10, c)));
  }
  EXPECT_EQ(readFile(ledger), "30 63\n");
  ASSERT_TRUE(cache.store(std::string(64, '4'), std::string(10, '4')));
  EXPECT_EQ(readFile(ledger), "2140 0\n");
  // Prune and clear leave it exact.
  cache.prune(2000);
  EXPECT_EQ(readFile(ledger), std::to_string(cache.totalBytes()) + " 0\n");
  cache.clear();
  EXPECT_EQ(readFile(ledger), "0 0\n");
  EXPECT_TRUE(cache.list().empty());
}

TEST(CompileCache, ConfigFromTheEnvironment) {
  ASSERT_EQ(setenv("FUSION_CACHE_DIR", "/tmp/somewhere", 1), 0);
  ASSERT_EQ(setenv("FUSION_CACHE_MAX_MB", "12", 1), 0);
  ASSERT_EQ(unsetenv("FUSION_CACHE"), 0);
  CompileCacheConfig config = CompileCacheConfig::fromEnvironment();
  EXPECT_TRUE(config.enabled);
  EXPECT_EQ(config.directory, "/tmp/somewhere");
  EXPECT_EQ(config.maxBytes, uint64_t(12) << 20);
  EXPECT_NE(config.compilerId.find("fusion "), std::string::npos);

  ASSERT_EQ(setenv("FUSION_CACHE", "0", 1), 0);
  EXPECT_FALSE(CompileCacheConfig::fromEnvironment().enabled);
  ASSERT_EQ(unsetenv("FUSION_CACHE"), 0);

  ASSERT_EQ(setenv("FUSION_CACHE_MAX_MB", "lots", 1), 0);
  std::string error;
  EXPECT_FALSE(CompileCacheConfig::fromEnvironment(&error).enabled);
  EXPECT_NE(error.find("FUSION_CACHE_MAX_MB"), std::string::npos) << error;
  ASSERT_EQ(unsetenv("FUSION_CACHE_MAX_MB"), 0);

  ASSERT_EQ(unsetenv("FUSION_CACHE_DIR"), 0);
  ASSERT_EQ(setenv("XDG_CACHE_HOME", "/tmp/xdg", 1), 0);
  EXPECT_EQ(CompileCacheConfig::fromEnvironment().directory, "/tmp/xdg/fusion");
  ASSERT_EQ(unsetenv("XDG_CACHE_HOME"), 0);
  const char *home = std::getenv("HOME");
  if (home) {
    EXPECT_EQ(CompileCacheConfig::fromEnvironment().directory,
              std::string(home) + "/.cache/fusion");
  }
}

// A compile stores; the same definition (however written) hits with the same
// bytes; another definition, other options or another compiler miss.
TEST(CompileCache, CompilesHitForTheSameDefinitionOnly) {
  CacheDir dir;
  Compiled first = compileWith(kAddRelu, dir.config());
  ASSERT_FALSE(first.bytes.empty());
  EXPECT_EQ(first.report.outcome, CompileCacheReport::Outcome::Stored);
  EXPECT_EQ(first.report.key.size(), 64u);
  Compiled again = compileWith(kAddRelu, dir.config());
  EXPECT_EQ(again.report.outcome, CompileCacheReport::Outcome::Hit);
  EXPECT_EQ(again.bytes, first.bytes);
  Compiled renamed = compileWith(kAddReluRenamed, dir.config());
  EXPECT_EQ(renamed.report.outcome, CompileCacheReport::Outcome::Hit);
  EXPECT_EQ(renamed.report.key, first.report.key);

  Compiled other = compileWith(kAddNeg, dir.config());
  EXPECT_EQ(other.report.outcome, CompileCacheReport::Outcome::Stored);
  EXPECT_NE(other.report.key, first.report.key);
  CompileOptions unrolled;
  unrolled.unroll = 2;
  Compiled options = compileWith(kAddRelu, dir.config(), unrolled);
  EXPECT_EQ(options.report.outcome, CompileCacheReport::Outcome::Stored);
  CompileOptions chip;
  chip.chip = "sm_100a";
  EXPECT_EQ(compileWith(kAddRelu, dir.config(), chip).report.outcome,
            CompileCacheReport::Outcome::Stored);
  // A rebuilt compiler (another identity) compiles again.
  Compiled rebuilt = compileWith(kAddRelu, dir.config("another-compiler"));
  EXPECT_EQ(rebuilt.report.outcome, CompileCacheReport::Outcome::Stored);
  EXPECT_NE(rebuilt.report.key, first.report.key);
  EXPECT_EQ(rebuilt.bytes, first.bytes);

  // The cached bytes are a module file the runtime loads.
  auto exe = ::fusion::runtime::Executable::load(again.bytes.data(),
                                                 again.bytes.size());
  ASSERT_TRUE(exe.ok()) << exe.status().toString();
  EXPECT_EQ((*exe)->info().name, "add_relu");

  // A corrupt entry: compiled again and stored again, never loaded.
  std::vector<CompileCacheEntry> entries = CompileCache(dir.config()).list();
  for (const CompileCacheEntry &entry : entries)
    if (entry.key == first.report.key)
      writeFile(entry.path, first.bytes.substr(0, 100));
  Compiled repaired = compileWith(kAddRelu, dir.config());
  EXPECT_EQ(repaired.report.outcome, CompileCacheReport::Outcome::Stored);
  EXPECT_EQ(repaired.bytes, first.bytes);

  // Off: no lookup, no store.
  CompileCacheConfig off = dir.config();
  off.enabled = false;
  EXPECT_EQ(compileWith(kAddRelu, off).report.outcome,
            CompileCacheReport::Outcome::Off);
}

// A directory that cannot be written costs a compile, nothing else.
TEST(CompileCache, AnUnwritableDirectoryOnlyCompiles) {
  CacheDir dir;
  llvm::SmallString<256> file(dir.path);
  llvm::sys::path::append(file, "not-a-directory");
  writeFile(file.str().str(), "x");
  CompileCacheConfig config = dir.config();
  config.directory = (file + "/cache").str();
  Compiled compiled = compileWith(kAddRelu, config);
  EXPECT_FALSE(compiled.bytes.empty());
  EXPECT_EQ(compiled.report.outcome, CompileCacheReport::Outcome::NotStored);
  EXPECT_FALSE(compiled.report.error.empty());
}
