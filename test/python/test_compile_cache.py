"""The compile cache across processes (Note [Compile cache] in
include/fusion/Target/CompileCache.h): fusion-translate and the Python
package storing and hitting, concurrent writers, a corrupt entry compiled
again, fusion-cache list, prune and clear. No GPU needed."""
import concurrent.futures
import os
import re
import subprocess

import pytest



def tool_or_skip(name):
    """As conftest.tool_or_skip, which cannot be imported by name here
    (`pytest test/python test/bench` loads test/bench's conftest module as
    `conftest` too)."""
    from fusion import find_tool
    path = find_tool(name, required=False)
    if path is None:
        pytest.skip(f"{name} is not built (build it with `ninja -C build {name}`, "
                    f"or set FUSION_TOOLS_DIR)")
    return path

ADD_RELU = """
fusion.fusion @add_relu(%a: tensor<?x?xf32>, %b: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %0 = fusion.add %a, %b : tensor<?x?xf32>
  %1 = fusion.relu %0 : tensor<?x?xf32>
  fusion.return %1 : tensor<?x?xf32>
}
"""

NEG = """
fusion.fusion @neg(%a: tensor<?xf32>) -> tensor<?xf32> {
  %0 = fusion.neg %a : tensor<?xf32>
  fusion.return %0 : tensor<?xf32>
}
"""


@pytest.fixture
def cache_env(tmp_path):
    env = dict(os.environ)
    env.pop("FUSION_CACHE", None)
    env["FUSION_CACHE_DIR"] = str(tmp_path / "cache")
    return env


def translate(src, out, env, *flags):
    tool = tool_or_skip("fusion-translate")
    proc = subprocess.run([tool, str(src), "--fusion-to-module", "--no-cubin", "-o", str(out),
                           "--cache-report", *flags], env=env, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, universal_newlines=True)
    assert proc.returncode == 0, proc.stderr
    return proc.stderr


def cache_cli(env, *args):
    tool = tool_or_skip("fusion-cache")
    proc = subprocess.run([tool, *args], env=env, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, universal_newlines=True)
    return proc


def entries(env):
    root = env["FUSION_CACHE_DIR"]
    if not os.path.isdir(root):
        return []
    # Key folders; the directory also holds the usage ledger (a file).
    return sorted(os.path.join(root, key, f) for key in os.listdir(root)
                  if os.path.isdir(os.path.join(root, key))
                  for f in os.listdir(os.path.join(root, key)) if f.endswith(".fusionmod"))


def test_a_second_process_takes_the_module_from_the_cache(tmp_path, cache_env):
    src = tmp_path / "add_relu.mlir"
    src.write_text(ADD_RELU)
    first = translate(src, tmp_path / "a.fusionmod", cache_env)
    assert "compile cache stored" in first, first
    second = translate(src, tmp_path / "b.fusionmod", cache_env)
    assert "compile cache hit" in second, second
    assert first.split()[4] == second.split()[4]  # the key
    assert (tmp_path / "a.fusionmod").read_bytes() == (tmp_path / "b.fusionmod").read_bytes()
    # The entry is a plain module file, named by its bytes' hash.
    (entry,) = entries(cache_env)
    assert open(entry, "rb").read() == (tmp_path / "a.fusionmod").read_bytes()
    # Off: --no-cache and FUSION_CACHE=0 compile and store nothing new.
    assert "compile cache off" in translate(src, tmp_path / "c.fusionmod", cache_env, "--no-cache")
    off = dict(cache_env, FUSION_CACHE="0")
    assert "compile cache off" in translate(src, tmp_path / "c.fusionmod", off)
    # --mlir-timing times a compile: no cache.
    assert "compile cache off" in translate(src, tmp_path / "c.fusionmod", cache_env,
                                            "--mlir-timing")


def test_concurrent_writers_all_succeed(tmp_path, cache_env):
    src = tmp_path / "neg.mlir"
    src.write_text(NEG)
    outs = [tmp_path / f"out{i}.fusionmod" for i in range(6)]
    with concurrent.futures.ThreadPoolExecutor(len(outs)) as pool:
        reports = list(pool.map(lambda out: translate(src, out, cache_env), outs))
    assert all("compile cache stored" in r or "compile cache hit" in r for r in reports), reports
    data = {out.read_bytes() for out in outs}
    assert len(data) == 1
    (entry,) = entries(cache_env)
    assert open(entry, "rb").read() in data
    # No temporaries left behind.
    key_dir = os.path.dirname(entry)
    assert os.listdir(key_dir) == [os.path.basename(entry)]


