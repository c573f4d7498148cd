"""Compile time: Fusion beside Triton for the same kernels, in one run.

    python3 bench/compile_time.py                       # everything
    python3 bench/compile_time.py --cases softmax --repeats 3 --chains ""
    python3 bench/compile_time.py --triton-python /path/to/venv/bin/python3
    python3 bench/compile_time.py --json out/compile.json --update-docs docs/performance.md
    python3 bench/compile_time.py --from-json out/compile.json --update-docs docs/performance.md

For each case (softmax, layernorm, rmsnorm, add_relu: the suite's
definitions, bench/suite.py, and the same kernels in Triton,
bench/triton_cases.py) and each output (PTX; a module or kernel with cubin),
it times, paired in the same run:

- Fusion in a fresh `fusion-translate` process (what a command-line or
  ahead-of-time user pays; process start included, the compile cache off);
- Fusion in process through the compiler's C API (what the Python package
  pays): the first compile of a process and the warm ones after it, each
  from the definition's text with the cache off, then a cache hit (and,
  where a GPU and the runtime are there, a hit up to a loaded Executable:
  ready to launch);
- Triton in process (`triton.compile` of an ASTSource for sm_90a with a fresh
  cache folder per compile, which needs no GPU): the first compile of a
  process and the warm ones, and `import triton` on its own.

Every figure is CPU seconds (user + sys of the process and of the tools it
waits for, such as ptxas) and wall seconds, the median over --repeats. Then
the chains (utils/opgen.py chain: element-wise ops with an inner reduction
about every 15th, 100 and 500 ops), compiled by fresh fusion-translate
processes: wall, CPU, kernels and the largest PTX entry.

Exit status 1 when a Fusion compile fails; a missing Triton is reported, not
failed (--no-triton skips it).
"""

import argparse
import json
import os
import re
import resource
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)

import suite  # noqa: E402  (pure: no torch, no triton)

CASES = ["softmax", "layernorm", "rmsnorm", "add_relu"]
KINDS = ["ptx", "cubin"]
CHAINS = [100, 500]
DOCS_BEGIN = "<!-- compile-time:begin -->"
DOCS_END = "<!-- compile-time:end -->"


# --- CPU and wall of one piece of work ---------------------------------------------


def cpu_seconds():
    """User + sys of this process and of the children it has waited for."""
    s = resource.getrusage(resource.RUSAGE_SELF)
    c = resource.getrusage(resource.RUSAGE_CHILDREN)
    return s.ru_utime + s.ru_stime + c.ru_utime + c.ru_stime


def timed(fn):
    """(result, wall s, cpu s) of fn()."""
    c0, t0 = cpu_seconds(), time.perf_counter()
    out = fn()
    return out, time.perf_counter() - t0, cpu_seconds() - c0


def summarize(samples):
    """{"wall", "cpu"}: medians of [(wall, cpu)], or None for none."""
    if not samples:
        return None
    return {"wall": suite.median([w for w, _ in samples]),
            "cpu": suite.median([c for _, c in samples]), "n": len(samples)}


def ptx_entry_sizes(ptx):
    """Bytes of each `.entry` of a PTX text (up to the next entry or the end)."""
    starts = [m.start() for m in re.finditer(r"^\.(visible|weak)? *\.entry ", ptx, re.M)]
    if not starts:
        starts = [m.start() for m in re.finditer(r"\.entry ", ptx)]
    bounds = starts + [len(ptx)]
    return [bounds[i + 1] - bounds[i] for i in range(len(starts))]


# --- workers: each runs in a process of its own and prints one JSON object ---------


