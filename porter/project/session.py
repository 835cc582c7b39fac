"""The saved review session: ``<output>/.porter/session.json``.

Saved atomically after every change (a kill at any moment leaves the old or the
new file), with a version field.  A corrupt or unreadable file is set aside as
``session.json.bad`` and reported; it never stops the review.  The session lives
in the output folder, never in the user's source tree.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from porter.project.atomic import atomic_write

VERSION = 1
SESSION_DIR = ".porter"
SESSION_FILE = "session.json"


class SessionStore:
    def __init__(self, output: str | os.PathLike):
        self.path = Path(output) / SESSION_DIR / SESSION_FILE

    def load(self, project: str) -> tuple[dict | None, str | None]:
        """(saved data or None, a message for the user or None).

        A session of another project is left alone and not used."""
        try:
            raw = self.path.read_bytes()
        except FileNotFoundError:
            return None, None
        except OSError as exc:
            return None, f"cannot read the saved session {self.path}: {exc.strerror or exc}"
        try:
            data = json.loads(raw.decode("utf-8"))
            if not isinstance(data, dict) or not isinstance(data.get("files", {}), dict):
                raise ValueError("not a session object")
            version = data.get("version")
            if version != VERSION:
                raise ValueError(f"unknown session version {version!r}")
            _check_shape(data)
        except (ValueError, UnicodeDecodeError) as exc:
            bad = self.path.with_name(SESSION_FILE + ".bad")
            try:
                os.replace(self.path, bad)
                where = f"set aside as {bad.name}"
            except OSError:
                where = "left in place"
            return None, f"the saved session was unreadable ({str(exc)[:80]}); {where}, starting afresh"
        if data.get("project") not in (None, project):
            return None, f"the session in {self.path.parent} belongs to {data.get('project')}; not restored"
        return data, None

    def save(self, data: dict) -> None:
        """Write the session atomically (raises OSError when the folder is not writable)."""
        body = {"version": VERSION, **data}
        atomic_write(self.path, json.dumps(body, indent=1, sort_keys=True).encode("utf-8"))


_FILE_FIELDS = {"decisions": dict, "fixes": list, "source_hash": str, "edited": str, "edit_base": str,
                "edit_base_cuda": str}


def _check_shape(data: dict) -> None:
    """ValueError naming the first field of a readable session whose type is not the one porter writes
    (``"decisions": [1, 2]``): such a file is set aside like an unreadable one, never half-used."""
    for key, kind in (("project", str), ("build_arch", str), ("stale_build", str)):
        if key in data and data[key] is not None and not isinstance(data[key], kind):
            raise ValueError(f"{key} is not a {kind.__name__}")
    trusted = data.get("trusted")
    if trusted is not None and not (isinstance(trusted, list) and all(isinstance(k, str) for k in trusted)):
        raise ValueError("trusted is not a list of text")
    for rel, entry in data.get("files", {}).items():
        if not isinstance(entry, dict):
            raise ValueError(f"files[{rel!r}] is not an object")
        for key, kind in _FILE_FIELDS.items():
            value = entry.get(key)
            if value is not None and not isinstance(value, kind):
                raise ValueError(f"files[{rel!r}].{key} is not a{'n' if kind is list else ''} "
                                 f"{'object' if kind is dict else 'list' if kind is list else 'string'}")
        if not all(isinstance(k, str) and isinstance(v, str) for k, v in (entry.get("decisions") or {}).items()):
            raise ValueError(f"files[{rel!r}].decisions holds something else than text")
        if not all(isinstance(x, str) for x in entry.get("fixes") or []):
            raise ValueError(f"files[{rel!r}].fixes holds something else than text")


def unwritten(project) -> list[str]:
    """Files whose reviewed text is not what the output folder holds: reviewed files
    (accepted, edited, or with chosen fixes) that are missing from the output or
    differ from it.  Computed from the review against the output on disk, so it
    holds after a restart too.  Files still converting are not counted (their
    text is not known yet); pending files are not written and are not counted."""
    from porter.project.file_review import S_ACCEPTED, S_EDITED, S_UNCHANGED

    out: list[str] = []
    for fr in project.files:
        if fr.status != "ready" or fr.state not in (S_ACCEPTED, S_EDITED, S_UNCHANGED):
            continue
        if not (fr.decisions or fr.edited is not None or fr.applied_fixes):
            continue  # nothing decided in this file: nothing to lose
        try:
            on_disk = (project.output / fr.rel).read_bytes()
        except OSError:
            out.append(fr.rel)
            continue
        if on_disk != fr.output_text().encode("utf-8", "surrogatepass"):
            out.append(fr.rel)
    return out
