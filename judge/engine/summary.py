"""What the end-of-run summary says beyond counts: notes on settings that do nothing, why
rounds were copied, what the cost figure means, and the errored cases grouped by cause.

Pure functions of the run's records; :mod:`judge.engine.runner` fills
:class:`~judge.engine.runner.RunSummary` with them and ``cli/`` prints it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from judge.backends import Backend
from judge.rundir import case_dir
from judge.schema import Candidate, CaseResult, RoundResult, Usage

UNDECIDED_PREFIX = "undecided:"
"""Start of a case error whose real cause is in its errored rounds (scoring.aggregate)."""


@dataclass(frozen=True)
class ErrorGroup:
    """Errored cases sharing one cause."""

    cause: str
    """The error of the first case of the group, as recorded."""
    cases: list[str]
    """Case ids, in benchmark order."""


def usd(amount: float) -> str:
    """A dollar amount as given (``0.005`` -> ``$0.005``, ``5`` -> ``$5``), never rounded away."""
    text = f"{amount:.10f}".rstrip("0").rstrip(".")
    return f"${text or '0'}"


def copy_reason(backend: Backend) -> str | None:
    """Why the backend's rounds 1.. are copies of round 0; None when every round is judged."""
    if not backend.deterministic:
        return None
    if backend.name == "builtin":
        return "the builtin judge is deterministic: every round would give the same answer"
    return f"the {backend.name} judge gives the same answer every round (one script file)"


def setting_notes(backend: Backend, early_stop: bool) -> list[str]:
    """Flags that have no effect with this backend, said before judging."""
    notes = []
    if early_stop and backend.deterministic:
        notes.append(
            f"--early-stop does nothing with the {backend.name} judge: it judges round 0 once "
            "and copies it to the other rounds"
        )
    return notes


def cost_free_reason(backend: Backend) -> str | None:
    """Why the run has no model cost at all (builtin, replay); None for a model endpoint."""
    if backend.name in ("builtin", "replay"):
        return f"the {backend.name} judge calls no paid model"
    return None


def prices_known(backend: Backend) -> bool:
    return backend.cost(Usage(input_tokens=1)) is not None


def _round_cause(run: Path, result: CaseResult) -> str | None:
    """The error of the first errored round of a case (its real cause when undecided)."""
    rounds = case_dir(run, result.config_id, result.task_id).rounds_dir
    for k in range(len(result.rounds)):
        path = rounds / f"round-{k}.json"
        try:
            r = RoundResult.model_validate_json(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        if r.status == "errored" and r.error:
            return f"round {k}: {r.error}"
    return None


def _key(cause: str, cand: Candidate | None) -> str:
    """The cause with what names the case (paths, ids, round numbers) blanked, for grouping."""
    key = cause
    if cand is not None:
        for text, mark in (
            (cand.pptx, "<candidate>"),
            (cand.reference, "<reference>"),
            (cand.case_id, "<case>"),
        ):
            key = key.replace(text, mark)
        key = re.sub(rf"(?<![\w-]){re.escape(cand.task_id)}(?![\w-])", "<task>", key)
    return re.sub(r"\bround \d+", "round <k>", key)


def group_errors(
    run: Path, results: Iterable[CaseResult], candidates: Iterable[Candidate]
) -> list[ErrorGroup]:
    """Errored cases grouped by cause, largest group first (ties: benchmark order)."""
    by_id = {c.case_id: c for c in candidates}
    order = {cid: i for i, cid in enumerate(by_id)}
    groups: dict[str, ErrorGroup] = {}
    for r in sorted(results, key=lambda r: order.get(r.case_id, len(order))):
        if r.error is None:
            continue
        cause = r.error
        if cause.startswith(UNDECIDED_PREFIX):
            cause = _round_cause(run, r) or cause
        key = _key(cause, by_id.get(r.case_id))
        if key not in groups:
            groups[key] = ErrorGroup(cause=cause, cases=[])
        groups[key].cases.append(r.case_id)
    return sorted(groups.values(), key=lambda g: -len(g.cases))
