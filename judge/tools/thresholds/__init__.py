"""Every threshold of the built-in judge and its measurement tools, named once, with its reason.

Units are in the names or comments: ``_PX`` pixels of the full-resolution image being measured,
``_FRAC`` 0-1 fractions, ``_DE`` CIEDE2000 colour difference units, ``_PT`` points.
Pixel sizes that must follow the image's resolution are given per 1000 pixels of the image's
shorter side (``_PER_KPX``) and scaled by :func:`scaled_px`.

The taxonomy's numbers (tiers, staircase, weights) are NOT here: they live only in the taxonomy
file. The Stage 2 gate fractions (30 % / 50 %) are the protocol's, restated here once for the
builtin policy because the protocol names them in prose only.

The names live in three modules by subject, each name in one of them: ``raster`` (ink, node
blobs, outlines), ``lines`` (line components, strokes, arrowheads) and ``gates`` (OCR, graph
matching and reading, evidence, the gates' fractions). Import them from here.
"""

from __future__ import annotations

from judge.tools.thresholds.gates import *  # noqa: F403  (one namespace for every threshold)
from judge.tools.thresholds.lines import *  # noqa: F403
from judge.tools.thresholds.raster import *  # noqa: F403


def scaled_px(per_kpx: float, shape: tuple[int, ...], minimum: int = 1) -> int:
    """A ``_PER_KPX`` threshold in pixels of an image of ``shape`` (rows, cols, ...)."""
    short = min(shape[0], shape[1])
    return max(minimum, int(round(per_kpx * short / 1000.0)))
