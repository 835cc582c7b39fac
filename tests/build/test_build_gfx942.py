"""gfx942 (MI300X) offline with Debian 12's clang-19 over ROCm 5.2's headers
and device libraries: porter makes the missing oclc_isa_version_942.bc in its
own cache, picks clang-19 when hipcc does not know gfx942, and what it builds
holds a gfx942 code object (checked with LLVM's own tools, not only porter's
reader)."""

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from porter.build import BuildOptions, devicelibs, fatbin, hipdriver, run_build
from porter.build.toolchain import detect_toolchain

ROOT = Path(__file__).resolve().parents[2]
KERNEL = """#include <hip/hip_runtime.h>
#include <cstdio>

__global__ void wave(float* x, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float v = i < n ? sinf(x[i]) : 0.0f;
    for (int d = 32; d > 0; d /= 2) v += __shfl_down(v, d);
    if (i < n) x[i] = v;
}

int main() {
    float* d = nullptr;
    if (hipMalloc(&d, 256 * sizeof(float)) != hipSuccess) { std::printf("no GPU\\n"); return 0; }
    hipLaunchKernelGGL(wave, dim3(4), dim3(64), 0, 0, d, 256);
    return hipDeviceSynchronize() == hipSuccess ? 0 : 1;
}
"""


def _llvm_targets(path: Path, tmp: Path) -> list[str]:
    """The bundle's entries as clang-offload-bundler-19 lists them."""
    sec = tmp / (path.name + ".fatbin")
    subprocess.run(["llvm-objcopy-19", f"--dump-section=.hip_fatbin={sec}", str(path), str(tmp / "scratch.o")],
                   check=True, timeout=60)
    r = subprocess.run(["clang-offload-bundler-19", "--list", "--type=o", f"--input={sec}"], capture_output=True,
                       text=True, check=True, timeout=60)
    return r.stdout.split()


# ---------------------------------------------------------------- no compiler needed

def test_isa_module_text_holds_the_upstream_constant():
    text = devicelibs.isa_module_text("gfx942")
    assert "constant i32 9402, align 4" in text and 'target triple = "amdgcn-amd-amdhsa"' in text
    assert "linkonce_odr protected local_unnamed_addr addrspace(4)" in text
    assert "constant i32 9500" in devicelibs.isa_module_text("gfx950:sramecc+")
    assert devicelibs.isa_file_name("gfx942:xnack-") == "oclc_isa_version_942.bc"
    with pytest.raises(KeyError):
        devicelibs.isa_module_text("gfx90a")  # shipped: porter never invents it


def test_prepare_refuses_a_folder_without_device_libraries(tmp_path):
    got = devicelibs.prepare(str(tmp_path), "/usr/bin/clang++-19")
    assert got.folder is None and "ocml.bc" in got.problem and "\n" not in got.problem


def test_driver_compiles_sources_as_hip_and_links_the_runtime():
    cfg = {"clang": "/usr/bin/clang++-19", "flags": ["--rocm-path=/usr", "--rocm-device-lib-path=/c/dl"],
           "link": ["-L/usr/lib", "-lamdhip64"]}
    compile_ = hipdriver.argv_for(cfg, ["-O3", "--offload-arch=gfx942", "-c", "k.cu", "-o", "k.o"])
    # (no `-x none` after the last source when no input file follows: clang would warn it has no effect)
    assert compile_ == ["/usr/bin/clang++-19", "--rocm-path=/usr", "--rocm-device-lib-path=/c/dl", "-O3",
                        "--offload-arch=gfx942", "-c", "-x", "hip", "k.cu", "-o", "k.o"]
    link = hipdriver.argv_for(cfg, ["--offload-arch=gfx942", "-o", "app", "main.o", "k.o"])
    assert link[:2] == ["/usr/bin/clang++-19", "--hip-link"] and link[-2:] == ["-L/usr/lib", "-lamdhip64"]
    assert "-x" not in link
    # one step from source: the source is HIP, the objects after it are not
    both = hipdriver.argv_for(cfg, ["-o", "app", "main.cu", "k.o"])
    assert both[both.index("main.cu") - 2:both.index("main.cu") + 3] == ["-x", "hip", "main.cu", "-x", "none"]


def test_fatbin_reader_says_what_is_wrong_in_one_line(tmp_path):
    p = tmp_path / "not-elf.o"
    p.write_bytes(b"hello")
    with pytest.raises(fatbin.FatbinError) as e:
        fatbin.targets(str(p))
    assert "\n" not in str(e.value)
    with pytest.raises(fatbin.FatbinError, match="No such file"):
        fatbin.targets(str(tmp_path / "missing.o"))


def test_bad_toolchain_kind_is_one_line(tmp_path):
    from porter.build import BuildError

    with pytest.raises(BuildError, match="--toolchain 'nvcc': one of auto, hipcc, clang"):
        run_build(tmp_path, BuildOptions(toolchain="nvcc"))


# ---------------------------------------------------------------- with clang-19

