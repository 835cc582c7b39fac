"""The warp-size rules that follow a value (PORT015-PORT017, and PORT010-PORT016 across files).

Projects under tests/findings/projects/ are scanned file by file from disk, so that the
project headers each file includes are read: every warp-size finding must stand on a line
marked ``expect: PORTnnn`` (``PORTnnn(info)``: and be an info), and every mark must be found.
The fixed projects (all fixes applied, converted to HIP) compile for gfx90a with hipcc and
for gfx942 with porter's clang-19 toolchain."""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path

import pytest

from porter.findings import apply_fixes, scan, values
from porter.translate import translate
from required_tools import require

PROJECTS = Path(__file__).with_name("projects")
SOURCES = (".cu", ".cuh", ".h", ".cpp")
WARP_RULES = {f"PORT01{i}" for i in range(8)}
_MARK = re.compile(r"expect:\s*((?:PORT\d{3}(?:\(info\))?[\s,]*)+)")


def _files(project: str) -> list[Path]:
    return sorted(p for p in (PROJECTS / project).iterdir() if p.suffix in SOURCES)


def _expected(path: Path) -> set[tuple[str, int, str | None]]:
    out = set()
    for line_no, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        m = _MARK.search(line)
        if m:
            for rule, info in re.findall(r"(PORT\d{3})(\(info\))?", m.group(1)):
                out.add((rule, line_no, "info" if info else None))
    return out


def _scan_file(path: Path):
    return scan(path.read_bytes(), f"{path.parent.name}/{path.name}", file=path)


# the wave model's project (wave_model/) is held to every warp-size and lane-mask rule but the three that
# report each *_sync call, __syncwarp and __activemask whatever the wave, and to the severity a mark names
WAVE_RULES = WARP_RULES | {"PORT019", "PORT023", "PORT024", "PORT025", "PORT026"}
_SEVERITY_MARK = re.compile(r"expect:\s*((?:PORT\d{3}(?:\((?:info|warning|error)\))?[\s,]*)+)")


def test_the_wave_model_project_matches_its_marks():
    """Kernels that mix the native wave and 32 lanes get errors; consistent 32-lane code does not;
    wave-agnostic code (clean.cu) gets no warp-size finding at all."""
    for path in _files("wave_model"):
        findings = _scan_file(path)
        assert not [f for f in findings if f.rule == "PORT900"], [f.message for f in findings if f.rule == "PORT900"]
        expected = {}
        for line_no, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            m = _SEVERITY_MARK.search(line)
            if m:
                for rule, sev in re.findall(r"(PORT\d{3})(?:\((\w+)\))?", m.group(1)):
                    expected[(rule, line_no)] = sev or None
        got = {(f.rule, f.line): f.severity for f in findings if f.rule in WAVE_RULES}
        assert set(got) == set(expected), f"{path.name}: got {sorted(got)}, expected {sorted(expected)}"
        for key, sev in expected.items():
            if sev is not None:
                assert got[key] == sev, f"{path.name}:{key[1]} {key[0]} is {got[key]}, expected {sev}"
        if path.name == "clean.cu":
            assert not [f for f in findings if f.category == "warp-size"]


def test_the_wave_model_project_fixes():
    """The native helper's shuffle gets the default width, safely; the 32-lane helper keeps its width."""
    common = PROJECTS / "wave_model" / "common.cuh"
    fixed = apply_fixes(common.read_bytes(), _scan_file(common)).decode()
    assert "v += __shfl_down(v, i);" in fixed  # offsets from warpSize / 2: the whole wave
    assert "__shfl_xor(v, o, WS)" in fixed  # an explicit width stays
    mixed = PROJECTS / "wave_model" / "mixed.cu"
    safe = [f for f in _scan_file(mixed) if f.fix is not None and f.fix.safe]
    # nothing in the mixed kernels is fixed without review but the fence of __syncwarp (none here)
    assert [f.rule for f in safe if f.rule not in ("PORT020",)] == []
    assert all("the offsets follow" not in f.fix.description for f in safe)


@pytest.mark.parametrize("project", sorted(p.name for p in PROJECTS.iterdir() if p.is_dir() and p.name != "wave_model"))
def test_project_findings_match_the_marks(project):
    for path in _files(project):
        findings = _scan_file(path)
        assert not [f for f in findings if f.rule == "PORT900"], [f.message for f in findings if f.rule == "PORT900"]
        got = {(f.rule, f.line) for f in findings if f.rule in WARP_RULES}
        expected = _expected(path)
        assert got == {(r, line) for r, line, _sev in expected}, f"{path.name}: got {sorted(got)}"
        for f in findings:
            if f.rule in WARP_RULES:
                sev = next(s for r, line, s in expected if (r, line) == (f.rule, f.line))
                if sev == "info":
                    assert f.severity == "info", f"{path.name}:{f.line} {f.rule} is {f.severity}"
                elif f.rule in ("PORT011", "PORT015", "PORT016"):
                    assert f.severity == "warning", f"{path.name}:{f.line} {f.rule} is {f.severity}"
                assert not re.search(r"\{[a-z_0-9]+\}", f.message), f.message