def worker_fusion(args):
    """Fusion in process, through python/fusion/_compiler.py."""
    if os.environ.get("FUSION_TEST_INSTALLED") != "1":
        sys.path.insert(0, os.path.join(ROOT, "python"))
    from fusion import _compiler
    source = open(args.source).read()
    out = {"side": "fusion"}
    _, out["load_s"], _ = timed(_compiler._load)
    kind = _compiler.OUTPUT_PTX if args.kind == "ptx" else _compiler.OUTPUT_MODULE

    def compile_once(use_cache):
        data, hit = _compiler.compile(source, kind=kind, use_cache=use_cache,
                                      emit_cubin=args.kind == "cubin")
        return data, hit

    samples = []
    for _ in range(args.repeats + 1):
        (data, _), wall, cpu = timed(lambda: compile_once(False))
        samples.append((wall, cpu))
    out["first"] = {"wall": samples[0][0], "cpu": samples[0][1]}
    out["warm"] = summarize(samples[1:])
    out["bytes"] = len(data)
    if args.kind == "ptx":
        out["entries"] = ptx_entry_sizes(data.decode())
    if args.kind == "cubin":
        # Note [Deferred kernels]: the module with the fallbacks deferred
        # (ready for aligned inputs), and with every kernel deferred plus the
        # build of the kernel the first launch tries first (what a first
        # launch on aligned inputs costs), cubins included.
        # The compiles run without the cache (use_cache=False); so do the
        # builds (the builder takes the cache the environment configures).
        os.environ["FUSION_CACHE"] = "0"

        def deferred(mode):
            data, _ = _compiler.compile(source, kind=kind, use_cache=False,
                                        pipeline_options=f"defer-kernels={mode}")
            return data

        for mode in ("fallbacks", "all"):
            runs = []
            for _ in range(args.repeats + 1):
                _, wall, cpu = timed(lambda: deferred(mode))
                runs.append((wall, cpu))
            out[f"deferred_{mode}"] = summarize(runs[1:])
        lazy = deferred("all")
        first = first_kernel(lazy)
        builds, totals = [], []
        for _ in range(args.repeats):
            _, wall, cpu = timed(lambda: _compiler.build_deferred_kernel(lazy, first))
            builds.append((wall, cpu))
            _, wall, cpu = timed(
                lambda: _compiler.build_deferred_kernel(deferred("all"), first))
            totals.append((wall, cpu))
        out["first_kernel"] = first
        out["first_build"] = summarize(builds)
        out["deferred_first"] = summarize(totals)
        with tempfile.TemporaryDirectory(prefix="fusion-ct-cache-") as cache:
            os.environ["FUSION_CACHE"] = "1"
            os.environ["FUSION_CACHE_DIR"] = cache
            compile_once(True)  # the miss that fills the entry
            hits, ready, hit_flags = [], [], []
            for _ in range(args.repeats):
                (data, hit), wall, cpu = timed(lambda: compile_once(True))
                hits.append((wall, cpu))
                hit_flags.append(hit)
            out["hit"] = summarize(hits)
            out["hit_flags"] = hit_flags
            try:
                from fusion import runtime
                for _ in range(args.repeats):
                    def hit_and_load():
                        d, _ = compile_once(True)
                        return runtime.Executable(d)
                    _, wall, cpu = timed(hit_and_load)
                    ready.append((wall, cpu))
                out["ready"] = summarize(ready)
            except Exception as e:  # no GPU, no driver: the hit alone
                out["ready_error"] = f"{type(e).__name__}: {e}"[:300]
    print(json.dumps(out))
    return 0


def first_kernel(module):
    """The kernel a module file's first launch tries first on the suite's
    shapes: the module writer lists kernels as it meets them, the first
    launch's first variant first, except the cluster rows variants
    (`_cv8_`, `_cv4_`, `_cv2_`, Note [Cluster rows]), listed before the
    plain ones but taken by 66 rows or fewer only."""
    from fusion import runtime
    names = [k["name"] for k in runtime.Executable(module).kernels()]
    return next((n for n in names if not re.search(r"_cv[0-9]+_", n)), names[0])


