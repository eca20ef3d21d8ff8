"""Rendering decks with supervised, warm, headless LibreOffice instances.

A :class:`RenderPool` starts N LibreOffice instances, each with a private user profile in a
temporary folder the pool owns, in its own session / process group, accepting UNO on a private
pipe. Beside each instance runs a long-lived worker (``judge/render/worker.py`` under Debian's
``/usr/bin/python3``, which has the ``uno`` module) that converts PPTX -> PDF or SVG on request
(JSON lines over its stdin/stdout). The pool rasterises page 1 of the PDF with pdfium.

Supervision: every conversion has a deadline; on a hang the pool kills the instance's process
groups (``soffice`` is a script that starts ``soffice.bin``: killing one pid would orphan the
other), restarts the instance and raises :class:`~judge.errors.RenderTimeout`. A crash restarts
the instance and raises :class:`~judge.errors.RenderError`; so does a conversion that reports
success without writing a usable file. ``close()`` (and a finaliser that also runs at interpreter
exit) kills every group, so no ``soffice.bin`` outlives the pool.

Decks are untrusted: the input is copied into the instance's folder under a fixed name, loaded
read-only with macros and link updates disabled, with proxies pointed at a closed local port, and
outputs are size-capped (also by ``RLIMIT_FSIZE`` on the instance).
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import io
import json
import os
import queue
import secrets
import select
import shutil
import signal
import subprocess
import tempfile
import threading
import time
import weakref
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from types import TracebackType

from judge.errors import RenderError, RenderTimeout
from judge.rundir import atomic_write_bytes
from judge.schema import RenderProvenance, RenderResult

SOFFICE = os.environ.get("PPTJUDGE_SOFFICE", "soffice")
"""The LibreOffice launcher (Debian: ``/usr/bin/soffice``, a script that starts soffice.bin)."""
UNO_PYTHON = os.environ.get("PPTJUDGE_UNO_PYTHON", "/usr/bin/python3")
"""The Python that has the ``uno`` module (Debian's python3-uno); the venv's Python does not."""
WORKER_SCRIPT = Path(__file__).with_name("worker.py")

DEFAULT_DPI = 150
"""Raster resolution of renders, in pixels per inch of the slide (13.33 in wide -> 2000 px)."""
MIN_DPI, MAX_DPI = 10, 1200
"""Accepted dpi range; outside it a render is either useless or absurdly large."""
STARTUP_TIMEOUT_S = 90.0
"""Seconds an instance may take from launch to an accepted UNO connection. A fresh profile on a
busy 2-core machine takes 2-10 s; the margin covers several instances starting at once."""
MAX_DECK_BYTES = 200 * 1024 * 1024
"""Largest deck file the renderer copies and opens (Stage 0 bounds the package itself)."""
MAX_PDF_BYTES = 64 * 1024 * 1024
"""Largest PDF accepted from LibreOffice for a one-slide deck; more means a hostile deck."""
MAX_SVG_BYTES = 64 * 1024 * 1024
"""Largest SVG accepted from LibreOffice (LibreOffice embeds fonts and script, ~0.5 MB typical)."""
INSTANCE_FSIZE_LIMIT = 2 * MAX_PDF_BYTES
"""RLIMIT_FSIZE of the LibreOffice process, in bytes: it cannot write a file larger than this
(temporary files included), so a hostile deck cannot fill the disk before the size check."""
INSTANCE_MEMORY_LIMIT = 4 * 1024**3
"""RLIMIT_AS of the LibreOffice process, in bytes: it maps ~1 GB when warm; a deck that needs
more than 4 GB (e.g. a decompression-bomb picture) makes it fail, not the machine."""
MAX_RASTER_PIXELS = 80_000_000
"""Most pixels of one rasterised page (a 56 in x 56 in slide at 150 dpi is 70 MP)."""
KILL_GRACE_S = 3.0
"""Seconds the launcher (oosplash) gets to reap soffice.bin after it was killed."""
TOOL_TIMEOUT_S = 30.0
"""Seconds for ``soffice --version``, ``fc-list`` and ``fc-match``."""
CLOSED_PROXY = "http://127.0.0.1:9"
"""Proxy for every URL scheme of the instance: the discard port, so linked content in a deck can
never be fetched from the network."""

MAX_REPLY_BYTES = 1024 * 1024
"""Longest reply line accepted from a worker (they are ~100 bytes); more means it is broken."""

_INPUT_NAME = "input.pptx"
_PDFIUM_LOCK = threading.Lock()
"""pdfium is not thread-safe: one rasterisation at a time in this process."""

_PROFILE_SETTINGS = """<?xml version="1.0" encoding="UTF-8"?>
<oor:items xmlns:oor="http://openoffice.org/2001/registry"
 xmlns:xs="http://www.w3.org/2001/XMLSchema" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">
<item oor:path="/org.openoffice.Inet/Settings"><prop oor:name="ooInetProxyType" oor:op="fuse">\
<value>1</value></prop></item>
<item oor:path="/org.openoffice.Inet/Settings"><prop oor:name="ooInetHTTPProxyName" oor:op="fuse">\
<value>127.0.0.1</value></prop></item>
<item oor:path="/org.openoffice.Inet/Settings"><prop oor:name="ooInetHTTPProxyPort" oor:op="fuse">\
<value>9</value></prop></item>
<item oor:path="/org.openoffice.Inet/Settings"><prop oor:name="ooInetHTTPSProxyName" oor:op="fuse">\
<value>127.0.0.1</value></prop></item>
<item oor:path="/org.openoffice.Inet/Settings"><prop oor:name="ooInetHTTPSProxyPort" oor:op="fuse">\
<value>9</value></prop></item>
<item oor:path="/org.openoffice.Inet/Settings"><prop oor:name="ooInetNoProxy" oor:op="fuse">\
<value></value></prop></item>
<item oor:path="/org.openoffice.Office.Common/Security/Scripting">\
<prop oor:name="MacroSecurityLevel" oor:op="fuse"><value>3</value></prop></item>
<item oor:path="/org.openoffice.Office.Common/Security/Scripting">\
<prop oor:name="BlockUntrustedRefererLinks" oor:op="fuse"><value>true</value></prop></item>
</oor:items>
"""
"""Seeded into each private profile: manual proxy at the closed port, highest macro security,
and no fetching of linked images from untrusted documents."""


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


def _kill_group(proc: subprocess.Popen[bytes] | None) -> None:
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


def _tail(path: Path, limit: int = 400) -> str:
    try:
        data = path.read_bytes()[-limit:]
    except OSError:
        return ""
    return data.decode("utf-8", "replace").strip().replace("\n", " | ")


class _WorkerGone(Exception):
    """The worker's stdout closed (it exited or was killed)."""


class _Instance:
    """One LibreOffice process group plus its UNO worker, in a private folder."""

    def __init__(
        self, index: int, root: Path, startup_timeout: float, closed: threading.Event
    ) -> None:
        self.index = index
        self.root = root
        self.profile = root / "profile"
        self.work = root / "work"
        self.startup_timeout = startup_timeout
        self.soffice: subprocess.Popen[bytes] | None = None
        self.worker: subprocess.Popen[bytes] | None = None
        self.version = ""
        self.broken = False
        """True when a restart failed; the next use tries again."""
        self._buf = b""
        self._next_id = 0
        self._closed = closed
        """Set by the pool's close(): from then on nothing may start a process."""
        self._lock = threading.Lock()
        """Serialises spawning and killing, so close() never misses a process being started."""

    # -- life cycle ----------------------------------------------------------------------

    def start(self) -> None:
        with self._lock:
            if self._closed.is_set():
                raise RenderError("the render pool is closed")
            worker, soffice = self._spawn()
        deadline = time.monotonic() + self.startup_timeout
        try:
            line = self._read_line(worker, deadline, soffice)
        except _WorkerGone:
            line = None
            reason = f"the UNO worker exited ({_tail(self.root / 'worker.log')})"
        except RenderError as exc:
            line = None
            reason = str(exc)
        else:
            reason = f"no UNO connection within {self.startup_timeout:g} s"
        if line is not None:
            try:
                msg = json.loads(line)
            except ValueError:
                msg = {"error": f"garbled worker reply {line[:80]!r}"}
            if msg.get("ready"):
                self.version = str(msg.get("version", ""))
                self.broken = False
                return
            reason = str(msg.get("error", "worker not ready"))
        self.stop()
        self.broken = True
        raise RenderError(f"LibreOffice instance {self.index} did not start: {reason}")

    def _spawn(self) -> tuple[subprocess.Popen[bytes], subprocess.Popen[bytes]]:
        """Launch soffice and its worker; returns (worker, soffice). Caller holds the lock."""
        self.profile.mkdir(parents=True, exist_ok=True)
        self.work.mkdir(parents=True, exist_ok=True)
        settings = self.profile / "user" / "registrymodifications.xcu"
        if not settings.exists():
            settings.parent.mkdir(parents=True, exist_ok=True)
            settings.write_text(_PROFILE_SETTINGS, encoding="utf-8")
        soffice = shutil.which(SOFFICE)
        if soffice is None:
            raise RenderError(
                f"LibreOffice not found: no {SOFFICE!r} on PATH (install libreoffice-impress)"
            )
        if not Path(UNO_PYTHON).is_file():
            raise RenderError(f"{UNO_PYTHON} not found: the render worker needs Debian's python3")
        pipe = f"pptjudge-{os.getpid()}-{self.index}-{secrets.token_hex(6)}"
        cmd = [
            soffice,
            "--headless",
            "--invisible",
            "--nologo",
            "--norestore",
            "--nodefault",
            "--nolockcheck",
            "--nofirststartwizard",
            f"-env:UserInstallation={self.profile.as_uri()}",
            f"--accept=pipe,name={pipe};urp;StarOffice.ComponentContext",
        ]
        prlimit = shutil.which("prlimit")
        if prlimit is not None:
            limits = [f"--fsize={INSTANCE_FSIZE_LIMIT}", f"--as={INSTANCE_MEMORY_LIMIT}"]
            cmd = [prlimit, *limits, "--", *cmd]
        env = dict(os.environ)
        for var in ("http_proxy", "https_proxy", "ftp_proxy", "all_proxy"):
            env[var] = env[var.upper()] = CLOSED_PROXY
        env["no_proxy"] = env["NO_PROXY"] = ""
        self._buf = b""
        try:
            with (self.root / "soffice.log").open("ab") as log:
                soffice_proc = self.soffice = subprocess.Popen(
                    cmd,
                    stdin=subprocess.DEVNULL,
                    stdout=log,
                    stderr=log,
                    cwd=self.work,
                    env=env,
                    start_new_session=True,
                )
        except OSError as exc:
            raise RenderError(f"cannot start LibreOffice ({soffice}): {exc}") from exc
        try:
            with (self.root / "worker.log").open("ab") as log:
                worker = self.worker = subprocess.Popen(
                    [
                        UNO_PYTHON,
                        str(WORKER_SCRIPT),
                        "--pipe",
                        pipe,
                        "--connect-timeout",
                        str(self.startup_timeout),
                        "--soffice-pgid",
                        str(soffice_proc.pid),
                        "--cleanup",
                        str(self.root.parent),
                    ],
                    stdin=subprocess.PIPE,
                    stdout=subprocess.PIPE,
                    stderr=log,
                    cwd=self.work,
                    start_new_session=True,
                )
        except OSError as exc:
            _kill_group(soffice_proc)
            self.soffice = None
            raise RenderError(f"cannot start the render worker ({UNO_PYTHON}): {exc}") from exc
        return worker, soffice_proc

    def stop(self) -> None:
        with self._lock:
            worker, soffice = self.worker, self.soffice
            self.worker = self.soffice = None
            # The worker is killed first and outright (it holds nothing; a graceful quit would
            # wait for a conversion in progress), then soffice.bin before its launcher.
            _kill_group(worker)
            _kill_group(soffice)

    def restart(self) -> None:
        self.stop()
        self.start()

    def alive(self) -> bool:
        return (
            not self.broken
            and self.soffice is not None
            and self.soffice.poll() is None
            and self.worker is not None
            and self.worker.poll() is None
        )

    def pgids(self) -> list[int]:
        return [p.pid for p in (self.soffice, self.worker) if p is not None]

    # -- talking to the worker ------------------------------------------------------------

    def _read_line(
        self,
        worker: subprocess.Popen[bytes],
        deadline: float,
        soffice: subprocess.Popen[bytes] | None = None,
    ) -> str | None:
        """One line from ``worker``, or None at the deadline. Raises _WorkerGone on EOF and
        RenderError when ``soffice`` (watched while starting) exits."""
        if worker.stdout is None or worker.stdout.closed:
            raise _WorkerGone()
        try:
            fd = worker.stdout.fileno()
        except ValueError:
            raise _WorkerGone() from None
        while b"\n" not in self._buf:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return None
            try:
                ready, _, _ = select.select([fd], [], [], min(remaining, 0.5))
            except (OSError, ValueError):
                raise _WorkerGone() from None  # closed under us by close()
            if not ready:
                if soffice is not None and soffice.poll() is not None:
                    raise RenderError(
                        f"soffice exited with code {soffice.returncode} "
                        f"({_tail(self.root / 'soffice.log')})"
                    )
                continue
            try:
                chunk = os.read(fd, 65536)
            except OSError:
                raise _WorkerGone() from None
            if not chunk or len(self._buf) > MAX_REPLY_BYTES:
                raise _WorkerGone()
            self._buf += chunk
        line, _, self._buf = self._buf.partition(b"\n")
        return line.decode("utf-8", "replace")

    def request(self, payload: dict[str, object], timeout: float) -> dict[str, object] | None:
        """Send one request; its reply, or None when ``timeout`` seconds passed first."""
        worker = self.worker
        if worker is None or worker.stdin is None:
            raise _WorkerGone()
        self._next_id += 1
        rid = self._next_id
        try:
            worker.stdin.write((json.dumps({**payload, "id": rid}) + "\n").encode())
            worker.stdin.flush()
        except (OSError, ValueError) as exc:
            raise _WorkerGone() from exc
        deadline = time.monotonic() + timeout
        while True:
            line = self._read_line(worker, deadline)
            if line is None:
                return None
            try:
                reply = json.loads(line)
            except ValueError:
                raise _WorkerGone() from None  # a garbled channel: treat the worker as dead
            if not isinstance(reply, dict):
                raise _WorkerGone()
            if reply.get("id") == rid:
                return reply


# --------------------------------------------------------------------------------------------
# Provenance


@functools.cache
def libreoffice_version() -> str:
    """``soffice --version`` of this machine, e.g. ``LibreOffice 7.4.7.2 40(Build:2)``."""
    exe = shutil.which(SOFFICE)
    if exe is None:
        raise RenderError(f"LibreOffice not found: no {SOFFICE!r} on PATH")
    try:
        out = subprocess.run(
            [exe, "--version"],
            capture_output=True,
            timeout=TOOL_TIMEOUT_S,
            check=True,
            stdin=subprocess.DEVNULL,
        )
    except (subprocess.SubprocessError, OSError) as exc:
        raise RenderError(f"{exe} --version failed: {exc}") from exc
    lines = out.stdout.decode("utf-8", "replace").strip().splitlines()
    if not lines:
        raise RenderError(f"{exe} --version printed nothing")
    return lines[0].strip()


def _run_tool(args: list[str]) -> str:
    try:
        out = subprocess.run(
            args, capture_output=True, timeout=TOOL_TIMEOUT_S, check=True, stdin=subprocess.DEVNULL
        )
    except (subprocess.SubprocessError, OSError) as exc:
        raise RenderError(f"{args[0]} failed (fontconfig is needed for provenance): {exc}") from exc
    return out.stdout.decode("utf-8", "replace")


@functools.cache
def font_list_hash() -> str:
    """sha256 (hex) of the sorted, de-duplicated ``family|style`` lines of ``fc-list``."""
    text = _run_tool(["fc-list", "--format", "%{family}|%{style}\n"])
    lines = sorted({ln.strip() for ln in text.splitlines() if ln.strip()})
    return hashlib.sha256("\n".join(lines).encode("utf-8")).hexdigest()


@functools.cache
def _matched_families(family: str) -> tuple[str, ...]:
    text = _run_tool(["fc-match", "--format", "%{family}", family])
    return tuple(f.strip().casefold() for f in text.split(",") if f.strip())


def substituted_fonts(requested: Iterable[str]) -> list[str]:
    """Requested families that fontconfig maps to a different family on this machine."""
    out: list[str] = []
    for family in dict.fromkeys(f.strip() for f in requested):
        if family and family.casefold() not in _matched_families(family):
            out.append(family)
    return out


def render_provenance(
    dpi: int = DEFAULT_DPI, requested_fonts: list[str] | None = None
) -> RenderProvenance:
    """What a render made at ``dpi`` depends on, for a deck asking for ``requested_fonts``."""
    requested = list(dict.fromkeys(f.strip() for f in requested_fonts or [] if f.strip()))
    return RenderProvenance(
        libreoffice_version=libreoffice_version(),
        font_list_hash=font_list_hash(),
        requested_fonts=requested,
        substituted_fonts=substituted_fonts(requested),
        dpi=dpi,
    )


# --------------------------------------------------------------------------------------------
# Rasterising


def rasterise_first_page(pdf: bytes, dpi: int, source: Path) -> tuple[bytes, int, int]:
    """Page 1 of a PDF as PNG bytes at ``dpi``; returns (png, width px, height px)."""
    import pypdfium2 as pdfium

    with _PDFIUM_LOCK:
        try:
            doc = pdfium.PdfDocument(pdf)
        except pdfium.PdfiumError as exc:
            raise RenderError(f"{source}: LibreOffice wrote an unreadable PDF: {exc}") from exc
        try:
            if len(doc) == 0:
                raise RenderError(f"{source}: LibreOffice wrote a PDF with no pages")
            page = doc[0]
            w_pt, h_pt = page.get_size()
            scale = dpi / 72.0
            if w_pt * scale * h_pt * scale > MAX_RASTER_PIXELS:
                raise RenderError(
                    f"{source}: page 1 is {w_pt / 72:.1f} x {h_pt / 72:.1f} in; at {dpi} dpi that "
                    f"is over {MAX_RASTER_PIXELS} pixels"
                )
            bitmap = page.render(scale=scale)
            image = bitmap.to_pil().copy()  # own the pixels: the bitmap is freed with the doc
            page.close()
        finally:
            doc.close()
    buf = io.BytesIO()
    image.save(buf, format="PNG")  # outside the lock: encoding is thread-safe
    return buf.getvalue(), image.width, image.height


# --------------------------------------------------------------------------------------------
# The pool


def _shutdown(instances: list[_Instance], root: Path, closed: threading.Event) -> None:
    closed.set()
    for inst in instances:
        with contextlib.suppress(Exception):
            inst.stop()
    shutil.rmtree(root, ignore_errors=True)


class RenderPool:
    """N warm, supervised headless LibreOffice instances; thread-safe.

    ``workers`` instances are started at construction (in parallel) and each renders one deck
    at a time. ``timeout`` is the per-file limit in seconds; ``dpi`` the default raster
    resolution in pixels per inch of the slide. Use as a context manager or call :meth:`close`.
    """

    def __init__(
        self,
        workers: int = 1,
        timeout: float = 60.0,
        dpi: int = DEFAULT_DPI,
        startup_timeout: float = STARTUP_TIMEOUT_S,
    ) -> None:
        if workers < 1:
            raise RenderError(f"workers must be at least 1, not {workers}")
        if timeout <= 0:
            raise RenderError(f"timeout must be positive, not {timeout}")
        _check_dpi(dpi)
        self.workers = workers
        self.timeout = timeout
        self.dpi = dpi
        self._root = Path(tempfile.mkdtemp(prefix="pptjudge-render-"))
        self._closed = threading.Event()
        """Set by close() (or the finaliser): no instance may start after it."""
        self._instances = [
            _Instance(i, self._root / f"instance-{i}", startup_timeout, self._closed)
            for i in range(workers)
        ]
        self._free: queue.Queue[_Instance] = queue.Queue()
        self._finalizer = weakref.finalize(
            self, _shutdown, self._instances, self._root, self._closed
        )
        errors: list[RenderError] = []

        def start(inst: _Instance) -> None:
            try:
                inst.start()
            except RenderError as exc:
                errors.append(exc)

        threads = [threading.Thread(target=start, args=(i,)) for i in self._instances]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        if errors:
            self.close()
            raise errors[0]
        for inst in self._instances:
            self._free.put(inst)

    # -- life cycle ----------------------------------------------------------------------

    def close(self) -> None:
        """Kill every instance's process groups and delete the pool's temporary folder."""
        self._finalizer()

    def __enter__(self) -> RenderPool:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    @property
    def libreoffice_version(self) -> str:
        return self._instances[0].version

    def process_groups(self) -> list[int]:
        """Process group ids of the live instances and their workers (for supervision and tests)."""
        return [g for inst in self._instances for g in inst.pgids()]

    # -- rendering -----------------------------------------------------------------------

    def render(
        self,
        pptx: Path,
        out_png: Path,
        dpi: int | None = None,
        requested_fonts: list[str] | None = None,
        timeout: float | None = None,
    ) -> RenderResult:
        """Render slide 1 of ``pptx`` to ``out_png`` (written atomically).

        ``dpi``: pixels per inch of the slide (default: the pool's). ``requested_fonts``: the
        font families the deck asks for, recorded with the substituted ones in the provenance.
        ``timeout``: seconds for this file (default: the pool's).
        """
        t0 = time.perf_counter()
        dpi = self.dpi if dpi is None else dpi
        _check_dpi(dpi)
        pptx = Path(pptx)
        pdf = self.export_pdf(pptx, timeout)
        png, width, height = rasterise_first_page(pdf, dpi, pptx)
        atomic_write_bytes(Path(out_png), png)
        return RenderResult(
            deck=str(pptx),
            png=str(out_png),
            width_px=width,
            height_px=height,
            seconds=round(time.perf_counter() - t0, 4),
            provenance=render_provenance(dpi, requested_fonts),
        )

    def export_pdf(self, pptx: Path, timeout: float | None = None) -> bytes:
        """The deck as PDF bytes (``impress_pdf_Export``, pictures lossless), not rasterised."""
        pptx = Path(pptx)
        pdf = self._convert(pptx, "pdf", MAX_PDF_BYTES, timeout)
        if not pdf.startswith(b"%PDF"):
            raise RenderError(f"{pptx}: LibreOffice's output is not a PDF")
        return pdf

    def export_svg(self, pptx: Path, timeout: float | None = None) -> bytes:
        """The deck as SVG (LibreOffice's ``impress_svg_Export``: one group per shape)."""
        pptx = Path(pptx)
        svg = self._convert(pptx, "svg", MAX_SVG_BYTES, timeout)
        if b"<svg" not in svg[:4096]:
            raise RenderError(f"{pptx}: LibreOffice's output is not an SVG")
        return svg

    def render_many(
        self,
        decks: Iterable[Path],
        out_dir: Path,
        dpi: int | None = None,
        requested_fonts: Callable[[Path], list[str]] | None = None,
    ) -> list[RenderResult | RenderError]:
        """Render each deck to ``out_dir/<stem>.png`` over all instances in parallel.

        Returns one entry per deck, in input order: its result, or the error it raised (one
        failed deck never stops the others). ``requested_fonts`` maps a deck to its font
        families for the provenance.
        """
        decks = [Path(d) for d in decks]
        seen: dict[str, Path] = {}
        for d in decks:
            if d.stem in seen:
                raise RenderError(f"{d} and {seen[d.stem]} would both render to {d.stem}.png")
            seen[d.stem] = d
        out_dir = Path(out_dir)

        def one(deck: Path) -> RenderResult | RenderError:
            try:
                fonts = requested_fonts(deck) if requested_fonts is not None else None
                return self.render(deck, out_dir / f"{deck.stem}.png", dpi, fonts)
            except RenderError as exc:
                return exc

        with ThreadPoolExecutor(max_workers=self.workers) as ex:
            return list(ex.map(one, decks))

    # -- internals -----------------------------------------------------------------------

    def _acquire(self) -> _Instance:
        if self._closed.is_set():
            raise RenderError("the render pool is closed")
        inst = self._free.get()
        if self._closed.is_set():
            self._free.put(inst)
            raise RenderError("the render pool is closed")
        return inst

    def _convert(self, src: Path, fmt: str, cap: int, timeout: float | None) -> bytes:
        """Convert ``src`` on a free instance; the output's bytes (at most ``cap``)."""
        limit = self.timeout if timeout is None else timeout
        try:
            size = src.stat().st_size
        except OSError as exc:
            raise RenderError(f"{src}: cannot read the deck: {exc.strerror}") from exc
        if not src.is_file():
            raise RenderError(f"{src}: not a file")
        if size > MAX_DECK_BYTES:
            raise RenderError(f"{src}: {size} bytes is over the {MAX_DECK_BYTES}-byte deck limit")
        inst = self._acquire()
        try:
            return self._convert_on(inst, src, fmt, cap, limit)
        finally:
            self._free.put(inst)

    def _restart(self, inst: _Instance) -> str:
        """Restart an instance; '' or the reason it failed (it is then retried on next use)."""
        try:
            inst.restart()
        except RenderError as exc:
            return f"; the restart failed: {exc}"
        return ""

    @staticmethod
    def _revive(inst: _Instance, src: Path) -> None:
        """Restart a dead instance before using it for ``src``; a failure names the deck."""
        try:
            inst.restart()
        except RenderError as exc:
            raise RenderError(f"{src}: cannot render, {exc}") from exc

    def _convert_on(self, inst: _Instance, src: Path, fmt: str, cap: int, limit: float) -> bytes:
        if not inst.alive():
            self._revive(inst, src)
        inp = inst.work / _INPUT_NAME
        out = inst.work / f"output.{fmt}"
        for stale in (inp, out):
            stale.unlink(missing_ok=True)
        try:
            shutil.copyfile(src, inp)
        except OSError as exc:
            raise RenderError(f"{src}: cannot copy the deck: {exc.strerror}") from exc
        try:
            for attempt in range(2):
                request: dict[str, object] = {
                    "op": "convert",
                    "src": str(inp),
                    "dst": str(out),
                    "format": fmt,
                }
                try:
                    reply = inst.request(request, limit)
                except _WorkerGone:
                    if self._closed.is_set():
                        raise RenderError(f"{src}: the render pool was closed meanwhile") from None
                    note = self._restart(inst)
                    raise RenderError(
                        f"{src}: the LibreOffice worker died while rendering; restarted{note}"
                    ) from None
                if reply is None:
                    note = self._restart(inst)
                    raise RenderTimeout(
                        f"{src}: LibreOffice did not finish within {limit:g} s; "
                        f"instance {inst.index} was killed and restarted{note}"
                    )
                if reply.get("ok"):
                    break
                kind, error = reply.get("kind"), reply.get("error")
                if kind == "disconnected" and reply.get("stage") == "before" and attempt == 0:
                    self._revive(inst, src)  # dead before the deck was opened: safe to retry
                    continue
                if kind == "disconnected" or not inst.alive():
                    note = self._restart(inst)
                    raise RenderError(
                        f"{src}: LibreOffice crashed while rendering ({error}); restarted{note}"
                    )
                what = "open" if kind == "load" else "export"
                raise RenderError(f"{src}: LibreOffice could not {what} it: {error}")
            try:
                size = out.stat().st_size
            except FileNotFoundError:
                raise RenderError(
                    f"{src}: LibreOffice reported success but wrote no {fmt.upper()}"
                ) from None
            if size == 0:
                raise RenderError(f"{src}: LibreOffice wrote an empty {fmt.upper()}")
            if size > cap:
                raise RenderError(
                    f"{src}: LibreOffice's {fmt.upper()} is {size} bytes, over the {cap} limit"
                )
            return out.read_bytes()
        finally:
            for leftover in (inp, out):
                leftover.unlink(missing_ok=True)


def _check_dpi(dpi: int) -> None:
    if not MIN_DPI <= dpi <= MAX_DPI:
        raise RenderError(f"dpi must be between {MIN_DPI} and {MAX_DPI}, not {dpi}")
