#!/usr/bin/env python3
"""Every op of the fusion dialect: a sample fusion each, and random definitions.

  python3 utils/opgen.py table [--write FILE | --check FILE]
      Compiles one sample fusion per op (two for the reductions: along the
      innermost dim and along the first) with `fusion-opt --fusion-decompose
      --fusion-segment --fusion-schedule` and to PTX with `fusion-translate
      --fusion-to-ptx --no-cubin`, and prints the table of docs/ops.md: each
      op, the kernels its sample becomes and their schedulers. --write
      replaces the table in FILE (between its BEGIN/END markers), --check
      fails when FILE's table differs from the one the compiler gives now.
      Fails when an op of the dialect (the headings of docs/dialect.md,
      generated from the .td) has neither a sample nor a place in
      HOST_OPS / KERNEL_LEVEL_OPS.

  python3 utils/opgen.py property [--count N] [--seed S] [--out DIR] [--jobs J]
      The property test of the segmenter and the lowering: N random
      definitions (chains of 3-12 ops over every user-level op, symbolic
      sizes, several outputs of different shapes) each compiled to PTX;
      prints the counts and exits 1 if any failed to compile (or an op was
      never drawn: op j of the list goes into definition j mod N, so every
      op is drawn). --out keeps the definitions and a `runs.txt` of
      fusion-run command lines, for running them against the interpreter on
      a GPU (`utils/opgen.py run DIR`).

  python3 utils/opgen.py run DIR [--limit K]
      Runs the first K definitions of DIR with fusion-run (GPU against the
      interpreter) and prints the counts.

  python3 utils/opgen.py chain --ops N [--seed S] [-o FILE]
      One long definition for compile-time measurements: element-wise ops
      with an inner reduction (sum or max, expanded back and added) about
      every 15th step, until the fusion has N fusion ops
      (bench/compile_time.py compiles chains of 100 and 500).

Tools come from --tools (default: $FUSION_TOOLS_DIR, else the directory of
the fusion-opt on PATH, else build/bin).
"""
import argparse
import concurrent.futures
import os
import pathlib
import random
import re
import shutil
import subprocess
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parent.parent

UNARY = ["abs", "ceil", "cos", "erf", "erfc", "exp", "exp2", "expm1", "floor",
         "log", "log1p", "log2", "neg", "reciprocal", "relu", "round", "rsqrt",
         "sigmoid", "sign", "silu", "sin", "sqrt", "tan", "tanh", "trunc",
         "gelu"]
# Ops whose operand must stay positive (they see abs(v) + 1).
POSITIVE = {"log", "log1p", "log2", "rsqrt", "sqrt", "reciprocal"}
# Ops whose result can grow without bound (tanh follows them).
UNBOUNDED = {"exp", "exp2", "expm1", "tan", "reciprocal", "div", "pow", "mul",
             "add", "sub", "fma", "sum", "prod", "fmod", "remainder", "atan2",
             "lerp"}
PREDICATES = ["isinf", "isnan"]
BINARY = ["add", "sub", "mul", "div", "atan2", "fmod", "maximum", "minimum",
          "pow", "remainder"]
COMPARE = ["eq", "ne", "lt", "le", "gt", "ge"]
LOGICAL = ["logical_and", "logical_or", "logical_xor"]
BITWISE = ["bitwise_and", "bitwise_or", "bitwise_xor", "shift_left",
           "shift_right"]
TERNARY = ["fma", "lerp", "clamp"]
REDUCTIONS = ["sum", "prod", "max", "min"]
COMPOSITES = ["softmax", "log_softmax", "layer_norm", "rms_norm"]
# Each of these is drawn as one step of a definition.
STEP_OPS = (UNARY + PREDICATES + BINARY + COMPARE + LOGICAL + ["logical_not"]
            + BITWISE + ["bitwise_not"] + TERNARY + ["where", "cast"]
            + REDUCTIONS + ["var_mean", "argmax", "argmin"] + COMPOSITES
            + ["broadcast_in_dim", "expand", "full", "permute", "squeeze",
               "reshape", "slice", "pad", "cat", "gather", "index_select",
               "iota", "rand", "randn"])
