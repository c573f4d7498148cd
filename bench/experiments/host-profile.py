"""Where the host time of a tiny fusion call goes (issue 5's host target):
times the pieces of fd.execute's fast path one by one on the GPU machine,
then cProfiles fd.execute. Run from the bundle:

    PYTHONPATH=python FUSION_TOOLS_DIR=bin FUSION_RUNTIME_LIBRARY=lib/libfusion_runtime.so \
      python3 bench/experiments/host-profile.py
"""
import cProfile
import os
import pstats
import statistics
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
import host_overhead  # noqa: E402
import torch  # noqa: E402
from fusion import runtime  # noqa: E402

CALLS = 20000


def per_call(fn, calls=CALLS, repeats=5):
    samples = []
    for _ in range(repeats):
        torch.cuda.synchronize()
        t = time.perf_counter()
        for _ in range(calls):
            fn()
        samples.append((time.perf_counter() - t) / calls * 1e6)
        torch.cuda.synchronize()
    return statistics.median(samples)


def main():
    a = torch.randn(1024, device="cuda")
    b = torch.randn(1024, device="cuda")
    inputs = [a, b]
    dev = torch.device("cuda", 0)
    f32 = torch.float32
    fd = host_overhead.tiny_fusion()
    fd.execute(inputs)
    exe = runtime.Executable(fd.last_execution["module"])
    outs = exe.empty_outputs(inputs)
    native = fd._fast_path.native
    print("C fast path:", runtime.fastpath_status(), "native:", native is not None)
    empty, get_device = torch.empty, torch._C._cuda_getDevice
    raw_stream = torch._C._cuda_getCurrentRawStream
    shape = (1024,)
    size = torch.Size(shape)
    rows = [
        ("pass (loop floor)", lambda: None),
        ("torch.empty(shape, dtype=, device=torch.device)", lambda: empty(shape, dtype=f32, device=dev)),
        ("torch.empty(shape, dtype=, device='cuda')", lambda: empty(shape, dtype=f32, device="cuda")),
        ("torch.empty(1024, dtype=, device=)", lambda: empty(1024, dtype=f32, device=dev)),
        ("torch.empty(shape, dtype=, device=0)", lambda: empty(shape, dtype=f32, device=0)),
        ("torch.empty(torch.Size, dtype=, device=)", lambda: empty(size, dtype=f32, device=dev)),
        ("torch.empty(shape, device=) [default dtype]", lambda: empty(shape, device=dev)),
        ("torch.empty_like(a)", lambda: torch.empty_like(a)),
        ("a.new_empty(shape)", lambda: a.new_empty(shape)),
        ("torch.empty_strided", lambda: torch.empty_strided(shape, (1,), dtype=f32, device=dev)),
        ("_cuda_getDevice()", lambda: get_device()),
        ("_cuda_getCurrentRawStream(0)", lambda: raw_stream(0)),
        ("a.data_ptr()", lambda: a.data_ptr()),
        ("a.shape", lambda: a.shape),
        ("a.stride()", lambda: a.stride()),
        ("a.dtype", lambda: a.dtype),
        ("a.get_device()", lambda: a.get_device()),
        ("native.call(inputs, outs)", lambda: native.call(inputs, outs)),
        ("native.call(inputs)", lambda: native.call(inputs)),
        ("native.call(inputs, None, None, fd)", lambda: native.call(inputs, None, None, fd)),
        ("exe.run(inputs, outs)", lambda: exe.run(inputs, outs)),
        ("exe.call(inputs)", lambda: exe.call(inputs)),
        ("fd.execute(inputs)", lambda: fd.execute(inputs)),
        ("torch eager relu(a*b+a)", lambda: torch.relu(a * b + a)),
    ]
    for name, fn in rows:
        for _ in range(1000):
            fn()
        print(f"{per_call(fn):8.2f} us  {name}", flush=True)
    stream = torch.cuda.current_stream().cuda_stream
    print(f"{statistics.median(runtime.measure_raw_launch_us(CALLS, stream) for _ in range(5)):8.2f} us  raw cuLaunchKernelEx")
    prof = cProfile.Profile()
    prof.enable()
    for _ in range(CALLS):
        fd.execute(inputs)
    prof.disable()
    torch.cuda.synchronize()
    pstats.Stats(prof).sort_stats("tottime").print_stats(15)


if __name__ == "__main__":
    main()
