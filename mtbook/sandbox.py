"""A sandbox for code we do not trust: a student's notebook, run by the grader.

``run(argv, files, output=NAME, ...)`` runs ``argv`` in a fresh working folder that holds only
``files``, and returns the one file ``NAME`` the command left there (the grader's answers file)
as bytes, never as objects, with the command's exit status and the end of its log.

As root on Linux (a grading server), the command runs:

* as a user id of its own: no account, no groups, no other process and no file of its own
  outside its folder, and no way back to root (``no_new_privs``: set-user-id programs do not
  raise it);
* in namespaces of its own: process ids (it sees only its own processes, and all of them die
  with the sandbox), network (only a loopback device: no network), IPC, and mounts, where every
  file system is read-only, the folders in ``hide`` are empty (the caller names the repository,
  the graders, the submissions and the scores; home folders, ``/tmp``, ``/mnt`` and ``/srv`` are
  always hidden) except the Python installation and the packages in ``keep`` (read-only), and
  ``/tmp`` (its working folder inside), ``/var/tmp`` and ``/dev/shm`` are private, size-limited
  memory folders that vanish with it;
* under resource limits (:class:`Limits`): CPU seconds, memory, processes, open files, file size.

At the end, on a timeout, and when the caller is interrupted (Ctrl-C; SIGTERM and SIGHUP too
inside :func:`signals_interrupt`) the whole sandbox is killed (SIGKILL): everything the
command started, background processes and daemons included. If the caller itself is killed,
the sandbox dies with it (a parent-death signal).

Elsewhere (not root, not Linux, or namespaces refused, as in a container without
CAP_SYS_ADMIN), it falls back to a fresh temporary working folder with the same resource
limits and warns (:class:`SandboxWarning`): the command then runs with the caller's rights
and can read, write and reach what the caller can. Its processes are still killed at the end
(on Linux the launcher adopts the orphans, as a subreaper), but not when the caller is killed
with SIGKILL.

The launcher is this module run as a program (``python -m mtbook.sandbox``): it reads its job
as JSON from standard input and writes the result as JSON to standard output.
"""

from __future__ import annotations

import base64
import contextlib
import ctypes
import json
import os
import random
import resource
import signal
import stat
import subprocess
import sys
import tempfile
import time
import warnings
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Iterator, Mapping, Sequence

__all__ = ["Limits", "Result", "SandboxWarning", "Interrupted", "run", "isolation", "signals_interrupt"]

ALWAYS_HIDDEN = ("/root", "/home", "/tmp", "/var/tmp", "/dev/shm", "/mnt", "/media", "/srv", "/run/user")
WRITABLE = {"/tmp": None, "/var/tmp": 64 << 20, "/dev/shm": 64 << 20}  # private memory folders (None: tmp_size)
PRIVATE = next(iter(WRITABLE))  # the sandbox's own /tmp: a fresh memory folder mounted over the system's
WORK = os.path.join(PRIVATE, "work")  # the command's working folder, inside the sandbox
LOG = os.path.join(PRIVATE, ".sandbox.log")  # the command's log, inside the sandbox
LOG_TAIL = 4000  # characters of the command's log returned


@dataclass(frozen=True)
class Limits:
    """What the sandboxed command may use (each process; ``processes`` counts threads too)."""

    memory: int = 4 << 30  # bytes of address space
    processes: int = 256
    open_files: int = 1024
    file_size: int = 256 << 20  # bytes, the largest file it may write
    tmp_size: int = 1 << 30  # bytes, its /tmp (its working folder) in memory; isolated mode only
    output_size: int = 16 << 20  # bytes, the largest output file read back


@dataclass(frozen=True)
class Result:
    returncode: int
    output: bytes | None  # the output file the command left in its folder; None if none (or not a file)
    log: str  # the end of the command's standard output and error
    isolated: bool  # False: the fallback (the caller's rights)


class SandboxWarning(UserWarning):
    """The command runs without isolation (with the caller's rights)."""


class Interrupted(KeyboardInterrupt):
    """SIGTERM or SIGHUP arrived (see :func:`signals_interrupt`)."""

    def __init__(self, signum: int):
        super().__init__(signal.Signals(signum).name)
        self.signum = signum


