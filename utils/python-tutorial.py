#!/usr/bin/env python3
"""Runs the tutorial of docs/python.md: every ```python block between the
markers `<!-- tutorial -->` and `<!-- /tutorial -->`, in order, in one
namespace, with whatever `fusion` package this interpreter imports (CI: the
installed wheel). A block whose fence reads ```python cuda runs only when
torch sees a CUDA device; it is reported as skipped otherwise. Exits non-zero
at the first block that raises.

    python3 utils/python-tutorial.py [docs/python.md]
"""
import os
import re
import sys
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))


def blocks(text):
    """(first line number, kind, code) of each tutorial block."""
    start, end = text.find("<!-- tutorial -->"), text.find("<!-- /tutorial -->")
    if start < 0 or end < start:
        raise SystemExit("python-tutorial: no <!-- tutorial --> ... <!-- /tutorial --> section")
    offset = text.count("\n", 0, start)
    section = text[start:end]
    for m in re.finditer(r"^```python( cuda)?\n(.*?)^```", section, re.S | re.M):
        line = offset + section.count("\n", 0, m.start()) + 2
        yield line, "cuda" if m.group(1) else "cpu", m.group(2)


def cuda_available():
    try:
        import torch
    except ImportError:
        return False
    return torch.cuda.is_available()


def main():
    path = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "..", "docs", "python.md")
    path = os.path.abspath(path)
    with open(path) as f:
        text = f.read()
    namespace = {"__name__": "__tutorial__"}
    cuda = cuda_available()
    ran = skipped = 0
    for line, kind, code in blocks(text):
        if kind == "cuda" and not cuda:
            print(f"python-tutorial: {os.path.basename(path)}:{line}: skipped (no CUDA device)")
            skipped += 1
            continue
        try:
            # Line numbers of the doc, so a failure points at it.
            exec(compile("\n" * (line - 1) + code, path, "exec"), namespace)
        except Exception:  # noqa: BLE001 (report any failure of the block)
            traceback.print_exc()
            print(f"python-tutorial: FAILED: the block at {os.path.basename(path)}:{line}")
            return 1
        ran += 1
    import fusion
    print(f"python-tutorial: {ran} blocks ran, {skipped} skipped (fusion {fusion.__version__} "
          f"from {os.path.dirname(fusion.__file__)})")
    return 0 if ran else 1


if __name__ == "__main__":
    sys.exit(main())
