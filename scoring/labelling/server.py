"""The labelling page's local HTTP server: static page + JSON API, bound to 127.0.0.1 only.

One server serves one annotator (``judge label RUN --annotator NAME``); two annotators run two
servers on two ports over the same store. Routes (``<id>`` is an opaque case id)::

    GET  /                          the page (assets/label.html)
    GET  /assets/<file>             its script and style sheet
    GET  /api/state                 annotator, progress, order of opaque ids, first unlabelled
                                    case, the run's taxonomy (dimensions, categories, subtypes
                                    with descriptions; no tiers or points)
    GET  /api/cases/<id>            position in the order and this annotator's label, if any
    PUT  /api/cases/<id>/label      save a HumanLabel (POST too, for navigator.sendBeacon)
    GET  /api/cases/<id>/<image>    pair.png, reference.png or render.png (text chunks removed)

Blinding: no response carries a case id, a configuration or task name, a judge verdict or
finding, a file path, or another annotator's label; error messages name only the opaque id.
Requests whose Host header is not this server's (DNS rebinding) are refused.
"""

from __future__ import annotations

import json
import struct
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from importlib import resources
from pathlib import Path
from typing import Any, Protocol

from pydantic import ValidationError

from judge.errors import LabelsError
from judge.rundir import RUN_TAXONOMY, first_problem
from judge.schema import HumanLabel, Taxonomy
from scoring.labelling.study import Study

HOST = "127.0.0.1"
"""The only address the server binds (the page is for the machine it runs on)."""
MAX_BODY = 64 * 1024
"""Largest request body accepted (a label is well under 10 KB)."""
ASSETS = {
    "label.html": "text/html; charset=utf-8",
    "label.js": "text/javascript; charset=utf-8",
    "label.css": "text/css; charset=utf-8",
    "pairs.html": "text/html; charset=utf-8",
    "pairs.js": "text/javascript; charset=utf-8",
}
IMAGES = ("pair", "reference", "render")
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
PNG_KEPT_CHUNKS = frozenset(
    {
        b"IHDR",
        b"PLTE",
        b"IDAT",
        b"IEND",
        b"tRNS",
        b"gAMA",
        b"cHRM",
        b"sRGB",
        b"iCCP",
        b"sBIT",
        b"bKGD",
        b"pHYs",
    }
)
"""Chunks that draw the image; text, time and EXIF chunks (which may name a file) are dropped."""
SECURITY_HEADERS = {
    "Content-Security-Policy": "default-src 'self'; img-src 'self'; style-src 'self'; "
    "script-src 'self'; connect-src 'self'; frame-ancestors 'none'",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
}


@dataclass(frozen=True)
class Reply:
    status: int
    body: bytes
    content_type: str = "application/json"
    headers: dict[str, str] = field(default_factory=dict)


ApiHandler = Callable[[str, list[str], bytes], Reply]
"""A page's API: ``(method, path parts after /api, request body) -> Reply``."""


class Responder(Protocol):
    """What the HTTP layer serves: a page's routes (:class:`LabelPage`, ``PairPage``)."""

    def respond(self, method: str, path: str, body: bytes) -> Reply: ...


def asset_reply(name: str) -> Reply:
    """A file of ``assets/`` (the pages, scripts and style sheet), or 404."""
    if name not in ASSETS:
        return error_reply(HTTPStatus.NOT_FOUND, "no such asset")
    data = resources.files("scoring.labelling").joinpath("assets", name).read_bytes()
    return Reply(200, data, ASSETS[name], {"Cache-Control": "no-cache"})


def route(page: str, method: str, path: str, body: bytes, api: ApiHandler) -> Reply:
    """The routes both pages share: ``/`` is ``page``, ``/assets/<name>`` the packaged assets,
    ``/api/...`` goes to ``api(method, parts, body)``; a store failure is a 500, else 404."""
    parts = [p for p in path.split("?", 1)[0].split("/") if p]
    try:
        if method == "GET" and not parts:
            return asset_reply(page)
        if method == "GET" and parts == ["favicon.ico"]:
            return Reply(HTTPStatus.NO_CONTENT.value, b"", "image/x-icon")
        if method == "GET" and len(parts) == 2 and parts[0] == "assets":
            return asset_reply(parts[1])
        if parts[:1] == ["api"]:
            return api(method, parts[1:], body)
    except LabelsError as exc:
        return error_reply(HTTPStatus.INTERNAL_SERVER_ERROR, f"labels store: {exc}")
    return error_reply(HTTPStatus.NOT_FOUND, "no such page")