# Ops of the host program and of the lowering, not written by users in
# fusions' tensor work: they have no sample.
HOST_OPS = {
    "fusion": "a fusion definition",
    "return": "a fusion's results",
    "dim": "a size, computed on the host",
    "stride": "a stride, computed on the host",
    "empty": "an output or intermediate buffer (host program)",
    "kernel": "one GPU kernel (made by --fusion-segment)",
    "yield": "a kernel's results",
    "launch": "a kernel launch (host program)",
    "check": "a run-time check (host program)",
    "set": "a host-program scalar",
    "ptr_aligned": "an alignment guard (host program)",
    "tensor_map": "a tensor map for a kernel's bulk copies (host program; no scheduler "
                  "writes one yet)",
}
KERNEL_LEVEL_OPS = {
    "block_reduce": "reduction across a block (lowering)",
    "warp_reduce": "reduction across a warp (lowering)",
    "grid_reduce": "reduction across blocks (lowering)",
    "grid_arrive": "split-row arrival counter (lowering)",
    "reduce_yield": "terminator of the kernel-level reductions",
    "stage_load": "load from a staged row in shared memory (lowering)",
    "stage_store": "store to a staged row in shared memory (lowering)",
    "stage_copy": "cp.async of a row's vectors into shared memory, sm_80+ (inner-stage=2)",
    "stage_bulk_copy": "cp.async.bulk of a row's span into shared memory, completing on an mbarrier, sm_90+ (inner-stage=3)",
    "stage_commit": "closes a group of stage copies, sm_80+",
    "stage_wait": "waits for groups of stage copies, sm_80+",
    "bulk_tensor_load": "TMA tile load, sm_90+ (no scheduler uses it yet)",
    "bulk_tensor_store": "TMA tile store, sm_90+ (no scheduler uses it yet)",
    "bulk_commit_group": "closes a group of bulk stores, sm_90+",
    "bulk_wait_group": "waits for bulk store groups, sm_90+",
    "mbarrier_init": "mbarrier set-up, sm_90+",
    "mbarrier_arrive_expect_tx": "mbarrier arrival expecting bulk-copy bytes, sm_90+",
    "mbarrier_wait": "mbarrier phase wait, sm_90+",
    "fence_async_shared": "orders shared memory with the bulk copies, sm_90+",
    "prefetch_tensormap": "tensor map prefetch, sm_90+",
    "cluster_rank": "the block's rank in its cluster, sm_90+ (no scheduler uses it yet)",
    "cluster_reduce": "reduction across a cluster's blocks through distributed shared "
                      "memory (st.async and mbarriers in the row variants), sm_90+ "
                      "(the inner reduction's cluster variants, --inner-long-cluster and "
                      "--inner-cluster, both on by default)",
    "cluster_reduce_init": "prepares the mbarriers of cluster reductions, sm_90+ "
                           "(starts the inner reduction's cluster variants)",
}


def tools_dir(explicit):
    if explicit:
        return pathlib.Path(explicit)
    if os.environ.get("FUSION_TOOLS_DIR"):
        return pathlib.Path(os.environ["FUSION_TOOLS_DIR"])
    on_path = shutil.which("fusion-opt")
    if on_path:  # lit puts the tools on PATH
        return pathlib.Path(on_path).parent
    build = os.environ.get("FUSION_BUILD_DIR", str(ROOT / "build"))
    return pathlib.Path(build) / "bin"


