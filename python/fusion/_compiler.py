"""The compiler and the reference interpreter, in this process: a ctypes
binding of libfusion_compiler.so (include/fusion-c/Fusion.h and
Interpreter.h). No subprocess, no temporary files.

The library is found through $FUSION_COMPILER_LIBRARY, next to this package
(a wheel), or in the repository's build (fusion/_paths.py). Every call gets a
fresh MLIR context, so nothing that a compile creates (the PTX strings of
its kernels among them) outlives it, and calls in several threads do not
share one.

Diagnostics come back as data and are raised as FusionCompileError (or
FusionExecutionError for the interpreter) whose message lists each with its
location; a location in a file that exists (a Python file: the frontend
records where each op was written, Note [Source locations] in frontend.py)
is followed by that source line.
"""

import collections
import ctypes
import linecache
import os
import re
import threading

from ._paths import library_candidates
from .errors import FusionCompileError, FusionExecutionError

LIBRARY_NAME = "libfusion_compiler.so"

OUTPUT_MODULE, OUTPUT_PTX, OUTPUT_LOWERED_IR, OUTPUT_STAGES, OUTPUT_VERIFIED_IR = 0, 1, 2, 3, 4
_SEVERITY = {0: "error", 1: "warning", 2: "note", 3: "remark"}

Diagnostic = collections.namedtuple("Diagnostic", "severity message file line column")


class _StringRef(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("length", ctypes.c_size_t)]

    def text(self):
        if not self.length:
            return ""
        return ctypes.string_at(self.data, self.length).decode("utf-8", "replace")


class _Context(ctypes.Structure):
    _fields_ = [("ptr", ctypes.c_void_p)]


class _Type(ctypes.Structure):
    _fields_ = [("ptr", ctypes.c_void_p)]


_PRINT_CALLBACK = ctypes.CFUNCTYPE(None, _StringRef, ctypes.c_void_p)


class _Options(ctypes.Structure):
    _fields_ = [("chip", _StringRef), ("smCount", ctypes.c_int64),
                ("fusionName", _StringRef), ("emitCubin", ctypes.c_bool),
                ("pipelineOptions", _StringRef), ("useCache", ctypes.c_bool)]


class _Result(ctypes.Structure):
    _fields_ = [("ptr", ctypes.c_void_p)]


class _Diagnostic(ctypes.Structure):
    _fields_ = [("severity", ctypes.c_int), ("message", _StringRef),
                ("file", _StringRef), ("line", ctypes.c_uint),
                ("column", ctypes.c_uint)]


class _HostValue(ctypes.Structure):
    _fields_ = [("kind", ctypes.c_int), ("dtype", _StringRef),
                ("rank", ctypes.c_ssize_t), ("sizes", ctypes.POINTER(ctypes.c_int64)),
                ("data", ctypes.c_void_p), ("floatValue", ctypes.c_double),
                ("intValue", ctypes.c_int64)]


class _TensorView(ctypes.Structure):
    _fields_ = [("dtype", _StringRef), ("rank", ctypes.c_ssize_t),
                ("sizes", ctypes.POINTER(ctypes.c_int64)), ("data", ctypes.c_void_p),
                ("sizeInBytes", ctypes.c_ssize_t)]


HOST_TENSOR, HOST_SCALAR, HOST_INDEX = 0, 1, 2

_lib = None
_lib_lock = threading.Lock()


# fusion_kernel_build_result / FusionKernelBuildResult.
_BUILD_RESULT = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_int, ctypes.c_void_p,
                                 ctypes.c_size_t)


def build_deferred_kernel(module, kernel):
    """Note [Deferred kernels]: the module file `module` (bytes) with its
    deferred kernel `kernel` built, as the runtime's kernel builder makes it
    when a launch first needs the kernel (and stored in the compile cache).
    Raises FusionCompileError with the reason."""
    lib = _load()
    outcome = {}

    def receive(_, ok, data, size):
        outcome["ok"] = bool(ok)
        outcome["bytes"] = ctypes.string_at(data, size) if size else b""

    callback = _BUILD_RESULT(receive)
    data = bytes(module)
    lib.fusionBuildDeferredKernel(None, data, len(data), kernel.encode(), None, callback)
    if not outcome.get("ok"):
        raise FusionCompileError(
            f"cannot build kernel {kernel}: "
            + outcome.get("bytes", b"no result").decode(errors="replace"))
    return outcome["bytes"]


