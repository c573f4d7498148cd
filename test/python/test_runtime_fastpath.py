"""CPU tests of the Python fast path (Note [Python fast path] in
fusion/runtime.py): argument packing, signature caching, output allocation
and the errors for bad inputs, on fake tensors against the real
libfusion_runtime.so and modules compiled in process. No GPU or
torch needed: a fake backend allocates, and the C call stops at the missing
driver (or, for FusionDefinition.execute, at a stand-in for the launch).
The same paths on a GPU are in test_gpu.py."""
import contextlib
import ctypes
import os
import sys
import types

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def compiler_or_skip():
    """The compiler library's path (fusion/_compiler.py), or a skip."""
    from fusion import FusionCompileError, _compiler
    try:
        return _compiler.library_path()
    except FusionCompileError as e:
        pytest.skip(str(e))


from fusion import (DataType, FusionDefinition, FusionError,  # noqa: E402
                    FusionInputError, cache_stats, clear_cache)
from fusion import execution, runtime  # noqa: E402


def _library_or_skip():
    if os.environ.get("FUSION_TEST_INSTALLED") == "1":
        return runtime.load_library()._name  # the installed package's own
    candidates = [os.environ.get("FUSION_RUNTIME_LIBRARY")]
    build = os.environ.get("FUSION_BUILD_DIR")
    if build:
        candidates.append(os.path.join(ROOT, build, "lib", "libfusion_runtime.so"))
    candidates += [os.path.join(ROOT, d, "lib", "libfusion_runtime.so")
                   for d in ("build-h1", "build", "build-rt")]
    for path in candidates:
        if not path or not os.path.isfile(path):
            continue
        lib = ctypes.CDLL(path)
        if hasattr(lib, "fusion_executable_run_packed"):
            return path
    try:  # an installed package's own (a wheel)
        lib = runtime.load_library()
        if hasattr(lib, "fusion_executable_run_packed"):
            return lib._name
    except FusionError:
        pass
    pytest.skip("no libfusion_runtime.so with fusion_executable_run_packed "
                "(build FusionRuntimeShared, or set FUSION_RUNTIME_LIBRARY)")


@pytest.fixture(scope="module")
def library():
    path = _library_or_skip()
    if runtime._lib is None:
        runtime.load_library(path)
    elif not hasattr(runtime._lib, "fusion_executable_run_packed"):
        pytest.skip("an older libfusion_runtime.so is loaded already")
    return path


def _driver_present():
    try:
        ctypes.CDLL("libcuda.so.1")
        return True
    except OSError:
        return False


# --- fakes -----------------------------------------------------------------------


class FakeDType:
    _all = {}

    def __new__(cls, name):
        if name not in cls._all:
            obj = super().__new__(cls)
            obj.name = name
            cls._all[name] = obj
        return cls._all[name]

    def __str__(self):
        return "torch." + self.name


class FakeDevice:
    def __init__(self, index):
        self.index = index
        self.type = "cuda" if index >= 0 else "cpu"

    def __str__(self):
        return f"cuda:{self.index}" if self.index >= 0 else "cpu"


_next_pointer = [0x7f0000000000]


def _pointer(nbytes):
    p = _next_pointer[0]
    _next_pointer[0] += (nbytes + 255) // 256 * 256 + 256
    return p


def _row_major(shape):
    strides, s = [], 1
    for size in reversed(shape):
        strides.insert(0, s)
        s *= max(size, 1)
    return tuple(strides)


class FakeTensor:
    """What the binding reads from a torch tensor."""

    __module__ = "torch"  # execution._is_torch looks at the module
    is_cuda = True

    _ITEMSIZE = {"float64": 8, "int64": 8, "float32": 4, "int32": 4, "float16": 2,
                 "bfloat16": 2, "int16": 2, "int8": 1, "bool": 1, "uint8": 1}

    def __init__(self, shape, dtype="float32", device=0, ptr=None, strides=None,
                 storage_offset=0):
        self._storage_offset = storage_offset
        self.shape = tuple(shape)
        self.dtype = FakeDType(dtype)
        self._device = device
        self._strides = tuple(strides) if strides is not None else _row_major(self.shape)
        n = 1
        for s in self.shape:
            n *= s
        self._ptr = ptr if ptr is not None else (_pointer(8 * n) if n else 0)

    def stride(self, d=None):
        return self._strides if d is None else self._strides[d]

    def dim(self):
        return len(self.shape)

    def get_device(self):
        return self._device

    @property
    def device(self):
        return FakeDevice(self._device)

    def data_ptr(self):
        return self._ptr

    def storage_offset(self):
        return self._storage_offset

    def as_strided(self, shape, strides, storage_offset=None):
        if storage_offset is None:  # torch keeps the tensor's own
            storage_offset = self._storage_offset
        moved = (storage_offset - self._storage_offset) * self._ITEMSIZE[self.dtype.name]
        return FakeTensor(shape, self.dtype.name, self._device, self._ptr + moved, strides,
                          storage_offset)


