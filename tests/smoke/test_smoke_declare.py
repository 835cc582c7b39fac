"""porter.toml [smoke]: the declaration's schema, one line per bad key; setup.py read without running it;
which extensions can build on which torch; the report's port section.  No torch, no compiler."""

import shutil
import textwrap
import types
from pathlib import Path

import pytest

from porter.smoke import declare, extbuild, report as srep, setupread, smoke_command
from porter.project.settings import load_settings

ROOT = Path(__file__).resolve().parents[2]
TORCH_EXT = ROOT / "sample_projects" / "torch_ext"
GOLDEN_TORCH_EXT = ROOT / "tests" / "golden" / "torch_ext"


def project(tmp_path, toml: str, files=("ops.cpp",)) -> Path:
    for f in files:
        (tmp_path / f).write_text("// source\n")
    (tmp_path / "porter.toml").write_text(textwrap.dedent(toml))
    return tmp_path


GOOD = """
[smoke]
name = "my_ops"
sources = ["ops.cpp"]
[smoke.ops]
rms_norm = "my_ops.rms_norm"
"""


def test_short_form_declaration(tmp_path):
    d = declare.load(project(tmp_path, GOOD))
    (op,) = d.ops
    assert (op.slot, op.module, op.function, op.reference, op.args, op.forward_only) == \
        ("rms_norm", "my_ops", "rms_norm", "rms_norm", ("x", "weight", "eps"), False)
    assert d.name == "my_ops" and d.sources == ("ops.cpp",)


def test_sample_torch_ext_declaration():
    d = declare.load(TORCH_EXT)
    ops = {o.slot: o for o in d.ops}
    assert d.setup == "setup.py"
    # the autograd functions over the forward and backward kernels: both ops train
    assert ops["rms_norm"].call == "fused_train.rms_norm" and ops["rms_norm"].output is None
    assert ops["rms_norm"].args == ("x", "weight", "eps")
    assert not ops["rms_norm"].forward_only and not ops["mlp_activation"].forward_only
    assert ops["mlp_activation"].call == "fused_train.bias_gelu"
    assert ops["mlp_activation"].reference == "bias_gelu_tanh" and ops["mlp_activation"].args == ("x", "bias")


def test_port_table_and_smoke_table_share_the_file(tmp_path):
    p = project(tmp_path, '[port]\ntarget_rocm = "6.1"\n' + GOOD)
    assert load_settings(p).target_rocm == "6.1"
    assert declare.load(p).ops[0].slot == "rms_norm"


