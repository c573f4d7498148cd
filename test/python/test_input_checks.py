"""Checks that need no tools: out-of-range scalar inputs, sizes, strides
and constants (which would wrap), and shape arguments: normalized_shape
against the input's trailing sizes, when the op is defined and, where they
are symbolic, when the inputs are given (Note [Shape checks] in
frontend.py), and stride_order. The runtime binding's checks are in
test_runtime_fastpath.py and test_fastpath_ext.py."""
import re

import numpy as np
import pytest

from test_runtime_fastpath import FakeTensor

from fusion import DataType, FusionDefinition, FusionDefinitionError, FusionInputError
from fusion import execution

D = DataType
I64_MIN, I64_MAX = -2**63, 2**63 - 1


# --- out-of-range numbers -------------------------------------------------------------

def scalar_fd(dtype):
    with FusionDefinition("f") as fd:
        t = fd.define_tensor([-1], D.Float32, name="t")
        s = fd.define_scalar(dtype=dtype, name="s")
        fd.add_output(fd.ops.mul(t, fd.ops.cast(s, D.Float32)))
    return fd


@pytest.mark.parametrize("dtype, value, lo, hi", [
    (D.Int32, 2**40, -2**31, 2**31 - 1),
    (D.Int32, 2**31, -2**31, 2**31 - 1),
    (D.Int32, -2**31 - 1, -2**31, 2**31 - 1),
    (D.Int16, 2**15, -2**15, 2**15 - 1),
    (D.Int8, -129, -128, 127),
    (D.Int64, 2**64, I64_MIN, I64_MAX),
    (D.Int64, -2**63 - 1, I64_MIN, I64_MAX),
    (D.Index, 2**63, I64_MIN, I64_MAX),
    (D.Int32, np.int64(2**40), -2**31, 2**31 - 1),
])
def test_scalar_input_out_of_range(dtype, value, lo, hi):
    fd = scalar_fd(dtype)
    x = np.ones(3, np.float32)
    with pytest.raises(FusionInputError) as e:
        fd.execute([x, value])
    assert str(e.value) == (f"input 1 (s): value {int(value)} is out of range for "
                            f"{dtype.mlir}: expected a value in [{lo}, {hi}]")


@pytest.mark.parametrize("dtype, values", [
    (D.Int32, [2**31 - 1, -2**31, True]),
    (D.Int64, [I64_MAX, I64_MIN]),
    (D.Int8, [127, -128]),
    (D.Index, [I64_MAX, 0]),
    (D.Bool, [True, False, 0, 1]),
    (D.Float32, [1e39, float("inf"), 2**63]),  # rounded to the type, not checked
])
def test_scalar_inputs_at_the_limits_are_accepted(dtype, values):
    fd = scalar_fd(dtype)
    for v in values:
        assert execution.check_inputs(fd, [np.ones(3, np.float32), v]) == "cpu"


def test_float_scalar_input_beyond_a_double():
    fd = scalar_fd(D.Float64)
    with pytest.raises(FusionInputError,
                       match=r"input 1 \(s\): value 1000+ is out of range for f64: it does "
                             r"not fit a double"):
        fd.execute([np.ones(3, np.float32), 10**400])


def test_bool_and_integer_kinds():
    with pytest.raises(FusionInputError, match=r"input 1 \(s\): expected a bool, got 2"):
        scalar_fd(D.Bool).execute([np.ones(3, np.float32), 2])
    # numpy floats are not integers either (they were truncated).
    with pytest.raises(FusionInputError, match=r"expected an integer i32, got .*1\.5"):
        scalar_fd(D.Int32).execute([np.ones(3, np.float32), np.float32(1.5)])


def tensor_fd():
    with FusionDefinition("g") as fd:
        a = fd.define_tensor([-1, -1], D.Float32, name="a")
        fd.add_output(fd.ops.relu(a))
    return fd


@pytest.mark.parametrize("shape, strides, message", [
    ([2**63, 1], [1, 1], r"input 0 \(a\): dim 0 size 9223372036854775808 is out of range: "
                         r"expected a size in \[0, 9223372036854775807\]"),
    ([2, 2**64], [1, 1], "dim 1 size 18446744073709551616 is out of range"),
    ([4, 4], [2**64, 1], r"input 0 \(a\): dim 0 stride 18446744073709551616 is out of "
                         r"range: expected a stride in \[-9223372036854775808, "
                         r"9223372036854775807\]"),
    ([4, 4], [4, -2**63 - 1], "dim 1 stride -9223372036854775809 is out of range"),
])
def test_tensor_sizes_and_strides_out_of_range(shape, strides, message):
    # Tensors with the attributes torch tensors have (check_inputs runs
    # before anything is compiled or launched); a pointer given, so that
    # FakeTensor does not allocate 2^63 elements of fake addresses.
    with pytest.raises(FusionInputError, match=message):
        tensor_fd().execute([FakeTensor(shape, strides=strides, ptr=0x1000)])


