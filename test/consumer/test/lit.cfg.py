# lit configuration of the consumer's own tests: they run its consumer-opt
# (Fusion registered beside every upstream dialect) with the FileCheck of the
# LLVM that Fusion was built with.
import os

import lit.formats

config.name = "fusion-consumer"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".mlir"]
config.excludes = ["lit.cfg.py", "lit.site.cfg.py"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = config.consumer_obj_root
config.environment["PATH"] = os.pathsep.join(
    [config.consumer_bin_dir, config.llvm_tools_dir,
     config.environment.get("PATH", os.environ.get("PATH", ""))])
