"""Judge backends: where a stage's chat model comes from.

A backend hands the stage loop (:mod:`judge.engine.agent`) a LangChain chat model that supports
``bind_tools``; the graph is the same for every backend:

* ``openai`` -- :class:`langchain_openai.ChatOpenAI` against any OpenAI-compatible endpoint
  (:mod:`judge.backends.openai`);
* ``replay`` -- re-emits a recorded trajectory or a hand-written script
  (:mod:`judge.backends.replay`);
* ``builtin`` -- the deterministic, model-free policy of :mod:`judge.backends.builtin`.

Deterministic backends (``builtin``, ``replay`` of one script) give the same answer every round:
the graph computes round 0 once and records the other rounds as identical copies.
"""

from __future__ import annotations

import json
import os
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Literal, Protocol

from langchain_core.language_models import BaseChatModel

from judge.errors import BackendError
from judge.schema import Rubric, StageName, Taxonomy, Usage
from judge.tools.base import ToolContext

BackendName = Literal["openai", "replay", "builtin"]
BACKEND_NAMES: tuple[str, ...] = ("openai", "replay", "builtin")

TOKENS_PER_PRICE_UNIT = 1_000_000
"""Prices are quoted in USD per million tokens, as providers publish them."""


@dataclass(frozen=True)
class Prices:
    """USD per million input / output tokens (None: cost unknown, not zero)."""

    input_per_m: float | None = None
    output_per_m: float | None = None

    def cost(self, usage: Usage) -> float | None:
        if self.input_per_m is None and self.output_per_m is None:
            return None
        return (
            usage.input_tokens * (self.input_per_m or 0.0)
            + usage.output_tokens * (self.output_per_m or 0.0)
        ) / TOKENS_PER_PRICE_UNIT


def load_prices(path: Path, model: str | None) -> Prices:
    """Read a price table: ``{"<model>": {"input": USD/1M, "output": USD/1M}, ...}``.

    A file that is one ``{"input": .., "output": ..}`` object applies to every model.
    """
    path = Path(path)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise BackendError(f"{path}: cannot read price table: {exc}") from exc
    if not isinstance(data, dict):
        raise BackendError(f"{path}: a price table is a JSON object")
    entry: Any = data if "input" in data or "output" in data else data.get(model or "")
    if entry is None:
        raise BackendError(f"{path}: no prices for model {model!r} (keys: {sorted(data)})")
    try:
        return Prices(
            input_per_m=float(entry["input"]) if "input" in entry else None,
            output_per_m=float(entry["output"]) if "output" in entry else None,
        )
    except (TypeError, ValueError) as exc:
        raise BackendError(f"{path}: prices for {model!r} must be numbers: {exc}") from exc


@dataclass(frozen=True)
class BackendSettings:
    """Everything a backend is configured with (recorded in ``run.json`` minus the key)."""

    model: str | None = None
    base_url: str | None = None
    api_key: str | None = field(default=None, repr=False)
    temperature: float = 0.0
    max_tokens: int = 2048
    timeout_s: float = 120.0
    """Per-request timeout (seconds)."""
    retries: int = 4
    """Retries of one model call on 429, 5xx, timeouts and connection errors."""
    backoff_s: float = 1.0
    """First retry wait (seconds); doubles each retry."""
    backoff_cap_s: float = 20.0
    """Longest wait between retries, also the cap on a server's ``retry-after`` (seconds)."""
    prices: Prices = field(default_factory=Prices)
    replay_source: str | None = None
    """``replay``: a run directory, a case directory or one trajectory/script file."""

    def public(self) -> dict[str, object]:
        """The settings for ``run.json`` (no API key)."""
        data = asdict(self)
        data.pop("api_key", None)
        return data


class Backend(Protocol):
    """What the graph needs from a backend."""

    name: str
    deterministic: bool
    """True when every round gives the same answer (round 0 is then computed once)."""

    def chat_model(
        self, ctx: ToolContext, stage: StageName, round_index: int, case_id: str = ""
    ) -> BaseChatModel:
        """The chat model for one stage of one round (tools are bound by the caller)."""
        ...

    def cache_params(self) -> dict[str, object] | None:
        """Model identity and parameters for the model-call cache key; None = do not cache."""
        ...

    def cost(self, usage: Usage) -> float | None:
        """USD for one call's usage, or None when unknown."""
        ...


class BuiltinBackend:
    """The model-free judge policy of :mod:`judge.backends.builtin` (imported lazily)."""

    name = "builtin"
    deterministic = True

    def __init__(self, taxonomy: Taxonomy, rubric: Rubric | None = None) -> None:
        try:
            from judge.backends.builtin import BuiltinJudgeModel
        except ImportError as exc:
            raise BackendError(f"the builtin judge is not available: {exc}") from exc
        self._cls = BuiltinJudgeModel
        self.taxonomy = taxonomy
        self.rubric = rubric

    def chat_model(
        self, ctx: ToolContext, stage: StageName, round_index: int, case_id: str = ""
    ) -> BaseChatModel:
        return self._cls(ctx, stage, self.taxonomy, rubric=self.rubric)

    def cache_params(self) -> dict[str, object] | None:
        return None

    def cost(self, usage: Usage) -> float | None:
        return 0.0


def endpoint_configured(settings: BackendSettings) -> bool:
    """True when a model endpoint is configured by flags or ``OPENAI_BASE_URL``."""
    return bool(settings.base_url or settings.model or os.environ.get("OPENAI_BASE_URL"))


def default_backend_name(settings: BackendSettings) -> BackendName:
    """``openai`` when a model endpoint is configured, else ``builtin``."""
    return "openai" if endpoint_configured(settings) else "builtin"


def make_backend(
    name: str, settings: BackendSettings, taxonomy: Taxonomy, rubric: Rubric | None = None
) -> Backend:
    """Construct a backend by name; raises :class:`BackendError` for bad configuration.

    ``rubric``: the ReFigBench rubric of a ``--protocol refigbench`` run (the builtin judge
    measures its axes)."""
    if name == "openai":
        from judge.backends.openai import OpenAIBackend

        return OpenAIBackend(settings)
    if name == "replay":
        from judge.backends.replay import ReplayBackend

        if not settings.replay_source:
            raise BackendError("the replay judge needs a source: --replay-from PATH")
        return ReplayBackend(Path(settings.replay_source))
    if name == "builtin":
        return BuiltinBackend(taxonomy, rubric)
    raise BackendError(f"unknown judge backend {name!r}: use one of {', '.join(BACKEND_NAMES)}")
