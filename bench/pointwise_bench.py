"""The first benchmark's command line, kept for old scripts: the cases
Fusion compiled first (add_relu, gelu_bias, inner_sum) through bench/run.py,
the full suite (see that file and docs/performance.md).

usage: python3 bench/pointwise_bench.py [--modules DIR] [--json OUT] [--iters N]
           [--no-compile] [--cases a,b] [--no-host]
"""

import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import run  # noqa: E402


def translate_args(argv):
    """This script's options as bench/run.py's."""
    p = argparse.ArgumentParser()
    p.add_argument("--modules", default=None)
    p.add_argument("--json", default=None)
    p.add_argument("--iters", default="30")
    p.add_argument("--no-compile", action="store_true",
                   help="skip torch.compile")
    p.add_argument("--cases", default="add_relu,gelu_bias,inner_sum")
    p.add_argument("--no-host", action="store_true")
    a = p.parse_args(argv)
    out = ["--cases", a.cases, "--iters", a.iters]
    if a.modules:
        out += ["--modules", a.modules]
    if a.json:
        out += ["--json", a.json]
    if a.no_compile:
        out.append("--no-compile-peers")
    if a.no_host:
        out.append("--no-host")
    return out


if __name__ == "__main__":
    sys.exit(run.main(translate_args(sys.argv[1:])))