BAD = [
    ('[smoke]\nname = "m"\nsources = ["ops.cpp"]\nsteps = 3\n[smoke.ops]\nrms_norm = "m.f"\n',
     "[smoke] has an unknown key 'steps'"),
    ('[smoke]\nsetup = "setup.py"\nsources = ["ops.cpp"]\n[smoke.ops]\nrms_norm = "m.f"\n',
     "[smoke] has both setup and sources"),
    ('[smoke]\n[smoke.ops]\nrms_norm = "m.f"\n', "[smoke] needs setup = \"setup.py\""),
    ('[smoke]\nsources = ["ops.cpp"]\n[smoke.ops]\nrms_norm = "m.f"\n', "sources needs name"),
    ('[smoke]\nname = "m"\nsources = ["nope.cpp"]\n[smoke.ops]\nrms_norm = "m.f"\n', "sources: nope.cpp does not exist"),
    ('[smoke]\nsetup = "setup.py"\n[smoke.ops]\nrms_norm = "m.f"\n', "setup: setup.py does not exist"),
    ('[smoke]\nname = "m"\nsources = "ops.cpp"\n[smoke.ops]\nrms_norm = "m.f"\n', "sources must be a list, not 'ops.cpp'"),
    ('[smoke]\nname = "m"\nsources = ["ops.cpp"]\n', "declares no ops"),
    ('[smoke]\nname = "m"\nsources = ["ops.cpp"]\n[smoke.ops]\nlayer_norm = "m.f"\n',
     "[smoke.ops] has an unknown slot 'layer_norm' (slots: rms_norm, mlp_activation)"),
    ('[smoke]\nname = "m"\nsources = ["ops.cpp"]\n[smoke.ops]\nmlp_activation = "m.gelu"\n',
     "[smoke.ops] mlp_activation needs reference = one of silu, swiglu, gelu_tanh, bias_gelu_tanh"),
    ('[smoke]\nname = "m"\nsources = ["ops.cpp"]\n[smoke.ops.mlp_activation]\ncall = "m.f"\nreference = "relu"\n',
     "reference must be one of"),
    ('[smoke]\nname = "m"\nsources = ["ops.cpp"]\n[smoke.ops.rms_norm]\ncall = "m.f"\nforward_only = "yes"\n',
     "[smoke.ops] rms_norm forward_only must be true or false, not 'yes'"),
    ('[smoke]\nname = "m"\nsources = ["ops.cpp"]\n[smoke.ops.rms_norm]\ncall = "m.f"\nargs = ["x", "scale"]\n',
     "args: 'scale' is not an argument of rms_norm"),
    ('[smoke]\nname = "m"\nsources = ["ops.cpp"]\n[smoke.ops.rms_norm]\ncall = "m.f"\nargs = ["x"]\n',
     "args leaves out 'weight'"),
    ('[smoke]\nname = "m"\nsources = ["ops.cpp"]\n[smoke.ops.rms_norm]\ncall = "m.f"\ndtypes = ["fp8"]\n',
     "dtypes must be a non-empty list of fp32, bf16, fp16, not 'fp8'"),
    ('[smoke]\nname = "m"\nsources = ["ops.cpp"]\n[smoke.ops.rms_norm]\ncall = "m.f"\nbackward = "m.g"\n',
     "rms_norm has an unknown key 'backward'"),
    ('[smoke]\nname = "m"\nsources = ["ops.cpp"]\n[smoke.ops]\nrms_norm = "rms_norm"\n', "call must be MODULE.FUNCTION"),
    ('[smoke]\nname = "m"\nsources = ["ops.cpp"]\nloss_tolerance = 0\n[smoke.ops]\nrms_norm = "m.f"\n',
     "loss_tolerance must be above 0"),
    ('[smoke]\nname = "m"\nsources = ["ops.cpp"]\n[smoke.ops.rms_norm]\ncall = "m.f"\ntolerance = { fp32 = 1e-3 }\n',
     "tolerance fp32 must be [atol, rtol] (two numbers, 0 or more), not 0.001"),
    ('[smoke]\nname = "m"\nsources = ["ops.cpp"]\n[smoke.ops.rms_norm]\ncall = "m.f"\ntolerance = { f32 = [0, 0] }\n',
     "tolerance: 'f32' is not a dtype"),
    ('[smoke\nname = "m"\n', "not valid TOML"),
    ('[port]\nroc = true\n', "no [smoke] table"),
]


@pytest.mark.parametrize("toml,expected", BAD, ids=[b[1][:40] for b in BAD])
def test_bad_declaration_is_one_line_naming_file_and_key(tmp_path, toml, expected):
    p = project(tmp_path, toml)
    with pytest.raises(declare.DeclarationError) as ei:
        declare.load(p)
    msg = str(ei.value)
    assert "\n" not in msg
    assert msg.startswith(str(p / "porter.toml")) and expected in msg, msg


def test_missing_file_and_folder(tmp_path):
    with pytest.raises(declare.DeclarationError, match="no porter.toml"):
        declare.load(tmp_path)
    with pytest.raises(declare.DeclarationError, match="not a folder"):
        declare.load(tmp_path / "absent")


def test_smoke_command_for_the_review_app(tmp_path):
    argv, label = smoke_command(tmp_path, steps=7)
    assert "--project" not in argv and argv[-2:] == ["--steps", "7"] and label.startswith("built-in")
    argv, label = smoke_command(project(tmp_path, GOOD), steps=7)
    assert argv[-2:] == ["--project", str(tmp_path)] and label.startswith("project smoke test")


