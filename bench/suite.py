"""The benchmark suite's pure parts: the public cases, their byte accounting
and tolerances, compiling them with fusion-translate, the rows, the table,
the JSON and the docs section. Nothing here imports torch or touches a GPU,
so all of it is tested on machines without one (test/bench/); the GPU side
is bench/measure.py, the command bench/run.py.

A case is a fusion definition (a .mlir file of the fusion dialect with
symbolic sizes) plus what the suite needs to judge it: the tensors it reads
and writes at a shape [M, N] (for the useful bytes), a tolerance against
torch eager, and a NumPy reference (used by the tests to check the
definitions through the reference interpreter).
"""

import datetime
import json
import math
import os
import shutil
import subprocess
import time

BENCH_DIR = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(BENCH_DIR)

# shared/BENCHMARKS.md: the public shapes [M, N].
SHAPES = [(32768, 4096), (8192, 16384), (262144, 1024)]
# Fresh random input sets the timed calls rotate among (>= 3: no set stays
# in the 50 MB L2 between two calls).
INPUT_SETS = 3

DTYPE_BYTES = {"f32": 4, "bf16": 2, "f16": 2, "f64": 8, "i64": 8,
               "f8e4m3": 1}

DOCS_BEGIN = "<!-- bench:begin -->"
DOCS_END = "<!-- bench:end -->"

# Row statuses. Only FAILURE_STATUSES make the suite exit non-zero: a case
# the compiler does not handle yet is reported, not failed.
OK = "ok"
MISMATCH = "MISMATCH"
ERROR = "ERROR"
NOT_COMPILED = "not compiled"
NOT_MATERIALIZED = "not materialized"
FAILURE_STATUSES = (MISMATCH, ERROR)


class Case:
    """One public case.

    inputs/outputs: lists of (name, shape function of (m, n), dtype); an
    integer input may add a fourth entry, a function of (m, n) giving the
    bound its values are drawn below (cross-entropy's targets: [0, V)).
    tolerance: (rtol, atol) of |fusion - eager| <= atol + rtol * |eager|,
    or a function of (m, n) returning it. shapes: the case's own [M, N]
    (BENCHMARKS.md gives cross_entropy its vocabulary shapes), used when a
    run takes the default shapes. useful: a function of (m, n) giving the
    useful bytes, for a case that needs only part of an input (slice_cat_mul
    reads half of each of its two matrices); by default every input is read
    once and every output written once. scalars: (name, dtype, value) of
    the scalar inputs after the tensors, the same in every input set
    (dropout's seed and offset). random: the results depend on random bits
    that the peers draw differently (dropout's mask), so measure.py checks
    the case's own property instead of comparing with eager.
    """

    def __init__(self, name, dtype, definition, inputs, outputs, tolerance,
                 summary, shapes=None, useful=None, scalars=(), random=False):
        self.name = name
        self.dtype = dtype
        self.definition = definition  # path relative to the repository root
        self.inputs = inputs
        self.outputs = outputs
        self._tolerance = tolerance
        self.summary = summary
        self.shapes = shapes
        self._useful = useful
        self.scalars = list(scalars)
        self.random = random

    @property
    def label(self):
        return f"{self.name} ({self.dtype})"

    def definition_path(self, root=ROOT):
        return os.path.join(root, self.definition)

    def input_shapes(self, m, n):
        return [(spec[0], tuple(spec[1](m, n)), spec[2]) for spec in self.inputs]

    def input_bounds(self, m, n):
        """Per input, the bound its integer values are drawn below, or None
        (floats: uniform in [-2, 2))."""
        return [spec[3](m, n) if len(spec) > 3 else None for spec in self.inputs]

    def shapes_for(self, shapes):
        """The shapes a run measures this case at: its own when the run
        takes the default public shapes."""
        return self.shapes if self.shapes and shapes is SHAPES else shapes

    def output_shapes(self, m, n):
        return [(name, tuple(shape(m, n)), dtype)
                for name, shape, dtype in self.outputs]

    def useful_bytes(self, m, n):
        """Each input read once, each output written once (or the case's
        own count)."""
        if self._useful:
            return self._useful(m, n)
        total = 0
        for _, shape, dtype in self.input_shapes(m, n) + self.output_shapes(m, n):
            total += math.prod(shape) * DTYPE_BYTES[dtype]
        return total

    def tolerance(self, m, n):
        t = self._tolerance
        return t(m, n) if callable(t) else t

    def fusion_run_inputs(self, m, n):
        """--input specs of fusion-run for this case at [m, n]."""
        return (["--input=" + "x".join(str(d) for d in shape)
                 for _, shape, _ in self.input_shapes(m, n)]
                + [f"--input={value}" for _, _, value in self.scalars])


