"""Tests of bench/compile_time.py that need no GPU and no Triton: the PTX entry
sizes, CPU accounting of a child process, the chains (utils/opgen.py chain),
the fresh-process and in-process Fusion measurements on a small case, the
report and the docs section."""
import json
import os
import subprocess
import sys

import pytest

import compile_time
import suite

ROOT = suite.ROOT
OPGEN = os.path.join(ROOT, "utils", "opgen.py")


def test_ptx_entry_sizes_splits_at_each_entry():
    ptx = (".version 8.0\n.target sm_90a\n"
           ".visible .entry a(\n.param .u64 p\n)\n{\nret;\n}\n"
           ".visible .entry bb(\n)\n{\nadd.s32 %r1, %r2, %r3;\nret;\n}\n")
    sizes = compile_time.ptx_entry_sizes(ptx)
    assert len(sizes) == 2
    first = ptx.index(".visible .entry a(")
    second = ptx.index(".visible .entry bb(")
    assert sizes == [second - first, len(ptx) - second]
    assert compile_time.ptx_entry_sizes(".version 8.0\n") == []


def test_cpu_seconds_counts_a_waited_for_child():
    burn = "import time\nt = time.process_time()\nwhile time.process_time() - t < 0.3: pass\n"
    _, wall, cpu = compile_time.timed(lambda: subprocess.run([sys.executable, "-c", burn]))
    assert cpu >= 0.25, cpu
    assert wall >= 0.25


def test_summarize_takes_medians():
    assert compile_time.summarize([]) is None
    s = compile_time.summarize([(1.0, 5.0), (3.0, 1.0), (2.0, 2.0)])
    assert s == {"wall": 2.0, "cpu": 2.0, "n": 3}


@pytest.mark.parametrize("ops", [20, 100])
def test_chain_has_at_least_the_ops_asked_for_and_reductions(ops, tmp_path):
    out = tmp_path / "c.mlir"
    subprocess.run([sys.executable, OPGEN, "chain", "--ops", str(ops), "-o", str(out)],
                   check=True)
    text = out.read_text()
    count = sum(1 for l in text.splitlines() if "= fusion." in l)
    assert ops <= count <= ops + 5, count
    assert f"fusion.fusion @chain{ops}(" in text
    if ops >= 100:
        assert " [1] keepdim" in text  # inner reductions in a long chain
    again = subprocess.run([sys.executable, OPGEN, "chain", "--ops", str(ops)],
                           check=True, stdout=subprocess.PIPE, universal_newlines=True)
    assert again.stdout == text  # one seed, one chain


def test_chain_verifies(tool, tmp_path):
    opt = tool("fusion-opt")
    out = tmp_path / "c.mlir"
    subprocess.run([sys.executable, OPGEN, "chain", "--ops", "60", "-o", str(out)],
                   check=True)
    r = subprocess.run([opt, str(out), "--fusion-decompose", "--fusion-segment"],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       universal_newlines=True)
    assert r.returncode == 0, r.stderr
    assert "kernel @chain60_k0" in r.stdout


def test_fresh_process_measures_add_relu(tool, tmp_path):
    translate = tool("fusion-translate")
    src = suite.CASES_BY_NAME["add_relu"].definition_path()
    m, size, err = compile_time.translate_fresh(translate, src, "ptx", 2,
                                                str(tmp_path / "a.ptx"))
    assert err is None
    assert m["n"] == 2 and m["wall"] > 0 and m["cpu"] > 0
    assert size == os.path.getsize(tmp_path / "a.ptx") > 0
    m, size, err = compile_time.translate_fresh(translate, str(tmp_path / "none.mlir"),
                                                "ptx", 1, str(tmp_path / "b.ptx"))
    assert m is None and err


def test_fusion_worker_in_process(tool):
    tool("fusion-translate")  # the build, with libfusion_compiler.so
    src = suite.CASES_BY_NAME["add_relu"].definition_path()
    out, err = compile_time.run_worker(sys.executable, [
        "--worker", "fusion", "--case", "add_relu", "--kind", "ptx",
        "--source", src, "--repeats", "2"])
    assert err is None, err
    assert out["side"] == "fusion"
    assert out["warm"]["n"] == 2 and out["first"]["cpu"] > 0
    assert out["bytes"] > 0 and len(out["entries"]) >= 1


def fake_result():
    row = {"case": "softmax", "definition": "examples/normalization/softmax.mlir"}
    row["ptx"] = {"fresh": {"wall": 0.2, "cpu": 0.3, "n": 3}, "fresh_bytes": 120000,
                  "in_process": {"first": {"wall": 0.15, "cpu": 0.2},
                                 "warm": {"wall": 0.1, "cpu": 0.12, "n": 3}},
                  "triton": {"first": {"wall": 0.7, "cpu": 0.5},
                             "warm": {"wall": 0.1, "cpu": 0.06, "n": 3},
                             "ptx_bytes": 26000, "import": {"wall": 0.2, "cpu": 0.1}}}
    row["cubin"] = {"fresh": {"wall": 0.25, "cpu": 0.44, "n": 3}, "fresh_bytes": 180000,
                    "in_process": {"first": {"wall": 0.2, "cpu": 0.3},
                                   "warm": {"wall": 0.18, "cpu": 0.3, "n": 3},
                                   "hit": {"wall": 0.0025, "cpu": 0.002, "n": 3}},
                    "triton": {"first": {"wall": 0.7, "cpu": 0.5},
                               "warm": {"wall": 0.15, "cpu": 0.1, "n": 3},
                               "ptx_bytes": 26000, "import": {"wall": 0.2, "cpu": 0.1}}}
    chain = {"ops": 100, "seed": 1, "fusion_ops": 103, "kernels": 5, "entries": 15,
             "largest_entry": 150000, "ptx": {"wall": 9.0, "cpu": 12.0, "n": 1},
             "cubin": {"wall": 30.0, "cpu": 50.0, "n": 1}}
    return {"date": "2026-12-04 12:00 UTC", "machine": {"cpus": 2, "cpu_model": "x"},
            "repeats": 3, "triton_version": "3.9.0", "cases": [row], "chains": [chain]}


