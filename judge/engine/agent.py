"""The stage agent: one tool-calling loop per stage, as a small LangGraph graph.

::

    START -> model --(no call)------> nudge -> model
               |  --(measurement)---> tools --(submit in same turn)--> submit
               |  --(only submit)-----------------------------------> submit
               |                      tools -> model
               '--(error/budget)---> END          submit --(valid)--> END, else -> model

The model sees the stage rubric and the normalised pair in its first user message, may call
measurement tools (their JSON comes back as a ``ToolMessage``; images they return follow in one
user message, because Chat Completions does not carry images in ``role: tool`` messages) and
ends the stage by calling :data:`SUBMIT_TOOL` with the stage verdict as arguments
(:class:`~judge.schema.GateVerdict` for ``semantic``/``render``,
:class:`~judge.schema.DetailVerdict` for ``detail``). An invalid submission goes back to the
model as the tool result with the error. A stage that ends without a verdict (budget spent,
backend failure) returns an ``error``: its round is then ``errored``, never passed or failed.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

import cv2
import numpy as np
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import (
    AIMessage,
    AnyMessage,
    HumanMessage,
    SystemMessage,
    ToolMessage,
)
from langchain_core.runnables import Runnable, RunnableConfig
from langgraph.graph import START, StateGraph
from pydantic import BaseModel, ValidationError

from judge.engine.state import CompiledGraph, StageState
from judge.engine.trajectory import RAW_ARGUMENTS_KEY, Recorder
from judge.schema import (
    DetailVerdict,
    GateVerdict,
    Rubric,
    RubricVerdict,
    StageName,
    Taxonomy,
    Usage,
)
from judge.tools.base import Tool, ToolContext, ToolOutput

SUBMIT_TOOL = "submit_verdict"
"""Name of every stage's submit tool; its arguments are the stage verdict's JSON."""

TOOL_BUDGET_SPENT = "tool budget spent"
"""Start of the error a tool call gets once the stage's tool budget is spent (it never ran)."""

PAIR_DETAIL = "high"
"""OpenAI image detail level for the pair and crops (tiles of 512 px are what a model can read)."""


@dataclass(frozen=True)
class Budgets:
    """Per-stage limits; exceeding one ends the stage without a verdict (round ``errored``)."""

    max_tool_calls: int = 16
    """Measurement tool calls per stage; later calls get an error asking for the verdict."""
    max_invalid_submits: int = 3
    """Rejected ``submit_verdict`` calls per stage."""
    max_idle_turns: int = 2
    """Model answers with no tool call at all (each one is answered with a reminder)."""
    max_turns: int = 24
    """Model calls per stage, whatever they contain."""


def verdict_model(
    stage: StageName,
) -> type[GateVerdict] | type[DetailVerdict] | type[RubricVerdict]:
    if stage == "rubric":
        return RubricVerdict
    return DetailVerdict if stage == "detail" else GateVerdict


def submit_tool_schema(stage: StageName) -> dict[str, Any]:
    """OpenAI function schema of the stage's submit tool (the verdict model's JSON schema)."""
    params = verdict_model(stage).model_json_schema()
    params.pop("title", None)
    if stage == "rubric":
        desc = (
            "Submit the ReFigBench rubric verdict: for every axis of the rubric exactly once, "
            "its points (0 to the axis maximum) and a rationale naming what you saw. This ends "
            "the stage."
        )
    elif stage == "detail":
        desc = (
            "Submit the Stage 3 verdict: every finding (dimension, category, subtype from the "
            "taxonomy, location, description, affected_count) and one affected fraction (0-1) per "
            "category that has findings. This ends the stage."
        )
    else:
        desc = (
            f"Submit the {stage} gate verdict: passed, and reasons naming the node/edge/region and "
            "the evidence (at least one reason when it fails). This ends the stage."
        )
    return {
        "type": "function",
        "function": {"name": SUBMIT_TOOL, "description": desc, "parameters": params},
    }


