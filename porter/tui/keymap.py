"""The review keys: one table, each key with a binding id.

The id names the key everywhere (footer, help, palette, tests) so that a key can
be remapped without touching the actions: Textual's ``App.set_keymap`` takes
``{binding id: "keys"}`` (the way Posting lets a user config remap bindings).
A user remaps keys in ``~/.config/porter/keymap.toml`` (``$XDG_CONFIG_HOME``, or
the file ``$PORTER_KEYMAP`` names)::

    [keys]
    accept_hunk = "y"
    next_finding = "j,right_square_bracket"
"""

from __future__ import annotations

import os
import tomllib
from dataclasses import dataclass
from pathlib import Path

from textual.binding import Binding


@dataclass(frozen=True, slots=True)
class Key:
    id: str
    key: str
    action: str  # an action of the app
    description: str  # help and the command palette
    short: str = ""  # its word in the key bar ("" = not in the key bar; FOOTER orders them)
    help: str = ""  # what the palette entry does
    priority: bool = False

    @property
    def show(self) -> bool:
        return bool(self.short)


# help and palette order: by what they act on; the key bar's order is FOOTER below
KEYS: tuple[Key, ...] = (
    Key("accept_hunk", "a", "decide('accepted')", "Accept hunk", "accept",
        "take the HIP side of the hunk at the cursor"),
    Key("reject_hunk", "x", "decide('rejected')", "Reject hunk", "reject",
        "keep the CUDA lines of the hunk at the cursor"),
    Key("next_hunk", "n", "next_hunk", "Next hunk", "hunk", "move the cursor to the next changed hunk"),
    Key("prev_hunk", "p", "prev_hunk", "Prev hunk", "", "move the cursor to the previous changed hunk"),
    Key("accept_file", "A", "accept_file", "Accept file", "all", "accept every undecided hunk of this file"),
    Key("next_file", "tab", "next_file(1)", "Next file", "file", "open the next file that needs review",
        priority=True),
    Key("prev_file", "shift+tab", "next_file(-1)", "Prev file", "", "open the previous file that needs review",
        priority=True),
    Key("next_finding", "right_square_bracket", "finding(1)", "Next finding", "finding",
        "put the findings cursor on the next finding (from the diff cursor)"),
    Key("prev_finding", "left_square_bracket", "finding(-1)", "Prev finding", "", "the previous finding"),
    Key("apply_fix", "f", "apply_fix", "Apply fix", "fix",
        "apply the chosen finding's fix to the CUDA and re-convert"),
    Key("apply_safe_fixes", "F", "apply_safe_fixes", "Apply every safe fix in this file", "",
        "apply every fix marked safe in this file, after a preview"),
    Key("explain", "i", "explain", "Finding in full", "explain",
        "the chosen finding's whole message, its fix as before / after lines, and its rule's page"),
    Key("edit", "e", "edit", "Edit HIP", "edit", "edit the HIP text at the current hunk (ctrl+s saves)"),
    Key("external_edit", "E", "external_edit", "Edit in $EDITOR", "",
        "edit the HIP text in $VISUAL / $EDITOR at the current hunk (a temporary copy)"),
    Key("undo", "u", "undo", "Undo", "undo", "undo the last decision, fix or edit"),
    Key("redo", "ctrl+r", "redo", "Redo", "redo", "do again what u undid (a new change drops what is left to redo)"),
    Key("write", "w", "write", "Write", "write", "write the reviewed files to the output folder"),
    Key("compile_and_test", "T", "compile_and_test", "Compile and test", "test",
        "write, compile, run porter.toml's [test] command, then the smoke test; stop at the first failure"),
    Key("compile", "c", "compile", "Compile", "compile", "compile the written output for the target arch"),
    Key("smoke", "t", "smoke", "Smoke test", "smoke", "run the smoke test"),
    Key("next_error", "right_curly_bracket", "error(1)", "Next error", "error",
        "jump to the next error of the last compile, findings cursor there"),
    Key("prev_error", "left_curly_bracket", "error(-1)", "Prev error", "", "jump to the previous error"),
    Key("search", "slash", "search", "Search the diff", "search",
        "find text on either side of the diff; then n / N go to the next / previous match, escape ends the search "
        "(in the file list / filters the files)"),
    Key("prev_match", "N", "prev_match", "Previous match", "",
        "the previous match of the search (n: the next one, while a search is on)"),
    Key("end_search", "escape", "end_search", "End the search", "", "n goes to the next hunk again"),
    Key("goto_line", "colon", "goto_line", "Go to line", "line", "go to a CUDA line (123) or a HIP line (h123)"),
    Key("toggle_log", "l", "toggle_log", "Log", "log", "show or hide the log and diagnostics"),
    Key("zoom", "z", "zoom", "Zoom diff", "zoom", "hide or show the file list and findings (narrow terminals)"),
    Key("messages", "m", "messages", "Messages", "messages", "every message shown since the start, newest last"),
    Key("toggle_unified", "v", "toggle_unified", "Unified / side-by-side", "unified",
        "the diff in one column (- CUDA, + HIP lines, for narrow terminals) or side by side; kept in the session"),
    Key("focus_files", "1", "focus_pane('files')", "Focus files", "", "move the keyboard focus to the file list"),
    Key("focus_diff", "2", "focus_pane('diff')", "Focus diff", "", "move the keyboard focus to the diff"),
    Key("focus_findings", "3", "focus_pane('findings')", "Focus findings", "",
        "move the keyboard focus to the findings"),
    Key("focus_diagnostics", "4", "focus_pane('diagnostics')", "Focus diagnostics", "",
        "move the keyboard focus to the diagnostics (enter jumps)"),
    Key("focus_log", "5", "focus_pane('log')", "Focus log", "", "move the keyboard focus to the log"),
    Key("help", "question_mark", "help", "Help", "help", "the keys and what the file badges mean"),
    Key("quit", "q", "quit", "Quit", "quit", "quit (asks first about work not written yet)"),
)