class Def:
    """Builds the text of one fusion over x: ?x?xf32 (sizes %m, %n)."""

    def __init__(self, name, rng):
        self.name = name
        self.rng = rng
        self.lines = []
        self.count = 0
        self.inputs = [("x", "tensor<?x?xf32>", "MxN"),
                       ("y", "tensor<?x?xf32>", "MxN")]
        self.consts = {}
        self.full = {}  # value, row, col, i64 -> %name of pool values
        # "X": values the GPU and the interpreter compute bit for bit (the
        # inputs), for the casts that round: a float cast to i32, bf16 or
        # f16 turns a one-ulp difference of a libdevice function into a
        # whole step of the narrow type, past any float tolerance.
        self.pool = {"F": ["%x", "%y"], "X": ["%x", "%y"], "R": [], "I": [],
                     "B": []}
        self.core = None  # a reduction's own result and type (samples)
        self.used = set()
        self.read = set()
        self.outputs = []

    # --- text -------------------------------------------------------------
    def new(self):
        self.count += 1
        return f"%v{self.count}"

    def emit(self, text):
        self.lines.append("  " + text)

    def const(self, value, type_):
        key = (value, type_)
        if key not in self.consts:
            name = f"%c{len(self.consts)}"
            self.consts[key] = name
            self.emit(f"{name} = arith.constant {value} : {type_}")
        return self.consts[key]

    def input(self, name, type_, spec):
        if not any(n == name for n, _, _ in self.inputs):
            self.inputs.append((name, type_, spec))
        return "%" + name

    def splat(self, value, type_="f32"):
        """A ?x? tensor of `value`."""
        key = (value, type_)
        if key not in self.full:
            c = self.const(value, type_)
            v = self.new()
            self.emit(f"{v} = fusion.full {c} (%m, %n) : {type_} -> "
                      f"tensor<?x?x{type_}>")
            self.used.add("full")
            self.full[key] = v
        return self.full[key]

    F = "tensor<?x?xf32>"
    R = "tensor<?x1xf32>"

    def pick(self, kind="F"):
        v = self.rng.choice(self.pool[kind])
        self.read.add(v)
        return v

    def pick2(self, kind="F"):
        """Two different values when the pool has them (x op x folds)."""
        a = self.pick(kind)
        others = [v for v in self.pool[kind] if v != a]
        b = self.rng.choice(others) if others else a
        self.read.add(b)
        return a, b

    def add(self, kind, v):
        self.pool[kind].append(v)
        return v

    def squash(self, v):
        """tanh(v): keeps values in [-1, 1] after ops that can grow them."""
        t = self.new()
        self.emit(f"{t} = fusion.tanh {v} : {self.F}")
        return t

    def positive(self, v):
        a, p = self.new(), self.new()
        self.emit(f"{a} = fusion.abs {v} : {self.F}")
        self.emit(f"{p} = fusion.add {a}, {self.splat('1.0')} : {self.F}")
        return p

    def new_predicate(self):
        v = self.new()
        a, b = self.pick2()
        self.emit(f"{v} = fusion.gt {a}, {b} : {self.F}")
        self.used.add("gt")
        return self.add("B", v)

    def select(self, cond):
        """where(cond, a, b): a boolean's use."""
        self.read.add(cond)
        v = self.new()
        a, b = self.pick2()
        self.emit(f"{v} = fusion.where {cond}, {a}, {b} : "
                  f"tensor<?x?xi1>, {self.F}")
        self.used.add("where")
        return self.add("F", v)

    def back_to_full(self, r):
        """A ?x1 value expanded to ?x?, added to a ?x? value."""
        e, s = self.new(), self.new()
        self.emit(f"{e} = fusion.expand {r} (%m, %n) : {self.R} -> {self.F}")
        self.emit(f"{s} = fusion.add {self.pick()}, {e} : {self.F}")
        self.used.add("expand")
        return self.add("F", self.squash(s))

    # --- steps --------------------------------------------------------------
    def step(self, op, reduce_inner=None):
        F, R = self.F, self.R
        self.used.add(op)
        if op in UNARY:
            a = self.pick()
            if op in POSITIVE:
                a = self.positive(a)
            v = self.new()
            self.emit(f"{v} = fusion.{op} {a} : {F}")
            return self.add("F", self.squash(v) if op in UNBOUNDED else v)
        if op in PREDICATES:
            v = self.new()
            self.emit(f"{v} = fusion.{op} {self.pick()} : {F}")
            return self.select(self.add("B", v))
        if op in BINARY:
            a, b = self.pick2()
            if op in ("div", "fmod", "remainder"):
                b = self.positive(b)
            if op == "pow":
                a = self.positive(a)
            v = self.new()
            self.emit(f"{v} = fusion.{op} {a}, {b} : {F}")
            return self.add("F", self.squash(v) if op in UNBOUNDED else v)
        if op in COMPARE:
            v = self.new()
            a, b = self.pick2()
            self.emit(f"{v} = fusion.{op} {a}, {b} : {F}")
            return self.select(self.add("B", v))
        if op in LOGICAL or op == "logical_not":
            while len(self.pool["B"]) < 2:
                self.new_predicate()
            v = self.new()
            B = "tensor<?x?xi1>"
            if op == "logical_not":
                self.emit(f"{v} = fusion.logical_not {self.pick('B')} : {B}")
            else:
                a, b = self.pick2("B")
                self.emit(f"{v} = fusion.{op} {a}, {b} : {B}")
            return self.select(self.add("B", v))
        if op in BITWISE or op == "bitwise_not":
            if not self.pool["I"]:
                s, i = self.new(), self.new()
                self.emit(f"{s} = fusion.mul {self.pick('X')}, "
                          f"{self.splat('100.0')} : {F}")
                self.emit(f"{i} = fusion.cast {s} : {F} to tensor<?x?xi32>")
                self.used.add("cast")
                self.add("I", i)
            I = "tensor<?x?xi32>"
            v = self.new()
            if op == "bitwise_not":
                self.emit(f"{v} = fusion.bitwise_not {self.pick('I')} : {I}")
            elif op.startswith("shift"):
                self.emit(f"{v} = fusion.{op} {self.pick('I')}, "
                          f"{self.splat('3', 'i32')} : {I}")
            else:
                self.emit(f"{v} = fusion.{op} {self.pick('I')}, "
                          f"{self.pick('I')} : {I}")
            self.add("I", v)
            f, s = self.new(), self.new()
            self.emit(f"{f} = fusion.cast {v} : {I} to {F}")
            self.emit(f"{s} = fusion.mul {f}, {self.splat('1.0e-03')} : {F}")
            return self.add("F", self.squash(s))
        if op in TERNARY:
            v = self.new()
            if op == "clamp":
                lo, hi = self.splat("-0.5"), self.splat("0.75")
                self.emit(f"{v} = fusion.clamp {self.pick()}, {lo}, {hi} : {F}")
            else:
                self.emit(f"{v} = fusion.{op} {self.pick()}, {self.pick()}, "
                          f"{self.pick()} : {F}")
            return self.add("F", self.squash(v) if op in UNBOUNDED else v)
        if op == "where":
            if not self.pool["B"]:
                self.new_predicate()
            return self.select(self.pick("B"))
        if op == "cast":
            t = self.rng.choice(["bf16", "f16", "f64"])
            c, back = self.new(), self.new()
            # f32 -> f64 -> f32 is exact; the narrow types round.
            source = self.pick() if t == "f64" else self.pick("X")
            self.emit(f"{c} = fusion.cast {source} : {F} to "
                      f"tensor<?x?x{t}>")
            self.emit(f"{back} = fusion.cast {c} : tensor<?x?x{t}> to {F}")
            return self.add("F", back)
        if op in REDUCTIONS:
            v = self.new()
            a = self.pick()
            if op == "prod":
                a = self.squash(a)
            if reduce_inner is None:
                reduce_inner = self.rng.random() < 0.5
            if reduce_inner:
                self.emit(f"{v} = fusion.{op} {a} [1] keepdim : {F} -> {R}")
                self.core = (v, R)
                r = v
                if op in UNBOUNDED:
                    r = self.new()
                    self.emit(f"{r} = fusion.tanh {v} : {R}")
                self.add("R", r)
                return self.back_to_full(r)
            C = "tensor<1x?xf32>"
            self.emit(f"{v} = fusion.{op} {a} [0] keepdim : {F} -> {C}")
            self.core = (v, C)
            e = self.new()
            self.emit(f"{e} = fusion.expand {v} (%m, %n) : {C} -> {F}")
            self.used.add("expand")
            return self.add("F", self.squash(e) if op in UNBOUNDED else e)
        if op == "var_mean":
            var, mean = self.new(), self.new()
            self.emit(f"{var}, {mean} = fusion.var_mean {self.pick()} [1] "
                      f"correction = 1 keepdim : {F} -> {R}")
            self.core = (var, R)
            t = self.new()
            self.emit(f"{t} = fusion.tanh {var} : {R}")
            self.add("R", mean)
            return self.back_to_full(t)
        if op in ("argmax", "argmin"):
            a, g = self.new(), self.new()
            src = self.pick()
            self.emit(f"{a} = fusion.{op} {src} dim = 1 keepdim : {F} -> "
                      "tensor<?x1xi64>")
            # The value at the extreme: a per-row gather (a row kernel's).
            self.emit(f"{g} = fusion.gather {src}, {a} dim = 1 : {F}, "
                      f"tensor<?x1xi64> -> {R}")
            self.core = (g, R)
            self.used.add("gather")
            self.add("R", g)
            return self.back_to_full(g)
        if op in COMPOSITES:
            v = self.new()
            if op in ("softmax", "log_softmax"):
                self.emit(f"{v} = fusion.{op} {self.pick()} dim = 1 : {F}")
            else:
                self.emit(f"{v} = fusion.{op} {self.pick()} axis = 1 "
                          f"eps = 1.0e-05 : {F}")
            return self.add("F", self.squash(v) if op != "softmax" else v)
        if op == "broadcast_in_dim":
            b = self.input("b", "tensor<?xf32>", "N")
            v = self.new()
            self.emit(f"{v} = fusion.broadcast_in_dim {b} [1] (%m, %n) : "
                      f"tensor<?xf32> -> {F}")
            s = self.new()
            self.emit(f"{s} = fusion.mul {self.pick()}, {v} : {F}")
            return self.add("F", s)
        if op == "expand":
            if not self.pool["R"]:
                return self.step("max", reduce_inner=True)
            return self.back_to_full(self.pick("R"))
        if op == "full":
            c = self.const(f"{self.rng.choice([0.25, -1.5, 3.0])}", "f32")
            v, s = self.new(), self.new()
            self.emit(f"{v} = fusion.full {c} (%m, %n) : f32 -> {F}")
            self.emit(f"{s} = fusion.sub {self.pick()}, {v} : {F}")
            return self.add("F", s)
        if op == "permute":
            p, u, q = self.new(), self.new(), self.new()
            self.emit(f"{p} = fusion.permute {self.pick()} [1, 0] : {F} -> {F}")
            self.emit(f"{u} = fusion.sin {p} : {F}")
            self.emit(f"{q} = fusion.permute {u} [1, 0] : {F} -> {F}")
            return self.add("F", q)
        if op == "squeeze":
            if not self.pool["R"]:
                self.step("min", reduce_inner=True)
            s, b = self.new(), self.new()
            self.emit(f"{s} = fusion.squeeze {self.pick('R')} [1] : {R} -> "
                      "tensor<?xf32>")
            self.emit(f"{b} = fusion.broadcast_in_dim {s} [0] (%m, %n) : "
                      f"tensor<?xf32> -> {F}")
            self.used.add("broadcast_in_dim")
            a = self.new()
            self.emit(f"{a} = fusion.add {self.pick()}, {b} : {F}")
            return self.add("F", self.squash(a))
        if op == "reshape":
            mn = self.const_index_product()
            flat, u, back = self.new(), self.new(), self.new()
            self.emit(f"{flat} = fusion.reshape {self.pick()} ({mn}) : {F} -> "
                      "tensor<?xf32>")
            self.emit(f"{u} = fusion.cos {flat} : tensor<?xf32>")
            self.emit(f"{back} = fusion.reshape {u} (%m, %n) : tensor<?xf32> "
                      f"-> {F}")
            return self.add("F", back)
        if op in ("slice", "pad"):
            # Shift the columns by one: slice off column 0, pad one column.
            c0, c1 = self.const("0", "index"), self.const("1", "index")
            s, p = self.new(), self.new()
            zero = self.const("0.0", "f32")
            self.emit(f"{s} = fusion.slice {self.pick()} [{c0}, {c1}] "
                      f"[%m, %n] [{c1}, {c1}] : {F} -> {F}")
            self.emit(f"{p} = fusion.pad {s}, {zero} low [0, 1] high [0, 0] : "
                      f"{F}, f32 -> {F}")
            self.used.update({"slice", "pad"})
            return self.add("F", p)
        if op == "cat":
            # Rotate the columns by one: column 0 after the others.
            c0, c1 = self.const("0", "index"), self.const("1", "index")
            src = self.pick()
            a, b, c = self.new(), self.new(), self.new()
            self.emit(f"{a} = fusion.slice {src} [{c0}, {c1}] [%m, %n] "
                      f"[{c1}, {c1}] : {F} -> {F}")
            self.emit(f"{b} = fusion.slice {src} [{c0}, {c0}] [%m, {c1}] "
                      f"[{c1}, {c1}] : {F} -> {F}")
            self.emit(f"{c} = fusion.cat {a}, {b} dim = 1 : {F}, {F} -> {F}")
            self.used.add("slice")
            return self.add("F", c)
        if op in ("gather", "index_select"):
            # Indices: abs() of an input (in range for extents above 50).
            name, itype, spec, dim = (
                ("gi", "tensor<?x?xi64>", "MxN", 1) if op == "gather"
                else ("si", "tensor<?xi64>", "M", 0))
            idx = self.input(name, itype, spec)
            a, g = self.new(), self.new()
            self.emit(f"{a} = fusion.abs {idx} : {itype}")
            self.emit(f"{g} = fusion.{op} {self.pick()}, {a} dim = {dim} : "
                      f"{F}, {itype} -> {F}")
            return self.add("F", g)
        if op == "iota":
            start, stepc = self.const("0.5", "f32"), self.const("1.0e-03", "f32")
            i, b, s = self.new(), self.new(), self.new()
            self.emit(f"{i} = fusion.iota {start}, {stepc} (%n) : f32 -> "
                      "tensor<?xf32>")
            self.emit(f"{b} = fusion.broadcast_in_dim {i} [1] (%m, %n) : "
                      f"tensor<?xf32> -> {F}")
            self.emit(f"{s} = fusion.add {self.pick()}, {b} : {F}")
            self.used.add("broadcast_in_dim")
            return self.add("F", self.squash(s))
        if op in ("rand", "randn"):
            seed = self.input("seed", "i64", "7")
            offset = self.input("offset", "i64", "3")
            u, s = self.new(), self.new()
            self.emit(f"{u} = fusion.{op} {seed}, {offset} (%m, %n) : {F}")
            self.emit(f"{s} = fusion.mul {self.pick()}, {u} : {F}")
            return self.add("F", self.squash(s))
        raise ValueError(f"no step for {op}")

    def const_index_product(self):
        if "mn" not in self.consts:
            self.consts["mn"] = "%mn"
            self.emit("%mn = arith.muli %m, %n : index")
        return "%mn"

    def finish(self):
        """Adds every value nothing reads into the last one, so that no step
        is dead code; that sum is the first result."""
        leaves = [v for v in self.pool["F"][:-1] if v not in self.read]
        last = self.pool["F"][-1]
        for v in leaves:
            a = self.new()
            self.emit(f"{a} = fusion.add {last}, {v} : {self.F}")
            last = a
        self.read.update(leaves)
        self.outputs = [(last, self.F)]

    # --- the fusion -------------------------------------------------------
    def text(self):
        results = self.outputs or [(self.pool["F"][-1], self.F)]
        args = ", ".join(f"%{n}: {t}" for n, t, _ in self.inputs)
        rtypes = ", ".join(t for _, t in results)
        head = [f"fusion.fusion @{self.name}({args}) -> ({rtypes}) {{",
                "  %m = fusion.dim %x, 0 : tensor<?x?xf32>",
                "  %n = fusion.dim %x, 1 : tensor<?x?xf32>"]
        ret = (f"  fusion.return {', '.join(v for v, _ in results)} : "
               f"{rtypes}")
        return "\n".join(head + self.lines + [ret, "}"]) + "\n"

    def run_inputs(self, m, n):
        out = []
        for _, _, spec in self.inputs:
            out.append(spec.replace("M", str(m)).replace("N", str(n)))
        return out