@contextlib.contextmanager
def signals_interrupt() -> Iterator[None]:
    """Inside, SIGTERM and SIGHUP raise :class:`Interrupted` (a KeyboardInterrupt), as Ctrl-C does,
    so that the sandbox in progress is killed on the way out. Main thread only (else a no-op)."""
    import threading

    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def interrupt(signum, frame):
        raise Interrupted(signum)

    old = {s: signal.signal(s, interrupt) for s in (signal.SIGTERM, signal.SIGHUP)}
    try:
        yield
    finally:
        for s, handler in old.items():
            signal.signal(s, handler)


# --- the caller's side ------------------------------------------------------------------------

_isolation: str | None = None  # "" when available, else why not


def isolation() -> str:
    """"" when commands can be isolated here (root, Linux, namespaces allowed), else the reason
    they cannot (probed once, by starting the launcher)."""
    global _isolation
    if _isolation is None:
        if not sys.platform.startswith("linux"):
            _isolation = f"not Linux ({sys.platform})"
        elif os.geteuid() != 0:
            _isolation = "not running as root: only root can switch to a user id of its own"
        else:
            proc = subprocess.run([sys.executable, "-m", "mtbook.sandbox", "--probe"], capture_output=True, text=True,
                                  timeout=60)
            _isolation = "" if proc.returncode == 0 else (proc.stderr.strip().splitlines() or ["probe failed"])[-1]
    return _isolation


def run(argv: Sequence[str], files: Mapping[str, bytes], *, output: str, timeout: float,
        hide: Sequence[str | Path] = (), keep: Sequence[str | Path] = (), env: Mapping[str, str] | None = None,
        limits: Limits = Limits()) -> Result:
    """Runs ``argv`` in a sandbox whose working folder holds ``files`` (plain names), and returns
    the file ``output`` it left there. ``hide``: folders the command must not see (isolated mode);
    ``keep``: folders it needs (read-only) even where they lie in hidden ones; Python's own are
    always kept. Raises TimeoutError after ``timeout`` seconds; the sandbox is killed in any case."""
    for name in [*files, output]:
        if not name or "/" in name or name.startswith("."):
            raise ValueError(f"not a plain file name: {name!r}")
    why = isolation()
    if why:
        warnings.warn(f"the sandbox is not available ({why}): the submitted code runs with your rights, "
                      "in a temporary folder with resource limits only", SandboxWarning, stacklevel=2)
    return _run(argv, files, output, timeout, hide, keep, env, limits, isolated=not why)


def _command_env(env: Mapping[str, str] | None, home: str) -> dict[str, str]:
    """A clean environment: nothing of the caller's (no tokens, no paths into hidden folders)."""
    base = {"PATH": f"{Path(sys.executable).parent}:/usr/local/bin:/usr/bin:/bin", "HOME": home, "TMPDIR": "/tmp",
            "USER": "student", "LOGNAME": "student", "LANG": "C.UTF-8", "MPLBACKEND": "Agg",
            "PYTHONDONTWRITEBYTECODE": "1", "OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1",
            "MKL_NUM_THREADS": "1"}
    return {**base, **(env or {})}


def _python_folders() -> list[str]:
    """The Python installation and its packages (what every Python command needs)."""
    import site
    import sysconfig

    folders = {sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix,
               str(Path(sys.executable).resolve().parent.parent), *site.getsitepackages(),
               *(sysconfig.get_paths()[k] for k in ("stdlib", "platstdlib", "purelib", "platlib"))}
    return sorted(folders)


def _fresh_uid() -> int:
    """A user id that no account and no running process has."""
    import grp
    import pwd

    import psutil

    used = set()
    for p in psutil.process_iter(["uids"]):
        with contextlib.suppress(psutil.Error, TypeError):
            used.update(p.info["uids"])
    for _ in range(1000):
        uid = random.randrange(2_000_000_000, 2_100_000_000)
        if uid in used:
            continue
        try:
            pwd.getpwuid(uid)
        except KeyError:
            try:
                grp.getgrgid(uid)
            except KeyError:
                return uid
    raise RuntimeError("found no free user id for the sandbox")


