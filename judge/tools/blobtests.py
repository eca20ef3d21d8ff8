"""Tests on a blob's shape, for the node finder (``judge.tools.nodes``): whether a small blob
the openings left is an arrowhead's thick core, big arrowheads (one or several overlapping,
one colour inside) or lines crossing at a shallow angle rather than a node, and the
morphology they share."""

from __future__ import annotations

import cv2
import numpy as np

from judge.tools.thresholds import (
    CROSSING_MIN_ARMS,
    CROSSING_MIN_NOTCH_FRAC,
    HEAD_MAX_CONTENT_FRAC,
    HEAD_MIN_TRIANGLE_FILL,
    INK_DIFF,
    MERGED_OPEN_FACTOR,
    MERGED_OPEN_MAX_FACTOR,
    MIN_NODE_EXTENT,
    NODE_CORE_MIN_MIRROR,
    POINT_FIT_FRAC,
    POINT_MAX_RESIDUAL_PX,
    POINT_MIN_SLOPE,
    POINT_STRAIGHT_MIN_RATIO,
    POINT_TIP_MIN_FRAC,
    POINT_TOL_PX,
    SOLID_HEAD_MAX_EXTENT,
    SOLID_HEAD_MAX_SIDE_FACTOR,
)


def erode(mask: np.ndarray, r: int) -> np.ndarray:
    """uint8 erosion of a mask by a (2r+1) square, treating outside the array as empty."""
    return cv2.erode(
        mask.astype(np.uint8),
        np.ones((2 * r + 1, 2 * r + 1), np.uint8),
        borderType=cv2.BORDER_CONSTANT,
        borderValue=0,
    )


def head_core(img: np.ndarray, comp: np.ndarray, k: int) -> bool:
    """Whether a small blob the opening left is the thick core of an arrowhead: the square
    a ``k`` opening keeps of a solid head (at the junction with its shaft) fills its own box,
    so its extent does not tell; the ink round it does. The ink of the core's colour within
    ``k // 2`` of it is shaped like a triangle (``SOLID_HEAD_MAX_EXTENT``,
    ``HEAD_MIN_TRIANGLE_FILL``), whatever outline or fill of another colour it touches (a
    small node's fill is a box or a disc round its text's holes). Seed-8181 matplotlib
    figures 2 and 10: diagonal heads read as unlabelled nodes, one touching a cylinder's lid,
    losing their lines' directions."""
    core = erode(comp, 2) > 0
    px = img[core].astype(np.int16)
    if px.size == 0:
        return False
    med = np.median(px, axis=0)
    same = np.abs(img.astype(np.int16) - med).max(axis=2) <= INK_DIFF
    grown = cv2.dilate(comp.astype(np.uint8), np.ones((k, k), np.uint8)) > 0
    _, lab = cv2.connectedComponents((same & grown).astype(np.uint8), connectivity=8)
    ys, xs = np.nonzero(core & same)
    if ys.size == 0:
        return False
    piece = lab == lab[ys[0], xs[0]]
    py, px_ = np.nonzero(piece)
    sub = piece[py.min() : py.max() + 1, px_.min() : px_.max() + 1]
    a = int(sub.sum())
    return a < SOLID_HEAD_MAX_EXTENT * sub.size or triangle_fill(sub, a) >= HEAD_MIN_TRIANGLE_FILL


def triangle_fill(mask: np.ndarray, area: int) -> float:
    """The share of the smallest triangle round ``mask`` that it fills (a triangle: 1; a
    disc: 0.6; a rectangle: 0.5)."""
    pts = cv2.findNonZero(mask.astype(np.uint8))
    if pts is None:
        return 0.0
    tri = float(cv2.minEnclosingTriangle(pts.astype(np.float32))[0])
    return area / tri if tri > 0 else 0.0


