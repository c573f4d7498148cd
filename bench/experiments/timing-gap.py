"""Why the suite (bench/run.py) reads some rows slower than fusion-run --bench:
times one module through Executable.run on torch tensors in several ways in
one process, beside `fusion-run --bench` on the same module file.

    PYTHONPATH=python FUSION_RUNTIME_LIBRARY=lib/libfusion_runtime.so \\
      python3 bench/experiments/timing-gap.py MODULE M N [--weights K]

MODULE takes an (M, N) bf16 input plus K (default 0) bf16 vectors of N.
"""
import argparse
import os
import statistics
import subprocess
import sys
import time

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "python"))
sys.path.insert(0, os.path.join(HERE, ".."))
from fusion import Executable  # noqa: E402
from measure import copy_bandwidth_gbps  # noqa: E402
from measure import median_time_us as per_call  # noqa: E402  (the suite's timing)


def batched(call, sets, iters=30, warmup=5):
    for i in range(warmup):
        call(i % sets)
    torch.cuda.synchronize()
    s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    s.record()
    for i in range(iters):
        call(i % sets)
    e.record()
    torch.cuda.synchronize()
    return s.elapsed_time(e) * 1e3 / iters


def main():
    p = argparse.ArgumentParser()
    p.add_argument("module")
    p.add_argument("m", type=int)
    p.add_argument("n", type=int)
    p.add_argument("--weights", type=int, default=0)
    a = p.parse_args()
    exe = Executable(a.module)

    def make():
        x = torch.empty(a.m, a.n, device="cuda").uniform_(-2, 2).to(torch.bfloat16)
        ws = [torch.empty(a.n, device="cuda").uniform_(-2, 2).to(torch.bfloat16)
              for _ in range(a.weights)]
        return [x] + ws

    sets = [make() for _ in range(3)]
    outs = [[torch.empty(a.m, a.n, dtype=torch.bfloat16, device="cuda")] for _ in sets]
    copy_gbps = copy_bandwidth_gbps()
    useful = 2 * a.m * a.n * 2 + a.weights * a.n * 2

    def row(name, us):
        print(f"{name:48s} {us:8.2f} us  fraction {useful / (us * 1e-6) / 1e9 / copy_gbps:.3f}",
              flush=True)

    print(f"copy {copy_gbps:.0f} GB/s; {a.module} {a.m}x{a.n}")
    row("per-call events, 3 input/output sets (suite)", per_call(lambda i: exe.run(sets[i], outs[i]), 3, 30))
    row("per-call events, 1 set", per_call(lambda i: exe.run(sets[0], outs[0]), 1, 30))
    row("events around 30 calls, 3 sets", batched(lambda i: exe.run(sets[i], outs[i]), 3))
    row("per-call events, 3 sets, again", per_call(lambda i: exe.run(sets[i], outs[i]), 3, 30))
    stream = torch.cuda.Stream()
    with torch.cuda.stream(stream):
        row("per-call events, 3 sets, side stream", per_call(lambda i: exe.run(sets[i], outs[i]), 3, 30))
    # After the GPU sat idle (as while torch.compile compiles in the suite):
    # 5 warm-up calls, then the same with 25 ms of warm-up (Note [Warm-up by
    # time] in bench/measure.py).
    for idle_s in (2, 5):
        time.sleep(idle_s)
        row(f"after {idle_s} s idle, 5 warm-up calls", per_call(
            lambda i: exe.run(sets[i], outs[i]), 3, 30, warmup=5, warmup_ms=0))
        time.sleep(idle_s)
        row(f"after {idle_s} s idle, 25 ms of warm-up", per_call(
            lambda i: exe.run(sets[i], outs[i]), 3, 30, warmup=5, warmup_ms=25))
    del sets, outs
    torch.cuda.empty_cache()
    ins = [f"--input={a.m}x{a.n}"] + [f"--input={a.n}"] * a.weights
    out = subprocess.run(["fusion-run", a.module, *ins, "--bench", "--no-check", "--iters=30",
                          "--warmup=5", "--copy-mib=1024"], capture_output=True, text=True)
    print("\n".join(line for line in out.stdout.splitlines() if line.startswith("BENCH")) or out.stderr)


if __name__ == "__main__":
    main()
