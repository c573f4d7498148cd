"""Host time per call of a tiny fusion from Python (BENCHMARKS.md, "Host
overhead"): relu(a * b + a) on two f32 CUDA tensors of 1024 elements, called
N times in a tight loop without synchronizing between calls; the time is
time.perf_counter around the loop divided by N, the median of several
repeats, the paths interleaved (Note [Interleaved host timing]). Paths, all in one process:

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
  ..., 4 launches        relu(a_i + 1) for four inputs of unrelated sizes
                         (four results of different shapes: four kernels,
                         four launches per call): fd.execute and
                         Executable.run as one launch graph (Note [Launch
                         graphs] in lib/Runtime/Executable.cpp) and
                         Executable.run kernel by kernel; timed in chunks of
                         100 calls with the GPU drained between chunks, so
                         that the host is timed, not the kernels

Targets: fd.execute at most the raw launch + 5 us; a call of 4 launches
less host time per launch than one raw launch.

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
# FUSION_TEST_INSTALLED=1: the installed package (a wheel), not python/.
if os.environ.get("FUSION_TEST_INSTALLED") != "1":
    sys.path.insert(0, os.path.join(os.path.dirname(_HERE), "python"))

TARGET_OVER_RAW_US = 5.0


def tiny_fusion():
    from fusion import DataType, FusionDefinition
    with FusionDefinition("host_overhead_tiny") as fd:
        a = fd.define_tensor([-1], DataType.Float32, name="a")
        b = fd.define_tensor([-1], DataType.Float32, name="b")
        fd.add_output(fd.ops.relu(fd.ops.add(fd.ops.mul(a, b), a)))
    return fd


MULTI_LAUNCHES = 4


def multi_fusion():
    """MULTI_LAUNCHES results of unrelated sizes: one kernel each."""
    from fusion import DataType, FusionDefinition
    with FusionDefinition("host_overhead_multi") as fd:
        for i in range(MULTI_LAUNCHES):
            a = fd.define_tensor([-1], DataType.Float32, name=f"a{i}")
            fd.add_output(fd.ops.relu(fd.ops.add(a, 1.0)))
    return fd


def chunked(fn, args, sync, chunk=100):
    """A block for interleaved_us: host time per call of fn(*args), timed in
    chunks of `chunk` calls with the GPU drained (not timed) between them,
    so that a call of several launches never waits for the launch queue."""
    def block(calls):
        total, done = 0.0, 0
        while done < calls:
            n = min(chunk, calls - done)
            sync()
            start = time.perf_counter()
            for _ in range(n):
                fn(*args)
            total += time.perf_counter() - start
            done += n
        sync()
        return total / calls * 1e6
    return block


def _eager(a, b):
    import torch
    return torch.relu(a * b + a)


def block_us(fn, args, calls, sync):
    """Host time per call of `calls` calls of fn(*args) in a tight loop
    (synchronized before and after, not between). fn is called directly,
    with no lambda around it: what a user's loop pays."""
    sync()
    start = time.perf_counter()
    for _ in range(calls):
        fn(*args)
    stop = time.perf_counter()
    sync()
    return (stop - start) / calls * 1e6


def interleaved_us(paths, calls, repeats, sync):
    """Note [Interleaved host timing]: the GPU machine's host speed drifts
    by several us per call within a minute, so timing each path in its own
    stretch of time mixes that drift into the differences between paths.
    Here every repeat times one block of every path, the paths in a rotated
    order, and a path's figure is the median of its blocks. `paths`:
    {name: (fn, args)} where fn(*args) is one call, or (block, None) where
    block(calls) returns us per call itself. Returns {name: [us per block]}."""
    names = list(paths)
    samples = {name: [] for name in names}
    for r in range(repeats):
        for k in range(len(names)):
            name = names[(r + k) % len(names)]
            fn, args = paths[name]
            samples[name].append(fn(calls) if args is None else
                                 block_us(fn, args, calls, sync))
    return samples


def paired_over(samples, name, base):
    """Median over repeats of (name's block - base's block in the same
    repeat): the host time above `base` with the drift between repeats
    taken out."""
    return statistics.median(a - b for a, b in zip(samples[name], samples[base]))


def _first_line(e):
    text = f"{type(e).__name__}: {e}"
    return text.splitlines()[0][:200]


