"""Writes a fusion that adds N inputs: one kernel reading N tensors."""
import sys

n, path = int(sys.argv[1]), sys.argv[2]
with open(path, "w") as f:
    args = ", ".join(f"%a{i}: tensor<?xf32>" for i in range(n))
    f.write(f"fusion.fusion @wide({args}) -> tensor<?xf32> {{\n")
    prev = "%a0"
    for i in range(1, n):
        f.write(f"  %s{i} = fusion.add {prev}, %a{i} : tensor<?xf32>\n")
        prev = f"%s{i}"
    f.write(f"  fusion.return {prev} : tensor<?xf32>\n}}\n")
