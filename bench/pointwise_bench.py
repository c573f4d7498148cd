"""Benchmark of the public cases Fusion compiles today (pointwise and inner
reductions), beside torch eager and torch.compile, in one run.

Runs the public pointwise cases of shared/BENCHMARKS.md (add_relu in f32,
gelu_bias in bf16) at the public shapes through the Fusion runtime (module
files compiled by fusion-translate, called through the C API with ctypes) and
through PyTorch eager and torch.compile, in one process. Every figure is the
median of CUDA-event timings over calls that rotate among several fresh
random input sets; the copy ceiling is measured in the same process.

usage: python3 bench/pointwise_bench.py --modules DIR [--json OUT] [--iters N]
"""

import argparse
import json
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "python"))

import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402

from fusion import Executable  # noqa: E402

SHAPES = [(32768, 4096), (8192, 16384), (262144, 1024)]
SETS = 3


def median_time_us(fn, input_sets, iters, warmup=5):
    """Median of per-call CUDA-event times, rotating among input sets."""
    for i in range(warmup):
        fn(*input_sets[i % len(input_sets)])
    torch.cuda.synchronize()
    events = []
    for i in range(iters):
        start = torch.cuda.Event(enable_timing=True)
        end = torch.cuda.Event(enable_timing=True)
        args = input_sets[i % len(input_sets)]
        start.record()
        fn(*args)
        end.record()
        events.append((start, end))
    torch.cuda.synchronize()
    return statistics.median(s.elapsed_time(e) * 1000.0 for s, e in events)


def copy_bandwidth_gbps():
    """Device-to-device copy of 1 GiB; bytes = read + write."""
    n = 1 << 30
    src = torch.empty(n, dtype=torch.uint8, device="cuda").random_(0, 255)
    dst = torch.empty_like(src)
    t = median_time_us(lambda s: dst.copy_(s), [(src,)], iters=20)
    return 2 * n / (t * 1e-6) / 1e9


def case_add_relu(m, n):
    def make():
        return (torch.empty(m, n, device="cuda").uniform_(-2, 2),
                torch.empty(m, n, device="cuda").uniform_(-2, 2))

    def eager(a, b):
        return torch.relu(a + b)

    bytes_moved = 3 * m * n * 4
    return make, eager, bytes_moved, (1e-6, 1e-6)


def case_gelu_bias(m, n):
    def make():
        return (torch.empty(m, n, device="cuda").uniform_(-2, 2).bfloat16(),
                torch.empty(n, device="cuda").uniform_(-2, 2).bfloat16())

    def eager(x, bias):
        return F.gelu(x + bias, approximate="tanh")

    bytes_moved = 2 * m * n * 2 + n * 2
    # One bf16 ulp: our tanh and PyTorch's may round differently.
    return make, eager, bytes_moved, (1e-2, 1e-2)


def case_inner_sum(m, n):
    def make():
        return (torch.empty(m, n, device="cuda").uniform_(-2, 2),)

    def eager(x):
        return x.sum(-1)

    bytes_moved = m * n * 4 + m * 4
    # f32 sums in another order: relative error grows with the row length.
    return make, eager, bytes_moved, (1e-4, 1e-3)


CASES = {"add_relu": case_add_relu, "gelu_bias": case_gelu_bias,
         "inner_sum": case_inner_sum}


