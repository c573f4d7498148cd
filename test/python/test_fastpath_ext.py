"""CPU tests of the C fast path, fusion._fastpath (lib/Python/fastpath.c,
Note [C fast path] in fusion/runtime.py): fake tensors (which only have the
attributes the C code reads) against the real libfusion_runtime.so and
modules from fusion-translate. A ctypes callback stands in for
fusion_executable_run_packed where a test needs to see what C passes;
elsewhere the real entry point runs and stops at its checks or at the
missing driver. Every error is compared with the ctypes path's
(FUSION_NO_FASTPATH / fastpath=False). GPU runs are in test_gpu.py."""
import contextlib
import ctypes
import gc
import os
import sys

import pytest

from test_runtime_fastpath import (FakeBackend, FakeTensor, _driver_present,
                                   count_input_checks,
                                   _fake_torch, compile_module, library,  # noqa: F401
                                   check_norm_fds, norm_fds, offset_fd, scaled_fd, sliced_fd,
                                   tiny3_fd, compiler_or_skip)

from fusion import (DataType, FusionDefinition, FusionError,
                    FusionInputError, clear_cache)
from fusion import execution, runtime


@pytest.fixture(scope="module")
def ext():
    module = runtime.load_fastpath()
    if module is None:
        if runtime.fastpath_disabled():
            pytest.skip("FUSION_NO_FASTPATH is set")
        pytest.skip(f"fusion._fastpath is not built ({runtime.fastpath_status()}); "
                    f"build FusionFastpath or set FUSION_FASTPATH_LIBRARY")
    return module


RUN_PACKED = ctypes.CFUNCTYPE(
    ctypes.c_int, ctypes.c_void_p, ctypes.POINTER(ctypes.c_void_p),
    ctypes.POINTER(ctypes.c_int64), ctypes.c_size_t, ctypes.POINTER(ctypes.c_void_p),
    ctypes.POINTER(ctypes.c_int64), ctypes.c_size_t, ctypes.c_void_p)
W = runtime.WORDS


class Recorder:
    """A C-callable stand-in for fusion_executable_run_packed that keeps
    what every call passed."""

    def __init__(self):
        self.calls = []

        @RUN_PACKED
        def run(handle, data, records, n, odata, out_records, m, stream):
            self.calls.append({
                "data": [data[i] for i in range(n)],
                "records": [records[i] for i in range(n * W)],
                "doubles": [ctypes.cast(records, ctypes.POINTER(ctypes.c_double))[i]
                            for i in range(n * W)],
                "odata": [odata[o] for o in range(m)],
                "out_records": None if not out_records else
                [out_records[i] for i in range(m * W)],
                "stream": stream})
            return 0

        self.run = run


def make_exe(path, fastpath=None, recorder=None, backend=None):
    backend = backend or FakeBackend()
    exe = runtime.Executable(path, backend=backend, fastpath=fastpath)
    if recorder is not None:
        exe._run_packed = recorder.run
    return exe, backend


@pytest.fixture
def tiny3_path(library, tmp_path):
    return compile_module(tiny3_fd(), tmp_path)


@pytest.fixture
def scaled_path(library, tmp_path):
    return compile_module(scaled_fd(), tmp_path)


def test_module(ext):
    assert ext.__file__.endswith(runtime.FASTPATH_NAME)
    assert (ext.VERSION, ext.PACKED_WORDS, ext.MAX_RANK) == (3, runtime.WORDS,
                                                             runtime.MAX_RANK)
    assert "loaded from" in runtime.fastpath_status()


