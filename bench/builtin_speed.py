"""Time per case of the builtin judge: three rounds of Stages 1-3, excluding rendering.

Uses a finished run folder (e.g. from ``bench/builtin_accuracy.py``) for its renders and
normalised pairs, rebuilds each case's tool context with a fresh cache (the SVG export is taken
once beforehand, as it is a LibreOffice job like rendering), and drives the builtin policy
through its tools for three rounds (the rounds share the case's measurement cache, as in a run).

Usage::

    .venv/bin/python bench/builtin_speed.py RUN_DIR BENCH_DIR [--cases 12]
    .venv/bin/python bench/builtin_speed.py --decks /work/shared/real-decks

The second form judges arbitrary real decks (all three stages against a generated reference)
and reports verdicts, crashes and time per deck.

As in a run, the cases of one reference image share its reading within the process
(``judge.tools.base.memo``): the first case of each reference reads it, the others copy it. The
summary gives the median over all cases and over the first cases alone; ``--cold`` forgets the
readings before every case (every case then reads its reference, as a process judging one
candidate per reference would).

Target (issue 5): median under 5 s per case; issue 10: under 3 s on 2000-px figures
(``--only dev04 dev06 dev16`` on the real-figure run of ``bench/builtin_accuracy.py``).
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from pathlib import Path

from langchain_core.messages import HumanMessage, ToolMessage

from judge.backends.builtin import SUBMIT, BuiltinJudgeModel
from judge.engine.graph import make_context
from judge.render.pool import RenderPool
from judge.rundir import CaseDir
from judge.schema import Candidate, PairGeometry
from judge.tools import TOOLS
from taxonomy.loader import load_taxonomy


def drive(ctx: object, stage: str, tax: object) -> bool:
    model = BuiltinJudgeModel(ctx, stage, tax)  # type: ignore[arg-type]
    messages: list = [HumanMessage(content="judge")]
    for _ in range(10):
        ai = model.invoke(messages)
        messages.append(ai)
        for call in ai.tool_calls:
            if call["name"] == SUBMIT:
                return bool(call["args"].get("passed", True))
            res = TOOLS[call["name"]].call(ctx, call["args"])  # type: ignore[arg-type]
            messages.append(ToolMessage(content=json.dumps(res.data), tool_call_id=call["id"]))
    return False


def real_decks(folder: Path, tmp: Path) -> int:
    """Judge every deck of ``folder`` against a generated reference: verdicts or errors."""
    import traceback

    from generation.diagram import make_diagram
    from generation.draw import draw_reference
    from judge.render.prepare import prepare_pair

    tax = load_taxonomy()
    ref = tmp / "reference.png"
    tmp.mkdir(parents=True, exist_ok=True)
    draw_reference(make_diagram("real", 3)).save(ref)
    outcomes: dict[str, int] = {}
    times = []
    with RenderPool(workers=1, timeout=60.0) as pool:
        for deck in sorted(folder.glob("*.pp*")):
            cd = CaseDir(tmp / deck.stem)
            cd.root.mkdir(parents=True, exist_ok=True)
            try:
                pool.render(deck, cd.render_png)
                pair = prepare_pair(ref, cd.render_png, cd.pair_png)
            except Exception as exc:  # Stage 0 / rendering would reject it: not the judge's
                outcomes["not rendered"] = outcomes.get("not rendered", 0) + 1
                print(f"  {deck.name}: not rendered ({type(exc).__name__})")
                continue
            cand = Candidate(
                case_id=f"real/{deck.stem}",
                task_id=deck.stem,
                config_id="real",
                pptx=str(deck),
                reference=str(ref),
            )
            ctx = make_context(cand, cd, pair, pool.export_svg)
            t0 = time.perf_counter()
            try:
                verdicts = [drive(ctx, st, tax) for st in ("semantic", "render", "detail")]
                kind = "verdicts"
                note = "semantic " + ("pass" if verdicts[0] else "fail")
            except Exception:
                kind = "CRASH"
                note = traceback.format_exc().strip().splitlines()[-1]
            times.append(time.perf_counter() - t0)
            outcomes[kind] = outcomes.get(kind, 0) + 1
            print(f"  {deck.name}: {kind} ({note}) {times[-1]:.1f} s")
    print(f"real decks: {outcomes}; median {statistics.median(times):.2f} s per deck")
    return 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("run", type=Path, nargs="?")
    ap.add_argument("bench", type=Path, nargs="?")
    ap.add_argument("--cases", type=int, default=12)
    ap.add_argument("--only", nargs="*", help="only case ids containing one of these (e.g. dev04)")
    ap.add_argument("--decks", type=Path, help="judge every deck of this folder instead")
    ap.add_argument("--tmp", type=Path, default=Path("/tmp/pptjudge-real-decks"))
    ap.add_argument(
        "--cold", action="store_true", help="every case reads its reference (no shared reading)"
    )
    args = ap.parse_args()
    if args.decks is not None:
        return real_decks(args.decks, args.tmp)
    if args.run is None or args.bench is None:
        ap.error("give RUN_DIR and BENCH_DIR, or --decks FOLDER")
    from judge.tools.base import clear_shared_readings

    tax = load_taxonomy()
    times = []
    first_times = []
    seen: set[str] = set()
    with RenderPool(workers=1, timeout=60.0) as pool:
        dirs = sorted(p.parent for p in (args.run / "cases").glob("*/*/pair.json"))
        if args.only:
            dirs = [d for d in dirs if any(o in f"{d.parent.name}/{d.name}" for o in args.only)]
        for cd_path in dirs[: args.cases]:
            config, task = cd_path.parent.name, cd_path.name
            pptx = args.bench / "candidates" / config / f"{task}.pptx"
            ref = args.bench / "tasks" / task / "reference.png"
            cd = CaseDir(cd_path)
            pair = PairGeometry.model_validate_json(cd.pair_json.read_text())
            cand = Candidate(
                case_id=f"{config}/{task}",
                task_id=task,
                config_id=config,
                pptx=str(pptx),
                reference=str(ref),
            )
            svg: bytes = pool.export_svg(pptx)

            def cached_svg(_pptx: Path, data: bytes = svg) -> bytes:
                return data

            ctx = make_context(cand, cd, pair, cached_svg)
            if args.cold:
                clear_shared_readings()
            first = args.cold or task not in seen
            seen.add(task)
            t0 = time.perf_counter()
            for _ in range(3):
                for stage in ("semantic", "render", "detail"):
                    if not drive(ctx, stage, tax):
                        break
            dt = time.perf_counter() - t0
            times.append(dt)
            if first:
                first_times.append(dt)
            note = "reference read" if first else "reference reading copied"
            print(f"  {config}/{task}: {dt:.2f} s ({note})")
    if times:
        print(
            f"cases: {len(times)}; median {statistics.median(times):.2f} s per case "
            "(3 rounds, excluding rendering; target < 3 s on 2000-px figures, issue 10); "
            f"max {max(times):.2f} s"
        )
        print(
            f"cases that read their reference: {len(first_times)}; median "
            f"{statistics.median(first_times):.2f} s"
            + ("" if args.cold else " (the others copied the first case's reading)")
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
