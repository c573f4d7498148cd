"""Triton kernels for bench/compile_time.py: the same work as the suite's
softmax, layernorm, rmsnorm and add_relu definitions, written the way a
Triton user writes them (one program per row for the row kernels, the row
length a constexpr block), so that their compile time can be put beside
Fusion's. Imported only by the Triton worker of compile_time.py: nothing
else here needs Triton.

Triton specializes on the row length (BLOCK = the next power of two of N),
where a Fusion definition has symbolic sizes and covers every N with one
module: each Triton compile below is the kernel for N = ROW (4096, the
first public shape).
"""

import triton
import triton.language as tl

ROW = 4096


@triton.jit
def softmax_kernel(out_ptr, in_ptr, stride, n, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n
    x = tl.load(in_ptr + row * stride + cols, mask=mask,
                other=-float("inf")).to(tl.float32)
    e = tl.exp(x - tl.max(x, axis=0))
    y = e / tl.sum(e, axis=0)
    tl.store(out_ptr + row * stride + cols, y.to(tl.bfloat16), mask=mask)


@triton.jit
def layernorm_kernel(out_ptr, in_ptr, w_ptr, b_ptr, stride, n, eps,
                     BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n
    x = tl.load(in_ptr + row * stride + cols, mask=mask, other=0.0).to(tl.float32)
    mean = tl.sum(x, axis=0) / n
    d = tl.where(mask, x - mean, 0.0)
    rstd = 1.0 / tl.sqrt(tl.sum(d * d, axis=0) / n + eps)
    w = tl.load(w_ptr + cols, mask=mask, other=0.0).to(tl.float32)
    b = tl.load(b_ptr + cols, mask=mask, other=0.0).to(tl.float32)
    y = d * rstd * w + b
    tl.store(out_ptr + row * stride + cols, y.to(tl.bfloat16), mask=mask)


@triton.jit
def rmsnorm_kernel(out_ptr, in_ptr, w_ptr, stride, n, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n
    x = tl.load(in_ptr + row * stride + cols, mask=mask, other=0.0).to(tl.float32)
    rstd = 1.0 / tl.sqrt(tl.sum(x * x, axis=0) / n + eps)
    w = tl.load(w_ptr + cols, mask=mask, other=0.0).to(tl.float32)
    tl.store(out_ptr + row * stride + cols, (x * rstd * w).to(tl.bfloat16),
             mask=mask)


@triton.jit
def add_relu_kernel(out_ptr, a_ptr, b_ptr, numel, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < numel
    a = tl.load(a_ptr + offs, mask=mask)
    b = tl.load(b_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, tl.maximum(a + b, 0.0), mask=mask)


# case -> (kernel, signature, constexprs, num_warps)
KERNELS = {
    "softmax": (softmax_kernel,
                {"out_ptr": "*bf16", "in_ptr": "*bf16", "stride": "i32",
                 "n": "i32", "BLOCK": "constexpr"}, {"BLOCK": ROW}, 8),
    "layernorm": (layernorm_kernel,
                  {"out_ptr": "*bf16", "in_ptr": "*bf16", "w_ptr": "*bf16",
                   "b_ptr": "*bf16", "stride": "i32", "n": "i32",
                   "eps": "fp32", "BLOCK": "constexpr"}, {"BLOCK": ROW}, 8),
    "rmsnorm": (rmsnorm_kernel,
                {"out_ptr": "*bf16", "in_ptr": "*bf16", "w_ptr": "*bf16",
                 "stride": "i32", "n": "i32", "eps": "fp32",
                 "BLOCK": "constexpr"}, {"BLOCK": ROW}, 8),
    "add_relu": (add_relu_kernel,
                 {"out_ptr": "*fp32", "a_ptr": "*fp32", "b_ptr": "*fp32",
                  "numel": "i32", "BLOCK": "constexpr"}, {"BLOCK": 1024}, 4),
}
