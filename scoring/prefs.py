"""Pairwise human preferences: blinded A/B pair export and a Bradley-Terry fit.

**Export** (:func:`export_pairs`, ``judge prefs export RUN --out DIR``): for every task, every
two configurations whose cases reached the normalised pair give one pair. Its image
``DIR/images/<pair_id>.png`` shows the reference panel, then candidate A, then candidate B
(1200x900 panels, 4 px apart, a caption strip above naming only "reference", "A" and "B").
Which configuration is A is drawn at random (seeded). ``DIR/pairs.csv`` has
``pair_id,task_id,image`` (no configuration names); the key, ``pair_id,task_id,config_a,
config_b``, is written apart (default ``DIR-key.csv`` beside the folder, never inside it), so the
folder can go to labellers as it is. A labeller answers ``pair_id,winner`` with winner ``a``,
``b`` or ``tie``; with the key this becomes the fit's input.

**Fit** (:func:`fit_bradley_terry`, ``judge prefs fit PREFS.csv``): rows
``task_id,config_a,config_b,winner``. A tie counts half a win to each side; which side a
configuration was shown on plays no part (the model only sees who beat whom). Strengths are the
maximum-likelihood Bradley-Terry solution (Hunter's MM iterations), optionally with ``prior``
virtual ties between every two configurations (keeps ratings finite when one configuration never
wins or never loses; 0 = the plain MLE). Ratings are on an Elo scale with mean 1000:
``1000 + 400 (log10 p_i - mean log10 p)``. Intervals come from a cluster bootstrap over tasks
(tasks resampled with replacement, all of a task's comparisons together) with a seeded
``numpy.random.Generator``. Agreement with a judge's ranking is Kendall's tau-b between the
ratings and the judge's mean scores.
"""

from __future__ import annotations

import csv
import io
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np
from numpy.typing import NDArray
from scipy.stats import kendalltau

from judge.errors import BenchmarkError
from judge.rundir import atomic_write_bytes, atomic_write_text, case_dir, read_results
from judge.schema import PairGeometry

WINNERS = ("a", "b", "tie")
PREFS_COLUMNS = ("task_id", "config_a", "config_b", "winner")
PAIRS_COLUMNS = ("pair_id", "task_id", "image")
KEY_COLUMNS = ("pair_id", "task_id", "config_a", "config_b")
ELO_MEAN = 1000.0
ELO_SCALE = 400.0
MAX_ITER = 10_000
TOLERANCE = 1e-12
DEFAULT_SEED = 20240607
DEFAULT_RESAMPLES = 1000
CAPTION_PX = 40
GAP_PX = 4


@dataclass(frozen=True)
class Preference:
    task_id: str
    config_a: str
    config_b: str
    winner: str
    """``a``, ``b`` or ``tie``."""


@dataclass(frozen=True)
class RatingRow:
    config_id: str
    rating: float
    ci_low: float | None
    ci_high: float | None
    wins: float
    """Wins, ties counted as half."""
    comparisons: int


@dataclass(frozen=True)
class PreferenceFit:
    rows: list[RatingRow]
    """Best rating first."""
    comparisons: int
    tasks: int
    prior: float
    resamples: int
    seed: int
    tau: float | None = None
    """Kendall tau-b against the judge's ranking, when a run was given."""
    tau_configs: int = 0


# --------------------------------------------------------------------------------------------
# reading