def test_calls_go_through_c(ext, tiny3_path):
    rec = Recorder()
    exe, backend = make_exe(tiny3_path, recorder=rec)
    assert exe.fastpath and exe.fastpath_stats() is None
    a, b = FakeTensor([1000], strides=[3]), FakeTensor([1000])
    exe.call([a, b])  # binds in Python, adds to C
    assert exe.fastpath_stats() == {"entries": 1, "hits": 0, "misses": 0}
    for _ in range(3):
        a, b = FakeTensor([1000], strides=[3]), FakeTensor([1000])
        (out,) = exe.call([a, b])
        assert out.shape == (1000,) and out.stride() == (1,)
        call = rec.calls[-1]
        assert call["data"] == [a.data_ptr(), b.data_ptr()]
        assert call["odata"] == [out.data_ptr()]
        r = call["records"]
        assert (r[runtime.KIND], r[runtime.DTYPE], r[runtime.RANK]) == (0, 1, 1)
        assert r[runtime.SIZES] == 1000 and r[runtime.STRIDES] == 3
        assert r[W + runtime.STRIDES] == 1
        assert call["out_records"][runtime.NUM_ELEMENTS] == 1000
        assert call["stream"] is None  # the backend's stream 0
    assert exe.fastpath_stats()["hits"] == 3
    assert backend.allocations == 4
    # exe(...) and an explicit stream.
    (out,) = exe.call((a, b), stream=0x1234)
    assert rec.calls[-1]["stream"] == 0x1234
    assert exe(a, b).shape == (1000,)
    assert exe.fastpath_stats()["hits"] == 5
    # Another signature: a miss, bound in Python, then C again.
    c = FakeTensor([7])
    exe.call([c, c])
    exe.call([c, c])
    assert exe.fastpath_stats() == {"entries": 2, "hits": 6, "misses": 1}


def test_slice_views_through_c(ext, library, tmp_path):
    rec = Recorder()
    exe, backend = make_exe(compile_module(sliced_fd(), tmp_path), recorder=rec)
    base = FakeTensor([100])
    a = base.as_strided((6, 10), (12, 1), 7)
    for _ in range(3):  # bound in Python, then from C
        s, head = exe.call([a])
        assert rec.calls[-1]["odata"] == [None, None]  # views are passed as null
        assert s.shape == (5, 4) and s.stride() == (12, 2)
        assert s.storage_offset() == 21 and s.data_ptr() == base.data_ptr() + 21 * 4
        assert head.storage_offset() == 7 and head.data_ptr() == a.data_ptr()
    assert exe.fastpath_stats()["hits"] == 2
    assert backend.allocations == 0


def test_scalars_and_views(ext, scaled_path):
    rec = Recorder()
    exe, backend = make_exe(scaled_path, recorder=rec)
    a = FakeTensor([6, 4])
    exe.call([a, 0.5])
    for scale in (2.5, -3.25):
        out, view = exe.call([a, scale])
        call = rec.calls[-1]
        assert call["doubles"][W + runtime.VALUE] == scale
        assert call["odata"] == [out.data_ptr(), None]  # the view is passed as null
        assert view.shape == (4, 6) and view.stride() == (1, 4)
        assert view.data_ptr() == a.data_ptr()
    hits = exe.fastpath_stats()["hits"]
    assert hits == 2
    # An int for the f32 scalar is another signature (as in Python's key).
    exe.call([a, 2])
    exe.call([a, 3])
    assert rec.calls[-1]["doubles"][W + runtime.VALUE] == 3.0
    assert exe.fastpath_stats()["hits"] == hits + 1
    # ScalarArg and numpy-like scalars stay on the ctypes path.
    n = len(rec.calls)
    exe.call([a, runtime.ScalarArg(1.5, "f32")])
    exe.call([a, runtime.ScalarArg(1.5, "f32")])
    assert len(rec.calls) == n + 2
    assert exe.fastpath_stats()["hits"] == hits + 1


def test_out_of_range_values_match_ctypes(ext, library, tmp_path):
    # Note [Scalar ranges] in runtime.py: the C code reads ints as int64
    # with overflow detection; a scalar, size or stride outside int64 is
    # not keyed there, and the ctypes path raises (before: it wrote them
    # modulo 2^64).
    path = compile_module(offset_fd(), tmp_path)
    a = FakeTensor([8], "int64")
    for call, message in [
            (lambda exe: exe.call([a, 2**64]), "input 1 (s): value 18446744073709551616 "
                                               "is out of range for i64"),
            (lambda exe: exe.call([a, -2**63 - 1]), "value -9223372036854775809 is out"),
            (lambda exe: exe.call([FakeTensor([2**63], "int64", ptr=0x1000), 1]),
             "input 0 (a): dim 0 size 9223372036854775808 is out of range"),
            (lambda exe: exe.call([FakeTensor([8], "int64", strides=[2**64]), 1]),
             "input 0 (a): dim 0 stride 18446744073709551616 is out of range"),
            (lambda exe: exe.run([a, 1], [FakeTensor([8], "int64", strides=[2**63])]),
             "output 0: dim 0 stride 9223372036854775808 is out of range")]:
        errors = []
        for fastpath in (True, False):
            rec = Recorder()
            exe, backend = make_exe(path, fastpath=fastpath, recorder=rec)
            exe.call([a, 1])
            exe.call([a, 2**63 - 1])  # a hit through C
            assert rec.calls[-1]["records"][W + runtime.VALUE] == 2**63 - 1
            assert exe.fastpath_stats() == ({"entries": 1, "hits": 1, "misses": 0}
                                            if fastpath else None)
            errors.append(_error(lambda: call(exe)))
            assert len(rec.calls) == 2  # nothing launched
        assert errors[0].name == errors[1].name == "InvalidArgument"
        assert str(errors[0]) == str(errors[1]) and message in str(errors[0])


