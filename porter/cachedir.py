"""Where porter keeps what it can make again (device-library folders, the built mapping database).

$PORTER_CACHE_DIR, else $XDG_CACHE_HOME/porter, else ~/.cache/porter.  Nothing in it is needed:
a missing, unwritable or damaged cache only costs the time to make its contents again.
"""

from __future__ import annotations

import os
from pathlib import Path


def cache_root() -> Path:
    """porter's cache folder (not created here)."""
    if os.environ.get("PORTER_CACHE_DIR"):
        return Path(os.environ["PORTER_CACHE_DIR"])
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "porter"
