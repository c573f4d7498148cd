"""Running a FusionDefinition: on the GPU (fusion-translate + the runtime) for
torch CUDA tensors, on the CPU (the reference interpreter, fusion-interpret)
for numpy arrays and CPU torch tensors."""

import os
import re
import shutil
import sys
import threading
import weakref

from .dtypes import DataType, INT64_MAX, INT64_MIN, int_range, to_dtype
from .errors import (FusionCompileError, FusionError, FusionExecutionError,
                     FusionInputError)

_PKG_DIR = os.path.dirname(os.path.abspath(__file__))
_REPO_DIR = os.path.dirname(os.path.dirname(_PKG_DIR))

# Schedule keys of execute(schedule=...): the pipeline option each sets
# (chip and sm_count are compile options of their own).
SCHEDULE_KEYS = {"unroll": "unroll", "blocks_per_sm": "blocks-per-sm",
                 "inner_items": "inner-items", "inner_block": "inner-block",
                 "inner_stage": "inner-stage", "inner_cluster": "inner-cluster",
                 "inner_long_cluster": "inner-long-cluster",
                 "inner_columns": "inner-columns",
                 "inner_min_blocks": "inner-min-blocks",
                 "compute_bound_cost": "compute-bound-cost",
                 "transpose_tile": "transpose-tile", "chip": "chip",
                 "sm_count": "sm-count"}
DUMP_KINDS = ("ir", "decisions", "stages", "plan", "ptx", "launch")


# --- tools -------------------------------------------------------------------------


def tool_candidates(name):
    dirs = []
    env = os.environ.get("FUSION_TOOLS_DIR")
    if env:
        dirs.append(env)
    dirs += [os.path.join(_PKG_DIR, "bin"), _PKG_DIR,
             os.path.join(os.path.dirname(_PKG_DIR), "bin")]
    build = os.environ.get("FUSION_BUILD_DIR", "build")
    dirs.append(os.path.join(_REPO_DIR, build, "bin"))
    return [os.path.join(d, name) for d in dirs]


def find_tool(name, required=True):
    """The path of a Fusion tool: $FUSION_TOOLS_DIR, next to the package,
    build/bin of the repository, then PATH."""
    for path in tool_candidates(name):
        if os.path.isfile(path) and os.access(path, os.X_OK):
            return path
    found = shutil.which(name)
    if found:
        return found
    if not required:
        return None
    raise FusionCompileError(
        f"cannot find the tool {name}: looked in {', '.join(tool_candidates(name))} "
        f"and PATH; set FUSION_TOOLS_DIR to the directory holding it")


# --- options -------------------------------------------------------------------------


def parse_dump(dump):
    if dump is None:
        dump = os.environ.get("FUSION_DUMP", "")
    if dump is True:
        dump = "ir"
    if not dump:
        return set()
    if isinstance(dump, str):
        kinds = {k.strip() for k in dump.split(",") if k.strip()}
    else:
        kinds = set(dump)
    if "all" in kinds:
        kinds = set(DUMP_KINDS)
    bad = kinds - set(DUMP_KINDS)
    if bad:
        raise FusionError(f"unknown dump kind(s) {sorted(bad)}; use {', '.join(DUMP_KINDS)}")
    return kinds


def schedule_options(schedule):
    """The compile options of a schedule dict: {"chip", "sm_count",
    "pipeline"} (pipeline: the fusion-to-ptx pipeline's textual options,
    e.g. "blocks-per-sm=4 unroll=2"). Keys outside SCHEDULE_KEYS and values
    of the wrong type are errors."""
    options = {"chip": None, "sm_count": None, "pipeline": ""}
    if not schedule:
        return options
    pipeline = []
    for key in sorted(schedule):
        if key not in SCHEDULE_KEYS:
            raise FusionError(
                f"unknown schedule key {key!r}; known: {', '.join(sorted(SCHEDULE_KEYS))}")
        value = schedule[key]
        if key == "chip":
            if not isinstance(value, str) or not re.match(r"^sm_[0-9]+[a-z]?$", value):
                raise FusionError(f"schedule chip must be like 'sm_90a', got {value!r}")
            options["chip"] = value
            continue
        if not isinstance(value, int) or isinstance(value, bool) or value < 0:
            raise FusionError(f"schedule {key} must be an int >= 0, got {value!r}")
        if key == "sm_count":
            options["sm_count"] = value
        else:
            pipeline.append(f"{SCHEDULE_KEYS[key]}={value}")
    options["pipeline"] = " ".join(pipeline)
    return options