def test_provided_outputs(ext, tiny3_path):
    rec = Recorder()
    exe, backend = make_exe(tiny3_path, recorder=rec)
    a = FakeTensor([64])
    outs = exe.empty_outputs([a, a])
    allocations = backend.allocations
    assert exe.run([a, a], outs) is outs
    assert exe.fastpath_stats()["hits"] == 1
    call = rec.calls[-1]
    assert call["odata"] == [outs[0].data_ptr()]
    o = call["out_records"]
    assert (o[runtime.DTYPE], o[runtime.RANK], o[runtime.SIZES], o[runtime.STRIDES]) == \
        (1, 1, 64, 1)
    assert backend.allocations == allocations


def _error(fn):
    with pytest.raises(FusionError) as e:
        fn()
    return e.value


def _both(path, fn, **kw):
    """The error of fn(exe) through C and through ctypes."""
    errors, allocated = [], []
    for fastpath in (True, False):
        exe, backend = make_exe(path, fastpath=fastpath, **kw)
        exe.empty_outputs([FakeTensor([8]), FakeTensor([8])])  # bound: C has an entry
        allocations = backend.allocations
        errors.append(_error(lambda: fn(exe)))
        # Nothing is returned; outputs are allocated (and dropped) only when
        # the runtime itself fails, on both paths alike.
        allocated.append(backend.allocations - allocations)
        (out,) = exe.empty_outputs([FakeTensor([8]), FakeTensor([8])])  # still usable
        assert out.shape == (8,)
    assert allocated[0] == allocated[1]
    assert str(errors[0]) == str(errors[1]) and errors[0].name == errors[1].name
    assert type(errors[0]) is type(errors[1])
    return errors[0]


@pytest.mark.parametrize("inputs, name, message", [
    (lambda: [FakeTensor([8]), FakeTensor([8], "float16")], "WrongDType",
     "input 1 (b): expected dtype f32, got f16"),
    (lambda: [FakeTensor([8, 8]), FakeTensor([8])], "WrongRank",
     "input 0 (a): expected rank 1, got 2"),
    (lambda: [FakeTensor([8]), 1.0], "WrongInputKind",
     "input 1 (b): expected a tensor, got float"),
    (lambda: [FakeTensor([8]), object()], "WrongInputKind",
     "input 1 (b): expected a tensor, got object"),
    (lambda: [FakeTensor([8], device=-1), FakeTensor([8])], "InvalidArgument",
     "input 0 (a): expected a CUDA tensor, got a tensor on cpu"),
    (lambda: [FakeTensor([8]), FakeTensor([8], device=1)], "InvalidArgument",
     "input 1 (b): on cuda:1, but input 0 (a) is on cuda:0"),
    (lambda: [FakeTensor([8]), FakeTensor([8], "complex64")], "WrongDType",
     "input 1 (b): expected dtype f32, got unsupported dtype complex64"),
    (lambda: [FakeTensor([8])], "WrongInputCount",
     "wrong number of inputs: expected 2, got 1"),
    (lambda: [FakeTensor([8])] * 3, "WrongInputCount",
     "wrong number of inputs: expected 2, got 3"),
    (lambda: [FakeTensor([8] * 9), FakeTensor([8])], "WrongRank",
     "input 0 (a): expected rank 1, got 9"),
    (lambda: [FakeTensor([8], ptr=0), FakeTensor([8])], "NullPointer",
     "input 0 (a): null data pointer for a tensor of 8 elements"),
])
def test_bad_inputs_match_ctypes(ext, tiny3_path, inputs, name, message):
    e = _both(tiny3_path, lambda exe: exe.call(inputs()))
    assert e.name == name and message in str(e)