def worker_triton(args):
    """Triton in process: triton.compile for sm_90a, a fresh cache each time."""
    out = {"side": "triton"}
    # Triton 3.9 warns when this is unset; 1 is its default (FMA contraction).
    os.environ.setdefault("TRITON_DEFAULT_FP_FUSION", "1")
    t0 = time.perf_counter()
    c0 = cpu_seconds()
    import triton
    from triton.backends.compiler import GPUTarget
    from triton.compiler import ASTSource
    out["import"] = {"wall": time.perf_counter() - t0, "cpu": cpu_seconds() - c0}
    out["version"] = triton.__version__
    import triton_cases
    fn, signature, constexprs, warps = triton_cases.KERNELS[args.case]
    if args.kind == "ptx":
        # Stop after the PTX stage: the cubin stage (ptxas) returns nothing.
        # The hook is called without arguments for the cache key too.
        def no_cubin(*hook_args):
            if not hook_args:
                return "ptx-only", "ptx-only"
            hook_args[1]["cubin"] = lambda src, metadata: b""
        triton.knobs.runtime.add_stages_inspection_hook = no_cubin
    target = GPUTarget("cuda", 90, 32)
    samples, kernel = [], None
    root = tempfile.mkdtemp(prefix="triton-ct-")
    for i in range(args.repeats + 1):
        cache = os.path.join(root, str(i))
        os.makedirs(cache)
        triton.knobs.cache.dir = cache

        def compile_once():
            src = ASTSource(fn=fn, signature=dict(signature),
                            constexprs=dict(constexprs))
            return triton.compile(src, target=target,
                                  options={"num_warps": warps})
        kernel, wall, cpu = timed(compile_once)
        samples.append((wall, cpu))
    out["first"] = {"wall": samples[0][0], "cpu": samples[0][1]}
    out["warm"] = summarize(samples[1:])
    ptx = kernel.asm.get("ptx", "")
    out["ptx_bytes"] = len(ptx)
    out["bytes"] = len(kernel.asm.get("cubin", b"")) if args.kind == "cubin" else len(ptx)
    print(json.dumps(out))
    return 0


def run_worker(python, argv, env=None):
    """Runs `python compile_time.py --worker ...`; (json or None, error)."""
    cmd = [python, os.path.abspath(__file__)] + argv
    try:
        proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              universal_newlines=True, timeout=1800, env=env)
    except (OSError, subprocess.SubprocessError) as e:
        return None, str(e)
    lines = [l for l in proc.stdout.splitlines() if l.startswith("{")]
    if proc.returncode != 0 or not lines:
        return None, suite.first_error_line(proc.stderr or proc.stdout or
                                            f"exit code {proc.returncode}")
    return json.loads(lines[-1]), None


# --- fresh fusion-translate processes ----------------------------------------------


def translate_fresh(translate, source, kind, repeats, out_path, extra=()):
    """`repeats` fresh fusion-translate processes: ({"wall", "cpu"}, bytes,
    error). Each process's CPU is its own and its children's (ptxas)."""
    env = suite.tool_env()
    env["FUSION_CACHE"] = "0"
    flag = ["--fusion-to-ptx", "--no-cubin"] if kind == "ptx" else ["--fusion-to-module"]
    samples = []
    for _ in range(repeats):
        cmd = [translate, source] + flag + list(extra) + ["-o", out_path]
        proc, wall, cpu = timed(lambda: subprocess.run(
            cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            universal_newlines=True, env=env, timeout=3600))
        if proc.returncode != 0:
            return None, None, suite.first_error_line(proc.stderr or proc.stdout)
        samples.append((wall, cpu))
    return summarize(samples), os.path.getsize(out_path), None


def measure_case(name, args, work, log):
    case = suite.CASES_BY_NAME[name]
    source = case.definition_path()
    row = {"case": name, "definition": case.definition}
    for kind in KINDS:
        r = row[kind] = {}
        out = os.path.join(work, f"{name}.{kind}")
        r["fresh"], r["fresh_bytes"], err = translate_fresh(
            args.translate, source, kind, args.repeats, out)
        if err:
            r["error"] = err
            log(f"  {name} {kind}: fusion-translate failed: {err}")
            continue
        if kind == "ptx":
            with open(out) as f:
                r["entries"] = ptx_entry_sizes(f.read())
        else:
            # A fresh process writing the module with every kernel deferred.
            r["fresh_deferred"], _, err = translate_fresh(
                args.translate, source, kind, args.repeats, out + ".deferred",
                extra=["--defer-kernels=all"])
            if err:
                r["fresh_deferred_error"] = err
        wargv = ["--worker", "fusion", "--case", name, "--kind", kind,
                 "--source", source, "--repeats", str(args.repeats)]
        r["in_process"], err = run_worker(sys.executable, wargv)
        if err:
            r["in_process_error"] = err
        if args.triton_python:
            targv = ["--worker", "triton", "--case", name, "--kind", kind,
                     "--repeats", str(args.repeats)]
            r["triton"], err = run_worker(args.triton_python, targv)
            if err:
                r["triton_error"] = err
        log("  " + progress(name, kind, r))
    return row


