"""The GPU side of the benchmark suite: inputs, torch eager and torch.compile
peers, CUDA-event timing, the copy ceiling, the check against eager and host
time per call. Imports torch; bench/suite.py holds everything that does not.
"""

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

import torch
import torch.nn.functional as F

import suite

WARMUP_MS = 25.0  # Note [Warm-up by time]

TORCH_DTYPES = {"f32": torch.float32, "bf16": torch.bfloat16,
                "f16": torch.float16, "f64": torch.float64, "i64": torch.int64,
                "f8e4m3": torch.float8_e4m3fn}


# --- the peers: what users write in PyTorch ----------------------------------------


def _add_relu(a, b):
    return torch.relu(a + b)


def _gelu_bias(x, bias):
    return F.gelu(x + bias, approximate="tanh")


def _softmax(x):
    return torch.softmax(x, dim=-1)


def _layernorm(x, w, b):
    return F.layer_norm(x, (x.shape[-1],), w, b, eps=1e-5)


def _rmsnorm_f32(x, w):
    # BENCHMARKS.md's definition, computed in f32 (the callers round once).
    xf = x.float()
    return xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + 1e-6) * w.float()


def _rmsnorm(x, w):
    return _rmsnorm_f32(x, w).to(x.dtype)


def _inner_sum(x):
    return x.sum(-1)


def _outer_sum(x):
    return x.sum(0)


def _transpose(x):
    return x.t().contiguous()


def _rope(x, cos, sin):
    x1, x2 = x[..., :64], x[..., 64:]
    rot = torch.cat((-x2, x1), dim=-1)
    return x * cos[:, None, :] + rot * sin[:, None, :]


def _slice_cat_mul(x, y, w):
    h = x.shape[1] // 2
    return torch.cat((x[:, :h], y[:, h:]), dim=1) * w


def _rmsnorm_fp8(x, w):
    return _rmsnorm_f32(x, w).to(torch.float8_e4m3fn)


def _cross_entropy(logits, target):
    return F.cross_entropy(logits, target, reduction="none")


DROPOUT_P = 0.1


def _dropout_residual(x, res, seed, offset):
    # torch draws its own mask (seed and offset are Fusion's).
    return F.dropout(x, p=DROPOUT_P, training=True) + res


def check_dropout(outs, inputs, rtol, atol):
    """suite.check_dropout on the host copies of the result and the inputs."""
    (out,) = outs
    host = [t.float().cpu().numpy() for t in (out, inputs[0], inputs[1])]
    return suite.check_dropout(*host, DROPOUT_P, rtol, atol)


CHECKS = {"dropout_residual": check_dropout}


EAGER = {"add_relu": _add_relu, "gelu_bias": _gelu_bias, "softmax": _softmax,
         "layernorm": _layernorm, "rmsnorm": _rmsnorm,
         "rmsnorm_fp8": _rmsnorm_fp8, "inner_sum": _inner_sum,
         "outer_sum": _outer_sum, "transpose": _transpose,
         "rope": _rope, "slice_cat_mul": _slice_cat_mul,
         "cross_entropy": _cross_entropy,
         "dropout_residual": _dropout_residual}


def make_inputs(case, m, n):
    """A fresh random input set: floats uniform in [-2, 2), rounded to the
    dtype (never all zeros); integer inputs uniform below their bound."""
    out = []
    for (_, shape, dt), high in zip(case.input_shapes(m, n), case.input_bounds(m, n)):
        if high is not None:
            out.append(torch.randint(0, high, shape, dtype=TORCH_DTYPES[dt], device="cuda"))
        else:
            out.append(torch.empty(shape, device="cuda").uniform_(-2, 2).to(TORCH_DTYPES[dt]))
    out.extend(value for _, _, value in case.scalars)
    return tuple(out)


def empty_outputs(case, m, n):
    """Contiguous outputs of the case's shapes (the transpose must be
    written contiguously, not returned as a view)."""
    return [torch.empty(shape, dtype=TORCH_DTYPES[dt], device="cuda")
            for _, shape, dt in case.output_shapes(m, n)]


# --- timing ----------------------------------------------------------------------