def shallow_crossing(
    img: np.ndarray,
    box: tuple[int, int, int, int],
    comp: np.ndarray,
    bg: tuple[int, int, int],
    k: int,
) -> bool:
    """Whether a small blob (``comp`` in ``box``) is lines crossing at a shallow angle, which
    the closings fill into a solid spindle: nothing inside, the background (or its blends with
    the fill) reaching into its core from the edge between the lines' arms
    (``CROSSING_MIN_NOTCH_FRAC`` of the core, ``comp`` eroded 2 px), and the arms running on
    out of its box (``CROSSING_MIN_ARMS`` pieces of its ink reaching as far again as its
    longer side; a glyph or a logo's part, notched as well, stops short). Seed-4141 matplotlib
    figure 3: such a crossing read as an unlabelled node parted its two lines into four."""
    core = erode(comp, 2) > 0
    if not core.any() or _arms(img, box, bg, k) < CROSSING_MIN_ARMS:
        return False
    x, y, w, h = box
    s16 = img[y : y + h, x : x + w].astype(np.int16)
    med = np.median(s16[core], axis=0)
    diff = (np.abs(s16 - med).max(axis=2) > INK_DIFF) & core
    # the background and its anti-aliased blends with the fill
    seg = np.asarray(bg, np.float32) - med.astype(np.float32)
    rel = s16.astype(np.float32) - med.astype(np.float32)
    t = np.clip((rel @ seg) / max(1.0, float(seg @ seg)), 0.0, 1.0)
    off = np.abs(rel - t[..., None] * seg).max(axis=2)
    back = diff & (off <= INK_DIFF)
    notch = np.zeros_like(core)
    if back.any():
        _, lab = cv2.connectedComponents(back.astype(np.uint8), connectivity=8)
        rim = core & ~(erode(core, 1) > 0)
        edge = np.unique(lab[rim & back])
        notch = np.isin(lab, edge[edge > 0])
    total = float(core.sum())
    return (
        float(notch.sum()) >= CROSSING_MIN_NOTCH_FRAC * total
        and float((diff & ~notch).sum()) < HEAD_MAX_CONTENT_FRAC * total
    )


def _arms(img: np.ndarray, box: tuple[int, int, int, int], bg: tuple[int, int, int], k: int) -> int:
    """How many separate pieces of ink (anything off the background ``bg``) joined to the ink
    in ``box`` run on as far again as the box's longer side: they cross the ring ``k`` px wide
    at that distance round it (a line's arm does; a glyph's or a logo's stroke stops short)."""
    x, y, w, h = box
    g = max(w, h) + k
    X0, Y0 = max(0, x - g), max(0, y - g)
    X1, Y1 = min(img.shape[1], x + w + g), min(img.shape[0], y + h + g)
    sub = img[Y0:Y1, X0:X1].astype(np.int16)
    ink = (np.abs(sub - np.asarray(bg, np.int16)).max(axis=2) > INK_DIFF).astype(np.uint8)
    lab = cv2.connectedComponents(ink, connectivity=8)[1]
    inner = (slice(y - Y0, y - Y0 + h), slice(x - X0, x - X0 + w))
    mine = np.unique(lab[inner][ink[inner] > 0])
    ring = np.isin(lab, mine[mine > 0]).astype(np.uint8)
    d = g - k  # all but the outer ring
    ring[max(0, y - d - Y0) : y + h + d - Y0, max(0, x - d - X0) : x + w + d - X0] = 0
    return int(cv2.connectedComponents(ring, connectivity=8)[0]) - 1


