"""PORT178: which cuBLAS API a file's calls are is decided by the unit's includes, the file's own
and, where the file includes neither cublas.h nor cublas_v2.h, those of the project headers it
includes (the fixtures in fixtures/PORT178 cover a file with its own include)."""

from __future__ import annotations

from porter.findings import scan

CALL = b'#include "blas_common.h"\nvoid f(float* x, int n) {\n  cublasSscal(n, 2.0f, x, 1);\n}\n'


def _project(tmp_path, header_includes: str):
    (tmp_path / "blas_common.h").write_text("#pragma once\n" + header_includes + "\n")
    main = tmp_path / "main.cu"
    main.write_bytes(CALL)
    return main


def _port178(main):
    return [f for f in scan(main.read_bytes(), "main.cu", file=str(main)) if f.rule == "PORT178"]


def test_a_project_header_with_cublas_h_makes_the_calls_legacy(tmp_path):
    found = _port178(_project(tmp_path, "#include <cublas.h>"))
    assert [(f.line, f.column) for f in found] == [(3, 3)]
    assert "`blas_common.h` includes cublas.h" in found[0].message
    # the translator saw main.cu alone and renamed the call: the finding says that this does not compile
    assert "the rename does not compile" in found[0].message and found[0].severity == "error"


def test_a_project_header_with_cublas_v2_h_makes_them_the_handle_api(tmp_path):
    assert _port178(_project(tmp_path, "#include <cublas_v2.h>")) == []


def test_the_file_own_v2_include_wins_over_a_header(tmp_path):
    main = _project(tmp_path, "#include <cublas.h>")
    main.write_bytes(b"#include <cublas_v2.h>\n" + CALL.replace(b"cublasSscal(n, 2.0f, x, 1)", b"cublasSscal(h, n, &a, x, 1)"))
    assert _port178(main) == []


def test_no_cublas_include_anywhere_is_not_reported(tmp_path):
    assert _port178(_project(tmp_path, "#include <stdio.h>")) == []