class FakeBackend:
    def __init__(self):
        self.allocations = 0
        self.guards = []

    def empty(self, shape, dtype=None, device=None):
        self.allocations += 1
        return FakeTensor(shape, dtype.name, device[1])

    def empty_strided(self, shape, strides, dtype=None, device=None):
        self.allocations += 1
        return FakeTensor(shape, dtype.name, device[1], strides=strides)

    def raw_stream(self, index):
        return 0

    def current_device(self):
        return 0

    @contextlib.contextmanager
    def device_guard(self, index):
        self.guards.append(index)
        yield

    def dtype(self, code):
        return FakeDType(runtime._TORCH_NAMES[code])

    def device(self, index):
        return ("cuda", index)


# --- modules ---------------------------------------------------------------------


def tiny3_fd():
    """relu(a * b + a): the host-overhead benchmark's fusion."""
    with FusionDefinition("tiny3") as fd:
        a = fd.define_tensor([-1], DataType.Float32, name="a")
        b = fd.define_tensor([-1], DataType.Float32, name="b")
        fd.add_output(fd.ops.relu(fd.ops.add(fd.ops.mul(a, b), a)))
    return fd


def scaled_fd():
    """a * s and a view (permute) of a."""
    with FusionDefinition("scaled") as fd:
        a = fd.define_tensor([-1, -1], DataType.Float32, name="a")
        s = fd.define_scalar(dtype=DataType.Float32)
        fd.add_output(fd.ops.mul(a, s))
        fd.add_output(fd.ops.permute(a, [1, 0]))
    return fd


def sliced_fd():
    """a[1:, 2::2] and a[:, :3]: views of a, the first from element 1 * n + 2."""
    with FusionDefinition("sliced") as fd:
        a = fd.define_tensor([-1, -1], DataType.Float32, name="a")
        fd.add_output(fd.ops.slice(a, [1, 2], None, [1, 2]))
        fd.add_output(fd.ops.slice(a, [0, 0], [None, 3]))
    return fd


def offset_fd():
    """a + s with an i64 scalar (the scalar type the GPU compiles)."""
    with FusionDefinition("offset") as fd:
        a = fd.define_tensor([-1], DataType.Int64, name="a")
        s = fd.define_scalar(dtype=DataType.Int64, name="s")
        fd.add_output(fd.ops.add(a, s))
    return fd


def compile_module(fd, tmp_path):
    """The definition's module file, compiled in process, written to
    tmp_path."""
    compiler_or_skip()
    from fusion import _compiler
    data, _ = _compiler.compile(fd.to_mlir(), f"{fd.name}.mlir")
    out = tmp_path / f"{fd.name}.fusionmod"
    out.write_bytes(data)
    return str(out)


@pytest.fixture
def tiny3(library, tmp_path):
    backend = FakeBackend()
    return runtime.Executable(compile_module(tiny3_fd(), tmp_path), backend=backend), backend


@pytest.fixture
def scaled(library, tmp_path):
    backend = FakeBackend()
    return runtime.Executable(compile_module(scaled_fd(), tmp_path), backend=backend), backend


@pytest.fixture
def offset(library, tmp_path):
    backend = FakeBackend()
    return runtime.Executable(compile_module(offset_fd(), tmp_path), backend=backend), backend


# --- the Executable ----------------------------------------------------------------


def test_metadata(tiny3):
    exe, _ = tiny3
    assert exe.num_inputs == 2 and exe.num_outputs == 1
    assert exe.input_names == ["a", "b"]
    assert exe.key_codes == (0, 0)
    assert exe.output_dtypes == [1]


