"""The generation agent runner: a coding agent rebuilds every task's reference as a deck.

One *episode* per task is a LangGraph tool-calling loop::

    START -> model --(tool calls)--> tools --(submitted / stopped)--> END
               |                       '---------------------------> model
               |--(no tool call)--> nudge -> model (or END after the idle budget)
               '--(model error / --max-turns spent)-----------------> END

with four tools whose names and arguments are fixed (external harnesses and tests script them):
``run_python(code)`` (the program runs in :class:`judge.sandbox.Sandbox`, in a working folder
holding copies of ``reference.png`` and ``assets/``; the deck is always ``deck.pptx``),
``render()`` (the warm LibreOffice pool renders the deck; the image and the Stage 0 report come
back: a **review**), ``view_reference(x, y, w, h)`` (a full-resolution crop) and ``submit()``.
A **revision** is a ``run_python`` call after which ``deck.pptx`` differs from before.

Per task the runner writes (see :func:`generation_paths`) the candidate
``BENCH/candidates/<config>/<task>.pptx`` (only when the agent submitted a deck), the program
that last changed it, the :class:`judge.schema.GenerationRecord` and the trajectory (the judge's
format and content-addressed image store). A finished record is reused on a rerun (resume);
records of model failures are retried. Model answers are cached on disk like ``judge run``'s.
An episode that fails (model error, ``--max-turns`` spent, the same failing call repeated, no
submit, no deck) is recorded with its reason and the batch goes on.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import operator
import shutil
import tempfile
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass, field
from pathlib import Path
from string import Template
from typing import Annotated, Any, Literal, TypedDict

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, AnyMessage, HumanMessage, SystemMessage, ToolMessage
from langchain_core.runnables import Runnable, RunnableConfig
from langgraph.graph import START, StateGraph
from langgraph.graph.state import CompiledStateGraph

from generation.records import (
    RETRIED_STATUSES,
    GenerationPaths,
    generation_cost,
    generation_paths,
    read_record,
    task_ids,
)
from judge.engine.agent import image_block
from judge.engine.cache import ModelCache
from judge.engine.trajectory import ImageStore, Recorder
from judge.errors import BenchmarkError, PptJudgeError
from judge.rundir import atomic_write_bytes, atomic_write_text, load_task, write_model
from judge.sandbox import Sandbox, SandboxLimits, prepare_folder, read_regular_file
from judge.schema import (
    GenerationPrices,
    GenerationRecord,
    GenerationStatus,
    GenerationTokens,
    Usage,
)

PROMPT_FILE = Path(__file__).parent / "prompts" / "task.md"
DECK = "deck.pptx"
"""The deck's name inside the working folder (fixed by the task contract)."""
TOOL_NAMES = ("run_python", "render", "view_reference", "submit")
MAX_DECK_BYTES = 200 * 1024**2
"""A deck larger than this is not read back from the sandbox folder."""
CACHE_DIR = ".cache"
"""Model-answer cache under ``BENCH/generation/``."""
EFFORTS = ("low", "medium", "high")


def task_prompt(width: int, height: int, assets: list[str]) -> str:
    """The task contract (``generation/prompts/task.md``) filled for one task."""
    if assets:
        listing = "\n".join(f"  - `assets/{a}`" for a in assets)
        lines = "- Approved assets (use each unchanged where the reference shows it):\n" + listing
    else:
        lines = "- This task has no approved assets: draw everything as native objects."
    text = PROMPT_FILE.read_text(encoding="utf-8")
    return Template(text).substitute(width=width, height=height, assets=lines).strip() + "\n"


def tool_schemas() -> list[dict[str, Any]]:
    """OpenAI function schemas of the four tools (names and arguments fixed)."""

    def fn(name: str, desc: str, props: dict[str, Any]) -> dict[str, Any]:
        params = {"type": "object", "properties": props, "required": list(props)}
        return {
            "type": "function",
            "function": {"name": name, "description": desc, "parameters": params},
        }

    pixel = {"type": "integer", "description": "pixels of the reference image"}
    return [
        fn(
            "run_python",
            "Run a Python program in the task folder (sandboxed: no network, limited time, "
            "memory, file size and processes). Write the deck to deck.pptx. Returns exit_code, "
            "stdout, stderr and whether deck.pptx changed.",
            {"code": {"type": "string", "description": "the whole program"}},
        ),
        fn(
            "render",
            "Render the current deck.pptx with LibreOffice: returns the image and the Stage 0 "
            "artifact checks.",
            {},
        ),
        fn(
            "view_reference",
            "A crop of the reference image at full resolution: x, y = top-left corner, w, h = "
            "size, in pixels of the reference.",
            {"x": pixel, "y": pixel, "w": pixel, "h": pixel},
        ),
        fn("submit", "End the task with the current deck.pptx as your answer.", {}),
    ]