def builder_address():
    """The address of the compiler's kernel builder (fusionBuildDeferredKernel),
    for the runtime's fusion_set_kernel_builder."""
    return ctypes.cast(_load().fusionBuildDeferredKernel, ctypes.c_void_p).value


def library_path():
    """The path libfusion_compiler.so was loaded from (loads it)."""
    return _load()._fusion_path


def _load():
    global _lib
    if _lib is not None:
        return _lib
    with _lib_lock:
        if _lib is not None:
            return _lib
        errors = []
        for path in library_candidates(LIBRARY_NAME, "FUSION_COMPILER_LIBRARY"):
            if not os.path.isfile(path):
                if path == os.environ.get("FUSION_COMPILER_LIBRARY"):
                    errors.append(f"{path}: no such file")
                continue
            try:
                lib = ctypes.CDLL(path, mode=ctypes.RTLD_LOCAL)
            except OSError as e:
                errors.append(f"{path}: {e}")
                continue
            _declare(lib)
            lib._fusion_path = path
            _lib = lib
            return lib
        looked = ", ".join(library_candidates(LIBRARY_NAME, "FUSION_COMPILER_LIBRARY"))
        raise FusionCompileError(
            f"cannot load the compiler ({LIBRARY_NAME}): looked in {looked}"
            + (f" ({'; '.join(errors)})" if errors else "")
            + "; install the package (pip install .) or build the FusionCompilerShared "
            "target, or set FUSION_COMPILER_LIBRARY to the file")


def _declare(lib):
    sr = _StringRef
    lib.fusionCompilerVersion.restype = ctypes.c_char_p
    lib.fusionCompilerVersion.argtypes = []
    lib.mlirContextCreate.restype = _Context
    lib.mlirContextCreate.argtypes = []
    lib.mlirContextDestroy.restype = None
    lib.mlirContextDestroy.argtypes = [_Context]
    lib.fusionCompileOptionsInit.restype = None
    lib.fusionCompileOptionsInit.argtypes = [ctypes.POINTER(_Options)]
    lib.fusionCompileSourceTo.restype = _Result
    lib.fusionCompileSourceTo.argtypes = [_Context, sr, sr, ctypes.POINTER(_Options),
                                          ctypes.c_int]
    for prefix in ("fusionCompilation", "fusionInterpretation"):
        getattr(lib, prefix + "Succeeded").restype = ctypes.c_bool
        getattr(lib, prefix + "Succeeded").argtypes = [_Result]
        getattr(lib, prefix + "GetNumDiagnostics").restype = ctypes.c_ssize_t
        getattr(lib, prefix + "GetNumDiagnostics").argtypes = [_Result]
        getattr(lib, prefix + "GetDiagnostic").restype = _Diagnostic
        getattr(lib, prefix + "GetDiagnostic").argtypes = [_Result, ctypes.c_ssize_t]
        getattr(lib, prefix + "Destroy").restype = None
        getattr(lib, prefix + "Destroy").argtypes = [_Result]
    lib.fusionBuildDeferredKernel.restype = ctypes.c_int
    lib.fusionBuildDeferredKernel.argtypes = [
        ctypes.c_void_p, ctypes.c_char_p, ctypes.c_size_t, ctypes.c_char_p,
        ctypes.c_void_p, _BUILD_RESULT]
    lib.fusionCompilationCacheHit.restype = ctypes.c_bool
    lib.fusionCompilationCacheHit.argtypes = [_Result]
    lib.fusionCompilationGetBytes.restype = sr
    lib.fusionCompilationGetBytes.argtypes = [_Result]
    lib.fusionInterpretSource.restype = _Result
    lib.fusionInterpretSource.argtypes = [_Context, sr, sr, sr, ctypes.POINTER(_HostValue),
                                          ctypes.c_ssize_t, ctypes.c_bool]
    lib.mlirTypeParseGet.restype = _Type
    lib.mlirTypeParseGet.argtypes = [_Context, sr]
    lib.mlirTypePrint.restype = None
    lib.mlirTypePrint.argtypes = [_Type, _PRINT_CALLBACK, ctypes.c_void_p]
    lib.fusionPromoteElementTypes.restype = _Type
    lib.fusionPromoteElementTypes.argtypes = [ctypes.POINTER(_Type),
                                              ctypes.POINTER(ctypes.c_int32), ctypes.c_ssize_t]
    lib.fusionInterpretationGetNumOutputs.restype = ctypes.c_ssize_t
    lib.fusionInterpretationGetNumOutputs.argtypes = [_Result]
    lib.fusionInterpretationGetOutput.restype = _TensorView
    lib.fusionInterpretationGetOutput.argtypes = [_Result, ctypes.c_ssize_t]