def measure_chain(ops, args, work, log):
    path = os.path.join(work, f"chain{ops}.mlir")
    proc = subprocess.run([sys.executable, os.path.join(ROOT, "utils", "opgen.py"),
                           "chain", "--ops", str(ops), "--seed", str(args.seed),
                           "-o", path], stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, universal_newlines=True)
    row = {"ops": ops, "seed": args.seed}
    if proc.returncode != 0:
        row["error"] = suite.first_error_line(proc.stderr)
        return row
    with open(path) as f:
        row["fusion_ops"] = sum(1 for l in f if "= fusion." in l)
    ptx = os.path.join(work, f"chain{ops}.ptx")
    row["ptx"], row["ptx_bytes"], err = translate_fresh(
        args.translate, path, "ptx", args.chain_repeats, ptx)
    if err:
        row["error"] = err
        log(f"  chain {ops}: {err}")
        return row
    with open(ptx) as f:
        sizes = ptx_entry_sizes(f.read())
    row["entries"] = len(sizes)
    row["largest_entry"] = max(sizes) if sizes else 0
    row["cubin"], row["module_bytes"], err = translate_fresh(
        args.translate, path, "cubin", args.chain_repeats,
        os.path.join(work, f"chain{ops}.fusionmod"))
    if err:
        row["error"] = err
    # A compile from the cache would print no remarks: the cache is off.
    plan = subprocess.run([args.translate, path, "--fusion-to-ptx", "--no-cubin",
                           "--explain", "-o", os.devnull], stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, universal_newlines=True,
                          env=dict(suite.tool_env(), FUSION_CACHE="0"))
    # The schedule remarks name each kernel: "remark: chain100_k0: ...".
    row["kernels"] = len(set(re.findall(r"remark: (\w+_k\d+): ", plan.stdout))) or None
    log(f"  chain {ops}: {format_chain(row)}")
    return row


# --- report -------------------------------------------------------------------------


def _s(x):
    return "-" if x is None else f"{x:.3f}"


def _pair(m):
    return "-" if not m else f"{_s(m.get('wall'))} / {_s(m.get('cpu'))}"


def progress(name, kind, r):
    ip = r.get("in_process") or {}
    tr = r.get("triton") or {}
    return (f"{name} {kind}: fresh {_pair(r.get('fresh'))}, in process first "
            f"{_pair(ip.get('first'))} warm {_pair(ip.get('warm'))}; triton first "
            f"{_pair(tr.get('first'))} warm {_pair(tr.get('warm'))}")


def format_chain(row):
    if row.get("error"):
        return f"error: {row['error']}"
    return (f"{row['fusion_ops']} ops, {row.get('kernels') or '?'} kernels, "
            f"{row['entries']} entries (largest {row['largest_entry']:,} bytes of PTX); "
            f"to PTX {_pair(row.get('ptx'))} s, to module {_pair(row.get('cubin'))} s")


