"""`porter scan` on the sample projects gives the findings a porter user expects there."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from porter.project.scan import scan_path

SAMPLES = Path(__file__).resolve().parents[2] / "sample_projects"


def _scan(name: str):
    root = SAMPLES / name
    if not root.is_dir():
        pytest.skip(f"sample project {name} is not in this checkout")
    return root, scan_path(root).findings


def _code_lines(path: Path, pattern: str) -> set[int]:
    """Lines matching ``pattern`` outside // comments and string literals (a test oracle, not the scanner)."""
    out = set()
    in_block = False
    for i, line in enumerate(path.read_text().splitlines(), 1):
        if in_block:
            if "*/" not in line:
                continue
            line, in_block = line.split("*/", 1)[1], False
        line = re.sub(r'"(?:[^"\\]|\\.)*"', '""', line.split("//")[0])
        if "/*" in line:
            line, in_block = line.split("/*")[0], "*/" not in line.split("/*", 1)[1]
        if re.search(pattern, line):
            out.add(i)
    return out


def _lines(findings, rule, file):
    return {f.line for f in findings if f.rule == rule and f.file == file}


def test_warp_reduce_lane_mask_errors_at_every_sync_intrinsic():
    root, findings = _scan("warp_reduce")
    for rel in ("warp_utils.cuh", "reduce_kernels.cu"):
        expected = _code_lines(root / rel, r"__(shfl|shfl_up|shfl_down|shfl_xor|ballot|any|all)_sync\s*\(")
        assert expected and _lines(findings, "PORT020", rel) == expected, rel
        assert all(f.severity == "error" and f.fix and f.fix.safe for f in findings if f.rule == "PORT020" and f.file == rel)
    assert _lines(findings, "PORT010", "warp_utils.cuh") == _code_lines(root / "warp_utils.cuh", r"#define\s+WARP_SIZE\s+32")
    assert _lines(findings, "PORT022", "reduce_kernels.cu") == _code_lines(root / "reduce_kernels.cu", r"__activemask\s*\(")
    assert _lines(findings, "PORT012", "warp_utils.cuh"), "shuffle loops from 16"
    assert _lines(findings, "PORT011", "warp_utils.cuh") >= _code_lines(root / "warp_utils.cuh", r"threadIdx\.x\s*&\s*31")


def test_inline_ptx_has_an_inline_asm_finding_at_each_ptx_statement():
    root, findings = _scan("inline_ptx")
    for path in sorted(root.iterdir()):
        if path.suffix not in (".cu", ".cuh", ".h"):
            continue
        asm = _code_lines(path, r"\basm\b\s*(volatile\s*)?\(")
        raw = path.read_text().splitlines()
        barriers = {i for i in asm if re.search(r'\basm\b\s*(volatile\s*)?\(\s*""\s*:', raw[i - 1])}
        assert _lines(findings, "PORT001", path.name) == asm - barriers, path.name
    fixed = [f for f in findings if f.rule == "PORT001" and f.fix and f.fix.safe]
    assert len(fixed) >= 8, "the common idioms (%laneid, prmt, shf, popc, brev, mul.hi, membar, clock64) get a fix"
    assert {"PORT100", "PORT110"} <= {f.rule for f in findings}


def test_wmma_gemm_tensor_core_and_async_copy():
    root, findings = _scan("wmma_gemm")
    rules = {(f.file, f.rule) for f in findings}
    assert {("wmma_gemm.cu", "PORT050"), ("wmma_gemm.cu", "PORT051"), ("async_copy.cu", "PORT060"),
            ("async_copy.cu", "PORT061")} <= rules
    assert _lines(findings, "PORT060", "async_copy.cu") >= _code_lines(root / "async_copy.cu", r"__pipeline_\w+\s*\(|#include\s*<cuda(_pipeline\.h|/barrier)>")


def test_coop_managed_dynamic_parallelism_textures_managed_memory():
    root, findings = _scan("coop_managed")
    rules = {(f.file, f.rule) for f in findings}
    assert ("dynpar.cu", "PORT090") in rules
    assert ("texture_simd.cu", "PORT080") in rules
    assert ("texture_simd.cu", "PORT030") in rules  # cudaBindTexture / __vadd4
    assert any(r == "PORT120" for _, r in rules)
    # the grid-synchronised kernel is launched cooperatively after the attribute check: no PORT070
    assert not [f for f in findings if f.rule == "PORT070"]


def test_tiled_matmul_launch_bounds():
    root, findings = _scan("tiled_matmul")
    assert _lines(findings, "PORT040", "matmul_kernels.cu") == _code_lines(root / "matmul_kernels.cu", r"__launch_bounds__\s*\([^,()]+,")


def test_build_files_report_nvcc_flags():
    for name in ("warp_reduce", "inline_ptx", "wmma_gemm", "coop_managed"):
        root, findings = _scan(name)
        build = {f.rule for f in findings if f.category == "build-flag"}
        assert build & {"PORT140", "PORT141"}, name


def test_host_only_sources_are_quiet():
    root, findings = _scan("blas_rand")
    noisy = [f for f in findings if f.category != "build-flag" and f.severity in ("warning", "error")
             and f.rule not in ("PORT030",)]
    assert noisy == [], [(f.file, f.line, f.rule) for f in noisy]


@pytest.mark.hipcc
def test_warp_reduce_compiles_with_hip_5_2_after_the_safe_fixes(tmp_path, hipcc_compile):
    """The point of the maskless fixes: Debian's HIP 5.2 has no *_sync intrinsics, and the
    fixed, translated project compiles."""
    from porter.findings import apply_fixes, scan
    from porter.translate import translate

    root, _ = _scan("warp_reduce")
    for path in root.iterdir():
        if path.suffix in (".cu", ".cuh", ".h"):
            data = path.read_bytes()
            for _ in range(3):
                data = apply_fixes(data, scan(data, path.name))
            assert not [f for f in scan(data, path.name) if f.severity == "error"], path.name
            (tmp_path / path.name).write_bytes(translate(data, str(path)).output)
    rc, out = hipcc_compile((tmp_path / "reduce_kernels.cu").read_bytes().replace(
        b'#include "', b'#include "' + str(tmp_path).encode() + b"/"), "reduce_kernels")
    assert rc == 0, out[-3000:]


def test_a_folder_scanned_on_several_cores_reports_what_one_core_does():
    """`porter scan` of a folder uses worker processes: same findings, same order, same counts."""
    one = scan_path(SAMPLES, jobs=1)
    many = scan_path(SAMPLES, jobs=2)
    assert len(one.findings) > 100
    assert [f.as_dict() for f in many.findings] == [f.as_dict() for f in one.findings]
    assert (many.files, many.lines, many.errors) == (one.files, one.lines, one.errors)
