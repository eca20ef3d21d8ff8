"""The sandbox: run untrusted Python (a generation agent's program, a judge's measurement script).

Every :meth:`Sandbox.run` starts a fresh process tree with Debian's ``bubblewrap`` and
util-linux ``prlimit``/``setpriv`` (no home-made isolation):

* **filesystem** -- a new mount namespace whose root is an empty tmpfs; read-only binds of
  ``/usr`` (merged-usr Debian: ``/lib``, ``/bin`` are symlinks into it), of the Python
  installation in use (the venv ``sys.prefix`` and the interpreter ``sys.base_prefix`` it links
  to) and nothing else of the host; the working folder is bound read-write at
  :data:`SANDBOX_DIR` and is the current directory; ``/tmp`` is a private, size-capped tmpfs;
  ``/proc`` is the new PID namespace's, ``/dev`` a minimal one. ``/etc``, ``/root``, ``/work``,
  ``/home`` and every other benchmark file are simply not there.
* **network** -- a new, empty network namespace (only its own loopback): no host socket, no
  127.0.0.1 server of the host, no DNS, is reachable.
* **user** -- bubblewrap starts as root only to build the namespaces, then ``setpriv`` drops to
  a dedicated unprivileged uid/gid (one per concurrent sandbox, from :data:`UID_BASE`, locked with
  ``flock`` so two sandboxes never share a uid), with no supplementary groups, no capabilities
  (empty bounding set) and ``no_new_privs``. The uid is not root in any namespace, so
  ``RLIMIT_NPROC`` applies and a fork bomb stops at :attr:`SandboxLimits.processes`.
* **limits** (``prlimit``, inherited by every process of the tree) -- CPU seconds
  (``RLIMIT_CPU``, SIGXCPU then SIGKILL), address space (``RLIMIT_AS``), largest file
  (``RLIMIT_FSIZE``), processes (``RLIMIT_NPROC``), open files; plus a wall-clock limit enforced
  here: the tree is killed (SIGKILL to bubblewrap; ``--die-with-parent`` and the PID namespace take
  every descendant with it). After the run the folder's total size is checked.
* **output** -- stdout and stderr are captured and truncated to :attr:`SandboxLimits.output_chars`.

What it does **not** guarantee: it is not a VM (a kernel exploit escapes it); ``/usr`` is
readable (system libraries, fonts, LibreOffice's files -- no secrets on these machines, but not
nothing); the total disk use inside the folder is checked only after the run (each file is
capped while it is written, the count of files is not); CPU-time limits are per process, so a
tree of processes is bounded by the wall-clock limit; it needs root (user namespaces are not
used for the drop, on purpose, so that uid counting is real).

A program that breaks a limit is killed (or its call fails, as Python reports a ``MemoryError``
or ``File too large``) and :attr:`SandboxOutcome.violation` names the limit, so the caller can
tell the agent why. Nothing the sandboxed code leaves in its folder is followed as a symlink by
the readers here (:func:`read_regular_file`).
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import shutil
import stat
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

from judge.errors import SandboxError
from judge.schema import SandboxOutcome

SANDBOX_DIR = "/sandbox"
"""Where the working folder appears inside the sandbox (also the current directory)."""
PROGRAM_NAME = "program.py"
"""The file each run's code is written to inside the working folder (tracebacks name it)."""
UID_BASE = 1_900_000
"""First uid/gid of the sandbox range (far above Debian's dynamic ranges, not in /etc/passwd)."""
UID_SLOTS = 512
"""Concurrent sandboxes on one machine (each holds one uid while it runs)."""
LOCK_DIR = Path(tempfile.gettempdir()) / "pptjudge-sandbox-uids"
"""Lock files that hand out uids across processes."""
SIGXCPU = 24
SIGKILL = 9
SIGNAL_EXIT = 128
"""bubblewrap reports a child killed by signal N as exit status 128 + N."""
FORK_FAILED = "[Errno 11] Resource temporarily unavailable"
"""What Python prints when ``fork``/``clone`` fails against ``RLIMIT_NPROC``."""


