"""Aligned difference of the reference and candidate panels, and the colour-difference tool.

The aligned difference works on the normalised panels (outer whitespace, centring and scale are
already removed by image preparation) and reports the share of the figure that differs, plus the
biggest differing regions in the panel frame. The colour difference tool compares colours given
as RRGGBB or measured as the dominant colour of a region (:mod:`judge.tools.colour`).
"""

from __future__ import annotations

from typing import Any, Literal

import cv2
import numpy as np

from judge.tools.base import Tool, ToolContext, ToolOutput, ToolUsageError, memo
from judge.tools.colour import ciede2000_bgr, rgb_hex_to_bgr
from judge.tools.nodes import channel_max, channel_min, dominant_bgr, hex_of
from judge.tools.ocr import region_to_image
from judge.tools.thresholds import (
    BLACK_LEVEL,
    BLOCK_MIN_PX,
    DIFF_SHIFT_PX,
    FIGURE_GROW_PX,
    INK_DIFF,
)


def panels(ctx: ToolContext) -> tuple[np.ndarray, np.ndarray]:
    """The reference and candidate panels (BGR) cut from the pair image."""
    pair = ctx.image("pair")
    g = ctx.pair
    ref = pair[: g.panel_height, g.reference.panel_left : g.reference.panel_left + g.panel_width]
    cand = pair[: g.panel_height, g.candidate.panel_left : g.candidate.panel_left + g.panel_width]
    return ref, cand


def aligned_difference(ref: np.ndarray, cand: np.ndarray) -> dict[str, Any]:
    """Compare two equally sized panels: differing share of the figure, black and blank blocks.

    Figures are fractions (0-1) of the union of both panels' content; regions are panel pixels.
    """
    ink_r = channel_min(ref) < 255 - INK_DIFF  # off white by more than INK_DIFF
    ink_c = channel_min(cand) < 255 - INK_DIFF
    k = np.ones((DIFF_SHIFT_PX, DIFF_SHIFT_PX), np.uint8)
    # tolerate small offsets: compare each ink mask with the other's dilation
    dr = cv2.dilate(ink_r.astype(np.uint8), k) > 0
    dc = cv2.dilate(ink_c.astype(np.uint8), k) > 0
    only_ref = ink_r & ~dc
    only_cand = ink_c & ~dr
    content = (
        cv2.dilate(
            (ink_r | ink_c).astype(np.uint8), np.ones((FIGURE_GROW_PX, FIGURE_GROW_PX), np.uint8)
        )
        > 0
    )
    ys, xs = np.nonzero(content)
    if xs.size == 0:
        return {
            "figure_px": 0,
            "differing_fraction": 0.0,
            "black_block_fraction": 0.0,
            "blank_block_fraction": 0.0,
            "regions": [],
        }
    fx0, fx1, fy0, fy1 = xs.min(), xs.max() + 1, ys.min(), ys.max() + 1
    fig_area = float((fx1 - fx0) * (fy1 - fy0))
    black_c = (channel_max(cand) < BLACK_LEVEL) & ~(
        cv2.dilate((channel_max(ref) < BLACK_LEVEL).astype(np.uint8), k) > 0
    )
    big = np.ones((BLOCK_MIN_PX, BLOCK_MIN_PX), np.uint8)
    black_blocks = cv2.morphologyEx(black_c.astype(np.uint8), cv2.MORPH_OPEN, big)
    # blank blocks: solid reference content (fills, not lines) missing from the candidate
    ref_solid = cv2.morphologyEx(ink_r.astype(np.uint8), cv2.MORPH_OPEN, big) > 0
    blank_blocks = cv2.morphologyEx((ref_solid & ~dc).astype(np.uint8), cv2.MORPH_OPEN, big)
    diff = cv2.morphologyEx((only_ref | only_cand).astype(np.uint8), cv2.MORPH_CLOSE, k)
    n, _, stats, _ = cv2.connectedComponentsWithStats(diff, connectivity=8)
    regions = sorted(
        ([int(v) for v in stats[i, :4]] + [int(stats[i, 4])] for i in range(1, n)),
        key=lambda r: -r[4],
    )[:8]
    return {
        "figure_px": [int(fx0), int(fy0), int(fx1 - fx0), int(fy1 - fy0)],
        "differing_fraction": round(
            float((only_ref | only_cand).sum()) / max(1.0, float((ink_r | ink_c).sum())), 4
        ),
        "black_block_fraction": round(float(black_blocks.sum()) / fig_area, 4),
        "blank_block_fraction": round(float(blank_blocks.sum()) / fig_area, 4),
        "regions": [{"box": r[:4], "pixels": r[4]} for r in regions],
    }


def panel_difference(ctx: ToolContext) -> ToolOutput:
    """Aligned difference of the reference and candidate panels (the pair you see).

    Returns differing_fraction (share of all ink, 0-1, found in one panel but not within a few
    pixels of the other), black_block_fraction and blank_block_fraction (share of the figure's
    area covered by solid black blocks the reference lacks, or by solid reference content the
    candidate lacks), and the largest differing regions as panel-frame boxes [x, y, w, h].
    Returns a difference image (red = only in reference, blue = only in candidate).
    """

    def compute() -> dict[str, Any]:
        ref, cand = panels(ctx)
        return aligned_difference(ref, cand)

    data = memo(ctx, "panel_difference", compute)
    ref, cand = panels(ctx)
    vis = np.full_like(ref, 255)
    ink_r = channel_min(ref) < 255 - INK_DIFF
    ink_c = channel_min(cand) < 255 - INK_DIFF
    vis[ink_r & ink_c] = (160, 160, 160)
    vis[ink_r & ~ink_c] = (0, 0, 230)
    vis[ink_c & ~ink_r] = (230, 0, 0)
    return ToolOutput(dict(data), [vis])


def colour_difference(
    ctx: ToolContext,
    colour_a: str | None = None,
    colour_b: str | None = None,
    reference_box: list[float] | None = None,
    candidate_box: list[float] | None = None,
    frame: Literal["panel", "image"] = "panel",
) -> ToolOutput:
    """CIEDE2000 colour difference (0 = same, ~2.3 = just noticeable, >10 = clearly different).

    Either give two colours as RRGGBB (colour_a, colour_b), or a box [x, y, w, h] in each image
    (reference_box, candidate_box, in `frame`): the dominant colour of each box is measured and
    compared. Returns both colours and the difference.
    """

    def region_colour(which: str, box: list[float]) -> tuple[int, int, int]:
        if len(box) != 4:
            raise ToolUsageError(f"{which}_box must be [x, y, w, h]")
        x0, y0, x1, y1 = region_to_image(ctx, which, box[0], box[1], box[2], box[3], frame)
        col = dominant_bgr(ctx.image(which)[y0:y1, x0:x1].reshape(-1, 3))
        if col is None:
            raise ToolUsageError(f"{which}_box is empty")
        return col

    if colour_a is not None and colour_b is not None:
        a, b = rgb_hex_to_bgr(colour_a), rgb_hex_to_bgr(colour_b)
    elif reference_box is not None and candidate_box is not None:
        a, b = region_colour("reference", reference_box), region_colour("candidate", candidate_box)
    else:
        raise ToolUsageError("give colour_a and colour_b, or reference_box and candidate_box")
    return ToolOutput(
        {"colour_a": hex_of(a), "colour_b": hex_of(b), "ciede2000": round(ciede2000_bgr(a, b), 2)}
    )


TOOLS = [Tool.from_function(panel_difference), Tool.from_function(colour_difference)]