def test_report_pairs_fusion_and_triton():
    text = compile_time.format_report(fake_result())
    assert "| softmax | PTX | 0.200 / 0.300 | 0.150 / 0.200 | 0.100 / 0.120 | " \
           "0.700 / 0.500 | 0.100 / 0.060 | 2.00x | 120,000 / 26,000 |" in text
    assert "| softmax | module with cubin | 0.250 / 0.440 |" in text
    assert "| 3.00x |" in text
    assert "softmax 2.5 ms" in text and "NOT all cache hits" not in text
    missed = fake_result()
    missed["cases"][0]["cubin"]["in_process"]["hit_flags"] = [True, False, True]
    assert "softmax 2.5 ms (NOT all cache hits" in compile_time.format_report(missed)
    assert "| 100 (seed 1) | 103 | 5 | 15 | 150,000 | 9.000 / 12.000 | 30.000 / 50.000 |" in text
    assert "Triton 3.9.0" in text


def test_report_has_the_deferred_kernels_table():
    result = fake_result()
    assert "Deferred kernels" not in compile_time.format_report(result)
    cubin = result["cases"][0]["cubin"]
    cubin["fresh_deferred"] = {"wall": 0.03, "cpu": 0.02, "n": 3}
    cubin["in_process"].update({
        "deferred_fallbacks": {"wall": 0.12, "cpu": 0.2, "n": 3},
        "deferred_all": {"wall": 0.009, "cpu": 0.009, "n": 3},
        "first_kernel": "softmax_k0_pv8_i32",
        "first_build": {"wall": 0.1, "cpu": 0.1, "n": 3},
        "deferred_first": {"wall": 0.11, "cpu": 0.11, "n": 3}})
    text = compile_time.format_report(result)
    assert ("| softmax | 0.030 / 0.020 | 0.180 / 0.300 | 0.120 / 0.200 | 0.009 / 0.009 | "
            "0.100 / 0.100 (`softmax_k0_pv8_i32`) | 0.110 / 0.110 | 0.150 / 0.100 | 1.10x |"
            in text), text


def test_first_kernel_is_the_first_launchs_first_variant(tool):
    tool("fusion-translate")  # the build, with both libraries
    if os.environ.get("FUSION_TEST_INSTALLED") != "1":
        sys.path.insert(0, os.path.join(ROOT, "python"))
    from fusion import _compiler
    src = open(suite.CASES_BY_NAME["softmax"].definition_path()).read()
    lazy, _ = _compiler.compile(src, use_cache=False, emit_cubin=False,
                                pipeline_options="defer-kernels=all")
    assert compile_time.first_kernel(lazy) == "softmax_k0_pv8_i32"


def test_update_docs_replaces_only_the_section(tmp_path):
    doc = tmp_path / "perf.md"
    doc.write_text("# P\nbefore\n" + compile_time.DOCS_BEGIN + "\nold\n"
                   + compile_time.DOCS_END + "\nafter\n")
    compile_time.update_docs(str(doc), fake_result())
    text = doc.read_text()
    assert text.startswith("# P\nbefore\n" + compile_time.DOCS_BEGIN)
    assert text.endswith(compile_time.DOCS_END + "\nafter\n")
    assert "old" not in text and "| softmax | PTX |" in text
    bare = tmp_path / "bare.md"
    bare.write_text("nothing\n")
    with pytest.raises(SystemExit):
        compile_time.update_docs(str(bare), fake_result())


def test_docs_keep_a_compile_time_section():
    text = open(os.path.join(ROOT, "docs", "performance.md")).read()
    assert text.count(compile_time.DOCS_BEGIN) == 1
    assert text.count(compile_time.DOCS_END) == 1


def test_from_json_renders_a_saved_run(tmp_path, capsys):
    saved = tmp_path / "ct.json"
    saved.write_text(json.dumps(fake_result()))
    assert compile_time.main(["--from-json", str(saved)]) == 0
    assert "| softmax | PTX |" in capsys.readouterr().out
    bad = fake_result()
    bad["chains"][0] = {"ops": 100, "seed": 1, "error": "boom"}
    saved.write_text(json.dumps(bad))
    assert compile_time.main(["--from-json", str(saved)]) == 1


def test_bad_options_are_refused():
    with pytest.raises(SystemExit):
        compile_time.parse_args(["--cases", "matmul"])
    with pytest.raises(SystemExit):
        compile_time.parse_args(["--chains", "a,b"])
    with pytest.raises(SystemExit):
        compile_time.parse_args(["--repeats", "0"])


def test_measure_chain_counts_kernels_and_entries(tool, tmp_path):
    import argparse
    args = argparse.Namespace(translate=tool("fusion-translate"), seed=1, chain_repeats=1)
    row = compile_time.measure_chain(30, args, str(tmp_path), lambda *_: None)
    assert "error" not in row, row
    assert row["fusion_ops"] >= 30
    assert row["kernels"] >= 1
    assert row["entries"] >= 2 and row["largest_entry"] > 0
    assert row["ptx"]["wall"] > 0 and row["cubin"]["cpu"] > 0