# ------------------------------------------------------------------------------------------
# settings and the chat model


@dataclass(frozen=True)
class GenerateSettings:
    """Everything ``judge generate`` is configured with (recorded per task, minus the key)."""

    config_id: str
    model: str
    base_url: str | None = None
    api_key: str | None = field(default=None, repr=False)
    effort: str | None = None
    """Sent as ``reasoning_effort`` (``low``/``medium``/``high``); None: not sent."""
    max_turns: int = 30
    """Model answers per episode."""
    max_idle_turns: int = 2
    """Answers with no tool call before the episode ends as ``no_submit``."""
    repeat_limit: int = 3
    """The same failing tool call this many times in a row ends the episode."""
    concurrency: int = 2
    """Tasks generated at the same time."""
    workers: int = 1
    """LibreOffice instances for ``render()``."""
    render_timeout_s: float = 60.0
    max_tokens: int = 8192
    timeout_s: float = 300.0
    retries: int = 4
    prices: GenerationPrices = field(default_factory=GenerationPrices)
    limits: SandboxLimits = field(default_factory=SandboxLimits)
    cache: bool = True
    keep_work: bool = False
    """Keep each task's sandbox folder after the episode (default: deleted)."""
    chat_model: Callable[[], BaseChatModel] | None = None
    """Builds the chat model (tests inject one); default: ChatOpenAI for ``model``."""


def openai_chat_model(s: GenerateSettings) -> BaseChatModel:
    """RetryingChatOpenAI against the configured endpoint (key from flags or the env)."""
    import os

    from pydantic import SecretStr

    from judge.backends.openai import PLACEHOLDER_KEY, RetryingChatOpenAI

    base_url = s.base_url or os.environ.get("OPENAI_BASE_URL")
    key = s.api_key or os.environ.get("OPENAI_API_KEY")
    if not key:
        if not base_url:
            raise BenchmarkError("judge generate needs an API key: OPENAI_API_KEY or --api-key")
        key = PLACEHOLDER_KEY
    extra: dict[str, Any] = {}
    if s.effort is not None:
        extra["reasoning_effort"] = s.effort
    return RetryingChatOpenAI(
        model=s.model,
        base_url=base_url,
        api_key=SecretStr(key),
        max_completion_tokens=s.max_tokens,
        timeout=s.timeout_s,
        max_retries=0,
        retry_attempts=s.retries,
        **extra,
    )


# ------------------------------------------------------------------------------------------
# one episode


