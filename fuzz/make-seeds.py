#!/usr/bin/env python3
"""Makes the seed corpora of the fuzz targets (docs/fuzzing.md).

  python3 fuzz/make-seeds.py compile OUT_DIR
      IR text for fusion-fuzz-compile: every test/**/*.mlir,
      examples/**/*.mlir and bench/cases/*.mlir, split at `// -----`, with
      full-line `//` comments (RUN and CHECK lines) dropped; a part with
      several fusions also gives one seed per fusion (and stays whole only
      when it has two at most).
  python3 fuzz/make-seeds.py module OUT_DIR --translate build/bin/fusion-translate [--jobs N]
      Module files for fusion-fuzz-module: each fusion of examples/**/*.mlir
      and bench/cases/*.mlir through `fusion-translate --fusion-to-module`,
      with cubins (when ptxas is there) and without (--no-cubin), and each
      fusion of test/GPU/*.mlir without cubins; the normalization examples
      with the cluster rows variant too (--inner-cluster=8) and with
      deferred kernels (--defer-kernels=all and =fallbacks), and the
      hand-written lowered modules of test/GPU (tma.mlir: tensor maps;
      cluster.mlir: a cluster launch) through --lowered-to-module. Fusions
      the compiler rejects are skipped.

Each seed is named by the SHA-1 of its bytes, as libFuzzer names corpus files,
so equal seeds are written once. OUT_DIR is created; files already there stay.
"""
import argparse
import concurrent.futures
import hashlib
import pathlib
import re
import subprocess
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parent.parent
MAX_SEED_BYTES = 64 * 1024  # fusion-fuzz-compile skips larger inputs
FUSION_RE = re.compile(r"^fusion\.fusion @([A-Za-z0-9_]+)", re.M)


def write_seed(out: pathlib.Path, data: bytes) -> bool:
    path = out / hashlib.sha1(data).hexdigest()
    if path.exists():
        return False
    path.write_bytes(data)
    return True


def ir_sources():
    files = set(ROOT.glob("test/**/*.mlir"))
    files |= set(ROOT.glob("examples/**/*.mlir"))
    files |= set(ROOT.glob("bench/cases/*.mlir"))
    return sorted(files)


def split_fusions(text: str):
    """The top-level `fusion.fusion` ops of `text`, each up to its closing
    `}` at the start of a line."""
    fusions = []
    current = None
    for line in text.splitlines():
        if line.startswith("fusion.fusion "):
            current = [line]
        elif current is not None:
            current.append(line)
            if line.startswith("}"):
                fusions.append("\n".join(current) + "\n")
                current = None
    return fusions


def compile_seeds(out: pathlib.Path) -> int:
    count = 0
    for f in ir_sources():
        text = f.read_text(encoding="utf-8", errors="replace")
        for chunk in re.split(r"^// -----.*$", text, flags=re.M):
            lines = [l for l in chunk.splitlines() if not l.lstrip().startswith("//")]
            seed = "\n".join(lines).strip() + "\n"
            if not seed.strip():
                continue
            # Each fusion alone is a cheaper input to mutate than a file of
            # twenty; small chunks stay whole too (an invalid test may need
            # two ops, e.g. a duplicate symbol).
            fusions = split_fusions(seed)
            seeds = fusions if len(fusions) > 1 else []
            if len(fusions) <= 2:
                seeds.append(seed)
            for one in seeds:
                data = one.encode()
                if len(data) <= MAX_SEED_BYTES:
                    count += write_seed(out, data)
    return count


# Lowered modules of test/GPU and the definitions they are checked against
# (fusion-translate --lowered-to-module, Note [Lowered modules]).
LOWERED = [("test/GPU/tma.mlir", "test/GPU/Inputs/tma-double.mlir"),
           ("test/GPU/cluster.mlir", "test/GPU/Inputs/row-sum.mlir")]


def module_seeds(out: pathlib.Path, translate: str, jobs: int) -> int:
    jobs_list = []  # (file, fusion, mode and extra args)
    module = ["--fusion-to-module"]
    for pattern in ("examples/**/*.mlir", "bench/cases/*.mlir"):
        for f in sorted(ROOT.glob(pattern)):
            for name in FUSION_RE.findall(f.read_text()):
                jobs_list.append((f, name, module))
                jobs_list.append((f, name, module + ["--no-cubin"]))
    for f in sorted(ROOT.glob("examples/normalization/*.mlir")):
        for name in FUSION_RE.findall(f.read_text()):
            jobs_list.append((f, name, module + ["--no-cubin",
                                                 "--inner-cluster=8"]))
            # Deferred kernels (format 4: kernels without code, the
            # compile options): loaded, planned, and launched without a
            # kernel builder (a KernelNotBuilt error).
            jobs_list.append((f, name, module + ["--no-cubin",
                                                 "--defer-kernels=all"]))
            jobs_list.append((f, name, module + ["--no-cubin",
                                                 "--defer-kernels=fallbacks"]))
    for f in sorted(ROOT.glob("test/GPU/*.mlir")):
        for name in FUSION_RE.findall(f.read_text()):
            jobs_list.append((f, name, module + ["--no-cubin"]))
    for lowered, definition in LOWERED:
        f = ROOT / lowered
        # (Their fusions are indented: inside a module with the kernels.)
        for name in re.findall(r"^\s*fusion\.fusion @(\w+)", f.read_text(), re.M):
            jobs_list.append((f, name, ["--lowered-to-module", "--no-cubin",
                                        f"--definition={ROOT / definition}"]))
    tmp = tempfile.TemporaryDirectory()

    def compile_one(index_job):
        index, (f, name, extra) = index_job
        result = pathlib.Path(tmp.name) / f"{index}.fusionmod"
        cmd = [translate, str(f), f"--fusion={name}",
               "-o", str(result)] + extra
        run = subprocess.run(cmd, stdout=subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL)
        if run.returncode != 0 or not result.exists():
            return None
        data = result.read_bytes()
        result.unlink()
        return data

    count = 0
    failed = 0
    with tmp, concurrent.futures.ThreadPoolExecutor(max(1, jobs)) as pool:
        for data in pool.map(compile_one, enumerate(jobs_list)):
            if data is None:
                failed += 1
            else:
                count += write_seed(out, data)
    if failed:
        print(f"make-seeds: {failed} of {len(jobs_list)} fusions did not compile "
              "to a module file (skipped)", file=sys.stderr)
    return count


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("kind", choices=["compile", "module"])
    parser.add_argument("out", type=pathlib.Path)
    parser.add_argument("--translate", default=str(ROOT / "build/bin/fusion-translate"))
    parser.add_argument("--jobs", type=int, default=1,
                        help="fusion-translate processes at once")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    if args.kind == "compile":
        n = compile_seeds(args.out)
    else:
        if not pathlib.Path(args.translate).is_file():
            print(f"make-seeds: no {args.translate}: no module seeds",
                  file=sys.stderr)
            return 1
        n = module_seeds(args.out, args.translate, args.jobs)
    total = sum(1 for _ in args.out.iterdir())
    print(f"make-seeds: {args.kind}: {n} new seeds, {total} in {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
