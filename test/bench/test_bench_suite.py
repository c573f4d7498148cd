"""Tests of the benchmark suite's parts that need no GPU: the cases (their
definitions through fusion-opt and the reference interpreter, their bytes and
tolerances), compiling, rows, the table, the JSON, the docs section, the
command line, and that one failing case does not end the suite."""
import json
import math
import os
import stat
import subprocess
import sys

import numpy as np
import pytest

import suite
import run
import pointwise_bench

ROOT = suite.ROOT
COPY = 4000.0  # GB/s


def case(name):
    return suite.CASES_BY_NAME[name]


# --- cases -------------------------------------------------------------------------


def test_every_public_case_is_there_once():
    names = [c.name for c in suite.CASES]
    assert names == ["add_relu", "gelu_bias", "softmax", "layernorm", "rmsnorm",
                     "rmsnorm_fp8", "inner_sum", "outer_sum", "transpose", "rope", "slice_cat_mul",
                     "cross_entropy", "dropout_residual"]
    assert suite.SHAPES == [(32768, 4096), (8192, 16384), (262144, 1024)]
    assert suite.INPUT_SETS >= 3


@pytest.mark.parametrize("name,expected", [
    # each input read once, each output written once
    ("add_relu", 3 * 8 * 16 * 4),
    ("gelu_bias", 2 * 8 * 16 * 2 + 16 * 2),
    ("softmax", 2 * 8 * 16 * 2),
    ("layernorm", 2 * 8 * 16 * 2 + 2 * 16 * 2),
    ("rmsnorm", 2 * 8 * 16 * 2 + 16 * 2),
    # bf16 x and w read, one byte per element written
    ("rmsnorm_fp8", 8 * 16 * 2 + 16 * 2 + 8 * 16),
    ("inner_sum", 8 * 16 * 4 + 8 * 4),
    ("outer_sum", 8 * 16 * 4 + 16 * 4),
    ("transpose", 2 * 8 * 16 * 2),
    ("cross_entropy", 8 * 16 * 2 + 8 * 8 + 8 * 2),
    # x and out [8, 1, 128], cos and sin [8, 128]
    ("rope", 4 * 8 * 128 * 2),
    # half of x and half of y [8, 16] read, w [16], out [8, 16]
    ("slice_cat_mul", 2 * 8 * 8 * 2 + 16 * 2 + 8 * 16 * 2),
    # x and res read, out written; the seed and offset are scalars
    ("dropout_residual", 3 * 8 * 16 * 2),
])
def test_useful_bytes(name, expected):
    assert case(name).useful_bytes(8, 16) == expected


def test_bytes_at_a_public_shape():
    # 1 GiB per f32 matrix at 262144x1024.
    assert case("add_relu").useful_bytes(262144, 1024) == 3 << 30
    assert case("outer_sum").useful_bytes(262144, 1024) == (1 << 30) + 4096


def test_cross_entropy_has_its_own_shapes_and_integer_targets():
    ce = case("cross_entropy")
    assert ce.shapes_for(suite.SHAPES) == [(8192, 32000), (16384, 128256)]
    assert ce.shapes_for([(8, 16)]) == [(8, 16)]  # explicit shapes win
    assert case("softmax").shapes_for(suite.SHAPES) == suite.SHAPES
    assert ce.input_bounds(8, 16) == [None, 16]   # targets in [0, V)
    assert ce.input_shapes(8, 16) == [("logits", (8, 16), "bf16"), ("target", (8,), "i64")]


def test_transpose_output_is_n_by_m():
    assert case("transpose").output_shapes(3, 5) == [("out", (5, 3), "bf16")]
    assert case("outer_sum").output_shapes(3, 5) == [("out", (5,), "f32")]
    assert case("inner_sum").output_shapes(3, 5) == [("out", (3,), "f32")]


def test_tolerances():
    for c in suite.CASES:
        rtol, atol = c.tolerance(8192, 16384)
        assert rtol >= 0 and atol >= 0
    assert case("add_relu").tolerance(8, 8) == (1e-6, 1e-6)
    assert case("transpose").tolerance(8, 8) == (0.0, 0.0)  # a copy is exact
    # Sum tolerances grow with the reduced length, not with the other dim.
    assert case("outer_sum").tolerance(262144, 1024)[1] > case("outer_sum").tolerance(1024, 262144)[1]
    assert case("inner_sum").tolerance(1024, 16384)[1] > case("inner_sum").tolerance(16384, 1024)[1]
    for name in ("gelu_bias", "softmax", "layernorm", "rmsnorm"):
        assert case(name).tolerance(8, 8)[0] >= 2 ** -7  # at least one bf16 ulp


def test_fusion_run_inputs():
    assert case("gelu_bias").fusion_run_inputs(8, 16) == ["--input=8x16", "--input=16"]
    # Scalars after the tensors, the same value in every run.
    assert case("dropout_residual").fusion_run_inputs(8, 16) == [
        "--input=8x16", "--input=8x16", "--input=1234", "--input=0"]


