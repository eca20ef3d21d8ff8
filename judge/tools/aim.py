"""Hand-drawn lines: arrows that stop short of their boxes, and dashed panel borders.

A hand-drawn (Excalidraw) arrow stops 20-70 px short of the boxes it joins, so it touches
none: its ends are aimed along the line's last stretch at the boxes straight ahead
(:func:`aimed_ends`; the object tree reads a straight connector stopping short the same way
with :func:`ray_entry`). A dashed panel's border, left in the line ink, is closed by the dash
closing into one line with every arrow crossing it: its dashes are erased first
(:func:`drop_dashed_rings`). Pixels are those of the measured image.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TypeVar

import cv2
import numpy as np
from skimage.morphology import skeletonize

from judge.tools.strokes import neighbour_counts
from judge.tools.strokes import ridge as dt_ridge
from judge.tools.thresholds import (
    AIM_STRETCH_WIDTHS,
    BRIDGE_APART_WIDTHS,
    BRIDGE_FILL_MAX_WIDTHS_SQ,
    BRIDGE_HEAD_RATIO,
    BRIDGE_LOOK_CLOSINGS,
    BRIDGE_MAX_TURN_DEG,
    DASH_MAX_PIECE_SHARE,
    DASH_MIN_PIECES,
    DASH_PIECE_MAX_CLOSINGS,
    DASH_RING_MIN_FRAC,
    DASH_RING_MIN_PIECES,
    DASH_SPECK_AREA_WIDTHS,
    DRAWN_HEADS_MIN_WIDTH_PX,
    HEAD_MIN_EXTRA_PX,
    HEADED_PIECE_MIN_CLOSINGS,
    HOLE_FILL_MIN_EXTENT,
    MIN_NODE_SIDE_PER_KPX,
    scaled_px,
)

K = TypeVar("K")


def _axis_ends(xs: np.ndarray, ys: np.ndarray, wd: float) -> list[tuple[float, float]]:
    """The two ends of a line component's main axis (the mean of its pixels within a line
    width of each extreme)."""
    pts = np.stack([xs, ys], axis=1).astype(np.float64)
    centred = pts - pts.mean(axis=0)
    _, _, vt = np.linalg.svd(centred[:: max(1, len(pts) // 2000)], full_matrices=False)
    t = centred @ vt[0]
    out = []
    for sel in (t >= t.max() - max(2.0, wd), t <= t.min() + max(2.0, wd)):
        out.append((float(pts[sel, 0].mean()), float(pts[sel, 1].mean())))
    return out


def _skeleton_ends(xs: np.ndarray, ys: np.ndarray) -> list[tuple[float, float]] | None:
    """The two skeleton ends of a line component farthest apart: its true ends when it bends
    (an elbow line's main axis runs along its longest leg, whose extremes are corners, not
    ends). ``None``: fewer than two ends (a loop)."""
    x0, y0 = int(xs.min()), int(ys.min())
    mask = np.zeros((int(ys.max()) - y0 + 3, int(xs.max()) - x0 + 3), bool)
    mask[ys - y0 + 1, xs - x0 + 1] = True
    skel = skeletonize(mask)  # type: ignore[no-untyped-call]
    ends = np.argwhere(skel & (neighbour_counts(skel) == 1)).astype(np.float64)
    if len(ends) < 2:
        return None
    d = np.linalg.norm(ends[:, None, :] - ends[None, :, :], axis=2)
    i, j = np.unravel_index(int(np.argmax(d)), d.shape)
    return [(ends[e][1] + x0 - 1, ends[e][0] + y0 - 1) for e in (i, j)]


def ray_entry(
    p: tuple[float, float], d: tuple[float, float], box: tuple[float, float, float, float]
) -> float | None:
    """How far along the ray from ``p`` in direction ``d`` (unit) it enters ``box``, or None."""
    x, y, w, h = box
    t0, t1 = 0.0, math.inf
    for o, v, lo, hi in ((p[0], d[0], x, x + w), (p[1], d[1], y, y + h)):
        if abs(v) < 1e-9:
            if not lo <= o <= hi:
                return None
            continue
        a, b = (lo - o) / v, (hi - o) / v
        t0, t1 = max(t0, min(a, b)), min(t1, max(a, b))
    return t0 if t0 <= t1 else None


def first_box_ahead(
    p: tuple[float, float],
    u: tuple[float, float],
    boxes: Sequence[tuple[K, tuple[float, float, float, float]]],
    margin: float,
    gap: float,
) -> K | None:
    """The key of the first box, grown by ``margin``, that the ray from ``p`` in direction
    ``u`` (unit) enters within ``gap`` (at once, when ``p`` lies in it), or None."""
    best: tuple[float, K] | None = None
    for key, (x, y, w, h) in boxes:
        t = ray_entry(p, u, (x - margin, y - margin, w + 2 * margin, h + 2 * margin))
        if t is not None and t <= gap and (best is None or t < best[0]):
            best = (t, key)
    return None if best is None else best[1]


def aimed_ends(
    xs: np.ndarray,
    ys: np.ndarray,
    ep_boxes: list[tuple[int, tuple[int, int, int, int]]],
    gap: float,
    margin: float,
    wd: float,
    bent: bool = True,
) -> list[tuple[int, float, float]] | None:
    """The two nodes a line's ends point at, (node, end x, end y) each, or None: from each end
    of its main axis, the ray along the line's last stretch (its pixels within
    ``AIM_STRETCH_WIDTHS`` widths, at least ``gap``, of the end) enters the node's box grown
    by ``margin`` within ``gap`` px (at once, for an end that touches it). Both ends must
    reach two different nodes, and the ends lie at least half a gap apart (a tick is no
    arrow). A node merely beside an end (a numbered badge next to a head) is not one it
    points at. The ends are those of the line's main axis, or where that gives no answer and
    ``bent`` allows (a bent line, whose main axis ends at its corners; not a dashed line's
    pieces, whose skeleton's far ends may be any two dashes) the skeleton's two ends farthest
    apart."""
    if xs.size == 0:
        return None
    found = _aimed_from(_axis_ends(xs, ys, wd), xs, ys, ep_boxes, gap, margin, wd)
    if found is None and bent:  # a bent line (an elbow back edge): its skeleton's ends
        ends = _skeleton_ends(xs, ys)
        found = _aimed_from(ends, xs, ys, ep_boxes, gap, margin, wd) if ends else None
    return found


def _aimed_from(
    ends: list[tuple[float, float]],
    xs: np.ndarray,
    ys: np.ndarray,
    ep_boxes: list[tuple[int, tuple[int, int, int, int]]],
    gap: float,
    margin: float,
    wd: float,
) -> list[tuple[int, float, float]] | None:
    """:func:`aimed_ends` from the two given ends."""
    if math.dist(ends[0], ends[1]) < gap / 2:
        return None
    stretch = max(gap, AIM_STRETCH_WIDTHS * wd)
    out: list[tuple[int, float, float]] = []
    for ex, ey in ends:
        sel = np.hypot(xs - ex, ys - ey) <= stretch
        cx, cy = float(xs[sel].mean()), float(ys[sel].mean())
        norm = math.hypot(ex - cx, ey - cy)
        if norm < max(2.0, wd):  # no stretch to aim along (a blob of ink)
            return None
        u = ((ex - cx) / norm, (ey - cy) / norm)
        node = first_box_ahead((ex, ey), u, ep_boxes, margin, gap)
        if node is None:
            return None
        out.append((node, ex, ey))
    return out if out[0][0] != out[1][0] else None


def dash_pieces(sub: np.ndarray, width: float) -> tuple[int, bool]:
    """The ink pieces of one closed line component (``sub``: its ink) that are no specks
    (``DASH_SPECK_AREA_WIDTHS`` squared line ``width``s), and whether they make it dashed: at
    least ``DASH_MIN_PIECES`` of them, none holding more than ``DASH_MAX_PIECE_SHARE`` of the
    ink (a solid line with slivers beside it is not dashed)."""
    _, _, stats, _ = cv2.connectedComponentsWithStats(sub.astype(np.uint8), connectivity=8)
    areas = stats[1:, 4]
    real = areas[areas >= DASH_SPECK_AREA_WIDTHS * width * width]
    dashed = real.size >= DASH_MIN_PIECES and float(real.max()) <= DASH_MAX_PIECE_SHARE * float(
        areas.sum()
    )
    return int(real.size), bool(dashed)


def drop_dashed_rings(ink: np.ndarray, dk: int, windows: np.ndarray | None = None) -> None:
    """Erase (in place) the dashes of dashed outlines closed round an area: a dashed panel or
    box whose outline the blob reader does not close. Left in, the closing joins its dashes
    into one line with every arrow crossing it (dev04: the arrows into and out of the dashed
    panel read as one component touching all its nodes). Dashed edges do not close round an
    area (the nodes they end at are erased before). ``windows``: where text was erased; an
    outline may close through them (a panel title's erasure takes the border's dashes next
    to it)."""
    n, lab, stats, _ = cv2.connectedComponentsWithStats(ink, connectivity=8)
    if n <= DASH_RING_MIN_PIECES:
        return
    dash = np.zeros(n, bool)
    dash[1:] = np.maximum(stats[1:, 2], stats[1:, 3]) <= DASH_PIECE_MAX_CLOSINGS * dk
    if int(dash.sum()) < DASH_RING_MIN_PIECES:
        return
    min_side = scaled_px(MIN_NODE_SIDE_PER_KPX, ink.shape, 8)
    # grown, not closed: a closing does not bridge the gap between two dashes offset round
    # a rounded corner
    grown = cv2.dilate(ink, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (dk, dk)))
    if windows is not None:
        grown = cv2.bitwise_or(grown, windows)
    contours, hier = cv2.findContours(grown, cv2.RETR_CCOMP, cv2.CHAIN_APPROX_SIMPLE)
    if hier is None:
        return
    for i, c in enumerate(contours):
        if hier[0][i][3] < 0:
            continue  # an outer boundary: the areas a closed outline runs round are its holes
        x, y, w, h = cv2.boundingRect(c)
        if w < min_side or h < min_side or cv2.contourArea(c) < HOLE_FILL_MIN_EXTENT * w * h:
            continue
        # the band along the outline, drawn in the hole's box grown by its half-width only
        x0, y0 = max(0, x - dk - 1), max(0, y - dk - 1)
        x1, y1 = min(ink.shape[1], x + w + dk + 1), min(ink.shape[0], y + h + dk + 1)
        band = np.zeros((y1 - y0, x1 - x0), np.uint8)
        cv2.drawContours(band, [c], -1, 1, thickness=2 * dk + 1, offset=(-x0, -y0))
        along = lab[y0:y1, x0:x1][(band > 0) & (ink[y0:y1, x0:x1] > 0)]
        pieces = np.unique(along[dash[along]])
        if len(pieces) < DASH_RING_MIN_PIECES or float(dash[along].mean()) < DASH_RING_MIN_FRAC:
            continue
        ink[np.isin(lab, pieces)] = 0


def dash_closing(ink: np.ndarray, dk: int, base: int | None = None) -> np.ndarray:
    """The dash-joining closing of line ink (a ``dk`` square), less the bridges it lays
    sideways between two arrowheads: heads converging side by side on one node come closer
    than a dash gap (seed-4242 matplotlib figures: three heads on one box's side read as one
    line with no head). A bridge stays when it touches a dash (an ink piece no longer than
    ``DASH_PIECE_MAX_CLOSINGS`` closings), when it carries a line on along its own way (a
    solid line broken by anti-aliasing or JPEG), or when fewer than two of the pieces it joins
    are head-thick there (``BRIDGE_HEAD_RATIO``): lines leaving one corner of a node stay
    one fan, as the rest of the reader expects (dev14). A piece carrying a head is a line,
    however short (``HEADED_PIECE_MIN_CLOSINGS``).

    ``base``: the closing anti-aliasing and JPEG breaks need (``dk`` grows with the line width
    to span a thick line's dash gaps). A sideways bridge between two lines that a ``base``
    closing leaves apart is dropped too: thick solid lines leaving one side of a node a dash
    gap apart would merge there into a wedge read as a head (seed-6262 matplotlib figure 9:
    10 px lines, a 35 px closing). So is one between two pieces with no head near it that
    keep ``BRIDGE_APART_WIDTHS`` line widths apart (:func:`_set_apart`): two lines' tails;
    and so is one filling more than ``BRIDGE_FILL_MAX_WIDTHS_SQ`` squared line widths between
    two such pieces at least ``DRAWN_HEADS_MIN_WIDTH_PX`` wide, however close they come: the
    wedge between two thick tails leaving a node side by side (seed-8686 matplotlib figure
    13: 538 px between 5.5 px tails, read as a head). Thinner lines leaving a node's corner
    together stay one fan, as the stroke reader expects (dev14: split, its pass decks failed).

    Fill touching one piece only is kept where the closing of that piece alone lays it (a
    line's own notches), and dropped where another line's ink nearby induced it
    (:func:`_drop_induced_fill`)."""
    closed = cv2.morphologyEx(ink, cv2.MORPH_CLOSE, np.ones((dk, dk), np.uint8))
    n, lab, stats, _ = cv2.connectedComponentsWithStats(ink, connectivity=8)
    side = np.zeros(n, int)
    side[1:] = np.maximum(stats[1:, 2], stats[1:, 3])
    long_ = side > DASH_PIECE_MAX_CLOSINGS * dk
    dt = cv2.distanceTransform(ink, cv2.DIST_L2, 3)
    ridge = dt_ridge(dt)
    shaft = np.ones(n)  # each piece's half line width: the median of its ridge
    rl, rv = lab[ridge], dt[ridge]
    for p in np.flatnonzero(side >= HEADED_PIECE_MIN_CLOSINGS * dk):
        on = rv[rl == p]
        shaft[p] = float(np.median(on)) if on.size else 1.0
        # a short fat arrow is no longer than a few dashes, but a dash carries no head
        top = float(on.max()) if on.size else 0.0
        long_[p] |= head_thick(top, float(shaft[p]))
    if int(long_.sum()) < 2:
        return closed
    apart = None  # the pieces a ``base`` closing joins share a label here
    if base is not None and base < dk:
        closed0 = cv2.morphologyEx(ink, cv2.MORPH_CLOSE, np.ones((base, base), np.uint8))
        apart = cv2.connectedComponents(closed0, connectivity=8)[1]
    added = ((closed > 0) & (ink == 0)).astype(np.uint8)
    nb, blab, bstats, _ = cv2.connectedComponentsWithStats(added, connectivity=8)
    reach = BRIDGE_LOOK_CLOSINGS * dk
    h_img, w_img = ink.shape
    for b in range(1, nb):
        x, y, w, h, area = (int(v) for v in bstats[b])
        x0, y0 = max(0, x - 1), max(0, y - 1)
        x1, y1 = min(w_img, x + w + 1), min(h_img, y + h + 1)
        grown = cv2.dilate((blab[y0:y1, x0:x1] == b).astype(np.uint8), np.ones((3, 3), np.uint8))
        touched = np.unique(lab[y0:y1, x0:x1][grown > 0])
        touched = touched[touched > 0]
        if len(touched) == 1:
            _drop_induced_fill(closed, lab, blab, b, (x, y, w, h), int(touched[0]), dk)
            continue
        if not long_[touched].all():
            continue
        X0, Y0 = max(0, x - reach), max(0, y - reach)
        X1, Y1 = min(w_img, x + w + reach), min(h_img, y + h + reach)
        win = lab[Y0:Y1, X0:X1]
        near: list[tuple[np.ndarray, np.ndarray]] = []
        headed = 0
        groups: set[int] = set()
        for p in touched:
            ys, xs = np.nonzero(win == p)
            if len(xs) < 3:
                break
            if apart is not None:
                groups.add(int(apart[Y0 + ys[0], X0 + xs[0]]))
            thick = float(dt[Y0:Y1, X0:X1][ys, xs].max())
            headed += head_thick(thick, float(shaft[p]))
            pts = np.stack([xs, ys], axis=1).astype(np.float64)
            centre = pts.mean(axis=0)
            _, _, vt = np.linalg.svd(pts - centre, full_matrices=False)
            near.append((centre, vt[0]))
        wide = 2.0 * float(shaft[touched].max())
        if (
            len(near) == len(touched)
            and (
                headed >= 2
                or len(groups) >= 2
                or (headed == 0 and _set_apart(win, touched, wide))
                or (
                    headed == 0
                    and wide >= DRAWN_HEADS_MIN_WIDTH_PX
                    and area > BRIDGE_FILL_MAX_WIDTHS_SQ * wide**2
                )
            )
            and not any(
                _carries_on(near[i], near[j])
                for i in range(len(near))
                for j in range(i + 1, len(near))
            )
        ):
            closed[y : y + h, x : x + w][blab[y : y + h, x : x + w] == b] = 0
    return closed


def _drop_induced_fill(
    closed: np.ndarray,
    lab: np.ndarray,
    blab: np.ndarray,
    b: int,
    box: tuple[int, int, int, int],
    p: int,
    dk: int,
) -> None:
    """Drop from ``closed`` the part of the closing's fill ``b`` (touching ink piece ``p``
    only) that the closing of ``p`` alone would not lay: fill another line's ink nearby
    induced, such as the wedge a line's end gets when another line ends beside it at the
    same node (seed-2424 matplotlib figure 13: two 3 px lines leaving an ellipse 12 px apart;
    the fill passed for a head at the tail). A line's own notches and gaps stay filled."""
    x, y, w, h = box
    ys, xs = np.nonzero(blab[y : y + h, x : x + w] == b)
    ys, xs = ys + y, xs + x
    h_img, w_img = lab.shape
    X0, Y0 = max(0, x - dk), max(0, y - dk)
    X1, Y1 = min(w_img, x + w + dk), min(h_img, y + h + dk)
    own = (lab[Y0:Y1, X0:X1] == p).astype(np.uint8)
    alone = cv2.morphologyEx(own, cv2.MORPH_CLOSE, np.ones((dk, dk), np.uint8))
    off = alone[ys - Y0, xs - X0] == 0
    if off.any():
        closed[ys[off], xs[off]] = 0


def head_thick(thick: float, shaft: float) -> bool:
    """Whether ink this thick (half-width, like ``shaft``) on a piece is a head's
    (``BRIDGE_HEAD_RATIO``): the test for a bridge between heads and for a headed piece."""
    return thick >= max(BRIDGE_HEAD_RATIO * shaft, shaft + HEAD_MIN_EXTRA_PX)


def _set_apart(win: np.ndarray, touched: np.ndarray, width: float) -> bool:
    """Whether the two ink pieces ``touched`` (labels in ``win``) keep at least
    ``BRIDGE_APART_WIDTHS`` line widths (``width``) of page between them everywhere in ``win``:
    two separate lines, not one line's break, however small the closing found the gap."""
    if len(touched) != 2:
        return False
    away = (win != touched[0]).astype(np.uint8)
    dist = cv2.distanceTransform(away, cv2.DIST_L2, cv2.DIST_MASK_PRECISE)
    other = win == touched[1]
    return bool(other.any()) and float(dist[other].min()) >= BRIDGE_APART_WIDTHS * width


def _carries_on(a: tuple[np.ndarray, np.ndarray], b: tuple[np.ndarray, np.ndarray]) -> bool:
    """Whether two pieces of ink (centre and direction near a gap) are one line's two parts:
    the gap between them runs along both their directions."""
    gap = b[0] - a[0]
    norm = float(np.hypot(*gap))
    if norm < 1.0:
        return True
    cos_min = math.cos(math.radians(BRIDGE_MAX_TURN_DEG))
    return all(abs(float(gap @ d)) / norm >= cos_min for d in (a[1], b[1]))