def validate_submission(
    stage: StageName,
    arguments: dict[str, Any],
    taxonomy: Taxonomy | None,
    check_findings: Callable[[DetailVerdict, Taxonomy], list[str]] | None = None,
    rubric: Rubric | None = None,
) -> tuple[BaseModel | None, str | None]:
    """Parse a ``submit_verdict`` call: (verdict, None) or (None, error text for the model)."""
    cls = verdict_model(stage)
    try:
        verdict = cls.model_validate(arguments)
    except ValidationError as exc:
        msgs = [
            f"{'.'.join(str(p) for p in e['loc']) or '(root)'}: {e['msg']}" for e in exc.errors()
        ]
        return None, "invalid verdict: " + "; ".join(msgs)
    if isinstance(verdict, RubricVerdict) and rubric is not None:
        from scoring.refigbench import verdict_problems

        problems = verdict_problems(verdict, rubric)
        if problems:
            return None, "invalid verdict: " + "; ".join(problems)
    if isinstance(verdict, DetailVerdict) and taxonomy is not None:
        if check_findings is None:
            from taxonomy.loader import validate_findings

            check_findings = validate_findings
        errors = check_findings(verdict, taxonomy)
        if errors:
            return None, "invalid verdict: " + "; ".join(errors)
    return verdict, None


def png_bytes(image: np.ndarray) -> bytes:
    """Encode a BGR (or grey) uint8 array as PNG."""
    ok, buf = cv2.imencode(".png", image)
    if not ok:
        raise ValueError("could not encode image as PNG")
    return buf.tobytes()


def image_block(png: bytes) -> dict[str, Any]:
    """A Chat Completions image content block (base64 data URL)."""
    url = "data:image/png;base64," + base64.b64encode(png).decode("ascii")
    return {"type": "image_url", "image_url": {"url": url, "detail": PAIR_DETAIL}}


ModelCall = Callable[[Runnable[Any, Any], list[AnyMessage]], tuple[AIMessage, bool]]
"""Calls the bound model on messages; returns (answer, served_from_cache)."""


def _direct_call(model: Runnable[Any, Any], messages: list[AnyMessage]) -> tuple[AIMessage, bool]:
    out = model.invoke(messages)
    if not isinstance(out, AIMessage):
        raise TypeError(f"chat model returned {type(out).__name__}, not an AIMessage")
    return out, False


@dataclass
class StageRuntime:
    """What one stage loop needs besides its state (passed in ``config["configurable"]``)."""

    stage: StageName
    model: Runnable[Any, Any]
    """The backend's chat model with the tools bound."""
    ctx: ToolContext
    tools: dict[str, Tool]
    recorder: Recorder
    budgets: Budgets = field(default_factory=Budgets)
    taxonomy: Taxonomy | None = None
    call_model: ModelCall = _direct_call
    cost: Callable[[Usage], float | None] = lambda usage: None
    check_findings: Callable[[DetailVerdict, Taxonomy], list[str]] | None = None
    rubric: Rubric | None = None
    """The ReFigBench rubric a ``rubric`` stage's verdict is checked against."""


def _rt(config: RunnableConfig) -> StageRuntime:
    rt = config.get("configurable", {}).get("stage_runtime")
    if not isinstance(rt, StageRuntime):
        raise RuntimeError("stage graph invoked without a StageRuntime in configurable")
    return rt


def _last_ai(state: StageState) -> AIMessage:
    for msg in reversed(state.get("messages", [])):
        if isinstance(msg, AIMessage):
            return msg
    raise RuntimeError("router reached with no model answer in the stage state")


def _calls(msg: AIMessage) -> list[dict[str, Any]]:
    """Tool calls of an answer, malformed ones included (``args`` raw text, ``error`` set)."""
    out = [dict(tc) for tc in msg.tool_calls]
    for bad in msg.invalid_tool_calls:
        out.append(
            {"name": bad.get("name"), "args": bad.get("args"), "id": bad.get("id"), "bad": True}
        )
    return out


# ------------------------------------------------------------------------------------------
# nodes


