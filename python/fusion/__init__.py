"""Fusion: an MLIR-based fusion compiler for NVIDIA GPUs, from Python.

    from fusion import FusionDefinition, DataType

    with FusionDefinition() as fd:
        x = fd.define_tensor(shape=[-1, -1], dtype=DataType.BFloat16)
        fd.add_output(fd.ops.relu(x))
    fd.to_mlir()           # the fusion dialect's textual IR
    fd.execute([tensor])   # torch CUDA: compiled; numpy/CPU: reference interpreter

The compiler and the reference interpreter run in this process
(libfusion_compiler.so); the runtime binding `Executable` loads module files
(a path or bytes). docs/python.md has the rest.
"""

from ._version import __version__
from .errors import (FusionError, FusionDefinitionError, FusionInputError,
                     FusionCompileError, FusionExecutionError)
from .runtime import Executable, load_library
from .dtypes import DataType
from .frontend import FusionDefinition, Tensor, Scalar, Value
from .execution import cache_stats, clear_cache, find_tool

__all__ = ["__version__", "Executable", "FusionError", "load_library", "DataType",
           "FusionDefinition", "Tensor", "Scalar", "Value",
           "FusionDefinitionError", "FusionInputError", "FusionCompileError",
           "FusionExecutionError", "cache_stats", "clear_cache", "find_tool"]
