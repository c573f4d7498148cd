"""GPU tests of FusionDefinition.execute on torch CUDA tensors: compiled by
fusion-translate, run by the runtime, checked against torch eager. Skipped
without torch or a CUDA device."""
import pytest

torch = pytest.importorskip("torch", reason="GPU tests need PyTorch")
if not torch.cuda.is_available():
    pytest.skip("GPU tests need a CUDA device (torch.cuda.is_available() is False)",
                allow_module_level=True)

import torch.nn.functional as F  # noqa: E402

from fusion import (DataType, FusionDefinition, FusionInputError,  # noqa: E402
                    cache_stats, find_tool)


@pytest.fixture(autouse=True)
def _needs_tools():
    if find_tool("fusion-translate", required=False) is None:
        pytest.skip("fusion-translate not found (set FUSION_TOOLS_DIR)")


def add_relu_fd():
    with FusionDefinition("add_relu") as fd:
        a = fd.define_tensor([-1, -1], DataType.Float32, name="a")
        b = fd.define_tensor([-1, -1], DataType.Float32, name="b")
        fd.add_output(fd.ops.relu(fd.ops.add(a, b)))
    return fd


def test_add_relu():
    a = torch.randn(1000, 513, device="cuda")
    b = torch.randn(1000, 513, device="cuda")
    (out,) = add_relu_fd().execute([a, b])
    assert out.is_cuda and out.dtype == torch.float32 and out.shape == a.shape
    torch.testing.assert_close(out, torch.relu(a + b))


def test_gelu_bias_bf16():
    with FusionDefinition("gelu_bias") as fd:
        x = fd.define_tensor([-1, -1], "bf16", name="x")
        bias = fd.define_tensor([-1], "bf16", name="bias")
        fd.add_output(fd.ops.gelu(fd.ops.add(x, bias), approximate="tanh"))
    x = torch.randn(256, 1024, device="cuda", dtype=torch.bfloat16)
    bias = torch.randn(1024, device="cuda", dtype=torch.bfloat16)
    (out,) = fd.execute([x, bias])
    assert out.dtype == torch.bfloat16
    torch.testing.assert_close(out, F.gelu(x + bias, approximate="tanh"),
                               atol=2e-2, rtol=2e-2)


def test_broadcast_and_promotion():
    with FusionDefinition("bcast") as fd:
        x = fd.define_tensor([-1, -1], "f16")
        v = fd.define_tensor([-1, 1], "f32")
        fd.add_output(fd.ops.mul(fd.ops.add(x, v), 0.5))
    x = torch.randn(64, 96, device="cuda", dtype=torch.float16)
    v = torch.randn(64, 1, device="cuda")
    (out,) = fd.execute([x, v])
    assert out.dtype == torch.float32
    torch.testing.assert_close(out, (x + v) * 0.5)


def test_non_contiguous_inputs():
    a = torch.randn(300, 200, device="cuda").t()          # transposed
    b = torch.randn(200, 600, device="cuda")[:, ::2]      # strided
    (out,) = add_relu_fd().execute([a, b])
    torch.testing.assert_close(out, torch.relu(a + b))


def test_schedule_override():
    a = torch.randn(4096, 33, device="cuda")
    (out,) = add_relu_fd().execute([a, a], schedule={"unroll": 2, "blocks_per_sm": 2})
    torch.testing.assert_close(out, torch.relu(a + a))


def test_wrong_device_and_dtype():
    fd = add_relu_fd()
    a = torch.randn(8, 8, device="cuda")
    with pytest.raises(FusionInputError, match="several devices"):
        fd.execute([a, torch.randn(8, 8)])
    with pytest.raises(FusionInputError, match="expected dtype f32, got float16"):
        fd.execute([a, a.half()])
    with pytest.raises(FusionInputError, match="expected rank 2"):
        fd.execute([a, a[0]])
    with pytest.raises(FusionInputError, match="expected a tensor"):
        fd.execute([a, 1.0])


def test_cache_hit_on_second_call():
    fd = add_relu_fd()
    a = torch.randn(128, 64, device="cuda")
    before = cache_stats()
    fd.execute([a, a])
    first = fd.last_execution["cache_hit"]
    fd.execute([torch.randn(7, 9, device="cuda")] * 2)  # other sizes: same module
    assert fd.last_execution["cache_hit"]
    after = cache_stats()
    assert after["hits"] >= before["hits"] + 1
    # A new definition with the same IR shares the compiled module.
    fd2 = add_relu_fd()
    fd2.execute([a, a])
    assert fd2.last_execution["cache_hit"]
    assert first in (True, False)