def test_launch_graph_switch_and_stats(tiny3):
    exe, _ = tiny3
    assert exe.graph_stats() == {"built": 0, "launches": 0, "node_updates": 0,
                                 "direct": 0, "entries": 0}
    exe.set_launch_graphs(False)
    exe.set_launch_graphs(True)
    assert exe.graph_stats()["entries"] == 0


def test_outputs_are_allocated_once_per_signature(tiny3):
    exe, backend = tiny3
    a, b = FakeTensor([1024]), FakeTensor([1024])
    (out,) = exe.empty_outputs([a, b])
    assert out.shape == (1024,) and str(out.dtype) == "torch.float32"
    assert out.stride() == (1,) and out.get_device() == 0
    exe.empty_outputs([FakeTensor([1024]), FakeTensor([1024])])
    assert exe.cache_stats()["signatures"] == 1
    (out,) = exe.empty_outputs([FakeTensor([7]), FakeTensor([7])])
    assert out.shape == (7,)
    stats = exe.cache_stats()
    assert stats["signatures"] == 2
    assert stats["misses"] == 2 and stats["entries"] == 2


def test_signature_records(tiny3):
    exe, _ = tiny3
    a = FakeTensor([1000], strides=[3])
    b = FakeTensor([1000])
    sig = exe.signature([a, b])
    r = sig.records
    assert r[runtime.KIND] == runtime.ARG_TENSOR
    assert r[runtime.DTYPE] == 1 and r[runtime.RANK] == 1
    assert r[runtime.SIZES] == 1000 and r[runtime.STRIDES] == 3
    assert r[runtime.WORDS + runtime.STRIDES] == 1
    o = sig.out_records
    assert o[runtime.ALIAS] == -1 and o[runtime.NUM_ELEMENTS] == 1000
    assert sig.outputs[0][:3] == (-1, (1000,), (1,))


def test_call_reaches_the_driver(tiny3):
    if _driver_present():
        pytest.skip("libcuda.so.1 is loadable here; test_gpu.py covers the launch")
    exe, backend = tiny3
    a, b = FakeTensor([1024]), FakeTensor([1024])
    for _ in range(2):  # an error leaves the executable usable
        with pytest.raises(FusionError, match="CUDA driver not available") as e:
            exe(a, b)
        assert e.value.name == "DriverUnavailable"
    assert exe.cache_stats()["signatures"] == 1


@pytest.mark.parametrize("inputs, name, message", [
    (lambda: [FakeTensor([8]), FakeTensor([8], "float16")], "WrongDType",
     "input 1 (b): expected dtype f32, got f16"),
    (lambda: [FakeTensor([8, 8]), FakeTensor([8])], "WrongRank",
     "input 0 (a): expected rank 1, got 2"),
    (lambda: [FakeTensor([8]), 1.0], "WrongInputKind",
     "input 1 (b): expected a tensor, got float"),
    (lambda: [FakeTensor([8]), [1.0, 2.0]], "WrongInputKind",
     "input 1 (b): expected a tensor, got list"),
    (lambda: [FakeTensor([8], device=-1), FakeTensor([8])], "InvalidArgument",
     "input 0 (a): expected a CUDA tensor, got a tensor on cpu"),
    (lambda: [FakeTensor([8]), FakeTensor([8], device=1)], "InvalidArgument",
     "input 1 (b): on cuda:1, but input 0 (a) is on cuda:0"),
    (lambda: [FakeTensor([8]), FakeTensor([8], "complex64")], "WrongDType",
     "input 1 (b): expected dtype f32, got unsupported dtype complex64"),
    (lambda: [FakeTensor([8])], "WrongInputCount",
     "wrong number of inputs: expected 2, got 1"),
    (lambda: [FakeTensor([1024], ptr=0), FakeTensor([1024])], "NullPointer",
     "input 0 (a): null data pointer for a tensor of 1024 elements"),
])
def test_bad_inputs(tiny3, inputs, name, message):
    exe, backend = tiny3
    with pytest.raises(FusionError) as e:
        exe.call(inputs())
    assert e.value.name == name
    assert message in str(e.value)
    assert backend.allocations == 0  # nothing allocated, nothing returned
    # The executable still works.
    (out,) = exe.empty_outputs([FakeTensor([8]), FakeTensor([8])])
    assert out.shape == (8,)


