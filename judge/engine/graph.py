"""The judge as a LangGraph state machine (DESIGN.md), wired in one place.

Case graph::

    START -> validate --invalid--> score -> END
               | valid
             render --failed--> score
               | ok
             prepare -> collect -> dispatch --(Send x pending)--> round -> collect -> ...
                                     |--all rounds known--> aggregate -> score -> END
                                     '--budget spent--> END (the case stays unfinished)

Round graph: ``semantic -> render -> detail -> finish``; a failed gate or an errored stage goes
straight to ``finish``. Each stage is the tool-calling loop of :mod:`judge.engine.agent`.

``collect`` is the join point of the fan-out (the ``rounds`` reducer): it fills the other rounds
of a deterministic backend with copies of round 0 and, under early stop, marks the rounds that
can no longer change the case as ``skipped``. Rounds already on disk (a resumed run) are seeded
into the state by :func:`judge_case` and never redone.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, Protocol, TypeVar

from langchain_core.runnables import RunnableConfig
from langgraph.graph import END, START, StateGraph
from langgraph.types import Send
from pydantic import BaseModel

from judge.backends import Backend
from judge.engine.agent import Budgets, StageRuntime, bind, initial_messages, run_stage
from judge.engine.cache import CallCache, model_caller
from judge.engine.prompting import rubric_prompt, stage_prompt, system_prompt
from judge.engine.state import CaseState, CompiledGraph, RoundInput, RoundState
from judge.engine.trajectory import ImageStore, Recorder, read_trajectory, write_trajectory
from judge.errors import PptJudgeError, RenderError, ScoringError
from judge.rundir import CaseDir, write_model
from judge.schema import (
    ArtifactReport,
    Candidate,
    CaseGate,
    CaseResult,
    CheckResult,
    DetailVerdict,
    GateVerdict,
    ObjectAudit,
    PairGeometry,
    Policy,
    ProtocolName,
    RenderResult,
    RoundResult,
    RoundStatus,
    Rubric,
    RubricVerdict,
    StageName,
    Taxonomy,
    Usage,
)
from judge.tools.base import Tool, ToolContext

M = TypeVar("M", bound=BaseModel)

RenderFn = Callable[[Path, Path], RenderResult]
"""Renders a deck (first argument) to a PNG (second); raises :class:`RenderError`."""


class Slots(Protocol):
    """A limit on rounds judged at once: a :class:`threading.Semaphore`, or a lease on the run's
    global limit held by a Ray actor."""

    def acquire(self) -> Any: ...

    def release(self) -> None: ...


@dataclass
class CaseRuntime:
    """Everything the case graph needs that is not data (``config["configurable"]["case"]``)."""

    candidate: Candidate
    case_dir: CaseDir
    backend: Backend
    taxonomy: Taxonomy
    taxonomy_hash: str
    policy: Policy
    tools: dict[str, Tool]
    render: RenderFn | None = None
    export_svg: Callable[[Path], bytes] | None = None
    budgets: Budgets = field(default_factory=Budgets)
    early_stop: bool = False
    cache: CallCache | None = None
    """The model-call cache (a folder, or a proxy to the driver's under Ray)."""
    before_request: Callable[[], None] | None = None
    """Called before each model request that the cache does not answer (the rate limit)."""
    may_start: Callable[[], bool] = lambda: True
    """False once the run's cost budget is spent: no new round starts."""
    on_round: Callable[[RoundResult], None] = lambda r: None
    """Called after each round is written (progress, cost accounting)."""
    slots: Slots | None = None
    """Shared limit on rounds judged at the same time across cases."""
    ctx: ToolContext | None = None
    """Set by ``prepare``."""
    validate: Callable[[Candidate], ArtifactReport] | None = None
    """Stage 0 without rendering; default :func:`judge.artifact.gate.validate`."""
    render_pictures: Callable[[bytes], bytes] | None = None
    """Renders deck bytes to PNG bytes for Stage 0's picture-only render screen."""
    protocol: ProtocolName = "pptbench"
    rubric: Rubric | None = None
    """The ReFigBench rubric (``protocol == "refigbench"``)."""
    rubric_hash: str = ""
    lpips_weights: Path | None = None
    """Local LPIPS weights for the fidelity diagnostics (None: LPIPS left out)."""
    audit: ObjectAudit | None = None
    """Set by ``validate``: the object audit the rubric prompt shows."""
    deadline: float | None = None
    """``time.monotonic()`` after which no new round of this case starts (its overall
    deadline): the case is then the judge's error, retried by the next run."""
    bound: dict[tuple[int, str], tuple[Any, Any]] = field(default_factory=dict)
    """Chat models with tools bound, by (id(model), stage): binding costs ~60 ms, and a backend
    that returns one shared model (openai) is bound once per case and stage."""

    def bind(self, model: Any, stage: StageName) -> Any:
        key = (id(model), stage)
        hit = self.bound.get(key)
        if hit is None or hit[0] is not model:
            hit = (model, bind(model, stage, self.tools))
            self.bound[key] = hit
        return hit[1]


def _case(config: RunnableConfig) -> CaseRuntime:
    rt = config.get("configurable", {}).get("case")
    if not isinstance(rt, CaseRuntime):
        raise RuntimeError("case graph invoked without a CaseRuntime in configurable['case']")
    return rt


def _stage0(
    candidate: Candidate, render_pictures: Callable[[bytes], bytes] | None = None
) -> ArtifactReport:
    from judge.artifact.gate import missing_candidate, validate

    if candidate.missing:
        return missing_candidate(Path(candidate.pptx), candidate.missing)
    return validate(
        Path(candidate.pptx),
        reference=Path(candidate.reference),
        assets_dir=Path(candidate.assets_dir) if candidate.assets_dir else None,
        render_pictures=render_pictures,
    )


def _read_model(path: Path, model: type[M]) -> M | None:
    """A record from a case folder, or None when it is missing or corrupt (then recomputed:
    a truncated or hand-edited ``stage0.json``/``pair.json`` must not error the case forever)."""
    if not path.is_file():
        return None
    try:
        return model.model_validate_json(path.read_text(encoding="utf-8"))
    except (ValueError, OSError, UnicodeDecodeError):
        return None


def with_render_check(report: ArtifactReport, passed: bool, detail: str) -> ArtifactReport:
    """The report with its ``renders`` check set (replacing one Stage 0 left open)."""
    checks = [c for c in report.checks if c.name != "renders"]
    checks.append(CheckResult(name="renders", passed=passed, detail=detail))
    valid = all(c.passed for c in checks) and report.error is None
    return report.model_copy(update={"checks": checks, "valid": valid})


# ------------------------------------------------------------------------------------------
# the round graph


@dataclass
class RoundRuntime:
    case: CaseRuntime
    round_index: int
    recorder: Recorder


def _round(config: RunnableConfig) -> RoundRuntime:
    rt = config.get("configurable", {}).get("round")
    if not isinstance(rt, RoundRuntime):
        raise RuntimeError("round graph invoked without a RoundRuntime in configurable['round']")
    return rt


def _run_stage(
    stage: StageName,
    rr: RoundRuntime,
    tools: dict[str, Tool] | None = None,
    rubric: str | None = None,
) -> tuple[dict[str, Any] | None, str | None, Usage]:
    """One stage loop; ``tools`` (default: the case's) and the ``rubric`` text may be given."""
    case = rr.case
    if case.ctx is None:
        raise RuntimeError("round started before prepare set the tool context")
    model = case.backend.chat_model(case.ctx, stage, rr.round_index, case_id=case.candidate.case_id)
    call_model = None
    params = case.backend.cache_params()
    if (case.cache is not None and params is not None) or case.before_request is not None:
        call_model = model_caller(case.cache, params, rr.round_index, case.before_request)
    srt = StageRuntime(
        stage=stage,
        model=case.bind(model, stage) if tools is None else bind(model, stage, tools),
        ctx=case.ctx,
        tools=case.tools if tools is None else tools,
        recorder=rr.recorder,
        budgets=case.budgets,
        taxonomy=case.taxonomy,
        cost=case.backend.cost,
        rubric=case.rubric,
    )
    if call_model is not None:
        srt.call_model = call_model
    rubric = rubric if rubric is not None else stage_prompt(stage, case.taxonomy)
    messages = initial_messages(
        stage, system_prompt(), rubric, case.ctx.pair_png.read_bytes(), rr.recorder
    )
    out = run_stage(srt, messages)
    return out.verdict, out.error, out.usage


def _gate_node(stage: Literal["semantic", "render"]) -> Any:
    def node(state: RoundState, config: RunnableConfig) -> dict[str, Any]:
        verdict, error, usage = _run_stage(stage, _round(config))
        if error is not None or verdict is None:
            return {"status": "errored", "error": f"{stage} stage: {error}", "usage": usage}
        gate = GateVerdict.model_validate(verdict)
        update: dict[str, Any] = {stage: gate, "usage": usage}
        if not gate.passed:
            update["status"] = stage
        return update

    node.__name__ = f"{stage}_node"
    return node


def detail_node(state: RoundState, config: RunnableConfig) -> dict[str, Any]:
    """Stage 3: findings and affected fractions."""
    verdict, error, usage = _run_stage("detail", _round(config))
    if error is not None or verdict is None:
        return {"status": "errored", "error": f"detail stage: {error}", "usage": usage}
    return {"detail": DetailVerdict.model_validate(verdict), "usage": usage}


def finish_node(state: RoundState) -> dict[str, Any]:
    """Both gates passed and detail gave findings, unless an earlier outcome was set."""
    return {} if state.get("status") else {"status": "pass"}


def after_gate(state: RoundState) -> Literal["next", "finish"]:
    """A failed gate or an errored stage ends the round."""
    return "finish" if state.get("status") else "next"


def build_round_graph() -> CompiledGraph:
    g = StateGraph(RoundState)
    g.add_node("semantic", _gate_node("semantic"))  # Stage 1: same process?
    g.add_node("render", _gate_node("render"))  # Stage 2: legible rendering and text?
    g.add_node("detail", detail_node)  # Stage 3: findings only
    g.add_node("finish", finish_node)  # the round's status
    g.add_edge(START, "semantic")
    g.add_conditional_edges("semantic", after_gate, {"next": "render", "finish": "finish"})
    g.add_conditional_edges("render", after_gate, {"next": "detail", "finish": "finish"})
    g.add_edge("detail", "finish")
    g.add_edge("finish", END)
    return g.compile()


def rubric_node(state: RoundState, config: RunnableConfig) -> dict[str, Any]:
    """ReFigBench: one rubric pass. A model judge scores in one structured pass (no tools);
    the built-in judge calls its measurement tools first."""
    rr = _round(config)
    case = rr.case
    if case.rubric is None:
        raise RuntimeError("a rubric round needs the case's rubric")
    tools: dict[str, Tool] | None = {} if case.backend.name == "openai" else None
    prompt = rubric_prompt(case.rubric, case.audit)
    verdict, error, usage = _run_stage("rubric", rr, tools=tools, rubric=prompt)
    if error is not None or verdict is None:
        return {"status": "errored", "error": f"rubric stage: {error}", "usage": usage}
    return {"rubric": RubricVerdict.model_validate(verdict), "status": "pass", "usage": usage}


def build_rubric_round_graph() -> CompiledGraph:
    g = StateGraph(RoundState)
    g.add_node("rubric", rubric_node)  # ReFigBench: five axes in one pass
    g.add_edge(START, "rubric")
    g.add_edge("rubric", END)
    return g.compile()


# ------------------------------------------------------------------------------------------
# the case graph: nodes


def judgeable(rt: CaseRuntime, report: ArtifactReport, rendered: bool) -> bool:
    """The protocol's artifact gate: PPTBench's Stage 0, or the rubric's gate checks (before
    rendering, ``renders`` is not asked yet)."""
    if rt.protocol != "refigbench" or rt.rubric is None:
        return report.valid
    from scoring.refigbench import gate_failures

    return not [f for f in gate_failures(report, rt.rubric) if rendered or f != "renders"]


def validate_node(state: CaseState, config: RunnableConfig) -> dict[str, Any]:
    """Stage 0 without rendering (reused from ``stage0.json`` when the case was started)."""
    rt = _case(config)
    path = rt.case_dir.stage0
    report = _read_model(path, ArtifactReport)
    if report is None:
        try:
            if rt.validate is not None:
                report = rt.validate(rt.candidate)
            else:
                report = _stage0(rt.candidate, rt.render_pictures)
        except PptJudgeError as exc:  # the judge's side: the reference or the renderer
            return {"error": f"stage 0 could not check the candidate: {exc}"}
        write_model(path, report)
    rt.audit = report.audit
    return {"report": report, "judgeable": judgeable(rt, report, cd_rendered(rt))}


def cd_rendered(rt: CaseRuntime) -> bool:
    """The case was rendered before (a resumed run): Stage 0's ``renders`` check is final."""
    return rt.case_dir.render_json.is_file()


def render_node(state: CaseState, config: RunnableConfig) -> dict[str, Any]:
    """Render the deck once per case; a failed or blank render fails the ``renders`` check."""
    from judge.artifact.gate import render_check

    rt = _case(config)
    cd = rt.case_dir
    report = state["report"]
    done = _read_model(cd.render_json, RenderResult) if cd.render_png.is_file() else None
    if done is not None:
        renders = next((c for c in report.checks if c.name == "renders"), None)
        if renders is None or renders.skipped:  # stage0.json was recomputed: restore the check
            check = render_check(done)
            report = with_render_check(report, check.passed, check.detail)
            write_model(cd.stage0, report)
        return {"report": report}
    if rt.render is None:
        return {"error": "no renderer configured"}
    try:
        result = rt.render(Path(rt.candidate.pptx), cd.render_png)
    except RenderError as exc:
        report = with_render_check(report, False, str(exc))
        write_model(cd.stage0, report)
        return {"report": report, "judgeable": judgeable(rt, report, True)}
    write_model(cd.render_json, result)
    check = render_check(result)  # a blank render fails the check like a failed one
    report = with_render_check(report, check.passed, check.detail)
    write_model(cd.stage0, report)
    return {"report": report, "judgeable": judgeable(rt, report, True)}


def prepare_node(state: CaseState, config: RunnableConfig) -> dict[str, Any]:
    """Normalise the pair (once per case) and build the tools' context."""
    from judge.render.prepare import prepare_pair

    rt = _case(config)
    cd = rt.case_dir
    try:
        pair = _read_model(cd.pair_json, PairGeometry) if cd.pair_png.is_file() else None
        if pair is None:
            pair = prepare_pair(Path(rt.candidate.reference), cd.render_png, cd.pair_png)
            write_model(cd.pair_json, pair)
    except PptJudgeError as exc:
        return {"error": f"image preparation failed: {exc}"}
    rt.ctx = make_context(rt.candidate, cd, pair, rt.export_svg)
    return {"pair": pair}


def make_context(
    candidate: Candidate,
    cd: CaseDir,
    pair: PairGeometry,
    export_svg: Callable[[Path], bytes] | None = None,
) -> ToolContext:
    """The tools' view of a case; the object tree is read once here (None if unreadable)."""
    tree = None
    try:
        from judge.artifact.ooxml import read_object_tree

        tree = read_object_tree(Path(candidate.pptx))
    except PptJudgeError:
        tree = None
    pptx = Path(candidate.pptx)
    return ToolContext(
        pptx=pptx,
        reference_png=Path(candidate.reference),
        render_png=cd.render_png,
        pair_png=cd.pair_png,
        pair=pair,
        object_tree=tree,
        render_svg=(lambda: export_svg(pptx)) if export_svg is not None else None,
    )


def round_node(state: RoundInput, config: RunnableConfig) -> dict[str, Any]:
    """Judge one round through the round graph; write its result and trajectory."""
    rt = _case(config)
    k = state["round_index"]
    result = run_round(rt, k)
    rt.on_round(result)
    return {"rounds": [result]}


def run_round(rt: CaseRuntime, k: int) -> RoundResult:
    """Run round ``k`` of a case and write ``round-<k>.json`` and its trajectory."""
    recorder = Recorder(ImageStore(rt.case_dir.images_dir))
    t0 = time.perf_counter()
    if rt.slots is not None:
        rt.slots.acquire()
    try:
        graph = rubric_round_graph() if rt.protocol == "refigbench" else round_graph()
        final = graph.invoke(
            {"case_id": rt.candidate.case_id, "round_index": k, "usage": Usage()},
            config={"configurable": {"round": RoundRuntime(rt, k, recorder)}},
        )
    finally:
        if rt.slots is not None:
            rt.slots.release()
    result = RoundResult(
        case_id=rt.candidate.case_id,
        round_index=k,
        status=final.get("status") or "errored",
        semantic=final.get("semantic"),
        render=final.get("render"),
        detail=final.get("detail"),
        rubric=final.get("rubric"),
        error=final.get("error"),
        backend=rt.backend.name,
        usage=final.get("usage", Usage()),
        seconds=round(time.perf_counter() - t0, 3),
    )
    recorder.write(rt.case_dir.trajectory(k))  # trajectory first: the round file marks done
    write_model(rt.case_dir.round_json(k), result)
    return result


def collect_node(state: CaseState, config: RunnableConfig) -> dict[str, Any]:
    """Join the rounds: copies for a deterministic backend, ``skipped`` under early stop."""
    rt = _case(config)
    total = state["rounds_total"]
    have = {r.round_index: r for r in state.get("rounds", [])}
    missing = [k for k in range(total) if k not in have]
    if not missing:
        return {}
    new: list[RoundResult] = []
    if rt.backend.deterministic and 0 in have:
        src = have[0]
        events = read_trajectory(rt.case_dir.trajectory(0))
        free = Usage(cost_usd=None if src.usage.cost_usd is None else 0.0)
        for k in missing:
            # a copy costs nothing: the run's usage counts the calls really made
            update = {"round_index": k, "copied_from": 0, "usage": free, "seconds": 0.0}
            copy = src.model_copy(update=update)
            write_trajectory(rt.case_dir.trajectory(k), events)
            write_model(rt.case_dir.round_json(k), copy)
            rt.on_round(copy)
            new.append(copy)
    elif rt.early_stop and settled(list(have.values()), total, rt.policy):
        for k in missing:
            skipped = RoundResult(
                case_id=rt.candidate.case_id,
                round_index=k,
                status="skipped",
                backend=rt.backend.name,
                error="early stop: this round could not change the case result",
            )
            write_model(rt.case_dir.round_json(k), skipped)
            rt.on_round(skipped)
            new.append(skipped)
    return {"rounds": new}


def settled(rounds: list[RoundResult], total: int, policy: Policy) -> bool:
    """True when the remaining rounds can change neither the rejection nor its gate.

    Only a rejection settles a case early: a passing case's findings come from every passing
    round. The gate of a rejection (semantic vs render, the larger count) must also be beyond
    reach of the remaining rounds, so an early-stopped run gives the full run's result. The
    vote rule is :func:`scoring.aggregate.decide`'s: the case is settled when it decides the same
    rejection whether the remaining rounds stay open, all fail at ``semantic`` or all at
    ``render`` (a pass is out of reach when even open rounds cannot reach the threshold, and
    mixed outcomes fall between the two extremes).
    """
    from scoring.aggregate import count_votes, decide, vote_threshold

    votes = count_votes(rounds)
    remaining = total - len(rounds)
    try:
        threshold = vote_threshold(policy, total)
    except ScoringError:
        return False  # the policy cannot be met: judge every round, scoring reports it

    def completed(status: RoundStatus) -> CaseGate | None:
        return decide({**votes, status: votes.get(status, 0) + remaining}, threshold)

    gate = completed("errored")
    if gate is None or gate == "pass":
        return False
    return completed("semantic") == gate == completed("render")


def dispatch_node(state: CaseState, config: RunnableConfig) -> dict[str, Any]:
    """Choose the rounds to start now: all missing ones, or one at a time (early stop and
    deterministic backends); none once the cost budget is spent."""
    rt = _case(config)
    have = {r.round_index for r in state.get("rounds", [])}
    missing = [k for k in range(state["rounds_total"]) if k not in have]
    if not missing:
        return {"pending": []}
    if not rt.may_start():
        return {"pending": [], "stopped": "cost budget spent: rounds left unjudged"}
    if rt.deadline is not None and time.monotonic() > rt.deadline:
        return {
            "pending": [],
            "error": "the case's overall deadline passed before every round was judged "
            "(rerun the same command to retry it)",
        }
    one_by_one = rt.early_stop or rt.backend.deterministic
    return {"pending": missing[:1] if one_by_one else missing}


def order_rounds_node(state: CaseState) -> dict[str, Any]:
    """One result per round index, in order (the last written wins).

    The graph node keeps DESIGN.md's name ``aggregate`` (the join before scoring); the votes and
    the merge of findings are :mod:`scoring.aggregate`'s, called by ``score``."""
    by_index = {r.round_index: r for r in state.get("rounds", [])}
    return {"final_rounds": [by_index[k] for k in sorted(by_index)]}


def score_node(state: CaseState, config: RunnableConfig) -> dict[str, Any]:
    """Votes, merged findings and points (:mod:`scoring.case`); writes ``case.json``."""
    from scoring.case import build_case_result
    from scoring.diagnostics import with_diagnostics
    from scoring.refigbench import refig_case_result

    rt = _case(config)
    if rt.protocol == "refigbench" and rt.rubric is not None:
        result = refig_case_result(
            rt.candidate,
            state.get("report"),
            state.get("final_rounds", []),
            rt.rubric,
            rt.rubric_hash,
            error=state.get("error"),
        )
    else:
        result = build_case_result(
            rt.candidate,
            state.get("report"),
            state.get("final_rounds", []),
            rt.taxonomy,
            rt.taxonomy_hash,
            rt.policy,
            error=state.get("error"),
        )
    result = with_diagnostics(
        result, rt.candidate, rt.case_dir, state.get("report"), rt.lpips_weights
    )
    write_model(rt.case_dir.case_json, result)
    return {"result": result}


# ------------------------------------------------------------------------------------------
# the case graph: routers (pure)


def after_validate(state: CaseState) -> Literal["render", "score"]:
    """Invalid artifacts (and files Stage 0 could not read) are scored without model calls."""
    if state.get("error") or state.get("report") is None:
        return "score"
    return "render" if state.get("judgeable", state["report"].valid) else "score"


def after_render(state: CaseState) -> Literal["prepare", "score"]:
    if state.get("error") or not state.get("judgeable", state["report"].valid):
        return "score"
    return "prepare"


def after_prepare(state: CaseState) -> Literal["collect", "score"]:
    return "score" if state.get("error") else "collect"


def fan_out(state: CaseState) -> list[Send] | Literal["aggregate", "__end__"]:
    """One ``Send`` per round to start; ``aggregate`` when every round is known."""
    if state.get("stopped"):
        return "__end__"
    pending = state.get("pending", [])
    if pending:
        return [Send("round", {"round_index": k}) for k in pending]
    return "aggregate"


def build_graph() -> CompiledGraph:
    """The case graph, top to bottom as in DESIGN.md."""
    g = StateGraph(CaseState)
    g.add_node("validate", validate_node)  # Stage 0 without rendering
    g.add_node("render", render_node)  # LibreOffice, once per case
    g.add_node("prepare", prepare_node)  # the normalised pair and the tools' context
    g.add_node("collect", collect_node)  # join the rounds (reducer), copies / skipped
    g.add_node("dispatch", dispatch_node)  # which rounds start now
    g.add_node("round", round_node)  # one judged round (semantic -> render -> detail)
    g.add_node("aggregate", order_rounds_node)  # one result per round, in order
    g.add_node("score", score_node)  # votes, findings, points -> case.json
    g.add_edge(START, "validate")
    g.add_conditional_edges("validate", after_validate)  # invalid -> score
    g.add_conditional_edges("render", after_render)  # render failed -> score
    g.add_conditional_edges("prepare", after_prepare)  # unreadable image -> score
    g.add_edge("collect", "dispatch")
    g.add_conditional_edges("dispatch", fan_out, ["round", "aggregate", END])  # Send x R
    g.add_edge("round", "collect")
    g.add_edge("aggregate", "score")
    g.add_edge("score", END)
    return g.compile()


_GRAPHS: dict[str, CompiledGraph] = {}
_GRAPH_LOCK = threading.Lock()


def _compiled(name: str, build: Callable[[], CompiledGraph]) -> CompiledGraph:
    with _GRAPH_LOCK:
        if name not in _GRAPHS:
            _GRAPHS[name] = build()
        return _GRAPHS[name]


def round_graph() -> CompiledGraph:
    return _compiled("round", build_round_graph)


def rubric_round_graph() -> CompiledGraph:
    return _compiled("rubric-round", build_rubric_round_graph)


def case_graph() -> CompiledGraph:
    return _compiled("case", build_graph)


def load_rounds(cd: CaseDir, total: int) -> list[RoundResult]:
    """Rounds already written for a case (a resumed run); a round file marks it done."""
    out: list[RoundResult] = []
    for k in range(total):
        path = cd.round_json(k)
        if path.is_file():
            try:
                out.append(RoundResult.model_validate_json(path.read_text(encoding="utf-8")))
            except ValueError:
                continue  # unreadable (cannot happen with atomic writes): judge it again
    return out


def judge_case(rt: CaseRuntime, rounds_total: int, max_concurrency: int = 4) -> CaseResult | None:
    """Judge one case through the graph; None when the cost budget stopped it unfinished."""
    state: CaseState = {
        "candidate": rt.candidate,
        "case_dir": str(rt.case_dir.root),
        "rounds_total": rounds_total,
        "rounds": load_rounds(rt.case_dir, rounds_total),
    }
    final = case_graph().invoke(
        state,
        config={
            "configurable": {"case": rt},
            "max_concurrency": max_concurrency,
            "recursion_limit": 8 * rounds_total + 20,
        },
    )
    return final.get("result")
