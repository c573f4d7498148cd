"""Running a FusionDefinition: on the GPU (fusion-translate + the runtime) for
torch CUDA tensors, on the CPU (the reference interpreter, fusion-interpret)
for numpy arrays and CPU torch tensors."""

import os
import shutil
import subprocess
import sys
import tempfile
import threading
import weakref

from .dtypes import DataType, INT64_MAX, INT64_MIN, int_range, to_dtype
from .errors import (FusionCompileError, FusionError, FusionExecutionError,
                     FusionInputError)

_PKG_DIR = os.path.dirname(os.path.abspath(__file__))
_REPO_DIR = os.path.dirname(os.path.dirname(_PKG_DIR))

SCHEDULE_FLAGS = {"unroll": "--unroll", "blocks_per_sm": "--blocks-per-sm",
                  "chip": "--chip", "sm_count": "--sm-count"}
DUMP_KINDS = ("ir", "ptx", "plan")


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


def _run_tool(args, error_cls, what):
    try:
        proc = subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              universal_newlines=True)
    except OSError as e:
        raise error_cls(f"{what}: cannot run {args[0]}: {e}")
    if proc.returncode != 0:
        msg = proc.stderr.strip() or proc.stdout.strip() or f"exit code {proc.returncode}"
        raise error_cls(f"{what} failed:\n{msg}")
    return proc.stdout


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


def schedule_flags(schedule):
    if not schedule:
        return []
    flags = []
    for key in sorted(schedule):
        if key not in SCHEDULE_FLAGS:
            raise FusionError(
                f"unknown schedule key {key!r}; known: {', '.join(sorted(SCHEDULE_FLAGS))}")
        value = schedule[key]
        if key in ("unroll", "blocks_per_sm", "sm_count"):
            if not isinstance(value, int) or isinstance(value, bool) or value < 0:
                raise FusionError(f"schedule {key} must be an int >= 0, got {value!r}")
        flags.append(f"{SCHEDULE_FLAGS[key]}={value}")
    return flags


def _dump(fd, kinds, ir, flags):
    out = sys.stdout
    if "ir" in kinds:
        out.write(f"===== fusion IR (@{fd.name}) =====\n{ir}")
    for kind, option in (("plan", "--fusion-to-lowered-ir"), ("ptx", "--fusion-to-ptx")):
        if kind not in kinds:
            continue
        with tempfile.TemporaryDirectory(prefix="fusion-dump-") as tmp:
            src = os.path.join(tmp, "fusion.mlir")
            with open(src, "w") as f:
                f.write(ir)
            try:
                text = _run_tool([find_tool("fusion-translate"), src, option, "-o", "-"]
                                 + flags, FusionCompileError, f"fusion-translate {option}")
            except FusionCompileError as e:
                text = f"(no {kind}: {e})\n"
        out.write(f"===== fusion {kind} (@{fd.name}) =====\n{text}")
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
def execute(fd, inputs, dump=None, schedule=None):
    # The fast path: a signature this definition has run before on the GPU.
    if dump is None and schedule is None:
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
    flags = schedule_flags(schedule)
    mode = check_inputs(fd, inputs)
    ir = fd.to_mlir()
    if kinds:
        _dump(fd, kinds, ir, flags)
    if mode == "gpu":
        return _execute_gpu(fd, inputs, ir, schedule, flags)
    return _execute_interpreter(fd, inputs, ir)


# --- the reference interpreter ------------------------------------------------------


def _scalar_text(x):
    if isinstance(x, bool) or type(x).__name__ == "bool_":
        return "true" if x else "false"
    if isinstance(x, int):
        return str(x)
    f = float(x)
    if f != f:
        return "nan"
    if f in (float("inf"), float("-inf")):
        return "inf" if f > 0 else "-inf"
    if float(int(f)) == f and abs(f) < 1e15 and not isinstance(x, int):
        return repr(f)
    return repr(f)


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
    tool = find_tool("fusion-interpret")
    with tempfile.TemporaryDirectory(prefix="fusion-interp-") as tmp:
        src = os.path.join(tmp, "fusion.mlir")
        with open(src, "w") as f:
            f.write(ir)
        args = [tool, src]
        for i, (v, x) in enumerate(zip(fd.inputs, inputs)):
            if v.__class__.__name__ == "Scalar":
                args.append(f"--input={_scalar_text(x)}")
                continue
            path = os.path.join(tmp, f"in{i}.npy")
            np.save(path, _to_numpy(x, v.dtype))
            args.append(f"--input={path}")
        out_dir = os.path.join(tmp, "out")
        os.mkdir(out_dir)
        args.append(f"--output-dir={out_dir}")
        _run_tool(args, FusionExecutionError, "fusion-interpret (reference interpreter)")
        results = []
        for k, o in enumerate(fd.outputs):
            arr = np.load(os.path.join(out_dir, f"out{k}.npy"))
            dtype = o.dtype
            if dtype is DataType.BFloat16 or dtype.is_fp8:
                arr = raw_to_numpy(arr.view(np.uint16 if dtype is DataType.BFloat16
                                            else np.uint8), dtype)
            results.append(arr)
    fd.last_execution = {"mode": "interpreter", "cache_hit": False}
    return results


# --- the GPU ------------------------------------------------------------------------


class _CacheEntry:
    def __init__(self, executable, tmpdir, path):
        self.executable = executable
        self.tmpdir = tmpdir
        self.path = path


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


def _execute_gpu(fd, inputs, ir, schedule, flags):
    import torch
    from . import runtime
    device = next(x.device for x in inputs if _is_torch(x))
    props = torch.cuda.get_device_properties(device)
    flags = list(flags)
    keys = set(schedule or {})
    if "chip" not in keys and (props.major, props.minor) != (9, 0):
        flags.append(f"--chip=sm_{props.major}{props.minor}")
    if "sm_count" not in keys:
        flags.append(f"--sm-count={props.multi_processor_count}")
    key = (ir, tuple(flags), _signature(fd, inputs))
    with _cache_lock:
        entry = _cache.get(key)
        hit = entry is not None
        if hit:
            _stats["hits"] += 1
        else:
            _stats["misses"] += 1
            tmpdir = tempfile.TemporaryDirectory(prefix="fusion-module-")
            src = os.path.join(tmpdir.name, "fusion.mlir")
            with open(src, "w") as f:
                f.write(ir)
            path = os.path.join(tmpdir.name, f"{fd.name}.fusionmod")
            _run_tool([find_tool("fusion-translate"), src, "--fusion-to-module", "-o", path]
                      + flags, FusionCompileError, "fusion-translate --fusion-to-module")
            entry = _CacheEntry(runtime.Executable(path), tmpdir, path)
            _cache[key] = entry
    # Scalars are passed as Python numbers: the module's input dtypes are the
    # definition's, and check_inputs checked the values.
    exe = entry.executable
    with torch.cuda.device(device):
        sig = exe.signature(inputs)
        outputs = exe.launch(sig, inputs, exe.allocate(sig, inputs))
    fd.last_execution = {"mode": "gpu", "cache_hit": hit, "module": entry.path}
    if schedule is None:
        _install_fast_entry(fd, inputs, exe, sig,
                            {"mode": "gpu", "cache_hit": True, "module": entry.path})
    return outputs
