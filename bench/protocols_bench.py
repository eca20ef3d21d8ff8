"""Figures for the sibling protocols: diagnostic costs, Bradley-Terry recovery, protocol tables.

1. Fidelity (PSNR, SSIM, CIEDE2000) per normalised pair and complexity per reference: mean
   milliseconds over every case of the given runs (or of a fresh pair of fixture panels).
2. Bradley-Terry: seeded simulated preferences from known Elo ratings (8 configurations,
   ``--tasks`` tasks, every pair once per task, 10% ties); prints the fit time, the mean
   absolute rating error and Kendall tau against the true ratings.
3. With ``--runs PPT REFIG`` (a PPTBench and a ReFigBench run of the same candidates): both
   leaderboards side by side (mean S per configuration), fidelity and the object audit.

Usage: .venv/bin/python bench/protocols_bench.py [--runs RUN_PPT RUN_REFIG] [--tasks 200]
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import cv2
import numpy as np
from scipy.stats import kendalltau

from judge.rundir import case_dir, read_results
from judge.schema import PairGeometry
from scoring.audit import audit_rows, config_audits
from scoring.complexity import reference_complexity
from scoring.fidelity import case_fidelity, fidelity
from scoring.prefs import Preference, fit_bradley_terry

FIXTURE_REF = (
    Path(__file__).resolve().parent.parent / "fixtures/bench/tasks/s7-flow00/reference.png"
)


def time_diagnostics(runs: list[Path]) -> None:
    fid_ms, cx_ms = [], []
    for run in runs:
        for case in read_results(run):
            cd = case_dir(run, case.config_id, case.task_id)
            if cd.pair_json.is_file():
                pair = PairGeometry.model_validate_json(cd.pair_json.read_text())
                t0 = time.perf_counter()
                case_fidelity(cd.pair_png, pair)
                fid_ms.append((time.perf_counter() - t0) * 1000)
    refs = sorted({Path(r) for r in [FIXTURE_REF]})
    if not fid_ms:
        raw = cv2.imread(str(FIXTURE_REF))
        if raw is None:
            raise SystemExit(f"cannot read {FIXTURE_REF}")
        img = cv2.resize(raw, (1200, 900))
        for _ in range(5):
            t0 = time.perf_counter()
            fidelity(img, cv2.GaussianBlur(img, (3, 3), 0))
            fid_ms.append((time.perf_counter() - t0) * 1000)
    for ref in refs:
        for _ in range(5):
            t0 = time.perf_counter()
            reference_complexity(ref)
            cx_ms.append((time.perf_counter() - t0) * 1000)
    print(f"fidelity per normalised pair: {np.mean(fid_ms):.0f} ms (n={len(fid_ms)})")
    print(f"complexity per reference ({FIXTURE_REF.name}): {np.mean(cx_ms):.0f} ms")


def bt_recovery(n_tasks: int, seed: int = 0) -> None:
    rng = np.random.default_rng(seed)
    configs = [f"c{i}" for i in range(8)]
    true = rng.normal(1000, 120, size=len(configs))
    true += 1000 - true.mean()
    prefs = []
    for t in range(n_tasks):
        for i in range(len(configs)):
            for j in range(i + 1, len(configs)):
                p_i = 1 / (1 + 10 ** ((true[j] - true[i]) / 400))
                u = rng.random()
                winner = "tie" if u < 0.1 else ("a" if rng.random() < p_i else "b")
                a, b = (configs[i], configs[j]) if rng.random() < 0.5 else (configs[j], configs[i])
                if (a, b) != (configs[i], configs[j]) and winner != "tie":
                    winner = "b" if winner == "a" else "a"
                prefs.append(Preference(f"t{t}", a, b, winner))
    t0 = time.perf_counter()
    fit = fit_bradley_terry(prefs, prior=0.5, resamples=200, seed=seed)
    secs = time.perf_counter() - t0
    got = {r.config_id: r.rating for r in fit.rows}
    est = np.array([got[c] for c in configs])
    err = float(np.abs(est - true).mean())
    tau = float(kendalltau(est, true).statistic)
    print(
        f"Bradley-Terry: {len(prefs)} comparisons, {n_tasks} tasks, 200 resamples in {secs:.1f} s; "
        f"mean |Elo error| {err:.1f}, Kendall tau vs truth {tau:.3f}"
    )


def side_by_side(ppt: Path, refig: Path) -> None:
    def means(run: Path) -> dict[str, float]:
        out: dict[str, list[float]] = {}
        for c in read_results(run):
            if c.error is None and c.gate is not None:
                ok = c.gate == "pass" and c.valid
                out.setdefault(c.config_id, []).append(float(c.score or 0) if ok else 0.0)
        return {k: float(np.mean(v)) for k, v in out.items()}

    a, b = means(ppt), means(refig)
    cases = read_results(ppt)
    audits = config_audits(audit_rows(cases, ppt))
    print(f"{'config':<16} {'PPTBench S':>10} {'ReFigBench S':>12} {'fidelity':>8} {'no conn':>7}")
    for cfg in sorted(a, key=lambda k: -a[k]):
        fid = [c.fidelity.combined for c in cases if c.config_id == cfg and c.fidelity]
        f = f"{np.mean(fid):.3f}" if fid else "-"
        au = audits.get(cfg)
        share = f"{au.without_connectors:.0%}" if au and au.without_connectors is not None else "-"
        print(f"{cfg:<16} {a[cfg]:>10.1f} {b.get(cfg, float('nan')):>12.1f} {f:>8} {share:>7}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", nargs=2, type=Path, metavar=("PPT", "REFIG"))
    ap.add_argument("--tasks", type=int, default=200)
    args = ap.parse_args()
    time_diagnostics(list(args.runs) if args.runs else [])
    bt_recovery(args.tasks)
    if args.runs:
        side_by_side(*args.runs)


if __name__ == "__main__":
    main()
