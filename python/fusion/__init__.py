"""Fusion: run compiled fusion modules on PyTorch tensors.

This stage exposes the runtime (module files compiled by fusion-translate)
through ctypes; the FusionDefinition builder comes with the Python frontend.
"""

from .runtime import Executable, FusionError, load_library

__all__ = ["Executable", "FusionError", "load_library"]
