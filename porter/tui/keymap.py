"""The review keys: one table, each key with a binding id.

The id names the key everywhere (footer, help, palette, tests) so that a key can
be remapped without touching the actions: Textual's ``App.set_keymap`` takes
``{binding id: "keys"}`` (the way Posting lets a user config remap bindings).
"""

from __future__ import annotations

from dataclasses import dataclass

from textual.binding import Binding


@dataclass(frozen=True, slots=True)
class Key:
    id: str
    key: str
    action: str  # an action of the app
    description: str
    show: bool = True  # in the footer
    priority: bool = False


KEYS: tuple[Key, ...] = (
    Key("next_hunk", "n", "next_hunk", "Next hunk"),
    Key("prev_hunk", "p", "prev_hunk", "Prev hunk", show=False),
    Key("accept_hunk", "a", "decide('accepted')", "Accept hunk"),
    Key("reject_hunk", "x", "decide('rejected')", "Reject hunk"),
    Key("accept_file", "A", "accept_file", "Accept file"),
    Key("next_finding", "right_square_bracket", "finding(1)", "Next finding"),
    Key("prev_finding", "left_square_bracket", "finding(-1)", "Prev finding", show=False),
    Key("apply_fix", "f", "apply_fix", "Apply fix"),
    Key("explain", "i", "explain", "Explain finding", show=False),
    Key("edit", "e", "edit", "Edit HIP"),
    Key("undo", "u", "undo", "Undo"),
    Key("next_file", "tab", "next_file(1)", "Next file", priority=True),
    Key("prev_file", "shift+tab", "next_file(-1)", "Prev file", show=False, priority=True),
    Key("next_error", "right_curly_bracket", "error(1)", "Next error"),
    Key("prev_error", "left_curly_bracket", "error(-1)", "Prev error", show=False),
    Key("write", "w", "write", "Write"),
    Key("compile", "c", "compile", "Compile"),
    Key("smoke", "t", "smoke", "Smoke test"),
    Key("toggle_log", "l", "toggle_log", "Log"),
    Key("focus_files", "1", "focus_pane('files')", "Focus files", show=False),
    Key("focus_diff", "2", "focus_pane('diff')", "Focus diff", show=False),
    Key("focus_findings", "3", "focus_pane('findings')", "Focus findings", show=False),
    Key("focus_diagnostics", "4", "focus_pane('diagnostics')", "Focus diagnostics", show=False),
    Key("focus_log", "5", "focus_pane('log')", "Focus log", show=False),
    Key("help", "question_mark", "help", "Help"),
    Key("quit", "q", "quit", "Quit"),
)

LABEL = {"right_square_bracket": "]", "left_square_bracket": "[", "question_mark": "?",
         "right_curly_bracket": "}", "left_curly_bracket": "{"}


def label(key: str) -> str:
    """How a key is written for people: ``]`` for right_square_bracket."""
    return LABEL.get(key, key)


def by_id(binding_id: str) -> Key:
    return next(k for k in KEYS if k.id == binding_id)


def bindings(prefix: str = "app.") -> list[Binding]:
    """The keys as bindings of a screen whose actions live on the app."""
    return [Binding(k.key, prefix + k.action, k.description, id=k.id, show=k.show, priority=k.priority,
                    key_display=LABEL.get(k.key)) for k in KEYS]
