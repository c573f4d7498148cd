"""GPU tests of FusionDefinition.execute on torch CUDA tensors: compiled in
process, run by the runtime, checked against torch eager. Skipped without
torch or a CUDA device."""
import pytest

torch = pytest.importorskip("torch", reason="GPU tests need PyTorch")
if not torch.cuda.is_available():
    pytest.skip("GPU tests need a CUDA device (torch.cuda.is_available() is False)",
                allow_module_level=True)

import torch.nn.functional as F  # noqa: E402

from fusion import (DataType, FusionCompileError, FusionDefinition,  # noqa: E402
                    FusionInputError, cache_stats)


@pytest.fixture(autouse=True)
def _needs_the_compiler():
    from fusion import _compiler
    try:
        _compiler.library_path()
    except FusionCompileError as e:
        pytest.skip(str(e))


def add_relu_fd():
    with FusionDefinition("add_relu") as fd:
        a = fd.define_tensor([-1, -1], DataType.Float32, name="a")
        b = fd.define_tensor([-1, -1], DataType.Float32, name="b")
        fd.add_output(fd.ops.relu(fd.ops.add(a, b)))
    return fd


def test_add_relu():
    a = torch.randn(1000, 513, device="cuda")
    b = torch.randn(1000, 513, device="cuda")
    (out,) = add_relu_fd().execute([a, b])
    assert out.is_cuda and out.dtype == torch.float32 and out.shape == a.shape
    torch.testing.assert_close(out, torch.relu(a + b))


def test_gelu_bias_bf16():
    with FusionDefinition("gelu_bias") as fd:
        x = fd.define_tensor([-1, -1], "bf16", name="x")
        bias = fd.define_tensor([-1], "bf16", name="bias")
        fd.add_output(fd.ops.gelu(fd.ops.add(x, bias), approximate="tanh"))
    x = torch.randn(256, 1024, device="cuda", dtype=torch.bfloat16)
    bias = torch.randn(1024, device="cuda", dtype=torch.bfloat16)
    (out,) = fd.execute([x, bias])
    assert out.dtype == torch.bfloat16
    torch.testing.assert_close(out, F.gelu(x + bias, approximate="tanh"),
                               atol=2e-2, rtol=2e-2)


def test_broadcast_and_promotion():
    with FusionDefinition("bcast") as fd:
        x = fd.define_tensor([-1, -1], "f16")
        v = fd.define_tensor([-1, 1], "f32")
        fd.add_output(fd.ops.mul(fd.ops.add(x, v), 0.5))
    x = torch.randn(64, 96, device="cuda", dtype=torch.float16)
    v = torch.randn(64, 1, device="cuda")
    (out,) = fd.execute([x, v])
    assert out.dtype == torch.float32
    torch.testing.assert_close(out, (x + v) * 0.5)


def test_non_contiguous_inputs():
    a = torch.randn(300, 200, device="cuda").t()          # transposed
    b = torch.randn(200, 600, device="cuda")[:, ::2]      # strided
    (out,) = add_relu_fd().execute([a, b])
    torch.testing.assert_close(out, torch.relu(a + b))


def test_schedule_override():
    a = torch.randn(4096, 33, device="cuda")
    (out,) = add_relu_fd().execute([a, a], schedule={"unroll": 2, "blocks_per_sm": 2})
    torch.testing.assert_close(out, torch.relu(a + a))


def test_wrong_device_and_dtype():
    fd = add_relu_fd()
    a = torch.randn(8, 8, device="cuda")
    with pytest.raises(FusionInputError, match="several devices"):
        fd.execute([a, torch.randn(8, 8)])
    with pytest.raises(FusionInputError, match="expected dtype f32, got float16"):
        fd.execute([a, a.half()])
    with pytest.raises(FusionInputError, match="expected rank 2"):
        fd.execute([a, a[0]])
    with pytest.raises(FusionInputError, match="expected a tensor"):
        fd.execute([a, 1.0])


def test_cache_hit_on_second_call():
    fd = add_relu_fd()
    a = torch.randn(128, 64, device="cuda")
    before = cache_stats()
    fd.execute([a, a])
    first = fd.last_execution["cache_hit"]
    fd.execute([torch.randn(7, 9, device="cuda")] * 2)  # other sizes: same module
    assert fd.last_execution["cache_hit"]
    after = cache_stats()
    assert after["hits"] >= before["hits"] + 1
    # A new definition with the same IR shares the compiled module.
    fd2 = add_relu_fd()
    fd2.execute([a, a])
    assert fd2.last_execution["cache_hit"]
    assert first in (True, False)


