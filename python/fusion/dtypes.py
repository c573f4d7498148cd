"""Element types of the fusion dialect and PyTorch-like type promotion.

Mirrors include/fusion/Dialect/Fusion/Utils/Promotion.h (the C++ rules that
frontends use): `torch.result_type` for element types.
"""

from .errors import FusionDefinitionError


class DataType:
    """One element type of the dialect. Compare by identity (singletons)."""

    _by_key = {}

    def __init__(self, attr, mlir, category, bits, torch_name, numpy_name):
        self.attr = attr            # the DataType.<attr> name
        self.mlir = mlir            # the MLIR spelling: f32, bf16, i1, ...
        self.category = category    # 0 bool, 1 integer, 2 floating, 3 index
        self.bits = bits
        self.torch_name = torch_name
        self.numpy_name = numpy_name

    @property
    def is_float(self):
        return self.category == 2

    @property
    def is_int(self):
        return self.category == 1

    @property
    def is_bool(self):
        return self.category == 0

    @property
    def is_index(self):
        return self.category == 3

    @property
    def is_fp8(self):
        return self.mlir.startswith("f8")

    def __repr__(self):
        return "DataType." + self.attr

    __str__ = __repr__

    def __reduce__(self):
        return (getattr, (DataType, self.attr))


def _register(attr, mlir, category, bits, torch_name, numpy_name, aliases=()):
    dt = DataType(attr, mlir, category, bits, torch_name, numpy_name)
    setattr(DataType, attr, dt)
    for key in (attr, attr.lower(), mlir, mlir.lower(), torch_name, numpy_name) + tuple(aliases):
        if key:
            DataType._by_key[key] = dt
    return dt


_register("Float64", "f64", 2, 64, "float64", "float64", ("double", "Double"))
_register("Float32", "f32", 2, 32, "float32", "float32", ("float", "Float"))
_register("Float16", "f16", 2, 16, "float16", "float16", ("half", "Half"))
_register("BFloat16", "bf16", 2, 16, "bfloat16", "bfloat16")
_register("Int64", "i64", 1, 64, "int64", "int64", ("long", "int", "Int"))
_register("Int32", "i32", 1, 32, "int32", "int32")
_register("Int16", "i16", 1, 16, "int16", "int16")
_register("Int8", "i8", 1, 8, "int8", "int8")
_register("Bool", "i1", 0, 1, "bool", "bool", ("bool_",))
_register("Float8_e4m3fn", "f8E4M3FN", 2, 8, "float8_e4m3fn", "float8_e4m3fn",
          ("f8e4m3", "f8e4m3fn", "Float8E4M3FN"))
_register("Float8_e5m2", "f8E5M2", 2, 8, "float8_e5m2", "float8_e5m2",
          ("f8e5m2", "Float8E5M2"))
_register("Index", "index", 3, 64, None, None)

INT64_MIN, INT64_MAX = -(1 << 63), (1 << 63) - 1


def int_range(dt):
    """[lowest, highest] of a bool, integer or index type (index: i64);
    None for floating types."""
    if dt.is_bool:
        return (0, 1)
    if dt.is_int or dt.is_index:
        return (-(1 << (dt.bits - 1)), (1 << (dt.bits - 1)) - 1)
    return None


# nvFuser-style aliases.
DataType.Double = DataType.Float64
DataType.Float = DataType.Float32
DataType.Half = DataType.Float16
DataType.Int = DataType.Int64

ALL_TYPES = [DataType.Float64, DataType.Float32, DataType.Float16,
             DataType.BFloat16, DataType.Int64, DataType.Int32, DataType.Int16,
             DataType.Int8, DataType.Bool, DataType.Float8_e4m3fn,
             DataType.Float8_e5m2]


def to_dtype(obj):
    """A DataType from a DataType, a string ("bf16", "float32", "torch.int64"),
    a torch dtype, a numpy dtype or scalar type."""
    if isinstance(obj, DataType):
        return obj
    if obj is bool:
        return DataType.Bool
    if obj is int:
        return DataType.Int64
    if obj is float:
        return DataType.Float64
    key = None
    if isinstance(obj, str):
        key = obj
    else:
        name = getattr(obj, "name", None)  # numpy dtype
        if isinstance(name, str) and type(obj).__module__.startswith("numpy"):
            key = name
        elif type(obj).__module__ == "torch":  # torch.dtype
            key = str(obj)
        elif isinstance(obj, type) and obj.__module__ in ("numpy", "ml_dtypes"):
            key = obj.__name__
        elif name is not None:
            key = str(name)
    if key is not None:
        k = key[len("torch."):] if key.startswith("torch.") else key
        dt = DataType._by_key.get(k) or DataType._by_key.get(k.lower())
        if dt is not None:
            return dt
    raise FusionDefinitionError(f"unsupported dtype {obj!r}; use a DataType "
                                f"(e.g. DataType.BFloat16) or a name such as 'bf16'")


# --- promotion ---------------------------------------------------------------

TENSOR, ZERO_DIM, WRAPPED = 0, 1, 2


def _wrapped_default(dt):
    """A wrapped number counts by its category only."""
    if dt.is_float:
        return DataType.Float32
    if dt.is_int or dt.is_index:
        return DataType.Int64
    return DataType.Bool


def combine(a, b):
    """The common type of two types of the same role (Promotion.h table)."""
    if a is b:
        return a
    if a.is_fp8 or b.is_fp8:
        raise FusionDefinitionError(
            f"no common type for {a.mlir} and {b.mlir}: fp8 is a storage type; "
            f"cast explicitly")
    if a.is_bool:
        return b
    if b.is_bool:
        return a
    if a.is_int and b.is_int:
        return a if a.bits >= b.bits else b
    if a.is_int:
        return b
    if b.is_int:
        return a
    if {a, b} == {DataType.Float16, DataType.BFloat16}:
        return DataType.Float32
    return a if a.bits >= b.bits else b


def _cat(dt):
    return 1 if dt.is_index else dt.category


def promote(operands):
    """`torch.result_type` of (DataType, role) pairs."""
    per_role = [None, None, None]
    for dt, role in operands:
        if role == WRAPPED:
            dt = _wrapped_default(dt)
        per_role[role] = dt if per_role[role] is None else combine(per_role[role], dt)
    # fp8 never mixes with another type, whatever the roles.
    present = [t for t in per_role if t is not None]
    fp8 = [t for t in present if t.is_fp8]
    if fp8 and any(t is not fp8[0] for t in present):
        other = [t for t in present if t is not fp8[0]][0]
        raise FusionDefinitionError(
            f"no common type for {fp8[0].mlir} and {other.mlir}: fp8 is a storage "
            f"type; cast explicitly")
    result = None
    for t in per_role:
        if t is None:
            continue
        if result is None or _cat(t) > _cat(result):
            result = t
    return result