def test_a_corrupt_entry_is_compiled_again(tmp_path, cache_env):
    src = tmp_path / "neg.mlir"
    src.write_text(NEG)
    translate(src, tmp_path / "a.fusionmod", cache_env)
    (entry,) = entries(cache_env)
    with open(entry, "r+b") as f:
        f.truncate(100)
    report = translate(src, tmp_path / "b.fusionmod", cache_env)
    assert "compile cache stored" in report, report
    assert (tmp_path / "a.fusionmod").read_bytes() == (tmp_path / "b.fusionmod").read_bytes()


def test_fusion_cache_lists_prunes_and_clears(tmp_path, cache_env):
    for name, text in (("add_relu", ADD_RELU), ("neg", NEG)):
        src = tmp_path / f"{name}.mlir"
        src.write_text(text)
        translate(src, tmp_path / f"{name}.fusionmod", cache_env)
    proc = cache_cli(cache_env, "dir")
    assert proc.returncode == 0 and proc.stdout.strip() == cache_env["FUSION_CACHE_DIR"]
    listed = cache_cli(cache_env, "list")
    assert listed.returncode == 0, listed.stderr
    assert "@add_relu sm_90a" in listed.stdout and "@neg sm_90a" in listed.stdout
    assert "2 entries" in listed.stdout
    assert "kernels built" not in listed.stdout
    # A module with deferred kernels says how many are built.
    translate(tmp_path / "neg.mlir", tmp_path / "neg-deferred.fusionmod", cache_env,
              "--defer-kernels=all")
    listed = cache_cli(cache_env, "list")
    assert re.search(r"@neg sm_90a \(0 of [0-9]+ kernels built\)", listed.stdout), listed.stdout
    assert "3 entries" in listed.stdout
    pruned = cache_cli(cache_env, "prune", "--max-mb=0")
    assert pruned.returncode == 0 and "removed 3 entries" in pruned.stdout, pruned.stdout
    assert entries(cache_env) == []
    src = tmp_path / "neg.mlir"
    translate(src, tmp_path / "neg.fusionmod", cache_env)
    cleared = cache_cli(cache_env, "clear")
    assert cleared.returncode == 0 and "removed 1 entries" in cleared.stdout, cleared.stdout
    assert entries(cache_env) == []
    negative = cache_cli(cache_env, "prune", "--max-mb=-1")
    assert negative.returncode == 1
    assert "--max-mb must be 0 to 8796093022208, got -1" in negative.stderr
    bad = cache_cli(cache_env, "explode")
    assert bad.returncode == 2 and "unknown command" in bad.stderr


# A fresh Python process builds a definition (at `line` blank lines into its
# script, so its source locations differ), compiles it in process and prints
# whether the module came from the cache, and the module's hash.
_PROCESS = """
import hashlib, sys
{path}
from fusion import DataType, FusionDefinition, _compiler
{blank}
with FusionDefinition("tiny") as fd:
    a = fd.define_tensor([-1], DataType.Float32)
    fd.add_output(fd.ops.relu(fd.ops.mul(a, a)))
data, hit = _compiler.compile(fd.to_mlir(locations=True), emit_cubin=False)
print(hit, hashlib.sha256(data).hexdigest())
"""


def _python_process(env, blank_lines):
    import sys
    import fusion
    path = ""
    if os.environ.get("FUSION_TEST_INSTALLED") != "1":  # the source tree's package
        path = f"sys.path.insert(0, {os.path.dirname(os.path.dirname(fusion.__file__))!r})"
    script = _PROCESS.format(path=path, blank="\n" * blank_lines)
    proc = subprocess.run([sys.executable, "-c", script], env=env, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, universal_newlines=True)
    assert proc.returncode == 0, proc.stderr
    hit, digest = proc.stdout.split()
    return hit == "True", digest


def test_the_python_package_compiles_once_across_processes(cache_env):
    """Note [Compile cache]: the package's in-process compiles use the
    persistent cache; source locations are not part of the key."""
    first_hit, first = _python_process(cache_env, 0)
    second_hit, second = _python_process(cache_env, 5)
    assert (first_hit, second_hit) == (False, True)
    assert first == second
    assert len(entries(cache_env)) == 1
    off_hit, off = _python_process(dict(cache_env, FUSION_CACHE="0"), 0)
    assert not off_hit and off == first
