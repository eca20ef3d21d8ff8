"""Where a line's ink touches a node: near its box, or near the convex hull of an ellipse's or a
diamond's shape (``arrows.detect_lines``), and whether two readings found the same line."""

from __future__ import annotations

import itertools
import math
from typing import TYPE_CHECKING

import cv2
import numpy as np
from skimage.morphology import skeletonize

from judge.tools.aim import first_box_ahead
from judge.tools.nodes import Blob
from judge.tools.strokes import neighbour_counts
from judge.tools.thresholds import (
    AIM_STRETCH_WIDTHS,
    BARB_AHEAD_FRAC,
    BARB_MAX_HEAD_THICKNESSES,
    BARB_SEGMENT_INK_FRAC,
    PASS_BY_MAX_SIDEDNESS,
    PASS_BY_MIN_END_MARGINS,
    PASS_BY_RING_MARGINS,
    RECT_MIN_EXTENT,
    SAME_LINE_TOL_MIN_PX,
    SAME_LINE_TOL_WIDTHS,
    SHORT_END_MARGINS,
    TOUCH_SPLIT_MIN_NODES,
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
    apart: float = math.inf,
    short: tuple[float, float] | None = None,
) -> list[tuple[int, float, float]]:
    """(node, contact point) of each endpoint a line's ink (``xs``, ``ys``: image frame)
    comes within ``reach_m`` of: of its box, or of its shape for an ellipse or a diamond (a
    line passing a corner of an ellipse's box does not end there). ``shape_near`` memoises
    the shapes grown. A node touched at places ``apart`` px or more from each other, by a
    line touching ``TOUCH_SPLIT_MIN_NODES`` nodes or more, has a touch for each place
    (:func:`_places`), in a row. ``short``: (head reach, line width) to let a line stopping
    short of a node touch it (:func:`short_ends`), after the others."""
    out: list[tuple[int, float, float]] = []
    nears: list[np.ndarray] = []
    for node, box in ep_boxes:
        near = _near_node(xs, ys, comp_box, blobs, node, box, reach_m, shape_near)
        if near is not None:
            end = end_point(xs[near], ys[near], box)
            out.append((node, end[0], end[1]))
            nears.append(near)
    extra = (
        []
        if short is None
        else short_ends(xs, ys, comp_box, blobs, ep_boxes, out, reach_m, shape_near, *short)
    )
    if len(out) < TOUCH_SPLIT_MIN_NODES or not math.isfinite(apart):
        return out + extra
    boxes = dict(ep_boxes)
    split: list[tuple[int, float, float]] = []
    ends: np.ndarray | None = None
    for (node, px, py), near in zip(out, nears, strict=True):
        found = _places(xs[near], ys[near], boxes[node], reach_m, apart)
        places: list[tuple[float, float]] = []
        if found:
            if ends is None:
                ends = _skeleton_ends(xs, ys)
            # a line passing by the node there has no end there (seed-3838 figure 10: an arc
            # running past "Cache"'s corner)
            places = [p for p, g in found if _has_end(g, ends, reach_m)]
        if len(places) >= 2:
            split.extend((node, ex, ey) for ex, ey in places)
        else:
            split.append((node, px, py))
    return split + extra