def _source_name(fd):
    """What diagnostics about the IR text itself (not an op) point at."""
    return f"<fusion @{fd.name}>"


def _dump(fd, kinds, ir, options):
    """Writes the dumps `kinds` asks for of `ir` (the IR with locations):
    to stdout, or with $FUSION_DUMP_DIR as files <dir>/<fusion>.<kind>.txt."""
    from . import _compiler
    texts = []
    if "ir" in kinds:
        texts.append(("ir", fd.to_mlir()))
    if "decisions" in kinds:
        # The segmenter's and schedulers' remarks (pipeline option explain).
        remarks = []
        try:
            _compiler.compile(
                ir, _source_name(fd), kind=_compiler.OUTPUT_LOWERED_IR, chip=options["chip"],
                sm_count=options["sm_count"],
                pipeline_options=(options["pipeline"] + " explain=1").strip(),
                use_cache=False, emit_cubin=False, diagnostics=remarks)
            text = _compiler.format_diagnostics(
                [d for d in remarks if d.severity == "remark"]) + "\n"
        except FusionCompileError as e:
            text = f"(no decisions: {e})\n"
        texts.append(("decisions", text))
    for kind, output in (("stages", _compiler.OUTPUT_STAGES),
                         ("plan", _compiler.OUTPUT_LOWERED_IR),
                         ("ptx", _compiler.OUTPUT_PTX)):
        if kind not in kinds:
            continue
        try:
            data, _ = _compiler.compile(
                ir, _source_name(fd), kind=output,
                chip=options["chip"], sm_count=options["sm_count"],
                pipeline_options=options["pipeline"], use_cache=False)
            text = data.decode("utf-8", "replace")
        except FusionCompileError as e:
            text = f"(no {kind}: {e})\n"
        texts.append((kind, text))
    _write_dump(fd, texts)


def _write_dump(fd, texts):
    directory = os.environ.get("FUSION_DUMP_DIR")
    if directory:
        os.makedirs(directory, exist_ok=True)
        for kind, text in texts:
            with open(os.path.join(directory, f"{fd.name}.{kind}.txt"), "w") as f:
                f.write(text)
        return
    out = sys.stdout
    for kind, text in texts:
        label = "IR" if kind == "ir" else kind
        out.write(f"===== fusion {label} (@{fd.name}) =====\n{text}")
    out.flush()


# --- input checks -----------------------------------------------------------------


def _input_label(i, v):
    name = getattr(v, "input_name", None)
    return f"input {i} ({name})" if name else f"input {i}"


def _is_torch(x):
    return type(x).__module__.startswith("torch") and hasattr(x, "is_cuda")


def _is_numpy(x):
    return type(x).__module__.startswith("numpy") and hasattr(x, "dtype") and \
        hasattr(x, "shape") and not _is_scalar_number(x)


def _is_scalar_number(x):
    if isinstance(x, (bool, int, float)):
        return True
    return type(x).__module__ == "numpy" and type(x).__name__ != "ndarray" and \
        getattr(x, "shape", None) == ()


def _arg_dtype(x, expected):
    """The DataType of an array argument; raw-bit numpy arrays (uint16 for
    bf16/f16, uint8 for fp8) count as the expected type."""
    name = str(x.dtype).replace("torch.", "")
    if _is_numpy(x):
        if name == "uint16" and expected in (DataType.BFloat16, DataType.Float16):
            return expected
        if name == "uint8" and expected.is_fp8:
            return expected
    try:
        return to_dtype(name)
    except FusionError:
        return None


