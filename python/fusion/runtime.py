"""ctypes binding of the Fusion runtime's C API (fusion_runtime.h).

Works with any CPython 3 and needs no compiled extension: it loads
libfusion_runtime.so, found through $FUSION_RUNTIME_LIBRARY, next to this
package, or on the loader path.
"""

import ctypes
import os

MAX_RANK = 8

_DTYPES = ["f64", "f32", "f16", "bf16", "i64", "i32", "i16", "i8", "i1",
           "f8e4m3", "f8e5m2"]
_TORCH_DTYPES = {
    "float64": 0, "float32": 1, "float16": 2, "bfloat16": 3, "int64": 4,
    "int32": 5, "int16": 6, "int8": 7, "bool": 8, "float8_e4m3fn": 9,
    "float8_e5m2": 10,
}


from .errors import FusionError  # noqa: E402  (FusionError(code, name, message))


class _Arg(ctypes.Structure):
    _fields_ = [("kind", ctypes.c_int32), ("dtype", ctypes.c_int32),
                ("data", ctypes.c_void_p), ("rank", ctypes.c_int64),
                ("sizes", ctypes.POINTER(ctypes.c_int64)),
                ("strides", ctypes.POINTER(ctypes.c_int64)),
                ("int_value", ctypes.c_int64),
                ("float_value", ctypes.c_double)]


class _Tensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("dtype", ctypes.c_int32),
                ("rank", ctypes.c_int32),
                ("sizes", ctypes.c_int64 * MAX_RANK),
                ("strides", ctypes.c_int64 * MAX_RANK),
                ("allocated", ctypes.c_int32), ("reserved", ctypes.c_int32)]


class ScalarArg:
    """A scalar fusion input: a Python number and its dtype (an MLIR name
    such as "f32", "i64", "i1" or "index")."""

    def __init__(self, value, dtype):
        self.value = value
        self.dtype = dtype


_lib = None


def load_library(path=None):
    """Loads libfusion_runtime.so once and declares its functions."""
    global _lib
    if _lib is not None:
        return _lib
    candidates = [path, os.environ.get("FUSION_RUNTIME_LIBRARY"),
                  os.path.join(os.path.dirname(__file__), "libfusion_runtime.so"),
                  "libfusion_runtime.so"]
    errors = []
    for candidate in candidates:
        if not candidate:
            continue
        try:
            lib = ctypes.CDLL(candidate)
            break
        except OSError as e:
            errors.append(f"{candidate}: {e}")
    else:
        raise FusionError(-1, "LibraryNotFound",
                          "cannot load libfusion_runtime.so: " + "; ".join(errors))
    lib.fusion_last_error_message.restype = ctypes.c_char_p
    lib.fusion_error_code_name.restype = ctypes.c_char_p
    lib.fusion_executable_load_file.argtypes = [
        ctypes.c_char_p, ctypes.POINTER(ctypes.c_void_p)]
    lib.fusion_executable_destroy.argtypes = [ctypes.c_void_p]
    lib.fusion_executable_num_inputs.argtypes = [ctypes.c_void_p]
    lib.fusion_executable_num_outputs.argtypes = [ctypes.c_void_p]
    lib.fusion_executable_infer_outputs.argtypes = [
        ctypes.c_void_p, ctypes.POINTER(_Arg), ctypes.c_size_t,
        ctypes.POINTER(_Tensor), ctypes.c_size_t]
    lib.fusion_executable_run.argtypes = [
        ctypes.c_void_p, ctypes.POINTER(_Arg), ctypes.c_size_t,
        ctypes.POINTER(_Tensor), ctypes.c_size_t, ctypes.c_void_p]
    _lib = lib
    return lib


def _check(code):
    if code != 0:
        lib = load_library()
        raise FusionError(code, lib.fusion_error_code_name(code).decode(),
                          lib.fusion_last_error_message().decode())


class Executable:
    """A loaded module file; call it on torch CUDA tensors."""

    def __init__(self, path, library=None):
        self._lib = load_library(library)
        handle = ctypes.c_void_p()
        _check(self._lib.fusion_executable_load_file(
            os.fsencode(path), ctypes.byref(handle)))
        self._handle = handle
        self.num_inputs = self._lib.fusion_executable_num_inputs(handle)
        self.num_outputs = self._lib.fusion_executable_num_outputs(handle)

    def __del__(self):
        if getattr(self, "_handle", None):
            self._lib.fusion_executable_destroy(self._handle)
            self._handle = None

    def _args(self, inputs):
        args = (_Arg * len(inputs))()
        keep = []
        for i, t in enumerate(inputs):
            if isinstance(t, ScalarArg):
                name = "i64" if t.dtype == "index" else t.dtype.lower()
                name = {"f8e4m3fn": "f8e4m3"}.get(name, name)
                code = _DTYPES.index(name)
                is_float = name.startswith("f")
                args[i] = _Arg(1, code, None, 0, None, None,
                               0 if is_float else int(t.value),
                               float(t.value) if is_float else 0.0)
                continue
            dtype = _TORCH_DTYPES.get(str(t.dtype).replace("torch.", ""))
            if dtype is None:
                raise FusionError(1, "WrongDType",
                                  f"input {i}: unsupported dtype {t.dtype}")
            sizes = (ctypes.c_int64 * max(t.dim(), 1))(*t.shape)
            strides = (ctypes.c_int64 * max(t.dim(), 1))(*t.stride())
            keep += [sizes, strides]
            args[i] = _Arg(0, dtype, t.data_ptr(), t.dim(), sizes, strides, 0, 0.0)
        return args, keep

    def run(self, inputs, outputs, stream=None):
        """Runs on the given torch tensors; `outputs` are preallocated tensors
        written in place. Uses torch's current stream unless one is given."""
        import torch
        args, keep = self._args(inputs)
        outs = (_Tensor * len(outputs))()
        for i, t in enumerate(outputs):
            outs[i].data = t.data_ptr()
            outs[i].dtype = _TORCH_DTYPES[str(t.dtype).replace("torch.", "")]
            outs[i].rank = t.dim()
            for d in range(t.dim()):
                outs[i].sizes[d] = t.shape[d]
                outs[i].strides[d] = t.stride(d)
        if stream is None:
            stream = torch.cuda.current_stream().cuda_stream
        _check(self._lib.fusion_executable_run(
            self._handle, args, len(inputs), outs, len(outputs),
            ctypes.c_void_p(stream)))
        return outputs

    def empty_outputs(self, inputs):
        """Allocates the outputs for these inputs with torch."""
        import torch
        args, keep = self._args(inputs)
        outs = (_Tensor * self.num_outputs)()
        _check(self._lib.fusion_executable_infer_outputs(
            self._handle, args, len(inputs), outs, self.num_outputs))
        by_code = {v: k for k, v in _TORCH_DTYPES.items()}
        result = []
        for o in outs:
            shape = [o.sizes[d] for d in range(o.rank)]
            result.append(torch.empty(shape, dtype=getattr(torch, by_code[o.dtype]),
                                      device="cuda"))
        return result

    def __call__(self, *inputs):
        outputs = self.empty_outputs(inputs)
        self.run(inputs, outputs)
        return outputs[0] if len(outputs) == 1 else tuple(outputs)
