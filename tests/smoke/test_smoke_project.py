"""porter smoke --project: a small CppExtension (fixtures/ext_ops/ops.cpp, built with g++ through
torch.utils.cpp_extension) swapped into the smoke model.  A correct op passes with matching losses; an op
with a deliberate error fails parity and is named; a build failure is one line at the file and line; the
HIP port of torch_ext on a CPU-only torch is 'port not exercised' (exit 3), never a pass.

The extension is built once per test session (about a minute on a 2-core machine) into a cache inside the
session's tmp folder; every test that uses it has the same source, so later builds are no-ops."""

import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")

from porter.smoke import SmokeOptions, run_smoke  # noqa: E402
from porter.smoke import report as srep  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
FIX = Path(__file__).parent / "fixtures" / "ext_ops"
N_NORMS = 4 * 2 + 1  # attn_norm and mlp_norm of the 4 layers, the final norm

if not (shutil.which("c++") or shutil.which("g++")) or not shutil.which("ninja"):
    pytest.skip("needs a C++ compiler and ninja (scripts/setup.sh installs g++ and ninja-build)",
                allow_module_level=True)


@pytest.fixture(scope="session")
def build_cache(tmp_path_factory):
    return tmp_path_factory.mktemp("smoke-ext-cache")


def make_project(tmp_path: Path, ops_toml: str, source: str = "ops.cpp", extra: str = "") -> Path:
    proj = tmp_path / "proj"
    proj.mkdir()
    shutil.copy(FIX / source, proj / source)
    (proj / "porter.toml").write_text(
        f'[smoke]\nname = "smoke_test_ops"\nsources = ["{source}"]\n{extra}\n' + textwrap.dedent(ops_toml))
    return proj


def smoke(proj: Path, cache: Path, steps: int = 3) -> dict:
    opts = SmokeOptions(device="cpu", steps=steps, batch_size=2, seq_len=32, project=str(proj), build_cache=str(cache))
    rep = run_smoke(opts, emit=None)
    assert srep.validate(rep) == []
    return rep


def op(rep: dict, slot: str) -> dict:
    return next(o for o in rep["port"]["ops"] if o["slot"] == slot)


def test_correct_ops_pass_with_matching_losses_through_the_cli(tmp_path, build_cache):
    proj = make_project(tmp_path, """
        [smoke.ops]
        rms_norm = "smoke_test_ops.rms_norm"
        [smoke.ops.mlp_activation]
        call = "smoke_test_ops.bias_gelu"
        reference = "bias_gelu_tanh"
        """)
    out = tmp_path / "r.json"
    p = subprocess.run([sys.executable, "-m", "porter", "smoke", "--project", str(proj), "--device", "cpu",
                        "--steps", "4", "--batch-size", "2", "--seq-len", "32", "--build-cache", str(build_cache),
                        "--json", str(out)], capture_output=True, text=True, cwd=ROOT, timeout=600,
                       env=dict(os.environ, PYTHONPATH=str(ROOT)))
    assert p.returncode == 0, p.stdout[-2000:] + p.stderr[-2000:]
    assert "verdict     PASS" in p.stdout
    rep = json.loads(out.read_text())
    port = rep["port"]
    assert port["exercised"] and port["extensions"][0]["built"] and port["model_activation"] == "bias_gelu_tanh"
    assert len(port["loss_port"]) == len(port["loss_reference"]) == 4
    assert port["loss_port"][-1] < port["loss_port"][0]          # it trained
    assert port["max_abs_dloss"] <= 1e-4 and port["loss_ok"] and port["loss_tolerance"] == 2e-3
    norm, act = op(rep, "rms_norm"), op(rep, "mlp_activation")
    assert len(norm["used_in"]) == N_NORMS and "norm" in norm["used_in"] and norm["reference_in"] == []
    assert act["used_in"] == [f"layers.{i}.mlp.act" for i in range(4)]
    for o in (norm, act):
        assert o["parity_ok"] and [e["dtype"] for e in o["parity"]] == ["fp32", "bf16"]
        for e in o["parity"]:
            assert e["forward"]["ok"] and e["backward"]["ok"]
            assert e["forward"]["max_abs"] <= e["atol"] + e["rtol"] * 10
    assert "x" in norm["parity"][0]["backward"]["grads"] and "weight" in norm["parity"][0]["backward"]["grads"]


