"""Round trajectories: every message, tool call, tool result and verdict of a round, as JSONL.

A trajectory is ``rounds/round-<k>.trajectory.jsonl`` in the case folder, one
:class:`judge.schema.TrajectoryEvent` per line. Images (the pair shown to the model, the crops
tools returned) are stored once under the case's ``images/<sha256>.png`` and referenced by hash.

Event kinds, per stage, in order:

* ``message`` -- ``role`` ``system``/``user`` (the prompt; ``images`` = the pair), ``assistant``
  (one per model answer: ``content`` = its text, ``usage`` = its tokens), ``user`` nudges;
* ``tool_call`` -- a measurement call the model made (``tool_name``, ``tool_call_id``,
  ``arguments``; arguments that were not JSON are kept as ``{"__raw__": "<text>"}``);
* ``tool_result`` -- what the call returned (``result`` = the tool's JSON, ``images``);
* ``submit`` / ``invalid_submit`` -- a ``submit_verdict`` call (``arguments`` = the verdict) that
  was accepted / rejected (``result`` = ``{"error": ...}`` sent back to the model);
* ``error`` -- why the stage ended without a verdict (``content``).
"""

from __future__ import annotations

import hashlib
import threading
import time
from pathlib import Path
from typing import Any

from judge.rundir import atomic_write_bytes, atomic_write_text
from judge.schema import EventKind, TrajectoryEvent, TrajectoryStage, Usage

RAW_ARGUMENTS_KEY = "__raw__"
"""Key under which tool-call arguments that were not a JSON object are recorded."""


def sha256_bytes(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


class ImageStore:
    """Content-addressed PNG store of one case (``images/<sha256>.png``), written once each."""

    def __init__(self, folder: Path | None) -> None:
        self.folder = Path(folder) if folder is not None else None
        self._lock = threading.Lock()
        self._memory: dict[str, bytes] = {}

    def put(self, png: bytes) -> str:
        """Store PNG bytes; return their sha256."""
        digest = sha256_bytes(png)
        with self._lock:
            if self.folder is None:
                self._memory.setdefault(digest, png)
                return digest
            path = self.folder / f"{digest}.png"
            if not path.exists():
                atomic_write_bytes(path, png)
        return digest

    def get(self, digest: str) -> bytes:
        if self.folder is None:
            return self._memory[digest]
        return (self.folder / f"{digest}.png").read_bytes()


class Recorder:
    """Collects the events of one round (thread-safe; stages of a round run in sequence)."""

    def __init__(self, images: ImageStore) -> None:
        self.images = images
        self.events: list[TrajectoryEvent] = []
        self._t0 = time.perf_counter()
        self._lock = threading.Lock()

    def add(
        self,
        stage: TrajectoryStage,
        kind: EventKind,
        *,
        role: str | None = None,
        content: str | None = None,
        tool_name: str | None = None,
        tool_call_id: str | None = None,
        arguments: dict[str, Any] | None = None,
        result: dict[str, Any] | list[Any] | None = None,
        images: list[str] | None = None,
        usage: Usage | None = None,
    ) -> TrajectoryEvent:
        with self._lock:
            event = TrajectoryEvent(
                seq=len(self.events),
                stage=stage,
                kind=kind,
                t=round(time.perf_counter() - self._t0, 4),
                role=role,
                content=content,
                tool_name=tool_name,
                tool_call_id=tool_call_id,
                arguments=arguments,
                result=result,
                images=images or [],
                usage=usage,
            )
            self.events.append(event)
        return event

    def write(self, path: Path) -> None:
        write_trajectory(path, self.events)


def write_trajectory(path: Path, events: list[TrajectoryEvent]) -> None:
    """Write events as JSONL, atomically."""
    atomic_write_text(Path(path), "".join(e.model_dump_json() + "\n" for e in events))


def read_trajectory(path: Path, problems: list[str] | None = None) -> list[TrajectoryEvent]:
    """Read a recorded trajectory.

    Strict by default (replay): every line must be a full :class:`TrajectoryEvent`, else
    :class:`ReplayMismatch`. With a ``problems`` list (the HTML report), an unreadable file or
    line is described there (naming file and line) and skipped, and the readable events are
    returned.
    """
    from judge.errors import ReplayMismatch

    try:
        lines = Path(path).read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        if problems is None:
            raise
        problems.append(f"{path}: unreadable ({exc})")
        return []
    events: list[TrajectoryEvent] = []
    for lineno, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            events.append(TrajectoryEvent.model_validate_json(line))
        except ValueError as exc:
            if problems is None:
                raise ReplayMismatch(f"{path}:{lineno}: not a trajectory event: {exc}") from exc
            first = str(exc).splitlines()[0]
            problems.append(f"{path}:{lineno}: not a trajectory event ({first})")
    return events
