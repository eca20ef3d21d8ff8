"""Leaderboards over one or more runs, with a paired task bootstrap, and two-config comparison.

Reads only ``results.jsonl`` (:class:`judge.schema.CaseResult` lines). Per configuration and over
all its tasks:

* a case that is invalid (Stage 0) or gated (Stage 1/2) counts with score 0 (and 0 in each
  dimension), so layout + text + graphics means add up to the mean score;
* an errored case (``error`` set, the judge could not decide) is left out of every mean and
  share, and is counted in ``errors``;
* judge cost is the sum of the cases' ``usage.cost_usd`` (None when no case has one), generation
  cost the sum of ``generation_cost_usd`` (None when no case has one).

Percentages are stored as 0-1 fractions; scores are points out of 100.
"""

from __future__ import annotations

import csv
import io
import itertools
import json
import math
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np

from judge.errors import BenchmarkError
from judge.rundir import read_results
from judge.schema import CaseResult
from scoring.bootstrap import (
    DEFAULT_CONFIDENCE,
    DEFAULT_RESAMPLES,
    DEFAULT_SEED,
    paired_bootstrap,
)

DEFAULT_TOP_K = 3
"""Top-k membership is reported for this k unless asked otherwise (a podium)."""

MISSING_TASKS_RULE = (
    "a configuration without a usable case for a task (no candidate, or the case errored) is "
    "averaged over the tasks it has, in the full sample and in every resample"
)


def load_cases(runs: Sequence[Path], results: str | Path | None = None) -> list[CaseResult]:
    """Pool the results of several runs. A case id present in two runs is an error, and so
    are cases scored under different taxonomies or policies (their points do not compare).
    ``results`` names the results file of each run (default ``results.jsonl``; a rescored
    ``results.<policy>.<hash8>.jsonl``), read by :func:`judge.rundir.read_results` as the
    DataFrame loaders of :mod:`scoring.analysis` do.

    The same configuration may appear in two runs only with distinct tasks (e.g. a benchmark
    judged in two halves); judging the same case twice would double-count it.
    """
    if not runs:
        raise BenchmarkError("no run directory given")
    seen: dict[str, Path] = {}
    scoring: dict[tuple[str, str], Path] = {}
    pooled: list[CaseResult] = []
    for run in runs:
        for case in read_results(Path(run), results):
            rule = (case.taxonomy_hash, case.policy)
            if scoring and rule not in scoring and not is_errored(case):
                (other_hash, other_policy), where = next(iter(scoring.items()))
                raise BenchmarkError(
                    f"{run}: case {case.case_id!r} was scored with taxonomy "
                    f"{case.taxonomy_hash[:12] or '?'} / policy {case.policy}, but {where} "
                    f"has taxonomy {other_hash[:12] or '?'} / policy {other_policy}; "
                    "rescore the runs under one taxonomy and policy before pooling"
                )
            if not is_errored(case):  # errored cases carry no points to compare
                scoring.setdefault(rule, Path(run))
            if case.case_id in seen:
                raise BenchmarkError(
                    f"{run}: case {case.case_id!r} is also in {seen[case.case_id]}; "
                    "pooled runs must not judge the same case twice"
                )
            seen[case.case_id] = Path(run)
            pooled.append(case)
    return pooled


MAX_ERRORED_NAMED = 10
"""Most errored cases named when a leaderboard is refused."""


def check_complete(cases: Sequence[CaseResult]) -> None:
    """Refuse to rank a run that still has errored cases (the judge's failures, not the
    candidates'): they are named; rerun ``judge run`` to retry them, or rank with
    ``--allow-incomplete``. Raises BenchmarkError."""
    errored = [c.case_id for c in cases if is_errored(c)]
    if not errored:
        return
    named = ", ".join(errored[:MAX_ERRORED_NAMED])
    more = len(errored) - MAX_ERRORED_NAMED
    if more > 0:
        named += f" and {more} more"
    raise BenchmarkError(
        f"{len(errored)} case(s) errored (the judge could not decide them): {named}. "
        "Rerun the same `judge run` command to retry them, or rank anyway with "
        "--allow-incomplete (affected configurations are marked)"
    )