def test_wrong_epsilon_fails_parity_and_names_the_op(tmp_path, build_cache):
    proj = make_project(tmp_path, '[smoke.ops]\nrms_norm = "smoke_test_ops.wrong_eps_rms_norm"\n')
    rep = smoke(proj, build_cache)
    assert rep["verdict"] == "fail"
    first = rep["reasons"][0]
    assert first.startswith("parity: rms_norm (smoke_test_ops.wrong_eps_rms_norm) fp32: forward differs from the "
                            "reference"), first
    e = op(rep, "rms_norm")["parity"][0]
    assert not e["forward"]["ok"] and e["forward"]["max_rel"] > 1e-2


def test_a_declared_tolerance_is_the_one_used(tmp_path, build_cache):
    # the wrong epsilon is off by about 5% on unit-variance inputs: within a declared 10%, and reported as such
    proj = make_project(tmp_path, """
        [smoke.ops.rms_norm]
        call = "smoke_test_ops.wrong_eps_rms_norm"
        dtypes = ["fp32"]
        tolerance = { fp32 = [1e-3, 0.1] }
        """)
    rep = smoke(proj, build_cache, steps=2)
    (e,) = op(rep, "rms_norm")["parity"]
    assert (e["atol"], e["rtol"]) == (1e-3, 0.1) and e["forward"]["ok"] and 0.01 < e["forward"]["max_rel"] < 0.1


def test_missing_scale_fails_parity_and_names_the_op(tmp_path, build_cache):
    proj = make_project(tmp_path, """
        [smoke.ops]
        rms_norm = "smoke_test_ops.rms_norm"
        [smoke.ops.mlp_activation]
        call = "smoke_test_ops.wrong_scale_bias_gelu"
        reference = "bias_gelu_tanh"
        """)
    rep = smoke(proj, build_cache)
    assert rep["verdict"] == "fail"
    bad = [r for r in rep["reasons"] if r.startswith("parity:")]
    assert len(bad) == 1 and "mlp_activation (smoke_test_ops.wrong_scale_bias_gelu)" in bad[0]
    assert op(rep, "rms_norm")["parity_ok"] is True
    # the op is off by a factor of 2: the losses part company too
    assert not rep["port"]["loss_ok"] and rep["port"]["max_abs_dloss"] > rep["port"]["loss_tolerance"]


def test_forward_only_op_runs_only_where_no_gradient_flows(tmp_path, build_cache):
    proj = make_project(tmp_path, """
        [smoke.ops.rms_norm]
        call = "smoke_test_ops.rms_norm_loop"
        forward_only = true
        dtypes = ["fp32"]
        """)
    rep = smoke(proj, build_cache)
    assert rep["verdict"] == "pass", rep["reasons"]
    norm = op(rep, "rms_norm")
    # in a LoRA run only the first layer's attn_norm sees no gradient: its input is the frozen embedding
    assert norm["used_in"] == ["layers.0.attn_norm"] and len(norm["reference_in"]) == N_NORMS - 1
    assert len(norm["eval_used_in"]) == N_NORMS  # the no-gradient batch after training runs it everywhere
    assert norm["parity"][0]["backward"] is None
    assert "training ran it in 1 module (layers.0.attn_norm)" in srep.format_text(rep)
    port = rep["port"]
    assert port["eval_ok"] and abs(port["eval_loss_port"] - port["eval_loss_reference"]) < 1e-4


def test_forward_only_activation_runs_in_the_no_gradient_batch(tmp_path, build_cache):
    proj = make_project(tmp_path, """
        [smoke.ops.mlp_activation]
        call = "smoke_test_ops.bias_gelu"
        reference = "bias_gelu_tanh"
        forward_only = true
        """)
    rep = smoke(proj, build_cache)
    assert rep["verdict"] == "pass", rep["reasons"]
    act = op(rep, "mlp_activation")
    assert act["used_in"] == [] and len(act["reference_in"]) == 4 and len(act["eval_used_in"]) == 4
    assert any("forward-only and a gradient flows through every mlp_activation" in w for w in rep["warnings"])
    assert rep["port"]["eval_ok"] is True


