"""Which cuBLAS API a translation unit's calls are: the legacy one (``cublas.h``) or the v2 one.

cuBLAS has two APIs under the same function names.  ``cublas_v2.h`` defines ``cublasSscal`` as a
macro for ``cublasSscal_v2(handle, n, const float* alpha, x, incx)``; with ``cublas.h`` alone the
name is the legacy function ``cublasSscal(n, float alpha, x, incx)``: no handle, scalars by value,
errors through ``cublasGetError``.  AMD's tables give both names one HIP name, that of hipBLAS's
handle API, so renaming a legacy call makes a call that does not compile.  The names come from
``data/calls/cublas_legacy.json`` (NVIDIA's headers, see its ``sources``).  Helper functions with one
signature in both APIs (cublasSetVector, cublasGetMatrix, ...) are declared in ``cublas_api.h``, are
not in that list, and keep their HIP names (hipblasSetVector takes the same arguments)."""

from __future__ import annotations

import functools
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

DATA_FILE = Path(__file__).with_name("data") / "calls" / "cublas_legacy.json"


@dataclass(frozen=True)
class LegacyBlas:
    legacy_header: str  # cublas.h
    v2_header: str  # cublas_v2.h
    functions: frozenset[str]  # names that are legacy functions in a unit with the legacy header alone
    sources: dict
    why: str  # what the translator records for a legacy call ({hip}: the HIP name it does not emit)
    alternative: str


@functools.cache
def load_cublas_legacy() -> LegacyBlas:
    import json  # here: only a unit that includes the legacy cublas.h reads the table

    doc = json.loads(DATA_FILE.read_text(encoding="utf-8"))
    return LegacyBlas(doc["legacy_header"], doc["v2_header"], frozenset(doc["functions"]), dict(doc["sources"]),
                      doc["why"], doc["alternative"])


def unit_is_legacy(includes: Iterable[str]) -> bool:
    """The include paths of a translation unit (its file's and its headers') make its cuBLAS calls
    the legacy API: ``cublas.h`` is included and ``cublas_v2.h`` is not.  A unit that includes both
    (each under its own condition, or one that CUDA would reject) counts as v2, as before."""
    facts = load_cublas_legacy()
    seen = {header_name(i) for i in includes}
    return facts.legacy_header in seen and facts.v2_header not in seen


def legacy_functions(includes: Iterable[str]) -> frozenset[str]:
    """The names whose calls are legacy in a unit with these includes (empty when the unit is v2)."""
    return load_cublas_legacy().functions if unit_is_legacy(includes) else frozenset()


def header_name(path: str) -> str:
    """The file name an include path names (``cuda/cublas.h`` -> ``cublas.h``)."""
    return path.strip().replace("\\", "/").rsplit("/", 1)[-1]