def host_time_us(fn, args, calls=2000):
    """Wall time per call of back-to-back calls with no sync between them."""
    for _ in range(50):
        fn(*args)
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    for _ in range(calls):
        fn(*args)
    t1 = time.perf_counter()
    torch.cuda.synchronize()
    return (t1 - t0) / calls * 1e6


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--modules", required=True,
                        help="folder with <case>.fusionmod files")
    parser.add_argument("--json", default=None)
    parser.add_argument("--iters", type=int, default=30)
    parser.add_argument("--no-compile", action="store_true",
                        help="skip torch.compile")
    parser.add_argument("--cases", default=",".join(CASES),
                        help="comma-separated cases to run")
    parser.add_argument("--no-host", action="store_true",
                        help="skip the host-overhead measurement")
    args = parser.parse_args()

    torch.manual_seed(0)
    copy = copy_bandwidth_gbps()
    print(f"device: {torch.cuda.get_device_name()}  copy: {copy:.0f} GB/s "
          f"(1 GiB device-to-device, read + write)")
    rows = []
    header = (f"{'case':<10} {'shape':<12} {'fusion us':>10} {'frac':>6} "
              f"{'eager us':>9} {'frac':>6} {'compile us':>10} {'frac':>6} "
              f"{'vs compile':>10} {'check':>6}")
    print(header)
    for name in args.cases.split(","):
        factory = CASES[name]
        exe = Executable(os.path.join(args.modules, name + ".fusionmod"))
        compiled = None
        for m, n in SHAPES:
            make, eager, nbytes, (rtol, atol) = factory(m, n)
            sets = [make() for _ in range(SETS)]
            outs = [exe.empty_outputs(s) for s in sets]
            # Correctness on fresh inputs, output poisoned first.
            outs[0][0].fill_(float("nan"))
            exe.run(sets[0], outs[0])
            ref = eager(*sets[0])
            ok = torch.allclose(outs[0][0].float(), ref.float(), rtol=rtol,
                                atol=atol)
            # Each input set has its own outputs, found by the first
            # tensor's identity.
            which = {id(s[0]): k for k, s in enumerate(sets)}

            def run_fusion(*inputs):
                exe.run(inputs, outs[which[id(inputs[0])]])

            t_fusion = median_time_us(run_fusion, sets, args.iters)
            t_eager = median_time_us(eager, sets, args.iters)
            t_compile = float("nan")
            if not args.no_compile:
                if compiled is None:
                    compiled = torch.compile(eager, dynamic=False)
                t_compile = median_time_us(compiled, sets, args.iters)
            frac = lambda t: nbytes / (t * 1e-6) / 1e9 / copy  # noqa: E731
            row = {
                "case": name, "shape": [m, n], "bytes": nbytes,
                "fusion_us": t_fusion, "fusion_fraction": frac(t_fusion),
                "eager_us": t_eager, "eager_fraction": frac(t_eager),
                "compile_us": t_compile, "compile_fraction": frac(t_compile),
                "speedup_vs_compile": t_compile / t_fusion,
                "correct": bool(ok), "copy_gbps": copy,
            }
            rows.append(row)
            print(f"{name:<10} {f'{m}x{n}':<12} {t_fusion:>10.1f} "
                  f"{row['fusion_fraction']:>6.3f} {t_eager:>9.1f} "
                  f"{row['eager_fraction']:>6.3f} {t_compile:>10.1f} "
                  f"{row['compile_fraction']:>6.3f} "
                  f"{row['speedup_vs_compile']:>9.2f}x {'ok' if ok else 'FAIL':>6}")
            del sets, outs
            torch.cuda.empty_cache()

    host = {}
    if args.no_host:
        return finish(args, copy, rows, host)
    # Host overhead from Python: a tiny add_relu through the C API (ctypes)
    # beside eager and torch.compile.
    exe = Executable(os.path.join(args.modules, "add_relu.fusionmod"))
    a = torch.randn(1, 1024, device="cuda")
    b = torch.randn(1, 1024, device="cuda")
    out = exe.empty_outputs((a, b))
    host = {
        "fusion_python_us": host_time_us(lambda x, y: exe.run((x, y), out), (a, b)),
        "eager_us": host_time_us(lambda x, y: torch.relu(x + y), (a, b)),
    }
    if not args.no_compile:
        small = torch.compile(lambda x, y: torch.relu(x + y), dynamic=False)
        host["compile_us"] = host_time_us(small, (a, b))
    print("host time per call (1x1024 add_relu): " +
          "  ".join(f"{k}={v:.1f}" for k, v in host.items()))
    return finish(args, copy, rows, host)


def finish(args, copy, rows, host):
    geo = 1.0
    for r in rows:
        geo *= r["speedup_vs_compile"]
    geo **= 1.0 / len(rows)
    print(f"geometric mean speedup vs torch.compile: {geo:.2f}x")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"device": torch.cuda.get_device_name(), "copy_gbps": copy,
                       "rows": rows, "host": host,
                       "geomean_vs_compile": geo}, f, indent=1)
    if not all(r["correct"] for r in rows):
        print("FAIL: some results differ from torch eager")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
