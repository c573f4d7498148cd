"""Running definitions on numpy arrays through the reference interpreter
(in process), against numpy computations; input errors; dumps; errors that
point at the user's line."""
import math

import numpy as np
import pytest

from fusion import (DataType, FusionDefinition, FusionInputError, FusionError,
                    FusionDefinitionError)

D = DataType
rng = np.random.default_rng(0)


def rand(*shape, dtype=np.float32):
    return rng.standard_normal(shape).astype(dtype)


@pytest.fixture(autouse=True)
def _needs_interpreter(interpreter):
    pass


def run(build, inputs, **kw):
    fd = FusionDefinition("f")
    with fd:
        build(fd)
    return fd.execute(inputs, **kw)


def test_add_mul_exp_relu():
    x, y = rand(3, 5), rand(5)

    def build(fd):
        a = fd.define_tensor([-1, -1], D.Float32)
        b = fd.define_tensor([-1], D.Float32)
        fd.add_output(fd.ops.relu(fd.ops.add(a, b)))
        fd.add_output(fd.ops.mul(fd.ops.exp(a), 2.0))
    out = run(build, [x, y])
    np.testing.assert_allclose(out[0], np.maximum(x + y, 0), rtol=1e-6)
    np.testing.assert_allclose(out[1], np.exp(x) * 2, rtol=1e-6)
    assert out[0].dtype == np.float32 and out[0].shape == (3, 5)


def test_set_materializes_a_transpose():
    x = rand(3, 5)

    def build(fd):
        a = fd.define_tensor([-1, -1], D.Float32)
        fd.add_output(fd.ops.set(fd.ops.permute(a, [1, 0])))
    out = run(build, [x])
    np.testing.assert_array_equal(out[0], x.T)
    assert out[0].shape == (5, 3)


def test_softmax_layer_norm():
    x, w, b = rand(4, 8), rand(8), rand(8)

    def build(fd):
        t = fd.define_tensor([-1, 8], D.Float32)
        tw = fd.define_tensor([8], D.Float32)
        tb = fd.define_tensor([8], D.Float32)
        fd.add_output(fd.ops.softmax(t, -1))
        fd.add_output(fd.ops.layer_norm(t, [8], tw, tb, eps=1e-5))
    out = run(build, [x, w, b])
    e = np.exp(x - x.max(-1, keepdims=True))
    np.testing.assert_allclose(out[0], e / e.sum(-1, keepdims=True), rtol=1e-5, atol=1e-7)
    ln = (x - x.mean(-1, keepdims=True)) / np.sqrt(x.var(-1, keepdims=True) + 1e-5) * w + b
    np.testing.assert_allclose(out[1], ln, rtol=1e-4, atol=1e-5)


def test_layer_norm_normalized_shape_checked_at_execution():
    # Note [Shape checks]: the dynamic dims normalized_shape names are
    # compared with the inputs' sizes before the interpreter runs.
    x = rand(3, 8)

    def build(fd):
        t = fd.define_tensor([-1, -1], D.Float32)
        fd.add_output(fd.ops.layer_norm(t, [8]))
    ln = (x - x.mean(-1, keepdims=True)) / np.sqrt(x.var(-1, keepdims=True) + 1e-5)
    np.testing.assert_allclose(run(build, [x])[0], ln, rtol=1e-4, atol=1e-5)
    with pytest.raises(FusionInputError, match=r"given normalized_shape=\[8\], expected "
                                               r"input with shape \[\*, 8\], but got input "
                                               r"of size \[8, 3\]"):
        run(build, [rand(8, 3)])


def test_shape_check_sizes_match_the_interpreter():
    # The sizes Note [Shape checks] evaluates are the ones the interpreter
    # computes.
    from test_input_checks import THROUGH_OPS
    for prepare, ns, good, bad, seen in THROUGH_OPS:
        for shape in (good, bad):
            with FusionDefinition("p") as fd:
                t = fd.define_tensor([-1, -1], D.Float32)
                y = prepare(fd, t)
                fd.add_output(y)
            x = np.ones(shape, np.float32)
            sizes = [fd._eval_dim(y, i, [x], set()) for i in range(y.ndim)]
            assert tuple(sizes) == fd.execute([x])[0].shape


