"""Findings analytics of a run: which issues the judge reports, how often, and what they cost.

Reads only :class:`judge.schema.CaseResult` lines. Definitions:

* per subtype (dimension, category, subtype), over cases that passed both gates (only those have
  merged Stage 3 findings that count):
  - ``cases``: cases whose merged findings include it;
  - ``occurrences``: round sightings behind those merged findings (its observations; when a
    result carries no observations, its number of supporting rounds);
  - ``mean_fraction``: mean merged affected fraction rho over those cases (0-1);
  - ``penalty``: points lost to it, summed over cases, from ``breakdown.penalties`` (counted
    entries only; cases without a breakdown contribute nothing and are counted in
    ``cases_without_breakdown``);
  - ``single_round_share``: share of its merged findings supported by exactly one round (0-1);
* per dimension, the share of all counted penalty points (0-1; before caps, as recorded);
* per stage, failure counts: cases and rounds that failed each gate, errored rounds and cases,
  skipped rounds, and Stage 0 failures per check name.
"""

from __future__ import annotations

import json
import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field

from judge.schema import CaseResult

DIMENSIONS = ("layout", "text", "graphics")


@dataclass
class SubtypeStats:
    dimension: str
    category: str
    subtype: str
    cases: int = 0
    occurrences: int = 0
    mean_fraction: float = 0.0
    penalty: float = 0.0
    single_round_share: float = 0.0


@dataclass(frozen=True)
class DimensionShare:
    dimension: str
    penalty: float
    """Points lost in this dimension, summed over cases."""
    share: float | None
    """Share of all penalty points (0-1); None when no points were lost at all."""


@dataclass(frozen=True)
class StageFailures:
    artifact_cases: int
    """Cases invalid at Stage 0."""
    semantic_cases: int
    """Cases whose vote failed at Stage 1."""
    render_cases: int
    passed_cases: int
    errored_cases: int
    semantic_rounds: int
    """Rounds rejected at Stage 1."""
    render_rounds: int
    passed_rounds: int
    errored_rounds: int
    skipped_rounds: int
    artifact_checks: dict[str, int] = field(default_factory=dict)
    """Failing cases per Stage 0 check name."""


@dataclass(frozen=True)
class FindingsReport:
    cases: int
    passed_cases: int
    cases_without_breakdown: int
    subtypes: list[SubtypeStats]
    dimensions: list[DimensionShare]
    stages: StageFailures

    def to_dict(self) -> dict[str, object]:
        return asdict(self)


def findings_report(cases: Sequence[CaseResult]) -> FindingsReport:
    """Compute the findings analytics (see the module docstring) of a run's cases."""
    stats: dict[tuple[str, str, str], SubtypeStats] = {}
    fractions: dict[tuple[str, str, str], list[float]] = {}
    single: Counter[tuple[str, str, str]] = Counter()
    dim_points: dict[str, float] = dict.fromkeys(DIMENSIONS, 0.0)
    passed = [c for c in cases if c.error is None and c.gate == "pass" and c.valid]
    without_breakdown = 0
    key: tuple[str, str, str]
    for case in passed:
        for f in case.findings:
            key = (f.dimension, f.category, f.subtype)
            st = stats.setdefault(key, SubtypeStats(*key))
            st.cases += 1
            st.occurrences += len(f.observations) if f.observations else len(f.support)
            fractions.setdefault(key, []).append(f.fraction)
            if len(set(f.support)) == 1:
                single[key] += 1
        if case.breakdown is None:
            without_breakdown += 1 if case.findings else 0
            continue
        for p in case.breakdown.penalties:
            if not p.counted:
                continue
            key = (p.dimension, p.category, p.subtype)
            st = stats.setdefault(key, SubtypeStats(*key))
            st.penalty += p.penalty
            dim_points[p.dimension] = dim_points.get(p.dimension, 0.0) + p.penalty
    for key, st in stats.items():
        fr = fractions.get(key, [])
        st.mean_fraction = sum(fr) / len(fr) if fr else 0.0
        st.single_round_share = single[key] / st.cases if st.cases else 0.0
    total = sum(dim_points.values())
    dims = [
        DimensionShare(d, pts, pts / total if total > 0 else None) for d, pts in dim_points.items()
    ]

    rounds = Counter(s for c in cases for s in c.rounds)
    checks: Counter[str] = Counter()
    for c in cases:
        if not c.valid and c.error is None:
            checks.update(c.artifact_failures)
    errored = {c.case_id for c in cases if c.error is not None or c.gate is None}
    gates = Counter(c.gate for c in cases if c.case_id not in errored)
    stages = StageFailures(
        artifact_cases=gates.get("artifact", 0),
        semantic_cases=gates.get("semantic", 0),
        render_cases=gates.get("render", 0),
        passed_cases=gates.get("pass", 0),
        errored_cases=len(errored),
        semantic_rounds=rounds.get("semantic", 0),
        render_rounds=rounds.get("render", 0),
        passed_rounds=rounds.get("pass", 0),
        errored_rounds=rounds.get("errored", 0),
        skipped_rounds=rounds.get("skipped", 0),
        artifact_checks=dict(sorted(checks.items(), key=lambda kv: (-kv[1], kv[0]))),
    )
    ordered = sorted(stats.values(), key=lambda s: (-s.penalty, -s.cases, s.subtype))
    return FindingsReport(
        cases=len(cases),
        passed_cases=len(passed),
        cases_without_breakdown=without_breakdown,
        subtypes=ordered,
        dimensions=dims,
        stages=stages,
    )


def findings_json(rep: FindingsReport) -> str:
    return json.dumps(rep.to_dict(), indent=2)


def findings_text(rep: FindingsReport) -> str:
    from scoring.leaderboard import format_table

    lines = [f"{rep.cases} cases, {rep.passed_cases} passed both gates", ""]
    headers = [
        "dimension",
        "category",
        "subtype",
        "cases",
        "occur",
        "mean rho",
        "penalty",
        "1-round",
    ]
    rows = [
        [
            s.dimension,
            s.category,
            s.subtype,
            str(s.cases),
            str(s.occurrences),
            f"{s.mean_fraction:.2f}",
            f"{s.penalty:.1f}",
            f"{100 * s.single_round_share:.0f}%",
        ]
        for s in rep.subtypes
    ]
    lines.append(format_table(headers, rows, left=(0, 1, 2)) if rows else "no findings")
    lines.append("")
    lines.append(
        "penalty share by dimension: "
        + ", ".join(
            f"{d.dimension} {d.penalty:.1f} pts"
            + ("" if d.share is None or math.isnan(d.share) else f" ({100 * d.share:.0f}%)")
            for d in rep.dimensions
        )
    )
    st = rep.stages
    lines.append(
        f"stage failures: artifact {st.artifact_cases} cases; semantic {st.semantic_cases} cases "
        f"({st.semantic_rounds} rounds); render {st.render_cases} cases ({st.render_rounds} "
        f"rounds); errored {st.errored_cases} cases ({st.errored_rounds} rounds); "
        f"skipped rounds {st.skipped_rounds}; passed {st.passed_cases} cases "
        f"({st.passed_rounds} rounds)"
    )
    if st.artifact_checks:
        lines.append(
            "stage 0 failing checks: "
            + ", ".join(f"{k} {v}" for k, v in st.artifact_checks.items())
        )
    if rep.cases_without_breakdown:
        lines.append(
            f"note: {rep.cases_without_breakdown} passed cases with findings have no score "
            "breakdown; their penalties are not counted"
        )
    return "\n".join(lines)
