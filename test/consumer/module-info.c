/* Loads a module file with the Fusion runtime's C API and prints its
 * metadata: no compiler, no MLIR, no GPU needed (kernels are loaded into the
 * driver only when a run needs them). */
#include "fusion/Runtime/fusion_runtime.h"
#include "fusion/Version.h"

#include <stdio.h>
#include <string.h>

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: module-info MODULE_FILE\n");
    return 2;
  }
  printf("runtime %s (built against headers %s), module format %u\n",
         fusion_runtime_version(), FUSION_VERSION_STRING,
         (unsigned)fusion_module_format_version());
  if (strcmp(fusion_runtime_version(), FUSION_VERSION_STRING) != 0) {
    fprintf(stderr, "the runtime's version is not the headers'\n");
    return 1;
  }
  fusion_executable *exe = NULL;
  if (fusion_executable_load_file(argv[1], &exe) != FUSION_OK) {
    fprintf(stderr, "%s: %s\n", fusion_error_code_name(fusion_last_error_code()),
            fusion_last_error_message());
    return 1;
  }
  printf("fusion %s for %s (written by %s): %d inputs, %d outputs\n",
         fusion_executable_name(exe), fusion_executable_target(exe),
         fusion_executable_producer(exe), fusion_executable_num_inputs(exe),
         fusion_executable_num_outputs(exe));
  for (int i = 0; i < fusion_executable_num_outputs(exe); ++i) {
    int32_t dtype = 0, rank = 0;
    if (fusion_executable_output(exe, i, &dtype, &rank) != FUSION_OK)
      return 1;
    printf("output %d: %s, rank %d\n", i, fusion_dtype_name(dtype), (int)rank);
  }
  fusion_executable_destroy(exe);
  return 0;
}
