"""A fake OpenAI-compatible Chat Completions server on 127.0.0.1, for real-HTTP tests.

It speaks ``POST /v1/chat/completions`` over real sockets so the real ``openai`` client (through
langchain-openai) is exercised end to end. Every request body is kept in :attr:`requests`; the
answer to each is decided by a *responder*: a function of the parsed request returning a
:class:`Reply`. :func:`scripted` makes a responder from a list of replies (in request order).
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class Reply:
    """One answer: a tool-calling completion, a text completion, or an HTTP error."""

    tool_calls: list[tuple[str, str]] = field(default_factory=list)
    """(function name, arguments as the raw JSON text the model produced)."""
    content: str | None = None
    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    delay_s: float = 0.0
    """Wait before answering (a slow server, for timeouts)."""
    prompt_tokens: int = 1000
    completion_tokens: int = 50
    raw: bytes | None = None
    """Send these bytes as the body instead of a completion (a garbage answer)."""
    cached_tokens: int | None = None
    """Prompt tokens served from the provider's cache (``prompt_tokens_details``)."""
    reasoning_tokens: int | None = None
    """Reasoning tokens, part of ``completion_tokens`` (``completion_tokens_details``)."""


def call(name: str, args: dict[str, Any] | str) -> tuple[str, str]:
    return (name, args if isinstance(args, str) else json.dumps(args))


def submit(args: dict[str, Any]) -> Reply:
    return Reply(tool_calls=[call("submit_verdict", args)])


Responder = Callable[[dict[str, Any]], Reply]


def scripted(replies: list[Reply]) -> Responder:
    """Answer the n-th request with the n-th reply (thread-safe); fail loudly past the end."""
    lock = threading.Lock()
    queue = list(replies)

    def respond(request: dict[str, Any]) -> Reply:
        with lock:
            if not queue:
                return Reply(status=400, content="fake server: script exhausted")
            return queue.pop(0)

    return respond


def by_turn(replies: list[Reply]) -> Responder:
    """Answer each conversation by how far it got: the n-th reply to its n-th model call (the
    same script for every task of a generation run; past the end, an HTTP 400)."""

    def respond(request: dict[str, Any]) -> Reply:
        n = turn_of(request)
        if n >= len(replies):
            return Reply(status=400, content="fake server: script exhausted")
        return replies[n]

    return respond


def stage_of(request: dict[str, Any]) -> str:
    """Which stage a request belongs to, from the rubric heading in its first user message."""
    for msg in request["messages"]:
        if msg["role"] == "user":
            text = msg["content"] if isinstance(msg["content"], str) else msg["content"][0]["text"]
            for stage in ("semantic", "render", "detail"):
                if f"-- {stage}" in text.split("\n", 1)[0]:
                    return stage
            break
    raise AssertionError("request without a stage rubric")


def turn_of(request: dict[str, Any]) -> int:
    """How many assistant answers the conversation already holds."""
    return sum(1 for m in request["messages"] if m["role"] == "assistant")


class FakeOpenAI:
    """The server; use :func:`serve` to run it in a thread."""

    def __init__(self, responder: Responder, port: int = 0) -> None:
        self.responder = responder
        self.requests: list[dict[str, Any]] = []
        self._lock = threading.Lock()
        self._n = 0
        self.in_flight = 0
        self.max_in_flight = 0
        """Most requests being answered at the same time (parallel rounds show as > 1)."""
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:  # keep test output clean
                pass

            def do_POST(self) -> None:  # noqa: N802 - http.server API
                length = int(self.headers.get("content-length", 0))
                body = json.loads(self.rfile.read(length) or b"{}")
                with outer._lock:
                    outer.requests.append(body)
                    outer._n += 1
                    n = outer._n
                    outer.in_flight += 1
                    outer.max_in_flight = max(outer.max_in_flight, outer.in_flight)
                reply = outer.responder(body)
                if reply.delay_s:
                    time.sleep(reply.delay_s)
                with outer._lock:
                    outer.in_flight -= 1
                if reply.status != 200:
                    payload = {"error": {"message": reply.content or "fake error", "type": "x"}}
                else:
                    payload = outer.completion(body, reply, n)
                data = json.dumps(payload).encode() if reply.raw is None else reply.raw
                try:
                    self.send_response(reply.status)
                    self.send_header("content-type", "application/json")
                    self.send_header("content-length", str(len(data)))
                    for k, v in reply.headers.items():
                        self.send_header(k, v)
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up (timeout test)

        self.server = ThreadingHTTPServer(("127.0.0.1", port), Handler)
        self.server.daemon_threads = True

    @property
    def base_url(self) -> str:
        host, port = self.server.server_address[:2]
        return f"http://{host!s}:{port}/v1"

    @staticmethod
    def completion(body: dict[str, Any], reply: Reply, n: int) -> dict[str, Any]:
        message: dict[str, Any] = {"role": "assistant", "content": reply.content}
        if reply.tool_calls:
            message["tool_calls"] = [
                {
                    "id": f"call_{n}_{i}",
                    "type": "function",
                    "function": {"name": nm, "arguments": a},
                }
                for i, (nm, a) in enumerate(reply.tool_calls)
            ]
        usage: dict[str, Any] = {
            "prompt_tokens": reply.prompt_tokens,
            "completion_tokens": reply.completion_tokens,
            "total_tokens": reply.prompt_tokens + reply.completion_tokens,
        }
        if reply.cached_tokens is not None:
            usage["prompt_tokens_details"] = {"cached_tokens": reply.cached_tokens}
        if reply.reasoning_tokens is not None:
            usage["completion_tokens_details"] = {"reasoning_tokens": reply.reasoning_tokens}
        return {
            "id": f"chatcmpl-{n}",
            "object": "chat.completion",
            "created": 0,
            "model": body.get("model", "fake"),
            "choices": [
                {
                    "index": 0,
                    "message": message,
                    "finish_reason": "tool_calls" if reply.tool_calls else "stop",
                }
            ],
            "usage": usage,
        }


@contextmanager
def serve(responder: Responder, port: int = 0) -> Iterator[FakeOpenAI]:
    """Run a fake server in a daemon thread for the duration of the block (``port`` 0: any
    free port; give a previous server's port to keep the same base URL, e.g. for cache keys)."""
    fake = FakeOpenAI(responder, port)
    thread = threading.Thread(target=fake.server.serve_forever, daemon=True)
    thread.start()
    try:
        yield fake
    finally:
        fake.server.shutdown()
        fake.server.server_close()
        thread.join(timeout=5)
