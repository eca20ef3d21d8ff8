"""Stage 0 speed: median milliseconds per candidate, without rendering.

Builds ``--decks`` typical candidates with python-pptx (10-30 labelled shapes joined by glued
connectors, a title text box; every third deck also carries an icon picture) and a reference
diagram PNG, then times :func:`judge.stage0.validate` (``render=None``) on each, ``--repeat``
times, with the reference (pictures screened) and without it. The prepared reference is cached
across candidates of a task (as in a batch run); one figure drops that cache every run.

Target (issue 2): median under 100 ms per typical candidate.

Example: .venv/bin/python bench/stage0_bench.py --decks 30
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # for tests.decks

from judge import stage0  # noqa: E402
from judge.stage0 import validate  # noqa: E402
from tests.decks import Pic, diagram_image, icon_image, make_deck  # noqa: E402

TARGET_MS = 100.0
"""Issue 2's target: Stage 0 median per typical candidate, milliseconds."""


def build(folder: Path, n: int) -> tuple[list[Path], Path]:
    decks = []
    for i in range(n):
        pictures = [Pic(icon_image(i), (0.82, 0.8, 0.1, 0.13))] if i % 3 == 0 else []
        n_shapes = 10 + (i * 7) % 21  # 10..30
        decks.append(make_deck(folder / f"cand{i:02d}.pptx", n_shapes, pictures=pictures, seed=i))
    reference = folder / "reference.png"
    reference.write_bytes(diagram_image(seed=1))
    return decks, reference


CPU: list[float] = []
"""Process CPU ms of every timed run (all threads), beside the wall-clock figures: on a shared,
loaded machine wall time includes waiting for a core."""


def time_ms(deck: Path, reference: Path | None, repeat: int, cold: bool = False) -> float:
    """Median wall ms of ``validate``; ``cold`` drops the cached reference screen first."""
    runs = []
    for _ in range(repeat):
        if cold:
            stage0._cached_screen.cache_clear()
        t0, c0 = time.perf_counter(), time.process_time()
        validate(deck, reference=reference, render=None)
        runs.append((time.perf_counter() - t0) * 1000)
        CPU.append((time.process_time() - c0) * 1000)
    return statistics.median(runs)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--decks", type=int, default=30)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="stage0-bench-") as tmp:
        decks, reference = build(Path(tmp), args.decks)
        validate(decks[0], reference=reference)  # warm imports and caches
        with_ref = [time_ms(d, reference, args.repeat) for d in decks]
        cpu_with_ref = list(CPU)
        without = [time_ms(d, None, args.repeat) for d in decks]
        pic = [t for i, t in enumerate(with_ref) if i % 3 == 0]
        pic_cold = [time_ms(d, reference, args.repeat, cold=True) for d in decks[::3]]
    med = statistics.median(with_ref)
    print(f"Stage 0 over {len(decks)} typical candidates (10-30 shapes; 1 in 3 with a picture)")
    print(f"  median ms per candidate, with reference screen: {med:.1f}")
    print(f"  p90 ms, with reference screen:                  {_p90(with_ref):.1f}")
    print(
        f"  median CPU ms, with reference screen:           {statistics.median(cpu_with_ref):.1f}"
    )
    print(f"  median ms, decks with a picture:                {statistics.median(pic):.1f}")
    print(f"  median ms, with a picture, reference not cached: {statistics.median(pic_cold):.1f}")
    print(f"  median ms per candidate, no reference:          {statistics.median(without):.1f}")
    print(f"  load average at the end: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    verdict = "meets" if med < TARGET_MS else "MISSES"
    print(f"  target median < {TARGET_MS:.0f} ms: {verdict}")


def _p90(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(0.9 * len(ordered)))]


if __name__ == "__main__":
    main()