def test_device_library_folder_is_made_in_porters_cache_and_reused(need_hipcc, need_clang19, tmp_path, monkeypatch):
    monkeypatch.setenv("PORTER_CACHE_DIR", str(tmp_path / "cache"))
    src = devicelibs.find_bitcode_dir("/usr")
    assert src and not os.path.exists(os.path.join(src, "oclc_isa_version_942.bc")), "ROCm 5.2 lacks it"
    before = sorted(os.listdir(src))
    got = devicelibs.prepare(src, shutil.which("clang++-19"))
    assert got.problem == "" and got.folder.startswith(str(tmp_path / "cache"))
    assert "gfx942" in got.archs and "gfx90a" in got.archs and "oclc_isa_version_942.bc" in got.generated
    folder = Path(got.folder)
    assert set(before) <= set(os.listdir(folder))  # every shipped file is there too
    assert sorted(os.listdir(src)) == before  # nothing written under /usr
    ir = subprocess.run(["llvm-dis-19", str(folder / "oclc_isa_version_942.bc"), "-o", "-"], capture_output=True,
                        text=True, check=True, timeout=60).stdout
    assert ("@__oclc_ISA_version = linkonce_odr protected local_unnamed_addr addrspace(4) constant i32 9402, align 4"
            in ir)
    stamp = (folder / "oclc_isa_version_942.bc").stat().st_mtime_ns
    again = devicelibs.prepare(src, shutil.which("clang++-19"))
    assert again.folder == got.folder and (folder / "oclc_isa_version_942.bc").stat().st_mtime_ns == stamp


