"""The tool contract: typed functions the judge (model or builtin policy) may call.

A tool is a plain function ``fn(ctx: ToolContext, **arguments) -> ToolOutput``. Its docstring is
the description the model sees and its annotated parameters are the argument schema (derived
with pydantic). Argument errors and misuse the model can fix (a crop outside the image) come
back as a JSON error via :class:`ToolUsageError`; genuine bugs raise.

Adding a tool is a few lines: write the function in a module of ``judge/tools/`` and list it in
that module's ``TOOLS`` list (``judge/tools/__init__.py`` collects the lists).
"""

from __future__ import annotations

import copy
import hashlib
import inspect
import json
import math
import threading
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar, cast, get_type_hints

import numpy as np
from pydantic import BaseModel, ConfigDict, ValidationError, create_model

from judge.schema import ObjectTree, PairGeometry
from judge.tools.thresholds import READ_MAX_ZOOM, READ_MIN_SIDE_PX

T = TypeVar("T")


class ToolUsageError(Exception):
    """Misuse the model can fix; its message goes back to the model as ``{"error": ...}``."""


@dataclass
class ToolContext:
    """Everything a tool may look at for one case. Images are loaded lazily and cached."""

    pptx: Path
    reference_png: Path
    """Full-resolution reference image."""
    render_png: Path
    """Full-resolution LibreOffice render of the candidate."""
    pair_png: Path
    pair: PairGeometry
    object_tree: ObjectTree | None = None
    render_svg: Callable[[], bytes] | None = None
    """Returns LibreOffice's SVG export of the deck (for text fit); None when unavailable."""
    cache: dict[str, Any] = field(default_factory=dict)
    """Per-case memo for expensive measurements shared across stages and rounds."""

    def image(self, which: str) -> np.ndarray:
        """BGR uint8 array of ``reference``, ``candidate`` or ``pair`` (cached).

        The reference and the candidate come enlarged :meth:`zoom` times (the reading frame:
        every reading and measurement works in it); :func:`judge.tools.ocr.box_to_frame` and
        :func:`judge.tools.view.to_image_box` convert to and from the image's own pixels."""
        import cv2

        key = f"image:{which}"
        if key not in self.cache:
            path = {
                "reference": self.reference_png,
                "candidate": self.render_png,
                "pair": self.pair_png,
            }.get(which)
            if path is None:
                raise ToolUsageError(
                    f"unknown image {which!r}: use 'reference', 'candidate' or 'pair'"
                )
            img = cv2.imread(str(path), cv2.IMREAD_COLOR)
            if img is None:
                raise ToolUsageError(f"image {which!r} could not be read from {path}")
            k = read_zoom(img.shape[1], img.shape[0]) if which != "pair" else 1
            if k > 1:
                img = cv2.resize(
                    img, (img.shape[1] * k, img.shape[0] * k), interpolation=cv2.INTER_NEAREST
                )
            self.cache[f"zoom:{which}"] = k
            self.cache[key] = img
        cached: np.ndarray = self.cache[key]
        return cached

    def zoom(self, which: str) -> int:
        """Whole factor by which :meth:`image` enlarges ``which`` (1: read as it is)."""
        if f"zoom:{which}" not in self.cache:
            self.image(which)
        return int(self.cache[f"zoom:{which}"])


def read_zoom(width: int, height: int) -> int:
    """The whole factor an image of ``width`` x ``height`` px is read at (``READ_MIN_SIDE_PX``)."""
    longest = max(width, height, 1)
    return max(1, min(READ_MAX_ZOOM, math.ceil(READ_MIN_SIDE_PX / longest)))


SHARED_READING_KEYS = frozenset(
    f"{what}:reference" for what in ("ocr", "blobs", "text", "lines", "graph")
)
"""Memo keys whose values depend on the reference image alone: shared between the cases (and
rounds) of one reference within a process, see :func:`memo`."""
SHARED_READINGS_MAX = 16
"""References whose readings a process keeps (least recently used dropped first; a 2000-px
figure's readings take about half a megabyte)."""


@dataclass
class _Readings:
    owner: object
    """The case that read them first: only it adds to them, so they stay one consistent set."""
    values: dict[str, Any] = field(default_factory=dict)
    copies: dict[int, Any] = field(default_factory=dict)
    """``copy.deepcopy`` memo of the stored values: objects shared between two readings (the
    graph's blobs are the blobs') stay shared in the copies."""


_READINGS: OrderedDict[str, _Readings] = OrderedDict()
_READINGS_LOCK = threading.Lock()


def clear_shared_readings() -> None:
    """Forget every reference reading kept by :func:`memo` (tests that change the reader)."""
    with _READINGS_LOCK:
        _READINGS.clear()


def _reference_digest(ctx: ToolContext) -> str | None:
    """The reference file's content hash (None when it cannot be read: the reading then fails
    in :meth:`ToolContext.image` with its own error)."""
    if "_reference_digest" not in ctx.cache:
        try:
            data = ctx.reference_png.read_bytes()
        except OSError:
            return None
        ctx.cache["_reference_digest"] = hashlib.sha256(data).hexdigest()
    return str(ctx.cache["_reference_digest"])


