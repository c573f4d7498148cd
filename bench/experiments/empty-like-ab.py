"""A/B of the C fast path's output allocation (Note [Outputs like an input]):
Executable.call on the host-overhead fusion with the torch backend as is
(empty_like for outputs shaped like an input) and with empty_like turned
off (torch.empty), interleaved in one process; also checks which one ran.

    PYTHONPATH=python FUSION_TOOLS_DIR=bin FUSION_RUNTIME_LIBRARY=lib/libfusion_runtime.so \\
      python3 bench/experiments/empty-like-ab.py
"""
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
import host_overhead  # noqa: E402
import torch  # noqa: E402
from fusion import runtime  # noqa: E402


def per_call(fn, calls=20000):
    for _ in range(1000):
        fn()
    torch.cuda.synchronize()
    t = time.perf_counter()
    for _ in range(calls):
        fn()
    dt = (time.perf_counter() - t) / calls * 1e6
    torch.cuda.synchronize()
    return dt


def main():
    a = torch.randn(1024, device="cuda")
    b = torch.randn(1024, device="cuda")
    fd = host_overhead.tiny_fusion()
    fd.execute([a, b])
    module = fd.last_execution["module"]
    like = runtime.TorchBackend()
    seen = []
    counting = runtime.TorchBackend()
    counting.empty_like = lambda x: (seen.append(1), torch.empty_like(x))[1]
    probe = runtime.Executable(module, backend=counting)
    probe.call([a, b])
    probe.call([a, b])
    print("empty_like calls on a hit:", len(seen), "(1 expected)")
    plain = runtime.TorchBackend()
    plain.empty_like = None
    with_like = runtime.Executable(module, backend=like)
    without = runtime.Executable(module, backend=plain)
    (out,) = with_like.call([a, b])
    assert torch.equal(out, torch.relu(a * b + a))
    rows = {"empty_like": [], "torch.empty": []}
    for _ in range(20):  # interleaved: the machine's speed drifts
        rows["empty_like"].append(per_call(lambda: with_like.call([a, b]), 5000))
        rows["torch.empty"].append(per_call(lambda: without.call([a, b]), 5000))
    for name, v in rows.items():
        print(f"Executable.call, outputs by {name:12s} {statistics.median(v):6.2f} us "
              f"(min {min(v):.2f})")
    diffs = [y - x for x, y in zip(rows["empty_like"], rows["torch.empty"])]
    print(f"torch.empty minus empty_like, paired: median {statistics.median(diffs):.2f} us, "
          f"{sum(d > 0 for d in diffs)} of {len(diffs)} pairs favour empty_like")
    stream = torch.cuda.current_stream().cuda_stream
    print(f"raw cuLaunchKernelEx {statistics.median(runtime.measure_raw_launch_us(20000, stream) for _ in range(5)):.2f} us")


if __name__ == "__main__":
    main()
