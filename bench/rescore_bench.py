"""Benchmark: rescoring a finished run of 18,000 cases x 3 rounds from its frozen files.

Generates (untimed) a run directory in a temp folder the way the engine lays it out: ``run.json``,
``results.jsonl`` and, per case, ``stage0.json`` and ``rounds/round-<k>.json`` with frozen
Stage 3 findings (0-6 per passing round, random subtypes and fractions; about 10% of rounds
rejected; the third round skipped after two equal rejections, as the engine's early stop does;
2% invalid artifacts). Then times, each from a cold start of
:func:`scoring.rescore.rescore_run` (the OS file cache is warm, as after a run):

* ``identity``: original taxonomy and policy -- reads ``run.json``, ``results.jsonl``, every
  ``stage0.json`` and round file, aggregates, ranks, compares with the recorded scores;
* ``variant``: ``--policy unit-multiplier`` -- the same reading and scoring, plus writing
  ``results.unit-multiplier.<hash8>.jsonl``, per-config means and Kendall's tau;
* ``in-memory``: aggregation + ranking only, on already parsed rounds (no file I/O), to show
  where the time goes.

Usage: .venv/bin/python bench/rescore_bench.py [--cases 18000] [--keep DIR | --reuse DIR]
Target: under 5 s for the identity and variant rescores. Printed per timing: wall seconds and
CPU seconds (this process plus its worker processes; rescoring forks one worker per core).
On a shared machine wall time grows with the load average, which is printed too.
"""

from __future__ import annotations

import argparse
import os
import random
import resource
import shutil
import tempfile
import time
from pathlib import Path
from typing import NamedTuple

from judge.rundir import RESULTS, RUN_MANIFEST, case_dir
from judge.schema import (
    ArtifactReport,
    CategoryFraction,
    CheckResult,
    DetailVerdict,
    Finding,
    GateReason,
    GateVerdict,
    RoundResult,
    RoundStatus,
    RunManifest,
)
from scoring.case import build_case_result
from scoring.policy import resolve_policy
from scoring.rescore import rescore_run
from taxonomy.loader import DEFAULT_TAXONOMY, load_taxonomy, taxonomy_hash

ROUNDS = 3
CONFIGS = 6
"""Configurations; tasks = cases / CONFIGS."""
TARGET_SECONDS = 5.0
"""The issue's target for rescoring 18,000 cases x 3 rounds."""
SEED = 20261129


class Key(NamedTuple):
    """A case's identity (what :func:`build_case_result` needs of it)."""

    case_id: str
    task_id: str
    config_id: str


OK = GateVerdict(passed=True)
NO = GateVerdict(passed=False, reasons=[GateReason(target="edge A -> B", evidence="reversed")])
CHECKS = ("opens", "safe_to_read", "one_slide", "editable_components", "renders")


def _round(rng: random.Random, case_id: str, k: int, status: RoundStatus, subtypes, tax):
    detail = None
    if status == "pass":
        findings, fractions = [], {}
        for i, sub in enumerate(rng.sample(subtypes, rng.randint(0, 6))):
            dim, cat, _ = tax.subtype(sub)
            findings.append(
                Finding(
                    dimension=dim,
                    category=cat,
                    subtype=sub,
                    location=f"node {i}",
                    description="frozen benchmark finding",
                    affected_count=rng.randint(1, 4),
                )
            )
            fractions[(dim, cat)] = round(rng.random(), 3)
        detail = DetailVerdict(
            findings=findings,
            fractions=[
                CategoryFraction(dimension=d, category=c, fraction=v)
                for (d, c), v in fractions.items()
            ],
        )
    return RoundResult(
        case_id=case_id,
        round_index=k,
        status=status,
        semantic=NO if status == "semantic" else OK,
        render=NO if status == "render" else (OK if status == "pass" else None),
        detail=detail,
        backend="builtin",
    )


def cpu_seconds() -> float:
    """CPU seconds used so far by this process and its finished children (worker processes)."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


def parsed_rounds(run: Path) -> dict[str, list[RoundResult]]:
    """Every case's round files, parsed (for the in-memory timing; not timed)."""
    out: dict[str, list[RoundResult]] = {}
    for stage0 in sorted((run / "cases").glob("*/*/stage0.json")):
        cid = f"{stage0.parent.parent.name}/{stage0.parent.name}"
        out[cid] = [
            RoundResult.model_validate_json(p.read_bytes())
            for p in sorted((stage0.parent / "rounds").glob("round-*.json"))
        ]
    return out


