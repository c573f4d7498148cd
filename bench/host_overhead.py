"""Host time per call of a tiny fusion from Python (BENCHMARKS.md, "Host
overhead"): relu(a * b + a) on two f32 CUDA tensors of 1024 elements, called
N times in a tight loop without synchronizing between calls; the time is
time.perf_counter around the loop divided by N, the median of several
repeats. Paths, all in one process:

  fd.execute             the Python API (FusionDefinition.execute)
  Executable.call        the Executable, outputs allocated by torch
  Executable.launch      the ctypes pieces with the signature bound beforehand
  Executable.run         preallocated outputs (no allocation)
  ... (ctypes)           fd.execute, Executable.call and Executable.run with
                         the C fast path off (FUSION_NO_FASTPATH), when the
                         rows above went through it (fusion._fastpath; Note
                         [C fast path] in python/fusion/runtime.py)
  torch eager            torch.relu(a * b + a): three ops
  torch.compile          the same function through Inductor
  raw cuLaunchKernelEx   an empty kernel launched by the runtime's C API
                         (fusion_measure_raw_launch_us): the floor

Target: fd.execute at most the raw launch + 5 us.

    python3 bench/host_overhead.py [--calls N] [--repeats R] [--numel E]
                                   [--no-compile] [--json OUT]

`measure(...)` returns {path: {"us": float or None, "note": str}} for
bench/run.py.
"""

import argparse
import json
import os
import statistics
import sys
import time

_HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(_HERE), "python"))

TARGET_OVER_RAW_US = 5.0


def tiny_fusion():
    from fusion import DataType, FusionDefinition
    with FusionDefinition("host_overhead_tiny") as fd:
        a = fd.define_tensor([-1], DataType.Float32, name="a")
        b = fd.define_tensor([-1], DataType.Float32, name="b")
        fd.add_output(fd.ops.relu(fd.ops.add(fd.ops.mul(a, b), a)))
    return fd


def _eager(a, b):
    import torch
    return torch.relu(a * b + a)


def time_per_call_us(fn, calls, repeats, sync):
    """Median over `repeats` of the host time per call of `calls` calls of
    fn() in a tight loop (synchronized before and after, not between)."""
    samples = []
    for _ in range(repeats):
        sync()
        start = time.perf_counter()
        for _ in range(calls):
            fn()
        stop = time.perf_counter()
        sync()
        samples.append((stop - start) / calls * 1e6)
    return statistics.median(samples)


def _first_line(e):
    text = f"{type(e).__name__}: {e}"
    return text.splitlines()[0][:200]


