"""ctypes binding of the Fusion runtime's C API (fusion_runtime.h).

Works with any CPython 3 and needs no compiled extension: it loads
libfusion_runtime.so, found through $FUSION_RUNTIME_LIBRARY, next to this
package, in the repository's build (fusion/_paths.py), or on the loader path.

Note [Python fast path]: a call binds its inputs through the packed C entry
points (fusion_executable_infer_packed / fusion_executable_run_packed), which
take flat int64 records instead of structs. Everything that depends only on
the input signature (dtype, shape, strides and device of every tensor, the
type of every scalar and the value of the integer scalars the launch plan
reads) is computed once per signature and kept in a `_Signature`: the input
records, the output records the runtime checks the outputs against, and how
to allocate each output. A call with a known signature builds the signature
key, writes the data pointers (and scalar values) into preallocated arrays,
allocates the outputs with torch and makes one C call.

Note [C fast path]: when the extension module fusion._fastpath
(lib/Python/fastpath.c, `_fastpath.abi3.so`) loads, the per-call work above
moves into C. Python still binds every new signature (`_bind`: all checks,
all error messages) and then adds it to a `_fastpath.Cache`: the runtime
handle, the address of fusion_executable_run_packed (taken from this
module's ctypes library, so there is one loaded copy), the packed records
and the output specs. A later call goes to `Cache.call` first, which reads
each tensor's dtype, shape, stride(), get_device() and data_ptr() in C, finds
the signature, allocates the outputs with the backend's empty /
empty_strided, and calls the runtime; a runtime failure is raised as the
same FusionError. Whatever the C code does not recognise (an unbound
signature, a non-tensor, an unknown dtype, ScalarArg or numpy scalars,
another current device) makes it return None, and the ctypes path below
runs as before, with its errors. The extension is found through
$FUSION_FASTPATH_LIBRARY, next to this package, or in
<repository>/$FUSION_BUILD_DIR/lib and <repository>/build/lib;
FUSION_NO_FASTPATH=1 turns it off (read when an Executable is created and
when FusionDefinition.execute installs a signature).
"""

import ctypes
import importlib.util
import numbers
import os
import threading

from ._paths import library_candidates
from .errors import FusionError

MAX_RANK = 8

_DTYPES = ["f64", "f32", "f16", "bf16", "i64", "i32", "i16", "i8", "i1",
           "f8e4m3", "f8e5m2"]
_TORCH_DTYPES = {
    "float64": 0, "float32": 1, "float16": 2, "bfloat16": 3, "int64": 4,
    "int32": 5, "int16": 6, "int8": 7, "bool": 8, "float8_e4m3fn": 9,
    "float8_e5m2": 10,
}
_TORCH_NAMES = {code: name for name, code in _TORCH_DTYPES.items()}
_FLOAT_CODES = frozenset((0, 1, 2, 3, 9, 10))

# Error codes (fusion_runtime.h).
_INVALID_ARGUMENT = 1
_WRONG_INPUT_COUNT = 5
_WRONG_INPUT_KIND = 6
_WRONG_DTYPE = 7
_WRONG_RANK = 8
_WRONG_OUTPUT = 16

# The packed record layout (FUSION_PACKED_* in fusion_runtime.h).
KIND, ALIAS, DTYPE, RANK, VALUE, NUM_ELEMENTS, SIZES, STRIDES, OFFSET, WORDS = \
    0, 0, 1, 2, 3, 3, 4, 12, 20, 21
ARG_TENSOR, ARG_SCALAR = 0, 1
INPUT_VALUE_AFFECTS_PLAN = 1

# [lowest, highest] of the integer dtype codes (i64, i32, i16, i8, i1);
# Note [Scalar ranges].
INT64_MIN, INT64_MAX = -(1 << 63), (1 << 63) - 1
_INT_RANGES = {4: (INT64_MIN, INT64_MAX), 5: (-(1 << 31), (1 << 31) - 1),
               6: (-(1 << 15), (1 << 15) - 1), 7: (-(1 << 7), (1 << 7) - 1), 8: (0, 1)}

# Signatures kept per Executable before the cache starts over.
_MAX_SIGNATURES = 4096


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


class _LaunchInfo(ctypes.Structure):
    _fields_ = [("kernel", ctypes.c_int32), ("variant", ctypes.c_int32),
                ("grid", ctypes.c_uint32 * 3), ("block", ctypes.c_uint32 * 3),
                ("cluster", ctypes.c_uint32 * 3), ("dynamic_smem", ctypes.c_uint32),
                ("has_cluster", ctypes.c_int32), ("cooperative", ctypes.c_int32),
                ("skipped", ctypes.c_int32), ("param_size", ctypes.c_size_t),
                ("params", ctypes.c_void_p)]


class _KernelInfo(ctypes.Structure):
    _fields_ = [("name", ctypes.c_char_p), ("has_cubin", ctypes.c_int32),
                ("ptx_size", ctypes.c_size_t), ("cubin_size", ctypes.c_size_t)]