def measure(calls=10000, repeats=11, numel=1024, compile_peers=True, tools_dir=None,
            check=True):
    """Host time per call of each path (see the module's docstring):
    {path: {"us": float or None, "note": str}}, plus "over raw launch"
    entries for the Fusion paths (paired per repeat, Note [Interleaved host
    timing]). A path that fails gets us None and the error in its note."""
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
    paths, notes = {}, {}

    def add(name, fn, args, note):
        """Warms the path up (one failure drops it with its error)."""
        try:
            if args is None:
                fn(warm)
            else:
                for _ in range(warm):
                    fn(*args)
            sync()
            paths[name] = (fn, args)
            notes[name] = note
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
    try:
        stream = torch.cuda.current_stream().cuda_stream
        add("raw cuLaunchKernelEx", lambda n: runtime.measure_raw_launch_us(n, stream), None,
            "empty kernel, the floor")
    except Exception as e:  # noqa: BLE001
        out["raw cuLaunchKernelEx"] = {"us": None, "note": "failed: " + _first_line(e)}
    if exe is not None:
        # fd.execute as users call it: after the first run it is the C
        # execute (Note [C execute] in lib/Python/fastpath.c) when built.
        kind = type(fd.execute).__name__
        add("fd.execute", fd.execute, (inputs,),
            f"Python API, relu(a * b + a), {numel} f32, one kernel; {via}; fd.execute is a {kind}")
        if fast:
            add("fd.execute (ctypes)", fd_ctypes.execute, (inputs,),
                "the same, FUSION_NO_FASTPATH")
        add("Executable.call", exe.call, (inputs,), f"outputs by torch; {via}")
        if fast:
            add("Executable.call (ctypes)", exe_ctypes.call, (inputs,),
                "the same, Executable(fastpath=False)")
        sig = exe.signature(inputs)
        add("Executable.launch", lambda: exe.launch(sig, inputs, exe.allocate(sig, inputs)), (),
            "ctypes, signature bound beforehand, outputs by torch.empty")
        outs = exe.empty_outputs(inputs)
        add("Executable.run", exe.run, (inputs, outs), f"preallocated outputs; {via}")
        if fast:
            add("Executable.run (ctypes)", exe_ctypes.run, (inputs, outs),
                "the same, Executable(fastpath=False)")
    try:
        multi_inputs = [torch.randn(numel, device="cuda") for _ in range(MULTI_LAUNCHES)]
        fd_multi = multi_fusion()
        got = fd_multi.execute(multi_inputs)
        if check:
            for x, y in zip(multi_inputs, got):
                torch.testing.assert_close(y, torch.relu(x + 1.0))
        multi_module = fd_multi.last_execution["module"]
        exe_graph = runtime.Executable(multi_module)
        exe_direct = runtime.Executable(multi_module)
        exe_direct.set_launch_graphs(False)
        multi_outs = exe_graph.empty_outputs(multi_inputs)
        k = MULTI_LAUNCHES
        add(f"fd.execute, {k} launches", chunked(fd_multi.execute, (multi_inputs,), sync), None,
            f"{k} results of unrelated sizes, {numel} f32 each; one launch graph")
        add(f"Executable.run, {k} launches, graph",
            chunked(exe_graph.run, (multi_inputs, multi_outs), sync), None,
            "preallocated outputs; one launch graph, replayed")
        add(f"Executable.run, {k} launches, kernel by kernel",
            chunked(exe_direct.run, (multi_inputs, multi_outs), sync), None,
            "the same, set_launch_graphs(False)")
    except Exception as e:  # noqa: BLE001
        out[f"fd.execute, {MULTI_LAUNCHES} launches"] = {
            "us": None, "note": "failed: " + _first_line(e)}
        exe_graph = None
    add("torch eager", _eager, (a, b), "relu(a * b + a): three kernels")
    if compile_peers:
        try:
            compiled = torch.compile(_eager, dynamic=False)
            compiled(a, b)
            add("torch.compile", compiled, (a, b), "Inductor, one kernel")
        except Exception as e:  # noqa: BLE001
            out["torch.compile"] = {"us": None, "note": "failed: " + _first_line(e)}
    samples = interleaved_us(paths, calls, repeats, sync)
    for name in paths:
        out[name] = {"us": statistics.median(samples[name]), "note": notes[name]}
    if "raw cuLaunchKernelEx" in paths:
        for name in ("fd.execute", "fd.execute (ctypes)", "Executable.call",
                     "Executable.call (ctypes)", "Executable.launch", "Executable.run",
                     "Executable.run (ctypes)"):
            if name in paths:
                over = paired_over(samples, name, "raw cuLaunchKernelEx")
                note = "above the raw launch (median of per-repeat differences)"
                if name == "fd.execute":
                    verdict = "meets" if over <= TARGET_OVER_RAW_US else "misses"
                    note += f"; {verdict} the target of <= {TARGET_OVER_RAW_US:g} us"
                out[f"{name} over raw"] = {"us": over, "note": note}
        k = MULTI_LAUNCHES
        for name in (f"fd.execute, {k} launches", f"Executable.run, {k} launches, graph",
                     f"Executable.run, {k} launches, kernel by kernel"):
            if name in paths:
                per = statistics.median(
                    a / k / b for a, b in zip(samples[name], samples["raw cuLaunchKernelEx"]))
                verdict = "below" if per < 1 else "above"
                out[f"{name}, per launch / raw"] = {
                    "us": per, "note": f"host time per launch over one raw launch (a ratio, "
                    f"median of per-repeat ratios): {verdict} one raw launch"}
    if exe_graph is not None and f"Executable.run, {MULTI_LAUNCHES} launches, graph" in paths:
        stats = exe_graph.graph_stats()
        out["launch graph stats"] = {"us": None, "note": ", ".join(
            f"{key} {value}" for key, value in stats.items())}
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
    p.add_argument("--repeats", type=int, default=11)
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