def _run(argv, files, output, timeout, hide, keep, env, limits, isolated: bool) -> Result:
    # The fallback's working folder and log are on the caller's disk; the isolated ones in the sandbox's /tmp.
    with contextlib.nullcontext() if isolated else tempfile.TemporaryDirectory(prefix="mtlib-sandbox-") as tmp:
        job = {"parent": os.getpid(), "isolated": isolated, "argv": list(argv), "output": output,
               "cpu": int(timeout) + 10, "limits": asdict(limits),
               "files": {name: base64.b64encode(data).decode() for name, data in files.items()}}
        if isolated:
            hidden = {os.path.realpath(p) for p in [*ALWAYS_HIDDEN, Path.home(), tempfile.gettempdir(), *hide]}
            job.update(uid=_fresh_uid(), work=WORK, log=LOG, env=_command_env(env, WORK),
                       hide=sorted(hidden - {"/"}),
                       keep=sorted({os.path.realpath(p) for p in [*_python_folders(), *keep]}))
        else:
            work = os.path.join(tmp, "work")
            job.update(work=work, log=os.path.join(tmp, "log"), env={**_command_env(env, work), "TMPDIR": work})
        proc = subprocess.Popen([sys.executable, "-m", "mtbook.sandbox"], stdin=subprocess.PIPE,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
        try:
            out, err = proc.communicate(json.dumps(job).encode(), timeout=timeout)
        except BaseException as e:  # a timeout, Ctrl-C, or SIGTERM inside signals_interrupt()
            _kill(proc)
            if isinstance(e, subprocess.TimeoutExpired):
                raise TimeoutError(f"timed out after {timeout:g} s") from None
            raise
        _kill(proc)
    try:
        report = json.loads(out.decode().strip().splitlines()[-1])
    except (ValueError, IndexError):
        raise RuntimeError(f"the sandbox failed (exit status {proc.returncode}): "
                           f"{err.decode(errors='replace')[-3000:].strip()}") from None
    data = report["output"]
    return Result(report["returncode"], None if data is None else base64.b64decode(data), report["log"], isolated)


def _kill(proc: subprocess.Popen) -> None:
    """Kills the launcher and everything below it: its process group (in isolated mode the
    namespace's first process, whose death kills every process in the namespace) and, found
    before, every descendant (in the fallback, the orphans the launcher adopted)."""
    import psutil

    try:
        procs = psutil.Process(proc.pid).children(recursive=True)
    except psutil.Error:
        procs = []
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, signal.SIGKILL)
    for p in procs:
        with contextlib.suppress(psutil.Error):
            p.kill()
    proc.communicate()
    deadline = time.monotonic() + 10  # until each is gone (or a zombie, dead): nothing runs on after return
    while time.monotonic() < deadline and any(_running(p) for p in procs):
        time.sleep(0.05)


def _running(p) -> bool:
    import psutil

    try:
        return p.status() != psutil.STATUS_ZOMBIE
    except psutil.Error:
        return False


# --- the launcher's side: python -m mtbook.sandbox, as root --------------------------------------

CLONE_NEWNS, CLONE_NEWIPC, CLONE_NEWPID, CLONE_NEWNET = 0x00020000, 0x08000000, 0x20000000, 0x40000000
MS_RDONLY, MS_NOSUID, MS_NODEV, MS_NOEXEC = 0x1, 0x2, 0x4, 0x8
MS_REMOUNT, MS_BIND, MS_REC, MS_PRIVATE = 0x20, 0x1000, 0x4000, 0x40000
PR_SET_PDEATHSIG, PR_SET_CHILD_SUBREAPER, PR_SET_NO_NEW_PRIVS = 1, 36, 38
_libc = ctypes.CDLL(None, use_errno=True)  # mount, unshare, prctl (Linux)


def _ok(result: int, what: str) -> None:
    if result != 0:
        err = ctypes.get_errno()
        raise OSError(err, f"{what}: {os.strerror(err)}")


def _mount(source: str | None, target: str, fstype: str | None, flags: int, data: str | None = None) -> None:
    enc = lambda s: None if s is None else s.encode()  # noqa: E731
    _ok(_libc.mount(enc(source), enc(target), enc(fstype), ctypes.c_ulong(flags), enc(data)),
        f"mount {source or ''} on {target}")


def _prctl(option: int, value: int) -> None:
    _ok(_libc.prctl(option, ctypes.c_ulong(value), 0, 0, 0), f"prctl {option}")


def _inside(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder.rstrip("/") + "/")