def test_mismatched_sizes_are_a_typed_error(tiny3):
    exe, _ = tiny3
    with pytest.raises(FusionError) as e:
        exe.empty_outputs([FakeTensor([8]), FakeTensor([9])])
    assert e.value.name in ("ConstraintViolation", "WrongSize"), str(e.value)


def test_provided_outputs_are_checked(tiny3):
    exe, _ = tiny3
    a, b = FakeTensor([1024]), FakeTensor([1024])
    with pytest.raises(FusionError, match="output 0: dim 0 expected 1024, got 1000"):
        exe.run([a, b], [FakeTensor([1000])])
    with pytest.raises(FusionError, match="output 0: expected dtype f32, got f16"):
        exe.run([a, b], [FakeTensor([1024], "float16")])
    with pytest.raises(FusionError, match="wrong number of outputs: expected 1, got 2"):
        exe.run([a, b], [FakeTensor([1024]), FakeTensor([1024])])


def test_slices_are_views_from_their_first_element(library, tmp_path):
    backend = FakeBackend()
    exe = runtime.Executable(compile_module(sliced_fd(), tmp_path), backend=backend)
    a = FakeTensor([6, 10])
    s, head = exe.empty_outputs([a])
    assert backend.allocations == 0  # views, no kernel, nothing allocated
    assert s.shape == (5, 4) and s.stride() == (10, 2)
    assert s.storage_offset() == 12 and s.data_ptr() == a.data_ptr() + 12 * 4
    assert head.shape == (6, 3) and head.stride() == (10, 1)
    assert head.storage_offset() == 0 and head.data_ptr() == a.data_ptr()
    assert exe.signature([a]).out_records[runtime.OFFSET] == 12
    # An input that is a view itself: the offsets add up.
    base = FakeTensor([100])
    b = base.as_strided((6, 10), (12, 1), 7)
    s, _ = exe.empty_outputs([b])
    assert s.stride() == (12, 2)
    assert s.storage_offset() == 7 + 14 and s.data_ptr() == base.data_ptr() + 21 * 4


def test_scalars_and_views(scaled):
    exe, backend = scaled
    assert exe.key_codes == (0, 1)
    a = FakeTensor([6, 4])
    out, view = exe.empty_outputs([a, 0.5])
    assert out.shape == (6, 4)
    assert view.shape == (4, 6) and view.stride() == (1, 4)
    assert view.data_ptr() == a.data_ptr()
    assert backend.allocations == 1  # the view is not allocated
    sig = exe.signature([a, 0.5])
    assert sig.records[runtime.WORDS + runtime.KIND] == runtime.ARG_SCALAR
    assert sig.doubles[runtime.WORDS + runtime.VALUE] == 0.5
    assert sig.out_records[runtime.WORDS + runtime.ALIAS] == 0
    exe.signature([a, 2])  # an int for an f32 scalar: another key, fine
    exe.empty_outputs([a, runtime.ScalarArg(1.5, "f32")])
    with pytest.raises(FusionError) as e:
        exe.empty_outputs([a, "x"])
    assert e.value.name == "WrongInputKind"
    assert "input 1 (arg1): expected a scalar f32 (a Python number), got str" in str(e.value)
    with pytest.raises(FusionError) as e:
        exe.empty_outputs([a, runtime.ScalarArg(1, "i64")])
    assert e.value.name == "WrongDType"
    with pytest.raises(FusionError) as e:
        exe.empty_outputs([a, a])
    assert e.value.name == "WrongInputKind"


def test_scalar_value_is_written_per_call(scaled, monkeypatch):
    exe, _ = scaled
    seen = []

    def fake_run(handle, data, records, n, odata, out_records, m, stream):
        seen.append((ctypes.cast(records, ctypes.POINTER(ctypes.c_double))
                     [runtime.WORDS + runtime.VALUE], data[0], odata[1]))
        return 0

    monkeypatch.setattr(exe, "_run_packed", fake_run)
    a = FakeTensor([6, 4])
    exe.call([a, 0.5])
    exe.call([a, 3.25])
    assert [s[0] for s in seen] == [0.5, 3.25]
    assert seen[0][1] == a.data_ptr()
    assert seen[0][2] is None  # the view is passed as null


