"""Writes the deep inputs of deep-inputs.mlir: a chain of N element-wise ops,
and a fusion whose attribute nests N brackets deep."""
import sys

kind, n, path = sys.argv[1], int(sys.argv[2]), sys.argv[3]
with open(path, "w") as f:
    if kind == "chain":
        f.write("fusion.fusion @chain(%x: tensor<?xf32>) -> tensor<?xf32> {\n")
        prev = "%x"
        for i in range(n):
            op = "neg" if i % 2 else "abs"
            f.write(f"  %v{i} = fusion.{op} {prev} : tensor<?xf32>\n")
            prev = f"%v{i}"
        f.write(f"  fusion.return {prev} : tensor<?xf32>\n}}\n")
    elif kind == "nested":
        f.write("fusion.fusion @nested(%x: tensor<?xf32>) -> tensor<?xf32>"
                " attributes {a = " + "[" * n + "]" * n + "} {\n"
                "  fusion.return %x : tensor<?xf32>\n}\n")
    else:
        sys.exit(f"unknown kind {kind}")