# --- the fast path (Note [Python fast path] in fusion/runtime.py) -------------------


def tiny3_fd():
    with FusionDefinition("tiny3") as fd:
        a = fd.define_tensor([-1], DataType.Float32, name="a")
        b = fd.define_tensor([-1], DataType.Float32, name="b")
        fd.add_output(fd.ops.relu(fd.ops.add(fd.ops.mul(a, b), a)))
    return fd


def test_fast_path_three_op_fusion():
    fd = tiny3_fd()
    results = []
    for i in range(5):
        a = torch.randn(1024, device="cuda")
        b = torch.randn(1024, device="cuda")
        (out,) = fd.execute([a, b])
        results.append((out, torch.relu(a * b + a)))
        if i:
            assert fd.last_execution["cache_hit"]
    # Every call got its own output, none overwritten by a later call.
    for out, expected in results:
        torch.testing.assert_close(out, expected)
    assert len({o.data_ptr() for o, _ in results}) == len(results)
    # Other sizes and strides through the same definition.
    for n in (1, 1023, 4097, 0):
        a, b = torch.randn(n, device="cuda"), torch.randn(n, device="cuda")
        (out,) = fd.execute([a, b])
        torch.testing.assert_close(out, torch.relu(a * b + a))
    a = torch.randn(4096, device="cuda")[::2]
    b = torch.randn(2048, device="cuda")
    (out,) = fd.execute([a, b])
    torch.testing.assert_close(out, torch.relu(a * b + a))


def test_fast_path_on_a_side_stream():
    fd = tiny3_fd()
    a = torch.randn(1 << 20, device="cuda")
    b = torch.randn(1 << 20, device="cuda")
    fd.execute([a, b])
    stream = torch.cuda.Stream()
    stream.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(stream):
        (out,) = fd.execute([a, b])
        expected = torch.relu(a * b + a)
    stream.synchronize()
    torch.testing.assert_close(out, expected)


def test_fast_path_scalar_and_view_outputs():
    with FusionDefinition("scaled") as fd:
        a = fd.define_tensor([-1, -1], DataType.Float32, name="a")
        s = fd.define_scalar(dtype=DataType.Float32)
        fd.add_output(fd.ops.mul(a, s))
        fd.add_output(fd.ops.permute(a, [1, 0]))
    x = torch.randn(64, 48, device="cuda")
    for scale in (0.5, 2.0, -3.25):
        out, view = fd.execute([x, scale])
        torch.testing.assert_close(out, x * scale)
        assert view.data_ptr() == x.data_ptr()
        torch.testing.assert_close(view, x.t())


def test_executable_call_run_and_errors():
    from fusion import FusionError, runtime
    fd = tiny3_fd()
    a = torch.randn(1024, device="cuda")
    b = torch.randn(1024, device="cuda")
    fd.execute([a, b])
    exe = runtime.Executable(fd.last_execution["module"])
    torch.testing.assert_close(exe(a, b), torch.relu(a * b + a))
    outs = exe.empty_outputs([a, b])
    exe.run([a, b], outs)
    torch.testing.assert_close(outs[0], torch.relu(a * b + a))
    with pytest.raises(FusionError, match="output 0: dim 0 expected 1024, got 1000"):
        exe.run([a, b], [torch.empty(1000, device="cuda")])
    with pytest.raises(FusionError, match=r"input 1 \(b\): expected dtype f32, got f16"):
        exe(a, b.half())
    with pytest.raises(FusionError, match="expected a CUDA tensor"):
        exe(a, b.cpu())
    with pytest.raises(FusionError, match="expected a tensor, got float"):
        exe(a, 1.0)
    torch.testing.assert_close(exe(a, b), torch.relu(a * b + a))
    stats = exe.cache_stats()
    assert stats["misses"] == 1 and stats["hits"] >= 3


