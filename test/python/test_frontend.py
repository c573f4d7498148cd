"""CPU tests of the Python frontend: building definitions for every op, the
printed IR (verified by fusion-opt), promotion and broadcasting, repro round
trips and definition errors."""
import pytest

from fusion import (DataType, FusionDefinition, FusionDefinitionError,
                    FusionError)
from fusion.dtypes import promote, TENSOR, ZERO_DIM, WRAPPED

D = DataType


def build_all_unary():
    with FusionDefinition("unary") as fd:
        x = fd.define_tensor([-1, 4], D.Float32, name="x")
        i = fd.define_tensor([-1, 4], D.Int32)
        b = fd.define_tensor([-1, 4], D.Bool)
        for op in ["neg", "abs", "exp", "exp2", "expm1", "log", "log2", "log1p", "sqrt",
                   "rsqrt", "reciprocal", "sin", "cos", "tan", "tanh", "sigmoid", "erf",
                   "erfc", "relu", "silu", "floor", "ceil", "round", "trunc", "sign",
                   "isnan", "isinf"]:
            fd.add_output(getattr(fd.ops, op)(x))
        for op in ["neg", "abs", "relu", "sign", "bitwise_not", "exp"]:
            fd.add_output(getattr(fd.ops, op)(i))
        fd.add_output(fd.ops.logical_not(b))
        fd.add_output(fd.ops.logical_not(x))
        fd.add_output(fd.ops.bitwise_not(b))
        fd.add_output(fd.ops.gelu(x, approximate="tanh"))
        fd.add_output(fd.ops.gelu(x))
    return fd


def build_all_binary():
    with FusionDefinition("binary") as fd:
        a = fd.define_tensor([-1, -1], D.BFloat16)
        b = fd.define_tensor([-1], D.Float16)
        i = fd.define_tensor([3, 1], D.Int64)
        j = fd.define_tensor([4], D.Int8)
        s = fd.define_scalar(dtype=D.Float64)
        for op in ["add", "sub", "mul", "div", "fmod", "remainder", "pow", "maximum",
                   "minimum", "atan2", "truediv", "eq", "ne", "lt", "le", "gt", "ge",
                   "logical_and", "logical_or", "logical_xor"]:
            fd.add_output(getattr(fd.ops, op)(a, b))
        for op in ["bitwise_and", "bitwise_or", "bitwise_xor", "shift_left",
                   "shift_right", "add", "div", "truediv"]:
            fd.add_output(getattr(fd.ops, op)(i, j))
        fd.add_output(fd.ops.add(a, b, alpha=-0.25))
        fd.add_output(fd.ops.sub(a, 1, alpha=3))
        fd.add_output(fd.ops.mul(a, s))
        fd.add_output(fd.ops.add(s, 2))
        fd.add_output(fd.ops.mul(i, 2.5))
        fd.add_output(fd.ops.where(fd.ops.gt(a, 0), a, 0.0))
        fd.add_output(fd.ops.where(i, 1, 2.0))
        fd.add_output(fd.ops.clamp(a, -1.0, 1.0))
        fd.add_output(fd.ops.clamp(i, min=0))
        fd.add_output(fd.ops.lerp(a, b, 0.5))
        fd.add_output(fd.ops.fma(a, b, a))
        fd.add_output(fd.ops.cast(a, "f8e4m3"))
        fd.add_output(fd.ops.cast(s, D.Int32))
        fd.add_output(fd.ops.add(a, float("inf")))
        fd.add_output(a * 2 + b - 1.0)
    return fd


