"""One-time builds run under a lock another process cannot take; temporary folders vanish."""

import subprocess
import sys

from mtlib.atomic import file_lock, temporary_dir_beside

PROBE = """
import sys
from filelock import FileLock, Timeout
try:
    with FileLock(sys.argv[1], timeout=0.2):
        print("acquired")
except Timeout:
    print("blocked")
"""


def _probe(path):
    return subprocess.run([sys.executable, "-c", PROBE, str(path)], capture_output=True, text=True,
                          check=True).stdout.strip()


def test_file_lock_excludes_another_process_while_held(tmp_path):
    lock = tmp_path / "sub" / "build.lock"  # the folder is created
    with file_lock(lock):
        assert _probe(lock) == "blocked"
    assert _probe(lock) == "acquired"


def test_temporary_dir_beside_is_removed_unless_renamed(tmp_path):
    target = tmp_path / "model"
    with temporary_dir_beside(target) as tmp:
        (tmp / "f").write_text("x")
        assert tmp.parent == tmp_path
    assert not tmp.exists()
    with temporary_dir_beside(target) as tmp:
        (tmp / "f").write_text("x")
        tmp.replace(target)
    assert (target / "f").read_text() == "x"