def test_op_without_backward_that_is_not_declared_forward_only_fails(tmp_path, build_cache):
    proj = make_project(tmp_path, """
        [smoke.ops.rms_norm]
        call = "smoke_test_ops.rms_norm_loop"
        dtypes = ["fp32"]
        """)
    rep = smoke(proj, build_cache)
    assert rep["verdict"] == "fail"
    assert any("carries no gradient" in r and "forward_only = true" in r for r in rep["reasons"]), rep["reasons"]


def test_tuple_result_needs_output(tmp_path, build_cache):
    proj = make_project(tmp_path, '[smoke.ops]\nrms_norm = "smoke_test_ops.rms_norm_pair"\n')
    rep = smoke(proj, build_cache, steps=2)
    assert rep["verdict"] == "fail" and "returns a list of 2: set output = N" in rep["reasons"][0]
    (proj / "porter.toml").write_text((proj / "porter.toml").read_text().replace(
        'rms_norm = "smoke_test_ops.rms_norm_pair"', 'rms_norm = { call = "smoke_test_ops.rms_norm_pair", output = 0 }'))
    assert smoke(proj, build_cache, steps=2)["verdict"] == "pass"


def test_unknown_function_names_what_the_module_has(tmp_path, build_cache):
    proj = make_project(tmp_path, '[smoke.ops]\nrms_norm = "smoke_test_ops.rmsnorm"\n')
    rep = smoke(proj, build_cache, steps=2)
    assert rep["verdict"] == "fail"
    assert "smoke_test_ops has no function 'rmsnorm' (it has: bias_gelu, bias_gelu_backward, rms_norm" in rep["reasons"][0]


def test_build_failure_is_one_line_at_the_file_and_line(tmp_path, build_cache):
    proj = make_project(tmp_path, '[smoke.ops]\nrms_norm = "smoke_test_ops.rms_norm"\n', source="broken.cpp")
    rep = smoke(proj, build_cache)
    assert rep["verdict"] == "fail" and rep["steps_done"] == 0
    (line,) = rep["reasons"]
    assert "\n" not in line
    assert f"{proj}/broken.cpp:4:" in line and "error: 'forty_two' was not declared" in line, line
    assert rep["error"] == line and Path(rep["port"]["extensions"][0]["log"]).is_file()
    assert sorted(p.name for p in proj.iterdir()) == ["broken.cpp", "porter.toml"]  # nothing built in the project


def test_hip_port_of_torch_ext_is_not_exercised_on_a_cpu_torch(tmp_path, build_cache):
    if torch.cuda.is_available() or getattr(torch.version, "hip", None) or getattr(torch.version, "cuda", None):
        pytest.skip("this torch is a GPU build")
    out = tmp_path / "torch_ext_hip"
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    conv = subprocess.run([sys.executable, "-m", "porter", "convert", str(ROOT / "sample_projects" / "torch_ext"),
                           "-o", str(out)], capture_output=True, text=True, cwd=ROOT, timeout=300, env=env)
    assert conv.returncode == 0, conv.stderr
    assert (out / "porter.toml").is_file()  # the declaration travels with the port
    js = tmp_path / "r.json"
    p = subprocess.run([sys.executable, "-m", "porter", "smoke", "--project", str(out), "--steps", "3",
                        "--batch-size", "2", "--seq-len", "32", "--build-cache", str(build_cache), "--json", str(js)],
                       capture_output=True, text=True, cwd=ROOT, timeout=300, env=env)
    assert p.returncode == 3, p.stdout + p.stderr
    assert "verdict     PORT NOT EXERCISED: port not exercised: the HIP port needs a GPU" in p.stdout
    rep = json.loads(js.read_text())
    assert rep["verdict"] == "not_exercised" and rep["steps_done"] == 3     # the plain smoke test ran
    assert rep["port"]["exercised"] is False and rep["port"]["extensions"][0]["language"] == "hip"
    assert all(o["skipped"] for o in rep["port"]["ops"])


