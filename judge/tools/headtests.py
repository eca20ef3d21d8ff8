"""The tests that tell an arrowhead at a line's end (:func:`judge.tools.arrows.detect_lines`):
the window past what is left of the node's outline, the shaft the end is measured against,
the other end's big head reaching in, lines behind an end, an open head's spread, a block
arrow's wedge and a tapered line's thick end; and the heads a line's ends lose afterwards: a
tapered arrow's thick tail, the tail of a short line under a longer head, a fan's hub. Window
pixels (``xs``/``ys`` relative to the line's window) throughout, but for :func:`stub_tail`
(the image's frame, as the contacts' points)."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import cv2
import numpy as np
from skimage.morphology import skeletonize

from judge.tools.lineink import skip_remnant
from judge.tools.nodes import Blob
from judge.tools.thresholds import (
    BEHIND_BAND_HALVES,
    BLOCK_ALONE_BELOW_PX,
    BLOCK_ALONE_MAX_FRAC,
    BLOCK_BACK_WIDTHS,
    BLOCK_HEAD_WIDTHS,
    BLOCK_SPREAD_RATIO,
    BLOCK_TIP_MAX_FRAC,
    BLOCK_TIP_WIDTHS,
    CROWDED_PLAIN_MAX_SHAFTS,
    FAR_RIM_FRAC,
    HEAD_BEHIND_MAX_WIDTHS,
    HEAD_LENGTH_WIDTHS,
    HEAD_THICKNESS_RATIO,
    INK_DIFF,
    LOCAL_SHAFT_BAND,
    LOCAL_SHAFT_MIN_WINDOWS,
    NEAR_PART_FRAC,
    NECK_BAND_HALVES,
    NECK_MIN_HALVES,
    NECK_START_HALVES,
    STUB_SHAFT_SLACK,
    STUB_SLACK_PX,
    STUB_STEP_FRAC,
    STUB_STEP_MAX_SHAFTS,
    STUB_STEP_MIN_BINS,
    STUB_TAPER_RATIO,
    TAPER_FINE_DT_RATIO,
    TAPER_FINE_MAX_DISORDER,
    TAPER_FINE_MAX_RATIO,
    TAPER_FINE_MIN_HALF_WIDTHS,
    TAPER_FINE_RATIO,
    TAPER_MAX_LENGTH_RATIO,
    TAPER_MIN_HALF_WIDTHS,
    TAPER_MIN_RATIO,
    TAPER_MIN_SHAFT_PX,
)

if TYPE_CHECKING:
    from judge.tools.arrows import Contact, LineComp


def past_remnant(
    img: np.ndarray,
    blob: Blob,
    xs: np.ndarray,
    ys: np.ndarray,
    origin: tuple[int, int],
    at: np.ndarray,
    point: tuple[float, float],
    wd: float,
) -> tuple[np.ndarray, tuple[float, float]]:
    """:func:`skip_remnant` on the window pixels ``at`` (indices into ``xs``/``ys``, which are
    relative to ``origin``) of a line's end at ``point`` (image frame) on ``blob``: which of
    them a head is measured on, and from where (window frame)."""
    x0, y0 = origin
    own = img[ys[at] + y0, xs[at] + x0].astype(np.int16) - np.asarray(blob.interior_bgr, np.int16)
    bx, by, bw, bh = blob.box
    out_dir = (point[0] - (bx + bw / 2), point[1] - (by + bh / 2))
    own_fill = np.abs(own).max(axis=1) <= INK_DIFF
    return skip_remnant(xs[at], ys[at], (point[0] - x0, point[1] - y0), wd, out_dir, own_fill)


def past_long_remnant(
    img: np.ndarray,
    blob: Blob,
    xs: np.ndarray,
    ys: np.ndarray,
    origin: tuple[int, int],
    wide: np.ndarray,
    point: tuple[float, float],
    wd: float,
    found: tuple[np.ndarray, np.ndarray, tuple[float, float]],
) -> tuple[np.ndarray, np.ndarray, tuple[float, float]] | None:
    """Where a head window (``found``: its pixels, which of them to measure, its end) holds
    nothing but a node outline's V, the window ``wide`` (``REMNANT_WIDE_REACHES`` reaches)
    looked at the same way, when the V's apex shows there: the V of a diamond's sharp tip that
    the node finder's opening cut off runs a whole window long, and the head sits past its
    apex (seed-3131 matplotlib figure 0; on seed-4242 figure 4 the line reaching such a tip
    also joins two other nodes). None: keep ``found``."""
    if not found[1].size or found[1].any():
        return None
    keep, end = past_remnant(img, blob, xs, ys, origin, wide, point, wd)
    return (wide, keep, end) if keep.any() and not keep.all() else None


def local_shaft(
    dt: np.ndarray,
    xs: np.ndarray,
    ys: np.ndarray,
    ridge: np.ndarray,
    d2: np.ndarray,
    reach: float,
    shaft: float,
) -> float:
    """The shaft's half-width just behind an end's head window: the median distance-transform
    value of the ridge ``LOCAL_SHAFT_BAND`` windows back from the end (``d2``: squared
    distances from it; ``ridge``: this end's side of the line), or the whole line's ``shaft``
    where that band holds fewer than ``LOCAL_SHAFT_MIN_WINDOWS`` windows' length of ridge (a
    short line)."""
    sel = ridge & (d2 > reach**2) & (d2 <= (LOCAL_SHAFT_BAND * reach) ** 2)
    if int(sel.sum()) < LOCAL_SHAFT_MIN_WINDOWS * reach:
        return shaft
    return float(np.median(dt[ys[sel], xs[sel]]))


def neck(
    dt: np.ndarray,
    part: np.ndarray,
    d2: np.ndarray,
    widest: int,
    tmax: float,
) -> float | None:
    """The shaft's half-width right behind a head whose widest point is pixel ``widest`` and
    half-width ``tmax``: the largest distance-transform value (``dt``, per pixel) of this end's
    side of the line (``part``) from ``NECK_START_HALVES`` half-widths past that point (past
    the head's base) to ``NECK_BAND_HALVES`` half-widths further from the end (``d2``: squared
    distances from it); not the ridge's median, which a thick diagonal stroke's ridge breaks
    up. None where that stretch holds fewer than ``NECK_MIN_HALVES`` half-widths of pixels. A
    plain end's neck is as thick as its widest point; a head's is its shaft, however thick the
    shaft runs further back (a tapered arrow)."""
    d0 = math.sqrt(float(d2[widest])) + NECK_START_HALVES * tmax
    sel = part & (d2 > d0**2) & (d2 <= (d0 + NECK_BAND_HALVES * tmax) ** 2)
    if int(sel.sum()) < NECK_MIN_HALVES * tmax:
        return None
    return float(dt[sel].max())


def behind(dt: np.ndarray, part: np.ndarray, d2: np.ndarray, tmax: float) -> float | None:
    """The line's thickness (px, twice the half-width) a few end thicknesses back from an end
    whose half-width is ``tmax``: the largest distance-transform value (``dt``, per pixel) of
    this end's side of the line (``part``) ``BEHIND_BAND_HALVES`` half-widths from the end
    (``d2``: squared distances from it). None where that band holds fewer than
    ``NECK_MIN_HALVES`` half-widths of pixels (a short line). A head is past that band, so it
    measures the shaft; a tapered tail's blunt start thins gradually and is still about as
    thick there."""
    lo, hi = (b * tmax for b in BEHIND_BAND_HALVES)
    sel = part & (d2 > lo**2) & (d2 <= hi**2)
    if int(sel.sum()) < NECK_MIN_HALVES * tmax:
        return None
    return round(2.0 * float(dt[sel].max()), 2)


def thick_only_far(
    xs: np.ndarray,
    ys: np.ndarray,
    thick: np.ndarray,
    end: tuple[float, float],
    reach: float,
    shaft: float,
    crowded: bool = False,
) -> bool:
    """Whether an end's window is thick only at its far rim, plain shaft near the node: the
    base of a big head at the line's other end reaching in (seed-2525 matplotlib figure 12:
    50 px heads on a 130 px line), not a head here, whose tip would be at the node; on a line
    touching three or more nodes, the crossing of another stroke a window's length from the
    node (``crowded``; seed-3434 matplotlib figure 9: read as a head there, with the strokes
    paired through it), where the ink by the node must be as plain as one shaft
    (``CROWDED_PLAIN_MAX_SHAFTS``): heads converging side by side there are thicker."""
    d = np.hypot(xs - end[0], ys - end[1])
    if d.size == 0 or float(d[int(np.argmax(thick))]) <= FAR_RIM_FRAC * reach:
        return False
    near = d <= NEAR_PART_FRAC * reach
    plain = CROWDED_PLAIN_MAX_SHAFTS if crowded else HEAD_THICKNESS_RATIO
    return int(near.sum()) >= 4 and float(thick[near].max()) < plain * shaft


def line_axis(
    xs: np.ndarray, ys: np.ndarray, point: tuple[float, float], width: float
) -> tuple[np.ndarray, np.ndarray, float, float, float] | None:
    """(dx, dy, ax, ay, head length): pixel offsets from ``point`` and the unit direction of the
    line away from it, taken from the ink 1.5 to 2.5 head lengths back (where only the shaft
    should be); ``None`` when too little ink is there."""
    hl = max(6.0, HEAD_LENGTH_WIDTHS * width)
    dx, dy = xs - point[0], ys - point[1]
    d = np.hypot(dx, dy)
    back = (d > 1.5 * hl) & (d <= 2.5 * hl)
    if back.sum() < 2:
        return None
    ax, ay = float(dx[back].mean()), float(dy[back].mean())
    n = float(np.hypot(ax, ay))
    if n < 1e-6:
        return None
    return dx, dy, ax / n, ay / n, hl


def lines_behind(xs: np.ndarray, ys: np.ndarray, point: tuple[float, float], width: float) -> int:
    """How many separate pieces of line run behind a line's end (window pixels): the fewest
    that cross a ring 1.5 to 2.5, or 2.5 to 3.5, head lengths from ``point`` (those the window
    reaches; else its outer part). One behind a head (the farther ring is past a long head's
    barbs); several where lines fan out of one point."""
    hl = max(6.0, HEAD_LENGTH_WIDTHS * width)
    d = np.hypot(xs - point[0], ys - point[1])
    if d.size == 0:
        return 0
    far = float(d.max())
    rings = [(lo * hl, (lo + 1.0) * hl) for lo in (1.5, 2.5) if lo * hl < far]
    counts = []
    for r0, r1 in rings or [(0.6 * far, far)]:  # a short window: its outer part
        ring = (d > r0) & (d <= r1)
        if not ring.any():
            continue
        rx, ry = xs[ring], ys[ring]
        x0, y0 = int(rx.min()), int(ry.min())
        mask = np.zeros((int(ry.max()) - y0 + 1, int(rx.max()) - x0 + 1), np.uint8)
        mask[ry - y0, rx - x0] = 1
        n, _lab, stats, _c = cv2.connectedComponentsWithStats(mask, connectivity=8)
        counts.append(sum(1 for c in range(1, n) if stats[c, cv2.CC_STAT_AREA] >= 2))
    return min(counts, default=0)


def end_spread(
    xs: np.ndarray, ys: np.ndarray, point: tuple[float, float], width: float
) -> tuple[float, float]:
    """Extent across the line of the ink within a head's length of ``point``, and of the ink
    behind that (1.5 to 2.5 head lengths away, where only the shaft should be). Window pixels;
    (0, 0) when too little ink."""
    axis = line_axis(xs, ys, point, width)
    if axis is None:
        return 0.0, 0.0
    dx, dy, ax, ay, hl = axis
    d = np.hypot(dx, dy)
    back = (d > 1.5 * hl) & (d <= 2.5 * hl)
    close = d <= hl
    if close.sum() < 2:
        return 0.0, 0.0

    def extent(sel: np.ndarray) -> float:
        across = dx[sel] * -ay + dy[sel] * ax
        lo, hi = np.percentile(across, [2, 98])
        return float(hi - lo) + 1.0

    return extent(close), extent(back)


def block_head(xs: np.ndarray, ys: np.ndarray, point: tuple[float, float], wd: float) -> bool:
    """A thick shaft ending in a wedge wider than itself that narrows to a point at ``point``:
    a block arrow's head (PowerPoint's ``rightArrow``: twice the shaft; matplotlib's
    ``simple``: 2.5 times). Its head is no thicker than the shaft, so the thickness test cannot
    see it, and it is shorter than the open-head test's window (``HEAD_LENGTH_WIDTHS``)."""
    dx, dy = xs - point[0], ys - point[1]
    d = np.hypot(dx, dy)
    lo, hi = BLOCK_BACK_WIDTHS
    back = (d > lo * wd) & (d <= hi * wd)
    near = d <= BLOCK_HEAD_WIDTHS * wd
    if back.sum() < 4 or near.sum() < 4:
        return False
    ax, ay = float(dx[back].mean()), float(dy[back].mean())
    n = math.hypot(ax, ay)
    if n < 1e-6:
        return False
    ax, ay = ax / n, ay / n
    along, across = dx * ax + dy * ay, -dx * ay + dy * ax

    step = max(2.0, wd / 4)

    def widths(sel: np.ndarray) -> list[float]:
        """Width across the line of each slice (``step`` long) of the selected ink."""
        out: list[float] = []
        if not sel.any():
            return out
        for t0 in np.arange(float(along[sel].min()), float(along[sel].max()) + step, step):
            cut = sel & (along >= t0) & (along < t0 + step)
            if cut.sum() >= 2:
                out.append(float(across[cut].max() - across[cut].min()) + 1.0)
        return out

    shaft = float(np.median(widths(back) or [0.0]))
    wedge = max(widths(near & (along >= 0)) or [0.0])
    tip = max(widths(near & (along < BLOCK_TIP_WIDTHS * wd)) or [0.0])
    if wd < BLOCK_ALONE_BELOW_PX and max(widths(~near & (d <= hi * wd)) or [0.0]) >= (
        BLOCK_ALONE_MAX_FRAC * wedge
    ):
        return False  # a thin line's staircase or a junction behind: no head standing alone
    return (
        shaft <= HEAD_BEHIND_MAX_WIDTHS * wd  # one plain shaft behind, not a fan
        and wedge >= BLOCK_SPREAD_RATIO * shaft
        and tip <= BLOCK_TIP_MAX_FRAC * wedge  # it narrows to its tip: not a bar or a T
    )