def short_ends(
    xs: np.ndarray,
    ys: np.ndarray,
    comp_box: tuple[int, int, int, int],
    blobs: list[Blob],
    ep_boxes: list[tuple[int, tuple[int, int, int, int]]],
    touches: list[tuple[int, float, float]],
    reach_m: int,
    shape_near: dict[tuple[int, int], np.ndarray],
    head_reach: float,
    width: float,
) -> list[tuple[int, float, float]]:
    """(node, end) of each node a line stops short of (``SHORT_END_MARGINS`` contact margins
    ``reach_m``), among the nodes not in ``touches``: a group of the line's pixels that near
    the node (8-connected; for an ellipse or a diamond, near its shape) lies within
    ``head_reach`` of its pixel nearest the box, that pixel (the end) has a skeleton end or
    branch point within the margin (a line passing by has none) and lies ``head_reach`` or
    more from every touch, and the line's last stretch there (its pixels within
    ``AIM_STRETCH_WIDTHS`` line ``width``\\s, at least a head's reach, of the end) points into
    the node's box first of all boxes, within a head's reach (a badge beside a head is no node
    it points at). An end on the border of a blob that is no endpoint stops there (a line
    ending on a panel joins the panel: dev05's "Graphical User Interface" line)."""
    pad = int(math.ceil(SHORT_END_MARGINS * reach_m))
    out: list[tuple[int, float, float]] = []
    taken = {node for node, _, _ in touches}
    stretch = max(head_reach, AIM_STRETCH_WIDTHS * width)
    ends: np.ndarray | None = None
    eps = {node for node, _ in ep_boxes}
    for node, box in ep_boxes:
        near = (
            None
            if node in taken
            else _near_node(xs, ys, comp_box, blobs, node, box, pad, shape_near)
        )
        if near is None:
            continue
        bx, by, bw, bh = box
        if ends is None:
            ends = _skeleton_ends(xs, ys)
        for gx, gy in _groups(xs[near], ys[near]):
            gaps = np.hypot(
                np.maximum(np.maximum(bx - gx, gx - bx - bw), 0),
                np.maximum(np.maximum(by - gy, gy - by - bh), 0),
            )
            k = int(np.argmin(gaps))
            ex, ey = float(gx[k]), float(gy[k])
            if np.hypot(gx - ex, gy - ey).max() > head_reach:
                continue  # the line runs along the box
            if not _has_end(np.array([[ex, ey]]), ends, reach_m):
                continue  # no end of the line there: it passes by
            if any(math.hypot(ex - px, ey - py) < head_reach for _, px, py in touches + out):
                continue
            if _on_rim(ex, ey, blobs, eps, width + 1.0):
                continue  # it ends on a panel's border: it joins that panel
            sel = np.hypot(xs - ex, ys - ey) <= stretch
            cx, cy = float(xs[sel].mean()), float(ys[sel].mean())
            norm = math.hypot(ex - cx, ey - cy)
            if norm < max(2.0, width):
                continue
            u = ((ex - cx) / norm, (ey - cy) / norm)
            if first_box_ahead((ex, ey), u, ep_boxes, 0.0, head_reach) == node:
                out.append((node, ex, ey))
                break
    return out


def _near_node(
    xs: np.ndarray,
    ys: np.ndarray,
    comp_box: tuple[int, int, int, int],
    blobs: list[Blob],
    node: int,
    box: tuple[int, int, int, int],
    pad: int,
    shape_near: dict[tuple[int, int], np.ndarray],
) -> np.ndarray | None:
    """Which of a line's pixels (``xs``, ``ys``; its box ``comp_box``) lie within ``pad`` of
    a node's box, or of its shape for an ellipse or a diamond (``shape_near`` memoises the
    shapes grown); None when none do."""
    x, y, w, h = comp_box
    bx, by, bw, bh = box
    if bx - pad > x + w or bx + bw + pad < x or by - pad > y + h or by + bh + pad < y:
        return None
    near = near_box(xs, ys, box, pad)
    if near.any() and blobs[node].extent < RECT_MIN_EXTENT:
        if (node, pad) not in shape_near:
            shape_near[(node, pad)] = _near_hull(blobs[node], pad)
        grown = shape_near[(node, pad)]
        near[near] = grown[ys[near] - by + pad, xs[near] - bx + pad]
    return near if near.any() else None


def _on_rim(px: float, py: float, blobs: list[Blob], eps: set[int], within: float) -> bool:
    """Whether a point lies ``within`` px of the border of a blob that is no endpoint."""
    for i, b in enumerate(blobs):
        if i in eps:
            continue
        bx, by, bw, bh = b.box
        if not (bx - within <= px <= bx + bw + within and by - within <= py <= by + bh + within):
            continue
        if min(abs(px - bx), abs(px - bx - bw), abs(py - by), abs(py - by - bh)) <= within:
            return True
    return False


def _groups(xs: np.ndarray, ys: np.ndarray) -> list[tuple[np.ndarray, np.ndarray]]:
    """The 8-connected groups of pixels (``xs``, ``ys``), each as (xs, ys)."""
    x0, y0 = int(xs.min()), int(ys.min())
    m = np.zeros((int(ys.max()) - y0 + 1, int(xs.max()) - x0 + 1), np.uint8)
    m[ys - y0, xs - x0] = 1
    n, lab = cv2.connectedComponents(m, connectivity=8)
    of = lab[ys - y0, xs - x0]
    return [(xs[of == i], ys[of == i]) for i in range(1, n)]


def _skeleton_ends(xs: np.ndarray, ys: np.ndarray) -> np.ndarray:
    """Where a line's skeleton (its pixels ``xs``, ``ys``) ends or branches: (x, y) rows."""
    x0, y0 = int(xs.min()), int(ys.min())
    m = np.zeros((int(ys.max()) - y0 + 1, int(xs.max()) - x0 + 1), bool)
    m[ys - y0, xs - x0] = True
    skel: np.ndarray = skeletonize(m)  # type: ignore[no-untyped-call]
    nb = neighbour_counts(skel)
    ey, ex = np.nonzero(skel & (nb != 2))
    return np.column_stack([ex + x0, ey + y0])


