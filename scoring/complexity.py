"""Visual complexity of reference images and easy/medium/hard tiers (FigCodeBench-style).

Measured on the reference at most :data:`MAX_SIDE_PX` on its longer side, inside its content
box (pixels differing from the median border colour by more than :data:`CONTENT_LEVELS`, as
image preparation finds content):

* ``edge_density``: Canny edge pixels over the content box;
* ``orientation_entropy``: entropy of the gradient orientations at edge pixels (16 bins over
  0-180 degrees), over log(16): 0 for a figure of parallel lines, 1 for every direction alike;
* ``colour_diversity``: entropy of the 4-bit-per-channel histogram of foreground pixels, over
  log(4096);
* ``components``: foreground connected components of at least :data:`MIN_COMPONENT_PX` pixels;
* ``occupancy``: foreground pixels over the content box.

FigCodeBench does not publish its tier cut-offs. **Ours**: a task's complexity score is the mean
of its five percentile ranks within the benchmark (0-1, ties averaged), and the tiers are its
tertiles (``easy`` below the first, ``hard`` above the second) unless cut-offs are given.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal

import cv2
import numpy as np
from numpy.typing import NDArray
from scipy.stats import rankdata

from judge.errors import PptJudgeError
from judge.schema import ComplexityMetrics

MAX_SIDE_PX = 1200
CONTENT_LEVELS = 10
CANNY_LOW, CANNY_HIGH = 50, 150
ORIENTATION_BINS = 16
COLOUR_BITS = 4
MIN_COMPONENT_PX = 10
MEASURES = ("edge_density", "orientation_entropy", "colour_diversity", "components", "occupancy")

TierName = Literal["easy", "medium", "hard"]
TIERS: tuple[TierName, ...] = ("easy", "medium", "hard")


def _entropy(counts: NDArray[np.float64], bins: int) -> float:
    total = counts.sum()
    if total <= 0:
        return 0.0
    p = counts[counts > 0] / total
    return max(0.0, float(-(p * np.log(p)).sum() / math.log(bins)))


def complexity(bgr: NDArray[Any]) -> ComplexityMetrics:
    """The five measures of one BGR image."""
    h, w = bgr.shape[:2]
    scale = min(1.0, MAX_SIDE_PX / max(h, w))
    if scale < 1.0:
        bgr = cv2.resize(bgr, (round(w * scale), round(h * scale)), interpolation=cv2.INTER_AREA)
    border = np.concatenate([bgr[0], bgr[-1], bgr[:, 0], bgr[:, -1]])
    bg = np.median(border, axis=0)
    fg = np.abs(bgr.astype(np.float64) - bg).max(axis=2) > CONTENT_LEVELS
    ys, xs = np.nonzero(fg)
    if xs.size == 0:
        return ComplexityMetrics(
            edge_density=0.0,
            orientation_entropy=0.0,
            colour_diversity=0.0,
            components=0,
            occupancy=0.0,
        )
    y0, y1, x0, x1 = ys.min(), ys.max() + 1, xs.min(), xs.max() + 1
    box = bgr[y0:y1, x0:x1]
    fgb = fg[y0:y1, x0:x1]
    area = float(fgb.size)
    grey = cv2.cvtColor(box, cv2.COLOR_BGR2GRAY)
    edges = cv2.Canny(grey, CANNY_LOW, CANNY_HIGH) > 0
    gx = cv2.Sobel(grey, cv2.CV_64F, 1, 0, ksize=3)
    gy = cv2.Sobel(grey, cv2.CV_64F, 0, 1, ksize=3)
    angles = np.degrees(np.arctan2(gy[edges], gx[edges])) % 180.0
    hist, _ = np.histogram(angles, bins=ORIENTATION_BINS, range=(0.0, 180.0))
    q = (box[fgb] >> (8 - COLOUR_BITS)).astype(np.int64)
    codes = (q[:, 0] << (2 * COLOUR_BITS)) | (q[:, 1] << COLOUR_BITS) | q[:, 2]
    n_colours = 1 << (3 * COLOUR_BITS)
    colours = np.bincount(codes, minlength=n_colours).astype(np.float64)
    n, _, stats, _ = cv2.connectedComponentsWithStats(fgb.astype(np.uint8), connectivity=8)
    comps = int((stats[1:, cv2.CC_STAT_AREA] >= MIN_COMPONENT_PX).sum()) if n > 1 else 0
    return ComplexityMetrics(
        edge_density=round(float(edges.sum()) / area, 6),
        orientation_entropy=round(_entropy(hist.astype(np.float64), ORIENTATION_BINS), 6),
        colour_diversity=round(_entropy(colours, n_colours), 6),
        components=comps,
        occupancy=round(float(fgb.sum()) / area, 6),
    )


def reference_complexity(png: Path) -> ComplexityMetrics:
    img = cv2.imread(str(png), cv2.IMREAD_COLOR)
    if img is None:
        raise PptJudgeError(f"{png}: cannot read the reference image")
    return complexity(img)


def complexity_scores(metrics: Mapping[str, ComplexityMetrics]) -> dict[str, float]:
    """Task -> mean percentile rank of its five measures within ``metrics`` (0-1)."""
    tasks = sorted(metrics)
    if not tasks:
        return {}
    if len(tasks) == 1:
        return {tasks[0]: 0.5}
    table = np.array([[float(getattr(metrics[t], m)) for m in MEASURES] for t in tasks])
    ranks = rankdata(table, axis=0, method="average")
    pct = (ranks - 1.0) / (len(tasks) - 1.0)
    return {t: round(float(v), 6) for t, v in zip(tasks, pct.mean(axis=1), strict=True)}


def tier_cuts(scores: Mapping[str, float]) -> tuple[float, float]:
    """The tertiles of the benchmark's own complexity scores."""
    values = np.array(sorted(scores.values()), dtype=np.float64)
    if values.size == 0:
        return (1.0 / 3.0, 2.0 / 3.0)
    lo, hi = np.quantile(values, [1.0 / 3.0, 2.0 / 3.0])
    return float(lo), float(hi)


def assign_tiers(
    metrics: Mapping[str, ComplexityMetrics], cuts: tuple[float, float] | None = None
) -> dict[str, TierName]:
    """Task -> tier: ``easy`` when its score <= the first cut, ``hard`` when above the second."""
    scores = complexity_scores(metrics)
    lo, hi = cuts if cuts is not None else tier_cuts(scores)
    if lo > hi:
        raise PptJudgeError(f"tier cut-offs must be increasing, got {lo:g} > {hi:g}")
    out: dict[str, TierName] = {}
    for task, s in scores.items():
        out[task] = "easy" if s <= lo else ("medium" if s <= hi else "hard")
    return out
