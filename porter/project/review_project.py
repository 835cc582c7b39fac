"""The project under review: its files (``FileReview`` each), the counts of the top line,
writing the reviewed port out, and the project's part of the saved session
(``porter.project.session`` stores it).  Pure Python, no UI."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from porter.project.atomic import atomic_write
from porter.project.file_conversion import source_bytes
from porter.project.file_review import S_ACCEPTED, S_EDITED, S_ERROR, S_PENDING, S_UNCHANGED, S_WAITING, FileReview
from porter.project.files import ProjectFile, discover


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
                atomic_write(dest, source_bytes(f.output_text()), f.mode)
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