I64 = "[-9223372036854775808, 9223372036854775807]"


@pytest.mark.parametrize("value", [2**64, 2**63, -2**63 - 1])
def test_scalar_out_of_range(offset, monkeypatch, value):
    # Note [Scalar ranges]: ctypes would write 2^64 as 0, 2^63 as -2^63.
    exe, backend = offset
    seen = []

    def fake_run(handle, data, records, n, odata, out_records, m, stream):
        seen.append(records[runtime.WORDS + runtime.VALUE])
        return 0

    monkeypatch.setattr(exe, "_run_packed", fake_run)
    a = FakeTensor([8], "int64")
    message = f"input 1 (s): value {value} is out of range for i64: expected a value in {I64}"
    with pytest.raises(FusionError) as e:  # binding
        exe.call([a, value])
    assert e.value.name == "InvalidArgument" and str(e.value) == "InvalidArgument: " + message
    exe.call([a, 2**63 - 1])
    exe.call([a, -2**63])
    assert seen == [2**63 - 1, -2**63]
    for call in (lambda: exe.call([a, value]),  # a hit of the bound signature
                 lambda: exe.run([a, value], [FakeTensor([8], "int64")]),
                 lambda: exe.launch(exe.signature([a, 1]), [a, value],
                                    [FakeTensor([8], "int64")])):
        with pytest.raises(FusionError) as e:
            call()
        assert e.value.name == "InvalidArgument" and message in str(e.value)
    assert len(seen) == 2  # nothing launched


@pytest.mark.parametrize("shape, strides, message", [
    ([2**63], [1], "input 0 (a): dim 0 size 9223372036854775808 is out of range: "
                   "expected a size in [0, 9223372036854775807]"),
    ([8], [2**64], f"input 0 (a): dim 0 stride 18446744073709551616 is out of range: "
                   f"expected a stride in {I64}"),
    ([8], [2**63], "input 0 (a): dim 0 stride 9223372036854775808 is out of range"),
    ([8], [-2**63 - 1], "input 0 (a): dim 0 stride -9223372036854775809 is out of range"),
])
def test_sizes_and_strides_out_of_range(tiny3, shape, strides, message):
    # Before: a size of 2^63 was "dim 0 has negative size", a stride of 2^64
    # was 0 and ran.
    exe, backend = tiny3
    with pytest.raises(FusionError) as e:
        exe.call([FakeTensor(shape, strides=strides, ptr=0x1000), FakeTensor([8])])
    assert e.value.name == "InvalidArgument" and message in str(e.value)
    a = FakeTensor([8])
    with pytest.raises(FusionError) as e:  # provided outputs
        exe.run([a, a], [FakeTensor(shape, strides=strides, ptr=0x1000)])
    assert e.value.name == "InvalidArgument"
    assert message.replace("input 0 (a)", "output 0") in str(e.value)
    assert backend.allocations == 0


def test_raw_launch_without_a_driver(library):
    if _driver_present():
        pytest.skip("libcuda.so.1 is loadable here")
    with pytest.raises(FusionError, match="CUDA driver not available"):
        runtime.measure_raw_launch_us(10)
    with pytest.raises(FusionError, match="launches must be positive"):
        runtime.measure_raw_launch_us(0)


# --- FusionDefinition.execute ------------------------------------------------------


class _Props:
    major, minor, multi_processor_count = 9, 0, 132


def _fake_torch(backend):
    torch = types.ModuleType("torch")
    torch.cuda = types.SimpleNamespace(
        get_device_properties=lambda device: _Props(),
        device=lambda device: contextlib.nullcontext(),
        current_device=lambda: 0)
    torch._C = types.SimpleNamespace(_cuda_getCurrentRawStream=lambda i: 0,
                                     _cuda_getDevice=lambda: 0)
    torch.empty = backend.empty
    torch.empty_strided = backend.empty_strided
    torch.device = lambda kind, index: (kind, index)
    for name in runtime._TORCH_DTYPES:
        setattr(torch, name, FakeDType(name))
    return torch


