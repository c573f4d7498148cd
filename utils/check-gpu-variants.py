#!/usr/bin/env python3
"""Checks, without a GPU, that the kernel variants the GPU lit tests expect
(`variant=...` in the CHECK line of each `fusion-run` RUN line of
test/GPU/*.mlir, run on the test itself or on another file of the folder) are the ones the runtime's launch plan picks: fusion-run
--verbose prints the plan (with placeholder pointers that honour
--misalign) before it looks for a device. Catches a scheduler or guard change
that would fail those tests on the GPU machine. Also checks that the CHECK
line's literal start (`PASS <fusion> <inputs>...` up to its first `{{`) is
how fusion-run prints that run's line: several inputs print as
`AxBxbf16,Bxbf16`. A run on `%t.<name>` (a module file that an earlier
`fusion-translate %s ... -o %t.<name>` RUN line of the test writes, e.g.
with --lowered-to-module) builds that file first.

    python3 utils/check-gpu-variants.py [--fusion-run build/bin/fusion-run] [FILES...]
"""
import argparse
import concurrent.futures
import glob
import os
import re
import shlex
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# `%s` is the test itself, `%S/x.mlir` another file of its folder.
RUN = re.compile(r"// RUN: (?:timeout \d+ )?(?:env (\S+=\S+) )?fusion-run (%s|%S/\S+|%t\.\S+) (.*?)"
                 r"(?: 2>&1)? \| FileCheck %s --check-prefix=(\w+)")
TRANSLATE = re.compile(r"// RUN: fusion-translate (.*) -o (%t\.\S+)$")


def pattern(filecheck):
    """A FileCheck pattern ({{regex}} parts, the rest literal) as a regex."""
    out, rest = [], filecheck
    while "{{" in rest:
        literal, rest = rest.split("{{", 1)
        regex, rest = rest.split("}}", 1)
        out += [re.escape(literal), "(?:" + regex + ")"]
    out.append(re.escape(rest))
    # FileCheck matches a substring: the variants printed last on the line
    # start with the expected text.
    return re.compile("".join(out))


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--fusion-run", default=os.path.join(ROOT, "build", "bin", "fusion-run"))
    p.add_argument("files", nargs="*")
    args = p.parse_args(argv)
    files = args.files or sorted(glob.glob(os.path.join(ROOT, "test", "GPU", "*.mlir")))
    tmp = tempfile.TemporaryDirectory()
    translate = os.path.join(os.path.dirname(args.fusion_run), "fusion-translate")
    runs = []
    for path in files:
        lines = open(path).read().splitlines()
        folder = os.path.dirname(path)

        def expand(text):
            return (text.replace("%S", folder).replace("%s", path)
                    .replace("%t", os.path.join(tmp.name, os.path.basename(path))))

        for line in lines:
            t = TRANSLATE.match(line)
            if t:
                subprocess.run([translate] + shlex.split(expand(t.group(1))) +
                               ["-o", expand(t.group(2))], check=False,
                               stdout=subprocess.DEVNULL)
        for number, line in enumerate(lines, 1):
            m = RUN.match(line)
            if not m:
                continue
            env, target, flags, prefix = m.groups()
            source = expand(target)
            check = next((x for x in lines if x.startswith(f"// {prefix}: ")
                          and "variant=" in x), None)
            if check:
                runs.append((path, source, number, prefix, flags,
                             check.split("variant=", 1)[1].strip(),
                             check.split(": ", 1)[1], env))

    def plan(run):
        _, source, _, _, flags, _, _, env = run
        environment = dict(os.environ)
        if env:
            key, value = env.split("=", 1)
            environment[key] = value
        proc = subprocess.run([args.fusion_run, source] + shlex.split(flags) + ["--verbose"],
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                              universal_newlines=True, env=environment)
        name = re.search(r"^# compiled @(\S+)", proc.stdout, re.M)
        inputs = re.search(r"^# inputs: (.*)$", proc.stdout, re.M)
        line = (f"PASS {name.group(1)} {inputs.group(1)} " if name and inputs else None)
        return ",".join(re.findall(r"^# launch \d+: (\S+)", proc.stdout, re.M)), line

    bad = 0
    with concurrent.futures.ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
        for (path, _, number, prefix, _, want, check, _), (got, line) in zip(
                runs, pool.map(plan, runs)):
            where = f"{os.path.relpath(path, ROOT)}:{number}: {prefix}"
            if not got or not pattern(want).match(got):
                bad += 1
                print(f"{where} expects variant={want}, the plan picks "
                      f"{got or '(no plan printed)'}")
            literal = check.split("{{", 1)[0]
            if line and literal.startswith("PASS ") and not (
                    line.startswith(literal) or literal.startswith(line)):
                bad += 1
                print(f"{where} expects a line starting {literal!r}; fusion-run "
                      f"prints {line!r}...")
    print(f"check-gpu-variants: {len(runs)} runs checked, {bad} mismatches")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