def thick_end(
    dt: np.ndarray,
    xs: np.ndarray,
    ys: np.ndarray,
    ridge: np.ndarray,
    d2: tuple[np.ndarray, np.ndarray],
    reach: float,
    width: float,
) -> tuple[int, float] | None:
    """Which end (0 or 1) of a two-ended line is the thick end of a tapered shaft, and the
    thin half's median half-width: the median distance-transform value of the ridge in the
    half of the stretch between the two head windows (``reach`` from each end; ``d2``: squared
    distances from each) by that end is at least ``TAPER_MIN_RATIO`` times the other half's.
    ``None``: no taper, halves shorter than ``TAPER_MIN_HALF_WIDTHS`` times the line's
    ``width`` (too little shaft between the windows to tell), a thinner half under
    ``TAPER_MIN_SHAFT_PX``, or halves that differ in length by more than
    ``TAPER_MAX_LENGTH_RATIO`` (split midway, one stroke's halves are alike). A half's length
    is its ink over its width (area / (2 x median)): the ridge's own pixel count runs sparse
    along a thick slanted stroke (seed-1717 matplotlib figure 13: 51 against 115 ridge pixels
    for halves 121 and 146 px long)."""
    between = (d2[0] > reach**2) & (d2[1] > reach**2)
    near0 = d2[0] < d2[1]
    mid = ridge & between
    halves = (mid & near0, mid & ~near0)
    n0, n1 = (int(h.sum()) for h in halves)
    if min(n0, n1) < TAPER_MIN_HALF_WIDTHS * width:
        return None  # too short a stretch to measure a taper on
    w0, w1 = (float(np.median(dt[ys[h], xs[h]])) for h in halves)
    if min(w0, w1) < TAPER_MIN_SHAFT_PX:
        return None  # a thin line: one distance-transform step passes for a taper
    l0 = float((between & near0).sum()) / (2.0 * w0)
    l1 = float((between & ~near0).sum()) / (2.0 * w1)
    if max(l0, l1) > TAPER_MAX_LENGTH_RATIO * min(l0, l1):
        return None  # one half holds more than one stroke (a hollow tail, a merge)
    if w0 >= TAPER_MIN_RATIO * w1:
        return 0, w1
    if w1 >= TAPER_MIN_RATIO * w0:
        return 1, w0
    return None


