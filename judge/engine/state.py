"""Graph state of the judge: the case graph, the round graph and the stage loop.

The records inside the state (reports, verdicts, round results) are the contracts of
:mod:`judge.schema`; this module only says how the graphs carry them. Runtime objects that are
not data (the backend, the render pool, the tool context, the trajectory recorder) travel in the
LangGraph ``config["configurable"]`` mapping, never in the state.
"""

from __future__ import annotations

import operator
from typing import Annotated, Any, TypedDict

from langchain_core.messages import AnyMessage
from langgraph.graph.state import CompiledStateGraph

from judge.schema import (
    ArtifactReport,
    Candidate,
    CaseResult,
    DetailVerdict,
    GateVerdict,
    PairGeometry,
    RoundResult,
    RoundStatus,
    RubricVerdict,
    StageName,
    Usage,
)

CompiledGraph = CompiledStateGraph[Any, Any, Any, Any]
"""A compiled LangGraph graph (state, context, input and output types left open)."""


class CaseState(TypedDict, total=False):
    """State of one case through validate -> render -> prepare -> rounds -> score."""

    candidate: Candidate
    case_dir: str
    """The case folder inside the run directory (see :class:`judge.rundir.CaseDir`)."""
    rounds_total: int
    """R, the number of rounds the case is judged in."""
    report: ArtifactReport
    pair: PairGeometry
    rounds: Annotated[list[RoundResult], operator.add]
    """Finished rounds (reducer: branches append; the runner seeds it with rounds on disk)."""
    result: CaseResult
    error: str | None
    """Set when the case could not be judged (render pool broken, unreadable image, ...)."""
    judgeable: bool
    """The protocol's artifact gate is open so far (PPTBench: Stage 0 valid; ReFigBench: the
    rubric's gate checks pass)."""
    stopped: str | None
    """Set when the run budget stopped new rounds from starting (the case stays unfinished)."""
    pending: list[int]
    """Round indices ``dispatch`` chose to start now."""
    final_rounds: list[RoundResult]
    """One result per round index, in order (``aggregate``)."""


class RoundInput(TypedDict):
    """What the fan-out sends to one round branch."""

    round_index: int


class RoundState(TypedDict, total=False):
    """State of one round: semantic gate -> render/text gate -> detail."""

    case_id: str
    round_index: int
    semantic: GateVerdict | None
    render: GateVerdict | None
    detail: DetailVerdict | None
    rubric: RubricVerdict | None
    """The ReFigBench rubric verdict (rubric rounds only)."""
    status: RoundStatus | None
    """Set as soon as the round's outcome is known (a failed gate, an errored stage)."""
    error: str | None
    usage: Annotated[Usage, operator.add]


class StageState(TypedDict, total=False):
    """State of one stage's tool-calling loop."""

    stage: StageName
    messages: Annotated[list[AnyMessage], operator.add]
    turns: int
    """Model calls made so far in this stage."""
    tool_calls: int
    """Measurement tool calls made so far (budgeted)."""
    invalid_submits: int
    """Rejected ``submit_verdict`` calls so far (budgeted)."""
    idle_turns: int
    """Model answers that called no tool at all (budgeted)."""
    deferred: list[AnyMessage]
    """Messages held back until the submit node answered its calls: tool images go in a user
    message, which must follow *every* tool message of the answer (Chat Completions rule)."""
    verdict: dict[str, Any] | None
    """The accepted ``submit_verdict`` arguments."""
    error: str | None
    """Why the stage ended without a verdict (budget spent, backend failure)."""
    usage: Annotated[Usage, operator.add]