def count_input_checks(monkeypatch):
    """Counts the full path's input checks (a cache hit skips them); returns
    the list that grows by one per check."""
    checks = []
    real_check = execution.check_inputs

    def counting_check(fd, inputs):
        checks.append(1)
        return real_check(fd, inputs)

    monkeypatch.setattr(execution, "check_inputs", counting_check)
    return checks


@pytest.fixture
def fake_gpu(library, monkeypatch):
    """FusionDefinition.execute on fake CUDA tensors: the compiler (in
    process) and the runtime's checks run for real, the launch is a
    stand-in."""
    compiler_or_skip()
    backend = FakeBackend()
    monkeypatch.setitem(sys.modules, "torch", _fake_torch(backend))
    monkeypatch.setattr(runtime, "_torch_backend", None)
    launches = []

    class GpulessExecutable(runtime.Executable):
        def __init__(self, path, library=None, backend=None):
            super().__init__(path, library, backend)
            self._run_packed = self._fake_run

        def _fake_run(self, handle, data, records, n, odata, out_records, m, stream):
            launches.append([data[i] for i in range(n)])
            return 0

    monkeypatch.setattr(runtime, "Executable", GpulessExecutable)
    checks = count_input_checks(monkeypatch)
    clear_cache()
    yield types.SimpleNamespace(backend=backend, launches=launches, checks=checks)
    clear_cache()


def test_execute_compile_error_points_at_the_users_line(fake_gpu):
    """Note [Source locations]: a compile error names the Python line of
    the definition (here: the schedule is out of range for its kernel)."""
    fd = tiny3_fd()
    with pytest.raises(FusionError) as info:
        fd.execute([FakeTensor([64]), FakeTensor([64])], schedule={"unroll": 1000})
    msg = str(info.value)
    line = tiny3_fd.__code__.co_firstlineno + 2  # `with FusionDefinition(...)`
    assert type(info.value).__name__ == "FusionCompileError"
    assert "the option unroll must be 0 (heuristic) or 1 to 16, got 1000" in msg
    assert f"{__file__}:{line}:" in msg, msg
    assert 'with FusionDefinition("tiny3") as fd:' in msg
    assert "see current operation" not in msg
    first = info.value.diagnostics[0]
    assert (first.severity, first.file, first.line) == ("error", __file__, line)


def test_execute_device_is_checked_never_ignored(fake_gpu):
    fd = tiny3_fd()
    a, b = FakeTensor([64]), FakeTensor([64])
    (out,) = fd.execute([a, b], device="cuda:0")
    assert out.shape == (64,) and fd.last_execution["mode"] == "gpu"
    fd.execute([a, b], device=0)
    fd.execute([a, b], device="cuda")
    with pytest.raises(FusionInputError, match=r"input 0 \(a\) is on cuda:0 \(execute "
                                               r"does not copy\)"):
        fd.execute([a, b], device="cuda:1")
    with pytest.raises(FusionInputError, match=r"device='cpu'.*input 0 \(a\) is on cuda:0"):
        fd.execute([a, b], device="cpu")
    with pytest.raises(FusionInputError, match="device must be"):
        fd.execute([a, b], device="tpu")


def test_nvtx_ranges_around_compile_and_launch(fake_gpu, monkeypatch):
    """Note [NVTX ranges]: on with FUSION_NVTX=1 (or a profiler's
    CUDA_INJECTION64_PATH); every call then takes the ranged path."""
    import torch
    events = []
    monkeypatch.setattr(torch.cuda, "nvtx", types.SimpleNamespace(
        range_push=lambda name: events.append(("push", name)),
        range_pop=lambda: events.append(("pop",))), raising=False)
    fd = tiny3_fd()
    a, b = FakeTensor([64]), FakeTensor([64])
    monkeypatch.setenv("FUSION_NVTX", "0")
    fd.execute([a, b])
    assert events == []
    clear_cache()
    fd = tiny3_fd()
    monkeypatch.setenv("FUSION_NVTX", "1")
    fd.execute([a, b])
    fd.execute([a, b])
    assert events == [("push", "fusion compile @tiny3"), ("pop",),
                      ("push", "fusion launch @tiny3"), ("pop",),
                      ("push", "fusion launch @tiny3"), ("pop",)]
    assert fd._fast_path is None
    monkeypatch.delenv("FUSION_NVTX")
    monkeypatch.setenv("CUDA_INJECTION64_PATH", "/opt/nsight/libToolsInjection64.so")
    fd.execute([a, b])
    assert events[-2:] == [("push", "fusion launch @tiny3"), ("pop",)]


