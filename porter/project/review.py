"""The review model: per-file alignment of CUDA and HIP lines, hunks, decisions
and file states, and writing the reviewed project out.  Pure Python, no UI.

A file is converted lazily (``FileReview.load``).  Its CUDA and HIP lines are
aligned row by row: porter's edits never change the number of lines except the
inserted include lines, so the alignment comes from ``Translation.inserted_lines``
without difflib in the common case; difflib is the fallback (fixes, edits).
A *hunk* is a run of rows that differ.  Decisions are kept per file in a dict
keyed by a hash of the hunk's old and new lines plus one line of context, so a
re-converted file picks up every decision whose hunk still matches.

    >>> fr = FileReview.from_text("a.cu", "int x;\\ncudaFree(p);\\n")
    >>> [(h.old, h.new) for h in fr.hunks]
    [(('cudaFree(p);',), ('hipFree(p);',))]
    >>> fr.decide(0, ACCEPTED); fr.state
    'accepted'
"""

from __future__ import annotations

import bisect
import difflib
import hashlib
import itertools
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import NamedTuple

from porter.project.atomic import atomic_write
from porter.project.files import ProjectFile, discover

PENDING, ACCEPTED, REJECTED = "pending", "accepted", "rejected"
EDITED = "edited"  # the decision of a hunk the user's edit touches
# file states
S_WAITING, S_PENDING, S_ACCEPTED, S_EDITED, S_UNCHANGED, S_ERROR = (
    "converting", "pending", "accepted", "edited", "unchanged", "error")
DIFFLIB_LIMIT = 20000  # lines; above this the fallback pairs lines by position


@dataclass(slots=True)
class Hunk:
    index: int
    start: int  # first row
    end: int  # one past the last row
    old: tuple[str, ...]
    new: tuple[str, ...]
    key: str
    stale: bool = False
    edited: bool = False  # the user's edit changed lines of this hunk: decided by the edit


class Row(NamedTuple):
    left: int | None  # 0-based CUDA line index, None for an inserted HIP line
    right: int | None  # 0-based HIP line index, None for a removed CUDA line


def _strip_eol(line: str) -> str:
    return line.rstrip("\r\n")


def align_by_insertions(n_left: int, n_right: int, inserted: list[tuple[int, int]]) -> list[Row] | None:
    """Rows from the translator's inserted lines; None when the counts do not add up."""
    ins: dict[int, int] = {}
    for after, count in inserted:
        ins[after] = ins.get(after, 0) + count
    if n_left + sum(ins.values()) != n_right or any(a < 0 or a > n_left for a in ins):
        return None
    rows: list[Row] = []
    new_row, row_type = tuple.__new__, itertools.repeat(Row)  # (as in align_fixed: Row(a, b) costs twice)
    r = s = 0
    for after in sorted(ins):  # the CUDA lines before the insertion after line ``after``, then its lines
        rows.extend(map(new_row, row_type, zip(range(s, after), range(r, r + after - s))))
        r += after - s
        s = after
        rows.extend(map(new_row, row_type, zip(itertools.repeat(None, ins[after]), range(r, r + ins[after]))))
        r += ins[after]
    rows.extend(map(new_row, row_type, zip(range(s, n_left), range(r, r + n_left - s))))
    return rows


def align_by_diff(left: list[str], right: list[str]) -> list[Row]:
    """Rows from difflib (default autojunk: fast on repetitive code)."""
    if len(left) > DIFFLIB_LIMIT or len(right) > DIFFLIB_LIMIT:
        n = max(len(left), len(right))
        return [Row(i if i < len(left) else None, i if i < len(right) else None) for i in range(n)]
    rows: list[Row] = []
    sm = difflib.SequenceMatcher(None, left, right)
    for tag, i1, i2, j1, j2 in sm.get_opcodes():
        if tag == "equal":
            rows.extend(Row(i1 + k, j1 + k) for k in range(i2 - i1))
        elif tag == "delete":
            rows.extend(Row(i, None) for i in range(i1, i2))
        elif tag == "insert":
            rows.extend(Row(None, j) for j in range(j1, j2))
        else:
            n = max(i2 - i1, j2 - j1)
            for k in range(n):
                rows.append(Row(i1 + k if i1 + k < i2 else None, j1 + k if j1 + k < j2 else None))
    return rows


def _byte_starts(lines: list[str], ascii: bool) -> list[int]:
    """The byte offset where each line starts, and the total length last."""
    lengths = map(len, lines) if ascii else (len(line.encode("utf-8", "surrogatepass")) for line in lines)
    return [0, *itertools.accumulate(lengths)]


