"""pytest setup: import the package from python/ (or, with
FUSION_TEST_INSTALLED=1, the installed one: a wheel) and find the built
tools."""
import os
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
INSTALLED = os.environ.get("FUSION_TEST_INSTALLED") == "1"
if not INSTALLED:
    sys.path.insert(0, os.path.join(ROOT, "python"))

import fusion  # noqa: E402
from fusion import find_tool  # noqa: E402

if INSTALLED and os.path.abspath(fusion.__file__).startswith(os.path.join(ROOT, "python")):
    raise RuntimeError(f"FUSION_TEST_INSTALLED=1 but fusion comes from the source tree "
                       f"({fusion.__file__})")


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


def compiler_or_skip():
    """The compiler library's path (fusion/_compiler.py), or a skip."""
    from fusion import _compiler
    try:
        return _compiler.library_path()
    except fusion.FusionCompileError as e:
        pytest.skip(str(e))


@pytest.fixture
def verify_ir():
    """Checks IR text parses and verifies (the compiler library, in process,
    as fusion-opt without passes); returns the IR printed back."""
    from fusion import _compiler

    def verify(text):
        try:
            data, _ = _compiler.compile(text, "<test>", kind=_compiler.OUTPUT_VERIFIED_IR)
        except fusion.FusionCompileError as e:
            raise AssertionError(f"the IR does not verify:\n{e}\n{text}")
        return data.decode()

    return verify


@pytest.fixture
def interpreter():
    """The reference interpreter, in process (fusion/_compiler.py)."""
    return compiler_or_skip()
