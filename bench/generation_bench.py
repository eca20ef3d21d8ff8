"""Synthetic benchmark generation and image preparation: speed and render fidelity.

Prints, for one generated benchmark (seed 4242 by default -- not 1234, which is kept for the
built-in judge's accuracy):

* generation seconds per task (diagram + reference + 4 candidate decks) and bytes per case;
* ``prepare_pair`` median milliseconds (reference vs LibreOffice render);
* render fidelity: the mean absolute difference (0-255) of the two normalised panels after a
  3 px blur, per variant, over all tasks -- faithful variants should sit well below every
  visible defect; artifact variants that keep the drawing look faithful by design.

Example: .venv/bin/python bench/generation_bench.py --tasks 8 --workers 2
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from collections import defaultdict
from pathlib import Path

import numpy as np
from PIL import Image, ImageFilter

BLUR_PX = 3


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seed", type=int, default=4242)
    ap.add_argument("--tasks", type=int, default=8)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--all-variants", action="store_true", help="one config with every variant")
    args = ap.parse_args()

    from generation.benchmark import write_benchmark
    from generation.variants import VARIANTS
    from judge.render.pool import RenderPool
    from judge.render.prepare import prepare_pair

    with tempfile.TemporaryDirectory() as tmp:
        bench = Path(tmp) / "bench"
        configs = {"all": list(VARIANTS)} if args.all_variants else None
        t0 = time.perf_counter()
        labels = write_benchmark(bench, args.seed, args.tasks, configs)
        gen_s = time.perf_counter() - t0
        decks = sorted(bench.glob("candidates/*/*.pptx"))
        deck_bytes = sum(p.stat().st_size for p in decks)
        ref_bytes = sum(p.stat().st_size for p in bench.glob("tasks/*/reference.png"))
        print(f"seed {args.seed}: {args.tasks} tasks, {len(labels)} cases")
        print(f"generation: {gen_s / args.tasks:.2f} s per task ({gen_s:.1f} s total)")
        print(
            f"size: {deck_bytes / len(decks) / 1024:.0f} KiB per deck, "
            f"{ref_bytes / args.tasks / 1024:.0f} KiB per reference"
        )

        renders = Path(tmp) / "renders"
        with RenderPool(workers=args.workers) as pool:
            t0 = time.perf_counter()
            for deck in decks:
                pool.render(deck, renders / deck.parent.name / f"{deck.stem}.png")
            render_s = time.perf_counter() - t0
        print(
            f"render: {render_s / len(decks):.2f} s per deck (sequential, pool of {args.workers})"
        )

        by_variant: dict[str, list[float]] = defaultdict(list)
        prep_ms: list[float] = []
        for lb in labels:
            ref = bench / "tasks" / lb.task_id / "reference.png"
            png = renders / lb.config_id / f"{lb.task_id}.png"
            t0 = time.perf_counter()
            geo = prepare_pair(ref, png, Path(tmp) / "pair.png")
            prep_ms.append((time.perf_counter() - t0) * 1000)
            with Image.open(geo.pair_image) as pair:
                arr = np.asarray(pair.convert("RGB").filter(ImageFilter.GaussianBlur(BLUR_PX)))
            left = arr[:, : geo.panel_width].astype(np.float64)
            right = arr[:, geo.candidate.panel_left :].astype(np.float64)
            by_variant[lb.variant].append(float(np.abs(left - right).mean()))
        print(f"prepare_pair: median {statistics.median(prep_ms):.0f} ms per pair")
        print("render fidelity, blurred panel MAD (0-255) per variant: median / max (n)")
        gates = {lb.variant: lb.gate for lb in labels}
        for name in sorted(by_variant, key=lambda v: (gates[v] != "pass", gates[v], v)):
            vals = by_variant[name]
            print(
                f"  {name:22s} {gates[name]:9s} {statistics.median(vals):5.2f} / "
                f"{max(vals):5.2f} ({len(vals)})"
            )
        print(json.dumps({"generation_s_per_task": round(gen_s / args.tasks, 3)}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