def _dropout_arrays(dropped, size=20000, seed=0):
    """dropout(x, p=0.1) + res with a mask that drops `dropped` of it."""
    rng = np.random.default_rng(seed)
    x = rng.uniform(-2, 2, size)
    res = rng.uniform(-2, 2, size)
    keep = rng.uniform(0, 1, size) >= dropped
    return np.where(keep, x / 0.9 + res, res), x, res


def test_check_dropout_accepts_dropout_and_rejects_the_rest():
    out, x, res = _dropout_arrays(0.1)
    assert suite.check_dropout(out, x, res, 0.1, 1.6e-2, 1e-2) is None
    # An element that is neither res nor x / 0.9 + res.
    wrong = out.copy()
    wrong[7] = 2 * x[7] + res[7] + 1
    assert "1 of 20000 elements are neither" in suite.check_dropout(
        wrong, x, res, 0.1, 1.6e-2, 1e-2)
    # Nothing dropped, or half dropped: the wrong fraction.
    assert "dropped fraction 0.00000" in suite.check_dropout(
        x / 0.9 + res, x, res, 0.1, 1.6e-2, 1e-2)
    half, x, res = _dropout_arrays(0.5)
    assert "dropped fraction 0.5" in suite.check_dropout(
        half, x, res, 0.1, 1.6e-2, 1e-2)


def test_check_dropout_counts_without_bias():
    # Many elements with a small x: there both readings fit a dropped
    # element, so counting only where the observed value fits one reading
    # would leave out dropped elements but not kept ones (0.0985 here,
    # 6 sigma is 0.0013); the count must not depend on the mask.
    rng = np.random.default_rng(1)
    size = 2_000_000
    x = rng.normal(0, 1, size)
    res = rng.normal(0, 1, size)
    keep = rng.uniform(0, 1, size) >= 0.1
    out = np.where(keep, x / 0.9 + res, res)
    assert suite.check_dropout(out, x, res, 0.1, 1.6e-2, 1e-2) is None


def test_select_cases_and_shapes():
    assert suite.select_cases("all") == suite.CASES
    assert [c.name for c in suite.select_cases("softmax,add_relu")] == ["softmax", "add_relu"]
    with pytest.raises(ValueError, match="unknown case 'nope'"):
        suite.select_cases("add_relu,nope")
    assert suite.parse_shapes("all") == suite.SHAPES
    assert suite.parse_shapes("8x16, 1000x37") == [(8, 16), (1000, 37)]
    for bad in ("8x", "8x16x2", "axb", "0x4"):
        with pytest.raises(ValueError):
            suite.parse_shapes(bad)


@pytest.mark.parametrize("c", suite.CASES, ids=lambda c: c.name)
def test_definition_verifies(c, tool):
    path = c.definition_path()
    assert os.path.isfile(path), path
    text = open(path).read()
    assert f"fusion.fusion @{c.name}(" in text
    assert "?x?x" in text, "the definitions have symbolic sizes"
    proc = subprocess.run([tool("fusion-opt"), path], stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, universal_newlines=True)
    assert proc.returncode == 0, proc.stderr


# --- the definitions compute what the eager peers compute --------------------------


def _gelu_tanh(x):
    return 0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x ** 3)))