LABEL = {"slash": "/", "colon": ":", "right_square_bracket": "]", "left_square_bracket": "[", "question_mark": "?",
         "right_curly_bracket": "}", "left_curly_bracket": "{", "ctrl+r": "^r"}

# the key bar, most needed first (it wraps onto a second line, and cuts the end where both are full):
# the review loop (decide, next file, findings, fix, write, compile and test, errors), then the rest
FOOTER = ("accept_hunk", "reject_hunk", "next_hunk", "accept_file", "next_file", "next_finding", "apply_fix", "edit",
          "undo", "write", "compile_and_test", "compile", "next_error", "zoom", "help", "quit", "explain", "search",
          "toggle_unified", "smoke", "toggle_log", "messages", "redo", "goto_line")


def label(key: str) -> str:
    """How a key is written for people: ``]`` for right_square_bracket."""
    return LABEL.get(key, key)


def user_keymap_path() -> Path:
    """Where the user's keymap is read from."""
    if os.environ.get("PORTER_KEYMAP"):
        return Path(os.environ["PORTER_KEYMAP"])
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "porter" / "keymap.toml"


def read_user_keymap(path: Path) -> tuple[dict[str, str], list[str]]:
    """``{binding id: keys}`` from the ``[keys]`` table of ``path`` (no file: nothing), and a
    one-line problem for each entry left out: an unknown id, a value that is not a key name, a
    key another binding already has (after the remap).  A file that cannot be read is one problem
    and changes no key."""
    from textual.app import App

    if not path.is_file():
        return {}, []
    try:
        doc = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        return {}, [f"{path}: not read ({exc}); the default keys stay"]
    table = doc.get("keys", {})
    if not isinstance(table, dict):
        return {}, [f"{path}: [keys] must be a table of binding id = \"key\"; the default keys stay"]
    known = {k.id for k in KEYS}
    wanted: dict[str, str] = {}
    problems: list[str] = []
    for bid, value in table.items():
        if bid not in known:
            problems.append(f"{path}: no key has the id {bid!r} (the ids are in porter/tui/keymap.py)")
        elif not isinstance(value, str) or not value.strip() or any(not part.strip() for part in value.split(",")):
            problems.append(f"{path}: {bid} = {value!r} is not a key name (\"y\", \"ctrl+y\", \"?\" or several: \"j,down\")")
        else:
            wanted[bid] = ",".join(part.strip() for part in value.split(","))
    normal = App._normalize_keymap(wanted)  # "?" and "question_mark" are the same key
    owner: dict[str, str] = {}
    for k in KEYS:  # the defaults of the keys not remapped, then the remapped ones in file order
        if k.id not in wanted:
            owner[k.key] = k.id
    out: dict[str, str] = {}
    for bid in wanted:
        clash = next((owner[key] for key in normal[bid].split(",") if key in owner), None)
        if clash is not None:
            problems.append(f"{path}: {bid} = {wanted[bid]!r} is already the key of {clash}; {bid} keeps its key")
            owner[by_id(bid).key] = bid
            continue
        out[bid] = wanted[bid]
        owner.update(dict.fromkeys(normal[bid].split(","), bid))
    return out, problems


def by_id(binding_id: str) -> Key:
    return next(k for k in KEYS if k.id == binding_id)


def bindings(prefix: str = "app.") -> list[Binding]:
    """The keys as bindings of a screen whose actions live on the app."""
    return [Binding(k.key, prefix + k.action, k.short or k.description, id=k.id, show=k.show,
                    priority=k.priority, key_display=LABEL.get(k.key), tooltip=k.description) for k in KEYS]