def align_fixed(left: list[str], fixed: list[str], spans: list[tuple[int, int, int]], n_right: int,
                inserted: list[tuple[int, int]], ascii: bool = False) -> list[Row] | None:
    """Rows for a HIP translated from the CUDA with fixes applied, with no diff of the whole
    file: CUDA line to fixed line from the fixes' edits (``spans``: start, end, replacement
    length in the CUDA's bytes; every other line is the same text, shifted), fixed line to HIP
    line from the translator's ``inserted`` lines.  Only the lines a fix changed are paired by
    difflib.  None when the pieces do not fit (the caller falls back to a diff).  ``ascii``:
    both texts are ASCII (a line's length is its byte count)."""
    n, m = len(left), len(fixed)
    ls, fs = _byte_starts(left, ascii), _byte_starts(fixed, ascii)
    groups: list[list[int]] = []  # [first line, end line, byte shift before, byte change] of the CUDA
    shift = 0
    for s, e, k in spans:
        lo = bisect.bisect_right(ls, s) - 1 if s < ls[-1] else n
        hi = (bisect.bisect_right(ls, e - 1) if e > s else lo + 1) if lo < n else n
        if groups and lo < groups[-1][1]:  # on a line of the previous fix: one block
            groups[-1][1] = max(groups[-1][1], hi)
            groups[-1][3] += k - (e - s)
        else:
            groups.append([lo, hi, shift, k - (e - s)])
        shift += k - (e - s)

    def fixed_line(offset: int) -> int | None:
        i = bisect.bisect_left(fs, offset)
        return i if i < len(fs) and fs[i] == offset else None

    ins: dict[int, int] = {}
    for after, count in inserted:
        ins[after] = ins.get(after, 0) + count
    if m + sum(ins.values()) != n_right:
        return None
    rows: list[Row] = []
    new_row = tuple.__new__  # (Row(a, b) without the keyword handling: half the time for 50k rows)
    r = 0  # the next HIP line

    def pair(a: int | None, b: int | None) -> None:
        nonlocal r
        if b is None:
            rows.append(new_row(Row, (a, None)))
            return
        for _ in range(ins.get(b, 0)):
            rows.append(new_row(Row, (None, r)))
            r += 1
        rows.append(new_row(Row, (a, r)))
        r += 1

    def same(i: int, j: int, count: int) -> None:
        nonlocal r
        if any(j <= x < j + count for x in ins):
            for k in range(count):
                pair(i + k, j + k)
        else:  # (the common case: a run of lines with nothing inserted in it)
            rows.extend(new_row(Row, p) for p in zip(range(i, i + count), range(r, r + count)))
            r += count

    i = j = 0
    for lo, hi, before, change in groups:
        lo2, hi2 = fixed_line(ls[lo] + before), fixed_line(ls[hi] + before + change)
        if lo2 is None or hi2 is None or lo - i != lo2 - j or left[i:lo] != fixed[j:lo2]:
            return None
        same(i, j, lo - i)
        for a, b in align_by_diff([_strip_eol(x) for x in left[lo:hi]], [_strip_eol(x) for x in fixed[lo2:hi2]]):
            pair(None if a is None else lo + a, None if b is None else lo2 + b)
        i, j = hi, hi2
    if n - i != m - j or left[i:] != fixed[j:]:
        return None
    same(i, j, n - i)
    for _ in range(ins.get(m, 0)):
        rows.append(new_row(Row, (None, r)))
        r += 1
    return rows if r == n_right else None


def hunk_key(before: str, old: tuple[str, ...], new: tuple[str, ...], after: str) -> str:
    # each part followed by a NUL, hashed in one piece (the keys of saved sessions stay the same)
    text = "\x00".join((before, "\x02", *old, "\x01", *new, "\x02", after)) + "\x00"
    return hashlib.sha1(text.encode("utf-8", "surrogatepass")).hexdigest()[:16]


def _unmapped(pos: int, spans) -> int:
    """Byte ``pos`` of the CUDA with the fixes ``spans`` applied, in the CUDA without them (inside
    a replacement: the start of what it replaced)."""
    shift = 0
    for s, e, k in spans:
        if pos < s + shift:
            break
        if pos < s + shift + k:
            return s
        shift += k - (e - s)
    return pos - shift


def _mapped(pos: int, spans, end_side: bool) -> int:
    """Byte ``pos`` of the CUDA in the CUDA with the fixes ``spans`` applied (start, end,
    replacement length each, in order); inside a replaced span: the start (or, for an end, the
    end) of its replacement."""
    shift = 0
    for s, e, k in spans:
        if pos <= s:
            break
        if pos < e:
            return s + shift + (k if end_side else 0)
        shift += k - (e - s)
    return pos + shift


class Recheck(NamedTuple):
    """A re-check of a file's findings after its fixes (``FileReview.recheck_job``)."""

    rel: str
    effective: bytes  # the CUDA with the applied fixes
    options: object  # the TranslateOptions of the scan
    applied: tuple  # the keys of the applied fixes: an answer is taken for these fixes only
    spans: list  # the fixes' edits, as apply_fixes_spans gives them


class Introduced(NamedTuple):
    """A finding the scan of the fixed CUDA has and the original scan did not (a fix brought it,
    e.g. PORT017 once every shuffle has width 32); ``line``: where it is in the original CUDA."""

    rule: str
    severity: str
    message: str
    line: int


def scan_fixed(job: Recheck) -> list[tuple[str, int, int, str, str]]:
    """(rule, start, end, severity, message) of every finding in the CUDA with the fixes applied:
    picklable both ways, so a worker process runs it."""
    from porter.findings import scan

    return [(f.rule, f.start_byte, f.end_byte, f.severity, f.message)
            for f in scan(job.effective, job.rel, options=job.options)]


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
        try:
            cuda = data.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise ReviewError(f"not UTF-8 text (byte {exc.start}): not reviewed, copied as it is") from None
        source_hash = text_hash(cuda)
        warnings: list[str] = []
        index = None
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

            m = migrate(str(path or rel), effective.decode("utf-8"), "gfx942")
            hip = m.output
            if not chosen:
                findings = list(m.findings)
        else:
            from porter.translate import TranslateOptions, translate

            t = translate(effective, rel, options or TranslateOptions(), index=index if effective is data else None)
            warnings += list(t.warnings)
            hip = t.output.decode("utf-8", "replace")
            inserted = list(t.inserted_lines)
        return {"status": "ready", "cuda": cuda, "hip": hip, "findings": findings, "warnings": warnings,
                "inserted": inserted, "fixed": bool(chosen), "source_hash": source_hash, "mode": mode, "stat": stat,
                # the fixed CUDA the HIP was translated from, and where the fixes changed it
                "effective": effective.decode("utf-8", "replace") if chosen else None, "fix_spans": fix_spans,
                "findings_pending": later}
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