class _InputInfo(ctypes.Structure):
    _fields_ = [("name", ctypes.c_char_p), ("kind", ctypes.c_int32),
                ("dtype", ctypes.c_int32), ("rank", ctypes.c_int32),
                ("sizes", ctypes.POINTER(ctypes.c_int64))]


class ScalarArg:
    """A scalar fusion input: a Python number and its dtype (an MLIR name
    such as "f32", "i64", "i1" or "index")."""

    def __init__(self, value, dtype):
        self.value = value
        self.dtype = dtype


def scalar_dtype_code(name):
    """The runtime's dtype code of an MLIR scalar type name."""
    name = "i64" if name == "index" else name.lower()
    name = {"f8e4m3fn": "f8e4m3"}.get(name, name)
    if name not in _DTYPES:
        raise FusionError(_WRONG_DTYPE, "WrongDType", f"unknown scalar dtype {name!r}")
    return _DTYPES.index(name)


_lib = None


def load_library(path=None):
    """Loads libfusion_runtime.so once and declares its functions."""
    global _lib
    if _lib is not None:
        return _lib
    candidates = [path] + library_candidates("libfusion_runtime.so",
                                             "FUSION_RUNTIME_LIBRARY") + ["libfusion_runtime.so"]
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
    vp, i64p = ctypes.c_void_p, ctypes.POINTER(ctypes.c_int64)
    lib.fusion_last_error_message.restype = ctypes.c_char_p
    lib.fusion_error_code_name.restype = ctypes.c_char_p
    lib.fusion_executable_load_file.argtypes = [ctypes.c_char_p, ctypes.POINTER(vp)]
    lib.fusion_executable_load.argtypes = [ctypes.c_char_p, ctypes.c_size_t,
                                           ctypes.POINTER(vp)]
    lib.fusion_executable_plan.argtypes = [vp, ctypes.POINTER(_Arg), ctypes.c_size_t,
                                           ctypes.POINTER(vp)]
    lib.fusion_plan_destroy.argtypes = [vp]
    lib.fusion_plan_destroy.restype = None
    lib.fusion_plan_num_launches.argtypes = [vp]
    lib.fusion_plan_launch.argtypes = [vp, ctypes.c_int, ctypes.POINTER(_LaunchInfo)]
    lib.fusion_executable_kernel.argtypes = [vp, ctypes.c_int, ctypes.POINTER(_KernelInfo)]
    lib.fusion_executable_destroy.argtypes = [vp]
    lib.fusion_executable_destroy.restype = None
    lib.fusion_executable_num_inputs.argtypes = [vp]
    lib.fusion_executable_num_outputs.argtypes = [vp]
    lib.fusion_executable_input.argtypes = [vp, ctypes.c_int, ctypes.POINTER(_InputInfo)]
    lib.fusion_executable_input_flags.argtypes = [
        vp, ctypes.c_int, ctypes.POINTER(ctypes.c_uint32)]
    lib.fusion_executable_output.argtypes = [
        vp, ctypes.c_int, ctypes.POINTER(ctypes.c_int32), ctypes.POINTER(ctypes.c_int32)]
    lib.fusion_executable_infer_outputs.argtypes = [
        vp, ctypes.POINTER(_Arg), ctypes.c_size_t, ctypes.POINTER(_Tensor), ctypes.c_size_t]
    lib.fusion_executable_run.argtypes = [
        vp, ctypes.POINTER(_Arg), ctypes.c_size_t, ctypes.POINTER(_Tensor),
        ctypes.c_size_t, vp]
    lib.fusion_executable_infer_packed.argtypes = [
        vp, ctypes.POINTER(vp), i64p, ctypes.c_size_t, i64p, ctypes.c_size_t]
    lib.fusion_executable_run_packed.argtypes = [
        vp, ctypes.POINTER(vp), i64p, ctypes.c_size_t, ctypes.POINTER(vp), i64p,
        ctypes.c_size_t, vp]
    lib.fusion_measure_raw_launch_us.argtypes = [
        ctypes.c_int, vp, ctypes.POINTER(ctypes.c_double)]
    lib.fusion_executable_cache_stats.argtypes = [vp, vp]
    lib.fusion_executable_graph_stats.argtypes = [vp, vp]
    lib.fusion_executable_set_launch_graphs.argtypes = [vp, ctypes.c_int]
    lib.fusion_executable_kernel_built.argtypes = [vp, ctypes.c_int]
    lib.fusion_executable_num_kernels.argtypes = [vp]
    lib.fusion_set_kernel_builder.argtypes = [vp, vp]
    lib.fusion_set_kernel_builder.restype = None
    lib.fusion_driver_status.argtypes = []
    lib.fusion_stream_synchronize.argtypes = [vp]
    _lib = lib
    return lib


# --- the C fast path (Note [C fast path]) --------------------------------------------

FASTPATH_NAME = "_fastpath.abi3.so"
_FASTPATH_VERSION = 3  # fastpath.c's FASTPATH_VERSION
_fastpath = None
_fastpath_tried = False
_fastpath_status = "not loaded yet"