WRAPPER = '''
"""A kernel without a backward, and its backward written in Python: the usual way a fused op trains."""
import torch

import smoke_test_ops


class _RMSNorm(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, weight, eps):
        ctx.save_for_backward(x, weight)
        ctx.eps = eps
        return smoke_test_ops.rms_norm_loop(x, weight, eps)

    @staticmethod
    def backward(ctx, grad):
        x, weight = ctx.saved_tensors
        with torch.enable_grad():
            xx = x.detach().requires_grad_()
            y = xx * torch.rsqrt(xx.pow(2).mean(-1, keepdim=True) + ctx.eps) * weight
            (gx,) = torch.autograd.grad(y, xx, grad)
        return gx, None, None


def rms_norm(x, weight, eps):
    return _RMSNorm.apply(x, weight, eps)
'''


def test_op_from_a_python_module_of_the_project(tmp_path, build_cache):
    proj = make_project(tmp_path, """
        [smoke.ops.rms_norm]
        call = "fused.rms_norm"
        dtypes = ["fp32"]
        """)
    (proj / "fused.py").write_text(WRAPPER)
    rep = smoke(proj, build_cache)
    assert rep["verdict"] == "pass", rep["reasons"]
    norm = op(rep, "rms_norm")
    assert len(norm["used_in"]) == N_NORMS and norm["parity"][0]["backward"]["ok"]
    assert "weight" not in norm["parity"][0]["backward"]["grads"]  # frozen in a LoRA run; the op gives none
    assert not (proj / "__pycache__").exists()                     # importing it wrote nothing into the project


ACTIVATIONS = '''
import torch.nn.functional as F


def silu(x):
    return F.silu(x)


def swiglu(gate, up):
    return F.silu(gate) * up


def gelu_tanh(x):
    return F.gelu(x, approximate="tanh")


def gelu_erf(x):  # the exact GELU: not the tanh form the declaration names
    return F.gelu(x)
'''


@pytest.mark.parametrize("reference,fn,ok", [("silu", "silu", True), ("swiglu", "swiglu", True),
                                             ("gelu_tanh", "gelu_tanh", True), ("gelu_tanh", "gelu_erf", False)])
def test_each_activation_form_is_swapped_in(tmp_path, build_cache, reference, fn, ok):
    proj = make_project(tmp_path, f"""
        [smoke.ops.mlp_activation]
        call = "acts.{fn}"
        reference = "{reference}"
        """)
    (proj / "acts.py").write_text(ACTIVATIONS)
    rep = smoke(proj, build_cache, steps=2)
    act = op(rep, "mlp_activation")
    assert act["used_in"] == [f"layers.{i}.mlp.act" for i in range(4)]
    assert rep["port"]["model_activation"] == ("gelu_tanh" if reference == "gelu_tanh" else "silu")
    assert act["parity_ok"] is ok and (rep["verdict"] == "pass") is ok, rep["reasons"]


# ---- backward kernels: sample_projects/torch_ext/fused_train.py over CPU stand-ins of its kernels ------------
# ops.cpp's rms_norm_pair, bias_gelu, rms_norm_backward and bias_gelu_backward have the signatures of torch_ext's
# fused_ops.rms_norm, bias_gelu, rms_norm_backward and bias_gelu_backward; a fused_ops.py in the test project maps
# torch_ext's names onto them, so torch_ext's own autograd wrapper runs unchanged on this CPU.

FUSED_OPS_SHIM = '''
"""CPU stand-in for torch_ext's fused_ops extension: its names, the test extension's loops."""
import smoke_test_ops as _k

rms_norm = _k.rms_norm_pair
bias_gelu = _k.bias_gelu
rms_norm_backward = _k.{rms_norm_backward}
bias_gelu_backward = _k.{bias_gelu_backward}
'''