def random_definition(name, rng, forced=()):
    """A random chain of 3-12 steps, `forced` ops among them at random
    places (cmd_property spreads every op of STEP_OPS over its definitions,
    so that each is drawn whatever the count)."""
    d = Def(name, rng)
    steps = [rng.choice(STEP_OPS) for _ in range(rng.randint(3, 12))]
    for op in forced:
        steps.insert(rng.randint(0, len(steps)), op)
    for op in steps:
        d.step(op)
    d.finish()
    # Results of other shapes and intermediate values as results too.
    if d.pool["R"] and rng.random() < 0.5:
        d.outputs.append((rng.choice(d.pool["R"]), Def.R))
    if len(d.pool["F"]) > 2 and rng.random() < 0.3:
        d.outputs.append((d.pool["F"][-2], Def.F))
    return d


# Element-wise steps of a chain (no index, random or shape ops: a chain is a
# long run of the work users' fusions are made of).
CHAIN_STEPS = UNARY + BINARY + TERNARY + COMPARE + ["where"]
CHAIN_REDUCTIONS = ["sum", "max"]


def count_ops(d):
    return sum(1 for line in d.lines if "= fusion." in line)


def chain_definition(name, rng, ops):
    """A definition of about `ops` fusion ops (never fewer): element-wise
    steps and, about every 15th step, an inner reduction expanded back."""
    d = Def(name, rng)
    # finish() adds one op per value nothing reads yet.
    while count_ops(d) + sum(1 for v in d.pool["F"][:-1]
                             if v not in d.read) < ops:
        if rng.random() < 1 / 15:
            d.step(rng.choice(CHAIN_REDUCTIONS), reduce_inner=True)
        else:
            d.step(rng.choice(CHAIN_STEPS))
    d.finish()
    return d