def _is_integral(x):
    """A Python int or bool, or a numpy integer or bool scalar."""
    if isinstance(x, (bool, int)):
        return True
    return not isinstance(x, float) and getattr(getattr(x, "dtype", None), "kind", None) in \
        ("b", "i", "u")


def _check_scalar_range(label, v, x):
    """Out-of-range values would wrap (integers) where they are written as
    the scalar's type; integers too large for a double cannot become a
    float scalar. Floats are rounded to their type (a finite value beyond an
    f32 or narrower range becomes +-inf, as numpy and torch.tensor do)."""
    limits = int_range(v.dtype)
    if limits is not None:
        value = int(x)
        if not limits[0] <= value <= limits[1]:
            raise FusionInputError(
                f"{label}: value {value} is out of range for {v.type}: expected a value "
                f"in [{limits[0]}, {limits[1]}]")
        return
    try:
        float(x)
    except OverflowError:
        raise FusionInputError(
            f"{label}: value {x} is out of range for {v.type}: it does not fit a "
            f"double (largest finite value {sys.float_info.max!r})") from None


def _check_layout_range(label, x, shape):
    """Sizes in [0, 2^63-1] and strides in int64: the runtime and the
    interpreter read them as int64, so larger values would wrap."""
    for d, size in enumerate(shape):
        if not 0 <= size <= INT64_MAX:
            raise FusionInputError(
                f"{label}: dim {d} size {size} is out of range: expected a size in "
                f"[0, {INT64_MAX}] (shape {shape})")
    stride = getattr(x, "stride", None)
    if not callable(stride):  # numpy: byte strides, always in range
        return
    for d, st in enumerate(stride()):
        if not INT64_MIN <= st <= INT64_MAX:
            raise FusionInputError(
                f"{label}: dim {d} stride {st} is out of range: expected a stride in "
                f"[{INT64_MIN}, {INT64_MAX}]")


def check_inputs(fd, inputs):
    """Validates inputs against the definition; returns 'gpu' or 'cpu'."""
    if len(inputs) != len(fd.inputs):
        raise FusionInputError(
            f"fusion @{fd.name} expects {len(fd.inputs)} inputs, got {len(inputs)}")
    devices = set()
    for i, (v, x) in enumerate(zip(fd.inputs, inputs)):
        label = _input_label(i, v)
        if v.__class__.__name__ == "Scalar":
            if not _is_scalar_number(x):
                raise FusionInputError(
                    f"{label}: expected a scalar {v.type} (a Python number), "
                    f"got {type(x).__name__}")
            if v.dtype.is_bool and not isinstance(x, bool) and x not in (0, 1):
                raise FusionInputError(f"{label}: expected a bool, got {x!r}")
            if (v.dtype.is_int or v.dtype.is_index) and not _is_integral(x):
                raise FusionInputError(f"{label}: expected an integer {v.type}, got {x!r}")
            _check_scalar_range(label, v, x)
            continue
        if _is_torch(x):
            dev = x.device
            if dev.type not in ("cuda", "cpu"):
                raise FusionInputError(
                    f"{label}: tensor on device {dev}; use a CUDA tensor (GPU) or a CPU "
                    f"tensor / numpy array (reference interpreter)")
            devices.add(str(dev))
        elif _is_numpy(x):
            devices.add("cpu")
        else:
            raise FusionInputError(
                f"{label}: expected a tensor {v.type} (torch tensor or numpy array), "
                f"got {type(x).__name__}")
        dt = _arg_dtype(x, v.dtype)
        if dt is not v.dtype:
            raise FusionInputError(
                f"{label}: expected dtype {v.dtype.mlir}, got {str(x.dtype).replace('torch.', '')}")
        shape = list(x.shape)
        if len(shape) != len(v.shape):
            raise FusionInputError(
                f"{label}: expected rank {len(v.shape)} ({v.type}), got rank {len(shape)} "
                f"(shape {shape})")
        _check_layout_range(label, x, shape)
        for d, (want, got) in enumerate(zip(v.shape, shape)):
            if want >= 0 and want != got:
                raise FusionInputError(
                    f"{label}: dim {d} expected size {want}, got {got} (shape {shape} for {v.type})")
    cuda = {d for d in devices if d.startswith("cuda")}
    if cuda and len(devices) > 1:
        raise FusionInputError(
            f"inputs are on several devices ({', '.join(sorted(devices))}): all tensors "
            f"must be on one CUDA device (GPU) or all on the CPU (interpreter)")
    if getattr(fd, "_shape_checks", None):  # Note [Shape checks] in frontend.py
        reads = fd._check_shapes(inputs)
        if reads:
            fd._shape_reads = frozenset(reads) | getattr(fd, "_shape_reads", frozenset())
    return "gpu" if cuda else "cpu"


