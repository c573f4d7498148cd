"""Deferred kernels from Python (Note [Deferred kernels] in
lib/Target/Compile.cpp): a module compiled with defer-kernels holds the
launch plan and no code, the compiler builds one kernel of it on request
(what the runtime's kernel builder does when a launch first needs it), and
FUSION_DEFER_KERNELS turns it on for FusionDefinition.execute. No GPU
needed: the launch path itself is tested on the fake driver
(unittests/Runtime/FakeDriverTest.cpp)."""
import pytest

from fusion import FusionCompileError, FusionError

SOFTMAX = """
fusion.fusion @softmax(%x: tensor<?x?xbf16>) -> tensor<?x?xbf16> {
  %0 = fusion.softmax %x dim = 1 : tensor<?x?xbf16>
  fusion.return %0 : tensor<?x?xbf16>
}
"""


@pytest.fixture
def libs():
    from fusion import _compiler, runtime
    try:
        _compiler.library_path()
        runtime.load_library()
    except FusionError as e:
        pytest.skip(str(e))
    return _compiler, runtime


def compile_softmax(compiler, mode):
    data, _ = compiler.compile(SOFTMAX, pipeline_options=f"defer-kernels={mode}",
                               use_cache=False, emit_cubin=False)
    return data


def test_a_deferred_module_builds_one_kernel_on_request(libs):
    compiler, runtime = libs
    complete = compile_softmax(compiler, "none")
    lazy = compile_softmax(compiler, "all")
    assert len(lazy) * 10 < len(complete)
    kernels = runtime.Executable(lazy).kernels()
    names = [k["name"] for k in kernels]
    assert names == [k["name"] for k in runtime.Executable(complete).kernels()]
    assert "softmax_k0_pv8_i32" in names
    assert not any(k["built"] for k in kernels)

    built = compiler.build_deferred_kernel(lazy, "softmax_k0_pv8_i32")
    after = runtime.Executable(built).kernels()
    assert [k["name"] for k in after if k["built"]] == ["softmax_k0_pv8_i32"]
    # Another kernel of the result keeps the first one.
    both = compiler.build_deferred_kernel(built, "softmax_k0_s_i64")
    assert sorted(k["name"] for k in runtime.Executable(both).kernels() if k["built"]) == [
        "softmax_k0_pv8_i32", "softmax_k0_s_i64"]

    with pytest.raises(FusionCompileError, match="is not deferred"):
        compiler.build_deferred_kernel(built, "softmax_k0_pv8_i32")
    with pytest.raises(FusionCompileError, match="no kernel named nope"):
        compiler.build_deferred_kernel(lazy, "nope")
    with pytest.raises(FusionCompileError, match="not a valid module file"):
        compiler.build_deferred_kernel(b"garbage!", "softmax_k0_pv8_i32")


def test_fallbacks_defers_only_fallback_kernels(libs):
    compiler, runtime = libs
    kernels = runtime.Executable(compile_softmax(compiler, "fallbacks")).kernels()
    assert sorted(k["name"] for k in kernels if k["built"]) == [
        "softmax_k0_pv8_i32", "softmax_k0_v8_i32"]
    waiting = {k["name"] for k in kernels if not k["built"]}
    assert {"softmax_k0_prv8_i32", "softmax_k0_s_i32", "softmax_k0_s_i64"} <= waiting
    assert len(waiting) + 2 == len(kernels)


def test_a_bad_mode_is_a_clear_error(libs):
    compiler, _ = libs
    with pytest.raises(FusionCompileError, match="defer-kernels"):
        compile_softmax(compiler, "some")


def test_deferral_is_the_default_and_the_environment_turns_it_off(libs, monkeypatch):
    from fusion import execution
    monkeypatch.setattr(execution, "_builder_installed", False)
    monkeypatch.setenv("FUSION_DEFER_KERNELS", "none")
    assert execution._with_deferral("unroll=2") == "unroll=2"
    assert not execution._builder_installed
    monkeypatch.delenv("FUSION_DEFER_KERNELS", raising=False)
    assert execution._with_deferral("unroll=2") == "unroll=2 defer-kernels=all"
    assert execution._builder_installed
    monkeypatch.setenv("FUSION_DEFER_KERNELS", "fallbacks")
    assert execution._with_deferral("") == "defer-kernels=fallbacks"
    monkeypatch.setenv("FUSION_DEFER_KERNELS", "lazy")
    with pytest.raises(FusionError, match="FUSION_DEFER_KERNELS must be one of"):
        execution._with_deferral("")
    _, runtime = libs
    runtime.load_library().fusion_set_kernel_builder(None, None)


# MLIR's linalg parsers crash on a malformed `permutation`/`dimensions` list
# (Note [Integer lists] in include/fusion/Support/ToolLimits.h): text from
# Python is refused before parsing, with the line and column, and the
# process lives on.
CRASHING_LIST = """func.func @t(%a: tensor<2x3xf32>, %b: tensor<3x2xf32>) {
  %0 = linalg.transpose ins(%a : tensor<2x3xf32>) outs(%b : tensor<3x2xf32>) permutation = [1, ?]
  return
}
"""


def test_malformed_integer_list_is_refused(libs):
    compiler, _ = libs
    with pytest.raises(FusionCompileError,
                       match=r"crash\.mlir:2:96.*expected an integer in the 'permutation' list"):
        compiler.compile(CRASHING_LIST, "crash.mlir")
    with pytest.raises(FusionError, match="Note \\[Integer lists\\]"):
        compiler.interpret(CRASHING_LIST, [], "crash.mlir")