def _shared_reading(ctx: ToolContext, key: str, compute: Callable[[], T]) -> T:
    """The reference reading ``key``: a private copy of the one another case of the same
    reference image read, or read here (and kept, when this case read the reference first)."""
    digest = _reference_digest(ctx)
    if digest is None:
        return compute()
    token = ctx.cache.setdefault("_readings_token", object())
    with _READINGS_LOCK:
        kept = _READINGS.get(digest)
        if kept is not None:
            _READINGS.move_to_end(digest)
            if key in kept.values:
                # one deepcopy memo per case keeps the case's copies sharing what the originals
                # shared; the kept values are never handed out, so no case sees another's edits
                mine = ctx.cache.setdefault("_readings_copies", {})
                return cast(T, copy.deepcopy(kept.values[key], mine))
        else:
            kept = _Readings(owner=token)
            _READINGS[digest] = kept
            while len(_READINGS) > SHARED_READINGS_MAX:
                _READINGS.popitem(last=False)
    value = compute()
    if kept.owner is token:
        with _READINGS_LOCK:
            if key not in kept.values:
                kept.values[key] = copy.deepcopy(value, kept.copies)
    return value


def memo(ctx: ToolContext, key: str, compute: Callable[[], T]) -> T:
    """Per-case memo in ``ctx.cache``; computations of one case are serialised by a lock.

    Readings of the reference image alone (:data:`SHARED_READING_KEYS`) are also kept per
    process by the image's content, so the other cases of the same reference (a benchmark
    judges many candidates of each) copy them instead of reading the reference again."""
    lock = ctx.cache.setdefault("_memo_lock", threading.RLock())
    with lock:
        if key not in ctx.cache:
            if key in SHARED_READING_KEYS:
                ctx.cache[key] = _shared_reading(ctx, key, compute)
            else:
                ctx.cache[key] = compute()
        return cast(T, ctx.cache[key])


@dataclass
class ToolOutput:
    """What a tool returns: JSON for the model, and optionally images (BGR arrays) to show."""

    data: dict[str, Any]
    images: list[np.ndarray] = field(default_factory=list)


class _Args(BaseModel):
    model_config = ConfigDict(extra="forbid")


@dataclass(frozen=True)
class Tool:
    """A registered tool: name, description (docstring) and argument model from the signature."""

    name: str
    description: str
    fn: Callable[..., ToolOutput]
    args_model: type[BaseModel]

    @classmethod
    def from_function(cls, fn: Callable[..., ToolOutput], name: str | None = None) -> Tool:
        sig = inspect.signature(fn)
        hints = get_type_hints(fn)
        fields: dict[str, Any] = {}
        for pname, param in list(sig.parameters.items())[1:]:  # skip ctx
            annotation = hints.get(pname, Any)
            default = ... if param.default is inspect.Parameter.empty else param.default
            fields[pname] = (annotation, default)
        model = create_model(f"{fn.__name__}_args", __base__=_Args, **fields)
        doc = inspect.cleandoc(fn.__doc__ or "").strip()
        if not doc:
            raise ValueError(f"tool {fn.__name__} needs a docstring: it is what the model sees")
        return cls(name=name or fn.__name__, description=doc, fn=fn, args_model=model)

    def json_schema(self) -> dict[str, Any]:
        """OpenAI function-calling schema for this tool."""
        params = self.args_model.model_json_schema()
        params.pop("title", None)
        return {
            "type": "function",
            "function": {"name": self.name, "description": self.description, "parameters": params},
        }

    def call(self, ctx: ToolContext, arguments: dict[str, Any] | str | None) -> ToolOutput:
        """Validate arguments and run; usage errors come back as ``{"error": ...}`` JSON."""
        if isinstance(arguments, str):
            try:
                arguments = json.loads(arguments) if arguments.strip() else {}
            except json.JSONDecodeError as exc:
                return ToolOutput({"error": f"arguments are not valid JSON: {exc}"})
        if arguments is None:
            arguments = {}
        if not isinstance(arguments, dict):
            return ToolOutput({"error": "arguments must be a JSON object"})
        try:
            parsed = self.args_model.model_validate(arguments)
        except ValidationError as exc:
            msgs = [f"{'.'.join(str(p) for p in e['loc'])}: {e['msg']}" for e in exc.errors()]
            return ToolOutput({"error": f"invalid arguments for {self.name}: " + "; ".join(msgs)})
        try:
            return self.fn(ctx, **parsed.model_dump())
        except ToolUsageError as exc:
            return ToolOutput({"error": str(exc)})


def tools_by_name(tools: list[Tool]) -> dict[str, Tool]:
    out: dict[str, Tool] = {}
    for t in tools:
        if t.name in out:
            raise ValueError(f"two tools are named {t.name!r}")
        out[t.name] = t
    return out