# --- execute -----------------------------------------------------------------------


# FUSION_DUMP is read on every call; os.environ.get costs ~0.5 us, its
# underlying dict ~0.03 us (kept in sync by os.environ's setters).
try:
    _ENVIRON_DATA = os.environ._data
    _DUMP_ENV_KEY = os.environ.encodekey("FUSION_DUMP")
except AttributeError:  # not CPython's os.environ
    _ENVIRON_DATA = None


def dump_requested():
    """Whether $FUSION_DUMP asks for stage dumps (read on every call)."""
    if _ENVIRON_DATA is not None:
        return bool(_ENVIRON_DATA.get(_DUMP_ENV_KEY))
    return bool(os.environ.get("FUSION_DUMP"))


class _FastEntry:
    __slots__ = ("exe", "sig", "info")

    def __init__(self, exe, sig, info):
        self.exe, self.sig, self.info = exe, sig, info


class _FastPath:
    """Per definition: the signature keys already checked, compiled and bound
    (see Note [Python fast path] in runtime.py), each with its Executable and
    bound signature. `codes` say what the key holds per input: 0 tensor
    (dtype, shape, strides, device), 1 scalar type, 2 scalar type and value
    (bool scalars, whose value check_inputs checks, integer scalars the
    launch plan reads, and those a shape check reads: Note [Shape checks]
    in frontend.py)."""

    MAX_ENTRIES = 1024

    def __init__(self, fd):
        self.codes = tuple(
            0 if v.__class__.__name__ != "Scalar" else (2 if v.dtype.is_bool else 1)
            for v in fd.inputs)
        self.entries = {}
        # The same signatures in a fusion._fastpath.Cache (Note [C fast path]
        # in runtime.py), or None: tried first, the dict above serves what
        # it does not handle.
        self.native = None


_fast_paths = weakref.WeakSet()


def _install_fast_entry(fd, inputs, exe, sig, info):
    fast = getattr(fd, "_fast_path", None)
    if fast is None:
        fast = fd._fast_path = _FastPath(fd)
        _fast_paths.add(fast)
    keyed = getattr(fd, "_shape_reads", ())
    codes = tuple(max(a, b, 2 if i in keyed else 0)
                  for i, (a, b) in enumerate(zip(fast.codes, exe.key_codes)))
    if codes != fast.codes:
        fast.codes = codes
        fast.entries.clear()
        _drop_native(fast)
    if len(fast.entries) >= _FastPath.MAX_ENTRIES:
        fast.entries.clear()
        _drop_native(fast)
    from .runtime import load_fastpath, make_key
    fast.entries[make_key(inputs, codes)] = _FastEntry(exe, sig, info)
    if load_fastpath() is None:  # $FUSION_NO_FASTPATH, or not built
        _drop_native(fast)
        return
    if fast.native is None:
        fast.native = exe.fast_cache(codes)
    if fast.native is not None and exe.fastpath:
        exe.fast_add(fast.native, inputs, sig, owner=exe, tag=info)
    _bind_execute(fd, fast)


