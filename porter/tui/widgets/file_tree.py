"""The project's files as a tree, each leaf labelled with its review state."""

from __future__ import annotations

from rich.style import Style
from rich.text import Text
from textual.widgets import Tree

from porter.project.review import (S_ACCEPTED, S_EDITED, S_ERROR, S_PENDING, S_UNCHANGED, S_WAITING,
                                   FileReview)

STATE_MARK = {
    S_WAITING: ("…", Style(color="#808080")),
    S_PENDING: ("•", Style(color="#ffaf00", bold=True)),
    S_ACCEPTED: ("✓", Style(color="#5fd75f", bold=True)),
    S_EDITED: ("✎", Style(color="#5fafff", bold=True)),
    S_UNCHANGED: ("=", Style(color="#808080")),
    S_ERROR: ("!", Style(color="#ff5f5f", bold=True)),
}


def file_label(fr: FileReview) -> Text:
    state = fr.state
    mark, style = STATE_MARK[state]
    name = fr.rel.rsplit("/", 1)[-1]
    label = Text.assemble((mark + " ", style), (name, ""))
    if state == S_WAITING:
        return label
    extra = [(f" {state}", Style(color="#8a8a8a"))]
    if fr.hunks:
        extra.append((f" {len(fr.hunks)}h", Style(color="#d7af5f")))
    sev = fr.severity_counts()
    for key, letter, color in (("error", "E", "#ff5f5f"), ("warning", "W", "#ffaf00"), ("info", "I", "#5fafff")):
        if sev.get(key):
            extra.append((f" {sev[key]}{letter}", Style(color=color)))
    if any(h.stale for h in fr.hunks) or fr.stale_decisions:
        extra.append((" stale", Style(color="#ffaf00", italic=True)))
    label.append_text(Text.assemble(*extra))
    return label


class FileTree(Tree[str]):
    """Leaves carry the file's ``rel`` as data; folders carry None."""

    def __init__(self, files: list[FileReview], **kwargs) -> None:
        super().__init__(Text("project"), **kwargs)
        self.show_root = False
        self.guide_depth = 2
        self.leaves = {}
        folders = {"": self.root}
        for fr in files:
            parts = fr.rel.split("/")
            parent = self.root
            for i in range(len(parts) - 1):
                key = "/".join(parts[: i + 1])
                node = folders.get(key)
                if node is None:
                    node = parent.add(Text(parts[i] + "/"), data=None, expand=True)
                    folders[key] = node
                parent = node
            self.leaves[fr.rel] = parent.add_leaf(file_label(fr), data=fr.rel)
        self.root.expand()

    def update_file(self, fr: FileReview) -> None:
        node = self.leaves.get(fr.rel)
        if node is not None:
            node.set_label(file_label(fr))

    def select_file(self, rel: str) -> None:
        node = self.leaves.get(rel)
        if node is not None:
            parent = node.parent
            while parent is not None:
                parent.expand()
                parent = parent.parent
            self.move_cursor(node)