@dataclass
class Episode:
    """The runtime of one task's episode (travels in ``config["configurable"]``)."""

    paths: GenerationPaths
    reference: Path
    assets_dir: Path | None
    sandbox: Sandbox
    model: Runnable[Any, Any]
    call_model: Callable[[Runnable[Any, Any], list[AnyMessage]], tuple[AIMessage, bool]]
    recorder: Recorder
    render: Callable[[Path, Path], object] | None
    """pool.render(deck, out_png); None: ``render()`` reports that no renderer is available."""
    settings: GenerateSettings
    scratch: Path
    """A root-only folder outside the sandbox for render copies."""
    tokens: GenerationTokens = field(default_factory=GenerationTokens)
    model_calls: int = 0
    cached_calls: int = 0
    reviews: int = 0
    revisions: int = 0
    run_python_calls: int = 0
    sandbox_failures: int = 0
    violations: list[str] = field(default_factory=list)
    program: str | None = None
    """The last program after which the deck changed."""
    submitted: bool = False

    def deck_digest(self) -> str | None:
        data = read_regular_file(self.sandbox.folder / DECK, MAX_DECK_BYTES)
        return None if data is None else hashlib.sha256(data).hexdigest()

    # -- tools: each returns (JSON for the model, PNG images to show, failed?) --------------

    def run_python(self, args: dict[str, Any]) -> tuple[dict[str, Any], list[bytes], bool]:
        code = args.get("code")
        if not isinstance(code, str) or not code.strip():
            return {"error": "run_python needs code: a non-empty string"}, [], True
        before = self.deck_digest()
        out = self.sandbox.run(code)
        after = self.deck_digest()
        self.run_python_calls += 1
        changed = after is not None and after != before
        if changed:
            self.revisions += 1
            self.program = code
        if out.failed:
            self.sandbox_failures += 1
            if out.violation:
                self.violations.append(out.violation)
        result: dict[str, Any] = {
            "exit_code": out.exit_code,
            "stdout": out.stdout,
            "stderr": out.stderr,
            "deck_exists": after is not None,
            "deck_changed": changed,
        }
        if out.violation:
            result["killed"] = f"the sandbox stopped the program: {out.violation}"
        return result, [], out.failed

    def render_deck(self, args: dict[str, Any]) -> tuple[dict[str, Any], list[bytes], bool]:
        from judge.artifact.gate import validate
        from judge.schema import RenderResult

        self.reviews += 1
        data = read_regular_file(self.sandbox.folder / DECK, MAX_DECK_BYTES)
        if data is None:
            return {"error": f"there is no {DECK} yet (or it is not a regular file)"}, [], True
        n = self.reviews
        copy = self.scratch / f"review-{n}" / DECK
        atomic_write_bytes(copy, data)
        png_path = copy.with_suffix(".png")
        render = self.render

        def do_render(p: Path) -> RenderResult:
            if render is None:
                raise PptJudgeError("no renderer is available in this run")
            out = render(p, png_path)
            if not isinstance(out, RenderResult):
                raise TypeError("the renderer returned no RenderResult")
            return out

        try:
            report = validate(copy, self.reference, self.assets_dir, render=do_render)
        except PptJudgeError as exc:
            return {"valid": False, "error": str(exc)}, [], True
        failed = [{"check": c.name, "detail": c.detail} for c in report.checks if not c.passed]
        result: dict[str, Any] = {"valid": report.valid, "failed_checks": failed}
        images = [png_path.read_bytes()] if png_path.is_file() else []
        if not images:
            result["render"] = "no image: the deck did not render"
        return result, images, not report.valid

    def view_reference(self, args: dict[str, Any]) -> tuple[dict[str, Any], list[bytes], bool]:
        import cv2

        try:
            x, y, w, h = (int(args[k]) for k in ("x", "y", "w", "h"))
        except (KeyError, TypeError, ValueError):
            return {"error": "view_reference needs integers x, y, w, h"}, [], True
        img = cv2.imread(str(self.reference), cv2.IMREAD_COLOR)
        if img is None:
            raise BenchmarkError(f"{self.reference}: the reference image cannot be read")
        height, width = img.shape[:2]
        x0, y0 = max(0, x), max(0, y)
        x1, y1 = min(width, x + max(0, w)), min(height, y + max(0, h))
        if x1 <= x0 or y1 <= y0:
            msg = f"the box ({x}, {y}, {w}, {h}) holds no pixel of the {width}x{height} reference"
            return {"error": msg}, [], True
        ok, buf = cv2.imencode(".png", img[y0:y1, x0:x1])
        if not ok:  # pragma: no cover - a crop of a decoded image always encodes
            raise BenchmarkError("could not encode a crop of the reference")
        return (
            {"box": [x0, y0, x1 - x0, y1 - y0], "reference_px": [width, height]},
            [buf.tobytes()],
            False,
        )


class GenState(TypedDict, total=False):
    """State of one episode's tool loop."""

    messages: Annotated[list[AnyMessage], operator.add]
    turns: int
    """Model answers so far."""
    idle: int
    """Answers with no tool call so far."""
    status: GenerationStatus | None
    """Set when the episode ends."""
    reason: str | None
    last_failure: str | None
    """The last failing call, as ``name(arguments JSON)``."""
    repeats: int
    """How many times in a row ``last_failure`` was made."""