def test_sum_var_mean_where():
    x = rand(3, 6)

    def build(fd):
        t = fd.define_tensor([-1, -1], D.Float32)
        fd.add_output(fd.ops.sum(t, [1]))
        v, m = fd.ops.var_mean(t, [0], correction=1, keepdim=True)
        fd.add_output(v)
        fd.add_output(m)
        fd.add_output(fd.ops.where(fd.ops.gt(t, 0), t, -1))
    out = run(build, [x])
    np.testing.assert_allclose(out[0], x.sum(1), rtol=1e-5)
    np.testing.assert_allclose(out[1], x.var(0, ddof=1, keepdims=True), rtol=1e-5)
    np.testing.assert_allclose(out[2], x.mean(0, keepdims=True), rtol=1e-5, atol=1e-7)
    np.testing.assert_array_equal(out[3], np.where(x > 0, x, -1).astype(np.float32))


def bf16_round(x):
    """float32 -> bf16 (round to nearest even) -> float32, in numpy."""
    bits = x.astype(np.float32).view(np.uint32)
    bits = (bits + 0x7FFF + ((bits >> 16) & 1)) & 0xFFFF0000
    return bits.view(np.float32)


def test_cast_bf16_in_and_out():
    x = rand(2, 7)
    raw_bf16 = (bf16_round(x).view(np.uint32) >> 16).astype(np.uint16)

    def build(fd):
        t = fd.define_tensor([-1, -1], D.Float32)
        h = fd.define_tensor([-1, -1], D.BFloat16)    # raw uint16 bits in numpy
        fd.add_output(fd.ops.cast(t, D.BFloat16))
        fd.add_output(fd.ops.add(h, 1.0))               # stays bf16
        fd.add_output(fd.ops.cast(h, D.Float32))
    out = run(build, [x, raw_bf16])
    for o in out[:2]:
        assert o.dtype.itemsize in (2, 4)  # ml_dtypes.bfloat16 if installed, else f32
    np.testing.assert_array_equal(np.asarray(out[0], np.float32), bf16_round(x))
    np.testing.assert_array_equal(np.asarray(out[1], np.float32), bf16_round(bf16_round(x) + 1))
    np.testing.assert_array_equal(out[2], bf16_round(x))


def test_scalars_ints_and_bools():
    x = rng.integers(-5, 5, size=(4,)).astype(np.int32)

    def build(fd):
        t = fd.define_tensor([4], D.Int32)
        s = fd.define_scalar(dtype=D.Int64)
        f = fd.define_scalar(dtype=D.Float32)
        fd.add_output(fd.ops.add(t, s))          # int tensor + int scalar: i32
        fd.add_output(fd.ops.mul(t, f))          # -> f32
        fd.add_output(fd.ops.lt(t, 0))
    out = run(build, [x, 3, 0.5])
    assert out[0].dtype == np.int32
    np.testing.assert_array_equal(out[0], x + 3)
    np.testing.assert_allclose(out[1], x * 0.5)
    np.testing.assert_array_equal(out[2], x < 0)


def test_scalars_at_the_limits_of_their_type():
    # Values at the ends of the range run (out-of-range ones are rejected
    # before running: test_input_checks.py).
    x = np.zeros(2, np.int32)

    def build(fd):
        t = fd.define_tensor([2], D.Int32)
        s = fd.define_scalar(dtype=D.Int32)
        fd.add_output(fd.ops.add(t, s))
    for v in (2**31 - 1, -2**31):
        np.testing.assert_array_equal(run(build, [x, v])[0], np.full(2, v, np.int32))


def test_broadcast_and_shape_ops():
    x = rand(2, 3)

    def build(fd):
        t = fd.define_tensor([-1, -1], D.Float32)
        fd.add_output(fd.ops.permute(t, [1, 0]))
        fd.add_output(fd.ops.reshape(t, [-1]))
        fd.add_output(fd.ops.broadcast_in_dim(t, [4, -1, -1], [1, 2]))
        fd.add_output(fd.ops.cat([t, t], 0))
        fd.add_output(fd.ops.pad(t, [1, 1], 0.0))
    out = run(build, [x])
    np.testing.assert_array_equal(out[0], x.T)
    np.testing.assert_array_equal(out[1], x.reshape(-1))
    np.testing.assert_array_equal(out[2], np.broadcast_to(x, (4, 2, 3)))
    np.testing.assert_array_equal(out[3], np.concatenate([x, x]))
    np.testing.assert_array_equal(out[4], np.pad(x, [(0, 0), (1, 1)]))


def test_non_contiguous_numpy_input():
    x = rand(4, 6)[:, ::2]

    def build(fd):
        t = fd.define_tensor([-1, -1], D.Float32)
        fd.add_output(fd.ops.neg(t))
    out = run(build, [x])
    np.testing.assert_array_equal(out[0], -x)


# --- input errors -----------------------------------------------------------------------