def version():
    """The compiler library's version string."""
    return _load().fusionCompilerVersion().decode()


# Promotion (torch.result_type) is the compiler's (Promotion.h): one
# implementation for C++ frontends and this one. Its types live in one
# context kept for the process (types are uniqued and few); results are
# memoized per operand list.
_types_ctx = None
_promotions = {}


def promote_names(operands):
    """The common element type of (dtype name, role) pairs, as a name
    ("f32"), or None when there is none."""
    key = tuple(operands)
    hit = _promotions.get(key, False)
    if hit is not False:
        return hit
    global _types_ctx
    lib = _load()
    with _lib_lock:
        if _types_ctx is None:
            _types_ctx = lib.mlirContextCreate()
        keep = []
        types = (_Type * max(1, len(key)))()
        roles = (ctypes.c_int32 * max(1, len(key)))()
        for i, (name, role) in enumerate(key):
            types[i] = lib.mlirTypeParseGet(_types_ctx, _ref(name, keep))
            roles[i] = role
        result = lib.fusionPromoteElementTypes(types, roles, len(key))
        name = None
        if result.ptr:
            parts = []
            callback = _PRINT_CALLBACK(lambda ref, _: parts.append(ref.text()))
            lib.mlirTypePrint(result, callback, None)
            name = "".join(parts)
    _promotions[key] = name
    return name


def _ref(data, keep):
    """A _StringRef over `data` (str or bytes); `keep` holds the buffer."""
    if isinstance(data, str):
        data = data.encode()
    buf = ctypes.create_string_buffer(data, len(data))
    keep.append(buf)
    return _StringRef(ctypes.cast(buf, ctypes.c_void_p), len(data))


def _diagnostics(lib, prefix, result):
    get = getattr(lib, prefix + "GetDiagnostic")
    out = []
    for i in range(getattr(lib, prefix + "GetNumDiagnostics")(result)):
        d = get(result, i)
        out.append(Diagnostic(_SEVERITY.get(d.severity, "error"), d.message.text(),
                              d.file.text(), d.line, d.column))
    return out


# "'fusion.add' at model.py:15:19: ...": the interpreter's messages name the
# op's location themselves.
_MESSAGE_LOCATION = re.compile(r" at (\S+):(\d+):(\d+):")


def _quote(lines, file, line, column):
    source = linecache.getline(file, line).rstrip("\n")
    if source:
        lines.append(f"    {source}")
        if column:
            lines.append("    " + " " * (column - 1) + "^")


def format_diagnostics(diagnostics):
    """The diagnostics as compiler output, each Python source line quoted."""
    lines = []
    for d in diagnostics:
        # MLIR's printout of the op at fault: IR the user did not write.
        if d.severity == "note" and d.message.startswith("see current operation"):
            continue
        where = f"{d.file}:{d.line}:{d.column}: " if d.file and d.line else \
            (f"{d.file}: " if d.file else "")
        lines.append(f"{where}{d.severity}: {d.message}")
        if d.file and d.line:
            _quote(lines, d.file, d.line, d.column)
        else:
            m = _MESSAGE_LOCATION.search(d.message)
            if m:
                _quote(lines, m.group(1), int(m.group(2)), int(m.group(3)))
    return "\n".join(lines)


class _Call:
    """A fresh context, the buffers the call reads, and the result's
    destruction."""

    def __init__(self, prefix):
        self.lib = _load()
        self.prefix = prefix
        self.keep = []
        self.ctx = None
        self.result = None

    def __enter__(self):
        self.ctx = self.lib.mlirContextCreate()
        return self

    def __exit__(self, *exc):
        if self.result is not None:
            getattr(self.lib, self.prefix + "Destroy")(self.result)
        self.lib.mlirContextDestroy(self.ctx)
        return False


