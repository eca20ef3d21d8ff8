"""On-disk cache of model answers, so a rerun or resume costs nothing for what was answered.

Key: sha256 of the model identity and parameters (:meth:`Backend.cache_params`), the round
index, the tools offered and the whole conversation so far (text, tool calls, tool results and
image bytes, which are inside the messages as data URLs). Value: the model's answer. Only
successful answers are stored: an exception never reaches :meth:`ModelCache.put`.
Entries are ``<dir>/<key[:2]>/<key>.json``, written atomically.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any, Protocol

from langchain_core.messages import AIMessage, AnyMessage, messages_from_dict, messages_to_dict
from langchain_core.runnables import Runnable

from judge.rundir import atomic_write_text

CACHE_FORMAT = 1
"""Bumped when the key or the stored value changes shape (old entries then miss)."""


def _canonical(obj: Any) -> str:
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), default=str)


def call_key(
    params: dict[str, object],
    round_index: int,
    messages: list[AnyMessage],
    bound_kwargs: dict[str, Any],
) -> str:
    """The cache key of one model call."""
    h = hashlib.sha256()
    h.update(_canonical({"format": CACHE_FORMAT, "params": params, "round": round_index}).encode())
    h.update(_canonical(bound_kwargs).encode())
    for msg in messages_to_dict(messages):
        data = msg.get("data", {})
        for volatile in ("id", "response_metadata", "usage_metadata"):
            data.pop(volatile, None)
        h.update(_canonical(msg).encode())
    return h.hexdigest()


class ModelCache:
    """A folder of cached answers."""

    def __init__(self, folder: Path) -> None:
        self.folder = Path(folder)

    def _path(self, key: str) -> Path:
        return self.folder / key[:2] / f"{key}.json"

    def get(self, key: str) -> AIMessage | None:
        path = self._path(key)
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            (msg,) = messages_from_dict([data["message"]])
        except (OSError, ValueError, KeyError, TypeError):
            return None  # missing or unreadable: a miss, never an error
        return msg if isinstance(msg, AIMessage) else None

    def put(self, key: str, message: AIMessage) -> None:
        (data,) = messages_to_dict([message])
        atomic_write_text(self._path(key), _canonical({"message": data}) + "\n")

    def caller(
        self, params: dict[str, object], round_index: int
    ) -> Callable[[Runnable[Any, Any], list[AnyMessage]], tuple[AIMessage, bool]]:
        """A ``call_model`` for :class:`judge.engine.agent.StageRuntime`, through this cache."""
        return model_caller(self, params, round_index)


class CallCache(Protocol):
    """Where cached answers are read and written: a :class:`ModelCache` folder, or a proxy to
    one held by the run's driver (:mod:`judge.engine.ray_executor`)."""

    def get(self, key: str) -> AIMessage | None: ...

    def put(self, key: str, message: AIMessage) -> None: ...


def model_caller(
    cache: CallCache | None,
    params: dict[str, object] | None,
    round_index: int,
    before_request: Callable[[], None] | None = None,
) -> Callable[[Runnable[Any, Any], list[AnyMessage]], tuple[AIMessage, bool]]:
    """A ``call_model``: the answer from ``cache`` when it holds one (no request is sent), else
    ``before_request()`` (the run's rate limit: it waits for a free request slot), then the
    model. ``cache`` None or ``params`` None: no cache."""

    def call(model: Runnable[Any, Any], messages: list[AnyMessage]) -> tuple[AIMessage, bool]:
        key = None
        if cache is not None and params is not None:
            bound = getattr(model, "kwargs", {}) or {}
            key = call_key(params, round_index, messages, bound)
            hit = cache.get(key)
            if hit is not None:
                return hit, True
        if before_request is not None:
            before_request()
        out = model.invoke(messages)
        if not isinstance(out, AIMessage):
            raise TypeError(f"chat model returned {type(out).__name__}, not an AIMessage")
        if cache is not None and key is not None:
            cache.put(key, out)
        return out, False

    return call