def test_launch_graphs_on_a_two_kernel_fusion():
    """Note [Launch graphs] (lib/Runtime/Executable.cpp): a column mean
    subtracted from each row takes two kernels; from the second call on they
    run as one graph, with the nodes updated for new tensors."""
    from fusion import runtime
    with FusionDefinition("outer_center") as fd:
        x = fd.define_tensor([-1, -1], DataType.Float32, name="x")
        mean = fd.ops.div(fd.ops.sum(x, [0], keepdim=True), 4096.0)
        fd.add_output(fd.ops.sub(x, mean))
    xs = [torch.randn(4096, 1000, device="cuda") for _ in range(3)]
    fd.execute([xs[0]])
    exe = runtime.Executable(fd.last_execution["module"])
    for i in [0, 0, 1, 2, 1, 0]:
        torch.testing.assert_close(exe(xs[i]), xs[i] - xs[i].sum(0, keepdim=True) / 4096)
    stats = exe.graph_stats()
    assert stats["built"] == 1 and stats["direct"] == 1, stats
    assert stats["launches"] == 5 and stats["node_updates"] > 0, stats
    exe.set_launch_graphs(False)
    torch.testing.assert_close(exe(xs[2]), xs[2] - xs[2].sum(0, keepdim=True) / 4096)
    assert exe.graph_stats()["direct"] == 2 and exe.graph_stats()["entries"] == 0


def test_raw_launch_floor_and_host_overhead_bench():
    import os
    import sys
    from fusion import runtime
    raw = runtime.measure_raw_launch_us(2000, torch.cuda.current_stream().cuda_stream)
    assert 0 < raw < 1000
    bench = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(
        os.path.abspath(__file__)))), "bench")
    if not os.path.isfile(os.path.join(bench, "host_overhead.py")):
        pytest.skip("bench/host_overhead.py is not here")
    sys.path.insert(0, bench)
    import host_overhead
    result = host_overhead.measure(calls=300, repeats=2, compile_peers=False)
    for path in ("fd.execute", "Executable.call", "raw cuLaunchKernelEx", "torch eager"):
        assert result[path]["us"] is not None, (path, result[path])


# --- the C fast path (fusion._fastpath; Note [C fast path] in runtime.py) ------------


@pytest.fixture(params=["c", "ctypes"])
def path(request, monkeypatch):
    """Runs a test through the C fast path and with FUSION_NO_FASTPATH=1."""
    from fusion import clear_cache, runtime
    if request.param == "c":
        monkeypatch.delenv("FUSION_NO_FASTPATH", raising=False)
        if runtime.load_fastpath() is None:
            pytest.skip(f"fusion._fastpath: {runtime.fastpath_status()}")
    else:
        monkeypatch.setenv("FUSION_NO_FASTPATH", "1")
    clear_cache()
    yield request.param
    clear_cache()


def _native_hits(fd):
    native = fd._fast_path.native
    return None if native is None else native.stats()["hits"]


def test_paths_three_op_fusion(path):
    fd = tiny3_fd()
    cases = [(1024, 1), (1, 1), (1023, 1), (4097, 1), (0, 1), (4096, 2)]
    for _ in range(2):  # the second round hits
        for n, step in cases:
            a = torch.randn(n * step, device="cuda")[::step]
            b = torch.randn(n, device="cuda")
            (out,) = fd.execute([a, b])
            assert out.shape == (n,) and out.is_contiguous()
            torch.testing.assert_close(out, torch.relu(a * b + a))
    assert fd.last_execution["cache_hit"]
    if path == "c":
        assert _native_hits(fd) >= len(cases)
    else:
        assert fd._fast_path.native is None


def test_paths_outputs_are_fresh(path):
    fd = tiny3_fd()
    a = torch.randn(4096, device="cuda")
    results = [fd.execute([a, a])[0] for _ in range(4)]
    assert len({o.data_ptr() for o in results}) == 4
    for out in results:
        torch.testing.assert_close(out, torch.relu(a * a + a))


def test_paths_bad_inputs_after_hits(path):
    fd = tiny3_fd()
    a = torch.randn(256, device="cuda")
    fd.execute([a, a])
    fd.execute([a, a])
    with pytest.raises(FusionInputError, match=r"input 1 \(b\): expected dtype f32, got float16"):
        fd.execute([a, a.half()])
    with pytest.raises(FusionInputError, match="several devices"):
        fd.execute([a, a.cpu()])
    with pytest.raises(FusionInputError, match="expected rank 1"):
        fd.execute([a, a.view(16, 16)])
    with pytest.raises(FusionInputError, match="expected a tensor"):
        fd.execute([a, 2.0])
    with pytest.raises(FusionInputError, match="expects 2 inputs, got 3"):
        fd.execute([a, a, a])
    (out,) = fd.execute([a, a])
    torch.testing.assert_close(out, torch.relu(a * a + a))