# Note [C execute] (lib/Python/fastpath.c): once a definition has a C cache,
# its instance attribute `execute` is a builtin that calls the cache without
# a Python frame and falls back to FusionDefinition.execute for anything
# else. It is bound to one Cache: a dropped cache is cleared first
# (_drop_native), so a stale binding only misses and the fallback rebinds.
def _bind_execute(fd, fast):
    d = getattr(fd, "__dict__", None)
    if d is None:
        return
    native = fast.native if fast is not None else None
    cls_execute = getattr(type(fd), "execute", None)
    from .frontend import FusionDefinition
    make = None
    # Not for a subclass that overrides execute, nor where $FUSION_DUMP
    # cannot be read from C (not CPython's os.environ).
    if (native is not None and cls_execute is FusionDefinition.execute
            and _ENVIRON_DATA is not None):
        from .runtime import load_fastpath
        make = getattr(load_fastpath(), "make_execute", None)
    if make is None:
        d.pop("execute", None)
    else:
        d["execute"] = make(native, fd, cls_execute, _ENVIRON_DATA, _DUMP_ENV_KEY)


# Note [Lean execute]: FusionDefinition.execute tries the definition's C
# cache (fast.native) itself, before any other Python work: no import, no
# state checks (a definition that fails drops its _fast_path), no copy of
# the inputs, no counters (the C cache counts its hits; cache_stats adds
# them). A call the C cache does not serve (None) comes here. Before, the
# Python layers cost 2.5 us per call over the C call on the H200 (10.70 vs
# 8.23 us; bench/experiments/host-profile.py).
def package_version():
    from ._version import __version__
    return __version__


def _parse_device(device):
    """execute(device=...): ("cpu", None), ("cuda", None) or ("cuda", N)."""
    if isinstance(device, bool):
        raise FusionInputError(f"execute: device must be 'cpu', 'cuda', 'cuda:N', an int "
                               f"or a torch.device, got {device!r}")
    if isinstance(device, int):
        if device < 0:
            raise FusionInputError(f"execute: device index must be >= 0, got {device}")
        return ("cuda", device)
    text = str(device)
    m = re.match(r"^(cpu|cuda)(?::([0-9]+))?$", text)
    if m is None or (m.group(1) == "cpu" and m.group(2) is not None):
        raise FusionInputError(f"execute: device must be 'cpu', 'cuda', 'cuda:N', an int "
                               f"or a torch.device, got {device!r}")
    return (m.group(1), int(m.group(2)) if m.group(2) is not None else None)


def _check_device(fd, inputs, mode, device):
    """execute(device=...) is a check, never a copy: the inputs must be
    where it says (the interpreter for 'cpu', that CUDA device otherwise)."""
    kind, index = _parse_device(device)
    tensors = [(i, x) for i, x in enumerate(inputs) if _is_torch(x) or _is_numpy(x)]
    if kind == "cpu":
        for i, x in tensors:
            if _is_torch(x) and x.device.type == "cuda":
                raise FusionInputError(
                    f"execute(device={device!r}): {_input_label(i, fd.inputs[i])} is on "
                    f"{x.device}; the CPU runs the reference interpreter on numpy arrays or "
                    f"CPU tensors (execute does not copy)")
        return "cpu"
    if mode != "gpu":
        what = "the inputs are on the CPU" if tensors else "the fusion has no tensor inputs"
        raise FusionInputError(
            f"execute(device={device!r}): {what}; pass CUDA tensors on that device "
            f"(execute does not copy)")
    if index is not None:
        import torch
        for i, x in tensors:
            have = x.device.index if x.device.index is not None else torch.cuda.current_device()
            if have != index:
                raise FusionInputError(
                    f"execute(device={device!r}): {_input_label(i, fd.inputs[i])} is on "
                    f"cuda:{have} (execute does not copy)")
    return "gpu"