def test_runtime_errors_on_a_hit_match_ctypes(ext, tiny3_path):
    if _driver_present():
        pytest.skip("libcuda.so.1 is loadable here; test_gpu.py covers the launch")
    e = _both(tiny3_path, lambda exe: exe.call([FakeTensor([8]), FakeTensor([8])]))
    assert e.name == "DriverUnavailable" and "CUDA driver not available" in str(e)
    e = _both(tiny3_path, lambda exe: exe.run([FakeTensor([8]), FakeTensor([8])],
                                              [FakeTensor([8])]))
    assert e.name == "DriverUnavailable"


@pytest.mark.parametrize("outputs, message", [
    (lambda: [FakeTensor([7])], "output 0: dim 0 expected 8, got 7"),
    (lambda: [FakeTensor([8], "float16")], "output 0: expected dtype f32, got f16"),
    (lambda: [FakeTensor([8], "complex64")], "output 0: expected dtype f32"),
    (lambda: [FakeTensor([8, 1])], "output 0"),
    (lambda: [FakeTensor([8]), FakeTensor([8])],
     "wrong number of outputs: expected 1, got 2"),
    (lambda: [], "wrong number of outputs: expected 1, got 0"),
])
def test_bad_outputs_match_ctypes(ext, tiny3_path, outputs, message):
    e = _both(tiny3_path, lambda exe: exe.run([FakeTensor([8]), FakeTensor([8])], outputs()))
    assert message in str(e)


class DeviceBackend(FakeBackend):
    """A fake backend whose device guard switches the current device."""

    def __init__(self):
        super().__init__()
        self.current = 0

    def current_device(self):
        return self.current

    @contextlib.contextmanager
    def device_guard(self, index):
        self.guards.append(index)
        previous, self.current = self.current, index
        try:
            yield
        finally:
            self.current = previous


def test_another_current_device_takes_the_python_path(ext, tiny3_path):
    rec = Recorder()
    exe, backend = make_exe(tiny3_path, recorder=rec, backend=DeviceBackend())
    a = FakeTensor([8], device=1)
    exe.call([a, a])
    exe.call([a, a])
    # The current device is 0: C hands the call to Python, which switches
    # the device.
    assert backend.guards == [1, 1]
    assert exe.fastpath_stats()["hits"] == 0 and len(rec.calls) == 2
    backend.current = 1
    exe.call([a, a])
    assert backend.guards == [1, 1] and exe.fastpath_stats()["hits"] == 1


CURRENT_CONTEXT = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.POINTER(ctypes.c_void_p))


class ContextBackend(DeviceBackend):
    """A fake backend with a stand-in for cuCtxGetCurrent (Note [Context
    check] in fastpath.c): the context of device d is 0x1000 + d, and every
    current_device() call is counted."""

    def __init__(self):
        super().__init__()
        self.device_calls = 0
        self.context = None  # None: the current device's

        @CURRENT_CONTEXT
        def current_context(out):
            out[0] = self.context if self.context is not None else 0x1000 + self.current
            return 0

        self._current_context = current_context
        self.current_context_address = ctypes.cast(current_context, ctypes.c_void_p).value

    def current_device(self):
        self.device_calls += 1
        return self.current


def test_context_check_replaces_the_device_call(ext, tiny3_path):
    rec = Recorder()
    exe, backend = make_exe(tiny3_path, recorder=rec, backend=ContextBackend())
    a = FakeTensor([8])
    exe.call([a, a])  # bound in Python; added while device 0 is current
    calls = backend.device_calls
    for _ in range(3):
        exe.call([a, a])
    # The context matched: no current_device() call per hit.
    assert backend.device_calls == calls and exe.fastpath_stats()["hits"] == 3
    # Another context (another device made current, or another thread):
    # the device call decides; device 0 is still current, so C serves it.
    backend.context = 0x2000
    exe.call([a, a])
    assert backend.device_calls == calls + 1 and exe.fastpath_stats()["hits"] == 4
    # Device 1 current: C hands the call to Python, which switches devices.
    backend.context = None
    backend.current = 1
    exe.call([a, a])
    assert backend.guards == [0] and exe.fastpath_stats()["hits"] == 4
    assert len(rec.calls) == 6