def test_use_in_a_source_points_back_to_the_header_definition():
    path = PROJECTS / "named_width" / "kernels.cu"
    lines = path.read_text(encoding="utf-8").splitlines()
    by_line = {f.line: f.message for f in _scan_file(path) if f.rule == "PORT015"}

    def at(text):
        return by_line[next(i for i, line in enumerate(lines, 1) if text in line)]

    warp = at("threadIdx.x / WARP_SIZE")
    assert "`WARP_SIZE` (32, defined at named_width/warp.cuh:5)" in warp and "`warpSize`" in warp
    assert "`LANE_MASK` (31 = (WARP_SIZE - 1), `WARP_SIZE` defined at named_width/warp.cuh:5)" in at("& LANE_MASK")
    assert "hipDeviceAttributeWarpSize" in at("threads / WARP_SIZE")  # host code
    assert "`kTileN` (256 = 8 * WARP_SIZE, `WARP_SIZE` defined at named_width/warp.cuh:5)" in at("<<<n / kTileN")


def test_logical_warps_make_the_findings_infos_but_a_wave_vote_does_not():
    logical = _scan_file(PROJECTS / "logical32" / "reduce.cu")
    assert {f.severity for f in logical if f.category == "warp-size"} == {"info"}
    assert any("32-lane logical warps" in f.message for f in logical if f.rule == "PORT011")
    votes = _scan_file(PROJECTS / "wave_votes" / "compact.cu")
    assert {f.severity for f in votes if f.rule in ("PORT011", "PORT015")} == {"warning"}


def test_the_32_lane_note_names_the_wrapping_macro_and_the_cost():
    (f,) = [f for f in _scan_file(PROJECTS / "logical32" / "shfl.cuh") if f.rule == "PORT017"]
    assert f.severity == "info" and "`SHFL_XOR` wraps the shuffles with width 32" in f.message
    assert "twice as many warp partials" in f.message


def test_a_width_set_for_amd_is_already_ported():
    src = b"""#if defined(__HIP_PLATFORM_AMD__)
#define WARP_SIZE 64
#else
#define WARP_SIZE 32
#endif
__global__ void k(int* o) { o[threadIdx.x / WARP_SIZE] = threadIdx.x % WARP_SIZE; }
"""
    assert [f.rule for f in scan(src, "k.cu") if f.category == "warp-size"] == []


def test_the_definition_fix_follows_the_uses():
    device_only = b"""__global__ void k(int* o)
{
    const int warp_size = 32;
    o[threadIdx.x / warp_size] = threadIdx.x % warp_size;
}
"""
    (f,) = [f for f in scan(device_only, "k.cu") if f.rule == "PORT010"]
    assert not f.fix.safe and b"const int warp_size = warpSize;" in apply_fixes(device_only, [f], safe_only=False)
    global_const = b"""__device__ constexpr int kWarpSize = 32;
__global__ void k(int* o) { o[threadIdx.x / kWarpSize] = threadIdx.x; }
"""
    (f,) = [f for f in scan(global_const, "k.cu") if f.rule == "PORT010"]
    assert b"constexpr int kWarpSize = 64;" in apply_fixes(global_const, [f], safe_only=False)
    assert "constant expression" in f.message
    sized = b"""#define WARP_SIZE 32
__global__ void k(float* o) { __shared__ float s[WARP_SIZE]; s[threadIdx.x % WARP_SIZE] = 1.0f; o[0] = s[0]; }
"""
    (f,) = [f for f in scan(sized, "k.cu") if f.rule == "PORT010"]
    assert "line 2 needs a compile-time value" in f.message
    fixed = apply_fixes(sized, [f], safe_only=False)
    assert fixed.startswith(b"#if defined(__HIP_PLATFORM_AMD__)\n#define WARP_SIZE 64")
    again = [g.rule for g in scan(fixed, "k.cu") if g.category == "warp-size"]
    assert "PORT010" not in again and "PORT015" not in again


def test_shuffle_loop_through_a_wrapper_without_width():
    src = b"""#define SHFL_DOWN(v, o) __shfl_down_sync(0xffffffff, v, o)
__device__ float sum(float v) { for (int o = 16; o > 0; o >>= 1) v += SHFL_DOWN(v, o); return v; }
"""
    assert [f.line for f in scan(src, "k.cu") if f.rule == "PORT012"] == [2]
    ok = src.replace(b"v, o)\n", b"v, o, 32)\n")
    assert [f.line for f in scan(ok, "k.cu") if f.rule == "PORT012"] == []