def fastpath_disabled():
    """True when $FUSION_NO_FASTPATH asks for the ctypes path only."""
    return os.environ.get("FUSION_NO_FASTPATH", "") not in ("", "0")


def fastpath_candidates():
    return library_candidates(FASTPATH_NAME, "FUSION_FASTPATH_LIBRARY")


def load_fastpath():
    """The extension module fusion._fastpath, or None when
    $FUSION_NO_FASTPATH is set or it cannot be loaded (fastpath_status()
    says why). Loaded once."""
    global _fastpath, _fastpath_tried, _fastpath_status
    if fastpath_disabled():
        return None
    if _fastpath_tried:
        return _fastpath
    _fastpath_tried = True
    errors = []
    for path in fastpath_candidates():
        if not os.path.isfile(path):
            if path == os.environ.get("FUSION_FASTPATH_LIBRARY"):
                errors.append(f"{path}: no such file")
            continue
        try:
            spec = importlib.util.spec_from_file_location("fusion._fastpath", path)
            module = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(module)
        except Exception as e:  # noqa: BLE001 (ImportError, OSError, ...)
            errors.append(f"{path}: {e}")
            continue
        found = (getattr(module, "VERSION", None), getattr(module, "PACKED_WORDS", None),
                 getattr(module, "MAX_RANK", None))
        if found != (_FASTPATH_VERSION, WORDS, MAX_RANK):
            errors.append(f"{path}: version, packed words, max rank {found}, expected "
                          f"{(_FASTPATH_VERSION, WORDS, MAX_RANK)} (rebuild it)")
            continue
        _fastpath = module
        _fastpath_status = f"loaded from {path}"
        return module
    _fastpath_status = "not found: " + ("; ".join(errors) if errors else
                                        "looked in " + ", ".join(fastpath_candidates()))
    return None


def fastpath_status():
    """A line saying whether the C fast path is in use and why (not)."""
    if fastpath_disabled():
        return "off: FUSION_NO_FASTPATH is set"
    load_fastpath()
    return _fastpath_status


def _address(function):
    return ctypes.cast(function, ctypes.c_void_p).value


def _dtype_codes(backend):
    """{dtype object: FUSION_DTYPE_*} for the dtypes the backend has."""
    codes = {}
    for code in range(len(_DTYPES)):
        try:
            codes[backend.dtype(code)] = code
        except (AttributeError, KeyError, TypeError):  # e.g. a torch without fp8
            pass
    return codes


def _check(code):
    if code != 0:
        lib = load_library()
        raise FusionError(code, lib.fusion_error_code_name(code).decode(),
                          lib.fusion_last_error_message().decode())


def measure_raw_launch_us(launches=10000, stream=None, library=None):
    """Host time per cuLaunchKernelEx of an empty kernel (the floor of host
    overhead), in microseconds; `stream` is a CUstream (an int), default the
    legacy default stream. Uses the CUDA context current on this thread."""
    lib = load_library(library)
    out = ctypes.c_double()
    _check(lib.fusion_measure_raw_launch_us(int(launches), stream, ctypes.byref(out)))
    return out.value


# --- tensor backends -----------------------------------------------------------------


def _driver_function_address(name):
    """The address of a CUDA driver function of the libcuda.so.1 this
    process has loaded already (torch's), or None."""
    try:
        lib = ctypes.CDLL("libcuda.so.1", mode=getattr(os, "RTLD_NOLOAD", 0) | ctypes.RTLD_LOCAL)
        return ctypes.cast(getattr(lib, name), ctypes.c_void_p).value
    except (OSError, AttributeError):
        return None


class TorchBackend:
    """What the fast path needs from torch: output allocation, the current
    device and its raw stream. Tests substitute a fake with these methods."""

    def __init__(self):
        import torch
        self.torch = torch
        self.empty = torch.empty
        self.empty_strided = torch.empty_strided
        # Outputs with an input's dtype and shape, when that input is a
        # contiguous torch.Tensor: empty_like(input), which costs less than
        # empty() (Note [Outputs like an input] in lib/Python/fastpath.c).
        self.empty_like = getattr(torch, "empty_like", None)
        self.tensor_type = getattr(torch, "Tensor", None)
        raw = getattr(torch._C, "_cuda_getCurrentRawStream", None)
        self.raw_stream = raw if raw is not None else \
            (lambda index: torch.cuda.current_stream(index).cuda_stream)
        get_device = getattr(torch._C, "_cuda_getDevice", None)
        self.current_device = get_device if get_device is not None else \
            torch.cuda.current_device
        self.device_guard = torch.cuda.device
        # The C fast path compares CUDA contexts instead of calling
        # current_device() (Note [Context check] in lib/Python/fastpath.c).
        self.current_context_address = _driver_function_address("cuCtxGetCurrent")

    def dtype(self, code):
        return getattr(self.torch, _TORCH_NAMES[code])

    def device(self, index):
        return self.torch.device("cuda", index)


_torch_backend = None