def _ep(config: RunnableConfig) -> Episode:
    ep = config.get("configurable", {}).get("episode")
    if not isinstance(ep, Episode):
        raise RuntimeError("generation graph invoked without an Episode in configurable")
    return ep


def _last_ai(state: GenState) -> AIMessage:
    for msg in reversed(state.get("messages", [])):
        if isinstance(msg, AIMessage):
            return msg
    raise RuntimeError("router reached with no model answer in the episode state")


def _count_tokens(ep: Episode, answer: AIMessage) -> Usage:
    meta: dict[str, Any] = dict(answer.usage_metadata or {})
    details_in: dict[str, Any] = dict(meta.get("input_token_details") or {})
    details_out: dict[str, Any] = dict(meta.get("output_token_details") or {})
    inp = int(meta.get("input_tokens", 0) or 0)
    out = int(meta.get("output_tokens", 0) or 0)
    t = ep.tokens
    ep.tokens = GenerationTokens(
        input=t.input + inp,
        cached_input=t.cached_input + int(details_in.get("cache_read", 0) or 0),
        output=t.output + out,
        reasoning=t.reasoning + int(details_out.get("reasoning", 0) or 0),
    )
    return Usage(input_tokens=inp, output_tokens=out, model_calls=1)


def model_node(state: GenState, config: RunnableConfig) -> dict[str, Any]:
    """Ask the model for its next move; record the answer, its usage and its tool calls."""
    ep = _ep(config)
    turns = state.get("turns", 0)
    if turns >= ep.settings.max_turns:
        reason = f"no submit after {turns} model answers (--max-turns {ep.settings.max_turns})"
        ep.recorder.add("generate", "error", content=reason)
        return {"status": "max_turns", "reason": reason}
    try:
        answer, cached = ep.call_model(ep.model, list(state.get("messages", [])))
    except Exception as exc:  # noqa: BLE001 - any backend failure ends the episode, recorded
        reason = f"model call failed: {type(exc).__name__}: {exc}"
        ep.recorder.add("generate", "error", content=reason)
        return {"status": "model_error", "reason": reason}
    ep.model_calls += 1
    ep.cached_calls += int(cached)
    usage = _count_tokens(ep, answer).model_copy(update={"cached_calls": int(cached)})
    text = answer.content if isinstance(answer.content, str) else json.dumps(answer.content)
    ep.recorder.add("generate", "message", role="assistant", content=text, usage=usage)
    for call in answer.tool_calls:
        ep.recorder.add(
            "generate",
            "tool_call",
            tool_name=call["name"],
            tool_call_id=call["id"],
            arguments=dict(call["args"]),
        )
    for bad in answer.invalid_tool_calls:
        ep.recorder.add(
            "generate",
            "tool_call",
            tool_name=bad.get("name"),
            tool_call_id=bad.get("id"),
            arguments={"__raw__": str(bad.get("args"))},
        )
    return {"messages": [answer], "turns": turns + 1}


def _call_one(
    ep: Episode, name: str, args: dict[str, Any]
) -> tuple[dict[str, Any], list[bytes], bool]:
    if name == "run_python":
        return ep.run_python(args)
    if name == "render":
        return ep.render_deck(args)
    if name == "view_reference":
        return ep.view_reference(args)
    known = ", ".join(TOOL_NAMES)
    return {"error": f"unknown tool {name!r}; the tools are {known}"}, [], True


