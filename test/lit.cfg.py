# lit configuration of the fusion tests. GPU tests say `REQUIRES: cuda` and
# run only where a CUDA device answers; elsewhere lit reports them as
# unsupported and this file prints why.
import os
import shutil
import subprocess

import lit.formats

config.name = "fusion"
# The internal shell: lit 23+ (PyPI, used on the GPU machine) drops the
# external one.
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".mlir", ".test"]
config.excludes = ["lit.cfg.py", "lit.site.cfg.py", "CMakeLists.txt", "Inputs",
                   "consumer"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.fusion_obj_root, "test")

config.environment["FILECHECK_OPTS"] = "--enable-var-scope"
# Note [Compile cache]: off in the tests (a hit prints none of the compile's
# diagnostics, and a developer's cache must not answer for the compiler under
# test); the cache tests turn it on with a folder of their own.
config.environment["FUSION_CACHE"] = "0"
path = [config.fusion_tools_dir, config.llvm_tools_dir]
if config.ptxas and os.path.exists(config.ptxas):
    path.append(os.path.dirname(config.ptxas))
    config.available_features.add("ptxas")
config.environment["PATH"] = os.pathsep.join(path + [config.environment.get("PATH", os.environ.get("PATH", ""))])
config.substitutions.append(("%fusion_src", config.fusion_src_root))


def have_cuda_device():
    smi = shutil.which("nvidia-smi")
    if not smi:
        return False
    try:
        out = subprocess.run([smi, "-L"], capture_output=True, text=True, timeout=30)
    except Exception:
        return False
    return out.returncode == 0 and "GPU" in out.stdout


if have_cuda_device():
    config.available_features.add("cuda")
else:
    lit_config.note("no CUDA device found: tests marked 'REQUIRES: cuda' are skipped (UNSUPPORTED)")

# Note [Sanitized GPU runs]: with FUSION_RUN_WRAPPER set (utils/gpu-tests.sh
# sets it to `compute-sanitizer --tool T ...`), every fusion-run of a RUN line
# that launches kernels runs under that wrapper, so the GPU tests double as
# memcheck, racecheck, initcheck and synccheck runs over their kernels. Runs
# that never touch the GPU (--reference-only, a missing driver) are left
# alone: compute-sanitizer fails a program that makes no CUDA call.
wrapper = os.environ.get("FUSION_RUN_WRAPPER", "").strip()
if wrapper:
    config.substitutions.insert(
        0,
        (r"(?<![\w/.=-])fusion-run(?=\s)(?!.*--reference-only)",
         wrapper.replace("\\", "\\\\") + " fusion-run"))
    lit_config.note("fusion-run runs under: " + wrapper)
