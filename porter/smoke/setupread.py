"""The extensions a ``setup.py`` declares, read from its syntax tree: the file is never run.

Finds each ``CUDAExtension(...)`` / ``CppExtension(...)`` call (also as ``cpp_extension.CUDAExtension``)
and takes its name, sources, include_dirs, define_macros and extra_compile_args (``{"cxx": [...],
"nvcc": [...]}`` or a list) when they are literals.  Anything computed (``glob(...)``, a variable,
``os.path.join``) is one line naming the file, the line and the argument, and saying to list the
sources in porter.toml instead.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from pathlib import Path

from porter.smoke.options import SmokeUsageError

KINDS = {"CUDAExtension": "cuda", "CppExtension": "cpp"}
_POSITIONAL = ("name", "sources")


class SetupReadError(SmokeUsageError):
    """setup.py cannot be read for its extensions (one line: file, line, why)."""


@dataclass(frozen=True)
class ExtensionSpec:
    """One extension to build with torch.utils.cpp_extension.load (paths relative to the project root)."""
    name: str                              # the module name, as in setup.py ("fused_ops" or "pkg._C")
    kind: str                              # cuda | cpp
    sources: tuple[str, ...]
    extra_cflags: tuple[str, ...] = ()
    extra_cuda_cflags: tuple[str, ...] = ()
    extra_ldflags: tuple[str, ...] = ()
    extra_include_paths: tuple[str, ...] = ()
    origin: str = ""                       # "setup.py:14" or "porter.toml"
    notes: tuple[str, ...] = field(default_factory=tuple)

    @property
    def module_name(self) -> str:
        """TORCH_EXTENSION_NAME: the last part of the name (what BuildExtension defines too)."""
        return self.name.rpartition(".")[2]


def _callee(node: ast.Call) -> str | None:
    f = node.func
    if isinstance(f, ast.Name):
        return f.id
    if isinstance(f, ast.Attribute):
        return f.attr
    return None


def read(setup_py: str | Path, root: str | Path) -> list[ExtensionSpec]:
    """Every extension setup_py declares; SetupReadError when there is none or one is not literal."""
    setup_py, root = Path(setup_py), Path(root)
    rel = setup_py.relative_to(root).as_posix() if setup_py.is_relative_to(root) else str(setup_py)
    try:
        tree = ast.parse(setup_py.read_text(encoding="utf-8"), filename=str(setup_py))
    except (OSError, UnicodeDecodeError) as exc:
        raise SetupReadError(f"{rel}: cannot read: {exc}") from None
    except SyntaxError as exc:
        raise SetupReadError(f"{rel}:{exc.lineno}: not valid Python: {exc.msg}") from None
    base = setup_py.parent
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and _callee(node) in KINDS:
            out.append(_extension(node, KINDS[_callee(node)], rel, base, root))
    if not out:
        raise SetupReadError(f"{rel}: no CUDAExtension or CppExtension call; declare sources = [...] and name in "
                             "porter.toml [smoke] instead")
    out.sort(key=lambda e: int(e.origin.rsplit(":", 1)[1]))
    return out


def _literal(node: ast.AST, what: str, where: str):
    try:
        return ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError):
        raise SetupReadError(f"{where}: {what} is computed, not a literal (porter reads setup.py without running "
                             "it): list it in porter.toml [smoke] (sources = [...], name = ...) instead") from None


def _strings(value, what: str, where: str) -> tuple[str, ...]:
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, (list, tuple)) or not all(isinstance(v, str) for v in value):
        raise SetupReadError(f"{where}: {what} must be a list of strings")
    return tuple(value)


def _extension(node: ast.Call, kind: str, rel: str, base: Path, root: Path) -> ExtensionSpec:
    where = f"{rel}:{node.lineno}"
    callee = "CUDAExtension" if kind == "cuda" else "CppExtension"
    args: dict[str, ast.AST] = {}
    for i, a in enumerate(node.args[:2]):
        args[_POSITIONAL[i]] = a
    notes = []
    for kw in node.keywords:
        if kw.arg is None:
            raise SetupReadError(f"{where}: {callee}(**...) is computed: list the extension in porter.toml [smoke] instead")
        args[kw.arg] = kw.value
    if "name" not in args or "sources" not in args:
        raise SetupReadError(f"{where}: {callee} without name and sources")
    name = _literal(args["name"], f"{callee} name", where)
    if not isinstance(name, str) or not all(p.isidentifier() for p in name.split(".")):
        raise SetupReadError(f"{where}: {callee} name must be a dotted Python name, not {name!r}")

    def rebase(p: str) -> str:
        full = (base / p).resolve()
        try:
            return full.relative_to(root.resolve()).as_posix()
        except ValueError:
            raise SetupReadError(f"{where}: {p} is outside the project folder {root}") from None

    sources = tuple(rebase(s) for s in _strings(_literal(args["sources"], f"{callee} sources", where),
                                                f"{callee} sources", where))
    for s in sources:
        if not (root / s).is_file():
            raise SetupReadError(f"{where}: source {s} does not exist")
    includes = ()
    if "include_dirs" in args:
        includes = tuple(rebase(s) for s in _strings(_literal(args["include_dirs"], "include_dirs", where),
                                                     "include_dirs", where))
    cflags: list[str] = []
    cuda_flags: list[str] = []
    if "define_macros" in args:
        for item in _literal(args["define_macros"], "define_macros", where):
            if not (isinstance(item, (list, tuple)) and len(item) == 2 and isinstance(item[0], str)):
                raise SetupReadError(f"{where}: define_macros must be a list of (name, value) pairs")
            flag = f"-D{item[0]}" + (f"={item[1]}" if item[1] is not None else "")
            cflags.append(flag)
            cuda_flags.append(flag)
    if "extra_compile_args" in args:
        eca = _literal(args["extra_compile_args"], "extra_compile_args", where)
        if isinstance(eca, dict):
            for key, flags in eca.items():
                if key == "cxx":
                    cflags += _strings(flags, "extra_compile_args['cxx']", where)
                elif key in ("nvcc", "hipcc"):
                    cuda_flags += _strings(flags, f"extra_compile_args[{key!r}]", where)
                else:
                    notes.append(f"extra_compile_args[{key!r}] is not passed on (only cxx and nvcc are)")
        else:
            cflags += _strings(eca, "extra_compile_args", where)
    ldflags: list[str] = []
    if "extra_link_args" in args:
        ldflags += _strings(_literal(args["extra_link_args"], "extra_link_args", where), "extra_link_args", where)
    if "libraries" in args:
        ldflags += [f"-l{lib}" for lib in _strings(_literal(args["libraries"], "libraries", where), "libraries", where)]
    for kw in sorted(set(args) - {"name", "sources", "include_dirs", "define_macros", "extra_compile_args",
                                  "extra_link_args", "libraries"}):
        notes.append(f"{callee} {kw}= is not passed on to the smoke build")
    return ExtensionSpec(name=name, kind=kind, sources=sources, extra_cflags=tuple(cflags),
                         extra_cuda_cflags=tuple(cuda_flags), extra_ldflags=tuple(ldflags),
                         extra_include_paths=includes, origin=where, notes=tuple(notes))
