"""Accuracy of the builtin judge against a labelled synthetic benchmark.

Generates a benchmark with ``generation.benchmark.write_benchmark`` (seed 1234 by default: the
tests never use it and nothing was tuned on it), runs ``judge run --judge builtin`` over it, and
prints the gate confusion matrix, gate accuracy, Cohen's kappa, the pass rate of the faithful
variants and the recall of injected Stage 3 defects.

Usage::

    .venv/bin/python bench/builtin_accuracy.py [--seed 1234] [--tasks 10] [--out /tmp/acc]

Targets (issue 5): accuracy >= 0.90, kappa >= 0.80, every faithful variant passes,
Stage 3 recall >= 0.80.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from collections import Counter
from pathlib import Path

GATES = ["pass", "artifact", "semantic", "render"]


def cohen_kappa(truth: list[str], pred: list[str], labels: list[str]) -> float:
    n = len(truth)
    if n == 0:
        return float("nan")
    po = sum(t == p for t, p in zip(truth, pred, strict=True)) / n
    ct, cp = Counter(truth), Counter(pred)
    pe = sum(ct[k] * cp[k] for k in labels) / (n * n)
    return (po - pe) / (1 - pe) if pe < 1 else 1.0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seed", type=int, default=1234)
    ap.add_argument("--tasks", type=int, default=10)
    ap.add_argument("--out", type=Path, default=Path("/tmp/pptjudge-builtin-accuracy"))
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--workers", type=int, default=2)
    args = ap.parse_args()

    from generation.benchmark import write_benchmark

    bench = args.out / "bench"
    run = args.out / "run"
    if not (bench / "labels.jsonl").is_file():
        write_benchmark(bench, args.seed, args.tasks, force=True)
    judge = Path(sys.executable).with_name("judge")
    cmd = [
        str(judge),
        "run",
        str(bench),
        "--judge",
        "builtin",
        "--rounds",
        str(args.rounds),
        "--workers",
        str(args.workers),
        "--out",
        str(run),
    ]
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)

    labels = {}
    for line in (bench / "labels.jsonl").read_text().splitlines():
        if line.strip():
            rec = json.loads(line)
            labels[rec["case_id"]] = rec
    results = {}
    for line in (run / "results.jsonl").read_text().splitlines():
        if line.strip():
            rec = json.loads(line)
            results[rec["case_id"]] = rec

    truth, pred = [], []
    faithful_ok, faithful_n = 0, 0
    injected, found = 0, 0
    misses: list[str] = []
    for cid, lab in sorted(labels.items()):
        res = results.get(cid)
        got = (res or {}).get("gate") or "error"
        truth.append(lab["gate"])
        pred.append(got)
        if got != lab["gate"]:
            misses.append(
                f"  {cid}: {lab['variant']} ({lab['style']}) expected {lab['gate']}, got {got}"
            )
        if lab["variant"].startswith("faithful"):
            faithful_n += 1
            faithful_ok += got == "pass"
        if lab["gate"] == "pass" and lab.get("subtypes"):
            have = {f["subtype"] for f in (res or {}).get("findings", [])}
            for st in lab["subtypes"]:
                injected += 1
                if st in have:
                    found += 1
                else:
                    misses.append(
                        f"  {cid}: Stage 3 missed {st} ({lab['variant']}, got gate {got})"
                    )

    cols = GATES + (["error"] if "error" in pred else [])
    print(f"benchmark seed {args.seed}: {len(labels)} cases, {args.rounds} rounds, builtin judge")
    print("confusion matrix (rows: expected gate, columns: judged gate)")
    print("  " + "expected".ljust(10) + "".join(c.rjust(10) for c in cols))
    for t in GATES:
        row = [sum(1 for a, b in zip(truth, pred, strict=True) if a == t and b == c) for c in cols]
        print("  " + t.ljust(10) + "".join(str(v).rjust(10) for v in row))
    acc = sum(a == b for a, b in zip(truth, pred, strict=True)) / max(1, len(truth))
    kappa = cohen_kappa(truth, pred, cols)
    print(f"gate accuracy        {acc:.3f}   (target >= 0.90)")
    print(f"Cohen's kappa        {kappa:.3f}   (target >= 0.80)")
    print(f"faithful passed      {faithful_ok}/{faithful_n}   (target: all)")
    rec = found / injected if injected else float("nan")
    print(f"Stage 3 recall       {rec:.3f}   ({found}/{injected}; target >= 0.80)")
    if misses:
        print("disagreements:")
        print("\n".join(misses))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