def make_fd():
    with FusionDefinition("f") as fd:
        a = fd.define_tensor([-1, 4], D.Float32, name="a")
        fd.add_output(fd.ops.relu(a))
    return fd


@pytest.mark.parametrize("inputs,message", [
    ([], "expects 1 inputs, got 0"),
    ([np.zeros((2, 4), np.float64)], r"input 0 \(a\): expected dtype f32, got float64"),
    ([np.zeros((2, 4, 1), np.float32)], "expected rank 2"),
    ([np.zeros((2, 5), np.float32)], "dim 1 expected size 4, got 5"),
    ([[1.0, 2.0]], "expected a tensor .* got list"),
    ([1.5], "expected a tensor .* got float"),
])
def test_input_errors(inputs, message):
    with pytest.raises(FusionInputError, match=message):
        make_fd().execute(inputs)


def test_execute_inside_with_block_is_an_error():
    with FusionDefinition() as fd:
        a = fd.define_tensor([1], D.Float32)
        fd.add_output(a)
        with pytest.raises(FusionDefinitionError, match="finish the definition"):
            fd.execute([np.zeros(1, np.float32)])


def test_interpreter_runtime_error_is_an_exception():
    with FusionDefinition() as fd:
        a = fd.define_tensor([-1], D.Int32)
        fd.add_output(fd.ops.div(a, 0))
    with pytest.raises(FusionError, match="division by zero"):
        fd.execute([np.ones(3, np.int32)])


def test_interpreter_error_quotes_the_users_line():
    """Note [Source locations]: the interpreter's error names the op and
    the Python line that wrote it."""
    with FusionDefinition() as fd:
        a = fd.define_tensor([-1], D.Float32)
        b = fd.define_tensor([-1], D.Float32)
        fd.add_output(fd.ops.add(a, b))  # the line the error quotes
    with pytest.raises(FusionError) as info:
        fd.execute([np.ones(3, np.float32), np.ones(4, np.float32)])
    msg = str(info.value)
    assert "operand 1 has shape [4] but operand 0 has [3]" in msg
    assert f"'fusion.add' at {__file__}:" in msg
    assert "fd.add_output(fd.ops.add(a, b))  # the line the error quotes" in msg


def test_to_mlir_with_locations():
    with FusionDefinition("located") as fd:
        a = fd.define_tensor([-1], D.Float32)
        fd.add_output(fd.ops.relu(a))
    here = test_to_mlir_with_locations.__code__.co_firstlineno
    plain, located = fd.to_mlir(), fd.to_mlir(locations=True)
    assert " loc(" not in plain
    assert f'fusion.relu %T0 : tensor<?xf32> loc("{__file__}":{here + 3}:' in located
    assert f'}} loc("{__file__}":{here + 1}:' in located


def test_no_subprocess_and_no_temporary_files(monkeypatch, tmp_path):
    """The interpreter and the compiler run in this process."""
    import subprocess
    import tempfile

    def refuse(*args, **kwargs):
        raise AssertionError("started a subprocess or made a temporary file")

    monkeypatch.setattr(subprocess, "Popen", refuse)
    for name in ("mkdtemp", "mkstemp", "NamedTemporaryFile", "TemporaryDirectory"):
        monkeypatch.setattr(tempfile, name, refuse)
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    x = rand(3, 5)
    with FusionDefinition() as fd:
        a = fd.define_tensor([-1, -1], D.Float32)
        fd.add_output(fd.ops.exp(a))
    (y,) = fd.execute([x], dump="ptx")
    np.testing.assert_allclose(y, np.exp(x), rtol=1e-6)
    assert list(tmp_path.iterdir()) == []


def test_dump_stages_to_a_directory(monkeypatch, tmp_path, capsys):
    monkeypatch.setenv("FUSION_DUMP_DIR", str(tmp_path))
    make_fd().execute([np.ones((2, 4), np.float32)], dump="ir,stages,plan,ptx")
    assert capsys.readouterr().out == ""
    names = sorted(p.name for p in tmp_path.iterdir())
    assert names == ["f.ir.txt", "f.plan.txt", "f.ptx.txt", "f.stages.txt"]
    assert "fusion.relu" in (tmp_path / "f.ir.txt").read_text()
    stages = (tmp_path / "f.stages.txt").read_text()
    assert "IR Dump After" in stages and "fusion-segment" in stages.lower()
    assert "gpu.binary" in (tmp_path / "f.plan.txt").read_text()
    assert ".entry" in (tmp_path / "f.ptx.txt").read_text()


