"""Reading C function declarations from library headers, and writing the data file a generator makes from
them: the parts scripts/gen_roc_sparse_args.py, gen_hip_sparse_args.py, gen_roc_blas_args.py and
gen_miopen_args.py share.

A declaration is ``name(parameters);`` with the comments and a library's export and deprecation macros
(``noise``) blanked out; only the first declaration of each name counts (a header that declares a function
again, under another condition, keeps the first)."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

# name(parameters);  (a parameter list may hold one level of parentheses: a function-pointer parameter)
DECLARATION = re.compile(r"\b([A-Za-z_][A-Za-z0-9_]*)\s*\(([^;{}()]*(?:\([^;{}()]*\)[^;{}()]*)*)\)\s*;")
COMMENT = re.compile(r"/\*.*?\*/|//[^\n]*", re.S)
# cuSPARSE's, hipSPARSE's and rocSPARSE's export and deprecation macros: what the two sparse generators blank
SPARSE_NOISE = re.compile(r"\b(?:CUSPARSEAPI|ROCSPARSE_EXPORT|HIPSPARSE_EXPORT|CUSPARSE_CPP_VERSION)\b"
                          r"|\b(?:__host__|__device__)\b"
                          r"|\bCUSPARSE_DEPRECATED(?:_REPLACE_WITH)?\s*(?:\([^()]*\))?"
                          r"|\bDEPRECATED_CUDA_\d+\s*(?:\([^()]*\))?|\bROCSPARSE_DEPRECATED\w*\s*(?:\([^()]*\))?"
                          r"|\bHIPSPARSE_DEPRECATED\w*\s*(?:\([^()]*\))?")


def read_header(path: Path) -> str:
    """A header's text (bytes that are not UTF-8 replaced: the declarations are ASCII)."""
    return path.read_text(encoding="utf-8", errors="replace")


def parameter_lists(text: str, prefix: str, noise: re.Pattern = SPARSE_NOISE) -> dict[str, str]:
    """{function named with ``prefix``: its parameter list as written (between the parentheses)}."""
    body = noise.sub(" ", COMMENT.sub(" ", text))
    out: dict[str, str] = {}
    for m in DECLARATION.finditer(body):
        name = m.group(1)
        if name.startswith(prefix) and name not in out:
            out[name] = m.group(2)
    return out


def _params(text: str) -> list[tuple[str, str]]:
    """[(type with pointers, no const/qualifiers, name)]; [] for (void)."""
    text = " ".join(text.split())
    if text in ("", "void"):
        return []
    out = []
    for p in text.split(","):
        p = re.sub(r"\b(?:const|restrict|__restrict__)\b", " ", p).replace("*", " * ").replace("[", " [")
        words = p.split()
        name = words[-1] if len(words) > 1 and re.match(r"[A-Za-z_]\w*$", words[-1]) else ""
        core = words[:-1] if name else words
        out.append(("".join(core).replace("[]", "*") if core else "", name))
    return out


def _const_pointees(text: str) -> list[bool]:
    """For each parameter: whether it points to const (``const T*``, ``T const*``)."""
    text = " ".join(text.split())
    if text in ("", "void"):
        return []
    return [bool(re.search(r"\bconst\b", p.split("*")[0])) and "*" in p for p in text.split(",")]


def declarations(text: str, prefix: str, consts: dict | None = None, noise: re.Pattern = SPARSE_NOISE
                 ) -> dict[str, list[tuple[str, str]]]:
    """{function: [(type, name)]}; ``consts``, when given, gets {function: [points to const]}; ``noise``:
    the export and deprecation macros to blank out (cuSPARSE's and rocSPARSE's by default)."""
    out = {}
    for name, params in parameter_lists(text, prefix, noise).items():
        out[name] = _params(params)
        if consts is not None:
            consts[name] = _const_pointees(params)
    return out


def write_data(path: Path, doc: dict) -> None:
    """Write a generated data file whole (a temporary file renamed over it), sorted keys, one space indent."""
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(doc, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    tmp.replace(path)


def finish(path: Path, about: str, sources: dict, counts: dict, functions: dict, **more) -> int:
    """A generator's last step: write its data file (``about``, ``sources``, ``counts``, ``functions`` and
    the ``more`` keys) to ``path`` and print the counts as one JSON line; the exit status (0)."""
    write_data(path, {"about": about, "sources": sources, "counts": counts, "functions": functions, **more})
    print(json.dumps(counts))
    return 0


def fail(generator: str, error: object, status: int = 1) -> int:
    """Say on stderr, in one line named by the generator, why it stopped; the exit status."""
    print(f"{generator}: {error}", file=sys.stderr)
    return status
