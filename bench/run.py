"""The benchmark suite: every public case of shared/BENCHMARKS.md at the public
shapes, through Fusion, torch eager, torch.compile and the peers of
bench/peers.py (Liger-Kernel, QuACK: where installed) in one process, plus
cold compile times and host time per call. Prints one table; writes JSON;
updates the marked section of docs/performance.md.

On the GPU machine (from the unpacked bundle, or a checkout with tools built):

    python3 bench/run.py --json out/bench.json
    python3 bench/run.py --cases softmax,layernorm --shapes 8192x16384 --iters 50
    python3 bench/run.py --modules modules --no-compile-peers

Anywhere (no GPU): render a saved run and put it into the docs:

    python3 bench/run.py --from-json out/bench.json --update-docs docs/performance.md

Each case is compiled from its definition (bench/suite.py: CASES) by a fresh
`fusion-translate --fusion-to-module` process, which is also the cold compile
time. A case that does not compile gets a "not compiled: <error>" row, its
peers still measured. Exit status 1 when a Fusion result differs from torch
eager or a compiled case fails to run; 2 for bad options or no GPU.
"""

import argparse
import os
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
# FUSION_TEST_INSTALLED=1: the installed package (a wheel), not python/.
if os.environ.get("FUSION_TEST_INSTALLED") != "1":
    sys.path.insert(0, os.path.join(os.path.dirname(HERE), "python"))

import suite  # noqa: E402  (pure: no torch at import time)


def parse_args(argv=None):
    p = argparse.ArgumentParser(
        description="Fusion's benchmark suite (shared/BENCHMARKS.md)",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="cases: " + ", ".join(c.name for c in suite.CASES))
    p.add_argument("--cases", default="all",
                   help="comma-separated cases (default: all)")
    p.add_argument("--shapes", default="all",
                   help="comma-separated MxN shapes (default: the public three)")
    p.add_argument("--iters", type=int, default=30,
                   help="timed calls per measurement (default 30)")
    p.add_argument("--no-compile-peers", action="store_true",
                   help="skip torch.compile")
    p.add_argument("--peers", default="all",
                   help="peers beyond torch (bench/peers.py: Liger, QuACK), "
                        "comma-separated, measured when they import; 'none' "
                        "skips them (default: all)")
    p.add_argument("--modules", default=None,
                   help="folder of precompiled <case>.fusionmod (default: "
                        "compile each case now)")
    p.add_argument("--tools", default=None,
                   help="folder with fusion-translate and fusion-run (default: "
                        "$FUSION_TOOLS_DIR, bin/, build/bin)")
    p.add_argument("--work", default=None,
                   help="folder for the compiled modules (default: a temporary one)")
    p.add_argument("--compile-repeats", type=int, default=3,
                   help="fresh fusion-translate processes per case for the "
                        "compile time (default 3)")
    p.add_argument("--no-host", action="store_true",
                   help="skip the host time per call")
    p.add_argument("--json", default=None, help="write the results here")
    p.add_argument("--markdown", default=None,
                   help="write the printed report here too")
    p.add_argument("--update-docs", default=None, metavar="DOC",
                   help="replace the section between "
                        f"{suite.DOCS_BEGIN} and {suite.DOCS_END} of DOC")
    p.add_argument("--from-json", default=None, metavar="JSON",
                   help="measure nothing: render a saved run (for --update-docs); "
                        "several comma-separated runs render as one")
    args = p.parse_args(argv)
    try:
        args.case_list = suite.select_cases(args.cases)
        args.shape_list = suite.parse_shapes(args.shapes)
    except ValueError as e:
        p.error(str(e))
    if args.iters < 1:
        p.error("--iters must be at least 1")
    return args


def compile_all(cases, args, work, log=print):
    """Module per case (compiled now, or from --modules) and the compile
    times. Returns ({case: (module or None, error)}, compile results,
    process floor ms, timing flag)."""
    tools = suite.find_tools_dir(args.tools)
    translate = suite.tool_path(tools, "fusion-translate")
    timing = suite.timing_flag(translate) if translate else None
    floor = suite.process_floor_ms(translate)
    modules, compiles = {}, []
    for case in cases:
        out = os.path.join(work, case.name + ".fusionmod")
        c = suite.compile_case(case, translate, out, repeats=args.compile_repeats,
                               timing=timing)
        compiles.append(c)
        if c["ok"]:
            log(f"compiled {case.name}: {c['median_ms']:.0f} ms "
                f"(first {c['first_ms']:.0f} ms), {c['module_bytes']} bytes")
        else:
            log(f"not compiled {case.name}: {c['error']}")
        if args.modules:
            path = os.path.join(args.modules, case.name + ".fusionmod")
            modules[case.name] = ((path, None) if os.path.isfile(path) else
                                  (None, f"no {path}"))
        else:
            modules[case.name] = (out, None) if c["ok"] else (None, c["error"])
    return modules, compiles, floor, timing, tools


