"""The wave model: which functions are written for 32-lane logical warps and which for the
hardware wave (``warpSize``), and what follows from it for findings and fixes."""

from porter.findings.wave.evidence import Evidence
from porter.findings.wave.model import WaveModel, code_of, header_code, header_paths, model_of, unit_headers

__all__ = ["Evidence", "WaveModel", "code_of", "header_code", "header_paths", "model_of", "unit_headers"]
