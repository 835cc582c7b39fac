"""Fetch the headers of the AMD libraries Debian 12 does not package (hipBLAS, hipSOLVER, hipFFT, rocBLAS,
rocSOLVER, hipCUB, rocThrust, and the rocPRIM 5.7 hipCUB 5.7 needs) from Debian 13 (trixie)'s development packages, for the tests that compile ports against them.

Nothing is installed: each .deb named in scripts/fetch_library_headers.tsv (version, pool file, size and
SHA256, copied from trixie's Packages index) is downloaded from Debian's archive with a time limit, checked
against that SHA256, and extracted with `dpkg-deb -x` into .test-headers/ at the repository root (ignored by
git; the tests read .test-headers/usr/include, tests/conftest.py).  No root needed.  Idempotent: when
.test-headers/fetched.tsv equals the pinned list, nothing is fetched.  Any failure exits non-zero.

    python3 scripts/fetch_library_headers.py           # fetch what is missing
    python3 scripts/fetch_library_headers.py --update  # re-read trixie's signed index, rewrite the .tsv

--update reads trixie's InRelease (signature checked by gpgv with Debian 12's debian-archive-keyring, which
holds trixie's keys), main/binary-amd64/Packages.xz (checked against InRelease's SHA256) and rewrites each
pinned package's row: for when a trixie point release replaces a version (the old file leaves the pool).
MIOpen is not in trixie (no libmiopen-dev): its test still needs PORTER_MIOPEN_INCLUDE.
"""

from __future__ import annotations

import argparse
import hashlib
import lzma
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PINNED = Path(__file__).with_suffix(".tsv")
DEST = ROOT / ".test-headers"
STAMP = "fetched.tsv"
# plain http as apt uses: every file is checked against a SHA256 (pinned, or from the signed InRelease)
MIRROR = os.environ.get("PORTER_DEBIAN_MIRROR", "http://deb.debian.org/debian").rstrip("/")
KEYRINGS = ("/usr/share/keyrings/debian-archive-trixie-stable.gpg",
            "/usr/share/keyrings/debian-archive-trixie-automatic.gpg")
COLUMNS = ("package", "version", "filename", "size", "sha256")
SOCKET_TIMEOUT_S = 60  # per read; the whole run is bounded by --deadline (and scripts/setup.sh's `timeout`)


def read_pinned(path: Path = PINNED) -> list[dict[str, str]]:
    rows = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        fields = line.split("\t")
        if len(fields) != len(COLUMNS):
            raise SystemExit(f"{path}: a row needs {len(COLUMNS)} tab-separated fields ({', '.join(COLUMNS)}): {line!r}")
        row = dict(zip(COLUMNS, fields))
        if not re.fullmatch(r"pool/main/[\w.+/-]+\.deb", row["filename"]) or ".." in row["filename"] \
                or not re.fullmatch(r"[0-9a-f]{64}", row["sha256"]) or not row["size"].isdigit():
            raise SystemExit(f"{path}: malformed row {line!r}")
        rows.append(row)
    return rows


def _stamp_text(rows: list[dict[str, str]]) -> str:
    return "".join("\t".join(r[c] for c in COLUMNS) + "\n" for r in rows)


def download(url: str, limit: int, deadline: float, sha256: str | None = None) -> bytes:
    """The bytes at url (at most limit), checked against sha256 when given; three tries, within deadline."""
    error = None
    for attempt in range(3):
        if time.monotonic() > deadline:
            break
        try:
            digest, chunks, total = hashlib.sha256(), [], 0
            with urllib.request.urlopen(url, timeout=SOCKET_TIMEOUT_S) as response:
                while chunk := response.read(1 << 16):
                    total += len(chunk)
                    if total > limit:
                        raise SystemExit(f"{url}: more than the {limit} bytes expected")
                    if time.monotonic() > deadline:
                        raise TimeoutError("deadline passed")
                    digest.update(chunk)
                    chunks.append(chunk)
            if sha256 is not None and digest.hexdigest() != sha256:
                raise SystemExit(f"{url}: SHA256 {digest.hexdigest()}, expected {sha256}: refused")
            return b"".join(chunks)
        except (OSError, TimeoutError) as e:  # URLError and socket timeouts are OSErrors
            error = e
            time.sleep(2 * attempt)
    raise SystemExit(f"{url}: download failed ({error or 'deadline passed'})")


