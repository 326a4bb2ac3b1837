"""Fetches the official mt-metrics-eval data archive (for users with internet).

The archive is downloaded once into the cache folder (``MTLIB_CACHE``, default
``~/.cache/mtlib``), checked against a SHA-256 and unpacked. Pass the checksum you
expect with ``sha256=``; without one, the checksum of the first download is recorded
beside the archive and every later use is checked against it (trust on first use: the
archive could not be fetched when this module was written, so no checksum is pinned).

Usage: ``python -m mtlib.download`` prints the folder to use as ``MTLIB_MTME``. Without internet
it stops with one line (``error: could not download …``, exit 2): point ``MTLIB_MTME`` at an
mt-metrics-eval folder you already have instead.

Written with the standard library rather than ``pooch``: pooch fetches only http(s), ftp, sftp
and DOI addresses (an archive already on disk or a share comes as ``file://`` here), and it
has no trust-on-first-use record of a checksum nobody could pin.
"""

from __future__ import annotations

import argparse
import hashlib
import http.client
import shutil
import sys
import tarfile
import urllib.error
import urllib.request
from pathlib import Path
from typing import Sequence

from mtlib import paths

__all__ = ["MTME_URL", "DownloadError", "download_mtme", "sha256_file"]

MTME_URL = "https://storage.googleapis.com/mt-metrics-eval/mt-metrics-eval-v2.tgz"


def sha256_file(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


class DownloadError(ConnectionError):
    """The archive could not be fetched: no internet, an unreachable address or an HTTP error.
    The message names the address and the alternative (``MTLIB_MTME``)."""


def _fetch(url: str, dest: Path) -> None:
    tmp = dest.with_name(dest.name + ".part")
    try:
        with urllib.request.urlopen(url) as response, open(tmp, "wb") as out:
            shutil.copyfileobj(response, out, length=1 << 20)
    except (urllib.error.URLError, http.client.HTTPException, ConnectionError, TimeoutError) as err:
        tmp.unlink(missing_ok=True)
        reason = getattr(err, "reason", None) or err
        if isinstance(err, urllib.error.HTTPError):
            why = f"the server answered HTTP {err.code} {err.reason}"
        elif url.lower().startswith("file:"):
            why = f"the file cannot be read ({reason})"
        else:
            why = f"no internet connection, or the address cannot be reached ({type(reason).__name__}: {reason})"
        raise DownloadError(f"could not download {url}: {why}. If you have an mt-metrics-eval folder, point "
                            f"{paths.MTME_ENV} at it instead (export {paths.MTME_ENV}=/path/to/mt-metrics-eval)"
                            ) from None
    tmp.replace(dest)


def download_mtme(url: str = MTME_URL, *, sha256: str | None = None, cache: Path | None = None,
                  force: bool = False) -> Path:
    """Downloads (if needed), verifies and unpacks an mt-metrics-eval archive.

    Args:
        url: archive address (``file://`` works too).
        sha256: expected checksum; a mismatch raises ``ValueError`` and removes the file.
        cache: folder for the archive and the unpacked data (default: the mtlib cache).
        force: download and unpack again even when cached.

    Returns:
        The unpacked folder that holds the test sets (use it as ``MTLIB_MTME``).

    Raises:
        DownloadError: the archive could not be fetched (no internet, unreachable address, HTTP error).
    """
    base = (cache or paths.cache_dir()) / "mtme"
    base.mkdir(parents=True, exist_ok=True)
    name = url.rstrip("/").rsplit("/", 1)[-1] or "archive.tgz"
    archive = base / name
    recorded = archive.with_name(name + ".sha256")
    if force or not archive.exists():
        _fetch(url, archive)
        recorded.unlink(missing_ok=True)
    actual = sha256_file(archive)
    expected = sha256 or (recorded.read_text().strip() if recorded.exists() else None)
    if expected is not None and actual != expected.lower():
        archive.unlink()
        raise ValueError(f"checksum mismatch for {url}: expected {expected}, got {actual}; "
                         "the file was removed, try again")
    recorded.write_text(actual + "\n")

    target = base / (name.split(".")[0] + "-unpacked")
    done = target / ".complete"
    if force or not done.exists():
        if target.exists():
            shutil.rmtree(target)
        tmp = target.with_name(target.name + ".part")
        if tmp.exists():
            shutil.rmtree(tmp)
        with tarfile.open(archive) as tar:
            tar.extractall(tmp, filter="data")  # refuses absolute paths and links out of tmp
        tmp.replace(target)
        done.write_text(actual + "\n")
    # The archive holds one top folder (mt-metrics-eval-v2/); return it when so.
    entries = [p for p in target.iterdir() if not p.name.startswith(".")]
    return entries[0] if len(entries) == 1 and entries[0].is_dir() else target


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m mtlib.download", description=__doc__.split("\n")[0])
    parser.add_argument("--url", default=MTME_URL)
    parser.add_argument("--sha256", default=None, help="expected SHA-256 of the archive")
    parser.add_argument("--force", action="store_true")
    args = parser.parse_args(argv)
    try:
        path = download_mtme(args.url, sha256=args.sha256, force=args.force)
    except (DownloadError, ValueError) as err:  # ValueError: a checksum mismatch (the file is removed)
        print(f"error: {err}", file=sys.stderr)
        return 2
    print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