def test_the_subclass_style():
    """nvFuser's habit: subclass FusionDefinition, write definition(); it
    runs once, on first use, and names the fusion after the class."""
    class AddScaled(FusionDefinition):
        runs = 0

        def definition(self):
            AddScaled.runs += 1
            a = self.define_tensor([-1, -1], D.Float32, name="a")
            b = self.define_tensor([-1], D.Float32, name="b")
            self.add_output(self.ops.mul(self.ops.add(a, b), 2.0))

    fd = AddScaled()
    assert fd.name == "AddScaled"
    x, y = rand(3, 4), rand(4)
    (out,) = fd.execute([x, y])
    np.testing.assert_allclose(out, (x + y) * 2.0, rtol=1e-6)
    fd.execute([x, y])
    assert "fusion.fusion @AddScaled(" in fd.to_mlir()
    assert AddScaled.runs == 1
    assert AddScaled("other").name == "other"
    with pytest.raises(FusionDefinitionError, match="override definition"):
        FusionDefinition().definition()


def test_print_shows_python_and_repro_runs(capsys):
    fd = make_fd()
    text = str(fd)
    assert text == fd.repro()
    assert "with FusionDefinition('f') as fd:" in text and "fd.ops.relu(" in text
    assert "fusion.fusion" not in text
    namespace = {"__name__": "__main__"}
    exec(compile(text, "<repro>", "exec"), namespace)
    assert capsys.readouterr().out == fd.to_mlir()
    assert repr(fd).startswith("<FusionDefinition @f: 1 inputs, 1 outputs")


def test_a_failed_run_carries_a_repro():
    with FusionDefinition("divide") as fd:
        a = fd.define_tensor([-1], D.Int32, name="a")
        fd.add_output(fd.ops.div(a, 0))
    x = np.ones(3, np.int32)
    with pytest.raises(FusionError) as info:
        fd.execute([x])
    msg = str(info.value)
    assert "division by zero" in msg
    assert info.value.repro == fd.repro([x])
    assert "# Fusion repro" in msg and "with FusionDefinition('divide') as fd:" in msg
    assert "# input 0: int32 shape [3] strides [1] on cpu" in msg
    assert "# versions: fusion " in msg and "numpy " in msg
    # Input errors name the input; no repro.
    with pytest.raises(FusionInputError) as bad:
        fd.execute([np.ones(3, np.float32)])
    assert "repro" not in str(bad.value) and getattr(bad.value, "repro", None) is None


def test_execute_device_on_the_cpu():
    fd = make_fd()
    x = np.ones((2, 4), np.float32)
    (out,) = fd.execute([x], device="cpu")
    assert fd.last_execution["mode"] == "interpreter"
    with pytest.raises(FusionInputError, match=r"device='cuda'.*the inputs are on the CPU"):
        fd.execute([x], device="cuda")
    with pytest.raises(FusionInputError, match="device must be"):
        fd.execute([x], device="cpu:0")
    with pytest.raises(FusionInputError, match="device must be"):
        fd.execute([x], device=True)


def test_dump_decisions_with_reasons(capsys):
    """FUSION_DUMP=decisions: the segmenter's and schedulers' remarks, at the
    user's lines."""
    with FusionDefinition("center") as fd:
        x = fd.define_tensor([-1, -1], D.Float32, name="x")
        m = fd.ops.sum(x, [0], keepdim=True)  # kernel 0
        fd.add_output(fd.ops.sub(x, m))
    here = test_dump_decisions_with_reasons.__code__.co_firstlineno
    fd.execute([rand(3, 4)], dump="decisions")
    out = capsys.readouterr().out
    assert out.startswith("===== fusion decisions (@center) =====")
    assert "remark: not one kernel: 'fusion.sub' is a result without one value" in out
    assert f"{__file__}:{here + 5}:13: remark: 'fusion.sum' starts kernel 0" in out
    assert "m = fd.ops.sum(x, [0], keepdim=True)  # kernel 0" in out
    assert "center_k0: outer-reduction scheduler" in out
    assert "center_k1: pointwise scheduler" in out


def test_dump_ir_and_ptx(capsys):
    fd = make_fd()
    fd.execute([np.ones((2, 4), np.float32)], dump="ir,ptx", schedule={"unroll": 2})
    out = capsys.readouterr().out
    assert "===== fusion IR (@f) =====" in out and "fusion.relu" in out
    assert "===== fusion ptx (@f) =====" in out and ".entry" in out


def test_dump_from_environment(capsys, monkeypatch):
    monkeypatch.setenv("FUSION_DUMP", "ir")
    make_fd().execute([np.ones((2, 4), np.float32)])
    assert "fusion.relu" in capsys.readouterr().out


