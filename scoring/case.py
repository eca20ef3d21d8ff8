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

from judge.errors import ScoringError
from judge.schema import (
    ArtifactReport,
    Candidate,
    CaseResult,
    Policy,
    RoundResult,
    Taxonomy,
    Usage,
)
from scoring.aggregate import aggregate, describe_undecided, vote_threshold
from scoring.rank import rank


def build_case_result(
    candidate: Candidate,
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
    return case_result(
        candidate.case_id,
        candidate.task_id,
        candidate.config_id,
        report,
        rounds,
        tax,
        tax_hash,
        policy,
        error,
    )


def case_result(
    case_id: str,
    task_id: str,
    config_id: str,
    report: ArtifactReport | None,
    rounds: Sequence[RoundResult],
    tax: Taxonomy,
    tax_hash: str,
    policy: Policy,
    error: str | None = None,
) -> CaseResult:
    """:func:`build_case_result` by case identity (what rescoring has without the deck paths)."""
    ordered = sorted(rounds, key=lambda r: r.round_index)
    usage = reduce(lambda a, b: a + b, (r.usage for r in ordered), Usage())
    result = CaseResult(
        case_id=case_id,
        task_id=task_id,
        config_id=config_id,
        valid=report.valid if report is not None else error is None,
        artifact_failures=report.failures if report is not None else [],
        taxonomy_version=tax.version,
        taxonomy_hash=tax_hash,
        policy=policy.name,
        usage=usage,
    )
    if report is not None and report.error:
        result.valid = False
        result.error = f"stage 0 could not check {report.path}: {report.error}"
        return result
    if report is not None and not report.valid:
        result.gate = "artifact"
        result.score = result.layout = result.text = result.graphics = 0.0
        result.usage = Usage()
        return result
    result.rounds = [r.status for r in ordered]
    if error is not None:
        result.error = error
        return result
    if not ordered:
        result.error = "no rounds were judged"
        return result
    try:
        gate, votes, findings = aggregate(ordered, policy)
        result.gate_votes = votes
        if gate is None:
            result.error = describe_undecided(votes, vote_threshold(policy, len(ordered)))
            return result
        result.gate = gate
        if gate != "pass":
            result.score = result.layout = result.text = result.graphics = 0.0
            return result
        breakdown = rank(findings, tax, policy)
    except ScoringError as exc:
        result.gate = None
        result.error = f"cannot score: {exc}"
        return result
    result.findings = findings
    result.breakdown = breakdown
    result.score = breakdown.score
    result.layout = breakdown.layout
    result.text = breakdown.text
    result.graphics = breakdown.graphics
    return result
