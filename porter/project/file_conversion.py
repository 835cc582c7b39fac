"""Converting one file for the review: read it, scan it, apply the fixes the reviewer chose,
translate it; and the scans that follow (the findings of a big file after its diff, the
re-check of the findings after fixes).  The functions here take and return picklable
values and never raise: the review app runs them in worker processes
(``porter.tui.conversion``), ``FileReview`` here and now."""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import NamedTuple


class Recheck(NamedTuple):
    """A re-check of a file's findings after its fixes (``FileReview.recheck_job``)."""

    rel: str
    effective: bytes  # the CUDA with the applied fixes
    options: object  # the TranslateOptions of the scan
    applied: tuple  # the keys of the applied fixes: an answer is taken for these fixes only
    spans: list  # the fixes' edits, as apply_fixes_spans gives them


def scan_fixed(job: Recheck) -> list[tuple[str, int, int, str, str]]:
    """(rule, start, end, severity, message) of every finding in the CUDA with the fixes applied:
    picklable both ways, so a worker process runs it."""
    from porter.findings import scan

    return [(f.rule, f.start_byte, f.end_byte, f.severity, f.message)
            for f in scan(job.effective, job.rel, options=job.options)]


def source_text(data: bytes) -> str:
    """A source file's bytes as the review's text: UTF-8, with any byte that is not UTF-8 kept as
    itself (surrogateescape), so that it is converted and written back as ``porter convert`` does."""
    return data.decode("utf-8", "surrogateescape")


def source_bytes(text: str) -> bytes:
    """The inverse of :func:`source_text` (a text holding other lone surrogates keeps them as
    surrogatepass writes them)."""
    try:
        return text.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:
        return text.encode("utf-8", "surrogatepass")


def text_hash(text: str) -> str:
    return hashlib.sha1(text.encode("utf-8", "surrogatepass")).hexdigest()[:16]


def finding_key(finding) -> str:
    return f"{finding.rule}@{finding.start_byte}-{finding.end_byte}"


def apply_fix_edits(source: bytes, findings: list) -> tuple[bytes, list[tuple[int, int, int]]]:
    """Apply the fixes the reviewer chose (safe or not) to ``source`` (byte offsets into it); the
    edits made, as ``apply_fixes_spans`` gives them."""
    from porter.findings import apply_fixes_spans

    return apply_fixes_spans(source, findings, safe_only=False)


class ReviewError(Exception):
    """A file that cannot be reviewed (binary, not UTF-8, gone): one line for the user."""


# The parsed index of the last file translated with ``findings_later``, for the ``scan_file`` that
# follows it in the same worker process: (rel, source_hash, options, index).  One file at a time.
_KEPT_INDEX: tuple | None = None