def check_dropout(out, x, res, p, rtol, atol):
    """What dropout(x, p) + res guarantees, whatever the mask (arrays of the
    same shape, as floats): every element is res (dropped) or x / (1 - p) +
    res (kept, within rtol and atol), and the dropped fraction is p within 6
    standard deviations, counted over the elements whose two readings differ
    by more than the tolerance. Which elements those are depends on x and
    res only, never on the mask: counting over the elements where only the
    observed value fits one reading would leave out every dropped element of
    a small x but few of the kept ones (0.0990 instead of 0.1000 over 2^27
    elements on the H200). None if so, else a message."""
    import numpy as np

    out, x, res = (np.asarray(a, dtype=np.float64) for a in (out, x, res))
    kept_value = x / (1 - p) + res
    dropped = out == res
    kept = np.abs(out - kept_value) <= atol + rtol * np.abs(kept_value)
    bad = int((~(dropped | kept)).sum())
    if bad:
        return (f"{bad} of {out.size} elements are neither res nor "
                f"x / (1 - p) + res")
    plain = np.abs(kept_value - res) > atol + rtol * np.abs(kept_value)
    count = max(int(plain.sum()), 1)
    frac = float(dropped[plain].sum()) / count
    sigma = (p * (1 - p) / count) ** 0.5
    if abs(frac - p) > 6 * sigma:
        return f"dropped fraction {frac:.5f}, expected {p:.5f}"
    return None


def _mn(m, n):
    return (m, n)


def _nm(m, n):
    return (n, m)


def _n(m, n):
    return (n,)


def _m(m, n):
    return (m,)


