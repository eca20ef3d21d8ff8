"""Paired workflow effect: ``judge compare RUN A B --paired``.

For two configurations, on the tasks both have a decided (non-errored) case for: the mean of the
per-task difference ``A - B`` and a 95 % percentile interval from a task bootstrap (tasks drawn
with replacement, seeded ``numpy.random.Generator``). Metrics: S of the run (a gated or invalid
case counts 0, as in the leaderboard) and, when a ReFigBench run is given or the run itself is
one, the ReFigBench score and each rubric axis (a case failing the rubric gate counts 0 on
every axis).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from judge.errors import BenchmarkError
from judge.schema import CaseResult
from scoring.bootstrap import DEFAULT_CONFIDENCE, DEFAULT_RESAMPLES, DEFAULT_SEED

Metric = Callable[[CaseResult], float]


@dataclass(frozen=True)
class PairedRow:
    metric: str
    tasks: int
    """Shared tasks the difference is taken over."""
    mean_diff: float | None
    """Mean of A - B (points)."""
    ci_low: float | None
    ci_high: float | None


@dataclass(frozen=True)
class PairedComparison:
    a: str
    b: str
    rows: list[PairedRow]
    resamples: int
    seed: int
    confidence: float


def _decided(case: CaseResult) -> bool:
    return case.error is None and case.gate is not None


def _score(case: CaseResult) -> float:
    return float(case.score or 0.0) if case.gate == "pass" else 0.0


def _axis(name: str) -> Metric:
    def metric(case: CaseResult) -> float:
        if case.gate != "pass" or case.refigbench is None:
            return 0.0
        return float(case.refigbench.axes.get(name, 0.0))

    return metric


def paired_row(
    cases: Sequence[CaseResult],
    a: str,
    b: str,
    name: str,
    metric: Metric,
    rng: np.random.Generator,
    resamples: int,
    confidence: float,
) -> PairedRow:
    by_key = {(c.config_id, c.task_id): c for c in cases if _decided(c)}
    tasks = sorted({t for (cfg, t) in by_key if cfg == a} & {t for (cfg, t) in by_key if cfg == b})
    if not tasks:
        return PairedRow(name, 0, None, None, None)
    diffs = np.array([metric(by_key[(a, t)]) - metric(by_key[(b, t)]) for t in tasks])
    picks = rng.integers(0, len(tasks), size=(resamples, len(tasks)))
    means = diffs[picks].mean(axis=1)
    tail = (1.0 - confidence) / 2.0 * 100.0
    lo, hi = np.percentile(means, [tail, 100.0 - tail])
    return PairedRow(name, len(tasks), float(diffs.mean()), float(lo), float(hi))


def _check_configs(cases: Sequence[CaseResult], a: str, b: str, what: str) -> None:
    configs = {c.config_id for c in cases}
    for name in (a, b):
        if name not in configs:
            raise BenchmarkError(
                f"no configuration {name!r} in the {what} (have: {', '.join(sorted(configs))})"
            )


def paired_compare(
    cases: Sequence[CaseResult],
    a: str,
    b: str,
    refig_cases: Sequence[CaseResult] | None = None,
    *,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
    confidence: float = DEFAULT_CONFIDENCE,
) -> PairedComparison:
    """Paired differences A - B for S and, with a ReFigBench run, its score and axes."""
    if resamples < 1:
        raise BenchmarkError(f"--resamples must be at least 1, not {resamples}")
    _check_configs(cases, a, b, "run")
    rng = np.random.default_rng(seed)
    own_refig = any(c.protocol == "refigbench" for c in cases)
    label = "ReFigBench S" if own_refig else "S"
    rows = [paired_row(cases, a, b, label, _score, rng, resamples, confidence)]
    refig = list(cases) if own_refig else list(refig_cases or [])
    if refig and not own_refig:
        _check_configs(refig, a, b, "ReFigBench run")
        rows.append(paired_row(refig, a, b, "ReFigBench S", _score, rng, resamples, confidence))
    axes: list[str] = []
    for c in refig:
        if c.refigbench is not None:
            axes.extend(x for x in c.refigbench.axes if x not in axes)
    for axis in axes:
        rows.append(paired_row(refig, a, b, axis, _axis(axis), rng, resamples, confidence))
    return PairedComparison(a, b, rows, resamples, seed, confidence)


def paired_text(cmp: PairedComparison) -> str:
    pct = f"{cmp.confidence:.0%}"
    lines = [
        f"paired {cmp.a} - {cmp.b} over shared tasks ({pct} task-bootstrap interval, "
        f"{cmp.resamples} resamples, seed {cmp.seed})",
        f"{'metric':<16} {'tasks':>5} {'mean diff':>10} {pct + ' interval':>20}",
    ]
    for r in cmp.rows:
        if r.mean_diff is None or r.ci_low is None or r.ci_high is None:
            lines.append(f"{r.metric:<16} {r.tasks:>5} {'-':>10} {'-':>20}")
            continue
        ci = f"[{r.ci_low:+.2f}, {r.ci_high:+.2f}]"
        lines.append(f"{r.metric:<16} {r.tasks:>5} {r.mean_diff:>+10.2f} {ci:>20}")
    return "\n".join(lines)