@dataclass(eq=False, repr=False)
class FileReview:
    rel: str
    path: Path | None = None
    kind: str = "source"
    status: str = S_WAITING  # converting | ready | error
    error: str = ""
    cuda: str = ""
    hip: str = ""  # proposed HIP (translation of the CUDA with the applied fixes)
    edited: str | None = None  # the user's HIP text, when edited
    edit_base: str = ""  # source_hash of the CUDA the edit was made against ("" = the current one)
    edit_base_cuda: str = ""  # that CUDA (with the fixes then applied) while the edit is stale; "" = not known
    left: list[str] = field(default_factory=list)  # CUDA lines with their line endings
    right: list[str] = field(default_factory=list)  # HIP (or edited) lines
    rows: list[Row] = field(default_factory=list)
    hunks: list[Hunk] = field(default_factory=list)
    row_hunk: dict[int, int] = field(default_factory=dict)
    findings: list = field(default_factory=list)
    decisions: dict[str, str] = field(default_factory=dict)
    applied_fixes: list[str] = field(default_factory=list)
    stale_decisions: int = 0
    restored: bool = False  # decisions came from a saved session
    source_hash: str = ""
    inserted_lines: list[tuple[int, int]] = field(default_factory=list)  # from the translator
    fixed: bool = False  # the HIP comes from the CUDA with fixes applied
    warnings: list[str] = field(default_factory=list)
    findings_pending: bool = False  # translated, the findings not scanned yet (``take_findings``)
    mode: int | None = None
    options: object = None  # the project's TranslateOptions (target ROCm, --roc); None: the defaults
    # the fixed CUDA the HIP was translated from and the fixes' edits in it (None: no fix applied)
    _fixed_cuda: tuple[str | None, list] | None = field(default=None, repr=False)
    # the re-check of the applied fixes: (their keys, keys resolved, {key: severity now}, introduced)
    _recheck: tuple[tuple, set[str], dict[str, str], list[Introduced]] | None = field(default=None, repr=False)
    _stat: tuple[int, int] | None = field(default=None, repr=False)  # (mtime_ns, size) of the file read
    # the lines without their endings, with the list they were made from: (left or right, stripped)
    _left_s: tuple[list[str], list[str]] | None = field(default=None, repr=False)
    _right_s: tuple[list[str], list[str]] | None = field(default=None, repr=False)
    _sev_cache: tuple | None = field(default=None, repr=False)  # (findings, applied, counts, re-check)
    # row of each left / right line (from the last alignment), for line -> row look-ups
    _left_row: list[int] = field(default_factory=list, repr=False)
    _right_row: list[int] = field(default_factory=list, repr=False)
    _decisions_version: int = field(default=0, repr=False)  # bumped by every change of ``decisions``
    _pending_cache: tuple | None = field(default=None, repr=False)  # (key, the hunks still to decide)
    # a saved session's edit, until the file's conversion arrives: (text, its base hash, its base CUDA)
    _saved_edit: str | None = field(default=None, repr=False)
    _saved_edit_base: str = field(default="", repr=False)
    _saved_edit_base_cuda: str = field(default="", repr=False)

    def __repr__(self) -> str:  # short: workers and logs print it
        return f"FileReview({self.rel!r}, {self.state})"

    # ---- loading -------------------------------------------------------------
    @classmethod
    def from_text(cls, rel: str, cuda: str, kind: str = "source") -> "FileReview":
        fr = cls(rel=rel, kind=kind)
        fr.apply_result(convert_file(rel, None, kind, data=cuda.encode("utf-8"), options=fr.options))
        return fr

    def load(self) -> None:
        """Read and convert the file here; errors become ``status == "error"`` with a message."""
        self.apply_result(convert_file(self.rel, self.path, self.kind, applied=tuple(self.applied_fixes),
                                       options=self.options))

    def apply_result(self, res: dict) -> None:
        """Take what ``convert_file`` computed (here or in a worker process)."""
        if res["status"] == "error":
            self.status, self.error = "error", res["error"]
            return
        new_hash = res["source_hash"]
        if self.source_hash and self.source_hash != new_hash and self.decisions:
            self.restored = True  # the source changed since the decisions were made
        self.source_hash = new_hash
        self.mode = res.get("mode")
        if res.get("stat") is not None:  # (read from the file; a result made from text keeps the last)
            self._stat = res["stat"]
        self.cuda = res["cuda"]
        self.left = self.cuda.splitlines(keepends=True)
        self.findings_pending = bool(res.get("findings_pending"))
        self._take_translation(res)
        self.status, self.error = "ready", ""

    def changed_on_disk(self) -> bool:
        """The source file is no longer the one read (another editor saved it).  A file that is
        gone is not "changed": the app keeps the version read and says so when it is shown."""
        if self.status != "ready" or self.path is None or self._stat is None:
            return False
        try:
            st = self.path.stat()
        except OSError:
            return False
        if (st.st_mtime_ns, st.st_size) == self._stat:
            return False
        try:
            same = st.st_size == len(self.cuda.encode("utf-8", "surrogatepass")) and \
                text_hash(self.path.read_bytes().decode("utf-8")) == self.source_hash
        except (OSError, UnicodeError):
            return True  # unreadable now, or no longer UTF-8: converting it again says which
        if same:  # touched, saved unchanged, checked out again: nothing to convert
            self._stat = (st.st_mtime_ns, st.st_size)
        return not same

    def read_again(self) -> None:
        """Convert this file again from its changed source: its decisions are kept (those of
        hunks that changed go stale) and an edit keeps the CUDA it was made against, so that it
        goes stale and offers keep / re-convert / the three-way view."""
        if self.edited is not None and not self.edit_base:
            self.edit_base, self.edit_base_cuda = self.source_hash, self.effective_cuda()
        self.status = S_WAITING

    def take_findings(self, res: dict) -> bool:
        """Take the findings ``scan_file`` made for this file's translated text; False (and nothing
        taken) where they are not this text's or none were pending."""
        if not self.findings_pending or self.status != "ready" or res.get("status") != "ready" \
                or res.get("source_hash") != self.source_hash:
            return False
        self.findings = res["findings"]
        self.warnings = self.warnings + res["warnings"]
        self.findings_pending = False
        return True

    def _take_translation(self, res: dict) -> None:
        self.findings = res["findings"]
        self.warnings = res["warnings"]
        self.hip = res["hip"]
        self.inserted_lines = res["inserted"]
        self.fixed = res["fixed"]
        self._fixed_cuda = (res.get("effective"), res.get("fix_spans") or []) if self.fixed else None
        if not self.findings_pending:  # (a file is translated before its scan only with no fix chosen)
            known = {finding_key(f) for f in self.findings}
            self.applied_fixes = [k for k in self.applied_fixes if k in known]
        self._realign(inserted=self.inserted_lines)

    def _translate(self) -> None:
        """Re-translate the CUDA held in memory with the applied fixes: where the change allows,
        only the top-level declarations it touches (``translate.incremental``), else all of it."""
        if self.status == "ready" and self.kind == "source" and not self.warnings and self._retranslate():
            return
        # the findings are those of self.cuda (fixes are applied to a copy), so they are not scanned again
        res = convert_file(self.rel, self.path, self.kind, data=self.cuda.encode("utf-8"),
                           applied=tuple(self.applied_fixes), options=self.options,
                           findings=self.findings if self.status == "ready" and self.kind == "source" else None)
        if res["status"] == "error":
            raise ReviewError(res["error"])
        self._take_translation(res)

    def _retranslate(self) -> bool:
        """The new HIP spliced from the current one around what the fixes changed; False where a
        whole translation is needed."""
        from porter.translate import TranslateOptions
        from porter.translate.incremental import retranslate

        data = self.cuda.encode("utf-8")
        fixed = self._fixed_cuda if self.fixed else None
        if self.fixed and (fixed is None or fixed[0] is None):
            return False
        old = fixed[0].encode("utf-8") if fixed else data
        effective, spans = self.fixed_source() or (data, [])
        quick = retranslate(old, self.hip.splitlines(keepends=True), self.inserted_lines, effective, self.rel,
                            self.options or TranslateOptions())
        if quick is None:
            return False
        self._take_translation({
            "findings": self.findings, "warnings": [], "hip": "".join(quick.hip_lines),
            "inserted": quick.inserted_lines, "fixed": bool(spans),
            "effective": effective.decode("utf-8", "replace") if spans else None, "fix_spans": spans})
        return True

    def _realign(self, inserted: list[tuple[int, int]] | None) -> None:
        text = self.edited if self.edited is not None else self.hip
        self.right = text.splitlines(keepends=True)
        cached = self._left_s
        if cached is None or cached[0] is not self.left:  # the CUDA lines, without their endings, once per text
            cached = self._left_s = (self.left, [x.rstrip("\r\n") for x in self.left])
        self._right_s = (self.right, [x.rstrip("\r\n") for x in self.right])
        rows = None
        if inserted is not None and self.edited is None:
            fixed = self._fixed_cuda if self.fixed else None
            if fixed is None:
                rows = align_by_insertions(len(self.left), len(self.right), inserted)
            elif fixed[0] is not None:
                rows = align_fixed(self.left, fixed[0].splitlines(keepends=True), fixed[1], len(self.right), inserted,
                                   ascii=self.cuda.isascii() and fixed[0].isascii())
        if rows is None:
            rows = align_by_diff(cached[1], self._right_s[1])
        self.rows = rows
        n_left, n_right = len(self.left), len(self.right)
        lrow, rrow = [0] * n_left, [0] * n_right
        for i, (a, b) in enumerate(rows):
            if a is not None and a < n_left:
                lrow[a] = i
            if b is not None and b < n_right:
                rrow[b] = i
        self._left_row, self._right_row = lrow, rrow
        self._hunks()

    def _hunks(self) -> None:
        hunks: list[Hunk] = []
        row_hunk: dict[int, int] = {}
        seen: dict[str, int] = {}
        rows, left, right = self.rows, self._left_s[1], self._right_s[1]
        # the changed rows, in one pass: a row pairs two different lines, or has one side only
        changed = [i for i, (a, b) in enumerate(rows) if a is None or b is None or left[a] != right[b]]
        n, k, m = len(rows), 0, len(changed)
        while k < m:
            i = j = changed[k]
            while k < m and changed[k] == j:  # a run of consecutive changed rows
                j += 1
                k += 1
            block = rows[i:j]
            old = tuple(left[a] for a, _ in block if a is not None)
            new = tuple(right[b] for _, b in block if b is not None)
            before = self.left_text(i - 1) if i > 0 else ""
            after = self.left_text(j) if j < n else ""
            key = hunk_key(before or "", old, new, after or "")
            n_same = seen.get(key, 0)  # identical hunks (repeated code) are told apart by their order
            seen[key] = n_same + 1
            if n_same:
                key = f"{key}#{n_same}"
            idx = len(hunks)
            hunks.append(Hunk(idx, i, j, old, new, key))
            row_hunk.update(dict.fromkeys(range(i, j), idx))
        self.hunks, self.row_hunk = hunks, row_hunk
        if self.edited is not None:
            self._mark_edited_hunks()
        keys = {h.key for h in hunks}
        self.stale_decisions = sum(1 for k in self.decisions if k not in keys)
        if self.restored:
            for h in hunks:
                h.stale = h.key not in self.decisions and not h.edited

    def _mark_edited_hunks(self) -> None:
        """Mark the hunks whose HIP lines the edit changed against the proposed HIP."""
        hip = [_strip_eol(x) for x in self.hip.splitlines()]
        mine = [_strip_eol(x) for x in self.right]
        touched: set[int] = set()  # 0-based lines of the edited text
        if len(hip) > DIFFLIB_LIMIT or len(mine) > DIFFLIB_LIMIT:
            touched = {i for i in range(len(mine)) if i >= len(hip) or hip[i] != mine[i]}
        else:
            for tag, _i1, _i2, j1, j2 in difflib.SequenceMatcher(None, hip, mine, autojunk=False).get_opcodes():
                if tag == "equal":
                    continue
                if j2 > j1:
                    touched.update(range(j1, j2))
                else:  # lines deleted: the lines on both sides of the cut
                    touched.update(x for x in (j1 - 1, j1) if 0 <= x < len(mine))
        if not touched:
            return
        for h in self.hunks:
            rights = [r.right for r in self.rows[h.start:h.end] if r.right is not None]
            if not rights:  # a CUDA line the edit removed: look at the lines around the cut
                rights = [r.right for r in self.rows[max(0, h.start - 1):h.end + 1] if r.right is not None]
            h.edited = any(x in touched for x in rights)

    # ---- rows ------------------------------------------------------------------
    def row_changed(self, i: int) -> bool:
        r = self.rows[i]
        if r.left is None or r.right is None:
            return True
        return self.left_text(i) != self.right_text(i)

    def left_text(self, i: int) -> str | None:
        r = self.rows[i]
        if r.left is None:
            return None
        cached = self._left_s
        return cached[1][r.left] if cached is not None and cached[0] is self.left else _strip_eol(self.left[r.left])

    def right_text(self, i: int) -> str | None:
        r = self.rows[i]
        if r.right is None:
            return None
        cached = self._right_s
        return cached[1][r.right] if cached is not None and cached[0] is self.right else _strip_eol(self.right[r.right])

    def row_of_left_line(self, line: int) -> int:
        """Row showing 1-based CUDA line ``line`` (clamped to the file)."""
        return self._row_of(line - 1, self._left_row)

    def row_of_right_line(self, line: int) -> int:
        return self._row_of(line - 1, self._right_row)

    def _row_of(self, idx: int, table: list[int]) -> int:
        if not table:
            return 0
        return table[max(0, min(idx, len(table) - 1))]

    # ---- decisions -----------------------------------------------------------
    def decision(self, hunk: int) -> str:
        h = self.hunks[hunk]
        return self.decisions.get(h.key, EDITED if h.edited else PENDING)

    def is_decided(self, h: Hunk) -> bool:
        return h.edited or h.key in self.decisions

    def decide(self, hunk: int, decision: str) -> None:
        self._decisions_version += 1
        h = self.hunks[hunk]
        if decision == PENDING:
            self.decisions.pop(h.key, None)
        else:
            self.decisions[h.key] = decision
        h.stale = False

    def accept_all(self) -> None:
        for h in self.hunks:
            if h.key not in self.decisions:
                self.decisions[h.key] = ACCEPTED
            h.stale = False

    @property
    def pending_hunks(self) -> int:
        # cached on (hunks, number of decisions): decisions only change through decide/accept_all/restore
        key = (id(self.hunks), len(self.decisions), self._decisions_version)
        cached = self._pending_cache
        if cached is None or cached[0] != key:
            cached = (key, sum(1 for h in self.hunks if h.key not in self.decisions and not h.edited))
            self._pending_cache = cached
        return cached[1]

    @property
    def state(self) -> str:
        if self.status == "error":
            return S_ERROR
        if self.status != "ready":
            return S_WAITING
        if self.pending_hunks or self.edit_stale:
            return S_PENDING
        if self.edited is not None:
            return S_EDITED
        return S_ACCEPTED if self.hunks else S_UNCHANGED

    @property
    def needs_review(self) -> bool:
        return self.state in (S_PENDING, S_WAITING)

    def severity_counts(self) -> dict[str, int]:
        """Open findings by severity (a finding whose fix is applied, or that a scan of the fixed
        CUDA no longer finds, is not open), each at its severity in that scan, with the findings
        the fixes introduced."""
        applied = tuple(self.applied_fixes)
        cached = self._sev_cache
        if cached is not None and cached[0] is self.findings and cached[1] == applied and cached[3] is self._recheck:
            return cached[2]
        out = {"error": 0, "warning": 0, "info": 0}
        closed = set(self.applied_fixes) | self.resolved
        regraded = self.regraded
        for f in self.findings:
            k = finding_key(f) if closed or regraded else ""
            if closed and k in closed:
                continue
            sev = regraded.get(k, f.severity)
            out[sev] = out.get(sev, 0) + 1
        for n in self.introduced:
            out[n.severity] = out.get(n.severity, 0) + 1
        self._sev_cache = (self.findings, applied, out, self._recheck)
        return out

    # ---- findings the fixes resolved ---------------------------------------------
    @property
    def resolved(self) -> set[str]:
        """Keys of the findings (not fixed themselves) that a scan of the CUDA with the applied
        fixes no longer finds: a width-32 fix of a shuffle also answers the PORT012 warning on its
        loop.  Empty until ``take_recheck`` has the scan of exactly these fixes."""
        held = self._current_recheck()
        return held[1] if held else set()

    @property
    def regraded(self) -> dict[str, str]:
        """Finding key -> its severity in the scan of the fixed CUDA, where that differs: once every
        shuffle has width 32 the other warp-size warnings of the unit are infos."""
        held = self._current_recheck()
        return held[2] if held else {}

    @property
    def introduced(self) -> list[Introduced]:
        """The findings the scan of the fixed CUDA adds (a fix brought them)."""
        held = self._current_recheck()
        return held[3] if held else []

    def _current_recheck(self) -> tuple | None:
        """The re-check held, when it was made for the fixes applied now."""
        held = self._recheck
        return held if held is not None and held[0] == tuple(self.applied_fixes) else None

    def severity_of(self, finding) -> str:
        """The finding's severity after the re-check of the applied fixes (its own before one)."""
        return self.regraded.get(finding_key(finding), finding.severity)

    def recheck_job(self) -> Recheck | None:
        """What ``scan_fixed`` needs to re-check the findings after the applied fixes (None: no fix)."""
        fixed = self.fixed_source() if self.kind == "source" and self.status == "ready" else None
        if fixed is None:
            return None
        return Recheck(self.rel, fixed[0], self.options, tuple(self.applied_fixes), fixed[1])

    def take_recheck(self, job: Recheck, found: list[tuple[str, int, int, str, str]]) -> bool:
        """Take ``scan_fixed``'s answer for ``job``; False when the fixes changed meanwhile.  Each
        finding (not fixed itself) is still found (the same rule on a line its span maps to: its
        severity there counts), or resolved; what the fixed scan has besides is introduced."""
        applied, spans = job.applied, job.spans
        if applied != tuple(self.applied_fixes):
            return False
        newlines = [m.start() for m in re.finditer(b"\n", job.effective)]

        def lines(a: int, b: int) -> tuple[int, int]:
            return bisect.bisect_left(newlines, a), bisect.bisect_left(newlines, max(a, b - 1))

        by_rule: dict[str, list[tuple[int, int, int]]] = {}  # rule -> (first line, last line, index in found)
        for i, (rule, a, b, _sev, _msg) in enumerate(found):
            by_rule.setdefault(rule, []).append((*lines(a, b), i))
        done = set(applied)
        resolved: set[str] = set()
        regraded: dict[str, str] = {}
        claimed: set[int] = set()
        for f in self.findings:
            key = finding_key(f)
            lo, hi = lines(_mapped(f.start_byte, spans, False), _mapped(f.end_byte, spans, True))
            same = [i for x, y, i in by_rule.get(f.rule, ()) if x <= hi and lo <= y]
            claimed.update(same)  # (a fix's own finding found again where the fix is: not new either)
            if key in done:
                continue
            if not same:
                resolved.add(key)
            elif found[same[0]][3] != f.severity:
                regraded[key] = found[same[0]][3]
        cuda = self.cuda.encode("utf-8", "surrogatepass")
        introduced = [Introduced(rule, sev, msg, cuda.count(b"\n", 0, _unmapped(a, spans)) + 1)
                      for i, (rule, a, _b, sev, msg) in enumerate(found) if i not in claimed]
        self._recheck = (applied, resolved, regraded, introduced)
        return True

    def recheck(self) -> None:
        """Re-check the findings after the applied fixes here (the app does it in a worker)."""
        job = self.recheck_job()
        if job is not None:
            self.take_recheck(job, scan_fixed(job))

    # ---- edits and fixes -----------------------------------------------------
    def set_edited(self, text: str | None, prune: bool = True) -> None:
        """The user's HIP text (None: back to the proposed HIP).  The hunks it touches
        are decided by it; decisions of hunks that no longer differ are dropped."""
        self.edited = None if text is None or text == self.hip else text
        self.edit_base = self.edit_base_cuda = ""
        self._realign(None if self.edited is not None else self.inserted_lines)
        keys = {h.key for h in self.hunks}
        if self.edited is not None and prune:
            self.decisions = {k: v for k, v in self.decisions.items() if k in keys}
            self.stale_decisions = 0

    @property
    def edit_stale(self) -> bool:
        """The CUDA source changed after the edit was made: keep it or re-convert?"""
        return self.edited is not None and bool(self.edit_base) and self.edit_base != self.source_hash

    def keep_edit(self) -> None:
        """Keep the edit against the changed source (it is no longer stale)."""
        self.edit_base = self.edit_base_cuda = ""

    def fixed_source(self) -> tuple[bytes, list[tuple[int, int, int]]] | None:
        """The CUDA with the applied fixes, and the fixes' edits (``apply_fixes_spans``); None when
        no fix is applied."""
        chosen = [f for f in self.findings if f.fix and finding_key(f) in self.applied_fixes]
        return apply_fix_edits(self.cuda.encode("utf-8", "surrogatepass"), chosen) if chosen else None

    def effective_cuda(self) -> str:
        """The CUDA the proposed HIP is translated from: the source with the applied fixes."""
        fixed = self.fixed_source()
        return self.cuda if fixed is None else fixed[0].decode("utf-8", "replace")

    def apply_fix(self, finding) -> bool:
        """Apply ``finding``'s suggested fix to the CUDA source and re-translate."""
        return self.apply_fixes([finding]) == 1

    def safe_fixes(self) -> list:
        """The findings whose fix is marked safe and not applied yet."""
        applied = set(self.applied_fixes)
        return [f for f in self.findings if f.fix is not None and f.fix.edits and f.fix.safe
                and finding_key(f) not in applied]

    def apply_fixes(self, findings: list) -> int:
        """Apply several fixes and re-translate once; how many were new.  On a failure
        nothing is applied (ReviewError)."""
        keys = [finding_key(f) for f in findings if f.fix is not None and f.fix.edits]
        new = [k for k in dict.fromkeys(keys) if k not in self.applied_fixes]
        if not new:
            return 0
        before = list(self.applied_fixes)
        self.applied_fixes.extend(new)
        try:
            self._translate()
        except Exception:
            self.applied_fixes = before
            raise
        return len(new)

    def output_text(self) -> str:
        """The reviewed HIP text: accepted (and pending) hunks take the HIP line, rejected keep the CUDA line."""
        out: list[str] = []
        for i, r in enumerate(self.rows):
            h = self.row_hunk.get(i)
            rejected = h is not None and self.decisions.get(self.hunks[h].key) == REJECTED
            if rejected:
                if r.left is not None:
                    out.append(self.left[r.left])
            elif r.right is not None:
                out.append(self.right[r.right])
        return "".join(out)

    def output_line_to_source(self, line: int) -> int:
        """1-based HIP line of the written file -> 1-based CUDA line (approximate for edited files)."""
        if self.edited is None and not self.fixed:
            from porter.translate import Translation

            return Translation.output_line_to_source(self, line)  # only reads .inserted_lines
        row = self.row_of_right_line(line)
        for i in range(row, -1, -1):
            if self.rows[i].left is not None:
                return self.rows[i].left + 1
        return 1

    # ---- session -------------------------------------------------------------
    def to_session(self) -> dict:
        d: dict = {"source_hash": self.source_hash}
        if self.decisions:
            d["decisions"] = dict(self.decisions)
        if self.edited is not None:
            d["edited"] = self.edited
            d["edit_base"] = self.edit_base or self.source_hash
            if self.edit_base_cuda or not self.edit_stale:  # for the three-way view after the CUDA changes
                d["edit_base_cuda"] = self.edit_base_cuda or self.effective_cuda()
        if self.applied_fixes:
            d["fixes"] = list(self.applied_fixes)
        return d

    def restore(self, d: dict) -> None:
        """Take saved decisions; call before ``load`` (stale ones are found then)."""
        self.decisions = {str(k): str(v) for k, v in (d.get("decisions") or {}).items() if v in (ACCEPTED, REJECTED)}
        self.applied_fixes = [str(x) for x in d.get("fixes") or []]
        self.source_hash = str(d.get("source_hash") or "")
        self._saved_edit = d.get("edited") if isinstance(d.get("edited"), str) else None
        base = d.get("edit_base")
        self._saved_edit_base = base if isinstance(base, str) else self.source_hash
        base_cuda = d.get("edit_base_cuda")  # sessions saved before it was kept have none
        self._saved_edit_base_cuda = base_cuda if isinstance(base_cuda, str) else ""

    def after_restore_load(self) -> None:
        saved = self._saved_edit
        if self.status == "ready" and saved is not None:
            self.set_edited(saved, prune=False)
            base = self._saved_edit_base
            self.edit_base = base if base and base != self.source_hash else ""
            if self.edit_base:
                self.edit_base_cuda = self._saved_edit_base_cuda
        self._saved_edit = None


