"""FusionDefinition: build a fusion in Python (nvFuser style), print it as the
fusion dialect's textual IR, and run it (GPU through fusion-translate and the
runtime, CPU through the reference interpreter).

    with FusionDefinition() as fd:
        t0 = fd.define_tensor(shape=[-1, -1], dtype=DataType.Float32)
        t1 = fd.define_tensor(shape=[-1], dtype="f32")
        t2 = fd.ops.relu(fd.ops.add(t0, t1))   # t1 is broadcast
        fd.add_output(t2)
    print(fd.to_mlir())
    out, = fd.execute([x, y])

Every element-wise op promotes its operands like PyTorch (`fusion.cast`
inserted) and broadcasts them like NumPy (`fusion.broadcast_in_dim`
inserted); Python numbers become `arith.constant`s. Sizes are symbolic: a
dim of -1 is dynamic and results carry their sizes as SSA index values
(`fusion.dim` of the inputs), which shape ops get as size operands.
"""

import functools
import math
import os
import re
import struct
import sys

from .dtypes import (DataType, to_dtype, promote, int_range, INT64_MAX, TENSOR,
                     ZERO_DIM, WRAPPED)
from .errors import FusionDefinitionError, FusionError, FusionInputError
from . import execution as _execution

__all__ = ["FusionDefinition", "Tensor", "Scalar", "Value"]


# --- values --------------------------------------------------------------------


class Value:
    """An SSA value of a definition."""

    def __init__(self, fd, name, dtype):
        self.fd = fd
        self.name = name          # SSA name with '%'
        self.dtype = dtype

    @property
    def pyname(self):
        return re.sub(r"[^A-Za-z0-9_]", "_", self.name.lstrip("%"))

    # Python operators build ops on the owning definition.
    def __add__(self, other):
        return self.fd.ops.add(self, other)

    def __radd__(self, other):
        return self.fd.ops.add(other, self)

    def __sub__(self, other):
        return self.fd.ops.sub(self, other)

    def __rsub__(self, other):
        return self.fd.ops.sub(other, self)

    def __mul__(self, other):
        return self.fd.ops.mul(self, other)

    def __rmul__(self, other):
        return self.fd.ops.mul(other, self)

    def __truediv__(self, other):
        return self.fd.ops.truediv(self, other)

    def __rtruediv__(self, other):
        return self.fd.ops.truediv(other, self)

    def __neg__(self):
        return self.fd.ops.neg(self)

    def __abs__(self):
        return self.fd.ops.abs(self)

    def __pow__(self, other):
        return self.fd.ops.pow(self, other)


class Tensor(Value):
    """A tensor value: `shape` has -1 for dynamic dims."""

    def __init__(self, fd, name, dtype, shape, sizes=None):
        super().__init__(fd, name, dtype)
        self.shape = [int(s) for s in shape]
        # Per dim: int (static), a Scalar of dtype Index, a (Tensor, dim)
        # reference, or None (materialized as `fusion.dim` of this value).
        if sizes is None:
            sizes = [None] * len(self.shape)
        self._sizes = [s if self.shape[i] < 0 else self.shape[i]
                       for i, s in enumerate(sizes)]
        # The refs as given (_sizes is updated as values are emitted), and
        # for dims with none, how the size follows from the operands
        # (slice, pad, cat): what Note [Shape checks] evaluates.
        self._refs = tuple(self._sizes)
        self._size_exprs = {}

    @property
    def ndim(self):
        return len(self.shape)

    rank = ndim

    @property
    def type(self):
        return tensor_type(self.shape, self.dtype)

    def size(self, dim):
        """The size of `dim` as an index Scalar (recorded as fd.ops.size)."""
        return self.fd.ops.size(self, dim)

    def _size_ref(self, i):
        """A reference to dim i's size, resolved lazily (no IR yet)."""
        s = self._sizes[i]
        if s is None:
            return (self, i)
        return s

    def _size_value(self, i):
        """Dim i's size as an index Scalar, emitting what it needs."""
        s = self._sizes[i]
        if isinstance(s, int):
            v = self.fd._const(s, DataType.Index)
        elif isinstance(s, Scalar):
            v = s
        elif isinstance(s, tuple):
            v = s[0]._size_value(s[1])
        else:
            v = self.fd._emit_dim(self, i)
        if not isinstance(s, int):
            self._sizes[i] = v
        return v

    def __repr__(self):
        return f"Tensor({self.name}: {self.type})"


class Scalar(Value):
    """A scalar value (an input, a constant, or an element-wise result)."""

    def __init__(self, fd, name, dtype, const=None, origin=None):
        super().__init__(fd, name, dtype)
        self.const = const
        # How an index or integer value follows from others, for Note
        # [Shape checks]: ("dim", tensor, i), ("arith", op, a, b) or
        # ("cast", value); None when it is not known here.
        self.origin = origin

    @property
    def type(self):
        return self.dtype.mlir

    def __repr__(self):
        return f"Scalar({self.name}: {self.type})"


def tensor_type(shape, dtype):
    dims = "".join(("?" if s < 0 else str(s)) + "x" for s in shape)
    return f"tensor<{dims}{dtype.mlir}>"


def value_type(v):
    return v.type


def _is_number(x):
    return isinstance(x, (bool, int, float)) and not isinstance(x, Value)


def _number_dtype(x):
    if isinstance(x, bool):
        return DataType.Bool
    if isinstance(x, int):
        return DataType.Int64
    return DataType.Float64


def format_constant(value, dtype):
    """An `arith.constant` literal of `value` in `dtype`."""
    if dtype.is_bool:
        return "true" if value else "false"
    if dtype.is_int or dtype.is_index:
        if isinstance(value, float):
            if not math.isfinite(value):
                raise FusionDefinitionError(f"cannot convert {value} to {dtype.mlir}")
        value = int(value)
        lo, hi = int_range(dtype)
        if not lo <= value <= hi:
            raise FusionDefinitionError(
                f"constant {value} is out of range for {dtype.mlir}: expected a value "
                f"in [{lo}, {hi}]")
        return str(value)
    value = float(value)
    if math.isfinite(value):
        # MLIR float literals need a '.'; 17 digits round-trip a double.
        text = repr(value)
        if "e" in text or "E" in text:
            text = "%.17e" % value
        elif "." not in text:
            text += ".0"
        return text
    # inf / nan: the hexadecimal bit pattern of the type.
    bits = {
        "f64": (0x7FF0000000000000, 0x7FF8000000000000, 1 << 63, 16),
        "f32": (0x7F800000, 0x7FC00000, 1 << 31, 8),
        "f16": (0x7C00, 0x7E00, 1 << 15, 4),
        "bf16": (0x7F80, 0x7FC0, 1 << 15, 4),
        "f8E5M2": (0x7C, 0x7E, 0x80, 2),
        "f8E4M3FN": (None, 0x7F, 0x80, 2),
    }[dtype.mlir]
    inf, nan, sign, width = bits
    if math.isnan(value):
        pattern = nan
    else:
        if inf is None:
            raise FusionDefinitionError(f"{dtype.mlir} has no infinity")
        pattern = inf | (sign if value < 0 else 0)
    return "0x%0*X" % (width, pattern)


def _normalize_dim(d, rank, what="dim"):
    if not isinstance(d, int) or isinstance(d, bool):
        raise FusionDefinitionError(f"{what} must be an int, got {d!r}")
    if d < -rank or d >= max(rank, 1) and not (rank == 0 and d in (0, -1)):
        raise FusionDefinitionError(f"{what} {d} is out of range for rank {rank}")
    return d + rank if d < 0 else d


def _dims_list(dims, rank):
    if dims is None:
        return list(range(rank))
    if isinstance(dims, int):
        dims = [dims]
    out = [_normalize_dim(d, rank) for d in dims]
    if len(set(out)) != len(out):
        raise FusionDefinitionError(f"dims {list(dims)} repeat a dim")
    return out


def _shape_text(sizes):
    """[2, ?, 3]: sizes with None or -1 for the unknown ones."""
    return "[" + ", ".join("?" if s is None or s < 0 else str(s) for s in sizes) + "]"


def _norm_shape_message(what, ns, sizes, noun):
    """torch's message for a normalized_shape that is not the input's
    trailing sizes."""
    return (f"{what}: given normalized_shape={ns}, expected input with shape "
            f"[*, {', '.join(str(n) for n in ns)}], but got input of {noun} "
            f"{_shape_text(sizes)}")


# --- the recorder ----------------------------------------------------------------


# Note [Source locations]: every op the frontend writes carries the Python
# line that asked for it, `loc("model.py":42:8)`: a top-level builder call
# records its caller's file, line and column (CPython 3.11+ has columns),
# and every line it emits, nested helpers' included, gets that location.
# The compiler's diagnostics then point at the user's line (the C API
# returns them with their file locations; _compiler.py quotes the line).
# to_mlir() prints without locations; to_mlir(locations=True) is what gets
# compiled. The persistent compile cache is keyed without locations
# (Note [Compile cache]), so the same fusion at another line hits it.

_PKG_DIR = os.path.dirname(os.path.abspath(__file__))


def _caller_location(depth=2):
    """(file, line, column) of the first frame outside this package, from
    `depth` frames up."""
    try:
        f = sys._getframe(depth)
    except ValueError:
        return None
    while f is not None and os.path.dirname(os.path.abspath(f.f_code.co_filename)) == _PKG_DIR:
        f = f.f_back
    if f is None:
        return None
    column = 0
    positions = getattr(f.f_code, "co_positions", None)
    if positions is not None and f.f_lasti >= 0:
        for k, pos in enumerate(positions()):
            if k == f.f_lasti // 2:
                if pos[0] == f.f_lineno and pos[2] is not None:
                    column = pos[2] + 1
                break
    return (f.f_code.co_filename, f.f_lineno, column)