def measure(calls=10000, repeats=5, numel=1024, compile_peers=True, tools_dir=None,
            check=True):
    """Host time per call of each path (see the module's docstring):
    {path: {"us": float or None, "note": str}}, plus "over raw launch"
    entries for the Fusion paths. A path that fails gets us None and the
    error in its note."""
    import torch
    if tools_dir:
        os.environ["FUSION_TOOLS_DIR"] = tools_dir
    from fusion import runtime

    torch.manual_seed(0)
    a = torch.randn(numel, device="cuda")
    b = torch.randn(numel, device="cuda")
    inputs = [a, b]
    sync = torch.cuda.synchronize
    warm = max(calls // 10, 100)
    out = {}

    def run(name, fn, note):
        try:
            for _ in range(warm):
                fn()
            out[name] = {"us": time_per_call_us(fn, calls, repeats, sync), "note": note}
        except Exception as e:  # noqa: BLE001
            out[name] = {"us": None, "note": "failed: " + _first_line(e)}

    fast = runtime.load_fastpath() is not None
    via = "C fast path" if fast else f"ctypes (C fast path {runtime.fastpath_status()})"
    fd = tiny_fusion()
    exe = None
    try:
        (got,) = fd.execute(inputs)
        if check:
            torch.testing.assert_close(got, _eager(a, b))
        module = fd.last_execution["module"]
        exe = runtime.Executable(module)
        if fast:
            # The same fusion and module with the C fast path off.
            fd_ctypes = tiny_fusion()
            old = os.environ.get("FUSION_NO_FASTPATH")
            os.environ["FUSION_NO_FASTPATH"] = "1"
            try:
                fd_ctypes.execute(inputs)
            finally:
                if old is None:
                    del os.environ["FUSION_NO_FASTPATH"]
                else:
                    os.environ["FUSION_NO_FASTPATH"] = old
            exe_ctypes = runtime.Executable(module, fastpath=False)
    except Exception as e:  # noqa: BLE001
        out["fd.execute"] = {"us": None, "note": "failed: " + _first_line(e)}
    if exe is not None:
        run("fd.execute", lambda: fd.execute(inputs),
            f"Python API, relu(a * b + a), {numel} f32, one kernel; {via}")
        if fast:
            run("fd.execute (ctypes)", lambda: fd_ctypes.execute(inputs),
                "the same, FUSION_NO_FASTPATH")
        run("Executable.call", lambda: exe.call(inputs), f"outputs by torch.empty; {via}")
        if fast:
            run("Executable.call (ctypes)", lambda: exe_ctypes.call(inputs),
                "the same, Executable(fastpath=False)")
        sig = exe.signature(inputs)
        run("Executable.launch", lambda: exe.launch(sig, inputs, exe.allocate(sig, inputs)),
            "ctypes, signature bound beforehand, outputs by torch.empty")
        outs = exe.empty_outputs(inputs)
        run("Executable.run", lambda: exe.run(inputs, outs), f"preallocated outputs; {via}")
        if fast:
            run("Executable.run (ctypes)", lambda: exe_ctypes.run(inputs, outs),
                "the same, Executable(fastpath=False)")
    run("torch eager", lambda: _eager(a, b), "relu(a * b + a): three kernels")
    if compile_peers:
        try:
            compiled = torch.compile(_eager, dynamic=False)
            compiled(a, b)
            run("torch.compile", lambda: compiled(a, b), "Inductor, one kernel")
        except Exception as e:  # noqa: BLE001
            out["torch.compile"] = {"us": None, "note": "failed: " + _first_line(e)}
    try:
        stream = torch.cuda.current_stream().cuda_stream
        samples = [runtime.measure_raw_launch_us(calls, stream) for _ in range(repeats)]
        raw = statistics.median(samples)
        out["raw cuLaunchKernelEx"] = {"us": raw, "note": "empty kernel, the floor"}
    except Exception as e:  # noqa: BLE001
        raw = None
        out["raw cuLaunchKernelEx"] = {"us": None, "note": "failed: " + _first_line(e)}
    if raw is not None:
        for name in ("fd.execute", "fd.execute (ctypes)", "Executable.call",
                     "Executable.call (ctypes)", "Executable.launch", "Executable.run",
                     "Executable.run (ctypes)"):
            us = out.get(name, {}).get("us")
            if us is not None:
                over = us - raw
                note = "above the raw launch"
                if name == "fd.execute":
                    verdict = "meets" if over <= TARGET_OVER_RAW_US else "misses"
                    note += f"; {verdict} the target of <= {TARGET_OVER_RAW_US:g} us"
                out[f"{name} over raw"] = {"us": over, "note": note}
    return out


def format_table(result):
    lines = ["| path | us per call | note |", "| --- | ---: | --- |"]
    for name, entry in result.items():
        us = entry.get("us")
        lines.append(f"| {name} | {'-' if us is None else f'{us:.2f}'} | {entry.get('note', '')} |")
    return "\n".join(lines)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--calls", type=int, default=10000)
    p.add_argument("--repeats", type=int, default=5)
    p.add_argument("--numel", type=int, default=1024)
    p.add_argument("--no-compile", action="store_true", help="skip torch.compile")
    p.add_argument("--json", default=None, help="write the result as JSON here")
    args = p.parse_args(argv)
    result = measure(calls=args.calls, repeats=args.repeats, numel=args.numel,
                     compile_peers=not args.no_compile)
    import torch
    print(f"host time per call, {args.calls} calls x {args.repeats} repeats (median), "
          f"{torch.cuda.get_device_name()}")
    print(format_table(result))
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"calls": args.calls, "repeats": args.repeats, "numel": args.numel,
                       "target_over_raw_us": TARGET_OVER_RAW_US, "paths": result},
                      f, indent=2)
    failed = [k for k in ("fd.execute", "raw cuLaunchKernelEx") if result.get(k, {}).get("us") is None]
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