def torch_backend():
    global _torch_backend
    if _torch_backend is None:
        _torch_backend = TorchBackend()
    return _torch_backend


def _dtype_name(dtype):
    return str(dtype).replace("torch.", "")


def _row_major(shape):
    strides = [1] * len(shape)
    for d in range(len(shape) - 1, 0, -1):
        strides[d - 1] = strides[d] * max(shape[d], 1)
    return tuple(strides)


def _is_number(x):
    if isinstance(x, numbers.Number):
        return not hasattr(x, "data_ptr")
    # numpy scalars (numpy.bool_ is not a numbers.Number).
    return type(x).__module__ == "numpy" and getattr(x, "shape", None) == ()


def make_key(inputs, codes):
    """The signature key of `inputs` for per-slot `codes` (0 tensor: dtype,
    shape, strides, device; 1 scalar: its type; 2 scalar: type and value).
    Raises (AttributeError, TypeError, ValueError) for inputs that do not
    fit; the caller diagnoses."""
    if len(inputs) != len(codes):
        raise ValueError("wrong number of inputs")
    key = []
    for x, code in zip(inputs, codes):
        if code == 0:
            key.append((x.dtype, x.shape, x.stride(), x.get_device()))
        elif type(x) is ScalarArg:
            key.append((ScalarArg, x.dtype, x.value) if code == 2 else (ScalarArg, x.dtype))
        else:
            key.append((type(x), x) if code == 2 else type(x))
    return tuple(key)


class _Signature:
    """Everything one input signature needs per call (see Note [Python fast
    path]): input records with the tensors' dtype, rank, sizes and strides
    filled in, the output records, how to allocate each output, and the
    scalar slots to fill per call."""

    __slots__ = ("records", "doubles", "out_records", "outputs", "scalars",
                 "device_index", "device", "out_key_records")


def install_kernel_builder(library=None):
    """Note [Deferred kernels]: makes the compiler (libfusion_compiler.so)
    the builder of deferred kernels in this process, so that modules compiled
    with defer-kernels build a kernel when a launch first needs it. The
    frontend does this when it compiles with deferral (its default;
    FUSION_DEFER_KERNELS=none turns deferral off)."""
    from . import _compiler
    load_library(library).fusion_set_kernel_builder(_compiler.builder_address(), None)


