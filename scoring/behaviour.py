"""Agent behaviour joined with judged scores: reviews, revisions and cost per configuration.

A run's cases (``results.jsonl``) are joined with the generation records of the benchmark the
run judged (``BENCH/generation/<config>/<task>.json``, written by ``judge generate``). Per
configuration: mean reviews (``render()`` calls) and revisions (``run_python`` calls that changed
the deck) per task, mean score (invalid and gated cases score 0, errored cases are left out, as
on the leaderboard), generation cost and cost per score point (total cost / total points).
Across configurations: Pearson and Spearman correlation of mean reviews and of mean revisions
with mean score (PPTBench reports r = 0.881 for reviews and 0.255 for revisions). A correlation
needs at least three configurations with a non-constant behaviour and score; otherwise it is
None.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np

from judge.errors import BenchmarkError
from judge.schema import CaseResult, GenerationRecord, RunManifest
from scoring.leaderboard import case_points, format_table, is_errored

MIN_CONFIGS_FOR_CORRELATION = 3
"""Fewer configurations than this give no correlation (two points always correlate +-1)."""


@dataclass(frozen=True)
class BehaviourRow:
    """One configuration: behaviour per task, score and cost."""

    config_id: str
    tasks: int
    """Tasks with a generation record."""
    mean_reviews: float | None
    mean_revisions: float | None
    mean_sandbox_failures: float | None
    submitted: int
    """Episodes that ended with a submitted deck."""
    mean_score: float | None
    """Mean over the judged (not errored) cases of the configuration."""
    cost_usd: float | None
    """Sum of the generation records' costs (None when none has a price)."""
    cost_per_point: float | None
    """``cost_usd`` / the points the configuration scored in total (None when it scored 0)."""


@dataclass(frozen=True)
class Correlation:
    pearson: float | None
    spearman: float | None


@dataclass
class BehaviourReport:
    rows: list[BehaviourRow] = field(default_factory=list)
    reviews: Correlation = field(default_factory=lambda: Correlation(None, None))
    """Mean reviews vs mean score across configurations."""
    revisions: Correlation = field(default_factory=lambda: Correlation(None, None))
    """Mean revisions vs mean score across configurations."""


def average_ranks(x: np.ndarray) -> np.ndarray:
    """Ranks 1..n, ties sharing their average rank (what Spearman's rho ranks with)."""
    order = np.argsort(x, kind="mergesort")
    ranks = np.empty(len(x), dtype=float)
    ranks[order] = np.arange(1, len(x) + 1, dtype=float)
    for value in np.unique(x):
        tied = x == value
        if tied.sum() > 1:
            ranks[tied] = ranks[tied].mean()
    return ranks


def pearson(x: Sequence[float], y: Sequence[float]) -> float | None:
    """Pearson's r; None for fewer than three points or a constant variable."""
    a, b = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    if len(a) < MIN_CONFIGS_FOR_CORRELATION or len(a) != len(b):
        return None
    da, db = a - a.mean(), b - b.mean()
    denom = float(np.sqrt((da * da).sum() * (db * db).sum()))
    if denom == 0.0:
        return None
    return float((da * db).sum() / denom)


def spearman(x: Sequence[float], y: Sequence[float]) -> float | None:
    """Spearman's rho: Pearson's r of the average ranks."""
    a, b = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    if len(a) < MIN_CONFIGS_FOR_CORRELATION or len(a) != len(b):
        return None
    return pearson(list(average_ranks(a)), list(average_ranks(b)))


def _mean(xs: Sequence[float]) -> float | None:
    return float(np.mean(xs)) if xs else None