def test_paths_side_stream(path):
    fd = tiny3_fd()
    a = torch.randn(1 << 20, device="cuda")
    b = torch.randn(1 << 20, device="cuda")
    fd.execute([a, b])
    fd.execute([a, b])
    stream = torch.cuda.Stream()
    stream.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(stream):
        (out,) = fd.execute([a, b])
        expected = torch.relu(a * b + a)
    stream.synchronize()
    torch.testing.assert_close(out, expected)


def test_paths_scalars_views_and_bf16(path):
    with FusionDefinition("scaled") as fd:
        a = fd.define_tensor([-1, -1], DataType.Float32, name="a")
        s = fd.define_scalar(dtype=DataType.Float32)
        fd.add_output(fd.ops.mul(a, s))
        fd.add_output(fd.ops.permute(a, [1, 0]))
    x = torch.randn(64, 48, device="cuda")
    for scale in (0.5, 2.0, -3.25, 4):
        out, view = fd.execute([x, scale])
        torch.testing.assert_close(out, x * scale)
        assert view.data_ptr() == x.data_ptr()
        torch.testing.assert_close(view, x.t())
    with FusionDefinition("gelu_bias") as g:
        t = g.define_tensor([-1, -1], "bf16", name="x")
        bias = g.define_tensor([-1], "bf16", name="bias")
        g.add_output(g.ops.gelu(g.ops.add(t, bias), approximate="tanh"))
    t = torch.randn(256, 1024, device="cuda", dtype=torch.bfloat16)
    bias = torch.randn(1024, device="cuda", dtype=torch.bfloat16)
    for _ in range(2):
        (out,) = g.execute([t, bias])
        assert out.dtype == torch.bfloat16
        torch.testing.assert_close(out, F.gelu(t + bias, approximate="tanh"),
                                   atol=2e-2, rtol=2e-2)
    if path == "c":
        # The int scale (4) goes through the ctypes path (the C path takes
        # floats for f32 scalars); the other calls after the first hit.
        assert _native_hits(fd) >= 2 and _native_hits(g) >= 1


def test_paths_slice_views(path):
    """Returned slices of inputs are views from the slice's first element
    (a storage offset), no kernel: on both paths, on inputs that are views
    themselves, for a symbolic start."""
    with FusionDefinition("sliced") as fd:
        a = fd.define_tensor([-1, -1], DataType.Float32, name="a")
        k = fd.define_scalar(dtype=DataType.Int64, name="k")
        fd.add_output(fd.ops.slice(a, [1, k], None, [1, 2]))
        fd.add_output(fd.ops.add(a, a))
    base = torch.randn(7000, device="cuda")
    for x in (base[:6000].view(60, 100), base[13:6013].view(60, 100),
              base[:6000].view(100, 60).t()):
        for start in (0, 3, 200):
            for _ in range(2):  # the second call hits
                s, twice = fd.execute([x, start])
                expected = x[1:, start::2]
                assert s.shape == expected.shape and s.stride() == expected.stride()
                if expected.numel():
                    assert s.data_ptr() == expected.data_ptr()
                torch.testing.assert_close(s, expected)
                torch.testing.assert_close(twice, x + x)


def test_paths_executable_call_run_and_errors(path):
    from fusion import FusionError, runtime
    fd = tiny3_fd()
    a = torch.randn(1024, device="cuda")
    b = torch.randn(1024, device="cuda")
    fd.execute([a, b])
    exe = runtime.Executable(fd.last_execution["module"])
    assert exe.fastpath == (path == "c")
    for _ in range(2):
        torch.testing.assert_close(exe(a, b), torch.relu(a * b + a))
    outs = exe.empty_outputs([a, b])
    exe.run([a, b], outs)
    torch.testing.assert_close(outs[0], torch.relu(a * b + a))
    exe.run([a, b], outs, stream=torch.cuda.current_stream().cuda_stream)
    with pytest.raises(FusionError, match="output 0: dim 0 expected 1024, got 1000"):
        exe.run([a, b], [torch.empty(1000, device="cuda")])
    with pytest.raises(FusionError, match="output 0: expected dtype f32, got f16"):
        exe.run([a, b], [torch.empty(1024, device="cuda", dtype=torch.float16)])
    with pytest.raises(FusionError, match="wrong number of outputs: expected 1, got 2"):
        exe.run([a, b], [outs[0], outs[0]])
    with pytest.raises(FusionError, match=r"input 1 \(b\): expected dtype f32, got f16"):
        exe(a, b.half())
    with pytest.raises(FusionError, match="expected a CUDA tensor"):
        exe(a, b.cpu())
    with pytest.raises(FusionError, match="expected a tensor, got float"):
        exe(a, 1.0)
    with pytest.raises(FusionError, match="wrong number of inputs: expected 2, got 1"):
        exe(a)
    torch.testing.assert_close(exe(a, b), torch.relu(a * b + a))
    if path == "c":
        # The first call binds the signature; the calls that succeed after
        # it (two calls, two runs, the last call) are hits.
        assert exe.fastpath_stats()["hits"] >= 4
    else:
        assert exe.fastpath_stats() is None


