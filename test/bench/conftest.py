"""pytest setup for the benchmark suite's tests: import bench/ (no torch, no
GPU needed) and find the built tools."""
import os
import shutil
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BENCH = os.path.join(ROOT, "bench")
if BENCH not in sys.path:
    sys.path.insert(0, BENCH)


def find_tool(name):
    dirs = [os.environ.get("FUSION_TOOLS_DIR"),
            os.path.join(ROOT, os.environ.get("FUSION_BUILD_DIR", "build"), "bin"),
            os.path.join(ROOT, "build", "bin"), os.path.join(ROOT, "build-c", "bin")]
    for d in dirs:
        if d and os.access(os.path.join(d, name), os.X_OK):
            return os.path.join(d, name)
    return shutil.which(name)


@pytest.fixture
def tool():
    def get(name):
        path = find_tool(name)
        if path is None:
            pytest.skip(f"{name} is not built")
        return path
    return get