def behaviour(
    cases: Sequence[CaseResult], records: dict[tuple[str, str], GenerationRecord]
) -> BehaviourReport:
    """Join judged cases with generation records (by configuration and task)."""
    configs = sorted({c for c, _ in records})
    rows: list[BehaviourRow] = []
    for cfg in configs:
        recs = [r for (c, _), r in sorted(records.items()) if c == cfg]
        judged = [c for c in cases if c.config_id == cfg and not is_errored(c)]
        points = [case_points(c)[0] for c in judged]
        costs = [r.cost_usd for r in recs if r.cost_usd is not None]
        cost = float(sum(costs)) if costs else None
        total = float(sum(points))
        rows.append(
            BehaviourRow(
                config_id=cfg,
                tasks=len(recs),
                mean_reviews=_mean([r.reviews for r in recs]),
                mean_revisions=_mean([r.revisions for r in recs]),
                mean_sandbox_failures=_mean([r.sandbox_failures for r in recs]),
                submitted=sum(r.status == "submitted" for r in recs),
                mean_score=_mean(points),
                cost_usd=cost,
                cost_per_point=cost / total if cost is not None and total > 0 else None,
            )
        )
    scored = [r for r in rows if r.mean_score is not None and r.mean_reviews is not None]
    score = [float(r.mean_score or 0.0) for r in scored]
    reviews = [float(r.mean_reviews or 0.0) for r in scored]
    revisions = [float(r.mean_revisions or 0.0) for r in scored]
    return BehaviourReport(
        rows=rows,
        reviews=Correlation(pearson(reviews, score), spearman(reviews, score)),
        revisions=Correlation(pearson(revisions, score), spearman(revisions, score)),
    )


def run_behaviour(
    run: Path, bench: Path | None = None, results: str | Path | None = None
) -> BehaviourReport:
    """The behaviour report of a run folder (the benchmark from ``run.json`` unless given;
    ``results``: a rescored results file instead of ``results.jsonl``)."""
    from generation.records import generation_records
    from judge.rundir import RUN_MANIFEST, read_results

    cases = read_results(run, results)
    if bench is None:
        manifest_path = Path(run) / RUN_MANIFEST
        try:
            manifest = RunManifest.model_validate_json(manifest_path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise BenchmarkError(f"{manifest_path}: cannot read the run manifest: {exc}") from exc
        bench = Path(manifest.bench)
    records = generation_records(bench)
    if not records:
        raise BenchmarkError(
            f"{bench}: no generation records (BENCH/generation/<config>/<task>.json); "
            "make the candidates with `judge generate`"
        )
    return behaviour(cases, records)


def _f(x: float | None, spec: str) -> str:
    return "-" if x is None else spec.format(x)


def behaviour_table(rep: BehaviourReport) -> str:
    """The report as plain text: one row per configuration, then the correlations."""
    headers = ["config", "tasks", "submitted", "reviews", "revisions", "sbx-fail", "score"]
    headers += ["gen$", "$/point"]
    rows = [
        [
            r.config_id,
            str(r.tasks),
            str(r.submitted),
            _f(r.mean_reviews, "{:.2f}"),
            _f(r.mean_revisions, "{:.2f}"),
            _f(r.mean_sandbox_failures, "{:.2f}"),
            _f(r.mean_score, "{:.1f}"),
            _f(r.cost_usd, "${:.4f}"),
            _f(r.cost_per_point, "${:.5f}"),
        ]
        for r in rep.rows
    ]
    lines = [format_table(headers, rows, left=(0,)), ""]
    for name, c in (("reviews", rep.reviews), ("revisions", rep.revisions)):
        lines.append(
            f"{name} vs score across configurations: Pearson r {_f(c.pearson, '{:.3f}')}, "
            f"Spearman rho {_f(c.spearman, '{:.3f}')}"
        )
    if len(rep.rows) < MIN_CONFIGS_FOR_CORRELATION:
        lines.append(f"(correlations need at least {MIN_CONFIGS_FOR_CORRELATION} configurations)")
    return "\n".join(lines)


def behaviour_json(rep: BehaviourReport) -> str:
    return json.dumps(asdict(rep), indent=2)