def test_fastpath_bench_rows():
    import os
    import sys
    from fusion import runtime
    if runtime.load_fastpath() is None:
        pytest.skip(f"fusion._fastpath: {runtime.fastpath_status()}")
    bench = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(
        os.path.abspath(__file__)))), "bench")
    if not os.path.isfile(os.path.join(bench, "host_overhead.py")):
        pytest.skip("bench/host_overhead.py is not here")
    sys.path.insert(0, bench)
    import host_overhead
    result = host_overhead.measure(calls=300, repeats=2, compile_peers=False)
    for row in ("fd.execute", "fd.execute (ctypes)", "Executable.run",
                "Executable.run (ctypes)"):
        assert result[row]["us"] is not None, (row, result[row])
    assert "C fast path" in result["fd.execute"]["note"]


def test_c_execute_on_torch_tensors():
    # Note [C execute] (lib/Python/fastpath.c): after its first run a
    # definition's execute is a builtin over its C cache; results on fresh
    # tensors, several shapes and a side stream match torch.
    from fusion import clear_cache, runtime
    if runtime.load_fastpath() is None:
        pytest.skip(f"fusion._fastpath: {runtime.fastpath_status()}")
    clear_cache()
    with FusionDefinition("c_execute") as fd:
        a = fd.define_tensor([-1, -1], DataType.Float32, name="a")
        b = fd.define_tensor([-1, -1], DataType.Float32, name="b")
        fd.add_output(fd.ops.relu(fd.ops.add(fd.ops.mul(a, b), a)))
    for shape in [(3, 1000), (64, 64), (3, 1000), (1, 1)]:
        for _ in range(3):
            x = torch.randn(*shape, device="cuda")
            y = torch.randn(*shape, device="cuda")
            (out,) = fd.execute([x, y])
            torch.testing.assert_close(out, torch.relu(x * y + x))
    assert type(fd.__dict__["execute"]).__name__ == "builtin_function_or_method"
    stream = torch.cuda.Stream()
    x = torch.randn(5, 7, device="cuda")
    with torch.cuda.stream(stream):
        (out,) = fd.execute([x, x])
    stream.synchronize()
    torch.testing.assert_close(out, torch.relu(x * x + x))
    (out,) = fd.execute([x, x], dump="plan")  # keywords: the Python method
    torch.testing.assert_close(out, torch.relu(x * x + x))
    with pytest.raises(FusionInputError, match="expected dtype f32"):
        fd.execute([x, x.double()])


def test_grid_reductions_repeated_calls_shapes_and_streams():
    # Grid-reduction counters are kept zero by the kernels and zeroed by the
    # runtime only when a workspace is new or another plan used it (Note
    # [Stream workspaces] in lib/Runtime/Executable.cpp): many calls that
    # alternate shapes (plans), on two streams, each checked against torch.
    with FusionDefinition("colsum") as fd:
        x = fd.define_tensor([-1, -1], DataType.Float32, name="x")
        fd.add_output(fd.ops.sum(x, [0]))
    with FusionDefinition("rowsum_split") as fr:
        y = fr.define_tensor([-1, -1], DataType.Float32, name="y")
        fr.add_output(fr.ops.sum(y, [1]))
    shapes = [(32768, 1024), (4099, 77), (65537, 8)]
    rows = [(2, 1048576), (3, 100003), (1, 4194304)]
    inputs = {s: torch.randn(*s, device="cuda") for s in shapes + rows}
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    for round_ in range(3):
        for stream in (torch.cuda.current_stream(), side):
            with torch.cuda.stream(stream):
                for s in shapes:
                    (got,) = fd.execute([inputs[s]])
                    want = inputs[s].double().sum(0).float()
                    torch.testing.assert_close(got, want, atol=2e-2, rtol=1e-4)
                for s in rows:
                    (got,) = fr.execute([inputs[s]])
                    want = inputs[s].double().sum(1).float()
                    torch.testing.assert_close(got, want, atol=5e-2, rtol=1e-4)
    torch.cuda.synchronize()


