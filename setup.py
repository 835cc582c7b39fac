"""Packages: everything under porter/, plus the top-level grammars/ folder of
tree-sitter queries installed as ``porter.grammars`` (metadata is in pyproject.toml)."""

from setuptools import find_packages, setup

setup(
    packages=find_packages(include=["porter", "porter.*"]) + ["porter.grammars"],
    package_dir={"porter.grammars": "grammars"},
)