def build_all_shapes():
    with FusionDefinition("shapes") as fd:
        x = fd.define_tensor([-1, 1, 8], D.Float32)
        v = fd.define_tensor([-1], D.Float32)
        n = fd.define_scalar(dtype=D.Index)
        fd.add_output(fd.ops.broadcast_in_dim(v, [n, -1], [1]))
        fd.add_output(fd.ops.broadcast_in_dim(v, [4, -1, 3], [1]))
        fd.add_output(fd.ops.broadcast_in_dim(2.0, [n, 5], []))
        fd.add_output(fd.ops.expand(x, [-1, 6, -1]))
        fd.add_output(fd.ops.expand(x, [-1, n, 8]))
        fd.add_output(fd.ops.reshape(x, [-1, 4, 2]))
        fd.add_output(fd.ops.reshape(x, [x.size(0), 8]))
        fd.add_output(fd.ops.permute(x, [2, 0, 1]))
        fd.add_output(fd.ops.squeeze(x, [1]))
        fd.add_output(fd.ops.slice(x, [0, 0, 1], [None, 1, 7], [1, 1, 2]))
        fd.add_output(fd.ops.slice(x, [n, 0, 0], [None, 1, 8]))
        fd.add_output(fd.ops.pad(x, [1, 2], 0.5))
        fd.add_output(fd.ops.pad(x, [1, 2, 0, 0, 3, 3]))
        fd.add_output(fd.ops.cat([x, x], 2))
        fd.add_output(fd.ops.cat([x, x], 0))
        fd.add_output(fd.ops.broadcast(v, [False, True]))
        fd.add_output(fd.ops.set(fd.ops.permute(x, [2, 0, 1])))
    return fd


def build_all_factories():
    with FusionDefinition("factories") as fd:
        n = fd.define_scalar(dtype=D.Index)
        seed = fd.define_scalar(dtype=D.Int64)
        fd.add_output(fd.ops.full([n, 4], 1.5, D.Float16))
        fd.add_output(fd.ops.full([2, 4], 0, D.BFloat16))
        fd.add_output(fd.ops.iota(n, 0, 3, D.Int32))
        fd.add_output(fd.ops.iota(16, 0.0, 0.5, D.Float32))
        fd.add_output(fd.ops.rand([n, 8], D.Float32, seed=seed, offset=0))
        fd.add_output(fd.ops.randn([4, 8], D.BFloat16, seed=1, offset=2))
    return fd


def build_all_reductions():
    with FusionDefinition("indexing_reductions") as fd:
        x = fd.define_tensor([-1, 16], D.Float32)
        i = fd.define_tensor([5], D.Int64)
        j = fd.define_tensor([-1, 3], D.Int32)
        y = fd.define_tensor([-1, 4, -1], D.BFloat16)
        k = fd.define_tensor([6, 7], D.Int32)
        fd.add_output(fd.ops.index_select(x, i, 1))
        fd.add_output(fd.ops.gather(x, j, 1))
        fd.add_output(fd.ops.sum(y, [2, 0]))
        fd.add_output(fd.ops.sum(y, 1, keepdim=True))
        fd.add_output(fd.ops.sum(k))
        fd.add_output(fd.ops.prod(k, [0, 1]))
        fd.add_output(fd.ops.max(y, [1]))
        fd.add_output(fd.ops.min(k, [1], keepdim=True))
        v, m = fd.ops.var_mean(y, [2])
        fd.add_output(v)
        fd.add_output(m)
        v, m = fd.ops.var_mean(y, [1, 2], correction=0, keepdim=True)
        fd.add_output(m)
        fd.add_output(fd.ops.argmax(y, 1))
        fd.add_output(fd.ops.argmin(k, 0, keepdim=True))
        fd.add_output(fd.ops.mean(y, [-1]))
    return fd


def build_all_composites():
    with FusionDefinition("composites") as fd:
        x = fd.define_tensor([-1, -1, 64], D.BFloat16)
        w = fd.define_tensor([64], D.BFloat16)
        b = fd.define_tensor([64], D.Float32)
        fd.add_output(fd.ops.softmax(x, -1))
        fd.add_output(fd.ops.log_softmax(x, 0))
        fd.add_output(fd.ops.layer_norm(x, [64], w, b, eps=1e-5))
        fd.add_output(fd.ops.layer_norm(x, eps=1e-12))
        fd.add_output(fd.ops.rms_norm(x, weight=w))
        fd.add_output(fd.ops.rms_norm(x, axis=1))
        fd.add_output(fd.ops.silu(x))
        fd.add_output(fd.ops.gelu(x, approximate="tanh"))
    return fd