def test_a_damaged_device_library_is_made_again(need_hipcc, need_clang19, tmp_path, monkeypatch):
    """A damaged generated file would fail every gfx942 build with "1 error generated": it is checked
    against the SHA-256 written when it was made, and made again."""
    monkeypatch.setenv("PORTER_CACHE_DIR", str(tmp_path / "cache"))
    src = devicelibs.find_bitcode_dir("/usr")
    got = devicelibs.prepare(src, shutil.which("clang++-19"))
    bc = Path(got.folder) / "oclc_isa_version_942.bc"
    good = bc.read_bytes()
    for damage in (good[: len(good) // 2], good[:-1] + bytes([good[-1] ^ 1]), b""):
        bc.write_bytes(damage)
        again = devicelibs.prepare(src, shutil.which("clang++-19"))
        assert again.problem == "" and bc.read_bytes() != damage
        ir = subprocess.run(["llvm-dis-19", str(bc), "-o", "-"], capture_output=True, text=True, check=True,
                            timeout=60).stdout
        assert "constant i32 9402" in ir


@pytest.mark.skipif(not hasattr(os, "getuid") or os.getuid() != 0, reason="chown to another uid needs root")
def test_a_device_library_folder_another_user_can_write_is_not_used(need_hipcc, need_clang19, tmp_path, monkeypatch):
    """clang links what the folder holds: a shared or foreign cache folder is refused in one line."""
    cache_dir = tmp_path / "cache"
    monkeypatch.setenv("PORTER_CACHE_DIR", str(cache_dir))
    src = devicelibs.find_bitcode_dir("/usr")
    for mode, owner in ((0o777, 0), (0o755, 65534)):
        cache_dir.mkdir(exist_ok=True)
        os.chown(cache_dir, owner, owner)
        os.chmod(cache_dir, mode)
        got = devicelibs.prepare(src, shutil.which("clang++-19"))
        assert got.folder is None and "not safe" in got.problem and str(cache_dir) in got.problem
        assert "\n" not in got.problem
        os.chown(cache_dir, 0, 0)
        os.chmod(cache_dir, 0o700)


def test_default_build_picks_clang19_for_gfx942_and_says_why(need_hipcc, need_clang19):
    tc = detect_toolchain()
    if tc.local_gpus:
        pytest.skip(f"a local GPU ({tc.local_gpus[0]}) decides the default arch here")
    assert tc.arch == "gfx942" and tc.arch_source == "default" and tc.arch_supported is True
    assert tc.compiler_kind == "clang" and os.path.basename(tc.compiler) == "clang++-19"
    assert "gfx942" in tc.reason and "hipcc" in tc.reason  # hipcc 5.2 does not know it, and it says so
    assert os.path.isfile(os.path.join(tc.device_lib_path, "oclc_isa_version_942.bc"))
    assert not tc.device_lib_path.startswith("/usr")
    # an arch hipcc knows stays with hipcc (ROCm's own driver first)
    assert detect_toolchain("gfx90a").compiler_kind == "hipcc"


def test_unknown_arch_names_what_each_toolchain_can_build(need_hipcc, need_clang19):
    msg = detect_toolchain("gfx9999").arch_problem()
    assert "\n" not in msg and "--offload-arch=gfx9999" in msg
    assert "hipcc (clang 15" in msg and "clang++-19 (clang 19" in msg and "gfx942" in msg


def test_per_file_build_for_gfx942_holds_a_gfx942_code_object(toolchain942, tmp_path):
    (tmp_path / "wave.hip").write_text(KERNEL)
    report = run_build(tmp_path, BuildOptions(per_file=True), toolchain=toolchain942)
    assert report.ok, "\n".join(d.one_line() for d in report.errors)
    assert report.arch == "gfx942" and report.toolchain.startswith("clang++-19")
    program = tmp_path / report.outputs[0]
    assert report.code_objects[report.outputs[0]] == ["amdgcn-amd-amdhsa--gfx942"]
    assert "hipv4-amdgcn-amd-amdhsa--gfx942" in _llvm_targets(program, tmp_path)
    obj = tmp_path / report.units[0].output
    assert "hipv4-amdgcn-amd-amdhsa--gfx942" in _llvm_targets(obj, tmp_path)
    # the compile command in compile_commands.json is the real clang-19 one
    cmd = json.loads((tmp_path / "compile_commands.json").read_text())[0]["arguments"]
    assert cmd[:4] == [toolchain942.compiler, "-x", "hip", "--offload-arch=gfx942"]
    assert any(a.startswith("--rocm-device-lib-path=") for a in cmd)


def test_atomicinc_with_llvm19_gets_a_hint(toolchain942, tmp_path):
    (tmp_path / "count.hip").write_text("#include <hip/hip_runtime.h>\n"
                                        "__global__ void count(unsigned* c) { atomicInc(c, 100u); }\n")
    report = run_build(tmp_path, BuildOptions(per_file=True), toolchain=toolchain942)
    assert not report.ok
    hinted = [d for d in report.errors if "llvm.amdgcn.atomic.inc" in d.message]
    assert hinted and "__builtin_amdgcn_atomic_inc32" in hinted[0].hint


def test_cli_build_with_no_flag_compiles_for_gfx942(need_hipcc, need_clang19, tmp_path):
    """What the review app's `c` runs: `porter build OUT --json`, no --arch."""
    tc = detect_toolchain()
    if tc.local_gpus:
        pytest.skip(f"a local GPU ({tc.local_gpus[0]}) decides the default arch here")
    src, out = tmp_path / "src", tmp_path / "out"
    shutil.copytree(ROOT / "sample_projects" / "warp_reduce", src)
    subprocess.run([sys.executable, "-m", "porter", "convert", str(src), "-o", str(out), "--fix"], check=True,
                   capture_output=True, timeout=300, cwd=ROOT)
    r = subprocess.run([sys.executable, "-m", "porter", "build", str(out)], capture_output=True, text=True,
                       timeout=600, cwd=ROOT)
    assert r.returncode == 0, r.stdout + r.stderr
    last = r.stdout.strip().splitlines()[-1]
    assert last.startswith("build ok: make for gfx942 with clang++-19"), last
    assert "warp_reduce holds amdgcn-amd-amdhsa--gfx942" in r.stdout
    assert "hipv4-amdgcn-amd-amdhsa--gfx942" in _llvm_targets(out / "warp_reduce", tmp_path)


RDC_LIB = """#include <hip/hip_runtime.h>
__device__ float twice(float x) { return 2.0f * x; }
"""
RDC_MAIN = """#include <hip/hip_runtime.h>
__device__ float twice(float x);
__global__ void k(float* x) { x[threadIdx.x] = twice(x[threadIdx.x]); }
int main() { hipLaunchKernelGGL(k, dim3(1), dim3(64), 0, 0, nullptr); return 0; }
"""


@pytest.mark.parametrize("build_file", [("Makefile", "HIPFLAGS := -O2 -fgpu-rdc\n"),
                                        ("CMakeLists.txt", "set_target_properties(app PROPERTIES "
                                                           "CUDA_SEPARABLE_COMPILATION ON)\n")])
def test_per_file_build_uses_fgpu_rdc_when_the_project_asks(toolchain942, tmp_path, build_file):
    """A device function defined in another file links only with relocatable
    device code: the per-file build must do what the project's build does."""
    (tmp_path / "lib.hip").write_text(RDC_LIB)
    (tmp_path / "main.hip").write_text(RDC_MAIN)
    (tmp_path / build_file[0]).write_text(build_file[1])
    report = run_build(tmp_path, BuildOptions(per_file=True), toolchain=toolchain942)
    assert report.ok, "\n".join(d.one_line() for d in report.errors)
    cmd = json.loads((tmp_path / "compile_commands.json").read_text())[0]["arguments"]
    assert "-fgpu-rdc" in cmd
    assert report.code_objects[report.outputs[0]] == ["amdgcn-amd-amdhsa--gfx942"]
    # and without the request, the same tree does not link (the verdict really depends on it)
    (tmp_path / build_file[0]).write_text("\n")
    plain = run_build(tmp_path, BuildOptions(per_file=True), toolchain=toolchain942)
    assert not plain.ok


def test_hipcc_only_for_gfx942_points_to_the_clang_toolchain(need_hipcc, need_clang19):
    tc = detect_toolchain("gfx942", kind="hipcc")
    assert tc.compiler_kind == "hipcc" and tc.arch == "gfx942" and tc.arch_supported is False
    msg = tc.arch_problem()
    assert msg.startswith("hipcc (clang 15") and "--toolchain clang" in msg and "\n" not in msg