# --- the op table -----------------------------------------------------------
def samples():
    """(op, label, Def) for every op with a step; reductions twice."""
    out = []
    for op in STEP_OPS:
        if op in REDUCTIONS:
            for inner, label in ((True, "innermost dim"), (False, "first dim")):
                d = Def(f"{op}_{int(inner)}", random.Random(0))
                d.step(op, reduce_inner=inner)
                d.outputs = [d.core]
                out.append((op, label, d))
            continue
        d = Def(op, random.Random(0))
        d.step(op)
        d.outputs = [d.core or (d.pool["F"][-1], Def.F)]
        out.append((op, "", d))
    return out


SCHED_RE = re.compile(r"kernel @(\w+) schedule = #fusion\.(\w+)<")


def run_tool(args):
    return subprocess.run(args, capture_output=True, text=True, timeout=600)


def compile_sample(tools, d):
    with tempfile.TemporaryDirectory(prefix="opgen-") as tmp:
        path = pathlib.Path(tmp) / f"{d.name}.mlir"
        path.write_text(d.text())
        opt = run_tool([str(tools / "fusion-opt"), str(path),
                        "--fusion-decompose", "--fusion-segment",
                        "--fusion-schedule"])
        if opt.returncode != 0:
            return None, first_error(opt.stderr)
        kinds = [k for _, k in SCHED_RE.findall(opt.stdout)]
        ptx = run_tool([str(tools / "fusion-translate"), str(path),
                        "--fusion-to-ptx", "--no-cubin", "-o", os.devnull])
        if ptx.returncode != 0:
            return kinds, first_error(ptx.stderr)
        return kinds, None