@dataclass(frozen=True)
class SandboxLimits:
    """Resource limits of one run. Defaults suit a python-pptx program or an OpenCV script."""

    wall_s: float = 60.0
    """Wall-clock seconds before the whole process tree is killed."""
    cpu_s: int = 60
    """CPU seconds per process (SIGXCPU at the limit, SIGKILL one second later)."""
    memory_bytes: int = 2 * 1024**3
    """Address space per process (``RLIMIT_AS``), bytes; OpenCV + numpy import needs ~0.4 GB."""
    file_bytes: int = 256 * 1024**2
    """Largest file any process may write (``RLIMIT_FSIZE``), bytes."""
    processes: int = 64
    """Processes and threads of the sandbox uid (``RLIMIT_NPROC``)."""
    open_files: int = 256
    """File descriptors per process (``RLIMIT_NOFILE``)."""
    folder_bytes: int = 512 * 1024**2
    """Total size of the working folder checked after the run, bytes."""
    tmp_bytes: int = 64 * 1024**2
    """Size of the private ``/tmp`` tmpfs, bytes."""
    output_chars: int = 8000
    """stdout and stderr are each cut to this many characters (the tail is kept)."""


def available() -> str | None:
    """None when the sandbox can run here, else the reason it cannot."""
    for tool in ("bwrap", "prlimit", "setpriv"):
        if shutil.which(tool) is None:
            return f"{tool} is not installed (Debian packages bubblewrap, util-linux)"
    if os.geteuid() != 0:
        return "the sandbox drops to a dedicated uid and must be started as root"
    return None


@contextmanager
def _uid_slot() -> Iterator[int]:
    """Hold one uid of the sandbox range for the duration of a run (``flock``, cross-process)."""
    LOCK_DIR.mkdir(parents=True, exist_ok=True)
    start = (os.getpid() * 7) % UID_SLOTS
    for i in range(UID_SLOTS):
        slot = (start + i) % UID_SLOTS
        fh: IO[bytes] = open(LOCK_DIR / f"{slot}.lock", "wb")  # noqa: SIM115 - held while used
        try:
            fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            fh.close()
            continue
        try:
            yield UID_BASE + slot
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)
            fh.close()
        return
    raise SandboxError(f"all {UID_SLOTS} sandbox uids are in use")


def _chown_tree(folder: Path, uid: int) -> None:
    """Give the folder and everything in it (never following links) to ``uid``."""
    os.chown(folder, uid, uid, follow_symlinks=False)
    for root, dirs, files in os.walk(folder):
        for name in dirs + files:
            os.chown(os.path.join(root, name), uid, uid, follow_symlinks=False)


def folder_size(folder: Path) -> int:
    """Bytes used by the regular files under ``folder`` (links not followed)."""
    total = 0
    for root, _dirs, files in os.walk(folder):
        for name in files:
            st = os.lstat(os.path.join(root, name))
            if stat.S_ISREG(st.st_mode):
                total += st.st_blocks * 512
    return total


