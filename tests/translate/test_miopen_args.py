"""cuDNN calls whose MIOpen function takes another parameter list get MIOpen's list where MIOpen's
documentation makes the edit keep the meaning (porter/mapping/data/calls/miopen_args.json,
porter/translate/call_args.py), with and without --roc.

cudnnSetDropoutDescriptor(d, handle, dropout, states, stateSize, seed) renamed to miopenSetDropoutDescriptor,
which takes use_mask, state_evo and rng_mode as well, made a port that does not compile.  The sources are
written from NVIDIA's documented signatures; MIOpen's header is not installed here (no Debian package), so
the argument lists are checked against the parameter lists the data records from miopen.h, and compiled
only where PORTER_MIOPEN_INCLUDE points at an include folder holding miopen/miopen.h (with its generated
miopen/config.h and export.h)."""

from __future__ import annotations

import re

from porter.mapping.miopen_args import load_miopen_call_args
from porter.translate import TranslateOptions, translate

SRC = b"""#include <cudnn.h>
void f(cudnnHandle_t handle, cudnnDropoutDescriptor_t d, void* states, size_t stateSize, cudnnTensorDescriptor_t xd,
       const void* x, cudnnTensorDescriptor_t yd, void* y, void* reserve, size_t reserveSize, const float* one,
       const float* zero, cudnnTensorDescriptor_t dyd, const void* dy, cudnnTensorDescriptor_t dxd, void* dx) {
  cudnnCreate(&handle);
  cudnnSetDropoutDescriptor(d, handle, 0.5f, states, stateSize, 1234ull);
  cudnnRestoreDropoutDescriptor(d, handle, 0.5f, states, stateSize, 1234ull);
  cudnnDropoutForward(handle, d, xd, x, yd, y, reserve, reserveSize);
  cudnnDropoutBackward(handle, d, dyd, dy, dxd, dx, reserve, reserveSize);
  cudnnSoftmaxForward(handle, CUDNN_SOFTMAX_ACCURATE, CUDNN_SOFTMAX_MODE_CHANNEL, one,
                      xd, x, zero, yd, y);
  cudnnSoftmaxBackward(handle, CUDNN_SOFTMAX_LOG, CUDNN_SOFTMAX_MODE_INSTANCE, one, yd, y, dyd, dy, zero, dxd, dx);
  cudnnDestroyTensorDescriptor(xd);
  cudnnDestroy(handle);
}
"""


def _port(text: bytes, roc: bool = False) -> str:
    return translate(text, "t.cu", TranslateOptions(roc=roc)).output.decode()


def _call(out: str, name: str) -> list[str]:
    return [" ".join(m.split()) for m in re.findall(rf"\b{name}\(([^;]*)\);", out)]


def _names(params: tuple[str, ...]) -> list[str]:
    return [re.findall(r"\w+", p)[-1] for p in params]


def test_dropout_descriptor_gets_mask_state_and_rng_arguments():
    for roc in (False, True):
        out = _port(SRC, roc)
        # MIOpen's use_mask (no saved mask: cuDNN draws a new one), state_evo (a placeholder), rng_mode (the only RNG)
        assert _call(out, "miopenSetDropoutDescriptor") == [
            "d, handle, 0.5f, states, stateSize, 1234ull, false, false, MIOPEN_RNG_PSEUDO_XORWOW"]
        assert _call(out, "miopenRestoreDropoutDescriptor") == [
            "d, handle, 0.5f, states, stateSize, 1234ull, false, false, MIOPEN_RNG_PSEUDO_XORWOW"]
        facts = load_miopen_call_args()
        assert _names(facts["cudnnSetDropoutDescriptor"].miopen_params)[6:] == ["use_mask", "state_evo", "rng_mode"]


def test_dropout_passes_the_data_descriptor_as_noise_shape():
    out = _port(SRC)
    assert _call(out, "miopenDropoutForward") == ["handle, d, xd, xd, x, yd, y, reserve, reserveSize"]
    assert _call(out, "miopenDropoutBackward") == ["handle, d, dyd, dyd, dy, dxd, dx, reserve, reserveSize"]
    names = _names(load_miopen_call_args()["cudnnDropoutForward"].miopen_params)
    assert names[:4] == ["handle", "dropoutDesc", "noise_shape", "xDesc"]


def test_softmax_takes_algorithm_and_mode_last():
    out = _port(SRC)
    assert _call(out, "miopenSoftmaxForward_V2") == [
        "handle, one, xd, x, zero, yd, y, MIOPEN_SOFTMAX_ACCURATE, MIOPEN_SOFTMAX_MODE_CHANNEL"]
    assert _call(out, "miopenSoftmaxBackward_V2") == [
        "handle, one, yd, y, dyd, dy, zero, dxd, dx, MIOPEN_SOFTMAX_LOG, MIOPEN_SOFTMAX_MODE_INSTANCE"]
    names = _names(load_miopen_call_args()["cudnnSoftmaxForward"].miopen_params)
    assert names[-2:] == ["algorithm", "mode"]


def test_same_lists_and_unfit_calls_stay_as_written():
    out = _port(SRC)
    assert _call(out, "miopenCreate") == ["&handle"]
    assert _call(out, "miopenDestroyTensorDescriptor") == ["xd"]
    # a descriptor with a side effect would be evaluated twice: left as written (PORT183 reports it)
    src = b"#include <cudnn.h>\nvoid g(cudnnHandle_t h, cudnnDropoutDescriptor_t d, cudnnTensorDescriptor_t* t, int i,\n" \
          b"       const void* x, void* y, void* r, size_t n) {\n  cudnnDropoutForward(h, d, t[i++], x, t[0], y, r, n);\n}\n"
    assert _call(_port(src), "miopenDropoutForward") == ["h, d, t[i++], x, t[0], y, r, n"]
    # a function porter does not rewrite keeps cuDNN's arguments (PORT183 reports it)
    src = b"#include <cudnn.h>\nvoid g(cudnnPoolingDescriptor_t p) {\n" \
          b"  cudnnSetPooling2dDescriptor(p, CUDNN_POOLING_MAX, CUDNN_PROPAGATE_NAN, 2, 2, 0, 0, 2, 2);\n}\n"
    assert len(_call(_port(src), "miopenSet2dPoolingDescriptor")[0].split(",")) == 9


def test_every_edit_gives_miopens_parameter_count():
    for name, fact in load_miopen_call_args().items():
        if fact.args is not None:
            assert len(fact.args) == len(fact.miopen_params), name
            assert sorted({a["arg"] for a in fact.args if "arg" in a}) == list(range(fact.cuda_args)), name


def test_the_port_compiles_against_miopen(hipcc_compile, miopen_include):
    rc, out = hipcc_compile(_port(SRC).encode(), "t", flags=(f"-I{miopen_include}",), syntax_only=True)
    assert rc == 0, out
