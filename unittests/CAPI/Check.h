/* The C API tests' checks: CHECK(cond, fmt, ...) reports a failed check with
 * the test's name (TEST_NAME) and line and counts it in `failures`; str()
 * and contains() on MlirStringRef. */
#ifndef FUSION_UNITTESTS_CAPI_CHECK_H
#define FUSION_UNITTESTS_CAPI_CHECK_H

#include "mlir-c/Support.h"

#include <stdio.h>
#include <string.h>

static int failures = 0;
#define CHECK(cond, ...)                                                       \
  do {                                                                         \
    if (!(cond)) {                                                             \
      fprintf(stderr, "%s:%d: check failed: %s: ", TEST_NAME, __LINE__,        \
              #cond);                                                          \
      fprintf(stderr, __VA_ARGS__);                                            \
      fprintf(stderr, "\n");                                                   \
      ++failures;                                                              \
    }                                                                          \
  } while (0)

static inline MlirStringRef str(const char *s) {
  return mlirStringRefCreateFromCString(s);
}

static inline int contains(MlirStringRef s, const char *needle) {
  size_t n = strlen(needle);
  for (size_t i = 0; i + n <= s.length; ++i)
    if (memcmp(s.data + i, needle, n) == 0)
      return 1;
  return 0;
}

#endif /* FUSION_UNITTESTS_CAPI_CHECK_H */