def fine_taper(
    xs: np.ndarray,
    ys: np.ndarray,
    d2: tuple[np.ndarray, np.ndarray],
    reach: float,
    width: float,
) -> int | None:
    """Which end (0 or 1) of a two-ended line read with no head at either end is the thick
    end of a shaft tapered too slightly for :func:`thick_end`'s ridge medians: a small
    ``fancy`` arrow narrows from a 6 px tail to a 4 px shaft, one distance-transform step,
    behind a head too small to read (seed-8686 matplotlib figure 13). Between the two head
    windows (``reach`` from each end, at least ``HEAD_LENGTH_WIDTHS`` line widths: a missed
    head thickens its own half), the half by the thick end carries ``TAPER_FINE_RATIO`` to
    ``TAPER_FINE_MAX_RATIO`` times the other's ink per pixel of length along its skeleton
    (its mean width; a diagonal step counts sqrt 2), and the mean exact distance to the
    background along its skeleton is ``TAPER_FINE_DT_RATIO`` times the other's. ``None``
    where either half's skeleton is under ``TAPER_FINE_MIN_HALF_WIDTHS`` line widths long or
    the two differ in length by more than ``TAPER_MAX_LENGTH_RATIO``."""
    reach = max(reach, HEAD_LENGTH_WIDTHS * width)
    between = (d2[0] > reach**2) & (d2[1] > reach**2)
    if not between.any():
        return None
    x0, y0 = int(xs.min()) - 1, int(ys.min()) - 1
    mask = np.zeros((int(ys.max()) - y0 + 2, int(xs.max()) - x0 + 2), np.uint8)
    mask[ys - y0, xs - x0] = 1
    sk = skeletonize(mask > 0).astype(np.uint8)  # type: ignore[no-untyped-call]
    # each skeleton pixel's share of its links: half of one per level step, of sqrt 2 per
    # diagonal one
    level = cv2.filter2D(sk, cv2.CV_32F, np.array([[0, 1, 0], [1, 0, 1], [0, 1, 0]], np.float32))
    diag = cv2.filter2D(sk, cv2.CV_32F, np.array([[1, 0, 1], [0, 0, 0], [1, 0, 1]], np.float32))
    step = (0.5 * (level + math.sqrt(2.0) * diag) * sk)[ys - y0, xs - x0]
    on = sk[ys - y0, xs - x0] > 0
    exact = cv2.distanceTransform(mask, cv2.DIST_L2, cv2.DIST_MASK_PRECISE)[ys - y0, xs - x0]
    near0 = d2[0] < d2[1]
    halves = (between & near0, between & ~near0)
    long = [float(step[h].sum()) for h in halves]
    if min(long) < TAPER_FINE_MIN_HALF_WIDTHS * width or not all(h[on].any() for h in halves):
        return None
    if max(long) > TAPER_MAX_LENGTH_RATIO * min(long):
        return None
    per = [float(h.sum()) / n for h, n in zip(halves, long, strict=True)]
    mean = [float(exact[h & on].mean()) for h in halves]
    for end in (0, 1):
        ratio = per[end] / per[1 - end]
        if (
            TAPER_FINE_RATIO <= ratio <= TAPER_FINE_MAX_RATIO
            and mean[end] >= TAPER_FINE_DT_RATIO * mean[1 - end]
            and _narrows_steadily(between, d2, step, end)
        ):
            return end
    return None