TRAINABLE = """
    [smoke.ops.rms_norm]
    call = "fused_train.rms_norm"
    [smoke.ops.mlp_activation]
    call = "fused_train.bias_gelu"
    reference = "bias_gelu_tanh"
    """


def torch_ext_on_cpu(tmp_path: Path, rms_norm_backward="rms_norm_backward", bias_gelu_backward="bias_gelu_backward"):
    proj = make_project(tmp_path, TRAINABLE)
    shutil.copy(ROOT / "sample_projects" / "torch_ext" / "fused_train.py", proj / "fused_train.py")
    (proj / "fused_ops.py").write_text(FUSED_OPS_SHIM.format(rms_norm_backward=rms_norm_backward,
                                                             bias_gelu_backward=bias_gelu_backward))
    return proj


@pytest.fixture(scope="module")
def ext(build_cache, tmp_path_factory):
    """The built test extension, imported (the same build the smoke runs use)."""
    from porter.smoke import extbuild, setupread

    root = tmp_path_factory.mktemp("ext")
    shutil.copy(FIX / "ops.cpp", root / "ops.cpp")
    spec = setupread.ExtensionSpec(name="smoke_test_ops", kind="cpp", sources=("ops.cpp",))
    return extbuild.import_built(extbuild.build(spec, root, torch=torch, cache=build_cache))


def test_backward_loops_give_the_derivatives(ext):
    # RMSNorm, one row x = (1, -2, 2), w = 1, eps = 0, upstream g = 1: mean(x^2) = 3, r = 1/sqrt(3),
    # sum(g w x) = 1, so d/dx_j = r - x_j r^3 / 3 = (9 - x_j) / (9 sqrt(3)) = (8, 11, 7) / (9 sqrt(3)),
    # and d/dw_j = g_j x_j r = x_j / sqrt(3).
    x = torch.tensor([[1.0, -2.0, 2.0]])
    w, g = torch.ones(3), torch.ones(1, 3)
    y, inv = ext.rms_norm_pair(x, w, 0.0)
    assert inv.item() == pytest.approx(1 / 3 ** 0.5, rel=1e-6)
    gx, gw = ext.rms_norm_backward(g, x, w, inv, True)
    assert gx[0].tolist() == pytest.approx([8 / (9 * 3 ** 0.5), 11 / (9 * 3 ** 0.5), 7 / (9 * 3 ** 0.5)], rel=1e-6)
    assert gw.tolist() == pytest.approx([1 / 3 ** 0.5, -2 / 3 ** 0.5, 2 / 3 ** 0.5], rel=1e-6)
    assert ext.rms_norm_backward(g, x, w, inv, False)[1] is None   # a frozen weight: no gradient computed
    # the wrong variant treats r as a constant: d/dx_j = r for every j
    assert ext.wrong_rms_norm_backward(g, x, w, inv, True)[0][0].tolist() == pytest.approx([1 / 3 ** 0.5] * 3, rel=1e-6)

    # GELU (tanh form) at v = x + bias: gelu'(0) = 1/2 exactly; gelu'(1) from the closed form
    # 0.5 (1 + t) + 0.5 (1 - t^2) sqrt(2/pi) (1 + 3 * 0.044715), t = tanh(sqrt(2/pi) * 1.044715) = 1.0830...
    import math
    k = math.sqrt(2 / math.pi)
    t = math.tanh(k * 1.044715)
    d1 = 0.5 * (1 + t) + 0.5 * (1 - t * t) * k * (1 + 3 * 0.044715)
    assert d1 == pytest.approx(1.0830, abs=1e-4)
    # gelu'(v) -> 1 far right and -> 0 far left; x = (-1, 0.5, 1, 10) with bias (1, -0.5, 0, -2): v = (0, 0, 1, 8)
    xs, bias = torch.tensor([[-1.0, 0.5, 1.0, 10.0]]), torch.tensor([1.0, -0.5, 0.0, -2.0])
    gx, gb = ext.bias_gelu_backward(torch.full((1, 4), 2.0), xs, bias, True)   # upstream 2: derivatives doubled
    assert gx[0].tolist() == pytest.approx([1.0, 1.0, 2 * d1, 2.0], rel=1e-5)
    assert gb.tolist() == pytest.approx(gx[0].tolist())                   # one row: the bias gradient is that row
    two = ext.bias_gelu_backward(torch.ones(2, 4), torch.cat([xs, xs]), bias, True)[1]
    assert two.tolist() == pytest.approx([1.0, 1.0, 2 * d1, 2.0], rel=1e-5)   # two equal rows: summed over rows
    assert ext.bias_gelu_backward(torch.ones(1, 4), xs, bias, False)[1] is None
    # without the cubic term's derivative in the chain: 0.5 (1 + t) + 0.5 (1 - t^2) sqrt(2/pi) at v = 1
    wrong = ext.wrong_bias_gelu_backward(torch.ones(1, 4), xs, bias, True)[0][0]
    assert wrong[2].item() == pytest.approx(0.5 * (1 + t) + 0.5 * (1 - t * t) * k, rel=1e-5)
    assert wrong[0].item() == pytest.approx(0.5)  # at v = 0 the cubic term vanishes: the error hides there


