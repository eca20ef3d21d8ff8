"""The ``replay`` backend: re-emit a recorded trajectory or a hand-written script.

The model's moves (tool calls with their arguments and ``submit_verdict`` calls) are taken from
the trajectory; the tools really run again, so their results can be compared with the recording
(``judge replay``), and verdicts are validated and scored exactly as in a live run.

A **hand-written script** ("tool-scripted inspection") is a JSONL file in the trajectory format,
where only ``stage``, ``kind``, ``tool_name`` and ``arguments`` matter; ``seq`` may be left out,
blank lines and lines starting with ``#`` are ignored. Each ``tool_call``/``submit`` line is one
model turn, unless the stage has ``{"kind": "message", "role": "assistant"}`` lines, which then
open a turn each and group the calls that follow them (that is how recordings look)::

    # probe: is the arrow between the first two boxes reversed?
    {"stage": "semantic", "kind": "tool_call", "tool_name": "object_tree", "arguments": {}}
    {"stage": "semantic", "kind": "tool_call", "tool_name": "crop",
     "arguments": {"image": "candidate", "frame": "panel", "x": 300, "y": 200, "w": 200, "h": 150}}
    {"stage": "semantic", "kind": "submit", "arguments": {"passed": true, "reasons": [
     {"target": "edge Encode -> Decode", "evidence": "arrowhead at the Decode end",
      "confirmed": true, "confidence": 0.9,
      "reference_bbox": {"x": 300, "y": 200, "w": 200, "h": 150},
      "candidate_bbox": {"x": 310, "y": 205, "w": 190, "h": 150}}]}}
    {"stage": "render", "kind": "submit", "arguments": {"passed": true}}
    {"stage": "detail", "kind": "submit", "arguments": {"findings": [], "fractions": []}}

(one JSON object per line in the real file: join the wrapped lines; a script that does not
parse is refused before judging, naming FILE:LINE). ``judge tools`` lists every tool with its
arguments and each stage's submit fields; rounds are numbered from 0. A ``submit`` whose
arguments are invalid is sent all the same, so a script can test how the judge rejects it.
``tool_result`` and other lines are ignored when emitting. A source is one such file (used for
every case and round: the backend is then deterministic), a case folder
(``rounds/round-<k>.trajectory.jsonl`` per round) or a run folder
(``cases/<config>/<task>/rounds/...``).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from langchain_core.callbacks import CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.runnables import Runnable

from judge.engine.agent import SUBMIT_TOOL
from judge.engine.trajectory import RAW_ARGUMENTS_KEY
from judge.errors import BackendError, ScriptError
from judge.rundir import CASES, first_problem
from judge.schema import StageName, TrajectoryEvent, Usage
from judge.tools.base import ToolContext

CALL_KINDS = ("tool_call", "submit", "invalid_submit")


def read_script(path: Path) -> list[TrajectoryEvent]:
    """Read a recorded trajectory or a hand-written script (``seq`` optional, ``#`` comments)."""
    path = Path(path)
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError as exc:
        raise BackendError(f"{path}: cannot read replay script: {exc}") from exc
    events: list[TrajectoryEvent] = []
    for lineno, line in enumerate(lines, 1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        try:
            data = json.loads(line)
        except json.JSONDecodeError as exc:
            raise ScriptError(
                f"{path}:{lineno}: not a trajectory event: {exc.msg} at column {exc.colno} "
                f"(each event is one JSON object on one line: was a line wrapped?)"
            ) from exc
        try:
            if not isinstance(data, dict):
                raise ValueError("a line must be a JSON object")
            data.setdefault("seq", len(events))
            events.append(TrajectoryEvent.model_validate(data))
        except ValueError as exc:
            detail = first_problem(exc)
            raise ScriptError(f"{path}:{lineno}: not a trajectory event: {detail}") from exc
    return events


def turns_for_stage(events: list[TrajectoryEvent], stage: StageName) -> list[AIMessage]:
    """The model answers of one stage, rebuilt from its events."""
    mine = [e for e in events if e.stage == stage]
    grouped = any(e.kind == "message" and e.role == "assistant" for e in mine)
    turns: list[dict[str, Any]] = []
    n = 0
    for e in mine:
        if e.kind == "message" and e.role == "assistant":
            turns.append({"content": e.content or "", "calls": []})
            continue
        if e.kind not in CALL_KINDS:
            continue
        if not grouped or not turns:
            turns.append({"content": "", "calls": []})
        n += 1
        name = SUBMIT_TOOL if e.kind != "tool_call" else (e.tool_name or "")
        turns[-1]["calls"].append(
            {"name": name, "args": e.arguments or {}, "id": e.tool_call_id or f"call_{stage}_{n}"}
        )
    out: list[AIMessage] = []
    for t in turns:
        good, bad = [], []
        for c in t["calls"]:
            raw = c["args"].get(RAW_ARGUMENTS_KEY) if isinstance(c["args"], dict) else None
            if isinstance(raw, str) and len(c["args"]) == 1:
                bad.append(
                    {
                        "name": c["name"],
                        "args": raw,
                        "id": c["id"],
                        "error": None,
                        "type": "invalid_tool_call",
                    }
                )
            else:
                good.append(
                    {"name": c["name"], "args": c["args"], "id": c["id"], "type": "tool_call"}
                )
        out.append(AIMessage(content=t["content"], tool_calls=good, invalid_tool_calls=bad))
    return out


class ReplayChatModel(BaseChatModel):
    """Answers turn ``i`` of a stage with the ``i``-th recorded answer (stateless: ``i`` is the
    number of model answers already in the conversation)."""

    turns: list[AIMessage]
    stage: str
    source: str = ""

    @property
    def _llm_type(self) -> str:
        return "pptjudge-replay"

    def bind_tools(self, tools: Any, **kwargs: Any) -> Runnable[Any, Any]:
        return self

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        i = sum(isinstance(m, AIMessage) for m in messages)
        if i >= len(self.turns):
            raise BackendError(
                f"{self.source}: the replay script has {len(self.turns)} model turn(s) for the "
                f"{self.stage} stage and the judge asked for turn {i + 1}"
            )
        return ChatResult(generations=[ChatGeneration(message=self.turns[i].model_copy())])


class ReplayBackend:
    """Replays from one script file, a case folder or a run folder."""

    name = "replay"

    def __init__(self, source: Path) -> None:
        self.source = Path(source)
        if not self.source.exists():
            raise BackendError(f"{self.source}: replay source does not exist")
        self.deterministic = self.source.is_file()
        self._cache: dict[Path, list[TrajectoryEvent]] = {}
        if self.source.is_file():  # a hand-written script: refuse it now, not once per case
            self._cache[self.source] = read_script(self.source)

    def script_path(self, case_id: str, round_index: int) -> Path:
        if self.source.is_file():
            return self.source
        name = f"round-{round_index}.trajectory.jsonl"
        for base in (self.source, self.source / CASES / case_id):
            path = base / "rounds" / name
            if path.is_file():
                return path
        raise BackendError(f"{self.source}: no recorded trajectory {name} for case {case_id!r}")

    def events(self, case_id: str, round_index: int) -> list[TrajectoryEvent]:
        path = self.script_path(case_id, round_index)
        if path not in self._cache:
            self._cache[path] = read_script(path)
        return self._cache[path]

    def chat_model(
        self, ctx: ToolContext, stage: StageName, round_index: int, case_id: str = ""
    ) -> BaseChatModel:
        path = self.script_path(case_id, round_index)
        turns = turns_for_stage(self.events(case_id, round_index), stage)
        return ReplayChatModel(turns=turns, stage=stage, source=str(path))

    def cache_params(self) -> dict[str, object] | None:
        return None

    def cost(self, usage: Usage) -> float | None:
        return 0.0
