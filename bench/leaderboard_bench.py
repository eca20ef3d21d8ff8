"""Time `judge leaderboard` on a synthetic run of 36 configurations x 500 tasks.

Writes a run directory (results.jsonl + run.json, the contract records) with plausible outcomes:
per-configuration skill, per-task difficulty, some invalid, gated and errored cases, costs. Then
runs the real CLI command (10,000 resamples by default) in-process and prints the seconds.

Usage: .venv/bin/python bench/leaderboard_bench.py [--configs 36] [--tasks 500] [--resamples 10000]
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

import numpy as np
from typer.testing import CliRunner

from cli.app import app
from judge.rundir import RESULTS, RUN_MANIFEST, write_model
from judge.schema import CaseResult, RunManifest, Usage

TARGET_SECONDS = 30.0
"""Issue 6: 36 x 500 with 10,000 resamples must finish within this on the 2-core machine."""


def synth_run(run: Path, n_configs: int, n_tasks: int, seed: int = 0) -> int:
    """Write a synthetic run; return the number of cases."""
    rng = np.random.default_rng(seed)
    skill = rng.normal(0, 8, size=n_configs)
    difficulty = rng.normal(0, 12, size=n_tasks)
    run.mkdir(parents=True, exist_ok=True)
    write_model(
        run / RUN_MANIFEST,
        RunManifest(
            package_version="bench",
            created="2026-11-29T00:00:00Z",
            bench="synthetic",
            judge="builtin",
            rounds=3,
            taxonomy_path="synthetic",
            taxonomy_version="synthetic",
            taxonomy_hash="0" * 64,
            render_dpi=96,
        ),
    )
    n = 0
    with (run / RESULTS).open("w", encoding="utf-8") as fh:
        for c in range(n_configs):
            cfg = f"config-{c:02d}"
            for t in range(n_tasks):
                task = f"task-{t:04d}"
                u = rng.random()
                base: dict[str, object] = {
                    "case_id": f"{cfg}/{task}",
                    "task_id": task,
                    "config_id": cfg,
                    "usage": Usage(cost_usd=float(rng.uniform(0.001, 0.01))),
                    "generation_cost_usd": float(rng.uniform(0.01, 0.05)),
                }
                if u < 0.01:
                    case = CaseResult(valid=True, error="backend timeout", **base)  # type: ignore[arg-type]
                elif u < 0.08:
                    case = CaseResult(
                        valid=False,
                        artifact_failures=["one_slide"],
                        gate="artifact",
                        score=0,
                        layout=0,
                        text=0,
                        graphics=0,
                        **base,  # type: ignore[arg-type]
                    )
                elif u < 0.25:
                    case = CaseResult(
                        valid=True,
                        gate="semantic",
                        gate_votes={"semantic": 2, "pass": 1},
                        rounds=["semantic", "pass", "semantic"],
                        score=0,
                        layout=0,
                        text=0,
                        graphics=0,
                        **base,  # type: ignore[arg-type]
                    )
                else:
                    s = float(np.clip(70 + skill[c] + difficulty[t] + rng.normal(0, 6), 0, 100))
                    case = CaseResult(
                        valid=True,
                        gate="pass",
                        gate_votes={"pass": 3},
                        rounds=["pass", "pass", "pass"],
                        score=s,
                        layout=0.4 * s,
                        text=0.3 * s,
                        graphics=0.3 * s,
                        **base,  # type: ignore[arg-type]
                    )
                fh.write(case.model_dump_json() + "\n")
                n += 1
    return n


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--configs", type=int, default=36)
    ap.add_argument("--tasks", type=int, default=500)
    ap.add_argument("--resamples", type=int, default=10_000)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="lb-bench-") as tmp:
        run = Path(tmp) / "run"
        t0 = time.perf_counter()
        n = synth_run(run, args.configs, args.tasks)
        t1 = time.perf_counter()
        res = CliRunner().invoke(
            app, ["leaderboard", str(run), "--resamples", str(args.resamples), "--format", "table"]
        )
        t2 = time.perf_counter()
        if res.exit_code != 0:
            raise SystemExit(f"judge leaderboard failed ({res.exit_code}): {res.output}")
    head = "\n".join(res.output.splitlines()[:5])
    print(head)
    print("...")
    print(
        f"synthetic run: {args.configs} configurations x {args.tasks} tasks = {n} cases "
        f"(written in {t1 - t0:.1f} s)"
    )
    verdict = "OK" if t2 - t1 < TARGET_SECONDS else "OVER TARGET"
    print(
        f"judge leaderboard, {args.resamples} resamples: {t2 - t1:.2f} s "
        f"(target < {TARGET_SECONDS:.0f} s: {verdict})"
    )


if __name__ == "__main__":
    main()