class Executable:
    """A loaded module file (a path, or the file's bytes); call it on torch
    CUDA tensors.

    `exe(*inputs)` returns the output tensor (a tuple for several outputs),
    `exe.call(inputs)` a list; `exe.run(inputs, outputs)` writes
    preallocated outputs; `exe.empty_outputs(inputs)` allocates them. Every
    error is a FusionError raised before anything is launched."""

    def __init__(self, path, library=None, backend=None, fastpath=None):
        self._lib = lib = load_library(library)
        # The C fast path (Note [C fast path]): None (when available, unless
        # $FUSION_NO_FASTPATH), True (required), False (off). Its Cache is
        # created at the first bind.
        self._fast = None
        self._fastpath = None if fastpath is False else load_fastpath()
        if fastpath and self._fastpath is None:
            raise FusionError(-1, "FastPathUnavailable",
                              f"fusion._fastpath: {fastpath_status()}")
        handle = ctypes.c_void_p()
        if isinstance(path, (bytes, bytearray, memoryview)):
            # The module file itself (what the compiler returns in process).
            data = bytes(path)
            _check(lib.fusion_executable_load(data, len(data), ctypes.byref(handle)))
            path = None
        else:
            _check(lib.fusion_executable_load_file(os.fsencode(path), ctypes.byref(handle)))
        self._handle = handle
        self.path = path
        self.num_inputs = n = lib.fusion_executable_num_inputs(handle)
        self.num_outputs = m = lib.fusion_executable_num_outputs(handle)
        self._backend = backend
        self.input_names, self.input_kinds, self.input_dtypes = [], [], []
        self.input_ranks = []
        affects = []
        info = _InputInfo()
        flags = ctypes.c_uint32()
        for i in range(n):
            _check(lib.fusion_executable_input(handle, i, ctypes.byref(info)))
            _check(lib.fusion_executable_input_flags(handle, i, ctypes.byref(flags)))
            self.input_names.append((info.name or b"").decode())
            self.input_kinds.append(info.kind)
            self.input_dtypes.append(info.dtype)
            self.input_ranks.append(info.rank)
            affects.append(bool(flags.value & INPUT_VALUE_AFFECTS_PLAN))
        self.output_dtypes = []
        dt, rank = ctypes.c_int32(), ctypes.c_int32()
        for o in range(m):
            _check(lib.fusion_executable_output(handle, o, ctypes.byref(dt), ctypes.byref(rank)))
            self.output_dtypes.append(dt.value)
        # Per slot: 0 tensor, 1 scalar (its type is in the key), 2 scalar
        # whose value the plan reads (the value is in the key too).
        self.key_codes = tuple(0 if k == ARG_TENSOR else (2 if a else 1)
                               for k, a in zip(self.input_kinds, affects))
        self._tensor_slots = tuple(i for i in range(n) if self.input_kinds[i] == ARG_TENSOR)
        self._in_data = (ctypes.c_void_p * max(n, 1))()
        self._out_data = (ctypes.c_void_p * max(m, 1))()
        self._signatures = {}
        self._lock = threading.Lock()
        self._run_packed = lib.fusion_executable_run_packed
        self._dtype_codes = {}

    def __del__(self):
        if getattr(self, "_handle", None):
            self._lib.fusion_executable_destroy(self._handle)
            self._handle = None

    def kernels(self):
        """Per kernel of the module: {'name', 'built'} ('built' False for a
        deferred kernel no launch has needed yet)."""
        info, out = _KernelInfo(), []
        for k in range(self._lib.fusion_executable_num_kernels(self._handle)):
            _check(self._lib.fusion_executable_kernel(self._handle, k, ctypes.byref(info)))
            out.append({"name": (info.name or b"").decode(),
                        "built": self._lib.fusion_executable_kernel_built(self._handle, k) == 1})
        return out

    # -- labels and errors --

    def _label(self, i):
        return f"input {i} ({self.input_names[i]})"

    def _error(self, code, name, message):
        return FusionError(code, name, message)

    def backend(self):
        if self._backend is None:
            self._backend = torch_backend()
        return self._backend

    # -- the signature key --

    def signature_key(self, inputs, codes=None):
        """The cache key of these inputs (see Note [Python fast path]); raises
        a FusionError for inputs that cannot be keyed (wrong count, a
        non-tensor where a tensor belongs)."""
        codes = self.key_codes if codes is None else codes
        if len(inputs) != len(codes):
            raise self._error(_WRONG_INPUT_COUNT, "WrongInputCount",
                              f"wrong number of inputs: expected {len(codes)}, "
                              f"got {len(inputs)}")
        try:
            return make_key(inputs, codes)
        except Exception:
            self._diagnose(inputs)
            raise

    def _diagnose(self, inputs):
        """Raises the FusionError that explains why inputs cannot be keyed."""
        for i, x in enumerate(inputs):
            if self.input_kinds[i] == ARG_TENSOR and not (
                    hasattr(x, "data_ptr") and hasattr(x, "stride")):
                raise self._error(_WRONG_INPUT_KIND, "WrongInputKind",
                                  f"{self._label(i)}: expected a tensor, got "
                                  f"{type(x).__name__}")

    def _dtype_code(self, dtype):
        code = self._dtype_codes.get(dtype)
        if code is None:
            code = _TORCH_DTYPES.get(_dtype_name(dtype))
            if code is not None:
                self._dtype_codes[dtype] = code
        return code

    # -- binding a new signature (slow path) --

    def _bind(self, inputs, key):
        n, m = self.num_inputs, self.num_outputs
        records = (ctypes.c_int64 * max(n * WORDS, 1))()
        doubles = (ctypes.c_double * max(n * WORDS, 1)).from_buffer(records)
        data = (ctypes.c_void_p * max(n, 1))()
        scalars = []
        device_index = None
        first = None
        for i, x in enumerate(inputs):
            base = i * WORDS
            if self.input_kinds[i] == ARG_TENSOR:
                dev = x.get_device()
                if dev < 0:
                    where = getattr(x, "device", "cpu")
                    raise self._error(_INVALID_ARGUMENT, "InvalidArgument",
                                      f"{self._label(i)}: expected a CUDA tensor, got a "
                                      f"tensor on {where}")
                if device_index is None:
                    device_index, first = dev, i
                elif dev != device_index:
                    raise self._error(_INVALID_ARGUMENT, "InvalidArgument",
                                      f"{self._label(i)}: on cuda:{dev}, but "
                                      f"{self._label(first)} is on cuda:{device_index}: "
                                      f"all tensors must be on one device")
                code = self._dtype_code(x.dtype)
                if code is None:
                    raise self._error(_WRONG_DTYPE, "WrongDType",
                                      f"{self._label(i)}: expected dtype "
                                      f"{_DTYPES[self.input_dtypes[i]]}, got unsupported "
                                      f"dtype {_dtype_name(x.dtype)}")
                shape, strides = tuple(x.shape), tuple(x.stride())
                self._check_layout(self._label(i), shape, strides)
                records[base + KIND] = ARG_TENSOR
                records[base + DTYPE] = code
                records[base + RANK] = len(shape)
                for d in range(min(len(shape), MAX_RANK)):
                    records[base + SIZES + d] = shape[d]
                    records[base + STRIDES + d] = strides[d]
                data[i] = x.data_ptr()
                continue
            value, code = x, self.input_dtypes[i]
            if type(x) is ScalarArg:
                value, code = x.value, scalar_dtype_code(x.dtype)
            if not _is_number(value):
                raise self._error(_WRONG_INPUT_KIND, "WrongInputKind",
                                  f"{self._label(i)}: expected a scalar "
                                  f"{_DTYPES[self.input_dtypes[i]]} (a Python number), "
                                  f"got {type(value).__name__}")
            is_float = code in _FLOAT_CODES
            if not is_float and isinstance(value, float):
                raise self._error(_WRONG_DTYPE, "WrongDType",
                                  f"{self._label(i)}: expected an integer scalar "
                                  f"{_DTYPES[code]}, got {value!r}")
            limits = None if is_float else _INT_RANGES.get(code)
            self._check_scalar(i, code, is_float, limits, value)
            records[base + KIND] = ARG_SCALAR
            records[base + DTYPE] = code
            scalars.append((i, base + VALUE, is_float, type(x) is ScalarArg, code, limits))
            self._write_scalar(records, doubles, base + VALUE, is_float, value)
        out_records = (ctypes.c_int64 * max(m * WORDS, 1))()
        _check(self._lib.fusion_executable_infer_packed(
            self._handle, data, records, n, out_records, m))
        sig = _Signature()
        sig.records, sig.doubles, sig.out_records = records, doubles, out_records
        sig.scalars = tuple(scalars)
        sig.out_key_records = {}
        backend = self.backend()
        if device_index is None:  # no tensor inputs: the current device
            device_index = backend.current_device()
        sig.device_index = device_index
        sig.device = backend.device(device_index)
        outputs = []
        for o in range(m):
            base = o * WORDS
            rank = out_records[base + RANK]
            shape = tuple(out_records[base + SIZES + d] for d in range(rank))
            strides = tuple(out_records[base + STRIDES + d] for d in range(rank))
            dtype = backend.dtype(out_records[base + DTYPE])
            contiguous = all(s == r or size <= 1 for s, r, size
                             in zip(strides, _row_major(shape), shape))
            outputs.append((out_records[base + ALIAS], shape, strides, dtype, contiguous,
                            out_records[base + OFFSET]))
        sig.outputs = tuple(outputs)
        if len(self._signatures) >= _MAX_SIGNATURES:
            self._signatures.clear()
            if self._fast is not None:
                self._fast.clear()
        self._signatures[key] = sig
        if self._fastpath is not None:
            if self._fast is None:
                self._fast = self.fast_cache(self.key_codes)
                if self._fast is None:
                    self._fastpath = None
            if self._fast is not None:
                self.fast_add(self._fast, inputs, sig)
        return sig

    # -- the C fast path (Note [C fast path]) --

    @property
    def fastpath(self):
        """True when calls go through fusion._fastpath first."""
        return self._fastpath is not None and isinstance(self._run_packed, ctypes._CFuncPtr)

    def fast_cache(self, codes):
        """A new, empty _fastpath.Cache keyed by `codes` (see make_key) that
        launches through this executable's library, or None when this
        executable has no C fast path (off, not built, or _run_packed
        replaced by a Python function, as tests do)."""
        if not self.fastpath:
            return None
        backend = self.backend()
        lib = self._lib
        return self._fastpath.Cache(codes, _dtype_codes(backend), backend, FusionError,
                                    _address(lib.fusion_last_error_message),
                                    _address(lib.fusion_error_code_name), _MAX_SIGNATURES)

    def fast_add(self, cache, inputs, sig, owner=None, tag=None):
        """Adds the bound signature `sig` of `inputs` to a _fastpath.Cache;
        False when the C code cannot key these inputs (they keep the ctypes
        path)."""
        return cache.add(inputs, self._handle.value, _address(self._run_packed),
                         bytes(sig.records), bytes(sig.out_records), sig.device,
                         sig.device_index, sig.outputs, owner, tag)

    def fastpath_stats(self):
        """The C cache's {'entries', 'hits', 'misses'}, or None before the
        first bind or without the C fast path."""
        return None if self._fast is None else self._fast.stats()

    # Note [Scalar ranges]: ctypes writes an int into a c_int64 word modulo
    # 2^64 without a check, so a value outside int64 would run wrapped
    # (2^64 as 0) and a size of 2^63 would read as negative; a scalar
    # outside its dtype's narrower range (an i32 of 2^40) would be cut
    # where it is converted. Every value is checked before it is written:
    # scalars against their dtype, sizes against [0, 2^63-1], strides
    # against int64, when a signature is bound, and the scalars again per
    # call, since their values are not in the key. The C fast path
    # (lib/Python/fastpath.c) reads ints with PyLong_AsLongLongAndOverflow:
    # a scalar, size or stride outside int64 is not keyed there and comes
    # here; it does not check the narrower integer dtypes (fusion-translate
    # does not compile i32, i16, i8 or i1 scalar inputs yet).
    def _range_error(self, what, kind, limits):
        return self._error(_INVALID_ARGUMENT, "InvalidArgument",
                           f"{what}: expected a {kind} in [{limits[0]}, {limits[1]}]")

    def _check_scalar(self, i, code, is_float, limits, value):
        if is_float:
            try:
                float(value)
            except OverflowError:
                raise self._error(_INVALID_ARGUMENT, "InvalidArgument",
                                  f"{self._label(i)}: value {value} is out of range for "
                                  f"{_DTYPES[code]}: it does not fit a double") from None
        elif limits is not None and not limits[0] <= int(value) <= limits[1]:
            raise self._range_error(f"{self._label(i)}: value {int(value)} is out of "
                                    f"range for {_DTYPES[code]}", "value", limits)

    def _check_layout(self, what, shape, strides):
        for d, size in enumerate(shape):
            if not 0 <= size <= INT64_MAX:
                raise self._range_error(f"{what}: dim {d} size {size} is out of range",
                                        "size", (0, INT64_MAX))
        for d, stride in enumerate(strides):
            if not INT64_MIN <= stride <= INT64_MAX:
                raise self._range_error(f"{what}: dim {d} stride {stride} is out of range",
                                        "stride", (INT64_MIN, INT64_MAX))

    def scalars_fit(self, sig, inputs):
        """Whether the scalar inputs of a call with signature `sig` are in
        their dtypes' ranges (Note [Scalar ranges])."""
        try:
            for i, word, is_float, wrapped, code, limits in sig.scalars:
                x = inputs[i].value if wrapped else inputs[i]
                if is_float:
                    float(x)
                elif limits is not None and not limits[0] <= int(x) <= limits[1]:
                    return False
        except OverflowError:
            return False
        return True

    @staticmethod
    def _write_scalar(records, doubles, word, is_float, value):
        if is_float:
            doubles[word] = float(value)
        else:
            records[word] = int(value)

    def signature(self, inputs, key=None):
        """The _Signature of these inputs, bound on first use."""
        if key is None:
            key = self.signature_key(inputs)
        sig = self._signatures.get(key)
        if sig is None:
            sig = self._bind(inputs, key)
        return sig

    # -- calls --

    def allocate(self, sig, inputs):
        """Output tensors for a call with signature `sig`: views of inputs
        where the module says so, torch.empty otherwise."""
        backend = self._backend
        outs = []
        for alias, shape, strides, dtype, contiguous, offset in sig.outputs:
            if alias >= 0:
                # A view; one that starts inside its input (a slice) moves
                # the input's storage offset by its own.
                src = inputs[alias]
                outs.append(src.as_strided(shape, strides) if offset == 0 else
                            src.as_strided(shape, strides, src.storage_offset() + offset))
            elif contiguous:
                outs.append(backend.empty(shape, dtype=dtype, device=sig.device))
            else:
                outs.append(backend.empty_strided(shape, strides, dtype=dtype,
                                                  device=sig.device))
        return outs

    def launch(self, sig, inputs, outs, stream=None, out_records=None,
               provided=False):
        """Runs with signature `sig` (from signature()) into the tensors `outs`
        and returns them; one C call. Outputs that are views of inputs are
        passed as null unless `provided` (then every output's pointer is
        passed, and `out_records` describes the outputs)."""
        backend = self._backend
        index = sig.device_index
        if backend.current_device() != index:
            with backend.device_guard(index):
                return self.launch(sig, inputs, outs, stream, out_records, provided)
        if stream is None:
            stream = backend.raw_stream(index)
        with self._lock:
            data = self._in_data
            for i in self._tensor_slots:
                data[i] = inputs[i].data_ptr()
            if sig.scalars:
                records, doubles = sig.records, sig.doubles
                for i, word, is_float, wrapped, code, limits in sig.scalars:
                    x = inputs[i].value if wrapped else inputs[i]
                    if is_float:
                        try:
                            doubles[word] = float(x)
                        except OverflowError:
                            self._check_scalar(i, code, is_float, limits, x)  # raises
                    else:
                        x = int(x)
                        if limits is not None and not limits[0] <= x <= limits[1]:
                            self._check_scalar(i, code, is_float, limits, x)  # raises
                        records[word] = x
            odata = self._out_data
            specs = sig.outputs
            for o, t in enumerate(outs):
                odata[o] = t.data_ptr() if provided or specs[o][0] < 0 else None
            code = self._run_packed(self._handle, data, sig.records, self.num_inputs,
                                    odata, sig.out_records if out_records is None
                                    else out_records, self.num_outputs, stream)
        if code != 0:
            _check(code)
        return outs

    def call(self, inputs, stream=None):
        """Runs on these inputs with outputs allocated by torch; returns the
        list of outputs. Uses torch's current stream unless one is given."""
        fast = self._fast
        if fast is not None:
            outs = fast.call(inputs, None, stream, None)
            if outs is not None:
                return outs
        key = self.signature_key(inputs)
        sig = self._signatures.get(key)
        if sig is None:
            self.backend()
            sig = self._bind(inputs, key)
        return self.launch(sig, inputs, self.allocate(sig, inputs), stream)

    def __call__(self, *inputs):
        outputs = self.call(inputs)
        return outputs[0] if len(outputs) == 1 else tuple(outputs)

    def run(self, inputs, outputs, stream=None):
        """Runs on the given torch tensors; `outputs` are preallocated tensors
        written in place (checked against the plan: dtype, shape, strides).
        Uses torch's current stream unless one is given."""
        fast = self._fast
        if fast is not None and fast.call(inputs, outputs, stream, None) is not None:
            return outputs
        self.backend()
        sig = self.signature(inputs)
        if len(outputs) != self.num_outputs:
            raise self._error(_WRONG_OUTPUT, "WrongOutput",
                              f"wrong number of outputs: expected {self.num_outputs}, "
                              f"got {len(outputs)}")
        okey = tuple((t.dtype, t.shape, t.stride()) for t in outputs)
        records = sig.out_key_records.get(okey)
        if records is None:
            records = (ctypes.c_int64 * max(self.num_outputs * WORDS, 1))()
            for o, t in enumerate(outputs):
                code = self._dtype_code(t.dtype)
                shape, strides = tuple(t.shape), tuple(t.stride())
                self._check_layout(f"output {o}", shape, strides)
                records[o * WORDS + DTYPE] = -1 if code is None else code
                records[o * WORDS + RANK] = len(shape)
                for d in range(min(len(shape), MAX_RANK)):
                    records[o * WORDS + SIZES + d] = shape[d]
                    records[o * WORDS + STRIDES + d] = strides[d]
            if len(sig.out_key_records) >= 64:
                sig.out_key_records.clear()
            sig.out_key_records[okey] = records
        self.launch(sig, inputs, outputs, stream, records, provided=True)
        return outputs

    def empty_outputs(self, inputs):
        """Allocates the outputs for these inputs with torch (views of inputs
        for outputs that are views)."""
        self.backend()
        sig = self.signature(inputs)
        return self.allocate(sig, inputs)

    def plan(self, inputs):
        """The launches these inputs get (nothing runs, no GPU needed): per
        launch a dict of kernel, variant, grid, block, cluster,
        dynamic_smem, cooperative and skipped."""
        sig = self.signature(inputs)
        n = self.num_inputs
        args = (_Arg * max(n, 1))()
        keep = []
        for i in range(n):
            base, a = i * WORDS, args[i]
            a.kind = sig.records[base + KIND]
            a.dtype = sig.records[base + DTYPE]
            if a.kind == ARG_TENSOR:
                rank = sig.records[base + RANK]
                sizes = (ctypes.c_int64 * max(rank, 1))(
                    *[sig.records[base + SIZES + d] for d in range(rank)])
                strides = (ctypes.c_int64 * max(rank, 1))(
                    *[sig.records[base + STRIDES + d] for d in range(rank)])
                keep += [sizes, strides]
                a.rank, a.sizes, a.strides = rank, sizes, strides
                a.data = inputs[i].data_ptr() or 16  # not read; must not be NULL
            elif a.dtype in _FLOAT_CODES:
                a.float_value = sig.doubles[base + VALUE]
            else:
                a.int_value = sig.records[base + VALUE]
        plan = ctypes.c_void_p()
        _check(self._lib.fusion_executable_plan(self._handle, args, n, ctypes.byref(plan)))
        launches = []
        try:
            info, kernel = _LaunchInfo(), _KernelInfo()
            for k in range(self._lib.fusion_plan_num_launches(plan)):
                _check(self._lib.fusion_plan_launch(plan, k, ctypes.byref(info)))
                _check(self._lib.fusion_executable_kernel(self._handle, info.kernel,
                                                          ctypes.byref(kernel)))
                launches.append({
                    "kernel": (kernel.name or b"").decode(), "variant": info.variant,
                    "grid": tuple(info.grid), "block": tuple(info.block),
                    "cluster": tuple(info.cluster) if info.has_cluster else None,
                    "dynamic_smem": info.dynamic_smem,
                    "cooperative": bool(info.cooperative), "skipped": bool(info.skipped)})
        finally:
            self._lib.fusion_plan_destroy(plan)
        return launches

    def cache_stats(self):
        """The runtime's plan cache ({'hits', 'misses', 'entries'}) and the
        number of signatures bound in Python ('signatures')."""
        stats = (ctypes.c_uint64 * 3)()
        _check(self._lib.fusion_executable_cache_stats(self._handle, stats))
        return {"hits": stats[0], "misses": stats[1], "entries": stats[2],
                "signatures": len(self._signatures)}

    def set_launch_graphs(self, enabled):
        """Whether calls whose plan has two or more kernel launches run them
        as one CUDA graph launch (on unless FUSION_LAUNCH_GRAPHS=0 was set
        when the module was loaded). Turning it off destroys the graphs."""
        _check(self._lib.fusion_executable_set_launch_graphs(
            self._handle, 1 if enabled else 0))

    def graph_stats(self):
        """Launch graphs since load: {'built', 'launches', 'node_updates',
        'direct', 'entries'} (see docs/runtime.md, "Launch graphs")."""
        stats = (ctypes.c_uint64 * 5)()
        _check(self._lib.fusion_executable_graph_stats(self._handle, stats))
        return {"built": stats[0], "launches": stats[1],
                "node_updates": stats[2], "direct": stats[3],
                "entries": stats[4]}