def restore_points(comp: np.ndarray, body: np.ndarray) -> np.ndarray:
    """``body`` (the opening of ``comp`` that trims arrowheads and line stubs off a node) with
    the pointed ends the opening cut back: a diamond's tips, narrower than the opening's square,
    go with the stubs. On each side where the body ends tapered (its two outlines close in on
    each other in straight lines: over ``POINT_FIT_FRAC`` of it, at least ``POINT_MIN_SLOPE``
    steep, within ``POINT_MAX_RESIDUAL_PX``, and as steep over the next ``POINT_FIT_FRAC``,
    ``POINT_STRAIGHT_MIN_RATIO``), the outlines are carried on to where they meet,
    and ``comp``'s ink within them (``POINT_TOL_PX``) is the node's again. A head touching the
    tip lies beyond it and stays off; a rounded end is no straight taper and stays as it was.
    Seed-6363 matplotlib figure 4: a diamond's cut tip, left in the line ink, read as the head
    of the two arcs leaving it and reversed one of them. Where the body's outline is no
    straight taper at the cut, the point is fitted on the cut ink itself (:func:`_cut_tip`)."""
    out = body.copy()
    for t in range(4):  # each side in turn, rotated to be the left one
        c, b = np.rot90(comp, t), np.rot90(body, t)
        cols = np.flatnonzero(b.any(axis=0))
        if cols.size < 4:
            continue
        lines = _cut_point(b, cols)
        if lines is None:
            lines = _cut_tip(c, b, cols)
        if lines is None:
            continue
        s_top, i_top, s_bot, i_bot = lines
        tip = (i_bot - i_top) / (s_top - s_bot)
        x0 = int(cols[0])
        grow = np.zeros_like(c)
        rows = np.arange(c.shape[0])
        for x in range(x0 - 1, max(-1, int(np.floor(tip - POINT_TOL_PX)) - 1), -1):
            lo, hi = s_top * x + i_top - POINT_TOL_PX, s_bot * x + i_bot + POINT_TOL_PX
            if hi < lo:
                break
            grow[:, x] = c[:, x] & (rows >= lo) & (rows <= hi)
            if not grow[:, x].any():
                break
        out |= np.rot90(grow, -t)
    return out


Lines = tuple[float, float, float, float]
"""A cut point's two outlines, fitted as rows = slope * column + intercept: top, then bottom."""


def _cut_point(b: np.ndarray, cols: np.ndarray) -> Lines | None:
    """The outlines of the point the opening cut off the left side of ``b`` (the body; ``cols``
    its columns), followed along the body where it starts to part; None when it does not end
    tapered there."""
    m = max(3, int(POINT_FIT_FRAC * cols.size))
    tops = np.argmax(b[:, cols], axis=0).astype(np.float64)
    bots = (b.shape[0] - 1 - np.argmax(b[::-1, cols], axis=0)).astype(np.float64)
    # the opening's square may leave a flat band at the cut (lines leaving the point fill
    # its flanks): the outlines are followed from where they start to part
    wide = np.flatnonzero(bots - tops > bots[0] - tops[0] + 1)
    s0 = int(wide[0]) if wide.size else 0
    if s0 + 2 * m > cols.size:
        return None
    near, on = slice(s0, s0 + m), slice(s0 + m, s0 + 2 * m)
    xs = cols[near].astype(np.float64)
    top, bot = tops[near], bots[near]
    s_top, i_top = np.polyfit(xs, top, 1)
    s_bot, i_bot = np.polyfit(xs, bot, 1)
    if not _straight_taper(xs, top, bot, (s_top, i_top, s_bot, i_bot)):
        return None
    # straight sides keep their slope further in; a rounded end's flattens out (a pill's
    # or an ellipse's: 0.5 by the end, 0.1 further in)
    xs2 = cols[on].astype(np.float64)
    if (
        np.polyfit(xs2, tops[on], 1)[0] > POINT_STRAIGHT_MIN_RATIO * s_top
        or np.polyfit(xs2, bots[on], 1)[0] < POINT_STRAIGHT_MIN_RATIO * s_bot
    ):
        return None
    return float(s_top), float(i_top), float(s_bot), float(i_bot)