def generate(run: Path, n_cases: int) -> None:
    """Write the frozen run the way the engine lays it out (plain writes; not timed)."""
    rng = random.Random(SEED)
    tax = load_taxonomy()
    tax_hash = taxonomy_hash(tax)
    policy = resolve_policy([])
    subtypes = sorted(tax.subtypes())
    tasks = max(1, n_cases // CONFIGS)
    lines: list[str] = []
    for c in range(CONFIGS):
        for t in range(tasks):
            config, task = f"config{c}", f"task{t:05d}"
            cid = f"{config}/{task}"
            cdir = case_dir(run, config, task)
            cdir.rounds_dir.mkdir(parents=True)
            valid = rng.random() > 0.02
            checks = [CheckResult(name=n, passed=True, detail="ok") for n in CHECKS]
            if not valid:
                checks.append(CheckResult(name="no_macros", passed=False, detail="vbaProject.bin"))
            report = ArtifactReport(path=f"{cid}.pptx", valid=valid, checks=checks)
            cdir.stage0.write_text(report.model_dump_json())
            statuses: list[RoundStatus] = [
                rng.choice(("semantic", "render")) if rng.random() < 0.1 else "pass"
                for _ in range(ROUNDS)
            ]
            if statuses[0] == statuses[1] != "pass":
                statuses[2] = "skipped"  # early stop, as the engine does: the case is gated
            rounds = [_round(rng, cid, k, s, subtypes, tax) for k, s in enumerate(statuses)]
            if valid:
                for r in rounds:
                    if r.status != "skipped":
                        cdir.round_json(r.round_index).write_text(r.model_dump_json())
            res = build_case_result(Key(cid, task, config), report, rounds, tax, tax_hash, policy)
            lines.append(res.model_dump_json())
    (run / RESULTS).write_text("\n".join(lines) + "\n")
    manifest = RunManifest(
        package_version="bench",
        created="2026-11-29T00:00:00Z",
        bench="synthetic",
        judge="builtin",
        rounds=ROUNDS,
        policy=policy,
        taxonomy_path=str(DEFAULT_TAXONOMY),
        taxonomy_version=tax.version,
        taxonomy_hash=tax_hash,
        render_dpi=150,
    )
    (run / RUN_MANIFEST).write_text(manifest.model_dump_json(indent=2))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=18_000)
    parser.add_argument("--keep", type=Path, help="Write the run here and keep it.")
    parser.add_argument("--reuse", type=Path, help="Time an existing run (from --keep).")
    args = parser.parse_args()

    tmp = None
    if args.reuse:
        run = args.reuse
        for extra in run.glob("results.*.jsonl"):
            extra.unlink()
    elif args.keep:
        run = args.keep
        run.mkdir(parents=True, exist_ok=False)
    else:
        tmp = tempfile.mkdtemp(prefix="rescore-bench-")
        run = Path(tmp) / "run"
        run.mkdir()
    try:
        t0 = time.perf_counter()
        if not args.reuse:
            generate(run, args.cases)
        rounds = parsed_rounds(run)
        n_cases = len(rounds)
        n_files = sum(1 for _ in run.rglob("*.json"))
        print(
            f"{'reused' if args.reuse else 'generated'} {n_cases} cases x {ROUNDS} rounds "
            f"({n_files} JSON files) in {time.perf_counter() - t0:.1f} s (not timed) at {run}"
        )

        t, c = time.perf_counter(), cpu_seconds()
        rep = rescore_run(run)
        identity, identity_cpu = time.perf_counter() - t, cpu_seconds() - c
        assert rep.identity and not rep.mismatches, rep.mismatches[:3]
        print(
            f"identity rescore (read + score + compare): {identity:.2f} s wall, "
            f"{identity_cpu:.2f} s CPU for {n_cases} cases; "
            f"{len(rep.results) - len(rep.mismatches)}/{len(rep.results)} reproduced exactly"
        )

        t, c = time.perf_counter(), cpu_seconds()
        rep = rescore_run(run, None, ["unit-multiplier"])
        variant, variant_cpu = time.perf_counter() - t, cpu_seconds() - c
        print(
            f"variant rescore unit-multiplier (read + score + write + tau): {variant:.2f} s wall, "
            f"{variant_cpu:.2f} s CPU; "
            f"{rep.changed} cases changed, tau {rep.kendall_tau}, wrote {rep.output}"
        )

        tax = load_taxonomy()
        tax_hash = taxonomy_hash(tax)
        policy = resolve_policy(["category-max"])
        t, c = time.perf_counter(), cpu_seconds()
        for cid, rs in rounds.items():
            config, task = cid.split("/")
            if rs:
                build_case_result(Key(cid, task, config), None, rs, tax, tax_hash, policy)
        memory, memory_cpu = time.perf_counter() - t, cpu_seconds() - c
        print(
            f"in-memory aggregate + rank (category-max, no I/O): {memory:.2f} s wall, "
            f"{memory_cpu:.2f} s CPU"
        )

        worst = max(identity, variant)
        verdict = "meets" if worst < TARGET_SECONDS else "MISSES"
        print(
            f"slowest full rescore {worst:.2f} s wall ({max(identity_cpu, variant_cpu):.2f} s "
            f"CPU): {verdict} the {TARGET_SECONDS:g} s target; load average "
            f"{os.getloadavg()[0]:.1f} on {os.cpu_count()} cores (wall time grows with load)"
        )
    finally:
        if tmp is not None:
            shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