BUILDERS = [build_all_unary, build_all_binary, build_all_shapes, build_all_factories,
            build_all_reductions, build_all_composites]


@pytest.mark.parametrize("build", BUILDERS, ids=lambda b: b.__name__)
def test_ir_verifies(build, verify_ir):
    fd = build()
    printed = verify_ir(fd.to_mlir())
    assert f"fusion.fusion @{fd.name}" in printed


@pytest.mark.parametrize("build", BUILDERS, ids=lambda b: b.__name__)
def test_repro_round_trip(build):
    fd = build()
    namespace = {"__name__": "fusion_repro"}
    exec(compile(fd.repro(), "<repro>", "exec"), namespace)
    assert namespace["fd"].to_mlir() == fd.to_mlir()


def test_every_dialect_op_is_covered():
    text = "".join(b().to_mlir() for b in BUILDERS)
    import os
    import re
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    td = open(os.path.join(root, "include/fusion/Dialect/Fusion/IR/FusionOps.td")).read()
    mnemonics = set(re.findall(r'Fusion_\w+Op<"(\w+)"', td))
    mnemonics -= {"fusion", "return"}
    missing = sorted(m for m in mnemonics if f"fusion.{m} " not in text)
    assert not missing, f"ops never built: {missing}"


def test_add_relu_ir():
    with FusionDefinition("add_relu") as fd:
        a = fd.define_tensor([-1, -1], "f32", name="a")
        b = fd.define_tensor([-1, -1], "f32", name="b")
        fd.add_output(fd.ops.relu(fd.ops.add(a, b)))
    assert fd.to_mlir() == (
        'fusion.fusion @add_relu(%T0: tensor<?x?xf32> {fusion.name = "a"}, '
        '%T1: tensor<?x?xf32> {fusion.name = "b"}) -> tensor<?x?xf32> {\n'
        "  %T2 = fusion.add %T0, %T1 : tensor<?x?xf32>\n"
        "  %T3 = fusion.relu %T2 : tensor<?x?xf32>\n"
        "  fusion.return %T3 : tensor<?x?xf32>\n"
        "}\n")


# --- promotion ---------------------------------------------------------------------

@pytest.mark.parametrize("operands,expected", [
    ([(D.Int32, TENSOR), (D.Float16, TENSOR)], D.Float16),
    ([(D.BFloat16, TENSOR), (D.Float16, TENSOR)], D.Float32),
    ([(D.Bool, TENSOR), (D.Int8, TENSOR)], D.Int8),
    ([(D.Int64, TENSOR), (D.Float64, WRAPPED)], D.Float32),
    ([(D.Float16, TENSOR), (D.Float64, WRAPPED)], D.Float16),
    ([(D.BFloat16, TENSOR), (D.Int32, WRAPPED)], D.BFloat16),
    ([(D.Int8, TENSOR), (D.Int64, WRAPPED)], D.Int8),
    ([(D.Bool, TENSOR), (D.Int32, WRAPPED)], D.Int64),
    ([(D.Bool, TENSOR), (D.Bool, WRAPPED)], D.Bool),
    ([(D.Int32, TENSOR), (D.Float64, ZERO_DIM)], D.Float64),
    ([(D.Int8, TENSOR), (D.Int64, ZERO_DIM)], D.Int8),
    ([(D.Float64, WRAPPED), (D.Float64, WRAPPED)], D.Float32),
    ([(D.Int8, WRAPPED), (D.Int16, WRAPPED)], D.Int64),
    ([(D.Float8_e4m3fn, TENSOR), (D.Float8_e4m3fn, TENSOR)], D.Float8_e4m3fn),
])
def test_promotion_table(operands, expected):
    # The examples of include/fusion/Dialect/Fusion/Utils/Promotion.h.
    assert promote(operands) is expected


