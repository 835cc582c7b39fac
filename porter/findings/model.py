"""Finding and Fix: what a rule reports (the JSON shape other tools rely on)."""

from __future__ import annotations

from dataclasses import dataclass, field

CATEGORIES = (
    "inline-asm", "warp-size", "lane-mask", "unsupported-api", "launch-bounds", "tensor-core",
    "async-copy", "cooperative-groups", "texture-reference", "dynamic-parallelism", "arch-macro",
    "timing", "managed-memory", "numeric-format", "build-flag", "hip-redefinition", "other",
)
SEVERITIES = ("error", "warning", "info")


@dataclass(frozen=True, slots=True)
class FixEdit:
    start_byte: int
    end_byte: int
    replacement: str

    def as_dict(self) -> dict:
        return {"start_byte": self.start_byte, "end_byte": self.end_byte, "replacement": self.replacement}


@dataclass(frozen=True, slots=True)
class Fix:
    safe: bool
    description: str
    edits: tuple[FixEdit, ...] = ()

    def as_dict(self) -> dict:
        return {"safe": self.safe, "description": self.description, "edits": [e.as_dict() for e in self.edits]}


@dataclass(frozen=True, slots=True)
class Finding:
    rule: str
    category: str
    severity: str
    file: str
    line: int  # 1-based
    column: int  # 1-based
    end_line: int
    end_column: int
    message: str
    fix: Fix | None = None
    start_byte: int = 0
    end_byte: int = 0
    extra: dict = field(default_factory=dict, compare=False)

    def as_dict(self) -> dict:
        return {
            "rule": self.rule, "category": self.category, "severity": self.severity, "file": self.file,
            "line": self.line, "column": self.column, "end_line": self.end_line, "end_column": self.end_column,
            "message": self.message, "fix": self.fix.as_dict() if self.fix else None,
        }