def _loc_text(loc):
    if loc is None:
        return ""
    name = loc[0].replace("\\", "\\\\").replace('"', '\\"')
    return f' loc("{name}":{loc[1]}:{loc[2]})'


def _api(fn):
    """Marks a user-facing builder call: checks the definition is usable,
    records the call for repro() (top-level calls only), and poisons the
    definition if the call fails."""

    @functools.wraps(fn)
    def wrapper(self, *args, **kwargs):
        fd = self if isinstance(self, FusionDefinition) else self._fd
        fd._check_building(fn.__name__)
        top = fd._depth == 0
        if top:
            fd._loc = _caller_location()
        fd._depth += 1
        try:
            result = fn(self, *args, **kwargs)
        except Exception as e:
            fd._poison(e)
            if isinstance(e, FusionError):
                raise
            raise FusionDefinitionError(f"{fn.__name__}: {e}") from e
        finally:
            fd._depth -= 1
            if top:
                fd._loc = None
        if top:
            prefix = "fd." if isinstance(self, FusionDefinition) else "fd.ops."
            fd._calls.append((prefix + fn.__name__, args, kwargs, result))
        return result

    return wrapper


def _src(x):
    """Python source of a recorded argument."""
    if isinstance(x, Value):
        return x.pyname
    if isinstance(x, DataType):
        return repr(x)
    if x is None or isinstance(x, (bool, int, str)):
        return repr(x)
    if isinstance(x, float):
        if math.isnan(x):
            return "float('nan')"
        if math.isinf(x):
            return "float('inf')" if x > 0 else "float('-inf')"
        return repr(x)
    if isinstance(x, (list, tuple)):
        inner = ", ".join(_src(e) for e in x)
        if isinstance(x, tuple):
            return "(" + inner + ("," if len(x) == 1 else "") + ")"
        return "[" + inner + "]"
    if isinstance(x, dict):
        return "{" + ", ".join(f"{_src(k)}: {_src(v)}" for k, v in x.items()) + "}"
    try:
        return repr(to_dtype(x))
    except FusionError:
        pass
    raise FusionDefinitionError(f"cannot write {x!r} in a repro")


# --- the definition --------------------------------------------------------------


