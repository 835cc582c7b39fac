"""Separate compilation through an nvcc Makefile (NVIDIA's simpleSeparateCompilation shape): ``-dc`` objects,
``nvcc -lib`` archiving one of them, and a link that nvcc device-links by itself.  clang reads ``-lib`` as
``-l ib`` and device-links relocatable code only when the link says ``-fgpu-rdc``: the migration writes
``--emit-static-lib`` and adds ``-fgpu-rdc`` to the links of a file that compiles relocatable device code.

The fixture (projects/rdc_static_lib) is written from nvcc's semantics (it builds with nvcc 13 as it is): a
``__device__`` function in a static library, called by a kernel of another file.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from porter.buildfiles import migrate

PROJECT = Path(__file__).parent / "projects" / "rdc_static_lib"


def test_the_link_of_relocatable_objects_gets_fgpu_rdc_and_lib_becomes_emit_static_lib():
    m = migrate("Makefile", (PROJECT / "Makefile").read_text())
    lines = m.output.splitlines()
    archive = next(ln for ln in lines if ln.endswith("-o $@ $<") and "ALL_LDFLAGS" in ln)
    assert archive.startswith("\t$(HIPCC) ") and " --emit-static-lib -o " in archive and " -lib" not in archive
    link = next(ln for ln in lines if ln.endswith("-o $@ $+"))
    assert link.startswith("\t$(HIPCC) -fgpu-rdc ")
    # the compiles say -fgpu-rdc through ALL_CCFLAGS, the archive step needs none: one link line changed
    assert sum("-fgpu-rdc" in ln for ln in lines if ln.startswith("\t")) == 1
    assert {"make.rdc-link", "flag.lib", "flag.dc"} <= {r for c in m.changes for r in c.rules}
    assert migrate("Makefile", m.output).output == m.output  # a second migration changes nothing


def test_a_makefile_without_relocatable_code_links_as_it_did():
    text = "app: a.o b.o\n\tnvcc -o $@ $+\na.o: a.cu\n\tnvcc -c -o $@ $<\n"
    out = migrate("Makefile", text).output
    assert "-fgpu-rdc" not in out


@pytest.mark.parametrize("arch", ["gfx942", "gfx90a"])
def test_the_port_builds_and_its_program_holds_the_arch(arch, build_port):
    out, report = build_port(PROJECT, arch)
    assert report.ok, [d.one_line() for d in report.diagnostics]
    assert report.code_objects["app"] == [f"amdgcn-amd-amdhsa--{arch}"], report.code_objects
