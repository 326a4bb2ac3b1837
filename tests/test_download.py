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


@pytest.mark.parametrize("error, why", [
    (lambda: __import__("urllib.error").error.URLError(OSError(-2, "Name or service not known")),
     "no internet connection, or the address cannot be reached (OSError: [Errno -2] Name or service not known)"),
    (lambda: TimeoutError("timed out"), "no internet connection, or the address cannot be reached (TimeoutError"),
    (lambda: __import__("urllib.error").error.HTTPError("u", 404, "Not Found", {}, None),
     "the server answered HTTP 404 Not Found"),
])
def test_offline_download_is_one_clear_line(tmp_path, monkeypatch, capsys, error, why):
    from mtlib import download

    def offline(url, *a, **k):
        raise error()
    monkeypatch.setattr(download.urllib.request, "urlopen", offline)
    monkeypatch.setenv("MTLIB_CACHE", str(tmp_path / "cache"))
    with pytest.raises(download.DownloadError, match="point MTLIB_MTME at it"):
        download_mtme("https://example.org/mt-metrics-eval-v2.tgz", cache=tmp_path / "cache")
    assert download.main([]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and len(captured.err.strip().splitlines()) == 1
    line = captured.err.strip()
    assert line.startswith(f"error: could not download {download.MTME_URL}: {why}")
    assert line.endswith("point MTLIB_MTME at it instead (export MTLIB_MTME=/path/to/mt-metrics-eval)")
    assert "Traceback" not in captured.err
    assert not list((tmp_path / "cache" / "mtme").glob("*.part"))  # nothing half-written is left


def test_an_unreadable_file_url_is_not_called_offline(tmp_path, capsys):
    from mtlib import download
    assert download.main(["--url", (tmp_path / "missing.tgz").as_uri()]) == 2
    err = capsys.readouterr().err
    assert "the file cannot be read" in err and "internet" not in err


def test_a_download_cut_off_leaves_no_part_file(tmp_path, monkeypatch):
    import http.client
    from mtlib import download

    class CutOff(io.BytesIO):
        def read(self, *a):
            raise http.client.IncompleteRead(b"abc", 100)
    monkeypatch.setattr(download.urllib.request, "urlopen", lambda url, *a, **k: CutOff())
    with pytest.raises(download.DownloadError, match="cannot be reached .IncompleteRead"):
        download_mtme("https://example.org/a.tgz", cache=tmp_path / "cache")
    assert list((tmp_path / "cache" / "mtme").iterdir()) == []
