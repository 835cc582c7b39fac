"""PORT187, checked by running it: CUDA declares __popc/__popcll/__ffs/__ffsll `int`, HIP `unsigned int`
(read here from the installed HIP headers), and C++'s conversions do the rest.  The same functions are
compiled three times as host C++ with g++, each against declarations of the right return type: the CUDA
source (int), porter's port without the fix and with --fix (unsigned int, HIP's).  Run on the same inputs,
the unfixed port computes other values where a count goes negative; the fixed port computes CUDA's."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from porter.findings import apply_fixes, scan
from porter.translate import TranslateOptions, translate
from required_tools import require

HIP_FUNCTIONS = Path("/usr/include/hip/amd_detail/amd_device_functions.h")

# each function: what CUDA code computes from a count that can go negative (the fixture's shapes)
SOURCE = b"""\
__device__ long long tally(unsigned a, unsigned b) { return __popc(a) - __popc(b); }
__device__ long long diff_as_float(unsigned x) { float diff = __popc(x) - 16; return (long long)diff; }
__device__ long long none_set(unsigned x) { if (__ffs(x) - 1 < 0) { return 1; } return 0; }
__device__ long long half_of(unsigned y) { int half = (__popc(y) - 16) / 2; return half; }
__device__ long long negated(unsigned long long w) { auto gap = -__popcll(w); return (long long)gap; }
__device__ long long scaled(unsigned long long w) { double d; d = 32 - __ffsll(w) * 2; return (long long)d; }
__device__ long long widened(unsigned x) { long wide = (long)(__popc(x) - 20); return wide; }
__device__ long long leader(unsigned x) { int leader = __ffs(x) - 1; return leader; }
__device__ long long steps(unsigned x) { long long n = 0; for (unsigned k = 0; k < __ffs(x) - 1; k++) n++; return n; }
__device__ long long spread(unsigned x) { long s = __popc(x) - (unsigned)(x & 7); return s; }
"""
# the same in CUDA and in the port, unfixed: stored in an int, or beside an unsigned int (CUDA's int turns
# unsigned there too: HeCBench's sobol loops `k < __ffs(stride) - 1` so)
SAME = {b"leader", b"steps", b"spread"}
FUNCTIONS = re.findall(rb"long long (\w+)\(", SOURCE)
INPUTS = [(0, 0, 0), (1, 0xffffffff, 1), (0xff, 0xf0f0, 1 << 40), (0xffffffff, 3, 0xffffffffffffffff), (0x80000000, 0, 6)]


def _declared_return_types() -> dict[str, str]:
    text = HIP_FUNCTIONS.read_text()
    found = {}
    for m in re.finditer(r"__device__\s+static\s+inline\s+(unsigned\s+int|int)\s+(__popcll|__popc|__ffsll|__ffs)\s*\(", text):
        found.setdefault(m.group(2), set()).add(" ".join(m.group(1).split()))
    return found


def _program(body: bytes, result_type: str) -> str:
    shim = "\n".join(f"static {result_type} {name}({arg} v) {{ return {expr}; }}" for name, arg, expr in (
        ("__popc", "unsigned int", "__builtin_popcount(v)"), ("__popcll", "unsigned long long", "__builtin_popcountll(v)"),
        ("__ffs", "int", "__builtin_ffs(v)"), ("__ffsll", "long long", "__builtin_ffsll(v)")))
    code = "\n".join(line for line in body.decode().splitlines() if not line.startswith("#include"))
    calls = []
    for a, b, w in INPUTS:
        args = {"tally": f"{a}u, {b}u", "negated": f"{w}ull", "scaled": f"{w}ull"}
        for fn in FUNCTIONS:
            name = fn.decode()
            calls.append(f'std::printf("%s %lld\\n", "{name}", {name}({args.get(name, f"{a}u")}));')
    return ("#include <cstdio>\n#define __device__\n" + shim + "\n" + code + "\nint main() {\n" + "\n".join(calls)
            + "\nreturn 0; }\n")


def _run(tmp_path: Path, name: str, source: str) -> list[str]:
    cpp = tmp_path / f"{name}.cpp"
    cpp.write_text(source)
    exe = tmp_path / name
    subprocess.run(["g++", "-std=c++17", "-O0", "-o", str(exe), str(cpp)], check=True, capture_output=True, timeout=120)
    return subprocess.run([str(exe)], check=True, capture_output=True, text=True, timeout=60).stdout.splitlines()


def test_hip_declares_the_four_functions_unsigned():
    require(HIP_FUNCTIONS.is_file(), f"{HIP_FUNCTIONS} not installed (libamdhip64-dev)")
    assert _declared_return_types() == {n: {"unsigned int"} for n in ("__popc", "__popcll", "__ffs", "__ffsll")}


def test_the_fixed_port_computes_what_cuda_computes(tmp_path):
    require(shutil.which("g++") and HIP_FUNCTIONS.is_file(), "g++ or HIP's headers not installed")
    (hip_type,) = {t for types in _declared_return_types().values() for t in types}
    options = TranslateOptions(target_rocm="5.2")
    findings = [f for f in scan(SOURCE, "t.cu", options=options) if f.rule == "PORT187"]
    # every function but those of SAME is reported, each count of `tally`
    reported = {SOURCE.splitlines()[f.line - 1].split(b"(")[0].split()[-1] for f in findings}
    assert reported == set(FUNCTIONS) - SAME and len(findings) == len(FUNCTIONS) - len(SAME) + 1
    assert all(f.fix is not None and f.fix.safe for f in findings)
    cuda = _run(tmp_path, "cuda", _program(SOURCE, "int"))
    unfixed = _run(tmp_path, "unfixed", _program(translate(SOURCE, "t.cu", options).output, hip_type))
    fixed = _run(tmp_path, "fixed", _program(translate(apply_fixes(SOURCE, findings), "t.cu", options).output, hip_type))
    assert fixed == cuda
    differ = {line.split()[0] for line, c in zip(unfixed, cuda) if line != c}
    assert differ == {f.decode() for f in set(FUNCTIONS) - SAME}, differ  # each reported shape changes a value unfixed
