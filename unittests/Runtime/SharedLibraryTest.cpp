// Tests of libfusion_runtime.so as Python ctypes sees it: dlopen'ed, the C
// API exported, nothing else.
#include "TestModule.h"

#include "fusion/Runtime/fusion_runtime.h"
#include "fusion/Version.h"

#include <gtest/gtest.h>

#include <dlfcn.h>

using namespace fusion::runtime::testing;

TEST(SharedLibraryTest, ExportsTheCApiOnly) {
  void *library = dlopen(FUSION_RUNTIME_SHARED_LIBRARY, RTLD_NOW | RTLD_LOCAL);
  if (!library)
    GTEST_SKIP() << "cannot dlopen " << FUSION_RUNTIME_SHARED_LIBRARY
                 << " (tests moved without it?): " << dlerror();
  using LoadFn = int (*)(const void *, size_t, fusion_executable **);
  using DestroyFn = void (*)(fusion_executable *);
  using NameFn = const char *(*)(const fusion_executable *);
  auto load =
      reinterpret_cast<LoadFn>(dlsym(library, "fusion_executable_load"));
  auto destroy =
      reinterpret_cast<DestroyFn>(dlsym(library, "fusion_executable_destroy"));
  auto name =
      reinterpret_cast<NameFn>(dlsym(library, "fusion_executable_name"));
  ASSERT_NE(load, nullptr);
  ASSERT_NE(destroy, nullptr);
  ASSERT_NE(name, nullptr);
  for (const char *symbol :
       {"fusion_last_error_message", "fusion_last_error_code",
        "fusion_executable_run", "fusion_executable_plan",
        "fusion_executable_infer_outputs", "fusion_free_async",
        "fusion_executable_infer_packed", "fusion_executable_run_packed",
        "fusion_executable_input_flags", "fusion_measure_raw_launch_us"})
    EXPECT_NE(dlsym(library, symbol), nullptr) << symbol;
  // C++ internals stay hidden, e.g. fusion::runtime::dtypeName(DType).
  EXPECT_EQ(dlsym(library, "_ZN6fusion7runtime9dtypeNameENS0_5DTypeE"),
            nullptr);

  std::vector<uint8_t> bytes = makeAddModule().build();
  fusion_executable *exe = nullptr;
  ASSERT_EQ(load(bytes.data(), bytes.size(), &exe), FUSION_OK);
  EXPECT_STREQ(name(exe), "add");
  destroy(exe);

  // The library says which version it is, the one the headers carry.
  using VersionFn = const char *(*)();
  auto version =
      reinterpret_cast<VersionFn>(dlsym(library, "fusion_runtime_version"));
  ASSERT_NE(version, nullptr);
  EXPECT_STREQ(version(), FUSION_VERSION_STRING);
  // No dlclose: the library's own static libstdc++ keeps an exception pool
  // that would then show up as a leak under LeakSanitizer.
}