def tools_node(state: GenState, config: RunnableConfig) -> dict[str, Any]:
    """Run the calls of the last answer in order; ``submit`` ends the episode after them."""
    ep = _ep(config)
    answer = _last_ai(state)
    replies: list[AnyMessage] = []
    blocks: list[dict[str, Any]] = []
    last_failure = state.get("last_failure")
    repeats = state.get("repeats", 0)
    update: dict[str, Any] = {}
    calls: list[tuple[str, dict[str, Any] | None, str | None]]
    calls = [(c["name"], dict(c["args"]), c["id"]) for c in answer.tool_calls]
    calls += [(str(b.get("name")), None, b.get("id")) for b in answer.invalid_tool_calls]
    for name, args, call_id in calls:
        images: list[bytes] = []
        if args is None:
            result: dict[str, Any] = {"error": f"the arguments of {name} are not valid JSON"}
            failed = True
        elif name == "submit":
            ep.submitted = True
            result, failed = {"accepted": True}, False
        else:
            result, images, failed = _call_one(ep, name, args)
        hashes = [ep.recorder.images.put(png) for png in images]
        if hashes:
            result["images_attached"] = len(hashes)
            blocks.extend(image_block(png) for png in images)
        ep.recorder.add(
            "generate",
            "tool_result",
            tool_name=name,
            tool_call_id=call_id,
            result=result,
            images=hashes,
        )
        replies.append(ToolMessage(content=json.dumps(result), tool_call_id=call_id, name=name))
        key = f"{name}({json.dumps(args, sort_keys=True)})"
        if failed:
            repeats = repeats + 1 if key == last_failure else 1
            last_failure = key
        else:
            repeats, last_failure = 0, None
        if repeats >= ep.settings.repeat_limit and "status" not in update:
            reason = f"the same failing call was made {repeats} times in a row: {key[:300]}"
            ep.recorder.add("generate", "error", content=reason)
            update.update(status="repeated_failure", reason=reason)
    if blocks:
        intro = {"type": "text", "text": "Images returned by the tool calls above, in order:"}
        replies.append(HumanMessage(content=[intro, *blocks]))
    if ep.submitted and "status" not in update:
        update["status"] = "submitted"
    update.update(messages=replies, last_failure=last_failure, repeats=repeats, idle=0)
    return update


def nudge_node(state: GenState, config: RunnableConfig) -> dict[str, Any]:
    """The model answered without a tool call: remind it, or end the episode."""
    ep = _ep(config)
    idle = state.get("idle", 0) + 1
    if idle > ep.settings.max_idle_turns:
        reason = f"the model answered {idle} times without calling a tool and never submitted"
        ep.recorder.add("generate", "error", content=reason)
        return {"idle": idle, "status": "no_submit", "reason": reason}
    text = "You did not call a tool. Work with run_python and render, then call submit()."
    ep.recorder.add("generate", "message", role="user", content=text)
    return {"idle": idle, "messages": [HumanMessage(content=text)]}


def route_after_model(state: GenState) -> Literal["tools", "nudge", "__end__"]:
    if state.get("status"):
        return "__end__"
    answer = _last_ai(state)
    return "tools" if answer.tool_calls or answer.invalid_tool_calls else "nudge"


def route_after_tools(state: GenState) -> Literal["model", "__end__"]:
    return "__end__" if state.get("status") else "model"


def route_after_nudge(state: GenState) -> Literal["model", "__end__"]:
    return "__end__" if state.get("status") else "model"


def build_generation_graph() -> CompiledStateGraph[Any, Any, Any, Any]:
    """The episode loop (the same for every task and model)."""
    g = StateGraph(GenState)
    g.add_node("model", model_node)  # ask the model for its next move
    g.add_node("tools", tools_node)  # run_python / render / view_reference / submit
    g.add_node("nudge", nudge_node)  # no tool call: remind, or give up after the budget
    g.add_edge(START, "model")  # the task prompt is in the initial messages
    g.add_conditional_edges("model", route_after_model)  # tool calls, none, or ended
    g.add_conditional_edges("tools", route_after_tools)  # submitted/stopped, or go on
    g.add_conditional_edges("nudge", route_after_nudge)  # back to the model or give up
    return g.compile()


_GRAPH: CompiledStateGraph[Any, Any, Any, Any] | None = None
_GRAPH_LOCK = threading.Lock()


def generation_graph() -> CompiledStateGraph[Any, Any, Any, Any]:
    global _GRAPH
    with _GRAPH_LOCK:
        if _GRAPH is None:
            _GRAPH = build_generation_graph()
        return _GRAPH


# ------------------------------------------------------------------------------------------
# one task, then the batch


def _initial_messages(ep: Episode, prompt: str) -> list[AnyMessage]:
    png = ep.reference.read_bytes()
    digest = ep.recorder.images.put(png)
    system = "You are a coding agent. Work only through the tools; end with submit()."
    ep.recorder.add("generate", "message", role="system", content=system)
    ep.recorder.add("generate", "message", role="user", content=prompt, images=[digest])
    return [
        SystemMessage(content=system),
        HumanMessage(content=[{"type": "text", "text": prompt}, image_block(png)]),
    ]


