"""Cases per minute: the local executor against Ray with 1 and 2 workers (issue 13).

Judges the fixture benchmark (``fixtures/bench``: 3 tasks x 4 configurations), copied
``--copies`` times under new configuration names so start-up costs are spread over more cases,
with the builtin judge (3 rounds), into fresh run folders:

    .venv/bin/python bench/ray_bench.py [--copies 2] [--workers 1]

Each executor starts its own LibreOffice (``--workers`` instances per Ray worker) inside the
timed run; Ray itself (a local instance: ``num_cpus`` = 2, no dashboard) is started once, before
the Ray runs, and its start-up is printed apart. Every Ray run's ``results.jsonl`` is checked to
be identical to the local run's. The local run's CPU time (this process and its LibreOffice
children) per case is the per-case cost to scale from. The figures depend on the machine and on
what else runs on it: the script prints the load average beside them.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import tempfile
import time
from pathlib import Path

from judge.engine.runner import RunSettings, RunSummary, run_bench
from judge.rundir import RESULTS

ROOT = Path(__file__).resolve().parent.parent
BENCH = ROOT / "fixtures" / "bench"


def make_bench(dst: Path, copies: int) -> Path:
    shutil.copytree(BENCH / "tasks", dst / "tasks")
    for src in sorted((BENCH / "candidates").iterdir()):
        for k in range(copies):
            shutil.copytree(src, dst / "candidates" / f"{src.name}-{k}")
    return dst


def cpu_seconds() -> float:
    """CPU time of this process and its reaped children (LibreOffice, the UNO workers)."""
    me, kids = (
        resource.getrusage(resource.RUSAGE_SELF),
        resource.getrusage(resource.RUSAGE_CHILDREN),
    )
    return me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime


def timed(bench: Path, out: Path, settings: RunSettings) -> tuple[RunSummary, float, float]:
    """(summary, wall seconds, CPU seconds of this process tree)."""
    t0, c0 = time.perf_counter(), cpu_seconds()
    summary = run_bench(bench, out, settings)
    return summary, time.perf_counter() - t0, cpu_seconds() - c0


def line(name: str, summary: RunSummary, seconds: float, cpu: float | None = None) -> str:
    per_min = summary.judged / seconds * 60
    text = (
        f"{name:<14} {summary.judged:>5} cases {seconds:>7.1f} s  {per_min:>6.1f} cases/min  "
        f"errors {summary.errors}"
    )
    if cpu is not None:
        text += f"  {cpu / max(summary.judged, 1):.1f} CPU-s/case"
    return text


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--copies", type=int, default=2, help="copies of each configuration")
    ap.add_argument("--workers", type=int, default=1, help="LibreOffice instances per worker")
    args = ap.parse_args()
    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
    cpus = os.cpu_count() or 1
    with tempfile.TemporaryDirectory(prefix="ray-bench-") as tmp:
        root = Path(tmp)
        bench = make_bench(root / "bench", args.copies)
        base = RunSettings(judge="builtin", workers=args.workers)
        print(f"machine: {cpus} CPUs, load average {os.getloadavg()[0]:.1f} at start")
        local, t_local, cpu = timed(bench, root / "local", base)
        print(line("local", local, t_local, cpu))
        want = (root / "local" / RESULTS).read_text()

        import ray

        t0 = time.perf_counter()
        ray.init(
            num_cpus=2,
            include_dashboard=False,
            object_store_memory=200 * 1024 * 1024,
            log_to_driver=False,
            configure_logging=False,
        )
        print(f"ray start-up   {time.perf_counter() - t0:.1f} s (not in the figures below)")
        try:
            for n in (1, 2):
                settings = RunSettings(
                    judge="builtin", workers=args.workers, executor="ray", ray_workers=n
                )
                out = root / f"ray{n}"
                summary, seconds, _ = timed(bench, out, settings)  # CPU is spent in the actors
                same = (out / RESULTS).read_text() == want
                print(line(f"ray x{n}", summary, seconds) + f"  same results: {same}")
        finally:
            ray.shutdown()
        print(f"load average {os.getloadavg()[0]:.1f} at the end")


if __name__ == "__main__":
    main()