def execute(fd, inputs, dump=None, schedule=None, device=None):
    # The fast path: a signature this definition has run before on the GPU.
    if dump is None and schedule is None and device is None:
        fast = getattr(fd, "_fast_path", None)
        if fast is not None and not dump_requested():
            native = fast.native
            if native is not None:  # C (Note [C fast path] in runtime.py)
                outputs = native.call(inputs, None, None, fd)
                if outputs is not None:
                    return outputs
            from .runtime import make_key
            try:
                entry = fast.entries.get(make_key(inputs, fast.codes))
            except Exception:  # not keyable: the checks below explain
                entry = None
            # Scalars out of their dtype's range take the full path, whose
            # checks raise (Note [Scalar ranges] in runtime.py).
            if entry is not None and (not entry.sig.scalars
                                      or entry.exe.scalars_fit(entry.sig, inputs)):
                _stats["hits"] += 1
                exe, sig = entry.exe, entry.sig
                outputs = exe.launch(sig, inputs, exe.allocate(sig, inputs))
                fd.last_execution = entry.info
                return outputs
    kinds = parse_dump(dump)
    # A subclass's schedule() is the default; the fast path (installed only
    # for schedule=None) then runs modules compiled with it.
    options = schedule_options(schedule if schedule is not None else fd.schedule())
    mode = check_inputs(fd, inputs)
    if device is not None:
        mode = _check_device(fd, inputs, mode, device)
    ir = fd.to_mlir(locations=True)
    if mode == "gpu":
        options = _device_options(inputs, options)
    if kinds:
        _dump(fd, kinds, ir, options)
    if mode == "gpu":
        return _execute_gpu(fd, inputs, ir, schedule, options, kinds)
    return _execute_interpreter(fd, inputs, ir)


# --- the reference interpreter ------------------------------------------------------


def _to_numpy(x, dtype):
    import numpy as np
    if _is_torch(x):
        import torch
        t = x.detach().contiguous()
        if dtype in (DataType.BFloat16,):
            return t.view(torch.int16).numpy().view(np.uint16)
        if dtype.is_fp8:
            return t.view(torch.uint8).numpy()
        return t.numpy()
    arr = np.ascontiguousarray(x)
    if dtype is DataType.BFloat16 or dtype.is_fp8:
        return arr.view(np.uint16 if dtype is DataType.BFloat16 else np.uint8)
    return arr


def _fp8_table(dtype):
    import numpy as np
    bits = np.arange(256, dtype=np.uint32)
    sign = np.where(bits & 0x80, -1.0, 1.0)
    if dtype is DataType.Float8_e4m3fn:
        e, m, bias, mb = (bits >> 3) & 0xF, bits & 0x7, 7, 3
    else:
        e, m, bias, mb = (bits >> 2) & 0x1F, bits & 0x3, 15, 2
    val = np.where(e == 0, m / 2.0 ** mb * 2.0 ** (1 - bias),
                   (1 + m / 2.0 ** mb) * 2.0 ** (e.astype(np.float64) - bias))
    val = sign * val
    if dtype is DataType.Float8_e4m3fn:
        val[(bits & 0x7F) == 0x7F] = np.nan
    else:
        val[(e == 0x1F) & (m == 0)] = sign[(e == 0x1F) & (m == 0)] * np.inf
        val[(e == 0x1F) & (m != 0)] = np.nan
    return val.astype(np.float32)


def raw_to_numpy(raw, dtype):
    """Decodes raw bf16 / fp8 bits: an ml_dtypes array if ml_dtypes is
    installed, else float32 (exact)."""
    import numpy as np
    try:
        import ml_dtypes
        target = {DataType.BFloat16: ml_dtypes.bfloat16,
                  DataType.Float8_e4m3fn: ml_dtypes.float8_e4m3fn,
                  DataType.Float8_e5m2: ml_dtypes.float8_e5m2}[dtype]
        return raw.view(target)
    except ImportError:
        pass
    if dtype is DataType.BFloat16:
        return (raw.view(np.uint16).astype(np.uint32) << 16).view(np.float32)
    return _fp8_table(dtype)[raw.view(np.uint8)]