def _reference_size(path: Path) -> tuple[int, int]:
    from PIL import Image

    try:
        with Image.open(path) as im:
            return im.size
    except OSError as exc:
        raise BenchmarkError(f"{path}: the reference image cannot be read: {exc}") from exc


def run_episode(
    bench: Path,
    task_id: str,
    settings: GenerateSettings,
    model: BaseChatModel,
    render: Callable[[Path, Path], object] | None,
    cache: ModelCache | None,
) -> GenerationRecord:
    """Generate one task; every outcome (also a failure) is returned as a record and written."""
    paths = generation_paths(bench, settings.config_id, task_id)
    task_dir = Path(bench) / "tasks" / task_id
    reference = task_dir / "reference.png"
    assets = task_dir / "assets"
    task = load_task(bench, task_id)
    width, height = _reference_size(reference)
    if paths.work.exists():
        shutil.rmtree(paths.work)
    files = {"reference.png": reference}
    if assets.is_dir():
        files["assets"] = assets
    folder = prepare_folder(paths.work, files)
    (folder / "assets").mkdir(exist_ok=True)
    recorder = Recorder(ImageStore(paths.images))
    bound = model.bind_tools(tool_schemas())
    call_model: Callable[[Runnable[Any, Any], list[AnyMessage]], tuple[AIMessage, bool]]
    if cache is not None:
        params: dict[str, object] = {
            "kind": "generate",
            "model": settings.model,
            "base_url": settings.base_url,
            "effort": settings.effort,
            "max_tokens": settings.max_tokens,
        }
        call_model = cache.caller(params, 0)
    else:

        def call_model(m: Runnable[Any, Any], msgs: list[AnyMessage]) -> tuple[AIMessage, bool]:
            out = m.invoke(msgs)
            if not isinstance(out, AIMessage):
                raise TypeError(f"chat model returned {type(out).__name__}, not an AIMessage")
            return out, False

    t0 = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="pptjudge-gen-") as scratch:
        ep = Episode(
            paths=paths,
            reference=reference,
            assets_dir=assets if assets.is_dir() else None,
            sandbox=Sandbox(folder, settings.limits),
            model=bound,
            call_model=call_model,
            recorder=recorder,
            render=render,
            settings=settings,
            scratch=Path(scratch),
        )
        messages = _initial_messages(ep, task_prompt(width, height, task.assets))
        final = generation_graph().invoke(
            {"messages": messages},
            config={
                "configurable": {"episode": ep},
                "recursion_limit": settings.max_turns * 3 + 10,
            },
        )
        deck = read_regular_file(folder / DECK, MAX_DECK_BYTES)
    status: GenerationStatus = final.get("status") or "no_submit"
    reason: str | None = final.get("reason")
    if status == "submitted" and deck is None:
        status, reason = "no_deck", f"submit() was called but there is no {DECK}"
        recorder.add("generate", "error", content=reason)
    candidate = program = None
    if status == "submitted" and deck is not None:
        atomic_write_bytes(paths.candidate, deck)
        candidate = paths.rel(paths.candidate)
    else:
        paths.candidate.unlink(missing_ok=True)
    if ep.program is not None:
        atomic_write_text(paths.program, ep.program)
        program = paths.rel(paths.program)
    recorder.write(paths.trajectory)
    if not settings.keep_work:
        shutil.rmtree(paths.work, ignore_errors=True)
        with contextlib.suppress(OSError):  # the last task's folder leaves work/ empty
            paths.work.parent.rmdir()
    record = GenerationRecord(
        config_id=settings.config_id,
        task_id=task_id,
        model=settings.model,
        base_url=settings.base_url,
        effort=settings.effort,
        status=status,
        reason=reason,
        candidate=candidate,
        program=program,
        trajectory=paths.rel(paths.trajectory),
        tokens=ep.tokens,
        model_calls=ep.model_calls,
        cached_calls=ep.cached_calls,
        cost_usd=generation_cost(ep.tokens, settings.prices),
        prices=settings.prices,
        wall_s=round(time.perf_counter() - t0, 3),
        turns=final.get("turns", 0),
        reviews=ep.reviews,
        revisions=ep.revisions,
        run_python_calls=ep.run_python_calls,
        sandbox_failures=ep.sandbox_failures,
        violations=ep.violations,
    )
    write_model(paths.record, record)
    return record