def fetch(deadline: float) -> int:
    rows = read_pinned()
    stamp = DEST / STAMP
    if stamp.is_file() and stamp.read_text(encoding="utf-8") == _stamp_text(rows) and (DEST / "usr" / "include").is_dir():
        print(f"porter: library headers up to date in {DEST} (nothing fetched)")
        return 0
    dpkg_deb = shutil.which("dpkg-deb")
    if dpkg_deb is None:
        raise SystemExit("dpkg-deb not found: it extracts the .deb files (Debian's dpkg package)")
    staging = Path(tempfile.mkdtemp(prefix=".test-headers.partial-", dir=ROOT))
    try:
        for row in rows:
            data = download(f"{MIRROR}/{row['filename']}", int(row["size"]), deadline, row["sha256"])
            deb = staging / "download.deb"
            deb.write_bytes(data)
            subprocess.run([dpkg_deb, "-x", str(deb), str(staging / "tree")], check=True, timeout=120)
            deb.unlink()
            print(f"porter: {row['package']} {row['version']} ({len(data)} bytes, SHA256 checked) extracted")
        # only the headers and the packages' copyright files: the .so links and CMake files name libraries
        # that are not here
        for path in (staging / "tree" / "usr").iterdir():
            if path.name not in ("include", "share"):
                shutil.rmtree(path)
        (staging / "tree" / STAMP).write_text(_stamp_text(rows), encoding="utf-8")
        if DEST.exists():
            shutil.rmtree(DEST)
        (staging / "tree").rename(DEST)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    print(f"porter: library headers in {DEST / 'usr' / 'include'}")
    return 0


def update(deadline: float) -> int:
    """Rewrite the pinned rows from trixie's signed index (the same packages, their current versions)."""
    gpgv = shutil.which("gpgv")
    keyrings = [k for k in KEYRINGS if Path(k).is_file()]
    if gpgv is None or not keyrings:
        raise SystemExit("--update needs gpgv and Debian's trixie keys (debian-archive-keyring)")
    with tempfile.TemporaryDirectory() as tmp:
        inrelease = Path(tmp) / "InRelease"
        inrelease.write_bytes(download(f"{MIRROR}/dists/trixie/InRelease", 1 << 24, deadline))
        # InRelease carries several signatures (bookworm's key too): as apt, a good one by a trixie key and
        # no bad one; the text read is the signed text gpgv writes out, nothing around it
        args = [gpgv, "--status-fd", "2", *(a for k in keyrings for a in ("--keyring", k)), "--output", "-",
                str(inrelease)]
        run = subprocess.run(args, capture_output=True, timeout=60)
        status = run.stderr.decode("utf-8", "replace")
        if not re.search(r"^\[GNUPG:\] VALIDSIG ", status, re.M) or re.search(r"^\[GNUPG:\] BADSIG ", status, re.M):
            raise SystemExit(f"trixie's InRelease: no good signature by a trixie key\n{status}")
        text = run.stdout.decode("utf-8")
    sha256_block = text.split("\nSHA256:\n", 1)[1]
    m = re.search(r"^ ([0-9a-f]{64})\s+(\d+) main/binary-amd64/Packages\.xz$", sha256_block, re.M)
    if m is None:
        raise SystemExit("trixie's InRelease lists no main/binary-amd64/Packages.xz")
    index = lzma.decompress(download(f"{MIRROR}/dists/trixie/main/binary-amd64/Packages.xz", int(m.group(2)),
                                     deadline, m.group(1))).decode("utf-8")
    stanzas = {}
    for stanza in index.split("\n\n"):
        fields = dict(re.findall(r"^([\w-]+): (.*)$", stanza, re.M))
        if "Package" in fields:
            stanzas[fields["Package"]] = fields
    rows = read_pinned()
    missing = [r["package"] for r in rows if r["package"] not in stanzas]
    if missing:
        raise SystemExit(f"not in trixie's index: {', '.join(missing)}")
    header = [line for line in PINNED.read_text(encoding="utf-8").splitlines() if line.startswith("#")]
    new = [{"package": r["package"], **{c: stanzas[r["package"]][c.capitalize() if c != "sha256" else "SHA256"]
                                        for c in COLUMNS[1:]}} for r in rows]
    PINNED.write_text("\n".join(header) + "\n" + _stamp_text(new), encoding="utf-8")
    print(f"porter: {PINNED} rewritten from trixie's index")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--update", action="store_true", help="rewrite the pinned .tsv from trixie's signed index")
    parser.add_argument("--deadline", type=float, default=540, help="seconds for all downloads (default 540)")
    args = parser.parse_args(argv)
    deadline = time.monotonic() + args.deadline
    return update(deadline) if args.update else fetch(deadline)


if __name__ == "__main__":
    sys.exit(main())