def median_time_us(call, num_sets, iters, warmup=5, warmup_ms=WARMUP_MS):
    """Median of per-call CUDA-event times; call i uses input set i % num_sets.

    Note [Warm-up by time]: before timing, at least `warmup` calls and at
    least `warmup_ms` of wall time of calls (as triton.testing.do_bench
    warms up by time). The suite measures each row right after the GPU sat
    idle while the host worked (torch.compile compiling the previous row's
    peer), and Fusion, the first path of each row, read up to 10% below
    fusion-run --bench on the same module with 5 warm-up calls (under 1 ms
    of a 130 us kernel); see docs/performance.md for what was measured."""
    i = 0
    start = time.perf_counter()
    while i < warmup or (time.perf_counter() - start) * 1e3 < warmup_ms:
        call(i % num_sets)
        i += 1
        if i >= warmup and i % 8 == 0:
            torch.cuda.synchronize()  # the clock above then counts GPU time
    torch.cuda.synchronize()
    events = []
    for i in range(iters):
        start = torch.cuda.Event(enable_timing=True)
        end = torch.cuda.Event(enable_timing=True)
        start.record()
        call(i % num_sets)
        end.record()
        events.append((start, end))
    torch.cuda.synchronize()
    return statistics.median(s.elapsed_time(e) * 1000.0 for s, e in events)


def copy_bandwidth_gbps(iters=20):
    """Device-to-device copy of 1 GiB; bytes = read + write."""
    n = 1 << 30
    src = torch.empty(n, dtype=torch.uint8, device="cuda").random_(0, 255)
    dst = torch.empty_like(src)
    t = median_time_us(lambda i: dst.copy_(src), 1, iters)
    return 2 * n / (t * 1e-6) / 1e9


# --- the check ----------------------------------------------------------------------


def compare(got, ref, rtol, atol):
    """None if |got - ref| <= atol + rtol |ref| everywhere (NaN never
    passes), else a message with the count and the worst element."""
    if tuple(got.shape) != tuple(ref.shape):
        return f"shape {tuple(got.shape)}, expected {tuple(ref.shape)}"
    g = got.float()
    r = ref.float()
    diff = (g - r).abs()
    ok = diff <= atol + rtol * r.abs()
    bad = int((~ok).sum().item())
    if bad == 0:
        return None
    worst = torch.where(ok, torch.zeros_like(diff), torch.nan_to_num(diff, nan=float("inf")))
    flat = int(worst.flatten().argmax().item())
    idx = tuple(int(i) for i in torch.unravel_index(torch.tensor(flat), got.shape))
    return (f"{bad} of {got.numel()} elements outside atol {atol:g} + rtol {rtol:g}; "
            f"worst at {list(idx)}: got {g[idx].item():.6g}, "
            f"expected {r[idx].item():.6g}")


def check_outputs(outs, ref, rtol, atol):
    refs = ref if isinstance(ref, (tuple, list)) else (ref,)
    if len(refs) != len(outs):
        return f"{len(outs)} outputs, eager gives {len(refs)}"
    for k, (o, r) in enumerate(zip(outs, refs)):
        msg = compare(o, r, rtol, atol)
        if msg:
            return f"out{k}: {msg}"
    return None


def _poison(outs):
    for o in outs:
        if o.is_floating_point():
            o.fill_(float("nan"))
        else:
            o.fill_(-1)


def _first_line(e):
    text = str(e).strip().splitlines()
    return text[0] if text else type(e).__name__


# --- one row ------------------------------------------------------------------------