def _mount_points() -> list[tuple[str, set[str]]]:
    """Each mount's point and options, from /proc/self/mountinfo (octal escapes decoded)."""
    import re

    points = []
    for line in Path("/proc/self/mountinfo").read_text().splitlines():
        fields = line.split()
        point = re.sub(r"\\([0-7]{3})", lambda m: chr(int(m.group(1), 8)), fields[4])
        points.append((point, set(fields[5].split(","))))
    return points


def _loopback_up() -> None:
    import fcntl
    import socket
    import struct

    siocgifflags, siocsifflags, iff_up = 0x8913, 0x8914, 0x1
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        flags = struct.unpack("16sh22x", fcntl.ioctl(s, siocgifflags, struct.pack("16sh22x", b"lo", 0)))[1]
        fcntl.ioctl(s, siocsifflags, struct.pack("16sh22x", b"lo", flags | iff_up))


def _build_view(job: dict) -> None:
    """The sandbox's file systems: hidden folders empty, kept ones bound back read-only, private
    memory folders for writing, a /proc of the new process namespace, everything else read-only."""
    _mount(None, "/", None, MS_REC | MS_PRIVATE)  # nothing below propagates out of the namespace
    hides = [h for h in job["hide"] if os.path.isdir(h)]
    hides = [h for h in hides if not any(o != h and _inside(h, o) for o in hides)]  # outermost only
    keeps = [k for k in job["keep"] if os.path.isdir(k) and any(_inside(k, h) for h in hides)]
    keeps = [k for k in keeps if not any(o != k and _inside(k, o) for o in keeps)]
    fds = {k: os.open(k, os.O_PATH | os.O_DIRECTORY | os.O_CLOEXEC) for k in keeps}  # before they are covered
    limits = job["limits"]
    for h in hides:
        if h in WRITABLE:
            size = WRITABLE[h] or limits["tmp_size"]
            _mount("tmpfs", h, "tmpfs", MS_NOSUID | MS_NODEV, f"mode=1777,size={size}")
        else:
            _mount("tmpfs", h, "tmpfs", MS_NOSUID | MS_NODEV, "mode=755,size=1m")
    for k, fd in fds.items():
        os.makedirs(k, exist_ok=True)
        _mount(f"/proc/self/fd/{fd}", k, None, MS_BIND | MS_REC)
        os.close(fd)
    _mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC)
    writable = {h for h in hides if h in WRITABLE}
    for point, options in _mount_points():
        if point in writable or _inside(point, "/proc"):
            continue
        flags = MS_BIND | MS_REMOUNT | MS_RDONLY | MS_NOSUID
        flags |= (MS_NODEV if "nodev" in options else 0) | (MS_NOEXEC if "noexec" in options else 0)
        try:
            _mount(None, point, None, flags)
        except OSError as e:
            import errno

            if e.errno not in (errno.EINVAL, errno.ENOENT):  # a mount covered by a hidden folder
                raise


def _set_limits(limits: dict, cpu: int, isolated: bool = True) -> None:
    """The resource limits, each at most the hard limit already in force (an unprivileged
    caller cannot raise it). RLIMIT_NPROC counts every process of the user id, so it is set only
    for the sandbox's own user id: outside it, the teacher's own processes would count too."""
    nproc = [(resource.RLIMIT_NPROC, limits["processes"])] if isolated else []
    for which, value in [(resource.RLIMIT_CPU, cpu), (resource.RLIMIT_AS, limits["memory"]), *nproc,
                         (resource.RLIMIT_NOFILE, limits["open_files"]),
                         (resource.RLIMIT_FSIZE, limits["file_size"]), (resource.RLIMIT_CORE, 0)]:
        hard = resource.getrlimit(which)[1]
        value = value if hard == resource.RLIM_INFINITY else min(value, hard)
        resource.setrlimit(which, (value, value))