def _rope_x(m, n):
    """RoPE's [tokens, heads, 128]: N = heads * 128."""
    return (m, max(1, n // 128), 128)


def _rope_table(m, n):
    return (m, 128)


# bf16 results: fusion and eager both compute in f32 and round once, so they
# may differ by one bf16 ulp (2^-8 relative, up to 2^-7 just above a power
# of two) where the f32 values straddle a rounding boundary; two ulps of room.
BF16_RTOL = 1.6e-2


def _sum_tolerance(reduced):
    """f32 sums of `reduced` values uniform in [-2, 2), accumulated in
    another order than torch's: the error grows about with sqrt(length)
    times the partial sums' size (also about sqrt(length))."""
    def tol(m, n):
        k = reduced(m, n)
        return (1e-5, 4e-7 * k)
    return tol


CASES = [
    Case("add_relu", "f32", "examples/add_relu.mlir",
         [("a", _mn, "f32"), ("b", _mn, "f32")], [("out", _mn, "f32")],
         (1e-6, 1e-6), "relu(a + b)"),
    Case("gelu_bias", "bf16", "examples/gelu_bias.mlir",
         [("x", _mn, "bf16"), ("bias", _n, "bf16")], [("out", _mn, "bf16")],
         # eager rounds x + bias to bf16 before the gelu, Fusion does not.
         (BF16_RTOL, 1e-2), "gelu_tanh(x + bias[N])"),
    Case("softmax", "bf16", "examples/normalization/softmax.mlir",
         [("x", _mn, "bf16")], [("out", _mn, "bf16")],
         (BF16_RTOL, 1e-6), "softmax over the last dim"),
    Case("layernorm", "bf16", "examples/normalization/layernorm.mlir",
         [("x", _mn, "bf16"), ("weight", _n, "bf16"), ("bias", _n, "bf16")],
         [("out", _mn, "bf16")], (BF16_RTOL, 1e-2),
         "layer_norm over the last dim, weight and bias [N], eps 1e-5"),
    Case("rmsnorm", "bf16", "bench/cases/rmsnorm.mlir",
         [("x", _mn, "bf16"), ("weight", _n, "bf16")], [("out", _mn, "bf16")],
         (BF16_RTOL, 1e-2), "x * rsqrt(mean(x^2) + 1e-6) * w[N]"),
    Case("rmsnorm_fp8", "bf16", "bench/cases/rmsnorm_fp8.mlir",
         [("x", _mn, "bf16"), ("weight", _n, "bf16")],
         [("out", _mn, "f8e4m3")],
         # Both compute in f32 and round once to e4m3fn, whose ulp is 2^-3
         # relative (2^-9 absolute among the subnormals): a last-bit
         # difference in f32 can move a value across a rounding midpoint.
         (0.126, 2.0 ** -9), "rmsnorm(x, w[N]) in f32, cast to f8E4M3FN"),
    Case("inner_sum", "f32", "examples/inner_sum.mlir",
         [("x", _mn, "f32")], [("out", _m, "f32")],
         _sum_tolerance(lambda m, n: n), "sum over the last dim"),
    Case("outer_sum", "f32", "bench/cases/outer_sum.mlir",
         [("x", _mn, "f32")], [("out", _n, "f32")],
         _sum_tolerance(lambda m, n: m), "sum over the first dim"),
    Case("transpose", "bf16", "bench/cases/transpose.mlir",
         [("x", _mn, "bf16")], [("out", _nm, "bf16")], (0.0, 0.0),
         "[M, N] -> [N, M] contiguous"),
    Case("rope", "bf16", "bench/cases/rope.mlir",
         [("x", _rope_x, "bf16"), ("cos", _rope_table, "bf16"),
          ("sin", _rope_table, "bf16")], [("out", _rope_x, "bf16")],
         # eager rounds both products to bf16 before the add (terms up to
         # 4: half an ulp is 2^-7 each); Fusion computes in f32.
         (BF16_RTOL, 4e-2),
         "x * cos + rotate_half(x) * sin on [M, N/128, 128], cos/sin [M, 128]"),
    Case("slice_cat_mul", "bf16", "bench/cases/slice_cat_mul.mlir",
         [("x", _mn, "bf16"), ("y", _mn, "bf16"), ("w", _n, "bf16")],
         [("out", _mn, "bf16")],
         # Both round the product of two bf16 values once.
         (BF16_RTOL, 1e-2),
         "cat(x[:, :N/2], y[:, N/2:], dim=1) * w[N]",
         # Half of x, half of y and w read, out written.
         useful=lambda m, n: 2 * (m * (n // 2) + m * (n - n // 2) + n + m * n)),
    Case("cross_entropy", "bf16", "bench/cases/cross_entropy.mlir",
         [("logits", _mn, "bf16"), ("target", _m, "i64", lambda m, n: n)],
         [("loss", _m, "bf16")],
         # Both compute in f32 and round the loss (about log V) to bf16 once.
         (BF16_RTOL, 1e-2),
         "per-row loss: -log_softmax(logits)[target], logits [M, V]",
         shapes=[(8192, 32000), (16384, 128256)]),
    Case("dropout_residual", "bf16", "bench/cases/dropout_residual.mlir",
         [("x", _mn, "bf16"), ("res", _mn, "bf16")], [("out", _mn, "bf16")],
         # A kept element: x / 0.9 + res in f32, rounded once to bf16 (eager
         # rounds x / 0.9 to bf16 first); a dropped one: res exactly.
         (BF16_RTOL, 1e-2),
         "dropout(x, p=0.1) + res, the mask from fusion.rand(seed, offset)",
         scalars=[("seed", "i64", 1234), ("offset", "i64", 0)], random=True),
]
CASES_BY_NAME = {c.name: c for c in CASES}


def select_cases(spec):
    """Cases named in a comma-separated list ("all" or empty: every case)."""
    if not spec or spec == "all":
        return list(CASES)
    chosen = []
    for name in spec.split(","):
        name = name.strip()
        if not name:
            continue
        if name not in CASES_BY_NAME:
            raise ValueError(f"unknown case '{name}' (cases: "
                             f"{', '.join(CASES_BY_NAME)})")
        chosen.append(CASES_BY_NAME[name])
    return chosen


def parse_shapes(spec):
    """"32768x4096,8192x16384" -> [(32768, 4096), (8192, 16384)]."""
    if not spec or spec == "all":
        return SHAPES  # the default: cases with shapes of their own use them
    shapes = []
    for item in spec.split(","):
        item = item.strip()
        if not item:
            continue
        parts = item.lower().split("x")
        if len(parts) != 2 or not all(p.isdigit() and int(p) > 0 for p in parts):
            raise ValueError(f"bad shape '{item}': expected MxN, as 8192x16384")
        shapes.append((int(parts[0]), int(parts[1])))
    return shapes


def shape_str(shape):
    return "x".join(str(d) for d in shape)


# --- tools and compiling -----------------------------------------------------------


def find_tools_dir(explicit=None):
    """The folder with fusion-translate (and fusion-run): --tools, then
    $FUSION_TOOLS_DIR, the GPU bundle's bin/, the repository's builds."""
    candidates = [explicit, os.environ.get("FUSION_TOOLS_DIR"),
                  os.path.join(ROOT, "bin"), os.path.join(ROOT, "build", "bin"),
                  os.path.join(ROOT, "build-c", "bin")]
    for d in candidates:
        if d and os.access(os.path.join(d, "fusion-translate"), os.X_OK):
            return d
    return explicit


def tool_path(tools_dir, name):
    if tools_dir:
        path = os.path.join(tools_dir, name)
        if os.access(path, os.X_OK):
            return path
    return shutil.which(name)


def tool_env():
    """fusion-translate runs ptxas for the cubin: put CUDA's bin on PATH."""
    env = dict(os.environ)
    cuda_bin = os.path.join(env.get("CUDA_HOME", "/usr/local/cuda"), "bin")
    if shutil.which("ptxas") is None and os.path.isdir(cuda_bin):
        env["PATH"] = cuda_bin + os.pathsep + env.get("PATH", "")
    return env


def first_error_line(text):
    """The first line of a tool's diagnostics that says what went wrong."""
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    chosen = next((line for line in lines if "error" in line.lower()),
                  lines[0] if lines else "no diagnostics")
    # "/long/path/x.mlir:3:8: error: msg" -> "x.mlir:3:8: error: msg"
    head, sep, rest = chosen.partition(": error: ")
    if sep and ".mlir:" in head:
        chosen = os.path.basename(head) + sep + rest
    return chosen


def timing_flag(translate):
    """A pass-timing flag of fusion-translate, if it offers one."""
    try:
        proc = subprocess.run([translate, "--help-list-hidden"],
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                              universal_newlines=True, timeout=60)
    except (OSError, subprocess.SubprocessError):
        return None
    for flag in ("--mlir-timing", "--fusion-timing", "--timing"):
        if flag + " " in proc.stdout or flag + "=" in proc.stdout:
            return flag
    return None


def compile_case(case, translate, out_path, repeats=3, root=ROOT, timing=None,
                 runner=subprocess.run):
    """Compiles one case to a module file (with cubin), in `repeats` fresh
    fusion-translate processes, each timed on the wall clock.

    Returns {"case", "ok", "error", "wall_ms" (list), "median_ms",
    "first_ms", "module", "module_bytes", "timing"}. Never raises for a
    definition the compiler rejects: that is ok False with the first line of
    its error.
    """
    result = {"case": case.name, "definition": case.definition, "ok": False,
              "error": None, "wall_ms": [], "median_ms": None,
              "first_ms": None, "module": None, "module_bytes": None,
              "timing": None}
    if not translate:
        result["error"] = "fusion-translate not found (use --tools DIR)"
        return result
    src = case.definition_path(root)
    if not os.path.isfile(src):
        result["error"] = f"no definition {case.definition}"
        return result
    env = tool_env()
    # Cold compiles: the compile cache would answer the repeats.
    env["FUSION_CACHE"] = "0"
    for i in range(max(1, repeats)):
        if os.path.exists(out_path):
            os.remove(out_path)
        cmd = [translate, src, "--fusion-to-module", "-o", out_path]
        t0 = time.perf_counter()
        try:
            proc = runner(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          universal_newlines=True, env=env, timeout=600)
        except (OSError, subprocess.SubprocessError) as e:
            result["error"] = f"cannot run fusion-translate: {e}"
            return result
        wall = (time.perf_counter() - t0) * 1e3
        if proc.returncode != 0 or not os.path.isfile(out_path):
            result["error"] = first_error_line(proc.stderr or proc.stdout or
                                               f"exit code {proc.returncode}")
            result["log"] = (proc.stderr or "")[-4000:]
            return result
        result["wall_ms"].append(wall)
    result["ok"] = True
    result["first_ms"] = result["wall_ms"][0]
    result["median_ms"] = median(result["wall_ms"])
    result["module"] = out_path
    result["module_bytes"] = os.path.getsize(out_path)
    if timing:
        cmd = [translate, src, "--fusion-to-module", "-o", out_path, timing]
        try:
            proc = runner(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          universal_newlines=True, env=env, timeout=600)
            result["timing"] = (proc.stderr or proc.stdout)[-8000:]
        except (OSError, subprocess.SubprocessError) as e:
            result["timing"] = f"cannot run with {timing}: {e}"
    return result


def process_floor_ms(translate, repeats=3, runner=subprocess.run):
    """Wall time of `fusion-translate --version`: what starting the process
    costs before any compiling."""
    if not translate:
        return None
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        try:
            runner([translate, "--version"], stdout=subprocess.PIPE,
                   stderr=subprocess.PIPE, timeout=60)
        except (OSError, subprocess.SubprocessError):
            return None
        times.append((time.perf_counter() - t0) * 1e3)
    return median(times)


# --- rows ----------------------------------------------------------------------------


def median(values):
    values = sorted(values)
    if not values:
        return None
    k = len(values) // 2
    return values[k] if len(values) % 2 else (values[k - 1] + values[k]) / 2


def fraction(nbytes, time_us, copy_gbps):
    """Useful bytes / time / copy bandwidth; None when not measured."""
    if not _finite(time_us) or time_us <= 0 or not copy_gbps:
        return None
    return nbytes / (time_us * 1e-6) / 1e9 / copy_gbps


def _finite(x):
    return isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x)


def make_row(case, shape, copy_gbps, fusion=None, eager=None, compiled=None,
             status=OK, detail=None, peers=None):
    """One table row. fusion/eager/compiled: {"us": time} or {"error": msg}
    (None: not run). status: OK, MISMATCH, ERROR, NOT_COMPILED or
    NOT_MATERIALIZED, detail the message that goes with it. peers: {name:
    {"us"} or {"error"}} of bench/peers.py's peers that offer the case."""
    m, n = shape
    nbytes = case.useful_bytes(m, n)
    row = {"case": case.name, "dtype": case.dtype, "shape": [m, n],
           "bytes": nbytes, "status": status, "detail": detail}
    for key, peer in (("fusion", fusion), ("eager", eager),
                      ("compile", compiled)):
        peer = peer or {}
        us = peer.get("us")
        row[key + "_us"] = us if _finite(us) else None
        row[key + "_fraction"] = fraction(nbytes, us, copy_gbps)
        if peer.get("error"):
            row[key + "_error"] = peer["error"]
        if peer.get("max_abs_err") is not None:
            row[key + "_max_abs_err"] = peer["max_abs_err"]
    if status in (NOT_COMPILED, NOT_MATERIALIZED):
        row["fusion_us"] = row["fusion_fraction"] = None
    f, c = row["fusion_us"], row["compile_us"]
    row["speedup_vs_compile"] = c / f if f and c and status == OK else None
    row["peers"] = {}
    for name, result in (peers or {}).items():
        us = result.get("us")
        entry = {"us": us if _finite(us) else None,
                 "fraction": fraction(nbytes, us, copy_gbps)}
        if result.get("error"):
            entry["error"] = result["error"]
        row["peers"][name] = entry
    # The fastest non-eager peer: torch.compile or one of bench/peers.py's.
    times = [(row["compile_us"], "torch.compile")] + [
        (p["us"], name) for name, p in row["peers"].items()]
    times = [(us, name) for us, name in times if _finite(us) and us > 0]
    fastest = min(times) if times else (None, None)
    row["fastest_peer"], row["fastest_peer_us"] = fastest[1], fastest[0]
    row["speedup_vs_fastest"] = (fastest[0] / f if f and fastest[0]
                                 and status == OK else None)
    return row


def _geomean(rows, key):
    """Geometric mean of the rows' finite positive `key`; (value or None,
    number of rows used)."""
    ratios = [r[key] for r in rows if _finite(r.get(key)) and r[key] > 0]
    if not ratios:
        return None, 0
    return math.exp(sum(math.log(x) for x in ratios) / len(ratios)), len(ratios)


def geomean_vs_compile(rows):
    """torch.compile time / Fusion time over the rows that have both."""
    return _geomean(rows, "speedup_vs_compile")


def geomean_vs_fastest(rows):
    """The fastest non-eager peer's time / Fusion time."""
    return _geomean(rows, "speedup_vs_fastest")


def peer_names(rows):
    """The bench/peers.py peers measured in any row, in first-seen order."""
    names = []
    for r in rows:
        for name in r.get("peers") or {}:
            if name not in names:
                names.append(name)
    return names


def format_peer_table(rows):
    """Fusion beside every peer, fractions of copy, and Fusion against the
    fastest non-eager peer of each row."""
    names = peer_names(rows)
    head = ["case", "shape", "Fusion", "eager", "torch.compile"] + names + [
        "fastest peer", "Fusion vs fastest"]
    lines = ["| " + " | ".join(head) + " |",
             "| --- | --- | " + " | ".join(["---:"] * (len(head) - 2)) + " |"]
    for r in rows:
        cells = [f"{r['case']} ({r['dtype']})", shape_str(r["shape"]),
                 _frac(r["fusion_fraction"]) if r["status"] == OK else r["status"],
                 _frac(r["eager_fraction"]), _frac(r["compile_fraction"])]
        for name in names:
            p = (r.get("peers") or {}).get(name)
            if p is None:
                cells.append("")
            elif p.get("us") is None and p.get("error"):
                cells.append(_cell("error: " + p["error"], 40))
            else:
                cells.append(_frac(p.get("fraction")))
        ratio = r.get("speedup_vs_fastest")
        cells.append(r.get("fastest_peer") or "-")
        cells.append(f"{ratio:.2f}x" if _finite(ratio) else "-")
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def failures(rows):
    return [r for r in rows if r["status"] in FAILURE_STATUSES]


# --- the table -----------------------------------------------------------------------


def _us(x):
    return f"{x:.1f}" if _finite(x) else "-"


def _frac(x):
    return f"{x:.3f}" if _finite(x) else "-"


def _cell(text, width=70):
    """A table cell: one line, no pipes, bounded length."""
    text = " ".join(str(text).split()).replace("|", "/")
    return text if len(text) <= width else text[:width - 3] + "..."


def format_table(rows):
    """The main table, Markdown, one row per case and shape."""
    lines = ["| case | shape | Fusion us | fraction | eager us | fraction | "
             "torch.compile us | fraction | vs torch.compile | check |",
             "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |"]
    for r in rows:
        label = f"{r['case']} ({r['dtype']})"
        status = r["status"]
        if status in (NOT_COMPILED, NOT_MATERIALIZED):
            fusion_cell = _cell(f"{status}: {r.get('detail') or ''}", 120)
            check = "-"
        else:
            fusion_cell = _us(r["fusion_us"])
            if status == OK:
                check = "ok"
            else:
                check = _cell(f"**{status}**: {r.get('detail') or ''}", 90)
        compile_cell = _us(r["compile_us"])
        if r.get("compile_error") and r["compile_us"] is None:
            compile_cell = _cell("error: " + r["compile_error"], 40)
        eager_cell = _us(r["eager_us"])
        if r.get("eager_error") and r["eager_us"] is None:
            eager_cell = _cell("error: " + r["eager_error"], 40)
        ratio = r.get("speedup_vs_compile")
        lines.append(
            f"| {label} | {shape_str(r['shape'])} | {fusion_cell} | "
            f"{_frac(r['fusion_fraction'])} | {eager_cell} | "
            f"{_frac(r['eager_fraction'])} | {compile_cell} | "
            f"{_frac(r['compile_fraction'])} | "
            f"{f'{ratio:.2f}x' if _finite(ratio) else '-'} | {check} |")
    return "\n".join(lines)


def format_compile_table(compiles, floor_ms=None):
    lines = ["| case | cold compile ms (median) | first process ms | "
             "module bytes | result |",
             "| --- | ---: | ---: | ---: | --- |"]
    for c in compiles:
        if c["ok"]:
            lines.append(f"| {c['case']} | {c['median_ms']:.0f} | "
                         f"{c['first_ms']:.0f} | {c['module_bytes']} | "
                         f"ok ({len(c['wall_ms'])} fresh processes) |")
        else:
            lines.append(f"| {c['case']} | - | - | - | "
                         f"{_cell('not compiled: ' + (c.get('error') or ''), 140)} |")
    if _finite(floor_ms):
        lines.append("")
        lines.append(f"Process start floor (`fusion-translate --version`): "
                     f"{floor_ms:.0f} ms, included in the times above.")
    return "\n".join(lines)


def flatten_host(result, prefix=""):
    """A dict of numbers (or nested dicts) as {name: {"us", "note"}}."""
    out = {}
    if not isinstance(result, dict):
        return {prefix or "result": {"us": None, "note": str(result)}}
    for key, value in result.items():
        name = f"{prefix}{key}"
        if isinstance(value, bool):
            out[name] = {"us": None, "note": str(value)}
        elif isinstance(value, (int, float)):
            out[name] = {"us": float(value), "note": ""}
        elif isinstance(value, dict) and "us" in value:
            out[name] = {"us": value.get("us"), "note": str(value.get("note", ""))}
        elif isinstance(value, dict):
            out.update(flatten_host(value, name + "."))
        else:
            out[name] = {"us": None, "note": str(value)}
    return out


def format_host(host):
    """Host time per call lines (None or "not available" allowed)."""
    if not host:
        return "Host time per call: not measured."
    out = ["| path | us per call | note |", "| --- | ---: | --- |"]
    for key, entry in host.items():
        if isinstance(entry, dict):
            value = entry.get("us")
            note = entry.get("note", "")
        else:
            value, note = entry, ""
        cell = f"{value:.2f}" if _finite(value) else "-"
        out.append(f"| {key} | {cell} | {_cell(note, 100)} |")
    return "\n".join(out)


def format_report(result):
    """Everything the suite prints, Markdown: header, main table, geometric
    mean, failures, compile times, host times."""
    rows = result.get("rows", [])
    geo, used = geomean_vs_compile(rows)
    copy = result.get("copy_gbps")
    lines = [f"Date: {result.get('date', '-')}  ",
             f"Machine: {result.get('device', '-')}"
             + (f", {result['software']}" if result.get("software") else "") + "  ",
             "Copy bandwidth (1 GiB device-to-device, read + write): "
             + (f"{copy:.0f} GB/s" if _finite(copy) else "-") + "  ",
             f"Timing: median of {result.get('iters', '-')} CUDA-event timed "
             f"calls after warm-up, rotating among {result.get('input_sets', INPUT_SETS)} "
             "fresh random input sets; every Fusion result checked against torch eager "
             "(dropout_residual, whose mask is Fusion's own draw, against what dropout "
             "guarantees: each element res or x / 0.9 + res, 10% dropped).",
             "", format_table(rows), ""]
    if geo is not None:
        lines.append(f"Geometric mean vs torch.compile: {geo:.2f}x "
                     f"(over {used} of {len(rows)} rows)")
    else:
        lines.append("Geometric mean vs torch.compile: - (no row has both)")
    if peer_names(rows):
        versions = result.get("peers") or {}
        listed = ", ".join(f"{n} {versions.get(n) or ''}".strip()
                           for n in peer_names(rows))
        fast, used_fast = geomean_vs_fastest(rows)
        lines += ["", f"Against every peer ({listed}; eager, torch.compile and "
                  "the peers in the same process, fractions of copy; a peer's "
                  "result is checked against eager before it is timed):", "",
                  format_peer_table(rows), ""]
        lines.append("Geometric mean vs the fastest non-eager peer: "
                     + (f"{fast:.2f}x (over {used_fast} of {len(rows)} rows)"
                        if fast is not None else "- (no row has both)"))
    for name, why in sorted((result.get("peers_missing") or {}).items()):
        lines.append(f"Peer not measured: {name} ({_cell(why, 100)})")
    bad = failures(rows)
    missing = [r for r in rows if r["status"] in (NOT_COMPILED, NOT_MATERIALIZED)]
    if missing:
        names = sorted({r["case"] for r in missing})
        lines.append(f"Not measured (compiler support pending): {', '.join(names)}")
    if bad:
        lines.append(f"FAILURES: {len(bad)} row(s): " + "; ".join(
            f"{r['case']} {shape_str(r['shape'])} {r['status']}" for r in bad))
    else:
        lines.append("Failures: none")
    if result.get("compile"):
        lines += ["", "Cold compile, definition to module file with cubin, one "
                  "fusion per fresh `fusion-translate` process (wall time):", "",
                  format_compile_table(result["compile"],
                                       result.get("process_floor_ms"))]
    if result.get("host"):
        lines += ["", "Host time per call (tiny fusion, back-to-back calls, "
                  "no sync):", "", format_host(result["host"])]
    else:
        lines += ["", format_host(None)]
    return "\n".join(lines)


# --- JSON and the docs ---------------------------------------------------------------


def now_string():
    return datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")


def _json_safe(x):
    if isinstance(x, float) and not math.isfinite(x):
        return None
    if isinstance(x, dict):
        return {k: _json_safe(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_json_safe(v) for v in x]
    return x


def write_json(result, path):
    """Writes the run as JSON (NaN and inf as null, so any parser reads it)."""
    geo, used = geomean_vs_compile(result.get("rows", []))
    data = dict(result)
    data["geomean_vs_compile"] = geo
    data["geomean_rows"] = used
    data["failures"] = len(failures(result.get("rows", [])))
    folder = os.path.dirname(os.path.abspath(path))
    os.makedirs(folder, exist_ok=True)
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        json.dump(_json_safe(data), f, indent=1, allow_nan=False)
        f.write("\n")
    os.replace(tmp, path)


def read_json(path):
    with open(path) as f:
        return json.load(f)


def merge_results(results):
    """Several runs of one session as one result (the suite split over
    calls to stay within a time limit): rows in CASES order, compile times
    and host times together, peers measured in any run. Header fields (date,
    device, copy bandwidth) are the first run's; each row keeps the
    fractions of its own run's copy bandwidth."""
    if len(results) == 1:
        return results[0]
    merged = dict(results[0])
    order = {c.name: k for k, c in enumerate(CASES)}
    rows = [r for res in results for r in res.get("rows", [])]
    merged["rows"] = sorted(rows, key=lambda r: order.get(r["case"], len(order)))
    merged["compile"] = [c for res in results for c in res.get("compile") or []]
    merged["host"] = {}
    merged["peers"] = {}
    for res in results:
        merged["host"].update(res.get("host") or {})
        merged["peers"].update(res.get("peers") or {})
    merged["peers_missing"] = {
        name: why for res in results
        for name, why in (res.get("peers_missing") or {}).items()
        if name not in merged["peers"]}
    merged["command"] = " + ".join(res.get("command", "-") for res in results)
    return merged


def docs_section(result):
    """The text between the docs markers."""
    return "\n".join([
        "## Latest suite run",
        "",
        "`python3 bench/run.py` (see the top of this page), on "
        f"{result.get('device', '-')}, {result.get('date', '-')}.",
        "",
        format_report(result),
    ])


def update_docs_text(text, section):
    """Replaces what lies between the markers with `section`; without the
    markers, appends a marked section at the end. The rest stays."""
    begin = text.find(DOCS_BEGIN)
    end = text.find(DOCS_END)
    block = f"{DOCS_BEGIN}\n{section.rstrip()}\n{DOCS_END}"
    if begin == -1 and end == -1:
        return text.rstrip("\n") + "\n\n" + block + "\n"
    if begin == -1 or end == -1 or end < begin:
        raise ValueError(f"the docs have a broken bench section: need "
                         f"{DOCS_BEGIN} before {DOCS_END}")
    return text[:begin] + block + text[end + len(DOCS_END):]


def update_docs(path, result):
    with open(path) as f:
        text = f.read()
    new = update_docs_text(text, docs_section(result))
    with open(path, "w") as f:
        f.write(new)


def exit_code(result):
    """0 when every measured Fusion result matched torch eager and ran."""
    return 1 if failures(result.get("rows", [])) else 0


# --- the run, independent of how things are measured -------------------------------


def run_suite(cases, shapes, measurer, modules, log=print):
    """Measures every case at every shape through `measurer` (bench/measure.py
    on the GPU; a stand-in in the tests), one row each.

    modules: {case name: module path, or None and the compile error}. A case
    without a module still gets its peers measured. An exception from the
    measurer for one row becomes an ERROR row; the suite goes on.
    """
    rows = []
    for case in cases:
        module, compile_error = modules.get(case.name, (None, "not compiled"))
        for shape in case.shapes_for(shapes):
            try:
                row = measurer.measure(case, shape, module, compile_error)
            except Exception as e:  # noqa: BLE001 (one row must not end the suite)
                row = make_row(case, shape, getattr(measurer, "copy_gbps", None),
                               status=ERROR,
                               detail=f"{type(e).__name__}: {e}")
            rows.append(row)
            log(progress_line(row))
    return rows


def progress_line(r):
    """One line per row while the suite runs."""
    label = f"{r['case']} ({r['dtype']})"
    if r["status"] in (NOT_COMPILED, NOT_MATERIALIZED):
        fusion = f"{r['status']}: {r.get('detail')}"
    else:
        fusion = f"fusion {_us(r['fusion_us'])} us ({_frac(r['fusion_fraction'])})"
    ratio = r.get("speedup_vs_compile")
    text = (f"{label:<18} {shape_str(r['shape']):<12} {fusion}  "
            f"eager {_us(r['eager_us'])} us ({_frac(r['eager_fraction'])})  "
            f"compile {_us(r['compile_us'])} us ({_frac(r['compile_fraction'])})"
            + (f"  {ratio:.2f}x" if _finite(ratio) else ""))
    if r["status"] in FAILURE_STATUSES:
        text += f"\n  !!! {r['status']}: {r.get('detail')}"
    return text