def model_node(state: StageState, config: RunnableConfig) -> dict[str, Any]:
    """Ask the model for its next move and record the answer and the calls it makes."""
    rt = _rt(config)
    turns = state.get("turns", 0)
    if turns >= rt.budgets.max_turns:
        reason = f"no verdict after {turns} model calls (budget max_turns={rt.budgets.max_turns})"
        rt.recorder.add(rt.stage, "error", content=reason)
        return {"error": reason}
    try:
        answer, cached = rt.call_model(rt.model, list(state.get("messages", [])))
    except Exception as exc:  # noqa: BLE001 - any backend failure ends the stage, recorded
        reason = f"model call failed: {type(exc).__name__}: {exc}"
        rt.recorder.add(rt.stage, "error", content=reason)
        return {"error": reason, "turns": turns + 1}
    meta: dict[str, Any] = dict(answer.usage_metadata or {})
    usage = Usage(
        input_tokens=0 if cached else int(meta.get("input_tokens", 0) or 0),
        output_tokens=0 if cached else int(meta.get("output_tokens", 0) or 0),
        model_calls=1,
        cached_calls=1 if cached else 0,
    )
    cost = None if cached else rt.cost(usage)
    if cost is not None:
        usage = usage.model_copy(update={"cost_usd": cost})
    elif cached:
        usage = usage.model_copy(update={"cost_usd": 0.0})
    text = answer.content if isinstance(answer.content, str) else json.dumps(answer.content)
    rt.recorder.add(rt.stage, "message", role="assistant", content=text, usage=usage)
    for call in _calls(answer):
        if call["name"] == SUBMIT_TOOL and not call.get("bad"):
            continue  # recorded by the submit node as submit / invalid_submit
        args = call["args"]
        if call.get("bad") or not isinstance(args, dict):
            args = {RAW_ARGUMENTS_KEY: args if isinstance(args, str) else json.dumps(args)}
        rt.recorder.add(
            rt.stage, "tool_call", tool_name=call["name"], tool_call_id=call["id"], arguments=args
        )
    return {"messages": [answer], "turns": turns + 1, "usage": usage}


def tools_node(state: StageState, config: RunnableConfig) -> dict[str, Any]:
    """Run the measurement calls of the last answer; answer unknown and malformed ones."""
    rt = _rt(config)
    answer = _last_ai(state)
    used = state.get("tool_calls", 0)
    invalid = state.get("invalid_submits", 0)
    replies: list[AnyMessage] = []
    image_msgs: list[dict[str, Any]] = []
    n_calls = 0
    for call in _calls(answer):
        name, call_id = call["name"], call["id"]
        if name == SUBMIT_TOOL and not call.get("bad"):
            continue
        output: ToolOutput
        if call.get("bad"):
            output = ToolOutput(
                {"error": f"arguments of {name} are not valid JSON: {call['args']}"}
            )
            if name == SUBMIT_TOOL:
                invalid += 1
        elif name not in rt.tools:
            known = ", ".join(sorted([*rt.tools, SUBMIT_TOOL]))
            output = ToolOutput({"error": f"unknown tool {name!r}; available tools: {known}"})
        elif used + n_calls >= rt.budgets.max_tool_calls:
            output = ToolOutput(
                {
                    "error": f"{TOOL_BUDGET_SPENT} ({rt.budgets.max_tool_calls} calls per stage): "
                    f"call {SUBMIT_TOOL} with your verdict now"
                }
            )
        else:
            n_calls += 1
            output = rt.tools[name].call(rt.ctx, call["args"])
        hashes: list[str] = []
        for img in output.images:
            png = png_bytes(img)
            hashes.append(rt.recorder.images.put(png))
            image_msgs.append(image_block(png))
        payload = dict(output.data)
        if hashes:
            payload["images_attached"] = len(hashes)
        rt.recorder.add(
            rt.stage,
            "tool_result",
            tool_name=name,
            tool_call_id=call_id,
            result=payload,
            images=hashes,
        )
        replies.append(ToolMessage(content=json.dumps(payload), tool_call_id=call_id, name=name))
    deferred: list[AnyMessage] = []
    if image_msgs:
        text = {"type": "text", "text": "Images returned by the tool calls above, in order:"}
        images_msg = HumanMessage(content=[text, *image_msgs])
        if any(c["name"] == SUBMIT_TOOL for c in answer.tool_calls):
            deferred.append(images_msg)  # after the submit's tool message (submit node)
        else:
            replies.append(images_msg)
    update: dict[str, Any] = {
        "deferred": deferred,
        "messages": replies,
        "tool_calls": used + n_calls,
        "invalid_submits": invalid,
        "usage": Usage(tool_calls=n_calls),
    }
    if invalid > rt.budgets.max_invalid_submits:
        reason = f"{invalid} invalid submissions (budget max_invalid_submits)"
        rt.recorder.add(rt.stage, "error", content=reason)
        update["error"] = reason
    return update


