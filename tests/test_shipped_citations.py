"""What porter ships cites its facts by their own sources (a data sheet, AMD's documentation, the
HIP headers), never by a path on the developers' machine that a user does not have."""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DEVELOPER_PATHS = re.compile(r"/work/|shared/reference/|\.\./shared/")
KNOWN: set[str] = set()  # none left: porter/smoke/llamafactory.py now cites LLaMA-Factory's own sources


def test_no_shipped_file_cites_the_developers_reference_folder():
    offenders = set()
    for path in (ROOT / "porter").rglob("*"):
        if path.is_file() and path.suffix in {".py", ".toml", ".json", ".md", ".scm", ".tsv", ".txt", ".tcss"}:
            if DEVELOPER_PATHS.search(path.read_text("utf-8", "replace")):
                offenders.add(path.relative_to(ROOT).as_posix())
    assert offenders == KNOWN


def test_every_peak_figure_names_its_data_sheet():
    import tomllib

    gpus = tomllib.loads((ROOT / "porter" / "smoke" / "data" / "peak_tflops.toml").read_text())["gpu"]
    assert gpus and all("data sheet" in g.get("source", "") for g in gpus)