def test_no_context_is_kept_for_another_current_device(ext, tiny3_path):
    # Bound and added while device 0 is current, for tensors on device 1:
    # the entry must not keep device 0's context, or a later call with
    # device 0 current would launch there.
    rec = Recorder()
    exe, backend = make_exe(tiny3_path, recorder=rec, backend=ContextBackend())
    c = FakeTensor([9], device=1)
    exe.call([c, c])
    assert backend.guards == [1]
    exe.call([c, c])  # device 0 still current: Python switches devices
    assert backend.guards == [1, 1] and exe.fastpath_stats()["hits"] == 0
    backend.current = 1
    calls = backend.device_calls
    exe.call([c, c])  # device 1 current: C, after asking for the device
    assert backend.guards == [1, 1] and exe.fastpath_stats()["hits"] == 1
    assert backend.device_calls == calls + 1
    assert len(rec.calls) == 3


def test_no_fastpath_env(ext, tiny3_path, monkeypatch):
    monkeypatch.setenv("FUSION_NO_FASTPATH", "1")
    assert runtime.load_fastpath() is None
    assert runtime.fastpath_status().startswith("off")
    exe, _ = make_exe(tiny3_path)
    assert not exe.fastpath
    exe.empty_outputs([FakeTensor([8]), FakeTensor([8])])
    assert exe.fastpath_stats() is None
    with pytest.raises(FusionError, match="FastPathUnavailable"):
        make_exe(tiny3_path, fastpath=True)
    monkeypatch.setenv("FUSION_NO_FASTPATH", "0")
    assert make_exe(tiny3_path)[0].fastpath


def test_python_run_stand_in_turns_c_off(ext, tiny3_path):
    exe, _ = make_exe(tiny3_path)
    exe._run_packed = lambda *args: 0  # a Python function: C cannot call it
    assert not exe.fastpath
    exe.call([FakeTensor([8]), FakeTensor([8])])
    exe.call([FakeTensor([8]), FakeTensor([8])])
    assert exe.fastpath_stats() is None


def test_no_reference_leaks(ext, scaled_path):
    rec = Recorder()
    exe, backend = make_exe(scaled_path, recorder=rec)
    a = FakeTensor([6, 4])
    inputs = [a, 0.5]
    bad = [a, a]

    def loop(times):
        for _ in range(times):
            exe.call(inputs)
            with contextlib.suppress(FusionError):
                exe.call(bad)  # not keyable: the ctypes path raises

    loop(20)
    gc.collect()
    dtype, shape = a.dtype, a.shape
    counts = (sys.getrefcount(a), sys.getrefcount(dtype), sys.getrefcount(shape),
              sys.getrefcount(inputs[1]))
    loop(300)
    gc.collect()
    assert (sys.getrefcount(a), sys.getrefcount(dtype), sys.getrefcount(shape),
            sys.getrefcount(inputs[1])) == counts
    assert exe.fastpath_stats()["hits"] == 319


def test_cache_direct(ext, tiny3_path):
    rec = Recorder()
    exe, backend = make_exe(tiny3_path, recorder=rec)
    cache = ext.Cache((0, 0), runtime._dtype_codes(backend), backend, FusionError,
                      0, 0, 3)
    assert cache.call([FakeTensor([8]), FakeTensor([8])]) is None  # nothing added
    assert cache.call("not a sequence") is None
    assert cache.call([1, 2]) is None
    for n in range(1, 6):  # at most 3 entries: starts over when full
        inputs = [FakeTensor([n]), FakeTensor([n])]
        assert exe.fast_add(cache, inputs, exe.signature(inputs))
        assert cache.stats()["entries"] <= 3
    inputs = [FakeTensor([5]), FakeTensor([5])]
    (out,) = cache.call(inputs, None, None, None)
    assert out.shape == (5,)
    assert not exe.fast_add(cache, [FakeTensor([5]), runtime.ScalarArg(1, "f32")],
                            exe.signature(inputs))
    with pytest.raises(ValueError, match="records do not match"):
        cache.add(inputs, 0, 1, b"", b"", None, 0, (), None, None)
    with pytest.raises(TypeError):
        cache.call()
    cache.clear()
    assert cache.stats()["entries"] == 0
    assert cache.call(inputs) is None