def passes_by(
    xs: np.ndarray,
    ys: np.ndarray,
    point: tuple[float, float],
    margin: float,
    memo: list[np.ndarray],
) -> bool:
    """Whether a line (its pixels ``xs``, ``ys``) passes ``point`` by rather than ending there:
    no end or branch point of its skeleton lies within ``PASS_BY_MIN_END_MARGINS`` times the
    contact ``margin`` of it (a head's tip is one), and its pixels in the ring ``margin`` to
    ``PASS_BY_RING_MARGINS`` margins from it lie on both sides
    (their mean offset is under ``PASS_BY_MAX_SIDEDNESS`` of their mean distance; two lines
    meeting at a node, whose skeleton runs on through the meeting point, lie on one side).
    ``memo`` keeps the skeleton's ends."""
    if not memo:
        memo.append(_skeleton_ends(xs, ys))
    if _has_end(np.array([point]), memo[0], PASS_BY_MIN_END_MARGINS * margin):
        return False
    dx, dy = xs - point[0], ys - point[1]
    r = np.hypot(dx, dy)
    ring = (r >= margin) & (r <= PASS_BY_RING_MARGINS * margin)
    if not ring.any():
        return False
    side = math.hypot(float(dx[ring].mean()), float(dy[ring].mean())) / float(r[ring].mean())
    return side < PASS_BY_MAX_SIDEDNESS


def join_past(joins: set[frozenset[int]], passed: set[int]) -> set[frozenset[int]]:
    """Node pairs a line's strokes join (``LineComp.joins``) once the nodes it only passes by
    (``passed``, :func:`passes_by`) are taken out: a stroke through a node passed by joins the
    nodes either side of it."""
    for p in passed:
        by = {n for pair in joins if p in pair for n in pair} - {p}
        joins = {j for j in joins if p not in j} | {
            frozenset((a, b)) for a in by for b in by if a < b
        }
    return joins


def kept_nodes(
    touches: list[tuple[int, float, float]], ids: list[int], passed: set[int]
) -> list[int]:
    """The node of each touch kept as a contact: those with their place id not ``passed``."""
    return [t[0] for t, i in zip(touches, ids, strict=True) if i not in passed]


def _has_end(group: np.ndarray, ends: np.ndarray, within: float) -> bool:
    """Whether a skeleton end or branch point (``ends``) lies ``within`` px of ``group``."""
    if len(ends) == 0:
        return False
    near = ends[
        (ends[:, 0] >= group[:, 0].min() - within)
        & (ends[:, 0] <= group[:, 0].max() + within)
        & (ends[:, 1] >= group[:, 1].min() - within)
        & (ends[:, 1] <= group[:, 1].max() + within)
    ]
    if len(near) == 0:
        return False
    d = np.hypot(*(near[:, None, :] - group[None, :, :]).transpose(2, 0, 1))
    return bool(d.min() <= within)


def _places(
    xs: np.ndarray, ys: np.ndarray, box: tuple[int, int, int, int], least: int, apart: float
) -> list[tuple[tuple[float, float], np.ndarray]] | None:
    """Where a line's pixels near a node (``xs``, ``ys``) end at it, one place per group of
    them (8-connected, a pixel's gap bridged) of at least ``least`` pixels, when there are two
    or more such groups, every two ``apart`` px or more apart and a right angle or more apart
    seen from the box's centre in half-widths and half-heights (on different sides of it, as
    :func:`arrows._one_side` sees sides), each with its group's pixels ((x, y) rows); None
    otherwise."""
    x0, y0 = int(xs.min()), int(ys.min())
    m = np.zeros((int(ys.max()) - y0 + 1, int(xs.max()) - x0 + 1), np.uint8)
    m[ys - y0, xs - x0] = 1
    n, lab = cv2.connectedComponents(cv2.dilate(m, np.ones((3, 3), np.uint8)), connectivity=8)
    if n < 3:
        return None
    of = lab[ys - y0, xs - x0]
    groups = [of == i for i in range(1, n)]
    groups = [g for g in groups if int(g.sum()) >= least]
    places = [end_point(xs[g], ys[g], box) for g in groups]
    if len(places) < 2:
        return None
    if any(math.dist(p, q) < apart for i, p in enumerate(places) for q in places[i + 1 :]):
        return None
    bx, by, bw, bh = box
    cx, cy, hw, hh = bx + bw / 2, by + bh / 2, max(bw / 2, 1.0), max(bh / 2, 1.0)
    dirs = [((px - cx) / hw, (py - cy) / hh) for px, py in places]
    if any(a[0] * b[0] + a[1] * b[1] > 0 for i, a in enumerate(dirs) for b in dirs[i + 1 :]):
        return None  # on one side: a line passing by, or letters on an outline (one end there)
    return [(p, np.column_stack([xs[g], ys[g]])) for p, g in zip(places, groups, strict=True)]


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
            if na == nb or d < 2.0 or d > 2.0 * head_reach or {na, nb} & out:
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