def _narrows_steadily(
    between: np.ndarray, d2: tuple[np.ndarray, np.ndarray], step: np.ndarray, thick: int
) -> bool:
    """Whether a shaft (``between``: its pixels between the head windows; ``step``: each
    one's skeleton length) narrows steadily from its ``thick`` end: cut into four quarters
    along its length, at most ``TAPER_FINE_MAX_DISORDER`` of their six pairs widen toward the
    thin end. A missed head's base in the last quarter by it, or noise on a short shaft,
    thickens one quarter alone (seed-8181 matplotlib figure 10: 23.5, 10.0, 10.4, 10.6 px)."""
    da, db = np.sqrt(d2[thick][between]), np.sqrt(d2[1 - thick][between])
    along = da / np.maximum(da + db, 1e-9)  # 0 at the thick end, 1 at the thin one
    edges = np.linspace(float(along.min()), float(along.max()), 5)
    quarter = np.clip(np.searchsorted(edges, along, side="right") - 1, 0, 3)
    ink = np.bincount(quarter, minlength=4).astype(float)
    length = np.bincount(quarter, weights=step[between], minlength=4)
    if (length <= 0).any():
        return False
    width = ink / length
    wider = sum(1 for i in range(4) for j in range(i + 1, 4) if width[j] > width[i])
    return wider <= TAPER_FINE_MAX_DISORDER


