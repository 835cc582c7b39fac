"""Build a converted tree with the HIP toolchain and map diagnostics back to source lines."""

from porter.build.toolchain import Toolchain, detect_toolchain, install_hints

__all__ = ["Toolchain", "detect_toolchain", "install_hints"]