def submit_node(state: StageState, config: RunnableConfig) -> dict[str, Any]:
    """Validate the ``submit_verdict`` call: accept it, or send the error back to the model."""
    rt = _rt(config)
    answer = _last_ai(state)
    submits = [c for c in answer.tool_calls if c["name"] == SUBMIT_TOOL]
    invalid = state.get("invalid_submits", 0)
    replies: list[AnyMessage] = []
    verdict: BaseModel | None = None
    for call in submits:
        if verdict is not None:  # a second submit in the same answer: the first one stands
            replies.append(
                ToolMessage(
                    content=json.dumps({"ignored": "a verdict was already accepted"}),
                    tool_call_id=call["id"],
                    name=SUBMIT_TOOL,
                )
            )
            continue
        verdict, error = validate_submission(
            rt.stage, call["args"], rt.taxonomy, rt.check_findings, rt.rubric
        )
        if verdict is not None:
            rt.recorder.add(
                rt.stage,
                "submit",
                tool_name=SUBMIT_TOOL,
                tool_call_id=call["id"],
                arguments=verdict.model_dump(mode="json"),
            )
            replies.append(
                ToolMessage(
                    content=json.dumps({"accepted": True}),
                    tool_call_id=call["id"],
                    name=SUBMIT_TOOL,
                )
            )
        else:
            invalid += 1
            result = {"error": f"{error}. Fix it and call {SUBMIT_TOOL} again."}
            rt.recorder.add(
                rt.stage,
                "invalid_submit",
                tool_name=SUBMIT_TOOL,
                tool_call_id=call["id"],
                arguments=dict(call["args"]),
                result=result,
            )
            replies.append(
                ToolMessage(content=json.dumps(result), tool_call_id=call["id"], name=SUBMIT_TOOL)
            )
    replies.extend(state.get("deferred") or [])
    update: dict[str, Any] = {"messages": replies, "invalid_submits": invalid, "deferred": []}
    if verdict is not None:
        update["verdict"] = verdict.model_dump(mode="json")
    elif invalid > rt.budgets.max_invalid_submits:
        reason = (
            f"{invalid} invalid submissions "
            f"(budget max_invalid_submits={rt.budgets.max_invalid_submits})"
        )
        rt.recorder.add(rt.stage, "error", content=reason)
        update["error"] = reason
    return update


def nudge_node(state: StageState, config: RunnableConfig) -> dict[str, Any]:
    """The model answered without calling a tool: remind it, or give up after the budget."""
    rt = _rt(config)
    idle = state.get("idle_turns", 0) + 1
    if idle > rt.budgets.max_idle_turns:
        reason = (
            f"the model answered {idle} times without calling {SUBMIT_TOOL} "
            f"(budget max_idle_turns={rt.budgets.max_idle_turns})"
        )
        rt.recorder.add(rt.stage, "error", content=reason)
        return {"idle_turns": idle, "error": reason}
    text = (
        f"You did not call a tool. Inspect with the tools if needed, then call {SUBMIT_TOOL} "
        "with your verdict; a plain text answer is not recorded."
    )
    rt.recorder.add(rt.stage, "message", role="user", content=text)
    return {"idle_turns": idle, "messages": [HumanMessage(content=text)]}