def untaper(
    line: LineComp,
    dt: np.ndarray,
    xs: np.ndarray,
    ys: np.ndarray,
    ridge: np.ndarray,
    d2: list[np.ndarray],
    reach: float,
) -> None:
    """A tapered (``fancy``) arrow joining two nodes (``d2``: squared distances from its two
    ends) narrows from its tail to its head: its thick end (:func:`thick_end`) is no
    head, however wide its cut end looks there. Its thin end is its head where neither end
    reads one, however small the head reads there (seed-7171 matplotlib figure 13: 12 px
    tails narrowing to 4 px shafts into heads 9 px wide, half erased with an ellipse's
    outline, read with no direction), or where that end stands ``HEAD_THICKNESS_RATIO`` times
    out of the thin half's shaft (a head the window measured against the wider shaft further
    back; seed-1717 figure 13: 9.6 px against 4.8 px, its blunt tail read as the head).
    Where :func:`thick_end` sees no taper and neither end reads a head, a slighter steady
    taper (:func:`fine_taper`) heads the thin end; a line with a head read keeps it (measured
    finer there, a head's barbs in its half flipped Graphviz edges)."""
    if len(d2) != 2 or len(line.contacts) != 2:
        return
    taper = thick_end(dt, xs, ys, ridge, (d2[0], d2[1]), reach, line.thickness_px)
    if taper is None:
        if not any(c.head for c in line.contacts):
            fine = fine_taper(xs, ys, (d2[0], d2[1]), reach, line.thickness_px)
            if fine is not None:
                line.contacts[1 - fine].head = True
        return
    thick, thin_half = taper
    headless = not any(c.head for c in line.contacts)
    line.contacts[thick].head = False
    tip = line.contacts[1 - thick]
    if headless or tip.thickness_px / 2.0 >= HEAD_THICKNESS_RATIO * thin_half:
        tip.head = True