def read_regular_file(path: Path, max_bytes: int | None = None) -> bytes | None:
    """Bytes of ``path`` if it is a regular file (never through a symlink), else None."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError:
        return None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            return None
        if max_bytes is not None and st.st_size > max_bytes:
            return None
        with os.fdopen(fd, "rb", closefd=False) as fh:
            return fh.read()
    finally:
        os.close(fd)


def _truncate(text: str, limit: int) -> tuple[str, bool]:
    if len(text) <= limit:
        return text, False
    return f"[... {len(text) - limit} characters cut ...]\n" + text[-limit:], True


def _python_binds() -> list[Path]:
    """The Python installation in use: the venv prefix and the interpreter it links to."""
    out: list[Path] = []
    for p in (Path(sys.base_prefix).resolve(), Path(sys.prefix).absolute()):
        if p == Path("/usr") or str(p).startswith("/usr/"):
            continue
        if p not in out:
            out.append(p)
    return out


def _dirs_for(paths: list[Path]) -> list[str]:
    """``--perms 0755 --dir`` for every ancestor of the bind targets (bwrap makes them 0700)."""
    seen: list[str] = []
    for p in paths:
        for parent in reversed(p.parents):
            s = str(parent)
            if s not in ("/", "/usr", "/tmp") and not s.startswith("/usr/") and s not in seen:
                seen.append(s)
    args: list[str] = []
    for d in seen:
        args += ["--perms", "0755", "--dir", d]
    return args


@dataclass
class Sandbox:
    """Runs code in a working folder (created by the caller, holding copies of the inputs)."""

    folder: Path
    limits: SandboxLimits = field(default_factory=SandboxLimits)
    python: Path = field(default_factory=lambda: Path(sys.executable).absolute())
    """The interpreter run inside (the project's venv python: python-pptx, Pillow, OpenCV)."""
    read_only: dict[str, Path] = field(default_factory=dict)
    """Files shown read-only inside the folder (name inside -> host file), bound over it."""

    def command(self, uid: int) -> list[str]:
        """The full ``prlimit -- bwrap -- setpriv -- python`` command line of one run."""
        lim = self.limits
        binds = _python_binds()
        cmd = [
            "prlimit",
            f"--cpu={lim.cpu_s}:{lim.cpu_s + 1}",
            f"--as={lim.memory_bytes}",
            f"--fsize={lim.file_bytes}",
            f"--nproc={lim.processes}",
            f"--nofile={lim.open_files}",
            "--core=0",
            "--",
            "bwrap",
            "--unshare-net",  # empty network namespace
            "--unshare-pid",  # own PID namespace: killing it kills every descendant
            "--unshare-ipc",
            "--unshare-uts",
            "--unshare-cgroup-try",
            "--die-with-parent",  # killing bwrap kills the sandbox
            "--new-session",  # no access to the controlling terminal
            "--cap-add",
            "CAP_SETUID",  # for setpriv's drop only; the bounding set is emptied there
            "--cap-add",
            "CAP_SETGID",
            "--ro-bind",
            "/usr",
            "/usr",
            "--symlink",
            "usr/lib",
            "/lib",
            "--symlink",
            "usr/lib64",
            "/lib64",
            "--symlink",
            "usr/bin",
            "/bin",
            # the private /tmp first: a project (its venv) cloned under /tmp is bound over it
            "--size",
            str(lim.tmp_bytes),
            "--tmpfs",
            "/tmp",
            *_dirs_for(binds),
        ]
        for p in binds:
            cmd += ["--ro-bind", str(p), str(p)]
        cmd += [
            "--proc",
            "/proc",
            "--dev",
            "/dev",
            "--bind",
            str(self.folder.resolve()),
            SANDBOX_DIR,
        ]
        for name, src in sorted(self.read_only.items()):
            cmd += ["--ro-bind", str(src.resolve()), f"{SANDBOX_DIR}/{name}"]
        cmd += [
            "--chdir",
            SANDBOX_DIR,
            "--clearenv",
            "--setenv",
            "HOME",
            SANDBOX_DIR,
            "--setenv",
            "PATH",
            f"{self.python.parent}:/usr/bin:/bin",
            "--setenv",
            "LANG",
            "C.UTF-8",
            "--setenv",
            "PYTHONDONTWRITEBYTECODE",
            "1",
            "--setenv",
            "PYTHONUNBUFFERED",
            "1",
            "--setenv",
            "OMP_NUM_THREADS",
            "1",
            "--setenv",
            "OPENBLAS_NUM_THREADS",
            "1",
            "--setenv",
            "MPLCONFIGDIR",
            "/tmp",
            "--",
            "setpriv",
            f"--reuid={uid}",
            f"--regid={uid}",
            "--clear-groups",
            "--inh-caps=-all",
            "--bounding-set=-all",
            "--no-new-privs",
            "--",
            str(self.python),
            PROGRAM_NAME,
        ]
        return cmd

    def run(self, code: str) -> SandboxOutcome:
        """Run ``code`` as ``program.py`` in the working folder; never raises for what it does."""
        reason = available()
        if reason is not None:
            raise SandboxError(f"cannot sandbox code: {reason}")
        folder = self.folder
        if not folder.is_dir():
            raise SandboxError(f"{folder}: the sandbox working folder does not exist")
        program = folder / PROGRAM_NAME
        if program.is_symlink():
            program.unlink()
        elif program.is_dir():
            shutil.rmtree(program)
        program.write_text(code, encoding="utf-8")
        t0 = time.perf_counter()
        with _uid_slot() as uid:
            _chown_tree(folder, uid)
            proc = subprocess.Popen(
                self.command(uid),
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                start_new_session=True,
            )
            timed_out = False
            at_nproc = False
            try:
                out, err = proc.communicate(timeout=self.limits.wall_s)
            except subprocess.TimeoutExpired:
                timed_out = True
                at_nproc = len(_pids_of(uid)) >= self.limits.processes
                proc.kill()
                out, err = proc.communicate()
            _reap_uid(uid)
        seconds = time.perf_counter() - t0
        stdout, cut_out = _truncate(out.decode("utf-8", "replace"), self.limits.output_chars)
        stderr, cut_err = _truncate(err.decode("utf-8", "replace"), self.limits.output_chars)
        size = folder_size(folder)
        violation = self._violation(proc.returncode, timed_out, stderr, size, at_nproc)
        return SandboxOutcome(
            exit_code=None if timed_out else proc.returncode,
            violation=violation,
            stdout=stdout,
            stderr=stderr,
            stdout_truncated=cut_out,
            stderr_truncated=cut_err,
            seconds=round(seconds, 3),
        )

    def _violation(
        self, code: int, timed_out: bool, stderr: str, size: int, at_nproc: bool = False
    ) -> str | None:
        """Which limit the run broke, in words for the agent (None: none)."""
        lim = self.limits
        mb = 1024**2
        found: list[str] = []
        if timed_out:
            found.append(f"wall-clock limit ({lim.wall_s:g} s): the program was killed")
        elif code in (SIGNAL_EXIT + SIGXCPU, -SIGXCPU) or (
            code in (SIGNAL_EXIT + SIGKILL, -SIGKILL) and "MemoryError" not in stderr
        ):
            found.append(f"CPU limit ({lim.cpu_s} s of CPU time): the program was killed")
        if "MemoryError" in stderr or "std::bad_alloc" in stderr or "Cannot allocate" in stderr:
            found.append(f"memory limit ({lim.memory_bytes // mb} MB of address space)")
        if "File too large" in stderr:
            found.append(f"file-size limit ({lim.file_bytes // mb} MB per file)")
        if FORK_FAILED in stderr or at_nproc:
            found.append(f"process limit ({lim.processes} processes and threads)")
        if size > lim.folder_bytes:
            found.append(
                f"folder-size limit ({lim.folder_bytes // mb} MB): the folder holds "
                f"{size // mb} MB; delete what you do not need"
            )
        return "; ".join(found) or None


def _pids_of(uid: int) -> list[int]:
    """Processes (thread-group leaders) currently running as ``uid``."""
    pids: list[int] = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                if os.stat(f"/proc/{entry}").st_uid == uid:
                    pids.append(int(entry))
            except OSError:
                continue
    return pids


def _reap_uid(uid: int) -> None:
    """Kill any process still running as ``uid`` (belt and braces: the PID namespace should
    already have taken them all down with bubblewrap)."""
    for pid in _pids_of(uid):
        with contextlib.suppress(OSError):
            os.kill(pid, SIGKILL)


def prepare_folder(folder: Path, files: dict[str, Path]) -> Path:
    """Create ``folder`` holding copies of ``files`` (name inside -> source file or folder)."""
    folder.mkdir(parents=True, exist_ok=True)
    for name, src in files.items():
        dst = folder / name
        if src.is_dir():
            shutil.copytree(src, dst, dirs_exist_ok=True, symlinks=False)
        else:
            dst.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(src, dst)
    return folder
