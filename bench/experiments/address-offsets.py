"""Does where the tensors lie change a streaming kernel's bandwidth? (the
suite-vs-fusion-run gap of docs/performance.md): times one module through
Executable.run with its bf16 (M, N) input and output carved out of one
buffer at chosen offsets, then again after torch.compile has compiled and
run a kernel in this process.

    PYTHONPATH=python FUSION_RUNTIME_LIBRARY=lib/libfusion_runtime.so \\
      python3 bench/experiments/address-offsets.py MODULE M N [--weights K]
"""
import argparse
import os
import sys

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "python"))
sys.path.insert(0, os.path.join(HERE, ".."))
from fusion import Executable  # noqa: E402
from measure import copy_bandwidth_gbps, median_time_us  # noqa: E402

MIB = 1 << 20


def main():
    p = argparse.ArgumentParser()
    p.add_argument("module")
    p.add_argument("m", type=int)
    p.add_argument("n", type=int)
    p.add_argument("--weights", type=int, default=0)
    a = p.parse_args()
    exe = Executable(a.module)
    elems = a.m * a.n
    nbytes = elems * 2
    ws = [torch.empty(a.n, device="cuda").uniform_(-2, 2).to(torch.bfloat16)
          for _ in range(a.weights)]
    useful = 2 * nbytes + a.weights * a.n * 2
    # (input offset, gap between the input's end and the output) in bytes.
    layouts = [(0, 0), (0, 4096), (0, 64 * 1024), (0, MIB), (0, 2 * MIB),
               (0, 3 * MIB), (0, 5 * MIB + 4096), (0, 64 * MIB), (0, 257 * MIB),
               (256, 0), (4096, 0), (MIB, MIB)]
    big = max(off + gap for off, gap in layouts)
    buf = torch.empty(2 * nbytes + big + 4 * MIB, dtype=torch.uint8, device="cuda")

    def carve(off, gap):
        x = buf[off:off + nbytes].view(torch.bfloat16).view(a.m, a.n)
        o = off + nbytes + gap
        o = (o + 255) // 256 * 256
        y = buf[o:o + nbytes].view(torch.bfloat16).view(a.m, a.n)
        x.uniform_(-2, 2)
        return x, y

    def table(title):
        copy = copy_bandwidth_gbps()
        print(f"-- {title}: copy {copy:.0f} GB/s; {a.module} {a.m}x{a.n}", flush=True)
        for off, gap in layouts:
            x, y = carve(off, gap)
            us = median_time_us(lambda i: exe.run([x] + ws, [y]), 1, 30)
            print(f"input at +{off:>9d} B, gap {gap:>10d} B: {us:8.2f} us  "
                  f"fraction {useful / (us * 1e-6) / 1e9 / copy:.3f}", flush=True)
        # Separate allocations, as the suite makes them.
        sets = []
        for _ in range(3):
            x = torch.empty(a.m, a.n, device="cuda").uniform_(-2, 2).to(torch.bfloat16)
            sets.append(([x] + ws, [torch.empty_like(x)]))
        us = median_time_us(lambda i: exe.run(*sets[i]), 3, 30)
        print(f"{'3 separate allocations (suite)':44s}: {us:8.2f} us  "
              f"fraction {useful / (us * 1e-6) / 1e9 / copy:.3f}", flush=True)

    table("fresh process")
    f = torch.compile(lambda t: torch.softmax(t.float(), -1).to(t.dtype))
    t = torch.randn(a.m, a.n, device="cuda", dtype=torch.bfloat16)
    for _ in range(20):
        f(t)
    torch.cuda.synchronize()
    del t
    table("after torch.compile ran softmax")


if __name__ == "__main__":
    main()