def first_error(text):
    for line in text.splitlines():
        if "error" in line:
            return line.strip()
    return text.strip().splitlines()[0] if text.strip() else "failed"


def dialect_ops():
    text = (ROOT / "docs" / "dialect.md").read_text()
    return sorted(set(re.findall(r"^### `fusion\.(\w+)`", text, re.M)))


def describe(kinds):
    names = {"pointwise": "pointwise", "inner_reduction": "inner reduction",
             "outer_reduction": "outer reduction"}
    parts = []
    for k in kinds:
        parts.append(names.get(k, k))
    return f"{len(kinds)}: " + ", ".join(parts)


def make_table(tools, jobs):
    rows, errors = [], []
    all_samples = samples()
    with concurrent.futures.ThreadPoolExecutor(jobs) as pool:
        results = list(pool.map(lambda s: compile_sample(tools, s[2]),
                                all_samples))
    by_op = {}
    for (op, label, _), (kinds, err) in zip(all_samples, results):
        if err:
            errors.append(f"{op} ({label or 'sample'}): {err}")
            status = "does not compile"
        else:
            status = describe(kinds)
        by_op.setdefault(op, []).append((label, status))
    lines = ["| op | kernels of its sample: count, schedulers |",
             "| --- | --- |"]
    for op in sorted(set(dialect_ops()) | set(by_op)):
        if op in by_op:
            cells = "; ".join(f"{label}: {s}" if label else s
                              for label, s in by_op[op])
            lines.append(f"| `{op}` | {cells} |")
        elif op in HOST_OPS:
            lines.append(f"| `{op}` | host: {HOST_OPS[op]} |")
        elif op in KERNEL_LEVEL_OPS:
            lines.append(f"| `{op}` | kernel level: {KERNEL_LEVEL_OPS[op]} |")
        else:
            errors.append(f"{op}: in the dialect but without a sample")
            lines.append(f"| `{op}` | no sample |")
    return "\n".join(lines) + "\n", errors


