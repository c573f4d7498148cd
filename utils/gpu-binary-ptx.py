#!/usr/bin/env python3
"""Prints the PTX of the gpu.binary ops in MLIR text (stdin or a file): the
`assembly = "..."` string of each #gpu.object, with MLIR's string escapes
(\\XX hex bytes, \\" and \\\\) decoded, objects one after the other. Used by
the lit tests that run ptxas over kernels written directly in gpu.func
(gpu-module-to-binary{format=isa} keeps the PTX in the IR)."""
import re
import sys


def ptx_objects(text):
    out = []
    for m in re.finditer(r'assembly = "', text):
        i, chars = m.end(), []
        while i < len(text) and text[i] != '"':
            if text[i] == "\\":
                nxt = text[i + 1]
                if nxt in '"\\':
                    chars.append(nxt)
                    i += 2
                else:
                    chars.append(chr(int(text[i + 1:i + 3], 16)))
                    i += 3
            else:
                chars.append(text[i])
                i += 1
        out.append("".join(chars))
    return out


def main():
    text = open(sys.argv[1]).read() if len(sys.argv) > 1 else sys.stdin.read()
    objects = ptx_objects(text)
    if not objects:
        print("gpu-binary-ptx: no PTX object (run gpu-module-to-binary with "
              "format=isa)", file=sys.stderr)
        return 1
    sys.stdout.write("\n".join(objects))
    return 0


if __name__ == "__main__":
    sys.exit(main())
