"""What a build reports: per-unit results and diagnostics (the --json shape)."""

from __future__ import annotations

from dataclasses import dataclass, field

from porter.build.diagnostics import Diagnostic

UNIT_STATES = ("compiled", "cached", "failed", "timeout", "cancelled", "skipped", "up-to-date", "linked")


@dataclass(slots=True)
class UnitResult:
    file: str  # relative to the build folder
    status: str  # one of UNIT_STATES
    time_s: float | None = None
    output: str = ""  # object / binary, relative to the build folder
    kind: str = "compile"  # compile | link | step

    def as_dict(self) -> dict:
        d = {"file": self.file, "status": self.status, "time_s": None if self.time_s is None else round(self.time_s, 3),
             "kind": self.kind}
        if self.output:
            d["output"] = self.output
        return d


@dataclass(slots=True)
class ProjectResult:
    """One project of a folder of several (porter/build/subprojects.py), built on its own."""
    path: str  # its folder, relative to the build folder
    system: str  # make | cmake | per-file
    ok: bool
    cancelled: bool = False
    errors: int = 0
    warnings: int = 0
    duration_s: float = 0.0
    outputs: list[str] = field(default_factory=list)  # its programs, relative to the build folder
    messages: list[str] = field(default_factory=list)

    @property
    def verdict(self) -> str:
        return "ok" if self.ok else "cancelled" if self.cancelled else "failed"

    def as_dict(self) -> dict:
        return {"path": self.path, "system": self.system, "ok": self.ok, "verdict": self.verdict,
                "errors": self.errors, "warnings": self.warnings, "duration_s": round(self.duration_s, 3),
                "outputs": list(self.outputs), "messages": list(self.messages)}


@dataclass(slots=True)
class BuildReport:
    ok: bool
    arch: str
    compiler: str | None
    system: str  # per-file | make | cmake | projects (a folder of several) | none
    directory: str
    duration_s: float = 0.0
    units: list[UnitResult] = field(default_factory=list)
    diagnostics: list[Diagnostic] = field(default_factory=list)
    messages: list[str] = field(default_factory=list)  # one-line notes (fallbacks, missing tools)
    outputs: list[str] = field(default_factory=list)  # linked programs
    cancelled: bool = False
    compile_commands: str | None = None
    toolchain: str = ""  # e.g. "clang++-19 (clang 19.1.7)"
    code_objects: dict[str, list[str]] = field(default_factory=dict)  # output -> GPU targets in its fat binary
    target_rocm: str | None = None  # the ROCm release the port was converted for, as the build was told
    # a folder of several projects (system "projects"): each one's result, in build order; [] for one project
    projects: list[ProjectResult] = field(default_factory=list)
    # one line when the build could not write a file (porter's state, an object, a program), a full disk above
    # all (diskspace.py); also one of the diagnostics. "" when every write went through
    write_error: str = ""

    @property
    def errors(self) -> list[Diagnostic]:
        return [d for d in self.diagnostics if d.severity == "error"]

    @property
    def exit_code(self) -> int:
        if self.cancelled:
            return 130
        return 0 if self.ok else 1

    def as_dict(self) -> dict:
        counts: dict[str, int] = {}
        for u in self.units:
            counts[u.status] = counts.get(u.status, 0) + 1
        return {
            "ok": self.ok, "arch": self.arch, "compiler": self.compiler, "toolchain": self.toolchain,
            "system": self.system,
            "directory": self.directory, "duration_s": round(self.duration_s, 3), "cancelled": self.cancelled,
            "summary": {"units": counts, "errors": len(self.errors),
                        "warnings": sum(1 for d in self.diagnostics if d.severity == "warning")},
            "units": [u.as_dict() for u in self.units],
            "diagnostics": [d.as_dict() for d in self.diagnostics],
            "messages": list(self.messages), "outputs": list(self.outputs),
            "compile_commands": self.compile_commands, "code_objects": dict(self.code_objects),
            "target_rocm": self.target_rocm, "projects": [p.as_dict() for p in self.projects],
            **({"error": self.write_error} if self.write_error else {}),
        }


def code_object_notes(outputs: list[str], code_objects: dict[str, list[str]], arch: str) -> list[str]:
    """One line per program: the GPU targets its fat binary holds, or that it holds none of its own (a program
    whose units were all host code: built, but nothing in it was compiled for ``arch``).  porter build prints
    them as notes; the app shows the same lines."""
    lines = []
    for path in outputs:
        found = code_objects.get(path)
        if found:
            lines.append(f"{path} holds {', '.join(map(str, found))}")
        elif found == []:
            lines.append(f"{path} holds no GPU code of its own: no unit of it was compiled for the device, so "
                         f"nothing in it is for {arch} (a host-only program, or one whose device code is in a library)")
    return lines