def _error_record(bench: Path, task_id: str, s: GenerateSettings, reason: str) -> GenerationRecord:
    """The record of a task the harness itself could not run (written; the batch goes on)."""
    paths = generation_paths(bench, s.config_id, task_id)
    paths.candidate.unlink(missing_ok=True)
    record = GenerationRecord(
        config_id=s.config_id,
        task_id=task_id,
        model=s.model,
        base_url=s.base_url,
        effort=s.effort,
        status="error",
        reason=reason,
        trajectory=paths.rel(paths.trajectory),
        prices=s.prices,
    )
    write_model(paths.record, record)
    return record


@dataclass
class GenerateSummary:
    """What a ``judge generate`` run did."""

    records: list[GenerationRecord] = field(default_factory=list)
    generated: int = 0
    reused: int = 0
    seconds: float = 0.0

    @property
    def cost_usd(self) -> float | None:
        known = [r.cost_usd for r in self.records if r.cost_usd is not None]
        return sum(known) if known else None


def run_generation(
    bench: Path,
    settings: GenerateSettings,
    on_task: Callable[[GenerationRecord, bool], None] | None = None,
    render_pool: Any = None,
) -> GenerateSummary:
    """Generate every task of ``bench`` for one configuration (resumable).

    ``on_task(record, reused)`` is called as each task finishes. ``render_pool``: a running
    :class:`judge.render.pool.RenderPool` to use (left open); by default one is started on the
    first ``render()`` call and closed at the end.
    """
    from judge.sandbox import available

    t0 = time.perf_counter()
    bench = Path(bench)
    if settings.effort is not None and settings.effort not in EFFORTS:
        raise BenchmarkError(f"--effort {settings.effort!r}: use one of {', '.join(EFFORTS)}")
    if settings.max_turns < 1 or settings.concurrency < 1:
        raise BenchmarkError("--max-turns and --concurrency must be at least 1")
    if not settings.config_id or "/" in settings.config_id:
        raise BenchmarkError(f"--config {settings.config_id!r}: a plain folder name is needed")
    reason = available()
    if reason is not None:
        raise BenchmarkError(f"judge generate runs programs in a sandbox: {reason}")
    ids = task_ids(bench)
    if not ids:
        raise BenchmarkError(f"{bench}: no tasks (expected tasks/<id>/reference.png)")
    summary = GenerateSummary()
    pending: list[str] = []
    for tid in ids:
        rec = read_record(generation_paths(bench, settings.config_id, tid).record)
        if rec is not None and rec.status not in RETRIED_STATUSES:
            summary.records.append(rec)
            summary.reused += 1
            if on_task:
                on_task(rec, True)
        else:
            pending.append(tid)
    (bench / "candidates" / settings.config_id).mkdir(parents=True, exist_ok=True)
    model = (settings.chat_model or (lambda: openai_chat_model(settings)))()
    cache = ModelCache(bench / "generation" / CACHE_DIR) if settings.cache else None
    pool_lock = threading.Lock()
    own_pool: list[Any] = []

    def render(deck: Path, out_png: Path) -> object:
        with pool_lock:
            if render_pool is None and not own_pool:
                from judge.render.pool import RenderPool

                own_pool.append(RenderPool(settings.workers, settings.render_timeout_s))
            pool = render_pool if render_pool is not None else own_pool[0]
        return pool.render(deck, out_png)

    try:
        with ThreadPoolExecutor(settings.concurrency, thread_name_prefix="gen") as ex:
            futures = {
                ex.submit(run_episode, bench, tid, settings, model, render, cache): tid
                for tid in pending
            }
            for fut in as_completed(futures):
                tid = futures[fut]
                try:
                    rec = fut.result()
                except Exception as exc:  # noqa: BLE001 - one failing task never stops the batch
                    rec = _error_record(bench, tid, settings, f"{type(exc).__name__}: {exc}")
                summary.records.append(rec)
                summary.generated += 1
                if on_task:
                    on_task(rec, False)
    finally:
        for pool in own_pool:
            pool.close()
    summary.records.sort(key=lambda r: r.task_id)
    summary.seconds = round(time.perf_counter() - t0, 2)
    return summary