def _execute_interpreter(fd, inputs, ir):
    import numpy as np
    from . import _compiler
    specs = []
    for v, x in zip(fd.inputs, inputs):
        if v.__class__.__name__ == "Scalar":
            if v.dtype is DataType.Index:
                specs.append(("index", int(x)))
            elif v.dtype.is_bool:
                specs.append(("scalar", v.dtype.mlir, 1 if x else 0))
            elif v.dtype.is_float:
                specs.append(("scalar", v.dtype.mlir, float(x)))
            else:
                specs.append(("scalar", v.dtype.mlir, int(x)))
            continue
        arr = np.ascontiguousarray(_to_numpy(x, v.dtype))
        if v.dtype.is_bool:
            arr = arr.astype(np.uint8)
        specs.append(("tensor", v.dtype.mlir, tuple(arr.shape), memoryview(arr).cast("B")))
    results = []
    for o, (dtype, shape, data) in zip(
            fd.outputs, _compiler.interpret(ir, specs, _source_name(fd))):
        raw = np.frombuffer(data, dtype=_storage_dtype(o.dtype)).reshape(shape).copy()
        if o.dtype is DataType.BFloat16 or o.dtype.is_fp8:
            raw = raw_to_numpy(raw, o.dtype)
        results.append(raw)
    fd.last_execution = {"mode": "interpreter", "cache_hit": False}
    return results


def _storage_dtype(dtype):
    """The numpy dtype of the interpreter's storage of `dtype`."""
    import numpy as np
    if dtype is DataType.BFloat16:
        return np.uint16
    if dtype.is_fp8:
        return np.uint8
    if dtype.is_bool:
        return np.bool_
    if dtype is DataType.Index:
        return np.int64
    return np.dtype(dtype.numpy_name)


# --- the GPU ------------------------------------------------------------------------


class _CacheEntry:
    def __init__(self, executable, module, compile_cache_hit):
        self.executable = executable
        self.module = module  # the module file's bytes
        # Whether the module came from the persistent compile cache.
        self.compile_cache_hit = compile_cache_hit


_cache = {}
_cache_lock = threading.Lock()
_stats = {"hits": 0, "misses": 0}


def _drop_native(fast):
    """Forgets a definition's C cache, keeping the count of its hits. It is
    cleared too: the definition's C execute may still hold it (Note [C
    execute])."""
    if fast.native is not None:
        _stats["hits"] += fast.native.stats()["hits"]
        fast.native.clear()
        fast.native = None


def cache_stats():
    """{'hits', 'misses', 'entries'} of the compiled-module cache. Hits of
    the C fast path are counted by its caches (Note [Lean execute])."""
    hits = _stats["hits"] + sum(fast.native.stats()["hits"] for fast in list(_fast_paths)
                                if fast.native is not None)
    return dict(_stats, hits=hits, entries=len(_cache))


def clear_cache():
    with _cache_lock:
        _cache.clear()
        for fast in list(_fast_paths):
            fast.entries.clear()
            if fast.native is not None:
                fast.native.clear()
                fast.native = None
        _stats["hits"] = _stats["misses"] = 0


def _signature(fd, inputs):
    sig = []
    for v, x in zip(fd.inputs, inputs):
        if v.__class__.__name__ == "Scalar":
            sig.append(("scalar", v.dtype.mlir))
        else:
            sig.append((v.dtype.mlir, x.dim(),
                        tuple(s >= 0 for s in v.shape)))
    return tuple(sig)


def _device_options(inputs, options):
    """The compile options for the device of the inputs: its chip and SM
    count unless the schedule sets them."""
    import torch
    device = next(x.device for x in inputs if _is_torch(x))
    props = torch.cuda.get_device_properties(device)
    options = dict(options)
    if options["chip"] is None and (props.major, props.minor) != (9, 0):
        options["chip"] = f"sm_{props.major}{props.minor}"
    if options["sm_count"] is None:
        options["sm_count"] = props.multi_processor_count
    return options


# Note [NVTX ranges]: with a profiler attached (Nsight Systems and Nsight
# Compute set CUDA_INJECTION64_PATH in the process they profile) or
# FUSION_NVTX=1, execute marks "fusion compile @name" and "fusion launch
# @name" as NVTX ranges (torch.cuda.nvtx) and installs no fast path, so every
# call takes this path and gets its range. FUSION_NVTX=0 turns them off.
def nvtx_enabled():
    value = os.environ.get("FUSION_NVTX")
    if value is not None:
        return value not in ("", "0")
    return bool(os.environ.get("CUDA_INJECTION64_PATH"))