# ------------------------------------------------------------------------------------------
# routers


def route_after_model(state: StageState) -> Literal["tools", "submit", "nudge", "__end__"]:
    """Branch on which tool the model called: measurement tools, only the submit, or none."""
    if state.get("error"):
        return "__end__"
    calls = _calls(_last_ai(state))
    if not calls:
        return "nudge"
    if any(c["name"] != SUBMIT_TOOL or c.get("bad") for c in calls):
        return "tools"
    return "submit"


def route_after_tools(state: StageState) -> Literal["submit", "model", "__end__"]:
    """After measurement calls: a well-formed submit in the same answer is judged next."""
    if state.get("error"):
        return "__end__"
    if any(c["name"] == SUBMIT_TOOL for c in _last_ai(state).tool_calls):
        return "submit"
    return "model"


def route_after_submit(state: StageState) -> Literal["model", "__end__"]:
    if state.get("verdict") is not None or state.get("error"):
        return "__end__"
    return "model"


def route_after_nudge(state: StageState) -> Literal["model", "__end__"]:
    return "__end__" if state.get("error") else "model"


def build_stage_graph() -> CompiledGraph:
    """The stage loop (the same graph for every stage and backend)."""
    g = StateGraph(StageState)
    g.add_node("model", model_node)  # ask the model for its next move
    g.add_node("tools", tools_node)  # run measurement tools, answer unknown/malformed calls
    g.add_node("submit", submit_node)  # validate submit_verdict: accept or return the error
    g.add_node("nudge", nudge_node)  # no tool call: remind, or give up after the budget
    g.add_edge(START, "model")  # the prompt is in the initial messages
    g.add_conditional_edges("model", route_after_model)  # which tool was called?
    g.add_conditional_edges("tools", route_after_tools)  # submit in the same answer?
    g.add_conditional_edges("submit", route_after_submit)  # accepted -> END, else retry
    g.add_conditional_edges("nudge", route_after_nudge)  # back to the model or give up
    return g.compile()


_STAGE_GRAPH: CompiledGraph | None = None


def stage_graph() -> CompiledGraph:
    """The compiled stage loop (compiled once per process)."""
    global _STAGE_GRAPH
    if _STAGE_GRAPH is None:
        _STAGE_GRAPH = build_stage_graph()
    return _STAGE_GRAPH


@dataclass
class StageOutcome:
    verdict: dict[str, Any] | None
    error: str | None
    usage: Usage


def initial_messages(
    stage: StageName, system: str, rubric: str, pair_png: bytes, recorder: Recorder
) -> list[AnyMessage]:
    """System prompt, then one user message with the rubric and the normalised pair."""
    digest = recorder.images.put(pair_png)
    recorder.add(stage, "message", role="system", content=system)
    recorder.add(stage, "message", role="user", content=rubric, images=[digest])
    return [
        SystemMessage(content=system),
        HumanMessage(content=[{"type": "text", "text": rubric}, image_block(pair_png)]),
    ]


def run_stage(
    rt: StageRuntime, messages: list[AnyMessage], recursion_limit: int | None = None
) -> StageOutcome:
    """Run one stage loop to its end; never raises for model misbehaviour."""
    limit = recursion_limit or (rt.budgets.max_turns * 4 + 10)
    final = stage_graph().invoke(
        {"stage": rt.stage, "messages": messages, "usage": Usage()},
        config={"configurable": {"stage_runtime": rt}, "recursion_limit": limit},
    )
    verdict = final.get("verdict")
    error = final.get("error")
    if verdict is None and error is None:  # pragma: no cover - routers make this impossible
        error = "stage ended without a verdict"
    return StageOutcome(verdict=verdict, error=error, usage=final.get("usage", Usage()))


def bind(model: BaseChatModel, stage: StageName, tools: dict[str, Tool]) -> Runnable[Any, Any]:
    """The chat model with the measurement tools and the stage's submit tool bound."""
    schemas = [t.json_schema() for t in tools.values()] + [submit_tool_schema(stage)]
    return model.bind_tools(schemas)