class LikeBackend(FakeBackend):
    """A backend with empty_like (Note [Outputs like an input])."""
    tensor_type = FakeTensor

    def __init__(self):
        super().__init__()
        self.like = []

    def empty_like(self, x):
        self.like.append(x)
        return FakeTensor(x.shape, x.dtype.name, x.get_device())


class SubTensor(FakeTensor):
    pass


def test_outputs_like_an_input(ext, tiny3_path, tmp_path):
    rec = Recorder()
    exe, backend = make_exe(tiny3_path, recorder=rec, backend=LikeBackend())

    def hit(inputs):
        exe.call(inputs)  # binds in Python (empty()) or hits
        like, allocations = len(backend.like), backend.allocations
        (out,) = exe.call(inputs)
        assert rec.calls[-1]["odata"] == [out.data_ptr()]
        assert out.shape == inputs[0].shape and out.stride() == (1,)
        return len(backend.like) - like, backend.allocations - allocations

    # Both inputs contiguous: empty_like(first input) on a hit.
    a, b = FakeTensor([64]), FakeTensor([64])
    assert hit([a, b]) == (1, 0) and backend.like[-1] is a
    # The first strided, the second contiguous: the second.
    s = FakeTensor([64], strides=[2])
    assert hit([s, b]) == (1, 0) and backend.like[-1] is b
    # Neither contiguous: empty().
    assert hit([s, s]) == (0, 1)
    # A subclass of the tensor type, same signature as (a, b): empty().
    assert hit([SubTensor([64]), SubTensor([64])]) == (0, 1)
    # An output of another dtype than the inputs': empty().
    with FusionDefinition("halved") as fd:
        x = fd.define_tensor([-1], DataType.Float32, name="x")
        fd.add_output(fd.ops.cast(x, DataType.Half))
    half, half_backend = make_exe(compile_module(fd, tmp_path), recorder=rec,
                                  backend=LikeBackend())
    x = FakeTensor([64])
    half.call([x])
    (out,) = half.call([x])
    assert out.dtype.name == "float16"
    assert half_backend.like == [] and half_backend.allocations == 2
    # Without empty_like the backend's empty() serves every output.
    plain, plain_backend = make_exe(tiny3_path, recorder=rec)
    plain.call([a, b])
    plain.call([a, b])
    assert plain_backend.allocations == 2


# --- FusionDefinition.execute through C ---------------------------------------------


@pytest.fixture
def fake_gpu_c(ext, library, monkeypatch):
    """FusionDefinition.execute on fake CUDA tensors with a C-callable
    stand-in for the launch, so that hits go through fusion._fastpath."""
    compiler_or_skip()
    backend = FakeBackend()
    monkeypatch.setitem(sys.modules, "torch", _fake_torch(backend))
    monkeypatch.setattr(runtime, "_torch_backend", None)
    rec = Recorder()

    class RecordingExecutable(runtime.Executable):
        def __init__(self, path, library=None, backend=None, fastpath=None):
            super().__init__(path, library, backend, fastpath)
            self._run_packed = rec.run

    monkeypatch.setattr(runtime, "Executable", RecordingExecutable)
    checks = count_input_checks(monkeypatch)
    clear_cache()
    yield rec, checks, backend
    clear_cache()