def test_dump_launch_plan_for_the_inputs(fake_gpu, capsys):
    """FUSION_DUMP=launch prints the runtime's launch plan for the actual
    inputs; Executable.plan gives it as data."""
    fd = tiny3_fd()
    a, b = FakeTensor([1 << 20]), FakeTensor([1 << 20])
    fd.execute([a, b], dump="launch")
    out = capsys.readouterr().out
    assert out.startswith("===== fusion launch (@tiny3) =====\nlaunch 0: tiny3")
    exe = runtime.Executable(fd.last_execution["module"])
    (launch,) = exe.plan([a, b])
    assert f"grid={launch['grid']} block={launch['block']}" in out
    assert launch["block"][0] >= 32 and launch["grid"][0] >= 1
    small = exe.plan([FakeTensor([100]), FakeTensor([100])])
    assert small[0]["grid"][0] <= launch["grid"][0]


def test_subclass_schedule_is_the_default(fake_gpu):
    """A subclass's schedule() reaches the compiler (an unroll out of range
    fails there) unless execute's schedule overrides it."""
    class Unrolled(FusionDefinition):
        def definition(self):
            a = self.define_tensor([-1], DataType.Float32, name="a")
            self.add_output(self.ops.relu(a))

        def schedule(self):
            return {"unroll": 1000}

    fd = Unrolled()
    with pytest.raises(FusionError, match=r"the option unroll must be .*, got 1000"):
        fd.execute([FakeTensor([64])])
    (out,) = fd.execute([FakeTensor([64])], schedule={"unroll": 2})
    assert out.shape == (64,)


def test_execute_fast_path(fake_gpu):
    fd = tiny3_fd()
    a, b = FakeTensor([1024]), FakeTensor([1024])
    (out,) = fd.execute([a, b])
    assert out.shape == (1024,)
    assert fd.last_execution["cache_hit"] is False
    assert len(fake_gpu.checks) == 1
    for _ in range(3):
        a2, b2 = FakeTensor([1024]), FakeTensor([1024])
        (out,) = fd.execute([a2, b2])
        assert fd.last_execution == {"mode": "gpu", "cache_hit": True,
                                     "module": fd.last_execution["module"],
                                     "compile_cache_hit": fd.last_execution["compile_cache_hit"]}
    # The fast path neither re-checked nor re-compiled, and passed the new
    # pointers.
    assert len(fake_gpu.checks) == 1
    assert fake_gpu.launches[-1] == [a2.data_ptr(), b2.data_ptr()]
    assert cache_stats()["hits"] == 3 and cache_stats()["misses"] == 1
    # Other sizes: checked once more, same module.
    fd.execute([FakeTensor([5]), FakeTensor([5])])
    assert len(fake_gpu.checks) == 2 and fd.last_execution["cache_hit"] is True
    assert cache_stats()["misses"] == 1


def test_execute_bad_inputs_after_the_fast_path(fake_gpu):
    fd = tiny3_fd()
    a = FakeTensor([64])
    fd.execute([a, a])
    with pytest.raises(FusionInputError, match=r"input 1 \(b\): expected dtype f32, got float16"):
        fd.execute([a, FakeTensor([64], "float16")])
    with pytest.raises(FusionInputError, match="expected rank 1"):
        fd.execute([a, FakeTensor([8, 8])])
    with pytest.raises(FusionInputError, match="expected a tensor"):
        fd.execute([a, 1.0])
    with pytest.raises(FusionInputError, match="expects 2 inputs, got 1"):
        fd.execute([a])
    with pytest.raises(FusionInputError, match="several devices"):
        fd.execute([a, FakeTensor([64], device=-1)])
    n = len(fake_gpu.launches)
    (out,) = fd.execute([a, a])  # still works, on the fast path
    assert len(fake_gpu.launches) == n + 1 and out.shape == (64,)


