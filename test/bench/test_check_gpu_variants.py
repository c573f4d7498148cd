"""utils/check-gpu-variants.py on hand-written GPU-test files: it must flag a
RUN whose expected variant is not the plan's, and a CHECK line whose literal
start is not how fusion-run prints that run's line (several inputs print as
`AxBxbf16,Bxbf16`); no GPU needed."""
import os
import subprocess
import sys

import pytest

from conftest import ROOT, find_tool

CHECKER = os.path.join(ROOT, "utils", "check-gpu-variants.py")

FUSION = """
fusion.fusion @rms(%x: tensor<?x?xbf16>, %w: tensor<?xbf16>) -> tensor<?x?xbf16> {
  %0 = fusion.rms_norm %x weight(%w : tensor<?xbf16>) axis = 1 eps = 1.0e-6 : tensor<?x?xbf16>
  fusion.return %0 : tensor<?x?xbf16>
}
"""


def check(tmp_path, check_line):
    fusion_run = find_tool("fusion-run")
    if not fusion_run:
        pytest.skip("fusion-run is not built")
    path = tmp_path / "case.mlir"
    path.write_text("// RUN: fusion-run %s --fusion=rms --input=64x1024 --input=1024 "
                    "| FileCheck %s --check-prefix=R\n" + check_line + "\n" + FUSION)
    proc = subprocess.run([sys.executable, CHECKER, "--fusion-run", fusion_run, str(path)],
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          universal_newlines=True)
    return proc.returncode, proc.stdout


def test_a_matching_run_passes(tmp_path):
    rc, out = check(tmp_path, "// R: PASS rms 64x1024xbf16,1024xbf16 {{.*}}variant=rms_k0_pv8_i32")
    assert rc == 0, out
    assert "1 runs checked, 0 mismatches" in out


def test_another_variant_is_flagged(tmp_path):
    rc, out = check(tmp_path, "// R: PASS rms 64x1024xbf16{{.*}}variant=rms_k0_v8_i32")
    assert rc == 1
    assert "expects variant=rms_k0_v8_i32, the plan picks rms_k0_pv8_i32" in out


def test_a_line_fusion_run_does_not_print_is_flagged(tmp_path):
    rc, out = check(tmp_path, "// R: PASS rms 64x1024xbf16 {{.*}}variant=rms_k0_pv8_i32")
    assert rc == 1
    assert ("expects a line starting 'PASS rms 64x1024xbf16 '; fusion-run prints "
            "'PASS rms 64x1024xbf16,1024xbf16 '") in out
