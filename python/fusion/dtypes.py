"""Element types of the fusion dialect and PyTorch-like type promotion.

Promotion is include/fusion/Dialect/Fusion/Utils/Promotion.h (the C++ rules that
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


def promote(operands):
    """`torch.result_type` of (DataType, role) pairs (roles TENSOR, ZERO_DIM,
    WRAPPED), computed by the compiler's own rules (Promotion.h, through
    fusion/_compiler.py): one implementation for every frontend."""
    from . import _compiler
    operands = [(dt, role) for dt, role in operands]
    name = _compiler.promote_names([(dt.mlir, role) for dt, role in operands])
    if name is not None:
        return to_dtype(name)
    fp8 = [dt for dt, _ in operands if dt.is_fp8]
    others = [dt for dt, _ in operands if not fp8 or dt is not fp8[0]]
    if fp8 and others:
        raise FusionDefinitionError(
            f"no common type for {fp8[0].mlir} and {others[0].mlir}: fp8 is a storage "
            f"type; cast explicitly")
    raise FusionDefinitionError(
        "no common type for " + ", ".join(dt.mlir for dt, _ in operands))
