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
import io
import json
import os
import queue
import secrets
import select
import shutil
import subprocess
import tempfile
import threading
import time
import weakref
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from types import TracebackType

from judge.errors import RenderError, RendererUnavailable, RenderTimeout
from judge.render.procs import group_members, kill_group, tail_of, unix_sockets
from judge.render.provenance import (
    DEFAULT_DPI,
    SOFFICE,
    font_list_hash,
    libreoffice_version,
    render_provenance,
    substituted_fonts,
    vet_deck,
)
from judge.rundir import atomic_write_bytes
from judge.schema import RenderResult

UNO_PYTHON = os.environ.get("PPTJUDGE_UNO_PYTHON", "/usr/bin/python3")
"""The Python that has the ``uno`` module (Debian's python3-uno); the venv's Python does not."""
WORKER_SCRIPT = Path(__file__).with_name("worker.py")

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
        self.tmp = root / "tmp"
        """The instance's TMPDIR (removed when it stops)."""
        self.sockets: set[str] = set()
        """Unix sockets (OSL pipes) the instance listens on, unlinked when it stops."""
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
        """Start the instance; a failed start is tried once more (a fresh LibreOffice install
        can abort its very first start), then RenderError."""
        try:
            self._start_once()
        except RenderError:
            if self._closed.is_set():
                raise
            self._start_once()

    def _start_once(self) -> None:
        with self._lock:
            if self._closed.is_set():
                raise RenderError("the render pool is closed")
            worker, soffice = self._spawn()
        deadline = time.monotonic() + self.startup_timeout
        try:
            line = self._read_line(worker, deadline, soffice)
        except _WorkerGone:
            line = None
            reason = f"the UNO worker exited ({tail_of(self.root / 'worker.log')})"
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
                self.sockets |= unix_sockets(soffice.pid)
                return
            reason = str(msg.get("error", "worker not ready"))
        self.stop()
        self.broken = True
        raise RenderError(f"LibreOffice instance {self.index} did not start: {reason}")

    def _spawn(self) -> tuple[subprocess.Popen[bytes], subprocess.Popen[bytes]]:
        """Launch soffice and its worker; returns (worker, soffice). Caller holds the lock."""
        self.profile.mkdir(parents=True, exist_ok=True)
        self.work.mkdir(parents=True, exist_ok=True)
        self.tmp.mkdir(parents=True, exist_ok=True)
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
        self.sockets.add(str(Path(tempfile.gettempdir(), f"OSL_PIPE_{os.getuid()}_{pipe}")))
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
        # LibreOffice's temporary files (lu*.tmp) go to the instance's own folder, removed on
        # stop (a SIGKILLed soffice.bin never cleans up after itself)
        env["TMPDIR"] = env["TMP"] = env["TEMP"] = str(self.tmp)
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
                    env=env,
                    start_new_session=True,
                )
        except OSError as exc:
            kill_group(soffice_proc)
            self.soffice = None
            raise RenderError(f"cannot start the render worker ({UNO_PYTHON}): {exc}") from exc
        return worker, soffice_proc

    def stop(self) -> None:
        with self._lock:
            worker, soffice = self.worker, self.soffice
            self.worker = self.soffice = None
            # The worker is killed first and outright (it holds nothing; a graceful quit would
            # wait for a conversion in progress), then soffice.bin before its launcher.
            kill_group(worker)
            kill_group(soffice)
            self._clean_debris()

    def _clean_debris(self) -> None:
        """Remove what a killed instance leaves: its temporary folder and its OSL pipes."""
        shutil.rmtree(self.tmp, ignore_errors=True)
        tmp_root = Path(tempfile.gettempdir()).resolve()
        for path in list(self.sockets):
            p = Path(path)
            if p.parent.resolve() == tmp_root and p.name.startswith("OSL_PIPE_"):
                with contextlib.suppress(OSError):
                    p.unlink()
        self.sockets.clear()

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
                        f"({tail_of(self.root / 'soffice.log')})"
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
            raise RendererUnavailable("the render pool is closed")
        inst = self._free.get()
        if self._closed.is_set():
            self._free.put(inst)
            raise RendererUnavailable("the render pool is closed")
        return inst

    def _convert(
        self, src: Path, fmt: str, cap: int, timeout: float | None, data: bytes | None = None
    ) -> bytes:
        """Convert ``src`` (or the deck bytes ``data``, named ``src`` in messages) on a free
        instance; the output's bytes (at most ``cap``).

        A crash of LibreOffice while converting is retried once on a fresh instance; only a
        deck that crashes it twice is reported as unrenderable (RenderError). When no fresh
        instance can be started the judge's renderer is at fault: RendererUnavailable.
        """
        limit = self.timeout if timeout is None else timeout
        if data is None:
            try:
                size = src.stat().st_size
            except OSError as exc:
                raise RenderError(f"{src}: cannot read the deck: {exc.strerror}") from exc
            if not src.is_file():
                raise RenderError(f"{src}: not a file")
            if size > MAX_DECK_BYTES:
                raise RenderError(
                    f"{src}: {size} bytes is over the {MAX_DECK_BYTES}-byte deck limit"
                )
            vet_deck(src)
        elif len(data) > MAX_DECK_BYTES:
            raise RenderError(f"{src}: {len(data)} bytes is over the {MAX_DECK_BYTES}-byte limit")
        inst = self._acquire()
        try:
            try:
                return self._convert_on(inst, src, fmt, cap, limit, data)
            except _Crashed as first:
                self._revive(inst, src)
                try:
                    return self._convert_on(inst, src, fmt, cap, limit, data)
                except _Crashed as second:
                    note = self._restart(inst)
                    raise RenderError(
                        f"{src}: LibreOffice crashed twice on this deck, on two fresh instances "
                        f"({first}; then {second}); restarted{note}"
                    ) from None
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
        """Restart a dead instance before using it for ``src``: when it cannot start, the
        renderer (not the deck) is at fault."""
        try:
            inst.restart()
        except RenderError as exc:
            raise RendererUnavailable(f"{src}: cannot render, {exc}") from exc

    def _convert_on(
        self,
        inst: _Instance,
        src: Path,
        fmt: str,
        cap: int,
        limit: float,
        data: bytes | None = None,
    ) -> bytes:
        if not inst.alive():
            self._revive(inst, src)
        inp = inst.work / _INPUT_NAME
        out = inst.work / f"output.{fmt}"
        for stale in (inp, out):
            stale.unlink(missing_ok=True)
        try:
            if data is None:
                shutil.copyfile(src, inp)
            else:
                inp.write_bytes(data)
        except OSError as exc:
            raise RenderError(f"{src}: cannot copy the deck: {exc.strerror}") from exc
        try:
            self._request_convert(inst, src, inp, out, fmt, limit)
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

    def _request_convert(
        self, inst: _Instance, src: Path, inp: Path, out: Path, fmt: str, limit: float
    ) -> None:
        """One conversion request; raises _Crashed when LibreOffice died while converting."""
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
                    raise RendererUnavailable(
                        f"{src}: the render pool was closed meanwhile"
                    ) from None
                raise _Crashed("the LibreOffice worker died while rendering") from None
            if reply is None:
                note = self._restart(inst)
                raise RenderTimeout(
                    f"{src}: LibreOffice did not finish within {limit:g} s; "
                    f"instance {inst.index} was killed and restarted{note}"
                )
            if reply.get("ok"):
                return
            kind, error = reply.get("kind"), reply.get("error")
            if kind == "disconnected" and reply.get("stage") == "before" and attempt == 0:
                self._revive(inst, src)  # dead before the deck was opened: safe to retry
                continue
            if kind == "disconnected" or not inst.alive():
                raise _Crashed(f"LibreOffice crashed while rendering ({error})")
            what = "open" if kind == "load" else "export"
            raise RenderError(f"{src}: LibreOffice could not {what} it: {error}")
        raise _Crashed("LibreOffice was found dead twice before opening the deck")

    def render_bytes(
        self, data: bytes, dpi: int | None = None, timeout: float | None = None, name: str = ""
    ) -> bytes:
        """Slide 1 of the deck ``data`` (PPTX bytes, e.g. built in memory) as PNG bytes at
        ``dpi``; ``name`` labels messages. Nothing is written outside the pool's folder."""
        dpi = self.dpi if dpi is None else dpi
        _check_dpi(dpi)
        label = Path(name or "in-memory deck")
        pdf = self._convert(label, "pdf", MAX_PDF_BYTES, timeout, data=data)
        if not pdf.startswith(b"%PDF"):
            raise RenderError(f"{label}: LibreOffice's output is not a PDF")
        png, _, _ = rasterise_first_page(pdf, dpi, label)
        return png


class _Crashed(Exception):
    """LibreOffice (or its worker) died during one conversion attempt."""


def _check_dpi(dpi: int) -> None:
    if not MIN_DPI <= dpi <= MAX_DPI:
        raise RenderError(f"dpi must be between {MIN_DPI} and {MAX_DPI}, not {dpi}")


__all__ = [
    "DEFAULT_DPI",
    "MAX_DPI",
    "MIN_DPI",
    "RenderPool",
    "font_list_hash",
    "group_members",
    "libreoffice_version",
    "rasterise_first_page",
    "render_provenance",
    "substituted_fonts",
]