class TorchMeasurer:
    """Measures one case at one shape: Fusion, eager, torch.compile, and
    the peers of bench/peers.py that offer the case."""

    def __init__(self, copy_gbps, iters=30, compile_peers=True, log=print,
                 peers=()):
        self.copy_gbps = copy_gbps
        self.iters = iters
        self.compile_peers = compile_peers
        self.peers = list(peers)
        self.log = log
        self._executables = {}
        self._compiled = {}

    def _executable(self, module):
        if module not in self._executables:
            from fusion import Executable
            self._executables[module] = Executable(module)
        return self._executables[module]

    def measure(self, case, shape, module, compile_error):
        m, n = shape
        eager = EAGER[case.name]
        rtol, atol = case.tolerance(m, n)
        sets = [make_inputs(case, m, n) for _ in range(suite.INPUT_SETS)]
        status, detail = suite.OK, None
        fusion = eager_r = compiled_r = None
        others = {}
        try:
            fusion, status, detail = self._fusion(case, m, n, module,
                                                  compile_error, sets, eager,
                                                  rtol, atol)
            eager_r = self._peer(eager, sets)
            if self.compile_peers:
                if case.name not in self._compiled:
                    self._compiled[case.name] = torch.compile(eager, dynamic=False)
                compiled_r = self._peer(self._compiled[case.name], sets)
            for peer in self.peers:
                if peer.offers(case.name):
                    others[peer.name] = self._checked_peer(
                        peer.cases[case.name], sets, eager, rtol, atol)
        finally:
            del sets
            torch.cuda.empty_cache()
        return suite.make_row(case, shape, self.copy_gbps, fusion=fusion,
                              eager=eager_r, compiled=compiled_r,
                              status=status, detail=detail, peers=others)

    def _checked_peer(self, entry, sets, eager, rtol, atol):
        """A peer of bench/peers.py: its arguments prepared outside the
        timed calls, its result on the first set checked against eager."""
        prepare, call = entry
        try:
            args = [prepare(*s) for s in sets]
            mismatch = check_outputs([call(*args[0])], eager(*sets[0]), rtol, atol)
            torch.cuda.synchronize()
        except Exception as e:  # noqa: BLE001 (a peer failing is reported)
            torch.cuda.synchronize()
            return {"error": _first_line(e)}
        if mismatch:
            return {"error": "mismatch: " + mismatch}
        return self._peer(call, args)

    def _peer(self, fn, sets):
        try:
            return {"us": median_time_us(lambda i: fn(*sets[i]), len(sets),
                                         self.iters)}
        except Exception as e:  # noqa: BLE001 (a peer failing is reported)
            torch.cuda.synchronize()
            return {"error": _first_line(e)}

    def _fusion(self, case, m, n, module, compile_error, sets, eager, rtol, atol):
        if module is None:
            return None, suite.NOT_COMPILED, compile_error
        try:
            exe = self._executable(module)
            outs = [empty_outputs(case, m, n) for _ in sets]
            _poison(outs[0])
            exe.run(sets[0], outs[0])
            torch.cuda.synchronize()
        except Exception as e:  # noqa: BLE001
            msg = _first_line(e)
            if "view of" in msg:
                # The fusion compiled to a view of its input: no kernel writes
                # the contiguous result the case asks for.
                return None, suite.NOT_MATERIALIZED, msg
            return {"error": msg}, suite.ERROR, msg
        def check(k):
            if case.random:
                return CHECKS[case.name](outs[k], sets[k], rtol, atol)
            return check_outputs(outs[k], eager(*sets[k]), rtol, atol)

        mismatch = check(0)
        try:
            us = median_time_us(lambda i: exe.run(sets[i], outs[i]), len(sets),
                                self.iters)
        except Exception as e:  # noqa: BLE001
            msg = _first_line(e)
            return {"error": msg}, suite.ERROR, msg
        if mismatch is None and len(sets) > 1:
            # The outputs of the timed calls, too (a race shows here).
            later = check(1)
            if later:
                mismatch = "after the timed calls: " + later
        if mismatch:
            return {"us": us}, suite.MISMATCH, mismatch
        return {"us": us}, suite.OK, None


# --- host time per call ------------------------------------------------------------


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