BEGIN = "<!-- BEGIN op table: python3 utils/opgen.py table --write docs/ops.md -->\n"
END = "<!-- END op table -->\n"


def cmd_table(args):
    tools = tools_dir(args.tools)
    table, errors = make_table(tools, args.jobs)
    for e in errors:
        print(f"opgen: {e}", file=sys.stderr)
    if args.write or args.check:
        path = pathlib.Path(args.write or args.check)
        text = path.read_text()
        if BEGIN not in text or END not in text:
            print(f"opgen: {path} has no op table markers", file=sys.stderr)
            return 1
        head, rest = text.split(BEGIN, 1)
        _, tail = rest.split(END, 1)
        new = head + BEGIN + table + END + tail
        if args.write:
            path.write_text(new)
        elif new != text:
            print(f"opgen: the op table of {path} is out of date: run "
                  f"python3 utils/opgen.py table --write {path}",
                  file=sys.stderr)
            return 1
    else:
        sys.stdout.write(table)
    return 1 if errors else 0


# --- the property test --------------------------------------------------------
def compile_definition(tools, path):
    # --verify-each: a pass that leaves invalid IR is named by the verifier.
    r = run_tool([str(tools / "fusion-translate"), str(path),
                  "--fusion-to-ptx", "--no-cubin", "--verify-each",
                  "-o", os.devnull])
    return None if r.returncode == 0 else first_error(r.stderr)


ROUNDING_CAST_RE = re.compile(
    r"^\s*(%\w+) = fusion\.cast (%\w+) : tensor<\?x\?xf32> to "
    r"tensor<\?x\?x(?:i32|bf16|f16)>", re.M)
DEF_RE = re.compile(r"^\s*(%\w+) = (.*)$", re.M)


def rounding_casts(text):
    """(all, inexact): the f32 casts to i32, bf16 or f16 of a definition, and
    those whose operand is not an input or an input times a constant (the
    "X" pool: values the GPU and the interpreter compute bit for bit)."""
    defs = {name: rhs for name, rhs in DEF_RE.findall(text)}
    casts, inexact = [], []
    for result, operand in ROUNDING_CAST_RE.findall(text):
        casts.append(result)
        if operand in ("%x", "%y"):
            continue
        rhs = defs.get(operand, "")
        if not re.match(r"fusion\.mul %[xy], ", rhs):
            inexact.append(f"{result} = cast {operand}")
    return casts, inexact


