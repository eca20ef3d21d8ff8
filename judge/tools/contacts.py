"""Where a line's ink touches a node: near its box, or near the convex hull of an ellipse's or a
diamond's shape (``arrows.detect_lines``), and whether two readings found the same line."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import cv2
import numpy as np

from judge.tools.nodes import Blob
from judge.tools.thresholds import RECT_MIN_EXTENT, SAME_LINE_TOL_MIN_PX, SAME_LINE_TOL_WIDTHS

if TYPE_CHECKING:
    from judge.tools.arrows import LineComp


def line_touches(
    xs: np.ndarray,
    ys: np.ndarray,
    comp_box: tuple[int, int, int, int],
    blobs: list[Blob],
    ep_boxes: list[tuple[int, tuple[int, int, int, int]]],
    reach_m: int,
    shape_near: dict[tuple[int, int], np.ndarray],
) -> list[tuple[int, float, float]]:
    """(node, contact point) of each endpoint a line's ink (``xs``, ``ys``: image frame)
    comes within ``reach_m`` of: of its box, or of its shape for an ellipse or a diamond (a
    line passing a corner of an ellipse's box does not end there). ``shape_near`` memoises
    the shapes grown."""
    x, y, w, h = comp_box
    out: list[tuple[int, float, float]] = []
    for node, (bx, by, bw, bh) in ep_boxes:
        if bx - reach_m > x + w or bx + bw + reach_m < x or by - reach_m > y + h:
            continue
        if by + bh + reach_m < y:
            continue
        near = (
            (xs >= bx - reach_m)
            & (xs <= bx + bw + reach_m)
            & (ys >= by - reach_m)
            & (ys <= by + bh + reach_m)
        )
        if near.any() and blobs[node].extent < RECT_MIN_EXTENT:
            if (node, reach_m) not in shape_near:
                shape_near[(node, reach_m)] = _near_hull(blobs[node], reach_m)
            grown = shape_near[(node, reach_m)]
            near[near] = grown[ys[near] - by + reach_m, xs[near] - bx + reach_m]
        if near.any():
            end = end_point(xs[near], ys[near], (bx, by, bw, bh))
            out.append((node, end[0], end[1]))
    return out


def _near_hull(b: Blob, pad: int) -> np.ndarray:
    """Whether each pixel of ``b``'s box grown by ``pad`` lies within ``pad`` of its shape's
    convex hull (box frame shifted by ``pad``): an ellipse's or a diamond's outline, and for a
    ragged blob (a cluster of glyphs standing for a node) about its box, as before."""
    h, w = b.mask.shape
    m = np.zeros((h + 2 * pad + 1, w + 2 * pad + 1), np.uint8)
    pts = cv2.findNonZero(b.mask.astype(np.uint8))
    if pts is None:
        m[pad : pad + h, pad : pad + w] = 1
    else:
        cv2.fillConvexPoly(m, cv2.convexHull(pts + pad), 1)
    k = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * pad + 1, 2 * pad + 1))
    return cv2.dilate(m, k) > 0


def end_point(
    xs: np.ndarray, ys: np.ndarray, box: tuple[int, int, int, int]
) -> tuple[float, float]:
    """Where a line ends at a node: the mean of its pixels near the box that lie closest to the
    box's centre (within a few pixels of the closest), not of all pixels near the box (a line
    running into an ellipse crosses its box's corner long before it ends)."""
    cx, cy = box[0] + box[2] / 2, box[1] + box[3] / 2
    d = np.hypot(xs - cx, ys - cy)
    sel = d <= float(d.min()) + 4.0
    return float(xs[sel].mean()), float(ys[sel].mean())


def same_line(a: LineComp, b: LineComp) -> bool:
    """Whether ``b`` is line ``a`` read again: both join the same two nodes, at points a few
    line widths apart at most (the ink kept over an outline lengthens a line by its width;
    two lines between the same nodes lie farther apart: dev04's request and reply)."""
    if len(a.contacts) != 2 or len(b.contacts) != 2:
        return False
    ends = {c.node: c.point for c in b.contacts}
    tol = max(SAME_LINE_TOL_MIN_PX, SAME_LINE_TOL_WIDTHS * a.thickness_px)
    return all(c.node in ends and math.dist(c.point, ends[c.node]) <= tol for c in a.contacts)