def format_report(result):
    out = []
    m = result.get("machine", {})
    out.append(f"Date: {result.get('date', '?')}  ")
    out.append(f"Machine: {m.get('cpus', '?')} CPUs ({m.get('cpu_model', '?')}), "
               f"Triton {result.get('triton_version') or 'not measured'}, "
               f"repeats {result.get('repeats')}  ")
    out.append("Seconds as wall / CPU (user + sys, the ptxas processes included), "
               "medians; \"first\" is the first compile of a process, \"warm\" the "
               "ones after it.")
    out.append("")
    out.append("| case | output | Fusion fresh process | Fusion first in process | "
               "Fusion warm | Triton first in process | Triton warm | "
               "warm CPU Fusion / Triton | PTX bytes Fusion / Triton |")
    out.append("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for row in result["cases"]:
        for kind in KINDS:
            r = row.get(kind, {})
            ip = r.get("in_process") or {}
            tr = r.get("triton") or {}
            ratio = "-"
            if ip.get("warm") and tr.get("warm") and tr["warm"]["cpu"] > 0:
                ratio = f"{ip['warm']['cpu'] / tr['warm']['cpu']:.2f}x"
            ptx = "-"
            if kind == "ptx":
                ptx = f"{r.get('fresh_bytes') or 0:,} / {tr.get('ptx_bytes') or 0:,}"
            label = "PTX" if kind == "ptx" else "module with cubin"
            err = r.get("error") or r.get("in_process_error")
            if err:
                out.append(f"| {row['case']} | {label} | error: {err} | | | | | | |")
                continue
            out.append(f"| {row['case']} | {label} | {_pair(r.get('fresh'))} | "
                       f"{_pair(ip.get('first'))} | {_pair(ip.get('warm'))} | "
                       f"{_pair(tr.get('first'))} | {_pair(tr.get('warm'))} | "
                       f"{ratio} | {ptx} |")
    imports = [(row.get("cubin") or {}).get("triton", {}).get("import")
               for row in result["cases"]]
    imports = [i for i in imports if i]
    if imports:
        out.append("")
        out.append(f"`import triton` alone: {_pair(summarize([(i['wall'], i['cpu']) for i in imports]))} s "
                   "(not in the Triton columns).")
    deferred = []
    for row in result["cases"]:
        ip = (row.get("cubin") or {}).get("in_process") or {}
        tr = (row.get("cubin") or {}).get("triton") or {}
        if not ip.get("deferred_all"):
            continue
        ratio = "-"
        if ip.get("deferred_first") and tr.get("warm") and tr["warm"]["cpu"] > 0:
            ratio = f"{ip['deferred_first']['cpu'] / tr['warm']['cpu']:.2f}x"
        deferred.append(f"| {row['case']} | {_pair((row.get('cubin') or {}).get('fresh_deferred'))} | "
                        f"{_pair(ip.get('warm'))} | "
                        f"{_pair(ip.get('deferred_fallbacks'))} | "
                        f"{_pair(ip.get('deferred_all'))} | "
                        f"{_pair(ip.get('first_build'))} (`{ip.get('first_kernel')}`) | "
                        f"{_pair(ip.get('deferred_first'))} | {_pair(tr.get('warm'))} | "
                        f"{ratio} |")
    if deferred:
        out.append("")
        out.append("Deferred kernels (docs/cache.md), module with cubin: a fresh "
                   "fusion-translate process with every kernel deferred; then warm in "
                   "process: every kernel built; the fallbacks deferred; every kernel deferred; "
                   "the build of the kernel the first launch tries first (what a first "
                   "launch on aligned inputs adds); the two together; Triton's warm "
                   "compile of its one kernel.")
        out.append("")
        out.append("| case | fresh process, all deferred | every kernel | fallbacks deferred | "
                   "all deferred | first kernel built | all deferred + first kernel | "
                   "Triton warm | CPU deferred + first / Triton |")
        out.append("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
        out.extend(deferred)
    hits = []
    for row in result["cases"]:
        ip = (row.get("cubin") or {}).get("in_process") or {}
        if ip.get("hit"):
            ready = ip.get("ready")
            missed = not all(ip.get("hit_flags", [True]))
            hits.append(f"{row['case']} {ip['hit']['wall'] * 1e3:.1f} ms"
                        + (f" (ready to launch {ready['wall'] * 1e3:.1f} ms)" if ready else "")
                        + (" (NOT all cache hits: the cache did not answer)" if missed else ""))
    if hits:
        out.append("")
        out.append("Compile cache hit in process (the definition's text to the module "
                   "bytes; ready to launch: then an Executable loaded from them, its "
                   "kernels loaded at their first launch): " + ", ".join(hits) + ".")
    if result.get("chains"):
        out.append("")
        out.append("| chain | fusion ops | kernels | PTX entries | largest entry (PTX bytes) | "
                   "to PTX wall / CPU s | to module wall / CPU s |")
        out.append("| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
        for row in result["chains"]:
            if row.get("error"):
                out.append(f"| {row['ops']} | error: {row['error']} | | | | | |")
                continue
            out.append(f"| {row['ops']} (seed {row['seed']}) | {row['fusion_ops']} | "
                       f"{row.get('kernels') or '?'} | {row['entries']} | "
                       f"{row['largest_entry']:,} | {_pair(row.get('ptx'))} | "
                       f"{_pair(row.get('cubin'))} |")
    return "\n".join(out) + "\n"


def machine():
    model = "?"
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    model = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    return {"cpus": os.cpu_count(), "cpu_model": model}


def docs_section(result):
    return ("\n## Compile time beside Triton (latest run)\n\n"
            "`python3 bench/compile_time.py` (see the top of the script).\n\n"
            + format_report(result) + "\n")


def update_docs(path, result):
    with open(path) as f:
        text = f.read()
    if DOCS_BEGIN not in text or DOCS_END not in text:
        raise SystemExit(f"compile_time: {path} has no {DOCS_BEGIN} ... {DOCS_END} markers")
    head, rest = text.split(DOCS_BEGIN, 1)
    _, tail = rest.split(DOCS_END, 1)
    with open(path, "w") as f:
        f.write(head + DOCS_BEGIN + docs_section(result) + DOCS_END + tail)


# --- command ------------------------------------------------------------------------


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--cases", default=",".join(CASES))
    p.add_argument("--chains", default=",".join(map(str, CHAINS)),
                   help="chain lengths in fusion ops (empty: none)")
    p.add_argument("--seed", type=int, default=1, help="the chains' seed")
    p.add_argument("--repeats", type=int, default=5)
    p.add_argument("--chain-repeats", type=int, default=1)
    p.add_argument("--tools", default=None)
    p.add_argument("--triton-python", default=None,
                   help="the Python that has Triton (default: this one, if it has it)")
    p.add_argument("--no-triton", action="store_true")
    p.add_argument("--json", default=None)
    p.add_argument("--update-docs", default=None, metavar="DOC")
    p.add_argument("--from-json", default=None)
    # worker mode (internal)
    p.add_argument("--worker", choices=["fusion", "triton"], help=argparse.SUPPRESS)
    p.add_argument("--case", help=argparse.SUPPRESS)
    p.add_argument("--kind", choices=KINDS, help=argparse.SUPPRESS)
    p.add_argument("--source", help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.repeats < 1 or args.chain_repeats < 1:
        p.error("--repeats and --chain-repeats must be at least 1")
    args.case_list = [c for c in args.cases.split(",") if c]
    for c in args.case_list:
        if c not in CASES:
            p.error(f"unknown case {c!r} (cases: {', '.join(CASES)})")
    try:
        args.chain_list = [int(c) for c in args.chains.split(",") if c]
    except ValueError:
        p.error(f"--chains takes comma-separated numbers, not {args.chains!r}")
    return args


def has_triton(python):
    try:
        return subprocess.run([python, "-c", "import triton"], stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL, timeout=300).returncode == 0
    except (OSError, subprocess.SubprocessError):
        return False


def main(argv=None):
    args = parse_args(argv)
    if args.worker:
        return (worker_fusion if args.worker == "fusion" else worker_triton)(args)
    if args.from_json:
        with open(args.from_json) as f:
            result = json.load(f)
    else:
        tools = suite.find_tools_dir(args.tools)
        args.translate = suite.tool_path(tools, "fusion-translate")
        if not args.translate:
            print("compile_time: fusion-translate not found (use --tools DIR)", file=sys.stderr)
            return 2
        if args.no_triton:
            args.triton_python = None
        elif not has_triton(args.triton_python or sys.executable):
            print(f"compile_time: no Triton in {args.triton_python or sys.executable}: "
                  "Fusion alone", file=sys.stderr)
            args.triton_python = None
        else:
            args.triton_python = args.triton_python or sys.executable
        result = {"date": suite.now_string(), "machine": machine(),
                  "repeats": args.repeats, "cases": [], "chains": []}
        with tempfile.TemporaryDirectory(prefix="fusion-ct-") as work:
            for name in args.case_list:
                result["cases"].append(measure_case(name, args, work, print))
            for ops in args.chain_list:
                result["chains"].append(measure_chain(ops, args, work, print))
        versions = [((row.get("cubin") or {}).get("triton") or {}).get("version")
                    for row in result["cases"]]
        result["triton_version"] = next((v for v in versions if v), None)
    report = format_report(result)
    print()
    print(report)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(result, f, indent=1)
    if args.update_docs:
        update_docs(args.update_docs, result)
    failed = any(row.get(k, {}).get("error") for row in result["cases"] for k in KINDS)
    failed = failed or any(row.get("error") for row in result.get("chains", []))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
