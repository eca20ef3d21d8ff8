#!/usr/bin/python3
"""Long-lived LibreOffice conversion worker: one per headless instance of :mod:`judge.render.pool`.

Runs under Debian's ``/usr/bin/python3`` (which has the ``uno`` module); the project's venv does
not. Standard library and ``uno`` only.

Protocol (JSON lines): after connecting to the instance's UNO pipe the worker writes
``{"ready": true, "version": "..."}`` (or ``{"ready": false, "error": "..."}`` and exits). Then
each request line on stdin gets exactly one reply line on stdout:

* ``{"id": n, "op": "convert", "src": PATH, "dst": PATH, "format": "pdf" | "svg"}`` ->
  ``{"id": n, "ok": true}`` or
  ``{"id": n, "ok": false, "kind": "disconnected" | "load" | "store" | "request",
  "stage": "before" | "during", "error": "..."}``;
* ``{"id": n, "op": "ping"}`` -> ``{"id": n, "ok": true}`` when the bridge answers;
* ``{"op": "quit"}`` -> the worker exits.

If stdin closes without ``quit`` (the parent was killed), the worker kills the instance's process
group (``--soffice-pgid``) and deletes the pool's folder (``--cleanup``) before exiting, so no
LibreOffice and no profile outlives a dead parent. (The pool itself kills workers with SIGKILL.)

``stage == "before"`` means the UNO bridge was found dead before the deck was opened, so the
request can safely be retried on a restarted instance. Timeouts are the parent's job (it kills the
process groups); UNO calls themselves cannot time out.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import shutil
import signal
import sys
import time

# The protocol channel is a private duplicate of fd 1; fd 1 itself is pointed at stderr so that
# anything LibreOffice or pyuno prints can never corrupt the JSON stream.
_PROTO = os.fdopen(os.dup(1), "w", encoding="utf-8", buffering=1)
os.dup2(2, 1)

try:
    import uno
    from com.sun.star.beans import PropertyValue
except ImportError as _exc:  # pragma: no cover - depends on the machine
    _PROTO.write(json.dumps({"ready": False, "error": f"python3-uno is not installed: {_exc}"}))
    _PROTO.write("\n")
    _PROTO.flush()
    sys.exit(3)

CONNECT_POLL_S = 0.1
"""Seconds between attempts to reach the instance's UNO pipe while it starts."""

IMPORT_FILTER = "Impress MS PowerPoint 2007 XML"
"""Forced import filter: a renamed text or Writer file must fail to load, not open in Writer."""

EXPORT_FILTERS = {"pdf": "impress_pdf_Export", "svg": "impress_svg_Export"}

MACRO_NEVER_EXECUTE = 0
"""com.sun.star.document.MacroExecMode.NEVER_EXECUTE: decks are untrusted."""
UPDATE_NO_UPDATE = 0
"""com.sun.star.document.UpdateDocMode.NO_UPDATE: never refresh links when loading."""


def _prop(name: str, value: object) -> PropertyValue:
    p = PropertyValue()
    p.Name = name
    p.Value = value
    return p


def _describe(exc: BaseException) -> str:
    msg = getattr(exc, "Message", None) or str(exc)
    return f"{type(exc).__name__}: {msg}".strip()


def _is_disconnect(exc: BaseException) -> bool:
    name = type(exc).__name__
    text = _describe(exc).lower()
    return name == "DisposedException" or "bridge" in text or "disposed" in text