def test_execute_through_c(fake_gpu_c):
    rec, checks, backend = fake_gpu_c
    fd = tiny3_fd()
    a = FakeTensor([1024])
    fd.execute([a, a])
    native = fd._fast_path.native
    assert native is not None and native.stats()["entries"] == 1
    fd.last_execution = None
    # Hits never reach the Python layers (Note [Lean execute]).
    slow = []
    real_execute = execution.execute
    execution.execute = lambda *args, **kwargs: slow.append(1) or real_execute(*args, **kwargs)
    try:
        for _ in range(3):
            a2, b2 = FakeTensor([1024]), FakeTensor([1024])
            (out,) = fd.execute((a2, b2))
    finally:
        execution.execute = real_execute
    assert slow == []
    for _ in range(3):
        a2, b2 = FakeTensor([1024]), FakeTensor([1024])
        (out,) = fd.execute([a2, b2])
        assert out.shape == (1024,)
        assert rec.calls[-1]["data"] == [a2.data_ptr(), b2.data_ptr()]
        assert fd.last_execution == {"mode": "gpu", "cache_hit": True,
                                     "module": fd.last_execution["module"],
                                     "compile_cache_hit": fd.last_execution["compile_cache_hit"]}
    assert native.stats()["hits"] == 6 and len(checks) == 1
    assert execution.cache_stats()["hits"] == 6
    # Bad inputs after hits: the full path's FusionInputErrors.
    with pytest.raises(FusionInputError, match=r"input 1 \(b\): expected dtype f32, got float16"):
        fd.execute([a, FakeTensor([1024], "float16")])
    with pytest.raises(FusionInputError, match="expected rank 1"):
        fd.execute([a, FakeTensor([8, 8])])
    with pytest.raises(FusionInputError, match="expected a tensor"):
        fd.execute([a, 1.0])
    with pytest.raises(FusionInputError, match="expects 2 inputs, got 1"):
        fd.execute([a])
    with pytest.raises(FusionInputError, match="several devices"):
        fd.execute([a, FakeTensor([1024], device=-1)])
    fd.execute([a, a])
    assert native.stats()["hits"] == 7
    # $FUSION_DUMP takes the full path (which dumps), then C again.
    os.environ["FUSION_DUMP"] = "plan"
    try:
        fd.execute([a, a])
    finally:
        del os.environ["FUSION_DUMP"]
    assert native.stats()["hits"] == 7 and len(checks) == 7
    fd.execute([a, a])
    assert native.stats()["hits"] == 8
    clear_cache()
    assert fd._fast_path.native is None
    assert execution.cache_stats()["hits"] == 0


def _python_calls_of(code, fn):
    """How many times Python frames of `code` start while fn() runs."""
    seen = []

    def profile(frame, event, arg):
        if event == "call" and frame.f_code is code:
            seen.append(1)

    sys.setprofile(profile)
    try:
        fn()
    finally:
        sys.setprofile(None)
    return len(seen)


def test_c_execute(fake_gpu_c):
    """Note [C execute]: after the first run, fd.execute is a builtin over the
    definition's C cache; anything but a hit takes FusionDefinition.execute."""
    rec, checks, backend = fake_gpu_c
    fd = tiny3_fd()
    py_execute = FusionDefinition.execute
    assert "execute" not in fd.__dict__
    a = FakeTensor([1024])
    fd.execute([a, a])
    bound = fd.__dict__["execute"]
    assert type(bound).__name__ == "builtin_function_or_method"
    assert fd.execute is bound and bound.__name__ == "execute"
    import inspect
    assert str(inspect.signature(bound)) == str(inspect.signature(py_execute)).replace(
        "(self, ", "(")
    native = fd._fast_path.native
    # A hit starts no Python frame of FusionDefinition.execute.
    frames = _python_calls_of(py_execute.__code__, lambda: fd.execute([a, a]))
    assert frames == 0 and native.stats()["hits"] == 1
    assert fd.last_execution["cache_hit"] is True
    assert rec.calls[-1]["data"] == [a.data_ptr(), a.data_ptr()]
    # Keywords, $FUSION_DUMP and bad inputs go through the Python method,
    # with its results and errors.
    frames = _python_calls_of(py_execute.__code__, lambda: fd.execute([a, a], dump="plan"))
    assert frames == 1 and native.stats()["hits"] == 1
    os.environ["FUSION_DUMP"] = "plan"
    try:
        assert _python_calls_of(py_execute.__code__, lambda: fd.execute([a, a])) == 1
    finally:
        del os.environ["FUSION_DUMP"]
    os.environ["FUSION_DUMP"] = ""  # empty: not a dump request
    try:
        assert _python_calls_of(py_execute.__code__, lambda: fd.execute([a, a])) == 0
    finally:
        del os.environ["FUSION_DUMP"]
    with pytest.raises(FusionInputError, match="expects 2 inputs, got 1"):
        fd.execute([a])
    with pytest.raises(TypeError):
        fd.execute()
    with pytest.raises(TypeError):
        fd.execute([a, a], nonsense=1)
    hits = native.stats()["hits"]
    # clear_cache clears the cache the builtin holds: it misses, the Python
    # method runs and binds the definition's new cache.
    clear_cache()
    assert native.stats()["entries"] == 0
    assert _python_calls_of(py_execute.__code__, lambda: fd.execute([a, a])) == 1
    assert fd.execute is not bound and fd._fast_path.native is not native
    assert _python_calls_of(py_execute.__code__, lambda: fd.execute([a, a])) == 0
    assert native.stats()["hits"] == hits
    # The builtin holds its definition weakly (its state is not tracked by
    # the cycle collector, so a strong reference would keep the definition
    # forever), and a builtin that outlives it says so.
    f = fd.execute
    ref = __import__("weakref").ref(fd)
    del fd
    gc.collect()
    assert ref() is None
    with pytest.raises(ReferenceError, match="no longer exists"):
        f([a, a])


