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
    short: str = ""  # the footer (narrow terminals keep more keys); "" = not in the footer
    help: str = ""  # what the palette entry does
    priority: bool = False
    tier: int = 1  # 1: in the footer at any width, 2: from 100 columns, 3: from 150 columns

    @property
    def show(self) -> bool:
        return bool(self.short)


# footer order = how often the loop needs the key (the footer cuts off the right end at narrow widths)
KEYS: tuple[Key, ...] = (
    Key("accept_hunk", "a", "decide('accepted')", "Accept hunk", "accept",
        "take the HIP side of the hunk at the cursor"),
    Key("reject_hunk", "x", "decide('rejected')", "Reject hunk", "reject",
        "keep the CUDA lines of the hunk at the cursor"),
    Key("next_hunk", "n", "next_hunk", "Next hunk", "hunk", "move the cursor to the next changed hunk", tier=2),
    Key("prev_hunk", "p", "prev_hunk", "Prev hunk", "", "move the cursor to the previous changed hunk"),
    Key("accept_file", "A", "accept_file", "Accept file", "all", "accept every undecided hunk of this file"),
    Key("next_file", "tab", "next_file(1)", "Next file", "file", "open the next file that needs review",
        priority=True, tier=3),
    Key("prev_file", "shift+tab", "next_file(-1)", "Prev file", "", "open the previous file that needs review",
        priority=True),
    Key("next_finding", "right_square_bracket", "finding(1)", "Next finding", "finding",
        "put the findings cursor on the next finding (from the diff cursor)", tier=3),
    Key("prev_finding", "left_square_bracket", "finding(-1)", "Prev finding", "", "the previous finding"),
    Key("apply_fix", "f", "apply_fix", "Apply fix", "fix",
        "apply the chosen finding's fix to the CUDA and re-convert", tier=2),
    Key("apply_safe_fixes", "F", "apply_safe_fixes", "Apply every safe fix in this file", "",
        "apply every fix marked safe in this file, after a preview"),
    Key("explain", "i", "explain", "Explain finding", "", "the rule page of the chosen finding"),
    Key("edit", "e", "edit", "Edit HIP", "edit", "edit the HIP text at the current hunk (ctrl+s saves)"),
    Key("external_edit", "E", "external_edit", "Edit in $EDITOR", "",
        "edit the HIP text in $VISUAL / $EDITOR at the current hunk (a temporary copy)"),
    Key("undo", "u", "undo", "Undo", "undo", "undo the last decision, fix or edit"),
    Key("write", "w", "write", "Write", "write", "write the reviewed files to the output folder"),
    Key("compile_and_test", "T", "compile_and_test", "Compile and test", "test",
        "write, compile, run porter.toml's [test] command, then the smoke test; stop at the first failure"),
    Key("compile", "c", "compile", "Compile", "compile", "compile the written output for the target arch", tier=2),
    Key("smoke", "t", "smoke", "Smoke test", "smoke", "run the smoke test", tier=2),
    Key("next_error", "right_curly_bracket", "error(1)", "Next error", "error",
        "jump to the next error of the last compile, findings cursor there", tier=3),
    Key("prev_error", "left_curly_bracket", "error(-1)", "Prev error", "", "jump to the previous error"),
    Key("search", "slash", "search", "Search the diff", "",
        "find text on either side of the diff (empty: the next match)"),
    Key("goto_line", "colon", "goto_line", "Go to line", "", "go to a CUDA line (123) or a HIP line (h123)"),
    Key("toggle_log", "l", "toggle_log", "Log", "log", "show or hide the log and diagnostics", tier=3),
    Key("zoom", "z", "zoom", "Zoom diff", "zoom", "hide or show the file list and findings (narrow terminals)", tier=3),
    Key("toggle_unified", "v", "toggle_unified", "Unified / side-by-side", "",
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
         "right_curly_bracket": "}", "left_curly_bracket": "{"}


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


def footer_tier(width: int) -> int:
    """How many tiers of keys the footer shows at ``width`` columns."""
    return 3 if width >= 150 else 2 if width >= 100 else 1


def bindings(prefix: str = "app.") -> list[Binding]:
    """The keys as bindings of a screen whose actions live on the app."""
    return [Binding(k.key, prefix + k.action, k.short or k.description, id=k.id, show=k.show,
                    priority=k.priority, key_display=LABEL.get(k.key), tooltip=k.description) for k in KEYS]