def _softmax(x):
    e = np.exp(x - x.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


def _layernorm(x, w, b):
    mu = x.mean(-1, keepdims=True)
    var = ((x - mu) ** 2).mean(-1, keepdims=True)
    return (x - mu) / np.sqrt(var + 1e-5) * w + b


NUMPY = {
    "add_relu": lambda a, b: np.maximum(a + b, 0),
    "gelu_bias": lambda x, b: _gelu_tanh(x + b),
    "softmax": _softmax,
    "layernorm": _layernorm,
    "rmsnorm": lambda x, w: x / np.sqrt((x * x).mean(-1, keepdims=True) + 1e-6) * w,
    "rmsnorm_fp8": lambda x, w: NUMPY["rmsnorm"](x, w),
    "inner_sum": lambda x: x.sum(-1),
    "outer_sum": lambda x: x.sum(0),
    "transpose": lambda x: x.T,
    "rope": lambda x, c, s: x * c[:, None, :] + np.concatenate(
        (-x[..., 64:], x[..., :64]), axis=-1) * s[:, None, :],
    "slice_cat_mul": lambda x, y, w: np.concatenate(
        (x[:, :x.shape[1] // 2], y[:, x.shape[1] // 2:]), axis=1) * w,
    "cross_entropy": lambda x, t: -np.log(_softmax(x))[np.arange(x.shape[0]), t.astype(np.int64)],
    # The mask is fusion.rand's: checked by what dropout guarantees (below).
    "dropout_residual": None,
}


def _values(shape, salt):
    """Values exact in bf16 (k/16, |k| <= 32), never all zeros."""
    size = int(np.prod(shape))
    k = (np.arange(size) * 7 + salt * 13) % 65 - 32
    k[k == 0] = 5
    return (k / 16.0).reshape(shape)


def _e4m3fn(bits):
    """f8E4M3FN bytes -> float64 (bias 7; exponent 0 subnormal; S.1111.111
    NaN, no inf)."""
    bits = bits.astype(np.int64)
    sign = np.where(bits & 0x80, -1.0, 1.0)
    exp, mant = (bits >> 3) & 0xF, bits & 0x7
    mag = np.where(exp == 0, mant * 2.0 ** -9, (8 + mant) * 2.0 ** (exp - 10))
    return np.where((bits & 0x7F) == 0x7F, np.nan, sign * mag)


def _load(path):
    a = np.load(path)
    if a.dtype.kind == "V" and a.dtype.itemsize == 2:  # bf16
        return (a.view(np.uint16).astype(np.uint32) << 16).view(np.float32).astype(np.float64)
    if a.dtype.kind == "V" and a.dtype.itemsize == 1:  # the suite's fp8: e4m3fn
        return _e4m3fn(a.view(np.uint8))
    return a.astype(np.float64)


@pytest.mark.parametrize("c", suite.CASES, ids=lambda c: c.name)
def test_definition_matches_the_peer(c, tool, tmp_path):
    """The reference interpreter on the definition agrees with a NumPy form
    of the eager peer, within the suite's own tolerance."""
    m, n = 6, 20
    args, inputs = [], []
    for k, ((_, shape, dtype), high) in enumerate(zip(c.input_shapes(m, n),
                                                     c.input_bounds(m, n))):
        dims = "x".join(str(d) for d in shape)
        if high is not None:  # integer inputs below their bound
            v = (np.arange(int(np.prod(shape))) * 7 + k) % high
            inputs.append(v.reshape(shape))
            args.append(f"--input={dims}x{dtype}=[" + ",".join(str(int(x)) for x in v) + "]")
            continue
        v = _values(shape, k)
        inputs.append(v)
        args.append(f"--input={dims}x{dtype}=[" + ",".join(repr(float(x)) for x in v.ravel()) + "]")
    args += [f"--input={value}" for _, _, value in c.scalars]
    proc = subprocess.run([tool("fusion-interpret"), c.definition_path(), *args,
                           f"--output-dir={tmp_path}"],
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          universal_newlines=True)
    assert proc.returncode == 0, proc.stderr
    got = _load(tmp_path / "out0.npy")
    if c.random:
        # Dropout: each element res or x / 0.9 + res, some of each (the
        # interpreter's mask equals the GPU's bit for bit: test/GPU).
        x, res = inputs
        rtol, atol = c.tolerance(m, n)
        assert suite.check_dropout(got, x, res, 0.1, rtol, atol) is None
        assert 0 < int((got == res).sum()) < got.size // 2
        return
    ref = NUMPY[c.name](*inputs)
    (_, out_shape, _), = c.output_shapes(m, n)
    assert got.shape == out_shape == ref.shape
    # The interpreter rounds its result once to the output dtype: within the
    # tolerance the suite allows against eager (exact for the transpose).
    rtol, atol = c.tolerance(m, n)
    assert np.allclose(got, ref, rtol=rtol, atol=atol), (got, ref)


# --- compiling ---------------------------------------------------------------------


def _script(path, body):
    path.write_text("#!/bin/sh\n" + body)
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return str(path)


def test_compile_case_reports_the_first_error_line(tmp_path):
    translate = _script(tmp_path / "fusion-translate",
                        'echo "/a/b/x.mlir:3:8: error: \'fusion.sum\' op has no scheduler yet" >&2\n'
                        'echo "/a/b/x.mlir:3:8: note: see current operation" >&2\nexit 1\n')
    r = suite.compile_case(case("outer_sum"), translate, str(tmp_path / "o.fusionmod"))
    assert not r["ok"]
    assert r["error"] == "x.mlir:3:8: error: 'fusion.sum' op has no scheduler yet"
    assert r["median_ms"] is None and r["module"] is None


def test_compile_case_times_fresh_processes(tmp_path):
    log = tmp_path / "calls"
    # Writes the file after -o and counts its calls.
    translate = _script(tmp_path / "fusion-translate",
                        f'echo x >> {log}\nwhile [ $# -gt 0 ]; do '
                        'if [ "$1" = -o ]; then printf FUSN > "$2"; fi; shift; done\n')
    r = suite.compile_case(case("add_relu"), translate, str(tmp_path / "a.fusionmod"),
                           repeats=3)
    assert r["ok"], r
    assert len(r["wall_ms"]) == 3 and len(log.read_text().split()) == 3
    assert r["median_ms"] == sorted(r["wall_ms"])[1]
    assert r["module_bytes"] == 4


def test_compile_case_without_tool_or_definition(tmp_path):
    r = suite.compile_case(case("add_relu"), None, str(tmp_path / "a"))
    assert not r["ok"] and "fusion-translate not found" in r["error"]
    bad = suite.Case("ghost", "f32", str(tmp_path / "missing.mlir"), [], [], (0, 0), "")
    r = suite.compile_case(bad, "/bin/true", str(tmp_path / "a"))
    assert not r["ok"] and "no definition" in r["error"]


def test_compile_real_tool(tool, tmp_path):
    translate = tool("fusion-translate")
    r = suite.compile_case(case("add_relu"), translate, str(tmp_path / "add_relu.fusionmod"),
                           repeats=1)
    if not r["ok"] and "ptxas" in (r.get("log") or "").lower():
        pytest.skip("no ptxas here: " + r["error"])
    assert r["ok"], r
    assert open(tmp_path / "add_relu.fusionmod", "rb").read(8).find(b"FUSN") >= 0
    # A definition the compiler rejects: a row, not an exception.
    broken = tmp_path / "broken.mlir"
    broken.write_text("fusion.fusion @broken(%x: tensor<?xf32>) -> tensor<?xf32> {\n"
                      "  %0 = fusion.add %x, %x : tensor<?x?xf32>\n"
                      "  fusion.return %0 : tensor<?xf32>\n}\n")
    c = suite.Case("broken", "f32", str(broken), [], [], (0, 0), "")
    r = suite.compile_case(c, translate, str(tmp_path / "broken.fusionmod"))
    assert not r["ok"]
    assert r["error"].startswith("broken.mlir:2:"), r["error"]


# --- rows, table, geometric mean ---------------------------------------------------


def _row(name="add_relu", shape=(8192, 16384), fusion=100.0, eager=200.0,
         compiled=150.0, **kw):
    return suite.make_row(case(name), shape, COPY,
                          fusion=None if fusion is None else {"us": fusion},
                          eager={"us": eager}, compiled={"us": compiled}, **kw)


def test_make_row_fractions_and_ratio():
    r = _row()
    nbytes = case("add_relu").useful_bytes(8192, 16384)
    assert r["bytes"] == nbytes
    assert r["fusion_fraction"] == pytest.approx(nbytes / 100e-6 / 1e9 / COPY)
    assert r["eager_fraction"] == pytest.approx(r["fusion_fraction"] / 2)
    assert r["speedup_vs_compile"] == pytest.approx(1.5)
    assert r["status"] == suite.OK


def test_not_compiled_row_keeps_the_peers():
    r = _row("softmax", fusion=None, status=suite.NOT_COMPILED,
             detail="softmax.mlir:3:8: error: 'fusion.max' op has no scheduler yet")
    assert r["fusion_us"] is None and r["fusion_fraction"] is None
    assert r["speedup_vs_compile"] is None
    assert r["eager_us"] == 200.0 and r["compile_us"] == 150.0
    table = suite.format_table([r])
    line = table.splitlines()[2]
    assert "| softmax (bf16) | 8192x16384 | not compiled: softmax.mlir:3:8: error:" in line
    assert "| 200.0 |" in line and "| 150.0 |" in line
    assert suite.exit_code({"rows": [r]}) == 0
    # A view instead of a kernel: a time for it would be no kernel's time.
    v = _row("transpose", fusion=3.0, status=suite.NOT_MATERIALIZED, detail="view")
    assert v["fusion_us"] is None and v["fusion_fraction"] is None
    assert "not materialized: view" in suite.format_table([v])


def test_mismatch_is_loud_and_fails():
    r = _row(status=suite.MISMATCH, detail="out0: 3 of 100 elements outside")
    assert r["speedup_vs_compile"] is None  # not counted in the mean
    table = suite.format_table([r])
    assert "**MISMATCH**: out0: 3 of 100 elements outside" in table
    report = suite.format_report({"rows": [r, _row()], "copy_gbps": COPY})
    assert "FAILURES: 1 row(s): add_relu 8192x16384 MISMATCH" in report
    assert suite.exit_code({"rows": [r]}) == 1
    assert suite.exit_code({"rows": [_row(status=suite.ERROR, detail="boom")]}) == 1
    assert suite.exit_code({"rows": [_row()]}) == 0


def test_table_cells_stay_on_one_line():
    r = _row(fusion=None, status=suite.NOT_COMPILED, detail="a | b\nsecond line " + "x" * 200)
    line = suite.format_table([r]).splitlines()[2]
    assert line.count("|") == 11  # ten columns, no pipe from the message
    assert "second line" in line and "..." in line


def test_peer_errors_show():
    r = suite.make_row(case("add_relu"), (8, 8), COPY, fusion={"us": 1.0},
                       eager={"us": 2.0}, compiled={"error": "InductorError: x"})
    assert r["compile_error"] == "InductorError: x"
    assert "error: InductorError: x" in suite.format_table([r])
    assert r["speedup_vs_compile"] is None


def test_peers_and_the_fastest_of_them():
    r = _row("softmax", fusion=100.0, compiled=150.0,
             peers={"Liger": {"us": 120.0}, "QuACK": {"us": 90.0}})
    nbytes = case("softmax").useful_bytes(8192, 16384)
    assert r["peers"]["Liger"]["fraction"] == pytest.approx(nbytes / 120e-6 / 1e9 / COPY)
    assert (r["fastest_peer"], r["fastest_peer_us"]) == ("QuACK", 90.0)
    assert r["speedup_vs_fastest"] == pytest.approx(0.9)
    # A peer that failed or disagreed with eager is never the fastest.
    e = _row("softmax", fusion=100.0, compiled=150.0,
             peers={"QuACK": {"error": "mismatch: 3 of 9 elements"}})
    assert e["peers"]["QuACK"]["us"] is None
    assert (e["fastest_peer"], e["speedup_vs_fastest"]) == ("torch.compile", 1.5)
    # Without peers torch.compile is the fastest non-eager one; eager never counts.
    plain = _row(fusion=100.0, eager=10.0, compiled=150.0)
    assert plain["fastest_peer"] == "torch.compile"
    assert suite.peer_names([plain]) == []
    table = suite.format_peer_table([r, e, plain])
    lines = table.splitlines()
    assert lines[0] == ("| case | shape | Fusion | eager | torch.compile | Liger | "
                        "QuACK | fastest peer | Fusion vs fastest |")
    assert lines[2].endswith("| QuACK | 0.90x |")
    assert "error: mismatch: 3 of 9 elements" in lines[3]
    # add_relu has no Liger or QuACK cell: empty, not a zero.
    cells = [c.strip() for c in lines[4].strip("|").split("|")]
    assert cells[5] == cells[6] == ""
    geo, used = suite.geomean_vs_fastest([r, e, plain])
    assert used == 3 and geo == pytest.approx((0.9 * 1.5 * 1.5) ** (1 / 3))
    report = suite.format_report({"rows": [r, e], "copy_gbps": COPY,
                                  "peers": {"Liger": "0.8.5", "QuACK": "0.6.5"},
                                  "peers_missing": {}})
    assert "Against every peer (Liger 0.8.5, QuACK 0.6.5;" in report
    assert "Geometric mean vs the fastest non-eager peer: 1.16x (over 2 of 2 rows)" in report
    missing = suite.format_report({"rows": [plain], "copy_gbps": COPY,
                                   "peers_missing": {"QuACK": "ModuleNotFoundError: quack"}})
    assert "Against every peer" not in missing
    assert "Peer not measured: QuACK (ModuleNotFoundError: quack)" in missing


def test_peers_that_do_not_import_are_reported_not_raised(monkeypatch):
    import peers

    def broken():
        raise ImportError("no module named quack")
    monkeypatch.setattr(peers, "LOADERS", (("QuACK", broken),))
    found, missing = peers.load()
    assert found == [] and missing == {"QuACK": "ImportError: no module named quack"}
    assert peers.load([]) == ([], {})


def test_peer_cases_are_suite_cases():
    # Every case a peer offers exists in the suite (a typo would never run);
    # read from the source, as the peers' packages need not be installed.
    import ast
    import peers
    tree = ast.parse(open(peers.__file__).read())
    offered = {k.value for node in ast.walk(tree) if isinstance(node, ast.Dict)
               for k in node.keys if isinstance(k, ast.Constant)}
    assert offered and offered <= set(suite.CASES_BY_NAME), offered - set(suite.CASES_BY_NAME)


def test_runs_of_one_session_merge_into_one_report():
    a = {"date": "A", "device": "H200", "copy_gbps": COPY, "command": "run 1",
         "rows": [_row("softmax", peers={"QuACK": {"us": 90.0}})],
         "compile": [{"case": "softmax", "ok": True}], "host": {},
         "peers": {"QuACK": "0.6.5"}, "peers_missing": {"Liger": "ImportError"}}
    b = {"date": "B", "device": "H200", "copy_gbps": COPY, "command": "run 2",
         "rows": [_row("add_relu")], "compile": [{"case": "add_relu", "ok": True}],
         "host": {"raw cuLaunchKernelEx": {"us": 3.0}}, "peers": {},
         "peers_missing": {"QuACK": "not installed"}}
    m = suite.merge_results([a, b])
    assert [r["case"] for r in m["rows"]] == ["add_relu", "softmax"]  # CASES order
    assert [c["case"] for c in m["compile"]] == ["softmax", "add_relu"]
    assert m["host"] == b["host"] and m["date"] == "A"
    # QuACK was measured in one run: not "missing"; Liger was in none.
    assert m["peers"] == {"QuACK": "0.6.5"}
    assert m["peers_missing"] == {"Liger": "ImportError"}
    assert m["command"] == "run 1 + run 2"
    assert suite.merge_results([a]) is a


def test_geomean():
    rows = [_row(fusion=100, compiled=200), _row(fusion=100, compiled=50),
            _row(fusion=100, compiled=800),
            _row("softmax", fusion=None, status=suite.NOT_COMPILED, detail="e")]
    geo, used = suite.geomean_vs_compile(rows)
    assert used == 3
    assert geo == pytest.approx(2.0)  # (2 * 0.5 * 8) ** (1/3)
    assert suite.geomean_vs_compile([]) == (None, 0)
    report = suite.format_report({"rows": rows, "copy_gbps": COPY, "date": "D",
                                  "device": "NVIDIA H200"})
    assert "Geometric mean vs torch.compile: 2.00x (over 3 of 4 rows)" in report
    assert "Not measured (compiler support pending): softmax" in report
    assert "Failures: none" in report
    assert "Copy bandwidth (1 GiB device-to-device, read + write): 4000 GB/s" in report
    assert "Machine: NVIDIA H200" in report and "Date: D" in report


def test_compile_and_host_tables():
    compiles = [{"case": "add_relu", "ok": True, "wall_ms": [90.0, 80.0, 85.0],
                 "median_ms": 85.0, "first_ms": 90.0, "module_bytes": 1234},
                {"case": "softmax", "ok": False, "error": "x.mlir:1:1: error: no"}]
    text = suite.format_compile_table(compiles, floor_ms=15.2)
    assert "| add_relu | 85 | 90 | 1234 | ok (3 fresh processes) |" in text
    assert "| softmax | - | - | - | not compiled: x.mlir:1:1: error: no |" in text
    assert "15 ms" in text
    host = {"C++ runtime (fusion-run)": {"us": 4.25, "note": "n"},
            "Python API (bench/host_overhead.py)": {"us": None, "note": "not available"}}
    text = suite.format_host(host)
    assert "| C++ runtime (fusion-run) | 4.25 | n |" in text
    assert "| Python API (bench/host_overhead.py) | - | not available |" in text
    # A run without host times (--no-host) says so once, without the
    # table's heading.
    report = suite.format_report({"rows": [_row()], "copy_gbps": COPY})
    assert report.count("Host time per call") == 1
    assert "Host time per call: not measured." in report
    report = suite.format_report({"rows": [_row()], "copy_gbps": COPY,
                                  "host": host})
    assert "Host time per call (tiny fusion" in report
    assert "| C++ runtime (fusion-run) | 4.25 | n |" in report


def test_flatten_host():
    flat = suite.flatten_host({"python_us": 7.5, "raw": {"launch_us": 3.9},
                               "x": {"us": 1.0, "note": "n"}, "ok": True})
    assert flat["python_us"] == {"us": 7.5, "note": ""}
    assert flat["raw.launch_us"]["us"] == 3.9
    assert flat["x"] == {"us": 1.0, "note": "n"}
    assert flat["ok"]["us"] is None


# --- the suite goes on when a case breaks -------------------------------------------


class FakeMeasurer:
    copy_gbps = COPY

    def __init__(self):
        self.calls = []

    def measure(self, c, shape, module, compile_error):
        self.calls.append((c.name, shape, module, compile_error))
        if c.name == "gelu_bias":
            raise RuntimeError("CUDA error: an illegal memory access")
        if module is None:
            return suite.make_row(c, shape, COPY, eager={"us": 10.0},
                                  compiled={"us": 5.0}, status=suite.NOT_COMPILED,
                                  detail=compile_error)
        return suite.make_row(c, shape, COPY, fusion={"us": 4.0},
                              eager={"us": 10.0}, compiled={"us": 5.0})


def test_run_suite_survives_a_failing_case():
    cases = suite.select_cases("add_relu,gelu_bias,softmax")
    shapes = [(8, 16), (32, 64)]
    modules = {"add_relu": ("a.fusionmod", None), "gelu_bias": ("g.fusionmod", None),
               "softmax": (None, "softmax.mlir:3:8: error: no scheduler")}
    fake = FakeMeasurer()
    lines = []
    rows = suite.run_suite(cases, shapes, fake, modules, log=lines.append)
    assert len(rows) == 6 and len(fake.calls) == 6
    assert [r["status"] for r in rows] == [suite.OK, suite.OK, suite.ERROR, suite.ERROR,
                                          suite.NOT_COMPILED, suite.NOT_COMPILED]
    assert "illegal memory access" in rows[2]["detail"]
    assert fake.calls[4] == ("softmax", (8, 16), None, "softmax.mlir:3:8: error: no scheduler")
    assert any("!!! ERROR" in line for line in lines)
    assert suite.exit_code({"rows": rows}) == 1
    assert suite.geomean_vs_compile(rows) == (pytest.approx(1.25), 2)


# --- JSON and docs -------------------------------------------------------------------


def _result():
    return {"date": "2026-11-30 10:00 UTC", "device": "NVIDIA H200",
            "software": "CUDA 13.0", "copy_gbps": 4226.0, "iters": 30,
            "rows": [_row(), _row("softmax", fusion=None, status=suite.NOT_COMPILED,
                                  detail="no scheduler"),
                     suite.make_row(case("transpose"), (8, 8), COPY,
                                    eager={"us": float("nan")})],
            "compile": [], "host": {"raw cuLaunchKernelEx": {"us": 3.7, "note": ""},
                                    "broken": {"us": float("nan"), "note": ""}}}


def test_write_json_is_strict_and_complete(tmp_path):
    path = tmp_path / "sub" / "bench.json"
    suite.write_json(_result(), str(path))
    text = path.read_text()
    data = json.loads(text, parse_constant=lambda c: pytest.fail(f"non-JSON {c}"))
    assert data["device"] == "NVIDIA H200"
    assert data["geomean_vs_compile"] == pytest.approx(1.5)
    assert data["failures"] == 0
    assert data["rows"][2]["eager_us"] is None
    assert data["host"]["broken"]["us"] is None
    assert data["rows"][1]["status"] == "not compiled"
    assert suite.read_json(str(path))["rows"][0]["shape"] == [8192, 16384]


def test_update_docs_replaces_only_the_marked_section():
    text = ("# Performance\n\nintro\n\n<!-- bench:begin -->\nold table\n"
            "<!-- bench:end -->\n\n## History\nkept\n")
    new = suite.update_docs_text(text, "NEW")
    assert new == ("# Performance\n\nintro\n\n<!-- bench:begin -->\nNEW\n"
                   "<!-- bench:end -->\n\n## History\nkept\n")
    assert suite.update_docs_text(new, "NEWER").count("<!-- bench:begin -->") == 1
    appended = suite.update_docs_text("# P\n", "S")
    assert appended == "# P\n\n<!-- bench:begin -->\nS\n<!-- bench:end -->\n"
    with pytest.raises(ValueError):
        suite.update_docs_text("<!-- bench:end -->\n<!-- bench:begin -->\n", "S")
    with pytest.raises(ValueError):
        suite.update_docs_text("<!-- bench:begin -->\n", "S")


def test_the_real_docs_have_one_marked_section(tmp_path):
    doc = os.path.join(ROOT, "docs", "performance.md")
    text = open(doc).read()
    assert text.count(suite.DOCS_BEGIN) == 1 and text.count(suite.DOCS_END) == 1
    assert "python3 bench/run.py" in text
    copy = tmp_path / "performance.md"
    copy.write_text(text)
    suite.update_docs(str(copy), _result())
    new = copy.read_text()
    before, after = text.split(suite.DOCS_BEGIN)[0], text.split(suite.DOCS_END)[1]
    assert new.startswith(before) and new.endswith(after)
    section = new.split(suite.DOCS_BEGIN)[1].split(suite.DOCS_END)[0]
    assert "NVIDIA H200" in section and "2026-11-30 10:00 UTC" in section
    assert "| add_relu (f32) | 8192x16384 |" in section
    assert "not compiled: no scheduler" in section


# --- command line --------------------------------------------------------------------


def test_run_from_json_updates_docs_without_torch(tmp_path):
    saved = tmp_path / "bench.json"
    suite.write_json(_result(), str(saved))
    doc = tmp_path / "performance.md"
    doc.write_text("# Performance\n\n<!-- bench:begin -->\nx\n<!-- bench:end -->\n")
    md = tmp_path / "bench.md"
    env = dict(os.environ, PYTHONPATH="")
    proc = subprocess.run([sys.executable, os.path.join(ROOT, "bench", "run.py"),
                           "--from-json", str(saved), "--update-docs", str(doc),
                           "--markdown", str(md)],
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          universal_newlines=True, env=env)
    assert proc.returncode == 0, proc.stderr
    assert "| add_relu (f32) | 8192x16384 | 100.0 |" in proc.stdout
    assert "Geometric mean vs torch.compile: 1.50x" in proc.stdout
    assert "| add_relu (f32) |" in doc.read_text()
    assert md.read_text().strip() == suite.format_report(suite.read_json(str(saved))).strip()


def test_run_from_json_exit_code_on_mismatch(tmp_path):
    data = _result()
    data["rows"].append(_row(status=suite.MISMATCH, detail="bad"))
    saved = tmp_path / "bench.json"
    suite.write_json(data, str(saved))
    assert run.main(["--from-json", str(saved)]) == 1


def test_bench_modules_import_no_torch():
    code = ("import sys; sys.path.insert(0, %r); import suite, run, pointwise_bench; "
            "print('torch' in sys.modules)" % os.path.join(ROOT, "bench"))
    out = subprocess.run([sys.executable, "-c", code], stdout=subprocess.PIPE,
                         universal_newlines=True, check=True).stdout.strip()
    assert out == "False"


def test_options():
    a = run.parse_args(["--cases", "softmax,transpose", "--shapes", "8192x16384",
                        "--iters", "7", "--no-compile-peers", "--modules", "m",
                        "--tools", "t", "--json", "o.json"])
    assert [c.name for c in a.case_list] == ["softmax", "transpose"]
    assert a.shape_list == [(8192, 16384)]
    assert (a.iters, a.no_compile_peers, a.modules, a.tools, a.json) == (7, True, "m", "t", "o.json")
    d = run.parse_args([])
    assert d.case_list == suite.CASES and d.shape_list == suite.SHAPES
    assert not d.no_compile_peers
    for bad in (["--cases", "nope"], ["--shapes", "8x"], ["--iters", "0"]):
        with pytest.raises(SystemExit):
            run.parse_args(bad)


def test_pointwise_bench_maps_to_the_suite():
    assert pointwise_bench.translate_args(["--modules", "modules", "--json", "b.json"]) == [
        "--cases", "add_relu,gelu_bias,inner_sum", "--iters", "30",
        "--modules", "modules", "--json", "b.json"]
    args = pointwise_bench.translate_args(["--modules", "m", "--no-compile", "--no-host",
                                           "--cases", "inner_sum"])
    parsed = run.parse_args(args)
    assert parsed.no_compile_peers and parsed.no_host
    assert [c.name for c in parsed.case_list] == ["inner_sum"]


def test_find_tools_dir(tmp_path, monkeypatch):
    monkeypatch.delenv("FUSION_TOOLS_DIR", raising=False)
    _script(tmp_path / "fusion-translate", "exit 0\n")
    assert suite.find_tools_dir(str(tmp_path)) == str(tmp_path)
    monkeypatch.setenv("FUSION_TOOLS_DIR", str(tmp_path))
    assert suite.find_tools_dir(None) == str(tmp_path)
    assert suite.tool_path(str(tmp_path), "fusion-translate") == str(tmp_path / "fusion-translate")


def test_bundle_and_gpu_tests_carry_the_suite():
    bundle = open(os.path.join(ROOT, "utils", "build-gpu-bundle.sh")).read()
    assert "cp -r python bench" in bundle
    assert "examples/normalization" in bundle
    gpu = open(os.path.join(ROOT, "utils", "gpu-tests.sh")).read()
    assert "bench/run.py" in gpu and '--json "$out/bench.json"' in gpu
    for c in suite.CASES:  # every definition is in the bundle
        assert c.definition.startswith(("examples/", "bench/cases/")), c.definition


# --- run.main end to end, with a stand-in for the GPU side ---------------------------


class FakeMeasure:
    """bench/measure.py's interface without torch or a GPU."""

    def __init__(self):
        self.host_calls = []

    def cuda_available(self):
        return True

    def seed(self, value):
        pass

    def device_description(self):
        return "Fake GPU", "CUDA 0.0"

    def copy_bandwidth_gbps(self):
        return COPY

    def TorchMeasurer(self, copy, iters, compile_peers, peers=()):
        assert (copy, iters, compile_peers) == (COPY, 5, False)
        return FakeMeasurer()

    def host_cpp(self, fusion_run, module):
        self.host_calls.append(("cpp", module))
        return {"C++ runtime (fusion-run)": {"us": 4.2, "note": ""}}

    def host_python(self, module, compile_peers):
        self.host_calls.append(("python", module))
        return {"torch eager": {"us": 8.0, "note": ""}}

    def host_frontend(self, modules, tools, module):
        raise RuntimeError("host_overhead broke")


def test_main_end_to_end_with_a_fake_gpu(tmp_path, monkeypatch):
    _script(tmp_path / "fusion-translate",
                        # softmax "does not compile"; the others write a module
                        'case "$1" in *softmax*) echo "s.mlir:3:8: error: no scheduler" >&2; '
                        'exit 1;; esac\nwhile [ $# -gt 0 ]; do [ "$1" = -o ] && '
                        'printf FUSN > "$2"; shift; done\nexit 0\n')
    fake = FakeMeasure()
    monkeypatch.setitem(sys.modules, "measure", fake)
    doc = tmp_path / "perf.md"
    doc.write_text("# P\n\nkept\n")
    out = tmp_path / "bench.json"
    code = run.main(["--cases", "softmax,gelu_bias,add_relu", "--shapes", "8x16",
                     "--iters", "5", "--no-compile-peers", "--tools", str(tmp_path),
                     "--work", str(tmp_path / "work"), "--compile-repeats", "2",
                     "--json", str(out), "--update-docs", str(doc)])
    assert code == 1  # the fake measurer fails gelu_bias
    data = json.loads(out.read_text())
    assert [r["status"] for r in data["rows"]] == ["not compiled", "ERROR", "ok"]
    assert data["rows"][0]["detail"] == "s.mlir:3:8: error: no scheduler"
    assert [c["ok"] for c in data["compile"]] == [False, True, True]
    assert len(data["compile"][2]["wall_ms"]) == 2
    assert data["device"] == "Fake GPU" and data["copy_gbps"] == COPY
    assert data["host"]["C++ runtime (fusion-run)"]["us"] == 4.2
    assert "host_overhead broke" in json.dumps(data["host"])
    assert fake.host_calls[0] == ("cpp", str(tmp_path / "work" / "add_relu.fusionmod"))
    text = doc.read_text()
    assert text.startswith("# P\n\nkept\n") and "not compiled: s.mlir:3:8" in text


def test_main_without_torch(monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "measure", None)  # import fails
    assert run.main(["--cases", "add_relu"]) == 2
    assert "cannot measure here" in capsys.readouterr().err