def _cut_tip(c: np.ndarray, b: np.ndarray, cols: np.ndarray) -> Lines | None:
    """The outlines of the point the opening cut off the left side of ``b``, fitted on the cut
    ink itself (``c``'s columns left of the body): where the body's own outline is no straight
    taper (a thick line's stubs at a diamond's lower side leave the opening a square lump
    there: seed-2727 matplotlib figure 10, "Embedding" lost its right third, and that third was
    read as a line). The cut ink must taper straight to a point and enclose the body's cut
    edge; a head or a stub there does not (it widens away from the node, or runs parallel)."""
    x0 = int(cols[0])
    rows = np.flatnonzero(b[:, x0])
    if rows.size == 0:
        return None
    # followed column by column from the cut edge: the ink overlapping the last column's (a
    # stub leaving the node's side further along lies apart from the point in these columns)
    # up to the apex: where the ink widens again, a head or a line touches the point there
    lo, hi = int(rows[0]), int(rows[-1])
    spans: list[tuple[int, int]] = []
    for x in range(x0 - 1, -1, -1):
        ink = np.flatnonzero(c[max(0, lo - 1) : hi + 2, x])
        if ink.size == 0:
            break
        lo_, hi_ = max(0, lo - 1) + int(ink[0]), max(0, lo - 1) + int(ink[-1])
        if hi_ - lo_ > hi - lo:
            break
        lo, hi = lo_, hi_
        spans.append((lo, hi))
    if len(spans) < max(4, POINT_TIP_MIN_FRAC * cols.size):
        return None
    # the apex's last column is anti-aliased specks: fitted up to the one before
    spans = spans[:-1]
    xs = np.arange(x0 - 1, x0 - 1 - len(spans), -1).astype(np.float64)
    top = np.array([sp[0] for sp in spans], np.float64)
    bot = np.array([sp[1] for sp in spans], np.float64)
    s_top, i_top = np.polyfit(xs, top, 1)
    s_bot, i_bot = np.polyfit(xs, bot, 1)
    lines = (float(s_top), float(i_top), float(s_bot), float(i_bot))
    if not _straight_taper(xs, top, bot, lines):
        return None
    # the fitted outlines at the cut edge enclose the body's edge there
    top_at, bot_at = s_top * x0 + i_top - POINT_TOL_PX, s_bot * x0 + i_bot + POINT_TOL_PX
    if rows[0] < top_at or rows[-1] > bot_at:
        return None
    return lines


def _straight_taper(xs: np.ndarray, top: np.ndarray, bot: np.ndarray, lines: Lines) -> bool:
    """Whether outlines ``top`` and ``bot`` (rows over columns ``xs``) close in on each other
    leftwards at least ``POINT_MIN_SLOPE`` steeply, each within ``POINT_MAX_RESIDUAL_PX`` of
    its fitted line (``lines``)."""
    s_top, i_top, s_bot, i_bot = lines
    if s_top > -POINT_MIN_SLOPE or s_bot < POINT_MIN_SLOPE:
        return False  # not tapered towards this side
    stray = max(
        float(np.abs(top - (s_top * xs + i_top)).max()),
        float(np.abs(bot - (s_bot * xs + i_bot)).max()),
    )
    return stray <= POINT_MAX_RESIDUAL_PX


def big_head(labels: np.ndarray, stat: np.ndarray, j: int, min_side: int) -> bool:
    """Whether solid ``j`` (``labels``' component, ``stat`` its stats row) is shaped like a big
    arrowhead: under ``SOLID_HEAD_MAX_SIDE_FACTOR`` node sides and filling
    ``HEAD_MIN_TRIANGLE_FILL`` of the smallest triangle round it (a disc fills 0.6, a box or a
    diamond 0.5), as :func:`judge.tools.nodes._scan` reads such solids."""
    x, y, w, h, a = (int(v) for v in stat)
    if max(w, h) >= SOLID_HEAD_MAX_SIDE_FACTOR * min_side:
        return False
    return triangle_fill(labels[y : y + h, x : x + w] == j, a) >= HEAD_MIN_TRIANGLE_FILL


