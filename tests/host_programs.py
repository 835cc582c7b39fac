"""Host code of a fixture run twice, to check a safe fix by executing it: as CUDA (compiled with g++ against a
stand-in for the CUDA header's declarations) and as porter's fixed port (compiled with g++ against HIP's own
headers), each with definitions of the called API that print what they were given."""

from __future__ import annotations

import re
from pathlib import Path

from killable import run
from porter.findings import apply_fixes, scan
from porter.translate import TranslateOptions, translate


def run_host_program(source: str, name: str, tmp_path: Path, *flags: str) -> str:
    """What ``source``, compiled with g++ (C++17) and run, prints."""
    src = tmp_path / f"{name}.cpp"
    src.write_text(source)
    exe = tmp_path / name
    rc, out = run(["g++", "-std=c++17", *flags, str(src), "-o", str(exe)], timeout=300, what=f"g++ {name}")
    assert rc == 0, f"{name} does not compile:\n{out[-3000:]}"
    rc, out = run([str(exe)], timeout=60, what=name)
    assert rc == 0, f"{name} exited {rc}:\n{out[-2000:]}"
    return out


def cuda_and_fixed_port(cuda: str, rule: str, cuda_prelude: str, hip_definitions: str, tmp_path: Path,
                        target_rocm: str = "5.2") -> tuple[str, str, str]:
    """(what the CUDA program prints, what porter's fixed port prints, the port's code without comments):
    ``cuda`` (a fixture and a ``main`` in CUDA's terms, ``#include <cuda.h>`` standing for ``cuda_prelude``) has
    one safe ``rule`` finding per ``expect: rule`` line; its fixes are applied and it is translated."""
    expected = run_host_program(cuda_prelude + cuda.replace("#include <cuda.h>\n", ""), "cuda", tmp_path)
    findings = [f for f in scan(cuda.encode(), "t.cu") if f.rule == rule]
    assert len({f.line for f in findings}) == cuda.count(f"expect: {rule}")
    assert all(f.fix and f.fix.safe for f in findings)
    port = translate(apply_fixes(cuda.encode(), findings), "t.cu", TranslateOptions(target_rocm=target_rocm)).output
    got = run_host_program(port.decode() + hip_definitions, "port", tmp_path, "-D__HIP_PLATFORM_AMD__")
    return expected, got, re.sub(r"//[^\n]*", "", port.decode())