def host_cpp(fusion_run, module):
    """fusion-run --bench on a tiny add_relu: the C++ runtime's host time per
    launch beside a raw cuLaunchKernelEx (docs/fusion-run.md)."""
    if not fusion_run:
        return {"C++ runtime (fusion-run)": {"us": None, "note": "fusion-run not found"}}
    if not module:
        return {"C++ runtime (fusion-run)": {"us": None, "note": "add_relu did not compile"}}
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "run.json")
        cmd = [fusion_run, module, "--input=8x128", "--input=8x128", "--bench",
               "--iters=20", "--copy-mib=256", f"--json={out}"]
        proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                              universal_newlines=True, env=suite.tool_env())
        if proc.returncode != 0 or not os.path.isfile(out):
            note = suite.first_error_line(proc.stdout or f"exit {proc.returncode}")
            return {"C++ runtime (fusion-run)": {"us": None, "note": note}}
        with open(out) as f:
            data = json.load(f)
    host, raw = data.get("host_us"), data.get("raw_launch_us")
    over = (f", {host - raw:+.2f} us over the raw launch"
            if isinstance(host, (int, float)) and isinstance(raw, (int, float)) else "")
    return {
        "C++ runtime (fusion-run)": {
            "us": host, "note": f"add_relu on {data.get('host_shapes', 'small')} "
                                f"inputs, Executable::run{over}"},
        "raw cuLaunchKernelEx": {"us": raw, "note": "empty kernel, same process (the floor)"},
    }


def host_python(module, compile_peers=True):
    """From Python: the ctypes Executable on a 1x1024 add_relu, beside torch
    eager and torch.compile of the same."""
    a = torch.randn(1, 1024, device="cuda")
    b = torch.randn(1, 1024, device="cuda")
    out = {}
    if module:
        try:
            from fusion import Executable
            exe = Executable(module)
            o = exe.empty_outputs((a, b))
            out["Python ctypes Executable.run"] = {
                "us": host_time_us(lambda x, y: exe.run((x, y), o), (a, b)),
                "note": "1x1024 add_relu through the C API"}
        except Exception as e:  # noqa: BLE001
            out["Python ctypes Executable.run"] = {"us": None, "note": _first_line(e)}
    out["torch eager"] = {"us": host_time_us(_add_relu, (a, b)),
                          "note": "1x1024 relu(a + b), two ops"}
    if compile_peers:
        small = torch.compile(_add_relu, dynamic=False)
        out["torch.compile"] = {"us": host_time_us(small, (a, b)),
                                "note": "1x1024 relu(a + b)"}
    return out


def host_frontend(modules_dir, tools_dir, add_relu_module):
    """bench/host_overhead.py's measure(), when that module exists."""
    here = os.path.dirname(os.path.abspath(__file__))
    if not os.path.isfile(os.path.join(here, "host_overhead.py")):
        return {"Python API (bench/host_overhead.py)": {"us": None, "note": "not available"}}
    try:
        import inspect
        import host_overhead
        offered = {"modules": modules_dir, "modules_dir": modules_dir,
                   "tools": tools_dir, "tools_dir": tools_dir,
                   "module": add_relu_module}
        params = inspect.signature(host_overhead.measure).parameters
        kwargs = {k: v for k, v in offered.items() if k in params}
        result = host_overhead.measure(**kwargs)
    except Exception as e:  # noqa: BLE001
        return {"Python API (bench/host_overhead.py)": {
            "us": None, "note": "not available: " + _first_line(e)}}
    return {f"host_overhead: {k}": v for k, v in suite.flatten_host(result).items()}


def device_description():
    props = torch.cuda.get_device_properties(0)
    name = torch.cuda.get_device_name()
    software = (f"{props.multi_processor_count} SMs, CUDA {torch.version.cuda}, "
                f"PyTorch {torch.__version__}")
    try:
        import triton
        software += f", Triton {triton.__version__}"
    except Exception:  # noqa: BLE001
        pass
    try:
        drv = subprocess.run(["nvidia-smi", "--query-gpu=driver_version",
                              "--format=csv,noheader"], stdout=subprocess.PIPE,
                             stderr=subprocess.DEVNULL, universal_newlines=True,
                             timeout=30).stdout.strip().splitlines()
        if drv:
            software += f", driver {drv[0]}"
    except Exception:  # noqa: BLE001
        pass
    return name, software


def cuda_available():
    return torch.cuda.is_available()


def seed(value):
    torch.manual_seed(value)


if __name__ == "__main__":
    sys.exit("bench/measure.py is a library; run bench/run.py")
