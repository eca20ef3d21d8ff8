"""Accuracy of the builtin judge on its labelled benchmarks, each reported separately.

* ``synth``: the synthetic benchmark (``generation.benchmark.write_benchmark``, seed 1234 by
  default: the tests never use it);
* ``real``: the real-figure benchmark (``generation.realfig.bench.write_realfig_benchmark``),
  built from the specs in ``generation/realfig`` and the reference images in
  ``$PPTJUDGE_SHARED/real-figures`` (copied into the output folder, never into the repository).
  Its figures are split in two folds (never one figure in both); each fold is reported alone.
  ``--look dark`` draws every reference light on dark (lightness inverted, decks to match),
  ``--look small`` scales every reference down to 640 px on its longer side (``tiny``: 400 px),
  ``--look jpeg`` passes every reference through one JPEG save at quality 60
  (``generation.realfig.looks``).
* ``graphviz``: the Graphviz benchmark (``generation.gvbench.write_graphviz_benchmark``, same
  seed and task count as ``synth``): references laid out and drawn by Graphviz (curved,
  orthogonal, polyline and arc splines, Graphviz arrowheads), decks rebuilt from the same
  layout, the real-figure variants; two folds by task, each reported alone. Needs ``dot``.
* ``robust``: the hand-builder robustness benchmark (``generation.realfig.robust``): the
  real figures' faithful ``shapes`` and ``handmade`` decks with one change each a person might
  make (large stealth heads, lines 2.2 times as wide, another font 10 % smaller, the figure
  centred on a slide 1.25 times as large); every case should pass (false rejections only).
* ``mpl``: the matplotlib benchmark (``generation.mplbench.write_mpl_benchmark``, same seed and
  task count): the same seeded graphs laid out by hand on layers and drawn by matplotlib
  (``FancyArrowPatch`` in five arrow styles, hand-drawn box styles, some references through
  JPEG), the real-figure variants; two folds by task. Needs matplotlib (a dev dependency).

``--bench both`` runs ``synth`` and ``real``; ``--bench all`` runs all five.

For each it runs ``judge run --judge builtin`` and prints the gate confusion matrix, gate
agreement, Cohen's kappa, faithful reconstructions passed, Stage 3 recall and a per-variant
table. ``--rejudge`` re-judges the cases of an earlier run in this process with the current code
(its renders and normalised pairs reused, the SVG export cached beside them): the same
decisions as a fresh run, without re-rendering.

Usage::

    .venv/bin/python bench/builtin_accuracy.py --bench synth [--seed 1234] [--tasks 10]
    .venv/bin/python bench/builtin_accuracy.py --bench real [--rejudge] [--out /tmp/acc]
    .venv/bin/python bench/builtin_accuracy.py --bench real --look dark   # small, jpeg, small+jpeg
    .venv/bin/python bench/builtin_accuracy.py --bench graphviz --tasks 12 --workers 1
    .venv/bin/python bench/builtin_accuracy.py --bench mpl --tasks 14
    .venv/bin/python bench/builtin_accuracy.py --bench robust
    .venv/bin/python bench/builtin_accuracy.py --bench real --rejudge --save /tmp/before.jsonl
    .venv/bin/python bench/builtin_accuracy.py --bench real --rejudge --against /tmp/before.jsonl

Targets (issue 10): real figures: agreement >= 0.85, kappa >= 0.70, >= 90 % of faithful
reconstructions passed, in both folds; synthetic: agreement >= 0.95.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

from generation.realfig.looks import LOOKS
from generation.realfig.looks import look as named_look
from judge.errors import BenchmarkError
from judge.rundir import atomic_write_text

GATES = ["pass", "artifact", "semantic", "render"]


def cohen_kappa(truth: list[str], pred: list[str], labels: list[str]) -> float:
    n = len(truth)
    if n == 0:
        return float("nan")
    po = sum(t == p for t, p in zip(truth, pred, strict=True)) / n
    ct, cp = Counter(truth), Counter(pred)
    pe = sum(ct[k] * cp[k] for k in labels) / (n * n)
    return (po - pe) / (1 - pe) if pe < 1 else float("nan")  # one class only: undefined


def read_jsonl(path: Path) -> dict[str, dict[str, Any]]:
    out = {}
    for line in path.read_text().splitlines():
        if line.strip():
            rec = json.loads(line)
            out[rec["case_id"]] = rec
    return out


def run_judge(bench: Path, run: Path, rounds: int, workers: int) -> None:
    judge = Path(sys.executable).with_name("judge")
    cmd = [str(judge), "run", str(bench), "--judge", "builtin", "--rounds", str(rounds),
           "--workers", str(workers), "--out", str(run)]  # fmt: skip
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)


def cache_ocr_on_disk(folder: Path) -> None:
    """Memoise ``judge.tools.ocr.ocr_image`` in ``folder`` by image content (OCR is
    deterministic, and it dominates a re-reading's time). The files are this script's own
    pickles, written atomically; point it only at a folder this script wrote."""
    import hashlib
    import pickle

    import judge.tools.ocr as ocr_mod
    from judge.tools.thresholds import OCR_MIN_CONFIDENCE

    folder.mkdir(parents=True, exist_ok=True)
    plain = ocr_mod.ocr_image

    def cached(img: Any, min_confidence: float = OCR_MIN_CONFIDENCE) -> Any:
        key = hashlib.sha256(img.tobytes() + str(img.shape).encode()).hexdigest()[:32]
        f = folder / f"{key}-{min_confidence}.pkl"
        if f.is_file():
            return pickle.loads(f.read_bytes())
        lines = plain(img, min_confidence)
        tmp = f.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_bytes(pickle.dumps(lines))
        tmp.replace(f)
        return lines

    ocr_mod.ocr_image = cached  # type: ignore[assignment]


def rejudge(bench: Path, run: Path, cases: list[str]) -> dict[str, dict[str, Any]]:
    """Gate and findings of ``cases``, judged in this process with the current code.

    Renders, normalised pairs and SVG exports are made once into ``run`` and reused; the
    reference's reading is shared by the cases of one task (``judge.tools.base.memo`` does
    that in every run, here as there), and OCR results are kept on disk
    by image hash (OCR is deterministic), so an iteration re-runs only the reading and the
    rules. Stage 0 is not run here: cases an earlier full run of ``run`` found invalid keep
    that result, the others are taken as valid (the real-figure decks are by construction)."""
    from langchain_core.messages import HumanMessage, ToolMessage

    from judge.backends.builtin import SUBMIT, BuiltinJudgeModel
    from judge.engine.graph import make_context
    from judge.render.pool import RenderPool
    from judge.render.prepare import prepare_pair
    from judge.rundir import CaseDir
    from judge.schema import Candidate, PairGeometry
    from judge.tools import TOOLS
    from taxonomy.loader import load_taxonomy

    tax = load_taxonomy()
    cache_ocr_on_disk(run / "ocr-cache")
    out: dict[str, dict[str, Any]] = {}
    pool: RenderPool | None = None

    def the_pool() -> RenderPool:
        nonlocal pool
        if pool is None:
            pool = RenderPool(workers=1, timeout=90.0)
            pool.__enter__()
        return pool

    def drive(ctx: Any, stage: str) -> dict[str, Any]:
        model = BuiltinJudgeModel(ctx, stage, tax)  # type: ignore[arg-type]
        messages: list[Any] = [HumanMessage(content="judge")]
        for _ in range(10):
            ai = model.invoke(messages)
            messages.append(ai)
            for call in ai.tool_calls:
                if call["name"] == SUBMIT:
                    return dict(call["args"])
                res = TOOLS[call["name"]].call(ctx, call["args"])
                messages.append(ToolMessage(content=json.dumps(res.data), tool_call_id=call["id"]))
        return {"passed": False, "reasons": [{"target": "-", "evidence": "no verdict"}]}

    earlier = read_jsonl(run / "results.jsonl") if (run / "results.jsonl").is_file() else {}
    try:
        for cid in cases:
            if earlier.get(cid, {}).get("valid") is False:
                out[cid] = earlier[cid]  # Stage 0 failed in the full run: nothing to re-judge
                continue
            config, task = cid.split("/", 1)
            cd = CaseDir(run / "cases" / config / task)
            cd.root.mkdir(parents=True, exist_ok=True)
            pptx = bench / "candidates" / config / f"{task}.pptx"
            ref = bench / "tasks" / task / "reference.png"
            if not cd.pair_json.is_file():
                the_pool().render(pptx, cd.render_png)
                pair = prepare_pair(ref, cd.render_png, cd.pair_png)
                cd.pair_json.write_text(pair.model_dump_json())
            svg_file = cd.root / "bench-export.svg"
            if not svg_file.is_file():
                svg_file.write_bytes(the_pool().export_svg(pptx))
            svg = svg_file.read_bytes()
            pair = PairGeometry.model_validate_json(cd.pair_json.read_text())
            cand = Candidate(case_id=cid, task_id=task, config_id=config, pptx=str(pptx),
                             reference=str(ref))  # fmt: skip
            ctx = make_context(cand, cd, pair, _constant(svg))
            sem = drive(ctx, "semantic")
            gate, findings, reasons = "pass", [], sem.get("reasons", [])
            if not sem.get("passed"):
                gate = "semantic"
            else:
                ren = drive(ctx, "render")
                if not ren.get("passed"):
                    gate, reasons = "render", ren.get("reasons", [])
                else:
                    findings = drive(ctx, "detail").get("findings", [])
            out[cid] = {"case_id": cid, "gate": gate, "findings": findings, "reasons": reasons}
            print(f"  {cid}: {gate}", file=sys.stderr, flush=True)
    finally:
        if pool is not None:
            pool.__exit__(None, None, None)
    return out


def _constant(data: bytes) -> Any:
    """An SVG exporter that returns bytes exported earlier."""

    def export(_pptx: Path) -> bytes:
        return data

    return export


def save_results(path: Path, results: dict[str, dict[str, Any]]) -> None:
    """Write ``results`` (by case id) as JSON lines, sorted, atomically: what
    :func:`read_jsonl` reads back for ``--against``."""
    atomic_write_text(path, "".join(json.dumps(results[c]) + "\n" for c in sorted(results)))


def gate_changes(
    labels: dict[str, dict[str, Any]],
    before: dict[str, dict[str, Any]],
    after: dict[str, dict[str, Any]],
) -> list[tuple[str, str, str, str, str]]:
    """Cases whose gate differs between two judgings of the same benchmark, as
    ``(case, "fixed" | "broke" | "changed", gate before, gate after, expected gate)``: fixed
    now agrees with the label, broke no longer does, changed agrees with neither. A case
    missing from one side counts as ``error`` there; cases not in ``labels`` are ignored."""
    out = []
    for cid, lab in sorted(labels.items()):
        old = (before.get(cid) or {}).get("gate") or "error"
        new = (after.get(cid) or {}).get("gate") or "error"
        if old == new:
            continue
        want = lab["gate"]
        how = "fixed" if new == want else "broke" if old == want else "changed"
        out.append((cid, how, old, new, want))
    return out


def verdict_changes(
    labels: dict[str, dict[str, Any]],
    before: dict[str, dict[str, Any]],
    after: dict[str, dict[str, Any]],
) -> list[str]:
    """Cases judged on both sides with the same gate but other gate reasons or Stage 3
    findings: a change that moves no gate may still move what a verdict says. Only results
    saved by ``--save`` on both sides are compared: a run's ``results.jsonl`` holds no gate
    reasons and its findings are merged over the rounds, so every case would differ."""
    out = []
    for cid in sorted(labels):
        old, new = before.get(cid), after.get(cid)
        if not old or not new or old.get("gate") != new.get("gate"):
            continue
        if "reasons" not in old or "reasons" not in new:
            continue
        if any(
            json.dumps(old.get(k), sort_keys=True) != json.dumps(new.get(k), sort_keys=True)
            for k in ("reasons", "findings")
        ):
            out.append(cid)
    return out


def report(title: str, labels: dict[str, dict[str, Any]], results: dict[str, dict[str, Any]],
           show_misses: bool, all_faithful: bool = False) -> dict[str, float]:  # fmt: skip
    """Print the confusion matrix, agreement, kappa, faithful passed (variants named
    ``faithful*``, or every case when ``all_faithful``), Stage 3 recall and per-variant table."""
    truth, pred = [], []
    faithful_ok = faithful_n = injected = found = 0
    misses: list[str] = []
    per: dict[str, Counter[str]] = defaultdict(Counter)
    expected: dict[str, str] = {}
    for cid, lab in sorted(labels.items()):
        res = results.get(cid) or {}
        got = res.get("gate") or "error"
        truth.append(lab["gate"])
        pred.append(got)
        per[lab["variant"]][got] += 1
        expected[lab["variant"]] = lab["gate"]
        if got != lab["gate"]:
            why = "; ".join(r.get("evidence", "")[:90] for r in res.get("reasons", [])[:2])
            misses.append(f"  {cid}: expected {lab['gate']}, got {got} ({lab['style']}) {why}")
        if all_faithful or lab["variant"].startswith("faithful"):
            faithful_n += 1
            faithful_ok += got == "pass"
        if lab["gate"] == "pass" and lab.get("subtypes"):
            have = {f["subtype"] for f in res.get("findings", [])}
            for st in lab["subtypes"]:
                injected += 1
                found += st in have
    cols = GATES + (["error"] if "error" in pred else [])
    print(f"== {title}: {len(labels)} cases")
    print("  " + "expected".ljust(10) + "".join(c.rjust(10) for c in cols))
    for t in GATES:
        row = [sum(1 for a, b in zip(truth, pred, strict=True) if a == t and b == c) for c in cols]
        if any(row):
            print("  " + t.ljust(10) + "".join(str(v).rjust(10) for v in row))
    print(
        "  per variant: "
        + "variant".ljust(18)
        + "expected  n  "
        + "".join(c.rjust(9) for c in cols)
        + "  agree"
    )
    for v in sorted(per):
        c = per[v]
        n = sum(c.values())
        cells = "".join(str(c.get(k, 0)).rjust(9) for k in cols)
        agree = c.get(expected[v], 0) / n
        print(f"               {v.ljust(22)}{expected[v].ljust(9)}{n:>3}  {cells}  {agree:.2f}")
    acc = sum(a == b for a, b in zip(truth, pred, strict=True)) / max(1, len(truth))
    kappa = cohen_kappa(truth, pred, cols)
    rec = found / injected if injected else float("nan")
    print(
        f"  gate agreement {acc:.3f}   Cohen's kappa {kappa:.3f}   faithful passed "
        f"{faithful_ok}/{faithful_n}   Stage 3 recall {rec:.3f} ({found}/{injected})"
    )
    if show_misses and misses:
        print("  disagreements:")
        print("\n".join(misses))
    return {"agreement": acc, "kappa": kappa, "faithful": faithful_ok / max(1, faithful_n)}


def _look_name(name: str) -> str:
    """``--look``'s value, checked (an unknown look is a usage error naming the known ones)."""
    try:
        named_look(name)
    except BenchmarkError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from exc
    return name


