"""The package's version: `fusion.__version__`."""

import os
import re


def _version():
    """In a source tree, the project() VERSION of CMakeLists.txt; installed,
    the distribution's (fusion-mlir), which the wheel took from the same
    line (pyproject.toml)."""
    here = os.path.dirname(os.path.abspath(__file__))
    cmake = os.path.join(os.path.dirname(os.path.dirname(here)), "CMakeLists.txt")
    if os.path.isfile(cmake):
        with open(cmake) as f:
            m = re.search(r"project\(fusion VERSION ([0-9]+\.[0-9]+\.[0-9]+)", f.read())
        if m:
            return m.group(1)
    try:
        from importlib.metadata import version
        return version("fusion-mlir")
    except Exception:  # noqa: BLE001 (not installed, no metadata)
        return "unknown"


__version__ = _version()