def test_c_execute_is_not_copied(fake_gpu_c):
    import copy
    rec, checks, backend = fake_gpu_c
    fd = tiny3_fd()
    a = FakeTensor([64])
    fd.execute([a, a])
    assert "execute" in fd.__dict__
    twin = copy.copy(fd)
    assert "execute" not in twin.__dict__
    twin.last_execution = fd.last_execution = None
    twin.execute([a, a])
    assert twin.last_execution is not None and fd.last_execution is None
    assert rec.calls[-1]["data"] == [a.data_ptr(), a.data_ptr()]


def test_c_execute_not_for_a_subclass_that_overrides_execute(fake_gpu_c):
    rec, checks, backend = fake_gpu_c

    class Counting(FusionDefinition):
        calls = 0

        def execute(self, inputs, **kwargs):
            Counting.calls += 1
            return super().execute(inputs, **kwargs)

    with Counting("counting") as fd:
        x = fd.define_tensor([-1], DataType.Float32, name="x")
        fd.add_output(fd.ops.relu(x))
    a = FakeTensor([64])
    for _ in range(3):
        fd.execute([a])
    assert "execute" not in fd.__dict__ and Counting.calls == 3
    assert len(rec.calls) == 3


def test_execute_scalars_and_views_through_c(fake_gpu_c):
    rec, checks, backend = fake_gpu_c
    fd = scaled_fd()
    a = FakeTensor([6, 4])
    fd.execute([a, 0.5])
    out, view = fd.execute([a, 2.5])
    assert rec.calls[-1]["doubles"][W + runtime.VALUE] == 2.5
    assert view.data_ptr() == a.data_ptr() and view.shape == (4, 6)
    assert fd._fast_path.native.stats()["hits"] == 1 and len(checks) == 1
    with pytest.raises(FusionInputError, match="expected a scalar"):
        fd.execute([a, a])


def test_execute_no_fastpath_env(fake_gpu_c, monkeypatch):
    rec, checks, backend = fake_gpu_c
    monkeypatch.setenv("FUSION_NO_FASTPATH", "1")
    fd = tiny3_fd()
    a = FakeTensor([64])
    fd.execute([a, a])
    fd.execute([a, a])
    assert fd._fast_path.native is None
    assert len(checks) == 1 and len(rec.calls) == 2  # the ctypes fast path


def test_execute_scalar_out_of_range_through_c(fake_gpu_c):
    # fd.execute's C builtin (Note [C execute]) passes what C does not key
    # to the Python method: its checks raise.
    rec, checks, backend = fake_gpu_c
    fd = offset_fd()
    a = FakeTensor([8], "int64")
    fd.execute([a, 1])
    fd.execute([a, 2])
    assert type(fd.__dict__["execute"]).__name__ == "builtin_function_or_method"
    assert fd._fast_path.native.stats()["hits"] == 1 and len(rec.calls) == 2
    for value in (2**64, -2**63 - 1):
        with pytest.raises(FusionInputError,
                           match=rf"input 1 \(s\): value {value} is out of range for i64"):
            fd.execute([a, value])
    assert len(rec.calls) == 2
    fd.execute([a, -2**63])
    assert rec.calls[-1]["records"][W + runtime.VALUE] == -2**63
    assert fd._fast_path.native.stats()["hits"] == 2


def test_execute_normalized_shape_through_c(fake_gpu_c):
    rec, checks, backend = fake_gpu_c
    fd, fn = norm_fds()
    check_norm_fds(fd, fn, rec.calls)
    assert fd._fast_path.native.stats()["hits"] >= 2
    assert fn._fast_path.native.stats()["hits"] >= 2