def test_tensor_sizes_and_strides_at_the_limits_are_accepted():
    x = FakeTensor([I64_MAX, 0], strides=[I64_MIN, I64_MAX], ptr=0)
    assert execution.check_inputs(tensor_fd(), [x]) == "gpu"


@pytest.mark.parametrize("build, message", [
    (lambda fd: fd.ops.add(fd.define_tensor([2], D.Int32), 2**40),
     r"constant 1099511627776 is out of range for i32: expected a value in "
     r"\[-2147483648, 2147483647\]"),
    # MLIR reads 4294967295 : i32 as -1.
    (lambda fd: fd.ops.bitwise_and(fd.define_tensor([2], D.Int32), 2**32 - 1),
     "constant 4294967295 is out of range for i32"),
    (lambda fd: fd.define_scalar(2**64, D.Int64), "constant 18446744073709551616 is out of "
                                                  "range for i64"),
    (lambda fd: fd.ops.mul(fd.define_tensor([2], D.Int8), 1e10),  # f32 result: fine
     None),
    (lambda fd: fd.ops.full([2], 300, D.Int8), "constant 300 is out of range for i8"),
    (lambda fd: fd.ops.full([2**63], 1.0), r"full: size 9223372036854775808 is out of "
                                          r"range: expected a size in \[0, "
                                          r"9223372036854775807\]"),
    (lambda fd: fd.define_tensor([2**63], D.Float32),
     r"define_tensor: shape entries are sizes in \[0, 9223372036854775807\] or -1"),
])
def test_constants_and_sizes_out_of_range(build, message):
    if message is None:
        with FusionDefinition() as fd:
            build(fd)
        return
    with pytest.raises(FusionDefinitionError, match=message):
        with FusionDefinition() as fd:
            build(fd)


# --- shape arguments: normalized_shape ----------------------------------------------

NORMS = [
    ("layer_norm", lambda fd, x, ns, **kw: fd.ops.layer_norm(x, ns, **kw)),
    ("rms_norm", lambda fd, x, ns, **kw: fd.ops.rms_norm(x, ns, **kw)),
]
norm_ids = [name for name, _ in NORMS]


def norm_fd(norm, shape, ns, prepare=None, **kw):
    with FusionDefinition("n") as fd:
        x = fd.define_tensor(shape, D.Float32, name="x")
        y = prepare(fd, x) if prepare else x
        fd.add_output(norm(fd, y, ns, **kw))
    return fd


@pytest.mark.parametrize("name, norm", NORMS, ids=norm_ids)
def test_normalized_shape_against_static_sizes(name, norm):
    # Before: normalized_shape's length alone was used (the last dim here).
    with pytest.raises(FusionDefinitionError) as e:
        norm_fd(norm, [2, 3], [5])
    assert str(e.value) == (f"{name}: given normalized_shape=[5], expected input with "
                            f"shape [*, 5], but got input of shape [2, 3]")
    with pytest.raises(FusionDefinitionError, match=r"normalized_shape=\[3, 3\], expected "
                                                    r"input with shape \[\*, 3, 3\], but got "
                                                    r"input of shape \[\?, 2, 3\]"):
        norm_fd(norm, [-1, 2, 3], [3, 3])
    with pytest.raises(FusionDefinitionError, match=r"normalized_shape=\[4\]"):
        norm_fd(norm, [2, 3], 4)
    for shape, ns in (([2, 3], [3]), ([2, 3], [2, 3]), ([2, 3], 3), ([-1, 3], (3,))):
        assert f"fusion.{name}" in norm_fd(norm, shape, ns).to_mlir()


@pytest.mark.parametrize("name, norm", NORMS, ids=norm_ids)
def test_normalized_shape_against_sizes_at_execution(name, norm):
    fd = norm_fd(norm, [-1, -1], [5])
    with pytest.raises(FusionInputError) as e:
        fd.execute([np.ones((2, 3), np.float32)])
    assert str(e.value) == (f"{name}: given normalized_shape=[5], expected input with "
                            f"shape [*, 5], but got input of size [2, 3]")
    assert execution.check_inputs(fd, [np.ones((2, 5), np.float32)]) == "cpu"
    fd = norm_fd(norm, [-1, 4, -1], [4, 6])
    with pytest.raises(FusionInputError, match=r"got input of size \[7, 4, 5\]"):
        fd.execute([np.ones((7, 4, 5), np.float32)])
    assert execution.check_inputs(fd, [np.ones((7, 4, 6), np.float32)]) == "cpu"