def render(result, args):
    report = suite.format_report(result)
    print()
    print(report)
    if args.markdown:
        with open(args.markdown, "w") as f:
            f.write(report + "\n")
    if args.json and not args.from_json:
        suite.write_json(result, args.json)
        print(f"\nwrote {args.json}")
    if args.update_docs:
        suite.update_docs(args.update_docs, result)
        print(f"updated {args.update_docs}")


def main(argv=None):
    args = parse_args(argv)
    if args.from_json:
        result = suite.merge_results(
            [suite.read_json(p) for p in args.from_json.split(",")])
        render(result, args)
        return suite.exit_code(result)

    try:
        import measure  # torch from here on
    except ImportError as e:
        print(f"bench/run.py: cannot measure here: {e} (the suite needs PyTorch "
              "with CUDA; --from-json renders a saved run)", file=sys.stderr)
        return 2
    if not measure.cuda_available():
        print("bench/run.py: no CUDA device (torch.cuda.is_available() is False)",
              file=sys.stderr)
        return 2
    measure.seed(0)

    work_holder = None
    work = args.work
    if work is None:
        work_holder = tempfile.TemporaryDirectory(prefix="fusion-bench-")
        work = work_holder.name
    os.makedirs(work, exist_ok=True)

    device, software = measure.device_description()
    copy = measure.copy_bandwidth_gbps()
    print(f"device: {device} ({software})")
    print(f"copy: {copy:.0f} GB/s (1 GiB device-to-device, read + write)")

    modules, compiles, floor, timing, tools = compile_all(args.case_list, args, work)
    import peers as peer_module
    wanted = (None if args.peers == "all" else
              [] if args.peers == "none" else args.peers.split(","))
    peers, peers_missing = peer_module.load(wanted)
    for p in peers:
        print(f"peer: {p.name} {p.version or ''}".rstrip())
    for name, why in peers_missing.items():
        print(f"peer not measured: {name} ({why})")
    measurer = measure.TorchMeasurer(copy, iters=args.iters,
                                     compile_peers=not args.no_compile_peers,
                                     peers=peers)
    rows = suite.run_suite(args.case_list, args.shape_list, measurer, modules)

    host = {}
    if not args.no_host:
        add_relu = modules.get("add_relu", (None, None))[0]
        if add_relu is None:
            # The host measurement needs add_relu even when it is not benched.
            path = os.path.join(work, "add_relu-host.fusionmod")
            c = suite.compile_case(suite.CASES_BY_NAME["add_relu"],
                                   suite.tool_path(tools, "fusion-translate"),
                                   path, repeats=1)
            add_relu = path if c["ok"] else None
        for part in (lambda: measure.host_cpp(suite.tool_path(tools, "fusion-run"),
                                              add_relu),
                     lambda: measure.host_python(add_relu, not args.no_compile_peers),
                     lambda: measure.host_frontend(args.modules or work, tools,
                                                   add_relu)):
            try:
                host.update(part())
            except Exception as e:  # noqa: BLE001 (host time is one figure of many)
                host[f"error {len(host)}"] = {"us": None, "note": str(e)}

    result = {
        "suite": "bench/run.py", "date": suite.now_string(), "device": device,
        "software": software, "copy_gbps": copy, "iters": args.iters,
        "input_sets": suite.INPUT_SETS,
        "shapes": [list(s) for s in args.shape_list],
        "cases": [c.name for c in args.case_list],
        "compile_peers": not args.no_compile_peers,
        "peers": {p.name: p.version for p in peers},
        "peers_missing": peers_missing,
        "command": " ".join([os.path.basename(sys.executable), "bench/run.py"]
                            + (argv if argv is not None else sys.argv[1:])),
        "rows": rows, "compile": compiles, "process_floor_ms": floor,
        "compile_timing_flag": timing, "host": host,
    }
    render(result, args)
    if work_holder is not None:
        work_holder.cleanup()
    code = suite.exit_code(result)
    if code:
        print("bench/run.py: FAIL: some Fusion results differ from torch eager "
              "or did not run (see the check column)")
    return code


if __name__ == "__main__":
    sys.exit(main())
