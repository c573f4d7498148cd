#!/usr/bin/env python3
"""Writes the PTX of every fusion definition of the examples, the bench cases
and the GPU and PTX tests, under the default pipeline and a few schedule
options, to one folder; two folders from two builds compared with `diff -r`
show whether a change to the compiler changed any generated code.

    python3 utils/ptx-snapshot.py OUT_DIR [--translate build/bin/fusion-translate]
    python3 utils/ptx-snapshot.py --compare OLD_DIR NEW_DIR
    python3 utils/ptx-snapshot.py OUT_DIR --lowered   # the whole lowered IR

With --lowered each file is `--fusion-to-lowered-ir` instead: the host
program (buffers, checks, guarded launches) and the kernels' binaries, so a
change to the host side shows too.

A definition that does not compile under some options writes its diagnostics
instead (`.err`), so a changed diagnostic shows as well. The last line says how
many (definition, options) pairs were written: "ptx-snapshot: N definitions,
M compiles (K with PTX)".
"""
import argparse
import concurrent.futures
import filecmp
import glob
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SOURCES = ["examples/*.mlir", "examples/*/*.mlir", "bench/cases/*.mlir",
           "test/GPU/*.mlir", "test/Target/ptx.mlir", "test/Target/fp8-ptx.mlir"]
# Option sets: each selects other kernel variants or schedules.
OPTIONS = {
    "default": [],
    "stage1": ["--inner-stage=1"],
    "stage0": ["--inner-stage=0"],
    "items0": ["--inner-items=0"],
    "tile16": ["--transpose-tile=16"],
    "unroll1": ["--unroll=1", "--blocks-per-sm=2"],
    "sm80": ["--chip=sm_80"],
}
FUSION = re.compile(r"^\s*fusion\.fusion\s+@([\w.$-]+)", re.M)


def definitions():
    out = []
    for pattern in SOURCES:
        for path in sorted(glob.glob(os.path.join(ROOT, pattern))):
            with open(path) as f:
                names = FUSION.findall(f.read())
            out += [(os.path.relpath(path, ROOT), n) for n in names]
    return out


def compile_one(translate, out_dir, lowered, path, name, key, flags):
    dest = os.path.join(out_dir, path.replace("/", "__"), name)
    os.makedirs(dest, exist_ok=True)
    what = "--fusion-to-lowered-ir" if lowered else "--fusion-to-ptx"
    cmd = [translate, os.path.join(ROOT, path), what, "--no-cubin",
           "--fusion=" + name] + flags
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode == 0:
        with open(os.path.join(dest, key + (".mlir" if lowered else ".ptx")), "w") as f:
            f.write(r.stdout)
        return True
    with open(os.path.join(dest, key + ".err"), "w") as f:
        # Paths differ between checkouts; the message does not.
        f.write(r.stderr.replace(ROOT + "/", ""))
    return False


def snapshot(args):
    defs = definitions()
    jobs = [(p, n, k, f) for p, n in defs for k, f in OPTIONS.items()]
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        results = list(pool.map(
            lambda j: compile_one(args.translate, args.out_dir, args.lowered, *j),
            jobs))
    print(f"ptx-snapshot: {len(defs)} definitions, {len(jobs)} compiles "
          f"({sum(results)} with {'lowered IR' if args.lowered else 'PTX'})")


def compare(old, new):
    def files(d):
        return {os.path.relpath(os.path.join(r, f), d)
                for r, _, fs in os.walk(d) for f in fs}
    a, b = files(old), files(new)
    differ = sorted(p for p in a & b
                    if not filecmp.cmp(os.path.join(old, p), os.path.join(new, p), False))
    for p in sorted(a - b):
        print("only in old:", p)
    for p in sorted(b - a):
        print("only in new:", p)
    for p in differ:
        print("differs:", p)
    same = len(a & b) - len(differ)
    print(f"ptx-snapshot: {same} of {len(a | b)} files identical")
    return 0 if same == len(a | b) else 1


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("out_dir", nargs="?")
    ap.add_argument("--translate", default=os.path.join(ROOT, "build/bin/fusion-translate"))
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    ap.add_argument("--compare", nargs=2, metavar=("OLD", "NEW"))
    ap.add_argument("--lowered", action="store_true",
                    help="write --fusion-to-lowered-ir (host program and binaries)")
    args = ap.parse_args()
    if args.compare:
        return compare(*args.compare)
    if not args.out_dir:
        ap.error("OUT_DIR or --compare OLD NEW")
    snapshot(args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
