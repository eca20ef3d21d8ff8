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

The protocol, settings and prices are in :mod:`judge.backends.base`; this module is the factory.
"""

from __future__ import annotations

import os
from pathlib import Path

from langchain_core.language_models import BaseChatModel

from judge.backends.base import (
    BACKEND_NAMES,
    TOKENS_PER_PRICE_UNIT,
    Backend,
    BackendName,
    BackendSettings,
    Prices,
    load_prices,
)
from judge.errors import BackendError
from judge.schema import Rubric, StageName, Taxonomy, Usage
from judge.tools.base import ToolContext

__all__ = [
    "BACKEND_NAMES",
    "TOKENS_PER_PRICE_UNIT",
    "Backend",
    "BackendName",
    "BackendSettings",
    "BuiltinBackend",
    "Prices",
    "default_backend_name",
    "endpoint_configured",
    "load_prices",
    "make_backend",
]


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