def convert_file(rel: str, path: Path | None, kind: str, data: bytes | None = None,
                 applied: tuple[str, ...] = (), options=None, findings: list | None = None,
                 findings_later: bool = False) -> dict:
    """Read (unless ``data`` is given), scan and translate one file; picklable in and out,
    so it runs in a worker process.  ``findings``: the scan of this very ``data`` with these
    options, already made (a fix is applied to the same CUDA: it need not be scanned again).
    ``findings_later``: translate only (no fix chosen), the result says ``findings_pending`` and
    ``scan_file`` gives the findings afterwards (the review app shows a big file's diff first).
    A file read and scanned here with fixes chosen (a restored session, a file changed on disk)
    is re-checked here too: ``recheck`` is ``scan_fixed``'s answer for these fixes (else None).
    Never raises: errors come back as ``{"status": "error", "error": one line}``."""
    global _KEPT_INDEX
    try:
        mode = stat = None
        if data is None:
            if path is None:
                raise ReviewError("no path")
            try:
                st = path.stat()  # before the read: a change made during it shows at the next look
                data = path.read_bytes()
                mode, stat = st.st_mode & 0o777, (st.st_mtime_ns, st.st_size)
            except FileNotFoundError:
                raise ReviewError("file no longer exists") from None
            except OSError as exc:
                raise ReviewError(f"cannot read: {exc.strerror or exc}") from None
        if b"\x00" in data[:8192]:
            raise ReviewError("binary file (contains NUL bytes): not reviewed, copied as it is")
        cuda = source_text(data)
        source_hash = text_hash(cuda)
        warnings: list[str] = []
        try:
            data.decode("utf-8")
        except UnicodeDecodeError as exc:  # converted as porter convert converts it: the bytes kept
            line = data.count(b"\n", 0, exc.start) + 1
            warnings.append(f"line {line} has a byte that is not UTF-8 (at byte {exc.start}): kept as it is")
        index = None
        scanned = False  # the findings were made here
        later = findings_later and kind == "source" and not applied and findings is None
        if later:
            from porter.translate.source_index import index_source

            index = index_source(data)
            _KEPT_INDEX = (rel, source_hash, options, index)
            findings = []
        elif findings is not None and kind == "source":
            findings = list(findings)
        elif kind == "source":
            from porter.findings import scan
            from porter.translate.source_index import index_source

            index = index_source(data)  # one parse for the rules and, without chosen fixes, the translator
            try:
                findings = list(scan(data, rel, index=index, options=options, file=path))
                scanned = True
            except Exception as exc:
                findings = []
                warnings.append(f"findings scan failed: {type(exc).__name__}: {exc}")
        else:
            findings = []
        chosen = [f for f in findings if finding_key(f) in applied and f.fix]
        effective, fix_spans = apply_fix_edits(data, chosen) if chosen else (data, [])
        inserted: list = []
        if kind == "build":
            from porter.buildfiles import migrate

            m = migrate(str(path or rel), source_text(effective), "gfx942")
            hip = m.output
            if not chosen:
                findings = list(m.findings)
        else:
            from porter.translate import TranslateOptions, translate

            t = translate(effective, rel, options or TranslateOptions(), index=index if effective is data else None)
            warnings += list(t.warnings)
            hip = source_text(t.output)
            inserted = list(t.inserted_lines)
        recheck = None
        if chosen and scanned:  # what the fixes resolved, regraded or introduced: known at once, as after `f`
            try:
                recheck = scan_fixed(Recheck(rel, effective, options, tuple(applied), fix_spans))
            except Exception as exc:
                warnings.append(f"re-check after the fixes failed: {type(exc).__name__}: {exc}")
        return {"status": "ready", "cuda": cuda, "hip": hip, "findings": findings, "warnings": warnings,
                "inserted": inserted, "fixed": bool(chosen), "source_hash": source_hash, "mode": mode, "stat": stat,
                # the fixed CUDA the HIP was translated from, and where the fixes changed it
                "effective": source_text(effective) if chosen else None, "fix_spans": fix_spans,
                "findings_pending": later, "recheck": recheck}
    except ReviewError as exc:
        return {"status": "error", "error": str(exc)}
    except Exception as exc:  # an engine bug must not take the app down
        return {"status": "error", "error": f"conversion failed: {type(exc).__name__}: {exc}"}


def warm_up() -> None:
    """Import the translator and load its mappings in a fresh worker process, so that the first
    file it converts does not pay for it (the rules load with the first scan: a big file on screen
    is translated before it is scanned)."""
    from porter.translate import TranslateOptions, translate

    translate(b"__global__ void k(float *x) { x[threadIdx.x] = 0.f; }\n"
              b"void f(float *x) { k<<<1, 64>>>(x); cudaDeviceSynchronize(); }\n", "warm-up.cu", TranslateOptions())


def scan_file(rel: str, data: bytes, source_hash: str, options=None, path: Path | None = None) -> dict:
    """The findings of ``data``, the CUDA that ``convert_file(findings_later=True)`` translated
    (``source_hash`` is its hash): from the index that call kept when this is the same process,
    else parsed again.  Picklable both ways; never raises."""
    global _KEPT_INDEX
    kept, _KEPT_INDEX = _KEPT_INDEX, None
    res: dict = {"status": "ready", "source_hash": source_hash, "findings": [], "warnings": []}
    try:
        from porter.findings import scan

        if kept is not None and kept[0] == rel and kept[1] == source_hash and kept[2] == options:
            index = kept[3]
        else:
            from porter.translate.source_index import index_source

            index = index_source(data)
        res["findings"] = list(scan(data, rel, index=index, options=options, file=path))
    except Exception as exc:  # as in convert_file: the diff stays, the scan's failure is said
        res["warnings"] = [f"findings scan failed: {type(exc).__name__}: {exc}"]
    return res