# Sizes derived from the inputs' through ops (Note [Shape checks]): the
# normalized dim's size, a good and a bad input shape, and the size seen
# (test_execute.py compares these sizes with the interpreter's).
THROUGH_OPS = [
    (lambda fd, x: fd.ops.permute(fd.ops.exp(x), [1, 0]), [4], (4, 3), (3, 4), "[4, 3]"),
    (lambda fd, x: fd.ops.pad(x, [1, 2]), [6], (2, 3), (2, 4), "[2, 7]"),
    (lambda fd, x: fd.ops.cat([x, x], 1), [6], (2, 3), (2, 4), "[2, 8]"),
    (lambda fd, x: fd.ops.slice(x, [0, 1], [None, 5]), [4], (2, 9), (2, 3), "[2, 2]"),
    (lambda fd, x: fd.ops.slice(x, [0, 0], [None, None], [1, 2]), [3], (2, 5), (2, 7),
     "[2, 4]"),
    (lambda fd, x: fd.ops.reshape(x, [-1, fd.ops.size(x, 0)]), [2], (2, 3), (3, 2),
     "[2, 3]"),
    (lambda fd, x: fd.ops.reshape(x, [fd.ops.size(x, 1), -1]), [2], (2, 3), (3, 2),
     "[2, 3]"),
    (lambda fd, x: fd.ops.broadcast_in_dim(fd.ops.sum(x, [1]), [-1, fd.ops.size(x, 1)], [0]),
     [3], (2, 3), (2, 4), "[2, 4]"),
]


@pytest.mark.parametrize("prepare, ns, good, bad, seen", THROUGH_OPS)
def test_normalized_shape_through_ops(prepare, ns, good, bad, seen):
    fd = norm_fd(NORMS[0][1], [-1, -1], ns, prepare)
    assert execution.check_inputs(fd, [np.ones(good, np.float32)]) == "cpu"
    with pytest.raises(FusionInputError, match=rf"got input of size {re.escape(seen)}"):
        fd.execute([np.ones(bad, np.float32)])


def test_normalized_shape_through_an_index_scalar():
    # The scalar input a check reads is keyed by value on the fast path
    # (execution._FastPath): a hit skips check_inputs.
    with FusionDefinition("n") as fd:
        x = fd.define_tensor([-1, 1], D.Float32, name="x")
        n = fd.define_scalar(dtype=D.Index, name="n")
        fd.add_output(fd.ops.layer_norm(fd.ops.expand(x, [-1, n]), [8]))
    x = np.ones((4, 1), np.float32)
    assert execution.check_inputs(fd, [x, 8]) == "cpu"
    assert fd._shape_reads == {1}
    with pytest.raises(FusionInputError, match=r"normalized_shape=\[8\].* size \[4, 5\]"):
        fd.execute([x, 5])


@pytest.mark.parametrize("name, norm", NORMS, ids=norm_ids)
def test_normalized_shape_arguments(name, norm):
    for ns in ([-1], [True], ["a"], [2.0], [], [1, 2, 3]):
        with pytest.raises(FusionDefinitionError, match=f"{name}: normalized_shape"):
            norm_fd(norm, [-1, -1], ns)
    # axis and normalized_shape must agree.
    with pytest.raises(FusionDefinitionError, match=rf"{name}: axis 0 does not match "
                                                    rf"normalized_shape=\[3\]"):
        norm_fd(norm, [2, 3], [3], axis=0)
    assert "axis = 1" in norm_fd(norm, [2, 3], [3], axis=-1).to_mlir()


def test_norm_weights_against_normalized_shape():
    with pytest.raises(FusionDefinitionError,
                       match=r"layer_norm: expected weight to be of same shape as "
                             r"normalized_shape, but got weight of shape \[4\] and "
                             r"normalized_shape=\[5\]"):
        with FusionDefinition() as fd:
            x = fd.define_tensor([-1, -1], D.Float32)
            fd.ops.layer_norm(x, [5], fd.define_tensor([4], D.Float32))
    with pytest.raises(FusionDefinitionError, match=r"rms_norm: expected weight"):
        with FusionDefinition() as fd:
            x = fd.define_tensor([-1, -1], D.Float32)
            fd.ops.rms_norm(x, [5], fd.define_tensor([4], D.Float32))
    with pytest.raises(FusionDefinitionError, match=r"expected bias to be of same shape"):
        with FusionDefinition() as fd:
            x = fd.define_tensor([-1, -1], D.Float32)
            fd.ops.layer_norm(x, [5], None, fd.define_tensor([6], D.Float32))
    # A weight of a higher rank than the input gave a negative axis.
    with pytest.raises(FusionDefinitionError, match=r"layer_norm: weight has rank 2; the "
                                                    r"normalized dims are the input's last 1 "
                                                    r"to 1"):
        with FusionDefinition() as fd:
            x = fd.define_tensor([4], D.Float32)
            fd.ops.layer_norm(x, weight=fd.define_tensor([2, 4], D.Float32))


def test_stride_order_is_a_permutation():
    # Before: accepted whatever it held (it is recorded only).
    for order in ([0], [0, 0], [0, 2], [1, 0, 2], [0, "1"]):
        with pytest.raises(FusionDefinitionError, match=r"define_tensor: stride_order .* is "
                                                        r"not a permutation of the dims of "
                                                        r"rank 2"):
            with FusionDefinition() as fd:
                fd.define_tensor([-1, -1], D.Float32, stride_order=order)
    for order in ([1, 0], (0, 1), [], None):
        with FusionDefinition() as fd:
            fd.define_tensor([-1, -1], D.Float32, stride_order=order)
