"""The sandbox (judge/sandbox.py): real bubblewrap runs, with fast limits, on hostile programs."""

from __future__ import annotations

import os
import socket
import subprocess
from pathlib import Path

import pytest

from judge.sandbox import UID_BASE, UID_SLOTS, Sandbox, SandboxLimits, available, prepare_folder
from tests.gen_helpers import connected

pytestmark = pytest.mark.skipif(available() is not None, reason=f"no sandbox: {available()}")

FAST = SandboxLimits(
    wall_s=20.0,  # generous: a loaded 2-core machine starts Python slowly; tests that need the
    # wall clock to fire set their own
    cpu_s=2,
    memory_bytes=700 * 1024**2,
    file_bytes=8 * 1024**2,
    processes=24,
    output_chars=2000,
)


def sandbox_uids_running() -> list[int]:
    out = subprocess.run(["ps", "-eo", "uid="], capture_output=True, text=True, check=True).stdout
    return [int(u) for u in out.split() if UID_BASE <= int(u) < UID_BASE + UID_SLOTS]


@pytest.fixture
def box(tmp_path: Path) -> Sandbox:
    ref = tmp_path / "task" / "reference.png"
    ref.parent.mkdir()
    ref.write_bytes(b"\x89PNG fake")
    folder = prepare_folder(tmp_path / "work", {"reference.png": ref})
    return Sandbox(folder, FAST)


def test_program_runs_unprivileged_in_its_folder_with_the_project_libraries(box: Sandbox) -> None:
    code = (
        "import os, pptx, PIL, cv2, numpy\n"
        "print(os.getuid(), os.getcwd(), sorted(os.listdir('.')))\n"
        "open('deck.pptx', 'wb').write(b'x')\n"
    )
    out = box.run(code)
    assert out.exit_code == 0, out.stderr
    uid, cwd, files = out.stdout.split(" ", 2)
    assert UID_BASE <= int(uid) < UID_BASE + UID_SLOTS
    assert cwd == "/sandbox"
    assert "reference.png" in files
    assert (box.folder / "deck.pptx").read_bytes() == b"x"


def test_endless_loop_is_killed_at_the_cpu_limit(box: Sandbox) -> None:
    from dataclasses import replace

    box.limits = replace(FAST, cpu_s=1, wall_s=60.0)  # the CPU limit comes first on a busy box
    out = box.run("while True:\n    pass\n")
    assert out.exit_code != 0
    assert out.violation is not None and "CPU limit" in out.violation
    assert out.seconds < 60.0


def test_sleeping_forever_is_killed_at_the_wall_clock_limit(box: Sandbox) -> None:
    from dataclasses import replace

    box.limits = replace(FAST, wall_s=3.0)
    out = box.run("import time\nwhile True:\n    time.sleep(1)\n")
    assert out.exit_code is None
    assert out.violation is not None and "wall-clock limit" in out.violation
    assert sandbox_uids_running() == []


def test_memory_hog_is_stopped_at_the_memory_limit(box: Sandbox) -> None:
    from dataclasses import replace

    # zero-filling 700 MB costs over 2 s of CPU on a loaded machine (two test workers): the
    # CPU limit must not stop it first
    box.limits = replace(FAST, cpu_s=10)
    out = box.run("blocks = []\nwhile True:\n    blocks.append(bytearray(50 * 1024 * 1024))\n")
    assert out.exit_code != 0
    assert out.violation is not None and "memory limit" in out.violation


def test_fork_bomb_stops_at_the_process_limit_and_leaves_nothing_running(box: Sandbox) -> None:
    from dataclasses import replace

    box.limits = replace(FAST, wall_s=6.0)
    code = (
        "import os, time\n"
        "while True:\n"
        "    try:\n"
        "        os.fork()\n"
        "    except OSError:\n"
        "        time.sleep(0.01)\n"
    )
    out = box.run(code)
    assert out.violation is not None
    assert "process limit" in out.violation
    assert sandbox_uids_running() == []


def test_connection_to_a_host_server_on_loopback_fails(box: Sandbox) -> None:
    with socket.create_server(("127.0.0.1", 0)) as server:
        port = server.getsockname()[1]
        code = f"import socket\nsocket.create_connection(('127.0.0.1', {port}), timeout=2)\n"
        out = box.run(code)
        assert not connected(server)
    assert out.exit_code != 0
    assert "ConnectionRefusedError" in out.stderr or "unreachable" in out.stderr


def test_write_outside_the_folder_fails_and_the_host_is_unchanged(
    box: Sandbox, tmp_path: Path
) -> None:
    target = tmp_path / "outside.txt"
    code = (
        "import os\n"
        "for path in ['/usr/owned', '/etc/owned', '/root/owned', " + repr(str(target)) + "]:\n"
        "    try:\n"
        "        open(path, 'w').write('x')\n"
        "        print('WROTE', path)\n"
        "    except OSError as e:\n"
        "        print('refused', path, e.errno)\n"
    )
    out = box.run(code)
    assert out.exit_code == 0, out.stderr
    assert "WROTE" not in out.stdout
    assert not target.exists()
    assert not Path("/usr/owned").exists() and not Path("/etc/owned").exists()


def test_files_outside_the_folder_are_not_readable(box: Sandbox, tmp_path: Path) -> None:
    other = tmp_path / "other-task" / "reference.png"
    other.parent.mkdir()
    other.write_bytes(b"secret reference")
    code = (
        "import os\n"
        f"paths = [{str(other)!r}, '/etc/passwd', '/root/.bashrc', '/work/coord/COMMON.md', "
        f"{str(tmp_path)!r}]\n"
        "for path in paths:\n"
        "    print(path, os.path.exists(path))\n"
    )
    out = box.run(code)
    assert out.exit_code == 0, out.stderr
    assert out.stdout.count(" False") == 5, out.stdout


def test_ten_gigabyte_file_is_stopped_at_the_file_size_limit(box: Sandbox) -> None:
    code = "with open('big.bin', 'wb') as f:\n    f.seek(10 * 1024**3)\n    f.write(b'x')\n"
    out = box.run(code)
    assert out.exit_code != 0
    assert out.violation is not None and "file-size limit" in out.violation
    big = box.folder / "big.bin"
    assert not big.exists() or big.stat().st_size <= FAST.file_bytes


def test_output_is_captured_and_truncated(box: Sandbox) -> None:
    out = box.run("import sys\nprint('a' * 10000)\nsys.stderr.write('b' * 5000)\n")
    assert out.exit_code == 0
    assert out.stdout_truncated and out.stderr_truncated
    assert len(out.stdout) < 2100 and out.stdout.rstrip().endswith("a")


def test_read_only_files_cannot_be_changed(tmp_path: Path) -> None:
    src = tmp_path / "pair.png"
    src.write_bytes(b"pair")
    folder = tmp_path / "work"
    folder.mkdir()
    sb = Sandbox(folder, FAST, read_only={"pair.png": src})
    out = sb.run("print(open('pair.png','rb').read())\nopen('pair.png', 'wb').write(b'x')\n")
    assert "b'pair'" in out.stdout
    assert out.exit_code != 0 and "Read-only file system" in out.stderr
    assert src.read_bytes() == b"pair"


def test_symlink_left_in_the_folder_is_not_followed_by_readers(box: Sandbox) -> None:
    from judge.sandbox import read_regular_file

    out = box.run("import os\nos.symlink('/etc/passwd', 'deck.pptx')\n")
    assert out.exit_code == 0, out.stderr
    assert read_regular_file(box.folder / "deck.pptx") is None
    assert os.path.islink(box.folder / "deck.pptx")