def build(kind: str, bench: Path, seed: int, tasks: int, look: str | None = None) -> None:
    """Write benchmark ``kind`` into ``bench`` (the real one ignores seed and task count and
    takes a reference ``look``)."""
    if kind == "synth":
        from generation.benchmark import write_benchmark

        write_benchmark(bench, seed, tasks, force=True)
    elif kind == "graphviz":
        from generation.gvbench import write_graphviz_benchmark

        write_graphviz_benchmark(bench, seed, tasks, force=True)
    elif kind == "mpl":
        from generation.mplbench import write_mpl_benchmark

        write_mpl_benchmark(bench, seed, tasks, force=True)
    elif kind == "robust":
        from generation.realfig.robust import write_robust_benchmark

        write_robust_benchmark(bench, force=True)
    else:
        from generation.realfig.bench import write_realfig_benchmark

        write_realfig_benchmark(bench, force=True, look=look)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument(
        "--bench",
        choices=["synth", "real", "graphviz", "mpl", "robust", "both", "all"],
        default="both",
        help="benchmark(s) to measure: both = synth + real, all = every one",
    )
    ap.add_argument("--seed", type=int, default=1234)
    ap.add_argument("--tasks", type=int, default=10)
    ap.add_argument("--out", type=Path, default=Path("/tmp/pptjudge-builtin-accuracy"))
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--rejudge", action="store_true", help="re-judge an earlier run in process")
    ap.add_argument(
        "--only", nargs="*", help="--rejudge: only cases whose id contains one of these"
    )
    ap.add_argument("--quiet", action="store_true", help="do not list disagreements")
    ap.add_argument(
        "--save",
        type=Path,
        help="write the results judged here (one JSON line per case) to this file, e.g. "
        "before a change, for --against after it",
    )
    ap.add_argument(
        "--against",
        type=Path,
        help="an earlier --save (or a run's results.jsonl): list the cases whose gate changed, "
        "each marked fixed, broke or changed, and count those with the same gate but other "
        "reasons or findings (--save on both sides only); one benchmark at a time",
    )
    ap.add_argument(
        "--look",
        type=_look_name,
        help=f"real: draw the references another way ({', '.join(sorted(LOOKS))}: light on "
        "dark, scaled down, through JPEG; or several joined by '+', e.g. small+jpeg; "
        "generation.realfig.looks); the decks change to match",
    )
    args = ap.parse_args()
    groups = {"both": ["synth", "real"], "all": ["synth", "real", "graphviz", "mpl", "robust"]}
    kinds = groups.get(args.bench, [args.bench])
    if (args.save or args.against) and len(kinds) > 1:
        ap.error(f"--save and --against take one benchmark at a time, not --bench {args.bench}")
    if args.against and not args.against.is_file():
        ap.error(f"--against {args.against}: no such file")
    failed = []
    for kind in kinds:
        look = args.look if kind == "real" else None
        suffix = f"{kind}-{look}" if look else kind
        bench = args.out / f"bench-{suffix}"
        run = args.out / f"run-{suffix}"
        if not (bench / "labels.jsonl").is_file():
            try:
                build(kind, bench, args.seed, args.tasks, look)
            except BenchmarkError as exc:  # Graphviz or matplotlib missing, figures absent
                print(f"builtin_accuracy: cannot build the {kind} benchmark: {exc}",
                      file=sys.stderr)  # fmt: skip
                failed.append(kind)
                continue
        labels = read_jsonl(bench / "labels.jsonl")
        if args.rejudge:
            wanted = [c for c in sorted(labels) if not args.only or any(o in c for o in args.only)]
            results = rejudge(bench, run, wanted)
            labels = {c: labels[c] for c in wanted}
        else:
            run_judge(bench, run, args.rounds, args.workers)
            results = read_jsonl(run / "results.jsonl")
        how = "re-judged in process" if args.rejudge else f"{args.rounds} rounds"
        name = {
            "synth": f"synthetic (seed {args.seed})",
            "real": "real figures" + (f" ({look} look)" if look else ""),
            "graphviz": f"Graphviz-drawn (seed {args.seed})",
            "mpl": f"matplotlib-drawn (seed {args.seed})",
            "robust": "hand-builder changes to faithful real-figure decks",
        }[kind]
        faithful = kind == "robust"
        if args.save:
            save_results(args.save, results)
        report(f"{name}, builtin judge, {how}", labels, results, not args.quiet, faithful)
        if args.against:
            before = read_jsonl(args.against)
            changes = gate_changes(labels, before, results)
            tally = Counter(how for _c, how, *_ in changes)
            said = verdict_changes(labels, before, results)
            saved = all("reasons" in r for r in [*before.values(), *results.values()])
            moved = (f"{len(said)} with the same gate but other reasons or findings" if saved
                     else "reasons and findings not compared (a run's results.jsonl on one "
                     "side: no gate reasons, findings merged over rounds)")  # fmt: skip
            print(f"  against {args.against}: {tally['fixed']} fixed, {tally['broke']} broke, "
                  f"{tally['changed']} changed; {moved}")  # fmt: skip
            for cid, how_, old, new, want in changes:
                print(f"    {how_:7} {cid}: {old} -> {new} (label: {want})")
        if kind in ("real", "graphviz", "mpl", "robust"):
            folds = json.loads((bench / "bench.json").read_text())["folds"]
            for k in (0, 1):
                sub = {c: lb for c, lb in labels.items() if folds[lb["task_id"]] == k}
                if not sub:
                    continue
                figs = sorted({lb["task_id"] for lb in sub.values()})
                what = {"real": "real figures", "graphviz": "Graphviz", "mpl": "matplotlib",
                        "robust": "hand-builder changes"}[kind]  # fmt: skip
                report(f"{what} fold {k} ({', '.join(figs)})", sub, results, False, faithful)
    return 2 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
