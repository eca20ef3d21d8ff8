"""The ``openai`` backend: any OpenAI-compatible Chat Completions endpoint via ChatOpenAI.

Hosted APIs, vLLM, Ollama, OpenRouter: ``--model``, ``--base-url``, the key from
``OPENAI_API_KEY`` or ``--api-key``. Images travel as base64 data URLs in user messages (see
:mod:`judge.engine.agent`). Retries are ours, not the SDK's: the client runs with
``max_retries=0`` and
:class:`RetryingChatOpenAI` retries 408/409/429/5xx answers, timeouts and connection errors
with doubling waits capped at ``backoff_cap_s`` -- a server's ``retry-after`` is honoured only up
to that cap (the SDK would wait up to 120 s). What still fails raises :class:`BackendError`,
and every such error names the endpoint URL: HTTP errors, timeouts, refused connections and
answers that cannot be read (a body that is not JSON, JSON without ``choices``).
"""

from __future__ import annotations

import os
import time
from typing import Any

import openai
from langchain_core.callbacks import CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import BaseMessage
from langchain_core.outputs import ChatResult
from langchain_openai import ChatOpenAI
from pydantic import SecretStr

from judge.backends.base import BackendSettings
from judge.errors import BackendError
from judge.schema import StageName, Usage
from judge.tools.base import ToolContext

RETRYABLE_STATUS = frozenset({408, 409, 429})
"""HTTP statuses worth retrying besides every 5xx (timeout, conflict, rate limit)."""

DEFAULT_ENDPOINT = "https://api.openai.com/v1"
"""The endpoint the SDK uses when neither ``--base-url`` nor ``OPENAI_BASE_URL`` is set."""

UNREADABLE_ANSWER = (ValueError, KeyError, TypeError, AttributeError, IndexError)
"""What parsing a garbage body raises below the SDK (``JSONDecodeError`` is a ``ValueError``,
a JSON body without ``choices`` gives ``KeyError``/``TypeError``)."""

PLACEHOLDER_KEY = "EMPTY"
"""Sent when a self-hosted endpoint (``--base-url``) needs no key (the vLLM convention)."""


def _retry_after(exc: Exception) -> float | None:
    """Seconds a server asked us to wait (``retry-after-ms`` / ``retry-after``), if any."""
    response = getattr(exc, "response", None)
    headers = getattr(response, "headers", None)
    if headers is None:
        return None
    for key, scale in (("retry-after-ms", 0.001), ("retry-after", 1.0)):
        value = headers.get(key)
        if value is not None:
            try:
                return max(0.0, float(value) * scale)
            except ValueError:
                return None
    return None


def retryable(exc: Exception) -> bool:
    if isinstance(exc, openai.APIConnectionError):  # includes APITimeoutError
        return True
    if isinstance(exc, openai.APIStatusError):
        return exc.status_code in RETRYABLE_STATUS or exc.status_code >= 500
    return False


def describe(exc: Exception) -> str:
    if isinstance(exc, openai.APITimeoutError):
        return "request timed out"
    if isinstance(exc, openai.APIStatusError):
        return f"HTTP {exc.status_code}: {exc.message}"
    if isinstance(exc, openai.APIConnectionError):
        cause = exc.__cause__
        kind = type(cause).__name__ if cause else "no answer"
        return f"connection failed ({kind}: {cause or exc})"
    if isinstance(exc, openai.OpenAIError):
        return f"{type(exc).__name__}: {exc}"
    return f"answer could not be read ({type(exc).__name__}: {exc})"


class RetryingChatOpenAI(ChatOpenAI):
    """ChatOpenAI whose calls retry with capped backoff (the SDK's own retries are off)."""

    retry_attempts: int = 4
    backoff_s: float = 1.0
    backoff_cap_s: float = 20.0

    @property
    def endpoint(self) -> str:
        """The URL every error names (the SDK default when no base URL was given)."""
        return self.openai_api_base or DEFAULT_ENDPOINT

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        attempt = 0
        while True:
            try:
                return super()._generate(messages, stop=stop, run_manager=run_manager, **kwargs)
            except (openai.OpenAIError, *UNREADABLE_ANSWER) as exc:
                if not retryable(exc) or attempt >= self.retry_attempts:
                    tries = attempt + 1
                    raise BackendError(
                        f"{self.endpoint}: {describe(exc)} "
                        f"(after {tries} attempt{'s' if tries > 1 else ''})"
                    ) from exc
                wait = min(self.backoff_cap_s, self.backoff_s * (2**attempt))
                asked = _retry_after(exc)
                if asked is not None:
                    wait = min(self.backoff_cap_s, asked)
                time.sleep(wait)
                attempt += 1


class OpenAIBackend:
    """Chat models for an OpenAI-compatible endpoint."""

    name = "openai"
    deterministic = False

    def __init__(self, settings: BackendSettings) -> None:
        model = settings.model or os.environ.get("OPENAI_MODEL")
        if not model:
            raise BackendError("the openai judge needs a model name: --model NAME")
        base_url = settings.base_url or os.environ.get("OPENAI_BASE_URL")
        key = settings.api_key or os.environ.get("OPENAI_API_KEY")
        if not key:
            if not base_url:
                raise BackendError(
                    "the openai judge needs an API key: set OPENAI_API_KEY or pass --api-key"
                )
            key = PLACEHOLDER_KEY
        self.settings = settings
        self.model = model
        self.base_url = base_url
        self._key = key
        self._model = self._make_model()

    def chat_model(
        self, ctx: ToolContext, stage: StageName, round_index: int, case_id: str = ""
    ) -> BaseChatModel:
        """One shared client for every stage (its HTTP connection pool is thread-safe)."""
        return self._model

    def _make_model(self) -> RetryingChatOpenAI:
        s = self.settings
        return RetryingChatOpenAI(
            model=self.model,
            base_url=self.base_url,
            api_key=SecretStr(self._key),
            temperature=s.temperature,
            max_completion_tokens=s.max_tokens,
            timeout=s.timeout_s,
            max_retries=0,
            retry_attempts=s.retries,
            backoff_s=s.backoff_s,
            backoff_cap_s=s.backoff_cap_s,
        )

    def cache_params(self) -> dict[str, object] | None:
        s = self.settings
        return {
            "backend": self.name,
            "model": self.model,
            "base_url": self.base_url,
            "temperature": s.temperature,
            "max_tokens": s.max_tokens,
        }

    def cost(self, usage: Usage) -> float | None:
        return self.settings.prices.cost(usage)