def _describe_input(x):
    """dtype, shape, strides (in elements) and device of an execute input."""
    if isinstance(x, (bool, int, float)):
        return f"{type(x).__name__} {x!r}"
    dtype = str(getattr(x, "dtype", type(x).__name__)).replace("torch.", "")
    shape = list(getattr(x, "shape", []))
    strides = None
    if callable(getattr(x, "stride", None)):
        strides = list(x.stride())
    elif hasattr(x, "strides") and hasattr(x, "itemsize"):
        strides = [s // x.itemsize for s in x.strides]
    device = getattr(x, "device", "cpu")
    return f"{dtype} shape {shape} strides {strides} on {device}"


def _versions():
    import platform
    parts = [f"fusion {_execution.package_version()}", f"python {platform.python_version()}"]
    for name in ("numpy", "torch"):
        module = sys.modules.get(name)
        if module is not None:
            parts.append(f"{name} {getattr(module, '__version__', '?')}")
            if name == "torch" and getattr(module, "version", None) is not None:
                cuda = getattr(module.version, "cuda", None)
                if cuda:
                    parts.append(f"CUDA {cuda}")
    return ", ".join(parts)



class FusionDefinition:
    """A fusion under construction; use as a context manager, or subclass it
    and write the ops in `definition(self)` (nvFuser's style):

        class AddRelu(FusionDefinition):
            def definition(self):
                a = self.define_tensor([-1, -1], DataType.Float32)
                self.add_output(self.ops.relu(self.ops.add(a, a)))

            def schedule(self):            # optional: execute's default
                return {"unroll": 2}

        fd = AddRelu()                     # named "AddRelu"
        fd.execute([x])

    Ops live under `fd.ops`; `print(fd)` shows the definition as Python
    (`fd.repro()`, a runnable script), `fd.to_mlir()` the IR, and
    `fd.execute(inputs)` runs it.
    """

    def __init__(self, name=None):
        if name is None:
            subclass = type(self) is not FusionDefinition
            name = type(self).__name__ if subclass else "fusion"
        if not re.match(r"^[A-Za-z_][A-Za-z0-9_$.]*$", str(name)):
            raise FusionDefinitionError(f"invalid fusion name {name!r}")
        self.name = str(name)
        self.ops = Ops(self)
        self.inputs = []          # Values, in order
        self.outputs = []
        self._lines = []
        self._counter = 0
        self._consts = {}
        self._dims = {}
        self._calls = []
        # Note [Shape checks]: (what, tensor, first dim, normalized_shape).
        self._shape_checks = []
        self._depth = 0
        # Note [Source locations]: the current top-level call's, and the
        # definition's own (where it was created).
        self._loc = None
        self._def_loc = _caller_location()
        self._state = "new"       # new -> building -> done; or failed
        self._error = None
        self._mlir = None
        self._executions = {}
        self.last_execution = None
        # execution._FastPath once a signature has run on the GPU.
        self._fast_path = None

    # -- the subclass style --
    def _has_definition(self):
        return type(self).definition is not FusionDefinition.definition

    def definition(self):
        """Override to write the ops (self.define_tensor, self.ops.X,
        self.add_output); runs once, on first use."""
        raise FusionDefinitionError(
            "definition(): build the fusion in a `with FusionDefinition() as fd:` "
            "block, or subclass FusionDefinition and override definition()")

    def schedule(self):
        """Override to return execute()'s default schedule dict (the keys of
        execute's `schedule`); None: the heuristics'."""
        return None

    def _define(self):
        """Runs a subclass's definition() the first time it is needed."""
        if self._state != "new" or not self._has_definition():
            return
        with self:
            self.definition()

    # -- context manager --
    def __enter__(self):
        if self._state != "new":
            raise FusionDefinitionError(
                "a FusionDefinition can be entered once; make a new one")
        self._state = "building"
        return self

    def __exit__(self, exc_type, exc, tb):
        if exc is not None:
            if self._state != "failed":
                self._poison(exc)
            return False
        if self._state == "building":
            self._state = "done"
        return False

    def _check_building(self, what):
        if self._state == "failed":
            raise FusionDefinitionError(
                f"{what}: this definition failed earlier and cannot be used: "
                f"{self._error}")
        if self._state == "new":
            raise FusionDefinitionError(
                f"{what}: build a definition inside `with FusionDefinition() as fd:`")
        if self._state == "done":
            raise FusionDefinitionError(
                f"{what}: the definition is complete (its `with` block ended)")

    def _check_usable(self, what):
        if self._state == "failed":
            raise FusionDefinitionError(
                f"{what}: this definition failed earlier and cannot be used: "
                f"{self._error}")

    def __getstate__(self):
        # copy.copy / pickle: not the C execute (Note [C execute] in
        # lib/Python/fastpath.c), which is bound to this definition; a copy
        # uses the class's execute until it binds its own.
        state = self.__dict__.copy()
        state.pop("execute", None)
        return state

    def _poison(self, exc):
        self._fast_path = None
        # The C execute (Note [C execute] in lib/Python/fastpath.c) goes too:
        # the class's execute raises for a failed definition.
        self.__dict__.pop("execute", None)
        if self._state != "failed":
            self._state = "failed"
            self._error = f"{type(exc).__name__}: {exc}"

    @property
    def failed(self):
        return self._state == "failed"

    # -- names and emission --
    def _new_name(self, prefix):
        name = f"%{prefix}{self._counter}"
        self._counter += 1
        return name

    def _emit(self, line):
        self._lines.append((line, self._loc))

    def _new_tensor(self, dtype, shape, sizes=None):
        return Tensor(self, self._new_name("T"), dtype, shape, sizes)

    def _new_scalar(self, dtype, const=None, origin=None):
        return Scalar(self, self._new_name("S"), dtype, const, origin)

    def _const(self, value, dtype):
        """A memoized `arith.constant` (scalars of any element type, index)."""
        text = format_constant(value, dtype)
        key = (text, dtype.mlir)
        v = self._consts.get(key)
        if v is None:
            v = Scalar(self, f"%c{self._counter}", dtype, const=value)
            self._counter += 1
            suffix = "" if dtype.is_bool else f" : {dtype.mlir}"
            self._emit(f"{v.name} = arith.constant {text}{suffix}")
            self._consts[key] = v
        return v

    def _emit_dim(self, t, i):
        key = (t.name, i)
        v = self._dims.get(key)
        if v is None:
            v = self._new_scalar(DataType.Index, origin=("dim", t, i))
            self._emit(f"{v.name} = fusion.dim {t.name}, {i} : {t.type}")
            self._dims[key] = v
        return v

    def _size_operands(self, shape, sizes):
        """The index operands of a shape op: one per dynamic result dim."""
        out = []
        for i, s in enumerate(shape):
            if s >= 0:
                continue
            ref = sizes[i]
            if isinstance(ref, Scalar):
                out.append(ref)
            elif isinstance(ref, tuple):
                out.append(ref[0]._size_value(ref[1]))
            else:
                raise FusionDefinitionError(f"internal: no size for dynamic dim {i}")
        return out

    @staticmethod
    def _paren(vals):
        return "(" + ", ".join(v.name for v in vals) + ")" if vals else ""

    # -- shape checks at execution time --

    # Note [Shape checks]: a shape argument the IR does not carry
    # (normalized_shape: fusion.layer_norm and fusion.rms_norm have an axis
    # only) is compared with the input's sizes when the op is defined where
    # they are static, and recorded in _shape_checks where they are not;
    # _check_shapes() compares those when execute() checks its inputs
    # (execution.check_inputs), before anything runs. A size is evaluated
    # from the inputs' sizes and integer/index scalar inputs through the
    # refs the tensors keep (input dims, constants, fusion.dim, index
    # arithmetic, casts, slice/pad/cat extents); a size computed from
    # scalars by other ops is not evaluated and goes unchecked. The fast
    # path skips check_inputs on a hit: the scalar inputs a check reads are
    # keyed by value there (execution._FastPath), tensor sizes are always.
    def _eval_dim(self, t, i, inputs, reads):
        if t.shape[i] >= 0:
            return t.shape[i]
        k = getattr(t, "input_index", None)
        if k is not None:
            return int(inputs[k].shape[i])
        ref = t._refs[i]
        if ref is None:
            return self._eval_expr(t._size_exprs.get(i), inputs, reads)
        return self._eval_ref(ref, inputs, reads)

    def _eval_ref(self, ref, inputs, reads):
        if isinstance(ref, int):
            return ref
        if isinstance(ref, tuple):
            return self._eval_dim(ref[0], ref[1], inputs, reads)
        if isinstance(ref, Scalar):
            return self._eval_scalar(ref, inputs, reads)
        return None

    def _eval_scalar(self, s, inputs, reads):
        if s.const is not None:
            return int(s.const)
        k = getattr(s, "input_index", None)
        if k is not None:
            if not (s.dtype.is_int or s.dtype.is_index):
                return None
            reads.add(k)
            return int(inputs[k])
        origin = s.origin
        if origin is None:
            return None
        if origin[0] == "dim":
            return self._eval_dim(origin[1], origin[2], inputs, reads)
        if origin[0] == "cast":  # to an integer type or index: wraps as it does
            v = self._eval_scalar(origin[1], inputs, reads)
            if v is None:
                return None
            bits = s.dtype.bits
            v &= (1 << bits) - 1
            return v - (1 << bits) if v >> (bits - 1) else v
        op, a, b = origin[1], self._eval_scalar(origin[2], inputs, reads), \
            self._eval_scalar(origin[3], inputs, reads)
        if a is None or b is None:
            return None
        if op == "muli":
            return a * b
        if op == "addi":
            return a + b
        return a // b if op == "divui" and b > 0 and a >= 0 else None

    def _eval_expr(self, expr, inputs, reads):
        if expr is None:
            return None
        if expr[0] == "pad":
            v = self._eval_ref(expr[1], inputs, reads)
            return None if v is None else v + expr[2]
        if expr[0] == "cat":
            vs = [self._eval_ref(r, inputs, reads) for r in expr[1]]
            return None if None in vs else sum(vs)
        # slice: bounds clamp to [0, size] (Ops.slice)
        _, size_ref, start, stop, step = expr
        size = self._eval_ref(size_ref, inputs, reads)
        lo = 0 if start is None else self._eval_ref(start, inputs, reads)
        hi = size if stop is None else self._eval_ref(stop, inputs, reads)
        st = 1 if step is None else self._eval_ref(step, inputs, reads)
        if None in (size, lo, hi, st) or st < 1:
            return None
        lo, hi = min(max(lo, 0), size), min(max(hi, 0), size)
        return max(0, -(-(hi - lo) // st))

    def _check_shapes(self, inputs):
        """Note [Shape checks]: raises FusionInputError where a recorded
        shape argument differs from the sizes of these (checked) inputs;
        returns the indices of the scalar inputs it read."""
        reads = set()
        for what, t, a, ns in self._shape_checks:
            got = [self._eval_dim(t, a + i, inputs, reads) for i in range(len(ns))]
            if any(g is not None and g != n for g, n in zip(got, ns)):
                sizes = [self._eval_dim(t, i, inputs, set()) for i in range(t.ndim)]
                raise FusionInputError(_norm_shape_message(what, ns, sizes, "size"))
        return reads

    # -- inputs and outputs --
    @_api
    def define_tensor(self, shape=None, dtype=DataType.Float32, contiguity=None,
                      name=None, symbolic_sizes=None, stride_order=None):
        """A tensor input. `shape`: a list with -1 for dynamic dims (default:
        rank given by `contiguity`, all dynamic). `contiguity` and
        `stride_order` are accepted for nvFuser compatibility and recorded;
        the runtime takes any strides."""
        if shape is None and symbolic_sizes is not None:
            shape = symbolic_sizes
        if shape is None:
            if contiguity is None:
                raise FusionDefinitionError("define_tensor needs a shape")
            shape = [-1] * len(contiguity)
        shape = list(shape)
        for s in shape:
            if not isinstance(s, int) or isinstance(s, bool) or s < -1 or s > INT64_MAX:
                raise FusionDefinitionError(
                    f"define_tensor: shape entries are sizes in [0, {INT64_MAX}] or -1 "
                    f"(dynamic), got {shape}")
        dtype = to_dtype(dtype)
        if dtype.is_index:
            raise FusionDefinitionError("define_tensor: index is a scalar-only type")
        if contiguity is not None and not isinstance(contiguity, bool) and \
                len(contiguity) != len(shape):
            raise FusionDefinitionError(
                f"define_tensor: contiguity has {len(contiguity)} entries for rank {len(shape)}")
        if stride_order is not None and len(stride_order) and (
                any(not isinstance(d, int) or isinstance(d, bool) for d in stride_order)
                or sorted(stride_order) != list(range(len(shape)))):
            raise FusionDefinitionError(
                f"define_tensor: stride_order {list(stride_order)} is not a permutation "
                f"of the dims of rank {len(shape)}")
        if len(shape) > 8:
            raise FusionDefinitionError("define_tensor: rank above 8 is not supported")
        t = self._new_tensor(dtype, shape)
        t.input_name = name
        t.input_index = len(self.inputs)
        t.contiguity = contiguity
        self.inputs.append(t)
        return t

    @_api
    def define_scalar(self, value=None, dtype=None, name=None):
        """A scalar: an input if `value` is None, else a constant."""
        if dtype is None:
            if value is None:
                dtype = DataType.Float64
            else:
                dtype = _number_dtype(value)
        dtype = to_dtype(dtype)
        if value is not None:
            if not _is_number(value):
                raise FusionDefinitionError(
                    f"define_scalar: value must be a Python number, got {value!r}")
            return self._const(value, dtype)
        s = self._new_scalar(dtype)
        s.input_name = name
        s.input_index = len(self.inputs)
        self.inputs.append(s)
        return s

    @_api
    def add_output(self, value):
        if _is_number(value):
            raise FusionDefinitionError(
                "add_output: a Python number is not a value of the definition")
        self._own(value, "add_output")
        self.outputs.append(value)

    def _own(self, v, what):
        if not isinstance(v, Value):
            raise FusionDefinitionError(
                f"{what}: expected a Tensor or Scalar of this definition, got {type(v).__name__}")
        if v.fd is not self:
            raise FusionDefinitionError(f"{what}: {v!r} belongs to another FusionDefinition")
        return v

    # -- printing --
    def to_mlir(self, locations=False):
        """The definition as the fusion dialect's textual IR; with
        `locations`, each op carries the Python line that wrote it
        (`loc("model.py":42:8)`)."""
        self._define()
        self._check_usable("to_mlir")
        args = []
        for v in self.inputs:
            attr = ""
            if getattr(v, "input_name", None):
                attr = ' {fusion.name = "%s"}' % v.input_name.replace('"', '\\"')
            args.append(f"{v.name}: {v.type}{attr}")
        results = [o.type for o in self.outputs]
        sig = f"fusion.fusion @{self.name}({', '.join(args)})"
        if len(results) == 1:
            sig += f" -> {results[0]}"
        elif results:
            sig += f" -> ({', '.join(results)})"
        lines = [sig + " {"]
        if locations:
            lines += ["  " + line + _loc_text(loc) for line, loc in self._lines]
        else:
            lines += ["  " + line for line, _ in self._lines]
        if self.outputs:
            lines.append(f"  fusion.return {', '.join(o.name for o in self.outputs)} : "
                         f"{', '.join(results)}")
        else:
            lines.append("  fusion.return")
        lines.append("}" + (_loc_text(self._def_loc) if locations else ""))
        return "\n".join(lines) + "\n"

    def __str__(self):
        """The definition as Python (a runnable script: repro())."""
        return self.repro()

    def __repr__(self):
        return (f"<{type(self).__name__} @{self.name}: {len(self.inputs)} inputs, "
                f"{len(self.outputs)} outputs, {self._state}>")

    def repro(self, inputs=None):
        """A runnable Python script that rebuilds this definition (and prints
        its IR); with `inputs`, comments give each input's dtype, shape,
        strides and device, and the versions of Fusion, Python, numpy and
        torch."""
        self._define()
        self._check_usable("repro")
        lines = ["# Fusion repro: rebuilds the definition and prints its IR.",
                 "from fusion import FusionDefinition, DataType", ""]
        if inputs is not None:
            header = [f"# versions: {_versions()}"]
            header += [f"# input {i}: {_describe_input(x)}" for i, x in enumerate(inputs)]
            lines[1:1] = header
        lines.append(f"with FusionDefinition({self.name!r}) as fd:")
        if not self._calls:
            lines.append("    pass")
        for fn, args, kwargs, result in self._calls:
            call_args = [_src(a) for a in args] + [f"{k}={_src(v)}" for k, v in kwargs.items()]
            call = f"{fn}({', '.join(call_args)})"
            if result is None:
                lines.append(f"    {call}")
            elif isinstance(result, tuple):
                lines.append(f"    {', '.join(r.pyname for r in result)} = {call}")
            else:
                lines.append(f"    {result.pyname} = {call}")
        lines += ["", 'if __name__ == "__main__":', "    print(fd.to_mlir(), end=\"\")", ""]
        return "\n".join(lines)

    # -- execution --
    def execute(self, inputs, dump=None, schedule=None, device=None):
        """Runs the fusion. torch CUDA tensors: compiled with fusion-translate
        (once per IR and input signature) and run by the runtime on the
        current stream; returns torch tensors. numpy arrays or CPU torch
        tensors: run by the reference interpreter; returns numpy arrays.
        `dump`: "ir,ptx,plan" (or $FUSION_DUMP). `schedule`: {"unroll": N,
        "blocks_per_sm": N, "inner_items": N, ..., "chip": "sm_90a",
        "sm_count": N} (execution.SCHEDULE_KEYS; docs/python.md)."""
        # The C fast path first (Note [Lean execute] in execution.py): a
        # signature this definition has run before, no dump, no schedule.
        fast = self._fast_path
        if fast is not None and dump is None and schedule is None and device is None:
            native = fast.native
            if native is not None and not _execution.dump_requested():
                outputs = native.call(inputs, None, None, self)
                if outputs is not None:
                    return outputs
        execution = _execution
        self._define()
        self._check_usable("execute")
        if self._state == "building":
            raise FusionDefinitionError(
                "execute: finish the definition (leave its `with` block) first")
        if self._state == "new":
            raise FusionDefinitionError("execute: the definition is empty")
        inputs = list(inputs)
        try:
            return execution.execute(self, inputs, dump=dump, schedule=schedule,
                                     device=device)
        except FusionError as e:
            # A compile or run that failed: the message ends with a repro
            # (FusionInputErrors name the input; they need none).
            if isinstance(e, (FusionInputError, FusionDefinitionError)) or \
                    getattr(e, "repro", None) is not None:
                raise
            try:
                e.repro = self.repro(inputs)
            except FusionError:
                raise e
            e.args = (f"{e}\n\n{e.repro}",)
            raise


# --- ops -----------------------------------------------------------------------


_UNARY_FLOAT = ["exp", "exp2", "expm1", "log", "log2", "log1p", "sqrt", "rsqrt",
                "reciprocal", "sin", "cos", "tan", "tanh", "sigmoid", "erf",
                "erfc", "silu", "floor", "ceil", "round", "trunc"]
_UNARY_NUMERIC = ["neg", "abs", "relu", "sign"]
_BINARY_NUMERIC = ["mul", "div", "fmod", "remainder", "maximum", "minimum"]
_BINARY_FLOAT = ["pow", "atan2"]
_BINARY_LOGICAL = ["logical_and", "logical_or", "logical_xor"]
_BINARY_BITWISE = ["bitwise_and", "bitwise_or", "bitwise_xor", "shift_left",
                   "shift_right"]
_COMPARE = ["eq", "ne", "lt", "le", "gt", "ge"]


class Ops:
    """The ops of a FusionDefinition (`fd.ops`)."""

    def __init__(self, fd):
        self._fd = fd

    # -- helpers --
    def _value(self, x, what):
        if isinstance(x, Value):
            return self._fd._own(x, what)
        if _is_number(x):
            return x
        raise FusionDefinitionError(
            f"{what}: expected a Tensor, Scalar or Python number, got {type(x).__name__}")

    def _tensor(self, x, what):
        if not isinstance(x, Tensor):
            raise FusionDefinitionError(
                f"{what}: expected a Tensor, got {type(x).__name__}")
        return self._fd._own(x, what)

    def _cast(self, v, dtype):
        """Casts a Value (or materializes a number) to dtype."""
        fd = self._fd
        if _is_number(v):
            return fd._const(v, dtype)
        if v.dtype is dtype:
            return v
        if isinstance(v, Scalar):
            if v.const is not None:
                return fd._const(v.const, dtype)
            if v.dtype.is_index:
                r = fd._new_scalar(DataType.Int64, origin=("cast", v))
                fd._emit(f"{r.name} = arith.index_cast {v.name} : index to i64")
                return self._cast(r, dtype)
            if dtype.is_index:
                src = self._cast(v, DataType.Int64)
                r = fd._new_scalar(DataType.Index, origin=("cast", src))
                fd._emit(f"{r.name} = arith.index_cast {src.name} : i64 to index")
                return r
            r = fd._new_scalar(dtype, origin=("cast", v) if v.dtype.is_int and dtype.is_int
                               else None)
            fd._emit(f"{r.name} = fusion.cast {v.name} : {v.type} to {r.type}")
            return r
        r = fd._new_tensor(dtype, v.shape, [v._size_ref(i) for i in range(v.ndim)])
        fd._emit(f"{r.name} = fusion.cast {v.name} : {v.type} to {r.type}")
        return r

    def _broadcast_shape(self, tensors):
        """NumPy broadcasting of tensor shapes: (shape, size refs)."""
        rank = max((t.ndim for t in tensors), default=0)
        shape, sizes = [], []
        for i in range(rank):
            static, dynamic = [], None
            for k, t in enumerate(tensors):
                d = i - (rank - t.ndim)
                if d < 0:
                    continue
                s = t.shape[d]
                if s < 0:
                    if dynamic is None:
                        dynamic = t._size_ref(d)
                elif s != 1:
                    static.append((s, k, d))
            if static:
                s0 = static[0]
                for s in static[1:]:
                    if s[0] != s0[0]:
                        raise FusionDefinitionError(
                            f"cannot broadcast: operand {s0[1]} has size {s0[0]} in dim "
                            f"{s0[2]} but operand {s[1]} has size {s[0]} in dim {s[2]} "
                            f"(shapes {[t.shape for t in tensors]})")
                shape.append(s0[0])
                sizes.append(s0[0])
            elif dynamic is not None:
                shape.append(-1)
                sizes.append(dynamic)
            else:
                shape.append(1)
                sizes.append(1)
        return shape, sizes

    def _broadcast_to(self, v, shape, sizes):
        fd = self._fd
        if isinstance(v, Tensor) and v.shape == shape:
            return v
        if isinstance(v, Tensor):
            dims = list(range(len(shape) - v.ndim, len(shape)))
        else:
            dims = []
        operands = fd._size_operands(shape, sizes)
        r = fd._new_tensor(v.dtype, shape, sizes)
        fd._emit(f"{r.name} = fusion.broadcast_in_dim {v.name} {dims}"
                 f"{(' ' + fd._paren(operands)) if operands else ''} : {v.type} -> {r.type}")
        return r

    def _prepare(self, operands, what, dtype=None, compute=None):
        """Promotes and broadcasts element-wise operands. `dtype` forces the
        common type; `compute(dtype) -> dtype` adjusts the promoted one."""
        vals = [self._value(x, what) for x in operands]
        if dtype is None:
            roles = []
            for v in vals:
                if _is_number(v):
                    roles.append((_number_dtype(v), WRAPPED))
                elif isinstance(v, Scalar):
                    roles.append((v.dtype, WRAPPED))
                elif v.ndim == 0:
                    roles.append((v.dtype, ZERO_DIM))
                else:
                    roles.append((v.dtype, TENSOR))
            dtype = promote(roles)
            if compute is not None:
                dtype = compute(dtype)
        tensors = [v for v in vals if isinstance(v, Tensor)]
        out = [self._cast(v, dtype) for v in vals]
        if not tensors:
            return out, None
        shape, sizes = self._broadcast_shape(tensors)
        return [self._broadcast_to(v, shape, sizes) for v in out], (shape, sizes)

    def _result(self, dtype, like):
        fd = self._fd
        if like is None:
            return fd._new_scalar(dtype)
        shape, sizes = like
        return fd._new_tensor(dtype, shape, list(sizes))

    @staticmethod
    def _to_float(dt):
        return dt if dt.is_float else DataType.Float32

    @staticmethod
    def _check_not_fp8(dt, what):
        if dt.is_fp8:
            raise FusionDefinitionError(
                f"{what}: {dt.mlir} is a storage type; cast to a wider float first")
        return dt

    def _unary(self, op, x, kind, suffix=""):
        fd = self._fd
        x = self._value(x, op)

        def compute(dt):
            self._check_not_fp8(dt, op)
            if kind == "float":
                return self._to_float(dt)
            return dt

        if kind == "numeric" and not _is_number(x) and x.dtype.is_bool and \
                op not in ("abs", "relu"):
            raise FusionDefinitionError(f"{op}: not defined on bool; cast first")
        (v,), like = self._prepare([x], op, compute=compute)
        if kind == "numeric" and v.dtype.is_bool:
            # abs/relu of a bool are the identity.
            return v
        r = self._result(v.dtype, like)
        fd._emit(f"{r.name} = fusion.{op} {v.name}{suffix} : {v.type}")
        return r

    def _binary(self, op, a, b, kind, alpha=None):
        fd = self._fd

        def compute(dt):
            self._check_not_fp8(dt, op)
            if kind == "float":
                return self._to_float(dt)
            if kind == "bitwise" and dt.is_float:
                raise FusionDefinitionError(f"{op}: needs integer or bool operands, got {dt.mlir}")
            if kind == "numeric" and dt.is_bool:
                if op in ("mul", "maximum", "minimum"):
                    return dt if op != "mul" else DataType.Bool
                raise FusionDefinitionError(f"{op}: not defined on bool operands; cast first")
            return dt

        if kind == "logical":
            (va, vb), like = self._prepare([a, b], op, dtype=DataType.Bool)
        else:
            (va, vb), like = self._prepare([a, b], op, compute=compute)
        if va.dtype.is_bool and op in ("mul", "maximum", "minimum"):
            op = {"mul": "logical_and", "maximum": "logical_or",
                  "minimum": "logical_and"}[op]
        r = self._result(va.dtype, like)
        attr = ""
        if alpha is not None and alpha != 1:
            attr = f" alpha = {format_constant(float(alpha), DataType.Float64)}"
        fd._emit(f"{r.name} = fusion.{op} {va.name}, {vb.name}{attr} : {va.type}")
        return r

    # -- size queries --
    @_api
    def size(self, t, dim):
        """The size of a dim as an index Scalar."""
        t = self._tensor(t, "size")
        d = _normalize_dim(dim, t.ndim)
        return t._size_value(d)

    @_api
    def shape(self, t):
        """All sizes as index Scalars."""
        t = self._tensor(t, "shape")
        return tuple(t._size_value(d) for d in range(t.ndim))

    # -- element-wise --
    @_api
    def add(self, a, b, alpha=None):
        """`a + alpha * b` (torch.add)."""
        if alpha is not None and not _is_number(alpha):
            raise FusionDefinitionError("add: alpha must be a Python number")
        return self._binary("add", a, b, "numeric", alpha=alpha) \
            if not self._both_bool(a, b) else self._binary("logical_or", a, b, "logical")

    def _both_bool(self, a, b):
        def isb(x):
            return isinstance(x, bool) or (isinstance(x, Value) and x.dtype.is_bool)
        return isb(a) and isb(b)

    @_api
    def sub(self, a, b, alpha=None):
        """`a - alpha * b` (torch.sub)."""
        if alpha is not None and alpha != 1:
            if not _is_number(alpha):
                raise FusionDefinitionError("sub: alpha must be a Python number")
            return self._binary("add", a, b, "numeric", alpha=-alpha)
        return self._binary("sub", a, b, "numeric")

    @_api
    def truediv(self, a, b):
        """True division: integer operands are promoted to f32 first
        (torch.div's default)."""
        return self._binary("div", a, b, "float")

    @_api
    def clamp(self, x, min=None, max=None):
        """`min(max(x, lo), hi)`; either bound may be None."""
        fd = self._fd
        if min is None and max is None:
            raise FusionDefinitionError("clamp: give min, max or both")
        if min is None:
            return self.minimum(x, max)
        if max is None:
            return self.maximum(x, min)
        (v, lo, hi), like = self._prepare(
            [x, min, max], "clamp",
            compute=lambda dt: self._check_not_fp8(dt, "clamp"))
        if v.dtype.is_bool:
            raise FusionDefinitionError("clamp: not defined on bool")
        r = self._result(v.dtype, like)
        fd._emit(f"{r.name} = fusion.clamp {v.name}, {lo.name}, {hi.name} : {v.type}")
        return r

    def _ternary_float(self, op, a, b, c):
        fd = self._fd
        (va, vb, vc), like = self._prepare(
            [a, b, c], op,
            compute=lambda dt: self._to_float(self._check_not_fp8(dt, op)))
        r = self._result(va.dtype, like)
        fd._emit(f"{r.name} = fusion.{op} {va.name}, {vb.name}, {vc.name} : {va.type}")
        return r

    @_api
    def lerp(self, start, end, weight):
        """`start + weight * (end - start)`."""
        return self._ternary_float("lerp", start, end, weight)

    @_api
    def fma(self, a, b, c):
        """`a * b + c` with one rounding."""
        return self._ternary_float("fma", a, b, c)

    @_api
    def where(self, cond, a, b):
        """`cond ? a : b`; `cond` is cast to bool, `a`/`b` promoted."""
        fd = self._fd
        cond = self._value(cond, "where")
        a = self._value(a, "where")
        b = self._value(b, "where")
        roles = []
        for v in (a, b):
            if _is_number(v):
                roles.append((_number_dtype(v), WRAPPED))
            elif isinstance(v, Scalar):
                roles.append((v.dtype, WRAPPED))
            else:
                roles.append((v.dtype, ZERO_DIM if v.ndim == 0 else TENSOR))
        dtype = promote(roles)
        c = self._cast(cond, DataType.Bool)
        va, vb = self._cast(a, dtype), self._cast(b, dtype)
        tensors = [v for v in (c, va, vb) if isinstance(v, Tensor)]
        like = None
        if tensors:
            shape, sizes = self._broadcast_shape(tensors)
            c, va, vb = [self._broadcast_to(v, shape, sizes) for v in (c, va, vb)]
            like = (shape, sizes)
        r = self._result(dtype, like)
        fd._emit(f"{r.name} = fusion.where {c.name}, {va.name}, {vb.name} : {c.type}, {r.type}")
        return r

    @_api
    def gelu(self, x, approximate="none"):
        """GELU; approximate="tanh" for the tanh approximation."""
        if approximate not in ("none", "tanh"):
            raise FusionDefinitionError(
                f"gelu: approximate must be 'none' or 'tanh', got {approximate!r}")
        return self._unary("gelu", x, "float", " tanh" if approximate == "tanh" else "")

    def _predicate(self, op, x):
        fd = self._fd
        (v,), like = self._prepare(
            [x], op, compute=lambda dt: self._to_float(self._check_not_fp8(dt, op)))
        r = self._result(DataType.Bool, like)
        fd._emit(f"{r.name} = fusion.{op} {v.name} : {v.type}")
        return r

    @_api
    def isnan(self, x):
        return self._predicate("isnan", x)

    @_api
    def isinf(self, x):
        return self._predicate("isinf", x)

    @_api
    def bitwise_not(self, x):
        fd = self._fd
        (v,), like = self._prepare([x], "bitwise_not")
        if v.dtype.is_float:
            raise FusionDefinitionError(f"bitwise_not: needs an integer or bool operand, got {v.dtype.mlir}")
        r = self._result(v.dtype, like)
        fd._emit(f"{r.name} = fusion.bitwise_not {v.name} : {v.type}")
        return r

    @_api
    def set(self, x):
        """A copy of `x` written by a kernel: never a view of an input (so
        `set(permute(x))` returns a transposed contiguous tensor)."""
        fd = self._fd
        self._tensor(x, "set")
        (v,), like = self._prepare([x], "set")
        r = self._result(v.dtype, like)
        fd._emit(f"{r.name} = fusion.set {v.name} : {v.type}")
        return r

    @_api
    def logical_not(self, x):
        fd = self._fd
        (v,), like = self._prepare([x], "logical_not", dtype=DataType.Bool)
        r = self._result(DataType.Bool, like)
        fd._emit(f"{r.name} = fusion.logical_not {v.name} : {v.type}")
        return r

    @_api
    def cast(self, x, dtype):
        """Converts to `dtype` (a no-op if it already has it)."""
        x = self._value(x, "cast")
        dtype = to_dtype(dtype)
        return self._cast(x, dtype)

    # -- shape ops --
    def _shape_arg(self, shape, what):
        """[(static int or -1, size ref)] of a user shape list: ints >= 0,
        index Scalars, or -1."""
        if isinstance(shape, (int, Scalar)):
            shape = [shape]
        out = []
        for s in shape:
            if isinstance(s, bool):
                raise FusionDefinitionError(f"{what}: bad size {s!r}")
            if isinstance(s, int):
                if s < -1:
                    raise FusionDefinitionError(f"{what}: negative size {s}")
                if s > INT64_MAX:
                    raise FusionDefinitionError(
                        f"{what}: size {s} is out of range: expected a size in "
                        f"[0, {INT64_MAX}]")
                out.append((s, s if s >= 0 else None))
            elif isinstance(s, Scalar):
                self._fd._own(s, what)
                if s.dtype.is_int:
                    s = self._cast(s, DataType.Index)
                elif not s.dtype.is_index:
                    raise FusionDefinitionError(
                        f"{what}: a size must be an int or an index/integer Scalar, got {s!r}")
                if s.const is not None:
                    out.append((int(s.const), int(s.const)))
                else:
                    out.append((-1, s))
            else:
                raise FusionDefinitionError(
                    f"{what}: a size must be an int or an index Scalar, got {type(s).__name__}")
        return out

    @_api
    def broadcast_in_dim(self, x, shape, broadcast_dims):
        """Operand dim i becomes result dim broadcast_dims[i]; `shape` gives
        the result sizes (ints, index Scalars, or -1: the mapped operand
        dim's size)."""
        fd = self._fd
        x = self._value(x, "broadcast_in_dim")
        if _is_number(x):
            x = fd._const(x, _number_dtype(x) if not isinstance(x, float) else DataType.Float32)
        spec = self._shape_arg(shape, "broadcast_in_dim")
        rank_in = x.ndim if isinstance(x, Tensor) else 0
        dims = list(broadcast_dims)
        if len(dims) != rank_in:
            raise FusionDefinitionError(
                f"broadcast_in_dim: broadcast_dims has {len(dims)} entries for an operand of rank {rank_in}")
        dims = [_normalize_dim(d, len(spec), "broadcast dim") for d in dims]
        if any(b <= a for a, b in zip(dims, dims[1:])):
            raise FusionDefinitionError(
                f"broadcast_in_dim: broadcast_dims {dims} must be strictly increasing")
        shape_out, sizes = [s for s, _ in spec], [r for _, r in spec]
        for i, d in enumerate(dims):
            src = x.shape[i]
            if shape_out[d] == -1 and sizes[d] is None:
                shape_out[d] = src
                sizes[d] = src if src >= 0 else x._size_ref(i)
            elif src >= 0 and src != 1 and shape_out[d] >= 0 and shape_out[d] != src:
                raise FusionDefinitionError(
                    f"broadcast_in_dim: operand dim {i} (size {src}) cannot broadcast to "
                    f"result dim {d} (size {shape_out[d]})")
        for d, (s, ref) in enumerate(zip(shape_out, sizes)):
            if s == -1 and ref is None:
                raise FusionDefinitionError(
                    f"broadcast_in_dim: result dim {d} is -1 but no operand dim maps to it")
        operands = fd._size_operands(shape_out, sizes)
        r = fd._new_tensor(x.dtype, shape_out, sizes)
        fd._emit(f"{r.name} = fusion.broadcast_in_dim {x.name} {dims}"
                 f"{(' ' + fd._paren(operands)) if operands else ''} : {x.type} -> {r.type}")
        return r

    @_api
    def broadcast(self, x, is_broadcast_dim):
        """nvFuser's broadcast: inserts size-1 dims where is_broadcast_dim is
        True."""
        x = self._tensor(x, "broadcast")
        if sum(1 for b in is_broadcast_dim if not b) != x.ndim:
            raise FusionDefinitionError(
                "broadcast: is_broadcast_dim needs one False per operand dim")
        shape, dims, k = [], [], 0
        for i, b in enumerate(is_broadcast_dim):
            if b:
                shape.append(1)
            else:
                shape.append(-1)
                dims.append(i)
                k += 1
        return self.broadcast_in_dim(x, shape, dims)

    @_api
    def expand(self, x, shape):
        """Broadcasts size-1 dims (as Tensor.expand); -1 keeps a dim."""
        fd = self._fd
        x = self._tensor(x, "expand")
        spec = self._shape_arg(shape, "expand")
        if len(spec) != x.ndim:
            raise FusionDefinitionError(
                f"expand: shape has {len(spec)} entries for rank {x.ndim}")
        shape_out, sizes = [], []
        for i, (s, ref) in enumerate(spec):
            if s == -1 and ref is None:
                shape_out.append(x.shape[i])
                sizes.append(x._size_ref(i))
            else:
                if x.shape[i] >= 0 and x.shape[i] != 1 and s >= 0 and s != x.shape[i]:
                    raise FusionDefinitionError(
                        f"expand: dim {i} of size {x.shape[i]} cannot expand to {s}")
                shape_out.append(s)
                sizes.append(ref)
        operands = fd._size_operands(shape_out, sizes)
        r = fd._new_tensor(x.dtype, shape_out, sizes)
        fd._emit(f"{r.name} = fusion.expand {x.name}"
                 f"{(' ' + fd._paren(operands)) if operands else ''} : {x.type} -> {r.type}")
        return r

    @_api
    def reshape(self, x, shape):
        """Same elements, new shape; one entry may be -1 (inferred)."""
        fd = self._fd
        x = self._tensor(x, "reshape")
        spec = self._shape_arg(shape, "reshape")
        infer = [i for i, (s, ref) in enumerate(spec) if s == -1 and ref is None]
        if len(infer) > 1:
            raise FusionDefinitionError("reshape: only one dim can be -1")
        shape_out, sizes = [s for s, _ in spec], [r for _, r in spec]
        if infer:
            i = infer[0]
            known = [s for j, (s, _) in enumerate(spec) if j != i]
            if all(s >= 0 for s in x.shape) and all(s >= 0 for s in known):
                total = math.prod(x.shape)
                rest = math.prod(known)
                if rest == 0 or total % rest:
                    raise FusionDefinitionError(
                        f"reshape: cannot reshape {x.shape} into {[s for s, _ in spec]}")
                shape_out[i] = sizes[i] = total // rest
            else:
                # numel(x) / prod(other sizes), in index arithmetic.
                numel = None
                for d in range(x.ndim):
                    v = x._size_value(d)
                    numel = v if numel is None else self._index_op("muli", numel, v)
                if numel is None:
                    numel = fd._const(1, DataType.Index)
                rest = None
                for j in range(len(spec)):
                    if j == i:
                        continue
                    v = sizes[j] if isinstance(sizes[j], Scalar) else fd._const(sizes[j], DataType.Index)
                    rest = v if rest is None else self._index_op("muli", rest, v)
                if rest is not None:
                    numel = self._index_op("divui", numel, rest)
                shape_out[i] = -1
                sizes[i] = numel
        elif all(s >= 0 for s in x.shape) and all(s >= 0 for s in shape_out):
            if math.prod(x.shape) != math.prod(shape_out):
                raise FusionDefinitionError(
                    f"reshape: {x.shape} has {math.prod(x.shape)} elements, "
                    f"{shape_out} has {math.prod(shape_out)}")
        operands = fd._size_operands(shape_out, sizes)
        r = fd._new_tensor(x.dtype, shape_out, sizes)
        fd._emit(f"{r.name} = fusion.reshape {x.name}"
                 f"{(' ' + fd._paren(operands)) if operands else ''} : {x.type} -> {r.type}")
        return r

    def _index_op(self, op, a, b):
        fd = self._fd
        if a.const is not None and b.const is not None:
            if op == "muli":
                return fd._const(a.const * b.const, DataType.Index)
            if op == "addi":
                return fd._const(a.const + b.const, DataType.Index)
            if op == "divui" and b.const:
                return fd._const(a.const // b.const, DataType.Index)
        r = fd._new_scalar(DataType.Index, origin=("arith", op, a, b))
        fd._emit(f"{r.name} = arith.{op} {a.name}, {b.name} : index")
        return r

    @_api
    def permute(self, x, dims):
        """Result dim i is operand dim dims[i]."""
        fd = self._fd
        x = self._tensor(x, "permute")
        perm = [_normalize_dim(d, x.ndim) for d in dims]
        if sorted(perm) != list(range(x.ndim)):
            raise FusionDefinitionError(f"permute: {list(dims)} is not a permutation of rank {x.ndim}")
        r = fd._new_tensor(x.dtype, [x.shape[p] for p in perm],
                           [x._size_ref(p) for p in perm])
        fd._emit(f"{r.name} = fusion.permute {x.name} {perm} : {x.type} -> {r.type}")
        return r

    @_api
    def squeeze(self, x, dims):
        """Removes size-1 dims."""
        fd = self._fd
        x = self._tensor(x, "squeeze")
        ds = sorted(_dims_list(dims, x.ndim))
        for d in ds:
            if x.shape[d] not in (1, -1):
                raise FusionDefinitionError(
                    f"squeeze: dim {d} has size {x.shape[d]}, not 1")
        keep = [i for i in range(x.ndim) if i not in ds]
        r = fd._new_tensor(x.dtype, [x.shape[i] for i in keep], [x._size_ref(i) for i in keep])
        fd._emit(f"{r.name} = fusion.squeeze {x.name} {ds} : {x.type} -> {r.type}")
        return r

    @_api
    def slice(self, x, start_indices, end_indices=None, strides=None):
        """Strided slice per dim: starts, stops (None: the dim's size) and
        steps (default 1); ints or index Scalars. Bounds clamp to [0, size]."""
        fd = self._fd
        x = self._tensor(x, "slice")
        n = x.ndim
        starts = list(start_indices)
        stops = list(end_indices) if end_indices is not None else [None] * n
        steps = list(strides) if strides is not None else [1] * n
        if not (len(starts) == len(stops) == len(steps) == n):
            raise FusionDefinitionError(
                f"slice: starts, stops and steps need {n} entries each")

        def idx(v, d, default_size):
            if v is None:
                return x._size_value(d) if default_size else fd._const(0, DataType.Index)
            if isinstance(v, bool) or not isinstance(v, (int, Scalar)):
                raise FusionDefinitionError(f"slice: bound {v!r} is not an int or index Scalar")
            if isinstance(v, int):
                if v < 0:
                    raise FusionDefinitionError(
                        f"slice: negative bound {v} (bounds are not wrapped)")
                return fd._const(v, DataType.Index)
            return self._cast(fd._own(v, "slice"), DataType.Index)

        shape, sizes = [], []
        for d in range(n):
            st = steps[d]
            if isinstance(st, int) and st < 1:
                raise FusionDefinitionError(f"slice: step {st} in dim {d} must be >= 1")
            a, b = starts[d], stops[d]
            size = x.shape[d]
            if size >= 0 and isinstance(a, int) and (b is None or isinstance(b, int)) \
                    and isinstance(st, int):
                lo = min(max(a, 0), size)
                hi = size if b is None else min(max(b, 0), size)
                ext = max(0, -(-(hi - lo) // st))
                shape.append(ext)
                sizes.append(ext)
            elif a in (0, None) and b is None and st == 1:
                shape.append(size)
                sizes.append(x._size_ref(d))
            else:
                shape.append(-1)
                sizes.append(None)
        vs = [idx(starts[d], d, False) for d in range(n)]
        ve = [idx(stops[d], d, True) for d in range(n)]
        vt = [idx(steps[d], d, False) for d in range(n)]
        r = fd._new_tensor(x.dtype, shape, sizes)
        for d in range(n):
            if sizes[d] is None:
                r._size_exprs[d] = ("slice", x._size_ref(d), starts[d], stops[d], steps[d])
        fd._emit(f"{r.name} = fusion.slice {x.name} [{', '.join(v.name for v in vs)}] "
                 f"[{', '.join(v.name for v in ve)}] [{', '.join(v.name for v in vt)}] : "
                 f"{x.type} -> {r.type}")
        return r

    @_api
    def pad(self, x, pad_widths, value=None):
        """Pads with `value` (default 0), widths as torch.nn.functional.pad:
        [low, high] pairs starting from the last dim."""
        fd = self._fd
        x = self._tensor(x, "pad")
        pw = list(pad_widths)
        if len(pw) % 2 or len(pw) > 2 * x.ndim:
            raise FusionDefinitionError(
                f"pad: pad_widths needs pairs for at most {x.ndim} dims, got {pw}")
        low, high = [0] * x.ndim, [0] * x.ndim
        for k in range(len(pw) // 2):
            d = x.ndim - 1 - k
            low[d], high[d] = pw[2 * k], pw[2 * k + 1]
        for w in low + high:
            if not isinstance(w, int) or isinstance(w, bool) or w < 0:
                raise FusionDefinitionError(f"pad: widths must be ints >= 0, got {pw}")
        if value is None:
            value = 0
        v = self._value(value, "pad")
        if isinstance(v, Tensor):
            raise FusionDefinitionError("pad: value must be a scalar")
        v = self._cast(v, x.dtype)
        shape = [s + low[i] + high[i] if s >= 0 else -1 for i, s in enumerate(x.shape)]
        sizes = [s if s >= 0 else (x._size_ref(i) if low[i] == high[i] == 0 else None)
                 for i, s in enumerate(shape)]
        r = fd._new_tensor(x.dtype, shape, sizes)
        for i, ref in enumerate(sizes):
            if ref is None:
                r._size_exprs[i] = ("pad", x._size_ref(i), low[i] + high[i])
        fd._emit(f"{r.name} = fusion.pad {x.name}, {v.name} low {low} high {high} : "
                 f"{x.type}, {v.type} -> {r.type}")
        return r

    @_api
    def cat(self, tensors, dim=0):
        """Concatenates along `dim` (dtypes promoted)."""
        fd = self._fd
        ts = [self._tensor(t, "cat") for t in tensors]
        if not ts:
            raise FusionDefinitionError("cat: needs at least one tensor")
        rank = ts[0].ndim
        if any(t.ndim != rank for t in ts):
            raise FusionDefinitionError(
                f"cat: all tensors need one rank, got {[t.ndim for t in ts]}")
        d = _normalize_dim(dim, rank)
        dtype = promote([(t.dtype, TENSOR if t.ndim else ZERO_DIM) for t in ts])
        ts = [self._cast(t, dtype) for t in ts]
        shape, sizes = [], []
        for i in range(rank):
            if i == d:
                if all(t.shape[i] >= 0 for t in ts):
                    shape.append(sum(t.shape[i] for t in ts))
                    sizes.append(shape[-1])
                else:
                    shape.append(-1)
                    sizes.append(None)
                continue
            static = [t.shape[i] for t in ts if t.shape[i] >= 0]
            if len(set(static)) > 1:
                raise FusionDefinitionError(
                    f"cat: dim {i} sizes differ: {[t.shape[i] for t in ts]}")
            if static:
                shape.append(static[0])
                sizes.append(static[0])
            else:
                shape.append(-1)
                sizes.append(ts[0]._size_ref(i))
        r = fd._new_tensor(dtype, shape, sizes)
        if sizes[d] is None:
            r._size_exprs[d] = ("cat", [t._size_ref(d) for t in ts])
        fd._emit(f"{r.name} = fusion.cat {', '.join(t.name for t in ts)} dim = {d} : "
                 f"{', '.join(t.type for t in ts)} -> {r.type}")
        return r

    # -- factories --
    @_api
    def full(self, shape, fill_value, dtype=None):
        """A tensor of `shape` (ints or index Scalars) filled with a value."""
        fd = self._fd
        v = self._value(fill_value, "full")
        if isinstance(v, Tensor):
            raise FusionDefinitionError("full: fill_value must be a scalar")
        if dtype is None:
            dtype = v.dtype if isinstance(v, Scalar) else (
                DataType.Float32 if isinstance(v, float) else _number_dtype(v))
        dtype = to_dtype(dtype)
        v = self._cast(v, dtype)
        spec = self._shape_arg(shape, "full")
        if any(s == -1 and ref is None for s, ref in spec):
            raise FusionDefinitionError("full: -1 is not a size; use an index Scalar")
        shp, sizes = [s for s, _ in spec], [r for _, r in spec]
        ops = fd._size_operands(shp, sizes)
        r = fd._new_tensor(dtype, shp, sizes)
        fd._emit(f"{r.name} = fusion.full {v.name}{(' ' + fd._paren(ops)) if ops else ''} : "
                 f"{v.type} -> {r.type}")
        return r

    @_api
    def zeros(self, shape, dtype=DataType.Float32):
        return self.full(shape, 0, dtype)

    @_api
    def ones(self, shape, dtype=DataType.Float32):
        return self.full(shape, 1, dtype)

    @_api
    def iota(self, length, start=0, step=1, dtype=DataType.Int64):
        """`start + i * step` for i < length (torch.arange)."""
        fd = self._fd
        dtype = to_dtype(dtype)
        spec = self._shape_arg([length], "iota")
        if spec[0][0] == -1 and spec[0][1] is None:
            raise FusionDefinitionError("iota: length must be an int >= 0 or an index Scalar")
        vs = self._cast(self._value(start, "iota"), dtype)
        vt = self._cast(self._value(step, "iota"), dtype)
        shp, sizes = [spec[0][0]], [spec[0][1]]
        ops = fd._size_operands(shp, sizes)
        r = fd._new_tensor(dtype, shp, sizes)
        fd._emit(f"{r.name} = fusion.iota {vs.name}, {vt.name}{(' ' + fd._paren(ops)) if ops else ''}"
                 f" : {vs.type} -> {r.type}")
        return r

    def _random(self, op, shape, dtype, seed, offset):
        fd = self._fd
        dtype = to_dtype(dtype)
        if not dtype.is_float or dtype.is_fp8:
            raise FusionDefinitionError(f"{op}: dtype must be f64, f32, f16 or bf16")
        spec = self._shape_arg(shape, op)
        if any(s == -1 and ref is None for s, ref in spec):
            raise FusionDefinitionError(f"{op}: -1 is not a size; use an index Scalar")
        vseed = self._cast(self._value(seed, op), DataType.Int64)
        voff = self._cast(self._value(offset, op), DataType.Int64)
        shp, sizes = [s for s, _ in spec], [r for _, r in spec]
        ops = fd._size_operands(shp, sizes)
        r = fd._new_tensor(dtype, shp, sizes)
        fd._emit(f"{r.name} = fusion.{op} {vseed.name}, {voff.name}"
                 f"{(' ' + fd._paren(ops)) if ops else ''} : {r.type}")
        return r

    @_api
    def rand(self, shape, dtype=DataType.Float32, seed=0, offset=0):
        """Uniform [0, 1) Philox random numbers; seed/offset: ints or i64 Scalars."""
        return self._random("rand", shape, dtype, seed, offset)

    @_api
    def randn(self, shape, dtype=DataType.Float32, seed=0, offset=0):
        """Standard normal Philox random numbers."""
        return self._random("randn", shape, dtype, seed, offset)

    # -- indexing --
    def _index_tensor(self, index, what):
        index = self._tensor(index, what)
        if index.dtype not in (DataType.Int64, DataType.Int32):
            raise FusionDefinitionError(f"{what}: index must be i64 or i32, got {index.dtype.mlir}")
        return index

    @_api
    def index_select(self, x, index, dim):
        """`result[..., i, ...] = x[..., index[i], ...]` along `dim`."""
        fd = self._fd
        x = self._tensor(x, "index_select")
        index = self._index_tensor(index, "index_select")
        if index.ndim != 1:
            raise FusionDefinitionError(f"index_select: index must have rank 1, got {index.ndim}")
        d = _normalize_dim(dim, x.ndim)
        shape = list(x.shape)
        sizes = [x._size_ref(i) for i in range(x.ndim)]
        shape[d] = index.shape[0]
        sizes[d] = index._size_ref(0)
        r = fd._new_tensor(x.dtype, shape, sizes)
        fd._emit(f"{r.name} = fusion.index_select {x.name}, {index.name} dim = {d} : "
                 f"{x.type}, {index.type} -> {r.type}")
        return r

    @_api
    def gather(self, x, index, dim):
        """torch.take_along_dim: the result has the index's shape."""
        fd = self._fd
        x = self._tensor(x, "gather")
        index = self._index_tensor(index, "gather")
        if index.ndim != x.ndim:
            raise FusionDefinitionError(
                f"gather: index rank {index.ndim} differs from input rank {x.ndim}")
        d = _normalize_dim(dim, x.ndim)
        r = fd._new_tensor(x.dtype, list(index.shape),
                           [index._size_ref(i) for i in range(index.ndim)])
        fd._emit(f"{r.name} = fusion.gather {x.name}, {index.name} dim = {d} : "
                 f"{x.type}, {index.type} -> {r.type}")
        return r

    take_along_axis = gather

    # -- reductions --
    def _reduced(self, x, dims, keepdim):
        shape, sizes = [], []
        for i in range(x.ndim):
            if i in dims:
                if keepdim:
                    shape.append(1)
                    sizes.append(1)
            else:
                shape.append(x.shape[i])
                sizes.append(x._size_ref(i))
        return shape, sizes

    def _reduction(self, op, x, dims, keepdim, dtype):
        fd = self._fd
        x = self._tensor(x, op)
        if dtype is not None:
            x = self._cast(x, to_dtype(dtype))
        elif op in ("sum", "prod") and (x.dtype.is_int or x.dtype.is_bool):
            x = self._cast(x, DataType.Int64)   # as torch.sum/prod
        self._check_not_fp8(x.dtype, op)
        ds = _dims_list(dims, x.ndim)
        shape, sizes = self._reduced(x, ds, keepdim)
        r = fd._new_tensor(x.dtype, shape, sizes)
        fd._emit(f"{r.name} = fusion.{op} {x.name} {ds}{' keepdim' if keepdim else ''} : "
                 f"{x.type} -> {r.type}")
        return r

    @_api
    def sum(self, x, dims=None, keepdim=False, dtype=None):
        """Sum over dims (all if None); ints and bools sum as i64."""
        return self._reduction("sum", x, dims, keepdim, dtype)

    @_api
    def prod(self, x, dims=None, keepdim=False, dtype=None):
        return self._reduction("prod", x, dims, keepdim, dtype)

    @_api
    def max(self, x, dims=None, keepdim=False, dtype=None):
        return self._reduction("max", x, dims, keepdim, dtype)

    @_api
    def min(self, x, dims=None, keepdim=False, dtype=None):
        return self._reduction("min", x, dims, keepdim, dtype)

    @_api
    def var_mean(self, x, dims=None, correction=1, keepdim=False):
        """(variance, mean) over dims; integer inputs are computed in f32."""
        fd = self._fd
        x = self._tensor(x, "var_mean")
        self._check_not_fp8(x.dtype, "var_mean")
        x = self._cast(x, self._to_float(x.dtype))
        ds = _dims_list(dims, x.ndim)
        if not isinstance(correction, int) or isinstance(correction, bool):
            raise FusionDefinitionError("var_mean: correction must be an int")
        shape, sizes = self._reduced(x, ds, keepdim)
        base = fd._new_name("VM")
        var = Tensor(fd, base + "#0", x.dtype, shape, list(sizes))
        mean = Tensor(fd, base + "#1", x.dtype, shape, list(sizes))
        fd._emit(f"{base}:2 = fusion.var_mean {x.name} {ds} correction = {correction}"
                 f"{' keepdim' if keepdim else ''} : {x.type} -> {var.type}")
        return var, mean

    @_api
    def var(self, x, dims=None, correction=1, keepdim=False):
        return self.var_mean(x, dims, correction, keepdim)[0]

    @_api
    def mean(self, x, dims=None, keepdim=False):
        """sum / count (floats; integer inputs promoted to f32)."""
        x = self._tensor(x, "mean")
        x = self._cast(x, self._to_float(x.dtype))
        ds = _dims_list(dims, x.ndim)
        s = self.sum(x, ds, keepdim)
        count = None
        for d in ds:
            v = x._size_value(d)
            count = v if count is None else self._index_op("muli", count, v)
        if count is None:
            return s
        return self._binary("div", s, self._cast(count, x.dtype), "float")

    def _arg(self, op, x, dim, keepdim):
        fd = self._fd
        x = self._tensor(x, op)
        d = _normalize_dim(dim, x.ndim)
        shape, sizes = self._reduced(x, [d], keepdim)
        r = fd._new_tensor(DataType.Int64, shape, sizes)
        fd._emit(f"{r.name} = fusion.{op} {x.name} dim = {d}{' keepdim' if keepdim else ''} : "
                 f"{x.type} -> {r.type}")
        return r

    @_api
    def argmax(self, x, dim, keepdim=False):
        return self._arg("argmax", x, dim, keepdim)

    @_api
    def argmin(self, x, dim, keepdim=False):
        return self._arg("argmin", x, dim, keepdim)

    # -- composites --
    def _softmax(self, op, x, dim):
        fd = self._fd
        x = self._tensor(x, op)
        self._check_not_fp8(x.dtype, op)
        x = self._cast(x, self._to_float(x.dtype))
        d = _normalize_dim(dim, x.ndim)
        r = fd._new_tensor(x.dtype, x.shape, [x._size_ref(i) for i in range(x.ndim)])
        fd._emit(f"{r.name} = fusion.{op} {x.name} dim = {d} : {x.type}")
        return r

    @_api
    def softmax(self, x, dim=-1):
        return self._softmax("softmax", x, dim)

    @_api
    def log_softmax(self, x, dim=-1):
        return self._softmax("log_softmax", x, dim)

    def _norm_axis(self, what, x, normalized_shape, axis, weight):
        """The first normalized dim, and normalized_shape as a list (or
        None). normalized_shape must be the input's trailing sizes, as in
        torch: checked here where they are static, else when the inputs are
        (Note [Shape checks])."""
        if normalized_shape is None:
            if axis is not None:
                return _normalize_dim(axis, x.ndim, "axis"), None
            if weight is not None:
                w = self._tensor(weight, what)
                if not 1 <= w.ndim <= x.ndim:
                    raise FusionDefinitionError(
                        f"{what}: weight has rank {w.ndim}; the normalized dims are the "
                        f"input's last 1 to {x.ndim}")
                return x.ndim - w.ndim, None
            return x.ndim - 1, None
        ns = [normalized_shape] if isinstance(normalized_shape, int) else list(normalized_shape)
        for n in ns:
            if not isinstance(n, int) or isinstance(n, bool) or not 0 <= n <= INT64_MAX:
                raise FusionDefinitionError(
                    f"{what}: normalized_shape entries are sizes in [0, {INT64_MAX}], "
                    f"got {normalized_shape!r}")
        if not 1 <= len(ns) <= x.ndim:
            raise FusionDefinitionError(
                f"{what}: normalized_shape {normalized_shape} does not fit rank {x.ndim}")
        a = x.ndim - len(ns)
        if axis is not None and _normalize_dim(axis, x.ndim, "axis") != a:
            raise FusionDefinitionError(
                f"{what}: axis {axis} does not match normalized_shape={ns}, which "
                f"normalizes dims [{a}, {x.ndim}) of rank {x.ndim}")
        if any(x.shape[a + i] >= 0 and x.shape[a + i] != n for i, n in enumerate(ns)):
            raise FusionDefinitionError(_norm_shape_message(what, ns, x.shape, "shape"))
        if any(x.shape[a + i] < 0 for i in range(len(ns))):
            self._fd._shape_checks.append((what, x, a, ns))
        return a, ns

    def _norm_param(self, what, p, x, axis, pname, ns=None):
        if p is None:
            return None
        p = self._tensor(p, what)
        if p.ndim != x.ndim - axis:
            raise FusionDefinitionError(
                f"{what}: {pname} has rank {p.ndim}; the normalized dims [{axis}, {x.ndim}) "
                f"need rank {x.ndim - axis}")
        if ns is not None and any(s >= 0 and s != n for s, n in zip(p.shape, ns)):
            raise FusionDefinitionError(
                f"{what}: expected {pname} to be of same shape as normalized_shape, but got "
                f"{pname} of shape {_shape_text(p.shape)} and normalized_shape={ns}")
        for i in range(p.ndim):
            a, b = p.shape[i], x.shape[axis + i]
            if a >= 0 and b >= 0 and a != b:
                raise FusionDefinitionError(
                    f"{what}: {pname} dim {i} has size {a}, input dim {axis + i} has {b}")
        return self._cast(p, x.dtype)

    @_api
    def layer_norm(self, x, normalized_shape=None, weight=None, bias=None, eps=1e-5,
                   axis=None):
        """(x - mean) / sqrt(var + eps) * weight + bias over the trailing
        dims (given by normalized_shape, axis, or the weight's rank; default
        the last dim). normalized_shape must be those dims' sizes, as in
        torch (Note [Shape checks])."""
        fd = self._fd
        x = self._tensor(x, "layer_norm")
        self._check_not_fp8(x.dtype, "layer_norm")
        x = self._cast(x, self._to_float(x.dtype))
        a, ns = self._norm_axis("layer_norm", x, normalized_shape, axis, weight)
        w = self._norm_param("layer_norm", weight, x, a, "weight", ns)
        b = self._norm_param("layer_norm", bias, x, a, "bias", ns)
        r = fd._new_tensor(x.dtype, x.shape, [x._size_ref(i) for i in range(x.ndim)])
        parts = [f"{r.name} = fusion.layer_norm {x.name}"]
        if w is not None:
            parts.append(f"weight({w.name} : {w.type})")
        if b is not None:
            parts.append(f"bias({b.name} : {b.type})")
        parts.append(f"axis = {a} eps = {format_constant(float(eps), DataType.Float64)} : {x.type}")
        fd._emit(" ".join(parts))
        return r

    @_api
    def rms_norm(self, x, normalized_shape=None, weight=None, eps=1e-6, axis=None):
        """x * rsqrt(mean(x^2) + eps) * weight over the trailing dims (as
        layer_norm)."""
        fd = self._fd
        x = self._tensor(x, "rms_norm")
        self._check_not_fp8(x.dtype, "rms_norm")
        x = self._cast(x, self._to_float(x.dtype))
        a, ns = self._norm_axis("rms_norm", x, normalized_shape, axis, weight)
        w = self._norm_param("rms_norm", weight, x, a, "weight", ns)
        r = fd._new_tensor(x.dtype, x.shape, [x._size_ref(i) for i in range(x.ndim)])
        parts = [f"{r.name} = fusion.rms_norm {x.name}"]
        if w is not None:
            parts.append(f"weight({w.name} : {w.type})")
        parts.append(f"axis = {a} eps = {format_constant(float(eps), DataType.Float64)} : {x.type}")
        fd._emit(" ".join(parts))
        return r


def _make_unary(op, kind):
    def method(self, x):
        return self._unary(op, x, kind)
    method.__name__ = op
    method.__doc__ = f"Element-wise {op}" + (" (integers promote to f32)." if kind == "float" else ".")
    return _api(method)


def _make_binary(op, kind):
    def method(self, a, b):
        return self._binary(op, a, b, kind)
    method.__name__ = op
    method.__doc__ = f"Element-wise {op} with PyTorch promotion and broadcasting."
    return _api(method)


for _op in _UNARY_FLOAT:
    setattr(Ops, _op, _make_unary(_op, "float"))
for _op in _UNARY_NUMERIC:
    setattr(Ops, _op, _make_unary(_op, "numeric"))
for _op in _BINARY_NUMERIC:
    setattr(Ops, _op, _make_binary(_op, "numeric"))
for _op in _BINARY_FLOAT:
    setattr(Ops, _op, _make_binary(_op, "float"))
for _op in _BINARY_LOGICAL:
    setattr(Ops, _op, _make_binary(_op, "logical"))
for _op in _BINARY_BITWISE:
    setattr(Ops, _op, _make_binary(_op, "bitwise"))


def _make_compare(op):
    def method(self, a, b):
        fd = self._fd
        (va, vb), like = self._prepare(
            [a, b], op, compute=lambda dt: self._check_not_fp8(dt, op))
        r = self._result(DataType.Bool, like)
        fd._emit(f"{r.name} = fusion.{op} {va.name}, {vb.name} : {va.type}")
        return r
    method.__name__ = op
    method.__doc__ = f"Element-wise comparison {op}; the result is bool."
    return _api(method)


for _op in _COMPARE:
    setattr(Ops, _op, _make_compare(_op))

# Aliases.
Ops.bitwise_left_shift = Ops.shift_left
Ops.bitwise_right_shift = Ops.shift_right