def is_errored(case: CaseResult) -> bool:
    """True when the judge could not decide the case (left out of means)."""
    return case.error is not None or case.gate is None


def case_points(case: CaseResult) -> tuple[float, float, float, float]:
    """(score, layout, text, graphics) in points, zeros for invalid and gated cases."""
    if case.gate != "pass" or not case.valid:
        return (0.0, 0.0, 0.0, 0.0)
    return (
        float(case.score or 0.0),
        float(case.layout or 0.0),
        float(case.text or 0.0),
        float(case.graphics or 0.0),
    )


@dataclass(frozen=True)
class AdjacentPair:
    """Two configurations next to each other in the full ranking."""

    upper: str
    lower: str
    difference: float
    """Mean score of ``upper`` minus that of ``lower`` (points)."""
    ci_low: float
    ci_high: float
    separated: bool
    """True when the interval of the difference excludes zero."""


@dataclass(frozen=True)
class TauSummary:
    """Distribution of Kendall tau-b of the resampled rankings against the full ranking."""

    mean: float
    median: float
    p2_5: float
    p97_5: float
    minimum: float
    share_identical: float
    """Share of resamples whose ranking equals the full ranking (tau = 1), 0-1."""


@dataclass(frozen=True)
class ConfigRow:
    """One configuration of the leaderboard. Fractions are 0-1, scores in points."""

    config_id: str
    rank: int
    cases: int
    """Cases of the configuration, errored ones included."""
    errors: int
    judged: int
    """Cases that entered the means (cases - errors)."""
    mean_score: float | None
    ci_low: float | None
    ci_high: float | None
    validity: float | None
    gate_pass: float | None
    mean_passed: float | None
    """Mean score over the cases that passed both gates."""
    layout: float | None
    text: float | None
    graphics: float | None
    judge_cost_usd: float | None
    generation_cost_usd: float | None
    p_rank1: float | None
    p_top_k: float | None


@dataclass(frozen=True)
class Leaderboard:
    rows: list[ConfigRow]
    tasks: int
    resamples: int
    seed: int
    top_k: int
    confidence: float
    tau: TauSummary | None
    adjacent: list[AdjacentPair]
    missing_rule: str = MISSING_TASKS_RULE
    runs: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, object]:
        out = json_safe(asdict(self))
        assert isinstance(out, dict)
        return out


def json_safe(obj: object) -> object:
    """Replace NaN floats by None so the output is valid JSON."""
    if isinstance(obj, float) and math.isnan(obj):
        return None
    if isinstance(obj, dict):
        return {k: json_safe(v) for k, v in obj.items()}
    if isinstance(obj, list):
        return [json_safe(v) for v in obj]
    return obj


def _opt(x: float | None) -> float | None:
    return None if x is None or (isinstance(x, float) and math.isnan(x)) else float(x)


def _mean(xs: Sequence[float]) -> float | None:
    return float(sum(xs) / len(xs)) if xs else None


def _sum_known(xs: Iterable[float | None]) -> float | None:
    known = [x for x in xs if x is not None]
    return float(sum(known)) if known else None


def score_matrix(cases: Sequence[CaseResult]) -> tuple[list[str], list[str], np.ndarray]:
    """(config ids, task ids, (T, C) scores) with NaN where a config has no usable case."""
    configs = sorted({c.config_id for c in cases})
    tasks = sorted({c.task_id for c in cases})
    ci = {c: i for i, c in enumerate(configs)}
    ti = {t: i for i, t in enumerate(tasks)}
    values = np.full((len(tasks), len(configs)), np.nan)
    for case in cases:
        if not is_errored(case):
            values[ti[case.task_id], ci[case.config_id]] = case_points(case)[0]
    return configs, tasks, values