def test_promotion_fp8_mix_is_an_error():
    with pytest.raises(FusionDefinitionError, match="fp8 is a storage type"):
        promote([(D.Float8_e4m3fn, TENSOR), (D.Float32, TENSOR)])


def test_promotion_and_broadcast_in_ops():
    with FusionDefinition() as fd:
        a = fd.define_tensor([4, 1], D.Int32)
        b = fd.define_tensor([3], D.Float16)
        c = fd.define_tensor([-1, 1], D.BFloat16)
        d = fd.define_tensor([-1], D.Float16)
        s = fd.define_scalar(dtype=D.Float64)
        r1 = fd.ops.add(a, b)
        r2 = fd.ops.mul(c, d)
        r3 = fd.ops.add(a, 1.5)
        r4 = fd.ops.mul(b, s)
        r5 = fd.ops.lt(a, b)
        r6 = fd.ops.add(s, 2)
        r7 = fd.ops.sum(a, [0])
        r8 = fd.ops.exp(a)
        r9 = fd.ops.truediv(a, 2)
        r10 = fd.ops.div(a, 2)
        for r in (r1, r2, r3, r4, r5, r6, r7, r8, r9, r10):
            fd.add_output(r)
    assert (r1.dtype, r1.shape) == (D.Float16, [4, 3])
    assert (r2.dtype, r2.shape) == (D.Float32, [-1, -1])
    assert (r3.dtype, r3.shape) == (D.Float32, [4, 1])
    assert (r4.dtype, r4.shape) == (D.Float16, [3])
    assert (r5.dtype, r5.shape) == (D.Bool, [4, 3])
    assert r6.dtype is D.Float32 and not hasattr(r6, "shape")
    assert (r7.dtype, r7.shape) == (D.Int64, [1])
    assert r8.dtype is D.Float32
    assert r9.dtype is D.Float32 and r10.dtype is D.Int32
    ir = fd.to_mlir()
    # c: ?x1 and d: ? broadcast to ?x?; the sizes are dims of the inputs.
    assert "fusion.dim %T2, 0" in ir and "fusion.dim %T3, 0" in ir
    assert "broadcast_in_dim" in ir and "fusion.cast" in ir


def test_symbolic_sizes_are_input_dims():
    with FusionDefinition("gelu_bias") as fd:
        x = fd.define_tensor([-1, -1], D.BFloat16, name="x")
        bias = fd.define_tensor([-1], D.BFloat16, name="bias")
        y = fd.ops.gelu(fd.ops.add(x, bias), approximate="tanh")
        z = fd.ops.full([fd.ops.size(y, 0), 2], 0.0, D.BFloat16)
        fd.add_output(y)
        fd.add_output(z)
    ir = fd.to_mlir()
    assert "%S2 = fusion.dim %T0, 0" in ir
    assert "%S3 = fusion.dim %T0, 1" in ir
    assert "fusion.broadcast_in_dim %T1 [1] (%S2, %S3)" in ir
    # full's size operand is the same SSA value (y's dim 0 is x's dim 0).
    assert "fusion.full %c" in ir and "(%S2) : bf16 -> tensor<?x2xbf16>" in ir
    assert ir.count("fusion.dim") == 2


def test_reshape_infers_sizes(verify_ir):
    with FusionDefinition() as fd:
        x = fd.define_tensor([2, 3, 4], D.Float32)
        y = fd.define_tensor([-1, 4], D.Float32)
        a = fd.ops.reshape(x, [-1, 4])
        b = fd.ops.reshape(y, [-1, 2, 2])
        fd.add_output(a)
        fd.add_output(b)
    assert a.shape == [6, 4] and b.shape == [-1, 2, 2]
    ir = verify_ir(fd.to_mlir())
    assert "arith.divui" in fd.to_mlir() and "reshape" in ir


def test_constants_are_valid_mlir(verify_ir):
    with FusionDefinition() as fd:
        x = fd.define_tensor([-1], D.BFloat16)
        for c in (1e-5, 1e30, -0.0, float("inf"), float("-inf"), float("nan"), 3, True):
            fd.add_output(fd.ops.add(x, c))
    verify_ir(fd.to_mlir())