def test_reductions_over_any_dims():
    # Note [Reductions over any dims]: a full sum, a middle dim and dims
    # (0, 2) with keepdim, each against torch.
    with FusionDefinition("any_dims") as fd:
        x = fd.define_tensor([-1, -1, -1], DataType.Float32, name="x")
        fd.add_output(fd.ops.sum(x))
        fd.add_output(fd.ops.sum(x, [1]))
        fd.add_output(fd.ops.max(x, [0, 2], keepdim=True))
    x = torch.randn(37, 129, 65, device="cuda")
    total, middle, peak = fd.execute([x])
    torch.testing.assert_close(total, x.double().sum().float(), atol=1e-2, rtol=1e-4)
    torch.testing.assert_close(middle, x.double().sum(1).float(), atol=1e-3, rtol=1e-4)
    torch.testing.assert_close(peak, x.amax(dim=(0, 2), keepdim=True))


def test_means():
    # fd.ops.mean divides by a size converted to a float: computed in the
    # kernels (Note [Scalars computed from sizes] in Segment.cpp).
    with FusionDefinition("means") as fd:
        x = fd.define_tensor([-1, -1], "bf16", name="x")
        fd.add_output(fd.ops.mean(x, [1]))
        fd.add_output(fd.ops.mean(x, [0]))
        fd.add_output(fd.ops.sub(x, fd.ops.mean(x, [0], keepdim=True)))
    x = torch.randn(513, 1000, device="cuda", dtype=torch.bfloat16)
    rows, cols, centered = fd.execute([x])
    xf = x.float()
    torch.testing.assert_close(rows.float(), xf.mean(1), atol=1e-2, rtol=1e-2)
    torch.testing.assert_close(cols.float(), xf.mean(0), atol=1e-2, rtol=1e-2)
    torch.testing.assert_close(centered.float(), xf - xf.mean(0, keepdim=True),
                               atol=2e-2, rtol=2e-2)


def test_var_mean_over_leading_and_all_dims():
    # Note [var_mean over other dims]: the two-pass algorithm in two kernels.
    with FusionDefinition("var_means") as fd:
        x = fd.define_tensor([-1, -1], DataType.Float32, name="x")
        v0, m0 = fd.ops.var_mean(x, [0])
        fd.add_output(v0)
        fd.add_output(m0)
        fd.add_output(fd.ops.var(x, correction=0))
    x = torch.randn(4099, 77, device="cuda") * 3 + 1
    var0, mean0, var_all = fd.execute([x])
    torch.testing.assert_close(var0, x.double().var(0).float(), atol=1e-3, rtol=1e-4)
    torch.testing.assert_close(mean0, x.double().mean(0).float(), atol=1e-4, rtol=1e-4)
    torch.testing.assert_close(var_all, x.double().var(correction=0).float(),
                               atol=1e-3, rtol=1e-4)


def test_argmax_argmin_against_torch():
    # Note [Arg reductions]: first index on ties (bf16 has many), NaN wins.
    with FusionDefinition("args") as fd:
        x = fd.define_tensor([-1, -1], "bf16", name="x")
        fd.add_output(fd.ops.argmax(x, 1))
        fd.add_output(fd.ops.argmin(x, 0))
        fd.add_output(fd.ops.argmax(x, 1, keepdim=True))
    x = torch.randn(1000, 1000, device="cuda", dtype=torch.bfloat16)
    x[7, 100] = float("nan")
    x[7, 900] = float("nan")
    rows, cols, kept = fd.execute([x])
    assert rows.dtype == torch.int64 and kept.shape == (1000, 1)
    assert torch.equal(rows, torch.argmax(x, 1))
    assert torch.equal(cols, torch.argmin(x, 0))
    assert torch.equal(kept, torch.argmax(x, 1, keepdim=True))
    assert rows[7].item() == 100
    # keepdim over a leading and a middle dim: a second kernel puts the
    # size-1 dim back.
    with FusionDefinition("args_keep") as fk:
        y = fk.define_tensor([-1, -1, -1], "f32", name="y")
        fk.add_output(fk.ops.argmin(y, 0, keepdim=True))
        fk.add_output(fk.ops.argmax(y, 1, keepdim=True))
    y = torch.randn(7, 300, 33, device="cuda")
    lead, mid = fk.execute([y])
    assert lead.shape == (1, 300, 33) and mid.shape == (7, 1, 33)
    assert torch.equal(lead, torch.argmin(y, 0, keepdim=True))
    assert torch.equal(mid, torch.argmax(y, 1, keepdim=True))