def test_torch_ext_autograd_functions_train_with_matching_losses(tmp_path, build_cache):
    proj = torch_ext_on_cpu(tmp_path)
    rep = smoke(proj, build_cache, steps=3)
    assert rep["verdict"] == "pass", rep["reasons"]
    port = rep["port"]
    assert port["exercised"] and port["max_abs_dloss"] <= 1e-4 and port["loss_ok"]
    norm, act = op(rep, "rms_norm"), op(rep, "mlp_activation")
    # trainable ops: every module runs them in training, not only where no gradient flows
    assert len(norm["used_in"]) == N_NORMS and norm["reference_in"] == []
    assert act["used_in"] == [f"layers.{i}.mlp.act" for i in range(4)] and act["reference_in"] == []
    assert not norm["forward_only"] and not act["forward_only"]
    for o, grads in ((norm, {"x", "weight"}), (act, {"x", "bias"})):
        assert [e["dtype"] for e in o["parity"]] == ["fp32", "bf16"]
        for e in o["parity"]:
            assert e["error"] is None and e["forward"]["ok"] and e["backward"]["ok"], e
            assert set(e["backward"]["grads"]) == grads     # the frozen weight / bias gradients are checked too
        fp32 = o["parity"][0]["backward"]
        assert fp32["max_abs"] <= 1e-4 and fp32["max_rel"] <= 1e-3
    text = srep.format_text(rep)
    assert "rms_norm (fused_train.rms_norm) matches the reference, forward and backward, fp32, bf16" in text
    assert "bwd (x, weight) abs" in text and "bwd (x, bias) abs" in text


@pytest.mark.parametrize("slot,kwargs", [("rms_norm", {"rms_norm_backward": "wrong_rms_norm_backward"}),
                                         ("mlp_activation", {"bias_gelu_backward": "wrong_bias_gelu_backward"})])
def test_a_wrong_gradient_fails_backward_parity_and_names_the_op(tmp_path, build_cache, slot, kwargs):
    proj = torch_ext_on_cpu(tmp_path, **kwargs)
    rep = smoke(proj, build_cache, steps=3)
    assert rep["verdict"] == "fail"
    bad = [r for r in rep["reasons"] if r.startswith("parity:")]
    call = "fused_train.rms_norm" if slot == "rms_norm" else "fused_train.bias_gelu"
    assert len(bad) == 1 and bad[0].startswith(f"parity: {slot} ({call}) fp32: backward (gradient of x"), bad
    failing = op(rep, slot)
    e = failing["parity"][0]
    assert e["forward"]["ok"] and not e["backward"]["ok"] and not e["backward"]["grads"]["x"]["ok"]
    other = op(rep, "mlp_activation" if slot == "rms_norm" else "rms_norm")
    assert other["parity_ok"] is True
    # the forward is right, so the first step's loss is the reference's; the wrong gradient changes the updates
    assert rep["port"]["loss_port"][0] == pytest.approx(rep["port"]["loss_reference"][0], abs=1e-6)