def stub_tail(line: LineComp, xs: np.ndarray, ys: np.ndarray) -> None:
    """A line joining two nodes with a head at both ends, its pixels ``xs``/``ys`` (image
    frame): where its width across falls at once from a head's base to a plain shaft toward
    one end and tapers toward the other (``STUB_STEP_FRAC``), the first end is a tail. A head
    longer than the shaft behind it (a big ``-|>`` head on a short line between close nodes)
    reaches that end's window, so both ends read headed and the edge both ways. A line with a
    head at each end widens again toward the second."""
    if len(line.contacts) != 2 or not all(c.head for c in line.contacts) or xs.size == 0:
        return
    a = np.asarray(line.contacts[0].point, float)
    axis = np.asarray(line.contacts[1].point, float) - a
    length = float(np.hypot(*axis))
    if length < 4.0:
        return
    ux, uy = axis / length
    t = np.round((xs - a[0]) * ux + (ys - a[1]) * uy).astype(int)
    t = t[(t >= 0) & (t <= int(length))]
    if t.size == 0:
        return
    width = np.bincount(t, minlength=int(length) + 1).astype(float)
    peak = int(np.argmax(width))
    sides = (width[: peak + 1][::-1], width[peak:])  # from the peak toward each end
    falls: list[tuple[int, float, bool]] = []  # (bins to the fall, shaft, flat to the end)
    for side in sides:
        low = np.flatnonzero(side <= STUB_STEP_FRAC * side[0])
        if low.size == 0:
            return
        k = int(low[0])
        rest = side[k + 1 : -1]  # past the bin the fall straddles, short of the node
        if rest.size < 2:
            falls.append((k, 0.0, False))
            continue
        shaft = float(np.median(rest))
        # a head's base slanted across the line straddles about a shaft width of bins more
        past = rest[int(math.ceil(shaft)) :]
        flat = past.size >= 2 and float(past.max()) <= STUB_SHAFT_SLACK * shaft + STUB_SLACK_PX
        falls.append((k, shaft, flat))
    for end in (0, 1):
        k, shaft, flat = falls[end]
        other = falls[1 - end][0]
        if (
            flat
            and k <= max(STUB_STEP_MIN_BINS, STUB_STEP_MAX_SHAFTS * shaft)
            and other >= STUB_TAPER_RATIO * max(k, 1)
            and width[peak] >= HEAD_THICKNESS_RATIO * shaft
        ):
            line.contacts[end].head = False
            return