@dataclass
class WriteReport:
    written: list[str] = field(default_factory=list)
    copied: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)  # pending files
    errors: list[str] = field(default_factory=list)

    def summary(self) -> str:
        parts = [f"wrote {len(self.written)} file(s)"]
        if self.copied:
            parts.append(f"copied {len(self.copied)} other file(s)")
        if self.skipped:
            parts.append(f"skipped {len(self.skipped)} pending file(s)")
        if self.errors:
            parts.append(f"{len(self.errors)} error(s): {self.errors[0]}")
        return ", ".join(parts)


class ReviewProject:
    """The files of one project under review and where its output goes."""

    def __init__(self, root: str | os.PathLike, output: str | os.PathLike, options=None):
        self.root = Path(root).resolve()
        self.output = Path(output).resolve()
        self.options = options  # TranslateOptions: the target ROCm and --roc (porter.toml or the command line)
        self.build_arch: str | None = None  # the arch `c` compiles for; None: porter build's default (kept in the session)
        all_files = discover(self.root, exclude=[self.output])
        self.files: list[FileReview] = [FileReview(rel=f.rel, path=f.path, kind=f.kind, options=options)
                                        for f in all_files if f.kind in ("source", "build")]
        self.others: list[ProjectFile] = [f for f in all_files if f.kind not in ("source", "build")]
        self.by_rel = {f.rel: f for f in self.files}
        # a saved session's entries of files not converted yet: {rel: saved entry}
        self._restored_files: dict[str, dict] = {}

    def counts(self) -> dict[str, int]:
        states = [f.state for f in self.files]
        errors = sum(f.severity_counts()["error"] for f in self.files if f.status == "ready")
        return {
            "files": len(states),
            "reviewed": sum(1 for s in states if s in (S_ACCEPTED, S_EDITED, S_UNCHANGED)),
            "converted": sum(1 for s in states if s != S_WAITING),
            "errors": errors,
            "unreadable": states.count(S_ERROR),
        }

    def header(self) -> str:
        """The project's counts for the top line.  While files are converting or their findings
        are being checked, that comes first: the counts after it are not final yet, and a narrow
        terminal cuts the end of the line."""
        c = self.counts()
        text = f"{c['reviewed']}/{c['files']} files reviewed, {c['errors']} error finding{'s' if c['errors'] != 1 else ''}"
        if c["unreadable"]:
            text += f", {c['unreadable']} not reviewable"
        if c["converted"] < c["files"]:
            return f"converting {c['converted']}/{c['files']} · " + text
        pending = sum(1 for f in self.files if f.findings_pending and f.status == "ready")
        if pending:
            return f"checking findings ({pending} file{'s' if pending != 1 else ''} left) · " + text
        return text

    def next_needing_review(self, rel: str | None, step: int = 1) -> FileReview | None:
        if not self.files:
            return None
        n = len(self.files)
        start = next((i for i, f in enumerate(self.files) if f.rel == rel), -1 if step > 0 else 0)
        for k in range(1, n + 1):
            f = self.files[(start + step * k) % n]
            if f.needs_review and f.rel != rel:
                return f
        return None

    # ---- writing ---------------------------------------------------------------
    def changed_on_disk(self) -> list[FileReview]:
        """The converted files whose source changed on disk since it was read."""
        return [f for f in self.files if f.changed_on_disk()]

    def write(self) -> WriteReport:
        """Write every accepted, edited or unchanged file and copy the other files.
        Pending files are not written.  Each file is written atomically."""
        rep = WriteReport()
        if self.output == self.root:
            rep.errors.append("the output folder is the source folder")
            return rep
        try:
            self.output.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            rep.errors.append(f"cannot create {self.output}: {exc.strerror or exc}")
            return rep
        for f in self.files:
            st = f.state
            if st in (S_PENDING, S_WAITING):
                rep.skipped.append(f.rel)
                continue
            dest = self.output / f.rel
            try:
                if st == S_ERROR:
                    if f.path is None or not f.path.exists():
                        rep.errors.append(f"{f.rel}: {f.error}")
                        continue
                    atomic_write(dest, f.path.read_bytes(), f.mode)
                    rep.copied.append(f.rel)
                    continue
                atomic_write(dest, f.output_text().encode("utf-8", "surrogatepass"), f.mode)
                rep.written.append(f.rel)
            except OSError as exc:
                rep.errors.append(f"{f.rel}: {exc.strerror or exc}")
        for o in self.others:
            dest = self.output / o.rel
            try:
                data = o.path.read_bytes()
                if dest.exists() and dest.read_bytes() == data:
                    rep.copied.append(o.rel)
                    continue
                atomic_write(dest, data, o.path.stat().st_mode & 0o777)
                rep.copied.append(o.rel)
            except OSError as exc:
                rep.errors.append(f"{o.rel}: {exc.strerror or exc}")
        return rep

    # ---- session ---------------------------------------------------------------
    def to_session(self) -> dict:
        files = {}
        for f in self.files:
            d = f.to_session()
            if len(d) > 1 or f.rel in self._restored_files:
                files[f.rel] = d
        # keep decisions of files not loaded yet
        for rel, d in self._restored_files.items():
            fr = self.by_rel.get(rel)
            if fr is not None and fr.status == S_WAITING:
                files[rel] = d
        d = {"project": str(self.root), "files": files}
        if self.build_arch:
            d["build_arch"] = self.build_arch
        return d

    def restore(self, data: dict) -> int:
        """Take a saved session's decisions; returns how many files had some."""
        files = data.get("files") or {}
        arch = data.get("build_arch")
        if isinstance(arch, str) and arch and self.build_arch is None:
            self.build_arch = arch
        self._restored_files = {}
        n = 0
        for rel, d in files.items():
            fr = self.by_rel.get(rel)
            if fr is None or not isinstance(d, dict):
                continue
            fr.restore(d)
            self._restored_files[rel] = d
            n += 1
        return n

    def load_file(self, fr: FileReview) -> None:
        fr.load()
        self._after_load(fr)

    def apply_loaded(self, fr: FileReview, res: dict) -> None:
        """Take a ``convert_file`` result computed elsewhere (a worker process)."""
        fr.apply_result(res)
        self._after_load(fr)

    def _after_load(self, fr: FileReview) -> None:
        if fr.rel in self._restored_files:
            fr.after_restore_load()
            self._restored_files.pop(fr.rel, None)