def test_inner_cluster_schedule(capsys):
    """Note [Cluster rows]: schedule={"inner_cluster": C} reaches the
    compiler (the cluster variant is in the PTX, as by default; 0 leaves it
    out); a size that is no cluster
    size is the compiler's error (here, without a GPU, said by the dump; the
    interpreter still answers)."""
    with FusionDefinition("rows") as fd:
        x = fd.define_tensor([-1, -1], D.Float32, name="x")
        fd.add_output(fd.ops.softmax(x, dim=1))
    inputs = [np.ones((2, 64), np.float32)]
    (out,) = fd.execute(inputs, dump="ptx", schedule={"inner_cluster": 8})
    np.testing.assert_allclose(out, np.full((2, 64), 1 / 64, np.float32), rtol=1e-6)
    assert ".entry rows_k0_cv4_i32(" in capsys.readouterr().out
    fd.execute(inputs, dump="ptx")
    assert ".entry rows_k0_cv4_i32(" in capsys.readouterr().out  # on by default
    fd.execute(inputs, dump="ptx", schedule={"inner_cluster": 0})
    assert "_cv4_" not in capsys.readouterr().out
    fd.execute(inputs, dump="ptx", schedule={"inner_cluster": 3})
    assert ("error: the option inner-cluster must be -1 (heuristic), 0 (none), 2, 4 or 8, "
            "got 3") in capsys.readouterr().out


def test_inner_schedule_keys_reach_the_compiler(capsys):
    """The compile options of fusion-translate under their Python names:
    inner_items=0 leaves no persistent variant (the `p` kernels), the
    default has them, and a value out of range is the compiler's error
    naming the option."""
    with FusionDefinition("rows") as fd:
        x = fd.define_tensor([-1, -1], D.Float32, name="x")
        fd.add_output(fd.ops.softmax(x, dim=1))
    inputs = [np.ones((2, 64), np.float32)]
    fd.execute(inputs, dump="ptx")
    assert ".entry rows_k0_pv4_i32(" in capsys.readouterr().out
    fd.execute(inputs, dump="ptx", schedule={"inner_items": 0, "inner_stage": 0,
                                             "inner_block": 128,
                                             "compute_bound_cost": 0,
                                             "transpose_tile": 32,
                                             "inner_min_blocks": 1})
    ptx = capsys.readouterr().out
    assert ".entry rows_k0_v4_i32(" in ptx and "_pv4_" not in ptx
    fd.execute(inputs, dump="ptx", schedule={"inner_stage": 4})
    assert "error: the option inner-stage must be" in capsys.readouterr().out
    # inner_long_cluster: rows longer than a block holds over a cluster
    # (Note [Cluster persistent rows]).
    fd.execute(inputs, dump="ptx", schedule={"inner_long_cluster": 4})
    assert ".entry rows_k0_cpv4_i32(" in capsys.readouterr().out
    fd.execute(inputs, dump="ptx", schedule={"inner_long_cluster": 0})
    assert "_cpv4_" not in capsys.readouterr().out
    fd.execute(inputs, dump="ptx", schedule={"inner_long_cluster": 5})
    assert "error: the option inner-long-cluster must be" in \
        capsys.readouterr().out


def test_inner_columns_key(capsys):
    """inner_columns=0 leaves out the column-major variant of per-row
    reductions (Note [Column-major rows]); it is on by default, and a value
    out of range is the compiler's error naming the option."""
    with FusionDefinition("sums") as fd:
        x = fd.define_tensor([-1, -1], D.Float32, name="x")
        fd.add_output(fd.ops.sum(x, dims=[1]))
    inputs = [np.ones((2, 64), np.float32)]
    fd.execute(inputs, dump="ptx")
    assert ".entry sums_k0_cs_i32(" in capsys.readouterr().out
    fd.execute(inputs, dump="ptx", schedule={"inner_columns": 0})
    ptx = capsys.readouterr().out
    assert "_cs_i32" not in ptx and ".entry sums_k0_s_i32(" in ptx
    fd.execute(inputs, dump="ptx", schedule={"inner_columns": 2})
    assert ("error: the option inner-columns must be -1 (heuristic), 0 (off) "
            "or 1 (on), got 2") in capsys.readouterr().out


def test_bad_schedule_and_dump_keys():
    with pytest.raises(FusionError, match="unknown schedule key"):
        make_fd().execute([np.ones((2, 4), np.float32)], schedule={"unrol": 2})
    with pytest.raises(FusionError, match="unknown dump kind"):
        make_fd().execute([np.ones((2, 4), np.float32)], dump="asm")
