"""The "parse error here" warnings of a big file whose brackets do not balance as written because the
branches of an ``#ifdef`` each open a brace (one signature per configuration, one body): valid code
gets none, a real syntax error anywhere in the file gets its warning, and ``porter convert -q`` into a
file, which shows no warning, makes no parse for them (issue 34: the parse of every region was 0.75 s
of a 1.1 s convert of a 100k-line file), with the same port."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from porter import parse
from porter.project.convert import ConvertOptions, convert_tree
from porter.translate.engine import translate
from porter.translate.source_index import BIG_BYTES, index_source

ROOT = Path(__file__).resolve().parents[2]

# one signature per configuration, one body: nvcc compiles either (-DUSE_DOUBLE or not); as written the
# text opens two braces and closes one
AXPY = b"""\
#include <cuda_runtime.h>

#ifdef USE_DOUBLE
__global__ void axpy(double a, const double *x, double *y, int n) {
#else
__global__ void axpy(float a, const float *x, float *y, int n) {
#endif
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] += a * x[i];
}
"""

UNIT = """
__global__ void scale_{k}(float *x, float a, int n) {{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {{
    x[i] *= a;  // {pad}
  }}
}}

void run_scale_{k}(float *d_x, int n) {{
  scale_{k}<<<(n + 255) / 256, 256>>>(d_x, 2.0f, n);
  cudaDeviceSynchronize();
}}
"""

BROKEN_UNIT = 70  # far from the #ifdef: a region of its own in a file cut into regions
BROKEN = b"  int missing_operand = ;\n"  # ill-formed: an initializer needs an expression


def _file(broken: bool) -> bytes:
    parts = [AXPY]
    for k in range(120):
        unit = UNIT.format(k=k, pad="x" * 400).encode()
        if broken and k == BROKEN_UNIT:
            unit = unit.replace(b"  cudaDeviceSynchronize();\n", BROKEN + b"  cudaDeviceSynchronize();\n")
        parts.append(unit)
    source = b"".join(parts)
    assert len(source) > BIG_BYTES  # parsed a region at a time
    return source


def _broken_line(source: bytes) -> int:
    return source[:source.index(BROKEN)].count(b"\n") + 1


def _parse_warnings(warnings) -> list[str]:
    return [w for w in warnings if "parse error here" in w]


def test_valid_ifdef_branches_that_each_open_a_brace_get_no_parse_warning():
    source = _file(broken=False)
    index = index_source(source)
    assert index.looks_broken  # (as written the braces do not balance: the parser is asked where)
    assert len(index.regions) > 10
    result = translate(source, "big.cu", index=index)
    assert _parse_warnings(result.warnings) == []
    assert b"hipDeviceSynchronize();" in result.output


def test_a_real_syntax_error_beside_such_an_ifdef_gets_its_warning():
    source = _file(broken=True)
    index = index_source(source)
    region = next(k for k, (s, e) in enumerate(index.regions) if s <= source.index(BROKEN) < e)
    assert region > 0  # not the #ifdef's region: a shortcut that parsed only that one would miss it
    warnings = _parse_warnings(translate(source, "big.cu", index=index).warnings)
    assert len(warnings) == 1
    assert warnings[0].startswith(f"big.cu:{_broken_line(source)}:")
    assert warnings[0].endswith(": parse error here; names in this region were still mapped, review it")


def test_without_parse_warnings_nothing_is_parsed_and_the_port_is_the_same(tmp_path):
    source = _file(broken=True)
    src = tmp_path / "big.cu"
    src.write_bytes(source)
    parsed: list[tuple[int, int]] = []
    parse.PARSE_OBSERVERS.append(lambda start, end: parsed.append((start, end)))
    try:
        quiet = convert_tree(src, tmp_path / "quiet.cu", ConvertOptions(findings=False, parse_warnings=False))
    finally:
        parse.PARSE_OBSERVERS.pop()
    assert parsed == []
    shown = convert_tree(src, tmp_path / "shown.cu", ConvertOptions(findings=False))
    assert (tmp_path / "quiet.cu").read_bytes() == (tmp_path / "shown.cu").read_bytes()
    assert b"hipDeviceSynchronize();" in (tmp_path / "quiet.cu").read_bytes()
    assert _parse_warnings(quiet.files[0].warnings) == []
    assert len(_parse_warnings(shown.files[0].warnings)) == 1


def _porter(*args: str, cwd: Path, **env: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "porter", *args], capture_output=True, timeout=300, cwd=cwd,
                          env=dict(os.environ, PYTHONPATH=str(ROOT), **env))


def test_the_command_line_shows_the_warning_unless_quiet_into_a_file_which_parses_nothing(tmp_path):
    source = _file(broken=True)
    (tmp_path / "big.cu").write_bytes(source)
    where = f"porter: warning: big.cu:{_broken_line(source)}:"

    shown = _porter("convert", "big.cu", "-o", "shown.cu", "--no-findings", cwd=tmp_path)
    assert shown.returncode == 0, shown.stderr[-2000:]
    assert shown.stderr.decode().count(where) == 1

    to_stdout = _porter("convert", "big.cu", "-q", cwd=tmp_path)  # one file to stdout: its warnings always shown
    assert to_stdout.returncode == 0 and to_stdout.stderr.decode().count(where) == 1
    assert to_stdout.stdout == (tmp_path / "shown.cu").read_bytes()

    listed = _porter("convert", "big.cu", "-o", "listed.cu", "-q", "--json", "--no-findings", cwd=tmp_path)
    assert listed.returncode == 0
    report = json.loads(listed.stdout)
    assert len(_parse_warnings(report["files"][0]["warnings"])) == 1

    quiet = _porter("convert", "big.cu", "-o", "quiet.cu", "-q", cwd=tmp_path, PORTER_PARSE_STATS="1")
    assert quiet.returncode == 0
    assert quiet.stderr == b"porter: parsed 0 bytes in 0 parses\n"  # no warning, and no parse made for one
    assert (tmp_path / "quiet.cu").read_bytes() == (tmp_path / "shown.cu").read_bytes()
