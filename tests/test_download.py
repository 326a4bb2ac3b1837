import hashlib
import io
import tarfile

import pytest

from mtlib.data import load_evalset
from mtlib.download import download_mtme

from conftest import make_mtme


def _archive(tmp_path):
    make_mtme(tmp_path / "src" / "mt-metrics-eval-v2")
    path = tmp_path / "mt-metrics-eval-v2.tgz"
    with tarfile.open(path, "w:gz") as tar:
        tar.add(tmp_path / "src" / "mt-metrics-eval-v2", arcname="mt-metrics-eval-v2")
    return path


def test_download_verify_unpack(tmp_path):
    archive = _archive(tmp_path)
    digest = hashlib.sha256(archive.read_bytes()).hexdigest()
    folder = download_mtme(archive.as_uri(), sha256=digest, cache=tmp_path / "cache")
    assert folder.name == "mt-metrics-eval-v2"
    assert load_evalset("toy", "de-en", root=folder).n_segments == 4
    archive.unlink()  # the second call must not fetch again
    assert download_mtme(archive.as_uri(), cache=tmp_path / "cache") == folder


def test_checksum_mismatch_removes_file(tmp_path):
    archive = _archive(tmp_path)
    with pytest.raises(ValueError, match="checksum mismatch"):
        download_mtme(archive.as_uri(), sha256="0" * 64, cache=tmp_path / "cache")
    assert not (tmp_path / "cache" / "mtme" / archive.name).exists()


def test_recorded_checksum_catches_a_changed_file(tmp_path):
    archive = _archive(tmp_path)
    download_mtme(archive.as_uri(), cache=tmp_path / "cache")
    cached = tmp_path / "cache" / "mtme" / archive.name
    cached.write_bytes(cached.read_bytes() + b"x")
    with pytest.raises(ValueError, match="checksum mismatch"):
        download_mtme(archive.as_uri(), cache=tmp_path / "cache")


def test_refuses_paths_outside_the_target(tmp_path):
    bad = tmp_path / "evil.tgz"
    with tarfile.open(bad, "w:gz") as tar:
        info = tarfile.TarInfo("../escaped.txt")
        info.size = 2
        tar.addfile(info, io.BytesIO(b"hi"))
    with pytest.raises(tarfile.TarError):
        download_mtme(bad.as_uri(), cache=tmp_path / "cache")
    assert not (tmp_path / "cache" / "escaped.txt").exists()