def cmd_property(args):
    tools = tools_dir(args.tools)
    rng = random.Random(args.seed)
    # Op j of STEP_OPS is forced into definition j mod count.
    defs = [random_definition(f"prop{i}", rng, STEP_OPS[i::args.count])
            for i in range(args.count)]
    drawn = set().union(*(d.used for d in defs))
    out = pathlib.Path(args.out) if args.out else None
    tmp = None
    if out is None:
        tmp = tempfile.TemporaryDirectory(prefix="opgen-prop-")
        out = pathlib.Path(tmp.name)
    out.mkdir(parents=True, exist_ok=True)
    paths = []
    for d in defs:
        p = out / f"{d.name}.mlir"
        p.write_text(d.text())
        paths.append(p)
    # Sizes for runs: at least 51 rows and columns (the gathers' indices are
    # abs() of fusion-run's integers, up to 50), odd.
    with open(out / "runs.txt", "w") as f:
        for d, p in zip(defs, paths):
            m, n = rng.choice([(51, 51), (77, 1001), (257, 4099), (64, 4096)])
            inputs = " ".join(f"--input={s}" for s in d.run_inputs(m, n))
            f.write(f"{p.name} {inputs}\n")
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        errors = list(pool.map(lambda p: compile_definition(tools, p), paths))
    failed = [(p, e) for p, e in zip(paths, errors) if e]
    ops = sum(len(d.lines) for d in defs)
    casts, inexact = 0, []
    for d in defs:
        all_casts, bad = rounding_casts(d.text())
        casts += len(all_casts)
        inexact += [f"{d.name}: {b}" for b in bad]
    print(f"opgen property: {casts} rounding casts, {len(inexact)} of "
          f"computed values")
    for b in inexact:
        print(f"  INEXACT CAST {b}")
    print(f"opgen property: {len(defs)} definitions generated (seed "
          f"{args.seed}, {ops} lines of IR), {len(defs) - len(failed)} "
          f"compiled to PTX, {len(failed)} failed; {len(drawn)} of "
          f"{len(STEP_OPS)} ops drawn")
    for p, e in failed:
        print(f"  FAIL {p.name}: {e}")
        if args.verbose:
            print(p.read_text())
    missing = sorted(set(STEP_OPS) - drawn)
    if missing:
        print(f"  never drawn: {', '.join(missing)}")
    return 1 if failed or missing or inexact else 0


def cmd_run(args):
    tools = tools_dir(args.tools)
    out = pathlib.Path(args.dir)
    lines = (out / "runs.txt").read_text().splitlines()[:args.limit]
    passed, failed = 0, []
    for line in lines:
        name, *inputs = line.split()
        r = run_tool([str(tools / "fusion-run"), str(out / name),
                      "--atol=1e-3", "--rtol=1e-3", *inputs])
        status = r.stdout.strip().splitlines()[-1] if r.stdout.strip() else ""
        if r.returncode == 0 and status.startswith("PASS"):
            passed += 1
        else:
            failed.append((name, (r.stdout + r.stderr).strip()[-600:]))
    print(f"opgen run: {len(lines)} definitions run on the GPU against the "
          f"interpreter, {passed} passed, {len(failed)} failed")
    for name, text in failed:
        print(f"  FAIL {name}:\n    " + text.replace("\n", "\n    "))
    return 1 if failed else 0


def cmd_chain(args):
    d = chain_definition(f"chain{args.ops}", random.Random(args.seed), args.ops)
    text = d.text()
    if args.output:
        pathlib.Path(args.output).write_text(text)
    else:
        sys.stdout.write(text)
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tools", help="directory of fusion-opt, fusion-translate")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    sub = ap.add_subparsers(dest="cmd", required=True)
    t = sub.add_parser("table")
    g = t.add_mutually_exclusive_group()
    g.add_argument("--write")
    g.add_argument("--check")
    p = sub.add_parser("property")
    p.add_argument("--count", type=int, default=100)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--out")
    p.add_argument("--verbose", action="store_true")
    r = sub.add_parser("run")
    r.add_argument("dir")
    r.add_argument("--limit", type=int, default=1 << 30)
    c = sub.add_parser("chain")
    c.add_argument("--ops", type=int, required=True)
    c.add_argument("--seed", type=int, default=1)
    c.add_argument("-o", "--output")
    args = ap.parse_args()
    return {"table": cmd_table, "property": cmd_property,
            "run": cmd_run, "chain": cmd_chain}[args.cmd](args)


if __name__ == "__main__":
    sys.exit(main())
