"""Checks that need no tools: out-of-range scalar inputs, sizes, strides
and constants (which would wrap). The runtime binding's checks are in
test_runtime_fastpath.py and test_fastpath_ext.py."""
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