# ---- setup.py, read not run ---------------------------------------------------------------

def test_torch_ext_setup_py_is_read_without_running_it():
    (ext,) = setupread.read(TORCH_EXT / "setup.py", TORCH_EXT)
    assert (ext.name, ext.kind, ext.sources) == ("fused_ops", "cuda", ("binding.cpp", "kernels.cu"))
    assert ext.extra_cflags == ("-O3", "-std=c++17")
    assert "--use_fast_math" in ext.extra_cuda_cflags and ext.origin == "setup.py:15"


def test_setup_py_with_computed_sources_names_the_line(tmp_path):
    (tmp_path / "setup.py").write_text(
        "import glob\nfrom torch.utils.cpp_extension import CppExtension\n\n"
        "ext = CppExtension('m', glob.glob('*.cpp'))\n")
    with pytest.raises(setupread.SetupReadError) as ei:
        setupread.read(tmp_path / "setup.py", tmp_path)
    assert str(ei.value).startswith("setup.py:4: CppExtension sources is computed")


def test_setup_py_positional_cpp_extension_and_macros(tmp_path):
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "a.cpp").write_text("")
    (tmp_path / "setup.py").write_text(
        "from torch.utils import cpp_extension\n"
        "setup(ext_modules=[cpp_extension.CppExtension('pkg._C', ['src/a.cpp'], define_macros=[('FAST', '1')],\n"
        "      extra_compile_args=['-O2'])])\n")
    (ext,) = setupread.read(tmp_path / "setup.py", tmp_path)
    assert (ext.name, ext.module_name, ext.kind, ext.sources) == ("pkg._C", "_C", "cpp", ("src/a.cpp",))
    assert ext.extra_cflags == ("-DFAST=1", "-O2")


def test_setup_py_source_outside_the_project(tmp_path):
    (tmp_path / "setup.py").write_text("CppExtension('m', ['../elsewhere.cpp'])\n")
    with pytest.raises(setupread.SetupReadError, match="outside the project folder"):
        setupread.read(tmp_path / "setup.py", tmp_path)


# ---- what can build where -----------------------------------------------------------------

def fake_torch(cuda=None, hip=None):
    return types.SimpleNamespace(__version__="2.13.0", version=types.SimpleNamespace(cuda=cuda, hip=hip))


@pytest.fixture
def converted_torch_ext(tmp_path):
    """The HIP port of torch_ext: the reviewed golden sources plus the project's setup.py and porter.toml."""
    out = tmp_path / "torch_ext_hip"
    shutil.copytree(GOLDEN_TORCH_EXT, out)
    for f in ("setup.py", "porter.toml"):
        shutil.copy(TORCH_EXT / f, out / f)
    return out


def test_language_of_original_and_port(converted_torch_ext):
    (orig,) = setupread.read(TORCH_EXT / "setup.py", TORCH_EXT)
    (port,) = setupread.read(converted_torch_ext / "setup.py", converted_torch_ext)
    assert extbuild.language(orig, TORCH_EXT) == "cuda"
    assert extbuild.language(port, converted_torch_ext) == "hip"
    cpp = setupread.ExtensionSpec(name="m", kind="cpp", sources=("a.cpp",))
    assert extbuild.language(cpp, TORCH_EXT) is None


def test_unavailable_says_why():
    hip = setupread.ExtensionSpec(name="fused_ops", kind="cuda", sources=("k.cu",))
    cpp = setupread.ExtensionSpec(name="m", kind="cpp", sources=("a.cpp",))
    assert extbuild.unavailable(cpp, None, fake_torch(), False) is None
    msg = extbuild.unavailable(hip, "hip", fake_torch(), False)
    assert msg.startswith("the HIP port needs a GPU: torch 2.13.0 is a CPU-only build, which builds only CppExtension")
    assert "ROCm build of torch" in extbuild.unavailable(hip, "hip", fake_torch(cuda="12.4"), True)
    assert extbuild.unavailable(hip, "hip", fake_torch(hip="6.2"), True) is None
    assert "sees none" in extbuild.unavailable(hip, "hip", fake_torch(hip="6.2"), False)
    assert extbuild.unavailable(hip, "cuda", fake_torch(cuda="12.4"), True) is None
    assert extbuild.unavailable(hip, "cuda", fake_torch(), False).startswith("the CUDA extension needs a GPU")