def png_reply(path: Path | None, what: str) -> Reply:
    """The PNG at ``path`` with its text chunks removed; errors name only ``what``."""
    if path is None:
        return error_reply(HTTPStatus.NOT_FOUND, f"no {what}")
    try:
        data = strip_png_metadata(path.read_bytes())
    except (OSError, LabelsError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) else str(exc)
        return error_reply(HTTPStatus.INTERNAL_SERVER_ERROR, f"{what}: {reason}")
    return Reply(200, data, "image/png", {"Cache-Control": "private, max-age=3600"})


def json_reply(status: int, payload: object) -> Reply:
    return Reply(status, json.dumps(payload).encode("utf-8"), headers={"Cache-Control": "no-store"})


def error_reply(status: HTTPStatus, message: str) -> Reply:
    return json_reply(status.value, {"error": message})


def strip_png_metadata(data: bytes) -> bytes:
    """The PNG ``data`` with only the chunks that draw it (no tEXt/iTXt/zTXt/tIME/eXIf)."""
    if not data.startswith(PNG_SIGNATURE):
        raise LabelsError("not a PNG image")
    out = [PNG_SIGNATURE]
    pos = len(PNG_SIGNATURE)
    while pos + 8 <= len(data):
        (length,) = struct.unpack(">I", data[pos : pos + 4])
        kind = data[pos + 4 : pos + 8]
        end = pos + 12 + length
        if end > len(data):
            raise LabelsError("truncated PNG chunk")
        if kind in PNG_KEPT_CHUNKS:
            out.append(data[pos:end])
        pos = end
        if kind == b"IEND":
            break
    return b"".join(out)


def taxonomy_payload(tax: Taxonomy) -> list[dict[str, Any]]:
    """The taxonomy as the form shows it: names and descriptions only (no tiers, no points)."""
    return [
        {
            "name": dim.name,
            "categories": [
                {
                    "name": cat.name,
                    "description": cat.description,
                    "subtypes": [
                        {"name": st.name, "description": st.description} for st in cat.subtypes
                    ],
                }
                for cat in dim.categories
            ],
        }
        for dim in tax.dimensions
    ]


def load_run_taxonomy(run: Path) -> Taxonomy:
    """The run's copy of its taxonomy, else the packaged one."""
    from taxonomy.loader import load_taxonomy

    copy = Path(run) / RUN_TAXONOMY
    return load_taxonomy(copy if copy.is_file() else None)


class LabelPage:
    """The routes of the page for one study (one annotator); no sockets, so tests can call
    :meth:`respond` directly."""

    def __init__(self, study: Study, taxonomy: Taxonomy) -> None:
        self.study = study
        self.taxonomy = taxonomy
        self.subtype_names = set(taxonomy.subtypes())
        self._taxonomy_json = taxonomy_payload(taxonomy)

    # -- routing ------------------------------------------------------------------------------

    def respond(self, method: str, path: str, body: bytes) -> Reply:
        return route("label.html", method, path, body, self._api)

    def _api(self, method: str, parts: list[str], body: bytes) -> Reply:
        if parts == ["state"] and method == "GET":
            return json_reply(200, self.state())
        if len(parts) < 2 or parts[0] != "cases":
            return error_reply(HTTPStatus.NOT_FOUND, "no such API route")
        oid = parts[1]
        if self.study.case_of(oid) is None:
            return error_reply(HTTPStatus.NOT_FOUND, f"no case {oid!r} in this study")
        if len(parts) == 2 and method == "GET":
            return json_reply(200, self.case(oid))
        if parts[2:] == ["label"] and method in ("PUT", "POST"):
            return self.save(oid, body)
        if len(parts) == 3 and method == "GET" and parts[2].endswith(".png"):
            return self.image(oid, parts[2].removesuffix(".png"))
        return error_reply(HTTPStatus.NOT_FOUND, "no such API route")

    # -- handlers -----------------------------------------------------------------------------

    def _labels(self) -> dict[str, HumanLabel]:
        """This annotator's labels by opaque id (only cases of the study)."""
        by_case = {s.case_id: s.label for s in self.study.store.labels(self.study.annotator)}
        return {
            oid: by_case[c.case_id] for oid, c in self.study.cases.items() if c.case_id in by_case
        }

    def _progress(self) -> dict[str, Any]:
        labels = self._labels()
        done = {oid for oid in self.study.order if oid in labels and labels[oid].gate}
        first_open = next((oid for oid in self.study.order if oid not in done), None)
        return {"done": len(done), "total": len(self.study.order), "current": first_open}

    def state(self) -> dict[str, Any]:
        return {
            "mode": "cases",
            "annotator": self.study.annotator,
            "order": self.study.order,
            "taxonomy": self._taxonomy_json,
            **self._progress(),
        }

    def case(self, oid: str) -> dict[str, Any]:
        stored = self.study.store.get(self.study.annotator, self.study.cases[oid].case_id)
        has_ref = self.study.cases[oid].reference is not None
        return {
            "id": oid,
            "position": self.study.order.index(oid) + 1,
            "total": len(self.study.order),
            "label": stored.label.model_dump(exclude={"version"}) if stored else None,
            "saved_at": stored.updated if stored else None,
            "images": {
                "pair": f"/api/cases/{oid}/pair.png",
                "reference": f"/api/cases/{oid}/reference.png" if has_ref else None,
                "render": f"/api/cases/{oid}/render.png",
            },
        }

    def save(self, oid: str, body: bytes) -> Reply:
        try:
            label = HumanLabel.model_validate_json(body)
        except ValidationError as exc:
            return error_reply(HTTPStatus.BAD_REQUEST, f"invalid label: {first_problem(exc)}")
        unknown = sorted(set(label.subtypes) - self.subtype_names)
        if unknown:
            return error_reply(
                HTTPStatus.BAD_REQUEST,
                f"unknown subtype(s) {', '.join(unknown)} (not in the run's taxonomy)",
            )
        stored = self.study.store.save(self.study.annotator, self.study.cases[oid].case_id, label)
        return json_reply(200, {"saved_at": stored.updated, **self._progress()})

    def image(self, oid: str, which: str) -> Reply:
        case = self.study.cases[oid]
        paths = {"pair": case.pair, "reference": case.reference, "render": case.render}
        if which not in paths:
            return error_reply(HTTPStatus.NOT_FOUND, f"no {which} image")
        return png_reply(paths[which], f"{which} image of case {oid!r}")


