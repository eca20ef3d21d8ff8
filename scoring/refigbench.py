"""ReFigBench scoring: gate, five rubric axes averaged over rounds, and the raster-paste cap.

Every number comes from the rubric file (:mod:`taxonomy.rubric`). A case:

* fails the gate (a check of ``rubric.gate`` failed or was skipped in the Stage 0 report, or
  the file could not be checked): ``gate = "artifact"``, score 0, no rounds;
* otherwise each round that gave a valid :class:`~judge.schema.RubricVerdict` counts; the case's
  axis points are the means over those rounds, the raw score their sum (0-100);
* the cap: when the pictures cover at least ``cap.picture_area_min`` of the canvas and the deck
  holds at most ``cap.max_native_objects`` native editable components, the score is
  ``min(raw, cap.cap_score)``;
* no round scored: ``error`` set, no score (never a default).

On a refigbench results line ``valid`` and ``artifact_failures`` are the rubric gate's (a deck
PPTBench's Stage 0 rejects for pasting the reference still passes this gate and is capped).
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import reduce
from typing import Any

from judge.schema import (
    ArtifactReport,
    Candidate,
    CaseResult,
    ObjectAudit,
    RecordedCase,
    RefigScore,
    RoundResult,
    Rubric,
    RubricVerdict,
)

POLICY_NAME = "refigbench"
"""The ``policy`` of a refigbench results line (their scores never pool with PPTBench's)."""


def gate_failures(report: ArtifactReport | None, rubric: Rubric) -> list[str]:
    """The rubric's gate checks that failed, were skipped or never ran (empty: gate passed)."""
    if report is None or report.error:
        return list(rubric.gate)
    by_name = {c.name: c for c in report.checks}
    return [
        name
        for name in rubric.gate
        if name not in by_name or not by_name[name].passed or by_name[name].skipped
    ]


def gate_passes(report: ArtifactReport | None, rubric: Rubric) -> bool:
    return not gate_failures(report, rubric)


def cap_applies(audit: ObjectAudit | None, rubric: Rubric) -> bool:
    """The raster-paste rule: pictures over ``picture_area_min`` of the canvas, few objects."""
    if audit is None:
        return False
    cap = rubric.cap
    return (
        audit.picture_area_ratio >= cap.picture_area_min
        and audit.editable_components <= cap.max_native_objects
    )


def verdict_problems(verdict: RubricVerdict, rubric: Rubric) -> list[str]:
    """What is wrong with a rubric verdict, as messages the model can act on (empty: valid)."""
    problems: list[str] = []
    seen: dict[str, int] = {}
    for i, score in enumerate(verdict.axes):
        try:
            axis = rubric.axis(score.axis)
        except KeyError:
            known = ", ".join(a.name for a in rubric.axes)
            problems.append(f"axes[{i}]: unknown axis {score.axis!r} (axes: {known})")
            continue
        seen[axis.name] = seen.get(axis.name, 0) + 1
        if score.points > axis.max_points:
            problems.append(
                f"axes[{i}] ({axis.name}): {score.points:g} points is above the maximum "
                f"{axis.max_points:g}"
            )
    for axis in rubric.axes:
        n = seen.get(axis.name, 0)
        if n != 1:
            problems.append(f"axis {axis.name!r} scored {n} times; score it exactly once")
    return problems


def axis_points(rounds: Sequence[RoundResult], rubric: Rubric) -> tuple[dict[str, float], int]:
    """Mean points per axis over the rounds with a valid verdict, and how many rounds those are."""
    scored = [
        r.rubric
        for r in rounds
        if r.status == "pass" and r.rubric is not None and not verdict_problems(r.rubric, rubric)
    ]
    if not scored:
        return {}, 0
    out: dict[str, float] = {}
    for axis in rubric.axes:
        pts = [next(s.points for s in v.axes if s.axis == axis.name) for v in scored]
        out[axis.name] = round(sum(pts) / len(pts), 4)
    return out, len(scored)


def refig_case_result(
    candidate: Candidate | RecordedCase,
    report: ArtifactReport | None,
    rounds: Sequence[RoundResult],
    rubric: Rubric,
    rubric_hash: str,
    error: str | None = None,
) -> CaseResult:
    """The refigbench :class:`CaseResult` of a case (see the module docstring)."""
    ordered = sorted(rounds, key=lambda r: r.round_index)
    failures = gate_failures(report, rubric)
    fields: dict[str, Any] = {
        "case_id": candidate.case_id,
        "task_id": candidate.task_id,
        "config_id": candidate.config_id,
        "valid": not failures,
        "artifact_failures": failures,
        "taxonomy_version": rubric.version,
        "taxonomy_hash": rubric_hash,
        "policy": POLICY_NAME,
        "protocol": "refigbench",
        "audit": report.audit if report is not None else None,
    }
    if report is not None and report.error:
        fields["error"] = f"stage 0 could not check {report.path}: {report.error}"
        return CaseResult(**fields)
    if failures:
        empty = RefigScore(rubric_version=rubric.version, rubric_hash=rubric_hash)
        return CaseResult(**fields, gate="artifact", score=0.0, refigbench=empty)
    fields["rounds"] = [r.status for r in ordered]
    votes: dict[str, int] = {}
    for r in ordered:
        votes[r.status] = votes.get(r.status, 0) + 1
    fields["gate_votes"] = votes
    if ordered:
        fields["usage"] = reduce(lambda a, b: a + b, (r.usage for r in ordered))
    axes, n = axis_points(ordered, rubric)
    if error is not None:
        return CaseResult(**fields, error=error)
    if n == 0:
        return CaseResult(**fields, error="no round gave a valid rubric verdict")
    raw = round(sum(axes.values()), 4)
    capped = cap_applies(fields["audit"], rubric)
    score = min(raw, rubric.cap.cap_score) if capped else raw
    refig = RefigScore(
        axes=axes,
        raw_score=raw,
        cap_applied=capped,
        rounds_scored=n,
        rubric_version=rubric.version,
        rubric_hash=rubric_hash,
    )
    return CaseResult(**fields, gate="pass", score=round(score, 4), refigbench=refig)
