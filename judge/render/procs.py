"""Process groups of the render pool: listing, killing, and the sockets they hold."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
from pathlib import Path

KILL_GRACE_S = 3.0
"""Seconds the launcher (oosplash) gets to reap soffice.bin after it was killed."""


# --------------------------------------------------------------------------------------------
# Processes


def _proc_stat(pid: int) -> tuple[str, str, int] | None:
    """(comm, state, pgid) of a process, or None when it is gone."""
    try:
        raw = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    head, _, tail = raw.rpartition(")")
    fields = tail.split()
    return head.partition("(")[2], fields[0], int(fields[2])


def group_members(pgid: int) -> list[tuple[int, str]]:
    """Live (non-zombie) processes of a process group, as (pid, command name)."""
    out: list[tuple[int, str]] = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        st = _proc_stat(int(entry))
        if st is not None and st[2] == pgid and st[1] != "Z":
            out.append((int(entry), st[0]))
    return out


def kill_group(proc: subprocess.Popen[bytes] | None) -> None:
    """Kill a process group we started (leader = ``proc``) and reap the leader.

    The members other than the leader die first, so the launcher (oosplash) reaps soffice.bin
    itself; killing them all at once would leave soffice.bin a zombie of an init that may not
    reap. Then the whole group gets SIGKILL in case the leader hangs.
    """
    if proc is None:
        return
    pgid = proc.pid
    if proc.poll() is None:
        children = [pid for pid, _ in group_members(pgid) if pid != pgid]
        for pid in children:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        if children:
            with contextlib.suppress(subprocess.TimeoutExpired):
                proc.wait(KILL_GRACE_S)
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, signal.SIGKILL)
    with contextlib.suppress(subprocess.TimeoutExpired):
        proc.wait(KILL_GRACE_S)
    for stream in (proc.stdin, proc.stdout):
        if stream is not None:
            with contextlib.suppress(OSError):
                stream.close()


def unix_sockets(pgid: int) -> set[str]:
    """Paths of the unix sockets held by the processes of group ``pgid`` (their OSL pipes)."""
    inodes: set[str] = set()
    for pid, _ in group_members(pgid):
        with contextlib.suppress(OSError):
            for fd in os.listdir(f"/proc/{pid}/fd"):
                with contextlib.suppress(OSError):
                    link = os.readlink(f"/proc/{pid}/fd/{fd}")
                    if link.startswith("socket:["):
                        inodes.add(link[8:-1])
    out: set[str] = set()
    with contextlib.suppress(OSError):
        for line in Path("/proc/net/unix").read_text().splitlines()[1:]:
            fields = line.split()
            if len(fields) >= 8 and fields[6] in inodes and fields[7].startswith("/"):
                out.add(fields[7])
    return out


def tail_of(path: Path, limit: int = 400) -> str:
    try:
        data = path.read_bytes()[-limit:]
    except OSError:
        return ""
    return data.decode("utf-8", "replace").strip().replace("\n", " | ")