def test_first_compiler_error_points_at_the_project_file(tmp_path):
    src, build = tmp_path / "cache" / "src", tmp_path / "cache" / "build"
    out = (f"[1/2] c++ -c {src}/ops.cpp -o ops.o\nFAILED: ops.o\n"
           f"{src}/ops.cpp: In function 'int f()':\n"
           f"{src}/ops.cpp:12:5: error: 'y' was not declared in this scope\n"
           f"{src}/ops.cpp:13:1: error: expected ';'\nninja: build stopped: subcommand failed.\n")
    proj = tmp_path / "proj"
    assert extbuild.first_error(out, src, build, proj) == f"{proj}/ops.cpp:12:5: error: 'y' was not declared in this scope"


def test_prepare_copies_sources_into_a_content_keyed_folder(tmp_path):
    proj = tmp_path / "proj"
    (proj / "inc").mkdir(parents=True)
    (proj / "ops.cpp").write_text("#include \"inc/a.h\"\n")
    (proj / "inc" / "a.h").write_text("// a\n")
    (proj / "build").mkdir()
    (proj / "build" / "junk.cpp").write_text("")
    spec = setupread.ExtensionSpec(name="m", kind="cpp", sources=("ops.cpp",))
    first = extbuild.prepare(spec, proj, tmp_path / "cache", "2.13.0")
    assert (first / "src" / "inc" / "a.h").read_text() == "// a\n" and not (first / "src" / "build").exists()
    assert extbuild.prepare(spec, proj, tmp_path / "cache", "2.13.0") == first       # unchanged: same folder
    (proj / "inc" / "a.h").write_text("// b\n")
    assert extbuild.prepare(spec, proj, tmp_path / "cache", "2.13.0") != first       # a header changed
    assert sorted(p.name for p in proj.iterdir()) == ["build", "inc", "ops.cpp"]     # nothing written there


# ---- report ---------------------------------------------------------------------------------

def port_section(**kw):
    p = {"project": "/p", "declaration": "/p/porter.toml", "torch_build": "CPU-only", "exercised": False,
         "not_exercised": [], "extensions": [], "ops": [], "model_activation": "silu", "loss_reference": [],
         "loss_port": [], "max_abs_dloss": None, "dloss_step": None, "loss_tolerance": None, "loss_ok": None,
         "eval_loss_reference": None, "eval_loss_port": None, "eval_ok": None, "build_error": None}
    p.update(kw)
    return p


def trained(**kw):
    rep = srep.empty_report(steps=3, steps_done=3, losses=[5.0, 4.8, 4.5], step_times_s=[0.1, 0.1, 0.1])
    rep.update(kw)
    return srep.finish(rep)


def test_not_exercised_is_never_a_pass():
    rep = trained(port=port_section(not_exercised=["the HIP port needs a GPU"]))
    assert rep["verdict"] == "not_exercised" and srep.EXIT_CODES["not_exercised"] == 3
    assert rep["reasons"][0] == "port not exercised: the HIP port needs a GPU"
    assert "the plain smoke test passed" in rep["reasons"][1]
    assert "verdict     PORT NOT EXERCISED: port not exercised: the HIP port needs a GPU" in srep.format_text(rep)
    assert srep.validate(rep) == []


def test_a_failing_plain_run_stays_a_failure_when_the_port_did_not_run():
    rep = srep.empty_report(steps=3, steps_done=3, losses=[5.0, float("nan"), 4.5], step_times_s=[0.1] * 3)
    rep["port"] = port_section(not_exercised=["no GPU"])
    assert srep.finish(rep)["verdict"] == "fail"