def build_leaderboard(
    cases: Sequence[CaseResult],
    *,
    n_resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
    top_k: int = DEFAULT_TOP_K,
    confidence: float = DEFAULT_CONFIDENCE,
    runs: Sequence[Path] = (),
) -> Leaderboard:
    """Summarise every configuration and bootstrap the ranking (see the module docstring)."""
    if not cases:
        raise BenchmarkError("no cases: results.jsonl is empty")
    if top_k < 1:
        raise BenchmarkError(f"top-k must be at least 1 (got {top_k})")
    configs, tasks, values = score_matrix(cases)
    rng = np.random.default_rng(seed)
    usable = ~np.all(np.isnan(values), axis=0)
    boot = None
    if usable.any():
        boot = paired_bootstrap(
            values[:, usable], n_resamples=n_resamples, rng=rng, confidence=confidence
        )
    # Map bootstrap columns back to configurations (configs with no usable case get none).
    col_of: dict[str, int] = {}
    for col, cfg in enumerate(c for c, u in zip(configs, usable, strict=True) if u):
        col_of[cfg] = col

    by_config: dict[str, list[CaseResult]] = {c: [] for c in configs}
    for case in cases:
        by_config[case.config_id].append(case)

    provisional: list[ConfigRow] = []
    for cfg in configs:
        group = by_config[cfg]
        judged = [c for c in group if not is_errored(c)]
        points = [case_points(c) for c in judged]
        passed = [c for c in judged if c.gate == "pass" and c.valid]
        j = col_of.get(cfg)
        provisional.append(
            ConfigRow(
                config_id=cfg,
                rank=0,
                cases=len(group),
                errors=len(group) - len(judged),
                judged=len(judged),
                mean_score=_mean([p[0] for p in points]),
                ci_low=_opt(boot.ci_low[j]) if boot is not None and j is not None else None,
                ci_high=_opt(boot.ci_high[j]) if boot is not None and j is not None else None,
                validity=_mean([1.0 if c.valid else 0.0 for c in judged]),
                gate_pass=_mean([1.0 if c.gate == "pass" else 0.0 for c in judged]),
                mean_passed=_mean([case_points(c)[0] for c in passed]),
                layout=_mean([p[1] for p in points]),
                text=_mean([p[2] for p in points]),
                graphics=_mean([p[3] for p in points]),
                judge_cost_usd=_sum_known(c.usage.cost_usd for c in group),
                generation_cost_usd=_sum_known(c.generation_cost_usd for c in group),
                p_rank1=(
                    float(np.mean(boot.ranks[:, j] == 1))
                    if boot is not None and j is not None
                    else None
                ),
                p_top_k=(
                    float(np.mean(boot.ranks[:, j] <= top_k))
                    if boot is not None and j is not None
                    else None
                ),
            )
        )
    # Full ranking: highest mean first, ties share the best rank, name breaks display ties.
    ordered = sorted(
        provisional,
        key=lambda r: (-(r.mean_score if r.mean_score is not None else -math.inf), r.config_id),
    )
    rows: list[ConfigRow] = []
    for row in ordered:
        better = sum(
            1
            for other in ordered
            if other.mean_score is not None
            and (row.mean_score is None or other.mean_score > row.mean_score)
        )
        rows.append(_replace_rank(row, better + 1))

    adjacent: list[AdjacentPair] = []
    tau = None
    if boot is not None:
        tail = (1.0 - confidence) / 2.0 * 100.0
        ranked = [r for r in rows if r.config_id in col_of]
        for up, low in itertools.pairwise(ranked):
            diff = boot.means[:, col_of[up.config_id]] - boot.means[:, col_of[low.config_id]]
            diff = diff[~np.isnan(diff)]
            lo, hi = np.percentile(diff, [tail, 100 - tail]) if diff.size else (np.nan, np.nan)
            full_diff = (
                boot.full_means[col_of[up.config_id]] - boot.full_means[col_of[low.config_id]]
            )
            adjacent.append(
                AdjacentPair(
                    upper=up.config_id,
                    lower=low.config_id,
                    difference=float(full_diff),
                    ci_low=float(lo),
                    ci_high=float(hi),
                    separated=bool(lo > 0 or hi < 0),
                )
            )
        taus = boot.tau[~np.isnan(boot.tau)]
        if taus.size:
            tau = TauSummary(
                mean=float(taus.mean()),
                median=float(np.median(taus)),
                p2_5=float(np.percentile(taus, 2.5)),
                p97_5=float(np.percentile(taus, 97.5)),
                minimum=float(taus.min()),
                share_identical=float(np.mean(np.all(boot.ranks == boot.full_ranks, axis=1))),
            )
    return Leaderboard(
        rows=rows,
        tasks=len(tasks),
        resamples=n_resamples,
        seed=seed,
        top_k=top_k,
        confidence=confidence,
        tau=tau,
        adjacent=adjacent,
        runs=[str(r) for r in runs],
    )