def _read_output(path: str, limit: int) -> bytes | None:
    """The output file if it is a regular file (not a link, a pipe or a device) of at most
    ``limit`` bytes, else None."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError:
        return None
    with os.fdopen(fd, "rb") as f:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        data = f.read(limit + 1)
    return data if len(data) <= limit else None


def _log_tail(path: str) -> str:
    with open(path, "rb") as f:
        f.seek(max(0, os.fstat(f.fileno()).st_size - LOG_TAIL))
        return f.read().decode(errors="replace")


def _kill_descendants() -> None:
    """The fallback's cleanup: every process below this one (a subreaper: orphans come back to
    it), until none is left."""
    import psutil

    me = psutil.Process()
    for _ in range(50):  # with no_new_privs nothing below can outrank this process; a bound all the same
        kids = [p for p in me.children(recursive=True) if _running(p)]
        if not kids:
            return
        for p in kids:
            with contextlib.suppress(psutil.Error):
                p.kill()
        psutil.wait_procs(kids, timeout=5)
        with contextlib.suppress(ChildProcessError):
            while os.waitpid(-1, os.WNOHANG)[0]:
                pass


def _init(job: dict) -> int:
    """Runs the command (isolated: as the namespace's first process, root, after building the
    view, as the sandbox's user), kills whatever it left running, and reports its output file."""
    isolated, work = job["isolated"], job["work"]
    if isolated:
        os.umask(0o022)
        _build_view(job)
        _loopback_up()
    os.mkdir(work, 0o700)
    for name, data in job["files"].items():
        Path(work, name).write_bytes(base64.b64decode(data))
    if isolated:
        for path in [work, *(os.path.join(work, name) for name in job["files"])]:
            os.chown(path, job["uid"], job["uid"])
    log_fd = os.open(job["log"], os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)  # the command writes it through its
    null = os.open(os.devnull, os.O_RDONLY)  # standard output and error only
    child = os.fork()
    if child == 0:
        try:
            os.dup2(null, 0)
            os.dup2(log_fd, 1)
            os.dup2(log_fd, 2)
            os.chdir(work)
            _set_limits(job["limits"], job["cpu"], isolated)
            if isolated:
                os.setgroups([])
                os.setresgid(job["uid"], job["uid"], job["uid"])
                os.setresuid(job["uid"], job["uid"], job["uid"])
            if sys.platform.startswith("linux"):
                _prctl(PR_SET_NO_NEW_PRIVS, 1)  # set-user-id programs do not raise its rights
            os.execve(job["argv"][0], job["argv"], job["env"])
        except BaseException as e:  # noqa: BLE001 - reported through the log
            os.write(2, f"sandbox: cannot start {job['argv'][0]}: {e}\n".encode())
        os._exit(127)
    os.close(log_fd)
    while True:  # reap the orphans that come back to this process until the command itself ends
        pid, status = os.wait()
        if pid == child:
            break
    if isolated:
        with contextlib.suppress(ProcessLookupError):  # none left
            os.kill(-1, signal.SIGKILL)  # everything else in the namespace: background processes, daemons
    else:
        _kill_descendants()
    output = _read_output(os.path.join(work, job["output"]), job["limits"]["output_size"])
    report = {"returncode": os.waitstatus_to_exitcode(status), "log": _log_tail(job["log"]),
              "output": None if output is None else base64.b64encode(output).decode()}
    sys.stdout.write(json.dumps(report) + "\n")
    sys.stdout.flush()
    return 0


def _launch(probe: bool = False) -> int:
    """Isolated: starts the namespaces and their first process, and waits for it. Fallback:
    becomes a subreaper (Linux) and runs the command."""
    job = {"parent": os.getppid(), "isolated": True} if probe else json.loads(sys.stdin.buffer.read())
    linux = sys.platform.startswith("linux")
    if linux:
        _prctl(PR_SET_PDEATHSIG, signal.SIGKILL)  # the caller killed: this dies, and so does the namespace
    if os.getppid() != job["parent"]:  # the caller is gone already
        return 1
    if not job["isolated"]:
        if linux:
            _prctl(PR_SET_CHILD_SUBREAPER, 1)
        return _init(job)
    _ok(_libc.unshare(CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWNET | CLONE_NEWIPC), "unshare")
    child = os.fork()
    if child == 0:
        code = 125
        try:
            _prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
            if probe:
                _mount(None, "/", None, MS_REC | MS_PRIVATE)
                _mount("tmpfs", "/tmp", "tmpfs", MS_NOSUID | MS_NODEV, "size=1m")
                _loopback_up()
                code = 0
            else:
                code = _init(job)
        except BaseException as e:  # noqa: BLE001
            print(f"sandbox: {e}", file=sys.stderr, flush=True)
        os._exit(code)
    _, status = os.waitpid(child, 0)
    return os.waitstatus_to_exitcode(status)


if __name__ == "__main__":
    try:
        sys.exit(_launch(probe="--probe" in sys.argv[1:]))
    except OSError as e:
        print(f"sandbox: {e}", file=sys.stderr)
        sys.exit(125)
