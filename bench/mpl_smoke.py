"""Smoke test of the raster reader on diagrams drawn by matplotlib (not a labelled benchmark).

Draws seeded 7-node flow diagrams with matplotlib (``FancyBboxPatch`` boxes in three box styles
and four fills, with and without an outline; ``FancyArrowPatch`` arrows in the ``-|>``, ``->``,
``simple`` and ``fancy`` styles, straight, arced and ``angle3``), reads each with the built-in
judge's raster reader (blobs, OCR, lines, graph) and prints, per diagram, how many of the drawn
edges are read with their direction, how many backwards, and how many invented.

matplotlib is a development dependency (``pip install -e '.[dev]'``, as ``.ci/setup`` does), not
a runtime one; ``tests/test_mpl_reading.py`` reads the same figures.

Usage::

    .venv/bin/python bench/mpl_smoke.py [--figures 8] [--out /tmp/pptjudge-mpl-smoke]
"""

from __future__ import annotations

import argparse
import random
import sys
from pathlib import Path
from typing import Any

NAMES = ["Encoder", "Decoder", "Loss", "Data", "Sampler", "Output", "Cache", "Model"]
PLACES = [(1, 4.5), (1, 1.5), (4.5, 5), (4.5, 3), (4.5, 1), (8, 4), (8, 2)]
WIRING = [(0, 2), (0, 3), (1, 3), (1, 4), (2, 5), (3, 5), (4, 6), (3, 6)]


def draw(seed: int, out: Path) -> tuple[set[tuple[str, str]], str]:
    """One diagram as a PNG at ``out``; its directed edges (by label) and its style."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.patches import FancyArrowPatch, FancyBboxPatch

    rnd = random.Random(seed)
    fig, ax = plt.subplots(figsize=(10, 6), dpi=rnd.choice([80, 120, 160]))
    ax.set_xlim(0, 10)
    ax.set_ylim(0, 6)
    ax.axis("off")
    names = NAMES[:]
    rnd.shuffle(names)
    box = rnd.choice(["round,pad=0.2", "square,pad=0.2", "round4,pad=0.3"])
    fill = rnd.choice(["#dde8f5", "#eeeeee", "#ffe9c7", "white"])
    edge = rnd.choice(["black", "#333333", "none"])
    pos = dict(zip(names, PLACES, strict=False))
    for n, (x, y) in pos.items():
        patch = FancyBboxPatch(
            (x - 0.8, y - 0.35), 1.6, 0.7, boxstyle=box, fc=fill, ec=edge, lw=1.5
        )
        ax.add_patch(patch)
        ax.text(x, y, n, ha="center", va="center", fontsize=12)
    keys = list(pos)
    edges = {(keys[a], keys[b]) for a, b in WIRING}
    arrow = rnd.choice(["-|>", "->", "simple", "fancy"])
    conn = rnd.choice(["arc3,rad=0", "arc3,rad=0.2", "angle3"])
    for a, b in sorted(edges):
        (x0, y0), (x1, y1) = pos[a], pos[b]
        ax.add_patch(
            FancyArrowPatch(
                (x0 + 1.0, y0), (x1 - 1.0, y1), arrowstyle=arrow, connectionstyle=conn,
                mutation_scale=18 if arrow in ("-|>", "->") else 12, lw=1.4, color="#222222",
            )
        )  # fmt: skip
    fig.savefig(out, bbox_inches="tight", facecolor="white")
    plt.close(fig)
    return edges, f"{arrow} {conn} {box} fill {fill} outline {edge}"


def read(png: Path) -> set[tuple[str, str]]:
    """Directed edges (by label, direction high or medium) the raster reader finds."""
    import cv2

    from judge.tools.arrows import read_lines
    from judge.tools.graphread import read_raster_graph
    from judge.tools.nodes import detect_blobs
    from judge.tools.ocr import ocr_image

    img = cv2.imread(str(png))
    if img is None:
        raise FileNotFoundError(f"mpl_smoke: could not read {png}")
    blobs = detect_blobs(img)
    ocr = ocr_image(img)
    lines, pills = read_lines(img, blobs, ocr)
    g = read_raster_graph("mpl", (img.shape[1], img.shape[0]), blobs, lines, ocr, img, pills)
    label = {n.id: n.label for n in g.nodes}
    return {(label[e.src], label[e.dst]) for e in g.edges if e.direction in ("high", "medium")}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--figures", type=int, default=8)
    ap.add_argument("--out", type=Path, default=Path("/tmp/pptjudge-mpl-smoke"))
    args = ap.parse_args()
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        print("mpl_smoke: matplotlib is not installed (.venv/bin/pip install -e '.[dev]')",
              file=sys.stderr)  # fmt: skip
        return 2
    args.out.mkdir(parents=True, exist_ok=True)
    totals: dict[str, Any] = {"edges": 0, "right": 0, "backwards": 0, "invented": 0}
    for seed in range(args.figures):
        png = args.out / f"m{seed}.png"
        truth, style = draw(seed, png)
        got = read(png)
        back = {(b, a) for a, b in truth}
        right, backwards, invented = len(truth & got), len(back & got), len(got - truth - back)
        print(f"m{seed} ({style}): {right}/{len(truth)} right, {backwards} backwards, "
              f"{invented} invented")  # fmt: skip
        for k, v in (("edges", len(truth)), ("right", right), ("backwards", backwards),
                     ("invented", invented)):  # fmt: skip
            totals[k] += v
    print(f"all: {totals['right']}/{totals['edges']} edges right, {totals['backwards']} "
          f"backwards, {totals['invented']} invented")  # fmt: skip
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