@pytest.mark.parametrize("text, value", [("32", 32), ("(WARP_SIZE - 1)", 31), ("8 * WARP_SIZE", 256),
                                         ("1 << LOG", 32), ("WARP_SIZE / 2", 16), ("0x1f", 31), ("32u", 32),
                                         ("~0u", 0xFFFFFFFF), ("WARP_SIZE >> 1 | 1", 17), ("threadIdx.x / 32", None),
                                         ("sizeof(int)", None), ("UNKNOWN + 1", None), ("10 / 0", None), ("", None),
                                         # caps and conditions as template arguments write them
                                         ("std::min(BLOCK, 32)", 32), ("(BLOCK < 32 ? BLOCK : 32)", 32),
                                         ("max(WARP_SIZE / 2, 8)", 16), ("WARP_SIZE == 32 && BLOCK > 64", 1),
                                         ("1 ? 2 : 3 ? 4 : 5", 2), ("min(1)", None), ("a ? 1", None),
                                         # a negative right operand is a value like any other (but for shifts)
                                         ("WARP_SIZE + -1", 31), ("BLOCK * -1 + 288", 32), ("WARP_SIZE > -1", 1),
                                         ("WARP_SIZE - -32", 64), ("1 << -1", None), ("64 >> 64", None)])
def test_evaluate(text, value):
    table = {"WARP_SIZE": 32, "LOG": 5, "BLOCK": 256}
    assert values.evaluate(text, table.get) == value


def test_header_cache_sees_an_edit(tmp_path):
    (tmp_path / "w.cuh").write_text("#define WARP_SIZE 32\n")
    src = tmp_path / "k.cu"
    src.write_text('#include "w.cuh"\n__global__ void k(int* o) { o[threadIdx.x / WARP_SIZE] = 0; }\n')
    assert [f.line for f in scan(src.read_bytes(), "k.cu", file=src) if f.rule == "PORT015"] == [2]
    (tmp_path / "w.cuh").write_text("#define WARP_SIZE 64   // wave64\n")
    os.utime(tmp_path / "w.cuh", ns=(1, 1))  # a different stamp even within the clock's resolution
    assert [f.line for f in scan(src.read_bytes(), "k.cu", file=src) if f.rule == "PORT015"] == []


def _fixed_project(project: str, dest: Path) -> None:
    for path in _files(project):
        data = path.read_bytes()
        findings = scan(data, path.name, file=path)
        fixed = apply_fixes(data, findings, safe_only=False)
        (dest / path.name).write_bytes(translate(fixed, path.name).output)


@pytest.mark.hipcc
@pytest.mark.slow
@pytest.mark.parametrize("arch", ["gfx90a", "gfx942"])
@pytest.mark.parametrize("project", sorted(p.name for p in PROJECTS.iterdir() if p.is_dir()))
def test_fixed_project_compiles(project, arch, tmp_path, monkeypatch):
    require(shutil.which("hipcc"), "hipcc not found: the fixed projects are not compile-checked")
    require(arch != "gfx942" or all(shutil.which(t) for t in ("clang++-19", "ld.lld-19", "llvm-dis-19")),
            "clang-19 not installed: no gfx942 compile here")
    from porter.build import BuildOptions, run_build
    from porter.build.toolchain import detect_toolchain

    monkeypatch.setenv("PORTER_CACHE_DIR", str(tmp_path / "cache"))
    out = tmp_path / project
    out.mkdir()
    _fixed_project(project, out)
    report = run_build(out, BuildOptions(per_file=True, arch=arch), toolchain=detect_toolchain(arch))
    assert report.ok, "\n".join(d.one_line() for d in report.errors)
    assert report.arch == arch


def test_odd_includes_are_read_once_or_skipped(tmp_path):
    (tmp_path / "a.cuh").write_text('#include "b.cuh"\n#define WARP_SIZE 32\n')
    (tmp_path / "b.cuh").write_text('#include "a.cuh"\n#define LANE_MASK (WARP_SIZE - 1)\n')  # a cycle
    (tmp_path / "bin.cuh").write_bytes(b"\x00\x01\x02#define WARP_SIZE 64\n")  # binary: not read
    (tmp_path / "dir.cuh").mkdir()
    src = tmp_path / "k.cu"
    src.write_text('#include "a.cuh"\n#include "missing.cuh"\n#include "bin.cuh"\n#include "dir.cuh"\n'
                   "__global__ void k(int* o) { o[threadIdx.x & LANE_MASK] = 0; }\n")
    found = [f for f in scan(src.read_bytes(), "k.cu", file=src) if f.rule in ("PORT015", "PORT900")]
    assert [(f.rule, f.line) for f in found] == [("PORT015", 5)]
    assert "`WARP_SIZE` defined at a.cuh:2" in found[0].message
    # a path that cannot name a file is no error
    assert [f.rule for f in scan(b'#include "a.cuh"\nint x;\n', "bad\0name.cu")] == []


def test_sample_kernels_see_the_width_of_their_helper_header():
    root = Path(__file__).resolve().parents[2] / "sample_projects" / "warp_reduce"
    path = root / "reduce_kernels.cu"
    lines = path.read_text(encoding="utf-8").splitlines()
    uses = {i for i, line in enumerate(lines, 1) if re.search(r"\bWARP_SIZE\b", line.split("//")[0])}
    found = [f for f in scan(path.read_bytes(), "warp_reduce/reduce_kernels.cu", file=path) if f.rule == "PORT015"]
    assert {f.line for f in found} == uses and uses
    assert all("defined at warp_reduce/warp_utils.cuh:11" in f.message for f in found)
