"""Project code the review app runs, and the question before it runs (issue 33 item 3).

`c` runs the project's build files (a Makefile's recipes and ``$(shell …)``, a CMakeLists.txt),
`T` those, porter.toml's ``[test] command`` and the project's smoke test, `t` the project's
smoke test, which imports the project's Python module named in porter.toml ``[smoke]``.  As
editors do for workspace tasks, the app shows what would run and asks once per project; the
answer is kept in the session as a fingerprint of each piece (the build files as read, the test
command, the ``[smoke]`` table), so a piece that changes is asked about again.

The fingerprints are computed from the project as the app holds it (no I/O beyond porter.toml);
porter's own built-in smoke test and a build without project build files (porter compiles the
sources itself) run no project code and are not asked about."""

from __future__ import annotations

import hashlib
import json
import tomllib
from dataclasses import dataclass
from pathlib import Path

SETTINGS_FILE = "porter.toml"


@dataclass(frozen=True, slots=True)
class Piece:
    """One piece of project code: ``key`` (kind and fingerprint) is what the session keeps."""

    kind: str  # "build" | "test" | "smoke"
    shown: str  # what the question shows
    key: str


def _digest(*parts: bytes) -> str:
    h = hashlib.sha256()
    for p in parts:
        h.update(len(p).to_bytes(8, "little"))
        h.update(p)
    return h.hexdigest()[:20]


def build_piece(project) -> Piece | None:
    """The project's build files (as read from the source tree), or None when it has none."""
    files = sorted((fr for fr in project.files if fr.kind == "build"), key=lambda fr: fr.rel)
    if not files:
        return None
    parts = []
    for fr in files:
        text = fr.cuda if fr.status == "ready" else ""
        if not text and fr.path is not None:
            try:
                text = fr.path.read_bytes().decode("utf-8", "replace")
            except OSError:
                text = ""
        parts += [fr.rel.encode(), text.encode("utf-8", "surrogatepass")]
    names = ", ".join(fr.rel for fr in files)
    return Piece("build", f"the project's build files, with whatever they run ($(shell …), commands): {names}",
                 "build:" + _digest(*parts))


def test_piece(argv: list[str] | None) -> Piece | None:
    if not argv:
        return None
    shown = " ".join(argv)
    return Piece("test", f"porter.toml [test] command: {shown}", "test:" + _digest(*(a.encode() for a in argv)))


def smoke_piece(root: Path) -> Piece | None:
    """The project's smoke test (porter.toml [smoke]: its Python module is imported), or None."""
    path = Path(root) / SETTINGS_FILE
    try:
        raw = path.read_bytes()
    except OSError:
        return None
    try:
        doc = tomllib.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, tomllib.TOMLDecodeError):
        return Piece("smoke", f"{path} (unreadable: porter smoke says what is wrong)", "smoke:" + _digest(raw))
    table = doc.get("smoke")
    if table is None:
        return None
    body = json.dumps(table, sort_keys=True, default=str)
    shown = ", ".join(f"{k} = {v!r}" for k, v in table.items()) if isinstance(table, dict) else body
    return Piece("smoke", f"porter.toml [smoke], whose Python module is imported: {shown}",
                 "smoke:" + _digest(body.encode()))


def question(what: str, root: Path, pieces: list[Piece]) -> str:
    lines = "\n".join(f"  · {p.shown}" for p in pieces)
    return (f"{what} runs code of the project in {root}:\n{lines}\n"
            "Run it? (y: yes, kept in the session until this code changes; n: no)")


def saved_trusted(data: dict | None) -> set[str]:
    """The fingerprints a session keeps (a session without them, or a wrong type: none)."""
    keys = (data or {}).get("trusted")
    return {k for k in keys if isinstance(k, str)} if isinstance(keys, list) else set()


def ask_then(app, what: str, pieces: list[Piece | None], then) -> None:
    """Run ``then()`` at once when every piece is trusted (or there is none); else show the pieces
    not yet trusted and ask; yes keeps them in the session, no runs nothing and says so."""
    from porter.tui.screens.dialogs import ConfirmScreen

    new = [p for p in pieces if p is not None and p.key not in app.trusted]
    if not new or not app.ask_before_project_code:
        then()
        return

    def answer(yes: bool | None) -> None:
        if not yes:
            app.notify(f"{what}: not run (nothing of the project ran; ask again with the same key)",
                       severity="warning", timeout=4)
            return
        app.trusted.update(p.key for p in new)
        app.save_session()
        then()

    app.push_screen(ConfirmScreen(question(what, app.project.root, new)), answer)
