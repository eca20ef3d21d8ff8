"""Leaderboards split by complexity tier, and the object audit beside a leaderboard.

``judge leaderboard RUN --by tier``: the tasks are put into easy/medium/hard tiers
(:mod:`scoring.complexity`: tertiles of the benchmark's own complexity scores unless cut-offs
are given) and one leaderboard is built per tier from that tier's cases. A task's complexity is
read from its results lines (``complexity``) or, for runs made before they carried it, measured
on the reference named by ``run.json``'s benchmark.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from judge.errors import BenchmarkError
from judge.rundir import RUN_MANIFEST
from judge.schema import CaseResult, ComplexityMetrics, RunManifest
from scoring.complexity import TIERS, TierName, assign_tiers
from scoring.leaderboard import Leaderboard, build_leaderboard


def task_complexity(
    cases: Sequence[CaseResult], runs: Sequence[Path] = ()
) -> dict[str, ComplexityMetrics]:
    """Task -> complexity of its reference: from the results lines, else measured."""
    from scoring.diagnostics import reference_complexity_cached

    out: dict[str, ComplexityMetrics] = {}
    for case in cases:
        if case.complexity is not None:
            out.setdefault(case.task_id, case.complexity)
    missing = {c.task_id for c in cases} - set(out)
    for run in runs:
        if not missing:
            break
        manifest_path = Path(run) / RUN_MANIFEST
        if not manifest_path.is_file():
            continue
        bench = Path(RunManifest.model_validate_json(manifest_path.read_text()).bench)
        for task in sorted(missing):
            png = bench / "tasks" / task / "reference.png"
            if png.is_file():
                out[task] = reference_complexity_cached(png)
        missing -= set(out)
    if missing:
        raise BenchmarkError(
            f"no complexity for task(s) {', '.join(sorted(missing))}: their results lines have "
            "none and the reference images are not found"
        )
    return out


def case_tiers(
    cases: Sequence[CaseResult],
    runs: Sequence[Path] = (),
    cuts: tuple[float, float] | None = None,
) -> dict[str, TierName]:
    """Task -> tier."""
    return assign_tiers(task_complexity(cases, runs), cuts)


def tier_leaderboards(
    cases: Sequence[CaseResult],
    runs: Sequence[Path] = (),
    cuts: tuple[float, float] | None = None,
    *,
    n_resamples: int,
    seed: int,
    top_k: int,
) -> dict[TierName, Leaderboard]:
    """One leaderboard per tier that has cases, easy first."""
    tiers = case_tiers(cases, runs, cuts)
    out: dict[TierName, Leaderboard] = {}
    for tier in TIERS:
        subset = [c for c in cases if tiers.get(c.task_id) == tier]
        if subset:
            out[tier] = build_leaderboard(
                subset, n_resamples=n_resamples, seed=seed, top_k=top_k, runs=runs
            )
    return out


def parse_cuts(text: str | None) -> tuple[float, float] | None:
    """``"0.33,0.66"`` -> (0.33, 0.66); None -> None (tertiles)."""
    if text is None:
        return None
    try:
        lo, hi = (float(x) for x in text.split(","))
    except ValueError:
        raise BenchmarkError(
            f"--tier-cuts takes two numbers like 0.33,0.66, not {text!r}"
        ) from None
    if not 0.0 <= lo <= hi <= 1.0:
        raise BenchmarkError(f"--tier-cuts must satisfy 0 <= low <= high <= 1, not {text!r}")
    return lo, hi
