"""Peers beyond torch: Liger-Kernel (Triton kernels) and QuACK (CuTe DSL
kernels), measured beside Fusion, eager and torch.compile in the same
process when their packages import (BENCHMARKS.md names both).

Each peer offers some cases. A case's entry is (prepare, call):
`prepare(*inputs)` turns the suite's inputs into the peer's arguments outside
the timed region (QuACK's layernorm takes its weight and bias in f32), and
`call(*args)` computes the case's outputs. Every peer result is checked
against torch eager with the case's tolerance before it is timed; a peer
that disagrees is reported as a mismatch, never as a time.

Install them where the suite runs: `pip install liger-kernel==0.8.5` (Triton,
torch) and `pip install quack-kernels==0.6.5` (nvidia-cutlass-dsl 4.8 and
apache-tvm-ffi). A peer that does not import is left out with its reason,
which the report prints.

Without an index, QuACK needs these wheels (CPython 3.12, x86_64, CUDA 13
driver): quack-kernels 0.6.5, nvidia-cutlass-dsl 4.8.1 (only a .pth file),
nvidia-cutlass-dsl-libs-core (the `cutlass` Python package: `cutlass_dsl`,
`cute`), -libs-base (`cutlass/_mlir`), -libs-cu13 (the compiler library,
92 MB), apache-tvm-ffi 0.1.x and cuda-pathfinder, plus the torch, triton and
cuda-bindings that torch brings. Installed with `pip install --target DIR`,
the .pth file is not read: put `DIR/nvidia_cutlass_dsl/dsl_packages` on
PYTHONPATH beside DIR.
"""

import importlib


class Peer:
    def __init__(self, name, version, cases):
        self.name = name
        self.version = version
        self.cases = cases  # case name -> (prepare, call)

    def offers(self, case_name):
        return case_name in self.cases


def _same(*inputs):
    return inputs


def _liger():
    import torch  # noqa: F401 (Liger needs it; fail here if absent)
    liger = importlib.import_module("liger_kernel")
    from liger_kernel.ops.cross_entropy import LigerCrossEntropyFunction
    from liger_kernel.ops.layer_norm import LigerLayerNormFunction
    from liger_kernel.ops.rms_norm import LigerRMSNormFunction
    from liger_kernel.ops.softmax import LigerSoftmaxFunction

    def ce(logits, target):
        # No gradient is asked for (logits do not require grad), so Liger's
        # kernel computes the loss only.
        return LigerCrossEntropyFunction.apply(logits, target, None, -100, 0.0,
                                               0.0, "none")[0]

    cases = {
        "softmax": (_same, lambda x: LigerSoftmaxFunction.apply(x)),
        "layernorm": (_same, lambda x, w, b: LigerLayerNormFunction.apply(x, w, b, 1e-5)),
        # casting_mode "gemma" computes everything in f32 and rounds once,
        # the case's definition (offset 0: the weight as it is); not in place.
        "rmsnorm": (_same, lambda x, w: LigerRMSNormFunction.apply(
            x, w, 1e-6, 0.0, "gemma", False)),
        "cross_entropy": (_same, ce),
    }
    return Peer("Liger", getattr(liger, "__version__", None) or _dist_version("liger-kernel"),
                cases)


def _quack():
    import torch
    quack = importlib.import_module("quack")
    from quack.cross_entropy import cross_entropy_fwd
    from quack.rmsnorm import layernorm_fwd, rmsnorm_fwd
    from quack.softmax import softmax_fwd

    def f32_params(x, *params):
        return (x,) + tuple(p.float() for p in params)

    cases = {
        "softmax": (_same, softmax_fwd),
        "rmsnorm": (_same, lambda x, w: rmsnorm_fwd(x, w, eps=1e-6)[0]),
        "rmsnorm_fp8": (_same, lambda x, w: rmsnorm_fwd(
            x, w, out_dtype=torch.float8_e4m3fn, eps=1e-6)[0]),
        # QuACK's layernorm takes f32 weight and bias.
        "layernorm": (f32_params, lambda x, w, b: layernorm_fwd(x, w, b, eps=1e-5)),
        "cross_entropy": (_same, lambda x, t: cross_entropy_fwd(x, t)),
    }
    return Peer("QuACK", getattr(quack, "__version__", None), cases)


def _dist_version(name):
    try:
        from importlib import metadata
        return metadata.version(name)
    except Exception:  # noqa: BLE001
        return None


LOADERS = (("Liger", _liger), ("QuACK", _quack))


def load(names=None):
    """(peers that import, {name: why not} for the others). names: the
    peers to try (None: all)."""
    peers, missing = [], {}
    for name, loader in LOADERS:
        if names is not None and name not in names:
            continue
        try:
            peers.append(loader())
        except Exception as e:  # noqa: BLE001 (an absent peer is reported)
            text = str(e).strip().splitlines()
            missing[name] = f"{type(e).__name__}: {text[0] if text else ''}"
    return peers, missing