def _replace_rank(row: ConfigRow, rank: int) -> ConfigRow:
    data = asdict(row)
    data["rank"] = rank
    return ConfigRow(**data)


# ----------------------------------------------------------------------------------------------
# Rendering (plain text; the CLI prints it)

CSV_COLUMNS = (
    "rank",
    "config_id",
    "mean_score",
    "ci_low",
    "ci_high",
    "validity",
    "gate_pass",
    "mean_passed",
    "layout",
    "text",
    "graphics",
    "judge_cost_usd",
    "generation_cost_usd",
    "cases",
    "errors",
    "p_rank1",
    "p_top_k",
)


def leaderboard_csv(board: Leaderboard) -> str:
    """One row per configuration, fractions 0-1, empty cells for unknown values."""
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    for row in board.rows:
        data = asdict(row)
        writer.writerow(["" if data[c] is None else data[c] for c in CSV_COLUMNS])
    return buf.getvalue()


def leaderboard_json(board: Leaderboard) -> str:
    return json.dumps(board.to_dict(), indent=2)


def _f(x: float | None, fmt: str = "{:.1f}") -> str:
    return "-" if x is None or (isinstance(x, float) and math.isnan(x)) else fmt.format(x)


def _pct(x: float | None) -> str:
    return _f(None if x is None else 100.0 * x, "{:.0f}%")


def _money(x: float | None) -> str:
    return _f(x, "${:.2f}")


def format_table(
    headers: Sequence[str], rows: Sequence[Sequence[str]], left: Sequence[int] = (1,)
) -> str:
    """A plain aligned text table; columns in ``left`` are left-aligned, the rest right."""
    widths = [len(h) for h in headers]
    for r in rows:
        widths = [max(w, len(c)) for w, c in zip(widths, r, strict=True)]

    def line(cells: Sequence[str]) -> str:
        out = []
        for i, (c, w) in enumerate(zip(cells, widths, strict=True)):
            out.append(c.ljust(w) if i in left else c.rjust(w))
        return "  ".join(out).rstrip()

    sep = "  ".join("-" * w for w in widths)
    return "\n".join([line(headers), sep, *(line(r) for r in rows)])


def leaderboard_table(board: Leaderboard) -> str:
    """The leaderboard as an aligned text table with a footer on the bootstrap."""
    pct = int(round(board.confidence * 100))
    headers = [
        "#",
        "config",
        "S",
        f"{pct}% CI",
        "valid",
        "gate",
        "S|pass",
        "layout",
        "text",
        "graph",
        "judge$",
        "gen$",
        "cases",
        "err",
        "P(#1)",
        f"P(top{board.top_k})",
    ]
    rows = [
        [
            str(r.rank),
            r.config_id,
            _f(r.mean_score),
            f"[{_f(r.ci_low)}, {_f(r.ci_high)}]",
            _pct(r.validity),
            _pct(r.gate_pass),
            _f(r.mean_passed),
            _f(r.layout),
            _f(r.text),
            _f(r.graphics),
            _money(r.judge_cost_usd),
            _money(r.generation_cost_usd),
            str(r.cases),
            str(r.errors),
            _pct(r.p_rank1),
            _pct(r.p_top_k),
        ]
        for r in board.rows
    ]
    for row, r in zip(rows, board.rows, strict=True):
        if r.errors:
            row[1] += f" (incomplete: {r.errors} errored)"
    lines = [format_table(headers, rows), ""]
    lines.append(
        f"paired task bootstrap: {board.tasks} tasks, {board.resamples} resamples, "
        f"seed {board.seed}; missing tasks: {board.missing_rule}"
    )
    if board.tau is not None:
        t = board.tau
        lines.append(
            f"Kendall tau of resampled vs full ranking: mean {t.mean:.3f}, median {t.median:.3f}, "
            f"{pct}% range [{t.p2_5:.3f}, {t.p97_5:.3f}], min {t.minimum:.3f}, "
            f"identical ranking in {100 * t.share_identical:.1f}% of resamples"
        )
    if board.adjacent:
        lines.append("adjacent pairs (difference of means, interval, separated?):")
        for p in board.adjacent:
            mark = "yes" if p.separated else "no"
            lines.append(
                f"  {p.upper} - {p.lower}: {p.difference:+.2f} "
                f"[{_f(p.ci_low, '{:+.2f}')}, {_f(p.ci_high, '{:+.2f}')}] {mark}"
            )
    return "\n".join(lines)


