"""Build a converted tree with the HIP toolchain and map diagnostics back to source lines.

    report = run_build("out/", BuildOptions(arch="gfx90a"), on_line=print, cancel=threading.Event())
"""

from porter.build.diagnostics import Diagnostic
from porter.build.report import BuildReport, UnitResult
from porter.build.runner import BuildError, BuildOptions, run_build
from porter.build.toolchain import Toolchain, detect_toolchain, install_hints

__all__ = ["BuildError", "BuildOptions", "BuildReport", "Diagnostic", "Toolchain", "UnitResult", "detect_toolchain",
           "install_hints", "run_build"]
