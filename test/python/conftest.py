"""pytest setup: import the package from python/ and find the built tools."""
import os
import shutil
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "python"))

from fusion import find_tool  # noqa: E402


@pytest.fixture(scope="session", autouse=True)
def _compile_cache(tmp_path_factory):
    """Note [Compile cache]: the tools' cache in a folder of this session's,
    not the user's (a developer's cache must not answer for the compiler
    under test)."""
    old = os.environ.get("FUSION_CACHE_DIR")
    os.environ["FUSION_CACHE_DIR"] = str(tmp_path_factory.mktemp("compile-cache"))
    yield
    if old is None:
        del os.environ["FUSION_CACHE_DIR"]
    else:
        os.environ["FUSION_CACHE_DIR"] = old


def tool_or_skip(name):
    path = find_tool(name, required=False)
    if path is None:
        pytest.skip(f"{name} is not built (build it with `ninja -C build {name}`, "
                    f"or set FUSION_TOOLS_DIR)")
    return path


@pytest.fixture
def verify_ir():
    """Checks IR text parses and verifies with fusion-opt; returns its output."""
    opt = tool_or_skip("fusion-opt")

    def verify(text):
        proc = subprocess.run([opt, "-"], input=text, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, universal_newlines=True)
        assert proc.returncode == 0, f"fusion-opt rejected the IR:\n{proc.stderr}\n{text}"
        return proc.stdout

    return verify


@pytest.fixture
def interpreter():
    return tool_or_skip("fusion-interpret")