def test_dtype_names():
    from fusion.dtypes import to_dtype
    assert to_dtype("bf16") is D.BFloat16
    assert to_dtype("bfloat16") is D.BFloat16
    assert to_dtype("torch.float16") is D.Float16
    assert to_dtype("float") is D.Float32
    assert to_dtype(bool) is D.Bool
    assert D.Float is D.Float32 and D.Half is D.Float16 and D.Double is D.Float64
    with pytest.raises(FusionDefinitionError, match="unsupported dtype"):
        to_dtype("complex64")


# --- definition errors ----------------------------------------------------------------

def test_broadcast_mismatch_names_sizes():
    with pytest.raises(FusionDefinitionError, match="size 4 .* size 5"):
        with FusionDefinition() as fd:
            a = fd.define_tensor([4], D.Float32)
            b = fd.define_tensor([5], D.Float32)
            fd.ops.add(a, b)


def test_definition_unusable_after_error():
    fd = FusionDefinition()
    with fd:
        a = fd.define_tensor([4], D.Float32)
        with pytest.raises(FusionDefinitionError, match="out of range"):
            fd.ops.sum(a, [3])
        with pytest.raises(FusionDefinitionError, match="failed earlier"):
            fd.ops.relu(a)
    assert fd.failed
    with pytest.raises(FusionDefinitionError, match="failed earlier"):
        fd.to_mlir()
    with pytest.raises(FusionDefinitionError, match="failed earlier"):
        fd.execute([[1.0] * 4])


def test_exception_in_with_block_poisons():
    fd = FusionDefinition()
    with pytest.raises(KeyError):
        with fd:
            fd.define_tensor([4], D.Float32)
            raise KeyError("user bug")
    with pytest.raises(FusionDefinitionError, match="failed earlier.*user bug"):
        fd.repro()


@pytest.mark.parametrize("bad", [
    lambda fd, x: fd.ops.add(x, "a"),
    lambda fd, x: fd.ops.add(x, [1, 2]),
    lambda fd, x: fd.ops.permute(x, [0, 0]),
    lambda fd, x: fd.ops.reshape(x, [5, 5]),
    lambda fd, x: fd.ops.squeeze(x, [0]),
    lambda fd, x: fd.ops.gelu(x, approximate="fast"),
    lambda fd, x: fd.ops.cast(x, "complex64"),
    lambda fd, x: fd.ops.bitwise_and(x, x),
    lambda fd, x: fd.ops.exp(fd.ops.cast(x, "f8e4m3")),
    lambda fd, x: fd.ops.index_select(x, x, 0),
    lambda fd, x: fd.ops.slice(x, [0, 0], [1, 1], [0, 1]),
    lambda fd, x: fd.ops.layer_norm(x, weight=fd.define_tensor([5], D.Float32)),
])
def test_bad_ops_raise(bad):
    with pytest.raises(FusionDefinitionError):
        with FusionDefinition() as fd:
            x = fd.define_tensor([3, 4], D.Float32)
            bad(fd, x)


def test_ops_outside_with_block():
    fd = FusionDefinition()
    with pytest.raises(FusionDefinitionError, match="inside `with"):
        fd.define_tensor([1], D.Float32)
    with FusionDefinition() as fd2:
        x = fd2.define_tensor([1], D.Float32)
        fd2.add_output(x)
    with pytest.raises(FusionDefinitionError, match="complete"):
        fd2.ops.relu(x)


def test_values_of_another_definition():
    with FusionDefinition() as other:
        y = other.define_tensor([2], D.Float32)
    with pytest.raises(FusionDefinitionError, match="another FusionDefinition"):
        with FusionDefinition() as fd:
            x = fd.define_tensor([2], D.Float32)
            fd.ops.add(x, y)


def test_errors_are_fusion_errors():
    assert issubclass(FusionDefinitionError, FusionError)