def mirrored(piece: np.ndarray) -> bool:
    """Whether mask ``piece`` matches its own left-right or up-down mirror image on at least
    ``NODE_CORE_MIN_MIRROR`` of their union, as every node shape does (box, ellipse, diamond,
    cylinder, pill) and a slanted or curved band does not."""
    p = piece > 0
    match = [float((p & f).sum()) / max(1.0, float((p | f).sum())) for f in (p[:, ::-1], p[::-1])]
    return max(match) >= NODE_CORE_MIN_MIRROR


def open_merged(merged: np.ndarray, k: int, min_side: int) -> np.ndarray:
    """Open ``merged`` (solids of lines and nodes joined into sprawling blobs) with discs of
    ``MERGED_OPEN_FACTOR`` line openings ``k``, growing by ``k`` up to
    ``MERGED_OPEN_MAX_FACTOR``: each piece is kept as the smallest disc leaves it once it is
    no longer sprawling (under ``MIN_NODE_EXTENT`` of a box at least ``min_side`` both ways),
    so a node joined by lines thicker than the first disc (a tapered arrow's fat tail) is
    parted from them, and a small node parted early is not opened away by a larger disc."""
    out = np.zeros_like(merged)
    todo = merged
    for f in range(MERGED_OPEN_FACTOR, MERGED_OPEN_MAX_FACTOR + 1):
        disc = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (f * k,) * 2)
        _n, lab, st, _ = cv2.connectedComponentsWithStats(
            cv2.morphologyEx(todo, cv2.MORPH_OPEN, disc), connectivity=8
        )
        w, h, a = st[1:, 2], st[1:, 3], st[1:, 4]
        sprawl = (w >= min_side) & (h >= min_side) & (a < MIN_NODE_EXTENT * w * h)
        if f < MERGED_OPEN_MAX_FACTOR:
            again = np.isin(lab, 1 + np.flatnonzero(sprawl))
        else:
            again = np.zeros(lab.shape, bool)
        out[(lab > 0) & ~again] = 1
        if not again.any():
            break
        todo = again.astype(np.uint8)
    return out


def plain_heads(
    img: np.ndarray, labels: np.ndarray, stat: np.ndarray, j: int, min_side: int
) -> bool:
    """Whether solid ``j`` is arrowheads as :func:`judge.tools.nodes._scan` reads them: under
    ``SOLID_HEAD_MAX_EXTENT`` of its box, under ``SOLID_HEAD_MAX_SIDE_FACTOR`` node sides and
    nothing inside (:func:`plain`). Two heads overlapping side by side at a node fill no
    triangle (seed-7171 matplotlib figure 5: two of five heads on an outlined ellipse made one
    65 x 44 px solid that straddled its interior, and the node was lost); a filled diamond on
    a loop of lines has its text inside."""
    x, y, w, h, a = (int(v) for v in stat)
    if max(w, h) >= SOLID_HEAD_MAX_SIDE_FACTOR * min_side or a >= SOLID_HEAD_MAX_EXTENT * w * h:
        return False
    return plain(img[y : y + h, x : x + w], labels[y : y + h, x : x + w] == j) is True


def plain(sub: np.ndarray, comp: np.ndarray) -> bool | None:
    """Whether the pixels of ``sub`` (BGR) in ``comp``, two pixels in from its edge, are one
    colour: under ``HEAD_MAX_CONTENT_FRAC`` differ from their median by more than ``INK_DIFF``
    (None: nothing that far in)."""
    core = erode(comp, 2) > 0
    px = sub[core].astype(np.int16)
    if px.size == 0:
        return None
    med = np.median(px, axis=0)
    return float((np.abs(px - med).max(axis=1) > INK_DIFF).mean()) < HEAD_MAX_CONTENT_FRAC