def compile(source, source_name="fusion.mlir", kind=OUTPUT_MODULE, chip=None,
            sm_count=None, pipeline_options="", use_cache=True, emit_cubin=True,
            fusion_name="", diagnostics=None):
    """Compiles the fusion of `source` (textual IR). Returns (bytes,
    cache_hit): the module file, or the text `kind` names (as bytes).
    Raises FusionCompileError with the diagnostics; a list given as
    `diagnostics` receives those of a compile that succeeded (remarks,
    warnings)."""
    with _Call("fusionCompilation") as call:
        lib = call.lib
        options = _Options()
        lib.fusionCompileOptionsInit(ctypes.byref(options))
        if chip:
            options.chip = _ref(chip, call.keep)
        if sm_count is not None:
            options.smCount = int(sm_count)
        options.fusionName = _ref(fusion_name, call.keep)
        options.pipelineOptions = _ref(pipeline_options, call.keep)
        options.useCache = bool(use_cache)
        options.emitCubin = bool(emit_cubin)
        call.result = lib.fusionCompileSourceTo(
            call.ctx, _ref(source, call.keep), _ref(source_name, call.keep),
            ctypes.byref(options), kind)
        if not lib.fusionCompilationSucceeded(call.result):
            diags = _diagnostics(lib, "fusionCompilation", call.result)
            err = FusionCompileError(
                "compile failed:\n" + (format_diagnostics(diags) or "(no diagnostic)"))
            err.diagnostics = diags
            raise err
        if diagnostics is not None:
            diagnostics.extend(_diagnostics(lib, "fusionCompilation", call.result))
        ref = lib.fusionCompilationGetBytes(call.result)
        data = ctypes.string_at(ref.data, ref.length) if ref.length else b""
        return data, bool(lib.fusionCompilationCacheHit(call.result))


def interpret(source, inputs, source_name="fusion.mlir", fusion_name="",
              decompose=False):
    """Runs the fusion of `source` with the reference interpreter.

    `inputs`: per input, ("tensor", dtype, shape, contiguous bytes-like),
    ("scalar", dtype, value) or ("index", value). Returns per output
    (dtype, shape, bytes). Raises FusionExecutionError with the
    diagnostics."""
    with _Call("fusionInterpretation") as call:
        lib = call.lib
        values = (_HostValue * max(1, len(inputs)))()
        for v, spec in zip(values, inputs):
            if spec[0] == "tensor":
                _, dtype, shape, data = spec
                v.kind = HOST_TENSOR
                v.dtype = _ref(dtype, call.keep)
                sizes = (ctypes.c_int64 * max(1, len(shape)))(*shape)
                call.keep.append(sizes)
                v.rank = len(shape)
                v.sizes = sizes
                buf = (ctypes.c_char * len(data)).from_buffer_copy(data) if len(data) else None
                call.keep.append(buf)
                v.data = ctypes.cast(buf, ctypes.c_void_p) if buf is not None else None
            elif spec[0] == "scalar":
                _, dtype, value = spec
                v.kind = HOST_SCALAR
                v.dtype = _ref(dtype, call.keep)
                if isinstance(value, float):
                    v.floatValue = value
                else:
                    v.intValue = int(value)
                    v.floatValue = float(value)
            else:
                v.kind = HOST_INDEX
                v.intValue = int(spec[1])
        call.result = lib.fusionInterpretSource(
            call.ctx, _ref(source, call.keep), _ref(source_name, call.keep),
            _ref(fusion_name, call.keep), values, len(inputs), bool(decompose))
        if not lib.fusionInterpretationSucceeded(call.result):
            diags = _diagnostics(lib, "fusionInterpretation", call.result)
            err = FusionExecutionError(
                "reference interpreter failed:\n"
                + (format_diagnostics(diags) or "(no diagnostic)"))
            err.diagnostics = diags
            raise err
        outputs = []
        for i in range(lib.fusionInterpretationGetNumOutputs(call.result)):
            view = lib.fusionInterpretationGetOutput(call.result, i)
            shape = tuple(view.sizes[d] for d in range(view.rank))
            data = ctypes.string_at(view.data, view.sizeInBytes) if view.sizeInBytes else b""
            outputs.append((view.dtype.text(), shape, data))
        return outputs