def test_execute_clear_cache_and_dump(fake_gpu, monkeypatch, capsys):
    fd = tiny3_fd()
    a = FakeTensor([64])
    fd.execute([a, a])
    fd.execute([a, a])
    assert fd.last_execution["cache_hit"] is True
    clear_cache()
    fd.execute([a, a])
    assert fd.last_execution["cache_hit"] is False  # recompiled
    monkeypatch.setenv("FUSION_DUMP", "ir")
    fd.execute([a, a])
    assert "fusion.fusion @tiny3" in capsys.readouterr().out
    monkeypatch.delenv("FUSION_DUMP")
    checks = len(fake_gpu.checks)
    fd.execute([a, a])
    assert len(fake_gpu.checks) == checks  # fast again
    fd.execute([a, a], schedule={"unroll": 2})  # schedules take the full path
    assert len(fake_gpu.checks) == checks + 1


def test_execute_scalars_and_views(fake_gpu):
    fd = scaled_fd()
    a = FakeTensor([6, 4])
    out, view = fd.execute([a, 0.5])
    assert out.shape == (6, 4) and view.shape == (4, 6)
    assert view.data_ptr() == a.data_ptr()
    checks = len(fake_gpu.checks)
    fd.execute([a, 2.5])
    assert len(fake_gpu.checks) == checks
    with pytest.raises(FusionInputError, match="expected a scalar"):
        fd.execute([a, a])


def test_execute_scalar_out_of_range(fake_gpu):
    # The fast path keys a scalar's type, not its value: an out-of-range
    # value after a hit takes the full path and its FusionInputError.
    fd = offset_fd()
    a = FakeTensor([8], "int64")
    message = r"input 1 \(s\): value 18446744073709551616 is out of range for i64"
    with pytest.raises(FusionInputError, match=message):
        fd.execute([a, 2**64])
    fd.execute([a, 1])
    fd.execute([a, 2])
    assert len(fake_gpu.launches) == 2 and len(fake_gpu.checks) == 2
    with pytest.raises(FusionInputError, match=message):
        fd.execute([a, 2**64])
    with pytest.raises(FusionInputError, match="value -9223372036854775809 is out of range"):
        fd.execute([a, -2**63 - 1])
    assert len(fake_gpu.launches) == 2
    fd.execute([a, 2**63 - 1])  # still on the fast path
    assert len(fake_gpu.launches) == 3 and len(fake_gpu.checks) == 4


def norm_fds():
    """layer_norm over [8]: of a dynamic input, and of one expanded to an
    index scalar input's size."""
    with FusionDefinition("ln") as fd:
        x = fd.define_tensor([-1, -1], DataType.Float32, name="x")
        fd.add_output(fd.ops.layer_norm(x, [8]))
    with FusionDefinition("ln_n") as fn:
        x = fn.define_tensor([-1, 1], DataType.Float32, name="x")
        n = fn.define_scalar(dtype=DataType.Index, name="n")
        fn.add_output(fn.ops.layer_norm(fn.ops.expand(x, [-1, n]), [8]))
    return fd, fn


def check_norm_fds(fd, fn, launches):
    """Note [Shape checks] in frontend.py: normalized_shape against the
    sizes of inputs after hits (a hit skips check_inputs)."""
    for _ in range(2):
        fd.execute([FakeTensor([4, 8])])
        fn.execute([FakeTensor([4, 1]), 8])
    assert fd.last_execution["cache_hit"] and fn.last_execution["cache_hit"]
    n = len(launches)
    with pytest.raises(FusionInputError, match=r"layer_norm: given normalized_shape=\[8\], "
                                               r"expected input with shape \[\*, 8\], but got "
                                               r"input of size \[4, 5\]"):
        fd.execute([FakeTensor([4, 5])])
    with pytest.raises(FusionInputError, match=r"normalized_shape=\[8\].*size \[4, 5\]"):
        fn.execute([FakeTensor([4, 1]), 5])
    assert len(launches) == n
    fd.execute([FakeTensor([4, 8])])
    fn.execute([FakeTensor([4, 1]), 8])
    assert len(launches) == n + 2


def test_execute_normalized_shape_after_hits(fake_gpu):
    check_norm_fds(*norm_fds(), fake_gpu.launches)