class Worker:
    def __init__(self, pipe: str, timeout: float) -> None:
        local = uno.getComponentContext()
        resolver = local.ServiceManager.createInstanceWithContext(
            "com.sun.star.bridge.UnoUrlResolver", local
        )
        url = f"uno:pipe,name={pipe};urp;StarOffice.ComponentContext"
        deadline = time.monotonic() + timeout
        while True:
            try:
                ctx = resolver.resolve(url)
                break
            except Exception as exc:  # NoConnectException while soffice starts
                if time.monotonic() > deadline:
                    raise TimeoutError(
                        f"no UNO connection on pipe {pipe} after {timeout:.0f} s: {_describe(exc)}"
                    ) from None
                time.sleep(CONNECT_POLL_S)
        self.ctx = ctx
        self.desktop = ctx.ServiceManager.createInstanceWithContext(
            "com.sun.star.frame.Desktop", ctx
        )
        self.version = self._version()

    def _version(self) -> str:
        try:
            cp = self.ctx.ServiceManager.createInstanceWithContext(
                "com.sun.star.configuration.ConfigurationProvider", self.ctx
            )
            node = cp.createInstanceWithArguments(
                "com.sun.star.configuration.ConfigurationAccess",
                (_prop("nodepath", "/org.openoffice.Setup/Product"),),
            )
            return f"{node.getByName('ooName')} {node.getByName('ooSetupVersionAboutBox')}"
        except Exception:
            return ""

    def ping(self) -> None:
        self.desktop.getFrames().getCount()

    def convert(self, src: str, dst: str, fmt: str) -> dict[str, object]:
        if fmt not in EXPORT_FILTERS:
            return {"ok": False, "kind": "request", "stage": "before", "error": f"format {fmt!r}"}
        try:
            self.ping()
        except Exception as exc:
            return {"ok": False, "kind": "disconnected", "stage": "before", "error": _describe(exc)}
        load_props = (
            _prop("Hidden", True),
            _prop("ReadOnly", True),
            _prop("FilterName", IMPORT_FILTER),
            _prop("MacroExecutionMode", MACRO_NEVER_EXECUTE),
            _prop("UpdateDocMode", UPDATE_NO_UPDATE),
        )
        try:
            doc = self.desktop.loadComponentFromURL(
                uno.systemPathToFileUrl(src), "_blank", 0, load_props
            )
        except Exception as exc:
            kind = "disconnected" if _is_disconnect(exc) else "load"
            return {"ok": False, "kind": kind, "stage": "during", "error": _describe(exc)}
        if doc is None:
            return {
                "ok": False,
                "kind": "load",
                "stage": "during",
                "error": "not a readable PowerPoint deck",
            }
        try:
            if not doc.supportsService("com.sun.star.presentation.PresentationDocument"):
                return {
                    "ok": False,
                    "kind": "load",
                    "stage": "during",
                    "error": "not a presentation",
                }
            store_props = [_prop("FilterName", EXPORT_FILTERS[fmt]), _prop("Overwrite", True)]
            if fmt == "pdf":
                # Pictures keep their pixels (no JPEG recompression, no downsampling), so the
                # render shows what the deck holds.
                filter_data = uno.Any(
                    "[]com.sun.star.beans.PropertyValue",
                    (
                        _prop("UseLosslessCompression", True),
                        _prop("ReduceImageResolution", False),
                        _prop("ExportNotesPages", False),
                    ),
                )
                store_props.append(_prop("FilterData", filter_data))
            uno.invoke(doc, "storeToURL", (uno.systemPathToFileUrl(dst), tuple(store_props)))
        except Exception as exc:
            kind = "disconnected" if _is_disconnect(exc) else "store"
            return {"ok": False, "kind": kind, "stage": "during", "error": _describe(exc)}
        finally:
            with contextlib.suppress(Exception):
                doc.close(True)
        return {"ok": True}


def _send(obj: dict[str, object]) -> None:
    _PROTO.write(json.dumps(obj) + "\n")
    _PROTO.flush()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--pipe", required=True, help="UNO pipe name the instance accepts on")
    ap.add_argument("--connect-timeout", type=float, default=60.0, help="seconds")
    ap.add_argument(
        "--soffice-pgid",
        type=int,
        default=0,
        help="process group of the instance, killed if the parent goes away without 'quit'",
    )
    ap.add_argument(
        "--cleanup",
        default="",
        help="the pool's temporary folder, deleted if the parent goes away without 'quit'",
    )
    args = ap.parse_args()
    try:
        return serve(args)
    finally:
        if not _QUIT:
            if args.soffice_pgid:
                _kill_instance(args.soffice_pgid)
            if args.cleanup:
                shutil.rmtree(args.cleanup, ignore_errors=True)


_QUIT = False
"""Set when the parent asked us to quit: it then stops the instance itself, in order."""


def _kill_instance(pgid: int) -> None:
    """The parent died (stdin closed without 'quit'): take the instance down with us."""
    with contextlib.suppress(OSError):
        os.killpg(pgid, signal.SIGKILL)


def serve(args: argparse.Namespace) -> int:
    global _QUIT
    try:
        worker = Worker(args.pipe, args.connect_timeout)
    except Exception as exc:
        _send({"ready": False, "error": _describe(exc)})
        return 3
    _send({"ready": True, "version": worker.version})
    for line in sys.stdin:
        try:
            req = json.loads(line)
        except ValueError:
            _send({"ok": False, "kind": "request", "stage": "before", "error": "not JSON"})
            continue
        rid = req.get("id")
        op = req.get("op")
        if op == "quit":
            _QUIT = True
            return 0
        if op == "ping":
            try:
                worker.ping()
                reply: dict[str, object] = {"ok": True}
            except Exception as exc:
                reply = {
                    "ok": False,
                    "kind": "disconnected",
                    "stage": "before",
                    "error": _describe(exc),
                }
        elif op == "convert":
            reply = worker.convert(str(req["src"]), str(req["dst"]), str(req.get("format", "pdf")))
        else:
            reply = {"ok": False, "kind": "request", "stage": "before", "error": f"op {op!r}"}
        reply["id"] = rid
        _send(reply)
    return 0


if __name__ == "__main__":
    sys.exit(main())
