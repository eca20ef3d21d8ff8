"""One case's result (the ``results.jsonl`` line) from its Stage 0 report and judged rounds.

The judge engine calls :func:`build_case_result` once per case; ``judge rescore`` calls it again
on the frozen files. The outcomes:

* Stage 0 could not check the file (``report.error``), or the caller passes ``error``:
  ``error`` set, ``gate`` and ``score`` None.
* Invalid artifact: ``gate = "artifact"``, score 0, no rounds (any rounds given are ignored).
* Rounds decide a rejection: gate ``semantic`` or ``render``, score 0.
* Rounds undecided (errored rounds could tip it): ``error`` set, score None.
* Pass: score and per-dimension points from :func:`scoring.rank.rank`, with the breakdown.

Scoring problems (a finding whose subtype the taxonomy lacks, a round without a category
fraction) become the case's ``error`` so a batch goes on.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import reduce
from typing import Any, Protocol

from judge.errors import ScoringError
from judge.schema import (
    ArtifactReport,
    CaseResult,
    Policy,
    RoundResult,
    Taxonomy,
)
from scoring.aggregate import aggregate, count_votes, describe_undecided, vote_threshold
from scoring.rank import rank


class CaseKey(Protocol):
    """Who a case is: a :class:`Candidate` while judging, a :class:`RecordedCase` when
    rescoring (which has no deck paths)."""

    @property
    def case_id(self) -> str: ...
    @property
    def task_id(self) -> str: ...
    @property
    def config_id(self) -> str: ...


def build_case_result(
    case: CaseKey,
    report: ArtifactReport | None,
    rounds: Sequence[RoundResult],
    tax: Taxonomy,
    tax_hash: str,
    policy: Policy,
    error: str | None = None,
) -> CaseResult:
    """The case's :class:`CaseResult` under ``tax`` (whose hash is ``tax_hash``) and ``policy``.

    ``report`` None means Stage 0 produced no report: then ``rounds`` are taken as judged on a
    valid artifact, and with no rounds the case is an error.
    """
    ordered = sorted(rounds, key=lambda r: r.round_index)
    fields: dict[str, Any] = {
        "case_id": case.case_id,
        "task_id": case.task_id,
        "config_id": case.config_id,
        "valid": report.valid if report is not None else error is None,
        # the checks that ran and failed: a check not run after an earlier failure (skipped)
        # counts against validity but is no finding of its own
        "artifact_failures": [c.name for c in report.checks if not c.passed and not c.skipped]
        if report is not None
        else [],
        "taxonomy_version": tax.version,
        "taxonomy_hash": tax_hash,
        "policy": policy.name,
    }
    zero: dict[str, Any] = {"score": 0.0, "layout": 0.0, "text": 0.0, "graphics": 0.0}
    # Fields are collected first and the result built once (this runs per case when rescoring).
    if report is not None and report.error:
        fields["valid"] = False
        fields["error"] = f"stage 0 could not check {report.path}: {report.error}"
    elif report is not None and not report.valid:
        return CaseResult(**fields, **zero, gate="artifact")
    else:
        fields["rounds"] = [r.status for r in ordered]
        if error is not None:
            fields["error"] = error
        elif not ordered:
            fields["error"] = "no rounds were judged"
        else:
            fields.update(_judged(ordered, tax, policy, zero))
    if ordered:
        fields["usage"] = reduce(lambda a, b: a + b, (r.usage for r in ordered))
    return CaseResult(**fields)


def _judged(
    ordered: list[RoundResult], tax: Taxonomy, policy: Policy, zero: dict[str, Any]
) -> dict[str, Any]:
    """The result fields decided by the rounds: gate, votes, and score or error."""
    try:
        gate, votes, findings = aggregate(ordered, policy)
        if gate is None:
            undecided = describe_undecided(votes, vote_threshold(policy, len(ordered)))
            return {"gate_votes": votes, "error": undecided}
        if gate != "pass":
            return {"gate_votes": votes, "gate": gate, **zero}
        breakdown = rank(findings, tax, policy)
    except ScoringError as exc:
        return {"gate_votes": count_votes(ordered), "error": f"cannot score: {exc}"}
    return {
        "gate_votes": votes,
        "gate": gate,
        "findings": findings,
        "breakdown": breakdown,
        "score": breakdown.score,
        "layout": breakdown.layout,
        "text": breakdown.text,
        "graphics": breakdown.graphics,
    }