def read_preferences(path: Path, key: Path | None = None) -> list[Preference]:
    """Rows of a preferences CSV; with ``key``, a labeller's ``pair_id,winner`` file is joined
    with the export's key. Problems name the file and line."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise BenchmarkError(f"{path}: cannot read the preferences: {exc}") from None
    rows = list(csv.DictReader(io.StringIO(text)))
    header = set(rows[0]) if rows else set(text.splitlines()[0].split(",") if text else [])
    keyed: dict[str, tuple[str, str, str]] = {}
    if not set(PREFS_COLUMNS) <= header:
        if key is None or not {"pair_id", "winner"} <= header:
            raise BenchmarkError(
                f"{path}:1: need columns {','.join(PREFS_COLUMNS)} (or pair_id,winner with --key)"
            )
        keyed = _read_key(key)
    out: list[Preference] = []
    for i, row in enumerate(rows, start=2):
        winner = (row.get("winner") or "").strip().lower()
        if winner not in WINNERS:
            raise BenchmarkError(f"{path}:{i}: winner must be a, b or tie, not {winner!r}")
        if keyed:
            pid = (row.get("pair_id") or "").strip()
            if pid not in keyed:
                raise BenchmarkError(f"{path}:{i}: pair {pid!r} is not in the key {key}")
            task, a, b = keyed[pid]
        else:
            task = (row.get("task_id") or "").strip()
            a, b = (row.get("config_a") or "").strip(), (row.get("config_b") or "").strip()
        if not task or not a or not b:
            raise BenchmarkError(f"{path}:{i}: task_id, config_a and config_b must not be empty")
        if a == b:
            raise BenchmarkError(f"{path}:{i}: a configuration compared with itself ({a})")
        out.append(Preference(task, a, b, winner))
    if not out:
        raise BenchmarkError(f"{path}: no preferences")
    return out


def _read_key(key: Path) -> dict[str, tuple[str, str, str]]:
    try:
        rows = list(csv.DictReader(io.StringIO(Path(key).read_text(encoding="utf-8"))))
    except (OSError, UnicodeDecodeError) as exc:
        raise BenchmarkError(f"{key}: cannot read the key: {exc}") from None
    if not rows or not set(KEY_COLUMNS) <= set(rows[0]):
        raise BenchmarkError(f"{key}:1: need columns {','.join(KEY_COLUMNS)}")
    return {r["pair_id"]: (r["task_id"], r["config_a"], r["config_b"]) for r in rows}


# --------------------------------------------------------------------------------------------
# the model


def win_matrix(
    prefs: Sequence[Preference], configs: Sequence[str]
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """(wins[i, j] = wins of i over j with ties as half, n[i, j] = comparisons of i and j)."""
    idx = {c: k for k, c in enumerate(configs)}
    k = len(configs)
    wins = np.zeros((k, k))
    n = np.zeros((k, k))
    for p in prefs:
        i, j = idx[p.config_a], idx[p.config_b]
        n[i, j] += 1
        n[j, i] += 1
        if p.winner == "a":
            wins[i, j] += 1
        elif p.winner == "b":
            wins[j, i] += 1
        else:
            wins[i, j] += 0.5
            wins[j, i] += 0.5
    return wins, n


def bradley_terry(
    wins: NDArray[np.float64], n: NDArray[np.float64], prior: float = 0.0
) -> NDArray[np.float64]:
    """Bradley-Terry strengths (geometric mean 1) by MM iterations; NaN for a configuration
    with no comparison, 0 / inf where the plain MLE does not exist (never won / never lost)."""
    k = wins.shape[0]
    if prior > 0:
        off = prior * (1.0 - np.eye(k))
        wins = wins + off / 2.0
        n = n + off
    compared = n.sum(axis=1) > 0
    p = np.ones(k)
    w = wins.sum(axis=1)
    for _ in range(MAX_ITER):
        denom = (n / (p[:, None] + p[None, :])).sum(axis=1)
        with np.errstate(divide="ignore", invalid="ignore"):
            new = np.where(compared, w / np.where(denom > 0, denom, 1.0), np.nan)
        positive = new[compared & (new > 0)]
        if positive.size:
            new = new / math.exp(float(np.log(positive).mean()))
        if np.allclose(np.nan_to_num(new), np.nan_to_num(p), rtol=0, atol=TOLERANCE):
            p = new
            break
        p = np.where(compared, np.maximum(new, 1e-300), np.nan)
    return p


def elo(strengths: NDArray[np.float64]) -> NDArray[np.float64]:
    """Elo-scale ratings with mean 1000 (over the configurations with finite ratings)."""
    with np.errstate(divide="ignore"):
        logs = np.log10(strengths)
    finite = np.isfinite(logs)
    centre = float(logs[finite].mean()) if finite.any() else 0.0
    return np.where(finite, ELO_MEAN + ELO_SCALE * (logs - centre), np.nan)


def fit_bradley_terry(
    prefs: Sequence[Preference],
    *,
    prior: float = 0.0,
    resamples: int = DEFAULT_RESAMPLES,
    rng: np.random.Generator | None = None,
    seed: int = DEFAULT_SEED,
    judge_scores: Mapping[str, float] | None = None,
    confidence: float = 0.95,
) -> PreferenceFit:
    """Fit, bootstrap over tasks, and compare with ``judge_scores`` (config -> mean S)."""
    if prior < 0:
        raise BenchmarkError(f"the prior must not be negative, not {prior}")
    configs = sorted({p.config_a for p in prefs} | {p.config_b for p in prefs})
    wins, n = win_matrix(prefs, configs)
    ratings = elo(bradley_terry(wins, n, prior))
    rng = rng if rng is not None else np.random.default_rng(seed)
    by_task: dict[str, list[Preference]] = {}
    for p in prefs:
        by_task.setdefault(p.task_id, []).append(p)
    tasks = sorted(by_task)
    samples = np.full((resamples, len(configs)), np.nan)
    for b in range(resamples):
        picked = rng.integers(0, len(tasks), size=len(tasks))
        rows = [p for t in picked for p in by_task[tasks[t]]]
        w_b, n_b = win_matrix(rows, configs)
        samples[b] = elo(bradley_terry(w_b, n_b, prior))
    tail = (1.0 - confidence) / 2.0 * 100.0
    out = []
    for j, config in enumerate(configs):
        col = samples[:, j]
        col = col[np.isfinite(col)]
        lo, hi = (
            (float(v) for v in np.percentile(col, [tail, 100 - tail])) if col.size else (None, None)
        )
        out.append(
            RatingRow(
                config_id=config,
                rating=float(ratings[j]),
                ci_low=lo,
                ci_high=hi,
                wins=float(wins[j].sum()),
                comparisons=int(n[j].sum()),
            )
        )
    out.sort(key=lambda r: (-(r.rating if math.isfinite(r.rating) else -math.inf), r.config_id))
    tau, n_tau = None, 0
    if judge_scores is not None:
        shared = [r for r in out if r.config_id in judge_scores and math.isfinite(r.rating)]
        n_tau = len(shared)
        if n_tau >= 2:
            t = kendalltau([r.rating for r in shared], [judge_scores[r.config_id] for r in shared])
            tau = None if math.isnan(float(t.statistic)) else float(t.statistic)
    return PreferenceFit(
        rows=out,
        comparisons=len(prefs),
        tasks=len(tasks),
        prior=prior,
        resamples=resamples,
        seed=seed,
        tau=tau,
        tau_configs=n_tau,
    )


def judge_means(run: Path) -> dict[str, float]:
    """Mean S per configuration of a run (gated and invalid cases count 0, errored ones out)."""
    sums: dict[str, list[float]] = {}
    for case in read_results(run):
        if case.error is not None or case.gate is None:
            continue
        sums.setdefault(case.config_id, []).append(float(case.score or 0.0))
    return {c: sum(v) / len(v) for c, v in sums.items()}


def fit_text(fit: PreferenceFit) -> str:
    lines = [
        f"Bradley-Terry on {fit.comparisons} comparisons over {fit.tasks} tasks "
        f"(ties = half a win; prior {fit.prior:g} virtual ties per pair; {fit.resamples} task "
        f"bootstrap resamples, seed {fit.seed})",
        f"{'config':<24} {'Elo':>7} {'95% interval':>17} {'wins':>6} {'n':>4}",
    ]
    for r in fit.rows:
        ci = "-" if r.ci_low is None or r.ci_high is None else f"[{r.ci_low:.0f}, {r.ci_high:.0f}]"
        rating = f"{r.rating:.1f}" if math.isfinite(r.rating) else "-"
        lines.append(f"{r.config_id:<24} {rating:>7} {ci:>17} {r.wins:>6g} {r.comparisons:>4}")
    if fit.tau is not None:
        lines.append(
            f"Kendall tau-b with the judge's ranking: {fit.tau:+.3f} ({fit.tau_configs} configs)"
        )
    return "\n".join(lines)


# --------------------------------------------------------------------------------------------
# export


@dataclass(frozen=True)
class ExportSummary:
    out: Path
    key: Path
    pairs: int
    tasks: int


def _panel(pair_png: Path, pair: PairGeometry, which: str) -> NDArray[np.uint8]:
    from scoring.fidelity import pair_panels

    ref, cand = pair_panels(pair_png, pair)
    return ref if which == "reference" else cand


def _compose(panels: list[NDArray[np.uint8]], captions: list[str]) -> NDArray[np.uint8]:
    h, w = panels[0].shape[:2]
    total = len(panels) * w + (len(panels) - 1) * GAP_PX
    canvas = np.full((h + CAPTION_PX, total, 3), 255, np.uint8)
    for k, (img, text) in enumerate(zip(panels, captions, strict=True)):
        x = k * (w + GAP_PX)
        canvas[CAPTION_PX:, x : x + w] = img
        cv2.putText(canvas, text, (x + 12, 30), cv2.FONT_HERSHEY_SIMPLEX, 1.0, (0, 0, 0), 2)
    return canvas


def export_pairs(
    run: Path, out: Path, key: Path | None = None, seed: int = DEFAULT_SEED
) -> ExportSummary:
    """Write blinded A/B pairs of a run (see the module docstring)."""
    run, out = Path(run), Path(out)
    key = Path(key) if key is not None else out.parent / f"{out.name}-key.csv"
    if key.resolve().is_relative_to(out.resolve()):
        raise BenchmarkError(f"{key}: the key must be kept outside {out} (labellers see it)")
    cases = read_results(run)
    ready: dict[str, dict[str, PairGeometry]] = {}
    for case in cases:
        cd = case_dir(run, case.config_id, case.task_id)
        if cd.pair_png.is_file() and cd.pair_json.is_file():
            pair = PairGeometry.model_validate_json(cd.pair_json.read_text(encoding="utf-8"))
            ready.setdefault(case.task_id, {})[case.config_id] = pair
    rng = np.random.default_rng(seed)
    planned: list[tuple[str, str, str]] = []
    for task in sorted(ready):
        configs = sorted(ready[task])
        for i, a in enumerate(configs):
            for b in configs[i + 1 :]:
                planned.append((task, a, b) if rng.random() < 0.5 else (task, b, a))
    order = rng.permutation(len(planned))
    (out / "images").mkdir(parents=True, exist_ok=True)
    pairs_rows, key_rows = [], []
    for n, k in enumerate(order, start=1):
        task, a, b = planned[int(k)]
        pid = f"p{n:04d}"
        cd_a, cd_b = case_dir(run, a, task), case_dir(run, b, task)
        img = _compose(
            [
                _panel(cd_a.pair_png, ready[task][a], "reference"),
                _panel(cd_a.pair_png, ready[task][a], "candidate"),
                _panel(cd_b.pair_png, ready[task][b], "candidate"),
            ],
            ["reference", "A", "B"],
        )
        ok, buf = cv2.imencode(".png", img)
        if not ok:
            raise BenchmarkError(f"could not encode the image of pair {pid}")
        atomic_write_bytes(out / "images" / f"{pid}.png", buf.tobytes())
        pairs_rows.append((pid, task, f"images/{pid}.png"))
        key_rows.append((pid, task, a, b))
    atomic_write_text(out / "pairs.csv", _csv(PAIRS_COLUMNS, pairs_rows))
    key.parent.mkdir(parents=True, exist_ok=True)
    atomic_write_text(key, _csv(KEY_COLUMNS, key_rows))
    return ExportSummary(out=out, key=key, pairs=len(pairs_rows), tasks=len(ready))


def _csv(header: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(header)
    w.writerows(rows)
    return buf.getvalue()