def test_loss_beyond_tolerance_fails_with_the_figures():
    rep = trained(port=port_section(exercised=True, loss_reference=[5.0, 4.8, 4.5], loss_port=[5.0, 4.9, 4.6],
                                    max_abs_dloss=0.1, dloss_step=2, loss_tolerance=0.002, loss_ok=False))
    assert rep["verdict"] == "fail"
    assert "max |delta| 0.1 over 3 steps (at step 2) > tolerance 0.002" in rep["reasons"][0]


def test_validate_catches_a_bad_port_section():
    rep = trained(port={"project": "/p"})
    assert "port: missing key ops" in srep.validate(rep)


def test_cli_bad_declaration_is_one_line_and_exit_2(tmp_path):
    import json
    import subprocess
    import sys

    p = project(tmp_path, '[smoke]\nname = "m"\nsources = ["ops.cpp"]\nbogus = 1\n[smoke.ops]\nrms_norm = "m.f"\n')
    out = tmp_path / "r.json"
    r = subprocess.run([sys.executable, "-m", "porter", "smoke", "--project", str(p), "--json", str(out)],
                       capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert r.returncode == 2 and r.stdout == ""
    assert r.stderr.strip().splitlines() == [
        f"porter: error: smoke: {p}/porter.toml: [smoke] has an unknown key 'bogus' (known: extra_cflags, "
        "extra_cuda_cflags, extra_include_paths, extra_ldflags, loss_tolerance, name, ops, setup, sources)"]
    assert json.loads(out.read_text())["verdict"] == "fail"


def test_rocm_build_of_the_port_gets_hipcc_flags():
    # torch_ext's setup.py passes nvcc flags; clang (hipcc) does not know --use_fast_math or -lineinfo
    (ext,) = setupread.read(TORCH_EXT / "setup.py", TORCH_EXT)
    rocm = extbuild.for_torch(ext, TORCH_EXT, fake_torch(hip="6.2"))
    assert rocm.extra_cuda_cflags == ("-O3", "-ffast-math", "-gline-tables-only", "-U__CUDA_NO_HALF_OPERATORS__",
                                      "-U__CUDA_NO_HALF_CONVERSIONS__", "-U__CUDA_NO_BFLOAT16_CONVERSIONS__")
    assert any(n.startswith("--use_fast_math -> -ffast-math") for n in rocm.notes)
    assert rocm.extra_cflags == ext.extra_cflags
    assert extbuild.for_torch(ext, TORCH_EXT, fake_torch(cuda="12.4")) is ext  # the CUDA build keeps nvcc's flags
    flags, notes = extbuild.hip_flags(("-gencode", "arch=compute_80,code=sm_80", "-Xcompiler", "-fPIC", "-O2"))
    assert flags == ("-fPIC", "-O2") and "dropped" in notes[0]


def test_a_project_module_imported_for_another_project_is_forgotten(tmp_path, monkeypatch):
    # two runs in one process (the review app, the tests): the second project's ops and the helpers they import
    # must be its own files, never the first project's modules of the same name
    import json
    import sys

    import porter
    from porter.smoke import portrun

    first, second = tmp_path / "proj", tmp_path / "proj2"
    for root in (first, second):
        root.mkdir()
        (root / "helper_for_forget_test.py").write_text(f"WHERE = {root.name!r}\n")
        (root / "json.py").write_text("")                           # shadows the standard library
        (root / "porter").mkdir()
        (root / "porter" / "__init__.py").write_text("")            # shadows porter itself
    monkeypatch.syspath_prepend(str(second))
    import helper_for_forget_test

    assert helper_for_forget_test.WHERE == "proj2"
    portrun._forget_other_projects(second)          # its own module: kept
    assert sys.modules["helper_for_forget_test"] is helper_for_forget_test
    portrun._forget_other_projects(first)           # proj2's module, though proj2 starts with "proj": dropped
    assert "helper_for_forget_test" not in sys.modules
    assert sys.modules["json"] is json and sys.modules["porter"] is porter