# ----------------------------------------------------------------------------------------------
# Two-configuration comparison


@dataclass(frozen=True)
class Comparison:
    """Common-pass comparison of configuration ``a`` against ``b`` (differences are a - b)."""

    a: str
    b: str
    common_tasks: int
    """Tasks both configurations have a judged (non-errored) case for."""
    both_pass: list[str]
    score_diff: float | None
    """Mean of S_a - S_b over the tasks both pass (points)."""
    layout_diff: float | None
    text_diff: float | None
    graphics_diff: float | None
    a_better: int
    """Tasks both pass where a scores higher."""
    b_better: int
    gained: list[str]
    """Tasks b passes and a does not (what moving from a to b gains)."""
    lost: list[str]
    """Tasks a passes and b does not (what moving from a to b loses)."""
    neither: list[str]

    def to_dict(self) -> dict[str, object]:
        out = json_safe(asdict(self))
        assert isinstance(out, dict)
        return out


def compare_configs(cases: Sequence[CaseResult], a: str, b: str) -> Comparison:
    """Compare two configurations on the tasks both have judged cases for."""
    by_key = {(c.config_id, c.task_id): c for c in cases}
    configs = {c.config_id for c in cases}
    for name in (a, b):
        if name not in configs:
            known = ", ".join(sorted(configs))
            raise BenchmarkError(f"no configuration {name!r} in the run (have: {known})")
    tasks_a = {t for (cfg, t), c in by_key.items() if cfg == a and not is_errored(c)}
    tasks_b = {t for (cfg, t), c in by_key.items() if cfg == b and not is_errored(c)}
    common = sorted(tasks_a & tasks_b)

    def passes(cfg: str, task: str) -> bool:
        c = by_key[(cfg, task)]
        return c.gate == "pass" and c.valid

    both = [t for t in common if passes(a, t) and passes(b, t)]
    diffs = np.array(
        [np.subtract(case_points(by_key[(a, t)]), case_points(by_key[(b, t)])) for t in both]
    ).reshape(-1, 4)
    means = diffs.mean(axis=0) if both else np.full(4, np.nan)
    return Comparison(
        a=a,
        b=b,
        common_tasks=len(common),
        both_pass=both,
        score_diff=_opt(float(means[0])),
        layout_diff=_opt(float(means[1])),
        text_diff=_opt(float(means[2])),
        graphics_diff=_opt(float(means[3])),
        a_better=int((diffs[:, 0] > 0).sum()),
        b_better=int((diffs[:, 0] < 0).sum()),
        gained=[t for t in common if passes(b, t) and not passes(a, t)],
        lost=[t for t in common if passes(a, t) and not passes(b, t)],
        neither=[t for t in common if not passes(a, t) and not passes(b, t)],
    )


def comparison_text(cmp: Comparison) -> str:
    lines = [
        f"{cmp.a} vs {cmp.b}: {cmp.common_tasks} common tasks, {len(cmp.both_pass)} both pass",
    ]
    if cmp.both_pass:
        lines.append(
            f"on tasks both pass, mean {cmp.a} - {cmp.b}: S {cmp.score_diff:+.2f}, "
            f"layout {cmp.layout_diff:+.2f}, text {cmp.text_diff:+.2f}, "
            f"graphics {cmp.graphics_diff:+.2f} "
            f"({cmp.a} higher on {cmp.a_better}, {cmp.b} higher on {cmp.b_better})"
        )
    lines.append(f"gained by {cmp.b} (fails in {cmp.a}): {len(cmp.gained)}")
    lines.extend(f"  {t}" for t in cmp.gained)
    lines.append(f"lost by {cmp.b} (passes in {cmp.a}): {len(cmp.lost)}")
    lines.extend(f"  {t}" for t in cmp.lost)
    lines.append(f"fail in both: {len(cmp.neither)}")
    return "\n".join(lines)