def touch_boxes(
    touches: list[tuple[int, float, float]], boxes: list[tuple[float, float, float, float]]
) -> list[tuple[float, float, float, float]]:
    """``boxes`` (one per touch, the frame of ``touches``) with the box of a node touched at
    several places cut between them, across the axis they lie furthest apart along, so each
    place's strokes start in its own part (:func:`strokes.stroke_joins` gives each skeleton
    end to the nearest box)."""
    out = list(boxes)
    for node in {t[0] for t in touches}:
        ks = [k for k, t in enumerate(touches) if t[0] == node]
        if len(ks) < 2:
            continue
        bx, by, bw, bh = boxes[ks[0]]
        spread = [max(touches[k][i] for k in ks) - min(touches[k][i] for k in ks) for i in (1, 2)]
        i = 1 if spread[0] >= spread[1] else 2  # cut across x (1) or y (2)
        coord = [t[i] for t in touches]
        ks.sort(key=coord.__getitem__)
        at = [touches[k][i] for k in ks]
        cuts = [(p + q) / 2 for p, q in itertools.pairwise(at)]
        lo, hi = (bx, bx + bw) if i == 1 else (by, by + bh)
        edges = [lo, *[min(max(c, lo), hi) for c in cuts], hi]
        for j, k in enumerate(ks):
            a, b = edges[j], max(edges[j + 1], edges[j] + 1.0)
            out[k] = (a, by, b - a, bh) if i == 1 else (bx, a, bw, b - a)
    return out


def place_ids(touches: list[tuple[int, float, float]], first_free: int) -> list[int]:
    """An id per touch: its node, or for a node's second place and on (:func:`line_touches`)
    an id of its own from ``first_free`` up (no node's), so each place is read as an end."""
    seen: set[int] = set()
    ids = []
    for k, (node, _, _) in enumerate(touches):
        ids.append(node if node not in seen else first_free + k)
        seen.add(node)
    return ids


_RANK = {"high": 3, "medium": 2, "low": 1, "undirected": 0}


def settle_places(line: LineComp, node_of: dict[int, int]) -> None:
    """Name the node again at each of ``line``'s contacts read under a place's own id
    (``node_of``: those ids to their nodes, :func:`place_ids`), once the edges are read
    between the places and kept (``LineComp.fixed``): the surest of each pair of nodes; a
    line between two places of one node is none."""
    if not node_of:
        return
    best: dict[tuple[int, int], str] = {}
    for a, b, how in line.edges():
        a, b = node_of.get(a, a), node_of.get(b, b)
        if a != b and _RANK[how] > _RANK.get(best.get((a, b), ""), -1):
            best[(a, b)] = how
    line.fixed = [(a, b, how) for (a, b), how in best.items()]
    for c in line.contacts:
        c.node = node_of.get(c.node, c.node)
        if c.leaves_to:
            c.leaves_to = frozenset(node_of.get(n, n) for n in c.leaves_to)
    if line.joins is not None:
        pairs = (frozenset(node_of.get(n, n) for n in p) for p in line.joins)
        line.joins = {p for p in pairs if len(p) == 2}


def cap_places(lines: list[LineComp], plain: list[LineComp]) -> None:
    """Keep a ``medium`` edge of a line read with a node's several places (``LineComp.fixed``)
    only where the same line read with one contact per node (``plain``, the same component:
    the same box) has that edge ``medium`` or ``high``; make the others ``low``. Strokes
    paired round a node's two places reach heads whose own lines the rules read with one
    place per node in mind: seed-4646 figure 10's back arc "Report" -> "Merger", leaving
    beside the head of "Downsample" -> "Report", came out "Merger" -> "Report" (``medium``)
    and failed its faithful decks. ``high`` edges stay: one tail's stroke to one head."""
    by_box = {ln.box: ln for ln in plain}
    for ln in lines:
        if ln.fixed is None:
            continue
        twin = by_box.get(ln.box)
        sure = (
            {(a, b) for a, b, how in twin.edges() if how in ("high", "medium")} if twin else set()
        )
        ln.fixed = [
            (a, b, "low" if how == "medium" and (a, b) not in sure else how)
            for a, b, how in ln.fixed
        ]
