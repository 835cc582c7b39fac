"""The AMD GPU targets LLVM knows (gpu_targets.toml), and the one-line answer to an --arch that is
not one.  Light on purpose: every `porter convert` checks its --arch before anything else runs."""

from __future__ import annotations

import os

_TARGETS: tuple[frozenset[str], tuple[str, ...], dict[str, str]] | None = None


def _gpu_targets() -> tuple[frozenset[str], tuple[str, ...], dict[str, str]]:
    """(processor names, feature names, examples) from gpu_targets.toml, read once."""
    global _TARGETS
    if _TARGETS is None:
        from porter.mapping.cache import load_toml

        data = load_toml(os.path.join(os.path.dirname(__file__), "gpu_targets.toml"))
        t = data["targets"]
        names = frozenset(n for k, v in t.items() if k != "features" for n in v)
        _TARGETS = (names, tuple(t.get("features", ())), dict(data.get("examples", {})))
    return _TARGETS


def arch_problem_line(arch: str, option: str = "--arch") -> str | None:
    """One line when ``arch`` is not an AMD GPU target LLVM knows (``gfx9999``, ``sm_80``), else None.
    Feature settings after the name (``gfx90a:xnack+``) must be known features, each + or -."""
    names, features, examples = _gpu_targets()
    name, *settings = arch.split(":")
    shown = ", ".join(f"{k} ({v})" for k, v in examples.items())
    if name not in names:
        near = ""
        import difflib

        close = difflib.get_close_matches(name, sorted(names), n=1, cutoff=0.75)
        if close:
            near = f" (did you mean {close[0]}?)"
        return f"{option} {arch!r} is not an AMD GPU target{near}; e.g. {shown}"
    for f in settings:
        if f[:-1] not in features or f[-1:] not in ("+", "-"):
            return (f"{option} {arch!r}: {f!r} is not a target feature setting "
                    f"({' or '.join(x + '+/-' for x in features)}, e.g. gfx90a:xnack+)")
    return None