class _Range:
    __slots__ = ("nvtx",)

    def __init__(self, torch, name):
        self.nvtx = None
        if nvtx_enabled():
            nvtx = getattr(getattr(torch, "cuda", None), "nvtx", None)
            if nvtx is not None:
                nvtx.range_push(name)
                self.nvtx = nvtx

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        if self.nvtx is not None:
            self.nvtx.range_pop()
        return False


def _dump_launches(fd, launches):
    """FUSION_DUMP=launch: the launch plan for these inputs, as the runtime
    evaluated it (kernel, variant, grid, block, shared memory)."""
    lines = []
    for k, l in enumerate(launches):
        extra = "".join([f" cluster={l['cluster']}" if l["cluster"] else "",
                         " cooperative" if l["cooperative"] else "",
                         " skipped (empty grid)" if l["skipped"] else ""])
        lines.append(f"launch {k}: {l['kernel']} variant {l['variant']} grid={l['grid']} "
                     f"block={l['block']} dynamic_smem={l['dynamic_smem']}{extra}\n")
    _write_dump(fd, [("launch", "".join(lines))])


_DEFER_MODES = ("none", "fallbacks", "all")
_builder_installed = False


def _with_deferral(pipeline):
    """Note [Deferred kernels]: a compile leaves every kernel to be built when
    a launch first needs it (the compiler is this process's kernel builder),
    as Triton compiles at the first call; FUSION_DEFER_KERNELS=fallbacks
    builds the kernels aligned inputs take at compile time and defers the
    fallbacks, none builds every kernel (a module file that runs in a
    process without the compiler)."""
    global _builder_installed
    mode = os.environ.get("FUSION_DEFER_KERNELS", "all") or "all"
    if mode not in _DEFER_MODES:
        raise FusionError(f"FUSION_DEFER_KERNELS must be one of {', '.join(_DEFER_MODES)}, "
                          f"got {mode!r}")
    if mode == "none":
        return pipeline
    if not _builder_installed:
        from . import runtime
        runtime.install_kernel_builder()
        _builder_installed = True
    return (pipeline + f" defer-kernels={mode}").strip()


def _execute_gpu(fd, inputs, ir, schedule, options, kinds=frozenset()):
    import torch
    from . import runtime, _compiler
    device = next(x.device for x in inputs if _is_torch(x))
    key = (ir, tuple(sorted(options.items())), _signature(fd, inputs))
    with _cache_lock:
        entry = _cache.get(key)
        hit = entry is not None
        if hit:
            _stats["hits"] += 1
        else:
            _stats["misses"] += 1
            with _Range(torch, f"fusion compile @{fd.name}"):
                data, cached = _compiler.compile(
                    ir, _source_name(fd), chip=options["chip"],
                    sm_count=options["sm_count"],
                    pipeline_options=_with_deferral(options["pipeline"]))
            entry = _CacheEntry(runtime.Executable(data), data, cached)
            _cache[key] = entry
    # Scalars are passed as Python numbers: the module's input dtypes are the
    # definition's, and check_inputs checked the values.
    exe = entry.executable
    with torch.cuda.device(device), _Range(torch, f"fusion launch @{fd.name}"):
        sig = exe.signature(inputs)
        if "launch" in kinds:
            _dump_launches(fd, exe.plan(inputs))
        outputs = exe.launch(sig, inputs, exe.allocate(sig, inputs))
    fd.last_execution = {"mode": "gpu", "cache_hit": hit, "module": entry.module,
                          "compile_cache_hit": entry.compile_cache_hit}
    if schedule is None and not nvtx_enabled():
        _install_fast_entry(fd, inputs, exe, sig,
                            {"mode": "gpu", "cache_hit": True, "module": entry.module,
                             "compile_cache_hit": entry.compile_cache_hit})
    return outputs
