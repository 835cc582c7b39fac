"""Build a converted tree with the HIP toolchain and map diagnostics back to source lines.

    report = run_build("out/", BuildOptions(arch="gfx90a"), on_line=print, cancel=threading.Event())

The names below are loaded on first use: importing one module of this package (the arch check of
`porter convert` reads porter.build.toolchain) does not load the build engine.
"""

from importlib import import_module

_WHERE = {"Diagnostic": "diagnostics", "BuildReport": "report", "UnitResult": "report", "BuildError": "runner",
          "BuildOptions": "runner", "run_build": "runner", "Toolchain": "toolchain", "detect_toolchain": "toolchain",
          "install_hints": "toolchain"}

__all__ = sorted(_WHERE)


def __getattr__(name: str):
    if name in _WHERE:
        return getattr(import_module(f"porter.build.{_WHERE[name]}"), name)
    raise AttributeError(f"module 'porter.build' has no attribute {name!r}")
