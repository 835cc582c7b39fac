"""Actions on the app as a whole: the log pane, help, quit."""

from __future__ import annotations

from porter.tui.keymap import KEYS, label
from porter.tui.screens.dialogs import ConfirmScreen, TextScreen


class PaneActions:
    def action_toggle_log(self) -> None:
        panel = self.main.query_one("#log-panel")
        panel.display = not panel.display

    def action_help(self) -> None:
        lines = ["Keys (all also in the command palette, ctrl+p)", ""]
        for k in KEYS:
            lines.append(f"  {label(k.key):10} {k.description}")
        lines += ["", "  up/down, pgup/pgdn  move in the diff; enter unfolds unchanged lines",
                  "", "States: pending (hunks to decide), accepted, edited, unchanged, error.",
                  "w writes accepted, edited and unchanged files; pending files are skipped.",
                  f"Session: {self.store.path}"]
        self.push_screen(TextScreen("porter review: help", "\n".join(lines)))

    async def action_quit(self) -> None:
        if not self.unwritten:
            self.exit(0)
            return

        def answer(yes: bool | None) -> None:
            if yes:
                self.exit(0)

        self.push_screen(ConfirmScreen("There are decisions not written to the output folder yet "
                                       "(they are kept in the session). Quit anyway?"), answer)