# ----------------------------------------------------------------------------------------------
# HTTP


def _handler(
    page: Responder, allowed_hosts: Callable[[], set[str]]
) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        server_version = "pptjudge-label"
        sys_version = ""

        def log_message(self, format: str, *args: Any) -> None:
            """Silent: library code never prints (the CLI prints the address)."""

        def _serve(self, method: str) -> None:
            if self.headers.get("Host", "") not in allowed_hosts():
                reply = error_reply(HTTPStatus.FORBIDDEN, "wrong Host header")
            else:
                raw_length = self.headers.get("Content-Length") or "0"
                length = int(raw_length) if raw_length.isdigit() else -1
                if length < 0:
                    reply = error_reply(HTTPStatus.BAD_REQUEST, "bad Content-Length")
                    self.close_connection = True
                elif length > MAX_BODY:
                    reply = error_reply(
                        HTTPStatus.REQUEST_ENTITY_TOO_LARGE, "request body too large"
                    )
                    self.close_connection = True
                else:
                    body = self.rfile.read(length) if length > 0 else b""
                    try:
                        reply = page.respond(method, self.path, body)
                    except Exception as exc:  # a bug must not hang the page: answer 500
                        reply = error_reply(
                            HTTPStatus.INTERNAL_SERVER_ERROR,
                            f"internal error ({type(exc).__name__})",
                        )
            self.send_response(reply.status)
            self.send_header("Content-Type", reply.content_type)
            self.send_header("Content-Length", str(len(reply.body)))
            for key, value in {**SECURITY_HEADERS, **reply.headers}.items():
                self.send_header(key, value)
            self.end_headers()
            if method != "HEAD":
                self.wfile.write(reply.body)

        def do_GET(self) -> None:
            self._serve("GET")

        def do_HEAD(self) -> None:
            self._serve("HEAD")

        def do_PUT(self) -> None:
            self._serve("PUT")

        def do_POST(self) -> None:
            self._serve("POST")

    return Handler


class LabelServer(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request: Any, client_address: Any) -> None:
        """Silent (library code never prints): a browser closing a connection mid-response is
        routine, and an error inside a route is answered with a 500 by the handler."""


def make_server(page: Responder, port: int) -> LabelServer:
    """A server for ``page`` bound to 127.0.0.1:``port`` (0 = any free port), not yet serving.

    Raises LabelsError when the port is taken.
    """
    holder: dict[str, set[str]] = {"hosts": set()}
    try:
        server = LabelServer((HOST, port), _handler(page, lambda: holder["hosts"]))
    except OSError as exc:
        raise LabelsError(
            f"cannot listen on {HOST}:{port}: {exc.strerror or exc} "
            "(another annotator's page? pass another --port)"
        ) from exc
    bound = server.server_address[1]
    holder["hosts"] = {f"{HOST}:{bound}", f"localhost:{bound}"}
    return server


def serve_in_thread(server: LabelServer) -> threading.Thread:
    """Serve ``server`` in a daemon thread (tests and embedding); stop with ``shutdown()``."""
    thread = threading.Thread(target=server.serve_forever, name="label-server", daemon=True)
    thread.start()
    return thread


def url_of(server: LabelServer) -> str:
    return f"http://{HOST}:{server.server_address[1]}/"