def unhead_fan_hub(line: LineComp) -> list[Contact]:
    """Thin lines fanning out of one point of a node overlap into a wedge as thick as a head
    there. An end is such a hub, not a head, when two or more separate lines run behind it
    (counted on the ink before the dash closing) and strokes join it to two or more headed
    ends (lines converging on a node, each with its own head, have plain tails at their far
    ends; one end falsely headed by such a wedge does not make its partners hubs). Returns the
    ends it took for hubs."""
    headed = {c.node for c in line.contacts if c.head or c.thin_head}

    def partners(c: Contact) -> set[int]:
        return {o.node for o in line.contacts if o.node != c.node and line.joined(c.node, o.node)}

    hubs = [
        c
        for c in line.contacts
        if ((c.head and c.lines_behind >= 2) or c.thin_head) and len(partners(c) & headed) >= 2
    ]
    hub_nodes = {c.node for c in hubs}
    for c in line.contacts:
        if c.thin_head and c not in hubs and partners(c) & hub_nodes:
            # fed from a fan's hub: two heads side by side (or one near a crossing), not a
            # hub itself. Fed from ends with no head either, it stays undecided: the heads of
            # ``simple`` wedge arrows go unseen, and a hub then has no headed partners.
            c.head = True
    for c in hubs:
        c.head = False
    return hubs


def unhead_star_centre(line: LineComp) -> None:
    """A line joining three or more nodes with every end read headed, whose strokes join one
    end to each of the others and the others to it alone (a star), is a fan: its centre's
    "head" is the wedge its tails make where they leave the node side by side (seed-5858
    matplotlib figure 13: two tapered arrows leaving "Gradient" together, their touching tails
    read as a head, every end headed and each edge read both ways). Lines converging on a
    node with their heads merged there have plain tails at their far ends."""
    cs = line.contacts
    nodes = {c.node for c in cs}
    if line.joins is None or len(cs) < 3 or len(nodes) != len(cs) or not all(c.head for c in cs):
        return
    for c in cs:
        rest = sorted(nodes - {c.node})
        if all(line.joined(c.node, o) for o in rest) and not any(
            line.joined(a, b) for i, a in enumerate(rest) for b in rest[i + 1 :]
        ):
            c.head = False
            return
