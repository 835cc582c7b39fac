"""porter: port CUDA code bases to HIP/ROCm, review the port, build it and smoke-test it.

Data flows one way: parse -> translate / findings -> project -> build / smoke -> tui / cli.
The engine packages never import ``porter.tui`` or ``porter.cli``.
"""

__version__ = "0.1.0"
