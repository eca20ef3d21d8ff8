"""Where a line's ink touches a node: near its box, or near the convex hull of an ellipse's or a
diamond's shape (``arrows.detect_lines``), and whether two readings found the same line."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import cv2
import numpy as np

from judge.tools.nodes import Blob
from judge.tools.thresholds import (
    BARB_AHEAD_FRAC,
    BARB_MAX_HEAD_THICKNESSES,
    BARB_SEGMENT_INK_FRAC,
    RECT_MIN_EXTENT,
    SAME_LINE_TOL_MIN_PX,
    SAME_LINE_TOL_WIDTHS,
)

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
        near = near_box(xs, ys, (bx, by, bw, bh), reach_m)
        if near.any() and blobs[node].extent < RECT_MIN_EXTENT:
            if (node, reach_m) not in shape_near:
                shape_near[(node, reach_m)] = _near_hull(blobs[node], reach_m)
            grown = shape_near[(node, reach_m)]
            near[near] = grown[ys[near] - by + reach_m, xs[near] - bx + reach_m]
        if near.any():
            end = end_point(xs[near], ys[near], (bx, by, bw, bh))
            out.append((node, end[0], end[1]))
    return out


def near_box(
    xs: np.ndarray, ys: np.ndarray, box: tuple[int, int, int, int], pad: int
) -> np.ndarray:
    """Which of the pixels (image frame) lie within ``pad`` of ``box``."""
    bx, by, bw, bh = box
    return (xs >= bx - pad) & (xs <= bx + bw + pad) & (ys >= by - pad) & (ys <= by + bh + pad)


def barb_touches(
    touches: list[tuple[int, float, float]],
    comp: np.ndarray,
    origin: tuple[int, int],
    head_reach: float,
) -> set[int]:
    """The node of three ``touches`` (image frame) that only a head's barb grazes: of two touches
    within two ``head_reach`` of each other joined by solid ink (``comp``: the line's mask, its
    window's corner at ``origin``), with one stroke entering that ink from behind, the one
    further back along that stroke (``BARB_AHEAD_FRAC``), when the other's head is thick
    enough to span them (``BARB_MAX_HEAD_THICKNESSES``)."""
    out: set[int] = set()
    if len(touches) != 3:
        return out  # one line's two ends and a graze; where more meet, strokes cross there
    x0, y0 = origin
    hgt, wid = comp.shape
    ys, xs = np.nonzero(comp)
    dt: np.ndarray | None = None
    for i, (na, ax, ay) in enumerate(touches):
        for nb, bx, by in touches[i + 1 :]:
            d = math.hypot(bx - ax, by - ay)
            if d < 2.0 or d > 2.0 * head_reach or {na, nb} & out:
                continue
            t = np.linspace(0.0, 1.0, int(math.ceil(d)) + 1)
            sx = np.clip(np.round(ax + t * (bx - ax)).astype(int) - x0, 0, wid - 1)
            sy = np.clip(np.round(ay + t * (by - ay)).astype(int) - y0, 0, hgt - 1)
            if float(comp[sy, sx].mean()) < BARB_SEGMENT_INK_FRAC:
                continue
            mx, my = (ax + bx) / 2.0 - x0, (ay + by) / 2.0 - y0
            r = np.hypot(xs - mx, ys - my)
            ring = (r >= d) & (r <= 2.0 * d)
            if not ring.any():
                continue
            m = np.zeros(comp.shape, np.uint8)
            m[ys[ring], xs[ring]] = 1
            if cv2.connectedComponents(m, connectivity=8)[0] != 2:
                continue  # no stroke, or several (a fork, a crossing): not one line's end
            ux, uy = mx - float(xs[ring].mean()), my - float(ys[ring].mean())
            norm = math.hypot(ux, uy)
            if norm == 0.0:
                continue
            ahead = ((bx - ax) * ux + (by - ay) * uy) / norm
            if abs(ahead) < BARB_AHEAD_FRAC * d:
                continue  # side by side across the stroke's run: a fork's two heads
            tip = (bx, by) if ahead > 0 else (ax, ay)
            if dt is None:
                dt = cv2.distanceTransform(comp.astype(np.uint8), cv2.DIST_L2, 3)
            near = np.hypot(xs - (tip[0] - x0), ys - (tip[1] - y0)) <= d
            if d > BARB_MAX_HEAD_THICKNESSES * 2.0 * float(dt[ys[near], xs[near]].max()):
                continue  # no head that size: a line of its own between the two
            out.add(na if ahead > 0 else nb)
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
